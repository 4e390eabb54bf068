// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Shared fuzz fixture: devices, their objects, a checking HAL and a wire.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "objects/fw_qp.h"
#include "tcp/fw_tcp.h"
#include "wire/fw_roce_wire.h"
#include "wire/fw_ib_wire.h"
#include "fixture.h"

#define OK			ORDMA_CMD_STATUS_OK
#define A(name)			ORDMA_QP_ATTR_##name
#define FZ_SRQ_AREA		(2 + FZ_NQP)

const uint8_t fz_mcast_gid[16] = { [10] = 0xff, [11] = 0xff, 239, 1, 2, 3 };
const uint8_t fz_mcast_mac[6] = { 0x01, 0x00, 0x5e, 0x01, 0x02, 0x03 };

void fz_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "==fuzz invariant== ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	abort();
}

/* ------------------------------------------------------------------ */
/* The checking HAL                                                    */
/* ------------------------------------------------------------------ */

static bool overlaps(uint64_t addr, size_t len, uint64_t lo, uint64_t hi)
{
	return addr < hi && addr + len > lo;
}

/* Host memory the device has no reason to touch at all */
static bool fz_forbidden(uint64_t addr, size_t len)
{
	return overlaps(addr, len, DRV_SCRATCH_ADDR, DRV_EQ_ADDR(0)) ||
	       overlaps(addr, len, FZ_GUARD, FZ_GUARD_END);
}

/* ... and what it only ever reads: the admin queue, doorbell records,
 * work queue rings
 */
static bool fz_read_only(uint64_t addr, size_t len)
{
	return overlaps(addr, len, DRV_AQ_ADDR, DRV_ACQ_ADDR) ||
	       overlaps(addr, len, DRV_CQ_DBREC_ADDR(0), DRV_MR_ADDR) ||
	       overlaps(addr, len, DRV_WQ_ADDR(0), FAKE_MEM_END);
}

static int fz_dma_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	if (fz_forbidden(addr, len))
		fz_fail("DMA read of %zu bytes at %#llx: in no MR or ring",
			len, (unsigned long long)addr);
	return fake_hal_ops.dma_read(ctx, addr, buf, len);
}

/*
 * What the device writes into a process's buffers is the process's from
 * then on, and the process may send it again.  Those bytes come from the
 * peer: a SEND or WRITE payload, an atomic operand or sum, a READ
 * response, in fuzz_rx straight from the input.  They are kept free of
 * the canary as fz_put keeps the harness's own, so that a canary run on
 * the wire still means bytes no process held (the guard, a stale or
 * received frame in the device's own memory).
 */
static void fz_scrub_buffers(void *ctx, uint64_t addr, size_t len)
{
	uint64_t lo = addr > FZ_MR_ALL ? addr : FZ_MR_ALL;
	uint64_t hi = addr + len < FZ_GUARD ? addr + len : FZ_GUARD;
	uint8_t *p;

	if (lo >= hi)
		return;
	p = fake_mem(ctx, lo, hi - lo);
	fz_put(p, p, hi - lo);
}

static int fz_dma_write(void *ctx, uint64_t addr, const void *buf,
			size_t len)
{
	int rc;

	if (fz_forbidden(addr, len) || fz_read_only(addr, len))
		fz_fail("DMA write of %zu bytes at %#llx: not the device's to write",
			len, (unsigned long long)addr);
	rc = fake_hal_ops.dma_write(ctx, addr, buf, len);
	if (!rc)
		fz_scrub_buffers(ctx, addr, len);
	return rc;
}

/* An InfiniBand packet sent: one the parser takes, to a LID an AV names */
static void fz_check_tx_ib(const uint8_t *pkt, size_t len,
			   struct fw_roce_pkt *out)
{
	struct fw_ib_pkt p;
	uint16_t dlid;

	if (fw_ib_parse(pkt, len, &p) != FW_IB_OK)
		fz_fail("transmitted an InfiniBand packet that does not parse");
	dlid = fw_lrh_dlid(p.lrh);
	if (dlid != fz_lid(0) && dlid != fz_lid(1) &&
	    dlid != FW_IB_LID_MCAST_MIN + 1)
		fz_fail("packet to LID %#x, which no AH or QP names", dlid);
	*out = p.xport;
}

/* No run of the canary in what the device sent */
static void fz_check_canary(const uint8_t *p, size_t len, const char *what)
{
	size_t i, run = 0;

	for (i = 0; i < len; i++) {
		run = p[i] == FZ_CANARY ? run + 1 : 0;
		if (run == FZ_CANARY_RUN)
			fz_fail("payload byte %zu of a %s came from memory no process gave",
				i, what);
	}
}

/*
 * What an iWARP port sends is its TCP stack's: IPv4 and TCP from its own
 * MAC and address.  Whom it answers is the sender's choice (a reset to
 * any port, an ACK to any peer), so the destination is not checked.
 */
