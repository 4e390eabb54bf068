// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Memory windows: ALLOC_MW/DEALLOC_MW validation, ownership and limits,
 * the BIND_MW checks, remote lookups and copies through a window,
 * invalidation, and the rules that tie MRs, windows and QPs together.
 * Traffic through windows between two devices is in test_transport.c.
 */
#include <string.h>

#include "objects/fw_verbs.h"
#include "drv.h"
#include "ordma_test.h"

#define OK		ORDMA_CMD_STATUS_OK
#define MR_IOVA		0x5000000ULL
#define MR_LEN		0x4000ULL
#define QPN		0x40
#define RW		(ORDMA_ACCESS_LOCAL_WRITE | ORDMA_ACCESS_REMOTE_WRITE)

static uint8_t alloc_mw(struct drv *d, uint32_t pdn, uint32_t uctx,
			uint8_t type, uint8_t key, uint32_t *rkey)
{
	struct ordma_aq_cmd cmd;
	uint8_t status;

	drv_cmd_init(&cmd, ORDMA_CMD_ALLOC_MW);
	cmd.alloc_mw.pdn = cpu_to_le32(pdn);
	cmd.alloc_mw.uctx = cpu_to_le32(uctx);
	cmd.alloc_mw.type = type;
	cmd.alloc_mw.key = key;
	status = drv_exec(d, &cmd);
	if (rkey)
		*rkey = le32_to_cpu(d->last_comp.handle.handle);
	return status;
}

static struct ordma_wqe_bind_mw bind_wqe(uint32_t mw_rkey, uint32_t mr_lkey,
					 uint64_t addr, uint64_t length,
					 uint32_t access)
{
	struct ordma_wqe_bind_mw w;

	memset(&w, 0, sizeof(w));
	w.addr = cpu_to_le64(addr);
	w.length = cpu_to_le64(length);
	w.mw_rkey = cpu_to_le32(mw_rkey);
	w.mr_lkey = cpu_to_le32(mr_lkey);
	w.access = cpu_to_le32(access);
	return w;
}

static int bind(struct drv *d, uint32_t pdn, uint32_t qpn, uint32_t mw_rkey,
		uint32_t mr_lkey, uint64_t addr, uint64_t length,
		uint32_t access)
{
	struct ordma_wqe_bind_mw w = bind_wqe(mw_rkey, mr_lkey, addr, length,
					      access);

	return fw_mw_bind(d->fw, pdn, qpn, &w);
}

static uint32_t next_key(uint32_t key)
{
	return (key & ~0xffu) | ((key + 1) & 0xff);
}

/* A device with a user context, a kernel and a user PD and an MR of
 * MR_LEN bytes at MR_IOVA in the kernel PD with access.
 */
static bool setup(struct drv *d, uint32_t *uctx, uint32_t *kpd, uint32_t *upd,
		  uint32_t access, uint32_t *mr)
{
	if (!drv_open(d, 5))
		return false;
	memset(drv_mem(d, DRV_MR_ADDR, DRV_MR_SIZE), 0, DRV_MR_SIZE);
	return drv_alloc_uctx(d, uctx) == OK && drv_alloc_pd(d, 0, kpd) == OK &&
	       drv_alloc_pd(d, *uctx, upd) == OK &&
	       drv_reg_mr_contig(d, *kpd, 0, MR_IOVA, DRV_MR_ADDR, MR_LEN,
				 access, 0x21, mr) == OK;
}

TEST(test_alloc_mw_validation)
{
	struct ordma_aq_cmd cmd;
	uint32_t uctx, kpd, upd, mr, rkey, rkey2;
	struct drv d;

	REQUIRE(setup(&d, &uctx, &kpd, &upd, RW | ORDMA_ACCESS_MW_BIND, &mr));
	CHECK_EQ(alloc_mw(&d, kpd, 0, 0, 1, NULL), ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), FW_CMD_OFF(alloc_mw.type));
	CHECK_EQ(alloc_mw(&d, kpd, 0, 3, 1, NULL), ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), FW_CMD_OFF(alloc_mw.type));
	drv_cmd_init(&cmd, ORDMA_CMD_ALLOC_MW);
	cmd.alloc_mw.pdn = cpu_to_le32(kpd);
	cmd.alloc_mw.type = ORDMA_MW_TYPE_1;
	cmd.alloc_mw.reserved_10 = cpu_to_le16(1);
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), FW_CMD_OFF(alloc_mw.reserved_10));
	cmd.alloc_mw.reserved_10 = 0;
	cmd.alloc_mw.reserved_12 = cpu_to_le32(1);
	CHECK_EQ(drv_exec(&d, &cmd), ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&d), FW_CMD_OFF(alloc_mw.reserved_12));
	CHECK_EQ(alloc_mw(&d, kpd, 77, 1, 1, NULL),
		 ORDMA_CMD_STATUS_BAD_HANDLE);
	CHECK_EQ(alloc_mw(&d, 999, 0, 1, 1, NULL), ORDMA_CMD_STATUS_BAD_HANDLE);
	CHECK_EQ(alloc_mw(&d, upd, 0, 1, 1, NULL), ORDMA_CMD_STATUS_PERM);

	/* windows take indices of the MR table: the next one after the MR */
	REQUIRE_EQ(alloc_mw(&d, upd, uctx, ORDMA_MW_TYPE_2, 0x9c, &rkey), OK);
	CHECK_EQ(rkey, (FIELD_GET(ORDMA_KEY_INDEX, mr) + 1) << 8 | 0x9c);
	REQUIRE_EQ(alloc_mw(&d, kpd, 0, ORDMA_MW_TYPE_1, 0x01, &rkey2), OK);
	CHECK_EQ(FIELD_GET(ORDMA_KEY_INDEX, rkey2),
		 FIELD_GET(ORDMA_KEY_INDEX, rkey) + 1);
	/* a window is neither an MR nor an lkey */
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEREG_MR, rkey, uctx),
		 ORDMA_CMD_STATUS_BAD_HANDLE);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEALLOC_MW, mr, 0),
		 ORDMA_CMD_STATUS_BAD_HANDLE);
	/* the PD and the user context are held */
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEALLOC_PD, upd, uctx),
		 ORDMA_CMD_STATUS_BUSY);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEALLOC_UCTX, uctx, 0),
		 ORDMA_CMD_STATUS_BUSY);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEALLOC_MW, rkey, 0),
		 ORDMA_CMD_STATUS_PERM);
	/* the variant is not compared */
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEALLOC_MW, rkey ^ 0x55, uctx),
		 OK);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEALLOC_MW, rkey, uctx),
		 ORDMA_CMD_STATUS_BAD_HANDLE);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEALLOC_PD, upd, uctx), OK);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEALLOC_UCTX, uctx, 0), OK);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEALLOC_MW, rkey2, 0), OK);
	drv_close(&d);
}

