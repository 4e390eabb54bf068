// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * UC end to end: segmented, paced and never acknowledged sends;
 * loss, reordering, bad opcodes, missing receive WQEs and bad rkeys.
 */
#include <stdlib.h>
#include <string.h>

#include "ordma_test.h"
#include "pair.h"

/* BTH opcode of the k-th frame queued on l (IPv4, no VLAN) */
static uint8_t queued_opcode(const struct link *l, size_t k)
{
	const struct link_frame *f = &l->q[(l->head + k) % l->cap];

	return f->len > 42 ? f->data[14 + 20 + 8] : 0xff;
}

/* SEND, SEND_IMM, WRITE, WRITE_IMM: UC opcodes, no ACKs, paced bursts */
TEST(test_tp_uc_good)
{
	struct env e;
	struct side *a, *b;
	struct ordma_cqe cq;
	struct tcfg c;
	struct wr w;

	uc_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	pattern(mem(a, MR1_ADDR, 0x10000), 0x10000, 5);
	memset(mem(b, MR1_ADDR, 0x20000), 0, 0x20000);

	/* one packet */
	post_recv(b, MR1_ADDR, 4096);
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 100, a->key1);
	post(a, &w);
	CHECK_EQ(queued_opcode(&e.l[0], 0), FW_ROCE_UC_SEND_ONLY);
	/* complete as soon as it is on the wire */
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 100, 0);
	pump(&e);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, 100, 0);
	CHECK(!memcmp(mem(b, MR1_ADDR, 100), mem(a, MR1_ADDR, 100), 100));

	/* five packets, with immediate */
	post_recv(b, MR1_ADDR + 0x2000, 8192);
	wr_init(&w, ORDMA_WQE_SEND_IMM, MR1_ADDR, 4500, a->key1);
	w.imm_inv = 0xa1b2c3d4;
	post(a, &w);
	CHECK_EQ(queued_opcode(&e.l[0], 0), FW_ROCE_UC_SEND_FIRST);
	CHECK_EQ(queued_opcode(&e.l[0], 1), FW_ROCE_UC_SEND_MIDDLE);
	CHECK_EQ(queued_opcode(&e.l[0], 4), FW_ROCE_UC_SEND_LAST_IMM);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 4500, 1);
	REQUIRE(cqe_next(b, false, &cq));
	CHECK_EQ(cq.status, ORDMA_CQE_SUCCESS);
	CHECK_EQ(le32_to_cpu(cq.byte_len), 4500);
	CHECK_EQ(le32_to_cpu(cq.wqe_idx), 1);
	CHECK(le16_to_cpu(cq.flags) & ORDMA_CQE_F_IMM);
	CHECK_EQ(le32_to_cpu(cq.imm_inv), 0xa1b2c3d4);
	CHECK(!memcmp(mem(b, MR1_ADDR + 0x2000, 4500), mem(a, MR1_ADDR, 4500),
		      4500));

	/* RDMA WRITE of three packets, then WRITE with immediate */
	wr_init(&w, ORDMA_WQE_RDMA_WRITE, MR1_ADDR + 0x100, 3000, a->key1);
	w.remote_addr = MR1_ADDR + 0x8000;
	w.rkey = b->key1;
	post(a, &w);
	CHECK_EQ(queued_opcode(&e.l[0], 0), FW_ROCE_UC_RDMA_WRITE_FIRST);
	CHECK_EQ(queued_opcode(&e.l[0], 2), FW_ROCE_UC_RDMA_WRITE_LAST);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_SUCCESS, 3000,
		   2);
	no_cqe(b, false);
	CHECK(!memcmp(mem(b, MR1_ADDR + 0x8000, 3000),
		      mem(a, MR1_ADDR + 0x100, 3000), 3000));
	post_recv(b, MR1_ADDR + 0x10000, 16);
	wr_init(&w, ORDMA_WQE_RDMA_WRITE_IMM, MR1_ADDR, 64, a->key1);
	w.remote_addr = MR1_ADDR + 0xc000;
	w.rkey = b->key1;
	w.imm_inv = 0x01020304;
	post(a, &w);
	CHECK_EQ(queued_opcode(&e.l[0], 0), FW_ROCE_UC_RDMA_WRITE_ONLY_IMM);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_SUCCESS, 64, 3);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV_RDMA_IMM, ORDMA_CQE_SUCCESS, 64,
		   2);
	CHECK(!memcmp(mem(b, MR1_ADDR + 0xc000, 64), mem(a, MR1_ADDR, 64), 64));

	/* 40 packets at MTU 1024 leave in paced bursts */
	post_recv(b, MR1_ADDR + 0x10000, 0x10000);
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 40 * 1024, a->key1);
	post(a, &w);
	CHECK_EQ(e.l[0].tail - e.l[0].head, FW_TP_UC_BURST);
	no_cqe(a, true);
	pump(&e);
	CHECK(e.l[0].max_queued <= FW_TP_UC_BURST);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 40 * 1024, 4);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, 40 * 1024,
		   3);
	CHECK(!memcmp(mem(b, MR1_ADDR + 0x10000, 40 * 1024),
		      mem(a, MR1_ADDR, 40 * 1024), 40 * 1024));

	CHECK_EQ(e.l[0].sent, 1 + 5 + 3 + 1 + 40);
	CHECK_EQ(sq_psn(a), (c.psn[0] + 50) & 0xffffff);
	CHECK_EQ(rq_psn(b), (c.psn[0] + 50) & 0xffffff);
	CHECK_EQ(stats(b).roce_rx_drop, 0);
	uc_quiet(&e);
	env_close(&e);
}