static void fz_check_tx_iwarp(const uint8_t *f, size_t len)
{
	uint8_t mac[2][6], gid[2][16];
	size_t ip_hlen, tcp_hlen;

	if (len < 14 + 20 + 20 || len > 1518)
		fz_fail("transmitted a frame of %zu bytes", len);
	fz_mac(0, mac[0]);
	fz_mac(1, mac[1]);
	fz_gid(0, gid[0]);
	fz_gid(1, gid[1]);
	if (memcmp(f + 6, mac[0], 6) && memcmp(f + 6, mac[1], 6))
		fz_fail("frame from a MAC not the device's");
	if (f[12] != 0x08 || f[13] != 0x00 || f[14] >> 4 != 4 || f[23] != 6)
		fz_fail("an iWARP port sent something not TCP over IPv4");
	if (memcmp(f + 26, gid[0] + 12, 4) && memcmp(f + 26, gid[1] + 12, 4))
		fz_fail("TCP segment from an address not the device's");
	ip_hlen = (f[14] & 15) * 4u;
	tcp_hlen = len >= 14 + ip_hlen + 13 ? (f[14 + ip_hlen + 12] >> 4) * 4u :
					      0;
	if (ip_hlen < 20 || tcp_hlen < 20 || 14 + ip_hlen + tcp_hlen > len)
		fz_fail("transmitted a TCP segment whose headers do not fit");
	fz_check_canary(f + 14 + ip_hlen + tcp_hlen,
			len - 14 - ip_hlen - tcp_hlen, "TCP segment");
}

static void fz_check_tx(const uint8_t *frame, size_t len)
{
	struct fw_roce_pkt pkt;
	uint8_t mac[2][6];

	if (fz_iwarp) {
		fz_check_tx_iwarp(frame, len);
		return;
	}
	if (fz_ib) {
		fz_check_tx_ib(frame, len, &pkt);
		goto payload;
	}
	if (len < 60 || len > 9018)
		fz_fail("transmitted a frame of %zu bytes", len);
	if (fw_roce_parse(frame, len, &pkt) != FW_ROCE_OK)
		fz_fail("transmitted a RoCE frame that does not parse");
	/* a process reaches only the destinations its AHs and QPs name */
	fz_mac(0, mac[0]);
	fz_mac(1, mac[1]);
	if (memcmp(frame, mac[0], 6) && memcmp(frame, mac[1], 6) &&
	    memcmp(frame, fz_mcast_mac, 6))
		fz_fail("frame to %02x:%02x:%02x:%02x:%02x:%02x, which no AH or QP names",
			frame[0], frame[1], frame[2], frame[3], frame[4],
			frame[5]);
payload:
	fz_check_canary(pkt.payload, pkt.payload_len, pkt.op->name);
}

/* ORDMA_FUZZ_DUMP_TX=dir: every frame sent also goes to dir/tx-N, the
 * frames the firmware builds as seeds for the RX harness (mkseeds.py).
 */
static void fz_dump_tx(const void *frame, size_t len)
{
	static const char *dir;
	static bool checked;
	static unsigned long n;
	char path[4096];
	FILE *f;

	if (!checked) {
		dir = getenv("ORDMA_FUZZ_DUMP_TX");
		checked = true;
	}
	if (!dir)
		return;
	snprintf(path, sizeof(path), "%s/tx-%05lu", dir, n++);
	f = fopen(path, "wb");
	if (f) {
		fwrite(frame, 1, len, f);
		fclose(f);
	}
}

static void fz_tx_frame(void *ctx, const void *frame, size_t len)
{
	fz_check_tx(frame, len);
	fz_dump_tx(frame, len);
	fake_hal_ops.tx_frame(ctx, frame, len);
}

static const struct ordma_hal_ops fz_hal_ops_checked = {
	.dma_read = fz_dma_read,
	.dma_write = fz_dma_write,
	.msix_notify = NULL,		/* filled from fake_hal_ops */
	.tx_frame = fz_tx_frame,
};

static struct ordma_hal_ops fz_ops;

static const struct ordma_hal_ops *fz_hal_ops(void)
{
	if (!fz_ops.now_ns) {
		fz_ops = fake_hal_ops;
		fz_ops.dma_read = fz_hal_ops_checked.dma_read;
		fz_ops.dma_write = fz_hal_ops_checked.dma_write;
		fz_ops.tx_frame = fz_hal_ops_checked.tx_frame;
	}
	return &fz_ops;
}

/* ------------------------------------------------------------------ */
/* One device                                                          */
/* ------------------------------------------------------------------ */

void fz_gid(int idx, uint8_t gid[16])
{
	static const uint8_t v4[16] = { [10] = 0xff, [11] = 0xff, 10, 0, 0 };

	memcpy(gid, v4, 16);
	gid[15] = (uint8_t)(1 + idx);
}

void fz_mac(int idx, uint8_t mac[6])
{
	static const uint8_t m[6] = { 0x02, 0x54, 0x00, 0x12, 0x34, 0x0a };

	memcpy(mac, m, 6);
	mac[5] = (uint8_t)(0x0a + idx);
}

