// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA firmware memory regions: REG_MR/DEREG_MR, the key/PD/bounds/access
 * check every data access makes, address translation and copies through
 * an MR, and the fast-register / local-invalidate operations of the WQE
 * engine.
 *
 * Three kinds of MR exist.  A normal MR translates through the page list
 * given at registration.  A fast-register MR owns a page array of
 * max_pages entries that a REG_MR WQE fills (copied in, so the host may
 * reuse its list once the WQE completed); it is invalid until then and
 * again after an invalidation.  A DMA MR (kernel only) maps iova 1:1 to
 * bus addresses.
 *
 * Memory windows live in the same table, so MR and window keys share one
 * key space (index << 8 | variant).  A window entry has mw_type set; it is
 * valid from ALLOC_MW to DEALLOC_MW and live while bound.  A bound window
 * covers [iova, iova + length) in its own address space (iova is 0 for a
 * zero-based window) and maps it onto its MR from mr_addr on; only remote
 * accesses (fw_mr_lookup_remote) may name a window.
 */
#include <stdlib.h>
#include <string.h>

#include "objects/fw_verbs.h"
#include "platform/fw_platform.h"

#define FW_MR_KNOWN_FLAGS	(ORDMA_MR_FAST_REG | ORDMA_MR_DMA)
/* MR access bits this firmware grants (REG_MR, REG_MR WQE) */
#define FW_MR_ACCESS_SUPPORTED	(ORDMA_ACCESS_LOCAL_WRITE | \
				 ORDMA_ACCESS_REMOTE_WRITE | \
				 ORDMA_ACCESS_REMOTE_READ | \
				 ORDMA_ACCESS_REMOTE_ATOMIC | \
				 ORDMA_ACCESS_FLUSH_GLOBAL | \
				 ORDMA_ACCESS_FLUSH_PERSISTENT | \
				 ORDMA_ACCESS_MW_BIND)
#define FW_MW_ACCESS_FLUSH	(ORDMA_ACCESS_FLUSH_GLOBAL | \
				 ORDMA_ACCESS_FLUSH_PERSISTENT)
/* the rights a window may grant */
#define FW_MW_ACCESS_REMOTE	(ORDMA_ACCESS_REMOTE_WRITE | \
				 ORDMA_ACCESS_REMOTE_READ | \
				 ORDMA_ACCESS_REMOTE_ATOMIC | \
				 FW_MW_ACCESS_FLUSH)
#define FW_MR_NEEDS_LOCAL_WRITE	(ORDMA_ACCESS_REMOTE_WRITE | \
				 ORDMA_ACCESS_REMOTE_ATOMIC)

struct fw_mr {
	bool valid;		/* registered by REG_MR */
	bool live;		/* accesses allowed (fast-reg: registered) */
	uint8_t flags;		/* ORDMA_MR_* */
	uint8_t variant;	/* ORDMA_KEY_VARIANT of the current key */
	uint32_t access;	/* ORDMA_ACCESS_* */
	uint32_t pdn;
	uint32_t uctx;
	uint64_t iova;
	uint64_t length;
	/* byte of the page list where iova lies: iova mod page size */
	uint64_t page_offset;
	struct fw_page_list pages;	/* normal MR */
	/* fast-register MR: page addresses installed by the last REG_MR WQE */
	uint64_t *fr_pages;
	uint16_t max_pages;
	uint16_t fr_num_pages;
	uint8_t fr_page_shift;
	uint32_t bound_mws;	/* MR: windows bound to it */
	/* window: enum ordma_mw_type (0 for an MR), and while bound the MR
	 * index, the MR address iova maps to and (type 2) the QP
	 */
	uint8_t mw_type;
	uint32_t mw_mr;
	uint64_t mw_mr_addr;
	uint32_t mw_qpn;
};

static uint32_t fw_mr_key(uint32_t index, uint8_t variant)
{
	return FIELD_PREP(ORDMA_KEY_INDEX, index) |
	       FIELD_PREP(ORDMA_KEY_VARIANT, variant);
}

/* MR by the index part of a key; index 0 is never used. */
static struct fw_mr *fw_mr_by_index(struct ordma_fw *fw, uint32_t key)
{
	uint32_t index = FIELD_GET(ORDMA_KEY_INDEX, key);

	if (!fw->mrs || index == 0 || index > FW_MAX_MR ||
	    !fw->mrs[index].valid)
		return NULL;
	return &fw->mrs[index];
}

static bool fw_access_valid(uint32_t access)
{
	if (access & ~(uint32_t)FW_MR_ACCESS_SUPPORTED)
		return false;
	/* IBTA: remote write and atomic need local write */
	return !(access & FW_MR_NEEDS_LOCAL_WRITE) ||
	       (access & ORDMA_ACCESS_LOCAL_WRITE);
}

