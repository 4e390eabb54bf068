// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * libibverbs provider for the ORDMA RoCEv2 RNIC: queue geometry, send and
 * receive WQE encoding and CQE decoding (layouts in ordma_hw.h, rules in
 * Documentation/ordma/hw-reference.rst, "Work queue entries" and
 * "Completion queue entry").  No locking, no device access.
 */
#include <assert.h>
#include <errno.h>
#include <string.h>

#include "ordma_dp.h"

int ordma_log2_ceil(uint32_t want, int min_log, int max_log)
{
	int n = min_log;

	while (n <= max_log && (1ULL << n) < want)
		n++;
	return n > max_log ? -1 : n;
}

int ordma_cq_log_size(int cqe)
{
	/* The device fills every slot (the phase bit tells new from old),
	 * so cqe entries need 2^ceil_log2(cqe) slots and max_cqe = 2^16.
	 */
	if (cqe < 0 || cqe > (1 << ORDMA_CQ_MAX_LOG_SIZE))
		return -1;
	return ordma_log2_ceil((uint32_t)cqe, 1, ORDMA_CQ_MAX_LOG_SIZE);
}

int ordma_sq_wqe_shift(uint32_t max_send_sge, uint32_t max_inline)
{
	uint32_t body;

	if (max_send_sge > ORDMA_MAX_SGE || max_inline > ORDMA_MAX_INLINE_DATA)
		return -1;
	body = max_send_sge ? max_send_sge : 1;
	body *= sizeof(struct ordma_sge);
	if (max_inline > body)
		body = max_inline;
	return ordma_log2_ceil(ORDMA_SEND_WQE_HDR_SIZE + body,
			       ORDMA_SEND_WQE_MIN_SHIFT,
			       ORDMA_SEND_WQE_MAX_SHIFT);
}

int ordma_rq_wqe_shift(uint32_t max_recv_sge)
{
	if (max_recv_sge > ORDMA_MAX_SGE)
		return -1;
	if (!max_recv_sge)
		max_recv_sge = 1;
	return ordma_log2_ceil(sizeof(struct ordma_recv_wqe) +
			       max_recv_sge * sizeof(struct ordma_sge),
			       ORDMA_RECV_WQE_MIN_SHIFT,
			       ORDMA_RECV_WQE_MAX_SHIFT);
}

static uint32_t ordma_cap_sge(uint32_t n)
{
	return n > ORDMA_MAX_SGE ? ORDMA_MAX_SGE : n;
}

uint32_t ordma_sq_max_sge(int shift)
{
	return ordma_cap_sge(((1u << shift) - ORDMA_SEND_WQE_HDR_SIZE) /
			     sizeof(struct ordma_sge));
}

uint32_t ordma_rq_max_sge(int shift)
{
	return ordma_cap_sge(((1u << shift) - sizeof(struct ordma_recv_wqe)) /
			     sizeof(struct ordma_sge));
}

static int ordma_wqe_opcode_rc(enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_SEND:
		return ORDMA_WQE_SEND;
	case IBV_WR_SEND_WITH_IMM:
		return ORDMA_WQE_SEND_IMM;
	case IBV_WR_SEND_WITH_INV:
		return ORDMA_WQE_SEND_INV;
	case IBV_WR_RDMA_WRITE:
		return ORDMA_WQE_RDMA_WRITE;
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return ORDMA_WQE_RDMA_WRITE_IMM;
	case IBV_WR_RDMA_READ:
		return ORDMA_WQE_RDMA_READ;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		return ORDMA_WQE_ATOMIC_CMP_SWP;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		return ORDMA_WQE_ATOMIC_FETCH_ADD;
	case IBV_WR_LOCAL_INV:
		return ORDMA_WQE_LOCAL_INV;
	case IBV_WR_BIND_MW:
		return ORDMA_WQE_BIND_MW;
#ifndef ORDMA_VERBS_NO_FLUSH
	case IBV_WR_FLUSH:
		return ORDMA_WQE_FLUSH;
#endif
	case IBV_WR_ATOMIC_WRITE:
		return ORDMA_WQE_ATOMIC_WRITE;
	default:
		return -1;
	}
}

