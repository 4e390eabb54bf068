// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Memory windows end to end: binds, traffic through type 1 and type
 * 2 windows over RC and UC, invalidation and refusals.
 */
#include <stdlib.h>
#include <string.h>

#include "ordma_test.h"
#include "pair.h"

/* ------------------------------------------------------------------ */
/* Memory windows                                                      */
/* ------------------------------------------------------------------ */

/* B's window MR: MW_BIND over GUARD_ADDR, B's QP binds its windows */
#define MW_MR_LEN	0x4000ULL

struct mw_env {
	struct env e;
	uint32_t mr;		/* B: LOCAL_WRITE | MW_BIND */
	uint32_t mr_nobind;	/* B: LOCAL_WRITE | REMOTE_WRITE */
	uint32_t mw1, mw2;	/* B: type 1, type 2 */
};

static uint32_t mw_next_key(uint32_t key)
{
	return (key & ~0xffu) | ((key + 1) & 0xff);
}

static uint8_t mw_alloc(struct side *s, uint8_t type, uint8_t key,
			uint32_t *rkey)
{
	struct ordma_aq_cmd cmd;
	uint8_t status;

	drv_cmd_init(&cmd, ORDMA_CMD_ALLOC_MW);
	cmd.alloc_mw.pdn = cpu_to_le32(s->pdn);
	cmd.alloc_mw.type = type;
	cmd.alloc_mw.key = key;
	status = drv_exec(&s->d, &cmd);
	*rkey = le32_to_cpu(s->d.last_comp.handle.handle);
	return status;
}

static bool mw_env_open_cfg(struct mw_env *m, const struct tcfg *c)
{
	struct side *b;

	if (!env_open(&m->e, c))
		return false;
	b = &m->e.s[1];
	return drv_reg_mr_contig(&b->d, b->pdn, 0, GUARD_ADDR, GUARD_ADDR,
				 MW_MR_LEN, ORDMA_ACCESS_LOCAL_WRITE |
				 ORDMA_ACCESS_MW_BIND, 0x51, &m->mr) == OK &&
	       drv_reg_mr_contig(&b->d, b->pdn, 0, GUARD_ADDR, GUARD_ADDR,
				 MW_MR_LEN, ORDMA_ACCESS_LOCAL_WRITE |
				 ORDMA_ACCESS_REMOTE_WRITE, 0x52,
				 &m->mr_nobind) == OK &&
	       mw_alloc(b, ORDMA_MW_TYPE_1, 0x61, &m->mw1) == OK &&
	       mw_alloc(b, ORDMA_MW_TYPE_2, 0x62, &m->mw2) == OK;
}

static bool mw_env_open(struct mw_env *m)
{
	struct tcfg c;

	default_cfg(&c);
	return mw_env_open_cfg(m, &c);
}

static void post_bind(struct side *s, uint32_t mw_rkey, uint32_t mr_lkey,
		      uint64_t addr, uint64_t len, uint32_t access)
{
	struct wr w;

	memset(&w, 0, sizeof(w));
	w.opcode = ORDMA_WQE_BIND_MW;
	w.flags = ORDMA_WQE_SIGNALED;
	w.bind.addr = cpu_to_le64(addr);
	w.bind.length = cpu_to_le64(len);
	w.bind.mw_rkey = cpu_to_le32(mw_rkey);
	w.bind.mr_lkey = cpu_to_le32(mr_lkey);
	w.bind.access = cpu_to_le32(access);
	post(s, &w);
}

static void post_rdma(struct side *s, uint8_t opcode, uint64_t laddr,
		      uint32_t len, uint64_t raddr, uint32_t rkey)
{
	struct wr w;

	wr_init(&w, opcode, laddr, len, s->key1);
	w.remote_addr = raddr;
	w.rkey = rkey;
	post(s, &w);
}

/* WRITE and READ through a type 1 and a zero-based type 2 window, the
 * type 2 window invalidated by SEND_WITH_INV, then a WRITE past a window
 */
