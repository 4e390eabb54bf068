// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The engine as a whole: received garbage and the drop counters, the
 * internal loopback, local operations, SQ drain, TX limits, send and
 * receive WQEs read once, many WQEs per doorbell.
 */
#include <stdlib.h>
#include <string.h>

#include "ordma_test.h"
#include "pair.h"

/* ------------------------------------------------------------------ */
/* Robustness                                                          */
/* ------------------------------------------------------------------ */

static uint32_t rng_state = 12345;

static uint32_t rnd(void)
{
	rng_state = rng_state * 1103515245u + 12345u;
	return rng_state >> 8;
}

/* Mutated and truncated frames only ever produce counted drops or NAKs. */
TEST(test_tp_rx_fuzz)
{
	static uint8_t frames[8][2048];
	static size_t lens[8];
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;
	unsigned int i, n = 0, k;
	struct link_frame f;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	/* capture one frame of every kind A sends */
	post_recv(b, MR1_ADDR, 4096);
	wr_init(&w, ORDMA_WQE_SEND_IMM, MR1_ADDR, 1500, a->key1);
	put_wqe(a, &w);
	wr_init(&w, ORDMA_WQE_RDMA_WRITE, MR1_ADDR, 100, a->key1);
	w.remote_addr = MR1_ADDR + 0x1000;
	w.rkey = b->key1;
	put_wqe(a, &w);
	wr_init(&w, ORDMA_WQE_RDMA_READ, MR1_ADDR + 0x2000, 100, a->key1);
	w.remote_addr = MR1_ADDR + 0x1000;
	w.rkey = b->key1;
	put_wqe(a, &w);
	wr_init(&w, ORDMA_WQE_ATOMIC_FETCH_ADD, MR1_ADDR + 0x3000, 8, a->key1);
	w.remote_addr = MR1_ADDR + 0x1000;
	w.rkey = b->key1;
	put_wqe(a, &w);
	ring_sq(a);
	while (n < 8 && link_pop(&e.l[0], &f)) {
		memcpy(frames[n], f.data, f.len < 2048 ? f.len : 2048);
		lens[n++] = f.len < 2048 ? f.len : 2048;
		ordma_fw_rx_frame(b->d.fw, f.data, f.len);
		free(f.data);
	}
	REQUIRE(n >= 4);
	pump(&e);
	for (i = 0; i < 4000; i++) {
		uint8_t buf[2048];
		size_t len;
		unsigned int m = rnd() % n;

		len = lens[m];
		memcpy(buf, frames[m], len);
		for (k = rnd() % 4 + 1; k; k--)
			buf[14 + rnd() % (len - 14)] ^= (uint8_t)(1u << (rnd() % 8));
		if (rnd() % 3 == 0)
			len = 14 + rnd() % (len - 14);
		ordma_fw_rx_frame(b->d.fw, buf, len);
		ordma_fw_rx_frame(a->d.fw, buf, len);
		pump(&e);
	}
	/* every frame steered to the engine was handled (no crash) and
	 * the ones with a broken ICRC/header were counted drops
	 */
	CHECK(stats(b).roce_rx_drop > 3000);
	CHECK(stats(b).roce_rx_parse_drop[ORDMA_ROCE_PARSE_ICRC] > 0);
	env_close(&e);
}

/* Frames for a QP in the wrong state or a QP that does not exist */
TEST(test_tp_rx_drops)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;
	struct link_frame f;
	struct ordma_qp_attr at;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	post_recv(b, MR1_ADDR, 4096);
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 10, a->key1);
	post(a, &w);
	REQUIRE(link_pop(&e.l[0], &f));
	/* B to ERR: the frame is a state drop */
	memset(&at, 0, sizeof(at));
	at.attr_mask = cpu_to_le32(A(STATE));
	at.state = ORDMA_QPS_ERR;
	REQUIRE_EQ(drv_modify_qp(&b->d, b->qpn, &at), OK);
	ordma_fw_rx_frame(b->d.fw, f.data, f.len);
	CHECK_EQ(drops(b, ORDMA_ROCE_RX_DROP_STATE), 1);
	/* destroyed: no such QP */
	REQUIRE_EQ(drv_handle_cmd(&b->d, ORDMA_CMD_DESTROY_QP, b->qpn, 0), OK);
	ordma_fw_rx_frame(b->d.fw, f.data, f.len);
	CHECK_EQ(drops(b, ORDMA_ROCE_RX_DROP_NO_QP), 1);
	CHECK_EQ(stats(b).roce_rx_drop, 2);
	free(f.data);
	/* A gives up after its retries; the link being down changes nothing */
	ordma_fw_set_link(a->d.fw, false);
	advance(&e, 4096ULL << 10);
	CHECK_EQ(stats(a).tx_drop_link_down, 1);
	env_close(&e);
}

