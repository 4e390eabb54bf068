// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Negative verbs tests between two RDMA devices cabled to each other:
 * every request the IBTA says must fail gets its error completion or
 * errno, and no byte of the target's memory outside what was allowed
 * changes.  A positive control runs first so that a dead data path
 * cannot pass as "everything was refused".
 *
 * Usage: verbs_negative DEV_A GID_INDEX_A DEV_B GID_INDEX_B [TEST...]
 * Each test opens both devices afresh in its own process; the output is
 * the ordma_test runner's TAP.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ordma_test.h"
#include "verbs_util.h"

#define PAGE		VERBS_PAGE
#define TARGET_BYTE	0x3c
#define SOURCE_BYTE	0x5a
#define WR_ID		0x1234
#define QP_ACCESS	(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | \
			 IBV_ACCESS_REMOTE_ATOMIC)

struct side {
	struct verbs_dev dev;
	struct ibv_pd *other_pd;
	uint8_t *buf;		/* a guarded buffer: guard, target, guard */
	struct ibv_mr *mr;	/* the middle page, remote read/write/atomic */
	struct ibv_mr *mr_other_pd;	/* same page, other PD */
	struct ibv_mr *mr_local;	/* same page, local write only */
};

struct pair {
	struct ibv_qp *qa;	/* requester on side A */
	struct ibv_qp *qb;	/* responder on side B */
};

static struct verbs_two_devs devs;
static struct side A, B;

