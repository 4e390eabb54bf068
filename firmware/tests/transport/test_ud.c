// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * UD end to end over IPv4 and IPv6, the GSI QP, inline address
 * vectors and multicast.
 */
#include <stdlib.h>
#include <string.h>

#include "ordma_test.h"
#include "pair.h"

static void ud_case(bool ipv6)
{
	struct ordma_cqe cqe;
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;
	uint32_t ah;
	uint8_t *grh;

	default_cfg(&c);
	c.type = ORDMA_QPT_UD;
	c.ipv6 = ipv6;
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	REQUIRE_EQ(create_ah(a, b, &ah), OK);
	pattern(mem(a, MR1_ADDR, 1024), 1024, 8);
	memset(mem(b, MR1_ADDR, 2048), 0xcc, 2048);
	post_recv(b, MR1_ADDR, 40 + 1024);
	wr_init(&w, ORDMA_WQE_SEND_IMM, MR1_ADDR, 1000, a->key1);
	w.ah = ah;
	w.remote_qpn = b->qpn;
	w.remote_qkey = 0x1234;
	w.imm_inv = 0x01020304;
	post(a, &w);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 1000, 0);
	pump(&e);
	REQUIRE(cqe_next(b, false, &cqe));
	CHECK_EQ(cqe.status, ORDMA_CQE_SUCCESS);
	CHECK_EQ(cqe.opcode, ORDMA_CQE_OP_RECV);
	CHECK_EQ(le32_to_cpu(cqe.byte_len), 40 + 1000);
	CHECK_EQ(le32_to_cpu(cqe.src_qp), a->qpn);
	CHECK_EQ(le32_to_cpu(cqe.imm_inv), 0x01020304);
	CHECK_EQ(le16_to_cpu(cqe.flags),
		 ORDMA_CQE_F_GRH | ORDMA_CQE_F_IMM |
		 (ipv6 ? 0 : ORDMA_CQE_F_IPV4));
	grh = mem(b, MR1_ADDR, 40);
	if (ipv6) {
		CHECK_EQ(grh[0] >> 4, 6);
		CHECK_EQ(grh[6], 17);
		CHECK_EQ(grh[7], 7);		/* hop limit */
		CHECK(!memcmp(grh + 8, a->gid, 16));
		CHECK(!memcmp(grh + 24, b->gid, 16));
	} else {
		static const uint8_t zero[20];

		CHECK(!memcmp(grh, zero, 20));
		CHECK_EQ(grh[20], 0x45);
		CHECK_EQ(grh[20 + 8], 7);	/* TTL */
		CHECK_EQ(grh[20 + 9], 17);
		CHECK(!memcmp(grh + 20 + 12, a->gid + 12, 4));
		CHECK(!memcmp(grh + 20 + 16, b->gid + 12, 4));
	}
	CHECK(!memcmp(mem(b, MR1_ADDR + 40, 1000), mem(a, MR1_ADDR, 1000),
		      1000));
	CHECK_EQ(mem(b, MR1_ADDR + 1040, 1)[0], 0xcc);

	/* Q_Key mismatch: counted drop; bit 31: the QP's own Q_Key */
	post_recv(b, MR1_ADDR, 40 + 1024);
	w.remote_qkey = 0x4321;
	post(a, &w);
	pump(&e);
	no_cqe(b, false);
	CHECK_EQ(drops(b, ORDMA_ROCE_RX_DROP_QKEY), 1);
	w.remote_qkey = 0x80000000;
	post(a, &w);
	pump(&e);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, 1040, 1);
	/* no receive posted: dropped */
	post(a, &w);
	pump(&e);
	CHECK_EQ(drops(b, ORDMA_ROCE_RX_DROP_NO_RECV), 1);
	/* above the MTU: LOC_LEN_ERR, the QP goes to SQE */
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 1025, a->key1);
	w.ah = ah;
	w.remote_qpn = b->qpn;
	post(a, &w);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 1000, 1);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 1000, 2);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 1000, 3);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_LOC_LEN_ERR, 0, 4);
	CHECK_EQ(qp_state(a), ORDMA_QPS_SQE);
	/* bad AH */
	env_close(&e);
}

TEST(test_tp_ud_ipv4)
{
	ud_case(false);
}

TEST(test_tp_ud_ipv6)
{
	ud_case(true);
}

/* ------------------------------------------------------------------ */
/* GSI QP, inline address vectors, multicast                           */
/* ------------------------------------------------------------------ */

static void av_to(struct ordma_av *av, const uint8_t gid[16],
		  const uint8_t mac[6])
{
	memset(av, 0, sizeof(*av));
	memcpy(av->dgid, gid, 16);
	memcpy(av->dmac, mac, 6);
	av->hop_limit = 1;
	av->vlan_id = cpu_to_le16(ORDMA_VLAN_NONE);
}