TEST(test_alloc_mw_limit)
{
	uint32_t uctx, kpd, upd, mr, rkey, first = 0, key;
	unsigned int i;
	struct drv d;

	REQUIRE(setup(&d, &uctx, &kpd, &upd, RW, &mr));
	for (i = 0; i < FW_MAX_MW; i++) {
		if (!CHECK_EQ(alloc_mw(&d, kpd, 0, ORDMA_MW_TYPE_1, 1, &rkey),
			      OK))
			break;
		if (!first)
			first = rkey;
	}
	CHECK_EQ(alloc_mw(&d, kpd, 0, ORDMA_MW_TYPE_2, 1, NULL),
		 ORDMA_CMD_STATUS_NO_RESOURCES);
	/* MRs still get the indices left */
	CHECK_EQ(drv_reg_mr_contig(&d, kpd, 0, MR_IOVA, DRV_MR_ADDR, MR_LEN,
				   RW, 1, &key), OK);
	/* a freed window makes room for one more */
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEALLOC_MW, first, 0), OK);
	CHECK_EQ(alloc_mw(&d, kpd, 0, ORDMA_MW_TYPE_2, 1, &rkey), OK);
	CHECK_EQ(FIELD_GET(ORDMA_KEY_INDEX, rkey),
		 FIELD_GET(ORDMA_KEY_INDEX, first));
	drv_close(&d);
}

/* REG_MR grants MW_BIND (setup); ZERO_BASED is for windows only */
TEST(test_mr_mw_bind_access)
{
	uint32_t uctx, kpd, upd, mr;
	struct drv d;

	REQUIRE(setup(&d, &uctx, &kpd, &upd, ORDMA_ACCESS_MW_BIND, &mr));
	CHECK_EQ(drv_reg_mr_contig(&d, kpd, 0, MR_IOVA, DRV_MR_ADDR, MR_LEN,
				   ORDMA_ACCESS_ZERO_BASED, 1, NULL),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	drv_close(&d);
}

TEST(test_bind_checks)
{
	uint32_t uctx, kpd, upd, mr, plain, ro, mw1, mw2, umw, k;
	struct ordma_wqe_bind_mw w;
	struct fw_mr *m;
	struct drv d;

	REQUIRE(setup(&d, &uctx, &kpd, &upd, RW | ORDMA_ACCESS_MW_BIND, &mr));
	REQUIRE_EQ(drv_reg_mr_contig(&d, kpd, 0, MR_IOVA, DRV_MR_ADDR, MR_LEN,
				     RW, 0x31, &plain), OK);
	REQUIRE_EQ(drv_reg_mr_contig(&d, kpd, 0, MR_IOVA, DRV_MR_ADDR, MR_LEN,
				     ORDMA_ACCESS_MW_BIND |
				     ORDMA_ACCESS_REMOTE_READ, 0x32, &ro), OK);
	REQUIRE_EQ(alloc_mw(&d, kpd, 0, ORDMA_MW_TYPE_1, 0x10, &mw1), OK);
	REQUIRE_EQ(alloc_mw(&d, kpd, 0, ORDMA_MW_TYPE_2, 0x20, &mw2), OK);
	REQUIRE_EQ(alloc_mw(&d, upd, uctx, ORDMA_MW_TYPE_1, 0x30, &umw), OK);

	/* an unbound window grants nothing */
	CHECK_EQ(fw_mr_lookup_remote(d.fw, mw1, kpd, QPN, MR_IOVA, 1, 0, &m),
		 FW_MR_ERR_KEY);
	/* window */
	CHECK_EQ(bind(&d, kpd, QPN, mr, mr, MR_IOVA, 16, 0), FW_MR_ERR_KEY);
	CHECK_EQ(bind(&d, kpd, QPN, 0, mr, MR_IOVA, 16, 0), FW_MR_ERR_KEY);
	CHECK_EQ(bind(&d, kpd, QPN, next_key(mw1), mr, MR_IOVA, 16,
		      ORDMA_ACCESS_LOCAL_WRITE), FW_MR_ERR_PARAM);
	CHECK_EQ(bind(&d, kpd, QPN, next_key(mw1), mr, MR_IOVA, 16,
		      ORDMA_ACCESS_MW_BIND), FW_MR_ERR_PARAM);
	w = bind_wqe(next_key(mw1), mr, MR_IOVA, 16, 0);
	w.reserved_28 = cpu_to_le32(1);
	CHECK_EQ(fw_mw_bind(d.fw, kpd, QPN, &w), FW_MR_ERR_PARAM);
	CHECK_EQ(bind(&d, upd, QPN, next_key(mw1), mr, MR_IOVA, 16, 0),
		 FW_MR_ERR_PD);
	CHECK_EQ(bind(&d, kpd, QPN, next_key(mw1), mr, MR_IOVA, 16,
		      ORDMA_ACCESS_ZERO_BASED), FW_MR_ERR_PARAM);
	CHECK_EQ(bind(&d, kpd, QPN, next_key(mw2), mr, MR_IOVA, 0, 0),
		 FW_MR_ERR_PARAM);
	/* MR */
	CHECK_EQ(bind(&d, kpd, QPN, next_key(mw1), mr ^ 1, MR_IOVA, 16, 0),
		 FW_MR_ERR_KEY);
	CHECK_EQ(bind(&d, kpd, QPN, next_key(mw1), mw2, MR_IOVA, 16, 0),
		 FW_MR_ERR_KEY);
	CHECK_EQ(bind(&d, upd, QPN, next_key(umw), mr, MR_IOVA, 16, 0),
		 FW_MR_ERR_PD);
	CHECK_EQ(bind(&d, kpd, QPN, next_key(mw1), plain, MR_IOVA, 16, 0),
		 FW_MR_ERR_ACCESS);
	/* C10-75: remote write/atomic need the MR's local write */
	CHECK_EQ(bind(&d, kpd, QPN, next_key(mw1), ro, MR_IOVA, 16,
		      ORDMA_ACCESS_REMOTE_WRITE), FW_MR_ERR_ACCESS);
	CHECK_EQ(bind(&d, kpd, QPN, next_key(mw1), ro, MR_IOVA, 16,
		      ORDMA_ACCESS_REMOTE_ATOMIC), FW_MR_ERR_ACCESS);
	CHECK_EQ(bind(&d, kpd, QPN, next_key(mw1), mr, MR_IOVA - 1, 16, 0),
		 FW_MR_ERR_BOUNDS);
	CHECK_EQ(bind(&d, kpd, QPN, next_key(mw1), mr, MR_IOVA + 1, MR_LEN, 0),
		 FW_MR_ERR_BOUNDS);
	CHECK_EQ(bind(&d, kpd, QPN, next_key(mw2), mr, MR_IOVA + 0x100, MR_LEN,
		      ORDMA_ACCESS_ZERO_BASED), FW_MR_ERR_BOUNDS);
	CHECK_EQ(bind(&d, kpd, QPN, next_key(mw1), mr, ~0ULL - 3, 16, 0),
		 FW_MR_ERR_BOUNDS);
	/* nothing of that changed the window */
	CHECK_EQ(fw_mr_lookup_remote(d.fw, mw1, kpd, QPN, MR_IOVA, 1, 0, &m),
		 FW_MR_ERR_KEY);

	/* read only to a remote-read MR is fine; the whole MR too */
	CHECK_EQ(bind(&d, kpd, QPN, next_key(mw1), ro, MR_IOVA, MR_LEN,
		      ORDMA_ACCESS_REMOTE_READ), FW_MR_OK);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEREG_MR, ro, 0),
		 ORDMA_CMD_STATUS_BUSY);
	/* type 1 rebinds at will: the window moves to mr, ro is free */
	k = next_key(next_key(mw1));
	CHECK_EQ(bind(&d, kpd, QPN, k, mr, MR_IOVA + 0x100, 0x200,
		      ORDMA_ACCESS_REMOTE_WRITE), FW_MR_OK);
	CHECK_EQ(fw_mr_lookup_remote(d.fw, next_key(mw1), kpd, QPN,
				     MR_IOVA + 0x100, 1, 0, &m), FW_MR_ERR_KEY);
	CHECK_EQ(fw_mr_lookup_remote(d.fw, k, kpd, QPN, MR_IOVA + 0x100, 0x200,
				     ORDMA_ACCESS_REMOTE_WRITE, &m), FW_MR_OK);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEREG_MR, ro, 0), OK);
	/* type 2 binds once, from the free state only */
	CHECK_EQ(bind(&d, kpd, QPN, next_key(mw2), mr, MR_IOVA, 64,
		      ORDMA_ACCESS_REMOTE_READ), FW_MR_OK);
	CHECK_EQ(bind(&d, kpd, QPN, next_key(next_key(mw2)), mr, MR_IOVA, 64,
		      ORDMA_ACCESS_REMOTE_READ), FW_MR_ERR_TYPE);
	/* type 1: length 0 unbinds and takes the new key */
	CHECK_EQ(bind(&d, kpd, QPN, next_key(k), 0, 0, 0, 0), FW_MR_OK);
	CHECK_EQ(fw_mr_lookup_remote(d.fw, k, kpd, QPN, MR_IOVA + 0x100, 1, 0,
				     &m), FW_MR_ERR_KEY);
	/* mr still carries mw2 */
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEREG_MR, mr, 0),
		 ORDMA_CMD_STATUS_BUSY);
	/* freeing a bound window unbinds it */
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEALLOC_MW, mw2, 0), OK);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEREG_MR, mr, 0), OK);
	drv_close(&d);
}

