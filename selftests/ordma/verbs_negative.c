// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Negative verbs tests between two RDMA devices cabled to each other:
 * every request the IBTA says must fail gets its error completion or
 * errno, and no byte of the target's memory outside what was allowed
 * changes.  A positive control runs first so that a dead data path
 * cannot pass as "everything was refused".
 *
 * Usage: verbs_negative DEV_A GID_INDEX_A DEV_B GID_INDEX_B
 * Prints TAP lines ("ok N - name" / "not ok N - name: why") and a last
 * line "# N cases"; exit status 0 when every case passed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#define PAGE		4096
#define POLL_MS		20000
#define GUARD_BYTE	0xa5
#define TARGET_BYTE	0x3c
#define SOURCE_BYTE	0x5a

struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_pd *other_pd;
	struct ibv_cq *cq;
	union ibv_gid gid;
	int gid_index;
	uint8_t *buf;		/* 3 pages: guard, target, guard */
	struct ibv_mr *mr;	/* the middle page, remote read/write/atomic */
	struct ibv_mr *mr_other_pd;	/* same page, other PD */
	struct ibv_mr *mr_local;	/* same page, local write only */
};

struct pair {
	struct ibv_qp *qa;	/* requester on side A */
	struct ibv_qp *qb;	/* responder on side B */
};

static struct side A, B;
static int case_num;
static int failures;

static void result(bool ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	case_num++;
	if (ok) {
		printf("ok %d - %s\n", case_num, name);
	} else {
		failures++;
		printf("not ok %d - %s: ", case_num, name);
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		printf("\n");
	}
	fflush(stdout);
}

static void die(const char *what)
{
	printf("Bail out! %s: %s\n", what, strerror(errno));
	exit(1);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ull + ts.tv_nsec / 1000000;
}

/* One completion from cq, or status -1 after POLL_MS. */
static int poll_one(struct ibv_cq *cq, struct ibv_wc *wc)
{
	uint64_t end = now_ms() + POLL_MS;
	int n;

	do {
		n = ibv_poll_cq(cq, 1, wc);
		if (n < 0)
			return -1;
		if (n == 1)
			return 0;
		usleep(100);
	} while (now_ms() < end);
	return -1;
}

/* Nothing shows up on cq for ms milliseconds. */
static bool cq_quiet(struct ibv_cq *cq, unsigned int ms)
{
	uint64_t end = now_ms() + ms;
	struct ibv_wc wc;

	do {
		if (ibv_poll_cq(cq, 1, &wc) != 0)
			return false;
		usleep(1000);
	} while (now_ms() < end);
	return true;
}

static void side_open(struct side *s, const char *name, int gid_index)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	int i;

	if (!list)
		die("ibv_get_device_list");
	for (i = 0; list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			break;
	if (!list[i]) {
		errno = ENODEV;
		die(name);
	}
	s->ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!s->ctx)
		die("ibv_open_device");
	s->gid_index = gid_index;
	if (ibv_query_gid(s->ctx, 1, gid_index, &s->gid))
		die("ibv_query_gid");
	s->pd = ibv_alloc_pd(s->ctx);
	s->other_pd = ibv_alloc_pd(s->ctx);
	s->cq = ibv_create_cq(s->ctx, 64, NULL, NULL, 0);
	if (!s->pd || !s->other_pd || !s->cq)
		die("pd/cq");
	if (posix_memalign((void **)&s->buf, PAGE, 3 * PAGE))
		die("posix_memalign");
	s->mr = ibv_reg_mr(s->pd, s->buf + PAGE, PAGE,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
	s->mr_other_pd = ibv_reg_mr(s->other_pd, s->buf + PAGE, PAGE,
				    IBV_ACCESS_LOCAL_WRITE |
				    IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_REMOTE_READ);
	s->mr_local = ibv_reg_mr(s->pd, s->buf + PAGE, PAGE,
				 IBV_ACCESS_LOCAL_WRITE);
	if (!s->mr || !s->mr_other_pd || !s->mr_local)
		die("ibv_reg_mr");
}

static void fill(struct side *s, uint8_t target)
{
	memset(s->buf, GUARD_BYTE, PAGE);
	memset(s->buf + PAGE, target, PAGE);
	memset(s->buf + 2 * PAGE, GUARD_BYTE, PAGE);
}

