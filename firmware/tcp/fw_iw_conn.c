// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA firmware iWARP connections: the IW_* admin commands, MPA
 * connection establishment over the port's TCP offload (fw_tcp.h) and
 * the connection events (ordma_admin.h, "iWARP connections").
 *
 * A connection's handle names its slot and the slot's generation
 * (fw_iw_conn.h); the TCP connection under it has its own number.  A
 * rejected connect stays in its slot, CLOSED, for the host to read the
 * reject's private data, until IW_DESTROY_CONN.  The active side
 * sends an MPA request once TCP is up (revision 2, enhanced, CRC, peer
 * to peer with an RTR by zero-length RDMA Write on offer), takes the
 * reply, sends the RTR if the responder chose it, and is in RDMA mode:
 * its QP goes to RTS and ORDMA_EQE_IW_CONN_REPLY reports it.  The
 * passive side takes the request, reports ORDMA_EQE_IW_CONN_REQUEST and
 * waits for IW_ACCEPT or IW_REJECT; after its reply it waits for the
 * initiator's RTR if peer to peer was asked for (siw does not ask), then
 * moves the QP to RTS and reports ORDMA_EQE_IW_ESTABLISHED.  Everything a
 * peer sends is checked before it is believed; a request or reply that
 * does not parse resets the connection.
 *
 * In RDMA mode the stream is FPDUs.  This file is the MPA layer of the
 * data path: it cuts the stream into FPDUs (whatever TCP's segmentation),
 * checks length and CRC32c and gives each DDP segment to the QP's iWARP
 * engine (struct fw_qp_engine_ops.iw_rx); the engine sends FPDUs through
 * fw_iw_tx_fpdu() and ends a connection it found broken with
 * fw_iw_conn_fail().
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "objects/fw_qp.h"
#include "objects/fw_verbs.h"
#include "platform/fw_platform.h"
#include "tcp/fw_iw_conn.h"
#include "tcp/fw_tcp.h"
#include "wire/fw_iw_wire.h"
#include "wire/fw_roce_wire.h"

#define FW_IW_NO_LISTENER	0xffffffffu
#define FW_IW_MPA_REQ_TIMEOUT_NS	(10ULL * 1000000000ULL)
#define FW_IW_MPA_REP_TIMEOUT_NS	(5ULL * 1000000000ULL)
#define FW_IW_RTR_TIMEOUT_NS		(10ULL * 1000000000ULL)
#define FW_IW_MAX_RD			128	/* IRD and ORD, as siw caps */
#define FW_IW_RX_MAX		(FW_MPA_HDR_LEN + FW_MPA_MAX_PD)
/* The longest FPDU: a 16-bit ULPDU_Length, pad and CRC */
#define FW_IW_FPDU_MAX		(FW_MPA_LEN_FIELD + 0xffff + 3 + FW_MPA_CRC_LEN)

enum fw_iw_phase {
	FW_IW_FREE,
	FW_IW_TCP_CONNECTING,		/* active: TCP handshake */
	FW_IW_REQ_SENT,			/* active: MPA reply awaited */
	FW_IW_WAIT_REQ,			/* passive: MPA request awaited */
	FW_IW_REQ_RCVD,			/* passive: ACCEPT/REJECT awaited */
	FW_IW_WAIT_RTR,			/* passive: reply sent, RTR awaited */
	FW_IW_RDMA,			/* established */
	FW_IW_CLOSING,			/* the peer's FIN came */
	FW_IW_REJECTED,			/* active: the peer rejected; no TCP,
					 * kept for IW_QUERY_CONN until
					 * IW_DESTROY_CONN
					 */
};

struct fw_iw_conn {
	uint8_t phase;			/* enum fw_iw_phase */
	uint32_t gen;			/* the handle's FW_IW_HANDLE_GEN */
	uint32_t tcp;			/* TCP's connection, FW_TCP_NONE: none */
	bool active;
	bool enhanced;			/* revision 2 with the enhanced bit */
	bool rtr;			/* an RTR is exchanged (peer to peer) */
	uint8_t mpa_revision, mpa_flags;
	uint32_t listener;
	uint32_t qpn;			/* bound QP, 0: none */
	uint16_t ird, ord;		/* negotiated */
	uint16_t peer_ird, peer_ord;	/* the peer's words */
	uint32_t remote_ip;
	uint16_t remote_port, local_port;
	uint64_t deadline_ns;		/* MPA timer, 0: none */
	uint8_t pd_len;			/* received */
	uint8_t pd[256];
	/* what the active side sends once TCP is up */
	uint8_t req_pd_len;
	uint8_t req_pd[ORDMA_IW_MAX_PRIVATE_DATA];
	size_t rx_len;
	uint8_t rx[FW_IW_RX_MAX];
	/* RDMA mode: the FPDU being received (FW_IW_FPDU_MAX bytes) */
	uint16_t mss;
	uint8_t *fpdu;
	size_t fpdu_len;
	/* FW_IW_REJECTED: TCP's last word on the connection, and the
	 * order it was rejected in (the oldest goes first)
	 */
	struct fw_tcp_conn_info tcp_last;
	uint64_t rejected_seq;
};

struct fw_iw {
	struct fw_iw_conn conn[FW_IW_MAX_CONN];
	/* the slot of each TCP connection the MPA layer has, plus one */
	uint8_t slot_of_tcp[FW_TCP_MAX_CONN];
	uint32_t rejected;		/* connections in FW_IW_REJECTED */
	uint64_t rejected_seq;
	uint16_t listen_backlog[FW_TCP_MAX_LISTEN];
	uint16_t listen_pending[FW_TCP_MAX_LISTEN];
	bool listening[FW_TCP_MAX_LISTEN];
	struct fw_iw_stats stats;
	struct fw_tcp_stats tcp_retired;	/* of copies given back */
	uint8_t tx[FW_IW_FPDU_MAX];	/* FPDUs are built here */
};

_Static_assert(sizeof(struct fw_tcp_stats) % sizeof(uint64_t) == 0,
	       "the TCP counters are 64-bit words");

static const struct fw_tcp_user fw_iw_tcp_user;

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */

/* The connection a host's handle names: NULL if it ended (whatever
 * its slot serves now)
 */
static struct fw_iw_conn *fw_iw_conn_get(struct ordma_fw *fw, uint32_t h)
{
	struct fw_iw *iw = fw->tcp.iw;
	uint32_t slot = FIELD_GET(FW_IW_HANDLE_SLOT, h);
	struct fw_iw_conn *c;

	if (!iw || slot >= FW_IW_MAX_CONN)
		return NULL;
	c = &iw->conn[slot];
	if (c->phase == FW_IW_FREE || c->gen != FIELD_GET(FW_IW_HANDLE_GEN, h))
		return NULL;
	return c;
}

/* The connection over TCP connection tcp (a TCP callback's), or NULL */
static struct fw_iw_conn *fw_iw_conn_of_tcp(struct ordma_fw *fw, uint32_t tcp)
{
	struct fw_iw *iw = fw->tcp.iw;

	if (!iw || tcp >= FW_TCP_MAX_CONN || !iw->slot_of_tcp[tcp])
		return NULL;
	return &iw->conn[iw->slot_of_tcp[tcp] - 1];
}

static uint32_t fw_iw_slot(struct ordma_fw *fw, const struct fw_iw_conn *c)
{
	return (uint32_t)(c - fw->tcp.iw->conn);
}

static uint32_t fw_iw_handle(struct ordma_fw *fw, const struct fw_iw_conn *c)
{
	return (uint32_t)(FIELD_PREP(FW_IW_HANDLE_SLOT, fw_iw_slot(fw, c)) |
			  FIELD_PREP(FW_IW_HANDLE_GEN, c->gen));
}

/*
 * Empty the slot; the next connection it serves has another handle.
 * Nothing else is accounted: see fw_iw_free().
 */
static void fw_iw_slot_clear(struct fw_iw_conn *c)
{
	uint32_t gen = (uint32_t)FIELD_GET(FW_IW_HANDLE_GEN,
					   FIELD_PREP(FW_IW_HANDLE_GEN,
						      c->gen + 1));

	free(c->fpdu);
	memset(c, 0, sizeof(*c));
	c->gen = gen;
	c->tcp = FW_TCP_NONE;
}

/* A free slot for a connection over TCP connection tcp; NULL if none */
static struct fw_iw_conn *fw_iw_conn_new(struct ordma_fw *fw, uint32_t tcp)
{
	struct fw_iw *iw = fw->tcp.iw;
	uint32_t i;

	for (i = 0; i < FW_IW_MAX_CONN; i++) {
		struct fw_iw_conn *c = &iw->conn[i];
		uint32_t gen = c->gen;

		if (c->phase != FW_IW_FREE)
			continue;
		memset(c, 0, sizeof(*c));
		c->gen = gen;
		c->tcp = tcp;
		iw->slot_of_tcp[tcp] = (uint8_t)(i + 1);
		return c;
	}
	return NULL;
}

/* The TCP connection under c is gone or given up: c no longer has it */
static void fw_iw_tcp_detach(struct ordma_fw *fw, struct fw_iw_conn *c)
{
	struct fw_iw *iw = fw->tcp.iw;

	if (c->tcp < FW_TCP_MAX_CONN &&
	    iw->slot_of_tcp[c->tcp] == fw_iw_slot(fw, c) + 1)
		iw->slot_of_tcp[c->tcp] = 0;
	c->tcp = FW_TCP_NONE;
}

static void fw_iw_ip_to_gid(uint32_t ip, uint8_t gid[16])
{
	memset(gid, 0, 16);
	gid[10] = 0xff;
	gid[11] = 0xff;
	gid[12] = (uint8_t)(ip >> 24);
	gid[13] = (uint8_t)(ip >> 16);
	gid[14] = (uint8_t)(ip >> 8);
	gid[15] = (uint8_t)ip;
}

static uint32_t fw_iw_gid_to_ip(const uint8_t gid[16])
{
	return (uint32_t)gid[12] << 24 | (uint32_t)gid[13] << 16 |
	       (uint32_t)gid[14] << 8 | gid[15];
}

static void fw_iw_arm(struct ordma_fw *fw, struct fw_iw_conn *c,
		      uint64_t timeout_ns)
{
	c->deadline_ns = fw_now(fw) + timeout_ns;
	if (c->deadline_ns < fw->timer_armed_ns)
		fw_timer_arm_at(fw, c->deadline_ns);
}

/* The QP bound to c, if it still is */
static struct fw_qp *fw_iw_qp(struct ordma_fw *fw, struct fw_iw_conn *c)
{
	struct fw_qp *qp = c->qpn ? fw_qp_lookup(fw, c->qpn) : NULL;

	if (!qp || qp->iw_conn_plus1 != fw_iw_slot(fw, c) + 1)
		return NULL;
	return qp;
}

static void fw_iw_unbind(struct ordma_fw *fw, struct fw_iw_conn *c,
			 bool error)
{
	struct fw_qp *qp = fw_iw_qp(fw, c);

	if (!qp)
		return;
	qp->iw_conn_plus1 = 0;
	if (error && qp->state != ORDMA_QPS_ERR &&
	    qp->state != ORDMA_QPS_RESET)
		fw_qp_set_error(fw, qp, 0);
}

/* The handle is free; the TCP connection is gone or left by the caller */
static void fw_iw_free(struct ordma_fw *fw, struct fw_iw_conn *c)
{
	struct fw_iw *iw = fw->tcp.iw;

	if (c->phase == FW_IW_WAIT_REQ || c->phase == FW_IW_REQ_RCVD)
		if (c->listener < FW_TCP_MAX_LISTEN &&
		    iw->listen_pending[c->listener])
			iw->listen_pending[c->listener]--;
	if (c->phase == FW_IW_REJECTED && iw->rejected)
		iw->rejected--;
	fw_iw_tcp_detach(fw, c);
	fw_iw_slot_clear(c);
}

static uint8_t fw_iw_status(enum fw_tcp_close_reason why)
{
	switch (why) {
	case FW_TCP_CLOSED_GRACEFUL:
		return ORDMA_IW_STATUS_GRACEFUL;
	case FW_TCP_CLOSED_RESET:
	case FW_TCP_CLOSED_REFUSED:
		return ORDMA_IW_STATUS_RESET;
	case FW_TCP_CLOSED_TIMEOUT:
		return ORDMA_IW_STATUS_TIMEOUT;
	default:
		return ORDMA_IW_STATUS_NO_RESOURCES;
	}
}

/*
 * The connection is over for the host, with status: the event the host
 * is owed (none for a request it never saw), the QP to error, the handle
 * free.  The TCP connection is already gone or aborted by the caller.
 */
static void fw_iw_end(struct ordma_fw *fw, struct fw_iw_conn *c,
		      uint8_t status)
{
	uint32_t h = fw_iw_handle(fw, c);
	uint32_t qpn = c->qpn;

	switch (c->phase) {
	case FW_IW_TCP_CONNECTING:
	case FW_IW_REQ_SENT:
		fw_async_event(fw, ORDMA_EQE_IW_CONN_REPLY, h, status, qpn);
		break;
	case FW_IW_WAIT_REQ:
		break;
	default:
		fw_async_event(fw, ORDMA_EQE_IW_CLOSED, h, status, qpn);
		break;
	}
	fw_iw_unbind(fw, c, true);
	fw_iw_free(fw, c);
}

/* Reset the TCP connection and end c */
static void fw_iw_abort(struct ordma_fw *fw, struct fw_iw_conn *c,
			uint8_t status)
{
	fw_tcp_abort(fw, c->tcp);
	fw_iw_end(fw, c, status);
}

/*
 * The peer rejected our request: TCP closes and the host gets
 * CONN_REPLY REJECTED, but the handle stays (CLOSED) so that the host
 * can read the reject's private data by IW_QUERY_CONN; IW_DESTROY_CONN
 * frees it.  A host that never frees its rejected connections must not
 * starve the device of slots: beyond FW_IW_MAX_REJECTED the oldest one
 * is freed (its handle then gets BAD_HANDLE, as any handle freed).
 */
static void fw_iw_rejected(struct ordma_fw *fw, struct fw_iw_conn *c)
{
	struct fw_iw *iw = fw->tcp.iw;
	struct fw_iw_conn *oldest = NULL;
	uint32_t i;

	if (fw_tcp_conn_info(fw, c->tcp, &c->tcp_last))
		memset(&c->tcp_last, 0, sizeof(c->tcp_last));
	c->tcp_last.state = 0;		/* lwIP's CLOSED */
	c->tcp_last.nrtx = 0;
	fw_tcp_close(fw, c->tcp);
	fw_iw_tcp_detach(fw, c);
	fw_async_event(fw, ORDMA_EQE_IW_CONN_REPLY, fw_iw_handle(fw, c),
		       ORDMA_IW_STATUS_REJECTED, c->qpn);
	fw_iw_unbind(fw, c, true);
	c->deadline_ns = 0;
	c->rx_len = 0;
	if (iw->rejected >= FW_IW_MAX_REJECTED) {
		for (i = 0; i < FW_IW_MAX_CONN; i++)
			if (iw->conn[i].phase == FW_IW_REJECTED &&
			    (!oldest ||
			     iw->conn[i].rejected_seq < oldest->rejected_seq))
				oldest = &iw->conn[i];
		if (oldest) {
			iw->stats.rejected_reclaimed++;
			fw_iw_free(fw, oldest);
		}
	}
	c->phase = FW_IW_REJECTED;
	c->rejected_seq = ++iw->rejected_seq;
	iw->rejected++;
}

static bool fw_iw_send(struct ordma_fw *fw, struct fw_iw_conn *c,
		       const void *data, size_t len)
{
	return fw_tcp_send(fw, c->tcp, data, len) == len;
}

/* RDMA mode: the QP to RTS; false (and c ended) if it cannot be */
static bool fw_iw_rdma_mode(struct ordma_fw *fw, struct fw_iw_conn *c)
{
	struct fw_tcp_conn_info tcp;
	struct fw_qp *qp;

	c->fpdu = malloc(FW_IW_FPDU_MAX);
	if (!c->fpdu ||
	    fw_tcp_conn_info(fw, c->tcp, &tcp) ||
	    !fw_mpa_mulpdu(tcp.mss)) {
		fw_iw_abort(fw, c, ORDMA_IW_STATUS_NO_RESOURCES);
		return false;
	}
	c->mss = tcp.mss;
	c->fpdu_len = 0;
	c->phase = FW_IW_RDMA;
	c->deadline_ns = 0;
	c->rx_len = 0;
	qp = fw_iw_qp(fw, c);
	if (qp)
		fw_qp_iw_connected(fw, qp, c->ird, c->ord);
	return true;
}

/* ------------------------------------------------------------------ */
/* MPA                                                                 */
/* ------------------------------------------------------------------ */

static void fw_iw_keep_pd(struct fw_iw_conn *c, const struct fw_mpa_msg *m)
{
	c->pd_len = (uint8_t)(m->pd_len > 255 ? 255 : m->pd_len);
	memcpy(c->pd, m->pd, c->pd_len);
	c->mpa_revision = m->revision;
	c->mpa_flags = m->flags;
	c->enhanced = m->revision == 2 && (m->flags & FW_MPA_FLAG_ENHANCED);
	c->peer_ird = c->enhanced ? m->ird : FW_MPA_V2_VALUE;
	c->peer_ord = c->enhanced ? m->ord : FW_MPA_V2_VALUE;
}

static uint16_t fw_iw_rd(uint16_t v)
{
	v &= FW_MPA_V2_VALUE;
	return v > FW_IW_MAX_RD ? FW_IW_MAX_RD : v;
}

static void fw_iw_send_request(struct ordma_fw *fw, struct fw_iw_conn *c)
{
	struct fw_mpa_msg m = {
		.kind = FW_MPA_REQUEST,
		.flags = FW_MPA_FLAG_CRC | FW_MPA_FLAG_ENHANCED,
		.revision = 2,
		.ird = FW_MPA_V2_PEER2PEER | c->ird,
		.ord = FW_MPA_V2_RTR_WRITE | c->ord,
		.pd = c->req_pd,
		.pd_len = c->req_pd_len,
	};
	uint8_t buf[FW_MPA_HDR_LEN + FW_MPA_V2_DATA_LEN +
		    ORDMA_IW_MAX_PRIVATE_DATA];

	if (!fw_iw_send(fw, c, buf, fw_mpa_build(buf, &m))) {
		fw_iw_abort(fw, c, ORDMA_IW_STATUS_NO_RESOURCES);
		return;
	}
	c->phase = FW_IW_REQ_SENT;
	fw_iw_arm(fw, c, FW_IW_MPA_REP_TIMEOUT_NS);
}

/* The reply to a request: accept (with our words) or reject */
static bool fw_iw_send_reply(struct ordma_fw *fw, struct fw_iw_conn *c,
			     bool reject, const uint8_t *pd, uint8_t pd_len)
{
	struct fw_mpa_msg m = {
		.kind = FW_MPA_REPLY,
		.flags = FW_MPA_FLAG_CRC | (reject ? FW_MPA_FLAG_REJECT : 0),
		.revision = c->mpa_revision,
		.pd = pd,
		.pd_len = pd_len,
	};
	uint8_t buf[FW_MPA_HDR_LEN + FW_MPA_V2_DATA_LEN +
		    ORDMA_IW_MAX_PRIVATE_DATA];

	if (c->enhanced) {
		m.flags |= FW_MPA_FLAG_ENHANCED;
		m.ird = c->ird | (c->rtr ? FW_MPA_V2_PEER2PEER : 0);
		m.ord = c->ord | (c->rtr ? FW_MPA_V2_RTR_WRITE : 0);
	}
	return fw_iw_send(fw, c, buf, fw_mpa_build(buf, &m));
}

/*
 * How many more bytes the message being received needs: the MPA header,
 * then the rest of the request or reply, or the RTR FPDU.  0 when it is
 * whole; SIZE_MAX if it cannot fit (a peer claiming more private data
 * than MPA allows, caught by the parser first).
 */
static size_t fw_iw_rx_want(const struct fw_iw_conn *c)
{
	size_t total;

	if (c->phase == FW_IW_WAIT_RTR)
		total = fw_fpdu_len(FW_DDP_TAGGED_HLEN);
	else if (c->rx_len < FW_MPA_HDR_LEN)
		total = FW_MPA_HDR_LEN;
	else
		total = fw_mpa_msg_len(c->rx, c->rx_len);
	if (total > sizeof(c->rx))
		return SIZE_MAX;
	return total - c->rx_len;
}

static void fw_iw_got_request(struct ordma_fw *fw, struct fw_iw_conn *c)
{
	struct fw_iw *iw = fw->tcp.iw;
	struct fw_mpa_msg m;

	if (fw_mpa_parse(c->rx, c->rx_len, FW_MPA_REQUEST, &m) != FW_MPA_OK) {
		iw->stats.mpa_bad++;
		fw_iw_abort(fw, c, ORDMA_IW_STATUS_PROTOCOL);
		return;
	}
	fw_iw_keep_pd(c, &m);
	c->rx_len = 0;
	c->deadline_ns = 0;
	if ((m.flags & FW_MPA_FLAG_MARKERS) || m.pd_len > 255) {
		/* markers, or more than a host can be told: refused */
		iw->stats.mpa_bad++;
		fw_iw_send_reply(fw, c, true, NULL, 0);
		fw_tcp_close(fw, c->tcp);
		fw_iw_free(fw, c);
		return;
	}
	c->phase = FW_IW_REQ_RCVD;
	fw_async_event(fw, ORDMA_EQE_IW_CONN_REQUEST, fw_iw_handle(fw, c),
		       c->listener, 0);
}

static void fw_iw_got_reply(struct ordma_fw *fw, struct fw_iw_conn *c)
{
	struct fw_iw *iw = fw->tcp.iw;
	uint8_t rtr[32];
	struct fw_mpa_msg m;

	if (fw_mpa_parse(c->rx, c->rx_len, FW_MPA_REPLY, &m) != FW_MPA_OK ||
	    (m.flags & FW_MPA_FLAG_MARKERS)) {
		iw->stats.mpa_bad++;
		fw_iw_abort(fw, c, ORDMA_IW_STATUS_PROTOCOL);
		return;
	}
	fw_iw_keep_pd(c, &m);
	if (m.flags & FW_MPA_FLAG_REJECT) {
		iw->stats.mpa_rejected++;
		fw_iw_rejected(fw, c);
		return;
	}
	if (c->enhanced) {
		/* our IRD takes what the peer will issue, within reason;
		 * we issue no more Reads than the peer takes
		 */
		c->ird = fw_iw_rd(c->peer_ord) < c->ird ?
			 fw_iw_rd(c->peer_ord) : c->ird;
		c->ord = fw_iw_rd(c->peer_ird) < c->ord ?
			 fw_iw_rd(c->peer_ird) : c->ord;
		c->rtr = c->peer_ird & FW_MPA_V2_PEER2PEER;
		if (c->rtr && !(c->peer_ord & FW_MPA_V2_RTR_WRITE)) {
			/* we offered the Write RTR only */
			iw->stats.mpa_bad++;
			fw_iw_abort(fw, c, ORDMA_IW_STATUS_PROTOCOL);
			return;
		}
	}
	if (c->rtr && !fw_iw_send(fw, c, rtr, fw_iw_build_rtr_write(rtr))) {
		fw_iw_abort(fw, c, ORDMA_IW_STATUS_NO_RESOURCES);
		return;
	}
	/* the event first: the host hears of the connection before any
	 * completion of it
	 */
	fw_async_event(fw, ORDMA_EQE_IW_CONN_REPLY, fw_iw_handle(fw, c),
		       ORDMA_IW_STATUS_OK, c->qpn);
	fw_iw_rdma_mode(fw, c);
}

static void fw_iw_got_rtr(struct ordma_fw *fw, struct fw_iw_conn *c)
{
	size_t len = fw_fpdu_len(FW_DDP_TAGGED_HLEN);
	struct fw_ddp_hdr h;

	if (c->rx[0] || c->rx[1] != FW_DDP_TAGGED_HLEN ||
	    !fw_fpdu_crc_ok(c->rx, len) ||
	    !fw_ddp_parse(c->rx + FW_MPA_LEN_FIELD, FW_DDP_TAGGED_HLEN, &h) ||
	    !h.tagged || !h.last || h.opcode != FW_RDMAP_WRITE ||
	    h.ddp_version != FW_DDP_VERSION ||
	    h.rdmap_version != FW_RDMAP_VERSION) {
		/* not the negotiated RTR (siw: LLP_ECODE_NO_MATCHING_RTR) */
		fw->tcp.iw->stats.rtr_bad++;
		fw_iw_abort(fw, c, ORDMA_IW_STATUS_PROTOCOL);
		return;
	}
	fw_async_event(fw, ORDMA_EQE_IW_ESTABLISHED, fw_iw_handle(fw, c), 0,
		       c->qpn);
	fw_iw_rdma_mode(fw, c);
}

/* ------------------------------------------------------------------ */
/* FPDUs                                                               */
/* ------------------------------------------------------------------ */

/* The connection the QP's data goes over, in RDMA mode; NULL if none */
static struct fw_iw_conn *fw_iw_conn_of(struct ordma_fw *fw,
					const struct fw_qp *qp)
{
	struct fw_iw *iw = fw->tcp.iw;
	struct fw_iw_conn *c;

	/* the QP holds its connection's slot, not its handle */
	if (!iw || !qp->iw_conn_plus1 || qp->iw_conn_plus1 > FW_IW_MAX_CONN)
		return NULL;
	c = &iw->conn[qp->iw_conn_plus1 - 1];
	if (c->qpn != qp->qpn ||
	    (c->phase != FW_IW_RDMA && c->phase != FW_IW_CLOSING))
		return NULL;
	return c;
}

size_t fw_iw_tx_mulpdu(struct ordma_fw *fw, const struct fw_qp *qp)
{
	struct fw_iw_conn *c = fw_iw_conn_of(fw, qp);

	/* after the peer's FIN ours went too: nothing more is sent */
	if (!c || c->phase != FW_IW_RDMA)
		return 0;
	return fw_mpa_mulpdu(c->mss);
}

uint8_t *fw_iw_tx_buf(struct ordma_fw *fw)
{
	return fw->tcp.iw ? fw->tcp.iw->tx + FW_MPA_LEN_FIELD : NULL;
}

int fw_iw_tx_fpdu(struct ordma_fw *fw, const struct fw_qp *qp,
		  size_t ulpdu_len)
{
	struct fw_iw_conn *c = fw_iw_conn_of(fw, qp);
	struct fw_tcp_conn_info tcp;
	uint8_t *fpdu;
	size_t len;

	if (!c || c->phase != FW_IW_RDMA)
		return -ENOTCONN;
	fpdu = fw->tcp.iw->tx;
	len = fw_fpdu_len(ulpdu_len);
	/* the stack takes an FPDU whole or not at all */
	if (fw_tcp_conn_info(fw, c->tcp, &tcp) || tcp.snd_buf < len)
		return -EAGAIN;
	fw_fpdu_seal(fpdu, ulpdu_len);
	if (fw_tcp_send(fw, c->tcp, fpdu, len) != len)
		return -EAGAIN;
	fw->tcp.iw->stats.tx_fpdus++;
	return 0;
}

/*
 * Sends the Terminate t (if not NULL) and closes the connection after
 * it: the peer gets the Terminate, then FIN; the host gets IW_CLOSED.
 */
static void fw_iw_close_terminated(struct ordma_fw *fw, struct fw_iw_conn *c,
				   const struct fw_term *t)
{
	uint8_t buf[FW_MPA_LEN_FIELD + FW_DDP_UNTAGGED_HLEN +
		    FW_TERM_CTRL_LEN + 2 + FW_DDP_UNTAGGED_HLEN +
		    FW_RDMAP_RREQ_LEN + 3 + FW_MPA_CRC_LEN];
	uint32_t h = c->tcp;
	struct fw_term term;
	size_t ulen;

	if (t && c->phase == FW_IW_RDMA) {
		term = *t;
		if (term.hdr_len > FW_DDP_UNTAGGED_HLEN + FW_RDMAP_RREQ_LEN)
			term.hdr_len = FW_DDP_UNTAGGED_HLEN + FW_RDMAP_RREQ_LEN;
		ulen = fw_term_build(buf + FW_MPA_LEN_FIELD, &term);
		fw_tcp_send(fw, h, buf, fw_fpdu_seal(buf, ulen));
		fw->tcp.iw->stats.terminates_sent++;
	}
	fw_tcp_close(fw, h);
	fw_iw_end(fw, c, ORDMA_IW_STATUS_PROTOCOL);
}

void fw_iw_conn_fail(struct ordma_fw *fw, const struct fw_qp *qp,
		     const struct fw_term *t)
{
	struct fw_iw_conn *c = fw_iw_conn_of(fw, qp);

	if (c)
		fw_iw_close_terminated(fw, c, t);
}

/* One whole FPDU of len bytes: CRC, then its DDP segment to the QP */
static void fw_iw_fpdu(struct ordma_fw *fw, struct fw_iw_conn *c,
		       const uint8_t *fpdu, size_t len)
{
	size_t ulen = fw_wire_get16(fpdu);
	struct fw_iw *iw = fw->tcp.iw;
	struct fw_qp *qp;

	if (!fw_fpdu_crc_ok(fpdu, len)) {
		struct fw_term t = {
			.layer = FW_TERM_LAYER_LLP,
			.etype = FW_TERM_LLP_MPA,
			.ecode = FW_TERM_MPA_CRC,
		};

		iw->stats.fpdu_crc_bad++;
		qp = fw_iw_qp(fw, c);
		if (qp && qp->state != ORDMA_QPS_ERR)
			fw_qp_set_error(fw, qp, ORDMA_EQE_QP_FATAL);
		fw_iw_close_terminated(fw, c, &t);
		return;
	}
	iw->stats.rx_fpdus++;
	if (ulen >= FW_DDP_UNTAGGED_HLEN &&
	    !(fpdu[FW_MPA_LEN_FIELD] & FW_DDP_TAGGED) &&
	    (fpdu[FW_MPA_LEN_FIELD + 1] & 0x0f) == FW_RDMAP_TERMINATE)
		iw->stats.terminates_received++;
	qp = fw_iw_qp(fw, c);
	if (!qp || (qp->state != ORDMA_QPS_RTS &&
		    qp->state != ORDMA_QPS_SQD)) {
		/* a QP in error takes nothing more */
		iw->stats.rx_fpdu_bytes += len;
		return;
	}
	fw->qp_engine->iw_rx(fw, qp, fpdu + FW_MPA_LEN_FIELD, ulen);
}

/*
 * The bytes of the stream in RDMA mode: FPDUs, whole ones taken where
 * they lie, the others gathered in c->fpdu.  Stops when the connection
 * ends.
 */
static void fw_iw_rx_fpdus(struct ordma_fw *fw, struct fw_iw_conn *c,
			   const uint8_t *data, size_t len)
{
	while (len && (c->phase == FW_IW_RDMA || c->phase == FW_IW_CLOSING)) {
		size_t want, take, ulen;

		if (!c->fpdu_len && len >= FW_MPA_LEN_FIELD) {
			ulen = fw_wire_get16(data);
			want = fw_fpdu_len(ulen);
			if (ulen >= FW_DDP_TAGGED_HLEN && len >= want) {
				fw_iw_fpdu(fw, c, data, want);
				data += want;
				len -= want;
				continue;
			}
		}
		if (c->fpdu_len < FW_MPA_LEN_FIELD) {
			want = FW_MPA_LEN_FIELD;
		} else {
			ulen = fw_wire_get16(c->fpdu);
			if (ulen < FW_DDP_TAGGED_HLEN) {
				/* no DDP segment is that short: the FPDU
				 * boundaries are lost
				 */
				struct fw_term t = {
					.layer = FW_TERM_LAYER_LLP,
					.etype = FW_TERM_LLP_MPA,
					.ecode = FW_TERM_MPA_MARKER,
				};
				struct fw_qp *qp = fw_iw_qp(fw, c);

				fw->tcp.iw->stats.fpdu_bad_len++;
				if (qp && qp->state != ORDMA_QPS_ERR)
					fw_qp_set_error(fw, qp,
							ORDMA_EQE_QP_FATAL);
				fw_iw_close_terminated(fw, c, &t);
				return;
			}
			want = fw_fpdu_len(ulen);
		}
		take = want - c->fpdu_len < len ? want - c->fpdu_len : len;
		memcpy(c->fpdu + c->fpdu_len, data, take);
		c->fpdu_len += take;
		data += take;
		len -= take;
		if (c->fpdu_len < want || want == FW_MPA_LEN_FIELD)
			continue;
		c->fpdu_len = 0;
		fw_iw_fpdu(fw, c, c->fpdu, want);
	}
}

/* ------------------------------------------------------------------ */
/* TCP callbacks                                                       */
/* ------------------------------------------------------------------ */

static void fw_iw_accepted(struct ordma_fw *fw, void *arg, uint32_t listener,
			   uint32_t conn)
{
	struct fw_iw *iw = fw->tcp.iw;
	struct fw_iw_conn *c;

	(void)arg;
	if (listener >= FW_TCP_MAX_LISTEN || !iw->listening[listener] ||
	    iw->listen_pending[listener] >= iw->listen_backlog[listener]) {
		iw->stats.backlog_full++;
		fw_tcp_abort(fw, conn);
		return;
	}
	c = conn < FW_TCP_MAX_CONN ? fw_iw_conn_new(fw, conn) : NULL;
	if (!c) {
		/* not while rejected connections are bounded */
		fw_tcp_abort(fw, conn);
		return;
	}
	c->phase = FW_IW_WAIT_REQ;
	c->listener = listener;
	iw->listen_pending[listener]++;
	fw_iw_arm(fw, c, FW_IW_MPA_REQ_TIMEOUT_NS);
}

static void fw_iw_connected(struct ordma_fw *fw, void *arg, uint32_t conn,
			    int reason)
{
	struct fw_iw_conn *c = fw_iw_conn_of_tcp(fw, conn);

	(void)arg;
	if (!c)
		return;
	if (reason) {
		/* TCP is gone already */
		fw_iw_end(fw, c, fw_iw_status((enum fw_tcp_close_reason)reason));
		return;
	}
	fw_iw_send_request(fw, c);
}

static void fw_iw_recv(struct ordma_fw *fw, void *arg, uint32_t conn,
		       const void *data, size_t len)
{
	struct fw_iw_conn *c = fw_iw_conn_of_tcp(fw, conn);

	(void)arg;
	if (!c)
		return;
	/* the MPA exchange, a message at a time */
	while (len && (c->phase == FW_IW_WAIT_REQ ||
		       c->phase == FW_IW_REQ_SENT ||
		       c->phase == FW_IW_WAIT_RTR)) {
		size_t want = fw_iw_rx_want(c);
		size_t take = want < len ? want : len;

		if (want == SIZE_MAX) {
			fw->tcp.iw->stats.mpa_bad++;
			fw_iw_abort(fw, c, ORDMA_IW_STATUS_PROTOCOL);
			return;
		}
		memcpy(c->rx + c->rx_len, data, take);
		c->rx_len += take;
		data = (const uint8_t *)data + take;
		len -= take;
		if (fw_iw_rx_want(c))
			continue;	/* the header told the length */
		if (c->phase == FW_IW_WAIT_REQ)
			fw_iw_got_request(fw, c);
		else if (c->phase == FW_IW_REQ_SENT)
			fw_iw_got_reply(fw, c);
		else
			fw_iw_got_rtr(fw, c);
	}
	/* ended, or rejected (TCP is closed: what follows is dropped) */
	if (!len || c->phase == FW_IW_FREE || c->phase == FW_IW_REJECTED)
		return;
	if (c->phase == FW_IW_RDMA || c->phase == FW_IW_CLOSING) {
		fw_iw_rx_fpdus(fw, c, data, len);
		return;
	}
	/* bytes after the request, before our reply: not MPA */
	fw->tcp.iw->stats.mpa_bad++;
	fw_iw_abort(fw, c, ORDMA_IW_STATUS_PROTOCOL);
}

static void fw_iw_peer_fin(struct ordma_fw *fw, void *arg, uint32_t conn)
{
	struct fw_iw_conn *c = fw_iw_conn_of_tcp(fw, conn);

	(void)arg;
	if (!c)
		return;
	if (c->phase != FW_IW_RDMA) {
		/* a close during the MPA exchange: reset (as siw) */
		fw_iw_abort(fw, c, ORDMA_IW_STATUS_RESET);
		return;
	}
	if (c->fpdu_len) {
		/* an FPDU cut by the FIN never completes: its bytes are
		 * dropped, the QP goes to error and the connection closes
		 */
		fw->tcp.iw->stats.rx_fpdu_bytes += c->fpdu_len;
		c->fpdu_len = 0;
		fw_iw_close_terminated(fw, c, NULL);
		return;
	}
	c->phase = FW_IW_CLOSING;
	fw_async_event(fw, ORDMA_EQE_IW_DISCONNECT, fw_iw_handle(fw, c), 0,
		       c->qpn);
	/* nothing more to send to a peer that closed: FIN back */
	fw_tcp_shutdown(fw, conn);
}

static void fw_iw_sent(struct ordma_fw *fw, void *arg, uint32_t conn,
		       uint32_t len)
{
	struct fw_iw_conn *c = fw_iw_conn_of_tcp(fw, conn);
	struct fw_qp *qp;

	(void)arg;
	(void)len;
	if (!c || c->phase != FW_IW_RDMA)
		return;
	/* room in the send buffer: FPDUs that waited for it go */
	qp = fw_iw_qp(fw, c);
	if (qp)
		fw_qp_sq_kick(fw, qp);
}

static void fw_iw_closed(struct ordma_fw *fw, void *arg, uint32_t conn,
			 enum fw_tcp_close_reason reason)
{
	struct fw_iw_conn *c = fw_iw_conn_of_tcp(fw, conn);

	(void)arg;
	if (!c)
		return;
	/* the part of an FPDU a reset cut off is dropped with the QP */
	fw->tcp.iw->stats.rx_fpdu_bytes += c->fpdu_len;
	fw_iw_end(fw, c, fw_iw_status(reason));
}

static const struct fw_tcp_user fw_iw_tcp_user = {
	.accepted = fw_iw_accepted,
	.connected = fw_iw_connected,
	.recv = fw_iw_recv,
	.peer_fin = fw_iw_peer_fin,
	.sent = fw_iw_sent,
	.closed = fw_iw_closed,
};

/* ------------------------------------------------------------------ */
/* The port's address, timers, lifetime                                */
/* ------------------------------------------------------------------ */

static uint32_t fw_iw_port_ip(const struct ordma_fw *fw)
{
	size_t i;

	for (i = 0; i < FW_GID_TABLE_LEN; i++)
		if (fw->gids[i].valid && fw->gids[i].type == ORDMA_GID_TYPE_IP)
			return fw_iw_gid_to_ip(fw->gids[i].gid);
	return 0;
}

/* What a stopped copy of the stack counted, added to the totals */
static void fw_iw_retire_tcp_stats(struct ordma_fw *fw, struct fw_iw *iw)
{
	uint64_t *sum = (uint64_t *)(void *)&iw->tcp_retired;
	const uint64_t *add;
	struct fw_tcp_stats st;
	size_t i;

	fw_tcp_stats(fw, &st);
	add = (const uint64_t *)(const void *)&st;
	for (i = 0; i < sizeof(st) / sizeof(uint64_t); i++)
		sum[i] += add[i];
}

/*
 * The connections, listeners and the stack go; the counters stay (they
 * count from the last reset of the function)
 */
static void fw_iw_drop(struct ordma_fw *fw)
{
	struct fw_iw *iw = fw->tcp.iw;
	uint32_t i;

	if (!iw)
		return;
	if (fw_tcp_running(fw))
		fw_iw_retire_tcp_stats(fw, iw);
	fw_tcp_stop(fw);
	/* the slots keep counting: a handle from before stays refused */
	for (i = 0; i < FW_IW_MAX_CONN; i++)
		if (iw->conn[i].phase != FW_IW_FREE)
			fw_iw_slot_clear(&iw->conn[i]);
	memset(iw->slot_of_tcp, 0, sizeof(iw->slot_of_tcp));
	iw->rejected = 0;
	memset(iw->listening, 0, sizeof(iw->listening));
	memset(iw->listen_pending, 0, sizeof(iw->listen_pending));
	fw->tcp.ip = 0;
}

void fw_iw_stop(struct ordma_fw *fw)
{
	fw_iw_drop(fw);
	fw_tcp_stop(fw);
	free(fw->tcp.iw);
	fw->tcp.iw = NULL;
	fw->tcp.ip = 0;
}

/* The port's IPv4 address changed: the stack follows it */
static uint8_t fw_iw_addr_changed(struct ordma_fw *fw, struct fw_cmd *c)
{
	uint32_t ip = fw_iw_port_ip(fw);

	if (ip == fw->tcp.ip && (fw_tcp_running(fw) || !ip))
		return ORDMA_CMD_STATUS_OK;
	/* connections on the old address end with it, without events:
	 * the host removed the address
	 */
	fw_iw_drop(fw);
	if (!ip)
		return ORDMA_CMD_STATUS_OK;
	if (!fw->tcp.iw)
		fw->tcp.iw = calloc(1, sizeof(*fw->tcp.iw));
	if (!fw->tcp.iw || fw_tcp_start(fw, ip, 0xffffffffu)) {
		fw_iw_drop(fw);
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_NO_RESOURCES,
				   "no TCP offload free for the address");
	}
	fw->tcp.ip = ip;
	fw_tcp_set_user(fw, &fw_iw_tcp_user, NULL);
	return ORDMA_CMD_STATUS_OK;
}

