// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA RDMA driver: binds the "rdma" auxiliary device of ordma_core and
 * registers the adapter's RoCEv2 port with the RDMA core.
 */

#include <linux/auxiliary_bus.h>
#include <linux/bitfield.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/pci.h>
#include <linux/random.h>
#include <linux/sysfs.h>
#include <rdma/ib_verbs.h>
#include <rdma/iw_cm.h>
#include <rdma/ordma-abi.h>

#include "ordma_ib.h"

MODULE_DESCRIPTION("ORDMA RoCEv2 RDMA driver");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_IMPORT_NS(ORDMA);

static ssize_t board_id_show(struct device *device,
			     struct device_attribute *attr, char *buf)
{
	struct ordma_ibdev *dev =
		rdma_device_to_drv_device(device, struct ordma_ibdev, ibdev);

	return sysfs_emit(buf, "%s\n", dev->info.board_id);
}
static DEVICE_ATTR_RO(board_id);

static struct attribute *ordma_ib_attrs[] = {
	&dev_attr_board_id.attr,
	NULL
};

static const struct attribute_group ordma_ib_attr_group = {
	.attrs = ordma_ib_attrs,
};

static const struct ib_device_ops ordma_ib_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,
	.uverbs_abi_ver = ORDMA_UVERBS_ABI_VERSION,

	.add_gid = ordma_add_gid,
	.alloc_hw_port_stats = ordma_alloc_hw_port_stats,
	.alloc_mr = ordma_alloc_mr,
	.alloc_mw = ordma_alloc_mw,
	.alloc_pd = ordma_alloc_pd,
	.alloc_ucontext = ordma_alloc_ucontext,
	.attach_mcast = ordma_attach_mcast,
	.counter_alloc_stats = ordma_counter_alloc_stats,
	.counter_bind_qp = ordma_counter_bind_qp,
	.counter_dealloc = ordma_counter_dealloc,
	.counter_unbind_qp = ordma_counter_unbind_qp,
	.counter_update_stats = ordma_counter_update_stats,
	.create_ah = ordma_create_ah,
	.create_cq = ordma_create_cq,
	.create_qp = ordma_create_qp,
	.create_srq = ordma_create_srq,
	/* uverbs offers CREATE_AH only with this op; the same function */
	.create_user_ah = ordma_create_ah,
	.dealloc_mw = ordma_dealloc_mw,
	.dealloc_pd = ordma_dealloc_pd,
	.dealloc_ucontext = ordma_dealloc_ucontext,
	.del_gid = ordma_del_gid,
	.dereg_mr = ordma_dereg_mr,
	.destroy_ah = ordma_destroy_ah,
	.destroy_cq = ordma_destroy_cq,
	.destroy_qp = ordma_destroy_qp,
	.destroy_srq = ordma_destroy_srq,
	.detach_mcast = ordma_detach_mcast,
	.device_group = &ordma_ib_attr_group,
	.disassociate_ucontext = ordma_disassociate_ucontext,
	.fill_res_cq_entry = ordma_fill_res_cq_entry,
	.fill_res_cq_entry_raw = ordma_fill_res_cq_entry_raw,
	.fill_res_mr_entry = ordma_fill_res_mr_entry,
	.fill_res_qp_entry = ordma_fill_res_qp_entry,
	.fill_res_qp_entry_raw = ordma_fill_res_qp_entry_raw,
	.fill_res_srq_entry = ordma_fill_res_srq_entry,
	.get_dev_fw_str = ordma_get_dev_fw_str,
	.get_dma_mr = ordma_get_dma_mr,
	.get_hw_stats = ordma_get_hw_stats,
	.get_link_layer = ordma_get_link_layer,
	.get_port_immutable = ordma_get_port_immutable,
	.map_mr_sg = ordma_map_mr_sg,
	.mmap = ordma_mmap,
	.mmap_free = ordma_mmap_free,
	.modify_hw_stat = ordma_modify_hw_stat,
	.modify_qp = ordma_modify_qp,
	.modify_srq = ordma_modify_srq,
	.poll_cq = ordma_poll_cq,
	.post_recv = ordma_post_recv,
	.post_send = ordma_post_send,
	.post_srq_recv = ordma_post_srq_recv,
	.query_device = ordma_query_device,
	.query_ah = ordma_query_ah,
	.query_pkey = ordma_query_pkey,
	.query_port = ordma_query_port,
	.query_qp = ordma_query_qp,
	.query_srq = ordma_query_srq,
	.reg_user_mr = ordma_reg_user_mr,
	.req_notify_cq = ordma_req_notify_cq,
	.rereg_user_mr = ordma_rereg_user_mr,

	INIT_RDMA_OBJ_SIZE(ib_ah, ordma_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, ordma_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_mw, ordma_mw, ibmw),
	INIT_RDMA_OBJ_SIZE(ib_pd, ordma_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, ordma_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, ordma_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, ordma_ucontext, ibucontext),
};

