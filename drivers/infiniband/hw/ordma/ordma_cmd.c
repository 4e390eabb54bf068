// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* ORDMA verbs admin commands: one typed function per command, built here
 * and posted through the core's client API (ordma_client_cmd()).  Adding
 * a verb adds its command here; the core driver does not change.
 */

#include <linux/bitfield.h>
#include <linux/string.h>

#include "ordma_ib.h"

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

/*
 * A command that frees a device object failed.  A device that is gone
 * (-ENODEV: fatal, being reset or removed) took every object with it; a
 * line for each of them would bury the one report that matters.
 */
void ordma_report_destroy(struct ordma_ibdev *dev, int err,
			  const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	if (!err)
		return;
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	if (err == -ENODEV)
		ibdev_dbg(&dev->ibdev, "%pV: device gone\n", &vaf);
	else
		ibdev_err(&dev->ibdev, "%pV failed: %d\n", &vaf, err);
	va_end(args);
}

static int ordma_cmd_post(struct ordma_ibdev *dev, struct ordma_aq_cmd *cmd,
			  struct ordma_aq_comp *comp)
{
	return ordma_client_cmd(dev->cdev, cmd, comp);
}

/* Commands that name one object by handle and owner */
static int ordma_cmd_destroy(struct ordma_ibdev *dev, u8 opcode, u32 handle,
			     u32 uctx)
{
	struct ordma_aq_cmd cmd;

	ordma_aq_cmd_init(&cmd, opcode);
	cmd.handle.handle = cpu_to_le32(handle);
	cmd.handle.uctx = cpu_to_le32(uctx);
	return ordma_cmd_post(dev, &cmd, NULL);
}

int ordma_cmd_add_gid(struct ordma_ibdev *dev, u32 index, u8 type,
		      const u8 gid[16], const u8 mac[6], u16 vlan_id)
{
	struct ordma_aq_cmd cmd;

	ordma_aq_cmd_init(&cmd, ORDMA_CMD_ADD_GID);
	cmd.add_gid.index = cpu_to_le32(index);
	cmd.add_gid.type = type;
	cmd.add_gid.vlan_id = cpu_to_le16(vlan_id);
	memcpy(cmd.add_gid.gid, gid, sizeof(cmd.add_gid.gid));
	memcpy(cmd.add_gid.mac, mac, sizeof(cmd.add_gid.mac));
	return ordma_cmd_post(dev, &cmd, NULL);
}

int ordma_cmd_del_gid(struct ordma_ibdev *dev, u32 index)
{
	return ordma_cmd_destroy(dev, ORDMA_CMD_DEL_GID, index, 0);
}

int ordma_cmd_alloc_uctx(struct ordma_ibdev *dev, u32 *uctx)
{
	struct ordma_aq_comp comp;
	struct ordma_aq_cmd cmd;
	u32 id, page;
	int err;

	ordma_aq_cmd_init(&cmd, ORDMA_CMD_ALLOC_UCTX);
	err = ordma_cmd_post(dev, &cmd, &comp);
	if (err)
		return err;

	id = le32_to_cpu(comp.handle.handle);
	page = le32_to_cpu(comp.handle.db_page);
	/* The doorbell page goes to userspace: it must be the context's
	 * own one and never the kernel's.
	 */
	if (id == ORDMA_KERNEL_UCTX || page != id ||
	    page >= dev->info.num_db_pages) {
		ibdev_err(&dev->ibdev,
			  "ALLOC_UCTX returned context %u with doorbell page %u\n",
			  id, page);
		if (id != ORDMA_KERNEL_UCTX)
			ordma_cmd_dealloc_uctx(dev, id);
		return -EIO;
	}
	*uctx = id;
	return 0;
}

int ordma_cmd_dealloc_uctx(struct ordma_ibdev *dev, u32 uctx)
{
	return ordma_cmd_destroy(dev, ORDMA_CMD_DEALLOC_UCTX, uctx, 0);
}