/* READ, atomics, SEND with invalidate: local QP operation errors, SQE */
TEST(test_tp_uc_bad_opcodes)
{
	static const uint8_t bad[] = {
		ORDMA_WQE_RDMA_READ, ORDMA_WQE_ATOMIC_CMP_SWP,
		ORDMA_WQE_ATOMIC_FETCH_ADD, ORDMA_WQE_SEND_INV,
	};
	static const uint8_t bad_cqe[] = {
		ORDMA_CQE_OP_RDMA_READ, ORDMA_CQE_OP_CMP_SWP,
		ORDMA_CQE_OP_FETCH_ADD, ORDMA_CQE_OP_SEND,
	};
	struct ordma_qp_attr at;
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;
	uint32_t idx = 0;
	size_t i;

	uc_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	for (i = 0; i < sizeof(bad); i++) {
		wr_init(&w, bad[i], MR1_ADDR, 8, a->key1);
		w.remote_addr = MR1_ADDR;
		w.rkey = b->key1;
		post(a, &w);
		/* a second WQE behind it is flushed */
		wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 8, a->key1);
		post(a, &w);
		pump(&e);
		CHECK_EQ(e.l[0].sent, 0);
		CHECK_EQ(qp_state(a), ORDMA_QPS_SQE);
		expect_cqe(a, true, bad_cqe[i], ORDMA_CQE_LOC_QP_OP_ERR, 0,
			   idx);
		expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_WR_FLUSH_ERR, 0,
			   idx + 1);
		idx += 2;
		/* SQE -> RTS (UC may name CUR_STATE and ACCESS_FLAGS) */
		memset(&at, 0, sizeof(at));
		at.attr_mask = cpu_to_le32(A(STATE) | A(CUR_STATE) |
					   A(ACCESS_FLAGS));
		at.state = ORDMA_QPS_RTS;
		at.cur_state = ORDMA_QPS_SQE;
		at.access_flags = cpu_to_le32(ORDMA_ACCESS_REMOTE_WRITE);
		CHECK_EQ(drv_modify_qp(&a->d, a->qpn, &at), OK);
		CHECK_EQ(qp_state(a), ORDMA_QPS_RTS);
	}
	/* the QP works again; the receiver saw nothing */
	post_recv(b, MR1_ADDR, 64);
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR + 0x100, 32, a->key1);
	post(a, &w);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 32, idx);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, 32, 0);
	/* a bad local key: LOC_PROT_ERR, SQE, receives go on */
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 32, a->key1 ^ 0x100);
	post(a, &w);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_LOC_PROT_ERR, 0,
		   idx + 1);
	CHECK_EQ(qp_state(a), ORDMA_QPS_SQE);
	/* UC modify rules: RC-only attributes are refused */
	memset(&at, 0, sizeof(at));
	at.attr_mask = cpu_to_le32(A(TIMEOUT));
	at.timeout = 10;
	CHECK_EQ(drv_modify_qp(&b->d, b->qpn, &at),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(e.l[1].sent, 0);
	CHECK_EQ(qp_state(b), ORDMA_QPS_RTS);
	CHECK_EQ(stats(b).roce_rx_drop, 0);
	env_close(&e);
}

