// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Host test of the provider's two posting paths on a QP that lives in
 * host memory (no device): every send opcode is posted once with
 * ibv_post_send and once with the extended ibv_wr_* API, and the two
 * send queues must hold the same bytes, wr_ids and doorbell.  Then the
 * extended API's error latch: the first error fails the batch, which
 * leaves the queue's head and doorbell as they were.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ordma/ordma.h"
#include "ordma_test.h"

#define SQ_LOG_SIZE	3
#define SQ_SLOTS	(1u << SQ_LOG_SIZE)
#define SQ_WQE_SHIFT	7
#define SQ_BYTES	(SQ_SLOTS << SQ_WQE_SHIFT)
#define AH_HANDLE	0x2a
#define QP_QKEY		0x1234

enum qp_kind { RC, UC, UD, IWARP_RC };	/* IWARP_RC: RC on an iWARP device */

/* A send queue with its context and doorbell page in host memory */
struct host_qp {
	struct ordma_context ctx;
	struct ordma_qp qp;
	uint64_t wrid[SQ_SLOTS];
	uint8_t ring[SQ_BYTES] __attribute__((aligned(64)));
	uint64_t db_page[512];
};

static struct host_qp *host_qp_new(enum qp_kind kind, bool sig_all)
{
	struct host_qp *h = calloc(1, sizeof(*h));
	struct ordma_qp *qp;

	if (!h)
		abort();
	qp = &h->qp;
	h->ctx.db_page = h->db_page;
	qp->vqp.qp.context = &h->ctx.ibv_ctx.context;
	qp->qpn = 0x11;
	qp->ud = kind == UD;
	qp->uc = kind == UC;
	qp->iwarp = kind == IWARP_RC;
	qp->sig_all = sig_all;
	qp->max_inline = 64;
	qp->qkey = QP_QKEY;
	qp->state = IBV_QPS_RTS;
	pthread_spin_init(&qp->sq.lock, PTHREAD_PROCESS_PRIVATE);
	qp->sq.ring.buf = h->ring;
	qp->sq.ring.length = sizeof(h->ring);
	qp->sq.wrid = h->wrid;
	qp->sq.log_size = SQ_LOG_SIZE;
	qp->sq.wqe_shift = SQ_WQE_SHIFT;
	qp->sq.max_sge = 2;
	/* stale bytes, so that anything one path leaves alone shows */
	memset(h->ring, 0xa5, sizeof(h->ring));
	ordma_qpx_set_ops(qp);
	return h;
}

static struct ibv_qp_ex *qpx(struct host_qp *h)
{
	return &h->qp.vqp.qp_ex;
}

static uint64_t doorbell(const struct host_qp *h)
{
	return le64toh(h->db_page[ORDMA_DB_SQ / sizeof(uint64_t)]);
}

/*
 * One work request, as both paths take it.  Inline data is the gather
 * list's memory (ibv_post_send) or one buffer per SGE (ibv_wr_*).
 */
struct wr_desc {
	enum ibv_wr_opcode opcode;
	unsigned int flags;
	__be32 imm;
	uint32_t inv_rkey;
	uint32_t rkey;
	uint64_t remote_addr;
	uint64_t compare_add, swap;
	struct ibv_mw *mw;
	uint32_t mw_rkey;
	struct ibv_mw_bind_info bind;
	struct ibv_ah *ah;
	uint32_t remote_qpn, remote_qkey;
	int num_sge;
	struct ibv_sge sge[2];
};

static char payload[64] = "the inline payload of a send work request, in two parts";
static struct ordma_ah ah = { .handle = AH_HANDLE };
static struct ibv_mr mr = { .lkey = 0x3344 };
static struct ibv_mw mw = { .rkey = 0x1200, .type = IBV_MW_TYPE_2 };

