// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA RDMA driver: device, port, GID, user context, PD and mmap verbs.
 */

#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/ordma-abi.h>
#include <rdma/rdma_netlink.h>
#include <rdma/restrack.h>
#include <rdma/uverbs_ioctl.h>

#include "ordma_ib.h"

/* The verbs attributes are ints; never let a device value turn negative. */
static int ordma_attr_int(__le32 val)
{
	return min_t(u32, le32_to_cpu(val), INT_MAX);
}

/* The RDMA core expects the default P_Key at index 0, even on RoCE. */
static u16 ordma_pkey_table_len(const struct ordma_ibdev *dev)
{
	return clamp_t(u32, le32_to_cpu(dev->caps.pkey_table_len), 1, U16_MAX);
}

int ordma_query_device(struct ib_device *ibdev, struct ib_device_attr *attr,
		       struct ib_udata *udata)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(ibdev);
	const struct ordma_device_caps *caps = &dev->caps;
	u32 cap_flags = le32_to_cpu(caps->cap_flags);
	u64 max_res_rd_atom;

	/* No driver-specific request is defined: accept only zeroes. */
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen)) {
		ibdev_dbg(ibdev, "query_device: unknown udata request\n");
		return -EINVAL;
	}

	memset(attr, 0, sizeof(*attr));
	attr->fw_ver = dev->fw_ver;
	attr->sys_image_guid = caps->sys_image_guid;
	attr->max_mr_size = le64_to_cpu(caps->max_mr_size);
	attr->page_size_cap = le64_to_cpu(caps->page_size_cap);
	attr->vendor_id = le32_to_cpu(caps->vendor_id);
	attr->vendor_part_id = le32_to_cpu(caps->vendor_part_id);
	attr->hw_ver = le32_to_cpu(caps->hw_rev);
	attr->max_qp = ordma_attr_int(caps->max_qp);
	attr->max_qp_wr = ordma_attr_int(caps->max_qp_wr);
	attr->max_send_sge = ordma_attr_int(caps->max_send_sge);
	attr->max_recv_sge = ordma_attr_int(caps->max_recv_sge);
	attr->max_sge_rd = ordma_attr_int(caps->max_sge_rd);
	attr->max_cq = ordma_attr_int(caps->max_cq);
	attr->max_cqe = ordma_attr_int(caps->max_cqe);
	attr->max_mr = ordma_attr_int(caps->max_mr);
	attr->max_pd = ordma_attr_int(caps->max_pd);
	attr->max_qp_rd_atom = ordma_attr_int(caps->max_qp_rd_atom);
	attr->max_qp_init_rd_atom = ordma_attr_int(caps->max_qp_init_rd_atom);
	max_res_rd_atom = (u64)attr->max_qp * attr->max_qp_rd_atom;
	attr->max_res_rd_atom = min_t(u64, max_res_rd_atom, INT_MAX);
	attr->max_ah = ordma_attr_int(caps->max_ah);
	attr->max_srq = ordma_attr_int(caps->max_srq);
	attr->max_srq_wr = ordma_attr_int(caps->max_srq_wr);
	attr->max_srq_sge = ordma_attr_int(caps->max_srq_sge);
	attr->max_pkeys = ordma_pkey_table_len(dev);
	attr->local_ca_ack_delay = min_t(u32,
					 le32_to_cpu(caps->local_ca_ack_delay),
					 U8_MAX);
	attr->device_cap_flags = IB_DEVICE_PORT_ACTIVE_EVENT |
				 IB_DEVICE_SYS_IMAGE_GUID |
				 IB_DEVICE_RC_RNR_NAK_GEN |
				 IB_DEVICE_CURR_QP_STATE_MOD;
	attr->atomic_cap = IB_ATOMIC_NONE;
	attr->masked_atomic_cap = IB_ATOMIC_NONE;
	if (cap_flags & ORDMA_DEV_CAP_FAST_REG) {
		attr->device_cap_flags |= IB_DEVICE_MEM_MGT_EXTENSIONS;
		attr->max_fast_reg_page_list_len = ORDMA_MTT_ENTRIES_PER_PAGE;
	}
	if (cap_flags & ORDMA_DEV_CAP_ATOMIC)
		attr->atomic_cap = IB_ATOMIC_HCA;
	/* PERSISTENT is granted per MR, on persistent memory (ordma_mr.c) */
	if (cap_flags & ORDMA_DEV_CAP_FLUSH)
		attr->device_cap_flags |= IB_DEVICE_FLUSH_GLOBAL |
					  IB_DEVICE_FLUSH_PERSISTENT;
	if (cap_flags & ORDMA_DEV_CAP_ATOMIC_WRITE)
		attr->device_cap_flags |= IB_DEVICE_ATOMIC_WRITE;
	if (cap_flags & ORDMA_DEV_CAP_MW) {
		attr->device_cap_flags |= IB_DEVICE_MEM_WINDOW |
					  IB_DEVICE_MEM_WINDOW_TYPE_2B;
		attr->max_mw = ordma_attr_int(caps->max_mw);
	}
	if (cap_flags & ORDMA_DEV_CAP_MCAST) {
		attr->max_mcast_grp = ordma_attr_int(caps->max_mcast_grp);
		attr->max_mcast_qp_attach =
			ordma_attr_int(caps->max_mcast_qp_attach);
		attr->max_total_mcast_qp_attach =
			ordma_attr_int(caps->max_total_mcast_qp_attach);
	}
	/* iWARP: an RDMA Read Request names one sink buffer; no RNR */
	if (ordma_port_is_iwarp(dev)) {
		attr->max_sge_rd = 1;
		attr->device_cap_flags &= ~IB_DEVICE_RC_RNR_NAK_GEN;
	}
	if (!(cap_flags & ORDMA_DEV_CAP_SRQ)) {
		attr->max_srq = 0;
		attr->max_srq_wr = 0;
		attr->max_srq_sge = 0;
	}
	return 0;
}

