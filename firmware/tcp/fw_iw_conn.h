/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * iWARP connections over the port's TCP offload: the IW_* admin
 * commands, the GID commands that give the stack its address, the MPA
 * timers (fw_iw_conn.c).
 */
#ifndef ORDMA_FW_IW_CONN_H
#define ORDMA_FW_IW_CONN_H

#include "fw_priv.h"
#include "tcp/fw_tcp_slot.h"

struct fw_qp;
struct fw_term;

/*
 * A connection's handle, the device's name for it (the host treats it as
 * opaque): its slot, and above it how many connections the slot had
 * before, so that a handle names one connection only and a command with
 * the handle of one that ended is refused even once the slot serves
 * another.  The TCP stack's own number for the connection is another
 * thing (struct fw_iw_conn.tcp).  There are more slots than TCP
 * connections: a connection the peer rejected keeps its slot, without
 * TCP, until the host frees it (at most FW_IW_MAX_REJECTED of them).
 */
#define FW_IW_MAX_REJECTED	ORDMA_IW_MAX_REJECTED
#define FW_IW_MAX_CONN		(FW_TCP_MAX_CONN + FW_IW_MAX_REJECTED)
#define FW_IW_HANDLE_SLOT	GENMASK(7, 0)
#define FW_IW_HANDLE_GEN	GENMASK(31, 8)

_Static_assert(FW_IW_MAX_CONN - 1 <= FIELD_GET(FW_IW_HANDLE_SLOT, ~0u),
	       "every slot has a handle");

struct fw_iw_stats {
	uint64_t mpa_bad;		/* malformed or unacceptable MPA */
	uint64_t mpa_rejected;		/* replies with the reject bit */
	uint64_t rejected_reclaimed;	/* rejected connections the host
					 * never freed, freed by the device
					 * to keep a newer one
					 */
	uint64_t mpa_timeouts;		/* request, reply or RTR late */
	uint64_t rtr_bad;		/* first FPDU not the negotiated RTR */
	uint64_t backlog_full;		/* connections beyond a backlog */
	uint64_t rx_fpdus;		/* with a good CRC, to the engine */
	uint64_t tx_fpdus;
	uint64_t rx_fpdu_bytes;		/* FPDU bytes for a QP in error,
					 * or of an FPDU a FIN or RST cut
					 */
	uint64_t fpdu_crc_bad;
	uint64_t fpdu_bad_len;		/* a length no DDP segment has */
	uint64_t terminates_sent;
	uint64_t terminates_received;
};

/* ADD_GID and DEL_GID: the GID table, and on an iWARP port the stack's
 * address (the first IP entry)
 */
uint8_t fw_cmd_add_port_gid(struct ordma_fw *fw, struct fw_cmd *c);
uint8_t fw_cmd_del_port_gid(struct ordma_fw *fw, struct fw_cmd *c);

uint8_t fw_cmd_iw_create_listen(struct ordma_fw *fw, struct fw_cmd *c);
uint8_t fw_cmd_iw_destroy_listen(struct ordma_fw *fw, struct fw_cmd *c);
uint8_t fw_cmd_iw_connect(struct ordma_fw *fw, struct fw_cmd *c);
uint8_t fw_cmd_iw_accept(struct ordma_fw *fw, struct fw_cmd *c);
uint8_t fw_cmd_iw_reject(struct ordma_fw *fw, struct fw_cmd *c);
uint8_t fw_cmd_iw_query_conn(struct ordma_fw *fw, struct fw_cmd *c);
uint8_t fw_cmd_iw_destroy_conn(struct ordma_fw *fw, struct fw_cmd *c);

/* The TCP stack's and the MPA timers; the next deadline */
uint64_t fw_iw_timer(struct ordma_fw *fw);
/* Drops every connection and the stack (reset, destroy) */
void fw_iw_stop(struct ordma_fw *fw);
/* The MPA layer's counters and the TCP stack's, since the last reset
 * (address changes included)
 */
void fw_iw_stats(const struct ordma_fw *fw, struct fw_iw_stats *st);
void fw_iw_tcp_stats(struct ordma_fw *fw, struct fw_tcp_stats *st);

/*
 * The data path of a QP's connection, for its iWARP engine.  An FPDU is
 * built in fw_iw_tx_buf() (its DDP segment there, at most
 * fw_iw_tx_mulpdu() bytes: framing and CRC go around it) and sent with
 * fw_iw_tx_fpdu(): 0, -EAGAIN if TCP's send buffer has no room for it
 * (the QP's send queue is kicked when TCP frees room), -ENOTCONN if the
 * QP has no connection in RDMA mode (or it sent its FIN).
 */
size_t fw_iw_tx_mulpdu(struct ordma_fw *fw, const struct fw_qp *qp);
uint8_t *fw_iw_tx_buf(struct ordma_fw *fw);
int fw_iw_tx_fpdu(struct ordma_fw *fw, const struct fw_qp *qp,
		  size_t ulpdu_len);
/*
 * The engine found the stream broken (or the peer terminated): t, if
 * not NULL, is sent as a Terminate, then the connection closes and the
 * host gets IW_CLOSED.  The QP must be in error already.  t's headers
 * are copied before the FPDU they point into is released.
 */
void fw_iw_conn_fail(struct ordma_fw *fw, const struct fw_qp *qp,
		     const struct fw_term *t);

#endif /* ORDMA_FW_IW_CONN_H */
