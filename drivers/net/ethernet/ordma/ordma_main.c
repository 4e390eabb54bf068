// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* ORDMA RoCE RNIC core driver: PCI function bring-up and teardown.
 *
 * Probe maps the registers and the kernel doorbell page, resets the
 * device, hands it the admin queue, enables it, reads what the device and
 * its firmware are, creates the event queues, the Ethernet port and the
 * devlink instance, and finally publishes the "rdma" auxiliary device for
 * the RDMA driver.  Teardown runs the same steps backwards; all DMA
 * memory is freed only after the device has been reset.
 */

#include <linux/ctype.h>
#include <linux/dma-mapping.h>
#include <linux/iopoll.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/stringify.h>
#include <net/devlink.h>

#include "ordma_core.h"

/* REG_TIMEOUTS gives what the silicon needs; a device model running
 * under instruction emulation can be far slower, hence the margin.
 */
#define ORDMA_TIMEOUT_SCALE_DEFAULT	10
#define ORDMA_TIMEOUT_SCALE_MAX		100

static unsigned int timeout_scale = ORDMA_TIMEOUT_SCALE_DEFAULT;
module_param(timeout_scale, uint, 0444);
MODULE_PARM_DESC(timeout_scale,
		 "Multiplier (1-" __stringify(ORDMA_TIMEOUT_SCALE_MAX)
		 ", default " __stringify(ORDMA_TIMEOUT_SCALE_DEFAULT)
		 ") applied to the ready and command timeouts the device reports in REG_TIMEOUTS, for devices running under emulation");

/* Used when the device reports a zero timeout */
#define ORDMA_DEFAULT_READY_MS		1000
#define ORDMA_DEFAULT_CMD_MS		5000

/* Vector 0 (admin queue and async EQ) plus one completion vector */
#define ORDMA_MIN_VECTORS		2
/* The async EQ plus one completion EQ */
#define ORDMA_MIN_EQS			2

static const struct pci_device_id ordma_pci_table[] = {
	{ PCI_DEVICE(ORDMA_PCI_VENDOR_ID, ORDMA_PCI_DEVICE_ID) },
	{ }
};
MODULE_DEVICE_TABLE(pci, ordma_pci_table);

void ordma_core_get_info(struct ordma_core_dev *cdev,
			 struct ordma_core_info *info)
{
	*info = (struct ordma_core_info) {
		.pdev = cdev->pdev,
		.netdev = cdev->ndev,
		.caps = &cdev->caps,
		.rdma_protocol = cdev->caps.rdma_protocol,
		.fw_version = cdev->fw_version,
		.fw_major = cdev->fw.major,
		.fw_minor = cdev->fw.minor,
		.fw_sub_minor = cdev->fw.sub_minor,
		.board_id = cdev->board_id,
		.kernel_db = cdev->db,
		.db_phys = pci_resource_start(cdev->pdev, ORDMA_DB_BAR),
		.num_db_pages = cdev->num_db_pages,
		.num_comp_vectors = cdev->num_comp_eqs,
	};
}
EXPORT_SYMBOL_NS_GPL(ordma_core_get_info, ORDMA);

/* The device stopped working: fail commands from now on, drop the link.
 * Any context that may sleep.
 */
void ordma_device_fatal(struct ordma_core_dev *cdev)
{
	if (test_and_set_bit(ORDMA_STATE_FATAL, &cdev->state))
		return;
	dev_err(ordma_dev(cdev), "device failed: status 0x%08x fatal code %u\n",
		ordma_rd32(cdev, ORDMA_REG_STATUS),
		ordma_rd32(cdev, ORDMA_REG_FATAL_CODE));
	/* A failed device may still be writing somewhere: stop its DMA
	 * before -ENODEV lets the drivers free what it was given.
	 */
	pci_clear_master(cdev->pdev);
	ordma_cmdq_mark_dead(cdev);
	ordma_netdev_device_dead(cdev);
	ordma_events_device_fatal(cdev);
}

