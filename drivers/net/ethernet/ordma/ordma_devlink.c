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
 *
 * A device with ORDMA_DEV_CAP_FLASH takes firmware images through
 * `devlink dev flash` into the flash slot that does not run, and runs
 * them from the reset of `devlink dev reload action fw_activate`.
 */

#include <linux/firmware.h>
#include <linux/minmax.h>
#include <linux/ordma/ordma_image.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/devlink.h>

#include "ordma_core.h"

static bool ordma_has_flash(struct ordma_core_dev *cdev)
{
	return le32_to_cpu(cdev->caps.cap_flags) & ORDMA_DEV_CAP_FLASH;
}

/* "X.Y.Z" of a flash slot holding a valid image; false for any other */
static bool ordma_flash_slot_version(const struct ordma_flash_info *info,
				     u32 slot, char *buf, size_t len)
{
	const struct ordma_flash_slot_info *si;

	if (slot >= ARRAY_SIZE(info->slot))
		return false;
	si = &info->slot[slot];
	if (le32_to_cpu(si->state) != ORDMA_FLASH_SLOT_VALID)
		return false;
	snprintf(buf, len, "%u.%u.%u", le16_to_cpu(si->fw_major),
		 le16_to_cpu(si->fw_minor), le16_to_cpu(si->fw_sub_minor));
	return true;
}

/* The image the device runs after its next reset: the pending one if
 * there is one, otherwise the running one.
 */
static bool ordma_flash_stored_version(const struct ordma_flash_info *info,
				       char *buf, size_t len)
{
	u32 pending = le32_to_cpu(info->pending);

	if (pending != ORDMA_FLASH_NO_SLOT)
		return ordma_flash_slot_version(info, pending, buf, len);
	return ordma_flash_slot_version(info, le32_to_cpu(info->running),
					buf, len);
}

static int ordma_devlink_info_get(struct devlink *devlink,
				  struct devlink_info_req *req,
				  struct netlink_ext_ack *extack)
{
	struct ordma_core_dev *cdev = devlink_priv(devlink);
	struct ordma_flash_info flash;
	char stored[32];
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
	err = devlink_info_version_running_put(req,
					       DEVLINK_INFO_VERSION_GENERIC_FW,
					       cdev->fw_version);
	if (err)
		return err;

	/* A device that does not answer still shows what it ran. */
	if (!ordma_has_flash(cdev) || ordma_cmd_query_flash(cdev, &flash) ||
	    !ordma_flash_stored_version(&flash, stored, sizeof(stored)))
		return 0;
	return devlink_info_version_stored_put(req,
					       DEVLINK_INFO_VERSION_GENERIC_FW,
					       stored);
}

/* FLASH_COMMIT's BAD_PARAM syndrome: why the device refused the image */
static const char * const ordma_image_error_text[ORDMA_IMAGE_ERRORS] = {
	[ORDMA_IMAGE_TRUNCATED]		= "image is truncated",
	[ORDMA_IMAGE_BAD_MAGIC]		= "not a firmware image (bad magic)",
	[ORDMA_IMAGE_BAD_FORMAT]	= "unknown image format",
	[ORDMA_IMAGE_BAD_HEADER]	= "malformed image header",
	[ORDMA_IMAGE_TOO_LARGE]		= "image is too large",
	[ORDMA_IMAGE_BAD_SIG_TYPE]	= "unknown signature type",
	[ORDMA_IMAGE_UNKNOWN_KEY]	= "signed with an unknown key",
	[ORDMA_IMAGE_BAD_SIGNATURE]	= "signature does not verify",
	[ORDMA_IMAGE_WRONG_BOARD]	= "image is for another board",
	[ORDMA_IMAGE_BAD_ABI]		= "entry table version not supported",
	[ORDMA_IMAGE_BAD_INTERFACE]	= "interface version not supported",
	[ORDMA_IMAGE_BAD_ARGUMENT]	= "invalid argument",
	[ORDMA_IMAGE_NO_MEMORY]		= "out of memory",
	[ORDMA_IMAGE_CRYPTO_FAILED]	= "signature check failed to run",
	[ORDMA_FLASH_TRUNCATED]		= "flash header is truncated",
	[ORDMA_FLASH_BAD_MAGIC]		= "flash header has a bad magic",
	[ORDMA_FLASH_BAD_FORMAT]	= "unknown flash format",
	[ORDMA_FLASH_BAD_HEADER]	= "malformed flash header",
	[ORDMA_FLASH_BAD_SLOT_SIZE]	= "bad flash slot size",
	[ORDMA_FLASH_BAD_ACTIVE]	= "bad active flash slot",
	[ORDMA_FLASH_BAD_PENDING]	= "bad pending flash slot",
	[ORDMA_FLASH_BAD_IMAGE_SIZE]	= "image does not fit a flash slot",
};

