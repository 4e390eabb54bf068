/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Interface of the ORDMA core driver (ordma_core) to the drivers that bind
 * its auxiliary devices (ordma_ib).  The core owns the PCI function, the
 * admin queue, the event queues and the Ethernet port; everything the RDMA
 * driver needs from the device goes through the functions below.
 */
#ifndef _LINUX_ORDMA_DRIVER_H
#define _LINUX_ORDMA_DRIVER_H

#include <linux/auxiliary_bus.h>
#include <linux/types.h>
#include <linux/ordma/ordma_hw.h>

#define ORDMA_AUX_RDMA_NAME	"rdma"	/* binds as ordma_core.rdma.<id> */

struct ordma_core_dev;
struct net_device;
struct pci_dev;

struct ordma_aux_dev {
	struct auxiliary_device adev;
	struct ordma_core_dev *cdev;
};

static inline struct ordma_aux_dev *
to_ordma_aux_dev(struct auxiliary_device *adev)
{
	return container_of(adev, struct ordma_aux_dev, adev);
}

/*
 * Callbacks of the RDMA driver; none may sleep.  The event callbacks are
 * called from the core's event queue interrupt handlers (hard IRQ
 * context).
 */
struct ordma_event_ops {
	/* PORT_CHANGE, DB_ERROR and (later) QP/CQ/SRQ async events */
	void (*async_event)(void *priv, const struct ordma_eqe *eqe);
	/* completion event for CQ cqn */
	void (*comp_event)(void *priv, u32 cqn);
	/* Optional: the device failed (fatal status, not responding, PCI
	 * channel error) and every later command fails with -ENODEV.
	 * Called at most once, in process context but possibly with the
	 * locks of the caller whose command found the device dead held.
	 */
	void (*device_fatal)(void *priv);
};

int ordma_core_register_events(struct ordma_core_dev *cdev,
			       const struct ordma_event_ops *ops, void *priv);
void ordma_core_unregister_events(struct ordma_core_dev *cdev);

/* Device facts, valid while the auxiliary device is bound */
struct pci_dev *ordma_core_pdev(struct ordma_core_dev *cdev);
struct net_device *ordma_core_netdev(struct ordma_core_dev *cdev);
const struct ordma_device_caps *ordma_core_caps(struct ordma_core_dev *cdev);
/* "major.minor.sub_minor" as reported by QUERY_FW */
const char *ordma_core_fw_version(struct ordma_core_dev *cdev);
/* The same version as numbers */
void ordma_core_fw_version_num(struct ordma_core_dev *cdev, u16 *major,
			       u16 *minor, u16 *sub_minor);
/* QUERY_DEVICE's board_id, NUL terminated, non-printable bytes as '?' */
const char *ordma_core_board_id(struct ordma_core_dev *cdev);
/* Physical address of doorbell page @page (for mmap to userspace);
 * 0 if the device has no such page.
 */
phys_addr_t ordma_core_db_page_phys(struct ordma_core_dev *cdev, u32 page);
/* The kernel's doorbell page (page 0), mapped by the core; write it with
 * 64-bit writes only (writeq()).  Valid while the auxiliary device is bound.
 */
void __iomem *ordma_core_kernel_db(struct ordma_core_dev *cdev);
u32 ordma_core_num_comp_vectors(struct ordma_core_dev *cdev);
/* EQ number of completion vector @vector (< ordma_core_num_comp_vectors());
 * 0 or -EINVAL.
 */
int ordma_core_comp_eqn(struct ordma_core_dev *cdev, u32 vector, u32 *eqn);

/*
 * Admin commands.  All may sleep; they return 0 or a negative errno that
 * maps the device's completion status (BAD_OPCODE/NOT_SUPPORTED ->
 * -EOPNOTSUPP, BAD_PARAM -> -EINVAL, BAD_HANDLE -> -ENOENT, NO_RESOURCES ->
 * -ENOSPC, BUSY -> -EBUSY, PERM -> -EPERM, DMA_ERROR -> -EIO, timeout ->
 * -ETIMEDOUT, device dead -> -ENODEV; BAD_STATE -> -EINVAL, INTERNAL,
 * unknown statuses and a completion with a garbled token -> -EIO).
 * ordma_cmd_exec() fills @comp (may be NULL) whenever the device
 * completed the command intact, also on a non-OK status.
 * After -ETIMEDOUT or -ENODEV the device may still act on the command:
 * memory it names must stay allocated and mapped until the device is
 * reset (the core's removal).
 */