static enum ib_port_phys_state ordma_phys_state(u8 phys_state)
{
	switch (phys_state) {
	case ORDMA_PORT_PHYS_POLLING:
		return IB_PORT_PHYS_STATE_POLLING;
	case ORDMA_PORT_PHYS_LINK_UP:
		return IB_PORT_PHYS_STATE_LINK_UP;
	case ORDMA_PORT_PHYS_DISABLED:
	default:
		return IB_PORT_PHYS_STATE_DISABLED;
	}
}

int ordma_query_port(struct ib_device *ibdev, u32 port,
		     struct ib_port_attr *attr)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(ibdev);
	struct ordma_port_attr hw = {};
	int err;

	/* The device owns the port state: ask it every time. */
	err = ordma_cmd_query_port(dev->cdev, &hw);
	if (err) {
		ibdev_err_ratelimited(ibdev, "QUERY_PORT failed: %d\n", err);
		return err;
	}

	attr->phys_state = ordma_phys_state(hw.phys_state);
	attr->max_mtu = ib_mtu_int_to_enum(ordma_attr_int(hw.max_ib_mtu));
	attr->active_mtu = ib_mtu_int_to_enum(ordma_attr_int(hw.active_ib_mtu));
	attr->max_msg_sz = le32_to_cpu(dev->caps.max_msg_size);
	if (ordma_port_is_ib(dev)) {
		ordma_ib_fill_port_attr(dev, &hw, attr);
		return 0;
	}

	attr->state = hw.state == ORDMA_PORT_ACTIVE ? IB_PORT_ACTIVE :
						      IB_PORT_DOWN;
	if (ordma_port_is_iwarp(dev)) {
		/* one GID, the MAC address (ordma_iw_query_gid()) */
		attr->gid_tbl_len = 1;
	} else {
		attr->gid_tbl_len = ordma_attr_int(hw.gid_table_len);
		attr->ip_gids = true;
	}
	attr->port_cap_flags = IB_PORT_CM_SUP;
	attr->pkey_tbl_len = ordma_pkey_table_len(dev);
	attr->max_vl_num = 1;

	/* Speed and width come from the port's netdev (ethtool). */
	err = ib_get_eth_speed(ibdev, port, &attr->active_speed,
			       &attr->active_width);
	if (err) {
		ibdev_dbg(ibdev, "no link speed from the netdev: %d\n", err);
		attr->active_speed = IB_SPEED_SDR;
		attr->active_width = IB_WIDTH_1X;
	}

	return 0;
}

