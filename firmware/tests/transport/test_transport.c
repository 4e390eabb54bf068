// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The RoCEv2 transport engine end to end: two firmware instances in one
 * process, each with its own fake host memory, wired back to back (every
 * frame A transmits is queued for B's RX and the other way round).  The
 * queues are pumped by the test, which can drop or duplicate the n-th
 * frame of a direction, and both fake clocks advance together.
 */
#include <stdlib.h>
#include <string.h>

#include "objects/fw_qp.h"
#include "drv.h"
#include "ordma_test.h"

#define OK		ORDMA_CMD_STATUS_OK
#define A(name)		ORDMA_QP_ATTR_##name
#define QP_AREA		2
#define SQ_LOG		6
#define SQ_SHIFT	8		/* 256-byte send WQEs: 13 SGEs or inline */
#define RQ_LOG		6
#define RQ_SHIFT	6		/* 64-byte receive WQEs: 3 SGEs */
#define MR1_ADDR	DRV_MR_ADDR			/* all access */
#define MR1_LEN		0x100000ULL
#define MR2_ADDR	(DRV_MR_ADDR + MR1_LEN)		/* local write only */
#define MR2_LEN		0x80000ULL
#define GUARD_ADDR	(MR2_ADDR + MR2_LEN)		/* in no MR */
#define GUARD_LEN	0x80000ULL
#define PKT_GUARD	200000

/* ------------------------------------------------------------------ */
/* Two devices and a wire                                              */
/* ------------------------------------------------------------------ */

struct qframe {
	size_t len;
	uint8_t *data;
};

struct link {
	struct qframe *q;
	size_t head, tail, cap;
	unsigned long sent;		/* frames the sender transmitted */
	unsigned long drop_nth;		/* 1-based, 0: none */
	unsigned long drop_from;	/* drop every frame from this one on */
	unsigned long dup_nth;
	unsigned long dropped;
	size_t max_queued;
};

struct side {
	struct drv d;
	struct drv_eq async, comp;
	struct drv_cq scq, rcq;
	uint32_t pdn, key1, key2;
	uint32_t qpn;
	uint32_t srqn;			/* 0: none */
	uint32_t sq_pi, rq_pi, srq_pi;
	unsigned int wq_area;		/* 0: QP_AREA */
	uint8_t gid[16];
	uint8_t mac[6];
};

struct tcfg {
	uint8_t type;
	uint8_t path_mtu;
	uint8_t timeout;
	uint8_t retry_cnt;
	uint8_t rnr_retry;
	uint8_t min_rnr_timer;
	uint8_t max_rd_atomic;
	uint32_t psn[2];		/* SQ_PSN of side i = RQ_PSN of the other */
	uint32_t access;
	uint32_t port_mtu;
	bool ipv6;
	bool srq_b;			/* side 1 receives through an SRQ */
	uint16_t vlan;			/* of both GID entries; 0: none */
};

struct env {
	struct side s[2];
	struct link l[2];		/* l[i]: frames sent by side i */
};

static void link_push(struct link *l, const void *frame, size_t len)
{
	struct qframe *f;

	if (l->tail - l->head == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 256, i;
		struct qframe *q = calloc(cap, sizeof(*q));

		if (!q)
			abort();
		for (i = l->head; i != l->tail; i++)
			q[i - l->head] = l->q[i % l->cap];
		free(l->q);
		l->q = q;
		l->tail -= l->head;
		l->head = 0;
		l->cap = cap;
	}
	f = &l->q[l->tail % l->cap];
	f->data = malloc(len);
	if (!f->data)
		abort();
	memcpy(f->data, frame, len);
	f->len = len;
	l->tail++;
	if (l->tail - l->head > l->max_queued)
		l->max_queued = l->tail - l->head;
}

static void link_tx_hook(void *arg, const void *frame, size_t len)
{
	struct link *l = arg;

	l->sent++;
	if (l->sent == l->drop_nth ||
	    (l->drop_from && l->sent >= l->drop_from)) {
		l->dropped++;
		return;
	}
	link_push(l, frame, len);
	if (l->sent == l->dup_nth)
		link_push(l, frame, len);
}

static bool link_pop(struct link *l, struct qframe *f)
{
	if (l->head == l->tail)
		return false;
	*f = l->q[l->head % l->cap];
	l->head++;
	return true;
}

static void link_free(struct link *l)
{
	struct qframe f;

	while (link_pop(l, &f))
		free(f.data);
	free(l->q);
	memset(l, 0, sizeof(*l));
}

/* Some QP of the device has READ response or UC send bursts waiting
 * for the timer
 */
static bool read_bursts_due(struct ordma_fw *fw)
{
	uint32_t qpn;

	for (qpn = FW_FIRST_QPN; qpn < FW_MAX_QP; qpn++) {
		struct fw_qp *qp = fw_qp_lookup(fw, qpn);

		if (qp && (qp->resp.read_deadline || qp->req.pace_deadline))
			return true;
	}
	return false;
}

/*
 * Delivers frames both ways until the wire is quiet; a device with paced
 * READ responses or UC packets still to send gets its clock moved to the
 * next burst.
 */
static unsigned long pump(struct env *e)
{
	unsigned long n = 0;
	bool busy = true;

	while (busy && n < PKT_GUARD) {
		int i;

		busy = false;
		if (e->l[0].head == e->l[0].tail &&
		    e->l[1].head == e->l[1].tail)
			for (i = 0; i < 2; i++)
				if (read_bursts_due(e->s[i].d.fw)) {
					fake_advance(&e->s[i].d.hal,
						     FW_TP_READ_GAP_NS);
					busy = true;
				}
		for (i = 0; i < 2; i++) {
			struct qframe f;

			if (!link_pop(&e->l[i], &f))
				continue;
			ordma_fw_rx_frame(e->s[!i].d.fw, f.data, f.len);
			free(f.data);
			busy = true;
			n++;
		}
	}
	return n;
}

static void advance(struct env *e, uint64_t ns)
{
	fake_advance(&e->s[0].d.hal, ns);
	fake_advance(&e->s[1].d.hal, ns);
	pump(e);
}

static void fill_gid(struct side *s, int i, bool ipv6)
{
	static const uint8_t v4[16] = { [10] = 0xff, [11] = 0xff, 10, 0, 0 };
	static const uint8_t v6[16] = { 0xfd, 0x00, 0x0a, [14] = 0x01 };

	memcpy(s->gid, ipv6 ? v6 : v4, 16);
	s->gid[15] = (uint8_t)(1 + i);
	s->mac[0] = 0x02;
	s->mac[5] = (uint8_t)(0x0a + i);
}

static bool side_open(struct side *s, int i, const struct tcfg *c)
{
	struct ordma_fw_config cfg;

	drv_default_config(&cfg);
	cfg.mac[5] = (uint8_t)(0x0a + i);
	cfg.mac[0] = 0x02;
	if (!drv_open_cfg(&s->d, &cfg, 5))
		return false;
	fill_gid(s, i, c->ipv6);
	memcpy(s->mac, cfg.mac, 6);
	if (!drv_eq_open(&s->d, &s->async, ORDMA_EQ_TYPE_ASYNC, 0, 10) ||
	    !drv_eq_open(&s->d, &s->comp, ORDMA_EQ_TYPE_COMP, 1, 8) ||
	    drv_port_up(&s->d) != OK ||
	    (c->port_mtu && drv_set_port(&s->d, ORDMA_SET_PORT_MTU, c->port_mtu,
					 NULL, 0, 0) != OK) ||
	    drv_add_gid(&s->d, 0, s->gid, s->mac,
			c->vlan ? c->vlan : ORDMA_VLAN_NONE) != OK ||
	    drv_alloc_pd(&s->d, 0, &s->pdn) != OK ||
	    !drv_cq_open(&s->d, &s->scq, 0, 0, s->comp.eqn, 10) ||
	    !drv_cq_open(&s->d, &s->rcq, 1, 0, s->comp.eqn, 10) ||
	    drv_reg_mr_contig(&s->d, s->pdn, 0, MR1_ADDR, MR1_ADDR, MR1_LEN,
			      DRV_ACCESS_ALL, 0x11, &s->key1) != OK ||
	    drv_reg_mr_contig(&s->d, s->pdn, 0, MR2_ADDR, MR2_ADDR, MR2_LEN,
			      ORDMA_ACCESS_LOCAL_WRITE, 0x22, &s->key2) != OK)
		return false;
	return true;
}

static void fill_attr(struct ordma_qp_attr *a, uint32_t mask, uint8_t next,
		      const struct tcfg *c, const struct side *self,
		      const struct side *peer, int i)
{
	memset(a, 0, sizeof(*a));
	a->attr_mask = cpu_to_le32(mask);
	a->state = next;
	if (mask & A(ACCESS_FLAGS))
		a->access_flags = cpu_to_le32(c->access);
	if (mask & A(PORT))
		a->port = 1;
	if (mask & A(QKEY))
		a->qkey = cpu_to_le32(c->type == ORDMA_QPT_GSI ? ORDMA_GSI_QKEY :
				      0x1234);
	if (mask & A(AV)) {
		memcpy(a->av.dgid, peer->gid, 16);
		memcpy(a->av.dmac, peer->mac, 6);
		a->av.hop_limit = 64;
		a->av.vlan_id = cpu_to_le16(ORDMA_VLAN_NONE);
	}
	if (mask & A(PATH_MTU))
		a->path_mtu = c->path_mtu;
	if (mask & A(TIMEOUT))
		a->timeout = c->timeout;
	if (mask & A(RETRY_CNT))
		a->retry_cnt = c->retry_cnt;
	if (mask & A(RNR_RETRY))
		a->rnr_retry = c->rnr_retry;
	if (mask & A(RQ_PSN))
		a->rq_psn = cpu_to_le32(c->psn[!i]);
	if (mask & A(SQ_PSN))
		a->sq_psn = cpu_to_le32(c->psn[i]);
	if (mask & A(MAX_QP_RD_ATOMIC))
		a->max_rd_atomic = c->max_rd_atomic;
	if (mask & A(MAX_DEST_RD_ATOMIC))
		a->max_dest_rd_atomic = 16;
	if (mask & A(MIN_RNR_TIMER))
		a->min_rnr_timer = c->min_rnr_timer;
	if (mask & A(DEST_QPN))
		a->dest_qpn = cpu_to_le32(peer->qpn);
	(void)self;
}

static uint8_t qp_step(struct env *e, int i, uint8_t cur, uint8_t next,
		       const struct tcfg *c)
{
	struct fw_qp_transition rule;
	struct ordma_qp_attr a;
	uint32_t mask;

	/* the GSI QP follows the UD rules */
	fw_qp_transition_rule(c->type == ORDMA_QPT_GSI ? ORDMA_QPT_UD : c->type,
			      cur, next, &rule);
	mask = rule.required | A(STATE);
	if (c->type == ORDMA_QPT_RC && next == ORDMA_QPS_RTR)
		mask |= A(MIN_RNR_TIMER) | A(MAX_DEST_RD_ATOMIC);
	if (c->type == ORDMA_QPT_RC && next == ORDMA_QPS_RTS)
		mask |= A(MAX_QP_RD_ATOMIC) | A(TIMEOUT) | A(RETRY_CNT) |
			A(RNR_RETRY);
	mask &= rule.required | rule.optional | A(STATE);
	fill_attr(&a, mask, next, c, &e->s[i], &e->s[!i], i);
	return drv_modify_qp(&e->s[i].d, e->s[i].qpn, &a);
}

static uint8_t qp_state(struct side *s)
{
	struct fw_qp *qp = fw_qp_lookup(s->d.fw, s->qpn);

	return qp ? qp->state : 0xff;
}

static struct fw_qp *fwqp(struct side *s)
{
	return fw_qp_lookup(s->d.fw, s->qpn);
}

static void default_cfg(struct tcfg *c)
{
	memset(c, 0, sizeof(*c));
	c->type = ORDMA_QPT_RC;
	c->path_mtu = 3;		/* 1024 */
	c->timeout = 10;		/* 4.2 ms */
	c->retry_cnt = 3;
	c->rnr_retry = 3;
	c->min_rnr_timer = 1;		/* 10 us */
	c->max_rd_atomic = 4;
	c->psn[0] = 0x100;
	c->psn[1] = 0x777000;
	c->access = ORDMA_ACCESS_REMOTE_WRITE | ORDMA_ACCESS_REMOTE_READ |
		    ORDMA_ACCESS_REMOTE_ATOMIC;
}

/* Both sides up to RTS with connected QPs. */
static bool env_open(struct env *e, const struct tcfg *c)
{
	static const uint8_t path[] = { ORDMA_QPS_INIT, ORDMA_QPS_RTR,
					ORDMA_QPS_RTS };
	int i;
	size_t k;

	memset(e, 0, sizeof(*e));
	for (i = 0; i < 2; i++) {
		struct ordma_qp_create_params p;
		struct side *s = &e->s[i];

		if (!side_open(s, i, c)) {
			NOTE("side %d setup failed", i);
			return false;
		}
		memset(drv_mem(&s->d, DRV_WQ_ADDR(QP_AREA), 0x10000), 0,
		       0x10000);
		if (i == 1 && c->srq_b) {
			memset(drv_mem(&s->d, DRV_WQ_ADDR(QP_AREA + 1), 0x10000),
			       0, 0x10000);
			if (drv_create_srq(&s->d, 0, s->pdn, 4, 2, QP_AREA + 1,
					   &s->srqn) != OK)
				return false;
		}
		drv_qp_params(&p, 0, s->pdn, c->type, s->scq.cqn, s->rcq.cqn,
			      s->srqn ? s->srqn : ORDMA_NO_SRQ, QP_AREA);
		p.sq_log_size = SQ_LOG;
		p.sq_wqe_shift = SQ_SHIFT;
		p.max_inline_data = cpu_to_le32(128);
		drv_page_list_contig(&p.sq, DRV_WQ_ADDR(QP_AREA),
				     (1u << SQ_LOG) << SQ_SHIFT);
		if (!s->srqn) {
			p.rq_log_size = RQ_LOG;
			p.rq_wqe_shift = RQ_SHIFT;
			drv_page_list_contig(&p.rq, DRV_WQ_ADDR(QP_AREA) + 0x8000,
					     (1u << RQ_LOG) << RQ_SHIFT);
		}
		if (drv_create_qp(&s->d, &p, &s->qpn) != OK) {
			NOTE("CREATE_QP failed: syndrome %u", drv_syndrome(&s->d));
			return false;
		}
		s->d.hal.tx_hook = link_tx_hook;
		s->d.hal.tx_hook_arg = &e->l[i];
	}
	for (k = 0; k < sizeof(path); k++)
		for (i = 0; i < 2; i++)
			if (qp_step(e, i, k ? path[k - 1] : ORDMA_QPS_RESET,
				    path[k], c) != OK) {
				NOTE("MODIFY_QP to %u failed: syndrome %u",
					 path[k], drv_syndrome(&e->s[i].d));
				return false;
			}
	return true;
}

static void env_close(struct env *e)
{
	int i;

	for (i = 0; i < 2; i++) {
		drv_close(&e->s[i].d);
		link_free(&e->l[i]);
	}
}

static uint8_t *mem(struct side *s, uint64_t addr, size_t len)
{
	return drv_mem(&s->d, addr, len);
}

static void pattern(uint8_t *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 7 + seed + (i >> 8));
}

/* ------------------------------------------------------------------ */
/* Work requests                                                       */
/* ------------------------------------------------------------------ */

struct wr {
	uint8_t opcode;
	uint32_t flags;			/* ORDMA_WQE_SIGNALED, ... */
	struct ordma_sge sge[8];
	unsigned int num_sge;
	uint64_t remote_addr;
	uint32_t rkey;
	uint32_t imm_inv;
	uint64_t compare_add, swap;
	const void *inline_data;
	uint32_t inline_len;
	uint32_t ah, remote_qpn, remote_qkey;
	const struct ordma_av *av;	/* UD: inline AV instead of ah */
	struct ordma_wqe_reg_mr reg;
	uint8_t placement, level;	/* FLUSH */
	uint32_t length;		/* FLUSH */
	uint8_t value[8];		/* ATOMIC_WRITE */
	struct ordma_wqe_bind_mw bind;
};

static void sge(struct ordma_sge *g, uint64_t addr, uint32_t len,
		uint32_t key)
{
	g->addr = cpu_to_le64(addr);
	g->length = cpu_to_le32(len);
	g->lkey = cpu_to_le32(key);
}

static void wr_init(struct wr *w, uint8_t opcode, uint64_t laddr,
		    uint32_t len, uint32_t lkey)
{
	memset(w, 0, sizeof(*w));
	w->opcode = opcode;
	w->flags = ORDMA_WQE_SIGNALED;
	sge(&w->sge[0], laddr, len, lkey);
	w->num_sge = 1;
}

static unsigned int wq_area(const struct side *s)
{
	return s->wq_area ? s->wq_area : QP_AREA;
}

