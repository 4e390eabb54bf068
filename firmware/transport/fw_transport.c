// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA firmware RoCEv2 transport engine, common part: RX dispatch of the
 * frames fw_eth.c steers here (multicast delivery included), TX of the
 * engine's frames, SGE access through the MR layer, the engine's timers
 * and the QP lifecycle hooks the QP objects call.
 */
#include <stdlib.h>
#include <string.h>

#include "objects/fw_qp.h"
#include "transport/fw_transport.h"
#include "platform/fw_platform.h"

void fw_tp_count_rx_drop(struct ordma_fw *fw, enum fw_tp_drop why)
{
	fw->tp.rx_drop[why]++;
	fw->stats.roce_rx_drop++;
	FW_TRACE(fw, .kind = ORDMA_FW_TRACE_RX_DROP, .qpn = fw->trace_rx_qpn,
		 .psn = fw->trace_rx_psn, .opcode = fw->trace_rx_opcode,
		 .status = (uint8_t)why);
}

/* The AETH syndrome of a packet that has one, for the trace */
static uint8_t fw_tp_trace_syndrome(uint8_t opcode, uint8_t syndrome)
{
	const struct fw_roce_opcode_info *op = fw_roce_opcode_info(opcode);

	return op && (op->flags & FW_ROCE_HAS_AETH) ? syndrome : 0;
}

/* ------------------------------------------------------------------ */
/* Lifecycle                                                           */
/* ------------------------------------------------------------------ */

static void fw_tp_qp_to_rtr(struct fw_qp *qp)
{
	memset(&qp->resp, 0, sizeof(qp->resp));
	qp->msn = 0;
}

static void fw_tp_qp_to_rts(struct fw_qp *qp)
{
	struct fw_tp_req *r = &qp->req;

	memset(r, 0, sizeof(*r));
	r->una_psn = qp->next_psn & FW_ROCE_PSN_MASK;
	r->sent_psn = r->una_psn;
	r->cur = qp->sq.next;
	r->retry_left = qp->attr.retry_cnt;
	r->rnr_left = qp->attr.rnr_retry;
	/* iWARP: every message queue starts at MSN 1 (RFC 5040) */
	memset(&qp->iw, 0, sizeof(qp->iw));
	qp->iw.tx_msn[0] = qp->iw.tx_msn[1] = 1;
	qp->iw.rx_msn[0] = qp->iw.rx_msn[1] = 1;
	qp->iw.ird = qp->attr.max_dest_rd_atomic;
}

static void fw_tp_qp_stop(struct fw_qp *qp)
{
	qp->req.rexmit_deadline = 0;
	qp->req.rnr_deadline = 0;
	qp->req.pace_deadline = 0;
	qp->req.pause_held = false;
	qp->resp.recv_valid = false;
	qp->resp.seq = FW_TP_SEQ_NONE;
	qp->resp.read_head = qp->resp.read_tail = 0;
	qp->resp.read_deadline = 0;
	qp->resp.read_paused = false;
	qp->iw.rd_head = qp->iw.rd_tail = 0;
}

/* Registered by fw_tp_create(): how the QP objects drive the engine */
static const struct fw_qp_engine_ops fw_tp_qp_engine = {
	.to_rtr = fw_tp_qp_to_rtr,
	.to_rts = fw_tp_qp_to_rts,
	.stop = fw_tp_qp_stop,
	.budget_sync = fw_tp_budget_sync,
	.sq_progress = fw_req_progress,
	.iw_rx = fw_iw_rx,
};

/* ------------------------------------------------------------------ */
/* Timers                                                              */
/* ------------------------------------------------------------------ */

/*
 * QPs with a deadline armed wait in a binary min-heap ordered by the
 * earliest deadline known for them, so that a timer callback visits the
 * QPs that are due and nothing else, however many QPs exist.  Every
 * deadline is armed through fw_tp_arm(), which queues its QP; a deadline
 * that is cleared or pushed later leaves the entry as it is, early, and
 * the entry is corrected from the QP's deadlines when it reaches the top
 * (dropped when none is left, or the QP is gone).  Entries name QPs by
 * number, so a QP table cleared by destroy or reset leaves nothing
 * dangling.
 */
struct fw_tp_timer_entry {
	uint64_t due;
	uint32_t qpn;
};

struct fw_tp_timers {
	uint32_t count;
	struct fw_tp_timer_entry heap[FW_MAX_QP];
	uint16_t slot[FW_MAX_QP];	/* heap index + 1; 0: not queued */
};

_Static_assert(FW_MAX_QP <= UINT16_MAX, "heap slots fit 16 bits");

int fw_tp_create(struct ordma_fw *fw)
{
	fw->qp_engine = &fw_tp_qp_engine;
	fw->tp_timers = calloc(1, sizeof(*fw->tp_timers));
	return fw->tp_timers ? 0 : -1;
}

