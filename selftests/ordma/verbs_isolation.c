// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Isolation between two unprivileged processes, each with its own
 * verbs contexts on two RDMA devices cabled to each other.  Process A
 * (uid UID_A) owns QPs, a CQ and an MR; process B (uid UID_B) knows
 * their numbers and keys and tries to use them:
 *
 *  - B writes A's QPN and CQN into its own doorbell page (values A
 *    itself could legally write): the device refuses every write and
 *    counts it (HEALTH db_errors of DEV_A), and A's queues go on as if
 *    nothing happened.  The same holds between two contexts of B.
 *  - B maps nothing but its own doorbell page through its context, and
 *    cannot get A's uverbs file or read A's memory.
 *  - B posts A's lkey (with A's addresses) as the local buffer of SEND,
 *    RDMA WRITE, RDMA READ and RECV in its own QPs: each completes with
 *    a local protection error and A's memory stays as A wrote it.
 *
 * The parent (root) reads the device counter and coordinates the two
 * children over pipes; every wait is bounded.
 *
 * Usage: verbs_isolation DEV_A GIDX_A DEV_B GIDX_B UVERBS_A UID_A UID_B HEALTH
 *   UVERBS_A  /dev/infiniband/uverbsN of DEV_A
 *   HEALTH    debugfs health file of DEV_A's PCI function
 * Prints TAP lines and a last line "# N cases"; exit 0 when all passed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/ordma-abi.h>
#include <ordma-compat/ordma_compat.h>
#include <linux/ordma/ordma_hw.h>

#define PAGE		4096
#define POLL_MS		20000
#define PIPE_MS		60000
#define GUARD_BYTE	0xa5
#define A_BYTE		0x3c
#define B_BYTE		0x5a
#define NUM_CASES	11
/* doorbell writes B makes in case "doorbells" */
#define NUM_FOREIGN_DB	5

/* ------------------------------------------------------------ helpers */

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ull + ts.tv_nsec / 1000000;
}

/* Child side: report a result to the parent, which numbers it. */
static int to_parent = -1;

static void report(bool ok, const char *name, const char *fmt, ...)
{
	char why[256] = "";
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	dprintf(to_parent, "R %d %s%s%s\n", ok, name, ok ? "" : ": ", ok ? "" : why);
}

static void say(int fd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdprintf(fd, fmt, ap);
	va_end(ap);
}

/* One line from fd (without '\n') within ms; false on EOF or timeout. */
static bool get_line(int fd, char *buf, size_t len, unsigned int ms)
{
	uint64_t end = now_ms() + ms;
	size_t n = 0;

	while (n + 1 < len) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		uint64_t t = now_ms();
		char c;

		if (t >= end || poll(&p, 1, (int)(end - t)) <= 0)
			return false;
		if (read(fd, &c, 1) != 1)
			return false;
		if (c == '\n')
			break;
		buf[n++] = c;
	}
	buf[n] = 0;
	return true;
}

static void child_die(const char *what)
{
	dprintf(to_parent, "X %s: %s\n", what, strerror(errno));
	exit(1);
}

/* Become an ordinary user: no groups, no capabilities. */
static void drop_privileges(uid_t uid)
{
	struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };

	/* pinning memory is what a verbs user needs, nothing more */
	if (setrlimit(RLIMIT_MEMLOCK, &rl))
		child_die("setrlimit");
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
	    setresuid(uid, uid, uid))
		child_die("drop privileges");
	if (geteuid() != uid || !setresuid(0, 0, 0))
		child_die("still privileged");
}

/* One completion from cq, or -1 after POLL_MS. */
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

/* ------------------------------------------------------ verbs endpoints */

struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	union ibv_gid gid;
	int gid_index;
	uint8_t *buf;		/* 3 pages: guard, data, guard */
	struct ibv_mr *mr;	/* the middle page */
	unsigned int polled;	/* CQEs consumed from cq */
};

