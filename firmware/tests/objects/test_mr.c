// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Page lists and memory regions: page-list validation and walks (levels
 * 0/1/2, huge pages, table DMA errors), REG_MR/DEREG_MR validation with
 * syndromes, the key/PD/bounds/access lookup, copies across pages,
 * fast registration, local invalidation, DMA MRs and PD reference counts.
 */
#include <string.h>

#include "objects/fw_verbs.h"
#include "platform/fw_platform.h"
#include "drv.h"
#include "ordma_test.h"

/* Layout of DRV_MR_ADDR: page tables first, data pages after them */
#define TABLE(n)	(DRV_MR_ADDR + (uint64_t)(n) * 4096)
#define DATA(n)		(DRV_MR_ADDR + 0x40000 + (uint64_t)(n) * 4096)
#define DATA_PAGES	((DRV_MR_SIZE - 0x40000) / 4096)

#define OFF_PDN		8
#define OFF_UCTX	12
#define OFF_IOVA	16
#define OFF_LENGTH	24
#define OFF_PAGES	32
#define OFF_NUM_PAGES	40
#define OFF_PAGE_SHIFT	44
#define OFF_LEVELS	45
#define OFF_PL_RESERVED	46
#define OFF_ACCESS	48
#define OFF_KEY		52
#define OFF_FLAGS	53
#define OFF_MAX_PAGES	54
#define OFF_REREG_KEY	56
#define OFF_RESERVED_52	60

_Static_assert(OFF_PAGES == FW_CMD_OFF(reg_mr.pages), "reg_mr layout");
_Static_assert(OFF_ACCESS == FW_CMD_OFF(reg_mr.access), "reg_mr layout");
_Static_assert(OFF_MAX_PAGES == FW_CMD_OFF(reg_mr.max_pages), "reg_mr layout");

static void put_entry(struct drv *d, uint64_t table, unsigned int i,
		      uint64_t val)
{
	uint64_t le = cpu_to_le64(val);

	memcpy(drv_mem(d, table + (uint64_t)i * 8, 8), &le, 8);
}

static struct ordma_page_list make_pl(uint64_t addr, uint32_t num_pages,
				      uint8_t shift, uint8_t levels)
{
	struct ordma_page_list pl;

	memset(&pl, 0, sizeof(pl));
	pl.addr = cpu_to_le64(addr);
	pl.num_pages = cpu_to_le32(num_pages);
	pl.page_shift = shift;
	pl.levels = levels;
	return pl;
}

static bool open_with_pd(struct drv *d, uint32_t *uctx, uint32_t *kpd,
			 uint32_t *upd)
{
	if (!drv_open(d, 5))
		return false;
	memset(drv_mem(d, DRV_MR_ADDR, DRV_MR_SIZE), 0, DRV_MR_SIZE);
	return drv_alloc_uctx(d, uctx) == ORDMA_CMD_STATUS_OK &&
	       drv_alloc_pd(d, 0, kpd) == ORDMA_CMD_STATUS_OK &&
	       drv_alloc_pd(d, *uctx, upd) == ORDMA_CMD_STATUS_OK;
}

/* ------------------------------------------------------------------ */
/* Page lists                                                          */
/* ------------------------------------------------------------------ */

static int parse(struct drv *d, struct ordma_page_list in, uint64_t min,
		 struct fw_page_list *out)
{
	return fw_page_list_parse(d->fw, &in, min, out);
}

