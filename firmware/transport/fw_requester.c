// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA firmware transport engine, requester side: executes send WQEs.
 *
 * RC: a WQE gets the PSNs [first_psn, first_psn + npkts) when it starts
 * (npkts = packets of the message; for READ the response packets).  The
 * requester keeps at most FW_TP_WINDOW PSNs unacknowledged (fewer for a
 * while after a retransmission timeout) and at most
 * FW_TP_MAX_WQE WQEs started and not completed; packets wait for room in
 * the device budget of PSNs in flight (fw_transport.h), shared fairly
 * between user contexts and the kernel.  Retransmission is go-back-N:
 * the cursor (cur, cur_pkt) moves back to the WQE holding the PSN to resend
 * and every packet from there is built again from the device's copy of
 * the WQE.  The SQ is read once per WQE, when the WQE starts: the copy
 * (struct fw_tp_swqe_data) is what was validated and what every later
 * packet, retransmission, READ response and atomic ACK works from.
 * WQEs that wait for a free started-WQE slot start as soon as earlier
 * ones complete, in the same pass.
 * WQEs complete in order once acknowledged (READ: all responses placed,
 * atomic: the original value placed).  FLUSH and ATOMIC WRITE are one
 * packet each and are answered like a READ of 0 bytes (a READ Response
 * Only without payload): they count against the initiator depth and an
 * ACK of a later PSN does not complete them.
 *
 * UC: SEND, SEND with immediate, RDMA WRITE (with immediate) only.  A WQE
 * is segmented and numbered as on RC, but nothing is acknowledged: it
 * completes once its last packet is handed to the port, and packets
 * leave in bursts of FW_TP_UC_BURST (pace_deadline) because no ACK
 * clocks them.  A failed WQE takes the QP to SQE, as on UD.
 *
 * UD: every SEND is one packet and completes when it is handed to the port.
 */
#include <string.h>

#include "objects/fw_qp.h"
#include "transport/fw_transport.h"
#include "platform/fw_platform.h"

#define FW_REQ_CTRL_RESERVED	(GENMASK(15, 13) | GENMASK(31, 21))
#define FW_REQ_INFINITE_RNR	7

_Static_assert(ORDMA_MAX_INLINE_DATA == ORDMA_MAX_INLINE_DATA, "inline copy");
_Static_assert(FW_TP_MAX_SGE == ORDMA_MAX_SEND_SGE, "SGE copy");

/* A send WQE as read from the SQ: header, the address vector of a UD
 * WQE with ORDMA_WQE_AV_INLINE, then SGEs or inline data.
 */
struct fw_req_wqe {
	struct ordma_send_wqe hdr;
	union {
		struct ordma_sge sge[FW_TP_MAX_SGE];
		uint8_t inl[ORDMA_MAX_INLINE_DATA];
	} u;
	struct ordma_av av;
};

struct fw_tp_swqe *fw_req_entry(struct fw_qp *qp, uint32_t index)
{
	return &qp->req.w[index % FW_TP_MAX_WQE];
}

/* Answered by an empty READ Response Only (IBTA 1.5) */
static bool fw_req_is_empty_read(uint8_t opcode)
{
	return opcode == ORDMA_WQE_FLUSH || opcode == ORDMA_WQE_ATOMIC_WRITE;
}

static bool fw_req_is_rd_atomic(uint8_t opcode)
{
	return opcode == ORDMA_WQE_RDMA_READ ||
	       opcode == ORDMA_WQE_RDMA_READ_INV ||
	       opcode == ORDMA_WQE_ATOMIC_CMP_SWP ||
	       opcode == ORDMA_WQE_ATOMIC_FETCH_ADD ||
	       fw_req_is_empty_read(opcode);
}

static bool fw_req_is_atomic(uint8_t opcode)
{
	return opcode == ORDMA_WQE_ATOMIC_CMP_SWP ||
	       opcode == ORDMA_WQE_ATOMIC_FETCH_ADD;
}

static int fw_req_read(struct ordma_fw *fw, struct fw_qp *qp, uint32_t index,
		       struct fw_req_wqe *w)
{
	uint8_t raw[sizeof(w->hdr) + sizeof(w->av) + sizeof(w->u)] = { 0 };
	size_t off = sizeof(w->hdr);

	memset(w, 0, sizeof(*w));
	if (fw_wq_read_wqe(fw, &qp->sq, index, raw, sizeof(raw)))
		return -1;
	memcpy(&w->hdr, raw, sizeof(w->hdr));
	if (le32_to_cpu(w->hdr.ctrl.ctrl) & ORDMA_WQE_AV_INLINE) {
		memcpy(&w->av, raw + off, sizeof(w->av));
		off += sizeof(w->av);
	}
	memcpy(&w->u, raw + off, sizeof(raw) - off < sizeof(w->u) ?
	       sizeof(raw) - off : sizeof(w->u));
	return 0;
}

static uint32_t fw_req_ctrl(const struct fw_req_wqe *w)
{
	return le32_to_cpu(w->hdr.ctrl.ctrl);
}

static unsigned int fw_req_num_sge(const struct fw_req_wqe *w)
{
	return FIELD_GET(ORDMA_WQE_NUM_SGE, fw_req_ctrl(w));
}

/* The payload of a started WQE: its copied inline bytes or SGE list */
void fw_req_payload(const struct fw_tp_swqe_data *d, struct fw_tp_payload *pl)
{
	memset(pl, 0, sizeof(*pl));
	if (d->inl) {
		pl->data = d->u.inl;
		pl->data_len = sizeof(d->u.inl);
	} else {
		pl->sges = d->u.sge;
		pl->num_sge = d->num_sge;
	}
}

/* Immediate data: the 4 bytes of ctrl.imm_inv go on the wire as stored */
static uint32_t fw_req_imm(const struct ordma_send_wqe *hdr)
{
	return fw_wire_get32((const uint8_t *)&hdr->ctrl.imm_inv);
}

/* Keeps what later packets of a validated WQE need (see the top). */
static void fw_req_keep(struct fw_tp_swqe *e, const struct fw_req_wqe *w)
{
	struct fw_tp_swqe_data *d = &e->d;

	d->hdr = w->hdr;
	d->inl = fw_req_ctrl(w) & ORDMA_WQE_INLINE;
	if (d->inl) {
		/* fw_req_check bounded the length by ORDMA_MAX_INLINE_DATA */
		memcpy(d->u.inl, w->u.inl, e->length < sizeof(d->u.inl) ?
		       e->length : sizeof(d->u.inl));
	} else {
		d->num_sge = (uint8_t)fw_req_num_sge(w);
		memcpy(d->u.sge, w->u.sge, d->num_sge * sizeof(d->u.sge[0]));
	}
}

/* ------------------------------------------------------------------ */
/* Timers                                                              */
/* ------------------------------------------------------------------ */

/* A started RC WQE still waits for its acknowledgement or responses */
static bool fw_req_outstanding(struct fw_qp *qp)
{
	uint32_t i;

	for (i = qp->sq.ci; i != qp->sq.next; i++) {
		const struct fw_tp_swqe *e = fw_req_entry(qp, i);

		if (e->npkts && !e->done)
			return true;
	}
	return false;
}

static void fw_req_arm_rexmit(struct ordma_fw *fw, struct fw_qp *qp,
			      bool restart)
{
	struct fw_tp_req *r = &qp->req;

	if (!qp->attr.timeout || r->rnr_deadline)
		return;
	if (r->rexmit_deadline && !restart)
		return;
	r->rexmit_deadline = fw_now(fw) + (4096ULL << qp->attr.timeout);
	fw_tp_arm(fw, qp, r->rexmit_deadline);
}

/* IBTA RNR NAK timer field (table 45) in nanoseconds */
uint64_t fw_tp_rnr_ns(unsigned int t)
{
	/* units of 10 us; field 0 means 655.36 ms */
	static const uint32_t us10[32] = {
		65536, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192,
		256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192,
		12288, 16384, 24576, 32768, 49152,
	};

	return (uint64_t)us10[t & 31] * 10000;
}

