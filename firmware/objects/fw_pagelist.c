// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA firmware page lists: validation of struct ordma_page_list and
 * translation of a byte offset in the described buffer to a bus address,
 * walking level-1/level-2 tables in host memory.
 *
 * Tables are read when they are used, never cached: the host may not
 * change them while the object lives, and a table the device cannot read
 * fails the access that needed it rather than the device.
 */
#include <string.h>

#include "objects/fw_verbs.h"
#include "platform/fw_platform.h"

#define FW_TABLE_PAGE_SIZE	4096u
#define FW_TABLE_ENTRY_SIZE	8u
#define FW_PL_OFF(field)	offsetof(struct ordma_page_list, field)

static int fw_page_list_bad(struct fw_page_list *out, size_t field,
			    const char *why)
{
	out->bad_offset = (uint32_t)field;
	out->error = why;
	return ORDMA_CMD_STATUS_BAD_PARAM;
}

int fw_page_list_parse(struct ordma_fw *fw, const struct ordma_page_list *in,
		       uint64_t min_bytes, struct fw_page_list *out)
{
	uint64_t addr = le64_to_cpu(in->addr);
	uint32_t num_pages = le32_to_cpu(in->num_pages);
	uint64_t page_size, total, max_pages;

	(void)fw;
	memset(out, 0, sizeof(*out));
	if (in->reserved_14)
		return fw_page_list_bad(out, FW_PL_OFF(reserved_14),
					"page list reserved field not zero");
	if (in->page_shift < ORDMA_MIN_PAGE_SHIFT ||
	    in->page_shift > ORDMA_MAX_PAGE_SHIFT)
		return fw_page_list_bad(out, FW_PL_OFF(page_shift),
					"page_shift not in 12..30");
	if (in->levels > ORDMA_MTT_MAX_LEVELS)
		return fw_page_list_bad(out, FW_PL_OFF(levels),
					"levels not in 0..2");

	page_size = 1ULL << in->page_shift;
	total = (uint64_t)num_pages << in->page_shift;
	if (in->levels == 0)
		max_pages = UINT32_MAX;
	else if (in->levels == 1)
		max_pages = ORDMA_MTT_ENTRIES_PER_PAGE;
	else
		max_pages = (uint64_t)ORDMA_MTT_ENTRIES_PER_PAGE *
			    ORDMA_MTT_ENTRIES_PER_PAGE;
	if (!num_pages || num_pages > max_pages)
		return fw_page_list_bad(out, FW_PL_OFF(num_pages),
					"num_pages zero or beyond what the levels hold");

	if (!addr)
		return fw_page_list_bad(out, FW_PL_OFF(addr),
					"page list address is zero");
	if (in->levels == 0 && addr % page_size)
		return fw_page_list_bad(out, FW_PL_OFF(addr),
					"page address not aligned to the page size");
	if (in->levels && addr % FW_TABLE_PAGE_SIZE)
		return fw_page_list_bad(out, FW_PL_OFF(addr),
					"table address not 4 KiB aligned");
	if (in->levels == 0 && fw_range_wraps(addr, total))
		return fw_page_list_bad(out, FW_PL_OFF(addr),
					"pages wrap the address space");
	if (total < min_bytes)
		return fw_page_list_bad(out, FW_PL_OFF(num_pages),
					"page list too short for the object");

	out->addr = addr;
	out->num_pages = num_pages;
	out->page_shift = in->page_shift;
	out->levels = in->levels;
	out->total_bytes = total;
	return ORDMA_CMD_STATUS_OK;
}

/* One little-endian table entry; 0 is never a valid page or table. */
static int fw_read_entry(struct ordma_fw *fw, uint64_t table, uint64_t index,
			 uint64_t align, uint64_t *entry)
{
	uint64_t raw;

	if (fw_dma_read(fw, table + index * FW_TABLE_ENTRY_SIZE, &raw,
			sizeof(raw)))
		return -1;
	*entry = le64_to_cpu(raw);
	if (!*entry || *entry % align)
		return -1;
	return 0;
}

int fw_page_list_dma(struct ordma_fw *fw, const struct fw_page_list *pl,
		     uint64_t offset, uint64_t *dma, uint64_t *contig)
{
	uint64_t page_size = 1ULL << pl->page_shift;
	uint64_t index = offset >> pl->page_shift;
	uint64_t in_page = offset & (page_size - 1);
	uint64_t table, page;

	if (offset >= pl->total_bytes)
		return -1;
	switch (pl->levels) {
	case 0:
		*dma = pl->addr + offset;
		*contig = pl->total_bytes - offset;
		return 0;
	case 1:
		table = pl->addr;
		break;
	case 2:
		if (fw_read_entry(fw, pl->addr,
				  index / ORDMA_MTT_ENTRIES_PER_PAGE,
				  FW_TABLE_PAGE_SIZE, &table))
			return -1;
		index %= ORDMA_MTT_ENTRIES_PER_PAGE;
		break;
	default:
		return -1;
	}
	if (fw_read_entry(fw, table, index, page_size, &page) ||
	    fw_range_wraps(page, page_size))
		return -1;
	*dma = page + in_page;
	*contig = page_size - in_page;
	return 0;
}

static int fw_page_list_xlate(struct ordma_fw *fw, const void *pl,
			      uint64_t offset, uint64_t *dma, uint64_t *contig)
{
	return fw_page_list_dma(fw, pl, offset, dma, contig);
}

int fw_page_list_read(struct ordma_fw *fw, const struct fw_page_list *pl,
		      uint64_t offset, void *buf, size_t len)
{
	return fw_dma_read_through(fw, fw_page_list_xlate, pl, offset, buf,
				   len);
}