/* ------------------------------------------------------------------ */
/* Invalidation, fast registration                                     */
/* ------------------------------------------------------------------ */
/* Internal loopback                                                   */
/* ------------------------------------------------------------------ */

struct lb_qp {
	uint32_t qpn, sq_pi, rq_pi;
	unsigned int area;
};

/* Make side s act as QP q (the loopback test has two QPs on one side). */
static void lb_use(struct side *s, struct lb_qp *cur, struct lb_qp *q)
{
	if (cur) {
		cur->sq_pi = s->sq_pi;
		cur->rq_pi = s->rq_pi;
	}
	s->qpn = q->qpn;
	s->sq_pi = q->sq_pi;
	s->rq_pi = q->rq_pi;
	s->wq_area = q->area;
}

/*
 * Two RC QPs of one device connected to each other: the frames go through
 * the device's internal loopback (never onto the wire) and are received
 * from the device timer, not inside the doorbell that sent them.
 */
TEST(test_tp_loopback)
{
	static const uint8_t path[] = { ORDMA_QPS_INIT, ORDMA_QPS_RTR,
					ORDMA_QPS_RTS };
	const uint32_t len = 5000;	/* 5 packets at MTU 1024 */
	struct lb_qp q[2] = { { .area = QP_AREA }, { .area = QP_AREA + 2 } };
	struct side s, peer;
	struct ordma_port_stats st;
	struct tcfg c;
	struct wr w;
	size_t k;
	int i;

	default_cfg(&c);
	memset(&s, 0, sizeof(s));
	REQUIRE(side_open(&s, 0, &c));
	for (i = 0; i < 2; i++) {
		struct ordma_qp_create_params p;

		memset(drv_mem(&s.d, DRV_WQ_ADDR(q[i].area), 0x10000), 0,
		       0x10000);
		drv_qp_params(&p, 0, s.pdn, ORDMA_QPT_RC, s.scq.cqn, s.rcq.cqn,
			      ORDMA_NO_SRQ, q[i].area);
		p.sq_log_size = SQ_LOG;
		p.sq_wqe_shift = SQ_SHIFT;
		p.rq_log_size = RQ_LOG;
		p.rq_wqe_shift = RQ_SHIFT;
		drv_page_list_contig(&p.sq, DRV_WQ_ADDR(q[i].area),
				     (1u << SQ_LOG) << SQ_SHIFT);
		drv_page_list_contig(&p.rq, DRV_WQ_ADDR(q[i].area) + 0x8000,
				     (1u << RQ_LOG) << RQ_SHIFT);
		REQUIRE(drv_create_qp(&s.d, &p, &q[i].qpn) == OK);
	}
	/* the peer of each QP is the other QP at this device's own GID/MAC */
	peer = s;
	for (k = 0; k < sizeof(path); k++)
		for (i = 0; i < 2; i++) {
			struct fw_qp_transition rule;
			struct ordma_qp_attr a;
			uint32_t mask;

			fw_qp_transition_rule(ORDMA_QPT_RC,
					      k ? path[k - 1] : ORDMA_QPS_RESET,
					      path[k], &rule);
			mask = rule.required | A(STATE);
			if (path[k] == ORDMA_QPS_RTR)
				mask |= A(MIN_RNR_TIMER) | A(MAX_DEST_RD_ATOMIC);
			if (path[k] == ORDMA_QPS_RTS)
				mask |= A(MAX_QP_RD_ATOMIC) | A(TIMEOUT) |
					A(RETRY_CNT) | A(RNR_RETRY);
			peer.qpn = q[!i].qpn;
			fill_attr(&a, mask, path[k], &c, &s, &peer, i);
			CHECK_EQ(drv_modify_qp(&s.d, q[i].qpn, &a), OK);
		}

	/* SEND q0 -> q1, then q1 READs it back from q0's memory */
	pattern(mem(&s, MR1_ADDR, len), len, 9);
	memset(mem(&s, MR1_ADDR + 0x10000, 2 * len), 0xee, 2 * len);
	lb_use(&s, NULL, &q[1]);
	post_recv(&s, MR1_ADDR + 0x10000, len);
	lb_use(&s, &q[1], &q[0]);
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, len, s.key1);
	post(&s, &w);
	CHECK_EQ(s.d.hal.tx_count, 0);		/* nothing on the wire */
	CHECK(no_cqe(&s, true));		/* nothing received yet */
	fake_advance(&s.d.hal, 1);
	CHECK(expect_cqe(&s, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, len, 0));
	lb_use(&s, &q[0], &q[1]);
	CHECK(expect_cqe(&s, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, len, 0));
	CHECK(!memcmp(mem(&s, MR1_ADDR, len), mem(&s, MR1_ADDR + 0x10000, len),
		      len));

	wr_init(&w, ORDMA_WQE_RDMA_READ, MR1_ADDR + 0x10000 + len, len, s.key1);
	w.remote_addr = MR1_ADDR;
	w.rkey = s.key1;
	post(&s, &w);
	fake_advance(&s.d.hal, 1);
	CHECK(expect_cqe(&s, true, ORDMA_CQE_OP_RDMA_READ, ORDMA_CQE_SUCCESS,
			 len, 0));
	CHECK(!memcmp(mem(&s, MR1_ADDR, len),
		      mem(&s, MR1_ADDR + 0x10000 + len, len), len));
	CHECK_EQ(s.d.hal.tx_count, 0);
	CHECK_EQ(s.d.fw->loopback.drop_full, 0);
	st = stats(&s);
	CHECK_EQ(st.tx_frames, 0);
	CHECK_EQ(st.roce_tx_frames, st.roce_rx_frames);
	CHECK_EQ(st.roce_rx_drop, 0);
	/* SEND: 5 packets and 1 ACK; READ: request and 5 responses */
	CHECK_EQ(st.roce_rx_frames, 12);
	CHECK_EQ(s.d.fw->loopback.frames_looped, 12);
	drv_close(&s.d);
}

