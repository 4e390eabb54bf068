// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The TCP offload of an iWARP port (tcp/fw_tcp.h), end to end: two
 * firmware instances, each with its own copy of the stack, over a wire
 * that can lose, duplicate and reorder frames.  Handshake, MSS from the
 * port MTU, bulk data checked byte by byte both ways, FIN and RST,
 * keepalive, segments forged or out of the window, the classifier, and
 * the claiming of the stack's copies.
 */
#include <errno.h>
#include <string.h>

#include "fw_priv.h"
#include "tcp/fw_tcp.h"
#include "drv.h"
#include "link.h"
#include "ordma_test.h"

#define IP_A		0x0a000001u	/* 10.0.0.1 */
#define IP_B		0x0a000002u
#define NETMASK		0xffffff00u
#define PORT_B		4420
#define NO_REASON	(-1)
/* a little over 2^31 ns: every test gives up after this much device time */
#define TIME_LIMIT_NS	(900ULL * 1000000000ULL)

struct tside {
	struct drv d;
	struct link out;		/* frames this side sent */
	uint32_t ip;
	int64_t listener;
	uint32_t conn;			/* FW_TCP_NONE: none yet */
	int connect_reason;		/* NO_REASON until connected() */
	unsigned int accepted;
	bool peer_fin;
	int close_reason;		/* NO_REASON until closed() */
	uint64_t rx_bytes, rx_bad;
	uint64_t tx_goal, tx_off;
	unsigned int dir;		/* which pattern it sends */
};

struct tenv {
	struct tside s[2];
};

static uint8_t pattern_byte(unsigned int dir, uint64_t off)
{
	return (uint8_t)(off * 7 + (off >> 9) + dir * 131);
}

/* ------------------------------------------------------------------ */
/* Callbacks of the layer above TCP                                    */
/* ------------------------------------------------------------------ */

static void cb_accepted(struct ordma_fw *fw, void *arg, uint32_t listener,
			uint32_t conn)
{
	struct tside *s = arg;

	(void)fw;
	(void)listener;
	s->accepted++;
	s->conn = conn;
}

static void cb_connected(struct ordma_fw *fw, void *arg, uint32_t conn,
			 int reason)
{
	struct tside *s = arg;

	(void)fw;
	s->conn = conn;
	s->connect_reason = reason;
}

static void cb_recv(struct ordma_fw *fw, void *arg, uint32_t conn,
		    const void *data, size_t len)
{
	struct tside *s = arg;
	const uint8_t *p = data;
	size_t i;

	(void)fw;
	(void)conn;
	for (i = 0; i < len; i++)
		s->rx_bad += p[i] != pattern_byte(!s->dir, s->rx_bytes + i);
	s->rx_bytes += len;
}

static void cb_peer_fin(struct ordma_fw *fw, void *arg, uint32_t conn)
{
	struct tside *s = arg;

	(void)fw;
	(void)conn;
	s->peer_fin = true;
}

static void cb_sent(struct ordma_fw *fw, void *arg, uint32_t conn,
		    uint32_t len)
{
	(void)fw;
	(void)arg;
	(void)conn;
	(void)len;
}

static void cb_closed(struct ordma_fw *fw, void *arg, uint32_t conn,
		      enum fw_tcp_close_reason reason)
{
	struct tside *s = arg;

	(void)fw;
	(void)conn;
	s->close_reason = (int)reason;
	s->conn = FW_TCP_NONE;
}

static const struct fw_tcp_user test_user = {
	.accepted = cb_accepted,
	.connected = cb_connected,
	.recv = cb_recv,
	.peer_fin = cb_peer_fin,
	.sent = cb_sent,
	.closed = cb_closed,
};

/* ------------------------------------------------------------------ */
/* Fixture                                                             */
/* ------------------------------------------------------------------ */

