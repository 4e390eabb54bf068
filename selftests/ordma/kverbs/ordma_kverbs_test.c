// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA kernel verbs selftest: the verbs a kernel ULP uses, between an RC
 * QP on each of two RDMA devices (dev_a and dev_b, normally the two ORDMA
 * NICs of one machine cabled to each other).  Everything runs at module
 * init; each step prints one TAP-like line
 *
 *	ordma_kverbs: ok N - what
 *	ordma_kverbs: not ok N - what: why
 *
 * after "ordma_kverbs: begin" and "ordma_kverbs: 1..N", and the run ends
 * with "ordma_kverbs: done P passed F failed".  Every object is released
 * before init returns, so the module holds nothing and unloads at once.
 * Init fails (-ENODEV) only when the devices are not there.
 *
 * Every wait is bounded (KV_TIMEOUT_MS).  Once a step fails, the data
 * steps after it are reported as not run; the cleanup steps always run.
 */

#define pr_fmt(fmt) "ordma_kverbs: " fmt

#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <linux/gfp.h>
#include <linux/ipv6.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/ordma/ordma_hw.h>
#include <linux/scatterlist.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

static char *dev_a = "ordma0";
module_param(dev_a, charp, 0444);
MODULE_PARM_DESC(dev_a, "RDMA device of side A (requester)");
static char *dev_b = "ordma1";
module_param(dev_b, charp, 0444);
MODULE_PARM_DESC(dev_b, "RDMA device of side B (responder)");
static int gid_index_a = -1;
module_param(gid_index_a, int, 0444);
MODULE_PARM_DESC(gid_index_a, "GID index on dev_a (-1: first IPv4 RoCE v2 GID)");
static int gid_index_b = -1;
module_param(gid_index_b, int, 0444);
MODULE_PARM_DESC(gid_index_b, "GID index on dev_b (-1: first IPv4 RoCE v2 GID)");

#define KV_PORT			ORDMA_PORT_NUM
#define KV_TIMEOUT_MS		10000
#define KV_QP_WR		16
#define KV_INLINE		64

/* Per-side buffer: [0, 16K) source, [16K, 32K) destination */
#define KV_BUF_ORDER		3
#define KV_BUF_SIZE		(PAGE_SIZE << KV_BUF_ORDER)
#define KV_SRC			0
#define KV_DST			(16 * 1024)
#define KV_SEND_LEN		5000
#define KV_SMALL_LEN		64

/* B's fast-registration MR: 3 pages' worth at offset 100 of 16 KiB */
#define KV_MR_ORDER		2
#define KV_MR_BUF_SIZE		(PAGE_SIZE << KV_MR_ORDER)
#define KV_MR_OFF		100
#define KV_MR_LEN		(3 * 4096)
#define KV_MR_PAGES		(KV_MR_BUF_SIZE / PAGE_SIZE)
#define KV_GUARD		0xee

#define KV_PSN_A		0x1234
#define KV_PSN_B		0x5678

/*
 * B's SRQ, shared by KV_SRQ_QPS QPs: KV_SRQ_WR slots, receive buffers of
 * KV_SRQ_BUF bytes from KV_DST on; messages from KV_SRC + j * KV_SRQ_BUF
 * on A, message j KV_SRQ_LEN + j bytes long, so that its length names it.
 */
#define KV_SRQ_QPS		2
#define KV_SRQ_WR		16
#define KV_SRQ_BUF		512
#define KV_SRQ_LEN		300
#define KV_SRQ_POSTED		8
#define KV_SRQ_LIMIT		4
#define KV_SRQ_MSGS		6
#define KV_SRQ_SEED		0x40
#define KV_PSN_SRQ		0x9000

/* Signaled WRITEs into a 2-entry CQ nobody polls: the third overruns it */
#define KV_OVF_WRITES		5
#define KV_PSN_OVF		0xa000

enum {
	KV_WRID_SEND = 0x100,
	KV_WRID_RECV,
	KV_WRID_REG,
	KV_WRID_WRITE,
	KV_WRID_READ,
	KV_WRID_INV,
	KV_WRID_SEND_INV,
	KV_WRID_SRQ_SEND = 0x200,	/* + message number */
	KV_WRID_SRQ_RECV = 0x300,	/* + post number */
	KV_WRID_OVF = 0x400,		/* + WRITE number */
};

struct kv_side {
	const char *name;
	struct ib_device *dev;
	int gid_index;
	const struct ib_gid_attr *sgid_attr;
	union ib_gid gid;
	u8 mac[ETH_ALEN];
	u32 psn;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp;
	void *buf;
	u64 dma;
	struct completion cq_event;
	atomic_t qp_events;
};

struct kv_ctx {
	struct kv_side a, b;
	/* B's fast-registration MR and the memory it maps */
	struct ib_mr *mr;
	void *mr_buf;
	struct scatterlist sg;
	bool sg_mapped;
	u32 old_rkey;
	/* B's SRQ, a QP on it per srq_b[], each connected to srq_a[] */
	struct ib_srq *srq;
	struct kv_side srq_a[KV_SRQ_QPS], srq_b[KV_SRQ_QPS];
	u32 srq_posts;
	struct completion srq_limit;
	/* a QP on A whose CQ (ovf_cq, 2 entries) overruns, and its peer */
	struct ib_cq *ovf_cq;
	struct kv_side ovf_a, ovf_b;
	struct completion ovf_cq_err;
	/* A command timed out: the device may still use the buffers */
	bool leak;
};

static unsigned int kv_num, kv_pass, kv_fail;

static void kv_report(bool ok, const char *name, const char *why)
{
	kv_num++;
	if (ok) {
		kv_pass++;
		pr_info("ok %u - %s\n", kv_num, name);
	} else {
		kv_fail++;
		pr_info("not ok %u - %s: %s\n", kv_num, name, why);
	}
}

#define KV_WHY_LEN	160
#define kv_why(why, ...)	snprintf(why, KV_WHY_LEN, __VA_ARGS__)

static u8 kv_pattern(size_t i, u8 seed)
{
	return (u8)(seed + i * 7 + (i >> 8) * 13);
}

static void kv_fill(void *p, size_t len, u8 seed)
{
	u8 *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		b[i] = kv_pattern(i, seed);
}

/* Offset of the first byte of @p that is not the pattern, or -1 */
static long kv_check(const void *p, size_t len, u8 seed)
{
	const u8 *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i] != kv_pattern(i, seed))
			return i;
	return -1;
}

/* Offset of the first byte of @p that is not @c, or -1 */
static long kv_check_byte(const void *p, size_t len, u8 c)
{
	const u8 *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i] != c)
			return i;
	return -1;
}

static void kv_buf_for_cpu(struct kv_side *s)
{
	ib_dma_sync_single_for_cpu(s->dev, s->dma, KV_BUF_SIZE,
				   DMA_BIDIRECTIONAL);
}

static void kv_buf_for_dev(struct kv_side *s)
{
	ib_dma_sync_single_for_device(s->dev, s->dma, KV_BUF_SIZE,
				      DMA_BIDIRECTIONAL);
}

/* ib_verbs.h has no sync for scatterlists */
static void kv_mr_for_cpu(struct kv_ctx *ctx)
{
	if (!ib_uses_virt_dma(ctx->b.dev))
		dma_sync_sg_for_cpu(ctx->b.dev->dma_device, &ctx->sg, 1,
				    DMA_BIDIRECTIONAL);
}

static void kv_mr_for_dev(struct kv_ctx *ctx)
{
	if (!ib_uses_virt_dma(ctx->b.dev))
		dma_sync_sg_for_device(ctx->b.dev->dma_device, &ctx->sg, 1,
				       DMA_BIDIRECTIONAL);
}

/* Wait for one completion on @s's CQ. */
static int kv_poll(struct kv_side *s, struct ib_wc *wc)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(KV_TIMEOUT_MS);
	int n;

	for (;;) {
		n = ib_poll_cq(s->cq, 1, wc);
		if (n > 0)
			return 0;
		if (n < 0)
			return n;
		if (time_after(jiffies, deadline))
			return -ETIMEDOUT;
		usleep_range(50, 200);
	}
}

/*
 * Wait for the completion of @wr_id on @s and check it; @opcode and
 * @byte_len are checked only if not negative (the opcode of an error
 * completion is undefined).
 */