bool fz_ib;
bool fz_iwarp;
const unsigned int fz_iw_qp[FZ_IW_NCONN] = { FZ_RC, FZ_SRQ_RC };

uint16_t fz_lid(int idx)
{
	return (uint16_t)(0x10 + idx);
}

/* The AV of a path to device peer (on InfiniBand, by its LID) */
static void fz_av(struct ordma_av *av, int peer, uint8_t hop_limit)
{
	fz_gid(peer, av->dgid);
	av->hop_limit = hop_limit;
	av->vlan_id = cpu_to_le16(ORDMA_VLAN_NONE);
	if (fz_ib)
		av->dlid = cpu_to_le16(fz_lid(peer));
	else
		fz_mac(peer, av->dmac);
}

void fz_put(void *dst, const void *src, size_t len)
{
	uint8_t *d = dst;
	const uint8_t *s = src;
	size_t i;

	for (i = 0; i < len; i++)
		d[i] = s[i] == FZ_CANARY ? FZ_CANARY - 1 : s[i];
}

uint64_t fz_wq_base(unsigned int q)
{
	return DRV_WQ_ADDR(2 + q);
}

uint8_t *fz_sq_slot(struct fz_dev *v, unsigned int q, uint32_t idx)
{
	return drv_mem(&v->d, fz_wq_base(q) +
		       ((uint64_t)(idx & ((1u << FZ_SQ_LOG) - 1)) << FZ_SQ_SHIFT),
		       1u << FZ_SQ_SHIFT);
}

uint8_t *fz_rq_slot(struct fz_dev *v, unsigned int q, uint32_t idx)
{
	return drv_mem(&v->d, fz_wq_base(q) + FZ_RQ_OFF +
		       ((uint64_t)(idx & ((1u << FZ_RQ_LOG) - 1)) << FZ_RQ_SHIFT),
		       1u << FZ_RQ_SHIFT);
}

uint8_t *fz_srq_slot(struct fz_dev *v, uint32_t idx)
{
	return drv_mem(&v->d, fz_wq_base(FZ_NQP) +
		       ((uint64_t)(idx & ((1u << FZ_SRQ_LOG) - 1)) << FZ_SRQ_SHIFT),
		       1u << FZ_SRQ_SHIFT);
}

void fz_ring_sq(struct fz_dev *v, unsigned int q)
{
	drv_db(&v->d, v->uctx, ORDMA_DB_SQ, v->qpn[q], v->sq_pi[q], 0);
}

static void fz_sge(uint8_t *p, uint64_t addr, uint32_t len, uint32_t key)
{
	struct ordma_sge g;

	g.addr = cpu_to_le64(addr);
	g.length = cpu_to_le32(len);
	g.lkey = cpu_to_le32(key);
	memcpy(p, &g, sizeof(g));
}

void fz_post_recv(struct fz_dev *v, unsigned int q, uint64_t addr,
		  uint32_t len, uint32_t key)
{
	uint8_t *p = fz_rq_slot(v, q, v->rq_pi[q]);
	struct ordma_recv_wqe r;

	memset(p, 0, 1u << FZ_RQ_SHIFT);
	memset(&r, 0, sizeof(r));
	r.num_sge = cpu_to_le32(1);
	memcpy(p, &r, sizeof(r));
	fz_sge(p + sizeof(r), addr, len, key);
	v->rq_pi[q]++;
	drv_db(&v->d, v->uctx, ORDMA_DB_RQ, v->qpn[q], v->rq_pi[q], 0);
}

void fz_post_srq(struct fz_dev *v, uint64_t addr, uint32_t len, uint32_t key)
{
	uint8_t *p = fz_srq_slot(v, v->srq_pi);
	struct ordma_recv_wqe r;

	memset(&r, 0, sizeof(r));
	r.num_sge = cpu_to_le32(1);
	memcpy(p, &r, sizeof(r));
	fz_sge(p + sizeof(r), addr, len, key);
	v->srq_pi++;
	drv_db(&v->d, v->uctx, ORDMA_DB_SRQ, v->srqn, v->srq_pi, 0);
}

unsigned int fz_poll(struct fz_dev *v)
{
	struct ordma_cqe c;
	unsigned int n = 0;

	while (n < 4096 && (drv_cq_next(&v->d, &v->scq, &c) ||
			    drv_cq_next(&v->d, &v->rcq, &c)))
		n++;
	drv_cq_arm(&v->d, &v->scq, false);
	drv_cq_arm(&v->d, &v->rcq, false);
	return n;
}

/*
 * Host memory is allocated once per device index and, for each input,
 * cleared where the setup and the process put anything; the rest is
 * memory the device is not allowed to touch (fz_forbidden), so what it
 * holds cannot change a run.  Faulting in 32 MiB for every input would
 * cost more than the input itself.
 */
