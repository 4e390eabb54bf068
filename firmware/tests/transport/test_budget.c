// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The device-wide budget of RC PSNs in flight: what one QP, one user
 * context and the kernel's QPs may hold, and that a QP whose peer answers
 * with RNR NAKs for ever takes none of it from the others.
 */
#include <stdlib.h>
#include <string.h>

#include "ordma_test.h"
#include "pair.h"

/*
 * The budget: while other QPs hold all of it, a QP with nothing in
 * flight sends one packet, asking for its ACK, and the next only once
 * that ACK is back; what it held goes back when it completes.
 */
TEST(test_tp_device_budget_shared_by_qps)
{
	const uint32_t others = FW_TP_DEVICE_OUTSTANDING;
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;
	int i;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	a->d.fw->tp_outstanding = others;
	for (i = 0; i < 2; i++) {
		post_recv(b, MR1_ADDR + 0x10000 * (i + 1), 4096);
		wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR + 4096 * i, 4096, a->key1);
		post(a, &w);
	}
	CHECK_EQ(e.l[0].sent, 1);
	CHECK_EQ(a->d.fw->tp_outstanding, others + 1);
	/* a SEND First asks for its ACK: one packet per round trip */
	link_deliver(&e.l[0], b->d.fw);
	CHECK_EQ(e.l[1].sent, 1);
	link_deliver(&e.l[1], a->d.fw);
	CHECK_EQ(e.l[0].sent, 2);
	pump(&e);
	for (i = 0; i < 2; i++)
		CHECK(expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS,
				 4096, i));
	CHECK_EQ(e.l[0].sent, 8);
	CHECK_EQ(e.l[1].sent, 8);
	CHECK_EQ(a->d.fw->tp_outstanding, others);
	a->d.fw->tp_outstanding = 0;
	env_close(&e);
}

/* A QP that leaves RTS gives back what it held, completed or not. */
TEST(test_tp_device_budget_released_on_error_and_reset)
{
	struct env e;
	struct side *a;
	struct tcfg c;
	struct wr w;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	wr_init(&w, ORDMA_WQE_RDMA_WRITE, MR1_ADDR, 8192, a->key1);
	w.remote_addr = MR1_ADDR;
	w.rkey = e.s[1].key1;
	post(a, &w);
	CHECK_EQ(a->d.fw->tp_outstanding, 8);
	CHECK_EQ(qp_step(&e, 0, ORDMA_QPS_RTS, ORDMA_QPS_ERR, &c), OK);
	CHECK_EQ(a->d.fw->tp_outstanding, 0);

	CHECK_EQ(qp_step(&e, 0, ORDMA_QPS_ERR, ORDMA_QPS_RESET, &c), OK);
	a->sq_pi = 0;			/* RESET emptied the SQ */
	CHECK_EQ(qp_step(&e, 0, ORDMA_QPS_RESET, ORDMA_QPS_INIT, &c), OK);
	CHECK_EQ(qp_step(&e, 0, ORDMA_QPS_INIT, ORDMA_QPS_RTR, &c), OK);
	CHECK_EQ(qp_step(&e, 0, ORDMA_QPS_RTR, ORDMA_QPS_RTS, &c), OK);
	post(a, &w);
	CHECK_EQ(a->d.fw->tp_outstanding, 8);
	CHECK_EQ(qp_step(&e, 0, ORDMA_QPS_RTS, ORDMA_QPS_RESET, &c), OK);
	CHECK_EQ(a->d.fw->tp_outstanding, 0);
	env_close(&e);
}

/*
 * What a QP is charged: the packets it sent since its last go-back and
 * has not seen acknowledged.  Nothing while it waits for an RNR timer;
 * packets a timeout sends again are not charged twice.
 */
