// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Randomised robustness: seeded, deterministic streams of mutated admin
 * commands, doorbells, register writes, host memory garbage and frames.
 * The firmware must never crash or trip the sanitizers, every command must
 * complete, and the device must answer QUERY_FW at the end.
 */
#include <stdlib.h>
#include <string.h>

#include "objects/fw_verbs.h"
#include "objects/fw_qp.h"
#include "drv.h"
#include "ordma_test.h"

#define ROBUST_SEED		0x0d3a5eed0d3a5eedULL
#define ROBUST_ITERATIONS	6000

struct rng {
	uint64_t state;
};

/* xorshift64*: small, good enough, identical on every host */
static uint64_t rng_next(struct rng *r)
{
	r->state ^= r->state >> 12;
	r->state ^= r->state << 25;
	r->state ^= r->state >> 27;
	return r->state * 0x2545f4914f6cdd1dULL;
}

static uint32_t rng_below(struct rng *r, uint32_t n)
{
	return (uint32_t)(rng_next(r) % n);
}

static bool rng_chance(struct rng *r, unsigned int percent)
{
	return rng_below(r, 100) < percent;
}

static void rng_fill(struct rng *r, void *buf, size_t len)
{
	uint8_t *p = buf;

	while (len--)
		*p++ = (uint8_t)rng_next(r);
}

static const uint8_t robust_opcodes[] = {
	ORDMA_CMD_QUERY_FW, ORDMA_CMD_QUERY_DEVICE, ORDMA_CMD_QUERY_PORT,
	ORDMA_CMD_SET_PORT, ORDMA_CMD_HEALTH, ORDMA_CMD_QUERY_STATS,
	ORDMA_CMD_QUERY_RESOURCES,
	ORDMA_CMD_CREATE_EQ, ORDMA_CMD_DESTROY_EQ, ORDMA_CMD_CREATE_ETH_RING,
	ORDMA_CMD_DESTROY_ETH_RING, ORDMA_CMD_ADD_GID, ORDMA_CMD_DEL_GID,
	ORDMA_CMD_ALLOC_UCTX, ORDMA_CMD_DEALLOC_UCTX, ORDMA_CMD_ALLOC_PD,
	ORDMA_CMD_DEALLOC_PD, ORDMA_CMD_CREATE_QP, 0x00, 0x7f,
	ORDMA_CMD_CREATE_CQ, ORDMA_CMD_DESTROY_CQ, ORDMA_CMD_REG_MR,
	ORDMA_CMD_DEREG_MR, ORDMA_CMD_CREATE_AH, ORDMA_CMD_DESTROY_AH,
	ORDMA_CMD_MODIFY_QP, ORDMA_CMD_QUERY_QP, ORDMA_CMD_DESTROY_QP,
	ORDMA_CMD_CREATE_SRQ, ORDMA_CMD_MODIFY_SRQ, ORDMA_CMD_DESTROY_SRQ,
	ORDMA_CMD_QUERY_QP_STATS, ORDMA_CMD_QUERY_CQ,
};

/*
 * QP commands take their parameters from host buffers: slots prepared by
 * robust_fill_qp_buffers() (plausible CREATE_QP parameters, MODIFY_QP
 * attributes for real transitions), which commands name at random and
 * scribble() may garble.
 */
#define ROBUST_QP_SLOT_SIZE	128
#define ROBUST_QP_SLOTS		16	/* 0..7 create, 8..15 modify */
#define ROBUST_QP_SLOT(n)	(DRV_QP_BUF_ADDR + (uint64_t)(n) * ROBUST_QP_SLOT_SIZE)
#define ROBUST_WQ_AREAS		4

static uint64_t random_buf_addr(struct rng *r)
{
	switch (rng_below(r, 8)) {
	case 0:
		return DRV_BAD_ADDR;
	case 1:
		return DRV_BUF_ADDR + rng_below(r, 8);
	case 2:
		return FAKE_MEM_END - 8 * rng_below(r, 64);
	case 3:
		return rng_next(r);
	default:
		return DRV_BUF_ADDR;
	}
}

static void random_query(struct rng *r, struct ordma_aq_cmd *cmd,
			 uint32_t port)
{
	cmd->query.buf_addr = cpu_to_le64(random_buf_addr(r));
	cmd->query.buf_len = cpu_to_le32(rng_chance(r, 90) ?
					 1 + rng_below(r, 4096) :
					 (uint32_t)rng_next(r));
	cmd->query.port = cpu_to_le32(rng_chance(r, 90) ? port : rng_below(r, 3));
}

static void random_set_port(struct rng *r, struct ordma_aq_cmd *cmd)
{
	struct ordma_cmd_set_port *p = &cmd->set_port;
	uint32_t mask = 1 + rng_below(r, 15);

	p->port = cpu_to_le32(ORDMA_PORT_NUM);
	p->field_mask = cpu_to_le32(mask);
	if (mask & ORDMA_SET_PORT_MTU)
		p->mtu = cpu_to_le32(68 + rng_below(r, 9000 - 67));
	if (mask & ORDMA_SET_PORT_MAC) {
		rng_fill(r, p->mac, 6);
		p->mac[0] &= 0xfe;
		p->mac[0] |= 0x02;
	}
	if (mask & ORDMA_SET_PORT_ADMIN)
		p->admin_up = rng_chance(r, 80);
	if (mask & ORDMA_SET_PORT_RX_MODE)
		p->rx_mode = (uint8_t)rng_below(r, 4);
}

