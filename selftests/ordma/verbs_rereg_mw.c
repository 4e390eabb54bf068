// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rereg_mr of an MR with a bound memory window, through libibverbs.
 * A window keeps the rights it was bound with over the MR's pages; a
 * rereg that changed the MR's access or translation underneath it
 * would leave the window writing pages the MR may no longer write.  So
 * the rereg must fail with EBUSY while a window is bound (type 1 or
 * type 2), the MR and the window must keep working as before, and
 * once the windows are gone the same rereg must succeed.
 *
 * Usage: verbs_rereg_mw DEV_A GID_INDEX_A DEV_B GID_INDEX_B [TEST...]
 * The MR and windows are on DEV_A; DEV_B writes through them.  Each
 * test opens both devices afresh in its own process; the output is the
 * ordma_test runner's TAP.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ordma_test.h"
#include "verbs_util.h"

#define PAGE		VERBS_PAGE
#define MR_ACCESS	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_MW_BIND)
#define QP_ACCESS	(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ)

struct side {
	struct verbs_dev dev;
	struct ibv_qp *qp;
	uint8_t *buf;		/* 2 pages: the MR's, and another one */
	struct ibv_mr *mr;	/* the first page */
};

static struct verbs_two_devs devs;
static struct side A, B;

static bool side_open(struct side *s, const char *name, int gid_idx,
		      unsigned int access)
{
	const struct ibv_qp_cap cap = {
		.max_send_wr = 16, .max_recv_wr = 4,
		.max_send_sge = 1, .max_recv_sge = 1,
	};

	if (verbs_dev_open(&s->dev, name, gid_idx))
		return false;
	s->qp = verbs_rc_qp_create(&s->dev, &cap);
	if (!s->qp)
		return false;
	if (posix_memalign((void **)&s->buf, PAGE, 2 * PAGE)) {
		NOTE("posix_memalign failed");
		return false;
	}
	memset(s->buf, 0, 2 * PAGE);
	s->mr = ibv_reg_mr(s->dev.pd, s->buf, PAGE, access);
	if (!s->mr)
		NOTE("%s: ibv_reg_mr: %s", name, strerror(errno));
	return s->mr;
}

/* The fixture of every test: the MR on A, B connected to A */
static bool setup(void)
{
	return side_open(&A, devs.name[0], devs.gid_index[0], MR_ACCESS) &&
	       side_open(&B, devs.name[1], devs.gid_index[1], IBV_ACCESS_LOCAL_WRITE) &&
	       !verbs_rc_qp_connect(A.qp, &A.dev, &B.dev, B.qp->qp_num,
				    QP_ACCESS, 0) &&
	       !verbs_rc_qp_connect(B.qp, &B.dev, &A.dev, A.qp->qp_num,
				    QP_ACCESS, 0);
}

/* The completion of wr_id on cq: its status, or -1. */
static int wait_wc(struct ibv_cq *cq, uint64_t wr_id)
{
	struct ibv_wc wc;

	if (verbs_poll_one(cq, &wc, VERBS_POLL_MS) || wc.wr_id != wr_id)
		return -1;
	return wc.status;
}

/*
 * B writes 64 bytes of value v at offset off of A's MR page through
 * rkey (addr in the MR's or the window's space); true when it completed
 * and A's page shows it.
 */
static bool remote_write(uint32_t rkey, uint64_t addr, unsigned int off,
			 uint8_t v)
{
	static uint64_t id = 100;
	int st;

	memset(B.buf + off, v, 64);
	if (verbs_post_send(B.qp, IBV_WR_RDMA_WRITE, (uintptr_t)B.buf + off,
			    64, B.mr->lkey, addr + off, rkey, ++id)) {
		NOTE("ibv_post_send: %s", strerror(errno));
		return false;
	}
	st = wait_wc(B.dev.cq, id);
	if (st != IBV_WC_SUCCESS) {
		NOTE("WRITE completed with %s (%d)",
		     st < 0 ? "nothing" : ibv_wc_status_str(st), st);
		return false;
	}
	if (A.buf[off] != v || A.buf[off + 63] != v) {
		NOTE("the data did not land (0x%02x)", A.buf[off]);
		return false;
	}
	return true;
}

static struct ibv_mw_bind_info whole_page(void)
{
	return (struct ibv_mw_bind_info){
		.mr = A.mr, .addr = (uintptr_t)A.buf, .length = PAGE,
		.mw_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};
}

/* A type 1 window over the whole MR page, bound for remote write */
static struct ibv_mw *bind_type1(void)
{
	struct ibv_mw_bind bind = {
		.wr_id = 1, .send_flags = IBV_SEND_SIGNALED,
		.bind_info = whole_page(),
	};
	struct ibv_mw *mw = ibv_alloc_mw(A.dev.pd, IBV_MW_TYPE_1);
	int rc;

