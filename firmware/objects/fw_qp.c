// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA firmware queue pairs: CREATE/MODIFY/QUERY/DESTROY_QP, the SQ and
 * RQ doorbells, flushing to the error state, and the QP side of the
 * engine interface (fw_qp.h).
 *
 * The transport engine (fw_transport.h) runs send WQEs from
 * fw_qp_sq_kick() and is told of state changes through the hooks it
 * registers (struct fw_qp_engine_ops in fw_qp.h).
 */
#include <stdlib.h>
#include <string.h>

#include "objects/fw_qp.h"
#include "platform/fw_platform.h"

#define FW_QP_MAX_ACK_TIMEOUT	31
#define FW_QP_MAX_RETRY		7
#define FW_QP_MAX_MIN_RNR_TIMER	31
/* MODIFY_QP access_flags this firmware accepts */
#define FW_QP_ACCESS_SUPPORTED	(ORDMA_ACCESS_LOCAL_WRITE | \
				 ORDMA_ACCESS_REMOTE_WRITE | \
				 ORDMA_ACCESS_REMOTE_READ | \
				 ORDMA_ACCESS_REMOTE_ATOMIC | \
				 ORDMA_ACCESS_FLUSH_GLOBAL | \
				 ORDMA_ACCESS_FLUSH_PERSISTENT)

/* What an iWARP QP's INIT -> RTR may carry */
#define FW_QP_IWARP_RTR_ATTRS	(ORDMA_QP_ATTR_STATE | ORDMA_QP_ATTR_CUR_STATE | \
				 ORDMA_QP_ATTR_ACCESS_FLAGS | \
				 ORDMA_QP_ATTR_MAX_DEST_RD_ATOMIC)

#define CP_OFF(field) \
	FW_BUF_SYNDROME(offsetof(struct ordma_qp_create_params, field))
#define AT_OFF(field) \
	FW_BUF_SYNDROME(offsetof(struct ordma_qp_attr, field))

/* ------------------------------------------------------------------ */
/* Tables                                                              */
/* ------------------------------------------------------------------ */

int fw_qp_tables_create(struct ordma_fw *fw)
{
	fw->qps = calloc(FW_MAX_QP, sizeof(*fw->qps));
	fw->srqs = calloc(FW_MAX_SRQ + 1, sizeof(*fw->srqs));
	if (!fw->qps || !fw->srqs) {
		fw_qp_tables_destroy(fw);
		return -1;
	}
	return 0;
}

void fw_qp_tables_destroy(struct ordma_fw *fw)
{
	free(fw->qps);
	free(fw->srqs);
	fw->qps = NULL;
	fw->srqs = NULL;
}

/*
 * A reset writes nothing to host memory: no flush completions.  Only QPs
 * in use are cleared: CREATE_QP clears an entry before using it, and the
 * table (about 12 KiB a QP, most of it the started-WQE copies) is not
 * touched where no QP ever lived.
 */
void fw_qp_reset(struct ordma_fw *fw)
{
	uint32_t qpn;

	for (qpn = 0; fw->qps && qpn < FW_MAX_QP; qpn++)
		if (fw->qps[qpn].valid)
			memset(&fw->qps[qpn], 0, sizeof(fw->qps[qpn]));
	fw_srq_reset(fw);
}

struct fw_qp *fw_qp_lookup(struct ordma_fw *fw, uint32_t qpn)
{
	/* QP0 and QP1 are valid only as the SMI and GSI QPs */
	if (qpn >= FW_MAX_QP || !fw->qps[qpn].valid)
		return NULL;
	return &fw->qps[qpn];
}

/* ------------------------------------------------------------------ */
/* Work queues                                                         */
/* ------------------------------------------------------------------ */

int fw_wq_read_wqe(struct ordma_fw *fw, const struct fw_wq *wq,
		   uint32_t index, void *buf, size_t len)
{
	size_t wqe_size = (size_t)1 << wq->wqe_shift;

	if (!wq->log_size)
		return -1;
	if (len > wqe_size)
		len = wqe_size;
	return fw_page_list_read(fw, &wq->pages,
				 (uint64_t)fw_wq_slot(wq, index) << wq->wqe_shift,
				 buf, len);
}

/* A producer index may move forward by at most the free room. */
const char *fw_wq_pi_error(const struct fw_wq *wq, uint32_t pi)
{
	if (pi - wq->ci > fw_wq_size(wq))
		return "producer index more than a queue ahead of the consumer";
	if (pi - wq->ci < wq->pi - wq->ci)
		return "producer index moved backwards";
	return NULL;
}

static void fw_wq_clear(struct fw_wq *wq)
{
	wq->pi = 0;
	wq->next = 0;
	wq->ci = 0;
}

/* ------------------------------------------------------------------ */
/* Completions, flush, events                                          */
/* ------------------------------------------------------------------ */

int fw_qp_complete(struct ordma_fw *fw, struct fw_qp *qp, bool is_send,
		   struct ordma_cqe *cqe, bool solicited)
{
	cqe->qpn = cpu_to_le32(qp->qpn);
	if (fw_cq_post(fw, is_send ? qp->send_cqn : qp->recv_cqn, cqe,
		       solicited)) {
		qp->counters.cqe_dropped++;
		return -1;
	}
	return 0;
}

uint8_t fw_wqe_cqe_opcode(uint8_t wqe_opcode)
{
	switch (wqe_opcode) {
	case ORDMA_WQE_RDMA_WRITE:
	case ORDMA_WQE_RDMA_WRITE_IMM:
		return ORDMA_CQE_OP_RDMA_WRITE;
	case ORDMA_WQE_RDMA_READ:
		return ORDMA_CQE_OP_RDMA_READ;
	case ORDMA_WQE_ATOMIC_CMP_SWP:
		return ORDMA_CQE_OP_CMP_SWP;
	case ORDMA_WQE_ATOMIC_FETCH_ADD:
		return ORDMA_CQE_OP_FETCH_ADD;
	case ORDMA_WQE_LOCAL_INV:
		return ORDMA_CQE_OP_LOCAL_INV;
	case ORDMA_WQE_REG_MR:
		return ORDMA_CQE_OP_REG_MR;
	case ORDMA_WQE_FLUSH:
		return ORDMA_CQE_OP_FLUSH;
	case ORDMA_WQE_ATOMIC_WRITE:
		return ORDMA_CQE_OP_ATOMIC_WRITE;
	case ORDMA_WQE_BIND_MW:
		return ORDMA_CQE_OP_BIND_MW;
	default:
		/* SEND variants; also an unknown opcode or an unreadable WQE,
		 * which the flush reports rather than judges
		 */
		return ORDMA_CQE_OP_SEND;
	}
}

