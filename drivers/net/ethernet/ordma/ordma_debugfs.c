// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* ORDMA debugfs, /sys/kernel/debug/ordma/<pci name>/:
 *
 *   regs       BAR0 registers, one "NAME = 0x%08x" line each
 *   health     HEALTH command result, health registers, driver counters
 *   resources  QUERY_RESOURCES: "TYPE IN_USE MAX" per object type
 *   admin_cmd  raw admin command passthrough for bring-up tools, only
 *              with CONFIG_ORDMA_DEBUG_RAW_CMD
 *   fault_inject  write "KIND [COUNT [ARG]]" to arm one of the device's
 *              faults (INJECT_FAULT): dma_read, dma_write, admin_drop,
 *              msix_drop, fatal, heartbeat_stuck, admin_delay (ARG:
 *              ms); COUNT defaults to 1
 */

#include <linux/capability.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "ordma_core.h"

static struct dentry *ordma_debugfs_root;

/* Every readable register; AQ_DB is write-only.  The fw_fatal dump
 * shows them too.
 */
const struct debugfs_reg32 ordma_readable_regs[] = {
	{ "VERSION",		ORDMA_REG_VERSION },
	{ "CAPS",		ORDMA_REG_CAPS },
	{ "DB_CAPS",		ORDMA_REG_DB_CAPS },
	{ "TIMEOUTS",		ORDMA_REG_TIMEOUTS },
	{ "CTRL",		ORDMA_REG_CTRL },
	{ "STATUS",		ORDMA_REG_STATUS },
	{ "FATAL_CODE",		ORDMA_REG_FATAL_CODE },
	{ "HEARTBEAT",		ORDMA_REG_HEARTBEAT },
	{ "AQ_BASE_LO",		ORDMA_REG_AQ_BASE_LO },
	{ "AQ_BASE_HI",		ORDMA_REG_AQ_BASE_HI },
	{ "ACQ_BASE_LO",	ORDMA_REG_ACQ_BASE_LO },
	{ "ACQ_BASE_HI",	ORDMA_REG_ACQ_BASE_HI },
	{ "AQ_CFG",		ORDMA_REG_AQ_CFG },
	{ "SCRATCH",		ORDMA_REG_SCRATCH },
	{ "EVENT_LOG_COUNT",	ORDMA_REG_EVENT_LOG_COUNT },
};

const unsigned int ordma_num_readable_regs = ARRAY_SIZE(ordma_readable_regs);

static int ordma_health_show(struct seq_file *s, void *unused)
{
	struct ordma_core_dev *cdev = s->private;
	struct ordma_cmdq *q = &cdev->cmdq;
	struct ordma_health_info info;
	int err;

	err = ordma_cmd_health(cdev, &info);
	seq_printf(s, "health_cmd %d\n", err);
	if (!err) {
		seq_printf(s, "state %s\n", ordma_health_state_name(info.state));
		seq_printf(s, "heartbeat %u\n", info.heartbeat);
		seq_printf(s, "cmd_errors %u\n", info.cmd_errors);
		seq_printf(s, "db_errors %u\n", info.db_errors);
		seq_printf(s, "eq_overruns %u\n", info.eq_overruns);
	}
	seq_printf(s, "reg_status 0x%08x\n", ordma_rd32(cdev, ORDMA_REG_STATUS));
	seq_printf(s, "reg_fatal_code %u\n",
		   ordma_rd32(cdev, ORDMA_REG_FATAL_CODE));
	seq_printf(s, "reg_heartbeat %u\n",
		   ordma_rd32(cdev, ORDMA_REG_HEARTBEAT));
	seq_printf(s, "drv_cmd_timeouts %u\n", READ_ONCE(q->timeouts));
	seq_printf(s, "drv_cmd_late_completions %u\n",
		   READ_ONCE(q->late_completions));
	seq_printf(s, "drv_cmd_stray_completions %u\n",
		   READ_ONCE(q->stray_completions));
	seq_printf(s, "drv_async_events %lld\n",
		   (long long)atomic64_read(&cdev->async_events));
	seq_printf(s, "drv_db_error_events %lld\n",
		   (long long)atomic64_read(&cdev->db_error_events));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ordma_health);