static void random_add_gid(struct rng *r, struct ordma_aq_cmd *cmd)
{
	struct ordma_cmd_add_gid *g = &cmd->add_gid;

	g->index = cpu_to_le32(rng_below(r, 17));
	g->type = rng_chance(r, 95) ? ORDMA_GID_TYPE_ROCE_V2 : 0;
	g->vlan_id = cpu_to_le16(rng_chance(r, 50) ? ORDMA_VLAN_NONE :
				 (uint16_t)rng_below(r, 4097));
	memset(g->gid, 0, 16);
	if (rng_chance(r, 50)) {
		g->gid[10] = g->gid[11] = 0xff;
		g->gid[12] = 10;
		g->gid[15] = (uint8_t)rng_below(r, 4);
	} else {
		g->gid[0] = 0xfe;
		g->gid[1] = 0x80;
		g->gid[15] = (uint8_t)rng_below(r, 4);
	}
	g->mac[0] = 0x02;
	g->mac[5] = 1;
}

/* Page lists into host memory: contiguous, or tables in the MR area */
static void random_page_list(struct rng *r, struct ordma_page_list *pl,
			     uint64_t contig_base)
{
	uint8_t levels = (uint8_t)rng_below(r, rng_chance(r, 95) ? 3 : 4);

	pl->levels = levels;
	pl->page_shift = (uint8_t)(rng_chance(r, 80) ? 12 :
				   11 + rng_below(r, 21));
	pl->num_pages = cpu_to_le32(rng_chance(r, 90) ? 1 + rng_below(r, 16) :
				    (uint32_t)rng_next(r));
	if (levels == 0)
		pl->addr = cpu_to_le64(contig_base);
	else
		pl->addr = cpu_to_le64(DRV_MR_ADDR + 4096 * rng_below(r, 16));
	if (rng_chance(r, 3))
		pl->addr = cpu_to_le64(rng_next(r));
}

static void random_reg_mr(struct rng *r, struct ordma_aq_cmd *cmd)
{
	struct ordma_cmd_reg_mr *m = &cmd->reg_mr;
	static const uint8_t kinds[] = { 0, 0, ORDMA_MR_FAST_REG, ORDMA_MR_DMA };

	m->pdn = cpu_to_le32(rng_below(r, 24));
	m->uctx = cpu_to_le32(rng_below(r, 6));
	m->flags = kinds[rng_below(r, sizeof(kinds))];
	m->key = (uint8_t)rng_next(r);
	m->access = cpu_to_le32(rng_below(r, 16));
	if (m->flags & ORDMA_MR_FAST_REG) {
		m->access = 0;
		m->max_pages = cpu_to_le16(rng_below(r, 600));
		return;
	}
	m->iova = cpu_to_le64(rng_chance(r, 50) ? rng_below(r, 0x100000) :
			      rng_next(r));
	m->length = cpu_to_le64(1 + rng_below(r, 0x10000));
	if (m->flags & ORDMA_MR_DMA)
		return;
	random_page_list(r, &m->pages,
			 DRV_MR_ADDR + 0x40000 + 4096 * rng_below(r, 64));
}

static void random_create_cq(struct rng *r, struct ordma_aq_cmd *cmd)
{
	struct ordma_cmd_create_cq *q = &cmd->create_cq;
	unsigned int area = rng_below(r, DRV_CQ_AREAS);

	q->uctx = cpu_to_le32(rng_below(r, 6));
	q->eqn = cpu_to_le32(rng_below(r, 34));
	q->log_size = (uint8_t)(1 + rng_below(r, 17));
	random_page_list(r, &q->ring, DRV_CQ_ADDR(area));
	q->db_record = cpu_to_le64(rng_chance(r, 95) ? DRV_CQ_DBREC_ADDR(area) :
				   rng_next(r));
}

static void random_create_ah(struct rng *r, struct ordma_aq_cmd *cmd)
{
	struct ordma_cmd_create_ah *a = &cmd->create_ah;

	a->pdn = cpu_to_le32(rng_below(r, 24));
	a->uctx = cpu_to_le32(rng_below(r, 6));
	a->av.dgid[0] = 0xfe;
	a->av.dgid[1] = 0x80;
	a->av.dgid[15] = (uint8_t)rng_next(r);
	a->av.dmac[0] = 0x02;
	a->av.dmac[5] = (uint8_t)rng_next(r);
	a->av.sgid_index = (uint8_t)rng_below(r, 17);
	a->av.hop_limit = (uint8_t)rng_next(r);
	a->av.flow_label = cpu_to_le32(rng_below(r, 0x100100));
	a->av.traffic_class = (uint8_t)rng_next(r);
	a->av.vlan_id = cpu_to_le16(rng_chance(r, 50) ? ORDMA_VLAN_NONE :
				    (uint16_t)rng_below(r, 4097));
}

