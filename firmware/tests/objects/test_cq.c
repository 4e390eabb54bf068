// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Completion queues: CREATE_CQ/DESTROY_CQ validation and references, CQE
 * writes with the phase bit across wraps, overrun detection through the
 * doorbell record, arming (next / solicited) and COMP events, the CQ
 * doorbell's isolation rules, and the reset of every verbs object.
 */
#include <string.h>

#include "objects/fw_verbs.h"
#include "drv.h"
#include "ordma_test.h"

#define OFF_UCTX	8
#define OFF_EQN		12
#define OFF_RING	16
#define OFF_NUM_PAGES	24
#define OFF_PAGE_SHIFT	28
#define OFF_LEVELS	29
#define OFF_RING_RSVD	30
#define OFF_DB_RECORD	32
#define OFF_LOG_SIZE	40

_Static_assert(OFF_DB_RECORD == FW_CMD_OFF(create_cq.db_record), "layout");
_Static_assert(OFF_LOG_SIZE == FW_CMD_OFF(create_cq.log_size), "layout");

#define MS		1000000ULL

struct cq_env {
	struct drv d;
	struct drv_eq async;
	struct drv_eq comp;
	uint32_t uctx;
};

static bool env_open(struct cq_env *e)
{
	if (!drv_open(&e->d, 5))
		return false;
	return drv_eq_open(&e->d, &e->async, ORDMA_EQ_TYPE_ASYNC, 0, 6) &&
	       drv_eq_open(&e->d, &e->comp, ORDMA_EQ_TYPE_COMP, 1, 6) &&
	       drv_alloc_uctx(&e->d, &e->uctx) == ORDMA_CMD_STATUS_OK;
}

static void create_cq_init(struct ordma_aq_cmd *cmd, uint32_t uctx,
			   uint32_t eqn, uint8_t log_size)
{
	drv_cmd_init(cmd, ORDMA_CMD_CREATE_CQ);
	cmd->create_cq.uctx = cpu_to_le32(uctx);
	cmd->create_cq.eqn = cpu_to_le32(eqn);
	cmd->create_cq.ring.addr = cpu_to_le64(DRV_CQ_ADDR(0));
	cmd->create_cq.ring.num_pages = cpu_to_le32(1);
	cmd->create_cq.ring.page_shift = 12;
	cmd->create_cq.db_record = cpu_to_le64(DRV_CQ_DBREC_ADDR(0));
	cmd->create_cq.log_size = log_size;
}

static struct ordma_cqe make_cqe(uint32_t qpn, uint32_t idx, uint8_t status)
{
	struct ordma_cqe cqe;

	memset(&cqe, 0, sizeof(cqe));
	cqe.qpn = cpu_to_le32(qpn);
	cqe.wqe_idx = cpu_to_le32(idx);
	cqe.byte_len = cpu_to_le32(idx * 3);
	cqe.imm_inv = cpu_to_le32(0xabcd0000 | idx);
	cqe.src_qp = cpu_to_le32(7);
	cqe.flags = cpu_to_le16(ORDMA_CQE_F_IMM);
	cqe.opcode = ORDMA_CQE_OP_RECV;
	cqe.status = status;
	cqe.slid = cpu_to_le16(0x1234);		/* the device passes these on */
	cqe.sl = 5;
	cqe.dlid_path_bits = 3;
	cqe.owner = cpu_to_le32(0xffffffff);	/* and computes this */
	return cqe;
}

static int post(struct drv *d, uint32_t cqn, uint32_t idx, uint8_t status,
		bool solicited)
{
	struct ordma_cqe cqe = make_cqe(42, idx, status);

	return fw_cq_post(d->fw, cqn, &cqe, solicited);
}

static uint32_t eqe_type(const struct ordma_eqe *eqe)
{
	return FIELD_GET(ORDMA_EQE_TYPE, le32_to_cpu(eqe->type));
}

/* The next event on eq is type with data[0] = d0; as a driver does, the
 * consumption is reported with the EQ doorbell.
 */
static bool next_event(struct drv *d, struct drv_eq *eq, uint32_t type,
		       uint32_t d0)
{
	struct ordma_eqe eqe;

	if (!CHECK(drv_eq_next(d, eq, &eqe)))
		return false;
	drv_eq_update(d, eq, false);
	return CHECK_EQ(eqe_type(&eqe), type) &&
	       CHECK_EQ(le32_to_cpu(eqe.data[0]), d0);
}

static bool no_event(struct drv *d, struct drv_eq *eq)
{
	struct ordma_eqe eqe;

	return CHECK(!drv_eq_next(d, eq, &eqe));
}

/* ------------------------------------------------------------------ */
/* Commands                                                            */
/* ------------------------------------------------------------------ */