	if (!mw) {
		NOTE("ibv_alloc_mw type 1: %s", strerror(errno));
		return NULL;
	}
	rc = ibv_bind_mw(A.qp, mw, &bind);
	if (!rc)
		rc = wait_wc(A.dev.cq, 1);
	if (rc != IBV_WC_SUCCESS) {
		NOTE("binding the type 1 window failed (%d)", rc);
		return NULL;
	}
	return mw;
}

/* The same over a type 2 window, bound by a BIND_MW work request */
static struct ibv_mw *bind_type2(void)
{
	struct ibv_mw *mw = ibv_alloc_mw(A.dev.pd, IBV_MW_TYPE_2);
	struct ibv_send_wr wr = {
		.wr_id = 2,
		.opcode = IBV_WR_BIND_MW,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	int rc;

	if (!mw) {
		NOTE("ibv_alloc_mw type 2: %s", strerror(errno));
		return NULL;
	}
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info = whole_page();
	rc = ibv_post_send(A.qp, &wr, &bad);
	if (!rc)
		rc = wait_wc(A.dev.cq, 2);
	if (rc != IBV_WC_SUCCESS) {
		/* e.g. an earlier rereg took MW_BIND away from the MR */
		NOTE("binding the type 2 window failed (%d)", rc);
		return NULL;
	}
	return mw;
}

/* rereg must fail as a refused command with EBUSY, keys unchanged */
static bool expect_busy(int flags, void *addr, int access)
{
	uint32_t lkey = A.mr->lkey, rkey = A.mr->rkey;
	int rc, err;

	errno = 0;
	rc = ibv_rereg_mr(A.mr, flags, NULL, addr, addr ? PAGE : 0, access);
	err = errno;
	if (rc != IBV_REREG_MR_ERR_CMD || err != EBUSY ||
	    A.mr->lkey != lkey || A.mr->rkey != rkey)
		NOTE("ibv_rereg_mr returned %d, errno %d (%s), keys %#x/%#x -> %#x/%#x",
		     rc, err, strerror(err), lkey, rkey, A.mr->lkey,
		     A.mr->rkey);
	return CHECK(rc == IBV_REREG_MR_ERR_CMD && err == EBUSY &&
		     A.mr->lkey == lkey && A.mr->rkey == rkey);
}

TEST(control_rdma_write_through_bound_type1_window_lands)
{
	struct ibv_mw *mw1;

	REQUIRE(setup());
	mw1 = bind_type1();
	REQUIRE(mw1);
	CHECK(remote_write(mw1->rkey, (uintptr_t)A.buf, 0, 0x11));
}

TEST(rereg_to_local_only_access_with_bound_window_is_ebusy)
{
	REQUIRE(setup());
	REQUIRE(bind_type1());
	expect_busy(IBV_REREG_MR_CHANGE_ACCESS, NULL, IBV_ACCESS_LOCAL_WRITE);
}

TEST(rereg_to_another_page_with_bound_window_is_ebusy)
{
	REQUIRE(setup());
	REQUIRE(bind_type1());
	expect_busy(IBV_REREG_MR_CHANGE_TRANSLATION, A.buf + PAGE, 0);
}

TEST(mr_and_window_still_work_after_refused_rereg)
{
	struct ibv_mw *mw1;

	REQUIRE(setup());
	mw1 = bind_type1();
	REQUIRE(mw1);
	REQUIRE(expect_busy(IBV_REREG_MR_CHANGE_ACCESS, NULL,
			    IBV_ACCESS_LOCAL_WRITE));
	REQUIRE(expect_busy(IBV_REREG_MR_CHANGE_TRANSLATION, A.buf + PAGE, 0));
	CHECK(remote_write(A.mr->rkey, (uintptr_t)A.buf, 128, 0x22) &&
	      remote_write(mw1->rkey, (uintptr_t)A.buf, 256, 0x33));
}

TEST(rereg_with_bound_type2_window_is_ebusy)
{
	struct ibv_mw *mw1;

	REQUIRE(setup());
	/* after a type 1 window came and went, as an application would */
	mw1 = bind_type1();
	REQUIRE(mw1);
	REQUIRE(!ibv_dealloc_mw(mw1));
	REQUIRE(bind_type2());
	expect_busy(IBV_REREG_MR_CHANGE_ACCESS, NULL, IBV_ACCESS_LOCAL_WRITE);
}

TEST(control_rereg_succeeds_once_the_windows_are_gone)
{
	struct ibv_mw *mw;
	int rc;

	REQUIRE(setup());
	mw = bind_type1();
	REQUIRE(mw);
	REQUIRE(!ibv_dealloc_mw(mw));
	mw = bind_type2();
	REQUIRE(mw);
	REQUIRE(!ibv_dealloc_mw(mw));
	errno = 0;
	rc = ibv_rereg_mr(A.mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			  IBV_ACCESS_LOCAL_WRITE);
	if (rc)
		NOTE("ibv_rereg_mr returned %d, errno %d (%s)", rc, errno,
		     strerror(errno));
	CHECK_EQ(rc, 0);
}

int main(int argc, char **argv)
{
	return verbs_two_devs_main(argc, argv, &devs);
}
