// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * RC FLUSH and ATOMIC WRITE end to end: placement and persistence
 * levels, errors, loss and duplicates, the responder resource limit.
 */
#include <stdlib.h>
#include <string.h>

#include "ordma_test.h"
#include "pair.h"
#include "roce_codec.h"

/* ------------------------------------------------------------------ */
/* FLUSH and ATOMIC WRITE                                              */
/* ------------------------------------------------------------------ */

#define FL_ADDR		GUARD_ADDR		/* MR3: FLUSH_GLOBAL only */

#define FL_LEN		0x10000ULL

/* B gets MR3 at FL_ADDR: local + remote write and FLUSH_GLOBAL */
static uint32_t flush_mr(struct side *b, uint32_t access)
{
	uint32_t key = 0;

	CHECK_EQ(drv_reg_mr_contig(&b->d, b->pdn, 0, FL_ADDR, FL_ADDR, FL_LEN,
				   access, 0x33, &key), OK);
	return key;
}

/* The last frame side s sent, parsed */
static bool last_frame(struct side *s, struct fw_roce_hdrs *h,
		       size_t *payload_len)
{
	const struct fake_frame *f = fake_last_tx(&s->d.hal);
	struct fw_roce_pkt pkt;

	if (!CHECK(f) ||
	    !CHECK_EQ(fw_roce_parse(f->data, f->len, &pkt), FW_ROCE_OK))
		return false;
	fw_roce_decode(&pkt, h);
	*payload_len = pkt.payload_len;
	return true;
}

/* WRITE then FLUSH at RANGE and MR level; the frames on the wire */
TEST(test_tp_rc_flush)
{
	struct fw_roce_hdrs h;
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;
	size_t plen;
	uint32_t key3;

	flush_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	key3 = flush_mr(b, ORDMA_ACCESS_LOCAL_WRITE | ORDMA_ACCESS_REMOTE_WRITE |
			ORDMA_ACCESS_FLUSH_GLOBAL);
	pattern(mem(a, MR1_ADDR, 256), 256, 9);
	wr_init(&w, ORDMA_WQE_RDMA_WRITE, MR1_ADDR, 256, a->key1);
	w.remote_addr = FL_ADDR + 0x100;
	w.rkey = key3;
	post(a, &w);
	flush_wr(&w, FL_ADDR + 0x100, key3, 256, ORDMA_FLUSH_GLOBAL,
		 ORDMA_FLUSH_LEVEL_RANGE);
	post(a, &w);
	/* FLUSH: BTH, FETH (placement 1, level 0), RETH, no payload */
	if (last_frame(a, &h, &plen)) {
		CHECK_EQ(h.opcode, FW_ROCE_RC_FLUSH);
		CHECK_EQ(h.feth.placement, FW_FETH_PLT_GLOBAL);
		CHECK_EQ(h.feth.level, FW_FETH_SEL_RANGE);
		CHECK_EQ(h.reth.va, FL_ADDR + 0x100);
		CHECK_EQ(h.reth.rkey, key3);
		CHECK_EQ(h.reth.dma_len, 256);
		CHECK(h.ack_req);
		CHECK_EQ(plen, 0);
		CHECK_EQ(h.psn, c.psn[0] + 1);
	}
	{
		const struct fake_frame *f = fake_last_tx(&a->d.hal);
		size_t bth = FW_ROCE_ETH_HLEN + FW_ROCE_IPV4_HLEN +
			     FW_ROCE_UDP_HLEN;

		/* FETH is the word right after the BTH, big endian */
		REQUIRE(f);
		CHECK_EQ(fw_wire_get32(f->data + bth + FW_ROCE_BTH_LEN), 1);
		CHECK_EQ(fw_wire_get64(f->data + bth + FW_ROCE_BTH_LEN + 4),
			 FL_ADDR + 0x100);
	}
	pump(&e);
	/* the answer: READ Response Only, ACK syndrome, 0 bytes */
	if (last_frame(b, &h, &plen)) {
		CHECK_EQ(h.opcode, FW_ROCE_RC_RDMA_READ_RESPONSE_ONLY);
		CHECK(fw_aeth_is_ack(h.aeth.syndrome));
		CHECK_EQ(h.psn, c.psn[0] + 1);
		CHECK_EQ(plen, 0);
		CHECK_EQ(h.aeth.msn, 2);
	}
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_SUCCESS, 256, 0);
	expect_cqe(a, true, ORDMA_CQE_OP_FLUSH, ORDMA_CQE_SUCCESS, 0, 1);
	no_cqe(b, false);
	CHECK(!memcmp(mem(b, FL_ADDR + 0x100, 256), mem(a, MR1_ADDR, 256),
		      256));
	/* MR level: the range is ignored, 0 or far beyond the MR */
	flush_wr(&w, FL_ADDR, key3, 0, ORDMA_FLUSH_GLOBAL, ORDMA_FLUSH_LEVEL_MR);
	post(a, &w);
	flush_wr(&w, FL_ADDR + 8, key3, 12345678, ORDMA_FLUSH_GLOBAL,
		 ORDMA_FLUSH_LEVEL_MR);
	post(a, &w);
	/* RANGE of 0 bytes at the end of the MR */
	flush_wr(&w, FL_ADDR + FL_LEN, key3, 0, ORDMA_FLUSH_GLOBAL,
		 ORDMA_FLUSH_LEVEL_RANGE);
	post(a, &w);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_FLUSH, ORDMA_CQE_SUCCESS, 0, 2);
	expect_cqe(a, true, ORDMA_CQE_OP_FLUSH, ORDMA_CQE_SUCCESS, 0, 3);
	expect_cqe(a, true, ORDMA_CQE_OP_FLUSH, ORDMA_CQE_SUCCESS, 0, 4);
	CHECK_EQ(qp_state(a), ORDMA_QPS_RTS);
	CHECK_EQ(qp_state(b), ORDMA_QPS_RTS);
	env_close(&e);
}