static uint8_t *fz_mem[2];
static struct ordma_fw *fz_fw[2];
static const struct fake_hal *fz_fw_hal[2];
static bool fz_fw_ib[2];		/* fz_fw[i] has an InfiniBand port */

static void fz_mem_clear(uint8_t *mem, uint64_t lo, uint64_t hi, int byte)
{
	memset(mem + (lo - FAKE_MEM_BASE), byte, hi - lo);
}

static bool fz_drv_create(struct drv *d, int idx)
{
	struct ordma_fw_config cfg;
	uint8_t *mem;

	drv_default_config(&cfg);
	fz_mac(idx, cfg.mac);
	if (fz_ib)
		cfg.link_layer = ORDMA_LINK_LAYER_INFINIBAND;
	memset(d, 0, sizeof(*d));
	if (!fz_mem[idx])
		fz_mem[idx] = calloc(1, FAKE_MEM_SIZE);
	mem = fz_mem[idx];
	if (!mem)
		return false;
	fz_mem_clear(mem, DRV_AQ_ADDR, DRV_SCRATCH_ADDR, 0);
	fz_mem_clear(mem, DRV_EQ_ADDR(0), DRV_EQ_ADDR(2), 0);
	fz_mem_clear(mem, DRV_CQ_ADDR(0), DRV_CQ_ADDR(2), 0);
	fz_mem_clear(mem, DRV_CQ_DBREC_ADDR(0), DRV_CQ_DBREC_ADDR(64), 0);
	fz_mem_clear(mem, FZ_MR_ALL, FZ_GUARD, 0);
	fz_mem_clear(mem, FZ_GUARD, FZ_GUARD_CHECKED, FZ_CANARY);
	fz_mem_clear(mem, fz_wq_base(0), fz_wq_base(FZ_NQP + 1), 0);
	d->hal.mem = mem;
	d->hal.timer_deadline = UINT64_MAX;
	d->hal.now_ns = 1000000000ULL;
	d->cfg = cfg;
	d->hal.num_vectors = cfg.num_vectors;
	d->hal.ib_port = fz_ib;
	/* A function level reset between inputs, as a driver would do it:
	 * creating the device costs its tables' page faults every time.
	 * The HAL context is bound at creation, so the drv must not move.
	 */
	if (fz_fw[idx] && fz_fw_hal[idx] == &d->hal && fz_fw_ib[idx] == fz_ib) {
		d->fw = fz_fw[idx];
		ordma_fw_reset(d->fw);
	} else {
		ordma_fw_destroy(fz_fw[idx]);
		d->fw = ordma_fw_create(fz_hal_ops(), &d->hal, &cfg);
		fz_fw[idx] = d->fw;
		fz_fw_hal[idx] = &d->hal;
		fz_fw_ib[idx] = fz_ib;
	}
	d->hal.fw = d->fw;
	d->next_token = 0x100;
	if (!d->fw)
		return false;
	return drv_enable(d, 5);
}

static uint8_t fz_alloc_mw(struct fz_dev *v, uint8_t type, uint8_t key,
			   uint32_t *rkey)
{
	struct ordma_aq_cmd cmd;
	uint8_t status;

	drv_cmd_init(&cmd, ORDMA_CMD_ALLOC_MW);
	cmd.alloc_mw.pdn = cpu_to_le32(v->pdn);
	cmd.alloc_mw.uctx = cpu_to_le32(v->uctx);
	cmd.alloc_mw.type = type;
	cmd.alloc_mw.key = key;
	status = drv_exec(&v->d, &cmd);
	*rkey = le32_to_cpu(v->d.last_comp.handle.handle);
	return status;
}

static bool fz_create_qp(struct fz_dev *v, unsigned int q, uint8_t type,
			 uint32_t srqn)
{
	struct ordma_qp_create_params p;
	uint64_t base = fz_wq_base(q);

	drv_qp_params(&p, v->uctx, v->pdn, type, v->scq.cqn, v->rcq.cqn, srqn, 0);
	p.sq_log_size = FZ_SQ_LOG;
	p.sq_wqe_shift = FZ_SQ_SHIFT;
	p.max_inline_data = cpu_to_le32(128);
	drv_page_list_contig(&p.sq, base, (1u << FZ_SQ_LOG) << FZ_SQ_SHIFT);
	if (srqn == ORDMA_NO_SRQ) {
		p.rq_log_size = FZ_RQ_LOG;
		p.rq_wqe_shift = FZ_RQ_SHIFT;
		drv_page_list_contig(&p.rq, base + FZ_RQ_OFF,
				     (1u << FZ_RQ_LOG) << FZ_RQ_SHIFT);
	} else {
		memset(&p.rq, 0, sizeof(p.rq));
		p.rq_log_size = 0;
		p.rq_wqe_shift = 0;
	}
	return drv_create_qp(&v->d, &p, &v->qpn[q]) == OK;
}

