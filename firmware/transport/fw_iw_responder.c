// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA firmware iWARP responder: the DDP segments an iWARP QP's
 * connection delivers (tcp/fw_iw_conn.c checked their FPDU's length and
 * CRC), validated in the order of the design's table
 * (Documentation/ordma/iwarp-design.rst, "Receive validation, in order")
 * and placed: tagged RDMA Writes and Read Responses through the STag,
 * untagged Sends into receive WQEs by MSN and MO, Read Requests queued
 * and answered with Read Responses.  Anything that fails a check is a
 * fatal error of the stream: the QP goes to error, the peer gets a
 * Terminate naming the layer, type and code, and the connection closes.
 * iWARP has no RNR: a Send with no receive WQE posted is such an error.
 *
 * Remote access is the STag's to grant, not the QP's: iw_cm sets an
 * active side's QP access flags to nothing (rdma_init_qp_attr() before
 * the iWARP connection exists) and never again, so irdma and siw, like
 * this engine, check the rights of the MR or window alone.
 */
#include <errno.h>
#include <string.h>

#include "objects/fw_qp.h"
#include "objects/fw_verbs.h"
#include "platform/fw_platform.h"
#include "tcp/fw_iw_conn.h"
#include "transport/fw_transport.h"

void fw_iw_fatal(struct ordma_fw *fw, struct fw_qp *qp,
		 const struct fw_term *t)
{
	/* a WQE that failed with it may have taken the QP to error
	 * already: the host still hears why
	 */
	if (qp->state != ORDMA_QPS_ERR)
		fw_qp_set_error(fw, qp, ORDMA_EQE_QP_FATAL);
	else
		fw_async_event(fw, ORDMA_EQE_QP_FATAL, qp->qpn, 0, 0);
	fw_iw_conn_fail(fw, qp, t);
}

/* A Terminate for the segment (M, D: its length and DDP header) */
static void fw_iw_term_seg(struct fw_term *t, uint8_t layer, uint8_t etype,
			   uint8_t ecode, const uint8_t *ulpdu, size_t len,
			   const struct fw_ddp_hdr *h)
{
	memset(t, 0, sizeof(*t));
	t->layer = layer;
	t->etype = etype;
	t->ecode = ecode;
	t->flags = FW_TERM_FLAG_M | FW_TERM_FLAG_D;
	t->seg_len = (uint16_t)len;
	t->hdr = ulpdu;
	t->hdr_len = h->tagged ? FW_DDP_TAGGED_HLEN : FW_DDP_UNTAGGED_HLEN;
}

static void fw_iw_fatal_seg(struct ordma_fw *fw, struct fw_qp *qp,
			    uint8_t layer, uint8_t etype, uint8_t ecode,
			    const uint8_t *ulpdu, size_t len,
			    const struct fw_ddp_hdr *h)
{
	struct fw_term t;

	fw_iw_term_seg(&t, layer, etype, ecode, ulpdu, len, h);
	fw_iw_fatal(fw, qp, &t);
}

/* ------------------------------------------------------------------ */
/* Tagged: RDMA Write                                                  */
/* ------------------------------------------------------------------ */

/* enum fw_mr_err of a tagged access to DDP's tagged error codes */
static uint8_t fw_iw_ddp_tagged_code(int err)
{
	switch (err) {
	case FW_MR_ERR_PD:
	case FW_MR_ERR_QP:
		return FW_TERM_DDP_T_NOT_ASSOC;
	case FW_MR_ERR_BOUNDS:
		return FW_TERM_DDP_T_BOUNDS;
	default:
		/* DDP has no access code: as siw, an invalid STag */
		return FW_TERM_DDP_T_INV_STAG;
	}
}