/* ------------------------------------------------------------------ */
/* Data path helpers                                                   */
/* ------------------------------------------------------------------ */

static bool fw_mr_covers(const struct fw_mr *mr, uint64_t iova, uint64_t len)
{
	uint64_t off;

	/* Work with offsets: iova + length may be exactly 2^64. */
	if (iova < mr->iova)
		return false;
	off = iova - mr->iova;
	return off <= mr->length && len <= mr->length - off;
}

int fw_mr_lookup(struct ordma_fw *fw, uint32_t key, uint32_t pdn,
		 uint64_t iova, uint64_t len, uint32_t need_access,
		 struct fw_mr **mrp)
{
	struct fw_mr *mr = fw_mr_by_index(fw, key);

	if (!mr || mr->mw_type || !mr->live ||
	    mr->variant != FIELD_GET(ORDMA_KEY_VARIANT, key))
		return FW_MR_ERR_KEY;
	if (mr->pdn != pdn)
		return FW_MR_ERR_PD;
	if (!fw_mr_covers(mr, iova, len))
		return FW_MR_ERR_BOUNDS;
	if (need_access & ~mr->access)
		return FW_MR_ERR_ACCESS;
	*mrp = mr;
	return FW_MR_OK;
}

int fw_mr_dma(struct ordma_fw *fw, const struct fw_mr *mr, uint64_t iova,
	      uint64_t *dma, uint64_t *contig)
{
	uint64_t left, off, page_size, in_page, index, page, run;

	if (!mr->valid || !mr->live || iova < mr->iova ||
	    iova - mr->iova >= mr->length)
		return -1;
	left = mr->length - (iova - mr->iova);
	off = mr->page_offset + (iova - mr->iova);

	if (mr->mw_type) {
		const struct fw_mr *base = &fw->mrs[mr->mw_mr];

		/* binding checked the window lies inside its MR */
		if (base->mw_type ||
		    fw_mr_dma(fw, base, mr->mw_mr_addr + (iova - mr->iova),
			      dma, contig))
			return -1;
		if (*contig > left)
			*contig = left;
		return 0;
	}
	if (mr->flags & ORDMA_MR_DMA) {
		*dma = iova;
		*contig = left;
		return 0;
	}
	if (mr->flags & ORDMA_MR_FAST_REG) {
		page_size = 1ULL << mr->fr_page_shift;
		index = off >> mr->fr_page_shift;
		in_page = off & (page_size - 1);
		if (index >= mr->fr_num_pages)
			return -1;
		page = mr->fr_pages[index];
		*dma = page + in_page;
		run = page_size - in_page;
	} else {
		if (fw_page_list_dma(fw, &mr->pages, off, dma, &run))
			return -1;
	}
	*contig = run < left ? run : left;
	return 0;
}

static int fw_mr_xlate(struct ordma_fw *fw, const void *mr, uint64_t iova,
		       uint64_t *dma, uint64_t *contig)
{
	return fw_mr_dma(fw, mr, iova, dma, contig);
}

int fw_mr_copy_to(struct ordma_fw *fw, struct fw_mr *mr, uint64_t iova,
		  const void *buf, size_t len)
{
	if (!fw_mr_covers(mr, iova, len))
		return -1;
	return fw_dma_write_through(fw, fw_mr_xlate, mr, iova, buf, len);
}

int fw_mr_copy_from(struct ordma_fw *fw, struct fw_mr *mr, uint64_t iova,
		    void *buf, size_t len)
{
	if (!fw_mr_covers(mr, iova, len))
		return -1;
	return fw_dma_read_through(fw, fw_mr_xlate, mr, iova, buf, len);
}

int fw_mr_invalidate(struct ordma_fw *fw, uint32_t key, uint32_t pdn)
{
	struct fw_mr *mr = fw_mr_by_index(fw, key);

	if (!mr || mr->variant != FIELD_GET(ORDMA_KEY_VARIANT, key))
		return FW_MR_ERR_KEY;
	if (mr->pdn != pdn)
		return FW_MR_ERR_PD;
	if (!(mr->flags & ORDMA_MR_FAST_REG) || mr->mw_type)
		return FW_MR_ERR_TYPE;
	if (mr->bound_mws)
		return FW_MR_ERR_BUSY;
	mr->live = false;
	return FW_MR_OK;
}

