/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The TCP offload of an iWARP port: the device's copy of the TCP stack
 * (fw_tcp_slot.h), the receive classifier in front of it, and the
 * interface the layer above it (MPA) uses.
 *
 * A device claims a copy with fw_tcp_start() and gives it back with
 * fw_tcp_stop() (also on reset and destroy).  Every call below enters
 * the stack; frames it sends leave the port when it has returned, and
 * the device timer is re-armed for its next deadline.  The callbacks of
 * struct fw_tcp_user run inside the stack: they may call back into it
 * (send, close, abort), the frames wait until the outermost call
 * returns.
 */
#ifndef ORDMA_FW_TCP_H
#define ORDMA_FW_TCP_H

#include "fw_priv.h"
#include "tcp/fw_tcp_slot.h"

struct fw_tcp_user {
	void (*accepted)(struct ordma_fw *fw, void *arg, uint32_t listener,
			 uint32_t conn);
	/* reason: 0 connected, else enum fw_tcp_close_reason */
	void (*connected)(struct ordma_fw *fw, void *arg, uint32_t conn,
			  int reason);
	void (*recv)(struct ordma_fw *fw, void *arg, uint32_t conn,
		     const void *data, size_t len);
	void (*peer_fin)(struct ordma_fw *fw, void *arg, uint32_t conn);
	void (*sent)(struct ordma_fw *fw, void *arg, uint32_t conn,
		     uint32_t len);
	void (*closed)(struct ordma_fw *fw, void *arg, uint32_t conn,
		       enum fw_tcp_close_reason reason);
};

/* Claim a copy of the stack for the port's IPv4 address; -1 if the
 * firmware has none free (or was built without one).
 */
int fw_tcp_start(struct ordma_fw *fw, uint32_t ip, uint32_t netmask);
void fw_tcp_stop(struct ordma_fw *fw);
bool fw_tcp_running(const struct ordma_fw *fw);
void fw_tcp_set_user(struct ordma_fw *fw, const struct fw_tcp_user *user,
		     void *arg);
void fw_tcp_set_mtu(struct ordma_fw *fw, uint32_t mtu);

/* The classifier: true if the frame was the stack's */
bool fw_tcp_rx(struct ordma_fw *fw, const uint8_t *frame, size_t len);
/* Runs the stack's due timers; its next deadline or UINT64_MAX */
uint64_t fw_tcp_timer(struct ordma_fw *fw);

int64_t fw_tcp_listen(struct ordma_fw *fw, uint16_t port, uint8_t backlog);
void fw_tcp_unlisten(struct ordma_fw *fw, uint32_t listener);
int64_t fw_tcp_connect(struct ordma_fw *fw, uint32_t ip, uint16_t port,
		       uint16_t local_port, const uint8_t mac[6]);
/* Queues up to len bytes and sends what the windows allow; how many
 * bytes were taken
 */
size_t fw_tcp_send(struct ordma_fw *fw, uint32_t conn, const void *data,
		   size_t len);
int fw_tcp_shutdown(struct ordma_fw *fw, uint32_t conn);
void fw_tcp_close(struct ordma_fw *fw, uint32_t conn);
void fw_tcp_abort(struct ordma_fw *fw, uint32_t conn);
int fw_tcp_set_keepalive(struct ordma_fw *fw, uint32_t conn,
			 uint32_t idle_ms, uint32_t interval_ms,
			 uint32_t count);
int fw_tcp_conn_info(struct ordma_fw *fw, uint32_t conn,
		     struct fw_tcp_conn_info *info);
void fw_tcp_stats(struct ordma_fw *fw, struct fw_tcp_stats *stats);

#endif /* ORDMA_FW_TCP_H */
