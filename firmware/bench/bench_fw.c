// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Native micro-benchmarks of the firmware's per-frame and per-tick work
 * (make -C firmware bench): a measuring tool, not a test, so it asserts
 * nothing about speed.  It prints
 *   - the RoCEv2 ICRC of a frame with a 1 KiB and a 4 KiB payload and
 *     the plain CRC-32 over 4 KiB, in ns per call and GB/s;
 *   - the cost of one device timer callback with 1 and with 1022 RC QPs
 *     created (all idle), in ns per callback.
 * The device runs on the tests' simulated host (tests/drv.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "drv.h"
#include "objects/fw_qp.h"
#include "wire/fw_roce_wire.h"
#include "roce_codec.h"

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

#define BENCH_FRAME_MAX	(FW_ROCE_MAX_HLEN + 4096 + 64)

/* Defeats dead-code elimination of the measured calls. */
static volatile uint32_t bench_sink;

/* The best of a few rounds: the least disturbed by other load. */
#define BENCH_ROUNDS	5

/* IPv4-mapped GIDs: 10.0.0.1 -> 10.0.0.2 */
static const uint8_t bench_gid_a[16] = { [10] = 0xff, 0xff, 10, 0, 0, 1 };
static const uint8_t bench_gid_b[16] = { [10] = 0xff, 0xff, 10, 0, 0, 2 };

static void bench_icrc(size_t payload_len, unsigned int iters)
{
	static uint8_t frame[BENCH_FRAME_MAX];
	static uint8_t payload[BENCH_FRAME_MAX];
	struct fw_roce_hdrs h;
	struct fw_roce_pkt pkt;
	double best = 0, t0, ns;
	size_t len, i;
	unsigned int r, n;

	memset(&h, 0, sizeof(h));
	h.opcode = FW_ROCE_RC_SEND_ONLY;
	h.dmac[0] = 0x02;
	h.smac[0] = 0x02;
	h.vlan_id = FW_ROCE_VLAN_NONE;
	memcpy(h.sgid, bench_gid_a, 16);
	memcpy(h.dgid, bench_gid_b, 16);
	h.hop_limit = 64;
	h.pkey = 0xffff;
	h.dest_qp = 17;
	for (i = 0; i < payload_len; i++)
		payload[i] = (uint8_t)(i * 31 + 7);
	len = fw_roce_build(frame, sizeof(frame), &h, payload, payload_len);
	if (!len || fw_roce_parse(frame, len, &pkt) != FW_ROCE_OK) {
		fprintf(stderr, "bench: cannot build a %zu-byte frame\n",
			payload_len);
		exit(1);
	}
	for (r = 0; r < BENCH_ROUNDS; r++) {
		t0 = now_ns();
		for (n = 0; n < iters; n++)
			bench_sink += fw_roce_icrc(pkt.ip, pkt.ip_hlen,
						   pkt.pkt_len);
		ns = (now_ns() - t0) / iters;
		if (!r || ns < best)
			best = ns;
	}
	printf("icrc   payload %5zu B  packet %5zu B  %9.1f ns/frame  %6.2f GB/s\n",
	       payload_len, pkt.pkt_len, best, (double)pkt.pkt_len / best);
}

static void bench_crc32(size_t len, unsigned int iters)
{
	static uint8_t buf[4096 + 1];
	double best = 0, t0, ns;
	unsigned int r, n;
	size_t i;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 13 + 5);
	for (r = 0; r < BENCH_ROUNDS; r++) {
		t0 = now_ns();
		for (n = 0; n < iters; n++)
			bench_sink += fw_crc32_le(~0u, buf + 1, len);
		ns = (now_ns() - t0) / iters;
		if (!r || ns < best)
			best = ns;
	}
	printf("crc32  %5zu B (unaligned)                %9.1f ns/call   %6.2f GB/s\n",
	       len, best, (double)len / best);
}

static void bench_timer(unsigned int num_qps, unsigned int iters)
{
	struct ordma_qp_create_params p;
	struct drv d;
	struct drv_eq eq;
	struct drv_cq cq;
	uint32_t pdn, qpn;
	double best = 0, t0, ns;
	unsigned int i, r, n;

	if (!drv_open(&d, 10) ||
	    !drv_eq_open(&d, &eq, ORDMA_EQ_TYPE_COMP, 1, 8) ||
	    drv_alloc_pd(&d, 0, &pdn) != ORDMA_CMD_STATUS_OK ||
	    !drv_cq_open(&d, &cq, 0, 0, eq.eqn, 10)) {
		fprintf(stderr, "bench: cannot open the device\n");
		exit(1);
	}
	drv_qp_params(&p, 0, pdn, ORDMA_QPT_RC, cq.cqn, cq.cqn,
		      ORDMA_NO_SRQ, 2);
	for (i = 0; i < num_qps; i++)
		if (drv_create_qp(&d, &p, &qpn) != ORDMA_CMD_STATUS_OK) {
			fprintf(stderr, "bench: QP %u not created\n", i);
			exit(1);
		}
	for (r = 0; r < BENCH_ROUNDS; r++) {
		t0 = now_ns();
		for (n = 0; n < iters; n++)
			ordma_fw_timer_expired(d.fw);
		ns = (now_ns() - t0) / iters;
		if (!r || ns < best)
			best = ns;
	}
	printf("timer  %4u RC QPs, none armed             %9.1f ns/callback\n",
	       num_qps, best);
	drv_close(&d);
}

int main(void)
{
	bench_icrc(1024, 20000);
	bench_icrc(4096, 5000);
	bench_crc32(4096, 5000);
	bench_timer(1, 200000);
	bench_timer(FW_MAX_QP - FW_FIRST_QPN, 2000);
	return 0;
}
