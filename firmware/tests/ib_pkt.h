/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * InfiniBand packets for the tests, as another port would put them on
 * the cable: a UD SEND built with the firmware's own framing
 * (fw_ib_frame_init/seal), and the VCRC a hop recomputes after a test
 * changed the LRH.
 */
#ifndef ORDMA_TESTS_IB_PKT_H
#define ORDMA_TESTS_IB_PKT_H

#include <stddef.h>
#include <stdint.h>

struct ib_ud_pkt {
	uint16_t dlid;
	uint16_t slid;
	uint8_t vl;
	uint8_t sl;
	uint32_t dest_qp;
	uint32_t src_qp;
	uint32_t qkey;
	uint32_t psn;
	size_t payload_len;
	uint8_t fill;		/* every payload byte */
};

/* A local (no GRH) UD SEND_ONLY with the default P_Key into buf: its
 * length, 0 if the framing refuses it or it does not fit cap
 */
size_t ib_ud_packet(uint8_t *buf, size_t cap, const struct ib_ud_pkt *p);

/* The VCRC of a packet of len bytes, recomputed over its LRH and the rest */
void ib_revcrc(uint8_t *pkt, size_t len);

#endif /* ORDMA_TESTS_IB_PKT_H */
