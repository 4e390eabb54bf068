// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA firmware performance management agent (IBTA vol. 1 ch. 16.1) of
 * an InfiniBand port: ClassPortInfo, PortCounters and
 * PortCountersExtended, read from the port's own counters (fw->stats).
 * A Set of PortCounters or PortCountersExtended clears the counters its
 * CounterSelect names: the agent remembers what they were then.  The
 * data and packet counters of the two attributes are the same counters,
 * so clearing one clears the other.
 */
#include <string.h>

#include "fw_priv.h"
#include "device/fw_device.h"
#include "device/fw_mad.h"

/* ClassPortInfo CapabilityMask: PortCountersExtended without the
 * unicast and multicast packet counters (IBTA 16.1.3.1)
 */
#define FW_PMA_CAP_EXT_NOIETF	(1u << 10)
#define FW_PMA_RESP_TIME	18

/* PortCounters CounterSelect bits; the index of each counter's
 * remembered value in fw->ib.pma_base
 */
enum fw_pma_counter {
	FW_PMA_SYMBOL_ERRORS,
	FW_PMA_LINK_ERR_RECOVERY,
	FW_PMA_LINK_DOWNED,
	FW_PMA_RCV_ERRORS,
	FW_PMA_RCV_REMOTE_PHYS,
	FW_PMA_RCV_SWITCH_RELAY,
	FW_PMA_XMIT_DISCARDS,
	FW_PMA_XMIT_CONSTRAINT,
	FW_PMA_RCV_CONSTRAINT,
	FW_PMA_LOCAL_LINK_INTEGRITY,
	FW_PMA_EXCESSIVE_OVERRUN,
	FW_PMA_VL15_DROPPED,
	FW_PMA_XMIT_DATA,
	FW_PMA_RCV_DATA,
	FW_PMA_XMIT_PKTS,
	FW_PMA_RCV_PKTS,
	FW_PMA_COUNTERS,
};

_Static_assert(FW_PMA_COUNTERS <= ARRAY_SIZE(((struct fw_ib_port *)0)->pma_base),
	       "a remembered value per counter");

/* PortCountersExtended CounterSelect: data and packets in bits 0-3 */
static const uint8_t fw_pma_ext_counter[4] = {
	FW_PMA_XMIT_DATA, FW_PMA_RCV_DATA, FW_PMA_XMIT_PKTS, FW_PMA_RCV_PKTS,
};

/* PortCounters offsets (IBTA 16.1.3.5) */
#define PC_PORT_SELECT		1
#define PC_COUNTER_SELECT	2
#define PC_SYMBOL_ERRORS	4
#define PC_LINK_ERR_RECOVERY	6
#define PC_LINK_DOWNED		7
#define PC_RCV_ERRORS		8
#define PC_RCV_REMOTE_PHYS	10
#define PC_RCV_SWITCH_RELAY	12
#define PC_XMIT_DISCARDS	14
#define PC_XMIT_CONSTRAINT	16
#define PC_RCV_CONSTRAINT	17
#define PC_LINK_INTEGRITY	19	/* and excessive buffer overruns */
#define PC_VL15_DROPPED		22
#define PC_XMIT_DATA		24
#define PC_RCV_DATA		28
#define PC_XMIT_PKTS		32
#define PC_RCV_PKTS		36
/* PortCountersExtended: the 64-bit counters from byte 8 */
#define PCE_XMIT_DATA		8

/* ClassPortInfo offsets */
#define CPI_BASE_VERSION	0
#define CPI_CLASS_VERSION	1
#define CPI_CAP_MASK		2
#define CPI_RESP_TIME		4

/* What the port has counted since reset: octets for the data counters */
static uint64_t fw_pma_raw(const struct ordma_fw *fw, enum fw_pma_counter c)
{
	const struct fw_port_stats *s = &fw->stats;

	switch (c) {
	case FW_PMA_LINK_DOWNED:
		return fw->ib.link_downed;
	case FW_PMA_RCV_ERRORS:
		return s->rx_drop_too_long;
	case FW_PMA_XMIT_DISCARDS:
		return s->tx_drop_link_down;
	case FW_PMA_XMIT_DATA:
		return s->tx_bytes;
	case FW_PMA_RCV_DATA:
		return s->rx_bytes;
	case FW_PMA_XMIT_PKTS:
		return s->tx_frames;
	case FW_PMA_RCV_PKTS:
		return s->rx_frames;
	default:
		/* no physical layer errors, switch relay, VL15 drops */
		return 0;
	}
}

