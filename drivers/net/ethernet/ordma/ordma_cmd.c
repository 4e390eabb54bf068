// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* ORDMA admin commands: the client API (post a command, post one with a
 * parameter buffer) and the commands the core itself runs, one typed
 * function each.  The RDMA driver builds its verbs commands itself.
 */

#include <linux/dma-mapping.h>
#include <linux/module.h>
#include <linux/ordma/ordma_image.h>
#include <linux/string.h>

#include "ordma_core.h"

static int ordma_cmd_check(struct ordma_core_dev *cdev,
			   const struct ordma_aq_cmd *cmd,
			   const struct ordma_aq_comp *comp)
{
	int err = ordma_cmd_status_to_errno(comp->status);

	if (err)
		dev_dbg(ordma_dev(cdev),
			"admin command 0x%02x failed: status %u syndrome %u\n",
			cmd->hdr.opcode, comp->status,
			le32_to_cpu(comp->syndrome));
	return err;
}

static int ordma_cmd_run(struct ordma_core_dev *cdev, struct ordma_aq_cmd *cmd,
			 struct ordma_aq_comp *comp)
{
	int err;

	err = ordma_cmdq_exec(cdev, cmd, comp, NULL);
	if (err)
		return err;
	return ordma_cmd_check(cdev, cmd, comp);
}

int ordma_client_cmd(struct ordma_core_dev *cdev, struct ordma_aq_cmd *cmd,
		     struct ordma_aq_comp *comp)
{
	struct ordma_aq_comp local;

	return ordma_cmd_run(cdev, cmd, comp ? comp : &local);
}
EXPORT_SYMBOL_NS_GPL(ordma_client_cmd, ORDMA);

/* The two buffer layouts name the buffer alike; only the third word
 * (port or handle) differs, and the client fills that.
 */
static_assert(offsetof(struct ordma_aq_cmd, query.buf_addr) ==
	      offsetof(struct ordma_aq_cmd, buf.buf_addr));
static_assert(offsetof(struct ordma_aq_cmd, query.buf_len) ==
	      offsetof(struct ordma_aq_cmd, buf.buf_len));

int ordma_client_cmd_buf(struct ordma_core_dev *cdev,
			 struct ordma_aq_cmd *cmd, struct ordma_aq_comp *comp,
			 const void *in, void *out, u32 len)
{
	struct ordma_cmd_dma *buf;
	struct ordma_aq_comp local;
	u32 written;
	int err;

	if (!comp)
		comp = &local;
	buf = ordma_cmd_dma_alloc(cdev, len);
	if (!buf)
		return -ENOMEM;
	if (in) {
		memcpy(buf->va, in, len);
		dma_sync_single_for_device(ordma_dev(cdev), buf->dma, len,
					   DMA_BIDIRECTIONAL);
	}
	cmd->buf.buf_addr = cpu_to_le64(buf->dma);
	cmd->buf.buf_len = cpu_to_le32(len);

	err = ordma_cmdq_exec(cdev, cmd, comp, buf);
	if (err)
		return err;	/* the queue has released buf */

	err = ordma_cmd_check(cdev, cmd, comp);
	if (!err && out) {
		written = le32_to_cpu(comp->buf.written);
		if (written > len) {
			dev_err(ordma_dev(cdev),
				"admin command 0x%02x wrote %u bytes into a %u byte buffer\n",
				cmd->hdr.opcode, written, len);
			err = -EIO;
		} else {
			/* Fields a device does not know read as zero. */
			memcpy(out, buf->va, written);
			memset((u8 *)out + written, 0, len - written);
		}
	}
	ordma_cmd_dma_free(cdev, buf);
	return err;
}
EXPORT_SYMBOL_NS_GPL(ordma_client_cmd_buf, ORDMA);

/* QUERY_DEVICE / QUERY_PORT / QUERY_STATS / QUERY_RESOURCES / QUERY_FLASH
 * into @out of @len bytes
 */
static int ordma_cmd_query(struct ordma_core_dev *cdev, u8 opcode, u32 port,
			   void *out, u32 len)
{
	struct ordma_aq_cmd cmd;

	ordma_aq_cmd_init(&cmd, opcode);
	cmd.query.port = cpu_to_le32(port);
	return ordma_client_cmd_buf(cdev, &cmd, NULL, NULL, out, len);
}

int ordma_cmd_query_fw(struct ordma_core_dev *cdev, struct ordma_fw_info *fw)
{
	struct ordma_aq_comp comp;
	struct ordma_aq_cmd cmd;
	int err;

	ordma_aq_cmd_init(&cmd, ORDMA_CMD_QUERY_FW);
	err = ordma_cmd_run(cdev, &cmd, &comp);
	if (err)
		return err;

	fw->major = le16_to_cpu(comp.query_fw.major);
	fw->minor = le16_to_cpu(comp.query_fw.minor);
	fw->sub_minor = le16_to_cpu(comp.query_fw.sub_minor);
	fw->build = le32_to_cpu(comp.query_fw.build);
	fw->hw_version = le32_to_cpu(comp.query_fw.hw_version);
	return 0;
}

