// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The iWARP data path end to end: two iWARP ports whose QPs are
 * connected through the connection commands (TCP and MPA in the
 * firmware), then Sends, RDMA Writes and Reads of many sizes, with and
 * without loss on the wire, and what the peer gets wrong: a bad STag,
 * a Send with no receive posted, a Read beyond the MR, a corrupted CRC,
 * a Send with Invalidate of an STag it may not invalidate, a Terminate.  Data is checked byte by byte; errors by the CQEs, the
 * QP states, the events and the Terminate on the wire.
 */
#include <stdlib.h>
#include <string.h>

#include "ordma_test.h"
#include "pair.h"
#include "tcp/fw_iw_conn.h"
#include "tcp/fw_tcp.h"
#include "wire/fw_iw_wire.h"

#define SECOND		1000000000ULL

static void iw_cfg(struct tcfg *c)
{
	default_cfg(c);
	c->iwarp = true;
	/* as iw_cm leaves an active side: remote access is the STags' */
	c->access = 0;
	c->max_rd_atomic = 8;
}

static bool iw_open(struct env *e)
{
	struct tcfg c;

	iw_cfg(&c);
	return env_open(e, &c);
}

static struct fw_iw_stats iw_stats(struct side *s)
{
	struct fw_iw_stats st;

	fw_iw_stats(s->d.fw, &st);
	return st;
}

/* The next async event of type on s (others skipped); false if none */
static bool next_event_of(struct side *s, unsigned int type, uint32_t d[3])
{
	struct ordma_eqe eqe;

	while (drv_eq_next(&s->d, &s->async, &eqe)) {
		drv_eq_update(&s->d, &s->async, false);
		if (eqe_type(&eqe) != type)
			continue;
		d[0] = le32_to_cpu(eqe.data[0]);
		d[1] = le32_to_cpu(eqe.data[1]);
		d[2] = le32_to_cpu(eqe.data[2]);
		return true;
	}
	return false;
}

/* A Send of len bytes A -> B, checked whole */
static void send_one(struct env *e, uint32_t len, uint32_t idx)
{
	struct side *a = &e->s[0], *b = &e->s[1];
	struct wr w;

	pattern(mem(a, MR1_ADDR, len), len, idx);
	memset(mem(b, MR1_ADDR + 0x80000, len + 16), 0xee, len + 16);
	post_recv(b, MR1_ADDR + 0x80000, len + 8);
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, len, a->key1);
	post(a, &w);
	run_for(e, SECOND / 10);
	if (!expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, len,
			idx % (1u << SQ_LOG)) ||
	    !expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, len,
			idx % (1u << RQ_LOG)))
		NOTE("send of %u bytes", len);
	CHECK(!memcmp(mem(a, MR1_ADDR, len), mem(b, MR1_ADDR + 0x80000, len),
		      len));
	CHECK_EQ(mem(b, MR1_ADDR + 0x80000 + len, 1)[0], 0xee);
}

TEST(test_iw_send_sizes)
{
	static const uint32_t sizes[] = { 1, 0, 100, 1436, 1437, 1454, 4096,
					  65536, 200000, 300000 };
	struct env e;
	unsigned int i;

	REQUIRE(iw_open(&e));
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		send_one(&e, sizes[i], i);
	/* one MSN per message on each side, nothing dropped */
	CHECK_EQ(fwqp(&e.s[0])->iw.tx_msn[0], 1 + i);
	CHECK_EQ(fwqp(&e.s[1])->iw.rx_msn[0], 1 + i);
	CHECK_EQ(iw_stats(&e.s[1]).fpdu_crc_bad, 0);
	CHECK_EQ(iw_stats(&e.s[1]).rx_fpdu_bytes, 0);
	CHECK_EQ(qp_state(&e.s[0]), ORDMA_QPS_RTS);
	CHECK_EQ(qp_state(&e.s[1]), ORDMA_QPS_RTS);
	/* QUERY_STATS: the FPDUs and TCP segments both ways */
	{
		struct ordma_port_stats a = stats(&e.s[0]);
		struct ordma_port_stats b = stats(&e.s[1]);

		/* the RTR is the MPA exchange's, not counted */
		CHECK_EQ(le64_to_cpu(a.iw_tx_fpdus),
			 fwqp(&e.s[0])->counters.tx_packets);
		CHECK_EQ(le64_to_cpu(b.iw_rx_fpdus),
			 le64_to_cpu(a.iw_tx_fpdus));
		CHECK(le64_to_cpu(a.iw_tcp_tx_segments) >= 406);
		CHECK(le64_to_cpu(b.iw_tcp_rx_segments) >= 406);
		CHECK_EQ(le64_to_cpu(b.iw_rx_fpdu_crc_bad), 0);
		CHECK_EQ(le64_to_cpu(b.roce_rx_frames), 0);
	}
	/* a 1460-byte MSS: 1454-byte DDP segments, 1436 bytes of a Send */
	CHECK_EQ(fwqp(&e.s[0])->counters.tx_packets,
		 1 + 1 + 1 + 1 + 2 + 2 + 3 + 46 + 140 + 209);
	env_close(&e);
}

