// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Minimal test driver for the firmware unit tests.
 */
#include <string.h>

#include "drv.h"

const uint8_t drv_bcast_mac[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

void drv_default_config(struct ordma_fw_config *cfg)
{
	static const uint8_t mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };

	memset(cfg, 0, sizeof(*cfg));
	memcpy(cfg->mac, mac, sizeof(mac));
	memcpy(cfg->serial, "ORD123456", 9);
	cfg->num_vectors = 8;
	cfg->num_db_pages = 256;
	cfg->speed_mbps = 25000;
}

bool drv_create(struct drv *d, const struct ordma_fw_config *cfg)
{
	memset(d, 0, sizeof(*d));
	if (!fake_hal_init(&d->hal))
		return false;
	d->cfg = *cfg;
	d->hal.num_vectors = cfg->num_vectors;
	d->hal.ib_port = cfg->link_layer == ORDMA_LINK_LAYER_INFINIBAND;
	d->ops = fake_hal_ops;
	if (fake_hal_untraced)
		d->ops.trace = NULL;
	d->fw = ordma_fw_create(&d->ops, &d->hal, cfg);
	d->hal.fw = d->fw;
	d->next_token = 0x100;
	if (!d->fw) {
		fake_hal_fini(&d->hal);
		return false;
	}
	return true;
}

bool drv_enable(struct drv *d, unsigned int log_depth)
{
	d->log_depth = log_depth;
	d->aq_pi = 0;
	memset(drv_mem(d, DRV_ACQ_ADDR, 0x8000), 0, 0x8000);
	drv_wr(d, ORDMA_REG_AQ_BASE_LO, (uint32_t)DRV_AQ_ADDR);
	drv_wr(d, ORDMA_REG_AQ_BASE_HI, (uint32_t)(DRV_AQ_ADDR >> 32));
	drv_wr(d, ORDMA_REG_ACQ_BASE_LO, (uint32_t)DRV_ACQ_ADDR);
	drv_wr(d, ORDMA_REG_ACQ_BASE_HI, (uint32_t)(DRV_ACQ_ADDR >> 32));
	drv_wr(d, ORDMA_REG_AQ_CFG, FIELD_PREP(ORDMA_AQ_CFG_LOG_DEPTH, log_depth));
	drv_wr(d, ORDMA_REG_CTRL, ORDMA_CTRL_ENABLE);
	return drv_rd(d, ORDMA_REG_STATUS) == ORDMA_STATUS_READY;
}

bool drv_open_cfg(struct drv *d, const struct ordma_fw_config *cfg,
		  unsigned int log_depth)
{
	if (!drv_create(d, cfg))
		return false;
	if (!drv_enable(d, log_depth)) {
		drv_close(d);
		return false;
	}
	return true;
}

bool drv_open(struct drv *d, unsigned int log_depth)
{
	struct ordma_fw_config cfg;

	drv_default_config(&cfg);
	return drv_open_cfg(d, &cfg, log_depth);
}

void drv_close(struct drv *d)
{
	ordma_fw_destroy(d->fw);
	d->fw = NULL;
	fake_hal_fini(&d->hal);
}

uint32_t drv_rd(struct drv *d, uint32_t off)
{
	return (uint32_t)ordma_fw_reg_read(d->fw, off, 4);
}

void drv_wr(struct drv *d, uint32_t off, uint32_t val)
{
	ordma_fw_reg_write(d->fw, off, val, 4);
}

void *drv_mem(struct drv *d, uint64_t addr, size_t len)
{
	return fake_mem(&d->hal, addr, len);
}

/* ------------------------------------------------------------------ */
/* Admin queue                                                         */
/* ------------------------------------------------------------------ */

void drv_cmd_init(struct ordma_aq_cmd *cmd, uint8_t opcode)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->hdr.opcode = opcode;
}

void drv_queue(struct drv *d, struct ordma_aq_cmd *cmd)
{
	uint32_t slot = d->aq_pi & ((1u << d->log_depth) - 1);

	cmd->hdr.token = cpu_to_le16(d->next_token++);
	memcpy(drv_mem(d, DRV_AQ_ADDR + slot * ORDMA_AQ_CMD_SIZE,
		       ORDMA_AQ_CMD_SIZE), cmd, sizeof(*cmd));
	d->aq_pi++;
}

void drv_ring_aq(struct drv *d)
{
	drv_wr(d, ORDMA_REG_AQ_DB, d->aq_pi);
}