/* Device-managed: the mappings and regions go when the driver unbinds. */
static int ordma_map_bars(struct ordma_core_dev *cdev)
{
	struct pci_dev *pdev = cdev->pdev;
	int err;

	if (!(pci_resource_flags(pdev, ORDMA_REG_BAR) & IORESOURCE_MEM) ||
	    pci_resource_len(pdev, ORDMA_REG_BAR) < ORDMA_REG_BAR_SIZE ||
	    !(pci_resource_flags(pdev, ORDMA_DB_BAR) & IORESOURCE_MEM) ||
	    pci_resource_len(pdev, ORDMA_DB_BAR) < ORDMA_DB_PAGE_SIZE) {
		dev_err(&pdev->dev, "unexpected BAR layout\n");
		return -ENODEV;
	}

	err = pcim_request_region(pdev, ORDMA_REG_BAR, ORDMA_DRV_NAME);
	if (err)
		return err;
	err = pcim_request_region(pdev, ORDMA_DB_BAR, ORDMA_DRV_NAME);
	if (err)
		return err;

	cdev->regs = devm_ioremap(&pdev->dev,
				  pci_resource_start(pdev, ORDMA_REG_BAR),
				  ORDMA_REG_BAR_SIZE);
	if (!cdev->regs)
		return -ENOMEM;
	/* Only the kernel's page; the others are for user contexts. */
	cdev->db = devm_ioremap(&pdev->dev,
				pci_resource_start(pdev, ORDMA_DB_BAR),
				ORDMA_DB_PAGE_SIZE);
	if (!cdev->db)
		return -ENOMEM;
	return 0;
}

/* Interface version and timeouts: enough to reset the device */
static int ordma_read_hw_version(struct ordma_core_dev *cdev)
{
	struct device *dev = ordma_dev(cdev);
	u32 version, timeouts, scale;

	version = ordma_rd32(cdev, ORDMA_REG_VERSION);
	if (version == ORDMA_REG_DEAD) {
		dev_err(dev, "device does not respond\n");
		return -ENODEV;
	}
	if (FIELD_GET(ORDMA_VERSION_MAJOR, version) != ORDMA_HW_VERSION_MAJOR) {
		dev_err(dev, "unsupported interface version %lu.%lu\n",
			FIELD_GET(ORDMA_VERSION_MAJOR, version),
			FIELD_GET(ORDMA_VERSION_MINOR, version));
		return -ENODEV;
	}

	timeouts = ordma_rd32(cdev, ORDMA_REG_TIMEOUTS);
	scale = clamp(timeout_scale, 1U, (unsigned int)ORDMA_TIMEOUT_SCALE_MAX);
	cdev->ready_timeout_ms = (FIELD_GET(ORDMA_TIMEOUTS_READY_MS, timeouts) ?:
				  ORDMA_DEFAULT_READY_MS) * scale;
	cdev->cmd_timeout_ms = (FIELD_GET(ORDMA_TIMEOUTS_CMD_MS, timeouts) ?:
				ORDMA_DEFAULT_CMD_MS) * scale;
	dev_dbg(dev, "timeouts: ready %u ms, command %u ms\n",
		cdev->ready_timeout_ms, cdev->cmd_timeout_ms);
	cdev->hw_version = version;
	return 0;
}