static void fw_qp_flush_one(struct ordma_fw *fw, struct fw_qp *qp,
			    bool is_send, uint32_t index, uint8_t opcode)
{
	struct ordma_cqe cqe;

	memset(&cqe, 0, sizeof(cqe));
	cqe.wqe_idx = cpu_to_le32(fw_wq_slot(is_send ? &qp->sq : &qp->rq,
					     index));
	cqe.opcode = opcode;
	cqe.status = ORDMA_CQE_WR_FLUSH_ERR;
	fw_qp_complete(fw, qp, is_send, &cqe, false);
}

/* Every send WQE not completed, oldest first, in flight or not. */
static void fw_qp_flush_sq(struct ordma_fw *fw, struct fw_qp *qp)
{
	struct fw_wq *sq = &qp->sq;
	uint32_t started = sq->next - sq->ci;

	while (sq->ci != sq->pi) {
		const struct fw_tp_swqe *e =
			&qp->req.w[sq->ci % FW_TP_MAX_WQE];
		struct ordma_wqe_ctrl ctrl;
		uint8_t opcode = ORDMA_CQE_OP_SEND;

		/* a started WQE is what the device copied, not what the SQ
		 * holds now; one never started is read for its opcode only
		 */
		if (started && e->index == sq->ci)
			opcode = fw_wqe_cqe_opcode(e->opcode);
		else if (!fw_wq_read_wqe(fw, sq, sq->ci, &ctrl, sizeof(ctrl)))
			opcode = fw_wqe_cqe_opcode(FIELD_GET(ORDMA_WQE_OPCODE,
							     le32_to_cpu(ctrl.ctrl)));
		if (started)
			started--;
		fw_qp_flush_one(fw, qp, true, sq->ci, opcode);
		sq->ci++;
		qp->counters.sq_flushed++;
	}
	sq->next = sq->ci;
}

static void fw_qp_flush_rq(struct ordma_fw *fw, struct fw_qp *qp)
{
	struct fw_wq *rq = &qp->rq;

	if (!rq->log_size)
		return;		/* receives come from an SRQ */
	while (rq->ci != rq->pi) {
		fw_qp_flush_one(fw, qp, false, rq->ci, ORDMA_CQE_OP_RECV);
		rq->ci++;
		qp->counters.rq_flushed++;
	}
	rq->next = rq->ci;
}

static void fw_qp_event(struct ordma_fw *fw, struct fw_qp *qp, uint8_t type)
{
	fw_async_event(fw, type, qp->qpn, 0, 0);
}

void fw_qp_sq_kick(struct ordma_fw *fw, struct fw_qp *qp)
{
	switch (qp->state) {
	case ORDMA_QPS_ERR:
	case ORDMA_QPS_SQE:
		fw_qp_flush_sq(fw, qp);
		return;
	case ORDMA_QPS_RTS:
	case ORDMA_QPS_SQD:
		/* the transport engine starts WQEs [sq.next, sq.pi) in RTS;
		 * in SQD it only finishes those in flight
		 */
		fw->qp_engine->sq_progress(fw, qp);
		return;
	default:
		/* RESET, INIT, RTR: queued until RTS. */
		return;
	}
}

/* Every QP state change goes through here: the trace shows each one */
static void fw_qp_set_state(struct ordma_fw *fw, struct fw_qp *qp,
			    uint8_t state)
{
	FW_TRACE(fw, .kind = ORDMA_FW_TRACE_QP_STATE, .qpn = qp->qpn,
		 .opcode = qp->state, .status = state);
	if (qp->state != state)
		fw_event_log(fw, ORDMA_EVENT_QP_STATE, qp->state, state,
			     qp->qpn, 0);
	qp->state = state;
}

void fw_qp_iw_connected(struct ordma_fw *fw, struct fw_qp *qp, uint16_t ird,
			uint16_t ord)
{
	if (qp->state != ORDMA_QPS_RTR)
		return;
	qp->attr.max_dest_rd_atomic = (uint8_t)(ird < FW_MAX_QP_RD_ATOM ?
						ird : FW_MAX_QP_RD_ATOM);
	qp->attr.max_rd_atomic = (uint8_t)(ord < FW_MAX_QP_INIT_RD_ATOM ?
					   ord : FW_MAX_QP_INIT_RD_ATOM);
	fw->qp_engine->to_rts(qp);
	fw_qp_set_state(fw, qp, ORDMA_QPS_RTS);
	fw->qp_engine->budget_sync(fw, qp);
	fw_qp_sq_kick(fw, qp);
}

static void fw_qp_enter_error(struct ordma_fw *fw, struct fw_qp *qp)
{
	bool was_error = qp->state == ORDMA_QPS_ERR;

	fw->qp_engine->stop(qp);
	fw_qp_set_state(fw, qp, ORDMA_QPS_ERR);
	fw->qp_engine->budget_sync(fw, qp);
	qp->sq_draining = false;
	fw_qp_flush_sq(fw, qp);
	fw_qp_flush_rq(fw, qp);
	/* IBTA: a QP on an SRQ takes no more SRQ WQEs once in Error */
	if (!was_error && qp->srqn != ORDMA_NO_SRQ)
		fw_qp_event(fw, qp, ORDMA_EQE_QP_LAST_WQE);
}

void fw_qp_set_error(struct ordma_fw *fw, struct fw_qp *qp,
		     uint8_t event_type)
{
	fw_qp_enter_error(fw, qp);
	if (event_type)
		fw_qp_event(fw, qp, event_type);
}

void fw_qp_enter_sqe(struct ordma_fw *fw, struct fw_qp *qp)
{
	/* IBTA 10.3.1: SQE is for the unreliable types; RC goes to ERR */
	if (qp->type == ORDMA_QPT_RC) {
		fw_qp_set_error(fw, qp, ORDMA_EQE_QP_REQ_ERR);
		return;
	}
	if (qp->state != ORDMA_QPS_RTS && qp->state != ORDMA_QPS_SQD)
		return;
	fw_qp_set_state(fw, qp, ORDMA_QPS_SQE);
	qp->sq_draining = false;
	fw_qp_flush_sq(fw, qp);
}

void fw_qp_sq_drained(struct ordma_fw *fw, struct fw_qp *qp)
{
	if (qp->state != ORDMA_QPS_SQD || !qp->sq_draining)
		return;
	qp->sq_draining = false;
	if (qp->attr.en_sqd_async_notify)
		fw_qp_event(fw, qp, ORDMA_EQE_QP_SQ_DRAINED);
}

static void fw_qp_enter_sqd(struct ordma_fw *fw, struct fw_qp *qp)
{
	fw_qp_set_state(fw, qp, ORDMA_QPS_SQD);
	qp->sq_draining = true;
	/* nothing in flight: drained at once */
	if (qp->sq.next == qp->sq.ci)
		fw_qp_sq_drained(fw, qp);
}