uint8_t fw_cmd_add_port_gid(struct ordma_fw *fw, struct fw_cmd *c)
{
	uint8_t status = fw_cmd_add_gid(fw, c);

	if (status != ORDMA_CMD_STATUS_OK || !fw_port_is_iwarp(fw))
		return status;
	status = fw_iw_addr_changed(fw, c);
	if (status != ORDMA_CMD_STATUS_OK)
		memset(&fw->gids[le32_to_cpu(c->in->add_gid.index)], 0,
		       sizeof(fw->gids[0]));
	return status;
}

uint8_t fw_cmd_del_port_gid(struct ordma_fw *fw, struct fw_cmd *c)
{
	uint8_t status = fw_cmd_del_gid(fw, c);

	if (status != ORDMA_CMD_STATUS_OK || !fw_port_is_iwarp(fw))
		return status;
	return fw_iw_addr_changed(fw, c);
}

uint64_t fw_iw_timer(struct ordma_fw *fw)
{
	uint64_t next = fw_tcp_timer(fw), now = fw_now(fw);
	struct fw_iw *iw = fw->tcp.iw;
	uint32_t i;

	if (!iw)
		return next;
	for (i = 0; i < FW_IW_MAX_CONN; i++) {
		struct fw_iw_conn *c = &iw->conn[i];

		if (c->phase == FW_IW_FREE || !c->deadline_ns)
			continue;
		if (c->deadline_ns <= now) {
			iw->stats.mpa_timeouts++;
			fw_iw_abort(fw, c, ORDMA_IW_STATUS_TIMEOUT);
			continue;
		}
		if (c->deadline_ns < next)
			next = c->deadline_ns;
	}
	return next;
}

