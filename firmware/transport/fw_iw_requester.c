// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA firmware iWARP requester: an iWARP QP's send WQEs as RDMAP
 * messages (RFC 5040) in DDP segments (RFC 5041), one per FPDU of its
 * TCP connection (tcp/fw_iw_conn.h).
 *
 * WQEs are started, checked and completed as on RoCE (fw_requester.c);
 * TCP makes the stream reliable and ordered, so nothing is retransmitted
 * here and nothing waits for an acknowledgement: a Send or RDMA Write is
 * done when TCP has taken its last FPDU, an RDMA Read when the last Read
 * Response for it was placed.  Segments are as large as one TCP segment
 * carries (MULPDU); a WQE that finds TCP's send buffer full continues
 * where it stopped when TCP frees room.
 */
#include <string.h>

#include "objects/fw_qp.h"
#include "objects/fw_verbs.h"
#include "platform/fw_platform.h"
#include "tcp/fw_iw_conn.h"
#include "transport/fw_transport.h"

enum fw_iw_tx {
	FW_IW_TX_DONE,		/* the WQE is on the wire, whole */
	FW_IW_TX_BLOCKED,	/* TCP has no room: try again when it has */
	FW_IW_TX_FAILED,	/* the WQE failed (fw_req_fail) */
};

static uint8_t fw_iw_send_rdmap_op(const struct fw_tp_swqe *e)
{
	bool se = le32_to_cpu(e->d.hdr.ctrl.ctrl) & ORDMA_WQE_SOLICITED;

	if (e->opcode == ORDMA_WQE_SEND_INV)
		return se ? FW_RDMAP_SEND_SE_INV : FW_RDMAP_SEND_INV;
	return se ? FW_RDMAP_SEND_SE : FW_RDMAP_SEND;
}

/* The segments of a Send or RDMA Write from tx_off on */
static enum fw_iw_tx fw_iw_tx_data(struct ordma_fw *fw, struct fw_qp *qp,
				   struct fw_tp_swqe *e)
{
	bool write = e->opcode == ORDMA_WQE_RDMA_WRITE;
	const struct ordma_send_wqe *w = &e->d.hdr;
	struct fw_tp_payload pl;
	struct fw_ddp_hdr h;

	fw_req_payload(&e->d, &pl);
	do {
		size_t mulpdu = fw_iw_tx_mulpdu(fw, qp);
		uint8_t *seg = fw_iw_tx_buf(fw);
		uint32_t off = qp->iw.tx_off, chunk;
		size_t hlen;
		uint8_t st;
		int rc;

		if (!seg || mulpdu <= FW_DDP_UNTAGGED_HLEN)
			return FW_IW_TX_BLOCKED;
		memset(&h, 0, sizeof(h));
		if (write) {
			h.tagged = true;
			h.opcode = FW_RDMAP_WRITE;
			h.stag = le32_to_cpu(w->rdma.rkey);
			h.to = le64_to_cpu(w->rdma.remote_addr) + off;
		} else {
			h.opcode = fw_iw_send_rdmap_op(e);
			if (e->opcode == ORDMA_WQE_SEND_INV)
				h.stag = le32_to_cpu(w->ctrl.imm_inv);
			h.qn = FW_RDMAP_QN_SEND;
			h.msn = qp->iw.tx_msn[0];
			h.mo = off;
		}
		chunk = (uint32_t)(mulpdu - (write ? FW_DDP_TAGGED_HLEN :
					       FW_DDP_UNTAGGED_HLEN));
		if (chunk > e->length - off)
			chunk = e->length - off;
		h.last = off + chunk == e->length;
		hlen = fw_ddp_build(seg, &h);
		if (pl.sges) {
			st = fw_tp_gather(fw, qp, pl.sges, pl.num_sge, off,
					  seg + hlen, chunk);
			if (st != ORDMA_CQE_SUCCESS) {
				/* the memory went since the WQE started */
				fw_req_fail(qp, e, st);
				return FW_IW_TX_FAILED;
			}
		} else if (chunk) {
			memcpy(seg + hlen, (const uint8_t *)pl.data + off,
			       chunk);
		}
		rc = fw_iw_tx_fpdu(fw, qp, hlen + chunk);
		if (rc)
			return FW_IW_TX_BLOCKED;
		qp->counters.tx_packets++;
		qp->iw.tx_off = off + chunk;
	} while (qp->iw.tx_off < e->length);
	if (!write)
		qp->iw.tx_msn[0]++;
	e->done = true;
	e->status = ORDMA_CQE_SUCCESS;
	return FW_IW_TX_DONE;
}

