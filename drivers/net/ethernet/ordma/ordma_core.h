/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* ORDMA RoCE RNIC core driver: private definitions.
 *
 * struct ordma_core_dev is the per-PCI-function state shared by the files
 * of ordma_core; other modules only see it as an opaque handle through
 * <linux/ordma/driver.h>.
 */
#ifndef _ORDMA_CORE_H
#define _ORDMA_CORE_H

#include <linux/atomic.h>
#include <linux/bitfield.h>
#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/if_ether.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/rcupdate.h>
#include <linux/semaphore.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <linux/ordma/driver.h>
#include <linux/ordma/ordma_hw.h>

#define ORDMA_DRV_NAME			KBUILD_MODNAME

/* Admin queue depth the driver asks for (bounded by REG_CAPS) */
#define ORDMA_AQ_LOG_DEPTH		6

#define ORDMA_ASYNC_EQ_LOG_SIZE		8
#define ORDMA_COMP_EQ_LOG_SIZE		10

/*
 * Default ring sizes.  RX is deeper: a RoCE stack running over the netdev
 * (rxe) receives bursts of a whole READ response, 1 MiB at path MTU 1024
 * overran a 256-entry ring.
 */
#define ORDMA_ETH_RX_RING_LOG_SIZE	10
#define ORDMA_ETH_TX_RING_LOG_SIZE	8

/* Health poller period and how many stalled heartbeats make a report */
#define ORDMA_HEALTH_POLL_MS		2000
#define ORDMA_HEARTBEAT_STALL_POLLS	3

/* cdev->state bits */
#define ORDMA_STATE_FATAL		0

/* Sentinel read from a device that fell off the bus */
#define ORDMA_REG_DEAD			0xffffffffU

struct ordma_core_dev;

/* A DMA buffer named by a command (QUERY_* output).  It is owned by the
 * admin queue once a command using it timed out, because the device may
 * still write to it; the queue frees it on the late completion or after
 * the device reset at teardown.
 */
struct ordma_cmd_dma {
	void *va;
	dma_addr_t dma;
	u32 len;
};

enum ordma_cmd_slot_state {
	ORDMA_SLOT_FREE,
	ORDMA_SLOT_PENDING,	/* a caller sleeps on it */
	ORDMA_SLOT_ABANDONED,	/* timed out: quarantined until completed */
};

struct ordma_cmd_wait {
	struct completion done;
	struct ordma_aq_comp comp;
	int err;
};

struct ordma_cmd_slot {
	struct ordma_cmd_wait *wait;
	struct ordma_cmd_dma *buf;	/* named by the command, or NULL */
	u16 token;
	u8 state;		/* enum ordma_cmd_slot_state */
	u8 opcode;
};

/* One admin command the device was given, for the fw_fatal dump */
#define ORDMA_CMD_HISTORY		16

struct ordma_cmd_record {
	u64 start_ns;		/* ktime_get_ns() at submission */
	u32 duration_us;
	int err;		/* ordma_cmdq_exec()'s result */
	u16 token;
	u8 opcode;
	u8 status;		/* the completion's, when err == 0 */
};

struct ordma_cmdq {
	struct ordma_aq_cmd *sq;
	dma_addr_t sq_dma;
	struct ordma_aq_comp *cq;
	dma_addr_t cq_dma;
	struct ordma_cmd_slot *slots;
	u32 log_depth;
	u32 depth;
	/* Bounds the commands in flight to the queue depth, so the device
	 * can never overrun the completion ring it does not track.
	 */
	struct semaphore avail;
	/* Protects everything below and the slots. */
	spinlock_t lock;
	u16 pi;			/* free-running producer index == next token */
	u16 cq_ci;		/* free-running completion consumer index */
	u8 cq_phase;
	bool dead;
	u32 timeouts;
	u32 late_completions;
	u32 stray_completions;
	struct ordma_cmd_record history[ORDMA_CMD_HISTORY];
	u32 history_count;	/* free-running */
	/* The queue's owner, told when a command finds the device failed
	 * (fatal status or no longer on the bus); process context.  Set by
	 * ordma_cmdq_init(), so the queue never calls up into probe code.
	 */
	void (*device_failed)(struct ordma_core_dev *cdev);
};

