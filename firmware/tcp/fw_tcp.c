// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA firmware TCP offload: which copy of the stack a device runs, the
 * classifier that feeds it, and the queue that holds its frames until it
 * has returned (fw_tcp.h).
 *
 * The copies are process-wide (FW_TCP_SLOTS of them, lwip.mk); a device
 * claims one with an atomic flag, since two devices of one process run
 * their firmware on different threads.  A device that finds none free
 * offloads no TCP: fw_tcp_start() fails and the classifier takes nothing.
 */
#include <stdlib.h>
#include <string.h>

#include "platform/fw_platform.h"
#include "tcp/fw_tcp.h"

static const struct fw_tcp_slot_ops *const fw_tcp_slots[FW_TCP_SLOTS] = {
	&fw_tcp_slot0_ops, &fw_tcp_slot1_ops, &fw_tcp_slot2_ops,
	&fw_tcp_slot3_ops,
};

static bool fw_tcp_slot_taken[FW_TCP_SLOTS];

/* Frames of one burst of the stack: a full window of small segments */
#define FW_TCP_TXQ_BYTES	(2u << 20)
#define FW_TCP_TXQ_HDR		sizeof(uint32_t)

/* ------------------------------------------------------------------ */
/* Entering and leaving the stack                                      */
/* ------------------------------------------------------------------ */

static void fw_tcp_enter(struct ordma_fw *fw)
{
	fw->tcp.depth++;
}

/* Outermost return: the frames leave, the timer follows the stack. */
static void fw_tcp_leave(struct ordma_fw *fw)
{
	size_t off = 0;
	uint64_t next;

	if (--fw->tcp.depth)
		return;
	while (off < fw->tcp.txq_used) {
		uint32_t len;

		memcpy(&len, fw->tcp.txq + off, sizeof(len));
		off += FW_TCP_TXQ_HDR;
		fw_port_roce_tx(fw, fw->tcp.txq + off, len, false);
		off += len;
	}
	fw->tcp.txq_used = 0;
	if (!fw->tcp.slot)
		return;
	next = fw->tcp.slot->next_timer_ns();
	if (next < fw->timer_armed_ns)
		fw_timer_arm_at(fw, next);
}

static uint64_t fw_tcp_host_now(void *ctx)
{
	return fw_now(ctx);
}

static bool fw_tcp_host_tx(void *ctx, const void *frame, size_t len)
{
	struct ordma_fw *fw = ctx;
	uint32_t len32 = (uint32_t)len;

	if (len > FW_MAX_FRAME ||
	    FW_TCP_TXQ_BYTES - fw->tcp.txq_used < FW_TCP_TXQ_HDR + len)
		return false;
	memcpy(fw->tcp.txq + fw->tcp.txq_used, &len32, sizeof(len32));
	fw->tcp.txq_used += FW_TCP_TXQ_HDR;
	memcpy(fw->tcp.txq + fw->tcp.txq_used, frame, len);
	fw->tcp.txq_used += len;
	return true;
}

static void fw_tcp_host_accepted(void *ctx, uint32_t listener, uint32_t conn)
{
	struct ordma_fw *fw = ctx;

	if (fw->tcp.user && fw->tcp.user->accepted)
		fw->tcp.user->accepted(fw, fw->tcp.user_arg, listener, conn);
}

static void fw_tcp_host_connected(void *ctx, uint32_t conn, int reason)
{
	struct ordma_fw *fw = ctx;

	if (fw->tcp.user && fw->tcp.user->connected)
		fw->tcp.user->connected(fw, fw->tcp.user_arg, conn, reason);
}

static void fw_tcp_host_recv(void *ctx, uint32_t conn, const void *data,
			     size_t len)
{
	struct ordma_fw *fw = ctx;

	if (fw->tcp.user && fw->tcp.user->recv)
		fw->tcp.user->recv(fw, fw->tcp.user_arg, conn, data, len);
}

static void fw_tcp_host_peer_fin(void *ctx, uint32_t conn)
{
	struct ordma_fw *fw = ctx;

	if (fw->tcp.user && fw->tcp.user->peer_fin)
		fw->tcp.user->peer_fin(fw, fw->tcp.user_arg, conn);
}

