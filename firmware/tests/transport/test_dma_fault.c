// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * DMA failures of the data path, end to end: an SQ WQE, a CQ ring, local
 * memory on the requester side and target memory on the responder side
 * that the device cannot reach (Bus Master Enable off, IOMMU fault).
 * Each has the outcome the hardware reference gives in "DMA failures";
 * the device itself stays ready.
 */
#include <string.h>

#include "ordma_test.h"
#include "pair.h"

/* DMA of side s touching [addr, addr + len) fails from now on. */
static void fault(struct side *s, uint64_t addr, uint64_t len)
{
	s->d.hal.fail_lo = addr;
	s->d.hal.fail_hi = addr + len;
}

static void no_fault(struct side *s)
{
	s->d.hal.fail_lo = s->d.hal.fail_hi = 0;
}

static uint64_t tx_dma_drops(struct side *s)
{
	struct ordma_port_stats st = stats(s);

	return le64_to_cpu(st.roce_tx_drop[ORDMA_ROCE_TX_DROP_DMA]);
}

static bool still_ready(struct side *s)
{
	return drv_rd(&s->d, ORDMA_REG_STATUS) == ORDMA_STATUS_READY;
}

/* ------------------------------------------------------------------ */
/* Requester                                                           */
/* ------------------------------------------------------------------ */

/* An SQ WQE that cannot be read: LOC_QP_OP_ERR as SEND, the QP to ERR */
TEST(test_dma_fault_sq_wqe)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	wr_init(&w, ORDMA_WQE_RDMA_WRITE, MR1_ADDR, 64, a->key1);
	w.remote_addr = MR1_ADDR;
	w.rkey = b->key1;
	put_wqe(a, &w);
	put_wqe(a, &w);
	fault(a, DRV_WQ_ADDR(wq_area(a)), 1u << SQ_SHIFT);
	ring_sq(a);
	no_fault(a);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_LOC_QP_OP_ERR, 0, 0);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_WR_FLUSH_ERR, 0,
		   1);
	no_cqe(a, true);
	CHECK_EQ(e.l[0].sent, 0);
	CHECK_EQ(qp_state(a), ORDMA_QPS_ERR);
	/* a requester-side error posts no event */
	CHECK(!has_event(a, ORDMA_EQE_QP_REQ_ERR, a->qpn));
	CHECK_EQ(qp_state(b), ORDMA_QPS_RTS);
	CHECK(still_ready(a));
	env_close(&e);
}

/* SEND payload unreadable in its second packet: LOC_PROT_ERR, QP to ERR */
TEST(test_dma_fault_requester_gather)
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
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR + 0x10000, 3000, a->key1);
	fault(a, MR1_ADDR + 0x10000 + 1500, 1);
	post(a, &w);
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR + 0x20000, 8, a->key1);
	post(a, &w);
	pump(&e);
	no_fault(a);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_LOC_PROT_ERR, 0, 0);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_WR_FLUSH_ERR, 0, 1);
	CHECK_EQ(qp_state(a), ORDMA_QPS_ERR);
	CHECK(!has_event(a, ORDMA_EQE_QP_ACCESS_ERR, a->qpn));
	CHECK_EQ(e.l[0].sent, 1);
	CHECK_EQ(tx_dma_drops(a), 1);
	CHECK(still_ready(a));
	env_close(&e);
}

/* UD: the payload unreadable is LOC_PROT_ERR and the QP goes to SQE */
TEST(test_dma_fault_ud_gather)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;
	uint32_t ah;

	default_cfg(&c);
	c.type = ORDMA_QPT_UD;
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	REQUIRE_EQ(create_ah(a, b, &ah), OK);
	post_recv(b, MR1_ADDR, 40 + 1024);
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR + 0x1000, 100, a->key1);
	w.ah = ah;
	w.remote_qpn = b->qpn;
	w.remote_qkey = 0x1234;
	fault(a, MR1_ADDR + 0x1000, 0x1000);
	post(a, &w);
	no_fault(a);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_LOC_PROT_ERR, 0, 0);
	CHECK_EQ(qp_state(a), ORDMA_QPS_SQE);
	CHECK_EQ(e.l[0].sent, 0);
	CHECK_EQ(tx_dma_drops(a), 1);
	no_cqe(b, false);
	env_close(&e);
}