/* Limits the driver needs before it builds anything */
static int ordma_read_hw_limits(struct ordma_core_dev *cdev)
{
	struct device *dev = ordma_dev(cdev);
	u32 caps, db_caps, bar_pages;

	caps = ordma_rd32(cdev, ORDMA_REG_CAPS);
	cdev->max_aq_log = FIELD_GET(ORDMA_CAPS_MAX_AQ_LOG, caps);
	cdev->dev_num_vectors = FIELD_GET(ORDMA_CAPS_NUM_VECTORS, caps);
	if (cdev->max_aq_log < ORDMA_AQ_MIN_LOG_DEPTH ||
	    cdev->dev_num_vectors < ORDMA_MIN_VECTORS) {
		dev_err(dev, "unusable capabilities 0x%08x\n", caps);
		return -ENODEV;
	}

	db_caps = ordma_rd32(cdev, ORDMA_REG_DB_CAPS);
	if (FIELD_GET(ORDMA_DB_CAPS_PAGE_SHIFT, db_caps) !=
	    ORDMA_DB_PAGE_SHIFT) {
		dev_err(dev, "unsupported doorbell page shift %lu\n",
			FIELD_GET(ORDMA_DB_CAPS_PAGE_SHIFT, db_caps));
		return -ENODEV;
	}
	bar_pages = pci_resource_len(cdev->pdev, ORDMA_DB_BAR) >>
		    ORDMA_DB_PAGE_SHIFT;
	cdev->num_db_pages = min_t(u32, FIELD_GET(ORDMA_DB_CAPS_NUM_PAGES,
						  db_caps), bar_pages);
	if (!cdev->num_db_pages) {
		dev_err(dev, "no doorbell pages\n");
		return -ENODEV;
	}
	return 0;
}

/* CTRL=0 then RESET: the device forgets every object and stops DMA. */
static int ordma_device_reset(struct ordma_core_dev *cdev)
{
	u64 timeout_us = (u64)cdev->ready_timeout_ms * USEC_PER_MSEC;
	u32 ctrl;
	int err;

	ordma_wr32(cdev, ORDMA_REG_CTRL, 0);
	ordma_wr32(cdev, ORDMA_REG_CTRL, ORDMA_CTRL_RESET);
	err = readl_poll_timeout(cdev->regs + ORDMA_REG_CTRL, ctrl,
				 ctrl == ORDMA_REG_DEAD ||
				 !(ctrl & ORDMA_CTRL_RESET),
				 USEC_PER_MSEC, timeout_us);
	if (err) {
		dev_err(ordma_dev(cdev), "reset did not complete in %u ms\n",
			cdev->ready_timeout_ms);
		return err;
	}
	return ctrl == ORDMA_REG_DEAD ? -ENODEV : 0;
}

static int ordma_device_enable(struct ordma_core_dev *cdev)
{
	u64 timeout_us = (u64)cdev->ready_timeout_ms * USEC_PER_MSEC;
	u32 status;
	int err;

	ordma_wr32(cdev, ORDMA_REG_CTRL, ORDMA_CTRL_ENABLE);
	err = readl_poll_timeout(cdev->regs + ORDMA_REG_STATUS, status,
				 status & (ORDMA_STATUS_READY |
					   ORDMA_STATUS_FATAL),
				 USEC_PER_MSEC, timeout_us);
	if (err) {
		dev_err(ordma_dev(cdev), "device not ready after %u ms\n",
			cdev->ready_timeout_ms);
		return err;
	}
	if (status == ORDMA_REG_DEAD)
		return -ENODEV;
	if (status & ORDMA_STATUS_FATAL) {
		dev_err(ordma_dev(cdev), "enable failed: fatal code %u\n",
			ordma_rd32(cdev, ORDMA_REG_FATAL_CODE));
		return -EIO;
	}
	return 0;
}

static int ordma_alloc_irq_vectors(struct ordma_core_dev *cdev)
{
	/* Spread the completion vectors; vector 0 stays admin + async. */
	struct irq_affinity affd = { .pre_vectors = 1 };
	int max, n;

	max = min_t(int, cdev->dev_num_vectors, num_online_cpus() + 1);
	n = pci_alloc_irq_vectors_affinity(cdev->pdev, ORDMA_MIN_VECTORS, max,
					   PCI_IRQ_MSIX | PCI_IRQ_AFFINITY,
					   &affd);
	if (n < 0) {
		dev_err(ordma_dev(cdev), "cannot allocate MSI-X vectors: %d\n",
			n);
		return n;
	}
	cdev->num_irq_vectors = n;
	return 0;
}