static int kv_expect(struct kv_side *s, u64 wr_id, enum ib_wc_status status,
		     int opcode, int byte_len, char *why)
{
	struct ib_wc wc;
	int err;

	err = kv_poll(s, &wc);
	if (err) {
		kv_why(why, "no completion of wr_id %#llx on %s: %d", wr_id,
		       s->name, err);
		return err;
	}
	if (wc.wr_id != wr_id || wc.status != status ||
	    (opcode >= 0 && wc.opcode != opcode) ||
	    (byte_len >= 0 && wc.byte_len != byte_len) ||
	    wc.qp != s->qp) {
		kv_why(why,
		       "%s: wr_id %#llx status %s opcode %d byte_len %u, expected wr_id %#llx status %s opcode %d byte_len %d",
		       s->name, wc.wr_id, ib_wc_status_msg(wc.status),
		       wc.opcode, wc.byte_len, wr_id, ib_wc_status_msg(status),
		       opcode, byte_len);
		return -EIO;
	}
	return 0;
}

/* Nothing more may be on the CQ of @s. */
static int kv_expect_none(struct kv_side *s, char *why)
{
	struct ib_wc wc;
	int n;

	n = ib_poll_cq(s->cq, 1, &wc);
	if (n) {
		kv_why(why, "unexpected completion on %s: %d, wr_id %#llx status %s",
		       s->name, n, n > 0 ? wc.wr_id : 0,
		       n > 0 ? ib_wc_status_msg(wc.status) : "-");
		return -EIO;
	}
	return 0;
}

static int kv_post_recv(struct kv_side *s, u64 wr_id, u32 off, u32 len,
			char *why)
{
	struct ib_sge sge = {
		.addr = s->dma + off,
		.length = len,
		.lkey = s->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
	};
	int err;

	err = ib_post_recv(s->qp, &wr, NULL);
	if (err)
		kv_why(why, "ib_post_recv on %s: %d", s->name, err);
	return err;
}

static int kv_post_send(struct kv_side *s, const struct ib_send_wr *wr,
			char *why)
{
	int err;

	err = ib_post_send(s->qp, wr, NULL);
	if (err)
		kv_why(why, "ib_post_send (opcode %d) on %s: %d", wr->opcode,
		       s->name, err);
	return err;
}

/* One signaled RDMA WRITE or READ from A's buffer at @off. */
static int kv_rdma(struct kv_ctx *ctx, enum ib_wr_opcode opcode, u64 wr_id,
		   u32 off, u32 len, u64 remote_addr, u32 rkey, char *why)
{
	struct kv_side *a = &ctx->a;
	struct ib_sge sge = {
		.addr = a->dma + off,
		.length = len,
		.lkey = a->pd->local_dma_lkey,
	};
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_id = wr_id,
			.sg_list = &sge,
			.num_sge = 1,
			.opcode = opcode,
			.send_flags = IB_SEND_SIGNALED,
		},
		.remote_addr = remote_addr,
		.rkey = rkey,
	};

	return kv_post_send(a, &wr.wr, why);
}

/* ---------------------------------------------------------------- */
/* Setup                                                            */
/* ---------------------------------------------------------------- */

static int kv_find_gid(struct kv_side *s, char *why)
{
	const struct ib_gid_attr *attr;
	struct ib_port_attr pattr;
	int i, first, last, err;

	err = ib_query_port(s->dev, KV_PORT, &pattr);
	if (err) {
		kv_why(why, "ib_query_port %s: %d", s->name, err);
		return err;
	}
	if (pattr.state != IB_PORT_ACTIVE) {
		kv_why(why, "%s port %u is not ACTIVE", s->name, KV_PORT);
		return -ENETDOWN;
	}
	first = s->gid_index < 0 ? 0 : s->gid_index;
	last = s->gid_index < 0 ? pattr.gid_tbl_len - 1 : s->gid_index;
	for (i = first; i <= last; i++) {
		attr = rdma_get_gid_attr(s->dev, KV_PORT, i);
		if (IS_ERR(attr))
			continue;
		if (attr->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP &&
		    ipv6_addr_v4mapped((const struct in6_addr *)attr->gid.raw)) {
			s->sgid_attr = attr;
			s->gid_index = i;
			s->gid = attr->gid;
			return 0;
		}
		rdma_put_gid_attr(attr);
	}
	kv_why(why, "%s has no IPv4 RoCE v2 GID at index %d..%d", s->name,
	       first, last);
	return -ENOENT;
}

/* The MAC of the netdev behind @s's GID: where frames to @s go. */
static int kv_gid_mac(struct kv_side *s, char *why)
{
	struct net_device *ndev;
	int err = 0;

	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(s->sgid_attr);
	if (IS_ERR(ndev))
		err = PTR_ERR(ndev);
	else
		ether_addr_copy(s->mac, ndev->dev_addr);
	rcu_read_unlock();
	if (err)
		kv_why(why, "no netdev for GID %d of %s: %d", s->gid_index,
		       s->name, err);
	return err;
}

static int kv_t_devices(struct kv_ctx *ctx, char *why)
{
	struct kv_side *sides[] = { &ctx->a, &ctx->b };
	int i, err;

	for (i = 0; i < ARRAY_SIZE(sides); i++) {
		err = kv_find_gid(sides[i], why);
		if (err)
			return err;
		err = kv_gid_mac(sides[i], why);
		if (err)
			return err;
	}
	pr_info("# %s GID %d %pI6 MAC %pM, %s GID %d %pI6 MAC %pM\n",
		ctx->a.name, ctx->a.gid_index, ctx->a.gid.raw, ctx->a.mac,
		ctx->b.name, ctx->b.gid_index, ctx->b.gid.raw, ctx->b.mac);
	return 0;
}

static int kv_t_buffers(struct kv_ctx *ctx, char *why)
{
	struct kv_side *sides[] = { &ctx->a, &ctx->b };
	struct kv_side *s;
	int i, n;

	for (i = 0; i < ARRAY_SIZE(sides); i++) {
		s = sides[i];
		s->buf = (void *)__get_free_pages(GFP_KERNEL | __GFP_ZERO,
						  KV_BUF_ORDER);
		if (!s->buf) {
			kv_why(why, "no memory for %s's buffer", s->name);
			return -ENOMEM;
		}
		s->dma = ib_dma_map_single(s->dev, s->buf, KV_BUF_SIZE,
					   DMA_BIDIRECTIONAL);
		if (ib_dma_mapping_error(s->dev, s->dma)) {
			free_pages((unsigned long)s->buf, KV_BUF_ORDER);
			s->buf = NULL;
			kv_why(why, "ib_dma_map_single on %s failed", s->name);
			return -ENOMEM;
		}
	}

	ctx->mr_buf = (void *)__get_free_pages(GFP_KERNEL, KV_MR_ORDER);
	if (!ctx->mr_buf) {
		kv_why(why, "no memory for the MR buffer");
		return -ENOMEM;
	}
	memset(ctx->mr_buf, KV_GUARD, KV_MR_BUF_SIZE);
	sg_init_one(&ctx->sg, ctx->mr_buf + KV_MR_OFF, KV_MR_LEN);
	n = ib_dma_map_sg(ctx->b.dev, &ctx->sg, 1, DMA_BIDIRECTIONAL);
	if (n != 1) {
		kv_why(why, "ib_dma_map_sg of the MR buffer: %d", n);
		return -ENOMEM;
	}
	ctx->sg_mapped = true;
	return 0;
}

static int kv_t_pds(struct kv_ctx *ctx, char *why)
{
	struct ib_pd *pd;

	pd = ib_alloc_pd(ctx->a.dev, 0);
	if (IS_ERR(pd)) {
		kv_why(why, "ib_alloc_pd on %s: %ld", ctx->a.name, PTR_ERR(pd));
		return PTR_ERR(pd);
	}
	ctx->a.pd = pd;
	/* B's also gets a remotely accessible DMA MR */
	pd = ib_alloc_pd(ctx->b.dev, IB_PD_UNSAFE_GLOBAL_RKEY);
	if (IS_ERR(pd)) {
		kv_why(why, "ib_alloc_pd(IB_PD_UNSAFE_GLOBAL_RKEY) on %s: %ld",
		       ctx->b.name, PTR_ERR(pd));
		return PTR_ERR(pd);
	}
	ctx->b.pd = pd;
	if (!ctx->a.pd->local_dma_lkey || !ctx->b.pd->local_dma_lkey ||
	    !ctx->b.pd->unsafe_global_rkey || ctx->a.pd->unsafe_global_rkey) {
		kv_why(why, "local_dma_lkey %#x/%#x, unsafe_global_rkey %#x/%#x",
		       ctx->a.pd->local_dma_lkey, ctx->b.pd->local_dma_lkey,
		       ctx->a.pd->unsafe_global_rkey,
		       ctx->b.pd->unsafe_global_rkey);
		return -EINVAL;
	}
	return 0;
}

