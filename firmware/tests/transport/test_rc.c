// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * RC end to end: SEND, WRITE, READ and atomics, PSNs and the send
 * window, loss, duplicates, RNR, retries, remote and local errors, SRQs.
 */
#include <stdlib.h>
#include <string.h>

#include "ordma_test.h"
#include "pair.h"
#include "roce_codec.h"


/* ------------------------------------------------------------------ */
/* RC data transfer                                                    */
/* ------------------------------------------------------------------ */

TEST(test_tp_caps)
{
	struct ordma_device_caps caps;
	struct drv d;

	REQUIRE(drv_open(&d, 5));
	REQUIRE_EQ(drv_query(&d, ORDMA_CMD_QUERY_DEVICE, 0, &caps,
			     sizeof(caps)), OK);
	CHECK_EQ(le32_to_cpu(caps.cap_flags),
		 ORDMA_DEV_CAP_RC | ORDMA_DEV_CAP_UD | ORDMA_DEV_CAP_UC |
		 ORDMA_DEV_CAP_SRQ |
		 ORDMA_DEV_CAP_ATOMIC | ORDMA_DEV_CAP_FAST_REG |
		 ORDMA_DEV_CAP_VERBS | ORDMA_DEV_CAP_FLUSH |
		 ORDMA_DEV_CAP_ATOMIC_WRITE | ORDMA_DEV_CAP_MW |
		 ORDMA_DEV_CAP_GSI | ORDMA_DEV_CAP_MCAST |
		 ORDMA_DEV_CAP_FAULT_INJECT | ORDMA_DEV_CAP_IWARP);
	drv_close(&d);
}

/* One SEND of len bytes A -> B at the configured MTU, checked entirely. */
static void send_once(const struct tcfg *c, uint32_t len, unsigned int pkts)
{
	struct env e;
	struct side *a = &e.s[0], *b = &e.s[1];
	struct ordma_port_stats st;
	struct wr w;

	REQUIRE(env_open(&e, c));
	pattern(mem(a, MR1_ADDR + 0x1000, len), len, 3);
	memset(mem(b, MR1_ADDR, len + 64), 0xee, len + 64);
	post_recv(b, MR1_ADDR, len + 16);
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR + 0x1000, len, a->key1);
	post(a, &w);
	CHECK(e.l[0].max_queued <= FW_TP_WINDOW);
	pump(&e);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, len, 0);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, len, 0);
	no_cqe(a, true);
	no_cqe(b, false);
	CHECK(!memcmp(mem(a, MR1_ADDR + 0x1000, len), mem(b, MR1_ADDR, len),
		      len));
	CHECK_EQ(mem(b, MR1_ADDR + len, 1)[0], 0xee);
	CHECK_EQ(e.l[0].sent, pkts);
	CHECK_EQ(fwqp(a)->counters.tx_packets, pkts);
	CHECK_EQ(fwqp(b)->counters.rx_packets, pkts);
	CHECK_EQ(sq_psn(a), (c->psn[0] + pkts) & 0xffffff);
	CHECK_EQ(rq_psn(b), (c->psn[0] + pkts) & 0xffffff);
	CHECK_EQ(fwqp(b)->msn, 1);
	CHECK_EQ(fwqp(a)->counters.retransmits, 0);
	st = stats(a);
	CHECK_EQ(st.roce_tx_frames, pkts);
	CHECK_EQ(st.roce_rx_frames, e.l[1].sent);
	CHECK_EQ(st.roce_rx_drop, 0);
	st = stats(b);
	CHECK_EQ(st.roce_rx_frames, pkts);
	CHECK_EQ(st.roce_rx_drop, 0);
	/* coalesced: an ACK every FW_TP_ACK_EVERY packets and one for the
	 * last
	 */
	CHECK_EQ(e.l[1].sent, pkts / FW_TP_ACK_EVERY +
		 (pkts % FW_TP_ACK_EVERY ? 1 : 0));
	CHECK_EQ(qp_state(a), ORDMA_QPS_RTS);
	CHECK_EQ(qp_state(b), ORDMA_QPS_RTS);
	env_close(&e);
}

TEST(test_tp_rc_send_small)
{
	struct tcfg c;

	default_cfg(&c);
	send_once(&c, 100, 1);
	send_once(&c, 0, 1);
}

TEST(test_tp_rc_send_mtu256)
{
	struct tcfg c;

	default_cfg(&c);
	c.path_mtu = 1;
	send_once(&c, 10000, 40);	/* 39 full packets and 16 bytes */
	send_once(&c, 256 * 20, 20);
}

TEST(test_tp_rc_send_mtu4096)
{
	struct tcfg c;

	default_cfg(&c);
	c.path_mtu = 5;
	c.port_mtu = 4200;
	send_once(&c, 20000, 5);
}

TEST(test_tp_rc_psn_wrap)
{
	struct tcfg c;

	default_cfg(&c);
	c.path_mtu = 1;
	c.psn[0] = 0xfffff0;
	send_once(&c, 256 * 40, 40);
}

/* A big message goes out in windows of unacknowledged packets. */
TEST(test_tp_rc_send_window)
{
	struct tcfg c;

	default_cfg(&c);
	send_once(&c, 1u << 19, 512);
}

/*
 * The window is full at FW_TP_WINDOW unacknowledged packets: nothing more
 * leaves until an ACK comes, and each coalesced ACK opens the window by
 * the FW_TP_ACK_EVERY packets it acknowledges.
 */
/*
 * A and B connected at MTU 256, and A's WRITE of len bytes (its MR1 to
 * B's) posted: the first window of it is on the wire.
 */
static bool post_big_write(struct env *e, uint32_t len, unsigned int seed)
{
	struct side *a = &e->s[0];
	struct tcfg c;
	struct wr w;

	default_cfg(&c);
	c.path_mtu = 1;
	if (!env_open(e, &c))
		return false;
	pattern(mem(a, MR1_ADDR, len), len, seed);
	wr_init(&w, ORDMA_WQE_RDMA_WRITE, MR1_ADDR, len, a->key1);
	w.remote_addr = MR1_ADDR;
	w.rkey = e->s[1].key1;
	post(a, &w);
	return true;
}

TEST(test_tp_rc_window_full)
{
	const uint32_t pkts = FW_TP_WINDOW + 100, len = pkts * 256;
	struct env e;
	struct side *a = &e.s[0], *b = &e.s[1];

	REQUIRE(post_big_write(&e, len, 12));
	CHECK_EQ(e.l[0].sent, FW_TP_WINDOW);
	/* B takes the whole window; its ACKs are held on the wire */
	while (link_deliver(&e.l[0], b->d.fw))
		;
	CHECK_EQ(e.l[0].sent, FW_TP_WINDOW);
	CHECK_EQ(e.l[1].sent, FW_TP_WINDOW / FW_TP_ACK_EVERY);
	CHECK_EQ(fw_psn_diff(rq_psn(b), fwqp(a)->req.una_psn), FW_TP_WINDOW);
	/* the first ACK frees the packets it covers, no more */
	REQUIRE(link_deliver(&e.l[1], a->d.fw));
	CHECK_EQ(e.l[0].sent, FW_TP_WINDOW + FW_TP_ACK_EVERY);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_SUCCESS, len, 0);
	CHECK(!memcmp(mem(b, MR1_ADDR, len), mem(a, MR1_ADDR, len), len));
	CHECK_EQ(e.l[0].sent, pkts);
	CHECK_EQ(fwqp(a)->counters.retransmits, 0);
	env_close(&e);
}

