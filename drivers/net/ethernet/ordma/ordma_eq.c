// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* ORDMA event queues and interrupts.
 *
 * MSI-X vector 0 serves the admin queue and the single async EQ; vectors
 * 1..n serve one completion EQ each.  An EQ interrupts once per arm: the
 * handler consumes entries by phase, then writes the EQ doorbell with its
 * consumer index and ARM, and the device interrupts again at once if
 * entries arrived meanwhile.  Ethernet ring events are handed to the
 * netdev's NAPI, which arms its rings itself; CQ events and async events
 * go to the RDMA driver's callbacks.
 *
 * The device keeps at most one unconsumed event per CQ in a completion
 * EQ (a CQ armed again meanwhile has its event posted when the doorbell
 * hands the entry back), and refuses more CQs and rings on an EQ than
 * it has entries: a completion EQ is sized for every CQ the device
 * allows plus the netdev's rings, so that no process can crowd another
 * out of it.
 */

#include <linux/dma-mapping.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "ordma_core.h"

static size_t ordma_eq_bytes(const struct ordma_eq *eq)
{
	return sizeof(struct ordma_eqe) << eq->log_size;
}

static void ordma_eq_arm(struct ordma_eq *eq)
{
	ordma_ring_db(eq->cdev, ORDMA_DB_EQ, eq->eqn, eq->ci, true);
}

int ordma_core_register_events(struct ordma_core_dev *cdev,
			       const struct ordma_event_ops *ops, void *priv)
{
	struct ordma_event_sub *sub;
	int err = 0;

	sub = kzalloc(sizeof(*sub), GFP_KERNEL);
	if (!sub)
		return -ENOMEM;
	sub->ops = ops;
	sub->priv = priv;

	mutex_lock(&cdev->events_lock);
	if (rcu_access_pointer(cdev->events))
		err = -EBUSY;
	else
		rcu_assign_pointer(cdev->events, sub);
	mutex_unlock(&cdev->events_lock);

	if (err)
		kfree(sub);
	return err;
}
EXPORT_SYMBOL_NS_GPL(ordma_core_register_events, ORDMA);

/* On return no callback runs or will run. */
void ordma_core_unregister_events(struct ordma_core_dev *cdev)
{
	struct ordma_event_sub *sub;

	mutex_lock(&cdev->events_lock);
	sub = rcu_replace_pointer(cdev->events, NULL,
				  lockdep_is_held(&cdev->events_lock));
	mutex_unlock(&cdev->events_lock);

	if (!sub)
		return;
	synchronize_rcu();
	kfree(sub);
}
EXPORT_SYMBOL_NS_GPL(ordma_core_unregister_events, ORDMA);

void ordma_events_device_fatal(struct ordma_core_dev *cdev)
{
	struct ordma_event_sub *sub;

	rcu_read_lock();
	sub = rcu_dereference(cdev->events);
	if (sub && sub->ops->device_fatal)
		sub->ops->device_fatal(sub->priv);
	rcu_read_unlock();
}

int ordma_core_comp_eqn(struct ordma_core_dev *cdev, u32 vector, u32 *eqn)
{
	if (vector >= cdev->num_comp_eqs)
		return -EINVAL;
	*eqn = cdev->comp_eqs[vector].eqn;
	return 0;
}
EXPORT_SYMBOL_NS_GPL(ordma_core_comp_eqn, ORDMA);

static void ordma_async_event(struct ordma_core_dev *cdev,
			      const struct ordma_eqe *eqe)
{
	u32 type = FIELD_GET(ORDMA_EQE_TYPE, le32_to_cpu(eqe->type));
	struct ordma_event_sub *sub;

	atomic64_inc(&cdev->async_events);

	switch (type) {
	case ORDMA_EQE_PORT_CHANGE:
		if (le32_to_cpu(eqe->data[0]) == ORDMA_PORT_NUM)
			ordma_netdev_port_event(cdev,
						le32_to_cpu(eqe->data[1]));
		break;
	case ORDMA_EQE_ETH_RING_ERR:
		ordma_netdev_ring_error(cdev, le32_to_cpu(eqe->data[0]));
		break;
	case ORDMA_EQE_DB_ERROR:
		atomic64_inc(&cdev->db_error_events);
		dev_warn_ratelimited(ordma_dev(cdev),
				     "doorbell rejected: page %u offset 0x%x queue %u\n",
				     le32_to_cpu(eqe->data[0]),
				     le32_to_cpu(eqe->data[1]),
				     le32_to_cpu(eqe->data[2]));
		break;
	default:
		break;
	}

	rcu_read_lock();
	sub = rcu_dereference(cdev->events);
	if (sub && sub->ops->async_event)
		sub->ops->async_event(sub->priv, eqe);
	rcu_read_unlock();
}

