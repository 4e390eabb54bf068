/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ORDMA device model: what the cable's impairments (ordma-wire.c) decide
 * and do to one frame: the seeded draws, which RoCEv2 frames may be
 * corrupted, and the corruption itself.  Plain C11 and libc, no QEMU
 * header, so that the host unit test (tools/qemu/tests/) runs it under
 * the sanitizers.
 */
#ifndef HW_NET_ORDMA_WIRE_FRAME_H
#define HW_NET_ORDMA_WIRE_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ORDMA_WIRE_PPM_MAX      1000000

/* Rates of the impairments drawn per frame, parts per million */
typedef struct OrdmaWireRates {
    uint32_t loss_ppm;
    uint32_t reorder_ppm;
    uint32_t dup_ppm;
    uint32_t corrupt_ppm;
} OrdmaWireRates;

/* What befalls one frame */
typedef struct OrdmaWireDraw {
    bool loss;
    bool corrupt;                   /* if the frame is RoCEv2 */
    bool dup;
    bool reorder;                   /* if no frame is held already */
    uint64_t bit;                   /* for ordma_wire_corrupt() */
} OrdmaWireDraw;

/* splitmix64: the next number of the generator whose state is *rng */
uint64_t ordma_wire_rand(uint64_t *rng);

/* true with probability ppm / 10^6 for a uniform r */
bool ordma_wire_chance(uint64_t r, uint32_t ppm);

/*
 * One frame's fate: always five draws (loss, corrupt, bit, dup, reorder)
 * whatever the rates, so that a seed gives the same faults to the same
 * frame numbers.
 */
void ordma_wire_draw(uint64_t *rng, const OrdmaWireRates *rates,
                     OrdmaWireDraw *d);

/*
 * A RoCEv2 frame (IPv4 or IPv6, UDP to 4791, at most one VLAN tag, the
 * UDP datagram inside the IP packet inside the frame, something after
 * the BTH): the offsets of its UDP header and of the datagram's end.
 */
bool ordma_wire_roce(const uint8_t *f, size_t len, size_t *udp, size_t *end);

/*
 * Writes to out (len bytes, which may be frame itself) the frame with
 * bit (modulo their number) of the bytes after the BTH flipped, and its
 * UDP checksum brought up to date.  False, out untouched, for a frame
 * that is not RoCEv2.  Reads and writes nothing outside [0, len).
 */
bool ordma_wire_corrupt(const uint8_t *frame, size_t len, uint64_t bit,
                        uint8_t *out);

/* An IEEE 802.3x PAUSE frame: the minimum frame, FCS not included */
#define ORDMA_PAUSE_FRAME_LEN   60
/* quanta of 512 bit times for which a PAUSE asks the partner to hold */
#define ORDMA_PAUSE_QUANTA_MAX  0xffff

/*
 * Writes to out (ORDMA_PAUSE_FRAME_LEN bytes) a PAUSE from src asking
 * for pause_time quanta (0: resume), to 01:80:c2:00:00:01.
 */
size_t ordma_wire_pause_frame(uint8_t *out, const uint8_t src[6],
                              uint16_t quanta);

#endif