TEST(test_tp_mw_traffic)
{
	uint32_t k1, k2;
	struct ordma_cqe cqe;
	struct mw_env m;
	struct side *a, *b;
	struct wr w;

	REQUIRE(mw_env_open(&m));
	a = &m.e.s[0];
	b = &m.e.s[1];
	k1 = mw_next_key(m.mw1);
	k2 = mw_next_key(m.mw2);
	post_bind(b, k1, m.mr, GUARD_ADDR + 0x100, 0x1000,
		  ORDMA_ACCESS_REMOTE_WRITE | ORDMA_ACCESS_REMOTE_READ);
	expect_cqe(b, true, ORDMA_CQE_OP_BIND_MW, ORDMA_CQE_SUCCESS, 0, 0);
	post_bind(b, k2, m.mr, GUARD_ADDR + 0x2000, 0x1000,
		  ORDMA_ACCESS_REMOTE_WRITE | ORDMA_ACCESS_ZERO_BASED);
	expect_cqe(b, true, ORDMA_CQE_OP_BIND_MW, ORDMA_CQE_SUCCESS, 0, 1);

	/* 0x800 bytes, two packets, into the type 1 window */
	pattern(mem(a, MR1_ADDR, 0x800), 0x800, 3);
	post_rdma(a, ORDMA_WQE_RDMA_WRITE, MR1_ADDR, 0x800,
		  GUARD_ADDR + 0x300, k1);
	pump(&m.e);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_SUCCESS, 0x800,
		   0);
	CHECK(!memcmp(mem(b, GUARD_ADDR + 0x300, 0x800),
		      mem(a, MR1_ADDR, 0x800), 0x800));
	/* and read back through it */
	post_rdma(a, ORDMA_WQE_RDMA_READ, MR1_ADDR + 0x10000, 0x1000,
		  GUARD_ADDR + 0x100, k1);
	pump(&m.e);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_READ, ORDMA_CQE_SUCCESS, 0x1000,
		   1);
	CHECK(!memcmp(mem(a, MR1_ADDR + 0x10000, 0x1000),
		      mem(b, GUARD_ADDR + 0x100, 0x1000), 0x1000));
	/* zero based: offset 0x10 of the window is GUARD_ADDR + 0x2010 */
	pattern(mem(a, MR1_ADDR, 0x100), 0x100, 9);
	post_rdma(a, ORDMA_WQE_RDMA_WRITE, MR1_ADDR, 0x100, 0x10, k2);
	pump(&m.e);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_SUCCESS, 0x100,
		   2);
	CHECK(!memcmp(mem(b, GUARD_ADDR + 0x2010, 0x100),
		      mem(a, MR1_ADDR, 0x100), 0x100));
	/* the MR under bound windows stays */
	CHECK_EQ(drv_handle_cmd(&b->d, ORDMA_CMD_DEREG_MR, m.mr, 0),
		 ORDMA_CMD_STATUS_BUSY);

	/* SEND_WITH_INV of the type 2 window, received on its QP */
	post_recv(b, MR1_ADDR, 64);
	wr_init(&w, ORDMA_WQE_SEND_INV, MR1_ADDR, 16, a->key1);
	w.imm_inv = k2;
	post(a, &w);
	pump(&m.e);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 16, 3);
	REQUIRE(cqe_next(b, false, &cqe));
	CHECK_EQ(cqe.status, ORDMA_CQE_SUCCESS);
	CHECK_EQ(le16_to_cpu(cqe.flags), ORDMA_CQE_F_INV);
	CHECK_EQ(le32_to_cpu(cqe.imm_inv), k2);
	post_rdma(a, ORDMA_WQE_RDMA_WRITE, MR1_ADDR, 0x10, 0x10, k2);
	pump(&m.e);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_REM_ACCESS_ERR,
		   0, 4);
	CHECK_EQ(qp_state(a), ORDMA_QPS_ERR);
	CHECK_EQ(qp_state(b), ORDMA_QPS_ERR);
	env_close(&m.e);
}

/* A bind that breaks a rule completes with MW_BIND_ERR, QP to error;
 * the window is unchanged and the next WQE is flushed.
 */
TEST(test_tp_mw_bind_error)
{
	uint32_t k1;
	struct mw_env m;
	struct side *b;

	REQUIRE(mw_env_open(&m));
	b = &m.e.s[1];
	k1 = mw_next_key(m.mw1);
	post_bind(b, k1, m.mr_nobind, GUARD_ADDR, 0x100,
		  ORDMA_ACCESS_REMOTE_WRITE);
	post_bind(b, k1, m.mr, GUARD_ADDR, 0x100, ORDMA_ACCESS_REMOTE_WRITE);
	expect_cqe(b, true, ORDMA_CQE_OP_BIND_MW, ORDMA_CQE_MW_BIND_ERR, 0, 0);
	expect_cqe(b, true, ORDMA_CQE_OP_BIND_MW, ORDMA_CQE_WR_FLUSH_ERR, 0, 1);
	CHECK_EQ(qp_state(b), ORDMA_QPS_ERR);
	/* the window was not bound by the failed WQE */
	{
		struct fw_mr *mr;

		CHECK_EQ(fw_mr_lookup_remote(b->d.fw, k1, b->pdn, b->qpn,
					     GUARD_ADDR, 1, 0, &mr),
			 FW_MR_ERR_KEY);
	}
	env_close(&m.e);
}

