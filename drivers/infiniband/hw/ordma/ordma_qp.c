// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA RDMA driver: queue pairs (RC, UC, UD and the GSI QP).
 *
 * User QPs have their rings in the process (struct ordma_create_qp); the
 * provider posts to them.  Kernel QPs have DMA-coherent rings
 * (ordma_wq.c) and are posted to here, with doorbells on the kernel page.
 * The device owns the QP state; the driver keeps only the last state it
 * set, to refuse posting in RESET, which the device does not check.
 */

#include <linux/bitfield.h>
#include <linux/if_vlan.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/ordma-abi.h>
#include <rdma/uverbs_ioctl.h>

#include "ordma_ib.h"

/* Hard IRQ context */
void ordma_qp_async_event(struct ordma_ibdev *dev, u32 qpn,
			  enum ib_event_type type)
{
	struct ordma_qp *qp = ordma_obj_get(&dev->qps, qpn, struct ordma_qp);
	struct ib_event event = {};

	if (!qp) {
		ibdev_dbg_ratelimited(&dev->ibdev,
				      "async event %d for unknown QP %u\n",
				      type, qpn);
		return;
	}
	ibdev_dbg(&dev->ibdev, "QP %u: %s\n", qpn, ib_event_msg(type));
	if (qp->ibqp.event_handler) {
		event.device = &dev->ibdev;
		event.element.qp = &qp->ibqp;
		event.event = type;
		qp->ibqp.event_handler(&event, qp->ibqp.qp_context);
	}
	ordma_obj_ref_put(&qp->ref);
}

/* ---------------------------------------------------------------- */
/* Address vectors                                                  */
/* ---------------------------------------------------------------- */

/*
 * An InfiniBand destination: the LRH's DLID, SL and source path bits, and
 * a GRH only when the address asks for one (another subnet, multicast).
 */
static int ordma_av_from_ib_ah_attr(const struct rdma_ah_attr *ah_attr,
				    struct ordma_av *av)
{
	const struct ib_global_route *grh;
	u32 dlid = rdma_ah_get_dlid(ah_attr);

	if (ah_attr->type != RDMA_AH_ATTR_TYPE_IB)
		return -EINVAL;
	/*
	 * 16-bit LIDs only.  LID 0 (an SM not yet known: ib_sa's SM AH) and
	 * the permissive LID are the device's to refuse where they are wrong.
	 */
	if (dlid > be16_to_cpu(IB_LID_PERMISSIVE))
		return -EINVAL;

	memset(av, 0, sizeof(*av));
	av->dlid = cpu_to_le16(dlid);
	av->sl = rdma_ah_get_sl(ah_attr) & 0xf;
	av->src_path_bits = rdma_ah_get_path_bits(ah_attr) & 0x7f;
	av->vlan_id = cpu_to_le16(ORDMA_VLAN_NONE);
	if (!(rdma_ah_get_ah_flags(ah_attr) & IB_AH_GRH))
		return 0;

	grh = rdma_ah_read_grh(ah_attr);
	av->ib_flags = ORDMA_AV_IB_GLOBAL;
	memcpy(av->dgid, grh->dgid.raw, sizeof(av->dgid));
	av->sgid_index = grh->sgid_index;
	av->hop_limit = grh->hop_limit;
	av->flow_label = cpu_to_le32(grh->flow_label & IB_GRH_FLOWLABEL_MASK);
	av->traffic_class = grh->traffic_class;
	return 0;
}

int ordma_av_from_ah_attr(struct ordma_ibdev *dev,
			  const struct rdma_ah_attr *ah_attr,
			  struct ordma_av *av)
{
	const struct ib_global_route *grh;
	u16 vlan_id = ORDMA_VLAN_NONE;
	int err;

	if (ordma_port_is_ib(dev))
		return ordma_av_from_ib_ah_attr(ah_attr, av);
	if (ah_attr->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(ah_attr) & IB_AH_GRH))
		return -EINVAL;
	grh = rdma_ah_read_grh(ah_attr);
	if (!grh->sgid_attr)
		return -EINVAL;

	err = rdma_read_gid_l2_fields(grh->sgid_attr, &vlan_id, NULL);
	if (err)
		return err;

	memset(av, 0, sizeof(*av));
	memcpy(av->dgid, grh->dgid.raw, sizeof(av->dgid));
	memcpy(av->dmac, ah_attr->roce.dmac, sizeof(av->dmac));
	av->sgid_index = grh->sgid_attr->index;
	av->hop_limit = grh->hop_limit;
	/* The verbs API takes any 32-bit value (UCX passes 0xffffffff);
	 * the IPv6 header and the device keep 20 bits.
	 */
	av->flow_label = cpu_to_le32(grh->flow_label & IB_GRH_FLOWLABEL_MASK);
	av->traffic_class = grh->traffic_class;
	av->vlan_id = cpu_to_le16(vlan_id < VLAN_N_VID ? vlan_id :
				  ORDMA_VLAN_NONE);
	return 0;
}

void ordma_av_to_ah_attr(struct ordma_ibdev *dev, const struct ordma_av *av,
			 struct rdma_ah_attr *ah_attr)
{
	union ib_gid dgid;

	memset(ah_attr, 0, sizeof(*ah_attr));
	rdma_ah_set_port_num(ah_attr, 1);
	if (ordma_port_is_ib(dev)) {
		ah_attr->type = RDMA_AH_ATTR_TYPE_IB;
		rdma_ah_set_dlid(ah_attr, le16_to_cpu(av->dlid));
		rdma_ah_set_sl(ah_attr, av->sl);
		rdma_ah_set_path_bits(ah_attr, av->src_path_bits);
		if (!(av->ib_flags & ORDMA_AV_IB_GLOBAL))
			return;
		memcpy(dgid.raw, av->dgid, sizeof(dgid.raw));
		rdma_ah_set_grh(ah_attr, &dgid, le32_to_cpu(av->flow_label),
				av->sgid_index, av->hop_limit,
				av->traffic_class);
		return;
	}
	ah_attr->type = RDMA_AH_ATTR_TYPE_ROCE;
	memcpy(dgid.raw, av->dgid, sizeof(dgid.raw));
	rdma_ah_set_grh(ah_attr, &dgid, le32_to_cpu(av->flow_label),
			av->sgid_index, av->hop_limit, av->traffic_class);
	memcpy(ah_attr->roce.dmac, av->dmac, sizeof(ah_attr->roce.dmac));
}

/* ---------------------------------------------------------------- */
/* Create and destroy                                               */
/* ---------------------------------------------------------------- */

