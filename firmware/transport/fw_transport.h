/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * ORDMA firmware RoCEv2 transport engine: the engine-internal interface
 * between its three files and the rest of the firmware.
 *
 *   fw_transport.c   RX dispatch (multicast delivery to the member QPs
 *                    included), TX frame building from a QP's address
 *                    vector and the GID table, SGE gather/scatter, the
 *                    engine's timers, the QP hooks it registers with the
 *                    QP objects (struct fw_qp_engine_ops).
 *   fw_requester.c   send queue execution: RC segmentation, PSNs, the
 *                    send window, ACK/NAK/response processing,
 *                    retransmission, completions; UC sends (segmented,
 *                    paced, never acknowledged); UD sends; local
 *                    operations (LOCAL_INV, REG_MR).
 *   fw_responder.c   incoming requests: RC SEND/WRITE/READ/atomics with
 *                    PSN checking, duplicates, ACK coalescing, NAKs and
 *                    RNR; UC receives (no ACKs, lost or bad messages
 *                    dropped); UD receives with the GRH area.
 *
 * The engine runs synchronously inside doorbell writes, received frames
 * and timer callbacks, with the device lock held.  Its per-QP state
 * (struct fw_tp_req, struct fw_tp_resp) is embedded in struct fw_qp and
 * cleared with it; it is defined with the QP objects, in
 * objects/fw_qp_tp_state.h, so that fw_qp.h needs nothing from this room.
 */
#ifndef ORDMA_FW_TRANSPORT_H
#define ORDMA_FW_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ordma-compat/ordma_compat.h>
#include <linux/ordma/ordma_hw.h>
#include "fw_priv.h"
#include "objects/fw_qp_tp_state.h"
#include "wire/fw_iw_wire.h"
#include "wire/fw_roce_wire.h"

struct ordma_fw;
struct fw_qp;
struct ordma_sge;

/*
 * The limits that size the per-QP state (FW_TP_MAX_WQE, FW_TP_MAX_RD_RES,
 * FW_TP_READ_JOBS, FW_TP_MAX_SGE, FW_TP_RECV_WQE_BYTES) are defined with
 * it, in objects/fw_qp_tp_state.h.
 */
/*
 * Unacknowledged request packets (PSNs) a requester may have out.  Nothing
 * is kept per PSN (go-back-N rebuilds packets from the started WQEs), so
 * the bound is what the peer and the wire can take: 512 packets are 2 MiB
 * at MTU 4096, about one round trip of the model's data path.
 */
#define FW_TP_WINDOW			512
/*
 * ACK coalescing: the requester sets AckReq on the last packet of every
 * message and at least every FW_TP_ACK_EVERY packets; the responder
 * acknowledges those, the last packet of a message and at least every
 * FW_TP_ACK_EVERY in-sequence packets since its last ACK or NAK, so a
 * requester that asks less often is still clocked.  Duplicates, NAKs,
 * READ responses and atomic ACKs are never delayed.
 */
#define FW_TP_ACK_EVERY			64
_Static_assert(FW_TP_ACK_EVERY <= FW_TP_WINDOW / 4,
	       "several ACKs in flight per window");
/*
 * After a retransmission timeout (the wire lost packets, perhaps because
 * it is full) the requester goes back with this window, and doubles it
 * with every ACK that makes progress up to FW_TP_WINDOW: a full window
 * resent into a full wire would be lost again.
 */
#define FW_TP_WINDOW_MIN		FW_TP_ACK_EVERY
/*
 * PSNs in flight that all RC requesters of the device together may have,
 * so that what the receiving port must buffer does not grow with the
 * number of QPs sending at once.  A QP is charged for what it sent since
 * its last go-back and has not seen acknowledged, at most its window
 * (a READ request for as many PSNs as responses it asks for), and for
 * nothing while it waits for an RNR timer: what it sent before a NAK or
 * a timeout was lost or discarded.  The budget holds back packets, not
 * WQE starts.  A QP with nothing in flight may always send one packet,
 * so every QP that waits has an acknowledgement on its way that lets it
 * go on: it asks for one (AckReq) on the last packet the budget lets it
 * send, or tries again after FW_TP_BUDGET_RETRY_NS if others took the
 * room after it sent.
 */
#define FW_TP_DEVICE_OUTSTANDING	1024
/*
 * Kernel QPs (the storage and file system initiators and targets) keep
 * this much of it: user QPs together hold at most the rest.
 */
#define FW_TP_KERNEL_SHARE		256
#define FW_TP_USER_OUTSTANDING		\
	(FW_TP_DEVICE_OUTSTANDING - FW_TP_KERNEL_SHARE)