void fw_iw_stats(const struct ordma_fw *fw, struct fw_iw_stats *st)
{
	if (fw->tcp.iw)
		*st = fw->tcp.iw->stats;
	else
		memset(st, 0, sizeof(*st));
}

void fw_iw_tcp_stats(struct ordma_fw *fw, struct fw_tcp_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (!fw->tcp.iw)
		return;
	if (fw_tcp_running(fw))
		fw_tcp_stats(fw, st);
	{
		const uint64_t *old = (const uint64_t *)(const void *)
				      &fw->tcp.iw->tcp_retired;
		uint64_t *sum = (uint64_t *)(void *)st;
		size_t i;

		for (i = 0; i < sizeof(*st) / sizeof(uint64_t); i++)
			sum[i] += old[i];
	}
}

/* ------------------------------------------------------------------ */
/* Commands                                                            */
/* ------------------------------------------------------------------ */

#define PARAM_OFF(field) \
	FW_BUF_SYNDROME(offsetof(struct ordma_iw_conn_params, field))

static uint8_t fw_iw_ready(struct ordma_fw *fw, struct fw_cmd *c)
{
	if (!fw_port_is_iwarp(fw))
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_NOT_SUPPORTED,
				   "not an iWARP port");
	if (!fw->tcp.iw || !fw->tcp.ip)
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BAD_STATE,
				   "the port has no IP address (ADD_GID)");
	return ORDMA_CMD_STATUS_OK;
}

