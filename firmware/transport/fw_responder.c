// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA firmware transport engine, responder side.
 *
 * RC: requests are taken strictly in PSN order (expected_psn).  A PSN
 * ahead of it is answered once with a PSN sequence error NAK until the
 * expected PSN arrives; a PSN behind it is a duplicate: SEND/WRITE are
 * acknowledged again (coalesced like new ones), not executed; READs again
 * from the replay cache's range, atomics answered with the saved result.
 * ACKs go out for every request packet with the AckReq bit, the last
 * packet of every message and at least every FW_TP_ACK_EVERY packets;
 * READ responses and atomic ACKs for every READ/atomic.  Errors NAK the
 * request and take the QP to ERR, as IBTA puts it for the responder.
 *
 * UC: no ACK or NAK ever.  Packets are taken in PSN order; a gap or a
 * bad request drops the whole message and the responder resynchronises
 * at the next First/Only packet (see fw_resp_rx_uc()).
 * FLUSH and ATOMIC WRITE (IBTA 1.5) take a READ/atomic resource and are
 * answered with a READ Response Only of 0 bytes, queued behind earlier
 * READ responses so the answers leave in PSN order; a duplicate is
 * answered again from the resource without being executed again.
 *
 * UD: Q_Key checked, the receive buffer gets a 40-byte GRH area, then
 * the payload.
 */
#include <string.h>

#include "objects/fw_qp.h"
#include "transport/fw_transport.h"
#include "platform/fw_platform.h"

struct fw_resp_recv {
	struct ordma_recv_wqe hdr;
	struct ordma_sge sge[FW_TP_MAX_SGE];
};

_Static_assert(sizeof(struct fw_resp_recv) == FW_TP_RECV_WQE_BYTES,
	       "receive WQE copy");

static struct fw_resp_recv *fw_resp_wqe(struct fw_qp *qp)
{
	return (struct fw_resp_recv *)(void *)qp->resp.recv_wqe;
}

static size_t fw_resp_recv_wqe_size(struct ordma_fw *fw, struct fw_qp *qp)
{
	if (qp->srqn != ORDMA_NO_SRQ) {
		struct fw_srq *srq = fw_srq_lookup(fw, qp->srqn);

		return srq ? (size_t)1 << srq->wq.wqe_shift : 0;
	}
	return (size_t)1 << qp->rq.wqe_shift;
}

/* Takes a receive WQE into qp->resp; false if none is posted. */
bool fw_resp_take_recv(struct ordma_fw *fw, struct fw_qp *qp)
{
	struct fw_tp_resp *r = &qp->resp;
	int rc;

	memset(r->recv_wqe, 0, sizeof(r->recv_wqe));
	rc = fw_qp_recv_take(fw, qp, r->recv_wqe, sizeof(r->recv_wqe),
			     &r->recv_idx);
	if (rc < 0)
		return false;
	/* one that could not be read fails as a malformed WQE does */
	if (rc > 0)
		fw_resp_wqe(qp)->hdr.num_sge = cpu_to_le32(UINT32_MAX);
	r->recv_valid = true;
	r->recv_off = 0;
	return true;
}

const struct ordma_sge *fw_resp_recv_sge_list(struct fw_qp *qp)
{
	return fw_resp_wqe(qp)->sge;
}

/* SGEs of the taken receive WQE; 0 and false if it is malformed. */
bool fw_resp_recv_sges(struct ordma_fw *fw, struct fw_qp *qp,
		       unsigned int *n)
{
	uint32_t num = le32_to_cpu(fw_resp_wqe(qp)->hdr.num_sge);

	*n = 0;
	if (num > ORDMA_MAX_RECV_SGE ||
	    FW_RECV_WQE_HDR_SIZE + num * sizeof(struct ordma_sge) >
	    fw_resp_recv_wqe_size(fw, qp))
		return false;
	*n = num;
	return true;
}

void fw_resp_complete_recv(struct ordma_fw *fw, struct fw_qp *qp,
			   struct ordma_cqe *cqe, bool solicited)
{
	struct fw_tp_resp *r = &qp->resp;

	if (!r->recv_valid)
		return;
	cqe->wqe_idx = cpu_to_le32(r->recv_idx);
	fw_qp_complete(fw, qp, false, cqe, solicited);
	if (qp->srqn == ORDMA_NO_SRQ)
		fw_qp_rq_completed(qp);
	r->recv_valid = false;
	r->recv_off = 0;
}

void fw_resp_recv_error(struct ordma_fw *fw, struct fw_qp *qp,
			uint8_t status)
{
	struct ordma_cqe cqe;

	memset(&cqe, 0, sizeof(cqe));
	cqe.opcode = ORDMA_CQE_OP_RECV;
	cqe.status = status;
	fw_resp_complete_recv(fw, qp, &cqe, false);
}

/* ------------------------------------------------------------------ */
/* ACK / NAK                                                           */
/* ------------------------------------------------------------------ */

static void fw_resp_send_ack(struct ordma_fw *fw, struct fw_qp *qp,
			     uint32_t psn, uint8_t syndrome)
{
	struct fw_roce_hdrs h;

	memset(&h, 0, sizeof(h));
	h.opcode = FW_ROCE_RC_ACKNOWLEDGE;
	h.dest_qp = qp->attr.dest_qpn & FW_ROCE_QPN_MASK;
	h.psn = psn & FW_ROCE_PSN_MASK;
	h.aeth.syndrome = syndrome;
	h.aeth.msn = qp->msn & 0xffffff;
	qp->resp.unacked = 0;
	/*
	 * Responses leave in PSN order: an ACK of a later request must not
	 * overtake the READ responses still queued, or the requester takes
	 * that READ for lost and asks again.  It goes when they are out.
	 */
	if (fw_aeth_is_ack(syndrome) &&
	    qp->resp.read_head != qp->resp.read_tail) {
		qp->resp.ack_deferred = true;
		return;
	}
	if (fw_aeth_is_ack(syndrome))
		fw->tp.acks_sent++;
	else
		fw->tp.naks_sent++;
	fw_tp_send(fw, qp, &qp->attr.av, &h, NULL, NULL);
}

static uint8_t fw_resp_credits(void)
{
	return fw_aeth_ack(FW_AETH_CREDITS_INVALID);
}

/*
 * A request the responder cannot execute: a taken receive WQE completes
 * with recv_status, the requester gets NAK code for psn, the QP enters
 * ERR with the async event (0: none).
 */
static void fw_resp_fatal(struct ordma_fw *fw, struct fw_qp *qp, uint32_t psn,
			  enum fw_aeth_nak_code code, uint8_t recv_status,
			  uint8_t event, enum fw_tp_drop why)
{
	fw_tp_count_rx_drop(fw, why);
	if (code == FW_AETH_NAK_REMOTE_ACCESS)
		qp->counters.access_naks_sent++;
	if (qp->resp.recv_valid)
		fw_resp_recv_error(fw, qp, recv_status ? recv_status :
					   ORDMA_CQE_LOC_QP_OP_ERR);
	fw_resp_send_ack(fw, qp, psn, fw_aeth_nak(code));
	qp->resp.seq = FW_TP_SEQ_NONE;
	fw_qp_set_error(fw, qp, event);
}

