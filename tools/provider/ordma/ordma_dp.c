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

/* The ORDMA opcode of a work request on an RC or UD QP, or -1. */
static int ordma_wqe_opcode(enum ibv_wr_opcode op, bool ud)
{
	switch (op) {
	case IBV_WR_SEND:
		return ORDMA_WQE_SEND;
	case IBV_WR_SEND_WITH_IMM:
		return ORDMA_WQE_SEND_IMM;
	default:
		break;
	}
	if (ud)
		return -1;
	switch (op) {
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
	default:
		return -1;
	}
}

/* UC has SEND and RDMA WRITE (each with immediate) and local operations */
static bool ordma_uc_opcode(int opcode)
{
	return opcode != ORDMA_WQE_SEND_INV && opcode != ORDMA_WQE_RDMA_READ &&
	       opcode != ORDMA_WQE_ATOMIC_CMP_SWP &&
	       opcode != ORDMA_WQE_ATOMIC_FETCH_ADD;
}

static void ordma_put_sges(struct ordma_sge *dst, const struct ibv_sge *src,
			   int n)
{
	int i;

	for (i = 0; i < n; i++) {
		dst[i].addr = htole64(src[i].addr);
		dst[i].length = htole32(src[i].length);
		dst[i].lkey = htole32(src[i].lkey);
	}
}

/* Copies the gather list into the WQE; -1 if more than room bytes. */
static int ordma_put_inline(uint8_t *dst, const struct ibv_send_wr *wr,
			    uint32_t room, uint32_t *len)
{
	uint32_t total = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		uint32_t l = wr->sg_list[i].length;

		if (l > room - total)
			return -1;
		memcpy(dst + total, (const void *)(uintptr_t)wr->sg_list[i].addr,
		       l);
		total += l;
	}
	*len = total;
	return 0;
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

/* The BIND_MW segment; the window keeps its index, the rkey's key byte
 * is new.
 */
static int ordma_put_bind_mw(struct ordma_wqe_bind_mw *b,
			     const struct ibv_send_wr *wr)
{
	const struct ibv_mw_bind_info *bi = &wr->bind_mw.bind_info;
	uint32_t access;

	if (!wr->bind_mw.mw || wr->num_sge ||
	    (wr->bind_mw.rkey ^ wr->bind_mw.mw->rkey) & ~(uint32_t)0xff ||
	    (!bi->mr && bi->length) ||
	    ordma_mw_access_to_hw(bi->mw_access_flags, &access))
		return EINVAL;
	b->addr = htole64(bi->addr);
	b->length = htole64(bi->length);
	b->mw_rkey = htole32(wr->bind_mw.rkey);
	b->mr_lkey = htole32(bi->mr ? bi->mr->lkey : 0);
	b->access = htole32(access);
	return 0;
}

int ordma_build_send_wqe(void *wqe, int shift, const struct ibv_send_wr *wr,
			 const struct ordma_send_params *p)
{
	struct ordma_send_wqe *w = wqe;
	uint32_t ctrl, room = (1u << shift) - ORDMA_SEND_WQE_HDR_SIZE;
	bool is_inline = wr->send_flags & IBV_SEND_INLINE;
	int opcode = ordma_wqe_opcode(wr->opcode, p->ud);
	uint32_t max_sge = p->max_sge;

	if (opcode < 0 || wr->num_sge < 0 ||
	    (p->uc && !ordma_uc_opcode(opcode)))
		return EINVAL;
	if (max_sge > room / sizeof(struct ordma_sge))
		max_sge = room / sizeof(struct ordma_sge);

	memset(w, 0, ORDMA_SEND_WQE_HDR_SIZE);
	ctrl = FIELD_PREP(ORDMA_WQE_OPCODE, opcode);
	if ((wr->send_flags & IBV_SEND_SIGNALED) || p->sig_all)
		ctrl |= ORDMA_WQE_SIGNALED;
	if (wr->send_flags & IBV_SEND_SOLICITED)
		ctrl |= ORDMA_WQE_SOLICITED;
	if (wr->send_flags & IBV_SEND_FENCE)
		ctrl |= ORDMA_WQE_FENCE;

	switch (opcode) {
	case ORDMA_WQE_SEND_IMM:
	case ORDMA_WQE_RDMA_WRITE_IMM:
		/* the immediate goes on the wire as given: network order */
		memcpy(&w->ctrl.imm_inv, &wr->imm_data, sizeof(w->ctrl.imm_inv));
		break;
	case ORDMA_WQE_SEND_INV:
	case ORDMA_WQE_LOCAL_INV:
		w->ctrl.imm_inv = htole32(wr->invalidate_rkey);
		break;
	default:
		break;
	}

	switch (opcode) {
	case ORDMA_WQE_RDMA_WRITE:
	case ORDMA_WQE_RDMA_WRITE_IMM:
	case ORDMA_WQE_RDMA_READ:
		w->rdma.remote_addr = htole64(wr->wr.rdma.remote_addr);
		w->rdma.rkey = htole32(wr->wr.rdma.rkey);
		break;
	case ORDMA_WQE_ATOMIC_CMP_SWP:
	case ORDMA_WQE_ATOMIC_FETCH_ADD:
		/* one 8-byte local buffer for the original value */
		if (wr->num_sge != 1 || is_inline)
			return EINVAL;
		w->atomic.remote_addr = htole64(wr->wr.atomic.remote_addr);
		w->atomic.rkey = htole32(wr->wr.atomic.rkey);
		w->atomic.compare_add = htole64(wr->wr.atomic.compare_add);
		if (opcode == ORDMA_WQE_ATOMIC_CMP_SWP)
			w->atomic.swap = htole64(wr->wr.atomic.swap);
		break;
	case ORDMA_WQE_LOCAL_INV:
		is_inline = false;
		if (wr->num_sge)
			return EINVAL;
		break;
	case ORDMA_WQE_BIND_MW:
		is_inline = false;
		if (ordma_put_bind_mw(&w->bind_mw, wr))
			return EINVAL;
		break;
	default:
		break;
	}

	if (p->ud) {
		uint32_t qkey = wr->wr.ud.remote_qkey;

		if (qkey & ORDMA_QKEY_USE_QP)
			qkey = p->qkey;
		w->ud.ah = htole32(p->ah_handle);
		w->ud.remote_qpn = htole32(wr->wr.ud.remote_qpn);
		w->ud.remote_qkey = htole32(qkey);
	}

	if (is_inline) {
		uint32_t len, max = p->max_inline < room ? p->max_inline : room;

		if (opcode == ORDMA_WQE_RDMA_READ)
			return EINVAL;
		if (ordma_put_inline((uint8_t *)wqe + ORDMA_SEND_WQE_HDR_SIZE,
				     wr, max, &len))
			return EINVAL;
		ctrl |= ORDMA_WQE_INLINE;
		w->ctrl.inline_len = htole32(len);
	} else {
		if ((uint32_t)wr->num_sge > max_sge)
			return EINVAL;
		ordma_put_sges((struct ordma_sge *)((uint8_t *)wqe +
						    ORDMA_SEND_WQE_HDR_SIZE),
			       wr->sg_list, wr->num_sge);
		ctrl |= FIELD_PREP(ORDMA_WQE_NUM_SGE, wr->num_sge);
	}
	w->ctrl.ctrl = htole32(ctrl);
	return 0;
}

