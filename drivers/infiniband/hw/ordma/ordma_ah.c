// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA RDMA driver: address handles.
 *
 * A user AH is a device object (CREATE_AH), named by the provider's
 * WQEs; a user AH destroyed in atomic context is destroyed on the device
 * from a work item.  A kernel AH is only its address vector, which the
 * kernel post path copies into each WQE: the MAD layer creates AHs where
 * it cannot sleep.
 */

#include <linux/slab.h>
#include <linux/workqueue.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/ordma-abi.h>
#include <rdma/uverbs_ioctl.h>

#include "ordma_ib.h"

struct ordma_ah_release {
	struct work_struct work;
	struct ordma_ibdev *dev;
	u32 handle;
	u32 uctx_id;
};

int ordma_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init_attr,
		    struct ib_udata *udata)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(ibah->device);
	struct ordma_ah *ah = to_ordma_ah(ibah);
	struct ordma_create_ah_resp resp = {};
	struct ordma_cmd_create_ah cmd = {};
	int err;

	/* iWARP has no datagrams to address */
	if (ordma_port_is_iwarp(dev))
		return -EOPNOTSUPP;
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;

	err = ordma_av_from_ah_attr(dev, init_attr->ah_attr, &ah->av);
	if (err) {
		ibdev_dbg(&dev->ibdev, "create_ah: bad AH attributes: %d\n",
			  err);
		return err;
	}
	if (!udata)
		return 0;
	if (!(init_attr->flags & RDMA_CREATE_AH_SLEEPABLE))
		return -EOPNOTSUPP;
	cmd.av = ah->av;

	ah->uctx_id = ordma_udata_uctx(udata);
	cmd.pdn = cpu_to_le32(to_ordma_pd(ibah->pd)->pdn);
	cmd.uctx = cpu_to_le32(ah->uctx_id);
	err = ordma_cmd_create_ah(dev, &cmd, &ah->handle);
	if (err) {
		ibdev_dbg(&dev->ibdev, "CREATE_AH failed: %d\n", err);
		return err;
	}

	resp.ah_handle = ah->handle;
	err = ib_copy_to_udata(udata, &resp, min(sizeof(resp), udata->outlen));
	if (err)
		goto err_destroy;
	return 0;

err_destroy:
	ordma_cmd_destroy_ah(dev, ah->uctx_id, ah->handle);
	return err;
}

static void ordma_ah_release_work(struct work_struct *work)
{
	struct ordma_ah_release *rel =
		container_of(work, struct ordma_ah_release, work);
	int err;

	err = ordma_cmd_destroy_ah(rel->dev, rel->uctx_id, rel->handle);
	ordma_report_destroy(rel->dev, err, "DESTROY_AH %u", rel->handle);
	kfree(rel);
}

int ordma_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(ibah->device);
	struct ordma_ah *ah = to_ordma_ah(ibah);
	struct ordma_ah_release *rel;
	int err;

	if (!ah->handle)
		return 0;	/* a kernel AH: nothing on the device */
	if (!(flags & RDMA_DESTROY_AH_SLEEPABLE)) {
		/* Without memory the device keeps the AH until reset. */
		rel = kzalloc(sizeof(*rel), GFP_ATOMIC);
		if (!rel)
			return 0;
		INIT_WORK(&rel->work, ordma_ah_release_work);
		rel->dev = dev;
		rel->handle = ah->handle;
		rel->uctx_id = ah->uctx_id;
		queue_work(dev->wq, &rel->work);
		return 0;
	}

	err = ordma_cmd_destroy_ah(dev, ah->uctx_id, ah->handle);
	ordma_report_destroy(dev, err, "DESTROY_AH %u", ah->handle);
	return 0;
}

/*
 * The MAD layer matches a response to its request by the request's AH
 * (for LID-routed classes: the responder must be the LID it was sent to).
 */
int ordma_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *ah_attr)
{
	struct ordma_ah *ah = to_ordma_ah(ibah);

	ordma_av_to_ah_attr(to_ordma_ibdev(ibah->device), &ah->av, ah_attr);
	return 0;
}