#define FW_QP_STAT(field) \
	(offsetof(struct ordma_qp_stats, field) / sizeof(uint64_t))

/* The QP's counters as QUERY_QP_STATS reports them, host order. */
static void fw_qp_stats_fill(const struct fw_qp *qp,
			     uint64_t v[ORDMA_QP_STATS_NUM])
{
	const struct fw_qp_counters *n = &qp->counters;

	memset(v, 0, ORDMA_QP_STATS_NUM * sizeof(v[0]));
	v[FW_QP_STAT(out_of_sequence)] = n->seq_errors;
	v[FW_QP_STAT(packet_seq_err)] = n->nak_seq_received;
	v[FW_QP_STAT(duplicate_request)] = n->duplicate_requests;
	v[FW_QP_STAT(rnr_nak_retry_err)] = n->rnr_retry_exceeded;
	v[FW_QP_STAT(local_ack_timeout_err)] = n->timeouts;
	v[FW_QP_STAT(implied_nak_seq_err)] = n->implied_naks;
	v[FW_QP_STAT(rx_read_requests)] = n->rx_read_requests;
	v[FW_QP_STAT(rx_write_requests)] = n->rx_write_requests;
	v[FW_QP_STAT(rx_atomic_requests)] = n->rx_atomic_requests;
	v[FW_QP_STAT(resp_remote_access_errors)] = n->access_naks_sent;
	v[FW_QP_STAT(req_remote_access_errors)] = n->access_naks_received;
	v[FW_QP_STAT(req_cqe_flush_error)] = n->sq_flushed;
	v[FW_QP_STAT(resp_cqe_flush_error)] = n->rq_flushed;
	v[FW_QP_STAT(rnr_nak_sent)] = n->rnr_naks_sent;
	v[FW_QP_STAT(rnr_nak_received)] = n->rnr_naks_received;
	v[FW_QP_STAT(qp_retransmits)] = n->retransmits;
	v[FW_QP_STAT(qp_tx_packets)] = n->tx_packets;
	v[FW_QP_STAT(qp_rx_packets)] = n->rx_packets;
	v[FW_QP_STAT(sq_doorbells)] = n->sq_doorbells;
	v[FW_QP_STAT(rq_doorbells)] = n->rq_doorbells;
	v[FW_QP_STAT(cqe_dropped)] = n->cqe_dropped;
}

/* Keeps what the QP counted in the device's totals before it is cleared. */
static void fw_qp_retire_counters(struct ordma_fw *fw, struct fw_qp *qp)
{
	uint64_t v[ORDMA_QP_STATS_NUM];
	size_t i;

	fw_qp_stats_fill(qp, v);
	for (i = 0; i < ORDMA_QP_STATS_NUM; i++)
		fw->qp_stats_retired[i] += v[i];
	memset(&qp->counters, 0, sizeof(qp->counters));
}

/* Back to the state CREATE_QP left it in. */
static void fw_qp_enter_reset(struct ordma_fw *fw, struct fw_qp *qp)
{
	fw_qp_set_state(fw, qp, ORDMA_QPS_RESET);
	qp->sq_draining = false;
	fw_wq_clear(&qp->sq);
	fw_wq_clear(&qp->rq);
	memset(&qp->attr, 0, sizeof(qp->attr));
	qp->next_psn = 0;
	qp->expected_psn = 0;
	qp->msn = 0;
	memset(&qp->req, 0, sizeof(qp->req));
	memset(&qp->resp, 0, sizeof(qp->resp));
	fw_qp_retire_counters(fw, qp);
}

/* ------------------------------------------------------------------ */
/* Receive WQEs for the engine                                         */
/* ------------------------------------------------------------------ */

int fw_qp_recv_take(struct ordma_fw *fw, struct fw_qp *qp, void *wqe,
		    size_t len, uint32_t *wqe_idx)
{
	struct fw_wq *rq = &qp->rq;
	int unreadable;

	if (qp->srqn != ORDMA_NO_SRQ) {
		struct fw_srq *srq = fw_srq_lookup(fw, qp->srqn);

		return srq ? fw_srq_take(fw, srq, wqe, len, wqe_idx) : -1;
	}
	if (!fw_wq_pending(rq))
		return -1;
	/* taken even if unreadable: the QP fails it rather than RNR for ever */
	unreadable = fw_wq_read_wqe(fw, rq, rq->next, wqe, len) ? 1 : 0;
	*wqe_idx = fw_wq_slot(rq, rq->next);
	rq->next++;
	return unreadable;
}

void fw_qp_rq_completed(struct fw_qp *qp)
{
	if (qp->rq.ci != qp->rq.next)
		qp->rq.ci++;
}

/* ------------------------------------------------------------------ */
/* Doorbells                                                           */
/* ------------------------------------------------------------------ */

const char *fw_qp_doorbell(struct ordma_fw *fw, uint32_t page, uint32_t reg,
			   uint32_t qpn, uint32_t pi)
{
	struct fw_qp *qp = fw_qp_lookup(fw, qpn);
	const char *err;

	if (!qp)
		return "no such QP";
	if (qp->uctx != page)
		return "QP owned by another context";
	if (reg == ORDMA_DB_SQ) {
		err = fw_wq_pi_error(&qp->sq, pi);
		if (err)
			return err;
		qp->sq.pi = pi;
		qp->counters.sq_doorbells++;
		fw_qp_sq_kick(fw, qp);
		return NULL;
	}
	if (!qp->rq.log_size)
		return "QP receives through an SRQ";
	err = fw_wq_pi_error(&qp->rq, pi);
	if (err)
		return err;
	qp->rq.pi = pi;
	qp->counters.rq_doorbells++;
	/* receives wait for messages, except in Error */
	if (qp->state == ORDMA_QPS_ERR)
		fw_qp_flush_rq(fw, qp);
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Command helpers                                                     */
/* ------------------------------------------------------------------ */

/* Offset of the first non-zero byte in [p, p + len), or len. */
static size_t fw_first_nonzero(const void *p, size_t len)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i])
			return i;
	return len;
}

/* ------------------------------------------------------------------ */
/* CREATE_QP                                                           */
/* ------------------------------------------------------------------ */

struct fw_qp_create {
	uint32_t uctx, pdn, send_cqn, recv_cqn, srqn;
	struct fw_page_list sq_pages, rq_pages;
};

/* list_syndrome: the syndrome of the page list's first byte */
static uint8_t fw_qp_bad_page_list(struct fw_cmd *c, size_t list_syndrome,
				   const struct fw_page_list *pl)
{
	return fw_cmd_bad_param(c, list_syndrome + pl->bad_offset,
				pl->error ? pl->error : "bad page list");
}