int fw_mr_fast_register(struct ordma_fw *fw, uint32_t pdn,
			const struct ordma_wqe_reg_mr *wqe)
{
	uint32_t key = le32_to_cpu(wqe->key);
	uint64_t iova = le64_to_cpu(wqe->iova);
	uint64_t length = le64_to_cpu(wqe->length);
	uint64_t list = le64_to_cpu(wqe->page_list);
	uint16_t num_pages = le16_to_cpu(wqe->num_pages);
	struct fw_mr *mr = fw_mr_by_index(fw, key);
	uint64_t page_size, page_offset, i;
	uint64_t pages[FW_MR_MAX_FAST_REG_PAGES];

	if (!mr || mr->mw_type)
		return FW_MR_ERR_KEY;
	if (mr->pdn != pdn)
		return FW_MR_ERR_PD;
	/* only a fast-reg MR in the invalid state takes new pages */
	if (!(mr->flags & ORDMA_MR_FAST_REG) || mr->live)
		return FW_MR_ERR_TYPE;
	if (!num_pages || num_pages > mr->max_pages ||
	    wqe->page_shift < ORDMA_MIN_PAGE_SHIFT ||
	    wqe->page_shift > ORDMA_MAX_PAGE_SHIFT ||
	    !fw_access_valid(wqe->access) || !list || list % 8 ||
	    (fw_port_is_iwarp(fw) && (wqe->access & FW_ACCESS_NOT_IWARP)))
		return FW_MR_ERR_PARAM;
	page_size = 1ULL << wqe->page_shift;
	page_offset = iova & (page_size - 1);
	if (!length || length > FW_MAX_MR_SIZE ||
	    fw_range_wraps(iova, length) ||
	    page_offset + length > (uint64_t)num_pages << wqe->page_shift)
		return FW_MR_ERR_PARAM;

	if (fw_dma_read(fw, list, pages, (size_t)num_pages * sizeof(pages[0])))
		return FW_MR_ERR_DMA;
	for (i = 0; i < num_pages; i++) {
		pages[i] = le64_to_cpu(pages[i]);
		if (!pages[i] || pages[i] % page_size ||
		    fw_range_wraps(pages[i], page_size))
			return FW_MR_ERR_PARAM;
	}

	memcpy(mr->fr_pages, pages, (size_t)num_pages * sizeof(pages[0]));
	mr->fr_num_pages = num_pages;
	mr->fr_page_shift = wqe->page_shift;
	mr->iova = iova;
	mr->length = length;
	mr->page_offset = page_offset;
	mr->access = wqe->access;
	mr->variant = FIELD_GET(ORDMA_KEY_VARIANT, key);
	mr->live = true;
	return FW_MR_OK;
}

/* ------------------------------------------------------------------ */
/* Commands                                                            */
/* ------------------------------------------------------------------ */

/* FAST_REG and DMA MRs carry no page list: every field of it is zero. */
static uint8_t fw_mr_check_no_pages(struct fw_cmd *c)
{
	const struct ordma_page_list *pl = &c->in->reg_mr.pages;

	if (pl->addr)
		return fw_cmd_bad_param(c, FW_CMD_OFF(reg_mr.pages.addr),
					"page list given for an MR without pages");
	if (pl->num_pages)
		return fw_cmd_bad_param(c, FW_CMD_OFF(reg_mr.pages.num_pages),
					"page list given for an MR without pages");
	if (pl->page_shift)
		return fw_cmd_bad_param(c, FW_CMD_OFF(reg_mr.pages.page_shift),
					"page list given for an MR without pages");
	if (pl->levels)
		return fw_cmd_bad_param(c, FW_CMD_OFF(reg_mr.pages.levels),
					"page list given for an MR without pages");
	return ORDMA_CMD_STATUS_OK;
}

/* iova/length of a normal or DMA MR */
static uint8_t fw_mr_check_range(struct fw_cmd *c, uint64_t iova,
				 uint64_t length)
{
	if (!length || length > FW_MAX_MR_SIZE)
		return fw_cmd_bad_param(c, FW_CMD_OFF(reg_mr.length),
					"length not in 1..max_mr_size");
	if (fw_range_wraps(iova, length))
		return fw_cmd_bad_param(c, FW_CMD_OFF(reg_mr.length),
					"iova + length wraps");
	return ORDMA_CMD_STATUS_OK;
}

/* Field checks of REG_MR; on success *pages holds a normal MR's list. */
static uint8_t fw_mr_check_params(struct ordma_fw *fw, struct fw_cmd *c,
				  struct fw_page_list *pages)
{
	const struct ordma_cmd_reg_mr *p = &c->in->reg_mr;
	uint32_t access = le32_to_cpu(p->access);
	uint16_t max_pages = le16_to_cpu(p->max_pages);
	uint64_t iova = le64_to_cpu(p->iova);
	uint64_t length = le64_to_cpu(p->length);
	uint64_t page_offset;
	uint8_t status;