static int ordma_qp_check_caps(struct ordma_ibdev *dev,
			       const struct ib_qp_init_attr *attr)
{
	const struct ordma_device_caps *caps = &dev->caps;
	const struct ib_qp_cap *cap = &attr->cap;

	if (cap->max_send_wr > le32_to_cpu(caps->max_qp_wr) ||
	    cap->max_send_sge > le32_to_cpu(caps->max_send_sge) ||
	    cap->max_inline_data > le32_to_cpu(caps->max_inline_data))
		return -EINVAL;
	if (attr->srq)
		return 0;
	if (cap->max_recv_wr > le32_to_cpu(caps->max_qp_wr) ||
	    cap->max_recv_sge > le32_to_cpu(caps->max_recv_sge))
		return -EINVAL;
	return 0;
}

static u32 ordma_send_wqe_sges(u32 wqe_shift)
{
	return (BIT(wqe_shift) - ORDMA_SEND_WQE_HDR_SIZE) /
	       sizeof(struct ordma_sge);
}

static const char *ordma_qp_type_name(u8 type)
{
	switch (type) {
	case ORDMA_QPT_RC:
		return "RC";
	case ORDMA_QPT_UC:
		return "UC";
	case ORDMA_QPT_UD:
		return "UD";
	case ORDMA_QPT_GSI:
		return "GSI";
	case ORDMA_QPT_SMI:
		return "SMI";
	default:
		return "?";
	}
}

/* Bytes of a kernel QP's send WQE before its SGEs or inline data */
static u32 ordma_send_wqe_data_off(const struct ordma_qp *qp)
{
	return ORDMA_SEND_WQE_HDR_SIZE +
	       (qp->av_inline ? sizeof(struct ordma_av) : 0);
}

static int ordma_user_qp_sizes(struct ordma_ibdev *dev, struct ordma_qp *qp,
			       const struct ib_qp_init_attr *attr,
			       const struct ordma_create_qp *ucmd)
{
	const struct ib_qp_cap *cap = &attr->cap;
	u32 room;

	if (ucmd->sq_log_size < ORDMA_WQ_MIN_LOG_SIZE ||
	    ucmd->sq_log_size > ORDMA_WQ_MAX_LOG_SIZE ||
	    ucmd->sq_wqe_shift < ORDMA_SEND_WQE_MIN_SHIFT ||
	    ucmd->sq_wqe_shift > ORDMA_SEND_WQE_MAX_SHIFT)
		return -EINVAL;
	room = BIT(ucmd->sq_wqe_shift) - ORDMA_SEND_WQE_HDR_SIZE;
	if (BIT(ucmd->sq_log_size) < cap->max_send_wr ||
	    ordma_send_wqe_sges(ucmd->sq_wqe_shift) < cap->max_send_sge ||
	    room < cap->max_inline_data)
		return -EINVAL;
	qp->sq.log_size = ucmd->sq_log_size;
	qp->sq.wqe_shift = ucmd->sq_wqe_shift;

	if (attr->srq) {
		if (ucmd->rq_buf_addr || ucmd->rq_log_size ||
		    ucmd->rq_wqe_shift)
			return -EINVAL;
		return 0;
	}
	if (ucmd->rq_log_size < ORDMA_WQ_MIN_LOG_SIZE ||
	    ucmd->rq_log_size > ORDMA_WQ_MAX_LOG_SIZE ||
	    ucmd->rq_wqe_shift < ORDMA_RECV_WQE_MIN_SHIFT ||
	    ucmd->rq_wqe_shift > ORDMA_RECV_WQE_MAX_SHIFT ||
	    BIT(ucmd->rq_log_size) < cap->max_recv_wr ||
	    ordma_recv_wqe_sges(ucmd->rq_wqe_shift) < cap->max_recv_sge)
		return -EINVAL;
	qp->rq.log_size = ucmd->rq_log_size;
	qp->rq.wqe_shift = ucmd->rq_wqe_shift;
	return 0;
}

static void ordma_qp_free_bufs(struct ordma_ibdev *dev, struct ordma_qp *qp)
{
	struct ordma_wq *wqs[] = { &qp->sq, &qp->rq };
	int i;

	for (i = 0; i < ARRAY_SIZE(wqs); i++) {
		ordma_pbl_free(dev, &wqs[i]->pbl);
		if (wqs[i]->umem)
			ib_umem_release(wqs[i]->umem);
		wqs[i]->umem = NULL;
		ordma_kbuf_free(dev, &wqs[i]->kbuf);
		kfree(wqs[i]->wr_id);
		wqs[i]->wr_id = NULL;
	}
}

static int ordma_create_user_qp(struct ordma_ibdev *dev, struct ordma_qp *qp,
				const struct ib_qp_init_attr *attr,
				struct ib_udata *udata,
				struct ordma_qp_create_params *p)
{
	struct ordma_create_qp ucmd = {};
	struct ib_umem *umem;
	int err;

	if (udata->inlen < sizeof(ucmd)) {
		ibdev_dbg(&dev->ibdev, "create_qp: udata too short (%zu)\n",
			  udata->inlen);
		return -EINVAL;
	}
	err = ib_copy_from_udata(&ucmd, udata, sizeof(ucmd));
	if (err)
		return err;
	if (ucmd.reserved ||
	    (udata->inlen > sizeof(ucmd) &&
	     !ib_is_udata_cleared(udata, sizeof(ucmd),
				  udata->inlen - sizeof(ucmd)))) {
		ibdev_dbg(&dev->ibdev, "create_qp: reserved udata not zero\n");
		return -EINVAL;
	}

	err = ordma_user_qp_sizes(dev, qp, attr, &ucmd);
	if (err) {
		ibdev_dbg(&dev->ibdev,
			  "create_qp: SQ 2^%u x 2^%u, RQ 2^%u x 2^%u do not fit the caps\n",
			  ucmd.sq_log_size, ucmd.sq_wqe_shift,
			  ucmd.rq_log_size, ucmd.rq_wqe_shift);
		return err;
	}

	umem = ordma_umem_ring(dev, ucmd.sq_buf_addr,
			       BIT(qp->sq.log_size + qp->sq.wqe_shift),
			       &qp->sq.pbl);
	if (IS_ERR(umem))
		return PTR_ERR(umem);
	qp->sq.umem = umem;
	p->sq = qp->sq.pbl.hw;