static void side_open(struct side *s, const char *name, int gid_index,
		      uint8_t fill)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	int i;

	if (!list)
		child_die("ibv_get_device_list");
	for (i = 0; list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			break;
	if (!list[i]) {
		errno = ENODEV;
		child_die(name);
	}
	s->ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!s->ctx)
		child_die("ibv_open_device");
	s->gid_index = gid_index;
	if (ibv_query_gid(s->ctx, 1, gid_index, &s->gid))
		child_die("ibv_query_gid");
	s->pd = ibv_alloc_pd(s->ctx);
	s->cq = ibv_create_cq(s->ctx, 64, NULL, NULL, 0);
	if (!s->pd || !s->cq)
		child_die("pd/cq");
	if (posix_memalign((void **)&s->buf, PAGE, 3 * PAGE))
		child_die("posix_memalign");
	memset(s->buf, GUARD_BYTE, 3 * PAGE);
	memset(s->buf + PAGE, fill, PAGE);
	s->mr = ibv_reg_mr(s->pd, s->buf + PAGE, PAGE,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ);
	if (!s->mr)
		child_die("ibv_reg_mr");
}

/* The 3 pages of s hold guard, fill, guard; else why says where not. */
static bool intact(const struct side *s, uint8_t fill, char *why, size_t len)
{
	for (size_t i = 0; i < 3 * PAGE; i++) {
		uint8_t want = i >= PAGE && i < 2 * PAGE ? fill : GUARD_BYTE;

		if (s->buf[i] != want) {
			snprintf(why, len, "byte %zu is 0x%02x, not 0x%02x", i,
				 s->buf[i], want);
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
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_qp *qp = ibv_create_qp(s->pd, &ia);

	if (!qp)
		child_die("ibv_create_qp");
	return qp;
}

static void qp_to_rts(struct ibv_qp *qp, struct side *self, struct side *peer,
		      uint32_t dest_qpn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		child_die("modify to INIT");
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
		child_die("modify to RTR");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 12;
	a.retry_cnt = 3;
	a.rnr_retry = 0;	/* an RNR is an error here, not a wait */
	a.sq_psn = 0x100;
	a.max_rd_atomic = 4;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			  IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
		child_die("modify to RTS");
}

/* A connected RC pair: q1 on side 1 (device A), q2 on side 2 (device B) */
struct pair {
	struct ibv_qp *q1, *q2;
};

static struct pair pair_up(struct side *s1, struct side *s2)
{
	struct pair p = { qp_create(s1), qp_create(s2) };

	qp_to_rts(p.q1, s1, s2, p.q2->qp_num);
	qp_to_rts(p.q2, s2, s1, p.q1->qp_num);
	return p;
}

static void pair_down(struct pair *p, struct side *s1, struct side *s2)
{
	struct ibv_wc wc;

	ibv_destroy_qp(p->q1);
	ibv_destroy_qp(p->q2);
	while (ibv_poll_cq(s1->cq, 1, &wc) > 0)
		s1->polled++;
	while (ibv_poll_cq(s2->cq, 1, &wc) > 0)
		s2->polled++;
}

static int post_send(struct ibv_qp *qp, enum ibv_wr_opcode op, uint64_t laddr,
		     uint32_t lkey, uint64_t raddr, uint32_t rkey, uint64_t id)
{
	struct ibv_sge sge = { .addr = laddr, .length = 64, .lkey = lkey };
	struct ibv_send_wr wr = {
		.wr_id = id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = raddr, .rkey = rkey },
	}, *bad;

	return ibv_post_send(qp, &wr, &bad);
}

static int post_recv(struct ibv_qp *qp, uint64_t laddr, uint32_t lkey,
		     uint64_t id)
{
	struct ibv_sge sge = { .addr = laddr, .length = 64, .lkey = lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 },
		*bad;

	return ibv_post_recv(qp, &wr, &bad);
}

/* Wait for the completion of wr_id id on s->cq and check its status. */
static bool expect_wc(struct side *s, uint64_t id, enum ibv_wc_status want,
		      char *why, size_t len)
{
	struct ibv_wc wc;

	if (poll_one(s->cq, &wc)) {
		snprintf(why, len, "no completion of wr %" PRIu64 " in %d ms",
			 id, POLL_MS);
		return false;
	}
	s->polled++;
	if (wc.wr_id != id || wc.status != want) {
		snprintf(why, len, "wr %" PRIu64 ": %s (wr %" PRIu64 " wanted %s)",
			 wc.wr_id, ibv_wc_status_str(wc.status), id,
			 ibv_wc_status_str(want));
		return false;
	}
	return true;
}

/* ------------------------------------------------------------ process A */

static void run_a(int in, const char *const *argv)
{
	struct side a1 = { 0 }, a2 = { 0 };
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr qa;
	char why[256] = "", line[128];
	struct pair p;
	bool ok;

	side_open(&a1, argv[1], atoi(argv[2]), A_BYTE);
	side_open(&a2, argv[3], atoi(argv[4]), 0);
	p = pair_up(&a1, &a2);

	/* positive control: A's own data path works */
	ok = !post_send(p.q1, IBV_WR_RDMA_WRITE, (uintptr_t)a1.buf + PAGE,
			a1.mr->lkey, (uintptr_t)a2.buf + PAGE, a2.mr->rkey, 1) &&
	     expect_wc(&a1, 1, IBV_WC_SUCCESS, why, sizeof(why));
	if (ok && a2.buf[PAGE] != A_BYTE) {
		ok = false;
		snprintf(why, sizeof(why), "the data did not arrive");
	}
	report(ok, "A: RDMA WRITE between A's own QPs works (control)", "%s", why);
	/* what A's own doorbells would say next: SQ pi, RQ pi, CQ ci */
	say(to_parent, "A qpn=%u sq_pi=%u rq_pi=%u cq_ci=%u addr=%" PRIu64
	    " lkey=%u fd=%d\n", p.q1->qp_num, 1, 0, a1.polled,
	    (uint64_t)(uintptr_t)a1.buf + PAGE, a1.mr->lkey,
	    a1.ctx->cmd_fd);

	if (!get_line(in, line, sizeof(line), PIPE_MS) || strcmp(line, "check"))
		exit(1);
	/*
	 * Had the device taken B's doorbells, A's SQ would have run the
	 * empty slot after A's WQE and failed, flushing this WRITE.
	 */
	ok = !post_send(p.q1, IBV_WR_RDMA_WRITE, (uintptr_t)a1.buf + PAGE,
			a1.mr->lkey, (uintptr_t)a2.buf + PAGE + 64,
			a2.mr->rkey, 2) &&
	     expect_wc(&a1, 2, IBV_WC_SUCCESS, why, sizeof(why));
	if (ok && ibv_poll_cq(a1.cq, 1, (struct ibv_wc[1]){}) != 0) {
		ok = false;
		snprintf(why, sizeof(why), "A's CQ holds a completion A did not ask for");
	}
	if (ok && (ibv_query_qp(p.q1, &qa, IBV_QP_STATE, &ia) ||
		   qa.qp_state != IBV_QPS_RTS)) {
		ok = false;
		snprintf(why, sizeof(why), "A's QP left RTS (state %d)", qa.qp_state);
	}
	if (ok)
		ok = intact(&a1, A_BYTE, why, sizeof(why));
	report(ok, "A: A's QP, CQ and memory are as A left them after B's attempts",
	       "%s", why);
	say(to_parent, "D\n");
	if (!get_line(in, line, sizeof(line), PIPE_MS))
		exit(1);
	exit(0);
}

/* ------------------------------------------------------------ process B */

struct a_info {
	unsigned int qpn, sq_pi, rq_pi, cq_ci, cqn, lkey, pid;
	int fd;
	uint64_t addr;
};

/* A raw uverbs context on DEV_A: its doorbell key and the uverbs fd */
static int raw_context(const char *path, struct ordma_alloc_ucontext_resp *out)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_get_context cmd;
	} req = { 0 };
	struct {
		struct ib_uverbs_get_context_resp core;
		struct ordma_alloc_ucontext_resp drv;
	} resp = { 0 };
	int fd = open(path, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -1;
	req.hdr.command = IB_USER_VERBS_CMD_GET_CONTEXT;
	req.hdr.in_words = sizeof(req) / 4;
	req.hdr.out_words = sizeof(resp) / 4;
	req.cmd.response = (uintptr_t)&resp;
	if (write(fd, &req, sizeof(req)) != sizeof(req)) {
		close(fd);
		return -1;
	}
	*out = resp.drv;
	return fd;
}