TEST(test_remote_lookup_and_copy)
{
	uint32_t uctx, kpd, upd, mr, mw1, mw2, k1, k2;
	uint8_t buf[32], *host;
	uint64_t dma, contig;
	struct fw_mr *m;
	unsigned int i;
	struct drv d;

	REQUIRE(setup(&d, &uctx, &kpd, &upd, RW | ORDMA_ACCESS_MW_BIND |
		      ORDMA_ACCESS_REMOTE_READ, &mr));
	REQUIRE_EQ(alloc_mw(&d, kpd, 0, ORDMA_MW_TYPE_1, 0x10, &mw1), OK);
	REQUIRE_EQ(alloc_mw(&d, kpd, 0, ORDMA_MW_TYPE_2, 0x20, &mw2), OK);
	k1 = next_key(mw1);
	k2 = next_key(mw2);
	/* type 1 at MR offset 0x1ff0, 0x20 bytes, crossing a page */
	REQUIRE_EQ(bind(&d, kpd, QPN, k1, mr, MR_IOVA + 0x1ff0, 0x20,
			ORDMA_ACCESS_REMOTE_WRITE), FW_MR_OK);
	/* type 2, zero based, from MR offset 0x3000 */
	REQUIRE_EQ(bind(&d, kpd, QPN, k2, mr, MR_IOVA + 0x3000, 0x800,
			ORDMA_ACCESS_REMOTE_READ | ORDMA_ACCESS_ZERO_BASED),
		   FW_MR_OK);

	/* an lkey never names a window */
	CHECK_EQ(fw_mr_lookup(d.fw, k1, kpd, MR_IOVA + 0x1ff0, 1, 0, &m),
		 FW_MR_ERR_KEY);
	/* the MR's own rkey still works */
	CHECK_EQ(fw_mr_lookup_remote(d.fw, mr, kpd, 0, MR_IOVA, MR_LEN,
				     ORDMA_ACCESS_REMOTE_READ, &m), FW_MR_OK);
	CHECK_EQ(fw_mr_lookup_remote(d.fw, mw1, kpd, 0, MR_IOVA + 0x1ff0, 1, 0,
				     &m), FW_MR_ERR_KEY);
	CHECK_EQ(fw_mr_lookup_remote(d.fw, k1, upd, 0, MR_IOVA + 0x1ff0, 1, 0,
				     &m), FW_MR_ERR_PD);
	/* type 1 is usable from any QP of the PD */
	CHECK_EQ(fw_mr_lookup_remote(d.fw, k1, kpd, QPN + 1, MR_IOVA + 0x1ff0,
				     0x20, ORDMA_ACCESS_REMOTE_WRITE, &m),
		 FW_MR_OK);
	CHECK_EQ(fw_mr_lookup_remote(d.fw, k1, kpd, 0, MR_IOVA + 0x1fef, 2, 0,
				     &m), FW_MR_ERR_BOUNDS);
	CHECK_EQ(fw_mr_lookup_remote(d.fw, k1, kpd, 0, MR_IOVA + 0x2000, 0x11,
				     0, &m), FW_MR_ERR_BOUNDS);
	CHECK_EQ(fw_mr_lookup_remote(d.fw, k1, kpd, 0, MR_IOVA + 0x1ff0, 1,
				     ORDMA_ACCESS_REMOTE_READ, &m),
		 FW_MR_ERR_ACCESS);
	/* type 2: its QP only, addresses from 0 */
	CHECK_EQ(fw_mr_lookup_remote(d.fw, k2, kpd, QPN + 1, 0, 1,
				     ORDMA_ACCESS_REMOTE_READ, &m),
		 FW_MR_ERR_QP);
	CHECK_EQ(fw_mr_lookup_remote(d.fw, k2, kpd, QPN, MR_IOVA + 0x3000, 1,
				     ORDMA_ACCESS_REMOTE_READ, &m),
		 FW_MR_ERR_BOUNDS);
	CHECK_EQ(fw_mr_lookup_remote(d.fw, k2, kpd, QPN, 0x7ff, 2,
				     ORDMA_ACCESS_REMOTE_READ, &m),
		 FW_MR_ERR_BOUNDS);
	CHECK_EQ(fw_mr_lookup_remote(d.fw, k2, kpd, QPN, 0, 1,
				     ORDMA_ACCESS_REMOTE_WRITE, &m),
		 FW_MR_ERR_ACCESS);

	/* copies land in the MR where the window maps them */
	REQUIRE_EQ(fw_mr_lookup_remote(d.fw, k1, kpd, 0, MR_IOVA + 0x1ff0, 0x20,
				       ORDMA_ACCESS_REMOTE_WRITE, &m),
		   FW_MR_OK);
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(0xa0 + i);
	CHECK_EQ(fw_mr_copy_to(d.fw, m, MR_IOVA + 0x1ff0, buf, 0x20), 0);
	CHECK(!memcmp(drv_mem(&d, DRV_MR_ADDR + 0x1ff0, 0x20), buf, 0x20));
	/* one byte past the window is refused, even inside the MR */
	CHECK_EQ(fw_mr_copy_to(d.fw, m, MR_IOVA + 0x1ff1, buf, 0x20), -1);
	CHECK_EQ(fw_mr_dma(d.fw, m, MR_IOVA + 0x1ff8, &dma, &contig), 0);
	CHECK_EQ(dma, DRV_MR_ADDR + 0x1ff8);
	/* the MR's pages go on; the window ends 0x18 bytes further */
	CHECK_EQ(contig, 0x18);
	CHECK_EQ(fw_mr_dma(d.fw, m, MR_IOVA + 0x2000, &dma, &contig), 0);
	CHECK_EQ(contig, 0x10);
	CHECK_EQ(fw_mr_dma(d.fw, m, MR_IOVA + 0x2010, &dma, &contig), -1);

	host = drv_mem(&d, DRV_MR_ADDR + 0x3000, 0x800);
	for (i = 0; i < 0x800; i++)
		host[i] = (uint8_t)(i * 3);
	REQUIRE_EQ(fw_mr_lookup_remote(d.fw, k2, kpd, QPN, 0x7e0, 0x20,
				       ORDMA_ACCESS_REMOTE_READ, &m), FW_MR_OK);
	CHECK_EQ(fw_mr_copy_from(d.fw, m, 0x7e0, buf, 0x20), 0);
	CHECK(!memcmp(buf, host + 0x7e0, 0x20));
	drv_close(&d);
}