int ordma_get_port_immutable(struct ib_device *ibdev, u32 port,
			     struct ib_port_immutable *immutable)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(ibdev);
	struct ib_port_attr attr;
	int err;

	err = ib_query_port(ibdev, port, &attr);
	if (err)
		return err;

	immutable->pkey_tbl_len = attr.pkey_tbl_len;
	immutable->gid_tbl_len = attr.gid_tbl_len;
	/* An InfiniBand port: QP0 and QP1 are checked at probe. */
	if (ordma_port_is_ib(dev)) {
		immutable->core_cap_flags = RDMA_CORE_PORT_IBA_IB;
		immutable->max_mad_size = IB_MGMT_MAD_SIZE;
		return 0;
	}
	/* iw_cm serves the port, and with it rdma_cm; no MADs */
	if (ordma_port_is_iwarp(dev)) {
		immutable->core_cap_flags = RDMA_CORE_PORT_IWARP;
		immutable->max_mad_size = 0;
		return 0;
	}
	/*
	 * With a GSI QP (QP1) ib_mad and ib_cm serve the port, and with
	 * them rdma_cm.  A device without one gets neither, rather than a
	 * MAD layer failing on its GSI QP.
	 */
	if (le32_to_cpu(dev->caps.cap_flags) & ORDMA_DEV_CAP_GSI) {
		immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
		immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	} else {
		immutable->core_cap_flags = RDMA_CORE_CAP_PROT_ROCE_UDP_ENCAP |
					    RDMA_CORE_CAP_ETH_AH;
		immutable->max_mad_size = 0;
	}

	return 0;
}

enum rdma_link_layer ordma_get_link_layer(struct ib_device *ibdev, u32 port)
{
	return ordma_port_is_ib(to_ordma_ibdev(ibdev)) ?
	       IB_LINK_LAYER_INFINIBAND : IB_LINK_LAYER_ETHERNET;
}

/* RoCE has no partitions: every table entry is the default P_Key. */
int ordma_query_pkey(struct ib_device *ibdev, u32 port, u16 index, u16 *pkey)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(ibdev);

	if (ordma_port_is_ib(dev))
		return ordma_ib_query_pkey(dev, index, pkey);
	if (index >= ordma_pkey_table_len(dev))
		return -EINVAL;

	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

int ordma_add_gid(const struct ib_gid_attr *attr, void **context)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(attr->device);
	u16 vlan_id;
	u8 mac[ETH_ALEN];
	int err;

	switch (attr->gid_type) {
	case IB_GID_TYPE_ROCE_UDP_ENCAP:
		break;
	case IB_GID_TYPE_ROCE:
		return -EOPNOTSUPP;
	default:
		return -EINVAL;
	}

	/* vlan_id is ORDMA_VLAN_NONE (0xffff) when the netdev is untagged */
	err = rdma_read_gid_l2_fields(attr, &vlan_id, mac);
	if (err)
		return err;

	err = ordma_cmd_add_gid(dev, attr->index, ORDMA_GID_TYPE_ROCE_V2,
				attr->gid.raw, mac, vlan_id);
	if (err)
		ibdev_err(&dev->ibdev, "ADD_GID %u failed: %d\n", attr->index,
			  err);

	return err;
}

int ordma_del_gid(const struct ib_gid_attr *attr, void **context)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(attr->device);
	int err;

	err = ordma_cmd_del_gid(dev, attr->index);
	ordma_report_destroy(dev, err, "DEL_GID %u", attr->index);

	return err;
}

void ordma_get_dev_fw_str(struct ib_device *ibdev, char *str)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(ibdev);

	strscpy(str, dev->info.fw_version, IB_FW_VERSION_NAME_MAX);
}

static struct rdma_user_mmap_entry *
ordma_user_mmap_entry_insert(struct ib_ucontext *ibucontext,
			     phys_addr_t address, size_t length, u64 *offset)
{
	struct ordma_user_mmap_entry *entry;
	int err;

	entry = kzalloc(sizeof(*entry), GFP_KERNEL);
	if (!entry)
		return NULL;

	entry->address = address;
	err = rdma_user_mmap_entry_insert(ibucontext, &entry->rdma_entry,
					  length);
	if (err) {
		kfree(entry);
		return NULL;
	}

	*offset = rdma_user_mmap_get_offset(&entry->rdma_entry);
	return &entry->rdma_entry;
}

