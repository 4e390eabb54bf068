// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The device explains itself through the standard tools: events provoked
 * between two cabled RDMA devices show up in the QP counters of `rdma
 * statistic qp` (the QPs are bound by auto mode, which counters.sh turns
 * on, or here by hand), and `rdma resource show qp` carries the driver's
 * view of a QP and the device's raw QUERY_QP answer:
 *  - a SEND with no receive posted and rnr_retry 1: RNR NAKs, then
 *    rnr_nak_retry_err;
 *  - a WRITE with a bad rkey: resp_remote_access_errors at the
 *    responder, req_remote_access_errors at the requester;
 *  - a SEND to a QP that no longer exists: the retry timer expires and
 *    the request is sent again (local_ack_timeout_err, qp_retransmits),
 *    in the QP counter and in the port's sum;
 *  - a manually bound QP counts on the counter it was bound to.
 *
 * Usage: verbs_counters DEV_A GID_INDEX_A DEV_B GID_INDEX_B [TEST...]
 * Needs rdma (iproute2) and jq.  TAP of the ordma_test runner.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ordma_test.h"
#include "verbs_util.h"

#define PAGE		VERBS_PAGE
#define WR_ID		0x77
/* verbs_rc_qp_connect(): timeout 12, retry_cnt 3, PSNs from 0x100 */
#define RETRY_CNT	3
#define START_PSN	0x100

struct side {
	struct verbs_dev dev;
	struct ibv_mr *mr;
	struct ibv_qp *qp;
	uint8_t buf[PAGE] __attribute__((aligned(PAGE)));
};

static struct verbs_two_devs devs;
static struct side A, B;

static bool side_open(struct side *s, const char *name, int gid_idx)
{
	const struct ibv_qp_cap cap = {
		.max_send_wr = 8, .max_recv_wr = 8,
		.max_send_sge = 1, .max_recv_sge = 1,
	};

	if (verbs_dev_open(&s->dev, name, gid_idx))
		return false;
	s->mr = ibv_reg_mr(s->dev.pd, s->buf, sizeof(s->buf),
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!s->mr) {
		NOTE("%s: ibv_reg_mr: %s", name, strerror(errno));
		return false;
	}
	s->qp = verbs_rc_qp_create(&s->dev, &cap);
	return s->qp != NULL;
}

/* A's and B's RC QPs connected to each other */
static bool setup(uint8_t rnr_retry)
{
	unsigned int access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;

	return side_open(&A, devs.name[0], devs.gid_index[0]) &&
	       side_open(&B, devs.name[1], devs.gid_index[1]) &&
	       !verbs_rc_qp_connect(A.qp, &A.dev, &B.dev, B.qp->qp_num, access,
				    rnr_retry) &&
	       !verbs_rc_qp_connect(B.qp, &B.dev, &A.dev, A.qp->qp_num, access,
				    rnr_retry);
}

/*
 * The number the jq filter @filter makes of the JSON that the rdma
 * command (printf-style @fmt) prints; -1 if either fails.
 */
static long long rdma_json(const char *filter, const char *fmt, ...)
{
	char args[256], cmd[512], out[64];
	long long v = -1;
	va_list ap;
	FILE *p;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof(cmd), "rdma -j %s | jq '%s'", args, filter);
	p = popen(cmd, "r");
	if (!p) {
		NOTE("popen(%s): %s", cmd, strerror(errno));
		return -1;
	}
	if (fgets(out, sizeof(out), p))
		v = strtoll(out, NULL, 0);
	if (pclose(p)) {
		NOTE("%s failed", cmd);
		v = -1;
	}
	if (v < 0) {
		/* what the tool said, for the log */
		snprintf(cmd, sizeof(cmd), "rdma -j %s 2>&1 | head -c 1500 | sed 's/^/# /' >&2",
			 args);
		if (system(cmd))
			NOTE("%s failed", cmd);
	}
	return v;
}