TEST(test_create_cq)
{
	struct ordma_aq_cmd cmd;
	struct drv_eq big;
	struct drv_cq cq;
	struct cq_env e;
	uint32_t i;

	REQUIRE(env_open(&e));
	create_cq_init(&cmd, 0, e.comp.eqn, 1);
	CHECK_EQ(drv_exec(&e.d, &cmd), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(le32_to_cpu(e.d.last_comp.handle.handle), 1);
	CHECK_EQ(le32_to_cpu(e.d.last_comp.handle.db_page), 0);
	/* the largest CQ: 65536 CQEs = 2 MiB in 512 pages of a table */
	create_cq_init(&cmd, e.uctx, e.comp.eqn, 16);
	cmd.create_cq.ring.addr = cpu_to_le64(DRV_MR_ADDR);
	cmd.create_cq.ring.num_pages = cpu_to_le32(512);
	cmd.create_cq.ring.levels = 1;
	CHECK_EQ(drv_exec(&e.d, &cmd), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(le32_to_cpu(e.d.last_comp.handle.handle), 2);
	/* or in one 2 MiB page */
	cmd.create_cq.ring.addr = cpu_to_le64(0x200000);
	cmd.create_cq.ring.num_pages = cpu_to_le32(1);
	cmd.create_cq.ring.page_shift = 21;
	cmd.create_cq.ring.levels = 0;
	CHECK_EQ(drv_exec(&e.d, &cmd), ORDMA_CMD_STATUS_OK);
	CHECK(drv_cq_open(&e.d, &cq, 1, e.uctx, e.comp.eqn, 6));
	CHECK_EQ(cq.cqn, 4);

	/* device limit, on an EQ with room for the events of them all */
	REQUIRE(drv_eq_open(&e.d, &big, ORDMA_EQ_TYPE_COMP, 2, 11));
	create_cq_init(&cmd, 0, big.eqn, 1);
	for (i = 5; i <= FW_MAX_CQ; i++)
		if (!CHECK_EQ(drv_exec(&e.d, &cmd), ORDMA_CMD_STATUS_OK))
			break;
	CHECK_EQ(le32_to_cpu(e.d.last_comp.handle.handle), FW_MAX_CQ);
	CHECK_EQ(drv_exec(&e.d, &cmd), ORDMA_CMD_STATUS_NO_RESOURCES);
	CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DESTROY_CQ, 500, 0),
		 ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_exec(&e.d, &cmd), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(le32_to_cpu(e.d.last_comp.handle.handle), 500);
	drv_close(&e.d);
}

struct cq_case {
	const char *what;
	uint8_t status;
	uint32_t syndrome;
	void (*mutate)(struct ordma_aq_cmd *cmd, const struct cq_env *e);
};

static void m_log0(struct ordma_aq_cmd *c, const struct cq_env *e)
{
	(void)e;
	c->create_cq.log_size = 0;
}
static void m_log17(struct ordma_aq_cmd *c, const struct cq_env *e)
{
	(void)e;
	c->create_cq.log_size = 17;
}
static void m_shift(struct ordma_aq_cmd *c, const struct cq_env *e)
{
	(void)e;
	c->create_cq.ring.page_shift = 31;
}
static void m_levels(struct ordma_aq_cmd *c, const struct cq_env *e)
{
	(void)e;
	c->create_cq.ring.levels = 3;
}
static void m_no_pages(struct ordma_aq_cmd *c, const struct cq_env *e)
{
	(void)e;
	c->create_cq.ring.num_pages = 0;
}
static void m_ring_zero(struct ordma_aq_cmd *c, const struct cq_env *e)
{
	(void)e;
	c->create_cq.ring.addr = 0;
}
static void m_ring_misaligned(struct ordma_aq_cmd *c, const struct cq_env *e)
{
	(void)e;
	c->create_cq.ring.addr = cpu_to_le64(DRV_CQ_ADDR(0) + 0x100);
}
/* 256 CQEs are 8 KiB, one 4 KiB page is not enough */
static void m_ring_short(struct ordma_aq_cmd *c, const struct cq_env *e)
{
	(void)e;
	c->create_cq.log_size = 8;
}
static void m_ring_reserved(struct ordma_aq_cmd *c, const struct cq_env *e)
{
	(void)e;
	c->create_cq.ring.reserved_14 = cpu_to_le16(1);
}
static void m_rsvd33(struct ordma_aq_cmd *c, const struct cq_env *e)
{
	(void)e;
	c->create_cq.reserved_33 = 1;
}
static void m_rsvd34(struct ordma_aq_cmd *c, const struct cq_env *e)
{
	(void)e;
	c->create_cq.reserved_34 = cpu_to_le16(0x8000);
}
static void m_rsvd36(struct ordma_aq_cmd *c, const struct cq_env *e)
{
	(void)e;
	c->create_cq.reserved_36 = cpu_to_le32(0x01000000);
}
static void m_trailing(struct ordma_aq_cmd *c, const struct cq_env *e)
{
	(void)e;
	c->raw[40] = 1;
}
static void m_dbrec_zero(struct ordma_aq_cmd *c, const struct cq_env *e)
{
	(void)e;
	c->create_cq.db_record = 0;
}
static void m_dbrec_misaligned(struct ordma_aq_cmd *c, const struct cq_env *e)
{
	(void)e;
	c->create_cq.db_record = cpu_to_le64(DRV_CQ_DBREC_ADDR(0) + 2);
}
static void m_uctx(struct ordma_aq_cmd *c, const struct cq_env *e)
{
	c->create_cq.uctx = cpu_to_le32(e->uctx + 1);
}
static void m_uctx_huge(struct ordma_aq_cmd *c, const struct cq_env *e)
{
	(void)e;
	c->create_cq.uctx = cpu_to_le32(0xffffffff);
}
static void m_eq_missing(struct ordma_aq_cmd *c, const struct cq_env *e)
{
	(void)e;
	c->create_cq.eqn = cpu_to_le32(31);
}
static void m_eq_beyond(struct ordma_aq_cmd *c, const struct cq_env *e)
{
	(void)e;
	c->create_cq.eqn = cpu_to_le32(32);
}
static void m_eq_async(struct ordma_aq_cmd *c, const struct cq_env *e)
{
	c->create_cq.eqn = cpu_to_le32(e->async.eqn);
}

TEST(test_create_cq_validation)
{
	static const struct cq_case cases[] = {
		{ "log_size 0", ORDMA_CMD_STATUS_BAD_PARAM, OFF_LOG_SIZE, m_log0 },
		{ "log_size 17", ORDMA_CMD_STATUS_BAD_PARAM, OFF_LOG_SIZE,
		  m_log17 },
		{ "page_shift 31", ORDMA_CMD_STATUS_BAD_PARAM, OFF_PAGE_SHIFT,
		  m_shift },
		{ "levels 3", ORDMA_CMD_STATUS_BAD_PARAM, OFF_LEVELS, m_levels },
		{ "no pages", ORDMA_CMD_STATUS_BAD_PARAM, OFF_NUM_PAGES,
		  m_no_pages },
		{ "ring 0", ORDMA_CMD_STATUS_BAD_PARAM, OFF_RING, m_ring_zero },
		{ "ring misaligned", ORDMA_CMD_STATUS_BAD_PARAM, OFF_RING,
		  m_ring_misaligned },
		{ "ring too short", ORDMA_CMD_STATUS_BAD_PARAM, OFF_NUM_PAGES,
		  m_ring_short },
		{ "ring reserved", ORDMA_CMD_STATUS_BAD_PARAM, OFF_RING_RSVD,
		  m_ring_reserved },
		{ "reserved_33", ORDMA_CMD_STATUS_BAD_PARAM, 41, m_rsvd33 },
		{ "reserved_34", ORDMA_CMD_STATUS_BAD_PARAM, 42, m_rsvd34 },
		{ "reserved_36", ORDMA_CMD_STATUS_BAD_PARAM, 44, m_rsvd36 },
		{ "trailing", ORDMA_CMD_STATUS_BAD_PARAM, 48, m_trailing },
		{ "db_record 0", ORDMA_CMD_STATUS_BAD_PARAM, OFF_DB_RECORD,
		  m_dbrec_zero },
		{ "db_record misaligned", ORDMA_CMD_STATUS_BAD_PARAM,
		  OFF_DB_RECORD, m_dbrec_misaligned },
		{ "uctx not allocated", ORDMA_CMD_STATUS_BAD_HANDLE, 0, m_uctx },
		{ "uctx beyond the pages", ORDMA_CMD_STATUS_BAD_HANDLE, 0,
		  m_uctx_huge },
		{ "no such EQ", ORDMA_CMD_STATUS_BAD_HANDLE, 0, m_eq_missing },
		{ "EQ number beyond", ORDMA_CMD_STATUS_BAD_HANDLE, 0,
		  m_eq_beyond },
		{ "async EQ", ORDMA_CMD_STATUS_BAD_PARAM, OFF_EQN, m_eq_async },
	};
	struct ordma_aq_cmd cmd;
	struct cq_env e;
	size_t i;

	REQUIRE(env_open(&e));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		create_cq_init(&cmd, e.uctx, e.comp.eqn, 6);
		cases[i].mutate(&cmd, &e);
		if (!CHECK_EQ(drv_exec(&e.d, &cmd), cases[i].status) ||
		    !CHECK_EQ(drv_syndrome(&e.d), cases[i].syndrome))
			NOTE("case: %s", cases[i].what);
	}
	/* nothing was created: the first CQ is still number 1 */
	create_cq_init(&cmd, e.uctx, e.comp.eqn, 6);
	CHECK_EQ(drv_exec(&e.d, &cmd), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(le32_to_cpu(e.d.last_comp.handle.handle), 1);
	drv_close(&e.d);
}

TEST(test_destroy_cq_and_references)
{
	struct drv_cq kcq, ucq;
	struct cq_env e;

	REQUIRE(env_open(&e));
	REQUIRE(drv_cq_open(&e.d, &kcq, 0, 0, e.comp.eqn, 4));
	REQUIRE(drv_cq_open(&e.d, &ucq, 1, e.uctx, e.comp.eqn, 4));

	CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DESTROY_CQ, 0, 0),
		 ORDMA_CMD_STATUS_BAD_HANDLE);
	CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DESTROY_CQ, 3, 0),
		 ORDMA_CMD_STATUS_BAD_HANDLE);
	CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DESTROY_CQ, FW_MAX_CQ + 1, 0),
		 ORDMA_CMD_STATUS_BAD_HANDLE);
	CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DESTROY_CQ, ucq.cqn, 0),
		 ORDMA_CMD_STATUS_PERM);
	CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DESTROY_CQ, kcq.cqn, e.uctx),
		 ORDMA_CMD_STATUS_PERM);

	/* ownership as the QP engine sees it */
	CHECK_EQ(fw_cq_check(e.d.fw, ucq.cqn, e.uctx), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(fw_cq_check(e.d.fw, ucq.cqn, 0), ORDMA_CMD_STATUS_PERM);
	CHECK_EQ(fw_cq_check(e.d.fw, kcq.cqn, 0), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(fw_cq_check(e.d.fw, 0, 0), ORDMA_CMD_STATUS_BAD_HANDLE);
	CHECK_EQ(fw_cq_check(e.d.fw, 77, 0), ORDMA_CMD_STATUS_BAD_HANDLE);

	/* two references: BUSY until both are dropped */
	fw_cq_get(e.d.fw, ucq.cqn);
	fw_cq_get(e.d.fw, ucq.cqn);
	CHECK_EQ(drv_destroy_cq(&e.d, &ucq), ORDMA_CMD_STATUS_BUSY);
	fw_cq_put(e.d.fw, ucq.cqn);
	CHECK_EQ(drv_destroy_cq(&e.d, &ucq), ORDMA_CMD_STATUS_BUSY);
	fw_cq_put(e.d.fw, ucq.cqn);
	fw_cq_put(e.d.fw, ucq.cqn);	/* no underflow */
	fw_cq_get(e.d.fw, 999);		/* no such CQ: ignored */
	fw_cq_put(e.d.fw, 0);

	/* the CQ holds its EQ and its context */
	CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DESTROY_EQ, e.comp.eqn, 0),
		 ORDMA_CMD_STATUS_BUSY);
	CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DEALLOC_UCTX, e.uctx, 0),
		 ORDMA_CMD_STATUS_BUSY);
	CHECK_EQ(drv_destroy_cq(&e.d, &ucq), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_destroy_cq(&e.d, &ucq), ORDMA_CMD_STATUS_BAD_HANDLE);
	CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DEALLOC_UCTX, e.uctx, 0),
		 ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DESTROY_EQ, e.comp.eqn, 0),
		 ORDMA_CMD_STATUS_BUSY);
	CHECK_EQ(drv_destroy_cq(&e.d, &kcq), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DESTROY_EQ, e.comp.eqn, 0),
		 ORDMA_CMD_STATUS_OK);
	/* a destroyed CQ takes no completions */
	CHECK_EQ(post(&e.d, kcq.cqn, 0, ORDMA_CQE_SUCCESS, false), -1);
	drv_close(&e.d);
}