static uint8_t create_qp_of(struct side *s, uint32_t uctx, uint8_t type,
			    unsigned int area, uint32_t *qpn)
{
	struct ordma_qp_create_params p;

	drv_qp_params(&p, uctx, s->pdn, type, s->scq.cqn, s->rcq.cqn,
		      ORDMA_NO_SRQ, area);
	return drv_create_qp(&s->d, &p, qpn);
}

TEST(test_tp_gsi_inline_av)
{
	struct ordma_cqe cqe;
	struct ordma_av av;
	uint32_t qpn = 0, uctx;
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;

	default_cfg(&c);
	c.type = ORDMA_QPT_GSI;
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	CHECK_EQ(a->qpn, ORDMA_GSI_QPN);
	CHECK_EQ(b->qpn, ORDMA_GSI_QPN);
	/* one per port, and never a user context's */
	CHECK_EQ(create_qp_of(a, 0, ORDMA_QPT_GSI, QP_AREA + 2, &qpn),
		 ORDMA_CMD_STATUS_BUSY);
	REQUIRE_EQ(drv_alloc_uctx(&a->d, &uctx), OK);
	CHECK_EQ(create_qp_of(a, uctx, ORDMA_QPT_GSI, QP_AREA + 2, &qpn),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&a->d), ORDMA_SYNDROME_BUF_BASE +
		 offsetof(struct ordma_qp_create_params, type));
	/* an ordinary QP never gets number 1 */
	REQUIRE_EQ(create_qp_of(a, 0, ORDMA_QPT_UD, QP_AREA + 2, &qpn), OK);
	CHECK(qpn >= FW_FIRST_QPN);

	/* a MAD-sized send, AV in the WQE, two SGEs as the MAD layer posts */
	pattern(mem(a, MR1_ADDR, 256), 256, 3);
	post_recv(b, MR1_ADDR, 40 + 256);
	av_to(&av, b->gid, b->mac);
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 24, a->key1);
	sge(&w.sge[1], MR1_ADDR + 24, 232, a->key1);
	w.num_sge = 2;
	w.av = &av;
	w.remote_qpn = ORDMA_GSI_QPN;
	w.remote_qkey = ORDMA_GSI_QKEY;
	post(a, &w);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 256, 0);
	pump(&e);
	REQUIRE(cqe_next(b, false, &cqe));
	CHECK_EQ(cqe.status, ORDMA_CQE_SUCCESS);
	CHECK_EQ(le32_to_cpu(cqe.byte_len), 40 + 256);
	CHECK_EQ(le32_to_cpu(cqe.src_qp), ORDMA_GSI_QPN);
	CHECK_EQ(le32_to_cpu(cqe.qpn), ORDMA_GSI_QPN);
	CHECK(!memcmp(mem(b, MR1_ADDR + 40, 256), mem(a, MR1_ADDR, 256), 256));
	CHECK_EQ(mem(b, MR1_ADDR + 20 + 8, 1)[0], 1);	/* the AV's TTL */

	/* the GSI Q_Key is checked like any other */
	post_recv(b, MR1_ADDR, 40 + 256);
	w.remote_qkey = 0x1234;
	post(a, &w);
	pump(&e);
	no_cqe(b, false);
	CHECK_EQ(drops(b, ORDMA_ROCE_RX_DROP_QKEY), 1);

	/* an inline AV is checked as CREATE_AH checks one */
	av.sgid_index = 3;		/* no such GID */
	w.remote_qkey = ORDMA_GSI_QKEY;
	post(a, &w);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 256, 1);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_LOC_QP_OP_ERR, 0, 2);
	CHECK_EQ(qp_state(a), ORDMA_QPS_SQE);
	pump(&e);
	no_cqe(b, false);
	env_close(&e);
}

TEST(test_tp_inline_av_rc)
{
	struct ordma_av av;
	struct env e;
	struct tcfg c;
	struct wr w;

	/* an AV in an RC WQE is a malformed WQE */
	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	av_to(&av, e.s[1].gid, e.s[1].mac);
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 64, e.s[0].key1);
	w.av = &av;
	post(&e.s[0], &w);
	expect_cqe(&e.s[0], true, ORDMA_CQE_OP_SEND, ORDMA_CQE_LOC_QP_OP_ERR,
		   0, 0);
	CHECK_EQ(qp_state(&e.s[0]), ORDMA_QPS_ERR);
	pump(&e);
	CHECK_EQ(e.l[0].sent, 0);
	env_close(&e);
}

static uint8_t mcast_cmd(struct side *s, uint8_t opcode, uint32_t qpn,
			 const uint8_t gid[16])
{
	struct ordma_aq_cmd cmd;

	drv_cmd_init(&cmd, opcode);
	cmd.mcast.qpn = cpu_to_le32(qpn);
	memcpy(cmd.mcast.gid, gid, 16);
	return drv_exec(&s->d, &cmd);
}