bool fz_dev_open(struct fz_dev *v, int idx)
{
	/* iWARP has no atomics: an MR granting them is refused */
	const uint32_t all = fz_iwarp ?
			     DRV_ACCESS_ALL & ~ORDMA_ACCESS_REMOTE_ATOMIC :
			     DRV_ACCESS_ALL;
	struct ordma_aq_cmd cmd;
	unsigned int q;

	memset(v, 0, sizeof(*v));
	v->idx = idx;
	if (!fz_drv_create(&v->d, idx))
		return false;
	fz_gid(idx, v->gid);
	fz_mac(idx, v->mac);
	if (fz_ib) {
		struct fw_ib_port *ib = &v->d.fw->ib;

		ib->lid = fz_lid(idx);
		ib->lmc = 0;
		ib->state = ORDMA_PORT_ACTIVE;
		memset(ib->sl_to_vl, 0, sizeof(ib->sl_to_vl));
	}
	if (!drv_eq_open(&v->d, &v->async, ORDMA_EQ_TYPE_ASYNC, 0, 10) ||
	    !drv_eq_open(&v->d, &v->comp, ORDMA_EQ_TYPE_COMP, 1, 8) ||
	    (fz_iwarp && drv_set_rdma_protocol(&v->d,
					       ORDMA_PORT_PROTO_IWARP) != OK) ||
	    (!fz_ib && drv_port_up(&v->d) != OK) ||
	    (fz_iwarp ? drv_add_ip_gid(&v->d, 0, v->gid, v->mac) :
			drv_add_gid(&v->d, 0, v->gid, v->mac,
				    ORDMA_VLAN_NONE)) != OK ||
	    drv_alloc_uctx(&v->d, &v->uctx) != OK ||
	    drv_alloc_pd(&v->d, v->uctx, &v->pdn) != OK ||
	    !drv_cq_open(&v->d, &v->scq, 0, v->uctx, v->comp.eqn, 10) ||
	    !drv_cq_open(&v->d, &v->rcq, 1, v->uctx, v->comp.eqn, 10) ||
	    drv_reg_mr_contig(&v->d, v->pdn, v->uctx, FZ_MR_ALL, FZ_MR_ALL,
			      FZ_MR_ALL_LEN, all, 0x11,
			      &v->key_all) != OK ||
	    drv_reg_mr_contig(&v->d, v->pdn, v->uctx, FZ_MR_LW, FZ_MR_LW,
			      FZ_MR_LW_LEN, ORDMA_ACCESS_LOCAL_WRITE, 0x22,
			      &v->key_lw) != OK ||
	    drv_reg_mr_contig(&v->d, v->pdn, v->uctx, FZ_MR_BIND, FZ_MR_BIND,
			      FZ_MR_BIND_LEN, ORDMA_ACCESS_LOCAL_WRITE |
			      ORDMA_ACCESS_MW_BIND, 0x33, &v->key_bind) != OK ||
	    fz_alloc_mw(v, ORDMA_MW_TYPE_1, 0x61, &v->mw1) != OK ||
	    fz_alloc_mw(v, ORDMA_MW_TYPE_2, 0x62, &v->mw2) != OK)
		goto fail;
	if (drv_create_srq(&v->d, v->uctx, v->pdn, FZ_SRQ_LOG, 4, 2 + FZ_NQP,
			   &v->srqn) != OK)
		goto fail;
	for (q = 0; q < FZ_NQP; q++) {
		static const uint8_t type[FZ_NQP] = {
			[FZ_RC] = ORDMA_QPT_RC, [FZ_UC] = ORDMA_QPT_UC,
			[FZ_UD] = ORDMA_QPT_UD, [FZ_SRQ_RC] = ORDMA_QPT_RC,
		};

		if (fz_iwarp && type[q] != ORDMA_QPT_RC)
			continue;
		if (!fz_create_qp(v, q, type[q],
				  q == FZ_SRQ_RC ? v->srqn : ORDMA_NO_SRQ))
			goto fail;
	}
	if (fz_iwarp)
		return true;
	drv_cmd_init(&cmd, ORDMA_CMD_CREATE_AH);
	cmd.create_ah.pdn = cpu_to_le32(v->pdn);
	cmd.create_ah.uctx = cpu_to_le32(v->uctx);
	memcpy(cmd.create_ah.av.dgid, fz_mcast_gid, 16);
	if (fz_ib)
		cmd.create_ah.av.dlid = cpu_to_le16(FW_IB_LID_MCAST_MIN + 1);
	else
		memcpy(cmd.create_ah.av.dmac, fz_mcast_mac, 6);
	cmd.create_ah.av.hop_limit = 1;
	cmd.create_ah.av.vlan_id = cpu_to_le16(ORDMA_VLAN_NONE);
	if (drv_exec(&v->d, &cmd) != OK)
		goto fail;
	v->mcast_ah = le32_to_cpu(v->d.last_comp.handle.handle);
	return true;
fail:
	fz_dev_close(v);
	return false;
}

static uint32_t fz_psn(int idx)
{
	/* one side starts right before the 24-bit wrap */
	return idx ? 0xfffff0 : 0x100;
}