/*
 * A FLUSH the responder refuses: the requester's WQE completes with
 * a_status, both QPs end in ERR, B raises b_event.  qp_access is B's QP
 * grant, mr_access that of MR3 (0: use MR1, which has no FLUSH grant).
 */
static void flush_error(uint32_t qp_access, uint32_t mr_access, bool bad_key,
			uint64_t raddr, uint32_t len, uint8_t placement,
			uint8_t level, uint8_t a_status, uint8_t b_event)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;
	uint32_t key;

	flush_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	if (qp_access != FL_QP_ACCESS) {
		struct ordma_qp_attr attr;

		memset(&attr, 0, sizeof(attr));
		attr.attr_mask = cpu_to_le32(A(ACCESS_FLAGS));
		attr.access_flags = cpu_to_le32(qp_access);
		REQUIRE_EQ(drv_modify_qp(&b->d, b->qpn, &attr), OK);
	}
	key = mr_access ? flush_mr(b, mr_access) : b->key1;
	if (bad_key)
		key ^= 1;
	flush_wr(&w, raddr, key, len, placement, level);
	post(a, &w);
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 8, a->key1);
	post(a, &w);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_FLUSH, a_status, 0, 0);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_WR_FLUSH_ERR, 0, 1);
	CHECK_EQ(qp_state(a), ORDMA_QPS_ERR);
	CHECK_EQ(qp_state(b), ORDMA_QPS_ERR);
	CHECK(has_event(b, b_event, b->qpn));
	env_close(&e);
}