TEST(test_tp_mcast)
{
	static const uint8_t mgid[16] = { [10] = 0xff, [11] = 0xff,
					  239, 1, 2, 3 };
	static const uint8_t mmac[6] = { 0x01, 0x00, 0x5e, 0x01, 0x02, 0x03 };
	static const uint8_t ucast[16] = { [10] = 0xff, [11] = 0xff,
					   10, 0, 0, 9 };
	uint32_t gsi = 0, rc = 0, ah;
	struct ordma_aq_cmd cmd;
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;
	int n;

	default_cfg(&c);
	c.type = ORDMA_QPT_UD;
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];

	/* what ATTACH_MCAST refuses */
	CHECK_EQ(mcast_cmd(b, ORDMA_CMD_ATTACH_MCAST, b->qpn, ucast),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(mcast_cmd(b, ORDMA_CMD_ATTACH_MCAST, 999, mgid),
		 ORDMA_CMD_STATUS_BAD_HANDLE);
	REQUIRE_EQ(create_qp_of(b, 0, ORDMA_QPT_GSI, QP_AREA + 2, &gsi), OK);
	CHECK_EQ(mcast_cmd(b, ORDMA_CMD_ATTACH_MCAST, gsi, mgid),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	REQUIRE_EQ(create_qp_of(b, 0, ORDMA_QPT_RC, QP_AREA + 3, &rc), OK);
	CHECK_EQ(mcast_cmd(b, ORDMA_CMD_ATTACH_MCAST, rc, mgid),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(drv_syndrome(&b->d), FW_CMD_OFF(mcast.qpn));
	CHECK_EQ(mcast_cmd(b, ORDMA_CMD_DETACH_MCAST, b->qpn, mgid),
		 ORDMA_CMD_STATUS_BAD_HANDLE);
	drv_cmd_init(&cmd, ORDMA_CMD_ATTACH_MCAST);
	cmd.mcast.qpn = cpu_to_le32(b->qpn);
	memcpy(cmd.mcast.gid, mgid, 16);
	cmd.mcast.reserved_24 = cpu_to_le64(1);
	CHECK_EQ(drv_exec(&b->d, &cmd), ORDMA_CMD_STATUS_BAD_PARAM);

	/* a multicast AH needs a multicast MAC, and the reverse */
	drv_cmd_init(&cmd, ORDMA_CMD_CREATE_AH);
	cmd.create_ah.pdn = cpu_to_le32(a->pdn);
	memcpy(cmd.create_ah.av.dgid, mgid, 16);
	memcpy(cmd.create_ah.av.dmac, a->mac, 6);
	cmd.create_ah.av.vlan_id = cpu_to_le16(ORDMA_VLAN_NONE);
	CHECK_EQ(drv_exec(&a->d, &cmd), ORDMA_CMD_STATUS_BAD_PARAM);
	memcpy(cmd.create_ah.av.dmac, mmac, 6);
	REQUIRE_EQ(drv_exec(&a->d, &cmd), OK);
	ah = le32_to_cpu(a->d.last_comp.handle.handle);

	/* before anyone joined, b does not take the packet */
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 100, a->key1);
	w.ah = ah;
	w.remote_qpn = ORDMA_MCAST_QPN;
	w.remote_qkey = 0x1234;
	post_recv(b, MR1_ADDR, 40 + 1024);
	post(a, &w);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 100, 0);
	no_cqe(b, false);

	/* b and a join: one frame on the wire, a copy for each member */
	CHECK_EQ(mcast_cmd(b, ORDMA_CMD_ATTACH_MCAST, b->qpn, mgid), OK);
	CHECK_EQ(mcast_cmd(b, ORDMA_CMD_ATTACH_MCAST, b->qpn, mgid), OK);
	CHECK_EQ(mcast_cmd(a, ORDMA_CMD_ATTACH_MCAST, a->qpn, mgid), OK);
	post_recv(a, MR1_ADDR + 0x10000, 40 + 1024);
	pattern(mem(a, MR1_ADDR, 100), 100, 5);
	post(a, &w);
	fake_advance(&a->d.hal, 1);	/* the loopback copy */
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 100, 1);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, 140, 0);
	expect_cqe(a, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, 140, 0);
	CHECK(!memcmp(mem(b, MR1_ADDR + 40, 100), mem(a, MR1_ADDR, 100), 100));
	CHECK(!memcmp(mem(a, MR1_ADDR + 0x10000 + 40, 100),
		      mem(a, MR1_ADDR, 100), 100));
	CHECK_EQ(e.l[0].sent, 2);
	CHECK(!memcmp(mem(b, MR1_ADDR + 40 - 20 + 16, 4), mgid + 12, 4));

	/* detached: b hears nothing more; destroying a QP detaches it */
	CHECK_EQ(mcast_cmd(b, ORDMA_CMD_DETACH_MCAST, b->qpn, mgid), OK);
	post_recv(b, MR1_ADDR, 40 + 1024);
	post(a, &w);
	pump(&e);
	no_cqe(b, false);
	n = drv_handle_cmd(&a->d, ORDMA_CMD_DESTROY_QP, a->qpn, 0);
	CHECK_EQ(n, OK);
	CHECK(!fw_mcast_joined(a->d.fw, mgid));
	env_close(&e);
}