int ordma_alloc_ucontext(struct ib_ucontext *ibucontext,
			 struct ib_udata *udata)
{
	struct ordma_ucontext *uctx = to_ordma_ucontext(ibucontext);
	struct ordma_ibdev *dev = to_ordma_ibdev(ibucontext->device);
	struct ordma_alloc_ucontext_resp resp = {};
	phys_addr_t db_phys;
	int err;

	/*
	 * A doorbell page is the unit of isolation between contexts; a
	 * larger CPU page would map the neighbouring contexts' doorbells.
	 */
	if (PAGE_SIZE != ORDMA_DB_PAGE_SIZE) {
		ibdev_dbg(&dev->ibdev,
			  "doorbell pages cannot be mapped with %lu byte pages\n",
			  PAGE_SIZE);
		return -EOPNOTSUPP;
	}

	if (udata->inlen && !ib_is_udata_cleared(udata, 0, udata->inlen)) {
		ibdev_dbg(&dev->ibdev, "alloc_ucontext: unknown udata request\n");
		return -EINVAL;
	}

	/* ordma_cmd_alloc_uctx() refuses a context id that is not a user
	 * doorbell page of this device, so the page below is never the
	 * kernel's.
	 */
	err = ordma_cmd_alloc_uctx(dev, &uctx->uctx_id);
	if (err) {
		ibdev_dbg(&dev->ibdev, "ALLOC_UCTX failed: %d\n", err);
		return err;
	}

	db_phys = dev->info.db_phys +
		  ((phys_addr_t)uctx->uctx_id << ORDMA_DB_PAGE_SHIFT);
	uctx->db_mmap_entry =
		ordma_user_mmap_entry_insert(ibucontext, db_phys, PAGE_SIZE,
					     &resp.db_mmap_key);
	if (!uctx->db_mmap_entry) {
		err = -ENOMEM;
		goto err_dealloc_uctx;
	}

	resp.uctx_id = uctx->uctx_id;
	resp.db_page_size = ORDMA_DB_PAGE_SIZE;
	resp.max_inline_data = le32_to_cpu(dev->caps.max_inline_data);

	err = ib_copy_to_udata(udata, &resp, min(sizeof(resp), udata->outlen));
	if (err)
		goto err_remove_entry;

	ibdev_dbg(&dev->ibdev, "uctx %u, doorbell mmap key %#llx\n",
		  uctx->uctx_id, resp.db_mmap_key);
	return 0;

err_remove_entry:
	rdma_user_mmap_entry_remove(uctx->db_mmap_entry);
err_dealloc_uctx:
	ordma_cmd_dealloc_uctx(dev, uctx->uctx_id);
	return err;
}

void ordma_dealloc_ucontext(struct ib_ucontext *ibucontext)
{
	struct ordma_ucontext *uctx = to_ordma_ucontext(ibucontext);
	struct ordma_ibdev *dev = to_ordma_ibdev(ibucontext->device);
	int err;

	/*
	 * No mapping of the doorbell page is left at this point: the
	 * context goes away only once every VMA is closed, or after the
	 * core zapped them on disassociation.  The page may be reused.
	 */
	rdma_user_mmap_entry_remove(uctx->db_mmap_entry);

	err = ordma_cmd_dealloc_uctx(dev, uctx->uctx_id);
	ordma_report_destroy(dev, err, "DEALLOC_UCTX %u", uctx->uctx_id);
}

/*
 * Providing this op lets the core tear down user contexts when the device
 * goes away (unbind, reset) instead of waiting for every process to close
 * its file: it zaps the doorbell mappings and then calls the regular
 * destroy verbs, so there is nothing extra to release here.
 */
void ordma_disassociate_ucontext(struct ib_ucontext *ibucontext)
{
}