/* ------------------------------------------------------------------ */

TEST(test_tp_local_ops)
{
	struct ordma_aq_cmd cmd;
	struct ordma_cqe cqe;
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;
	uint32_t frkey, idx;
	uint64_t *pages;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	/* a fast-reg MR on B, registered by B's own REG_MR WQE */
	drv_cmd_init(&cmd, ORDMA_CMD_REG_MR);
	cmd.reg_mr.pdn = cpu_to_le32(b->pdn);
	cmd.reg_mr.flags = ORDMA_MR_FAST_REG;
	cmd.reg_mr.max_pages = cpu_to_le16(4);
	cmd.reg_mr.key = 0x33;
	REQUIRE_EQ(drv_exec(&b->d, &cmd), OK);
	idx = le32_to_cpu(b->d.last_comp.handle.handle) >> 8;
	frkey = idx << 8 | 0x44;
	pages = (uint64_t *)(void *)mem(b, DRV_SCRATCH_ADDR, 32);
	pages[0] = cpu_to_le64(GUARD_ADDR);
	pages[1] = cpu_to_le64(GUARD_ADDR + 0x1000);
	memset(&w, 0, sizeof(w));
	w.opcode = ORDMA_WQE_REG_MR;
	w.flags = ORDMA_WQE_SIGNALED;
	w.reg.iova = cpu_to_le64(0x7000000000ULL);
	w.reg.length = cpu_to_le64(0x2000);
	w.reg.page_list = cpu_to_le64(DRV_SCRATCH_ADDR);
	w.reg.key = cpu_to_le32(frkey);
	w.reg.num_pages = cpu_to_le16(2);
	w.reg.page_shift = 12;
	w.reg.access = DRV_ACCESS_ALL;
	post(b, &w);
	expect_cqe(b, true, ORDMA_CQE_OP_REG_MR, ORDMA_CQE_SUCCESS, 0, 0);
	/* A writes through it */
	pattern(mem(a, MR1_ADDR, 0x1800), 0x1800, 6);
	wr_init(&w, ORDMA_WQE_RDMA_WRITE, MR1_ADDR, 0x1800, a->key1);
	w.remote_addr = 0x7000000000ULL + 0x400;
	w.rkey = frkey;
	post(a, &w);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_SUCCESS, 0x1800,
		   0);
	CHECK(!memcmp(mem(b, GUARD_ADDR + 0x400, 0x1800), mem(a, MR1_ADDR, 0x1800),
		      0x1800));
	/* SEND_INV invalidates it at B */
	post_recv(b, MR1_ADDR, 64);
	wr_init(&w, ORDMA_WQE_SEND_INV, MR1_ADDR, 16, a->key1);
	w.imm_inv = frkey;
	post(a, &w);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 16, 1);
	REQUIRE(cqe_next(b, false, &cqe));
	CHECK_EQ(cqe.status, ORDMA_CQE_SUCCESS);
	CHECK_EQ(le16_to_cpu(cqe.flags), ORDMA_CQE_F_INV);
	CHECK_EQ(le32_to_cpu(cqe.imm_inv), frkey);
	{
		struct fw_mr *mr;

		CHECK_EQ(fw_mr_lookup(b->d.fw, frkey, b->pdn,
				      0x7000000000ULL, 1, 0, &mr),
			 FW_MR_ERR_KEY);
	}
	/* register again, then LOCAL_INV on B's own SQ */
	memset(&w, 0, sizeof(w));
	w.opcode = ORDMA_WQE_REG_MR;
	w.reg.iova = cpu_to_le64(0x7000000000ULL);
	w.reg.length = cpu_to_le64(0x2000);
	w.reg.page_list = cpu_to_le64(DRV_SCRATCH_ADDR);
	w.reg.key = cpu_to_le32(frkey);
	w.reg.num_pages = cpu_to_le16(2);
	w.reg.page_shift = 12;
	w.reg.access = DRV_ACCESS_ALL;
	post(b, &w);
	memset(&w, 0, sizeof(w));
	w.opcode = ORDMA_WQE_LOCAL_INV;
	w.flags = ORDMA_WQE_SIGNALED;
	w.imm_inv = frkey;
	post(b, &w);
	expect_cqe(b, true, ORDMA_CQE_OP_LOCAL_INV, ORDMA_CQE_SUCCESS, 0, 2);
	/* writing through it now is a remote access error */
	wr_init(&w, ORDMA_WQE_RDMA_WRITE, MR1_ADDR, 16, a->key1);
	w.remote_addr = 0x7000000000ULL;
	w.rkey = frkey;
	post(a, &w);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_REM_ACCESS_ERR, 0,
		   2);
	env_close(&e);
}

