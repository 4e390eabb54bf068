/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * ORDMA firmware: the device engine behind the PCI function.
 *
 * The firmware is portable C11.  It sees the outside world only through
 * the hardware abstraction layer below (DMA, interrupts, the Ethernet
 * port, a clock and one timer), so the same code runs inside the QEMU
 * device model and inside host unit tests and fuzzers.
 *
 * Concurrency: every entry point must be called with the caller's lock
 * for this device held (QEMU: the device's fw_lock, see
 * tools/qemu/ordma-pci.h); the firmware never calls back into the HAL
 * from another thread, and HAL calls must not wait for anything that a
 * thread waiting for that lock may hold.
 */
#ifndef ORDMA_FW_H
#define ORDMA_FW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ordma_fw_log_level {
	ORDMA_FW_LOG_GUEST_ERROR,	/* driver did something invalid */
	ORDMA_FW_LOG_UNIMP,		/* valid but not implemented */
	ORDMA_FW_LOG_TRACE,
};

/*
 * Firmware trace: one fixed-size binary record per event of the engine,
 * handed to the HAL's optional trace() as it happens.  The firmware
 * formats nothing and reads no clock for it (the host stamps each
 * record: the same clock as its wire capture, and a replayed firmware
 * makes the same HAL calls with tracing on or off).  Records only grow
 * at the end and kinds are only added, so a host reads the records of
 * an older or newer firmware image: it skips kinds it does not know.
 *
 * What the fields mean, by kind (unused fields are 0; a QPN of
 * ORDMA_FW_TRACE_NO_QPN means none):
 *
 *  kind        qpn        psn    index       len      aux       opcode    status
 *  ADMIN       -          -      AQ index    -        token     admin op  cmd status
 *  DOORBELL    queue num  -      value       -        page      register  -
 *  WQE         QP         1st PSN WQE index  length   -         WQE op    -
 *  TX          local QP   PSN    -           payload  dest QP   BTH op    AETH syndrome
 *  RX          dest QP    PSN    -           payload  -         BTH op    AETH syndrome
 *  RX_DROP     dest QP    PSN    -           -        parse why BTH op    enum fw drop
 *  RETRANSMIT  QP         PSN    WQE index   -        retries   -         reason
 *  CQE         QP         -      WQE index   byte_len CQN       CQE op    CQE status
 *  EQE         object     -      EQ producer -        EQN       EQE type  post result
 *  MSIX        -          -      vector      -        -         -         -
 *  QP_STATE    QP         -      -           -        -         old state new state
 *  DMA_READ    QP         -      -           length   -         -         0 ok, 1 failed
 *  DMA_WRITE   (as DMA_READ)
 *
 * addr is the DMA address (DMA_*), the remote VA (WQE of an RDMA or
 * atomic operation), or 0.  The QP of a DMA access is the one whose
 * work the engine was doing when it made it (ORDMA_FW_TRACE_NO_QPN when
 * it was not working on a QP, e.g. for an admin command).  AETH
 * syndromes are reported for packets that carry an AETH, 0 otherwise.
 * RX_DROP's aux is the parse drop reason when the frame did not parse
 * (status ORDMA_FW_TRACE_DROP_PARSE), or the link drop reason when an
 * InfiniBand packet failed the port's checks (ORDMA_FW_TRACE_DROP_IB_LINK);
 * its QPN, PSN and opcode are then those of the BTH as received if the
 * parser found one (a bad ICRC), else ORDMA_FW_TRACE_NO_QPN, 0 and 0.
 */
enum ordma_fw_trace_kind {
	ORDMA_FW_TRACE_ADMIN		= 1,
	ORDMA_FW_TRACE_DOORBELL		= 2,
	ORDMA_FW_TRACE_WQE		= 3,
	ORDMA_FW_TRACE_TX		= 4,
	ORDMA_FW_TRACE_RX		= 5,
	ORDMA_FW_TRACE_RX_DROP		= 6,
	ORDMA_FW_TRACE_RETRANSMIT	= 7,
	ORDMA_FW_TRACE_CQE		= 8,
	ORDMA_FW_TRACE_EQE		= 9,
	ORDMA_FW_TRACE_MSIX		= 10,
	ORDMA_FW_TRACE_QP_STATE		= 11,
	ORDMA_FW_TRACE_DMA_READ		= 12,
	ORDMA_FW_TRACE_DMA_WRITE	= 13,
};

#define ORDMA_FW_TRACE_NO_QPN		0xffffffffu

