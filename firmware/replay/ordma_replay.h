/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * ORDMA record and replay: the binary log of one device.
 *
 * A host that records a device (replay/ordma_rec.h) writes everything
 * that crosses the firmware's boundary, in the order it happens: the
 * calls into the public entry points of ordma_fw.h with their arguments,
 * the values they return, and every HAL call the firmware makes with
 * what the HAL answered.  ordma-replay runs the firmware alone from
 * ordma_fw_create, feeds it the recorded inputs and HAL answers, and
 * compares what it does with what was recorded.
 *
 * Layout, every integer little-endian, nothing aligned:
 *
 *	struct ordma_replay_header	(ORDMA_REPLAY_HEADER_SIZE bytes)
 *	record, record, ...		(8-byte record header + body)
 *	TRAILER record			(missing if the host died)
 *
 * Record header: u16 kind (enum ordma_replay_kind), u16 flags (0),
 * u32 body_len.  Version 1 has no optional kinds: a kind the reader
 * does not know makes the log malformed.
 *
 * Bodies (offsets in bytes):
 *
 *	CREATE, DESTROY, RESET, BUS_MASTER_ENABLED, CAN_RECEIVE,
 *	TIMER_EXPIRED				empty
 *	REG_READ	0 u64 off, 8 u32 size
 *	REG_WRITE,
 *	DB_WRITE	0 u64 off, 8 u64 val, 16 u32 size
 *	INJECT_FAULT	0 u64 fault, 8 u64 count, 16 u32 arg
 *	SET_LINK	0 u32 up (0 or 1)
 *	RX_FRAME	0 payload
 *	RETURN		0 u64 value (reg_read's value, can_receive's and
 *			create's 0 or 1, inject_fault's 0 or -1 as a u64)
 *			after the HAL calls of that entry
 *	NOW_NS		0 u64 value
 *	DMA_READ	0 u64 addr, 8 u64 len, 16 s32 status, 20 payload:
 *			the bytes read if status is 0, else empty
 *	DMA_WRITE	0 u64 addr, 8 s32 status, 12 payload: the bytes
 *	MSIX		0 u32 vector
 *	TX_FRAME	0 payload
 *	TIMER_ARM	0 u64 expire_ns
 *	LOG		0 u32 level, 4 payload: the message, no NUL
 *	WIRE_DROPS	0 u64 tx, 8 u64 rx
 *	WIRE_FAULTS	0 u32 n, 4 u32 0, 8 n u64 counters
 *	TRAILER		0 u32 reason (enum ordma_replay_stop), 4 u32 0,
 *			8 u64 records before the trailer,
 *			16 u64 payload bytes saved by de-duplication
 *
 * A payload is u32 len, u32 ref, then len bytes if ref is 0.  Every
 * payload stored inline gets the next blob number (1, 2, ...); a payload
 * with ref != 0 has the same len and bytes as blob number ref, which
 * came earlier in the log.  The recorder only refers to a blob whose
 * bytes it compared, so a reference never stands for other bytes.
 *
 * Events are the records after the header, numbered from 1; the replay
 * reports a divergence by that number.
 */
#ifndef ORDMA_REPLAY_H
#define ORDMA_REPLAY_H

#include <stdint.h>

#define ORDMA_REPLAY_MAGIC		"ORDMAREC"	/* 8 bytes, no NUL */
#define ORDMA_REPLAY_VERSION		1
#define ORDMA_REPLAY_HEADER_SIZE	64
#define ORDMA_REPLAY_REC_HDR_SIZE	8
#define ORDMA_REPLAY_PAYLOAD_HDR_SIZE	8
#define ORDMA_REPLAY_TRAILER_SIZE	(ORDMA_REPLAY_REC_HDR_SIZE + 24)
/* A WIRE_FAULTS record holds at most this many counters */
#define ORDMA_REPLAY_MAX_WIRE_FAULTS	32

