// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * CRC-32 and the RoCEv2 invariant CRC (ICRC).
 *
 * The ICRC is the CRC-32 of IEEE 802.3 over the fields of a packet that
 * no router changes, as IBTA Annex A17 defines it for RoCEv2: over the
 * IP header, the UDP header, the transport headers, the payload and the
 * pad, with the variant fields (those a hop may rewrite) counted as all
 * ones, and started as if over the 8 bytes of a masked LRH (all ones).
 * The complement of the CRC is stored little endian, exactly as Linux
 * rdma_rxe and RoCE hardware do; tests/vectors/ holds rxe frames that
 * prove it.
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>

#include "fw_roce_wire.h"

/*
 * Slicing by 8: fw_crc32_slice[k][n] is the CRC of byte n followed by k
 * zero bytes, so eight bytes fold into the CRC with eight independent
 * table look-ups instead of eight dependent ones.  The tables are
 * derived from the reflected polynomial 0xedb88320 on first use (tests
 * check them against a bitwise CRC).  The first caller claims the job;
 * concurrent callers use the byte-at-a-time loop on slice 0, computed
 * here the same way, until the tables are published.
 */
#define FW_CRC32_POLY		0xedb88320u
#define FW_CRC32_SLICES		8

static uint32_t fw_crc32_slice[FW_CRC32_SLICES][256];

enum { FW_CRC32_UNSET, FW_CRC32_FILLING, FW_CRC32_READY };
static atomic_int fw_crc32_state = FW_CRC32_UNSET;

static uint32_t fw_crc32_bitwise_byte(uint32_t crc)
{
	int bit;

	for (bit = 0; bit < 8; bit++)
		crc = (crc >> 1) ^ (FW_CRC32_POLY & (0u - (crc & 1u)));
	return crc;
}

static void fw_crc32_fill_tables(void)
{
	uint32_t n, c;
	int k;

	for (n = 0; n < 256; n++) {
		c = fw_crc32_bitwise_byte(n);
		fw_crc32_slice[0][n] = c;
		for (k = 1; k < FW_CRC32_SLICES; k++) {
			c = fw_crc32_bitwise_byte(c & 0xff) ^ (c >> 8);
			fw_crc32_slice[k][n] = c;
		}
	}
}

/* Whether the tables can be read; fills them if nobody has. */
static bool fw_crc32_tables_ready(void)
{
	int state = atomic_load_explicit(&fw_crc32_state,
					 memory_order_acquire);
	int unset = FW_CRC32_UNSET;

	if (state == FW_CRC32_READY)
		return true;
	if (state == FW_CRC32_FILLING ||
	    !atomic_compare_exchange_strong_explicit(&fw_crc32_state, &unset,
						     FW_CRC32_FILLING,
						     memory_order_acquire,
						     memory_order_acquire))
		return false;
	fw_crc32_fill_tables();
	atomic_store_explicit(&fw_crc32_state, FW_CRC32_READY,
			      memory_order_release);
	return true;
}

static inline uint32_t fw_crc32_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 |
	       (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint32_t fw_crc32_sliced(uint32_t crc, const uint8_t *p, size_t len)
{
	const uint32_t (*t)[256] = fw_crc32_slice;
	uint32_t hi;

	for (; len >= 8; len -= 8, p += 8) {
		crc ^= fw_crc32_le32(p);
		hi = fw_crc32_le32(p + 4);
		crc = t[7][crc & 0xff] ^ t[6][(crc >> 8) & 0xff] ^
		      t[5][(crc >> 16) & 0xff] ^ t[4][crc >> 24] ^
		      t[3][hi & 0xff] ^ t[2][(hi >> 8) & 0xff] ^
		      t[1][(hi >> 16) & 0xff] ^ t[0][hi >> 24];
	}
	while (len--)
		crc = t[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}

uint32_t fw_crc32_le(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	if (fw_crc32_tables_ready())
		return fw_crc32_sliced(crc, p, len);
	/* another thread is filling the tables right now */
	while (len--)
		crc = fw_crc32_bitwise_byte((crc ^ *p++) & 0xff) ^ (crc >> 8);
	return crc;
}

#define FW_IPV4_TOS		1
#define FW_IPV4_TTL		8
#define FW_IPV4_CSUM		10
#define FW_IPV6_HOP_LIMIT	7
#define FW_UDP_CSUM		6
#define FW_BTH_FB		4
/* IPv4 header with the most options, UDP, BTH */
#define FW_ICRC_MASKED_MAX	(60 + FW_ROCE_UDP_HLEN + FW_ROCE_BTH_LEN)

uint32_t fw_roce_icrc(const uint8_t *pkt, size_t ip_hlen, size_t pkt_len)
{
	uint8_t hdr[FW_ICRC_MASKED_MAX];
	size_t hdr_len = ip_hlen + FW_ROCE_UDP_HLEN + FW_ROCE_BTH_LEN;
	uint8_t *udp = hdr + ip_hlen;
	uint32_t crc;

	if (hdr_len > sizeof(hdr) ||
	    pkt_len < hdr_len + FW_ROCE_ICRC_LEN)
		return 0;	/* not a packet: callers never ask */
	memcpy(hdr, pkt, hdr_len);
	if ((pkt[0] >> 4) == 6) {
		/* version stays; traffic class and flow label become ones */
		hdr[0] |= 0x0f;
		memset(hdr + 1, 0xff, 3);
		hdr[FW_IPV6_HOP_LIMIT] = 0xff;
	} else {
		hdr[FW_IPV4_TOS] = 0xff;
		hdr[FW_IPV4_TTL] = 0xff;
		memset(hdr + FW_IPV4_CSUM, 0xff, 2);
	}
	memset(udp + FW_UDP_CSUM, 0xff, 2);
	udp[FW_ROCE_UDP_HLEN + FW_BTH_FB] = 0xff;

	crc = fw_crc32_le(FW_ROCE_ICRC_SEED, hdr, hdr_len);
	crc = fw_crc32_le(crc, pkt + hdr_len,
			  pkt_len - hdr_len - FW_ROCE_ICRC_LEN);
	return ~crc;
}
