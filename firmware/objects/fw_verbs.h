/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * ORDMA firmware verbs objects shared between the firmware's own files:
 * page lists, memory regions, completion queues, address handles and the
 * protection-domain reference counts that keep them consistent.
 *
 * The object structures are private to their files; other parts of the
 * firmware (the QP/SRQ engine, the RoCE wire layer) use only the helpers
 * declared here.  Every helper is called with the device lock held.
 */
#ifndef ORDMA_FW_VERBS_H
#define ORDMA_FW_VERBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fw_priv.h"

/* Device limits; QUERY_DEVICE reports the same numbers.  MR indices (key
 * bits 31:8), CQ numbers and AH handles start at 1: 0 is never valid.
 */
#define FW_MAX_MR			4096
/* Windows take MR indices too: MRs + windows <= FW_MAX_MR */
#define FW_MAX_MW			1024
#define FW_MAX_CQ			1024
#define FW_MAX_AH			1024
#define FW_MAX_MCAST_GRP		64
#define FW_MAX_MCAST_QP_ATTACH		8	/* QPs per group */
#define FW_MAX_TOTAL_MCAST_QP_ATTACH	256
#define FW_MAX_MR_SIZE			(1ULL << 40)
/* Largest page list a fast-register WQE may install */
#define FW_MR_MAX_FAST_REG_PAGES	ORDMA_MTT_ENTRIES_PER_PAGE
/* Access an iWARP port's QPs, MRs and windows may not grant: iWARP has
 * no atomics and no FLUSH
 */
#define FW_ACCESS_NOT_IWARP		(ORDMA_ACCESS_REMOTE_ATOMIC | \
					 ORDMA_ACCESS_FLUSH_GLOBAL | \
					 ORDMA_ACCESS_FLUSH_PERSISTENT)

/* ------------------------------------------------------------------ */
/* Page lists (fw_pagelist.c)                                          */
/* ------------------------------------------------------------------ */

/* A validated struct ordma_page_list, in host order. */
struct fw_page_list {
	uint64_t addr;		/* level 0: first page; else table page */
	uint32_t num_pages;
	uint8_t page_shift;
	uint8_t levels;
	uint64_t total_bytes;	/* num_pages << page_shift */
	/* Set by fw_page_list_parse() when it returns BAD_PARAM: offset of
	 * the offending field inside struct ordma_page_list (add the page
	 * list's own offset to get the command syndrome) and why.
	 */
	uint32_t bad_offset;
	const char *error;
};

/*
 * Checks a page list taken from a command: page_shift in
 * ORDMA_{MIN,MAX}_PAGE_SHIFT, levels 0..2, reserved zero, 1..512 (level
 * 1) or 1..512*512 (level 2) pages, address non-zero and aligned (level 0:
 * to the page size and not wrapping; levels 1/2: 4 KiB), and at least
 * min_bytes described.  Table pages are not read here.
 * Returns ORDMA_CMD_STATUS_OK or ORDMA_CMD_STATUS_BAD_PARAM (see
 * out->bad_offset / out->error).
 */
int fw_page_list_parse(struct ordma_fw *fw, const struct ordma_page_list *in,
		       uint64_t min_bytes, struct fw_page_list *out);

/*
 * DMA address of byte offset of the buffer a page list describes, and how
 * many bytes are contiguous from there (at least 1, at most to the end of
 * the buffer).  Levels 1/2 read the table entries by DMA each call.
 * Returns 0, or -1 if offset is beyond the buffer, a table read fails or a
 * table entry is zero or misaligned.
 */
int fw_page_list_dma(struct ordma_fw *fw, const struct fw_page_list *pl,
		     uint64_t offset, uint64_t *dma, uint64_t *contig);

/* DMA out of a page list's buffer, crossing pages; 0 or -1 (as above).
 * fw_page_list_dma() is the translation fw_dma_write_through() takes to
 * write into one.
 */
int fw_page_list_read(struct ordma_fw *fw, const struct fw_page_list *pl,
		      uint64_t offset, void *buf, size_t len);

/* ------------------------------------------------------------------ */
/* GID table, user contexts, protection domains (fw_resources.c)       */
/* ------------------------------------------------------------------ */