/* An address field: zero (the port's) or the port's own */
static bool fw_iw_local_ip_ok(const struct ordma_fw *fw,
			      const uint8_t ip[16])
{
	uint8_t mine[16];

	fw_iw_ip_to_gid(fw->tcp.ip, mine);
	return fw_bytes_zero(ip, 16) || !memcmp(ip, mine, 16);
}

uint8_t fw_cmd_iw_create_listen(struct ordma_fw *fw, struct fw_cmd *c)
{
	const struct ordma_cmd_iw_create_listen *p = &c->in->iw_create_listen;
	uint16_t backlog = le16_to_cpu(p->backlog);
	uint16_t port = le16_to_cpu(p->port);
	uint8_t status = fw_iw_ready(fw, c);
	int64_t l;

	if (status != ORDMA_CMD_STATUS_OK)
		return status;
	if (!fw_iw_local_ip_ok(fw, p->ip))
		return fw_cmd_bad_param(c, FW_CMD_OFF(iw_create_listen.ip),
					"not the port's address");
	if (!port)
		return fw_cmd_bad_param(c, FW_CMD_OFF(iw_create_listen.port),
					"port 0");
	if (!backlog || backlog > ORDMA_IW_MAX_BACKLOG)
		return fw_cmd_bad_param(c, FW_CMD_OFF(iw_create_listen.backlog),
					"backlog not 1..64");
	l = fw_tcp_listen(fw, port, (uint8_t)backlog);
	if (l == -EADDRINUSE)
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BUSY,
				   "TCP port in use");
	if (l < 0)
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_NO_RESOURCES,
				   "no listener left");
	fw->tcp.iw->listening[l] = true;
	fw->tcp.iw->listen_backlog[l] = backlog;
	fw->tcp.iw->listen_pending[l] = 0;
	c->out->handle.handle = cpu_to_le32((uint32_t)l);
	return ORDMA_CMD_STATUS_OK;
}