/* B's completion handler (hard IRQ context) */
static void kv_comp_handler(struct ib_cq *cq, void *cq_context)
{
	struct kv_side *s = cq_context;

	complete(&s->cq_event);
}

static void kv_cq_event(struct ib_event *event, void *context)
{
	pr_info("# CQ event %s\n", ib_event_msg(event->event));
}

static void kv_qp_event(struct ib_event *event, void *context)
{
	struct kv_side *s = context;

	atomic_inc(&s->qp_events);
	pr_info("# %s QP event %s\n", s->name, ib_event_msg(event->event));
}

static int kv_t_cqs(struct kv_ctx *ctx, char *why)
{
	struct ib_cq_init_attr attr = { .cqe = 4 * KV_QP_WR };
	struct ib_cq *cq;

	cq = ib_alloc_cq(ctx->a.dev, &ctx->a, 4 * KV_QP_WR, 0, IB_POLL_DIRECT);
	if (IS_ERR(cq)) {
		kv_why(why, "ib_alloc_cq on %s: %ld", ctx->a.name, PTR_ERR(cq));
		return PTR_ERR(cq);
	}
	ctx->a.cq = cq;
	cq = ib_create_cq(ctx->b.dev, kv_comp_handler, kv_cq_event, &ctx->b,
			  &attr);
	if (IS_ERR(cq)) {
		kv_why(why, "ib_create_cq on %s: %ld", ctx->b.name, PTR_ERR(cq));
		return PTR_ERR(cq);
	}
	ctx->b.cq = cq;
	return 0;
}

static int kv_t_qps(struct kv_ctx *ctx, char *why)
{
	struct kv_side *sides[] = { &ctx->a, &ctx->b };
	struct ib_qp_init_attr init;
	struct kv_side *s;
	struct ib_qp *qp;
	int i;

	for (i = 0; i < ARRAY_SIZE(sides); i++) {
		s = sides[i];
		memset(&init, 0, sizeof(init));
		init.event_handler = kv_qp_event;
		init.qp_context = s;
		init.send_cq = s->cq;
		init.recv_cq = s->cq;
		init.qp_type = IB_QPT_RC;
		init.sq_sig_type = IB_SIGNAL_REQ_WR;
		init.cap.max_send_wr = KV_QP_WR;
		init.cap.max_recv_wr = KV_QP_WR;
		init.cap.max_send_sge = 1;
		init.cap.max_recv_sge = 1;
		init.cap.max_inline_data = KV_INLINE;
		qp = ib_create_qp(s->pd, &init);
		if (IS_ERR(qp)) {
			kv_why(why, "ib_create_qp RC on %s: %ld", s->name,
			       PTR_ERR(qp));
			return PTR_ERR(qp);
		}
		s->qp = qp;
		if (init.cap.max_send_wr < KV_QP_WR ||
		    init.cap.max_recv_wr < KV_QP_WR ||
		    init.cap.max_inline_data < KV_INLINE) {
			kv_why(why, "%s QP caps %u/%u/%u below what was asked",
			       s->name, init.cap.max_send_wr,
			       init.cap.max_recv_wr, init.cap.max_inline_data);
			return -EINVAL;
		}
	}
	return 0;
}