	if (p->flags & ~(FW_MR_KNOWN_FLAGS | ORDMA_MR_REREG) ||
	    (p->flags & FW_MR_KNOWN_FLAGS) == FW_MR_KNOWN_FLAGS ||
	    ((p->flags & ORDMA_MR_REREG) && (p->flags & FW_MR_KNOWN_FLAGS)))
		return fw_cmd_bad_param(c, FW_CMD_OFF(reg_mr.flags),
					"unknown flags, FAST_REG with DMA, or REREG with either");
	if (!(p->flags & ORDMA_MR_REREG) && p->rereg_key)
		return fw_cmd_bad_param(c, FW_CMD_OFF(reg_mr.rereg_key),
					"rereg_key without REREG");
	if (!fw_access_valid(access))
		return fw_cmd_bad_param(c, FW_CMD_OFF(reg_mr.access),
					"unknown access bits, or remote access without local write");
	if (fw_port_is_iwarp(fw) && (access & FW_ACCESS_NOT_IWARP))
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_NOT_SUPPORTED,
				   "iWARP has no atomics or FLUSH");

	if (p->flags & ORDMA_MR_FAST_REG) {
		/* iova, length and access arrive with the REG_MR WQE */
		if (iova)
			return fw_cmd_bad_param(c, FW_CMD_OFF(reg_mr.iova),
						"fast-reg MR: iova must be 0");
		if (length)
			return fw_cmd_bad_param(c, FW_CMD_OFF(reg_mr.length),
						"fast-reg MR: length must be 0");
		if (access)
			return fw_cmd_bad_param(c, FW_CMD_OFF(reg_mr.access),
						"fast-reg MR: access must be 0");
		status = fw_mr_check_no_pages(c);
		if (status != ORDMA_CMD_STATUS_OK)
			return status;
		if (!max_pages || max_pages > FW_MR_MAX_FAST_REG_PAGES)
			return fw_cmd_bad_param(c, FW_CMD_OFF(reg_mr.max_pages),
						"max_pages not in 1..512");
		return ORDMA_CMD_STATUS_OK;
	}

	if (max_pages)
		return fw_cmd_bad_param(c, FW_CMD_OFF(reg_mr.max_pages),
					"max_pages is for fast-reg MRs only");
	status = fw_mr_check_range(c, iova, length);
	if (status != ORDMA_CMD_STATUS_OK)
		return status;
	if (p->flags & ORDMA_MR_DMA)
		return fw_mr_check_no_pages(c);

	/* iova may start anywhere in the first page */
	if (p->pages.page_shift >= ORDMA_MIN_PAGE_SHIFT &&
	    p->pages.page_shift <= ORDMA_MAX_PAGE_SHIFT)
		page_offset = iova & ((1ULL << p->pages.page_shift) - 1);
	else
		page_offset = 0;	/* the parse rejects the shift */
	if (fw_page_list_parse(fw, &p->pages, page_offset + length, pages) !=
	    ORDMA_CMD_STATUS_OK)
		return fw_cmd_bad_param(c, FW_CMD_OFF(reg_mr.pages) +
					pages->bad_offset, pages->error);
	return ORDMA_CMD_STATUS_OK;
}

/*
 * REREG: the plain MR rereg_key names takes the PD, translation and
 * access of the command and keeps its key.  It happens in one step under
 * the device lock: the data path sees the old MR or the new one, never a
 * mix.  On any failure the MR is unchanged.
 */
static uint8_t fw_mr_rereg(struct ordma_fw *fw, struct fw_cmd *c,
			   const struct fw_page_list *pages)
{
	const struct ordma_cmd_reg_mr *p = &c->in->reg_mr;
	uint32_t key = le32_to_cpu(p->rereg_key);
	uint32_t pdn = le32_to_cpu(p->pdn);
	uint32_t uctx = le32_to_cpu(p->uctx);
	struct fw_mr *mr = fw_mr_by_index(fw, key);
	uint8_t status;

	if (p->key)
		return fw_cmd_bad_param(c, FW_CMD_OFF(reg_mr.key),
					"REREG keeps the key: key must be 0");
	/* a window's key names no MR, as for DEREG_MR */
	if (!mr || mr->mw_type ||
	    mr->variant != FIELD_GET(ORDMA_KEY_VARIANT, key))
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BAD_HANDLE, "no such MR");
	if (mr->uctx != uctx)
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_PERM,
				   "MR owned by another context");
	if (mr->flags)
		return fw_cmd_bad_param(c, FW_CMD_OFF(reg_mr.rereg_key),
					"fast-reg and DMA MRs cannot be re-registered");
	/* A bound window keeps its rights over whatever the MR maps: new
	 * pages (perhaps pinned read-only) must not inherit them.  As for
	 * DEREG_MR, the windows go first.
	 */
	if (mr->bound_mws)
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BUSY,
				   "memory windows are bound to the MR");
	if (pdn != mr->pdn) {
		status = (uint8_t)fw_pd_get(fw, pdn, uctx);
		if (status != ORDMA_CMD_STATUS_OK)
			return fw_cmd_fail(c, status,
					   status == ORDMA_CMD_STATUS_PERM ?
					   "PD owned by another context" :
					   "no such PD");
		fw_pd_put(fw, mr->pdn);
		mr->pdn = pdn;
	}
	mr->access = le32_to_cpu(p->access);
	mr->iova = le64_to_cpu(p->iova);
	mr->length = le64_to_cpu(p->length);
	mr->pages = *pages;
	mr->page_offset = mr->iova & ((1ULL << pages->page_shift) - 1);
	c->out->handle.handle = cpu_to_le32(key);
	return ORDMA_CMD_STATUS_OK;
}

