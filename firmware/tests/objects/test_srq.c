// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Shared receive queues: CREATE/MODIFY/DESTROY_SRQ validation, the limit
 * event and its re-arming, QPs on an SRQ (no RQ, LAST_WQE on error),
 * references and the SRQ doorbell.
 */
#include <string.h>

#include "objects/fw_qp.h"
#include "drv.h"
#include "ordma_test.h"

#define OK		ORDMA_CMD_STATUS_OK
#define BAD_PARAM	ORDMA_CMD_STATUS_BAD_PARAM
#define BAD_HANDLE	ORDMA_CMD_STATUS_BAD_HANDLE
#define SRQ_AREA	6
#define QP_AREA		7
#define CP(field)	(64 + offsetof(struct ordma_qp_create_params, field))

struct srq_env {
	struct drv d;
	struct drv_eq async, comp;
	struct drv_cq cq;
	uint32_t uctx, pdn;
};

static bool srq_env_open(struct srq_env *e)
{
	memset(e, 0, sizeof(*e));
	if (!drv_open(&e->d, 4))
		return false;
	if (!drv_eq_open(&e->d, &e->async, ORDMA_EQ_TYPE_ASYNC, 0, 6) ||
	    !drv_eq_open(&e->d, &e->comp, ORDMA_EQ_TYPE_COMP, 1, 6) ||
	    drv_alloc_uctx(&e->d, &e->uctx) != OK ||
	    drv_alloc_pd(&e->d, e->uctx, &e->pdn) != OK ||
	    !drv_cq_open(&e->d, &e->cq, 0, e->uctx, e->comp.eqn, 6)) {
		drv_close(&e->d);
		return false;
	}
	return true;
}

static uint8_t srq_cmd(struct srq_env *e, struct ordma_aq_cmd *cmd,
		       unsigned int log_size, uint32_t limit)
{
	drv_cmd_init(cmd, ORDMA_CMD_CREATE_SRQ);
	cmd->create_srq.uctx = cpu_to_le32(e->uctx);
	cmd->create_srq.pdn = cpu_to_le32(e->pdn);
	drv_page_list_contig(&cmd->create_srq.ring, DRV_WQ_ADDR(SRQ_AREA),
			     (uint64_t)32 << log_size);
	cmd->create_srq.log_size = (uint8_t)log_size;
	cmd->create_srq.wqe_shift = 5;
	cmd->create_srq.limit = cpu_to_le32(limit);
	return OK;
}

static uint8_t modify_srq(struct srq_env *e, uint32_t srqn, uint32_t uctx,
			  uint32_t limit)
{
	struct ordma_aq_cmd cmd;

	drv_cmd_init(&cmd, ORDMA_CMD_MODIFY_SRQ);
	cmd.modify_srq.srqn = cpu_to_le32(srqn);
	cmd.modify_srq.uctx = cpu_to_le32(uctx);
	cmd.modify_srq.limit = cpu_to_le32(limit);
	return drv_exec(&e->d, &cmd);
}

static uint8_t srq_qp_create(struct srq_env *e, uint32_t srqn, uint8_t type,
			     uint32_t *qpn)
{
	struct ordma_qp_create_params p;

	drv_qp_params(&p, e->uctx, e->pdn, type, e->cq.cqn, e->cq.cqn, srqn,
		      QP_AREA);
	return drv_create_qp(&e->d, &p, qpn);
}

static bool next_event(struct srq_env *e, unsigned int type,
		       struct ordma_eqe *eqe)
{
	while (drv_eq_next(&e->d, &e->async, eqe))
		if (FIELD_GET(ORDMA_EQE_TYPE, le32_to_cpu(eqe->type)) == type)
			return true;
	return false;
}

