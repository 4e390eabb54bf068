// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The two-device fixture of the transport tests (pair.h).
 */
#include <stdlib.h>
#include <string.h>

#include "link.h"
#include "ordma_test.h"
#include "pair.h"

/* ------------------------------------------------------------------ */
/* Two devices and a wire                                              */
/* ------------------------------------------------------------------ */

/* Some QP of the device has READ response or UC send bursts waiting
 * for the timer (not for the end of a PAUSE: the tests move the clock
 * through a pause themselves)
 */
bool read_bursts_due(struct ordma_fw *fw)
{
	uint32_t qpn;

	for (qpn = FW_FIRST_QPN; qpn < FW_MAX_QP; qpn++) {
		struct fw_qp *qp = fw_qp_lookup(fw, qpn);

		if (qp && ((qp->resp.read_deadline && !qp->resp.read_paused) ||
			   (qp->req.pace_deadline && !qp->req.pause_held)))
			return true;
	}
	return false;
}

unsigned long pump(struct env *e)
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
			if (!link_deliver(&e->l[i], e->s[!i].d.fw))
				continue;
			busy = true;
			n++;
		}
	}
	return n;
}

void advance(struct env *e, uint64_t ns)
{
	fake_advance(&e->s[0].d.hal, ns);
	fake_advance(&e->s[1].d.hal, ns);
	pump(e);
}

void fill_gid(struct side *s, int i, bool ipv6)
{
	static const uint8_t v4[16] = { [10] = 0xff, [11] = 0xff, 10, 0, 0 };
	static const uint8_t v6[16] = { 0xfd, 0x00, 0x0a, [14] = 0x01 };

	memcpy(s->gid, ipv6 ? v6 : v4, 16);
	s->gid[15] = (uint8_t)(1 + i);
	s->mac[0] = 0x02;
	s->mac[5] = (uint8_t)(0x0a + i);
}

void ib_sl_to_vl(uint8_t table[8])
{
	unsigned int sl;

	for (sl = 0; sl < 16; sl += 2)
		table[sl / 2] = (uint8_t)(((sl % 8) ^ 1) << 4 |
					  (((sl + 1) % 8) ^ 1));
}

/* What the subnet manager would have done to the port */
static void ib_port_activate(struct side *s, int i, const struct tcfg *c)
{
	struct ordma_fw *fw = s->d.fw;

	s->lid = IB_LID(i);
	fw->ib.lid = s->lid;
	fw->ib.lmc = c->lmc;
	fw->ib.state = ORDMA_PORT_ACTIVE;
	ib_sl_to_vl(fw->ib.sl_to_vl);
}