/* An RDMA Read Request: the sink is the WQE's one SGE */
static enum fw_iw_tx fw_iw_tx_read(struct ordma_fw *fw, struct fw_qp *qp,
				   struct fw_tp_swqe *e)
{
	const struct ordma_send_wqe *w = &e->d.hdr;
	uint8_t *seg = fw_iw_tx_buf(fw);
	struct fw_rdmap_rreq rr = {
		.sink_stag = le32_to_cpu(e->d.u.sge[0].lkey),
		.sink_to = le64_to_cpu(e->d.u.sge[0].addr),
		.size = e->length,
		.src_stag = le32_to_cpu(w->rdma.rkey),
		.src_to = le64_to_cpu(w->rdma.remote_addr),
	};
	struct fw_ddp_hdr h = {
		.last = true,
		.opcode = FW_RDMAP_READ_REQ,
		.qn = FW_RDMAP_QN_READ_REQ,
		.msn = qp->iw.tx_msn[1],
	};
	size_t hlen;

	if (!seg || fw_iw_tx_mulpdu(fw, qp) <
	    FW_DDP_UNTAGGED_HLEN + FW_RDMAP_RREQ_LEN)
		return FW_IW_TX_BLOCKED;
	hlen = fw_ddp_build(seg, &h);
	fw_rdmap_rreq_put(seg + hlen, &rr);
	if (fw_iw_tx_fpdu(fw, qp, hlen + FW_RDMAP_RREQ_LEN))
		return FW_IW_TX_BLOCKED;
	qp->counters.tx_packets++;
	qp->iw.tx_msn[1]++;
	/* done when its responses are placed */
	e->rcvd = 0;
	return FW_IW_TX_DONE;
}

/*
 * Started WQEs go out in order, then more are started; false if the
 * requester must wait (TCP full, nothing may start, the QP failed).
 */
static bool fw_iw_req_pump(struct ordma_fw *fw, struct fw_qp *qp)
{
	struct fw_tp_req *r = &qp->req;

	for (;;) {
		struct fw_tp_swqe *e;
		enum fw_iw_tx tx;

		if (r->cur == qp->sq.next) {
			if (!fw_req_start(fw, qp))
				return false;
			continue;
		}
		e = fw_req_entry(qp, r->cur);
		if (e->done) {
			r->cur++;
			continue;
		}
		if (e->opcode == ORDMA_WQE_RDMA_READ)
			tx = fw_iw_tx_read(fw, qp, e);
		else
			tx = fw_iw_tx_data(fw, qp, e);
		if (tx == FW_IW_TX_BLOCKED)
			return false;
		r->cur++;
		qp->iw.tx_off = 0;
		if (tx == FW_IW_TX_FAILED)
			return false;
	}
}

void fw_iw_req_progress(struct ordma_fw *fw, struct fw_qp *qp)
{
	struct fw_wq *sq = &qp->sq;

	fw_trace_set_qp(fw, qp->qpn);
	/* completing frees started-WQE slots: go on while it does */
	for (;;) {
		uint32_t ci = sq->ci;

		if (qp->state != ORDMA_QPS_RTS && qp->state != ORDMA_QPS_SQD)
			return;
		if (!fw_iw_resp_send_reads(fw, qp))
			return;
		fw_iw_req_pump(fw, qp);
		if (!fw_req_complete_walk(fw, qp) || sq->ci == ci ||
		    sq->next == sq->pi)
			return;
	}
}

/* The oldest started READ still waiting for its responses */
static struct fw_tp_swqe *fw_iw_req_read_head(struct fw_qp *qp)
{
	uint32_t i;

