// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* ORDMA devlink: device information, reload and the health reporters.
 *
 * `devlink dev info` shows the serial number and board id the device
 * reports in QUERY_DEVICE and the QUERY_FW firmware version.  A poller
 * watches STATUS.FATAL and the HEARTBEAT register, which the firmware
 * advances every 100 ms.  A stopped heartbeat goes to the "fw" reporter,
 * which diagnoses; a fatal device goes to "fw_fatal", which also dumps
 * what the device and the driver last did and recovers by resetting the
 * function (ordma_core_reinit()), by itself unless the previous recovery
 * was less than the grace period ago.  `devlink dev reload` (action
 * driver_reinit) resets the function the same way.
 */

#include <linux/slab.h>
#include <net/devlink.h>

#include "ordma_core.h"

static int ordma_devlink_info_get(struct devlink *devlink,
				  struct devlink_info_req *req,
				  struct netlink_ext_ack *extack)
{
	struct ordma_core_dev *cdev = devlink_priv(devlink);
	int err;

	if (cdev->serial[0]) {
		err = devlink_info_serial_number_put(req, cdev->serial);
		if (err)
			return err;
	}
	if (cdev->board_id[0]) {
		err = devlink_info_version_fixed_put(req,
						     DEVLINK_INFO_VERSION_GENERIC_BOARD_ID,
						     cdev->board_id);
		if (err)
			return err;
	}
	return devlink_info_version_running_put(req,
						DEVLINK_INFO_VERSION_GENERIC_FW,
						cdev->fw_version);
}

static int ordma_devlink_reload_down(struct devlink *devlink,
				     bool netns_change,
				     enum devlink_reload_action action,
				     enum devlink_reload_limit limit,
				     struct netlink_ext_ack *extack)
{
	struct ordma_core_dev *cdev = devlink_priv(devlink);

	if (netns_change) {
		NL_SET_ERR_MSG_MOD(extack,
				   "moving the device to another namespace is not supported");
		return -EOPNOTSUPP;
	}
	if (cdev->in_flr) {
		NL_SET_ERR_MSG_MOD(extack, "a function level reset is running");
		return -EBUSY;
	}
	if (cdev->removing)
		return -ENODEV;
	ordma_core_stop(cdev);
	return 0;
}

static int ordma_devlink_reload_up(struct devlink *devlink,
				   enum devlink_reload_action action,
				   enum devlink_reload_limit limit,
				   u32 *actions_performed,
				   struct netlink_ext_ack *extack)
{
	struct ordma_core_dev *cdev = devlink_priv(devlink);
	int err;

	*actions_performed = BIT(DEVLINK_RELOAD_ACTION_DRIVER_REINIT);
	err = ordma_core_start(cdev);
	if (err)
		NL_SET_ERR_MSG_MOD(extack,
				   "the function did not come up again; see the kernel log");
	return err;
}

static const struct devlink_ops ordma_devlink_ops = {
	.reload_actions = BIT(DEVLINK_RELOAD_ACTION_DRIVER_REINIT),
	.reload_down = ordma_devlink_reload_down,
	.reload_up = ordma_devlink_reload_up,
	.info_get = ordma_devlink_info_get,
};

struct devlink *ordma_devlink_alloc(struct device *dev)
{
	return devlink_alloc(&ordma_devlink_ops, sizeof(struct ordma_core_dev),
			     dev);
}

const char *ordma_health_state_name(u32 state)
{
	switch (state) {
	case ORDMA_HEALTH_OK:
		return "ok";
	case ORDMA_HEALTH_DEGRADED:
		return "degraded";
	case ORDMA_HEALTH_FATAL:
		return "fatal";
	default:
		return "unknown";
	}
}

/* The faults injected into the device, if it counts them and answers */
static void ordma_fw_reporter_faults(struct ordma_core_dev *cdev,
				     struct devlink_fmsg *fmsg)
{
	struct ordma_port_stats *stats;
	unsigned int i, first;