/* Sends from both sides at once, several in flight, inline and SGEs */
TEST(test_iw_send_both_ways)
{
	static const char inl[] = "inline over iWARP";
	struct env e;
	struct wr w;
	int i, k;

	REQUIRE(iw_open(&e));
	for (i = 0; i < 2; i++) {
		struct side *s = &e.s[i], *peer = &e.s[!i];

		pattern(mem(s, MR1_ADDR, 40000), 40000, 30 + i);
		for (k = 0; k < 8; k++)
			post_recv(peer, MR1_ADDR + 0x80000 + k * 0x8000,
				  0x8000);
		for (k = 0; k < 7; k++) {
			wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR + k * 1000,
				4000 * (k + 1), s->key1);
			post(s, &w);
		}
		memset(&w, 0, sizeof(w));
		w.opcode = ORDMA_WQE_SEND;
		w.flags = ORDMA_WQE_SIGNALED;
		w.inline_data = inl;
		w.inline_len = sizeof(inl);
		post(s, &w);
	}
	run_for(&e, SECOND / 10);
	for (i = 0; i < 2; i++) {
		struct side *s = &e.s[i], *peer = &e.s[!i];

		for (k = 0; k < 7; k++) {
			expect_cqe(s, true, ORDMA_CQE_OP_SEND,
				   ORDMA_CQE_SUCCESS, 4000 * (k + 1), k);
			expect_cqe(peer, false, ORDMA_CQE_OP_RECV,
				   ORDMA_CQE_SUCCESS, 4000 * (k + 1), k);
			CHECK(!memcmp(mem(peer, MR1_ADDR + 0x80000 + k * 0x8000,
					  4000 * (k + 1)),
				      mem(s, MR1_ADDR + k * 1000,
					  4000 * (k + 1)),
				      4000 * (k + 1)));
		}
		expect_cqe(s, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS,
			   sizeof(inl), 7);
		expect_cqe(peer, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS,
			   sizeof(inl), 7);
		CHECK(!memcmp(mem(peer, MR1_ADDR + 0x80000 + 7 * 0x8000,
				  sizeof(inl)), inl, sizeof(inl)));
	}
	env_close(&e);
}

TEST(test_iw_write_read)
{
	const uint32_t len = 300000;
	struct side *a, *b;
	struct env e;
	struct wr w;

	REQUIRE(iw_open(&e));
	a = &e.s[0];
	b = &e.s[1];
	/* WRITE A -> B, then a READ of it back into another buffer */
	pattern(mem(a, MR1_ADDR, len), len, 5);
	memset(mem(b, MR1_ADDR + 0x40000, len), 0, len);
	wr_init(&w, ORDMA_WQE_RDMA_WRITE, MR1_ADDR, len, a->key1);
	w.remote_addr = MR1_ADDR + 0x40000;
	w.rkey = b->key1;
	post(a, &w);
	wr_init(&w, ORDMA_WQE_RDMA_READ, MR1_ADDR + 0x80000, len, a->key1);
	w.remote_addr = MR1_ADDR + 0x40000;
	w.rkey = b->key1;
	post(a, &w);
	/* a zero-length READ and WRITE */
	wr_init(&w, ORDMA_WQE_RDMA_READ, MR1_ADDR + 0xf0000, 0, a->key1);
	w.remote_addr = MR1_ADDR;
	w.rkey = b->key1;
	post(a, &w);
	wr_init(&w, ORDMA_WQE_RDMA_WRITE, MR1_ADDR, 0, a->key1);
	w.remote_addr = MR1_ADDR;
	w.rkey = b->key1;
	post(a, &w);
	run_for(&e, SECOND / 5);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_SUCCESS, len, 0);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_READ, ORDMA_CQE_SUCCESS, len, 1);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_READ, ORDMA_CQE_SUCCESS, 0, 2);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_SUCCESS, 0, 3);
	no_cqe(b, false);
	CHECK(!memcmp(mem(b, MR1_ADDR + 0x40000, len), mem(a, MR1_ADDR, len),
		      len));
	CHECK(!memcmp(mem(a, MR1_ADDR + 0x80000, len), mem(a, MR1_ADDR, len),
		      len));
	CHECK_EQ(fwqp(b)->counters.rx_read_requests, 2);
	CHECK_EQ(fwqp(b)->counters.rx_write_requests, 2);
	CHECK_EQ(fwqp(a)->iw.tx_msn[1], 3);
	CHECK_EQ(fwqp(b)->iw.rx_msn[1], 3);
	CHECK_EQ(qp_state(a), ORDMA_QPS_RTS);
	CHECK_EQ(qp_state(b), ORDMA_QPS_RTS);
	env_close(&e);
}