void fw_tp_destroy(struct ordma_fw *fw)
{
	free(fw->tp_timers);
	fw->tp_timers = NULL;
}

void fw_tp_reset(struct ordma_fw *fw)
{
	struct fw_tp_timers *t = fw->tp_timers;

	t->count = 0;
	memset(t->slot, 0, sizeof(t->slot));
	fw->tp_outstanding = 0;
	fw->tp_user_outstanding = 0;
	fw->tp_ctx_active = 0;
	memset(fw->tp_ctx_held, 0,
	       fw->cfg.num_db_pages * sizeof(*fw->tp_ctx_held));
	/* the engine's port counters start again with the others */
	memset(&fw->tp, 0, sizeof(fw->tp));
}

static void fw_tp_heap_put(struct fw_tp_timers *t, uint32_t i,
			   struct fw_tp_timer_entry e)
{
	t->heap[i] = e;
	t->slot[e.qpn] = (uint16_t)(i + 1);
}

static void fw_tp_heap_up(struct fw_tp_timers *t, uint32_t i)
{
	struct fw_tp_timer_entry e = t->heap[i];

	while (i) {
		uint32_t parent = (i - 1) / 2;

		if (t->heap[parent].due <= e.due)
			break;
		fw_tp_heap_put(t, i, t->heap[parent]);
		i = parent;
	}
	fw_tp_heap_put(t, i, e);
}

static void fw_tp_heap_down(struct fw_tp_timers *t, uint32_t i)
{
	struct fw_tp_timer_entry e = t->heap[i];

	for (;;) {
		uint32_t child = 2 * i + 1;

		if (child >= t->count)
			break;
		if (child + 1 < t->count &&
		    t->heap[child + 1].due < t->heap[child].due)
			child++;
		if (t->heap[child].due >= e.due)
			break;
		fw_tp_heap_put(t, i, t->heap[child]);
		i = child;
	}
	fw_tp_heap_put(t, i, e);
}

static void fw_tp_heap_remove_top(struct fw_tp_timers *t)
{
	t->slot[t->heap[0].qpn] = 0;
	if (--t->count) {
		fw_tp_heap_put(t, 0, t->heap[t->count]);
		fw_tp_heap_down(t, 0);
	}
}

/* qpn is due no later than due */
static void fw_tp_queue(struct fw_tp_timers *t, uint32_t qpn, uint64_t due)
{
	uint32_t i;

	if (t->slot[qpn]) {
		i = t->slot[qpn] - 1u;
		if (t->heap[i].due <= due)
			return;
		t->heap[i].due = due;
	} else {
		i = t->count++;
		t->heap[i] = (struct fw_tp_timer_entry){ due, qpn };
	}
	fw_tp_heap_up(t, i);
}

void fw_tp_arm(struct ordma_fw *fw, struct fw_qp *qp, uint64_t deadline)
{
	if (!deadline)
		return;
	fw_tp_queue(fw->tp_timers, qp->qpn, deadline);
	if (deadline < fw->timer_armed_ns)
		fw_timer_arm_at(fw, deadline);
}

/* The QP behind a timer entry, if it still is one with timers. */
static struct fw_qp *fw_tp_timer_qp(struct ordma_fw *fw, uint32_t qpn)
{
	struct fw_qp *qp = fw_qp_lookup(fw, qpn);

	if (!qp || (qp->type != ORDMA_QPT_RC && qp->type != ORDMA_QPT_UC))
		return NULL;
	return qp;
}

static uint64_t fw_tp_qp_deadline(const struct fw_qp *qp)
{
	uint64_t t = UINT64_MAX;

	if (qp->req.rexmit_deadline && qp->req.rexmit_deadline < t)
		t = qp->req.rexmit_deadline;
	if (qp->req.rnr_deadline && qp->req.rnr_deadline < t)
		t = qp->req.rnr_deadline;
	if (qp->req.pace_deadline && qp->req.pace_deadline < t)
		t = qp->req.pace_deadline;
	if (qp->resp.read_deadline && qp->resp.read_deadline < t)
		t = qp->resp.read_deadline;
	return t;
}

static void fw_tp_qp_expire(struct ordma_fw *fw, struct fw_qp *qp,
			    uint64_t now)
{
	fw_trace_set_qp(fw, qp->qpn);
	if (qp->resp.read_deadline && qp->resp.read_deadline <= now) {
		qp->resp.read_deadline = 0;
		fw_resp_read_pump(fw, qp);
	}
	if (fw_tp_qp_deadline(qp) <= now)
		fw_req_timer(fw, qp, now);
}