/* RESET -> INIT -> RTR -> RTS of @s towards @peer */
static int kv_connect(struct kv_side *s, struct kv_side *peer, char *why)
{
	struct ib_qp_attr attr;
	int err;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_INIT;
	attr.pkey_index = 0;
	attr.port_num = KV_PORT;
	attr.qp_access_flags = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ |
			       IB_ACCESS_REMOTE_WRITE;
	err = ib_modify_qp(s->qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (err) {
		kv_why(why, "%s QP to INIT: %d", s->name, err);
		return err;
	}

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTR;
	attr.path_mtu = IB_MTU_1024;
	attr.dest_qp_num = peer->qp->qp_num;
	attr.rq_psn = peer->psn;
	attr.max_dest_rd_atomic = 1;
	attr.min_rnr_timer = 12;
	attr.ah_attr.type = rdma_ah_find_type(s->dev, KV_PORT);
	rdma_ah_set_port_num(&attr.ah_attr, KV_PORT);
	rdma_ah_set_grh(&attr.ah_attr, &peer->gid, 0, s->gid_index, 64, 0);
	/* The core resolves the destination MAC only for user QPs. */
	ether_addr_copy(attr.ah_attr.roce.dmac, peer->mac);
	err = ib_modify_qp(s->qp, &attr, IB_QP_STATE | IB_QP_AV |
			   IB_QP_PATH_MTU | IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			   IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	if (err) {
		kv_why(why, "%s QP to RTR: %d", s->name, err);
		return err;
	}

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTS;
	attr.timeout = 14;
	attr.retry_cnt = 7;
	attr.rnr_retry = 7;
	attr.sq_psn = s->psn;
	attr.max_rd_atomic = 1;
	err = ib_modify_qp(s->qp, &attr, IB_QP_STATE | IB_QP_TIMEOUT |
			   IB_QP_RETRY_CNT | IB_QP_RNR_RETRY | IB_QP_SQ_PSN |
			   IB_QP_MAX_QP_RD_ATOMIC);
	if (err)
		kv_why(why, "%s QP to RTS: %d", s->name, err);
	return err;
}

static int kv_query_state(struct kv_side *s, enum ib_qp_state *state,
			  struct ib_qp_attr *attr, char *why)
{
	struct ib_qp_init_attr init;
	int err;

	err = ib_query_qp(s->qp, attr, IB_QP_STATE | IB_QP_DEST_QPN, &init);
	if (err) {
		kv_why(why, "ib_query_qp on %s: %d", s->name, err);
		return err;
	}
	*state = attr->qp_state;
	return 0;
}

static int kv_t_connect(struct kv_ctx *ctx, char *why)
{
	struct kv_side *sides[] = { &ctx->a, &ctx->b };
	struct ib_qp_attr attr;
	enum ib_qp_state state;
	int i, err;

	err = kv_connect(&ctx->a, &ctx->b, why);
	if (!err)
		err = kv_connect(&ctx->b, &ctx->a, why);
	if (err)
		return err;
	for (i = 0; i < ARRAY_SIZE(sides); i++) {
		err = kv_query_state(sides[i], &state, &attr, why);
		if (err)
			return err;
		if (state != IB_QPS_RTS ||
		    attr.dest_qp_num != sides[!i]->qp->qp_num) {
			kv_why(why, "%s QP: state %d dest QPN %u, expected RTS, %u",
			       sides[i]->name, state, attr.dest_qp_num,
			       sides[!i]->qp->qp_num);
			return -EINVAL;
		}
	}
	pr_info("# QP %u on %s <-> QP %u on %s\n", ctx->a.qp->qp_num,
		ctx->a.name, ctx->b.qp->qp_num, ctx->b.name);
	return 0;
}

/* ---------------------------------------------------------------- */
/* Data                                                             */
/* ---------------------------------------------------------------- */

static int kv_t_send(struct kv_ctx *ctx, char *why)
{
	struct kv_side *a = &ctx->a, *b = &ctx->b;
	struct ib_sge sge = {
		.addr = a->dma + KV_SRC,
		.length = KV_SEND_LEN,
		.lkey = a->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.wr_id = KV_WRID_SEND,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};
	long bad;
	int err;

	kv_buf_for_cpu(b);
	memset(b->buf + KV_DST, 0, KV_SEND_LEN + 1);
	kv_buf_for_dev(b);
	err = kv_post_recv(b, KV_WRID_RECV, KV_DST, 2 * KV_SEND_LEN, why);
	if (err)
		return err;

	kv_buf_for_cpu(a);
	kv_fill(a->buf + KV_SRC, KV_SEND_LEN, 1);
	kv_buf_for_dev(a);
	err = kv_post_send(a, &wr, why);
	if (err)
		return err;

	err = kv_expect(a, KV_WRID_SEND, IB_WC_SUCCESS, IB_WC_SEND, -1, why);
	if (!err)
		err = kv_expect(b, KV_WRID_RECV, IB_WC_SUCCESS, IB_WC_RECV,
				KV_SEND_LEN, why);
	if (err)
		return err;

	kv_buf_for_cpu(b);
	bad = kv_check(b->buf + KV_DST, KV_SEND_LEN, 1);
	if (bad >= 0 || ((u8 *)b->buf)[KV_DST + KV_SEND_LEN]) {
		kv_why(why, "received data differs at offset %ld", bad);
		return -EIO;
	}
	return 0;
}

/* B -> A, inline: the data is copied into the WQE from a kernel address */
static int kv_t_send_inline(struct kv_ctx *ctx, char *why)
{
	struct kv_side *a = &ctx->a, *b = &ctx->b;
	struct ib_sge sge = {
		.addr = (uintptr_t)(b->buf + KV_SRC),
		.length = KV_SMALL_LEN,
	};
	struct ib_send_wr wr = {
		.wr_id = KV_WRID_SEND,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED | IB_SEND_INLINE,
	};
	long bad;
	int err;

	kv_buf_for_cpu(a);
	memset(a->buf + KV_DST, 0, KV_SMALL_LEN);
	kv_buf_for_dev(a);
	err = kv_post_recv(a, KV_WRID_RECV, KV_DST, KV_SEND_LEN, why);
	if (err)
		return err;

	kv_buf_for_cpu(b);
	kv_fill(b->buf + KV_SRC, KV_SMALL_LEN, 2);
	err = kv_post_send(b, &wr, why);
	/* Inline: the buffer may change once posted. */
	memset(b->buf + KV_SRC, 0, KV_SMALL_LEN);
	kv_buf_for_dev(b);
	if (err)
		return err;

	err = kv_expect(b, KV_WRID_SEND, IB_WC_SUCCESS, IB_WC_SEND, -1, why);
	if (!err)
		err = kv_expect(a, KV_WRID_RECV, IB_WC_SUCCESS, IB_WC_RECV,
				KV_SMALL_LEN, why);
	if (err)
		return err;

	kv_buf_for_cpu(a);
	bad = kv_check(a->buf + KV_DST, KV_SMALL_LEN, 2);
	if (bad >= 0) {
		kv_why(why, "received data differs at offset %ld", bad);
		return -EIO;
	}
	return 0;
}

/* An armed CQ calls its completion handler. */
static int kv_t_cq_event(struct kv_ctx *ctx, char *why)
{
	struct kv_side *a = &ctx->a, *b = &ctx->b;
	struct ib_sge sge = {
		.addr = a->dma + KV_SRC,
		.length = KV_SMALL_LEN,
		.lkey = a->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.wr_id = KV_WRID_SEND,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};
	int err;

	reinit_completion(&b->cq_event);
	err = kv_post_recv(b, KV_WRID_RECV, KV_DST, KV_SEND_LEN, why);
	if (err)
		return err;
	err = ib_req_notify_cq(b->cq, IB_CQ_NEXT_COMP |
			       IB_CQ_REPORT_MISSED_EVENTS);
	if (err) {
		kv_why(why, "ib_req_notify_cq on %s: %d (CQ not empty?)",
		       b->name, err);
		return -EIO;
	}
	err = kv_post_send(a, &wr, why);
	if (err)
		return err;
	if (!wait_for_completion_timeout(&b->cq_event,
					 msecs_to_jiffies(KV_TIMEOUT_MS))) {
		kv_why(why, "no completion event on %s's CQ", b->name);
		return -ETIMEDOUT;
	}
	err = kv_expect(b, KV_WRID_RECV, IB_WC_SUCCESS, IB_WC_RECV,
			KV_SMALL_LEN, why);
	if (!err)
		err = kv_expect(a, KV_WRID_SEND, IB_WC_SUCCESS, IB_WC_SEND, -1,
				why);
	return err;
}

/* Register B's MR with the current key: IB_WR_REG_MR on B's QP */
static int kv_reg_mr(struct kv_ctx *ctx, char *why)
{
	struct kv_side *b = &ctx->b;
	struct ib_reg_wr wr = {
		.wr = {
			.wr_id = KV_WRID_REG,
			.opcode = IB_WR_REG_MR,
			.send_flags = IB_SEND_SIGNALED,
		},
		.mr = ctx->mr,
		.key = ctx->mr->rkey,
		.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ |
			  IB_ACCESS_REMOTE_WRITE,
	};
	int n, err;

	n = ib_map_mr_sg(ctx->mr, &ctx->sg, 1, NULL, PAGE_SIZE);
	if (n != 1) {
		kv_why(why, "ib_map_mr_sg: %d", n);
		return n < 0 ? n : -EINVAL;
	}
	if (ctx->mr->iova != sg_dma_address(&ctx->sg) ||
	    ctx->mr->length != KV_MR_LEN) {
		kv_why(why, "MR iova %#llx length %llu, expected %#llx %u",
		       ctx->mr->iova, ctx->mr->length,
		       (u64)sg_dma_address(&ctx->sg), KV_MR_LEN);
		return -EINVAL;
	}
	err = kv_post_send(b, &wr.wr, why);
	if (!err)
		err = kv_expect(b, KV_WRID_REG, IB_WC_SUCCESS, IB_WC_REG_MR, -1,
				why);
	return err;
}

static int kv_t_fast_reg(struct kv_ctx *ctx, char *why)
{
	struct ib_mr *mr;

	mr = ib_alloc_mr(ctx->b.pd, IB_MR_TYPE_MEM_REG, KV_MR_PAGES);
	if (IS_ERR(mr)) {
		kv_why(why, "ib_alloc_mr(IB_MR_TYPE_MEM_REG, %lu) on %s: %ld",
		       KV_MR_PAGES, ctx->b.name, PTR_ERR(mr));
		return PTR_ERR(mr);
	}
	ctx->mr = mr;
	return kv_reg_mr(ctx, why);
}

/* The MR buffer: the pattern @seed inside the MR, guard bytes around it */
static int kv_check_mr_buf(struct kv_ctx *ctx, u8 seed, char *why)
{
	long bad;

	kv_mr_for_cpu(ctx);
	bad = kv_check(ctx->mr_buf + KV_MR_OFF, KV_MR_LEN, seed);
	if (bad >= 0) {
		kv_why(why, "MR data differs at offset %ld", bad);
		return -EIO;
	}
	bad = kv_check_byte(ctx->mr_buf, KV_MR_OFF, KV_GUARD);
	if (bad < 0)
		bad = kv_check_byte(ctx->mr_buf + KV_MR_OFF + KV_MR_LEN,
				    KV_MR_BUF_SIZE - KV_MR_OFF - KV_MR_LEN,
				    KV_GUARD);
	if (bad >= 0) {
		kv_why(why, "guard bytes around the MR changed");
		return -EIO;
	}
	return 0;
}

static int kv_t_write(struct kv_ctx *ctx, char *why)
{
	struct kv_side *a = &ctx->a;
	int err;

	kv_buf_for_cpu(a);
	kv_fill(a->buf + KV_SRC, KV_MR_LEN, 3);
	kv_buf_for_dev(a);
	err = kv_rdma(ctx, IB_WR_RDMA_WRITE, KV_WRID_WRITE, KV_SRC, KV_MR_LEN,
		      ctx->mr->iova, ctx->mr->rkey, why);
	if (!err)
		err = kv_expect(a, KV_WRID_WRITE, IB_WC_SUCCESS,
				IB_WC_RDMA_WRITE, -1, why);
	if (!err)
		err = kv_expect_none(&ctx->b, why);
	if (!err)
		err = kv_check_mr_buf(ctx, 3, why);
	return err;
}

static int kv_t_read(struct kv_ctx *ctx, char *why)
{
	struct kv_side *a = &ctx->a;
	long bad;
	int err;

	kv_mr_for_cpu(ctx);
	kv_fill(ctx->mr_buf + KV_MR_OFF, KV_MR_LEN, 4);
	kv_mr_for_dev(ctx);
	kv_buf_for_cpu(a);
	memset(a->buf + KV_DST, 0, KV_MR_LEN);
	kv_buf_for_dev(a);

	err = kv_rdma(ctx, IB_WR_RDMA_READ, KV_WRID_READ, KV_DST, KV_MR_LEN,
		      ctx->mr->iova, ctx->mr->rkey, why);
	if (!err)
		err = kv_expect(a, KV_WRID_READ, IB_WC_SUCCESS,
				IB_WC_RDMA_READ, KV_MR_LEN, why);
	if (err)
		return err;
	kv_buf_for_cpu(a);
	bad = kv_check(a->buf + KV_DST, KV_MR_LEN, 4);
	if (bad >= 0) {
		kv_why(why, "read data differs at offset %ld", bad);
		return -EIO;
	}
	return 0;
}

/* A WRITE into B's plain buffer through the DMA MR's global rkey */
static int kv_t_global_rkey(struct kv_ctx *ctx, char *why)
{
	struct kv_side *a = &ctx->a, *b = &ctx->b;
	long bad;
	int err;

	kv_buf_for_cpu(b);
	memset(b->buf + KV_DST, 0, KV_SEND_LEN + 1);
	kv_buf_for_dev(b);
	kv_buf_for_cpu(a);
	kv_fill(a->buf + KV_SRC, KV_SEND_LEN, 5);
	kv_buf_for_dev(a);
	err = kv_rdma(ctx, IB_WR_RDMA_WRITE, KV_WRID_WRITE, KV_SRC,
		      KV_SEND_LEN, b->dma + KV_DST, b->pd->unsafe_global_rkey,
		      why);
	if (!err)
		err = kv_expect(a, KV_WRID_WRITE, IB_WC_SUCCESS,
				IB_WC_RDMA_WRITE, -1, why);
	if (err)
		return err;
	kv_buf_for_cpu(b);
	bad = kv_check(b->buf + KV_DST, KV_SEND_LEN, 5);
	if (bad >= 0 || ((u8 *)b->buf)[KV_DST + KV_SEND_LEN]) {
		kv_why(why, "written data differs at offset %ld", bad);
		return -EIO;
	}
	return 0;
}

/* SEND_WITH_INV: B's receive completion reports the rkey it invalidated */
static int kv_t_send_inv(struct kv_ctx *ctx, char *why)
{
	struct kv_side *a = &ctx->a, *b = &ctx->b;
	struct ib_sge sge = {
		.addr = a->dma + KV_SRC,
		.length = KV_SMALL_LEN,
		.lkey = a->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.wr_id = KV_WRID_SEND_INV,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IB_WR_SEND_WITH_INV,
		.send_flags = IB_SEND_SIGNALED,
		.ex.invalidate_rkey = ctx->mr->rkey,
	};
	struct ib_wc wc;
	int err;

	err = kv_post_recv(b, KV_WRID_RECV, KV_DST, KV_SEND_LEN, why);
	if (!err)
		err = kv_post_send(a, &wr, why);
	if (!err)
		err = kv_expect(a, KV_WRID_SEND_INV, IB_WC_SUCCESS, IB_WC_SEND,
				-1, why);
	if (err)
		return err;
	err = kv_poll(b, &wc);
	if (err) {
		kv_why(why, "no receive completion on %s: %d", b->name, err);
		return err;
	}
	if (wc.wr_id != KV_WRID_RECV || wc.status != IB_WC_SUCCESS ||
	    wc.opcode != IB_WC_RECV || wc.byte_len != KV_SMALL_LEN ||
	    !(wc.wc_flags & IB_WC_WITH_INVALIDATE) ||
	    wc.ex.invalidate_rkey != ctx->mr->rkey) {
		kv_why(why,
		       "receive: wr_id %#llx status %s opcode %d byte_len %u flags %#x rkey %#x, expected invalidate of %#x",
		       wc.wr_id, ib_wc_status_msg(wc.status), wc.opcode,
		       wc.byte_len, wc.wc_flags, wc.ex.invalidate_rkey,
		       ctx->mr->rkey);
		return -EIO;
	}
	return 0;
}

/* A new key on the MR (as ULPs do for each use) and a WRITE through it */
static int kv_t_rereg(struct kv_ctx *ctx, char *why)
{
	struct kv_side *a = &ctx->a;
	int err;

	ctx->old_rkey = ctx->mr->rkey;
	ib_update_fast_reg_key(ctx->mr, ib_inc_rkey(ctx->mr->rkey));
	err = kv_reg_mr(ctx, why);
	if (err)
		return err;
	kv_buf_for_cpu(a);
	kv_fill(a->buf + KV_SRC, KV_MR_LEN, 6);
	kv_buf_for_dev(a);
	err = kv_rdma(ctx, IB_WR_RDMA_WRITE, KV_WRID_WRITE, KV_SRC, KV_MR_LEN,
		      ctx->mr->iova, ctx->mr->rkey, why);
	if (!err)
		err = kv_expect(a, KV_WRID_WRITE, IB_WC_SUCCESS,
				IB_WC_RDMA_WRITE, -1, why);
	if (!err)
		err = kv_check_mr_buf(ctx, 6, why);
	return err;
}

static int kv_t_local_inv(struct kv_ctx *ctx, char *why)
{
	struct kv_side *b = &ctx->b;
	struct ib_send_wr wr = {
		.wr_id = KV_WRID_INV,
		.opcode = IB_WR_LOCAL_INV,
		.send_flags = IB_SEND_SIGNALED,
		.ex.invalidate_rkey = ctx->mr->rkey,
	};
	int err;

	err = kv_post_send(b, &wr, why);
	if (!err)
		err = kv_expect(b, KV_WRID_INV, IB_WC_SUCCESS, IB_WC_LOCAL_INV,
				-1, why);
	return err;
}

/* Last data step: the error moves both QPs to the error state. */
static int kv_t_write_invalid(struct kv_ctx *ctx, char *why)
{
	struct kv_side *a = &ctx->a;
	int err;

	kv_buf_for_cpu(a);
	kv_fill(a->buf + KV_SRC, KV_MR_LEN, 7);
	kv_buf_for_dev(a);
	err = kv_rdma(ctx, IB_WR_RDMA_WRITE, KV_WRID_WRITE, KV_SRC, KV_MR_LEN,
		      ctx->mr->iova, ctx->mr->rkey, why);
	if (!err)
		err = kv_expect(a, KV_WRID_WRITE, IB_WC_REM_ACCESS_ERR, -1, -1,
				why);
	if (!err)
		err = kv_check_mr_buf(ctx, 6, why);
	return err;
}

static int kv_t_error_state(struct kv_ctx *ctx, char *why)
{
	struct ib_qp_attr attr;
	enum ib_qp_state state;
	int err;

	err = kv_query_state(&ctx->a, &state, &attr, why);
	if (err)
		return err;
	if (state != IB_QPS_ERR) {
		kv_why(why, "%s QP state %d, expected ERR (%d)", ctx->a.name,
		       state, IB_QPS_ERR);
		return -EINVAL;
	}
	return 0;
}

/* ---------------------------------------------------------------- */
/* Shared receive queue                                             */
/* ---------------------------------------------------------------- */

static void kv_srq_event(struct ib_event *event, void *context)
{
	struct kv_ctx *ctx = context;

	pr_info("# SRQ event %s\n", ib_event_msg(event->event));
	if (event->event == IB_EVENT_SRQ_LIMIT_REACHED)
		complete(&ctx->srq_limit);
}

/* A side like @s (device, PD, CQ, buffer, GID) with a QP of its own */
static void kv_side_like(struct kv_side *dst, const struct kv_side *s,
			 u32 psn)
{
	*dst = *s;
	dst->qp = NULL;
	dst->psn = psn;
	atomic_set(&dst->qp_events, 0);
}

static int kv_create_rc_qp(struct kv_side *s, struct ib_srq *srq, char *why)
{
	struct ib_qp_init_attr init = {
		.event_handler = kv_qp_event,
		.qp_context = s,
		.send_cq = s->cq,
		.recv_cq = s->cq,
		.srq = srq,
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = {
			.max_send_wr = KV_QP_WR,
			.max_recv_wr = srq ? 0 : KV_QP_WR,
			.max_send_sge = 1,
			.max_recv_sge = srq ? 0 : 1,
		},
	};
	struct ib_qp *qp;

	qp = ib_create_qp(s->pd, &init);
	if (IS_ERR(qp)) {
		kv_why(why, "ib_create_qp RC%s on %s: %ld",
		       srq ? " on the SRQ" : "", s->name, PTR_ERR(qp));
		return PTR_ERR(qp);
	}
	s->qp = qp;
	return 0;
}

static int kv_t_srq(struct kv_ctx *ctx, char *why)
{
	struct ib_srq_init_attr init = {
		.event_handler = kv_srq_event,
		.srq_context = ctx,
		.srq_type = IB_SRQT_BASIC,
		.attr = { .max_wr = KV_SRQ_WR, .max_sge = 1 },
	};
	struct ib_srq_attr attr;
	struct ib_srq *srq;
	int i, err;

	if (!ctx->b.dev->attrs.max_srq) {
		kv_why(why, "%s reports no SRQs", ctx->b.name);
		return -EOPNOTSUPP;
	}
	srq = ib_create_srq(ctx->b.pd, &init);
	if (IS_ERR(srq)) {
		kv_why(why, "ib_create_srq on %s: %ld", ctx->b.name,
		       PTR_ERR(srq));
		return PTR_ERR(srq);
	}
	ctx->srq = srq;
	err = ib_query_srq(srq, &attr);
	if (err) {
		kv_why(why, "ib_query_srq: %d", err);
		return err;
	}
	if (attr.max_wr < KV_SRQ_WR || attr.max_sge < 1 || attr.srq_limit) {
		kv_why(why, "SRQ max_wr %u max_sge %u limit %u, asked %u, 1, 0",
		       attr.max_wr, attr.max_sge, attr.srq_limit, KV_SRQ_WR);
		return -EINVAL;
	}

	for (i = 0; i < KV_SRQ_QPS; i++) {
		kv_side_like(&ctx->srq_a[i], &ctx->a, KV_PSN_SRQ + 2 * i);
		kv_side_like(&ctx->srq_b[i], &ctx->b, KV_PSN_SRQ + 2 * i + 1);
		err = kv_create_rc_qp(&ctx->srq_a[i], NULL, why);
		if (!err)
			err = kv_create_rc_qp(&ctx->srq_b[i], srq, why);
		if (!err)
			err = kv_connect(&ctx->srq_a[i], &ctx->srq_b[i], why);
		if (!err)
			err = kv_connect(&ctx->srq_b[i], &ctx->srq_a[i], why);
		if (err)
			return err;
		pr_info("# QP %u on %s <-> QP %u on %s (SRQ)\n",
			ctx->srq_a[i].qp->qp_num, ctx->a.name,
			ctx->srq_b[i].qp->qp_num, ctx->b.name);
	}
	return 0;
}

/* @n receives on B's SRQ, buffers taken round-robin from KV_DST on */
static int kv_post_srq_recvs(struct kv_ctx *ctx, u32 n, char *why)
{
	struct ib_sge sge[KV_SRQ_WR];
	struct ib_recv_wr wr[KV_SRQ_WR];
	const struct ib_recv_wr *bad = NULL;
	u32 i, post;
	int err;

	for (i = 0; i < n; i++) {
		post = ctx->srq_posts + i;
		sge[i].addr = ctx->b.dma + KV_DST +
			      (post % KV_SRQ_WR) * KV_SRQ_BUF;
		sge[i].length = KV_SRQ_BUF;
		sge[i].lkey = ctx->b.pd->local_dma_lkey;
		wr[i].wr_id = KV_WRID_SRQ_RECV + post;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
	}
	err = ib_post_srq_recv(ctx->srq, wr, &bad);
	if (err) {
		kv_why(why, "ib_post_srq_recv of %u: %d at wr %ld", n, err,
		       bad ? (long)(bad - wr) : -1L);
		return err;
	}
	ctx->srq_posts += n;
	return 0;
}

static int kv_srq_send(struct kv_ctx *ctx, u32 j, char *why)
{
	struct kv_side *a = &ctx->srq_a[j % KV_SRQ_QPS];
	struct ib_sge sge = {
		.addr = a->dma + KV_SRC + j * KV_SRQ_BUF,
		.length = KV_SRQ_LEN + j,
		.lkey = a->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.wr_id = KV_WRID_SRQ_SEND + j,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};
	int err;

	err = kv_post_send(a, &wr, why);
	if (!err)
		err = kv_expect(a, KV_WRID_SRQ_SEND + j, IB_WC_SUCCESS,
				IB_WC_SEND, -1, why);
	return err;
}

/* One receive completion on B: message j, through the QP it was sent
 * on, into the buffer of a receive posted and not completed before.
 */
static int kv_srq_check_recv(struct kv_ctx *ctx, unsigned long *seen,
			     char *why)
{
	struct kv_side *b = &ctx->b;
	u32 j, post;
	struct ib_wc wc;
	long bad;
	int err;

	err = kv_poll(b, &wc);
	if (err) {
		kv_why(why, "no receive completion on %s's SRQ QPs: %d",
		       b->name, err);
		return err;
	}
	j = wc.byte_len - KV_SRQ_LEN;
	post = wc.wr_id - KV_WRID_SRQ_RECV;
	if (wc.status != IB_WC_SUCCESS || wc.opcode != IB_WC_RECV ||
	    wc.byte_len < KV_SRQ_LEN || j >= KV_SRQ_MSGS ||
	    wc.qp != ctx->srq_b[j % KV_SRQ_QPS].qp ||
	    wc.wr_id < KV_WRID_SRQ_RECV || post >= ctx->srq_posts ||
	    test_and_set_bit(post, seen)) {
		kv_why(why, "receive: wr_id %#llx status %s opcode %d byte_len %u QP %u",
		       wc.wr_id, ib_wc_status_msg(wc.status), wc.opcode,
		       wc.byte_len, wc.qp ? wc.qp->qp_num : 0);
		return -EIO;
	}
	kv_buf_for_cpu(b);
	bad = kv_check(b->buf + KV_DST + (post % KV_SRQ_WR) * KV_SRQ_BUF,
		       wc.byte_len, KV_SRQ_SEED + j);
	if (bad >= 0) {
		kv_why(why, "message %u in receive %u differs at offset %ld",
		       j, post, bad);
		return -EIO;
	}
	return 0;
}

/*
 * KV_SRQ_MSGS SENDs from A alternate between the two QPs; the receives
 * they take are one ring, so each completion must name a distinct
 * receive, the QP of its message and hold its data.  The limit, armed
 * after posting, fires once fewer than KV_SRQ_LIMIT receives remain.
 * Then the SRQ takes exactly the slots the polled completions freed.
 */
static int kv_t_srq_recv(struct kv_ctx *ctx, char *why)
{
	struct ib_srq_attr attr = { .srq_limit = KV_SRQ_LIMIT };
	DECLARE_BITMAP(seen, 2 * KV_SRQ_WR) = {};
	struct kv_side *a = &ctx->a, *b = &ctx->b;
	u32 j, free_slots;
	int err;

	kv_buf_for_cpu(a);
	for (j = 0; j < KV_SRQ_MSGS; j++)
		kv_fill(a->buf + KV_SRC + j * KV_SRQ_BUF, KV_SRQ_LEN + j,
			KV_SRQ_SEED + j);
	kv_buf_for_dev(a);
	kv_buf_for_cpu(b);
	memset(b->buf + KV_DST, 0, KV_SRQ_WR * KV_SRQ_BUF);
	kv_buf_for_dev(b);

	err = kv_post_srq_recvs(ctx, KV_SRQ_POSTED, why);
	if (err)
		return err;
	err = ib_modify_srq(ctx->srq, &attr, IB_SRQ_LIMIT);
	if (err) {
		kv_why(why, "ib_modify_srq limit %u: %d", KV_SRQ_LIMIT, err);
		return err;
	}
	for (j = 0; j < KV_SRQ_MSGS; j++) {
		err = kv_srq_send(ctx, j, why);
		if (err)
			return err;
	}
	for (j = 0; j < KV_SRQ_MSGS; j++) {
		err = kv_srq_check_recv(ctx, seen, why);
		if (err)
			return err;
	}
	err = kv_expect_none(b, why);
	if (err)
		return err;

	if (!wait_for_completion_timeout(&ctx->srq_limit,
					 msecs_to_jiffies(KV_TIMEOUT_MS))) {
		kv_why(why, "no IB_EVENT_SRQ_LIMIT_REACHED with %u of %u receives left, limit %u",
		       KV_SRQ_POSTED - KV_SRQ_MSGS, KV_SRQ_POSTED,
		       KV_SRQ_LIMIT);
		return -ETIMEDOUT;
	}
	err = ib_query_srq(ctx->srq, &attr);
	if (!err && attr.srq_limit) {
		kv_why(why, "SRQ limit %u after the event, expected 0 (disarmed)",
		       attr.srq_limit);
		return -EINVAL;
	}

	/* Every slot but the receives still posted can be posted again. */
	free_slots = KV_SRQ_WR - (KV_SRQ_POSTED - KV_SRQ_MSGS);
	err = kv_post_srq_recvs(ctx, free_slots, why);
	if (err)
		return err;
	err = kv_post_srq_recvs(ctx, 1, why);
	if (err != -ENOMEM) {
		kv_why(why, "ib_post_srq_recv on a full SRQ: %d, expected %d",
		       err, -ENOMEM);
		return -EINVAL;
	}
	why[0] = '\0';
	return 0;
}

/* ---------------------------------------------------------------- */
/* A CQ the device stops writing                                    */
/* ---------------------------------------------------------------- */

static void kv_ovf_comp(struct ib_cq *cq, void *cq_context)
{
}

static void kv_ovf_cq_event(struct ib_event *event, void *context)
{
	struct kv_ctx *ctx = context;

	pr_info("# overrun CQ event %s\n", ib_event_msg(event->event));
	if (event->event == IB_EVENT_CQ_ERR)
		complete(&ctx->ovf_cq_err);
}

static int kv_ovf_write(struct kv_ctx *ctx, u32 i, char *why)
{
	struct kv_side *a = &ctx->ovf_a, *b = &ctx->ovf_b;
	struct ib_sge sge = {
		.addr = a->dma + KV_SRC,
		.length = KV_SMALL_LEN,
		.lkey = a->pd->local_dma_lkey,
	};
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_id = KV_WRID_OVF + i,
			.sg_list = &sge,
			.num_sge = 1,
			.opcode = IB_WR_RDMA_WRITE,
			.send_flags = IB_SEND_SIGNALED,
		},
		.remote_addr = b->dma + KV_DST,
		.rkey = b->pd->unsafe_global_rkey,
	};

	return kv_post_send(a, &wr.wr, why);
}