bool drv_comp(struct drv *d, unsigned int back, struct ordma_aq_comp *comp)
{
	uint16_t index = (uint16_t)(d->aq_pi - 1 - back);
	uint32_t slot = index & ((1u << d->log_depth) - 1);
	bool phase = !((index >> d->log_depth) & 1);
	uint32_t flags;

	memcpy(comp, drv_mem(d, DRV_ACQ_ADDR + slot * ORDMA_AQ_COMP_SIZE,
			     ORDMA_AQ_COMP_SIZE), sizeof(*comp));
	flags = le32_to_cpu(comp->flags);
	return !!(flags & ORDMA_COMP_PHASE) == phase;
}

uint8_t drv_exec(struct drv *d, struct ordma_aq_cmd *cmd)
{
	struct ordma_aq_comp comp;

	drv_queue(d, cmd);
	drv_ring_aq(d);
	if (!drv_comp(d, 0, &comp) || comp.token != cmd->hdr.token) {
		memset(&d->last_comp, 0, sizeof(d->last_comp));
		return DRV_STATUS_NO_COMPLETION;
	}
	d->last_comp = comp;
	return comp.status;
}

uint32_t drv_syndrome(const struct drv *d)
{
	return le32_to_cpu(d->last_comp.syndrome);
}

uint8_t drv_simple(struct drv *d, uint8_t opcode)
{
	struct ordma_aq_cmd cmd;

	drv_cmd_init(&cmd, opcode);
	return drv_exec(d, &cmd);
}

uint8_t drv_health(struct drv *d, struct ordma_comp_health *health)
{
	uint8_t status = drv_simple(d, ORDMA_CMD_HEALTH);

	*health = d->last_comp.health;
	return status;
}

uint8_t drv_query(struct drv *d, uint8_t opcode, uint32_t port, void *out,
		  size_t len)
{
	struct ordma_aq_cmd cmd;
	uint8_t status;

	drv_cmd_init(&cmd, opcode);
	cmd.query.buf_addr = cpu_to_le64(DRV_BUF_ADDR);
	cmd.query.buf_len = cpu_to_le32((uint32_t)len);
	cmd.query.port = cpu_to_le32(port);
	memset(drv_mem(d, DRV_BUF_ADDR, ORDMA_AQ_MAX_BUF), 0xa5,
	       ORDMA_AQ_MAX_BUF);
	status = drv_exec(d, &cmd);
	if (out)
		memcpy(out, drv_mem(d, DRV_BUF_ADDR, len), len);
	return status;
}

uint8_t drv_set_port(struct drv *d, uint32_t mask, uint32_t mtu,
		     const uint8_t *mac, uint8_t admin_up, uint8_t rx_mode)
{
	struct ordma_aq_cmd cmd;

	drv_cmd_init(&cmd, ORDMA_CMD_SET_PORT);
	cmd.set_port.port = cpu_to_le32(ORDMA_PORT_NUM);
	cmd.set_port.field_mask = cpu_to_le32(mask);
	cmd.set_port.mtu = cpu_to_le32(mtu);
	if (mac)
		memcpy(cmd.set_port.mac, mac, 6);
	cmd.set_port.admin_up = admin_up;
	cmd.set_port.rx_mode = rx_mode;
	return drv_exec(d, &cmd);
}

uint8_t drv_port_up(struct drv *d)
{
	return drv_set_port(d, ORDMA_SET_PORT_ADMIN, 0, NULL, 1, 0);
}

uint8_t drv_handle_cmd(struct drv *d, uint8_t opcode, uint32_t handle,
		       uint32_t uctx)
{
	struct ordma_aq_cmd cmd;

	drv_cmd_init(&cmd, opcode);
	cmd.handle.handle = cpu_to_le32(handle);
	cmd.handle.uctx = cpu_to_le32(uctx);
	return drv_exec(d, &cmd);
}

uint8_t drv_create_eq_raw(struct drv *d, uint64_t addr, uint8_t log_size,
			  uint8_t type, uint16_t vector, uint32_t *eqn)
{
	struct ordma_aq_cmd cmd;
	uint8_t status;

	drv_cmd_init(&cmd, ORDMA_CMD_CREATE_EQ);
	cmd.create_eq.ring_addr = cpu_to_le64(addr);
	cmd.create_eq.log_size = log_size;
	cmd.create_eq.type = type;
	cmd.create_eq.vector = cpu_to_le16(vector);
	status = drv_exec(d, &cmd);
	if (eqn)
		*eqn = le32_to_cpu(d->last_comp.handle.handle);
	return status;
}