int ordma_wqe_opcode(enum ibv_wr_opcode op, bool ud, bool uc)
{
	int opcode = ordma_wqe_opcode_rc(op);

	switch (opcode) {
	case ORDMA_WQE_SEND:
	case ORDMA_WQE_SEND_IMM:
		return opcode;
	/* UC adds RDMA WRITE (with immediate) and the local operations */
	case ORDMA_WQE_RDMA_WRITE:
	case ORDMA_WQE_RDMA_WRITE_IMM:
	case ORDMA_WQE_LOCAL_INV:
	case ORDMA_WQE_BIND_MW:
		return ud ? -1 : opcode;
	default:
		return ud || uc ? -1 : opcode;
	}
}

/* The control word as written so far; the encoders add to it. */
static uint32_t ordma_wqe_ctrl(const struct ordma_send_wqe *w)
{
	return le32toh(w->ctrl.ctrl);
}

static void ordma_wqe_put_ctrl(struct ordma_send_wqe *w, uint32_t ctrl)
{
	w->ctrl.ctrl = htole32(ctrl);
}

void ordma_wqe_set_ctrl(struct ordma_send_wqe *w, uint8_t opcode,
			unsigned int send_flags, bool sig_all)
{
	uint32_t ctrl = FIELD_PREP(ORDMA_WQE_OPCODE, opcode);

	memset(w, 0, ORDMA_SEND_WQE_HDR_SIZE);
	if ((send_flags & IBV_SEND_SIGNALED) || sig_all)
		ctrl |= ORDMA_WQE_SIGNALED;
	if (send_flags & IBV_SEND_SOLICITED)
		ctrl |= ORDMA_WQE_SOLICITED;
	if (send_flags & IBV_SEND_FENCE)
		ctrl |= ORDMA_WQE_FENCE;
	ordma_wqe_put_ctrl(w, ctrl);
}

void ordma_wqe_set_imm(struct ordma_send_wqe *w, __be32 imm_data)
{
	memcpy(&w->ctrl.imm_inv, &imm_data, sizeof(w->ctrl.imm_inv));
}

void ordma_wqe_set_inv(struct ordma_send_wqe *w, uint32_t rkey)
{
	w->ctrl.imm_inv = htole32(rkey);
}

void ordma_wqe_set_rdma(struct ordma_send_wqe *w, uint32_t rkey,
			uint64_t remote_addr)
{
	w->rdma.remote_addr = htole64(remote_addr);
	w->rdma.rkey = htole32(rkey);
}

void ordma_wqe_set_atomic(struct ordma_send_wqe *w, uint32_t rkey,
			  uint64_t remote_addr, uint64_t compare_add,
			  uint64_t swap)
{
	w->atomic.remote_addr = htole64(remote_addr);
	w->atomic.rkey = htole32(rkey);
	w->atomic.compare_add = htole64(compare_add);
	w->atomic.swap = htole64(swap);
}

int ordma_mw_access_to_hw(unsigned int access, uint32_t *hw)
{
	/* local write means nothing for a window: IBTA lets it be given */
	access &= ~(unsigned int)IBV_ACCESS_LOCAL_WRITE;
	if (access & ~(unsigned int)(IBV_ACCESS_REMOTE_WRITE |
				     IBV_ACCESS_REMOTE_READ |
				     IBV_ACCESS_REMOTE_ATOMIC |
				     IBV_ACCESS_FLUSH_GLOBAL |
				     IBV_ACCESS_FLUSH_PERSISTENT |
				     IBV_ACCESS_ZERO_BASED))
		return EINVAL;
	*hw = 0;
	if (access & IBV_ACCESS_REMOTE_WRITE)
		*hw |= ORDMA_ACCESS_REMOTE_WRITE;
	if (access & IBV_ACCESS_REMOTE_READ)
		*hw |= ORDMA_ACCESS_REMOTE_READ;
	if (access & IBV_ACCESS_REMOTE_ATOMIC)
		*hw |= ORDMA_ACCESS_REMOTE_ATOMIC;
	/* granted only if the MR has them (the device checks) */
	if (access & IBV_ACCESS_FLUSH_GLOBAL)
		*hw |= ORDMA_ACCESS_FLUSH_GLOBAL;
	if (access & IBV_ACCESS_FLUSH_PERSISTENT)
		*hw |= ORDMA_ACCESS_FLUSH_PERSISTENT;
	if (access & IBV_ACCESS_ZERO_BASED)
		*hw |= ORDMA_ACCESS_ZERO_BASED;
	return 0;
}