	if (!(le32_to_cpu(cdev->caps.cap_flags) & ORDMA_DEV_CAP_FAULT_INJECT))
		return;
	stats = kzalloc(sizeof(*stats), GFP_KERNEL);
	if (!stats)
		return;
	if (!ordma_cmd_query_stats(cdev, stats)) {
		first = ORDMA_PORT_STAT_INDEX(fault_injected);
		for (i = 0; i < ORDMA_FAULTS; i++)
			devlink_fmsg_u64_pair_put(fmsg,
						  ordma_port_stat_name(first + i),
						  le64_to_cpu(stats->fault_injected[i]));
	}
	kfree(stats);
}

static int ordma_fw_reporter_diagnose(struct devlink_health_reporter *reporter,
				      struct devlink_fmsg *fmsg,
				      struct netlink_ext_ack *extack)
{
	struct ordma_core_dev *cdev = devlink_health_reporter_priv(reporter);
	struct ordma_health_info info;
	int err;

	err = ordma_cmd_health(cdev, &info);
	if (err) {
		/* A dead device still shows its registers. */
		devlink_fmsg_string_pair_put(fmsg, "state", "unavailable");
		devlink_fmsg_u32_pair_put(fmsg, "health_cmd_errno", -err);
	} else {
		devlink_fmsg_string_pair_put(fmsg, "state",
					     ordma_health_state_name(info.state));
		devlink_fmsg_u32_pair_put(fmsg, "heartbeat", info.heartbeat);
		devlink_fmsg_u32_pair_put(fmsg, "cmd_errors", info.cmd_errors);
		devlink_fmsg_u32_pair_put(fmsg, "db_errors", info.db_errors);
		devlink_fmsg_u32_pair_put(fmsg, "eq_overruns",
					  info.eq_overruns);
	}
	devlink_fmsg_u32_pair_put(fmsg, "reg_status",
				  ordma_rd32(cdev, ORDMA_REG_STATUS));
	devlink_fmsg_u32_pair_put(fmsg, "reg_fatal_code",
				  ordma_rd32(cdev, ORDMA_REG_FATAL_CODE));
	devlink_fmsg_u32_pair_put(fmsg, "reg_heartbeat",
				  ordma_rd32(cdev, ORDMA_REG_HEARTBEAT));
	ordma_fw_reporter_faults(cdev, fmsg);
	return 0;
}

static const struct devlink_health_reporter_ops ordma_fw_reporter_ops = {
	.name = "fw",
	.diagnose = ordma_fw_reporter_diagnose,
};

/* Every readable register, as the device shows them now */
static const struct {
	const char *name;
	u32 offset;
} ordma_dump_regs[] = {
	{ "VERSION",	ORDMA_REG_VERSION },
	{ "CAPS",	ORDMA_REG_CAPS },
	{ "DB_CAPS",	ORDMA_REG_DB_CAPS },
	{ "TIMEOUTS",	ORDMA_REG_TIMEOUTS },
	{ "CTRL",	ORDMA_REG_CTRL },
	{ "STATUS",	ORDMA_REG_STATUS },
	{ "FATAL_CODE",	ORDMA_REG_FATAL_CODE },
	{ "HEARTBEAT",	ORDMA_REG_HEARTBEAT },
	{ "AQ_BASE_LO",	ORDMA_REG_AQ_BASE_LO },
	{ "AQ_BASE_HI",	ORDMA_REG_AQ_BASE_HI },
	{ "ACQ_BASE_LO", ORDMA_REG_ACQ_BASE_LO },
	{ "ACQ_BASE_HI", ORDMA_REG_ACQ_BASE_HI },
	{ "AQ_CFG",	ORDMA_REG_AQ_CFG },
};

static void ordma_dump_admin_queue(struct ordma_core_dev *cdev,
				   struct devlink_fmsg *fmsg)
{
	struct ordma_cmdq *q = &cdev->cmdq;
	struct ordma_cmd_record *recs;
	unsigned int i, n;