/* How long to wait after an RNR NAK with timer field t (fw_transport.h) */
static uint64_t fw_req_rnr_wait(struct fw_tp_req *r, unsigned int t)
{
	uint64_t timer = fw_tp_rnr_ns(t);
	uint64_t wait = timer << (r->rnr_streak < 16 ? r->rnr_streak : 16);

	if (r->rnr_streak < UINT8_MAX)
		r->rnr_streak++;
	if (wait > FW_TP_RNR_BACKOFF_MAX_NS)
		wait = timer > FW_TP_RNR_BACKOFF_MAX_NS ? timer :
			FW_TP_RNR_BACKOFF_MAX_NS;
	return wait;
}

/* ------------------------------------------------------------------ */
/* Completion                                                          */
/* ------------------------------------------------------------------ */

/* SQ index a comes at or after b (both started, not completed) */
static bool fw_req_index_at_or_after(const struct fw_qp *qp, uint32_t a,
				     uint32_t b)
{
	return a - qp->sq.ci >= b - qp->sq.ci;
}

/*
 * e failed: it completes with status once the WQEs before it have; they
 * may still be (re)sent, nothing at or after e is.
 */
void fw_req_fail(struct fw_qp *qp, struct fw_tp_swqe *e, uint8_t status)
{
	struct fw_tp_req *r = &qp->req;

	e->done = true;
	e->status = status;
	if (!r->error || fw_req_index_at_or_after(qp, r->error_index, e->index))
		r->error_index = e->index;
	r->error = true;
}

/* Completes done WQEs in order; a failed one takes the QP to ERR (RC)
 * or SQE (UD).  Returns false if the QP left RTS/SQD.
 */
bool fw_req_complete_walk(struct ordma_fw *fw, struct fw_qp *qp)
{
	struct fw_wq *sq = &qp->sq;

	while (sq->ci != sq->next) {
		struct fw_tp_swqe *e = fw_req_entry(qp, sq->ci);
		struct ordma_cqe cqe;
		uint8_t status;

		if (!e->done)
			break;
		status = e->status;
		if (e->signaled || status != ORDMA_CQE_SUCCESS) {
			memset(&cqe, 0, sizeof(cqe));
			cqe.wqe_idx = cpu_to_le32(fw_wq_slot(sq, sq->ci));
			cqe.byte_len = cpu_to_le32(status == ORDMA_CQE_SUCCESS ?
						   e->length : 0);
			cqe.opcode = fw_wqe_cqe_opcode(e->opcode);
			cqe.status = status;
			fw_qp_complete(fw, qp, true, &cqe, false);
		}
		sq->ci++;
		if (status != ORDMA_CQE_SUCCESS) {
			qp->req.rexmit_deadline = 0;
			qp->req.rnr_deadline = 0;
			qp->req.pace_deadline = 0;
			if (qp->type == ORDMA_QPT_RC)
				fw_qp_set_error(fw, qp, 0);
			else
				fw_qp_enter_sqe(fw, qp);
			return false;
		}
	}
	if (!fw_req_outstanding(qp))
		qp->req.rexmit_deadline = 0;
	if (qp->state == ORDMA_QPS_SQD && sq->ci == sq->next)
		fw_qp_sq_drained(fw, qp);
	return true;
}

/* ------------------------------------------------------------------ */
/* Starting a WQE                                                      */
/* ------------------------------------------------------------------ */

/*
 * FLUSH and ATOMIC WRITE carry everything in the WQE header: no SGEs, no
 * inline data.  FLUSH: a placement type of GLOBAL and/or PERSISTENT, a
 * selectivity level RANGE or MR, a range length the RETH can carry.
 */
static uint8_t fw_req_check_nodata(const struct fw_qp *qp,
				   const struct fw_req_wqe *w, uint8_t opcode,
				   uint64_t *length)
{
	const struct ordma_wqe_flush *f = &w->hdr.flush;
	uint32_t ctrl = fw_req_ctrl(w);

	if (qp->type != ORDMA_QPT_RC || (ctrl & ORDMA_WQE_INLINE) ||
	    fw_req_num_sge(w))
		return ORDMA_CQE_LOC_QP_OP_ERR;
	if (!qp->attr.has_av)
		return ORDMA_CQE_LOC_QP_OP_ERR;
	if (opcode == ORDMA_WQE_ATOMIC_WRITE) {
		*length = FW_ROCE_ATOMIC_WRITE_LEN;
		return ORDMA_CQE_SUCCESS;
	}
	*length = 0;
	if (!f->placement ||
	    (f->placement & ~(ORDMA_FLUSH_GLOBAL | ORDMA_FLUSH_PERSISTENT)) ||
	    f->level > ORDMA_FLUSH_LEVEL_MR)
		return ORDMA_CQE_LOC_QP_OP_ERR;
	if (f->level == ORDMA_FLUSH_LEVEL_RANGE &&
	    le32_to_cpu(f->length) > FW_TP_MAX_MSG_SIZE)
		return ORDMA_CQE_LOC_LEN_ERR;
	return ORDMA_CQE_SUCCESS;
}

/*
 * What an iWARP port's QP may execute: RFC 5040 has no immediate data,
 * no atomics, no FLUSH and no ATOMIC WRITE, and its RDMA Read Request
 * names one sink buffer.  The driver and the provider refuse the rest at
 * post time; the SQ is user memory, so the WQE is checked again here.
 */
static bool fw_req_iwarp_allows(uint8_t opcode, unsigned int nsge)
{
	switch (opcode) {
	case ORDMA_WQE_SEND:
	case ORDMA_WQE_SEND_INV:
	case ORDMA_WQE_RDMA_WRITE:
	case ORDMA_WQE_LOCAL_INV:
	case ORDMA_WQE_REG_MR:
	case ORDMA_WQE_BIND_MW:
		return true;
	case ORDMA_WQE_RDMA_READ:
	case ORDMA_WQE_RDMA_READ_INV:
		return nsge == 1;
	default:
		return false;
	}
}