static void db_write(void *page, unsigned int reg, uint32_t qn, uint32_t idx,
		     uint64_t flags)
{
	volatile uint64_t *db = (volatile uint64_t *)((uint8_t *)page + reg);

	*db = htole64(FIELD_PREP(ORDMA_DB_QN, qn) |
		      FIELD_PREP(ORDMA_DB_IDX, idx) | flags);
}

/*
 * B's QP on device A uses A's lkey and address as its local buffer:
 * op is SEND, RDMA_WRITE or RDMA_READ from b1, or -1 for a RECV in b1
 * fed by a SEND from b2.
 */
static void lkey_case(const char *name, int op, struct side *b1,
		      struct side *b2, const struct a_info *ai)
{
	struct pair p = pair_up(b1, b2);
	char why[256] = "";
	bool ok;

	memset(b2->buf + PAGE, B_BYTE, PAGE);
	switch (op) {
	case IBV_WR_SEND:
		ok = !post_recv(p.q2, (uintptr_t)b2->buf + PAGE, b2->mr->lkey, 9) &&
		     !post_send(p.q1, IBV_WR_SEND, ai->addr, ai->lkey, 0, 0, 7) &&
		     expect_wc(b1, 7, IBV_WC_LOC_PROT_ERR, why, sizeof(why));
		break;
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_READ:
		ok = !post_send(p.q1, op, ai->addr, ai->lkey,
				(uintptr_t)b2->buf + PAGE, b2->mr->rkey, 7) &&
		     expect_wc(b1, 7, IBV_WC_LOC_PROT_ERR, why, sizeof(why));
		break;
	default:
		ok = !post_recv(p.q1, ai->addr, ai->lkey, 8) &&
		     !post_send(p.q2, IBV_WR_SEND, (uintptr_t)b2->buf + PAGE,
				b2->mr->lkey, 0, 0, 7) &&
		     expect_wc(b1, 8, IBV_WC_LOC_PROT_ERR, why, sizeof(why));
		break;
	}
	if (!ok && !why[0])
		snprintf(why, sizeof(why), "post: %s", strerror(errno));
	/* nothing of A's left through the wire into B's buffer */
	if (ok)
		ok = intact(b2, B_BYTE, why, sizeof(why));
	report(ok, name, "%s", why);
	pair_down(&p, b1, b2);
}