TEST(test_page_list_parse)
{
	struct ordma_page_list in;
	struct fw_page_list pl;
	struct drv d;

	REQUIRE(drv_open(&d, 4));
	CHECK_EQ(parse(&d, make_pl(0x10000, 4, 12, 0), 4 * 4096, &pl),
		 ORDMA_CMD_STATUS_OK);
	CHECK_EQ(pl.addr, 0x10000);
	CHECK_EQ(pl.num_pages, 4);
	CHECK_EQ(pl.page_shift, 12);
	CHECK_EQ(pl.levels, 0);
	CHECK_EQ(pl.total_bytes, 4 * 4096);
	CHECK_EQ(parse(&d, make_pl(0x40000000, 3, 30, 0), 0, &pl),
		 ORDMA_CMD_STATUS_OK);
	CHECK_EQ(pl.total_bytes, 3ULL << 30);
	CHECK_EQ(parse(&d, make_pl(0x1000, 512, 21, 1), 1ULL << 30, &pl),
		 ORDMA_CMD_STATUS_OK);
	CHECK_EQ(parse(&d, make_pl(0x1000, 512 * 512, 12, 2), 1ULL << 30, &pl),
		 ORDMA_CMD_STATUS_OK);
	CHECK_EQ(pl.total_bytes, 1ULL << 30);

	in = make_pl(0x10000, 4, 12, 0);
	in.reserved_14 = cpu_to_le16(1);
	CHECK_EQ(parse(&d, in, 0, &pl), ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(pl.bad_offset, 14);
	CHECK(pl.error != NULL);
	CHECK_EQ(parse(&d, make_pl(0x10000, 4, 11, 0), 0, &pl),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(pl.bad_offset, 12);
	CHECK_EQ(parse(&d, make_pl(0x10000, 4, 31, 0), 0, &pl),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(pl.bad_offset, 12);
	CHECK_EQ(parse(&d, make_pl(0x10000, 4, 12, 3), 0, &pl),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(pl.bad_offset, 13);
	CHECK_EQ(parse(&d, make_pl(0x10000, 0, 12, 0), 0, &pl),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(pl.bad_offset, 8);
	CHECK_EQ(parse(&d, make_pl(0x10000, 513, 12, 1), 0, &pl),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(pl.bad_offset, 8);
	CHECK_EQ(parse(&d, make_pl(0x10000, 512 * 512 + 1, 12, 2), 0, &pl),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(pl.bad_offset, 8);
	CHECK_EQ(parse(&d, make_pl(0, 4, 12, 0), 0, &pl),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(pl.bad_offset, 0);
	CHECK_EQ(parse(&d, make_pl(0x10800, 4, 12, 0), 0, &pl),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(pl.bad_offset, 0);
	/* level 0 aligns to the page size, tables to 4 KiB */
	CHECK_EQ(parse(&d, make_pl(0x101000, 1, 21, 0), 0, &pl),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(pl.bad_offset, 0);
	CHECK_EQ(parse(&d, make_pl(0x101000, 1, 21, 1), 0, &pl),
		 ORDMA_CMD_STATUS_OK);
	CHECK_EQ(parse(&d, make_pl(0x101008, 1, 12, 1), 0, &pl),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(pl.bad_offset, 0);
	CHECK_EQ(parse(&d, make_pl(0x101800, 1, 12, 2), 0, &pl),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(pl.bad_offset, 0);
	/* contiguous pages must not wrap the address space */
	CHECK_EQ(parse(&d, make_pl(0xfffffffffffff000ULL, 2, 12, 0), 0, &pl),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(pl.bad_offset, 0);
	CHECK_EQ(parse(&d, make_pl(0xfffffffffffff000ULL, 1, 12, 0), 0, &pl),
		 ORDMA_CMD_STATUS_OK);
	/* too short for the object */
	CHECK_EQ(parse(&d, make_pl(0x10000, 4, 12, 0), 4 * 4096 + 1, &pl),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(pl.bad_offset, 8);
	drv_close(&d);
}

TEST(test_page_list_level0)
{
	struct fw_page_list pl;
	uint64_t dma, contig;
	struct drv d;

	REQUIRE(drv_open(&d, 4));
	REQUIRE_EQ(parse(&d, make_pl(DATA(0), 3, 12, 0), 0, &pl),
		   ORDMA_CMD_STATUS_OK);
	CHECK_EQ(fw_page_list_dma(d.fw, &pl, 0, &dma, &contig), 0);
	CHECK_EQ(dma, DATA(0));
	CHECK_EQ(contig, 3 * 4096);
	CHECK_EQ(fw_page_list_dma(d.fw, &pl, 5000, &dma, &contig), 0);
	CHECK_EQ(dma, DATA(0) + 5000);
	CHECK_EQ(contig, 3 * 4096 - 5000);
	CHECK_EQ(fw_page_list_dma(d.fw, &pl, 3 * 4096 - 1, &dma, &contig), 0);
	CHECK_EQ(contig, 1);
	CHECK_EQ(fw_page_list_dma(d.fw, &pl, 3 * 4096, &dma, &contig), -1);
	CHECK_EQ(fw_page_list_dma(d.fw, &pl, UINT64_MAX, &dma, &contig), -1);
	/* level 0 never reads host memory */
	CHECK_EQ(d.hal.dma_errors, 0);
	drv_close(&d);
}

TEST(test_page_list_level1)
{
	struct fw_page_list pl;
	uint64_t dma, contig;
	struct drv d;
	unsigned int i;

	REQUIRE(drv_open(&d, 4));
	/* pages in reverse order so that a linear walk would be caught */
	for (i = 0; i < 8; i++)
		put_entry(&d, TABLE(0), i, DATA(7 - i));
	REQUIRE_EQ(parse(&d, make_pl(TABLE(0), 8, 12, 1), 8 * 4096, &pl),
		   ORDMA_CMD_STATUS_OK);
	for (i = 0; i < 8; i++) {
		CHECK_EQ(fw_page_list_dma(d.fw, &pl, i * 4096 + 100, &dma,
					  &contig), 0);
		CHECK_EQ(dma, DATA(7 - i) + 100);
		CHECK_EQ(contig, 4096 - 100);
	}
	CHECK_EQ(fw_page_list_dma(d.fw, &pl, 8 * 4096, &dma, &contig), -1);

	/* a zero or misaligned entry is an error of that page only */
	put_entry(&d, TABLE(0), 3, 0);
	put_entry(&d, TABLE(0), 4, DATA(3) + 8);
	CHECK_EQ(fw_page_list_dma(d.fw, &pl, 3 * 4096, &dma, &contig), -1);
	CHECK_EQ(fw_page_list_dma(d.fw, &pl, 4 * 4096 + 1, &dma, &contig), -1);
	CHECK_EQ(fw_page_list_dma(d.fw, &pl, 5 * 4096, &dma, &contig), 0);

	/* the table page cannot be read */
	d.hal.fail_lo = TABLE(0);
	d.hal.fail_hi = TABLE(0) + 4096;
	CHECK_EQ(fw_page_list_dma(d.fw, &pl, 0, &dma, &contig), -1);
	CHECK(d.hal.dma_errors > 0);
	d.hal.fail_lo = d.hal.fail_hi = 0;
	/* a table outside host memory */
	REQUIRE_EQ(parse(&d, make_pl(DRV_BAD_ADDR, 8, 12, 1), 0, &pl),
		   ORDMA_CMD_STATUS_OK);
	CHECK_EQ(fw_page_list_dma(d.fw, &pl, 0, &dma, &contig), -1);
	drv_close(&d);
}

TEST(test_page_list_level2)
{
	struct fw_page_list pl;
	uint64_t dma, contig;
	struct drv d;
	unsigned int i;

	REQUIRE(drv_open(&d, 4));
	/* 1030 pages: level-1 tables 1..3, the last one partly used */
	put_entry(&d, TABLE(0), 0, TABLE(1));
	put_entry(&d, TABLE(0), 1, TABLE(2));
	put_entry(&d, TABLE(0), 2, TABLE(3));
	for (i = 0; i < 1030; i++)
		put_entry(&d, TABLE(1 + i / 512), i % 512,
			  DATA(i % DATA_PAGES));
	REQUIRE_EQ(parse(&d, make_pl(TABLE(0), 1030, 12, 2), 0, &pl),
		   ORDMA_CMD_STATUS_OK);
	CHECK_EQ(fw_page_list_dma(d.fw, &pl, 0, &dma, &contig), 0);
	CHECK_EQ(dma, DATA(0));
	CHECK_EQ(fw_page_list_dma(d.fw, &pl, 511ULL * 4096 + 4095, &dma,
				  &contig), 0);
	CHECK_EQ(dma, DATA(511 % DATA_PAGES) + 4095);
	CHECK_EQ(contig, 1);
	CHECK_EQ(fw_page_list_dma(d.fw, &pl, 512ULL * 4096, &dma, &contig), 0);
	CHECK_EQ(dma, DATA(512 % DATA_PAGES));
	CHECK_EQ(fw_page_list_dma(d.fw, &pl, 1029ULL * 4096 + 7, &dma,
				  &contig), 0);
	CHECK_EQ(dma, DATA(1029 % DATA_PAGES) + 7);
	CHECK_EQ(fw_page_list_dma(d.fw, &pl, 1030ULL * 4096, &dma, &contig), -1);

	/* a misaligned level-1 pointer, then an unreadable level-1 table */
	put_entry(&d, TABLE(0), 1, TABLE(2) + 8);
	CHECK_EQ(fw_page_list_dma(d.fw, &pl, 600ULL * 4096, &dma, &contig), -1);
	put_entry(&d, TABLE(0), 1, TABLE(2));
	d.hal.fail_lo = TABLE(2);
	d.hal.fail_hi = TABLE(2) + 4096;
	CHECK_EQ(fw_page_list_dma(d.fw, &pl, 600ULL * 4096, &dma, &contig), -1);
	CHECK_EQ(fw_page_list_dma(d.fw, &pl, 100ULL * 4096, &dma, &contig), 0);
	/* the level-2 table itself */
	d.hal.fail_lo = TABLE(0);
	d.hal.fail_hi = TABLE(0) + 8;
	CHECK_EQ(fw_page_list_dma(d.fw, &pl, 100ULL * 4096, &dma, &contig), -1);
	d.hal.fail_lo = d.hal.fail_hi = 0;
	put_entry(&d, TABLE(0), 2, 0);
	CHECK_EQ(fw_page_list_dma(d.fw, &pl, 1025ULL * 4096, &dma, &contig), -1);
	drv_close(&d);
}

/* Huge pages: translation is arithmetic, nothing is read from the pages */
TEST(test_page_list_huge_pages)
{
	struct fw_page_list pl;
	uint64_t dma, contig;
	struct drv d;

	REQUIRE(drv_open(&d, 4));
	REQUIRE_EQ(parse(&d, make_pl(0x40000000, 4, 30, 0), 0, &pl),
		   ORDMA_CMD_STATUS_OK);
	CHECK_EQ(fw_page_list_dma(d.fw, &pl, (3ULL << 30) + 12345, &dma,
				  &contig), 0);
	CHECK_EQ(dma, 0x40000000ULL + (3ULL << 30) + 12345);
	CHECK_EQ(contig, (1ULL << 30) - 12345);

	put_entry(&d, TABLE(0), 0, 0x80000000ULL);
	put_entry(&d, TABLE(0), 1, 0x40000000ULL);
	REQUIRE_EQ(parse(&d, make_pl(TABLE(0), 2, 30, 1), 0, &pl),
		   ORDMA_CMD_STATUS_OK);
	CHECK_EQ(fw_page_list_dma(d.fw, &pl, (1ULL << 30) + 5, &dma, &contig),
		 0);
	CHECK_EQ(dma, 0x40000005ULL);
	CHECK_EQ(contig, (1ULL << 30) - 5);
	/* 2 MiB pages: an entry aligned to 4 KiB only is refused */
	put_entry(&d, TABLE(1), 0, 0x200000);
	put_entry(&d, TABLE(1), 1, 0x201000);
	REQUIRE_EQ(parse(&d, make_pl(TABLE(1), 2, 21, 1), 0, &pl),
		   ORDMA_CMD_STATUS_OK);
	CHECK_EQ(fw_page_list_dma(d.fw, &pl, 0x1fffff, &dma, &contig), 0);
	CHECK_EQ(dma, 0x3fffff);
	CHECK_EQ(contig, 1);
	CHECK_EQ(fw_page_list_dma(d.fw, &pl, 0x200000, &dma, &contig), -1);
	/* the last 1 GiB page of the address space */
	put_entry(&d, TABLE(2), 0, 0xffffffffc0000000ULL);
	REQUIRE_EQ(parse(&d, make_pl(TABLE(2), 1, 30, 1), 0, &pl),
		   ORDMA_CMD_STATUS_OK);
	CHECK_EQ(fw_page_list_dma(d.fw, &pl, 0, &dma, &contig), 0);
	CHECK_EQ(contig, 1ULL << 30);
	drv_close(&d);
}

/* The firmware only reads through page lists; tests write the same way */
static int pl_xlate(struct ordma_fw *fw, const void *pl, uint64_t offset,
		    uint64_t *dma, uint64_t *contig)
{
	return fw_page_list_dma(fw, pl, offset, dma, contig);
}

static int pl_write(struct ordma_fw *fw, const struct fw_page_list *pl,
		    uint64_t offset, const void *buf, size_t len)
{
	return fw_dma_write_through(fw, pl_xlate, pl, offset, buf, len);
}

TEST(test_page_list_read_write)
{
	uint8_t in[3 * 4096], out[3 * 4096];
	struct fw_page_list pl;
	struct drv d;
	size_t i;

	REQUIRE(drv_open(&d, 4));
	memset(drv_mem(&d, DRV_MR_ADDR, DRV_MR_SIZE), 0, DRV_MR_SIZE);
	put_entry(&d, TABLE(0), 0, DATA(5));
	put_entry(&d, TABLE(0), 1, DATA(2));
	put_entry(&d, TABLE(0), 2, DATA(9));
	put_entry(&d, TABLE(0), 3, DATA(1));
	REQUIRE_EQ(parse(&d, make_pl(TABLE(0), 4, 12, 1), 0, &pl),
		   ORDMA_CMD_STATUS_OK);
	for (i = 0; i < sizeof(in); i++)
		in[i] = (uint8_t)(i * 13 + 7);
	CHECK_EQ(pl_write(d.fw, &pl, 2000, in, sizeof(in)), 0);
	CHECK(!memcmp(drv_mem(&d, DATA(5) + 2000, 2096), in, 2096));
	CHECK(!memcmp(drv_mem(&d, DATA(2), 4096), in + 2096, 4096));
	CHECK(!memcmp(drv_mem(&d, DATA(9), 4096), in + 2096 + 4096, 4096));
	CHECK(!memcmp(drv_mem(&d, DATA(1), 2000), in + 2096 + 8192, 2000));
	CHECK_EQ(*(uint8_t *)drv_mem(&d, DATA(1) + 2000, 1), 0);
	CHECK_EQ(fw_page_list_read(d.fw, &pl, 2000, out, sizeof(out)), 0);
	CHECK(!memcmp(in, out, sizeof(in)));
	/* past the end, or through an unreadable page */
	CHECK_EQ(fw_page_list_read(d.fw, &pl, 4 * 4096 - 10, out, 11), -1);
	CHECK_EQ(pl_write(d.fw, &pl, 4 * 4096 - 10, in, 10), 0);
	put_entry(&d, TABLE(0), 2, DRV_BAD_ADDR);
	CHECK_EQ(fw_page_list_read(d.fw, &pl, 4000, out, 5000), -1);
	CHECK_EQ(pl_write(d.fw, &pl, 4000, in, 5000), -1);
	CHECK_EQ(pl_write(d.fw, &pl, 4 * 4096, in, 1), -1);
	/* the part before the bad page was written: no rollback promised */
	CHECK(!memcmp(drv_mem(&d, DATA(2) + 4000, 96), in, 96));
	drv_close(&d);
}

/* ------------------------------------------------------------------ */
/* REG_MR / DEREG_MR                                                   */
/* ------------------------------------------------------------------ */

static void reg_mr_init(struct ordma_aq_cmd *cmd, uint32_t pdn, uint32_t uctx,
			uint64_t iova, uint64_t length, uint32_t access)
{
	drv_cmd_init(cmd, ORDMA_CMD_REG_MR);
	cmd->reg_mr.pdn = cpu_to_le32(pdn);
	cmd->reg_mr.uctx = cpu_to_le32(uctx);
	cmd->reg_mr.iova = cpu_to_le64(iova);
	cmd->reg_mr.length = cpu_to_le64(length);
	cmd->reg_mr.pages = make_pl(DATA(0), 4, 12, 0);
	cmd->reg_mr.access = cpu_to_le32(access);
	cmd->reg_mr.key = 0x5a;
}

static void fast_reg_init(struct ordma_aq_cmd *cmd, uint32_t pdn,
			  uint32_t uctx, uint16_t max_pages)
{
	drv_cmd_init(cmd, ORDMA_CMD_REG_MR);
	cmd->reg_mr.pdn = cpu_to_le32(pdn);
	cmd->reg_mr.uctx = cpu_to_le32(uctx);
	cmd->reg_mr.flags = ORDMA_MR_FAST_REG;
	cmd->reg_mr.max_pages = cpu_to_le16(max_pages);
	cmd->reg_mr.key = 0x11;
}

static void dma_mr_init(struct ordma_aq_cmd *cmd, uint32_t pdn,
			uint32_t uctx, uint64_t length)
{
	drv_cmd_init(cmd, ORDMA_CMD_REG_MR);
	cmd->reg_mr.pdn = cpu_to_le32(pdn);
	cmd->reg_mr.uctx = cpu_to_le32(uctx);
	cmd->reg_mr.length = cpu_to_le64(length);
	cmd->reg_mr.access = cpu_to_le32(ORDMA_ACCESS_LOCAL_WRITE);
	cmd->reg_mr.flags = ORDMA_MR_DMA;
}

TEST(test_reg_mr_success)
{
	struct ordma_aq_cmd cmd;
	uint32_t uctx, kpd, upd, key;
	struct drv d;

	REQUIRE(open_with_pd(&d, &uctx, &kpd, &upd));
	reg_mr_init(&cmd, upd, uctx, 0x7000, 4 * 4096, DRV_ACCESS_ALL);
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(le32_to_cpu(d.last_comp.handle.handle), 1u << 8 | 0x5a);
	CHECK_EQ(le32_to_cpu(d.last_comp.handle.db_page), 0);
	CHECK_EQ(d.last_comp.syndrome, 0);
	/* iova in the middle of a page: the first page starts before it */
	cmd.reg_mr.iova = cpu_to_le64(0x7800);
	cmd.reg_mr.length = cpu_to_le64(4 * 4096 - 0x800);
	cmd.reg_mr.key = 0;
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(le32_to_cpu(d.last_comp.handle.handle), 2u << 8);
	/* every access combination the IBTA allows */
	cmd.reg_mr.access = 0;
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_OK);
	cmd.reg_mr.access = cpu_to_le32(ORDMA_ACCESS_REMOTE_READ);
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_OK);
	cmd.reg_mr.access = cpu_to_le32(ORDMA_ACCESS_LOCAL_WRITE |
					ORDMA_ACCESS_REMOTE_ATOMIC);
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_OK);
	/* a kernel MR, level-1 and level-2 page lists */
	reg_mr_init(&cmd, kpd, 0, 0, 2 * 4096, ORDMA_ACCESS_LOCAL_WRITE);
	cmd.reg_mr.pages = make_pl(TABLE(0), 2, 12, 1);
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(le32_to_cpu(d.last_comp.handle.handle), 6u << 8 | 0x5a);
	cmd.reg_mr.pages = make_pl(TABLE(0), 600, 12, 2);
	cmd.reg_mr.length = cpu_to_le64(600 * 4096);
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_OK);
	/* the largest MR: 2^40 bytes in 1 GiB pages */
	cmd.reg_mr.pages = make_pl(0x40000000, 1024, 30, 0);
	cmd.reg_mr.iova = cpu_to_le64(0x10000000000ULL);
	cmd.reg_mr.length = cpu_to_le64(1ULL << 40);
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_OK);
	/* fast-reg and DMA MRs */
	fast_reg_init(&cmd, upd, uctx, 512);
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(le32_to_cpu(d.last_comp.handle.handle), 9u << 8 | 0x11);
	dma_mr_init(&cmd, kpd, 0, 1ULL << 40);
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(le32_to_cpu(d.last_comp.handle.handle), 10u << 8);
	/* drv helper */
	CHECK_EQ(drv_reg_mr_contig(&d, kpd, 0, 0x1234, DATA(0), 100, 0, 0xff,
				   &key), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(key, 11u << 8 | 0xff);
	drv_close(&d);
}

struct reg_mr_case {
	const char *what;
	uint32_t syndrome;
	void (*mutate)(struct ordma_aq_cmd *cmd);
};

static void m_flags_unknown(struct ordma_aq_cmd *c) { c->reg_mr.flags = 8; }
static void m_flags_both(struct ordma_aq_cmd *c)
{
	c->reg_mr.flags = ORDMA_MR_FAST_REG | ORDMA_MR_DMA;
}
static void m_access_unknown(struct ordma_aq_cmd *c)
{
	c->reg_mr.access = cpu_to_le32(ORDMA_ACCESS_ALL + 1);
}
static void m_access_rw(struct ordma_aq_cmd *c)
{
	c->reg_mr.access = cpu_to_le32(ORDMA_ACCESS_REMOTE_WRITE);
}
static void m_access_atomic(struct ordma_aq_cmd *c)
{
	c->reg_mr.access = cpu_to_le32(ORDMA_ACCESS_REMOTE_ATOMIC |
				       ORDMA_ACCESS_REMOTE_READ);
}
static void m_max_pages(struct ordma_aq_cmd *c)
{
	c->reg_mr.max_pages = cpu_to_le16(1);
}
static void m_length_zero(struct ordma_aq_cmd *c) { c->reg_mr.length = 0; }
static void m_length_huge(struct ordma_aq_cmd *c)
{
	c->reg_mr.length = cpu_to_le64((1ULL << 40) + 1);
	c->reg_mr.pages = make_pl(0x40000000, 1025, 30, 0);
}
static void m_length_wraps(struct ordma_aq_cmd *c)
{
	c->reg_mr.iova = cpu_to_le64(0xfffffffffffff000ULL);
	c->reg_mr.length = cpu_to_le64(0x2000);
}
static void m_shift_small(struct ordma_aq_cmd *c)
{
	c->reg_mr.pages.page_shift = 11;
}
static void m_shift_big(struct ordma_aq_cmd *c)
{
	c->reg_mr.pages.page_shift = 31;
}
static void m_levels(struct ordma_aq_cmd *c) { c->reg_mr.pages.levels = 3; }
static void m_num_pages_zero(struct ordma_aq_cmd *c)
{
	c->reg_mr.pages.num_pages = 0;
}
static void m_num_pages_l1(struct ordma_aq_cmd *c)
{
	c->reg_mr.pages = make_pl(TABLE(0), 513, 12, 1);
}
static void m_pages_addr_zero(struct ordma_aq_cmd *c)
{
	c->reg_mr.pages.addr = 0;
}
static void m_pages_addr_misaligned(struct ordma_aq_cmd *c)
{
	c->reg_mr.pages.addr = cpu_to_le64(DATA(0) + 0x200);
}
static void m_table_misaligned(struct ordma_aq_cmd *c)
{
	c->reg_mr.pages = make_pl(TABLE(0) + 8, 4, 12, 1);
}
static void m_pages_short(struct ordma_aq_cmd *c)
{
	c->reg_mr.pages.num_pages = cpu_to_le32(3);
}
/* 4 pages hold the length, but not once iova's offset is added */
static void m_pages_short_offset(struct ordma_aq_cmd *c)
{
	c->reg_mr.iova = cpu_to_le64(0x7001);
}
static void m_pl_reserved(struct ordma_aq_cmd *c)
{
	c->reg_mr.pages.reserved_14 = cpu_to_le16(0x100);
}
static void m_trailing(struct ordma_aq_cmd *c) { c->raw[55] = 1; }
static void m_rereg_key(struct ordma_aq_cmd *c)
{
	c->reg_mr.rereg_key = cpu_to_le32(1u << 8 | 0x5a);
}

static void m_rereg_dma(struct ordma_aq_cmd *c)
{
	c->reg_mr.flags = ORDMA_MR_REREG | ORDMA_MR_DMA;
}

TEST(test_reg_mr_validation)
{
	static const struct reg_mr_case cases[] = {
		{ "unknown flag", OFF_FLAGS, m_flags_unknown },
		{ "FAST_REG and DMA", OFF_FLAGS, m_flags_both },
		{ "unknown access bit", OFF_ACCESS, m_access_unknown },
		{ "remote write without local write", OFF_ACCESS, m_access_rw },
		{ "atomic without local write", OFF_ACCESS, m_access_atomic },
		{ "max_pages on a normal MR", OFF_MAX_PAGES, m_max_pages },
		{ "length 0", OFF_LENGTH, m_length_zero },
		{ "length beyond max_mr_size", OFF_LENGTH, m_length_huge },
		{ "iova + length wraps", OFF_LENGTH, m_length_wraps },
		{ "page_shift 11", OFF_PAGE_SHIFT, m_shift_small },
		{ "page_shift 31", OFF_PAGE_SHIFT, m_shift_big },
		{ "levels 3", OFF_LEVELS, m_levels },
		{ "num_pages 0", OFF_NUM_PAGES, m_num_pages_zero },
		{ "513 pages in one table", OFF_NUM_PAGES, m_num_pages_l1 },
		{ "page list address 0", OFF_PAGES, m_pages_addr_zero },
		{ "page misaligned", OFF_PAGES, m_pages_addr_misaligned },
		{ "table misaligned", OFF_PAGES, m_table_misaligned },
		{ "too few pages", OFF_NUM_PAGES, m_pages_short },
		{ "too few pages for the offset", OFF_NUM_PAGES,
		  m_pages_short_offset },
		{ "page list reserved", OFF_PL_RESERVED, m_pl_reserved },
		{ "reserved_52", OFF_RESERVED_52, m_trailing },
		{ "rereg_key without REREG", OFF_REREG_KEY, m_rereg_key },
		{ "REREG with DMA", OFF_FLAGS, m_rereg_dma },
	};
	struct ordma_aq_cmd cmd;
	uint32_t uctx, kpd, upd;
	struct drv d;
	size_t i;

	REQUIRE(open_with_pd(&d, &uctx, &kpd, &upd));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		reg_mr_init(&cmd, upd, uctx, 0x7000, 4 * 4096,
			    ORDMA_ACCESS_LOCAL_WRITE);
		cases[i].mutate(&cmd);
		if (!CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_BAD_PARAM) ||
		    !CHECK_EQ(drv_syndrome(&d), cases[i].syndrome))
			NOTE("case: %s", cases[i].what);
	}
	/* none of them took an MR or a PD reference */
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEALLOC_PD, upd, uctx),
		 ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEREG_MR, 1u << 8 | 0x5a, uctx),
		 ORDMA_CMD_STATUS_BAD_HANDLE);
	drv_close(&d);
}

TEST(test_reg_mr_kinds_validation)
{
	struct ordma_aq_cmd cmd;
	uint32_t uctx, kpd, upd;
	struct drv d;

	REQUIRE(open_with_pd(&d, &uctx, &kpd, &upd));
	/* FAST_REG: iova, length, access and the page list are zero */
	fast_reg_init(&cmd, upd, uctx, 16);
	cmd.reg_mr.iova = cpu_to_le64(0x1000);
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), OFF_IOVA);
	fast_reg_init(&cmd, upd, uctx, 16);
	cmd.reg_mr.length = cpu_to_le64(0x1000);
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), OFF_LENGTH);
	fast_reg_init(&cmd, upd, uctx, 16);
	cmd.reg_mr.access = cpu_to_le32(ORDMA_ACCESS_LOCAL_WRITE);
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), OFF_ACCESS);
	fast_reg_init(&cmd, upd, uctx, 16);
	cmd.reg_mr.pages.addr = cpu_to_le64(DATA(0));
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), OFF_PAGES);
	fast_reg_init(&cmd, upd, uctx, 16);
	cmd.reg_mr.pages.num_pages = cpu_to_le32(1);
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), OFF_NUM_PAGES);
	fast_reg_init(&cmd, upd, uctx, 16);
	cmd.reg_mr.pages.page_shift = 12;
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), OFF_PAGE_SHIFT);
	fast_reg_init(&cmd, upd, uctx, 16);
	cmd.reg_mr.pages.levels = 1;
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), OFF_LEVELS);
	fast_reg_init(&cmd, upd, uctx, 0);
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), OFF_MAX_PAGES);
	fast_reg_init(&cmd, upd, uctx, 513);
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), OFF_MAX_PAGES);

	/* DMA: no page list, no max_pages, a length, the kernel only */
	dma_mr_init(&cmd, kpd, 0, 4096);
	cmd.reg_mr.pages.page_shift = 12;
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), OFF_PAGE_SHIFT);
	dma_mr_init(&cmd, kpd, 0, 4096);
	cmd.reg_mr.max_pages = cpu_to_le16(4);
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), OFF_MAX_PAGES);
	dma_mr_init(&cmd, kpd, 0, 0);
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), OFF_LENGTH);
	dma_mr_init(&cmd, kpd, 0, (1ULL << 40) + 1);
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), OFF_LENGTH);
	dma_mr_init(&cmd, upd, uctx, 4096);
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_PERM);
	CHECK_EQ(drv_syndrome(&d), 0);

	/* PD checks */
	reg_mr_init(&cmd, 0, uctx, 0x7000, 4096, 0);
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_BAD_HANDLE);
	reg_mr_init(&cmd, 77, uctx, 0x7000, 4096, 0);
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_BAD_HANDLE);
	reg_mr_init(&cmd, 2000, uctx, 0x7000, 4096, 0);
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_BAD_HANDLE);
	reg_mr_init(&cmd, kpd, uctx, 0x7000, 4096, 0);
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_PERM);
	reg_mr_init(&cmd, upd, 0, 0x7000, 4096, 0);
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_PERM);
	fast_reg_init(&cmd, kpd, uctx, 4);
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_PERM);
	/* nothing was created */
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEALLOC_PD, upd, uctx),
		 ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEALLOC_PD, kpd, 0),
		 ORDMA_CMD_STATUS_OK);
	drv_close(&d);
}

