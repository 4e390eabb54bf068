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
 * completed the command intact, also on a non-OK status.  Whether memory
 * a failed command named may be freed: ordma_device_may_use_memory().
 * -ENODEV means the core has stopped the device's DMA (bus mastering off)
 * before returning it.
 */
int ordma_cmd_exec(struct ordma_core_dev *cdev, struct ordma_aq_cmd *cmd,
		   struct ordma_aq_comp *comp);
/*
 * Memory the driver hands to the device (queue rings, MTT and page-list
 * tables, fast-register page arrays) is freed only once the device no
 * longer uses it; memory the device may still use is leaked on purpose,
 * never freed.  The object's create command (CREATE_CQ/QP/SRQ, REG_MR,
 * also REREG's new pages) hands it over, its destroy command (DESTROY_*,
 * DEREG_MR) takes it back.
 */
enum ordma_mem_cmd {
	ORDMA_MEM_CREATE,
	ORDMA_MEM_DESTROY,
};

/*
 * ordma_device_may_use_memory() - may the device use the memory after
 * the command returned @err?
 *
 * True: keep the memory allocated and DMA-mapped (leak it); false: free
 * it.  After 0, a create hands the memory over (true) and a destroy takes
 * it back (false).  -ENODEV and -ENOENT (no such object in the device):
 * false, the device cannot DMA or holds nothing.  -ETIMEDOUT and -EIO
 * (no answer, or one that is garbled or reports an internal error): true,
 * the device may execute the command late.  Any other error: the device
 * did nothing, so a create gave nothing (false) and a destroy left the
 * object live (true).
 */
bool ordma_device_may_use_memory(enum ordma_mem_cmd cmd, int err);

int ordma_cmd_query_device(struct ordma_core_dev *cdev,
			   struct ordma_device_caps *caps);
int ordma_cmd_query_port(struct ordma_core_dev *cdev,
			 struct ordma_port_attr *attr);
int ordma_cmd_query_stats(struct ordma_core_dev *cdev,
			  struct ordma_port_stats *stats);
/* Objects the device holds now, per type, and its maxima.  -EOPNOTSUPP
 * from a firmware without QUERY_RESOURCES.
 */
int ordma_cmd_query_resources(struct ordma_core_dev *cdev,
			      struct ordma_resources *res);
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