static void ordma_comp_event(struct ordma_core_dev *cdev, struct ordma_eq *eq,
			     const struct ordma_eqe *eqe)
{
	u32 type = FIELD_GET(ORDMA_EQE_TYPE, le32_to_cpu(eqe->type));
	struct ordma_event_sub *sub;

	switch (type) {
	case ORDMA_EQE_ETH:
		ordma_netdev_eth_event(cdev, le32_to_cpu(eqe->data[0]));
		break;
	case ORDMA_EQE_COMP:
		rcu_read_lock();
		sub = rcu_dereference(cdev->events);
		if (sub && sub->ops->comp_event)
			sub->ops->comp_event(sub->priv,
					     le32_to_cpu(eqe->data[0]));
		rcu_read_unlock();
		break;
	default:
		dev_warn_ratelimited(ordma_dev(cdev),
				     "unexpected event 0x%02x on completion EQ %u\n",
				     type, eq->eqn);
		break;
	}
}

/* Interrupt context; the EQ's own vector serialises calls. */
static void ordma_eq_process(struct ordma_eq *eq)
{
	struct ordma_core_dev *cdev = eq->cdev;
	u32 mask = (1U << eq->log_size) - 1;
	u32 n;

	/* At most one lap: the re-arm below brings us back for more. */
	for (n = 0; n <= mask; n++) {
		struct ordma_eqe *entry = &eq->ring[eq->ci & mask];
		struct ordma_eqe eqe;
		u32 type;

		type = le32_to_cpu(READ_ONCE(entry->type));
		if (!!(type & ORDMA_EQE_PHASE) != eq->phase)
			break;
		/* The data was written before the type: read it after. */
		dma_rmb();
		memcpy(&eqe, entry, sizeof(eqe));

		eq->ci++;
		if (!(eq->ci & mask))
			eq->phase ^= 1;

		if (eq->type == ORDMA_EQ_TYPE_ASYNC)
			ordma_async_event(cdev, &eqe);
		else
			ordma_comp_event(cdev, eq, &eqe);
	}

	/* An EQ disarms only when it interrupts for a new entry, so an
	 * empty pass leaves it armed and needs no doorbell.
	 */
	if (n)
		ordma_eq_arm(eq);
}

static irqreturn_t ordma_admin_irq_handler(int irq, void *data)
{
	struct ordma_core_dev *cdev = data;

	ordma_cmdq_process(cdev);
	/* Pairs with the release that publishes the created EQ. */
	if (smp_load_acquire(&cdev->async_eq_active))
		ordma_eq_process(&cdev->async_eq);
	return IRQ_HANDLED;
}

static irqreturn_t ordma_comp_irq_handler(int irq, void *data)
{
	ordma_eq_process(data);
	return IRQ_HANDLED;
}

/* pci_request_irq() names the interrupt and pci_free_irq() frees the name. */
int ordma_admin_irq_request(struct ordma_core_dev *cdev)
{
	struct pci_dev *pdev = cdev->pdev;
	int err;

	err = pci_request_irq(pdev, ORDMA_ADMIN_VECTOR, ordma_admin_irq_handler,
			      NULL, cdev, "%s-admin@%s", ORDMA_DRV_NAME,
			      pci_name(pdev));
	if (err)
		return err;
	cdev->admin_irq_requested = true;
	return 0;
}

void ordma_admin_irq_free(struct ordma_core_dev *cdev)
{
	if (!cdev->admin_irq_requested)
		return;
	pci_free_irq(cdev->pdev, ORDMA_ADMIN_VECTOR, cdev);
	cdev->admin_irq_requested = false;
}

static int ordma_eq_create(struct ordma_core_dev *cdev, struct ordma_eq *eq,
			   u8 type, u16 vector, u32 log_size)
{
	struct device *dev = ordma_dev(cdev);
	int err;

	eq->cdev = cdev;
	eq->type = type;
	eq->vector = vector;
	eq->log_size = log_size;
	eq->ci = 0;
	eq->phase = 1;

	/* The device writes entries with phase 1 first: start from zero. */
	eq->ring = dma_alloc_coherent(dev, ordma_eq_bytes(eq), &eq->ring_dma,
				      GFP_KERNEL);
	if (!eq->ring)
		return -ENOMEM;

	err = ordma_cmd_create_eq(cdev, eq->ring_dma, log_size, type, vector,
				  &eq->eqn);
	if (err) {
		dev_err(dev, "CREATE_EQ (type %u, vector %u) failed: %d\n",
			type, vector, err);
		return err;
	}
	eq->created = true;
	if (eq->eqn > FIELD_MAX(ORDMA_DB_QN)) {
		dev_err(dev, "device returned EQ number %u\n", eq->eqn);
		return -EIO;
	}
	return 0;
}