	devlink_fmsg_pair_nest_start(fmsg, "admin_queue");
	devlink_fmsg_obj_nest_start(fmsg);
	devlink_fmsg_bool_pair_put(fmsg, "dead", READ_ONCE(q->dead));
	devlink_fmsg_u32_pair_put(fmsg, "producer", READ_ONCE(q->pi));
	devlink_fmsg_u32_pair_put(fmsg, "timeouts", READ_ONCE(q->timeouts));
	devlink_fmsg_u32_pair_put(fmsg, "late_completions",
				  READ_ONCE(q->late_completions));
	devlink_fmsg_u32_pair_put(fmsg, "stray_completions",
				  READ_ONCE(q->stray_completions));
	devlink_fmsg_obj_nest_end(fmsg);
	devlink_fmsg_pair_nest_end(fmsg);

	recs = kcalloc(ORDMA_CMD_HISTORY, sizeof(*recs), GFP_KERNEL);
	if (!recs)
		return;
	n = ordma_cmdq_history(cdev, recs);
	devlink_fmsg_arr_pair_nest_start(fmsg, "last_admin_commands");
	for (i = 0; i < n; i++) {
		devlink_fmsg_obj_nest_start(fmsg);
		devlink_fmsg_u8_pair_put(fmsg, "opcode", recs[i].opcode);
		devlink_fmsg_u32_pair_put(fmsg, "token", recs[i].token);
		devlink_fmsg_u8_pair_put(fmsg, "status", recs[i].status);
		devlink_fmsg_u32_pair_put(fmsg, "errno", -recs[i].err);
		devlink_fmsg_u64_pair_put(fmsg, "submitted_ns",
					  recs[i].start_ns);
		devlink_fmsg_u32_pair_put(fmsg, "duration_us",
					  recs[i].duration_us);
		devlink_fmsg_obj_nest_end(fmsg);
	}
	devlink_fmsg_arr_pair_nest_end(fmsg);
	kfree(recs);
}

/* What the device and the driver last did: the registers, the admin
 * queue's state and its last commands.  Readable from a dead device.
 */
static int ordma_fw_fatal_reporter_dump(struct devlink_health_reporter *reporter,
					struct devlink_fmsg *fmsg,
					void *priv_ctx,
					struct netlink_ext_ack *extack)
{
	struct ordma_core_dev *cdev = devlink_health_reporter_priv(reporter);
	unsigned int i;

	devlink_fmsg_pair_nest_start(fmsg, "registers");
	devlink_fmsg_obj_nest_start(fmsg);
	for (i = 0; i < ARRAY_SIZE(ordma_dump_regs); i++)
		devlink_fmsg_u32_pair_put(fmsg, ordma_dump_regs[i].name,
					  ordma_rd32(cdev,
						     ordma_dump_regs[i].offset));
	devlink_fmsg_obj_nest_end(fmsg);
	devlink_fmsg_pair_nest_end(fmsg);
	devlink_fmsg_bool_pair_put(fmsg, "declared_fatal",
				   test_bit(ORDMA_STATE_FATAL, &cdev->state));
	ordma_dump_admin_queue(cdev, fmsg);
	return 0;
}

static int ordma_fw_fatal_reporter_recover(struct devlink_health_reporter *reporter,
					   void *priv_ctx,
					   struct netlink_ext_ack *extack)
{
	struct ordma_core_dev *cdev = devlink_health_reporter_priv(reporter);
	int err;

	err = ordma_core_reinit(cdev);
	if (err)
		NL_SET_ERR_MSG_MOD(extack,
				   "the function did not come up again; see the kernel log");
	return err;
}

static const struct devlink_health_reporter_ops ordma_fw_fatal_reporter_ops = {
	.name = "fw_fatal",
	.diagnose = ordma_fw_reporter_diagnose,
	.dump = ordma_fw_fatal_reporter_dump,
	.recover = ordma_fw_fatal_reporter_recover,
};

/* Not from the poller: recovery stops the poller, waiting for it. */
static void ordma_fatal_report_work(struct work_struct *work)
{
	struct ordma_core_dev *cdev =
		container_of(work, struct ordma_core_dev, fatal_report_work);

	devlink_health_report(cdev->fw_fatal_reporter,
			      "device fatal error", NULL);
}