/*
 * ACKs are coalesced over FW_TP_ACK_EVERY packets, but the last packet of
 * every message is acknowledged at once: three 10-packet WRITEs posted
 * together get three ACKs, a 150-packet one gets them at 64, 128 and 150.
 */
TEST(test_tp_rc_ack_last_of_message)
{
	const uint32_t small = 10 * 256, big = 150 * 256;
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;
	int i;

	default_cfg(&c);
	c.path_mtu = 1;
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	pattern(mem(a, MR1_ADDR, big), big, 13);
	for (i = 0; i < 3; i++) {
		wr_init(&w, ORDMA_WQE_RDMA_WRITE, MR1_ADDR + i * small, small,
			a->key1);
		w.remote_addr = MR1_ADDR + i * small;
		w.rkey = b->key1;
		put_wqe(a, &w);
	}
	ring_sq(a);
	CHECK_EQ(e.l[0].sent, 30);
	while (link_deliver(&e.l[0], b->d.fw))
		;
	CHECK_EQ(e.l[1].sent, 3);
	CHECK_EQ(stats(b).roce_acks_sent, 3);
	pump(&e);
	for (i = 0; i < 3; i++)
		expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_SUCCESS,
			   small, i);
	CHECK(!memcmp(mem(b, MR1_ADDR, 3 * small), mem(a, MR1_ADDR, 3 * small),
		      3 * small));

	e.l[1].sent = 0;
	wr_init(&w, ORDMA_WQE_RDMA_WRITE, MR1_ADDR, big, a->key1);
	w.remote_addr = MR1_ADDR + 0x80000;
	w.rkey = b->key1;
	post(a, &w);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_SUCCESS, big, 3);
	CHECK(!memcmp(mem(b, MR1_ADDR + 0x80000, big), mem(a, MR1_ADDR, big),
		      big));
	CHECK_EQ(e.l[1].sent, 150 / FW_TP_ACK_EVERY + 1);
	CHECK_EQ(fwqp(a)->counters.retransmits, 0);
	env_close(&e);
}

/*
 * A packet lost deep inside a full window (MTU 256): one PSN sequence NAK,
 * the requester goes back to the lost packet, and the message arrives
 * whole.  At most a window is sent twice.
 */
static void go_back_large_window(uint32_t first_psn, uint32_t pkts,
				 unsigned long drop_nth)
{
	const uint32_t len = pkts * 256 - 7;
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;

	default_cfg(&c);
	c.path_mtu = 1;
	c.psn[0] = first_psn;
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	pattern(mem(a, MR1_ADDR, len), len, 14);
	memset(mem(b, MR1_ADDR, len + 64), 0xee, len + 64);
	post_recv(b, MR1_ADDR, len + 16);
	e.l[0].drop_nth = drop_nth;
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, len, a->key1);
	post(a, &w);
	CHECK_EQ(e.l[0].sent, FW_TP_WINDOW);
	pump(&e);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, len, 0);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, len, 0);
	CHECK(!memcmp(mem(b, MR1_ADDR, len), mem(a, MR1_ADDR, len), len));
	CHECK_EQ(mem(b, MR1_ADDR + len, 1)[0], 0xee);
	CHECK_EQ(fwqp(a)->counters.retransmits, 1);
	CHECK_EQ(fwqp(a)->counters.nak_seq_received, 1);
	CHECK_EQ(stats(b).roce_naks_sent, 1);
	/* everything the window held past the hole was out of sequence */
	CHECK(fwqp(b)->counters.seq_errors >= FW_TP_WINDOW - drop_nth);
	CHECK(e.l[0].sent <= pkts + FW_TP_WINDOW);
	CHECK_EQ(fwqp(b)->counters.duplicate_requests, 0);
	CHECK_EQ(sq_psn(a), (first_psn + pkts) & 0xffffff);
	CHECK_EQ(rq_psn(b), (first_psn + pkts) & 0xffffff);
	CHECK_EQ(qp_state(a), ORDMA_QPS_RTS);
	CHECK_EQ(qp_state(b), ORDMA_QPS_RTS);
	env_close(&e);
}

TEST(test_tp_rc_go_back_large_window)
{
	/* past what the 64-packet window of old could have had out */
	go_back_large_window(0x123456, 1000, 300);
	go_back_large_window(0x123456, 1000, FW_TP_WINDOW);
}

/*
 * After a retransmission timeout the requester goes back with a window of
 * FW_TP_WINDOW_MIN packets (the wire may be full), and opens it again as
 * ACKs come.
 */
TEST(test_tp_rc_window_after_timeout)
{
	const uint32_t pkts = FW_TP_WINDOW + 88, len = pkts * 256;
	struct env e;
	struct side *a = &e.s[0], *b = &e.s[1];

	REQUIRE(post_big_write(&e, len, 17));
	CHECK_EQ(e.l[0].sent, FW_TP_WINDOW);
	e.l[1].drop_from = 1;		/* every ACK is lost */
	pump(&e);
	CHECK_EQ(e.l[0].sent, FW_TP_WINDOW);
	e.l[1].drop_from = 0;
	fake_advance(&a->d.hal, (4096ULL << 10) + 1000);
	fake_advance(&b->d.hal, (4096ULL << 10) + 1000);
	CHECK_EQ(fwqp(a)->counters.timeouts, 1);
	CHECK_EQ(e.l[0].sent, FW_TP_WINDOW + FW_TP_WINDOW_MIN);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_SUCCESS, len, 0);
	CHECK(!memcmp(mem(b, MR1_ADDR, len), mem(a, MR1_ADDR, len), len));
	CHECK_EQ(fwqp(a)->counters.retransmits, 1);
	CHECK_EQ(fwqp(a)->req.window, 0);	/* open again */
	CHECK_EQ(qp_state(a), ORDMA_QPS_RTS);
	env_close(&e);
}

/*
 * A WRITE right behind a big READ, both in one window: the responder
 * executes the WRITE while the READ's responses are still paced out; its
 * ACK waits for them, so the requester never takes the READ for lost.
 */
