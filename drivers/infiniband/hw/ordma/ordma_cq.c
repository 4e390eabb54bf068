// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA RDMA driver: completion queues.
 *
 * A user CQ's ring and doorbell record live in the process (struct
 * ordma_create_cq); the provider polls it.  A kernel CQ's ring is
 * DMA-coherent memory followed by its doorbell record, and poll_cq /
 * req_notify_cq run here, ringing the CQ doorbell on the kernel page.
 */

#include <linux/bitfield.h>
#include <linux/dma-mapping.h>
#include <linux/io.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/ordma-abi.h>
#include <rdma/uverbs_ioctl.h>

#include "ordma_ib.h"

/* Room for the doorbell record behind a kernel CQ's ring */
#define ORDMA_CQ_DBREC_SIZE	8

/* Hard IRQ context */
void ordma_cq_comp_event(struct ordma_ibdev *dev, u32 cqn)
{
	struct ordma_cq *cq = ordma_obj_get(&dev->cqs, cqn, struct ordma_cq);

	if (!cq) {
		ibdev_dbg_ratelimited(&dev->ibdev,
				      "completion event for unknown CQ %u\n",
				      cqn);
		return;
	}
	if (cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	ordma_obj_ref_put(&cq->ref);
}

/* From now on the driver completes what @cq's QPs hold. */
static void ordma_cq_set_sw_flush(struct ordma_cq *cq)
{
	unsigned long flags;

	spin_lock_irqsave(&cq->lock, flags);
	WRITE_ONCE(cq->sw_flush, true);
	spin_unlock_irqrestore(&cq->lock, flags);
}

/*
 * A CQ in error takes no more CQEs, but its QPs keep their state on the
 * device.  Stop them (MODIFY_QP to ERR) before their work requests are
 * reported flushed: a consumer frees the buffers of a flushed request.
 */
static void ordma_cq_stop_qps(struct ordma_ibdev *dev, struct ordma_cq *cq)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	struct ordma_qp *qp;
	unsigned long qpn;
	void *entry;
	int err;

	xa_for_each(&dev->qps, qpn, entry) {
		qp = ordma_obj_get(&dev->qps, qpn, struct ordma_qp);
		if (!qp)
			continue;
		if (qp->uctx_id == ORDMA_KERNEL_UCTX &&
		    (qp->ibqp.send_cq == &cq->ibcq ||
		     qp->ibqp.recv_cq == &cq->ibcq)) {
			err = ordma_modify_qp(&qp->ibqp, &attr, IB_QP_STATE,
					      NULL);
			if (err)
				ibdev_warn(&dev->ibdev,
					   "QP %u of CQ %u in error: MODIFY_QP to ERR failed: %d\n",
					   qp->qpn, cq->cqn, err);
		}
		ordma_obj_ref_put(&qp->ref);
	}
}