static void put_wqe(struct side *s, const struct wr *w)
{
	uint8_t *p = mem(s, DRV_WQ_ADDR(wq_area(s)) +
			 ((uint64_t)(s->sq_pi & ((1u << SQ_LOG) - 1)) << SQ_SHIFT),
			 1u << SQ_SHIFT);
	struct ordma_send_wqe *q = (struct ordma_send_wqe *)p;
	uint32_t ctrl = FIELD_PREP(ORDMA_WQE_OPCODE, w->opcode) | w->flags;
	size_t data = ORDMA_SEND_WQE_HDR_SIZE;

	memset(p, 0, 1u << SQ_SHIFT);
	if (w->av) {
		ctrl |= ORDMA_WQE_AV_INLINE;
		memcpy(p + data, w->av, sizeof(*w->av));
		data += sizeof(*w->av);
	}
	if (w->inline_data) {
		ctrl |= ORDMA_WQE_INLINE;
		q->ctrl.inline_len = cpu_to_le32(w->inline_len);
		memcpy(p + data, w->inline_data, w->inline_len);
	} else {
		ctrl |= FIELD_PREP(ORDMA_WQE_NUM_SGE, w->num_sge);
		memcpy(p + data, w->sge, w->num_sge * sizeof(struct ordma_sge));
	}
	q->ctrl.ctrl = cpu_to_le32(ctrl);
	q->ctrl.imm_inv = cpu_to_le32(w->imm_inv);
	switch (w->opcode) {
	case ORDMA_WQE_RDMA_WRITE:
	case ORDMA_WQE_RDMA_WRITE_IMM:
	case ORDMA_WQE_RDMA_READ:
		q->rdma.remote_addr = cpu_to_le64(w->remote_addr);
		q->rdma.rkey = cpu_to_le32(w->rkey);
		break;
	case ORDMA_WQE_ATOMIC_CMP_SWP:
	case ORDMA_WQE_ATOMIC_FETCH_ADD:
		q->atomic.remote_addr = cpu_to_le64(w->remote_addr);
		q->atomic.rkey = cpu_to_le32(w->rkey);
		q->atomic.compare_add = cpu_to_le64(w->compare_add);
		q->atomic.swap = cpu_to_le64(w->swap);
		break;
	case ORDMA_WQE_REG_MR:
		q->reg_mr = w->reg;
		break;
	case ORDMA_WQE_FLUSH:
		q->flush.remote_addr = cpu_to_le64(w->remote_addr);
		q->flush.rkey = cpu_to_le32(w->rkey);
		q->flush.length = cpu_to_le32(w->length);
		q->flush.placement = w->placement;
		q->flush.level = w->level;
		break;
	case ORDMA_WQE_ATOMIC_WRITE:
		q->atomic_write.remote_addr = cpu_to_le64(w->remote_addr);
		q->atomic_write.rkey = cpu_to_le32(w->rkey);
		memcpy(q->atomic_write.value, w->value, 8);
		break;
	case ORDMA_WQE_BIND_MW:
		q->bind_mw = w->bind;
		break;
	default:
		if (w->ah || w->av) {
			q->ud.ah = cpu_to_le32(w->ah);
			q->ud.remote_qpn = cpu_to_le32(w->remote_qpn);
			q->ud.remote_qkey = cpu_to_le32(w->remote_qkey);
		}
		break;
	}
	s->sq_pi++;
}

static void ring_sq(struct side *s)
{
	drv_db(&s->d, 0, ORDMA_DB_SQ, s->qpn, s->sq_pi, 0);
}

static void post(struct side *s, const struct wr *w)
{
	put_wqe(s, w);
	ring_sq(s);
}

static void post_recv_sges(struct side *s, const struct ordma_sge *g,
			   unsigned int n)
{
	uint8_t *p = mem(s, DRV_WQ_ADDR(wq_area(s)) + 0x8000 +
			 ((uint64_t)(s->rq_pi & ((1u << RQ_LOG) - 1)) << RQ_SHIFT),
			 1u << RQ_SHIFT);
	struct ordma_recv_wqe *r = (struct ordma_recv_wqe *)p;

	memset(p, 0, 1u << RQ_SHIFT);
	r->num_sge = cpu_to_le32(n);
	memcpy(p + sizeof(*r), g, n * sizeof(*g));
	s->rq_pi++;
	drv_db(&s->d, 0, ORDMA_DB_RQ, s->qpn, s->rq_pi, 0);
}

/* SRQ WQEs are 32 bytes: header and one SGE */
static void post_srq(struct side *s, uint64_t addr, uint32_t len)
{
	uint8_t *p = mem(s, DRV_WQ_ADDR(QP_AREA + 1) + (s->srq_pi & 15) * 32,
			 32);
	struct ordma_recv_wqe *r = (struct ordma_recv_wqe *)p;

	memset(p, 0, 32);
	r->num_sge = cpu_to_le32(1);
	sge((struct ordma_sge *)(p + 16), addr, len, s->key1);
	s->srq_pi++;
	drv_db(&s->d, 0, ORDMA_DB_SRQ, s->srqn, s->srq_pi, 0);
}

static void post_recv(struct side *s, uint64_t addr, uint32_t len)
{
	struct ordma_sge g;

	sge(&g, addr, len, s->key1);
	post_recv_sges(s, &g, 1);
}

static bool cqe_next(struct side *s, bool send, struct ordma_cqe *c)
{
	return drv_cq_next(&s->d, send ? &s->scq : &s->rcq, c);
}

/* The next CQE of the CQ must have these fields. */
static bool expect_cqe(struct side *s, bool send, uint8_t opcode,
		       uint8_t status, uint32_t byte_len, uint32_t wqe_idx)
{
	struct ordma_cqe c;
	bool ok;

	if (!CHECK(cqe_next(s, send, &c)))
		return false;
	/* every field is checked (and reported) even after a mismatch */
	ok = CHECK_EQ(c.opcode, opcode);
	ok = CHECK_EQ(c.status, status) && ok;
	ok = CHECK_EQ(le32_to_cpu(c.byte_len), byte_len) && ok;
	ok = CHECK_EQ(le32_to_cpu(c.wqe_idx), wqe_idx) && ok;
	return CHECK_EQ(le32_to_cpu(c.qpn), s->qpn) && ok;
}

static bool no_cqe(struct side *s, bool send)
{
	struct ordma_cqe c;

	return CHECK(!cqe_next(s, send, &c));
}

static struct ordma_port_stats stats(struct side *s)
{
	struct ordma_port_stats st;

	memset(&st, 0, sizeof(st));
	drv_stats(&s->d, &st);
	return st;
}

static unsigned int eqe_type(const struct ordma_eqe *eqe)
{
	return FIELD_GET(ORDMA_EQE_TYPE, le32_to_cpu(eqe->type));
}

static bool has_event(struct side *s, unsigned int type, uint32_t d0)
{
	struct ordma_eqe eqe;

	while (drv_eq_next(&s->d, &s->async, &eqe))
		if (eqe_type(&eqe) == type && le32_to_cpu(eqe.data[0]) == d0)
			return true;
	return false;
}

/* ------------------------------------------------------------------ */
/* RC data transfer                                                    */
/* ------------------------------------------------------------------ */

TEST(test_tp_caps)
{
	struct ordma_device_caps caps;
	struct drv d;

	REQUIRE(drv_open(&d, 5));
	REQUIRE_EQ(drv_query(&d, ORDMA_CMD_QUERY_DEVICE, 0, &caps,
			     sizeof(caps)), OK);
	CHECK_EQ(le32_to_cpu(caps.cap_flags),
		 ORDMA_DEV_CAP_RC | ORDMA_DEV_CAP_UD | ORDMA_DEV_CAP_UC |
		 ORDMA_DEV_CAP_SRQ |
		 ORDMA_DEV_CAP_ATOMIC | ORDMA_DEV_CAP_FAST_REG |
		 ORDMA_DEV_CAP_VERBS | ORDMA_DEV_CAP_FLUSH |
		 ORDMA_DEV_CAP_ATOMIC_WRITE | ORDMA_DEV_CAP_MW |
		 ORDMA_DEV_CAP_GSI | ORDMA_DEV_CAP_MCAST);
	drv_close(&d);
}

/* One SEND of len bytes A -> B at the configured MTU, checked entirely. */
static void send_once(const struct tcfg *c, uint32_t len, unsigned int pkts)
{
	struct env e;
	struct side *a = &e.s[0], *b = &e.s[1];
	struct ordma_port_stats st;
	struct wr w;

	REQUIRE(env_open(&e, c));
	pattern(mem(a, MR1_ADDR + 0x1000, len), len, 3);
	memset(mem(b, MR1_ADDR, len + 64), 0xee, len + 64);
	post_recv(b, MR1_ADDR, len + 16);
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR + 0x1000, len, a->key1);
	post(a, &w);
	CHECK(e.l[0].max_queued <= FW_TP_WINDOW);
	pump(&e);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, len, 0);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, len, 0);
	no_cqe(a, true);
	no_cqe(b, false);
	CHECK(!memcmp(mem(a, MR1_ADDR + 0x1000, len), mem(b, MR1_ADDR, len),
		      len));
	CHECK_EQ(mem(b, MR1_ADDR + len, 1)[0], 0xee);
	CHECK_EQ(e.l[0].sent, pkts);
	CHECK_EQ(fwqp(a)->counters.tx_packets, pkts);
	CHECK_EQ(fwqp(b)->counters.rx_packets, pkts);
	CHECK_EQ(fwqp(a)->next_psn, (c->psn[0] + pkts) & 0xffffff);
	CHECK_EQ(fwqp(b)->expected_psn, (c->psn[0] + pkts) & 0xffffff);
	CHECK_EQ(fwqp(b)->msn, 1);
	CHECK_EQ(fwqp(a)->counters.retransmits, 0);
	st = stats(a);
	CHECK_EQ(st.roce_tx_frames, pkts);
	CHECK_EQ(st.roce_rx_frames, e.l[1].sent);
	CHECK_EQ(st.roce_rx_drop, 0);
	st = stats(b);
	CHECK_EQ(st.roce_rx_frames, pkts);
	CHECK_EQ(st.roce_rx_drop, 0);
	/* coalesced: an ACK every 16 packets and one for the last */
	CHECK_EQ(e.l[1].sent, pkts / FW_TP_ACK_EVERY +
		 (pkts % FW_TP_ACK_EVERY ? 1 : 0));
	CHECK_EQ(qp_state(a), ORDMA_QPS_RTS);
	CHECK_EQ(qp_state(b), ORDMA_QPS_RTS);
	env_close(&e);
}

TEST(test_tp_rc_send_small)
{
	struct tcfg c;

	default_cfg(&c);
	send_once(&c, 100, 1);
	send_once(&c, 0, 1);
}

TEST(test_tp_rc_send_mtu256)
{
	struct tcfg c;

	default_cfg(&c);
	c.path_mtu = 1;
	send_once(&c, 10000, 40);	/* 39 full packets and 16 bytes */
	send_once(&c, 256 * 20, 20);
}

TEST(test_tp_rc_send_mtu4096)
{
	struct tcfg c;

	default_cfg(&c);
	c.path_mtu = 5;
	c.port_mtu = 4200;
	send_once(&c, 20000, 5);
}

TEST(test_tp_rc_psn_wrap)
{
	struct tcfg c;

	default_cfg(&c);
	c.path_mtu = 1;
	c.psn[0] = 0xfffff0;
	send_once(&c, 256 * 40, 40);
}

/* A big message goes out in windows of unacknowledged packets. */
TEST(test_tp_rc_send_window)
{
	struct tcfg c;

	default_cfg(&c);
	send_once(&c, 1u << 19, 512);
}

TEST(test_tp_rc_send_variants)
{
	static const char inl[] = "inline data through the WQE";
	struct ordma_sge g[3];
	struct ordma_cqe cqe;
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	/* SEND_IMM, solicited, 3 local SGEs into 3 remote SGEs */
	pattern(mem(a, MR1_ADDR, 3000), 3000, 9);
	sge(&g[0], MR1_ADDR + 0x10000, 1000, b->key1);
	sge(&g[1], MR1_ADDR + 0x20000, 500, b->key1);
	sge(&g[2], MR1_ADDR + 0x30000, 2000, b->key1);
	post_recv_sges(b, g, 3);
	wr_init(&w, ORDMA_WQE_SEND_IMM, MR1_ADDR, 1200, a->key1);
	sge(&w.sge[1], MR1_ADDR + 1200, 1, a->key1);
	sge(&w.sge[2], MR1_ADDR + 1201, 1799, a->key1);
	w.num_sge = 3;
	w.flags |= ORDMA_WQE_SOLICITED;
	memcpy(&w.imm_inv, "\x12\x34\x56\x78", 4);
	w.imm_inv = le32_to_cpu(w.imm_inv);
	post(a, &w);
	pump(&e);
	REQUIRE(cqe_next(b, false, &cqe));
	CHECK_EQ(cqe.opcode, ORDMA_CQE_OP_RECV);
	CHECK_EQ(cqe.status, ORDMA_CQE_SUCCESS);
	CHECK_EQ(le32_to_cpu(cqe.byte_len), 3000);
	CHECK_EQ(le16_to_cpu(cqe.flags), ORDMA_CQE_F_IMM);
	CHECK(!memcmp(&cqe.imm_inv, "\x12\x34\x56\x78", 4));
	CHECK(!memcmp(mem(b, MR1_ADDR + 0x10000, 1000), mem(a, MR1_ADDR, 1000),
		      1000));
	CHECK(!memcmp(mem(b, MR1_ADDR + 0x20000, 500),
		      mem(a, MR1_ADDR + 1000, 500), 500));
	CHECK(!memcmp(mem(b, MR1_ADDR + 0x30000, 1500),
		      mem(a, MR1_ADDR + 1500, 1500), 1500));
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 3000, 0);

	/* inline; unsignaled: no send CQE, the next signaled one comes */
	post_recv(b, MR1_ADDR + 0x40000, 64);
	memset(&w, 0, sizeof(w));
	w.opcode = ORDMA_WQE_SEND;
	w.inline_data = inl;
	w.inline_len = sizeof(inl);
	post(a, &w);
	pump(&e);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, sizeof(inl),
		   1);
	CHECK(!memcmp(mem(b, MR1_ADDR + 0x40000, sizeof(inl)), inl,
		      sizeof(inl)));
	no_cqe(a, true);
	post_recv(b, MR1_ADDR + 0x40000, 64);
	w.flags = ORDMA_WQE_SIGNALED;
	post(a, &w);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, sizeof(inl),
		   2);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, sizeof(inl),
		   2);
	CHECK_EQ(fwqp(a)->sq.ci, 3);
	env_close(&e);
}

TEST(test_tp_rc_write_read)
{
	struct ordma_cqe cqe;
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	/* WRITE 5000 bytes (5 packets) */
	pattern(mem(a, MR1_ADDR, 5000), 5000, 1);
	memset(mem(b, MR1_ADDR + 0x50000, 5100), 0, 5100);
	wr_init(&w, ORDMA_WQE_RDMA_WRITE, MR1_ADDR, 5000, a->key1);
	w.remote_addr = MR1_ADDR + 0x50010;
	w.rkey = b->key1;
	post(a, &w);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_SUCCESS, 5000, 0);
	no_cqe(b, false);
	CHECK(!memcmp(mem(b, MR1_ADDR + 0x50010, 5000), mem(a, MR1_ADDR, 5000),
		      5000));
	CHECK_EQ(mem(b, MR1_ADDR + 0x5000f, 1)[0], 0);
	CHECK_EQ(mem(b, MR1_ADDR + 0x50010 + 5000, 1)[0], 0);
	CHECK_EQ(e.l[0].sent, 5);

	/* WRITE_IMM consumes a receive WQE: byte_len is the write length */
	post_recv(b, MR1_ADDR + 0x60000, 16);
	wr_init(&w, ORDMA_WQE_RDMA_WRITE_IMM, MR1_ADDR, 2100, a->key1);
	w.remote_addr = MR1_ADDR + 0x70000;
	w.rkey = b->key1;
	w.imm_inv = 0xa1b2c3d4;
	post(a, &w);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_SUCCESS, 2100, 1);
	REQUIRE(cqe_next(b, false, &cqe));
	CHECK_EQ(cqe.opcode, ORDMA_CQE_OP_RECV_RDMA_IMM);
	CHECK_EQ(le32_to_cpu(cqe.byte_len), 2100);
	CHECK_EQ(le32_to_cpu(cqe.imm_inv), 0xa1b2c3d4);
	CHECK_EQ(le16_to_cpu(cqe.flags), ORDMA_CQE_F_IMM);
	CHECK(!memcmp(mem(b, MR1_ADDR + 0x70000, 2100), mem(a, MR1_ADDR, 2100),
		      2100));

	/* READ 6000 bytes back into A (6 response packets) */
	pattern(mem(b, MR1_ADDR + 0x80000, 6000), 6000, 5);
	memset(mem(a, MR1_ADDR + 0x90000, 6100), 0, 6100);
	e.l[1].sent = 0;
	wr_init(&w, ORDMA_WQE_RDMA_READ, MR1_ADDR + 0x90000, 6000, a->key1);
	w.remote_addr = MR1_ADDR + 0x80000;
	w.rkey = b->key1;
	post(a, &w);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_READ, ORDMA_CQE_SUCCESS, 6000, 2);
	CHECK(!memcmp(mem(a, MR1_ADDR + 0x90000, 6000),
		      mem(b, MR1_ADDR + 0x80000, 6000), 6000));
	CHECK_EQ(mem(a, MR1_ADDR + 0x90000 + 6000, 1)[0], 0);
	CHECK_EQ(e.l[1].sent, 6);
	CHECK_EQ(fwqp(b)->msn, 3);
	no_cqe(a, true);
	env_close(&e);
}

/* A READ between two SENDs: the READ response acknowledges the first
 * SEND implicitly; fence holds the last SEND until the READ completed.
 */
/* 16 READs of 64 KiB outstanding at once (ib_read_bw's pattern) */
TEST(test_tp_rc_read_many)
{
	const uint32_t len = 0x10000;
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;
	int i;

	default_cfg(&c);
	c.max_rd_atomic = 16;
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	pattern(mem(b, MR1_ADDR, len), len, 7);
	memset(mem(a, MR1_ADDR + len, len), 0, len);
	for (i = 0; i < 16; i++) {
		wr_init(&w, ORDMA_WQE_RDMA_READ, MR1_ADDR + len, len, a->key1);
		w.remote_addr = MR1_ADDR;
		w.rkey = b->key1;
		put_wqe(a, &w);
	}
	ring_sq(a);
	pump(&e);
	for (i = 0; i < 16; i++)
		expect_cqe(a, true, ORDMA_CQE_OP_RDMA_READ, ORDMA_CQE_SUCCESS,
			   len, i);
	no_cqe(a, true);
	CHECK(!memcmp(mem(a, MR1_ADDR + len, len), mem(b, MR1_ADDR, len), len));
	CHECK_EQ(fwqp(a)->counters.retransmits, 0);
	CHECK_EQ(e.l[1].sent, 16 * 64);
	env_close(&e);
}

/* A READ response packet lost: the READ is asked again from the lost
 * packet on, answered First..Last anew, and completes with the right data.
 */
