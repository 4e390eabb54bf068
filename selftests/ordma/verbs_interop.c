// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * What applications written for other RoCE devices pass to and expect
 * from the verbs, between two RDMA devices cabled to each other:
 *  - any 32-bit flow label in a GRH (UCX passes 0xffffffff) is taken by
 *    create_ah and by modify_qp to RTR, and the 20 bits of the IPv6
 *    field are what the QP reports back;
 *  - a UD receive completion says that the GRH area holds a header
 *    (IBV_WC_GRH) and, in the SL, that the packet was RoCE v2 over IPv4
 *    (0x8 UDP | 0x2 IPv4, the mlx5 convention UCX's ud_verbs reads); the
 *    IPv4 header fills the last 20 bytes of the 40-byte area.
 *
 * Usage: verbs_interop DEV_A GID_INDEX_A DEV_B GID_INDEX_B [TEST...]
 * The GID indexes name the IPv4 RoCE v2 GIDs.  TAP of the ordma_test
 * runner.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ordma_test.h"
#include "verbs_util.h"

#define PAGE		VERBS_PAGE
#define GRH_LEN		40
#define MSG_LEN		256
#define QKEY		0x11111111
#define FLOW_LABEL_ANY	0xffffffffu
#define FLOW_LABEL_BITS	0xfffffu
/* SL of a UD receive: UDP-encapsulated (bit 3), IPv4 (bits 2:0 = 2) */
#define SL_ROCE_V2_IPV4	0xa
#define WR_ID		0x5678

struct side {
	struct verbs_dev dev;
	uint8_t *buf;
	struct ibv_mr *mr;
};

static struct verbs_two_devs devs;
static struct side A, B;

static bool side_open(struct side *s, const char *name, int gid_idx)
{
	if (verbs_dev_open(&s->dev, name, gid_idx))
		return false;
	if (posix_memalign((void **)&s->buf, PAGE, PAGE)) {
		NOTE("%s: buffer", name);
		return false;
	}
	memset(s->buf, 0, PAGE);
	s->mr = ibv_reg_mr(s->dev.pd, s->buf, PAGE, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!s->mr) {
		NOTE("%s: ibv_reg_mr: %s", name, strerror(errno));
		return false;
	}
	return true;
}

static bool setup(void)
{
	return side_open(&A, devs.name[0], devs.gid_index[0]) &&
	       side_open(&B, devs.name[1], devs.gid_index[1]);
}

static bool gid_is_ipv4(const union ibv_gid *gid)
{
	static const uint8_t v4_prefix[12] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
	};

	return !memcmp(gid->raw, v4_prefix, sizeof(v4_prefix));
}

/* A UD QP of @s on @recv_cq, in RTS */
static struct ibv_qp *ud_qp(struct side *s, struct ibv_cq *recv_cq)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = s->dev.cq,
		.recv_cq = recv_cq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_UD,
	};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = QKEY,
	};
	struct ibv_qp *qp = ibv_create_qp(s->dev.pd, &ia);

	if (!qp) {
		NOTE("ibv_create_qp(UD): %s", strerror(errno));
		return NULL;
	}
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY))
		goto fail;
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		goto fail;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0x10;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		goto fail;
	return qp;
fail:
	NOTE("modify UD QP %u to state %d: %s", qp->qp_num, a.qp_state,
	     strerror(errno));
	return NULL;
}

/* An AH on A's PD for B's GID with @flow_label in its GRH */
static struct ibv_ah *ah_to_b(uint32_t flow_label)
{
	struct ibv_ah_attr aa = {
		.is_global = 1,
		.port_num = 1,
		.grh = {
			.dgid = B.dev.gid,
			.sgid_index = (uint8_t)A.dev.gid_index,
			.hop_limit = 64,
			.flow_label = flow_label,
		},
	};
	struct ibv_ah *ah = ibv_create_ah(A.dev.pd, &aa);

	if (!ah)
		NOTE("ibv_create_ah(flow_label 0x%x): %s", flow_label,
		     strerror(errno));
	return ah;
}

