// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Link-level flow control: IEEE 802.3x PAUSE frames the link partner
 * sends hold back the port's RC and UC request packets and READ
 * responses, never its ACKs; a PAUSE ends by itself, when a new one
 * replaces it, or with pause_time 0; MAC control frames never reach the
 * host.
 */
#include <stdlib.h>
#include <string.h>

#include "ordma_test.h"
#include "pair.h"
#include "platform/fw_platform.h"

static const uint8_t pause_dst[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01 };
static const uint8_t partner_mac[6] = { 0x02, 0, 0, 0, 0, 0x77 };

/* pause_time 0xffff at the fixture's 25 Gbit/s: 65535 * 512 bits */
#define PAUSE_MAX_NS	(65535ULL * 512 * 1000 / 25000)

static size_t mac_control(uint8_t *f, const uint8_t dst[6], uint16_t opcode,
			  uint16_t quanta)
{
	memset(f, 0, 60);
	memcpy(f, dst, 6);
	memcpy(f + 6, partner_mac, 6);
	f[12] = 0x88;
	f[13] = 0x08;
	f[14] = (uint8_t)(opcode >> 8);
	f[15] = (uint8_t)opcode;
	f[16] = (uint8_t)(quanta >> 8);
	f[17] = (uint8_t)quanta;
	return 60;	/* the minimum frame, FCS not included */
}

static void pause_port(struct side *s, uint16_t quanta)
{
	uint8_t f[60];

	ordma_fw_rx_frame(s->d.fw, f, mac_control(f, pause_dst, 1, quanta));
}

static void write_wr(struct env *e, struct wr *w, uint32_t len)
{
	wr_init(w, ORDMA_WQE_RDMA_WRITE, MR1_ADDR, len, e->s[0].key1);
	w->remote_addr = MR1_ADDR + 0x40000;
	w->rkey = e->s[1].key1;
}

/* RC requests wait for the end of the pause; PAUSE 0 lets them go at once */
TEST(test_pause_holds_rc_requests)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	pattern(mem(a, MR1_ADDR, 8192), 8192, 3);
	pause_port(a, 0xffff);
	CHECK_EQ(stats(a).pause_rx, 1);
	write_wr(&e, &w, 8192);
	post(a, &w);
	CHECK_EQ(e.l[0].sent, 0);
	CHECK_EQ(stats(a).roce_tx_pause_holds, 1);
	/* the rest of the pause passes without a packet */
	advance(&e, PAUSE_MAX_NS - 1);
	CHECK_EQ(e.l[0].sent, 0);
	pause_port(a, 0);
	CHECK_EQ(e.l[0].sent, 8);
	pump(&e);
	CHECK(expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_SUCCESS,
			 8192, 0));
	CHECK(!memcmp(mem(a, MR1_ADDR, 8192), mem(b, MR1_ADDR + 0x40000, 8192),
		      8192));
	CHECK_EQ(stats(a).roce_timeouts, 0);
	CHECK_EQ(stats(a).roce_retransmits, 0);
	env_close(&e);
}

/* A pause ends by itself; a PAUSE that comes before then replaces it. */
TEST(test_pause_expires_and_is_replaced)
{
	const uint64_t quantum_ns = 512 * 1000 / 25000;	/* 20.48 ns */
	struct env e;
	struct side *a;
	struct tcfg c;
	struct wr w;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	pause_port(a, 1000);		/* 20.48 us */
	write_wr(&e, &w, 4096);
	post(a, &w);
	CHECK_EQ(e.l[0].sent, 0);
	advance(&e, 500 * quantum_ns);
	/* refreshed half way: 1000 quanta from now */
	pause_port(a, 1000);
	advance(&e, 600 * quantum_ns);
	CHECK_EQ(e.l[0].sent, 0);
	advance(&e, 500 * quantum_ns);
	CHECK_EQ(e.l[0].sent, 4);
	CHECK(expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_SUCCESS,
			 4096, 0));
	/* a shorter PAUSE moves the end earlier */
	pause_port(a, 0xffff);
	post(a, &w);
	CHECK_EQ(e.l[0].sent, 4);
	pause_port(a, 10);
	advance(&e, 11 * quantum_ns);
	CHECK_EQ(e.l[0].sent, 8);
	CHECK(expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_SUCCESS,
			 4096, 1));
	env_close(&e);
}

/*
 * A paused responder still acknowledges what it receives (ACKs are not
 * held), but holds its READ responses until the pause ends.
 */
TEST(test_pause_holds_read_responses_not_acks)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	pattern(mem(b, MR1_ADDR, 8192), 8192, 4);
	pause_port(b, 0xffff);
	write_wr(&e, &w, 4096);
	post(a, &w);
	pump(&e);
	CHECK(expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_SUCCESS,
			 4096, 0));
	CHECK_EQ(stats(b).roce_acks_sent, 1);

	wr_init(&w, ORDMA_WQE_RDMA_READ, MR1_ADDR + 0x80000, 8192, a->key1);
	w.remote_addr = MR1_ADDR;
	w.rkey = b->key1;
	post(a, &w);
	pump(&e);
	CHECK_EQ(e.l[1].sent, 1);	/* the ACK only */
	CHECK(no_cqe(a, true));
	CHECK_EQ(stats(b).roce_tx_pause_holds, 1);
	pause_port(b, 0);
	pump(&e);
	CHECK(expect_cqe(a, true, ORDMA_CQE_OP_RDMA_READ, ORDMA_CQE_SUCCESS,
			 8192, 1));
	CHECK(!memcmp(mem(a, MR1_ADDR + 0x80000, 8192), mem(b, MR1_ADDR, 8192),
		      8192));
	env_close(&e);
}