static const char *ordma_image_error_name(u32 err)
{
	if (err < ARRAY_SIZE(ordma_image_error_text) &&
	    ordma_image_error_text[err])
		return ordma_image_error_text[err];
	return "unknown reason";
}

/* The header checks the driver can make itself: the device makes them
 * again, but refusing here costs no transfer and names the mismatch.
 */
static int ordma_image_check(struct ordma_core_dev *cdev,
			     const struct firmware *fw,
			     struct netlink_ext_ack *extack)
{
	const struct ordma_image_header *hdr = (const void *)fw->data;
	const char *board = (const char *)hdr->board_id;
	u64 payload, expected;
	size_t board_len;

	if (fw->size < sizeof(*hdr)) {
		NL_SET_ERR_MSG_FMT_MOD(extack,
				       "image is truncated: %zu bytes", fw->size);
		return -EINVAL;
	}
	if (memcmp(hdr->magic, ORDMA_IMAGE_MAGIC, ORDMA_IMAGE_MAGIC_LEN)) {
		NL_SET_ERR_MSG_MOD(extack, "not an ORDMA firmware image (bad magic)");
		return -EINVAL;
	}
	if (le32_to_cpu(hdr->format) != ORDMA_IMAGE_FORMAT) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "unknown image format %u",
				       le32_to_cpu(hdr->format));
		return -EINVAL;
	}
	if (le32_to_cpu(hdr->header_size) != sizeof(*hdr)) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "bad image header size %u",
				       le32_to_cpu(hdr->header_size));
		return -EINVAL;
	}
	payload = le64_to_cpu(hdr->payload_size);
	if (payload > ORDMA_IMAGE_MAX_PAYLOAD) {
		NL_SET_ERR_MSG_FMT_MOD(extack,
				       "image payload of %llu bytes exceeds %u",
				       payload, ORDMA_IMAGE_MAX_PAYLOAD);
		return -EINVAL;
	}
	expected = ORDMA_IMAGE_SIZE(payload);
	if (fw->size < expected) {
		NL_SET_ERR_MSG_FMT_MOD(extack,
				       "image is truncated: %zu of %llu bytes",
				       fw->size, expected);
		return -EINVAL;
	}
	if (fw->size > expected) {
		NL_SET_ERR_MSG_FMT_MOD(extack,
				       "image has %zu bytes, its header says %llu",
				       fw->size, expected);
		return -EINVAL;
	}
	board_len = strnlen(board, sizeof(hdr->board_id));
	if (board_len == sizeof(hdr->board_id)) {
		NL_SET_ERR_MSG_MOD(extack, "image board id is not terminated");
		return -EINVAL;
	}
	if (strcmp(board, cdev->board_id)) {
		NL_SET_ERR_MSG_FMT_MOD(extack,
				       "image is for board %.15s, this adapter is %s",
				       board_len ? board : "(none)",
				       cdev->board_id[0] ? cdev->board_id : "(none)");
		return -EINVAL;
	}
	/* Any minor of the major this driver speaks is compatible. */
	if (le16_to_cpu(hdr->if_major) != ORDMA_HW_VERSION_MAJOR) {
		NL_SET_ERR_MSG_FMT_MOD(extack,
				       "image is for interface %u.%u; the driver speaks %u.x",
				       le16_to_cpu(hdr->if_major),
				       le16_to_cpu(hdr->if_minor),
				       ORDMA_HW_VERSION_MAJOR);
		return -EINVAL;
	}
	return 0;
}