/* Since the agent last cleared it; data counters in 4-octet words */
static uint64_t fw_pma_value(const struct ordma_fw *fw,
			     enum fw_pma_counter c)
{
	uint64_t raw = fw_pma_raw(fw, c), base = fw->ib.pma_base[c];
	uint64_t v = raw >= base ? raw - base : 0;

	if (c == FW_PMA_XMIT_DATA || c == FW_PMA_RCV_DATA)
		v /= 4;
	return v;
}

static uint64_t fw_sat(uint64_t v, uint64_t max)
{
	return v > max ? max : v;
}

static void fw_pma_clear(struct ordma_fw *fw, enum fw_pma_counter c)
{
	fw->ib.pma_base[c] = fw_pma_raw(fw, c);
}

static void fw_port_counters_get(struct ordma_fw *fw, uint8_t *d)
{
	uint8_t port_select = d[PC_PORT_SELECT];

	memset(d, 0, FW_PMA_DATA_SIZE);
	d[PC_PORT_SELECT] = port_select;
	fw_mad_put16(d, PC_SYMBOL_ERRORS,
	      fw_sat(fw_pma_value(fw, FW_PMA_SYMBOL_ERRORS), UINT16_MAX));
	d[PC_LINK_ERR_RECOVERY] =
		fw_sat(fw_pma_value(fw, FW_PMA_LINK_ERR_RECOVERY), UINT8_MAX);
	d[PC_LINK_DOWNED] = fw_sat(fw_pma_value(fw, FW_PMA_LINK_DOWNED),
				   UINT8_MAX);
	fw_mad_put16(d, PC_RCV_ERRORS,
	      fw_sat(fw_pma_value(fw, FW_PMA_RCV_ERRORS), UINT16_MAX));
	fw_mad_put16(d, PC_RCV_REMOTE_PHYS,
	      fw_sat(fw_pma_value(fw, FW_PMA_RCV_REMOTE_PHYS), UINT16_MAX));
	fw_mad_put16(d, PC_RCV_SWITCH_RELAY,
	      fw_sat(fw_pma_value(fw, FW_PMA_RCV_SWITCH_RELAY), UINT16_MAX));
	fw_mad_put16(d, PC_XMIT_DISCARDS,
	      fw_sat(fw_pma_value(fw, FW_PMA_XMIT_DISCARDS), UINT16_MAX));
	d[PC_XMIT_CONSTRAINT] =
		fw_sat(fw_pma_value(fw, FW_PMA_XMIT_CONSTRAINT), UINT8_MAX);
	d[PC_RCV_CONSTRAINT] =
		fw_sat(fw_pma_value(fw, FW_PMA_RCV_CONSTRAINT), UINT8_MAX);
	d[PC_LINK_INTEGRITY] =
		fw_sat(fw_pma_value(fw, FW_PMA_LOCAL_LINK_INTEGRITY), 0xf) << 4 |
		fw_sat(fw_pma_value(fw, FW_PMA_EXCESSIVE_OVERRUN), 0xf);
	fw_mad_put16(d, PC_VL15_DROPPED,
	      fw_sat(fw_pma_value(fw, FW_PMA_VL15_DROPPED), UINT16_MAX));
	fw_mad_put32(d, PC_XMIT_DATA,
	      fw_sat(fw_pma_value(fw, FW_PMA_XMIT_DATA), UINT32_MAX));
	fw_mad_put32(d, PC_RCV_DATA,
	      fw_sat(fw_pma_value(fw, FW_PMA_RCV_DATA), UINT32_MAX));
	fw_mad_put32(d, PC_XMIT_PKTS,
	      fw_sat(fw_pma_value(fw, FW_PMA_XMIT_PKTS), UINT32_MAX));
	fw_mad_put32(d, PC_RCV_PKTS,
	      fw_sat(fw_pma_value(fw, FW_PMA_RCV_PKTS), UINT32_MAX));
}

