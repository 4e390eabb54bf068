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
#include <linux/string.h>
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
	/* every event of the async EQ (PORT_CHANGE, DB_ERROR, the QP, CQ
	 * and SRQ events), after the core's own handling of it
	 */
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
struct ordma_core_info {
	struct pci_dev *pdev;
	struct net_device *netdev;		/* the RoCE port */
	const struct ordma_device_caps *caps;	/* QUERY_DEVICE */
	/* The port's RDMA protocol (enum ordma_port_proto): RoCEv2, or on
	 * an Ethernet port whose devlink enable_iwarp is on, iWARP
	 */
	u8 rdma_protocol;
	/* "major.minor.sub_minor" as reported by QUERY_FW, and as numbers */
	const char *fw_version;
	u16 fw_major;
	u16 fw_minor;
	u16 fw_sub_minor;
	/* QUERY_DEVICE's board_id, NUL terminated, non-printable bytes as '?' */
	const char *board_id;
	/* The kernel's doorbell page (page 0), mapped by the core; write it
	 * with 64-bit writes only (writeq()).
	 */
	void __iomem *kernel_db;
	/* Physical address of doorbell page 0 (pages follow at
	 * ORDMA_DB_PAGE_SIZE strides, for mmap to userspace)
	 */
	phys_addr_t db_phys;
	u32 num_db_pages;
	u32 num_comp_vectors;
};

void ordma_core_get_info(struct ordma_core_dev *cdev,
			 struct ordma_core_info *info);
/* EQ number of completion vector @vector (< num_comp_vectors); 0 or -EINVAL. */
int ordma_core_comp_eqn(struct ordma_core_dev *cdev, u32 vector, u32 *eqn);

/*
 * Admin commands.  A client builds the command in device layout
 * (ordma_aq_cmd_init() first: reserved fields must be zero) and posts it;
 * the core assigns the token.  Both calls may sleep and return 0 or a
 * negative errno that maps the device's completion status
 * (BAD_OPCODE/NOT_SUPPORTED -> -EOPNOTSUPP, BAD_PARAM -> -EINVAL,
 * BAD_HANDLE -> -ENOENT, NO_RESOURCES -> -ENOSPC, BUSY -> -EBUSY, PERM ->
 * -EPERM, DMA_ERROR -> -EIO, timeout -> -ETIMEDOUT, device dead ->
 * -ENODEV; BAD_STATE -> -EINVAL, INTERNAL, unknown statuses and a
 * completion with a garbled token -> -EIO).  @comp (may be NULL) is
 * filled whenever the device completed the command intact, also on a
 * non-OK status.  -ENODEV means the core has stopped the device's DMA
 * (bus mastering off) before returning it.
 */
static inline void ordma_aq_cmd_init(struct ordma_aq_cmd *cmd, u8 opcode)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->hdr.opcode = opcode;
}

int ordma_client_cmd(struct ordma_core_dev *cdev, struct ordma_aq_cmd *cmd,
		     struct ordma_aq_comp *comp);
/*
 * A command that names a parameter buffer (struct ordma_cmd_buf or
 * ordma_cmd_query_buf): the core allocates @len bytes, copies @in (may be
 * NULL) into them, fills buf_addr and buf_len and posts @cmd.  On success
 * the bytes the device wrote (comp->buf.written, at most @len, else -EIO)
 * are copied to @out (may be NULL) and the rest of @out is zeroed.  The
 * buffer stays with the admin queue while the device may still write it
 * (a timed-out command).
 */
int ordma_client_cmd_buf(struct ordma_core_dev *cdev,
			 struct ordma_aq_cmd *cmd, struct ordma_aq_comp *comp,
			 const void *in, void *out, u32 len);

/* Queries the core runs for itself and offers as they are */
int ordma_cmd_query_port(struct ordma_core_dev *cdev,
			 struct ordma_port_attr *attr);
int ordma_cmd_query_stats(struct ordma_core_dev *cdev,
			  struct ordma_port_stats *stats);

#endif /* _LINUX_ORDMA_DRIVER_H */