bool side_open(struct side *s, int i, const struct tcfg *c)
{
	struct ordma_fw_config cfg;

	drv_default_config(&cfg);
	cfg.mac[5] = (uint8_t)(0x0a + i);
	cfg.mac[0] = 0x02;
	if (c->ib)
		cfg.link_layer = ORDMA_LINK_LAYER_INFINIBAND;
	if (!drv_open_cfg(&s->d, &cfg, 5))
		return false;
	fill_gid(s, i, c->ipv6);
	memcpy(s->mac, cfg.mac, 6);
	if (c->ib) {
		/* the port's one GID: the default prefix and the port GUID */
		memset(s->gid, 0, 8);
		s->gid[0] = 0xfe;
		s->gid[1] = 0x80;
		ordma_fw_mac_to_eui64(cfg.mac, s->gid + 8);
	}
	s->cfg = *c;
	if (c->ib)
		ib_port_activate(s, i, c);
	if (!drv_eq_open(&s->d, &s->async, ORDMA_EQ_TYPE_ASYNC, 0, 10) ||
	    !drv_eq_open(&s->d, &s->comp, ORDMA_EQ_TYPE_COMP, 1, 8) ||
	    (c->iwarp && drv_set_rdma_protocol(&s->d,
					       ORDMA_PORT_PROTO_IWARP) != OK) ||
	    (!c->ib && drv_port_up(&s->d) != OK) ||
	    (c->port_mtu && drv_set_port(&s->d, ORDMA_SET_PORT_MTU, c->port_mtu,
					 NULL, 0, 0) != OK) ||
	    (c->iwarp ? drv_add_ip_gid(&s->d, 0, s->gid, s->mac) :
			drv_add_gid(&s->d, 0, s->gid, s->mac,
				    c->vlan ? c->vlan : ORDMA_VLAN_NONE)) != OK ||
	    drv_alloc_pd(&s->d, 0, &s->pdn) != OK ||
	    !drv_cq_open(&s->d, &s->scq, 0, 0, s->comp.eqn, 10) ||
	    !drv_cq_open(&s->d, &s->rcq, 1, 0, s->comp.eqn, 10) ||
	    drv_reg_mr_contig(&s->d, s->pdn, 0, MR1_ADDR, MR1_ADDR, MR1_LEN,
			      c->iwarp ? DRV_ACCESS_ALL &
					 ~ORDMA_ACCESS_REMOTE_ATOMIC :
					 DRV_ACCESS_ALL,
			      0x11, &s->key1) != OK ||
	    drv_reg_mr_contig(&s->d, s->pdn, 0, MR2_ADDR, MR2_ADDR, MR2_LEN,
			      ORDMA_ACCESS_LOCAL_WRITE, 0x22, &s->key2) != OK)
		return false;
	return true;
}

void fill_av(struct ordma_av *av, const struct tcfg *c,
	     const struct side *peer, uint8_t hop_limit, uint8_t tclass)
{
	memset(av, 0, sizeof(*av));
	memcpy(av->dgid, peer->gid, 16);
	av->hop_limit = hop_limit;
	av->traffic_class = tclass;
	av->vlan_id = cpu_to_le16(ORDMA_VLAN_NONE);
	if (!c->ib) {
		memcpy(av->dmac, peer->mac, 6);
		return;
	}
	/* both sides send with the same path bits: the peer's SLID */
	av->dlid = cpu_to_le16(peer->lid | c->path_bits);
	av->sl = c->sl;
	av->src_path_bits = c->path_bits;
	av->ib_flags = c->ib_global ? ORDMA_AV_IB_GLOBAL : 0;
}

void fill_attr(struct ordma_qp_attr *a, uint32_t mask, uint8_t next,
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
				      c->type == ORDMA_QPT_SMI ? 0 : 0x1234);
	if (mask & A(AV))
		fill_av(&a->av, c, peer, 64, 0);
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