/*
 * One UD SEND of MSG_LEN bytes from A through @ah to @qb, to be received
 * into B's buffer (GRH area first); true once A's send completed.
 */
static bool ud_send_to_b(struct ibv_ah *ah, struct ibv_qp *qa,
			 struct ibv_qp *qb)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)A.buf, .length = MSG_LEN, .lkey = A.mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = WR_ID, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
		.wr.ud = { .ah = ah, .remote_qpn = qb->qp_num,
			   .remote_qkey = QKEY },
	}, *bad;
	struct ibv_wc swc;
	unsigned int i;

	for (i = 0; i < MSG_LEN; i++)
		A.buf[i] = (uint8_t)(i * 7 + 1);
	memset(B.buf, 0, PAGE);
	if (verbs_post_recv(qb, (uintptr_t)B.buf, GRH_LEN + MSG_LEN,
			    B.mr->lkey, WR_ID) ||
	    ibv_post_send(qa, &wr, &bad)) {
		NOTE("post: %s", strerror(errno));
		return false;
	}
	if (verbs_poll_one(A.dev.cq, &swc, VERBS_POLL_MS) ||
	    swc.status != IBV_WC_SUCCESS) {
		NOTE("UD send did not complete successfully");
		return false;
	}
	return true;
}

/* The payload arrived after the GRH area, which holds A -> B's IPv4 header */
static void check_ud_payload_and_ipv4_header(void)
{
	CHECK(!memcmp(B.buf + GRH_LEN, A.buf, MSG_LEN));
	CHECK_EQ(B.buf[20] >> 4, 4);				/* version */
	CHECK(!memcmp(B.buf + 32, &A.dev.gid.raw[12], 4));	/* saddr */
	CHECK(!memcmp(B.buf + 36, &B.dev.gid.raw[12], 4));	/* daddr */
}

/*
 * Both devices open, UD QPs on A (A's CQ) and B (@b_recv_cq for its
 * receives), and one SEND from A through an AH with @flow_label sent;
 * A's QP in *@qa.  false (noted) if any of it failed.
 */
static bool ud_sent_a_to_b(uint32_t flow_label, struct ibv_cq *b_recv_cq,
			   struct ibv_qp **qa)
{
	struct ibv_qp *qb;
	struct ibv_ah *ah;

	if (!gid_is_ipv4(&A.dev.gid) || !gid_is_ipv4(&B.dev.gid)) {
		NOTE("the GIDs given are not IPv4 RoCE v2 GIDs");
		return false;
	}
	*qa = ud_qp(&A, A.dev.cq);
	qb = ud_qp(&B, b_recv_cq);
	ah = *qa && qb ? ah_to_b(flow_label) : NULL;
	return ah && ud_send_to_b(ah, *qa, qb);
}

TEST(create_ah_takes_flow_label_0xffffffff_and_the_send_arrives)
{
	struct ibv_qp *qa;
	struct ibv_wc wc;

	REQUIRE(setup());
	REQUIRE(ud_sent_a_to_b(FLOW_LABEL_ANY, B.dev.cq, &qa));
	REQUIRE(!verbs_poll_one(B.dev.cq, &wc, VERBS_POLL_MS));
	CHECK_EQ(wc.status, IBV_WC_SUCCESS);
	CHECK_EQ(wc.byte_len, GRH_LEN + MSG_LEN);
	CHECK(!memcmp(B.buf + GRH_LEN, A.buf, MSG_LEN));
}

TEST(ud_recv_wc_has_grh_flag_and_sl_roce_v2_ipv4)
{
	struct ibv_qp *qa;
	struct ibv_wc wc;

	REQUIRE(setup());
	REQUIRE(ud_sent_a_to_b(0, B.dev.cq, &qa));
	REQUIRE(!verbs_poll_one(B.dev.cq, &wc, VERBS_POLL_MS));
	REQUIRE_EQ(wc.status, IBV_WC_SUCCESS);
	CHECK_EQ(wc.opcode, IBV_WC_RECV);
	CHECK_EQ(wc.src_qp, qa->qp_num);
	CHECK(wc.wc_flags & IBV_WC_GRH);
	CHECK_EQ(wc.sl, SL_ROCE_V2_IPV4);
	check_ud_payload_and_ipv4_header();
}

