// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Queue pairs through the admin queue and the doorbells: CREATE_QP and
 * MODIFY_QP validation with their syndromes, every state transition for
 * RC and UD, QUERY_QP, flushing to the error state into real CQs,
 * doorbell ownership, references, the engine hooks and reset.
 */
#include <string.h>

#include "objects/fw_qp.h"
#include "drv.h"
#include "ordma_test.h"

#define OK		ORDMA_CMD_STATUS_OK
#define BAD_PARAM	ORDMA_CMD_STATUS_BAD_PARAM
#define BAD_HANDLE	ORDMA_CMD_STATUS_BAD_HANDLE
#define BAD_STATE	ORDMA_CMD_STATUS_BAD_STATE
#define A(name)		ORDMA_QP_ATTR_##name
/* syndromes of fields in the parameter buffer: 64 + offset */
#define AT(field)	(64 + offsetof(struct ordma_qp_attr, field))
#define CP(field)	(64 + offsetof(struct ordma_qp_create_params, field))
#define QP_AREA		2
#define NUM_STATES	(ORDMA_QPS_ERR + 1)
#define SQ_SIZE		16
#define RQ_SIZE		16

static const uint8_t local_gid[16] = { 0xfe, 0x80, [15] = 1 };
static const uint8_t local_mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
static const uint8_t peer_gid[16] = { 0xfe, 0x80, [15] = 2 };
static const uint8_t peer_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x02 };

/* A RoCE port with GID 0 (drv_verbs_open(), drv.h) */
static bool env_open(struct drv_verbs *e, bool user)
{
	return drv_verbs_open(e, ORDMA_PORT_PROTO_ROCE, user, local_gid,
			      local_mac);
}

static void qp_params(struct drv_verbs *e, struct ordma_qp_create_params *p,
		      uint8_t type, unsigned int area)
{
	drv_verbs_qp_params(e, p, type, e->uctx, area);
}

static uint8_t qp_create(struct drv_verbs *e, uint8_t type, unsigned int area,
			 uint32_t *qpn)
{
	return drv_verbs_create_qp(e, type, e->uctx, area, qpn);
}

static uint8_t qp_destroy(struct drv_verbs *e, uint32_t qpn)
{
	return drv_handle_cmd(&e->d, ORDMA_CMD_DESTROY_QP, qpn, e->uctx);
}

static void fill_av(struct ordma_av *av)
{
	memset(av, 0, sizeof(*av));
	memcpy(av->dgid, peer_gid, 16);
	memcpy(av->dmac, peer_mac, 6);
	av->sgid_index = 0;
	av->hop_limit = 64;
	av->flow_label = cpu_to_le32(0x12345);
	av->traffic_class = 0x10;
	av->vlan_id = cpu_to_le16(ORDMA_VLAN_NONE);
}

/* Valid values for every attribute in mask. */
static void fill_attr(struct ordma_qp_attr *a, uint32_t mask, uint8_t cur,
		      uint8_t next)
{
	memset(a, 0, sizeof(*a));
	a->attr_mask = cpu_to_le32(mask);
	if (mask & A(STATE))
		a->state = next;
	if (mask & A(CUR_STATE))
		a->cur_state = cur;
	if (mask & A(EN_SQD_ASYNC))
		a->en_sqd_async_notify = 1;
	if (mask & A(ACCESS_FLAGS))
		a->access_flags = cpu_to_le32(ORDMA_ACCESS_REMOTE_WRITE |
					      ORDMA_ACCESS_REMOTE_READ);
	if (mask & A(PORT))
		a->port = 1;
	if (mask & A(QKEY))
		a->qkey = cpu_to_le32(0x11111111);
	if (mask & A(AV))
		fill_av(&a->av);
	if (mask & A(PATH_MTU))
		a->path_mtu = 3;	/* 1024: fits the default MTU 1500 */
	if (mask & A(TIMEOUT))
		a->timeout = 14;
	if (mask & A(RETRY_CNT))
		a->retry_cnt = 6;
	if (mask & A(RNR_RETRY))
		a->rnr_retry = 7;
	if (mask & A(RQ_PSN))
		a->rq_psn = cpu_to_le32(0x123456);
	/* the READ/atomic depths other RoCE devices offer (rxe: 128) */
	if (mask & A(MAX_QP_RD_ATOMIC))
		a->max_rd_atomic = 128;
	if (mask & A(MIN_RNR_TIMER))
		a->min_rnr_timer = 12;
	if (mask & A(SQ_PSN))
		a->sq_psn = cpu_to_le32(0x654321);
	if (mask & A(MAX_DEST_RD_ATOMIC))
		a->max_dest_rd_atomic = 128;
	if (mask & A(DEST_QPN))
		a->dest_qpn = cpu_to_le32(0x42);
}

static uint8_t required_attrs_step(struct drv_verbs *e, uint32_t qpn,
				   uint8_t type, uint8_t cur, uint8_t next,
				   uint32_t extra)
{
	struct fw_qp_transition rule;
	struct ordma_qp_attr a;

	fw_qp_transition_rule(type, cur, next, &rule);
	fill_attr(&a, rule.required | A(STATE) | extra, cur, next);
	return drv_modify_qp(&e->d, qpn, &a);
}

static struct fw_qp *fw_qp(struct drv_verbs *e, uint32_t qpn)
{
	return fw_qp_lookup(e->d.fw, qpn);
}

/* RESET -> INIT -> RTR -> RTS -> SQD, ERR directly, SQE (UD, UC) through
 * the engine hook.
 */
static bool move_to(struct drv_verbs *e, uint32_t qpn, uint8_t type,
		    uint8_t target)
{
	static const uint8_t path[] = {
		ORDMA_QPS_INIT, ORDMA_QPS_RTR, ORDMA_QPS_RTS, ORDMA_QPS_SQD,
	};
	uint8_t cur = ORDMA_QPS_RESET;
	size_t i;

	if (target == ORDMA_QPS_RESET)
		return true;
	if (target == ORDMA_QPS_ERR)
		return required_attrs_step(e, qpn, type, cur, target, 0) == OK;
	if (target == ORDMA_QPS_SQE) {
		if (type == ORDMA_QPT_RC || !move_to(e, qpn, type, ORDMA_QPS_RTS))
			return false;
		fw_qp_enter_sqe(e->d.fw, fw_qp(e, qpn));
		return true;
	}
	for (i = 0; i < sizeof(path); i++) {
		if (required_attrs_step(e, qpn, type, cur, path[i], 0) != OK)
			return false;
		cur = path[i];
		if (cur == target)
			return true;
	}
	return false;
}

static uint8_t qp_state(struct drv_verbs *e, uint32_t qpn)
{
	struct ordma_qp_attr a;

	if (drv_query_qp(&e->d, qpn, &a) != OK)
		return 0xff;
	return a.state;
}

static uint32_t lowest_bit(uint32_t mask)
{
	return mask & (~mask + 1);
}

static unsigned int eqe_type(const struct ordma_eqe *eqe)
{
	return FIELD_GET(ORDMA_EQE_TYPE, le32_to_cpu(eqe->type));
}

/* Next async event of the given type (others are skipped). */
static bool next_event(struct drv_verbs *e, unsigned int type,
		       struct ordma_eqe *eqe)
{
	while (drv_eq_next(&e->d, &e->async, eqe))
		if (eqe_type(eqe) == type)
			return true;
	return false;
}

static void drain_events(struct drv_verbs *e)
{
	struct ordma_eqe eqe;

	while (drv_eq_next(&e->d, &e->async, &eqe))
		;
	drv_eq_update(&e->d, &e->async, false);
}

static bool modify_srq_limit(struct drv_verbs *e, uint32_t srqn, uint32_t limit)
{
	struct ordma_aq_cmd cmd;
	uint8_t status;

	drv_cmd_init(&cmd, ORDMA_CMD_MODIFY_SRQ);
	cmd.modify_srq.srqn = cpu_to_le32(srqn);
	cmd.modify_srq.uctx = cpu_to_le32(e->uctx);
	cmd.modify_srq.limit = cpu_to_le32(limit);
	status = drv_exec(&e->d, &cmd);
	return status == OK || (status == BAD_PARAM && limit > 32);
}

/* ------------------------------------------------------------------ */
/* Transition table through MODIFY_QP                                  */
/* ------------------------------------------------------------------ */

static void check_one_transition(struct drv_verbs *e, uint8_t type,
				 uint8_t from, uint8_t to)
{
	struct fw_qp_transition rule;
	struct ordma_qp_attr a;
	uint32_t qpn, mask, bit, disallowed;

	fw_qp_transition_rule(type, from, to, &rule);
	REQUIRE_EQ(qp_create(e, type, QP_AREA, &qpn), OK);
	if (!CHECK(move_to(e, qpn, type, from)) ||
	    !CHECK_EQ(qp_state(e, qpn), from))
		goto out;

	if (!rule.valid) {
		fill_attr(&a, A(STATE), from, to);
		CHECK_EQ(drv_modify_qp(&e->d, qpn, &a), BAD_STATE);
		CHECK_EQ(qp_state(e, qpn), from);
		goto out;
	}
	/* without each required attribute */
	for (mask = rule.required; mask; mask &= ~bit) {
		bit = lowest_bit(mask);
		fill_attr(&a, (rule.required | A(STATE)) & ~bit, from, to);
		CHECK_EQ(drv_modify_qp(&e->d, qpn, &a), BAD_PARAM);
		CHECK_EQ(drv_syndrome(&e->d), AT(attr_mask));
		CHECK_EQ(qp_state(e, qpn), from);
	}
	/* with an attribute the transition does not take */
	disallowed = ORDMA_QP_ATTR_SUPPORTED &
		     ~(rule.required | rule.optional | A(STATE));
	if (disallowed) {
		bit = lowest_bit(disallowed);
		fill_attr(&a, rule.required | A(STATE) | bit, from, to);
		CHECK_EQ(drv_modify_qp(&e->d, qpn, &a), BAD_PARAM);
		CHECK_EQ(drv_syndrome(&e->d), AT(attr_mask));
		CHECK_EQ(qp_state(e, qpn), from);
	}
	/* required plus every supported optional one */
	fill_attr(&a, rule.required | A(STATE) |
		  (rule.optional & ORDMA_QP_ATTR_SUPPORTED), from, to);
	CHECK_EQ(drv_modify_qp(&e->d, qpn, &a), OK);
	CHECK_EQ(qp_state(e, qpn), to);
out:
	CHECK_EQ(qp_destroy(e, qpn), OK);
}

TEST(test_qp_every_transition)
{
	struct drv_verbs e;
	unsigned int type, from, to, done = 0;

	REQUIRE(env_open(&e, true));
	for (type = ORDMA_QPT_RC; type <= ORDMA_QPT_UC; type++) {
		for (from = 0; from < NUM_STATES; from++) {
			/* RC never enters SQE: its send errors go to ERR */
			if (type == ORDMA_QPT_RC && from == ORDMA_QPS_SQE)
				continue;
			for (to = 0; to < NUM_STATES; to++) {
				check_one_transition(&e, (uint8_t)type,
						     (uint8_t)from, (uint8_t)to);
				done++;
			}
			drain_events(&e);
		}
	}
	CHECK_EQ(done, 3 * NUM_STATES * NUM_STATES - NUM_STATES);
	drv_close(&e.d);
}