/* Progress notifications at least this often */
#define ORDMA_FLASH_NOTIFY_BYTES	(64 * 1024)

static int ordma_devlink_flash_update(struct devlink *devlink,
				      struct devlink_flash_update_params *params,
				      struct netlink_ext_ack *extack)
{
	struct ordma_core_dev *cdev = devlink_priv(devlink);
	const struct firmware *fw = params->fw;
	size_t done = 0, notified = 0;
	u32 chunk, syndrome;
	int err;

	/* Held by the devlink core: a reload cannot reset the function
	 * between two parts of the image.
	 */
	devl_assert_locked(devlink);

	if (params->component) {
		NL_SET_ERR_MSG_MOD(extack, "the device has no flash components");
		return -EOPNOTSUPP;
	}
	if (!ordma_has_flash(cdev)) {
		NL_SET_ERR_MSG_MOD(extack, "the device firmware cannot be updated");
		return -EOPNOTSUPP;
	}
	if (cdev->stopped || cdev->in_flr || cdev->removing) {
		NL_SET_ERR_MSG_MOD(extack, "the function is down");
		return -EBUSY;
	}
	err = ordma_image_check(cdev, fw, extack);
	if (err)
		return err;

	devlink_flash_update_status_notify(devlink, "Writing", NULL, 0,
					   fw->size);
	while (done < fw->size) {
		chunk = min_t(size_t, fw->size - done, ORDMA_AQ_MAX_BUF);
		err = ordma_cmd_flash_write(cdev, fw->data + done, chunk, done);
		if (err) {
			NL_SET_ERR_MSG_FMT_MOD(extack,
					       "image write failed at byte %zu: %d",
					       done, err);
			return err;
		}
		done += chunk;
		if (done - notified >= ORDMA_FLASH_NOTIFY_BYTES ||
		    done == fw->size) {
			devlink_flash_update_status_notify(devlink, "Writing",
							   NULL, done,
							   fw->size);
			notified = done;
		}
	}

	devlink_flash_update_status_notify(devlink, "Verifying", NULL, 0, 0);
	err = ordma_cmd_flash_commit(cdev, fw->size, &syndrome);
	if (err == -EINVAL && syndrome != ORDMA_IMAGE_OK) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "the device refused the image: %s",
				       ordma_image_error_name(syndrome));
		return err;
	}
	if (err) {
		NL_SET_ERR_MSG_FMT_MOD(extack,
				       "committing the image failed: %d",
				       err);
		return err;
	}
	devlink_flash_update_status_notify(devlink, "Flashing done", NULL, 0, 0);
	return 0;
}

/* Ask the device to run the pending image from the reset that stopping
 * the function makes.
 */
static int ordma_fw_activate_down(struct ordma_core_dev *cdev,
				  struct netlink_ext_ack *extack)
{
	struct ordma_flash_info flash;
	int err;

	if (!ordma_has_flash(cdev)) {
		NL_SET_ERR_MSG_MOD(extack, "the device firmware cannot be updated");
		return -EOPNOTSUPP;
	}
	err = ordma_cmd_query_flash(cdev, &flash);
	if (err) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "cannot read the flash state: %d",
				       err);
		return err;
	}
	if (le32_to_cpu(flash.pending) == ORDMA_FLASH_NO_SLOT) {
		NL_SET_ERR_MSG_MOD(extack,
				   "no firmware image is pending activation; flash one first");
		return -EINVAL;
	}
	err = ordma_cmd_fw_activate(cdev);
	if (err) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "FW_ACTIVATE failed: %d", err);
		return err;
	}
	strscpy(cdev->fw_version_before, cdev->fw_version);
	ordma_core_stop(cdev);
	return 0;
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
	if (action == DEVLINK_RELOAD_ACTION_FW_ACTIVATE)
		return ordma_fw_activate_down(cdev, extack);
	ordma_core_stop(cdev);
	return 0;
}