static uint8_t fw_req_check(struct ordma_fw *fw, struct fw_qp *qp,
			    const struct fw_req_wqe *w, uint64_t *length)
{
	uint32_t ctrl = fw_req_ctrl(w);
	uint8_t opcode = FIELD_GET(ORDMA_WQE_OPCODE, ctrl);
	size_t wqe_size = (size_t)1 << qp->sq.wqe_shift;
	unsigned int nsge = fw_req_num_sge(w);
	uint32_t access = 0;

	*length = 0;
	if (ctrl & FW_REQ_CTRL_RESERVED)
		return ORDMA_CQE_LOC_QP_OP_ERR;
	if (ctrl & ORDMA_WQE_AV_INLINE) {
		/*
		 * Only the kernel's own UD QPs (the MAD layer) address
		 * frames without an AH: an AH is where the kernel checks
		 * an address vector against the process's namespace.  The
		 * AV takes the room of two SGEs.
		 */
		if (qp->type != ORDMA_QPT_UD || qp->uctx != ORDMA_KERNEL_UCTX ||
		    wqe_size < ORDMA_SEND_WQE_HDR_SIZE + sizeof(w->av))
			return ORDMA_CQE_LOC_QP_OP_ERR;
		wqe_size -= sizeof(w->av);
	}
	if (fw_port_is_iwarp(fw) && !fw_req_iwarp_allows(opcode, nsge))
		return ORDMA_CQE_LOC_QP_OP_ERR;
	switch (opcode) {
	case ORDMA_WQE_SEND:
	case ORDMA_WQE_SEND_IMM:
		break;
	case ORDMA_WQE_LOCAL_INV:
	case ORDMA_WQE_REG_MR:
		return ORDMA_CQE_SUCCESS;
	case ORDMA_WQE_FLUSH:
	case ORDMA_WQE_ATOMIC_WRITE:
		return fw_req_check_nodata(qp, w, opcode, length);
	case ORDMA_WQE_BIND_MW:
		/* IBTA: windows are bound on connected QPs only */
		if (qp->type != ORDMA_QPT_RC && qp->type != ORDMA_QPT_UC)
			return ORDMA_CQE_LOC_QP_OP_ERR;
		return ORDMA_CQE_SUCCESS;
	case ORDMA_WQE_SEND_INV:
		if (qp->type != ORDMA_QPT_RC)
			return ORDMA_CQE_LOC_QP_OP_ERR;
		break;
	case ORDMA_WQE_RDMA_WRITE:
	case ORDMA_WQE_RDMA_WRITE_IMM:
		if (qp->type != ORDMA_QPT_RC && qp->type != ORDMA_QPT_UC)
			return ORDMA_CQE_LOC_QP_OP_ERR;
		break;
	case ORDMA_WQE_RDMA_READ_INV:
	case ORDMA_WQE_RDMA_READ:
	case ORDMA_WQE_ATOMIC_CMP_SWP:
	case ORDMA_WQE_ATOMIC_FETCH_ADD:
		/* READ_INV is RFC 5040's; IBTA has no READ that invalidates */
		if (opcode == ORDMA_WQE_RDMA_READ_INV && !fw_port_is_iwarp(fw))
			return ORDMA_CQE_LOC_QP_OP_ERR;
		if (qp->type != ORDMA_QPT_RC || (ctrl & ORDMA_WQE_INLINE))
			return ORDMA_CQE_LOC_QP_OP_ERR;
		access = ORDMA_ACCESS_LOCAL_WRITE;
		break;
	default:
		return ORDMA_CQE_LOC_QP_OP_ERR;
	}
	if (ctrl & ORDMA_WQE_INLINE) {
		uint32_t ilen = le32_to_cpu(w->hdr.ctrl.inline_len);

		if (ilen > qp->max_inline_data ||
		    ilen > wqe_size - ORDMA_SEND_WQE_HDR_SIZE ||
		    ilen > ORDMA_MAX_INLINE_DATA)
			return ORDMA_CQE_LOC_LEN_ERR;
		*length = ilen;
	} else {
		uint8_t st;

		if (nsge > ORDMA_MAX_SEND_SGE ||
		    ORDMA_SEND_WQE_HDR_SIZE + nsge * sizeof(struct ordma_sge) >
		    wqe_size)
			return ORDMA_CQE_LOC_QP_OP_ERR;
		st = fw_tp_sges_check(fw, qp, w->u.sge, nsge, access, length);
		if (st != ORDMA_CQE_SUCCESS)
			return st;
	}
	if (fw_req_is_atomic(opcode) && *length != 8)
		return ORDMA_CQE_LOC_LEN_ERR;
	if (qp->type == ORDMA_QPT_UD && *length > fw_tp_qp_mtu(fw, qp))
		return ORDMA_CQE_LOC_LEN_ERR;
	/* an iWARP QP's peer is its TCP connection's */
	if ((qp->type == ORDMA_QPT_RC || qp->type == ORDMA_QPT_UC) &&
	    !qp->attr.has_av && !fw_port_is_iwarp(fw))
		return ORDMA_CQE_LOC_QP_OP_ERR;
	return ORDMA_CQE_SUCCESS;
}

/* Fence and initiator depth: may a WQE with this opcode/ctrl start? */
static bool fw_req_may_start(struct fw_qp *qp, uint8_t opcode, uint32_t ctrl)
{
	unsigned int rd = 0, limit = qp->attr.max_rd_atomic ?
				     qp->attr.max_rd_atomic : 1;
	uint32_t i;

	for (i = qp->sq.ci; i != qp->sq.next; i++) {
		const struct fw_tp_swqe *e = fw_req_entry(qp, i);

		if (!e->done && fw_req_is_rd_atomic(e->opcode))
			rd++;
	}
	if ((ctrl & ORDMA_WQE_FENCE) && rd)
		return false;
	return !fw_req_is_rd_atomic(opcode) || rd < limit;
}

static uint8_t fw_req_mr_status(int rc)
{
	if (rc == FW_MR_OK)
		return ORDMA_CQE_SUCCESS;
	return rc == FW_MR_ERR_PARAM || rc == FW_MR_ERR_BUSY ?
	       ORDMA_CQE_LOC_QP_OP_ERR : ORDMA_CQE_LOC_PROT_ERR;
}

uint8_t fw_req_local_inv(struct ordma_fw *fw, struct fw_qp *qp, uint32_t key)
{
	return fw_req_mr_status(fw_rkey_invalidate(fw, key, qp->pdn, qp->qpn,
						   false));
}

static uint8_t fw_req_local_op(struct ordma_fw *fw, struct fw_qp *qp,
			       const struct fw_req_wqe *w, uint8_t opcode)
{
	int rc;

	if (opcode == ORDMA_WQE_BIND_MW) {
		/* every failed bind is a bind error, QP to error (IBTA) */
		rc = fw_mw_bind(fw, qp->pdn, qp->qpn, &w->hdr.bind_mw);
		return rc == FW_MR_OK ? ORDMA_CQE_SUCCESS :
					ORDMA_CQE_MW_BIND_ERR;
	}
	if (opcode == ORDMA_WQE_LOCAL_INV)
		return fw_req_local_inv(fw, qp,
					le32_to_cpu(w->hdr.ctrl.imm_inv));
	rc = fw_mr_fast_register(fw, qp->pdn, &w->hdr.reg_mr);
	return fw_req_mr_status(rc);
}

static uint8_t fw_req_ud_send(struct ordma_fw *fw, struct fw_qp *qp,
			      const struct fw_req_wqe *w, uint8_t opcode,
			      uint32_t length)
{
	const struct ordma_wqe_ud *ud = &w->hdr.ud;
	uint32_t qkey = le32_to_cpu(ud->remote_qkey);
	const struct ordma_av *av;
	struct fw_tp_payload pl;
	struct fw_roce_hdrs h;
	const char *why;
	size_t bad;
	uint8_t status;

	/* An inline AV is checked as CREATE_AH checks one. */
	if (fw_req_ctrl(w) & ORDMA_WQE_AV_INLINE)
		av = fw_av_check(fw, &w->av, &bad, &why) == ORDMA_CMD_STATUS_OK ?
		     &w->av : NULL;
	else
		av = fw_ah_get(fw, le32_to_cpu(ud->ah), qp->pdn);
	if (!av)
		return ORDMA_CQE_LOC_QP_OP_ERR;
	/* the permissive LID is for directed route SMPs from QP0 */
	if (fw_port_is_ib(fw) && !qp->smi &&
	    le16_to_cpu(av->dlid) == FW_IB_LID_PERMISSIVE)
		return ORDMA_CQE_LOC_QP_OP_ERR;
	if (qkey & 0x80000000u)
		qkey = qp->attr.qkey;
	memset(&h, 0, sizeof(h));
	h.opcode = opcode == ORDMA_WQE_SEND_IMM ? FW_ROCE_UD_SEND_ONLY_IMM :
						  FW_ROCE_UD_SEND_ONLY;
	h.se = fw_req_ctrl(w) & ORDMA_WQE_SOLICITED;
	h.dest_qp = le32_to_cpu(ud->remote_qpn) & FW_ROCE_QPN_MASK;
	h.psn = qp->next_psn & FW_ROCE_PSN_MASK;
	qp->next_psn = fw_psn_add(qp->next_psn, 1);
	h.deth.qkey = qkey;
	h.deth.src_qp = qp->qpn;
	h.imm = fw_req_imm(&w->hdr);
	memset(&pl, 0, sizeof(pl));
	if (fw_req_ctrl(w) & ORDMA_WQE_INLINE) {
		pl.data = w->u.inl;
		pl.data_len = sizeof(w->u.inl);
	} else {
		pl.sges = w->u.sge;
		pl.num_sge = fw_req_num_sge(w);
	}
	pl.len = length;
	/* a frame lost on the port is still a completed UD send */
	fw_tp_send(fw, qp, av, &h, &pl, &status);
	return status;
}