/* Counter @name of the QP counter that QP @qpn of @s is bound to */
static long long qp_counter(const struct side *s, uint32_t qpn,
			    const char *name)
{
	char filter[128];

	snprintf(filter, sizeof(filter),
		 "[.. | objects | .%s? // empty] | add // -2", name);
	return rdma_json(filter, "statistic qp show link %s/1 lqpn %u",
			 ibv_get_device_name(s->dev.ctx->device), qpn);
}

/* Counter @name of the port of @s as rdma statistic shows it */
static long long port_counter(const struct side *s, const char *name)
{
	char filter[128];

	snprintf(filter, sizeof(filter),
		 "[.. | objects | .%s? // empty] | add // -2", name);
	return rdma_json(filter, "statistic show link %s/1",
			 ibv_get_device_name(s->dev.ctx->device));
}

/* Driver attribute @name of QP @qpn of @s in rdma resource show -dd */
static long long qp_res(const struct side *s, uint32_t qpn, const char *name)
{
	char filter[128];

	/* the tool names driver attributes drv_<name> */
	snprintf(filter, sizeof(filter),
		 "[.. | objects | .drv_%s? // empty] | add // -2", name);
	return rdma_json(filter, "-dd resource show qp link %s/1 lqpn %u",
			 ibv_get_device_name(s->dev.ctx->device), qpn);
}

static int run(const char *fmt, ...)
{
	char cmd[256];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	rc = system(cmd);
	if (rc)
		NOTE("%s: exit status 0x%x", cmd, rc);
	return rc;
}

/* A's one completion has status @status */
static bool a_completes(enum ibv_wc_status status)
{
	struct ibv_wc wc;

	if (verbs_poll_one(A.dev.cq, &wc, VERBS_POLL_MS))
		return false;
	if (wc.status != status || wc.wr_id != WR_ID) {
		NOTE("completion wr_id 0x%llx status %s, want %s",
		     (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status),
		     ibv_wc_status_str(status));
		return false;
	}
	return true;
}

/* A WRITE from A to B's buffer with a key B never gave: access error */
static bool a_writes_with_bad_rkey(void)
{
	if (verbs_post_send(A.qp, IBV_WR_RDMA_WRITE, (uintptr_t)A.buf, 64,
			    A.mr->lkey, (uintptr_t)B.buf, B.mr->rkey ^ 0x80,
			    WR_ID)) {
		NOTE("ibv_post_send(WRITE): %s", strerror(errno));
		return false;
	}
	return a_completes(IBV_WC_REM_ACCESS_ERR);
}

TEST(test_counter_rnr_nak)
{
	REQUIRE(setup(1));
	/* B posts no receive: RNR NAK, one retry, RNR NAK, error */
	REQUIRE_EQ(verbs_post_send(A.qp, IBV_WR_SEND, (uintptr_t)A.buf, 64,
				   A.mr->lkey, 0, 0, WR_ID), 0);
	REQUIRE(a_completes(IBV_WC_RNR_RETRY_EXC_ERR));
	CHECK_EQ(qp_counter(&A, A.qp->qp_num, "rnr_nak_retry_err"), 1);
	CHECK_EQ(qp_counter(&A, A.qp->qp_num, "rnr_nak_received"), 2);
	CHECK_EQ(qp_counter(&B, B.qp->qp_num, "rnr_nak_sent"), 2);
	CHECK_EQ(qp_counter(&B, B.qp->qp_num, "rnr_nak_retry_err"), 0);
}

TEST(test_counter_remote_access_error)
{
	REQUIRE(setup(0));
	REQUIRE(a_writes_with_bad_rkey());
	CHECK_EQ(qp_counter(&A, A.qp->qp_num, "req_remote_access_errors"), 1);
	CHECK_EQ(qp_counter(&B, B.qp->qp_num, "resp_remote_access_errors"), 1);
	CHECK_EQ(qp_counter(&B, B.qp->qp_num, "rx_write_requests"), 1);
	CHECK_EQ(qp_counter(&A, A.qp->qp_num, "resp_remote_access_errors"), 0);
}