/* Type 1 windows are not invalidated by LOCAL_INV or SEND_WITH_INV. */
TEST(test_tp_mw_type1_not_invalidated)
{
	struct ordma_cqe cqe;
	uint32_t k1;
	struct mw_env m;
	struct side *a, *b;
	struct wr w;

	REQUIRE(mw_env_open(&m));
	a = &m.e.s[0];
	b = &m.e.s[1];
	k1 = mw_next_key(m.mw1);
	post_bind(b, k1, m.mr, GUARD_ADDR, 0x100, ORDMA_ACCESS_REMOTE_WRITE);
	expect_cqe(b, true, ORDMA_CQE_OP_BIND_MW, ORDMA_CQE_SUCCESS, 0, 0);
	post_recv(b, MR1_ADDR, 64);
	wr_init(&w, ORDMA_WQE_SEND_INV, MR1_ADDR, 16, a->key1);
	w.imm_inv = k1;
	post(a, &w);
	pump(&m.e);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_REM_INV_REQ_ERR, 0, 0);
	REQUIRE(cqe_next(b, false, &cqe));
	CHECK_EQ(cqe.status, ORDMA_CQE_LOC_PROT_ERR);
	CHECK_EQ(qp_state(b), ORDMA_QPS_ERR);
	env_close(&m.e);

	/* LOCAL_INV on B's own SQ */
	REQUIRE(mw_env_open(&m));
	b = &m.e.s[1];
	k1 = mw_next_key(m.mw1);
	post_bind(b, k1, m.mr, GUARD_ADDR, 0x100, ORDMA_ACCESS_REMOTE_WRITE);
	memset(&w, 0, sizeof(w));
	w.opcode = ORDMA_WQE_LOCAL_INV;
	w.flags = ORDMA_WQE_SIGNALED;
	w.imm_inv = k1;
	post(b, &w);
	expect_cqe(b, true, ORDMA_CQE_OP_BIND_MW, ORDMA_CQE_SUCCESS, 0, 0);
	expect_cqe(b, true, ORDMA_CQE_OP_LOCAL_INV, ORDMA_CQE_LOC_PROT_ERR, 0,
		   1);
	env_close(&m.e);
}

/* A type 2 window invalidated by LOCAL_INV binds again; freed while
 * bound it refuses access and no longer holds its MR.
 */
TEST(test_tp_mw_type2_dealloc_and_qp)
{
	uint32_t k2;
	struct mw_env m;
	struct side *a, *b;
	struct wr w;

	REQUIRE(mw_env_open(&m));
	a = &m.e.s[0];
	b = &m.e.s[1];
	k2 = mw_next_key(m.mw2);
	post_bind(b, k2, m.mr, GUARD_ADDR, 0x100, ORDMA_ACCESS_REMOTE_WRITE);
	expect_cqe(b, true, ORDMA_CQE_OP_BIND_MW, ORDMA_CQE_SUCCESS, 0, 0);
	/* LOCAL_INV, then bound again with a new key */
	memset(&w, 0, sizeof(w));
	w.opcode = ORDMA_WQE_LOCAL_INV;
	w.flags = ORDMA_WQE_SIGNALED;
	w.imm_inv = k2;
	post(b, &w);
	expect_cqe(b, true, ORDMA_CQE_OP_LOCAL_INV, ORDMA_CQE_SUCCESS, 0, 1);
	k2 = mw_next_key(k2);
	post_bind(b, k2, m.mr, GUARD_ADDR, 0x100, ORDMA_ACCESS_REMOTE_WRITE);
	expect_cqe(b, true, ORDMA_CQE_OP_BIND_MW, ORDMA_CQE_SUCCESS, 0, 2);
	post_rdma(a, ORDMA_WQE_RDMA_WRITE, MR1_ADDR, 0x10, GUARD_ADDR, k2);
	pump(&m.e);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_SUCCESS, 0x10,
		   0);
	/* freed while bound: the next WRITE is a remote access error */
	CHECK_EQ(drv_handle_cmd(&b->d, ORDMA_CMD_DEALLOC_MW, k2, 0), OK);
	CHECK_EQ(drv_handle_cmd(&b->d, ORDMA_CMD_DEREG_MR, m.mr, 0), OK);
	post_rdma(a, ORDMA_WQE_RDMA_WRITE, MR1_ADDR, 0x10, GUARD_ADDR, k2);
	pump(&m.e);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_REM_ACCESS_ERR,
		   0, 1);
	env_close(&m.e);
}