/* Many READs, as many as the ORD lets out at once, and a fence */
TEST(test_iw_reads_ord)
{
	struct side *a, *b;
	struct env e;
	struct wr w;
	int k;

	REQUIRE(iw_open(&e));
	a = &e.s[0];
	b = &e.s[1];
	pattern(mem(b, MR1_ADDR, 0x40000), 0x40000, 8);
	for (k = 0; k < 20; k++) {
		wr_init(&w, ORDMA_WQE_RDMA_READ, MR1_ADDR + 0x80000 + k * 0x2000,
			0x2000, a->key1);
		w.remote_addr = MR1_ADDR + k * 0x2000;
		w.rkey = b->key1;
		post(a, &w);
	}
	/* the ORD (8) holds the ninth back until responses come */
	CHECK_EQ(fwqp(a)->sq.next - fwqp(a)->sq.ci, 8);
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 64, a->key1);
	w.flags |= ORDMA_WQE_FENCE;
	post_recv(b, MR1_ADDR + 0xf0000, 64);
	post(a, &w);
	run_for(&e, SECOND / 5);
	for (k = 0; k < 20; k++)
		expect_cqe(a, true, ORDMA_CQE_OP_RDMA_READ, ORDMA_CQE_SUCCESS,
			   0x2000, k);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 64, 20);
	CHECK(!memcmp(mem(a, MR1_ADDR + 0x80000, 0x28000),
		      mem(b, MR1_ADDR, 0x28000), 0x28000));
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, 64, 0);
	env_close(&e);
}

/* 2 % loss, duplicates and reordering: TCP repairs, data intact */
TEST(test_iw_lossy_wire)
{
	const uint32_t wlen = 0x60000, slen = 0x40000;
	struct side *a, *b;
	struct env e;
	struct wr w;
	int i;

	REQUIRE(iw_open(&e));
	a = &e.s[0];
	b = &e.s[1];
	for (i = 0; i < 2; i++) {
		e.l[i].loss_pm = 20;
		e.l[i].dup_pm = 10;
		e.l[i].reorder_pm = 20;
		e.l[i].rng = 0x1234 + i;
	}
	/* A: [0, wlen) the source, [0xc0000, +slen) the READ's sink;
	 * B: [0, wlen) the WRITE's sink, [0x80000, +slen) the READ's
	 * source, [0xc0000, +slen) the receive buffer
	 */
	pattern(mem(a, MR1_ADDR, wlen), wlen, 21);
	pattern(mem(b, MR1_ADDR + 0x80000, slen), slen, 22);
	post_recv(b, MR1_ADDR + 0xc0000, slen);
	wr_init(&w, ORDMA_WQE_RDMA_WRITE, MR1_ADDR, wlen, a->key1);
	w.remote_addr = MR1_ADDR;
	w.rkey = b->key1;
	post(a, &w);
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, slen, a->key1);
	post(a, &w);
	wr_init(&w, ORDMA_WQE_RDMA_READ, MR1_ADDR + 0xc0000, slen, a->key1);
	w.remote_addr = MR1_ADDR + 0x80000;
	w.rkey = b->key1;
	post(a, &w);
	run_for(&e, 20 * SECOND);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_SUCCESS, wlen,
		   0);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, slen, 1);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_READ, ORDMA_CQE_SUCCESS, slen,
		   2);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, slen, 0);
	CHECK(!memcmp(mem(b, MR1_ADDR, wlen), mem(a, MR1_ADDR, wlen), wlen));
	CHECK(!memcmp(mem(b, MR1_ADDR + 0xc0000, slen), mem(a, MR1_ADDR, slen),
		      slen));
	CHECK(!memcmp(mem(a, MR1_ADDR + 0xc0000, slen),
		      mem(b, MR1_ADDR + 0x80000, slen), slen));
	CHECK_EQ(qp_state(a), ORDMA_QPS_RTS);
	CHECK_EQ(qp_state(b), ORDMA_QPS_RTS);
	CHECK(e.l[0].dropped > 0);
	CHECK(e.l[1].dropped > 0);
	CHECK_EQ(iw_stats(a).fpdu_crc_bad + iw_stats(b).fpdu_crc_bad, 0);
	env_close(&e);
}

/* ------------------------------------------------------------------ */
/* Errors: Terminate                                                   */
/* ------------------------------------------------------------------ */

/* The last Terminate seen on a direction of the wire */
struct term_seen {
	unsigned int count;
	uint8_t layer, etype, ecode, flags;
};