#define ORDMA_RES(name) { #name, offsetof(struct ordma_resources, name) }

static const struct {
	const char *name;
	size_t offset;
} ordma_debugfs_res[] = {
	ORDMA_RES(uctx),
	ORDMA_RES(pd),
	ORDMA_RES(eq),
	ORDMA_RES(eth_ring),
	ORDMA_RES(gid),
	ORDMA_RES(cq),
	ORDMA_RES(qp),
	ORDMA_RES(srq),
	ORDMA_RES(mr),
	ORDMA_RES(mw),
	ORDMA_RES(ah),
	ORDMA_RES(mcast_grp),
	ORDMA_RES(mcast_attach),
};

static_assert(ARRAY_SIZE(ordma_debugfs_res) * sizeof(struct ordma_res_count) ==
	      sizeof(struct ordma_resources));

/* The device's own count of the objects it holds, for leak checks: a
 * failed query fails the read rather than showing numbers.
 */
static int ordma_resources_show(struct seq_file *s, void *unused)
{
	struct ordma_core_dev *cdev = s->private;
	const struct ordma_res_count *c;
	struct ordma_resources res;
	u32 i;
	int err;

	err = ordma_cmd_query_resources(cdev, &res);
	if (err)
		return err;
	for (i = 0; i < ARRAY_SIZE(ordma_debugfs_res); i++) {
		c = (const void *)((const u8 *)&res +
				 ordma_debugfs_res[i].offset);
		seq_printf(s, "%s %u %u\n", ordma_debugfs_res[i].name,
			   le32_to_cpu(c->in_use), le32_to_cpu(c->max));
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ordma_resources);

#if IS_ENABLED(CONFIG_ORDMA_DEBUG_RAW_CMD)
/* admin_cmd: write() exactly one 64-byte struct ordma_aq_cmd; it runs
 * synchronously and the driver replaces hdr.token with its own.  read()
 * then returns the 32-byte struct ordma_aq_comp of the last command
 * written through this open file (whatever its status), once per write.
 * write() fails with -EINVAL for any other size and with -ETIMEDOUT or
 * -ENODEV when no completion came back.
 *
 * Root only, for bring-up: the payload is passed through uninterpreted,
 * including DMA addresses, so a writer can make the device read or write
 * any memory the IOMMU (if any) lets it reach, or destroy objects the
 * driver owns.  Nothing else may depend on this file.
 */
struct ordma_admin_file {
	struct ordma_core_dev *cdev;
	struct mutex lock;	/* one command at a time per open file */
	struct ordma_aq_comp comp;
	bool have_comp;
};

static int ordma_admin_open(struct inode *inode, struct file *file)
{
	struct ordma_admin_file *af;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;

	af = kzalloc(sizeof(*af), GFP_KERNEL);
	if (!af)
		return -ENOMEM;
	af->cdev = inode->i_private;
	mutex_init(&af->lock);
	file->private_data = af;
	return 0;
}

static int ordma_admin_release(struct inode *inode, struct file *file)
{
	struct ordma_admin_file *af = file->private_data;

	mutex_destroy(&af->lock);
	kfree(af);
	return 0;
}

static ssize_t ordma_admin_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	struct ordma_admin_file *af = file->private_data;
	struct ordma_aq_comp comp;
	struct ordma_aq_cmd cmd;
	int err;

	if (count != sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(&cmd, ubuf, sizeof(cmd)))
		return -EFAULT;

	err = mutex_lock_killable(&af->lock);
	if (err)
		return err;
	err = ordma_cmdq_exec(af->cdev, &cmd, &comp, NULL);
	if (!err) {
		af->comp = comp;
		af->have_comp = true;
		/* The next read() returns this completion. */
		*ppos = 0;
	}
	mutex_unlock(&af->lock);

	return err ? err : count;
}