TEST(test_invalidate)
{
	uint32_t uctx, kpd, upd, mr, mw1, mw2, k1, k2, fr, idx;
	struct ordma_wqe_reg_mr frwr;
	struct ordma_aq_cmd cmd;
	struct fw_mr *m;
	uint64_t *pages;
	struct drv d;

	REQUIRE(setup(&d, &uctx, &kpd, &upd, RW | ORDMA_ACCESS_MW_BIND, &mr));
	REQUIRE_EQ(alloc_mw(&d, kpd, 0, ORDMA_MW_TYPE_1, 0x10, &mw1), OK);
	REQUIRE_EQ(alloc_mw(&d, kpd, 0, ORDMA_MW_TYPE_2, 0x20, &mw2), OK);
	k1 = next_key(mw1);
	k2 = next_key(mw2);
	REQUIRE_EQ(bind(&d, kpd, QPN, k1, mr, MR_IOVA, 64,
			ORDMA_ACCESS_REMOTE_WRITE), FW_MR_OK);
	REQUIRE_EQ(bind(&d, kpd, QPN, k2, mr, MR_IOVA, 64,
			ORDMA_ACCESS_REMOTE_WRITE), FW_MR_OK);

	/* IBTA: type 1 windows cannot be invalidated */
	CHECK_EQ(fw_rkey_invalidate(d.fw, k1, kpd, QPN, false),
		 FW_MR_ERR_TYPE);
	CHECK_EQ(fw_rkey_invalidate(d.fw, k1, kpd, QPN, true), FW_MR_ERR_TYPE);
	CHECK_EQ(fw_mr_lookup_remote(d.fw, k1, kpd, QPN, MR_IOVA, 64,
				     ORDMA_ACCESS_REMOTE_WRITE, &m), FW_MR_OK);
	/* type 2: key, PD, and (received) the QP it is bound to */
	CHECK_EQ(fw_rkey_invalidate(d.fw, mw2, kpd, QPN, false),
		 FW_MR_ERR_KEY);
	CHECK_EQ(fw_rkey_invalidate(d.fw, k2, upd, QPN, false), FW_MR_ERR_PD);
	CHECK_EQ(fw_rkey_invalidate(d.fw, k2, kpd, QPN + 1, true),
		 FW_MR_ERR_QP);
	CHECK_EQ(fw_mr_lookup_remote(d.fw, k2, kpd, QPN, MR_IOVA, 64,
				     ORDMA_ACCESS_REMOTE_WRITE, &m), FW_MR_OK);
	/* a local invalidate may come from another QP of the PD */
	CHECK_EQ(fw_rkey_invalidate(d.fw, k2, kpd, QPN + 1, false), FW_MR_OK);
	CHECK_EQ(fw_mr_lookup_remote(d.fw, k2, kpd, QPN, MR_IOVA, 1, 0, &m),
		 FW_MR_ERR_KEY);
	/* free again: a second invalidate finds no bound window */
	CHECK_EQ(fw_rkey_invalidate(d.fw, k2, kpd, QPN, false), FW_MR_ERR_KEY);
	/* and it binds again, on another QP */
	k2 = next_key(k2);
	CHECK_EQ(bind(&d, kpd, QPN + 1, k2, mr, MR_IOVA, 64,
		      ORDMA_ACCESS_REMOTE_WRITE), FW_MR_OK);
	CHECK_EQ(fw_rkey_invalidate(d.fw, k2, kpd, QPN + 1, true), FW_MR_OK);
	/* only type 1 holds mr now */
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEREG_MR, mr, 0),
		 ORDMA_CMD_STATUS_BUSY);
	CHECK_EQ(bind(&d, kpd, QPN, next_key(k1), 0, 0, 0, 0), FW_MR_OK);

	/* a fast-reg MR with a window stays valid until the window goes */
	drv_cmd_init(&cmd, ORDMA_CMD_REG_MR);
	cmd.reg_mr.pdn = cpu_to_le32(kpd);
	cmd.reg_mr.flags = ORDMA_MR_FAST_REG;
	cmd.reg_mr.max_pages = cpu_to_le16(2);
	cmd.reg_mr.key = 0x40;
	REQUIRE_EQ(drv_exec(&d, &cmd), OK);
	idx = FIELD_GET(ORDMA_KEY_INDEX,
			le32_to_cpu(d.last_comp.handle.handle));
	fr = idx << 8 | 0x41;
	pages = (uint64_t *)(void *)drv_mem(&d, DRV_SCRATCH_ADDR, 16);
	pages[0] = cpu_to_le64(DRV_MR_ADDR);
	pages[1] = cpu_to_le64(DRV_MR_ADDR + 0x1000);
	memset(&frwr, 0, sizeof(frwr));
	frwr.iova = cpu_to_le64(0x9000000ULL);
	frwr.length = cpu_to_le64(0x2000);
	frwr.page_list = cpu_to_le64(DRV_SCRATCH_ADDR);
	frwr.key = cpu_to_le32(fr);
	frwr.num_pages = cpu_to_le16(2);
	frwr.page_shift = 12;
	frwr.access = ORDMA_ACCESS_LOCAL_WRITE | ORDMA_ACCESS_MW_BIND;
	REQUIRE_EQ(fw_mr_fast_register(d.fw, kpd, &frwr), FW_MR_OK);
	k2 = next_key(k2);
	CHECK_EQ(bind(&d, kpd, QPN, k2, fr, 0x9000000ULL, 0x2000,
		      ORDMA_ACCESS_REMOTE_WRITE), FW_MR_OK);
	CHECK_EQ(fw_rkey_invalidate(d.fw, fr, kpd, QPN, false),
		 FW_MR_ERR_BUSY);
	CHECK_EQ(fw_mr_lookup_remote(d.fw, k2, kpd, QPN, 0x9000000ULL, 0x2000,
				     ORDMA_ACCESS_REMOTE_WRITE, &m), FW_MR_OK);
	/* a window cannot be fast-registered */
	frwr.key = cpu_to_le32(k1);
	CHECK_EQ(fw_mr_fast_register(d.fw, kpd, &frwr), FW_MR_ERR_KEY);
	/* the QP going away frees its type 2 windows */
	fw_mw_qp_destroyed(d.fw, QPN + 1);
	CHECK_EQ(fw_mr_lookup_remote(d.fw, k2, kpd, QPN, 0x9000000ULL, 1, 0,
				     &m), FW_MR_OK);
	fw_mw_qp_destroyed(d.fw, QPN);
	CHECK_EQ(fw_mr_lookup_remote(d.fw, k2, kpd, QPN, 0x9000000ULL, 1, 0,
				     &m), FW_MR_ERR_KEY);
	CHECK_EQ(fw_rkey_invalidate(d.fw, fr, kpd, QPN, false), FW_MR_OK);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEREG_MR, mr, 0), OK);
	drv_close(&d);
}