TEST(test_reg_mr_no_resources)
{
	struct ordma_aq_cmd cmd;
	uint32_t uctx, kpd, upd, i;
	struct drv d;

	REQUIRE(open_with_pd(&d, &uctx, &kpd, &upd));
	reg_mr_init(&cmd, kpd, 0, 0, 4096, 0);
	for (i = 1; i <= FW_MAX_MR; i++) {
		cmd.reg_mr.key = (uint8_t)i;
		if (!CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_OK))
			break;
	}
	CHECK_EQ(le32_to_cpu(d.last_comp.handle.handle),
		 FW_MAX_MR << 8 | (FW_MAX_MR & 0xff));
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_NO_RESOURCES);
	fast_reg_init(&cmd, kpd, 0, 8);
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_NO_RESOURCES);
	/* the failure dropped its PD reference again */
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEREG_MR, 100u << 8, 0),
		 ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(le32_to_cpu(d.last_comp.handle.handle), 100u << 8 | 0x11);
	for (i = 1; i <= FW_MAX_MR; i++)
		if (!CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEREG_MR, i << 8, 0),
			      ORDMA_CMD_STATUS_OK))
			break;
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEALLOC_PD, kpd, 0),
		 ORDMA_CMD_STATUS_OK);
	drv_close(&d);
}