static void fw_iw_rx_write(struct ordma_fw *fw, struct fw_qp *qp,
			   const struct fw_ddp_hdr *h, const uint8_t *ulpdu,
			   size_t len)
{
	const uint8_t *data = ulpdu + FW_DDP_TAGGED_HLEN;
	size_t dlen = len - FW_DDP_TAGGED_HLEN;
	struct fw_mr *mr;
	int err;

	if (h->last)
		qp->counters.rx_write_requests++;
	if (!dlen)
		return;
	if (h->to + dlen < h->to) {
		fw_iw_fatal_seg(fw, qp, FW_TERM_LAYER_DDP, FW_TERM_DDP_TAGGED,
				FW_TERM_DDP_T_TO_WRAP, ulpdu, len, h);
		return;
	}
	err = fw_mr_lookup_remote(fw, h->stag, qp->pdn, qp->qpn, h->to, dlen,
				  ORDMA_ACCESS_REMOTE_WRITE, &mr);
	if (err == FW_MR_OK && fw_mr_copy_to(fw, mr, h->to, data, dlen))
		err = FW_MR_ERR_BOUNDS;
	if (err != FW_MR_OK) {
		qp->counters.access_naks_sent++;
		fw_iw_fatal_seg(fw, qp, FW_TERM_LAYER_DDP, FW_TERM_DDP_TAGGED,
				fw_iw_ddp_tagged_code(err), ulpdu, len, h);
	}
}

/* ------------------------------------------------------------------ */
/* Untagged: Send                                                      */
/* ------------------------------------------------------------------ */

static bool fw_iw_send_has_inv(uint8_t opcode)
{
	return opcode == FW_RDMAP_SEND_INV || opcode == FW_RDMAP_SEND_SE_INV;
}

static bool fw_iw_send_has_se(uint8_t opcode)
{
	return opcode == FW_RDMAP_SEND_SE || opcode == FW_RDMAP_SEND_SE_INV;
}

/* The last segment of a Send: invalidation, then the receive's CQE */
static void fw_iw_send_done(struct ordma_fw *fw, struct fw_qp *qp,
			    const struct fw_ddp_hdr *h, const uint8_t *ulpdu,
			    size_t len)
{
	struct ordma_cqe cqe;

	memset(&cqe, 0, sizeof(cqe));
	cqe.opcode = ORDMA_CQE_OP_RECV;
	cqe.byte_len = cpu_to_le32(qp->resp.recv_off);
	if (fw_iw_send_has_inv(h->opcode)) {
		int err = fw_rkey_invalidate(fw, h->stag, qp->pdn, qp->qpn,
					     true);

		if (err != FW_MR_OK) {
			fw_resp_recv_error(fw, qp, ORDMA_CQE_REM_INV_REQ_ERR);
			fw_iw_fatal_seg(fw, qp, FW_TERM_LAYER_RDMAP,
					err == FW_MR_ERR_PD ?
					FW_TERM_RDMAP_REMOTE_PROT :
					FW_TERM_RDMAP_REMOTE_OP,
					FW_TERM_RDMAP_CANT_INVALIDATE, ulpdu,
					len, h);
			return;
		}
		cqe.flags |= cpu_to_le16(ORDMA_CQE_F_INV);
		cqe.imm_inv = cpu_to_le32(h->stag);
	}
	qp->iw.rx_msn[0]++;
	qp->iw.rx_mo = 0;
	fw_resp_complete_recv(fw, qp, &cqe, fw_iw_send_has_se(h->opcode));
}