static void fw_resp_rnr(struct ordma_fw *fw, struct fw_qp *qp, uint32_t psn)
{
	qp->counters.rnr_naks_sent++;
	fw_tp_count_rx_drop(fw, FW_TP_DROP_RNR);
	fw_resp_send_ack(fw, qp, psn, fw_aeth_rnr_nak(qp->attr.min_rnr_timer));
}

/* ------------------------------------------------------------------ */
/* Remote keys                                                         */
/* ------------------------------------------------------------------ */

/*
 * The rkey check of every request that names remote memory, RC and UC
 * alike: an MR or a bound window of the QP's PD (a type 2 window bound to
 * this QP) covering the range with the rights asked for.
 */
static bool fw_resp_rkey(struct ordma_fw *fw, struct fw_qp *qp, uint32_t rkey,
			 uint64_t va, uint64_t len, uint32_t need,
			 struct fw_mr **mr)
{
	return fw_mr_lookup_remote(fw, rkey, qp->pdn, qp->qpn, va, len, need,
				   mr) == FW_MR_OK;
}

/* ------------------------------------------------------------------ */
/* READ responses, atomics                                             */
/* ------------------------------------------------------------------ */

/* One packet of a READ response; a packet not sent is lost as on a wire. */
static void fw_resp_read_send(struct ordma_fw *fw, struct fw_qp *qp,
			      const struct fw_tp_read_job *j, uint32_t mtu)
{
	struct fw_tp_payload pl;
	struct fw_roce_hdrs h;
	bool first = j->k == 0, last = j->k + 1 == j->n;

	memset(&h, 0, sizeof(h));
	memset(&pl, 0, sizeof(pl));
	h.opcode = first && last ? FW_ROCE_RC_RDMA_READ_RESPONSE_ONLY :
		   first ? FW_ROCE_RC_RDMA_READ_RESPONSE_FIRST :
		   last ? FW_ROCE_RC_RDMA_READ_RESPONSE_LAST :
			  FW_ROCE_RC_RDMA_READ_RESPONSE_MIDDLE;
	h.dest_qp = qp->attr.dest_qpn & FW_ROCE_QPN_MASK;
	h.psn = fw_psn_add(j->psn, j->k);
	h.aeth.syndrome = fw_resp_credits();
	h.aeth.msn = qp->msn & 0xffffff;
	pl.remote = true;
	pl.rkey = j->rkey;
	pl.va = j->va;
	pl.off = (uint64_t)j->k * mtu;
	pl.len = last ? j->len - j->k * mtu : mtu;
	fw_tp_send(fw, qp, &qp->attr.av, &h, &pl, NULL);
}

void fw_resp_read_pump(struct ordma_fw *fw, struct fw_qp *qp)
{
	struct fw_tp_resp *r = &qp->resp;
	uint32_t mtu = fw_tp_qp_mtu(fw, qp);
	unsigned int budget = FW_TP_READ_BURST;

	r->read_paused = false;
	if (qp->state != ORDMA_QPS_RTR && qp->state != ORDMA_QPS_RTS &&
	    qp->state != ORDMA_QPS_SQD) {
		r->read_head = r->read_tail = 0;
		r->ack_deferred = false;
		return;
	}
	/* the link partner asked for a pause (fw_transport.h) */
	if (r->read_head != r->read_tail) {
		r->read_deadline = fw_tp_pause_hold(fw);
		if (r->read_deadline) {
			r->read_paused = true;
			fw_tp_arm(fw, qp, r->read_deadline);
			return;
		}
	}
	while (r->read_head != r->read_tail && budget) {
		struct fw_tp_read_job *j =
			&r->read_jobs[r->read_head % FW_TP_READ_JOBS];

		for (; j->k < j->n && budget; j->k++, budget--)
			fw_resp_read_send(fw, qp, j, mtu);
		if (j->k == j->n)
			r->read_head++;
	}
	if (r->read_head != r->read_tail) {
		r->read_deadline = fw_now(fw) + FW_TP_READ_GAP_NS;
		fw_tp_arm(fw, qp, r->read_deadline);
	} else if (r->ack_deferred) {
		/* everything executed so far, the requests after the READs */
		r->ack_deferred = false;
		fw_resp_send_ack(fw, qp,
				 fw_psn_add(qp->expected_psn, FW_ROCE_PSN_MASK),
				 fw_resp_credits());
	}
}

/*
 * Queues the response to a READ of len bytes at va whose first packet
 * has PSN psn, and sends its first burst unless earlier ones wait.  A
 * full queue drops the request (the requester times out and asks again).
 */
static void fw_resp_read_respond(struct ordma_fw *fw, struct fw_qp *qp,
				 uint32_t psn, uint64_t va, uint32_t rkey,
				 uint32_t len)
{
	struct fw_tp_resp *r = &qp->resp;
	uint32_t mtu = fw_tp_qp_mtu(fw, qp);
	struct fw_tp_read_job *j;
	bool idle = r->read_head == r->read_tail;

	if (r->read_tail - r->read_head >= FW_TP_READ_JOBS) {
		fw_tp_count_rx_drop(fw, FW_TP_DROP_DUP);
		return;
	}
	j = &r->read_jobs[r->read_tail++ % FW_TP_READ_JOBS];
	j->psn = psn;
	j->va = va;
	j->rkey = rkey;
	j->len = len;
	j->k = 0;
	j->n = len ? (len + mtu - 1) / mtu : 1;
	if (idle)
		fw_resp_read_pump(fw, qp);
}

static void fw_resp_atomic_ack(struct ordma_fw *fw, struct fw_qp *qp,
			       uint32_t psn, uint64_t orig)
{
	struct fw_roce_hdrs h;

	memset(&h, 0, sizeof(h));
	h.opcode = FW_ROCE_RC_ATOMIC_ACKNOWLEDGE;
	h.dest_qp = qp->attr.dest_qpn & FW_ROCE_QPN_MASK;
	h.psn = psn;
	h.aeth.syndrome = fw_resp_credits();
	h.aeth.msn = qp->msn & 0xffffff;
	h.atomic_orig = orig;
	fw_tp_send(fw, qp, &qp->attr.av, &h, NULL, NULL);
}

static struct fw_tp_rd_res *fw_resp_new_res(struct fw_qp *qp)
{
	unsigned int depth = qp->attr.max_dest_rd_atomic;
	struct fw_tp_rd_res *res;

	if (!depth)
		depth = 1;
	if (depth > FW_TP_MAX_RD_RES)
		depth = FW_TP_MAX_RD_RES;
	res = &qp->resp.res[qp->resp.res_next % depth];
	qp->resp.res_next = (qp->resp.res_next + 1) % depth;
	memset(res, 0, sizeof(*res));
	res->valid = true;
	return res;
}