uint8_t fw_cmd_iw_destroy_listen(struct ordma_fw *fw, struct fw_cmd *c)
{
	uint32_t l = le32_to_cpu(c->in->iw_conn.handle);
	uint8_t status = fw_iw_ready(fw, c);
	struct fw_iw *iw = fw->tcp.iw;
	uint32_t i;

	if (status != ORDMA_CMD_STATUS_OK)
		return status;
	if (c->in->iw_conn.flags)
		return fw_cmd_bad_param(c, FW_CMD_OFF(iw_conn.flags),
					"flags must be 0");
	if (l >= FW_TCP_MAX_LISTEN || !iw->listening[l])
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BAD_HANDLE,
				   "no such listener");
	/* requests not yet accepted go with it */
	for (i = 0; i < FW_IW_MAX_CONN; i++) {
		struct fw_iw_conn *conn = &iw->conn[i];

		if ((conn->phase == FW_IW_WAIT_REQ ||
		     conn->phase == FW_IW_REQ_RCVD) && conn->listener == l) {
			fw_tcp_abort(fw, conn->tcp);
			fw_iw_free(fw, conn);
		}
	}
	fw_tcp_unlisten(fw, l);
	iw->listening[l] = false;
	return ORDMA_CMD_STATUS_OK;
}

/* The QP a connection will run: an RC QP of the port in RTR, free */
static uint8_t fw_iw_check_qp(struct ordma_fw *fw, struct fw_cmd *c,
			      uint32_t qpn, struct fw_qp **qpp)
{
	struct fw_qp *qp = fw_qp_lookup(fw, qpn);

	if (!qp)
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BAD_HANDLE, "no such QP");
	if (qp->type != ORDMA_QPT_RC || qp->state != ORDMA_QPS_RTR)
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BAD_STATE,
				   "QP not an RC QP in RTR");
	if (qp->iw_conn_plus1)
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BUSY,
				   "QP has a connection");
	*qpp = qp;
	return ORDMA_CMD_STATUS_OK;
}