/* Starts the WQE at sq.next; false if none may start now. */
/* The trace of a WQE the requester starts (w: NULL if unreadable) */
static void fw_req_trace_wqe(struct ordma_fw *fw, const struct fw_qp *qp,
			     const struct fw_tp_swqe *e,
			     const struct fw_req_wqe *w)
{
	uint64_t va = 0;

	if (!fw->hal.trace)
		return;
	if (w && (e->opcode == ORDMA_WQE_RDMA_WRITE ||
		  e->opcode == ORDMA_WQE_RDMA_WRITE_IMM ||
		  e->opcode == ORDMA_WQE_RDMA_READ))
		va = le64_to_cpu(w->hdr.rdma.remote_addr);
	else if (w && fw_req_is_atomic(e->opcode))
		va = le64_to_cpu(w->hdr.atomic.remote_addr);
	FW_TRACE(fw, .kind = ORDMA_FW_TRACE_WQE, .qpn = qp->qpn,
		 .psn = qp->type == ORDMA_QPT_UD ? 0 :
			qp->next_psn & FW_ROCE_PSN_MASK,
		 .index = e->index, .len = e->length, .addr = va,
		 .opcode = e->opcode);
}

bool fw_req_start(struct ordma_fw *fw, struct fw_qp *qp)
{
	struct fw_tp_req *r = &qp->req;
	struct fw_wq *sq = &qp->sq;
	struct fw_req_wqe w;
	struct fw_tp_swqe *e;
	uint64_t length = 0;
	uint8_t opcode, status;
	uint32_t ctrl;

	if (qp->state != ORDMA_QPS_RTS || r->error || sq->next == sq->pi ||
	    sq->next - sq->ci >= FW_TP_MAX_WQE)
		return false;
	if (fw_req_read(fw, qp, sq->next, &w)) {
		status = ORDMA_CQE_LOC_QP_OP_ERR;
		opcode = ORDMA_WQE_SEND;
		ctrl = 0;
	} else {
		ctrl = fw_req_ctrl(&w);
		opcode = FIELD_GET(ORDMA_WQE_OPCODE, ctrl);
		if (!fw_req_may_start(qp, opcode, ctrl))
			return false;
		status = fw_req_check(fw, qp, &w, &length);
	}
	e = fw_req_entry(qp, sq->next);
	memset(e, 0, sizeof(*e));
	e->index = sq->next;
	/*
	 * From here a READ (its CQE's too); the sink's STag is invalidated
	 * once the data is in (imm_inv is ignored: rdma_rw fills it in
	 * before it moves the MR to its next key).
	 */
	if (opcode == ORDMA_WQE_RDMA_READ_INV) {
		opcode = ORDMA_WQE_RDMA_READ;
		e->inv_after = status == ORDMA_CQE_SUCCESS;
		e->inv_key = le32_to_cpu(w.u.sge[0].lkey);
	}
	e->opcode = opcode;
	e->signaled = ctrl & ORDMA_WQE_SIGNALED;
	e->length = (uint32_t)length;
	fw_req_trace_wqe(fw, qp, e, status == ORDMA_CQE_SUCCESS ? &w : NULL);
	sq->next++;
	r->cur = sq->next;
	r->cur_pkt = 0;
	if (status != ORDMA_CQE_SUCCESS) {
		fw_req_fail(qp, e, status);
		return false;
	}
	if (opcode == ORDMA_WQE_LOCAL_INV || opcode == ORDMA_WQE_REG_MR ||
	    opcode == ORDMA_WQE_BIND_MW) {
		e->done = true;
		e->status = fw_req_local_op(fw, qp, &w, opcode);
		if (e->status != ORDMA_CQE_SUCCESS)
			fw_req_fail(qp, e, e->status);
		return true;
	}
	if (qp->type == ORDMA_QPT_UD) {
		e->done = true;
		e->status = fw_req_ud_send(fw, qp, &w, opcode, e->length);
		if (e->status != ORDMA_CQE_SUCCESS)
			fw_req_fail(qp, e, e->status);
		return true;
	}
	fw_req_keep(e, &w);
	r->cur = e->index;
	if (fw_port_is_iwarp(fw)) {
		/* the iWARP engine sends it (fw_iw_requester.c) */
		qp->iw.tx_off = 0;
		return true;
	}
	e->first_psn = qp->next_psn & FW_ROCE_PSN_MASK;
	if (fw_req_is_atomic(opcode) || fw_req_is_empty_read(opcode)) {
		e->npkts = 1;
	} else {
		uint32_t mtu = fw_tp_qp_mtu(fw, qp);

		e->npkts = e->length ? (uint32_t)((length + mtu - 1) / mtu) : 1;
	}
	qp->next_psn = fw_psn_add(qp->next_psn, e->npkts);
	return true;
}

/* ------------------------------------------------------------------ */
/* Sending packets                                                     */
/* ------------------------------------------------------------------ */

static uint8_t fw_req_send_opcode(uint8_t opcode, bool first, bool last)
{
	switch (opcode) {
	case ORDMA_WQE_SEND:
		return first && last ? FW_ROCE_RC_SEND_ONLY :
		       first ? FW_ROCE_RC_SEND_FIRST :
		       last ? FW_ROCE_RC_SEND_LAST : FW_ROCE_RC_SEND_MIDDLE;
	case ORDMA_WQE_SEND_IMM:
		return first && last ? FW_ROCE_RC_SEND_ONLY_IMM :
		       first ? FW_ROCE_RC_SEND_FIRST :
		       last ? FW_ROCE_RC_SEND_LAST_IMM : FW_ROCE_RC_SEND_MIDDLE;
	case ORDMA_WQE_SEND_INV:
		return first && last ? FW_ROCE_RC_SEND_ONLY_INV :
		       first ? FW_ROCE_RC_SEND_FIRST :
		       last ? FW_ROCE_RC_SEND_LAST_INV : FW_ROCE_RC_SEND_MIDDLE;
	case ORDMA_WQE_RDMA_WRITE:
		return first && last ? FW_ROCE_RC_RDMA_WRITE_ONLY :
		       first ? FW_ROCE_RC_RDMA_WRITE_FIRST :
		       last ? FW_ROCE_RC_RDMA_WRITE_LAST :
			      FW_ROCE_RC_RDMA_WRITE_MIDDLE;
	default: /* RDMA_WRITE_IMM */
		return first && last ? FW_ROCE_RC_RDMA_WRITE_ONLY_IMM :
		       first ? FW_ROCE_RC_RDMA_WRITE_FIRST :
		       last ? FW_ROCE_RC_RDMA_WRITE_LAST_IMM :
			      FW_ROCE_RC_RDMA_WRITE_MIDDLE;
	}
}

/* READ request for the rest of the response, from packet r->cur_pkt on */
static void fw_req_build_read(const struct fw_tp_req *r, struct fw_tp_swqe *e,
			      uint64_t off, struct fw_roce_hdrs *h)
{
	const struct ordma_send_wqe *w = &e->d.hdr;

	h->opcode = FW_ROCE_RC_RDMA_READ_REQUEST;
	h->reth.va = le64_to_cpu(w->rdma.remote_addr) + off;
	h->reth.rkey = le32_to_cpu(w->rdma.rkey);
	h->reth.dma_len = e->length - (uint32_t)off;
	e->rd_start = r->cur_pkt;
}

static void fw_req_build_atomic(const struct fw_tp_swqe *e,
				struct fw_roce_hdrs *h)
{
	const struct ordma_send_wqe *w = &e->d.hdr;
	bool cmp_swp = e->opcode == ORDMA_WQE_ATOMIC_CMP_SWP;