static struct fw_tp_rd_res *fw_resp_find_res(struct fw_qp *qp, uint32_t psn,
					     bool atomic)
{
	unsigned int i;

	for (i = 0; i < FW_TP_MAX_RD_RES; i++) {
		struct fw_tp_rd_res *res = &qp->resp.res[i];

		if (res->valid && res->atomic == atomic &&
		    fw_psn_diff(psn, res->psn) < res->npkts)
			return res;
	}
	return NULL;
}

static bool fw_resp_read_check(struct ordma_fw *fw, struct fw_qp *qp,
			       const struct fw_roce_pkt *pkt)
{
	uint32_t len = fw_reth_dma_len(pkt->reth);
	struct fw_mr *mr;

	return !len || fw_resp_rkey(fw, qp, fw_reth_rkey(pkt->reth),
				    fw_reth_va(pkt->reth), len,
				    ORDMA_ACCESS_REMOTE_READ, &mr);
}

static void fw_resp_read(struct ordma_fw *fw, struct fw_qp *qp,
			 const struct fw_roce_pkt *pkt, uint32_t psn)
{
	uint32_t len = fw_reth_dma_len(pkt->reth), mtu = fw_tp_qp_mtu(fw, qp);
	struct fw_tp_rd_res *res;

	if (!(qp->attr.access_flags & ORDMA_ACCESS_REMOTE_READ) ||
	    len > FW_TP_MAX_MSG_SIZE) {
		fw_resp_fatal(fw, qp, psn, FW_AETH_NAK_INVALID_REQ, 0,
			      ORDMA_EQE_QP_REQ_ERR, FW_TP_DROP_BAD_REQ);
		return;
	}
	if (!fw_resp_read_check(fw, qp, pkt)) {
		fw_resp_fatal(fw, qp, psn, FW_AETH_NAK_REMOTE_ACCESS, 0,
			      ORDMA_EQE_QP_ACCESS_ERR, FW_TP_DROP_BAD_REQ);
		return;
	}
	res = fw_resp_new_res(qp);
	res->psn = psn;
	res->npkts = len ? (len + mtu - 1) / mtu : 1;
	qp->expected_psn = fw_psn_add(psn, res->npkts);
	qp->msn++;
	fw_resp_read_respond(fw, qp, psn, fw_reth_va(pkt->reth),
			     fw_reth_rkey(pkt->reth), len);
}

/*
 * The 8 bytes are read and written by one DMA access each at an address
 * aligned in memory (fw_mr_atomic_dma), so the update is never torn.  A
 * VA that is not 8-byte aligned, or one a zero-based window maps to an
 * address that is not, is an invalid request, as IBTA makes a
 * misaligned atomic; no MR, window or right is a remote access error.
 */
static void fw_resp_atomic(struct ordma_fw *fw, struct fw_qp *qp,
			   const struct fw_roce_pkt *pkt, uint32_t psn)
{
	const struct fw_roce_atomic_eth *a = pkt->atomic_eth;
	uint64_t va = fw_atomic_eth_va(a), orig = 0, val, dma;
	uint8_t bytes[8];
	struct fw_tp_rd_res *res;
	struct fw_mr *mr;
	unsigned int i;
	int rc;

	if (!(qp->attr.access_flags & ORDMA_ACCESS_REMOTE_ATOMIC) || va % 8) {
		fw_resp_fatal(fw, qp, psn, FW_AETH_NAK_INVALID_REQ, 0,
			      ORDMA_EQE_QP_REQ_ERR, FW_TP_DROP_BAD_REQ);
		return;
	}
	if (!fw_resp_rkey(fw, qp, fw_atomic_eth_rkey(a), va, 8,
			  ORDMA_ACCESS_REMOTE_ATOMIC, &mr)) {
		fw_resp_fatal(fw, qp, psn, FW_AETH_NAK_REMOTE_ACCESS, 0,
			      ORDMA_EQE_QP_ACCESS_ERR, FW_TP_DROP_BAD_REQ);
		return;
	}
	rc = fw_mr_atomic_dma(fw, mr, va, &dma);
	if (rc == FW_MR_ERR_ALIGN) {
		fw_resp_fatal(fw, qp, psn, FW_AETH_NAK_INVALID_REQ, 0,
			      ORDMA_EQE_QP_REQ_ERR, FW_TP_DROP_BAD_REQ);
		return;
	}
	if (rc != FW_MR_OK || fw_dma_read(fw, dma, bytes, 8)) {
		fw_resp_fatal(fw, qp, psn, FW_AETH_NAK_REMOTE_ACCESS, 0,
			      ORDMA_EQE_QP_ACCESS_ERR, FW_TP_DROP_BAD_REQ);
		return;
	}
	for (i = 0; i < 8; i++)
		orig |= (uint64_t)bytes[i] << (8 * i);
	if (fw_bth_opcode(pkt->bth) == FW_ROCE_RC_COMPARE_SWAP)
		val = orig == fw_atomic_eth_compare(a) ?
		      fw_atomic_eth_swap_add(a) : orig;
	else
		val = orig + fw_atomic_eth_swap_add(a);
	for (i = 0; i < 8; i++)
		bytes[i] = (uint8_t)(val >> (8 * i));
	if (val != orig && fw_dma_write(fw, dma, bytes, 8)) {
		fw_resp_fatal(fw, qp, psn, FW_AETH_NAK_REMOTE_ACCESS, 0,
			      ORDMA_EQE_QP_ACCESS_ERR, FW_TP_DROP_BAD_REQ);
		return;
	}
	res = fw_resp_new_res(qp);
	res->atomic = true;
	res->psn = psn;
	res->npkts = 1;
	res->orig = orig;
	qp->expected_psn = fw_psn_add(psn, 1);
	qp->msn++;
	fw_resp_atomic_ack(fw, qp, psn, orig);
}

/* ------------------------------------------------------------------ */
/* FLUSH, ATOMIC WRITE                                                 */
/* ------------------------------------------------------------------ */

static struct fw_tp_rd_res *fw_resp_find_empty_res(struct fw_qp *qp,
						   uint32_t psn, uint8_t opc)
{
	unsigned int i;

	for (i = 0; i < FW_TP_MAX_RD_RES; i++) {
		struct fw_tp_rd_res *res = &qp->resp.res[i];

		if (res->valid && res->opcode == opc && res->psn == psn)
			return res;
	}
	return NULL;
}

/* Executed: remember it for duplicates and answer it (empty READ response) */
static void fw_resp_empty_done(struct ordma_fw *fw, struct fw_qp *qp,
			       uint32_t psn, uint8_t opc)
{
	struct fw_tp_rd_res *res = fw_resp_new_res(qp);

	/* atomic keeps READ replays from matching this resource */
	res->atomic = true;
	res->opcode = opc;
	res->psn = psn;
	res->npkts = 1;
	qp->expected_psn = fw_psn_add(psn, 1);
	qp->msn++;
	fw_resp_read_respond(fw, qp, psn, 0, 0, 0);
}