static void fw_tcp_host_sent(void *ctx, uint32_t conn, uint32_t len)
{
	struct ordma_fw *fw = ctx;

	if (fw->tcp.user && fw->tcp.user->sent)
		fw->tcp.user->sent(fw, fw->tcp.user_arg, conn, len);
}

static void fw_tcp_host_closed(void *ctx, uint32_t conn,
			       enum fw_tcp_close_reason reason)
{
	struct ordma_fw *fw = ctx;

	if (fw->tcp.user && fw->tcp.user->closed)
		fw->tcp.user->closed(fw, fw->tcp.user_arg, conn, reason);
}

/* ------------------------------------------------------------------ */
/* Claiming a copy                                                     */
/* ------------------------------------------------------------------ */

static uint64_t fw_tcp_mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

/*
 * The ISN secret: the device has no entropy source of its own, so it is
 * drawn from what differs between devices and runs (serial, MAC, the
 * clock when the copy is claimed).  A replayed device draws the same.
 */
static void fw_tcp_isn_key(struct ordma_fw *fw, uint64_t key[2])
{
	uint64_t a = 0, b = 0;

	memcpy(&a, fw->cfg.serial, sizeof(a));
	memcpy(&b, fw->cfg.serial + 8, sizeof(b));
	memcpy(&key[1], fw->cfg.mac, sizeof(fw->cfg.mac));
	key[0] = fw_tcp_mix(a ^ fw_tcp_mix(fw_now(fw)));
	key[1] = fw_tcp_mix(b ^ key[1] ^ fw_tcp_mix(key[0]));
}

int fw_tcp_start(struct ordma_fw *fw, uint32_t ip, uint32_t netmask)
{
	static const struct fw_tcp_host host = {
		.now_ns = fw_tcp_host_now,
		.tx = fw_tcp_host_tx,
		.accepted = fw_tcp_host_accepted,
		.connected = fw_tcp_host_connected,
		.recv = fw_tcp_host_recv,
		.peer_fin = fw_tcp_host_peer_fin,
		.sent = fw_tcp_host_sent,
		.closed = fw_tcp_host_closed,
	};
	struct fw_tcp_host mine = host;
	struct fw_tcp_config cfg = { .ip = ip, .netmask = netmask };
	unsigned int i;

	if (fw->tcp.slot)
		return -1;
	fw->tcp.txq = malloc(FW_TCP_TXQ_BYTES);
	if (!fw->tcp.txq)
		return -1;
	memcpy(cfg.mac, fw->port.mac, sizeof(cfg.mac));
	cfg.mtu = (uint16_t)fw->port.mtu;
	fw_tcp_isn_key(fw, cfg.isn_key);
	mine.ctx = fw;
	for (i = 0; i < FW_TCP_SLOTS; i++) {
		bool free_slot = false;

		if (!__atomic_compare_exchange_n(&fw_tcp_slot_taken[i],
						 &free_slot, true, false,
						 __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE))
			continue;
		if (fw_tcp_slots[i]->start(&mine, &cfg)) {
			__atomic_store_n(&fw_tcp_slot_taken[i], false,
					 __ATOMIC_RELEASE);
			continue;
		}
		fw->tcp.slot = fw_tcp_slots[i];
		fw->tcp.slot_index = i;
		return 0;
	}
	free(fw->tcp.txq);
	fw->tcp.txq = NULL;
	return -1;
}

void fw_tcp_stop(struct ordma_fw *fw)
{
	if (!fw->tcp.slot)
		return;
	fw->tcp.slot->stop();
	__atomic_store_n(&fw_tcp_slot_taken[fw->tcp.slot_index], false,
			 __ATOMIC_RELEASE);
	fw->tcp.slot = NULL;
	fw->tcp.txq_used = 0;
	fw->tcp.depth = 0;
	free(fw->tcp.txq);
	fw->tcp.txq = NULL;
}

bool fw_tcp_running(const struct ordma_fw *fw)
{
	return fw->tcp.slot;
}

void fw_tcp_set_user(struct ordma_fw *fw, const struct fw_tcp_user *user,
		     void *arg)
{
	fw->tcp.user = user;
	fw->tcp.user_arg = arg;
}