static void ordma_health_poll(struct work_struct *work)
{
	struct ordma_core_dev *cdev =
		container_of(to_delayed_work(work), struct ordma_core_dev,
			     health_work);
	u32 status, heartbeat;

	status = ordma_rd32(cdev, ORDMA_REG_STATUS);
	if (status == ORDMA_REG_DEAD || (status & ORDMA_STATUS_FATAL)) {
		if (!cdev->fatal_reported) {
			cdev->fatal_reported = true;
			ordma_device_fatal(cdev);
			queue_work(cdev->wq, &cdev->fatal_report_work);
		}
		/* Sticky until reset: nothing left to watch. */
		return;
	}

	heartbeat = ordma_rd32(cdev, ORDMA_REG_HEARTBEAT);
	if (heartbeat == cdev->last_heartbeat) {
		if (++cdev->heartbeat_stalls >= ORDMA_HEARTBEAT_STALL_POLLS &&
		    !cdev->heartbeat_reported) {
			cdev->heartbeat_reported = true;
			dev_err(ordma_dev(cdev),
				"firmware heartbeat stopped at %u\n", heartbeat);
			devlink_health_report(cdev->fw_reporter,
					      "firmware heartbeat stopped",
					      NULL);
		}
	} else {
		if (cdev->heartbeat_reported) {
			dev_info(ordma_dev(cdev), "firmware heartbeat resumed\n");
			devlink_health_reporter_state_update(cdev->fw_reporter,
							     DEVLINK_HEALTH_REPORTER_STATE_HEALTHY);
		}
		cdev->heartbeat_reported = false;
		cdev->heartbeat_stalls = 0;
		cdev->last_heartbeat = heartbeat;
	}

	queue_delayed_work(cdev->wq, &cdev->health_work,
			   msecs_to_jiffies(ORDMA_HEALTH_POLL_MS));
}

/* Automatic recovery again only this long after the previous one */
#define ORDMA_FW_FATAL_GRACE_MS		60000

int ordma_health_init(struct ordma_core_dev *cdev)
{
	struct devlink_health_reporter *reporter;

	INIT_DELAYED_WORK(&cdev->health_work, ordma_health_poll);
	INIT_WORK(&cdev->fatal_report_work, ordma_fatal_report_work);
	reporter = devlink_health_reporter_create(cdev->devlink,
						  &ordma_fw_reporter_ops, 0,
						  cdev);
	if (IS_ERR(reporter))
		return PTR_ERR(reporter);
	cdev->fw_reporter = reporter;

	reporter = devlink_health_reporter_create(cdev->devlink,
						  &ordma_fw_fatal_reporter_ops,
						  ORDMA_FW_FATAL_GRACE_MS,
						  cdev);
	if (IS_ERR(reporter)) {
		devlink_health_reporter_destroy(cdev->fw_reporter);
		cdev->fw_reporter = NULL;
		return PTR_ERR(reporter);
	}
	cdev->fw_fatal_reporter = reporter;
	return 0;
}

void ordma_health_start(struct ordma_core_dev *cdev)
{
	cdev->last_heartbeat = ordma_rd32(cdev, ORDMA_REG_HEARTBEAT);
	cdev->heartbeat_stalls = 0;
	queue_delayed_work(cdev->wq, &cdev->health_work,
			   msecs_to_jiffies(ORDMA_HEALTH_POLL_MS));
}

/* Before devlink_unregister(): the poller's reports and state updates
 * notify through the devlink instance, which must still be registered.
 */
void ordma_health_stop(struct ordma_core_dev *cdev)
{
	if (cdev->fw_reporter)
		cancel_delayed_work_sync(&cdev->health_work);
}

/* Without the devlink lock: the report may be taking it to recover. */
void ordma_health_cancel_report(struct ordma_core_dev *cdev)
{
	if (cdev->fw_reporter)
		cancel_work_sync(&cdev->fatal_report_work);
}

void ordma_health_fini(struct ordma_core_dev *cdev)
{
	if (!cdev->fw_reporter)
		return;
	ordma_health_stop(cdev);
	ordma_health_cancel_report(cdev);
	devlink_health_reporter_destroy(cdev->fw_fatal_reporter);
	cdev->fw_fatal_reporter = NULL;
	devlink_health_reporter_destroy(cdev->fw_reporter);
	cdev->fw_reporter = NULL;
}