/* MR access a FLUSH of this placement type needs (QP and MR alike) */
static uint32_t fw_resp_flush_access(unsigned int placement)
{
	uint32_t access = 0;

	if (placement & FW_FETH_PLT_GLOBAL)
		access |= ORDMA_ACCESS_FLUSH_GLOBAL;
	if (placement & FW_FETH_PLT_PERSISTENT)
		access |= ORDMA_ACCESS_FLUSH_PERSISTENT;
	return access;
}

/*
 * FLUSH: every write this responder executed before it is globally
 * visible (and, for PERSISTENT, handed to the host memory system).  The
 * engine runs requests one at a time and each DMA write is complete
 * before the next request is taken, so nothing is pending here; the
 * device still reads one byte of the range, the PCIe way of making sure
 * posted writes ahead of it have landed.  The checks: placement type
 * GLOBAL and/or PERSISTENT, level RANGE or MR, the QP granted the
 * placement's FLUSH access, the rkey names an MR or a window of the PD
 * granting it and, at RANGE level, covering the range.
 */
static void fw_resp_flush(struct ordma_fw *fw, struct fw_qp *qp,
			  const struct fw_roce_pkt *pkt, uint32_t psn)
{
	unsigned int plt = fw_feth_placement(pkt->feth);
	unsigned int sel = fw_feth_level(pkt->feth);
	uint32_t need = fw_resp_flush_access(plt);
	uint64_t va = fw_reth_va(pkt->reth), len = fw_reth_dma_len(pkt->reth);
	uint32_t rkey = fw_reth_rkey(pkt->reth);
	struct fw_mr *mr;
	uint8_t byte;
	bool found;

	if (!need || (plt & ~(FW_FETH_PLT_GLOBAL | FW_FETH_PLT_PERSISTENT)) ||
	    sel > FW_FETH_SEL_MR ||
	    (qp->attr.access_flags & need) != need ||
	    (sel == FW_FETH_SEL_RANGE && len > FW_TP_MAX_MSG_SIZE)) {
		fw_resp_fatal(fw, qp, psn, FW_AETH_NAK_INVALID_REQ, 0,
			      ORDMA_EQE_QP_REQ_ERR, FW_TP_DROP_BAD_REQ);
		return;
	}
	if (sel == FW_FETH_SEL_MR)
		found = fw_mr_lookup_remote_whole(fw, rkey, qp->pdn, qp->qpn,
						  need, &mr, &va, &len) ==
			FW_MR_OK;
	else
		found = fw_resp_rkey(fw, qp, rkey, va, len, need, &mr);
	if (!found || (len && fw_mr_copy_from(fw, mr, va, &byte, 1))) {
		fw_resp_fatal(fw, qp, psn, FW_AETH_NAK_REMOTE_ACCESS, 0,
			      ORDMA_EQE_QP_ACCESS_ERR, FW_TP_DROP_BAD_REQ);
		return;
	}
	fw_resp_empty_done(fw, qp, psn, FW_ROCE_RC_FLUSH);
}

/*
 * ATOMIC WRITE: 8 bytes stored as they came, by one 8-byte DMA write at
 * an address 8-byte aligned in memory (never torn, never crossing a
 * page).  As rdma_rxe: the QP and the MR or window need REMOTE_WRITE; a
 * DMA length or payload other than 8 and a misaligned address (the VA,
 * or where a zero-based window maps it) are invalid requests.
 */
static void fw_resp_atomic_write(struct ordma_fw *fw, struct fw_qp *qp,
				 const struct fw_roce_pkt *pkt, uint32_t psn)
{
	uint64_t va = fw_reth_va(pkt->reth), dma;
	struct fw_mr *mr;
	int rc;

	if (!(qp->attr.access_flags & ORDMA_ACCESS_REMOTE_WRITE) ||
	    fw_reth_dma_len(pkt->reth) != FW_ROCE_ATOMIC_WRITE_LEN ||
	    pkt->payload_len != FW_ROCE_ATOMIC_WRITE_LEN) {
		fw_resp_fatal(fw, qp, psn, FW_AETH_NAK_INVALID_REQ, 0,
			      ORDMA_EQE_QP_REQ_ERR, FW_TP_DROP_BAD_REQ);
		return;
	}
	if (!fw_resp_rkey(fw, qp, fw_reth_rkey(pkt->reth), va,
			  FW_ROCE_ATOMIC_WRITE_LEN, ORDMA_ACCESS_REMOTE_WRITE,
			  &mr)) {
		fw_resp_fatal(fw, qp, psn, FW_AETH_NAK_REMOTE_ACCESS, 0,
			      ORDMA_EQE_QP_ACCESS_ERR, FW_TP_DROP_BAD_REQ);
		return;
	}
	rc = va % FW_ROCE_ATOMIC_WRITE_LEN ? FW_MR_ERR_ALIGN :
	     fw_mr_atomic_dma(fw, mr, va, &dma);
	if (rc == FW_MR_ERR_ALIGN) {
		fw_resp_fatal(fw, qp, psn, FW_AETH_NAK_INVALID_REQ, 0,
			      ORDMA_EQE_QP_REQ_ERR, FW_TP_DROP_BAD_REQ);
		return;
	}
	if (rc != FW_MR_OK ||
	    fw_dma_write(fw, dma, pkt->payload, FW_ROCE_ATOMIC_WRITE_LEN)) {
		fw_resp_fatal(fw, qp, psn, FW_AETH_NAK_REMOTE_ACCESS, 0,
			      ORDMA_EQE_QP_ACCESS_ERR, FW_TP_DROP_BAD_REQ);
		return;
	}
	fw_resp_empty_done(fw, qp, psn, FW_ROCE_RC_ATOMIC_WRITE);
}

/* ------------------------------------------------------------------ */
/* SEND, WRITE                                                         */
/* ------------------------------------------------------------------ */

static void fw_resp_done_packet(struct ordma_fw *fw, struct fw_qp *qp,
				const struct fw_roce_pkt *pkt, uint32_t psn)
{
	qp->expected_psn = fw_psn_add(psn, 1);
	if (fw_bth_ack_req(pkt->bth) || (pkt->op->flags & FW_ROCE_LAST) ||
	    ++qp->resp.unacked >= FW_TP_ACK_EVERY)
		fw_resp_send_ack(fw, qp, psn, fw_resp_credits());
}