/* NUL-terminated, printable copy of a NUL-padded device string */
static void ordma_copy_ident(char *dst, const u8 *src, size_t len)
{
	size_t i;

	for (i = 0; i < len && src[i]; i++)
		dst[i] = isprint(src[i]) ? src[i] : '?';
	dst[i] = '\0';
}

static int ordma_query_caps(struct ordma_core_dev *cdev)
{
	struct ordma_device_caps *caps = &cdev->caps;
	struct device *dev = ordma_dev(cdev);
	int err;

	err = ordma_cmd_query_fw(cdev, &cdev->fw);
	if (err) {
		dev_err(dev, "QUERY_FW failed: %d\n", err);
		return err;
	}
	snprintf(cdev->fw_version, sizeof(cdev->fw_version), "%u.%u.%u",
		 cdev->fw.major, cdev->fw.minor, cdev->fw.sub_minor);

	err = ordma_cmd_query_device(cdev, caps);
	if (err) {
		dev_err(dev, "QUERY_DEVICE failed: %d\n", err);
		return err;
	}
	if (!le32_to_cpu(caps->num_ports) ||
	    le32_to_cpu(caps->max_eq) < ORDMA_MIN_EQS) {
		dev_err(dev, "unusable device: %u ports, %u EQs\n",
			le32_to_cpu(caps->num_ports), le32_to_cpu(caps->max_eq));
		return -EIO;
	}
	ordma_copy_ident(cdev->serial, caps->serial, sizeof(caps->serial));
	ordma_copy_ident(cdev->board_id, caps->board_id,
			 sizeof(caps->board_id));

	dev_info(dev, "%s interface %lu.%lu, firmware %s build %u, serial %s\n",
		 cdev->board_id[0] ? cdev->board_id : "ORDMA",
		 FIELD_GET(ORDMA_VERSION_MAJOR, cdev->hw_version),
		 FIELD_GET(ORDMA_VERSION_MINOR, cdev->hw_version),
		 cdev->fw_version, cdev->fw.build,
		 cdev->serial[0] ? cdev->serial : "none");
	return 0;
}

/* Stop all device DMA, then free the memory the device was given: the
 * only place it goes, whichever step probe reached.  Each release below
 * accepts state that was never (or only partly) set up.
 */
static void ordma_quiesce_and_free(struct ordma_core_dev *cdev)
{
	ordma_cmdq_mark_dead(cdev);
	ordma_device_reset(cdev);
	pci_clear_master(cdev->pdev);

	ordma_netdev_free(cdev);
	ordma_eqs_free(cdev);
	ordma_cmdq_destroy(cdev);
	pci_free_irq_vectors(cdev->pdev);
	cdev->num_irq_vectors = 0;
}

/* The devlink instance whose private area is the core device */
static struct ordma_core_dev *ordma_cdev_alloc(struct pci_dev *pdev)
{
	struct ordma_core_dev *cdev;
	struct devlink *devlink;

	devlink = ordma_devlink_alloc(&pdev->dev);
	if (!devlink)
		return NULL;
	cdev = devlink_priv(devlink);
	cdev->pdev = pdev;
	cdev->devlink = devlink;
	cdev->rdma_enabled = true;
	cdev->rdma_proto = ORDMA_PORT_PROTO_ROCE;
	spin_lock_init(&cdev->port_lock);
	mutex_init(&cdev->events_lock);
	atomic64_set(&cdev->db_error_events, 0);
	atomic64_set(&cdev->async_events, 0);
	pci_set_drvdata(pdev, cdev);
	return cdev;
}

static void ordma_cdev_free(struct ordma_core_dev *cdev)
{
	mutex_destroy(&cdev->events_lock);
	devlink_free(cdev->devlink);
}

/* Enable the function, map its BARs, read what interface it speaks.
 * Device-managed (pcim_, devm_): nothing to undo on failure.
 */