TEST(test_srq_create_validation)
{
	struct ordma_aq_cmd cmd;
	struct srq_env e;
	uint32_t other, other_pd, srqn, n;

	REQUIRE(srq_env_open(&e));
	srq_cmd(&e, &cmd, 4, 0);
	cmd.create_srq.log_size = 0;
	CHECK_EQ(drv_exec(&e.d, &cmd), BAD_PARAM);
	CHECK_EQ(drv_syndrome(&e.d), 32);
	cmd.create_srq.log_size = 13;
	CHECK_EQ(drv_exec(&e.d, &cmd), BAD_PARAM);
	CHECK_EQ(drv_syndrome(&e.d), 32);
	srq_cmd(&e, &cmd, 4, 0);
	cmd.create_srq.wqe_shift = 4;	/* header only, no SGE */
	CHECK_EQ(drv_exec(&e.d, &cmd), BAD_PARAM);
	CHECK_EQ(drv_syndrome(&e.d), 33);
	cmd.create_srq.wqe_shift = 9;
	CHECK_EQ(drv_exec(&e.d, &cmd), BAD_PARAM);
	CHECK_EQ(drv_syndrome(&e.d), 33);
	srq_cmd(&e, &cmd, 4, 17);
	CHECK_EQ(drv_exec(&e.d, &cmd), BAD_PARAM);
	CHECK_EQ(drv_syndrome(&e.d), 36);
	srq_cmd(&e, &cmd, 4, 0);
	cmd.create_srq.cqn = cpu_to_le32(1);
	CHECK_EQ(drv_exec(&e.d, &cmd), BAD_PARAM);
	CHECK_EQ(drv_syndrome(&e.d), 40);
	srq_cmd(&e, &cmd, 4, 0);
	cmd.create_srq.reserved_26 = cpu_to_le16(1);
	CHECK_EQ(drv_exec(&e.d, &cmd), BAD_PARAM);
	CHECK_EQ(drv_syndrome(&e.d), 34);
	srq_cmd(&e, &cmd, 4, 0);
	cmd.create_srq.reserved_36 = cpu_to_le32(1);
	CHECK_EQ(drv_exec(&e.d, &cmd), BAD_PARAM);
	CHECK_EQ(drv_syndrome(&e.d), 44);
	srq_cmd(&e, &cmd, 4, 0);
	cmd.create_srq.ring.reserved_14 = cpu_to_le16(1);
	CHECK_EQ(drv_exec(&e.d, &cmd), BAD_PARAM);
	CHECK_EQ(drv_syndrome(&e.d), 30);
	srq_cmd(&e, &cmd, 8, 0);	/* 256 x 32 bytes: two pages */
	cmd.create_srq.ring.num_pages = cpu_to_le32(1);
	CHECK_EQ(drv_exec(&e.d, &cmd), BAD_PARAM);
	CHECK_EQ(drv_syndrome(&e.d), 24);
	srq_cmd(&e, &cmd, 4, 0);
	cmd.create_srq.ring.addr = cpu_to_le64(DRV_WQ_ADDR(SRQ_AREA) + 32);
	CHECK_EQ(drv_exec(&e.d, &cmd), BAD_PARAM);
	CHECK_EQ(drv_syndrome(&e.d), 16);
	cmd.raw[40] = 1;		/* trailing byte 48 */
	CHECK_EQ(drv_exec(&e.d, &cmd), BAD_PARAM);
	CHECK_EQ(drv_syndrome(&e.d), 48);

	srq_cmd(&e, &cmd, 4, 0);
	cmd.create_srq.uctx = cpu_to_le32(99);
	CHECK_EQ(drv_exec(&e.d, &cmd), BAD_HANDLE);
	srq_cmd(&e, &cmd, 4, 0);
	cmd.create_srq.pdn = cpu_to_le32(500);
	CHECK_EQ(drv_exec(&e.d, &cmd), BAD_HANDLE);
	REQUIRE_EQ(drv_alloc_uctx(&e.d, &other), OK);
	REQUIRE_EQ(drv_alloc_pd(&e.d, other, &other_pd), OK);
	srq_cmd(&e, &cmd, 4, 0);
	cmd.create_srq.pdn = cpu_to_le32(other_pd);
	CHECK_EQ(drv_exec(&e.d, &cmd), ORDMA_CMD_STATUS_PERM);

	/* 1..256, then no more; 4096 entries is the largest */
	srq_cmd(&e, &cmd, 12, 4096);
	cmd.create_srq.ring.num_pages = cpu_to_le32(32);
	CHECK_EQ(drv_exec(&e.d, &cmd), OK);
	CHECK_EQ(le32_to_cpu(e.d.last_comp.handle.handle), 1);
	for (n = 2; n <= FW_MAX_SRQ; n++) {
		if (!CHECK_EQ(drv_create_srq(&e.d, e.uctx, e.pdn, 4, 0,
					     SRQ_AREA, &srqn), OK))
			break;
		CHECK_EQ(srqn, n);
	}
	CHECK_EQ(drv_create_srq(&e.d, e.uctx, e.pdn, 4, 0, SRQ_AREA, &srqn),
		 ORDMA_CMD_STATUS_NO_RESOURCES);
	CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DEALLOC_PD, e.pdn, e.uctx),
		 ORDMA_CMD_STATUS_BUSY);
	for (n = 1; n <= FW_MAX_SRQ; n++)
		if (!CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DESTROY_SRQ, n,
					     e.uctx), OK))
			break;
	CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DEALLOC_PD, e.pdn, e.uctx), OK);
	drv_close(&e.d);
}