TEST(test_tp_rc_ack_after_read_responses)
{
	const uint32_t rlen = 0x10000, wlen = 8 * 1024;
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	pattern(mem(b, MR1_ADDR, rlen), rlen, 15);
	pattern(mem(a, MR1_ADDR + 0x40000, wlen), wlen, 16);
	wr_init(&w, ORDMA_WQE_RDMA_READ, MR1_ADDR, rlen, a->key1);
	w.remote_addr = MR1_ADDR;
	w.rkey = b->key1;
	put_wqe(a, &w);
	wr_init(&w, ORDMA_WQE_RDMA_WRITE, MR1_ADDR + 0x40000, wlen, a->key1);
	w.remote_addr = MR1_ADDR + 0x40000;
	w.rkey = b->key1;
	put_wqe(a, &w);
	ring_sq(a);
	/* the READ request and the whole WRITE leave at once */
	CHECK_EQ(e.l[0].sent, 1 + 8);
	while (link_deliver(&e.l[0], b->d.fw))
		;
	/* the first burst of responses, no ACK yet */
	CHECK_EQ(e.l[1].sent, FW_TP_READ_BURST);
	CHECK_EQ(stats(b).roce_acks_sent, 0);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_READ, ORDMA_CQE_SUCCESS, rlen, 0);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_SUCCESS, wlen, 1);
	CHECK(!memcmp(mem(a, MR1_ADDR, rlen), mem(b, MR1_ADDR, rlen), rlen));
	CHECK(!memcmp(mem(b, MR1_ADDR + 0x40000, wlen),
		      mem(a, MR1_ADDR + 0x40000, wlen), wlen));
	/* 64 responses, then the one ACK of the WRITE */
	CHECK_EQ(e.l[1].sent, 64 + 1);
	CHECK_EQ(stats(b).roce_acks_sent, 1);
	CHECK_EQ(fwqp(a)->counters.retransmits, 0);
	CHECK_EQ(fwqp(b)->counters.duplicate_requests, 0);
	env_close(&e);
}

/* The PSNs wrap inside a full window, with and without a loss after the
 * wrap.
 */
TEST(test_tp_rc_psn_wrap_large_window)
{
	struct tcfg c;

	default_cfg(&c);
	c.path_mtu = 1;
	c.psn[0] = 0xffffff - 100;
	send_once(&c, 256 * 1000, 1000);
	go_back_large_window(0xffffff - 100, 1000, 150);
}

TEST(test_tp_rc_send_variants)
{
	static const char inl[] = "inline data through the WQE";
	struct ordma_sge g[3];
	struct ordma_cqe cqe;
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	/* SEND_IMM, solicited, 3 local SGEs into 3 remote SGEs */
	pattern(mem(a, MR1_ADDR, 3000), 3000, 9);
	sge(&g[0], MR1_ADDR + 0x10000, 1000, b->key1);
	sge(&g[1], MR1_ADDR + 0x20000, 500, b->key1);
	sge(&g[2], MR1_ADDR + 0x30000, 2000, b->key1);
	post_recv_sges(b, g, 3);
	wr_init(&w, ORDMA_WQE_SEND_IMM, MR1_ADDR, 1200, a->key1);
	sge(&w.sge[1], MR1_ADDR + 1200, 1, a->key1);
	sge(&w.sge[2], MR1_ADDR + 1201, 1799, a->key1);
	w.num_sge = 3;
	w.flags |= ORDMA_WQE_SOLICITED;
	memcpy(&w.imm_inv, "\x12\x34\x56\x78", 4);
	w.imm_inv = le32_to_cpu(w.imm_inv);
	post(a, &w);
	pump(&e);
	REQUIRE(cqe_next(b, false, &cqe));
	CHECK_EQ(cqe.opcode, ORDMA_CQE_OP_RECV);
	CHECK_EQ(cqe.status, ORDMA_CQE_SUCCESS);
	CHECK_EQ(le32_to_cpu(cqe.byte_len), 3000);
	CHECK_EQ(le16_to_cpu(cqe.flags), ORDMA_CQE_F_IMM);
	CHECK(!memcmp(&cqe.imm_inv, "\x12\x34\x56\x78", 4));
	CHECK(!memcmp(mem(b, MR1_ADDR + 0x10000, 1000), mem(a, MR1_ADDR, 1000),
		      1000));
	CHECK(!memcmp(mem(b, MR1_ADDR + 0x20000, 500),
		      mem(a, MR1_ADDR + 1000, 500), 500));
	CHECK(!memcmp(mem(b, MR1_ADDR + 0x30000, 1500),
		      mem(a, MR1_ADDR + 1500, 1500), 1500));
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 3000, 0);

	/* inline; unsignaled: no send CQE, the next signaled one comes */
	post_recv(b, MR1_ADDR + 0x40000, 64);
	memset(&w, 0, sizeof(w));
	w.opcode = ORDMA_WQE_SEND;
	w.inline_data = inl;
	w.inline_len = sizeof(inl);
	post(a, &w);
	pump(&e);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, sizeof(inl),
		   1);
	CHECK(!memcmp(mem(b, MR1_ADDR + 0x40000, sizeof(inl)), inl,
		      sizeof(inl)));
	no_cqe(a, true);
	post_recv(b, MR1_ADDR + 0x40000, 64);
	w.flags = ORDMA_WQE_SIGNALED;
	post(a, &w);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, sizeof(inl),
		   2);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, sizeof(inl),
		   2);
	CHECK_EQ(fwqp(a)->sq.ci, 3);
	env_close(&e);
}

TEST(test_tp_rc_write_read)
{
	struct ordma_cqe cqe;
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	/* WRITE 5000 bytes (5 packets) */
	pattern(mem(a, MR1_ADDR, 5000), 5000, 1);
	memset(mem(b, MR1_ADDR + 0x50000, 5100), 0, 5100);
	wr_init(&w, ORDMA_WQE_RDMA_WRITE, MR1_ADDR, 5000, a->key1);
	w.remote_addr = MR1_ADDR + 0x50010;
	w.rkey = b->key1;
	post(a, &w);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_SUCCESS, 5000, 0);
	no_cqe(b, false);
	CHECK(!memcmp(mem(b, MR1_ADDR + 0x50010, 5000), mem(a, MR1_ADDR, 5000),
		      5000));
	CHECK_EQ(mem(b, MR1_ADDR + 0x5000f, 1)[0], 0);
	CHECK_EQ(mem(b, MR1_ADDR + 0x50010 + 5000, 1)[0], 0);
	CHECK_EQ(e.l[0].sent, 5);

	/* WRITE_IMM consumes a receive WQE: byte_len is the write length */
	post_recv(b, MR1_ADDR + 0x60000, 16);
	wr_init(&w, ORDMA_WQE_RDMA_WRITE_IMM, MR1_ADDR, 2100, a->key1);
	w.remote_addr = MR1_ADDR + 0x70000;
	w.rkey = b->key1;
	w.imm_inv = 0xa1b2c3d4;
	post(a, &w);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_SUCCESS, 2100, 1);
	REQUIRE(cqe_next(b, false, &cqe));
	CHECK_EQ(cqe.opcode, ORDMA_CQE_OP_RECV_RDMA_IMM);
	CHECK_EQ(le32_to_cpu(cqe.byte_len), 2100);
	CHECK_EQ(le32_to_cpu(cqe.imm_inv), 0xa1b2c3d4);
	CHECK_EQ(le16_to_cpu(cqe.flags), ORDMA_CQE_F_IMM);
	CHECK(!memcmp(mem(b, MR1_ADDR + 0x70000, 2100), mem(a, MR1_ADDR, 2100),
		      2100));

	/* READ 6000 bytes back into A (6 response packets) */
	pattern(mem(b, MR1_ADDR + 0x80000, 6000), 6000, 5);
	memset(mem(a, MR1_ADDR + 0x90000, 6100), 0, 6100);
	e.l[1].sent = 0;
	wr_init(&w, ORDMA_WQE_RDMA_READ, MR1_ADDR + 0x90000, 6000, a->key1);
	w.remote_addr = MR1_ADDR + 0x80000;
	w.rkey = b->key1;
	post(a, &w);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_READ, ORDMA_CQE_SUCCESS, 6000, 2);
	CHECK(!memcmp(mem(a, MR1_ADDR + 0x90000, 6000),
		      mem(b, MR1_ADDR + 0x80000, 6000), 6000));
	CHECK_EQ(mem(a, MR1_ADDR + 0x90000 + 6000, 1)[0], 0);
	CHECK_EQ(e.l[1].sent, 6);
	CHECK_EQ(fwqp(b)->msn, 3);
	no_cqe(a, true);
	env_close(&e);
}