/*
 * Every remote access resolves its rkey alike: UC WRITE, FLUSH, ATOMIC
 * WRITE and atomics through windows, with the window's bounds, rights,
 * PD and (type 2) QP.  B's windows are bound directly on the firmware;
 * W_MR is an MR of B over GUARD_ADDR that may carry FLUSH_GLOBAL.
 */
#define W_MR_ACCESS	(ORDMA_ACCESS_LOCAL_WRITE | ORDMA_ACCESS_MW_BIND | \
			 ORDMA_ACCESS_FLUSH_GLOBAL)

/* Allocates a window of type on B and binds it on QP qpn; its rkey. */
static uint32_t mw_bind_on(struct side *b, uint32_t mr, uint8_t type,
			   uint32_t qpn, uint64_t addr, uint64_t len,
			   uint32_t access)
{
	struct ordma_wqe_bind_mw w;
	uint32_t rkey = 0;

	if (!CHECK_EQ(mw_alloc(b, type, 0x70, &rkey), OK))
		return 0;
	rkey = mw_next_key(rkey);
	memset(&w, 0, sizeof(w));
	w.addr = cpu_to_le64(addr);
	w.length = cpu_to_le64(len);
	w.mw_rkey = cpu_to_le32(rkey);
	w.mr_lkey = cpu_to_le32(mr);
	w.access = cpu_to_le32(access);
	CHECK_EQ(fw_mw_bind(b->d.fw, b->pdn, qpn, &w), FW_MR_OK);
	return rkey;
}

static uint32_t w_mr(struct side *b)
{
	uint32_t key = 0;

	CHECK_EQ(drv_reg_mr_contig(&b->d, b->pdn, 0, GUARD_ADDR, GUARD_ADDR,
				   MW_MR_LEN, W_MR_ACCESS, 0x53, &key), OK);
	return key;
}

static bool all_zero(const uint8_t *p, size_t len)
{
	while (len--)
		if (*p++)
			return false;
	return true;
}

/* UC WRITE through type 1 and zero-based type 2 windows; the refusals
 * drop the message silently and leave B's memory alone.
 */
