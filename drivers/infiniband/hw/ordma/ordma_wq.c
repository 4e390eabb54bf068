// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA RDMA driver: kernel work queue rings, shared by the send and
 * receive queues of kernel QPs (ordma_qp.c) and by kernel SRQs
 * (ordma_srq.c).  It owns a ring's allocation and sizing, the receive
 * WQE layout, slot addressing by free-running index, the full check,
 * writing SGEs and receive WQEs, and ringing a queue's doorbell on the
 * kernel doorbell page.  Callers hold the queue's lock; user queues are
 * the provider's and never come here.
 */

#include <linux/bitfield.h>
#include <linux/io.h>
#include <linux/log2.h>
#include <linux/slab.h>

#include "ordma_ib.h"

#define ORDMA_RECV_WQE_HDR_SIZE		sizeof(struct ordma_recv_wqe)

u32 ordma_recv_wqe_sges(u32 wqe_shift)
{
	return (BIT(wqe_shift) - ORDMA_RECV_WQE_HDR_SIZE) /
	       sizeof(struct ordma_sge);
}

u32 ordma_recv_wqe_bytes(u32 max_sge)
{
	return ORDMA_RECV_WQE_HDR_SIZE +
	       max_t(u32, max_sge, 1) * sizeof(struct ordma_sge);
}

int ordma_kernel_wq_alloc(struct ordma_ibdev *dev, struct ordma_wq *wq,
			  u32 max_wr, u32 wqe_bytes, u32 min_shift,
			  struct ordma_page_list *pl)
{
	wq->log_size = max_t(u32, order_base_2(max_wr), ORDMA_WQ_MIN_LOG_SIZE);
	wq->wqe_shift = max_t(u32, order_base_2(wqe_bytes), min_shift);
	if (wq->log_size > ORDMA_WQ_MAX_LOG_SIZE)
		return -EINVAL;

	wq->wr_id = kcalloc(BIT(wq->log_size), sizeof(*wq->wr_id), GFP_KERNEL);
	if (!wq->wr_id)
		return -ENOMEM;
	wq->pi = 0;
	wq->ci = 0;
	return ordma_kbuf_alloc(dev, &wq->kbuf,
				BIT(wq->log_size + wq->wqe_shift), pl);
}

void *ordma_wq_slot(struct ordma_wq *wq, u32 idx)
{
	return wq->kbuf.va +
	       ((size_t)(idx & (BIT(wq->log_size) - 1)) << wq->wqe_shift);
}

bool ordma_wq_full(const struct ordma_wq *wq)
{
	return wq->pi - wq->ci >= BIT(wq->log_size);
}

void ordma_ring_wq_db(struct ordma_ibdev *dev, u32 reg, u32 qn, u32 pi)
{
	/* The WQEs must reach memory before the device hears of them. */
	wmb();
	writeq(FIELD_PREP(ORDMA_DB_QN, qn) | FIELD_PREP(ORDMA_DB_IDX, pi),
	       dev->kdb + reg);
}

void ordma_set_sges(struct ordma_sge *dst, const struct ib_sge *src,
		    int num_sge)
{
	int i;

	for (i = 0; i < num_sge; i++) {
		dst[i].addr = cpu_to_le64(src[i].addr);
		dst[i].length = cpu_to_le32(src[i].length);
		dst[i].lkey = cpu_to_le32(src[i].lkey);
	}
}

/* @wr (at most @wq->max_sge SGEs) into the WQE at @wq's producer index */
void ordma_wq_put_recv(struct ordma_wq *wq, const struct ib_recv_wr *wr)
{
	struct ordma_recv_wqe *wqe = ordma_wq_slot(wq, wq->pi);

	memset(wqe, 0, BIT(wq->wqe_shift));
	wqe->num_sge = cpu_to_le32(wr->num_sge);
	ordma_set_sges((void *)(wqe + 1), wr->sg_list, wr->num_sge);
	wq->wr_id[wq->pi & (BIT(wq->log_size) - 1)] = wr->wr_id;
	wq->pi++;
}