	h->opcode = cmp_swp ? FW_ROCE_RC_COMPARE_SWAP : FW_ROCE_RC_FETCH_ADD;
	h->atomic.va = le64_to_cpu(w->atomic.remote_addr);
	h->atomic.rkey = le32_to_cpu(w->atomic.rkey);
	h->atomic.swap_add = cmp_swp ? le64_to_cpu(w->atomic.swap) :
				       le64_to_cpu(w->atomic.compare_add);
	h->atomic.compare = cmp_swp ? le64_to_cpu(w->atomic.compare_add) : 0;
}

static void fw_req_build_flush(const struct ordma_send_wqe *w,
			       struct fw_roce_hdrs *h)
{
	h->opcode = FW_ROCE_RC_FLUSH;
	h->reth.va = le64_to_cpu(w->flush.remote_addr);
	h->reth.rkey = le32_to_cpu(w->flush.rkey);
	h->reth.dma_len = le32_to_cpu(w->flush.length);
	h->feth.placement = w->flush.placement;
	h->feth.level = w->flush.level;
}

static void fw_req_build_atomic_write(const struct ordma_send_wqe *w,
				      struct fw_roce_hdrs *h,
				      struct fw_tp_payload *pl)
{
	/* the 8 bytes go on the wire as they are in the WQE */
	h->opcode = FW_ROCE_RC_ATOMIC_WRITE;
	h->reth.va = le64_to_cpu(w->atomic_write.remote_addr);
	h->reth.rkey = le32_to_cpu(w->atomic_write.rkey);
	h->reth.dma_len = FW_ROCE_ATOMIC_WRITE_LEN;
	pl->data = w->atomic_write.value;
	pl->data_len = sizeof(w->atomic_write.value);
	pl->len = FW_ROCE_ATOMIC_WRITE_LEN;
}

/*
 * Packet r->cur_pkt of a SEND or WRITE: the RETH on the first, immediate
 * data, invalidated rkey and SE on the last, an ACK request at least every
 * FW_TP_ACK_EVERY packets, and its MTU-sized slice of the payload.
 * Returns true for the message's last packet.
 */
static bool fw_req_build_send_write(const struct fw_tp_req *r,
				    const struct fw_tp_swqe *e, uint64_t off,
				    uint32_t mtu, struct fw_roce_hdrs *h,
				    struct fw_tp_payload *pl)
{
	const struct ordma_send_wqe *w = &e->d.hdr;
	bool first = r->cur_pkt == 0;
	bool last = r->cur_pkt + 1 >= e->npkts;

	h->opcode = fw_req_send_opcode(e->opcode, first, last);
	if (first && (e->opcode == ORDMA_WQE_RDMA_WRITE ||
		      e->opcode == ORDMA_WQE_RDMA_WRITE_IMM)) {
		h->reth.va = le64_to_cpu(w->rdma.remote_addr);
		h->reth.rkey = le32_to_cpu(w->rdma.rkey);
		h->reth.dma_len = e->length;
	}
	if (last) {
		h->imm = fw_req_imm(w);
		h->inv_rkey = le32_to_cpu(w->ctrl.imm_inv);
		h->se = le32_to_cpu(w->ctrl.ctrl) & ORDMA_WQE_SOLICITED;
	}
	h->ack_req = last || r->since_ack_req + 1 >= FW_TP_ACK_EVERY;
	fw_req_payload(&e->d, pl);
	pl->off = off;
	pl->len = e->length - (uint32_t)off < mtu ?
		  e->length - (uint32_t)off : mtu;
	return last;
}

/*
 * The headers and payload of packet r->cur_pkt of e, whose PSN is psn.
 * Returns true for the WQE's last packet.
 */
static bool fw_req_build_pkt(struct ordma_fw *fw, struct fw_qp *qp,
			     struct fw_tp_swqe *e, uint32_t psn,
			     struct fw_roce_hdrs *h, struct fw_tp_payload *pl)
{
	struct fw_tp_req *r = &qp->req;
	uint32_t mtu = fw_tp_qp_mtu(fw, qp);
	uint64_t off = (uint64_t)r->cur_pkt * mtu;
	bool last = true;

	memset(h, 0, sizeof(*h));
	memset(pl, 0, sizeof(*pl));
	h->dest_qp = qp->attr.dest_qpn & FW_ROCE_QPN_MASK;
	h->psn = psn;
	/* single-packet requests are answered, each of them */
	h->ack_req = true;
	switch (e->opcode) {
	case ORDMA_WQE_RDMA_READ:
		fw_req_build_read(r, e, off, h);
		break;
	case ORDMA_WQE_ATOMIC_CMP_SWP:
	case ORDMA_WQE_ATOMIC_FETCH_ADD:
		fw_req_build_atomic(e, h);
		break;
	case ORDMA_WQE_FLUSH:
		fw_req_build_flush(&e->d.hdr, h);
		break;
	case ORDMA_WQE_ATOMIC_WRITE:
		fw_req_build_atomic_write(&e->d.hdr, h, pl);
		break;
	default:
		last = fw_req_build_send_write(r, e, off, mtu, h, pl);
		break;
	}
	if (qp->type == ORDMA_QPT_UC) {
		h->opcode |= FW_ROCE_OPCODE_UC;
		h->ack_req = false;
	}
	return last;
}

/* Packet r->cur_pkt of e (PSN psn) is out: on to the next one. */
static void fw_req_pkt_sent(struct ordma_fw *fw, struct fw_qp *qp,
			    struct fw_tp_swqe *e, uint32_t psn, bool ack_req,
			    bool last)
{
	struct fw_tp_req *r = &qp->req;

	r->cur_pkt = last ? e->npkts : r->cur_pkt + 1;
	r->sent_psn = fw_psn_add(e->first_psn, r->cur_pkt);
	if (qp->type == ORDMA_QPT_UC) {
		/* nothing comes back: sent is as far as UC goes */
		r->una_psn = fw_psn_add(psn, 1);
		if (last) {
			e->done = true;
			e->status = ORDMA_CQE_SUCCESS;
		}
		return;
	}
	r->since_ack_req = ack_req ? 0 : r->since_ack_req + 1;
	fw_req_arm_rexmit(fw, qp, false);
}

/* PSNs the requester may have unacknowledged now */
static uint32_t fw_req_window(const struct fw_tp_req *r)
{
	return r->window ? r->window : FW_TP_WINDOW;
}

/*
 * What the device budget charges a requester whose packets so far end
 * before sent: the PSNs from una_psn on, at most its window.  ACKs that
 * overtook the cursor leave nothing.
 */
static uint32_t fw_req_charge_at(const struct fw_tp_req *r, uint32_t sent)
{
	uint32_t n = fw_psn_diff(sent, r->una_psn);
	uint32_t window = fw_req_window(r);

	if (n >= FW_TP_PSN_HALF)
		return 0;
	return n < window ? n : window;
}

/*
 * The PSNs qp has in flight (fw_transport.h): a go-back moves sent_psn
 * back with the cursor, and while an RNR timer runs the responder has
 * discarded all of them.
 */
static uint32_t fw_req_in_flight(const struct fw_qp *qp)
{
	if (qp->type != ORDMA_QPT_RC || qp->req.rnr_deadline ||
	    (qp->state != ORDMA_QPS_RTS && qp->state != ORDMA_QPS_SQD))
		return 0;
	return fw_req_charge_at(&qp->req, qp->req.sent_psn);
}

/*
 * Keeps the device's, the users' and qp's context's totals the sum of
 * what their RC requesters have in flight; a QP that leaves RTS/SQD
 * gives its share back.
 */
void fw_tp_budget_sync(struct ordma_fw *fw, struct fw_qp *qp)
{
	struct fw_tp_req *r = &qp->req;
	uint32_t held = fw_req_in_flight(qp);
	uint32_t delta = held - r->budget_held;
	uint32_t *ctx;

	if (!delta)
		return;
	fw->tp_outstanding += delta;
	r->budget_held = held;
	if (qp->uctx == ORDMA_KERNEL_UCTX)
		return;
	ctx = &fw->tp_ctx_held[qp->uctx];
	if (!*ctx)
		fw->tp_ctx_active++;
	fw->tp_user_outstanding += delta;
	*ctx += delta;
	if (!*ctx)
		fw->tp_ctx_active--;
}