/* A READ between two SENDs: the READ response acknowledges the first
 * SEND implicitly; fence holds the last SEND until the READ completed.
 */
/* 16 READs of 64 KiB outstanding at once (ib_read_bw's pattern) */
TEST(test_tp_rc_read_many)
{
	const uint32_t len = 0x10000;
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;
	int i;

	default_cfg(&c);
	c.max_rd_atomic = 16;
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	pattern(mem(b, MR1_ADDR, len), len, 7);
	memset(mem(a, MR1_ADDR + len, len), 0, len);
	for (i = 0; i < 16; i++) {
		wr_init(&w, ORDMA_WQE_RDMA_READ, MR1_ADDR + len, len, a->key1);
		w.remote_addr = MR1_ADDR;
		w.rkey = b->key1;
		put_wqe(a, &w);
	}
	ring_sq(a);
	pump(&e);
	for (i = 0; i < 16; i++)
		expect_cqe(a, true, ORDMA_CQE_OP_RDMA_READ, ORDMA_CQE_SUCCESS,
			   len, i);
	no_cqe(a, true);
	CHECK(!memcmp(mem(a, MR1_ADDR + len, len), mem(b, MR1_ADDR, len), len));
	CHECK_EQ(fwqp(a)->counters.retransmits, 0);
	CHECK_EQ(e.l[1].sent, 16 * 64);
	env_close(&e);
}

/* A READ response packet lost: the READ is asked again from the lost
 * packet on, answered First..Last anew, and completes with the right data.
 */
TEST(test_tp_rc_read_resp_loss)
{
	const uint32_t len = 8 * 1024;	/* 8 packets at MTU 1024 */
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	pattern(mem(b, MR1_ADDR, len), len, 11);
	memset(mem(a, MR1_ADDR + len, len), 0, len);
	e.l[1].drop_nth = 4;		/* the 4th response packet */
	wr_init(&w, ORDMA_WQE_RDMA_READ, MR1_ADDR + len, len, a->key1);
	w.remote_addr = MR1_ADDR;
	w.rkey = b->key1;
	post(a, &w);
	pump(&e);
	no_cqe(a, true);
	advance(&e, 10000000);		/* past the 4.2 ms ACK timeout */
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_READ, ORDMA_CQE_SUCCESS, len, 0);
	CHECK(!memcmp(mem(a, MR1_ADDR + len, len), mem(b, MR1_ADDR, len), len));
	CHECK_EQ(fwqp(a)->counters.retransmits, 1);
	CHECK_EQ(fwqp(b)->counters.duplicate_requests, 1);
	/* 8 answered first, then packets 3..7 again */
	CHECK_EQ(e.l[1].sent, 8 + 5);
	CHECK_EQ(qp_state(a), ORDMA_QPS_RTS);
	env_close(&e);
}

TEST(test_tp_rc_read_implied_ack_fence)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	post_recv(b, MR1_ADDR, 4096);
	post_recv(b, MR1_ADDR + 0x1000, 4096);
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR + 0x10000, 100, a->key1);
	put_wqe(a, &w);
	wr_init(&w, ORDMA_WQE_RDMA_READ, MR1_ADDR + 0x20000, 3000, a->key1);
	w.remote_addr = MR1_ADDR + 0x30000;
	w.rkey = b->key1;
	put_wqe(a, &w);
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR + 0x10000, 10, a->key1);
	w.flags |= ORDMA_WQE_FENCE;
	put_wqe(a, &w);
	ring_sq(a);
	/* SEND and READ request out, the fenced SEND waits */
	CHECK_EQ(e.l[0].sent, 2);
	CHECK_EQ(fwqp(a)->sq.next, 2);
	pump(&e);
	CHECK_EQ(e.l[0].sent, 3);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 100, 0);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_READ, ORDMA_CQE_SUCCESS, 3000, 1);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 10, 2);
	/* B acked the first SEND? only with AckReq: it did (last packet) */
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, 100, 0);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, 10, 1);
	env_close(&e);
}

/* ------------------------------------------------------------------ */
/* Loss, duplicates, RNR, retries                                      */
/* ------------------------------------------------------------------ */

TEST(test_tp_rc_loss_nak_seq)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	pattern(mem(a, MR1_ADDR, 10240), 10240, 2);
	post_recv(b, MR1_ADDR + 0x40000, 10240);
	e.l[0].drop_nth = 3;
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 10240, a->key1);
	post(a, &w);
	pump(&e);
	/* packets 4..10 were out of sequence: one NAK, go back to 3 */
	CHECK_EQ(fwqp(b)->counters.seq_errors, 7);
	CHECK_EQ(stats(b).roce_naks_sent, 1);
	CHECK_EQ(fwqp(a)->counters.nak_seq_received, 1);
	CHECK_EQ(fwqp(a)->counters.seq_errors, 0);
	CHECK_EQ(fwqp(a)->counters.retransmits, 1);
	CHECK_EQ(e.l[0].sent, 18);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, 10240, 0);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 10240, 0);
	CHECK(!memcmp(mem(b, MR1_ADDR + 0x40000, 10240), mem(a, MR1_ADDR, 10240),
		      10240));
	CHECK_EQ(stats(b).roce_rx_drop, 7);
	CHECK_EQ(drops(b, ORDMA_ROCE_RX_DROP_SEQ), 7);
	env_close(&e);
}