static uint8_t fw_qp_check_rq_params(struct ordma_fw *fw, struct fw_cmd *c,
				     const struct ordma_qp_create_params *p,
				     struct fw_qp_create *a)
{
	size_t nz;

	if (a->srqn != ORDMA_NO_SRQ) {
		/* receives come from the SRQ: the RQ must not be described */
		if (p->rq_log_size)
			return fw_cmd_bad_param(c, CP_OFF(rq_log_size),
						"rq_log_size must be 0 with an SRQ");
		if (p->rq_wqe_shift)
			return fw_cmd_bad_param(c, CP_OFF(rq_wqe_shift),
						"rq_wqe_shift must be 0 with an SRQ");
		nz = fw_first_nonzero(&p->rq, sizeof(p->rq));
		if (nz < sizeof(p->rq))
			return fw_cmd_bad_param(c, CP_OFF(rq) + nz,
						"rq page list must be zero with an SRQ");
		return ORDMA_CMD_STATUS_OK;
	}
	if (p->rq_log_size < ORDMA_WQ_MIN_LOG_SIZE ||
	    p->rq_log_size > ORDMA_WQ_MAX_LOG_SIZE)
		return fw_cmd_bad_param(c, CP_OFF(rq_log_size),
					"rq_log_size not in 1..12");
	if (p->rq_wqe_shift < ORDMA_RECV_WQE_MIN_SHIFT ||
	    p->rq_wqe_shift > ORDMA_RECV_WQE_MAX_SHIFT ||
	    (1u << p->rq_wqe_shift) < FW_RECV_WQE_MIN_BYTES)
		return fw_cmd_bad_param(c, CP_OFF(rq_wqe_shift),
					"rq_wqe_shift not in 5..8 (one SGE at least)");
	if (fw_page_list_parse(fw, &p->rq,
			       1ULL << (p->rq_log_size + p->rq_wqe_shift),
			       &a->rq_pages) != ORDMA_CMD_STATUS_OK)
		return fw_qp_bad_page_list(c, CP_OFF(rq),
					   &a->rq_pages);
	return ORDMA_CMD_STATUS_OK;
}

static uint8_t fw_qp_check_create(struct ordma_fw *fw, struct fw_cmd *c,
				  const struct ordma_qp_create_params *p,
				  struct fw_qp_create *a)
{
	uint32_t max_inline = le32_to_cpu(p->max_inline_data);
	uint32_t sq_room;
	uint8_t status;

	a->uctx = le32_to_cpu(p->uctx);
	a->pdn = le32_to_cpu(p->pdn);
	a->send_cqn = le32_to_cpu(p->send_cqn);
	a->recv_cqn = le32_to_cpu(p->recv_cqn);
	a->srqn = le32_to_cpu(p->srqn);

	if (p->reserved_25)
		return fw_cmd_bad_param(c, CP_OFF(reserved_25),
					"reserved field not zero");
	if (p->reserved_26)
		return fw_cmd_bad_param(c, CP_OFF(reserved_26),
					"reserved field not zero");
	if (p->type != ORDMA_QPT_RC && p->type != ORDMA_QPT_UD &&
	    p->type != ORDMA_QPT_UC && p->type != ORDMA_QPT_GSI &&
	    p->type != ORDMA_QPT_SMI)
		return fw_cmd_bad_param(c, CP_OFF(type),
					"QP type not RC, UC, UD, GSI or SMI");
	if ((p->type == ORDMA_QPT_GSI || p->type == ORDMA_QPT_SMI) &&
	    a->uctx != ORDMA_KERNEL_UCTX)
		return fw_cmd_bad_param(c, CP_OFF(type),
					"GSI or SMI QP from a user context");
	if (p->type == ORDMA_QPT_SMI && !fw_port_is_ib(fw))
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_NOT_SUPPORTED,
				   "an Ethernet port has no SMI QP");
	if (p->type != ORDMA_QPT_RC && fw_port_is_iwarp(fw))
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_NOT_SUPPORTED,
				   "an iWARP port has RC QPs only");
	if (p->sq_log_size < ORDMA_WQ_MIN_LOG_SIZE ||
	    p->sq_log_size > ORDMA_WQ_MAX_LOG_SIZE)
		return fw_cmd_bad_param(c, CP_OFF(sq_log_size),
					"sq_log_size not in 1..12");
	if (p->sq_wqe_shift < ORDMA_SEND_WQE_MIN_SHIFT ||
	    p->sq_wqe_shift > ORDMA_SEND_WQE_MAX_SHIFT ||
	    (1u << p->sq_wqe_shift) < FW_SEND_WQE_MIN_BYTES)
		return fw_cmd_bad_param(c, CP_OFF(sq_wqe_shift),
					"sq_wqe_shift not in 6..9");
	sq_room = (1u << p->sq_wqe_shift) - ORDMA_SEND_WQE_HDR_SIZE;
	if (max_inline > ORDMA_MAX_INLINE_DATA || max_inline > sq_room)
		return fw_cmd_bad_param(c, CP_OFF(max_inline_data),
					"max_inline_data beyond 256 or the send WQE");
	status = fw_qp_check_rq_params(fw, c, p, a);
	if (status != ORDMA_CMD_STATUS_OK)
		return status;
	if (fw_page_list_parse(fw, &p->sq,
			       1ULL << (p->sq_log_size + p->sq_wqe_shift),
			       &a->sq_pages) != ORDMA_CMD_STATUS_OK)
		return fw_qp_bad_page_list(c, CP_OFF(sq),
					   &a->sq_pages);

	/* the objects it names */
	if (!fw_uctx_valid(fw, a->uctx))
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BAD_HANDLE,
				   "no such user context");
	status = (uint8_t)fw_cq_check(fw, a->send_cqn, a->uctx);
	if (status != ORDMA_CMD_STATUS_OK)
		return fw_cmd_fail(c, status, "send CQ missing or not the context's");
	status = (uint8_t)fw_cq_check(fw, a->recv_cqn, a->uctx);
	if (status != ORDMA_CMD_STATUS_OK)
		return fw_cmd_fail(c, status, "receive CQ missing or not the context's");
	if (a->srqn != ORDMA_NO_SRQ) {
		status = (uint8_t)fw_srq_check(fw, a->srqn, a->uctx);
		if (status != ORDMA_CMD_STATUS_OK)
			return fw_cmd_fail(c, status,
					   "SRQ missing or not the context's");
	}
	return ORDMA_CMD_STATUS_OK;
}