/*
 * May qp put more PSNs in flight on top of what it holds, as far as the
 * device's budget, the users' part of it and the fair share of qp's
 * context go?
 */
static bool fw_req_budget_fits(const struct ordma_fw *fw,
			       const struct fw_qp *qp, uint32_t more)
{
	uint32_t held, active;

	if (fw->tp_outstanding + more > FW_TP_DEVICE_OUTSTANDING)
		return false;
	if (qp->uctx == ORDMA_KERNEL_UCTX)
		return true;
	if (fw->tp_user_outstanding + more > FW_TP_USER_OUTSTANDING)
		return false;
	held = fw->tp_ctx_held[qp->uctx];
	active = fw->tp_ctx_active + !held;
	return held + more <= FW_TP_CTX_OUTSTANDING &&
	       held + more <= FW_TP_USER_OUTSTANDING / active;
}

/*
 * The budget holds qp back.  The ACK its last packet asked for wakes it;
 * without one (the share of its context shrank, or others took the room
 * after it last sent) the responder may hold back the ACK of what is in
 * flight for up to FW_TP_ACK_EVERY packets, so a timer tries again.
 */
static void fw_req_budget_wait(struct ordma_fw *fw, struct fw_qp *qp)
{
	struct fw_tp_req *r = &qp->req;

	if (!r->since_ack_req)
		return;
	r->pace_deadline = fw_now(fw) + FW_TP_BUDGET_RETRY_NS;
	fw_tp_arm(fw, qp, r->pace_deadline);
}

/* Sends packet r->cur_pkt of e; false if the window or budget is full. */
static bool fw_req_send_pkt(struct ordma_fw *fw, struct fw_qp *qp,
			    struct fw_tp_swqe *e)
{
	struct fw_tp_req *r = &qp->req;
	uint32_t psn = fw_psn_add(e->first_psn, r->cur_pkt);
	uint32_t inflight = fw_psn_diff(psn, r->una_psn);
	uint32_t pkts, charge, more = 0;
	struct fw_tp_payload pl;
	uint64_t until;
	struct fw_roce_hdrs h;
	uint8_t status;
	bool last;

	if (inflight && inflight >= fw_req_window(r))
		return false;
	/* the link partner asked for a pause (fw_transport.h) */
	until = fw_tp_pause_hold(fw);
	if (until) {
		r->pause_held = true;
		r->pace_deadline = until;
		fw_tp_arm(fw, qp, until);
		return false;
	}
	if (qp->type == ORDMA_QPT_RC) {
		/* a READ request asks for all of its remaining responses */
		pkts = e->opcode == ORDMA_WQE_RDMA_READ ? e->npkts :
							   r->cur_pkt + 1;
		charge = fw_req_charge_at(r, fw_psn_add(e->first_psn, pkts));
		more = charge > r->budget_held ? charge - r->budget_held : 0;
		/* with nothing in flight a QP may always send one packet */
		if (r->budget_held && !fw_req_budget_fits(fw, qp, more)) {
			fw_req_budget_wait(fw, qp);
			return false;
		}
	}
	last = fw_req_build_pkt(fw, qp, e, psn, &h, &pl);
	/*
	 * If the budget will hold the QP back after this packet, only its
	 * ACK lets the QP go on: ask for it now rather than at the next
	 * AckReq it would have sent.
	 */
	if (qp->type == ORDMA_QPT_RC && !h.ack_req &&
	    !fw_req_budget_fits(fw, qp, more + 1))
		h.ack_req = true;
	/* the same when this packet fills the window (small after an RNR) */
	if (qp->type == ORDMA_QPT_RC && inflight + 1 >= fw_req_window(r))
		h.ack_req = true;
	/* a frame the port did not take is lost like one on the wire */
	if (fw_tp_send(fw, qp, &qp->attr.av, &h, &pl, &status) &&
	    status != ORDMA_CQE_SUCCESS) {
		fw_req_fail(qp, e, status);
		return false;
	}
	fw_req_pkt_sent(fw, qp, e, psn, h.ack_req, last);
	fw_tp_budget_sync(fw, qp);
	return true;
}

/* Sends and starts what state, window, slots and timers allow. */
static void fw_req_pump(struct ordma_fw *fw, struct fw_qp *qp)
{
	struct fw_tp_req *r = &qp->req;
	struct fw_wq *sq = &qp->sq;
	unsigned int burst = 0;

	while (!r->rnr_deadline && !r->pace_deadline) {
		struct fw_tp_swqe *e;

		if (r->error && fw_req_index_at_or_after(qp, r->cur,
							 r->error_index))
			break;
		if (r->cur == sq->next) {
			if (!fw_req_start(fw, qp))
				break;
			continue;
		}
		e = fw_req_entry(qp, r->cur);
		if (!e->npkts || e->done || r->cur_pkt >= e->npkts) {
			r->cur++;
			r->cur_pkt = 0;
			if (r->cur != sq->next) {
				e = fw_req_entry(qp, r->cur);
				if (e->opcode == ORDMA_WQE_RDMA_READ)
					r->cur_pkt = e->rcvd;
			}
			continue;
		}
		if (qp->type == ORDMA_QPT_UC && burst == FW_TP_UC_BURST) {
			r->pace_deadline = fw_now(fw) + FW_TP_UC_GAP_NS;
			fw_tp_arm(fw, qp, r->pace_deadline);
			break;
		}
		if (!fw_req_send_pkt(fw, qp, e))
			break;
		burst++;
	}
}

void fw_req_progress(struct ordma_fw *fw, struct fw_qp *qp)
{
	struct fw_wq *sq = &qp->sq;

	if (fw_port_is_iwarp(fw) && qp->type == ORDMA_QPT_RC) {
		fw_iw_req_progress(fw, qp);
		return;
	}
	fw_trace_set_qp(fw, qp->qpn);
	/* acknowledgements that got here gave budget back */
	fw_tp_budget_sync(fw, qp);
	if (qp->state != ORDMA_QPS_RTS && qp->state != ORDMA_QPS_SQD)
		return;
	/*
	 * An RC QP waits on pace_deadline only to retry the budget (now)
	 * or for the end of a PAUSE.
	 */
	if (qp->type == ORDMA_QPT_RC && !qp->req.pause_held)
		qp->req.pace_deadline = 0;
	/*
	 * Completing frees started-WQE slots; posted WQEs that waited for
	 * one start now rather than on some later event (UD sends and
	 * local operations have none: they complete as they start).  Each
	 * round completes at least one WQE, so this ends with the SQ.
	 */
	for (;;) {
		uint32_t ci = sq->ci;

		fw_req_pump(fw, qp);
		if (!fw_req_complete_walk(fw, qp) || sq->ci == ci ||
		    sq->next == sq->pi)
			return;
	}
}

/* ------------------------------------------------------------------ */
/* Responses                                                           */
/* ------------------------------------------------------------------ */

/* The started, not completed RC WQE whose PSNs hold psn. */
static struct fw_tp_swqe *fw_req_find(struct fw_qp *qp, uint32_t psn)
{
	uint32_t i;

	for (i = qp->sq.ci; i != qp->sq.next; i++) {
		struct fw_tp_swqe *e = fw_req_entry(qp, i);

		if (e->npkts && !e->done &&
		    fw_psn_diff(psn, e->first_psn) < e->npkts)
			return e;
	}
	return NULL;
}

/* psn is one the requester sent and has not seen acknowledged */
static bool fw_req_psn_unacked(const struct fw_qp *qp, uint32_t psn)
{
	return fw_psn_diff(psn, qp->req.una_psn) <
	       fw_psn_diff(qp->next_psn, qp->req.una_psn);
}