int ordma_cmd_exec(struct ordma_core_dev *cdev, struct ordma_aq_cmd *cmd,
		   struct ordma_aq_comp *comp);
int ordma_cmd_query_device(struct ordma_core_dev *cdev,
			   struct ordma_device_caps *caps);
int ordma_cmd_query_port(struct ordma_core_dev *cdev,
			 struct ordma_port_attr *attr);
int ordma_cmd_query_stats(struct ordma_core_dev *cdev,
			  struct ordma_port_stats *stats);
int ordma_cmd_add_gid(struct ordma_core_dev *cdev, u32 index,
		      const u8 gid[16], const u8 mac[6], u16 vlan_id);
int ordma_cmd_del_gid(struct ordma_core_dev *cdev, u32 index);
/* On success *uctx is the context id and its doorbell page index. */
int ordma_cmd_alloc_uctx(struct ordma_core_dev *cdev, u32 *uctx);
int ordma_cmd_dealloc_uctx(struct ordma_core_dev *cdev, u32 uctx);
int ordma_cmd_alloc_pd(struct ordma_core_dev *cdev, u32 uctx, u32 *pdn);
int ordma_cmd_dealloc_pd(struct ordma_core_dev *cdev, u32 uctx, u32 pdn);

/*
 * Verbs objects (v1.1).  The caller fills the command payloads in device
 * layout; reserved fields must be zero.  Every object is owned by @uctx
 * (ORDMA_KERNEL_UCTX for kernel objects); destroy commands pass the same
 * owner.
 */
/* On success *key is the new MR's lkey and rkey. */
int ordma_cmd_reg_mr(struct ordma_core_dev *cdev,
		     const struct ordma_cmd_reg_mr *params, u32 *key);
int ordma_cmd_dereg_mr(struct ordma_core_dev *cdev, u32 uctx, u32 key);
/* On success *rkey is the new window's first rkey. */
int ordma_cmd_alloc_mw(struct ordma_core_dev *cdev,
		       const struct ordma_cmd_alloc_mw *params, u32 *rkey);
int ordma_cmd_dealloc_mw(struct ordma_core_dev *cdev, u32 uctx, u32 rkey);
int ordma_cmd_create_cq(struct ordma_core_dev *cdev,
			const struct ordma_cmd_create_cq *params, u32 *cqn);
int ordma_cmd_destroy_cq(struct ordma_core_dev *cdev, u32 uctx, u32 cqn);
int ordma_cmd_create_srq(struct ordma_core_dev *cdev,
			 const struct ordma_cmd_create_srq *params, u32 *srqn);
int ordma_cmd_modify_srq(struct ordma_core_dev *cdev, u32 uctx, u32 srqn,
			 u32 limit);
int ordma_cmd_destroy_srq(struct ordma_core_dev *cdev, u32 uctx, u32 srqn);
int ordma_cmd_create_ah(struct ordma_core_dev *cdev,
			const struct ordma_cmd_create_ah *params, u32 *ah);
int ordma_cmd_destroy_ah(struct ordma_core_dev *cdev, u32 uctx, u32 ah);
int ordma_cmd_mcast(struct ordma_core_dev *cdev, bool attach, u32 uctx,
		    u32 qpn, const u8 gid[16]);
/* The QP commands pass their parameters in a DMA buffer of the core. */
int ordma_cmd_create_qp(struct ordma_core_dev *cdev,
			const struct ordma_qp_create_params *params, u32 *qpn);
int ordma_cmd_modify_qp(struct ordma_core_dev *cdev, u32 qpn,
			const struct ordma_qp_attr *attr);
int ordma_cmd_query_qp(struct ordma_core_dev *cdev, u32 qpn,
		       struct ordma_qp_attr *attr);
int ordma_cmd_destroy_qp(struct ordma_core_dev *cdev, u32 uctx, u32 qpn);

#endif /* _LINUX_ORDMA_DRIVER_H */