TEST(ud_recv_extended_cq_reads_the_same_sl_and_flags)
{
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 16,
		.wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_SL |
			    IBV_WC_EX_WITH_SRC_QP,
	};
	struct ibv_poll_cq_attr pa = {};
	struct ibv_cq_ex *cqx;
	struct ibv_qp *qa;
	uint64_t end;
	int ret;

	REQUIRE(setup());
	cqx = ibv_create_cq_ex(B.dev.ctx, &ca);
	if (!cqx)
		NOTE("ibv_create_cq_ex: %s", strerror(errno));
	REQUIRE(cqx);
	REQUIRE(ud_sent_a_to_b(0, ibv_cq_ex_to_cq(cqx), &qa));
	end = verbs_now_ms() + VERBS_POLL_MS;
	while ((ret = ibv_start_poll(cqx, &pa)) == ENOENT &&
	       verbs_now_ms() < end)
		;
	REQUIRE_EQ(ret, 0);
	CHECK_EQ(cqx->status, IBV_WC_SUCCESS);
	CHECK_EQ(ibv_wc_read_opcode(cqx), IBV_WC_RECV);
	CHECK_EQ(ibv_wc_read_byte_len(cqx), GRH_LEN + MSG_LEN);
	CHECK_EQ(ibv_wc_read_src_qp(cqx), qa->qp_num);
	CHECK(ibv_wc_read_wc_flags(cqx) & IBV_WC_GRH);
	CHECK_EQ(ibv_wc_read_sl(cqx), SL_ROCE_V2_IPV4);
	ibv_end_poll(cqx);
	check_ud_payload_and_ipv4_header();
}

TEST(rc_rtr_takes_flow_label_0xffffffff_keeps_20_bits_and_write_lands)
{
	const struct ibv_qp_cap cap = {
		.max_send_wr = 4, .max_recv_wr = 4,
		.max_send_sge = 1, .max_recv_sge = 1,
	};
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr qa_attr;
	struct ibv_qp *qa, *qb;
	struct ibv_wc wc;

	REQUIRE(setup());
	qa = verbs_rc_qp_create(&A.dev, &cap);
	qb = verbs_rc_qp_create(&B.dev, &cap);
	REQUIRE(qa && qb);
	REQUIRE(!verbs_rc_qp_connect_fl(qa, &A.dev, &B.dev, qb->qp_num,
					IBV_ACCESS_REMOTE_WRITE, 7,
					FLOW_LABEL_ANY));
	REQUIRE(!verbs_rc_qp_connect_fl(qb, &B.dev, &A.dev, qa->qp_num,
					IBV_ACCESS_REMOTE_WRITE, 7,
					FLOW_LABEL_ANY));
	REQUIRE(!ibv_query_qp(qa, &qa_attr, IBV_QP_AV, &ia));
	CHECK_EQ(qa_attr.ah_attr.grh.flow_label, FLOW_LABEL_BITS);

	memset(A.buf, 0x6b, PAGE);
	memset(B.buf, 0, PAGE);
	REQUIRE(!verbs_post_send(qa, IBV_WR_RDMA_WRITE, (uintptr_t)A.buf, PAGE,
				 A.mr->lkey, (uintptr_t)B.buf, B.mr->rkey,
				 WR_ID));
	REQUIRE(!verbs_poll_one(A.dev.cq, &wc, VERBS_POLL_MS));
	CHECK_EQ(wc.status, IBV_WC_SUCCESS);
	CHECK(!memcmp(A.buf, B.buf, PAGE));
}

int main(int argc, char **argv)
{
	return verbs_two_devs_main(argc, argv, &devs);
}