TEST(test_dereg_mr)
{
	struct ordma_aq_cmd cmd;
	uint32_t uctx, kpd, upd, key;
	struct drv d;

	REQUIRE(open_with_pd(&d, &uctx, &kpd, &upd));
	reg_mr_init(&cmd, upd, uctx, 0x7000, 4096, 0);
	REQUIRE_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_OK);
	key = le32_to_cpu(d.last_comp.handle.handle);

	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEREG_MR, 0x5a, uctx),
		 ORDMA_CMD_STATUS_BAD_HANDLE);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEREG_MR, 2u << 8 | 0x5a, uctx),
		 ORDMA_CMD_STATUS_BAD_HANDLE);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEREG_MR, 0xffffff5a, uctx),
		 ORDMA_CMD_STATUS_BAD_HANDLE);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEREG_MR, key, 0),
		 ORDMA_CMD_STATUS_PERM);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEREG_MR, key, 7),
		 ORDMA_CMD_STATUS_PERM);
	/* the PD is held by the MR */
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEALLOC_PD, upd, uctx),
		 ORDMA_CMD_STATUS_BUSY);
	CHECK_EQ(drv_syndrome(&d), 0);
	/* the variant does not matter: fast-reg WQEs change it */
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEREG_MR, key ^ 0xff, uctx),
		 ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEREG_MR, key, uctx),
		 ORDMA_CMD_STATUS_BAD_HANDLE);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEALLOC_PD, upd, uctx),
		 ORDMA_CMD_STATUS_OK);
	drv_close(&d);
}

/* ------------------------------------------------------------------ */
/* Lookup, translation, copies                                         */
/* ------------------------------------------------------------------ */