static uint8_t set_iwarp(struct drv *d)
{
	struct ordma_aq_cmd cmd;

	drv_cmd_init(&cmd, ORDMA_CMD_SET_RDMA_PROTOCOL);
	cmd.set_rdma_protocol.port = cpu_to_le32(ORDMA_PORT_NUM);
	cmd.set_rdma_protocol.protocol = ORDMA_PORT_PROTO_IWARP;
	return drv_exec(d, &cmd);
}

static bool tside_open(struct tside *s, int i, uint32_t mtu)
{
	struct ordma_fw_config cfg;

	memset(s, 0, sizeof(*s));
	drv_default_config(&cfg);
	cfg.mac[0] = 0x02;
	cfg.mac[5] = (uint8_t)(0x0a + i);
	cfg.serial[9] = (char)('A' + i);
	if (!drv_open_cfg(&s->d, &cfg, 5) ||
	    drv_port_up(&s->d) != ORDMA_CMD_STATUS_OK ||
	    (mtu && drv_set_port(&s->d, ORDMA_SET_PORT_MTU, mtu, NULL, 0, 0) !=
		    ORDMA_CMD_STATUS_OK) ||
	    set_iwarp(&s->d) != ORDMA_CMD_STATUS_OK)
		return false;
	s->d.hal.tx_hook = link_tx_hook;
	s->d.hal.tx_hook_arg = &s->out;
	s->ip = i ? IP_B : IP_A;
	s->conn = FW_TCP_NONE;
	s->listener = -1;
	s->connect_reason = NO_REASON;
	s->close_reason = NO_REASON;
	s->dir = (unsigned int)i;
	if (fw_tcp_start(s->d.fw, s->ip, NETMASK))
		return false;
	fw_tcp_set_user(s->d.fw, &test_user, s);
	return true;
}

static bool tenv_open_mtu(struct tenv *e, uint32_t mtu_a, uint32_t mtu_b)
{
	return tside_open(&e->s[0], 0, mtu_a) &&
	       tside_open(&e->s[1], 1, mtu_b);
}

static void tenv_close(struct tenv *e)
{
	int i;

	for (i = 0; i < 2; i++) {
		drv_close(&e->s[i].d);
		link_free(&e->s[i].out);
	}
}

/* Queue more of the side's stream while TCP takes it */
static void feed(struct tside *s)
{
	uint8_t chunk[16384];

	while (s->conn != FW_TCP_NONE && s->tx_off < s->tx_goal) {
		size_t n = sizeof(chunk), i, took;

		if (n > s->tx_goal - s->tx_off)
			n = (size_t)(s->tx_goal - s->tx_off);
		for (i = 0; i < n; i++)
			chunk[i] = pattern_byte(s->dir, s->tx_off + i);
		took = fw_tcp_send(s->d.fw, s->conn, chunk, n);
		s->tx_off += took;
		if (took < n)
			break;
	}
}

static uint64_t now(struct tenv *e)
{
	return e->s[0].d.hal.now_ns;
}

/* Frames both ways until the wire is quiet */
static void pump(struct tenv *e)
{
	bool busy;

	do {
		feed(&e->s[0]);
		feed(&e->s[1]);
		busy = link_deliver(&e->s[0].out, e->s[1].d.fw);
		busy |= link_deliver(&e->s[1].out, e->s[0].d.fw);
	} while (busy);
}

/* Both clocks to the earlier of the two devices' timers */
static bool step_time(struct tenv *e)
{
	uint64_t t0 = e->s[0].d.hal.timer_deadline;
	uint64_t t1 = e->s[1].d.hal.timer_deadline;
	uint64_t next = t0 < t1 ? t0 : t1;

	if (next == UINT64_MAX || next > TIME_LIMIT_NS)
		return false;
	if (next < now(e))
		next = now(e);
	fake_advance(&e->s[0].d.hal, next - now(e));
	fake_advance(&e->s[1].d.hal, next - e->s[1].d.hal.now_ns);
	return true;
}

typedef bool (*tcond)(struct tenv *e);