uint8_t fw_cmd_reg_mr(struct ordma_fw *fw, struct fw_cmd *c)
{
	const struct ordma_cmd_reg_mr *p = &c->in->reg_mr;
	uint32_t pdn = le32_to_cpu(p->pdn);
	uint32_t uctx = le32_to_cpu(p->uctx);
	uint16_t max_pages = le16_to_cpu(p->max_pages);
	struct fw_page_list pages;
	uint64_t *fr_pages = NULL;
	struct fw_mr *mr;
	uint32_t index;
	uint8_t status;

	memset(&pages, 0, sizeof(pages));
	status = fw_mr_check_params(fw, c, &pages);
	if (status != ORDMA_CMD_STATUS_OK)
		return status;
	if (p->flags & ORDMA_MR_REREG)
		return fw_mr_rereg(fw, c, &pages);
	if (p->flags & ORDMA_MR_DMA && uctx != ORDMA_KERNEL_UCTX)
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_PERM,
				   "DMA MRs are for the kernel only");
	status = (uint8_t)fw_pd_get(fw, pdn, uctx);
	if (status != ORDMA_CMD_STATUS_OK)
		return fw_cmd_fail(c, status, status == ORDMA_CMD_STATUS_PERM ?
				   "PD owned by another context" : "no such PD");
	for (index = 1; index <= FW_MAX_MR && fw->mrs[index].valid; index++)
		;
	if (index <= FW_MAX_MR && p->flags & ORDMA_MR_FAST_REG)
		fr_pages = calloc(max_pages, sizeof(*fr_pages));
	if (index > FW_MAX_MR || (p->flags & ORDMA_MR_FAST_REG && !fr_pages)) {
		fw_pd_put(fw, pdn);
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_NO_RESOURCES,
				   "all MRs in use");
	}

	mr = &fw->mrs[index];
	memset(mr, 0, sizeof(*mr));
	mr->valid = true;
	mr->flags = p->flags;
	mr->variant = p->key;
	mr->pdn = pdn;
	mr->uctx = uctx;
	mr->fr_pages = fr_pages;
	mr->max_pages = max_pages;
	if (!(p->flags & ORDMA_MR_FAST_REG)) {
		mr->live = true;
		mr->access = le32_to_cpu(p->access);
		mr->iova = le64_to_cpu(p->iova);
		mr->length = le64_to_cpu(p->length);
		if (!(p->flags & ORDMA_MR_DMA)) {
			mr->pages = pages;
			mr->page_offset = mr->iova &
					  ((1ULL << pages.page_shift) - 1);
		}
	}
	c->out->handle.handle = cpu_to_le32(fw_mr_key(index, p->key));
	return ORDMA_CMD_STATUS_OK;
}

static void fw_mr_free(struct ordma_fw *fw, struct fw_mr *mr)
{
	fw_pd_put(fw, mr->pdn);
	free(mr->fr_pages);
	memset(mr, 0, sizeof(*mr));
}

/* The key's variant is not compared: a fast-register WQE may have
 * changed it without the driver knowing whether the WQE executed.
 */
uint8_t fw_cmd_dereg_mr(struct ordma_fw *fw, struct fw_cmd *c)
{
	uint32_t key = le32_to_cpu(c->in->handle.handle);
	uint32_t uctx = le32_to_cpu(c->in->handle.uctx);
	struct fw_mr *mr = fw_mr_by_index(fw, key);

	if (!mr || mr->mw_type)
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BAD_HANDLE, "no such MR");
	if (mr->uctx != uctx)
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_PERM,
				   "MR owned by another context");
	/* IBTA: an MR with bound windows cannot be deregistered */
	if (mr->bound_mws)
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BUSY,
				   "memory windows are bound to the MR");
	fw_mr_free(fw, mr);
	return ORDMA_CMD_STATUS_OK;
}