/* Hands the consumer the completions the driver makes for the device. */
static void ordma_cq_flush_work(struct work_struct *work)
{
	struct ordma_cq *cq = container_of(work, struct ordma_cq, flush_work);

	if (READ_ONCE(cq->cq_error) && !READ_ONCE(cq->sw_flush)) {
		ordma_cq_stop_qps(to_ordma_ibdev(cq->ibcq.device), cq);
		ordma_cq_set_sw_flush(cq);
	}
	if (cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
}

/*
 * Any context.  A fatal device (@cq_error false) does no DMA any more:
 * the driver completes what @cq's QPs hold at once.  After a CQ error
 * the work item stops the QPs first.
 */
static void ordma_cq_start_sw_flush(struct ordma_ibdev *dev,
				    struct ordma_cq *cq, bool cq_error)
{
	if (cq_error)
		WRITE_ONCE(cq->cq_error, true);
	else
		ordma_cq_set_sw_flush(cq);
	queue_work(dev->wq, &cq->flush_work);
}

/*
 * A work request was posted to a QP whose CQ is flushed by the driver:
 * have the consumer poll its flush completion.
 */
void ordma_cq_kick_sw_flush(struct ordma_ibdev *dev, struct ib_cq *ibcq)
{
	if (ordma_cq_sw_flushed(ibcq))
		queue_work(dev->wq, &to_ordma_cq(ibcq)->flush_work);
}

/*
 * The device is fatal: no CQE will come any more.  Called once, before
 * IB_EVENT_DEVICE_FATAL is dispatched.
 */
void ordma_cq_flush_all(struct ordma_ibdev *dev)
{
	struct ordma_cq *cq;
	unsigned long flags;
	unsigned long cqn;

	xa_lock_irqsave(&dev->cqs, flags);
	xa_for_each(&dev->cqs, cqn, cq)
		if (cq->kbuf.va)
			ordma_cq_start_sw_flush(dev, cq, false);
	xa_unlock_irqrestore(&dev->cqs, flags);
}

/* Hard IRQ context */
void ordma_cq_async_event(struct ordma_ibdev *dev, u32 cqn,
			  enum ib_event_type type)
{
	struct ordma_cq *cq = ordma_obj_get(&dev->cqs, cqn, struct ordma_cq);
	struct ib_event event = {};

	if (!cq) {
		ibdev_dbg_ratelimited(&dev->ibdev,
				      "async event %d for unknown CQ %u\n",
				      type, cqn);
		return;
	}
	ibdev_warn_ratelimited(&dev->ibdev, "CQ %u entered the error state\n",
			       cqn);
	if (cq->kbuf.va)
		ordma_cq_start_sw_flush(dev, cq, true);
	if (cq->ibcq.event_handler) {
		event.device = &dev->ibdev;
		event.element.cq = &cq->ibcq;
		event.event = type;
		cq->ibcq.event_handler(&event, cq->ibcq.cq_context);
	}
	ordma_obj_ref_put(&cq->ref);
}

static int ordma_create_user_cq(struct ordma_ibdev *dev, struct ordma_cq *cq,
				const struct ib_cq_init_attr *attr,
				struct ib_udata *udata,
				struct ordma_cmd_create_cq *cmd)
{
	struct ordma_create_cq ucmd = {};
	size_t inlen;
	u64 db_dma;
	int err;

	if (udata->inlen < offsetofend(struct ordma_create_cq, log_size)) {
		ibdev_dbg(&dev->ibdev, "create_cq: udata too short (%zu)\n",
			  udata->inlen);
		return -EINVAL;
	}
	inlen = min(udata->inlen, sizeof(ucmd));
	err = ib_copy_from_udata(&ucmd, udata, inlen);
	if (err)
		return err;
	if (memchr_inv(ucmd.reserved, 0, sizeof(ucmd.reserved)) ||
	    (udata->inlen > sizeof(ucmd) &&
	     !ib_is_udata_cleared(udata, sizeof(ucmd),
				  udata->inlen - sizeof(ucmd)))) {
		ibdev_dbg(&dev->ibdev, "create_cq: reserved udata not zero\n");
		return -EINVAL;
	}

	if (!ucmd.log_size || ucmd.log_size > ORDMA_CQ_MAX_LOG_SIZE ||
	    BIT(ucmd.log_size) > le32_to_cpu(dev->caps.max_cqe) ||
	    BIT(ucmd.log_size) < attr->cqe) {
		ibdev_dbg(&dev->ibdev, "create_cq: bad log_size %u for %u CQEs\n",
			  ucmd.log_size, attr->cqe);
		return -EINVAL;
	}
	if (!ucmd.db_record_addr || !IS_ALIGNED(ucmd.db_record_addr, 8)) {
		ibdev_dbg(&dev->ibdev, "create_cq: bad doorbell record %#llx\n",
			  ucmd.db_record_addr);
		return -EINVAL;
	}
	cq->log_size = ucmd.log_size;

	cq->umem = ordma_umem_ring(dev, ucmd.buf_addr,
				   (size_t)ORDMA_CQE_SIZE << cq->log_size,
				   &cq->pbl);
	if (IS_ERR(cq->umem)) {
		err = PTR_ERR(cq->umem);
		cq->umem = NULL;
		return err;
	}

	/* The record is 8 bytes in one page: pin that page. */
	cq->db_umem = ib_umem_get(&dev->ibdev, ucmd.db_record_addr,
				  ORDMA_CQ_DBREC_SIZE, 0);
	if (IS_ERR(cq->db_umem)) {
		err = PTR_ERR(cq->db_umem);
		cq->db_umem = NULL;
		goto err_ring;
	}
	db_dma = sg_dma_address(cq->db_umem->sgt_append.sgt.sgl) +
		 ib_umem_offset(cq->db_umem);

	cmd->ring = cq->pbl.hw;
	cmd->db_record = cpu_to_le64(db_dma);
	return 0;

err_ring:
	ordma_pbl_free(dev, &cq->pbl);
	ib_umem_release(cq->umem);
	cq->umem = NULL;
	return err;
}

static int ordma_create_kernel_cq(struct ordma_ibdev *dev, struct ordma_cq *cq,
				  const struct ib_cq_init_attr *attr,
				  struct ordma_cmd_create_cq *cmd)
{
	size_t ring_size;
	int err;

	cq->log_size = max_t(u32, order_base_2(attr->cqe), 1);
	if (cq->log_size > ORDMA_CQ_MAX_LOG_SIZE)
		return -EINVAL;
	ring_size = (size_t)ORDMA_CQE_SIZE << cq->log_size;

	err = ordma_kbuf_alloc(dev, &cq->kbuf, ring_size + ORDMA_CQ_DBREC_SIZE,
			       &cmd->ring);
	if (err)
		return err;
	cq->db_record = cq->kbuf.va + ring_size;
	cmd->db_record = cpu_to_le64(cq->kbuf.dma + ring_size);
	spin_lock_init(&cq->lock);
	cq->ci = 0;
	INIT_WORK(&cq->flush_work, ordma_cq_flush_work);
	return 0;
}

static void ordma_cq_free_bufs(struct ordma_ibdev *dev, struct ordma_cq *cq)
{
	ordma_pbl_free(dev, &cq->pbl);
	if (cq->umem)
		ib_umem_release(cq->umem);
	if (cq->db_umem)
		ib_umem_release(cq->db_umem);
	ordma_kbuf_free(dev, &cq->kbuf);
}

int ordma_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    struct uverbs_attr_bundle *attrs)
{
	struct ib_udata *udata = attrs ? &attrs->driver_udata : NULL;
	struct ordma_ibdev *dev = to_ordma_ibdev(ibcq->device);
	struct ordma_cq *cq = to_ordma_cq(ibcq);
	struct ordma_create_cq_resp resp = {};
	struct ordma_cmd_create_cq cmd = {};
	u32 eqn;
	int err;

	if (attr->flags)
		return -EOPNOTSUPP;
	if (!attr->cqe || attr->cqe > le32_to_cpu(dev->caps.max_cqe))
		return -EINVAL;
	err = ordma_core_comp_eqn(dev->cdev, attr->comp_vector, &eqn);
	if (err) {
		ibdev_dbg(&dev->ibdev, "create_cq: no completion vector %u\n",
			  attr->comp_vector);
		return err;
	}

	cq->uctx_id = ordma_udata_uctx(udata);
	ordma_obj_ref_init(&cq->ref);

	if (udata)
		err = ordma_create_user_cq(dev, cq, attr, udata, &cmd);
	else
		err = ordma_create_kernel_cq(dev, cq, attr, &cmd);
	if (err)
		return err;

	cmd.uctx = cpu_to_le32(cq->uctx_id);
	cmd.eqn = cpu_to_le32(eqn);
	cmd.log_size = cq->log_size;
	err = ordma_cmd_create_cq(dev, &cmd, &cq->cqn);
	if (err) {
		ibdev_dbg(&dev->ibdev, "CREATE_CQ failed: %d\n", err);
		if (ordma_device_may_use_memory(ORDMA_MEM_CREATE, err))
			return err;
		goto err_free_bufs;
	}

	err = xa_insert_irq(&dev->cqs, cq->cqn, cq, GFP_KERNEL);
	if (err)
		goto err_destroy;

	ibcq->cqe = BIT(cq->log_size);

	if (udata) {
		resp.cqn = cq->cqn;
		err = ib_copy_to_udata(udata, &resp,
				       min(sizeof(resp), udata->outlen));
		if (err)
			goto err_erase;
	}

	ibdev_dbg(&dev->ibdev, "CQ %u: %u entries on EQ %u, uctx %u\n",
		  cq->cqn, ibcq->cqe, eqn, cq->uctx_id);
	return 0;

err_erase:
	xa_erase_irq(&dev->cqs, cq->cqn);
err_destroy:
	if (ordma_device_may_use_memory(ORDMA_MEM_DESTROY,
					ordma_cmd_destroy_cq(dev, cq->uctx_id,
							     cq->cqn)))
		return err;
err_free_bufs:
	ordma_cq_free_bufs(dev, cq);
	return err;
}

