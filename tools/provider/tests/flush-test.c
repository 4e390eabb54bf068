// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Device test of the ORDMA provider's data path that needs no transport
 * engine: WQEs posted to RC/UD QPs (and their doorbells) come back as
 * WR_FLUSH_ERR completions once the QP is moved to ERR, so posting,
 * doorbell indices, CQE phase across ring wraps, the doorbell record,
 * wr_id bookkeeping, queue-full handling, arming with a completion
 * channel, extended CQ polling, SRQs and AHs are all exercised.
 *
 * Build (on the host, against the build.sh tree DIR; vm-test.sh does):
 *   cc -I$DIR/include -Itools/testing -o flush-test flush-test.c \
 *      tools/testing/ordma_test.c -L$DIR/lib -libverbs -Wl,-rpath,$DIR/lib
 * Run: flush-test [DEVICE]    TAP output (tools/testing/ordma_test.h);
 * each test opens the device in its own process.
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "ordma_test.h"

/* A check with what was seen, printed when it fails */
#define CHECK_MSG(cond, ...)						\
	do {								\
		if (!CHECK(cond))					\
			NOTE(__VA_ARGS__);				\
	} while (0)

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_mr *mr;
static char buf[4096];

static int to_state(struct ibv_qp *qp, enum ibv_qp_state s, bool ud)
{
	struct ibv_qp_attr a = { .qp_state = s };
	int mask = IBV_QP_STATE;

	if (s == IBV_QPS_INIT) {
		a.pkey_index = 0;
		a.port_num = 1;
		mask |= IBV_QP_PKEY_INDEX | IBV_QP_PORT;
		if (ud) {
			a.qkey = 0x11111111;
			mask |= IBV_QP_QKEY;
		} else {
			a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
					    IBV_ACCESS_REMOTE_READ;
			mask |= IBV_QP_ACCESS_FLAGS;
		}
	}
	return ibv_modify_qp(qp, &a, mask);
}

static int post_sends(struct ibv_qp *qp, int count, uint64_t first_id,
		      struct ibv_ah *ah)
{
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = 64,
			       .lkey = mr->lkey };
	struct ibv_send_wr wr = {}, *bad = NULL;
	int i, ret;

	for (i = 0; i < count; i++) {
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = first_id + i;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.send_flags = (i % 2) ? 0 : IBV_SEND_SIGNALED;
		if (ah) {
			wr.opcode = IBV_WR_SEND;
			wr.wr.ud.ah = ah;
			wr.wr.ud.remote_qpn = 1;
			wr.wr.ud.remote_qkey = 0x11111111;
		} else {
			switch (i % 3) {
			case 0:
				wr.opcode = IBV_WR_SEND;
				break;
			case 1:
				wr.opcode = IBV_WR_RDMA_WRITE;
				wr.send_flags |= IBV_SEND_INLINE;
				sge.length = 32;
				break;
			default:
				wr.opcode = IBV_WR_SEND_WITH_IMM;
				wr.imm_data = htobe32(0x1234);
				break;
			}
			wr.wr.rdma.remote_addr = (uintptr_t)buf;
			wr.wr.rdma.rkey = mr->rkey;
		}
		ret = ibv_post_send(qp, &wr, &bad);
		if (ret)
			return ret;
	}
	return 0;
}

static int post_recvs(struct ibv_qp *qp, struct ibv_srq *srq, int count,
		      uint64_t first_id)
{
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = sizeof(buf),
			       .lkey = mr->lkey };
	struct ibv_recv_wr wr[64], *bad = NULL;
	int i;

	for (i = 0; i < count; i++) {
		memset(&wr[i], 0, sizeof(wr[i]));
		wr[i].wr_id = first_id + i;
		wr[i].sg_list = &sge;
		wr[i].num_sge = 1;
		wr[i].next = i + 1 < count ? &wr[i + 1] : NULL;
	}
	return srq ? ibv_post_srq_recv(srq, wr, &bad) :
		     ibv_post_recv(qp, wr, &bad);
}

/* Polls until want completions arrived (or ~2 s without one). */
static int drain(struct ibv_cq *cq, struct ibv_wc *wc, int want)
{
	int got = 0, idle = 0;

	while (got < want && idle < 500) {
		int r = ibv_poll_cq(cq, want - got, wc + got);

		if (r < 0)
			return r;
		if (!r) {
			idle++;
			poll(NULL, 0, 1);
		}
		got += r;
	}
	return got;
}

static bool all_flushed(const struct ibv_wc *wc, int cnt, uint32_t qpn)
{
	int i;

	for (i = 0; i < cnt; i++)
		if (wc[i].status != IBV_WC_WR_FLUSH_ERR || wc[i].qp_num != qpn)
			return false;
	return true;
}