struct ordma_eq {
	struct ordma_core_dev *cdev;
	struct ordma_eqe *ring;
	dma_addr_t ring_dma;
	u32 log_size;
	u32 ci;			/* free-running consumer index */
	u8 phase;
	u8 type;		/* enum ordma_eq_type */
	bool created;		/* device object exists */
	bool irq_requested;
	u16 vector;
	u32 eqn;
};

/* Driver-side copy of the HEALTH completion, CPU endian */
struct ordma_health_info {
	u32 state;
	u32 heartbeat;
	u32 cmd_errors;
	u32 db_errors;
	u32 eq_overruns;
};

struct ordma_fw_info {
	u16 major;
	u16 minor;
	u16 sub_minor;
	u32 build;
	u32 hw_version;
};

/* SET_PORT arguments; only the fields named in mask are sent. */
struct ordma_port_cfg {
	u32 mask;		/* ORDMA_SET_PORT_* */
	u32 mtu;
	u8 mac[ETH_ALEN];
	bool admin_up;
	u8 rx_mode;		/* ORDMA_RX_MODE_* */
};

struct ordma_event_sub {
	const struct ordma_event_ops *ops;
	void *priv;
};

struct ordma_core_dev {
	struct pci_dev *pdev;
	struct devlink *devlink;
	void __iomem *regs;
	void __iomem *db;		/* kernel doorbell page (page 0) */
	u32 num_db_pages;
	u32 hw_version;
	u32 max_aq_log;
	u32 dev_num_vectors;		/* REG_CAPS.NUM_VECTORS */
	unsigned int ready_timeout_ms;
	unsigned int cmd_timeout_ms;
	unsigned long state;		/* ORDMA_STATE_* bits */

	struct ordma_cmdq cmdq;

	int num_irq_vectors;		/* allocated MSI-X vectors */
	bool admin_irq_requested;
	struct ordma_eq async_eq;
	bool async_eq_active;		/* IRQ 0 may look at async_eq */
	struct ordma_eq *comp_eqs;
	u32 num_comp_eqs;

	struct ordma_device_caps caps;
	struct ordma_fw_info fw;
	char fw_version[32];
	/* The version that ran before a reload fw_activate, for its report */
	char fw_version_before[32];
	char serial[sizeof_field(struct ordma_device_caps, serial) + 1];
	char board_id[sizeof_field(struct ordma_device_caps, board_id) + 1];

	struct ordma_event_sub __rcu *events;
	struct mutex events_lock;	/* serialises (un)registration */
	atomic64_t db_error_events;
	atomic64_t async_events;

	struct net_device *ndev;
	/* Serialises carrier updates from PORT_CHANGE events and from port
	 * queries; port_event_seq tells a query that an event overtook it.
	 */
	spinlock_t port_lock;
	u32 port_event_seq;
	bool port_events;		/* ndev may take carrier updates */

	/* Under the devlink instance lock: the function is reset and not
	 * enabled (ordma_core_stop()), is being removed, or is inside a
	 * Function Level Reset.
	 */
	bool stopped;
	bool removing;
	bool in_flr;
	unsigned long flr_start;	/* jiffies at reset_prepare */

	struct workqueue_struct *wq;
	struct delayed_work health_work;
	struct work_struct fatal_report_work;
	struct devlink_health_reporter *fw_reporter;
	struct devlink_health_reporter *fw_fatal_reporter;
	u32 last_heartbeat;
	u32 heartbeat_stalls;
	bool heartbeat_reported;
	bool fatal_reported;