int ordma_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(ibcq->device);
	struct ordma_cq *cq = to_ordma_cq(ibcq);
	int err;

	err = ordma_cmd_destroy_cq(dev, cq->uctx_id, cq->cqn);
	ordma_report_destroy(dev, err, "DESTROY_CQ %u", cq->cqn);

	/* No new handler finds the CQ; wait for those running. */
	xa_erase_irq(&dev->cqs, cq->cqn);
	ordma_obj_ref_drain(&cq->ref);
	if (cq->kbuf.va)
		cancel_work_sync(&cq->flush_work);

	if (!ordma_device_may_use_memory(ORDMA_MEM_DESTROY, err))
		ordma_cq_free_bufs(dev, cq);
	return 0;
}

/* ---------------------------------------------------------------- */
/* Kernel CQ polling                                                */
/* ---------------------------------------------------------------- */

static struct ordma_cqe *ordma_cq_slot(struct ordma_cq *cq, u32 idx)
{
	struct ordma_cqe *ring = cq->kbuf.va;

	return &ring[idx & (BIT(cq->log_size) - 1)];
}

/* The CQE at free-running index @idx, if the device has written it. */
static struct ordma_cqe *ordma_cq_peek(struct ordma_cq *cq, u32 idx)
{
	struct ordma_cqe *cqe = ordma_cq_slot(cq, idx);
	u32 phase = !((idx >> cq->log_size) & 1);
	u32 owner = le32_to_cpu(READ_ONCE(cqe->owner));