int ordma_cmd_query_device(struct ordma_core_dev *cdev,
			   struct ordma_device_caps *caps)
{
	return ordma_cmd_query(cdev, ORDMA_CMD_QUERY_DEVICE, 0, caps,
			       sizeof(*caps));
}

int ordma_cmd_query_port(struct ordma_core_dev *cdev,
			 struct ordma_port_attr *attr)
{
	return ordma_cmd_query(cdev, ORDMA_CMD_QUERY_PORT, ORDMA_PORT_NUM,
			       attr, sizeof(*attr));
}
EXPORT_SYMBOL_NS_GPL(ordma_cmd_query_port, ORDMA);

int ordma_cmd_query_stats(struct ordma_core_dev *cdev,
			  struct ordma_port_stats *stats)
{
	return ordma_cmd_query(cdev, ORDMA_CMD_QUERY_STATS, ORDMA_PORT_NUM,
			       stats, sizeof(*stats));
}
EXPORT_SYMBOL_NS_GPL(ordma_cmd_query_stats, ORDMA);

int ordma_cmd_inject_fault(struct ordma_core_dev *cdev, u32 fault, u32 count,
			   u32 arg)
{
	struct ordma_aq_comp comp;
	struct ordma_aq_cmd cmd;

	if (!(le32_to_cpu(cdev->caps.cap_flags) & ORDMA_DEV_CAP_FAULT_INJECT))
		return -EOPNOTSUPP;
	ordma_aq_cmd_init(&cmd, ORDMA_CMD_INJECT_FAULT);
	cmd.inject_fault.fault = cpu_to_le32(fault);
	cmd.inject_fault.count = cpu_to_le32(count);
	cmd.inject_fault.arg = cpu_to_le32(arg);
	return ordma_cmd_run(cdev, &cmd, &comp);
}

int ordma_cmd_query_resources(struct ordma_core_dev *cdev,
			      struct ordma_resources *res)
{
	return ordma_cmd_query(cdev, ORDMA_CMD_QUERY_RESOURCES, 0, res,
			       sizeof(*res));
}

int ordma_cmd_set_port(struct ordma_core_dev *cdev,
		       const struct ordma_port_cfg *cfg)
{
	struct ordma_cmd_set_port *sp;
	struct ordma_aq_comp comp;
	struct ordma_aq_cmd cmd;

	if (!cfg->mask || (cfg->mask & ~ORDMA_SET_PORT_ALL_FIELDS))
		return -EINVAL;

	ordma_aq_cmd_init(&cmd, ORDMA_CMD_SET_PORT);
	sp = &cmd.set_port;
	sp->port = cpu_to_le32(ORDMA_PORT_NUM);
	sp->field_mask = cpu_to_le32(cfg->mask);
	/* Fields outside the mask must stay zero. */
	if (cfg->mask & ORDMA_SET_PORT_MTU)
		sp->mtu = cpu_to_le32(cfg->mtu);
	if (cfg->mask & ORDMA_SET_PORT_MAC)
		memcpy(sp->mac, cfg->mac, sizeof(sp->mac));
	if (cfg->mask & ORDMA_SET_PORT_ADMIN)
		sp->admin_up = cfg->admin_up ? 1 : 0;
	if (cfg->mask & ORDMA_SET_PORT_RX_MODE)
		sp->rx_mode = cfg->rx_mode;

	return ordma_cmd_run(cdev, &cmd, &comp);
}

int ordma_cmd_health(struct ordma_core_dev *cdev,
		     struct ordma_health_info *info)
{
	struct ordma_aq_comp comp;
	struct ordma_aq_cmd cmd;
	int err;

	ordma_aq_cmd_init(&cmd, ORDMA_CMD_HEALTH);
	err = ordma_cmd_run(cdev, &cmd, &comp);
	if (err)
		return err;

	info->state = le32_to_cpu(comp.health.state);
	info->heartbeat = le32_to_cpu(comp.health.heartbeat);
	info->cmd_errors = le32_to_cpu(comp.health.cmd_errors);
	info->db_errors = le32_to_cpu(comp.health.db_errors);
	info->eq_overruns = le32_to_cpu(comp.health.eq_overruns);
	return 0;
}

int ordma_cmd_create_eq(struct ordma_core_dev *cdev, dma_addr_t ring,
			u8 log_size, u8 type, u16 vector, u32 *eqn)
{
	struct ordma_aq_comp comp;
	struct ordma_aq_cmd cmd;
	int err;

	ordma_aq_cmd_init(&cmd, ORDMA_CMD_CREATE_EQ);
	cmd.create_eq.ring_addr = cpu_to_le64(ring);
	cmd.create_eq.log_size = log_size;
	cmd.create_eq.type = type;
	cmd.create_eq.vector = cpu_to_le16(vector);
	err = ordma_cmd_run(cdev, &cmd, &comp);
	if (err)
		return err;

	*eqn = le32_to_cpu(comp.handle.handle);
	return 0;
}

