// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * libFuzzer harness: a hostile process.  Two devices wired back to back,
 * each with RC, UC, UD and an SRQ-attached RC QP connected to the other.
 * The input is a stream of what a process can do to its own queues: post
 * work requests (well formed or any bytes), ring doorbells (right or
 * wrong), rewrite its rings, doorbell records and buffers between device
 * events, let time pass, and deliver, drop, duplicate or reorder frames;
 * the link partner may pause either port (802.3x PAUSE) at any moment.
 *
 * Checked: sanitizers; the device never reads or writes host memory
 * outside the MRs and rings it was given, and never writes the rings
 * only it reads; nothing it transmits carries bytes from memory no
 * process gave it; it still answers its driver at the end.
 */
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum {
	OP_SEND,		/* structured send WQE */
	OP_SEND_RAW,		/* any bytes as a send WQE */
	OP_RECV,
	OP_RECV_RAW,
	OP_DB,			/* ring a queue's doorbell, right or wrong */
	OP_DB_RAW,
	OP_REWRITE,		/* bytes into a ring, record or buffer */
	OP_FLIP,		/* XOR a byte of a posted send WQE */
	OP_TIME,
	OP_DELIVER,
	OP_DROP,
	OP_DUP,
	OP_REORDER,
	OP_PAUSE,		/* a PAUSE frame of any pause_time to a port */
	OP_POLL,
	OP_NUM
};

#define MAX_FRAMES_PER_INPUT	20000

struct ctx {
	struct fz_env e;
	unsigned long frames;
};

static struct fz_dev *side(struct ctx *c, uint8_t sel)
{
	return &c->e.v[sel & 1];
}

static struct fz_dev *peer(struct ctx *c, uint8_t sel)
{
	return &c->e.v[!(sel & 1)];
}

static unsigned int qsel(uint8_t sel)
{
	return (sel >> 1) % FZ_NQP;
}

/* A local buffer: the key and the address it covers */
static void local_buf(struct fz_dev *v, struct fz_dev *p, uint8_t ksel,
		      uint32_t *key, uint64_t *addr)
{
	switch (ksel & 7) {
	case 0:
	case 1:
		*key = v->key_all;
		*addr = FZ_MR_ALL;
		break;
	case 2:
		*key = v->key_lw;
		*addr = FZ_MR_LW;
		break;
	case 3:
		*key = v->key_bind;
		*addr = FZ_MR_BIND;
		break;
	case 4:
		*key = v->mw1;		/* a window is no lkey */
		*addr = FZ_MW1_ADDR;
		break;
	case 5:
		*key = p->key_all;	/* the other device's key */
		*addr = FZ_MR_ALL;
		break;
	case 6:
		*key = v->key_all + 0x100;
		*addr = FZ_MR_ALL;
		break;
	default:
		*key = v->key_all;
		*addr = FZ_GUARD - 0x800;	/* runs off the MR_BIND end */
		break;
	}
}

static void remote_buf(struct fz_dev *p, uint8_t rsel, uint32_t *rkey,
		       uint64_t *addr)
{
	switch (rsel & 7) {
	case 0:
	case 1:
		*rkey = p->key_all;
		*addr = FZ_MR_ALL;
		break;
	case 2:
		*rkey = p->key_lw;
		*addr = FZ_MR_LW;
		break;
	case 3:
		*rkey = p->mw1;
		*addr = FZ_MW1_ADDR;
		break;
	case 4:
		*rkey = p->mw2;
		*addr = 0;		/* zero based */
		break;
	case 5:
		*rkey = p->key_bind;
		*addr = FZ_MR_BIND;
		break;
	case 6:
		*rkey = p->mw2;
		*addr = FZ_MR_BIND_LEN - 0x100;
		break;
	default:
		*rkey = p->key_all;
		*addr = FZ_MR_ALL + FZ_MR_ALL_LEN - 0x100;
		break;
	}
}

