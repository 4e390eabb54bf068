/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * ORDMA firmware: the transport engine's per-QP state.  struct fw_qp
 * (fw_qp.h) embeds it, so its types and the limits that size them live
 * here, in the room of the QP objects, where fw_qp.h can see them without
 * including the engine's header (transport/fw_transport.h), which is a
 * room above.  Only the engine (fw_requester.c, fw_responder.c,
 * fw_transport.c) reads or writes these fields; the QP objects clear
 * them with the QP and look at started send WQEs to flush the SQ.
 */
#ifndef ORDMA_FW_QP_TP_STATE_H
#define ORDMA_FW_QP_TP_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include <ordma-compat/ordma_compat.h>
#include <linux/ordma/ordma_hw.h>

/* Send WQEs started and not yet completed, per QP */
#define FW_TP_MAX_WQE			32
/*
 * Responder READ/atomic resources (replay cache for duplicates): as many
 * as other RoCE devices offer (rxe: 128), since perftest and others ask
 * the peer's number.  24 bytes each, and a READ job of 32 bytes for each:
 * about 7 KiB a QP, 7 MiB for all 1024.
 */
#define FW_TP_MAX_RD_RES		128
/* READ responses waiting to be sent, per QP */
#define FW_TP_READ_JOBS			(FW_TP_MAX_RD_RES + 4)
/* SGEs the engine keeps of a send or receive WQE */
#define FW_TP_MAX_SGE			ORDMA_MAX_SEND_SGE
/* A receive WQE as the engine keeps it: header plus 8 SGEs */
#define FW_TP_RECV_WQE_BYTES		(16 + FW_TP_MAX_SGE * 16)

/*
 * The device's own copy of a started send WQE.  The requester reads a
 * WQE from the SQ once, when it starts it, validates it and keeps here
 * what its packets, retransmissions, READ response placement and atomic
 * ACK need; it never reads that SQ slot again, so rewriting a posted
 * WQE cannot change what the device does with it.
 */
struct fw_tp_swqe_data {
	struct ordma_send_wqe hdr;	/* control and operation segments */
	union {
		struct ordma_sge sge[FW_TP_MAX_SGE];
		uint8_t inl[ORDMA_MAX_INLINE_DATA];
	} u;
	uint8_t num_sge;	/* entries of u.sge in use */
	bool inl;		/* the payload is u.inl (length bytes) */
};

/* One started send WQE (slot = SQ index mod FW_TP_MAX_WQE) */
struct fw_tp_swqe {
	uint32_t index;		/* SQ index (free running) */
	uint32_t first_psn;
	uint32_t npkts;		/* PSNs it occupies (0: local operation) */
	uint32_t length;	/* message length */
	uint32_t rcvd;		/* READ: response packets received */
	uint32_t rd_start;	/* READ: packet the last request asked from */
	uint8_t opcode;		/* enum ordma_wqe_opcode */
	uint8_t status;		/* enum ordma_cqe_status once done */
	bool done;
	bool signaled;
	bool inv_after;		/* READ_INV: invalidate the sink once placed */
	uint32_t inv_key;
	struct fw_tp_swqe_data d;	/* RC, UC: the WQE as started */
};

struct fw_tp_req {
	struct fw_tp_swqe w[FW_TP_MAX_WQE];
	uint32_t una_psn;	/* oldest PSN not acknowledged */
	uint32_t cur;		/* SQ index of the WQE being (re)sent */
	uint32_t cur_pkt;	/* next packet of it */
	uint32_t since_ack_req;
	uint32_t window;	/* PSNs it may have out; 0: FW_TP_WINDOW */
	uint32_t sent_psn;	/* after the last packet sent (since a go-back) */
	uint32_t budget_held;	/* its share of fw->tp_outstanding */
	uint8_t retry_left;
	uint8_t rnr_left;
	uint8_t rnr_streak;	/* RNR NAKs since the last progress */
	bool error;		/* a WQE failed: nothing new starts */
	uint32_t error_index;	/* ... the SQ index of the failed WQE */
	uint64_t rexmit_deadline;	/* 0: not armed */
	uint64_t rnr_deadline;		/* 0: not waiting for an RNR timer */
	/* UC: next burst, RC: budget retry; 0: may send now */
	uint64_t pace_deadline;
	bool pause_held;	/* pace_deadline is the end of a PAUSE */
};