static void to_send_wr(const struct wr_desc *d, uint64_t wr_id,
		       struct ibv_send_wr *wr)
{
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = wr_id;
	wr->opcode = d->opcode;
	wr->send_flags = d->flags;
	wr->sg_list = (struct ibv_sge *)d->sge;
	wr->num_sge = d->num_sge;
	if (d->opcode == IBV_WR_SEND_WITH_INV)
		wr->invalidate_rkey = d->inv_rkey;
	else
		wr->imm_data = d->imm;
	switch (d->opcode) {
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		wr->wr.atomic.rkey = d->rkey;
		wr->wr.atomic.remote_addr = d->remote_addr;
		wr->wr.atomic.compare_add = d->compare_add;
		wr->wr.atomic.swap = d->swap;
		break;
	case IBV_WR_BIND_MW:
		wr->bind_mw.mw = d->mw;
		wr->bind_mw.rkey = d->mw_rkey;
		wr->bind_mw.bind_info = d->bind;
		break;
	default:
		if (d->ah) {
			wr->wr.ud.ah = d->ah;
			wr->wr.ud.remote_qpn = d->remote_qpn;
			wr->wr.ud.remote_qkey = d->remote_qkey;
		} else {
			wr->wr.rdma.rkey = d->rkey;
			wr->wr.rdma.remote_addr = d->remote_addr;
		}
	}
}

static void post_extended(struct ibv_qp_ex *x, const struct wr_desc *d,
			  uint64_t wr_id)
{
	struct ibv_data_buf bufs[2];
	int i;

	x->wr_id = wr_id;
	x->wr_flags = d->flags & ~(unsigned int)IBV_SEND_INLINE;
	switch (d->opcode) {
	case IBV_WR_SEND:
		ibv_wr_send(x);
		break;
	case IBV_WR_SEND_WITH_IMM:
		ibv_wr_send_imm(x, d->imm);
		break;
	case IBV_WR_SEND_WITH_INV:
		ibv_wr_send_inv(x, d->inv_rkey);
		break;
	case IBV_WR_RDMA_WRITE:
		ibv_wr_rdma_write(x, d->rkey, d->remote_addr);
		break;
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		ibv_wr_rdma_write_imm(x, d->rkey, d->remote_addr, d->imm);
		break;
	case IBV_WR_RDMA_READ:
		ibv_wr_rdma_read(x, d->rkey, d->remote_addr);
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		ibv_wr_atomic_cmp_swp(x, d->rkey, d->remote_addr,
				      d->compare_add, d->swap);
		break;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		ibv_wr_atomic_fetch_add(x, d->rkey, d->remote_addr,
					d->compare_add);
		break;
	case IBV_WR_BIND_MW:
		ibv_wr_bind_mw(x, d->mw, d->mw_rkey, &d->bind);
		break;
	default:
		abort();
	}
	if (d->ah)
		ibv_wr_set_ud_addr(x, d->ah, d->remote_qpn, d->remote_qkey);
	if (d->flags & IBV_SEND_INLINE) {
		for (i = 0; i < d->num_sge; i++) {
			bufs[i].addr = (void *)(uintptr_t)d->sge[i].addr;
			bufs[i].length = d->sge[i].length;
		}
		ibv_wr_set_inline_data_list(x, d->num_sge, bufs);
	} else if (d->num_sge == 1) {
		ibv_wr_set_sge(x, d->sge[0].lkey, d->sge[0].addr,
			       d->sge[0].length);
	} else if (d->num_sge) {
		ibv_wr_set_sge_list(x, d->num_sge, d->sge);
	}
}

static void show_slot(const char *path, const struct host_qp *h, uint32_t i)
{
	const uint8_t *b = h->ring + ((size_t)i << SQ_WQE_SHIFT);
	char line[3 * 16 + 1];
	int off, k;

	for (off = 0; off < 1 << SQ_WQE_SHIFT; off += 16) {
		for (k = 0; k < 16; k++)
			snprintf(line + 3 * k, 4, " %02x", b[off + k]);
		NOTE("%s slot %u +%3d:%s", path, i, off, line);
	}
}

/*
 * Posts the n requests with ibv_post_send on one QP and as one ibv_wr_*
 * batch on another of the kind; both succeed and leave equal queues.
 */
