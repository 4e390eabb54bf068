// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The performance management agent of an InfiniBand port through
 * PROCESS_MAD: ClassPortInfo, PortCounters (saturating widths, clearing
 * by CounterSelect) and PortCountersExtended, read from the port's own
 * counters, those QUERY_STATS reports.
 */
#include <string.h>

#include "fw_priv.h"
#include "mad.h"
#include "ordma_test.h"

#define ATTR_CLASS_PORT_INFO	0x0001
#define ATTR_PORT_COUNTERS	0x0012
#define ATTR_PORT_COUNTERS_EXT	0x001d

/* PortCounters offsets in the PMA data */
#define PC_PORT_SELECT		1
#define PC_COUNTER_SELECT	2
#define PC_LINK_DOWNED		7
#define PC_RCV_ERRORS		8
#define PC_XMIT_DISCARDS	14
#define PC_XMIT_DATA		24
#define PC_RCV_DATA		28
#define PC_XMIT_PKTS		32
#define PC_RCV_PKTS		36

#define SEL_LINK_DOWNED		(1u << 2)
#define SEL_RCV_ERRORS		(1u << 3)
#define SEL_XMIT_DATA		(1u << 12)
#define SEL_RCV_PKTS		(1u << 15)

static uint16_t pma(struct drv *d, uint8_t method, uint16_t attr,
		    uint8_t port_select, uint16_t counter_select)
{
	mad_build(d, CLASS_PERF, method, attr, 0);
	mad_in(d)[PMA_DATA + PC_PORT_SELECT] = port_select;
	wr16(mad_in(d), PMA_DATA + PC_COUNTER_SELECT, counter_select);
	return mad_run(d, 0);
}

static const uint8_t *pma_data(struct drv *d)
{
	return mad_out(d) + PMA_DATA;
}

/* Traffic as the port counts it */
static void traffic(struct drv *d, uint64_t tx_bytes, uint64_t rx_bytes,
		    uint64_t tx_frames, uint64_t rx_frames)
{
	d->fw->stats.tx_bytes += tx_bytes;
	d->fw->stats.rx_bytes += rx_bytes;
	d->fw->stats.tx_frames += tx_frames;
	d->fw->stats.rx_frames += rx_frames;
}

TEST(test_pma_class_port_info)
{
	const uint8_t *o;
	struct drv d;

	REQUIRE(mad_open_ib(&d));
	REQUIRE_EQ(pma(&d, METHOD_GET, ATTR_CLASS_PORT_INFO, 0, 0), 0);
	CHECK_EQ(mad_result(&d),
		 ORDMA_MAD_RESULT_SUCCESS | ORDMA_MAD_RESULT_REPLY);
	CHECK_EQ(mad_out(&d)[MAD_METHOD], METHOD_GET_RESP);
	CHECK_EQ(rd64(mad_out(&d), MAD_TID), 0x0102030405060708ULL);
	o = pma_data(&d);
	CHECK_EQ(o[0], 1);
	CHECK_EQ(o[1], 1);
	CHECK_EQ(rd16(o, 2), 1u << 10);	/* extended, without uni/multicast */
	CHECK_EQ(rd32(o, 4), 18);
	CHECK_EQ(rd64(o, 8), 0);		/* no redirection */
	CHECK_EQ(pma(&d, METHOD_SET, ATTR_CLASS_PORT_INFO, 0, 0),
		 MAD_ST_BAD_ATTR);
	drv_close(&d);
}

TEST(test_pma_status_codes)
{
	struct drv d;

	REQUIRE(mad_open_ib(&d));
	CHECK_EQ(pma(&d, METHOD_GET, 0x0013, 1, 0), MAD_ST_BAD_ATTR);
	CHECK_EQ(pma(&d, METHOD_GET, 0x0016, 1, 0), MAD_ST_BAD_ATTR);
	CHECK_EQ(pma(&d, 0x03, ATTR_PORT_COUNTERS, 1, 0), MAD_ST_BAD_METHOD);
	CHECK_EQ(pma(&d, METHOD_GET, ATTR_PORT_COUNTERS, 2, 0),
		 MAD_ST_BAD_FIELD);
	CHECK_EQ(pma(&d, METHOD_GET, ATTR_PORT_COUNTERS, 0xff, 0),
		 MAD_ST_BAD_FIELD);
	CHECK_EQ(pma(&d, METHOD_GET, ATTR_PORT_COUNTERS_EXT, 0, 0),
		 MAD_ST_BAD_FIELD);
	mad_build(&d, CLASS_PERF, METHOD_GET, ATTR_PORT_COUNTERS, 0);
	mad_in(&d)[MAD_CLASS_VERSION] = 2;
	CHECK_EQ(mad_run(&d, 0), MAD_ST_BAD_VERSION);
	mad_build(&d, CLASS_PERF, METHOD_GET, ATTR_PORT_COUNTERS, 0);
	mad_in(&d)[MAD_BASE_VERSION] = 3;
	CHECK_EQ(mad_run(&d, 0), MAD_ST_BAD_VERSION);
	/* a response is not the agent's */
	mad_build(&d, CLASS_PERF, METHOD_GET_RESP, ATTR_PORT_COUNTERS, 0);
	CHECK_EQ(mad_run(&d, 0), MAD_NO_REPLY);
	CHECK_EQ(mad_result(&d), ORDMA_MAD_RESULT_SUCCESS);
	drv_close(&d);
}