static ssize_t ordma_admin_read(struct file *file, char __user *ubuf,
				size_t count, loff_t *ppos)
{
	struct ordma_admin_file *af = file->private_data;
	ssize_t ret;

	ret = mutex_lock_killable(&af->lock);
	if (ret)
		return ret;

	if (!af->have_comp)
		ret = -ENODATA;
	else if (*ppos >= sizeof(af->comp))
		ret = 0;
	else if (*ppos || count < sizeof(af->comp))
		ret = -EINVAL;	/* a completion is read whole */
	else if (copy_to_user(ubuf, &af->comp, sizeof(af->comp)))
		ret = -EFAULT;
	else
		ret = sizeof(af->comp);

	if (ret > 0)
		*ppos = ret;
	mutex_unlock(&af->lock);
	return ret;
}

static const struct file_operations ordma_admin_fops = {
	.owner = THIS_MODULE,
	.open = ordma_admin_open,
	.release = ordma_admin_release,
	.read = ordma_admin_read,
	.write = ordma_admin_write,
	.llseek = default_llseek,
};

static void ordma_debugfs_add_admin_cmd(struct ordma_core_dev *cdev,
					struct dentry *dir)
{
	debugfs_create_file("admin_cmd", 0600, dir, cdev, &ordma_admin_fops);
}
#else
static void ordma_debugfs_add_admin_cmd(struct ordma_core_dev *cdev,
					struct dentry *dir)
{
}
#endif /* CONFIG_ORDMA_DEBUG_RAW_CMD */

static const char *const ordma_fault_names[ORDMA_FAULTS] = {
	[ORDMA_FAULT_DMA_READ]		= "dma_read",
	[ORDMA_FAULT_DMA_WRITE]		= "dma_write",
	[ORDMA_FAULT_ADMIN_DROP]	= "admin_drop",
	[ORDMA_FAULT_MSIX_DROP]		= "msix_drop",
	[ORDMA_FAULT_FATAL]		= "fatal",
	[ORDMA_FAULT_HEARTBEAT_STUCK]	= "heartbeat_stuck",
	[ORDMA_FAULT_ADMIN_DELAY]	= "admin_delay",
};

static ssize_t ordma_fault_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	struct ordma_core_dev *cdev = file->private_data;
	u32 times = 1, arg = 0;
	char buf[64], kind[24];
	int fault, n, err;

	if (!count || count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	n = sscanf(buf, "%23s %u %u", kind, &times, &arg);
	if (n < 1)
		return -EINVAL;
	fault = match_string(ordma_fault_names, ARRAY_SIZE(ordma_fault_names),
			     kind);
	if (fault < 0)
		return fault;
	err = ordma_cmd_inject_fault(cdev, fault, times, arg);
	if (err)
		return err;
	dev_info(ordma_dev(cdev), "fault injected: %s count %u arg %u\n",
		 kind, times, arg);
	return count;
}

static const struct file_operations ordma_fault_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = ordma_fault_write,
	.llseek = noop_llseek,
};

void ordma_debugfs_register(void)
{
	ordma_debugfs_root = debugfs_create_dir("ordma", NULL);
}

void ordma_debugfs_unregister(void)
{
	debugfs_remove_recursive(ordma_debugfs_root);
	ordma_debugfs_root = NULL;
}

void ordma_debugfs_add(struct ordma_core_dev *cdev)
{
	struct dentry *dir;

	dir = debugfs_create_dir(pci_name(cdev->pdev), ordma_debugfs_root);
	cdev->debugfs = dir;
	cdev->regset.regs = ordma_readable_regs;
	cdev->regset.nregs = ordma_num_readable_regs;
	cdev->regset.base = cdev->regs;
	debugfs_create_regset32("regs", 0400, dir, &cdev->regset);
	debugfs_create_file("health", 0400, dir, cdev, &ordma_health_fops);
	debugfs_create_file("resources", 0400, dir, cdev,
			    &ordma_resources_fops);
	debugfs_create_file("fault_inject", 0200, dir, cdev,
			    &ordma_fault_fops);
	ordma_debugfs_add_admin_cmd(cdev, dir);
}

/* Waits for readers and writers still inside the files. */
void ordma_debugfs_remove(struct ordma_core_dev *cdev)
{
	debugfs_remove_recursive(cdev->debugfs);
	cdev->debugfs = NULL;
}