TEST(test_tp_rc_read_resp_loss)
{
	const uint32_t len = 8 * 1024;	/* 8 packets at MTU 1024 */
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	pattern(mem(b, MR1_ADDR, len), len, 11);
	memset(mem(a, MR1_ADDR + len, len), 0, len);
	e.l[1].drop_nth = 4;		/* the 4th response packet */
	wr_init(&w, ORDMA_WQE_RDMA_READ, MR1_ADDR + len, len, a->key1);
	w.remote_addr = MR1_ADDR;
	w.rkey = b->key1;
	post(a, &w);
	pump(&e);
	no_cqe(a, true);
	advance(&e, 10000000);		/* past the 4.2 ms ACK timeout */
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_READ, ORDMA_CQE_SUCCESS, len, 0);
	CHECK(!memcmp(mem(a, MR1_ADDR + len, len), mem(b, MR1_ADDR, len), len));
	CHECK_EQ(fwqp(a)->counters.retransmits, 1);
	CHECK_EQ(fwqp(b)->counters.duplicate_requests, 1);
	/* 8 answered first, then packets 3..7 again */
	CHECK_EQ(e.l[1].sent, 8 + 5);
	CHECK_EQ(qp_state(a), ORDMA_QPS_RTS);
	env_close(&e);
}

TEST(test_tp_rc_read_implied_ack_fence)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	post_recv(b, MR1_ADDR, 4096);
	post_recv(b, MR1_ADDR + 0x1000, 4096);
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR + 0x10000, 100, a->key1);
	put_wqe(a, &w);
	wr_init(&w, ORDMA_WQE_RDMA_READ, MR1_ADDR + 0x20000, 3000, a->key1);
	w.remote_addr = MR1_ADDR + 0x30000;
	w.rkey = b->key1;
	put_wqe(a, &w);
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR + 0x10000, 10, a->key1);
	w.flags |= ORDMA_WQE_FENCE;
	put_wqe(a, &w);
	ring_sq(a);
	/* SEND and READ request out, the fenced SEND waits */
	CHECK_EQ(e.l[0].sent, 2);
	CHECK_EQ(fwqp(a)->sq.next, 2);
	pump(&e);
	CHECK_EQ(e.l[0].sent, 3);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 100, 0);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_READ, ORDMA_CQE_SUCCESS, 3000, 1);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 10, 2);
	/* B acked the first SEND? only with AckReq: it did (last packet) */
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, 100, 0);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, 10, 1);
	env_close(&e);
}

/* ------------------------------------------------------------------ */
/* Loss, duplicates, RNR, retries                                      */
/* ------------------------------------------------------------------ */

TEST(test_tp_rc_loss_nak_seq)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	pattern(mem(a, MR1_ADDR, 10240), 10240, 2);
	post_recv(b, MR1_ADDR + 0x40000, 10240);
	e.l[0].drop_nth = 3;
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 10240, a->key1);
	post(a, &w);
	pump(&e);
	/* packets 4..10 were out of sequence: one NAK, go back to 3 */
	CHECK_EQ(fwqp(b)->counters.seq_errors, 7);
	CHECK_EQ(b->d.fw->tp.naks_sent, 1);
	CHECK_EQ(fwqp(a)->counters.seq_errors, 1);
	CHECK_EQ(fwqp(a)->counters.retransmits, 1);
	CHECK_EQ(e.l[0].sent, 18);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, 10240, 0);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 10240, 0);
	CHECK(!memcmp(mem(b, MR1_ADDR + 0x40000, 10240), mem(a, MR1_ADDR, 10240),
		      10240));
	CHECK_EQ(stats(b).roce_rx_drop, 7);
	CHECK_EQ(b->d.fw->tp.rx_drop[FW_TP_DROP_SEQ], 7);
	env_close(&e);
}

TEST(test_tp_rc_loss_timeout)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	pattern(mem(a, MR1_ADDR, 3000), 3000, 2);
	post_recv(b, MR1_ADDR + 0x40000, 3000);
	e.l[0].drop_nth = 3;		/* the last packet */
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 3000, a->key1);
	post(a, &w);
	pump(&e);
	no_cqe(a, true);
	no_cqe(b, false);
	REQUIRE(a->d.hal.timer_deadline != UINT64_MAX);
	/* just before the local ACK timeout nothing happens */
	advance(&e, (4096ULL << 10) - 1000);
	CHECK_EQ(e.l[0].sent, 3);
	advance(&e, 2000);
	CHECK_EQ(fwqp(a)->counters.timeouts, 1);
	CHECK_EQ(fwqp(a)->counters.retransmits, 1);
	/* go-back-N from the oldest unacknowledged PSN: only the last
	 * packet asked for an ACK, so all three go again; two are
	 * duplicates at B
	 */
	CHECK_EQ(e.l[0].sent, 6);
	CHECK_EQ(fwqp(b)->counters.duplicate_requests, 2);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, 3000, 0);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 3000, 0);
	CHECK(!memcmp(mem(b, MR1_ADDR + 0x40000, 3000), mem(a, MR1_ADDR, 3000),
		      3000));
	/* the lost ACK: the retransmitted request is a duplicate */
	post_recv(b, MR1_ADDR + 0x40000, 3000);
	e.l[1].drop_nth = e.l[1].sent + 1;
	post(a, &w);
	pump(&e);
	no_cqe(a, true);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, 3000, 1);
	advance(&e, 4096ULL << 10);
	CHECK_EQ(fwqp(b)->counters.duplicate_requests, 5);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 3000, 1);
	no_cqe(b, false);
	env_close(&e);
}

TEST(test_tp_rc_duplicates)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	/* a duplicated SEND packet is acknowledged again, not executed */
	post_recv(b, MR1_ADDR, 4096);
	post_recv(b, MR1_ADDR + 0x1000, 4096);
	e.l[0].dup_nth = 2;
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR + 0x10000, 2048, a->key1);
	post(a, &w);
	pump(&e);
	CHECK_EQ(fwqp(b)->counters.duplicate_requests, 1);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, 2048, 0);
	no_cqe(b, false);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 2048, 0);
	no_cqe(a, true);
	CHECK_EQ(qp_state(a), ORDMA_QPS_RTS);
	/* a duplicated READ request is executed again; A drops the copy */
	pattern(mem(b, MR1_ADDR + 0x30000, 2500), 2500, 4);
	e.l[0].dup_nth = e.l[0].sent + 1;
	wr_init(&w, ORDMA_WQE_RDMA_READ, MR1_ADDR + 0x20000, 2500, a->key1);
	w.remote_addr = MR1_ADDR + 0x30000;
	w.rkey = b->key1;
	post(a, &w);
	pump(&e);
	CHECK_EQ(fwqp(b)->counters.duplicate_requests, 2);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_READ, ORDMA_CQE_SUCCESS, 2500, 1);
	no_cqe(a, true);
	CHECK(!memcmp(mem(a, MR1_ADDR + 0x20000, 2500),
		      mem(b, MR1_ADDR + 0x30000, 2500), 2500));
	/* stale: the re-ACK of the SEND and the 3 repeated responses */
	CHECK_EQ(a->d.fw->tp.rx_drop[FW_TP_DROP_RESP], 4);
	CHECK_EQ(qp_state(a), ORDMA_QPS_RTS);
	CHECK_EQ(qp_state(b), ORDMA_QPS_RTS);
	env_close(&e);
}

TEST(test_tp_rc_rnr)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;

	default_cfg(&c);
	c.min_rnr_timer = 4;		/* 40 us */
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 64, a->key1);
	post(a, &w);
	pump(&e);
	CHECK_EQ(fwqp(b)->counters.rnr_naks_sent, 1);
	CHECK_EQ(fwqp(a)->counters.rnr_naks_received, 1);
	CHECK(fwqp(a)->req.rnr_deadline);
	no_cqe(a, true);
	post_recv(b, MR1_ADDR + 0x1000, 64);
	advance(&e, 39000);
	CHECK_EQ(e.l[0].sent, 1);
	advance(&e, 2000);
	CHECK_EQ(e.l[0].sent, 2);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, 64, 0);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 64, 0);
	env_close(&e);

	/* RNR retries exhausted */
	c.rnr_retry = 1;
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	post(a, &w);
	put_wqe(a, &w);
	ring_sq(a);
	pump(&e);
	advance(&e, 50000);
	CHECK_EQ(fwqp(a)->counters.rnr_naks_received, 2);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_RNR_RETRY_EXC_ERR, 0,
		   0);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_WR_FLUSH_ERR, 0, 1);
	CHECK_EQ(qp_state(a), ORDMA_QPS_ERR);
	CHECK_EQ(qp_state(b), ORDMA_QPS_RTS);
	env_close(&e);
}

TEST(test_tp_rc_retry_exhausted)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;
	int i;

	default_cfg(&c);
	c.retry_cnt = 2;
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	post_recv(b, MR1_ADDR, 64);
	e.l[0].drop_from = 1;
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 64, a->key1);
	post(a, &w);
	pump(&e);
	for (i = 0; i < 3; i++) {
		no_cqe(a, true);
		advance(&e, 4096ULL << 10);
	}
	CHECK_EQ(fwqp(a)->counters.timeouts, 3);
	CHECK_EQ(fwqp(a)->counters.retransmits, 2);
	CHECK_EQ(e.l[0].sent, 3);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_RETRY_EXC_ERR, 0, 0);
	CHECK_EQ(qp_state(a), ORDMA_QPS_ERR);
	/* no timer left behind: more time changes nothing */
	advance(&e, 1ULL << 30);
	CHECK_EQ(e.l[0].sent, 3);
	no_cqe(a, true);
	env_close(&e);
}

/* ------------------------------------------------------------------ */
/* Errors                                                              */
/* ------------------------------------------------------------------ */

static void remote_error(uint8_t opcode, uint64_t raddr, uint32_t len,
			 bool bad_key, bool mr2, uint8_t a_status,
			 uint8_t b_event)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;
	uint8_t *guard;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	guard = mem(b, MR1_ADDR, MR1_LEN + MR2_LEN + GUARD_LEN);
	pattern(guard, MR1_LEN + MR2_LEN + GUARD_LEN, 77);
	post_recv(b, MR1_ADDR, 64);
	wr_init(&w, opcode, MR1_ADDR + 0x1000, len, a->key1);
	w.remote_addr = raddr;
	w.rkey = bad_key ? b->key1 ^ 0x01 : mr2 ? b->key2 : b->key1;
	post(a, &w);
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 8, a->key1);
	post(a, &w);
	pump(&e);
	expect_cqe(a, true, fw_qp_lookup(a->d.fw, a->qpn) ?
		   (opcode == ORDMA_WQE_RDMA_READ ? ORDMA_CQE_OP_RDMA_READ :
		    opcode == ORDMA_WQE_RDMA_WRITE ? ORDMA_CQE_OP_RDMA_WRITE :
		    opcode == ORDMA_WQE_ATOMIC_FETCH_ADD ?
		    ORDMA_CQE_OP_FETCH_ADD : ORDMA_CQE_OP_SEND) : 0,
		   a_status, 0, 0);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_WR_FLUSH_ERR, 0, 1);
	CHECK_EQ(qp_state(a), ORDMA_QPS_ERR);
	CHECK_EQ(qp_state(b), ORDMA_QPS_ERR);
	CHECK(has_event(b, b_event, b->qpn));
	/* B's posted receive is flushed */
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_WR_FLUSH_ERR, 0, 0);
	/* nothing of B's memory changed */
	{
		uint8_t *want = malloc(MR1_LEN + MR2_LEN + GUARD_LEN);

		REQUIRE(want);
		pattern(want, MR1_LEN + MR2_LEN + GUARD_LEN, 77);
		CHECK(!memcmp(guard, want, MR1_LEN + MR2_LEN + GUARD_LEN));
		free(want);
	}
	env_close(&e);
}

TEST(test_tp_rc_remote_access)
{
	/* bad rkey */
	remote_error(ORDMA_WQE_RDMA_WRITE, MR1_ADDR, 100, true, false,
		     ORDMA_CQE_REM_ACCESS_ERR, ORDMA_EQE_QP_ACCESS_ERR);
	/* crossing the end of the MR: nothing written at all */
	remote_error(ORDMA_WQE_RDMA_WRITE, MR1_ADDR + MR1_LEN - 2000, 3000,
		     false, false, ORDMA_CQE_REM_ACCESS_ERR,
		     ORDMA_EQE_QP_ACCESS_ERR);
	/* MR without REMOTE_WRITE / REMOTE_READ / REMOTE_ATOMIC */
	remote_error(ORDMA_WQE_RDMA_WRITE, MR2_ADDR, 100, false, true,
		     ORDMA_CQE_REM_ACCESS_ERR, ORDMA_EQE_QP_ACCESS_ERR);
	remote_error(ORDMA_WQE_RDMA_READ, MR2_ADDR, 100, false, true,
		     ORDMA_CQE_REM_ACCESS_ERR, ORDMA_EQE_QP_ACCESS_ERR);
	remote_error(ORDMA_WQE_ATOMIC_FETCH_ADD, MR2_ADDR, 8, false, true,
		     ORDMA_CQE_REM_ACCESS_ERR, ORDMA_EQE_QP_ACCESS_ERR);
	/* misaligned atomic: invalid request */
	remote_error(ORDMA_WQE_ATOMIC_FETCH_ADD, MR1_ADDR + 4, 8, false, false,
		     ORDMA_CQE_REM_INV_REQ_ERR, ORDMA_EQE_QP_REQ_ERR);
	/* receive buffer too small: LOC_LEN_ERR at B, REM_INV_REQ at A */
	{
		struct env e;
		struct side *a, *b;
		struct tcfg c;
		struct wr w;

		default_cfg(&c);
		REQUIRE(env_open(&e, &c));
		a = &e.s[0];
		b = &e.s[1];
		memset(mem(b, MR1_ADDR, 200), 0x5a, 200);
		post_recv(b, MR1_ADDR, 100);
		wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 200, a->key1);
		post(a, &w);
		pump(&e);
		expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_LOC_LEN_ERR, 0,
			   0);
		expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_REM_INV_REQ_ERR,
			   0, 0);
		CHECK_EQ(qp_state(a), ORDMA_QPS_ERR);
		CHECK_EQ(qp_state(b), ORDMA_QPS_ERR);
		/* nothing beyond the 100-byte receive buffer was written */
		CHECK_EQ(mem(b, MR1_ADDR + 100, 1)[0], 0x5a);
		env_close(&e);
	}
}

TEST(test_tp_rc_local_errors)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;

	default_cfg(&c);
	/* bad lkey */
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 64, a->key1 + 1);
	w.flags = 0;			/* errors complete unsignaled too */
	post(a, &w);
	CHECK_EQ(e.l[0].sent, 0);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_LOC_PROT_ERR, 0, 0);
	CHECK_EQ(qp_state(a), ORDMA_QPS_ERR);
	env_close(&e);
	/* READ into a local MR without LOCAL_WRITE, and beyond an MR */
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	{
		uint32_t ro_key;

		REQUIRE_EQ(drv_reg_mr_contig(&a->d, a->pdn, 0, GUARD_ADDR,
					     GUARD_ADDR, 0x1000, 0, 0x55,
					     &ro_key), OK);
		memset(mem(a, GUARD_ADDR, 64), 0x99, 64);
		wr_init(&w, ORDMA_WQE_RDMA_READ, GUARD_ADDR, 64, ro_key);
		w.remote_addr = MR1_ADDR;
		w.rkey = b->key1;
		post(a, &w);
		CHECK_EQ(e.l[0].sent, 0);
		expect_cqe(a, true, ORDMA_CQE_OP_RDMA_READ,
			   ORDMA_CQE_LOC_PROT_ERR, 0, 0);
		CHECK_EQ(mem(a, GUARD_ADDR, 1)[0], 0x99);
	}
	env_close(&e);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	wr_init(&w, ORDMA_WQE_RDMA_READ, MR1_ADDR + MR1_LEN - 10, 64, a->key1);
	w.remote_addr = MR1_ADDR;
	w.rkey = b->key1;
	post(a, &w);
	CHECK_EQ(e.l[0].sent, 0);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_READ, ORDMA_CQE_LOC_PROT_ERR, 0,
		   0);
	env_close(&e);
	/* inline longer than max_inline_data */
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	memset(&w, 0, sizeof(w));
	w.opcode = ORDMA_WQE_SEND;
	w.inline_data = mem(a, MR1_ADDR, 300);
	w.inline_len = 200;
	post(a, &w);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_LOC_LEN_ERR, 0, 0);
	env_close(&e);
}

/* ------------------------------------------------------------------ */
/* Atomics                                                             */
/* ------------------------------------------------------------------ */

static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void put64(uint8_t *p, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

TEST(test_tp_rc_atomics)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	put64(mem(b, MR1_ADDR + 0x100, 8), 1000);
	wr_init(&w, ORDMA_WQE_ATOMIC_FETCH_ADD, MR1_ADDR + 0x200, 8, a->key1);
	w.remote_addr = MR1_ADDR + 0x100;
	w.rkey = b->key1;
	w.compare_add = 5;
	/* the request is duplicated: the replay answers, adds once */
	e.l[0].dup_nth = 1;
	post(a, &w);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_FETCH_ADD, ORDMA_CQE_SUCCESS, 8, 0);
	CHECK_EQ(get64(mem(a, MR1_ADDR + 0x200, 8)), 1000);
	CHECK_EQ(get64(mem(b, MR1_ADDR + 0x100, 8)), 1005);
	CHECK_EQ(fwqp(b)->counters.duplicate_requests, 1);
	CHECK_EQ(e.l[1].sent, 2);

	/* compare and swap: equal swaps, different does not */
	wr_init(&w, ORDMA_WQE_ATOMIC_CMP_SWP, MR1_ADDR + 0x208, 8, a->key1);
	w.remote_addr = MR1_ADDR + 0x100;
	w.rkey = b->key1;
	w.compare_add = 1005;
	w.swap = 0x1122334455667788ULL;
	post(a, &w);
	w.sge[0].addr = cpu_to_le64(MR1_ADDR + 0x210);
	w.compare_add = 1;
	w.swap = 7;
	post(a, &w);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_CMP_SWP, ORDMA_CQE_SUCCESS, 8, 1);
	expect_cqe(a, true, ORDMA_CQE_OP_CMP_SWP, ORDMA_CQE_SUCCESS, 8, 2);
	CHECK_EQ(get64(mem(a, MR1_ADDR + 0x208, 8)), 1005);
	CHECK_EQ(get64(mem(a, MR1_ADDR + 0x210, 8)), 0x1122334455667788ULL);
	CHECK_EQ(get64(mem(b, MR1_ADDR + 0x100, 8)), 0x1122334455667788ULL);

	/* the atomic ACK lost: the retransmitted request is replayed */
	e.l[1].drop_nth = e.l[1].sent + 1;
	wr_init(&w, ORDMA_WQE_ATOMIC_FETCH_ADD, MR1_ADDR + 0x218, 8, a->key1);
	w.remote_addr = MR1_ADDR + 0x100;
	w.rkey = b->key1;
	w.compare_add = 1;
	post(a, &w);
	pump(&e);
	no_cqe(a, true);
	advance(&e, 4096ULL << 10);
	expect_cqe(a, true, ORDMA_CQE_OP_FETCH_ADD, ORDMA_CQE_SUCCESS, 8, 3);
	CHECK_EQ(get64(mem(a, MR1_ADDR + 0x218, 8)), 0x1122334455667788ULL);
	CHECK_EQ(get64(mem(b, MR1_ADDR + 0x100, 8)), 0x1122334455667789ULL);
	CHECK_EQ(fwqp(b)->counters.duplicate_requests, 2);
	env_close(&e);
}