int ordma_mmap(struct ib_ucontext *ibucontext, struct vm_area_struct *vma)
{
	struct ib_device *ibdev = ibucontext->device;
	struct rdma_user_mmap_entry *rdma_entry;
	struct ordma_user_mmap_entry *entry;
	int err;

	/* Doorbells are device registers: never executable. */
	if (vma->vm_flags & VM_EXEC)
		return -EPERM;

	/* Checks VM_SHARED and that the length matches the entry. */
	rdma_entry = rdma_user_mmap_entry_get(ibucontext, vma);
	if (!rdma_entry) {
		ibdev_dbg(ibdev, "no mmap entry at pgoff %#lx, length %#lx\n",
			  vma->vm_pgoff, vma->vm_end - vma->vm_start);
		return -EINVAL;
	}
	entry = to_ordma_mmap_entry(rdma_entry);

	vm_flags_clear(vma, VM_MAYEXEC);
	err = rdma_user_mmap_io(ibucontext, vma, PHYS_PFN(entry->address),
				rdma_entry->npages * PAGE_SIZE,
				pgprot_noncached(vma->vm_page_prot),
				rdma_entry);
	if (err)
		ibdev_dbg(ibdev, "mmap of pgoff %#lx failed: %d\n",
			  vma->vm_pgoff, err);

	rdma_user_mmap_entry_put(rdma_entry);
	return err;
}

void ordma_mmap_free(struct rdma_user_mmap_entry *rdma_entry)
{
	kfree(to_ordma_mmap_entry(rdma_entry));
}

int ordma_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(ibpd->device);
	struct ordma_pd *pd = to_ordma_pd(ibpd);
	struct ordma_alloc_pd_resp resp = {};
	struct ordma_ucontext *uctx;
	int err;

	pd->uctx_id = ORDMA_KERNEL_UCTX;
	if (udata) {
		if (udata->inlen &&
		    !ib_is_udata_cleared(udata, 0, udata->inlen)) {
			ibdev_dbg(&dev->ibdev,
				  "alloc_pd: unknown udata request\n");
			return -EINVAL;
		}
		uctx = rdma_udata_to_drv_context(udata, struct ordma_ucontext,
						 ibucontext);
		pd->uctx_id = uctx->uctx_id;
	}

	err = ordma_cmd_alloc_pd(dev, pd->uctx_id, &pd->pdn);
	if (err) {
		ibdev_dbg(&dev->ibdev, "ALLOC_PD failed: %d\n", err);
		return err;
	}

	if (udata) {
		resp.pdn = pd->pdn;
		err = ib_copy_to_udata(udata, &resp,
				       min(sizeof(resp), udata->outlen));
		if (err)
			goto err_dealloc_pd;
	}

	return 0;

err_dealloc_pd:
	ordma_cmd_dealloc_pd(dev, pd->uctx_id, pd->pdn);
	return err;
}

int ordma_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(ibpd->device);
	struct ordma_pd *pd = to_ordma_pd(ibpd);
	int err;

	/* AHs of this PD destroyed in atomic context go first. */
	flush_workqueue(dev->wq);

	/*
	 * The core cannot recover from a failed destroy (it warns and leaks
	 * the object).  The device refuses only on a driver bug or when it
	 * is gone; report it and let the PD go.
	 */
	err = ordma_cmd_dealloc_pd(dev, pd->uctx_id, pd->pdn);
	ordma_report_destroy(dev, err, "DEALLOC_PD %u", pd->pdn);

	return 0;
}

/* Driver attributes that "rdma resource show -dd" prints */
struct ordma_res_attr {
	const char *name;
	u32 value;
};

static int ordma_fill_res(struct sk_buff *msg,
			  const struct ordma_res_attr *attrs, int n)
{
	struct nlattr *table;
	int i;

	table = nla_nest_start(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	for (i = 0; i < n; i++) {
		if (rdma_nl_put_driver_u32(msg, attrs[i].name,
					   attrs[i].value)) {
			nla_nest_cancel(msg, table);
			return -EMSGSIZE;
		}
	}
	nla_nest_end(msg, table);
	return 0;
}

int ordma_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq)
{
	struct ordma_cq *cq = to_ordma_cq(ibcq);
	const struct ordma_res_attr attrs[] = {
		{ "cqn", cq->cqn },
		{ "uctx", cq->uctx_id },
		{ "log_size", cq->log_size },
		{ "depth", 1U << cq->log_size },
	};

	return ordma_fill_res(msg, attrs, ARRAY_SIZE(attrs));
}