int ordma_wqe_set_bind_mw(struct ordma_send_wqe *w, const struct ibv_mw *mw,
			  uint32_t rkey, const struct ibv_mw_bind_info *bi)
{
	uint32_t access;

	if (!mw || (rkey ^ mw->rkey) & ~(uint32_t)0xff ||
	    (!bi->mr && bi->length) ||
	    ordma_mw_access_to_hw(bi->mw_access_flags, &access))
		return EINVAL;
	w->bind_mw.addr = htole64(bi->addr);
	w->bind_mw.length = htole64(bi->length);
	w->bind_mw.mw_rkey = htole32(rkey);
	w->bind_mw.mr_lkey = htole32(bi->mr ? bi->mr->lkey : 0);
	w->bind_mw.access = htole32(access);
	return 0;
}

/* The device's FLUSH encoding is IBTA's, as verbs.h has it too */
static_assert(ORDMA_FLUSH_GLOBAL == IBV_FLUSH_GLOBAL, "flush type");
static_assert(ORDMA_FLUSH_PERSISTENT == IBV_FLUSH_PERSISTENT, "flush type");
static_assert(ORDMA_FLUSH_LEVEL_RANGE == IBV_FLUSH_RANGE, "flush level");
static_assert(ORDMA_FLUSH_LEVEL_MR == IBV_FLUSH_MR, "flush level");

int ordma_wqe_set_flush(struct ordma_send_wqe *w, uint32_t rkey,
			uint64_t remote_addr, size_t len, uint8_t type,
			uint8_t level)
{
	if (!type || (type & ~(IBV_FLUSH_GLOBAL | IBV_FLUSH_PERSISTENT)) ||
	    (level != IBV_FLUSH_RANGE && level != IBV_FLUSH_MR) ||
	    (level == IBV_FLUSH_RANGE && len > (1u << 31)))
		return EINVAL;
	w->flush.remote_addr = htole64(remote_addr);
	w->flush.rkey = htole32(rkey);
	/* the MR level flushes the whole MR: the length means nothing */
	w->flush.length = htole32(level == IBV_FLUSH_RANGE ? (uint32_t)len : 0);
	w->flush.placement = type;
	w->flush.level = level;
	return 0;
}

void ordma_wqe_set_atomic_write(struct ordma_send_wqe *w, uint32_t rkey,
				uint64_t remote_addr, const void *value)
{
	w->atomic_write.remote_addr = htole64(remote_addr);
	w->atomic_write.rkey = htole32(rkey);
	memcpy(w->atomic_write.value, value, sizeof(w->atomic_write.value));
}

void ordma_wqe_set_ud(struct ordma_send_wqe *w, uint32_t ah_handle,
		      uint32_t remote_qpn, uint32_t remote_qkey,
		      uint32_t qp_qkey)
{
	if (remote_qkey & ORDMA_QKEY_USE_QP)
		remote_qkey = qp_qkey;
	w->ud.ah = htole32(ah_handle);
	w->ud.remote_qpn = htole32(remote_qpn);
	w->ud.remote_qkey = htole32(remote_qkey);
}

static uint8_t *ordma_wqe_data(struct ordma_send_wqe *w)
{
	return (uint8_t *)w + ORDMA_SEND_WQE_HDR_SIZE;
}

/* Bytes after the header of a 2^shift-byte WQE */
static uint32_t ordma_wqe_room(int shift)
{
	return (1u << shift) - ORDMA_SEND_WQE_HDR_SIZE;
}