	if (!!(owner & ORDMA_CQE_PHASE) != phase)
		return NULL;
	/* The owner dword is written last: read the rest after it. */
	dma_rmb();
	return cqe;
}

static enum ib_wc_opcode ordma_wc_opcode(u8 opcode)
{
	switch (opcode) {
	case ORDMA_CQE_OP_RDMA_WRITE:
		return IB_WC_RDMA_WRITE;
	case ORDMA_CQE_OP_RDMA_READ:
		return IB_WC_RDMA_READ;
	case ORDMA_CQE_OP_CMP_SWP:
		return IB_WC_COMP_SWAP;
	case ORDMA_CQE_OP_FETCH_ADD:
		return IB_WC_FETCH_ADD;
	case ORDMA_CQE_OP_LOCAL_INV:
		return IB_WC_LOCAL_INV;
	case ORDMA_CQE_OP_REG_MR:
		return IB_WC_REG_MR;
	case ORDMA_CQE_OP_FLUSH:
		return IB_WC_FLUSH;
	case ORDMA_CQE_OP_ATOMIC_WRITE:
		return IB_WC_ATOMIC_WRITE;
	case ORDMA_CQE_OP_BIND_MW:
		return IB_WC_BIND_MW;
	case ORDMA_CQE_OP_RECV:
		return IB_WC_RECV;
	case ORDMA_CQE_OP_RECV_RDMA_IMM:
		return IB_WC_RECV_RDMA_WITH_IMM;
	case ORDMA_CQE_OP_SEND:
	default:
		return IB_WC_SEND;
	}
}

/* Retire the WQEs of @wq up to slot @slot; returns that WQE's wr_id. */
static u64 ordma_wq_complete(struct ordma_wq *wq, u32 slot)
{
	u32 mask = BIT(wq->log_size) - 1;
	unsigned long flags;
	u64 wr_id;

	spin_lock_irqsave(&wq->lock, flags);
	slot &= mask;
	wr_id = wq->wr_id[slot];
	/* In-order completion: every older slot is done too. */
	if (wq->pi != wq->ci)
		wq->ci += ((slot - wq->ci) & mask) + 1;
	spin_unlock_irqrestore(&wq->lock, flags);
	return wr_id;
}