/* READ response placement and atomic result: LOC_PROT_ERR, QP to ERR */
TEST(test_dma_fault_requester_scatter)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	pattern(mem(b, MR1_ADDR + 0x80000, 2000), 2000, 5);
	wr_init(&w, ORDMA_WQE_RDMA_READ, MR1_ADDR + 0x10000, 2000, a->key1);
	w.remote_addr = MR1_ADDR + 0x80000;
	w.rkey = b->key1;
	fault(a, MR1_ADDR + 0x10000 + 1024, 1);
	post(a, &w);
	pump(&e);
	no_fault(a);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_READ, ORDMA_CQE_LOC_PROT_ERR, 0,
		   0);
	no_cqe(a, true);
	CHECK_EQ(qp_state(a), ORDMA_QPS_ERR);
	/* the responder did its part */
	CHECK_EQ(qp_state(b), ORDMA_QPS_RTS);
	CHECK(!has_event(b, ORDMA_EQE_QP_ACCESS_ERR, b->qpn));
	env_close(&e);

	/* the atomic executed at the responder; its result cannot land */
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	put64(mem(b, MR1_ADDR + 0x100, 8), 1000);
	wr_init(&w, ORDMA_WQE_ATOMIC_FETCH_ADD, MR1_ADDR + 0x200, 8, a->key1);
	w.remote_addr = MR1_ADDR + 0x100;
	w.rkey = b->key1;
	w.compare_add = 5;
	fault(a, MR1_ADDR + 0x200, 8);
	post(a, &w);
	pump(&e);
	no_fault(a);
	expect_cqe(a, true, ORDMA_CQE_OP_FETCH_ADD, ORDMA_CQE_LOC_PROT_ERR, 0,
		   0);
	CHECK_EQ(qp_state(a), ORDMA_QPS_ERR);
	CHECK_EQ(get64(mem(b, MR1_ADDR + 0x100, 8)), 1005);
	CHECK_EQ(qp_state(b), ORDMA_QPS_RTS);
	env_close(&e);
}

/* ------------------------------------------------------------------ */
/* Responder                                                           */
/* ------------------------------------------------------------------ */

/*
 * A request the responder cannot place or read: NAK, the responder QP
 * to ERR with an async event, the requester's WQE completes with
 * a_status.  recv: B's receive WQE is where the fault is (SEND).
 */
static void resp_fault(uint8_t opcode, bool recv, uint8_t a_status,
		       uint8_t b_recv_status)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	put64(mem(b, MR1_ADDR + 0x50000, 8), 77);
	post_recv(b, MR1_ADDR + 0x40000, 256);
	wr_init(&w, opcode, MR1_ADDR + 0x1000,
		opcode == ORDMA_WQE_ATOMIC_FETCH_ADD ? 8 : 100, a->key1);
	w.remote_addr = MR1_ADDR + 0x50000;
	w.rkey = b->key1;
	w.compare_add = 1;
	fault(b, recv ? MR1_ADDR + 0x40000 : MR1_ADDR + 0x50000, 0x1000);
	post(a, &w);
	pump(&e);
	no_fault(b);
	expect_cqe(a, true, opcode == ORDMA_WQE_SEND ? ORDMA_CQE_OP_SEND :
		   opcode == ORDMA_WQE_RDMA_WRITE ? ORDMA_CQE_OP_RDMA_WRITE :
		   ORDMA_CQE_OP_FETCH_ADD, a_status, 0, 0);
	CHECK_EQ(qp_state(a), ORDMA_QPS_ERR);
	CHECK_EQ(qp_state(b), ORDMA_QPS_ERR);
	CHECK(has_event(b, ORDMA_EQE_QP_ACCESS_ERR, b->qpn));
	/* the receive WQE: completed in error if the SEND took it, else
	 * flushed
	 */
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, b_recv_status, 0, 0);
	no_cqe(b, false);
	CHECK_EQ(get64(mem(b, MR1_ADDR + 0x50000, 8)), 77);
	CHECK(still_ready(b));
	env_close(&e);
}

TEST(test_dma_fault_responder_write)
{
	resp_fault(ORDMA_WQE_RDMA_WRITE, false, ORDMA_CQE_REM_ACCESS_ERR,
		   ORDMA_CQE_WR_FLUSH_ERR);
}