TEST(test_tp_rc_flush_errors)
{
	const uint32_t rw = ORDMA_ACCESS_LOCAL_WRITE | ORDMA_ACCESS_REMOTE_WRITE;
	const uint32_t glob = rw | ORDMA_ACCESS_FLUSH_GLOBAL;
	struct env e;
	struct side *a;
	struct tcfg c;
	struct wr w;

	/* PERSISTENT against an MR granting only GLOBAL */
	flush_error(FL_QP_ACCESS, glob, false, FL_ADDR, 64,
		    ORDMA_FLUSH_PERSISTENT, ORDMA_FLUSH_LEVEL_RANGE,
		    ORDMA_CQE_REM_ACCESS_ERR, ORDMA_EQE_QP_ACCESS_ERR);
	/* ... and GLOBAL | PERSISTENT needs both */
	flush_error(FL_QP_ACCESS, glob, false, FL_ADDR, 64,
		    ORDMA_FLUSH_GLOBAL | ORDMA_FLUSH_PERSISTENT,
		    ORDMA_FLUSH_LEVEL_MR, ORDMA_CQE_REM_ACCESS_ERR,
		    ORDMA_EQE_QP_ACCESS_ERR);
	/* an MR with no FLUSH grant at all */
	flush_error(FL_QP_ACCESS, 0, false, MR1_ADDR, 64, ORDMA_FLUSH_GLOBAL,
		    ORDMA_FLUSH_LEVEL_RANGE, ORDMA_CQE_REM_ACCESS_ERR,
		    ORDMA_EQE_QP_ACCESS_ERR);
	/* bad rkey, at both levels */
	flush_error(FL_QP_ACCESS, glob, true, FL_ADDR, 64, ORDMA_FLUSH_GLOBAL,
		    ORDMA_FLUSH_LEVEL_RANGE, ORDMA_CQE_REM_ACCESS_ERR,
		    ORDMA_EQE_QP_ACCESS_ERR);
	flush_error(FL_QP_ACCESS, glob, true, FL_ADDR, 64, ORDMA_FLUSH_GLOBAL,
		    ORDMA_FLUSH_LEVEL_MR, ORDMA_CQE_REM_ACCESS_ERR,
		    ORDMA_EQE_QP_ACCESS_ERR);
	/* RANGE crossing the end of the MR, and before its start */
	flush_error(FL_QP_ACCESS, glob, false, FL_ADDR + FL_LEN - 8, 16,
		    ORDMA_FLUSH_GLOBAL, ORDMA_FLUSH_LEVEL_RANGE,
		    ORDMA_CQE_REM_ACCESS_ERR, ORDMA_EQE_QP_ACCESS_ERR);
	flush_error(FL_QP_ACCESS, glob, false, FL_ADDR - 8, 8,
		    ORDMA_FLUSH_GLOBAL, ORDMA_FLUSH_LEVEL_RANGE,
		    ORDMA_CQE_REM_ACCESS_ERR, ORDMA_EQE_QP_ACCESS_ERR);
	/* the responder QP does not grant FLUSH: invalid request */
	flush_error(ORDMA_ACCESS_REMOTE_WRITE | ORDMA_ACCESS_FLUSH_PERSISTENT,
		    glob, false, FL_ADDR, 64, ORDMA_FLUSH_GLOBAL,
		    ORDMA_FLUSH_LEVEL_RANGE, ORDMA_CQE_REM_INV_REQ_ERR,
		    ORDMA_EQE_QP_REQ_ERR);

	/* WQEs the requester refuses: nothing goes on the wire */
	flush_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	flush_wr(&w, MR1_ADDR, e.s[1].key1, 8, 0, ORDMA_FLUSH_LEVEL_RANGE);
	post(a, &w);
	CHECK_EQ(e.l[0].sent, 0);
	expect_cqe(a, true, ORDMA_CQE_OP_FLUSH, ORDMA_CQE_LOC_QP_OP_ERR, 0, 0);
	env_close(&e);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	flush_wr(&w, MR1_ADDR, e.s[1].key1, 8, ORDMA_FLUSH_GLOBAL | 4,
		 ORDMA_FLUSH_LEVEL_RANGE);
	post(a, &w);
	flush_wr(&w, MR1_ADDR, e.s[1].key1, 8, ORDMA_FLUSH_GLOBAL, 2);
	post(a, &w);
	CHECK_EQ(e.l[0].sent, 0);
	expect_cqe(a, true, ORDMA_CQE_OP_FLUSH, ORDMA_CQE_LOC_QP_OP_ERR, 0, 0);
	expect_cqe(a, true, ORDMA_CQE_OP_FLUSH, ORDMA_CQE_WR_FLUSH_ERR, 0, 1);
	env_close(&e);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	flush_wr(&w, MR1_ADDR, e.s[1].key1, 0x80000001u, ORDMA_FLUSH_GLOBAL,
		 ORDMA_FLUSH_LEVEL_RANGE);
	post(a, &w);
	CHECK_EQ(e.l[0].sent, 0);
	expect_cqe(a, true, ORDMA_CQE_OP_FLUSH, ORDMA_CQE_LOC_LEN_ERR, 0, 0);
	env_close(&e);
	/* SGEs on a FLUSH */
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	flush_wr(&w, MR1_ADDR, e.s[1].key1, 8, ORDMA_FLUSH_GLOBAL,
		 ORDMA_FLUSH_LEVEL_RANGE);
	sge(&w.sge[0], MR1_ADDR, 8, a->key1);
	w.num_sge = 1;
	post(a, &w);
	CHECK_EQ(e.l[0].sent, 0);
	expect_cqe(a, true, ORDMA_CQE_OP_FLUSH, ORDMA_CQE_LOC_QP_OP_ERR, 0, 0);
	env_close(&e);
}