/* Attribute changes without STATE stay in the current state. */
TEST(test_qp_modify_without_state)
{
	struct ordma_qp_attr a;
	struct drv_verbs e;
	uint32_t qpn;

	REQUIRE(env_open(&e, false));
	REQUIRE_EQ(qp_create(&e, ORDMA_QPT_RC, QP_AREA, &qpn), OK);
	fill_attr(&a, 0, 0, 0);
	CHECK_EQ(drv_modify_qp(&e.d, qpn, &a), OK);	/* RESET -> RESET */
	REQUIRE(move_to(&e, qpn, ORDMA_QPT_RC, ORDMA_QPS_RTS));
	fill_attr(&a, A(MIN_RNR_TIMER) | A(CUR_STATE), ORDMA_QPS_RTS, 0);
	a.min_rnr_timer = 31;
	CHECK_EQ(drv_modify_qp(&e.d, qpn, &a), OK);
	CHECK_EQ(qp_state(&e, qpn), ORDMA_QPS_RTS);
	CHECK_EQ(fw_qp(&e, qpn)->attr.min_rnr_timer, 31);
	/* RTR has no RTR -> RTR */
	REQUIRE_EQ(qp_destroy(&e, qpn), OK);
	REQUIRE_EQ(qp_create(&e, ORDMA_QPT_RC, QP_AREA, &qpn), OK);
	REQUIRE(move_to(&e, qpn, ORDMA_QPT_RC, ORDMA_QPS_RTR));
	fill_attr(&a, A(ACCESS_FLAGS), 0, 0);
	CHECK_EQ(drv_modify_qp(&e.d, qpn, &a), BAD_STATE);
	drv_close(&e.d);
}

/* ------------------------------------------------------------------ */
/* MODIFY_QP validation                                                */
/* ------------------------------------------------------------------ */

struct bad_value {
	uint8_t from, to;
	size_t syndrome;
	void (*spoil)(struct ordma_qp_attr *a);
};

static void spoil_mtu_zero(struct ordma_qp_attr *a) { a->path_mtu = 0; }
static void spoil_mtu_6(struct ordma_qp_attr *a) { a->path_mtu = 6; }
static void spoil_mtu_port(struct ordma_qp_attr *a) { a->path_mtu = 4; }
static void spoil_dest_qpn(struct ordma_qp_attr *a)
{
	a->dest_qpn = cpu_to_le32(0x1000000);
}
static void spoil_rq_psn(struct ordma_qp_attr *a)
{
	a->rq_psn = cpu_to_le32(0x1000000);
}
static void spoil_sq_psn(struct ordma_qp_attr *a)
{
	a->sq_psn = cpu_to_le32(0xff000000);
}
static void spoil_min_rnr(struct ordma_qp_attr *a) { a->min_rnr_timer = 32; }
static void spoil_dest_rd(struct ordma_qp_attr *a) { a->max_dest_rd_atomic = 129; }
static void spoil_rd(struct ordma_qp_attr *a) { a->max_rd_atomic = 129; }
static void spoil_timeout(struct ordma_qp_attr *a) { a->timeout = 32; }
static void spoil_retry(struct ordma_qp_attr *a) { a->retry_cnt = 8; }
static void spoil_rnr_retry(struct ordma_qp_attr *a) { a->rnr_retry = 8; }
static void spoil_pkey(struct ordma_qp_attr *a) { a->pkey_index = cpu_to_le16(1); }
static void spoil_port(struct ordma_qp_attr *a) { a->port = 2; }
static void spoil_access(struct ordma_qp_attr *a)
{
	a->access_flags = cpu_to_le32(0x10);
}
static void spoil_sgid(struct ordma_qp_attr *a) { a->av.sgid_index = 5; }
static void spoil_dmac(struct ordma_qp_attr *a) { a->av.dmac[0] = 0x01; }
static void spoil_dgid_mcast(struct ordma_qp_attr *a) { a->av.dgid[0] = 0xff; }
static void spoil_dgid_zero(struct ordma_qp_attr *a)
{
	memset(a->av.dgid, 0, 16);
}
static void spoil_flow_label(struct ordma_qp_attr *a)
{
	a->av.flow_label = cpu_to_le32(0x100000);
}
static void spoil_vlan(struct ordma_qp_attr *a) { a->av.vlan_id = cpu_to_le16(4096); }
static void spoil_av_reserved(struct ordma_qp_attr *a) { a->av.reserved_29 = 1; }
static void spoil_sqd_notify(struct ordma_qp_attr *a) { a->en_sqd_async_notify = 2; }
static void spoil_state(struct ordma_qp_attr *a) { a->state = 7; }
static void spoil_cur_state(struct ordma_qp_attr *a)
{
	a->attr_mask |= cpu_to_le32(A(CUR_STATE));
	a->cur_state = 9;
}
static void spoil_unmasked_qkey(struct ordma_qp_attr *a)
{
	a->qkey = cpu_to_le32(5);
}
static void spoil_unmasked_av(struct ordma_qp_attr *a) { a->av.hop_limit = 1; }
static void spoil_draining(struct ordma_qp_attr *a) { a->sq_draining = 1; }
static void spoil_reserved(struct ordma_qp_attr *a)
{
	a->reserved_38 = cpu_to_le16(1);
}
static void spoil_mask_bit21(struct ordma_qp_attr *a)
{
	a->attr_mask |= cpu_to_le32(1u << 21);
}

#define INIT	ORDMA_QPS_INIT
#define RTR	ORDMA_QPS_RTR
#define RTS	ORDMA_QPS_RTS
#define SQD	ORDMA_QPS_SQD
#define RESET	ORDMA_QPS_RESET

static const struct bad_value bad_values[] = {
	{ INIT, RTR, AT(path_mtu), spoil_mtu_zero },
	{ INIT, RTR, AT(path_mtu), spoil_mtu_6 },
	{ INIT, RTR, AT(path_mtu), spoil_mtu_port },
	{ INIT, RTR, AT(dest_qpn), spoil_dest_qpn },
	{ INIT, RTR, AT(rq_psn), spoil_rq_psn },
	{ INIT, RTR, AT(min_rnr_timer), spoil_min_rnr },
	{ INIT, RTR, AT(max_dest_rd_atomic), spoil_dest_rd },
	{ INIT, RTR, AT(av.sgid_index), spoil_sgid },
	{ INIT, RTR, AT(av.dmac), spoil_dmac },
	{ INIT, RTR, AT(av.dgid), spoil_dgid_mcast },
	{ INIT, RTR, AT(av.dgid), spoil_dgid_zero },
	{ INIT, RTR, AT(av.flow_label), spoil_flow_label },
	{ INIT, RTR, AT(av.vlan_id), spoil_vlan },
	{ INIT, RTR, AT(av.reserved_29), spoil_av_reserved },
	{ RTR, RTS, AT(sq_psn), spoil_sq_psn },
	{ RTR, RTS, AT(max_rd_atomic), spoil_rd },
	{ RTR, RTS, AT(timeout), spoil_timeout },
	{ RTR, RTS, AT(retry_cnt), spoil_retry },
	{ RTR, RTS, AT(rnr_retry), spoil_rnr_retry },
	{ RESET, INIT, AT(pkey_index), spoil_pkey },
	{ RESET, INIT, AT(port), spoil_port },
	{ RESET, INIT, AT(access_flags), spoil_access },
	{ RTS, SQD, AT(en_sqd_async_notify), spoil_sqd_notify },
	{ RESET, INIT, AT(state), spoil_state },
	{ RTR, RTS, AT(cur_state), spoil_cur_state },
	{ RESET, INIT, AT(qkey), spoil_unmasked_qkey },
	{ RESET, INIT, AT(av.hop_limit), spoil_unmasked_av },
	{ RESET, INIT, AT(sq_draining), spoil_draining },
	{ RESET, INIT, AT(reserved_38), spoil_reserved },
	{ RESET, INIT, AT(attr_mask), spoil_mask_bit21 },
};

TEST(test_qp_modify_bad_values)
{
	struct ordma_qp_attr a, before, after;
	struct drv_verbs e;
	uint32_t qpn;
	size_t i;

	REQUIRE(env_open(&e, false));
	for (i = 0; i < sizeof(bad_values) / sizeof(bad_values[0]); i++) {
		const struct bad_value *b = &bad_values[i];
		struct fw_qp_transition rule;

		REQUIRE_EQ(qp_create(&e, ORDMA_QPT_RC, QP_AREA, &qpn), OK);
		REQUIRE(move_to(&e, qpn, ORDMA_QPT_RC, b->from));
		REQUIRE_EQ(drv_query_qp(&e.d, qpn, &before), OK);
		fw_qp_transition_rule(ORDMA_QPT_RC, b->from, b->to, &rule);
		fill_attr(&a, rule.required | rule.optional | A(STATE),
			  b->from, b->to);
		a.attr_mask &= cpu_to_le32(ORDMA_QP_ATTR_SUPPORTED &
					   ~(uint32_t)A(CUR_STATE));
		a.cur_state = 0;
		b->spoil(&a);
		if (!CHECK_EQ(drv_modify_qp(&e.d, qpn, &a), BAD_PARAM) ||
		    !CHECK_EQ(drv_syndrome(&e.d), b->syndrome))
			NOTE("case %zu", i);
		/* nothing of a failed MODIFY_QP is applied */
		REQUIRE_EQ(drv_query_qp(&e.d, qpn, &after), OK);
		CHECK(!memcmp(&before, &after, sizeof(before)));
		CHECK_EQ(qp_destroy(&e, qpn), OK);
	}
	/* a larger port MTU makes 4096 acceptable */
	CHECK_EQ(drv_set_port(&e.d, ORDMA_SET_PORT_MTU, 9000, NULL, 0, 0), OK);
	REQUIRE_EQ(qp_create(&e, ORDMA_QPT_RC, QP_AREA, &qpn), OK);
	REQUIRE(move_to(&e, qpn, ORDMA_QPT_RC, INIT));
	fill_attr(&a, A(STATE) | A(AV) | A(PATH_MTU) | A(DEST_QPN) | A(RQ_PSN) |
		  A(MAX_DEST_RD_ATOMIC) | A(MIN_RNR_TIMER), INIT, RTR);
	a.path_mtu = 5;
	CHECK_EQ(drv_modify_qp(&e.d, qpn, &a), OK);
	drv_close(&e.d);
}