static int ordma_pci_init(struct ordma_core_dev *cdev)
{
	struct pci_dev *pdev = cdev->pdev;
	int err;

	err = pcim_enable_device(pdev);
	if (err)
		return err;
	err = ordma_map_bars(cdev);
	if (err)
		return err;
	err = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (err) {
		dev_err(&pdev->dev, "no 64-bit DMA: %d\n", err);
		return err;
	}
	return ordma_read_hw_version(cdev);
}

/* Reset the device, give it the admin queue and its interrupt, enable
 * it, read its capabilities and create the event queues.  On failure
 * the device is reset and everything it was given is freed.
 */
static int ordma_device_init(struct ordma_core_dev *cdev)
{
	int err;

	/* From here on the device can be reset, and is on every error. */
	err = ordma_read_hw_limits(cdev);
	if (err)
		goto err_quiesce;
	/* Whatever a previous driver left running stops before we let
	 * the function master the bus.
	 */
	err = ordma_device_reset(cdev);
	if (err)
		goto err_quiesce;
	pci_set_master(cdev->pdev);

	err = ordma_cmdq_init(cdev, ordma_device_fatal);
	if (err)
		goto err_quiesce;
	err = ordma_alloc_irq_vectors(cdev);
	if (err)
		goto err_quiesce;
	err = ordma_admin_irq_request(cdev);
	if (err)
		goto err_admin_irq;
	err = ordma_device_enable(cdev);
	if (err)
		goto err_admin_irq;
	err = ordma_query_caps(cdev);
	if (err)
		goto err_admin_irq;
	err = ordma_eqs_create(cdev);
	if (err)
		goto err_eqs;
	return 0;

err_eqs:
	/* The last admin commands: destroy the EQs while IRQ 0 works. */
	ordma_eqs_destroy(cdev);
err_admin_irq:
	ordma_admin_irq_free(cdev);
err_quiesce:
	ordma_quiesce_and_free(cdev);
	return err;
}

/* Undo ordma_device_init() */
static void ordma_device_fini(struct ordma_core_dev *cdev)
{
	/* The last admin commands: destroy the EQs while IRQ 0 works. */
	ordma_eqs_destroy(cdev);
	ordma_admin_irq_free(cdev);
	ordma_quiesce_and_free(cdev);
}

/*
 * Recovery, devlink reload and Function Level Reset take the function
 * down to a reset device that is not enabled, keeping what does not
 * depend on the device's state: the PCI setup, the MSI-X vectors and the
 * admin interrupt, the admin queue's memory, the netdev (detached) and
 * devlink.  The RDMA auxiliary device goes: its ib_device unregisters,
 * user contexts are disassociated, and a new one registers on start.
 * Called with the devlink instance lock held.
 */
void ordma_core_stop(struct ordma_core_dev *cdev)
{
	devl_assert_locked(cdev->devlink);
	if (cdev->stopped)
		return;
	ordma_health_stop(cdev);
	if (cdev->aux)
		ordma_aux_del(cdev);
	ordma_netdev_suspend(cdev);
	/* The last commands to a device that may still answer them */
	ordma_eqs_destroy(cdev);
	ordma_cmdq_mark_dead(cdev);
	ordma_device_reset(cdev);
	pci_clear_master(cdev->pdev);
	ordma_eqs_free(cdev);
	ordma_netdev_reclaim(cdev);
	ordma_cmdq_restart(cdev);
	cdev->stopped = true;
}