/* RETRANSMIT reasons */
enum ordma_fw_trace_rexmit {
	ORDMA_FW_TRACE_REXMIT_TIMEOUT	= 1,	/* ACK timeout */
	ORDMA_FW_TRACE_REXMIT_NAK_SEQ	= 2,	/* PSN sequence error NAK */
	ORDMA_FW_TRACE_REXMIT_RNR	= 3,	/* RNR NAK: resend after wait */
	ORDMA_FW_TRACE_REXMIT_IMPLIED	= 4,	/* implied NAK: a later
						 * response came first
						 */
};

/* RX_DROP status: why the engine dropped a received RoCE frame */
enum ordma_fw_trace_drop {
	ORDMA_FW_TRACE_DROP_PARSE	= 0,	/* aux: the parse reason */
	ORDMA_FW_TRACE_DROP_NO_QP,
	ORDMA_FW_TRACE_DROP_TRANSPORT,
	ORDMA_FW_TRACE_DROP_STATE,
	ORDMA_FW_TRACE_DROP_PKEY,
	ORDMA_FW_TRACE_DROP_SRC,
	ORDMA_FW_TRACE_DROP_QKEY,
	ORDMA_FW_TRACE_DROP_NO_RECV,
	ORDMA_FW_TRACE_DROP_UD_LEN,
	ORDMA_FW_TRACE_DROP_SEQ,
	ORDMA_FW_TRACE_DROP_DUP,
	ORDMA_FW_TRACE_DROP_OPCODE_SEQ,
	ORDMA_FW_TRACE_DROP_BAD_REQ,
	ORDMA_FW_TRACE_DROP_RNR,
	ORDMA_FW_TRACE_DROP_RESP,
	/* an InfiniBand port's link checks; aux: enum fw_ib_rx_drop */
	ORDMA_FW_TRACE_DROP_IB_LINK,
};

struct ordma_fw_trace {
	uint64_t addr;
	uint32_t qpn;
	uint32_t psn;
	uint32_t index;
	uint32_t len;
	uint32_t aux;
	uint16_t kind;		/* enum ordma_fw_trace_kind */
	uint8_t opcode;
	uint8_t status;
};

/* What a device's flash holds (struct ordma_flash_info, in CPU order) */
struct ordma_fw_flash_info {
	uint32_t running;		/* slot, or ORDMA_FLASH_NO_SLOT */
	uint32_t active;
	uint32_t pending;		/* or ORDMA_FLASH_NO_SLOT */
	uint32_t activation;		/* enum ordma_flash_activation */
	struct {
		uint32_t state;		/* enum ordma_flash_slot_state */
		uint16_t fw_major;
		uint16_t fw_minor;
		uint16_t fw_sub_minor;
		uint32_t fw_build;
	} slot[2];
};

struct ordma_hal_ops {
	/* DMA between device and host memory; 0 on success, -1 on a
	 * bus/IOMMU error.
	 */
	int (*dma_read)(void *ctx, uint64_t addr, void *buf, size_t len);
	int (*dma_write)(void *ctx, uint64_t addr, const void *buf, size_t len);
	/* Raise MSI-X vector (the HAL honours masking and pending bits). */
	void (*msix_notify)(void *ctx, unsigned int vector);
	/* Put one Ethernet frame (no FCS) on the wire. */
	void (*tx_frame)(void *ctx, const void *frame, size_t len);
	/* Monotonic device clock in nanoseconds. */
	uint64_t (*now_ns)(void *ctx);
	/* Arm the single device timer to fire at absolute time expire_ns
	 * (replacing any earlier deadline); on expiry the HAL calls
	 * ordma_fw_timer_expired().  UINT64_MAX cancels it.
	 */
	void (*timer_arm)(void *ctx, uint64_t expire_ns);
	void (*log)(void *ctx, enum ordma_fw_log_level level, const char *msg);
	/* Optional: frames the wire (cable, PHY) lost since the device was
	 * created: ones it could not send, and received ones it dropped
	 * before they reached the device.
	 */
	void (*wire_drops)(void *ctx, uint64_t *tx, uint64_t *rx);
	/* Optional: faults the wire's impairment model injected into frames
	 * this port sent since the device was created: ORDMA_WIRE_FAULTS
	 * counters indexed by enum ordma_wire_fault (ordma_admin.h).
	 */
	void (*wire_faults)(void *ctx, uint64_t *faults);
	/* Optional: one trace record (see struct ordma_fw_trace).  Only
	 * looked at when the device is created: NULL costs nothing.
	 */
	void (*trace)(void *ctx, const struct ordma_fw_trace *rec);
	/*
	 * Optional, all four or none: the device's flash, which checks and
	 * stores firmware images (ORDMA_DEV_CAP_FLASH; hw-reference,
	 * "Firmware update").  flash_write stores bytes [off, off + len) of
	 * the image being written: 0, or -1 if they would not fit a slot.
	 * flash_commit checks the len-byte image and makes it the pending
	 * slot: 0, or why it refused it (enum ordma_image_error).
	 * flash_query describes the flash.  flash_activate: the pending
	 * slot runs from the next reset; 0, or -1 if no slot is pending.
	 */
	int (*flash_write)(void *ctx, uint32_t off, const void *data,
			   uint32_t len);
	int (*flash_commit)(void *ctx, uint32_t len);
	void (*flash_query)(void *ctx, struct ordma_fw_flash_info *info);
	int (*flash_activate)(void *ctx);
};