uint8_t fw_cmd_create_qp(struct ordma_fw *fw, struct fw_cmd *c)
{
	struct ordma_qp_create_params p;
	struct fw_qp_create a;
	struct fw_qp *qp;
	uint32_t qpn;
	uint8_t status;

	if (c->in->buf.handle)
		return fw_cmd_bad_param(c, FW_CMD_OFF(buf.handle),
					"handle must be 0");
	status = fw_cmd_read_buf(fw, c, &p, sizeof(p));
	if (status != ORDMA_CMD_STATUS_OK)
		return status;
	status = fw_qp_check_create(fw, c, &p, &a);
	if (status != ORDMA_CMD_STATUS_OK)
		return status;
	if (p.type == ORDMA_QPT_GSI || p.type == ORDMA_QPT_SMI) {
		qpn = p.type == ORDMA_QPT_GSI ? ORDMA_GSI_QPN : ORDMA_SMI_QPN;
		if (fw->qps[qpn].valid)
			return fw_cmd_fail(c, ORDMA_CMD_STATUS_BUSY,
					   "the port has its GSI or SMI QP");
	} else {
		for (qpn = FW_FIRST_QPN;
		     qpn < FW_MAX_QP && fw->qps[qpn].valid; qpn++)
			;
		if (qpn == FW_MAX_QP)
			return fw_cmd_fail(c, ORDMA_CMD_STATUS_NO_RESOURCES,
					   "all QPs in use");
	}
	/* last check, and the first reference taken */
	status = (uint8_t)fw_pd_get(fw, a.pdn, a.uctx);
	if (status != ORDMA_CMD_STATUS_OK)
		return fw_cmd_fail(c, status, "PD missing or not the context's");
	fw_cq_get(fw, a.send_cqn);
	fw_cq_get(fw, a.recv_cqn);
	if (a.srqn != ORDMA_NO_SRQ)
		fw_srq_get(fw, a.srqn);

	qp = &fw->qps[qpn];
	memset(qp, 0, sizeof(*qp));
	qp->valid = true;
	/* QP0 and QP1 are UD QPs with a fixed number and the kernel as owner */
	qp->gsi = p.type == ORDMA_QPT_GSI;
	qp->smi = p.type == ORDMA_QPT_SMI;
	qp->type = qp->gsi || qp->smi ? ORDMA_QPT_UD : p.type;
	qp->state = ORDMA_QPS_RESET;
	qp->qpn = qpn;
	qp->uctx = a.uctx;
	qp->pdn = a.pdn;
	qp->send_cqn = a.send_cqn;
	qp->recv_cqn = a.recv_cqn;
	qp->srqn = a.srqn;
	qp->max_inline_data = le32_to_cpu(p.max_inline_data);
	qp->sq.pages = a.sq_pages;
	qp->sq.log_size = p.sq_log_size;
	qp->sq.wqe_shift = p.sq_wqe_shift;
	if (a.srqn == ORDMA_NO_SRQ) {
		qp->rq.pages = a.rq_pages;
		qp->rq.log_size = p.rq_log_size;
		qp->rq.wqe_shift = p.rq_wqe_shift;
	}
	c->out->handle.handle = cpu_to_le32(qpn);
	return ORDMA_CMD_STATUS_OK;
}

/* ------------------------------------------------------------------ */
/* DESTROY_QP                                                          */
/* ------------------------------------------------------------------ */

/* Posted WQEs are abandoned: no completion is written for them. */
uint8_t fw_cmd_destroy_qp(struct ordma_fw *fw, struct fw_cmd *c)
{
	struct fw_qp *qp = fw_qp_lookup(fw, le32_to_cpu(c->in->handle.handle));

	if (!qp)
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BAD_HANDLE, "no such QP");
	if (qp->uctx != le32_to_cpu(c->in->handle.uctx))
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_PERM,
				   "QP owned by another context");
	fw_mw_qp_destroyed(fw, qp->qpn);
	fw_pd_put(fw, qp->pdn);
	fw_cq_put(fw, qp->send_cqn);
	fw_cq_put(fw, qp->recv_cqn);
	if (qp->srqn != ORDMA_NO_SRQ)
		fw_srq_put(fw, qp->srqn);
	fw_mcast_qp_destroyed(fw, qp->qpn);
	fw_qp_set_state(fw, qp, ORDMA_QPS_RESET);
	fw->qp_engine->budget_sync(fw, qp);
	fw_qp_retire_counters(fw, qp);
	memset(qp, 0, sizeof(*qp));
	return ORDMA_CMD_STATUS_OK;
}

/* ------------------------------------------------------------------ */
/* MODIFY_QP                                                           */
/* ------------------------------------------------------------------ */

/* Each attribute's field in struct ordma_qp_attr.  A field whose bit is
 * clear in attr_mask must be zero, as for SET_PORT.
 */
static const struct {
	uint32_t attr;
	uint8_t offset;
	uint8_t size;
} fw_qp_attr_fields[] = {
#define FW_QP_FIELD(bit, field) \
	{ ORDMA_QP_ATTR_##bit, offsetof(struct ordma_qp_attr, field), \
	  sizeof(((struct ordma_qp_attr *)0)->field) }
	FW_QP_FIELD(STATE, state),
	FW_QP_FIELD(CUR_STATE, cur_state),
	FW_QP_FIELD(PATH_MTU, path_mtu),
	FW_QP_FIELD(EN_SQD_ASYNC, en_sqd_async_notify),
	FW_QP_FIELD(ACCESS_FLAGS, access_flags),
	FW_QP_FIELD(QKEY, qkey),
	FW_QP_FIELD(RQ_PSN, rq_psn),
	FW_QP_FIELD(SQ_PSN, sq_psn),
	FW_QP_FIELD(DEST_QPN, dest_qpn),
	FW_QP_FIELD(TIMEOUT, timeout),
	FW_QP_FIELD(RETRY_CNT, retry_cnt),
	FW_QP_FIELD(RNR_RETRY, rnr_retry),
	FW_QP_FIELD(MIN_RNR_TIMER, min_rnr_timer),
	FW_QP_FIELD(MAX_QP_RD_ATOMIC, max_rd_atomic),
	FW_QP_FIELD(MAX_DEST_RD_ATOMIC, max_dest_rd_atomic),
	FW_QP_FIELD(PKEY_INDEX, pkey_index),
	FW_QP_FIELD(PORT, port),
	FW_QP_FIELD(AV, av),
#undef FW_QP_FIELD
};

#define FW_NUM_QP_ATTR_FIELDS \
	(sizeof(fw_qp_attr_fields) / sizeof(fw_qp_attr_fields[0]))