/* The function is up again; tell whether it runs the new image. */
static int ordma_fw_activate_up(struct ordma_core_dev *cdev,
				struct netlink_ext_ack *extack)
{
	struct ordma_flash_info flash;
	int err;

	/* The image that runs now may lack the capability. */
	if (ordma_has_flash(cdev)) {
		err = ordma_cmd_query_flash(cdev, &flash);
		if (err) {
			NL_SET_ERR_MSG_FMT_MOD(extack,
					       "cannot read the flash state after the activation: %d",
					       err);
			return err;
		}
		if (le32_to_cpu(flash.activation) ==
		    ORDMA_FLASH_ACTIVATION_ROLLED_BACK) {
			dev_warn(ordma_dev(cdev),
				 "new firmware did not boot; firmware %s runs again\n",
				 cdev->fw_version);
			NL_SET_ERR_MSG_FMT_MOD(extack,
					       "new firmware did not boot; firmware %.17s runs again",
					       cdev->fw_version);
			return -EIO;
		}
	}
	dev_info(ordma_dev(cdev), "firmware %s -> %s\n",
		 cdev->fw_version_before, cdev->fw_version);
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
	if (action == DEVLINK_RELOAD_ACTION_FW_ACTIVATE)
		*actions_performed |= BIT(DEVLINK_RELOAD_ACTION_FW_ACTIVATE);
	err = ordma_core_start(cdev);
	if (err) {
		NL_SET_ERR_MSG_MOD(extack,
				   "the function did not come up again; see the kernel log");
		return err;
	}
	if (action == DEVLINK_RELOAD_ACTION_FW_ACTIVATE)
		return ordma_fw_activate_up(cdev, extack);
	return 0;
}

/*
 * enable_roce and enable_iwarp: the RDMA protocol of an Ethernet port
 * whose firmware offers iWARP, one at a time.  Setting the one that is on
 * to false removes the RDMA auxiliary device; setting one to true (the
 * other being off) selects its protocol in the firmware and adds the
 * device again.  The choice outlives resets and reloads of the function;
 * a stopped function takes it when it starts.  Both false: no RDMA
 * device.
 */
static u8 ordma_param_proto(u32 id)
{
	return id == DEVLINK_PARAM_GENERIC_ID_ENABLE_IWARP ?
	       ORDMA_PORT_PROTO_IWARP : ORDMA_PORT_PROTO_ROCE;
}

static const char *ordma_proto_name(u8 proto)
{
	return proto == ORDMA_PORT_PROTO_IWARP ? "iWARP" : "RoCE";
}

static bool ordma_proto_enabled(struct ordma_core_dev *cdev, u8 proto)
{
	return cdev->rdma_enabled && cdev->rdma_proto == proto;
}

static int ordma_rdma_param_get(struct devlink *devlink, u32 id,
				struct devlink_param_gset_ctx *ctx)
{
	struct ordma_core_dev *cdev = devlink_priv(devlink);

	ctx->val.vbool = ordma_proto_enabled(cdev, ordma_param_proto(id));
	return 0;
}

static int ordma_rdma_param_set(struct devlink *devlink, u32 id,
				struct devlink_param_gset_ctx *ctx,
				struct netlink_ext_ack *extack)
{
	struct ordma_core_dev *cdev = devlink_priv(devlink);
	u8 proto = ordma_param_proto(id);
	int err;