static void fw_port_counters_set(struct ordma_fw *fw, const uint8_t *d)
{
	uint16_t select = fw_mad_get16(d, PC_COUNTER_SELECT);
	unsigned int c;

	for (c = 0; c < FW_PMA_COUNTERS; c++)
		if (select & (1u << c))
			fw_pma_clear(fw, c);
}

static void fw_port_counters_ext_get(struct ordma_fw *fw, uint8_t *d)
{
	uint8_t port_select = d[PC_PORT_SELECT];
	size_t i;

	memset(d, 0, FW_PMA_DATA_SIZE);
	d[PC_PORT_SELECT] = port_select;
	for (i = 0; i < ARRAY_SIZE(fw_pma_ext_counter); i++)
		fw_mad_put64(d, PCE_XMIT_DATA + 8 * i,
		      fw_pma_value(fw, fw_pma_ext_counter[i]));
}

static void fw_port_counters_ext_set(struct ordma_fw *fw, const uint8_t *d)
{
	uint16_t select = fw_mad_get16(d, PC_COUNTER_SELECT);
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fw_pma_ext_counter); i++)
		if (select & (1u << i))
			fw_pma_clear(fw, fw_pma_ext_counter[i]);
}

static void fw_class_port_info_get(uint8_t *d)
{
	memset(d, 0, FW_PMA_DATA_SIZE);
	d[CPI_BASE_VERSION] = FW_MAD_BASE_VERSION;
	d[CPI_CLASS_VERSION] = FW_PMA_CLASS_VERSION;
	fw_mad_put16(d, CPI_CAP_MASK, FW_PMA_CAP_EXT_NOIETF);
	fw_mad_put32(d, CPI_RESP_TIME, FW_PMA_RESP_TIME);
}

static enum fw_mad_verdict fw_pma_reply(struct fw_mad_ctx *m, uint16_t status)
{
	m->out->hdr.method = FW_MAD_METHOD_GET_RESP;
	m->out->hdr.status = cpu_to_be16(status);
	return FW_MAD_REPLY;
}

enum fw_mad_verdict fw_pma_process(struct ordma_fw *fw, struct fw_mad_ctx *m)
{
	const struct fw_mad_hdr *h = &m->in->hdr;
	uint8_t *d = m->out->pma.data;
	bool set = h->method == FW_MAD_METHOD_SET;

	if (h->method & FW_MAD_METHOD_RESP || h->method == FW_MAD_METHOD_TRAP)
		return FW_MAD_PASS;
	if (h->base_version != FW_MAD_BASE_VERSION ||
	    h->class_version != FW_PMA_CLASS_VERSION)
		return fw_pma_reply(m, FW_MAD_STATUS_BAD_VERSION);
	if (h->method != FW_MAD_METHOD_GET && !set)
		return fw_pma_reply(m, FW_MAD_STATUS_BAD_METHOD);

	switch (be16_to_cpu(h->attr_id)) {
	case FW_PMA_ATTR_CLASS_PORT_INFO:
		if (set)
			return fw_pma_reply(m, FW_MAD_STATUS_BAD_METHOD_ATTR);
		fw_class_port_info_get(d);
		return fw_pma_reply(m, 0);
	case FW_PMA_ATTR_PORT_COUNTERS:
		if (d[PC_PORT_SELECT] != ORDMA_PORT_NUM)
			return fw_pma_reply(m, FW_MAD_STATUS_BAD_FIELD);
		if (set)
			fw_port_counters_set(fw, d);
		fw_port_counters_get(fw, d);
		return fw_pma_reply(m, 0);
	case FW_PMA_ATTR_PORT_COUNTERS_EXT:
		if (d[PC_PORT_SELECT] != ORDMA_PORT_NUM)
			return fw_pma_reply(m, FW_MAD_STATUS_BAD_FIELD);
		if (set)
			fw_port_counters_ext_set(fw, d);
		fw_port_counters_ext_get(fw, d);
		return fw_pma_reply(m, 0);
	default:
		return fw_pma_reply(m, FW_MAD_STATUS_BAD_METHOD_ATTR);
	}
}