/* Run wire and timers until cond holds; false if time ran out first */
static bool run_until(struct tenv *e, tcond cond)
{
	for (;;) {
		pump(e);
		if (cond(e))
			return true;
		if (!step_time(e))
			return false;
	}
}

/* Run for ns of device time */
static void run_for(struct tenv *e, uint64_t ns)
{
	uint64_t end = now(e) + ns;

	for (;;) {
		uint64_t t0 = e->s[0].d.hal.timer_deadline;
		uint64_t t1 = e->s[1].d.hal.timer_deadline;
		uint64_t next = t0 < t1 ? t0 : t1;

		pump(e);
		if (next > end)
			next = end;
		fake_advance(&e->s[0].d.hal, next - now(e));
		fake_advance(&e->s[1].d.hal, next - e->s[1].d.hal.now_ns);
		if (now(e) >= end) {
			pump(e);
			return;
		}
	}
}

static bool both_connected(struct tenv *e)
{
	return e->s[0].connect_reason != NO_REASON && e->s[1].accepted;
}

static bool a_connect_done(struct tenv *e)
{
	return e->s[0].connect_reason != NO_REASON;
}

/* A connects to B's listener; both ends up */
static bool tenv_connect(struct tenv *e)
{
	e->s[1].listener = fw_tcp_listen(e->s[1].d.fw, PORT_B, 4);
	if (e->s[1].listener < 0)
		return false;
	if (fw_tcp_connect(e->s[0].d.fw, IP_B, PORT_B, 0,
			   e->s[1].d.cfg.mac) < 0)
		return false;
	return run_until(e, both_connected) && e->s[0].connect_reason == 0;
}

static bool streams_done(struct tenv *e)
{
	return e->s[0].rx_bytes >= e->s[1].tx_goal &&
	       e->s[1].rx_bytes >= e->s[0].tx_goal;
}

static struct fw_tcp_conn_info info(struct tside *s)
{
	struct fw_tcp_conn_info in;

	memset(&in, 0xff, sizeof(in));
	CHECK_EQ(fw_tcp_conn_info(s->d.fw, s->conn, &in), 0);
	return in;
}

static struct fw_tcp_stats tstats(struct tside *s)
{
	struct fw_tcp_stats st;

	fw_tcp_stats(s->d.fw, &st);
	return st;
}

/* The largest frame a side put on the wire */
struct max_frame {
	size_t max;
};

static void note_frame(void *arg, const void *frame, size_t len)
{
	struct max_frame *m = arg;

	(void)frame;
	if (len > m->max)
		m->max = len;
}

/* ------------------------------------------------------------------ */
/* Segments built by hand: what an attacker on the wire sends          */
/* ------------------------------------------------------------------ */

static uint32_t csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

/* An Ethernet/IPv4/TCP frame from side `from` to side `to` */
static size_t forge(uint8_t *f, const struct tside *from,
		    const struct tside *to, uint16_t sport, uint16_t dport,
		    uint32_t seq, uint32_t ack, uint8_t flags,
		    const uint8_t *payload, size_t plen)
{
	uint8_t *ip = f + 14, *tcp = ip + 20, pseudo[12];
	size_t len = 14 + 20 + 20 + plen;
	uint32_t sum;

	memset(f, 0, 64);
	memcpy(f, to->d.cfg.mac, 6);
	memcpy(f + 6, from->d.cfg.mac, 6);
	put16(f + 12, 0x0800);
	ip[0] = 0x45;
	put16(ip + 2, (uint16_t)(20 + 20 + plen));
	put16(ip + 6, 0x4000);
	ip[8] = 64;
	ip[9] = 6;
	put32(ip + 12, from->ip);
	put32(ip + 16, to->ip);
	put16(ip + 10, csum_fold(csum_add(0, ip, 20)));
	put16(tcp, sport);
	put16(tcp + 2, dport);
	put32(tcp + 4, seq);
	put32(tcp + 8, ack);
	tcp[12] = 0x50;
	tcp[13] = flags;
	put16(tcp + 14, 8192);
	if (plen)
		memcpy(tcp + 20, payload, plen);
	memcpy(pseudo, ip + 12, 8);
	pseudo[8] = 0;
	pseudo[9] = 6;
	put16(pseudo + 10, (uint16_t)(20 + plen));
	sum = csum_add(csum_add(0, pseudo, 12), tcp, 20 + plen);
	put16(tcp + 16, csum_fold(sum));
	return len < 60 ? 60 : len;
}

