// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA RDMA driver: shared receive queues.
 *
 * A user SRQ's ring lives in the process (struct ordma_create_srq); the
 * provider posts to it and rings the SRQ doorbell.  A kernel SRQ has a
 * DMA-coherent ring (ordma_wq.c), posted to here with the doorbell on the
 * kernel page (ib_post_srq_recv(), nvmet-rdma use_srq=1).  The limit
 * event is armed by CREATE_SRQ/MODIFY_SRQ and fires once per arm.
 */

#include <linux/bitmap.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/ordma-abi.h>
#include <rdma/uverbs_ioctl.h>

#include "ordma_ib.h"

/* Hard IRQ context */
void ordma_srq_async_event(struct ordma_ibdev *dev, u32 srqn,
			   enum ib_event_type type)
{
	struct ib_event event = {};
	struct ordma_srq *srq;

	srq = ordma_obj_get(&dev->srqs, srqn, struct ordma_srq);
	if (!srq) {
		ibdev_dbg_ratelimited(&dev->ibdev,
				      "async event %d for unknown SRQ %u\n",
				      type, srqn);
		return;
	}
	/* The device disarmed the limit with this event. */
	if (type == IB_EVENT_SRQ_LIMIT_REACHED)
		WRITE_ONCE(srq->limit, 0);
	if (srq->ibsrq.event_handler) {
		event.device = &dev->ibdev;
		event.element.srq = &srq->ibsrq;
		event.event = type;
		srq->ibsrq.event_handler(&event, srq->ibsrq.srq_context);
	}
	ordma_obj_ref_put(&srq->ref);
}

/* The provider's request: long enough, reserved and trailing bytes zero */
static int ordma_srq_read_udata(struct ordma_ibdev *dev,
				struct ib_udata *udata,
				struct ordma_create_srq *ucmd)
{
	int err;

	if (udata->inlen < sizeof(*ucmd)) {
		ibdev_dbg(&dev->ibdev, "create_srq: udata too short (%zu)\n",
			  udata->inlen);
		return -EINVAL;
	}
	err = ib_copy_from_udata(ucmd, udata, sizeof(*ucmd));
	if (err)
		return err;
	if (memchr_inv(ucmd->reserved, 0, sizeof(ucmd->reserved)) ||
	    (udata->inlen > sizeof(*ucmd) &&
	     !ib_is_udata_cleared(udata, sizeof(*ucmd),
				  udata->inlen - sizeof(*ucmd))))
		return -EINVAL;
	return 0;
}

static int ordma_srq_check_caps(struct ordma_ibdev *dev,
				const struct ib_srq_attr *attr)
{
	const struct ordma_device_caps *caps = &dev->caps;

	if (!attr->max_wr || attr->max_wr > le32_to_cpu(caps->max_srq_wr) ||
	    attr->max_sge > le32_to_cpu(caps->max_srq_sge))
		return -EINVAL;
	return 0;
}

/* The ring the provider allocated must hold what the caller asks for. */
static int ordma_srq_check_sizes(struct ordma_ibdev *dev,
				 const struct ib_srq_attr *attr,
				 const struct ordma_create_srq *ucmd)
{
	if (ucmd->log_size < ORDMA_WQ_MIN_LOG_SIZE ||
	    ucmd->log_size > ORDMA_WQ_MAX_LOG_SIZE ||
	    ucmd->wqe_shift < ORDMA_RECV_WQE_MIN_SHIFT ||
	    ucmd->wqe_shift > ORDMA_RECV_WQE_MAX_SHIFT ||
	    BIT(ucmd->log_size) < attr->max_wr ||
	    ordma_recv_wqe_sges(ucmd->wqe_shift) < attr->max_sge ||
	    attr->srq_limit > BIT(ucmd->log_size)) {
		ibdev_dbg(&dev->ibdev,
			  "create_srq: 2^%u WQEs of 2^%u bytes for %u x %u, limit %u\n",
			  ucmd->log_size, ucmd->wqe_shift, attr->max_wr,
			  attr->max_sge, attr->srq_limit);
		return -EINVAL;
	}
	return 0;
}

/* CREATE_SRQ of the ring in @ring */
static int ordma_srq_create_hw(struct ordma_ibdev *dev, struct ordma_srq *srq,
			       const struct ordma_page_list *ring)
{
	struct ordma_cmd_create_srq cmd = {};

	cmd.uctx = cpu_to_le32(srq->uctx_id);
	cmd.pdn = cpu_to_le32(to_ordma_pd(srq->ibsrq.pd)->pdn);
	cmd.ring = *ring;
	cmd.log_size = srq->wq.log_size;
	cmd.wqe_shift = srq->wq.wqe_shift;
	cmd.limit = cpu_to_le32(srq->limit);
	return ordma_cmd_create_srq(dev, &cmd, &srq->srqn);
}

