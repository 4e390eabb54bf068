/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The RoCEv2 wire format (wire/fw_roce_wire.h) as the unit tests, the
 * Wireshark interop frames (tests/wire/wire_pcap.c) and the benchmarks
 * use it: what the firmware itself never needs.
 */
#ifndef ORDMA_TEST_ROCE_CODEC_H
#define ORDMA_TEST_ROCE_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "wire/fw_roce_wire.h"

/* The whole frame in one call: its length, or 0 as for frame_init. */
size_t fw_roce_build(uint8_t *frame, size_t cap, const struct fw_roce_hdrs *h,
		     const void *payload, size_t len);

/* Every field of a parsed packet; src_qp is 0 (it is not on the wire). */
void fw_roce_decode(const struct fw_roce_pkt *pkt, struct fw_roce_hdrs *h);

/* The name of a drop reason ("unknown" for a value out of range) */
const char *fw_roce_drop_name(enum fw_roce_drop reason);

#endif /* ORDMA_TEST_ROCE_CODEC_H */