/* REG_MR with REREG over a page list at bus address addr */
static uint8_t rereg(struct drv *d, uint32_t key, uint32_t pdn, uint32_t uctx,
		     uint64_t iova, uint64_t addr, uint64_t length,
		     uint32_t access)
{
	struct ordma_aq_cmd cmd;

	drv_cmd_init(&cmd, ORDMA_CMD_REG_MR);
	cmd.reg_mr.pdn = cpu_to_le32(pdn);
	cmd.reg_mr.uctx = cpu_to_le32(uctx);
	cmd.reg_mr.iova = cpu_to_le64(iova);
	cmd.reg_mr.length = cpu_to_le64(length);
	drv_page_list_contig(&cmd.reg_mr.pages, addr, (iova & 4095) + length);
	cmd.reg_mr.access = cpu_to_le32(access);
	cmd.reg_mr.flags = ORDMA_MR_REREG;
	cmd.reg_mr.rereg_key = cpu_to_le32(key);
	return drv_exec(d, &cmd);
}

/*
 * REREG of an MR with bound windows is refused: the windows would keep
 * their rights (REMOTE_WRITE here) over the new pages, which a driver
 * may have pinned read-only for a read-only MR.  The MR and the windows
 * are unchanged; once the windows are gone the REREG goes through.
 * REREG never takes a window's key.
 */
