// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA selftest module: what a kernel ULP is refused on an iWARP device
 * (dev, an ORDMA RDMA device switched to iWARP).  Its attributes show no
 * atomics and one RDMA READ SGE; on an RC QP in INIT, ib_post_send of a
 * SEND followed by a request iWARP lacks returns -EINVAL with *bad_wr at
 * that request, and the SEND before it is posted; an RDMA READ into one
 * buffer and a fast registration with remote read/write are taken.
 * Everything runs at module init, one line a step
 *
 *	ordma_iwarp_kverbs: ok N - what
 *	ordma_iwarp_kverbs: not ok N - what: why
 *
 * after "ordma_iwarp_kverbs: begin" and "1..N", and ends with
 * "ordma_iwarp_kverbs: done P passed F failed".  Every object is released
 * before init returns.  Init fails (-ENODEV) only when dev is not there.
 */

#define pr_fmt(fmt) "ordma_iwarp_kverbs: " fmt

#include <linux/dma-mapping.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

static char *dev = "ordma0";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "RDMA device switched to iWARP");

#define IK_STEPS	9
#define IK_BUF_SIZE	PAGE_SIZE

struct ik_ctx {
	struct ib_device *dev;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp;
	struct ib_mr *mr;
	void *buf;
	u64 dma;
	struct scatterlist sg;
	struct ib_sge sge[2];
	unsigned int num, pass, fail;
};

static void ik_report(struct ik_ctx *c, bool ok, const char *what,
		      const char *why)
{
	c->num++;
	if (ok) {
		c->pass++;
		pr_info("ok %u - %s\n", c->num, what);
	} else {
		c->fail++;
		pr_info("not ok %u - %s: %s\n", c->num, what, why);
	}
}

/* PD, CQ, a page mapped for the device, an RC QP in INIT, a fast-reg MR */
static int ik_setup(struct ik_ctx *c)
{
	struct ib_qp_init_attr ia = {
		.cap = { .max_send_wr = 16, .max_recv_wr = 4,
			 .max_send_sge = 2, .max_recv_sge = 1 },
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};
	struct ib_qp_attr a = {
		.qp_state = IB_QPS_INIT,
		.qp_access_flags = IB_ACCESS_REMOTE_WRITE |
				   IB_ACCESS_REMOTE_READ,
	};
	int i, n;

	c->pd = ib_alloc_pd(c->dev, 0);
	if (IS_ERR(c->pd))
		return PTR_ERR(c->pd);
	c->cq = ib_alloc_cq(c->dev, NULL, 32, 0, IB_POLL_DIRECT);
	if (IS_ERR(c->cq))
		return PTR_ERR(c->cq);
	c->buf = kzalloc(IK_BUF_SIZE, GFP_KERNEL);
	if (!c->buf)
		return -ENOMEM;
	c->dma = ib_dma_map_single(c->dev, c->buf, IK_BUF_SIZE,
				   DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(c->dev, c->dma)) {
		c->dma = 0;
		return -ENOMEM;
	}
	for (i = 0; i < 2; i++) {
		c->sge[i].addr = c->dma + 64 * i;
		c->sge[i].length = 8;
		c->sge[i].lkey = c->pd->local_dma_lkey;
	}
	ia.send_cq = c->cq;
	ia.recv_cq = c->cq;
	c->qp = ib_create_qp(c->pd, &ia);
	if (IS_ERR(c->qp))
		return PTR_ERR(c->qp);
	/* state and access only, as iw_cm moves an iWARP QP to INIT */
	n = ib_modify_qp(c->qp, &a, IB_QP_STATE | IB_QP_ACCESS_FLAGS);
	if (n)
		return n;
	c->mr = ib_alloc_mr(c->pd, IB_MR_TYPE_MEM_REG, 1);
	if (IS_ERR(c->mr))
		return PTR_ERR(c->mr);
	sg_init_table(&c->sg, 1);
	sg_dma_address(&c->sg) = c->dma;
	sg_dma_len(&c->sg) = IK_BUF_SIZE;
	n = ib_map_mr_sg(c->mr, &c->sg, 1, NULL, PAGE_SIZE);
	return n == 1 ? 0 : -EINVAL;
}

static void ik_teardown(struct ik_ctx *c)
{
	if (!IS_ERR_OR_NULL(c->qp))
		ib_destroy_qp(c->qp);
	if (!IS_ERR_OR_NULL(c->mr))
		ib_dereg_mr(c->mr);
	if (c->dma)
		ib_dma_unmap_single(c->dev, c->dma, IK_BUF_SIZE,
				    DMA_BIDIRECTIONAL);
	kfree(c->buf);
	if (!IS_ERR_OR_NULL(c->cq))
		ib_free_cq(c->cq);
	if (!IS_ERR_OR_NULL(c->pd))
		ib_dealloc_pd(c->pd);
}