/* ------------------------------------------------------------------ */
/* Writing CQEs                                                        */
/* ------------------------------------------------------------------ */

TEST(test_cq_phase_across_wraps)
{
	struct ordma_cqe cqe, want;
	const struct fake_dma_write *w;
	struct drv_cq cq;
	struct cq_env e;
	uint32_t i;

	REQUIRE(env_open(&e));
	REQUIRE(drv_cq_open(&e.d, &cq, 0, 0, e.comp.eqn, 2));
	for (i = 0; i < 13; i++) {
		uint64_t slot = cq.addr + (i & 3) * ORDMA_CQE_SIZE;

		REQUIRE_EQ(post(&e.d, cq.cqn, i, ORDMA_CQE_SUCCESS, false), 0);
		/* body first, then the owner dword on its own */
		w = fake_recent_write(&e.d.hal, 0);
		REQUIRE(w != NULL);
		CHECK_EQ(w->addr, slot + 28);
		CHECK_EQ(w->len, 4);
		w = fake_recent_write(&e.d.hal, 1);
		REQUIRE(w != NULL);
		CHECK_EQ(w->addr, slot);
		CHECK_EQ(w->len, 28);
		REQUIRE(drv_cq_next(&e.d, &cq, &cqe));
		want = make_cqe(42, i, ORDMA_CQE_SUCCESS);
		want.owner = cpu_to_le32(((i >> 2) & 1) ? 0 : ORDMA_CQE_PHASE);
		CHECK(!memcmp(&cqe, &want, sizeof(cqe)));
		CHECK(!drv_cq_next(&e.d, &cq, &cqe));
	}
	/* no CQE without arming: no event */
	no_event(&e.d, &e.comp);
	drv_close(&e.d);
}

