/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * ORDMA firmware queue pairs and shared receive queues: the objects the
 * verbs commands create (fw_qp.c, fw_srq.c), the IBTA state machine
 * (fw_qp_state.c) and the interface the transport engine works through.
 *
 * Work queues are rings of 2^log_size WQEs of 2^wqe_shift bytes in host
 * memory, described by a page list.  Indices are free running 32-bit
 * counters like every other ring of the device; the slot of index i is
 * i mod 2^log_size.  For each queue:
 *
 *   ci <= next <= pi   (distances taken modulo 2^32)
 *
 *   pi    producer index from the driver's last accepted doorbell;
 *   next  SQ/RQ: the next WQE the engine starts (SQ) or takes for an
 *         incoming message (RQ); SRQ: the next WQE any QP takes;
 *   ci    SQ/RQ: the oldest WQE not yet completed; [ci, next) are in
 *         flight.  SRQ: equal to next (a taken SRQ WQE belongs to the QP
 *         that took it).
 *
 * The wqe_idx of a CQE is the slot of its WQE (index mod queue size).
 *
 * Every function here is called with the device lock held.
 */
#ifndef ORDMA_FW_QP_H
#define ORDMA_FW_QP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fw_priv.h"
#include "objects/fw_qp_tp_state.h"
#include "objects/fw_verbs.h"

/* Device limits; QUERY_DEVICE reports the same numbers. */
#define FW_MAX_QP			1024	/* QP numbers 0..1023 */
/* QP0 is an InfiniBand port's SMI QP (none on RoCE), QP1 the port's GSI
 * QP, created only by CREATE_QP with type SMI or GSI.  Other QPs are
 * numbered from here.
 */
#define FW_FIRST_QPN			2
#define FW_MAX_SRQ			256	/* SRQ numbers 1..256 */
#define FW_MAX_QP_RD_ATOM		FW_TP_MAX_RD_RES /* responder depth */
/*
 * Initiator depth: the requester counts the READs and atomics among its
 * started WQEs and keeps nothing per request, so it takes the number the
 * responder offers (at most FW_TP_MAX_WQE are ever out).
 */
#define FW_MAX_QP_INIT_RD_ATOM		FW_TP_MAX_RD_RES
#define FW_RECV_WQE_HDR_SIZE		sizeof(struct ordma_recv_wqe)
/* A WQE must have room for at least one SGE: send 64 bytes and more,
 * receive 32 bytes and more (a 16-byte receive WQE would hold only its
 * header and is refused).
 */
#define FW_SEND_WQE_MIN_BYTES \
	(ORDMA_SEND_WQE_HDR_SIZE + sizeof(struct ordma_sge))
#define FW_RECV_WQE_MIN_BYTES \
	(FW_RECV_WQE_HDR_SIZE + sizeof(struct ordma_sge))

/*
 * CREATE_QP and MODIFY_QP read their parameters from a host buffer.  A
 * BAD_PARAM syndrome for a field of that buffer is reported as if the
 * buffer followed the 64-byte command entry: ORDMA_SYNDROME_BUF_BASE +
 * the field's offset in the buffer.  Syndromes below it name command bytes.
 */
#define FW_BUF_SYNDROME(buf_offset) \
	(ORDMA_SYNDROME_BUF_BASE + (buf_offset))

struct fw_wq {
	struct fw_page_list pages;
	uint8_t log_size;	/* 0: no such queue (a QP on an SRQ has no RQ) */
	uint8_t wqe_shift;
	uint32_t pi;
	uint32_t next;
	uint32_t ci;
};

/* MODIFY_QP attributes as last set, host order. */
struct fw_qp_attr {
	uint32_t access_flags;		/* ORDMA_ACCESS_* */
	uint32_t qkey;
	uint32_t dest_qpn;
	uint8_t path_mtu;		/* IB enum 1..5; 0 until set */
	uint8_t timeout;
	uint8_t retry_cnt;
	uint8_t rnr_retry;
	uint8_t min_rnr_timer;
	uint8_t max_rd_atomic;
	uint8_t max_dest_rd_atomic;
	uint8_t port;
	uint16_t pkey_index;
	bool en_sqd_async_notify;
	bool has_av;
	struct ordma_av av;		/* as the driver wrote it */
};

/* Per-QP counters.  The first group is kept here; the engine keeps the
 * second.  Cleared by the transition to RESET (after they are added to
 * the device's totals, see fw_qp_retire_counters()); QUERY_QP_STATS
 * reports them.
 */
