// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * What an iWARP device refuses to a verbs user: a memory region with
 * atomic rights (the kernel driver), and in ibv_post_send immediate
 * data, atomics and an RDMA READ with other than one SGE (the provider),
 * each with its errno and bad_wr; an extended QP offering such
 * operations.  Each test has a positive control next to its refusals.
 *
 * Usage: verbs_iwarp DEV [TEST...]  (DEV: an ORDMA device switched to
 * iWARP; iwarp_select.sh runs it).  Output: the ordma_test runner's TAP.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ordma_test.h"
#include "verbs_util.h"

static const char *dev_name;

struct iw {
	struct verbs_dev dev;
	void *buf;
	struct ibv_mr *mr;
	struct ibv_qp *qp;
};

/* The device, a page registered for local and remote write/read, and an
 * RC QP in INIT, where the SQ takes work requests
 */
static bool iw_open(struct iw *t)
{
	struct ibv_qp_cap cap = {
		.max_send_wr = 16, .max_recv_wr = 4,
		.max_send_sge = 2, .max_recv_sge = 1,
	};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ,
	};

	memset(t, 0, sizeof(*t));
	if (verbs_dev_open(&t->dev, dev_name, 0))
		return false;
	if (posix_memalign(&t->buf, VERBS_PAGE, VERBS_PAGE))
		return false;
	t->mr = ibv_reg_mr(t->dev.pd, t->buf, VERBS_PAGE,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ);
	if (!t->mr) {
		NOTE("ibv_reg_mr: %s", strerror(errno));
		return false;
	}
	t->qp = verbs_rc_qp_create(&t->dev, &cap);
	if (!t->qp)
		return false;
	/* state and access only, as iw_cm moves an iWARP QP to INIT */
	errno = ibv_modify_qp(t->qp, &a, IBV_QP_STATE | IBV_QP_ACCESS_FLAGS);
	if (errno) {
		NOTE("ibv_modify_qp to INIT: %s", strerror(errno));
		return false;
	}
	return true;
}

TEST(iwarp_device_reports_no_atomics_and_one_read_sge)
{
	struct ibv_device_attr attr;
	struct iw t;

	REQUIRE(iw_open(&t));
	REQUIRE_EQ(ibv_query_device(t.dev.ctx, &attr), 0);
	CHECK_EQ(t.dev.ctx->device->transport_type, IBV_TRANSPORT_IWARP);
	CHECK_EQ(attr.atomic_cap, IBV_ATOMIC_NONE);
	CHECK_EQ(attr.max_sge_rd, 1);
}

TEST(iwarp_reg_mr_with_remote_atomic_is_eopnotsupp)
{
	struct ibv_mr *mr;
	struct iw t;

	REQUIRE(iw_open(&t));
	errno = 0;
	mr = ibv_reg_mr(t.dev.pd, t.buf, VERBS_PAGE,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_ATOMIC);
	CHECK(!mr);
	CHECK_EQ(errno, EOPNOTSUPP);
	/* the control: iw_open registered the page without atomics */
	CHECK(t.mr != NULL);
}

/* A SEND, then wr: the provider refuses wr with EINVAL at wr */
static void refused(struct iw *t, struct ibv_send_wr *wr, const char *what)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)t->buf, .length = 8, .lkey = t->mr->lkey,
	};
	struct ibv_send_wr send = {
		.wr_id = 1, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .next = wr,
	};
	struct ibv_send_wr *bad = NULL;

	if (!CHECK_EQ(ibv_post_send(t->qp, &send, &bad), EINVAL) ||
	    !CHECK(bad == wr))
		NOTE("%s: bad_wr %s", what, bad == &send ? "the SEND" :
		     bad ? "elsewhere" : "NULL");
}

TEST(iwarp_post_send_refuses_imm_atomics_multi_sge_read)
{
	static const enum ibv_wr_opcode ops[] = {
		IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE_WITH_IMM,
		IBV_WR_ATOMIC_CMP_AND_SWP, IBV_WR_ATOMIC_FETCH_AND_ADD,
	};
	static const char *const names[] = {
		"SEND_WITH_IMM", "RDMA_WRITE_WITH_IMM", "ATOMIC_CMP_AND_SWP",
		"ATOMIC_FETCH_AND_ADD",
	};
	struct ibv_sge sge[2];
	struct ibv_send_wr wr, *bad = NULL;
	struct iw t;
	size_t i;

	REQUIRE(iw_open(&t));
	for (i = 0; i < 2; i++) {
		sge[i].addr = (uintptr_t)t.buf + 8 * i;
		sge[i].length = 8;
		sge[i].lkey = t.mr->lkey;
	}
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		memset(&wr, 0, sizeof(wr));
		wr.opcode = ops[i];
		wr.sg_list = sge;
		wr.num_sge = 1;
		wr.wr.rdma.rkey = t.mr->rkey;
		wr.wr.atomic.rkey = t.mr->rkey;
		refused(&t, &wr, names[i]);
	}
	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_RDMA_READ;
	wr.sg_list = sge;
	wr.num_sge = 2;
	wr.wr.rdma.rkey = t.mr->rkey;
	refused(&t, &wr, "RDMA READ, 2 SGEs");
	/* the control: an RDMA READ into one buffer is taken */
	wr.num_sge = 1;
	CHECK_EQ(ibv_post_send(t.qp, &wr, &bad), 0);
}

TEST(iwarp_extended_qp_with_atomics_is_eopnotsupp)
{
	struct ibv_qp_init_attr_ex ia;
	struct ibv_qp *qp;
	struct iw t;

	REQUIRE(iw_open(&t));
	memset(&ia, 0, sizeof(ia));
	ia.qp_type = IBV_QPT_RC;
	ia.send_cq = t.dev.cq;
	ia.recv_cq = t.dev.cq;
	ia.cap.max_send_wr = 4;
	ia.cap.max_recv_wr = 4;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	ia.pd = t.dev.pd;
	ia.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	ia.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_READ;
	qp = ibv_create_qp_ex(t.dev.ctx, &ia);
	CHECK(qp != NULL);
	if (qp)
		ibv_destroy_qp(qp);
	ia.send_ops_flags |= IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD;
	errno = 0;
	qp = ibv_create_qp_ex(t.dev.ctx, &ia);
	CHECK(!qp);
	CHECK_EQ(errno, EOPNOTSUPP);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s DEV [TEST...]\n", argv[0]);
		return 2;
	}
	dev_name = argv[1];
	argv[1] = argv[0];
	return ordma_test_main(argc - 1, argv + 1);
}
