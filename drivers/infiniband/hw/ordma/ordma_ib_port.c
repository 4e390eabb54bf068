// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA RDMA driver: a port configured for the InfiniBand link layer.
 * The device's subnet management agent owns PortInfo; the driver reads it
 * through QUERY_PORT, hands the MADs the RDMA core's MAD layer receives
 * to the device's agents (PROCESS_MAD), and turns the device's port
 * change events into the core's port, LID, SM, P_Key and GID events.
 */

#include <linux/bitfield.h>
#include <linux/slab.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_smi.h>

#include "ordma_ib.h"

static enum ib_port_state ordma_ib_port_state(u8 state)
{
	switch (state) {
	case ORDMA_PORT_INIT:
		return IB_PORT_INIT;
	case ORDMA_PORT_ARMED:
		return IB_PORT_ARMED;
	case ORDMA_PORT_ACTIVE:
		return IB_PORT_ACTIVE;
	case ORDMA_PORT_DOWN:
	default:
		return IB_PORT_DOWN;
	}
}

/*
 * The lane rate and width that carry the port's speed: the widest of
 * 4X, 2X and 1X whose lanes run at a rate the IB specification names.
 */
static void ordma_ib_speed_width(u32 mbps, u16 *speed, u8 *width)
{
	static const struct {
		u32 lane_mbps;
		u16 speed;
	} rates[] = {
		{ 100000, IB_SPEED_NDR }, { 50000, IB_SPEED_HDR },
		{ 25000, IB_SPEED_EDR }, { 14000, IB_SPEED_FDR },
		{ 10000, IB_SPEED_QDR }, { 5000, IB_SPEED_DDR },
		{ 2500, IB_SPEED_SDR },
	};
	static const struct {
		u32 lanes;
		u8 width;
	} widths[] = {
		{ 4, IB_WIDTH_4X }, { 2, IB_WIDTH_2X }, { 1, IB_WIDTH_1X },
	};
	unsigned int w, r;

	for (w = 0; w < ARRAY_SIZE(widths); w++) {
		for (r = 0; r < ARRAY_SIZE(rates); r++) {
			if (mbps == rates[r].lane_mbps * widths[w].lanes) {
				*speed = rates[r].speed;
				*width = widths[w].width;
				return;
			}
		}
	}
	*speed = IB_SPEED_SDR;
	*width = IB_WIDTH_1X;
}

void ordma_ib_fill_port_attr(struct ordma_ibdev *dev,
			     const struct ordma_port_attr *hw,
			     struct ib_port_attr *attr)
{
	attr->state = ordma_ib_port_state(hw->state);
	attr->lid = le16_to_cpu(hw->lid);
	attr->sm_lid = le16_to_cpu(hw->sm_lid);
	attr->lmc = min_t(u8, hw->lmc, 7);
	attr->sm_sl = hw->sm_sl & 0xf;
	attr->subnet_timeout = hw->subnet_timeout & 0x1f;
	attr->port_cap_flags = le32_to_cpu(hw->port_cap_flags);
	attr->max_vl_num = clamp_t(u32, le32_to_cpu(hw->max_vl_num), 1, 4);
	attr->pkey_tbl_len = max_t(u8, hw->pkey_table_len, 1);
	attr->gid_tbl_len = 1;
	attr->ip_gids = false;
	ordma_ib_speed_width(le32_to_cpu(hw->speed_mbps), &attr->active_speed,
			     &attr->active_width);
}

/* The device holds one P_Key, the one the subnet manager set. */
int ordma_ib_query_pkey(struct ordma_ibdev *dev, u16 index, u16 *pkey)
{
	struct ordma_port_attr hw;
	int err;

	err = ordma_cmd_query_port(dev->cdev, &hw);
	if (err)
		return err;
	if (index >= max_t(u8, hw.pkey_table_len, 1))
		return -EINVAL;
	*pkey = le16_to_cpu(hw.pkey);
	return 0;
}

/* One GID: the subnet prefix the SM set and the port GUID. */
int ordma_ib_query_gid(struct ib_device *ibdev, u32 port, int index,
		       union ib_gid *gid)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(ibdev);
	struct ordma_port_attr hw;
	int err;

	if (index != 0)
		return -EINVAL;
	err = ordma_cmd_query_port(dev->cdev, &hw);
	if (err)
		return err;
	gid->global.subnet_prefix = hw.gid_prefix;
	gid->global.interface_id = hw.port_guid;
	return 0;
}

