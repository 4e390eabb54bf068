// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA iWARP port: what the RDMA core and its iWARP connection manager
 * (iw_cm) ask of a device whose port speaks iWARP.  The port has one GID,
 * the netdev's MAC address, as the RDMA core derives an iWARP port's
 * address from it.  The firmware has no TCP connections yet: listening,
 * connecting, accepting and rejecting are not supported.
 */

#include <linux/etherdevice.h>
#include <linux/netdevice.h>
#include <rdma/ib_verbs.h>
#include <rdma/iw_cm.h>

#include "ordma_ib.h"

int ordma_iw_query_gid(struct ib_device *ibdev, u32 port, int index,
		       union ib_gid *gid)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(ibdev);

	if (index != 0)
		return -EINVAL;
	memset(gid, 0, sizeof(*gid));
	ether_addr_copy(gid->raw, dev->info.netdev->dev_addr);
	return 0;
}

/*
 * iw_cm holds a QP while a connection uses it, and takes the reference
 * under its own spinlock: no sleeping here.  destroy_qp waits for the
 * last reference.
 */
void ordma_iw_add_ref(struct ib_qp *ibqp)
{
	refcount_inc(&to_ordma_qp(ibqp)->ref.count);
}

void ordma_iw_rem_ref(struct ib_qp *ibqp)
{
	ordma_obj_ref_put(&to_ordma_qp(ibqp)->ref);
}

/* The QP iw_cm is given by number; the caller takes its reference. */
struct ib_qp *ordma_iw_get_qp(struct ib_device *ibdev, int qpn)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(ibdev);
	struct ordma_qp *qp;

	if (qpn < 0)
		return NULL;
	qp = ordma_obj_get(&dev->qps, qpn, struct ordma_qp);
	if (!qp)
		return NULL;
	ordma_obj_ref_put(&qp->ref);
	return &qp->ibqp;
}

int ordma_iw_connect(struct iw_cm_id *cm_id,
		     struct iw_cm_conn_param *conn_param)
{
	ibdev_dbg(cm_id->device, "iw_connect: no iWARP connections yet\n");
	return -EOPNOTSUPP;
}

int ordma_iw_accept(struct iw_cm_id *cm_id,
		    struct iw_cm_conn_param *conn_param)
{
	return -EOPNOTSUPP;
}

int ordma_iw_reject(struct iw_cm_id *cm_id, const void *pdata, u8 pdata_len)
{
	return -EOPNOTSUPP;
}

int ordma_iw_create_listen(struct iw_cm_id *cm_id, int backlog)
{
	ibdev_dbg(cm_id->device, "iw_create_listen: no iWARP listeners yet\n");
	return -EOPNOTSUPP;
}

int ordma_iw_destroy_listen(struct iw_cm_id *cm_id)
{
	return -EOPNOTSUPP;
}
