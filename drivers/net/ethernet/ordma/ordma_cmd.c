// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* ORDMA admin commands: one typed function per command.
 *
 * Nothing above this file builds a raw command descriptor, except the
 * raw passthrough ordma_cmd_exec() offered to the RDMA driver and the
 * debugfs bring-up interface.
 */

#include <linux/dma-mapping.h>
#include <linux/module.h>
#include <linux/string.h>

#include "ordma_core.h"

static void ordma_cmd_init(struct ordma_aq_cmd *cmd, u8 opcode)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->hdr.opcode = opcode;
}

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

/* QUERY_DEVICE / QUERY_PORT / QUERY_STATS / QUERY_RESOURCES into @out of
 * @len bytes
 */
static int ordma_cmd_query(struct ordma_core_dev *cdev, u8 opcode, u32 port,
			   void *out, u32 len)
{
	struct ordma_cmd_dma *buf;
	struct ordma_aq_comp comp;
	struct ordma_aq_cmd cmd;
	u32 written;
	int err;

	buf = ordma_cmd_dma_alloc(cdev, len);
	if (!buf)
		return -ENOMEM;

	ordma_cmd_init(&cmd, opcode);
	cmd.query.buf_addr = cpu_to_le64(buf->dma);
	cmd.query.buf_len = cpu_to_le32(len);
	cmd.query.port = cpu_to_le32(port);

	err = ordma_cmdq_exec(cdev, &cmd, &comp, buf);
	if (err)
		return err;	/* the queue has released buf */

	err = ordma_cmd_check(cdev, &cmd, &comp);
	if (!err) {
		written = le32_to_cpu(comp.buf.written);
		if (written > len) {
			dev_err(ordma_dev(cdev),
				"admin command 0x%02x wrote %u bytes into a %u byte buffer\n",
				opcode, written, len);
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

int ordma_cmd_exec(struct ordma_core_dev *cdev, struct ordma_aq_cmd *cmd,
		   struct ordma_aq_comp *comp)
{
	struct ordma_aq_comp local;

	return ordma_cmd_run(cdev, cmd, comp ? comp : &local);
}
EXPORT_SYMBOL_NS_GPL(ordma_cmd_exec, ORDMA);

bool ordma_device_may_use_memory(enum ordma_mem_cmd cmd, int err)
{
	switch (err) {
	case 0:
		return cmd == ORDMA_MEM_CREATE;
	case -ENODEV:	/* bus mastering is off */
	case -ENOENT:	/* the device has no such object */
		return false;
	case -ETIMEDOUT:
	case -EIO:
		return true;
	default:
		return cmd == ORDMA_MEM_DESTROY;
	}
}
EXPORT_SYMBOL_NS_GPL(ordma_device_may_use_memory, ORDMA);

int ordma_cmd_query_fw(struct ordma_core_dev *cdev, struct ordma_fw_info *fw)
{
	struct ordma_aq_comp comp;
	struct ordma_aq_cmd cmd;
	int err;

	ordma_cmd_init(&cmd, ORDMA_CMD_QUERY_FW);
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
EXPORT_SYMBOL_NS_GPL(ordma_cmd_query_device, ORDMA);

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

int ordma_cmd_query_resources(struct ordma_core_dev *cdev,
			      struct ordma_resources *res)
{
	return ordma_cmd_query(cdev, ORDMA_CMD_QUERY_RESOURCES, 0, res,
			       sizeof(*res));
}
EXPORT_SYMBOL_NS_GPL(ordma_cmd_query_resources, ORDMA);

int ordma_cmd_set_port(struct ordma_core_dev *cdev,
		       const struct ordma_port_cfg *cfg)
{
	struct ordma_cmd_set_port *sp;
	struct ordma_aq_comp comp;
	struct ordma_aq_cmd cmd;

	if (!cfg->mask || (cfg->mask & ~ORDMA_SET_PORT_ALL_FIELDS))
		return -EINVAL;

	ordma_cmd_init(&cmd, ORDMA_CMD_SET_PORT);
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

	ordma_cmd_init(&cmd, ORDMA_CMD_HEALTH);
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

	ordma_cmd_init(&cmd, ORDMA_CMD_CREATE_EQ);
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

	ordma_cmd_init(&cmd, opcode);
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

	ordma_cmd_init(&cmd, ORDMA_CMD_CREATE_ETH_RING);
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

int ordma_cmd_add_gid(struct ordma_core_dev *cdev, u32 index,
		      const u8 gid[16], const u8 mac[6], u16 vlan_id)
{
	struct ordma_aq_comp comp;
	struct ordma_aq_cmd cmd;

	ordma_cmd_init(&cmd, ORDMA_CMD_ADD_GID);
	cmd.add_gid.index = cpu_to_le32(index);
	cmd.add_gid.type = ORDMA_GID_TYPE_ROCE_V2;
	cmd.add_gid.vlan_id = cpu_to_le16(vlan_id);
	memcpy(cmd.add_gid.gid, gid, sizeof(cmd.add_gid.gid));
	memcpy(cmd.add_gid.mac, mac, sizeof(cmd.add_gid.mac));
	return ordma_cmd_run(cdev, &cmd, &comp);
}
EXPORT_SYMBOL_NS_GPL(ordma_cmd_add_gid, ORDMA);

int ordma_cmd_del_gid(struct ordma_core_dev *cdev, u32 index)
{
	return ordma_cmd_destroy(cdev, ORDMA_CMD_DEL_GID, index, 0);
}
EXPORT_SYMBOL_NS_GPL(ordma_cmd_del_gid, ORDMA);

int ordma_cmd_alloc_uctx(struct ordma_core_dev *cdev, u32 *uctx)
{
	struct ordma_aq_comp comp;
	struct ordma_aq_cmd cmd;
	u32 id, page;
	int err;

	ordma_cmd_init(&cmd, ORDMA_CMD_ALLOC_UCTX);
	err = ordma_cmd_run(cdev, &cmd, &comp);
	if (err)
		return err;

	id = le32_to_cpu(comp.handle.handle);
	page = le32_to_cpu(comp.handle.db_page);
	/* The doorbell page goes to userspace: it must be the context's
	 * own one and never the kernel's.
	 */
	if (id == ORDMA_KERNEL_UCTX || page != id || page >= cdev->num_db_pages) {
		dev_err(ordma_dev(cdev),
			"ALLOC_UCTX returned context %u with doorbell page %u\n",
			id, page);
		if (id != ORDMA_KERNEL_UCTX)
			ordma_cmd_dealloc_uctx(cdev, id);
		return -EIO;
	}
	*uctx = id;
	return 0;
}
EXPORT_SYMBOL_NS_GPL(ordma_cmd_alloc_uctx, ORDMA);

int ordma_cmd_dealloc_uctx(struct ordma_core_dev *cdev, u32 uctx)
{
	return ordma_cmd_destroy(cdev, ORDMA_CMD_DEALLOC_UCTX, uctx, 0);
}
EXPORT_SYMBOL_NS_GPL(ordma_cmd_dealloc_uctx, ORDMA);

int ordma_cmd_alloc_pd(struct ordma_core_dev *cdev, u32 uctx, u32 *pdn)
{
	struct ordma_aq_comp comp;
	struct ordma_aq_cmd cmd;
	int err;

	ordma_cmd_init(&cmd, ORDMA_CMD_ALLOC_PD);
	cmd.alloc_pd.uctx = cpu_to_le32(uctx);
	err = ordma_cmd_run(cdev, &cmd, &comp);
	if (err)
		return err;

	*pdn = le32_to_cpu(comp.handle.handle);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(ordma_cmd_alloc_pd, ORDMA);

int ordma_cmd_dealloc_pd(struct ordma_core_dev *cdev, u32 uctx, u32 pdn)
{
	return ordma_cmd_destroy(cdev, ORDMA_CMD_DEALLOC_PD, pdn, uctx);
}
EXPORT_SYMBOL_NS_GPL(ordma_cmd_dealloc_pd, ORDMA);

/* Commands whose payload is one struct of the command union, with a
 * handle in the completion.
 */
static int ordma_cmd_create(struct ordma_core_dev *cdev, u8 opcode,
			    const void *params, size_t len, u32 *handle)
{
	struct ordma_aq_comp comp;
	struct ordma_aq_cmd cmd;
	int err;

	ordma_cmd_init(&cmd, opcode);
	memcpy(cmd.raw, params, len);
	err = ordma_cmd_run(cdev, &cmd, &comp);
	if (err)
		return err;

	*handle = le32_to_cpu(comp.handle.handle);
	return 0;
}

/*
 * A new MR or window key must carry the variant the driver chose and a
 * non-zero index; a device that answers otherwise is not trusted, and a
 * key it did create is released with @undo (DEREG_MR, DEALLOC_MW).
 */
static int ordma_cmd_check_key(struct ordma_core_dev *cdev, u8 undo, u32 key,
			       u8 variant, u32 uctx)
{
	if (FIELD_GET(ORDMA_KEY_VARIANT, key) == variant &&
	    FIELD_GET(ORDMA_KEY_INDEX, key))
		return 0;
	dev_err(ordma_dev(cdev), "device returned key %#x for variant %#x\n",
		key, variant);
	if (FIELD_GET(ORDMA_KEY_INDEX, key))
		ordma_cmd_destroy(cdev, undo, key, uctx);
	return -EIO;
}

int ordma_cmd_reg_mr(struct ordma_core_dev *cdev,
		     const struct ordma_cmd_reg_mr *params, u32 *key)
{
	int err;

	err = ordma_cmd_create(cdev, ORDMA_CMD_REG_MR, params, sizeof(*params),
			       key);
	if (err)
		return err;
	/* in place: the MR keeps its key (and is not ours to drop) */
	if (params->flags & ORDMA_MR_REREG) {
		if (*key == le32_to_cpu(params->rereg_key))
			return 0;
		dev_err(ordma_dev(cdev), "REREG of MR %#x returned key %#x\n",
			le32_to_cpu(params->rereg_key), *key);
		return -EIO;
	}
	return ordma_cmd_check_key(cdev, ORDMA_CMD_DEREG_MR, *key, params->key,
				   le32_to_cpu(params->uctx));
}
EXPORT_SYMBOL_NS_GPL(ordma_cmd_reg_mr, ORDMA);

int ordma_cmd_dereg_mr(struct ordma_core_dev *cdev, u32 uctx, u32 key)
{
	return ordma_cmd_destroy(cdev, ORDMA_CMD_DEREG_MR, key, uctx);
}
EXPORT_SYMBOL_NS_GPL(ordma_cmd_dereg_mr, ORDMA);

int ordma_cmd_alloc_mw(struct ordma_core_dev *cdev,
		       const struct ordma_cmd_alloc_mw *params, u32 *rkey)
{
	int err;

	err = ordma_cmd_create(cdev, ORDMA_CMD_ALLOC_MW, params,
			       sizeof(*params), rkey);
	if (err)
		return err;
	return ordma_cmd_check_key(cdev, ORDMA_CMD_DEALLOC_MW, *rkey,
				   params->key, le32_to_cpu(params->uctx));
}
EXPORT_SYMBOL_NS_GPL(ordma_cmd_alloc_mw, ORDMA);

int ordma_cmd_dealloc_mw(struct ordma_core_dev *cdev, u32 uctx, u32 rkey)
{
	return ordma_cmd_destroy(cdev, ORDMA_CMD_DEALLOC_MW, rkey, uctx);
}
EXPORT_SYMBOL_NS_GPL(ordma_cmd_dealloc_mw, ORDMA);

int ordma_cmd_create_cq(struct ordma_core_dev *cdev,
			const struct ordma_cmd_create_cq *params, u32 *cqn)
{
	return ordma_cmd_create(cdev, ORDMA_CMD_CREATE_CQ, params,
				sizeof(*params), cqn);
}
EXPORT_SYMBOL_NS_GPL(ordma_cmd_create_cq, ORDMA);

int ordma_cmd_destroy_cq(struct ordma_core_dev *cdev, u32 uctx, u32 cqn)
{
	return ordma_cmd_destroy(cdev, ORDMA_CMD_DESTROY_CQ, cqn, uctx);
}
EXPORT_SYMBOL_NS_GPL(ordma_cmd_destroy_cq, ORDMA);

int ordma_cmd_create_srq(struct ordma_core_dev *cdev,
			 const struct ordma_cmd_create_srq *params, u32 *srqn)
{
	return ordma_cmd_create(cdev, ORDMA_CMD_CREATE_SRQ, params,
				sizeof(*params), srqn);
}
EXPORT_SYMBOL_NS_GPL(ordma_cmd_create_srq, ORDMA);

int ordma_cmd_modify_srq(struct ordma_core_dev *cdev, u32 uctx, u32 srqn,
			 u32 limit)
{
	struct ordma_aq_comp comp;
	struct ordma_aq_cmd cmd;

	ordma_cmd_init(&cmd, ORDMA_CMD_MODIFY_SRQ);
	cmd.modify_srq.srqn = cpu_to_le32(srqn);
	cmd.modify_srq.uctx = cpu_to_le32(uctx);
	cmd.modify_srq.limit = cpu_to_le32(limit);
	return ordma_cmd_run(cdev, &cmd, &comp);
}
EXPORT_SYMBOL_NS_GPL(ordma_cmd_modify_srq, ORDMA);

int ordma_cmd_destroy_srq(struct ordma_core_dev *cdev, u32 uctx, u32 srqn)
{
	return ordma_cmd_destroy(cdev, ORDMA_CMD_DESTROY_SRQ, srqn, uctx);
}
EXPORT_SYMBOL_NS_GPL(ordma_cmd_destroy_srq, ORDMA);

int ordma_cmd_create_ah(struct ordma_core_dev *cdev,
			const struct ordma_cmd_create_ah *params, u32 *ah)
{
	return ordma_cmd_create(cdev, ORDMA_CMD_CREATE_AH, params,
				sizeof(*params), ah);
}
EXPORT_SYMBOL_NS_GPL(ordma_cmd_create_ah, ORDMA);

int ordma_cmd_destroy_ah(struct ordma_core_dev *cdev, u32 uctx, u32 ah)
{
	return ordma_cmd_destroy(cdev, ORDMA_CMD_DESTROY_AH, ah, uctx);
}
EXPORT_SYMBOL_NS_GPL(ordma_cmd_destroy_ah, ORDMA);

/* ATTACH_MCAST (attach true) or DETACH_MCAST of UD QP qpn and gid */
int ordma_cmd_mcast(struct ordma_core_dev *cdev, bool attach, u32 uctx,
		    u32 qpn, const u8 gid[16])
{
	struct ordma_aq_comp comp;
	struct ordma_aq_cmd cmd;

	ordma_cmd_init(&cmd, attach ? ORDMA_CMD_ATTACH_MCAST :
				      ORDMA_CMD_DETACH_MCAST);
	cmd.mcast.qpn = cpu_to_le32(qpn);
	cmd.mcast.uctx = cpu_to_le32(uctx);
	memcpy(cmd.mcast.gid, gid, sizeof(cmd.mcast.gid));
	return ordma_cmd_run(cdev, &cmd, &comp);
}
EXPORT_SYMBOL_NS_GPL(ordma_cmd_mcast, ORDMA);

/*
 * CREATE_QP, MODIFY_QP and QUERY_QP: the parameters travel in a buffer of
 * the admin queue (which keeps it if the command times out).  @in is
 * copied to the device before the command, the buffer is copied to @out
 * after it; either may be NULL.
 */
static int ordma_cmd_buf_run(struct ordma_core_dev *cdev, u8 opcode,
			     u32 handle, const void *in, void *out, u32 len,
			     struct ordma_aq_comp *comp)
{
	struct ordma_cmd_dma *buf;
	struct ordma_aq_cmd cmd;
	int err;

	buf = ordma_cmd_dma_alloc(cdev, len);
	if (!buf)
		return -ENOMEM;
	if (in) {
		memcpy(buf->va, in, len);
		dma_sync_single_for_device(ordma_dev(cdev), buf->dma, len,
					   DMA_BIDIRECTIONAL);
	}

	ordma_cmd_init(&cmd, opcode);
	cmd.buf.buf_addr = cpu_to_le64(buf->dma);
	cmd.buf.buf_len = cpu_to_le32(len);
	cmd.buf.handle = cpu_to_le32(handle);

	err = ordma_cmdq_exec(cdev, &cmd, comp, buf);
	if (err)
		return err;	/* the queue has released buf */

	err = ordma_cmd_check(cdev, &cmd, comp);
	if (!err && out) {
		if (le32_to_cpu(comp->buf.written) != len) {
			dev_err(ordma_dev(cdev),
				"admin command 0x%02x wrote %u of %u bytes\n",
				opcode, le32_to_cpu(comp->buf.written), len);
			err = -EIO;
		} else {
			memcpy(out, buf->va, len);
		}
	}
	ordma_cmd_dma_free(cdev, buf);
	return err;
}

int ordma_cmd_create_qp(struct ordma_core_dev *cdev,
			const struct ordma_qp_create_params *params, u32 *qpn)
{
	struct ordma_aq_comp comp;
	int err;

	err = ordma_cmd_buf_run(cdev, ORDMA_CMD_CREATE_QP, 0, params, NULL,
				sizeof(*params), &comp);
	if (err)
		return err;

	*qpn = le32_to_cpu(comp.handle.handle);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(ordma_cmd_create_qp, ORDMA);

int ordma_cmd_modify_qp(struct ordma_core_dev *cdev, u32 qpn,
			const struct ordma_qp_attr *attr)
{
	struct ordma_aq_comp comp;

	return ordma_cmd_buf_run(cdev, ORDMA_CMD_MODIFY_QP, qpn, attr, NULL,
				 sizeof(*attr), &comp);
}
EXPORT_SYMBOL_NS_GPL(ordma_cmd_modify_qp, ORDMA);

int ordma_cmd_query_qp(struct ordma_core_dev *cdev, u32 qpn,
		       struct ordma_qp_attr *attr)
{
	struct ordma_aq_comp comp;

	return ordma_cmd_buf_run(cdev, ORDMA_CMD_QUERY_QP, qpn, NULL, attr,
				 sizeof(*attr), &comp);
}
EXPORT_SYMBOL_NS_GPL(ordma_cmd_query_qp, ORDMA);

int ordma_cmd_destroy_qp(struct ordma_core_dev *cdev, u32 uctx, u32 qpn)
{
	return ordma_cmd_destroy(cdev, ORDMA_CMD_DESTROY_QP, qpn, uctx);
}
EXPORT_SYMBOL_NS_GPL(ordma_cmd_destroy_qp, ORDMA);
