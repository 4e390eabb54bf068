/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A host-side HAL for the firmware: host memory is one flat array at a
 * fixed bus address, everything else is recorded for the tests to check.
 */
#ifndef ORDMA_TESTS_FAKE_HAL_H
#define ORDMA_TESTS_FAKE_HAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ordma-compat/ordma_compat.h>
#include <linux/ordma/ordma_hw.h>
#include "ordma_fw.h"

#define FAKE_MEM_BASE		0x100000ULL
#define FAKE_MEM_SIZE		(16ULL << 20)
#define FAKE_MEM_END		(FAKE_MEM_BASE + FAKE_MEM_SIZE)
#define FAKE_MAX_VECTORS	64
#define FAKE_TX_KEEP		8
#define FAKE_FRAME_MAX		9100
#define FAKE_WRITE_TRACE	16

struct fake_frame {
	size_t len;
	uint8_t data[FAKE_FRAME_MAX];
};

struct fake_dma_write {
	uint64_t addr;
	size_t len;
};

struct fake_hal {
	uint8_t *mem;
	struct ordma_fw *fw;		/* for the timer callback */
	unsigned int num_vectors;

	/* DMA that touches [fail_lo, fail_hi) fails like an IOMMU fault */
	uint64_t fail_lo, fail_hi;
	unsigned long dma_errors;
	struct fake_dma_write writes[FAKE_WRITE_TRACE];	/* most recent last */
	unsigned long num_writes;

	unsigned long msix[FAKE_MAX_VECTORS];
	unsigned long msix_total;
	unsigned long msix_bad_vector;

	/* called for every transmitted frame (tests wire devices together) */
	void (*tx_hook)(void *arg, const void *frame, size_t len);
	void *tx_hook_arg;
	unsigned long tx_count;
	/* frames outside 60..9018 bytes; on an InfiniBand port (ib_port)
	 * packets outside LRH + BTH + ICRC + VCRC (26) .. 8190 bytes
	 */
	unsigned long tx_bad_len;
	bool ib_port;
	struct fake_frame tx[FAKE_TX_KEEP];	/* tx_count % FAKE_TX_KEEP */

	/* what the wire lost (the wire_drops HAL call reports these) */
	uint64_t wire_tx_drop, wire_rx_drop;
	/* faults it injected, by enum ordma_wire_fault (wire_faults) */
	uint64_t wire_fault[ORDMA_WIRE_FAULTS];

	uint64_t now_ns;
	uint64_t timer_deadline;	/* UINT64_MAX: not armed */
	unsigned long timer_fired;

	/* firmware trace records: counted, and handed to the hook if set */
	void (*fw_trace_hook)(void *arg, const struct ordma_fw_trace *rec);
	void *fw_trace_hook_arg;
	unsigned long fw_trace_count;

	unsigned long log_count[3];
	char last_log[256];
	bool print_log;
};

extern const struct ordma_hal_ops fake_hal_ops;
/* drv_create() gives its devices no trace(), as a host that asks for no
 * records (benchmarks)
 */
extern bool fake_hal_untraced;

bool fake_hal_init(struct fake_hal *h);
void fake_hal_fini(struct fake_hal *h);
/* Host pointer for a bus address range inside fake memory, else NULL. */
void *fake_mem(struct fake_hal *h, uint64_t addr, size_t len);
/* Advance device time, firing the timer when its deadline passes. */
void fake_advance(struct fake_hal *h, uint64_t ns);
const struct fake_frame *fake_last_tx(const struct fake_hal *h);
/* The n-th most recent DMA write (0 = newest), NULL if none. */
const struct fake_dma_write *fake_recent_write(const struct fake_hal *h,
					       unsigned int n);

#endif /* ORDMA_TESTS_FAKE_HAL_H */
