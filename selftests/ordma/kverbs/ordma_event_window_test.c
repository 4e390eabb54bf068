// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA selftest module: completion events reach a kernel ULP while the
 * RDMA device registers and while it unregisters.
 *
 * The module is an ib_client, as ULPs are.  Its add callback runs inside
 * ib_register_device() for an ORDMA device registered after the module
 * loaded (and at load for the devices already there); its remove callback
 * runs inside ib_unregister_device() (rmmod ordma_ib, PCI unbind) and at
 * unload.  Both do what a ULP does there: add creates a PD, a CQ with a
 * completion handler and an RC QP; both then move the QP to Error, arm
 * the CQ and post a receive, which the device flushes, and wait (bounded)
 * for the completion event -- the wait ib_drain_qp() does without a bound
 * when a ULP drains at removal.  Results are counted in the read-only
 * parameters add_passed, add_failed, remove_passed and remove_failed
 * (/sys/module/ordma_event_window_test/parameters/), and a failure is
 * logged with its cause.
 */

#define pr_fmt(fmt) "ordma_event_window: " fmt

#include <linux/completion.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#define EW_TIMEOUT_MS	5000

static atomic_t add_passed = ATOMIC_INIT(0);
static atomic_t add_failed = ATOMIC_INIT(0);
static atomic_t remove_passed = ATOMIC_INIT(0);
static atomic_t remove_failed = ATOMIC_INIT(0);

static int ew_get_count(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(kp->arg));
}

static const struct kernel_param_ops ew_count_ops = {
	.get = ew_get_count,
};
module_param_cb(add_passed, &ew_count_ops, &add_passed, 0444);
MODULE_PARM_DESC(add_passed, "devices whose completion event arrived in add");
module_param_cb(add_failed, &ew_count_ops, &add_failed, 0444);
MODULE_PARM_DESC(add_failed, "devices whose completion event did not arrive in add");
module_param_cb(remove_passed, &ew_count_ops, &remove_passed, 0444);
MODULE_PARM_DESC(remove_passed, "devices whose completion event arrived in remove");
module_param_cb(remove_failed, &ew_count_ops, &remove_failed, 0444);
MODULE_PARM_DESC(remove_failed, "devices whose completion event did not arrive in remove");

struct ew_dev {
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp;
	struct completion event;
};

static struct ib_client ew_client;

static void ew_comp_handler(struct ib_cq *cq, void *ctx)
{
	struct ew_dev *ewd = ctx;

	complete(&ewd->event);
}

/* Flush one receive and wait for its completion event; 0 if it came. */
static int ew_flush_by_event(struct ib_device *ibdev, struct ew_dev *ewd,
			     const char *where)
{
	struct ib_recv_wr wr = { .wr_id = 1 };
	const struct ib_recv_wr *bad;
	struct ib_wc wc;
	bool event;
	int err, n;

	reinit_completion(&ewd->event);
	err = ib_req_notify_cq(ewd->cq, IB_CQ_NEXT_COMP);
	if (err) {
		pr_err("%s %s: arming the CQ failed: %d\n", dev_name(&ibdev->dev),
		       where, err);
		return err;
	}
	err = ib_post_recv(ewd->qp, &wr, &bad);
	if (err) {
		pr_err("%s %s: posting the receive failed: %d\n",
		       dev_name(&ibdev->dev), where, err);
		return err;
	}
	event = wait_for_completion_timeout(&ewd->event,
					    msecs_to_jiffies(EW_TIMEOUT_MS));
	n = ib_poll_cq(ewd->cq, 1, &wc);
	if (!event) {
		pr_err("%s %s: no completion event in %u ms (%s)\n",
		       dev_name(&ibdev->dev), where, EW_TIMEOUT_MS,
		       n == 1 ? "the completion is in the CQ: its event was lost" :
		       "no completion either");
		return -ETIMEDOUT;
	}
	if (n != 1 || wc.wr_id != 1 || wc.status != IB_WC_WR_FLUSH_ERR) {
		pr_err("%s %s: event without the flushed receive (poll %d, status %d)\n",
		       dev_name(&ibdev->dev), where, n,
		       n == 1 ? wc.status : -1);
		return -EIO;
	}
	return 0;
}

static void ew_release(struct ew_dev *ewd)
{
	if (ewd->qp)
		ib_destroy_qp(ewd->qp);
	if (ewd->cq)
		ib_destroy_cq(ewd->cq);
	if (ewd->pd)
		ib_dealloc_pd(ewd->pd);
	kfree(ewd);
}

static bool ew_is_ordma(struct ib_device *ibdev)
{
	struct device *parent = ibdev->dev.parent;

	return parent && parent->driver &&
	       !strcmp(parent->driver->name, "ordma_core");
}

static int ew_add(struct ib_device *ibdev)
{
	struct ib_cq_init_attr cq_attr = { .cqe = 4 };
	struct ib_qp_attr qp_attr = { .qp_state = IB_QPS_ERR };
	struct ib_qp_init_attr qp_init = {
		.cap = { .max_send_wr = 1, .max_recv_wr = 2,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};
	struct ew_dev *ewd;
	int err;

	if (!ew_is_ordma(ibdev))
		return -EOPNOTSUPP;

	ewd = kzalloc(sizeof(*ewd), GFP_KERNEL);
	if (!ewd)
		return -ENOMEM;
	init_completion(&ewd->event);

	ewd->pd = ib_alloc_pd(ibdev, 0);
	if (IS_ERR(ewd->pd)) {
		err = PTR_ERR(ewd->pd);
		ewd->pd = NULL;
		goto err_count;
	}
	ewd->cq = ib_create_cq(ibdev, ew_comp_handler, NULL, ewd, &cq_attr);
	if (IS_ERR(ewd->cq)) {
		err = PTR_ERR(ewd->cq);
		ewd->cq = NULL;
		goto err_count;
	}
	qp_init.send_cq = ewd->cq;
	qp_init.recv_cq = ewd->cq;
	ewd->qp = ib_create_qp(ewd->pd, &qp_init);
	if (IS_ERR(ewd->qp)) {
		err = PTR_ERR(ewd->qp);
		ewd->qp = NULL;
		goto err_count;
	}
	err = ib_modify_qp(ewd->qp, &qp_attr, IB_QP_STATE);
	if (err)
		goto err_count;

	err = ew_flush_by_event(ibdev, ewd, "add");
	if (err)
		goto err_count;
	atomic_inc(&add_passed);
	ib_set_client_data(ibdev, &ew_client, ewd);
	return 0;

err_count:
	pr_err("%s add: failed: %d\n", dev_name(&ibdev->dev), err);
	atomic_inc(&add_failed);
	ew_release(ewd);
	/* Not a reason to fail the device's registration */
	return -EOPNOTSUPP;
}

static void ew_remove(struct ib_device *ibdev, void *client_data)
{
	struct ew_dev *ewd = client_data;

	if (ew_flush_by_event(ibdev, ewd, "remove"))
		atomic_inc(&remove_failed);
	else
		atomic_inc(&remove_passed);
	ew_release(ewd);
}

static struct ib_client ew_client = {
	.name = "ordma_event_window",
	.add = ew_add,
	.remove = ew_remove,
};

static int __init ew_init(void)
{
	return ib_register_client(&ew_client);
}

static void __exit ew_exit(void)
{
	ib_unregister_client(&ew_client);
}

module_init(ew_init);
module_exit(ew_exit);
MODULE_DESCRIPTION("ORDMA selftest: completion events while an RDMA device (un)registers");
MODULE_LICENSE("Dual BSD/GPL");