static int ordma_fill_res_qp(struct sk_buff *msg, struct ordma_qp *qp,
			     const struct ordma_qp_attr *hw)
{
	const struct ordma_res_attr attrs[] = {
		{ "uctx", qp->uctx_id },
		{ "hw_state", hw->state },
		{ "sq_psn", le32_to_cpu(hw->sq_psn) },
		{ "rq_psn", le32_to_cpu(hw->rq_psn) },
		{ "sq_depth", 1U << qp->sq.log_size },
		{ "sq_log_size", qp->sq.log_size },
		{ "sq_wqe_shift", qp->sq.wqe_shift },
		/* no RQ of its own on an SRQ */
		{ "rq_depth", qp->ibqp.srq ? 0 : 1U << qp->rq.log_size },
		{ "rq_log_size", qp->rq.log_size },
		{ "rq_wqe_shift", qp->rq.wqe_shift },
		{ "max_inline_data", qp->max_inline_data },
		{ "timeout", hw->timeout },
		{ "retry_cnt", hw->retry_cnt },
		{ "rnr_retry", hw->rnr_retry },
		{ "min_rnr_timer", hw->min_rnr_timer },
		{ "max_rd_atomic", hw->max_rd_atomic },
		{ "max_dest_rd_atomic", hw->max_dest_rd_atomic },
	};

	return ordma_fill_res(msg, attrs, ARRAY_SIZE(attrs));
}

/* "rdma resource show cq -r": the device's QUERY_CQ answer as it came */
int ordma_fill_res_cq_entry_raw(struct sk_buff *msg, struct ib_cq *ibcq)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(ibcq->device);
	struct ordma_cq_attr hw;
	int err;

	err = ordma_cmd_query_cq(dev, to_ordma_cq(ibcq)->cqn, &hw);
	if (err)
		return err;
	return nla_put(msg, RDMA_NLDEV_ATTR_RES_RAW, sizeof(hw), &hw);
}

/* The QP as the driver and the device (QUERY_QP, zero if it fails) see it */
int ordma_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(ibqp->device);
	struct ordma_qp *qp = to_ordma_qp(ibqp);
	struct ordma_qp_attr hw;

	if (ordma_cmd_query_qp(dev, qp->qpn, &hw))
		memset(&hw, 0, sizeof(hw));
	return ordma_fill_res_qp(msg, qp, &hw);
}

/* "rdma resource show qp -r": the device's QUERY_QP answer as it came */
int ordma_fill_res_qp_entry_raw(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(ibqp->device);
	struct ordma_qp_attr hw;
	int err;

	err = ordma_cmd_query_qp(dev, to_ordma_qp(ibqp)->qpn, &hw);
	if (err)
		return err;
	return nla_put(msg, RDMA_NLDEV_ATTR_RES_RAW, sizeof(hw), &hw);
}

int ordma_fill_res_mr_entry(struct sk_buff *msg, struct ib_mr *ibmr)
{
	struct ordma_mr *mr = to_ordma_mr(ibmr);
	const struct ordma_res_attr attrs[] = {
		{ "uctx", mr->uctx_id },
		{ "key", mr->ibmr.lkey },
		{ "page_shift", mr->pbl.hw.page_shift },
		{ "page_size", mr->pbl.hw.page_shift ?
			       1U << mr->pbl.hw.page_shift : 0 },
		{ "levels", mr->pbl.hw.levels },
		{ "num_pages", le32_to_cpu(mr->pbl.hw.num_pages) },
		{ "max_pages", mr->max_pages },
	};

	return ordma_fill_res(msg, attrs, ARRAY_SIZE(attrs));
}

int ordma_fill_res_srq_entry(struct sk_buff *msg, struct ib_srq *ibsrq)
{
	struct ordma_srq *srq = to_ordma_srq(ibsrq);
	const struct ordma_res_attr attrs[] = {
		{ "srqn", srq->srqn },
		{ "uctx", srq->uctx_id },
		{ "log_size", srq->wq.log_size },
		{ "wqe_shift", srq->wq.wqe_shift },
	};

	return ordma_fill_res(msg, attrs, ARRAY_SIZE(attrs));
}