/* Bring a stopped function up again; on failure it is left stopped. */
int ordma_core_start(struct ordma_core_dev *cdev)
{
	int err;

	devl_assert_locked(cdev->devlink);
	if (cdev->removing)
		return -ENODEV;
	if (!cdev->stopped)
		return 0;
	cdev->stopped = false;

	/* Read again: a new firmware may speak a newer minor version. */
	err = ordma_read_hw_version(cdev);
	if (err)
		goto err_stop;
	clear_bit(ORDMA_STATE_FATAL, &cdev->state);
	cdev->fatal_reported = false;
	cdev->heartbeat_reported = false;
	pci_set_master(cdev->pdev);
	/* A Function Level Reset after the stop cleared them. */
	ordma_cmdq_program(cdev);
	err = ordma_device_enable(cdev);
	if (err)
		goto err_stop;
	ordma_cmdq_open(cdev);
	err = ordma_query_caps(cdev);
	if (err)
		goto err_stop;
	err = ordma_eqs_create(cdev);
	if (err)
		goto err_stop;
	err = ordma_netdev_resume(cdev);
	if (err)
		goto err_stop;
	ordma_health_start(cdev);
	err = ordma_rdma_add(cdev);
	if (err) {
		dev_err(ordma_dev(cdev),
			"cannot add the RDMA auxiliary device: %d\n", err);
		goto err_stop;
	}
	return 0;

err_stop:
	ordma_core_stop(cdev);
	return err;
}

/* A full reset of the function under its users: stop, then start. */
int ordma_core_reinit(struct ordma_core_dev *cdev)
{
	unsigned long start = jiffies;
	int err;

	devl_assert_locked(cdev->devlink);
	if (cdev->removing)
		return -ENODEV;
	if (cdev->in_flr)
		return -EBUSY;
	dev_info(ordma_dev(cdev), "resetting the function\n");
	ordma_core_stop(cdev);
	err = ordma_core_start(cdev);
	if (err)
		dev_err(ordma_dev(cdev), "reset failed: %d; the function stays down\n",
			err);
	else
		dev_info(ordma_dev(cdev), "function reset in %u ms\n",
			 jiffies_to_msecs(jiffies - start));
	return err;
}

static int ordma_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct ordma_core_dev *cdev;
	int err;

	cdev = ordma_cdev_alloc(pdev);
	if (!cdev)
		return -ENOMEM;
	err = ordma_pci_init(cdev);
	if (err)
		goto err_free;
	err = ordma_device_init(cdev);
	if (err)
		goto err_free;

	cdev->wq = alloc_ordered_workqueue("ordma-%s", 0, pci_name(pdev));
	if (!cdev->wq) {
		err = -ENOMEM;
		goto err_device;
	}
	err = ordma_netdev_create(cdev);
	if (err)
		goto err_netdev;

	ordma_debugfs_add(cdev);
	err = ordma_health_init(cdev);
	if (err)
		goto err_debugfs;
	err = ordma_rdma_params_register(cdev);
	if (err)
		goto err_params;
	devlink_register(cdev->devlink);
	ordma_health_start(cdev);

	/* the parameters may be set from here on */
	devl_lock(cdev->devlink);
	err = ordma_rdma_add(cdev);
	devl_unlock(cdev->devlink);
	if (err) {
		dev_err(&pdev->dev, "cannot add the RDMA auxiliary device: %d\n",
			err);
		goto err_health;
	}
	return 0;

err_health:
	ordma_health_stop(cdev);
	devlink_unregister(cdev->devlink);
	ordma_rdma_params_unregister(cdev);
err_params:
	ordma_health_fini(cdev);
err_debugfs:
	ordma_debugfs_remove(cdev);
err_netdev:
	ordma_netdev_unregister(cdev);
	destroy_workqueue(cdev->wq);
	cdev->wq = NULL;
err_device:
	ordma_device_fini(cdev);
err_free:
	ordma_cdev_free(cdev);
	return err;
}