static void ordma_srq_free_ring(struct ordma_ibdev *dev, struct ordma_srq *srq)
{
	ordma_pbl_free(dev, &srq->wq.pbl);
	if (srq->wq.umem)
		ib_umem_release(srq->wq.umem);
	srq->wq.umem = NULL;
	ordma_kbuf_free(dev, &srq->wq.kbuf);
	kfree(srq->wq.wr_id);
	srq->wq.wr_id = NULL;
	bitmap_free(srq->busy);
	srq->busy = NULL;
}

/* The ring the provider allocated, mapped; its page list in @ring */
static int ordma_srq_user_ring(struct ordma_ibdev *dev, struct ordma_srq *srq,
			       const struct ib_srq_attr *attr,
			       struct ib_udata *udata,
			       struct ordma_page_list *ring)
{
	struct ordma_create_srq ucmd = {};
	struct ib_umem *umem;
	int err;

	err = ordma_srq_read_udata(dev, udata, &ucmd);
	if (err)
		return err;
	err = ordma_srq_check_sizes(dev, attr, &ucmd);
	if (err)
		return err;
	srq->wq.log_size = ucmd.log_size;
	srq->wq.wqe_shift = ucmd.wqe_shift;
	umem = ordma_umem_ring(dev, ucmd.buf_addr,
			       BIT(srq->wq.log_size + srq->wq.wqe_shift),
			       &srq->wq.pbl);
	if (IS_ERR(umem))
		return PTR_ERR(umem);
	srq->wq.umem = umem;
	*ring = srq->wq.pbl.hw;
	return 0;
}

/* A kernel SRQ's ring and bookkeeping; its page list in @ring */
static int ordma_srq_kernel_ring(struct ordma_ibdev *dev,
				 struct ordma_srq *srq,
				 const struct ib_srq_attr *attr,
				 struct ordma_page_list *ring)
{
	int err;

	spin_lock_init(&srq->wq.lock);
	err = ordma_kernel_wq_alloc(dev, &srq->wq, attr->max_wr,
				    ordma_recv_wqe_bytes(attr->max_sge),
				    ORDMA_RECV_WQE_MIN_SHIFT, ring);
	if (!err && srq->wq.wqe_shift > ORDMA_RECV_WQE_MAX_SHIFT)
		err = -EINVAL;
	if (!err && attr->srq_limit > BIT(srq->wq.log_size))
		err = -EINVAL;
	if (!err) {
		srq->busy = bitmap_zalloc(BIT(srq->wq.log_size), GFP_KERNEL);
		if (!srq->busy)
			err = -ENOMEM;
	}
	if (err)
		ordma_srq_free_ring(dev, srq);
	return err;
}

int ordma_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init_attr,
		     struct ib_udata *udata)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(ibsrq->device);
	const struct ordma_device_caps *caps = &dev->caps;
	struct ordma_srq *srq = to_ordma_srq(ibsrq);
	struct ib_srq_attr *attr = &init_attr->attr;
	struct ordma_create_srq_resp resp = {};
	struct ordma_page_list ring;
	int err;

	if (init_attr->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	if (!(le32_to_cpu(caps->cap_flags) & ORDMA_DEV_CAP_SRQ))
		return -EOPNOTSUPP;
	err = ordma_srq_check_caps(dev, attr);
	if (err)
		return err;

	srq->uctx_id = ordma_udata_uctx(udata);
	srq->limit = attr->srq_limit;
	ordma_obj_ref_init(&srq->ref);
	if (udata)
		err = ordma_srq_user_ring(dev, srq, attr, udata, &ring);
	else
		err = ordma_srq_kernel_ring(dev, srq, attr, &ring);
	if (err)
		return err;
	srq->wq.max_sge = min_t(u32, ordma_recv_wqe_sges(srq->wq.wqe_shift),
				le32_to_cpu(caps->max_srq_sge));

	err = ordma_srq_create_hw(dev, srq, &ring);
	if (err) {
		ibdev_dbg(&dev->ibdev, "CREATE_SRQ failed: %d\n", err);
		if (ordma_device_may_use_memory(ORDMA_MEM_CREATE, err))
			return err;
		goto err_free_ring;
	}

	err = xa_insert_irq(&dev->srqs, srq->srqn, srq, GFP_KERNEL);
	if (err)
		goto err_destroy;

	attr->max_wr = BIT(srq->wq.log_size);
	attr->max_sge = srq->wq.max_sge;

	if (udata) {
		resp.srqn = srq->srqn;
		err = ib_copy_to_udata(udata, &resp,
				       min(sizeof(resp), udata->outlen));
		if (err)
			goto err_erase;
	}

	ibdev_dbg(&dev->ibdev, "SRQ %u: 2^%u x %u bytes, limit %u, uctx %u\n",
		  srq->srqn, srq->wq.log_size, 1U << srq->wq.wqe_shift,
		  srq->limit, srq->uctx_id);
	return 0;

err_erase:
	xa_erase_irq(&dev->srqs, srq->srqn);
err_destroy:
	if (ordma_device_may_use_memory(ORDMA_MEM_DESTROY,
					ordma_cmd_destroy_srq(dev,
							      srq->uctx_id,
							      srq->srqn)))
		return err;
err_free_ring:
	ordma_srq_free_ring(dev, srq);
	return err;
}