int ordma_cmd_alloc_pd(struct ordma_ibdev *dev, u32 uctx, u32 *pdn)
{
	struct ordma_aq_comp comp;
	struct ordma_aq_cmd cmd;
	int err;

	ordma_aq_cmd_init(&cmd, ORDMA_CMD_ALLOC_PD);
	cmd.alloc_pd.uctx = cpu_to_le32(uctx);
	err = ordma_cmd_post(dev, &cmd, &comp);
	if (err)
		return err;

	*pdn = le32_to_cpu(comp.handle.handle);
	return 0;
}

int ordma_cmd_dealloc_pd(struct ordma_ibdev *dev, u32 uctx, u32 pdn)
{
	return ordma_cmd_destroy(dev, ORDMA_CMD_DEALLOC_PD, pdn, uctx);
}

/* Commands whose payload is one struct of the command union, with a
 * handle in the completion.
 */
static int ordma_cmd_create(struct ordma_ibdev *dev, u8 opcode,
			    const void *params, size_t len, u32 *handle)
{
	struct ordma_aq_comp comp;
	struct ordma_aq_cmd cmd;
	int err;

	ordma_aq_cmd_init(&cmd, opcode);
	memcpy(cmd.raw, params, len);
	err = ordma_cmd_post(dev, &cmd, &comp);
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
static int ordma_cmd_check_key(struct ordma_ibdev *dev, u8 undo, u32 key,
			       u8 variant, u32 uctx)
{
	if (FIELD_GET(ORDMA_KEY_VARIANT, key) == variant &&
	    FIELD_GET(ORDMA_KEY_INDEX, key))
		return 0;
	ibdev_err(&dev->ibdev, "device returned key %#x for variant %#x\n",
		  key, variant);
	if (FIELD_GET(ORDMA_KEY_INDEX, key))
		ordma_cmd_destroy(dev, undo, key, uctx);
	return -EIO;
}

int ordma_cmd_reg_mr(struct ordma_ibdev *dev,
		     const struct ordma_cmd_reg_mr *params, u32 *key)
{
	int err;

	err = ordma_cmd_create(dev, ORDMA_CMD_REG_MR, params, sizeof(*params),
			       key);
	if (err)
		return err;
	/* in place: the MR keeps its key (and is not ours to drop) */
	if (params->flags & ORDMA_MR_REREG) {
		if (*key == le32_to_cpu(params->rereg_key))
			return 0;
		ibdev_err(&dev->ibdev, "REREG of MR %#x returned key %#x\n",
			  le32_to_cpu(params->rereg_key), *key);
		return -EIO;
	}
	return ordma_cmd_check_key(dev, ORDMA_CMD_DEREG_MR, *key, params->key,
				   le32_to_cpu(params->uctx));
}

int ordma_cmd_dereg_mr(struct ordma_ibdev *dev, u32 uctx, u32 key)
{
	return ordma_cmd_destroy(dev, ORDMA_CMD_DEREG_MR, key, uctx);
}

int ordma_cmd_alloc_mw(struct ordma_ibdev *dev,
		       const struct ordma_cmd_alloc_mw *params, u32 *rkey)
{
	int err;

	err = ordma_cmd_create(dev, ORDMA_CMD_ALLOC_MW, params,
			       sizeof(*params), rkey);
	if (err)
		return err;
	return ordma_cmd_check_key(dev, ORDMA_CMD_DEALLOC_MW, *rkey,
				   params->key, le32_to_cpu(params->uctx));
}

int ordma_cmd_dealloc_mw(struct ordma_ibdev *dev, u32 uctx, u32 rkey)
{
	return ordma_cmd_destroy(dev, ORDMA_CMD_DEALLOC_MW, rkey, uctx);
}

int ordma_cmd_create_cq(struct ordma_ibdev *dev,
			const struct ordma_cmd_create_cq *params, u32 *cqn)
{
	return ordma_cmd_create(dev, ORDMA_CMD_CREATE_CQ, params,
				sizeof(*params), cqn);
}

int ordma_cmd_destroy_cq(struct ordma_ibdev *dev, u32 uctx, u32 cqn)
{
	return ordma_cmd_destroy(dev, ORDMA_CMD_DESTROY_CQ, cqn, uctx);
}

int ordma_cmd_create_srq(struct ordma_ibdev *dev,
			 const struct ordma_cmd_create_srq *params, u32 *srqn)
{
	return ordma_cmd_create(dev, ORDMA_CMD_CREATE_SRQ, params,
				sizeof(*params), srqn);
}

int ordma_cmd_modify_srq(struct ordma_ibdev *dev, u32 uctx, u32 srqn,
			 u32 limit)
{
	struct ordma_aq_cmd cmd;

	ordma_aq_cmd_init(&cmd, ORDMA_CMD_MODIFY_SRQ);
	cmd.modify_srq.srqn = cpu_to_le32(srqn);
	cmd.modify_srq.uctx = cpu_to_le32(uctx);
	cmd.modify_srq.limit = cpu_to_le32(limit);
	return ordma_cmd_post(dev, &cmd, NULL);
}

int ordma_cmd_destroy_srq(struct ordma_ibdev *dev, u32 uctx, u32 srqn)
{
	return ordma_cmd_destroy(dev, ORDMA_CMD_DESTROY_SRQ, srqn, uctx);
}

int ordma_cmd_create_ah(struct ordma_ibdev *dev,
			const struct ordma_cmd_create_ah *params, u32 *ah)
{
	return ordma_cmd_create(dev, ORDMA_CMD_CREATE_AH, params,
				sizeof(*params), ah);
}

int ordma_cmd_destroy_ah(struct ordma_ibdev *dev, u32 uctx, u32 ah)
{
	return ordma_cmd_destroy(dev, ORDMA_CMD_DESTROY_AH, ah, uctx);
}

/* ATTACH_MCAST (attach true) or DETACH_MCAST of UD QP qpn and gid */
int ordma_cmd_mcast(struct ordma_ibdev *dev, bool attach, u32 uctx, u32 qpn,
		    const u8 gid[16])
{
	struct ordma_aq_cmd cmd;

	ordma_aq_cmd_init(&cmd, attach ? ORDMA_CMD_ATTACH_MCAST :
					 ORDMA_CMD_DETACH_MCAST);
	cmd.mcast.qpn = cpu_to_le32(qpn);
	cmd.mcast.uctx = cpu_to_le32(uctx);
	memcpy(cmd.mcast.gid, gid, sizeof(cmd.mcast.gid));
	return ordma_cmd_post(dev, &cmd, NULL);
}

/*
 * CREATE_QP, MODIFY_QP, QUERY_QP, QUERY_QP_STATS and QUERY_CQ: the
 * parameters or the answer travel in a buffer of the admin queue (which
 * keeps it if the command times out); @handle is the QP or CQ number.
 * @in is copied to the device before the command, the buffer to @out
 * after it, which must then have been written in full; either may be
 * NULL.
 */
static int ordma_cmd_qp_buf(struct ordma_ibdev *dev, u8 opcode, u32 handle,
			    const void *in, void *out, u32 len,
			    struct ordma_aq_comp *comp)
{
	struct ordma_aq_cmd cmd;
	u32 written;
	int err;

	ordma_aq_cmd_init(&cmd, opcode);
	cmd.buf.handle = cpu_to_le32(handle);
	err = ordma_client_cmd_buf(dev->cdev, &cmd, comp, in, out, len);
	if (err || !out)
		return err;

	written = le32_to_cpu(comp->buf.written);
	if (written != len) {
		ibdev_err(&dev->ibdev,
			  "admin command 0x%02x wrote %u of %u bytes\n",
			  opcode, written, len);
		return -EIO;
	}
	return 0;
}

int ordma_cmd_create_qp(struct ordma_ibdev *dev,
			const struct ordma_qp_create_params *params, u32 *qpn)
{
	struct ordma_aq_comp comp;
	int err;

	err = ordma_cmd_qp_buf(dev, ORDMA_CMD_CREATE_QP, 0, params, NULL,
			       sizeof(*params), &comp);
	if (err)
		return err;

	*qpn = le32_to_cpu(comp.handle.handle);
	return 0;
}

int ordma_cmd_modify_qp(struct ordma_ibdev *dev, u32 qpn,
			const struct ordma_qp_attr *attr)
{
	struct ordma_aq_comp comp;

	return ordma_cmd_qp_buf(dev, ORDMA_CMD_MODIFY_QP, qpn, attr, NULL,
				sizeof(*attr), &comp);
}

int ordma_cmd_query_qp(struct ordma_ibdev *dev, u32 qpn,
		       struct ordma_qp_attr *attr)
{
	struct ordma_aq_comp comp;

	return ordma_cmd_qp_buf(dev, ORDMA_CMD_QUERY_QP, qpn, NULL, attr,
				sizeof(*attr), &comp);
}

int ordma_cmd_destroy_qp(struct ordma_ibdev *dev, u32 uctx, u32 qpn)
{
	return ordma_cmd_destroy(dev, ORDMA_CMD_DESTROY_QP, qpn, uctx);
}

int ordma_cmd_query_qp_stats(struct ordma_ibdev *dev, u32 qpn,
			     struct ordma_qp_stats *stats)
{
	struct ordma_aq_comp comp;

	return ordma_cmd_qp_buf(dev, ORDMA_CMD_QUERY_QP_STATS, qpn, NULL, stats,
				sizeof(*stats), &comp);
}

int ordma_cmd_query_cq(struct ordma_ibdev *dev, u32 cqn,
		       struct ordma_cq_attr *attr)
{
	struct ordma_aq_comp comp;

	return ordma_cmd_qp_buf(dev, ORDMA_CMD_QUERY_CQ, cqn, NULL, attr,
				sizeof(*attr), &comp);
}

/*
 * iWARP connections.  IW_CONNECT, IW_ACCEPT and IW_REJECT take their
 * parameters in a buffer; IW_CONNECT's completion names the connection.
 */
int ordma_cmd_iw_create_listen(struct ordma_ibdev *dev, const u8 ip[16],
			       u16 port, u16 backlog, u32 *handle)
{
	struct ordma_cmd_iw_create_listen p = {};

	memcpy(p.ip, ip, sizeof(p.ip));
	p.port = cpu_to_le16(port);
	p.backlog = cpu_to_le16(backlog);
	return ordma_cmd_create(dev, ORDMA_CMD_IW_CREATE_LISTEN, &p, sizeof(p),
				handle);
}

static int ordma_cmd_iw_handle(struct ordma_ibdev *dev, u8 opcode,
			       u32 handle, u32 flags)
{
	struct ordma_aq_cmd cmd;

	ordma_aq_cmd_init(&cmd, opcode);
	cmd.iw_conn.handle = cpu_to_le32(handle);
	cmd.iw_conn.flags = cpu_to_le32(flags);
	return ordma_cmd_post(dev, &cmd, NULL);
}

int ordma_cmd_iw_destroy_listen(struct ordma_ibdev *dev, u32 handle)
{
	return ordma_cmd_iw_handle(dev, ORDMA_CMD_IW_DESTROY_LISTEN, handle, 0);
}

int ordma_cmd_iw_destroy_conn(struct ordma_ibdev *dev, u32 handle,
			      u32 flags)
{
	return ordma_cmd_iw_handle(dev, ORDMA_CMD_IW_DESTROY_CONN, handle,
				   flags);
}

/* IW_CONNECT (@handle: the new connection), IW_ACCEPT or IW_REJECT */
int ordma_cmd_iw_conn_params(struct ordma_ibdev *dev, u8 opcode,
			     const struct ordma_iw_conn_params *params,
			     u32 *handle)
{
	struct ordma_aq_comp comp;
	int err;

	err = ordma_cmd_qp_buf(dev, opcode, 0, params, NULL, sizeof(*params),
			       &comp);
	if (err || !handle)
		return err;
	*handle = le32_to_cpu(comp.handle.handle);
	return 0;
}

int ordma_cmd_iw_query_conn(struct ordma_ibdev *dev, u32 handle,
			    struct ordma_iw_conn_info *info)
{
	struct ordma_aq_comp comp;

	return ordma_cmd_qp_buf(dev, ORDMA_CMD_IW_QUERY_CONN, handle, NULL,
				info, sizeof(*info), &comp);
}