/* A SEND of len bytes from MR1_ADDR of A */
static void uc_send(struct side *a, uint32_t len)
{
	struct wr w;

	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, len, a->key1);
	post(a, &w);
}

/*
 * Lost packets: the message is dropped at the receiver, the sender
 * completes anyway; the receive WQE is kept and takes the next message,
 * which starts at a PSN the receiver did not expect.
 */
TEST(test_tp_uc_loss)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	unsigned int i;

	uc_cfg(&c);
	c.psn[0] = 0xfffffe;		/* the PSN wraps on the way */
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	pattern(mem(a, MR1_ADDR, 0x8000), 0x8000, 9);
	memset(mem(b, MR1_ADDR, 0x8000), 0, 0x8000);
	post_recv(b, MR1_ADDR, 0x4000);

	/* a middle packet of four lost: Last is discarded as well */
	e.l[0].drop_nth = 2;
	uc_send(a, 4000);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 4000, 0);
	no_cqe(b, false);
	CHECK_EQ(fwqp(b)->counters.seq_errors, 1);
	CHECK_EQ(drops(b, ORDMA_ROCE_RX_DROP_SEQ), 2);
	/* the next message lands in the same receive WQE */
	uc_send(a, 1500);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 1500, 1);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, 1500, 0);
	CHECK(!memcmp(mem(b, MR1_ADDR, 1500), mem(a, MR1_ADDR, 1500), 1500));

	/* the Last packet lost: the next First resynchronises */
	post_recv(b, MR1_ADDR + 0x4000, 0x4000);
	e.l[0].sent = 0;
	e.l[0].drop_nth = 3;
	uc_send(a, 3000);
	uc_send(a, 200);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 3000, 2);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 200, 3);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, 200, 1);
	no_cqe(b, false);
	CHECK_EQ(fwqp(b)->counters.seq_errors, 2);
	CHECK_EQ(drops(b, ORDMA_ROCE_RX_DROP_SEQ), 2);
	CHECK(!memcmp(mem(b, MR1_ADDR + 0x4000, 200), mem(a, MR1_ADDR, 200),
		      200));

	/* the whole of a message lost: nothing to see but the PSN jump */
	post_recv(b, MR1_ADDR, 0x4000);
	e.l[0].sent = 0;
	e.l[0].drop_nth = 0;
	e.l[0].drop_from = 1;
	uc_send(a, 2500);
	pump(&e);
	e.l[0].drop_from = 0;
	uc_send(a, 10);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 2500, 4);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 10, 5);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, 10, 2);
	CHECK_EQ(fwqp(b)->counters.seq_errors, 3);
	CHECK_EQ(rq_psn(b), sq_psn(a));
	for (i = 0; i < ORDMA_ROCE_RX_DROP_REASONS; i++)
		if (i != ORDMA_ROCE_RX_DROP_SEQ)
			CHECK_EQ(drops(b, i), 0);
	uc_quiet(&e);
	env_close(&e);
}