TEST(test_tp_mw_uc_write)
{
	uint32_t mr, k1, k2, ro, other;
	uint64_t bad_before;
	struct mw_env m;
	struct side *a, *b;
	struct ordma_cqe cqe;
	struct tcfg c;
	struct wr w;

	uc_cfg(&c);
	REQUIRE(mw_env_open_cfg(&m, &c));
	a = &m.e.s[0];
	b = &m.e.s[1];
	memset(mem(b, GUARD_ADDR, MW_MR_LEN), 0, MW_MR_LEN);
	mr = w_mr(b);
	k1 = mw_bind_on(b, mr, ORDMA_MW_TYPE_1, b->qpn, GUARD_ADDR + 0x100,
			0x1000, ORDMA_ACCESS_REMOTE_WRITE);
	k2 = mw_bind_on(b, mr, ORDMA_MW_TYPE_2, b->qpn, GUARD_ADDR + 0x2000,
			0x1000, ORDMA_ACCESS_REMOTE_WRITE |
			ORDMA_ACCESS_ZERO_BASED);
	ro = mw_bind_on(b, mr, ORDMA_MW_TYPE_1, b->qpn, GUARD_ADDR + 0x3000,
			0x100, ORDMA_ACCESS_REMOTE_READ);
	other = mw_bind_on(b, mr, ORDMA_MW_TYPE_2, b->qpn + 1,
			   GUARD_ADDR + 0x3100, 0x100,
			   ORDMA_ACCESS_REMOTE_WRITE);

	/* three packets into the type 1 window */
	pattern(mem(a, MR1_ADDR, 0x1000), 0x1000, 11);
	post_rdma(a, ORDMA_WQE_RDMA_WRITE, MR1_ADDR, 3000, GUARD_ADDR + 0x180,
		  k1);
	pump(&m.e);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_SUCCESS, 3000,
		   0);
	CHECK(!memcmp(mem(b, GUARD_ADDR + 0x180, 3000), mem(a, MR1_ADDR, 3000),
		      3000));
	/* zero based, with immediate: window offset 0x20 */
	post_recv(b, MR1_ADDR, 16);
	wr_init(&w, ORDMA_WQE_RDMA_WRITE_IMM, MR1_ADDR, 0x40, a->key1);
	w.remote_addr = 0x20;
	w.rkey = k2;
	w.imm_inv = 0x5a5a0001;
	post(a, &w);
	pump(&m.e);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_SUCCESS, 0x40,
		   1);
	REQUIRE(cqe_next(b, false, &cqe));
	CHECK_EQ(cqe.status, ORDMA_CQE_SUCCESS);
	CHECK_EQ(cqe.opcode, ORDMA_CQE_OP_RECV_RDMA_IMM);
	CHECK(!memcmp(mem(b, GUARD_ADDR + 0x2020, 0x40), mem(a, MR1_ADDR, 0x40),
		      0x40));
	CHECK(all_zero(mem(b, GUARD_ADDR + 0x2000, 0x20), 0x20));

	/* refused: no REMOTE_WRITE, past the window's end (inside the MR),
	 * a type 2 window bound to another QP of B
	 */
	bad_before = drops(b, ORDMA_ROCE_RX_DROP_BAD_REQ);
	post_rdma(a, ORDMA_WQE_RDMA_WRITE, MR1_ADDR, 0x10, GUARD_ADDR + 0x3000,
		  ro);
	post_rdma(a, ORDMA_WQE_RDMA_WRITE, MR1_ADDR, 0x20,
		  GUARD_ADDR + 0x1100 - 0x10, k1);
	post_rdma(a, ORDMA_WQE_RDMA_WRITE, MR1_ADDR, 0x10, 0xff8, k2);
	post_rdma(a, ORDMA_WQE_RDMA_WRITE, MR1_ADDR, 0x10, GUARD_ADDR + 0x3100,
		  other);
	pump(&m.e);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_SUCCESS, 0x10,
		   2);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_SUCCESS, 0x20,
		   3);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_SUCCESS, 0x10,
		   4);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_SUCCESS, 0x10,
		   5);
	CHECK_EQ(drops(b, ORDMA_ROCE_RX_DROP_BAD_REQ) - bad_before, 4);
	CHECK(all_zero(mem(b, GUARD_ADDR + 0x1100 - 0x10, 0x10), 0x10));
	CHECK(all_zero(mem(b, GUARD_ADDR + 0x1100, 0xf00), 0xf00));
	CHECK(all_zero(mem(b, GUARD_ADDR + 0x3000, 0x1000), 0x1000));
	no_cqe(b, false);
	uc_quiet(&m.e);
	env_close(&m.e);
}