uint64_t fw_tp_pause_hold(struct ordma_fw *fw)
{
	uint64_t until = fw_port_paused_until(fw);

	if (until)
		fw->stats.roce_tx_pause_holds++;
	return until;
}

/*
 * A held QP has a deadline armed (the end of the pause), so it is in the
 * heap: the QPs are taken from there first, since letting one go may arm
 * deadlines of its own.
 */
void fw_tp_pause_changed(struct ordma_fw *fw)
{
	struct fw_tp_timers *t = fw->tp_timers;
	uint64_t until = fw_port_paused_until(fw);
	uint16_t held[FW_MAX_QP];
	uint32_t n = 0, i;
	struct fw_qp *qp;

	for (i = 0; i < t->count; i++) {
		qp = fw_tp_timer_qp(fw, t->heap[i].qpn);
		if (qp && (qp->req.pause_held || qp->resp.read_paused))
			held[n++] = (uint16_t)qp->qpn;
	}
	for (i = 0; i < n; i++) {
		qp = fw_tp_timer_qp(fw, held[i]);
		if (!qp)
			continue;
		if (until) {
			if (qp->req.pause_held)
				qp->req.pace_deadline = until;
			if (qp->resp.read_paused)
				qp->resp.read_deadline = until;
			fw_tp_arm(fw, qp, until);
			continue;
		}
		if (qp->resp.read_paused) {
			qp->resp.read_deadline = 0;
			fw_resp_read_pump(fw, qp);
		}
		if (qp->req.pause_held) {
			qp->req.pause_held = false;
			qp->req.pace_deadline = 0;
			fw_req_progress(fw, qp);
		}
	}
}

/* The earliest deadline of any QP, once the top entry is exact. */
static uint64_t fw_tp_next_deadline(struct ordma_fw *fw)
{
	struct fw_tp_timers *t = fw->tp_timers;

	while (t->count) {
		struct fw_qp *qp = fw_tp_timer_qp(fw, t->heap[0].qpn);
		uint64_t due = qp ? fw_tp_qp_deadline(qp) : UINT64_MAX;

		if (due == t->heap[0].due)
			return due;
		fw->tp_timer_visits++;
		if (due == UINT64_MAX) {
			fw_tp_heap_remove_top(t);
		} else {
			t->heap[0].due = due;
			fw_tp_heap_down(t, 0);
		}
	}
	return UINT64_MAX;
}

uint64_t fw_tp_timer(struct ordma_fw *fw)
{
	struct fw_tp_timers *t = fw->tp_timers;
	uint16_t due_qpns[FW_MAX_QP];
	uint64_t now = fw_now(fw), next;
	uint32_t n = 0, i;
	struct fw_qp *qp;

	/* Take every due QP first: one expiry each per callback, even if
	 * handling one arms another deadline that is already due.
	 */
	while (t->count && t->heap[0].due <= now) {
		due_qpns[n++] = (uint16_t)t->heap[0].qpn;
		fw_tp_heap_remove_top(t);
	}
	for (i = 0; i < n; i++) {
		fw->tp_timer_visits++;
		qp = fw_tp_timer_qp(fw, due_qpns[i]);
		if (!qp)
			continue;
		fw_tp_qp_expire(fw, qp, now);
		next = fw_tp_qp_deadline(qp);
		if (next != UINT64_MAX)
			fw_tp_queue(t, qp->qpn, next);
	}
	return fw_tp_next_deadline(fw);
}

/* ------------------------------------------------------------------ */
/* Path MTU                                                            */
/* ------------------------------------------------------------------ */

uint32_t fw_tp_qp_mtu(struct ordma_fw *fw, const struct fw_qp *qp)
{
	uint32_t mtu;

	if (qp->type == ORDMA_QPT_UD || !qp->attr.path_mtu)
		return fw_port_active_ib_mtu(fw);
	/* MODIFY_QP takes 1..5 only: the smallest for anything else */
	mtu = fw_ib_mtu_bytes(qp->attr.path_mtu);
	return mtu ? mtu : FW_IB_MTU_MIN;
}

/* ------------------------------------------------------------------ */
/* SGEs                                                                */
/* ------------------------------------------------------------------ */

uint8_t fw_tp_sges_check(struct ordma_fw *fw, const struct fw_qp *qp,
			 const struct ordma_sge *sges, unsigned int n,
			 uint32_t need_access, uint64_t *total)
{
	struct fw_mr *mr;
	unsigned int i;
	uint64_t sum = 0;

	for (i = 0; i < n; i++) {
		uint32_t len = le32_to_cpu(sges[i].length);

		if (!len)
			continue;
		if (fw_mr_lookup(fw, le32_to_cpu(sges[i].lkey), qp->pdn,
				 le64_to_cpu(sges[i].addr), len, need_access,
				 &mr) != FW_MR_OK)
			return ORDMA_CQE_LOC_PROT_ERR;
		sum += len;
	}
	*total = sum;
	return sum > (1ULL << 31) ? ORDMA_CQE_LOC_LEN_ERR : ORDMA_CQE_SUCCESS;
}