static void run_b(int in, const char *const *argv)
{
	struct ordma_alloc_ucontext_resp uctx;
	struct side b1 = { 0 }, b2 = { 0 };
	char why[256] = "", line[256];
	struct a_info ai = { 0 };
	struct pair keep;
	unsigned int refused = 0, off;
	void *db, *m;
	int rawfd, pidfd, ok;

	side_open(&b1, argv[1], atoi(argv[2]), B_BYTE);
	side_open(&b2, argv[3], atoi(argv[4]), B_BYTE);
	if (!get_line(in, line, sizeof(line), PIPE_MS) ||
	    sscanf(line, "A qpn=%u sq_pi=%u rq_pi=%u cq_ci=%u addr=%" SCNu64
		   " lkey=%u fd=%d cqn=%u pid=%u", &ai.qpn, &ai.sq_pi,
		   &ai.rq_pi, &ai.cq_ci, &ai.addr, &ai.lkey, &ai.fd, &ai.cqn,
		   &ai.pid) != 9) {
		errno = EPROTO;
		child_die("A's numbers");
	}

	/* positive control: B's own QPs move B's own data */
	keep = pair_up(&b1, &b2);
	memset(b2.buf + PAGE, 0, PAGE);
	ok = !post_recv(keep.q2, (uintptr_t)b2.buf + PAGE, b2.mr->lkey, 2) &&
	     !post_send(keep.q1, IBV_WR_SEND, (uintptr_t)b1.buf + PAGE,
			b1.mr->lkey, 0, 0, 1) &&
	     expect_wc(&b1, 1, IBV_WC_SUCCESS, why, sizeof(why)) &&
	     expect_wc(&b2, 2, IBV_WC_SUCCESS, why, sizeof(why));
	if (ok && b2.buf[PAGE] != B_BYTE) {
		ok = 0;
		snprintf(why, sizeof(why), "the data did not arrive");
	}
	report(ok, "B: SEND between B's own QPs works (control)", "%s", why);

	lkey_case("B: SEND with A's lkey as source: LOC_PROT_ERR, nothing sent",
		  IBV_WR_SEND, &b1, &b2, &ai);
	lkey_case("B: RDMA WRITE with A's lkey as source: LOC_PROT_ERR, nothing written",
		  IBV_WR_RDMA_WRITE, &b1, &b2, &ai);
	lkey_case("B: RDMA READ into A's lkey: LOC_PROT_ERR",
		  IBV_WR_RDMA_READ, &b1, &b2, &ai);
	lkey_case("B: RECV into A's lkey: LOC_PROT_ERR",
		  -1, &b1, &b2, &ai);

	/* B's own second context on device A, through raw uverbs */
	rawfd = raw_context(argv[5], &uctx);
	if (rawfd < 0)
		child_die("raw uverbs context");
	db = mmap(NULL, PAGE, PROT_WRITE, MAP_SHARED, rawfd, uctx.db_mmap_key);
	if (db == MAP_FAILED)
		child_die("mmap of B's own doorbell page");
	/* every other page offset of the context maps nothing */
	why[0] = 0;
	for (off = 0; off < 64; off++) {
		uint64_t o = (uint64_t)off * PAGE;

		if (o == uctx.db_mmap_key)
			continue;
		m = mmap(NULL, PAGE, PROT_WRITE, MAP_SHARED, rawfd, o);
		if (m != MAP_FAILED) {
			munmap(m, PAGE);
			snprintf(why, sizeof(why), "offset 0x%" PRIx64 " mapped", o);
			break;
		}
		refused++;
	}
	report(!why[0], "B: its context maps its own doorbell page and no other offset",
	       "%s", why);

	/* A's process is out of reach: no file of A's, no byte of A's */
	pidfd = syscall(SYS_pidfd_open, ai.pid, 0);
	ok = pidfd >= 0;
	if (!ok) {
		snprintf(why, sizeof(why), "pidfd_open: %s", strerror(errno));
	} else {
		int fd = syscall(SYS_pidfd_getfd, pidfd, ai.fd, 0);
		struct iovec l = { line, 16 }, r = { (void *)(uintptr_t)ai.addr, 16 };

		if (fd >= 0 || errno != EPERM) {
			ok = 0;
			snprintf(why, sizeof(why), "pidfd_getfd of A's uverbs fd: %s",
				 fd >= 0 ? "got it" : strerror(errno));
		} else if (process_vm_readv(ai.pid, &l, 1, &r, 1, 0) >= 0 ||
			   errno != EPERM) {
			ok = 0;
			snprintf(why, sizeof(why), "process_vm_readv of A's MR: %s",
				 strerror(errno));
		}
		close(pidfd);
	}
	report(ok, "B: cannot take A's uverbs file or read A's memory (EPERM)",
	       "%s", why);

	/*
	 * Doorbells naming A's queues with values A could write itself,
	 * and one naming the QP of B's other context: all must be refused.
	 */
	db_write(db, ORDMA_DB_SQ, ai.qpn, ai.sq_pi + 1, 0);
	db_write(db, ORDMA_DB_RQ, ai.qpn, ai.rq_pi + 1, 0);
	db_write(db, ORDMA_DB_CQ, ai.cqn, ai.cq_ci, ORDMA_DB_ARM);
	db_write(db, ORDMA_DB_CQ, ai.cqn, ai.cq_ci, 0);
	db_write(db, ORDMA_DB_SQ, keep.q1->qp_num, 2, 0);
	say(to_parent, "RANG %d\n", NUM_FOREIGN_DB);

	if (!get_line(in, line, sizeof(line), PIPE_MS) || strcmp(line, "check"))
		exit(1);
	/* B's first context is untouched by its second one's doorbell */
	memset(b2.buf + PAGE, 0, PAGE);
	ok = !post_recv(keep.q2, (uintptr_t)b2.buf + PAGE, b2.mr->lkey, 4) &&
	     !post_send(keep.q1, IBV_WR_SEND, (uintptr_t)b1.buf + PAGE,
			b1.mr->lkey, 0, 0, 3) &&
	     expect_wc(&b1, 3, IBV_WC_SUCCESS, why, sizeof(why)) &&
	     expect_wc(&b2, 4, IBV_WC_SUCCESS, why, sizeof(why));
	report(ok, "B: B's QP works on after the doorbell from B's other context",
	       "%s", why);
	say(to_parent, "D\n");
	if (!get_line(in, line, sizeof(line), PIPE_MS))
		exit(1);
	exit(0);
}