static uint8_t fw_qp_check_layout(struct fw_cmd *c,
				  const struct ordma_qp_attr *a, uint32_t mask)
{
	size_t i, nz;

	if (mask & ~(uint32_t)FW_QP_ATTR_DEFINED)
		return fw_cmd_bad_param(c, AT_OFF(attr_mask),
					"undefined attribute mask bits");
	if (mask & FW_QP_ATTR_UNSUPPORTED)
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_NOT_SUPPORTED,
				   "alternate path, path migration and capability changes are not supported");
	if (a->sq_draining)
		return fw_cmd_bad_param(c, AT_OFF(sq_draining),
					"sq_draining is reported by QUERY_QP only");
	if (a->reserved_38)
		return fw_cmd_bad_param(c, AT_OFF(reserved_38),
					"reserved field not zero");
	for (i = 0; i < FW_NUM_QP_ATTR_FIELDS; i++) {
		if (mask & fw_qp_attr_fields[i].attr)
			continue;
		nz = fw_first_nonzero((const uint8_t *)a +
				      fw_qp_attr_fields[i].offset,
				      fw_qp_attr_fields[i].size);
		if (nz < fw_qp_attr_fields[i].size)
			return fw_cmd_bad_param(c,
						FW_BUF_SYNDROME(fw_qp_attr_fields[i].offset + nz),
						"field set without its attribute mask bit");
	}
	return ORDMA_CMD_STATUS_OK;
}

/* The connected path of an RC or UC QP: a unicast destination. */
static uint8_t fw_qp_check_av(struct ordma_fw *fw, struct fw_cmd *c,
			      const struct ordma_av *av)
{
	size_t bad_offset = 0;
	const char *why = NULL;

	if (fw_port_is_ib(fw) &&
	    le16_to_cpu(av->dlid) >= FW_IB_LID_MCAST_MIN)
		return fw_cmd_bad_param(c, AT_OFF(av.dlid),
					"multicast dlid on a connected QP");
	if ((!fw_port_is_ib(fw) || av->ib_flags & ORDMA_AV_IB_GLOBAL) &&
	    fw_gid_is_multicast(av->dgid))
		return fw_cmd_bad_param(c, AT_OFF(av.dgid),
					"multicast dgid on a connected QP");
	if (fw_av_check(fw, av, &bad_offset, &why) != ORDMA_CMD_STATUS_OK)
		return fw_cmd_bad_param(c, AT_OFF(av) + bad_offset,
					why ? why : "bad address vector");
	return ORDMA_CMD_STATUS_OK;
}

static uint8_t fw_qp_check_values(struct ordma_fw *fw, struct fw_cmd *c,
				  const struct ordma_qp_attr *a, uint32_t mask)
{
	if ((mask & ORDMA_QP_ATTR_EN_SQD_ASYNC) && a->en_sqd_async_notify > 1)
		return fw_cmd_bad_param(c, AT_OFF(en_sqd_async_notify),
					"en_sqd_async_notify not 0 or 1");
	if ((mask & ORDMA_QP_ATTR_ACCESS_FLAGS) &&
	    le32_to_cpu(a->access_flags) & ~(uint32_t)FW_QP_ACCESS_SUPPORTED)
		return fw_cmd_bad_param(c, AT_OFF(access_flags),
					"unknown access flags");
	if ((mask & ORDMA_QP_ATTR_PKEY_INDEX) && a->pkey_index)
		return fw_cmd_bad_param(c, AT_OFF(pkey_index),
					"pkey_index beyond the P_Key table");
	if ((mask & ORDMA_QP_ATTR_PORT) && a->port != ORDMA_PORT_NUM)
		return fw_cmd_bad_param(c, AT_OFF(port), "port is not 1");
	if (mask & ORDMA_QP_ATTR_AV) {
		uint8_t status = fw_qp_check_av(fw, c, &a->av);

		if (status != ORDMA_CMD_STATUS_OK)
			return status;
	}
	if ((mask & ORDMA_QP_ATTR_PATH_MTU) &&
	    (!fw_ib_mtu_bytes(a->path_mtu) ||
	     fw_ib_mtu_bytes(a->path_mtu) > fw_port_active_ib_mtu(fw)))
		return fw_cmd_bad_param(c, AT_OFF(path_mtu),
					"path_mtu not 1..5 or above the port's active MTU");
	if ((mask & ORDMA_QP_ATTR_TIMEOUT) && a->timeout > FW_QP_MAX_ACK_TIMEOUT)
		return fw_cmd_bad_param(c, AT_OFF(timeout), "timeout not in 0..31");
	if ((mask & ORDMA_QP_ATTR_RETRY_CNT) && a->retry_cnt > FW_QP_MAX_RETRY)
		return fw_cmd_bad_param(c, AT_OFF(retry_cnt),
					"retry_cnt not in 0..7");
	if ((mask & ORDMA_QP_ATTR_RNR_RETRY) && a->rnr_retry > FW_QP_MAX_RETRY)
		return fw_cmd_bad_param(c, AT_OFF(rnr_retry),
					"rnr_retry not in 0..7");
	if ((mask & ORDMA_QP_ATTR_MIN_RNR_TIMER) &&
	    a->min_rnr_timer > FW_QP_MAX_MIN_RNR_TIMER)
		return fw_cmd_bad_param(c, AT_OFF(min_rnr_timer),
					"min_rnr_timer not in 0..31");
	if ((mask & ORDMA_QP_ATTR_RQ_PSN) &&
	    le32_to_cpu(a->rq_psn) > FW_ROCE_PSN_MASK)
		return fw_cmd_bad_param(c, AT_OFF(rq_psn), "rq_psn beyond 24 bits");
	if ((mask & ORDMA_QP_ATTR_SQ_PSN) &&
	    le32_to_cpu(a->sq_psn) > FW_ROCE_PSN_MASK)
		return fw_cmd_bad_param(c, AT_OFF(sq_psn), "sq_psn beyond 24 bits");
	if ((mask & ORDMA_QP_ATTR_DEST_QPN) &&
	    le32_to_cpu(a->dest_qpn) > FW_ROCE_QPN_MASK)
		return fw_cmd_bad_param(c, AT_OFF(dest_qpn),
					"dest_qpn beyond 24 bits");
	if ((mask & ORDMA_QP_ATTR_MAX_QP_RD_ATOMIC) &&
	    a->max_rd_atomic > FW_MAX_QP_INIT_RD_ATOM)
		return fw_cmd_bad_param(c, AT_OFF(max_rd_atomic),
					"max_rd_atomic above max_qp_init_rd_atom");
	if ((mask & ORDMA_QP_ATTR_MAX_DEST_RD_ATOMIC) &&
	    a->max_dest_rd_atomic > FW_MAX_QP_RD_ATOM)
		return fw_cmd_bad_param(c, AT_OFF(max_dest_rd_atomic),
					"max_dest_rd_atomic above max_qp_rd_atom");
	return ORDMA_CMD_STATUS_OK;
}