static uint8_t fw_tp_sge_copy(struct ordma_fw *fw, const struct fw_qp *qp,
			      const struct ordma_sge *sges, unsigned int n,
			      uint64_t off, uint8_t *buf, uint32_t len,
			      bool to_host)
{
	unsigned int i;

	for (i = 0; i < n && len; i++) {
		uint64_t sge_len = le32_to_cpu(sges[i].length);
		uint64_t addr = le64_to_cpu(sges[i].addr);
		struct fw_mr *mr;
		uint32_t chunk;
		int rc;

		if (off >= sge_len) {
			off -= sge_len;
			continue;
		}
		chunk = (uint32_t)(sge_len - off < len ? sge_len - off : len);
		if (fw_mr_lookup(fw, le32_to_cpu(sges[i].lkey), qp->pdn,
				 addr + off, chunk,
				 to_host ? ORDMA_ACCESS_LOCAL_WRITE : 0,
				 &mr) != FW_MR_OK)
			return ORDMA_CQE_LOC_PROT_ERR;
		rc = to_host ? fw_mr_copy_to(fw, mr, addr + off, buf, chunk) :
			       fw_mr_copy_from(fw, mr, addr + off, buf, chunk);
		if (rc)
			return ORDMA_CQE_LOC_PROT_ERR;
		buf += chunk;
		len -= chunk;
		off = 0;
	}
	return len ? ORDMA_CQE_LOC_LEN_ERR : ORDMA_CQE_SUCCESS;
}

uint8_t fw_tp_gather(struct ordma_fw *fw, const struct fw_qp *qp,
		     const struct ordma_sge *sges, unsigned int n,
		     uint64_t off, void *buf, uint32_t len)
{
	return fw_tp_sge_copy(fw, qp, sges, n, off, buf, len, false);
}

uint8_t fw_tp_scatter(struct ordma_fw *fw, const struct fw_qp *qp,
		      const struct ordma_sge *sges, unsigned int n,
		      uint64_t off, const void *buf, uint32_t len)
{
	/* the copy direction never writes through buf */
	return fw_tp_sge_copy(fw, qp, sges, n, off, (uint8_t *)(uintptr_t)buf,
			      len, true);
}

/* ------------------------------------------------------------------ */
/* TX                                                                  */
/* ------------------------------------------------------------------ */

/*
 * A multicast frame this port sends is heard by the port itself too when
 * it is addressed to a group the port joined (or to one of its own GIDs),
 * as a switch would deliver it to every member port.
 */
static bool fw_tp_tx_heard_here(struct ordma_fw *fw, const uint8_t *frame,
				size_t len)
{
	uint8_t gid[16];

	return (frame[0] & 1) && fw_roce_frame_dgid(frame, len, gid) &&
	       fw_gid_is_local(fw, gid);
}

/*
 * The payload of a packet under construction into dst: from a remote MR
 * (READ responses), the SGEs, or the caller's buffer.  0, or -1 (counted;
 * a gather failure's CQE status in *status).
 */
static int fw_tp_fill_payload(struct ordma_fw *fw, struct fw_qp *qp,
			      const struct fw_tp_payload *pl, uint8_t *dst,
			      uint32_t len, uint8_t *status)
{
	if (len && pl->remote) {
		struct fw_mr *mr;
		uint64_t va = pl->va + pl->off;

		if (fw_mr_lookup_remote(fw, pl->rkey, qp->pdn, qp->qpn, va, len,
					ORDMA_ACCESS_REMOTE_READ,
					&mr) != FW_MR_OK ||
		    fw_mr_copy_from(fw, mr, va, dst, len)) {
			fw->tp.tx_drop[FW_TP_TX_DMA]++;
			return -1;
		}
	} else if (len && pl->sges) {
		uint8_t st = fw_tp_gather(fw, qp, pl->sges, pl->num_sge, pl->off,
					  dst, len);

		if (st != ORDMA_CQE_SUCCESS) {
			fw->tp.tx_drop[FW_TP_TX_DMA]++;
			if (status)
				*status = st;
			return -1;
		}
	} else if (len) {
		/* never past the caller's buffer, whatever off and len say */
		if (!pl->data || pl->off > pl->data_len ||
		    len > pl->data_len - pl->off) {
			fw->tp.tx_drop[FW_TP_TX_BUILD]++;
			if (status)
				*status = ORDMA_CQE_LOC_LEN_ERR;
			return -1;
		}
		memcpy(dst, (const uint8_t *)pl->data + pl->off, len);
	}
	return 0;
}