static void random_create_qp_params(struct rng *r,
				    struct ordma_qp_create_params *p)
{
	unsigned int area = rng_below(r, ROBUST_WQ_AREAS);
	uint32_t srqn = rng_chance(r, 80) ? ORDMA_NO_SRQ : rng_below(r, 4);

	/* mostly the kernel context's PD 1 and CQs 1, 2 */
	drv_qp_params(p, rng_chance(r, 85) ? 0 : rng_below(r, 3),
		      rng_chance(r, 85) ? 1 : rng_below(r, 4),
		      (uint8_t)rng_below(r, rng_chance(r, 95) ? 2 : 4),
		      1 + rng_below(r, rng_chance(r, 90) ? 2 : 4),
		      1 + rng_below(r, rng_chance(r, 90) ? 2 : 4), srqn, area);
	if (rng_chance(r, 10)) {
		p->sq_log_size = (uint8_t)rng_below(r, 14);
		p->sq_wqe_shift = (uint8_t)(5 + rng_below(r, 6));
	}
	if (srqn == ORDMA_NO_SRQ && rng_chance(r, 10)) {
		p->rq_log_size = (uint8_t)rng_below(r, 14);
		p->rq_wqe_shift = (uint8_t)(3 + rng_below(r, 7));
	}
	p->max_inline_data = cpu_to_le32(rng_chance(r, 90) ? 0 :
					 rng_below(r, 300));
	if (rng_chance(r, 10))
		random_page_list(r, &p->sq, DRV_WQ_ADDR(area));
}

/* Attributes for a transition, mostly one a QP takes on its way */
static void random_qp_attr(struct rng *r, struct ordma_qp_attr *a)
{
	static const uint8_t steps[][2] = {
		{ ORDMA_QPS_RESET, ORDMA_QPS_INIT }, { ORDMA_QPS_INIT, ORDMA_QPS_RTR },
		{ ORDMA_QPS_RTR, ORDMA_QPS_RTS }, { ORDMA_QPS_RTS, ORDMA_QPS_SQD },
		{ ORDMA_QPS_SQD, ORDMA_QPS_RTS }, { ORDMA_QPS_RTS, ORDMA_QPS_ERR },
		{ ORDMA_QPS_ERR, ORDMA_QPS_RESET }, { ORDMA_QPS_RTS, ORDMA_QPS_RTS },
	};
	struct fw_qp_transition rule;
	uint8_t type = (uint8_t)rng_below(r, 2);
	unsigned int step = rng_below(r, sizeof(steps) / sizeof(steps[0]));
	uint8_t cur = steps[step][0], next = steps[step][1];
	uint32_t mask;

	if (rng_chance(r, 20)) {
		cur = (uint8_t)rng_below(r, ORDMA_QPS_ERR + 1);
		next = (uint8_t)rng_below(r, ORDMA_QPS_ERR + 1);
	}

	fw_qp_transition_rule(type, cur, next, &rule);
	mask = ORDMA_QP_ATTR_STATE | rule.required |
	       (rule.optional & (uint32_t)rng_next(r));
	if (rng_chance(r, 10))
		mask ^= 1u << rng_below(r, 22);
	memset(a, 0, sizeof(*a));
	a->attr_mask = cpu_to_le32(mask);
	a->state = next;
	if (mask & ORDMA_QP_ATTR_CUR_STATE)
		a->cur_state = cur;
	if (mask & ORDMA_QP_ATTR_PORT)
		a->port = 1;
	if (mask & ORDMA_QP_ATTR_ACCESS_FLAGS)
		a->access_flags = cpu_to_le32(rng_below(r, 16));
	if (mask & ORDMA_QP_ATTR_QKEY)
		a->qkey = cpu_to_le32((uint32_t)rng_next(r));
	if (mask & ORDMA_QP_ATTR_AV) {
		a->av.dgid[0] = 0xfe;
		a->av.dgid[1] = 0x80;
		a->av.dgid[15] = 2;
		a->av.dmac[0] = 0x02;
		a->av.dmac[5] = 2;
		a->av.sgid_index = (uint8_t)rng_below(r, 3);
		a->av.vlan_id = cpu_to_le16(ORDMA_VLAN_NONE);
	}
	if (mask & ORDMA_QP_ATTR_PATH_MTU)
		a->path_mtu = (uint8_t)rng_below(r, rng_chance(r, 80) ? 4 : 7);
	if (mask & ORDMA_QP_ATTR_TIMEOUT)
		a->timeout = (uint8_t)rng_below(r, 33);
	if (mask & ORDMA_QP_ATTR_RETRY_CNT)
		a->retry_cnt = (uint8_t)rng_below(r, 8);
	if (mask & ORDMA_QP_ATTR_RNR_RETRY)
		a->rnr_retry = (uint8_t)rng_below(r, 8);
	if (mask & ORDMA_QP_ATTR_MIN_RNR_TIMER)
		a->min_rnr_timer = (uint8_t)rng_below(r, 32);
	if (mask & ORDMA_QP_ATTR_SQ_PSN)
		a->sq_psn = cpu_to_le32(rng_below(r, 0x1000001));
	if (mask & ORDMA_QP_ATTR_RQ_PSN)
		a->rq_psn = cpu_to_le32(rng_below(r, 0x1000000));
	if (mask & ORDMA_QP_ATTR_DEST_QPN)
		a->dest_qpn = cpu_to_le32(rng_below(r, 0x1000000));
	if (mask & ORDMA_QP_ATTR_MAX_QP_RD_ATOMIC)
		a->max_rd_atomic = (uint8_t)rng_below(r, 17);
	if (mask & ORDMA_QP_ATTR_MAX_DEST_RD_ATOMIC)
		a->max_dest_rd_atomic = (uint8_t)rng_below(r, 17);
	if (mask & ORDMA_QP_ATTR_EN_SQD_ASYNC)
		a->en_sqd_async_notify = (uint8_t)rng_below(r, 2);
}