static void rc_tests(void)
{
	struct ibv_comp_channel *ch = ibv_create_comp_channel(ctx);
	struct ibv_cq *cq = ibv_create_cq(ctx, 40, NULL, ch, 0), *ev_cq;
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 4, .max_send_sge = 2,
			 .max_recv_sge = 2, .max_inline_data = 64 },
	};
	struct ibv_qp_init_attr qia;
	struct ibv_qp_attr qa;
	struct ibv_wc wc[64];
	struct ibv_qp *qp;
	struct pollfd pfd;
	void *ev_ctx;
	int i, got, ok, total = 0;

	CHECK_MSG(ch && cq, "comp channel and CQ (40 -> %d CQEs)", cq ? cq->cqe : -1);
	if (!cq)
		return;
	ia.send_cq = ia.recv_cq = cq;
	qp = ibv_create_qp(pd, &ia);
	CHECK_MSG(qp, "RC QP created (errno %d)", qp ? 0 : errno);
	if (!qp)
		return;
	CHECK_MSG(ia.cap.max_send_wr == 16 && ia.cap.max_recv_wr == 4 &&
	      ia.cap.max_send_sge >= 2 && ia.cap.max_recv_sge >= 2 &&
	      ia.cap.max_inline_data == 64,
	      "RC caps: send %u x %u sge, recv %u x %u sge, inline %u",
	      ia.cap.max_send_wr, ia.cap.max_send_sge, ia.cap.max_recv_wr,
	      ia.cap.max_recv_sge, ia.cap.max_inline_data);
	CHECK_MSG(post_sends(qp, 1, 0, NULL) == EINVAL, "post_send in RESET: EINVAL");
	CHECK_MSG(!to_state(qp, IBV_QPS_INIT, false), "RESET -> INIT");
	CHECK_MSG(!ibv_query_qp(qp, &qa, IBV_QP_STATE | IBV_QP_CAP, &qia) &&
	      qa.qp_state == IBV_QPS_INIT && qia.cap.max_inline_data == 64 &&
	      qia.cap.max_send_wr == 16,
	      "query_qp: INIT, caps as created");
	CHECK_MSG(!post_recvs(qp, NULL, 4, 100), "4 receives posted");
	CHECK_MSG(post_recvs(qp, NULL, 1, 200) == ENOMEM, "5th receive: ENOMEM");
	CHECK_MSG(!post_sends(qp, 16, 1, NULL), "16 sends posted (SEND, inline WRITE, SEND_IMM)");
	CHECK_MSG(post_sends(qp, 1, 99, NULL) == ENOMEM, "17th send: ENOMEM");
	CHECK_MSG(!ibv_req_notify_cq(cq, 0), "CQ armed");
	CHECK_MSG(!to_state(qp, IBV_QPS_ERR, false), "INIT -> ERR (flush)");

	pfd.fd = ch->fd;
	pfd.events = POLLIN;
	ok = poll(&pfd, 1, 5000) == 1 && !ibv_get_cq_event(ch, &ev_cq, &ev_ctx) &&
	     ev_cq == cq;
	CHECK_MSG(ok, "completion event on the channel");
	if (ok)
		ibv_ack_cq_events(cq, 1);

	got = drain(cq, wc, 20);
	CHECK_MSG(got == 20, "20 flush completions (got %d)", got);
	ok = got == 20 && all_flushed(wc, 20, qp->qp_num);
	for (i = 0; ok && i < 16; i++)
		ok = wc[i].wr_id == (uint64_t)i + 1;
	for (i = 0; ok && i < 4; i++)
		ok = wc[16 + i].wr_id == (uint64_t)100 + i;
	CHECK_MSG(ok, "WR_FLUSH_ERR, qp_num, send wr_ids 1..16 then recv 100..103");
	total += got;

	/* queues free again: keep going around the CQ ring (and its phase) */
	for (i = 0; i < 6; i++) {
		if (post_sends(qp, 16, 1000 + 16 * i, NULL))
			break;
		got = drain(cq, wc, 16);
		if (got != 16 || !all_flushed(wc, 16, qp->qp_num) ||
		    wc[0].wr_id != (uint64_t)1000 + 16 * i ||
		    wc[15].wr_id != (uint64_t)1015 + 16 * i)
			break;
		total += got;
	}
	CHECK_MSG(i == 6, "6 more rounds of 16 sends flushed in ERR (%d CQEs through a %d-entry ring)",
	      total, cq->cqe);
	CHECK_MSG(!drain(cq, wc, 1), "CQ empty afterwards");

	CHECK_MSG(!to_state(qp, IBV_QPS_RESET, false) &&
	      !to_state(qp, IBV_QPS_INIT, false) &&
	      !post_sends(qp, 16, 5000, NULL) && !to_state(qp, IBV_QPS_ERR, false) &&
	      drain(cq, wc, 16) == 16 && wc[0].wr_id == 5000,
	      "ERR -> RESET -> INIT: indices restart, 16 more flushed");

	CHECK_MSG(!ibv_destroy_qp(qp), "destroy RC QP");
	CHECK_MSG(!ibv_destroy_cq(cq), "destroy CQ");
	ibv_destroy_comp_channel(ch);
}

