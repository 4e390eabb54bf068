// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * One copy of the firmware's TCP stack: lwIP's raw API behind struct
 * fw_tcp_slot_ops (fw_tcp_slot.h).
 *
 * This file is linked with lwIP into one object of which the build makes
 * FW_TCP_SLOTS copies (lwip.mk), so its statics and lwIP's globals are
 * one device's.  The copy is entered only from the firmware of the
 * device that claimed it, under that device's lock, and never re-entered
 * through the wire: frames leave through host->tx, which queues them
 * until the firmware has returned from here.
 *
 * The stack sees IPv4 packets only: input() takes the segments of ports
 * a listener or connection holds (everything else is the host's) and
 * strips the Ethernet header; the interface's output adds it again with
 * the next hop's MAC, which connect() is given and a SYN teaches.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <lwip/init.h>
#include <lwip/ip4.h>
#include <lwip/netif.h>
#include <lwip/pbuf.h>
#include <lwip/stats.h>
#include <lwip/sys.h>
#include <lwip/tcp.h>
#include <lwip/timeouts.h>
#include <lwip/priv/tcp_priv.h>
#include <lwip/prot/ip4.h>
#include <lwip/prot/tcp.h>

#include "fw_tcp_hooks.h"
#include "fw_tcp_slot.h"

#define ETH_HLEN		14
#define ETH_P_IPV4		0x0800
#define ETH_MIN_FRAME		60
#define FRAME_MAX		(ETH_HLEN + 9000)
#define NEIGHBOURS		(2 * FW_TCP_MAX_CONN)
#define NS_PER_MS		1000000ULL
/* How far the clock jumps when a stopped copy runs out its timers */
#define DRAIN_MS		(10u * 60u * 1000u)

struct neighbour {
	uint32_t ip;			/* host order; 0: free */
	uint8_t mac[6];
};

static struct {
	bool in_use;
	bool lwip_ready;
	struct fw_tcp_host host;
	struct fw_tcp_config cfg;
	struct netif netif;
	uint64_t base_ns;		/* device time of sys_now() 0 */
	uint32_t skew_ms;		/* added by stop(): see drain */
	uint32_t rand_state;
	struct tcp_pcb *conn[FW_TCP_MAX_CONN];
	bool connecting[FW_TCP_MAX_CONN];
	struct tcp_pcb *listener[FW_TCP_MAX_LISTEN];
	struct neighbour neigh[NEIGHBOURS];
	/* the pcb the device aborted during a callback: lwIP must be told
	 * ERR_ABRT for it, and only for it (a pcb closed during a callback
	 * is still lwIP's to finish and free)
	 */
	struct tcp_pcb *aborted;
	/* What lwIP would draw from counters that outlive a device in the
	 * copy (its IP identification, its next ephemeral port): kept per
	 * device instead, from the device's key, so that a device behaves
	 * the same in whichever copy it runs, and a recording replays.
	 */
	uint16_t ip_id;
	uint16_t port_next;
	unsigned int neigh_next;	/* replaced next when all are used */
	struct fw_tcp_stats st;		/* what lwIP does not count itself */
	uint8_t frame[FRAME_MAX];
} s;

/* ------------------------------------------------------------------ */
/* Platform: clock, randomness, assertions, hooks                      */
/* ------------------------------------------------------------------ */

u32_t sys_now(void)
{
	uint64_t now = s.host.now_ns ? s.host.now_ns(s.host.ctx) : s.base_ns;

	return (u32_t)((now - s.base_ns) / NS_PER_MS) + s.skew_ms;
}

void fw_tcp_assert_failed(const char *what, const char *file, int line)
{
	fprintf(stderr, "firmware TCP: assertion \"%s\" failed at %s:%d\n",
		what, file, line);
	abort();
}

/* Local port choice only; never a secret (the ISN is the hook's) */
unsigned int fw_tcp_rand(void)
{
	s.rand_state ^= s.rand_state << 13;
	s.rand_state ^= s.rand_state >> 17;
	s.rand_state ^= s.rand_state << 5;
	return s.rand_state;
}

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/*
 * RFC 6528: ISN = M + F(4-tuple, secret), M a 4 us clock.  F is a keyed
 * mix of the tuple; the key comes from the device (fw_tcp_config).
 */
u32_t fw_tcp_isn(const ip_addr_t *local_ip, u16_t local_port,
		 const ip_addr_t *remote_ip, u16_t remote_port)
{
	uint64_t h;

	h = mix64(s.cfg.isn_key[0] ^ ip4_addr_get_u32(local_ip));
	h = mix64(h ^ s.cfg.isn_key[1] ^ ((uint64_t)local_port << 16 |
					   remote_port));
	h = mix64(h ^ ((uint64_t)ip4_addr_get_u32(remote_ip) << 32));
	return (u32_t)h + (u32_t)(s.host.now_ns(s.host.ctx) / 4000);
}

/*
 * Counts what lwIP drops without a counter of its own; never changes
 * the outcome (lwIP decides, this only looks).
 */
err_t fw_tcp_inpacket(struct tcp_pcb *pcb, struct tcp_hdr *hdr, u16_t optlen,
		      u16_t opt1len, u8_t *opt2, struct pbuf *p)
{
	u8_t flags = TCPH_FLAGS(hdr);
	u32_t seq = hdr->seqno;		/* host order by now */
	u32_t len = p->tot_len;

	(void)optlen;
	(void)opt1len;
	(void)opt2;
	if (pcb->state == LISTEN) {
		const struct tcp_pcb_listen *lpcb =
			(const struct tcp_pcb_listen *)(const void *)pcb;

		/* anything but a SYN is of no connection (stale or
		 * forged): lwIP ignores a RST and answers an ACK with one
		 */
		if ((flags & (TCP_SYN | TCP_ACK | TCP_RST)) == TCP_SYN) {
			if (lpcb->accepts_pending >= lpcb->backlog)
				s.st.rx_backlog_full++;
		} else if (flags & TCP_RST) {
			s.st.rx_rst_ignored++;
		} else if (flags & TCP_ACK) {
			s.st.rx_no_pcb++;
		}
		return ERR_OK;
	}
	if (pcb->state == TIME_WAIT || pcb->state == SYN_SENT)
		return ERR_OK;
	if (flags & TCP_RST) {
		if (seq == pcb->rcv_nxt)
			return ERR_OK;
		if (TCP_SEQ_BETWEEN(seq, pcb->rcv_nxt,
				    pcb->rcv_nxt + pcb->rcv_wnd))
			s.st.rx_rst_challenged++;
		else
			s.st.rx_rst_ignored++;
		return ERR_OK;
	}
	if (len && (TCP_SEQ_GEQ(seq, pcb->rcv_nxt + pcb->rcv_wnd) ||
		    TCP_SEQ_LEQ(seq + len, pcb->rcv_nxt)))
		s.st.rx_out_of_window++;
	return ERR_OK;
}

/* ------------------------------------------------------------------ */
/* Neighbours and the interface                                        */
/* ------------------------------------------------------------------ */

static struct neighbour *neighbour_find(uint32_t ip)
{
	unsigned int i;

	for (i = 0; i < NEIGHBOURS; i++)
		if (s.neigh[i].ip == ip)
			return &s.neigh[i];
	return NULL;
}

static void neighbour_set(uint32_t ip, const uint8_t mac[6])
{
	struct neighbour *n = neighbour_find(ip);

	if (!n)
		n = neighbour_find(0);
	if (!n) {
		n = &s.neigh[s.neigh_next];
		s.neigh_next = (s.neigh_next + 1) % NEIGHBOURS;
	}
	n->ip = ip;
	memcpy(n->mac, mac, 6);
}

/* The identification of an IPv4 header, its checksum to match */
static void set_ip_id(uint8_t *ip, uint16_t id)
{
	size_t ihl = (size_t)(ip[0] & 0x0f) * 4, i;
	uint32_t sum = 0;

	ip[4] = (uint8_t)(id >> 8);
	ip[5] = (uint8_t)id;
	ip[10] = 0;
	ip[11] = 0;
	for (i = 0; i + 1 < ihl; i += 2)
		sum += (uint32_t)(ip[i] << 8 | ip[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	sum = ~sum & 0xffff;
	ip[10] = (uint8_t)(sum >> 8);
	ip[11] = (uint8_t)sum;
}

static err_t netif_output_ipv4(struct netif *netif, struct pbuf *p,
			       const ip4_addr_t *dst)
{
	const struct neighbour *n = neighbour_find(lwip_ntohl(ip4_addr_get_u32(dst)));
	size_t len = ETH_HLEN + p->tot_len;

	(void)netif;
	if (!n) {
		s.st.tx_no_neighbour++;
		return ERR_OK;		/* lost like a frame: TCP resends */
	}
	if (len > sizeof(s.frame))
		return ERR_BUF;
	memcpy(s.frame, n->mac, 6);
	memcpy(s.frame + 6, s.cfg.mac, 6);
	s.frame[12] = ETH_P_IPV4 >> 8;
	s.frame[13] = ETH_P_IPV4 & 0xff;
	pbuf_copy_partial(p, s.frame + ETH_HLEN, p->tot_len, 0);
	set_ip_id(s.frame + ETH_HLEN, s.ip_id++);
	if (len < ETH_MIN_FRAME) {
		memset(s.frame + len, 0, ETH_MIN_FRAME - len);
		len = ETH_MIN_FRAME;
	}
	if (!s.host.tx(s.host.ctx, s.frame, len))
		s.st.tx_queue_full++;
	return ERR_OK;
}

static err_t netif_setup(struct netif *netif)
{
	netif->name[0] = 'o';
	netif->name[1] = 'r';
	netif->output = netif_output_ipv4;
	netif->mtu = s.cfg.mtu;
	netif->hwaddr_len = 6;
	memcpy(netif->hwaddr, s.cfg.mac, 6);
	netif->flags = NETIF_FLAG_LINK_UP;
	return ERR_OK;
}

/* ------------------------------------------------------------------ */
/* Connection callbacks                                                */
/* ------------------------------------------------------------------ */

static uint32_t conn_of(void *arg)
{
	return arg ? (uint32_t)((uintptr_t)arg - 1) : FW_TCP_NONE;
}

static void *conn_arg(uint32_t conn)
{
	return (void *)(uintptr_t)(conn + 1);
}

static struct tcp_pcb *conn_pcb(uint32_t conn)
{
	return conn < FW_TCP_MAX_CONN ? s.conn[conn] : NULL;
}

static uint32_t conn_alloc(void)
{
	uint32_t i;

	for (i = 0; i < FW_TCP_MAX_CONN; i++)
		if (!s.conn[i])
			return i;
	return FW_TCP_NONE;
}

static void conn_forget(uint32_t conn)
{
	struct tcp_pcb *pcb = s.conn[conn];

	s.conn[conn] = NULL;
	s.connecting[conn] = false;
	tcp_arg(pcb, NULL);
	tcp_recv(pcb, NULL);
	tcp_sent(pcb, NULL);
	tcp_err(pcb, NULL);
}

/* What a callback tells lwIP once the device's callback returned */
static err_t callback_result(uint32_t conn, struct tcp_pcb *pcb)
{
	if (s.conn[conn] == pcb)
		return ERR_OK;
	return s.aborted == pcb ? ERR_ABRT : ERR_OK;
}

static err_t on_recv(void *arg, struct tcp_pcb *pcb, struct pbuf *p, err_t err)
{
	uint32_t conn = conn_of(arg);
	struct pbuf *q;
	u16_t total;

	if (conn == FW_TCP_NONE || s.conn[conn] != pcb) {
		if (p)
			pbuf_free(p);
		return ERR_OK;
	}
	s.aborted = NULL;
	if (!p) {
		s.host.peer_fin(s.host.ctx, conn);
		return callback_result(conn, pcb);
	}
	(void)err;
	total = p->tot_len;
	/*
	 * The device takes every byte it is given before the callback
	 * returns: the window opens now, so that a close from inside the
	 * callback is a FIN after what the device queued, not a reset for
	 * data lwIP would count as unread.
	 */
	tcp_recved(pcb, total);
	for (q = p; q; q = q->next) {
		if (q->len)
			s.host.recv(s.host.ctx, conn, q->payload, q->len);
		if (s.conn[conn] != pcb) {
			/* the device closed or aborted it from the callback:
			 * the rest of the data is nobody's
			 */
			pbuf_free(p);
			return callback_result(conn, pcb);
		}
	}
	pbuf_free(p);
	return ERR_OK;
}

static err_t on_sent(void *arg, struct tcp_pcb *pcb, u16_t len)
{
	uint32_t conn = conn_of(arg);

	if (conn == FW_TCP_NONE || s.conn[conn] != pcb)
		return ERR_OK;
	s.aborted = NULL;
	s.host.sent(s.host.ctx, conn, len);
	return callback_result(conn, pcb);
}

/* The pcb is already freed when lwIP calls this */
static void on_err(void *arg, err_t err)
{
	uint32_t conn = conn_of(arg);
	enum fw_tcp_close_reason why;
	bool connecting;

	if (conn == FW_TCP_NONE || !s.conn[conn])
		return;
	connecting = s.connecting[conn];
	s.conn[conn] = NULL;
	s.connecting[conn] = false;
	switch (err) {
	case ERR_RST:
		why = connecting ? FW_TCP_CLOSED_REFUSED : FW_TCP_CLOSED_RESET;
		break;
	case ERR_CLSD:
		why = FW_TCP_CLOSED_GRACEFUL;
		break;
	case ERR_MEM:
		why = FW_TCP_CLOSED_NO_MEMORY;
		break;
	default:			/* ERR_ABRT: timers gave up */
		why = FW_TCP_CLOSED_TIMEOUT;
		break;
	}
	if (connecting)
		s.host.connected(s.host.ctx, conn, (int)why);
	else
		s.host.closed(s.host.ctx, conn, why);
}

static void conn_attach(uint32_t conn, struct tcp_pcb *pcb)
{
	s.conn[conn] = pcb;
	tcp_arg(pcb, conn_arg(conn));
	tcp_recv(pcb, on_recv);
	tcp_sent(pcb, on_sent);
	tcp_err(pcb, on_err);
	tcp_nagle_disable(pcb);		/* FPDUs go out whole, at once */
}

static err_t on_accept(void *arg, struct tcp_pcb *pcb, err_t err)
{
	uint32_t listener = conn_of(arg);
	uint32_t conn;

	if (err != ERR_OK || !pcb)
		return ERR_VAL;
	conn = conn_alloc();
	if (conn == FW_TCP_NONE || listener >= FW_TCP_MAX_LISTEN ||
	    !s.listener[listener]) {
		s.st.mem_errors++;
		tcp_abort(pcb);
		return ERR_ABRT;
	}
	conn_attach(conn, pcb);
	s.aborted = NULL;
	s.host.accepted(s.host.ctx, listener, conn);
	return callback_result(conn, pcb);
}

static err_t on_connected(void *arg, struct tcp_pcb *pcb, err_t err)
{
	uint32_t conn = conn_of(arg);

	if (conn == FW_TCP_NONE || s.conn[conn] != pcb)
		return ERR_OK;
	(void)err;			/* lwIP calls this with ERR_OK only */
	s.connecting[conn] = false;
	s.aborted = NULL;
	s.host.connected(s.host.ctx, conn, 0);
	return callback_result(conn, pcb);
}

/* ------------------------------------------------------------------ */
/* The slot's operations                                               */
/* ------------------------------------------------------------------ */

static void drop_all_pcbs(void)
{
	struct tcp_pcb *pcb;

	while ((pcb = tcp_active_pcbs)) {
		tcp_arg(pcb, NULL);
		tcp_err(pcb, NULL);
		tcp_abandon(pcb, 0);
	}
	while ((pcb = tcp_tw_pcbs))
		tcp_abandon(pcb, 0);
	while ((pcb = (struct tcp_pcb *)tcp_listen_pcbs.pcbs))
		tcp_close(pcb);
	while ((pcb = tcp_bound_pcbs))
		tcp_close(pcb);
}

static void slot_stop(void)
{
	unsigned int n;

	if (!s.in_use)
		return;
	drop_all_pcbs();
	/*
	 * lwIP keeps its TCP timer scheduled until it runs once with no
	 * connection left.  Run it out now, with the clock far ahead, so
	 * that the next device finds no stale timer in the list.
	 */
	for (n = 0; n < 8 &&
	     sys_timeouts_sleeptime() != SYS_TIMEOUTS_SLEEPTIME_INFINITE; n++) {
		s.skew_ms += DRAIN_MS;
		sys_check_timeouts();
	}
	/*
	 * lwIP's TCP timer runs its slow half every other call, counting in
	 * a static of its own.  Leave it as a fresh copy has it (the next
	 * call slow): one call with nothing to do, a second if that one was
	 * the slow one (it moved tcp_ticks).
	 */
	{
		u32_t ticks = tcp_ticks;

		tcp_tmr();
		if (tcp_ticks != ticks)
			tcp_tmr();
	}
	/* nothing of the device's may outlive it in the copy's pools */
	LWIP_ASSERT("a TCP pcb leaked", !lwip_stats.memp[MEMP_TCP_PCB]->used);
	LWIP_ASSERT("a listen pcb leaked",
		    !lwip_stats.memp[MEMP_TCP_PCB_LISTEN]->used);
	LWIP_ASSERT("a TCP segment leaked", !lwip_stats.memp[MEMP_TCP_SEG]->used);
	netif_remove(&s.netif);
	memset(&s.host, 0, sizeof(s.host));
	memset(s.conn, 0, sizeof(s.conn));
	memset(s.connecting, 0, sizeof(s.connecting));
	memset(s.listener, 0, sizeof(s.listener));
	memset(s.neigh, 0, sizeof(s.neigh));
	memset(&s.st, 0, sizeof(s.st));
	memset(&lwip_stats.tcp, 0, sizeof(lwip_stats.tcp));
	memset(&lwip_stats.ip, 0, sizeof(lwip_stats.ip));
	s.in_use = false;
}

static int slot_start(const struct fw_tcp_host *host,
		      const struct fw_tcp_config *cfg)
{
	ip4_addr_t ip, mask;

	if (s.in_use)
		return -1;
	if (!s.lwip_ready) {
		lwip_init();
		s.lwip_ready = true;
	}
	s.host = *host;
	s.cfg = *cfg;
	s.base_ns = host->now_ns(host->ctx);
	s.skew_ms = 0;
	s.rand_state = (uint32_t)(cfg->isn_key[0] ^ cfg->isn_key[1]) | 1;
	s.ip_id = (uint16_t)(cfg->isn_key[0] >> 16);
	s.port_next = (uint16_t)(cfg->isn_key[1] >> 32);
	ip4_addr_set_u32(&ip, lwip_htonl(cfg->ip));
	ip4_addr_set_u32(&mask, lwip_htonl(cfg->netmask));
	if (!netif_add(&s.netif, &ip, &mask, IP4_ADDR_ANY4, NULL, netif_setup,
		       ip4_input))
		return -1;
	netif_set_default(&s.netif);
	netif_set_up(&s.netif);
	s.in_use = true;
	return 0;
}

static void slot_set_mtu(uint16_t mtu)
{
	s.cfg.mtu = mtu;
	s.netif.mtu = mtu;
}

static bool port_held(uint16_t port)
{
	struct tcp_pcb *const *lists[] = {
		&tcp_active_pcbs, &tcp_tw_pcbs, &tcp_bound_pcbs,
		(struct tcp_pcb *const *)&tcp_listen_pcbs.pcbs,
	};
	const struct tcp_pcb *pcb;
	size_t i;

	for (i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
		for (pcb = *lists[i]; pcb; pcb = pcb->next)
			if (pcb->local_port == port)
				return true;
	return false;
}

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static bool slot_input(const uint8_t *frame, size_t len)
{
	const uint8_t *ip = frame + ETH_HLEN;
	size_t ihl, ip_len;
	struct pbuf *p;

	if (!s.in_use || len < ETH_HLEN + IP_HLEN ||
	    be16(frame + 12) != ETH_P_IPV4)
		return false;
	ihl = (size_t)(ip[0] & 0x0f) * 4;
	ip_len = be16(ip + 2);
	if ((ip[0] >> 4) != 4 || ip[9] != IP_PROTO_TCP ||
	    be32(ip + 16) != s.cfg.ip || ihl < IP_HLEN ||
	    ip_len > len - ETH_HLEN || ip_len < ihl + TCP_HLEN ||
	    (be16(ip + 6) & 0x3fff))	/* a fragment: no ports to read */
		return false;
	if (!port_held(be16(ip + ihl + 2)))
		return false;
	/* ours from here on: lwIP answers, drops or takes it */
	if ((ip[ihl + 13] & (TCP_SYN | TCP_ACK | TCP_RST)) == TCP_SYN)
		neighbour_set(be32(ip + 12), frame + 6);
	p = pbuf_alloc(PBUF_RAW, (u16_t)ip_len, PBUF_POOL);
	if (!p) {
		s.st.mem_errors++;
		return true;
	}
	pbuf_take(p, ip, (u16_t)ip_len);
	ip4_input(p, &s.netif);
	return true;
}

static uint64_t slot_next_timer_ns(void)
{
	u32_t sleep, due_ms;

	if (!s.in_use)
		return UINT64_MAX;
	sleep = sys_timeouts_sleeptime();
	if (sleep == SYS_TIMEOUTS_SLEEPTIME_INFINITE)
		return UINT64_MAX;
	due_ms = sys_now() + sleep - s.skew_ms;
	return s.base_ns + (uint64_t)due_ms * NS_PER_MS;
}

static void slot_run_timers(void)
{
	if (s.in_use)
		sys_check_timeouts();
}

static int64_t slot_listen(uint16_t port, uint8_t backlog)
{
	struct tcp_pcb *pcb, *lpcb;
	uint32_t i;
	err_t err;

	for (i = 0; i < FW_TCP_MAX_LISTEN && s.listener[i]; i++)
		;
	if (i == FW_TCP_MAX_LISTEN || !port)
		return i == FW_TCP_MAX_LISTEN ? -ENOSPC : -EINVAL;
	pcb = tcp_new();
	if (!pcb)
		return -ENOMEM;
	/* inherited by the connections it accepts (SOF_INHERITED) */
	ip_set_option(pcb, SOF_REUSEADDR);
	if (tcp_bind(pcb, &s.netif.ip_addr, port) != ERR_OK) {
		tcp_close(pcb);
		return -EADDRINUSE;
	}
	lpcb = tcp_listen_with_backlog_and_err(pcb, backlog ? backlog : 1,
					       &err);
	if (!lpcb) {
		tcp_close(pcb);
		return err == ERR_USE ? -EADDRINUSE : -ENOMEM;
	}
	s.listener[i] = lpcb;
	tcp_arg(lpcb, conn_arg(i));
	tcp_accept(lpcb, on_accept);
	return i;
}

static void slot_unlisten(uint32_t listener)
{
	if (listener >= FW_TCP_MAX_LISTEN || !s.listener[listener])
		return;
	tcp_close(s.listener[listener]);
	s.listener[listener] = NULL;
}

/* The next free port of the dynamic range (RFC 6335), 0 if none */
static uint16_t ephemeral_port(void)
{
	unsigned int n;

	for (n = 0; n < 0x4000; n++) {
		uint16_t port = (uint16_t)(0xc000 | (s.port_next++ & 0x3fff));

		if (!port_held(port))
			return port;
	}
	return 0;
}

static int64_t slot_connect(uint32_t ip, uint16_t port, uint16_t local_port,
			    const uint8_t mac[6])
{
	uint32_t conn = conn_alloc();
	struct tcp_pcb *pcb;
	ip_addr_t remote;

	if (conn == FW_TCP_NONE)
		return -ENOSPC;
	if (!port || !ip)
		return -EINVAL;
	if (!local_port)
		local_port = ephemeral_port();
	if (!local_port)
		return -EADDRINUSE;
	pcb = tcp_new();
	if (!pcb)
		return -ENOMEM;
	if (tcp_bind(pcb, &s.netif.ip_addr, local_port) != ERR_OK) {
		tcp_close(pcb);
		return -EADDRINUSE;
	}
	neighbour_set(ip, mac);
	conn_attach(conn, pcb);
	s.connecting[conn] = true;
	ip_addr_set_ip4_u32(&remote, lwip_htonl(ip));
	if (tcp_connect(pcb, &remote, port, on_connected) != ERR_OK) {
		conn_forget(conn);
		tcp_abort(pcb);
		return -ENOMEM;
	}
	return conn;
}

static size_t slot_send(uint32_t conn, const void *data, size_t len)
{
	struct tcp_pcb *pcb = conn_pcb(conn);
	size_t done = 0;

	if (!pcb)
		return 0;
	while (done < len) {
		size_t room = tcp_sndbuf(pcb);
		size_t chunk = len - done;

		if (chunk > room)
			chunk = room;
		if (chunk > 0xffff)
			chunk = 0xffff;
		if (!chunk || tcp_write(pcb, (const uint8_t *)data + done,
					(u16_t)chunk, TCP_WRITE_FLAG_COPY |
					(done + chunk < len ?
					 TCP_WRITE_FLAG_MORE : 0)) != ERR_OK)
			break;
		done += chunk;
	}
	return done;
}

static void slot_flush(uint32_t conn)
{
	struct tcp_pcb *pcb = conn_pcb(conn);

	if (pcb)
		tcp_output(pcb);
}

static int slot_shutdown(uint32_t conn)
{
	struct tcp_pcb *pcb = conn_pcb(conn);

	if (!pcb)
		return -EINVAL;
	return tcp_shutdown(pcb, 0, 1) == ERR_OK ? 0 : -ENOMEM;
}

static void slot_close(uint32_t conn)
{
	struct tcp_pcb *pcb = conn_pcb(conn);

	if (!pcb)
		return;
	conn_forget(conn);
	if (tcp_close(pcb) != ERR_OK) {
		s.aborted = pcb;
		tcp_abort(pcb);		/* no memory for the FIN */
	}
}

static void slot_abort(uint32_t conn)
{
	struct tcp_pcb *pcb = conn_pcb(conn);

	if (!pcb)
		return;
	conn_forget(conn);
	s.aborted = pcb;
	tcp_abort(pcb);
}

static int slot_set_keepalive(uint32_t conn, uint32_t idle_ms,
			      uint32_t interval_ms, uint32_t count)
{
	struct tcp_pcb *pcb = conn_pcb(conn);

	if (!pcb)
		return -EINVAL;
	if (!idle_ms) {
		ip_reset_option(pcb, SOF_KEEPALIVE);
		return 0;
	}
	if (!interval_ms || !count)
		return -EINVAL;
	pcb->keep_idle = idle_ms;
	pcb->keep_intvl = interval_ms;
	pcb->keep_cnt = count;
	ip_set_option(pcb, SOF_KEEPALIVE);
	return 0;
}

static int slot_conn_info(uint32_t conn, struct fw_tcp_conn_info *info)
{
	const struct tcp_pcb *pcb = conn_pcb(conn);

	if (!pcb)
		return -EINVAL;
	memset(info, 0, sizeof(*info));
	info->state = (uint8_t)pcb->state;
	info->nrtx = pcb->nrtx;
	info->mss = pcb->mss;
	info->local_port = pcb->local_port;
	info->remote_port = pcb->remote_port;
	info->local_ip = lwip_ntohl(ip4_addr_get_u32(ip_2_ip4(&pcb->local_ip)));
	info->remote_ip = lwip_ntohl(ip4_addr_get_u32(ip_2_ip4(&pcb->remote_ip)));
	info->snd_wnd = pcb->snd_wnd;
	info->cwnd = pcb->cwnd;
	info->snd_buf = pcb->snd_buf;
	info->unacked = pcb->snd_nxt - pcb->lastack;
	info->rto_ms = (uint32_t)pcb->rto * TCP_SLOW_INTERVAL;
	info->snd_nxt = pcb->snd_nxt;
	info->rcv_nxt = pcb->rcv_nxt;
	info->rcv_wnd = pcb->rcv_wnd;
	return 0;
}

static void slot_stats(struct fw_tcp_stats *st)
{
	*st = s.st;
	st->rx_segments = lwip_stats.tcp.recv;
	st->rx_checksum = lwip_stats.tcp.chkerr + lwip_stats.ip.chkerr;
	st->rx_bad_header = lwip_stats.tcp.lenerr + lwip_stats.ip.lenerr +
			    lwip_stats.ip.err + lwip_stats.ip.proterr;
	st->rx_no_pcb += lwip_stats.tcp.proterr;
	st->tx_segments = lwip_stats.tcp.xmit;
	st->mem_errors += lwip_stats.tcp.memerr;
}

const struct fw_tcp_slot_ops fw_tcp_slot_ops = {
	.start = slot_start,
	.stop = slot_stop,
	.set_mtu = slot_set_mtu,
	.input = slot_input,
	.next_timer_ns = slot_next_timer_ns,
	.run_timers = slot_run_timers,
	.listen = slot_listen,
	.unlisten = slot_unlisten,
	.connect = slot_connect,
	.send = slot_send,
	.flush = slot_flush,
	.shutdown = slot_shutdown,
	.close = slot_close,
	.abort = slot_abort,
	.set_keepalive = slot_set_keepalive,
	.conn_info = slot_conn_info,
	.stats = slot_stats,
};