TEST(test_qp_modify_mask_and_buffer)
{
	struct ordma_aq_cmd cmd;
	struct ordma_qp_attr a;
	struct drv_verbs e;
	uint32_t qpn;

	REQUIRE(env_open(&e, false));
	REQUIRE_EQ(qp_create(&e, ORDMA_QPT_RC, QP_AREA, &qpn), OK);
	REQUIRE(move_to(&e, qpn, ORDMA_QPT_RC, RTR));

	/* defined but unsupported attributes */
	fill_attr(&a, A(STATE) | A(TIMEOUT) | A(RETRY_CNT) | A(RNR_RETRY) |
		  A(SQ_PSN) | A(MAX_QP_RD_ATOMIC) | A(ALT_PATH), RTR, RTS);
	CHECK_EQ(drv_modify_qp(&e.d, qpn, &a), ORDMA_CMD_STATUS_NOT_SUPPORTED);
	a.attr_mask = cpu_to_le32(le32_to_cpu(a.attr_mask) & ~A(ALT_PATH));
	a.attr_mask |= cpu_to_le32(A(PATH_MIG_STATE));
	CHECK_EQ(drv_modify_qp(&e.d, qpn, &a), ORDMA_CMD_STATUS_NOT_SUPPORTED);
	a.attr_mask = cpu_to_le32(le32_to_cpu(a.attr_mask) & ~A(PATH_MIG_STATE));
	a.attr_mask |= cpu_to_le32(A(CAP));
	CHECK_EQ(drv_modify_qp(&e.d, qpn, &a), ORDMA_CMD_STATUS_NOT_SUPPORTED);
	a.attr_mask = cpu_to_le32(le32_to_cpu(a.attr_mask) & ~A(CAP));
	/* cur_state must be the truth */
	a.attr_mask |= cpu_to_le32(A(CUR_STATE));
	a.cur_state = INIT;
	CHECK_EQ(drv_modify_qp(&e.d, qpn, &a), BAD_STATE);
	CHECK_EQ(qp_state(&e, qpn), RTR);
	a.cur_state = RTR;
	CHECK_EQ(drv_modify_qp(&e.d, qpn, &a), OK);
	CHECK_EQ(qp_state(&e, qpn), RTS);
	/* to SQE is never allowed */
	fill_attr(&a, A(STATE), RTS, ORDMA_QPS_SQE);
	CHECK_EQ(drv_modify_qp(&e.d, qpn, &a), BAD_STATE);

	/* the command entry and the buffer */
	drv_cmd_init(&cmd, ORDMA_CMD_MODIFY_QP);
	cmd.buf.buf_addr = cpu_to_le64(0);
	cmd.buf.buf_len = cpu_to_le32(sizeof(a));
	cmd.buf.handle = cpu_to_le32(qpn);
	CHECK_EQ(drv_exec(&e.d, &cmd), BAD_PARAM);
	CHECK_EQ(drv_syndrome(&e.d), 8);
	cmd.buf.buf_addr = cpu_to_le64(DRV_QP_BUF_ADDR + 4);
	CHECK_EQ(drv_exec(&e.d, &cmd), BAD_PARAM);
	CHECK_EQ(drv_syndrome(&e.d), 8);
	cmd.buf.buf_addr = cpu_to_le64(DRV_QP_BUF_ADDR);
	cmd.buf.buf_len = cpu_to_le32(sizeof(a) - 1);
	CHECK_EQ(drv_exec(&e.d, &cmd), BAD_PARAM);
	CHECK_EQ(drv_syndrome(&e.d), 16);
	cmd.buf.buf_len = cpu_to_le32(sizeof(a) + 8);
	CHECK_EQ(drv_exec(&e.d, &cmd), BAD_PARAM);
	CHECK_EQ(drv_syndrome(&e.d), 16);
	cmd.buf.buf_addr = cpu_to_le64(DRV_BAD_ADDR);
	cmd.buf.buf_len = cpu_to_le32(sizeof(a));
	CHECK_EQ(drv_exec(&e.d, &cmd), ORDMA_CMD_STATUS_DMA_ERROR);
	cmd.buf.buf_addr = cpu_to_le64(DRV_QP_BUF_ADDR);
	cmd.buf.handle = cpu_to_le32(qpn + 1);
	CHECK_EQ(drv_exec(&e.d, &cmd), BAD_HANDLE);
	cmd.buf.handle = cpu_to_le32(1);	/* GSI: never handed out */
	CHECK_EQ(drv_exec(&e.d, &cmd), BAD_HANDLE);
	cmd.buf.handle = cpu_to_le32(0xffffff);
	CHECK_EQ(drv_exec(&e.d, &cmd), BAD_HANDLE);
	/* trailing bytes of the command entry */
	drv_cmd_init(&cmd, ORDMA_CMD_MODIFY_QP);
	cmd.raw[16] = 1;
	CHECK_EQ(drv_exec(&e.d, &cmd), BAD_PARAM);
	CHECK_EQ(drv_syndrome(&e.d), 24);
	CHECK_EQ(qp_state(&e, qpn), RTS);
	drv_close(&e.d);
}

/* ------------------------------------------------------------------ */
/* CREATE_QP                                                           */
/* ------------------------------------------------------------------ */

struct bad_create {
	uint8_t status;
	size_t syndrome;	/* BAD_PARAM only */
	void (*spoil)(struct ordma_qp_create_params *p);
};

static void cp_reserved_25(struct ordma_qp_create_params *p) { p->reserved_25 = 1; }
static void cp_reserved_26(struct ordma_qp_create_params *p)
{
	p->reserved_26 = cpu_to_le16(0x100);
}
static void cp_type(struct ordma_qp_create_params *p) { p->type = 0x7f; }
static void cp_sq_log_0(struct ordma_qp_create_params *p) { p->sq_log_size = 0; }
static void cp_sq_log_13(struct ordma_qp_create_params *p) { p->sq_log_size = 13; }
static void cp_sq_shift_5(struct ordma_qp_create_params *p) { p->sq_wqe_shift = 5; }
static void cp_sq_shift_10(struct ordma_qp_create_params *p) { p->sq_wqe_shift = 10; }
static void cp_rq_log_0(struct ordma_qp_create_params *p) { p->rq_log_size = 0; }
static void cp_rq_log_13(struct ordma_qp_create_params *p) { p->rq_log_size = 13; }
static void cp_rq_shift_3(struct ordma_qp_create_params *p) { p->rq_wqe_shift = 3; }
static void cp_rq_shift_4(struct ordma_qp_create_params *p) { p->rq_wqe_shift = 4; }
static void cp_rq_shift_9(struct ordma_qp_create_params *p) { p->rq_wqe_shift = 9; }
static void cp_inline_257(struct ordma_qp_create_params *p)
{
	p->sq_wqe_shift = 9;
	drv_page_list_contig(&p->sq, DRV_WQ_ADDR(QP_AREA), 16 * 512);
	p->max_inline_data = cpu_to_le32(257);
}
static void cp_inline_room(struct ordma_qp_create_params *p)
{
	p->max_inline_data = cpu_to_le32(17);	/* 64-byte WQE: 16 bytes */
}
static void cp_sq_shift_11(struct ordma_qp_create_params *p) { p->sq.page_shift = 11; }
static void cp_sq_levels(struct ordma_qp_create_params *p) { p->sq.levels = 3; }
static void cp_sq_pages_0(struct ordma_qp_create_params *p) { p->sq.num_pages = 0; }
static void cp_sq_short(struct ordma_qp_create_params *p) { p->sq_log_size = 7; }
static void cp_sq_addr_0(struct ordma_qp_create_params *p) { p->sq.addr = 0; }
static void cp_sq_addr_align(struct ordma_qp_create_params *p)
{
	p->sq.addr = cpu_to_le64(DRV_WQ_ADDR(QP_AREA) + 64);
}
static void cp_sq_reserved(struct ordma_qp_create_params *p)
{
	p->sq.reserved_14 = cpu_to_le16(1);
}
static void cp_rq_short(struct ordma_qp_create_params *p) { p->rq_log_size = 8; }
static void cp_rq_addr_0(struct ordma_qp_create_params *p) { p->rq.addr = 0; }
static void cp_uctx(struct ordma_qp_create_params *p) { p->uctx = cpu_to_le32(77); }
static void cp_pdn(struct ordma_qp_create_params *p) { p->pdn = cpu_to_le32(999); }
static void cp_pdn_0(struct ordma_qp_create_params *p) { p->pdn = 0; }
static void cp_send_cq(struct ordma_qp_create_params *p)
{
	p->send_cqn = cpu_to_le32(1000);
}
static void cp_recv_cq(struct ordma_qp_create_params *p) { p->recv_cqn = 0; }
static void cp_srq_missing(struct ordma_qp_create_params *p)
{
	p->srqn = cpu_to_le32(3);
	p->rq_log_size = 0;
	p->rq_wqe_shift = 0;
	memset(&p->rq, 0, sizeof(p->rq));
}

static const struct bad_create bad_creates[] = {
	{ BAD_PARAM, CP(reserved_25), cp_reserved_25 },
	{ BAD_PARAM, CP(reserved_26), cp_reserved_26 },
	{ BAD_PARAM, CP(type), cp_type },
	{ BAD_PARAM, CP(sq_log_size), cp_sq_log_0 },
	{ BAD_PARAM, CP(sq_log_size), cp_sq_log_13 },
	{ BAD_PARAM, CP(sq_wqe_shift), cp_sq_shift_5 },
	{ BAD_PARAM, CP(sq_wqe_shift), cp_sq_shift_10 },
	{ BAD_PARAM, CP(rq_log_size), cp_rq_log_0 },
	{ BAD_PARAM, CP(rq_log_size), cp_rq_log_13 },
	{ BAD_PARAM, CP(rq_wqe_shift), cp_rq_shift_3 },
	{ BAD_PARAM, CP(rq_wqe_shift), cp_rq_shift_4 },
	{ BAD_PARAM, CP(rq_wqe_shift), cp_rq_shift_9 },
	{ BAD_PARAM, CP(max_inline_data), cp_inline_257 },
	{ BAD_PARAM, CP(max_inline_data), cp_inline_room },
	{ BAD_PARAM, CP(sq.page_shift), cp_sq_shift_11 },
	{ BAD_PARAM, CP(sq.levels), cp_sq_levels },
	{ BAD_PARAM, CP(sq.num_pages), cp_sq_pages_0 },
	{ BAD_PARAM, CP(sq.num_pages), cp_sq_short },
	{ BAD_PARAM, CP(sq.addr), cp_sq_addr_0 },
	{ BAD_PARAM, CP(sq.addr), cp_sq_addr_align },
	{ BAD_PARAM, CP(sq.reserved_14), cp_sq_reserved },
	{ BAD_PARAM, CP(rq.num_pages), cp_rq_short },
	{ BAD_PARAM, CP(rq.addr), cp_rq_addr_0 },
	{ BAD_HANDLE, 0, cp_uctx },
	{ BAD_HANDLE, 0, cp_pdn },
	{ BAD_HANDLE, 0, cp_pdn_0 },
	{ BAD_HANDLE, 0, cp_send_cq },
	{ BAD_HANDLE, 0, cp_recv_cq },
	{ BAD_HANDLE, 0, cp_srq_missing },
};

TEST(test_qp_create_validation)
{
	struct ordma_qp_create_params p;
	struct ordma_aq_cmd cmd;
	struct drv_verbs e;
	uint32_t qpn, other_pd, other_uctx;
	struct drv_cq other_cq;
	size_t i;

	REQUIRE(env_open(&e, true));
	for (i = 0; i < sizeof(bad_creates) / sizeof(bad_creates[0]); i++) {
		qp_params(&e, &p, ORDMA_QPT_RC, QP_AREA);
		bad_creates[i].spoil(&p);
		if (!CHECK_EQ(drv_create_qp(&e.d, &p, &qpn), bad_creates[i].status) ||
		    (bad_creates[i].status == BAD_PARAM &&
		     !CHECK_EQ(drv_syndrome(&e.d), bad_creates[i].syndrome)))
			NOTE("case %zu", i);
	}
	/* objects of another context */
	REQUIRE_EQ(drv_alloc_uctx(&e.d, &other_uctx), OK);
	REQUIRE_EQ(drv_alloc_pd(&e.d, other_uctx, &other_pd), OK);
	REQUIRE(drv_cq_open(&e.d, &other_cq, 2, other_uctx, e.comp.eqn, 4));
	qp_params(&e, &p, ORDMA_QPT_RC, QP_AREA);
	p.pdn = cpu_to_le32(other_pd);
	CHECK_EQ(drv_create_qp(&e.d, &p, &qpn), ORDMA_CMD_STATUS_PERM);
	qp_params(&e, &p, ORDMA_QPT_RC, QP_AREA);
	p.send_cqn = cpu_to_le32(other_cq.cqn);
	CHECK_EQ(drv_create_qp(&e.d, &p, &qpn), ORDMA_CMD_STATUS_PERM);
	qp_params(&e, &p, ORDMA_QPT_UD, QP_AREA);
	p.recv_cqn = cpu_to_le32(other_cq.cqn);
	CHECK_EQ(drv_create_qp(&e.d, &p, &qpn), ORDMA_CMD_STATUS_PERM);
	/* the kernel cannot use a user context's objects either */
	qp_params(&e, &p, ORDMA_QPT_RC, QP_AREA);
	p.uctx = 0;
	CHECK_EQ(drv_create_qp(&e.d, &p, &qpn), ORDMA_CMD_STATUS_PERM);

	/* the command entry */
	memcpy(drv_mem(&e.d, DRV_QP_BUF_ADDR, sizeof(p)), &p, sizeof(p));
	drv_cmd_init(&cmd, ORDMA_CMD_CREATE_QP);
	cmd.buf.buf_addr = cpu_to_le64(DRV_QP_BUF_ADDR);
	cmd.buf.buf_len = cpu_to_le32(sizeof(p));
	cmd.buf.handle = cpu_to_le32(1);
	CHECK_EQ(drv_exec(&e.d, &cmd), BAD_PARAM);
	CHECK_EQ(drv_syndrome(&e.d), 20);
	cmd.buf.handle = 0;
	cmd.buf.buf_len = cpu_to_le32(sizeof(p) - 8);
	CHECK_EQ(drv_exec(&e.d, &cmd), BAD_PARAM);
	CHECK_EQ(drv_syndrome(&e.d), 16);
	cmd.buf.buf_len = cpu_to_le32(sizeof(p));
	cmd.buf.buf_addr = cpu_to_le64(DRV_BAD_ADDR);
	CHECK_EQ(drv_exec(&e.d, &cmd), ORDMA_CMD_STATUS_DMA_ERROR);
	cmd.buf.buf_addr = cpu_to_le64(UINT64_MAX - 7);
	CHECK_EQ(drv_exec(&e.d, &cmd), BAD_PARAM);
	CHECK_EQ(drv_syndrome(&e.d), 8);

	/* nothing leaked a reference: the objects go away */
	CHECK_EQ(drv_destroy_cq(&e.d, &e.scq), OK);
	CHECK_EQ(drv_destroy_cq(&e.d, &e.rcq), OK);
	CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DEALLOC_PD, e.pdn, e.uctx), OK);
	drv_close(&e.d);
}