/* CQEs of a QP that is reset or destroyed before they are polled go away;
 * those of another QP on the same CQ stay, in order.
 */
static void clean_tests(void)
{
	struct ibv_cq *cq = ibv_create_cq(ctx, 30, NULL, NULL, 0);
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 8, .max_recv_wr = 2, .max_send_sge = 1,
			 .max_recv_sge = 1, .max_inline_data = 32 },
	};
	struct ibv_qp *a, *b;
	struct ibv_wc wc[32];
	int got, i;
	bool ok;

	if (!cq)
		return;
	ia.send_cq = ia.recv_cq = cq;
	a = ibv_create_qp(pd, &ia);
	b = ibv_create_qp(pd, &ia);
	if (!a || !b) {
		CHECK_MSG(0, "two QPs on one CQ");
		return;
	}
	ok = !to_state(a, IBV_QPS_INIT, false) && !to_state(b, IBV_QPS_INIT, false) &&
	     !post_sends(a, 3, 10, NULL) && !post_sends(b, 3, 20, NULL) &&
	     !to_state(a, IBV_QPS_ERR, false) && !to_state(b, IBV_QPS_ERR, false) &&
	     !post_sends(a, 2, 13, NULL) && !post_sends(b, 2, 23, NULL);
	CHECK_MSG(ok, "A and B flush 5 sends each, interleaved on one CQ");
	CHECK_MSG(!to_state(a, IBV_QPS_RESET, false), "A -> RESET before polling");
	got = drain(cq, wc, 32);
	ok = got == 5;
	for (i = 0; ok && i < 5; i++)
		ok = wc[i].qp_num == b->qp_num && wc[i].wr_id == (uint64_t)20 + i;
	CHECK_MSG(ok, "only B's 5 completions are left, in order (got %d)", got);

	ok = !to_state(a, IBV_QPS_INIT, false) && !post_sends(a, 2, 30, NULL) &&
	     !to_state(a, IBV_QPS_ERR, false) && !post_sends(b, 2, 40, NULL) &&
	     !post_sends(a, 1, 32, NULL);
	CHECK_MSG(ok, "A flushes 3 more, B 2 more");
	CHECK_MSG(!ibv_destroy_qp(b), "B destroyed before polling");
	got = drain(cq, wc, 32);
	ok = got == 3;
	for (i = 0; ok && i < 3; i++)
		ok = wc[i].qp_num == a->qp_num && wc[i].wr_id == (uint64_t)30 + i;
	CHECK_MSG(ok, "only A's 3 completions are left (got %d)", got);
	CHECK_MSG(!ibv_destroy_qp(a) && !ibv_destroy_cq(cq), "destroy A and the CQ");
}

static void ud_srq_tests(void)
{
	struct ibv_cq *cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 8, .max_sge = 1 } };
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 8, .max_send_sge = 1 },
	};
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };
	struct ibv_srq_attr sq;
	struct ibv_wc wc[16];
	struct ibv_srq *srq;
	struct ibv_ah *ah;
	struct ibv_qp *qp;

	srq = ibv_create_srq(pd, &sa);
	CHECK_MSG(srq && sa.attr.max_wr == 8, "SRQ created (max_wr %u, sge %u)",
	      sa.attr.max_wr, sa.attr.max_sge);
	if (!srq || !cq)
		return;
	CHECK_MSG(!post_recvs(NULL, srq, 8, 300), "8 SRQ receives posted");
	CHECK_MSG(post_recvs(NULL, srq, 1, 400) == ENOMEM, "9th SRQ receive: ENOMEM");
	CHECK_MSG(!ibv_query_srq(srq, &sq) && sq.max_wr == 8, "query_srq");

	ia.send_cq = ia.recv_cq = cq;
	ia.srq = srq;
	qp = ibv_create_qp(pd, &ia);
	CHECK_MSG(qp, "UD QP on the SRQ (errno %d)", qp ? 0 : errno);
	if (!qp)
		goto out_srq;
	CHECK_MSG(!ibv_query_gid(ctx, 1, 0, &aa.grh.dgid), "GID 0");
	aa.grh.sgid_index = 0;
	aa.grh.hop_limit = 64;
	ah = ibv_create_ah(pd, &aa);
	CHECK_MSG(ah, "AH to our own GID 0 (errno %d)", ah ? 0 : errno);
	CHECK_MSG(!to_state(qp, IBV_QPS_INIT, true), "UD RESET -> INIT");
	if (ah) {
		CHECK_MSG(!post_sends(qp, 8, 600, ah), "8 UD sends posted");
		CHECK_MSG(!to_state(qp, IBV_QPS_ERR, true), "UD -> ERR");
		CHECK_MSG(drain(cq, wc, 16) == 8 && all_flushed(wc, 8, qp->qp_num) &&
		      wc[0].wr_id == 600 && wc[7].wr_id == 607,
		      "8 UD sends flushed; SRQ receives not flushed");
		CHECK_MSG(!ibv_destroy_ah(ah), "destroy AH");
	}
	CHECK_MSG(!ibv_destroy_qp(qp), "destroy UD QP");