	if (ctx->val.vbool == ordma_proto_enabled(cdev, proto))
		return 0;
	if (cdev->removing)
		return -ENODEV;
	if (!ctx->val.vbool) {
		cdev->rdma_enabled = false;
		if (cdev->aux)
			ordma_aux_del(cdev);
		return 0;
	}
	/* validate made sure that the other protocol is off */
	cdev->rdma_enabled = true;
	cdev->rdma_proto = proto;
	if (cdev->stopped)
		return 0;
	err = ordma_rdma_add(cdev);
	if (err) {
		cdev->rdma_enabled = false;
		NL_SET_ERR_MSG_FMT_MOD(extack,
				       "cannot add the %s device: %d",
				       ordma_proto_name(proto), err);
	}
	return err;
}

static int ordma_rdma_param_validate(struct devlink *devlink, u32 id,
				     union devlink_param_value val,
				     struct netlink_ext_ack *extack)
{
	struct ordma_core_dev *cdev = devlink_priv(devlink);
	u8 proto = ordma_param_proto(id);
	u8 other = proto == ORDMA_PORT_PROTO_IWARP ?
		   ORDMA_PORT_PROTO_ROCE : ORDMA_PORT_PROTO_IWARP;

	if (!val.vbool)
		return 0;
	if (proto == ORDMA_PORT_PROTO_IWARP &&
	    !(le32_to_cpu(cdev->caps.cap_flags) & ORDMA_DEV_CAP_IWARP)) {
		NL_SET_ERR_MSG_MOD(extack, "the device firmware has no iWARP");
		return -EOPNOTSUPP;
	}
	if (ordma_proto_enabled(cdev, other)) {
		NL_SET_ERR_MSG_FMT_MOD(extack,
				       "%s is enabled: set enable_%s to false first",
				       ordma_proto_name(other),
				       other == ORDMA_PORT_PROTO_IWARP ?
				       "iwarp" : "roce");
		return -EBUSY;
	}
	return 0;
}

static const struct devlink_param ordma_rdma_params[] = {
	DEVLINK_PARAM_GENERIC(ENABLE_ROCE, BIT(DEVLINK_PARAM_CMODE_RUNTIME),
			      ordma_rdma_param_get, ordma_rdma_param_set,
			      ordma_rdma_param_validate),
	DEVLINK_PARAM_GENERIC(ENABLE_IWARP, BIT(DEVLINK_PARAM_CMODE_RUNTIME),
			      ordma_rdma_param_get, ordma_rdma_param_set,
			      ordma_rdma_param_validate),
};

/* Only an Ethernet port whose firmware has iWARP has a choice to make. */
int ordma_rdma_params_register(struct ordma_core_dev *cdev)
{
	const struct ordma_device_caps *caps = &cdev->caps;
	int err;

	if (!(le32_to_cpu(caps->cap_flags) & ORDMA_DEV_CAP_IWARP))
		return 0;
	err = devlink_params_register(cdev->devlink, ordma_rdma_params,
				      ARRAY_SIZE(ordma_rdma_params));
	if (err)
		return err;
	cdev->rdma_params = true;
	return 0;
}

void ordma_rdma_params_unregister(struct ordma_core_dev *cdev)
{
	if (!cdev->rdma_params)
		return;
	devlink_params_unregister(cdev->devlink, ordma_rdma_params,
				  ARRAY_SIZE(ordma_rdma_params));
	cdev->rdma_params = false;
}