TEST(test_tp_device_budget_counts_in_flight)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;

	default_cfg(&c);
	c.rnr_retry = 7;
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	/* B has no receive: the first packet is answered by an RNR NAK */
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 8192, a->key1);
	post(a, &w);
	CHECK_EQ(e.l[0].sent, 8);
	CHECK_EQ(a->d.fw->tp_outstanding, 8);
	while (link_deliver(&e.l[0], b->d.fw))
		;
	while (link_deliver(&e.l[1], a->d.fw))
		;
	CHECK(fwqp(a)->req.rnr_deadline != 0);
	CHECK_EQ(fwqp(a)->counters.rnr_naks_received, 1);
	CHECK_EQ(a->d.fw->tp_outstanding, 0);
	/* the RNR timer: the NAKed packet again, with a window of one */
	fake_advance(&a->d.hal, fw_tp_rnr_ns(c.min_rnr_timer));
	CHECK_EQ(e.l[0].sent, 9);
	CHECK_EQ(a->d.fw->tp_outstanding, 1);
	post_recv(b, MR1_ADDR + 0x10000, 8192);
	pump(&e);
	CHECK(expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 8192,
			 0));
	CHECK_EQ(a->d.fw->tp_outstanding, 0);

	/* lost on the wire: a timeout sends them again, charged once */
	e.l[0].drop_from = e.l[0].sent + 1;
	post_recv(b, MR1_ADDR + 0x10000, 8192);
	post(a, &w);
	CHECK_EQ(a->d.fw->tp_outstanding, 8);
	fake_advance(&a->d.hal, 4096ULL << c.timeout);
	CHECK_EQ(fwqp(a)->counters.timeouts, 1);
	CHECK_EQ(e.l[0].sent, 32);
	CHECK_EQ(a->d.fw->tp_outstanding, 8);
	e.l[0].drop_from = 0;
	fake_advance(&a->d.hal, 4096ULL << c.timeout);
	pump(&e);
	CHECK(expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 8192,
			 1));
	CHECK_EQ(a->d.fw->tp_outstanding, 0);
	env_close(&e);
}

/*
 * A QP that the budget holds back waits for the ACK its last packet
 * asked for: a packet that fills the window asks for one, so the ACK
 * that frees the QP is always on its way, and no retransmission timeout
 * is needed to go on.
 */
TEST(test_tp_device_budget_woken_by_ack)
{
	const uint32_t others = FW_TP_DEVICE_OUTSTANDING;
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	/* 100 packets out: AckReq on the 64th and on the 100th */
	fwqp(a)->req.window = 100;
	wr_init(&w, ORDMA_WQE_RDMA_WRITE, MR1_ADDR, 0x40000, a->key1);
	w.remote_addr = MR1_ADDR;
	w.rkey = b->key1;
	post(a, &w);
	CHECK_EQ(e.l[0].sent, 100);
	while (link_deliver(&e.l[0], b->d.fw))
		;
	CHECK_EQ(e.l[1].sent, 2);
	/* others take the whole budget before the ACKs are back */
	a->d.fw->tp_outstanding += others;
	link_deliver(&e.l[1], a->d.fw);
	CHECK_EQ(e.l[0].sent, 100);
	CHECK_EQ(a->d.fw->tp_outstanding, others + 36);
	/* no timer: the second ACK is coming */
	CHECK_EQ(fwqp(a)->req.pace_deadline, 0);
	a->d.fw->tp_outstanding -= others;
	link_deliver(&e.l[1], a->d.fw);
	CHECK(e.l[0].sent > 100);
	pump(&e);
	CHECK(expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_SUCCESS,
			 0x40000, 0));
	CHECK_EQ(fwqp(a)->counters.timeouts, 0);
	CHECK_EQ(a->d.fw->tp_outstanding, 0);
	env_close(&e);
}

/*
 * A safety net: a QP held back by the budget while packets it sent
 * without AckReq are in flight (the responder may hold back their ACK
 * for up to FW_TP_ACK_EVERY packets) tries again after
 * FW_TP_BUDGET_RETRY_NS rather than wait for a retransmission timeout.
 * The rules above always ask for an ACK before a QP stops, so the state
 * is set up by hand.
 */