void fw_resources_reset(struct ordma_fw *fw);
/* uctx is the kernel's (0) or an allocated user context */
bool fw_uctx_valid(const struct ordma_fw *fw, uint32_t uctx);
/* ip (an IPv4-mapped or IPv6 address) is a GID of the table */
bool fw_gid_matches_ip(const struct ordma_fw *fw, const uint8_t ip[16]);
bool fw_gid_is_ipv4(const uint8_t gid[16]);
uint8_t fw_cmd_add_gid(struct ordma_fw *fw, struct fw_cmd *c);
uint8_t fw_cmd_del_gid(struct ordma_fw *fw, struct fw_cmd *c);
uint8_t fw_cmd_alloc_uctx(struct ordma_fw *fw, struct fw_cmd *c);
uint8_t fw_cmd_dealloc_uctx(struct ordma_fw *fw, struct fw_cmd *c);
uint8_t fw_cmd_alloc_pd(struct ordma_fw *fw, struct fw_cmd *c);
uint8_t fw_cmd_dealloc_pd(struct ordma_fw *fw, struct fw_cmd *c);

/*
 * Takes a reference on PD pdn for an object created by uctx.  Returns
 * ORDMA_CMD_STATUS_OK, BAD_HANDLE (no such PD) or PERM (PD owned by
 * another context).  DEALLOC_PD answers BUSY while references exist.
 */
int fw_pd_get(struct ordma_fw *fw, uint32_t pdn, uint32_t uctx);
void fw_pd_put(struct ordma_fw *fw, uint32_t pdn);

/* ------------------------------------------------------------------ */
/* Memory regions (fw_mr.c)                                            */
/* ------------------------------------------------------------------ */

struct fw_mr;

/* Why an MR lookup or MR operation failed. */
enum fw_mr_err {
	FW_MR_OK		= 0,
	/* no MR with this index, key variant mismatch, or the MR is not
	 * in the valid state (fast-reg MR not registered / invalidated)
	 */
	FW_MR_ERR_KEY		= 1,
	FW_MR_ERR_PD		= 2,	/* MR belongs to another PD */
	FW_MR_ERR_BOUNDS	= 3,	/* [iova, iova+len) outside the MR */
	FW_MR_ERR_ACCESS	= 4,	/* need_access not granted */
	/* operation not allowed on this kind of MR (invalidate or
	 * fast-register a normal/DMA MR, fast-register a valid MR)
	 */
	FW_MR_ERR_TYPE		= 5,
	FW_MR_ERR_PARAM		= 6,	/* fast-register WQE fields invalid */
	FW_MR_ERR_DMA		= 7,	/* fast-register page list unreadable */
	FW_MR_ERR_BUSY		= 8,	/* memory windows are bound to the MR */
	FW_MR_ERR_QP		= 9,	/* type 2 window bound to another QP */
	/* 8-byte atomic target not 8-byte aligned in memory */
	FW_MR_ERR_ALIGN		= 10,
};

/*
 * Finds the MR named by an lkey/rkey and checks that it belongs to pdn,
 * covers [iova, iova + len) and grants every ORDMA_ACCESS_* bit in
 * need_access (0 = local read, always granted).  Checks run in the order
 * of enum fw_mr_err.  Returns FW_MR_OK and *mr, or the reason.
 * Callers map reasons to completion statuses: local SGE -> LOC_PROT_ERR,
 * remote access -> REM_ACCESS_ERR / NAK remote access error.
 */
int fw_mr_lookup(struct ordma_fw *fw, uint32_t key, uint32_t pdn,
		 uint64_t iova, uint64_t len, uint32_t need_access,
		 struct fw_mr **mr);

/*
 * fw_mr_lookup() for an rkey from the wire, the one rkey check of every
 * remote access (WRITE, READ, atomics, FLUSH, ATOMIC WRITE; RC and UC):
 * the key may also name a bound memory window, which must belong to pdn,
 * (type 2) be bound to QP qpn, cover [iova, iova + len) in the window's
 * address space and grant need_access.  *mr is then the window; the copy
 * and DMA helpers below translate through it into its MR.
 */
int fw_mr_lookup_remote(struct ordma_fw *fw, uint32_t key, uint32_t pdn,
			uint32_t qpn, uint64_t iova, uint64_t len,
			uint32_t need_access, struct fw_mr **mr);

/* Copy into / out of an MR at iova (checked by fw_mr_lookup), crossing
 * pages.  0, or -1 on a DMA error or if the range is not in the MR.
 */