TEST(test_srq_limit_event)
{
	struct ordma_recv_wqe *wqe;
	struct ordma_eqe eqe;
	uint8_t buf[32];
	struct fw_srq *srq;
	struct srq_env e;
	uint32_t srqn, idx, i;

	REQUIRE(srq_env_open(&e));
	memset(drv_mem(&e.d, DRV_WQ_ADDR(SRQ_AREA), 0x10000), 0, 0x10000);
	REQUIRE_EQ(drv_create_srq(&e.d, e.uctx, e.pdn, 4, 8, SRQ_AREA, &srqn),
		   OK);
	srq = fw_srq_lookup(e.d.fw, srqn);
	REQUIRE(srq != NULL);
	for (i = 0; i < 16; i++) {
		wqe = drv_mem(&e.d, DRV_WQ_ADDR(SRQ_AREA) + i * 32, 32);
		wqe->num_sge = cpu_to_le32(i);
	}
	drv_db(&e.d, e.uctx, ORDMA_DB_SRQ, srqn, 10, 0);
	CHECK_EQ(srq->wq.pi, 10);

	/* 10 posted, limit 8: the event comes when fewer than 8 are left */
	for (i = 0; i < 2; i++) {
		CHECK_EQ(fw_srq_take(e.d.fw, srq, buf, sizeof(buf), &idx), 0);
		CHECK_EQ(idx, i);
		CHECK_EQ(le32_to_cpu(((struct ordma_recv_wqe *)buf)->num_sge), i);
	}
	CHECK(!next_event(&e, ORDMA_EQE_SRQ_LIMIT, &eqe));
	CHECK_EQ(fw_srq_take(e.d.fw, srq, buf, sizeof(buf), &idx), 0);
	CHECK(next_event(&e, ORDMA_EQE_SRQ_LIMIT, &eqe));
	CHECK_EQ(le32_to_cpu(eqe.data[0]), srqn);
	/* once: disarmed until MODIFY_SRQ */
	CHECK_EQ(fw_srq_take(e.d.fw, srq, buf, sizeof(buf), &idx), 0);
	CHECK(!next_event(&e, ORDMA_EQE_SRQ_LIMIT, &eqe));
	CHECK_EQ(srq->limit, 0);

	/* re-arm at 3: 6 left now */
	CHECK_EQ(modify_srq(&e, srqn, e.uctx, 3), OK);
	for (i = 0; i < 3; i++)
		CHECK_EQ(fw_srq_take(e.d.fw, srq, buf, sizeof(buf), &idx), 0);
	CHECK(!next_event(&e, ORDMA_EQE_SRQ_LIMIT, &eqe));
	CHECK_EQ(fw_srq_take(e.d.fw, srq, buf, sizeof(buf), &idx), 0);
	CHECK_EQ(idx, 7);
	CHECK(next_event(&e, ORDMA_EQE_SRQ_LIMIT, &eqe));
	/* limit 0 disarms */
	CHECK_EQ(modify_srq(&e, srqn, e.uctx, 0), OK);
	CHECK_EQ(fw_srq_take(e.d.fw, srq, buf, sizeof(buf), &idx), 0);
	CHECK_EQ(fw_srq_take(e.d.fw, srq, buf, sizeof(buf), &idx), 0);
	CHECK(!next_event(&e, ORDMA_EQE_SRQ_LIMIT, &eqe));
	/* empty: nothing to take; posting more wraps the slots */
	CHECK_EQ(fw_srq_take(e.d.fw, srq, buf, sizeof(buf), &idx), -1);
	drv_db(&e.d, e.uctx, ORDMA_DB_SRQ, srqn, 26, 0);
	for (i = 10; i < 26; i++) {
		if (!CHECK_EQ(fw_srq_take(e.d.fw, srq, buf, sizeof(buf), &idx), 0))
			break;
		CHECK_EQ(idx, i % 16);
	}

	/* MODIFY_SRQ checks */
	CHECK_EQ(modify_srq(&e, srqn, e.uctx, 17), BAD_PARAM);
	CHECK_EQ(drv_syndrome(&e.d), 16);
	CHECK_EQ(modify_srq(&e, srqn, 0, 1), ORDMA_CMD_STATUS_PERM);
	CHECK_EQ(modify_srq(&e, srqn + 1, e.uctx, 1), BAD_HANDLE);
	CHECK_EQ(modify_srq(&e, 0, e.uctx, 1), BAD_HANDLE);
	CHECK_EQ(srq->limit, 0);
	drv_close(&e.d);
}

