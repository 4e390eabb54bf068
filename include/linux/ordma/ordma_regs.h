/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause */
/*
 * ORDMA hardware interface: the PCI function's BARs and the BAR0 control
 * registers (reset, admin queue set-up, health).  The core driver and the
 * device use it; see ordma_hw.h for the conventions of all four headers.
 */
#ifndef _LINUX_ORDMA_REGS_H
#define _LINUX_ORDMA_REGS_H

#include <linux/types.h>
#ifdef __KERNEL__
#include <linux/build_bug.h>
#else
#include <assert.h>		/* static_assert */
#endif

/* ------------------------------------------------------------------ */
/* BARs and interrupt vectors                                         */
/* ------------------------------------------------------------------ */

#define ORDMA_REG_BAR			0	/* control registers */
#define ORDMA_DB_BAR			2	/* doorbell pages */
#define ORDMA_MSIX_BAR			4	/* MSI-X table + PBA */

#define ORDMA_REG_BAR_SIZE		0x4000

/* Interrupt vector 0 serves the admin queue and the async event queue. */
#define ORDMA_ADMIN_VECTOR		0

/* ------------------------------------------------------------------ */
/* BAR0 registers (32-bit access only)                                 */
/* ------------------------------------------------------------------ */

#define ORDMA_REG_VERSION		0x000	/* RO */
#define   ORDMA_VERSION_MAJOR		GENMASK(31, 16)
#define   ORDMA_VERSION_MINOR		GENMASK(15, 0)
#define   ORDMA_HW_VERSION_MAJOR	1
#define   ORDMA_HW_VERSION_MINOR	0

#define ORDMA_REG_CAPS			0x004	/* RO */
#define   ORDMA_CAPS_MAX_AQ_LOG		GENMASK(7, 0)
#define   ORDMA_CAPS_NUM_VECTORS	GENMASK(15, 8)

#define ORDMA_REG_DB_CAPS		0x008	/* RO */
#define   ORDMA_DB_CAPS_NUM_PAGES	GENMASK(15, 0)
#define   ORDMA_DB_CAPS_PAGE_SHIFT	GENMASK(23, 16)

#define ORDMA_REG_TIMEOUTS		0x00c	/* RO, milliseconds */
#define   ORDMA_TIMEOUTS_READY_MS	GENMASK(15, 0)
#define   ORDMA_TIMEOUTS_CMD_MS		GENMASK(31, 16)

#define ORDMA_REG_CTRL			0x010	/* RW */
#define   ORDMA_CTRL_ENABLE		BIT(0)
#define   ORDMA_CTRL_RESET		BIT(1)	/* self-clearing */

#define ORDMA_REG_STATUS		0x014	/* RO */
#define   ORDMA_STATUS_READY		BIT(0)
#define   ORDMA_STATUS_FATAL		BIT(1)

#define ORDMA_REG_FATAL_CODE		0x018	/* RO, enum ordma_fatal_code */
#define ORDMA_REG_HEARTBEAT		0x01c	/* RO, +1 every 100 ms while READY */

#define ORDMA_REG_AQ_BASE_LO		0x020	/* RW, 4 KiB aligned */
#define ORDMA_REG_AQ_BASE_HI		0x024
#define ORDMA_REG_ACQ_BASE_LO		0x028	/* RW, 4 KiB aligned */
#define ORDMA_REG_ACQ_BASE_HI		0x02c
#define ORDMA_REG_AQ_CFG		0x030	/* RW, latched at ENABLE */
#define   ORDMA_AQ_CFG_LOG_DEPTH	GENMASK(4, 0)
#define ORDMA_REG_AQ_DB			0x034	/* WO */
#define   ORDMA_AQ_DB_PI		GENMASK(15, 0)
#define ORDMA_REG_SCRATCH		0x038	/* RW, no side effects */
#define ORDMA_REG_EVENT_LOG_COUNT	0x03c	/* RO, events since reset */

/*
 * The event log: the firmware's last ORDMA_EVENT_LOG_LEN control-path
 * events, in a read-only window of BAR0 that answers when the device is
 * fatal too.  Event n (0 is the first since reset; EVENT_LOG_COUNT have
 * been logged) is the struct ordma_event_log_entry at
 * ORDMA_REG_EVENT_LOG + (n % ORDMA_EVENT_LOG_LEN) * 32 while it is one
 * of the last ORDMA_EVENT_LOG_LEN; its seq field says which event a
 * slot holds.  32-bit reads, like every register.
 */
#define ORDMA_REG_EVENT_LOG		0x1000	/* RO window */
#define ORDMA_EVENT_LOG_LEN		32
#define ORDMA_EVENT_LOG_ENTRY_SIZE	32

enum ordma_event_kind {
	ORDMA_EVENT_ADMIN		= 1,	/* an admin command completed */
	ORDMA_EVENT_QP_STATE		= 2,	/* a QP changed state */
	ORDMA_EVENT_FATAL		= 3,	/* the device failed */
};

struct ordma_event_log_entry {
	__le32	seq;			/* which event: n */
	__le16	kind;			/* enum ordma_event_kind */
	__u8	op;			/* ADMIN: opcode; QP_STATE: old state */
	__u8	status;			/* ADMIN: status; QP_STATE: new
					 * state; FATAL: the fatal code
					 */
	__le64	time_ns;		/* device clock */
	__le32	arg0;			/* ADMIN: token; QP_STATE: QPN */
	__le32	arg1;			/* ADMIN: syndrome */
	__le32	reserved_18[2];
};

enum ordma_fatal_code {
	ORDMA_FATAL_NONE		= 0,
	ORDMA_FATAL_BAD_AQ_CONFIG	= 1,	/* ENABLE with invalid AQ regs */
	ORDMA_FATAL_ACQ_DMA		= 2,	/* completion write failed */
	ORDMA_FATAL_AQ_DMA		= 3,	/* command fetch failed */
	ORDMA_FATAL_INTERNAL		= 4,
	ORDMA_FATAL_INJECTED		= 5,	/* INJECT_FAULT asked for it */
};

static_assert(sizeof(struct ordma_event_log_entry) ==
	      ORDMA_EVENT_LOG_ENTRY_SIZE, "event_log_entry");

#endif /* _LINUX_ORDMA_REGS_H */