int fw_mr_copy_to(struct ordma_fw *fw, struct fw_mr *mr, uint64_t iova,
		  const void *buf, size_t len);
int fw_mr_copy_from(struct ordma_fw *fw, struct fw_mr *mr, uint64_t iova,
		    void *buf, size_t len);

/*
 * fw_mr_lookup_remote() over the whole range of the MR or window the
 * rkey names (FLUSH at MR level); *iova and *len get that range.
 */
int fw_mr_lookup_remote_whole(struct ordma_fw *fw, uint32_t key,
			      uint32_t pdn, uint32_t qpn,
			      uint32_t need_access, struct fw_mr **mr,
			      uint64_t *iova, uint64_t *len);

/*
 * DMA address of iova inside the MR and the contiguous bytes from there
 * (e.g. for 8-byte atomics, which must not cross a page); 0 or -1.
 */
int fw_mr_dma(struct ordma_fw *fw, const struct fw_mr *mr, uint64_t iova,
	      uint64_t *dma, uint64_t *contig);

/*
 * Target of an 8-byte atomic or ATOMIC WRITE at iova of an rkey-checked
 * MR or window: *dma, where the 8 bytes lie 8-byte aligned in one page,
 * so that a single DMA access reads or writes them whole.  FW_MR_OK,
 * FW_MR_ERR_BOUNDS (not inside, or not translatable) or FW_MR_ERR_ALIGN
 * (the bus address is not 8-byte aligned: a zero-based window bound at
 * a misaligned MR address).
 */
int fw_mr_atomic_dma(struct ordma_fw *fw, struct fw_mr *mr, uint64_t iova,
		     uint64_t *dma);

/*
 * LOCAL_INV WQE / SEND_WITH_INV: invalidates the fast-reg MR named by key
 * (full key, variant included) if it belongs to pdn.  Returns FW_MR_OK,
 * FW_MR_ERR_KEY, FW_MR_ERR_PD or FW_MR_ERR_TYPE (not a fast-reg MR).
 * Invalidating an already invalid MR with the right key succeeds.
 */
int fw_mr_invalidate(struct ordma_fw *fw, uint32_t key, uint32_t pdn);

/*
 * LOCAL_INV (remote false) or SEND_WITH_INV received on QP qpn (remote
 * true): fw_mr_invalidate() for an MR key; a key naming a memory window
 * unbinds a bound type 2 window of pdn (received: bound to qpn).  Returns
 * FW_MR_OK, FW_MR_ERR_KEY (not bound, variant), FW_MR_ERR_PD,
 * FW_MR_ERR_TYPE (type 1 window, or not a fast-reg MR), FW_MR_ERR_QP or
 * FW_MR_ERR_BUSY (fast-reg MR with bound windows).
 */
int fw_rkey_invalidate(struct ordma_fw *fw, uint32_t key, uint32_t pdn,
		       uint32_t qpn, bool remote);

/*
 * BIND_MW WQE posted on QP qpn of PD qp_pdn.  Checked in this order:
 * FW_MR_ERR_KEY (no window with mw_rkey's index), FW_MR_ERR_PARAM
 * (unknown access bits, reserved field, atomic or FLUSH rights on an
 * iWARP port), FW_MR_ERR_PD (window not in the
 * QP's PD), type 1: ZERO_BASED -> FW_MR_ERR_PARAM, length 0 unbinds;
 * type 2: already bound -> FW_MR_ERR_TYPE, length 0 -> FW_MR_ERR_PARAM;
 * then the MR: FW_MR_ERR_KEY (no such live MR, variant), FW_MR_ERR_PD,
 * FW_MR_ERR_ACCESS (no MW_BIND, remote write/atomic without the MR's
 * local write, a FLUSH right the MR lacks), FW_MR_ERR_BOUNDS (window outside the MR).  On success the
 * window is bound with mw_rkey's variant; on failure it is unchanged.
 */
int fw_mw_bind(struct ordma_fw *fw, uint32_t qp_pdn, uint32_t qpn,
	       const struct ordma_wqe_bind_mw *wqe);

/* DESTROY_QP: type 2 windows bound to qpn return to the free state. */
void fw_mw_qp_destroyed(struct ordma_fw *fw, uint32_t qpn);