/*
 * Configuration limits of the device model.  Vector 0 serves the admin
 * queue, so at least one more is needed for completions; doorbell page 0
 * is the kernel's, and REG_DB_CAPS has 16 bits for the page count.
 */
#define ORDMA_FW_MIN_VECTORS		2
#define ORDMA_FW_MAX_VECTORS		64
#define ORDMA_FW_MIN_DB_PAGES		2
#define ORDMA_FW_MAX_DB_PAGES		65535

/*
 * The fields up to speed_mbps are ABI 1.0's; later minors append, and a
 * model hands a firmware of minor 1 or later its size (create_sized).
 */
struct ordma_fw_config {
	uint8_t mac[6];
	char serial[16];		/* NUL padded */
	unsigned int num_vectors;	/* MSI-X vectors, ORDMA_FW_*_VECTORS */
	unsigned int num_db_pages;	/* BAR2 pages, ORDMA_FW_*_DB_PAGES */
	unsigned int speed_mbps;
	/* ABI 1.1 */
	uint8_t link_layer;		/* enum ordma_link_layer (ordma_admin.h) */
};

#define ORDMA_FW_CONFIG_SIZE_1_0	offsetof(struct ordma_fw_config, link_layer)

struct ordma_fw;

/*
 * EUI-64 of a MAC in network order (flip the universal/local bit, put
 * ff:fe in the middle): the node GUID, and the PCIe Device Serial Number.
 */
static inline void ordma_fw_mac_to_eui64(const uint8_t mac[6],
					 uint8_t eui[8])
{
	eui[0] = mac[0] ^ 0x02;
	eui[1] = mac[1];
	eui[2] = mac[2];
	eui[3] = 0xff;
	eui[4] = 0xfe;
	eui[5] = mac[3];
	eui[6] = mac[4];
	eui[7] = mac[5];
}

/*
 * The board this firmware and device model are: QUERY_DEVICE's board_id,
 * and what a firmware image must name to be accepted (ordma_image.h).
 */
#define ORDMA_FW_BOARD_ID		"ORDMA-RNIC-V1"

/*
 * Version of the firmware's entry table, the interface between a device
 * model and a firmware image it loads (struct ordma_fw_image): the
 * functions below, struct ordma_hal_ops and struct ordma_fw_config.  A
 * new major breaks it.  A new minor only appends: entries to the table,
 * which a model uses only if the image's abi_minor has them, and HAL
 * operations, which a firmware checks for NULL as it does every optional
 * one.  So any minor of a major works with any other.
 */
#define ORDMA_FW_ABI_MAJOR		1
#define ORDMA_FW_ABI_MINOR		1

/* Returns NULL on allocation failure or an invalid configuration. */
struct ordma_fw *ordma_fw_create(const struct ordma_hal_ops *ops, void *ctx,
				 const struct ordma_fw_config *cfg);
/*
 * The same from a configuration of cfg_size bytes, which may be another
 * minor's: fields beyond it are 0, bytes beyond this minor's ignored.
 */
struct ordma_fw *ordma_fw_create_sized(const struct ordma_hal_ops *ops,
				       void *ctx,
				       const struct ordma_fw_config *cfg,
				       size_t cfg_size);
void ordma_fw_destroy(struct ordma_fw *fw);

/* Power-on / PCI function level reset: back to the register reset values. */
void ordma_fw_reset(struct ordma_fw *fw);

/*
 * Bus Master Enable was set again: post the events whose EQE write
 * failed while it was clear (COMP, CQ_ERR, ETH, ETH_RING_ERR).
 */