TEST(test_mr_lookup)
{
	static const uint32_t bits[] = {
		ORDMA_ACCESS_LOCAL_WRITE, ORDMA_ACCESS_REMOTE_WRITE,
		ORDMA_ACCESS_REMOTE_READ, ORDMA_ACCESS_REMOTE_ATOMIC,
	};
	uint32_t uctx, kpd, upd, key, i;
	struct fw_mr *mr = NULL;
	struct drv d;

	REQUIRE(open_with_pd(&d, &uctx, &kpd, &upd));
	REQUIRE_EQ(drv_reg_mr_contig(&d, upd, uctx, 0x10000800, DATA(0),
				     0x3000, ORDMA_ACCESS_LOCAL_WRITE |
				     ORDMA_ACCESS_REMOTE_READ, 0x42, &key),
		   ORDMA_CMD_STATUS_OK);
	CHECK_EQ(fw_mr_lookup(d.fw, key, upd, 0x10000800, 0x3000, 0, &mr),
		 FW_MR_OK);
	CHECK(mr != NULL);
	/* keys */
	CHECK_EQ(fw_mr_lookup(d.fw, key ^ 1, upd, 0x10000800, 1, 0, &mr),
		 FW_MR_ERR_KEY);
	CHECK_EQ(fw_mr_lookup(d.fw, key + 0x100, upd, 0x10000800, 1, 0, &mr),
		 FW_MR_ERR_KEY);
	CHECK_EQ(fw_mr_lookup(d.fw, 0x42, upd, 0x10000800, 1, 0, &mr),
		 FW_MR_ERR_KEY);
	CHECK_EQ(fw_mr_lookup(d.fw, 0xffffff42, upd, 0x10000800, 1, 0, &mr),
		 FW_MR_ERR_KEY);
	/* PD */
	CHECK_EQ(fw_mr_lookup(d.fw, key, kpd, 0x10000800, 1, 0, &mr),
		 FW_MR_ERR_PD);
	CHECK_EQ(fw_mr_lookup(d.fw, key, 0, 0x10000800, 1, 0, &mr),
		 FW_MR_ERR_PD);
	/* bounds */
	CHECK_EQ(fw_mr_lookup(d.fw, key, upd, 0x100007ff, 1, 0, &mr),
		 FW_MR_ERR_BOUNDS);
	CHECK_EQ(fw_mr_lookup(d.fw, key, upd, 0x100007ff, 2, 0, &mr),
		 FW_MR_ERR_BOUNDS);
	CHECK_EQ(fw_mr_lookup(d.fw, key, upd, 0x10003800, 1, 0, &mr),
		 FW_MR_ERR_BOUNDS);
	CHECK_EQ(fw_mr_lookup(d.fw, key, upd, 0x100037ff, 1, 0, &mr),
		 FW_MR_OK);
	CHECK_EQ(fw_mr_lookup(d.fw, key, upd, 0x100037ff, 2, 0, &mr),
		 FW_MR_ERR_BOUNDS);
	CHECK_EQ(fw_mr_lookup(d.fw, key, upd, 0x10000800, 0x3001, 0, &mr),
		 FW_MR_ERR_BOUNDS);
	CHECK_EQ(fw_mr_lookup(d.fw, key, upd, 0x10001000, UINT64_MAX, 0, &mr),
		 FW_MR_ERR_BOUNDS);
	CHECK_EQ(fw_mr_lookup(d.fw, key, upd, UINT64_MAX, 2, 0, &mr),
		 FW_MR_ERR_BOUNDS);
	/* zero-length accesses at either end */
	CHECK_EQ(fw_mr_lookup(d.fw, key, upd, 0x10003800, 0, 0, &mr), FW_MR_OK);
	CHECK_EQ(fw_mr_lookup(d.fw, key, upd, 0x10003801, 0, 0, &mr),
		 FW_MR_ERR_BOUNDS);
	/* access: granted bits pass, each missing one fails */
	CHECK_EQ(fw_mr_lookup(d.fw, key, upd, 0x10000800, 8,
			      ORDMA_ACCESS_LOCAL_WRITE | ORDMA_ACCESS_REMOTE_READ,
			      &mr), FW_MR_OK);
	CHECK_EQ(fw_mr_lookup(d.fw, key, upd, 0x10000800, 8,
			      ORDMA_ACCESS_REMOTE_WRITE, &mr), FW_MR_ERR_ACCESS);
	CHECK_EQ(fw_mr_lookup(d.fw, key, upd, 0x10000800, 8,
			      ORDMA_ACCESS_REMOTE_ATOMIC, &mr), FW_MR_ERR_ACCESS);
	/* bounds are checked before access */
	CHECK_EQ(fw_mr_lookup(d.fw, key, upd, 0x10004000, 8,
			      ORDMA_ACCESS_REMOTE_WRITE, &mr), FW_MR_ERR_BOUNDS);

	/* one MR per access bit: only that bit (and local read) passes */
	for (i = 0; i < 4; i++) {
		uint32_t access = bits[i], k2, j;

		if (access & (ORDMA_ACCESS_REMOTE_WRITE | ORDMA_ACCESS_REMOTE_ATOMIC))
			access |= ORDMA_ACCESS_LOCAL_WRITE;
		REQUIRE_EQ(drv_reg_mr_contig(&d, kpd, 0, 0, DATA(0), 4096,
					     access, (uint8_t)i, &k2),
			   ORDMA_CMD_STATUS_OK);
		CHECK_EQ(fw_mr_lookup(d.fw, k2, kpd, 0, 4096, 0, &mr), FW_MR_OK);
		for (j = 0; j < 4; j++)
			CHECK_EQ(fw_mr_lookup(d.fw, k2, kpd, 0, 4096, bits[j],
					      &mr),
				 access & bits[j] ? FW_MR_OK : FW_MR_ERR_ACCESS);
	}
	/* after DEREG_MR the key is gone */
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEREG_MR, key, uctx),
		 ORDMA_CMD_STATUS_OK);
	CHECK_EQ(fw_mr_lookup(d.fw, key, upd, 0x10000800, 1, 0, &mr),
		 FW_MR_ERR_KEY);
	/* an MR ending exactly at 2^64 is usable up to its last byte */
	REQUIRE_EQ(drv_reg_mr_contig(&d, kpd, 0, 0xfffffffffffff000ULL, DATA(0),
				     4096, ORDMA_ACCESS_LOCAL_WRITE, 0x7, &key),
		   ORDMA_CMD_STATUS_OK);
	CHECK_EQ(fw_mr_lookup(d.fw, key, kpd, 0xfffffffffffff000ULL, 4096,
			      ORDMA_ACCESS_LOCAL_WRITE, &mr), FW_MR_OK);
	CHECK_EQ(fw_mr_lookup(d.fw, key, kpd, UINT64_MAX, 1, 0, &mr), FW_MR_OK);
	CHECK_EQ(fw_mr_lookup(d.fw, key, kpd, UINT64_MAX, 2, 0, &mr),
		 FW_MR_ERR_BOUNDS);
	CHECK_EQ(fw_mr_lookup(d.fw, key, kpd, 0xffffffffffffefffULL, 1, 0, &mr),
		 FW_MR_ERR_BOUNDS);
	drv_close(&d);
}

TEST(test_mr_copy_across_pages)
{
	uint8_t in[10000], out[10000];
	struct ordma_aq_cmd cmd;
	uint32_t uctx, kpd, upd, key;
	uint64_t dma, contig;
	struct fw_mr *mr;
	struct drv d;
	size_t i;

	REQUIRE(open_with_pd(&d, &uctx, &kpd, &upd));
	/* four scattered pages, iova 0x5000f00: first page used from 0xf00 */
	put_entry(&d, TABLE(0), 0, DATA(8));
	put_entry(&d, TABLE(0), 1, DATA(3));
	put_entry(&d, TABLE(0), 2, DATA(6));
	put_entry(&d, TABLE(0), 3, DATA(1));
	reg_mr_init(&cmd, upd, uctx, 0x5000f00, 4 * 4096 - 0xf00,
		    ORDMA_ACCESS_LOCAL_WRITE);
	cmd.reg_mr.pages = make_pl(TABLE(0), 4, 12, 1);
	REQUIRE_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_OK);
	key = le32_to_cpu(d.last_comp.handle.handle);
	REQUIRE_EQ(fw_mr_lookup(d.fw, key, upd, 0x5000f00, 10000,
				ORDMA_ACCESS_LOCAL_WRITE, &mr), FW_MR_OK);

	CHECK_EQ(fw_mr_dma(d.fw, mr, 0x5000f00, &dma, &contig), 0);
	CHECK_EQ(dma, DATA(8) + 0xf00);
	CHECK_EQ(contig, 0x100);
	CHECK_EQ(fw_mr_dma(d.fw, mr, 0x5001000, &dma, &contig), 0);
	CHECK_EQ(dma, DATA(3));
	CHECK_EQ(contig, 4096);
	CHECK_EQ(fw_mr_dma(d.fw, mr, 0x5003ffe, &dma, &contig), 0);
	CHECK_EQ(dma, DATA(1) + 0xffe);
	CHECK_EQ(contig, 2);
	CHECK_EQ(fw_mr_dma(d.fw, mr, 0x5004000, &dma, &contig), -1);
	CHECK_EQ(fw_mr_dma(d.fw, mr, 0x5000eff, &dma, &contig), -1);

	for (i = 0; i < sizeof(in); i++)
		in[i] = (uint8_t)(i * 31 + 3);
	CHECK_EQ(fw_mr_copy_to(d.fw, mr, 0x5000f80, in, sizeof(in)), 0);
	CHECK(!memcmp(drv_mem(&d, DATA(8) + 0xf80, 0x80), in, 0x80));
	CHECK(!memcmp(drv_mem(&d, DATA(3), 4096), in + 0x80, 4096));
	CHECK(!memcmp(drv_mem(&d, DATA(6), 4096), in + 0x80 + 4096, 4096));
	CHECK(!memcmp(drv_mem(&d, DATA(1), 10000 - 0x80 - 8192),
		      in + 0x80 + 8192, 10000 - 0x80 - 8192));
	CHECK_EQ(fw_mr_copy_from(d.fw, mr, 0x5000f80, out, sizeof(out)), 0);
	CHECK(!memcmp(in, out, sizeof(in)));
	/* single bytes at both ends */
	CHECK_EQ(fw_mr_copy_to(d.fw, mr, 0x5000f00, in, 1), 0);
	CHECK_EQ(*(uint8_t *)drv_mem(&d, DATA(8) + 0xf00, 1), in[0]);
	CHECK_EQ(fw_mr_copy_to(d.fw, mr, 0x5003fff, in + 1, 1), 0);
	CHECK_EQ(*(uint8_t *)drv_mem(&d, DATA(1) + 0xfff, 1), in[1]);
	/* beyond the MR */
	CHECK_EQ(fw_mr_copy_to(d.fw, mr, 0x5003fff, in, 2), -1);
	CHECK_EQ(fw_mr_copy_from(d.fw, mr, 0x5000e00, out, 0x200), -1);
	CHECK_EQ(fw_mr_copy_to(d.fw, mr, 0x5001000, in, 0), 0);
	/* a page that faults, a table entry that was cleared */
	d.hal.fail_lo = DATA(6) + 100;
	d.hal.fail_hi = DATA(6) + 101;
	CHECK_EQ(fw_mr_copy_from(d.fw, mr, 0x5001000, out, 8192), -1);
	CHECK_EQ(fw_mr_copy_from(d.fw, mr, 0x5001000, out, 4096), 0);
	d.hal.fail_lo = d.hal.fail_hi = 0;
	put_entry(&d, TABLE(0), 3, 0);
	CHECK_EQ(fw_mr_copy_to(d.fw, mr, 0x5002000, in, 8192), -1);
	drv_close(&d);
}

/* ------------------------------------------------------------------ */
/* Fast registration, invalidation, DMA MRs                            */
/* ------------------------------------------------------------------ */