/*
 * An InfiniBand port: LRH from the AV (DLID, SL; SLID the port's LID with
 * the AV's path bits; VL15 for QP0, else the SL's VL), a GRH when the AV
 * is global, then the transport headers of *h.
 */
static int fw_tp_send_ib(struct ordma_fw *fw, struct fw_qp *qp,
			 const struct ordma_av *av, struct fw_roce_hdrs *h,
			 const struct fw_tp_payload *pl, uint8_t *status)
{
	uint32_t len = pl ? pl->len : 0;
	struct fw_ib_frame f;
	struct fw_ib_hdrs ib;

	memset(&ib, 0, sizeof(ib));
	ib.sl = av->sl & FW_IB_SL_MAX;
	ib.vl = h->dest_qp == FW_IB_QP0 ? FW_IB_VL15 :
		fw_port_ib_sl_to_vl(fw, ib.sl);
	ib.dlid = le16_to_cpu(av->dlid);
	/* a port no subnet manager gave a LID sends its SMPs from the
	 * permissive LID (IBTA 14.2.2)
	 */
	ib.slid = fw->ib.lid ? fw_port_ib_slid(fw, av->src_path_bits) :
		  ib.vl == FW_IB_VL15 ? FW_IB_LID_PERMISSIVE : 0;
	ib.global = av->ib_flags & ORDMA_AV_IB_GLOBAL;
	if (ib.global) {
		/* an InfiniBand port has one GID, the SM's prefix and GUID */
		if (av->sgid_index != 0) {
			fw->tp.tx_drop[FW_TP_TX_NO_GID]++;
			return -1;
		}
		fw_port_ib_gid(fw, h->sgid);
		memcpy(h->dgid, av->dgid, 16);
		h->traffic_class = av->traffic_class;
		h->flow_label = le32_to_cpu(av->flow_label) &
				FW_GRH_FLOW_LABEL_MASK;
		h->hop_limit = av->hop_limit ? av->hop_limit : 64;
	}
	h->pkey = fw_port_pkey(fw);
	h->src_qp = qp->qpn;
	ib.xport = *h;
	if (fw_ib_frame_init(&f, fw->frame_buf, sizeof(fw->frame_buf), &ib,
			     len)) {
		fw->tp.tx_drop[FW_TP_TX_BUILD]++;
		return -1;
	}
	if (fw_tp_fill_payload(fw, qp, pl, fw->frame_buf + f.payload_off, len,
			       status))
		return -1;
	fw_ib_frame_seal(&f);
	FW_TRACE(fw, .kind = ORDMA_FW_TRACE_TX, .qpn = qp->qpn, .psn = h->psn,
		 .len = len, .aux = h->dest_qp, .opcode = h->opcode,
		 .status = fw_tp_trace_syndrome(h->opcode, h->aeth.syndrome));
	/* a group the port joined hears its own packet, as on RoCEv2 */
	if (!fw_port_ib_tx(fw, fw->frame_buf, f.len,
			   ib.global && ib.dlid >= FW_IB_LID_MCAST_MIN &&
			   fw_gid_is_local(fw, av->dgid))) {
		fw->tp.tx_drop[FW_TP_TX_TOO_LONG]++;
		return -1;
	}
	qp->counters.tx_packets++;
	return 0;
}