/* What an InfiniBand port adds: its GID, MADs to the device's agents */
static const struct ib_device_ops ordma_ib_port_ops = {
	.modify_device = ordma_ib_modify_device,
	.modify_port = ordma_ib_modify_port,
	.process_mad = ordma_ib_process_mad,
	.query_gid = ordma_ib_query_gid,
};

/* What an iWARP port adds: its one GID, the connection manager's calls */
static const struct ib_device_ops ordma_iw_port_ops = {
	.iw_accept = ordma_iw_accept,
	.iw_add_ref = ordma_iw_add_ref,
	.iw_connect = ordma_iw_connect,
	.iw_create_listen = ordma_iw_create_listen,
	.iw_destroy_listen = ordma_iw_destroy_listen,
	.iw_get_qp = ordma_iw_get_qp,
	.iw_reject = ordma_iw_reject,
	.iw_rem_ref = ordma_iw_rem_ref,
	.query_gid = ordma_iw_query_gid,
};

/* Any context: the CQ/QP/SRQ xarrays are IRQ-safe (XA_FLAGS_LOCK_IRQ). */
void *ordma_xa_get(struct xarray *xa, unsigned long index, size_t ref_offset)
{
	struct ordma_obj_ref *ref;
	unsigned long flags;
	void *obj;

	xa_lock_irqsave(xa, flags);
	obj = xa_load(xa, index);
	if (obj) {
		ref = obj + ref_offset;
		if (!refcount_inc_not_zero(&ref->count))
			obj = NULL;
	}
	xa_unlock_irqrestore(xa, flags);
	return obj;
}

/*
 * Hard IRQ context (core's async EQ handler): must not sleep.  The event
 * handlers run from before ib_register_device() until after
 * ib_unregister_device(), so the ib_device may not be registered (no
 * name, no clients yet or any more): objects are found through the
 * driver's tables only, and ib_dispatch_event() merely queues work on
 * ib_wq, which ordma_ib_stop_events() flushes before the device goes.
 */