/* ------------------------------------------------------------------ */
/* Memory windows                                                      */
/* ------------------------------------------------------------------ */

static struct fw_mr *fw_mw_by_index(struct ordma_fw *fw, uint32_t key)
{
	struct fw_mr *mw = fw_mr_by_index(fw, key);

	return mw && mw->mw_type ? mw : NULL;
}

static void fw_mw_unbind(struct ordma_fw *fw, struct fw_mr *mw)
{
	if (mw->live && fw->mrs[mw->mw_mr].bound_mws)
		fw->mrs[mw->mw_mr].bound_mws--;
	mw->live = false;
	mw->iova = 0;
	mw->length = 0;
	mw->access = 0;
	mw->mw_mr = 0;
	mw->mw_mr_addr = 0;
	mw->mw_qpn = 0;
}

/*
 * The checks of an rkey from the wire that do not depend on the range:
 * the key names a live MR or a bound window (whose MR is live) with that
 * variant, in PD pdn; a type 2 window only through QP qpn.
 */
static int fw_rkey_find(struct ordma_fw *fw, uint32_t key, uint32_t pdn,
			uint32_t qpn, struct fw_mr **mrp)
{
	struct fw_mr *mr = fw_mr_by_index(fw, key);

	if (!mr || !mr->live ||
	    mr->variant != FIELD_GET(ORDMA_KEY_VARIANT, key) ||
	    (mr->mw_type && !fw->mrs[mr->mw_mr].live))
		return FW_MR_ERR_KEY;
	if (mr->pdn != pdn)
		return FW_MR_ERR_PD;
	/* type 2B: usable only through the QP it was bound on */
	if (mr->mw_type == ORDMA_MW_TYPE_2 && mr->mw_qpn != qpn)
		return FW_MR_ERR_QP;
	*mrp = mr;
	return FW_MR_OK;
}

int fw_mr_lookup_remote(struct ordma_fw *fw, uint32_t key, uint32_t pdn,
			uint32_t qpn, uint64_t iova, uint64_t len,
			uint32_t need_access, struct fw_mr **mrp)
{
	struct fw_mr *mr;
	int rc = fw_rkey_find(fw, key, pdn, qpn, &mr);

	if (rc != FW_MR_OK)
		return rc;
	if (!fw_mr_covers(mr, iova, len))
		return FW_MR_ERR_BOUNDS;
	if (need_access & ~mr->access)
		return FW_MR_ERR_ACCESS;
	*mrp = mr;
	return FW_MR_OK;
}

int fw_mr_lookup_remote_whole(struct ordma_fw *fw, uint32_t key,
			      uint32_t pdn, uint32_t qpn,
			      uint32_t need_access, struct fw_mr **mrp,
			      uint64_t *iova, uint64_t *len)
{
	struct fw_mr *mr;
	int rc = fw_rkey_find(fw, key, pdn, qpn, &mr);

	if (rc != FW_MR_OK)
		return rc;
	if (need_access & ~mr->access)
		return FW_MR_ERR_ACCESS;
	*mrp = mr;
	*iova = mr->iova;
	*len = mr->length;
	return FW_MR_OK;
}

int fw_mr_atomic_dma(struct ordma_fw *fw, struct fw_mr *mr, uint64_t iova,
		     uint64_t *dma)
{
	uint64_t contig;

	if (!fw_mr_covers(mr, iova, 8) || fw_mr_dma(fw, mr, iova, dma, &contig))
		return FW_MR_ERR_BOUNDS;
	/*
	 * Aligned where the bytes land, not only in the MR's or window's
	 * address space (a zero-based window may start anywhere in its MR):
	 * an aligned 8-byte word never straddles two pages, so one DMA
	 * access updates it whole.
	 */
	if (*dma % 8 || contig < 8)
		return FW_MR_ERR_ALIGN;
	return FW_MR_OK;
}

int fw_rkey_invalidate(struct ordma_fw *fw, uint32_t key, uint32_t pdn,
		       uint32_t qpn, bool remote)
{
	struct fw_mr *mw = fw_mw_by_index(fw, key);

	if (!mw)
		return fw_mr_invalidate(fw, key, pdn);
	/* a window not bound has no valid rkey to name */
	if (!mw->live || mw->variant != FIELD_GET(ORDMA_KEY_VARIANT, key))
		return FW_MR_ERR_KEY;
	if (mw->pdn != pdn)
		return FW_MR_ERR_PD;
	/* IBTA: type 1 windows are unbound by a zero-length bind only */
	if (mw->mw_type != ORDMA_MW_TYPE_2)
		return FW_MR_ERR_TYPE;
	if (remote && mw->mw_qpn != qpn)
		return FW_MR_ERR_QP;
	fw_mw_unbind(fw, mw);
	return FW_MR_OK;
}