	struct dentry *debugfs;
	struct debugfs_regset32 regset;	/* debugfs "regs" */
	struct ordma_aux_dev *aux;
	/* Under the devlink instance lock: the devlink parameters
	 * enable_roce and enable_iwarp.  The RDMA device exists only with
	 * rdma_enabled; it speaks rdma_proto (enum ordma_port_proto), which
	 * every start of the function applies again.
	 */
	bool rdma_enabled;
	u8 rdma_proto;
	bool rdma_params;		/* the parameters are registered */
};

static inline u32 ordma_rd32(struct ordma_core_dev *cdev, u32 reg)
{
	return readl(cdev->regs + reg);
}

static inline void ordma_wr32(struct ordma_core_dev *cdev, u32 reg, u32 val)
{
	writel(val, cdev->regs + reg);
}

/* Kernel doorbell page: 64-bit writes only */
static inline void ordma_ring_db(struct ordma_core_dev *cdev, u32 reg, u32 qn,
				 u32 idx, bool arm)
{
	u64 val = FIELD_PREP(ORDMA_DB_QN, qn) | FIELD_PREP(ORDMA_DB_IDX, idx);

	if (arm)
		val |= ORDMA_DB_ARM;
	writeq(val, cdev->db + reg);
}

static inline struct device *ordma_dev(struct ordma_core_dev *cdev)
{
	return &cdev->pdev->dev;
}

/* ordma_cmdq.c */
int ordma_cmdq_init(struct ordma_core_dev *cdev,
		    void (*device_failed)(struct ordma_core_dev *cdev));
void ordma_cmdq_destroy(struct ordma_core_dev *cdev);
void ordma_cmdq_restart(struct ordma_core_dev *cdev);
void ordma_cmdq_program(struct ordma_core_dev *cdev);
void ordma_cmdq_open(struct ordma_core_dev *cdev);
unsigned int ordma_cmdq_history(struct ordma_core_dev *cdev,
				struct ordma_cmd_record *out);
void ordma_cmdq_process(struct ordma_core_dev *cdev);
void ordma_cmdq_mark_dead(struct ordma_core_dev *cdev);
int ordma_cmdq_exec(struct ordma_core_dev *cdev, struct ordma_aq_cmd *cmd,
		    struct ordma_aq_comp *comp, struct ordma_cmd_dma *buf);
struct ordma_cmd_dma *ordma_cmd_dma_alloc(struct ordma_core_dev *cdev,
					  u32 len);
void ordma_cmd_dma_free(struct ordma_core_dev *cdev,
			struct ordma_cmd_dma *buf);
int ordma_cmd_status_to_errno(u8 status);

/* ordma_cmd.c */
int ordma_cmd_query_device(struct ordma_core_dev *cdev,
			   struct ordma_device_caps *caps);
/* Objects the device holds now, per type, and its maxima.  -EOPNOTSUPP
 * from a firmware without QUERY_RESOURCES.
 */
int ordma_cmd_query_resources(struct ordma_core_dev *cdev,
			      struct ordma_resources *res);
int ordma_cmd_query_fw(struct ordma_core_dev *cdev, struct ordma_fw_info *fw);
int ordma_cmd_set_port(struct ordma_core_dev *cdev,
		       const struct ordma_port_cfg *cfg);
/* enum ordma_port_proto; -EBUSY while RDMA objects exist */
int ordma_cmd_set_rdma_protocol(struct ordma_core_dev *cdev, u8 protocol);
int ordma_cmd_health(struct ordma_core_dev *cdev,
		     struct ordma_health_info *info);
int ordma_cmd_create_eq(struct ordma_core_dev *cdev, dma_addr_t ring,
			u8 log_size, u8 type, u16 vector, u32 *eqn);
int ordma_cmd_destroy_eq(struct ordma_core_dev *cdev, u32 eqn);
int ordma_cmd_create_eth_ring(struct ordma_core_dev *cdev, dma_addr_t ring,
			      u8 log_size, u8 type, u32 eqn, u32 *ring_id);