static void ordma_ib_async_event(void *priv, const struct ordma_eqe *eqe)
{
	struct ordma_ibdev *dev = priv;
	u32 type = FIELD_GET(ORDMA_EQE_TYPE, le32_to_cpu(eqe->type));
	u32 data0 = le32_to_cpu(eqe->data[0]);
	u32 data1 = le32_to_cpu(eqe->data[1]);
	struct ib_event event = {};

	switch (type) {
	case ORDMA_EQE_PORT_CHANGE:
		if (data0 != ORDMA_PORT_NUM) {
			ibdev_warn_ratelimited(&dev->ibdev,
					       "port change event for unknown port %u\n",
					       data0);
			return;
		}
		ibdev_dbg(&dev->ibdev, "port %u state %u\n", data0, data1);
		if (ordma_port_is_ib(dev)) {
			ordma_ib_port_event(dev, data1,
					    le32_to_cpu(eqe->data[2]));
			break;
		}
		event.device = &dev->ibdev;
		event.element.port_num = ORDMA_PORT_NUM;
		event.event = data1 == ORDMA_PORT_ACTIVE ?
			      IB_EVENT_PORT_ACTIVE : IB_EVENT_PORT_ERR;
		/* Defers to a work item (GFP_ATOMIC allocation). */
		ib_dispatch_event(&event);
		break;
	case ORDMA_EQE_DB_ERROR:
		/* The core has counted and logged it already. */
		ibdev_dbg(&dev->ibdev,
			  "doorbell rejected: page %u offset %#x qn %u\n",
			  data0, data1, le32_to_cpu(eqe->data[2]));
		break;
	case ORDMA_EQE_QP_FATAL:
		ordma_qp_async_event(dev, data0, IB_EVENT_QP_FATAL);
		break;
	case ORDMA_EQE_QP_REQ_ERR:
		ordma_qp_async_event(dev, data0, IB_EVENT_QP_REQ_ERR);
		break;
	case ORDMA_EQE_QP_ACCESS_ERR:
		ordma_qp_async_event(dev, data0, IB_EVENT_QP_ACCESS_ERR);
		break;
	case ORDMA_EQE_QP_COMM_EST:
		ordma_qp_async_event(dev, data0, IB_EVENT_COMM_EST);
		break;
	case ORDMA_EQE_QP_SQ_DRAINED:
		ordma_qp_async_event(dev, data0, IB_EVENT_SQ_DRAINED);
		break;
	case ORDMA_EQE_QP_LAST_WQE:
		ordma_qp_async_event(dev, data0, IB_EVENT_QP_LAST_WQE_REACHED);
		break;
	case ORDMA_EQE_CQ_ERR:
		ordma_cq_async_event(dev, data0, IB_EVENT_CQ_ERR);
		break;
	case ORDMA_EQE_SRQ_LIMIT:
		ordma_srq_async_event(dev, data0, IB_EVENT_SRQ_LIMIT_REACHED);
		break;
	case ORDMA_EQE_IW_CONN_REQUEST:
	case ORDMA_EQE_IW_CONN_REPLY:
	case ORDMA_EQE_IW_ESTABLISHED:
	case ORDMA_EQE_IW_DISCONNECT:
	case ORDMA_EQE_IW_CLOSED:
		ordma_iw_event(dev, eqe);
		break;
	default:
		ibdev_dbg(&dev->ibdev, "ignoring async event type %#x\n", type);
		break;
	}
}

/* Hard IRQ context */
static void ordma_ib_comp_event(void *priv, u32 cqn)
{
	ordma_cq_comp_event(priv, cqn);
}

/* Consumers (uverbs async event files, ULPs) learn that the device is
 * gone instead of waiting for commands that fail.
 */
static void ordma_ib_device_fatal(void *priv)
{
	struct ordma_ibdev *dev = priv;
	struct ib_event event = {
		.device = &dev->ibdev,
		.event = IB_EVENT_DEVICE_FATAL,
	};

	ordma_cq_flush_all(dev);
	ib_dispatch_event(&event);
}

static const struct ordma_event_ops ordma_ib_event_ops = {
	.async_event = ordma_ib_async_event,
	.comp_event = ordma_ib_comp_event,
	.device_fatal = ordma_ib_device_fatal,
};

/*
 * No handler runs or will run after this, and the port and fatal events
 * they handed to the RDMA core (queued on ib_wq, naming this device) have
 * been delivered: the ib_device may go.  The core flushes ib_wq itself
 * only while the device is registered, and events are still delivered
 * after ib_unregister_device() and before ib_register_device().
 */
static void ordma_ib_stop_events(struct ordma_ibdev *dev)
{
	ordma_core_unregister_events(dev->cdev);
	flush_workqueue(ib_wq);
}

/* QUERY_FW's version in the encoding of ib_device_attr.fw_ver */
static u64 ordma_ib_fw_ver(const struct ordma_core_info *info)
{
	return (u64)info->fw_major << 32 | (u64)info->fw_minor << 16 |
	       info->fw_sub_minor;
}

/* The verbs commands and the transports every ib_device here offers */
#define ORDMA_IB_CAPS_REQUIRED \
	(ORDMA_DEV_CAP_VERBS | ORDMA_DEV_CAP_RC | ORDMA_DEV_CAP_UD)
/* An iWARP port has RC only */
#define ORDMA_IB_CAPS_IWARP \
	(ORDMA_DEV_CAP_VERBS | ORDMA_DEV_CAP_RC | ORDMA_DEV_CAP_IWARP)

/* What an InfiniBand port needs besides: QP0 for the subnet manager's
 * MADs, QP1 for everything else the MAD layer carries
 */
#define ORDMA_IB_CAPS_IB_PORT	(ORDMA_DEV_CAP_GSI | ORDMA_DEV_CAP_SMI)

/*
 * A RoCE port with its netdev, or an InfiniBand port, and the verbs and
 * transports this driver offers
 */