/* ------------------------------------------------------------------ */
/* UD                                                                  */
/* ------------------------------------------------------------------ */

static uint8_t create_ah(struct side *s, const struct side *peer,
			 uint32_t *ah)
{
	struct ordma_aq_cmd cmd;
	uint8_t status;

	drv_cmd_init(&cmd, ORDMA_CMD_CREATE_AH);
	cmd.create_ah.pdn = cpu_to_le32(s->pdn);
	memcpy(cmd.create_ah.av.dgid, peer->gid, 16);
	memcpy(cmd.create_ah.av.dmac, peer->mac, 6);
	cmd.create_ah.av.hop_limit = 7;
	cmd.create_ah.av.traffic_class = 0x20;
	cmd.create_ah.av.vlan_id = cpu_to_le16(ORDMA_VLAN_NONE);
	status = drv_exec(&s->d, &cmd);
	*ah = le32_to_cpu(s->d.last_comp.handle.handle);
	return status;
}

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
	CHECK_EQ(b->d.fw->tp.rx_drop[FW_TP_DROP_QKEY], 1);
	w.remote_qkey = 0x80000000;
	post(a, &w);
	pump(&e);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, 1040, 1);
	/* no receive posted: dropped */
	post(a, &w);
	pump(&e);
	CHECK_EQ(b->d.fw->tp.rx_drop[FW_TP_DROP_NO_RECV], 1);
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
/* UC                                                                  */
/* ------------------------------------------------------------------ */

static void uc_cfg(struct tcfg *c)
{
	default_cfg(c);
	c->type = ORDMA_QPT_UC;
	c->access = ORDMA_ACCESS_REMOTE_WRITE;
}

/* BTH opcode of the k-th frame queued on l (IPv4, no VLAN) */
static uint8_t queued_opcode(const struct link *l, size_t k)
{
	const struct qframe *f = &l->q[(l->head + k) % l->cap];

	return f->len > 42 ? f->data[14 + 20 + 8] : 0xff;
}

/* B's drop counter for why */
static uint64_t drops(struct side *s, enum fw_tp_drop why)
{
	return s->d.fw->tp.rx_drop[why];
}

/* Nothing ever comes back on UC, and the receiver stays in RTS */
static void uc_quiet(struct env *e)
{
	CHECK_EQ(e->l[1].sent, 0);
	CHECK_EQ(e->s[1].d.fw->tp.acks_sent, 0);
	CHECK_EQ(e->s[1].d.fw->tp.naks_sent, 0);
	CHECK_EQ(qp_state(&e->s[0]), ORDMA_QPS_RTS);
	CHECK_EQ(qp_state(&e->s[1]), ORDMA_QPS_RTS);
}

/* SEND, SEND_IMM, WRITE, WRITE_IMM: UC opcodes, no ACKs, paced bursts */
TEST(test_tp_uc_good)
{
	struct env e;
	struct side *a, *b;
	struct ordma_cqe cq;
	struct tcfg c;
	struct wr w;

	uc_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	pattern(mem(a, MR1_ADDR, 0x10000), 0x10000, 5);
	memset(mem(b, MR1_ADDR, 0x20000), 0, 0x20000);

	/* one packet */
	post_recv(b, MR1_ADDR, 4096);
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 100, a->key1);
	post(a, &w);
	CHECK_EQ(queued_opcode(&e.l[0], 0), FW_ROCE_UC_SEND_ONLY);
	/* complete as soon as it is on the wire */
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 100, 0);
	pump(&e);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, 100, 0);
	CHECK(!memcmp(mem(b, MR1_ADDR, 100), mem(a, MR1_ADDR, 100), 100));

	/* five packets, with immediate */
	post_recv(b, MR1_ADDR + 0x2000, 8192);
	wr_init(&w, ORDMA_WQE_SEND_IMM, MR1_ADDR, 4500, a->key1);
	w.imm_inv = 0xa1b2c3d4;
	post(a, &w);
	CHECK_EQ(queued_opcode(&e.l[0], 0), FW_ROCE_UC_SEND_FIRST);
	CHECK_EQ(queued_opcode(&e.l[0], 1), FW_ROCE_UC_SEND_MIDDLE);
	CHECK_EQ(queued_opcode(&e.l[0], 4), FW_ROCE_UC_SEND_LAST_IMM);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 4500, 1);
	REQUIRE(cqe_next(b, false, &cq));
	CHECK_EQ(cq.status, ORDMA_CQE_SUCCESS);
	CHECK_EQ(le32_to_cpu(cq.byte_len), 4500);
	CHECK_EQ(le32_to_cpu(cq.wqe_idx), 1);
	CHECK(le16_to_cpu(cq.flags) & ORDMA_CQE_F_IMM);
	CHECK_EQ(le32_to_cpu(cq.imm_inv), 0xa1b2c3d4);
	CHECK(!memcmp(mem(b, MR1_ADDR + 0x2000, 4500), mem(a, MR1_ADDR, 4500),
		      4500));

	/* RDMA WRITE of three packets, then WRITE with immediate */
	wr_init(&w, ORDMA_WQE_RDMA_WRITE, MR1_ADDR + 0x100, 3000, a->key1);
	w.remote_addr = MR1_ADDR + 0x8000;
	w.rkey = b->key1;
	post(a, &w);
	CHECK_EQ(queued_opcode(&e.l[0], 0), FW_ROCE_UC_RDMA_WRITE_FIRST);
	CHECK_EQ(queued_opcode(&e.l[0], 2), FW_ROCE_UC_RDMA_WRITE_LAST);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_SUCCESS, 3000,
		   2);
	no_cqe(b, false);
	CHECK(!memcmp(mem(b, MR1_ADDR + 0x8000, 3000),
		      mem(a, MR1_ADDR + 0x100, 3000), 3000));
	post_recv(b, MR1_ADDR + 0x10000, 16);
	wr_init(&w, ORDMA_WQE_RDMA_WRITE_IMM, MR1_ADDR, 64, a->key1);
	w.remote_addr = MR1_ADDR + 0xc000;
	w.rkey = b->key1;
	w.imm_inv = 0x01020304;
	post(a, &w);
	CHECK_EQ(queued_opcode(&e.l[0], 0), FW_ROCE_UC_RDMA_WRITE_ONLY_IMM);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_SUCCESS, 64, 3);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV_RDMA_IMM, ORDMA_CQE_SUCCESS, 64,
		   2);
	CHECK(!memcmp(mem(b, MR1_ADDR + 0xc000, 64), mem(a, MR1_ADDR, 64), 64));

	/* 40 packets at MTU 1024 leave in paced bursts */
	post_recv(b, MR1_ADDR + 0x10000, 0x10000);
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 40 * 1024, a->key1);
	post(a, &w);
	CHECK_EQ(e.l[0].tail - e.l[0].head, FW_TP_UC_BURST);
	no_cqe(a, true);
	pump(&e);
	CHECK(e.l[0].max_queued <= FW_TP_UC_BURST);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 40 * 1024, 4);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, 40 * 1024,
		   3);
	CHECK(!memcmp(mem(b, MR1_ADDR + 0x10000, 40 * 1024),
		      mem(a, MR1_ADDR, 40 * 1024), 40 * 1024));

	CHECK_EQ(e.l[0].sent, 1 + 5 + 3 + 1 + 40);
	CHECK_EQ(fwqp(a)->next_psn, (c.psn[0] + 50) & 0xffffff);
	CHECK_EQ(fwqp(b)->expected_psn, (c.psn[0] + 50) & 0xffffff);
	CHECK_EQ(stats(b).roce_rx_drop, 0);
	uc_quiet(&e);
	env_close(&e);
}

/* READ, atomics, SEND with invalidate: local QP operation errors, SQE */
TEST(test_tp_uc_bad_opcodes)
{
	static const uint8_t bad[] = {
		ORDMA_WQE_RDMA_READ, ORDMA_WQE_ATOMIC_CMP_SWP,
		ORDMA_WQE_ATOMIC_FETCH_ADD, ORDMA_WQE_SEND_INV,
	};
	static const uint8_t bad_cqe[] = {
		ORDMA_CQE_OP_RDMA_READ, ORDMA_CQE_OP_CMP_SWP,
		ORDMA_CQE_OP_FETCH_ADD, ORDMA_CQE_OP_SEND,
	};
	struct ordma_qp_attr at;
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;
	uint32_t idx = 0;
	size_t i;

	uc_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	for (i = 0; i < sizeof(bad); i++) {
		wr_init(&w, bad[i], MR1_ADDR, 8, a->key1);
		w.remote_addr = MR1_ADDR;
		w.rkey = b->key1;
		post(a, &w);
		/* a second WQE behind it is flushed */
		wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 8, a->key1);
		post(a, &w);
		pump(&e);
		CHECK_EQ(e.l[0].sent, 0);
		CHECK_EQ(qp_state(a), ORDMA_QPS_SQE);
		expect_cqe(a, true, bad_cqe[i], ORDMA_CQE_LOC_QP_OP_ERR, 0,
			   idx);
		expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_WR_FLUSH_ERR, 0,
			   idx + 1);
		idx += 2;
		/* SQE -> RTS (UC may name CUR_STATE and ACCESS_FLAGS) */
		memset(&at, 0, sizeof(at));
		at.attr_mask = cpu_to_le32(A(STATE) | A(CUR_STATE) |
					   A(ACCESS_FLAGS));
		at.state = ORDMA_QPS_RTS;
		at.cur_state = ORDMA_QPS_SQE;
		at.access_flags = cpu_to_le32(ORDMA_ACCESS_REMOTE_WRITE);
		CHECK_EQ(drv_modify_qp(&a->d, a->qpn, &at), OK);
		CHECK_EQ(qp_state(a), ORDMA_QPS_RTS);
	}
	/* the QP works again; the receiver saw nothing */
	post_recv(b, MR1_ADDR, 64);
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR + 0x100, 32, a->key1);
	post(a, &w);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 32, idx);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, 32, 0);
	/* a bad local key: LOC_PROT_ERR, SQE, receives go on */
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 32, a->key1 ^ 0x100);
	post(a, &w);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_LOC_PROT_ERR, 0,
		   idx + 1);
	CHECK_EQ(qp_state(a), ORDMA_QPS_SQE);
	/* UC modify rules: RC-only attributes are refused */
	memset(&at, 0, sizeof(at));
	at.attr_mask = cpu_to_le32(A(TIMEOUT));
	at.timeout = 10;
	CHECK_EQ(drv_modify_qp(&b->d, b->qpn, &at),
		 ORDMA_CMD_STATUS_BAD_PARAM);
	CHECK_EQ(e.l[1].sent, 0);
	CHECK_EQ(qp_state(b), ORDMA_QPS_RTS);
	CHECK_EQ(stats(b).roce_rx_drop, 0);
	env_close(&e);
}

/* A SEND of len bytes from MR1_ADDR of A */
static void uc_send(struct side *a, uint32_t len)
{
	struct wr w;

	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, len, a->key1);
	post(a, &w);
}

static bool all_bytes(const uint8_t *p, size_t len, uint8_t v)
{
	while (len--)
		if (*p++ != v)
			return false;
	return true;
}

/*
 * Lost packets: the message is dropped at the receiver, the sender
 * completes anyway; the receive WQE is kept and takes the next message,
 * which starts at a PSN the receiver did not expect.
 */
TEST(test_tp_uc_loss)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	unsigned int i;

	uc_cfg(&c);
	c.psn[0] = 0xfffffe;		/* the PSN wraps on the way */
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	pattern(mem(a, MR1_ADDR, 0x8000), 0x8000, 9);
	memset(mem(b, MR1_ADDR, 0x8000), 0, 0x8000);
	post_recv(b, MR1_ADDR, 0x4000);

	/* a middle packet of four lost: Last is discarded as well */
	e.l[0].drop_nth = 2;
	uc_send(a, 4000);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 4000, 0);
	no_cqe(b, false);
	CHECK_EQ(fwqp(b)->counters.seq_errors, 1);
	CHECK_EQ(drops(b, FW_TP_DROP_SEQ), 2);
	/* the next message lands in the same receive WQE */
	uc_send(a, 1500);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 1500, 1);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, 1500, 0);
	CHECK(!memcmp(mem(b, MR1_ADDR, 1500), mem(a, MR1_ADDR, 1500), 1500));

	/* the Last packet lost: the next First resynchronises */
	post_recv(b, MR1_ADDR + 0x4000, 0x4000);
	e.l[0].sent = 0;
	e.l[0].drop_nth = 3;
	uc_send(a, 3000);
	uc_send(a, 200);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 3000, 2);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 200, 3);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, 200, 1);
	no_cqe(b, false);
	CHECK_EQ(fwqp(b)->counters.seq_errors, 2);
	CHECK_EQ(drops(b, FW_TP_DROP_SEQ), 2);
	CHECK(!memcmp(mem(b, MR1_ADDR + 0x4000, 200), mem(a, MR1_ADDR, 200),
		      200));

	/* the whole of a message lost: nothing to see but the PSN jump */
	post_recv(b, MR1_ADDR, 0x4000);
	e.l[0].sent = 0;
	e.l[0].drop_nth = 0;
	e.l[0].drop_from = 1;
	uc_send(a, 2500);
	pump(&e);
	e.l[0].drop_from = 0;
	uc_send(a, 10);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 2500, 4);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 10, 5);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, 10, 2);
	CHECK_EQ(fwqp(b)->counters.seq_errors, 3);
	CHECK_EQ(fwqp(b)->expected_psn, fwqp(a)->next_psn);
	for (i = 0; i < FW_TP_DROP_NUM; i++)
		if (i != FW_TP_DROP_SEQ)
			CHECK_EQ(drops(b, i), 0);
	uc_quiet(&e);
	env_close(&e);
}

/* Packets delivered out of order: the message is dropped, no harm done */
TEST(test_tp_uc_reorder)
{
	struct qframe f[3];
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	int i;

	uc_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	pattern(mem(a, MR1_ADDR, 0x4000), 0x4000, 2);
	post_recv(b, MR1_ADDR, 0x4000);
	uc_send(a, 3000);
	for (i = 0; i < 3; i++)
		REQUIRE(link_pop(&e.l[0], &f[i]));
	/* First, Last, Middle */
	ordma_fw_rx_frame(b->d.fw, f[0].data, f[0].len);
	ordma_fw_rx_frame(b->d.fw, f[2].data, f[2].len);
	ordma_fw_rx_frame(b->d.fw, f[1].data, f[1].len);
	no_cqe(b, false);
	CHECK_EQ(drops(b, FW_TP_DROP_SEQ), 2);
	/* a stale First of the dropped message starts over: it is taken,
	 * and its Middle and Last out of order are not
	 */
	ordma_fw_rx_frame(b->d.fw, f[0].data, f[0].len);
	ordma_fw_rx_frame(b->d.fw, f[2].data, f[2].len);
	ordma_fw_rx_frame(b->d.fw, f[1].data, f[1].len);
	no_cqe(b, false);
	CHECK_EQ(drops(b, FW_TP_DROP_SEQ), 4);
	/* and in order it completes */
	ordma_fw_rx_frame(b->d.fw, f[0].data, f[0].len);
	ordma_fw_rx_frame(b->d.fw, f[1].data, f[1].len);
	ordma_fw_rx_frame(b->d.fw, f[2].data, f[2].len);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, 3000, 0);
	CHECK(!memcmp(mem(b, MR1_ADDR, 3000), mem(a, MR1_ADDR, 3000), 3000));
	/* a Middle with no message begun, in sequence: an opcode sequence
	 * drop
	 */
	fwqp(b)->expected_psn = (c.psn[0] + 1) & 0xffffff;
	ordma_fw_rx_frame(b->d.fw, f[1].data, f[1].len);
	CHECK_EQ(drops(b, FW_TP_DROP_OPCODE_SEQ), 1);
	CHECK_EQ(drops(b, FW_TP_DROP_SEQ), 4);
	no_cqe(b, false);
	for (i = 0; i < 3; i++)
		free(f[i].data);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 3000, 0);
	uc_quiet(&e);
	env_close(&e);
}