int fw_tp_send(struct ordma_fw *fw, struct fw_qp *qp,
	       const struct ordma_av *av, struct fw_roce_hdrs *h,
	       const struct fw_tp_payload *pl, uint8_t *status)
{
	const struct fw_gid *gid;
	struct fw_roce_frame f;
	uint32_t len = pl ? pl->len : 0;
	bool smp = fw_port_is_ib(fw) && h->dest_qp == FW_IB_QP0;

	if (status)
		*status = ORDMA_CQE_SUCCESS;
	/* subnet management leaves an InfiniBand port in any state */
	if (!fw_port_is_active(fw) &&
	    !(smp && fw_port_ib_state(fw) != ORDMA_PORT_DOWN)) {
		fw->stats.tx_drop_link_down++;
		fw->tp.tx_drop[FW_TP_TX_LINK_DOWN]++;
		return -1;
	}
	if (fw_port_is_ib(fw))
		return fw_tp_send_ib(fw, qp, av, h, pl, status);
	if (av->sgid_index >= FW_GID_TABLE_LEN ||
	    !fw->gids[av->sgid_index].valid) {
		fw->tp.tx_drop[FW_TP_TX_NO_GID]++;
		return -1;
	}
	gid = &fw->gids[av->sgid_index];
	memcpy(h->dmac, av->dmac, 6);
	memcpy(h->smac, gid->mac, 6);
	h->vlan_id = gid->vlan_id;
	h->vlan_prio = 0;
	memcpy(h->sgid, gid->gid, 16);
	memcpy(h->dgid, av->dgid, 16);
	h->traffic_class = av->traffic_class;
	h->flow_label = le32_to_cpu(av->flow_label) & FW_ROCE_FLOW_LABEL_MASK;
	h->hop_limit = av->hop_limit ? av->hop_limit : 64;
	h->ip_id = fw->tp_ip_id++;
	h->udp_sport = 0;
	h->pkey = FW_ROCE_DEFAULT_PKEY;
	h->src_qp = qp->qpn;
	if (fw_roce_frame_init(&f, fw->frame_buf, sizeof(fw->frame_buf), h,
			       len)) {
		fw->tp.tx_drop[FW_TP_TX_BUILD]++;
		return -1;
	}
	if (f.len > fw_port_max_frame(fw)) {
		fw->tp.tx_drop[FW_TP_TX_TOO_LONG]++;
		return -1;
	}
	if (fw_tp_fill_payload(fw, qp, pl, fw->frame_buf + f.payload_off, len,
			       status))
		return -1;
	fw_roce_frame_seal(&f);
	FW_TRACE(fw, .kind = ORDMA_FW_TRACE_TX, .qpn = qp->qpn, .psn = h->psn,
		 .len = len, .aux = h->dest_qp, .opcode = h->opcode,
		 .status = fw_tp_trace_syndrome(h->opcode, h->aeth.syndrome));
	if (!fw_port_roce_tx(fw, fw->frame_buf, f.len,
			     fw_tp_tx_heard_here(fw, fw->frame_buf, f.len))) {
		fw->tp.tx_drop[FW_TP_TX_TOO_LONG]++;
		return -1;
	}
	qp->counters.tx_packets++;
	return 0;
}

/* ------------------------------------------------------------------ */
/* RX                                                                  */
/* ------------------------------------------------------------------ */

/*
 * Source (dst false) or destination address of a packet as a GID; false
 * for an InfiniBand packet without a GRH, which has none.
 */
static bool fw_tp_pkt_gid(const struct fw_roce_pkt *pkt, bool dst,
			  uint8_t gid[16])
{
	if (pkt->lrh) {
		const struct fw_ib_grh *grh =
			(const struct fw_ib_grh *)pkt->grh;

		if (!grh)
			return false;
		memcpy(gid, dst ? grh->dgid : grh->sgid, 16);
		return true;
	}
	if (pkt->ipv6) {
		memcpy(gid, pkt->ip + (dst ? 24 : 8), 16);
		return true;
	}
	memset(gid, 0, 10);
	gid[10] = 0xff;
	gid[11] = 0xff;
	memcpy(gid + 12, pkt->ip + (dst ? 16 : 12), 4);
	return true;
}

/*
 * An RC or UC packet comes from the QP's peer: on RoCEv2 its source IP is
 * the AV's dgid; on InfiniBand its SLID is the AV's DLID and, for a
 * global AV, its GRH's SGID the AV's dgid.
 */
static bool fw_tp_from_peer(const struct fw_qp *qp,
			    const struct fw_roce_pkt *pkt)
{
	const struct ordma_av *av = &qp->attr.av;
	uint8_t src[16];

	if (!qp->attr.has_av)
		return false;
	if (pkt->lrh) {
		const struct fw_ib_lrh *lrh =
			(const struct fw_ib_lrh *)pkt->lrh;

		if (fw_lrh_slid(lrh) != le16_to_cpu(av->dlid))
			return false;
		if (!(av->ib_flags & ORDMA_AV_IB_GLOBAL))
			return true;
	}
	return fw_tp_pkt_gid(pkt, false, src) && !memcmp(src, av->dgid, 16);
}

bool fw_tp_state_takes(const struct fw_qp *qp, bool request)
{
	switch (qp->state) {
	case ORDMA_QPS_RTR:
		return request;
	case ORDMA_QPS_RTS:
	case ORDMA_QPS_SQD:
		return true;
	case ORDMA_QPS_SQE:
		return request;	/* UD, UC: receives go on */
	default:
		return false;
	}
}

/* The BTH opcode transport bits a QP of this type takes */
static uint8_t fw_tp_transport(const struct fw_qp *qp)
{
	switch (qp->type) {
	case ORDMA_QPT_RC:
		return FW_ROCE_OPCODE_RC;
	case ORDMA_QPT_UC:
		return FW_ROCE_OPCODE_UC;
	default:
		return FW_ROCE_OPCODE_UD;
	}
}

