// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA firmware platform: the event log, the last ORDMA_EVENT_LOG_LEN
 * control-path events (admin completions, QP state changes, the fatal
 * error) in a window of BAR0.  Unlike the trace, it is always kept: it
 * is what a driver reads of a device that failed, when commands no
 * longer run.  A handful of events per command, so it costs nothing on
 * the data path.
 */
#include <string.h>

#include "platform/fw_platform.h"

void fw_event_log(struct ordma_fw *fw, enum ordma_event_kind kind,
		  uint8_t op, uint8_t status, uint32_t arg0, uint32_t arg1)
{
	struct fw_event_log *log = &fw->event_log;
	struct ordma_event_log_entry *e =
		&log->ring[log->count % ORDMA_EVENT_LOG_LEN];

	memset(e, 0, sizeof(*e));
	e->seq = cpu_to_le32(log->count);
	e->kind = cpu_to_le16(kind);
	e->op = op;
	e->status = status;
	e->time_ns = cpu_to_le64(fw_now(fw));
	e->arg0 = cpu_to_le32(arg0);
	e->arg1 = cpu_to_le32(arg1);
	log->count++;
}

uint32_t fw_event_log_read(const struct ordma_fw *fw, uint64_t off)
{
	uint32_t dword;

	if (off + sizeof(dword) > sizeof(fw->event_log.ring))
		return 0;
	memcpy(&dword, (const uint8_t *)fw->event_log.ring + off,
	       sizeof(dword));
	/* The ring holds the little-endian image of the window. */
	return le32_to_cpu(dword);
}

void fw_event_log_reset(struct ordma_fw *fw)
{
	memset(&fw->event_log, 0, sizeof(fw->event_log));
}