/* A READ, atomic, FLUSH or ATOMIC WRITE the responder executed */
struct fw_tp_rd_res {
	bool valid;
	bool atomic;		/* also set for FLUSH, ATOMIC WRITE */
	uint8_t opcode;		/* FLUSH, ATOMIC WRITE: the request opcode */
	uint32_t psn;
	uint32_t npkts;
	uint64_t orig;		/* atomic: the original value returned */
};

/* The packets [k, n) of a READ response still to be sent */
struct fw_tp_read_job {
	uint32_t psn;		/* PSN of packet 0 */
	uint64_t va;
	uint32_t rkey;
	uint32_t len;
	uint32_t k;
	uint32_t n;
};

struct fw_tp_resp {
	uint8_t seq;		/* enum fw_tp_seq (fw_transport.h) */
	bool nak_seq_sent;	/* PSN sequence NAK sent, not yet resynced */
	bool uc_drop;		/* UC: discarding up to the next First/Only */
	bool recv_valid;	/* a receive WQE is being filled */
	uint32_t recv_idx;	/* its wqe_idx */
	uint32_t recv_off;	/* bytes written to it */
	uint64_t recv_wqe[FW_TP_RECV_WQE_BYTES / 8];	/* aligned copy */
	uint64_t write_va;	/* next byte of the RDMA WRITE */
	uint32_t write_rkey;
	uint32_t write_left;	/* bytes of it still to come */
	uint32_t write_len;	/* its DMA length */
	uint32_t unacked;	/* SEND/WRITE packets since the last ACK/NAK */
	bool ack_deferred;	/* an ACK waits for queued READ responses */
	uint32_t res_next;
	struct fw_tp_rd_res res[FW_TP_MAX_RD_RES];
	/* READ responses in send order: [read_head, read_tail) */
	struct fw_tp_read_job read_jobs[FW_TP_READ_JOBS];
	uint32_t read_head;
	uint32_t read_tail;
	uint64_t read_deadline;	/* next burst; 0: none due */
	bool read_paused;	/* read_deadline is the end of a PAUSE */
};

/*
 * An RDMA Read Request an iWARP responder took: its Read Responses still
 * to be sent, from source STag/TO to the requester's sink STag/TO.
 */
struct fw_tp_iw_read {
	uint32_t sink_stag;
	uint32_t src_stag;
	uint64_t sink_to;
	uint64_t src_to;
	uint32_t len;
	uint32_t done;		/* bytes sent */
};

/*
 * The iWARP engine's state of a QP (fw_iw_requester.c, fw_iw_responder.c);
 * cleared when the QP's connection brings it to RTS.  TCP orders and
 * delivers: no PSNs, no retransmission, no window of its own.
 */
struct fw_tp_iw {
	/* requester: the next MSN of queue 0 (Sends) and 1 (Read
	 * Requests), and bytes of the WQE at req.cur handed to TCP
	 */
	uint32_t tx_msn[2];
	uint32_t tx_off;
	/* responder: the MSN expected next on queue 0 and 1, and the
	 * offset the next segment of the Send being received must have
	 */
	uint32_t rx_msn[2];
	uint32_t rx_mo;
	/* the READ WQE Read Responses are placed for: bytes placed */
	uint32_t rresp_placed;
	/* Read Requests taken, answered in order: [rd_head, rd_tail) */
	uint32_t rd_head;
	uint32_t rd_tail;
	uint16_t ird;		/* Read Requests it may hold (negotiated) */
	struct fw_tp_iw_read rd[FW_TP_MAX_RD_RES];
};

#endif /* ORDMA_FW_QP_TP_STATE_H */