static bool side_open(struct side *s, const char *name, int gid_idx)
{
	if (verbs_dev_open(&s->dev, name, gid_idx))
		return false;
	s->other_pd = ibv_alloc_pd(s->dev.ctx);
	if (!s->other_pd || posix_memalign((void **)&s->buf, PAGE,
					   VERBS_GUARDED_SIZE)) {
		NOTE("%s: second PD or buffer: %s", name, strerror(errno));
		return false;
	}
	s->mr = ibv_reg_mr(s->dev.pd, s->buf + PAGE, PAGE,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
	s->mr_other_pd = ibv_reg_mr(s->other_pd, s->buf + PAGE, PAGE,
				    IBV_ACCESS_LOCAL_WRITE |
				    IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_REMOTE_READ);
	s->mr_local = ibv_reg_mr(s->dev.pd, s->buf + PAGE, PAGE,
				 IBV_ACCESS_LOCAL_WRITE);
	if (!s->mr || !s->mr_other_pd || !s->mr_local) {
		NOTE("%s: ibv_reg_mr: %s", name, strerror(errno));
		return false;
	}
	return true;
}

/* Both sides open; the fixture of every test. */
static bool setup(void)
{
	return side_open(&A, devs.name[0], devs.gid_index[0]) &&
	       side_open(&B, devs.name[1], devs.gid_index[1]);
}

static struct ibv_qp *qp_create(struct side *s)
{
	const struct ibv_qp_cap cap = {
		.max_send_wr = 16, .max_recv_wr = 16,
		.max_send_sge = 2, .max_recv_sge = 2,
	};

	return verbs_rc_qp_create(&s->dev, &cap);
}

static bool pair_up(struct pair *p, uint8_t rnr_retry)
{
	p->qa = qp_create(&A);
	p->qb = qp_create(&B);
	return p->qa && p->qb &&
	       !verbs_rc_qp_connect(p->qa, &A.dev, &B.dev, p->qb->qp_num,
				    QP_ACCESS, rnr_retry) &&
	       !verbs_rc_qp_connect(p->qb, &B.dev, &A.dev, p->qa->qp_num,
				    QP_ACCESS, rnr_retry);
}

static int post_rdma(struct ibv_qp *qp, enum ibv_wr_opcode op, void *laddr,
		     uint32_t len, uint32_t lkey, uint64_t raddr, uint32_t rkey)
{
	return verbs_post_send(qp, op, (uintptr_t)laddr, len, lkey, raddr,
			       rkey, WR_ID);
}

static int poll_one(struct ibv_cq *cq, struct ibv_wc *wc)
{
	return verbs_poll_one(cq, wc, VERBS_POLL_MS);
}

/* The guarded buffer of @s still holds @fill; else say where it does not. */
static bool untouched(const struct side *s, uint8_t fill)
{
	char why[128];

	if (verbs_guarded_intact(s->buf, fill, why, sizeof(why)))
		return true;
	NOTE("%s", why);
	return false;
}

static uint64_t target(void)
{
	return (uintptr_t)B.buf + PAGE;
}

/*
 * One RDMA WRITE/READ from A to B's target page that must fail with
 * want_status at the requester and change nothing on B (WRITE) or in A's
 * local page (READ).
 */
static void remote_case(enum ibv_wr_opcode op, uint64_t raddr, uint32_t rkey,
			uint32_t len, enum ibv_wc_status want_status)
{
	struct pair p;
	struct ibv_wc wc;

	REQUIRE(pair_up(&p, 7));
	verbs_guarded_fill(A.buf, SOURCE_BYTE);
	verbs_guarded_fill(B.buf, TARGET_BYTE);
	REQUIRE(!post_rdma(p.qa, op, A.buf + PAGE, len, A.mr->lkey, raddr,
			   rkey));
	REQUIRE(!poll_one(A.dev.cq, &wc));
	if (wc.status != want_status)
		NOTE("status %s", ibv_wc_status_str(wc.status));
	REQUIRE_EQ(wc.status, want_status);
	REQUIRE_EQ(wc.wr_id, WR_ID);
	REQUIRE(untouched(&B, TARGET_BYTE));
	CHECK(untouched(&A, SOURCE_BYTE));
}

/* positive control: RDMA WRITE of 4096 bytes lands */
TEST(positive_control_rdma_write_lands)
{
	struct pair p;
	struct ibv_wc wc;

	REQUIRE(setup());
	REQUIRE(pair_up(&p, 7));
	verbs_guarded_fill(A.buf, SOURCE_BYTE);
	verbs_guarded_fill(B.buf, TARGET_BYTE);
	REQUIRE(!post_rdma(p.qa, IBV_WR_RDMA_WRITE, A.buf + PAGE, PAGE,
			   A.mr->lkey, target(), B.mr->rkey));
	REQUIRE(!poll_one(A.dev.cq, &wc));
	if (wc.status != IBV_WC_SUCCESS)
		NOTE("status %s", ibv_wc_status_str(wc.status));
	REQUIRE_EQ(wc.status, IBV_WC_SUCCESS);
	REQUIRE_EQ(wc.opcode, IBV_WC_RDMA_WRITE);
	/* target page = the source bytes, guards as they were */
	CHECK(untouched(&B, SOURCE_BYTE));
}

TEST(write_with_wrong_rkey_is_rem_access_err_target_unchanged)
{
	REQUIRE(setup());
	remote_case(IBV_WR_RDMA_WRITE, target(), B.mr->rkey ^ 0x80, 64,
		    IBV_WC_REM_ACCESS_ERR);
}

TEST(write_past_mr_end_is_rem_access_err_guard_unchanged)
{
	REQUIRE(setup());
	remote_case(IBV_WR_RDMA_WRITE, target() + PAGE - 100, B.mr->rkey, 200,
		    IBV_WC_REM_ACCESS_ERR);
}

TEST(write_before_mr_start_is_rem_access_err)
{
	REQUIRE(setup());
	remote_case(IBV_WR_RDMA_WRITE, target() - 8, B.mr->rkey, 64,
		    IBV_WC_REM_ACCESS_ERR);
}

TEST(read_past_mr_end_is_rem_access_err_local_unchanged)
{
	REQUIRE(setup());
	remote_case(IBV_WR_RDMA_READ, target() + PAGE - 100, B.mr->rkey, 200,
		    IBV_WC_REM_ACCESS_ERR);
}

TEST(write_to_mr_of_other_pd_is_rem_access_err)
{
	REQUIRE(setup());
	remote_case(IBV_WR_RDMA_WRITE, target(), B.mr_other_pd->rkey, 64,
		    IBV_WC_REM_ACCESS_ERR);
}

TEST(write_to_mr_without_remote_write_is_rem_access_err)
{
	REQUIRE(setup());
	remote_case(IBV_WR_RDMA_WRITE, target(), B.mr_local->rkey, 64,
		    IBV_WC_REM_ACCESS_ERR);
}

TEST(read_from_mr_without_remote_read_is_rem_access_err)
{
	REQUIRE(setup());
	remote_case(IBV_WR_RDMA_READ, target(), B.mr_local->rkey, 64,
		    IBV_WC_REM_ACCESS_ERR);
}

TEST(write_from_bad_lkey_is_loc_prot_err)
{
	struct pair p;
	struct ibv_wc wc;

	REQUIRE(setup());
	REQUIRE(pair_up(&p, 7));
	verbs_guarded_fill(B.buf, TARGET_BYTE);
	REQUIRE(!post_rdma(p.qa, IBV_WR_RDMA_WRITE, A.buf + PAGE, 64,
			   A.mr->lkey ^ 0x5500, target(), B.mr->rkey));
	REQUIRE(!poll_one(A.dev.cq, &wc));
	if (wc.status != IBV_WC_LOC_PROT_ERR)
		NOTE("status %s", ibv_wc_status_str(wc.status));
	CHECK_EQ(wc.status, IBV_WC_LOC_PROT_ERR);
	CHECK(untouched(&B, TARGET_BYTE));
}

TEST(next_wqe_after_remote_access_error_flushes)
{
	struct ibv_wc wc1, wc2;
	struct pair p;
	int rc;

	REQUIRE(setup());
	REQUIRE(pair_up(&p, 7));
	/* first WQE */
	REQUIRE(!post_rdma(p.qa, IBV_WR_RDMA_WRITE, A.buf + PAGE, 64,
			   A.mr->lkey, target(), B.mr->rkey ^ 0xff));
	REQUIRE(!poll_one(A.dev.cq, &wc1));
	/* second WQE, on a QP now in error: accepted, then flushed */
	rc = post_rdma(p.qa, IBV_WR_RDMA_WRITE, A.buf + PAGE, 64, A.mr->lkey,
		       target(), B.mr->rkey);
	if (rc)
		NOTE("second WQE: ibv_post_send: %s", strerror(rc));
	REQUIRE(!rc);
	REQUIRE(!poll_one(A.dev.cq, &wc2));
	NOTE("statuses %s, %s", ibv_wc_status_str(wc1.status),
	     ibv_wc_status_str(wc2.status));
	CHECK_EQ(wc1.status, IBV_WC_REM_ACCESS_ERR);
	CHECK_EQ(wc2.status, IBV_WC_WR_FLUSH_ERR);
}

TEST(send_larger_than_receive_buffer_is_rem_inv_req_err_and_loc_len_err)
{
	struct ibv_wc wa, wb;
	struct pair p;
	size_t i;

	REQUIRE(setup());
	REQUIRE(pair_up(&p, 7));
	verbs_guarded_fill(B.buf, TARGET_BYTE);
	REQUIRE(!verbs_post_recv(p.qb, target(), 100, B.mr->lkey, 7));
	REQUIRE(!post_rdma(p.qa, IBV_WR_SEND, A.buf + PAGE, 200, A.mr->lkey,
			   0, 0));
	REQUIRE(!poll_one(A.dev.cq, &wa));
	REQUIRE(!poll_one(B.dev.cq, &wb));
	NOTE("requester %s, responder %s", ibv_wc_status_str(wa.status),
	     ibv_wc_status_str(wb.status));
	CHECK_EQ(wa.status, IBV_WC_REM_INV_REQ_ERR);
	CHECK_EQ(wb.status, IBV_WC_LOC_LEN_ERR);
	CHECK_EQ(wb.wr_id, 7);
	/*
	 * The responder may have placed the first 100 bytes: only the
	 * guards and the rest of the page must be untouched.
	 */
	for (i = 100; i < PAGE; i++)
		if (!CHECK_EQ(B.buf[PAGE + i], TARGET_BYTE))
			break;
	memset(B.buf + PAGE, TARGET_BYTE, 100);
	CHECK(untouched(&B, TARGET_BYTE));
}

TEST(send_without_receive_and_rnr_retry_0_is_rnr_retry_exc_err)
{
	struct ibv_wc wc;
	struct pair p;

	REQUIRE(setup());
	REQUIRE(pair_up(&p, 0));
	REQUIRE(!post_rdma(p.qa, IBV_WR_SEND, A.buf + PAGE, 16, A.mr->lkey,
			   0, 0));
	REQUIRE(!poll_one(A.dev.cq, &wc));
	if (wc.status != IBV_WC_RNR_RETRY_EXC_ERR)
		NOTE("status %s", ibv_wc_status_str(wc.status));
	CHECK_EQ(wc.status, IBV_WC_RNR_RETRY_EXC_ERR);
	CHECK(verbs_cq_quiet(B.dev.cq, 200));
}

TEST(post_send_on_qp_in_reset_is_refused)
{
	struct ibv_qp *qp;
	int rc;

	REQUIRE(setup());
	qp = qp_create(&A);
	REQUIRE(qp);
	rc = post_rdma(qp, IBV_WR_RDMA_WRITE, A.buf + PAGE, 64, A.mr->lkey,
		       target(), B.mr->rkey);
	NOTE("ibv_post_send returned %d", rc);
	CHECK(rc != 0);
	CHECK(verbs_cq_quiet(A.dev.cq, 200));
}

TEST(modify_reset_to_rts_is_einval_and_qp_stays_in_reset)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTS };
	struct ibv_qp_init_attr qi;
	struct ibv_qp_attr q;
	struct ibv_qp *qp;

	REQUIRE(setup());
	qp = qp_create(&A);
	REQUIRE(qp);
	CHECK_EQ(ibv_modify_qp(qp, &a, IBV_QP_STATE), EINVAL);
	REQUIRE(!ibv_query_qp(qp, &q, IBV_QP_STATE, &qi));
	CHECK_EQ(q.qp_state, IBV_QPS_RESET);
}

TEST(reg_mr_with_remote_write_but_not_local_write_is_einval)
{
	struct ibv_mr *mr;

	REQUIRE(setup());
	/* IBTA: remote write needs local write */
	errno = 0;
	mr = ibv_reg_mr(A.dev.pd, A.buf + PAGE, PAGE, IBV_ACCESS_REMOTE_WRITE);
	CHECK(!mr);
	CHECK_EQ(errno, EINVAL);
}

int main(int argc, char **argv)
{
	return verbs_two_devs_main(argc, argv, &devs);
}
