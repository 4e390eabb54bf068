/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * ORDMA firmware device room: management datagrams (IBTA vol. 1 ch. 13
 * and 14) as PROCESS_MAD hands them to the subnet management agent
 * (fw_sma.c) and the performance management agent (fw_pma.c).  Every
 * multi-byte field is big-endian, as on the wire.
 */
#ifndef ORDMA_FW_MAD_H
#define ORDMA_FW_MAD_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "fw_priv.h"

#define FW_MAD_BASE_VERSION		1
#define FW_MAD_CLASS_SUBN_LID		0x01
#define FW_MAD_CLASS_PERF		0x04
#define FW_MAD_CLASS_SUBN_DR		0x81
#define FW_SMP_CLASS_VERSION		1
#define FW_PMA_CLASS_VERSION		1

#define FW_MAD_METHOD_GET		0x01
#define FW_MAD_METHOD_SET		0x02
#define FW_MAD_METHOD_TRAP		0x05
#define FW_MAD_METHOD_TRAP_REPRESS	0x07
#define FW_MAD_METHOD_RESP		0x80	/* a response: never answered */
#define FW_MAD_METHOD_GET_RESP		0x81

/* MAD status (IBTA 13.4.7): the code in bits 4:2 */
#define FW_MAD_STATUS_BAD_VERSION	0x0004
#define FW_MAD_STATUS_BAD_METHOD	0x0008
#define FW_MAD_STATUS_BAD_METHOD_ATTR	0x000c
#define FW_MAD_STATUS_BAD_FIELD		0x001c
/* A directed route SMP's status bit 15: the direction, 1 on the way back */
#define FW_SMP_DIRECTION		0x8000

/* SMP attributes (IBTA 14.2.5) */
#define FW_SMP_ATTR_NOTICE		0x0002
#define FW_SMP_ATTR_NODE_DESC		0x0010
#define FW_SMP_ATTR_NODE_INFO		0x0011
#define FW_SMP_ATTR_GUID_INFO		0x0014
#define FW_SMP_ATTR_PORT_INFO		0x0015
#define FW_SMP_ATTR_PKEY_TABLE		0x0016
#define FW_SMP_ATTR_SL_TO_VL		0x0017
#define FW_SMP_ATTR_VL_ARB		0x0018
#define FW_SMP_ATTR_SM_INFO		0x0020

/* PMA attributes (IBTA 16.1.3, 16.1.4) */
#define FW_PMA_ATTR_CLASS_PORT_INFO	0x0001
#define FW_PMA_ATTR_PORT_COUNTERS	0x0012
#define FW_PMA_ATTR_PORT_COUNTERS_EXT	0x001d

#define FW_SMP_DATA_SIZE		64
#define FW_SMP_MAX_HOPS			64
#define FW_PMA_DATA_SIZE		192
#define FW_LID_PERMISSIVE		0xffff
#define FW_LID_UNICAST_MAX		0xbfff

struct fw_mad_hdr {
	uint8_t base_version;
	uint8_t mgmt_class;
	uint8_t class_version;
	uint8_t method;
	__be16 status;
	uint8_t hop_ptr;		/* directed route SMPs; else reserved */
	uint8_t hop_cnt;
	__be64 tid;
	__be16 attr_id;
	__be16 reserved_18;
	__be32 attr_mod;
};

/* LID-routed and directed route SMPs share the layout up to the data */
struct fw_smp {
	struct fw_mad_hdr hdr;
	__be64 mkey;
	__be16 dr_slid;
	__be16 dr_dlid;
	uint8_t reserved_36[28];
	uint8_t data[FW_SMP_DATA_SIZE];
	uint8_t initial_path[FW_SMP_MAX_HOPS];
	uint8_t return_path[FW_SMP_MAX_HOPS];
};

struct fw_pma_mad {
	struct fw_mad_hdr hdr;
	uint8_t reserved_24[40];
	uint8_t data[FW_PMA_DATA_SIZE];
};

union fw_mad {
	struct fw_mad_hdr hdr;
	struct fw_smp smp;
	struct fw_pma_mad pma;
	uint8_t raw[ORDMA_MAD_SIZE];
};

_Static_assert(sizeof(struct fw_mad_hdr) == 24, "MAD header");
_Static_assert(sizeof(struct fw_smp) == ORDMA_MAD_SIZE, "SMP");
_Static_assert(sizeof(struct fw_pma_mad) == ORDMA_MAD_SIZE, "PMA MAD");

/* What an agent made of a request */
enum fw_mad_verdict {
	FW_MAD_PASS,		/* not the device's: the host's agents take it */
	FW_MAD_REPLY,		/* the response is in the out MAD */
	FW_MAD_CONSUMED,	/* taken, nothing to answer */
	FW_MAD_DROP,		/* dropped (the drop reason says why) */
};

struct fw_mad_ctx {
	const union fw_mad *in;
	union fw_mad *out;	/* a copy of in, to be answered */
	uint16_t slid;
	uint8_t sl;
	uint8_t flags;		/* ORDMA_MAD_FLAG_* */
	uint32_t drop;		/* enum ordma_mad_drop */
};

/* Big-endian fields of a MAD's data at byte offset off */
static inline void fw_mad_put8(uint8_t *d, size_t off, uint8_t v)
{
	d[off] = v;
}

static inline void fw_mad_put16(uint8_t *d, size_t off, uint16_t v)
{
	__be16 be = cpu_to_be16(v);

	memcpy(d + off, &be, sizeof(be));
}

static inline void fw_mad_put32(uint8_t *d, size_t off, uint32_t v)
{
	__be32 be = cpu_to_be32(v);

	memcpy(d + off, &be, sizeof(be));
}

static inline void fw_mad_put64(uint8_t *d, size_t off, uint64_t v)
{
	__be64 be = cpu_to_be64(v);

	memcpy(d + off, &be, sizeof(be));
}

static inline uint16_t fw_mad_get16(const uint8_t *d, size_t off)
{
	__be16 be;

	memcpy(&be, d + off, sizeof(be));
	return be16_to_cpu(be);
}

static inline uint64_t fw_mad_get64(const uint8_t *d, size_t off)
{
	__be64 be;

	memcpy(&be, d + off, sizeof(be));
	return be64_to_cpu(be);
}

/* fw_sma.c */
enum fw_mad_verdict fw_sma_process(struct ordma_fw *fw,
				   struct fw_mad_ctx *m);
/* The IB port's logical state: DOWN without link */
uint8_t fw_sma_port_state(const struct ordma_fw *fw);
/* The link went down or up: the logical state follows (IBTA 7.2) */
void fw_sma_link_changed(struct ordma_fw *fw, bool up);
void fw_sma_reset(struct ordma_fw *fw);
/* Sends the traps due again; the next deadline, UINT64_MAX for none */
uint64_t fw_sma_timer(struct ordma_fw *fw);
/* QUERY_PORT of an InfiniBand port: PortInfo as the SM set it */
void fw_sma_port_attr(struct ordma_fw *fw, struct ordma_port_attr *attr);

/* fw_pma.c */
enum fw_mad_verdict fw_pma_process(struct ordma_fw *fw,
				   struct fw_mad_ctx *m);

#endif /* ORDMA_FW_MAD_H */