/*
 * What an iWARP port's QP may not become: one granting atomics or FLUSH,
 * which iWARP lacks.  fw_qp_check_modify() also takes an iWARP RTR
 * without any path attribute (rdma_cm's has only the access flags) and
 * refuses RTS through MODIFY_QP: the QP reaches RTS when its connection
 * is established (IW_CONNECT, IW_ACCEPT).
 */
static uint8_t fw_qp_check_iwarp(struct fw_cmd *c,
				 const struct ordma_qp_attr *a, uint32_t mask)
{
	if ((mask & ORDMA_QP_ATTR_ACCESS_FLAGS) &&
	    (le32_to_cpu(a->access_flags) & FW_ACCESS_NOT_IWARP))
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_NOT_SUPPORTED,
				   "iWARP has no atomics or FLUSH");
	return ORDMA_CMD_STATUS_OK;
}

static uint8_t fw_qp_check_modify(struct ordma_fw *fw, struct fw_cmd *c,
				  const struct fw_qp *qp,
				  const struct ordma_qp_attr *a, uint32_t mask,
				  uint8_t *next)
{
	uint32_t bits;
	uint8_t status;

	status = fw_qp_check_layout(c, a, mask);
	if (status != ORDMA_CMD_STATUS_OK)
		return status;
	if ((mask & ORDMA_QP_ATTR_STATE) && a->state > ORDMA_QPS_ERR)
		return fw_cmd_bad_param(c, AT_OFF(state), "unknown QP state");
	if ((mask & ORDMA_QP_ATTR_CUR_STATE) && a->cur_state > ORDMA_QPS_ERR)
		return fw_cmd_bad_param(c, AT_OFF(cur_state), "unknown QP state");
	if ((mask & ORDMA_QP_ATTR_CUR_STATE) && a->cur_state != qp->state)
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BAD_STATE,
				   "cur_state is not the QP's state");
	*next = (mask & ORDMA_QP_ATTR_STATE) ? a->state : qp->state;
	if (fw_port_is_iwarp(fw) && qp->state == ORDMA_QPS_RTR &&
	    *next == ORDMA_QPS_RTS)
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BAD_STATE,
				   "an iWARP QP reaches RTS through its connection");
	if (fw_port_is_iwarp(fw) && qp->state == ORDMA_QPS_INIT &&
	    *next == ORDMA_QPS_RTR) {
		/* iWARP: the connection brings the path, not MODIFY_QP */
		if (mask & ~FW_QP_IWARP_RTR_ATTRS)
			return fw_cmd_bad_param(c, AT_OFF(attr_mask),
						"attribute not allowed in an iWARP RTR");
		status = fw_qp_check_iwarp(c, a, mask);
		if (status != ORDMA_CMD_STATUS_OK)
			return status;
		return fw_qp_check_values(fw, c, a, mask);
	}
	switch (fw_qp_check_transition(qp->type, qp->state, *next, mask,
				       &bits)) {
	case FW_QP_CHECK_OK:
		break;
	case FW_QP_CHECK_BAD_TRANSITION:
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BAD_STATE,
				   "transition not allowed");
	case FW_QP_CHECK_MISSING:
		return fw_cmd_bad_param(c, AT_OFF(attr_mask),
					"a required attribute is missing");
	default:
		return fw_cmd_bad_param(c, AT_OFF(attr_mask),
					"attribute not allowed in this transition");
	}
	if (fw_port_is_iwarp(fw)) {
		status = fw_qp_check_iwarp(c, a, mask);
		if (status != ORDMA_CMD_STATUS_OK)
			return status;
	}
	/* IBTA: SQD attributes may change only once the SQ is drained */
	if (qp->state == ORDMA_QPS_SQD && *next == ORDMA_QPS_SQD &&
	    qp->sq_draining && (mask & ~(uint32_t)ORDMA_QP_ATTR_STATE))
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BAD_STATE,
				   "send queue still draining");
	return fw_qp_check_values(fw, c, a, mask);
}

static void fw_qp_apply_attrs(struct fw_qp *qp, const struct ordma_qp_attr *a,
			      uint32_t mask)
{
	struct fw_qp_attr *q = &qp->attr;

	if (mask & ORDMA_QP_ATTR_ACCESS_FLAGS)
		q->access_flags = le32_to_cpu(a->access_flags);
	if (mask & ORDMA_QP_ATTR_PKEY_INDEX)
		q->pkey_index = le16_to_cpu(a->pkey_index);
	if (mask & ORDMA_QP_ATTR_PORT)
		q->port = a->port;
	if (mask & ORDMA_QP_ATTR_QKEY)
		q->qkey = le32_to_cpu(a->qkey);
	if (mask & ORDMA_QP_ATTR_AV) {
		q->av = a->av;
		q->has_av = true;
	}
	if (mask & ORDMA_QP_ATTR_PATH_MTU)
		q->path_mtu = a->path_mtu;
	if (mask & ORDMA_QP_ATTR_TIMEOUT)
		q->timeout = a->timeout;
	if (mask & ORDMA_QP_ATTR_RETRY_CNT)
		q->retry_cnt = a->retry_cnt;
	if (mask & ORDMA_QP_ATTR_RNR_RETRY)
		q->rnr_retry = a->rnr_retry;
	if (mask & ORDMA_QP_ATTR_RQ_PSN)
		qp->expected_psn = le32_to_cpu(a->rq_psn);
	if (mask & ORDMA_QP_ATTR_MAX_QP_RD_ATOMIC)
		q->max_rd_atomic = a->max_rd_atomic;
	if (mask & ORDMA_QP_ATTR_MIN_RNR_TIMER)
		q->min_rnr_timer = a->min_rnr_timer;
	if (mask & ORDMA_QP_ATTR_SQ_PSN)
		qp->next_psn = le32_to_cpu(a->sq_psn);
	if (mask & ORDMA_QP_ATTR_MAX_DEST_RD_ATOMIC)
		q->max_dest_rd_atomic = a->max_dest_rd_atomic;
	if (mask & ORDMA_QP_ATTR_DEST_QPN)
		q->dest_qpn = le32_to_cpu(a->dest_qpn);
}