/* Lost FLUSH answers: a later ACK does not complete it; replayed once */
TEST(test_tp_rc_flush_loss_dup)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;
	uint32_t key3;

	flush_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	key3 = flush_mr(b, ORDMA_ACCESS_LOCAL_WRITE | ORDMA_ACCESS_REMOTE_WRITE |
			ORDMA_ACCESS_FLUSH_GLOBAL |
			ORDMA_ACCESS_FLUSH_PERSISTENT);
	/* the request duplicated on the wire: answered twice */
	e.l[0].dup_nth = 1;
	flush_wr(&w, FL_ADDR, key3, 64, ORDMA_FLUSH_PERSISTENT,
		 ORDMA_FLUSH_LEVEL_RANGE);
	post(a, &w);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_FLUSH, ORDMA_CQE_SUCCESS, 0, 0);
	no_cqe(a, true);
	CHECK_EQ(fwqp(b)->counters.duplicate_requests, 1);
	CHECK_EQ(e.l[1].sent, 2);
	CHECK_EQ(fwqp(b)->msn, 1);

	/* FLUSH answer lost, the WRITE after it acknowledged: the FLUSH is
	 * sent again, answered from the resource, both complete in order
	 */
	e.l[1].drop_nth = e.l[1].sent + 1;
	flush_wr(&w, FL_ADDR, key3, 64, ORDMA_FLUSH_GLOBAL,
		 ORDMA_FLUSH_LEVEL_MR);
	post(a, &w);
	wr_init(&w, ORDMA_WQE_RDMA_WRITE, MR1_ADDR, 16, a->key1);
	w.remote_addr = FL_ADDR + 0x40;
	w.rkey = key3;
	post(a, &w);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_FLUSH, ORDMA_CQE_SUCCESS, 0, 1);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_SUCCESS, 16, 2);
	CHECK_EQ(fwqp(b)->counters.duplicate_requests, 3);
	CHECK_EQ(fwqp(b)->msn, 3);

	/* the request itself lost: the timeout sends it again */
	e.l[0].drop_nth = e.l[0].sent + 1;
	flush_wr(&w, FL_ADDR, key3, 64, ORDMA_FLUSH_GLOBAL,
		 ORDMA_FLUSH_LEVEL_RANGE);
	post(a, &w);
	pump(&e);
	no_cqe(a, true);
	advance(&e, 4096ULL << 10);
	expect_cqe(a, true, ORDMA_CQE_OP_FLUSH, ORDMA_CQE_SUCCESS, 0, 3);
	CHECK_EQ(fwqp(a)->counters.timeouts, 1);
	CHECK_EQ(qp_state(a), ORDMA_QPS_RTS);
	CHECK_EQ(qp_state(b), ORDMA_QPS_RTS);
	env_close(&e);
}