	for (i = qp->sq.ci; i != qp->req.cur; i++) {
		struct fw_tp_swqe *e = fw_req_entry(qp, i);

		if (!e->done && e->opcode == ORDMA_WQE_RDMA_READ)
			return e;
	}
	return NULL;
}

void fw_iw_req_read_resp(struct ordma_fw *fw, struct fw_qp *qp,
			 const struct fw_ddp_hdr *h, const uint8_t *ulpdu,
			 size_t len)
{
	const uint8_t *data = ulpdu + FW_DDP_TAGGED_HLEN;
	uint32_t dlen = (uint32_t)(len - FW_DDP_TAGGED_HLEN);
	struct fw_tp_swqe *e = fw_iw_req_read_head(qp);
	struct fw_term t = {
		.layer = FW_TERM_LAYER_DDP,
		.etype = FW_TERM_DDP_TAGGED,
		.flags = FW_TERM_FLAG_M | FW_TERM_FLAG_D,
		.seg_len = (uint16_t)len,
		.hdr = ulpdu,
		.hdr_len = FW_DDP_TAGGED_HLEN,
	};
	uint8_t st;

	if (!e) {
		t.layer = FW_TERM_LAYER_RDMAP;
		t.etype = FW_TERM_RDMAP_REMOTE_OP;
		t.ecode = FW_TERM_RDMAP_OPCODE;
		fw_iw_fatal(fw, qp, &t);
		return;
	}
	/* the sink the request named, in order (siw checks the same) */
	if (h->stag != le32_to_cpu(e->d.u.sge[0].lkey)) {
		t.ecode = FW_TERM_DDP_T_INV_STAG;
		goto bad;
	}
	if (h->to != le64_to_cpu(e->d.u.sge[0].addr) + e->rcvd ||
	    dlen > e->length - e->rcvd) {
		t.ecode = FW_TERM_DDP_T_BOUNDS;
		goto bad;
	}
	st = fw_tp_scatter(fw, qp, e->d.u.sge, 1, e->rcvd, data, dlen);
	if (st != ORDMA_CQE_SUCCESS) {
		t.ecode = FW_TERM_DDP_T_BOUNDS;
		fw_req_fail(qp, e, st);
		fw_req_complete_walk(fw, qp);
		fw_iw_fatal(fw, qp, &t);
		return;
	}
	qp->counters.rx_packets++;
	e->rcvd += dlen;
	if (!h->last)
		return;
	if (e->rcvd != e->length) {
		t.ecode = FW_TERM_DDP_T_BOUNDS;
		goto bad;
	}
	e->done = true;
	e->status = ORDMA_CQE_SUCCESS;
	/* READ_INV: the sink's STag goes once its data is in place */
	if (e->inv_after) {
		st = fw_req_local_inv(fw, qp, e->inv_key);
		if (st != ORDMA_CQE_SUCCESS) {
			fw_req_fail(qp, e, st);
			fw_req_complete_walk(fw, qp);
			return;
		}
	}
	fw_iw_req_progress(fw, qp);
	return;
bad:
	fw_req_fail(qp, e, ORDMA_CQE_BAD_RESP_ERR);
	fw_req_complete_walk(fw, qp);
	fw_iw_fatal(fw, qp, &t);
}

void fw_iw_req_terminated(struct ordma_fw *fw, struct fw_qp *qp,
			  const struct fw_term *t)
{
	struct fw_tp_swqe *e = fw_iw_req_read_head(qp);
	bool access = (t->layer == FW_TERM_LAYER_RDMAP &&
		       t->etype == FW_TERM_RDMAP_REMOTE_PROT) ||
		      (t->layer == FW_TERM_LAYER_DDP &&
		       t->etype == FW_TERM_DDP_TAGGED);

	if (!e)
		return;
	fw_req_fail(qp, e, access ? ORDMA_CQE_REM_ACCESS_ERR :
				    ORDMA_CQE_REM_OP_ERR);
	fw_req_complete_walk(fw, qp);
}