TEST(test_cq_overrun_and_doorbell_record)
{
	struct ordma_comp_health h;
	struct ordma_cqe cqe;
	struct drv_cq cq, cq2;
	struct cq_env e;
	uint32_t rec, i;

	REQUIRE(env_open(&e));
	REQUIRE(drv_cq_open(&e.d, &cq, 0, 0, e.comp.eqn, 2));
	for (i = 0; i < 4; i++)
		CHECK_EQ(post(&e.d, cq.cqn, i, ORDMA_CQE_SUCCESS, false), 0);
	/* the consumer took two and said so only in its doorbell record */
	CHECK(drv_cq_next(&e.d, &cq, &cqe));
	CHECK(drv_cq_next(&e.d, &cq, &cqe));
	CHECK_EQ(post(&e.d, cq.cqn, 4, ORDMA_CQE_SUCCESS, false), 0);
	CHECK_EQ(post(&e.d, cq.cqn, 5, ORDMA_CQE_SUCCESS, false), 0);
	no_event(&e.d, &e.async);
	/* consumer did not advance: overrun, CQ error, CQE dropped */
	CHECK_EQ(post(&e.d, cq.cqn, 6, ORDMA_CQE_SUCCESS, false), -1);
	next_event(&e.d, &e.async, ORDMA_EQE_CQ_ERR, cq.cqn);
	/* the entries the consumer still has are intact */
	for (i = 2; i < 6; i++) {
		CHECK(drv_cq_next(&e.d, &cq, &cqe));
		CHECK_EQ(le32_to_cpu(cqe.wqe_idx), i);
	}
	CHECK(!drv_cq_next(&e.d, &cq, &cqe));
	/* an errored CQ takes nothing more, and reports the error once */
	CHECK_EQ(post(&e.d, cq.cqn, 7, ORDMA_CQE_SUCCESS, false), -1);
	no_event(&e.d, &e.async);
	CHECK_EQ(drv_destroy_cq(&e.d, &cq), ORDMA_CMD_STATUS_OK);

	/* a doorbell record ahead of the producer is not believed */
	REQUIRE(drv_cq_open(&e.d, &cq, 0, 0, e.comp.eqn, 2));
	for (i = 0; i < 4; i++)
		CHECK_EQ(post(&e.d, cq.cqn, i, ORDMA_CQE_SUCCESS, false), 0);
	rec = cpu_to_le32(100);
	memcpy(drv_mem(&e.d, cq.dbrec, 4), &rec, 4);
	CHECK_EQ(post(&e.d, cq.cqn, 4, ORDMA_CQE_SUCCESS, false), -1);
	next_event(&e.d, &e.async, ORDMA_EQE_CQ_ERR, cq.cqn);
	CHECK_EQ(drv_destroy_cq(&e.d, &cq), ORDMA_CMD_STATUS_OK);

	/* the consumer index from a doorbell counts as well */
	REQUIRE(drv_cq_open(&e.d, &cq, 0, 0, e.comp.eqn, 2));
	for (i = 0; i < 4; i++)
		CHECK_EQ(post(&e.d, cq.cqn, i, ORDMA_CQE_SUCCESS, false), 0);
	drv_db(&e.d, 0, ORDMA_DB_CQ, cq.cqn, 3, 0);
	rec = 0;
	memcpy(drv_mem(&e.d, cq.dbrec, 4), &rec, 4);	/* stale record */
	for (i = 4; i < 7; i++)
		CHECK_EQ(post(&e.d, cq.cqn, i, ORDMA_CQE_SUCCESS, false), 0);
	CHECK_EQ(post(&e.d, cq.cqn, 7, ORDMA_CQE_SUCCESS, false), -1);
	next_event(&e.d, &e.async, ORDMA_EQE_CQ_ERR, cq.cqn);
	CHECK_EQ(drv_destroy_cq(&e.d, &cq), ORDMA_CMD_STATUS_OK);

	/* an unreadable doorbell record: the ring stays full */
	REQUIRE(drv_cq_open(&e.d, &cq, 0, 0, e.comp.eqn, 1));
	CHECK_EQ(post(&e.d, cq.cqn, 0, ORDMA_CQE_SUCCESS, false), 0);
	CHECK_EQ(post(&e.d, cq.cqn, 1, ORDMA_CQE_SUCCESS, false), 0);
	CHECK(drv_cq_next(&e.d, &cq, &cqe));
	e.d.hal.fail_lo = cq.dbrec;
	e.d.hal.fail_hi = cq.dbrec + 4;
	CHECK_EQ(post(&e.d, cq.cqn, 2, ORDMA_CQE_SUCCESS, false), -1);
	e.d.hal.fail_lo = e.d.hal.fail_hi = 0;
	next_event(&e.d, &e.async, ORDMA_EQE_CQ_ERR, cq.cqn);
	CHECK_EQ(drv_destroy_cq(&e.d, &cq), ORDMA_CMD_STATUS_OK);

	/* a ring the device cannot write is a CQ error too */
	REQUIRE(drv_cq_open(&e.d, &cq, 0, 0, e.comp.eqn, 4));
	REQUIRE(drv_cq_open(&e.d, &cq2, 1, 0, e.comp.eqn, 4));
	e.d.hal.fail_lo = cq.addr;
	e.d.hal.fail_hi = cq.addr + 1;
	CHECK_EQ(post(&e.d, cq.cqn, 0, ORDMA_CQE_SUCCESS, false), -1);
	e.d.hal.fail_lo = e.d.hal.fail_hi = 0;
	next_event(&e.d, &e.async, ORDMA_EQE_CQ_ERR, cq.cqn);
	CHECK(!drv_cq_next(&e.d, &cq, &cqe));
	CHECK_EQ(post(&e.d, cq.cqn, 1, ORDMA_CQE_SUCCESS, false), -1);
	/* other CQs are not affected */
	CHECK_EQ(post(&e.d, cq2.cqn, 0, ORDMA_CQE_SUCCESS, false), 0);
	CHECK(drv_cq_next(&e.d, &cq2, &cqe));
	/* a CQ error is not a device health problem */
	REQUIRE_EQ(drv_health(&e.d, &h), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(le32_to_cpu(h.eq_overruns), 0);
	CHECK_EQ(le32_to_cpu(h.db_errors), 0);
	CHECK_EQ(drv_rd(&e.d, ORDMA_REG_STATUS), ORDMA_STATUS_READY);
	drv_close(&e.d);
}

TEST(test_query_cq)
{
	struct ordma_cq_attr q;
	struct ordma_aq_cmd cmd;
	struct drv_cq cq;
	struct cq_env e;
	uint32_t i;

	REQUIRE(env_open(&e));
	REQUIRE(drv_cq_open(&e.d, &cq, 0, 0, e.comp.eqn, 3));
	for (i = 0; i < 5; i++)
		CHECK_EQ(post(&e.d, cq.cqn, i, ORDMA_CQE_SUCCESS, false), 0);
	/* all consumed, armed: nothing to announce yet */
	drv_db(&e.d, 0, ORDMA_DB_CQ, cq.cqn, 5, ORDMA_DB_ARM);
	drv_cmd_init(&cmd, ORDMA_CMD_QUERY_CQ);
	cmd.buf.buf_addr = cpu_to_le64(DRV_BUF_ADDR);
	cmd.buf.buf_len = cpu_to_le32(sizeof(q));
	cmd.buf.handle = cpu_to_le32(cq.cqn);
	REQUIRE_EQ(drv_exec(&e.d, &cmd), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(le32_to_cpu(e.d.last_comp.buf.written), sizeof(q));
	memcpy(&q, drv_mem(&e.d, DRV_BUF_ADDR, sizeof(q)), sizeof(q));
	CHECK_EQ(le32_to_cpu(q.uctx), 0);
	CHECK_EQ(le32_to_cpu(q.eqn), e.comp.eqn);
	CHECK_EQ(le32_to_cpu(q.pi), 5);
	CHECK_EQ(le32_to_cpu(q.ci), 5);
	CHECK_EQ(le32_to_cpu(q.refs), 0);
	CHECK_EQ(q.log_size, 3);
	CHECK_EQ(q.flags, ORDMA_CQ_ATTR_ARMED);
	CHECK_EQ(q.reserved_22, 0);
	CHECK_EQ(le64_to_cpu(q.db_record), cq.dbrec);

	/* command checks */
	cmd.buf.buf_addr = cpu_to_le64(DRV_BUF_ADDR + 4);
	CHECK_EQ(drv_exec(&e.d, &cmd), ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&e.d), 8);
	cmd.buf.buf_addr = cpu_to_le64(DRV_BUF_ADDR);
	cmd.buf.buf_len = cpu_to_le32(sizeof(q) - 8);
	CHECK_EQ(drv_exec(&e.d, &cmd), ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&e.d), 16);
	cmd.buf.buf_len = cpu_to_le32(sizeof(q));
	cmd.buf.buf_addr = cpu_to_le64(DRV_BAD_ADDR);
	CHECK_EQ(drv_exec(&e.d, &cmd), ORDMA_CMD_STATUS_DMA_ERROR);
	cmd.buf.buf_addr = cpu_to_le64(DRV_BUF_ADDR);
	cmd.buf.handle = cpu_to_le32(0);
	CHECK_EQ(drv_exec(&e.d, &cmd), ORDMA_CMD_STATUS_BAD_HANDLE);
	CHECK_EQ(drv_destroy_cq(&e.d, &cq), ORDMA_CMD_STATUS_OK);
	cmd.buf.handle = cpu_to_le32(cq.cqn);
	CHECK_EQ(drv_exec(&e.d, &cmd), ORDMA_CMD_STATUS_BAD_HANDLE);
	drv_close(&e.d);
}