/* All of s's three pages still hold what fill(s, target) wrote. */
static bool untouched(const struct side *s, uint8_t target, char *why,
		      size_t whylen)
{
	for (size_t i = 0; i < 3 * PAGE; i++) {
		uint8_t want = (i >= PAGE && i < 2 * PAGE) ? target : GUARD_BYTE;

		if (s->buf[i] != want) {
			snprintf(why, whylen, "byte %zu of the 3 pages is 0x%02x, not 0x%02x",
				 i, s->buf[i], want);
			return false;
		}
	}
	return true;
}

static struct ibv_qp *qp_create(struct side *s)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = s->cq,
		.recv_cq = s->cq,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 2, .max_recv_sge = 2 },
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_qp *qp = ibv_create_qp(s->pd, &ia);

	if (!qp)
		die("ibv_create_qp");
	return qp;
}

static int qp_to_rts(struct ibv_qp *qp, struct side *self, struct side *peer,
		     uint32_t dest_qpn, uint8_t rnr_retry)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dest_qpn;
	a.rq_psn = 0x100;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = peer->gid;
	a.ah_attr.grh.sgid_index = self->gid_index;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 12;
	a.retry_cnt = 3;
	a.rnr_retry = rnr_retry;
	a.sq_psn = 0x100;
	a.max_rd_atomic = 4;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

static struct pair pair_up(uint8_t rnr_retry)
{
	struct pair p = { qp_create(&A), qp_create(&B) };

	if (qp_to_rts(p.qa, &A, &B, p.qb->qp_num, rnr_retry) ||
	    qp_to_rts(p.qb, &B, &A, p.qa->qp_num, rnr_retry))
		die("connect QPs");
	return p;
}

static void pair_down(struct pair *p)
{
	struct ibv_wc wc;

	ibv_destroy_qp(p->qa);
	ibv_destroy_qp(p->qb);
	while (ibv_poll_cq(A.cq, 1, &wc) > 0)
		;
	while (ibv_poll_cq(B.cq, 1, &wc) > 0)
		;
}

static int post_rdma(struct ibv_qp *qp, enum ibv_wr_opcode op, void *laddr,
		     uint32_t len, uint32_t lkey, uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)laddr, .length = len, .lkey = lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 0x1234,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = raddr, .rkey = rkey },
	}, *bad;

	return ibv_post_send(qp, &wr, &bad);
}

/*
 * One RDMA WRITE/READ from A to B's target page that must fail with
 * want_status at the requester and change nothing on B (WRITE) or in A's
 * local page (READ).
 */
static void remote_case(const char *name, enum ibv_wr_opcode op,
			uint64_t raddr, uint32_t rkey, uint32_t len,
			enum ibv_wc_status want_status)
{
	struct pair p = pair_up(7);
	struct ibv_wc wc;
	char why[128] = "";
	bool ok;

	fill(&A, SOURCE_BYTE);
	fill(&B, TARGET_BYTE);
	if (post_rdma(p.qa, op, A.buf + PAGE, len, A.mr->lkey, raddr, rkey)) {
		result(false, name, "ibv_post_send: %s", strerror(errno));
		goto out;
	}
	if (poll_one(A.cq, &wc)) {
		result(false, name, "no completion within %d ms", POLL_MS);
		goto out;
	}
	ok = wc.status == want_status && wc.wr_id == 0x1234;
	if (!ok)
		snprintf(why, sizeof(why), "status %s (%d), wr_id 0x%" PRIx64,
			 ibv_wc_status_str(wc.status), wc.status, wc.wr_id);
	if (ok)
		ok = untouched(&B, TARGET_BYTE, why, sizeof(why));
	if (ok)
		ok = untouched(&A, SOURCE_BYTE, why, sizeof(why));
	result(ok, name, "%s", why);
out:
	pair_down(&p);
}

static void case_positive_write(void)
{
	struct pair p = pair_up(7);
	const char *name = "positive control: RDMA WRITE of 4096 bytes lands";
	struct ibv_wc wc;

	fill(&A, SOURCE_BYTE);
	fill(&B, TARGET_BYTE);
	if (post_rdma(p.qa, IBV_WR_RDMA_WRITE, A.buf + PAGE, PAGE, A.mr->lkey,
		      (uintptr_t)B.buf + PAGE, B.mr->rkey) ||
	    poll_one(A.cq, &wc)) {
		result(false, name, "post or poll failed");
	} else if (wc.status != IBV_WC_SUCCESS || wc.opcode != IBV_WC_RDMA_WRITE) {
		result(false, name, "status %s opcode %d",
		       ibv_wc_status_str(wc.status), wc.opcode);
	} else {
		char why[128] = "";

		/* target page = the source bytes, guards as they were */
		result(untouched(&B, SOURCE_BYTE, why, sizeof(why)), name,
		       "%s", why);
	}
	pair_down(&p);
}