/*
 * A retransmission timer that expires while the port is paused is no
 * timeout: the packets the peer has not answered yet may simply wait
 * behind the pause.  It starts again; the retry count stays.
 */
TEST(test_pause_timer_not_a_retry)
{
	struct env e;
	struct side *a;
	struct tcfg c;
	struct wr w;
	uint8_t retries;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	write_wr(&e, &w, 4096);
	post(a, &w);
	CHECK_EQ(e.l[0].sent, 4);
	retries = fwqp(a)->req.retry_left;
	/* the packets are held on the wire; the partner keeps pausing */
	while (a->d.hal.now_ns < (4096ULL << c.timeout) * 3) {
		pause_port(a, 0xffff);
		fake_advance(&a->d.hal, PAUSE_MAX_NS / 2);
	}
	CHECK_EQ(stats(a).roce_timeouts, 0);
	CHECK_EQ(fwqp(a)->req.retry_left, retries);
	CHECK_EQ(e.l[0].sent, 4);
	/* unpaused, the timer runs out for real */
	pause_port(a, 0);
	fake_advance(&a->d.hal, 4096ULL << c.timeout);
	CHECK_EQ(stats(a).roce_timeouts, 1);
	CHECK_EQ(fwqp(a)->req.retry_left, retries - 1);
	/* the first copies arrive after all, then the resent ones */
	pump(&e);
	CHECK(expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_SUCCESS,
			 4096, 0));
	env_close(&e);
}

/* UC sends are held too; UD sends are not. */
TEST(test_pause_holds_uc_not_ud)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;
	uint32_t ah;

	default_cfg(&c);
	c.type = ORDMA_QPT_UC;
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	pause_port(a, 0xffff);
	post_recv(b, MR1_ADDR + 0x40000, 4096);
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 3000, a->key1);
	post(a, &w);
	CHECK_EQ(e.l[0].sent, 0);
	advance(&e, PAUSE_MAX_NS);
	CHECK_EQ(e.l[0].sent, 3);
	CHECK(expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, 3000,
			 0));
	env_close(&e);

	default_cfg(&c);
	c.type = ORDMA_QPT_UD;
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	REQUIRE_EQ(create_ah(a, b, &ah), OK);
	pause_port(a, 0xffff);
	post_recv(b, MR1_ADDR, 40 + 1024);
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 1000, a->key1);
	w.ah = ah;
	w.remote_qpn = b->qpn;
	w.remote_qkey = 0x1234;
	post(a, &w);
	CHECK_EQ(e.l[0].sent, 1);
	CHECK(expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 1000,
			 0));
	pump(&e);
	CHECK(expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS,
			 40 + 1000, 0));
	CHECK_EQ(stats(a).roce_tx_pause_holds, 0);
	env_close(&e);
}

/*
 * MAC control frames are the MAC's: a PAUSE to the port's own address
 * works like one to 01:80:c2:00:00:01; other opcodes (PFC among them),
 * a PAUSE to another address and a runt are dropped as filtered; none
 * reaches the host's Ethernet ring or the RoCE engine.
 */
TEST(test_pause_mac_control_filtering)
{
	struct env e;
	struct side *a;
	struct ordma_port_stats before, after;
	struct tcfg c;
	uint8_t f[60];

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	before = stats(a);
	ordma_fw_rx_frame(a->d.fw, f, mac_control(f, pause_dst, 0x0101,
						  0xffff));
	ordma_fw_rx_frame(a->d.fw, f, mac_control(f, partner_mac, 1, 0xffff));
	ordma_fw_rx_frame(a->d.fw, f, mac_control(f, pause_dst, 1, 0xffff) -
			  44);
	after = stats(a);
	CHECK_EQ(after.rx_drop_filter, before.rx_drop_filter + 3);
	CHECK_EQ(after.pause_rx, 0);
	CHECK_EQ(after.rx_frames, before.rx_frames);
	CHECK_EQ(after.roce_rx_frames, before.roce_rx_frames);
	CHECK_EQ(fw_port_paused_until(a->d.fw), 0);
	ordma_fw_rx_frame(a->d.fw, f, mac_control(f, a->d.cfg.mac, 1, 100));
	CHECK_EQ(stats(a).pause_rx, 1);
	CHECK(fw_port_paused_until(a->d.fw) != 0);
	env_close(&e);
}

/* A function reset ends the pause and clears every port counter. */
TEST(test_pause_and_engine_counters_cleared_by_reset)
{
	struct env e;
	struct side *a;
	struct ordma_port_stats s;
	struct tcfg c;
	struct wr w;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	write_wr(&e, &w, 4096);
	post(a, &w);
	pump(&e);
	CHECK_EQ(stats(e.s + 1).roce_acks_sent, 1);
	pause_port(a, 0xffff);
	post(a, &w);
	CHECK_EQ(stats(a).roce_tx_pause_holds, 1);
	drv_wr(&e.s[1].d, ORDMA_REG_CTRL, ORDMA_CTRL_RESET);
	REQUIRE(drv_enable(&e.s[1].d, 5));
	s = stats(e.s + 1);
	CHECK_EQ(s.roce_acks_sent, 0);
	CHECK_EQ(s.roce_rx_frames, 0);
	drv_wr(&a->d, ORDMA_REG_CTRL, ORDMA_CTRL_RESET);
	REQUIRE(drv_enable(&a->d, 5));
	CHECK_EQ(fw_port_paused_until(a->d.fw), 0);
	s = stats(a);
	CHECK_EQ(s.pause_rx, 0);
	CHECK_EQ(s.roce_tx_pause_holds, 0);
	CHECK_EQ(s.roce_tx_frames, 0);
	env_close(&e);
}