/* ------------------------------------------------------------- parent */

static int case_num, failures;

static void result(bool ok, const char *text)
{
	case_num++;
	printf("%s %d - %s\n", ok ? "ok" : "not ok", case_num, text);
	if (!ok)
		failures++;
	fflush(stdout);
}

struct child {
	pid_t pid;
	int in;		/* we write */
	int out;	/* we read */
	char name;
};

static void spawn(struct child *c, char name, uid_t uid,
		  void (*run)(int, const char *const *), const char *const *argv)
{
	int down[2], up[2];

	if (pipe2(down, O_CLOEXEC) || pipe2(up, O_CLOEXEC)) {
		printf("Bail out! pipe: %s\n", strerror(errno));
		exit(1);
	}
	fflush(stdout);
	c->name = name;
	c->pid = fork();
	if (c->pid < 0) {
		printf("Bail out! fork: %s\n", strerror(errno));
		exit(1);
	}
	if (!c->pid) {
		close(down[1]);
		close(up[0]);
		to_parent = up[1];
		drop_privileges(uid);
		run(down[0], argv);
		exit(0);
	}
	close(down[0]);
	close(up[1]);
	c->in = down[1];
	c->out = up[0];
}

/*
 * Read c's lines until one starting with stop ("A ", "RANG", "D"):
 * results are printed, an X line (the child died) fails.  The stop line
 * is returned in line.
 */