TEST(test_qp_create_limits)
{
	struct ordma_qp_create_params p;
	struct drv_verbs e;
	uint32_t qpn, n;

	REQUIRE(env_open(&e, false));
	/* largest queues: 4096 x 512-byte send WQEs, 4096 x 256-byte
	 * receive WQEs through level-1 page lists (the pages themselves
	 * are never touched here)
	 */
	qp_params(&e, &p, ORDMA_QPT_RC, QP_AREA);
	p.sq_log_size = 12;
	p.sq_wqe_shift = 9;
	p.sq.addr = cpu_to_le64(DRV_SCRATCH_ADDR);
	p.sq.num_pages = cpu_to_le32(512);
	p.sq.levels = 1;
	p.rq_log_size = 12;
	p.rq_wqe_shift = 8;
	p.rq.addr = cpu_to_le64(DRV_SCRATCH_ADDR + 0x1000);
	p.rq.num_pages = cpu_to_le32(256);
	p.rq.levels = 1;
	p.max_inline_data = cpu_to_le32(256);
	CHECK_EQ(drv_create_qp(&e.d, &p, &qpn), OK);
	CHECK_EQ(qpn, FW_FIRST_QPN);
	CHECK_EQ(qp_destroy(&e, qpn), OK);

	/* 2..1023, then no more */
	for (n = FW_FIRST_QPN; n < FW_MAX_QP; n++) {
		if (!CHECK_EQ(qp_create(&e, ORDMA_QPT_UD, QP_AREA, &qpn), OK))
			break;
		CHECK_EQ(qpn, n);
	}
	CHECK_EQ(qp_create(&e, ORDMA_QPT_UD, QP_AREA, &qpn),
		 ORDMA_CMD_STATUS_NO_RESOURCES);
	CHECK_EQ(qp_destroy(&e, 500), OK);
	CHECK_EQ(qp_create(&e, ORDMA_QPT_RC, QP_AREA, &qpn), OK);
	CHECK_EQ(qpn, 500);
	drv_close(&e.d);
}

/* ------------------------------------------------------------------ */
/* QUERY_QP                                                            */
/* ------------------------------------------------------------------ */

TEST(test_qp_query_round_trip)
{
	struct ordma_qp_attr a, q;
	struct ordma_aq_cmd cmd;
	struct drv_verbs e;
	uint32_t qpn, ud;

	REQUIRE(env_open(&e, false));
	REQUIRE_EQ(qp_create(&e, ORDMA_QPT_RC, QP_AREA, &qpn), OK);
	REQUIRE_EQ(drv_query_qp(&e.d, qpn, &q), OK);
	CHECK_EQ(le32_to_cpu(e.d.last_comp.buf.written), sizeof(q));
	CHECK_EQ(q.state, RESET);
	CHECK_EQ(q.port, 0);
	REQUIRE(move_to(&e, qpn, ORDMA_QPT_RC, RTS));

	REQUIRE_EQ(drv_query_qp(&e.d, qpn, &q), OK);
	fill_attr(&a, ORDMA_QP_ATTR_SUPPORTED & ~(uint32_t)(A(QKEY) |
							    A(EN_SQD_ASYNC)),
		  RTS, RTS);
	CHECK_EQ(q.attr_mask, 0);
	CHECK_EQ(q.state, RTS);
	CHECK_EQ(q.cur_state, RTS);
	CHECK_EQ(q.path_mtu, a.path_mtu);
	CHECK_EQ(q.en_sqd_async_notify, 0);
	CHECK_EQ(le32_to_cpu(q.access_flags), le32_to_cpu(a.access_flags));
	CHECK_EQ(q.qkey, 0);
	CHECK_EQ(le32_to_cpu(q.rq_psn), 0x123456);
	CHECK_EQ(le32_to_cpu(q.sq_psn), 0x654321);
	CHECK_EQ(le32_to_cpu(q.dest_qpn), 0x42);
	CHECK_EQ(q.timeout, a.timeout);
	CHECK_EQ(q.retry_cnt, a.retry_cnt);
	CHECK_EQ(q.rnr_retry, a.rnr_retry);
	CHECK_EQ(q.min_rnr_timer, a.min_rnr_timer);
	CHECK_EQ(q.max_rd_atomic, a.max_rd_atomic);
	CHECK_EQ(q.max_dest_rd_atomic, a.max_dest_rd_atomic);
	CHECK_EQ(q.pkey_index, 0);
	CHECK_EQ(q.port, 1);
	CHECK_EQ(q.sq_draining, 0);
	CHECK_EQ(q.reserved_38, 0);
	CHECK(!memcmp(&q.av, &a.av, sizeof(q.av)));

	/* a change in RTS shows up */
	fill_attr(&a, A(ACCESS_FLAGS) | A(MIN_RNR_TIMER), RTS, RTS);
	a.access_flags = cpu_to_le32(ORDMA_ACCESS_REMOTE_ATOMIC);
	a.min_rnr_timer = 1;
	REQUIRE_EQ(drv_modify_qp(&e.d, qpn, &a), OK);
	REQUIRE_EQ(drv_query_qp(&e.d, qpn, &q), OK);
	CHECK_EQ(le32_to_cpu(q.access_flags), ORDMA_ACCESS_REMOTE_ATOMIC);
	CHECK_EQ(q.min_rnr_timer, 1);

	/* UD keeps its Q_Key; back to RESET clears everything */
	REQUIRE_EQ(qp_create(&e, ORDMA_QPT_UD, QP_AREA + 1, &ud), OK);
	REQUIRE(move_to(&e, ud, ORDMA_QPT_UD, RTS));
	REQUIRE_EQ(drv_query_qp(&e.d, ud, &q), OK);
	CHECK_EQ(le32_to_cpu(q.qkey), 0x11111111);
	CHECK_EQ(le32_to_cpu(q.sq_psn), 0x654321);
	CHECK_EQ(q.path_mtu, 0);
	fill_attr(&a, A(STATE), RTS, RESET);
	REQUIRE_EQ(drv_modify_qp(&e.d, ud, &a), OK);
	REQUIRE_EQ(drv_query_qp(&e.d, ud, &q), OK);
	CHECK_EQ(q.state, RESET);
	CHECK_EQ(q.qkey, 0);
	CHECK_EQ(q.sq_psn, 0);
	CHECK_EQ(q.port, 0);

	/* command checks */
	drv_cmd_init(&cmd, ORDMA_CMD_QUERY_QP);
	cmd.buf.buf_addr = cpu_to_le64(DRV_QP_BUF_ADDR);
	cmd.buf.buf_len = cpu_to_le32(sizeof(q) - 1);
	cmd.buf.handle = cpu_to_le32(qpn);
	CHECK_EQ(drv_exec(&e.d, &cmd), BAD_PARAM);
	CHECK_EQ(drv_syndrome(&e.d), 16);
	cmd.buf.buf_len = cpu_to_le32(sizeof(q));
	cmd.buf.buf_addr = cpu_to_le64(DRV_BAD_ADDR);
	CHECK_EQ(drv_exec(&e.d, &cmd), ORDMA_CMD_STATUS_DMA_ERROR);
	cmd.buf.buf_addr = cpu_to_le64(DRV_QP_BUF_ADDR);
	cmd.buf.handle = cpu_to_le32(777);
	CHECK_EQ(drv_exec(&e.d, &cmd), BAD_HANDLE);
	drv_close(&e.d);
}

/* ------------------------------------------------------------------ */
/* QUERY_QP_STATS                                                      */
/* ------------------------------------------------------------------ */