static int ordma_ib_check_core(struct auxiliary_device *adev,
			       const struct ordma_core_info *info,
			       u8 link_layer)
{
	u32 caps_present = le32_to_cpu(info->caps->cap_flags);
	u32 required = ORDMA_IB_CAPS_REQUIRED;

	switch (link_layer) {
	case ORDMA_LINK_LAYER_ETHERNET:
		if (!info->netdev) {
			dev_err(&adev->dev,
				"core has no netdev for the RoCE port\n");
			return -ENODEV;
		}
		if (info->rdma_protocol == ORDMA_PORT_PROTO_IWARP) {
			required = ORDMA_IB_CAPS_IWARP;
		} else if (info->rdma_protocol != ORDMA_PORT_PROTO_ROCE) {
			dev_err(&adev->dev, "unknown RDMA protocol %u\n",
				info->rdma_protocol);
			return -EOPNOTSUPP;
		}
		break;
	case ORDMA_LINK_LAYER_INFINIBAND:
		if ((caps_present & ORDMA_IB_CAPS_IB_PORT) !=
		    ORDMA_IB_CAPS_IB_PORT) {
			dev_err(&adev->dev,
				"InfiniBand port without QP0 and QP1 (caps 0x%x)\n",
				caps_present);
			return -EOPNOTSUPP;
		}
		break;
	default:
		dev_err(&adev->dev, "unknown port link layer %u\n", link_layer);
		return -EOPNOTSUPP;
	}
	if ((caps_present & required) != required) {
		dev_err(&adev->dev, "device lacks verbs capabilities 0x%x\n",
			required & ~caps_present);
		return -EOPNOTSUPP;
	}
	return 0;
}