int ordma_ib_modify_port(struct ib_device *ibdev, u32 port, int mask,
			 struct ib_port_modify *props)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(ibdev);
	struct ordma_aq_cmd cmd;

	if (mask & ~IB_PORT_SHUTDOWN & ~IB_PORT_INIT_TYPE &
	    ~IB_PORT_RESET_QKEY_CNTR)
		return -EINVAL;
	if (mask)
		return -EOPNOTSUPP;
	if ((props->set_port_cap_mask | props->clr_port_cap_mask) &
	    ~ORDMA_IB_PORT_HOST_CAPS)
		return -EOPNOTSUPP;
	if (!props->set_port_cap_mask && !props->clr_port_cap_mask)
		return 0;

	ordma_aq_cmd_init(&cmd, ORDMA_CMD_MODIFY_IB_PORT);
	cmd.modify_ib_port.port = cpu_to_le32(port);
	cmd.modify_ib_port.set_cap_mask = cpu_to_le32(props->set_port_cap_mask);
	cmd.modify_ib_port.clr_cap_mask = cpu_to_le32(props->clr_port_cap_mask);
	return ordma_client_cmd(dev->cdev, &cmd, NULL);
}

/*
 * Called by the MAD layer for every MAD QP0 and QP1 receive and for the
 * SMPs this host sends to its own port; may sleep.  The device decides:
 * it answers (REPLY), takes (CONSUMED) or leaves the MAD to the host's
 * agents (SUCCESS alone).
 */
int ordma_ib_process_mad(struct ib_device *ibdev, int mad_flags, u32 port,
			 const struct ib_wc *in_wc, const struct ib_grh *in_grh,
			 const struct ib_mad *in, struct ib_mad *out,
			 size_t *out_mad_size, u16 *out_mad_pkey_index)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(ibdev);
	struct ordma_aq_comp comp = {};
	struct ordma_aq_cmd cmd;
	u8 *buf;
	u32 result;
	int err;

	if (*out_mad_size < ORDMA_MAD_SIZE)
		return IB_MAD_RESULT_FAILURE;

	buf = kzalloc(ORDMA_MAD_BUF_SIZE, GFP_KERNEL);
	if (!buf)
		return IB_MAD_RESULT_FAILURE;
	memcpy(buf, in, ORDMA_MAD_SIZE);

	ordma_aq_cmd_init(&cmd, ORDMA_CMD_PROCESS_MAD);
	cmd.process_mad.port = cpu_to_le32(port);
	if (in_wc) {
		cmd.process_mad.slid = cpu_to_le16(ib_lid_cpu16(in_wc->slid));
		cmd.process_mad.sl = in_wc->sl & 0xf;
	} else {
		cmd.process_mad.flags |= ORDMA_MAD_FLAG_LOCAL;
	}
	if (mad_flags & IB_MAD_IGNORE_MKEY)
		cmd.process_mad.flags |= ORDMA_MAD_FLAG_IGNORE_MKEY;

	/* The response, when there is one, follows the request. */
	err = ordma_client_cmd_buf(dev->cdev, &cmd, &comp, buf, buf,
				   ORDMA_MAD_BUF_SIZE);
	if (err) {
		ibdev_dbg(ibdev, "PROCESS_MAD class %#x attr %#x failed: %d\n",
			  in->mad_hdr.mgmt_class,
			  be16_to_cpu(in->mad_hdr.attr_id), err);
		kfree(buf);
		return IB_MAD_RESULT_FAILURE;
	}

	result = le32_to_cpu(comp.process_mad.result);
	if (le32_to_cpu(comp.process_mad.drop))
		ibdev_dbg(ibdev, "device dropped MAD class %#x attr %#x: %u\n",
			  in->mad_hdr.mgmt_class,
			  be16_to_cpu(in->mad_hdr.attr_id),
			  le32_to_cpu(comp.process_mad.drop));
	if (result & ORDMA_MAD_RESULT_REPLY) {
		if (le32_to_cpu(comp.process_mad.written) !=
		    ORDMA_MAD_BUF_SIZE) {
			kfree(buf);
			return IB_MAD_RESULT_FAILURE;
		}
		memcpy(out, buf + ORDMA_MAD_SIZE, ORDMA_MAD_SIZE);
		*out_mad_size = ORDMA_MAD_SIZE;
	}
	kfree(buf);

	return (result & ORDMA_MAD_RESULT_SUCCESS ? IB_MAD_RESULT_SUCCESS : 0) |
	       (result & ORDMA_MAD_RESULT_REPLY ? IB_MAD_RESULT_REPLY : 0) |
	       (result & ORDMA_MAD_RESULT_CONSUMED ? IB_MAD_RESULT_CONSUMED : 0);
}