TEST(test_counter_retransmission)
{
	long long port_before;

	REQUIRE(setup(0));
	port_before = port_counter(&A, "local_ack_timeout_err");
	REQUIRE(port_before >= 0);
	/* the peer is gone: nothing answers, every retry times out */
	REQUIRE_EQ(ibv_destroy_qp(B.qp), 0);
	REQUIRE_EQ(verbs_post_send(A.qp, IBV_WR_SEND, (uintptr_t)A.buf, 64,
				   A.mr->lkey, 0, 0, WR_ID), 0);
	REQUIRE(a_completes(IBV_WC_RETRY_EXC_ERR));
	CHECK_EQ(qp_counter(&A, A.qp->qp_num, "local_ack_timeout_err"),
		 RETRY_CNT + 1);
	CHECK_EQ(qp_counter(&A, A.qp->qp_num, "qp_retransmits"), RETRY_CNT);
	/* the port's sum holds the bound QP's count too */
	CHECK_EQ(port_counter(&A, "local_ack_timeout_err"),
		 port_before + RETRY_CNT + 1);
}

TEST(test_res_qp_driver_fields)
{
	char filter[128];
	long long cqn;

	REQUIRE(setup(0));
	CHECK_EQ(qp_res(&A, A.qp->qp_num, "hw_state"), IBV_QPS_RTS);
	CHECK_EQ(qp_res(&A, A.qp->qp_num, "sq_psn"), START_PSN);
	CHECK_EQ(qp_res(&A, A.qp->qp_num, "rq_psn"), START_PSN);
	CHECK_EQ(qp_res(&A, A.qp->qp_num, "sq_depth"), 8);
	CHECK_EQ(qp_res(&A, A.qp->qp_num, "rq_depth"), 8);
	CHECK_EQ(qp_res(&A, A.qp->qp_num, "retry_cnt"), RETRY_CNT);
	/* the raw dumps are the device's struct ordma_qp_attr (72 bytes)
	 * and struct ordma_cq_attr (32 bytes)
	 */
	CHECK_EQ(rdma_json("[.. | objects | .data? // empty | length] | add // -2",
			   "-r resource show qp link %s/1 lqpn %u",
			   devs.name[0], A.qp->qp_num), 72);
	snprintf(filter, sizeof(filter),
		 "[.. | objects | select(.pid? == %d) | .cqn] | first // -2",
		 (int)getpid());
	cqn = rdma_json(filter, "resource show cq dev %s", devs.name[0]);
	CHECK_EQ(rdma_json("[.. | objects | .data? // empty | length] | add // -2",
			   "-r resource show cq dev %s cqn %lld", devs.name[0],
			   cqn), 32);
}

/* Last: it leaves A's port in manual mode (counters.sh restores auto) */
TEST(test_counter_manual_bind)
{
	const char *a = devs.name[0];
	long long cntn;

	REQUIRE(setup(0));
	REQUIRE_EQ(run("rdma statistic qp set link %s/1 auto off", a), 0);
	/* auto mode bound it already: a manual binding needs it free */
	cntn = rdma_json("[.. | objects | .cntn? // empty] | first // -2",
			 "statistic qp show link %s/1 lqpn %u", a,
			 A.qp->qp_num);
	REQUIRE(cntn > 0);
	REQUIRE_EQ(run("rdma statistic qp unbind link %s/1 cntn %lld lqpn %u",
		       a, cntn, A.qp->qp_num), 0);
	REQUIRE_EQ(run("rdma statistic qp bind link %s/1 lqpn %u", a,
		       A.qp->qp_num), 0);
	REQUIRE(a_writes_with_bad_rkey());
	CHECK_EQ(qp_counter(&A, A.qp->qp_num, "req_remote_access_errors"), 1);
	CHECK_EQ(qp_counter(&A, A.qp->qp_num, "rnr_nak_sent"), 0);
}

int main(int argc, char **argv)
{
	return verbs_two_devs_main(argc, argv, &devs);
}