static uint8_t fz_qp_step(struct fz_dev *v, unsigned int q, uint8_t cur,
			  uint8_t next, int peer, uint32_t peer_qpn)
{
	struct fw_qp_transition rule;
	struct ordma_qp_attr a;
	uint8_t type = q == FZ_UD ? ORDMA_QPT_UD :
		       q == FZ_UC ? ORDMA_QPT_UC : ORDMA_QPT_RC;
	uint32_t mask;

	fw_qp_transition_rule(type, cur, next, &rule);
	mask = rule.required | A(STATE);
	if (type == ORDMA_QPT_RC && next == ORDMA_QPS_RTR)
		mask |= A(MIN_RNR_TIMER) | A(MAX_DEST_RD_ATOMIC);
	if (type == ORDMA_QPT_RC && next == ORDMA_QPS_RTS)
		mask |= A(MAX_QP_RD_ATOMIC) | A(TIMEOUT) | A(RETRY_CNT) |
			A(RNR_RETRY);
	mask &= rule.required | rule.optional | A(STATE);
	memset(&a, 0, sizeof(a));
	a.attr_mask = cpu_to_le32(mask);
	a.state = next;
	/* a field without its mask bit is refused */
	if (mask & A(ACCESS_FLAGS))
		a.access_flags = cpu_to_le32(ORDMA_ACCESS_REMOTE_WRITE |
					     ORDMA_ACCESS_REMOTE_READ |
					     ORDMA_ACCESS_REMOTE_ATOMIC);
	if (mask & A(PORT))
		a.port = ORDMA_PORT_NUM;
	if (mask & A(QKEY))
		a.qkey = cpu_to_le32(FZ_QKEY);
	if (mask & A(AV))
		fz_av(&a.av, peer, 64);
	if (mask & A(PATH_MTU))
		a.path_mtu = FZ_PATH_MTU;
	if (mask & A(TIMEOUT))
		a.timeout = 10;
	if (mask & A(RETRY_CNT))
		a.retry_cnt = 3;
	if (mask & A(RNR_RETRY))
		a.rnr_retry = 3;
	if (mask & A(RQ_PSN))
		a.rq_psn = cpu_to_le32(fz_psn(peer));
	if (mask & A(SQ_PSN))
		a.sq_psn = cpu_to_le32(fz_psn(v->idx));
	if (mask & A(MAX_QP_RD_ATOMIC))
		a.max_rd_atomic = 4;
	if (mask & A(MAX_DEST_RD_ATOMIC))
		a.max_dest_rd_atomic = 16;
	if (mask & A(MIN_RNR_TIMER))
		a.min_rnr_timer = 1;
	if (mask & A(DEST_QPN))
		a.dest_qpn = cpu_to_le32(peer_qpn);
	return drv_modify_qp(&v->d, v->qpn[q], &a);
}

static void fz_bind(struct fz_dev *v, uint32_t rkey, uint64_t addr,
		    uint32_t access)
{
	uint8_t *p = fz_sq_slot(v, FZ_RC, v->sq_pi[FZ_RC]);
	struct ordma_send_wqe w;

	memset(p, 0, 1u << FZ_SQ_SHIFT);
	memset(&w, 0, sizeof(w));
	w.ctrl.ctrl = cpu_to_le32(FIELD_PREP(ORDMA_WQE_OPCODE,
					     ORDMA_WQE_BIND_MW) |
				  ORDMA_WQE_SIGNALED);
	w.bind_mw.addr = cpu_to_le64(addr);
	w.bind_mw.length = cpu_to_le64(FZ_MW_LEN);
	w.bind_mw.mw_rkey = cpu_to_le32(rkey);
	w.bind_mw.mr_lkey = cpu_to_le32(v->key_bind);
	w.bind_mw.access = cpu_to_le32(access);
	memcpy(p, &w, sizeof(w));
	v->sq_pi[FZ_RC]++;
	fz_ring_sq(v, FZ_RC);
}

/* Windows bound and receives posted on the QPs in RTS */
static bool fz_dev_ready(struct fz_dev *v)
{
	uint32_t access = ORDMA_ACCESS_REMOTE_WRITE | ORDMA_ACCESS_REMOTE_READ;
	unsigned int q, i;

	/* windows: the next key variant, bound through the RC QP */
	v->mw1 = (v->mw1 & ORDMA_KEY_INDEX) | ((v->mw1 + 1) & 0xff);
	v->mw2 = (v->mw2 & ORDMA_KEY_INDEX) | ((v->mw2 + 1) & 0xff);
	fz_bind(v, v->mw1, FZ_MW1_ADDR, access);
	fz_bind(v, v->mw2, FZ_MW2_ADDR, access | ORDMA_ACCESS_ZERO_BASED);
	if (fz_poll(v) != 2)
		return false;

	/* 16 receives on each RQ and 16 on the SRQ, 4 KiB each */
	for (i = 0; i < 16; i++) {
		for (q = 0; q < FZ_NQP; q++)
			if (q != FZ_SRQ_RC && v->qpn[q])
				fz_post_recv(v, q, FZ_MR_ALL + q * 0x20000 +
					     i * 0x1000, 0x1000, v->key_all);
		fz_post_srq(v, FZ_MR_ALL + 0x80000 + i * 0x1000, 0x1000,
			    v->key_all);
	}
	return true;
}