/* Packets delivered out of order: the message is dropped, no harm done */
TEST(test_tp_uc_reorder)
{
	struct link_frame f[3];
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	int i;

	uc_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	pattern(mem(a, MR1_ADDR, 0x4000), 0x4000, 2);
	post_recv(b, MR1_ADDR, 0x4000);
	uc_send(a, 3000);
	for (i = 0; i < 3; i++)
		REQUIRE(link_pop(&e.l[0], &f[i]));
	/* First, Last, Middle */
	ordma_fw_rx_frame(b->d.fw, f[0].data, f[0].len);
	ordma_fw_rx_frame(b->d.fw, f[2].data, f[2].len);
	ordma_fw_rx_frame(b->d.fw, f[1].data, f[1].len);
	no_cqe(b, false);
	CHECK_EQ(drops(b, ORDMA_ROCE_RX_DROP_SEQ), 2);
	/* a stale First of the dropped message starts over: it is taken,
	 * and its Middle and Last out of order are not
	 */
	ordma_fw_rx_frame(b->d.fw, f[0].data, f[0].len);
	ordma_fw_rx_frame(b->d.fw, f[2].data, f[2].len);
	ordma_fw_rx_frame(b->d.fw, f[1].data, f[1].len);
	no_cqe(b, false);
	CHECK_EQ(drops(b, ORDMA_ROCE_RX_DROP_SEQ), 4);
	/* and in order it completes */
	ordma_fw_rx_frame(b->d.fw, f[0].data, f[0].len);
	ordma_fw_rx_frame(b->d.fw, f[1].data, f[1].len);
	ordma_fw_rx_frame(b->d.fw, f[2].data, f[2].len);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, 3000, 0);
	CHECK(!memcmp(mem(b, MR1_ADDR, 3000), mem(a, MR1_ADDR, 3000), 3000));
	/* a Middle with no message begun, in sequence: an opcode sequence
	 * drop
	 */
	fwqp(b)->expected_psn = (c.psn[0] + 1) & 0xffffff;
	ordma_fw_rx_frame(b->d.fw, f[1].data, f[1].len);
	CHECK_EQ(drops(b, ORDMA_ROCE_RX_DROP_OPCODE_SEQ), 1);
	CHECK_EQ(drops(b, ORDMA_ROCE_RX_DROP_SEQ), 4);
	no_cqe(b, false);
	for (i = 0; i < 3; i++)
		free(f[i].data);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 3000, 0);
	uc_quiet(&e);
	env_close(&e);
}

/* No receive WQE: the message is dropped silently (no RNR NAK) */
TEST(test_tp_uc_no_rwqe)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;

	uc_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	pattern(mem(a, MR1_ADDR, 0x4000), 0x4000, 4);
	uc_send(a, 100);
	uc_send(a, 3000);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 100, 0);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 3000, 1);
	CHECK_EQ(drops(b, ORDMA_ROCE_RX_DROP_NO_RECV), 2);
	CHECK_EQ(drops(b, ORDMA_ROCE_RX_DROP_SEQ), 2);	/* Middle, Last of the 2nd */
	CHECK_EQ(drops(b, ORDMA_ROCE_RX_DROP_RNR), 0);
	CHECK_EQ(fwqp(b)->counters.rnr_naks_sent, 0);
	/* WRITE with immediate needs one too: no CQE */
	wr_init(&w, ORDMA_WQE_RDMA_WRITE_IMM, MR1_ADDR, 64, a->key1);
	w.remote_addr = MR1_ADDR + 0x100;
	w.rkey = b->key1;
	post(a, &w);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_SUCCESS, 64, 2);
	CHECK_EQ(drops(b, ORDMA_ROCE_RX_DROP_NO_RECV), 3);
	no_cqe(b, false);
	/* once one is posted, the next message is taken */
	post_recv(b, MR1_ADDR + 0x1000, 0x1000);
	uc_send(a, 2048);
	pump(&e);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, 2048, 0);
	CHECK(!memcmp(mem(b, MR1_ADDR + 0x1000, 2048), mem(a, MR1_ADDR, 2048),
		      2048));
	/* a message longer than the receive buffer is dropped; the WQE
	 * stays for the next one
	 */
	post_recv(b, MR1_ADDR + 0x2000, 1000);
	uc_send(a, 1500);
	uc_send(a, 999);
	pump(&e);
	CHECK_EQ(drops(b, ORDMA_ROCE_RX_DROP_BAD_REQ), 1);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, 999, 1);
	no_cqe(b, false);
	uc_quiet(&e);
	env_close(&e);
}