static void op_send(struct ctx *c, struct fz_in *in)
{
	uint8_t sel = fz_u8(in), opcode = fz_u8(in) % 13, fl = fz_u8(in);
	uint8_t nsge = fz_u8(in), ksel = fz_u8(in), rsel = fz_u8(in);
	uint16_t len = fz_u16(in), off = fz_u16(in), roff = fz_u16(in);
	uint32_t extra = fz_u32(in);
	struct fz_dev *v = side(c, sel), *p = peer(c, sel);
	unsigned int q = qsel(sel), i, n;
	uint8_t wqe[1u << FZ_SQ_SHIFT];
	struct ordma_send_wqe *w = (struct ordma_send_wqe *)wqe;
	size_t data = ORDMA_SEND_WQE_HDR_SIZE;
	uint32_t ctrl, key, rkey;
	uint64_t addr, raddr;

	memset(wqe, 0, sizeof(wqe));
	local_buf(v, p, ksel, &key, &addr);
	remote_buf(p, rsel, &rkey, &raddr);
	ctrl = FIELD_PREP(ORDMA_WQE_OPCODE, opcode);
	if (!(fl & 1))
		ctrl |= ORDMA_WQE_SIGNALED;
	if (fl & 2)
		ctrl |= ORDMA_WQE_SOLICITED;
	if (fl & 4)
		ctrl |= ORDMA_WQE_FENCE;
	if (fl & 0x20) {
		struct ordma_av av;

		memset(&av, 0, sizeof(av));
		fz_gid(p->idx, av.dgid);
		fz_mac(p->idx, av.dmac);
		if (extra & 0x10000)	/* somebody the process has no AH for */
			av.dmac[1] = 0x66;
		av.hop_limit = (uint8_t)extra;
		av.sgid_index = (uint8_t)(extra >> 8) & 1;
		av.vlan_id = cpu_to_le16(ORDMA_VLAN_NONE);
		ctrl |= ORDMA_WQE_AV_INLINE;
		memcpy(wqe + data, &av, sizeof(av));
		data += sizeof(av);
	}
	if (fl & 8) {
		n = len % (sizeof(wqe) - data + 32);
		ctrl |= ORDMA_WQE_INLINE;
		w->ctrl.inline_len = cpu_to_le32(n);
		if (n > sizeof(wqe) - data)
			n = (unsigned int)(sizeof(wqe) - data);
		if (n > in->left)
			n = (unsigned int)in->left;
		fz_put(wqe + data, in->p, n);
		in->p += n;
		in->left -= n;
	} else {
		n = nsge % 10;
		if (n > (sizeof(wqe) - data) / sizeof(struct ordma_sge))
			n = (unsigned int)((sizeof(wqe) - data) /
					   sizeof(struct ordma_sge));
		ctrl |= FIELD_PREP(ORDMA_WQE_NUM_SGE, n);
		for (i = 0; i < n; i++) {
			struct ordma_sge g;
			uint32_t part = n ? len / n : 0;

			g.addr = cpu_to_le64(addr + off + (uint64_t)i * part);
			g.length = cpu_to_le32(i + 1 == n ? len - part * i : part);
			g.lkey = cpu_to_le32(key);
			memcpy(wqe + data + i * sizeof(g), &g, sizeof(g));
		}
	}
	w->ctrl.ctrl = cpu_to_le32(ctrl);
	w->ctrl.imm_inv = cpu_to_le32(opcode == ORDMA_WQE_SEND_INV ||
				      opcode == ORDMA_WQE_LOCAL_INV ?
				      (fl & 0x40 ? p->mw2 : v->mw2) : extra);
	switch (opcode) {
	case ORDMA_WQE_RDMA_WRITE:
	case ORDMA_WQE_RDMA_WRITE_IMM:
	case ORDMA_WQE_RDMA_READ:
		w->rdma.remote_addr = cpu_to_le64(raddr + roff);
		w->rdma.rkey = cpu_to_le32(rkey);
		break;
	case ORDMA_WQE_ATOMIC_CMP_SWP:
	case ORDMA_WQE_ATOMIC_FETCH_ADD:
		w->atomic.remote_addr = cpu_to_le64(raddr + (roff & ~7u));
		w->atomic.rkey = cpu_to_le32(rkey);
		w->atomic.compare_add = cpu_to_le64(extra);
		w->atomic.swap = cpu_to_le64((uint64_t)len << 16 | off);
		break;
	case ORDMA_WQE_FLUSH:
		w->flush.remote_addr = cpu_to_le64(raddr + roff);
		w->flush.rkey = cpu_to_le32(rkey);
		w->flush.length = cpu_to_le32(len);
		w->flush.placement = (uint8_t)(extra & 3);
		w->flush.level = (uint8_t)(extra >> 2) & 1;
		break;
	case ORDMA_WQE_ATOMIC_WRITE:
		w->atomic_write.remote_addr = cpu_to_le64(raddr + (roff & ~7u));
		w->atomic_write.rkey = cpu_to_le32(rkey);
		fz_put(w->atomic_write.value, &extra, 4);
		break;
	case ORDMA_WQE_BIND_MW: {
		uint32_t mw = fl & 0x40 ? v->mw2 : v->mw1;

		w->bind_mw.addr = cpu_to_le64(FZ_MR_BIND + (off % 0x4000));
		w->bind_mw.length = cpu_to_le64(len);
		w->bind_mw.mw_rkey = cpu_to_le32((mw & ORDMA_KEY_INDEX) |
						 (extra & 0xff));
		w->bind_mw.mr_lkey = cpu_to_le32(fl & 0x10 ? v->key_all :
						 v->key_bind);
		w->bind_mw.access = cpu_to_le32(rsel);
		break;
	}
	case ORDMA_WQE_REG_MR:
		w->reg_mr.iova = cpu_to_le64(FZ_MR_ALL + off);
		w->reg_mr.length = cpu_to_le64(len);
		w->reg_mr.page_list = cpu_to_le64(FZ_MR_ALL + roff);
		w->reg_mr.key = cpu_to_le32(extra);
		w->reg_mr.num_pages = cpu_to_le16(nsge);
		w->reg_mr.page_shift = 12;
		w->reg_mr.access = rsel;
		break;
	default:
		if (q == FZ_UD && !(fl & 0x20)) {
			bool mc = fl & 0x10;

			w->ud.ah = cpu_to_le32(mc ? v->mcast_ah : v->ah);
			w->ud.remote_qpn = cpu_to_le32(mc ? ORDMA_MCAST_QPN :
						       p->qpn[FZ_UD]);
			w->ud.remote_qkey = cpu_to_le32(FZ_QKEY);
		} else if (q == FZ_UD) {
			w->ud.remote_qpn = cpu_to_le32(p->qpn[FZ_UD]);
			w->ud.remote_qkey = cpu_to_le32(FZ_QKEY);
		}
		break;
	}
	memcpy(fz_sq_slot(v, q, v->sq_pi[q]), wqe, sizeof(wqe));
	v->sq_pi[q]++;
	if (fl & 0x80)
		fz_ring_sq(v, q);
}