/* No receive WQE: the message is dropped silently (no RNR NAK) */
TEST(test_tp_uc_no_rwqe)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;

	uc_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	pattern(mem(a, MR1_ADDR, 0x4000), 0x4000, 4);
	uc_send(a, 100);
	uc_send(a, 3000);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 100, 0);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 3000, 1);
	CHECK_EQ(drops(b, FW_TP_DROP_NO_RECV), 2);
	CHECK_EQ(drops(b, FW_TP_DROP_SEQ), 2);	/* Middle, Last of the 2nd */
	CHECK_EQ(drops(b, FW_TP_DROP_RNR), 0);
	CHECK_EQ(fwqp(b)->counters.rnr_naks_sent, 0);
	/* WRITE with immediate needs one too: no CQE */
	wr_init(&w, ORDMA_WQE_RDMA_WRITE_IMM, MR1_ADDR, 64, a->key1);
	w.remote_addr = MR1_ADDR + 0x100;
	w.rkey = b->key1;
	post(a, &w);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_SUCCESS, 64, 2);
	CHECK_EQ(drops(b, FW_TP_DROP_NO_RECV), 3);
	no_cqe(b, false);
	/* once one is posted, the next message is taken */
	post_recv(b, MR1_ADDR + 0x1000, 0x1000);
	uc_send(a, 2048);
	pump(&e);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, 2048, 0);
	CHECK(!memcmp(mem(b, MR1_ADDR + 0x1000, 2048), mem(a, MR1_ADDR, 2048),
		      2048));
	/* a message longer than the receive buffer is dropped; the WQE
	 * stays for the next one
	 */
	post_recv(b, MR1_ADDR + 0x2000, 1000);
	uc_send(a, 1500);
	uc_send(a, 999);
	pump(&e);
	CHECK_EQ(drops(b, FW_TP_DROP_BAD_REQ), 1);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, 999, 1);
	no_cqe(b, false);
	uc_quiet(&e);
	env_close(&e);
}

/* Remote access errors drop the WRITE: memory untouched, no NAK */
TEST(test_tp_uc_bad_rkey)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;
	uint8_t *dst;
	int i;

	uc_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	pattern(mem(a, MR1_ADDR, 0x4000), 0x4000, 6);
	dst = mem(b, MR1_ADDR + 0x8000, 0x2000);
	memset(dst, 0x5a, 0x2000);
	memset(mem(b, MR2_ADDR, 0x1000), 0x5a, 0x1000);
	for (i = 0; i < 4; i++) {
		wr_init(&w, ORDMA_WQE_RDMA_WRITE, MR1_ADDR, 2500, a->key1);
		w.remote_addr = MR1_ADDR + 0x8000;
		w.rkey = b->key1;
		if (i == 0) {
			w.rkey ^= 0x100;		/* no such MR */
		} else if (i == 1) {
			w.rkey = b->key2;		/* no remote write */
			w.remote_addr = MR2_ADDR;
		} else if (i == 2) {
			w.remote_addr = MR1_ADDR + MR1_LEN - 100; /* bounds */
		} else {
			w.rkey = b->key1 ^ 0x01;	/* wrong key variant */
		}
		post(a, &w);
	}
	pump(&e);
	for (i = 0; i < 4; i++)
		expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_SUCCESS,
			   2500, (uint32_t)i);
	CHECK_EQ(drops(b, FW_TP_DROP_BAD_REQ), 4);
	CHECK_EQ(drops(b, FW_TP_DROP_SEQ), 8);	/* the Middle and Last */
	CHECK(all_bytes(dst, 0x2000, 0x5a));
	CHECK(all_bytes(mem(b, MR2_ADDR, 0x1000), 0x1000, 0x5a));
	CHECK(all_bytes(mem(b, MR1_ADDR + MR1_LEN - 100, 100), 100, 0));
	/* the good one after them is placed */
	wr_init(&w, ORDMA_WQE_RDMA_WRITE, MR1_ADDR, 2500, a->key1);
	w.remote_addr = MR1_ADDR + 0x8000;
	w.rkey = b->key1;
	post(a, &w);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_SUCCESS, 2500, 4);
	CHECK(!memcmp(dst, mem(a, MR1_ADDR, 2500), 2500));
	CHECK_EQ(dst[2500], 0x5a);
	uc_quiet(&e);
	env_close(&e);

	/* a QP without REMOTE_WRITE takes no WRITE at all */
	uc_cfg(&c);
	c.access = 0;
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	dst = mem(b, MR1_ADDR, 64);
	memset(dst, 0x5a, 64);
	wr_init(&w, ORDMA_WQE_RDMA_WRITE, MR1_ADDR + 0x1000, 64, a->key1);
	w.remote_addr = MR1_ADDR;
	w.rkey = b->key1;
	post(a, &w);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_SUCCESS, 64, 0);
	CHECK_EQ(drops(b, FW_TP_DROP_BAD_REQ), 1);
	CHECK(all_bytes(dst, 64, 0x5a));
	uc_quiet(&e);
	env_close(&e);
}

/* Through an SRQ a dropped message's WQE cannot go back: error CQE */
TEST(test_tp_uc_srq_loss)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;

	uc_cfg(&c);
	c.srq_b = true;
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	post_srq(b, MR1_ADDR, 0x2000);
	post_srq(b, MR1_ADDR + 0x2000, 0x2000);
	pattern(mem(a, MR1_ADDR, 0x2000), 0x2000, 8);
	e.l[0].drop_nth = 2;
	uc_send(a, 3000);
	uc_send(a, 500);
	pump(&e);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_REM_INV_REQ_ERR, 0, 0);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, 500, 1);
	CHECK(!memcmp(mem(b, MR1_ADDR + 0x2000, 500), mem(a, MR1_ADDR, 500),
		      500));
	uc_quiet(&e);
	env_close(&e);
}

/* ------------------------------------------------------------------ */
/* Robustness                                                          */
/* ------------------------------------------------------------------ */

static uint32_t rng_state = 12345;

static uint32_t rnd(void)
{
	rng_state = rng_state * 1103515245u + 12345u;
	return rng_state >> 8;
}

/* Mutated and truncated frames only ever produce counted drops or NAKs. */
TEST(test_tp_rx_fuzz)
{
	static uint8_t frames[8][2048];
	static size_t lens[8];
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;
	unsigned int i, n = 0, k;
	struct qframe f;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	/* capture one frame of every kind A sends */
	post_recv(b, MR1_ADDR, 4096);
	wr_init(&w, ORDMA_WQE_SEND_IMM, MR1_ADDR, 1500, a->key1);
	put_wqe(a, &w);
	wr_init(&w, ORDMA_WQE_RDMA_WRITE, MR1_ADDR, 100, a->key1);
	w.remote_addr = MR1_ADDR + 0x1000;
	w.rkey = b->key1;
	put_wqe(a, &w);
	wr_init(&w, ORDMA_WQE_RDMA_READ, MR1_ADDR + 0x2000, 100, a->key1);
	w.remote_addr = MR1_ADDR + 0x1000;
	w.rkey = b->key1;
	put_wqe(a, &w);
	wr_init(&w, ORDMA_WQE_ATOMIC_FETCH_ADD, MR1_ADDR + 0x3000, 8, a->key1);
	w.remote_addr = MR1_ADDR + 0x1000;
	w.rkey = b->key1;
	put_wqe(a, &w);
	ring_sq(a);
	while (n < 8 && link_pop(&e.l[0], &f)) {
		memcpy(frames[n], f.data, f.len < 2048 ? f.len : 2048);
		lens[n++] = f.len < 2048 ? f.len : 2048;
		ordma_fw_rx_frame(b->d.fw, f.data, f.len);
		free(f.data);
	}
	REQUIRE(n >= 4);
	pump(&e);
	for (i = 0; i < 4000; i++) {
		uint8_t buf[2048];
		size_t len;
		unsigned int m = rnd() % n;

		len = lens[m];
		memcpy(buf, frames[m], len);
		for (k = rnd() % 4 + 1; k; k--)
			buf[14 + rnd() % (len - 14)] ^= (uint8_t)(1u << (rnd() % 8));
		if (rnd() % 3 == 0)
			len = 14 + rnd() % (len - 14);
		ordma_fw_rx_frame(b->d.fw, buf, len);
		ordma_fw_rx_frame(a->d.fw, buf, len);
		pump(&e);
	}
	/* every frame steered to the engine was handled (no crash) and
	 * the ones with a broken ICRC/header were counted drops
	 */
	CHECK(stats(b).roce_rx_drop > 3000);
	CHECK(b->d.fw->tp.rx_parse_drop[FW_ROCE_DROP_ICRC] > 0);
	env_close(&e);
}

/* Frames for a QP in the wrong state or a QP that does not exist */
TEST(test_tp_rx_drops)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;
	struct qframe f;
	struct ordma_qp_attr at;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	post_recv(b, MR1_ADDR, 4096);
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 10, a->key1);
	post(a, &w);
	REQUIRE(link_pop(&e.l[0], &f));
	/* B to ERR: the frame is a state drop */
	memset(&at, 0, sizeof(at));
	at.attr_mask = cpu_to_le32(A(STATE));
	at.state = ORDMA_QPS_ERR;
	REQUIRE_EQ(drv_modify_qp(&b->d, b->qpn, &at), OK);
	ordma_fw_rx_frame(b->d.fw, f.data, f.len);
	CHECK_EQ(b->d.fw->tp.rx_drop[FW_TP_DROP_STATE], 1);
	/* destroyed: no such QP */
	REQUIRE_EQ(drv_handle_cmd(&b->d, ORDMA_CMD_DESTROY_QP, b->qpn, 0), OK);
	ordma_fw_rx_frame(b->d.fw, f.data, f.len);
	CHECK_EQ(b->d.fw->tp.rx_drop[FW_TP_DROP_NO_QP], 1);
	CHECK_EQ(stats(b).roce_rx_drop, 2);
	free(f.data);
	/* A gives up after its retries; the link being down changes nothing */
	ordma_fw_set_link(a->d.fw, false);
	advance(&e, 4096ULL << 10);
	CHECK_EQ(stats(a).tx_drop_link_down, 1);
	env_close(&e);
}

/* ------------------------------------------------------------------ */
/* Invalidation, fast registration                                     */
/* ------------------------------------------------------------------ */
/* Internal loopback                                                   */
/* ------------------------------------------------------------------ */

struct lb_qp {
	uint32_t qpn, sq_pi, rq_pi;
	unsigned int area;
};

/* Make side s act as QP q (the loopback test has two QPs on one side). */
static void lb_use(struct side *s, struct lb_qp *cur, struct lb_qp *q)
{
	if (cur) {
		cur->sq_pi = s->sq_pi;
		cur->rq_pi = s->rq_pi;
	}
	s->qpn = q->qpn;
	s->sq_pi = q->sq_pi;
	s->rq_pi = q->rq_pi;
	s->wq_area = q->area;
}

/*
 * Two RC QPs of one device connected to each other: the frames go through
 * the device's internal loopback (never onto the wire) and are received
 * from the device timer, not inside the doorbell that sent them.
 */
TEST(test_tp_loopback)
{
	static const uint8_t path[] = { ORDMA_QPS_INIT, ORDMA_QPS_RTR,
					ORDMA_QPS_RTS };
	const uint32_t len = 5000;	/* 5 packets at MTU 1024 */
	struct lb_qp q[2] = { { .area = QP_AREA }, { .area = QP_AREA + 2 } };
	struct side s, peer;
	struct ordma_port_stats st;
	struct tcfg c;
	struct wr w;
	size_t k;
	int i;

	default_cfg(&c);
	memset(&s, 0, sizeof(s));
	REQUIRE(side_open(&s, 0, &c));
	for (i = 0; i < 2; i++) {
		struct ordma_qp_create_params p;

		memset(drv_mem(&s.d, DRV_WQ_ADDR(q[i].area), 0x10000), 0,
		       0x10000);
		drv_qp_params(&p, 0, s.pdn, ORDMA_QPT_RC, s.scq.cqn, s.rcq.cqn,
			      ORDMA_NO_SRQ, q[i].area);
		p.sq_log_size = SQ_LOG;
		p.sq_wqe_shift = SQ_SHIFT;
		p.rq_log_size = RQ_LOG;
		p.rq_wqe_shift = RQ_SHIFT;
		drv_page_list_contig(&p.sq, DRV_WQ_ADDR(q[i].area),
				     (1u << SQ_LOG) << SQ_SHIFT);
		drv_page_list_contig(&p.rq, DRV_WQ_ADDR(q[i].area) + 0x8000,
				     (1u << RQ_LOG) << RQ_SHIFT);
		REQUIRE(drv_create_qp(&s.d, &p, &q[i].qpn) == OK);
	}
	/* the peer of each QP is the other QP at this device's own GID/MAC */
	peer = s;
	for (k = 0; k < sizeof(path); k++)
		for (i = 0; i < 2; i++) {
			struct fw_qp_transition rule;
			struct ordma_qp_attr a;
			uint32_t mask;

			fw_qp_transition_rule(ORDMA_QPT_RC,
					      k ? path[k - 1] : ORDMA_QPS_RESET,
					      path[k], &rule);
			mask = rule.required | A(STATE);
			if (path[k] == ORDMA_QPS_RTR)
				mask |= A(MIN_RNR_TIMER) | A(MAX_DEST_RD_ATOMIC);
			if (path[k] == ORDMA_QPS_RTS)
				mask |= A(MAX_QP_RD_ATOMIC) | A(TIMEOUT) |
					A(RETRY_CNT) | A(RNR_RETRY);
			peer.qpn = q[!i].qpn;
			fill_attr(&a, mask, path[k], &c, &s, &peer, i);
			CHECK_EQ(drv_modify_qp(&s.d, q[i].qpn, &a), OK);
		}

	/* SEND q0 -> q1, then q1 READs it back from q0's memory */
	pattern(mem(&s, MR1_ADDR, len), len, 9);
	memset(mem(&s, MR1_ADDR + 0x10000, 2 * len), 0xee, 2 * len);
	lb_use(&s, NULL, &q[1]);
	post_recv(&s, MR1_ADDR + 0x10000, len);
	lb_use(&s, &q[1], &q[0]);
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, len, s.key1);
	post(&s, &w);
	CHECK_EQ(s.d.hal.tx_count, 0);		/* nothing on the wire */
	CHECK(no_cqe(&s, true));		/* nothing received yet */
	fake_advance(&s.d.hal, 1);
	CHECK(expect_cqe(&s, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, len, 0));
	lb_use(&s, &q[0], &q[1]);
	CHECK(expect_cqe(&s, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, len, 0));
	CHECK(!memcmp(mem(&s, MR1_ADDR, len), mem(&s, MR1_ADDR + 0x10000, len),
		      len));

	wr_init(&w, ORDMA_WQE_RDMA_READ, MR1_ADDR + 0x10000 + len, len, s.key1);
	w.remote_addr = MR1_ADDR;
	w.rkey = s.key1;
	post(&s, &w);
	fake_advance(&s.d.hal, 1);
	CHECK(expect_cqe(&s, true, ORDMA_CQE_OP_RDMA_READ, ORDMA_CQE_SUCCESS,
			 len, 0));
	CHECK(!memcmp(mem(&s, MR1_ADDR, len),
		      mem(&s, MR1_ADDR + 0x10000 + len, len), len));
	CHECK_EQ(s.d.hal.tx_count, 0);
	CHECK_EQ(s.d.fw->loopback.drop_full, 0);
	st = stats(&s);
	CHECK_EQ(st.tx_frames, 0);
	CHECK_EQ(st.roce_tx_frames, st.roce_rx_frames);
	CHECK_EQ(st.roce_rx_drop, 0);
	/* SEND: 5 packets and 1 ACK; READ: request and 5 responses */
	CHECK_EQ(st.roce_rx_frames, 12);
	CHECK_EQ(s.d.fw->loopback.frames_looped, 12);
	drv_close(&s.d);
}

/* ------------------------------------------------------------------ */

TEST(test_tp_local_ops)
{
	struct ordma_aq_cmd cmd;
	struct ordma_cqe cqe;
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;
	uint32_t frkey, idx;
	uint64_t *pages;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	/* a fast-reg MR on B, registered by B's own REG_MR WQE */
	drv_cmd_init(&cmd, ORDMA_CMD_REG_MR);
	cmd.reg_mr.pdn = cpu_to_le32(b->pdn);
	cmd.reg_mr.flags = ORDMA_MR_FAST_REG;
	cmd.reg_mr.max_pages = cpu_to_le16(4);
	cmd.reg_mr.key = 0x33;
	REQUIRE_EQ(drv_exec(&b->d, &cmd), OK);
	idx = le32_to_cpu(b->d.last_comp.handle.handle) >> 8;
	frkey = idx << 8 | 0x44;
	pages = (uint64_t *)(void *)mem(b, DRV_SCRATCH_ADDR, 32);
	pages[0] = cpu_to_le64(GUARD_ADDR);
	pages[1] = cpu_to_le64(GUARD_ADDR + 0x1000);
	memset(&w, 0, sizeof(w));
	w.opcode = ORDMA_WQE_REG_MR;
	w.flags = ORDMA_WQE_SIGNALED;
	w.reg.iova = cpu_to_le64(0x7000000000ULL);
	w.reg.length = cpu_to_le64(0x2000);
	w.reg.page_list = cpu_to_le64(DRV_SCRATCH_ADDR);
	w.reg.key = cpu_to_le32(frkey);
	w.reg.num_pages = cpu_to_le16(2);
	w.reg.page_shift = 12;
	w.reg.access = DRV_ACCESS_ALL;
	post(b, &w);
	expect_cqe(b, true, ORDMA_CQE_OP_REG_MR, ORDMA_CQE_SUCCESS, 0, 0);
	/* A writes through it */
	pattern(mem(a, MR1_ADDR, 0x1800), 0x1800, 6);
	wr_init(&w, ORDMA_WQE_RDMA_WRITE, MR1_ADDR, 0x1800, a->key1);
	w.remote_addr = 0x7000000000ULL + 0x400;
	w.rkey = frkey;
	post(a, &w);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_SUCCESS, 0x1800,
		   0);
	CHECK(!memcmp(mem(b, GUARD_ADDR + 0x400, 0x1800), mem(a, MR1_ADDR, 0x1800),
		      0x1800));
	/* SEND_INV invalidates it at B */
	post_recv(b, MR1_ADDR, 64);
	wr_init(&w, ORDMA_WQE_SEND_INV, MR1_ADDR, 16, a->key1);
	w.imm_inv = frkey;
	post(a, &w);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 16, 1);
	REQUIRE(cqe_next(b, false, &cqe));
	CHECK_EQ(cqe.status, ORDMA_CQE_SUCCESS);
	CHECK_EQ(le16_to_cpu(cqe.flags), ORDMA_CQE_F_INV);
	CHECK_EQ(le32_to_cpu(cqe.imm_inv), frkey);
	{
		struct fw_mr *mr;

		CHECK_EQ(fw_mr_lookup(b->d.fw, frkey, b->pdn,
				      0x7000000000ULL, 1, 0, &mr),
			 FW_MR_ERR_KEY);
	}
	/* register again, then LOCAL_INV on B's own SQ */
	memset(&w, 0, sizeof(w));
	w.opcode = ORDMA_WQE_REG_MR;
	w.reg.iova = cpu_to_le64(0x7000000000ULL);
	w.reg.length = cpu_to_le64(0x2000);
	w.reg.page_list = cpu_to_le64(DRV_SCRATCH_ADDR);
	w.reg.key = cpu_to_le32(frkey);
	w.reg.num_pages = cpu_to_le16(2);
	w.reg.page_shift = 12;
	w.reg.access = DRV_ACCESS_ALL;
	post(b, &w);
	memset(&w, 0, sizeof(w));
	w.opcode = ORDMA_WQE_LOCAL_INV;
	w.flags = ORDMA_WQE_SIGNALED;
	w.imm_inv = frkey;
	post(b, &w);
	expect_cqe(b, true, ORDMA_CQE_OP_LOCAL_INV, ORDMA_CQE_SUCCESS, 0, 2);
	/* writing through it now is a remote access error */
	wr_init(&w, ORDMA_WQE_RDMA_WRITE, MR1_ADDR, 16, a->key1);
	w.remote_addr = 0x7000000000ULL;
	w.rkey = frkey;
	post(a, &w);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_REM_ACCESS_ERR, 0,
		   2);
	env_close(&e);
}