static const struct devlink_ops ordma_devlink_ops = {
	.reload_actions = BIT(DEVLINK_RELOAD_ACTION_DRIVER_REINIT) |
			  BIT(DEVLINK_RELOAD_ACTION_FW_ACTIVATE),
	.reload_down = ordma_devlink_reload_down,
	.reload_up = ordma_devlink_reload_up,
	.info_get = ordma_devlink_info_get,
	.flash_update = ordma_devlink_flash_update,
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

static const char *ordma_event_kind_name(u16 kind)
{
	switch (kind) {
	case ORDMA_EVENT_ADMIN:
		return "admin";
	case ORDMA_EVENT_QP_STATE:
		return "qp_state";
	case ORDMA_EVENT_FATAL:
		return "fatal";
	default:
		return "unknown";
	}
}

/* One entry of the window, as 32-bit register reads */
static void ordma_read_event(struct ordma_core_dev *cdev, u32 n,
			     struct ordma_event_log_entry *e)
{
	__le32 dw[ORDMA_EVENT_LOG_ENTRY_SIZE / sizeof(__le32)];
	u32 base = ORDMA_REG_EVENT_LOG +
		   (n % ORDMA_EVENT_LOG_LEN) * ORDMA_EVENT_LOG_ENTRY_SIZE;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(dw); i++)
		dw[i] = cpu_to_le32(ordma_rd32(cdev, base + i * sizeof(dw[0])));
	memcpy(e, dw, sizeof(*e));
}

/* The device's own account: its event log window, oldest first */
static void ordma_dump_event_log(struct ordma_core_dev *cdev,
				 struct devlink_fmsg *fmsg)
{
	u32 count = ordma_rd32(cdev, ORDMA_REG_EVENT_LOG_COUNT);
	struct ordma_event_log_entry e;
	u32 n, first;

	if (count == ORDMA_REG_DEAD)
		return;
	devlink_fmsg_u32_pair_put(fmsg, "device_events", count);
	first = count > ORDMA_EVENT_LOG_LEN ? count - ORDMA_EVENT_LOG_LEN : 0;
	devlink_fmsg_arr_pair_nest_start(fmsg, "device_event_log");
	for (n = first; n < count; n++) {
		ordma_read_event(cdev, n, &e);
		/* overwritten by a newer event while we read */
		if (le32_to_cpu(e.seq) != n)
			continue;
		devlink_fmsg_obj_nest_start(fmsg);
		devlink_fmsg_u32_pair_put(fmsg, "seq", n);
		devlink_fmsg_u64_pair_put(fmsg, "time_ns",
					  le64_to_cpu(e.time_ns));
		devlink_fmsg_string_pair_put(fmsg, "event",
					     ordma_event_kind_name(le16_to_cpu(e.kind)));
		switch (le16_to_cpu(e.kind)) {
		case ORDMA_EVENT_ADMIN:
			devlink_fmsg_u8_pair_put(fmsg, "opcode", e.op);
			devlink_fmsg_u8_pair_put(fmsg, "status", e.status);
			devlink_fmsg_u32_pair_put(fmsg, "token",
						  le32_to_cpu(e.arg0));
			devlink_fmsg_u32_pair_put(fmsg, "syndrome",
						  le32_to_cpu(e.arg1));
			break;
		case ORDMA_EVENT_QP_STATE:
			devlink_fmsg_u32_pair_put(fmsg, "qpn",
						  le32_to_cpu(e.arg0));
			devlink_fmsg_u8_pair_put(fmsg, "from", e.op);
			devlink_fmsg_u8_pair_put(fmsg, "to", e.status);
			break;
		case ORDMA_EVENT_FATAL:
			devlink_fmsg_u8_pair_put(fmsg, "fatal_code", e.status);
			break;
		}
		devlink_fmsg_obj_nest_end(fmsg);
	}
	devlink_fmsg_arr_pair_nest_end(fmsg);
}

/* What the device and the driver last did: the registers, the device's
 * event log, the admin queue's state and its last commands.  Readable
 * from a dead device.
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
	for (i = 0; i < ordma_num_readable_regs; i++)
		devlink_fmsg_u32_pair_put(fmsg, ordma_readable_regs[i].name,
					  ordma_rd32(cdev,
						     ordma_readable_regs[i].offset));
	devlink_fmsg_obj_nest_end(fmsg);
	devlink_fmsg_pair_nest_end(fmsg);
	devlink_fmsg_bool_pair_put(fmsg, "declared_fatal",
				   test_bit(ORDMA_STATE_FATAL, &cdev->state));
	ordma_dump_event_log(cdev, fmsg);
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