/* Window rights without ZERO_BASED, which is a property of the binding */
static uint32_t fw_mw_rights(uint32_t access)
{
	return access & FW_MW_ACCESS_REMOTE;
}

int fw_mw_bind(struct ordma_fw *fw, uint32_t qp_pdn, uint32_t qpn,
	       const struct ordma_wqe_bind_mw *wqe)
{
	uint32_t mw_key = le32_to_cpu(wqe->mw_rkey);
	uint32_t mr_key = le32_to_cpu(wqe->mr_lkey);
	uint32_t access = le32_to_cpu(wqe->access);
	uint64_t addr = le64_to_cpu(wqe->addr);
	uint64_t length = le64_to_cpu(wqe->length);
	bool zero_based = access & ORDMA_ACCESS_ZERO_BASED;
	struct fw_mr *mw = fw_mw_by_index(fw, mw_key);
	struct fw_mr *mr;
	uint32_t mr_index;

	if (!mw)
		return FW_MR_ERR_KEY;
	if (wqe->reserved_28 ||
	    access & ~(uint32_t)(FW_MW_ACCESS_REMOTE | ORDMA_ACCESS_ZERO_BASED) ||
	    (fw_port_is_iwarp(fw) && (access & FW_ACCESS_NOT_IWARP)))
		return FW_MR_ERR_PARAM;
	if (mw->pdn != qp_pdn)
		return FW_MR_ERR_PD;
	if (mw->mw_type == ORDMA_MW_TYPE_1) {
		/* IBTA o10-36.2.2: type 1 windows are not zero based */
		if (zero_based)
			return FW_MR_ERR_PARAM;
		if (!length) {
			fw_mw_unbind(fw, mw);
			mw->variant = FIELD_GET(ORDMA_KEY_VARIANT, mw_key);
			return FW_MR_OK;
		}
	} else {
		/* type 2: bound only from the free state, never empty */
		if (mw->live)
			return FW_MR_ERR_TYPE;
		if (!length)
			return FW_MR_ERR_PARAM;
	}

	mr = fw_mr_by_index(fw, mr_key);
	if (!mr || mr->mw_type || !mr->live ||
	    mr->variant != FIELD_GET(ORDMA_KEY_VARIANT, mr_key))
		return FW_MR_ERR_KEY;
	if (mr->pdn != qp_pdn)
		return FW_MR_ERR_PD;
	if (!(mr->access & ORDMA_ACCESS_MW_BIND))
		return FW_MR_ERR_ACCESS;
	/* C10-75: remote write and atomic need local write on the MR */
	if (access & FW_MR_NEEDS_LOCAL_WRITE &&
	    !(mr->access & ORDMA_ACCESS_LOCAL_WRITE))
		return FW_MR_ERR_ACCESS;
	/* FLUSH rights say what the memory is (persistent or not): only
	 * the MR's registration can grant them
	 */
	if (access & FW_MW_ACCESS_FLUSH & ~mr->access)
		return FW_MR_ERR_ACCESS;
	/* zero based or not, addr is where the window starts in the MR */
	if (!fw_mr_covers(mr, addr, length))
		return FW_MR_ERR_BOUNDS;

	mr_index = FIELD_GET(ORDMA_KEY_INDEX, mr_key);
	/* a rebind of a type 1 window moves it: drop the old MR's count */
	fw_mw_unbind(fw, mw);
	mw->live = true;
	mw->variant = FIELD_GET(ORDMA_KEY_VARIANT, mw_key);
	mw->iova = zero_based ? 0 : addr;
	mw->length = length;
	mw->access = fw_mw_rights(access);
	mw->mw_mr = mr_index;
	mw->mw_mr_addr = addr;
	mw->mw_qpn = mw->mw_type == ORDMA_MW_TYPE_2 ? qpn : 0;
	fw->mrs[mr_index].bound_mws++;
	return FW_MR_OK;
}

void fw_mw_qp_destroyed(struct ordma_fw *fw, uint32_t qpn)
{
	uint32_t index;

	if (!fw->mrs)
		return;
	for (index = 1; index <= FW_MAX_MR; index++) {
		struct fw_mr *mw = &fw->mrs[index];

		if (mw->valid && mw->mw_type == ORDMA_MW_TYPE_2 && mw->live &&
		    mw->mw_qpn == qpn)
			fw_mw_unbind(fw, mw);
	}
}