#define TCPF_FIN	0x01
#define TCPF_SYN	0x02
#define TCPF_RST	0x04
#define TCPF_ACK	0x10

/* ------------------------------------------------------------------ */
/* Tests                                                               */
/* ------------------------------------------------------------------ */

TEST(test_tcp_handshake_and_mss)
{
	struct tenv e;
	struct fw_tcp_conn_info a, b;

	REQUIRE(tenv_open_mtu(&e, 0, 0));
	REQUIRE(tenv_connect(&e));
	CHECK_EQ(e.s[1].accepted, 1);
	a = info(&e.s[0]);
	b = info(&e.s[1]);
	CHECK_EQ(a.state, 4);			/* ESTABLISHED */
	CHECK_EQ(b.state, 4);
	/* the default MTU of 1500 bytes */
	CHECK_EQ(a.mss, 1460);
	CHECK_EQ(b.mss, 1460);
	CHECK_EQ(a.remote_ip, IP_B);
	CHECK_EQ(a.remote_port, PORT_B);
	CHECK_EQ(b.local_port, PORT_B);
	CHECK_EQ(b.remote_port, a.local_port);
	CHECK(a.local_port >= 0xc000);		/* an ephemeral port */
	/* the two devices run different copies of the stack */
	CHECK(e.s[0].d.fw->tcp.slot_index != e.s[1].d.fw->tcp.slot_index);
	tenv_close(&e);
}

TEST(test_tcp_mss_from_mtu)
{
	struct max_frame big = { 0 }, small = { 0 };
	struct tenv e;

	/* A has jumbo frames, B the default: A may send only B's MSS */
	REQUIRE(tenv_open_mtu(&e, 9000, 1500));
	e.s[0].out.rx_hook = note_frame;
	e.s[0].out.rx_hook_arg = &big;
	e.s[1].out.rx_hook = note_frame;
	e.s[1].out.rx_hook_arg = &small;
	REQUIRE(tenv_connect(&e));
	CHECK_EQ(info(&e.s[0]).mss, 1460);
	CHECK_EQ(info(&e.s[1]).mss, 1460);
	e.s[0].tx_goal = e.s[1].tx_goal = 256 * 1024;
	REQUIRE(run_until(&e, streams_done));
	CHECK_EQ(big.max, 14 + 1500);
	CHECK_EQ(small.max, 14 + 1500);
	tenv_close(&e);

	memset(&big, 0, sizeof(big));
	REQUIRE(tenv_open_mtu(&e, 9000, 9000));
	e.s[0].out.rx_hook = note_frame;
	e.s[0].out.rx_hook_arg = &big;
	REQUIRE(tenv_connect(&e));
	CHECK_EQ(info(&e.s[0]).mss, 8960);
	e.s[0].tx_goal = 1024 * 1024;
	REQUIRE(run_until(&e, streams_done));
	CHECK_EQ(big.max, 14 + 9000);
	CHECK_EQ(e.s[1].rx_bad, 0);
	tenv_close(&e);
}