struct fw_qp_counters {
	uint64_t sq_doorbells;
	uint64_t rq_doorbells;
	uint64_t sq_flushed;		/* flush completions for send WQEs */
	uint64_t rq_flushed;
	uint64_t cqe_dropped;		/* completion the CQ did not take */

	uint64_t tx_packets;
	uint64_t rx_packets;
	uint64_t retransmits;
	uint64_t timeouts;
	uint64_t rnr_naks_sent;
	uint64_t rnr_naks_received;
	uint64_t seq_errors;		/* responder: request PSN ahead */
	uint64_t duplicate_requests;
	uint64_t nak_seq_received;	/* requester: PSN sequence NAKs */
	uint64_t rnr_retry_exceeded;
	uint64_t implied_naks;		/* response not the one expected */
	uint64_t rx_read_requests;
	uint64_t rx_write_requests;
	uint64_t rx_atomic_requests;
	uint64_t access_naks_sent;
	uint64_t access_naks_received;
};

struct fw_qp {
	bool valid;
	uint8_t type;			/* enum ordma_qp_type; GSI runs as UD */
	uint8_t state;			/* enum ordma_qp_state */
	bool gsi;			/* the port's QP1 (ORDMA_QPT_GSI) */
	bool smi;			/* the port's QP0 (ORDMA_QPT_SMI) */
	/* SQD entered and WQEs were still in flight: SQ_DRAINED follows
	 * (if requested) once fw_qp_sq_drained() is called.
	 */
	bool sq_draining;
	uint32_t qpn;
	uint32_t uctx;
	uint32_t pdn;
	uint32_t send_cqn;
	uint32_t recv_cqn;
	uint32_t srqn;			/* ORDMA_NO_SRQ without one */
	uint32_t max_inline_data;
	/* iWARP: the slot of the connection (tcp/fw_iw_conn.c) bound to
	 * it, plus one; 0: none
	 */
	uint32_t iw_conn_plus1;
	struct fw_wq sq;
	struct fw_wq rq;
	struct fw_qp_attr attr;

	/* Transport state, owned by the engine (types: fw_qp_tp_state.h).
	 * MODIFY_QP loads the PSNs from SQ_PSN / RQ_PSN; QUERY_QP reports
	 * them as they are now.
	 */
	uint32_t next_psn;		/* requester: PSN of the next packet */
	uint32_t expected_psn;		/* responder: PSN expected next */
	uint32_t msn;			/* responder: message sequence number */
	struct fw_tp_req req;		/* requester (fw_requester.c) */
	struct fw_tp_resp resp;		/* responder (fw_responder.c) */
	struct fw_tp_iw iw;		/* iWARP (fw_iw_*.c) */

	struct fw_qp_counters counters;
};

struct fw_srq {
	bool valid;
	/* the limit event is armed while limit != 0 */
	uint32_t limit;
	uint32_t srqn;
	uint32_t uctx;
	uint32_t pdn;
	uint32_t qp_refs;		/* QPs created on this SRQ */
	struct fw_wq wq;		/* next == ci: see the top of the file */
};

/* ------------------------------------------------------------------ */
/* IBTA state machine (fw_qp_state.c, no device state)                 */
/* ------------------------------------------------------------------ */

/* Attributes MODIFY_QP knows the meaning of (supported or not). */
#define FW_QP_ATTR_DEFINED	(ORDMA_QP_ATTR_SUPPORTED | \
				 ORDMA_QP_ATTR_ALT_PATH | \
				 ORDMA_QP_ATTR_PATH_MIG_STATE | \
				 ORDMA_QP_ATTR_CAP)
#define FW_QP_ATTR_UNSUPPORTED	(ORDMA_QP_ATTR_ALT_PATH | \
				 ORDMA_QP_ATTR_PATH_MIG_STATE | \
				 ORDMA_QP_ATTR_CAP)

struct fw_qp_transition {
	bool valid;
	uint32_t required;	/* ORDMA_QP_ATTR_* that must be given */
	uint32_t optional;	/* ... that may be given (STATE always may) */
};

enum fw_qp_check {
	FW_QP_CHECK_OK,
	FW_QP_CHECK_BAD_TRANSITION,	/* cur -> next not allowed */
	FW_QP_CHECK_MISSING,		/* a required attribute is absent */
	FW_QP_CHECK_EXTRA,		/* an attribute not allowed here */
};

/* Rules of cur -> next for a QP type; false for values out of range. */
bool fw_qp_transition_rule(uint8_t type, uint8_t cur, uint8_t next,
			   struct fw_qp_transition *rule);