/*
 * The device writes two CQEs, finds the ring full and enters the error
 * state (IB_EVENT_CQ_ERR); from then on the driver completes what the
 * QP holds, the WRITEs whose CQEs were lost and any posted later, with
 * IB_WC_WR_FLUSH_ERR: a consumer never waits for completions the device
 * will not write.
 */
static int kv_t_cq_overrun(struct kv_ctx *ctx, char *why)
{
	struct ib_cq_init_attr attr = { .cqe = 1 };
	struct kv_side *a = &ctx->ovf_a, *b = &ctx->ovf_b;
	struct ib_qp_attr qattr;
	enum ib_qp_state state;
	struct ib_cq *cq;
	u32 i;
	int err;

	cq = ib_create_cq(ctx->a.dev, kv_ovf_comp, kv_ovf_cq_event, ctx, &attr);
	if (IS_ERR(cq)) {
		kv_why(why, "ib_create_cq of 1 entry on %s: %ld", ctx->a.name,
		       PTR_ERR(cq));
		return PTR_ERR(cq);
	}
	ctx->ovf_cq = cq;
	kv_side_like(a, &ctx->a, KV_PSN_OVF);
	a->cq = cq;
	kv_side_like(b, &ctx->b, KV_PSN_OVF + 0x100);
	err = kv_create_rc_qp(a, NULL, why);
	err = err ?: kv_create_rc_qp(b, NULL, why);
	err = err ?: kv_connect(a, b, why);
	err = err ?: kv_connect(b, a, why);
	for (i = 0; !err && i < KV_OVF_WRITES; i++)
		err = kv_ovf_write(ctx, i, why);
	if (err)
		return err;
	if (!wait_for_completion_timeout(&ctx->ovf_cq_err,
					 msecs_to_jiffies(KV_TIMEOUT_MS))) {
		kv_why(why, "no IB_EVENT_CQ_ERR for a CQ of %d entries after %d signaled WRITEs",
		       cq->cqe, KV_OVF_WRITES);
		return -ETIMEDOUT;
	}
	/* the device wrote as many CQEs as the ring holds */
	for (i = 0; !err && i < cq->cqe; i++)
		err = kv_expect(a, KV_WRID_OVF + i, IB_WC_SUCCESS,
				IB_WC_RDMA_WRITE, -1, why);
	for (; !err && i < KV_OVF_WRITES; i++)
		err = kv_expect(a, KV_WRID_OVF + i, IB_WC_WR_FLUSH_ERR, -1, -1,
				why);
	/* a WRITE posted now is not run: it completes flushed as well */
	err = err ?: kv_ovf_write(ctx, KV_OVF_WRITES, why);
	err = err ?: kv_expect(a, KV_WRID_OVF + KV_OVF_WRITES,
			       IB_WC_WR_FLUSH_ERR, -1, -1, why);
	err = err ?: kv_expect_none(a, why);
	/* the device no longer runs the QP whose requests were flushed */
	err = err ?: kv_query_state(a, &state, &qattr, why);
	if (!err && state != IB_QPS_ERR) {
		kv_why(why, "%s QP state %d after its CQ's error, expected ERR",
		       a->name, state);
		err = -EINVAL;
	}
	return err;
}