void fw_tcp_set_mtu(struct ordma_fw *fw, uint32_t mtu)
{
	if (fw->tcp.slot)
		fw->tcp.slot->set_mtu((uint16_t)mtu);
}

/* ------------------------------------------------------------------ */
/* Entry points                                                        */
/* ------------------------------------------------------------------ */

bool fw_tcp_rx(struct ordma_fw *fw, const uint8_t *frame, size_t len)
{
	bool taken;

	if (!fw->tcp.slot)
		return false;
	fw_tcp_enter(fw);
	taken = fw->tcp.slot->input(frame, len);
	fw_tcp_leave(fw);
	return taken;
}

uint64_t fw_tcp_timer(struct ordma_fw *fw)
{
	if (!fw->tcp.slot)
		return UINT64_MAX;
	fw_tcp_enter(fw);
	if (fw->tcp.slot->next_timer_ns() <= fw_now(fw))
		fw->tcp.slot->run_timers();
	fw_tcp_leave(fw);
	return fw->tcp.slot ? fw->tcp.slot->next_timer_ns() : UINT64_MAX;
}

int64_t fw_tcp_listen(struct ordma_fw *fw, uint16_t port, uint8_t backlog)
{
	int64_t ret;

	if (!fw->tcp.slot)
		return -1;
	fw_tcp_enter(fw);
	ret = fw->tcp.slot->listen(port, backlog);
	fw_tcp_leave(fw);
	return ret;
}

void fw_tcp_unlisten(struct ordma_fw *fw, uint32_t listener)
{
	if (!fw->tcp.slot)
		return;
	fw_tcp_enter(fw);
	fw->tcp.slot->unlisten(listener);
	fw_tcp_leave(fw);
}

int64_t fw_tcp_connect(struct ordma_fw *fw, uint32_t ip, uint16_t port,
		       uint16_t local_port, const uint8_t mac[6])
{
	int64_t ret;

	if (!fw->tcp.slot)
		return -1;
	fw_tcp_enter(fw);
	ret = fw->tcp.slot->connect(ip, port, local_port, mac);
	fw_tcp_leave(fw);
	return ret;
}

size_t fw_tcp_send(struct ordma_fw *fw, uint32_t conn, const void *data,
		   size_t len)
{
	size_t ret;

	if (!fw->tcp.slot)
		return 0;
	fw_tcp_enter(fw);
	ret = fw->tcp.slot->send(conn, data, len);
	fw->tcp.slot->flush(conn);
	fw_tcp_leave(fw);
	return ret;
}

int fw_tcp_shutdown(struct ordma_fw *fw, uint32_t conn)
{
	int ret;

	if (!fw->tcp.slot)
		return -1;
	fw_tcp_enter(fw);
	ret = fw->tcp.slot->shutdown(conn);
	fw_tcp_leave(fw);
	return ret;
}

void fw_tcp_close(struct ordma_fw *fw, uint32_t conn)
{
	if (!fw->tcp.slot)
		return;
	fw_tcp_enter(fw);
	fw->tcp.slot->close(conn);
	fw_tcp_leave(fw);
}

void fw_tcp_abort(struct ordma_fw *fw, uint32_t conn)
{
	if (!fw->tcp.slot)
		return;
	fw_tcp_enter(fw);
	fw->tcp.slot->abort(conn);
	fw_tcp_leave(fw);
}

int fw_tcp_set_keepalive(struct ordma_fw *fw, uint32_t conn,
			 uint32_t idle_ms, uint32_t interval_ms,
			 uint32_t count)
{
	int ret;

	if (!fw->tcp.slot)
		return -1;
	fw_tcp_enter(fw);
	ret = fw->tcp.slot->set_keepalive(conn, idle_ms, interval_ms, count);
	fw_tcp_leave(fw);
	return ret;
}

int fw_tcp_conn_info(struct ordma_fw *fw, uint32_t conn,
		     struct fw_tcp_conn_info *info)
{
	if (!fw->tcp.slot)
		return -1;
	return fw->tcp.slot->conn_info(conn, info);
}

void fw_tcp_stats(struct ordma_fw *fw, struct fw_tcp_stats *stats)
{
	memset(stats, 0, sizeof(*stats));
	if (fw->tcp.slot)
		fw->tcp.slot->stats(stats);
}