static void fw_iw_rx_send(struct ordma_fw *fw, struct fw_qp *qp,
			  const struct fw_ddp_hdr *h, const uint8_t *ulpdu,
			  size_t len)
{
	const uint8_t *data = ulpdu + FW_DDP_UNTAGGED_HLEN;
	uint32_t dlen = (uint32_t)(len - FW_DDP_UNTAGGED_HLEN);
	struct fw_tp_resp *r = &qp->resp;
	unsigned int nsge;
	uint8_t st, code = 0;

	if (h->msn != qp->iw.rx_msn[0])
		code = FW_TERM_DDP_U_MSN_RANGE;
	else if (h->mo != qp->iw.rx_mo)
		code = FW_TERM_DDP_U_INV_MO;
	else if (!h->mo && !fw_resp_take_recv(fw, qp))
		code = FW_TERM_DDP_U_NO_BUF;
	if (code) {
		fw_iw_fatal_seg(fw, qp, FW_TERM_LAYER_DDP,
				FW_TERM_DDP_UNTAGGED, code, ulpdu, len, h);
		return;
	}
	qp->counters.rx_packets++;
	if (!fw_resp_recv_sges(fw, qp, &nsge)) {
		fw_resp_recv_error(fw, qp, ORDMA_CQE_LOC_QP_OP_ERR);
		fw_iw_fatal_seg(fw, qp, FW_TERM_LAYER_DDP,
				FW_TERM_DDP_CATASTROPHIC, 0, ulpdu, len, h);
		return;
	}
	st = fw_tp_scatter(fw, qp, fw_resp_recv_sge_list(qp), nsge,
			   r->recv_off, data, dlen);
	if (st != ORDMA_CQE_SUCCESS) {
		fw_resp_recv_error(fw, qp, st);
		fw_iw_fatal_seg(fw, qp, FW_TERM_LAYER_DDP,
				st == ORDMA_CQE_LOC_LEN_ERR ?
				FW_TERM_DDP_UNTAGGED :
				FW_TERM_DDP_CATASTROPHIC,
				st == ORDMA_CQE_LOC_LEN_ERR ?
				FW_TERM_DDP_U_TOO_LONG : 0, ulpdu, len, h);
		return;
	}
	r->recv_off += dlen;
	qp->iw.rx_mo += dlen;
	if (h->last)
		fw_iw_send_done(fw, qp, h, ulpdu, len);
}

/* ------------------------------------------------------------------ */
/* Untagged: RDMA Read Request, and the responses                      */
/* ------------------------------------------------------------------ */

/* enum fw_mr_err of a Read Request's source to RDMAP's codes */
static uint8_t fw_iw_rdmap_prot_code(int err)
{
	switch (err) {
	case FW_MR_ERR_PD:
	case FW_MR_ERR_QP:
		return FW_TERM_RDMAP_NOT_ASSOC;
	case FW_MR_ERR_BOUNDS:
		return FW_TERM_RDMAP_BOUNDS;
	case FW_MR_ERR_ACCESS:
		return FW_TERM_RDMAP_ACCESS;
	default:
		return FW_TERM_RDMAP_INV_STAG;
	}
}

static int fw_iw_read_source(struct ordma_fw *fw, struct fw_qp *qp,
			     uint32_t stag, uint64_t to, uint64_t len,
			     struct fw_mr **mr)
{
	if (!len)
		return FW_MR_OK;
	return fw_mr_lookup_remote(fw, stag, qp->pdn, qp->qpn, to, len,
				   ORDMA_ACCESS_REMOTE_READ, mr);
}