/* max_rd_atomic bounds FLUSH and ATOMIC WRITE in flight as READs */
TEST(test_tp_rc_flush_rd_atomic_limit)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;
	uint32_t key3, i;

	flush_cfg(&c);
	c.max_rd_atomic = 1;
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	key3 = flush_mr(b, ORDMA_ACCESS_LOCAL_WRITE | ORDMA_ACCESS_REMOTE_WRITE |
			ORDMA_ACCESS_FLUSH_GLOBAL);
	for (i = 0; i < 4; i++) {
		if (i & 1)
			aw_wr(&w, FL_ADDR + 8 * i, key3, i);
		else
			flush_wr(&w, FL_ADDR, key3, 8, ORDMA_FLUSH_GLOBAL,
				 ORDMA_FLUSH_LEVEL_RANGE);
		put_wqe(a, &w);
	}
	ring_sq(a);
	CHECK_EQ(e.l[0].sent, 1);
	pump(&e);
	CHECK_EQ(e.l[0].sent, 4);
	for (i = 0; i < 4; i++)
		expect_cqe(a, true, i & 1 ? ORDMA_CQE_OP_ATOMIC_WRITE :
			   ORDMA_CQE_OP_FLUSH, ORDMA_CQE_SUCCESS, i & 1 ? 8 : 0,
			   i);
	env_close(&e);
}

TEST(test_tp_rc_atomic_write)
{
	const struct fake_dma_write *dw;
	struct fw_roce_hdrs h;
	struct link_frame f;
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;
	size_t plen;
	uint8_t *tgt;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	tgt = mem(b, MR1_ADDR + 0x300, 24);
	memset(tgt, 0xee, 24);
	aw_wr(&w, MR1_ADDR + 0x308, b->key1, 0x0807060504030201ULL);
	post(a, &w);
	/* RETH (dma_len 8) and the 8 bytes as they are in the WQE */
	if (last_frame(a, &h, &plen)) {
		CHECK_EQ(h.opcode, FW_ROCE_RC_ATOMIC_WRITE);
		CHECK_EQ(h.reth.va, MR1_ADDR + 0x308);
		CHECK_EQ(h.reth.rkey, b->key1);
		CHECK_EQ(h.reth.dma_len, 8);
		CHECK_EQ(plen, 8);
		CHECK(h.ack_req);
	}
	/* delivered by hand: B stores it with one 8-byte DMA write */
	REQUIRE(link_pop(&e.l[0], &f));
	ordma_fw_rx_frame(b->d.fw, f.data, f.len);
	free(f.data);
	dw = fake_recent_write(&b->d.hal, 0);
	if (CHECK(dw)) {
		CHECK_EQ(dw->addr, MR1_ADDR + 0x308);
		CHECK_EQ(dw->len, 8);
	}
	pump(&e);
	if (last_frame(b, &h, &plen)) {
		CHECK_EQ(h.opcode, FW_ROCE_RC_RDMA_READ_RESPONSE_ONLY);
		CHECK(fw_aeth_is_ack(h.aeth.syndrome));
		CHECK_EQ(plen, 0);
	}
	expect_cqe(a, true, ORDMA_CQE_OP_ATOMIC_WRITE, ORDMA_CQE_SUCCESS, 8, 0);
	CHECK_EQ(get64(tgt + 8), 0x0807060504030201ULL);
	CHECK_EQ(tgt[7], 0xee);
	CHECK_EQ(tgt[16], 0xee);

	/* answer lost; B's memory changes meanwhile; the retransmitted
	 * request is a duplicate and must not write again
	 */
	e.l[1].drop_nth = e.l[1].sent + 1;
	aw_wr(&w, MR1_ADDR + 0x310, b->key1, 0x1111111111111111ULL);
	post(a, &w);
	pump(&e);
	no_cqe(a, true);
	CHECK_EQ(get64(tgt + 16), 0x1111111111111111ULL);
	put64(tgt + 16, 42);
	advance(&e, 4096ULL << 10);
	expect_cqe(a, true, ORDMA_CQE_OP_ATOMIC_WRITE, ORDMA_CQE_SUCCESS, 8, 1);
	CHECK_EQ(get64(tgt + 16), 42);
	CHECK_EQ(fwqp(b)->counters.duplicate_requests, 1);
	env_close(&e);
}