static int ordma_cmd_destroy(struct ordma_core_dev *cdev, u8 opcode,
			     u32 handle, u32 uctx)
{
	struct ordma_aq_comp comp;
	struct ordma_aq_cmd cmd;

	ordma_aq_cmd_init(&cmd, opcode);
	cmd.handle.handle = cpu_to_le32(handle);
	cmd.handle.uctx = cpu_to_le32(uctx);
	return ordma_cmd_run(cdev, &cmd, &comp);
}

int ordma_cmd_destroy_eq(struct ordma_core_dev *cdev, u32 eqn)
{
	return ordma_cmd_destroy(cdev, ORDMA_CMD_DESTROY_EQ, eqn, 0);
}

int ordma_cmd_create_eth_ring(struct ordma_core_dev *cdev, dma_addr_t ring,
			      u8 log_size, u8 type, u32 eqn, u32 *ring_id)
{
	struct ordma_aq_comp comp;
	struct ordma_aq_cmd cmd;
	int err;

	ordma_aq_cmd_init(&cmd, ORDMA_CMD_CREATE_ETH_RING);
	cmd.eth_ring.ring_addr = cpu_to_le64(ring);
	cmd.eth_ring.log_size = log_size;
	cmd.eth_ring.type = type;
	cmd.eth_ring.eqn = cpu_to_le32(eqn);
	err = ordma_cmd_run(cdev, &cmd, &comp);
	if (err)
		return err;

	*ring_id = le32_to_cpu(comp.handle.handle);
	return 0;
}

int ordma_cmd_destroy_eth_ring(struct ordma_core_dev *cdev, u32 ring_id)
{
	return ordma_cmd_destroy(cdev, ORDMA_CMD_DESTROY_ETH_RING, ring_id, 0);
}

int ordma_cmd_flash_write(struct ordma_core_dev *cdev, const void *data,
			  u32 len, u32 offset)
{
	struct ordma_cmd_dma *buf;
	struct ordma_aq_comp comp;
	struct ordma_aq_cmd cmd;
	int err;

	buf = ordma_cmd_dma_alloc(cdev, len);
	if (!buf)
		return len && len <= ORDMA_AQ_MAX_BUF ? -ENOMEM : -EINVAL;
	memcpy(buf->va, data, len);
	dma_sync_single_for_device(ordma_dev(cdev), buf->dma, len,
				   DMA_BIDIRECTIONAL);

	ordma_aq_cmd_init(&cmd, ORDMA_CMD_FLASH_WRITE);
	cmd.flash_write.buf_addr = cpu_to_le64(buf->dma);
	cmd.flash_write.buf_len = cpu_to_le32(len);
	cmd.flash_write.offset = cpu_to_le32(offset);
	err = ordma_cmdq_exec(cdev, &cmd, &comp, buf);
	if (err)
		return err;	/* the queue has released buf */
	err = ordma_cmd_check(cdev, &cmd, &comp);
	ordma_cmd_dma_free(cdev, buf);
	return err;
}

int ordma_cmd_flash_commit(struct ordma_core_dev *cdev, u32 size,
			   u32 *syndrome)
{
	struct ordma_aq_comp comp;
	struct ordma_aq_cmd cmd;
	int err;

	*syndrome = ORDMA_IMAGE_OK;
	ordma_aq_cmd_init(&cmd, ORDMA_CMD_FLASH_COMMIT);
	cmd.flash_commit.image_size = cpu_to_le32(size);
	err = ordma_cmdq_exec(cdev, &cmd, &comp, NULL);
	if (err)
		return err;
	/* The caller names the refusal: BAD_PARAM carries its reason. */
	if (comp.status == ORDMA_CMD_STATUS_BAD_PARAM &&
	    le32_to_cpu(comp.syndrome) >= ORDMA_SYNDROME_IMAGE_BASE) {
		*syndrome = le32_to_cpu(comp.syndrome) -
			    ORDMA_SYNDROME_IMAGE_BASE;
		return -EINVAL;
	}
	return ordma_cmd_check(cdev, &cmd, &comp);
}

int ordma_cmd_query_flash(struct ordma_core_dev *cdev,
			  struct ordma_flash_info *info)
{
	return ordma_cmd_query(cdev, ORDMA_CMD_QUERY_FLASH, 0, info,
			       sizeof(*info));
}

int ordma_cmd_set_rdma_protocol(struct ordma_core_dev *cdev, u8 protocol)
{
	struct ordma_aq_comp comp;
	struct ordma_aq_cmd cmd;

	ordma_aq_cmd_init(&cmd, ORDMA_CMD_SET_RDMA_PROTOCOL);
	cmd.set_rdma_protocol.port = cpu_to_le32(ORDMA_PORT_NUM);
	cmd.set_rdma_protocol.protocol = protocol;
	return ordma_cmd_run(cdev, &cmd, &comp);
}

int ordma_cmd_fw_activate(struct ordma_core_dev *cdev)
{
	struct ordma_aq_comp comp;
	struct ordma_aq_cmd cmd;

	ordma_aq_cmd_init(&cmd, ORDMA_CMD_FW_ACTIVATE);
	return ordma_cmd_run(cdev, &cmd, &comp);
}