TEST(test_tcp_bulk_both_ways)
{
	const uint64_t size = 64ULL << 20;
	struct tenv e;

	REQUIRE(tenv_open_mtu(&e, 9000, 9000));
	REQUIRE(tenv_connect(&e));
	e.s[0].tx_goal = e.s[1].tx_goal = size;
	REQUIRE(run_until(&e, streams_done));
	CHECK_EQ(e.s[0].rx_bytes, size);
	CHECK_EQ(e.s[1].rx_bytes, size);
	CHECK_EQ(e.s[0].rx_bad, 0);
	CHECK_EQ(e.s[1].rx_bad, 0);
	CHECK_EQ(tstats(&e.s[0]).mem_errors, 0);
	CHECK_EQ(tstats(&e.s[1]).tx_queue_full, 0);
	tenv_close(&e);
}

TEST(test_tcp_lossy_wire)
{
	const uint64_t size = 4ULL << 20;
	struct tenv e;
	int i;

	REQUIRE(tenv_open_mtu(&e, 0, 0));
	REQUIRE(tenv_connect(&e));
	for (i = 0; i < 2; i++) {
		e.s[i].out.rng = 0x1234u + (uint32_t)i;
		e.s[i].out.loss_pm = 20;
		e.s[i].out.dup_pm = 20;
		e.s[i].out.reorder_pm = 50;
		e.s[i].tx_goal = size;
	}
	REQUIRE(run_until(&e, streams_done));
	for (i = 0; i < 2; i++) {
		CHECK_EQ(e.s[i].rx_bytes, size);
		CHECK_EQ(e.s[i].rx_bad, 0);
		CHECK(e.s[i].out.dropped > 0);
		CHECK(e.s[i].out.duplicated > 0);
		CHECK(e.s[i].out.reordered > 0);
	}
	tenv_close(&e);
}

static bool b_has_fin(struct tenv *e)
{
	return e->s[1].peer_fin;
}

static bool a_has_fin(struct tenv *e)
{
	return e->s[0].peer_fin;
}

TEST(test_tcp_fin_both_ways)
{
	struct tenv e;

	REQUIRE(tenv_open_mtu(&e, 0, 0));
	REQUIRE(tenv_connect(&e));
	e.s[0].tx_goal = 100000;
	pump(&e);
	/* A half-closes after its data: B reads all of it, then the FIN */
	CHECK_EQ(fw_tcp_shutdown(e.s[0].d.fw, e.s[0].conn), 0);
	REQUIRE(run_until(&e, b_has_fin));
	CHECK_EQ(e.s[1].rx_bytes, 100000);
	CHECK_EQ(info(&e.s[1]).state, 7);	/* CLOSE_WAIT */
	/* B can still send to the half-closed A */
	e.s[1].tx_goal = 5000;
	pump(&e);
	CHECK_EQ(e.s[0].rx_bytes, 5000);
	fw_tcp_close(e.s[1].d.fw, e.s[1].conn);
	REQUIRE(run_until(&e, a_has_fin));
	fw_tcp_close(e.s[0].d.fw, e.s[0].conn);
	pump(&e);
	CHECK_EQ(e.s[0].close_reason, NO_REASON);	/* closed by us */
	CHECK_EQ(e.s[0].rx_bad + e.s[1].rx_bad, 0);
	tenv_close(&e);
}

static bool b_closed(struct tenv *e)
{
	return e->s[1].close_reason != NO_REASON;
}

static bool a_closed(struct tenv *e)
{
	return e->s[0].close_reason != NO_REASON;
}

TEST(test_tcp_rst)
{
	struct tenv e;

	REQUIRE(tenv_open_mtu(&e, 0, 0));
	REQUIRE(tenv_connect(&e));
	fw_tcp_abort(e.s[0].d.fw, e.s[0].conn);
	REQUIRE(run_until(&e, b_closed));
	CHECK_EQ(e.s[1].close_reason, FW_TCP_CLOSED_RESET);
	CHECK_EQ(e.s[0].close_reason, NO_REASON);
	tenv_close(&e);
}