/* An ATOMIC WRITE the responder refuses: memory unchanged, both in ERR */
static void aw_error(uint32_t qp_access, bool mr2, bool bad_key,
		     uint64_t raddr, uint8_t a_status, uint8_t b_event)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;
	uint8_t *guard;

	default_cfg(&c);
	c.access = qp_access;
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	guard = mem(b, MR1_ADDR + MR1_LEN - 64, 128);
	memset(guard, 0x5a, 128);
	aw_wr(&w, raddr, (mr2 ? b->key2 : b->key1) ^ (bad_key ? 1 : 0),
	      0x0123456789abcdefULL);
	post(a, &w);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_ATOMIC_WRITE, a_status, 0, 0);
	CHECK_EQ(qp_state(a), ORDMA_QPS_ERR);
	CHECK_EQ(qp_state(b), ORDMA_QPS_ERR);
	CHECK(has_event(b, b_event, b->qpn));
	{
		uint8_t want[128];

		memset(want, 0x5a, sizeof(want));
		/* the last 64 bytes of MR1 and the first 64 of MR2 */
		CHECK(!memcmp(guard, want, sizeof(want)));
	}
	env_close(&e);
}

TEST(test_tp_rc_atomic_write_errors)
{
	const uint32_t all = ORDMA_ACCESS_REMOTE_WRITE |
			     ORDMA_ACCESS_REMOTE_READ |
			     ORDMA_ACCESS_REMOTE_ATOMIC;

	/* misaligned: invalid request */
	aw_error(all, false, false, MR1_ADDR + MR1_LEN - 60,
		 ORDMA_CQE_REM_INV_REQ_ERR, ORDMA_EQE_QP_REQ_ERR);
	/* bad rkey, beyond the MR, MR without REMOTE_WRITE */
	aw_error(all, false, true, MR1_ADDR + MR1_LEN - 64,
		 ORDMA_CQE_REM_ACCESS_ERR, ORDMA_EQE_QP_ACCESS_ERR);
	aw_error(all, false, false, MR1_ADDR + MR1_LEN - 4,
		 ORDMA_CQE_REM_ACCESS_ERR, ORDMA_EQE_QP_ACCESS_ERR);
	aw_error(all, true, false, MR2_ADDR, ORDMA_CQE_REM_ACCESS_ERR,
		 ORDMA_EQE_QP_ACCESS_ERR);
	/* the QP grants atomics and reads but not remote write */
	aw_error(ORDMA_ACCESS_REMOTE_READ | ORDMA_ACCESS_REMOTE_ATOMIC, false,
		 false, MR1_ADDR + MR1_LEN - 64, ORDMA_CQE_REM_INV_REQ_ERR,
		 ORDMA_EQE_QP_REQ_ERR);
}

