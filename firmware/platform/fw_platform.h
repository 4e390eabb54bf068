/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * ORDMA firmware platform: the services every room of the firmware uses,
 * below the verbs objects, the transport engine and the device.  They
 * work on the device state (fw_priv.h) and the HAL, and call nothing
 * above them.
 */
#ifndef ORDMA_FW_PLATFORM_H
#define ORDMA_FW_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fw_priv.h"

/* fw_hal.c: HAL wrappers */
void fw_log(struct ordma_fw *fw, enum ordma_fw_log_level level,
	    const char *fmt, ...) FW_PRINTF(3, 4);
/* True if [addr, addr + len) does not fit in the 64-bit address space. */
bool fw_range_wraps(uint64_t addr, uint64_t len);
int fw_dma_read(struct ordma_fw *fw, uint64_t addr, void *buf, size_t len);
int fw_dma_write(struct ordma_fw *fw, uint64_t addr, const void *buf,
		 size_t len);
void fw_raise_vector(struct ordma_fw *fw, unsigned int vector);
uint64_t fw_now(struct ordma_fw *fw);
/* Arms the HAL timer for the earlier of the heartbeat and deadline. */
void fw_timer_arm_at(struct ordma_fw *fw, uint64_t deadline);

/* fw_cmd.c: what a command handler answers with */
uint8_t fw_cmd_fail(struct fw_cmd *c, uint8_t status, const char *why);
uint8_t fw_cmd_bad_param(struct fw_cmd *c, size_t offset, const char *why);
uint8_t fw_cmd_write_query_buf(struct ordma_fw *fw, struct fw_cmd *c,
			       uint32_t expected_port, const void *data,
			       size_t size);

#endif /* ORDMA_FW_PLATFORM_H */