static void ordma_put_sges(struct ordma_sge *dst, const struct ibv_sge *src,
			   size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		dst[i].addr = htole64(src[i].addr);
		dst[i].length = htole32(src[i].length);
		dst[i].lkey = htole32(src[i].lkey);
	}
}

int ordma_wqe_set_sges(struct ordma_send_wqe *w, int shift, uint32_t max_sge,
		       const struct ibv_sge *sg, size_t n)
{
	uint32_t ctrl = ordma_wqe_ctrl(w);

	if (n > max_sge || n > ordma_wqe_room(shift) / sizeof(struct ordma_sge))
		return EINVAL;
	ordma_put_sges((struct ordma_sge *)ordma_wqe_data(w), sg, n);
	ctrl &= ~(ORDMA_WQE_INLINE | ORDMA_WQE_NUM_SGE);
	ordma_wqe_put_ctrl(w, ctrl | FIELD_PREP(ORDMA_WQE_NUM_SGE, n));
	w->ctrl.inline_len = 0;
	return 0;
}

void ordma_wqe_start_inline(struct ordma_send_wqe *w)
{
	uint32_t ctrl = ordma_wqe_ctrl(w) & ~ORDMA_WQE_NUM_SGE;

	ordma_wqe_put_ctrl(w, ctrl | ORDMA_WQE_INLINE);
	w->ctrl.inline_len = 0;
}

int ordma_wqe_add_inline(struct ordma_send_wqe *w, int shift,
			 uint32_t max_inline, const void *addr, size_t length)
{
	uint32_t len = le32toh(w->ctrl.inline_len);
	uint32_t room = ordma_wqe_room(shift);

	if (max_inline < room)
		room = max_inline;
	if (length > room - len)
		return EINVAL;
	if (length)
		memcpy(ordma_wqe_data(w) + len, addr, length);
	w->ctrl.inline_len = htole32(len + length);
	return 0;
}

int ordma_wqe_check(const struct ordma_send_wqe *w)
{
	uint32_t ctrl = ordma_wqe_ctrl(w);
	bool is_inline = ctrl & ORDMA_WQE_INLINE;
	uint32_t num_sge = FIELD_GET(ORDMA_WQE_NUM_SGE, ctrl);

	switch (FIELD_GET(ORDMA_WQE_OPCODE, ctrl)) {
	case ORDMA_WQE_ATOMIC_CMP_SWP:
	case ORDMA_WQE_ATOMIC_FETCH_ADD:
		/* one 8-byte local buffer for the original value */
		return num_sge == 1 && !is_inline ? 0 : EINVAL;
	case ORDMA_WQE_RDMA_READ:
		return is_inline ? EINVAL : 0;
	case ORDMA_WQE_LOCAL_INV:
	case ORDMA_WQE_BIND_MW:
		return num_sge || is_inline ? EINVAL : 0;
	default:
		return 0;
	}
}

int ordma_wqe_check_iwarp(const struct ordma_send_wqe *w)
{
	uint32_t ctrl = ordma_wqe_ctrl(w);
	uint32_t forbidden = ORDMA_ACCESS_REMOTE_ATOMIC |
			     ORDMA_ACCESS_FLUSH_GLOBAL |
			     ORDMA_ACCESS_FLUSH_PERSISTENT;

	switch (FIELD_GET(ORDMA_WQE_OPCODE, ctrl)) {
	case ORDMA_WQE_SEND:
	case ORDMA_WQE_SEND_INV:
	case ORDMA_WQE_RDMA_WRITE:
	case ORDMA_WQE_LOCAL_INV:
		return 0;
	case ORDMA_WQE_RDMA_READ:
		/* an RDMA Read Request names one sink buffer */
		return FIELD_GET(ORDMA_WQE_NUM_SGE, ctrl) == 1 ? 0 : EINVAL;
	case ORDMA_WQE_BIND_MW:
		return le32toh(w->bind_mw.access) & forbidden ? EINVAL : 0;
	default:
		return EINVAL;
	}
}

/* Operations with no data segment of their own ignore IBV_SEND_INLINE */
static bool ordma_wqe_takes_inline(int opcode)
{
	return opcode != ORDMA_WQE_LOCAL_INV && opcode != ORDMA_WQE_BIND_MW;
}