/*
 * One user context may hold at most FW_TP_CTX_OUTSTANDING, and at most
 * FW_TP_USER_OUTSTANDING / n, n the user contexts with PSNs in flight
 * (itself included): however many QPs a process drives, and however its
 * peers answer them, it cannot take more than its share while others
 * send, and the kernel keeps a full window beside any one process.
 */
#define FW_TP_CTX_OUTSTANDING		FW_TP_WINDOW
/*
 * The requester waits at least the RNR NAK's timer; after n RNR NAKs in a
 * row without progress it waits the timer times 2^(n-1), but no longer
 * than FW_TP_RNR_BACKOFF_MAX_NS (unless the timer itself is longer): a
 * responder that names the shortest timer and never posts a receive
 * costs the wire at most a packet per millisecond per QP, a receiver
 * that is only slow waits at most about a millisecond longer.
 */
#define FW_TP_RNR_BACKOFF_MAX_NS	1000000ULL
/* A QP the budget holds back with no ACK asked for tries again after */
#define FW_TP_BUDGET_RETRY_NS		10000ULL
_Static_assert(FW_TP_USER_OUTSTANDING >= FW_TP_CTX_OUTSTANDING,
	       "one user QP alone is never held back by the device budget");
_Static_assert(FW_TP_DEVICE_OUTSTANDING - FW_TP_CTX_OUTSTANDING >=
	       FW_TP_WINDOW, "nor a kernel QP beside one process");
/* the longest message, as IBTA allows: 2^31 bytes */
#define FW_TP_MAX_MSG_SIZE		(1u << 31)
/*
 * READ responses leave in bursts of FW_TP_READ_BURST packets, one burst
 * per FW_TP_READ_GAP_NS: a READ request is small, its response may be
 * thousands of packets, and the peer must be given time to take them
 * (a real port is paced by its line rate).
 */
#define FW_TP_READ_BURST		16
#define FW_TP_READ_GAP_NS		10000ULL
/*
 * UC sends have no ACKs to clock them: like READ responses they leave in
 * bursts of FW_TP_UC_BURST packets, one burst per FW_TP_UC_GAP_NS.
 */
#define FW_TP_UC_BURST			FW_TP_READ_BURST
#define FW_TP_UC_GAP_NS			FW_TP_READ_GAP_NS
/* UD receives: the GRH area at the start of the receive buffer */
#define FW_TP_GRH_LEN			40
#define FW_TP_PSN_HALF			0x800000u

/* Where the responder is in a multi-packet message (fw_tp_resp.seq) */
enum fw_tp_seq {
	FW_TP_SEQ_NONE = 0,	/* expecting a FIRST/ONLY/READ/atomic */
	FW_TP_SEQ_SEND,		/* inside a multi-packet SEND */
	FW_TP_SEQ_WRITE,	/* inside a multi-packet RDMA WRITE */
};

/* ------------------------------------------------------------------ */
/* PSN arithmetic (24 bits, half-window ordering)                      */
/* ------------------------------------------------------------------ */

static inline uint32_t fw_psn_add(uint32_t psn, uint32_t n)
{
	return (psn + n) & FW_ROCE_PSN_MASK;
}

static inline uint32_t fw_psn_diff(uint32_t a, uint32_t b)
{
	return (a - b) & FW_ROCE_PSN_MASK;
}

/* a comes before b */
static inline bool fw_psn_before(uint32_t a, uint32_t b)
{
	return fw_psn_diff(a, b) >= FW_TP_PSN_HALF;
}

/* ------------------------------------------------------------------ */
/* fw_transport.c                                                      */
/* ------------------------------------------------------------------ */

/* A frame steered to the engine (counted in roce_rx_frames already). */
void fw_tp_rx(struct ordma_fw *fw, const uint8_t *frame, size_t len);
/*
 * A packet from the cable of an InfiniBand port (LRH to VCRC): validated
 * (fw_ib_parse()), checked against the port's LIDs and state, counted,
 * and handed to the same dispatch as a RoCEv2 frame's transport headers.
 */
void fw_tp_rx_ib(struct ordma_fw *fw, const uint8_t *pkt, size_t len);
/* Timer callback: handles every expired QP deadline; returns the next
 * engine deadline (UINT64_MAX if none).  Its cost follows the QPs that
 * are due, not the QPs that exist.
 */