TEST(test_qp_query_stats)
{
	struct ordma_qp_stats s, zero;
	struct ordma_aq_cmd cmd;
	struct ordma_qp_attr a;
	struct drv_verbs e;
	uint32_t qpn, ud;

	memset(&zero, 0, sizeof(zero));
	REQUIRE(env_open(&e, false));
	REQUIRE_EQ(drv_query_qp_stats(&e.d, ORDMA_QP_STATS_ALL, &s), OK);
	CHECK(!memcmp(&s, &zero, sizeof(s)));
	REQUIRE_EQ(qp_create(&e, ORDMA_QPT_RC, QP_AREA, &qpn), OK);
	REQUIRE_EQ(qp_create(&e, ORDMA_QPT_UD, QP_AREA + 1, &ud), OK);
	REQUIRE_EQ(drv_query_qp_stats(&e.d, qpn, &s), OK);
	CHECK_EQ(le32_to_cpu(e.d.last_comp.buf.written), sizeof(s));
	CHECK(!memcmp(&s, &zero, sizeof(s)));

	/* each firmware counter lands in its field */
	fw_qp(&e, qpn)->counters.seq_errors = 1;
	fw_qp(&e, qpn)->counters.nak_seq_received = 2;
	fw_qp(&e, qpn)->counters.duplicate_requests = 3;
	fw_qp(&e, qpn)->counters.rnr_retry_exceeded = 4;
	fw_qp(&e, qpn)->counters.timeouts = 5;
	fw_qp(&e, qpn)->counters.access_naks_sent = 6;
	fw_qp(&e, qpn)->counters.rnr_naks_sent = 7;
	fw_qp(&e, qpn)->counters.rx_write_requests = 8;
	fw_qp(&e, ud)->counters.rx_packets = 9;
	REQUIRE_EQ(drv_query_qp_stats(&e.d, qpn, &s), OK);
	CHECK_EQ(le64_to_cpu(s.out_of_sequence), 1);
	CHECK_EQ(le64_to_cpu(s.packet_seq_err), 2);
	CHECK_EQ(le64_to_cpu(s.duplicate_request), 3);
	CHECK_EQ(le64_to_cpu(s.rnr_nak_retry_err), 4);
	CHECK_EQ(le64_to_cpu(s.local_ack_timeout_err), 5);
	CHECK_EQ(le64_to_cpu(s.resp_remote_access_errors), 6);
	CHECK_EQ(le64_to_cpu(s.rnr_nak_sent), 7);
	CHECK_EQ(le64_to_cpu(s.rx_write_requests), 8);
	CHECK_EQ(le64_to_cpu(s.qp_rx_packets), 0);
	CHECK_EQ(le64_to_cpu(s.np_cnp_sent), 0);

	/* the device's totals keep what RESET and DESTROY_QP clear */
	REQUIRE(move_to(&e, ud, ORDMA_QPT_UD, RTS));
	fill_attr(&a, A(STATE), RTS, RESET);
	REQUIRE_EQ(drv_modify_qp(&e.d, ud, &a), OK);
	REQUIRE_EQ(drv_query_qp_stats(&e.d, ud, &s), OK);
	CHECK_EQ(le64_to_cpu(s.qp_rx_packets), 0);
	REQUIRE_EQ(qp_destroy(&e, qpn), OK);
	fw_qp(&e, ud)->counters.rx_packets = 1;
	REQUIRE_EQ(drv_query_qp_stats(&e.d, ORDMA_QP_STATS_ALL, &s), OK);
	CHECK_EQ(le64_to_cpu(s.out_of_sequence), 1);
	CHECK_EQ(le64_to_cpu(s.local_ack_timeout_err), 5);
	CHECK_EQ(le64_to_cpu(s.rx_write_requests), 8);
	CHECK_EQ(le64_to_cpu(s.qp_rx_packets), 10);

	/* command checks */
	drv_cmd_init(&cmd, ORDMA_CMD_QUERY_QP_STATS);
	cmd.buf.buf_addr = cpu_to_le64(DRV_QP_BUF_ADDR + 4);
	cmd.buf.buf_len = cpu_to_le32(sizeof(s));
	cmd.buf.handle = cpu_to_le32(ud);
	CHECK_EQ(drv_exec(&e.d, &cmd), BAD_PARAM);
	CHECK_EQ(drv_syndrome(&e.d), 8);
	cmd.buf.buf_addr = cpu_to_le64(DRV_QP_BUF_ADDR);
	cmd.buf.buf_len = cpu_to_le32(sizeof(s) + 8);
	CHECK_EQ(drv_exec(&e.d, &cmd), BAD_PARAM);
	CHECK_EQ(drv_syndrome(&e.d), 16);
	cmd.buf.buf_len = cpu_to_le32(sizeof(s));
	cmd.buf.buf_addr = cpu_to_le64(DRV_BAD_ADDR);
	CHECK_EQ(drv_exec(&e.d, &cmd), ORDMA_CMD_STATUS_DMA_ERROR);
	cmd.buf.buf_addr = cpu_to_le64(DRV_QP_BUF_ADDR);
	cmd.buf.handle = cpu_to_le32(qpn);
	CHECK_EQ(drv_exec(&e.d, &cmd), BAD_HANDLE);
	cmd.buf.handle = cpu_to_le32(FW_MAX_QP);
	CHECK_EQ(drv_exec(&e.d, &cmd), BAD_HANDLE);
	drv_close(&e.d);
}

/* ------------------------------------------------------------------ */
/* Flush to the error state                                            */
/* ------------------------------------------------------------------ */

static const uint8_t send_opcodes[] = {
	ORDMA_WQE_SEND, ORDMA_WQE_RDMA_WRITE, ORDMA_WQE_RDMA_READ,
	ORDMA_WQE_ATOMIC_CMP_SWP, ORDMA_WQE_ATOMIC_FETCH_ADD,
	ORDMA_WQE_LOCAL_INV, ORDMA_WQE_REG_MR, ORDMA_WQE_SEND_IMM,
	ORDMA_WQE_RDMA_WRITE_IMM, ORDMA_WQE_SEND_INV, 0x7f,
};

static const uint8_t flush_opcodes[] = {
	ORDMA_CQE_OP_SEND, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_OP_RDMA_READ,
	ORDMA_CQE_OP_CMP_SWP, ORDMA_CQE_OP_FETCH_ADD, ORDMA_CQE_OP_LOCAL_INV,
	ORDMA_CQE_OP_REG_MR, ORDMA_CQE_OP_SEND, ORDMA_CQE_OP_RDMA_WRITE,
	ORDMA_CQE_OP_SEND, ORDMA_CQE_OP_SEND,
};

#define NUM_SEND_OPS	(sizeof(send_opcodes) / sizeof(send_opcodes[0]))

static void put_send_wqe(struct drv_verbs *e, unsigned int area, uint32_t index,
			 uint8_t opcode)
{
	struct ordma_wqe_ctrl *ctrl =
		drv_mem(&e->d, DRV_WQ_ADDR(area) + (index % SQ_SIZE) * 64, 64);

	memset(ctrl, 0, 64);
	ctrl->ctrl = cpu_to_le32(FIELD_PREP(ORDMA_WQE_OPCODE, opcode) |
				 FIELD_PREP(ORDMA_WQE_NUM_SGE, 1) |
				 ORDMA_WQE_SIGNALED);
}

static bool expect_flush(struct drv_verbs *e, struct drv_cq *cq, uint32_t qpn,
			 uint32_t slot, uint8_t opcode)
{
	struct ordma_cqe cqe;

	if (!CHECK(drv_cq_next(&e->d, cq, &cqe)))
		return false;
	return CHECK_EQ(le32_to_cpu(cqe.qpn), qpn) &&
	       CHECK_EQ(le32_to_cpu(cqe.wqe_idx), slot) &&
	       CHECK_EQ(cqe.opcode, opcode) &&
	       CHECK_EQ(cqe.status, ORDMA_CQE_WR_FLUSH_ERR) &&
	       CHECK_EQ(cqe.byte_len, 0);
}

TEST(test_qp_flush_to_error)
{
	struct ordma_qp_attr a;
	struct ordma_cqe cqe;
	struct drv_verbs e;
	uint32_t qpn, i, errors;

	REQUIRE(env_open(&e, true));
	REQUIRE_EQ(qp_create(&e, ORDMA_QPT_RC, QP_AREA, &qpn), OK);
	REQUIRE(move_to(&e, qpn, ORDMA_QPT_RC, RTS));
	errors = drv_db_errors(&e.d);

	for (i = 0; i < NUM_SEND_OPS; i++)
		put_send_wqe(&e, QP_AREA, i, send_opcodes[i]);
	drv_db(&e.d, e.uctx, ORDMA_DB_SQ, qpn, NUM_SEND_OPS, 0);
	drv_db(&e.d, e.uctx, ORDMA_DB_RQ, qpn, 5, 0);
	CHECK_EQ(drv_db_errors(&e.d), errors);
	CHECK_EQ(fw_qp(&e, qpn)->sq.pi, NUM_SEND_OPS);
	CHECK_EQ(fw_qp(&e, qpn)->rq.pi, 5);
	/* RTS: the engine started the WQEs, but the port is down and no
	 * peer answers: nothing completes yet
	 */
	CHECK(!drv_cq_next(&e.d, &e.scq, &cqe));
	CHECK(!drv_cq_next(&e.d, &e.rcq, &cqe));

	fill_attr(&a, A(STATE), RTS, ORDMA_QPS_ERR);
	REQUIRE_EQ(drv_modify_qp(&e.d, qpn, &a), OK);
	for (i = 0; i < NUM_SEND_OPS; i++)
		if (!expect_flush(&e, &e.scq, qpn, i, flush_opcodes[i]))
			break;
	for (i = 0; i < 5; i++)
		if (!expect_flush(&e, &e.rcq, qpn, i, ORDMA_CQE_OP_RECV))
			break;
	CHECK(!drv_cq_next(&e.d, &e.scq, &cqe));
	CHECK(!drv_cq_next(&e.d, &e.rcq, &cqe));

	/* posted in ERR: flushed at the doorbell, slots wrap */
	for (i = NUM_SEND_OPS; i < NUM_SEND_OPS + 9; i++)
		put_send_wqe(&e, QP_AREA, i, ORDMA_WQE_RDMA_READ);
	drv_db(&e.d, e.uctx, ORDMA_DB_SQ, qpn, NUM_SEND_OPS + 9, 0);
	for (i = NUM_SEND_OPS; i < NUM_SEND_OPS + 9; i++)
		if (!expect_flush(&e, &e.scq, qpn, i % SQ_SIZE,
				  ORDMA_CQE_OP_RDMA_READ))
			break;
	drv_db(&e.d, e.uctx, ORDMA_DB_RQ, qpn, 5 + RQ_SIZE, 0);
	for (i = 5; i < 5 + RQ_SIZE; i++)
		if (!expect_flush(&e, &e.rcq, qpn, i % RQ_SIZE,
				  ORDMA_CQE_OP_RECV))
			break;
	CHECK(!drv_cq_next(&e.d, &e.rcq, &cqe));
	CHECK_EQ(fw_qp(&e, qpn)->counters.sq_flushed, NUM_SEND_OPS + 9);
	CHECK_EQ(fw_qp(&e, qpn)->counters.rq_flushed, 5 + RQ_SIZE);
	/* ERR -> ERR flushes nothing twice */
	REQUIRE_EQ(drv_modify_qp(&e.d, qpn, &a), OK);
	CHECK(!drv_cq_next(&e.d, &e.scq, &cqe));
	CHECK_EQ(drv_db_errors(&e.d), errors);

	/* RESET clears the indices: the driver starts again at 0 */
	fill_attr(&a, A(STATE), ORDMA_QPS_ERR, RESET);
	REQUIRE_EQ(drv_modify_qp(&e.d, qpn, &a), OK);
	CHECK_EQ(fw_qp(&e, qpn)->sq.pi, 0);
	CHECK_EQ(fw_qp(&e, qpn)->sq.ci, 0);
	CHECK_EQ(fw_qp(&e, qpn)->rq.pi, 0);
	CHECK_EQ(fw_qp(&e, qpn)->counters.sq_flushed, 0);
	drv_db(&e.d, e.uctx, ORDMA_DB_SQ, qpn, 3, 0);
	CHECK_EQ(drv_db_errors(&e.d), errors);
	/* posted in RESET/INIT: kept, and flushed on the way to ERR */
	REQUIRE(move_to(&e, qpn, ORDMA_QPT_RC, INIT));
	drv_db(&e.d, e.uctx, ORDMA_DB_SQ, qpn, 4, 0);
	CHECK_EQ(fw_qp(&e, qpn)->sq.pi, 4);
	CHECK(!drv_cq_next(&e.d, &e.scq, &cqe));
	fill_attr(&a, A(STATE), INIT, ORDMA_QPS_ERR);
	REQUIRE_EQ(drv_modify_qp(&e.d, qpn, &a), OK);
	for (i = 0; i < 4; i++)
		if (!expect_flush(&e, &e.scq, qpn, i, ORDMA_CQE_OP_RDMA_READ))
			break;
	drv_close(&e.d);
}

/* One CQ for both queues: send flushes first, then receives. */
TEST(test_qp_flush_shared_cq)
{
	struct ordma_qp_create_params p;
	struct ordma_qp_attr a;
	struct ordma_cqe cqe;
	struct drv_verbs e;
	uint32_t qpn, i;

	REQUIRE(env_open(&e, false));
	qp_params(&e, &p, ORDMA_QPT_UD, QP_AREA);
	p.recv_cqn = p.send_cqn;
	REQUIRE_EQ(drv_create_qp(&e.d, &p, &qpn), OK);
	REQUIRE(move_to(&e, qpn, ORDMA_QPT_UD, RTR));
	for (i = 0; i < 3; i++)
		put_send_wqe(&e, QP_AREA, i, ORDMA_WQE_SEND_IMM);
	drv_db(&e.d, 0, ORDMA_DB_RQ, qpn, 2, 0);
	drv_db(&e.d, 0, ORDMA_DB_SQ, qpn, 3, 0);
	fill_attr(&a, A(STATE), RTR, ORDMA_QPS_ERR);
	REQUIRE_EQ(drv_modify_qp(&e.d, qpn, &a), OK);
	for (i = 0; i < 3; i++)
		expect_flush(&e, &e.scq, qpn, i, ORDMA_CQE_OP_SEND);
	for (i = 0; i < 2; i++)
		expect_flush(&e, &e.scq, qpn, i, ORDMA_CQE_OP_RECV);
	CHECK(!drv_cq_next(&e.d, &e.scq, &cqe));
	CHECK(!drv_cq_next(&e.d, &e.rcq, &cqe));
	drv_close(&e.d);
}