static void robust_fill_qp_buffers(struct rng *r, struct drv *d)
{
	unsigned int n;

	for (n = 0; n < ROBUST_QP_SLOTS; n++) {
		void *slot = drv_mem(d, ROBUST_QP_SLOT(n), ROBUST_QP_SLOT_SIZE);

		memset(slot, 0, ROBUST_QP_SLOT_SIZE);
		if (n < ROBUST_QP_SLOTS / 2)
			random_create_qp_params(r, slot);
		else
			random_qp_attr(r, slot);
	}
}

static void random_qp_buf_cmd(struct rng *r, struct ordma_aq_cmd *cmd,
			      unsigned int first_slot, size_t len)
{
	unsigned int slot = first_slot + rng_below(r, ROBUST_QP_SLOTS / 2);

	cmd->buf.buf_addr = cpu_to_le64(rng_chance(r, 95) ? ROBUST_QP_SLOT(slot) :
					random_buf_addr(r));
	cmd->buf.buf_len = cpu_to_le32(rng_chance(r, 95) ? len :
				       rng_below(r, 200));
	if (cmd->hdr.opcode != ORDMA_CMD_CREATE_QP)
		cmd->buf.handle = cpu_to_le32(FW_FIRST_QPN + rng_below(r, 8));
}

static void random_create_srq(struct rng *r, struct ordma_aq_cmd *cmd)
{
	struct ordma_cmd_create_srq *s = &cmd->create_srq;

	s->uctx = cpu_to_le32(rng_below(r, 3));
	s->pdn = cpu_to_le32(1 + rng_below(r, 3));
	s->log_size = (uint8_t)rng_below(r, 8);
	s->wqe_shift = (uint8_t)(4 + rng_below(r, 4));
	s->limit = cpu_to_le32(rng_below(r, 20));
	random_page_list(r, &s->ring, DRV_WQ_ADDR(rng_below(r, ROBUST_WQ_AREAS)));
}

/* What the transport engine will do to QPs and SRQs */
static void random_qp_engine_event(struct rng *r, struct drv *d)
{
	static const uint8_t events[] = {
		0, ORDMA_EQE_QP_FATAL, ORDMA_EQE_QP_REQ_ERR,
		ORDMA_EQE_QP_ACCESS_ERR,
	};
	struct fw_qp *qp = fw_qp_lookup(d->fw, rng_below(r, 12));
	struct fw_srq *srq = fw_srq_lookup(d->fw, rng_below(r, 6));
	struct ordma_cqe cqe;
	uint8_t wqe[512];
	uint32_t idx;

	if (srq && rng_chance(r, 50))
		(void)fw_srq_take(d->fw, srq, wqe, rng_below(r, sizeof(wqe)),
				  &idx);
	if (!qp)
		return;
	switch (rng_below(r, 8)) {
	case 0:
		fw_qp_set_error(d->fw, qp, events[rng_below(r, sizeof(events))]);
		break;
	case 1:
		fw_qp_enter_sqe(d->fw, qp);
		break;
	case 2:
		fw_qp_sq_drained(d->fw, qp);
		break;
	case 3:
		if (!fw_qp_recv_take(d->fw, qp, wqe, sizeof(wqe), &idx) &&
		    rng_chance(r, 70))
			fw_qp_rq_completed(qp);
		break;
	case 4:
		rng_fill(r, &cqe, sizeof(cqe));
		(void)fw_qp_complete(d->fw, qp, rng_chance(r, 50), &cqe,
				     rng_chance(r, 20));
		break;
	case 5:
		(void)fw_wq_read_wqe(d->fw, rng_chance(r, 50) ? &qp->sq : &qp->rq,
				     (uint32_t)rng_next(r), wqe,
				     rng_below(r, sizeof(wqe) + 1));
		break;
	default:
		fw_qp_sq_kick(d->fw, qp);
		break;
	}
}