static void fw_iw_rx_read_req(struct ordma_fw *fw, struct fw_qp *qp,
			      const struct fw_ddp_hdr *h, const uint8_t *ulpdu,
			      size_t len)
{
	struct fw_tp_iw *iw = &qp->iw;
	struct fw_tp_iw_read *rd;
	struct fw_rdmap_rreq rr;
	struct fw_term t;
	struct fw_mr *mr;
	uint8_t code = 0;
	int err;

	if (h->msn != iw->rx_msn[1])
		code = FW_TERM_DDP_U_MSN_RANGE;
	else if (h->mo)
		code = FW_TERM_DDP_U_INV_MO;
	else if (len != FW_DDP_UNTAGGED_HLEN + FW_RDMAP_RREQ_LEN || !h->last)
		code = FW_TERM_DDP_U_TOO_LONG;
	else if (iw->rd_tail - iw->rd_head >= iw->ird)
		code = FW_TERM_DDP_U_NO_BUF;
	if (code) {
		fw_iw_fatal_seg(fw, qp, FW_TERM_LAYER_DDP,
				FW_TERM_DDP_UNTAGGED, code, ulpdu, len, h);
		return;
	}
	fw_rdmap_rreq_get(ulpdu + FW_DDP_UNTAGGED_HLEN, &rr);
	err = rr.src_to + rr.size < rr.src_to ? -1 :
	      fw_iw_read_source(fw, qp, rr.src_stag, rr.src_to, rr.size, &mr);
	if (err != FW_MR_OK) {
		/* the whole request goes back: DDP and RDMAP headers */
		memset(&t, 0, sizeof(t));
		t.layer = FW_TERM_LAYER_RDMAP;
		t.etype = FW_TERM_RDMAP_REMOTE_PROT;
		t.ecode = err < 0 ? FW_TERM_RDMAP_TO_WRAP :
				    fw_iw_rdmap_prot_code(err);
		t.flags = FW_TERM_FLAG_M | FW_TERM_FLAG_D | FW_TERM_FLAG_R;
		t.seg_len = (uint16_t)len;
		t.hdr = ulpdu;
		t.hdr_len = len;
		qp->counters.access_naks_sent++;
		fw_iw_fatal(fw, qp, &t);
		return;
	}
	qp->counters.rx_packets++;
	qp->counters.rx_read_requests++;
	iw->rx_msn[1]++;
	rd = &iw->rd[iw->rd_tail % FW_TP_MAX_RD_RES];
	memset(rd, 0, sizeof(*rd));
	rd->sink_stag = rr.sink_stag;
	rd->sink_to = rr.sink_to;
	rd->src_stag = rr.src_stag;
	rd->src_to = rr.src_to;
	rd->len = rr.size;
	iw->rd_tail++;
	fw_iw_req_progress(fw, qp);
}

/* One Read Response segment of rd from rd->done on; 0, or -EAGAIN */
static int fw_iw_tx_read_resp(struct ordma_fw *fw, struct fw_qp *qp,
			      struct fw_tp_iw_read *rd)
{
	size_t mulpdu = fw_iw_tx_mulpdu(fw, qp);
	uint8_t *seg = fw_iw_tx_buf(fw);
	struct fw_ddp_hdr h = {
		.tagged = true,
		.opcode = FW_RDMAP_READ_RESP,
		.stag = rd->sink_stag,
		.to = rd->sink_to + rd->done,
	};
	struct fw_mr *mr;
	uint32_t chunk;
	size_t hlen;
	int err;

	if (!seg || mulpdu <= FW_DDP_TAGGED_HLEN)
		return -EAGAIN;
	chunk = (uint32_t)(mulpdu - FW_DDP_TAGGED_HLEN);
	if (chunk > rd->len - rd->done)
		chunk = rd->len - rd->done;
	h.last = rd->done + chunk == rd->len;
	hlen = fw_ddp_build(seg, &h);
	/* the source is checked again: it may have gone since */
	err = fw_iw_read_source(fw, qp, rd->src_stag, rd->src_to + rd->done,
				chunk, &mr);
	if (err == FW_MR_OK && chunk &&
	    fw_mr_copy_from(fw, mr, rd->src_to + rd->done, seg + hlen, chunk))
		err = FW_MR_ERR_BOUNDS;
	if (err != FW_MR_OK) {
		struct fw_term t = {
			.layer = FW_TERM_LAYER_RDMAP,
			.etype = FW_TERM_RDMAP_REMOTE_PROT,
			.ecode = fw_iw_rdmap_prot_code(err),
		};

		fw_iw_fatal(fw, qp, &t);
		return -EPIPE;
	}
	if (fw_iw_tx_fpdu(fw, qp, hlen + chunk))
		return -EAGAIN;
	qp->counters.tx_packets++;
	rd->done += chunk;
	return 0;
}

bool fw_iw_resp_send_reads(struct ordma_fw *fw, struct fw_qp *qp)
{
	struct fw_tp_iw *iw = &qp->iw;

	while (iw->rd_head != iw->rd_tail) {
		struct fw_tp_iw_read *rd = &iw->rd[iw->rd_head %
						   FW_TP_MAX_RD_RES];

		if (fw_iw_tx_read_resp(fw, qp, rd))
			return false;
		if (rd->done == rd->len)
			iw->rd_head++;
	}
	return true;
}