static void op_send_raw(struct ctx *c, struct fz_in *in)
{
	uint8_t sel = fz_u8(in), wqe[1u << FZ_SQ_SHIFT];
	struct fz_dev *v = side(c, sel);
	unsigned int q = qsel(sel);

	memset(wqe, 0, sizeof(wqe));
	fz_take(in, wqe, fz_u8(in) % sizeof(wqe) + 1);
	fz_put(fz_sq_slot(v, q, v->sq_pi[q]), wqe, sizeof(wqe));
	v->sq_pi[q]++;
	if (sel & 0x80)
		fz_ring_sq(v, q);
}

static void op_recv(struct ctx *c, struct fz_in *in)
{
	uint8_t sel = fz_u8(in), ksel = fz_u8(in), nsge = fz_u8(in);
	uint16_t len = fz_u16(in), off = fz_u16(in);
	struct fz_dev *v = side(c, sel), *p = peer(c, sel);
	unsigned int q = qsel(sel), i, n, max;
	struct ordma_recv_wqe r;
	uint8_t *slot;
	uint32_t key;
	uint64_t addr;
	bool srq = q == FZ_SRQ_RC;

	local_buf(v, p, ksel, &key, &addr);
	slot = srq ? fz_srq_slot(v, v->srq_pi) : fz_rq_slot(v, q, v->rq_pi[q]);
	max = ((srq ? 1u << FZ_SRQ_SHIFT : 1u << FZ_RQ_SHIFT) - sizeof(r)) /
	      sizeof(struct ordma_sge);
	n = nsge % (max + 2);		/* one more than fits: a bad WQE */
	memset(&r, 0, sizeof(r));
	r.num_sge = cpu_to_le32(n);
	memcpy(slot, &r, sizeof(r));
	for (i = 0; i < n && i < max; i++) {
		struct ordma_sge g;

		g.addr = cpu_to_le64(addr + off + i * (uint64_t)len);
		g.length = cpu_to_le32(len);
		g.lkey = cpu_to_le32(key);
		memcpy(slot + sizeof(r) + i * sizeof(g), &g, sizeof(g));
	}
	if (srq) {
		v->srq_pi++;
		if (!(sel & 0x80))
			drv_db(&v->d, v->uctx, ORDMA_DB_SRQ, v->srqn, v->srq_pi, 0);
	} else {
		v->rq_pi[q]++;
		if (!(sel & 0x80))
			drv_db(&v->d, v->uctx, ORDMA_DB_RQ, v->qpn[q], v->rq_pi[q], 0);
	}
}