TEST(test_tp_rc_loss_timeout)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	pattern(mem(a, MR1_ADDR, 3000), 3000, 2);
	post_recv(b, MR1_ADDR + 0x40000, 3000);
	e.l[0].drop_nth = 3;		/* the last packet */
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 3000, a->key1);
	post(a, &w);
	pump(&e);
	no_cqe(a, true);
	no_cqe(b, false);
	REQUIRE(a->d.hal.timer_deadline != UINT64_MAX);
	/* just before the local ACK timeout nothing happens */
	advance(&e, (4096ULL << 10) - 1000);
	CHECK_EQ(e.l[0].sent, 3);
	advance(&e, 2000);
	CHECK_EQ(fwqp(a)->counters.timeouts, 1);
	CHECK_EQ(fwqp(a)->counters.retransmits, 1);
	/* go-back-N from the oldest unacknowledged PSN: only the last
	 * packet asked for an ACK, so all three go again; two are
	 * duplicates at B
	 */
	CHECK_EQ(e.l[0].sent, 6);
	CHECK_EQ(fwqp(b)->counters.duplicate_requests, 2);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, 3000, 0);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 3000, 0);
	CHECK(!memcmp(mem(b, MR1_ADDR + 0x40000, 3000), mem(a, MR1_ADDR, 3000),
		      3000));
	/* the lost ACK: the retransmitted request is a duplicate */
	post_recv(b, MR1_ADDR + 0x40000, 3000);
	e.l[1].drop_nth = e.l[1].sent + 1;
	post(a, &w);
	pump(&e);
	no_cqe(a, true);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, 3000, 1);
	advance(&e, 4096ULL << 10);
	CHECK_EQ(fwqp(b)->counters.duplicate_requests, 5);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 3000, 1);
	no_cqe(b, false);
	env_close(&e);
}

TEST(test_tp_rc_duplicates)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	/* a duplicated SEND packet is acknowledged again, not executed */
	post_recv(b, MR1_ADDR, 4096);
	post_recv(b, MR1_ADDR + 0x1000, 4096);
	e.l[0].dup_nth = 2;
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR + 0x10000, 2048, a->key1);
	post(a, &w);
	pump(&e);
	CHECK_EQ(fwqp(b)->counters.duplicate_requests, 1);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, 2048, 0);
	no_cqe(b, false);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 2048, 0);
	no_cqe(a, true);
	CHECK_EQ(qp_state(a), ORDMA_QPS_RTS);
	/* a duplicated READ request is executed again; A drops the copy */
	pattern(mem(b, MR1_ADDR + 0x30000, 2500), 2500, 4);
	e.l[0].dup_nth = e.l[0].sent + 1;
	wr_init(&w, ORDMA_WQE_RDMA_READ, MR1_ADDR + 0x20000, 2500, a->key1);
	w.remote_addr = MR1_ADDR + 0x30000;
	w.rkey = b->key1;
	post(a, &w);
	pump(&e);
	CHECK_EQ(fwqp(b)->counters.duplicate_requests, 2);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_READ, ORDMA_CQE_SUCCESS, 2500, 1);
	no_cqe(a, true);
	CHECK(!memcmp(mem(a, MR1_ADDR + 0x20000, 2500),
		      mem(b, MR1_ADDR + 0x30000, 2500), 2500));
	/* stale: the re-ACK of the SEND and the 3 repeated responses */
	CHECK_EQ(drops(a, ORDMA_ROCE_RX_DROP_RESP), 4);
	CHECK_EQ(qp_state(a), ORDMA_QPS_RTS);
	CHECK_EQ(qp_state(b), ORDMA_QPS_RTS);
	env_close(&e);
}

TEST(test_tp_rc_rnr)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;

	default_cfg(&c);
	c.min_rnr_timer = 4;		/* 40 us */
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 64, a->key1);
	post(a, &w);
	pump(&e);
	CHECK_EQ(fwqp(b)->counters.rnr_naks_sent, 1);
	CHECK_EQ(fwqp(a)->counters.rnr_naks_received, 1);
	CHECK(fwqp(a)->req.rnr_deadline);
	no_cqe(a, true);
	post_recv(b, MR1_ADDR + 0x1000, 64);
	advance(&e, 39000);
	CHECK_EQ(e.l[0].sent, 1);
	advance(&e, 2000);
	CHECK_EQ(e.l[0].sent, 2);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, 64, 0);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 64, 0);
	env_close(&e);

	/* RNR retries exhausted */
	c.rnr_retry = 1;
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	post(a, &w);
	put_wqe(a, &w);
	ring_sq(a);
	pump(&e);
	advance(&e, 50000);
	CHECK_EQ(fwqp(a)->counters.rnr_naks_received, 2);
	CHECK_EQ(fwqp(a)->counters.rnr_retry_exceeded, 1);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_RNR_RETRY_EXC_ERR, 0,
		   0);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_WR_FLUSH_ERR, 0, 1);
	CHECK_EQ(qp_state(a), ORDMA_QPS_ERR);
	CHECK_EQ(qp_state(b), ORDMA_QPS_RTS);
	env_close(&e);
}

TEST(test_tp_rc_retry_exhausted)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;
	int i;

	default_cfg(&c);
	c.retry_cnt = 2;
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	post_recv(b, MR1_ADDR, 64);
	e.l[0].drop_from = 1;
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 64, a->key1);
	post(a, &w);
	pump(&e);
	for (i = 0; i < 3; i++) {
		no_cqe(a, true);
		advance(&e, 4096ULL << 10);
	}
	CHECK_EQ(fwqp(a)->counters.timeouts, 3);
	CHECK_EQ(fwqp(a)->counters.retransmits, 2);
	CHECK_EQ(e.l[0].sent, 3);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_RETRY_EXC_ERR, 0, 0);
	CHECK_EQ(qp_state(a), ORDMA_QPS_ERR);
	/* no timer left behind: more time changes nothing */
	advance(&e, 1ULL << 30);
	CHECK_EQ(e.l[0].sent, 3);
	no_cqe(a, true);
	env_close(&e);
}

/* ------------------------------------------------------------------ */
/* Errors                                                              */
/* ------------------------------------------------------------------ */