/*
 * Hard IRQ context.  @changed: ORDMA_PORT_CHANGE_* of the event; each
 * becomes the core's event, and the core's cache re-reads the port.
 */
void ordma_ib_port_event(struct ordma_ibdev *dev, u32 state, u32 changed)
{
	static const struct {
		u32 bit;
		enum ib_event_type event;
	} map[] = {
		{ ORDMA_PORT_CHANGE_LID, IB_EVENT_LID_CHANGE },
		{ ORDMA_PORT_CHANGE_SM, IB_EVENT_SM_CHANGE },
		{ ORDMA_PORT_CHANGE_PKEY, IB_EVENT_PKEY_CHANGE },
		{ ORDMA_PORT_CHANGE_GID, IB_EVENT_GID_CHANGE },
		{ ORDMA_PORT_CHANGE_CLIENT_REREG, IB_EVENT_CLIENT_REREGISTER },
	};
	struct ib_event event = {
		.device = &dev->ibdev,
		.element.port_num = ORDMA_PORT_NUM,
	};
	unsigned int i;

	/* Before registration the core has no port data to update. */
	if (!READ_ONCE(dev->port_events)) {
		ibdev_dbg(&dev->ibdev, "port event %#x before registration\n",
			  changed);
		return;
	}
	/* Armed is on the way to Active: users wait for Active. */
	if ((changed & ORDMA_PORT_CHANGE_STATE) && state != ORDMA_PORT_ARMED) {
		event.event = state == ORDMA_PORT_ACTIVE ? IB_EVENT_PORT_ACTIVE :
							   IB_EVENT_PORT_ERR;
		ib_dispatch_event(&event);
	}
	for (i = 0; i < ARRAY_SIZE(map); i++) {
		if (!(changed & map[i].bit))
			continue;
		event.event = map[i].event;
		ib_dispatch_event(&event);
	}
}

/*
 * ib_register_device() has read the port; what changed since, while the
 * events could not reach the core yet, is told now.
 */
void ordma_ib_port_registered(struct ordma_ibdev *dev)
{
	struct ib_event event = {
		.device = &dev->ibdev,
		.element.port_num = ORDMA_PORT_NUM,
	};
	enum ib_port_state cached_state;
	struct ordma_port_attr hw;

	WRITE_ONCE(dev->port_events, true);
	if (ordma_cmd_query_port(dev->cdev, &hw) ||
	    ib_get_cached_port_state(&dev->ibdev, ORDMA_PORT_NUM,
				     &cached_state))
		return;
	if (ordma_ib_port_state(hw.state) != cached_state &&
	    hw.state != ORDMA_PORT_ARMED) {
		event.event = hw.state == ORDMA_PORT_ACTIVE ?
			      IB_EVENT_PORT_ACTIVE : IB_EVENT_PORT_ERR;
		ib_dispatch_event(&event);
	}
	/* A subnet manager may have assigned the LID meanwhile. */
	if (hw.lid) {
		event.event = IB_EVENT_LID_CHANGE;
		ib_dispatch_event(&event);
	}
}

/* The node description the device's agent answers in NodeDescription */
int ordma_ib_set_node_desc(struct ordma_ibdev *dev, const char *desc)
{
	char buf[ORDMA_NODE_DESC_SIZE] = {};
	struct ordma_aq_cmd cmd;

	strscpy_pad(buf, desc, sizeof(buf));
	ordma_aq_cmd_init(&cmd, ORDMA_CMD_SET_NODE_DESC);
	cmd.set_node_desc.port = cpu_to_le32(ORDMA_PORT_NUM);
	return ordma_client_cmd_buf(dev->cdev, &cmd, NULL, buf, NULL,
				    sizeof(buf));
}

/* echo NAME > /sys/class/infiniband/ordmaN/node_desc */
int ordma_ib_modify_device(struct ib_device *ibdev, int mask,
			   struct ib_device_modify *props)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(ibdev);
	int err;

	if (mask & ~IB_DEVICE_MODIFY_NODE_DESC)
		return -EOPNOTSUPP;
	if (!(mask & IB_DEVICE_MODIFY_NODE_DESC))
		return 0;
	err = ordma_ib_set_node_desc(dev, props->node_desc);
	if (err)
		return err;
	memcpy(ibdev->node_desc, props->node_desc, IB_DEVICE_NODE_DESC_MAX);
	return 0;
}