/* Returns false if the CQE names no QP of ours (it is skipped). */
static bool ordma_cq_fill_wc(struct ordma_ibdev *dev,
			     const struct ordma_cqe *cqe, struct ib_wc *wc)
{
	u32 qpn = le32_to_cpu(cqe->qpn);
	u16 flags = le16_to_cpu(cqe->flags);
	bool recv = cqe->opcode & ORDMA_CQE_OP_RECV;
	struct ordma_qp *qp;

	qp = ordma_obj_get(&dev->qps, qpn, struct ordma_qp);
	if (!qp)
		return false;
	if (qp->uctx_id != ORDMA_KERNEL_UCTX) {
		ordma_obj_ref_put(&qp->ref);
		return false;
	}

	memset(wc, 0, sizeof(*wc));
	if (recv && qp->ibqp.srq)
		wc->wr_id = ordma_srq_complete(to_ordma_srq(qp->ibqp.srq),
					       le32_to_cpu(cqe->wqe_idx));
	else
		wc->wr_id = ordma_wq_complete(recv ? &qp->rq : &qp->sq,
					      le32_to_cpu(cqe->wqe_idx));
	wc->status = cqe->status;
	wc->opcode = ordma_wc_opcode(cqe->opcode);
	wc->byte_len = le32_to_cpu(cqe->byte_len);
	wc->qp = &qp->ibqp;
	wc->src_qp = le32_to_cpu(cqe->src_qp);
	wc->port_num = 1;
	if (flags & ORDMA_CQE_F_IMM) {
		/* The immediate is kept in wire (big endian) byte order. */
		wc->ex.imm_data = (__force __be32)cqe->imm_inv;
		wc->wc_flags |= IB_WC_WITH_IMM;
	} else if (flags & ORDMA_CQE_F_INV) {
		wc->ex.invalidate_rkey = le32_to_cpu(cqe->imm_inv);
		wc->wc_flags |= IB_WC_WITH_INVALIDATE;
	}
	if (ordma_port_is_ib(dev)) {
		/* the LRH's SLID and SL, a GRH only when the packet had one */
		wc->slid = le16_to_cpu(cqe->slid);
		wc->sl = cqe->sl & 0xf;
		wc->dlid_path_bits = cqe->dlid_path_bits & 0x7f;
		if (flags & ORDMA_CQE_F_GRH)
			wc->wc_flags |= IB_WC_GRH;
	} else if (flags & ORDMA_CQE_F_GRH) {
		wc->wc_flags |= IB_WC_GRH | IB_WC_WITH_NETWORK_HDR_TYPE;
		wc->network_hdr_type = flags & ORDMA_CQE_F_IPV4 ?
				       RDMA_NETWORK_IPV4 : RDMA_NETWORK_IPV6;
	}
	/* The QP stays allocated while its CQE is polled: its destroy
	 * waits for the CQ lock (ordma_cq_clean()).
	 */
	ordma_obj_ref_put(&qp->ref);
	return true;
}

/*
 * Completes up to @max outstanding work requests of @wq with
 * IB_WC_WR_FLUSH_ERR, oldest first.  Called with the CQ lock held.
 */
static int ordma_wq_flush_sw(struct ordma_qp *qp, struct ordma_wq *wq,
			     enum ib_wc_opcode opcode, struct ib_wc *wc,
			     int max)
{
	u32 mask = BIT(wq->log_size) - 1;
	int n = 0;

	spin_lock(&wq->lock);
	while (n < max && wq->ci != wq->pi) {
		memset(&wc[n], 0, sizeof(wc[n]));
		wc[n].wr_id = wq->wr_id[wq->ci & mask];
		wc[n].status = IB_WC_WR_FLUSH_ERR;
		wc[n].opcode = opcode;
		wc[n].qp = &qp->ibqp;
		wc[n].port_num = 1;
		wq->ci++;
		n++;
	}
	spin_unlock(&wq->lock);
	return n;
}

/*
 * The device writes no more CQEs to @cq: complete what its kernel QPs
 * still hold.  The QP array's lock keeps each QP alive meanwhile.
 */
static int ordma_cq_flush_sw(struct ordma_ibdev *dev, struct ordma_cq *cq,
			     struct ib_wc *wc, int max)
{
	struct ordma_qp *qp;
	unsigned long qpn;
	int n = 0;

