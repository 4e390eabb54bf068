// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Malformed driver data (udata) and mmap requests against ordma_ib,
 * through the raw uverbs write() interface so that no provider can
 * correct them first.  Every request must be refused with its errno and
 * leave the context usable; a well-formed request after each group
 * proves that.
 *
 * Usage: uverbs_udata /dev/infiniband/uverbsN
 * Prints TAP lines ("ok N - name" / "not ok N - name: why") and a last
 * line "# N cases"; exit status 0 when every case passed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rdma/ib_user_verbs.h>
#include <rdma/ordma-abi.h>

#define PAGE	4096

static int case_num, failures;
static int fd;
static struct ordma_alloc_ucontext_resp uctx;

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

/*
 * One legacy uverbs command: hdr + cmd (cmd_len bytes, response pointer
 * first) + drv (drv_len bytes); the response (resp_len bytes) is
 * written to resp.  Returns 0 or the errno.
 */
static int uverbs_cmd(uint32_t command, void *cmd, size_t cmd_len,
		      const void *drv, size_t drv_len, void *resp,
		      size_t resp_len)
{
	uint8_t buf[512] __attribute__((aligned(8)));
	struct ib_uverbs_cmd_hdr *hdr = (void *)buf;
	size_t in = sizeof(*hdr) + cmd_len + drv_len;

	if (in > sizeof(buf) || in % 4 || resp_len % 4)
		return E2BIG;
	*(uint64_t *)cmd = (uintptr_t)resp;
	hdr->command = command;
	hdr->in_words = in / 4;
	hdr->out_words = resp_len / 4;
	memcpy(buf + sizeof(*hdr), cmd, cmd_len);
	memcpy(buf + sizeof(*hdr) + cmd_len, drv, drv_len);
	if (write(fd, buf, in) != (ssize_t)in)
		return errno;
	return 0;
}

static uint32_t pd_handle;

static int create_cq(const struct ordma_create_cq *drv, size_t drv_len,
		     uint32_t cqe, uint32_t *handle)
{
	struct ib_uverbs_create_cq cmd = {
		.cqe = cqe, .comp_channel = -1,
	};
	struct {
		struct ib_uverbs_create_cq_resp core;
		struct ordma_create_cq_resp drv;
	} resp;
	int rc = uverbs_cmd(IB_USER_VERBS_CMD_CREATE_CQ, &cmd, sizeof(cmd),
			    drv, drv_len, &resp, sizeof(resp));

	if (!rc && handle)
		*handle = resp.core.cq_handle;
	return rc;
}

static int destroy_cq(uint32_t handle)
{
	struct ib_uverbs_destroy_cq cmd = { .cq_handle = handle };
	struct ib_uverbs_destroy_cq_resp resp;

	return uverbs_cmd(IB_USER_VERBS_CMD_DESTROY_CQ, &cmd, sizeof(cmd),
			  NULL, 0, &resp, sizeof(resp));
}

static void *ring, *dbrec;

static struct ordma_create_cq good_cq(void)
{
	struct ordma_create_cq c = {
		.buf_addr = (uintptr_t)ring,
		.db_record_addr = (uintptr_t)dbrec,
		.log_size = 6,		/* 64 CQEs = 2 KiB, one page */
	};

	return c;
}

static void cq_case(const char *name, struct ordma_create_cq c,
		    size_t drv_len, int want)
{
	uint32_t h;
	int rc = create_cq(&c, drv_len, 63, &h);

	if (!rc)
		destroy_cq(h);
	result(rc == want, name, "errno %d (%s), wanted %d", rc,
	       strerror(rc), want);
}