/* FLUSH (both levels), ATOMIC WRITE and atomics through windows */
TEST(test_tp_mw_flush_atomic)
{
	uint32_t mr, k1, k2;
	struct mw_env m;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;

	flush_cfg(&c);
	REQUIRE(mw_env_open_cfg(&m, &c));
	a = &m.e.s[0];
	b = &m.e.s[1];
	memset(mem(b, GUARD_ADDR, MW_MR_LEN), 0, MW_MR_LEN);
	mr = w_mr(b);
	k1 = mw_bind_on(b, mr, ORDMA_MW_TYPE_1, b->qpn, GUARD_ADDR + 0x100,
			0x200, ORDMA_ACCESS_REMOTE_WRITE |
			ORDMA_ACCESS_FLUSH_GLOBAL);
	k2 = mw_bind_on(b, mr, ORDMA_MW_TYPE_2, b->qpn, GUARD_ADDR + 0x1000,
			0x100, ORDMA_ACCESS_ZERO_BASED |
			ORDMA_ACCESS_REMOTE_WRITE | ORDMA_ACCESS_REMOTE_ATOMIC |
			ORDMA_ACCESS_FLUSH_GLOBAL);

	flush_wr(&w, GUARD_ADDR + 0x100, k1, 0x200, ORDMA_FLUSH_GLOBAL,
		 ORDMA_FLUSH_LEVEL_RANGE);
	post(a, &w);
	flush_wr(&w, 0, k1, 0, ORDMA_FLUSH_GLOBAL, ORDMA_FLUSH_LEVEL_MR);
	post(a, &w);
	flush_wr(&w, 0x80, k2, 0x80, ORDMA_FLUSH_GLOBAL,
		 ORDMA_FLUSH_LEVEL_RANGE);
	post(a, &w);
	aw_wr(&w, 0x8, k2, 0x0123456789abcdefULL);
	post(a, &w);
	put64(mem(b, GUARD_ADDR + 0x1010, 8), 40);
	wr_init(&w, ORDMA_WQE_ATOMIC_FETCH_ADD, MR1_ADDR + 0x200, 8, a->key1);
	w.remote_addr = 0x10;
	w.rkey = k2;
	w.compare_add = 2;
	post(a, &w);
	pump(&m.e);
	expect_cqe(a, true, ORDMA_CQE_OP_FLUSH, ORDMA_CQE_SUCCESS, 0, 0);
	expect_cqe(a, true, ORDMA_CQE_OP_FLUSH, ORDMA_CQE_SUCCESS, 0, 1);
	expect_cqe(a, true, ORDMA_CQE_OP_FLUSH, ORDMA_CQE_SUCCESS, 0, 2);
	expect_cqe(a, true, ORDMA_CQE_OP_ATOMIC_WRITE, ORDMA_CQE_SUCCESS, 8, 3);
	expect_cqe(a, true, ORDMA_CQE_OP_FETCH_ADD, ORDMA_CQE_SUCCESS, 8, 4);
	CHECK_EQ(get64(mem(b, GUARD_ADDR + 0x1008, 8)), 0x0123456789abcdefULL);
	CHECK_EQ(get64(mem(b, GUARD_ADDR + 0x1010, 8)), 42);
	CHECK_EQ(get64(mem(a, MR1_ADDR + 0x200, 8)), 40);
	CHECK_EQ(qp_state(a), ORDMA_QPS_RTS);
	CHECK_EQ(qp_state(b), ORDMA_QPS_RTS);
	env_close(&m.e);
}

/*
 * One request through a window B refuses: A's WQE completes with status,
 * both QPs end in ERR and B's memory under the window is unchanged.  The
 * window is bound at offset off of W_MR (length len, access) on B's QP,
 * or on another QP of B.
 */
static void mw_refused(uint8_t type, uint64_t off, uint64_t len,
		       uint32_t access, bool other_qp, uint8_t opcode,
		       uint64_t raddr, uint32_t rlen, uint8_t cqe_op,
		       uint8_t status)
{
	uint8_t before[0x40];
	struct mw_env m;
	struct side *a, *b;
	struct tcfg c;
	uint32_t k;
	struct wr w;

	flush_cfg(&c);
	REQUIRE(mw_env_open_cfg(&m, &c));
	a = &m.e.s[0];
	b = &m.e.s[1];
	pattern(mem(b, GUARD_ADDR, MW_MR_LEN), MW_MR_LEN, 77);
	memcpy(before, mem(b, GUARD_ADDR + (off & ~0x1fULL), sizeof(before)),
	       sizeof(before));
	k = mw_bind_on(b, w_mr(b), type, other_qp ? b->qpn + 1 : b->qpn,
		       GUARD_ADDR + off, len, access);
	switch (opcode) {
	case ORDMA_WQE_FLUSH:
		flush_wr(&w, raddr, k, rlen, ORDMA_FLUSH_GLOBAL,
			 ORDMA_FLUSH_LEVEL_RANGE);
		break;
	case ORDMA_WQE_ATOMIC_WRITE:
		aw_wr(&w, raddr, k, ~0ULL);
		break;
	default:
		wr_init(&w, opcode, MR1_ADDR, rlen, a->key1);
		w.remote_addr = raddr;
		w.rkey = k;
		w.compare_add = 0x100000001ULL;
		break;
	}
	post(a, &w);
	pump(&m.e);
	expect_cqe(a, true, cqe_op, status, 0, 0);
	CHECK_EQ(qp_state(a), ORDMA_QPS_ERR);
	CHECK_EQ(qp_state(b), ORDMA_QPS_ERR);
	CHECK(!memcmp(mem(b, GUARD_ADDR + (off & ~0x1fULL), sizeof(before)),
		      before, sizeof(before)));
	env_close(&m.e);
}