static uint8_t fw_iw_read_params(struct ordma_fw *fw, struct fw_cmd *c,
				 struct ordma_iw_conn_params *p)
{
	uint8_t status = fw_iw_ready(fw, c);

	if (status != ORDMA_CMD_STATUS_OK)
		return status;
	if (c->in->buf.handle)
		return fw_cmd_bad_param(c, FW_CMD_OFF(buf.handle),
					"handle must be 0");
	status = fw_cmd_read_buf(fw, c, p, sizeof(*p));
	if (status != ORDMA_CMD_STATUS_OK)
		return status;
	if (p->private_data_len > ORDMA_IW_MAX_PRIVATE_DATA)
		return fw_cmd_bad_param(c, PARAM_OFF(private_data_len),
					"private data over 252 bytes");
	if (le16_to_cpu(p->ird) > FW_IW_MAX_RD)
		return fw_cmd_bad_param(c, PARAM_OFF(ird), "IRD over 128");
	if (le16_to_cpu(p->ord) > FW_IW_MAX_RD)
		return fw_cmd_bad_param(c, PARAM_OFF(ord), "ORD over 128");
	if (p->reserved_55 || p->reserved_56)
		return fw_cmd_bad_param(c, PARAM_OFF(reserved_55),
					"reserved bytes not 0");
	return ORDMA_CMD_STATUS_OK;
}