static int ordma_wqe_put_inline_sges(struct ordma_send_wqe *w, int shift,
				     uint32_t max_inline,
				     const struct ibv_sge *sg, int n)
{
	int i;

	ordma_wqe_start_inline(w);
	for (i = 0; i < n; i++)
		if (ordma_wqe_add_inline(w, shift, max_inline,
					 (const void *)(uintptr_t)sg[i].addr,
					 sg[i].length))
			return EINVAL;
	return 0;
}

int ordma_build_send_wqe(void *wqe, int shift, const struct ibv_send_wr *wr,
			 const struct ordma_send_params *p)
{
	int opcode = ordma_wqe_opcode(wr->opcode, p->ud, p->uc);
	struct ordma_send_wqe *w = wqe;
	int ret;

	/* FLUSH and ATOMIC WRITE have no ibv_send_wr fields: ibv_wr_* only */
	if (opcode < 0 || opcode == ORDMA_WQE_FLUSH ||
	    opcode == ORDMA_WQE_ATOMIC_WRITE || wr->num_sge < 0)
		return EINVAL;
	ordma_wqe_set_ctrl(w, opcode, wr->send_flags, p->sig_all);

	switch (opcode) {
	case ORDMA_WQE_SEND_IMM:
	case ORDMA_WQE_RDMA_WRITE_IMM:
		ordma_wqe_set_imm(w, wr->imm_data);
		break;
	case ORDMA_WQE_SEND_INV:
	case ORDMA_WQE_LOCAL_INV:
		ordma_wqe_set_inv(w, wr->invalidate_rkey);
		break;
	default:
		break;
	}

	switch (opcode) {
	case ORDMA_WQE_RDMA_WRITE:
	case ORDMA_WQE_RDMA_WRITE_IMM:
	case ORDMA_WQE_RDMA_READ:
		ordma_wqe_set_rdma(w, wr->wr.rdma.rkey, wr->wr.rdma.remote_addr);
		break;
	case ORDMA_WQE_ATOMIC_CMP_SWP:
	case ORDMA_WQE_ATOMIC_FETCH_ADD:
		ordma_wqe_set_atomic(w, wr->wr.atomic.rkey,
				     wr->wr.atomic.remote_addr,
				     wr->wr.atomic.compare_add,
				     opcode == ORDMA_WQE_ATOMIC_CMP_SWP ?
				     wr->wr.atomic.swap : 0);
		break;
	case ORDMA_WQE_BIND_MW:
		if (ordma_wqe_set_bind_mw(w, wr->bind_mw.mw, wr->bind_mw.rkey,
					  &wr->bind_mw.bind_info))
			return EINVAL;
		break;
	default:
		break;
	}

	if (p->ud)
		ordma_wqe_set_ud(w, p->ah_handle, wr->wr.ud.remote_qpn,
				 wr->wr.ud.remote_qkey, p->qkey);

	if ((wr->send_flags & IBV_SEND_INLINE) && ordma_wqe_takes_inline(opcode))
		ret = ordma_wqe_put_inline_sges(w, shift, p->max_inline,
						wr->sg_list, wr->num_sge);
	else
		ret = ordma_wqe_set_sges(w, shift, p->max_sge, wr->sg_list,
					 wr->num_sge);
	if (!ret)
		ret = ordma_wqe_check(w);
	if (!ret && p->iwarp)
		ret = ordma_wqe_check_iwarp(w);
	return ret;
}

int ordma_qpx_check_ops(bool ud, uint64_t send_ops_flags)
{
	uint64_t have = ud ? ORDMA_QPX_OPS_UD : ORDMA_QPX_OPS_RC;

	return (send_ops_flags & ~have) ? EOPNOTSUPP : 0;
}

int ordma_build_recv_wqe(void *wqe, int shift, const struct ibv_recv_wr *wr,
			 uint32_t max_sge)
{
	struct ordma_recv_wqe *w = wqe;
	uint32_t fit = ordma_rq_max_sge(shift);

	if (max_sge > fit)
		max_sge = fit;
	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > max_sge)
		return EINVAL;
	memset(w, 0, sizeof(*w));
	w->num_sge = htole32(wr->num_sge);
	ordma_put_sges((struct ordma_sge *)(w + 1), wr->sg_list, wr->num_sge);
	return 0;
}