TEST(test_cq_ring_through_table)
{
	struct ordma_aq_cmd cmd;
	struct ordma_cqe cqe;
	struct cq_env e;
	uint64_t page0 = DRV_MR_ADDR + 0x10000, page1 = DRV_MR_ADDR + 0x4000;
	uint64_t le;
	uint32_t cqn, i;

	REQUIRE(env_open(&e));
	memset(drv_mem(&e.d, DRV_MR_ADDR, 0x20000), 0, 0x20000);
	le = cpu_to_le64(page0);
	memcpy(drv_mem(&e.d, DRV_MR_ADDR, 8), &le, 8);
	le = cpu_to_le64(page1);
	memcpy(drv_mem(&e.d, DRV_MR_ADDR + 8, 8), &le, 8);
	/* 256 CQEs in two 4 KiB pages, the second one below the first */
	create_cq_init(&cmd, 0, e.comp.eqn, 8);
	cmd.create_cq.ring.addr = cpu_to_le64(DRV_MR_ADDR);
	cmd.create_cq.ring.num_pages = cpu_to_le32(2);
	cmd.create_cq.ring.levels = 1;
	REQUIRE_EQ(drv_exec(&e.d, &cmd), ORDMA_CMD_STATUS_OK);
	cqn = le32_to_cpu(e.d.last_comp.handle.handle);
	for (i = 0; i < 256 + 130; i++) {
		uint32_t slot = i % 256;
		uint64_t at = (slot < 128 ? page0 : page1) + (slot % 128) * 32;
		uint32_t rec = cpu_to_le32(i);

		memcpy(drv_mem(&e.d, DRV_CQ_DBREC_ADDR(0), 4), &rec, 4);
		REQUIRE_EQ(post(&e.d, cqn, i, ORDMA_CQE_SUCCESS, false), 0);
		memcpy(&cqe, drv_mem(&e.d, at, 32), 32);
		CHECK_EQ(le32_to_cpu(cqe.wqe_idx), i);
		CHECK_EQ(!!(le32_to_cpu(cqe.owner) & ORDMA_CQE_PHASE), i < 256);
	}
	/* the table page becomes unreadable: CQ error, not a crash */
	e.d.hal.fail_lo = DRV_MR_ADDR;
	e.d.hal.fail_hi = DRV_MR_ADDR + 16;
	CHECK_EQ(post(&e.d, cqn, 0, ORDMA_CQE_SUCCESS, false), -1);
	e.d.hal.fail_lo = e.d.hal.fail_hi = 0;
	next_event(&e.d, &e.async, ORDMA_EQE_CQ_ERR, cqn);
	drv_close(&e.d);
}

/* ------------------------------------------------------------------ */
/* Arming                                                              */
/* ------------------------------------------------------------------ */

TEST(test_cq_arm_next)
{
	struct ordma_cqe cqe;
	struct drv_cq cq;
	struct cq_env e;

	REQUIRE(env_open(&e));
	REQUIRE(drv_cq_open(&e.d, &cq, 0, e.uctx, e.comp.eqn, 4));
	/* a new CQ is disarmed */
	CHECK_EQ(post(&e.d, cq.cqn, 0, ORDMA_CQE_SUCCESS, false), 0);
	no_event(&e.d, &e.comp);
	CHECK(drv_cq_next(&e.d, &cq, &cqe));
	/* armed with nothing pending: the next CQE fires, once */
	drv_cq_arm(&e.d, &cq, false);
	no_event(&e.d, &e.comp);
	CHECK_EQ(post(&e.d, cq.cqn, 1, ORDMA_CQE_SUCCESS, false), 0);
	next_event(&e.d, &e.comp, ORDMA_EQE_COMP, cq.cqn);
	CHECK_EQ(post(&e.d, cq.cqn, 2, ORDMA_CQE_SUCCESS, false), 0);
	no_event(&e.d, &e.comp);
	/* arming with CQEs past ci fires at once and stays disarmed */
	drv_cq_arm(&e.d, &cq, false);
	next_event(&e.d, &e.comp, ORDMA_EQE_COMP, cq.cqn);
	CHECK_EQ(post(&e.d, cq.cqn, 3, ORDMA_CQE_SUCCESS, false), 0);
	no_event(&e.d, &e.comp);
	/* same for a solicited-only arm */
	drv_cq_arm(&e.d, &cq, true);
	next_event(&e.d, &e.comp, ORDMA_EQE_COMP, cq.cqn);
	/* a doorbell without ARM only reports ci */
	while (drv_cq_next(&e.d, &cq, &cqe))
		;
	drv_db(&e.d, e.uctx, ORDMA_DB_CQ, cq.cqn, cq.ci, 0);
	CHECK_EQ(post(&e.d, cq.cqn, 4, ORDMA_CQE_SUCCESS, false), 0);
	no_event(&e.d, &e.comp);
	/* the COMP event interrupts through the EQ's own arming */
	CHECK(drv_cq_next(&e.d, &cq, &cqe));
	drv_eq_update(&e.d, &e.comp, true);
	drv_cq_arm(&e.d, &cq, false);
	e.d.hal.msix[1] = 0;
	CHECK_EQ(post(&e.d, cq.cqn, 5, ORDMA_CQE_SUCCESS, false), 0);
	CHECK_EQ(e.d.hal.msix[1], 1);
	next_event(&e.d, &e.comp, ORDMA_EQE_COMP, cq.cqn);
	CHECK_EQ(drv_db_errors(&e.d), 0);
	drv_close(&e.d);
}

/*
 * Bus Master Enable cleared between a CQE and its COMP event: the event
 * waits instead of being dropped (a dropped one leaves the CQ disarmed
 * and its consumer asleep for ever), and so does the CQ_ERR of a CQE
 * that could not be written.  Setting Bus Master Enable again posts
 * both, once.
 */
TEST(test_cq_events_wait_for_bus_master)
{
	struct ordma_cqe cqe;
	struct drv_cq cq, cq2;
	struct cq_env e;

	REQUIRE(env_open(&e));
	REQUIRE(drv_cq_open(&e.d, &cq, 0, e.uctx, e.comp.eqn, 4));
	REQUIRE(drv_cq_open(&e.d, &cq2, 1, e.uctx, e.comp.eqn, 4));
	drv_cq_arm(&e.d, &cq, false);
	/* the CQE is written, its COMP event is not: the EQs fail */
	e.d.hal.fail_lo = DRV_EQ_ADDR(0);
	e.d.hal.fail_hi = DRV_EQ_ADDR(2);
	CHECK_EQ(post(&e.d, cq.cqn, 0, ORDMA_CQE_SUCCESS, false), 0);
	/* the second CQ's ring fails too: CQ error, its event lost */
	e.d.hal.fail_lo = DRV_EQ_ADDR(0);
	e.d.hal.fail_hi = ~0ULL;
	CHECK_EQ(post(&e.d, cq2.cqn, 0, ORDMA_CQE_SUCCESS, false), -1);
	e.d.hal.fail_lo = e.d.hal.fail_hi = 0;
	no_event(&e.d, &e.comp);
	no_event(&e.d, &e.async);
	CHECK(drv_cq_next(&e.d, &cq, &cqe));
	ordma_fw_bus_master_enabled(e.d.fw);
	next_event(&e.d, &e.comp, ORDMA_EQE_COMP, cq.cqn);
	next_event(&e.d, &e.async, ORDMA_EQE_CQ_ERR, cq2.cqn);
	/* posted once: nothing waits any more */
	ordma_fw_bus_master_enabled(e.d.fw);
	no_event(&e.d, &e.comp);
	no_event(&e.d, &e.async);
	/* the CQ works on: armed again, its next CQE posts an event */
	drv_cq_arm(&e.d, &cq, false);
	CHECK_EQ(post(&e.d, cq.cqn, 1, ORDMA_CQE_SUCCESS, false), 0);
	next_event(&e.d, &e.comp, ORDMA_EQE_COMP, cq.cqn);
	CHECK(drv_rd(&e.d, ORDMA_REG_STATUS) == ORDMA_STATUS_READY);
	drv_close(&e.d);
}

