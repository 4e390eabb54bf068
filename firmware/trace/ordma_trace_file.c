// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The firmware trace file (ordma_trace_file.h): header and records,
 * written byte by byte in little endian whatever the host's order.
 */
#include <string.h>

#include "trace/ordma_trace_file.h"

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)v);
	put16(p + 2, (uint16_t)(v >> 16));
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

void ordma_trace_file_header(uint8_t out[ORDMA_TRACE_FILE_HDR_SIZE],
			     const char *name)
{
	size_t n = name ? strlen(name) : 0;

	memset(out, 0, ORDMA_TRACE_FILE_HDR_SIZE);
	memcpy(out, ORDMA_TRACE_FILE_MAGIC, 8);
	put32(out + 8, ORDMA_TRACE_FILE_VERSION);
	put32(out + 12, ORDMA_TRACE_FILE_REC_SIZE);
	if (n > ORDMA_TRACE_FILE_NAME_MAX - 1)
		n = ORDMA_TRACE_FILE_NAME_MAX - 1;
	if (n)
		memcpy(out + 16, name, n);
}

void ordma_trace_file_record(uint8_t out[ORDMA_TRACE_FILE_REC_SIZE],
			     uint64_t time_ns,
			     const struct ordma_fw_trace *rec)
{
	put64(out, time_ns);
	put64(out + 8, rec->addr);
	put32(out + 16, rec->qpn);
	put32(out + 20, rec->psn);
	put32(out + 24, rec->index);
	put32(out + 28, rec->len);
	put32(out + 32, rec->aux);
	put16(out + 36, rec->kind);
	out[38] = rec->opcode;
	out[39] = rec->status;
}

void ordma_trace_file_lost(uint8_t out[ORDMA_TRACE_FILE_REC_SIZE],
			   uint64_t time_ns, uint32_t lost)
{
	const struct ordma_fw_trace rec = {
		.qpn = ORDMA_FW_TRACE_NO_QPN,
		.aux = lost,
		.kind = ORDMA_TRACE_FILE_LOST,
	};

	ordma_trace_file_record(out, time_ns, &rec);
}