TEST(test_srq_with_qps)
{
	struct ordma_qp_create_params p;
	struct ordma_qp_attr a;
	struct ordma_cqe cqe;
	struct ordma_eqe eqe;
	struct srq_env e;
	uint8_t buf[32];
	uint32_t srqn, qpn, qpn2, idx, errors;

	REQUIRE(srq_env_open(&e));
	REQUIRE_EQ(drv_create_srq(&e.d, e.uctx, e.pdn, 4, 0, SRQ_AREA, &srqn),
		   OK);
	/* a QP on an SRQ describes no RQ */
	drv_qp_params(&p, e.uctx, e.pdn, ORDMA_QPT_RC, e.cq.cqn, e.cq.cqn,
		      srqn, QP_AREA);
	p.rq_log_size = 4;
	CHECK_EQ(drv_create_qp(&e.d, &p, &qpn), BAD_PARAM);
	CHECK_EQ(drv_syndrome(&e.d), CP(rq_log_size));
	p.rq_log_size = 0;
	p.rq_wqe_shift = 5;
	CHECK_EQ(drv_create_qp(&e.d, &p, &qpn), BAD_PARAM);
	CHECK_EQ(drv_syndrome(&e.d), CP(rq_wqe_shift));
	p.rq_wqe_shift = 0;
	p.rq.page_shift = 12;
	CHECK_EQ(drv_create_qp(&e.d, &p, &qpn), BAD_PARAM);
	CHECK_EQ(drv_syndrome(&e.d), CP(rq.page_shift));
	p.rq.page_shift = 0;
	/* the objects belong to the user context */
	p.uctx = 0;
	CHECK_EQ(drv_create_qp(&e.d, &p, &qpn), ORDMA_CMD_STATUS_PERM);

	REQUIRE_EQ(srq_qp_create(&e, srqn, ORDMA_QPT_RC, &qpn), OK);
	REQUIRE_EQ(srq_qp_create(&e, srqn, ORDMA_QPT_UD, &qpn2), OK);
	CHECK_EQ(fw_srq_lookup(e.d.fw, srqn)->qp_refs, 2);
	CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DESTROY_SRQ, srqn, e.uctx),
		 ORDMA_CMD_STATUS_BUSY);
	CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DESTROY_SRQ, srqn, 0),
		 ORDMA_CMD_STATUS_PERM);

	/* receives through the SRQ; the QP has no RQ doorbell */
	errors = drv_db_errors(&e.d);
	drv_db(&e.d, e.uctx, ORDMA_DB_RQ, qpn, 1, 0);
	CHECK_EQ(drv_db_errors(&e.d), errors + 1);
	drv_db(&e.d, 0, ORDMA_DB_SRQ, srqn, 2, 0);		/* not its page */
	drv_db(&e.d, e.uctx, ORDMA_DB_SRQ, srqn + 1, 2, 0);	/* no such SRQ */
	drv_db(&e.d, e.uctx, ORDMA_DB_SRQ, srqn, 17, 0);	/* beyond size */
	drv_db(&e.d, e.uctx, ORDMA_DB_SRQ, srqn, 2, ORDMA_DB_ARM);
	CHECK_EQ(drv_db_errors(&e.d), errors + 5);
	CHECK_EQ(fw_srq_lookup(e.d.fw, srqn)->wq.pi, 0);
	drv_db(&e.d, e.uctx, ORDMA_DB_SRQ, srqn, 2, 0);
	CHECK_EQ(drv_db_errors(&e.d), errors + 5);
	CHECK_EQ(fw_qp_recv_take(e.d.fw, fw_qp_lookup(e.d.fw, qpn2), buf,
				 sizeof(buf), &idx), 0);
	CHECK_EQ(idx, 0);
	CHECK_EQ(fw_qp_recv_take(e.d.fw, fw_qp_lookup(e.d.fw, qpn), buf,
				 sizeof(buf), &idx), 0);
	CHECK_EQ(idx, 1);
	CHECK_EQ(fw_qp_recv_take(e.d.fw, fw_qp_lookup(e.d.fw, qpn), buf,
				 sizeof(buf), &idx), -1);
	/* backwards */
	drv_db(&e.d, e.uctx, ORDMA_DB_SRQ, srqn, 1, 0);
	CHECK_EQ(drv_db_errors(&e.d), errors + 6);

	/* ERR: no receive flush (the SRQ keeps its WQEs), LAST_WQE once */
	memset(&a, 0, sizeof(a));
	a.attr_mask = cpu_to_le32(ORDMA_QP_ATTR_STATE);
	a.state = ORDMA_QPS_ERR;
	CHECK_EQ(drv_modify_qp(&e.d, qpn, &a), OK);
	CHECK(!drv_cq_next(&e.d, &e.cq, &cqe));
	CHECK(next_event(&e, ORDMA_EQE_QP_LAST_WQE, &eqe));
	CHECK_EQ(le32_to_cpu(eqe.data[0]), qpn);
	CHECK_EQ(drv_modify_qp(&e.d, qpn, &a), OK);
	CHECK(!next_event(&e, ORDMA_EQE_QP_LAST_WQE, &eqe));

	CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DESTROY_QP, qpn, e.uctx), OK);
	CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DESTROY_SRQ, srqn, e.uctx),
		 ORDMA_CMD_STATUS_BUSY);
	CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DESTROY_QP, qpn2, e.uctx), OK);
	CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DESTROY_SRQ, srqn, e.uctx), OK);
	CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DESTROY_SRQ, srqn, e.uctx),
		 BAD_HANDLE);
	CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DEALLOC_PD, e.pdn, e.uctx),
		 ORDMA_CMD_STATUS_OK);
	drv_close(&e.d);
}

TEST(test_srq_reset_frees_all)
{
	struct srq_env e;
	uint32_t srqn, qpn, n;

	REQUIRE(srq_env_open(&e));
	for (n = 0; n < 5; n++)
		REQUIRE_EQ(drv_create_srq(&e.d, e.uctx, e.pdn, 4, 2, SRQ_AREA,
					  &srqn), OK);
	REQUIRE_EQ(srq_qp_create(&e, srqn, ORDMA_QPT_UD, &qpn), OK);
	drv_wr(&e.d, ORDMA_REG_CTRL, ORDMA_CTRL_RESET);
	REQUIRE(drv_enable(&e.d, 4));
	for (n = 0; n <= FW_MAX_SRQ + 1; n++)
		CHECK(!fw_srq_lookup(e.d.fw, n));
	CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DESTROY_SRQ, srqn, e.uctx),
		 BAD_HANDLE);
	REQUIRE_EQ(drv_alloc_pd(&e.d, 0, &e.pdn), OK);
	e.uctx = 0;
	CHECK_EQ(drv_create_srq(&e.d, 0, e.pdn, 4, 0, SRQ_AREA, &srqn), OK);
	CHECK_EQ(srqn, 1);
	drv_close(&e.d);
}