static void remote_error(uint8_t opcode, uint64_t raddr, uint32_t len,
			 bool bad_key, bool mr2, uint8_t a_status,
			 uint8_t b_event)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;
	uint8_t *guard;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	guard = mem(b, MR1_ADDR, MR1_LEN + MR2_LEN + GUARD_LEN);
	pattern(guard, MR1_LEN + MR2_LEN + GUARD_LEN, 77);
	post_recv(b, MR1_ADDR, 64);
	wr_init(&w, opcode, MR1_ADDR + 0x1000, len, a->key1);
	w.remote_addr = raddr;
	w.rkey = bad_key ? b->key1 ^ 0x01 : mr2 ? b->key2 : b->key1;
	post(a, &w);
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 8, a->key1);
	post(a, &w);
	pump(&e);
	expect_cqe(a, true, fw_qp_lookup(a->d.fw, a->qpn) ?
		   (opcode == ORDMA_WQE_RDMA_READ ? ORDMA_CQE_OP_RDMA_READ :
		    opcode == ORDMA_WQE_RDMA_WRITE ? ORDMA_CQE_OP_RDMA_WRITE :
		    opcode == ORDMA_WQE_ATOMIC_FETCH_ADD ?
		    ORDMA_CQE_OP_FETCH_ADD : ORDMA_CQE_OP_SEND) : 0,
		   a_status, 0, 0);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_WR_FLUSH_ERR, 0, 1);
	CHECK_EQ(qp_state(a), ORDMA_QPS_ERR);
	CHECK_EQ(qp_state(b), ORDMA_QPS_ERR);
	CHECK(has_event(b, b_event, b->qpn));
	CHECK_EQ(fwqp(b)->counters.rx_write_requests,
		 opcode == ORDMA_WQE_RDMA_WRITE);
	CHECK_EQ(fwqp(b)->counters.rx_read_requests,
		 opcode == ORDMA_WQE_RDMA_READ);
	CHECK_EQ(fwqp(b)->counters.rx_atomic_requests,
		 opcode == ORDMA_WQE_ATOMIC_FETCH_ADD);
	CHECK_EQ(fwqp(b)->counters.access_naks_sent,
		 a_status == ORDMA_CQE_REM_ACCESS_ERR);
	CHECK_EQ(fwqp(a)->counters.access_naks_received,
		 a_status == ORDMA_CQE_REM_ACCESS_ERR);
	/* B's posted receive is flushed */
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_WR_FLUSH_ERR, 0, 0);
	/* nothing of B's memory changed */
	{
		uint8_t *want = malloc(MR1_LEN + MR2_LEN + GUARD_LEN);

		REQUIRE(want);
		pattern(want, MR1_LEN + MR2_LEN + GUARD_LEN, 77);
		CHECK(!memcmp(guard, want, MR1_LEN + MR2_LEN + GUARD_LEN));
		free(want);
	}
	env_close(&e);
}

TEST(test_tp_rc_remote_access)
{
	/* bad rkey */
	remote_error(ORDMA_WQE_RDMA_WRITE, MR1_ADDR, 100, true, false,
		     ORDMA_CQE_REM_ACCESS_ERR, ORDMA_EQE_QP_ACCESS_ERR);
	/* crossing the end of the MR: nothing written at all */
	remote_error(ORDMA_WQE_RDMA_WRITE, MR1_ADDR + MR1_LEN - 2000, 3000,
		     false, false, ORDMA_CQE_REM_ACCESS_ERR,
		     ORDMA_EQE_QP_ACCESS_ERR);
	/* MR without REMOTE_WRITE / REMOTE_READ / REMOTE_ATOMIC */
	remote_error(ORDMA_WQE_RDMA_WRITE, MR2_ADDR, 100, false, true,
		     ORDMA_CQE_REM_ACCESS_ERR, ORDMA_EQE_QP_ACCESS_ERR);
	remote_error(ORDMA_WQE_RDMA_READ, MR2_ADDR, 100, false, true,
		     ORDMA_CQE_REM_ACCESS_ERR, ORDMA_EQE_QP_ACCESS_ERR);
	remote_error(ORDMA_WQE_ATOMIC_FETCH_ADD, MR2_ADDR, 8, false, true,
		     ORDMA_CQE_REM_ACCESS_ERR, ORDMA_EQE_QP_ACCESS_ERR);
	/* misaligned atomic: invalid request */
	remote_error(ORDMA_WQE_ATOMIC_FETCH_ADD, MR1_ADDR + 4, 8, false, false,
		     ORDMA_CQE_REM_INV_REQ_ERR, ORDMA_EQE_QP_REQ_ERR);
	/* receive buffer too small: LOC_LEN_ERR at B, REM_INV_REQ at A */
	{
		struct env e;
		struct side *a, *b;
		struct tcfg c;
		struct wr w;

		default_cfg(&c);
		REQUIRE(env_open(&e, &c));
		a = &e.s[0];
		b = &e.s[1];
		memset(mem(b, MR1_ADDR, 200), 0x5a, 200);
		post_recv(b, MR1_ADDR, 100);
		wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 200, a->key1);
		post(a, &w);
		pump(&e);
		expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_LOC_LEN_ERR, 0,
			   0);
		expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_REM_INV_REQ_ERR,
			   0, 0);
		CHECK_EQ(qp_state(a), ORDMA_QPS_ERR);
		CHECK_EQ(qp_state(b), ORDMA_QPS_ERR);
		/* nothing beyond the 100-byte receive buffer was written */
		CHECK_EQ(mem(b, MR1_ADDR + 100, 1)[0], 0x5a);
		env_close(&e);
	}
}

TEST(test_tp_rc_local_errors)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;

	default_cfg(&c);
	/* bad lkey */
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 64, a->key1 + 1);
	w.flags = 0;			/* errors complete unsignaled too */
	post(a, &w);
	CHECK_EQ(e.l[0].sent, 0);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_LOC_PROT_ERR, 0, 0);
	CHECK_EQ(qp_state(a), ORDMA_QPS_ERR);
	env_close(&e);
	/* READ into a local MR without LOCAL_WRITE, and beyond an MR */
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	{
		uint32_t ro_key;

		REQUIRE_EQ(drv_reg_mr_contig(&a->d, a->pdn, 0, GUARD_ADDR,
					     GUARD_ADDR, 0x1000, 0, 0x55,
					     &ro_key), OK);
		memset(mem(a, GUARD_ADDR, 64), 0x99, 64);
		wr_init(&w, ORDMA_WQE_RDMA_READ, GUARD_ADDR, 64, ro_key);
		w.remote_addr = MR1_ADDR;
		w.rkey = b->key1;
		post(a, &w);
		CHECK_EQ(e.l[0].sent, 0);
		expect_cqe(a, true, ORDMA_CQE_OP_RDMA_READ,
			   ORDMA_CQE_LOC_PROT_ERR, 0, 0);
		CHECK_EQ(mem(a, GUARD_ADDR, 1)[0], 0x99);
	}
	env_close(&e);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	wr_init(&w, ORDMA_WQE_RDMA_READ, MR1_ADDR + MR1_LEN - 10, 64, a->key1);
	w.remote_addr = MR1_ADDR;
	w.rkey = b->key1;
	post(a, &w);
	CHECK_EQ(e.l[0].sent, 0);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_READ, ORDMA_CQE_LOC_PROT_ERR, 0,
		   0);
	env_close(&e);
	/* inline longer than max_inline_data */
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	memset(&w, 0, sizeof(w));
	w.opcode = ORDMA_WQE_SEND;
	w.inline_data = mem(a, MR1_ADDR, 300);
	w.inline_len = 200;
	post(a, &w);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_LOC_LEN_ERR, 0, 0);
	env_close(&e);
}