static void post_both_ways(enum qp_kind kind, bool sig_all,
			   const struct wr_desc *d, int n)
{
	struct host_qp *legacy = host_qp_new(kind, sig_all);
	struct host_qp *ext = host_qp_new(kind, sig_all);
	struct ibv_send_wr wr[SQ_SLOTS], *bad = NULL;
	int i;

	for (i = 0; i < n; i++) {
		to_send_wr(&d[i], 100 + i, &wr[i]);
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
	}
	CHECK_EQ(ordma_post_send(&legacy->qp.vqp.qp, wr, &bad), 0);
	ibv_wr_start(qpx(ext));
	for (i = 0; i < n; i++)
		post_extended(qpx(ext), &d[i], 100 + i);
	CHECK_EQ(ibv_wr_complete(qpx(ext)), 0);

	CHECK_EQ(legacy->qp.sq.head, n);
	CHECK_EQ(ext->qp.sq.head, n);
	CHECK_EQ(doorbell(ext), doorbell(legacy));
	CHECK(!memcmp(ext->wrid, legacy->wrid, sizeof(legacy->wrid)));
	for (i = 0; i < n; i++) {
		size_t off = (size_t)i << SQ_WQE_SHIFT;

		if (CHECK(!memcmp(ext->ring + off, legacy->ring + off,
				  1u << SQ_WQE_SHIFT)))
			continue;
		show_slot("ibv_post_send", legacy, i);
		show_slot("ibv_wr_*", ext, i);
	}
	free(legacy);
	free(ext);
}

static const struct ibv_sge two_sges[2] = {
	{ .addr = 0x1122334455667788ULL, .length = 100, .lkey = 0x1201 },
	{ .addr = 0x1000, .length = 8, .lkey = 0x1302 },
};

#define TWO_SGES	.num_sge = 2, .sge = { two_sges[0], two_sges[1] }
#define ONE_SGE		.num_sge = 1, .sge = { two_sges[1] }
#define INLINE_DATA							\
	.flags = IBV_SEND_INLINE, .num_sge = 2,				\
	.sge = { { .addr = (uintptr_t)payload, .length = 40 },		\
		 { .addr = (uintptr_t)payload + 40, .length = 24 } }

TEST(same_wqe_rc_send_two_sges)
{
	struct wr_desc d = { .opcode = IBV_WR_SEND,
			     .flags = IBV_SEND_SIGNALED, TWO_SGES };

	post_both_ways(RC, false, &d, 1);
}

TEST(same_wqe_rc_send_no_data)
{
	struct wr_desc d = { .opcode = IBV_WR_SEND };

	post_both_ways(RC, false, &d, 1);
}

TEST(same_wqe_rc_send_inline)
{
	struct wr_desc d = { .opcode = IBV_WR_SEND, INLINE_DATA };

	post_both_ways(RC, false, &d, 1);
}

TEST(same_wqe_rc_send_imm_solicited)
{
	struct wr_desc d = { .opcode = IBV_WR_SEND_WITH_IMM,
			     .flags = IBV_SEND_SOLICITED,
			     .imm = htonl(0xdeadbeef), ONE_SGE };

	post_both_ways(RC, false, &d, 1);
}

TEST(same_wqe_rc_send_inv_fence_sig_all)
{
	struct wr_desc d = { .opcode = IBV_WR_SEND_WITH_INV,
			     .flags = IBV_SEND_FENCE, .inv_rkey = 0x778899,
			     ONE_SGE };

	post_both_ways(RC, true, &d, 1);
}

TEST(same_wqe_rc_rdma_write)
{
	struct wr_desc d = { .opcode = IBV_WR_RDMA_WRITE, .rkey = 0x4567,
			     .remote_addr = 0xabcdef0012345678ULL, TWO_SGES };

	post_both_ways(RC, false, &d, 1);
}