/* A SEND, then @wr: -EINVAL at @wr, or 0 if @taken */
static void ik_post(struct ik_ctx *c, struct ib_send_wr *wr, bool taken,
		    const char *what)
{
	struct ib_send_wr send = {
		.opcode = IB_WR_SEND, .sg_list = c->sge, .num_sge = 1,
		.next = wr,
	};
	const struct ib_send_wr *bad = NULL;
	char why[96];
	int err;

	err = ib_post_send(c->qp, &send, &bad);
	if (taken) {
		snprintf(why, sizeof(why), "ib_post_send: %d", err);
		ik_report(c, !err, what, why);
		return;
	}
	snprintf(why, sizeof(why), "ib_post_send: %d, bad_wr %s", err,
		 bad == wr ? "at it" : bad == &send ? "at the SEND" :
		 bad ? "elsewhere" : "NULL");
	ik_report(c, err == -EINVAL && bad == wr, what, why);
}

static void ik_run(struct ik_ctx *c)
{
	static const struct {
		enum ib_wr_opcode op;
		const char *what;
	} refused[] = {
		{ IB_WR_SEND_WITH_IMM, "IB_WR_SEND_WITH_IMM: -EINVAL, bad_wr at it" },
		{ IB_WR_RDMA_WRITE_WITH_IMM,
		  "IB_WR_RDMA_WRITE_WITH_IMM: -EINVAL, bad_wr at it" },
		{ IB_WR_ATOMIC_CMP_AND_SWP,
		  "IB_WR_ATOMIC_CMP_AND_SWP: -EINVAL, bad_wr at it" },
		{ IB_WR_ATOMIC_FETCH_AND_ADD,
		  "IB_WR_ATOMIC_FETCH_AND_ADD: -EINVAL, bad_wr at it" },
	};
	const struct ib_device_attr *attr = &c->dev->attrs;
	struct ib_atomic_wr aw;
	struct ib_rdma_wr rw;
	struct ib_reg_wr reg;
	char why[96];
	size_t i;

	snprintf(why, sizeof(why), "atomic_cap %d, max_sge_rd %d",
		 attr->atomic_cap, attr->max_sge_rd);
	ik_report(c, attr->atomic_cap == IB_ATOMIC_NONE &&
		  attr->max_sge_rd == 1,
		  "device attributes: IB_ATOMIC_NONE, max_sge_rd 1", why);

	for (i = 0; i < ARRAY_SIZE(refused); i++) {
		memset(&aw, 0, sizeof(aw));
		aw.wr.opcode = refused[i].op;
		aw.wr.sg_list = c->sge;
		aw.wr.num_sge = 1;
		aw.remote_addr = c->dma;
		aw.rkey = c->mr->rkey;
		ik_post(c, &aw.wr, false, refused[i].what);
	}

	memset(&rw, 0, sizeof(rw));
	rw.wr.opcode = IB_WR_RDMA_READ;
	rw.wr.sg_list = c->sge;
	rw.wr.num_sge = 2;
	rw.remote_addr = c->dma;
	rw.rkey = c->mr->rkey;
	ik_post(c, &rw.wr, false, "IB_WR_RDMA_READ, 2 SGEs: -EINVAL, bad_wr at it");
	rw.wr.num_sge = 1;
	ik_post(c, &rw.wr, true, "IB_WR_RDMA_READ, 1 SGE: posted");

	memset(&reg, 0, sizeof(reg));
	reg.wr.opcode = IB_WR_REG_MR;
	reg.mr = c->mr;
	reg.key = c->mr->rkey;
	reg.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_ATOMIC;
	ik_post(c, &reg.wr, false,
		"IB_WR_REG_MR with remote atomic: -EINVAL, bad_wr at it");
	reg.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
		     IB_ACCESS_REMOTE_READ;
	ik_post(c, &reg.wr, true, "IB_WR_REG_MR with remote read/write: posted");
}

static int __init ordma_iwarp_kverbs_init(void)
{
	struct ik_ctx *c;
	int err;

	pr_info("begin\n");
	pr_info("1..%d\n", IK_STEPS);
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	c->dev = ib_device_get_by_name(dev, RDMA_DRIVER_UNKNOWN);
	if (!c->dev || !rdma_protocol_iwarp(c->dev, 1)) {
		pr_info("not ok 1 - RDMA device %s: %s\n", dev,
			c->dev ? "not iWARP" : "not found");
		pr_info("done 0 passed 1 failed\n");
		if (c->dev)
			ib_device_put(c->dev);
		kfree(c);
		return -ENODEV;
	}
	err = ik_setup(c);
	if (err) {
		pr_info("not ok 1 - PD, CQ, RC QP to INIT, fast-reg MR: %d\n",
			err);
		c->fail++;
	} else {
		ik_run(c);
	}
	ik_teardown(c);
	pr_info("done %u passed %u failed\n", c->pass, c->fail);
	ib_device_put(c->dev);
	kfree(c);
	return 0;
}

static void __exit ordma_iwarp_kverbs_exit(void)
{
}

module_init(ordma_iwarp_kverbs_init);
module_exit(ordma_iwarp_kverbs_exit);

MODULE_DESCRIPTION("ORDMA selftest: kernel verbs an iWARP device refuses");
MODULE_LICENSE("Dual BSD/GPL");