TEST(test_pma_port_counters)
{
	struct ordma_port_stats stats;
	const uint8_t *o;
	struct drv d;

	REQUIRE(mad_open_ib(&d));
	REQUIRE_EQ(pma(&d, METHOD_GET, ATTR_PORT_COUNTERS, 1, 0), 0);
	o = pma_data(&d);
	CHECK_EQ(o[PC_PORT_SELECT], 1);
	CHECK_EQ(rd32(o, PC_XMIT_DATA), 0);
	CHECK_EQ(rd32(o, PC_RCV_PKTS), 0);

	traffic(&d, 4000, 2048, 10, 3);
	d.fw->stats.rx_drop_too_long = 5;
	d.fw->stats.tx_drop_link_down = 6;
	ordma_fw_set_link(d.fw, false);
	ordma_fw_set_link(d.fw, true);
	ordma_fw_set_link(d.fw, false);
	ordma_fw_set_link(d.fw, true);
	REQUIRE_EQ(pma(&d, METHOD_GET, ATTR_PORT_COUNTERS, 1, 0), 0);
	CHECK_EQ(rd32(o, PC_XMIT_DATA), 1000);	/* 4-octet words */
	CHECK_EQ(rd32(o, PC_RCV_DATA), 512);
	CHECK_EQ(rd32(o, PC_XMIT_PKTS), 10);
	CHECK_EQ(rd32(o, PC_RCV_PKTS), 3);
	CHECK_EQ(rd16(o, PC_RCV_ERRORS), 5);
	CHECK_EQ(rd16(o, PC_XMIT_DISCARDS), 6);
	CHECK_EQ(o[PC_LINK_DOWNED], 2);
	CHECK_EQ(rd16(o, 4), 0);		/* no symbol errors */
	/* the same counters QUERY_STATS reports */
	REQUIRE(drv_stats(&d, &stats));
	CHECK_EQ(stats.tx_bytes / 4, rd32(o, PC_XMIT_DATA));
	CHECK_EQ(stats.rx_frames, rd32(o, PC_RCV_PKTS));

	/* a Set clears what CounterSelect names, and answers with the rest */
	REQUIRE_EQ(pma(&d, METHOD_SET, ATTR_PORT_COUNTERS, 1,
		       SEL_XMIT_DATA | SEL_RCV_PKTS | SEL_LINK_DOWNED), 0);
	CHECK_EQ(rd32(o, PC_XMIT_DATA), 0);
	CHECK_EQ(rd32(o, PC_RCV_PKTS), 0);
	CHECK_EQ(o[PC_LINK_DOWNED], 0);
	CHECK_EQ(rd32(o, PC_RCV_DATA), 512);
	CHECK_EQ(rd32(o, PC_XMIT_PKTS), 10);
	CHECK_EQ(rd16(o, PC_RCV_ERRORS), 5);
	/* and counts on from there; QUERY_STATS is not cleared */
	traffic(&d, 400, 0, 1, 2);
	ordma_fw_set_link(d.fw, false);
	REQUIRE_EQ(pma(&d, METHOD_GET, ATTR_PORT_COUNTERS, 1, 0), 0);
	CHECK_EQ(rd32(o, PC_XMIT_DATA), 100);
	CHECK_EQ(rd32(o, PC_RCV_PKTS), 2);
	CHECK_EQ(rd32(o, PC_XMIT_PKTS), 11);
	CHECK_EQ(o[PC_LINK_DOWNED], 1);
	REQUIRE(drv_stats(&d, &stats));
	CHECK_EQ(stats.tx_bytes, 4400);
	drv_close(&d);
}