	if (!attr->srq) {
		umem = ordma_umem_ring(dev, ucmd.rq_buf_addr,
				       BIT(qp->rq.log_size + qp->rq.wqe_shift),
				       &qp->rq.pbl);
		if (IS_ERR(umem)) {
			ordma_qp_free_bufs(dev, qp);
			return PTR_ERR(umem);
		}
		qp->rq.umem = umem;
		p->rq = qp->rq.pbl.hw;
	}
	return 0;
}

static int ordma_create_kernel_qp(struct ordma_ibdev *dev,
				  struct ordma_qp *qp,
				  const struct ib_qp_init_attr *attr,
				  struct ordma_qp_create_params *p)
{
	const struct ib_qp_cap *cap = &attr->cap;
	u32 bytes;
	int err;

	bytes = ordma_send_wqe_data_off(qp) +
		max_t(u32, cap->max_send_sge * sizeof(struct ordma_sge),
		      cap->max_inline_data);
	err = ordma_kernel_wq_alloc(dev, &qp->sq, cap->max_send_wr, bytes,
				    ORDMA_SEND_WQE_MIN_SHIFT, &p->sq);
	if (err)
		goto err_free;

	if (attr->srq)
		return 0;
	err = ordma_kernel_wq_alloc(dev, &qp->rq, cap->max_recv_wr,
				    ordma_recv_wqe_bytes(cap->max_recv_sge),
				    ORDMA_RECV_WQE_MIN_SHIFT, &p->rq);
	if (err)
		goto err_free;
	return 0;

err_free:
	ordma_qp_free_bufs(dev, qp);
	return err;
}

/* The device's QP type for @init_attr, if the device offers it */
static int ordma_qp_type_from_ib(struct ordma_ibdev *dev,
				 const struct ib_qp_init_attr *init_attr,
				 struct ib_udata *udata, u8 *type)
{
	u32 cap_flags = le32_to_cpu(dev->caps.cap_flags);

	switch (init_attr->qp_type) {
	case IB_QPT_RC:
		*type = ORDMA_QPT_RC;
		return 0;
	case IB_QPT_UD:
		/* not on an iWARP port */
		if (!(cap_flags & ORDMA_DEV_CAP_UD))
			return -EOPNOTSUPP;
		*type = ORDMA_QPT_UD;
		return 0;
	case IB_QPT_UC:
		if (!(cap_flags & ORDMA_DEV_CAP_UC))
			return -EOPNOTSUPP;
		*type = ORDMA_QPT_UC;
		return 0;
	case IB_QPT_GSI:
		/* QP1 of the MAD layer: number 1 on the device */
		if (udata || !(cap_flags & ORDMA_DEV_CAP_GSI))
			return -EOPNOTSUPP;
		*type = ORDMA_QPT_GSI;
		return 0;
	case IB_QPT_SMI:
		/* QP0 of an InfiniBand port's MAD layer: number 0 */
		if (udata || !(cap_flags & ORDMA_DEV_CAP_SMI) ||
		    !ordma_port_is_ib(dev))
			return -EOPNOTSUPP;
		*type = ORDMA_QPT_SMI;
		return 0;
	default:
		ibdev_dbg(&dev->ibdev, "create_qp: QP type %d not supported\n",
			  init_attr->qp_type);
		return -EOPNOTSUPP;
	}
}

/* Sets qp->type; refuses what the device cannot create. */
static int ordma_qp_check_init_attr(struct ordma_ibdev *dev,
				    struct ordma_qp *qp,
				    struct ib_qp_init_attr *init_attr,
				    struct ib_udata *udata)
{
	u32 cap_flags = le32_to_cpu(dev->caps.cap_flags);
	int err;

	err = ordma_qp_type_from_ib(dev, init_attr, udata, &qp->type);
	if (err)
		return err;
	if (init_attr->create_flags)
		return -EOPNOTSUPP;
	/* The device needs a receive CQ also for a QP on an SRQ. */
	if (!init_attr->send_cq || !init_attr->recv_cq)
		return -EINVAL;
	if (init_attr->srq && !(cap_flags & ORDMA_DEV_CAP_SRQ))
		return -EOPNOTSUPP;
	err = ordma_qp_check_caps(dev, init_attr);
	if (err)
		ibdev_dbg(&dev->ibdev, "create_qp: caps beyond the device's\n");
	return err;
}

static void ordma_qp_init(struct ordma_qp *qp,
			  const struct ib_qp_init_attr *init_attr,
			  struct ib_udata *udata)
{
	qp->uctx_id = ordma_udata_uctx(udata);
	qp->state = ORDMA_QPS_RESET;
	qp->sig_all = init_attr->sq_sig_type == IB_SIGNAL_ALL_WR;
	qp->max_inline_data = init_attr->cap.max_inline_data;
	qp->av_inline = !udata && (qp->type == ORDMA_QPT_UD ||
				   ordma_qp_is_special(qp));
	ordma_obj_ref_init(&qp->ref);
	spin_lock_init(&qp->sq.lock);
	spin_lock_init(&qp->rq.lock);
}

/* CREATE_QP's owner, PD, CQs, SRQ and queue geometry; the queue memory
 * is already in @p.
 */
static void ordma_qp_create_params(struct ordma_qp *qp,
				   const struct ib_qp_init_attr *init_attr,
				   struct ordma_srq *srq,
				   struct ordma_qp_create_params *p)
{
	p->uctx = cpu_to_le32(qp->uctx_id);
	p->pdn = cpu_to_le32(to_ordma_pd(qp->ibqp.pd)->pdn);
	p->send_cqn = cpu_to_le32(to_ordma_cq(init_attr->send_cq)->cqn);
	p->recv_cqn = cpu_to_le32(to_ordma_cq(init_attr->recv_cq)->cqn);
	p->srqn = cpu_to_le32(srq ? srq->srqn : ORDMA_NO_SRQ);
	p->type = qp->type;
	p->sq_log_size = qp->sq.log_size;
	p->sq_wqe_shift = qp->sq.wqe_shift;
	p->rq_log_size = srq ? 0 : qp->rq.log_size;
	p->rq_wqe_shift = srq ? 0 : qp->rq.wqe_shift;
	p->max_inline_data = cpu_to_le32(qp->max_inline_data);
}

/* Tell the caller what the queues really hold. */
static void ordma_qp_report_caps(struct ordma_ibdev *dev, struct ordma_qp *qp,
				 struct ib_qp_init_attr *init_attr,
				 bool on_srq)
{
	qp->sq.max_sge = min_t(u32, ordma_send_wqe_sges(qp->sq.wqe_shift) -
			       (qp->av_inline ? ORDMA_AV_SGE_SLOTS : 0),
			       le32_to_cpu(dev->caps.max_send_sge));
	init_attr->cap.max_send_wr = BIT(qp->sq.log_size);
	init_attr->cap.max_send_sge = qp->sq.max_sge;
	if (on_srq)
		return;
	qp->rq.max_sge = min_t(u32, ordma_recv_wqe_sges(qp->rq.wqe_shift),
			       le32_to_cpu(dev->caps.max_recv_sge));
	init_attr->cap.max_recv_wr = BIT(qp->rq.log_size);
	init_attr->cap.max_recv_sge = qp->rq.max_sge;
}