uint8_t drv_create_ring_raw(struct drv *d, uint64_t addr, uint8_t log_size,
			    uint8_t type, uint32_t eqn, uint32_t *id)
{
	struct ordma_aq_cmd cmd;
	uint8_t status;

	drv_cmd_init(&cmd, ORDMA_CMD_CREATE_ETH_RING);
	cmd.eth_ring.ring_addr = cpu_to_le64(addr);
	cmd.eth_ring.log_size = log_size;
	cmd.eth_ring.type = type;
	cmd.eth_ring.eqn = cpu_to_le32(eqn);
	status = drv_exec(d, &cmd);
	if (id)
		*id = le32_to_cpu(d->last_comp.handle.handle);
	return status;
}

uint8_t drv_add_gid(struct drv *d, uint32_t index, const uint8_t gid[16],
		    const uint8_t mac[6], uint16_t vlan_id)
{
	struct ordma_aq_cmd cmd;

	drv_cmd_init(&cmd, ORDMA_CMD_ADD_GID);
	cmd.add_gid.index = cpu_to_le32(index);
	cmd.add_gid.type = ORDMA_GID_TYPE_ROCE_V2;
	cmd.add_gid.vlan_id = cpu_to_le16(vlan_id);
	memcpy(cmd.add_gid.gid, gid, 16);
	memcpy(cmd.add_gid.mac, mac, 6);
	return drv_exec(d, &cmd);
}

uint8_t drv_alloc_uctx(struct drv *d, uint32_t *uctx)
{
	uint8_t status = drv_simple(d, ORDMA_CMD_ALLOC_UCTX);

	*uctx = le32_to_cpu(d->last_comp.handle.handle);
	return status;
}

uint8_t drv_alloc_pd(struct drv *d, uint32_t uctx, uint32_t *pdn)
{
	struct ordma_aq_cmd cmd;
	uint8_t status;

	drv_cmd_init(&cmd, ORDMA_CMD_ALLOC_PD);
	cmd.alloc_pd.uctx = cpu_to_le32(uctx);
	status = drv_exec(d, &cmd);
	*pdn = le32_to_cpu(d->last_comp.handle.handle);
	return status;
}

uint8_t drv_set_rdma_protocol(struct drv *d, uint8_t proto)
{
	struct ordma_aq_cmd cmd;

	drv_cmd_init(&cmd, ORDMA_CMD_SET_RDMA_PROTOCOL);
	cmd.set_rdma_protocol.port = cpu_to_le32(ORDMA_PORT_NUM);
	cmd.set_rdma_protocol.protocol = proto;
	return drv_exec(d, &cmd);
}

/* ------------------------------------------------------------------ */
/* Doorbells and EQs                                                   */
/* ------------------------------------------------------------------ */

void drv_db(struct drv *d, uint32_t page, uint32_t reg, uint32_t qn,
	    uint32_t idx, uint64_t flags)
{
	uint64_t val = FIELD_PREP(ORDMA_DB_QN, (uint64_t)qn) |
		       FIELD_PREP(ORDMA_DB_IDX, (uint64_t)idx) | flags;

	ordma_fw_db_write(d->fw, (uint64_t)page << ORDMA_DB_PAGE_SHIFT | reg,
			  val, 8);
}

uint32_t drv_db_errors(struct drv *d)
{
	struct ordma_comp_health h;

	if (drv_health(d, &h) != ORDMA_CMD_STATUS_OK)
		return UINT32_MAX;
	return le32_to_cpu(h.db_errors);
}

bool drv_eq_open(struct drv *d, struct drv_eq *eq, uint8_t type,
		 unsigned int vector, unsigned int log_size)
{
	memset(eq, 0, sizeof(*eq));
	eq->addr = DRV_EQ_ADDR(d->eq_areas++ % 32);
	eq->log_size = log_size;
	eq->vector = vector;
	memset(drv_mem(d, eq->addr, 0x10000), 0, 0x10000);
	return drv_create_eq_raw(d, eq->addr, (uint8_t)log_size, type,
				 (uint16_t)vector, &eq->eqn) ==
	       ORDMA_CMD_STATUS_OK;
}

bool drv_eq_next(struct drv *d, struct drv_eq *eq, struct ordma_eqe *eqe)
{
	uint32_t slot = eq->ci & ((1u << eq->log_size) - 1);
	bool phase = !((eq->ci >> eq->log_size) & 1);

	memcpy(eqe, drv_mem(d, eq->addr + slot * ORDMA_EQE_SIZE, ORDMA_EQE_SIZE),
	       sizeof(*eqe));
	if (!!(le32_to_cpu(eqe->type) & ORDMA_EQE_PHASE) != phase)
		return false;
	eq->ci++;
	return true;
}