/* Remote access errors drop the WRITE: memory untouched, no NAK */
TEST(test_tp_uc_bad_rkey)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;
	uint8_t *dst;
	int i;

	uc_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	pattern(mem(a, MR1_ADDR, 0x4000), 0x4000, 6);
	dst = mem(b, MR1_ADDR + 0x8000, 0x2000);
	memset(dst, 0x5a, 0x2000);
	memset(mem(b, MR2_ADDR, 0x1000), 0x5a, 0x1000);
	for (i = 0; i < 4; i++) {
		wr_init(&w, ORDMA_WQE_RDMA_WRITE, MR1_ADDR, 2500, a->key1);
		w.remote_addr = MR1_ADDR + 0x8000;
		w.rkey = b->key1;
		if (i == 0) {
			w.rkey ^= 0x100;		/* no such MR */
		} else if (i == 1) {
			w.rkey = b->key2;		/* no remote write */
			w.remote_addr = MR2_ADDR;
		} else if (i == 2) {
			w.remote_addr = MR1_ADDR + MR1_LEN - 100; /* bounds */
		} else {
			w.rkey = b->key1 ^ 0x01;	/* wrong key variant */
		}
		post(a, &w);
	}
	pump(&e);
	for (i = 0; i < 4; i++)
		expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_SUCCESS,
			   2500, (uint32_t)i);
	CHECK_EQ(drops(b, ORDMA_ROCE_RX_DROP_BAD_REQ), 4);
	CHECK_EQ(drops(b, ORDMA_ROCE_RX_DROP_SEQ), 8);	/* the Middle and Last */
	CHECK(all_bytes(dst, 0x2000, 0x5a));
	CHECK(all_bytes(mem(b, MR2_ADDR, 0x1000), 0x1000, 0x5a));
	CHECK(all_bytes(mem(b, MR1_ADDR + MR1_LEN - 100, 100), 100, 0));
	/* the good one after them is placed */
	wr_init(&w, ORDMA_WQE_RDMA_WRITE, MR1_ADDR, 2500, a->key1);
	w.remote_addr = MR1_ADDR + 0x8000;
	w.rkey = b->key1;
	post(a, &w);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_SUCCESS, 2500, 4);
	CHECK(!memcmp(dst, mem(a, MR1_ADDR, 2500), 2500));
	CHECK_EQ(dst[2500], 0x5a);
	uc_quiet(&e);
	env_close(&e);

	/* a QP without REMOTE_WRITE takes no WRITE at all */
	uc_cfg(&c);
	c.access = 0;
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	dst = mem(b, MR1_ADDR, 64);
	memset(dst, 0x5a, 64);
	wr_init(&w, ORDMA_WQE_RDMA_WRITE, MR1_ADDR + 0x1000, 64, a->key1);
	w.remote_addr = MR1_ADDR;
	w.rkey = b->key1;
	post(a, &w);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_SUCCESS, 64, 0);
	CHECK_EQ(drops(b, ORDMA_ROCE_RX_DROP_BAD_REQ), 1);
	CHECK(all_bytes(dst, 64, 0x5a));
	uc_quiet(&e);
	env_close(&e);
}

/* Through an SRQ a dropped message's WQE cannot go back: error CQE */
TEST(test_tp_uc_srq_loss)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;

	uc_cfg(&c);
	c.srq_b = true;
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	post_srq(b, MR1_ADDR, 0x2000);
	post_srq(b, MR1_ADDR + 0x2000, 0x2000);
	pattern(mem(a, MR1_ADDR, 0x2000), 0x2000, 8);
	e.l[0].drop_nth = 2;
	uc_send(a, 3000);
	uc_send(a, 500);
	pump(&e);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_REM_INV_REQ_ERR, 0, 0);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, 500, 1);
	CHECK(!memcmp(mem(b, MR1_ADDR + 0x2000, 500), mem(a, MR1_ADDR, 500),
		      500));
	uc_quiet(&e);
	env_close(&e);
}