uint64_t fw_tp_timer(struct ordma_fw *fw);
/* Path MTU in bytes: RC, UC the QP's path_mtu, UD the port's active MTU */
uint32_t fw_tp_qp_mtu(struct ordma_fw *fw, const struct fw_qp *qp);
/* Every QP deadline is armed here: makes sure the device timer fires for
 * qp no later than deadline (0: none).
 */
void fw_tp_arm(struct ordma_fw *fw, struct fw_qp *qp, uint64_t deadline);
/* The engine's timer state: device create, destroy and reset; create
 * also registers the engine's QP hooks (struct fw_qp_engine_ops).
 */
int fw_tp_create(struct ordma_fw *fw);
void fw_tp_destroy(struct ordma_fw *fw);
void fw_tp_reset(struct ordma_fw *fw);
void fw_tp_count_rx_drop(struct ordma_fw *fw, enum fw_tp_drop why);
/*
 * Link-level flow control (IEEE 802.3x PAUSE, fw_eth.c): while the link
 * partner asks for a pause the port holds back RC and UC request packets
 * and READ responses, the frames that come in windows and bursts; ACKs,
 * NAKs, atomic responses, UD and the Ethernet function's frames still
 * go.  fw_tp_pause_hold() returns the end of the pause a send must wait
 * for (counting the hold), or 0 if it may go; fw_tp_pause_changed()
 * moves every held QP to the end of a new pause, or lets it go on.
 */
uint64_t fw_tp_pause_hold(struct ordma_fw *fw);
void fw_tp_pause_changed(struct ordma_fw *fw);
/* Whether a QP in its state takes a request (or response) packet. */
bool fw_tp_state_takes(const struct fw_qp *qp, bool request);

/* The QP's share of the RC budget follows its state (fw_requester.c) */
void fw_tp_budget_sync(struct ordma_fw *fw, struct fw_qp *qp);

/*
 * Sends one RoCE frame of qp: Ethernet/IP from the QP's AV (RC) or av
 * (UD) and the GID table entry at its sgid_index; *h gives the transport
 * fields (opcode ... atomic), the rest is filled here.  The payload is
 * data at byte offset off (may be NULL with len 0; off + len must lie
 * within data_len), gathered from the SGEs (sges != NULL) at byte offset
 * off, or read from a remote MR.  Returns 0, or -1 if the frame was not
 * sent (counted); a gather failure returns the CQE status in *status.
 */
struct fw_tp_payload {
	const void *data;
	size_t data_len;		/* bytes at data */
	const struct ordma_sge *sges;	/* or gather from these */
	unsigned int num_sge;
	uint64_t off;
	uint32_t len;
	/* or (READ responses) from the MR or window rkey names, at va +
	 * off, checked for REMOTE_READ in the QP's PD
	 */
	bool remote;
	uint32_t rkey;
	uint64_t va;
};
int fw_tp_send(struct ordma_fw *fw, struct fw_qp *qp,
	       const struct ordma_av *av, struct fw_roce_hdrs *h,
	       const struct fw_tp_payload *pl, uint8_t *status);

/*
 * Checks the SGEs (key, PD, bounds, need_access) and sums their lengths.
 * Returns ORDMA_CQE_SUCCESS, LOC_PROT_ERR or LOC_LEN_ERR (sum > 2^31).
 */
uint8_t fw_tp_sges_check(struct ordma_fw *fw, const struct fw_qp *qp,
			 const struct ordma_sge *sges, unsigned int n,
			 uint32_t need_access, uint64_t *total);
/* Copies len bytes at byte offset off of the SGE list, out of (gather)
 * or into (scatter) host memory through fw_mr_*; each SGE is checked
 * again.  ORDMA_CQE_SUCCESS, LOC_PROT_ERR or LOC_LEN_ERR (list too short).
 */
uint8_t fw_tp_gather(struct ordma_fw *fw, const struct fw_qp *qp,
		     const struct ordma_sge *sges, unsigned int n,
		     uint64_t off, void *buf, uint32_t len);
uint8_t fw_tp_scatter(struct ordma_fw *fw, const struct fw_qp *qp,
		      const struct ordma_sge *sges, unsigned int n,
		      uint64_t off, const void *buf, uint32_t len);

/* ------------------------------------------------------------------ */
/* fw_requester.c                                                      */
/* ------------------------------------------------------------------ */

/* IBTA RNR NAK timer encoding (0..31) in nanoseconds */
uint64_t fw_tp_rnr_ns(unsigned int t);
/* Starts/continues send WQEs as far as state, window and timers allow. */
void fw_req_progress(struct ordma_fw *fw, struct fw_qp *qp);
/* An RC response (ACK, READ response, atomic ACK) for qp. */
void fw_req_rx(struct ordma_fw *fw, struct fw_qp *qp,
	       const struct fw_roce_pkt *pkt);