/*
 * Checks a MODIFY_QP attribute mask for cur -> next (the caller derives
 * next from the mask: the STATE attribute, else cur).  *bits gets the
 * missing or the disallowed attributes.
 */
enum fw_qp_check fw_qp_check_transition(uint8_t type, uint8_t cur,
					uint8_t next, uint32_t mask,
					uint32_t *bits);
const char *fw_qp_state_name(uint8_t state);

/* ------------------------------------------------------------------ */
/* The engine's QP hooks                                               */
/* ------------------------------------------------------------------ */

/*
 * What the QP objects ask of the transport engine, the room above them:
 * the engine fills these in and registers them when the device is
 * created (fw_tp_create()), and the QP objects reach it only through
 * them.
 */
struct fw_qp_engine_ops {
	/* INIT -> RTR: the responder starts at RQ_PSN */
	void (*to_rtr)(struct fw_qp *qp);
	/* RTR or SQE -> RTS: the requester starts at SQ_PSN */
	void (*to_rts)(struct fw_qp *qp);
	/* ERR, RESET, destroy: the QP's deadlines and queued work stop */
	void (*stop)(struct fw_qp *qp);
	/* the QP's state changed: its share of the RC budget follows */
	void (*budget_sync)(struct ordma_fw *fw, struct fw_qp *qp);
	/* RTS, SQD: starts or continues send WQEs [sq.next, sq.pi) */
	void (*sq_progress)(struct ordma_fw *fw, struct fw_qp *qp);
	/* iWARP, RTS or SQD: a DDP segment of len bytes (an FPDU's, its
	 * length and CRC checked) from the QP's connection
	 */
	void (*iw_rx)(struct ordma_fw *fw, struct fw_qp *qp,
		      const uint8_t *ulpdu, size_t len);
};

/* ------------------------------------------------------------------ */
/* Engine interface (fw_qp.c, fw_srq.c)                                */
/* ------------------------------------------------------------------ */

/* QP qpn if it exists (any state), else NULL. */
struct fw_qp *fw_qp_lookup(struct ordma_fw *fw, uint32_t qpn);
/* SRQ srqn if it exists, else NULL. */
struct fw_srq *fw_srq_lookup(struct ordma_fw *fw, uint32_t srqn);

static inline uint32_t fw_wq_size(const struct fw_wq *wq)
{
	return 1u << wq->log_size;
}

static inline uint32_t fw_wq_slot(const struct fw_wq *wq, uint32_t index)
{
	return index & (fw_wq_size(wq) - 1);
}

/* Posted WQEs not yet started (SQ/RQ) or taken (SRQ). */
static inline uint32_t fw_wq_pending(const struct fw_wq *wq)
{
	return wq->pi - wq->next;
}

/*
 * Copies the first len bytes (at most the WQE size) of the WQE at index
 * (any free-running value; the slot is taken) of a work queue.  0, or -1
 * if the page list cannot be walked or the DMA fails.
 */
int fw_wq_read_wqe(struct ordma_fw *fw, const struct fw_wq *wq,
		   uint32_t index, void *buf, size_t len);

/*
 * Called after every SQ doorbell and every state change that may let
 * send WQEs run.  ERR and SQE: flushes [ci, pi) with WR_FLUSH_ERR.  RTS:
 * this is where the transport engine starts WQEs [next, pi).  RESET,
 * INIT, RTR: posted WQEs wait for RTS.  SQD: no new WQE starts.
 */
void fw_qp_sq_kick(struct ordma_fw *fw, struct fw_qp *qp);

/*
 * The CQE opcode of a send WQE's completion (enum ordma_wqe_opcode to
 * ORDMA_CQE_OP_*): the requester's completions and the flush of the SQ.
 * SEND for every SEND variant and for an opcode the device does not know.
 */
uint8_t fw_wqe_cqe_opcode(uint8_t wqe_opcode);

/*
 * Posts a completion for qp to its send (is_send) or receive CQ; qpn is
 * filled in.  0, or -1 if the CQ did not take it (counted).
 */
int fw_qp_complete(struct ordma_fw *fw, struct fw_qp *qp, bool is_send,
		   struct ordma_cqe *cqe, bool solicited);

/*
 * The engine found a fatal error on qp: the QP enters ERR (flushing both
 * queues, LAST_WQE for SRQ QPs) and, if event_type is not 0, posts that
 * affiliated async event (ORDMA_EQE_QP_FATAL, _REQ_ERR, _ACCESS_ERR)
 * with data[0] = qpn.  The WQE that failed must already be completed
 * (ci moved past it) with its own status.
 */