/* SQD: in-flight WQEs finish, new ones wait, the drain event follows */
TEST(test_tp_sqd_drain)
{
	struct ordma_qp_attr at;
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	post_recv(b, MR1_ADDR, 4096);
	post_recv(b, MR1_ADDR, 4096);
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 3000, a->key1);
	post(a, &w);
	memset(&at, 0, sizeof(at));
	at.attr_mask = cpu_to_le32(A(STATE) | A(EN_SQD_ASYNC));
	at.state = ORDMA_QPS_SQD;
	at.en_sqd_async_notify = 1;
	REQUIRE_EQ(drv_modify_qp(&a->d, a->qpn, &at), OK);
	post(a, &w);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 3000, 0);
	no_cqe(a, true);
	CHECK(has_event(a, ORDMA_EQE_QP_SQ_DRAINED, a->qpn));
	at.attr_mask = cpu_to_le32(A(STATE));
	at.state = ORDMA_QPS_RTS;
	at.en_sqd_async_notify = 0;
	REQUIRE_EQ(drv_modify_qp(&a->d, a->qpn, &at), OK);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 3000, 1);
	env_close(&e);
}

/* Receives through an SRQ: wqe_idx is the SRQ slot, the limit event */
TEST(test_tp_rc_srq)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;
	int i;

	default_cfg(&c);
	c.srq_b = true;
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	for (i = 0; i < 4; i++)
		post_srq(b, MR1_ADDR + 0x1000 * (uint64_t)i, 0x1000);
	pattern(mem(a, MR1_ADDR, 3000), 3000, 12);
	for (i = 0; i < 3; i++) {
		wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 1000 * (uint32_t)(i + 1),
			a->key1);
		put_wqe(a, &w);
	}
	ring_sq(a);
	pump(&e);
	for (i = 0; i < 3; i++) {
		expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS,
			   1000 * (uint32_t)(i + 1), (uint32_t)i);
		expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS,
			   1000 * (uint32_t)(i + 1), (uint32_t)i);
	}
	CHECK(!memcmp(mem(b, MR1_ADDR + 0x2000, 3000), mem(a, MR1_ADDR, 3000),
		      3000));
	/* fewer than 2 left after the third take */
	CHECK(has_event(b, ORDMA_EQE_SRQ_LIMIT, b->srqn));
	env_close(&e);
}

/* max_rd_atomic bounds the READs in flight; more wait for responses */
TEST(test_tp_rc_rd_atomic_limit)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;
	uint32_t i;

	default_cfg(&c);
	c.max_rd_atomic = 2;
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	pattern(mem(b, MR1_ADDR, 0x4000), 0x4000, 3);
	for (i = 0; i < 5; i++) {
		wr_init(&w, ORDMA_WQE_RDMA_READ, MR1_ADDR + 0x10000 + i * 0x1000,
			0x800, a->key1);
		w.remote_addr = MR1_ADDR + i * 0x800;
		w.rkey = b->key1;
		put_wqe(a, &w);
	}
	ring_sq(a);
	CHECK_EQ(e.l[0].sent, 2);
	CHECK_EQ(fwqp(a)->sq.next, 2);
	pump(&e);
	CHECK_EQ(e.l[0].sent, 5);
	for (i = 0; i < 5; i++) {
		expect_cqe(a, true, ORDMA_CQE_OP_RDMA_READ, ORDMA_CQE_SUCCESS,
			   0x800, i);
		CHECK(!memcmp(mem(a, MR1_ADDR + 0x10000 + i * 0x1000, 0x800),
			      mem(b, MR1_ADDR + i * 0x800, 0x800), 0x800));
	}
	env_close(&e);
}

/* Frames above the port MTU are not sent (counted), the peer sees none */
TEST(test_tp_tx_mtu_and_link)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	post_recv(b, MR1_ADDR, 4096);
	/* the path MTU (1024) was checked against the port at RTR; the
	 * port MTU shrinks afterwards
	 */
	REQUIRE_EQ(drv_set_port(&a->d, ORDMA_SET_PORT_MTU, 600, NULL, 0, 0), OK);
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 1000, a->key1);
	post(a, &w);
	CHECK_EQ(e.l[0].sent, 0);
	CHECK_EQ(a->d.fw->tp.tx_drop[FW_TP_TX_TOO_LONG], 1);
	CHECK_EQ(stats(a).roce_tx_frames, 0);
	/* back to 1500: the retransmission after the timeout goes out */
	REQUIRE_EQ(drv_set_port(&a->d, ORDMA_SET_PORT_MTU, 1500, NULL, 0, 0),
		   OK);
	advance(&e, 4096ULL << 10);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, 1000, 0);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 1000, 0);
	/* link down: frames are not sent and counted */
	ordma_fw_set_link(a->d.fw, false);
	post_recv(b, MR1_ADDR, 4096);
	post(a, &w);
	CHECK_EQ(a->d.fw->tp.tx_drop[FW_TP_TX_LINK_DOWN], 1);
	CHECK_EQ(stats(a).tx_drop_link_down, 1);
	ordma_fw_set_link(a->d.fw, true);
	advance(&e, 4096ULL << 10);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 1000, 1);
	env_close(&e);
}

/* A SEND First followed by a SEND Only: opcode sequence error, NAK */
TEST(test_tp_rc_opcode_sequence)
{
	struct fw_roce_hdrs h;
	struct fw_roce_pkt pkt;
	struct qframe f1, f2;
	uint8_t frame[2048];
	size_t len;
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	post_recv(b, MR1_ADDR, 4096);
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 1500, a->key1);
	post(a, &w);
	REQUIRE(link_pop(&e.l[0], &f1));
	REQUIRE(link_pop(&e.l[0], &f2));
	REQUIRE_EQ(fw_roce_parse(f2.data, f2.len, &pkt), FW_ROCE_OK);
	fw_roce_decode(&pkt, &h);
	CHECK_EQ(h.opcode, FW_ROCE_RC_SEND_LAST);
	h.opcode = FW_ROCE_RC_SEND_ONLY;
	len = fw_roce_build(frame, sizeof(frame), &h, pkt.payload,
			    pkt.payload_len);
	REQUIRE(len);
	ordma_fw_rx_frame(b->d.fw, f1.data, f1.len);
	ordma_fw_rx_frame(b->d.fw, frame, len);
	free(f1.data);
	free(f2.data);
	CHECK_EQ(b->d.fw->tp.rx_drop[FW_TP_DROP_OPCODE_SEQ], 1);
	CHECK_EQ(qp_state(b), ORDMA_QPS_ERR);
	CHECK(has_event(b, ORDMA_EQE_QP_REQ_ERR, b->qpn));
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_REM_INV_REQ_ERR, 0, 0);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_REM_INV_REQ_ERR, 0, 0);
	CHECK_EQ(qp_state(a), ORDMA_QPS_ERR);
	env_close(&e);
}

/* A WQE failing its local checks waits for the earlier ones, which are
 * still retransmitted and complete first.
 */
TEST(test_tp_rc_error_after_loss)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	post_recv(b, MR1_ADDR, 4096);
	e.l[0].drop_nth = 1;
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 100, a->key1);
	put_wqe(a, &w);
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 100, 0x12345678);
	put_wqe(a, &w);
	ring_sq(a);
	pump(&e);
	no_cqe(a, true);
	advance(&e, 4096ULL << 10);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 100, 0);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_LOC_PROT_ERR, 0, 1);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, 100, 0);
	CHECK_EQ(qp_state(a), ORDMA_QPS_ERR);
	CHECK_EQ(e.l[0].sent, 2);
	env_close(&e);
}

/* RC over IPv6 and over a VLAN (the GID entry's VLAN tags the frames) */
TEST(test_tp_rc_ipv6_vlan)
{
	const struct fake_frame *f;
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;

	default_cfg(&c);
	c.ipv6 = true;
	send_once(&c, 3000, 3);
	c.vlan = 5;
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	post_recv(b, MR1_ADDR, 4096);
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 100, a->key1);
	post(a, &w);
	f = fake_last_tx(&a->d.hal);
	REQUIRE(f);
	CHECK_EQ(f->data[12], 0x81);
	CHECK_EQ(f->data[13], 0x00);
	CHECK_EQ((f->data[14] << 8 | f->data[15]) & 0xfff, 5);
	CHECK_EQ(f->data[16] << 8 | f->data[17], 0x86dd);
	CHECK(!memcmp(f->data, b->mac, 6));
	CHECK(!memcmp(f->data + 6, a->mac, 6));
	pump(&e);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, 100, 0);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, 100, 0);
	env_close(&e);
}

/* ------------------------------------------------------------------ */
/* FLUSH and ATOMIC WRITE                                              */
/* ------------------------------------------------------------------ */

#define FL_ADDR		GUARD_ADDR		/* MR3: FLUSH_GLOBAL only */
#define FL_LEN		0x10000ULL
#define FL_QP_ACCESS	(ORDMA_ACCESS_REMOTE_WRITE | ORDMA_ACCESS_REMOTE_READ | \
			 ORDMA_ACCESS_REMOTE_ATOMIC | \
			 ORDMA_ACCESS_FLUSH_GLOBAL | \
			 ORDMA_ACCESS_FLUSH_PERSISTENT)

static void flush_cfg(struct tcfg *c)
{
	default_cfg(c);
	c->access = FL_QP_ACCESS;
}

/* B gets MR3 at FL_ADDR: local + remote write and FLUSH_GLOBAL */
static uint32_t flush_mr(struct side *b, uint32_t access)
{
	uint32_t key = 0;

	CHECK_EQ(drv_reg_mr_contig(&b->d, b->pdn, 0, FL_ADDR, FL_ADDR, FL_LEN,
				   access, 0x33, &key), OK);
	return key;
}

static void flush_wr(struct wr *w, uint64_t raddr, uint32_t rkey,
		     uint32_t len, uint8_t placement, uint8_t level)
{
	memset(w, 0, sizeof(*w));
	w->opcode = ORDMA_WQE_FLUSH;
	w->flags = ORDMA_WQE_SIGNALED;
	w->remote_addr = raddr;
	w->rkey = rkey;
	w->length = len;
	w->placement = placement;
	w->level = level;
}

static void aw_wr(struct wr *w, uint64_t raddr, uint32_t rkey, uint64_t v)
{
	memset(w, 0, sizeof(*w));
	w->opcode = ORDMA_WQE_ATOMIC_WRITE;
	w->flags = ORDMA_WQE_SIGNALED;
	w->remote_addr = raddr;
	w->rkey = rkey;
	memcpy(w->value, &v, 8);
}

/* The last frame side s sent, parsed */
static bool last_frame(struct side *s, struct fw_roce_hdrs *h,
		       size_t *payload_len)
{
	const struct fake_frame *f = fake_last_tx(&s->d.hal);
	struct fw_roce_pkt pkt;

	if (!CHECK(f) ||
	    !CHECK_EQ(fw_roce_parse(f->data, f->len, &pkt), FW_ROCE_OK))
		return false;
	fw_roce_decode(&pkt, h);
	*payload_len = pkt.payload_len;
	return true;
}

/* WRITE then FLUSH at RANGE and MR level; the frames on the wire */
TEST(test_tp_rc_flush)
{
	struct fw_roce_hdrs h;
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;
	size_t plen;
	uint32_t key3;

	flush_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	key3 = flush_mr(b, ORDMA_ACCESS_LOCAL_WRITE | ORDMA_ACCESS_REMOTE_WRITE |
			ORDMA_ACCESS_FLUSH_GLOBAL);
	pattern(mem(a, MR1_ADDR, 256), 256, 9);
	wr_init(&w, ORDMA_WQE_RDMA_WRITE, MR1_ADDR, 256, a->key1);
	w.remote_addr = FL_ADDR + 0x100;
	w.rkey = key3;
	post(a, &w);
	flush_wr(&w, FL_ADDR + 0x100, key3, 256, ORDMA_FLUSH_GLOBAL,
		 ORDMA_FLUSH_LEVEL_RANGE);
	post(a, &w);
	/* FLUSH: BTH, FETH (placement 1, level 0), RETH, no payload */
	if (last_frame(a, &h, &plen)) {
		CHECK_EQ(h.opcode, FW_ROCE_RC_FLUSH);
		CHECK_EQ(h.feth.placement, FW_FETH_PLT_GLOBAL);
		CHECK_EQ(h.feth.level, FW_FETH_SEL_RANGE);
		CHECK_EQ(h.reth.va, FL_ADDR + 0x100);
		CHECK_EQ(h.reth.rkey, key3);
		CHECK_EQ(h.reth.dma_len, 256);
		CHECK(h.ack_req);
		CHECK_EQ(plen, 0);
		CHECK_EQ(h.psn, c.psn[0] + 1);
	}
	{
		const struct fake_frame *f = fake_last_tx(&a->d.hal);
		size_t bth = FW_ROCE_ETH_HLEN + FW_ROCE_IPV4_HLEN +
			     FW_ROCE_UDP_HLEN;

		/* FETH is the word right after the BTH, big endian */
		REQUIRE(f);
		CHECK_EQ(fw_wire_get32(f->data + bth + FW_ROCE_BTH_LEN), 1);
		CHECK_EQ(fw_wire_get64(f->data + bth + FW_ROCE_BTH_LEN + 4),
			 FL_ADDR + 0x100);
	}
	pump(&e);
	/* the answer: READ Response Only, ACK syndrome, 0 bytes */
	if (last_frame(b, &h, &plen)) {
		CHECK_EQ(h.opcode, FW_ROCE_RC_RDMA_READ_RESPONSE_ONLY);
		CHECK(fw_aeth_is_ack(h.aeth.syndrome));
		CHECK_EQ(h.psn, c.psn[0] + 1);
		CHECK_EQ(plen, 0);
		CHECK_EQ(h.aeth.msn, 2);
	}
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_SUCCESS, 256, 0);
	expect_cqe(a, true, ORDMA_CQE_OP_FLUSH, ORDMA_CQE_SUCCESS, 0, 1);
	no_cqe(b, false);
	CHECK(!memcmp(mem(b, FL_ADDR + 0x100, 256), mem(a, MR1_ADDR, 256),
		      256));
	/* MR level: the range is ignored, 0 or far beyond the MR */
	flush_wr(&w, FL_ADDR, key3, 0, ORDMA_FLUSH_GLOBAL, ORDMA_FLUSH_LEVEL_MR);
	post(a, &w);
	flush_wr(&w, FL_ADDR + 8, key3, 12345678, ORDMA_FLUSH_GLOBAL,
		 ORDMA_FLUSH_LEVEL_MR);
	post(a, &w);
	/* RANGE of 0 bytes at the end of the MR */
	flush_wr(&w, FL_ADDR + FL_LEN, key3, 0, ORDMA_FLUSH_GLOBAL,
		 ORDMA_FLUSH_LEVEL_RANGE);
	post(a, &w);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_FLUSH, ORDMA_CQE_SUCCESS, 0, 2);
	expect_cqe(a, true, ORDMA_CQE_OP_FLUSH, ORDMA_CQE_SUCCESS, 0, 3);
	expect_cqe(a, true, ORDMA_CQE_OP_FLUSH, ORDMA_CQE_SUCCESS, 0, 4);
	CHECK_EQ(qp_state(a), ORDMA_QPS_RTS);
	CHECK_EQ(qp_state(b), ORDMA_QPS_RTS);
	env_close(&e);
}

/*
 * A FLUSH the responder refuses: the requester's WQE completes with
 * a_status, both QPs end in ERR, B raises b_event.  qp_access is B's QP
 * grant, mr_access that of MR3 (0: use MR1, which has no FLUSH grant).
 */
static void flush_error(uint32_t qp_access, uint32_t mr_access, bool bad_key,
			uint64_t raddr, uint32_t len, uint8_t placement,
			uint8_t level, uint8_t a_status, uint8_t b_event)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;
	uint32_t key;

	flush_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	if (qp_access != FL_QP_ACCESS) {
		struct ordma_qp_attr attr;

		memset(&attr, 0, sizeof(attr));
		attr.attr_mask = cpu_to_le32(A(ACCESS_FLAGS));
		attr.access_flags = cpu_to_le32(qp_access);
		REQUIRE_EQ(drv_modify_qp(&b->d, b->qpn, &attr), OK);
	}
	key = mr_access ? flush_mr(b, mr_access) : b->key1;
	if (bad_key)
		key ^= 1;
	flush_wr(&w, raddr, key, len, placement, level);
	post(a, &w);
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, 8, a->key1);
	post(a, &w);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_FLUSH, a_status, 0, 0);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_WR_FLUSH_ERR, 0, 1);
	CHECK_EQ(qp_state(a), ORDMA_QPS_ERR);
	CHECK_EQ(qp_state(b), ORDMA_QPS_ERR);
	CHECK(has_event(b, b_event, b->qpn));
	env_close(&e);
}