static int ordma_qp_copy_resp(struct ordma_qp *qp, struct ib_udata *udata)
{
	struct ordma_create_qp_resp resp = {};

	resp.qpn = qp->qpn;
	resp.max_inline_data = qp->max_inline_data;
	return ib_copy_to_udata(udata, &resp, min(sizeof(resp), udata->outlen));
}

int ordma_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init_attr,
		    struct ib_udata *udata)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(ibqp->device);
	struct ordma_qp *qp = to_ordma_qp(ibqp);
	struct ordma_qp_create_params p = {};
	struct ordma_srq *srq = NULL;
	int err;

	err = ordma_qp_check_init_attr(dev, qp, init_attr, udata);
	if (err)
		return err;
	ordma_qp_init(qp, init_attr, udata);

	if (udata)
		err = ordma_create_user_qp(dev, qp, init_attr, udata, &p);
	else
		err = ordma_create_kernel_qp(dev, qp, init_attr, &p);
	if (err)
		return err;

	if (init_attr->srq)
		srq = to_ordma_srq(init_attr->srq);
	ordma_qp_create_params(qp, init_attr, srq, &p);
	err = ordma_cmd_create_qp(dev, &p, &qp->qpn);
	if (err) {
		ibdev_dbg(&dev->ibdev, "CREATE_QP failed: %d\n", err);
		if (ordma_device_may_use_memory(ORDMA_MEM_CREATE, err))
			return err;
		goto err_free_bufs;
	}
	ibqp->qp_num = qp->qpn;

	err = xa_insert_irq(&dev->qps, qp->qpn, qp, GFP_KERNEL);
	if (err)
		goto err_destroy;

	ordma_qp_report_caps(dev, qp, init_attr, !!srq);
	if (udata) {
		err = ordma_qp_copy_resp(qp, udata);
		if (err)
			goto err_erase;
	}

	ibdev_dbg(&dev->ibdev,
		  "QP %u (%s): SQ 2^%u x %u, RQ 2^%u x %u, uctx %u\n",
		  qp->qpn, ordma_qp_type_name(qp->type),
		  qp->sq.log_size, 1U << qp->sq.wqe_shift, qp->rq.log_size,
		  srq ? 0 : 1U << qp->rq.wqe_shift, qp->uctx_id);
	return 0;

err_erase:
	xa_erase_irq(&dev->qps, qp->qpn);
err_destroy:
	if (ordma_device_may_use_memory(ORDMA_MEM_DESTROY,
					ordma_cmd_destroy_qp(dev, qp->uctx_id,
							     qp->qpn)))
		return err;
err_free_bufs:
	ordma_qp_free_bufs(dev, qp);
	return err;
}

int ordma_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(ibqp->device);
	struct ordma_qp *qp = to_ordma_qp(ibqp);
	int err;

	err = ordma_cmd_destroy_qp(dev, qp->uctx_id, qp->qpn);
	ordma_report_destroy(dev, err, "DESTROY_QP %u", qp->qpn);

	xa_erase_irq(&dev->qps, qp->qpn);
	ordma_obj_ref_drain(&qp->ref);

	if (qp->uctx_id == ORDMA_KERNEL_UCTX) {
		struct ordma_srq *srq = ibqp->srq ? to_ordma_srq(ibqp->srq) :
						    NULL;

		ordma_cq_clean(to_ordma_cq(ibqp->send_cq), qp->qpn, srq);
		if (ibqp->recv_cq != ibqp->send_cq)
			ordma_cq_clean(to_ordma_cq(ibqp->recv_cq), qp->qpn,
				       srq);
	}

	if (!ordma_device_may_use_memory(ORDMA_MEM_DESTROY, err))
		ordma_qp_free_bufs(dev, qp);
	return 0;
}

/* ---------------------------------------------------------------- */
/* Modify and query                                                 */
/* ---------------------------------------------------------------- */

static int ordma_qp_access_from_hw(u32 access)
{
	int ib = 0;

	if (access & ORDMA_ACCESS_LOCAL_WRITE)
		ib |= IB_ACCESS_LOCAL_WRITE;
	if (access & ORDMA_ACCESS_REMOTE_WRITE)
		ib |= IB_ACCESS_REMOTE_WRITE;
	if (access & ORDMA_ACCESS_REMOTE_READ)
		ib |= IB_ACCESS_REMOTE_READ;
	if (access & ORDMA_ACCESS_REMOTE_ATOMIC)
		ib |= IB_ACCESS_REMOTE_ATOMIC;
	if (access & ORDMA_ACCESS_FLUSH_GLOBAL)
		ib |= IB_ACCESS_FLUSH_GLOBAL;
	if (access & ORDMA_ACCESS_FLUSH_PERSISTENT)
		ib |= IB_ACCESS_FLUSH_PERSISTENT;
	return ib;
}

/* The device numbers mask bits, states and MTUs as IBTA and ib_verbs do. */
static_assert(ORDMA_QP_ATTR_STATE == IB_QP_STATE);
static_assert(ORDMA_QP_ATTR_AV == IB_QP_AV);
static_assert(ORDMA_QP_ATTR_MAX_DEST_RD_ATOMIC == IB_QP_MAX_DEST_RD_ATOMIC);
static_assert(ORDMA_QP_ATTR_DEST_QPN == IB_QP_DEST_QPN);
static_assert((int)ORDMA_QPS_ERR == (int)IB_QPS_ERR);
static_assert((int)ORDMA_QPS_SQE == (int)IB_QPS_SQE);

/* @attr's fields named in @attr_mask, in the device's MODIFY_QP layout */
static int ordma_qp_attr_to_hw(struct ordma_ibdev *dev, struct ordma_qp *qp,
			       const struct ib_qp_attr *attr, int attr_mask,
			       struct ordma_qp_attr *hw)
{
	int err;