int ordma_cmd_destroy_eth_ring(struct ordma_core_dev *cdev, u32 ring_id);
/* INJECT_FAULT (enum ordma_fault); -EOPNOTSUPP without the capability */
int ordma_cmd_inject_fault(struct ordma_core_dev *cdev, u32 fault, u32 count,
			   u32 arg);
/* Firmware update (ORDMA_DEV_CAP_FLASH).  FLASH_WRITE sends @len bytes,
 * at most ORDMA_AQ_MAX_BUF, at @offset of the image.  FLASH_COMMIT
 * returns -EINVAL with the enum ordma_image_error in @syndrome when the
 * device refuses the image.
 */
int ordma_cmd_flash_write(struct ordma_core_dev *cdev, const void *data,
			  u32 len, u32 offset);
int ordma_cmd_flash_commit(struct ordma_core_dev *cdev, u32 size,
			   u32 *syndrome);
int ordma_cmd_query_flash(struct ordma_core_dev *cdev,
			  struct ordma_flash_info *info);
int ordma_cmd_fw_activate(struct ordma_core_dev *cdev);

/* ordma_eq.c */
int ordma_admin_irq_request(struct ordma_core_dev *cdev);
void ordma_admin_irq_free(struct ordma_core_dev *cdev);
int ordma_eqs_create(struct ordma_core_dev *cdev);
void ordma_eqs_destroy(struct ordma_core_dev *cdev);
void ordma_eqs_free(struct ordma_core_dev *cdev);
void ordma_events_device_fatal(struct ordma_core_dev *cdev);

/* ordma_netdev.c */
int ordma_netdev_create(struct ordma_core_dev *cdev);
void ordma_netdev_unregister(struct ordma_core_dev *cdev);
void ordma_netdev_free(struct ordma_core_dev *cdev);
void ordma_netdev_eth_event(struct ordma_core_dev *cdev, u32 ring_id);
void ordma_netdev_port_event(struct ordma_core_dev *cdev, u32 state);
void ordma_netdev_ring_error(struct ordma_core_dev *cdev, u32 ring_id);
void ordma_netdev_device_dead(struct ordma_core_dev *cdev);
void ordma_netdev_detach(struct ordma_core_dev *cdev);
void ordma_netdev_suspend(struct ordma_core_dev *cdev);
void ordma_netdev_reclaim(struct ordma_core_dev *cdev);
int ordma_netdev_resume(struct ordma_core_dev *cdev);

/* ordma_devlink.c */
struct devlink *ordma_devlink_alloc(struct device *dev);
int ordma_health_init(struct ordma_core_dev *cdev);
int ordma_rdma_params_register(struct ordma_core_dev *cdev);
void ordma_rdma_params_unregister(struct ordma_core_dev *cdev);
void ordma_health_start(struct ordma_core_dev *cdev);
void ordma_health_stop(struct ordma_core_dev *cdev);
void ordma_health_fini(struct ordma_core_dev *cdev);
void ordma_health_cancel_report(struct ordma_core_dev *cdev);
const char *ordma_health_state_name(u32 state);

/* ordma_debugfs.c */
extern const struct debugfs_reg32 ordma_readable_regs[];
extern const unsigned int ordma_num_readable_regs;
void ordma_debugfs_register(void);
void ordma_debugfs_unregister(void);
void ordma_debugfs_add(struct ordma_core_dev *cdev);
void ordma_debugfs_remove(struct ordma_core_dev *cdev);

/* ordma_aux.c */
int ordma_aux_add(struct ordma_core_dev *cdev);
void ordma_aux_del(struct ordma_core_dev *cdev);
int ordma_rdma_add(struct ordma_core_dev *cdev);
void ordma_aux_exit(void);

/* ordma_main.c */
void ordma_device_fatal(struct ordma_core_dev *cdev);
void ordma_core_stop(struct ordma_core_dev *cdev);
int ordma_core_start(struct ordma_core_dev *cdev);
int ordma_core_reinit(struct ordma_core_dev *cdev);

#endif /* _ORDMA_CORE_H */