/* ---------------------------------------------------------------- */
/* Cleanup                                                          */
/* ---------------------------------------------------------------- */

/* ib_destroy_qp of the QPs of @sides that have one */
static int kv_destroy_qps(struct kv_ctx *ctx, struct kv_side **sides, int n,
			  char *why)
{
	int i, err, ret = 0;

	for (i = 0; i < n; i++) {
		if (!sides[i]->qp)
			continue;
		err = ib_destroy_qp(sides[i]->qp);
		sides[i]->qp = NULL;
		if (err) {
			kv_why(why, "ib_destroy_qp on %s: %d", sides[i]->name,
			       err);
			ctx->leak = true;
			ret = err;
		}
	}
	return ret;
}

static int kv_t_destroy_qps(struct kv_ctx *ctx, char *why)
{
	struct kv_side *sides[] = { &ctx->a, &ctx->b, &ctx->ovf_a,
				    &ctx->ovf_b };

	return kv_destroy_qps(ctx, sides, ARRAY_SIZE(sides), why);
}

static int kv_t_destroy_srq(struct kv_ctx *ctx, char *why)
{
	struct kv_side *sides[2 * KV_SRQ_QPS];
	int i, err, ret;

	for (i = 0; i < KV_SRQ_QPS; i++) {
		sides[2 * i] = &ctx->srq_a[i];
		sides[2 * i + 1] = &ctx->srq_b[i];
	}
	ret = kv_destroy_qps(ctx, sides, ARRAY_SIZE(sides), why);
	if (ctx->srq) {
		err = ib_destroy_srq_user(ctx->srq, NULL);
		ctx->srq = NULL;
		if (err) {
			kv_why(why, "ib_destroy_srq: %d", err);
			ctx->leak = true;
			ret = err;
		}
	}
	return ret;
}