TEST(test_tp_device_budget_retry_without_ack)
{
	const uint32_t others = FW_TP_DEVICE_OUTSTANDING;
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	wr_init(&w, ORDMA_WQE_RDMA_WRITE, MR1_ADDR, 0x40000, a->key1);
	w.remote_addr = MR1_ADDR;
	w.rkey = b->key1;
	fwqp(a)->req.window = 10;
	post(a, &w);
	CHECK_EQ(e.l[0].sent, 10);
	/* the last five did not ask for an ACK; the others take the budget */
	fwqp(a)->req.since_ack_req = 5;
	fwqp(a)->req.window = 0;
	a->d.fw->tp_outstanding += others;
	fw_req_progress(a->d.fw, fwqp(a));
	CHECK_EQ(e.l[0].sent, 10);
	CHECK(fwqp(a)->req.pace_deadline != 0);
	a->d.fw->tp_outstanding -= others;
	fake_advance(&a->d.hal, FW_TP_BUDGET_RETRY_NS);
	CHECK(e.l[0].sent > 10);
	pump(&e);
	CHECK(expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_SUCCESS,
			 0x40000, 0));
	CHECK_EQ(fwqp(a)->counters.timeouts, 0);
	CHECK_EQ(a->d.fw->tp_outstanding, 0);
	env_close(&e);
}

/* ------------------------------------------------------------------ */
/* More QPs between the two devices                                    */
/* ------------------------------------------------------------------ */

#define FLOWS_MAX	12
#define ATTACK_LEN	0x100000u	/* 1024 packets at MTU 1024 */
#define ROUND_NS	2000ULL		/* RNR timer (10 us): 5 rounds */
#define ROUNDS		200

/*
 * An RC QP of A in context uctx (its own PD, CQ and MR; 0: the kernel)
 * connected to a kernel QP of B.  A's QP uses WQ area `area` of A, B's
 * the same area of B.
 */
struct flow {
	uint32_t uctx;
	uint32_t pdn, lkey;
	uint32_t a_qpn, b_qpn;
	unsigned int area;
	uint32_t sq_pi;
	uint8_t rnr_retry;
};

/* One user context of A: its PD, a CQ and an MR over MR1 */
struct uctx {
	uint32_t uctx, pdn, lkey;
	struct drv_cq cq;
};

static bool uctx_open(struct side *a, struct uctx *u, unsigned int cq_area,
		      uint8_t key_byte)
{
	return drv_alloc_uctx(&a->d, &u->uctx) == OK &&
	       drv_alloc_pd(&a->d, u->uctx, &u->pdn) == OK &&
	       drv_cq_open(&a->d, &u->cq, cq_area, u->uctx, a->comp.eqn, 10) &&
	       drv_reg_mr_contig(&a->d, u->pdn, u->uctx, MR1_ADDR, MR1_ADDR,
				 MR1_LEN, ORDMA_ACCESS_LOCAL_WRITE, key_byte,
				 &u->lkey) == OK;
}

static bool flow_qp(struct side *s, uint32_t uctx, uint32_t pdn,
		    uint32_t cqn, unsigned int area, uint32_t *qpn)
{
	struct ordma_qp_create_params p;

	memset(drv_mem(&s->d, DRV_WQ_ADDR(area), 0x10000), 0, 0x10000);
	drv_qp_params(&p, uctx, pdn, ORDMA_QPT_RC, cqn, cqn, ORDMA_NO_SRQ,
		      area);
	p.sq_log_size = SQ_LOG;
	p.sq_wqe_shift = SQ_SHIFT;
	drv_page_list_contig(&p.sq, DRV_WQ_ADDR(area),
			     (1u << SQ_LOG) << SQ_SHIFT);
	p.rq_log_size = RQ_LOG;
	p.rq_wqe_shift = RQ_SHIFT;
	drv_page_list_contig(&p.rq, DRV_WQ_ADDR(area) + 0x8000,
			     (1u << RQ_LOG) << RQ_SHIFT);
	return drv_create_qp(&s->d, &p, qpn) == OK;
}