static void term_hook(void *arg, const void *frame, size_t len)
{
	const uint8_t *f = frame, *tcp, *p;
	struct term_seen *t = arg;
	size_t ihl, doff;

	if (len < 14 + 20 + 20 || f[12] != 0x08 || f[13] != 0x00 ||
	    f[14 + 9] != 6)
		return;
	ihl = (f[14] & 0x0f) * 4u;
	tcp = f + 14 + ihl;
	doff = (tcp[12] >> 4) * 4u;
	p = tcp + doff;
	/* a segment that starts with a Terminate's FPDU */
	if ((size_t)(p - f) + 2 + FW_DDP_UNTAGGED_HLEN + FW_TERM_CTRL_LEN >
	    len || (p[2] & FW_DDP_TAGGED) || (p[3] & 0x0f) !=
	    FW_RDMAP_TERMINATE)
		return;
	p += 2 + FW_DDP_UNTAGGED_HLEN;
	t->count++;
	t->layer = p[0] >> 4;
	t->etype = p[0] & 0x0f;
	t->ecode = p[1];
	t->flags = p[2];
}

/*
 * A broken stream: side `from` did something the other side must refuse;
 * the refusing side sends the Terminate want (layer, type, code), both
 * QPs end in ERR with QP_FATAL, both hosts get IW_CLOSED.
 */
static void expect_terminated(struct env *e, int refuser, uint8_t layer,
			      uint8_t etype, uint8_t ecode,
			      struct term_seen *seen)
{
	uint32_t d[3];
	int i;

	run_for(e, SECOND);
	CHECK_EQ(seen->count, 1);
	CHECK_EQ(seen->layer, layer);
	CHECK_EQ(seen->etype, etype);
	CHECK_EQ(seen->ecode, ecode);
	CHECK_EQ(iw_stats(&e->s[refuser]).terminates_sent, 1);
	CHECK_EQ(iw_stats(&e->s[!refuser]).terminates_sent, 0);
	/* as the host reads them */
	CHECK_EQ(le64_to_cpu(stats(&e->s[refuser]).iw_terminates_sent), 1);
	CHECK_EQ(le64_to_cpu(stats(&e->s[!refuser]).iw_terminates_received),
		 1);
	CHECK_EQ(le64_to_cpu(stats(&e->s[refuser]).iw_terminates_received),
		 0);
	for (i = 0; i < 2; i++) {
		struct side *s = &e->s[i];

		CHECK_EQ(qp_state(s), ORDMA_QPS_ERR);
		/* in this order: the QP's error, then the connection's end */
		if (CHECK(next_event_of(s, ORDMA_EQE_QP_FATAL, d)))
			CHECK_EQ(d[0], s->qpn);
		if (CHECK(next_event_of(s, ORDMA_EQE_IW_CLOSED, d))) {
			CHECK_EQ(d[0], s->iw_conn);
			CHECK_EQ(d[1], ORDMA_IW_STATUS_PROTOCOL);
		}
		CHECK(!next_event_of(s, ORDMA_EQE_QP_FATAL, d));
	}
}

static void watch_terms(struct env *e, int refuser, struct term_seen *seen)
{
	memset(seen, 0, sizeof(*seen));
	e->l[refuser].rx_hook = term_hook;
	e->l[refuser].rx_hook_arg = seen;
}

/* A WRITE to a bad STag: DDP tagged, invalid STag; nothing placed */
TEST(test_iw_write_bad_stag)
{
	struct term_seen seen;
	struct side *a, *b;
	struct env e;
	struct wr w;

	REQUIRE(iw_open(&e));
	a = &e.s[0];
	b = &e.s[1];
	watch_terms(&e, 1, &seen);
	memset(mem(b, MR1_ADDR, 0x1000), 0x5a, 0x1000);
	post_recv(b, MR1_ADDR + 0x2000, 64);
	wr_init(&w, ORDMA_WQE_RDMA_WRITE, MR1_ADDR + 0x10000, 3000, a->key1);
	w.remote_addr = MR1_ADDR;
	w.rkey = b->key1 ^ 0x01;
	post(a, &w);
	wr_init(&w, ORDMA_WQE_RDMA_READ, MR1_ADDR + 0x20000, 16, a->key1);
	w.remote_addr = MR1_ADDR;
	w.rkey = b->key1;
	post(a, &w);
	expect_terminated(&e, 1, FW_TERM_LAYER_DDP, FW_TERM_DDP_TAGGED,
			  FW_TERM_DDP_T_INV_STAG, &seen);
	CHECK_EQ(seen.flags, FW_TERM_FLAG_M | FW_TERM_FLAG_D);
	/* TCP took the WRITE: done; the READ behind it fails remotely */
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_SUCCESS, 3000,
		   0);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_READ, ORDMA_CQE_REM_ACCESS_ERR,
		   0, 1);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_WR_FLUSH_ERR, 0, 0);
	CHECK_EQ(mem(b, MR1_ADDR, 1)[0], 0x5a);
	CHECK_EQ(fwqp(b)->counters.access_naks_sent, 1);
	env_close(&e);
}

