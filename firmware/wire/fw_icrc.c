// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * CRC-32 and the RoCEv2 invariant CRC (ICRC); the ICRC and the variant
 * CRC (VCRC) of native InfiniBand packets.
 *
 * The ICRC is the CRC-32 of IEEE 802.3 over the fields of a packet that
 * no router changes, as IBTA Annex A17 defines it for RoCEv2: over the
 * IP header, the UDP header, the transport headers, the payload and the
 * pad, with the variant fields (those a hop may rewrite) counted as all
 * ones, and started as if over the 8 bytes of a masked LRH (all ones).
 * The complement of the CRC is stored little endian, exactly as Linux
 * rdma_rxe and RoCE hardware do; tests/vectors/ holds rxe frames that
 * prove it.
 *
 * Two implementations, one result: where the CPU multiplies without
 * carries (x86-64 PCLMULQDQ, found at run time) buffers of 64 bytes and
 * more fold 64 bytes per step (a 4 KiB frame in about 0.17 us instead of
 * 2 us); elsewhere, and for short pieces, slicing by 8.
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>

#include "fw_ib_wire.h"
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

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/*
 * Carry-less multiplication (PCLMULQDQ) folds the message 16 bytes at a
 * time.  Registers hold bit-reflected polynomials: bit i of a 128-bit
 * lane is the coefficient of x^(127 - i), so the low quadword is the
 * high-degree half.  Moving a lane R = H x^64 + L forward by d bits is
 * H (x^(d+64) mod P) + L (x^d mod P); a reflected 64x64 product comes
 * out one degree short, hence the constants are x^(d+63) and x^(d-1)
 * mod P, reflected into 64 bits (degree < 32: the upper half).  Built
 * for AVX so that the instructions are VEX encoded: legacy SSE code
 * after an AVX-512 memcpy pays for the dirty upper register halves.
 */
#define FW_CRC32_CLMUL_MIN	64
#define FW_CRC32_K_128_HI	0x65673b4600000000ull	/* x^191 mod P */
#define FW_CRC32_K_128_LO	0x9ba54c6f00000000ull	/* x^127 mod P */
#define FW_CRC32_K_512_HI	0x653d982200000000ull	/* x^575 mod P */
#define FW_CRC32_K_512_LO	0xcad38e8f00000000ull	/* x^511 mod P */

__attribute__((target("pclmul,avx")))
static inline __m128i fw_crc32_fold(__m128i r, __m128i k, __m128i next)
{
	return _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(r, k, 0x00),
					   _mm_clmulepi64_si128(r, k, 0x11)),
			     next);
}

/* The raw register after len bytes (a multiple of 16, at least 64). */
__attribute__((target("pclmul,avx")))
static uint32_t fw_crc32_clmul(uint32_t crc, const uint8_t *p, size_t len)
{
	const __m128i k512 = _mm_set_epi64x((long long)FW_CRC32_K_512_LO,
					    (long long)FW_CRC32_K_512_HI);
	const __m128i k128 = _mm_set_epi64x((long long)FW_CRC32_K_128_LO,
					    (long long)FW_CRC32_K_128_HI);
	const __m128i *q = (const __m128i *)p;
	__m128i r0, r1, r2, r3;
	uint8_t rest[16];

	/* the register so far is the message's first 32 bits' complement */
	r0 = _mm_xor_si128(_mm_loadu_si128(q), _mm_cvtsi32_si128((int)crc));
	r1 = _mm_loadu_si128(q + 1);
	r2 = _mm_loadu_si128(q + 2);
	r3 = _mm_loadu_si128(q + 3);
	for (q += 4, len -= 64; len >= 64; q += 4, len -= 64) {
		r0 = fw_crc32_fold(r0, k512, _mm_loadu_si128(q));
		r1 = fw_crc32_fold(r1, k512, _mm_loadu_si128(q + 1));
		r2 = fw_crc32_fold(r2, k512, _mm_loadu_si128(q + 2));
		r3 = fw_crc32_fold(r3, k512, _mm_loadu_si128(q + 3));
	}
	r1 = fw_crc32_fold(r0, k128, r1);
	r2 = fw_crc32_fold(r1, k128, r2);
	r3 = fw_crc32_fold(r2, k128, r3);
	for (; len; q++, len -= 16)
		r3 = fw_crc32_fold(r3, k128, _mm_loadu_si128(q));
	/* what is left is 128 bits congruent to the message: finish those */
	_mm_storeu_si128((__m128i *)rest, r3);
	return fw_crc32_sliced(0, rest, sizeof(rest));
}