enum ibv_wc_opcode ordma_wc_opcode(uint8_t cqe_opcode)
{
	switch (cqe_opcode) {
	case ORDMA_CQE_OP_RDMA_WRITE:
		return IBV_WC_RDMA_WRITE;
	case ORDMA_CQE_OP_RDMA_READ:
		return IBV_WC_RDMA_READ;
	case ORDMA_CQE_OP_CMP_SWP:
		return IBV_WC_COMP_SWAP;
	case ORDMA_CQE_OP_FETCH_ADD:
		return IBV_WC_FETCH_ADD;
	case ORDMA_CQE_OP_LOCAL_INV:
		return IBV_WC_LOCAL_INV;
	case ORDMA_CQE_OP_FLUSH:
		return IBV_WC_FLUSH;
	case ORDMA_CQE_OP_ATOMIC_WRITE:
		return IBV_WC_ATOMIC_WRITE;
	case ORDMA_CQE_OP_BIND_MW:
		return IBV_WC_BIND_MW;
	case ORDMA_CQE_OP_RECV:
		return IBV_WC_RECV;
	case ORDMA_CQE_OP_RECV_RDMA_IMM:
		return IBV_WC_RECV_RDMA_WITH_IMM;
	default:
		/* SEND and (kernel-only) REG_MR */
		return IBV_WC_SEND;
	}
}

void ordma_cqe_to_wc(const struct ordma_cqe *cqe, struct ibv_wc *wc)
{
	uint16_t flags = le16toh(cqe->flags);

	/* enum ordma_cqe_status has the values of enum ibv_wc_status */
	wc->status = (enum ibv_wc_status)cqe->status;
	wc->opcode = ordma_wc_opcode(cqe->opcode);
	wc->vendor_err = 0;
	wc->byte_len = le32toh(cqe->byte_len);
	wc->qp_num = le32toh(cqe->qpn);
	wc->src_qp = le32toh(cqe->src_qp);
	wc->wc_flags = 0;
	wc->imm_data = 0;
	if (flags & ORDMA_CQE_F_IMM) {
		/* as received from the wire: network order, like imm_data */
		memcpy(&wc->imm_data, &cqe->imm_inv, sizeof(wc->imm_data));
		wc->wc_flags |= IBV_WC_WITH_IMM;
	} else if (flags & ORDMA_CQE_F_INV) {
		wc->invalidated_rkey = le32toh(cqe->imm_inv);
		wc->wc_flags |= IBV_WC_WITH_INV;
	}
	if (flags & ORDMA_CQE_F_GRH)
		wc->wc_flags |= IBV_WC_GRH;
	wc->pkey_index = 0;
	wc->slid = le16toh(cqe->slid);
	wc->sl = ordma_wc_sl(cqe);
	wc->dlid_path_bits = cqe->dlid_path_bits & 0x7f;
}

uint8_t ordma_wc_sl(const struct ordma_cqe *cqe)
{
	uint16_t flags = le16toh(cqe->flags);

	/*
	 * A receive on an InfiniBand port names its sender by LID, never 0
	 * (the device drops packets from LID 0); on RoCE slid is 0.
	 */
	if (cqe->slid)
		return cqe->sl & 0xf;

	/*
	 * RoCE has no service level on the wire.  For a UD receive the SL
	 * tells the packet's network header instead, as mlx5 reports it and
	 * UCX's ud_verbs reads it to find the destination address in the
	 * GRH area: IPv4 headers fill only the second 20 bytes of it.
	 */
	if (!(flags & ORDMA_CQE_F_GRH))
		return 0;
	return ORDMA_WC_SL_ROCE_UDP | (flags & ORDMA_CQE_F_IPV4 ?
				       ORDMA_WC_SL_L3_IPV4 :
				       ORDMA_WC_SL_L3_IPV6);
}