/* A command that is valid or nearly so for its opcode */
static void random_command(struct rng *r, struct ordma_aq_cmd *cmd)
{
	static const uint8_t qp_opcodes[] = {
		ORDMA_CMD_CREATE_QP, ORDMA_CMD_MODIFY_QP, ORDMA_CMD_MODIFY_QP,
		ORDMA_CMD_MODIFY_QP, ORDMA_CMD_QUERY_QP, ORDMA_CMD_DESTROY_QP,
	};
	uint8_t op = robust_opcodes[rng_below(r, sizeof(robust_opcodes))];

	/* QPs need several commands in a row to get anywhere */
	if (rng_chance(r, 20))
		op = qp_opcodes[rng_below(r, sizeof(qp_opcodes))];

	drv_cmd_init(cmd, op);
	switch (op) {
	case ORDMA_CMD_QUERY_DEVICE:
	case ORDMA_CMD_QUERY_RESOURCES:
		random_query(r, cmd, 0);
		break;
	case ORDMA_CMD_QUERY_PORT:
	case ORDMA_CMD_QUERY_STATS:
		random_query(r, cmd, 1);
		break;
	case ORDMA_CMD_SET_PORT:
		random_set_port(r, cmd);
		break;
	case ORDMA_CMD_CREATE_EQ:
		cmd->create_eq.ring_addr = cpu_to_le64(DRV_EQ_ADDR(rng_below(r, 32)));
		cmd->create_eq.log_size = (uint8_t)(4 + rng_below(r, 9));
		cmd->create_eq.type = (uint8_t)rng_below(r, 2);
		cmd->create_eq.vector = cpu_to_le16(cmd->create_eq.type ?
						    rng_below(r, 9) : 0);
		break;
	case ORDMA_CMD_CREATE_ETH_RING:
		cmd->eth_ring.ring_addr = cpu_to_le64(DRV_RING_ADDR(rng_below(r, 8)));
		cmd->eth_ring.log_size = (uint8_t)(4 + rng_below(r, 9));
		cmd->eth_ring.type = (uint8_t)rng_below(r, 2);
		cmd->eth_ring.eqn = cpu_to_le32(rng_below(r, 34));
		break;
	case ORDMA_CMD_ADD_GID:
		random_add_gid(r, cmd);
		break;
	case ORDMA_CMD_DESTROY_EQ:
	case ORDMA_CMD_DESTROY_ETH_RING:
	case ORDMA_CMD_DEL_GID:
	case ORDMA_CMD_DEALLOC_UCTX:
		cmd->handle.handle = cpu_to_le32(rng_below(r, 34));
		break;
	case ORDMA_CMD_ALLOC_PD:
		cmd->alloc_pd.uctx = cpu_to_le32(rng_below(r, 6));
		break;
	case ORDMA_CMD_DEALLOC_PD:
		cmd->handle.handle = cpu_to_le32(rng_below(r, 24));
		cmd->handle.uctx = cpu_to_le32(rng_below(r, 6));
		break;
	case ORDMA_CMD_REG_MR:
		random_reg_mr(r, cmd);
		break;
	case ORDMA_CMD_CREATE_CQ:
		random_create_cq(r, cmd);
		break;
	case ORDMA_CMD_CREATE_AH:
		random_create_ah(r, cmd);
		break;
	case ORDMA_CMD_DEREG_MR:
		cmd->handle.handle = cpu_to_le32(rng_below(r, 40) << 8 |
						 rng_below(r, 256));
		cmd->handle.uctx = cpu_to_le32(rng_below(r, 6));
		break;
	case ORDMA_CMD_DESTROY_CQ:
	case ORDMA_CMD_DESTROY_AH:
		cmd->handle.handle = cpu_to_le32(rng_below(r, 40));
		cmd->handle.uctx = cpu_to_le32(rng_below(r, 6));
		break;
	case ORDMA_CMD_CREATE_QP:
		random_qp_buf_cmd(r, cmd, 0,
				  sizeof(struct ordma_qp_create_params));
		break;
	case ORDMA_CMD_MODIFY_QP:
		random_qp_buf_cmd(r, cmd, ROBUST_QP_SLOTS / 2,
				  sizeof(struct ordma_qp_attr));
		break;
	case ORDMA_CMD_QUERY_QP:
		random_qp_buf_cmd(r, cmd, ROBUST_QP_SLOTS / 2,
				  sizeof(struct ordma_qp_attr));
		break;
	case ORDMA_CMD_QUERY_QP_STATS:
		random_qp_buf_cmd(r, cmd, ROBUST_QP_SLOTS / 2,
				  sizeof(struct ordma_qp_stats));
		if (rng_chance(r, 20))
			cmd->buf.handle = cpu_to_le32(ORDMA_QP_STATS_ALL);
		break;
	case ORDMA_CMD_QUERY_CQ:
		random_qp_buf_cmd(r, cmd, ROBUST_QP_SLOTS / 2,
				  sizeof(struct ordma_cq_attr));
		cmd->buf.handle = cpu_to_le32(rng_below(r, 6));
		break;
	case ORDMA_CMD_DESTROY_QP:
	case ORDMA_CMD_DESTROY_SRQ:
		cmd->handle.handle = cpu_to_le32(rng_below(r, 12));
		cmd->handle.uctx = cpu_to_le32(rng_below(r, 3));
		break;
	case ORDMA_CMD_CREATE_SRQ:
		random_create_srq(r, cmd);
		break;
	case ORDMA_CMD_MODIFY_SRQ:
		cmd->modify_srq.srqn = cpu_to_le32(rng_below(r, 6));
		cmd->modify_srq.uctx = cpu_to_le32(rng_below(r, 3));
		cmd->modify_srq.limit = cpu_to_le32(rng_below(r, 20));
		break;
	default:
		break;
	}
}