static void case_local_prot(void)
{
	struct pair p = pair_up(7);
	const char *name = "WRITE from a bad lkey: LOC_PROT_ERR";
	struct ibv_wc wc;
	char why[128] = "";

	fill(&B, TARGET_BYTE);
	if (post_rdma(p.qa, IBV_WR_RDMA_WRITE, A.buf + PAGE, 64,
		      A.mr->lkey ^ 0x5500, (uintptr_t)B.buf + PAGE,
		      B.mr->rkey) || poll_one(A.cq, &wc))
		result(false, name, "post or poll failed");
	else
		result(wc.status == IBV_WC_LOC_PROT_ERR &&
		       untouched(&B, TARGET_BYTE, why, sizeof(why)), name,
		       "status %s %s", ibv_wc_status_str(wc.status), why);
	pair_down(&p);
}

static void case_flush_after_error(void)
{
	struct pair p = pair_up(7);
	const char *name = "after a remote access error the next WQE flushes";
	struct ibv_wc wc1, wc2;

	if (post_rdma(p.qa, IBV_WR_RDMA_WRITE, A.buf + PAGE, 64, A.mr->lkey,
		      (uintptr_t)B.buf + PAGE, B.mr->rkey ^ 0xff) ||
	    poll_one(A.cq, &wc1)) {
		result(false, name, "first WQE: post or poll failed");
		goto out;
	}
	if (post_rdma(p.qa, IBV_WR_RDMA_WRITE, A.buf + PAGE, 64, A.mr->lkey,
		      (uintptr_t)B.buf + PAGE, B.mr->rkey) ||
	    poll_one(A.cq, &wc2)) {
		result(false, name, "second WQE: post or poll failed (%s)",
		       strerror(errno));
		goto out;
	}
	result(wc1.status == IBV_WC_REM_ACCESS_ERR &&
	       wc2.status == IBV_WC_WR_FLUSH_ERR, name, "statuses %s, %s",
	       ibv_wc_status_str(wc1.status), ibv_wc_status_str(wc2.status));
out:
	pair_down(&p);
}

static void case_recv_too_small(void)
{
	struct pair p = pair_up(7);
	const char *name = "SEND larger than the receive buffer: REM_INV_REQ_ERR / LOC_LEN_ERR";
	struct ibv_sge rsge = {
		.addr = (uintptr_t)B.buf + PAGE, .length = 100, .lkey = B.mr->lkey,
	};
	struct ibv_recv_wr rwr = { .wr_id = 7, .sg_list = &rsge, .num_sge = 1 }, *rbad;
	struct ibv_wc wa, wb;
	char why[128] = "";

	fill(&B, TARGET_BYTE);
	if (ibv_post_recv(p.qb, &rwr, &rbad) ||
	    post_rdma(p.qa, IBV_WR_SEND, A.buf + PAGE, 200, A.mr->lkey, 0, 0) ||
	    poll_one(A.cq, &wa) || poll_one(B.cq, &wb)) {
		result(false, name, "post or poll failed");
	} else {
		bool ok = wa.status == IBV_WC_REM_INV_REQ_ERR &&
			  wb.status == IBV_WC_LOC_LEN_ERR && wb.wr_id == 7;

		/* The responder may have placed the first 100 bytes: only
		 * the guards and the rest of the page must be untouched.
		 */
		for (size_t i = 100; ok && i < PAGE; i++)
			ok = B.buf[PAGE + i] == TARGET_BYTE;
		B.buf[PAGE] = TARGET_BYTE;
		memset(B.buf + PAGE, TARGET_BYTE, 100);
		if (ok)
			ok = untouched(&B, TARGET_BYTE, why, sizeof(why));
		result(ok, name, "requester %s, responder %s %s",
		       ibv_wc_status_str(wa.status),
		       ibv_wc_status_str(wb.status), why);
	}
	pair_down(&p);
}