static struct ordma_wqe_reg_mr make_frwr(uint32_t key, uint64_t iova,
					 uint64_t length, uint64_t list,
					 uint16_t num_pages, uint8_t shift,
					 uint8_t access)
{
	struct ordma_wqe_reg_mr w;

	memset(&w, 0, sizeof(w));
	w.key = cpu_to_le32(key);
	w.iova = cpu_to_le64(iova);
	w.length = cpu_to_le64(length);
	w.page_list = cpu_to_le64(list);
	w.num_pages = cpu_to_le16(num_pages);
	w.page_shift = shift;
	w.access = access;
	return w;
}

TEST(test_fast_reg_and_invalidate)
{
	const uint8_t rw = ORDMA_ACCESS_LOCAL_WRITE | ORDMA_ACCESS_REMOTE_WRITE;
	struct ordma_wqe_reg_mr w;
	struct ordma_aq_cmd cmd;
	uint32_t uctx, kpd, upd, frkey, normal, idx, newkey;
	uint8_t buf[6000], back[6000];
	struct fw_mr *mr;
	struct drv d;
	size_t i;

	REQUIRE(open_with_pd(&d, &uctx, &kpd, &upd));
	fast_reg_init(&cmd, kpd, 0, 4);
	REQUIRE_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_OK);
	frkey = le32_to_cpu(d.last_comp.handle.handle);
	idx = frkey & ~0xffu;
	REQUIRE_EQ(drv_reg_mr_contig(&d, kpd, 0, 0, DATA(0), 4096, 0, 0,
				     &normal), ORDMA_CMD_STATUS_OK);
	/* not usable before a REG_MR WQE */
	CHECK_EQ(fw_mr_lookup(d.fw, frkey, kpd, 0, 0, 0, &mr), FW_MR_ERR_KEY);

	/* the page list the WQE names: pages 4, 2, 7 */
	put_entry(&d, TABLE(0), 0, DATA(4));
	put_entry(&d, TABLE(0), 1, DATA(2));
	put_entry(&d, TABLE(0), 2, DATA(7));
	newkey = idx | 0x77;

	/* failures first */
	w = make_frwr(frkey + (50u << 8), 0x9000100, 8000, TABLE(0), 3, 12, rw);
	CHECK_EQ(fw_mr_fast_register(d.fw, kpd, &w), FW_MR_ERR_KEY);
	w = make_frwr(newkey, 0x9000100, 8000, TABLE(0), 3, 12, rw);
	CHECK_EQ(fw_mr_fast_register(d.fw, upd, &w), FW_MR_ERR_PD);
	w = make_frwr(normal, 0x9000100, 8000, TABLE(0), 3, 12, rw);
	CHECK_EQ(fw_mr_fast_register(d.fw, kpd, &w), FW_MR_ERR_TYPE);
	w = make_frwr(newkey, 0x9000100, 8000, TABLE(0), 0, 12, rw);
	CHECK_EQ(fw_mr_fast_register(d.fw, kpd, &w), FW_MR_ERR_PARAM);
	w = make_frwr(newkey, 0x9000100, 8000, TABLE(0), 5, 12, rw);
	CHECK_EQ(fw_mr_fast_register(d.fw, kpd, &w), FW_MR_ERR_PARAM);
	w = make_frwr(newkey, 0x9000100, 8000, TABLE(0), 3, 11, rw);
	CHECK_EQ(fw_mr_fast_register(d.fw, kpd, &w), FW_MR_ERR_PARAM);
	w = make_frwr(newkey, 0x9000100, 8000, TABLE(0), 3, 31, rw);
	CHECK_EQ(fw_mr_fast_register(d.fw, kpd, &w), FW_MR_ERR_PARAM);
	w = make_frwr(newkey, 0x9000100, 8000, TABLE(0), 3, 12,
		      ORDMA_ACCESS_REMOTE_WRITE);
	CHECK_EQ(fw_mr_fast_register(d.fw, kpd, &w), FW_MR_ERR_PARAM);
	w = make_frwr(newkey, 0x9000100, 8000, TABLE(0), 3, 12,
		      ORDMA_ACCESS_ZERO_BASED);
	CHECK_EQ(fw_mr_fast_register(d.fw, kpd, &w), FW_MR_ERR_PARAM);
	w = make_frwr(newkey, 0x9000100, 0, TABLE(0), 3, 12, rw);
	CHECK_EQ(fw_mr_fast_register(d.fw, kpd, &w), FW_MR_ERR_PARAM);
	/* 3 pages minus the 0x100 offset hold 12032 bytes, not 12033 */
	w = make_frwr(newkey, 0x9000100, 3 * 4096 - 0xff, TABLE(0), 3, 12, rw);
	CHECK_EQ(fw_mr_fast_register(d.fw, kpd, &w), FW_MR_ERR_PARAM);
	w = make_frwr(newkey, 0xfffffffffffff100ULL, 8000, TABLE(0), 3, 12, rw);
	CHECK_EQ(fw_mr_fast_register(d.fw, kpd, &w), FW_MR_ERR_PARAM);
	w = make_frwr(newkey, 0x9000100, 8000, 0, 3, 12, rw);
	CHECK_EQ(fw_mr_fast_register(d.fw, kpd, &w), FW_MR_ERR_PARAM);
	w = make_frwr(newkey, 0x9000100, 8000, TABLE(0) + 4, 3, 12, rw);
	CHECK_EQ(fw_mr_fast_register(d.fw, kpd, &w), FW_MR_ERR_PARAM);
	w = make_frwr(newkey, 0x9000100, 8000, DRV_BAD_ADDR, 3, 12, rw);
	CHECK_EQ(fw_mr_fast_register(d.fw, kpd, &w), FW_MR_ERR_DMA);
	put_entry(&d, TABLE(0), 2, DATA(7) + 0x800);
	w = make_frwr(newkey, 0x9000100, 8000, TABLE(0), 3, 12, rw);
	CHECK_EQ(fw_mr_fast_register(d.fw, kpd, &w), FW_MR_ERR_PARAM);
	put_entry(&d, TABLE(0), 2, DATA(7));
	CHECK_EQ(fw_mr_lookup(d.fw, frkey, kpd, 0, 0, 0, &mr), FW_MR_ERR_KEY);

	/* success: new variant, pages copied in */
	w = make_frwr(newkey, 0x9000100, 3 * 4096 - 0x100, TABLE(0), 3, 12, rw);
	CHECK_EQ(fw_mr_fast_register(d.fw, kpd, &w), FW_MR_OK);
	put_entry(&d, TABLE(0), 1, DRV_BAD_ADDR);	/* host reuses its list */
	CHECK_EQ(fw_mr_lookup(d.fw, frkey, kpd, 0x9000100, 1, 0, &mr),
		 FW_MR_ERR_KEY);
	REQUIRE_EQ(fw_mr_lookup(d.fw, newkey, kpd, 0x9000100, 3 * 4096 - 0x100,
				ORDMA_ACCESS_REMOTE_WRITE, &mr), FW_MR_OK);
	CHECK_EQ(fw_mr_lookup(d.fw, newkey, kpd, 0x9000100, 1,
			      ORDMA_ACCESS_REMOTE_READ, &mr), FW_MR_ERR_ACCESS);
	CHECK_EQ(fw_mr_lookup(d.fw, newkey, kpd, 0x90000ff, 1, 0, &mr),
		 FW_MR_ERR_BOUNDS);
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i ^ 0x5c);
	CHECK_EQ(fw_mr_copy_to(d.fw, mr, 0x9000f00, buf, sizeof(buf)), 0);
	CHECK(!memcmp(drv_mem(&d, DATA(4) + 0xf00, 0x100), buf, 0x100));
	CHECK(!memcmp(drv_mem(&d, DATA(2), 4096), buf + 0x100, 4096));
	CHECK(!memcmp(drv_mem(&d, DATA(7), sizeof(buf) - 0x1100),
		      buf + 0x1100, sizeof(buf) - 0x1100));
	CHECK_EQ(fw_mr_copy_from(d.fw, mr, 0x9000f00, back, sizeof(back)), 0);
	CHECK(!memcmp(buf, back, sizeof(buf)));
	/* a valid MR cannot be registered again */
	w = make_frwr(idx | 0x78, 0, 4096, TABLE(1), 1, 12, 0);
	put_entry(&d, TABLE(1), 0, DATA(9));
	CHECK_EQ(fw_mr_fast_register(d.fw, kpd, &w), FW_MR_ERR_TYPE);

	/* invalidation */
	CHECK_EQ(fw_mr_invalidate(d.fw, frkey, kpd), FW_MR_ERR_KEY);
	CHECK_EQ(fw_mr_invalidate(d.fw, newkey + 0x100, kpd), FW_MR_ERR_KEY);
	CHECK_EQ(fw_mr_invalidate(d.fw, newkey, upd), FW_MR_ERR_PD);
	CHECK_EQ(fw_mr_invalidate(d.fw, normal, kpd), FW_MR_ERR_TYPE);
	CHECK_EQ(fw_mr_lookup(d.fw, normal, kpd, 0, 1, 0, &mr), FW_MR_OK);
	CHECK_EQ(fw_mr_invalidate(d.fw, newkey, kpd), FW_MR_OK);
	CHECK_EQ(fw_mr_lookup(d.fw, newkey, kpd, 0x9000100, 1, 0, &mr),
		 FW_MR_ERR_KEY);
	CHECK_EQ(fw_mr_invalidate(d.fw, newkey, kpd), FW_MR_OK);
	/* and registered again, with a 1 GiB page this time */
	put_entry(&d, TABLE(1), 0, 0x40000000);
	w = make_frwr(idx | 0x78, 0x40000000, 1ULL << 30, TABLE(1), 1, 30,
		      ORDMA_ACCESS_REMOTE_READ);
	CHECK_EQ(fw_mr_fast_register(d.fw, kpd, &w), FW_MR_OK);
	CHECK_EQ(fw_mr_lookup(d.fw, idx | 0x78, kpd, 0x7fffffff, 1,
			      ORDMA_ACCESS_REMOTE_READ, &mr), FW_MR_OK);
	CHECK_EQ(fw_mr_lookup(d.fw, newkey, kpd, 0x40000000, 1, 0, &mr),
		 FW_MR_ERR_KEY);
	/* DEREG with the original key still works */
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEREG_MR, frkey, 0),
		 ORDMA_CMD_STATUS_OK);
	CHECK_EQ(fw_mr_invalidate(d.fw, idx | 0x78, kpd), FW_MR_ERR_KEY);
	drv_close(&d);
}