void drv_eq_update(struct drv *d, struct drv_eq *eq, bool arm)
{
	drv_db(d, 0, ORDMA_DB_EQ, eq->eqn, eq->ci, arm ? ORDMA_DB_ARM : 0);
}

/* ------------------------------------------------------------------ */
/* Ethernet rings                                                      */
/* ------------------------------------------------------------------ */

bool drv_ring_open(struct drv *d, struct drv_ring *r, uint8_t type,
		   unsigned int log_size, uint32_t eqn)
{
	memset(r, 0, sizeof(*r));
	r->area = d->ring_areas++ % 8;
	r->type = type;
	r->addr = DRV_RING_ADDR(r->area);
	r->log_size = log_size;
	memset(drv_mem(d, r->addr, 0x10000), 0, 0x10000);
	return drv_create_ring_raw(d, r->addr, (uint8_t)log_size, type, eqn,
				   &r->id) == ORDMA_CMD_STATUS_OK;
}

struct ordma_eth_desc *drv_desc(struct drv *d, struct drv_ring *r,
				uint32_t index)
{
	uint32_t slot = index & ((1u << r->log_size) - 1);

	return drv_mem(d, r->addr + slot * ORDMA_ETH_DESC_SIZE,
		       ORDMA_ETH_DESC_SIZE);
}

uint32_t drv_desc_flags(struct drv *d, struct drv_ring *r, uint32_t index)
{
	return le32_to_cpu(drv_desc(d, r, index)->len_flags);
}

void drv_tx(struct drv *d, struct drv_ring *r, const void *frame,
	    uint32_t len)
{
	struct ordma_eth_desc *desc = drv_desc(d, r, r->pi);
	uint64_t buf = DRV_FRAME_ADDR(r->area, r->pi);

	if (len <= DRV_FRAME_SLOT_SIZE)
		memcpy(drv_mem(d, buf, len), frame, len);
	desc->addr = cpu_to_le64(buf);
	desc->len_flags = cpu_to_le32(len & ORDMA_ETH_DESC_LEN);
	desc->reserved_12 = 0;
	r->pi++;
	drv_db(d, 0, ORDMA_DB_ETH_PI, r->id, r->pi, 0);
}

void drv_rx_post(struct drv *d, struct drv_ring *r, unsigned int n,
		 uint32_t buf_len)
{
	while (n--) {
		struct ordma_eth_desc *desc = drv_desc(d, r, r->pi);

		desc->addr = cpu_to_le64(DRV_FRAME_ADDR(r->area, r->pi));
		desc->len_flags = cpu_to_le32(buf_len);
		desc->reserved_12 = 0;
		r->pi++;
	}
	drv_db(d, 0, ORDMA_DB_ETH_PI, r->id, r->pi, 0);
}

void drv_ring_arm(struct drv *d, struct drv_ring *r)
{
	drv_db(d, 0, ORDMA_DB_ETH_ARM, r->id, r->ci, ORDMA_DB_ARM);
}

/* ------------------------------------------------------------------ */
/* Verbs objects                                                       */
/* ------------------------------------------------------------------ */

bool drv_cq_open(struct drv *d, struct drv_cq *cq, unsigned int area,
		 uint32_t uctx, uint32_t eqn, unsigned int log_size)
{
	struct ordma_aq_cmd cmd;
	size_t bytes = (size_t)ORDMA_CQE_SIZE << log_size;

	memset(cq, 0, sizeof(*cq));
	cq->uctx = uctx;
	cq->addr = DRV_CQ_ADDR(area % DRV_CQ_AREAS);
	cq->dbrec = DRV_CQ_DBREC_ADDR(area % DRV_CQ_AREAS);
	cq->log_size = log_size;
	if (bytes > 0x10000)
		return false;
	memset(drv_mem(d, cq->addr, 0x10000), 0, 0x10000);
	memset(drv_mem(d, cq->dbrec, 4), 0, 4);
	drv_cmd_init(&cmd, ORDMA_CMD_CREATE_CQ);
	cmd.create_cq.uctx = cpu_to_le32(uctx);
	cmd.create_cq.eqn = cpu_to_le32(eqn);
	cmd.create_cq.ring.addr = cpu_to_le64(cq->addr);
	cmd.create_cq.ring.num_pages = cpu_to_le32(bytes < 4096 ? 1 :
						   (uint32_t)(bytes / 4096));
	cmd.create_cq.ring.page_shift = 12;
	cmd.create_cq.db_record = cpu_to_le64(cq->dbrec);
	cmd.create_cq.log_size = (uint8_t)log_size;
	if (drv_exec(d, &cmd) != ORDMA_CMD_STATUS_OK)
		return false;
	cq->cqn = le32_to_cpu(d->last_comp.handle.handle);
	return true;
}