/* Moves the send cursor back to psn (go-back-N). */
static void fw_req_go_back(struct ordma_fw *fw, struct fw_qp *qp,
			   uint32_t psn, enum ordma_fw_trace_rexmit why)
{
	struct fw_tp_swqe *e = fw_req_find(qp, psn);
	struct fw_tp_req *r = &qp->req;

	if (!e || (r->error &&
		   fw_req_index_at_or_after(qp, e->index, r->error_index)))
		return;
	FW_TRACE(fw, .kind = ORDMA_FW_TRACE_RETRANSMIT, .qpn = qp->qpn,
		 .psn = psn, .index = e->index,
		 .aux = why == ORDMA_FW_TRACE_REXMIT_RNR ? r->rnr_left :
			r->retry_left,
		 .status = why);
	r->cur = e->index;
	r->cur_pkt = fw_psn_diff(psn, e->first_psn);
	/* what was sent from psn on is lost or discarded: not in flight */
	r->sent_psn = psn;
	r->since_ack_req = 0;
	qp->counters.retransmits++;
	fw->tp.retransmits++;
}

/*
 * ACKs for packets resent after a go-back may overtake the cursor (the
 * window after a timeout is small): it moves up to the oldest packet not
 * acknowledged rather than resend what the responder has.
 */
static void fw_req_cursor_to_una(struct fw_qp *qp)
{
	struct fw_tp_req *r = &qp->req;
	struct fw_tp_swqe *e = fw_req_find(qp, r->una_psn);
	uint32_t pkt;

	if (!e || (r->error &&
		   fw_req_index_at_or_after(qp, e->index, r->error_index)))
		return;
	pkt = fw_psn_diff(r->una_psn, e->first_psn);
	if (fw_req_index_at_or_after(qp, r->cur, e->index) &&
	    (r->cur != e->index || r->cur_pkt >= pkt))
		return;
	r->cur = e->index;
	r->cur_pkt = pkt;
	r->sent_psn = r->una_psn;
}

static void fw_req_progressed(struct ordma_fw *fw, struct fw_qp *qp)
{
	uint32_t window = qp->req.window * 2;

	/* the wire takes packets again: the window opens back up */
	if (qp->req.window)
		qp->req.window = window < FW_TP_WINDOW ? window : 0;
	qp->req.retry_left = qp->attr.retry_cnt;
	qp->req.rnr_left = qp->attr.rnr_retry;
	qp->req.rnr_streak = 0;
	qp->req.rexmit_deadline = 0;
	if (fw_req_outstanding(qp))
		fw_req_arm_rexmit(fw, qp, true);
}

/*
 * Every request packet up to and including psn was received: completes
 * SEND/WRITE WQEs entirely below it.  A READ/atomic below it that has not
 * been answered lost its responses: the cursor goes back to it.
 */
static void fw_req_ack_through(struct ordma_fw *fw, struct fw_qp *qp,
			       uint32_t psn)
{
	struct fw_tp_req *r = &qp->req;
	uint32_t i, new_una = fw_psn_add(psn, 1);

	if (!fw_req_psn_unacked(qp, psn))
		return;
	for (i = qp->sq.ci; i != qp->sq.next; i++) {
		struct fw_tp_swqe *e = fw_req_entry(qp, i);
		uint32_t last;

		if (e->done || !e->npkts)
			continue;
		if (fw_psn_before(psn, e->first_psn))
			break;
		if (fw_req_is_rd_atomic(e->opcode)) {
			new_una = fw_psn_add(e->first_psn, e->rcvd);
			if (new_una != r->una_psn) {
				r->una_psn = new_una;
				fw_req_progressed(fw, qp);
			}
			fw_req_go_back(fw, qp, new_una,
				       ORDMA_FW_TRACE_REXMIT_IMPLIED);
			return;
		}
		last = fw_psn_add(e->first_psn, e->npkts - 1);
		if (fw_psn_before(psn, last))
			break;
		e->done = true;
		e->status = ORDMA_CQE_SUCCESS;
	}
	r->una_psn = new_una;
	fw_req_cursor_to_una(qp);
	fw_req_progressed(fw, qp);
}

static uint8_t fw_req_nak_status(unsigned int code)
{
	switch (code) {
	case FW_AETH_NAK_REMOTE_ACCESS:
		return ORDMA_CQE_REM_ACCESS_ERR;
	case FW_AETH_NAK_REMOTE_OP:
		return ORDMA_CQE_REM_OP_ERR;
	case FW_AETH_NAK_INVALID_REQ:
	case FW_AETH_NAK_INVALID_RD_REQ:
		return ORDMA_CQE_REM_INV_REQ_ERR;
	default:
		return ORDMA_CQE_BAD_RESP_ERR;
	}
}

static void fw_req_rx_ack(struct ordma_fw *fw, struct fw_qp *qp,
			  uint32_t psn, uint8_t syndrome)
{
	struct fw_tp_req *r = &qp->req;
	struct fw_tp_swqe *e;

	if (fw_aeth_is_ack(syndrome)) {
		if (!fw_req_psn_unacked(qp, psn)) {
			fw_tp_count_rx_drop(fw, FW_TP_DROP_RESP);
			return;
		}
		fw_req_ack_through(fw, qp, psn);
		return;
	}
	/* NAKs name the first PSN not executed */
	if (!fw_req_psn_unacked(qp, psn)) {
		fw_tp_count_rx_drop(fw, FW_TP_DROP_RESP);
		return;
	}
	if (psn != r->una_psn)
		fw_req_ack_through(fw, qp, fw_psn_add(psn, FW_ROCE_PSN_MASK));
	if (r->una_psn != psn)
		return;		/* an unanswered READ before it comes first */
	e = fw_req_find(qp, psn);
	if (!e)
		return;
	if (fw_aeth_is_rnr_nak(syndrome)) {
		qp->counters.rnr_naks_received++;
		if (!r->rnr_left) {
			qp->counters.rnr_retry_exceeded++;
			fw_req_fail(qp, e, ORDMA_CQE_RNR_RETRY_EXC_ERR);
			return;
		}
		if (r->rnr_left != FW_REQ_INFINITE_RNR)
			r->rnr_left--;
		fw_req_go_back(fw, qp, psn, ORDMA_FW_TRACE_REXMIT_RNR);
		/*
		 * After the timer only the NAKed packet goes again; the
		 * window opens as ACKs come back.  A peer that answers
		 * with RNR NAKs for ever so costs the wire one packet per
		 * RNR timer, not a window.
		 */
		r->window = 1;
		r->rexmit_deadline = 0;
		r->rnr_deadline = fw_now(fw) +
				  fw_req_rnr_wait(r, fw_aeth_value(syndrome));
		fw_tp_arm(fw, qp, r->rnr_deadline);
		return;
	}
	if (fw_aeth_value(syndrome) == FW_AETH_NAK_PSN_SEQ_ERR) {
		qp->counters.nak_seq_received++;
		fw_req_go_back(fw, qp, psn, ORDMA_FW_TRACE_REXMIT_NAK_SEQ);
		return;
	}
	if (fw_aeth_value(syndrome) == FW_AETH_NAK_REMOTE_ACCESS)
		qp->counters.access_naks_received++;
	fw_req_fail(qp, e, fw_req_nak_status(fw_aeth_value(syndrome)));
}

/* A READ response or atomic ACK at psn for e: implied ACK of what is
 * before it; false if it is not the response expected next.
 */
static bool fw_req_implied_ack(struct ordma_fw *fw, struct fw_qp *qp,
			       struct fw_tp_swqe *e, uint32_t psn)
{
	if (psn != fw_psn_add(e->first_psn, e->rcvd)) {
		qp->counters.implied_naks++;
		return false;
	}
	if (psn != qp->req.una_psn)
		fw_req_ack_through(fw, qp, fw_psn_add(psn, FW_ROCE_PSN_MASK));
	return psn == qp->req.una_psn && !e->done;
}