TEST(same_wqe_rc_rdma_write_imm_inline)
{
	struct wr_desc d = { .opcode = IBV_WR_RDMA_WRITE_WITH_IMM,
			     .imm = htonl(0x01020304), .rkey = 0x4567,
			     .remote_addr = 0x9000, INLINE_DATA };

	post_both_ways(RC, false, &d, 1);
}

TEST(same_wqe_rc_rdma_read)
{
	struct wr_desc d = { .opcode = IBV_WR_RDMA_READ,
			     .flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE,
			     .rkey = 0x99, .remote_addr = 0x8000, TWO_SGES };

	post_both_ways(RC, false, &d, 1);
}

TEST(same_wqe_rc_atomic_cmp_swp)
{
	struct wr_desc d = { .opcode = IBV_WR_ATOMIC_CMP_AND_SWP,
			     .rkey = 0x99, .remote_addr = 0x8000,
			     .compare_add = 5, .swap = 6, ONE_SGE };

	post_both_ways(RC, false, &d, 1);
}

TEST(same_wqe_rc_atomic_fetch_add)
{
	struct wr_desc d = { .opcode = IBV_WR_ATOMIC_FETCH_AND_ADD,
			     .flags = IBV_SEND_SIGNALED, .rkey = 0x99,
			     .remote_addr = 0x8008, .compare_add = 7,
			     ONE_SGE };

	post_both_ways(RC, false, &d, 1);
}

TEST(same_wqe_rc_bind_mw)
{
	struct wr_desc d = {
		.opcode = IBV_WR_BIND_MW, .flags = IBV_SEND_SIGNALED,
		.mw = &mw, .mw_rkey = 0x1201,
		.bind = { .mr = &mr, .addr = 0x7000, .length = 0x100,
			  .mw_access_flags = IBV_ACCESS_REMOTE_WRITE |
					     IBV_ACCESS_ZERO_BASED },
	};

	post_both_ways(RC, false, &d, 1);
}

TEST(same_wqe_uc_send_and_rdma_write_imm)
{
	struct wr_desc d[2] = {
		{ .opcode = IBV_WR_SEND, ONE_SGE },
		{ .opcode = IBV_WR_RDMA_WRITE_WITH_IMM, .imm = htonl(9),
		  .rkey = 0x321, .remote_addr = 0x9000, TWO_SGES },
	};

	post_both_ways(UC, false, d, 2);
}

TEST(same_wqe_ud_send)
{
	struct wr_desc d = { .opcode = IBV_WR_SEND, .ah = &ah.ibv_ah,
			     .remote_qpn = 0x33, .remote_qkey = 0x11111111,
			     ONE_SGE };

	post_both_ways(UD, false, &d, 1);
}

TEST(same_wqe_ud_send_imm_qp_qkey)
{
	struct wr_desc d = { .opcode = IBV_WR_SEND_WITH_IMM,
			     .imm = htonl(0xcafe), .ah = &ah.ibv_ah,
			     .remote_qpn = 0x34,
			     .remote_qkey = ORDMA_QKEY_USE_QP | 1, ONE_SGE };

	post_both_ways(UD, false, &d, 1);
}

TEST(same_wqes_rc_batch_of_every_opcode)
{
	struct wr_desc d[SQ_SLOTS] = {
		{ .opcode = IBV_WR_SEND, TWO_SGES },
		{ .opcode = IBV_WR_SEND_WITH_IMM, .imm = htonl(1), INLINE_DATA },
		{ .opcode = IBV_WR_SEND_WITH_INV, .inv_rkey = 5, ONE_SGE },
		{ .opcode = IBV_WR_RDMA_WRITE, .rkey = 1, .remote_addr = 2,
		  ONE_SGE },
		{ .opcode = IBV_WR_RDMA_READ, .rkey = 3, .remote_addr = 4,
		  TWO_SGES },
		{ .opcode = IBV_WR_ATOMIC_CMP_AND_SWP, .rkey = 5,
		  .remote_addr = 8, .compare_add = 1, .swap = 2, ONE_SGE },
		{ .opcode = IBV_WR_ATOMIC_FETCH_AND_ADD, .rkey = 5,
		  .remote_addr = 16, .compare_add = 3, ONE_SGE },
		{ .opcode = IBV_WR_BIND_MW, .mw = &mw, .mw_rkey = 0x12ff,
		  .bind = { .mr = &mr, .length = 8 } },
	};

	post_both_ways(RC, false, d, SQ_SLOTS);
}