static void fw_resp_send(struct ordma_fw *fw, struct fw_qp *qp,
			 const struct fw_roce_pkt *pkt, uint32_t psn)
{
	struct fw_tp_resp *r = &qp->resp;
	uint16_t flags = pkt->op->flags;
	uint32_t len = (uint32_t)pkt->payload_len;
	bool last = flags & FW_ROCE_LAST;
	struct ordma_cqe cqe;
	unsigned int nsge;
	uint8_t st;

	if ((!last && len != fw_tp_qp_mtu(fw, qp)) ||
	    len > fw_tp_qp_mtu(fw, qp)) {
		fw_resp_fatal(fw, qp, psn, FW_AETH_NAK_INVALID_REQ,
			      ORDMA_CQE_LOC_LEN_ERR, ORDMA_EQE_QP_REQ_ERR,
			      FW_TP_DROP_BAD_REQ);
		return;
	}
	if ((flags & FW_ROCE_FIRST) && !fw_resp_take_recv(fw, qp)) {
		fw_resp_rnr(fw, qp, psn);
		return;
	}
	if (!fw_resp_recv_sges(fw, qp, &nsge)) {
		fw_resp_fatal(fw, qp, psn, FW_AETH_NAK_REMOTE_OP,
			      ORDMA_CQE_LOC_QP_OP_ERR, ORDMA_EQE_QP_REQ_ERR,
			      FW_TP_DROP_BAD_REQ);
		return;
	}
	st = fw_tp_scatter(fw, qp, fw_resp_wqe(qp)->sge, nsge, r->recv_off,
			   pkt->payload, len);
	if (st == ORDMA_CQE_LOC_LEN_ERR) {
		fw_resp_fatal(fw, qp, psn, FW_AETH_NAK_INVALID_REQ,
			      ORDMA_CQE_LOC_LEN_ERR, ORDMA_EQE_QP_REQ_ERR,
			      FW_TP_DROP_BAD_REQ);
		return;
	}
	if (st != ORDMA_CQE_SUCCESS) {
		fw_resp_fatal(fw, qp, psn, FW_AETH_NAK_REMOTE_OP, st,
			      ORDMA_EQE_QP_ACCESS_ERR, FW_TP_DROP_BAD_REQ);
		return;
	}
	r->recv_off += len;
	if (!last) {
		r->seq = FW_TP_SEQ_SEND;
		fw_resp_done_packet(fw, qp, pkt, psn);
		return;
	}
	memset(&cqe, 0, sizeof(cqe));
	cqe.opcode = ORDMA_CQE_OP_RECV;
	cqe.byte_len = cpu_to_le32(r->recv_off);
	if (pkt->immdt) {
		cqe.flags |= cpu_to_le16(ORDMA_CQE_F_IMM);
		fw_wire_put32((uint8_t *)&cqe.imm_inv, fw_immdt_get(pkt->immdt));
	}
	if (pkt->ieth) {
		uint32_t rkey = fw_ieth_rkey(pkt->ieth);

		if (fw_rkey_invalidate(fw, rkey, qp->pdn, qp->qpn, true) !=
		    FW_MR_OK) {
			fw_resp_fatal(fw, qp, psn, FW_AETH_NAK_INVALID_REQ,
				      ORDMA_CQE_LOC_PROT_ERR,
				      ORDMA_EQE_QP_ACCESS_ERR,
				      FW_TP_DROP_BAD_REQ);
			return;
		}
		cqe.flags |= cpu_to_le16(ORDMA_CQE_F_INV);
		cqe.imm_inv = cpu_to_le32(rkey);
	}
	r->seq = FW_TP_SEQ_NONE;
	qp->msn++;
	fw_resp_complete_recv(fw, qp, &cqe, fw_bth_se(pkt->bth));
	fw_resp_done_packet(fw, qp, pkt, psn);
}

static bool fw_resp_write_check(struct ordma_fw *fw, struct fw_qp *qp,
				uint32_t len)
{
	struct fw_mr *mr;

	return !len || fw_resp_rkey(fw, qp, qp->resp.write_rkey,
				    qp->resp.write_va, len,
				    ORDMA_ACCESS_REMOTE_WRITE, &mr);
}

static void fw_resp_write(struct ordma_fw *fw, struct fw_qp *qp,
			  const struct fw_roce_pkt *pkt, uint32_t psn)
{
	struct fw_tp_resp *r = &qp->resp;
	uint16_t flags = pkt->op->flags;
	uint32_t len = (uint32_t)pkt->payload_len, mtu = fw_tp_qp_mtu(fw, qp);
	bool first = flags & FW_ROCE_FIRST, last = flags & FW_ROCE_LAST;
	struct ordma_cqe cqe;
	struct fw_mr *mr;

	if (first) {
		qp->counters.rx_write_requests++;
		if (!(qp->attr.access_flags & ORDMA_ACCESS_REMOTE_WRITE) ||
		    fw_reth_dma_len(pkt->reth) > FW_TP_MAX_MSG_SIZE) {
			fw_resp_fatal(fw, qp, psn, FW_AETH_NAK_INVALID_REQ, 0,
				      ORDMA_EQE_QP_REQ_ERR, FW_TP_DROP_BAD_REQ);
			return;
		}
		r->write_va = fw_reth_va(pkt->reth);
		r->write_rkey = fw_reth_rkey(pkt->reth);
		r->write_len = fw_reth_dma_len(pkt->reth);
		r->write_left = r->write_len;
		if (r->write_len) {
			if (!fw_resp_rkey(fw, qp, r->write_rkey, r->write_va,
					  r->write_len,
					  ORDMA_ACCESS_REMOTE_WRITE, &mr)) {
				fw_resp_fatal(fw, qp, psn,
					      FW_AETH_NAK_REMOTE_ACCESS, 0,
					      ORDMA_EQE_QP_ACCESS_ERR,
					      FW_TP_DROP_BAD_REQ);
				return;
			}
		}
	}
	if ((!last && len != mtu) || len > mtu || len > r->write_left ||
	    (last && len != r->write_left)) {
		fw_resp_fatal(fw, qp, psn, FW_AETH_NAK_INVALID_REQ, 0,
			      ORDMA_EQE_QP_REQ_ERR, FW_TP_DROP_BAD_REQ);
		return;
	}
	if (!fw_resp_write_check(fw, qp, len)) {
		fw_resp_fatal(fw, qp, psn, FW_AETH_NAK_REMOTE_ACCESS, 0,
			      ORDMA_EQE_QP_ACCESS_ERR, FW_TP_DROP_BAD_REQ);
		return;
	}
	/* WRITE with immediate consumes a receive WQE: none -> RNR */
	if (last && pkt->immdt && !fw_resp_take_recv(fw, qp)) {
		if (first)
			r->write_left = 0;
		fw_resp_rnr(fw, qp, psn);
		return;
	}
	if (len) {
		if (!fw_resp_rkey(fw, qp, r->write_rkey, r->write_va, len,
				  ORDMA_ACCESS_REMOTE_WRITE, &mr) ||
		    fw_mr_copy_to(fw, mr, r->write_va, pkt->payload, len)) {
			fw_resp_fatal(fw, qp, psn, FW_AETH_NAK_REMOTE_ACCESS,
				      ORDMA_CQE_REM_ACCESS_ERR,
				      ORDMA_EQE_QP_ACCESS_ERR,
				      FW_TP_DROP_BAD_REQ);
			return;
		}
	}
	r->write_va += len;
	r->write_left -= len;
	if (!last) {
		r->seq = FW_TP_SEQ_WRITE;
		fw_resp_done_packet(fw, qp, pkt, psn);
		return;
	}
	r->seq = FW_TP_SEQ_NONE;
	qp->msn++;
	if (pkt->immdt) {
		memset(&cqe, 0, sizeof(cqe));
		cqe.opcode = ORDMA_CQE_OP_RECV_RDMA_IMM;
		cqe.byte_len = cpu_to_le32(r->write_len);
		cqe.flags = cpu_to_le16(ORDMA_CQE_F_IMM);
		fw_wire_put32((uint8_t *)&cqe.imm_inv, fw_immdt_get(pkt->immdt));
		fw_resp_complete_recv(fw, qp, &cqe, fw_bth_se(pkt->bth));
	}
	fw_resp_done_packet(fw, qp, pkt, psn);
}