bool drv_cq_next(struct drv *d, struct drv_cq *cq, struct ordma_cqe *cqe)
{
	uint32_t slot = cq->ci & ((1u << cq->log_size) - 1);
	bool phase = !((cq->ci >> cq->log_size) & 1);
	uint32_t rec;

	memcpy(cqe, drv_mem(d, cq->addr + slot * ORDMA_CQE_SIZE,
			    ORDMA_CQE_SIZE), sizeof(*cqe));
	if (!!(le32_to_cpu(cqe->owner) & ORDMA_CQE_PHASE) != phase)
		return false;
	cq->ci++;
	rec = cpu_to_le32(cq->ci);
	memcpy(drv_mem(d, cq->dbrec, 4), &rec, 4);
	return true;
}

void drv_cq_arm(struct drv *d, struct drv_cq *cq, bool solicited)
{
	drv_db(d, cq->uctx, ORDMA_DB_CQ, cq->cqn, cq->ci,
	       ORDMA_DB_ARM | (solicited ? ORDMA_DB_SOLICITED : 0));
}

uint8_t drv_destroy_cq(struct drv *d, struct drv_cq *cq)
{
	return drv_handle_cmd(d, ORDMA_CMD_DESTROY_CQ, cq->cqn, cq->uctx);
}

uint8_t drv_reg_mr_contig(struct drv *d, uint32_t pdn, uint32_t uctx,
			  uint64_t iova, uint64_t addr, uint64_t length,
			  uint32_t access, uint8_t key_byte, uint32_t *key)
{
	uint64_t offset = iova & 4095;
	struct ordma_aq_cmd cmd;
	uint8_t status;

	drv_cmd_init(&cmd, ORDMA_CMD_REG_MR);
	cmd.reg_mr.pdn = cpu_to_le32(pdn);
	cmd.reg_mr.uctx = cpu_to_le32(uctx);
	cmd.reg_mr.iova = cpu_to_le64(iova);
	cmd.reg_mr.length = cpu_to_le64(length);
	cmd.reg_mr.pages.addr = cpu_to_le64(addr);
	cmd.reg_mr.pages.num_pages =
		cpu_to_le32((uint32_t)((offset + length + 4095) / 4096));
	cmd.reg_mr.pages.page_shift = 12;
	cmd.reg_mr.access = cpu_to_le32(access);
	cmd.reg_mr.key = key_byte;
	status = drv_exec(d, &cmd);
	if (key)
		*key = le32_to_cpu(d->last_comp.handle.handle);
	return status;
}

void drv_page_list_contig(struct ordma_page_list *pl, uint64_t addr,
			  uint64_t bytes)
{
	memset(pl, 0, sizeof(*pl));
	pl->addr = cpu_to_le64(addr);
	pl->num_pages = cpu_to_le32((uint32_t)((bytes + 4095) / 4096));
	pl->page_shift = 12;
}

void drv_qp_params(struct ordma_qp_create_params *p, uint32_t uctx,
		   uint32_t pdn, uint8_t type, uint32_t send_cqn,
		   uint32_t recv_cqn, uint32_t srqn, unsigned int area)
{
	uint64_t base = DRV_WQ_ADDR(area % DRV_WQ_AREAS);

	memset(p, 0, sizeof(*p));
	p->uctx = cpu_to_le32(uctx);
	p->pdn = cpu_to_le32(pdn);
	p->send_cqn = cpu_to_le32(send_cqn);
	p->recv_cqn = cpu_to_le32(recv_cqn);
	p->srqn = cpu_to_le32(srqn);
	p->type = type;
	p->sq_log_size = 4;
	p->sq_wqe_shift = 6;
	drv_page_list_contig(&p->sq, base, 16 * 64);
	if (srqn == ORDMA_NO_SRQ) {
		p->rq_log_size = 4;
		p->rq_wqe_shift = 5;
		drv_page_list_contig(&p->rq, base + 0x8000, 16 * 32);
	}
}

static uint8_t drv_buf_cmd(struct drv *d, uint8_t opcode, uint32_t handle,
			   uint32_t len)
{
	struct ordma_aq_cmd cmd;

	drv_cmd_init(&cmd, opcode);
	cmd.buf.buf_addr = cpu_to_le64(DRV_QP_BUF_ADDR);
	cmd.buf.buf_len = cpu_to_le32(len);
	cmd.buf.handle = cpu_to_le32(handle);
	return drv_exec(d, &cmd);
}