static void mutate_command(struct rng *r, struct ordma_aq_cmd *cmd)
{
	uint8_t *raw = (uint8_t *)cmd;
	unsigned int n;

	if (rng_chance(r, 5)) {
		rng_fill(r, cmd, sizeof(*cmd));
		return;
	}
	for (n = rng_below(r, 4); n; n--) {
		unsigned int at = rng_below(r, sizeof(*cmd));

		if (rng_chance(r, 50))
			raw[at] ^= (uint8_t)(1u << rng_below(r, 8));
		else
			raw[at] = (uint8_t)rng_next(r);
	}
}

/* Submit one command: it must complete with a defined status. */
static bool robust_exec(struct drv *d, struct ordma_aq_cmd *cmd)
{
	uint8_t status = drv_exec(d, cmd);

	if (!CHECK(status <= ORDMA_CMD_STATUS_INTERNAL))
		return false;
	/* CREATE_QP/MODIFY_QP also name fields of their buffer: 64 + offset */
	if (status == ORDMA_CMD_STATUS_BAD_PARAM &&
	    !CHECK(drv_syndrome(d) < FW_BUF_SYNDROME(ROBUST_QP_SLOT_SIZE)))
		return false;
	if (status == ORDMA_CMD_STATUS_BAD_PARAM &&
	    cmd->hdr.opcode != ORDMA_CMD_CREATE_QP &&
	    cmd->hdr.opcode != ORDMA_CMD_MODIFY_QP &&
	    !CHECK(drv_syndrome(d) < 64))
		return false;
	return true;
}

static void random_doorbell(struct rng *r, struct drv *d)
{
	static const uint32_t regs[] = {
		ORDMA_DB_SQ, ORDMA_DB_RQ, ORDMA_DB_SRQ, ORDMA_DB_CQ, ORDMA_DB_EQ,
		ORDMA_DB_ETH_PI, ORDMA_DB_ETH_ARM,
	};
	uint32_t page = rng_chance(r, 80) ? 0 : rng_below(r, 300);
	uint32_t reg = rng_chance(r, 90) ? regs[rng_below(r, 7)] :
					   rng_below(r, 4096);
	unsigned int size = rng_chance(r, 95) ? 8 : 1 + rng_below(r, 8);
	uint64_t val;

	if (rng_chance(r, 80)) {
		val = FIELD_PREP(ORDMA_DB_QN, (uint64_t)rng_below(r, 10)) |
		      FIELD_PREP(ORDMA_DB_IDX, (uint64_t)rng_below(r, 40)) |
		      (rng_chance(r, 50) ? ORDMA_DB_ARM : 0) |
		      (rng_chance(r, 10) ? ORDMA_DB_SOLICITED : 0);
	} else {
		val = rng_next(r);
	}
	ordma_fw_db_write(d->fw, (uint64_t)page << 12 | reg, val, size);
}

/* What the QP engine does to the verbs objects: completions, MR use */
static void random_engine_event(struct rng *r, struct drv *d)
{
	struct ordma_cqe cqe;
	struct fw_mr *mr;
	uint8_t buf[64];
	uint32_t key = rng_below(r, 40) << 8 | rng_below(r, 4);
	uint64_t iova = rng_chance(r, 50) ? rng_below(r, 0x100000) : rng_next(r);

	rng_fill(r, &cqe, sizeof(cqe));
	(void)fw_cq_post(d->fw, rng_below(r, 12), &cqe, rng_chance(r, 30));
	if (fw_mr_lookup(d->fw, key, rng_below(r, 24), iova, sizeof(buf),
			 rng_below(r, 16), &mr) == FW_MR_OK) {
		(void)fw_mr_copy_from(d->fw, mr, iova, buf, sizeof(buf));
		(void)fw_mr_copy_to(d->fw, mr, iova, buf, sizeof(buf));
	}
	if (rng_chance(r, 10))
		(void)fw_mr_invalidate(d->fw, key, rng_below(r, 24));
	(void)fw_ah_get(d->fw, rng_below(r, 40), rng_below(r, 24));
}