/* ------------------------------------------------------------------ */
/* Dispatch                                                            */
/* ------------------------------------------------------------------ */

static void fw_resp_duplicate(struct ordma_fw *fw, struct fw_qp *qp,
			      const struct fw_roce_pkt *pkt, uint32_t psn)
{
	uint8_t opc = fw_bth_opcode(pkt->bth);
	struct fw_tp_rd_res *res;

	qp->counters.duplicate_requests++;
	switch (opc) {
	case FW_ROCE_RC_RDMA_READ_REQUEST:
		res = fw_resp_find_res(qp, psn, false);
		if (!res || !fw_resp_read_check(fw, qp, pkt) ||
		    fw_reth_dma_len(pkt->reth) > FW_TP_MAX_MSG_SIZE) {
			fw_tp_count_rx_drop(fw, FW_TP_DROP_DUP);
			return;
		}
		/* The requester went back to this READ: responses still
		 * queued for it or later ones are stale.
		 */
		qp->resp.read_head = qp->resp.read_tail = 0;
		qp->resp.read_deadline = 0;
		fw_resp_read_respond(fw, qp, psn, fw_reth_va(pkt->reth),
				     fw_reth_rkey(pkt->reth),
				     fw_reth_dma_len(pkt->reth));
		return;
	case FW_ROCE_RC_COMPARE_SWAP:
	case FW_ROCE_RC_FETCH_ADD:
		res = fw_resp_find_res(qp, psn, true);
		if (!res || res->opcode) {
			fw_tp_count_rx_drop(fw, FW_TP_DROP_DUP);
			return;
		}
		fw_resp_atomic_ack(fw, qp, psn, res->orig);
		return;
	case FW_ROCE_RC_FLUSH:
	case FW_ROCE_RC_ATOMIC_WRITE:
		/* answered again, not executed again (IBTA 1.5 oA19-14) */
		if (!fw_resp_find_empty_res(qp, psn, opc)) {
			fw_tp_count_rx_drop(fw, FW_TP_DROP_DUP);
			return;
		}
		fw_resp_read_respond(fw, qp, psn, 0, 0, 0);
		return;
	default:
		/*
		 * Executed already: acknowledge what has been received, as
		 * often as new packets are; one ACK per packet of a resent
		 * window would queue up before the requester.
		 */
		if (fw_bth_ack_req(pkt->bth) || (pkt->op->flags & FW_ROCE_LAST) ||
		    ++qp->resp.unacked >= FW_TP_ACK_EVERY)
			fw_resp_send_ack(fw, qp,
					 fw_psn_add(qp->expected_psn,
						    FW_ROCE_PSN_MASK),
					 fw_resp_credits());
		return;
	}
}

static bool fw_resp_seq_ok(const struct fw_qp *qp, uint8_t opc,
			   uint16_t flags)
{
	switch (qp->resp.seq) {
	case FW_TP_SEQ_SEND:
		return opc == FW_ROCE_RC_SEND_MIDDLE ||
		       opc == FW_ROCE_RC_SEND_LAST ||
		       opc == FW_ROCE_RC_SEND_LAST_IMM ||
		       opc == FW_ROCE_RC_SEND_LAST_INV;
	case FW_TP_SEQ_WRITE:
		return opc == FW_ROCE_RC_RDMA_WRITE_MIDDLE ||
		       opc == FW_ROCE_RC_RDMA_WRITE_LAST ||
		       opc == FW_ROCE_RC_RDMA_WRITE_LAST_IMM;
	default:
		return flags & FW_ROCE_FIRST;
	}
}

void fw_resp_rx_rc(struct ordma_fw *fw, struct fw_qp *qp,
		   const struct fw_roce_pkt *pkt)
{
	uint32_t psn = fw_bth_psn(pkt->bth);
	uint32_t d = fw_psn_diff(psn, qp->expected_psn);
	uint8_t opc = fw_bth_opcode(pkt->bth);

	if (d && d < FW_TP_PSN_HALF) {
		qp->counters.seq_errors++;
		fw_tp_count_rx_drop(fw, FW_TP_DROP_SEQ);
		if (!qp->resp.nak_seq_sent) {
			qp->resp.nak_seq_sent = true;
			fw_resp_send_ack(fw, qp, qp->expected_psn,
					 fw_aeth_nak(FW_AETH_NAK_PSN_SEQ_ERR));
		}
		return;
	}
	if (d) {
		fw_resp_duplicate(fw, qp, pkt, psn);
		return;
	}
	qp->resp.nak_seq_sent = false;
	if (!fw_resp_seq_ok(qp, opc, pkt->op->flags)) {
		fw_resp_fatal(fw, qp, psn, FW_AETH_NAK_INVALID_REQ,
			      ORDMA_CQE_REM_INV_REQ_ERR, ORDMA_EQE_QP_REQ_ERR,
			      FW_TP_DROP_OPCODE_SEQ);
		return;
	}
	switch (opc) {
	case FW_ROCE_RC_SEND_FIRST:
	case FW_ROCE_RC_SEND_MIDDLE:
	case FW_ROCE_RC_SEND_LAST:
	case FW_ROCE_RC_SEND_LAST_IMM:
	case FW_ROCE_RC_SEND_ONLY:
	case FW_ROCE_RC_SEND_ONLY_IMM:
	case FW_ROCE_RC_SEND_LAST_INV:
	case FW_ROCE_RC_SEND_ONLY_INV:
		fw_resp_send(fw, qp, pkt, psn);
		return;
	case FW_ROCE_RC_RDMA_READ_REQUEST:
		qp->counters.rx_read_requests++;
		fw_resp_read(fw, qp, pkt, psn);
		return;
	case FW_ROCE_RC_COMPARE_SWAP:
	case FW_ROCE_RC_FETCH_ADD:
		qp->counters.rx_atomic_requests++;
		fw_resp_atomic(fw, qp, pkt, psn);
		return;
	case FW_ROCE_RC_FLUSH:
		fw_resp_flush(fw, qp, pkt, psn);
		return;
	case FW_ROCE_RC_ATOMIC_WRITE:
		fw_resp_atomic_write(fw, qp, pkt, psn);
		return;
	default:
		fw_resp_write(fw, qp, pkt, psn);
		return;
	}
}