/* SQD: in-flight WQEs finish, new ones wait, the drain event follows */
TEST(test_tp_sqd_drain)
{
	struct ordma_qp_attr at;
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	post_recv(b, MR1_ADDR, 4096);
	post_recv(b, MR1_ADDR, 4096);
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 3000, a->key1);
	post(a, &w);
	memset(&at, 0, sizeof(at));
	at.attr_mask = cpu_to_le32(A(STATE) | A(EN_SQD_ASYNC));
	at.state = ORDMA_QPS_SQD;
	at.en_sqd_async_notify = 1;
	REQUIRE_EQ(drv_modify_qp(&a->d, a->qpn, &at), OK);
	post(a, &w);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 3000, 0);
	no_cqe(a, true);
	CHECK(has_event(a, ORDMA_EQE_QP_SQ_DRAINED, a->qpn));
	at.attr_mask = cpu_to_le32(A(STATE));
	at.state = ORDMA_QPS_RTS;
	at.en_sqd_async_notify = 0;
	REQUIRE_EQ(drv_modify_qp(&a->d, a->qpn, &at), OK);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 3000, 1);
	env_close(&e);
}

/* Frames above the port MTU are not sent (counted), the peer sees none */
TEST(test_tp_tx_mtu_and_link)
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
	/* the path MTU (1024) was checked against the port at RTR; the
	 * port MTU shrinks afterwards
	 */
	REQUIRE_EQ(drv_set_port(&a->d, ORDMA_SET_PORT_MTU, 600, NULL, 0, 0), OK);
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 1000, a->key1);
	post(a, &w);
	CHECK_EQ(e.l[0].sent, 0);
	CHECK_EQ(stats(a).roce_tx_drop[ORDMA_ROCE_TX_DROP_TOO_LONG], 1);
	CHECK_EQ(stats(a).roce_tx_frames, 0);
	/* back to 1500: the retransmission after the timeout goes out */
	REQUIRE_EQ(drv_set_port(&a->d, ORDMA_SET_PORT_MTU, 1500, NULL, 0, 0),
		   OK);
	advance(&e, 4096ULL << 10);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, 1000, 0);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 1000, 0);
	/* link down: frames are not sent and counted */
	ordma_fw_set_link(a->d.fw, false);
	post_recv(b, MR1_ADDR, 4096);
	post(a, &w);
	CHECK_EQ(stats(a).roce_tx_drop[ORDMA_ROCE_TX_DROP_LINK_DOWN], 1);
	CHECK_EQ(stats(a).tx_drop_link_down, 1);
	ordma_fw_set_link(a->d.fw, true);
	advance(&e, 4096ULL << 10);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 1000, 1);
	env_close(&e);
}