static int ordma_ib_probe(struct auxiliary_device *adev,
			  const struct auxiliary_device_id *id)
{
	struct ordma_core_dev *cdev = to_ordma_aux_dev(adev)->cdev;
	struct ordma_port_attr port_attr;
	struct ordma_core_info info;
	struct net_device *netdev;
	struct ordma_ibdev *dev;
	struct pci_dev *pdev;
	struct ib_device *ibdev;
	int err;

	ordma_core_get_info(cdev, &info);
	/* The device is configured Ethernet or InfiniBand: ask it. */
	err = ordma_cmd_query_port(cdev, &port_attr);
	if (err) {
		dev_err(&adev->dev, "QUERY_PORT failed: %d\n", err);
		return err;
	}
	err = ordma_ib_check_core(adev, &info, port_attr.link_layer);
	if (err)
		return err;
	pdev = info.pdev;
	netdev = info.netdev;

	dev = ib_alloc_device(ordma_ibdev, ibdev);
	if (!dev)
		return -ENOMEM;

	ibdev = &dev->ibdev;
	dev->cdev = cdev;
	dev->info = info;
	dev->caps = *info.caps;
	dev->fw_ver = ordma_ib_fw_ver(&info);
	dev->kdb = info.kernel_db;
	dev->link_layer = port_attr.link_layer;
	dev->rdma_protocol = info.rdma_protocol;
	xa_init_flags(&dev->cqs, XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&dev->qps, XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&dev->srqs, XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&dev->counters, XA_FLAGS_ALLOC1);
	mutex_init(&dev->counter_lock);
	atomic_set(&dev->key_seq, get_random_u8());

	/*
	 * Storage ULPs (nvmet-rdma, iSER) tear down from their reclaim-safe
	 * workqueues: dealloc_pd flushes this one (deferred DESTROY_AH), and
	 * their drains wait for the software flush of CQs run here, so it
	 * needs its rescuer too.
	 */
	dev->wq = alloc_ordered_workqueue("ordma_ib/%s", WQ_MEM_RECLAIM,
					  pci_name(pdev));
	if (!dev->wq) {
		err = -ENOMEM;
		goto err_dealloc;
	}

	ibdev->node_type = ordma_port_is_iwarp(dev) ? RDMA_NODE_RNIC :
						      RDMA_NODE_IB_CA;
	ibdev->node_guid = dev->caps.node_guid;
	/* The product the device says it is; user space may rename it. */
	strscpy(ibdev->node_desc, info.board_id,
		sizeof(ibdev->node_desc));
	/* The core driver runs port 1 only, whatever num_ports says. */
	ibdev->phys_port_cnt = ORDMA_PORT_NUM;
	ibdev->num_comp_vectors = info.num_comp_vectors;
	/* The PCI function, so that providers match it by PCI ID. */
	ibdev->dev.parent = &pdev->dev;
	ib_set_device_ops(ibdev, &ordma_ib_dev_ops);
	if (ordma_port_is_ib(dev)) {
		ib_set_device_ops(ibdev, &ordma_ib_port_ops);
		/* the device answers NodeDescription with what we name it */
		err = ordma_ib_set_node_desc(dev, ibdev->node_desc);
		if (err) {
			dev_err(&adev->dev, "SET_NODE_DESC failed: %d\n", err);
			goto err_dealloc;
		}
	} else {
		if (ordma_port_is_iwarp(dev)) {
			ib_set_device_ops(ibdev, &ordma_iw_port_ops);
			strscpy(ibdev->iw_ifname, netdev_name(netdev),
				sizeof(ibdev->iw_ifname));
			/* the wire port is the one rdma_cm chose */
			ibdev->iw_driver_flags = IW_F_NO_PORT_MAP;
			err = ordma_iw_init(dev);
			if (err)
				goto err_dealloc;
		}
		err = ib_device_set_netdev(ibdev, netdev, ORDMA_PORT_NUM);
		if (err) {
			dev_err(&adev->dev, "failed to bind netdev %s: %d\n",
				netdev_name(netdev), err);
			goto err_dealloc;
		}
	}

	/*
	 * Events flow before registration starts: the clients that
	 * ib_register_device() adds (the MAD layer first) create and arm
	 * CQs and QPs and wait for their completions.  The handlers need
	 * only what is set up above: the object tables, and the port data
	 * that ib_device_set_netdev() allocated for ib_dispatch_event().
	 */
	err = ordma_core_register_events(cdev, &ordma_ib_event_ops, dev);
	if (err) {
		dev_err(&adev->dev, "failed to register event handlers: %d\n",
			err);
		goto err_dealloc;
	}

	err = ib_register_device(ibdev, "ordma%d", &pdev->dev);
	if (err) {
		dev_err(&adev->dev, "failed to register RDMA device: %d\n",
			err);
		goto err_events;
	}

	auxiliary_set_drvdata(adev, dev);
	if (dev->iw)
		ordma_iw_start(dev);
	if (ordma_port_is_ib(dev)) {
		ordma_ib_port_registered(dev);
		ibdev_dbg(ibdev, "registered on %s, InfiniBand port\n",
			  pci_name(pdev));
	} else {
		ibdev_dbg(ibdev, "registered on %s, netdev %s, %s\n",
			  pci_name(pdev), netdev_name(netdev),
			  ordma_port_is_iwarp(dev) ? "iWARP" : "RoCEv2");
	}
	return 0;

err_events:
	ordma_ib_stop_events(dev);
err_dealloc:
	ordma_iw_free(dev);
	if (dev->wq)
		destroy_workqueue(dev->wq);
	ib_dealloc_device(ibdev);
	return err;
}

static void ordma_ib_remove(struct auxiliary_device *adev)
{
	struct ordma_ibdev *dev = auxiliary_get_drvdata(adev);

	if (dev->iw)
		ordma_iw_stop(dev);
	/* Clients drain their QPs here, by completion events. */
	ib_unregister_device(&dev->ibdev);
	ordma_ib_stop_events(dev);
	ordma_iw_free(dev);
	/* Runs the DESTROY_AH commands still queued. */
	destroy_workqueue(dev->wq);
	WARN_ON(!xa_empty(&dev->cqs) || !xa_empty(&dev->qps) ||
		!xa_empty(&dev->srqs) || !xa_empty(&dev->counters));
	mutex_destroy(&dev->counter_lock);
	ib_dealloc_device(&dev->ibdev);
}

static const struct auxiliary_device_id ordma_ib_id_table[] = {
	{ .name = "ordma_core." ORDMA_AUX_RDMA_NAME },
	{}
};
MODULE_DEVICE_TABLE(auxiliary, ordma_ib_id_table);

static struct auxiliary_driver ordma_ib_driver = {
	.probe = ordma_ib_probe,
	.remove = ordma_ib_remove,
	.id_table = ordma_ib_id_table,
};
module_auxiliary_driver(ordma_ib_driver);