TEST(test_rereg_with_windows)
{
	const uint64_t new_addr = DRV_MR_ADDR + 0x10000;
	uint32_t uctx, kpd, upd, mr, umr, mw1, mw2, umw, k1, k2;
	uint64_t dma, contig;
	struct fw_mr *m;
	struct drv d;

	REQUIRE(setup(&d, &uctx, &kpd, &upd, RW | ORDMA_ACCESS_MW_BIND, &mr));
	REQUIRE_EQ(alloc_mw(&d, kpd, 0, ORDMA_MW_TYPE_1, 0x10, &mw1), OK);
	REQUIRE_EQ(alloc_mw(&d, kpd, 0, ORDMA_MW_TYPE_2, 0x20, &mw2), OK);
	k1 = next_key(mw1);
	k2 = next_key(mw2);
	REQUIRE_EQ(bind(&d, kpd, QPN, k1, mr, MR_IOVA, 0x1000,
			ORDMA_ACCESS_REMOTE_WRITE), FW_MR_OK);

	/* new pages, read only: refused while the window is bound */
	CHECK_EQ(rereg(&d, mr, kpd, 0, MR_IOVA, new_addr, MR_LEN,
		       ORDMA_ACCESS_REMOTE_READ | ORDMA_ACCESS_MW_BIND),
		 ORDMA_CMD_STATUS_BUSY);
	/* even the same translation and access */
	CHECK_EQ(rereg(&d, mr, kpd, 0, MR_IOVA, DRV_MR_ADDR, MR_LEN,
		       RW | ORDMA_ACCESS_MW_BIND), ORDMA_CMD_STATUS_BUSY);
	/* a window's key names no MR */
	CHECK_EQ(rereg(&d, k1, kpd, 0, MR_IOVA, new_addr, MR_LEN,
		       ORDMA_ACCESS_REMOTE_READ), ORDMA_CMD_STATUS_BAD_HANDLE);
	CHECK_EQ(rereg(&d, mw2, kpd, 0, MR_IOVA, new_addr, MR_LEN,
		       ORDMA_ACCESS_REMOTE_READ), ORDMA_CMD_STATUS_BAD_HANDLE);
	/* nothing changed: the window still writes the old pages, the MR
	 * still has its rights and its PD
	 */
	REQUIRE_EQ(fw_mr_lookup_remote(d.fw, k1, kpd, QPN, MR_IOVA, 0x1000,
				       ORDMA_ACCESS_REMOTE_WRITE, &m),
		   FW_MR_OK);
	CHECK_EQ(fw_mr_copy_to(d.fw, m, MR_IOVA + 8, "window", 6), 0);
	CHECK(!memcmp(drv_mem(&d, DRV_MR_ADDR + 8, 6), "window", 6));
	CHECK_EQ(fw_mr_lookup(d.fw, mr, kpd, MR_IOVA, MR_LEN,
			      ORDMA_ACCESS_LOCAL_WRITE, &m), FW_MR_OK);
	CHECK_EQ(fw_mr_lookup(d.fw, k1, kpd, MR_IOVA, 1, 0, &m),
		 FW_MR_ERR_KEY);
	/* the window's entry did not become an MR */
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEREG_MR, k1, 0),
		 ORDMA_CMD_STATUS_BAD_HANDLE);

	/* a type 2 window holds the MR the same way */
	CHECK_EQ(bind(&d, kpd, QPN, next_key(k1), 0, 0, 0, 0), FW_MR_OK);
	REQUIRE_EQ(bind(&d, kpd, QPN, k2, mr, MR_IOVA, 64,
			ORDMA_ACCESS_REMOTE_READ | ORDMA_ACCESS_ZERO_BASED),
		   FW_MR_OK);
	CHECK_EQ(rereg(&d, mr, kpd, 0, MR_IOVA, new_addr, MR_LEN,
		       ORDMA_ACCESS_REMOTE_READ | ORDMA_ACCESS_MW_BIND),
		 ORDMA_CMD_STATUS_BUSY);
	CHECK_EQ(fw_rkey_invalidate(d.fw, k2, kpd, QPN, false), FW_MR_OK);

	/* no window left: the REREG goes through and keeps the key */
	CHECK_EQ(rereg(&d, mr, kpd, 0, MR_IOVA, new_addr, MR_LEN,
		       ORDMA_ACCESS_REMOTE_READ | ORDMA_ACCESS_MW_BIND), OK);
	CHECK_EQ(le32_to_cpu(d.last_comp.handle.handle), mr);
	REQUIRE_EQ(fw_mr_lookup_remote(d.fw, mr, kpd, QPN, MR_IOVA, 1,
				       ORDMA_ACCESS_REMOTE_READ, &m),
		   FW_MR_OK);
	CHECK_EQ(fw_mr_dma(d.fw, m, MR_IOVA, &dma, &contig), 0);
	CHECK_EQ(dma, new_addr);
	CHECK_EQ(fw_mr_lookup_remote(d.fw, mr, kpd, QPN, MR_IOVA, 1,
				     ORDMA_ACCESS_REMOTE_WRITE, &m),
		 FW_MR_ERR_ACCESS);

	/* a user MR with a user window: the same rule */
	REQUIRE_EQ(drv_reg_mr_contig(&d, upd, uctx, MR_IOVA, DRV_MR_ADDR,
				     MR_LEN, RW | ORDMA_ACCESS_MW_BIND, 0x22,
				     &umr), OK);
	REQUIRE_EQ(alloc_mw(&d, upd, uctx, ORDMA_MW_TYPE_1, 0x30, &umw), OK);
	REQUIRE_EQ(bind(&d, upd, QPN, next_key(umw), umr, MR_IOVA, 0x1000,
			ORDMA_ACCESS_REMOTE_WRITE), FW_MR_OK);
	CHECK_EQ(rereg(&d, umr, upd, uctx, MR_IOVA, new_addr, MR_LEN,
		       ORDMA_ACCESS_REMOTE_READ | ORDMA_ACCESS_MW_BIND),
		 ORDMA_CMD_STATUS_BUSY);
	CHECK_EQ(rereg(&d, next_key(umw), upd, uctx, MR_IOVA, new_addr, MR_LEN,
		       ORDMA_ACCESS_REMOTE_READ), ORDMA_CMD_STATUS_BAD_HANDLE);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEALLOC_MW, umw, uctx), OK);
	CHECK_EQ(rereg(&d, umr, upd, uctx, MR_IOVA, new_addr, MR_LEN,
		       ORDMA_ACCESS_REMOTE_READ | ORDMA_ACCESS_MW_BIND), OK);
	drv_close(&d);
}