/* ------------------------------------------------------------------ */
/* The device reads a send WQE once                                    */
/* ------------------------------------------------------------------ */

enum wqe_rewrite {
	REWRITE_INLINE,		/* INLINE set, inline_len far past 256 */
	REWRITE_NUM_SGE,	/* NUM_SGE 31, a 1-byte SGE in MR2 */
	REWRITE_SGE_ADDR,	/* the SGE moved to other bytes */
	REWRITE_NUM,
};

#define REWRITE_OTHER	(MR1_ADDR + 0xc0000)	/* bytes nobody sends */

/* What a process may do to its own SQ after ringing the doorbell */
static void rewrite_wqe(struct side *s, uint32_t index, enum wqe_rewrite how)
{
	uint8_t *p = mem(s, DRV_WQ_ADDR(wq_area(s)) +
			 ((uint64_t)(index & ((1u << SQ_LOG) - 1)) << SQ_SHIFT),
			 1u << SQ_SHIFT);
	struct ordma_send_wqe *q = (struct ordma_send_wqe *)p;
	struct ordma_sge *g = (struct ordma_sge *)(p + ORDMA_SEND_WQE_HDR_SIZE);
	uint32_t ctrl = le32_to_cpu(q->ctrl.ctrl);

	switch (how) {
	case REWRITE_INLINE:
		ctrl |= ORDMA_WQE_INLINE;
		q->ctrl.inline_len = cpu_to_le32(0x7ffff000);
		break;
	case REWRITE_NUM_SGE:
		ctrl = (ctrl & ~ORDMA_WQE_NUM_SGE) |
		       FIELD_PREP(ORDMA_WQE_NUM_SGE, 31);
		sge(&g[0], MR2_ADDR, 1, s->key2);
		memset(g + 1, 0, (1u << SQ_SHIFT) - ORDMA_SEND_WQE_HDR_SIZE -
		       sizeof(*g));
		break;
	default:
		g[0].addr = cpu_to_le64(REWRITE_OTHER);
		break;
	}
	q->ctrl.ctrl = cpu_to_le32(ctrl);
}

/*
 * RC SEND of a window and 36 packets more (MTU 256): a window leaves with
 * the doorbell, then the WQE is rewritten; the rest and the
 * retransmission of a lost packet still carry the bytes the WQE named
 * when it was posted.
 */
static void reread_rc_send(enum wqe_rewrite how)
{
	const uint32_t len = (FW_TP_WINDOW + 36) * 256 - 10;
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;

	default_cfg(&c);
	c.path_mtu = 1;
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	pattern(mem(a, MR1_ADDR, len), len, 9);
	memset(mem(a, REWRITE_OTHER, len), 0x5a, len);
	memset(mem(b, MR1_ADDR, len + 64), 0xee, len + 64);
	post_recv(b, MR1_ADDR, len + 64);
	e.l[0].drop_nth = 5;
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, len, a->key1);
	post(a, &w);
	CHECK_EQ(e.l[0].sent, FW_TP_WINDOW);
	rewrite_wqe(a, 0, how);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, len, 0);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, len, 0);
	CHECK(!memcmp(mem(b, MR1_ADDR, len), mem(a, MR1_ADDR, len), len));
	CHECK_EQ(mem(b, MR1_ADDR + len, 1)[0], 0xee);
	CHECK(fwqp(a)->counters.retransmits >= 1);
	CHECK_EQ(stats(a).roce_tx_drop[ORDMA_ROCE_TX_DROP_BUILD], 0);
	CHECK_EQ(qp_state(a), ORDMA_QPS_RTS);
	env_close(&e);
}