/* A's QP of f and B's, created and taken to RTS. */
static bool flow_open(struct env *e, struct flow *f, const struct uctx *u,
		      unsigned int area, uint8_t rnr_retry)
{
	static const uint8_t path[] = { ORDMA_QPS_INIT, ORDMA_QPS_RTR,
					ORDMA_QPS_RTS };
	struct side *a = &e->s[0], *b = &e->s[1];
	struct fw_qp_transition rule;
	struct ordma_qp_attr at;
	struct tcfg c;
	size_t k;
	int i;

	memset(f, 0, sizeof(*f));
	f->area = area;
	f->rnr_retry = rnr_retry;
	f->uctx = u ? u->uctx : ORDMA_KERNEL_UCTX;
	f->pdn = u ? u->pdn : a->pdn;
	f->lkey = u ? u->lkey : a->key1;
	if (!flow_qp(a, f->uctx, f->pdn, u ? u->cq.cqn : a->scq.cqn, area,
		     &f->a_qpn) ||
	    !flow_qp(b, ORDMA_KERNEL_UCTX, b->pdn, b->rcq.cqn, area,
		     &f->b_qpn))
		return false;
	default_cfg(&c);
	c.rnr_retry = rnr_retry;
	for (k = 0; k < sizeof(path); k++) {
		uint8_t cur = k ? path[k - 1] : ORDMA_QPS_RESET;
		uint32_t mask;

		fw_qp_transition_rule(ORDMA_QPT_RC, cur, path[k], &rule);
		mask = rule.required | A(STATE);
		if (path[k] == ORDMA_QPS_RTR)
			mask |= A(MIN_RNR_TIMER) | A(MAX_DEST_RD_ATOMIC);
		if (path[k] == ORDMA_QPS_RTS)
			mask |= A(MAX_QP_RD_ATOMIC) | A(TIMEOUT) |
				A(RETRY_CNT) | A(RNR_RETRY);
		mask &= rule.required | rule.optional | A(STATE);
		for (i = 0; i < 2; i++) {
			struct side *s = &e->s[i];

			fill_attr(&at, mask, path[k], &c, s, &e->s[!i], i);
			if (mask & A(DEST_QPN))
				at.dest_qpn = cpu_to_le32(i ? f->a_qpn :
							  f->b_qpn);
			if (drv_modify_qp(&s->d, i ? f->b_qpn : f->a_qpn,
					  &at) != OK)
				return false;
		}
	}
	return true;
}

static struct fw_qp *flow_fwqp(struct env *e, const struct flow *f)
{
	return fw_qp_lookup(e->s[0].d.fw, f->a_qpn);
}

/* Posts w on A's QP of f through the doorbell page of its context. */
static void flow_post(struct env *e, struct flow *f, const struct wr *w)
{
	struct side *a = &e->s[0];
	struct side save = *a;

	a->qpn = f->a_qpn;
	a->sq_pi = f->sq_pi;
	a->wq_area = f->area;
	put_wqe(a, w);
	f->sq_pi = a->sq_pi;
	a->qpn = save.qpn;
	a->sq_pi = save.sq_pi;
	a->wq_area = save.wq_area;
	drv_db(&a->d, f->uctx, ORDMA_DB_SQ, f->a_qpn, f->sq_pi, 0);
}

/* Keeps the SQ of a victim full of unsignaled WRITEs of len to B. */
static void victim_top_up(struct env *e, struct flow *f, uint32_t len)
{
	struct fw_qp *qp = flow_fwqp(e, f);
	struct wr w;

	while (f->sq_pi - qp->sq.ci < (1u << SQ_LOG)) {
		wr_init(&w, ORDMA_WQE_RDMA_WRITE, MR1_ADDR, len, f->lkey);
		w.flags = 0;
		w.remote_addr = MR1_ADDR;
		w.rkey = e->s[1].key1;
		flow_post(e, f, &w);
	}
}

/*
 * One link round: every frame on the wire in either direction reaches
 * its device (what they send in turn waits for the next round), then
 * both clocks move on.
 */