void fw_qp_set_error(struct ordma_fw *fw, struct fw_qp *qp,
		     uint8_t event_type);

/*
 * A UD or UC send WQE completed in error: the QP enters SQE and the rest of
 * its SQ is flushed; receives go on.  RC has no SQE state: fw_qp_set_error
 * with ORDMA_EQE_QP_REQ_ERR instead.
 */
void fw_qp_enter_sqe(struct ordma_fw *fw, struct fw_qp *qp);
/*
 * An iWARP QP's connection reached RDMA mode: RTR -> RTS, with the Read
 * depths the MPA exchange negotiated (ird: Read Requests it takes, ord:
 * RDMA Reads it may have outstanding); posted send WQEs start.
 */
void fw_qp_iw_connected(struct ordma_fw *fw, struct fw_qp *qp, uint16_t ird,
			uint16_t ord);

/* In SQD: the last in-flight send WQE has completed (ci == next). */
void fw_qp_sq_drained(struct ordma_fw *fw, struct fw_qp *qp);

/*
 * Takes the next receive WQE for an incoming message on qp: from its RQ
 * (rq.next advances; the WQE is completed later through fw_qp_complete
 * and fw_qp_rq_completed) or from its SRQ (consumed at once; may post the
 * SRQ_LIMIT event).  Copies up to len bytes of the WQE and gives the CQE
 * wqe_idx.  Returns 0, -1 if none is posted, or 1 if it was taken but
 * could not be read (DMA failure): the caller must not use the copy.
 */
int fw_qp_recv_take(struct ordma_fw *fw, struct fw_qp *qp, void *wqe,
		    size_t len, uint32_t *wqe_idx);
/* RQ (not SRQ): the oldest taken receive WQE has been completed. */
void fw_qp_rq_completed(struct fw_qp *qp);

/* Takes the next posted SRQ WQE (see fw_qp_recv_take). */
int fw_srq_take(struct ordma_fw *fw, struct fw_srq *srq, void *wqe,
		size_t len, uint32_t *wqe_idx);

/* ------------------------------------------------------------------ */
/* Lifetime, doorbells, commands                                       */
/* ------------------------------------------------------------------ */

/* Object tables: allocated with the device, emptied by every reset. */
int fw_qp_tables_create(struct ordma_fw *fw);
void fw_qp_tables_destroy(struct ordma_fw *fw);
void fw_qp_reset(struct ordma_fw *fw);
/* Objects in use, for QUERY_RESOURCES; QPs count QP1 */
uint32_t fw_qp_in_use(const struct ordma_fw *fw);
uint32_t fw_srq_in_use(const struct ordma_fw *fw);
void fw_srq_reset(struct ordma_fw *fw);

/* ORDMA_DB_SQ / ORDMA_DB_RQ on doorbell page `page`: NULL or why not. */
const char *fw_qp_doorbell(struct ordma_fw *fw, uint32_t page, uint32_t reg,
			   uint32_t qpn, uint32_t pi);
/* ORDMA_DB_SRQ */
const char *fw_srq_doorbell(struct ordma_fw *fw, uint32_t page,
			    uint32_t srqn, uint32_t pi);

/* Shared by the QP and SRQ commands */
const char *fw_wq_pi_error(const struct fw_wq *wq, uint32_t pi);
/* SRQ reference from a QP: fw_srq_get after the owner check passed */
int fw_srq_check(struct ordma_fw *fw, uint32_t srqn, uint32_t uctx);
void fw_srq_get(struct ordma_fw *fw, uint32_t srqn);
void fw_srq_put(struct ordma_fw *fw, uint32_t srqn);

uint8_t fw_cmd_create_qp(struct ordma_fw *fw, struct fw_cmd *c);
uint8_t fw_cmd_modify_qp(struct ordma_fw *fw, struct fw_cmd *c);
uint8_t fw_cmd_query_qp(struct ordma_fw *fw, struct fw_cmd *c);
uint8_t fw_cmd_query_qp_stats(struct ordma_fw *fw, struct fw_cmd *c);
uint8_t fw_cmd_destroy_qp(struct ordma_fw *fw, struct fw_cmd *c);
uint8_t fw_cmd_create_srq(struct ordma_fw *fw, struct fw_cmd *c);
uint8_t fw_cmd_modify_srq(struct ordma_fw *fw, struct fw_cmd *c);
uint8_t fw_cmd_destroy_srq(struct ordma_fw *fw, struct fw_cmd *c);

#endif /* ORDMA_FW_QP_H */