uint8_t fw_cmd_iw_connect(struct ordma_fw *fw, struct fw_cmd *c)
{
	struct ordma_iw_conn_params p;
	struct fw_iw_conn *conn;
	struct fw_qp *qp;
	uint8_t status;
	int64_t h;

	status = fw_iw_read_params(fw, c, &p);
	if (status != ORDMA_CMD_STATUS_OK)
		return status;
	if (!fw_iw_local_ip_ok(fw, p.local_ip))
		return fw_cmd_bad_param(c, PARAM_OFF(local_ip),
					"not the port's address");
	if (!fw_gid_is_ipv4(p.remote_ip) ||
	    !fw_iw_gid_to_ip(p.remote_ip))
		return fw_cmd_bad_param(c, PARAM_OFF(remote_ip),
					"not an IPv4 address");
	if (!p.remote_port)
		return fw_cmd_bad_param(c, PARAM_OFF(remote_port), "port 0");
	if (fw_bytes_zero(p.next_hop_mac, 6) || (p.next_hop_mac[0] & 1))
		return fw_cmd_bad_param(c, PARAM_OFF(next_hop_mac),
					"MAC zero or multicast");
	if (p.conn)
		return fw_cmd_bad_param(c, PARAM_OFF(conn), "conn must be 0");
	status = fw_iw_check_qp(fw, c, le32_to_cpu(p.qpn), &qp);
	if (status != ORDMA_CMD_STATUS_OK)
		return status;
	h = fw_tcp_connect(fw, fw_iw_gid_to_ip(p.remote_ip),
			   le16_to_cpu(p.remote_port),
			   le16_to_cpu(p.local_port), p.next_hop_mac);
	if (h == -EADDRINUSE)
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BUSY,
				   "local TCP port in use");
	conn = h >= 0 && h < FW_TCP_MAX_CONN ?
	       fw_iw_conn_new(fw, (uint32_t)h) : NULL;
	if (!conn) {
		if (h >= 0)
			fw_tcp_abort(fw, (uint32_t)h);
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_NO_RESOURCES,
				   "no connection left");
	}
	conn->phase = FW_IW_TCP_CONNECTING;
	conn->active = true;
	conn->enhanced = true;
	conn->listener = FW_IW_NO_LISTENER;
	conn->qpn = qp->qpn;
	conn->ird = le16_to_cpu(p.ird);
	conn->ord = le16_to_cpu(p.ord);
	conn->remote_ip = fw_iw_gid_to_ip(p.remote_ip);
	conn->remote_port = le16_to_cpu(p.remote_port);
	conn->req_pd_len = p.private_data_len;
	memcpy(conn->req_pd, p.private_data, p.private_data_len);
	qp->iw_conn_plus1 = fw_iw_slot(fw, conn) + 1;
	c->out->handle.handle = cpu_to_le32(fw_iw_handle(fw, conn));
	return ORDMA_CMD_STATUS_OK;
}

static uint8_t fw_iw_request_of(struct ordma_fw *fw, struct fw_cmd *c,
				const struct ordma_iw_conn_params *p,
				struct fw_iw_conn **connp)
{
	struct fw_iw_conn *conn = fw_iw_conn_get(fw, le32_to_cpu(p->conn));

	if (!conn)
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BAD_HANDLE,
				   "no such connection");
	if (conn->phase != FW_IW_REQ_RCVD)
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BAD_STATE,
				   "no request waiting on the connection");
	*connp = conn;
	return ORDMA_CMD_STATUS_OK;
}