void fw_resp_rx_ud(struct ordma_fw *fw, struct fw_qp *qp,
		   const struct fw_roce_pkt *pkt)
{
	uint32_t len = (uint32_t)pkt->payload_len;
	uint8_t grh[FW_TP_GRH_LEN];
	struct ordma_cqe cqe;
	unsigned int nsge;
	uint8_t st;

	if (fw_deth_qkey(pkt->deth) != qp->attr.qkey) {
		fw_tp_count_rx_drop(fw, FW_TP_DROP_QKEY);
		return;
	}
	if (len > fw_port_active_ib_mtu(fw)) {
		fw_tp_count_rx_drop(fw, FW_TP_DROP_UD_LEN);
		return;
	}
	if (!fw_resp_take_recv(fw, qp)) {
		fw_tp_count_rx_drop(fw, FW_TP_DROP_NO_RECV);
		return;
	}
	/* the GRH area: the IP header (RoCEv2), the GRH if the packet had
	 * one (InfiniBand), else left as zeros
	 */
	memset(grh, 0, sizeof(grh));
	if (pkt->lrh && pkt->grh)
		memcpy(grh, pkt->grh, FW_IB_GRH_LEN);
	else if (pkt->ipv6)
		memcpy(grh, pkt->ip, FW_ROCE_IPV6_HLEN);
	else if (!pkt->lrh)
		memcpy(grh + 20, pkt->ip, FW_ROCE_IPV4_HLEN);
	memset(&cqe, 0, sizeof(cqe));
	cqe.opcode = ORDMA_CQE_OP_RECV;
	if (!fw_resp_recv_sges(fw, qp, &nsge)) {
		st = ORDMA_CQE_LOC_QP_OP_ERR;
	} else {
		st = fw_tp_scatter(fw, qp, fw_resp_wqe(qp)->sge, nsge, 0, grh,
				   FW_TP_GRH_LEN);
		if (st == ORDMA_CQE_SUCCESS)
			st = fw_tp_scatter(fw, qp, fw_resp_wqe(qp)->sge, nsge,
					   FW_TP_GRH_LEN, pkt->payload, len);
	}
	cqe.status = st;
	if (st == ORDMA_CQE_SUCCESS) {
		cqe.byte_len = cpu_to_le32(FW_TP_GRH_LEN + len);
		cqe.src_qp = cpu_to_le32(fw_deth_src_qp(pkt->deth));
		if (pkt->lrh) {
			const struct fw_ib_lrh *lrh =
				(const struct fw_ib_lrh *)pkt->lrh;

			cqe.slid = cpu_to_le16(fw_lrh_slid(lrh));
			cqe.sl = (uint8_t)fw_lrh_sl(lrh);
			cqe.dlid_path_bits = (uint8_t)(fw_lrh_dlid(lrh) &
						       fw_port_ib_lmc_mask(fw));
			cqe.flags = cpu_to_le16(pkt->grh ? ORDMA_CQE_F_GRH : 0);
		} else {
			cqe.flags = cpu_to_le16(ORDMA_CQE_F_GRH |
						(pkt->ipv6 ? 0 :
						 ORDMA_CQE_F_IPV4));
		}
		if (pkt->immdt) {
			cqe.flags |= cpu_to_le16(ORDMA_CQE_F_IMM);
			fw_wire_put32((uint8_t *)&cqe.imm_inv,
				      fw_immdt_get(pkt->immdt));
		}
	}
	fw_resp_complete_recv(fw, qp, &cqe, fw_bth_se(pkt->bth));
}

/* ------------------------------------------------------------------ */
/* UC                                                                  */
/* ------------------------------------------------------------------ */

/*
 * The message in progress is given up (IBTA class D/E responder errors,
 * rxe does the same): a receive WQE it was filling is kept for the next
 * message if it came from the RQ; one taken from an SRQ cannot be given
 * back and completes with srq_status.
 */
static void fw_resp_uc_abort(struct ordma_fw *fw, struct fw_qp *qp,
			     uint8_t srq_status)
{
	struct fw_tp_resp *r = &qp->resp;

	r->seq = FW_TP_SEQ_NONE;
	r->write_left = 0;
	if (!r->recv_valid)
		return;
	if (qp->srqn != ORDMA_NO_SRQ)
		fw_resp_recv_error(fw, qp, srq_status);
	else
		r->recv_off = 0;
}

/* Drops this packet and its message; nothing more is taken up to the
 * next First/Only packet.
 */
static void fw_resp_uc_drop(struct ordma_fw *fw, struct fw_qp *qp,
			    enum fw_tp_drop why, uint8_t srq_status)
{
	fw_tp_count_rx_drop(fw, why);
	fw_resp_uc_abort(fw, qp, srq_status);
	qp->resp.uc_drop = true;
}

/* The receive WQE itself is unusable: a local error, the QP enters ERR. */
static void fw_resp_uc_local_error(struct ordma_fw *fw, struct fw_qp *qp,
				   uint8_t status)
{
	fw_tp_count_rx_drop(fw, FW_TP_DROP_BAD_REQ);
	fw_resp_recv_error(fw, qp, status);
	qp->resp.seq = FW_TP_SEQ_NONE;
	fw_qp_set_error(fw, qp, status == ORDMA_CQE_LOC_PROT_ERR ?
				ORDMA_EQE_QP_ACCESS_ERR : ORDMA_EQE_QP_REQ_ERR);
}

/* A First/Only SEND or WRITE with immediate needs a receive WQE: the
 * one a dropped message left, or the next posted one.
 */
static bool fw_resp_uc_recv(struct ordma_fw *fw, struct fw_qp *qp)
{
	return qp->resp.recv_valid || fw_resp_take_recv(fw, qp);
}