static void link_round(struct env *e)
{
	size_t n[2];
	int i;

	for (i = 0; i < 2; i++)
		n[i] = e->l[i].tail - e->l[i].head;
	for (i = 0; i < 2; i++)
		while (n[i]--)
			link_deliver(&e->l[i], e->s[!i].d.fw);
	fake_advance(&e->s[0].d.hal, ROUND_NS);
	fake_advance(&e->s[1].d.hal, ROUND_NS);
}

/* The QPs of a test: victims, the attacking context's and its context */
struct crowd {
	struct flow vic[2];		/* a user context's, a kernel QP */
	struct flow att[FLOWS_MAX];
	unsigned int attackers;
	uint32_t bad;			/* the attackers' context */
	bool streaming;			/* attackers keep their SQs full */
	uint32_t len;			/* bytes per WRITE */
};

/*
 * WQEs each victim starts in ROUNDS link rounds with its SQ kept full;
 * the device's totals stay within the rule all along (a QP with nothing
 * in flight may send one packet beyond it).
 */
static void victims_run(struct env *e, struct crowd *t, bool attack,
			unsigned long *started)
{
	struct ordma_fw *fw = e->s[0].d.fw;
	unsigned int nqps = t->attackers + 3;
	uint32_t before[2];
	unsigned int r, i;

	for (i = 0; i < 2; i++)
		before[i] = flow_fwqp(e, &t->vic[i])->sq.next;
	for (r = 0; r < ROUNDS; r++) {
		for (i = 0; i < 2; i++)
			victim_top_up(e, &t->vic[i], t->len);
		for (i = 0; attack && t->streaming && i < t->attackers; i++)
			victim_top_up(e, &t->att[i], t->len);
		link_round(e);
		if (!CHECK(fw->tp_outstanding <= FW_TP_DEVICE_OUTSTANDING +
			   nqps) ||
		    !CHECK(fw->tp_user_outstanding <= FW_TP_USER_OUTSTANDING +
			   nqps) ||
		    !CHECK(fw->tp_ctx_held[t->bad] <= FW_TP_CTX_OUTSTANDING +
			   t->attackers))
			break;
	}
	for (i = 0; i < 2; i++)
		started[i] = flow_fwqp(e, &t->vic[i])->sq.next - before[i];
}

/*
 * Attackers of one user context beside two victims keeping their SQs
 * full of WRITEs of len bytes: one QP of another user context and a
 * kernel QP.  The attackers (rnr_retry 7) each SEND 1 MiB to a QP of B
 * that never posts a receive, or, streaming, keep their SQs full of the
 * same WRITEs as the victims.  The victims start at least half as many
 * WQEs per link round as they did alone (measured first, with the
 * attackers idle); RNR attackers keep being answered with RNR NAKs, in
 * RTS, the whole time.
 */