TEST(test_tcp_connect_refused_and_unanswered)
{
	struct tenv e;

	REQUIRE(tenv_open_mtu(&e, 0, 0));
	REQUIRE(tenv_connect(&e));
	/*
	 * PORT_B stays reserved by B's connection after its listener is
	 * gone: a new SYN to it is B's TCP's, which has no listener and
	 * answers RST.
	 */
	fw_tcp_unlisten(e.s[1].d.fw, (uint32_t)e.s[1].listener);
	e.s[0].connect_reason = NO_REASON;
	REQUIRE(fw_tcp_connect(e.s[0].d.fw, IP_B, PORT_B, 0,
			       e.s[1].d.cfg.mac) >= 0);
	REQUIRE(run_until(&e, a_connect_done));
	CHECK_EQ(e.s[0].connect_reason, FW_TCP_CLOSED_REFUSED);
	CHECK(tstats(&e.s[1]).rx_no_pcb > 0);

	/* a port B does not offload: its host gets the SYN, TCP gives up */
	e.s[0].connect_reason = NO_REASON;
	REQUIRE(fw_tcp_connect(e.s[0].d.fw, IP_B, PORT_B + 1, 0,
			       e.s[1].d.cfg.mac) >= 0);
	REQUIRE(run_until(&e, a_connect_done));
	CHECK_EQ(e.s[0].connect_reason, FW_TCP_CLOSED_TIMEOUT);
	tenv_close(&e);
}

static bool b_accepted_two(struct tenv *e)
{
	return e->s[0].connect_reason != NO_REASON && e->s[1].accepted >= 2;
}

/*
 * A port is listened on again while a connection its first listener
 * accepted lives on (rdma_cm does it: perftest's second listener on the
 * port of its first connection); a second listener beside the first is
 * refused.
 */
TEST(test_tcp_listen_again_beside_connection)
{
	struct tenv e;
	int64_t again;

	REQUIRE(tenv_open_mtu(&e, 0, 0));
	REQUIRE(tenv_connect(&e));
	fw_tcp_unlisten(e.s[1].d.fw, (uint32_t)e.s[1].listener);
	again = fw_tcp_listen(e.s[1].d.fw, PORT_B, 4);
	CHECK(again >= 0);
	CHECK_EQ(fw_tcp_listen(e.s[1].d.fw, PORT_B, 4), -EADDRINUSE);
	e.s[0].connect_reason = NO_REASON;
	REQUIRE(fw_tcp_connect(e.s[0].d.fw, IP_B, PORT_B, 0,
			       e.s[1].d.cfg.mac) >= 0);
	REQUIRE(run_until(&e, b_accepted_two));
	CHECK_EQ(e.s[0].connect_reason, 0);
	CHECK_EQ(info(&e.s[1]).local_port, PORT_B);
	tenv_close(&e);
}

TEST(test_tcp_keepalive)
{
	struct tenv e;

	REQUIRE(tenv_open_mtu(&e, 0, 0));
	REQUIRE(tenv_connect(&e));
	CHECK_EQ(fw_tcp_set_keepalive(e.s[0].d.fw, e.s[0].conn, 0, 0, 0), 0);
	CHECK(fw_tcp_set_keepalive(e.s[0].d.fw, e.s[0].conn, 1000, 0, 3) < 0);
	REQUIRE(fw_tcp_set_keepalive(e.s[0].d.fw, e.s[0].conn, 1000, 500,
				     3) == 0);
	/* answered probes keep an idle connection */
	run_for(&e, 20ULL * 1000000000ULL);
	CHECK_EQ(e.s[0].close_reason, NO_REASON);
	CHECK_EQ(info(&e.s[0]).state, 4);
	/* the peer goes silent: A gives up after the probes */
	e.s[1].out.drop_from = e.s[1].out.sent + 1;
	REQUIRE(run_until(&e, a_closed));
	CHECK_EQ(e.s[0].close_reason, FW_TCP_CLOSED_TIMEOUT);
	CHECK(now(&e) < 60ULL * 1000000000ULL);
	tenv_close(&e);
}