/* ------------------------------------------------------------------ */
/* Inline address vectors are the kernel's                             */
/* ------------------------------------------------------------------ */

TEST(test_tp_inline_av_user_qp)
{
	static const uint8_t data[16] = "not for the wire";
	struct ordma_qp_create_params p;
	struct ordma_cqe cqe;
	struct ordma_av av;
	struct drv_cq ucq;
	uint32_t uctx, updn, uqpn, saved_qpn, saved_pi;
	unsigned int saved_area;
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;
	size_t k;

	default_cfg(&c);
	c.type = ORDMA_QPT_UD;
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	av_to(&av, b->gid, b->mac);
	memset(&w, 0, sizeof(w));
	w.opcode = ORDMA_WQE_SEND;
	w.flags = ORDMA_WQE_SIGNALED;
	w.inline_data = data;
	w.inline_len = sizeof(data);
	w.av = &av;
	w.remote_qpn = b->qpn;
	w.remote_qkey = 0x1234;

	/* the kernel's UD QP may address a frame itself */
	post_recv(b, MR1_ADDR, 40 + 64);
	post(a, &w);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 16, 0);
	pump(&e);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, 40 + 16, 0);
	CHECK_EQ(e.l[0].sent, 1);

	/* a process's UD QP may not: error completion, SQE, no frame */
	REQUIRE_EQ(drv_alloc_uctx(&a->d, &uctx), OK);
	REQUIRE_EQ(drv_alloc_pd(&a->d, uctx, &updn), OK);
	REQUIRE(drv_cq_open(&a->d, &ucq, 2, uctx, a->comp.eqn, 6));
	memset(mem(a, DRV_WQ_ADDR(QP_AREA + 2), 0x10000), 0, 0x10000);
	drv_qp_params(&p, uctx, updn, ORDMA_QPT_UD, ucq.cqn, ucq.cqn,
		      ORDMA_NO_SRQ, QP_AREA + 2);
	p.sq_log_size = SQ_LOG;
	p.sq_wqe_shift = SQ_SHIFT;
	p.max_inline_data = cpu_to_le32(128);
	drv_page_list_contig(&p.sq, DRV_WQ_ADDR(QP_AREA + 2),
			     (1u << SQ_LOG) << SQ_SHIFT);
	REQUIRE_EQ(drv_create_qp(&a->d, &p, &uqpn), OK);
	for (k = 0; k < 3; k++) {
		static const uint8_t path[] = { ORDMA_QPS_INIT, ORDMA_QPS_RTR,
						ORDMA_QPS_RTS };
		struct fw_qp_transition rule;
		struct ordma_qp_attr at;
		uint8_t cur = k ? path[k - 1] : ORDMA_QPS_RESET;

		fw_qp_transition_rule(ORDMA_QPT_UD, cur, path[k], &rule);
		fill_attr(&at, rule.required | A(STATE), path[k], &c, a, b, 0);
		REQUIRE_EQ(drv_modify_qp(&a->d, uqpn, &at), OK);
	}
	saved_qpn = a->qpn;
	saved_pi = a->sq_pi;
	saved_area = a->wq_area;
	a->qpn = uqpn;
	a->sq_pi = 0;
	a->wq_area = QP_AREA + 2;
	put_wqe(a, &w);
	drv_db(&a->d, uctx, ORDMA_DB_SQ, uqpn, a->sq_pi, 0);
	CHECK_EQ(qp_state(a), ORDMA_QPS_SQE);
	a->qpn = saved_qpn;
	a->sq_pi = saved_pi;
	a->wq_area = saved_area;
	REQUIRE(drv_cq_next(&a->d, &ucq, &cqe));
	CHECK_EQ(cqe.status, ORDMA_CQE_LOC_QP_OP_ERR);
	CHECK_EQ(cqe.opcode, ORDMA_CQE_OP_SEND);
	CHECK_EQ(le32_to_cpu(cqe.qpn), uqpn);
	CHECK_EQ(le32_to_cpu(cqe.wqe_idx), 0);
	CHECK_EQ(drv_db_errors(&a->d), 0);
	pump(&e);
	CHECK_EQ(e.l[0].sent, 1);
	no_cqe(b, false);
	env_close(&e);
}