/*
 * The opcode the next READ response packet of e may have.  A READ asked
 * again from packet rd_start on (after a loss) is answered First..Last
 * (or Only) anew; a late packet of the earlier answer at the same PSN
 * carries the same bytes, so Middle/Last stay acceptable there too.
 */
static bool fw_req_read_resp_opcode_ok(const struct fw_tp_swqe *e,
				       uint8_t opc)
{
	bool restart = e->rcvd == e->rd_start;

	if (e->npkts == 1)
		return opc == FW_ROCE_RC_RDMA_READ_RESPONSE_ONLY;
	if (e->rcvd == 0)
		return opc == FW_ROCE_RC_RDMA_READ_RESPONSE_FIRST;
	if (e->rcvd + 1 == e->npkts)
		return opc == FW_ROCE_RC_RDMA_READ_RESPONSE_LAST ||
		       (restart && opc == FW_ROCE_RC_RDMA_READ_RESPONSE_ONLY);
	return opc == FW_ROCE_RC_RDMA_READ_RESPONSE_MIDDLE ||
	       (restart && opc == FW_ROCE_RC_RDMA_READ_RESPONSE_FIRST);
}

static void fw_req_rx_read_resp(struct ordma_fw *fw, struct fw_qp *qp,
				const struct fw_roce_pkt *pkt, uint32_t psn)
{
	struct fw_tp_swqe *e = fw_req_find(qp, psn);
	uint8_t opc = fw_bth_opcode(pkt->bth);
	uint32_t mtu = fw_tp_qp_mtu(fw, qp), expect_len;
	uint64_t off;
	uint8_t st;

	if (!e || (e->opcode != ORDMA_WQE_RDMA_READ &&
		   !fw_req_is_empty_read(e->opcode)) ||
	    !fw_req_psn_unacked(qp, psn) || !fw_req_implied_ack(fw, qp, e, psn)) {
		fw_tp_count_rx_drop(fw, FW_TP_DROP_RESP);
		return;
	}
	if (pkt->aeth && !fw_aeth_is_ack(fw_aeth_syndrome(pkt->aeth))) {
		fw_tp_count_rx_drop(fw, FW_TP_DROP_RESP);
		return;
	}
	off = (uint64_t)e->rcvd * mtu;
	expect_len = e->rcvd + 1 == e->npkts ? e->length - (uint32_t)off : mtu;
	if (fw_req_is_empty_read(e->opcode))
		expect_len = 0;
	if (!fw_req_read_resp_opcode_ok(e, opc) ||
	    pkt->payload_len != expect_len) {
		fw_req_fail(qp, e, ORDMA_CQE_BAD_RESP_ERR);
		return;
	}
	if (fw_req_is_empty_read(e->opcode)) {
		/* the responder executed it: nothing to place */
	} else {
		/* where the WQE said when it started, whatever the SQ says now */
		st = fw_tp_scatter(fw, qp, e->d.u.sge, e->d.num_sge, off,
				   pkt->payload, expect_len);
		if (st != ORDMA_CQE_SUCCESS) {
			fw_req_fail(qp, e, st);
			return;
		}
	}
	e->rcvd++;
	qp->req.una_psn = fw_psn_add(psn, 1);
	if (e->rcvd == e->npkts) {
		e->done = true;
		e->status = ORDMA_CQE_SUCCESS;
	}
	if (qp->req.cur == e->index && qp->req.cur_pkt < e->rcvd)
		qp->req.cur_pkt = e->rcvd;
	fw_req_progressed(fw, qp);
}

static void fw_req_rx_atomic_ack(struct ordma_fw *fw, struct fw_qp *qp,
				 const struct fw_roce_pkt *pkt, uint32_t psn)
{
	struct fw_tp_swqe *e = fw_req_find(qp, psn);
	uint8_t orig[8];
	uint64_t v;
	uint8_t st;

	if (!e || !fw_req_is_atomic(e->opcode) ||
	    !fw_req_psn_unacked(qp, psn) || !fw_req_implied_ack(fw, qp, e, psn) ||
	    !fw_aeth_is_ack(fw_aeth_syndrome(pkt->aeth))) {
		fw_tp_count_rx_drop(fw, FW_TP_DROP_RESP);
		return;
	}
	/* host memory is little endian */
	v = fw_atomic_ack_eth_orig(pkt->atomic_ack_eth);
	for (st = 0; st < 8; st++)
		orig[st] = (uint8_t)(v >> (8 * st));
	st = fw_tp_scatter(fw, qp, e->d.u.sge, e->d.num_sge, 0, orig, 8);
	if (st != ORDMA_CQE_SUCCESS) {
		fw_req_fail(qp, e, st);
		return;
	}
	e->rcvd = 1;
	e->done = true;
	e->status = ORDMA_CQE_SUCCESS;
	qp->req.una_psn = fw_psn_add(psn, 1);
	fw_req_progressed(fw, qp);
}

void fw_req_rx(struct ordma_fw *fw, struct fw_qp *qp,
	       const struct fw_roce_pkt *pkt)
{
	uint32_t psn = fw_bth_psn(pkt->bth);

	switch (fw_bth_opcode(pkt->bth)) {
	case FW_ROCE_RC_ACKNOWLEDGE:
		fw_req_rx_ack(fw, qp, psn, fw_aeth_syndrome(pkt->aeth));
		break;
	case FW_ROCE_RC_ATOMIC_ACKNOWLEDGE:
		fw_req_rx_atomic_ack(fw, qp, pkt, psn);
		break;
	case FW_ROCE_RC_RDMA_READ_RESPONSE_FIRST:
	case FW_ROCE_RC_RDMA_READ_RESPONSE_MIDDLE:
	case FW_ROCE_RC_RDMA_READ_RESPONSE_LAST:
	case FW_ROCE_RC_RDMA_READ_RESPONSE_ONLY:
		fw_req_rx_read_resp(fw, qp, pkt, psn);
		break;
	default:
		fw_tp_count_rx_drop(fw, FW_TP_DROP_RESP);
		return;
	}
	fw_req_progress(fw, qp);
}

void fw_req_timer(struct ordma_fw *fw, struct fw_qp *qp, uint64_t now)
{
	struct fw_tp_req *r = &qp->req;

	if (qp->state != ORDMA_QPS_RTS && qp->state != ORDMA_QPS_SQD) {
		r->rexmit_deadline = 0;
		r->rnr_deadline = 0;
		r->pace_deadline = 0;
		r->pause_held = false;
		return;
	}
	if (r->pace_deadline && r->pace_deadline <= now) {
		r->pace_deadline = 0;
		r->pause_held = false;
		fw_req_progress(fw, qp);
		return;
	}
	if (r->rnr_deadline && r->rnr_deadline <= now) {
		r->rnr_deadline = 0;
		fw_req_progress(fw, qp);
		return;
	}
	if (!r->rexmit_deadline || r->rexmit_deadline > now)
		return;
	r->rexmit_deadline = 0;
	if (!fw_req_outstanding(qp))
		return;
	/* the port held the answers back, not the peer: a new timeout */
	if (fw_port_paused_until(fw)) {
		fw_req_arm_rexmit(fw, qp, true);
		return;
	}
	qp->counters.timeouts++;
	fw->tp.timeouts++;
	if (!r->retry_left) {
		struct fw_tp_swqe *e = fw_req_find(qp, r->una_psn);

		if (e)
			fw_req_fail(qp, e, ORDMA_CQE_RETRY_EXC_ERR);
		fw_req_complete_walk(fw, qp);
		return;
	}
	r->retry_left--;
	r->window = FW_TP_WINDOW_MIN;
	fw_req_go_back(fw, qp, r->una_psn, ORDMA_FW_TRACE_REXMIT_TIMEOUT);
	fw_req_progress(fw, qp);
	fw_req_arm_rexmit(fw, qp, false);
}