/* A Send with no receive posted: DDP untagged, no buffer (no RNR) */
TEST(test_iw_send_no_receive)
{
	struct term_seen seen;
	struct env e;
	struct wr w;

	REQUIRE(iw_open(&e));
	watch_terms(&e, 1, &seen);
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 100, e.s[0].key1);
	post(&e.s[0], &w);
	expect_terminated(&e, 1, FW_TERM_LAYER_DDP, FW_TERM_DDP_UNTAGGED,
			  FW_TERM_DDP_U_NO_BUF, &seen);
	expect_cqe(&e.s[0], true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 100, 0);
	env_close(&e);
}

/* A READ beyond the MR: RDMAP remote protection, base or bounds */
TEST(test_iw_read_beyond_mr)
{
	struct term_seen seen;
	struct side *a, *b;
	struct env e;
	struct wr w;

	REQUIRE(iw_open(&e));
	a = &e.s[0];
	b = &e.s[1];
	watch_terms(&e, 1, &seen);
	wr_init(&w, ORDMA_WQE_RDMA_READ, MR1_ADDR, 0x2000, a->key1);
	w.remote_addr = MR1_ADDR + MR1_LEN - 0x1000;
	w.rkey = b->key1;
	post(a, &w);
	expect_terminated(&e, 1, FW_TERM_LAYER_RDMAP, FW_TERM_RDMAP_REMOTE_PROT,
			  FW_TERM_RDMAP_BOUNDS, &seen);
	CHECK_EQ(seen.flags, FW_TERM_FLAG_M | FW_TERM_FLAG_D | FW_TERM_FLAG_R);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_READ, ORDMA_CQE_REM_ACCESS_ERR,
		   0, 0);
	/* B's MR2 grants no remote read: access rights */
	env_close(&e);
	REQUIRE(iw_open(&e));
	a = &e.s[0];
	b = &e.s[1];
	watch_terms(&e, 1, &seen);
	wr_init(&w, ORDMA_WQE_RDMA_READ, MR1_ADDR, 0x100, a->key1);
	w.remote_addr = MR2_ADDR;
	w.rkey = b->key2;
	post(a, &w);
	expect_terminated(&e, 1, FW_TERM_LAYER_RDMAP, FW_TERM_RDMAP_REMOTE_PROT,
			  FW_TERM_RDMAP_ACCESS, &seen);
	env_close(&e);
}

/* Raw bytes from side i's TCP connection, as a broken peer sends them */
static void raw_send(struct env *e, int i, const uint8_t *buf, size_t len)
{
	struct side *s = &e->s[i];

	REQUIRE_EQ(fw_tcp_send(s->d.fw, s->iw_conn, buf, len), len);
}

/* An FPDU with a bad CRC: LLP (MPA), CRC error */
TEST(test_iw_bad_crc)
{
	struct fw_ddp_hdr h = {
		.last = true,
		.opcode = FW_RDMAP_SEND,
		.qn = FW_RDMAP_QN_SEND,
		.msn = 1,
	};
	uint8_t fpdu[64];
	struct term_seen seen;
	struct env e;
	size_t len;

	REQUIRE(iw_open(&e));
	watch_terms(&e, 1, &seen);
	post_recv(&e.s[1], MR1_ADDR, 64);
	len = fw_ddp_build(fpdu + 2, &h);
	memcpy(fpdu + 2 + len, "data", 4);
	len = fw_fpdu_seal(fpdu, len + 4);
	fpdu[len - 1] ^= 0x80;
	raw_send(&e, 0, fpdu, len);
	expect_terminated(&e, 1, FW_TERM_LAYER_LLP, FW_TERM_LLP_MPA,
			  FW_TERM_MPA_CRC, &seen);
	CHECK_EQ(iw_stats(&e.s[1]).fpdu_crc_bad, 1);
	CHECK_EQ(le64_to_cpu(stats(&e.s[1]).iw_rx_fpdu_crc_bad), 1);
	expect_cqe(&e.s[1], false, ORDMA_CQE_OP_RECV, ORDMA_CQE_WR_FLUSH_ERR, 0,
		   0);
	env_close(&e);
}