static void case_rnr(void)
{
	struct pair p = pair_up(0);
	const char *name = "SEND with no receive posted, rnr_retry 0: RNR_RETRY_EXC_ERR";
	struct ibv_wc wc;

	if (post_rdma(p.qa, IBV_WR_SEND, A.buf + PAGE, 16, A.mr->lkey, 0, 0) ||
	    poll_one(A.cq, &wc))
		result(false, name, "post or poll failed");
	else
		result(wc.status == IBV_WC_RNR_RETRY_EXC_ERR && cq_quiet(B.cq, 200),
		       name, "status %s", ibv_wc_status_str(wc.status));
	pair_down(&p);
}

static void case_post_in_reset(void)
{
	struct ibv_qp *qp = qp_create(&A);
	const char *name = "post_send on a QP in RESET is refused";
	int rc = post_rdma(qp, IBV_WR_RDMA_WRITE, A.buf + PAGE, 64, A.mr->lkey,
			   (uintptr_t)B.buf + PAGE, B.mr->rkey);

	result(rc != 0 && cq_quiet(A.cq, 200), name, "ibv_post_send returned %d", rc);
	ibv_destroy_qp(qp);
}

static void case_bad_transition(void)
{
	struct ibv_qp *qp = qp_create(&A);
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTS };
	struct ibv_qp_attr q;
	struct ibv_qp_init_attr qi;
	int rc = ibv_modify_qp(qp, &a, IBV_QP_STATE);

	result(rc == EINVAL && !ibv_query_qp(qp, &q, IBV_QP_STATE, &qi) &&
	       q.qp_state == IBV_QPS_RESET,
	       "modify RESET -> RTS is refused with EINVAL, QP stays in RESET",
	       "ibv_modify_qp returned %d, state %d", rc, q.qp_state);
	ibv_destroy_qp(qp);
}

static void case_bad_access(void)
{
	/* IBTA: remote write needs local write */
	struct ibv_mr *mr = ibv_reg_mr(A.pd, A.buf + PAGE, PAGE,
				       IBV_ACCESS_REMOTE_WRITE);

	result(!mr && errno == EINVAL,
	       "reg_mr with REMOTE_WRITE but not LOCAL_WRITE: EINVAL",
	       "%s", mr ? "registered" : strerror(errno));
	if (mr)
		ibv_dereg_mr(mr);
}

int main(int argc, char **argv)
{
	uint64_t target;

	if (argc != 5) {
		fprintf(stderr, "usage: %s DEV_A GID_INDEX_A DEV_B GID_INDEX_B\n",
			argv[0]);
		return 2;
	}
	side_open(&A, argv[1], atoi(argv[2]));
	side_open(&B, argv[3], atoi(argv[4]));
	target = (uintptr_t)B.buf + PAGE;

	case_positive_write();
	remote_case("WRITE with a wrong rkey: REM_ACCESS_ERR, target unchanged",
		    IBV_WR_RDMA_WRITE, target, B.mr->rkey ^ 0x80, 64,
		    IBV_WC_REM_ACCESS_ERR);
	remote_case("WRITE past the end of the MR: REM_ACCESS_ERR, guard unchanged",
		    IBV_WR_RDMA_WRITE, target + PAGE - 100, B.mr->rkey, 200,
		    IBV_WC_REM_ACCESS_ERR);
	remote_case("WRITE before the start of the MR: REM_ACCESS_ERR",
		    IBV_WR_RDMA_WRITE, target - 8, B.mr->rkey, 64,
		    IBV_WC_REM_ACCESS_ERR);
	remote_case("READ past the end of the MR: REM_ACCESS_ERR, local unchanged",
		    IBV_WR_RDMA_READ, target + PAGE - 100, B.mr->rkey, 200,
		    IBV_WC_REM_ACCESS_ERR);
	remote_case("WRITE to an MR of another PD: REM_ACCESS_ERR",
		    IBV_WR_RDMA_WRITE, target, B.mr_other_pd->rkey, 64,
		    IBV_WC_REM_ACCESS_ERR);
	remote_case("WRITE to an MR without remote write: REM_ACCESS_ERR",
		    IBV_WR_RDMA_WRITE, target, B.mr_local->rkey, 64,
		    IBV_WC_REM_ACCESS_ERR);
	remote_case("READ from an MR without remote read: REM_ACCESS_ERR",
		    IBV_WR_RDMA_READ, target, B.mr_local->rkey, 64,
		    IBV_WC_REM_ACCESS_ERR);
	case_local_prot();
	case_flush_after_error();
	case_recv_too_small();
	case_rnr();
	case_post_in_reset();
	case_bad_transition();
	case_bad_access();

	printf("# %d cases\n", case_num);
	return failures ? 1 : 0;
}