uint8_t drv_create_qp(struct drv *d, const struct ordma_qp_create_params *p,
		      uint32_t *qpn)
{
	uint8_t status;

	memcpy(drv_mem(d, DRV_QP_BUF_ADDR, sizeof(*p)), p, sizeof(*p));
	status = drv_buf_cmd(d, ORDMA_CMD_CREATE_QP, 0, sizeof(*p));
	if (qpn)
		*qpn = le32_to_cpu(d->last_comp.handle.handle);
	return status;
}

bool drv_verbs_open(struct drv_verbs *v, uint8_t proto, bool user,
		    const uint8_t gid[16], const uint8_t mac[6])
{
	const uint8_t ok = ORDMA_CMD_STATUS_OK;

	memset(v, 0, sizeof(*v));
	if (!drv_open(&v->d, 5))
		return false;
	if (!drv_eq_open(&v->d, &v->async, ORDMA_EQ_TYPE_ASYNC, 0, 10) ||
	    !drv_eq_open(&v->d, &v->comp, ORDMA_EQ_TYPE_COMP, 1, 8) ||
	    (proto != ORDMA_PORT_PROTO_ROCE &&
	     drv_set_rdma_protocol(&v->d, proto) != ok) ||
	    (gid && drv_add_gid(&v->d, 0, gid, mac, ORDMA_VLAN_NONE) != ok) ||
	    (user && drv_alloc_uctx(&v->d, &v->uctx) != ok) ||
	    drv_alloc_pd(&v->d, v->uctx, &v->pdn) != ok ||
	    !drv_cq_open(&v->d, &v->scq, 0, v->uctx, v->comp.eqn, 8) ||
	    !drv_cq_open(&v->d, &v->rcq, 1, v->uctx, v->comp.eqn, 8)) {
		drv_close(&v->d);
		return false;
	}
	return true;
}

void drv_verbs_qp_params(struct drv_verbs *v,
			 struct ordma_qp_create_params *p, uint8_t type,
			 uint32_t uctx, unsigned int area)
{
	memset(drv_mem(&v->d, DRV_WQ_ADDR(area), 0x10000), 0, 0x10000);
	drv_qp_params(p, uctx, v->pdn, type, v->scq.cqn, v->rcq.cqn,
		      ORDMA_NO_SRQ, area);
}

uint8_t drv_verbs_create_qp(struct drv_verbs *v, uint8_t type, uint32_t uctx,
			    unsigned int area, uint32_t *qpn)
{
	struct ordma_qp_create_params p;

	drv_verbs_qp_params(v, &p, type, uctx, area);
	return drv_create_qp(&v->d, &p, qpn);
}

uint8_t drv_add_ip_gid(struct drv *d, uint32_t index, const uint8_t ip[16],
		       const uint8_t mac[6])
{
	struct ordma_aq_cmd cmd;

	drv_cmd_init(&cmd, ORDMA_CMD_ADD_GID);
	cmd.add_gid.index = cpu_to_le32(index);
	cmd.add_gid.type = ORDMA_GID_TYPE_IP;
	cmd.add_gid.vlan_id = cpu_to_le16(ORDMA_VLAN_NONE);
	memcpy(cmd.add_gid.gid, ip, 16);
	memcpy(cmd.add_gid.mac, mac, 6);
	return drv_exec(d, &cmd);
}

bool drv_iw_open(struct drv_verbs *v, const uint8_t mac[6],
		 const uint8_t ip[16])
{
	const uint8_t ok = ORDMA_CMD_STATUS_OK;

	if (!drv_verbs_open(v, ORDMA_PORT_PROTO_IWARP, false, NULL, NULL))
		return false;
	if (drv_set_port(&v->d, ORDMA_SET_PORT_MAC, 0, mac, 0, 0) != ok ||
	    drv_port_up(&v->d) != ok || drv_add_ip_gid(&v->d, 0, ip, mac) != ok) {
		drv_close(&v->d);
		return false;
	}
	return true;
}

bool drv_iw_open_nth(struct drv_verbs *v, int i, uint8_t mac[6],
		     uint8_t ip[16])
{
	memset(mac, 0, 6);
	mac[0] = 0x02;
	mac[5] = (uint8_t)(0x0a + i);
	memset(ip, 0, 16);
	ip[10] = 0xff;
	ip[11] = 0xff;
	ip[12] = 10;
	ip[15] = (uint8_t)(1 + i);
	return drv_iw_open(v, mac, ip);
}