static void cq_cases(void)
{
	struct ordma_create_cq c;
	uint8_t longer[sizeof(c) + 8] = { 0 };
	uint32_t h;
	int rc;

	c = good_cq();
	rc = create_cq(&c, sizeof(c), 63, &h);
	result(!rc && !destroy_cq(h), "create_cq with well-formed udata, destroy_cq",
	       "errno %d", rc);

	cq_case("create_cq: udata shorter than struct ordma_create_cq: EINVAL",
		good_cq(), 8, EINVAL);
	cq_case("create_cq: no udata at all: EINVAL", good_cq(), 0, EINVAL);
	c = good_cq();
	c.reserved[3] = 1;
	cq_case("create_cq: non-zero reserved byte: EINVAL", c, sizeof(c), EINVAL);
	c = good_cq();
	c.buf_addr += 64;
	cq_case("create_cq: ring not page aligned: EINVAL", c, sizeof(c), EINVAL);
	c = good_cq();
	c.db_record_addr += 4;
	cq_case("create_cq: doorbell record not 8-byte aligned: EINVAL", c,
		sizeof(c), EINVAL);
	c = good_cq();
	c.log_size = 0;
	cq_case("create_cq: log_size 0: EINVAL", c, sizeof(c), EINVAL);
	c = good_cq();
	c.log_size = 17;
	cq_case("create_cq: log_size 17: EINVAL", c, sizeof(c), EINVAL);
	c = good_cq();
	c.log_size = 2;
	/* 4 CQEs cannot hold the 63 the core asked for */
	cq_case("create_cq: ring smaller than the requested cqe count: EINVAL",
		c, sizeof(c), EINVAL);
	c = good_cq();
	c.buf_addr = 0x1000;	/* never mapped */
	cq_case("create_cq: ring at an unmapped address: EFAULT", c, sizeof(c),
		EFAULT);

	/* Trailing bytes beyond the known struct must be zero. */
	c = good_cq();
	memcpy(longer, &c, sizeof(c));
	rc = create_cq((void *)longer, sizeof(longer), 63, &h);
	if (!rc)
		destroy_cq(h);
	result(rc == 0, "create_cq: zero trailing udata bytes are accepted",
	       "errno %d", rc);
	longer[sizeof(c) + 3] = 1;
	rc = create_cq((void *)longer, sizeof(longer), 63, &h);
	if (!rc)
		destroy_cq(h);
	result(rc == EOPNOTSUPP || rc == EINVAL,
	       "create_cq: non-zero trailing udata bytes are refused",
	       "errno %d", rc);

	c = good_cq();
	rc = create_cq(&c, sizeof(c), 63, &h);
	result(!rc && !destroy_cq(h), "the context still creates CQs afterwards",
	       "errno %d", rc);
}

static void mmap_case(const char *name, size_t len, int prot, int flags,
		      off_t off)
{
	void *p = mmap(NULL, len, prot, flags, fd, off);

	result(p == MAP_FAILED, name, "mapped at %p", p);
	if (p != MAP_FAILED)
		munmap(p, len);
}

static void mmap_cases(void)
{
	off_t key = uctx.db_mmap_key;
	void *p = mmap(NULL, PAGE, PROT_WRITE, MAP_SHARED, fd, key);

	result(p != MAP_FAILED, "mmap of the doorbell page", "%s",
	       strerror(errno));
	if (p != MAP_FAILED)
		munmap(p, PAGE);
	mmap_case("mmap of the doorbell page, two pages long: refused",
		  2 * PAGE, PROT_WRITE, MAP_SHARED, key);
	mmap_case("mmap of the doorbell page, MAP_PRIVATE: refused", PAGE,
		  PROT_WRITE, MAP_PRIVATE, key);
	mmap_case("mmap of the doorbell page, PROT_EXEC: refused", PAGE,
		  PROT_WRITE | PROT_EXEC, MAP_SHARED, key);
	mmap_case("mmap at an unknown offset: refused", PAGE, PROT_WRITE,
		  MAP_SHARED, key + 64 * PAGE);
}

int main(int argc, char **argv)
{
	struct ib_uverbs_get_context gc = { 0 };
	struct {
		struct ib_uverbs_get_context_resp core;
		struct ordma_alloc_ucontext_resp drv;
	} gresp;
	struct ib_uverbs_alloc_pd pc = { 0 };
	struct {
		struct ib_uverbs_alloc_pd_resp core;
		struct ordma_alloc_pd_resp drv;
	} presp;
	uint64_t junk = 1;
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: %s /dev/infiniband/uverbsN\n", argv[0]);
		return 2;
	}
	fd = open(argv[1], O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		printf("Bail out! open %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	ring = aligned_alloc(PAGE, PAGE);
	dbrec = aligned_alloc(PAGE, PAGE);
	memset(ring, 0, PAGE);
	memset(dbrec, 0, PAGE);

	rc = uverbs_cmd(IB_USER_VERBS_CMD_GET_CONTEXT, &gc, sizeof(gc), &junk,
			sizeof(junk), &gresp, sizeof(gresp));
	result(rc == EINVAL, "get_context with non-zero driver request bytes: EINVAL",
	       "errno %d", rc);
	rc = uverbs_cmd(IB_USER_VERBS_CMD_GET_CONTEXT, &gc, sizeof(gc), NULL, 0,
			&gresp, sizeof(gresp));
	result(!rc && gresp.drv.db_page_size == PAGE && gresp.drv.uctx_id != 0,
	       "get_context: doorbell page and context id reported",
	       "errno %d, page size %u, uctx %u", rc, gresp.drv.db_page_size,
	       gresp.drv.uctx_id);
	if (rc) {
		printf("Bail out! no context\n");
		return 1;
	}
	uctx = gresp.drv;
	rc = uverbs_cmd(IB_USER_VERBS_CMD_ALLOC_PD, &pc, sizeof(pc), NULL, 0,
			&presp, sizeof(presp));
	result(!rc, "alloc_pd", "errno %d", rc);
	pd_handle = presp.core.pd_handle;

	cq_cases();
	mmap_cases();

	printf("# %d cases\n", case_num);
	return failures ? 1 : 0;
}