uint8_t qp_step(struct env *e, int i, uint8_t cur, uint8_t next,
		const struct tcfg *c)
{
	struct fw_qp_transition rule;
	struct ordma_qp_attr a;
	uint32_t mask;

	/* the GSI and SMI QPs follow the UD rules */
	fw_qp_transition_rule(c->type == ORDMA_QPT_GSI ||
			      c->type == ORDMA_QPT_SMI ? ORDMA_QPT_UD : c->type,
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

uint8_t qp_state(struct side *s)
{
	struct ordma_qp_attr attr;

	if (drv_query_qp(&s->d, s->qpn, &attr) != OK)
		return 0xff;
	return attr.state;
}

uint32_t sq_psn(struct side *s)
{
	struct ordma_qp_attr attr;

	if (drv_query_qp(&s->d, s->qpn, &attr) != OK)
		return UINT32_MAX;
	return le32_to_cpu(attr.sq_psn);
}

uint32_t rq_psn(struct side *s)
{
	struct ordma_qp_attr attr;

	if (drv_query_qp(&s->d, s->qpn, &attr) != OK)
		return UINT32_MAX;
	return le32_to_cpu(attr.rq_psn);
}

struct fw_qp *fwqp(struct side *s)
{
	return fw_qp_lookup(s->d.fw, s->qpn);
}

void default_cfg(struct tcfg *c)
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

void run_for(struct env *e, uint64_t ns)
{
	uint64_t end = e->s[0].d.hal.now_ns + ns;

	while (e->s[0].d.hal.now_ns < end) {
		uint64_t t0 = e->s[0].d.hal.timer_deadline;
		uint64_t t1 = e->s[1].d.hal.timer_deadline;
		uint64_t next = t0 < t1 ? t0 : t1;

		pump(e);
		if (next > end)
			next = end;
		if (next < e->s[0].d.hal.now_ns)
			next = e->s[0].d.hal.now_ns;
		fake_advance(&e->s[0].d.hal, next - e->s[0].d.hal.now_ns);
		fake_advance(&e->s[1].d.hal, next - e->s[1].d.hal.now_ns);
	}
	pump(e);
}

/* An iWARP QP as rdma_cm leaves it before connecting: INIT, RTR */
static uint8_t iw_qp_to(struct side *s, uint8_t state, uint32_t access)
{
	struct ordma_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.attr_mask = cpu_to_le32(A(STATE) | (state == ORDMA_QPS_INIT ?
			A(ACCESS_FLAGS) | A(PKEY_INDEX) | A(PORT) : 0));
	a.state = state;
	a.access_flags = cpu_to_le32(state == ORDMA_QPS_INIT ? access : 0);
	a.port = state == ORDMA_QPS_INIT ? 1 : 0;
	return drv_modify_qp(&s->d, s->qpn, &a);
}

/* A's QP connects to B's through B's listener: both in RTS */
static bool iw_connect(struct env *e, const struct tcfg *c)
{
	struct side *a = &e->s[0], *b = &e->s[1];
	struct ordma_iw_conn_params p;
	struct ordma_eqe eqe;
	uint32_t l;
	int i;

	for (i = 0; i < 2; i++)
		if (iw_qp_to(&e->s[i], ORDMA_QPS_INIT, c->access) != OK ||
		    iw_qp_to(&e->s[i], ORDMA_QPS_RTR, 0) != OK) {
			NOTE("side %d: iWARP QP to RTR failed", i);
			return false;
		}
	if (drv_iw_listen(&b->d, IW_PORT_B, 4, &l) != OK)
		return false;
	memset(&p, 0, sizeof(p));
	memcpy(p.remote_ip, b->gid, 16);
	p.remote_port = cpu_to_le16(IW_PORT_B);
	memcpy(p.next_hop_mac, b->mac, 6);
	p.qpn = cpu_to_le32(a->qpn);
	p.ird = cpu_to_le16(c->max_rd_atomic);
	p.ord = cpu_to_le16(c->max_rd_atomic);
	if (drv_iw_conn_cmd(&a->d, ORDMA_CMD_IW_CONNECT, &p, &a->iw_conn) != OK)
		return false;
	pump(e);
	do {
		if (!drv_eq_next(&b->d, &b->async, &eqe)) {
			NOTE("no connection request");
			return false;
		}
		drv_eq_update(&b->d, &b->async, false);
	} while (eqe_type(&eqe) != ORDMA_EQE_IW_CONN_REQUEST);
	memset(&p, 0, sizeof(p));
	p.conn = eqe.data[0];
	p.qpn = cpu_to_le32(b->qpn);
	p.ird = cpu_to_le16(c->max_rd_atomic);
	p.ord = cpu_to_le16(c->max_rd_atomic);
	b->iw_conn = le32_to_cpu(eqe.data[0]);
	if (drv_iw_conn_cmd(&b->d, ORDMA_CMD_IW_ACCEPT, &p, NULL) != OK)
		return false;
	pump(e);
	if (qp_state(a) != ORDMA_QPS_RTS || qp_state(b) != ORDMA_QPS_RTS) {
		NOTE("iWARP QPs not in RTS: %u %u", qp_state(a), qp_state(b));
		return false;
	}
	return true;
}

bool env_open(struct env *e, const struct tcfg *c)
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
	if (c->iwarp)
		return iw_connect(e, c);
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

void env_close(struct env *e)
{
	int i;

	for (i = 0; i < 2; i++) {
		drv_close(&e->s[i].d);
		link_free(&e->l[i]);
	}
}

uint8_t *mem(struct side *s, uint64_t addr, size_t len)
{
	return drv_mem(&s->d, addr, len);
}

void pattern(uint8_t *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 7 + seed + (i >> 8));
}

/* ------------------------------------------------------------------ */
/* Work requests                                                       */
/* ------------------------------------------------------------------ */

void sge(struct ordma_sge *g, uint64_t addr, uint32_t len,
	 uint32_t key)
{
	g->addr = cpu_to_le64(addr);
	g->length = cpu_to_le32(len);
	g->lkey = cpu_to_le32(key);
}

void wr_init(struct wr *w, uint8_t opcode, uint64_t laddr,
	     uint32_t len, uint32_t lkey)
{
	memset(w, 0, sizeof(*w));
	w->opcode = opcode;
	w->flags = ORDMA_WQE_SIGNALED;
	sge(&w->sge[0], laddr, len, lkey);
	w->num_sge = 1;
}

unsigned int wq_area(const struct side *s)
{
	return s->wq_area ? s->wq_area : QP_AREA;
}

void put_wqe(struct side *s, const struct wr *w)
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
	case ORDMA_WQE_RDMA_READ_INV:
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

void ring_sq(struct side *s)
{
	drv_db(&s->d, 0, ORDMA_DB_SQ, s->qpn, s->sq_pi, 0);
}

void post(struct side *s, const struct wr *w)
{
	put_wqe(s, w);
	ring_sq(s);
}

void post_recv_sges(struct side *s, const struct ordma_sge *g,
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

void post_srq(struct side *s, uint64_t addr, uint32_t len)
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

void post_recv(struct side *s, uint64_t addr, uint32_t len)
{
	struct ordma_sge g;

	sge(&g, addr, len, s->key1);
	post_recv_sges(s, &g, 1);
}

bool cqe_next(struct side *s, bool send, struct ordma_cqe *c)
{
	return drv_cq_next(&s->d, send ? &s->scq : &s->rcq, c);
}

bool expect_cqe(struct side *s, bool send, uint8_t opcode,
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

bool no_cqe(struct side *s, bool send)
{
	struct ordma_cqe c;

	return CHECK(!cqe_next(s, send, &c));
}

struct ordma_port_stats stats(struct side *s)
{
	struct ordma_port_stats st;

	memset(&st, 0, sizeof(st));
	drv_stats(&s->d, &st);
	return st;
}

unsigned int eqe_type(const struct ordma_eqe *eqe)
{
	return FIELD_GET(ORDMA_EQE_TYPE, le32_to_cpu(eqe->type));
}

bool has_event(struct side *s, unsigned int type, uint32_t d0)
{
	struct ordma_eqe eqe;

	while (drv_eq_next(&s->d, &s->async, &eqe))
		if (eqe_type(&eqe) == type && le32_to_cpu(eqe.data[0]) == d0)
			return true;
	return false;
}

/* ------------------------------------------------------------------ */
/* Atomics                                                             */
/* ------------------------------------------------------------------ */

uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

void put64(uint8_t *p, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* ------------------------------------------------------------------ */
/* UD                                                                  */
/* ------------------------------------------------------------------ */

uint8_t create_ah(struct side *s, const struct side *peer,
		  uint32_t *ah)
{
	struct ordma_aq_cmd cmd;
	uint8_t status;

	drv_cmd_init(&cmd, ORDMA_CMD_CREATE_AH);
	cmd.create_ah.pdn = cpu_to_le32(s->pdn);
	fill_av(&cmd.create_ah.av, &s->cfg, peer, 7, 0x20);
	status = drv_exec(&s->d, &cmd);
	*ah = le32_to_cpu(s->d.last_comp.handle.handle);
	return status;
}

/* ------------------------------------------------------------------ */
/* UC                                                                  */
/* ------------------------------------------------------------------ */

void uc_cfg(struct tcfg *c)
{
	default_cfg(c);
	c->type = ORDMA_QPT_UC;
	c->access = ORDMA_ACCESS_REMOTE_WRITE;
}

uint64_t drops(struct side *s, enum ordma_roce_rx_drop why)
{
	return stats(s).roce_rx_drop_reason[why];
}

void uc_quiet(struct env *e)
{
	CHECK_EQ(e->l[1].sent, 0);
	CHECK_EQ(stats(&e->s[1]).roce_acks_sent, 0);
	CHECK_EQ(stats(&e->s[1]).roce_naks_sent, 0);
	CHECK_EQ(qp_state(&e->s[0]), ORDMA_QPS_RTS);
	CHECK_EQ(qp_state(&e->s[1]), ORDMA_QPS_RTS);
}

bool all_bytes(const uint8_t *p, size_t len, uint8_t v)
{
	while (len--)
		if (*p++ != v)
			return false;
	return true;
}

void flush_cfg(struct tcfg *c)
{
	default_cfg(c);
	c->access = FL_QP_ACCESS;
}

void flush_wr(struct wr *w, uint64_t raddr, uint32_t rkey,
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

void aw_wr(struct wr *w, uint64_t raddr, uint32_t rkey, uint64_t v)
{
	memset(w, 0, sizeof(*w));
	w->opcode = ORDMA_WQE_ATOMIC_WRITE;
	w->flags = ORDMA_WQE_SIGNALED;
	w->remote_addr = raddr;
	w->rkey = rkey;
	memcpy(w->value, &v, 8);
}

uint32_t fast_reg_mr(struct side *s, uint64_t iova, uint64_t addr,
		     unsigned int npages, uint32_t wqe_idx)
{
	struct ordma_aq_cmd cmd;
	uint64_t *pages;
	struct wr w;
	uint32_t key;
	unsigned int i;

	drv_cmd_init(&cmd, ORDMA_CMD_REG_MR);
	cmd.reg_mr.pdn = cpu_to_le32(s->pdn);
	cmd.reg_mr.flags = ORDMA_MR_FAST_REG;
	cmd.reg_mr.max_pages = cpu_to_le16(npages);
	cmd.reg_mr.key = 0x33;
	if (drv_exec(&s->d, &cmd) != OK)
		return 0;
	key = (le32_to_cpu(s->d.last_comp.handle.handle) >> 8) << 8 | 0x44;
	pages = (uint64_t *)(void *)mem(s, DRV_SCRATCH_ADDR, npages * 8);
	for (i = 0; i < npages; i++)
		pages[i] = cpu_to_le64(addr + i * 0x1000ULL);
	memset(&w, 0, sizeof(w));
	w.opcode = ORDMA_WQE_REG_MR;
	w.flags = ORDMA_WQE_SIGNALED;
	w.reg.iova = cpu_to_le64(iova);
	w.reg.length = cpu_to_le64(npages * 0x1000ULL);
	w.reg.page_list = cpu_to_le64(DRV_SCRATCH_ADDR);
	w.reg.key = cpu_to_le32(key);
	w.reg.num_pages = cpu_to_le16(npages);
	w.reg.page_shift = 12;
	/* no atomics: an iWARP port refuses them */
	w.reg.access = DRV_ACCESS_ALL & ~ORDMA_ACCESS_REMOTE_ATOMIC;
	post(s, &w);
	if (!expect_cqe(s, true, ORDMA_CQE_OP_REG_MR, ORDMA_CQE_SUCCESS, 0,
			wqe_idx))
		return 0;
	return key;
}