	hw->attr_mask = cpu_to_le32(attr_mask);
	if (attr_mask & IB_QP_STATE) {
		if (attr->qp_state > IB_QPS_ERR)
			return -EINVAL;
		hw->state = attr->qp_state;
	}
	if (attr_mask & IB_QP_CUR_STATE) {
		if (attr->cur_qp_state > IB_QPS_ERR)
			return -EINVAL;
		hw->cur_state = attr->cur_qp_state;
	}
	if (attr_mask & IB_QP_EN_SQD_ASYNC_NOTIFY)
		hw->en_sqd_async_notify = !!attr->en_sqd_async_notify;
	if (attr_mask & IB_QP_ACCESS_FLAGS) {
		u32 access;

		/* an unknown flag is an invalid attribute for modify_qp */
		if (ordma_access_to_hw(attr->qp_access_flags, &access))
			return -EINVAL;
		/* iWARP has no atomics or FLUSH */
		err = ordma_access_check_port(dev, attr->qp_access_flags);
		if (err)
			return err;
		hw->access_flags = cpu_to_le32(access);
	}
	if (attr_mask & IB_QP_PKEY_INDEX)
		hw->pkey_index = cpu_to_le16(attr->pkey_index);
	if (attr_mask & IB_QP_PORT)
		hw->port = attr->port_num;
	/* QP0 and QP1 are the port's own: the MAD layer never names it */
	if (ordma_qp_is_special(qp) && (attr_mask & IB_QP_STATE) &&
	    attr->qp_state == IB_QPS_INIT && !(attr_mask & IB_QP_PORT)) {
		hw->attr_mask |= cpu_to_le32(ORDMA_QP_ATTR_PORT);
		hw->port = ORDMA_PORT_NUM;
	}
	/*
	 * iw_cm takes an iWARP QP to INIT with its state and access flags
	 * only: iWARP has no P_Keys, and the port is the device's one.
	 */
	if (ordma_port_is_iwarp(dev) && (attr_mask & IB_QP_STATE) &&
	    attr->qp_state == IB_QPS_INIT && qp->state == IB_QPS_RESET) {
		if (!(attr_mask & IB_QP_PORT)) {
			hw->attr_mask |= cpu_to_le32(ORDMA_QP_ATTR_PORT);
			hw->port = ORDMA_PORT_NUM;
		}
		if (!(attr_mask & IB_QP_PKEY_INDEX)) {
			hw->attr_mask |= cpu_to_le32(ORDMA_QP_ATTR_PKEY_INDEX);
			hw->pkey_index = 0;
		}
	}
	if (attr_mask & IB_QP_QKEY)
		hw->qkey = cpu_to_le32(attr->qkey);
	if (attr_mask & IB_QP_AV) {
		err = ordma_av_from_ah_attr(dev, &attr->ah_attr, &hw->av);
		if (err) {
			ibdev_dbg(&dev->ibdev, "modify_qp %u: bad AV: %d\n",
				  qp->qpn, err);
			return err;
		}
	}
	if (attr_mask & IB_QP_PATH_MTU)
		hw->path_mtu = attr->path_mtu;
	if (attr_mask & IB_QP_TIMEOUT)
		hw->timeout = attr->timeout;
	if (attr_mask & IB_QP_RETRY_CNT)
		hw->retry_cnt = attr->retry_cnt;
	if (attr_mask & IB_QP_RNR_RETRY)
		hw->rnr_retry = attr->rnr_retry;
	if (attr_mask & IB_QP_RQ_PSN)
		hw->rq_psn = cpu_to_le32(attr->rq_psn);
	if (attr_mask & IB_QP_MAX_QP_RD_ATOMIC)
		hw->max_rd_atomic = attr->max_rd_atomic;
	if (attr_mask & IB_QP_MIN_RNR_TIMER)
		hw->min_rnr_timer = attr->min_rnr_timer;
	if (attr_mask & IB_QP_SQ_PSN)
		hw->sq_psn = cpu_to_le32(attr->sq_psn);
	if (attr_mask & IB_QP_MAX_DEST_RD_ATOMIC)
		hw->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (attr_mask & IB_QP_DEST_QPN)
		hw->dest_qpn = cpu_to_le32(attr->dest_qp_num);
	return 0;
}

/* The device took @state: remember it for posting, which looks at it
 * under the queue locks.
 */
static void ordma_qp_set_state(struct ordma_qp *qp, enum ib_qp_state state)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->sq.lock, flags);
	spin_lock(&qp->rq.lock);
	qp->state = state;
	if (state == IB_QPS_RESET) {
		/* The device restarts both queues at index 0. */
		qp->sq.pi = 0;
		qp->sq.ci = 0;
		qp->rq.pi = 0;
		qp->rq.ci = 0;
	}
	spin_unlock(&qp->rq.lock);
	spin_unlock_irqrestore(&qp->sq.lock, flags);
}

int ordma_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
		    int attr_mask, struct ib_udata *udata)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(ibqp->device);
	struct ordma_qp *qp = to_ordma_qp(ibqp);
	struct ordma_qp_attr hw = {};
	bool sqd_to_err = false;
	int err;

	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	if (attr_mask & ~ORDMA_QP_ATTR_SUPPORTED) {
		ibdev_dbg(&dev->ibdev, "modify_qp %u: attr_mask %#x unsupported\n",
			  qp->qpn, attr_mask & ~(int)ORDMA_QP_ATTR_SUPPORTED);
		return -EOPNOTSUPP;
	}
	/*
	 * rdma_cm adds IB_QP_PORT to every iWARP QP attribute set it hands
	 * out (rdma_init_qp_attr()); the port is the device's one and is set
	 * at INIT, and an iWARP RTR takes no path attribute.  iw_cm's set for
	 * RTS is that port alone (librdmacm's rdma_accept still applies it):
	 * the device moves an iWARP QP to RTS through its connection, and
	 * there is nothing to change.
	 */
	if (ordma_port_is_iwarp(dev)) {
		if (attr_mask & IB_QP_PORT) {
			if (attr->port_num != ORDMA_PORT_NUM)
				return -EINVAL;
			if (qp->state != IB_QPS_RESET)
				attr_mask &= ~IB_QP_PORT;
		}
		if (!attr_mask)
			return 0;
	}
	/*
	 * iw_cm closes a connection by taking its QP to SQD (graceful) or
	 * ERR; the device ends the connection and moves the QP to ERR.  An
	 * iWARP QP reaches SQD no other way: without a connection it goes
	 * to ERR.
	 */
	if (ordma_port_is_iwarp(dev) && (attr_mask & IB_QP_STATE) &&
	    (attr->qp_state == IB_QPS_SQD || attr->qp_state == IB_QPS_ERR)) {
		if (ordma_iw_qp_close(dev, qp,
				      attr->qp_state == IB_QPS_SQD)) {
			ordma_qp_set_state(qp, IB_QPS_ERR);
			return 0;
		}
		sqd_to_err = attr->qp_state == IB_QPS_SQD;
	}
	err = ordma_qp_attr_to_hw(dev, qp, attr, attr_mask, &hw);
	if (err)
		return err;
	if (sqd_to_err)
		hw.state = IB_QPS_ERR;

	err = ordma_cmd_modify_qp(dev, qp->qpn, &hw);
	/*
	 * A dead device (-ENODEV) runs no QP any more: taking one to ERR or
	 * RESET is what a consumer draining or tearing down asks, and the
	 * driver flushes kernel QPs itself (sw_flush of their CQs), so that
	 * transition succeeds instead of failing every ib_drain_qp().
	 */
	if (err == -ENODEV && (attr_mask & IB_QP_STATE) &&
	    (attr->qp_state == IB_QPS_ERR || attr->qp_state == IB_QPS_RESET))
		err = 0;
	if (err) {
		ibdev_dbg(&dev->ibdev, "MODIFY_QP %u mask %#x failed: %d\n",
			  qp->qpn, attr_mask, err);
		return err;
	}
	if (attr_mask & IB_QP_STATE)
		ordma_qp_set_state(qp, hw.state);
	return 0;
}