TEST(test_dma_mr)
{
	struct ordma_aq_cmd cmd;
	uint32_t uctx, kpd, upd, key;
	uint64_t dma, contig;
	uint8_t buf[64];
	struct fw_mr *mr;
	struct drv d;

	REQUIRE(open_with_pd(&d, &uctx, &kpd, &upd));
	dma_mr_init(&cmd, kpd, 0, 1ULL << 40);
	cmd.reg_mr.access = cpu_to_le32(ORDMA_ACCESS_LOCAL_WRITE |
					ORDMA_ACCESS_REMOTE_READ);
	REQUIRE_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_OK);
	key = le32_to_cpu(d.last_comp.handle.handle);
	REQUIRE_EQ(fw_mr_lookup(d.fw, key, kpd, DATA(3) + 5, sizeof(buf),
				ORDMA_ACCESS_LOCAL_WRITE, &mr), FW_MR_OK);
	CHECK_EQ(fw_mr_dma(d.fw, mr, DATA(3) + 5, &dma, &contig), 0);
	CHECK_EQ(dma, DATA(3) + 5);
	CHECK_EQ(contig, (1ULL << 40) - DATA(3) - 5);
	memset(buf, 0xc3, sizeof(buf));
	CHECK_EQ(fw_mr_copy_to(d.fw, mr, DATA(3) + 5, buf, sizeof(buf)), 0);
	CHECK(!memcmp(drv_mem(&d, DATA(3) + 5, sizeof(buf)), buf, sizeof(buf)));
	/* bus address outside host memory: the DMA fails, nothing crashes */
	CHECK_EQ(fw_mr_copy_from(d.fw, mr, DRV_BAD_ADDR, buf, sizeof(buf)), -1);
	CHECK_EQ(fw_mr_lookup(d.fw, key, kpd, (1ULL << 40) - 1, 2, 0, &mr),
		 FW_MR_ERR_BOUNDS);
	CHECK_EQ(fw_mr_lookup(d.fw, key, kpd, 0, 1, ORDMA_ACCESS_REMOTE_WRITE,
			      &mr), FW_MR_ERR_ACCESS);
	/* not a fast-reg MR */
	CHECK_EQ(fw_mr_invalidate(d.fw, key, kpd), FW_MR_ERR_TYPE);
	drv_close(&d);
}

TEST(test_pd_refcounts)
{
	struct ordma_aq_cmd cmd;
	uint32_t uctx, kpd, upd, k1, k2;
	struct drv d;

	REQUIRE(open_with_pd(&d, &uctx, &kpd, &upd));
	REQUIRE_EQ(drv_reg_mr_contig(&d, upd, uctx, 0, DATA(0), 4096, 0, 1,
				     &k1), ORDMA_CMD_STATUS_OK);
	fast_reg_init(&cmd, upd, uctx, 2);
	REQUIRE_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_OK);
	k2 = le32_to_cpu(d.last_comp.handle.handle);
	/* the owner check comes before the reference check */
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEALLOC_PD, upd, 0),
		 ORDMA_CMD_STATUS_PERM);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEALLOC_PD, upd, uctx),
		 ORDMA_CMD_STATUS_BUSY);
	/* and a context with a busy PD stays too */
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEALLOC_UCTX, uctx, 0),
		 ORDMA_CMD_STATUS_BUSY);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEREG_MR, k1, uctx),
		 ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEALLOC_PD, upd, uctx),
		 ORDMA_CMD_STATUS_BUSY);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEREG_MR, k2, uctx),
		 ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEALLOC_PD, upd, uctx),
		 ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEALLOC_UCTX, uctx, 0),
		 ORDMA_CMD_STATUS_OK);

	/* the internal API the QP engine uses */
	CHECK_EQ(fw_pd_get(d.fw, kpd, 0), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(fw_pd_get(d.fw, kpd, 1), ORDMA_CMD_STATUS_PERM);
	CHECK_EQ(fw_pd_get(d.fw, 0, 0), ORDMA_CMD_STATUS_BAD_HANDLE);
	CHECK_EQ(fw_pd_get(d.fw, FW_MAX_PD + 1, 0), ORDMA_CMD_STATUS_BAD_HANDLE);
	CHECK_EQ(fw_pd_get(d.fw, upd, uctx), ORDMA_CMD_STATUS_BAD_HANDLE);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEALLOC_PD, kpd, 0),
		 ORDMA_CMD_STATUS_BUSY);
	fw_pd_put(d.fw, kpd);
	fw_pd_put(d.fw, kpd);	/* an extra put does not underflow */
	fw_pd_put(d.fw, 0);
	fw_pd_put(d.fw, 5000);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEALLOC_PD, kpd, 0),
		 ORDMA_CMD_STATUS_OK);
	drv_close(&d);
}

/* REREG: in place, the key kept, all or nothing */
TEST(test_mr_rereg)
{
	uint32_t uctx, kpd, upd, upd2, k, kfr, kk;
	struct ordma_aq_cmd cmd, good;
	struct fw_mr *mr = NULL;
	uint8_t buf[16];
	struct drv d;

	REQUIRE(open_with_pd(&d, &uctx, &kpd, &upd));
	REQUIRE_EQ(drv_alloc_pd(&d, uctx, &upd2), ORDMA_CMD_STATUS_OK);
	reg_mr_init(&cmd, upd, uctx, 0x7000, 4 * 4096,
		    ORDMA_ACCESS_LOCAL_WRITE | ORDMA_ACCESS_REMOTE_READ);
	REQUIRE_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_OK);
	k = le32_to_cpu(d.last_comp.handle.handle);

	/* access: REMOTE_READ becomes REMOTE_WRITE */
	reg_mr_init(&good, upd, uctx, 0x7000, 4 * 4096,
		    ORDMA_ACCESS_LOCAL_WRITE | ORDMA_ACCESS_REMOTE_WRITE);
	good.reg_mr.flags = ORDMA_MR_REREG;
	good.reg_mr.key = 0;
	good.reg_mr.rereg_key = cpu_to_le32(k);
	CHECK_EQ(drv_exec(&d, &good), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(le32_to_cpu(d.last_comp.handle.handle), k);
	CHECK_EQ(fw_mr_lookup(d.fw, k, upd, 0x7000, 1, ORDMA_ACCESS_REMOTE_WRITE,
			      &mr), FW_MR_OK);
	CHECK_EQ(fw_mr_lookup(d.fw, k, upd, 0x7000, 1, ORDMA_ACCESS_REMOTE_READ,
			      &mr), FW_MR_ERR_ACCESS);

	/* PD: the reference moves with it */
	good.reg_mr.pdn = cpu_to_le32(upd2);
	CHECK_EQ(drv_exec(&d, &good), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(fw_mr_lookup(d.fw, k, upd, 0x7000, 1, 0, &mr), FW_MR_ERR_PD);
	CHECK_EQ(fw_mr_lookup(d.fw, k, upd2, 0x7000, 1, 0, &mr), FW_MR_OK);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEALLOC_PD, upd2, uctx),
		 ORDMA_CMD_STATUS_BUSY);

	/* translation: new iova, length and pages */
	good.reg_mr.iova = cpu_to_le64(0x20000);
	good.reg_mr.length = cpu_to_le64(2 * 4096);
	good.reg_mr.pages = make_pl(DATA(4), 2, 12, 0);
	CHECK_EQ(drv_exec(&d, &good), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(fw_mr_lookup(d.fw, k, upd2, 0x7000, 1, 0, &mr),
		 FW_MR_ERR_BOUNDS);
	REQUIRE_EQ(fw_mr_lookup(d.fw, k, upd2, 0x21000, 16, 0, &mr), FW_MR_OK);
	memset(buf, 0x3c, sizeof(buf));
	CHECK_EQ(fw_mr_copy_to(d.fw, mr, 0x21000, buf, sizeof(buf)), 0);
	CHECK(!memcmp(drv_mem(&d, DATA(5), sizeof(buf)), buf, sizeof(buf)));
	CHECK_EQ(fw_mr_lookup(d.fw, k, upd2, 0x21fff, 2, 0, &mr),
		 FW_MR_ERR_BOUNDS);

	/* failures leave the MR as it was */
	cmd = good;
	cmd.reg_mr.rereg_key = cpu_to_le32(k + 0x100);
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_BAD_HANDLE);
	cmd.reg_mr.rereg_key = cpu_to_le32(k ^ 1);
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_BAD_HANDLE);
	cmd = good;
	cmd.reg_mr.uctx = 0;
	cmd.reg_mr.pdn = cpu_to_le32(kpd);
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_PERM);
	cmd = good;
	cmd.reg_mr.key = 0x5a;
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), OFF_KEY);
	cmd = good;
	cmd.reg_mr.pdn = cpu_to_le32(kpd);	/* another context's PD */
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_PERM);
	cmd.reg_mr.pdn = cpu_to_le32(FW_MAX_PD);
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_BAD_HANDLE);
	cmd = good;
	cmd.reg_mr.pages = make_pl(DATA(4), 1, 12, 0);	/* too short */
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_BAD_PARAM);
	cmd = good;
	cmd.reg_mr.access = cpu_to_le32(ORDMA_ACCESS_REMOTE_WRITE);
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), OFF_ACCESS);
	CHECK_EQ(fw_mr_lookup(d.fw, k, upd2, 0x20000, 2 * 4096,
			      ORDMA_ACCESS_LOCAL_WRITE |
			      ORDMA_ACCESS_REMOTE_WRITE, &mr), FW_MR_OK);

	/* fast-register and DMA MRs are not re-registered */
	fast_reg_init(&cmd, upd2, uctx, 4);
	REQUIRE_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_OK);
	kfr = le32_to_cpu(d.last_comp.handle.handle);
	cmd = good;
	cmd.reg_mr.rereg_key = cpu_to_le32(kfr);
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), OFF_REREG_KEY);
	dma_mr_init(&cmd, kpd, 0, 4096);
	REQUIRE_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_OK);
	kk = le32_to_cpu(d.last_comp.handle.handle);
	cmd = good;
	cmd.reg_mr.uctx = 0;
	cmd.reg_mr.pdn = cpu_to_le32(kpd);
	cmd.reg_mr.rereg_key = cpu_to_le32(kk);
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), OFF_REREG_KEY);

	/* the old PD is free, the new one is released by DEREG */
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEALLOC_PD, upd, uctx),
		 ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEREG_MR, k, uctx),
		 ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEREG_MR, kfr, uctx),
		 ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEALLOC_PD, upd2, uctx),
		 ORDMA_CMD_STATUS_OK);
	drv_close(&d);
}