/* qp's retransmit or RNR deadline passed. */
void fw_req_timer(struct ordma_fw *fw, struct fw_qp *qp, uint64_t now);
/*
 * What the iWARP requester shares: the started WQE of an SQ index; the
 * WQE at sq.next started (read once, checked, kept; local operations
 * executed), false if none may start now; a started WQE failed; done
 * WQEs completed in order (false if the QP left RTS/SQD); a started
 * WQE's payload.
 */
struct fw_tp_swqe *fw_req_entry(struct fw_qp *qp, uint32_t index);
bool fw_req_start(struct ordma_fw *fw, struct fw_qp *qp);
void fw_req_fail(struct fw_qp *qp, struct fw_tp_swqe *e, uint8_t status);
bool fw_req_complete_walk(struct ordma_fw *fw, struct fw_qp *qp);
/* LOCAL_INV of key: the WQE's completion status */
uint8_t fw_req_local_inv(struct ordma_fw *fw, struct fw_qp *qp, uint32_t key);
void fw_req_payload(const struct fw_tp_swqe_data *d, struct fw_tp_payload *pl);

/* ------------------------------------------------------------------ */
/* fw_responder.c                                                      */
/* ------------------------------------------------------------------ */

/* Sends the next burst of queued READ responses (timer). */
void fw_resp_read_pump(struct ordma_fw *fw, struct fw_qp *qp);
void fw_resp_rx_rc(struct ordma_fw *fw, struct fw_qp *qp,
		   const struct fw_roce_pkt *pkt);
void fw_resp_rx_ud(struct ordma_fw *fw, struct fw_qp *qp,
		   const struct fw_roce_pkt *pkt);
void fw_resp_rx_uc(struct ordma_fw *fw, struct fw_qp *qp,
		   const struct fw_roce_pkt *pkt);

/* What the iWARP responder shares with the RoCE one: the receive WQE
 * the QP takes for a message, its SGEs, its completion
 */
bool fw_resp_take_recv(struct ordma_fw *fw, struct fw_qp *qp);
bool fw_resp_recv_sges(struct ordma_fw *fw, struct fw_qp *qp,
		       unsigned int *n);
const struct ordma_sge *fw_resp_recv_sge_list(struct fw_qp *qp);
void fw_resp_complete_recv(struct ordma_fw *fw, struct fw_qp *qp,
			   struct ordma_cqe *cqe, bool solicited);
void fw_resp_recv_error(struct ordma_fw *fw, struct fw_qp *qp,
			uint8_t status);

/* ------------------------------------------------------------------ */
/* fw_iw_requester.c, fw_iw_responder.c: the iWARP engine              */
/* ------------------------------------------------------------------ */

/*
 * An iWARP port's RC QPs run DDP and RDMAP (RFC 5041, RFC 5040) over the
 * FPDUs of their connection (tcp/fw_iw_conn.h) instead of RoCE packets.
 * The send WQEs are started and completed by the requester's code above
 * (fw_req_start(), fw_req_complete_walk()); what differs is how they go
 * on the wire and when they are done: a Send or Write when TCP took its
 * last FPDU, a Read when its last Read Response was placed.
 */
/* Sends what it can: Read Responses owed to the peer, then send WQEs */
void fw_iw_req_progress(struct ordma_fw *fw, struct fw_qp *qp);
/* A Read Response for the QP's oldest outstanding READ */
void fw_iw_req_read_resp(struct ordma_fw *fw, struct fw_qp *qp,
			 const struct fw_ddp_hdr *h, const uint8_t *ulpdu,
			 size_t len);
/* A Terminate from the peer: the oldest outstanding READ fails */
void fw_iw_req_terminated(struct ordma_fw *fw, struct fw_qp *qp,
			  const struct fw_term *t);
/* A DDP segment from the QP's connection (fw_qp_engine_ops.iw_rx) */
void fw_iw_rx(struct ordma_fw *fw, struct fw_qp *qp, const uint8_t *ulpdu,
	      size_t len);
/* Sends Read Responses owed; false if TCP has no room (or the QP failed) */
bool fw_iw_resp_send_reads(struct ordma_fw *fw, struct fw_qp *qp);
/*
 * A fatal error of the stream: the QP to error (QP_FATAL), t sent as a
 * Terminate (the headers it names copied first), the connection closed
 */
void fw_iw_fatal(struct ordma_fw *fw, struct fw_qp *qp,
		 const struct fw_term *t);

#endif /* ORDMA_FW_TRANSPORT_H */