/*
 * REG_MR WQE: the fast-reg MR with wqe->key's index, in PD pdn and in the
 * invalid state, gets wqe's pages (copied from host memory now), iova,
 * length, access and wqe->key's variant, and becomes valid.  Returns
 * FW_MR_OK, FW_MR_ERR_KEY (no such index), FW_MR_ERR_PD, FW_MR_ERR_TYPE
 * (not fast-reg, or still valid), FW_MR_ERR_PARAM (num_pages 0 or above
 * max_pages, page_shift, access (atomic or FLUSH on an iWARP port
 * included), length 0 / beyond max_mr_size / beyond
 * the pages once iova's offset in the first page is added, page_list
 * zero or not 8-byte aligned, an entry zero or not page aligned) or
 * FW_MR_ERR_DMA (the page list cannot be read).  Checked in that order;
 * on failure the MR is unchanged.
 */
int fw_mr_fast_register(struct ordma_fw *fw, uint32_t pdn,
			const struct ordma_wqe_reg_mr *wqe);

/* ------------------------------------------------------------------ */
/* Completion queues (fw_cq.c)                                         */
/* ------------------------------------------------------------------ */

/*
 * Writes one CQE at the CQ's producer slot (everything but the owner
 * dword first, then owner = phase; cqe->owner is ignored).  A ring that
 * looks full makes the device re-read the consumer index from the CQ's
 * doorbell record; still full -> the CQ enters the error state, a CQ_ERR
 * async event {cqn} is posted and the CQE is dropped.  An armed CQ fires
 * (COMP EQE {cqn} on its EQ, then disarms) on any completion, or with
 * SOLICITED only on solicited or error (status != SUCCESS) completions.
 * A CQ has at most one COMP EQE unconsumed in its EQ: a later event
 * waits until the driver's EQ doorbell reports that one consumed.
 * Returns 0, or -1 if the CQE was not written (no such CQ, CQ in error,
 * overrun, DMA error).
 */
int fw_cq_post(struct ordma_fw *fw, uint32_t cqn, const struct ordma_cqe *cqe,
	       bool solicited);

/* CQ cqn exists and is owned by uctx, as a command status: OK,
 * BAD_HANDLE or PERM.
 */
int fw_cq_check(struct ordma_fw *fw, uint32_t cqn, uint32_t uctx);
/* References from QPs/SRQs: DESTROY_CQ answers BUSY while any exist.
 * fw_cq_get() must only be called on a CQ fw_cq_check() accepted.
 */
void fw_cq_get(struct ordma_fw *fw, uint32_t cqn);
void fw_cq_put(struct ordma_fw *fw, uint32_t cqn);

/* ------------------------------------------------------------------ */
/* Address handles (fw_ah.c)                                           */
/* ------------------------------------------------------------------ */

/* The AV of AH ah_handle if it exists and belongs to pdn, else NULL. */
const struct ordma_av *fw_ah_get(struct ordma_fw *fw, uint32_t ah_handle,
				 uint32_t pdn);

/*
 * Validates an address vector (CREATE_AH, and MODIFY_QP's AV): dgid
 * non-zero, dmac unicast and non-zero, sgid_index names a valid GID,
 * flow_label 20 bits,
 * vlan_id 0..4095 or ORDMA_VLAN_NONE, reserved zero.  Returns
 * ORDMA_CMD_STATUS_OK or BAD_PARAM with *bad_offset = offset of the field
 * inside struct ordma_av and *why.
 */
int fw_av_check(struct ordma_fw *fw, const struct ordma_av *av,
		size_t *bad_offset, const char **why);

/* ------------------------------------------------------------------ */
/* Multicast groups (fw_mcast.c)                                       */
/* ------------------------------------------------------------------ */

/* IPv4-mapped 224.0.0.0/4 or IPv6 ff00::/8 */
bool fw_gid_is_multicast(const uint8_t gid[16]);
/* Some QP of this port is attached to gid. */
bool fw_mcast_joined(struct ordma_fw *fw, const uint8_t gid[16]);
/* A RoCE packet to gid is this port's: a group it joined (multicast) or
 * an address of its GID table.
 */
bool fw_gid_is_local(struct ordma_fw *fw, const uint8_t gid[16]);
/*
 * The QPs attached to group gid, copied into qpns (a receive may complete
 * and the driver detach while the caller delivers to them): their number,
 * or -1 if no QP of this port is attached to gid.
 */
int fw_mcast_members(struct ordma_fw *fw, const uint8_t gid[16],
		     uint32_t qpns[FW_MAX_MCAST_QP_ATTACH]);