static void attack(unsigned int attackers, uint32_t len, bool streaming)
{
	unsigned long alone[2], attacked[2];
	uint64_t rnr_before = 0, rnr_after = 0;
	struct uctx bad, good;
	struct crowd t;
	struct side *a;
	struct env e;
	struct tcfg c;
	unsigned int i;
	struct wr w;

	REQUIRE(attackers + 2 <= FLOWS_MAX);
	memset(&t, 0, sizeof(t));
	t.attackers = attackers;
	t.streaming = streaming;
	t.len = len;
	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	REQUIRE(uctx_open(a, &bad, 2, 0x31));
	REQUIRE(uctx_open(a, &good, 3, 0x32));
	t.bad = bad.uctx;
	REQUIRE(flow_open(&e, &t.vic[0], &good, QP_AREA + 1, 3));
	REQUIRE(flow_open(&e, &t.vic[1], NULL, QP_AREA + 2, 3));
	for (i = 0; i < attackers; i++)
		REQUIRE(flow_open(&e, &t.att[i], &bad, QP_AREA + 3 + i, 7));

	victims_run(&e, &t, false, alone);
	pump(&e);

	for (i = 0; !streaming && i < attackers; i++) {
		wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, ATTACK_LEN, t.att[i].lkey);
		flow_post(&e, &t.att[i], &w);
	}
	for (i = 0; !streaming && i < 10; i++)
		link_round(&e);
	for (i = 0; i < attackers; i++)
		rnr_before += flow_fwqp(&e, &t.att[i])->counters.rnr_naks_received;
	victims_run(&e, &t, true, attacked);
	for (i = 0; i < attackers; i++) {
		struct fw_qp *qp = flow_fwqp(&e, &t.att[i]);

		rnr_after += qp->counters.rnr_naks_received;
		CHECK_EQ(qp->state, ORDMA_QPS_RTS);
		if (!streaming)
			CHECK_EQ(qp->sq.ci, 0);
	}
	/*
	 * RNR: every attacker kept trying, its waits backing off from the
	 * 10 us timer (10, 20, 40, 80, 160 us: four tries in the 400 us)
	 */
	if (!streaming)
		CHECK(rnr_after - rnr_before >= (uint64_t)attackers * 4);
	NOTE("%u %s attackers, %u-byte WRITEs, %llu RNR NAKs:",
	     attackers, streaming ? "streaming" : "RNR", len,
	     (unsigned long long)(rnr_after - rnr_before));
	NOTE("user victim %lu WQEs alone, %lu attacked; kernel victim %lu, %lu",
	     alone[0], attacked[0], alone[1], attacked[1]);
	/* nobody waited for a retransmission timeout to go on */
	CHECK_EQ(a->d.fw->tp.timeouts, 0);
	for (i = 0; i < 2; i++) {
		CHECK(alone[i] * len >= ROUNDS * 4096ULL);
		CHECK(2 * attacked[i] >= alone[i]);
	}
	env_close(&e);
}

TEST(test_tp_budget_rnr_attacker)
{
	attack(1, 4096, false);
	attack(1, 65536, false);
}

TEST(test_tp_budget_rnr_ten_attackers_one_context)
{
	attack(10, 4096, false);
	attack(10, 65536, false);
}

/* Ten QPs of one context streaming large WRITEs take only its share. */
TEST(test_tp_budget_streaming_context)
{
	attack(10, 4096, true);
	attack(10, 65536, true);
}

/*
 * After an RNR NAK the requester sends only the NAKed packet when the
 * timer runs out, and opens its window again as ACKs come back: a peer
 * that answers with RNR NAKs for ever costs the wire one packet per RNR
 * timer, not a window, and the message completes without a timeout once
 * a receive is posted (every packet that fills the small window asks for
 * its ACK).
 */
TEST(test_tp_rnr_resends_one_packet_per_timer)
{
	const uint32_t len = 64 * 1024;
	unsigned long before;
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;
	int round;

	default_cfg(&c);
	c.rnr_retry = 7;
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	pattern(mem(a, MR1_ADDR, len), len, 21);
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, len, a->key1);
	post(a, &w);
	CHECK_EQ(e.l[0].sent, 64);
	for (round = 0; round < 10; round++) {
		/* the timer, doubled with each NAK in a row, at most 1 ms */
		uint64_t wait = fw_tp_rnr_ns(c.min_rnr_timer) << round;

		if (wait > FW_TP_RNR_BACKOFF_MAX_NS)
			wait = FW_TP_RNR_BACKOFF_MAX_NS;
		while (link_deliver(&e.l[0], b->d.fw))
			;
		while (link_deliver(&e.l[1], a->d.fw))
			;
		CHECK(fwqp(a)->req.rnr_deadline != 0);
		before = e.l[0].sent;
		fake_advance(&a->d.hal, wait - 1);
		CHECK_EQ(e.l[0].sent, before);
		fake_advance(&a->d.hal, 1);
		CHECK_EQ(e.l[0].sent - before, 1);
	}
	CHECK_EQ(fwqp(a)->counters.rnr_naks_received, 10);
	post_recv(b, MR1_ADDR + 0x20000, len);
	pump(&e);
	CHECK(expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, len, 0));
	CHECK(expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, len,
			 0));
	CHECK(!memcmp(mem(a, MR1_ADDR, len), mem(b, MR1_ADDR + 0x20000, len),
		      len));
	CHECK_EQ(fwqp(a)->counters.timeouts, 0);
	env_close(&e);
}