int ordma_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask attr_mask, struct ib_udata *udata)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(ibsrq->device);
	struct ordma_srq *srq = to_ordma_srq(ibsrq);
	int err;

	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	/* The ring cannot be resized. */
	if (attr_mask & ~IB_SRQ_LIMIT)
		return -EOPNOTSUPP;
	if (!(attr_mask & IB_SRQ_LIMIT))
		return 0;
	if (attr->srq_limit > BIT(srq->wq.log_size))
		return -EINVAL;

	err = ordma_cmd_modify_srq(dev, srq->uctx_id, srq->srqn,
				   attr->srq_limit);
	if (err) {
		ibdev_dbg(&dev->ibdev, "MODIFY_SRQ %u failed: %d\n", srq->srqn,
			  err);
		return err;
	}
	WRITE_ONCE(srq->limit, attr->srq_limit);
	return 0;
}

int ordma_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct ordma_srq *srq = to_ordma_srq(ibsrq);

	attr->max_wr = BIT(srq->wq.log_size);
	attr->max_sge = srq->wq.max_sge;
	attr->srq_limit = READ_ONCE(srq->limit);
	return 0;
}

int ordma_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(ibsrq->device);
	struct ordma_srq *srq = to_ordma_srq(ibsrq);
	int err;

	err = ordma_cmd_destroy_srq(dev, srq->uctx_id, srq->srqn);
	ordma_report_destroy(dev, err, "DESTROY_SRQ %u", srq->srqn);

	xa_erase_irq(&dev->srqs, srq->srqn);
	ordma_obj_ref_drain(&srq->ref);

	if (!ordma_device_may_use_memory(ORDMA_MEM_DESTROY, err))
		ordma_srq_free_ring(dev, srq);
	return 0;
}

u64 ordma_srq_complete(struct ordma_srq *srq, u32 slot)
{
	unsigned long flags;
	u64 wr_id;

	slot &= BIT(srq->wq.log_size) - 1;
	spin_lock_irqsave(&srq->wq.lock, flags);
	wr_id = srq->wq.wr_id[slot];
	__clear_bit(slot, srq->busy);
	spin_unlock_irqrestore(&srq->wq.lock, flags);
	return wr_id;
}

int ordma_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(ibsrq->device);
	struct ordma_srq *srq = to_ordma_srq(ibsrq);
	struct ordma_wq *wq = &srq->wq;
	unsigned long flags;
	int err = 0;
	u32 start;

	/* User SRQs are posted to by the provider. */
	if (!wq->kbuf.va) {
		*bad_wr = wr;
		return -EOPNOTSUPP;
	}

	spin_lock_irqsave(&wq->lock, flags);
	start = wq->pi;
	for (; wr; wr = wr->next) {
		u32 slot = wq->pi & (BIT(wq->log_size) - 1);

		if (test_bit(slot, srq->busy)) {
			err = -ENOMEM;
			break;
		}
		if (wr->num_sge > wq->max_sge) {
			err = -EINVAL;
			break;
		}
		__set_bit(slot, srq->busy);
		ordma_wq_put_recv(wq, wr);
	}
	if (err)
		*bad_wr = wr;
	if (wq->pi != start)
		ordma_ring_wq_db(dev, ORDMA_DB_SRQ, srq->srqn, wq->pi);
	spin_unlock_irqrestore(&wq->lock, flags);
	return err;
}