static int kv_t_dereg_mr(struct kv_ctx *ctx, char *why)
{
	int err;

	if (!ctx->mr)
		return 0;
	err = ib_dereg_mr(ctx->mr);
	ctx->mr = NULL;
	if (err) {
		kv_why(why, "ib_dereg_mr: %d", err);
		ctx->leak = true;
	}
	return err;
}

static int kv_t_free_cqs(struct kv_ctx *ctx, char *why)
{
	int err = 0;

	if (ctx->a.cq)
		ib_free_cq(ctx->a.cq);
	ctx->a.cq = NULL;
	if (ctx->ovf_cq) {
		err = ib_destroy_cq_user(ctx->ovf_cq, NULL);
		if (err) {
			kv_why(why, "ib_destroy_cq of the overrun CQ: %d", err);
			ctx->leak = true;
		}
	}
	ctx->ovf_cq = NULL;
	if (ctx->b.cq) {
		err = ib_destroy_cq_user(ctx->b.cq, NULL);
		if (err) {
			kv_why(why, "ib_destroy_cq on %s: %d", ctx->b.name,
			       err);
			ctx->leak = true;
		}
	}
	ctx->b.cq = NULL;
	return err;
}

static int kv_t_dealloc_pds(struct kv_ctx *ctx, char *why)
{
	struct kv_side *sides[] = { &ctx->a, &ctx->b };
	int i, err, ret = 0;

	for (i = 0; i < ARRAY_SIZE(sides); i++) {
		if (!sides[i]->pd)
			continue;
		err = ib_dealloc_pd_user(sides[i]->pd, NULL);
		sides[i]->pd = NULL;
		if (err) {
			kv_why(why, "ib_dealloc_pd on %s: %d", sides[i]->name,
			       err);
			ret = err;
		}
	}
	return ret;
}