uint8_t fw_cmd_iw_accept(struct ordma_fw *fw, struct fw_cmd *c)
{
	struct ordma_iw_conn_params p;
	struct fw_iw_conn *conn = NULL;
	struct fw_iw *iw;
	struct fw_qp *qp;
	uint8_t status;

	status = fw_iw_read_params(fw, c, &p);
	if (status != ORDMA_CMD_STATUS_OK)
		return status;
	status = fw_iw_request_of(fw, c, &p, &conn);
	if (status != ORDMA_CMD_STATUS_OK)
		return status;
	status = fw_iw_check_qp(fw, c, le32_to_cpu(p.qpn), &qp);
	if (status != ORDMA_CMD_STATUS_OK)
		return status;
	iw = fw->tcp.iw;
	conn->qpn = qp->qpn;
	conn->ird = le16_to_cpu(p.ird);
	conn->ord = le16_to_cpu(p.ord);
	/* no more Reads out than the peer said it takes */
	if (conn->enhanced && fw_iw_rd(conn->peer_ird) < conn->ord)
		conn->ord = fw_iw_rd(conn->peer_ird);
	/* peer to peer: the Write RTR, the only one offered or taken */
	conn->rtr = conn->enhanced &&
		    (conn->peer_ird & FW_MPA_V2_PEER2PEER) &&
		    (conn->peer_ord & FW_MPA_V2_RTR_WRITE);
	if (conn->enhanced && (conn->peer_ird & FW_MPA_V2_PEER2PEER) &&
	    !conn->rtr) {
		/* a Read or Send RTR only: not one we take */
		iw->stats.mpa_bad++;
		fw_iw_send_reply(fw, conn, true, NULL, 0);
		fw_tcp_close(fw, conn->tcp);
		fw_iw_free(fw, conn);
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_NOT_SUPPORTED,
				   "the peer offers no RTR by RDMA Write");
	}
	if (!fw_iw_send_reply(fw, conn, false, p.private_data,
			      p.private_data_len))
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_NO_RESOURCES,
				   "no room for the MPA reply");
	qp->iw_conn_plus1 = fw_iw_slot(fw, conn) + 1;
	if (conn->listener < FW_TCP_MAX_LISTEN &&
	    iw->listen_pending[conn->listener])
		iw->listen_pending[conn->listener]--;
	if (conn->rtr) {
		conn->phase = FW_IW_WAIT_RTR;
		fw_iw_arm(fw, conn, FW_IW_RTR_TIMEOUT_NS);
		return ORDMA_CMD_STATUS_OK;
	}
	fw_async_event(fw, ORDMA_EQE_IW_ESTABLISHED, fw_iw_handle(fw, conn), 0,
		       conn->qpn);
	fw_iw_rdma_mode(fw, conn);
	return ORDMA_CMD_STATUS_OK;
}

uint8_t fw_cmd_iw_reject(struct ordma_fw *fw, struct fw_cmd *c)
{
	struct ordma_iw_conn_params p;
	struct fw_iw_conn *conn = NULL;
	uint8_t status;

	status = fw_iw_read_params(fw, c, &p);
	if (status != ORDMA_CMD_STATUS_OK)
		return status;
	if (p.qpn)
		return fw_cmd_bad_param(c, PARAM_OFF(qpn), "qpn must be 0");
	status = fw_iw_request_of(fw, c, &p, &conn);
	if (status != ORDMA_CMD_STATUS_OK)
		return status;
	fw_iw_send_reply(fw, conn, true, p.private_data, p.private_data_len);
	fw_tcp_close(fw, conn->tcp);
	fw_iw_free(fw, conn);
	return ORDMA_CMD_STATUS_OK;
}

static uint8_t fw_iw_conn_state(const struct fw_iw_conn *c)
{
	switch (c->phase) {
	case FW_IW_REQ_RCVD:
		return ORDMA_IW_CONN_REQUEST;
	case FW_IW_WAIT_RTR:
		return ORDMA_IW_CONN_ACCEPTING;
	case FW_IW_RDMA:
		return ORDMA_IW_CONN_ESTABLISHED;
	case FW_IW_CLOSING:
		return ORDMA_IW_CONN_CLOSING;
	case FW_IW_REJECTED:
		return ORDMA_IW_CONN_CLOSED;
	default:
		return ORDMA_IW_CONN_CONNECTING;
	}
}

uint8_t fw_cmd_iw_query_conn(struct ordma_fw *fw, struct fw_cmd *c)
{
	uint32_t h = le32_to_cpu(c->in->buf.handle);
	struct ordma_iw_conn_info info;
	struct fw_tcp_conn_info tcp;
	struct fw_iw_conn *conn;
	uint8_t status = fw_iw_ready(fw, c);
	bool have_tcp;

	if (status != ORDMA_CMD_STATUS_OK)
		return status;
	conn = fw_iw_conn_get(fw, h);
	if (!conn)
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BAD_HANDLE,
				   "no such connection");
	status = fw_cmd_check_buf(c, sizeof(info));
	if (status != ORDMA_CMD_STATUS_OK)
		return status;
	memset(&info, 0, sizeof(info));
	/* a rejected connection's TCP is gone: what it was at the reject */
	if (conn->phase == FW_IW_REJECTED) {
		tcp = conn->tcp_last;
		have_tcp = true;
	} else {
		have_tcp = !fw_tcp_conn_info(fw, conn->tcp, &tcp);
	}
	if (have_tcp) {
		fw_iw_ip_to_gid(tcp.local_ip, info.local_ip);
		fw_iw_ip_to_gid(tcp.remote_ip, info.remote_ip);
		info.local_port = cpu_to_le16(tcp.local_port);
		info.remote_port = cpu_to_le16(tcp.remote_port);
		info.mss = cpu_to_le16(tcp.mss);
		info.tcp_state = cpu_to_le16(tcp.state);
		info.tcp_retransmits = cpu_to_le32(tcp.nrtx);
	}
	info.state = fw_iw_conn_state(conn);
	info.mpa_revision = conn->mpa_revision;
	info.mpa_flags = conn->mpa_flags;
	info.private_data_len = conn->pd_len;
	memcpy(info.private_data, conn->pd, conn->pd_len);
	info.qpn = cpu_to_le32(conn->qpn);
	info.ird = cpu_to_le16(conn->ird);
	info.ord = cpu_to_le16(conn->ord);
	info.peer_ird = cpu_to_le16(conn->peer_ird);
	info.peer_ord = cpu_to_le16(conn->peer_ord);
	return fw_cmd_write_buf(fw, c, &info, sizeof(info));
}

uint8_t fw_cmd_iw_destroy_conn(struct ordma_fw *fw, struct fw_cmd *c)
{
	uint32_t h = le32_to_cpu(c->in->iw_conn.handle);
	uint32_t flags = le32_to_cpu(c->in->iw_conn.flags);
	struct fw_iw_conn *conn;
	uint8_t status = fw_iw_ready(fw, c);

	if (status != ORDMA_CMD_STATUS_OK)
		return status;
	if (flags & ~ORDMA_IW_CLOSE_GRACEFUL)
		return fw_cmd_bad_param(c, FW_CMD_OFF(iw_conn.flags),
					"unknown flags");
	conn = fw_iw_conn_get(fw, h);
	if (!conn)
		return fw_cmd_fail(c, ORDMA_CMD_STATUS_BAD_HANDLE,
				   "no such connection");
	/* a rejected connection has no TCP left: only its handle goes */
	if (conn->phase != FW_IW_REJECTED) {
		if ((flags & ORDMA_IW_CLOSE_GRACEFUL) &&
		    (conn->phase == FW_IW_RDMA ||
		     conn->phase == FW_IW_CLOSING))
			fw_tcp_close(fw, conn->tcp);
		else
			fw_tcp_abort(fw, conn->tcp);
	}
	fw_iw_unbind(fw, conn, true);
	fw_iw_free(fw, conn);
	return ORDMA_CMD_STATUS_OK;
}