bool fz_dev_connect(struct fz_dev *v, int peer,
		    const uint32_t peer_qpn[FZ_NQP])
{
	static const uint8_t path[] = { ORDMA_QPS_INIT, ORDMA_QPS_RTR,
					ORDMA_QPS_RTS };
	struct ordma_aq_cmd cmd;
	unsigned int q, k;

	for (q = 0; q < FZ_NQP; q++)
		for (k = 0; k < sizeof(path); k++)
			if (fz_qp_step(v, q, k ? path[k - 1] : ORDMA_QPS_RESET,
				       path[k], peer, peer_qpn[q]) != OK)
				return false;
	drv_cmd_init(&cmd, ORDMA_CMD_CREATE_AH);
	cmd.create_ah.pdn = cpu_to_le32(v->pdn);
	cmd.create_ah.uctx = cpu_to_le32(v->uctx);
	fz_av(&cmd.create_ah.av, peer, 7);
	if (drv_exec(&v->d, &cmd) != OK)
		return false;
	v->ah = le32_to_cpu(v->d.last_comp.handle.handle);
	drv_cmd_init(&cmd, ORDMA_CMD_ATTACH_MCAST);
	cmd.mcast.qpn = cpu_to_le32(v->qpn[FZ_UD]);
	cmd.mcast.uctx = cpu_to_le32(v->uctx);
	memcpy(cmd.mcast.gid, fz_mcast_gid, 16);
	if (drv_exec(&v->d, &cmd) != OK)
		return false;
	return fz_dev_ready(v);
}

/* The device and its host memory stay for the next input. */
void fz_dev_close(struct fz_dev *v)
{
	if (v->d.fw)
		ordma_fw_reset(v->d.fw);
	v->d.fw = NULL;
	v->d.hal.mem = NULL;
}

void fz_dev_check(struct fz_dev *v)
{
	static uint8_t canary[4096];
	const uint8_t *g = drv_mem(&v->d, FZ_GUARD, FZ_GUARD_CHECKED - FZ_GUARD);
	size_t i;

	if (!canary[0])
		memset(canary, FZ_CANARY, sizeof(canary));
	for (i = 0; i < FZ_GUARD_CHECKED - FZ_GUARD; i += sizeof(canary))
		if (memcmp(g + i, canary, sizeof(canary)))
			fz_fail("guard page at %#llx changed",
				(unsigned long long)(FZ_GUARD + i));
	if (v->d.hal.tx_bad_len)
		fz_fail("%lu frames of a bad length", v->d.hal.tx_bad_len);
	if (v->d.hal.msix_bad_vector)
		fz_fail("interrupt on a vector that does not exist");
	if (drv_simple(&v->d, ORDMA_CMD_QUERY_FW) != OK)
		fz_fail("the device stopped answering admin commands");
}

/* ------------------------------------------------------------------ */
/* The wire                                                            */
/* ------------------------------------------------------------------ */

#define FZ_LINK_MAX	4096	/* frames queued per direction */

/* Both devices open, each sending onto its side of the wire */
static bool fz_env_devs(struct fz_env *e)
{
	int i;

	memset(e, 0, sizeof(*e));
	if (!fz_dev_open(&e->v[0], 0))
		return false;
	if (!fz_dev_open(&e->v[1], 1)) {
		fz_dev_close(&e->v[0]);
		return false;
	}
	for (i = 0; i < 2; i++) {
		e->l[i].limit = FZ_LINK_MAX;
		e->v[i].d.hal.tx_hook = link_tx_hook;
		e->v[i].d.hal.tx_hook_arg = &e->l[i];
	}
	return true;
}

bool fz_env_open(struct fz_env *e)
{
	if (!fz_env_devs(e))
		return false;
	if (!fz_dev_connect(&e->v[0], 1, e->v[1].qpn) ||
	    !fz_dev_connect(&e->v[1], 0, e->v[0].qpn)) {
		fz_env_close(e);
		return false;
	}
	return true;
}

/* The next IW_CONN_REQUEST on v's async EQ (other events skipped) */
static bool fz_iw_request(struct fz_dev *v, uint32_t *conn)
{
	struct ordma_eqe eqe;

	while (drv_eq_next(&v->d, &v->async, &eqe)) {
		drv_eq_update(&v->d, &v->async, false);
		if (FIELD_GET(ORDMA_EQE_TYPE, le32_to_cpu(eqe.type)) ==
		    ORDMA_EQE_IW_CONN_REQUEST) {
			*conn = le32_to_cpu(eqe.data[0]);
			return true;
		}
	}
	return false;
}