/* An FPDU cut by the peer's FIN: its bytes counted dropped, QP in error */
TEST(test_iw_fpdu_cut_by_fin)
{
	struct fw_ddp_hdr h = {
		.last = true,
		.opcode = FW_RDMAP_SEND,
		.qn = FW_RDMAP_QN_SEND,
		.msn = 1,
	};
	uint8_t fpdu[64];
	struct env e;
	size_t len;

	REQUIRE(iw_open(&e));
	post_recv(&e.s[1], MR1_ADDR, 64);
	len = fw_ddp_build(fpdu + 2, &h);
	memcpy(fpdu + 2 + len, "data", 4);
	len = fw_fpdu_seal(fpdu, len + 4);
	raw_send(&e, 0, fpdu, len - 5);
	REQUIRE_EQ(fw_tcp_shutdown(e.s[0].d.fw, e.s[0].iw_conn), 0);
	run_for(&e, SECOND / 10);
	CHECK_EQ(iw_stats(&e.s[1]).rx_fpdu_bytes, len - 5);
	CHECK_EQ(le64_to_cpu(stats(&e.s[1]).iw_rx_fpdu_bytes_dropped), len - 5);
	CHECK_EQ(qp_state(&e.s[1]), ORDMA_QPS_ERR);
	CHECK(has_event(&e.s[1], ORDMA_EQE_IW_CLOSED, e.s[1].iw_conn));
	expect_cqe(&e.s[1], false, ORDMA_CQE_OP_RECV, ORDMA_CQE_WR_FLUSH_ERR, 0,
		   0);
	env_close(&e);
}

/*
 * A Send arriving a byte at a time is placed as one arriving whole;
 * then an FPDU whose length cannot hold a DDP header loses the stream:
 * MPA, FPDU start
 */
TEST(test_iw_fpdu_framing)
{
	struct fw_ddp_hdr h = {
		.last = true,
		.opcode = FW_RDMAP_SEND_SE,
		.qn = FW_RDMAP_QN_SEND,
		.msn = 1,
	};
	uint8_t fpdu[2100];
	struct term_seen seen;
	struct ordma_cqe cqe;
	struct env e;
	size_t len, i;

	REQUIRE(iw_open(&e));
	watch_terms(&e, 1, &seen);
	post_recv(&e.s[1], MR1_ADDR, 4096);
	len = fw_ddp_build(fpdu + 2, &h);
	pattern(fpdu + 2 + len, 2001, 4);
	len = fw_fpdu_seal(fpdu, len + 2001);
	for (i = 0; i < len; i++) {
		raw_send(&e, 0, fpdu + i, 1);
		pump(&e);
	}
	run_for(&e, SECOND / 10);
	REQUIRE(cqe_next(&e.s[1], false, &cqe));
	CHECK_EQ(cqe.status, ORDMA_CQE_SUCCESS);
	CHECK_EQ(le32_to_cpu(cqe.byte_len), 2001);
	CHECK(!memcmp(mem(&e.s[1], MR1_ADDR, 2001),
		      fpdu + 2 + FW_DDP_UNTAGGED_HLEN, 2001));
	CHECK_EQ(seen.count, 0);
	fpdu[0] = 0;
	fpdu[1] = FW_DDP_TAGGED_HLEN - 1;
	raw_send(&e, 0, fpdu, 16);
	expect_terminated(&e, 1, FW_TERM_LAYER_LLP, FW_TERM_LLP_MPA,
			  FW_TERM_MPA_MARKER, &seen);
	CHECK_EQ(iw_stats(&e.s[1]).fpdu_bad_len, 1);
	env_close(&e);
}

/* Wrong MSN, then an unknown opcode: each its own code */
TEST(test_iw_untagged_checks)
{
	struct fw_ddp_hdr h = {
		.last = true,
		.opcode = FW_RDMAP_SEND,
		.qn = FW_RDMAP_QN_SEND,
		.msn = 2,
	};
	uint8_t fpdu[64];
	struct term_seen seen;
	struct env e;
	size_t len;

	REQUIRE(iw_open(&e));
	watch_terms(&e, 1, &seen);
	post_recv(&e.s[1], MR1_ADDR, 64);
	len = fw_fpdu_seal(fpdu, fw_ddp_build(fpdu + 2, &h));
	raw_send(&e, 0, fpdu, len);
	expect_terminated(&e, 1, FW_TERM_LAYER_DDP, FW_TERM_DDP_UNTAGGED,
			  FW_TERM_DDP_U_MSN_RANGE, &seen);
	env_close(&e);

	REQUIRE(iw_open(&e));
	watch_terms(&e, 1, &seen);
	h.msn = 1;
	h.opcode = 0x9;
	len = fw_fpdu_seal(fpdu, fw_ddp_build(fpdu + 2, &h));
	raw_send(&e, 0, fpdu, len);
	expect_terminated(&e, 1, FW_TERM_LAYER_RDMAP, FW_TERM_RDMAP_REMOTE_OP,
			  FW_TERM_RDMAP_OPCODE, &seen);
	env_close(&e);

	/* a Send on the Read Request queue */
	REQUIRE(iw_open(&e));
	watch_terms(&e, 1, &seen);
	h.opcode = FW_RDMAP_SEND;
	h.qn = FW_RDMAP_QN_READ_REQ;
	len = fw_fpdu_seal(fpdu, fw_ddp_build(fpdu + 2, &h));
	raw_send(&e, 0, fpdu, len);
	expect_terminated(&e, 1, FW_TERM_LAYER_DDP, FW_TERM_DDP_UNTAGGED,
			  FW_TERM_DDP_U_INV_QN, &seen);
	env_close(&e);
}

