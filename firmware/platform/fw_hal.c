// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA firmware platform: the HAL wrappers every room uses (log, DMA
 * with its range check, DMA through an address translation, MSI-X, clock
 * and the one HAL timer).
 */
#include <stdarg.h>
#include <stdio.h>

#include "platform/fw_platform.h"

/* ------------------------------------------------------------------ */
/* HAL wrappers                                                        */
/* ------------------------------------------------------------------ */

void fw_log(struct ordma_fw *fw, enum ordma_fw_log_level level,
	    const char *fmt, ...)
{
	char msg[FW_LOG_MSG_MAX];
	va_list ap;

	if (!fw->hal.log)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fw->hal.log(fw->hal_ctx, level, msg);
}

void fw_trace(struct ordma_fw *fw, const struct ordma_fw_trace *rec)
{
	fw->hal.trace(fw->hal_ctx, rec);
}

/* True if [addr, addr + len) does not fit in the 64-bit address space. */
bool fw_range_wraps(uint64_t addr, uint64_t len)
{
	return len && addr + (len - 1) < addr;
}

/* A range that wraps can never be a valid bus address: fail it here so
 * that no HAL has to handle it.
 */
int fw_dma_read(struct ordma_fw *fw, uint64_t addr, void *buf, size_t len)
{
	int ret;

	if (!len)
		return 0;
	/* an injected fault fails the access as a bus error would */
	ret = fw_fault_take(fw, ORDMA_FAULT_DMA_READ) ||
	      fw_range_wraps(addr, len) ||
	      fw->hal.dma_read(fw->hal_ctx, addr, buf, len) ? -1 : 0;
	FW_TRACE(fw, .kind = ORDMA_FW_TRACE_DMA_READ, .qpn = fw->trace_qpn,
		 .addr = addr, .len = (uint32_t)len, .status = ret != 0);
	return ret;
}

int fw_dma_write(struct ordma_fw *fw, uint64_t addr, const void *buf,
		 size_t len)
{
	int ret;

	if (!len)
		return 0;
	ret = fw_fault_take(fw, ORDMA_FAULT_DMA_WRITE) ||
	      fw_range_wraps(addr, len) ||
	      fw->hal.dma_write(fw->hal_ctx, addr, buf, len) ? -1 : 0;
	FW_TRACE(fw, .kind = ORDMA_FW_TRACE_DMA_WRITE, .qpn = fw->trace_qpn,
		 .addr = addr, .len = (uint32_t)len, .status = ret != 0);
	return ret;
}

/* One DMA access per contiguous run of the space, in order */
static int fw_dma_through(struct ordma_fw *fw, fw_dma_xlate_fn xlate,
			  const void *space, uint64_t off, uint8_t *buf,
			  size_t len, bool to_host)
{
	uint64_t dma, contig;

	while (len) {
		size_t chunk;

		if (xlate(fw, space, off, &dma, &contig))
			return -1;
		chunk = contig < len ? (size_t)contig : len;
		if (to_host ? fw_dma_write(fw, dma, buf, chunk) :
			      fw_dma_read(fw, dma, buf, chunk))
			return -1;
		buf += chunk;
		off += chunk;
		len -= chunk;
	}
	return 0;
}

int fw_dma_read_through(struct ordma_fw *fw, fw_dma_xlate_fn xlate,
			const void *space, uint64_t off, void *buf, size_t len)
{
	return fw_dma_through(fw, xlate, space, off, buf, len, false);
}

int fw_dma_write_through(struct ordma_fw *fw, fw_dma_xlate_fn xlate,
			 const void *space, uint64_t off, const void *buf,
			 size_t len)
{
	/* the write direction never writes through buf */
	return fw_dma_through(fw, xlate, space, off,
			      (uint8_t *)(uintptr_t)buf, len, true);
}

void fw_raise_vector(struct ordma_fw *fw, unsigned int vector)
{
	if (fw_fault_take(fw, ORDMA_FAULT_MSIX_DROP))
		return;
	FW_TRACE(fw, .kind = ORDMA_FW_TRACE_MSIX, .qpn = ORDMA_FW_TRACE_NO_QPN,
		 .index = vector);
	fw->hal.msix_notify(fw->hal_ctx, vector);
}

uint64_t fw_now(struct ordma_fw *fw)
{
	return fw->hal.now_ns(fw->hal_ctx);
}

/*
 * One HAL timer serves the heartbeat and the transport engine's deadlines
 * (retransmit and RNR timers).  fw->timer_armed_ns is what the HAL holds;
 * an engine deadline earlier than it re-arms the timer.  A deadline that
 * went away leaves the timer as it is: the callback finds nothing due and
 * arms the next one.
 */
void fw_timer_arm_at(struct ordma_fw *fw, uint64_t deadline)
{
	if (deadline > fw->next_heartbeat_ns && fw->next_heartbeat_ns)
		deadline = fw->next_heartbeat_ns;
	fw->timer_armed_ns = deadline;
	fw->hal.timer_arm(fw->hal_ctx, deadline);
}