/* A send WQE the device cannot read is still flushed (as a SEND). */
TEST(test_qp_flush_unreadable_wqe)
{
	struct ordma_qp_attr a;
	struct ordma_cqe cqe;
	struct drv_verbs e;
	uint32_t qpn;

	REQUIRE(env_open(&e, false));
	REQUIRE_EQ(qp_create(&e, ORDMA_QPT_RC, QP_AREA, &qpn), OK);
	put_send_wqe(&e, QP_AREA, 0, ORDMA_WQE_RDMA_WRITE);
	put_send_wqe(&e, QP_AREA, 1, ORDMA_WQE_RDMA_WRITE);
	drv_db(&e.d, 0, ORDMA_DB_SQ, qpn, 2, 0);
	e.d.hal.fail_lo = DRV_WQ_ADDR(QP_AREA);
	e.d.hal.fail_hi = DRV_WQ_ADDR(QP_AREA) + 64;
	fill_attr(&a, A(STATE), RESET, ORDMA_QPS_ERR);
	REQUIRE_EQ(drv_modify_qp(&e.d, qpn, &a), OK);
	expect_flush(&e, &e.scq, qpn, 0, ORDMA_CQE_OP_SEND);
	expect_flush(&e, &e.scq, qpn, 1, ORDMA_CQE_OP_RDMA_WRITE);
	CHECK(!drv_cq_next(&e.d, &e.scq, &cqe));
	e.d.hal.fail_lo = e.d.hal.fail_hi = 0;
	CHECK_EQ(drv_rd(&e.d, ORDMA_REG_STATUS), ORDMA_STATUS_READY);
	drv_close(&e.d);
}

/* A CQ that overruns drops flush completions; the QP still empties. */
TEST(test_qp_flush_cq_overrun)
{
	struct ordma_qp_create_params p;
	struct ordma_qp_attr a;
	struct drv_cq small;
	struct ordma_eqe eqe;
	struct drv_verbs e;
	uint32_t qpn, i;

	REQUIRE(env_open(&e, false));
	REQUIRE(drv_cq_open(&e.d, &small, 3, 0, e.comp.eqn, 2));
	qp_params(&e, &p, ORDMA_QPT_RC, QP_AREA);
	p.send_cqn = cpu_to_le32(small.cqn);
	REQUIRE_EQ(drv_create_qp(&e.d, &p, &qpn), OK);
	for (i = 0; i < 6; i++)
		put_send_wqe(&e, QP_AREA, i, ORDMA_WQE_SEND);
	drv_db(&e.d, 0, ORDMA_DB_SQ, qpn, 6, 0);
	fill_attr(&a, A(STATE), RESET, ORDMA_QPS_ERR);
	REQUIRE_EQ(drv_modify_qp(&e.d, qpn, &a), OK);
	CHECK_EQ(fw_qp(&e, qpn)->sq.ci, 6);
	CHECK_EQ(fw_qp(&e, qpn)->counters.cqe_dropped, 2);
	CHECK(next_event(&e, ORDMA_EQE_CQ_ERR, &eqe));
	CHECK_EQ(le32_to_cpu(eqe.data[0]), small.cqn);
	drv_close(&e.d);
}

/* ------------------------------------------------------------------ */
/* Doorbells                                                           */
/* ------------------------------------------------------------------ */

TEST(test_qp_doorbell_ownership)
{
	struct ordma_qp_attr a;
	struct ordma_cqe cqe;
	struct ordma_eqe eqe;
	struct drv_verbs e;
	uint32_t qpn, kqpn, other, errors;
	struct ordma_qp_create_params p;
	uint32_t kpdn;
	struct drv_cq kcq;

	REQUIRE(env_open(&e, true));
	REQUIRE_EQ(drv_alloc_uctx(&e.d, &other), OK);
	REQUIRE_EQ(qp_create(&e, ORDMA_QPT_RC, QP_AREA, &qpn), OK);
	/* a kernel QP next to it */
	REQUIRE_EQ(drv_alloc_pd(&e.d, 0, &kpdn), OK);
	REQUIRE(drv_cq_open(&e.d, &kcq, 4, 0, e.comp.eqn, 4));
	drv_qp_params(&p, 0, kpdn, ORDMA_QPT_UD, kcq.cqn, kcq.cqn,
		      ORDMA_NO_SRQ, QP_AREA + 1);
	REQUIRE_EQ(drv_create_qp(&e.d, &p, &kqpn), OK);
	drain_events(&e);
	errors = drv_db_errors(&e.d);

	/* the kernel page and another context's page may not ring it */
	drv_db(&e.d, 0, ORDMA_DB_SQ, qpn, 1, 0);
	CHECK(next_event(&e, ORDMA_EQE_DB_ERROR, &eqe));
	CHECK_EQ(le32_to_cpu(eqe.data[0]), 0);
	CHECK_EQ(le32_to_cpu(eqe.data[1]), ORDMA_DB_SQ);
	CHECK_EQ(le32_to_cpu(eqe.data[2]), qpn);
	fake_advance(&e.d.hal, 20000000);
	drv_db(&e.d, other, ORDMA_DB_RQ, qpn, 1, 0);
	CHECK(next_event(&e, ORDMA_EQE_DB_ERROR, &eqe));
	CHECK_EQ(le32_to_cpu(eqe.data[0]), other);
	CHECK_EQ(le32_to_cpu(eqe.data[1]), ORDMA_DB_RQ);
	drv_db(&e.d, e.uctx, ORDMA_DB_SQ, kqpn, 1, 0);
	drv_db(&e.d, other, ORDMA_DB_SQ, kqpn, 1, 0);
	CHECK_EQ(drv_db_errors(&e.d), errors + 4);
	CHECK_EQ(fw_qp(&e, qpn)->sq.pi, 0);
	CHECK_EQ(fw_qp(&e, qpn)->rq.pi, 0);
	CHECK_EQ(fw_qp(&e, kqpn)->sq.pi, 0);

	/* no such QP, index out of range, bits that mean nothing here */
	errors = drv_db_errors(&e.d);
	drv_db(&e.d, e.uctx, ORDMA_DB_SQ, 0, 1, 0);
	drv_db(&e.d, e.uctx, ORDMA_DB_SQ, 1, 1, 0);
	drv_db(&e.d, e.uctx, ORDMA_DB_SQ, qpn + 100, 1, 0);
	drv_db(&e.d, e.uctx, ORDMA_DB_SQ, qpn, SQ_SIZE + 1, 0);
	drv_db(&e.d, e.uctx, ORDMA_DB_SQ, qpn, 0xffffffff, 0);
	drv_db(&e.d, e.uctx, ORDMA_DB_SQ, qpn, 1, ORDMA_DB_ARM);
	drv_db(&e.d, e.uctx, ORDMA_DB_RQ, qpn, 1, ORDMA_DB_SOLICITED);
	drv_db(&e.d, e.uctx, ORDMA_DB_SQ, qpn, 1, 1ULL << 24);
	ordma_fw_db_write(e.d.fw, (uint64_t)e.uctx << 12 | ORDMA_DB_SQ,
			  FIELD_PREP(ORDMA_DB_QN, (uint64_t)qpn) |
			  FIELD_PREP(ORDMA_DB_IDX, 1ULL), 4);
	CHECK_EQ(drv_db_errors(&e.d), errors + 9);
	CHECK_EQ(fw_qp(&e, qpn)->sq.pi, 0);
	CHECK_EQ(fw_qp(&e, qpn)->rq.pi, 0);

	/* the owner's page: accepted, up to a full queue, never backwards */
	drv_db(&e.d, e.uctx, ORDMA_DB_SQ, qpn, SQ_SIZE, 0);
	drv_db(&e.d, e.uctx, ORDMA_DB_RQ, qpn, 3, 0);
	drv_db(&e.d, e.uctx, ORDMA_DB_RQ, qpn, 3, 0);	/* same pi: fine */
	drv_db(&e.d, 0, ORDMA_DB_SQ, kqpn, 2, 0);
	CHECK_EQ(drv_db_errors(&e.d), errors + 9);
	drv_db(&e.d, e.uctx, ORDMA_DB_RQ, qpn, 2, 0);
	CHECK_EQ(drv_db_errors(&e.d), errors + 10);
	CHECK_EQ(fw_qp(&e, qpn)->sq.pi, SQ_SIZE);
	CHECK_EQ(fw_qp(&e, qpn)->rq.pi, 3);
	CHECK_EQ(fw_qp(&e, kqpn)->sq.pi, 2);

	/* in ERR: a wrong page flushes nothing, the right one flushes */
	fill_attr(&a, A(STATE), RESET, ORDMA_QPS_ERR);
	REQUIRE_EQ(drv_modify_qp(&e.d, qpn, &a), OK);
	while (drv_cq_next(&e.d, &e.scq, &cqe) || drv_cq_next(&e.d, &e.rcq, &cqe))
		;
	drv_db(&e.d, other, ORDMA_DB_RQ, qpn, 4, 0);
	CHECK(!drv_cq_next(&e.d, &e.rcq, &cqe));
	CHECK_EQ(fw_qp(&e, qpn)->rq.pi, 3);
	drv_db(&e.d, e.uctx, ORDMA_DB_RQ, qpn, 4, 0);
	CHECK(expect_flush(&e, &e.rcq, qpn, 3, ORDMA_CQE_OP_RECV));
	drv_close(&e.d);
}

/* ------------------------------------------------------------------ */
/* References, destroy, reset                                          */
/* ------------------------------------------------------------------ */

TEST(test_qp_busy_references)
{
	struct drv_verbs e;
	uint32_t qpn, qpn2;

	REQUIRE(env_open(&e, true));
	REQUIRE_EQ(qp_create(&e, ORDMA_QPT_RC, QP_AREA, &qpn), OK);
	REQUIRE_EQ(qp_create(&e, ORDMA_QPT_UD, QP_AREA + 1, &qpn2), OK);
	CHECK_EQ(drv_destroy_cq(&e.d, &e.scq), ORDMA_CMD_STATUS_BUSY);
	CHECK_EQ(drv_destroy_cq(&e.d, &e.rcq), ORDMA_CMD_STATUS_BUSY);
	CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DEALLOC_PD, e.pdn, e.uctx),
		 ORDMA_CMD_STATUS_BUSY);
	CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DEALLOC_UCTX, e.uctx, 0),
		 ORDMA_CMD_STATUS_BUSY);
	/* only the owner destroys, in any state, once */
	CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DESTROY_QP, qpn, 0),
		 ORDMA_CMD_STATUS_PERM);
	REQUIRE(move_to(&e, qpn, ORDMA_QPT_RC, RTS));
	drv_db(&e.d, e.uctx, ORDMA_DB_SQ, qpn, 5, 0);
	CHECK_EQ(qp_destroy(&e, qpn), OK);
	CHECK_EQ(qp_destroy(&e, qpn), BAD_HANDLE);
	CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DESTROY_QP, 0, e.uctx),
		 BAD_HANDLE);
	CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DESTROY_QP, 5000, e.uctx),
		 BAD_HANDLE);
	/* one QP left: still busy */
	CHECK_EQ(drv_destroy_cq(&e.d, &e.scq), ORDMA_CMD_STATUS_BUSY);
	CHECK_EQ(qp_destroy(&e, qpn2), OK);
	CHECK_EQ(drv_destroy_cq(&e.d, &e.scq), OK);
	CHECK_EQ(drv_destroy_cq(&e.d, &e.rcq), OK);
	CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DEALLOC_PD, e.pdn, e.uctx), OK);
	CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DEALLOC_UCTX, e.uctx, 0), OK);
	drv_close(&e.d);
}