static void kv_free_buffers(struct kv_ctx *ctx)
{
	struct kv_side *sides[] = { &ctx->a, &ctx->b };
	int i;

	if (ctx->leak) {
		pr_info("# a device command failed: buffers are not freed\n");
		return;
	}
	if (ctx->sg_mapped)
		ib_dma_unmap_sg(ctx->b.dev, &ctx->sg, 1, DMA_BIDIRECTIONAL);
	if (ctx->mr_buf)
		free_pages((unsigned long)ctx->mr_buf, KV_MR_ORDER);
	for (i = 0; i < ARRAY_SIZE(sides); i++) {
		if (!sides[i]->buf)
			continue;
		ib_dma_unmap_single(sides[i]->dev, sides[i]->dma, KV_BUF_SIZE,
				    DMA_BIDIRECTIONAL);
		free_pages((unsigned long)sides[i]->buf, KV_BUF_ORDER);
	}
}

struct kv_test {
	const char *name;
	int (*fn)(struct kv_ctx *ctx, char *why);
	bool cleanup;		/* runs even after a failure */
};

static const struct kv_test kv_tests[] = {
	{ "IPv4 RoCE v2 GIDs of both devices and their netdevs' MACs",
	  kv_t_devices },
	{ "DMA-mapped buffers (ib_dma_map_single, ib_dma_map_sg)",
	  kv_t_buffers },
	{ "ib_alloc_pd: local_dma_lkey on A and B, unsafe_global_rkey on B only",
	  kv_t_pds },
	{ "ib_alloc_cq (IB_POLL_DIRECT) on A, ib_create_cq with handlers on B",
	  kv_t_cqs },
	{ "ib_create_qp: a kernel RC QP on each device", kv_t_qps },
	{ "ib_modify_qp INIT/RTR/RTS with a RoCE v2 GRH both ways, ib_query_qp sees RTS",
	  kv_t_connect },
	{ "SEND/RECV A->B, 5000 bytes at MTU 1024: completions and data",
	  kv_t_send },
	{ "SEND B->A, 64 bytes IB_SEND_INLINE: completions and data",
	  kv_t_send_inline },
	{ "ib_req_notify_cq: the completion handler runs for a RECV",
	  kv_t_cq_event },
	{ "fast-reg MR on B: ib_alloc_mr, ib_map_mr_sg at page offset 100, IB_WR_REG_MR",
	  kv_t_fast_reg },
	{ "RDMA WRITE A->B's MR, 12 KiB over 4 pages: data in place, guard bytes intact",
	  kv_t_write },
	{ "RDMA READ of B's MR into A, 12 KiB: completion and data",
	  kv_t_read },
	{ "RDMA WRITE through B's pd->unsafe_global_rkey (DMA MR)",
	  kv_t_global_rkey },
	{ "SEND_WITH_INV A->B: B's completion reports the invalidated rkey",
	  kv_t_send_inv },
	{ "IB_WR_REG_MR again with ib_update_fast_reg_key, RDMA WRITE through the new rkey",
	  kv_t_rereg },
	{ "IB_WR_LOCAL_INV of B's MR", kv_t_local_inv },
	{ "RDMA WRITE to the invalidated rkey: IB_WC_REM_ACCESS_ERR, MR memory unchanged",
	  kv_t_write_invalid },
	{ "A's QP is in the error state after the remote access error",
	  kv_t_error_state },
	{ "a 2-entry CQ overruns: CQ_ERR, 2 CQEs, the rest and later posts flushed, QP in ERR",
	  kv_t_cq_overrun },
	{ "ib_create_srq on B (kernel ring), two RC QPs on it, each connected to a QP on A",
	  kv_t_srq },
	{ "SENDs through two QPs into B's SRQ: wr_ids, QPs, data, limit event, full ring",
	  kv_t_srq_recv },
	{ "ib_destroy_qp of both QPs", kv_t_destroy_qps, true },
	{ "ib_destroy_qp of the SRQ's QPs and their peers, ib_destroy_srq",
	  kv_t_destroy_srq, true },
	{ "ib_dereg_mr of the fast-reg MR", kv_t_dereg_mr, true },
	{ "ib_free_cq and ib_destroy_cq", kv_t_free_cqs, true },
	{ "ib_dealloc_pd of both PDs (with their DMA MRs)", kv_t_dealloc_pds,
	  true },
};

static struct ib_device *kv_get_device(const char *name)
{
	return ib_device_get_by_name(name, RDMA_DRIVER_UNKNOWN);
}

static int __init ordma_kverbs_init(void)
{
	struct kv_ctx *ctx;
	char *why;
	int failed = -1;
	int i, err = 0;

	kv_num = 0;
	kv_pass = 0;
	kv_fail = 0;
	pr_info("begin\n");
	pr_info("1..%zu\n", ARRAY_SIZE(kv_tests));

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	why = kzalloc(KV_WHY_LEN, GFP_KERNEL);
	if (!ctx || !why) {
		err = -ENOMEM;
		goto out;
	}
	ctx->a.name = dev_a;
	ctx->a.gid_index = gid_index_a;
	ctx->a.psn = KV_PSN_A;
	ctx->b.name = dev_b;
	ctx->b.gid_index = gid_index_b;
	ctx->b.psn = KV_PSN_B;
	init_completion(&ctx->a.cq_event);
	init_completion(&ctx->b.cq_event);
	init_completion(&ctx->srq_limit);
	init_completion(&ctx->ovf_cq_err);
	atomic_set(&ctx->a.qp_events, 0);
	atomic_set(&ctx->b.qp_events, 0);

	ctx->a.dev = kv_get_device(dev_a);
	ctx->b.dev = kv_get_device(dev_b);
	if (!ctx->a.dev || !ctx->b.dev || ctx->a.dev == ctx->b.dev) {
		pr_info("not ok 1 - RDMA devices dev_a=%s dev_b=%s: %s\n",
			dev_a, dev_b,
			ctx->a.dev && ctx->a.dev == ctx->b.dev ?
			"the same device" : "not found");
		pr_info("done 0 passed 1 failed\n");
		err = -ENODEV;
		goto out_put;
	}

	for (i = 0; i < ARRAY_SIZE(kv_tests); i++) {
		const struct kv_test *t = &kv_tests[i];

		if (failed >= 0 && !t->cleanup) {
			kv_why(why, "not run: \"%s\" failed",
			       kv_tests[failed].name);
			kv_report(false, t->name, why);
			continue;
		}
		why[0] = '\0';
		err = t->fn(ctx, why);
		if (err && !why[0])
			kv_why(why, "error %d", err);
		kv_report(!err, t->name, why);
		if (err && failed < 0)
			failed = i;
	}
	err = 0;
	kv_free_buffers(ctx);
	if (ctx->a.sgid_attr)
		rdma_put_gid_attr(ctx->a.sgid_attr);
	if (ctx->b.sgid_attr)
		rdma_put_gid_attr(ctx->b.sgid_attr);
	pr_info("done %u passed %u failed\n", kv_pass, kv_fail);

out_put:
	if (ctx->a.dev)
		ib_device_put(ctx->a.dev);
	if (ctx->b.dev)
		ib_device_put(ctx->b.dev);
out:
	kfree(why);
	kfree(ctx);
	return err;
}

static void __exit ordma_kverbs_exit(void)
{
}

module_init(ordma_kverbs_init);
module_exit(ordma_kverbs_exit);

MODULE_DESCRIPTION("ORDMA kernel verbs selftest");
MODULE_LICENSE("Dual BSD/GPL");