TEST(test_tp_rc_flush_errors)
{
	const uint32_t rw = ORDMA_ACCESS_LOCAL_WRITE | ORDMA_ACCESS_REMOTE_WRITE;
	const uint32_t glob = rw | ORDMA_ACCESS_FLUSH_GLOBAL;
	struct env e;
	struct side *a;
	struct tcfg c;
	struct wr w;

	/* PERSISTENT against an MR granting only GLOBAL */
	flush_error(FL_QP_ACCESS, glob, false, FL_ADDR, 64,
		    ORDMA_FLUSH_PERSISTENT, ORDMA_FLUSH_LEVEL_RANGE,
		    ORDMA_CQE_REM_ACCESS_ERR, ORDMA_EQE_QP_ACCESS_ERR);
	/* ... and GLOBAL | PERSISTENT needs both */
	flush_error(FL_QP_ACCESS, glob, false, FL_ADDR, 64,
		    ORDMA_FLUSH_GLOBAL | ORDMA_FLUSH_PERSISTENT,
		    ORDMA_FLUSH_LEVEL_MR, ORDMA_CQE_REM_ACCESS_ERR,
		    ORDMA_EQE_QP_ACCESS_ERR);
	/* an MR with no FLUSH grant at all */
	flush_error(FL_QP_ACCESS, 0, false, MR1_ADDR, 64, ORDMA_FLUSH_GLOBAL,
		    ORDMA_FLUSH_LEVEL_RANGE, ORDMA_CQE_REM_ACCESS_ERR,
		    ORDMA_EQE_QP_ACCESS_ERR);
	/* bad rkey, at both levels */
	flush_error(FL_QP_ACCESS, glob, true, FL_ADDR, 64, ORDMA_FLUSH_GLOBAL,
		    ORDMA_FLUSH_LEVEL_RANGE, ORDMA_CQE_REM_ACCESS_ERR,
		    ORDMA_EQE_QP_ACCESS_ERR);
	flush_error(FL_QP_ACCESS, glob, true, FL_ADDR, 64, ORDMA_FLUSH_GLOBAL,
		    ORDMA_FLUSH_LEVEL_MR, ORDMA_CQE_REM_ACCESS_ERR,
		    ORDMA_EQE_QP_ACCESS_ERR);
	/* RANGE crossing the end of the MR, and before its start */
	flush_error(FL_QP_ACCESS, glob, false, FL_ADDR + FL_LEN - 8, 16,
		    ORDMA_FLUSH_GLOBAL, ORDMA_FLUSH_LEVEL_RANGE,
		    ORDMA_CQE_REM_ACCESS_ERR, ORDMA_EQE_QP_ACCESS_ERR);
	flush_error(FL_QP_ACCESS, glob, false, FL_ADDR - 8, 8,
		    ORDMA_FLUSH_GLOBAL, ORDMA_FLUSH_LEVEL_RANGE,
		    ORDMA_CQE_REM_ACCESS_ERR, ORDMA_EQE_QP_ACCESS_ERR);
	/* the responder QP does not grant FLUSH: invalid request */
	flush_error(ORDMA_ACCESS_REMOTE_WRITE | ORDMA_ACCESS_FLUSH_PERSISTENT,
		    glob, false, FL_ADDR, 64, ORDMA_FLUSH_GLOBAL,
		    ORDMA_FLUSH_LEVEL_RANGE, ORDMA_CQE_REM_INV_REQ_ERR,
		    ORDMA_EQE_QP_REQ_ERR);

	/* WQEs the requester refuses: nothing goes on the wire */
	flush_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	flush_wr(&w, MR1_ADDR, e.s[1].key1, 8, 0, ORDMA_FLUSH_LEVEL_RANGE);
	post(a, &w);
	CHECK_EQ(e.l[0].sent, 0);
	expect_cqe(a, true, ORDMA_CQE_OP_FLUSH, ORDMA_CQE_LOC_QP_OP_ERR, 0, 0);
	env_close(&e);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	flush_wr(&w, MR1_ADDR, e.s[1].key1, 8, ORDMA_FLUSH_GLOBAL | 4,
		 ORDMA_FLUSH_LEVEL_RANGE);
	post(a, &w);
	flush_wr(&w, MR1_ADDR, e.s[1].key1, 8, ORDMA_FLUSH_GLOBAL, 2);
	post(a, &w);
	CHECK_EQ(e.l[0].sent, 0);
	expect_cqe(a, true, ORDMA_CQE_OP_FLUSH, ORDMA_CQE_LOC_QP_OP_ERR, 0, 0);
	expect_cqe(a, true, ORDMA_CQE_OP_FLUSH, ORDMA_CQE_WR_FLUSH_ERR, 0, 1);
	env_close(&e);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	flush_wr(&w, MR1_ADDR, e.s[1].key1, 0x80000001u, ORDMA_FLUSH_GLOBAL,
		 ORDMA_FLUSH_LEVEL_RANGE);
	post(a, &w);
	CHECK_EQ(e.l[0].sent, 0);
	expect_cqe(a, true, ORDMA_CQE_OP_FLUSH, ORDMA_CQE_LOC_LEN_ERR, 0, 0);
	env_close(&e);
	/* SGEs on a FLUSH */
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	flush_wr(&w, MR1_ADDR, e.s[1].key1, 8, ORDMA_FLUSH_GLOBAL,
		 ORDMA_FLUSH_LEVEL_RANGE);
	sge(&w.sge[0], MR1_ADDR, 8, a->key1);
	w.num_sge = 1;
	post(a, &w);
	CHECK_EQ(e.l[0].sent, 0);
	expect_cqe(a, true, ORDMA_CQE_OP_FLUSH, ORDMA_CQE_LOC_QP_OP_ERR, 0, 0);
	env_close(&e);
}

/* Lost FLUSH answers: a later ACK does not complete it; replayed once */
TEST(test_tp_rc_flush_loss_dup)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;
	uint32_t key3;

	flush_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	key3 = flush_mr(b, ORDMA_ACCESS_LOCAL_WRITE | ORDMA_ACCESS_REMOTE_WRITE |
			ORDMA_ACCESS_FLUSH_GLOBAL |
			ORDMA_ACCESS_FLUSH_PERSISTENT);
	/* the request duplicated on the wire: answered twice */
	e.l[0].dup_nth = 1;
	flush_wr(&w, FL_ADDR, key3, 64, ORDMA_FLUSH_PERSISTENT,
		 ORDMA_FLUSH_LEVEL_RANGE);
	post(a, &w);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_FLUSH, ORDMA_CQE_SUCCESS, 0, 0);
	no_cqe(a, true);
	CHECK_EQ(fwqp(b)->counters.duplicate_requests, 1);
	CHECK_EQ(e.l[1].sent, 2);
	CHECK_EQ(fwqp(b)->msn, 1);

	/* FLUSH answer lost, the WRITE after it acknowledged: the FLUSH is
	 * sent again, answered from the resource, both complete in order
	 */
	e.l[1].drop_nth = e.l[1].sent + 1;
	flush_wr(&w, FL_ADDR, key3, 64, ORDMA_FLUSH_GLOBAL,
		 ORDMA_FLUSH_LEVEL_MR);
	post(a, &w);
	wr_init(&w, ORDMA_WQE_RDMA_WRITE, MR1_ADDR, 16, a->key1);
	w.remote_addr = FL_ADDR + 0x40;
	w.rkey = key3;
	post(a, &w);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_FLUSH, ORDMA_CQE_SUCCESS, 0, 1);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_SUCCESS, 16, 2);
	CHECK_EQ(fwqp(b)->counters.duplicate_requests, 3);
	CHECK_EQ(fwqp(b)->msn, 3);

	/* the request itself lost: the timeout sends it again */
	e.l[0].drop_nth = e.l[0].sent + 1;
	flush_wr(&w, FL_ADDR, key3, 64, ORDMA_FLUSH_GLOBAL,
		 ORDMA_FLUSH_LEVEL_RANGE);
	post(a, &w);
	pump(&e);
	no_cqe(a, true);
	advance(&e, 4096ULL << 10);
	expect_cqe(a, true, ORDMA_CQE_OP_FLUSH, ORDMA_CQE_SUCCESS, 0, 3);
	CHECK_EQ(fwqp(a)->counters.timeouts, 1);
	CHECK_EQ(qp_state(a), ORDMA_QPS_RTS);
	CHECK_EQ(qp_state(b), ORDMA_QPS_RTS);
	env_close(&e);
}

/* max_rd_atomic bounds FLUSH and ATOMIC WRITE in flight as READs */
TEST(test_tp_rc_flush_rd_atomic_limit)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;
	uint32_t key3, i;

	flush_cfg(&c);
	c.max_rd_atomic = 1;
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	key3 = flush_mr(b, ORDMA_ACCESS_LOCAL_WRITE | ORDMA_ACCESS_REMOTE_WRITE |
			ORDMA_ACCESS_FLUSH_GLOBAL);
	for (i = 0; i < 4; i++) {
		if (i & 1)
			aw_wr(&w, FL_ADDR + 8 * i, key3, i);
		else
			flush_wr(&w, FL_ADDR, key3, 8, ORDMA_FLUSH_GLOBAL,
				 ORDMA_FLUSH_LEVEL_RANGE);
		put_wqe(a, &w);
	}
	ring_sq(a);
	CHECK_EQ(e.l[0].sent, 1);
	pump(&e);
	CHECK_EQ(e.l[0].sent, 4);
	for (i = 0; i < 4; i++)
		expect_cqe(a, true, i & 1 ? ORDMA_CQE_OP_ATOMIC_WRITE :
			   ORDMA_CQE_OP_FLUSH, ORDMA_CQE_SUCCESS, i & 1 ? 8 : 0,
			   i);
	env_close(&e);
}

TEST(test_tp_rc_atomic_write)
{
	const struct fake_dma_write *dw;
	struct fw_roce_hdrs h;
	struct qframe f;
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;
	size_t plen;
	uint8_t *tgt;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	tgt = mem(b, MR1_ADDR + 0x300, 24);
	memset(tgt, 0xee, 24);
	aw_wr(&w, MR1_ADDR + 0x308, b->key1, 0x0807060504030201ULL);
	post(a, &w);
	/* RETH (dma_len 8) and the 8 bytes as they are in the WQE */
	if (last_frame(a, &h, &plen)) {
		CHECK_EQ(h.opcode, FW_ROCE_RC_ATOMIC_WRITE);
		CHECK_EQ(h.reth.va, MR1_ADDR + 0x308);
		CHECK_EQ(h.reth.rkey, b->key1);
		CHECK_EQ(h.reth.dma_len, 8);
		CHECK_EQ(plen, 8);
		CHECK(h.ack_req);
	}
	/* delivered by hand: B stores it with one 8-byte DMA write */
	REQUIRE(link_pop(&e.l[0], &f));
	ordma_fw_rx_frame(b->d.fw, f.data, f.len);
	free(f.data);
	dw = fake_recent_write(&b->d.hal, 0);
	if (CHECK(dw)) {
		CHECK_EQ(dw->addr, MR1_ADDR + 0x308);
		CHECK_EQ(dw->len, 8);
	}
	pump(&e);
	if (last_frame(b, &h, &plen)) {
		CHECK_EQ(h.opcode, FW_ROCE_RC_RDMA_READ_RESPONSE_ONLY);
		CHECK(fw_aeth_is_ack(h.aeth.syndrome));
		CHECK_EQ(plen, 0);
	}
	expect_cqe(a, true, ORDMA_CQE_OP_ATOMIC_WRITE, ORDMA_CQE_SUCCESS, 8, 0);
	CHECK_EQ(get64(tgt + 8), 0x0807060504030201ULL);
	CHECK_EQ(tgt[7], 0xee);
	CHECK_EQ(tgt[16], 0xee);

	/* answer lost; B's memory changes meanwhile; the retransmitted
	 * request is a duplicate and must not write again
	 */
	e.l[1].drop_nth = e.l[1].sent + 1;
	aw_wr(&w, MR1_ADDR + 0x310, b->key1, 0x1111111111111111ULL);
	post(a, &w);
	pump(&e);
	no_cqe(a, true);
	CHECK_EQ(get64(tgt + 16), 0x1111111111111111ULL);
	put64(tgt + 16, 42);
	advance(&e, 4096ULL << 10);
	expect_cqe(a, true, ORDMA_CQE_OP_ATOMIC_WRITE, ORDMA_CQE_SUCCESS, 8, 1);
	CHECK_EQ(get64(tgt + 16), 42);
	CHECK_EQ(fwqp(b)->counters.duplicate_requests, 1);
	env_close(&e);
}

/* An ATOMIC WRITE the responder refuses: memory unchanged, both in ERR */
static void aw_error(uint32_t qp_access, bool mr2, bool bad_key,
		     uint64_t raddr, uint8_t a_status, uint8_t b_event)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;
	uint8_t *guard;

	default_cfg(&c);
	c.access = qp_access;
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	guard = mem(b, MR1_ADDR + MR1_LEN - 64, 128);
	memset(guard, 0x5a, 128);
	aw_wr(&w, raddr, (mr2 ? b->key2 : b->key1) ^ (bad_key ? 1 : 0),
	      0x0123456789abcdefULL);
	post(a, &w);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_ATOMIC_WRITE, a_status, 0, 0);
	CHECK_EQ(qp_state(a), ORDMA_QPS_ERR);
	CHECK_EQ(qp_state(b), ORDMA_QPS_ERR);
	CHECK(has_event(b, b_event, b->qpn));
	{
		uint8_t want[128];

		memset(want, 0x5a, sizeof(want));
		/* the last 64 bytes of MR1 and the first 64 of MR2 */
		CHECK(!memcmp(guard, want, sizeof(want)));
	}
	env_close(&e);
}

TEST(test_tp_rc_atomic_write_errors)
{
	const uint32_t all = ORDMA_ACCESS_REMOTE_WRITE |
			     ORDMA_ACCESS_REMOTE_READ |
			     ORDMA_ACCESS_REMOTE_ATOMIC;

	/* misaligned: invalid request */
	aw_error(all, false, false, MR1_ADDR + MR1_LEN - 60,
		 ORDMA_CQE_REM_INV_REQ_ERR, ORDMA_EQE_QP_REQ_ERR);
	/* bad rkey, beyond the MR, MR without REMOTE_WRITE */
	aw_error(all, false, true, MR1_ADDR + MR1_LEN - 64,
		 ORDMA_CQE_REM_ACCESS_ERR, ORDMA_EQE_QP_ACCESS_ERR);
	aw_error(all, false, false, MR1_ADDR + MR1_LEN - 4,
		 ORDMA_CQE_REM_ACCESS_ERR, ORDMA_EQE_QP_ACCESS_ERR);
	aw_error(all, true, false, MR2_ADDR, ORDMA_CQE_REM_ACCESS_ERR,
		 ORDMA_EQE_QP_ACCESS_ERR);
	/* the QP grants atomics and reads but not remote write */
	aw_error(ORDMA_ACCESS_REMOTE_READ | ORDMA_ACCESS_REMOTE_ATOMIC, false,
		 false, MR1_ADDR + MR1_LEN - 64, ORDMA_CQE_REM_INV_REQ_ERR,
		 ORDMA_EQE_QP_REQ_ERR);
}

/* Hand-made requests with bad FETH or ATOMIC WRITE lengths are NAKed */
TEST(test_tp_rc_flush_bad_frames)
{
	static const struct {
		uint8_t opcode, plt, sel;
		uint32_t dma_len;
		size_t plen;
	} cases[] = {
		{ FW_ROCE_RC_FLUSH, 0, 0, 8, 0 },	/* no placement */
		{ FW_ROCE_RC_FLUSH, 4, 0, 8, 0 },	/* unknown type */
		{ FW_ROCE_RC_FLUSH, 1, 2, 8, 0 },	/* unknown level */
		{ FW_ROCE_RC_ATOMIC_WRITE, 0, 0, 16, 8 },	/* dma_len */
		{ FW_ROCE_RC_ATOMIC_WRITE, 0, 0, 8, 4 },	/* payload */
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fw_roce_hdrs h;
		struct env e;
		struct side *a, *b;
		struct tcfg c;
		uint8_t frame[256], pay[8] = { 0 };
		size_t len;

		flush_cfg(&c);
		REQUIRE(env_open(&e, &c));
		a = &e.s[0];
		b = &e.s[1];
		/* a real frame of A as the template: addresses, QPN, PSN */
		{
			struct wr w;
			size_t plen;

			aw_wr(&w, MR1_ADDR, b->key1, 0);
			e.l[0].drop_nth = 1;
			post(a, &w);
			REQUIRE(last_frame(a, &h, &plen));
		}
		h.opcode = cases[i].opcode;
		h.feth.placement = cases[i].plt;
		h.feth.level = cases[i].sel;
		h.reth.dma_len = cases[i].dma_len;
		h.reth.rkey = b->key1;
		h.reth.va = MR1_ADDR;
		h.udp_sport = 0;
		len = fw_roce_build(frame, sizeof(frame), &h, pay,
				    cases[i].plen);
		REQUIRE(len);
		ordma_fw_rx_frame(b->d.fw, frame, len);
		CHECK_EQ(qp_state(b), ORDMA_QPS_ERR);
		CHECK(has_event(b, ORDMA_EQE_QP_REQ_ERR, b->qpn));
		{
			struct fw_roce_hdrs r;
			size_t plen;

			if (last_frame(b, &r, &plen)) {
				CHECK_EQ(r.opcode, FW_ROCE_RC_ACKNOWLEDGE);
				CHECK_EQ(r.aeth.syndrome,
					 fw_aeth_nak(FW_AETH_NAK_INVALID_REQ));
			}
		}
		env_close(&e);
	}
}