TEST(test_tcp_forged_segments)
{
	struct fw_tcp_conn_info a, b;
	struct fw_tcp_stats st;
	uint8_t frame[256], data[32];
	struct tenv e;
	size_t len;

	REQUIRE(tenv_open_mtu(&e, 0, 0));
	REQUIRE(tenv_connect(&e));
	a = info(&e.s[0]);
	b = info(&e.s[1]);
	REQUIRE_EQ(a.snd_nxt, b.rcv_nxt);

	/* a RST inside B's window but not at rcv_nxt: challenge ACK */
	len = forge(frame, &e.s[0], &e.s[1], a.local_port, PORT_B,
		    b.rcv_nxt + 1000, 0, TCPF_RST, NULL, 0);
	ordma_fw_rx_frame(e.s[1].d.fw, frame, len);
	/* out of the window: ignored */
	len = forge(frame, &e.s[0], &e.s[1], a.local_port, PORT_B,
		    b.rcv_nxt + 0x40000000u, 0, TCPF_RST, NULL, 0);
	ordma_fw_rx_frame(e.s[1].d.fw, frame, len);
	st = tstats(&e.s[1]);
	CHECK_EQ(st.rx_rst_challenged, 1);
	CHECK_EQ(st.rx_rst_ignored, 1);
	CHECK_EQ(e.s[1].close_reason, NO_REASON);
	CHECK_EQ(info(&e.s[1]).state, 4);

	/* data beyond the window: ACKed, dropped, never delivered */
	memset(data, 0x5a, sizeof(data));
	len = forge(frame, &e.s[0], &e.s[1], a.local_port, PORT_B,
		    b.rcv_nxt + 0x100000u, b.snd_nxt, TCPF_ACK, data,
		    sizeof(data));
	ordma_fw_rx_frame(e.s[1].d.fw, frame, len);
	CHECK_EQ(tstats(&e.s[1]).rx_out_of_window, 1);
	CHECK_EQ(e.s[1].rx_bytes, 0);

	/* a bad checksum is counted and dropped */
	len = forge(frame, &e.s[0], &e.s[1], a.local_port, PORT_B,
		    b.rcv_nxt, b.snd_nxt, TCPF_ACK, data, sizeof(data));
	frame[14 + 20 + 16] ^= 0xff;
	ordma_fw_rx_frame(e.s[1].d.fw, frame, len);
	CHECK_EQ(tstats(&e.s[1]).rx_checksum, 1);
	CHECK_EQ(e.s[1].rx_bytes, 0);

	/* the connection is unharmed */
	pump(&e);
	e.s[0].tx_goal = 10000;
	pump(&e);
	CHECK_EQ(e.s[1].rx_bytes, 10000);
	CHECK_EQ(e.s[1].rx_bad, 0);

	/* the RST at rcv_nxt is the one TCP takes */
	b = info(&e.s[1]);
	len = forge(frame, &e.s[0], &e.s[1], a.local_port, PORT_B,
		    b.rcv_nxt, 0, TCPF_RST, NULL, 0);
	ordma_fw_rx_frame(e.s[1].d.fw, frame, len);
	CHECK_EQ(e.s[1].close_reason, FW_TCP_CLOSED_RESET);
	tenv_close(&e);
}

/* Segments of no connection to a listener's port are counted */
TEST(test_tcp_listener_stale_segments)
{
	struct fw_tcp_conn_info a;
	struct fw_tcp_stats st;
	uint8_t frame[128];
	struct tenv e;
	size_t len;

	REQUIRE(tenv_open_mtu(&e, 0, 0));
	REQUIRE(tenv_connect(&e));
	a = info(&e.s[0]);
	/* an ACK from a port with no connection: answered with RST */
	len = forge(frame, &e.s[0], &e.s[1], a.local_port + 1, PORT_B, 1000,
		    2000, TCPF_ACK, NULL, 0);
	ordma_fw_rx_frame(e.s[1].d.fw, frame, len);
	/* a RST from it: ignored */
	len = forge(frame, &e.s[0], &e.s[1], a.local_port + 1, PORT_B, 1000,
		    0, TCPF_RST, NULL, 0);
	ordma_fw_rx_frame(e.s[1].d.fw, frame, len);
	st = tstats(&e.s[1]);
	CHECK_EQ(st.rx_no_pcb, 1);
	CHECK_EQ(st.rx_rst_ignored, 1);
	CHECK_EQ(info(&e.s[1]).state, 4);
	tenv_close(&e);
}