static size_t random_frame(struct rng *r, struct drv *d, uint8_t *buf,
			   size_t cap)
{
	static const uint8_t ip4[4] = { 10, 0, 0, 1 };
	static const uint8_t ip6[16] = { 0xfe, 0x80, [15] = 1 };
	size_t len;

	switch (rng_below(r, 6)) {
	case 0:
		len = drv_build_udp4(buf, d->cfg.mac, ip4, 4791, rng_chance(r, 30));
		break;
	case 1:
		len = drv_build_udp6(buf, d->cfg.mac, ip6, 4791);
		break;
	case 2:
		len = drv_build_frame(buf, drv_bcast_mac, d->cfg.mac, 0x0806,
				      rng_below(r, 200));
		break;
	case 3:
		len = drv_build_frame(buf, d->cfg.mac, drv_bcast_mac, 0x0800,
				      rng_below(r, 1600));
		break;
	default:
		len = rng_below(r, (uint32_t)cap);
		rng_fill(r, buf, len);
		return len;
	}
	if (rng_chance(r, 50))
		buf[rng_below(r, (uint32_t)len)] = (uint8_t)rng_next(r);
	if (rng_chance(r, 10))
		len = rng_below(r, (uint32_t)len + 1);
	return len;
}

/* Host memory the device reads: rings, EQs, descriptors, buffers */
static void scribble(struct rng *r, struct drv *d)
{
	uint64_t base;
	size_t len = 1 + rng_below(r, 256);

	switch (rng_below(r, 6)) {
	case 0:
		base = DRV_EQ_ADDR(rng_below(r, 32));
		break;
	case 4:
		/* WQE rings; QP command buffers sit in the query buffer area */
		base = rng_chance(r, 70) ?
		       DRV_WQ_ADDR(rng_below(r, ROBUST_WQ_AREAS)) :
		       DRV_BUF_ADDR;
		break;
	case 1:
		base = DRV_RING_ADDR(rng_below(r, 8));
		break;
	case 2:
		base = DRV_CQ_ADDR(rng_below(r, DRV_CQ_AREAS));
		break;
	case 3:
		/* page tables, doorbell records, MR pages */
		base = DRV_CQ_DBREC_ADDR(0) + 0x10000 * rng_below(r, 48);
		break;
	default:
		base = DRV_FRAME_ADDR(rng_below(r, 8), rng_below(r, 64));
		break;
	}
	base += rng_below(r, 0x10000 - 256);
	rng_fill(r, drv_mem(d, base, len), len);
}

/* Valid descriptors in every ring area so that doorbells find work */
static void post_plausible_descriptors(struct rng *r, struct drv *d)
{
	unsigned int area = rng_below(r, 8), i;

	for (i = 0; i < 64; i++) {
		struct ordma_eth_desc *desc =
			drv_mem(d, DRV_RING_ADDR(area) + i * 16, 16);

		desc->addr = cpu_to_le64(DRV_FRAME_ADDR(area, i));
		desc->len_flags = cpu_to_le32(60 + rng_below(r, 2000));
		desc->reserved_12 = 0;
	}
}

static void random_register_write(struct rng *r, struct drv *d)
{
	static const uint32_t offs[] = {
		ORDMA_REG_VERSION, ORDMA_REG_CTRL, ORDMA_REG_STATUS,
		ORDMA_REG_HEARTBEAT, ORDMA_REG_AQ_BASE_LO, ORDMA_REG_AQ_CFG,
		ORDMA_REG_SCRATCH, 0x100, ORDMA_REG_AQ_DB,
	};
	uint32_t off = offs[rng_below(r, sizeof(offs) / sizeof(offs[0]))];
	uint32_t val = (uint32_t)rng_next(r);
	bool anywhere = rng_chance(r, 5);

	if (anywhere)
		ordma_fw_reg_write(d->fw, rng_below(r, 0x5000), val,
				   1 + rng_below(r, 8));
	else
		ordma_fw_reg_write(d->fw, off, val, 4);
	(void)ordma_fw_reg_read(d->fw, rng_below(r, 0x4100),
				1 + rng_below(r, 8));
	/* the driver's view of the AQ may be lost: start over like a
	 * driver that detected it
	 */
	if (anywhere || off == ORDMA_REG_AQ_DB || off == ORDMA_REG_CTRL ||
	    drv_rd(d, ORDMA_REG_STATUS) != ORDMA_STATUS_READY) {
		drv_wr(d, ORDMA_REG_CTRL, ORDMA_CTRL_RESET);
		CHECK(drv_enable(d, d->log_depth));
	}
}