/* The next CQE: a success of opcode and byte_len */
static bool cqe_ok(struct side *s, bool send, uint8_t opcode, uint32_t len)
{
	struct ordma_cqe c;

	if (!cqe_next(s, send, &c))
		return false;
	CHECK_EQ(c.status, ORDMA_CQE_SUCCESS);
	CHECK_EQ(c.opcode, opcode);
	CHECK_EQ(le32_to_cpu(c.byte_len), len);
	return c.status == ORDMA_CQE_SUCCESS;
}

/*
 * rping's exchange, 64-byte buffers, 20 rounds: the client advertises a
 * buffer by a Send, the server READs it, says go on, the client
 * advertises another, the server WRITEs it, says go on.
 */
TEST(test_iw_rping_rounds)
{
	struct side *cl, *sv;
	struct env e;
	struct wr w;
	int round;

	REQUIRE(iw_open(&e));
	cl = &e.s[0];
	sv = &e.s[1];
	for (round = 0; round < 20; round++) {
		uint32_t k = (uint32_t)round;

		pattern(mem(cl, MR1_ADDR + 0x1000, 64), 64, k);
		pattern(mem(sv, MR1_ADDR + 0x3000, 64), 64, k + 100);
		/* client: receive for the go-ahead, advertise start_buf */
		post_recv(sv, MR1_ADDR + 0x8000, 16);
		post_recv(cl, MR1_ADDR + 0x9000, 16);
		wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 16, cl->key1);
		w.flags |= ORDMA_WQE_SIGNALED;
		post(cl, &w);
		run_for(&e, SECOND / 100);
		REQUIRE(cqe_ok(sv, false, ORDMA_CQE_OP_RECV, 16));
		REQUIRE(cqe_ok(cl, true, ORDMA_CQE_OP_SEND, 16));
		/* server: READ it, go-ahead */
		wr_init(&w, ORDMA_WQE_RDMA_READ, MR1_ADDR + 0x2000, 64, sv->key1);
		w.remote_addr = MR1_ADDR + 0x1000;
		w.rkey = cl->key1;
		post(sv, &w);
		run_for(&e, SECOND / 100);
		REQUIRE(cqe_ok(sv, true, ORDMA_CQE_OP_RDMA_READ, 64));
		CHECK(!memcmp(mem(sv, MR1_ADDR + 0x2000, 64),
			      mem(cl, MR1_ADDR + 0x1000, 64), 64));
		post_recv(sv, MR1_ADDR + 0x8000, 16);
		wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 16, sv->key1);
		post(sv, &w);
		run_for(&e, SECOND / 100);
		REQUIRE(cqe_ok(cl, false, ORDMA_CQE_OP_RECV, 16));
		REQUIRE(cqe_ok(sv, true, ORDMA_CQE_OP_SEND, 16));
		/* client: advertise rdma_buf; server WRITEs, go-ahead */
		post_recv(cl, MR1_ADDR + 0x9000, 16);
		wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 16, cl->key1);
		post(cl, &w);
		run_for(&e, SECOND / 100);
		REQUIRE(cqe_ok(sv, false, ORDMA_CQE_OP_RECV, 16));
		REQUIRE(cqe_ok(cl, true, ORDMA_CQE_OP_SEND, 16));
		wr_init(&w, ORDMA_WQE_RDMA_WRITE, MR1_ADDR + 0x3000, 64,
			sv->key1);
		w.remote_addr = MR1_ADDR + 0x4000;
		w.rkey = cl->key1;
		post(sv, &w);
		wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 16, sv->key1);
		post(sv, &w);
		run_for(&e, SECOND / 100);
		REQUIRE(cqe_ok(sv, true, ORDMA_CQE_OP_RDMA_WRITE, 64));
		REQUIRE(cqe_ok(sv, true, ORDMA_CQE_OP_SEND, 16));
		REQUIRE(cqe_ok(cl, false, ORDMA_CQE_OP_RECV, 16));
		CHECK(!memcmp(mem(cl, MR1_ADDR + 0x4000, 64),
			      mem(sv, MR1_ADDR + 0x3000, 64), 64));
	}
	env_close(&e);
}