/* A UD packet to ORDMA_MCAST_QPN and dgid: to every QP of the group */
static void fw_tp_rx_mcast(struct ordma_fw *fw, const struct fw_roce_pkt *pkt,
			   const uint8_t dgid[16])
{
	uint32_t qpns[FW_MAX_MCAST_QP_ATTACH];
	int i, n = fw_mcast_members(fw, dgid, qpns);

	if (n < 0) {
		fw_tp_count_rx_drop(fw, FW_TP_DROP_NO_QP);
		return;
	}
	for (i = 0; i < n; i++) {
		struct fw_qp *qp = fw_qp_lookup(fw, qpns[i]);

		if (!qp || !fw_tp_state_takes(qp, true)) {
			fw_tp_count_rx_drop(fw, FW_TP_DROP_STATE);
			continue;
		}
		qp->counters.rx_packets++;
		fw_trace_set_qp(fw, qp->qpn);
		fw_resp_rx_ud(fw, qp, pkt);
	}
}

/* A validated packet, RoCEv2 or InfiniBand, to its QP (or QPs) */
static void fw_tp_rx_pkt(struct ordma_fw *fw, const struct fw_roce_pkt *pkt)
{
	struct fw_qp *qp;

	fw->trace_rx_qpn = fw_bth_dest_qp(pkt->bth);
	fw->trace_rx_psn = fw_bth_psn(pkt->bth);
	fw->trace_rx_opcode = fw_bth_opcode(pkt->bth);
	FW_TRACE(fw, .kind = ORDMA_FW_TRACE_RX, .qpn = fw->trace_rx_qpn,
		 .psn = fw->trace_rx_psn, .opcode = fw->trace_rx_opcode,
		 .len = (uint32_t)pkt->payload_len,
		 .status = pkt->aeth ? fw_aeth_syndrome(pkt->aeth) : 0);
	if (fw_bth_dest_qp(pkt->bth) == ORDMA_MCAST_QPN) {
		uint8_t dgid[16];

		if ((fw_bth_opcode(pkt->bth) & FW_ROCE_OPCODE_TRANSPORT_MASK) !=
		    FW_ROCE_OPCODE_UD || !fw_tp_pkt_gid(pkt, true, dgid) ||
		    !fw_gid_is_multicast(dgid)) {
			fw_tp_count_rx_drop(fw, FW_TP_DROP_TRANSPORT);
			return;
		}
		if (!fw_port_pkey_takes(fw, fw_bth_pkey(pkt->bth),
					ORDMA_MCAST_QPN)) {
			fw_tp_count_rx_drop(fw, FW_TP_DROP_PKEY);
			return;
		}
		fw_tp_rx_mcast(fw, pkt, dgid);
		return;
	}
	qp = fw_qp_lookup(fw, fw_bth_dest_qp(pkt->bth));
	if (!qp) {
		fw_tp_count_rx_drop(fw, FW_TP_DROP_NO_QP);
		return;
	}
	if ((fw_bth_opcode(pkt->bth) & FW_ROCE_OPCODE_TRANSPORT_MASK) !=
	    fw_tp_transport(qp)) {
		fw_tp_count_rx_drop(fw, FW_TP_DROP_TRANSPORT);
		return;
	}
	if (!fw_tp_state_takes(qp, pkt->op->flags & FW_ROCE_REQUEST)) {
		fw_tp_count_rx_drop(fw, FW_TP_DROP_STATE);
		return;
	}
	if (!fw_port_pkey_takes(fw, fw_bth_pkey(pkt->bth), qp->qpn)) {
		fw_tp_count_rx_drop(fw, FW_TP_DROP_PKEY);
		return;
	}
	qp->counters.rx_packets++;
	fw_trace_set_qp(fw, qp->qpn);
	if (qp->type == ORDMA_QPT_UD) {
		fw_resp_rx_ud(fw, qp, pkt);
		return;
	}
	if (!fw_tp_from_peer(qp, pkt)) {
		fw_tp_count_rx_drop(fw, FW_TP_DROP_SRC);
		return;
	}
	if (qp->type == ORDMA_QPT_UC)
		fw_resp_rx_uc(fw, qp, pkt);	/* UC opcodes are all requests */
	else if (pkt->op->flags & FW_ROCE_REQUEST)
		fw_resp_rx_rc(fw, qp, pkt);
	else
		fw_req_rx(fw, qp, pkt);
}

static void fw_tp_rx_reset_trace(struct ordma_fw *fw)
{
	fw->trace_rx_qpn = ORDMA_FW_TRACE_NO_QPN;
	fw->trace_rx_psn = 0;
	fw->trace_rx_opcode = 0;
}