TEST(test_dma_fault_responder_send)
{
	resp_fault(ORDMA_WQE_SEND, true, ORDMA_CQE_REM_OP_ERR,
		   ORDMA_CQE_LOC_PROT_ERR);
}

TEST(test_dma_fault_responder_atomic)
{
	resp_fault(ORDMA_WQE_ATOMIC_FETCH_ADD, false, ORDMA_CQE_REM_ACCESS_ERR,
		   ORDMA_CQE_WR_FLUSH_ERR);
}

/*
 * READ source unreadable at the responder: the response packets are not
 * sent (counted as DMA drops), as if lost on the wire; the requester
 * retries and runs out of retries.  The responder stays in RTS.
 */
TEST(test_dma_fault_responder_read)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;
	int i;

	default_cfg(&c);
	c.retry_cnt = 1;
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	wr_init(&w, ORDMA_WQE_RDMA_READ, MR1_ADDR + 0x10000, 100, a->key1);
	w.remote_addr = MR1_ADDR + 0x80000;
	w.rkey = b->key1;
	fault(b, MR1_ADDR + 0x80000, 0x1000);
	post(a, &w);
	pump(&e);
	for (i = 0; i < 3; i++)
		advance(&e, 4096ULL << 10);
	no_fault(b);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_READ, ORDMA_CQE_RETRY_EXC_ERR, 0,
		   0);
	CHECK_EQ(qp_state(a), ORDMA_QPS_ERR);
	CHECK_EQ(tx_dma_drops(b), 2);
	CHECK_EQ(e.l[1].sent, 0);
	CHECK_EQ(qp_state(b), ORDMA_QPS_RTS);
	CHECK(!has_event(b, ORDMA_EQE_QP_ACCESS_ERR, b->qpn));
	env_close(&e);
}

/* UD: the GRH area unwritable completes the receive with LOC_PROT_ERR */
TEST(test_dma_fault_ud_grh)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;
	uint32_t ah;

	default_cfg(&c);
	c.type = ORDMA_QPT_UD;
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	REQUIRE_EQ(create_ah(a, b, &ah), OK);
	post_recv(b, MR1_ADDR + 0x10000, 40 + 1024);
	post_recv(b, MR1_ADDR + 0x20000, 40 + 1024);
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 100, a->key1);
	w.ah = ah;
	w.remote_qpn = b->qpn;
	w.remote_qkey = 0x1234;
	fault(b, MR1_ADDR + 0x10000, 40);
	post(a, &w);
	pump(&e);
	no_fault(b);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_LOC_PROT_ERR, 0, 0);
	CHECK_EQ(qp_state(b), ORDMA_QPS_RTS);
	/* the next receive works */
	post(a, &w);
	pump(&e);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, 140, 1);
	env_close(&e);
}

/* ------------------------------------------------------------------ */
/* Completion queue                                                    */
/* ------------------------------------------------------------------ */

/*
 * The receive CQ's ring unwritable: the CQ enters error (CQ_ERR), its
 * CQEs are dropped and counted; the QP and the data path carry on.
 */
TEST(test_dma_fault_cq_ring)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	post_recv(b, MR1_ADDR, 64);
	post_recv(b, MR1_ADDR + 64, 64);
	pattern(mem(a, MR1_ADDR + 0x1000, 64), 64, 9);
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR + 0x1000, 64, a->key1);
	fault(b, b->rcq.addr, 32u << b->rcq.log_size);
	post(a, &w);
	pump(&e);
	no_fault(b);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 64, 0);
	CHECK(has_event(b, ORDMA_EQE_CQ_ERR, b->rcq.cqn));
	CHECK_EQ(fwqp(b)->counters.cqe_dropped, 1);
	CHECK(!memcmp(mem(b, MR1_ADDR, 64), mem(a, MR1_ADDR + 0x1000, 64),
		      64));
	/* the CQ stays in error, the QP does not change */
	post(a, &w);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 64, 1);
	no_cqe(b, false);
	CHECK_EQ(fwqp(b)->counters.cqe_dropped, 2);
	CHECK_EQ(qp_state(b), ORDMA_QPS_RTS);
	CHECK(still_ready(b));
	env_close(&e);
}

/* ------------------------------------------------------------------ */
/* Receive WQEs                                                        */
/* ------------------------------------------------------------------ */

