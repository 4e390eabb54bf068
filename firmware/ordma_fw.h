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

struct ordma_fw_config {
	uint8_t mac[6];
	char serial[16];		/* NUL padded */
	unsigned int num_vectors;	/* MSI-X vectors, ORDMA_FW_*_VECTORS */
	unsigned int num_db_pages;	/* BAR2 pages, ORDMA_FW_*_DB_PAGES */
	unsigned int speed_mbps;
};

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

/* Returns NULL on allocation failure or an invalid configuration. */
struct ordma_fw *ordma_fw_create(const struct ordma_hal_ops *ops, void *ctx,
				 const struct ordma_fw_config *cfg);
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

#endif /* ORDMA_FW_H */