/* IW_* parameters, out of the scratch area the checking HAL forbids */
#define FZ_IW_PARAMS_ADDR	(DRV_BUF_ADDR + 0x3000)

static bool fz_iw_connect(struct fz_env *e, unsigned int k)
{
	struct fz_dev *a = &e->v[0], *b = &e->v[1];
	unsigned int q = fz_iw_qp[k];
	struct ordma_iw_conn_params p;
	struct fw_tcp_conn_info info;
	struct fw_qp *qp;
	int i;

	memset(&p, 0, sizeof(p));
	memcpy(p.remote_ip, b->gid, 16);
	p.remote_port = cpu_to_le16(FZ_IW_PORT);
	memcpy(p.next_hop_mac, b->mac, 6);
	p.qpn = cpu_to_le32(a->qpn[q]);
	p.ird = cpu_to_le16(4);
	p.ord = cpu_to_le16(4);
	if (drv_iw_conn_cmd_at(&a->d, FZ_IW_PARAMS_ADDR, ORDMA_CMD_IW_CONNECT,
			       &p, &a->iw_conn[k]) != OK)
		return false;
	fz_pump(e, 1000);
	memset(&p, 0, sizeof(p));
	if (!fz_iw_request(b, &b->iw_conn[k]))
		return false;
	p.conn = cpu_to_le32(b->iw_conn[k]);
	p.qpn = cpu_to_le32(b->qpn[q]);
	p.ird = cpu_to_le16(4);
	p.ord = cpu_to_le16(4);
	if (drv_iw_conn_cmd_at(&b->d, FZ_IW_PARAMS_ADDR, ORDMA_CMD_IW_ACCEPT,
			       &p, NULL) != OK)
		return false;
	fz_pump(e, 1000);
	for (i = 0; i < 2; i++) {
		qp = fw_qp_lookup(e->v[i].d.fw, e->v[i].qpn[q]);
		if (!qp || qp->state != ORDMA_QPS_RTS)
			return false;
	}
	if (fw_tcp_conn_info(b->d.fw, b->iw_conn[k], &info))
		return false;
	b->iw_port[k][0] = info.local_port;
	b->iw_port[k][1] = info.remote_port;
	return true;
}

bool fz_iw_env_open(struct fz_env *e)
{
	unsigned int k, q;

	if (!fz_env_devs(e))
		return false;
	for (q = 0; q < FZ_NQP; q++)
		if (e->v[0].qpn[q] && (!drv_iw_qp_rtr(&e->v[0].d, e->v[0].qpn[q]) ||
				       !drv_iw_qp_rtr(&e->v[1].d, e->v[1].qpn[q])))
			goto fail;
	if (drv_iw_listen(&e->v[1].d, FZ_IW_PORT, 4, &e->v[1].iw_listener) !=
	    OK)
		goto fail;
	for (k = 0; k < FZ_IW_NCONN; k++)
		if (!fz_iw_connect(e, k))
			goto fail;
	if (fz_dev_ready(&e->v[0]) && fz_dev_ready(&e->v[1]))
		return true;
fail:
	fz_env_close(e);
	return false;
}

void fz_env_close(struct fz_env *e)
{
	int i;

	for (i = 0; i < 2; i++) {
		fz_dev_close(&e->v[i]);
		link_free(&e->l[i]);
	}
}

bool fz_deliver(struct fz_env *e, int i)
{
	return link_deliver(&e->l[i], e->v[!i].d.fw);
}

void fz_advance(struct fz_env *e, uint64_t ns)
{
	fake_advance(&e->v[0].d.hal, ns);
	fake_advance(&e->v[1].d.hal, ns);
}

unsigned long fz_pump(struct fz_env *e, unsigned long max)
{
	unsigned long n = 0;
	unsigned int quiet = 0;

	while (n < max && quiet < 4) {
		bool moved = false;
		int i;

		for (i = 0; i < 2; i++)
			if (fz_deliver(e, i)) {
				moved = true;
				n++;
			}
		if (moved) {
			quiet = 0;
			continue;
		}
		/* paced bursts and retransmissions wait for the clock */
		fz_advance(e, 1000000);
		quiet++;
	}
	return n;
}

/* ------------------------------------------------------------------ */
/* Input                                                               */
/* ------------------------------------------------------------------ */

bool fz_take(struct fz_in *in, void *out, size_t len)
{
	if (in->left < len) {
		memset(out, 0, len);
		in->left = 0;
		return false;
	}
	memcpy(out, in->p, len);
	in->p += len;
	in->left -= len;
	return true;
}

uint8_t fz_u8(struct fz_in *in)
{
	uint8_t v;

	fz_take(in, &v, 1);
	return v;
}

uint16_t fz_u16(struct fz_in *in)
{
	uint16_t v;

	fz_take(in, &v, 2);
	return le16_to_cpu(v);
}

uint32_t fz_u32(struct fz_in *in)
{
	uint32_t v;

	fz_take(in, &v, 4);
	return le32_to_cpu(v);
}