/*
 * A Send with Invalidate naming an STag the receiver cannot invalidate
 * (an ordinary MR's): the receive completes REM_INV_REQ_ERR, RDMAP
 * remote operation, cannot invalidate; the MR stays valid
 */
TEST(test_iw_send_inv_refused)
{
	struct term_seen seen;
	struct side *a, *b;
	struct env e;
	struct wr w;

	REQUIRE(iw_open(&e));
	a = &e.s[0];
	b = &e.s[1];
	watch_terms(&e, 1, &seen);
	post_recv(b, MR1_ADDR, 256);
	wr_init(&w, ORDMA_WQE_SEND_INV, MR1_ADDR + 0x1000, 64, a->key1);
	w.imm_inv = b->key1;
	post(a, &w);
	expect_terminated(&e, 1, FW_TERM_LAYER_RDMAP, FW_TERM_RDMAP_REMOTE_OP,
			  FW_TERM_RDMAP_CANT_INVALIDATE, &seen);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_REM_INV_REQ_ERR, 0,
		   0);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 64, 0);
	/* the refused STag's MR is still valid */
	{
		struct fw_mr *mr;

		CHECK_EQ(fw_mr_lookup(b->d.fw, b->key1, b->pdn, MR1_ADDR, 64,
				      ORDMA_ACCESS_REMOTE_WRITE, &mr),
			 FW_MR_OK);
	}
	env_close(&e);
}

/*
 * RDMA Read with local invalidate, as rdma_rw posts it for every READ on
 * an iWARP port: the data lands in a fast-register MR, whose key (the
 * sink SGE's, not imm_inv) is invalid once the READ completed; one into
 * an ordinary MR completes with the error LOCAL_INV would give (a local
 * protection error), the QP fails and the MR stays.
 */
TEST(test_iw_read_inv)
{
	const uint64_t iova = 0x7000000000ULL;
	struct side *a, *b;
	struct fw_mr *mr;
	struct env e;
	struct wr w;
	uint32_t frkey;

	REQUIRE(iw_open(&e));
	a = &e.s[0];
	b = &e.s[1];
	frkey = fast_reg_mr(a, iova, GUARD_ADDR, 2, 0);
	REQUIRE(frkey);
	pattern(mem(b, MR1_ADDR, 0x1800), 0x1800, 3);
	memset(mem(a, GUARD_ADDR, 0x2000), 0, 0x2000);
	/* imm_inv is not what goes: rdma_rw leaves the key before last there */
	wr_init(&w, ORDMA_WQE_RDMA_READ_INV, iova + 0x200, 0x1800, frkey);
	w.imm_inv = frkey - 1;
	w.remote_addr = MR1_ADDR;
	w.rkey = b->key1;
	post(a, &w);
	run_for(&e, SECOND / 10);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_READ, ORDMA_CQE_SUCCESS, 0x1800,
		   1);
	CHECK(!memcmp(mem(a, GUARD_ADDR + 0x200, 0x1800),
		      mem(b, MR1_ADDR, 0x1800), 0x1800));
	CHECK_EQ(fw_mr_lookup(a->d.fw, frkey, a->pdn, iova, 1, 0, &mr),
		 FW_MR_ERR_KEY);
	CHECK_EQ(qp_state(a), ORDMA_QPS_RTS);
	/* an ordinary MR's key cannot be invalidated */
	wr_init(&w, ORDMA_WQE_RDMA_READ_INV, MR1_ADDR + 0x10000, 64, a->key1);
	w.remote_addr = MR1_ADDR;
	w.rkey = b->key1;
	post(a, &w);
	run_for(&e, SECOND / 10);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_READ, ORDMA_CQE_LOC_PROT_ERR, 0,
		   2);
	CHECK_EQ(qp_state(a), ORDMA_QPS_ERR);
	CHECK_EQ(fw_mr_lookup(a->d.fw, a->key1, a->pdn, MR1_ADDR, 1, 0, &mr),
		 FW_MR_OK);
	env_close(&e);
}

/* A RoCE port refuses RDMA Read with local invalidate */
TEST(test_roce_read_inv_refused)
{
	struct side *a, *b;
	struct tcfg c;
	struct env e;
	struct wr w;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	wr_init(&w, ORDMA_WQE_RDMA_READ_INV, MR1_ADDR, 64, a->key1);
	w.imm_inv = a->key1;
	w.remote_addr = MR1_ADDR;
	w.rkey = b->key1;
	post(a, &w);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_READ, ORDMA_CQE_LOC_QP_OP_ERR, 0,
		   0);
	CHECK_EQ(qp_state(a), ORDMA_QPS_ERR);
	env_close(&e);
}