static void ordma_eq_destroy(struct ordma_core_dev *cdev, struct ordma_eq *eq)
{
	int err;

	if (!eq->created)
		return;
	err = ordma_cmd_destroy_eq(cdev, eq->eqn);
	/* a device that is gone took its EQs with it */
	if (err && err != -ENODEV)
		dev_warn(ordma_dev(cdev), "DESTROY_EQ %u failed: %d\n",
			 eq->eqn, err);
	eq->created = false;
}

/* Ring memory is freed only after the device reset. */
static void ordma_eq_free(struct ordma_core_dev *cdev, struct ordma_eq *eq)
{
	if (!eq->ring)
		return;
	dma_free_coherent(ordma_dev(cdev), ordma_eq_bytes(eq), eq->ring,
			  eq->ring_dma);
	eq->ring = NULL;
}

/* The netdev's TX and RX rings post to a completion EQ too. */
#define ORDMA_ETH_RINGS_PER_EQ	2

static u32 ordma_comp_eq_log_size(struct ordma_core_dev *cdev)
{
	u32 sources = le32_to_cpu(cdev->caps.max_cq) + ORDMA_ETH_RINGS_PER_EQ;

	return clamp_t(u32, order_base_2(sources), ORDMA_COMP_EQ_LOG_SIZE,
		       ORDMA_EQ_MAX_LOG_SIZE);
}

static int ordma_comp_eq_start(struct ordma_core_dev *cdev, u32 index)
{
	struct ordma_eq *eq = &cdev->comp_eqs[index];
	struct pci_dev *pdev = cdev->pdev;
	int err;

	err = ordma_eq_create(cdev, eq, ORDMA_EQ_TYPE_COMP, index + 1,
			      ordma_comp_eq_log_size(cdev));
	if (err)
		return err;

	err = pci_request_irq(pdev, eq->vector, ordma_comp_irq_handler, NULL,
			      eq, "%s-comp%u@%s", ORDMA_DRV_NAME, index,
			      pci_name(pdev));
	if (err)
		return err;
	eq->irq_requested = true;
	ordma_eq_arm(eq);
	return 0;
}

int ordma_eqs_create(struct ordma_core_dev *cdev)
{
	u32 max_eq = le32_to_cpu(cdev->caps.max_eq);
	u32 i, n;
	int err;

	err = ordma_eq_create(cdev, &cdev->async_eq, ORDMA_EQ_TYPE_ASYNC,
			      ORDMA_ADMIN_VECTOR, ORDMA_ASYNC_EQ_LOG_SIZE);
	if (err)
		return err;
	/* Publish the EQ to the admin interrupt before it may fire for it. */
	smp_store_release(&cdev->async_eq_active, true);
	ordma_eq_arm(&cdev->async_eq);

	n = max_eq > 1 ? min_t(u32, cdev->num_irq_vectors - 1, max_eq - 1) : 0;
	if (!n) {
		dev_err(ordma_dev(cdev), "no completion EQ (max_eq %u)\n",
			max_eq);
		return -EIO;
	}
	cdev->comp_eqs = kcalloc(n, sizeof(*cdev->comp_eqs), GFP_KERNEL);
	if (!cdev->comp_eqs)
		return -ENOMEM;
	cdev->num_comp_eqs = n;

	for (i = 0; i < n; i++) {
		err = ordma_comp_eq_start(cdev, i);
		if (err)
			return err;
	}
	return 0;
}

/* Stops event processing and destroys the device objects; safe on a
 * partly created set.  The rings stay until ordma_eqs_free().
 */
void ordma_eqs_destroy(struct ordma_core_dev *cdev)
{
	u32 i;

	for (i = cdev->num_comp_eqs; i-- > 0;) {
		struct ordma_eq *eq = &cdev->comp_eqs[i];

		if (eq->irq_requested) {
			pci_free_irq(cdev->pdev, eq->vector, eq);
			eq->irq_requested = false;
		}
		ordma_eq_destroy(cdev, eq);
	}

	if (cdev->async_eq_active) {
		/* Stop the admin interrupt using the EQ, then wait for a
		 * handler that may still be inside it.
		 */
		smp_store_release(&cdev->async_eq_active, false);
		if (cdev->admin_irq_requested)
			synchronize_irq(pci_irq_vector(cdev->pdev,
						       ORDMA_ADMIN_VECTOR));
	}
	ordma_eq_destroy(cdev, &cdev->async_eq);
}

void ordma_eqs_free(struct ordma_core_dev *cdev)
{
	u32 i;

	for (i = 0; i < cdev->num_comp_eqs; i++)
		ordma_eq_free(cdev, &cdev->comp_eqs[i]);
	kfree(cdev->comp_eqs);
	cdev->comp_eqs = NULL;
	cdev->num_comp_eqs = 0;
	ordma_eq_free(cdev, &cdev->async_eq);
}