static void op_recv_raw(struct ctx *c, struct fz_in *in)
{
	uint8_t sel = fz_u8(in), wqe[1u << FZ_RQ_SHIFT];
	struct fz_dev *v = side(c, sel);
	unsigned int q = qsel(sel);

	memset(wqe, 0, sizeof(wqe));
	fz_take(in, wqe, fz_u8(in) % sizeof(wqe) + 1);
	if (q == FZ_SRQ_RC) {
		fz_put(fz_srq_slot(v, v->srq_pi), wqe, 1u << FZ_SRQ_SHIFT);
		v->srq_pi++;
		drv_db(&v->d, v->uctx, ORDMA_DB_SRQ, v->srqn, v->srq_pi, 0);
	} else {
		fz_put(fz_rq_slot(v, q, v->rq_pi[q]), wqe, sizeof(wqe));
		v->rq_pi[q]++;
		drv_db(&v->d, v->uctx, ORDMA_DB_RQ, v->qpn[q], v->rq_pi[q], 0);
	}
}

/* A doorbell of the process's own queues; delta moves the index off
 * what was posted (backwards, far ahead) and kind picks the queue.
 */
static void op_db(struct ctx *c, struct fz_in *in)
{
	uint8_t sel = fz_u8(in), kind = fz_u8(in);
	int8_t delta = (int8_t)fz_u8(in);
	struct fz_dev *v = side(c, sel);
	unsigned int q = qsel(sel);
	uint32_t d = kind & 0x80 ? (uint32_t)(int32_t)delta : 0;

	switch (kind & 7) {
	case 0:
		drv_db(&v->d, v->uctx, ORDMA_DB_SQ, v->qpn[q], v->sq_pi[q] + d, 0);
		break;
	case 1:
		drv_db(&v->d, v->uctx, ORDMA_DB_RQ, v->qpn[q], v->rq_pi[q] + d, 0);
		break;
	case 2:
		drv_db(&v->d, v->uctx, ORDMA_DB_SRQ, v->srqn, v->srq_pi + d, 0);
		break;
	case 3:
		drv_db(&v->d, v->uctx, ORDMA_DB_CQ, kind & 8 ? v->rcq.cqn : v->scq.cqn,
		       (kind & 8 ? v->rcq.ci : v->scq.ci) + d,
		       ORDMA_DB_ARM | (kind & 16 ? ORDMA_DB_SOLICITED : 0));
		break;
	case 4:		/* somebody else's queue number */
		drv_db(&v->d, v->uctx, ORDMA_DB_SQ, (uint32_t)(uint8_t)delta,
		       v->sq_pi[q], 0);
		break;
	case 5:		/* a page that is not the process's */
		drv_db(&v->d, v->uctx + 1 + (kind >> 3), ORDMA_DB_SQ, v->qpn[q],
		       v->sq_pi[q], 0);
		break;
	default:
		fz_ring_sq(v, q);
		break;
	}
}

static void op_db_raw(struct ctx *c, struct fz_in *in)
{
	uint8_t sel = fz_u8(in), size = fz_u8(in);
	uint16_t off = fz_u16(in);
	uint64_t val;

	fz_take(in, &val, sizeof(val));
	ordma_fw_db_write(side(c, sel)->d.fw, off, val,
			  size & 1 ? 4 : 8);
}

/* Bytes into memory the process owns: rings relative to the index last
 * posted, CQ ring and doorbell records, the MRs.
 */
static void op_rewrite(struct ctx *c, struct fz_in *in)
{
	uint8_t sel = fz_u8(in), where = fz_u8(in), back = fz_u8(in);
	uint8_t off = fz_u8(in), len = fz_u8(in) % 33;
	struct fz_dev *v = side(c, sel);
	unsigned int q = qsel(sel);
	uint8_t buf[32], *dst;
	size_t span;

	fz_take(in, buf, len);
	switch (where % 6) {
	case 0:
		dst = fz_sq_slot(v, q, v->sq_pi[q] - 1 - back % 4);
		span = 1u << FZ_SQ_SHIFT;
		break;
	case 1:
		dst = fz_rq_slot(v, q, v->rq_pi[q] - 1 - back % 4);
		span = 1u << FZ_RQ_SHIFT;
		break;
	case 2:
		dst = fz_srq_slot(v, v->srq_pi - 1 - back % 4);
		span = 1u << FZ_SRQ_SHIFT;
		break;
	case 3: {
		struct drv_cq *cq = where & 8 ? &v->rcq : &v->scq;

		dst = drv_mem(&v->d, cq->addr + ((cq->ci + back) &
				((1u << cq->log_size) - 1)) * ORDMA_CQE_SIZE,
			      ORDMA_CQE_SIZE);
		span = ORDMA_CQE_SIZE;
		break;
	}
	case 4:
		dst = drv_mem(&v->d, (where & 8 ? v->rcq : v->scq).dbrec, 8);
		span = 8;
		break;
	default:
		dst = drv_mem(&v->d, FZ_MR_ALL + (uint64_t)back * 256, 256);
		span = 256;
		break;
	}
	off %= span;
	if (len > span - off)
		len = (uint8_t)(span - off);
	fz_put(dst + off, buf, len);
}