/* Hand-made requests with bad FETH or ATOMIC WRITE lengths are NAKed */
TEST(test_tp_rc_flush_bad_frames)
{
	static const struct {
		uint8_t opcode, plt, sel;
		uint32_t dma_len;
		size_t plen;
	} cases[] = {
		{ FW_ROCE_RC_FLUSH, 0, 0, 8, 0 },	/* no placement */
		{ FW_ROCE_RC_FLUSH, 4, 0, 8, 0 },	/* unknown type */
		{ FW_ROCE_RC_FLUSH, 1, 2, 8, 0 },	/* unknown level */
		{ FW_ROCE_RC_ATOMIC_WRITE, 0, 0, 16, 8 },	/* dma_len */
		{ FW_ROCE_RC_ATOMIC_WRITE, 0, 0, 8, 4 },	/* payload */
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fw_roce_hdrs h;
		struct env e;
		struct side *a, *b;
		struct tcfg c;
		uint8_t frame[256], pay[8] = { 0 };
		size_t len;

		flush_cfg(&c);
		REQUIRE(env_open(&e, &c));
		a = &e.s[0];
		b = &e.s[1];
		/* a real frame of A as the template: addresses, QPN, PSN */
		{
			struct wr w;
			size_t plen;

			aw_wr(&w, MR1_ADDR, b->key1, 0);
			e.l[0].drop_nth = 1;
			post(a, &w);
			REQUIRE(last_frame(a, &h, &plen));
		}
		h.opcode = cases[i].opcode;
		h.feth.placement = cases[i].plt;
		h.feth.level = cases[i].sel;
		h.reth.dma_len = cases[i].dma_len;
		h.reth.rkey = b->key1;
		h.reth.va = MR1_ADDR;
		h.udp_sport = 0;
		len = fw_roce_build(frame, sizeof(frame), &h, pay,
				    cases[i].plen);
		REQUIRE(len);
		ordma_fw_rx_frame(b->d.fw, frame, len);
		CHECK_EQ(qp_state(b), ORDMA_QPS_ERR);
		CHECK(has_event(b, ORDMA_EQE_QP_REQ_ERR, b->qpn));
		{
			struct fw_roce_hdrs r;
			size_t plen;

			if (last_frame(b, &r, &plen)) {
				CHECK_EQ(r.opcode, FW_ROCE_RC_ACKNOWLEDGE);
				CHECK_EQ(r.aeth.syndrome,
					 fw_aeth_nak(FW_AETH_NAK_INVALID_REQ));
			}
		}
		env_close(&e);
	}
}

/* An answer to a FLUSH that carries payload is a bad response */
TEST(test_tp_rc_flush_bad_response)
{
	struct fw_roce_hdrs h;
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;
	uint8_t frame[256], pay[4] = { 1, 2, 3, 4 };
	size_t plen, len;
	uint32_t key3;

	flush_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	key3 = flush_mr(b, ORDMA_ACCESS_LOCAL_WRITE | ORDMA_ACCESS_REMOTE_WRITE |
			ORDMA_ACCESS_FLUSH_GLOBAL);
	e.l[1].drop_nth = 1;
	flush_wr(&w, FL_ADDR, key3, 8, ORDMA_FLUSH_GLOBAL,
		 ORDMA_FLUSH_LEVEL_RANGE);
	post(a, &w);
	pump(&e);
	no_cqe(a, true);
	/* B's answer (lost on the wire), now with 4 bytes of payload */
	REQUIRE(last_frame(b, &h, &plen));
	CHECK_EQ(h.opcode, FW_ROCE_RC_RDMA_READ_RESPONSE_ONLY);
	h.udp_sport = 0;
	len = fw_roce_build(frame, sizeof(frame), &h, pay, sizeof(pay));
	REQUIRE(len);
	ordma_fw_rx_frame(a->d.fw, frame, len);
	expect_cqe(a, true, ORDMA_CQE_OP_FLUSH, ORDMA_CQE_BAD_RESP_ERR, 0, 0);
	CHECK_EQ(qp_state(a), ORDMA_QPS_ERR);
	env_close(&e);
}