static void fw_resp_uc_send(struct ordma_fw *fw, struct fw_qp *qp,
			    const struct fw_roce_pkt *pkt)
{
	struct fw_tp_resp *r = &qp->resp;
	uint16_t flags = pkt->op->flags;
	uint32_t len = (uint32_t)pkt->payload_len, mtu = fw_tp_qp_mtu(fw, qp);
	bool last = flags & FW_ROCE_LAST;
	struct ordma_cqe cqe;
	unsigned int nsge;
	uint8_t st;

	if ((!last && len != mtu) || len > mtu) {
		fw_resp_uc_drop(fw, qp, FW_TP_DROP_BAD_REQ,
				ORDMA_CQE_REM_INV_REQ_ERR);
		return;
	}
	if ((flags & FW_ROCE_FIRST) && !fw_resp_uc_recv(fw, qp)) {
		fw_resp_uc_drop(fw, qp, FW_TP_DROP_NO_RECV, 0);
		return;
	}
	if (!fw_resp_recv_sges(fw, qp, &nsge)) {
		fw_resp_uc_local_error(fw, qp, ORDMA_CQE_LOC_QP_OP_ERR);
		return;
	}
	st = fw_tp_scatter(fw, qp, fw_resp_wqe(qp)->sge, nsge, r->recv_off,
			   pkt->payload, len);
	if (st == ORDMA_CQE_LOC_LEN_ERR) {
		/* longer than the receive buffer: the message is dropped */
		fw_resp_uc_drop(fw, qp, FW_TP_DROP_BAD_REQ,
				ORDMA_CQE_REM_INV_REQ_ERR);
		return;
	}
	if (st != ORDMA_CQE_SUCCESS) {
		fw_resp_uc_local_error(fw, qp, st);
		return;
	}
	r->recv_off += len;
	if (!last) {
		r->seq = FW_TP_SEQ_SEND;
		return;
	}
	memset(&cqe, 0, sizeof(cqe));
	cqe.opcode = ORDMA_CQE_OP_RECV;
	cqe.byte_len = cpu_to_le32(r->recv_off);
	if (pkt->immdt) {
		cqe.flags |= cpu_to_le16(ORDMA_CQE_F_IMM);
		fw_wire_put32((uint8_t *)&cqe.imm_inv, fw_immdt_get(pkt->immdt));
	}
	r->seq = FW_TP_SEQ_NONE;
	qp->msn++;
	fw_resp_complete_recv(fw, qp, &cqe, fw_bth_se(pkt->bth));
}

static void fw_resp_uc_write(struct ordma_fw *fw, struct fw_qp *qp,
			     const struct fw_roce_pkt *pkt)
{
	struct fw_tp_resp *r = &qp->resp;
	uint16_t flags = pkt->op->flags;
	uint32_t len = (uint32_t)pkt->payload_len, mtu = fw_tp_qp_mtu(fw, qp);
	bool first = flags & FW_ROCE_FIRST, last = flags & FW_ROCE_LAST;
	struct ordma_cqe cqe;
	struct fw_mr *mr;

	if (first) {
		qp->counters.rx_write_requests++;
		if (!(qp->attr.access_flags & ORDMA_ACCESS_REMOTE_WRITE) ||
		    fw_reth_dma_len(pkt->reth) > FW_TP_MAX_MSG_SIZE) {
			fw_resp_uc_drop(fw, qp, FW_TP_DROP_BAD_REQ,
					ORDMA_CQE_REM_INV_REQ_ERR);
			return;
		}
		r->write_va = fw_reth_va(pkt->reth);
		r->write_rkey = fw_reth_rkey(pkt->reth);
		r->write_len = fw_reth_dma_len(pkt->reth);
		r->write_left = r->write_len;
		if (r->write_len &&
		    !fw_resp_rkey(fw, qp, r->write_rkey, r->write_va,
				  r->write_len, ORDMA_ACCESS_REMOTE_WRITE,
				  &mr)) {
			fw_resp_uc_drop(fw, qp, FW_TP_DROP_BAD_REQ,
					ORDMA_CQE_REM_ACCESS_ERR);
			return;
		}
	}
	if ((!last && len != mtu) || len > mtu || len > r->write_left ||
	    (last && len != r->write_left)) {
		fw_resp_uc_drop(fw, qp, FW_TP_DROP_BAD_REQ,
				ORDMA_CQE_REM_INV_REQ_ERR);
		return;
	}
	/* WRITE with immediate consumes a receive WQE: none -> dropped */
	if (last && pkt->immdt && !fw_resp_uc_recv(fw, qp)) {
		fw_resp_uc_drop(fw, qp, FW_TP_DROP_NO_RECV, 0);
		return;
	}
	/* the MR may have gone since the first packet */
	if (len &&
	    (!fw_resp_rkey(fw, qp, r->write_rkey, r->write_va, len,
			   ORDMA_ACCESS_REMOTE_WRITE, &mr) ||
	     fw_mr_copy_to(fw, mr, r->write_va, pkt->payload, len))) {
		fw_resp_uc_drop(fw, qp, FW_TP_DROP_BAD_REQ,
				ORDMA_CQE_REM_ACCESS_ERR);
		return;
	}
	r->write_va += len;
	r->write_left -= len;
	if (!last) {
		r->seq = FW_TP_SEQ_WRITE;
		return;
	}
	r->seq = FW_TP_SEQ_NONE;
	qp->msn++;
	if (pkt->immdt) {
		memset(&cqe, 0, sizeof(cqe));
		cqe.opcode = ORDMA_CQE_OP_RECV_RDMA_IMM;
		cqe.byte_len = cpu_to_le32(r->write_len);
		cqe.flags = cpu_to_le16(ORDMA_CQE_F_IMM);
		fw_wire_put32((uint8_t *)&cqe.imm_inv, fw_immdt_get(pkt->immdt));
		fw_resp_complete_recv(fw, qp, &cqe, fw_bth_se(pkt->bth));
	}
}

/*
 * UC receive (IBTA 9.7.5.1, 9.9.4).  A PSN other than the expected one
 * means packets were lost: the message in progress is abandoned and
 * everything up to the next First/Only packet is discarded; that packet
 * is taken whatever its PSN and the expected PSN follows it.  An opcode
 * out of sequence drops the packet and its message the same way.
 */
void fw_resp_rx_uc(struct ordma_fw *fw, struct fw_qp *qp,
		   const struct fw_roce_pkt *pkt)
{
	struct fw_tp_resp *r = &qp->resp;
	uint32_t psn = fw_bth_psn(pkt->bth);
	/* UC SEND/WRITE opcodes are the RC ones in the UC transport */
	uint8_t opc = fw_bth_opcode(pkt->bth) & FW_ROCE_OPCODE_OP_MASK;
	uint16_t flags = pkt->op->flags;

	if (psn != qp->expected_psn && !r->uc_drop) {
		qp->counters.seq_errors++;
		fw_resp_uc_abort(fw, qp, ORDMA_CQE_REM_INV_REQ_ERR);
		r->uc_drop = true;
	}
	qp->expected_psn = fw_psn_add(psn, 1);
	if (r->uc_drop) {
		if (!(flags & FW_ROCE_FIRST)) {
			fw_tp_count_rx_drop(fw, FW_TP_DROP_SEQ);
			return;
		}
		r->uc_drop = false;
	}
	if (!fw_resp_seq_ok(qp, opc, flags)) {
		fw_resp_uc_drop(fw, qp, FW_TP_DROP_OPCODE_SEQ,
				ORDMA_CQE_REM_INV_REQ_ERR);
		return;
	}
	switch (opc) {
	case FW_ROCE_RC_SEND_FIRST:
	case FW_ROCE_RC_SEND_MIDDLE:
	case FW_ROCE_RC_SEND_LAST:
	case FW_ROCE_RC_SEND_LAST_IMM:
	case FW_ROCE_RC_SEND_ONLY:
	case FW_ROCE_RC_SEND_ONLY_IMM:
		fw_resp_uc_send(fw, qp, pkt);
		return;
	default:
		fw_resp_uc_write(fw, qp, pkt);
		return;
	}
}