static uint32_t fw_mw_count(const struct ordma_fw *fw)
{
	uint32_t index, n = 0;

	for (index = 1; index <= FW_MAX_MR; index++)
		if (fw->mrs[index].valid && fw->mrs[index].mw_type)
			n++;
	return n;
}

uint8_t fw_cmd_alloc_mw(struct ordma_fw *fw, struct fw_cmd *c)
{
	const struct ordma_cmd_alloc_mw *p = &c->in->alloc_mw;
	uint32_t pdn = le32_to_cpu(p->pdn);
	uint32_t uctx = le32_to_cpu(p->uctx);
	struct fw_mr *mw;
	uint32_t index;
	uint8_t status;

	if (p->type != ORDMA_MW_TYPE_1 && p->type != ORDMA_MW_TYPE_2)
		return fw_cmd_bad_param(c, FW_CMD_OFF(alloc_mw.type),
					"window type not 1 or 2");
	if (!fw_uctx_valid(fw, uctx))
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BAD_HANDLE,
				   "no such user context");
	status = (uint8_t)fw_pd_get(fw, pdn, uctx);
	if (status != ORDMA_CMD_STATUS_OK)
		return fw_cmd_fail(c, status, status == ORDMA_CMD_STATUS_PERM ?
				   "PD owned by another context" : "no such PD");
	for (index = 1; index <= FW_MAX_MR && fw->mrs[index].valid; index++)
		;
	if (index > FW_MAX_MR || fw_mw_count(fw) >= FW_MAX_MW) {
		fw_pd_put(fw, pdn);
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_NO_RESOURCES,
				   "all memory windows or keys in use");
	}
	mw = &fw->mrs[index];
	memset(mw, 0, sizeof(*mw));
	mw->valid = true;
	mw->mw_type = p->type;
	mw->variant = p->key;
	mw->pdn = pdn;
	mw->uctx = uctx;
	c->out->handle.handle = cpu_to_le32(fw_mr_key(index, p->key));
	return ORDMA_CMD_STATUS_OK;
}

/* A bound window is unbound first (IBTA allows freeing it bound).  The
 * variant is not compared: a BIND_MW WQE may have changed it.
 */
uint8_t fw_cmd_dealloc_mw(struct ordma_fw *fw, struct fw_cmd *c)
{
	uint32_t key = le32_to_cpu(c->in->handle.handle);
	uint32_t uctx = le32_to_cpu(c->in->handle.uctx);
	struct fw_mr *mw = fw_mw_by_index(fw, key);

	if (!mw)
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BAD_HANDLE,
				   "no such memory window");
	if (mw->uctx != uctx)
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_PERM,
				   "window owned by another context");
	fw_mw_unbind(fw, mw);
	fw_pd_put(fw, mw->pdn);
	memset(mw, 0, sizeof(*mw));
	return ORDMA_CMD_STATUS_OK;
}

/* ------------------------------------------------------------------ */
/* Lifetime                                                            */
/* ------------------------------------------------------------------ */

void fw_mr_reset(struct ordma_fw *fw)
{
	uint32_t index;

	if (!fw->mrs)
		return;
	for (index = 1; index <= FW_MAX_MR; index++)
		free(fw->mrs[index].fr_pages);
	memset(fw->mrs, 0, (FW_MAX_MR + 1) * sizeof(*fw->mrs));
}

int fw_mr_table_create(struct ordma_fw *fw)
{
	fw->mrs = calloc(FW_MAX_MR + 1, sizeof(*fw->mrs));
	return fw->mrs ? 0 : -1;
}

void fw_mr_table_destroy(struct ordma_fw *fw)
{
	fw_mr_reset(fw);
	free(fw->mrs);
	fw->mrs = NULL;
}

int fw_verbs_create(struct ordma_fw *fw)
{
	if (fw_mr_table_create(fw) || fw_cq_table_create(fw) ||
	    fw_ah_table_create(fw) || fw_mcast_table_create(fw)) {
		fw_verbs_destroy(fw);
		return -1;
	}
	return 0;
}

void fw_verbs_destroy(struct ordma_fw *fw)
{
	fw_mcast_table_destroy(fw);
	fw_ah_table_destroy(fw);
	fw_cq_table_destroy(fw);
	fw_mr_table_destroy(fw);
}

/* QUERY_RESOURCES: MRs and windows take entries of one key table */
uint32_t fw_mr_in_use(const struct ordma_fw *fw)
{
	uint32_t index, n = 0;

	for (index = 1; fw->mrs && index <= FW_MAX_MR; index++)
		n += fw->mrs[index].valid && !fw->mrs[index].mw_type;
	return n;
}

uint32_t fw_mw_in_use(const struct ordma_fw *fw)
{
	return fw->mrs ? fw_mw_count(fw) : 0;
}