TEST(test_tp_rc_atomics)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	put64(mem(b, MR1_ADDR + 0x100, 8), 1000);
	wr_init(&w, ORDMA_WQE_ATOMIC_FETCH_ADD, MR1_ADDR + 0x200, 8, a->key1);
	w.remote_addr = MR1_ADDR + 0x100;
	w.rkey = b->key1;
	w.compare_add = 5;
	/* the request is duplicated: the replay answers, adds once */
	e.l[0].dup_nth = 1;
	post(a, &w);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_FETCH_ADD, ORDMA_CQE_SUCCESS, 8, 0);
	CHECK_EQ(get64(mem(a, MR1_ADDR + 0x200, 8)), 1000);
	CHECK_EQ(get64(mem(b, MR1_ADDR + 0x100, 8)), 1005);
	CHECK_EQ(fwqp(b)->counters.duplicate_requests, 1);
	CHECK_EQ(e.l[1].sent, 2);

	/* compare and swap: equal swaps, different does not */
	wr_init(&w, ORDMA_WQE_ATOMIC_CMP_SWP, MR1_ADDR + 0x208, 8, a->key1);
	w.remote_addr = MR1_ADDR + 0x100;
	w.rkey = b->key1;
	w.compare_add = 1005;
	w.swap = 0x1122334455667788ULL;
	post(a, &w);
	w.sge[0].addr = cpu_to_le64(MR1_ADDR + 0x210);
	w.compare_add = 1;
	w.swap = 7;
	post(a, &w);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_CMP_SWP, ORDMA_CQE_SUCCESS, 8, 1);
	expect_cqe(a, true, ORDMA_CQE_OP_CMP_SWP, ORDMA_CQE_SUCCESS, 8, 2);
	CHECK_EQ(get64(mem(a, MR1_ADDR + 0x208, 8)), 1005);
	CHECK_EQ(get64(mem(a, MR1_ADDR + 0x210, 8)), 0x1122334455667788ULL);
	CHECK_EQ(get64(mem(b, MR1_ADDR + 0x100, 8)), 0x1122334455667788ULL);

	/* the atomic ACK lost: the retransmitted request is replayed */
	e.l[1].drop_nth = e.l[1].sent + 1;
	wr_init(&w, ORDMA_WQE_ATOMIC_FETCH_ADD, MR1_ADDR + 0x218, 8, a->key1);
	w.remote_addr = MR1_ADDR + 0x100;
	w.rkey = b->key1;
	w.compare_add = 1;
	post(a, &w);
	pump(&e);
	no_cqe(a, true);
	advance(&e, 4096ULL << 10);
	expect_cqe(a, true, ORDMA_CQE_OP_FETCH_ADD, ORDMA_CQE_SUCCESS, 8, 3);
	CHECK_EQ(get64(mem(a, MR1_ADDR + 0x218, 8)), 0x1122334455667788ULL);
	CHECK_EQ(get64(mem(b, MR1_ADDR + 0x100, 8)), 0x1122334455667789ULL);
	CHECK_EQ(fwqp(b)->counters.duplicate_requests, 2);
	env_close(&e);
}

/* Receives through an SRQ: wqe_idx is the SRQ slot, the limit event */
TEST(test_tp_rc_srq)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;
	int i;

	default_cfg(&c);
	c.srq_b = true;
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	for (i = 0; i < 4; i++)
		post_srq(b, MR1_ADDR + 0x1000 * (uint64_t)i, 0x1000);
	pattern(mem(a, MR1_ADDR, 3000), 3000, 12);
	for (i = 0; i < 3; i++) {
		wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 1000 * (uint32_t)(i + 1),
			a->key1);
		put_wqe(a, &w);
	}
	ring_sq(a);
	pump(&e);
	for (i = 0; i < 3; i++) {
		expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS,
			   1000 * (uint32_t)(i + 1), (uint32_t)i);
		expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS,
			   1000 * (uint32_t)(i + 1), (uint32_t)i);
	}
	CHECK(!memcmp(mem(b, MR1_ADDR + 0x2000, 3000), mem(a, MR1_ADDR, 3000),
		      3000));
	/* fewer than 2 left after the third take */
	CHECK(has_event(b, ORDMA_EQE_SRQ_LIMIT, b->srqn));
	env_close(&e);
}

/* max_rd_atomic bounds the READs in flight; more wait for responses */
TEST(test_tp_rc_rd_atomic_limit)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;
	uint32_t i;

	default_cfg(&c);
	c.max_rd_atomic = 2;
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	pattern(mem(b, MR1_ADDR, 0x4000), 0x4000, 3);
	for (i = 0; i < 5; i++) {
		wr_init(&w, ORDMA_WQE_RDMA_READ, MR1_ADDR + 0x10000 + i * 0x1000,
			0x800, a->key1);
		w.remote_addr = MR1_ADDR + i * 0x800;
		w.rkey = b->key1;
		put_wqe(a, &w);
	}
	ring_sq(a);
	CHECK_EQ(e.l[0].sent, 2);
	CHECK_EQ(fwqp(a)->sq.next, 2);
	pump(&e);
	CHECK_EQ(e.l[0].sent, 5);
	for (i = 0; i < 5; i++) {
		expect_cqe(a, true, ORDMA_CQE_OP_RDMA_READ, ORDMA_CQE_SUCCESS,
			   0x800, i);
		CHECK(!memcmp(mem(a, MR1_ADDR + 0x10000 + i * 0x1000, 0x800),
			      mem(b, MR1_ADDR + i * 0x800, 0x800), 0x800));
	}
	env_close(&e);
}

/* A SEND First followed by a SEND Only: opcode sequence error, NAK */
TEST(test_tp_rc_opcode_sequence)
{
	struct fw_roce_hdrs h;
	struct fw_roce_pkt pkt;
	struct link_frame f1, f2;
	uint8_t frame[2048];
	size_t len;
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	post_recv(b, MR1_ADDR, 4096);
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 1500, a->key1);
	post(a, &w);
	REQUIRE(link_pop(&e.l[0], &f1));
	REQUIRE(link_pop(&e.l[0], &f2));
	REQUIRE_EQ(fw_roce_parse(f2.data, f2.len, &pkt), FW_ROCE_OK);
	fw_roce_decode(&pkt, &h);
	CHECK_EQ(h.opcode, FW_ROCE_RC_SEND_LAST);
	h.opcode = FW_ROCE_RC_SEND_ONLY;
	len = fw_roce_build(frame, sizeof(frame), &h, pkt.payload,
			    pkt.payload_len);
	REQUIRE(len);
	ordma_fw_rx_frame(b->d.fw, f1.data, f1.len);
	ordma_fw_rx_frame(b->d.fw, frame, len);
	free(f1.data);
	free(f2.data);
	CHECK_EQ(drops(b, ORDMA_ROCE_RX_DROP_OPCODE_SEQ), 1);
	CHECK_EQ(qp_state(b), ORDMA_QPS_ERR);
	CHECK(has_event(b, ORDMA_EQE_QP_REQ_ERR, b->qpn));
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_REM_INV_REQ_ERR, 0, 0);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_REM_INV_REQ_ERR, 0, 0);
	CHECK_EQ(qp_state(a), ORDMA_QPS_ERR);
	env_close(&e);
}

/* A WQE failing its local checks waits for the earlier ones, which are
 * still retransmitted and complete first.
 */