void fw_tp_rx(struct ordma_fw *fw, const uint8_t *frame, size_t len)
{
	struct fw_roce_pkt pkt;
	enum fw_roce_drop why;

	fw_tp_rx_reset_trace(fw);
	why = fw_roce_parse(frame, len, &pkt);
	if (why != FW_ROCE_OK) {
		fw->tp.rx_parse_drop[why]++;
		fw->tp.rx_drop[FW_TP_DROP_PARSE]++;
		fw->stats.roce_rx_drop++;
		/* the BTH as received, if the parser got that far */
		FW_TRACE(fw, .kind = ORDMA_FW_TRACE_RX_DROP,
			 .qpn = pkt.bth ? fw_bth_dest_qp(pkt.bth) :
				ORDMA_FW_TRACE_NO_QPN,
			 .psn = pkt.bth ? fw_bth_psn(pkt.bth) : 0,
			 .opcode = pkt.bth ? fw_bth_opcode(pkt.bth) : 0,
			 .aux = why, .status = ORDMA_FW_TRACE_DROP_PARSE);
		return;
	}
	fw_tp_rx_pkt(fw, &pkt);
}

static void fw_tp_rx_ib_drop(struct ordma_fw *fw, const struct fw_ib_pkt *ib,
			     enum fw_ib_rx_drop why)
{
	const struct fw_roce_bth *bth = ib->xport.bth;

	fw->tp.ib_rx_drop[why]++;
	fw->stats.roce_rx_drop++;
	FW_TRACE(fw, .kind = ORDMA_FW_TRACE_RX_DROP,
		 .qpn = bth ? fw_bth_dest_qp(bth) : ORDMA_FW_TRACE_NO_QPN,
		 .psn = bth ? fw_bth_psn(bth) : 0,
		 .opcode = bth ? fw_bth_opcode(bth) : 0,
		 .aux = why, .status = ORDMA_FW_TRACE_DROP_IB_LINK);
}

/*
 * The port's state takes the packet: an SMP (to QP0, on VL15) in INIT,
 * ARMED and ACTIVE, anything else in ACTIVE only.  The first packet off
 * VL15 that an ARMED port receives makes it ACTIVE (IBTA 7.2.6: the
 * neighbour's port is ACTIVE then).
 */
static bool fw_tp_ib_state_takes(struct ordma_fw *fw, bool smp)
{
	uint8_t state = fw_port_ib_state(fw);

	if (smp)
		return state != ORDMA_PORT_DOWN;
	if (state == ORDMA_PORT_ARMED) {
		fw->ib.state = ORDMA_PORT_ACTIVE;
		fw_async_event(fw, ORDMA_EQE_PORT_CHANGE, ORDMA_PORT_NUM,
			       ORDMA_PORT_ACTIVE, ORDMA_PORT_CHANGE_STATE);
		return true;
	}
	return state == ORDMA_PORT_ACTIVE;
}

static bool fw_ib_lid_is_multicast(uint16_t lid)
{
	return lid >= FW_IB_LID_MCAST_MIN && lid != FW_IB_LID_PERMISSIVE;
}

/*
 * The DLID is one of the port's LIDs, or a multicast LID on a packet to
 * the multicast QPN with a GRH to name the group (IBTA 10.5: multicast
 * packets are global); whether a QP joined that group is the QP
 * dispatch's to find out.
 */
static bool fw_tp_ib_dlid_takes(const struct ordma_fw *fw,
				const struct fw_ib_pkt *ib, bool smp)
{
	uint16_t dlid = fw_lrh_dlid(ib->lrh);

	if (fw_ib_lid_is_multicast(dlid))
		return ib->grh &&
		       fw_bth_dest_qp(ib->xport.bth) == ORDMA_MCAST_QPN;
	return fw_port_ib_dlid_ours(fw, dlid, smp);
}

void fw_tp_rx_ib(struct ordma_fw *fw, const uint8_t *pkt, size_t len)
{
	enum fw_ib_drop why;
	struct fw_ib_pkt ib;
	bool smp;

	fw_tp_rx_reset_trace(fw);
	if (fw_port_ib_state(fw) == ORDMA_PORT_DOWN) {
		fw->stats.rx_drop_link_down++;
		return;
	}
	why = fw_ib_parse(pkt, len, &ib);
	if (why != FW_IB_OK) {
		fw_tp_rx_ib_drop(fw, &ib, (enum fw_ib_rx_drop)why);
		return;
	}
	/* the parser saw to it that QP0 packets are exactly VL15's */
	smp = fw_bth_dest_qp(ib.xport.bth) == FW_IB_QP0;
	if (!fw_tp_ib_dlid_takes(fw, &ib, smp)) {
		fw_tp_rx_ib_drop(fw, &ib, FW_IB_RX_DROP_DLID);
		return;
	}
	if (!fw_tp_ib_state_takes(fw, smp)) {
		fw->stats.rx_drop_link_down++;
		return;
	}
	fw->stats.rx_frames++;
	fw->stats.rx_bytes += len;
	fw->stats.roce_rx_frames++;
	fw_tp_rx_pkt(fw, &ib.xport);
}
