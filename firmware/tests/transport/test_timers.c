// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The engine's timers among many QPs: a deadline fires on time, and a
 * timer callback examines the QPs that are due, not every QP there is
 * (counted in the device's tp_timer_visits, never timed).
 */
#include <string.h>

#include "ordma_test.h"
#include "pair.h"

#define IDLE_QPS	1000
#define ACK_TIMEOUT_NS	(4096ULL << 10)		/* default_cfg: timeout 10 */

/* RC QPs on s that never send: count of them created */
static unsigned int add_idle_qps(struct side *s, unsigned int n)
{
	struct ordma_qp_create_params p;
	unsigned int i;
	uint32_t qpn;

	drv_qp_params(&p, 0, s->pdn, ORDMA_QPT_RC, s->scq.cqn, s->rcq.cqn,
		      ORDMA_NO_SRQ, QP_AREA);
	for (i = 0; i < n; i++)
		if (drv_create_qp(&s->d, &p, &qpn) != OK)
			break;
	return i;
}

/* Both sides up with `idle` more QPs on A, and a 100-byte SEND from A
 * in flight whose only packet is lost: A's retransmit timer is armed.
 */
static bool open_with_lost_send(struct env *e, unsigned int idle)
{
	struct side *a = &e->s[0], *b = &e->s[1];
	struct tcfg c;
	struct wr w;

	default_cfg(&c);
	if (!env_open(e, &c) || add_idle_qps(a, idle) != idle)
		return false;
	post_recv(b, MR1_ADDR, 100);
	e->l[0].drop_nth = e->l[0].sent + 1;
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 100, a->key1);
	post(a, &w);
	pump(e);
	return fwqp(a)->req.rexmit_deadline != 0;
}

static uint64_t visits(struct side *s)
{
	return s->d.fw->tp_timer_visits;
}

TEST(test_tp_timer_one_qp_among_many)
{
	struct env e;
	struct side *a = &e.s[0], *b = &e.s[1];
	uint64_t before;
	int period;

	REQUIRE(open_with_lost_send(&e, IDLE_QPS));
	before = visits(a);
	no_cqe(a, true);
	REQUIRE(a->d.hal.timer_deadline != UINT64_MAX);

	/* not due yet: no QP looked at, whatever fired meanwhile */
	advance(&e, ACK_TIMEOUT_NS - 1000);
	CHECK_EQ(fwqp(a)->counters.timeouts, 0);
	CHECK_EQ(visits(a), before);
	/* due: the one QP with a deadline, once */
	advance(&e, 2000);
	CHECK_EQ(fwqp(a)->counters.timeouts, 1);
	CHECK_EQ(fwqp(a)->counters.retransmits, 1);
	CHECK_EQ(visits(a), before + 1);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, 100, 0);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 100, 0);

	/* The ACK cleared the re-armed deadline: the next callbacks drop
	 * the QP's entry once, and the idle QPs are never examined.
	 */
	for (period = 0; period < 5; period++)
		advance(&e, FW_HEARTBEAT_PERIOD_NS);
	CHECK(visits(a) <= before + 2);
	CHECK_EQ(fwqp(a)->counters.timeouts, 1);
	env_close(&e);
}

/* A QP destroyed with a deadline armed leaves no timer behind, also
 * when its number is taken again.
 */
TEST(test_tp_timer_destroyed_qp)
{
	struct env e;
	struct side *a = &e.s[0];
	uint64_t before;

	REQUIRE(open_with_lost_send(&e, 10));
	REQUIRE_EQ(drv_handle_cmd(&a->d, ORDMA_CMD_DESTROY_QP, a->qpn, 0), OK);
	REQUIRE_EQ(add_idle_qps(a, 1), 1);
	REQUIRE(fw_qp_lookup(a->d.fw, a->qpn));
	before = visits(a);
	advance(&e, 2 * ACK_TIMEOUT_NS);
	CHECK(visits(a) <= before + 1);
	CHECK_EQ(fwqp(a)->counters.timeouts, 0);
	CHECK_EQ(e.l[0].sent, e.l[0].dropped);
	CHECK_EQ(a->d.fw->tp.timeouts, 0);
	env_close(&e);
}