/* Random page lists, tables and WQEs: defined results, no crash. */
TEST(test_mr_random_walks)
{
	uint64_t state = 0x6d725f72616e64ULL;
	uint32_t uctx, kpd, upd;
	struct ordma_aq_cmd cmd;
	struct fw_page_list pl;
	struct drv d;
	unsigned int i;

	REQUIRE(open_with_pd(&d, &uctx, &kpd, &upd));
	/* MR 1, 2: fast-reg; MR 3: 16 pages through table 0 */
	fast_reg_init(&cmd, kpd, 0, 512);
	cmd.reg_mr.key = 0;
	REQUIRE_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_OK);
	cmd.reg_mr.max_pages = cpu_to_le16(3);
	REQUIRE_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_OK);
	reg_mr_init(&cmd, kpd, 0, 0x3000, 16 * 4096, ORDMA_ACCESS_LOCAL_WRITE);
	cmd.reg_mr.pages = make_pl(TABLE(0), 16, 12, 1);
	cmd.reg_mr.key = 0;
	REQUIRE_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_OK);

	for (i = 0; i < 4000; i++) {
		struct ordma_page_list in;
		struct ordma_wqe_reg_mr w;
		uint64_t r[6], dma = 0, contig = 0;
		uint32_t key;
		uint8_t buf[300];
		struct fw_mr *mr;
		unsigned int j;
		int rc;

		for (j = 0; j < 6; j++) {
			state ^= state >> 12;
			state ^= state << 25;
			state ^= state >> 27;
			r[j] = state * 0x2545f4914f6cdd1dULL;
		}
		/* garbage or a valid page in the table area */
		if (r[3] & 4)
			memcpy(drv_mem(&d, TABLE(r[0] % 16) +
				       (r[1] % 4096 & ~7ULL), 8), &r[2], 8);
		else
			put_entry(&d, TABLE(r[0] % 16), (unsigned int)(r[4] % 512),
				  DATA(r[5] % DATA_PAGES));

		in = make_pl(r[3] & 2 ? TABLE(r[1] % 16) : r[2] & ~0xfffULL,
			     (uint32_t)(r[4] % 2000), (uint8_t)(12 + r[5] % 20),
			     (uint8_t)(r[0] % 4));
		if (fw_page_list_parse(d.fw, &in, r[1] % 100000, &pl) ==
		    ORDMA_CMD_STATUS_OK) {
			rc = fw_page_list_dma(d.fw, &pl,
					      r[5] % (pl.total_bytes + 10),
					      &dma, &contig);
			CHECK(rc == -1 || (contig >= 1 && contig <= pl.total_bytes));
			(void)fw_page_list_read(d.fw, &pl, r[2] % 20000, buf,
						(size_t)(r[3] % sizeof(buf)));
		}

		key = (uint32_t)(1 + r[0] % 4) << 8;	/* MR 4 does not exist */
		w = make_frwr(key, r[1] % 0x100000, r[2] % 70000,
			      r[3] & 1 ? TABLE(r[4] % 16) : r[4],
			      (uint16_t)(r[5] % 8), (uint8_t)(11 + (r[5] >> 20) % 22),
			      (uint8_t)(r[3] >> 8) & 0x1f);
		(void)fw_mr_fast_register(d.fw, kpd + (r[2] & 8 ? 1 : 0), &w);
		if (r[4] & 16)
			(void)fw_mr_invalidate(d.fw, key, kpd);
		if (fw_mr_lookup(d.fw, key, kpd, r[1] % 0x100000, r[5] % 5000, 0,
				 &mr) == FW_MR_OK) {
			size_t len = (size_t)(r[5] % 5000);
			size_t chunk = len < sizeof(buf) ? len : sizeof(buf);

			(void)fw_mr_copy_from(d.fw, mr, r[1] % 0x100000, buf, chunk);
			(void)fw_mr_copy_to(d.fw, mr, r[1] % 0x100000, buf, chunk);
			(void)fw_mr_dma(d.fw, mr, r[1] % 0x100000, &dma, &contig);
		}
	}
	CHECK_EQ(drv_simple(&d, ORDMA_CMD_QUERY_FW), ORDMA_CMD_STATUS_OK);
	drv_close(&d);
}

/*
 * An iWARP port: REG_MR (and REREG) granting atomics or FLUSH is not
 * supported, a REG_MR WQE granting them fails as a bad WQE; the same
 * access on a RoCE port is taken.
 */
TEST(test_mr_iwarp_access)
{
	const uint32_t rw = ORDMA_ACCESS_LOCAL_WRITE |
			    ORDMA_ACCESS_REMOTE_WRITE |
			    ORDMA_ACCESS_REMOTE_READ;
	static const uint32_t refused[] = {
		ORDMA_ACCESS_REMOTE_ATOMIC, ORDMA_ACCESS_FLUSH_GLOBAL,
		ORDMA_ACCESS_FLUSH_PERSISTENT,
	};
	uint32_t uctx, kpd, upd, k, frkey;
	struct ordma_aq_cmd cmd, rereg;
	struct ordma_wqe_reg_mr w;
	struct fw_mr *mr = NULL;
	unsigned int i, proto;
	struct drv d;

	for (proto = ORDMA_PORT_PROTO_ROCE; proto <= ORDMA_PORT_PROTO_IWARP;
	     proto++) {
		bool iwarp = proto == ORDMA_PORT_PROTO_IWARP;
		uint8_t want = iwarp ? ORDMA_CMD_STATUS_NOT_SUPPORTED :
				       ORDMA_CMD_STATUS_OK;

		REQUIRE(drv_open(&d, 5));
		REQUIRE_EQ(drv_set_rdma_protocol(&d, (uint8_t)proto),
			   ORDMA_CMD_STATUS_OK);
		memset(drv_mem(&d, DRV_MR_ADDR, DRV_MR_SIZE), 0, DRV_MR_SIZE);
		REQUIRE_EQ(drv_alloc_uctx(&d, &uctx), ORDMA_CMD_STATUS_OK);
		REQUIRE_EQ(drv_alloc_pd(&d, 0, &kpd), ORDMA_CMD_STATUS_OK);
		REQUIRE_EQ(drv_alloc_pd(&d, uctx, &upd), ORDMA_CMD_STATUS_OK);

		/* REG_MR */
		for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
			reg_mr_init(&cmd, upd, uctx, 0x7000, 4096,
				    rw | refused[i]);
			CHECK_EQ(drv_exec(&d, &cmd), want);
		}
		reg_mr_init(&cmd, upd, uctx, 0x7000, 4096, rw);
		REQUIRE_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_OK);
		k = le32_to_cpu(d.last_comp.handle.handle);

		/* REREG to atomics; refused, the MR keeps its access */
		reg_mr_init(&rereg, upd, uctx, 0x7000, 4096,
			    rw | ORDMA_ACCESS_REMOTE_ATOMIC);
		rereg.reg_mr.flags = ORDMA_MR_REREG;
		rereg.reg_mr.key = 0;
		rereg.reg_mr.rereg_key = cpu_to_le32(k);
		CHECK_EQ(drv_exec(&d, &rereg), want);
		CHECK_EQ(fw_mr_lookup(d.fw, k, upd, 0x7000, 8,
				      ORDMA_ACCESS_REMOTE_ATOMIC, &mr),
			 iwarp ? FW_MR_ERR_ACCESS : FW_MR_OK);
		CHECK_EQ(fw_mr_lookup(d.fw, k, upd, 0x7000, 8,
				      ORDMA_ACCESS_REMOTE_WRITE, &mr),
			 FW_MR_OK);

		/* the REG_MR WQE of a fast-reg MR */
		fast_reg_init(&cmd, kpd, 0, 4);
		REQUIRE_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_OK);
		frkey = le32_to_cpu(d.last_comp.handle.handle);
		put_entry(&d, TABLE(0), 0, DATA(4));
		for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
			w = make_frwr(frkey, 0x9000000, 4096, TABLE(0), 1, 12,
				      (uint8_t)(rw | refused[i]));
			CHECK_EQ(fw_mr_fast_register(d.fw, kpd, &w),
				 iwarp ? FW_MR_ERR_PARAM : FW_MR_OK);
			/* RoCE: invalidate for the next round */
			if (!iwarp)
				CHECK_EQ(fw_mr_invalidate(d.fw, frkey, kpd),
					 FW_MR_OK);
		}
		w = make_frwr(frkey, 0x9000000, 4096, TABLE(0), 1, 12,
			      (uint8_t)rw);
		CHECK_EQ(fw_mr_fast_register(d.fw, kpd, &w), FW_MR_OK);
		CHECK_EQ(fw_mr_lookup(d.fw, frkey, kpd, 0x9000000, 8,
				      ORDMA_ACCESS_REMOTE_WRITE, &mr),
			 FW_MR_OK);
		drv_close(&d);
	}
}