TEST(test_cq_arm_solicited)
{
	struct drv_cq cq;
	struct cq_env e;

	REQUIRE(env_open(&e));
	REQUIRE(drv_cq_open(&e.d, &cq, 0, 0, e.comp.eqn, 6));
	drv_cq_arm(&e.d, &cq, true);
	/* unsolicited successful completions do not fire */
	CHECK_EQ(post(&e.d, cq.cqn, 0, ORDMA_CQE_SUCCESS, false), 0);
	CHECK_EQ(post(&e.d, cq.cqn, 1, ORDMA_CQE_SUCCESS, false), 0);
	no_event(&e.d, &e.comp);
	/* a solicited one does */
	CHECK_EQ(post(&e.d, cq.cqn, 2, ORDMA_CQE_SUCCESS, true), 0);
	next_event(&e.d, &e.comp, ORDMA_EQE_COMP, cq.cqn);
	CHECK_EQ(post(&e.d, cq.cqn, 3, ORDMA_CQE_SUCCESS, true), 0);
	no_event(&e.d, &e.comp);
	/* an error completion always does */
	cq.ci = 4;
	drv_cq_arm(&e.d, &cq, true);
	no_event(&e.d, &e.comp);
	CHECK_EQ(post(&e.d, cq.cqn, 4, ORDMA_CQE_WR_FLUSH_ERR, false), 0);
	next_event(&e.d, &e.comp, ORDMA_EQE_COMP, cq.cqn);
	/* a "next" arm is not narrowed by a later solicited arm */
	cq.ci = 5;
	drv_cq_arm(&e.d, &cq, false);
	drv_cq_arm(&e.d, &cq, true);
	CHECK_EQ(post(&e.d, cq.cqn, 5, ORDMA_CQE_SUCCESS, false), 0);
	next_event(&e.d, &e.comp, ORDMA_EQE_COMP, cq.cqn);
	/* but a solicited arm is widened by a later "next" arm */
	cq.ci = 6;
	drv_cq_arm(&e.d, &cq, true);
	drv_cq_arm(&e.d, &cq, false);
	CHECK_EQ(post(&e.d, cq.cqn, 6, ORDMA_CQE_SUCCESS, false), 0);
	next_event(&e.d, &e.comp, ORDMA_EQE_COMP, cq.cqn);
	no_event(&e.d, &e.comp);
	drv_close(&e.d);
}

/*
 * An event-driven consumer takes the event, re-arms, then polls (perftest
 * -e, the libibverbs man page's order), so its arm carries a ci behind
 * the CQE that event announced.  That CQE must not be announced again:
 * the consumer would wake, find nothing, and fall out of step with its
 * queues.  A CQE written while the CQ was disarmed and still not consumed
 * was missed, though, and the arm reports it at once.
 */
TEST(test_cq_arm_announces_each_cqe_once)
{
	struct ordma_cqe cqe;
	struct drv_cq cq;
	struct cq_env e;
	unsigned int i;

	REQUIRE(env_open(&e));
	REQUIRE(drv_cq_open(&e.d, &cq, 0, e.uctx, e.comp.eqn, 4));
	drv_cq_arm(&e.d, &cq, false);
	for (i = 0; i < 20; i++) {
		CHECK_EQ(post(&e.d, cq.cqn, i, ORDMA_CQE_SUCCESS, false), 0);
		if (!next_event(&e.d, &e.comp, ORDMA_EQE_COMP, cq.cqn))
			break;
		/* re-armed with the announced CQE still in the ring */
		drv_cq_arm(&e.d, &cq, false);
		if (!no_event(&e.d, &e.comp))
			break;
		CHECK(drv_cq_next(&e.d, &cq, &cqe));
		CHECK_EQ(le32_to_cpu(cqe.wqe_idx), i);
	}
	/* CQE 21 comes while the event for CQE 20 disarms the CQ */
	CHECK_EQ(post(&e.d, cq.cqn, 20, ORDMA_CQE_SUCCESS, false), 0);
	next_event(&e.d, &e.comp, ORDMA_EQE_COMP, cq.cqn);
	CHECK_EQ(post(&e.d, cq.cqn, 21, ORDMA_CQE_SUCCESS, false), 0);
	no_event(&e.d, &e.comp);
	/* CQE 20 consumed, CQE 21 not: missed, reported on the arm */
	CHECK(drv_cq_next(&e.d, &cq, &cqe));
	drv_cq_arm(&e.d, &cq, false);
	next_event(&e.d, &e.comp, ORDMA_EQE_COMP, cq.cqn);
	drv_cq_arm(&e.d, &cq, false);
	no_event(&e.d, &e.comp);
	while (drv_cq_next(&e.d, &cq, &cqe))
		;
	/* missed CQEs consumed before the arm: nothing to report */
	CHECK_EQ(post(&e.d, cq.cqn, 22, ORDMA_CQE_SUCCESS, false), 0);
	next_event(&e.d, &e.comp, ORDMA_EQE_COMP, cq.cqn);
	CHECK_EQ(post(&e.d, cq.cqn, 23, ORDMA_CQE_SUCCESS, false), 0);
	while (drv_cq_next(&e.d, &cq, &cqe))
		;
	CHECK_EQ(cq.ci, 24);
	drv_cq_arm(&e.d, &cq, false);
	no_event(&e.d, &e.comp);
	CHECK_EQ(post(&e.d, cq.cqn, 24, ORDMA_CQE_SUCCESS, false), 0);
	next_event(&e.d, &e.comp, ORDMA_EQE_COMP, cq.cqn);
	/* the same for a solicited-only consumer */
	drv_cq_arm(&e.d, &cq, true);
	no_event(&e.d, &e.comp);
	CHECK_EQ(post(&e.d, cq.cqn, 25, ORDMA_CQE_SUCCESS, true), 0);
	next_event(&e.d, &e.comp, ORDMA_EQE_COMP, cq.cqn);
	drv_cq_arm(&e.d, &cq, true);
	no_event(&e.d, &e.comp);
	CHECK_EQ(drv_db_errors(&e.d), 0);
	drv_close(&e.d);
}

/* Counts the COMP events for cq_a and cq_b on eq, reporting them
 * consumed as a driver does; no other event may be there.
 */
static void count_comp_events(struct drv *d, struct drv_eq *eq,
			      uint32_t cq_a, uint32_t cq_b, unsigned int *a,
			      unsigned int *b)
{
	struct ordma_eqe eqe;

	*a = *b = 0;
	while (drv_eq_next(d, eq, &eqe)) {
		uint32_t cqn = le32_to_cpu(eqe.data[0]);

		CHECK_EQ(eqe_type(&eqe), ORDMA_EQE_COMP);
		if (cqn == cq_a)
			++*a;
		else if (CHECK_EQ(cqn, cq_b))
			++*b;
	}
	drv_eq_update(d, eq, false);
}

/*
 * Two contexts share a 16-entry completion EQ.  A re-arms its CQ in a
 * tight loop with completions waiting, and the driver's interrupt has
 * not run yet; B's CQ, armed, then gets a completion: B's event is in
 * the EQ.  A has one event in the EQ at a time; its later arms coalesce
 * into one event posted when the driver reports the first consumed.
 */