out_srq:
	CHECK_MSG(!ibv_destroy_srq(srq), "destroy SRQ");
	ibv_destroy_cq(cq);
}

static void cq_ex_tests(void)
{
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 8,
		.wc_flags = IBV_WC_EX_WITH_QP_NUM | IBV_WC_EX_WITH_BYTE_LEN,
	};
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 2, .max_send_sge = 1,
			 .max_recv_sge = 1, .max_inline_data = 32 },
	};
	struct ibv_poll_cq_attr pa = {};
	struct ibv_cq_ex *cqx = ibv_create_cq_ex(ctx, &ca);
	struct ibv_qp *qp;
	int got = 0, ret, ok = 1;

	CHECK_MSG(cqx, "extended CQ (errno %d)", cqx ? 0 : errno);
	if (!cqx)
		return;
	ia.send_cq = ia.recv_cq = ibv_cq_ex_to_cq(cqx);
	qp = ibv_create_qp(pd, &ia);
	CHECK_MSG(qp, "QP on the extended CQ (errno %d)", qp ? 0 : errno);
	if (!qp)
		return;
	CHECK_MSG(!to_state(qp, IBV_QPS_INIT, false) && !post_sends(qp, 3, 700, NULL) &&
	      !to_state(qp, IBV_QPS_ERR, false), "INIT, 3 sends, ERR");
	for (ret = ibv_start_poll(cqx, &pa); ret == ENOENT && got < 1000; got++) {
		poll(NULL, 0, 1);
		ret = ibv_start_poll(cqx, &pa);
	}
	got = 0;
	while (!ret) {
		ok = ok && cqx->status == IBV_WC_WR_FLUSH_ERR &&
		     cqx->wr_id == (uint64_t)700 + got &&
		     ibv_wc_read_qp_num(cqx) == qp->qp_num;
		got++;
		ret = ibv_next_poll(cqx);
	}
	if (got)
		ibv_end_poll(cqx);
	CHECK_MSG(ok && got == 3, "start/next/end_poll: 3 flushed, wr_id, qp_num (got %d)", got);
	CHECK_MSG(!ibv_destroy_qp(qp) && !ibv_destroy_cq(ibv_cq_ex_to_cq(cqx)),
	      "destroy QP and extended CQ");
}

static const char *device_name;
static struct ibv_device **device_list;

/* The device, a PD and an MR for one test; false if there is no device. */
static bool open_device(void)
{
	int i;

	device_list = ibv_get_device_list(NULL);
	for (i = 0; device_list && device_list[i]; i++)
		if (!device_name ||
		    !strcmp(ibv_get_device_name(device_list[i]), device_name))
			break;
	if (!device_list || !device_list[i])
		return false;
	ctx = ibv_open_device(device_list[i]);
	CHECK_MSG(ctx, "open %s", ibv_get_device_name(device_list[i]));
	if (!ctx)
		return true;
	pd = ibv_alloc_pd(ctx);
	mr = pd ? ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE |
			     IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ) :
		  NULL;
	CHECK_MSG(mr, "PD and MR (errno %d)", mr ? 0 : errno);
	return true;
}

static void close_device(void)
{
	CHECK_MSG(!ibv_dereg_mr(mr) && !ibv_dealloc_pd(pd) &&
		  !ibv_close_device(ctx), "dereg MR, dealloc PD, close");
	ibv_free_device_list(device_list);
}

/* Runs body between open_device and close_device. */
#define DEVICE_TEST(name, body)						\
	TEST(name)							\
	{								\
		if (!open_device())					\
			SKIP("no device");				\
		if (ordma_test_failures())				\
			return;						\
		body();							\
		close_device();						\
	}

DEVICE_TEST(rc_sends_and_receives_flushed_through_cq_ring_wraps, rc_tests)
DEVICE_TEST(cqes_of_a_reset_or_destroyed_qp_are_cleaned, clean_tests)
DEVICE_TEST(ud_sends_flushed_srq_receives_kept, ud_srq_tests)
DEVICE_TEST(extended_cq_polls_flushed_sends, cq_ex_tests)

/* The one argument names the device (default: the first) */
int main(int argc, char **argv)
{
	if (argc > 1)
		device_name = argv[1];
	return ordma_test_main(1, argv);
}