TEST(test_tcp_classifier)
{
	struct ordma_port_stats ps;
	uint8_t frame[128];
	struct tenv e;
	size_t len;
	uint64_t before;

	REQUIRE(tenv_open_mtu(&e, 0, 0));
	REQUIRE(tenv_connect(&e));
	REQUIRE(drv_stats(&e.s[1].d, &ps));
	before = le64_to_cpu(ps.rx_drop_no_buf);
	/* TCP to a port B does not offload, and TCP to another address,
	 * are the host's (no RX ring here: counted as no buffer)
	 */
	len = forge(frame, &e.s[0], &e.s[1], 1234, 22, 1, 0, TCPF_SYN, NULL, 0);
	ordma_fw_rx_frame(e.s[1].d.fw, frame, len);
	e.s[1].ip = IP_B + 1;
	len = forge(frame, &e.s[0], &e.s[1], 1234, PORT_B, 1, 0, TCPF_SYN,
		    NULL, 0);
	e.s[1].ip = IP_B;
	ordma_fw_rx_frame(e.s[1].d.fw, frame, len);
	REQUIRE(drv_stats(&e.s[1].d, &ps));
	CHECK_EQ(le64_to_cpu(ps.rx_drop_no_buf), before + 2);
	CHECK_EQ(tstats(&e.s[1]).rx_no_pcb, 0);
	/* a truncated segment has no ports to read: the host's too */
	len = forge(frame, &e.s[0], &e.s[1], 1234, PORT_B, 1, 0, TCPF_SYN,
		    NULL, 0);
	ordma_fw_rx_frame(e.s[1].d.fw, frame, 14 + 20 + 4);
	REQUIRE(drv_stats(&e.s[1].d, &ps));
	CHECK_EQ(le64_to_cpu(ps.rx_drop_no_buf), before + 3);
	tenv_close(&e);
}

TEST(test_tcp_slots)
{
	struct drv d[FW_TCP_SLOTS + 1];
	struct tenv e;
	unsigned int i;

	for (i = 0; i <= FW_TCP_SLOTS; i++)
		REQUIRE(drv_open(&d[i], 4));
	for (i = 0; i < FW_TCP_SLOTS; i++)
		CHECK_EQ(fw_tcp_start(d[i].fw, IP_A + i, NETMASK), 0);
	/* every copy is taken: the next device gets none */
	CHECK_EQ(fw_tcp_start(d[FW_TCP_SLOTS].fw, IP_B, NETMASK), -1);
	CHECK(!fw_tcp_running(d[FW_TCP_SLOTS].fw));
	/* a reset gives the copy back */
	ordma_fw_reset(d[0].fw);
	CHECK(!fw_tcp_running(d[0].fw));
	CHECK_EQ(fw_tcp_start(d[FW_TCP_SLOTS].fw, IP_B, NETMASK), 0);
	for (i = 0; i <= FW_TCP_SLOTS; i++)
		drv_close(&d[i]);

	/* copies used before, with timers that ran, still work */
	for (i = 0; i < 2; i++) {
		REQUIRE(tenv_open_mtu(&e, 0, 0));
		REQUIRE(tenv_connect(&e));
		e.s[0].tx_goal = 100000;
		run_for(&e, 3ULL * 1000000000ULL);
		CHECK_EQ(e.s[1].rx_bytes, 100000);
		tenv_close(&e);
	}
}