TEST(test_cq_events_not_starved)
{
	struct ordma_comp_health h;
	struct drv_cq cq_a, cq_b;
	struct drv_eq eq;
	uint32_t uctx_b;
	unsigned int i, a, b;
	struct cq_env e;

	REQUIRE(env_open(&e));
	REQUIRE_EQ(drv_alloc_uctx(&e.d, &uctx_b), ORDMA_CMD_STATUS_OK);
	REQUIRE(drv_eq_open(&e.d, &eq, ORDMA_EQ_TYPE_COMP, 2, 4));
	REQUIRE(drv_cq_open(&e.d, &cq_a, 0, e.uctx, eq.eqn, 8));
	REQUIRE(drv_cq_open(&e.d, &cq_b, 1, uctx_b, eq.eqn, 4));
	drv_cq_arm(&e.d, &cq_b, false);
	for (i = 0; i < 200; i++) {
		CHECK_EQ(post(&e.d, cq_a.cqn, i, ORDMA_CQE_SUCCESS, false), 0);
		drv_cq_arm(&e.d, &cq_a, false);
	}
	CHECK_EQ(post(&e.d, cq_b.cqn, 0, ORDMA_CQE_SUCCESS, false), 0);
	count_comp_events(&e.d, &eq, cq_a.cqn, cq_b.cqn, &a, &b);
	CHECK_EQ(a, 1);
	CHECK_EQ(b, 1);
	/* the consumption reported, A's waiting event is posted, once */
	count_comp_events(&e.d, &eq, cq_a.cqn, cq_b.cqn, &a, &b);
	CHECK_EQ(a, 1);
	CHECK_EQ(b, 0);
	count_comp_events(&e.d, &eq, cq_a.cqn, cq_b.cqn, &a, &b);
	CHECK_EQ(a, 0);
	/* nothing was dropped on the way */
	REQUIRE_EQ(drv_health(&e.d, &h), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(le32_to_cpu(h.eq_overruns), 0);

	/* an event waiting when its CQ goes is not posted */
	drv_cq_arm(&e.d, &cq_b, false);
	CHECK_EQ(post(&e.d, cq_b.cqn, 1, ORDMA_CQE_SUCCESS, false), 0);
	drv_cq_arm(&e.d, &cq_b, false);
	CHECK_EQ(drv_destroy_cq(&e.d, &cq_b), ORDMA_CMD_STATUS_OK);
	count_comp_events(&e.d, &eq, cq_a.cqn, cq_b.cqn, &a, &b);
	CHECK_EQ(b, 1);
	count_comp_events(&e.d, &eq, cq_a.cqn, cq_b.cqn, &a, &b);
	CHECK_EQ(a + b, 0);
	/* the waiting count went with it: the EQ can be destroyed */
	CHECK_EQ(drv_destroy_cq(&e.d, &cq_a), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DESTROY_EQ, eq.eqn, 0),
		 ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_db_errors(&e.d), 0);
	drv_close(&e.d);
}

/* An EQ takes as many CQs and Ethernet rings as it has entries. */
TEST(test_cq_eq_capacity)
{
	struct drv_ring ring;
	struct ordma_aq_cmd cmd;
	struct drv_eq eq;
	struct cq_env e;
	uint32_t i, first = 0;

	REQUIRE(env_open(&e));
	REQUIRE(drv_eq_open(&e.d, &eq, ORDMA_EQ_TYPE_COMP, 2, 4));
	REQUIRE(drv_ring_open(&e.d, &ring, ORDMA_ETH_RING_RX, 4, eq.eqn));
	create_cq_init(&cmd, e.uctx, eq.eqn, 1);
	for (i = 0; i < 15; i++) {
		if (!CHECK_EQ(drv_exec(&e.d, &cmd), ORDMA_CMD_STATUS_OK))
			break;
		if (!first)
			first = le32_to_cpu(e.d.last_comp.handle.handle);
	}
	CHECK_EQ(drv_exec(&e.d, &cmd), ORDMA_CMD_STATUS_NO_RESOURCES);
	/* other EQs are not affected */
	create_cq_init(&cmd, e.uctx, e.comp.eqn, 1);
	CHECK_EQ(drv_exec(&e.d, &cmd), ORDMA_CMD_STATUS_OK);
	/* a CQ gone makes room */
	CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DESTROY_CQ, first, e.uctx),
		 ORDMA_CMD_STATUS_OK);
	create_cq_init(&cmd, e.uctx, eq.eqn, 1);
	CHECK_EQ(drv_exec(&e.d, &cmd), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_exec(&e.d, &cmd), ORDMA_CMD_STATUS_NO_RESOURCES);
	drv_close(&e.d);
}

struct bad_cq_db {
	const char *what;
	bool other_page;	/* ring on a page that does not own the CQ */
	uint32_t qn_delta;
	uint32_t ci;
	uint64_t flags;
};

TEST(test_cq_doorbell_checks)
{
	struct drv_cq kcq, ucq;
	struct ordma_eqe eqe;
	struct cq_env e;
	uint32_t other, i;
	struct ordma_cqe cqe;

	REQUIRE(env_open(&e));
	REQUIRE_EQ(drv_alloc_uctx(&e.d, &other), ORDMA_CMD_STATUS_OK);
	REQUIRE(drv_cq_open(&e.d, &kcq, 0, 0, e.comp.eqn, 2));
	REQUIRE(drv_cq_open(&e.d, &ucq, 1, e.uctx, e.comp.eqn, 2));
	for (i = 0; i < 2; i++)
		CHECK_EQ(post(&e.d, ucq.cqn, i, ORDMA_CQE_SUCCESS, false), 0);

	/* valid: each on its owner's page, ci anywhere in [pi - size, pi] */
	drv_db(&e.d, 0, ORDMA_DB_CQ, kcq.cqn, 0, ORDMA_DB_ARM);
	drv_db(&e.d, e.uctx, ORDMA_DB_CQ, ucq.cqn, 2, 0);
	drv_db(&e.d, e.uctx, ORDMA_DB_CQ, ucq.cqn, (uint32_t)-2, 0);
	drv_db(&e.d, e.uctx, ORDMA_DB_CQ, ucq.cqn, 0, ORDMA_DB_SOLICITED);
	CHECK_EQ(drv_db_errors(&e.d), 0);

	/* rejected, in the order of the rules */
	e.d.hal.now_ns += 20 * MS;
	drv_db(&e.d, 0, ORDMA_DB_CQ, ucq.cqn, 2, ORDMA_DB_ARM);
	CHECK(strstr(e.d.hal.last_log, "owned by another context") != NULL);
	REQUIRE(drv_eq_next(&e.d, &e.async, &eqe));
	CHECK_EQ(eqe_type(&eqe), ORDMA_EQE_DB_ERROR);
	CHECK_EQ(le32_to_cpu(eqe.data[0]), 0);
	CHECK_EQ(le32_to_cpu(eqe.data[1]), ORDMA_DB_CQ);
	CHECK_EQ(le32_to_cpu(eqe.data[2]), ucq.cqn);
	drv_db(&e.d, other, ORDMA_DB_CQ, ucq.cqn, 2, 0);
	CHECK(strstr(e.d.hal.last_log, "owned by another context") != NULL);
	drv_db(&e.d, e.uctx, ORDMA_DB_CQ, kcq.cqn, 0, 0);
	CHECK(strstr(e.d.hal.last_log, "owned by another context") != NULL);
	drv_db(&e.d, e.uctx, ORDMA_DB_CQ, 99, 0, 0);
	CHECK(strstr(e.d.hal.last_log, "no such CQ") != NULL);
	drv_db(&e.d, e.uctx, ORDMA_DB_CQ, 0, 0, 0);
	CHECK(strstr(e.d.hal.last_log, "no such CQ") != NULL);
	drv_db(&e.d, e.uctx, ORDMA_DB_CQ, ucq.cqn, 3, 0);
	CHECK(strstr(e.d.hal.last_log, "outside the ring") != NULL);
	drv_db(&e.d, e.uctx, ORDMA_DB_CQ, ucq.cqn, (uint32_t)-3, 0);
	CHECK(strstr(e.d.hal.last_log, "outside the ring") != NULL);
	drv_db(&e.d, e.uctx, ORDMA_DB_CQ, ucq.cqn, 2, BIT_ULL(24));
	CHECK(strstr(e.d.hal.last_log, "reserved bits") != NULL);
	drv_db(&e.d, e.uctx, ORDMA_DB_CQ + 4, ucq.cqn, 2, 0);
	CHECK(strstr(e.d.hal.last_log, "unknown doorbell offset") != NULL);
	ordma_fw_db_write(e.d.fw, (uint64_t)e.uctx << 12 | ORDMA_DB_CQ,
			  FIELD_PREP(ORDMA_DB_QN, (uint64_t)ucq.cqn), 4);
	CHECK(strstr(e.d.hal.last_log, "64-bit") != NULL);
	CHECK_EQ(drv_db_errors(&e.d), 10);

	/* none of them changed the CQ: still ci = 0 and disarmed... */
	while (drv_cq_next(&e.d, &ucq, &cqe))
		;
	CHECK_EQ(post(&e.d, ucq.cqn, 2, ORDMA_CQE_SUCCESS, false), 0);
	CHECK_EQ(post(&e.d, ucq.cqn, 3, ORDMA_CQE_SUCCESS, false), 0);
	no_event(&e.d, &e.comp);
	/* ...while the kernel CQ armed by the valid doorbell fires */
	CHECK_EQ(post(&e.d, kcq.cqn, 0, ORDMA_CQE_SUCCESS, false), 0);
	next_event(&e.d, &e.comp, ORDMA_EQE_COMP, kcq.cqn);
	drv_close(&e.d);
}