/*
 * libibverbs' ibv_qp_to_qp_ex() reads verbs_qp.comp_mask where the
 * verbs.h it was built with puts it; the provider must have built
 * struct verbs_qp with the same layout (rdma-core 45 moved comp_mask
 * by 8 bytes: tools/provider/build-system.sh).  The test links the
 * libibverbs of the headers it was compiled with.
 */
TEST(libibverbs_qp_to_qp_ex_finds_the_extended_qp)
{
	struct host_qp *h = host_qp_new(RC, false);

	h->qp.vqp.comp_mask |= VERBS_QP_EX;
	CHECK(ibv_qp_to_qp_ex(&h->qp.vqp.qp) == qpx(h));
	free(h);
}

/*
 * FLUSH and ATOMIC WRITE have no ibv_send_wr form: the WQE is compared
 * with the one the segment encoders build on their own.  A provider
 * built for a libibverbs without FLUSH (44) has no ibv_wr_flush().
 */
#ifndef ORDMA_VERBS_NO_FLUSH
TEST(flush_wqe_is_ctrl_and_flush_segment)
{
	struct host_qp *h = host_qp_new(RC, false);
	uint8_t want[1 << SQ_WQE_SHIFT];
	struct ordma_send_wqe *w = (struct ordma_send_wqe *)want;

	memset(want, 0xa5, sizeof(want));
	ordma_wqe_set_ctrl(w, ORDMA_WQE_FLUSH, IBV_SEND_SIGNALED, false);
	REQUIRE_EQ(ordma_wqe_set_flush(w, 0x1234, 0x1000, 4096,
				       IBV_FLUSH_GLOBAL, IBV_FLUSH_RANGE), 0);
	ibv_wr_start(qpx(h));
	qpx(h)->wr_id = 7;
	/* SOLICITED means nothing to a FLUSH: not in its WQE */
	qpx(h)->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_SOLICITED;
	ibv_wr_flush(qpx(h), 0x1234, 0x1000, 4096, IBV_FLUSH_GLOBAL,
		     IBV_FLUSH_RANGE);
	CHECK_EQ(ibv_wr_complete(qpx(h)), 0);
	CHECK_EQ(h->qp.sq.head, 1);
	CHECK_EQ(h->wrid[0], 7);
	if (!CHECK(!memcmp(h->ring, want, sizeof(want))))
		show_slot("ibv_wr_flush", h, 0);
	free(h);
}
#endif