TEST(test_tp_mw_refusals)
{
	const uint32_t wr = ORDMA_ACCESS_REMOTE_WRITE;
	const uint32_t glob = ORDMA_ACCESS_FLUSH_GLOBAL;
	const uint32_t atom = ORDMA_ACCESS_REMOTE_ATOMIC;
	const uint32_t zb = ORDMA_ACCESS_ZERO_BASED;
	const uint8_t acc = ORDMA_CQE_REM_ACCESS_ERR;

	/* FLUSH: no FLUSH right, past the end, type 2 of another QP */
	mw_refused(ORDMA_MW_TYPE_1, 0x100, 0x200, wr, false, ORDMA_WQE_FLUSH,
		   GUARD_ADDR + 0x100, 0x10, ORDMA_CQE_OP_FLUSH, acc);
	mw_refused(ORDMA_MW_TYPE_1, 0x100, 0x200, glob, false, ORDMA_WQE_FLUSH,
		   GUARD_ADDR + 0x200, 0x101, ORDMA_CQE_OP_FLUSH, acc);
	mw_refused(ORDMA_MW_TYPE_2, 0x100, 0x200, glob | zb, true,
		   ORDMA_WQE_FLUSH, 0, 0x10, ORDMA_CQE_OP_FLUSH, acc);
	/* ATOMIC WRITE: no REMOTE_WRITE, past the end, another QP */
	mw_refused(ORDMA_MW_TYPE_1, 0x100, 0x200, glob | atom, false,
		   ORDMA_WQE_ATOMIC_WRITE, GUARD_ADDR + 0x100,
		   0, ORDMA_CQE_OP_ATOMIC_WRITE, acc);
	mw_refused(ORDMA_MW_TYPE_2, 0x100, 0x200, wr | zb, false,
		   ORDMA_WQE_ATOMIC_WRITE, 0x200, 0, ORDMA_CQE_OP_ATOMIC_WRITE,
		   acc);
	mw_refused(ORDMA_MW_TYPE_2, 0x100, 0x200, wr | zb, true,
		   ORDMA_WQE_ATOMIC_WRITE, 0x8, 0, ORDMA_CQE_OP_ATOMIC_WRITE,
		   acc);
	/* FETCH_ADD: no REMOTE_ATOMIC, another QP */
	mw_refused(ORDMA_MW_TYPE_1, 0x100, 0x200, wr, false,
		   ORDMA_WQE_ATOMIC_FETCH_ADD, GUARD_ADDR + 0x100, 8,
		   ORDMA_CQE_OP_FETCH_ADD, acc);
	mw_refused(ORDMA_MW_TYPE_2, 0x100, 0x200, atom | zb, true,
		   ORDMA_WQE_ATOMIC_FETCH_ADD, 0x8, 8, ORDMA_CQE_OP_FETCH_ADD,
		   acc);
}

/*
 * A zero-based window bound 4 bytes before a page boundary: its aligned
 * address 0 is 4 bytes in each page of B's memory.  The 8-byte atomics
 * and ATOMIC WRITE there are invalid requests and nothing is written
 * (never half of the word in each page).
 */
TEST(test_tp_mw_atomic_misaligned)
{
	const uint32_t zb = ORDMA_ACCESS_ZERO_BASED;
	const uint8_t inv = ORDMA_CQE_REM_INV_REQ_ERR;

	mw_refused(ORDMA_MW_TYPE_2, 0xffc, 0x40, zb | ORDMA_ACCESS_REMOTE_ATOMIC,
		   false, ORDMA_WQE_ATOMIC_FETCH_ADD, 0, 8,
		   ORDMA_CQE_OP_FETCH_ADD, inv);
	mw_refused(ORDMA_MW_TYPE_2, 0xffc, 0x40, zb | ORDMA_ACCESS_REMOTE_ATOMIC,
		   false, ORDMA_WQE_ATOMIC_CMP_SWP, 0x8, 8,
		   ORDMA_CQE_OP_CMP_SWP, inv);
	mw_refused(ORDMA_MW_TYPE_2, 0xffc, 0x40, zb | ORDMA_ACCESS_REMOTE_WRITE,
		   false, ORDMA_WQE_ATOMIC_WRITE, 0, 0,
		   ORDMA_CQE_OP_ATOMIC_WRITE, inv);
}