TEST(test_pma_port_counters_saturate)
{
	const uint8_t *o;
	struct drv d;

	REQUIRE(mad_open_ib(&d));
	traffic(&d, 0x500000000ULL, 0x3fffffffcULL, 0x100000005ULL, 7);
	d.fw->stats.rx_drop_too_long = 70000;
	d.fw->ib.link_downed = 300;
	REQUIRE_EQ(pma(&d, METHOD_GET, ATTR_PORT_COUNTERS, 1, 0), 0);
	o = pma_data(&d);
	CHECK_EQ(rd32(o, PC_XMIT_DATA), 0xffffffffu);
	CHECK_EQ(rd32(o, PC_RCV_DATA), 0xffffffffu);
	CHECK_EQ(rd32(o, PC_XMIT_PKTS), 0xffffffffu);
	CHECK_EQ(rd32(o, PC_RCV_PKTS), 7);
	CHECK_EQ(rd16(o, PC_RCV_ERRORS), 0xffff);
	CHECK_EQ(o[PC_LINK_DOWNED], 0xff);
	/* the extended counters do not saturate */
	REQUIRE_EQ(pma(&d, METHOD_GET, ATTR_PORT_COUNTERS_EXT, 1, 0), 0);
	CHECK_EQ(rd64(o, 8), 0x140000000ULL);
	CHECK_EQ(rd64(o, 16), 0xffffffffULL);
	CHECK_EQ(rd64(o, 24), 0x100000005ULL);
	CHECK_EQ(rd64(o, 32), 7);
	CHECK_EQ(rd64(o, 40), 0);		/* no unicast/multicast */
	/* clearing starts the 32-bit ones from 0 again */
	REQUIRE_EQ(pma(&d, METHOD_SET, ATTR_PORT_COUNTERS, 1,
		       SEL_RCV_ERRORS | (1u << 14)), 0);
	CHECK_EQ(rd32(o, PC_XMIT_PKTS), 0);
	CHECK_EQ(rd16(o, PC_RCV_ERRORS), 0);
	drv_close(&d);
}

TEST(test_pma_port_counters_extended)
{
	const uint8_t *o;
	struct drv d;

	REQUIRE(mad_open_ib(&d));
	traffic(&d, 800, 1600, 8, 16);
	REQUIRE_EQ(pma(&d, METHOD_GET, ATTR_PORT_COUNTERS_EXT, 1, 0), 0);
	o = pma_data(&d);
	CHECK_EQ(o[PC_PORT_SELECT], 1);
	CHECK_EQ(rd64(o, 8), 200);
	CHECK_EQ(rd64(o, 16), 400);
	CHECK_EQ(rd64(o, 24), 8);
	CHECK_EQ(rd64(o, 32), 16);
	/* CounterSelect bit 1: PortRcvData */
	REQUIRE_EQ(pma(&d, METHOD_SET, ATTR_PORT_COUNTERS_EXT, 1, 1u << 1), 0);
	CHECK_EQ(rd64(o, 8), 200);
	CHECK_EQ(rd64(o, 16), 0);
	CHECK_EQ(rd64(o, 24), 8);
	/* the same counter as PortCounters' PortRcvData */
	REQUIRE_EQ(pma(&d, METHOD_GET, ATTR_PORT_COUNTERS, 1, 0), 0);
	CHECK_EQ(rd32(o, PC_RCV_DATA), 0);
	CHECK_EQ(rd32(o, PC_XMIT_DATA), 200);
	drv_close(&d);
}

/* A device reset starts the counters and the agent's view of them anew */
TEST(test_pma_reset)
{
	const uint8_t *o;
	struct drv d;

	REQUIRE(mad_open_ib(&d));
	traffic(&d, 800, 0, 8, 0);
	REQUIRE_EQ(pma(&d, METHOD_SET, ATTR_PORT_COUNTERS, 1, SEL_XMIT_DATA),
		   0);
	ordma_fw_reset(d.fw);
	REQUIRE(drv_enable(&d, 4));
	traffic(&d, 40, 0, 1, 0);
	REQUIRE_EQ(pma(&d, METHOD_GET, ATTR_PORT_COUNTERS, 1, 0), 0);
	o = pma_data(&d);
	CHECK_EQ(rd32(o, PC_XMIT_DATA), 10);
	CHECK_EQ(rd32(o, PC_XMIT_PKTS), 1);
	drv_close(&d);
}