int ordma_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
		   int attr_mask, struct ib_qp_init_attr *init_attr)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(ibqp->device);
	struct ordma_qp *qp = to_ordma_qp(ibqp);
	struct ordma_qp_attr hw;
	int err;

	err = ordma_cmd_query_qp(dev, qp->qpn, &hw);
	if (err) {
		ibdev_dbg(&dev->ibdev, "QUERY_QP %u failed: %d\n", qp->qpn,
			  err);
		return err;
	}

	memset(attr, 0, sizeof(*attr));
	attr->qp_state = hw.state;
	attr->cur_qp_state = hw.cur_state;
	attr->path_mtu = hw.path_mtu;
	attr->path_mig_state = IB_MIG_MIGRATED;
	attr->qkey = le32_to_cpu(hw.qkey);
	attr->rq_psn = le32_to_cpu(hw.rq_psn);
	attr->sq_psn = le32_to_cpu(hw.sq_psn);
	attr->dest_qp_num = le32_to_cpu(hw.dest_qpn);
	attr->qp_access_flags =
		ordma_qp_access_from_hw(le32_to_cpu(hw.access_flags));
	attr->en_sqd_async_notify = hw.en_sqd_async_notify;
	attr->sq_draining = hw.sq_draining;
	attr->max_rd_atomic = hw.max_rd_atomic;
	attr->max_dest_rd_atomic = hw.max_dest_rd_atomic;
	attr->min_rnr_timer = hw.min_rnr_timer;
	attr->port_num = hw.port ? hw.port : 1;
	attr->pkey_index = le16_to_cpu(hw.pkey_index);
	attr->timeout = hw.timeout;
	attr->retry_cnt = hw.retry_cnt;
	attr->rnr_retry = hw.rnr_retry;
	if (qp->type == ORDMA_QPT_RC || qp->type == ORDMA_QPT_UC)
		ordma_av_to_ah_attr(dev, &hw.av, &attr->ah_attr);

	attr->cap.max_send_wr = BIT(qp->sq.log_size);
	attr->cap.max_send_sge = qp->sq.max_sge;
	attr->cap.max_inline_data = qp->max_inline_data;
	if (!ibqp->srq) {
		attr->cap.max_recv_wr = BIT(qp->rq.log_size);
		attr->cap.max_recv_sge = qp->rq.max_sge;
	}

	memset(init_attr, 0, sizeof(*init_attr));
	init_attr->event_handler = ibqp->event_handler;
	init_attr->qp_context = ibqp->qp_context;
	init_attr->send_cq = ibqp->send_cq;
	init_attr->recv_cq = ibqp->recv_cq;
	init_attr->srq = ibqp->srq;
	init_attr->qp_type = ibqp->qp_type;
	init_attr->sq_sig_type = qp->sig_all ? IB_SIGNAL_ALL_WR :
					       IB_SIGNAL_REQ_WR;
	init_attr->cap = attr->cap;
	return 0;
}

/* ---------------------------------------------------------------- */
/* Kernel posting                                                   */
/* ---------------------------------------------------------------- */

static int ordma_copy_inline(struct ordma_qp *qp, void *dst,
			     const struct ib_send_wr *wr, u32 *len)
{
	u32 total = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		const struct ib_sge *sge = &wr->sg_list[i];

		if (sge->length > qp->max_inline_data - total)
			return -EINVAL;
		memcpy(dst + total, (void *)(uintptr_t)sge->addr, sge->length);
		total += sge->length;
	}
	*len = total;
	return 0;
}

static void ordma_wqe_set_rdma(const struct ib_send_wr *wr,
			       struct ordma_send_wqe *wqe)
{
	wqe->rdma.remote_addr = cpu_to_le64(rdma_wr(wr)->remote_addr);
	wqe->rdma.rkey = cpu_to_le32(rdma_wr(wr)->rkey);
}

static void ordma_wqe_set_atomic(const struct ib_send_wr *wr,
				 struct ordma_send_wqe *wqe)
{
	wqe->atomic.remote_addr = cpu_to_le64(atomic_wr(wr)->remote_addr);
	wqe->atomic.rkey = cpu_to_le32(atomic_wr(wr)->rkey);
	wqe->atomic.compare_add = cpu_to_le64(atomic_wr(wr)->compare_add);
	wqe->atomic.swap = cpu_to_le64(atomic_wr(wr)->swap);
}

static int ordma_wqe_set_reg_mr(const struct ib_send_wr *wr,
				struct ordma_send_wqe *wqe)
{
	const struct ib_reg_wr *reg = reg_wr(wr);
	struct ordma_mr *mr = to_ordma_mr(reg->mr);
	u32 access;

	/* pages of a fast-register list are not checked for pmem */
	if (!mr->pages || !mr->npages ||
	    (reg->access & IB_ACCESS_FLUSH_PERSISTENT))
		return -EINVAL;
	if (ordma_access_to_hw(reg->access, &access) ||
	    ordma_access_check_port(to_ordma_ibdev(reg->mr->device),
				    reg->access))
		return -EINVAL;
	wqe->reg_mr.iova = cpu_to_le64(mr->ibmr.iova);
	wqe->reg_mr.length = cpu_to_le64(mr->ibmr.length);
	wqe->reg_mr.page_list = cpu_to_le64(mr->pages_dma);
	wqe->reg_mr.key = cpu_to_le32(reg->key);
	wqe->reg_mr.num_pages = cpu_to_le16(mr->npages);
	wqe->reg_mr.page_shift = ilog2(mr->ibmr.page_size);
	wqe->reg_mr.access = access;
	return 0;
}