/* ------------------------------------------------------------------ */
/* Terminate, dispatch                                                 */
/* ------------------------------------------------------------------ */

static void fw_iw_rx_terminate(struct ordma_fw *fw, struct fw_qp *qp,
			       const uint8_t *ulpdu, size_t len)
{
	struct fw_term t;

	if (fw_term_parse(ulpdu, len, &t))
		fw_iw_req_terminated(fw, qp, &t);
	/* no Terminate answers a Terminate */
	fw_iw_fatal(fw, qp, NULL);
}

/* The queue an untagged opcode's messages go to; -1 for a tagged one */
static int fw_iw_opcode_qn(uint8_t opcode)
{
	switch (opcode) {
	case FW_RDMAP_SEND:
	case FW_RDMAP_SEND_INV:
	case FW_RDMAP_SEND_SE:
	case FW_RDMAP_SEND_SE_INV:
		return FW_RDMAP_QN_SEND;
	case FW_RDMAP_READ_REQ:
		return FW_RDMAP_QN_READ_REQ;
	case FW_RDMAP_TERMINATE:
		return FW_RDMAP_QN_TERMINATE;
	default:
		return -1;
	}
}

void fw_iw_rx(struct ordma_fw *fw, struct fw_qp *qp, const uint8_t *ulpdu,
	      size_t len)
{
	struct fw_ddp_hdr h;
	int qn;

	fw_trace_set_qp(fw, qp->qpn);
	if (!fw_ddp_parse(ulpdu, len, &h)) {
		/* shorter than the header its T bit names */
		struct fw_term t = {
			.layer = FW_TERM_LAYER_DDP,
			.etype = FW_TERM_DDP_CATASTROPHIC,
		};

		fw_iw_fatal(fw, qp, &t);
		return;
	}
	if (h.ddp_version != FW_DDP_VERSION) {
		fw_iw_fatal_seg(fw, qp, FW_TERM_LAYER_DDP,
				h.tagged ? FW_TERM_DDP_TAGGED :
					   FW_TERM_DDP_UNTAGGED,
				h.tagged ? FW_TERM_DDP_T_VERSION :
					   FW_TERM_DDP_U_VERSION,
				ulpdu, len, &h);
		return;
	}
	qn = fw_iw_opcode_qn(h.opcode);
	if (h.rdmap_version != FW_RDMAP_VERSION ||
	    (h.tagged && h.opcode != FW_RDMAP_WRITE &&
	     h.opcode != FW_RDMAP_READ_RESP) ||
	    (!h.tagged && qn < 0)) {
		fw_iw_fatal_seg(fw, qp, FW_TERM_LAYER_RDMAP,
				FW_TERM_RDMAP_REMOTE_OP,
				h.rdmap_version != FW_RDMAP_VERSION ?
				FW_TERM_RDMAP_VERSION : FW_TERM_RDMAP_OPCODE,
				ulpdu, len, &h);
		return;
	}
	if (!h.tagged && h.qn != (uint32_t)qn) {
		fw_iw_fatal_seg(fw, qp, FW_TERM_LAYER_DDP,
				FW_TERM_DDP_UNTAGGED, FW_TERM_DDP_U_INV_QN,
				ulpdu, len, &h);
		return;
	}
	switch (h.opcode) {
	case FW_RDMAP_WRITE:
		fw_iw_rx_write(fw, qp, &h, ulpdu, len);
		break;
	case FW_RDMAP_READ_RESP:
		fw_iw_req_read_resp(fw, qp, &h, ulpdu, len);
		break;
	case FW_RDMAP_READ_REQ:
		fw_iw_rx_read_req(fw, qp, &h, ulpdu, len);
		break;
	case FW_RDMAP_TERMINATE:
		fw_iw_rx_terminate(fw, qp, ulpdu, len);
		break;
	default:
		fw_iw_rx_send(fw, qp, &h, ulpdu, len);
		break;
	}
}