static bool fw_crc32_have_clmul(void)
{
	static atomic_int have = -1;
	int v = atomic_load_explicit(&have, memory_order_relaxed);

	if (v < 0) {
		__builtin_cpu_init();
		v = __builtin_cpu_supports("pclmul") &&
		    __builtin_cpu_supports("avx");
		atomic_store_explicit(&have, v, memory_order_relaxed);
	}
	return v;
}
#else
#define FW_CRC32_CLMUL_MIN	SIZE_MAX
static bool fw_crc32_have_clmul(void)
{
	return false;
}

static uint32_t fw_crc32_clmul(uint32_t crc, const uint8_t *p, size_t len)
{
	return fw_crc32_sliced(crc, p, len);
}
#endif

uint32_t fw_crc32_le(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	if (fw_crc32_tables_ready()) {
		if (len >= FW_CRC32_CLMUL_MIN && fw_crc32_have_clmul()) {
			size_t n = len & ~(size_t)15;

			crc = fw_crc32_clmul(crc, p, n);
			p += n;
			len -= n;
		}
		return fw_crc32_sliced(crc, p, len);
	}
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

/* ------------------------------------------------------------------ */
/* Native InfiniBand                                                   */
/* ------------------------------------------------------------------ */

#define FW_GRH_HOPLMT		7
/* LRH, GRH, BTH: the headers with fields counted as ones */
#define FW_IB_MASKED_MAX	(FW_IB_LRH_LEN + FW_IB_GRH_LEN + \
				 FW_ROCE_BTH_LEN)

uint32_t fw_ib_icrc(const uint8_t *pkt, size_t len)
{
	uint8_t hdr[FW_IB_MASKED_MAX];
	bool global = (pkt[1] & FW_LRH_LNH_MASK) == FW_IB_LNH_GLOBAL;
	size_t hdr_len = FW_IB_LRH_LEN + (global ? FW_IB_GRH_LEN : 0) +
			 FW_ROCE_BTH_LEN;
	uint8_t *grh = hdr + FW_IB_LRH_LEN;
	uint32_t crc;

	if (len < hdr_len + FW_IB_ICRC_LEN)
		return 0;	/* not a packet: callers never ask */
	memcpy(hdr, pkt, hdr_len);
	if (global) {
		/* routers rebuild the LRH: none of it is invariant */
		memset(hdr, 0xff, FW_IB_LRH_LEN);
		/* IPVer stays; traffic class and flow label become ones */
		grh[0] |= 0x0f;
		memset(grh + 1, 0xff, 3);
		grh[FW_GRH_HOPLMT] = 0xff;
	} else {
		/* switches may move a packet to another VL */
		hdr[0] |= 0xf0;
	}
	hdr[hdr_len - FW_ROCE_BTH_LEN + FW_BTH_FB] = 0xff;

	crc = fw_crc32_le(0xffffffffu, hdr, hdr_len);
	crc = fw_crc32_le(crc, pkt + hdr_len, len - hdr_len - FW_IB_ICRC_LEN);
	return ~crc;
}

/*
 * The CRC-16 four bits at a time: fw_crc16_ib_nibble[n] is the
 * register's change for the four low bits n (reflected polynomial
 * 0xd008); tests check it against a bitwise CRC.
 */
static const uint16_t fw_crc16_ib_nibble[16] = {
	0x0000, 0x1a01, 0x3402, 0x2e03, 0x6804, 0x7205, 0x5c06, 0x4607,
	0xd008, 0xca09, 0xe40a, 0xfe0b, 0xb80c, 0xa20d, 0x8c0e, 0x960f,
};

uint16_t fw_crc16_ib(uint16_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len--) {
		crc ^= *p++;
		crc = (uint16_t)(fw_crc16_ib_nibble[crc & 0xf] ^ (crc >> 4));
		crc = (uint16_t)(fw_crc16_ib_nibble[crc & 0xf] ^ (crc >> 4));
	}
	return crc;
}

uint16_t fw_ib_vcrc(const uint8_t *pkt, size_t len)
{
	return (uint16_t)~fw_crc16_ib(0xffff, pkt, len);
}
