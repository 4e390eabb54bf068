/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The boundary between the firmware and one copy of its TCP stack.
 *
 * lwIP keeps its state in globals, so the firmware build links lwIP and
 * fw_tcp_stack.c into one object and makes FW_TCP_SLOTS copies of it,
 * each with every symbol local but its own fw_tcp_slotN_ops (see
 * firmware/tcp/lwip.mk).  A device that needs TCP claims a free copy
 * (fw_tcp.c) and talks to it only through this table; the copy calls the
 * device back only through struct fw_tcp_host.  Nothing here depends on
 * lwIP's types, and a copy never refers to a firmware symbol by name.
 *
 * Connections and listeners are small integers, valid from the call or
 * callback that gives them until the device closes or aborts them or the
 * copy reports them closed; FW_TCP_NONE is none.
 */
#ifndef ORDMA_FW_TCP_SLOT_H
#define ORDMA_FW_TCP_SLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FW_TCP_SLOTS		4
#define FW_TCP_MAX_CONN		16	/* connections per device */
#define FW_TCP_MAX_LISTEN	8	/* listeners per device */
#define FW_TCP_NONE		0xffffffffu

/* Why a connection ended, as its closed() callback says */
enum fw_tcp_close_reason {
	FW_TCP_CLOSED_GRACEFUL	= 0,	/* both FINs exchanged */
	FW_TCP_CLOSED_RESET	= 1,	/* the peer sent an acceptable RST */
	FW_TCP_CLOSED_REFUSED	= 2,	/* RST in answer to our SYN */
	FW_TCP_CLOSED_TIMEOUT	= 3,	/* retransmissions or keepalives
					 * unanswered
					 */
	FW_TCP_CLOSED_NO_MEMORY	= 4,
};

/* Segments the stack counted, for QUERY_STATS and the tests */
struct fw_tcp_stats {
	uint64_t rx_segments;		/* handed to the stack */
	uint64_t rx_checksum;		/* dropped: bad TCP checksum */
	uint64_t rx_bad_header;		/* dropped: bad IP or TCP header */
	uint64_t rx_no_pcb;		/* to a reserved port, no connection
					 * (an ACK to a listener's port too):
					 * answered with RST
					 */
	uint64_t rx_out_of_window;	/* data wholly outside the receive
					 * window: ACKed and dropped
					 */
	uint64_t rx_rst_ignored;	/* RST out of the window, or of no
					 * connection to a listener's port:
					 * ignored
					 */
	uint64_t rx_rst_challenged;	/* RST in the window but not at
					 * rcv_nxt: challenge ACK
					 */
	uint64_t rx_backlog_full;	/* SYN to a full listener: dropped */
	uint64_t tx_segments;
	uint64_t tx_no_neighbour;	/* no MAC for the next hop: dropped */
	uint64_t tx_queue_full;		/* device TX queue full: dropped */
	uint64_t mem_errors;		/* a pool or the heap was empty */
};

/* One connection's state, for QUERY_CONN and the tests */
struct fw_tcp_conn_info {
	uint8_t state;			/* lwIP's enum tcp_state */
	uint8_t nrtx;			/* retransmissions of the oldest
					 * unacknowledged segment
					 */
	uint16_t mss;			/* effective send MSS */
	uint16_t local_port, remote_port;
	uint32_t local_ip, remote_ip;	/* IPv4, host order */
	uint32_t snd_wnd;		/* peer's window, unscaled bytes */
	uint32_t cwnd;
	uint32_t snd_buf;		/* free bytes of the send buffer */
	uint32_t unacked;		/* bytes sent and not acknowledged */
	uint32_t rto_ms;
	uint32_t snd_nxt, rcv_nxt;	/* sequence numbers */
	uint32_t rcv_wnd;
};

/* What a copy needs of the device: a context and callbacks */
struct fw_tcp_host {
	void *ctx;
	uint64_t (*now_ns)(void *ctx);
	/* One Ethernet frame to send once the stack has returned */
	bool (*tx)(void *ctx, const void *frame, size_t len);
	/* A listener took a connection (established; conn is new) */
	void (*accepted)(void *ctx, uint32_t listener, uint32_t conn);
	/* An active open finished: 0, or it failed (closed reason) */
	void (*connected)(void *ctx, uint32_t conn, int reason);
	/* In-order bytes of conn; the window reopens when this returns */
	void (*recv)(void *ctx, uint32_t conn, const void *data, size_t len);
	/* The peer sent FIN: no more bytes will come */
	void (*peer_fin)(void *ctx, uint32_t conn);
	/* len more bytes were acknowledged: send buffer space freed */
	void (*sent)(void *ctx, uint32_t conn, uint32_t len);
	/* conn is gone (its number is free once this returns) */
	void (*closed)(void *ctx, uint32_t conn,
		       enum fw_tcp_close_reason reason);
};

/* The port the copy serves */
struct fw_tcp_config {
	uint8_t mac[6];
	uint32_t ip;			/* IPv4, host order */
	uint32_t netmask;		/* host order */
	uint16_t mtu;			/* IP MTU: the MSS is mtu - 40 */
	uint64_t isn_key[2];		/* secret of the ISN hash */
};

struct fw_tcp_slot_ops {
	/* Take the copy for a device; -1 if it is in use */
	int (*start)(const struct fw_tcp_host *host,
		     const struct fw_tcp_config *cfg);
	/* Drop every connection and listener without a frame or callback
	 * and give the copy back
	 */
	void (*stop)(void);
	/* The port's MTU changed (existing connections keep their MSS) */
	void (*set_mtu)(uint16_t mtu);
	/* A received frame: true if it was the stack's (a TCP segment to a
	 * port a listener or connection holds), else the host's.
	 */
	bool (*input)(const uint8_t *frame, size_t len);
	/* Absolute device time (ns) of the next stack timer, or UINT64_MAX */
	uint64_t (*next_timer_ns)(void);
	void (*run_timers)(void);
	/* Listener on (our address, port); -errno-like negative on error */
	int64_t (*listen)(uint16_t port, uint8_t backlog);
	void (*unlisten)(uint32_t listener);
	/* Active open from local_port (0: any) to ip:port via next-hop mac */
	int64_t (*connect)(uint32_t ip, uint16_t port, uint16_t local_port,
			   const uint8_t mac[6]);
	/* Queue up to len bytes (copied); how many were taken */
	size_t (*send)(uint32_t conn, const void *data, size_t len);
	/* Push what is queued onto the wire now */
	void (*flush)(uint32_t conn);
	/* Half-close: FIN after the queued bytes */
	int (*shutdown)(uint32_t conn);
	/* Close (FIN) and forget: no more callbacks for conn */
	void (*close)(uint32_t conn);
	/* Reset (RST) and forget: no more callbacks for conn */
	void (*abort)(uint32_t conn);
	int (*set_keepalive)(uint32_t conn, uint32_t idle_ms,
			     uint32_t interval_ms, uint32_t count);
	int (*conn_info)(uint32_t conn, struct fw_tcp_conn_info *info);
	void (*stats)(struct fw_tcp_stats *stats);
};

/* The copies' tables, FW_TCP_SLOTS of them (lwip.mk renames each) */
extern const struct fw_tcp_slot_ops fw_tcp_slot0_ops, fw_tcp_slot1_ops,
	fw_tcp_slot2_ops, fw_tcp_slot3_ops;

#endif /* ORDMA_FW_TCP_SLOT_H */