TEST(test_qp_reset_frees_all)
{
	struct drv_verbs e;
	uint32_t qpn, i, errors;

	REQUIRE(env_open(&e, true));
	for (i = 0; i < 20; i++)
		REQUIRE_EQ(qp_create(&e, i & 1 ? ORDMA_QPT_UD : ORDMA_QPT_RC,
				     QP_AREA + i % 4, &qpn), OK);
	REQUIRE(move_to(&e, qpn, ORDMA_QPT_UD, RTS));
	REQUIRE(move_to(&e, qpn - 1, ORDMA_QPT_RC, ORDMA_QPS_ERR));
	drv_db(&e.d, e.uctx, ORDMA_DB_SQ, qpn, 3, 0);

	drv_wr(&e.d, ORDMA_REG_CTRL, ORDMA_CTRL_RESET);
	REQUIRE(drv_enable(&e.d, 5));
	for (i = 0; i < FW_MAX_QP; i++)
		if (!CHECK(!fw_qp_lookup(e.d.fw, i)))
			break;
	/* no object survives: the old numbers name nothing */
	CHECK_EQ(qp_destroy(&e, qpn), BAD_HANDLE);
	errors = drv_db_errors(&e.d);
	drv_db(&e.d, 0, ORDMA_DB_SQ, qpn, 1, 0);
	CHECK_EQ(drv_db_errors(&e.d), errors + 1);
	/* and everything can be built again from the start */
	REQUIRE(drv_eq_open(&e.d, &e.comp, ORDMA_EQ_TYPE_COMP, 1, 6));
	REQUIRE_EQ(drv_alloc_pd(&e.d, 0, &e.pdn), OK);
	e.uctx = 0;
	REQUIRE(drv_cq_open(&e.d, &e.scq, 0, 0, e.comp.eqn, 4));
	REQUIRE(drv_cq_open(&e.d, &e.rcq, 1, 0, e.comp.eqn, 4));
	CHECK_EQ(qp_create(&e, ORDMA_QPT_RC, QP_AREA, &qpn), OK);
	CHECK_EQ(qpn, FW_FIRST_QPN);
	drv_close(&e.d);
}

/* ------------------------------------------------------------------ */
/* SQD and the engine hooks                                            */
/* ------------------------------------------------------------------ */

TEST(test_qp_sqd_drained_event)
{
	struct ordma_qp_attr a, q;
	struct ordma_eqe eqe;
	struct drv_verbs e;
	uint32_t qpn;

	REQUIRE(env_open(&e, false));
	REQUIRE_EQ(qp_create(&e, ORDMA_QPT_RC, QP_AREA, &qpn), OK);
	REQUIRE(move_to(&e, qpn, ORDMA_QPT_RC, RTS));
	drain_events(&e);
	/* without notification: no event */
	fill_attr(&a, A(STATE), RTS, SQD);
	REQUIRE_EQ(drv_modify_qp(&e.d, qpn, &a), OK);
	CHECK(!next_event(&e, ORDMA_EQE_QP_SQ_DRAINED, &eqe));
	fill_attr(&a, A(STATE), SQD, RTS);
	REQUIRE_EQ(drv_modify_qp(&e.d, qpn, &a), OK);
	/* with it: drained at once (nothing in flight) */
	fill_attr(&a, A(STATE) | A(EN_SQD_ASYNC), RTS, SQD);
	REQUIRE_EQ(drv_modify_qp(&e.d, qpn, &a), OK);
	CHECK(next_event(&e, ORDMA_EQE_QP_SQ_DRAINED, &eqe));
	CHECK_EQ(le32_to_cpu(eqe.data[0]), qpn);
	REQUIRE_EQ(drv_query_qp(&e.d, qpn, &q), OK);
	CHECK_EQ(q.state, SQD);
	CHECK_EQ(q.sq_draining, 0);
	CHECK_EQ(q.en_sqd_async_notify, 1);
	/* attributes may change in a drained SQD */
	fill_attr(&a, A(TIMEOUT) | A(RETRY_CNT), SQD, SQD);
	a.timeout = 20;
	CHECK_EQ(drv_modify_qp(&e.d, qpn, &a), OK);
	CHECK_EQ(fw_qp(&e, qpn)->attr.timeout, 20);

	/* with WQEs in flight the drain waits for the engine */
	fill_attr(&a, A(STATE), SQD, RTS);
	REQUIRE_EQ(drv_modify_qp(&e.d, qpn, &a), OK);
	drv_db(&e.d, 0, ORDMA_DB_SQ, qpn, 2, 0);
	fw_qp(&e, qpn)->sq.next = 1;	/* as if the engine started one */
	fill_attr(&a, A(STATE) | A(EN_SQD_ASYNC), RTS, SQD);
	REQUIRE_EQ(drv_modify_qp(&e.d, qpn, &a), OK);
	CHECK(!next_event(&e, ORDMA_EQE_QP_SQ_DRAINED, &eqe));
	REQUIRE_EQ(drv_query_qp(&e.d, qpn, &q), OK);
	CHECK_EQ(q.sq_draining, 1);
	fill_attr(&a, A(TIMEOUT), SQD, SQD);
	CHECK_EQ(drv_modify_qp(&e.d, qpn, &a), BAD_STATE);
	fw_qp(&e, qpn)->sq.ci = 1;
	fw_qp_sq_drained(e.d.fw, fw_qp(&e, qpn));
	CHECK(next_event(&e, ORDMA_EQE_QP_SQ_DRAINED, &eqe));
	CHECK_EQ(drv_modify_qp(&e.d, qpn, &a), OK);
	drv_close(&e.d);
}

TEST(test_qp_engine_hooks)
{
	struct ordma_qp_attr a;
	struct ordma_recv_wqe *rwqe;
	struct ordma_cqe cqe;
	struct ordma_eqe eqe;
	uint8_t buf[64];
	struct drv_verbs e;
	uint32_t ud, rc, idx, i;

	REQUIRE(env_open(&e, false));
	REQUIRE_EQ(qp_create(&e, ORDMA_QPT_UD, QP_AREA, &ud), OK);
	REQUIRE_EQ(qp_create(&e, ORDMA_QPT_RC, QP_AREA + 1, &rc), OK);
	CHECK(fw_qp(&e, ud) && fw_qp(&e, ud)->qpn == ud);
	CHECK(!fw_qp_lookup(e.d.fw, 0) && !fw_qp_lookup(e.d.fw, 1));
	CHECK(!fw_qp_lookup(e.d.fw, FW_MAX_QP) && !fw_qp_lookup(e.d.fw, 77));

	/* WQE fetch by index goes through the page list */
	put_send_wqe(&e, QP_AREA, 17, ORDMA_WQE_RDMA_WRITE);
	CHECK_EQ(fw_wq_read_wqe(e.d.fw, &fw_qp(&e, ud)->sq, 17, buf, sizeof(buf)),
		 0);
	CHECK_EQ(FIELD_GET(ORDMA_WQE_OPCODE,
			   le32_to_cpu(((struct ordma_wqe_ctrl *)buf)->ctrl)),
		 ORDMA_WQE_RDMA_WRITE);

	/* UD send error: SQE flushes the SQ, receives go on */
	REQUIRE(move_to(&e, ud, ORDMA_QPT_UD, RTS));
	for (i = 0; i < 3; i++)
		put_send_wqe(&e, QP_AREA, i, ORDMA_WQE_SEND);
	drv_db(&e.d, 0, ORDMA_DB_SQ, ud, 3, 0);
	rwqe = drv_mem(&e.d, DRV_WQ_ADDR(QP_AREA) + 0x8000, 32);
	rwqe->num_sge = cpu_to_le32(1);
	drv_db(&e.d, 0, ORDMA_DB_RQ, ud, 2, 0);
	/* the engine ran the first WQE: its AH (0) does not exist, so it
	 * failed and took the QP to SQE; the hook is then a no-op
	 */
	CHECK_EQ(qp_state(&e, ud), ORDMA_QPS_SQE);
	fw_qp_enter_sqe(e.d.fw, fw_qp(&e, ud));
	CHECK_EQ(qp_state(&e, ud), ORDMA_QPS_SQE);
	if (CHECK(drv_cq_next(&e.d, &e.scq, &cqe))) {
		CHECK_EQ(le32_to_cpu(cqe.wqe_idx), 0);
		CHECK_EQ(cqe.opcode, ORDMA_CQE_OP_SEND);
		CHECK_EQ(cqe.status, ORDMA_CQE_LOC_QP_OP_ERR);
	}
	for (i = 1; i < 3; i++)
		expect_flush(&e, &e.scq, ud, i, ORDMA_CQE_OP_SEND);
	CHECK(!drv_cq_next(&e.d, &e.rcq, &cqe));
	drv_db(&e.d, 0, ORDMA_DB_SQ, ud, 4, 0);
	expect_flush(&e, &e.scq, ud, 3, ORDMA_CQE_OP_SEND);
	CHECK_EQ(fw_qp_recv_take(e.d.fw, fw_qp(&e, ud), buf, sizeof(buf), &idx),
		 0);
	CHECK_EQ(idx, 0);
	CHECK_EQ(le32_to_cpu(((struct ordma_recv_wqe *)buf)->num_sge), 1);
	CHECK_EQ(fw_qp(&e, ud)->rq.next, 1);
	CHECK_EQ(fw_qp(&e, ud)->rq.ci, 0);
	fw_qp_rq_completed(fw_qp(&e, ud));
	CHECK_EQ(fw_qp(&e, ud)->rq.ci, 1);
	fill_attr(&a, A(STATE) | A(CUR_STATE) | A(QKEY), ORDMA_QPS_SQE, RTS);
	CHECK_EQ(drv_modify_qp(&e.d, ud, &a), OK);
	CHECK_EQ(qp_state(&e, ud), RTS);
	/* a taken but not completed receive is flushed on error */
	CHECK_EQ(fw_qp_recv_take(e.d.fw, fw_qp(&e, ud), buf, sizeof(buf), &idx),
		 0);
	CHECK_EQ(idx, 1);
	CHECK_EQ(fw_qp_recv_take(e.d.fw, fw_qp(&e, ud), buf, sizeof(buf), &idx),
		 -1);
	fw_qp_set_error(e.d.fw, fw_qp(&e, ud), ORDMA_EQE_QP_FATAL);
	expect_flush(&e, &e.rcq, ud, 1, ORDMA_CQE_OP_RECV);
	CHECK(!drv_cq_next(&e.d, &e.rcq, &cqe));
	CHECK(next_event(&e, ORDMA_EQE_QP_FATAL, &eqe));
	CHECK_EQ(le32_to_cpu(eqe.data[0]), ud);

	/* RC has no SQE: the send error takes it to ERR */
	REQUIRE(move_to(&e, rc, ORDMA_QPT_RC, RTS));
	fw_qp_enter_sqe(e.d.fw, fw_qp(&e, rc));
	CHECK_EQ(qp_state(&e, rc), ORDMA_QPS_ERR);
	CHECK(next_event(&e, ORDMA_EQE_QP_REQ_ERR, &eqe));
	CHECK_EQ(le32_to_cpu(eqe.data[0]), rc);

	/* a completion through the engine helper carries the qpn */
	memset(&cqe, 0, sizeof(cqe));
	cqe.opcode = ORDMA_CQE_OP_RDMA_WRITE;
	CHECK_EQ(fw_qp_complete(e.d.fw, fw_qp(&e, rc), true, &cqe, false), 0);
	CHECK(drv_cq_next(&e.d, &e.scq, &cqe));
	CHECK_EQ(le32_to_cpu(cqe.qpn), rc);
	CHECK_EQ(cqe.status, ORDMA_CQE_SUCCESS);
	drv_close(&e.d);
}