/*
 * The opcode of @wr and its segment (immediate or invalidated key, remote
 * address, atomic operands, fast-register); *data tells whether the work
 * request carries a local data segment.
 */
static int ordma_wqe_set_op(const struct ib_send_wr *wr,
			    struct ordma_send_wqe *wqe, u8 *opcode, bool *data)
{
	*data = true;
	switch (wr->opcode) {
	case IB_WR_SEND:
		*opcode = ORDMA_WQE_SEND;
		return 0;
	case IB_WR_SEND_WITH_IMM:
		*opcode = ORDMA_WQE_SEND_IMM;
		wqe->ctrl.imm_inv = (__force __le32)wr->ex.imm_data;
		return 0;
	case IB_WR_SEND_WITH_INV:
		*opcode = ORDMA_WQE_SEND_INV;
		wqe->ctrl.imm_inv = cpu_to_le32(wr->ex.invalidate_rkey);
		return 0;
	case IB_WR_RDMA_WRITE:
		*opcode = ORDMA_WQE_RDMA_WRITE;
		ordma_wqe_set_rdma(wr, wqe);
		return 0;
	case IB_WR_RDMA_WRITE_WITH_IMM:
		*opcode = ORDMA_WQE_RDMA_WRITE_IMM;
		wqe->ctrl.imm_inv = (__force __le32)wr->ex.imm_data;
		ordma_wqe_set_rdma(wr, wqe);
		return 0;
	case IB_WR_RDMA_READ:
		*opcode = ORDMA_WQE_RDMA_READ;
		ordma_wqe_set_rdma(wr, wqe);
		return 0;
	case IB_WR_RDMA_READ_WITH_INV:
		/*
		 * The device invalidates the sink SGE's key, as siw and
		 * irdma do: rdma_rw sets invalidate_rkey before it moves the
		 * MR to its next key.
		 */
		*opcode = ORDMA_WQE_RDMA_READ_INV;
		ordma_wqe_set_rdma(wr, wqe);
		return 0;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		*opcode = ORDMA_WQE_ATOMIC_CMP_SWP;
		ordma_wqe_set_atomic(wr, wqe);
		return 0;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		*opcode = ORDMA_WQE_ATOMIC_FETCH_ADD;
		ordma_wqe_set_atomic(wr, wqe);
		return 0;
	case IB_WR_LOCAL_INV:
		*opcode = ORDMA_WQE_LOCAL_INV;
		wqe->ctrl.imm_inv = cpu_to_le32(wr->ex.invalidate_rkey);
		*data = false;
		return 0;
	case IB_WR_REG_MR:
		*opcode = ORDMA_WQE_REG_MR;
		*data = false;
		return ordma_wqe_set_reg_mr(wr, wqe);
	default:
		return -EINVAL;
	}
}

static bool ordma_wqe_opcode_reads(u8 opcode)
{
	return opcode == ORDMA_WQE_RDMA_READ ||
	       opcode == ORDMA_WQE_RDMA_READ_INV ||
	       opcode == ORDMA_WQE_ATOMIC_CMP_SWP ||
	       opcode == ORDMA_WQE_ATOMIC_FETCH_ADD;
}

/*
 * iWARP (RFC 5040) has no immediate data and no atomics, and an RDMA
 * Read Request names one sink buffer (max_sge_rd 1): -EINVAL, as
 * siw_post_send() answers.  A READ that invalidates its sink once the
 * data is in (rdma_rw posts one for every iWARP READ) is iWARP's alone.
 * FLUSH and ATOMIC WRITE have no work request here at all.  The device
 * checks the WQE again.
 */
static bool ordma_wqe_iwarp_allowed(u8 opcode, const struct ib_send_wr *wr)
{
	switch (opcode) {
	case ORDMA_WQE_SEND_IMM:
	case ORDMA_WQE_RDMA_WRITE_IMM:
	case ORDMA_WQE_ATOMIC_CMP_SWP:
	case ORDMA_WQE_ATOMIC_FETCH_ADD:
		return false;
	case ORDMA_WQE_RDMA_READ:
	case ORDMA_WQE_RDMA_READ_INV:
		return wr->num_sge == 1;
	default:
		return true;
	}
}

static bool ordma_wqe_opcode_allowed(const struct ordma_qp *qp, u8 opcode,
				     const struct ib_send_wr *wr)
{
	if (ordma_port_is_iwarp(to_ordma_ibdev(qp->ibqp.device))) {
		if (!ordma_wqe_iwarp_allowed(opcode, wr))
			return false;
	} else if (opcode == ORDMA_WQE_RDMA_READ_INV) {
		return false;
	}
	/* UC: SEND and RDMA WRITE (with immediate), local operations */
	if (qp->type == ORDMA_QPT_UC &&
	    (opcode == ORDMA_WQE_SEND_INV || ordma_wqe_opcode_reads(opcode)))
		return false;
	/* Datagrams: SENDs only */
	if (qp->av_inline)
		return opcode == ORDMA_WQE_SEND || opcode == ORDMA_WQE_SEND_IMM;
	return true;
}

/* Kernel datagram QPs: the address vector goes in the WQE, before the
 * data; returns where the data segment starts.
 */
static struct ordma_sge *ordma_wqe_set_ud(const struct ib_send_wr *wr,
					  struct ordma_send_wqe *wqe,
					  struct ordma_sge *sges)
{
	struct ordma_ah *ah = to_ordma_ah(ud_wr(wr)->ah);

	memcpy(sges, &ah->av, sizeof(ah->av));
	wqe->ud.remote_qpn = cpu_to_le32(ud_wr(wr)->remote_qpn);
	wqe->ud.remote_qkey = cpu_to_le32(ud_wr(wr)->remote_qkey);
	return sges + ORDMA_AV_SGE_SLOTS;
}