static bool collect(struct child *c, const char *stop, char *line, size_t len)
{
	while (get_line(c->out, line, len, PIPE_MS)) {
		if (line[0] == 'R' && line[1] == ' ') {
			result(line[2] == '1', line + 4);
			continue;
		}
		if (line[0] == 'X') {
			printf("# %c: %s\n", c->name, line + 2);
			return false;
		}
		if (!strncmp(line, stop, strlen(stop)))
			return true;
		printf("# %c: %s\n", c->name, line);
	}
	printf("# %c: no \"%s\" within %d ms\n", c->name, stop, PIPE_MS);
	return false;
}

/* db_errors of the HEALTH command (debugfs), or -1 */
static long db_errors(const char *health)
{
	char l[128];
	long v = -1;
	FILE *f = fopen(health, "r");

	if (!f)
		return -1;
	while (fgets(l, sizeof(l), f))
		if (sscanf(l, "db_errors %ld", &v) == 1)
			break;
	fclose(f);
	return v;
}

/*
 * The device CQN of pid's CQ on dev: the driver's "cqn" attribute,
 * printed after the core's restrack id by `rdma -dd res show cq`.
 */
static long device_cqn(const char *dev, unsigned int pid)
{
	char cmd[128], l[512], pidstr[32];
	long cqn = -1;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "rdma -dd res show cq dev %s 2>&1", dev);
	snprintf(pidstr, sizeof(pidstr), " pid %u ", pid);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (fgets(l, sizeof(l), f)) {
		char *p = strstr(l, pidstr), *q = NULL, *s;

		if (!p)
			continue;
		for (s = strstr(l, " cqn "); s; s = strstr(s + 1, " cqn "))
			q = s;
		if (q)
			cqn = strtol(q + 5, NULL, 0);
	}
	pclose(f);
	return cqn;
}

