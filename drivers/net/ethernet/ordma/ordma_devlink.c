// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* ORDMA devlink: device information and the firmware health reporter.
 *
 * `devlink dev info` shows the serial number and board id the device
 * reports in QUERY_DEVICE and the QUERY_FW firmware version.  The "fw"
 * health reporter is fed by a poller that watches STATUS.FATAL and the
 * HEARTBEAT register, which the firmware advances every 100 ms.
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

static const struct devlink_ops ordma_devlink_ops = {
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
			devlink_health_report(cdev->fw_reporter,
					      status == ORDMA_REG_DEAD ?
					      "device not responding" :
					      "device fatal error", NULL);
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

int ordma_health_init(struct ordma_core_dev *cdev)
{
	struct devlink_health_reporter *reporter;

	INIT_DELAYED_WORK(&cdev->health_work, ordma_health_poll);
	reporter = devlink_health_reporter_create(cdev->devlink,
						  &ordma_fw_reporter_ops, 0,
						  cdev);
	if (IS_ERR(reporter))
		return PTR_ERR(reporter);
	cdev->fw_reporter = reporter;
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

void ordma_health_fini(struct ordma_core_dev *cdev)
{
	if (!cdev->fw_reporter)
		return;
	ordma_health_stop(cdev);
	devlink_health_reporter_destroy(cdev->fw_reporter);
	cdev->fw_reporter = NULL;
}
