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
 * children over pipes; every wait is bounded.  The scenario is one
 * sequence of the two processes, so main() plays it once before the
 * tests and records each outcome; each test then judges one of them.
 *
 * Usage: verbs_isolation DEV_A GIDX_A DEV_B GIDX_B UVERBS_A UID_A UID_B HEALTH
 *   UVERBS_A  /dev/infiniband/uverbsN of DEV_A
 *   HEALTH    debugfs health file of DEV_A's PCI function
 * The output is the ordma_test runner's TAP.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rdma/ordma-abi.h>
#include <ordma-compat/ordma_compat.h>
#include <linux/ordma/ordma_hw.h>

#include "ordma_test.h"
#include "verbs_util.h"

#define PAGE		VERBS_PAGE
#define POLL_MS		VERBS_POLL_MS
#define PIPE_MS		60000
#define A_BYTE		0x3c
#define B_BYTE		0x5a
/* doorbell writes B makes in case "doorbells" */
#define NUM_FOREIGN_DB	5
#define QP_ACCESS	(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ)

/* ------------------------------------------------------------ helpers */

/* The outcomes of the scenario, one a test, in the order of the tests */
enum iso_case {
	CASE_A_CONTROL,
	CASE_B_CONTROL,
	CASE_B_SEND_LKEY,
	CASE_B_WRITE_LKEY,
	CASE_B_READ_LKEY,
	CASE_B_RECV_LKEY,
	CASE_B_MMAP,
	CASE_B_NO_REACH,
	CASE_DB_REFUSED,
	CASE_A_UNTOUCHED,
	CASE_B_OTHER_CONTEXT,
	NUM_CASES
};

static struct {
	bool ran, ok;
	char why[256];
} outcome[NUM_CASES];

static void record(enum iso_case c, bool ok, const char *why)
{
	outcome[c].ran = true;
	outcome[c].ok = ok;
	snprintf(outcome[c].why, sizeof(outcome[c].why), "%s", why);
}

/* Child side: report an outcome to the parent, which records it. */
static int to_parent = -1;