	xa_lock(&dev->qps);
	xa_for_each(&dev->qps, qpn, qp) {
		if (n == max)
			break;
		if (qp->uctx_id != ORDMA_KERNEL_UCTX)
			continue;
		if (qp->ibqp.send_cq == &cq->ibcq)
			n += ordma_wq_flush_sw(qp, &qp->sq, IB_WC_SEND, wc + n,
					       max - n);
		if (!qp->ibqp.srq && qp->ibqp.recv_cq == &cq->ibcq)
			n += ordma_wq_flush_sw(qp, &qp->rq, IB_WC_RECV, wc + n,
					       max - n);
	}
	xa_unlock(&dev->qps);
	return n;
}

/* Whether ordma_cq_flush_sw() has work requests to complete */
static bool ordma_cq_sw_pending(struct ordma_ibdev *dev, struct ordma_cq *cq)
{
	bool pending = false;
	struct ordma_qp *qp;
	unsigned long qpn;

	xa_lock(&dev->qps);
	xa_for_each(&dev->qps, qpn, qp) {
		if (qp->uctx_id != ORDMA_KERNEL_UCTX)
			continue;
		if (qp->ibqp.send_cq == &cq->ibcq &&
		    READ_ONCE(qp->sq.ci) != READ_ONCE(qp->sq.pi))
			pending = true;
		if (!qp->ibqp.srq && qp->ibqp.recv_cq == &cq->ibcq &&
		    READ_ONCE(qp->rq.ci) != READ_ONCE(qp->rq.pi))
			pending = true;
		if (pending)
			break;
	}
	xa_unlock(&dev->qps);
	return pending;
}

int ordma_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(ibcq->device);
	struct ordma_cq *cq = to_ordma_cq(ibcq);
	struct ordma_cqe *cqe;
	unsigned long flags;
	int n = 0;

	if (!cq->kbuf.va)
		return -EOPNOTSUPP;

	spin_lock_irqsave(&cq->lock, flags);
	while (n < num_entries) {
		cqe = ordma_cq_peek(cq, cq->ci);
		if (!cqe)
			break;
		cq->ci++;
		if (ordma_cq_fill_wc(dev, cqe, &wc[n]))
			n++;
	}
	/* Hand the slots back before the device next looks for room. */
	WRITE_ONCE(*cq->db_record, cpu_to_le32(cq->ci));
	/* CQEs the device wrote before it stopped come first. */
	if (unlikely(cq->sw_flush) && n < num_entries)
		n += ordma_cq_flush_sw(dev, cq, wc + n, num_entries - n);
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

int ordma_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(ibcq->device);
	struct ordma_cq *cq = to_ordma_cq(ibcq);
	unsigned long irqflags;
	u64 db;
	int ret = 0;

	if (!cq->kbuf.va)
		return -EOPNOTSUPP;

	spin_lock_irqsave(&cq->lock, irqflags);
	db = FIELD_PREP(ORDMA_DB_QN, cq->cqn) |
	     FIELD_PREP(ORDMA_DB_IDX, cq->ci) | ORDMA_DB_ARM;
	if ((flags & IB_CQ_SOLICITED_MASK) == IB_CQ_SOLICITED)
		db |= ORDMA_DB_SOLICITED;
	writeq(db, dev->kdb + ORDMA_DB_CQ);
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) &&
	    (ordma_cq_peek(cq, cq->ci) ||
	     (cq->sw_flush && ordma_cq_sw_pending(dev, cq))))
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}

/*
 * Called when kernel QP @qpn is destroyed: its completions that were not
 * polled yet are dropped, so that a later QP with the same number does
 * not get them; the SRQ slots of its dropped receive completions (QP on
 * @srq) are free again.  Taking the CQ lock also waits for a poller that
 * is looking at the QP.
 */
void ordma_cq_clean(struct ordma_cq *cq, u32 qpn, struct ordma_srq *srq)
{
	struct ordma_cqe *cqe;
	unsigned long flags;
	u32 idx;

	if (!cq->kbuf.va)
		return;

	spin_lock_irqsave(&cq->lock, flags);
	for (idx = cq->ci; idx - cq->ci < BIT(cq->log_size); idx++) {
		cqe = ordma_cq_peek(cq, idx);
		if (!cqe)
			break;
		/* QP number 0 is never handed out: the poller skips it. */
		if (le32_to_cpu(cqe->qpn) != qpn)
			continue;
		if (srq && (cqe->opcode & ORDMA_CQE_OP_RECV))
			ordma_srq_complete(srq, le32_to_cpu(cqe->wqe_idx));
		cqe->qpn = 0;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
}