void ordma_fw_bus_master_enabled(struct ordma_fw *fw);

/* BAR0 register access; off is the byte offset, size 1, 2, 4 or 8. */
uint64_t ordma_fw_reg_read(struct ordma_fw *fw, uint64_t off, unsigned int size);
void ordma_fw_reg_write(struct ordma_fw *fw, uint64_t off, uint64_t val,
			unsigned int size);

/* BAR2 doorbell write; page = off >> ORDMA_DB_PAGE_SHIFT. */
void ordma_fw_db_write(struct ordma_fw *fw, uint64_t off, uint64_t val,
		       unsigned int size);

/* Ethernet port */
bool ordma_fw_can_receive(struct ordma_fw *fw);
void ordma_fw_rx_frame(struct ordma_fw *fw, const void *frame, size_t len);
void ordma_fw_set_link(struct ordma_fw *fw, bool up);

void ordma_fw_timer_expired(struct ordma_fw *fw);

/*
 * The host's fault injection (a QEMU property, a test): what the
 * driver's INJECT_FAULT command does (enum ordma_fault, ordma_admin.h),
 * at once.  0, or -1 for a fault, count or arg that command would refuse.
 */
int ordma_fw_inject_fault(struct ordma_fw *fw, unsigned int fault,
			  uint32_t count, uint32_t arg);

/*
 * The firmware's entry table: everything a device model calls, through
 * one structure, so that it can run firmware it did not link.  The
 * firmware linked into a model is ordma_fw_builtin; a firmware image's
 * payload is a shared object that exports one such table under the name
 * ORDMA_FW_IMAGE_SYMBOL.  Each entry is the function of the same name
 * above.  The fields before create never move.
 */
struct ordma_fw_image {
	uint16_t abi_major;		/* ORDMA_FW_ABI_MAJOR */
	uint16_t abi_minor;		/* ORDMA_FW_ABI_MINOR */
	uint16_t fw_major;		/* what QUERY_FW reports */
	uint16_t fw_minor;
	uint16_t fw_sub_minor;
	uint16_t reserved;
	uint32_t fw_build;

	struct ordma_fw *(*create)(const struct ordma_hal_ops *ops, void *ctx,
				   const struct ordma_fw_config *cfg);
	void (*destroy)(struct ordma_fw *fw);
	void (*reset)(struct ordma_fw *fw);
	void (*bus_master_enabled)(struct ordma_fw *fw);
	uint64_t (*reg_read)(struct ordma_fw *fw, uint64_t off,
			     unsigned int size);
	void (*reg_write)(struct ordma_fw *fw, uint64_t off, uint64_t val,
			  unsigned int size);
	void (*db_write)(struct ordma_fw *fw, uint64_t off, uint64_t val,
			 unsigned int size);
	bool (*can_receive)(struct ordma_fw *fw);
	void (*rx_frame)(struct ordma_fw *fw, const void *frame, size_t len);
	void (*set_link)(struct ordma_fw *fw, bool up);
	void (*timer_expired)(struct ordma_fw *fw);
	int (*inject_fault)(struct ordma_fw *fw, unsigned int fault,
			    uint32_t count, uint32_t arg);
	/*
	 * Run before the firmware is used: 0 if it works on this host (its
	 * CRC engine gives the known answers), -1 if not.  The model then
	 * goes back to the image it ran before.
	 */
	int (*self_test)(void);
	/* ABI 1.1: create() reads ABI 1.0's configuration only */
	struct ordma_fw *(*create_sized)(const struct ordma_hal_ops *ops,
					 void *ctx,
					 const struct ordma_fw_config *cfg,
					 size_t cfg_size);
};

#define ORDMA_FW_IMAGE_SYMBOL		"ordma_fw_image_entry"

extern const struct ordma_fw_image ordma_fw_builtin;

/*
 * What a model calls to create img's firmware with its cfg: an image of
 * ABI 1.0 knows an Ethernet port only, so it gets no other.
 */
static inline struct ordma_fw *
ordma_fw_image_create(const struct ordma_fw_image *img,
		      const struct ordma_hal_ops *ops, void *ctx,
		      const struct ordma_fw_config *cfg)
{
	if (img->abi_minor >= 1)
		return img->create_sized(ops, ctx, cfg, sizeof(*cfg));
	if (cfg->link_layer)
		return NULL;
	return img->create(ops, ctx, cfg);
}

#endif /* ORDMA_FW_H */