/* UC WRITE of 40 packets: 16 leave with the doorbell, 24 paced later */
static void reread_uc_write(enum wqe_rewrite how)
{
	const uint32_t len = 40 * 1024 - 100;
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;

	uc_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	pattern(mem(a, MR1_ADDR, len), len, 4);
	memset(mem(a, REWRITE_OTHER, len), 0x5a, len);
	memset(mem(b, MR1_ADDR + 0x40000, len + 64), 0, len + 64);
	wr_init(&w, ORDMA_WQE_RDMA_WRITE, MR1_ADDR, len, a->key1);
	w.remote_addr = MR1_ADDR + 0x40000;
	w.rkey = b->key1;
	post(a, &w);
	CHECK_EQ(e.l[0].sent, FW_TP_UC_BURST);
	rewrite_wqe(a, 0, how);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_SUCCESS, len, 0);
	CHECK_EQ(e.l[0].sent, 40);
	CHECK(!memcmp(mem(b, MR1_ADDR + 0x40000, len), mem(a, MR1_ADDR, len),
		      len));
	CHECK_EQ(mem(b, MR1_ADDR + 0x40000 + len, 1)[0], 0);
	CHECK_EQ(drops(b, ORDMA_ROCE_RX_DROP_BAD_REQ), 0);
	uc_quiet(&e);
	env_close(&e);
}

TEST(test_tp_wqe_rewrite_rc_send)
{
	int how;

	for (how = 0; how < REWRITE_NUM; how++) {
		NOTE("rewrite %d", how);
		reread_rc_send((enum wqe_rewrite)how);
	}
}

TEST(test_tp_wqe_rewrite_uc_write)
{
	int how;

	for (how = 0; how < REWRITE_NUM; how++) {
		NOTE("rewrite %d", how);
		reread_uc_write((enum wqe_rewrite)how);
	}
}

/* READ responses and the atomic result land where the WQE said at start */
TEST(test_tp_wqe_rewrite_read_atomic)
{
	const uint32_t len = 6000;
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;
	int how;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	pattern(mem(b, MR1_ADDR + 0x80000, len), len, 5);
	put64(mem(b, MR1_ADDR + 0x100, 8), 1000);
	for (how = 0; how < REWRITE_NUM; how++) {
		uint32_t index = a->sq_pi;

		NOTE("rewrite %d", how);
		memset(mem(a, MR1_ADDR + 0x90000, len + 64), 0, len + 64);
		memset(mem(a, REWRITE_OTHER, len), 0x5a, len);
		memset(mem(a, MR2_ADDR, 16), 0x5a, 16);
		wr_init(&w, ORDMA_WQE_RDMA_READ, MR1_ADDR + 0x90000, len,
			a->key1);
		w.remote_addr = MR1_ADDR + 0x80000;
		w.rkey = b->key1;
		post(a, &w);
		rewrite_wqe(a, index, how);
		pump(&e);
		expect_cqe(a, true, ORDMA_CQE_OP_RDMA_READ, ORDMA_CQE_SUCCESS,
			   len, index);
		CHECK(!memcmp(mem(a, MR1_ADDR + 0x90000, len),
			      mem(b, MR1_ADDR + 0x80000, len), len));
		CHECK_EQ(mem(a, MR1_ADDR + 0x90000 + len, 1)[0], 0);
		CHECK(all_bytes(mem(a, REWRITE_OTHER, len), len, 0x5a));
		CHECK(all_bytes(mem(a, MR2_ADDR, 16), 16, 0x5a));

		index = a->sq_pi;
		memset(mem(a, MR1_ADDR + 0x200, 8), 0, 8);
		wr_init(&w, ORDMA_WQE_ATOMIC_FETCH_ADD, MR1_ADDR + 0x200, 8,
			a->key1);
		w.remote_addr = MR1_ADDR + 0x100;
		w.rkey = b->key1;
		w.compare_add = 1;
		post(a, &w);
		rewrite_wqe(a, index, how);
		pump(&e);
		expect_cqe(a, true, ORDMA_CQE_OP_FETCH_ADD, ORDMA_CQE_SUCCESS,
			   8, index);
		CHECK_EQ(get64(mem(a, MR1_ADDR + 0x200, 8)), 1000u + how);
		CHECK(all_bytes(mem(a, REWRITE_OTHER, 8), 8, 0x5a));
		CHECK(all_bytes(mem(a, MR2_ADDR, 16), 16, 0x5a));
	}
	CHECK_EQ(get64(mem(b, MR1_ADDR + 0x100, 8)), 1000u + REWRITE_NUM);
	CHECK_EQ(qp_state(a), ORDMA_QPS_RTS);
	env_close(&e);
}