static void robust_actions(struct drv *d, struct rng *r, unsigned int count,
			   uint8_t *frame, size_t frame_cap)
{
	struct ordma_aq_cmd cmd;
	unsigned int i, failures = 0;

	for (i = 0; i < count && failures < 5; i++) {
		unsigned int action = rng_below(r, 100);

		if (action < 40) {
			random_command(r, &cmd);
			if (rng_chance(r, 60))
				mutate_command(r, &cmd);
			failures += !robust_exec(d, &cmd);
		} else if (action < 60) {
			random_doorbell(r, d);
		} else if (action < 76) {
			ordma_fw_rx_frame(d->fw, frame,
					  random_frame(r, d, frame, frame_cap));
		} else if (action < 80) {
			random_engine_event(r, d);
			random_qp_engine_event(r, d);
			if (rng_chance(r, 20))
				robust_fill_qp_buffers(r, d);
		} else if (action < 86) {
			scribble(r, d);
		} else if (action < 90) {
			post_plausible_descriptors(r, d);
		} else if (action < 93) {
			ordma_fw_set_link(d->fw, rng_chance(r, 70));
		} else if (action < 97) {
			fake_advance(&d->hal, rng_below(r, 30000000));
		} else {
			random_register_write(r, d);
		}
		failures += drv_rd(d, ORDMA_REG_STATUS) != ORDMA_STATUS_READY;
	}
	CHECK_EQ(failures, 0);
}

static void check_still_answers(struct drv *d)
{
	struct ordma_comp_health h;

	CHECK_EQ(d->hal.msix_bad_vector, 0);
	CHECK_EQ(d->hal.tx_bad_len, 0);
	CHECK_EQ(drv_rd(d, ORDMA_REG_STATUS), ORDMA_STATUS_READY);
	CHECK_EQ(drv_simple(d, ORDMA_CMD_QUERY_FW), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(le16_to_cpu(d->last_comp.query_fw.major), 1);
	CHECK_EQ(drv_health(d, &h), ORDMA_CMD_STATUS_OK);
	/* and after a full reset, as a driver reload would do */
	drv_wr(d, ORDMA_REG_CTRL, ORDMA_CTRL_RESET);
	CHECK(drv_enable(d, d->log_depth));
	CHECK_EQ(drv_simple(d, ORDMA_CMD_QUERY_FW), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(drv_health(d, &h), ORDMA_CMD_STATUS_OK);
	CHECK_EQ(le32_to_cpu(h.state), ORDMA_HEALTH_OK);
}

TEST(test_random_device_storm)
{
	static uint8_t frame[9300];
	struct drv_eq async, comp;
	struct drv_ring tx, rx;
	struct drv_cq cq1, cq2;
	struct rng r = { ROBUST_SEED };
	struct drv d;
	uint32_t pdn;

	REQUIRE(drv_open(&d, 5));
	REQUIRE(drv_eq_open(&d, &async, ORDMA_EQ_TYPE_ASYNC, 0, 8));
	REQUIRE(drv_eq_open(&d, &comp, ORDMA_EQ_TYPE_COMP, 1, 6));
	REQUIRE(drv_ring_open(&d, &tx, ORDMA_ETH_RING_TX, 6, comp.eqn));
	REQUIRE(drv_ring_open(&d, &rx, ORDMA_ETH_RING_RX, 6, comp.eqn));
	REQUIRE_EQ(drv_port_up(&d), ORDMA_CMD_STATUS_OK);
	drv_rx_post(&d, &rx, 64, 2048);
	/* a PD and CQs that random QP commands can name */
	REQUIRE_EQ(drv_alloc_pd(&d, 0, &pdn), ORDMA_CMD_STATUS_OK);
	REQUIRE(drv_cq_open(&d, &cq1, 1, 0, comp.eqn, 6));
	REQUIRE(drv_cq_open(&d, &cq2, 2, 0, comp.eqn, 4));
	robust_fill_qp_buffers(&r, &d);

	robust_actions(&d, &r, ROBUST_ITERATIONS, frame, sizeof(frame));
	check_still_answers(&d);
	drv_close(&d);
}

/* Every opcode, each byte of the entry mutated in turn. */
TEST(test_every_byte_of_every_opcode)
{
	struct ordma_aq_cmd cmd, base;
	struct rng r = { ROBUST_SEED ^ 1 };
	struct drv d;
	unsigned int op, byte, failures = 0;

	REQUIRE(drv_open(&d, 3));
	for (op = 0; op < sizeof(robust_opcodes); op++) {
		do
			random_command(&r, &base);
		while (base.hdr.opcode != robust_opcodes[op]);
		for (byte = 0; byte < sizeof(cmd) && failures < 5; byte++) {
			cmd = base;
			((uint8_t *)&cmd)[byte] ^= (uint8_t)(1 + rng_below(&r, 255));
			failures += !robust_exec(&d, &cmd);
		}
	}
	CHECK_EQ(failures, 0);
	check_still_answers(&d);
	drv_close(&d);
}

/* A small admin queue and a tiny doorbell BAR under the same storm */
TEST(test_random_storm_small_device)
{
	static uint8_t frame[2048];
	struct ordma_fw_config cfg;
	struct rng r = { ROBUST_SEED ^ 2 };
	struct drv d;

	drv_default_config(&cfg);
	cfg.num_vectors = 2;
	cfg.num_db_pages = 2;
	REQUIRE(drv_open_cfg(&d, &cfg, 1));
	robust_fill_qp_buffers(&r, &d);
	robust_actions(&d, &r, ROBUST_ITERATIONS / 2, frame, sizeof(frame));
	check_still_answers(&d);
	drv_close(&d);
}