static void report(enum iso_case c, bool ok, const char *fmt, ...)
{
	char why[256] = "";
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	dprintf(to_parent, "R %d %d %s\n", c, ok, ok ? "" : why);
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
	uint64_t end = verbs_now_ms() + ms;
	size_t n = 0;

	while (n + 1 < len) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		uint64_t t = verbs_now_ms();
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

/* ------------------------------------------------------ verbs endpoints */

struct side {
	struct verbs_dev dev;
	uint8_t *buf;		/* a guarded buffer: guard, data, guard */
	struct ibv_mr *mr;	/* the middle page */
	unsigned int polled;	/* CQEs consumed from the CQ */
};

static void side_open(struct side *s, const char *name, int gid_index,
		      uint8_t fill)
{
	if (verbs_dev_open(&s->dev, name, gid_index))
		child_die(name);
	if (posix_memalign((void **)&s->buf, PAGE, VERBS_GUARDED_SIZE))
		child_die("posix_memalign");
	verbs_guarded_fill(s->buf, fill);
	s->mr = ibv_reg_mr(s->dev.pd, s->buf + PAGE, PAGE,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ);
	if (!s->mr)
		child_die("ibv_reg_mr");
}

static struct ibv_qp *qp_create(struct side *s)
{
	const struct ibv_qp_cap cap = {
		.max_send_wr = 16, .max_recv_wr = 16,
		.max_send_sge = 1, .max_recv_sge = 1,
	};
	struct ibv_qp *qp = verbs_rc_qp_create(&s->dev, &cap);

	if (!qp)
		child_die("ibv_create_qp");
	return qp;
}

static void qp_to_rts(struct ibv_qp *qp, struct side *self, struct side *peer,
		      uint32_t dest_qpn)
{
	/* rnr_retry 0: an RNR is an error here, not a wait */
	if (verbs_rc_qp_connect(qp, &self->dev, &peer->dev, dest_qpn,
				QP_ACCESS, 0))
		child_die("connect QP");
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
	while (ibv_poll_cq(s1->dev.cq, 1, &wc) > 0)
		s1->polled++;
	while (ibv_poll_cq(s2->dev.cq, 1, &wc) > 0)
		s2->polled++;
}

static int post_send(struct ibv_qp *qp, enum ibv_wr_opcode op, uint64_t laddr,
		     uint32_t lkey, uint64_t raddr, uint32_t rkey, uint64_t id)
{
	return verbs_post_send(qp, op, laddr, 64, lkey, raddr, rkey, id);
}

static int post_recv(struct ibv_qp *qp, uint64_t laddr, uint32_t lkey,
		     uint64_t id)
{
	return verbs_post_recv(qp, laddr, 64, lkey, id);
}

/* Wait for the completion of wr_id id on s->cq and check its status. */
static bool expect_wc(struct side *s, uint64_t id, enum ibv_wc_status want,
		      char *why, size_t len)
{
	struct ibv_wc wc;

	if (verbs_poll_one(s->dev.cq, &wc, POLL_MS)) {
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

/*
 * A SEND of b1's page over pair p (q1 on b1, q2 on b2) into b2's page,
 * cleared first: wr id for the SEND, id + 1 for the RECV.
 */
static bool send_works(struct pair *p, struct side *b1, struct side *b2,
		       uint64_t id, char *why, size_t len)
{
	memset(b2->buf + PAGE, 0, PAGE);
	return !post_recv(p->q2, (uintptr_t)b2->buf + PAGE, b2->mr->lkey,
			  id + 1) &&
	       !post_send(p->q1, IBV_WR_SEND, (uintptr_t)b1->buf + PAGE,
			  b1->mr->lkey, 0, 0, id) &&
	       expect_wc(b1, id, IBV_WC_SUCCESS, why, len) &&
	       expect_wc(b2, id + 1, IBV_WC_SUCCESS, why, len);
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
	report(CASE_A_CONTROL, ok, "%s", why);
	/* what A's own doorbells would say next: SQ pi, RQ pi, CQ ci */
	say(to_parent, "A qpn=%u sq_pi=%u rq_pi=%u cq_ci=%u addr=%" PRIu64
	    " lkey=%u fd=%d\n", p.q1->qp_num, 1, 0, a1.polled,
	    (uint64_t)(uintptr_t)a1.buf + PAGE, a1.mr->lkey,
	    a1.dev.ctx->cmd_fd);

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
	if (ok && ibv_poll_cq(a1.dev.cq, 1, (struct ibv_wc[1]){}) != 0) {
		ok = false;
		snprintf(why, sizeof(why), "A's CQ holds a completion A did not ask for");
	}
	if (ok && (ibv_query_qp(p.q1, &qa, IBV_QP_STATE, &ia) ||
		   qa.qp_state != IBV_QPS_RTS)) {
		ok = false;
		snprintf(why, sizeof(why), "A's QP left RTS (state %d)", qa.qp_state);
	}
	if (ok)
		ok = verbs_guarded_intact(a1.buf, A_BYTE, why, sizeof(why));
	report(CASE_A_UNTOUCHED, ok, "%s", why);
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
static void lkey_case(enum iso_case c, int op, struct side *b1,
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
		ok = verbs_guarded_intact(b2->buf, B_BYTE, why, sizeof(why));
	report(c, ok, "%s", why);
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
	ok = send_works(&keep, &b1, &b2, 1, why, sizeof(why));
	if (ok && b2.buf[PAGE] != B_BYTE) {
		ok = 0;
		snprintf(why, sizeof(why), "the data did not arrive");
	}
	report(CASE_B_CONTROL, ok, "%s", why);

	lkey_case(CASE_B_SEND_LKEY, IBV_WR_SEND, &b1, &b2, &ai);
	lkey_case(CASE_B_WRITE_LKEY, IBV_WR_RDMA_WRITE, &b1, &b2, &ai);
	lkey_case(CASE_B_READ_LKEY, IBV_WR_RDMA_READ, &b1, &b2, &ai);
	lkey_case(CASE_B_RECV_LKEY, -1, &b1, &b2, &ai);

	/* B's own second context on device A, through raw uverbs */
	rawfd = uverbs_raw_context(argv[5], &uctx, sizeof(uctx));
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
	report(CASE_B_MMAP, !why[0], "%s", why);

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
	report(CASE_B_NO_REACH, ok, "%s", why);

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
	ok = send_works(&keep, &b1, &b2, 3, why, sizeof(why));
	report(CASE_B_OTHER_CONTEXT, ok, "%s", why);
	say(to_parent, "D\n");
	if (!get_line(in, line, sizeof(line), PIPE_MS))
		exit(1);
	exit(0);
}

/* ------------------------------------------------------------- parent */

struct child {
	pid_t pid;
	int in;		/* we write */
	int out;	/* we read */
	char name;
};

static bool spawn(struct child *c, char name, uid_t uid,
		  void (*run)(int, const char *const *), const char *const *argv)
{
	int down[2], up[2];

	if (pipe2(down, O_CLOEXEC) || pipe2(up, O_CLOEXEC)) {
		NOTE("pipe: %s", strerror(errno));
		return false;
	}
	fflush(stdout);
	c->name = name;
	c->pid = fork();
	if (c->pid < 0) {
		NOTE("fork: %s", strerror(errno));
		return false;
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
	return true;
}

/*
 * Read c's lines until one starting with stop ("A ", "RANG", "D"):
 * outcomes are recorded, an X line (the child died) fails.  The stop
 * line is returned in line.
 */
static bool collect(struct child *c, const char *stop, char *line, size_t len)
{
	int n, ok, why;

	while (get_line(c->out, line, len, PIPE_MS)) {
		if (sscanf(line, "R %d %d %n", &n, &ok, &why) == 2 &&
		    n >= 0 && n < NUM_CASES) {
			record(n, ok, line + why);
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
	uint64_t end = verbs_now_ms() + PIPE_MS;
	int st;

	close(c->in);
	while (waitpid(c->pid, &st, WNOHANG) == 0) {
		if (verbs_now_ms() > end) {
			kill(c->pid, SIGKILL);
			waitpid(c->pid, &st, 0);
			break;
		}
		usleep(10000);
	}
}

/* Play the scenario (see the top of this file), recording its outcomes. */
static void run_scenario(char **argv)
{
	struct child a, b;
	char line[512], why[256];
	long before, after = -1, cqn = -1;
	uint64_t end;
	bool a_ok, b_ok;

	before = db_errors(argv[8]);
	if (before < 0) {
		NOTE("cannot read db_errors from %s", argv[8]);
		return;
	}
	if (!spawn(&a, 'A', atoi(argv[6]), run_a, (const char *const *)argv))
		return;
	if (!spawn(&b, 'B', atoi(argv[7]), run_b, (const char *const *)argv)) {
		reap(&a);
		return;
	}

	a_ok = collect(&a, "A ", line, sizeof(line));
	if (a_ok) {
		cqn = device_cqn(argv[1], a.pid);
		printf("# A (pid %d, uid %s): %s cqn=%ld\n", a.pid, argv[6],
		       line + 2, cqn);
		say(b.in, "%s cqn=%ld pid=%d\n", line, cqn, a.pid);
	}
	b_ok = a_ok && collect(&b, "RANG", line, sizeof(line));

	/* B's doorbell writes are posted: wait for the device to count them */
	end = verbs_now_ms() + POLL_MS;
	do {
		after = db_errors(argv[8]);
		if (after - before >= NUM_FOREIGN_DB)
			break;
		usleep(10000);
	} while (b_ok && verbs_now_ms() < end);
	/* without A's CQN the CQ doorbells would only name a missing CQ */
	if (b_ok && cqn < 0)
		printf("# could not find A's CQN in `rdma -dd res show cq`\n");
	snprintf(why, sizeof(why), "%d doorbells, db_errors %ld -> %ld",
		 NUM_FOREIGN_DB, before, after);
	if (b_ok)
		record(CASE_DB_REFUSED,
		       cqn >= 0 && after - before == NUM_FOREIGN_DB, why);

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
}

/* Judge the recorded outcome of case @c */
static void judge(enum iso_case c)
{
	if (!outcome[c].ran)
		NOTE("the scenario did not get this far (see the lines above)");
	REQUIRE(outcome[c].ran);
	if (!outcome[c].ok || outcome[c].why[0])
		NOTE("%s", outcome[c].why);
	CHECK(outcome[c].ok);
}

TEST(a_rdma_write_between_a_own_qps_works_control)
{
	judge(CASE_A_CONTROL);
}

TEST(b_send_between_b_own_qps_works_control)
{
	judge(CASE_B_CONTROL);
}

TEST(b_send_with_a_lkey_as_source_is_loc_prot_err_nothing_sent)
{
	judge(CASE_B_SEND_LKEY);
}

TEST(b_rdma_write_with_a_lkey_as_source_is_loc_prot_err_nothing_written)
{
	judge(CASE_B_WRITE_LKEY);
}

TEST(b_rdma_read_into_a_lkey_is_loc_prot_err)
{
	judge(CASE_B_READ_LKEY);
}

TEST(b_recv_into_a_lkey_is_loc_prot_err)
{
	judge(CASE_B_RECV_LKEY);
}

TEST(b_context_maps_its_own_doorbell_page_and_no_other_offset)
{
	judge(CASE_B_MMAP);
}

TEST(b_cannot_take_a_uverbs_file_or_read_a_memory)
{
	judge(CASE_B_NO_REACH);
}

TEST(device_refuses_and_counts_b_doorbells_for_a_queues_and_b_other_context)
{
	judge(CASE_DB_REFUSED);
}

TEST(a_qp_cq_and_memory_are_as_a_left_them_after_b_attempts)
{
	judge(CASE_A_UNTOUCHED);
}

TEST(b_qp_works_on_after_the_doorbell_from_b_other_context)
{
	judge(CASE_B_OTHER_CONTEXT);
}

int main(int argc, char **argv)
{
	if (argc < 9) {
		fprintf(stderr, "usage: %s DEV_A GIDX_A DEV_B GIDX_B UVERBS_A UID_A UID_B HEALTH [TEST...]\n",
			argv[0]);
		return 2;
	}
	run_scenario(argv);
	/* the rest are the runner's test name filters */
	argv[8] = argv[0];
	return ordma_test_main(argc - 8, argv + 8);
}
