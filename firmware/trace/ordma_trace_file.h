/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The file a host writes the firmware's trace records to (struct
 * ordma_fw_trace, ordma_fw.h), one file per device: what the device
 * model writes with its fwtrace= property and tools/diag/ordma-trace
 * reads beside the wire captures.
 *
 * Little endian.  A 64-byte header:
 *
 *   0   8  magic "ORDMAFWT"
 *   8   4  version (1)
 *  12   4  record size (40 in version 1; readers step by it and read the
 *          fields they know: later versions only append)
 *  16  32  device name, NUL padded
 *  48  16  reserved, zero
 *
 * then one record per event:
 *
 *   0   8  time: host clock in ns since the epoch, the clock of the
 *          device's pcapng capture (ordma-pcap-format.h)
 *   8   8  addr
 *  16   4  qpn     20  4  psn     24  4  index     28  4  len
 *  32   4  aux     36  2  kind    38  1  opcode    39  1  status
 *
 * A record of kind ORDMA_TRACE_FILE_LOST says that the host lost aux
 * records before it (its buffer was full): the file has a gap there.
 */
#ifndef ORDMA_TRACE_FILE_H
#define ORDMA_TRACE_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "ordma_fw.h"

#define ORDMA_TRACE_FILE_MAGIC		"ORDMAFWT"
#define ORDMA_TRACE_FILE_VERSION	1
#define ORDMA_TRACE_FILE_HDR_SIZE	64
#define ORDMA_TRACE_FILE_REC_SIZE	40
#define ORDMA_TRACE_FILE_NAME_MAX	32
/* Host record kinds start here; the firmware's are below */
#define ORDMA_TRACE_FILE_LOST		0x8000

/* The header for a device called name (cut to 31 bytes) */
void ordma_trace_file_header(uint8_t out[ORDMA_TRACE_FILE_HDR_SIZE],
			     const char *name);
/* One record of the firmware, seen at time_ns */
void ordma_trace_file_record(uint8_t out[ORDMA_TRACE_FILE_REC_SIZE],
			     uint64_t time_ns,
			     const struct ordma_fw_trace *rec);
/* The record that marks a gap of lost records */
void ordma_trace_file_lost(uint8_t out[ORDMA_TRACE_FILE_REC_SIZE],
			   uint64_t time_ns, uint32_t lost);

#endif /* ORDMA_TRACE_FILE_H */