/*
 * A receive WQE is read once, when the first packet takes it: rewriting
 * it (NUM_SGE 31, the SGE moved to MR2) between packets of the message
 * changes nothing.
 */
static void recv_rewrite_case(bool srq)
{
	const uint32_t len = 20 * 256;
	struct env e;
	struct side *a, *b;
	struct ordma_recv_wqe *r;
	struct ordma_sge *g;
	struct link_frame f;
	struct tcfg c;
	struct wr w;
	uint8_t *p;

	default_cfg(&c);
	c.path_mtu = 1;
	c.srq_b = srq;
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	pattern(mem(a, MR1_ADDR, len), len, 11);
	memset(mem(b, MR1_ADDR, len + 64), 0xee, len + 64);
	memset(mem(b, MR2_ADDR, len), 0x5a, len);
	if (srq) {
		post_srq(b, MR1_ADDR, len + 64);
		p = mem(b, DRV_WQ_ADDR(QP_AREA + 1), 32);
	} else {
		post_recv(b, MR1_ADDR, len + 64);
		p = mem(b, DRV_WQ_ADDR(QP_AREA) + 0x8000, 1u << RQ_SHIFT);
	}
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, len, a->key1);
	post(a, &w);
	REQUIRE(link_pop(&e.l[0], &f));
	ordma_fw_rx_frame(b->d.fw, f.data, f.len);
	free(f.data);
	r = (struct ordma_recv_wqe *)p;
	g = (struct ordma_sge *)(p + sizeof(*r));
	r->num_sge = cpu_to_le32(31);
	sge(g, MR2_ADDR, len, b->key2);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, len, 0);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, len, 0);
	CHECK(!memcmp(mem(b, MR1_ADDR, len), mem(a, MR1_ADDR, len), len));
	CHECK_EQ(mem(b, MR1_ADDR + len, 1)[0], 0xee);
	CHECK(all_bytes(mem(b, MR2_ADDR, len), len, 0x5a));
	CHECK_EQ(qp_state(b), ORDMA_QPS_RTS);
	env_close(&e);
}

TEST(test_tp_recv_wqe_rewrite)
{
	recv_rewrite_case(false);
	recv_rewrite_case(true);
}

/* ------------------------------------------------------------------ */
/* More WQEs than start at once, one doorbell                          */
/* ------------------------------------------------------------------ */

#define MANY_WQES	40

TEST(test_tp_many_wqes_ud)
{
	struct ordma_cqe cqe;
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;
	uint32_t ah, i;

	default_cfg(&c);
	c.type = ORDMA_QPT_UD;
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	REQUIRE_EQ(create_ah(a, b, &ah), OK);
	pattern(mem(a, MR1_ADDR, 64 * MANY_WQES), 64 * MANY_WQES, 2);
	for (i = 0; i < MANY_WQES; i++)
		post_recv(b, MR1_ADDR + 0x10000 + i * 128, 128);
	for (i = 0; i < MANY_WQES; i++) {
		wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR + i * 64, 64, a->key1);
		w.ah = ah;
		w.remote_qpn = b->qpn;
		w.remote_qkey = 0x1234;
		put_wqe(a, &w);
	}
	ring_sq(a);
	CHECK_EQ(e.l[0].sent, MANY_WQES);
	for (i = 0; i < MANY_WQES; i++)
		if (!expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS,
				64, i))
			break;
	no_cqe(a, true);
	pump(&e);
	for (i = 0; i < MANY_WQES; i++) {
		if (!CHECK(cqe_next(b, false, &cqe)))
			break;
		CHECK_EQ(cqe.status, ORDMA_CQE_SUCCESS);
		CHECK(!memcmp(mem(b, MR1_ADDR + 0x10000 + i * 128 + 40, 64),
			      mem(a, MR1_ADDR + i * 64, 64), 64));
	}
	CHECK_EQ(fwqp(a)->sq.ci, MANY_WQES);
	env_close(&e);
}