static void reap(struct child *c)
{
	uint64_t end = now_ms() + PIPE_MS;
	int st;

	close(c->in);
	while (waitpid(c->pid, &st, WNOHANG) == 0) {
		if (now_ms() > end) {
			kill(c->pid, SIGKILL);
			waitpid(c->pid, &st, 0);
			break;
		}
		usleep(10000);
	}
}

int main(int argc, char **argv)
{
	struct child a, b;
	char line[512];
	long before, after = -1, cqn = -1;
	uint64_t end;
	bool a_ok, b_ok;

	if (argc != 9) {
		fprintf(stderr, "usage: %s DEV_A GIDX_A DEV_B GIDX_B UVERBS_A UID_A UID_B HEALTH\n",
			argv[0]);
		return 2;
	}
	before = db_errors(argv[8]);
	if (before < 0) {
		printf("Bail out! cannot read db_errors from %s\n", argv[8]);
		return 1;
	}
	spawn(&a, 'A', atoi(argv[6]), run_a, (const char *const *)argv);
	spawn(&b, 'B', atoi(argv[7]), run_b, (const char *const *)argv);

	a_ok = collect(&a, "A ", line, sizeof(line));
	if (a_ok) {
		cqn = device_cqn(argv[1], a.pid);
		printf("# A (pid %d, uid %s): %s cqn=%ld\n", a.pid, argv[6],
		       line + 2, cqn);
		say(b.in, "%s cqn=%ld pid=%d\n", line, cqn, a.pid);
	}
	b_ok = a_ok && collect(&b, "RANG", line, sizeof(line));

	/* B's doorbell writes are posted: wait for the device to count them */
	end = now_ms() + POLL_MS;
	do {
		after = db_errors(argv[8]);
		if (after - before >= NUM_FOREIGN_DB)
			break;
		usleep(10000);
	} while (b_ok && now_ms() < end);
	case_num++;
	/* without A's CQN the CQ doorbells would only name a missing CQ */
	if (b_ok && cqn < 0)
		printf("# could not find A's CQN in `rdma -dd res show cq`\n");
	if (b_ok && cqn >= 0 && after - before == NUM_FOREIGN_DB) {
		printf("ok %d - device refused and counted B's %d doorbells for A's QP and CQ and B's other context (db_errors %ld -> %ld)\n",
		       case_num, NUM_FOREIGN_DB, before, after);
	} else {
		failures++;
		printf("not ok %d - device refused and counted B's %d doorbells: db_errors %ld -> %ld\n",
		       case_num, NUM_FOREIGN_DB, before, after);
	}

	if (a_ok) {
		say(a.in, "check\n");
		a_ok = collect(&a, "D", line, sizeof(line));
	}
	if (b_ok) {
		say(b.in, "check\n");
		b_ok = collect(&b, "D", line, sizeof(line));
	}
	say(a.in, "exit\n");
	say(b.in, "exit\n");
	reap(&a);
	reap(&b);
	while (case_num < NUM_CASES)
		result(false, "case did not run (see the lines above)");
	printf("# %d cases\n", case_num);
	return failures ? 1 : 0;
}