/* ------------------------------------------------------------------ */
/* Randomised QP life cycles                                           */
/* ------------------------------------------------------------------ */

#define STORM_QPS	8
#define STORM_STEPS	20000

static uint64_t storm_rng(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

static uint32_t storm_below(uint64_t *s, uint32_t n)
{
	return (uint32_t)(storm_rng(s) % n);
}

/* What must hold for every QP after anything the host does. */
static bool storm_invariants(struct drv_verbs *e)
{
	uint32_t qpn;

	for (qpn = 0; qpn < FW_MAX_QP; qpn++) {
		struct fw_qp *qp = fw_qp_lookup(e->d.fw, qpn);
		const struct fw_wq *wq[2];
		unsigned int i;

		if (!qp)
			continue;
		wq[0] = &qp->sq;
		wq[1] = &qp->rq;
		if (!CHECK(qp->state <= ORDMA_QPS_ERR))
			return false;
		for (i = 0; i < 2; i++) {
			if (!wq[i]->log_size)
				continue;
			if (!CHECK(wq[i]->pi - wq[i]->ci <= fw_wq_size(wq[i])) ||
			    !CHECK(wq[i]->next - wq[i]->ci <=
				   wq[i]->pi - wq[i]->ci))
				return false;
		}
		/* nothing posted stays unflushed in ERR (SQ in SQE) */
		if (qp->state == ORDMA_QPS_ERR &&
		    !CHECK(qp->sq.ci == qp->sq.pi && qp->rq.ci == qp->rq.pi))
			return false;
		if (qp->state == ORDMA_QPS_SQE && !CHECK(qp->sq.ci == qp->sq.pi))
			return false;
	}
	return true;
}

static void storm_modify(struct drv_verbs *e, uint64_t *s, uint32_t qpn)
{
	struct fw_qp *qp = fw_qp(e, qpn);
	struct fw_qp_transition rule;
	struct ordma_qp_attr a;
	uint8_t cur = qp ? qp->state : 0, next, type = qp ? qp->type : 0;
	uint8_t status;
	uint32_t mask;

	next = (uint8_t)storm_below(s, NUM_STATES);
	if (storm_below(s, 3) && cur < ORDMA_QPS_RTS)
		next = cur + 1;		/* mostly along the way up */
	fw_qp_transition_rule(type, cur, next, &rule);
	mask = A(STATE) | rule.required |
	       (rule.optional & ORDMA_QP_ATTR_SUPPORTED &
		(uint32_t)storm_rng(s));
	if (!storm_below(s, 10))
		mask ^= 1u << storm_below(s, 21);
	fill_attr(&a, mask, cur, next);
	if (!storm_below(s, 10))
		((uint8_t *)&a)[storm_below(s, sizeof(a))] ^=
			(uint8_t)(1u << storm_below(s, 8));
	status = drv_modify_qp(&e->d, qpn, &a);
	CHECK(status == OK || status == BAD_PARAM || status == BAD_STATE ||
	      status == BAD_HANDLE || status == ORDMA_CMD_STATUS_NOT_SUPPORTED);
	if (status == OK) {
		uint8_t want = (mask & A(STATE)) ? a.state : cur;
		uint8_t got = fw_qp(e, qpn)->state;

		/* entering RTS runs posted WQEs: a bad one ends in ERR (RC)
		 * or SQE (UD) at once
		 */
		if (want == ORDMA_QPS_RTS &&
		    (got == ORDMA_QPS_ERR || got == ORDMA_QPS_SQE))
			got = want;
		CHECK_EQ(got, want);
	}
	if (status == BAD_PARAM)
		CHECK(drv_syndrome(&e->d) < 64 + sizeof(a));
}

static void storm_doorbell(struct drv_verbs *e, uint64_t *s, uint32_t qpn,
			   uint32_t srqn)
{
	static const uint32_t regs[] = { ORDMA_DB_SQ, ORDMA_DB_RQ, ORDMA_DB_SRQ };
	uint32_t reg = regs[storm_below(s, 3)];
	struct fw_qp *qp = fw_qp(e, qpn);
	struct fw_srq *srq = fw_srq_lookup(e->d.fw, srqn);
	const struct fw_wq *wq = NULL;
	uint32_t pi;

	if (reg == ORDMA_DB_SRQ)
		wq = srq ? &srq->wq : NULL;
	else if (qp)
		wq = reg == ORDMA_DB_SQ ? &qp->sq : &qp->rq;
	pi = wq ? wq->pi + storm_below(s, 20) - 2 : storm_below(s, 40);
	drv_db(&e->d, storm_below(s, 8) ? 0 : storm_below(s, 3), reg,
	       reg == ORDMA_DB_SRQ ? srqn : qpn, pi, 0);
}

static void storm_engine(struct drv_verbs *e, uint64_t *s, uint32_t qpn,
			 uint32_t srqn)
{
	struct fw_qp *qp = fw_qp(e, qpn);
	struct fw_srq *srq = fw_srq_lookup(e->d.fw, srqn);
	uint8_t wqe[64];
	uint32_t idx;

	if (srq && storm_below(s, 2))
		fw_srq_take(e->d.fw, srq, wqe, sizeof(wqe), &idx);
	if (!qp)
		return;
	switch (storm_below(s, 6)) {
	case 0:
		fw_qp_set_error(e->d.fw, qp, storm_below(s, 2) ?
				ORDMA_EQE_QP_FATAL : 0);
		break;
	case 1:
		fw_qp_enter_sqe(e->d.fw, qp);
		break;
	case 2:
		if (!fw_qp_recv_take(e->d.fw, qp, wqe, sizeof(wqe), &idx))
			fw_qp_rq_completed(qp);
		break;
	case 3:
		/* the engine starts and completes send WQEs in order */
		if (qp->state == ORDMA_QPS_RTS && fw_wq_pending(&qp->sq))
			qp->sq.next++;
		else if (qp->sq.ci != qp->sq.next)
			qp->sq.ci++;
		break;
	case 4:
		if (qp->sq.ci == qp->sq.next)
			fw_qp_sq_drained(e->d.fw, qp);
		break;
	default:
		fw_qp_sq_kick(e->d.fw, qp);
		break;
	}
}

static void storm_recreate(struct drv_verbs *e, uint64_t *s, uint32_t qpn,
			   uint32_t srqn)
{
	struct ordma_qp_create_params p;
	uint32_t got;
	uint8_t status;

	if (fw_qp(e, qpn))
		CHECK_EQ(qp_destroy(e, qpn), OK);
	drv_qp_params(&p, e->uctx, e->pdn, (uint8_t)storm_below(s, 2),
		      e->scq.cqn, storm_below(s, 2) ? e->rcq.cqn : e->scq.cqn,
		      storm_below(s, 3) ? ORDMA_NO_SRQ : srqn,
		      QP_AREA + storm_below(s, 4));
	if (!storm_below(s, 8))
		((uint8_t *)&p)[storm_below(s, sizeof(p))] ^=
			(uint8_t)(1u << storm_below(s, 8));
	status = drv_create_qp(&e->d, &p, &got);
	CHECK(status == OK || status == BAD_PARAM || status == BAD_HANDLE ||
	      status == ORDMA_CMD_STATUS_PERM);
}

static bool storm_status_ok(uint8_t status)
{
	return status == ORDMA_CQE_SUCCESS || status == ORDMA_CQE_WR_FLUSH_ERR ||
	       status == ORDMA_CQE_LOC_QP_OP_ERR ||
	       status == ORDMA_CQE_LOC_PROT_ERR ||
	       status == ORDMA_CQE_LOC_LEN_ERR ||
	       status == ORDMA_CQE_MW_BIND_ERR;
}

TEST(test_qp_random_storm)
{
	uint64_t seed = 0x51ce5eedc0ffee11ULL;
	struct ordma_qp_attr q;
	struct ordma_cqe cqe;
	struct ordma_eqe eqe;
	struct drv_verbs e;
	uint32_t srqn, qpn, i, n, failures = 0;

	REQUIRE(env_open(&e, false));
	REQUIRE_EQ(drv_create_srq(&e.d, 0, e.pdn, 5, 4, QP_AREA + 5, &srqn), OK);
	for (i = 0; i < STORM_QPS; i++)
		storm_recreate(&e, &seed, FW_FIRST_QPN + i, srqn);
	for (i = 0; i < STORM_STEPS && failures < 5; i++) {
		unsigned int action = storm_below(&seed, 100);

		qpn = FW_FIRST_QPN + storm_below(&seed, STORM_QPS + 1);
		if (action < 30) {
			storm_modify(&e, &seed, qpn);
		} else if (action < 50) {
			storm_doorbell(&e, &seed, qpn, srqn);
		} else if (action < 60) {
			put_send_wqe(&e, QP_AREA + storm_below(&seed, 4),
				     storm_rng(&seed) & 0xffff,
				     (uint8_t)storm_below(&seed, 12));
		} else if (action < 72) {
			storm_engine(&e, &seed, qpn, srqn);
		} else if (action < 77) {
			storm_recreate(&e, &seed, qpn, srqn);
		} else if (action < 82) {
			if (drv_query_qp(&e.d, qpn, &q) == OK)
				CHECK_EQ(q.state, fw_qp(&e, qpn)->state);
		} else if (action < 85) {
			CHECK(modify_srq_limit(&e, srqn, storm_below(&seed, 40)));
		} else if (action < 88) {
			n = storm_below(&seed, 256);
			memset(drv_mem(&e.d, DRV_WQ_ADDR(QP_AREA +
							 storm_below(&seed, 4)) +
				       storm_below(&seed, 0x10000 - 256), n),
			       (int)storm_rng(&seed), n);
		} else {
			/* the driver polls its CQs and async EQ */
			/* flushes, and the engine's verdicts on the random
			 * WQEs it ran (the port is down: nothing is answered)
			 */
			while (drv_cq_next(&e.d, &e.scq, &cqe))
				failures += !CHECK(storm_status_ok(cqe.status));
			while (drv_cq_next(&e.d, &e.rcq, &cqe))
				failures += !CHECK(cqe.status == ORDMA_CQE_WR_FLUSH_ERR);
			while (drv_eq_next(&e.d, &e.async, &eqe))
				;
			drv_eq_update(&e.d, &e.async, false);
		}
		failures += !storm_invariants(&e);
		failures += !CHECK_EQ(drv_rd(&e.d, ORDMA_REG_STATUS),
				      ORDMA_STATUS_READY);
	}
	CHECK_EQ(failures, 0);
	/* every reference taken was given back */
	for (i = 0; i <= STORM_QPS; i++)
		if (fw_qp(&e, FW_FIRST_QPN + i))
			CHECK_EQ(qp_destroy(&e, FW_FIRST_QPN + i), OK);
	CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DESTROY_SRQ, srqn, 0), OK);
	CHECK_EQ(drv_destroy_cq(&e.d, &e.scq), OK);
	CHECK_EQ(drv_destroy_cq(&e.d, &e.rcq), OK);
	CHECK_EQ(drv_handle_cmd(&e.d, ORDMA_CMD_DEALLOC_PD, e.pdn, 0), OK);
	drv_close(&e.d);
}
