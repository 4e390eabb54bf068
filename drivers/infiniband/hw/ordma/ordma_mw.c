// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA RDMA driver: memory windows.
 *
 * A window is a device object in the MR key space; ALLOC_MW returns its
 * first rkey.  Binding is a work request (BIND_MW WQE) that userspace
 * posts on a QP, so the device, not the driver, knows the current rkey
 * of a window: DEALLOC_MW names it by its index only.
 */

#include <rdma/ib_verbs.h>

#include "ordma_ib.h"

int ordma_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(ibmw->device);
	struct ordma_pd *pd = to_ordma_pd(ibmw->pd);
	struct ordma_mw *mw = to_ordma_mw(ibmw);
	struct ordma_cmd_alloc_mw cmd = {};
	u32 key;
	int err;

	if (!(le32_to_cpu(dev->caps.cap_flags) & ORDMA_DEV_CAP_MW))
		return -EOPNOTSUPP;
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;

	switch (ibmw->type) {
	case IB_MW_TYPE_1:
		cmd.type = ORDMA_MW_TYPE_1;
		break;
	case IB_MW_TYPE_2:
		cmd.type = ORDMA_MW_TYPE_2;
		break;
	default:
		ibdev_dbg(&dev->ibdev, "unknown MW type %d\n", ibmw->type);
		return -EINVAL;
	}

	mw->uctx_id = pd->uctx_id;
	cmd.pdn = cpu_to_le32(pd->pdn);
	cmd.uctx = cpu_to_le32(mw->uctx_id);
	cmd.key = (u8)atomic_inc_return(&dev->key_seq);
	err = ordma_cmd_alloc_mw(dev, &cmd, &key);
	if (err) {
		ibdev_dbg(&dev->ibdev, "ALLOC_MW failed: %d\n", err);
		return err;
	}
	ibmw->rkey = key;
	return 0;
}

int ordma_dealloc_mw(struct ib_mw *ibmw)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(ibmw->device);
	struct ordma_mw *mw = to_ordma_mw(ibmw);
	int err;

	err = ordma_cmd_dealloc_mw(dev, mw->uctx_id, ibmw->rkey);
	ordma_report_destroy(dev, err, "DEALLOC_MW %#x", ibmw->rkey);
	/* Nothing of the host is behind a window: the object may go. */
	return 0;
}