int ordma_qpx_check_ops(bool ud, uint64_t send_ops_flags)
{
	uint64_t have = ud ? ORDMA_QPX_OPS_UD : ORDMA_QPX_OPS_RC;

	return (send_ops_flags & ~have) ? EOPNOTSUPP : 0;
}

static uint32_t ordma_nodata_ctrl(uint8_t opcode, unsigned int send_flags,
				  bool sig_all)
{
	uint32_t ctrl = FIELD_PREP(ORDMA_WQE_OPCODE, opcode);

	if ((send_flags & IBV_SEND_SIGNALED) || sig_all)
		ctrl |= ORDMA_WQE_SIGNALED;
	if (send_flags & IBV_SEND_FENCE)
		ctrl |= ORDMA_WQE_FENCE;
	return ctrl;
}

/* The device's FLUSH encoding is IBTA's, as verbs.h has it too */
static_assert(ORDMA_FLUSH_GLOBAL == IBV_FLUSH_GLOBAL, "flush type");
static_assert(ORDMA_FLUSH_PERSISTENT == IBV_FLUSH_PERSISTENT, "flush type");
static_assert(ORDMA_FLUSH_LEVEL_RANGE == IBV_FLUSH_RANGE, "flush level");
static_assert(ORDMA_FLUSH_LEVEL_MR == IBV_FLUSH_MR, "flush level");

int ordma_build_flush_wqe(void *wqe, unsigned int send_flags, bool sig_all,
			  uint32_t rkey, uint64_t remote_addr, size_t len,
			  uint8_t type, uint8_t level)
{
	struct ordma_send_wqe *w = wqe;

	if (!type || (type & ~(IBV_FLUSH_GLOBAL | IBV_FLUSH_PERSISTENT)) ||
	    (level != IBV_FLUSH_RANGE && level != IBV_FLUSH_MR) ||
	    (level == IBV_FLUSH_RANGE && len > (1u << 31)))
		return EINVAL;
	memset(w, 0, ORDMA_SEND_WQE_HDR_SIZE);
	w->flush.remote_addr = htole64(remote_addr);
	w->flush.rkey = htole32(rkey);
	/* the MR level flushes the whole MR: the length means nothing */
	w->flush.length = htole32(level == IBV_FLUSH_RANGE ? (uint32_t)len : 0);
	w->flush.placement = type;
	w->flush.level = level;
	w->ctrl.ctrl = htole32(ordma_nodata_ctrl(ORDMA_WQE_FLUSH, send_flags,
						 sig_all));
	return 0;
}

void ordma_build_atomic_write_wqe(void *wqe, unsigned int send_flags,
				  bool sig_all, uint32_t rkey,
				  uint64_t remote_addr, const void *value)
{
	struct ordma_send_wqe *w = wqe;

	memset(w, 0, ORDMA_SEND_WQE_HDR_SIZE);
	w->atomic_write.remote_addr = htole64(remote_addr);
	w->atomic_write.rkey = htole32(rkey);
	memcpy(w->atomic_write.value, value, sizeof(w->atomic_write.value));
	w->ctrl.ctrl = htole32(ordma_nodata_ctrl(ORDMA_WQE_ATOMIC_WRITE,
						 send_flags, sig_all));
}

int ordma_gather_bufs(uint8_t *dst, uint32_t room,
		      const struct ibv_data_buf *list, size_t n, uint32_t *len)
{
	uint32_t total = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (list[i].length > room - total)
			return EINVAL;
		if (list[i].length)
			memcpy(dst + total, list[i].addr, list[i].length);
		total += list[i].length;
	}
	*len = total;
	return 0;
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
	wc->slid = 0;
	wc->sl = 0;
	wc->dlid_path_bits = 0;
}