/* DESTROY_QP: the QP leaves every group. */
void fw_mcast_qp_destroyed(struct ordma_fw *fw, uint32_t qpn);
uint8_t fw_cmd_attach_mcast(struct ordma_fw *fw, struct fw_cmd *c);
uint8_t fw_cmd_detach_mcast(struct ordma_fw *fw, struct fw_cmd *c);

/* ------------------------------------------------------------------ */
/* Lifetime and dispatch (called by fw_core.c, fw_admin.c, ...)         */
/* ------------------------------------------------------------------ */

/* Object tables: allocated with the device (fw_verbs_create() returns 0
 * or -1 on allocation failure), emptied by every reset.
 */
int fw_verbs_create(struct ordma_fw *fw);
void fw_verbs_destroy(struct ordma_fw *fw);
void fw_mr_reset(struct ordma_fw *fw);
void fw_cq_reset(struct ordma_fw *fw);
void fw_ah_reset(struct ordma_fw *fw);
void fw_mcast_reset(struct ordma_fw *fw);
/* per-file halves of fw_verbs_create()/fw_verbs_destroy() */
int fw_mr_table_create(struct ordma_fw *fw);
void fw_mr_table_destroy(struct ordma_fw *fw);
int fw_cq_table_create(struct ordma_fw *fw);
void fw_cq_table_destroy(struct ordma_fw *fw);
int fw_ah_table_create(struct ordma_fw *fw);
void fw_ah_table_destroy(struct ordma_fw *fw);
int fw_mcast_table_create(struct ordma_fw *fw);
void fw_mcast_table_destroy(struct ordma_fw *fw);

/* DESTROY_EQ / DEALLOC_UCTX answer BUSY while these hold. */
bool fw_eq_used_by_cq(const struct ordma_fw *fw, uint32_t eqn);
/* The driver consumed entries of EQ eqn: post the COMP events that
 * waited for that.
 */
void fw_cq_eq_consumed(struct ordma_fw *fw, uint32_t eqn);
/* Posts what waits because its EQE could not be written: each CQ's COMP
 * event and CQ_ERR event.
 */
void fw_cq_retry_events(struct ordma_fw *fw);
bool fw_uctx_owns_cq(const struct ordma_fw *fw, uint32_t uctx);

/* ORDMA_DB_CQ on doorbell page `page`: NULL or why it was rejected. */
const char *fw_cq_doorbell(struct ordma_fw *fw, uint32_t page, uint32_t cqn,
			   uint32_t ci, bool arm, bool solicited);

uint8_t fw_cmd_reg_mr(struct ordma_fw *fw, struct fw_cmd *c);
uint8_t fw_cmd_dereg_mr(struct ordma_fw *fw, struct fw_cmd *c);
uint8_t fw_cmd_alloc_mw(struct ordma_fw *fw, struct fw_cmd *c);
uint8_t fw_cmd_dealloc_mw(struct ordma_fw *fw, struct fw_cmd *c);
uint8_t fw_cmd_create_cq(struct ordma_fw *fw, struct fw_cmd *c);
uint8_t fw_cmd_destroy_cq(struct ordma_fw *fw, struct fw_cmd *c);
uint8_t fw_cmd_query_cq(struct ordma_fw *fw, struct fw_cmd *c);
uint8_t fw_cmd_create_ah(struct ordma_fw *fw, struct fw_cmd *c);
uint8_t fw_cmd_destroy_ah(struct ordma_fw *fw, struct fw_cmd *c);

/* Objects in use, for QUERY_RESOURCES.  MRs and windows share the
 * FW_MAX_MR key table; windows are also limited to FW_MAX_MW.
 */
uint32_t fw_uctx_in_use(const struct ordma_fw *fw);
uint32_t fw_pd_in_use(const struct ordma_fw *fw);
uint32_t fw_gid_in_use(const struct ordma_fw *fw);
uint32_t fw_mr_in_use(const struct ordma_fw *fw);
uint32_t fw_mw_in_use(const struct ordma_fw *fw);
uint32_t fw_cq_in_use(const struct ordma_fw *fw);
uint32_t fw_ah_in_use(const struct ordma_fw *fw);
uint32_t fw_mcast_groups_in_use(const struct ordma_fw *fw);
uint32_t fw_mcast_attach_in_use(const struct ordma_fw *fw);

#endif /* ORDMA_FW_VERBS_H */