static void fw_qp_change_state(struct ordma_fw *fw, struct fw_qp *qp,
			       uint8_t next, const struct ordma_qp_attr *a,
			       uint32_t mask)
{
	uint8_t cur = qp->state;

	switch (next) {
	case ORDMA_QPS_RESET:
		/* what it held goes back before the requester is cleared */
		fw_qp_set_state(fw, qp, ORDMA_QPS_RESET);
		fw->qp_engine->budget_sync(fw, qp);
		fw_qp_enter_reset(fw, qp);
		return;
	case ORDMA_QPS_ERR:
		fw_qp_enter_error(fw, qp);
		return;
	case ORDMA_QPS_SQD:
		if (cur == ORDMA_QPS_SQD)
			return;
		/* the notification request belongs to this transition */
		qp->attr.en_sqd_async_notify =
			(mask & ORDMA_QP_ATTR_EN_SQD_ASYNC) &&
			a->en_sqd_async_notify;
		fw_qp_enter_sqd(fw, qp);
		return;
	case ORDMA_QPS_RTS:
		/* RTR -> RTS starts the requester at SQ_PSN; SQE -> RTS
		 * (UD, UC) clears the error that stopped it.  SQD -> RTS resumes.
		 */
		if (cur == ORDMA_QPS_RTR || cur == ORDMA_QPS_SQE)
			fw->qp_engine->to_rts(qp);
		fw_qp_set_state(fw, qp, ORDMA_QPS_RTS);
		qp->sq_draining = false;
		/* WQEs posted before RTS (or while in SQD) may run now */
		fw_qp_sq_kick(fw, qp);
		return;
	default:
		/* INIT -> RTR: the responder starts at RQ_PSN */
		if (next == ORDMA_QPS_RTR && cur != ORDMA_QPS_RTR)
			fw->qp_engine->to_rtr(qp);
		fw_qp_set_state(fw, qp, next);
		return;
	}
}

uint8_t fw_cmd_modify_qp(struct ordma_fw *fw, struct fw_cmd *c)
{
	struct ordma_qp_attr a;
	struct fw_qp *qp;
	uint32_t mask;
	uint8_t status, next = ORDMA_QPS_RESET;

	status = fw_cmd_check_buf(c, sizeof(a));
	if (status != ORDMA_CMD_STATUS_OK)
		return status;
	qp = fw_qp_lookup(fw, le32_to_cpu(c->in->buf.handle));
	if (!qp)
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BAD_HANDLE, "no such QP");
	status = fw_cmd_read_buf(fw, c, &a, sizeof(a));
	if (status != ORDMA_CMD_STATUS_OK)
		return status;
	mask = le32_to_cpu(a.attr_mask);
	status = fw_qp_check_modify(fw, c, qp, &a, mask, &next);
	if (status != ORDMA_CMD_STATUS_OK)
		return status;

	fw_log(fw, ORDMA_FW_LOG_TRACE, "qp %u: %s -> %s, attr_mask 0x%x",
	       qp->qpn, fw_qp_state_name(qp->state), fw_qp_state_name(next),
	       mask);
	fw_qp_apply_attrs(qp, &a, mask);
	fw_qp_change_state(fw, qp, next, &a, mask);
	return ORDMA_CMD_STATUS_OK;
}

/* ------------------------------------------------------------------ */
/* QUERY_QP                                                            */
/* ------------------------------------------------------------------ */

static void fw_qp_fill_attr(const struct fw_qp *qp, struct ordma_qp_attr *out)
{
	const struct fw_qp_attr *q = &qp->attr;

	memset(out, 0, sizeof(*out));
	out->state = qp->state;
	out->cur_state = qp->state;
	out->path_mtu = q->path_mtu;
	out->en_sqd_async_notify = q->en_sqd_async_notify;
	out->access_flags = cpu_to_le32(q->access_flags);
	out->qkey = cpu_to_le32(q->qkey);
	out->rq_psn = cpu_to_le32(qp->expected_psn & FW_ROCE_PSN_MASK);
	out->sq_psn = cpu_to_le32(qp->next_psn & FW_ROCE_PSN_MASK);
	out->dest_qpn = cpu_to_le32(q->dest_qpn);
	out->timeout = q->timeout;
	out->retry_cnt = q->retry_cnt;
	out->rnr_retry = q->rnr_retry;
	out->min_rnr_timer = q->min_rnr_timer;
	out->max_rd_atomic = q->max_rd_atomic;
	out->max_dest_rd_atomic = q->max_dest_rd_atomic;
	out->pkey_index = cpu_to_le16(q->pkey_index);
	out->port = q->port;
	out->sq_draining = qp->sq_draining;
	if (q->has_av)
		out->av = q->av;
}

uint8_t fw_cmd_query_qp(struct ordma_fw *fw, struct fw_cmd *c)
{
	struct ordma_qp_attr out;
	struct fw_qp *qp;
	uint8_t status;

	status = fw_cmd_check_buf(c, sizeof(out));
	if (status != ORDMA_CMD_STATUS_OK)
		return status;
	qp = fw_qp_lookup(fw, le32_to_cpu(c->in->buf.handle));
	if (!qp)
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BAD_HANDLE, "no such QP");
	fw_qp_fill_attr(qp, &out);
	return fw_cmd_write_buf(fw, c, &out, sizeof(out));
}

/* ------------------------------------------------------------------ */
/* QUERY_QP_STATS                                                      */
/* ------------------------------------------------------------------ */

uint8_t fw_cmd_query_qp_stats(struct ordma_fw *fw, struct fw_cmd *c)
{
	uint32_t handle = le32_to_cpu(c->in->buf.handle), qpn;
	uint64_t v[ORDMA_QP_STATS_NUM], sum[ORDMA_QP_STATS_NUM];
	struct ordma_qp_stats out;
	__le64 *fields = (__le64 *)&out;
	struct fw_qp *qp;
	uint8_t status;
	size_t i;

	status = fw_cmd_check_buf(c, sizeof(out));
	if (status != ORDMA_CMD_STATUS_OK)
		return status;
	if (handle == ORDMA_QP_STATS_ALL) {
		memcpy(sum, fw->qp_stats_retired, sizeof(sum));
		for (qpn = 0; fw->qps && qpn < FW_MAX_QP; qpn++) {
			if (!fw->qps[qpn].valid)
				continue;
			fw_qp_stats_fill(&fw->qps[qpn], v);
			for (i = 0; i < ORDMA_QP_STATS_NUM; i++)
				sum[i] += v[i];
		}
	} else {
		qp = fw_qp_lookup(fw, handle);
		if (!qp)
			return fw_cmd_fail(c, ORDMA_CMD_STATUS_BAD_HANDLE,
					   "no such QP");
		fw_qp_stats_fill(qp, sum);
	}
	for (i = 0; i < ORDMA_QP_STATS_NUM; i++)
		fields[i] = cpu_to_le64(sum[i]);
	return fw_cmd_write_buf(fw, c, &out, sizeof(out));
}

/* QUERY_RESOURCES */
uint32_t fw_qp_in_use(const struct ordma_fw *fw)
{
	uint32_t qpn, n = 0;

	for (qpn = 0; fw->qps && qpn < FW_MAX_QP; qpn++)
		n += fw->qps[qpn].valid;
	return n;
}