/* The data segment, inline or as a gather list, and its bits in *ctrl */
static int ordma_wqe_set_data(struct ordma_qp *qp, const struct ib_send_wr *wr,
			      struct ordma_send_wqe *wqe, struct ordma_sge *sges,
			      u8 opcode, u32 *ctrl)
{
	u32 inline_len = 0;
	int err;

	if (wr->send_flags & IB_SEND_INLINE) {
		if (ordma_wqe_opcode_reads(opcode))
			return -EINVAL;
		err = ordma_copy_inline(qp, sges, wr, &inline_len);
		if (err)
			return err;
		*ctrl |= ORDMA_WQE_INLINE;
		wqe->ctrl.inline_len = cpu_to_le32(inline_len);
		return 0;
	}
	if (wr->num_sge > qp->sq.max_sge)
		return -EINVAL;
	ordma_set_sges(sges, wr->sg_list, wr->num_sge);
	*ctrl |= FIELD_PREP(ORDMA_WQE_NUM_SGE, wr->num_sge);
	return 0;
}

static u32 ordma_wqe_flags(const struct ordma_qp *qp,
			   const struct ib_send_wr *wr)
{
	u32 ctrl = 0;

	if (qp->sig_all || (wr->send_flags & IB_SEND_SIGNALED))
		ctrl |= ORDMA_WQE_SIGNALED;
	if (wr->send_flags & IB_SEND_SOLICITED)
		ctrl |= ORDMA_WQE_SOLICITED;
	if (wr->send_flags & IB_SEND_FENCE)
		ctrl |= ORDMA_WQE_FENCE;
	return ctrl;
}

static int ordma_build_send_wqe(struct ordma_qp *qp,
				const struct ib_send_wr *wr,
				struct ordma_send_wqe *wqe)
{
	struct ordma_sge *sges = (void *)(wqe + 1);
	u32 ctrl = 0;
	bool data;
	u8 opcode;
	int err;

	err = ordma_wqe_set_op(wr, wqe, &opcode, &data);
	if (err)
		return err;
	if (!ordma_wqe_opcode_allowed(qp, opcode, wr))
		return -EINVAL;
	if (qp->av_inline) {
		sges = ordma_wqe_set_ud(wr, wqe, sges);
		ctrl |= ORDMA_WQE_AV_INLINE;
	}
	if (data) {
		err = ordma_wqe_set_data(qp, wr, wqe, sges, opcode, &ctrl);
		if (err)
			return err;
	}

	ctrl |= FIELD_PREP(ORDMA_WQE_OPCODE, opcode);
	ctrl |= ordma_wqe_flags(qp, wr);
	wqe->ctrl.ctrl = cpu_to_le32(ctrl);
	return 0;
}

int ordma_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(ibqp->device);
	struct ordma_qp *qp = to_ordma_qp(ibqp);
	struct ordma_wq *sq = &qp->sq;
	struct ordma_send_wqe *wqe;
	bool posted = false;
	unsigned long flags;
	u32 start;
	int err = 0;

	if (!sq->kbuf.va) {
		*bad_wr = wr;
		return -EOPNOTSUPP;
	}

	spin_lock_irqsave(&sq->lock, flags);
	start = sq->pi;
	if (qp->state == IB_QPS_RESET) {
		err = -EINVAL;
		*bad_wr = wr;
		goto out;
	}
	for (; wr; wr = wr->next) {
		if (ordma_wq_full(sq)) {
			err = -ENOMEM;
			break;
		}
		wqe = ordma_wq_slot(sq, sq->pi);
		memset(wqe, 0, BIT(sq->wqe_shift));
		err = ordma_build_send_wqe(qp, wr, wqe);
		if (err)
			break;
		sq->wr_id[sq->pi & (BIT(sq->log_size) - 1)] = wr->wr_id;
		sq->pi++;
	}
	if (err)
		*bad_wr = wr;
	posted = sq->pi != start;
	/* A CQ the driver completes for: the device is not asked at all. */
	if (posted && !ordma_cq_sw_flushed(ibqp->send_cq))
		ordma_ring_wq_db(dev, ORDMA_DB_SQ, qp->qpn, sq->pi);
out:
	spin_unlock_irqrestore(&sq->lock, flags);
	if (posted)
		ordma_cq_kick_sw_flush(dev, ibqp->send_cq);
	return err;
}

int ordma_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(ibqp->device);
	struct ordma_qp *qp = to_ordma_qp(ibqp);
	struct ordma_wq *rq = &qp->rq;
	bool posted = false;
	unsigned long flags;
	u32 start;
	int err = 0;

	if (!rq->kbuf.va || ibqp->srq) {
		*bad_wr = wr;
		return -EINVAL;
	}

	spin_lock_irqsave(&rq->lock, flags);
	start = rq->pi;
	if (qp->state == IB_QPS_RESET) {
		err = -EINVAL;
		*bad_wr = wr;
		goto out;
	}
	for (; wr; wr = wr->next) {
		if (ordma_wq_full(rq)) {
			err = -ENOMEM;
			break;
		}
		if (wr->num_sge > rq->max_sge) {
			err = -EINVAL;
			break;
		}
		ordma_wq_put_recv(rq, wr);
	}
	if (err)
		*bad_wr = wr;
	posted = rq->pi != start;
	if (posted && !ordma_cq_sw_flushed(ibqp->recv_cq))
		ordma_ring_wq_db(dev, ORDMA_DB_RQ, qp->qpn, rq->pi);
out:
	spin_unlock_irqrestore(&rq->lock, flags);
	if (posted)
		ordma_cq_kick_sw_flush(dev, ibqp->recv_cq);
	return err;
}

/* ---------------------------------------------------------------- */
/* Multicast                                                        */
/* ---------------------------------------------------------------- */

static int ordma_mcast(struct ib_qp *ibqp, union ib_gid *gid, bool attach)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(ibqp->device);
	struct ordma_qp *qp = to_ordma_qp(ibqp);
	int err;

	if (!(le32_to_cpu(dev->caps.cap_flags) & ORDMA_DEV_CAP_MCAST))
		return -EOPNOTSUPP;
	if (qp->type != ORDMA_QPT_UD)
		return -EINVAL;
	err = ordma_cmd_mcast(dev, attach, qp->uctx_id, qp->qpn,
			      gid->raw);
	if (err)
		ibdev_dbg(&dev->ibdev, "%s_MCAST QP %u %pI6: %d\n",
			  attach ? "ATTACH" : "DETACH", qp->qpn, gid->raw, err);
	return err;
}

int ordma_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	return ordma_mcast(ibqp, gid, true);
}

int ordma_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	int err = ordma_mcast(ibqp, gid, false);

	/*
	 * A device that is gone (failed, reset or removed) holds no
	 * attachment any more: the detach is done.  Failing it would leave
	 * the core's use count on the QP, and the QP and its CQs could
	 * never be destroyed (IPoIB detaches, then destroys them, when the
	 * device goes away under it).
	 */
	return err == -ENODEV ? 0 : err;
}
