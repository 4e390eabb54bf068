// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Malformed driver data (udata) and mmap requests against ordma_ib,
 * through the raw uverbs write() interface so that no provider can
 * correct them first.  Every request must be refused with its errno and
 * leave the context usable; a well-formed request after each group
 * proves that.
 *
 * Usage: uverbs_udata /dev/infiniband/uverbsN [TEST...]
 * Each test opens the uverbs device and creates its context afresh in
 * its own process; the output is the ordma_test runner's TAP.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rdma/ib_user_verbs.h>
#include <rdma/ordma-abi.h>

#include "ordma_test.h"
#include "verbs_util.h"

#define PAGE	VERBS_PAGE

static const char *uverbs_path;
static int fd;
static struct ordma_alloc_ucontext_resp uctx;
static void *ring, *dbrec;

/* The uverbs device opened, with no context yet; false if it is not. */
static bool open_device(void)
{
	fd = open(uverbs_path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		NOTE("open %s: %s", uverbs_path, strerror(errno));
	return fd >= 0;
}

/* The fixture of the CQ and mmap tests: a context with a PD. */
static bool open_context(void)
{
	struct ib_uverbs_alloc_pd pc = { 0 };
	struct {
		struct ib_uverbs_alloc_pd_resp core;
		struct ordma_alloc_pd_resp drv;
	} presp;
	int rc;

	fd = uverbs_raw_context(uverbs_path, &uctx, sizeof(uctx));
	if (fd < 0) {
		NOTE("context on %s: %s", uverbs_path, strerror(errno));
		return false;
	}
	rc = uverbs_raw_cmd(fd, IB_USER_VERBS_CMD_ALLOC_PD, &pc, sizeof(pc),
			    NULL, 0, &presp, sizeof(presp));
	if (rc)
		NOTE("alloc_pd: %s", strerror(rc));
	ring = aligned_alloc(PAGE, PAGE);
	dbrec = aligned_alloc(PAGE, PAGE);
	if (!ring || !dbrec)
		return false;
	memset(ring, 0, PAGE);
	memset(dbrec, 0, PAGE);
	return !rc;
}

static int create_cq(const void *drv, size_t drv_len, uint32_t cqe,
		     uint32_t *handle)
{
	struct ib_uverbs_create_cq cmd = {
		.cqe = cqe, .comp_channel = -1,
	};
	struct {
		struct ib_uverbs_create_cq_resp core;
		struct ordma_create_cq_resp drv;
	} resp;
	int rc = uverbs_raw_cmd(fd, IB_USER_VERBS_CMD_CREATE_CQ, &cmd,
				sizeof(cmd), drv, drv_len, &resp, sizeof(resp));

	if (!rc && handle)
		*handle = resp.core.cq_handle;
	return rc;
}

static int destroy_cq(uint32_t handle)
{
	struct ib_uverbs_destroy_cq cmd = { .cq_handle = handle };
	struct ib_uverbs_destroy_cq_resp resp;

	return uverbs_raw_cmd(fd, IB_USER_VERBS_CMD_DESTROY_CQ, &cmd,
			      sizeof(cmd), NULL, 0, &resp, sizeof(resp));
}

static struct ordma_create_cq good_cq(void)
{
	struct ordma_create_cq c = {
		.buf_addr = (uintptr_t)ring,
		.db_record_addr = (uintptr_t)dbrec,
		.log_size = 6,		/* 64 CQEs = 2 KiB, one page */
	};

	return c;
}

/* create_cq for 63 CQEs with @drv_len bytes of @drv: its errno (0) */
static int try_cq(const void *drv, size_t drv_len)
{
	uint32_t h;
	int rc = create_cq(drv, drv_len, 63, &h);

	if (!rc)
		destroy_cq(h);
	return rc;
}

/* Every malformed CQ request of the tests below, in their order */
enum bad_cq {
	BAD_CQ_SHORT, BAD_CQ_NO_UDATA, BAD_CQ_RESERVED, BAD_CQ_RING_ALIGN,
	BAD_CQ_DBREC_ALIGN, BAD_CQ_LOG_SIZE_0, BAD_CQ_LOG_SIZE_17,
	BAD_CQ_RING_SMALL, BAD_CQ_RING_UNMAPPED, BAD_CQ_TRAILING,
	NUM_BAD_CQ
};

static int try_bad_cq(enum bad_cq bad)
{
	struct ordma_create_cq c = good_cq();
	uint8_t longer[sizeof(c) + 8] = { 0 };

	switch (bad) {
	case BAD_CQ_SHORT:
		return try_cq(&c, 8);
	case BAD_CQ_NO_UDATA:
		return try_cq(&c, 0);
	case BAD_CQ_RESERVED:
		c.reserved[3] = 1;
		break;
	case BAD_CQ_RING_ALIGN:
		c.buf_addr += 64;
		break;
	case BAD_CQ_DBREC_ALIGN:
		c.db_record_addr += 4;
		break;
	case BAD_CQ_LOG_SIZE_0:
		c.log_size = 0;
		break;
	case BAD_CQ_LOG_SIZE_17:
		c.log_size = 17;
		break;
	case BAD_CQ_RING_SMALL:
		/* 4 CQEs cannot hold the 63 the core asked for */
		c.log_size = 2;
		break;
	case BAD_CQ_RING_UNMAPPED:
		c.buf_addr = 0x1000;	/* never mapped */
		break;
	case BAD_CQ_TRAILING:
		/* trailing bytes beyond the known struct must be zero */
		memcpy(longer, &c, sizeof(c));
		longer[sizeof(c) + 3] = 1;
		return try_cq(longer, sizeof(longer));
	case NUM_BAD_CQ:
		break;
	}
	return try_cq(&c, sizeof(c));
}

static void expect_bad_cq(enum bad_cq bad, int want)
{
	REQUIRE(open_context());
	CHECK_EQ(try_bad_cq(bad), want);
}

TEST(get_context_with_nonzero_driver_request_bytes_is_einval)
{
	struct ib_uverbs_get_context gc = { 0 };
	struct {
		struct ib_uverbs_get_context_resp core;
		struct ordma_alloc_ucontext_resp drv;
	} gresp;
	uint64_t junk = 1;

	REQUIRE(open_device());
	CHECK_EQ(uverbs_raw_cmd(fd, IB_USER_VERBS_CMD_GET_CONTEXT, &gc,
				sizeof(gc), &junk, sizeof(junk), &gresp,
				sizeof(gresp)), EINVAL);
}

TEST(get_context_reports_doorbell_page_and_context_id)
{
	fd = uverbs_raw_context(uverbs_path, &uctx, sizeof(uctx));
	if (fd < 0)
		NOTE("get_context: %s", strerror(errno));
	REQUIRE(fd >= 0);
	CHECK_EQ(uctx.db_page_size, PAGE);
	CHECK(uctx.uctx_id != 0);
}

TEST(alloc_pd)
{
	CHECK(open_context());
}

TEST(create_cq_with_well_formed_udata_and_destroy_cq)
{
	struct ordma_create_cq c;
	uint32_t h = 0;

	REQUIRE(open_context());
	c = good_cq();
	REQUIRE_EQ(create_cq(&c, sizeof(c), 63, &h), 0);
	CHECK_EQ(destroy_cq(h), 0);
}

TEST(create_cq_udata_shorter_than_struct_is_einval)
{
	expect_bad_cq(BAD_CQ_SHORT, EINVAL);
}

TEST(create_cq_without_udata_is_einval)
{
	expect_bad_cq(BAD_CQ_NO_UDATA, EINVAL);
}

TEST(create_cq_nonzero_reserved_byte_is_einval)
{
	expect_bad_cq(BAD_CQ_RESERVED, EINVAL);
}

TEST(create_cq_ring_not_page_aligned_is_einval)
{
	expect_bad_cq(BAD_CQ_RING_ALIGN, EINVAL);
}

TEST(create_cq_doorbell_record_not_8_byte_aligned_is_einval)
{
	expect_bad_cq(BAD_CQ_DBREC_ALIGN, EINVAL);
}

TEST(create_cq_log_size_0_is_einval)
{
	expect_bad_cq(BAD_CQ_LOG_SIZE_0, EINVAL);
}

TEST(create_cq_log_size_17_is_einval)
{
	expect_bad_cq(BAD_CQ_LOG_SIZE_17, EINVAL);
}

TEST(create_cq_ring_smaller_than_requested_cqe_count_is_einval)
{
	expect_bad_cq(BAD_CQ_RING_SMALL, EINVAL);
}

TEST(create_cq_ring_at_unmapped_address_is_efault)
{
	expect_bad_cq(BAD_CQ_RING_UNMAPPED, EFAULT);
}

TEST(create_cq_zero_trailing_udata_bytes_are_accepted)
{
	struct ordma_create_cq c;
	uint8_t longer[sizeof(c) + 8] = { 0 };

	REQUIRE(open_context());
	c = good_cq();
	memcpy(longer, &c, sizeof(c));
	CHECK_EQ(try_cq(longer, sizeof(longer)), 0);
}

TEST(create_cq_nonzero_trailing_udata_bytes_are_refused)
{
	int rc;

	REQUIRE(open_context());
	rc = try_bad_cq(BAD_CQ_TRAILING);
	NOTE("errno %d (%s)", rc, strerror(rc));
	CHECK(rc == EOPNOTSUPP || rc == EINVAL);
}

TEST(context_still_creates_cqs_after_the_refused_requests)
{
	struct ordma_create_cq c;
	enum bad_cq bad;

	REQUIRE(open_context());
	for (bad = 0; bad < NUM_BAD_CQ; bad++)
		try_bad_cq(bad);
	c = good_cq();
	CHECK_EQ(try_cq(&c, sizeof(c)), 0);
}

/* mmap of @len bytes at @off of the context must be refused */
static void expect_mmap_refused(size_t len, int prot, int flags, off_t off)
{
	void *p = mmap(NULL, len, prot, flags, fd, off);

	if (p != MAP_FAILED) {
		NOTE("mapped at %p", p);
		munmap(p, len);
	}
	CHECK(p == MAP_FAILED);
}

TEST(mmap_of_the_doorbell_page)
{
	void *p;

	REQUIRE(open_context());
	p = mmap(NULL, PAGE, PROT_WRITE, MAP_SHARED, fd, uctx.db_mmap_key);
	if (p == MAP_FAILED)
		NOTE("mmap: %s", strerror(errno));
	else
		munmap(p, PAGE);
	CHECK(p != MAP_FAILED);
}

TEST(mmap_of_the_doorbell_page_two_pages_long_is_refused)
{
	REQUIRE(open_context());
	expect_mmap_refused(2 * PAGE, PROT_WRITE, MAP_SHARED, uctx.db_mmap_key);
}

TEST(mmap_of_the_doorbell_page_map_private_is_refused)
{
	REQUIRE(open_context());
	expect_mmap_refused(PAGE, PROT_WRITE, MAP_PRIVATE, uctx.db_mmap_key);
}

TEST(mmap_of_the_doorbell_page_prot_exec_is_refused)
{
	REQUIRE(open_context());
	expect_mmap_refused(PAGE, PROT_WRITE | PROT_EXEC, MAP_SHARED,
			    uctx.db_mmap_key);
}

TEST(mmap_at_an_unknown_offset_is_refused)
{
	REQUIRE(open_context());
	expect_mmap_refused(PAGE, PROT_WRITE, MAP_SHARED,
			    uctx.db_mmap_key + 64 * PAGE);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s /dev/infiniband/uverbsN [TEST...]\n",
			argv[0]);
		return 2;
	}
	uverbs_path = argv[1];
	/* the rest are the runner's test name filters */
	argv[1] = argv[0];
	return ordma_test_main(argc - 1, argv + 1);
}