/*
 * A receive WQE that cannot be read is taken and fails as a malformed
 * one: LOC_QP_OP_ERR, NAK Remote Operational, QP_REQ_ERR; never an RNR
 * NAK, which would repeat for as long as the WQE stays unreadable.
 */
static void rq_fault(bool srq)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;
	uint64_t slot0;

	default_cfg(&c);
	c.srq_b = srq;
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	if (srq) {
		post_srq(b, MR1_ADDR, 256);
		post_srq(b, MR1_ADDR + 256, 256);
		slot0 = DRV_WQ_ADDR(QP_AREA + 1);
	} else {
		post_recv(b, MR1_ADDR, 256);
		slot0 = DRV_WQ_ADDR(wq_area(b)) + 0x8000;
	}
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR + 0x1000, 64, a->key1);
	fault(b, slot0, 16);
	post(a, &w);
	pump(&e);
	no_fault(b);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_REM_OP_ERR, 0, 0);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_LOC_QP_OP_ERR, 0, 0);
	no_cqe(b, false);
	CHECK_EQ(fwqp(b)->counters.rnr_naks_sent, 0);
	CHECK_EQ(qp_state(a), ORDMA_QPS_ERR);
	CHECK_EQ(qp_state(b), ORDMA_QPS_ERR);
	CHECK(has_event(b, ORDMA_EQE_QP_REQ_ERR, b->qpn));
	/* the SRQ gave that WQE away; the next one stays for other QPs */
	if (srq)
		CHECK_EQ(fw_srq_lookup(b->d.fw, b->srqn)->wq.ci, 1);
	CHECK(still_ready(b));
	env_close(&e);
}

TEST(test_dma_fault_rq_wqe)
{
	rq_fault(false);
}

TEST(test_dma_fault_srq_wqe)
{
	rq_fault(true);
}

/* UD: the WQE completes with LOC_QP_OP_ERR, the QP stays in RTS */
TEST(test_dma_fault_ud_rq_wqe)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;
	uint32_t ah;

	default_cfg(&c);
	c.type = ORDMA_QPT_UD;
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	REQUIRE_EQ(create_ah(a, b, &ah), OK);
	post_recv(b, MR1_ADDR, 40 + 1024);
	post_recv(b, MR1_ADDR + 0x1000, 40 + 1024);
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR + 0x2000, 100, a->key1);
	w.ah = ah;
	w.remote_qpn = b->qpn;
	w.remote_qkey = 0x1234;
	fault(b, DRV_WQ_ADDR(wq_area(b)) + 0x8000, 16);
	post(a, &w);
	pump(&e);
	no_fault(b);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_LOC_QP_OP_ERR, 0, 0);
	CHECK_EQ(qp_state(b), ORDMA_QPS_RTS);
	post(a, &w);
	pump(&e);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, 140, 1);
	env_close(&e);
}

/* UC: as a malformed WQE, LOC_QP_OP_ERR and the QP to ERR, nothing sent */
TEST(test_dma_fault_uc_rq_wqe)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;

	uc_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	post_recv(b, MR1_ADDR, 256);
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR + 0x1000, 64, a->key1);
	fault(b, DRV_WQ_ADDR(wq_area(b)) + 0x8000, 16);
	post(a, &w);
	pump(&e);
	no_fault(b);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 64, 0);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_LOC_QP_OP_ERR, 0, 0);
	CHECK_EQ(qp_state(b), ORDMA_QPS_ERR);
	CHECK(has_event(b, ORDMA_EQE_QP_REQ_ERR, b->qpn));
	CHECK_EQ(e.l[1].sent, 0);
	env_close(&e);
}

/* RDMA WRITE with immediate uses nothing of its receive WQE: it completes */
TEST(test_dma_fault_rq_wqe_write_imm)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	post_recv(b, MR1_ADDR, 256);
	wr_init(&w, ORDMA_WQE_RDMA_WRITE_IMM, MR1_ADDR + 0x1000, 64, a->key1);
	w.remote_addr = MR1_ADDR + 0x2000;
	w.rkey = b->key1;
	fault(b, DRV_WQ_ADDR(wq_area(b)) + 0x8000, 16);
	post(a, &w);
	pump(&e);
	no_fault(b);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_SUCCESS, 64, 0);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV_RDMA_IMM, ORDMA_CQE_SUCCESS, 64,
		   0);
	CHECK_EQ(qp_state(b), ORDMA_QPS_RTS);
	env_close(&e);
}