/* REG_MR and LOCAL_INV of one fast-reg MR, alternating */
TEST(test_tp_many_wqes_local)
{
	struct ordma_aq_cmd cmd;
	struct env e;
	struct side *b;
	struct tcfg c;
	struct wr w;
	uint32_t frkey, i;
	uint64_t *pages;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	b = &e.s[1];
	drv_cmd_init(&cmd, ORDMA_CMD_REG_MR);
	cmd.reg_mr.pdn = cpu_to_le32(b->pdn);
	cmd.reg_mr.flags = ORDMA_MR_FAST_REG;
	cmd.reg_mr.max_pages = cpu_to_le16(4);
	cmd.reg_mr.key = 0x33;
	REQUIRE_EQ(drv_exec(&b->d, &cmd), OK);
	frkey = le32_to_cpu(b->d.last_comp.handle.handle);
	pages = (uint64_t *)(void *)mem(b, DRV_SCRATCH_ADDR, 16);
	pages[0] = cpu_to_le64(GUARD_ADDR);
	pages[1] = cpu_to_le64(GUARD_ADDR + 0x1000);
	for (i = 0; i < MANY_WQES; i++) {
		memset(&w, 0, sizeof(w));
		w.flags = ORDMA_WQE_SIGNALED;
		if (i % 2) {
			w.opcode = ORDMA_WQE_LOCAL_INV;
			w.imm_inv = frkey;
		} else {
			w.opcode = ORDMA_WQE_REG_MR;
			w.reg.iova = cpu_to_le64(0x7000000000ULL);
			w.reg.length = cpu_to_le64(0x2000);
			w.reg.page_list = cpu_to_le64(DRV_SCRATCH_ADDR);
			w.reg.key = cpu_to_le32(frkey);
			w.reg.num_pages = cpu_to_le16(2);
			w.reg.page_shift = 12;
			w.reg.access = DRV_ACCESS_ALL;
		}
		put_wqe(b, &w);
	}
	ring_sq(b);
	for (i = 0; i < MANY_WQES; i++)
		if (!expect_cqe(b, true, i % 2 ? ORDMA_CQE_OP_LOCAL_INV :
				ORDMA_CQE_OP_REG_MR, ORDMA_CQE_SUCCESS, 0, i))
			break;
	no_cqe(b, true);
	CHECK_EQ(fwqp(b)->sq.ci, MANY_WQES);
	CHECK_EQ(qp_state(b), ORDMA_QPS_RTS);
	env_close(&e);
}

/*
 * RC: 32 SENDs start, one ACK covers them all (the others were lost);
 * the 8 that waited for a slot start on that ACK.
 */
TEST(test_tp_many_wqes_rc)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct link_frame f;
	struct wr w;
	uint32_t i;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	pattern(mem(a, MR1_ADDR, 64 * MANY_WQES), 64 * MANY_WQES, 7);
	for (i = 0; i < MANY_WQES; i++)
		post_recv(b, MR1_ADDR + 0x10000 + i * 64, 64);
	for (i = 0; i < MANY_WQES; i++) {
		wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR + i * 64, 64, a->key1);
		put_wqe(a, &w);
	}
	ring_sq(a);
	CHECK_EQ(e.l[0].sent, FW_TP_MAX_WQE);
	while (link_pop(&e.l[0], &f)) {
		ordma_fw_rx_frame(b->d.fw, f.data, f.len);
		free(f.data);
	}
	/* keep only the newest ACK: it acknowledges every PSN before it */
	while (e.l[1].tail - e.l[1].head > 1 && link_pop(&e.l[1], &f))
		free(f.data);
	pump(&e);
	for (i = 0; i < MANY_WQES; i++)
		if (!expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS,
				64, i))
			break;
	no_cqe(a, true);
	CHECK_EQ(e.l[0].sent, MANY_WQES);
	CHECK(!memcmp(mem(b, MR1_ADDR + 0x10000, 64 * MANY_WQES),
		      mem(a, MR1_ADDR, 64 * MANY_WQES), 64 * MANY_WQES));
	env_close(&e);
}