/* An answer to a FLUSH that carries payload is a bad response */
TEST(test_tp_rc_flush_bad_response)
{
	struct fw_roce_hdrs h;
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;
	uint8_t frame[256], pay[4] = { 1, 2, 3, 4 };
	size_t plen, len;
	uint32_t key3;

	flush_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	key3 = flush_mr(b, ORDMA_ACCESS_LOCAL_WRITE | ORDMA_ACCESS_REMOTE_WRITE |
			ORDMA_ACCESS_FLUSH_GLOBAL);
	e.l[1].drop_nth = 1;
	flush_wr(&w, FL_ADDR, key3, 8, ORDMA_FLUSH_GLOBAL,
		 ORDMA_FLUSH_LEVEL_RANGE);
	post(a, &w);
	pump(&e);
	no_cqe(a, true);
	/* B's answer (lost on the wire), now with 4 bytes of payload */
	REQUIRE(last_frame(b, &h, &plen));
	CHECK_EQ(h.opcode, FW_ROCE_RC_RDMA_READ_RESPONSE_ONLY);
	h.udp_sport = 0;
	len = fw_roce_build(frame, sizeof(frame), &h, pay, sizeof(pay));
	REQUIRE(len);
	ordma_fw_rx_frame(a->d.fw, frame, len);
	expect_cqe(a, true, ORDMA_CQE_OP_FLUSH, ORDMA_CQE_BAD_RESP_ERR, 0, 0);
	CHECK_EQ(qp_state(a), ORDMA_QPS_ERR);
	env_close(&e);
}

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
	bad_before = drops(b, FW_TP_DROP_BAD_REQ);
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
	CHECK_EQ(drops(b, FW_TP_DROP_BAD_REQ) - bad_before, 4);
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
	CHECK_EQ(b->d.fw->tp.rx_drop[FW_TP_DROP_QKEY], 1);

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
/* The device reads a send WQE once                                    */
/* ------------------------------------------------------------------ */

enum wqe_rewrite {
	REWRITE_INLINE,		/* INLINE set, inline_len far past 256 */
	REWRITE_NUM_SGE,	/* NUM_SGE 31, a 1-byte SGE in MR2 */
	REWRITE_SGE_ADDR,	/* the SGE moved to other bytes */
	REWRITE_NUM,
};

#define REWRITE_OTHER	(MR1_ADDR + 0xc0000)	/* bytes nobody sends */

/* What a process may do to its own SQ after ringing the doorbell */
static void rewrite_wqe(struct side *s, uint32_t index, enum wqe_rewrite how)
{
	uint8_t *p = mem(s, DRV_WQ_ADDR(wq_area(s)) +
			 ((uint64_t)(index & ((1u << SQ_LOG) - 1)) << SQ_SHIFT),
			 1u << SQ_SHIFT);
	struct ordma_send_wqe *q = (struct ordma_send_wqe *)p;
	struct ordma_sge *g = (struct ordma_sge *)(p + ORDMA_SEND_WQE_HDR_SIZE);
	uint32_t ctrl = le32_to_cpu(q->ctrl.ctrl);

	switch (how) {
	case REWRITE_INLINE:
		ctrl |= ORDMA_WQE_INLINE;
		q->ctrl.inline_len = cpu_to_le32(0x7ffff000);
		break;
	case REWRITE_NUM_SGE:
		ctrl = (ctrl & ~ORDMA_WQE_NUM_SGE) |
		       FIELD_PREP(ORDMA_WQE_NUM_SGE, 31);
		sge(&g[0], MR2_ADDR, 1, s->key2);
		memset(g + 1, 0, (1u << SQ_SHIFT) - ORDMA_SEND_WQE_HDR_SIZE -
		       sizeof(*g));
		break;
	default:
		g[0].addr = cpu_to_le64(REWRITE_OTHER);
		break;
	}
	q->ctrl.ctrl = cpu_to_le32(ctrl);
}

/*
 * RC SEND of 100 packets (MTU 256): 64 leave with the doorbell, then the
 * WQE is rewritten; the rest and the retransmission of a lost packet
 * still carry the bytes the WQE named when it was posted.
 */
static void reread_rc_send(enum wqe_rewrite how)
{
	const uint32_t len = 100 * 256 - 10;
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;

	default_cfg(&c);
	c.path_mtu = 1;
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	pattern(mem(a, MR1_ADDR, len), len, 9);
	memset(mem(a, REWRITE_OTHER, len), 0x5a, len);
	memset(mem(b, MR1_ADDR, len + 64), 0xee, len + 64);
	post_recv(b, MR1_ADDR, len + 64);
	e.l[0].drop_nth = 5;
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, len, a->key1);
	post(a, &w);
	CHECK_EQ(e.l[0].sent, FW_TP_WINDOW);
	rewrite_wqe(a, 0, how);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, len, 0);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, len, 0);
	CHECK(!memcmp(mem(b, MR1_ADDR, len), mem(a, MR1_ADDR, len), len));
	CHECK_EQ(mem(b, MR1_ADDR + len, 1)[0], 0xee);
	CHECK(fwqp(a)->counters.retransmits >= 1);
	CHECK_EQ(a->d.fw->tp.tx_drop[FW_TP_TX_BUILD], 0);
	CHECK_EQ(qp_state(a), ORDMA_QPS_RTS);
	env_close(&e);
}

/* UC WRITE of 40 packets: 16 leave with the doorbell, 24 paced later */
static void reread_uc_write(enum wqe_rewrite how)
{
	const uint32_t len = 40 * 1024 - 100;
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;

	uc_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	pattern(mem(a, MR1_ADDR, len), len, 4);
	memset(mem(a, REWRITE_OTHER, len), 0x5a, len);
	memset(mem(b, MR1_ADDR + 0x40000, len + 64), 0, len + 64);
	wr_init(&w, ORDMA_WQE_RDMA_WRITE, MR1_ADDR, len, a->key1);
	w.remote_addr = MR1_ADDR + 0x40000;
	w.rkey = b->key1;
	post(a, &w);
	CHECK_EQ(e.l[0].sent, FW_TP_UC_BURST);
	rewrite_wqe(a, 0, how);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_RDMA_WRITE, ORDMA_CQE_SUCCESS, len, 0);
	CHECK_EQ(e.l[0].sent, 40);
	CHECK(!memcmp(mem(b, MR1_ADDR + 0x40000, len), mem(a, MR1_ADDR, len),
		      len));
	CHECK_EQ(mem(b, MR1_ADDR + 0x40000 + len, 1)[0], 0);
	CHECK_EQ(drops(b, FW_TP_DROP_BAD_REQ), 0);
	uc_quiet(&e);
	env_close(&e);
}

TEST(test_tp_wqe_rewrite_rc_send)
{
	int how;

	for (how = 0; how < REWRITE_NUM; how++) {
		NOTE("rewrite %d", how);
		reread_rc_send((enum wqe_rewrite)how);
	}
}

TEST(test_tp_wqe_rewrite_uc_write)
{
	int how;

	for (how = 0; how < REWRITE_NUM; how++) {
		NOTE("rewrite %d", how);
		reread_uc_write((enum wqe_rewrite)how);
	}
}

/* READ responses and the atomic result land where the WQE said at start */
TEST(test_tp_wqe_rewrite_read_atomic)
{
	const uint32_t len = 6000;
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;
	int how;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	pattern(mem(b, MR1_ADDR + 0x80000, len), len, 5);
	put64(mem(b, MR1_ADDR + 0x100, 8), 1000);
	for (how = 0; how < REWRITE_NUM; how++) {
		uint32_t index = a->sq_pi;

		NOTE("rewrite %d", how);
		memset(mem(a, MR1_ADDR + 0x90000, len + 64), 0, len + 64);
		memset(mem(a, REWRITE_OTHER, len), 0x5a, len);
		memset(mem(a, MR2_ADDR, 16), 0x5a, 16);
		wr_init(&w, ORDMA_WQE_RDMA_READ, MR1_ADDR + 0x90000, len,
			a->key1);
		w.remote_addr = MR1_ADDR + 0x80000;
		w.rkey = b->key1;
		post(a, &w);
		rewrite_wqe(a, index, how);
		pump(&e);
		expect_cqe(a, true, ORDMA_CQE_OP_RDMA_READ, ORDMA_CQE_SUCCESS,
			   len, index);
		CHECK(!memcmp(mem(a, MR1_ADDR + 0x90000, len),
			      mem(b, MR1_ADDR + 0x80000, len), len));
		CHECK_EQ(mem(a, MR1_ADDR + 0x90000 + len, 1)[0], 0);
		CHECK(all_bytes(mem(a, REWRITE_OTHER, len), len, 0x5a));
		CHECK(all_bytes(mem(a, MR2_ADDR, 16), 16, 0x5a));

		index = a->sq_pi;
		memset(mem(a, MR1_ADDR + 0x200, 8), 0, 8);
		wr_init(&w, ORDMA_WQE_ATOMIC_FETCH_ADD, MR1_ADDR + 0x200, 8,
			a->key1);
		w.remote_addr = MR1_ADDR + 0x100;
		w.rkey = b->key1;
		w.compare_add = 1;
		post(a, &w);
		rewrite_wqe(a, index, how);
		pump(&e);
		expect_cqe(a, true, ORDMA_CQE_OP_FETCH_ADD, ORDMA_CQE_SUCCESS,
			   8, index);
		CHECK_EQ(get64(mem(a, MR1_ADDR + 0x200, 8)), 1000u + how);
		CHECK(all_bytes(mem(a, REWRITE_OTHER, 8), 8, 0x5a));
		CHECK(all_bytes(mem(a, MR2_ADDR, 16), 16, 0x5a));
	}
	CHECK_EQ(get64(mem(b, MR1_ADDR + 0x100, 8)), 1000u + REWRITE_NUM);
	CHECK_EQ(qp_state(a), ORDMA_QPS_RTS);
	env_close(&e);
}

/*
 * A receive WQE is read once, when the first packet takes it: rewriting
 * it (NUM_SGE 31, the SGE moved to MR2) between packets of the message
 * changes nothing.
 */
static void recv_rewrite_case(bool srq)
{
	const uint32_t len = 20 * 256;
	struct env e;
	struct side *a, *b;
	struct ordma_recv_wqe *r;
	struct ordma_sge *g;
	struct qframe f;
	struct tcfg c;
	struct wr w;
	uint8_t *p;

	default_cfg(&c);
	c.path_mtu = 1;
	c.srq_b = srq;
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	pattern(mem(a, MR1_ADDR, len), len, 11);
	memset(mem(b, MR1_ADDR, len + 64), 0xee, len + 64);
	memset(mem(b, MR2_ADDR, len), 0x5a, len);
	if (srq) {
		post_srq(b, MR1_ADDR, len + 64);
		p = mem(b, DRV_WQ_ADDR(QP_AREA + 1), 32);
	} else {
		post_recv(b, MR1_ADDR, len + 64);
		p = mem(b, DRV_WQ_ADDR(QP_AREA) + 0x8000, 1u << RQ_SHIFT);
	}
	wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR, len, a->key1);
	post(a, &w);
	REQUIRE(link_pop(&e.l[0], &f));
	ordma_fw_rx_frame(b->d.fw, f.data, f.len);
	free(f.data);
	r = (struct ordma_recv_wqe *)p;
	g = (struct ordma_sge *)(p + sizeof(*r));
	r->num_sge = cpu_to_le32(31);
	sge(g, MR2_ADDR, len, b->key2);
	pump(&e);
	expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS, len, 0);
	expect_cqe(b, false, ORDMA_CQE_OP_RECV, ORDMA_CQE_SUCCESS, len, 0);
	CHECK(!memcmp(mem(b, MR1_ADDR, len), mem(a, MR1_ADDR, len), len));
	CHECK_EQ(mem(b, MR1_ADDR + len, 1)[0], 0xee);
	CHECK(all_bytes(mem(b, MR2_ADDR, len), len, 0x5a));
	CHECK_EQ(qp_state(b), ORDMA_QPS_RTS);
	env_close(&e);
}

TEST(test_tp_recv_wqe_rewrite)
{
	recv_rewrite_case(false);
	recv_rewrite_case(true);
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

/* ------------------------------------------------------------------ */
/* More WQEs than start at once, one doorbell                          */
/* ------------------------------------------------------------------ */

#define MANY_WQES	40

TEST(test_tp_many_wqes_ud)
{
	struct ordma_cqe cqe;
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct wr w;
	uint32_t ah, i;

	default_cfg(&c);
	c.type = ORDMA_QPT_UD;
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	REQUIRE_EQ(create_ah(a, b, &ah), OK);
	pattern(mem(a, MR1_ADDR, 64 * MANY_WQES), 64 * MANY_WQES, 2);
	for (i = 0; i < MANY_WQES; i++)
		post_recv(b, MR1_ADDR + 0x10000 + i * 128, 128);
	for (i = 0; i < MANY_WQES; i++) {
		wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR + i * 64, 64, a->key1);
		w.ah = ah;
		w.remote_qpn = b->qpn;
		w.remote_qkey = 0x1234;
		put_wqe(a, &w);
	}
	ring_sq(a);
	CHECK_EQ(e.l[0].sent, MANY_WQES);
	for (i = 0; i < MANY_WQES; i++)
		if (!expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS,
				64, i))
			break;
	no_cqe(a, true);
	pump(&e);
	for (i = 0; i < MANY_WQES; i++) {
		if (!CHECK(cqe_next(b, false, &cqe)))
			break;
		CHECK_EQ(cqe.status, ORDMA_CQE_SUCCESS);
		CHECK(!memcmp(mem(b, MR1_ADDR + 0x10000 + i * 128 + 40, 64),
			      mem(a, MR1_ADDR + i * 64, 64), 64));
	}
	CHECK_EQ(fwqp(a)->sq.ci, MANY_WQES);
	env_close(&e);
}

/* REG_MR and LOCAL_INV of one fast-reg MR, alternating */
TEST(test_tp_many_wqes_local)
{
	struct ordma_aq_cmd cmd;
	struct env e;
	struct side *b;
	struct tcfg c;
	struct wr w;
	uint32_t frkey, i;
	uint64_t *pages;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	b = &e.s[1];
	drv_cmd_init(&cmd, ORDMA_CMD_REG_MR);
	cmd.reg_mr.pdn = cpu_to_le32(b->pdn);
	cmd.reg_mr.flags = ORDMA_MR_FAST_REG;
	cmd.reg_mr.max_pages = cpu_to_le16(4);
	cmd.reg_mr.key = 0x33;
	REQUIRE_EQ(drv_exec(&b->d, &cmd), OK);
	frkey = le32_to_cpu(b->d.last_comp.handle.handle);
	pages = (uint64_t *)(void *)mem(b, DRV_SCRATCH_ADDR, 16);
	pages[0] = cpu_to_le64(GUARD_ADDR);
	pages[1] = cpu_to_le64(GUARD_ADDR + 0x1000);
	for (i = 0; i < MANY_WQES; i++) {
		memset(&w, 0, sizeof(w));
		w.flags = ORDMA_WQE_SIGNALED;
		if (i % 2) {
			w.opcode = ORDMA_WQE_LOCAL_INV;
			w.imm_inv = frkey;
		} else {
			w.opcode = ORDMA_WQE_REG_MR;
			w.reg.iova = cpu_to_le64(0x7000000000ULL);
			w.reg.length = cpu_to_le64(0x2000);
			w.reg.page_list = cpu_to_le64(DRV_SCRATCH_ADDR);
			w.reg.key = cpu_to_le32(frkey);
			w.reg.num_pages = cpu_to_le16(2);
			w.reg.page_shift = 12;
			w.reg.access = DRV_ACCESS_ALL;
		}
		put_wqe(b, &w);
	}
	ring_sq(b);
	for (i = 0; i < MANY_WQES; i++)
		if (!expect_cqe(b, true, i % 2 ? ORDMA_CQE_OP_LOCAL_INV :
				ORDMA_CQE_OP_REG_MR, ORDMA_CQE_SUCCESS, 0, i))
			break;
	no_cqe(b, true);
	CHECK_EQ(fwqp(b)->sq.ci, MANY_WQES);
	CHECK_EQ(qp_state(b), ORDMA_QPS_RTS);
	env_close(&e);
}

/*
 * RC: 32 SENDs start, one ACK covers them all (the others were lost);
 * the 8 that waited for a slot start on that ACK.
 */
TEST(test_tp_many_wqes_rc)
{
	struct env e;
	struct side *a, *b;
	struct tcfg c;
	struct qframe f;
	struct wr w;
	uint32_t i;

	default_cfg(&c);
	REQUIRE(env_open(&e, &c));
	a = &e.s[0];
	b = &e.s[1];
	pattern(mem(a, MR1_ADDR, 64 * MANY_WQES), 64 * MANY_WQES, 7);
	for (i = 0; i < MANY_WQES; i++)
		post_recv(b, MR1_ADDR + 0x10000 + i * 64, 64);
	for (i = 0; i < MANY_WQES; i++) {
		wr_init(&w, ORDMA_WQE_SEND, MR1_ADDR + i * 64, 64, a->key1);
		put_wqe(a, &w);
	}
	ring_sq(a);
	CHECK_EQ(e.l[0].sent, FW_TP_MAX_WQE);
	while (link_pop(&e.l[0], &f)) {
		ordma_fw_rx_frame(b->d.fw, f.data, f.len);
		free(f.data);
	}
	/* keep only the newest ACK: it acknowledges every PSN before it */
	while (e.l[1].tail - e.l[1].head > 1 && link_pop(&e.l[1], &f))
		free(f.data);
	pump(&e);
	for (i = 0; i < MANY_WQES; i++)
		if (!expect_cqe(a, true, ORDMA_CQE_OP_SEND, ORDMA_CQE_SUCCESS,
				64, i))
			break;
	no_cqe(a, true);
	CHECK_EQ(e.l[0].sent, MANY_WQES);
	CHECK(!memcmp(mem(b, MR1_ADDR + 0x10000, 64 * MANY_WQES),
		      mem(a, MR1_ADDR, 64 * MANY_WQES), 64 * MANY_WQES));
	env_close(&e);
}