/* The probe ladder, from the top */
static void ordma_remove(struct pci_dev *pdev)
{
	struct ordma_core_dev *cdev = pci_get_drvdata(pdev);

	/* No recovery or reload runs now or will start: they hold the
	 * devlink lock throughout and look at removing first.
	 */
	devl_lock(cdev->devlink);
	cdev->removing = true;
	devl_unlock(cdev->devlink);
	ordma_health_stop(cdev);
	/* Its report finds removing set; it takes the devlink lock. */
	ordma_health_cancel_report(cdev);

	devl_lock(cdev->devlink);
	if (cdev->aux)
		ordma_aux_del(cdev);
	devl_unlock(cdev->devlink);
	devlink_unregister(cdev->devlink);
	ordma_rdma_params_unregister(cdev);
	ordma_health_fini(cdev);
	ordma_debugfs_remove(cdev);
	ordma_netdev_unregister(cdev);
	destroy_workqueue(cdev->wq);
	cdev->wq = NULL;
	ordma_device_fini(cdev);
	ordma_cdev_free(cdev);
}

/* Reboot or kexec: only stop the device; nothing needs to be freed. */
static void ordma_shutdown(struct pci_dev *pdev)
{
	struct ordma_core_dev *cdev = pci_get_drvdata(pdev);

	if (!cdev)
		return;
	ordma_health_stop(cdev);
	ordma_netdev_detach(cdev);
	/* DMA stops before a command can fail with -ENODEV. */
	pci_clear_master(pdev);
	ordma_cmdq_mark_dead(cdev);
	ordma_device_reset(cdev);
}

/* Function Level Reset through pci_reset_function(): sysfs "reset",
 * VFIO, or the PCI core.  The device lock is held from prepare to done,
 * so probe and remove cannot run in between; recovery and reload are
 * refused until done.
 */
static void ordma_reset_prepare(struct pci_dev *pdev)
{
	struct ordma_core_dev *cdev = pci_get_drvdata(pdev);

	devl_lock(cdev->devlink);
	cdev->flr_start = jiffies;
	ordma_core_stop(cdev);
	cdev->in_flr = true;
	devl_unlock(cdev->devlink);
}

static void ordma_reset_done(struct pci_dev *pdev)
{
	struct ordma_core_dev *cdev = pci_get_drvdata(pdev);
	int err;

	devl_lock(cdev->devlink);
	cdev->in_flr = false;
	err = ordma_core_start(cdev);
	devl_unlock(cdev->devlink);
	if (err)
		dev_err(&pdev->dev, "function does not restart after its reset: %d\n",
			err);
	else
		dev_info(&pdev->dev, "function reset in %u ms (FLR)\n",
			 jiffies_to_msecs(jiffies - cdev->flr_start));
}

/* No recovery from a PCI channel error: the function stays dead until it
 * is unbound.
 */
static pci_ers_result_t ordma_pci_error_detected(struct pci_dev *pdev,
						 pci_channel_state_t state)
{
	struct ordma_core_dev *cdev = pci_get_drvdata(pdev);

	dev_err(&pdev->dev, "PCI channel error %d\n", state);
	if (cdev)
		ordma_device_fatal(cdev);
	return PCI_ERS_RESULT_DISCONNECT;
}

static const struct pci_error_handlers ordma_pci_err_handlers = {
	.error_detected = ordma_pci_error_detected,
	.reset_prepare = ordma_reset_prepare,
	.reset_done = ordma_reset_done,
};

static struct pci_driver ordma_pci_driver = {
	.name		= ORDMA_DRV_NAME,
	.id_table	= ordma_pci_table,
	.probe		= ordma_probe,
	.remove		= ordma_remove,
	.shutdown	= ordma_shutdown,
	.err_handler	= &ordma_pci_err_handlers,
};

static int __init ordma_init(void)
{
	int err;

	ordma_debugfs_register();
	err = pci_register_driver(&ordma_pci_driver);
	if (err)
		ordma_debugfs_unregister();
	return err;
}

static void __exit ordma_exit(void)
{
	pci_unregister_driver(&ordma_pci_driver);
	ordma_debugfs_unregister();
	ordma_aux_exit();
}

module_init(ordma_init);
module_exit(ordma_exit);

MODULE_DESCRIPTION("ORDMA RoCE RNIC core and Ethernet driver");
MODULE_LICENSE("Dual BSD/GPL");