/* ------------------------------------------------------------------ */
/* Reset                                                               */
/* ------------------------------------------------------------------ */

TEST(test_reset_frees_verbs_objects)
{
	static const uint8_t gid[16] = { 0xfe, 0x80, [15] = 1 };
	static const uint8_t mac[6] = { 0x02, 0, 0, 0, 0, 1 };
	struct ordma_aq_cmd cmd;
	uint32_t pdn, key, frkey, ah;
	struct drv_cq cq;
	struct cq_env e;
	uint8_t round;

	REQUIRE(env_open(&e));
	for (round = 0; round < 2; round++) {
		REQUIRE_EQ(drv_alloc_pd(&e.d, 0, &pdn), ORDMA_CMD_STATUS_OK);
		CHECK_EQ(pdn, 1);
		REQUIRE(drv_cq_open(&e.d, &cq, 0, 0, e.comp.eqn, 4));
		CHECK_EQ(cq.cqn, 1);
		REQUIRE_EQ(drv_reg_mr_contig(&e.d, pdn, 0, 0, DRV_MR_ADDR, 4096,
					     0, round, &key),
			   ORDMA_CMD_STATUS_OK);
		CHECK_EQ(key, 1u << 8 | round);
		drv_cmd_init(&cmd, ORDMA_CMD_REG_MR);
		cmd.reg_mr.pdn = cpu_to_le32(pdn);
		cmd.reg_mr.flags = ORDMA_MR_FAST_REG;
		cmd.reg_mr.max_pages = cpu_to_le16(512);
		REQUIRE_EQ(drv_exec(&e.d, &cmd), ORDMA_CMD_STATUS_OK);
		frkey = le32_to_cpu(e.d.last_comp.handle.handle);
		CHECK_EQ(frkey, 2u << 8);
		REQUIRE_EQ(drv_add_gid(&e.d, 0, gid, mac, ORDMA_VLAN_NONE),
			   ORDMA_CMD_STATUS_OK);
		drv_cmd_init(&cmd, ORDMA_CMD_CREATE_AH);
		cmd.create_ah.pdn = cpu_to_le32(pdn);
		memcpy(cmd.create_ah.av.dgid, gid, 16);
		memcpy(cmd.create_ah.av.dmac, mac, 6);
		cmd.create_ah.av.vlan_id = cpu_to_le16(ORDMA_VLAN_NONE);
		REQUIRE_EQ(drv_exec(&e.d, &cmd), ORDMA_CMD_STATUS_OK);
		ah = le32_to_cpu(e.d.last_comp.handle.handle);
		CHECK_EQ(ah, 1);
		fw_cq_get(e.d.fw, cq.cqn);
		CHECK(fw_ah_get(e.d.fw, ah, pdn) != NULL);
		CHECK_EQ(post(&e.d, cq.cqn, 0, ORDMA_CQE_SUCCESS, false), 0);

		drv_wr(&e.d, ORDMA_REG_CTRL, ORDMA_CTRL_RESET);
		REQUIRE(drv_enable(&e.d, 5));
		/* everything is gone, nothing is referenced */
		CHECK(fw_ah_get(e.d.fw, ah, pdn) == NULL);
		CHECK_EQ(fw_cq_check(e.d.fw, cq.cqn, 0),
			 ORDMA_CMD_STATUS_BAD_HANDLE);
		CHECK_EQ(post(&e.d, cq.cqn, 1, ORDMA_CQE_SUCCESS, false), -1);
		{
			struct fw_mr *mr;

			CHECK_EQ(fw_mr_lookup(e.d.fw, key, pdn, 0, 1, 0, &mr),
				 FW_MR_ERR_KEY);
		}
		CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DEREG_MR, key, 0),
			 ORDMA_CMD_STATUS_BAD_HANDLE);
		CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DEREG_MR, frkey, 0),
			 ORDMA_CMD_STATUS_BAD_HANDLE);
		CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DESTROY_CQ, cq.cqn, 0),
			 ORDMA_CMD_STATUS_BAD_HANDLE);
		CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DESTROY_AH, ah, 0),
			 ORDMA_CMD_STATUS_BAD_HANDLE);
		/* the driver starts over: EQs again, then the same numbers */
		REQUIRE(drv_eq_open(&e.d, &e.async, ORDMA_EQ_TYPE_ASYNC, 0, 6));
		REQUIRE(drv_eq_open(&e.d, &e.comp, ORDMA_EQ_TYPE_COMP, 1, 6));
	}
	/* objects alive at destroy time are freed too (leak check) */
	REQUIRE_EQ(drv_alloc_pd(&e.d, 0, &pdn), ORDMA_CMD_STATUS_OK);
	drv_cmd_init(&cmd, ORDMA_CMD_REG_MR);
	cmd.reg_mr.pdn = cpu_to_le32(pdn);
	cmd.reg_mr.flags = ORDMA_MR_FAST_REG;
	cmd.reg_mr.max_pages = cpu_to_le16(7);
	CHECK_EQ(drv_exec(&e.d, &cmd), ORDMA_CMD_STATUS_OK);
	drv_close(&e.d);
}