/*
 * struct ordma_replay_header, as bytes:
 *
 *	 0 char magic[8]		ORDMA_REPLAY_MAGIC
 *	 8 u16 version			ORDMA_REPLAY_VERSION
 *	10 u16 header_size		ORDMA_REPLAY_HEADER_SIZE
 *	12 u32 hal			ORDMA_REPLAY_HAL_*
 *	16 u8 mac[6]
 *	22 u8 link_layer		enum ordma_link_layer (0 before it was)
 *	23 u8 0
 *	24 char serial[16]		NUL padded, as in ordma_fw_config
 *	40 u32 num_vectors
 *	44 u32 num_db_pages
 *	48 u32 speed_mbps
 *	52 u32 wire_faults		ORDMA_WIRE_FAULTS of the recorder
 *	56 u64 max_bytes		the size cap of the log
 */
/* The HAL operations the host had (the others were NULL): the replay
 * offers the firmware the same, as some are optional and the firmware
 * refuses a HAL without the others.
 */
#define ORDMA_REPLAY_HAL_DMA_READ	0x001
#define ORDMA_REPLAY_HAL_DMA_WRITE	0x002
#define ORDMA_REPLAY_HAL_MSIX_NOTIFY	0x004
#define ORDMA_REPLAY_HAL_TX_FRAME	0x008
#define ORDMA_REPLAY_HAL_NOW_NS		0x010
#define ORDMA_REPLAY_HAL_TIMER_ARM	0x020
#define ORDMA_REPLAY_HAL_LOG		0x040
#define ORDMA_REPLAY_HAL_WIRE_DROPS	0x080
#define ORDMA_REPLAY_HAL_WIRE_FAULTS	0x100

enum ordma_replay_kind {
	/* entry points (inputs) */
	ORDMA_REPLAY_CREATE		= 1,
	ORDMA_REPLAY_DESTROY		= 2,
	ORDMA_REPLAY_RESET		= 3,
	ORDMA_REPLAY_BUS_MASTER_ENABLED	= 4,
	ORDMA_REPLAY_REG_READ		= 5,
	ORDMA_REPLAY_REG_WRITE		= 6,
	ORDMA_REPLAY_DB_WRITE		= 7,
	ORDMA_REPLAY_CAN_RECEIVE	= 8,
	ORDMA_REPLAY_RX_FRAME		= 9,
	ORDMA_REPLAY_SET_LINK		= 10,
	ORDMA_REPLAY_TIMER_EXPIRED	= 11,
	ORDMA_REPLAY_INJECT_FAULT	= 12,
	/* what an entry point returned (output) */
	ORDMA_REPLAY_RETURN		= 16,
	/* HAL calls: answers are inputs, the rest outputs */
	ORDMA_REPLAY_NOW_NS		= 32,
	ORDMA_REPLAY_DMA_READ		= 33,
	ORDMA_REPLAY_DMA_WRITE		= 34,
	ORDMA_REPLAY_MSIX		= 35,
	ORDMA_REPLAY_TX_FRAME		= 36,
	ORDMA_REPLAY_TIMER_ARM		= 37,
	ORDMA_REPLAY_LOG		= 38,
	ORDMA_REPLAY_WIRE_DROPS		= 39,
	ORDMA_REPLAY_WIRE_FAULTS	= 40,
	ORDMA_REPLAY_TRAILER		= 0xffff,
};

/* Why the recording ended (TRAILER reason) */
enum ordma_replay_stop {
	ORDMA_REPLAY_STOP_DESTROYED	= 0,	/* the log is complete */
	ORDMA_REPLAY_STOP_SIZE_CAP	= 1,	/* next record did not fit */
	ORDMA_REPLAY_STOP_WRITE_ERROR	= 2,	/* the sink refused bytes */
	ORDMA_REPLAY_STOP_NESTED	= 3,	/* entry inside a HAL call */
	ORDMA_REPLAY_STOP_CREATE_FAILED	= 4,	/* ordma_fw_create: NULL */
	ORDMA_REPLAY_STOP_FINISHED	= 5,	/* host ended it early */
	ORDMA_REPLAY_STOP_OUTSIDE_ENTRY	= 6,	/* HAL call, no entry point */
};

#endif /* ORDMA_REPLAY_H */