static uint8_t drv_iw_qp_to(struct drv *d, uint32_t qpn, uint8_t state,
			    uint32_t mask)
{
	struct ordma_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.attr_mask = cpu_to_le32(ORDMA_QP_ATTR_STATE | mask);
	a.state = state;
	if (mask & ORDMA_QP_ATTR_ACCESS_FLAGS)
		a.access_flags = cpu_to_le32(ORDMA_ACCESS_REMOTE_WRITE |
					     ORDMA_ACCESS_REMOTE_READ);
	if (mask & ORDMA_QP_ATTR_PORT)
		a.port = 1;
	return drv_modify_qp(d, qpn, &a);
}

bool drv_iw_qp_rtr(struct drv *d, uint32_t qpn)
{
	const uint8_t ok = ORDMA_CMD_STATUS_OK;

	return drv_iw_qp_to(d, qpn, ORDMA_QPS_INIT,
			    ORDMA_QP_ATTR_ACCESS_FLAGS |
			    ORDMA_QP_ATTR_PKEY_INDEX | ORDMA_QP_ATTR_PORT) == ok &&
	       drv_iw_qp_to(d, qpn, ORDMA_QPS_RTR, 0) == ok;
}

bool drv_iw_rtr_qp(struct drv_verbs *v, unsigned int area, uint32_t *qpn)
{
	return drv_verbs_create_qp(v, ORDMA_QPT_RC, 0, area, qpn) ==
	       ORDMA_CMD_STATUS_OK && drv_iw_qp_rtr(&v->d, *qpn);
}

uint8_t drv_iw_listen(struct drv *d, uint16_t port, uint16_t backlog,
		      uint32_t *listener)
{
	struct ordma_aq_cmd cmd;
	uint8_t status;

	drv_cmd_init(&cmd, ORDMA_CMD_IW_CREATE_LISTEN);
	cmd.iw_create_listen.port = cpu_to_le16(port);
	cmd.iw_create_listen.backlog = cpu_to_le16(backlog);
	status = drv_exec(d, &cmd);
	*listener = le32_to_cpu(d->last_comp.handle.handle);
	return status;
}

uint8_t drv_iw_conn_cmd_at(struct drv *d, uint64_t addr, uint8_t opcode,
			   const struct ordma_iw_conn_params *p, uint32_t *h)
{
	struct ordma_aq_cmd cmd;
	uint8_t status;

	memcpy(drv_mem(d, addr, sizeof(*p)), p, sizeof(*p));
	drv_cmd_init(&cmd, opcode);
	cmd.buf.buf_addr = cpu_to_le64(addr);
	cmd.buf.buf_len = cpu_to_le32(sizeof(*p));
	status = drv_exec(d, &cmd);
	if (h)
		*h = le32_to_cpu(d->last_comp.handle.handle);
	return status;
}

uint8_t drv_iw_conn_cmd(struct drv *d, uint8_t opcode,
			const struct ordma_iw_conn_params *p, uint32_t *h)
{
	return drv_iw_conn_cmd_at(d, DRV_SCRATCH_ADDR, opcode, p, h);
}

uint8_t drv_modify_qp(struct drv *d, uint32_t qpn,
		      const struct ordma_qp_attr *attr)
{
	memcpy(drv_mem(d, DRV_QP_BUF_ADDR, sizeof(*attr)), attr, sizeof(*attr));
	return drv_buf_cmd(d, ORDMA_CMD_MODIFY_QP, qpn, sizeof(*attr));
}

uint8_t drv_query_qp(struct drv *d, uint32_t qpn, struct ordma_qp_attr *attr)
{
	uint8_t status;

	memset(drv_mem(d, DRV_QP_BUF_ADDR, sizeof(*attr)), 0xa5, sizeof(*attr));
	status = drv_buf_cmd(d, ORDMA_CMD_QUERY_QP, qpn, sizeof(*attr));
	memcpy(attr, drv_mem(d, DRV_QP_BUF_ADDR, sizeof(*attr)), sizeof(*attr));
	return status;
}

uint8_t drv_query_qp_stats(struct drv *d, uint32_t qpn,
			   struct ordma_qp_stats *stats)
{
	uint8_t status;

	memset(drv_mem(d, DRV_QP_BUF_ADDR, sizeof(*stats)), 0xa5,
	       sizeof(*stats));
	status = drv_buf_cmd(d, ORDMA_CMD_QUERY_QP_STATS, qpn, sizeof(*stats));
	memcpy(stats, drv_mem(d, DRV_QP_BUF_ADDR, sizeof(*stats)),
	       sizeof(*stats));
	return status;
}