/*
 * FLUSH rights on a window, only where the MR grants them; a FLUSH at
 * MR level through a window covers the window, not the MR.
 */
TEST(test_window_flush_rights)
{
	const uint32_t glob = ORDMA_ACCESS_FLUSH_GLOBAL;
	uint32_t uctx, kpd, upd, mr, plain, mw1, mw2, k1, k2;
	uint64_t iova, len;
	struct fw_mr *m;
	struct drv d;

	REQUIRE(setup(&d, &uctx, &kpd, &upd,
		      RW | ORDMA_ACCESS_MW_BIND | glob, &mr));
	REQUIRE_EQ(drv_reg_mr_contig(&d, kpd, 0, MR_IOVA, DRV_MR_ADDR, MR_LEN,
				     RW | ORDMA_ACCESS_MW_BIND, 0x31, &plain),
		   OK);
	REQUIRE_EQ(alloc_mw(&d, kpd, 0, ORDMA_MW_TYPE_1, 0x10, &mw1), OK);
	REQUIRE_EQ(alloc_mw(&d, kpd, 0, ORDMA_MW_TYPE_2, 0x20, &mw2), OK);
	k1 = next_key(mw1);
	k2 = next_key(mw2);
	/* the MR does not grant FLUSH_PERSISTENT, plain no FLUSH at all */
	CHECK_EQ(bind(&d, kpd, QPN, k1, mr, MR_IOVA, 64,
		      ORDMA_ACCESS_FLUSH_PERSISTENT), FW_MR_ERR_ACCESS);
	CHECK_EQ(bind(&d, kpd, QPN, k1, plain, MR_IOVA, 64, glob),
		 FW_MR_ERR_ACCESS);
	CHECK_EQ(bind(&d, kpd, QPN, k1, mr, MR_IOVA + 0x100, 0x200,
		      glob | ORDMA_ACCESS_REMOTE_WRITE), FW_MR_OK);
	CHECK_EQ(fw_mr_lookup_remote(d.fw, k1, kpd, QPN, MR_IOVA + 0x100,
				     0x200, glob, &m), FW_MR_OK);
	CHECK_EQ(fw_mr_lookup_remote(d.fw, k1, kpd, QPN, MR_IOVA + 0x100,
				     0x200, ORDMA_ACCESS_FLUSH_PERSISTENT, &m),
		 FW_MR_ERR_ACCESS);
	iova = len = 0;
	CHECK_EQ(fw_mr_lookup_remote_whole(d.fw, k1, kpd, QPN + 1, glob, &m,
					   &iova, &len), FW_MR_OK);
	CHECK_EQ(iova, MR_IOVA + 0x100);
	CHECK_EQ(len, 0x200);
	/* zero based type 2: [0, length), its QP only, its rights only */
	REQUIRE_EQ(bind(&d, kpd, QPN, k2, mr, MR_IOVA + 0x800, 0x400,
			ORDMA_ACCESS_ZERO_BASED | ORDMA_ACCESS_REMOTE_READ),
		   FW_MR_OK);
	CHECK_EQ(fw_mr_lookup_remote_whole(d.fw, k2, kpd, QPN + 1,
					   ORDMA_ACCESS_REMOTE_READ, &m, &iova,
					   &len), FW_MR_ERR_QP);
	CHECK_EQ(fw_mr_lookup_remote_whole(d.fw, k2, kpd, QPN, glob, &m, &iova,
					   &len), FW_MR_ERR_ACCESS);
	CHECK_EQ(fw_mr_lookup_remote_whole(d.fw, k2, upd, QPN,
					   ORDMA_ACCESS_REMOTE_READ, &m, &iova,
					   &len), FW_MR_ERR_PD);
	CHECK_EQ(fw_mr_lookup_remote_whole(d.fw, mw2, kpd, QPN,
					   ORDMA_ACCESS_REMOTE_READ, &m, &iova,
					   &len), FW_MR_ERR_KEY);
	CHECK_EQ(fw_mr_lookup_remote_whole(d.fw, k2, kpd, QPN,
					   ORDMA_ACCESS_REMOTE_READ, &m, &iova,
					   &len), FW_MR_OK);
	CHECK_EQ(iova, 0);
	CHECK_EQ(len, 0x400);
	/* an MR key: the whole MR */
	CHECK_EQ(fw_mr_lookup_remote_whole(d.fw, mr, kpd, QPN, glob, &m, &iova,
					   &len), FW_MR_OK);
	CHECK_EQ(iova, MR_IOVA);
	CHECK_EQ(len, MR_LEN);
	drv_close(&d);
}

/*
 * The target of an 8-byte atomic is aligned where it lands in memory: a
 * zero-based window bound at an MR address that is not 8-byte aligned
 * has aligned window addresses whose bytes straddle a page boundary.
 */