TEST(test_tp_rc_error_after_loss)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	post_recv(b, MR1_ADDR, 4096);
	e.l[0].drop_nth = 1;
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 100, a->key1);
	put_wqe(a, &w);
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 100, 0x12345678);
	put_wqe(a, &w);
	ring_sq(a);
	pump(&e);
	no_cqe(a, true);
	advance(&e, 4096ULL << 10);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 100, 0);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_LOC_PROT_ERR, 0, 1);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, 100, 0);
	CHECK_EQ(qp_state(a), ORDMA_QPS_ERR);
	CHECK_EQ(e.l[0].sent, 2);
	env_close(&e);
}

/* RC over IPv6 and over a VLAN (the GID entry's VLAN tags the frames) */
TEST(test_tp_rc_ipv6_vlan)
{
	const struct fake_frame *f;
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;

	default_cfg(&c);
	c.ipv6 = true;
	send_once(&c, 3000, 3);
	c.vlan = 5;
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	post_recv(b, MR1_ADDR, 4096);
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 100, a->key1);
	post(a, &w);
	f = fake_last_tx(&a->d.hal);
	REQUIRE(f);
	CHECK_EQ(f->data[12], 0x81);
	CHECK_EQ(f->data[13], 0x00);
	CHECK_EQ((f->data[14] << 8 | f->data[15]) & 0xfff, 5);
	CHECK_EQ(f->data[16] << 8 | f->data[17], 0x86dd);
	CHECK(!memcmp(f->data, b->mac, 6));
	CHECK(!memcmp(f->data + 6, a->mac, 6));
	pump(&e);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, 100, 0);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 100, 0);
	env_close(&e);
}

/* ------------------------------------------------------------------ */
/* iWARP port                                                          */
/* ------------------------------------------------------------------ */

/*
 * An iWARP QP reaches RTS through its TCP connection, which this
 * firmware does not make yet; the RoCE pair is connected and side A's
 * port then marked iWARP, as SET_RDMA_PROTOCOL leaves it, to see what
 * its requester executes.  Whatever A sends goes to B on the wire.
 */
static bool iwarp_env_open(struct env *e)
{
	struct tcfg c;

	flush_cfg(&c);
	if (!env_open(e, &c))
		return false;
	e->s[0].d.fw->port.rdma_proto = ORDMA_PORT_PROTO_IWARP;
	return true;
}

enum iw_case {
	IW_SEND_IMM, IW_WRITE_IMM, IW_CMP_SWP, IW_FETCH_ADD, IW_FLUSH,
	IW_ATOMIC_WRITE, IW_READ_2SGE, IW_READ_0SGE, IW_CASES
};

static uint8_t iw_wr(enum iw_case i, struct wr *w, const struct side *a,
		     const struct side *b)
{
	uint8_t op = ORDMA_CQE_OP_SEND;

	wr_init(w, ORDMA_WQE_SEND, MR1_ADDR, 8, a->key1);
	w->remote_addr = MR1_ADDR + 0x100;
	w->rkey = b->key1;
	switch (i) {
	case IW_SEND_IMM:
		w->opcode = ORDMA_WQE_SEND_IMM;
		w->imm_inv = 0x1234;
		break;
	case IW_WRITE_IMM:
		w->opcode = ORDMA_WQE_RDMA_WRITE_IMM;
		op = ORDMA_CQE_OP_RDMA_WRITE;
		break;
	case IW_CMP_SWP:
		w->opcode = ORDMA_WQE_ATOMIC_CMP_SWP;
		op = ORDMA_CQE_OP_CMP_SWP;
		break;
	case IW_FETCH_ADD:
		w->opcode = ORDMA_WQE_ATOMIC_FETCH_ADD;
		w->compare_add = 1;
		op = ORDMA_CQE_OP_FETCH_ADD;
		break;
	case IW_FLUSH:
		flush_wr(w, MR1_ADDR, b->key1, 64, ORDMA_FLUSH_GLOBAL,
			 ORDMA_FLUSH_LEVEL_RANGE);
		op = ORDMA_CQE_OP_FLUSH;
		break;
	case IW_ATOMIC_WRITE:
		aw_wr(w, MR1_ADDR, b->key1, 7);
		op = ORDMA_CQE_OP_ATOMIC_WRITE;
		break;
	case IW_READ_2SGE:
		w->opcode = ORDMA_WQE_RDMA_READ;
		sge(&w->sge[1], MR1_ADDR + 0x10, 8, a->key1);
		w->num_sge = 2;
		op = ORDMA_CQE_OP_RDMA_READ;
		break;
	case IW_READ_0SGE:
		w->opcode = ORDMA_WQE_RDMA_READ;
		w->num_sge = 0;
		op = ORDMA_CQE_OP_RDMA_READ;
		break;
	default:
		break;
	}
	return op;
}

/* Refused opcodes: LOC_QP_OP_ERR, nothing on the wire, the QP to ERR */
TEST(test_tp_rc_iwarp_refused_opcodes)
{
	struct side *a, *b;
	struct env e;
	enum iw_case i;
	struct wr w;
	uint8_t op;

	for (i = 0; i < IW_CASES; i++) {
		REQUIRE(iwarp_env_open(&e));
		a = &e.s[0];
		b = &e.s[1];
		put64(mem(b, MR1_ADDR + 0x100, 8), 1000);
		op = iw_wr(i, &w, a, b);
		post(a, &w);
		pump(&e);
		CHECK_EQ(e.l[0].sent, 0);
		if (!expect_cqe(a, true, op, ORDMA_CQE_LOC_QP_OP_ERR, 0, 0))
			NOTE("case %d", i);
		CHECK_EQ(qp_state(a), ORDMA_QPS_ERR);
		CHECK_EQ(get64(mem(b, MR1_ADDR + 0x100, 8)), 1000);
		no_cqe(b, false);
		env_close(&e);
	}
}

/* What iWARP has (SEND, WRITE, a READ into one buffer) is started and
 * waits for a connection to carry it
 */
TEST(test_tp_rc_iwarp_allowed_opcodes)
{
	static const uint8_t ops[] = { ORDMA_WQE_SEND, ORDMA_WQE_RDMA_WRITE,
				       ORDMA_WQE_RDMA_READ };
	struct side *a, *b;
	unsigned int i;
	struct env e;
	struct wr w;

	for (i = 0; i < sizeof(ops); i++) {
		REQUIRE(iwarp_env_open(&e));
		a = &e.s[0];
		b = &e.s[1];
		wr_init(&w, ops[i], MR1_ADDR, 8, a->key1);
		w.remote_addr = MR1_ADDR + 0x100;
		w.rkey = b->key1;
		post(a, &w);
		/* started, but without a TCP connection nothing can carry
		 * it: no RoCE frame leaves an iWARP port
		 */
		CHECK_EQ(e.l[0].sent, 0);
		CHECK_EQ(a->d.fw->qps[a->qpn].sq.next,
			 a->d.fw->qps[a->qpn].sq.ci + 1);
		no_cqe(a, true);
		CHECK_EQ(qp_state(a), ORDMA_QPS_RTS);
		env_close(&e);
	}
}