/* The classic: change a WQE the device has already started */
static void op_flip(struct ctx *c, struct fz_in *in)
{
	uint8_t sel = fz_u8(in), back = fz_u8(in), off = fz_u8(in);
	uint8_t mask = fz_u8(in);
	struct fz_dev *v = side(c, sel);
	unsigned int q = qsel(sel);
	uint8_t *w = fz_sq_slot(v, q, v->sq_pi[q] - 1 - back % 4);
	uint8_t b = w[off] ^ mask;

	fz_put(&w[off], &b, 1);
}

static void op_time(struct ctx *c, struct fz_in *in)
{
	uint8_t t = fz_u8(in);

	fz_advance(&c->e, ((uint64_t)t + 1) * 50000);
}

static void op_deliver(struct ctx *c, struct fz_in *in)
{
	uint8_t sel = fz_u8(in);
	unsigned int n = (sel >> 1) % 16 + 1;

	while (n-- && c->frames < MAX_FRAMES_PER_INPUT &&
	       fz_deliver(&c->e, sel & 1))
		c->frames++;
}

static void op_drop(struct ctx *c, struct fz_in *in)
{
	struct link_frame f;

	if (link_pop(&c->e.l[fz_u8(in) & 1], &f))
		free(f.data);
}

static void op_dup(struct ctx *c, struct fz_in *in)
{
	uint8_t sel = fz_u8(in);
	struct link *l = &c->e.l[sel & 1];

	if (l->head != l->tail && c->frames < MAX_FRAMES_PER_INPUT) {
		struct link_frame *f = &l->q[l->head % l->cap];

		ordma_fw_rx_frame(c->e.v[!(sel & 1)].d.fw, f->data, f->len);
		c->frames++;
	}
}

static void op_reorder(struct ctx *c, struct fz_in *in)
{
	struct link *l = &c->e.l[fz_u8(in) & 1];
	struct link_frame f;

	if (link_pop(l, &f)) {
		link_push(l, f.data, f.len);
		free(f.data);
	}
}

static void op_pause(struct ctx *c, struct fz_in *in)
{
	struct fz_dev *v = side(c, fz_u8(in));
	uint16_t quanta = fz_u16(in);
	uint8_t f[60] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01,
			  0x02, 0x00, 0x00, 0x00, 0x00, 0x99,
			  0x88, 0x08, 0x00, 0x01 };

	f[16] = (uint8_t)(quanta >> 8);
	f[17] = (uint8_t)quanta;
	ordma_fw_rx_frame(v->d.fw, f, sizeof(f));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_in in = { data, size };
	static struct ctx c;
	int i;

	memset(&c, 0, sizeof(c));
	if (!fz_env_open(&c.e))
		fz_fail("fixture setup failed");
	while (in.left) {
		switch (fz_u8(&in) % OP_NUM) {
		case OP_SEND:
			op_send(&c, &in);
			break;
		case OP_SEND_RAW:
			op_send_raw(&c, &in);
			break;
		case OP_RECV:
			op_recv(&c, &in);
			break;
		case OP_RECV_RAW:
			op_recv_raw(&c, &in);
			break;
		case OP_DB:
			op_db(&c, &in);
			break;
		case OP_DB_RAW:
			op_db_raw(&c, &in);
			break;
		case OP_REWRITE:
			op_rewrite(&c, &in);
			break;
		case OP_FLIP:
			op_flip(&c, &in);
			break;
		case OP_TIME:
			op_time(&c, &in);
			break;
		case OP_DELIVER:
			op_deliver(&c, &in);
			break;
		case OP_DROP:
			op_drop(&c, &in);
			break;
		case OP_DUP:
			op_dup(&c, &in);
			break;
		case OP_REORDER:
			op_reorder(&c, &in);
			break;
		case OP_PAUSE:
			op_pause(&c, &in);
			break;
		default:
			fz_poll(side(&c, fz_u8(&in)));
			break;
		}
	}
	/* let everything in flight finish, then the device must be sane */
	if (c.frames < MAX_FRAMES_PER_INPUT)
		fz_pump(&c.e, MAX_FRAMES_PER_INPUT - c.frames);
	for (i = 0; i < 2; i++) {
		fz_poll(&c.e.v[i]);
		fz_dev_check(&c.e.v[i]);
	}
	fz_env_close(&c.e);
	return 0;
}