TEST(test_atomic_target_alignment)
{
	uint32_t uctx, kpd, upd, mr, mw1, mw2, k1, k2;
	uint64_t dma;
	struct fw_mr *m;
	struct drv d;

	REQUIRE(setup(&d, &uctx, &kpd, &upd, RW | ORDMA_ACCESS_MW_BIND |
		      ORDMA_ACCESS_REMOTE_ATOMIC, &mr));
	REQUIRE_EQ(alloc_mw(&d, kpd, 0, ORDMA_MW_TYPE_1, 0x10, &mw1), OK);
	REQUIRE_EQ(alloc_mw(&d, kpd, 0, ORDMA_MW_TYPE_2, 0x20, &mw2), OK);
	k1 = next_key(mw1);
	k2 = next_key(mw2);
	/* window offset 0x10 is MR offset 0xffc: 4 bytes in each page */
	REQUIRE_EQ(bind(&d, kpd, QPN, k2, mr, MR_IOVA + 0xfec, 0x40,
			ORDMA_ACCESS_ZERO_BASED | ORDMA_ACCESS_REMOTE_ATOMIC),
		   FW_MR_OK);
	REQUIRE_EQ(fw_mr_lookup_remote(d.fw, k2, kpd, QPN, 0x10, 8,
				       ORDMA_ACCESS_REMOTE_ATOMIC, &m),
		   FW_MR_OK);
	CHECK_EQ(fw_mr_atomic_dma(d.fw, m, 0x10, &dma), FW_MR_ERR_ALIGN);
	CHECK_EQ(fw_mr_atomic_dma(d.fw, m, 0x0, &dma), FW_MR_ERR_ALIGN);
	/* past the window end */
	CHECK_EQ(fw_mr_atomic_dma(d.fw, m, 0x40, &dma), FW_MR_ERR_BOUNDS);
	CHECK_EQ(fw_mr_atomic_dma(d.fw, m, 0x3c, &dma), FW_MR_ERR_BOUNDS);
	/* a type 1 window and the MR: the VA is the address */
	REQUIRE_EQ(bind(&d, kpd, QPN, k1, mr, MR_IOVA + 0xff8, 0x10,
			ORDMA_ACCESS_REMOTE_ATOMIC), FW_MR_OK);
	REQUIRE_EQ(fw_mr_lookup_remote(d.fw, k1, kpd, QPN, MR_IOVA + 0x1000, 8,
				       ORDMA_ACCESS_REMOTE_ATOMIC, &m),
		   FW_MR_OK);
	CHECK_EQ(fw_mr_atomic_dma(d.fw, m, MR_IOVA + 0x1000, &dma), FW_MR_OK);
	CHECK_EQ(dma, DRV_MR_ADDR + 0x1000);
	CHECK_EQ(fw_mr_atomic_dma(d.fw, m, MR_IOVA + 0xffc, &dma),
		 FW_MR_ERR_ALIGN);
	REQUIRE_EQ(fw_mr_lookup_remote(d.fw, mr, kpd, QPN, MR_IOVA + 0xff8, 8,
				       ORDMA_ACCESS_REMOTE_ATOMIC, &m),
		   FW_MR_OK);
	CHECK_EQ(fw_mr_atomic_dma(d.fw, m, MR_IOVA + 0xff8, &dma), FW_MR_OK);
	CHECK_EQ(dma, DRV_MR_ADDR + 0xff8);
	drv_close(&d);
}

/* A reset forgets every window and every binding. */
TEST(test_reset_forgets_windows)
{
	uint32_t uctx, kpd, upd, mr, mw;
	struct drv d;

	REQUIRE(setup(&d, &uctx, &kpd, &upd, RW | ORDMA_ACCESS_MW_BIND, &mr));
	REQUIRE_EQ(alloc_mw(&d, kpd, 0, ORDMA_MW_TYPE_1, 0x10, &mw), OK);
	REQUIRE_EQ(bind(&d, kpd, QPN, next_key(mw), mr, MR_IOVA, 64,
			ORDMA_ACCESS_REMOTE_WRITE), FW_MR_OK);
	fw_mr_reset(d.fw);
	CHECK_EQ(drv_handle_cmd(&d, ORDMA_CMD_DEALLOC_MW, mw, 0),
		 ORDMA_CMD_STATUS_BAD_HANDLE);
	CHECK_EQ(bind(&d, kpd, QPN, next_key(mw), mr, MR_IOVA, 64, 0),
		 FW_MR_ERR_KEY);
	drv_close(&d);
}

/*
 * An iWARP port: a window granting atomics or FLUSH is a bad BIND_MW
 * (the same bind on a RoCE port is taken); remote read and write bind.
 */
TEST(test_bind_mw_iwarp_access)
{
	uint32_t uctx, kpd, upd, mr, rkey;
	unsigned int proto;
	struct drv d;

	for (proto = ORDMA_PORT_PROTO_ROCE; proto <= ORDMA_PORT_PROTO_IWARP;
	     proto++) {
		int want = proto == ORDMA_PORT_PROTO_IWARP ? FW_MR_ERR_PARAM :
							     FW_MR_OK;

		REQUIRE(drv_open(&d, 5));
		REQUIRE_EQ(drv_set_rdma_protocol(&d, (uint8_t)proto), OK);
		memset(drv_mem(&d, DRV_MR_ADDR, DRV_MR_SIZE), 0, DRV_MR_SIZE);
		REQUIRE_EQ(drv_alloc_uctx(&d, &uctx), OK);
		REQUIRE_EQ(drv_alloc_pd(&d, 0, &kpd), OK);
		REQUIRE_EQ(drv_alloc_pd(&d, uctx, &upd), OK);
		REQUIRE_EQ(drv_reg_mr_contig(&d, kpd, 0, MR_IOVA, DRV_MR_ADDR,
					     MR_LEN, RW | ORDMA_ACCESS_MW_BIND,
					     0x21, &mr), OK);
		REQUIRE_EQ(alloc_mw(&d, kpd, 0, ORDMA_MW_TYPE_1, 0x01, &rkey),
			   OK);
		rkey = next_key(rkey);
		CHECK_EQ(bind(&d, kpd, QPN, rkey, mr, MR_IOVA, 0x100,
			      ORDMA_ACCESS_REMOTE_ATOMIC), want);
		rkey = next_key(rkey);
		CHECK_EQ(bind(&d, kpd, QPN, rkey, mr, MR_IOVA, 0x100,
			      ORDMA_ACCESS_REMOTE_WRITE |
			      ORDMA_ACCESS_FLUSH_GLOBAL),
			 proto == ORDMA_PORT_PROTO_IWARP ? FW_MR_ERR_PARAM :
			 FW_MR_ERR_ACCESS);
		rkey = next_key(rkey);
		CHECK_EQ(bind(&d, kpd, QPN, rkey, mr, MR_IOVA, 0x100,
			      ORDMA_ACCESS_REMOTE_WRITE |
			      ORDMA_ACCESS_REMOTE_READ), FW_MR_OK);
		drv_close(&d);
	}
}
