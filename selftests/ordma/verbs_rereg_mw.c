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
 * Usage: verbs_rereg_mw DEV_A GID_INDEX_A DEV_B GID_INDEX_B
 * The MR and windows are on DEV_A; DEV_B writes through them.  Prints
 * TAP lines and a last line "# N cases"; exit 0 when every case passed.
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

struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	union ibv_gid gid;
	int gid_index;
	uint8_t *buf;		/* 2 pages: the MR's, and another one */
	struct ibv_mr *mr;	/* the first page */
};

static struct side A, B;
static int case_num, failures;

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

/* The completion of wr_id on cq: its status, or -1 after POLL_MS. */
static int wait_wc(struct ibv_cq *cq, uint64_t wr_id)
{
	uint64_t end = now_ms() + POLL_MS;
	struct ibv_wc wc;
	int n;

	do {
		n = ibv_poll_cq(cq, 1, &wc);
		if (n < 0)
			return -1;
		if (n == 1) {
			if (wc.wr_id != wr_id)
				return -1;
			return wc.status;
		}
		usleep(100);
	} while (now_ms() < end);
	return -1;
}

static void side_open(struct side *s, const char *name, int gid_index,
		      unsigned int access)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_qp_init_attr ia = {
		.cap = { .max_send_wr = 16, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
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
	s->cq = ibv_create_cq(s->ctx, 64, NULL, NULL, 0);
	if (!s->pd || !s->cq)
		die("pd/cq");
	ia.send_cq = ia.recv_cq = s->cq;
	s->qp = ibv_create_qp(s->pd, &ia);
	if (!s->qp)
		die("ibv_create_qp");
	if (posix_memalign((void **)&s->buf, PAGE, 2 * PAGE))
		die("posix_memalign");
	memset(s->buf, 0, 2 * PAGE);
	s->mr = ibv_reg_mr(s->pd, s->buf, PAGE, access);
	if (!s->mr)
		die("ibv_reg_mr");
}

static void qp_to_rts(struct side *self, struct side *peer)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ,
	};

	if (ibv_modify_qp(self->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die("modify to INIT");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = peer->qp->qp_num;
	a.rq_psn = 0x100;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = peer->gid;
	a.ah_attr.grh.sgid_index = self->gid_index;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(self->qp, &a, IBV_QP_STATE | IBV_QP_AV |
			  IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		die("modify to RTR");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 12;
	a.retry_cnt = 3;
	a.rnr_retry = 0;
	a.sq_psn = 0x100;
	a.max_rd_atomic = 4;
	if (ibv_modify_qp(self->qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			  IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
		die("modify to RTS");
}

/*
 * B writes 64 bytes of value v at offset off of A's MR page through
 * rkey (addr in the MR's or the window's space); true when it completed
 * and A's page shows it.
 */
static bool remote_write(uint32_t rkey, uint64_t addr, unsigned int off,
			 uint8_t v, char *why, size_t len)
{
	static uint64_t id = 100;
	struct ibv_sge sge = {
		.addr = (uintptr_t)B.buf + off, .length = 64, .lkey = B.mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = ++id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = addr + off, .rkey = rkey },
	}, *bad;
	int st;

	memset(B.buf + off, v, 64);
	if (ibv_post_send(B.qp, &wr, &bad)) {
		snprintf(why, len, "ibv_post_send: %s", strerror(errno));
		return false;
	}
	st = wait_wc(B.cq, id);
	if (st != IBV_WC_SUCCESS) {
		snprintf(why, len, "WRITE completed with %s (%d)",
			 st < 0 ? "nothing" : ibv_wc_status_str(st), st);
		return false;
	}
	if (A.buf[off] != v || A.buf[off + 63] != v) {
		snprintf(why, len, "the data did not land (0x%02x)", A.buf[off]);
		return false;
	}
	return true;
}

/* rereg must fail as a refused command with EBUSY */
static void expect_busy(const char *name, int flags, void *addr, int access)
{
	uint32_t lkey = A.mr->lkey, rkey = A.mr->rkey;
	int rc;

	errno = 0;
	rc = ibv_rereg_mr(A.mr, flags, NULL, addr, addr ? PAGE : 0, access);
	result(rc == IBV_REREG_MR_ERR_CMD && errno == EBUSY &&
	       A.mr->lkey == lkey && A.mr->rkey == rkey, name,
	       "ibv_rereg_mr returned %d, errno %d (%s), keys %#x/%#x -> %#x/%#x",
	       rc, errno, strerror(errno), lkey, rkey, A.mr->lkey, A.mr->rkey);
}

int main(int argc, char **argv)
{
	const unsigned int mr_access = IBV_ACCESS_LOCAL_WRITE |
				       IBV_ACCESS_REMOTE_WRITE |
				       IBV_ACCESS_REMOTE_READ |
				       IBV_ACCESS_MW_BIND;
	struct ibv_mw_bind_info info;
	struct ibv_send_wr wr, *bad;
	struct ibv_mw_bind bind;
	struct ibv_mw *mw1, *mw2;
	char why[160] = "";
	bool ok;
	int rc;

	if (argc != 5) {
		fprintf(stderr, "usage: %s DEV_A GID_INDEX_A DEV_B GID_INDEX_B\n",
			argv[0]);
		return 2;
	}
	side_open(&A, argv[1], atoi(argv[2]), mr_access);
	side_open(&B, argv[3], atoi(argv[4]), IBV_ACCESS_LOCAL_WRITE);
	qp_to_rts(&A, &B);
	qp_to_rts(&B, &A);

	/* a type 1 window over the whole page, remote write */
	mw1 = ibv_alloc_mw(A.pd, IBV_MW_TYPE_1);
	if (!mw1)
		die("ibv_alloc_mw type 1");
	info = (struct ibv_mw_bind_info){
		.mr = A.mr, .addr = (uintptr_t)A.buf, .length = PAGE,
		.mw_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};
	bind = (struct ibv_mw_bind){ .wr_id = 1, .send_flags = IBV_SEND_SIGNALED,
				     .bind_info = info };
	rc = ibv_bind_mw(A.qp, mw1, &bind);
	ok = !rc && wait_wc(A.cq, 1) == IBV_WC_SUCCESS;
	if (!ok)
		snprintf(why, sizeof(why), "bind: %d", rc);
	ok = ok && remote_write(mw1->rkey, (uintptr_t)A.buf, 0, 0x11, why, sizeof(why));
	result(ok, "control: RDMA WRITE through a bound type 1 window lands", "%s", why);

	expect_busy("rereg_mr to local-only access with a bound window: EBUSY",
		    IBV_REREG_MR_CHANGE_ACCESS, NULL, IBV_ACCESS_LOCAL_WRITE);
	expect_busy("rereg_mr to another page with a bound window: EBUSY",
		    IBV_REREG_MR_CHANGE_TRANSLATION, A.buf + PAGE, 0);

	why[0] = 0;
	ok = remote_write(A.mr->rkey, (uintptr_t)A.buf, 128, 0x22, why, sizeof(why)) &&
	     remote_write(mw1->rkey, (uintptr_t)A.buf, 256, 0x33, why, sizeof(why));
	result(ok, "after the refused rereg the MR and the window still work", "%s", why);

	/* the same with a type 2 window only */
	if (ibv_dealloc_mw(mw1))
		die("ibv_dealloc_mw type 1");
	mw2 = ibv_alloc_mw(A.pd, IBV_MW_TYPE_2);
	if (!mw2)
		die("ibv_alloc_mw type 2");
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 2;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.bind_mw.mw = mw2;
	wr.bind_mw.rkey = ibv_inc_rkey(mw2->rkey);
	wr.bind_mw.bind_info = info;
	rc = ibv_post_send(A.qp, &wr, &bad);
	if (!rc)
		rc = wait_wc(A.cq, 2);
	if (rc != IBV_WC_SUCCESS)
		/* e.g. an earlier rereg took MW_BIND away from the MR */
		result(false, "rereg_mr with a bound type 2 window: EBUSY",
		       "binding the type 2 window failed (%d)", rc);
	else
		expect_busy("rereg_mr with a bound type 2 window: EBUSY",
			    IBV_REREG_MR_CHANGE_ACCESS, NULL,
			    IBV_ACCESS_LOCAL_WRITE);

	/* control: without windows the very same rereg goes through */
	if (ibv_dealloc_mw(mw2))
		die("ibv_dealloc_mw type 2");
	errno = 0;
	rc = ibv_rereg_mr(A.mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			  IBV_ACCESS_LOCAL_WRITE);
	result(rc == 0, "control: with the windows gone the same rereg_mr succeeds",
	       "ibv_rereg_mr returned %d, errno %d (%s)", rc, errno, strerror(errno));

	printf("# %d cases\n", case_num);
	ibv_destroy_qp(B.qp);
	ibv_destroy_qp(A.qp);
	ibv_dereg_mr(A.mr);
	ibv_dereg_mr(B.mr);
	ibv_destroy_cq(A.cq);
	ibv_destroy_cq(B.cq);
	ibv_dealloc_pd(A.pd);
	ibv_dealloc_pd(B.pd);
	ibv_close_device(A.ctx);
	ibv_close_device(B.ctx);
	return failures ? 1 : 0;
}