uint8_t drv_create_srq(struct drv *d, uint32_t uctx, uint32_t pdn,
		       unsigned int log_size, uint32_t limit,
		       unsigned int area, uint32_t *srqn)
{
	struct ordma_aq_cmd cmd;
	uint8_t status;

	drv_cmd_init(&cmd, ORDMA_CMD_CREATE_SRQ);
	cmd.create_srq.uctx = cpu_to_le32(uctx);
	cmd.create_srq.pdn = cpu_to_le32(pdn);
	drv_page_list_contig(&cmd.create_srq.ring,
			     DRV_WQ_ADDR(area % DRV_WQ_AREAS),
			     (uint64_t)32 << log_size);
	cmd.create_srq.log_size = (uint8_t)log_size;
	cmd.create_srq.wqe_shift = 5;
	cmd.create_srq.limit = cpu_to_le32(limit);
	status = drv_exec(d, &cmd);
	if (srqn)
		*srqn = le32_to_cpu(d->last_comp.handle.handle);
	return status;
}

bool drv_stats(struct drv *d, struct ordma_port_stats *s)
{
	struct ordma_port_stats raw;
	uint64_t *in = (uint64_t *)&raw, *out = (uint64_t *)s;
	size_t i;

	if (drv_query(d, ORDMA_CMD_QUERY_STATS, 1, &raw, sizeof(raw)) !=
	    ORDMA_CMD_STATUS_OK)
		return false;
	for (i = 0; i < sizeof(raw) / 8; i++)
		out[i] = le64_to_cpu(in[i]);
	return true;
}

/* ------------------------------------------------------------------ */
/* Frames                                                              */
/* ------------------------------------------------------------------ */

static const uint8_t drv_peer_mac[6] = { 0x52, 0x54, 0x00, 0xaa, 0xbb, 0xcc };

size_t drv_build_frame(uint8_t *buf, const uint8_t dst[6],
		       const uint8_t src[6], uint16_t ethertype,
		       size_t payload_len)
{
	size_t i;

	memcpy(buf, dst, 6);
	memcpy(buf + 6, src, 6);
	buf[12] = (uint8_t)(ethertype >> 8);
	buf[13] = (uint8_t)ethertype;
	for (i = 0; i < payload_len; i++)
		buf[14 + i] = (uint8_t)(i * 7 + 1);
	return 14 + payload_len;
}

static size_t drv_put_udp(uint8_t *p, uint16_t dport)
{
	p[0] = 0x12;
	p[1] = 0x34;		/* source port */
	p[2] = (uint8_t)(dport >> 8);
	p[3] = (uint8_t)dport;
	p[4] = 0;
	p[5] = 8 + 32;		/* length: header + 32 byte payload */
	p[6] = 0;
	p[7] = 0;
	memset(p + 8, 0x5a, 32);
	return 8 + 32;
}

size_t drv_build_udp4(uint8_t *buf, const uint8_t dst_mac[6],
		      const uint8_t dst_ip[4], uint16_t dport, bool vlan)
{
	size_t l3 = 14;
	uint8_t *ip;

	drv_build_frame(buf, dst_mac, drv_peer_mac, vlan ? 0x8100 : 0x0800, 0);
	if (vlan) {
		buf[14] = 0x00;
		buf[15] = 0x05;	/* VID 5 */
		buf[16] = 0x08;
		buf[17] = 0x00;
		l3 += 4;
	}
	ip = buf + l3;
	memset(ip, 0, 20);
	ip[0] = 0x45;
	ip[3] = 20 + 8 + 32;
	ip[6] = 0x40;		/* DF */
	ip[8] = 64;
	ip[9] = 17;
	ip[12] = 10;
	ip[15] = 9;		/* src 10.0.0.9 */
	memcpy(ip + 16, dst_ip, 4);
	return l3 + 20 + drv_put_udp(ip + 20, dport);
}

size_t drv_build_udp6(uint8_t *buf, const uint8_t dst_mac[6],
		      const uint8_t dst_ip[16], uint16_t dport)
{
	uint8_t *ip = buf + 14;

	drv_build_frame(buf, dst_mac, drv_peer_mac, 0x86dd, 0);
	memset(ip, 0, 40);
	ip[0] = 0x60;
	ip[5] = 8 + 32;		/* payload length */
	ip[6] = 17;
	ip[7] = 64;
	ip[8] = 0xfe;
	ip[9] = 0x80;
	ip[23] = 9;		/* src fe80::9 */
	memcpy(ip + 24, dst_ip, 16);
	return 14 + 40 + drv_put_udp(ip + 40, dport);
}