TEST(atomic_write_wqe_is_ctrl_and_atomic_write_segment)
{
	static const uint8_t val[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	struct host_qp *h = host_qp_new(RC, true);
	uint8_t want[1 << SQ_WQE_SHIFT];
	struct ordma_send_wqe *w = (struct ordma_send_wqe *)want;

	memset(want, 0xa5, sizeof(want));
	ordma_wqe_set_ctrl(w, ORDMA_WQE_ATOMIC_WRITE, IBV_SEND_FENCE, true);
	ordma_wqe_set_atomic_write(w, 0x55, 0x2008, val);
	ibv_wr_start(qpx(h));
	qpx(h)->wr_flags = IBV_SEND_FENCE;
	ibv_wr_atomic_write(qpx(h), 0x55, 0x2008, val);
	CHECK_EQ(ibv_wr_complete(qpx(h)), 0);
	if (!CHECK(!memcmp(h->ring, want, sizeof(want))))
		show_slot("ibv_wr_atomic_write", h, 0);
	free(h);
}

/* ------------------------------------------------------------ latch */

/* A batch that failed: its error, and the queue as before the batch. */
static void check_batch_failed(struct host_qp *h, int want_err,
			       uint32_t head_before)
{
	uint64_t db = doorbell(h);

	CHECK_EQ(ibv_wr_complete(qpx(h)), want_err);
	CHECK_EQ(h->qp.sq.head, head_before);
	CHECK_EQ(doorbell(h), db);
}

static void wr_send_one(struct ibv_qp_ex *x)
{
	ibv_wr_send(x);
	ibv_wr_set_sge(x, 1, 0x1000, 8);
}

TEST(latch_first_error_fails_whole_batch)
{
	struct host_qp *h = host_qp_new(RC, false);
	struct ibv_sge three[3] = {};

	ibv_wr_start(qpx(h));
	wr_send_one(qpx(h));
	ibv_wr_send(qpx(h));
	ibv_wr_set_sge_list(qpx(h), 3, three);	/* max_send_sge is 2 */
	/* ignored after the error, though valid */
	wr_send_one(qpx(h));
	check_batch_failed(h, EINVAL, 0);
	/* the next batch starts from the same head */
	ibv_wr_start(qpx(h));
	wr_send_one(qpx(h));
	CHECK_EQ(ibv_wr_complete(qpx(h)), 0);
	CHECK_EQ(h->qp.sq.head, 1);
	CHECK_EQ(FIELD_GET(ORDMA_DB_IDX, doorbell(h)), 1);
	free(h);
}

TEST(latch_queue_full_is_enomem)
{
	struct host_qp *h = host_qp_new(RC, false);
	uint32_t i;

	ibv_wr_start(qpx(h));
	for (i = 0; i < SQ_SLOTS + 1; i++)
		wr_send_one(qpx(h));
	check_batch_failed(h, ENOMEM, 0);
	free(h);
}

TEST(latch_ud_send_without_address_is_einval)
{
	struct host_qp *h = host_qp_new(UD, false);

	ibv_wr_start(qpx(h));
	wr_send_one(qpx(h));
	check_batch_failed(h, EINVAL, 0);
	free(h);
}

TEST(latch_setter_without_request_is_einval)
{
	struct host_qp *h = host_qp_new(RC, false);

	ibv_wr_start(qpx(h));
	ibv_wr_set_sge(qpx(h), 1, 0x1000, 8);
	check_batch_failed(h, EINVAL, 0);
	free(h);
}

TEST(latch_opcode_qp_type_lacks_is_einval)
{
	struct host_qp *h = host_qp_new(UC, false);

	ibv_wr_start(qpx(h));
	wr_send_one(qpx(h));
	ibv_wr_rdma_read(qpx(h), 1, 0x2000);
	check_batch_failed(h, EINVAL, 0);
	free(h);
}

TEST(latch_inline_too_long_is_einval)
{
	struct host_qp *h = host_qp_new(RC, false);

	ibv_wr_start(qpx(h));
	ibv_wr_send(qpx(h));
	ibv_wr_set_inline_data(qpx(h), payload, h->qp.max_inline + 1);
	check_batch_failed(h, EINVAL, 0);
	free(h);
}

TEST(latch_atomic_without_its_sge_is_einval)
{
	struct host_qp *h = host_qp_new(RC, false);

	ibv_wr_start(qpx(h));
	ibv_wr_atomic_fetch_add(qpx(h), 1, 0x2000, 1);
	check_batch_failed(h, EINVAL, 0);
	free(h);
}

TEST(latch_local_inv_is_eopnotsupp)
{
	struct host_qp *h = host_qp_new(RC, false);

	ibv_wr_start(qpx(h));
	ibv_wr_local_inv(qpx(h), 5);
	check_batch_failed(h, EOPNOTSUPP, 0);
	free(h);
}

TEST(latch_batch_in_reset_is_einval)
{
	struct host_qp *h = host_qp_new(RC, false);

	h->qp.state = IBV_QPS_RESET;
	ibv_wr_start(qpx(h));
	wr_send_one(qpx(h));
	check_batch_failed(h, EINVAL, 0);
	free(h);
}

TEST(abort_rings_nothing)
{
	struct host_qp *h = host_qp_new(RC, false);

	ibv_wr_start(qpx(h));
	wr_send_one(qpx(h));
	ibv_wr_abort(qpx(h));
	CHECK_EQ(h->qp.sq.head, 0);
	CHECK_EQ(doorbell(h), 0);
	/* the lock was dropped: a new batch can start */
	ibv_wr_start(qpx(h));
	wr_send_one(qpx(h));
	CHECK_EQ(ibv_wr_complete(qpx(h)), 0);
	CHECK_EQ(h->qp.sq.head, 1);
	free(h);
}

TEST(post_send_rings_up_to_the_bad_request)
{
	struct host_qp *h = host_qp_new(RC, false);
	struct ibv_sge sge = { .addr = 0x1000, .length = 8, .lkey = 1 };
	struct ibv_send_wr wr[3] = {}, *bad = NULL;
	int i;

	for (i = 0; i < 3; i++) {
		wr[i].opcode = IBV_WR_SEND;
		wr[i].sg_list = &sge;
		wr[i].num_sge = 1;
		wr[i].next = i < 2 ? &wr[i + 1] : NULL;
	}
	wr[1].num_sge = 3;
	CHECK_EQ(ordma_post_send(&h->qp.vqp.qp, wr, &bad), EINVAL);
	CHECK(bad == &wr[1]);
	CHECK_EQ(h->qp.sq.head, 1);
	CHECK_EQ(FIELD_GET(ORDMA_DB_IDX, doorbell(h)), 1);
	CHECK_EQ(FIELD_GET(ORDMA_DB_QN, doorbell(h)), h->qp.qpn);
	free(h);
}

/* ------------------------------------------------------------ iWARP */

static struct ibv_sge iw_sge[2] = {
	{ .addr = 0x1000, .length = 8, .lkey = 1 },
	{ .addr = 0x2000, .length = 8, .lkey = 1 },
};
static struct ibv_mr iw_mr = { .lkey = 0x3344 };
static struct ibv_mw iw_mw = { .rkey = 0x1200, .type = IBV_MW_TYPE_2 };

/* Work request n of what iWARP refuses; false past the last one */
static bool iw_refused_wr(int n, struct ibv_send_wr *wr)
{
	memset(wr, 0, sizeof(*wr));
	wr->sg_list = iw_sge;
	wr->num_sge = 1;
	switch (n) {
	case 0:
		wr->opcode = IBV_WR_SEND_WITH_IMM;
		break;
	case 1:
		wr->opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
		break;
	case 2:
		wr->opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
		break;
	case 3:
		wr->opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
		break;
	case 4:
		wr->opcode = IBV_WR_RDMA_READ;
		wr->num_sge = 2;
		break;
	case 5:
		wr->opcode = IBV_WR_RDMA_READ;
		wr->num_sge = 0;
		break;
	case 6:
	case 7:
		wr->opcode = IBV_WR_BIND_MW;
		wr->num_sge = 0;
		wr->bind_mw.mw = &iw_mw;
		wr->bind_mw.rkey = 0x1201;
		wr->bind_mw.bind_info.mr = &iw_mr;
		wr->bind_mw.bind_info.addr = 0x7000;
		wr->bind_mw.bind_info.length = 0x100;
		wr->bind_mw.bind_info.mw_access_flags = IBV_ACCESS_LOCAL_WRITE |
			(n == 6 ? IBV_ACCESS_REMOTE_ATOMIC :
				  IBV_ACCESS_FLUSH_GLOBAL);
		break;
	default:
		return false;
	}
	return true;
}

/* A SEND, then the refused request: EINVAL, bad_wr at it, one rung */
TEST(iwarp_post_send_refuses_what_iwarp_lacks)
{
	struct ibv_send_wr first, wr, *bad;
	int n;

	for (n = 0; iw_refused_wr(n, &wr); n++) {
		struct host_qp *h = host_qp_new(IWARP_RC, false);

		memset(&first, 0, sizeof(first));
		first.opcode = IBV_WR_SEND;
		first.sg_list = iw_sge;
		first.num_sge = 1;
		first.next = &wr;
		bad = NULL;
		if (!CHECK_EQ(ordma_post_send(&h->qp.vqp.qp, &first, &bad),
			      EINVAL))
			NOTE("request %d", n);
		CHECK(bad == &wr);
		CHECK_EQ(h->qp.sq.head, 1);
		CHECK_EQ(FIELD_GET(ORDMA_DB_IDX, doorbell(h)), 1);
		/* the same request on a RoCE RC QP is taken */
		free(h);
		h = host_qp_new(RC, false);
		bad = NULL;
		if (!CHECK_EQ(ordma_post_send(&h->qp.vqp.qp, &first, &bad), 0))
			NOTE("request %d on RoCE", n);
		CHECK_EQ(h->qp.sq.head, 2);
		free(h);
	}
}

TEST(iwarp_post_send_takes_send_write_read_one_sge)
{
	static const enum ibv_wr_opcode ops[] = {
		IBV_WR_SEND, IBV_WR_SEND_WITH_INV, IBV_WR_RDMA_WRITE,
		IBV_WR_RDMA_READ, IBV_WR_LOCAL_INV,
	};
	struct host_qp *h = host_qp_new(IWARP_RC, false);
	struct ibv_send_wr wr[5], *bad = NULL;
	size_t i;

	memset(wr, 0, sizeof(wr));
	for (i = 0; i < 5; i++) {
		wr[i].opcode = ops[i];
		wr[i].sg_list = iw_sge;
		wr[i].num_sge = ops[i] == IBV_WR_LOCAL_INV ? 0 : 1;
		wr[i].next = i < 4 ? &wr[i + 1] : NULL;
	}
	CHECK_EQ(ordma_post_send(&h->qp.vqp.qp, wr, &bad), 0);
	CHECK_EQ(h->qp.sq.head, 5);
	free(h);
}

/* The extended API: the batch fails on the refused request */
TEST(iwarp_extended_post_refuses_what_iwarp_lacks)
{
	int n;

	for (n = 0; n < 7; n++) {
		struct host_qp *h = host_qp_new(IWARP_RC, false);
		struct ibv_qp_ex *x = qpx(h);

		ibv_wr_start(x);
		wr_send_one(x);
		switch (n) {
		case 0:
			ibv_wr_send_imm(x, htonl(1));
			ibv_wr_set_sge(x, 1, 0x1000, 8);
			break;
		case 1:
			ibv_wr_rdma_write_imm(x, 1, 0x2000, htonl(1));
			ibv_wr_set_sge(x, 1, 0x1000, 8);
			break;
		case 2:
			ibv_wr_atomic_cmp_swp(x, 1, 0x2000, 1, 2);
			ibv_wr_set_sge(x, 1, 0x1000, 8);
			break;
		case 3:
			ibv_wr_atomic_fetch_add(x, 1, 0x2000, 1);
			ibv_wr_set_sge(x, 1, 0x1000, 8);
			break;
		case 4:
			ibv_wr_rdma_read(x, 1, 0x2000);
			ibv_wr_set_sge_list(x, 2, iw_sge);
			break;
		case 5:
			ibv_wr_atomic_write(x, 1, 0x2000, "12345678");
			break;
		default:
#ifndef ORDMA_VERBS_NO_FLUSH
			ibv_wr_flush(x, 1, 0x2000, 64, IBV_FLUSH_GLOBAL,
				     IBV_FLUSH_RANGE);
#else
			ibv_wr_atomic_write(x, 1, 0x2000, "12345678");
#endif
			break;
		}
		check_batch_failed(h, EINVAL, 0);
		/* a READ into one buffer goes */
		ibv_wr_start(x);
		ibv_wr_rdma_read(x, 1, 0x2000);
		ibv_wr_set_sge(x, 1, 0x1000, 8);
		CHECK_EQ(ibv_wr_complete(x), 0);
		CHECK_EQ(h->qp.sq.head, 1);
		free(h);
	}
}
