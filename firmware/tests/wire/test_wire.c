// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * RoCEv2 wire layer: CRC-32 and ICRC, header accessors, the opcode table,
 * build/parse round trips of every opcode over IPv4/IPv6 with and without
 * a VLAN tag, every drop reason, truncation and mutation loops (run
 * under ASan, every parse reads from a heap copy of exactly the frame's
 * length), and real rdma_rxe frames (vectors/rxe_frames.h).
 */
#include <stdlib.h>
#include <string.h>

#include "wire/fw_roce_wire.h"
#include "roce_codec.h"
#include "ordma_test.h"
#include "vectors/rxe_frames.h"

#define WIRE_BUF		9100
#define NUM_RXE_FRAMES		(sizeof(rxe_frames) / sizeof(rxe_frames[0]))

static const uint8_t mac_a[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x01 };
static const uint8_t mac_b[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x02 };
static const uint8_t gid4_a[16] = { [10] = 0xff, 0xff, 192, 0, 2, 1 };
static const uint8_t gid4_b[16] = { [10] = 0xff, 0xff, 192, 0, 2, 2 };
static const uint8_t gid6_a[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
static const uint8_t gid6_b[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };

static const uint8_t all_opcodes[] = {
	FW_ROCE_RC_SEND_FIRST, FW_ROCE_RC_SEND_MIDDLE, FW_ROCE_RC_SEND_LAST,
	FW_ROCE_RC_SEND_LAST_IMM, FW_ROCE_RC_SEND_ONLY,
	FW_ROCE_RC_SEND_ONLY_IMM, FW_ROCE_RC_RDMA_WRITE_FIRST,
	FW_ROCE_RC_RDMA_WRITE_MIDDLE, FW_ROCE_RC_RDMA_WRITE_LAST,
	FW_ROCE_RC_RDMA_WRITE_LAST_IMM, FW_ROCE_RC_RDMA_WRITE_ONLY,
	FW_ROCE_RC_RDMA_WRITE_ONLY_IMM, FW_ROCE_RC_RDMA_READ_REQUEST,
	FW_ROCE_RC_RDMA_READ_RESPONSE_FIRST,
	FW_ROCE_RC_RDMA_READ_RESPONSE_MIDDLE,
	FW_ROCE_RC_RDMA_READ_RESPONSE_LAST,
	FW_ROCE_RC_RDMA_READ_RESPONSE_ONLY, FW_ROCE_RC_ACKNOWLEDGE,
	FW_ROCE_RC_ATOMIC_ACKNOWLEDGE, FW_ROCE_RC_COMPARE_SWAP,
	FW_ROCE_RC_FETCH_ADD, FW_ROCE_RC_SEND_LAST_INV,
	FW_ROCE_RC_SEND_ONLY_INV, FW_ROCE_RC_FLUSH, FW_ROCE_RC_ATOMIC_WRITE,
	FW_ROCE_UC_SEND_FIRST,
	FW_ROCE_UC_SEND_MIDDLE, FW_ROCE_UC_SEND_LAST,
	FW_ROCE_UC_SEND_LAST_IMM, FW_ROCE_UC_SEND_ONLY,
	FW_ROCE_UC_SEND_ONLY_IMM, FW_ROCE_UC_RDMA_WRITE_FIRST,
	FW_ROCE_UC_RDMA_WRITE_MIDDLE, FW_ROCE_UC_RDMA_WRITE_LAST,
	FW_ROCE_UC_RDMA_WRITE_LAST_IMM, FW_ROCE_UC_RDMA_WRITE_ONLY,
	FW_ROCE_UC_RDMA_WRITE_ONLY_IMM, FW_ROCE_UD_SEND_ONLY,
	FW_ROCE_UD_SEND_ONLY_IMM,
};

#define NUM_OPCODES	(sizeof(all_opcodes) / sizeof(all_opcodes[0]))

/* Deterministic xorshift64: the same fuzz cases on every run */
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* Parse from a heap copy of exactly len bytes, so ASan sees any read
 * past the end of the frame.
 */
static enum fw_roce_drop parse_exact(const uint8_t *frame, size_t len,
				     struct fw_roce_pkt *pkt,
				     uint8_t **copy_out)
{
	uint8_t *copy = malloc(len ? len : 1);
	enum fw_roce_drop r;

	if (!copy)
		abort();
	memcpy(copy, frame, len);
	r = fw_roce_parse(copy, len, pkt);
	if (copy_out)
		*copy_out = copy;
	else
		free(copy);
	return r;
}

static void fill_hdrs(struct fw_roce_hdrs *h, uint8_t opcode, bool ipv6,
		      bool vlan)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->dmac, mac_b, 6);
	memcpy(h->smac, mac_a, 6);
	h->vlan_id = vlan ? 100 : FW_ROCE_VLAN_NONE;
	h->vlan_prio = vlan ? 5 : 0;
	memcpy(h->sgid, ipv6 ? gid6_a : gid4_a, 16);
	memcpy(h->dgid, ipv6 ? gid6_b : gid4_b, 16);
	h->traffic_class = 0x68;
	h->flow_label = ipv6 ? 0x12345 : 0;
	h->hop_limit = 64;
	h->ip_id = ipv6 ? 0 : 0x1234;
	h->opcode = opcode;
	h->se = true;
	h->mig = true;
	h->ack_req = true;
	h->pkey = FW_ROCE_DEFAULT_PKEY;
	h->dest_qp = 0xabcdef;
	h->psn = 0xfedcba;
	h->src_qp = 0x000123;
	h->reth.va = 0x0123456789abcdefULL;
	h->reth.rkey = 0x11223344;
	h->reth.dma_len = 0x10000;
	h->aeth.syndrome = fw_aeth_nak(FW_AETH_NAK_REMOTE_ACCESS);
	h->aeth.msn = 0x654321;
	h->deth.qkey = 0x80010000;
	h->deth.src_qp = 0x000123;
	h->imm = 0xdeadbeef;
	h->inv_rkey = 0x55667788;
	h->atomic.va = 0x1000;
	h->atomic.rkey = 0x99aabbcc;
	h->atomic.swap_add = 0x0102030405060708ULL;
	h->atomic.compare = 0x1112131415161718ULL;
	h->atomic_orig = 0x2122232425262728ULL;
	h->feth.placement = FW_FETH_PLT_GLOBAL | FW_FETH_PLT_PERSISTENT;
	h->feth.level = FW_FETH_SEL_MR;
}

/* What decode must give back for frames built from h */
static void expected_decode(struct fw_roce_hdrs *want,
			    const struct fw_roce_hdrs *h)
{
	const struct fw_roce_opcode_info *op = fw_roce_opcode_info(h->opcode);
	uint16_t f = op->flags;

	*want = *h;
	want->src_qp = 0;
	if (!want->udp_sport)
		want->udp_sport = fw_roce_udp_sport(h->flow_label, h->src_qp,
						    h->dest_qp);
	if (h->vlan_id == FW_ROCE_VLAN_NONE)
		want->vlan_prio = 0;
	if (fw_roce_gid_is_ipv4(h->dgid)) {
		want->flow_label = 0;
		want->udp6_zero_csum = false;
	} else {
		want->ip_id = 0;
	}
	if (!(f & FW_ROCE_HAS_RETH))
		memset(&want->reth, 0, sizeof(want->reth));
	if (!(f & FW_ROCE_HAS_AETH))
		memset(&want->aeth, 0, sizeof(want->aeth));
	if (!(f & FW_ROCE_HAS_DETH))
		memset(&want->deth, 0, sizeof(want->deth));
	if (!(f & FW_ROCE_HAS_ATOMIC_ETH))
		memset(&want->atomic, 0, sizeof(want->atomic));
	if (!(f & FW_ROCE_HAS_IMMDT))
		want->imm = 0;
	if (!(f & FW_ROCE_HAS_IETH))
		want->inv_rkey = 0;
	if (!(f & FW_ROCE_HAS_ATOMIC_ACK_ETH))
		want->atomic_orig = 0;
	if (!(f & FW_ROCE_HAS_FETH))
		memset(&want->feth, 0, sizeof(want->feth));
}

#define CHECK_FIELD(f)	CHECK_EQ(got->f, want->f)

static void check_hdrs_equal(const struct fw_roce_hdrs *got,
			     const struct fw_roce_hdrs *want)
{
	CHECK(!memcmp(got->dmac, want->dmac, 6));
	CHECK(!memcmp(got->smac, want->smac, 6));
	CHECK_FIELD(vlan_id);
	CHECK_FIELD(vlan_prio);
	CHECK(!memcmp(got->sgid, want->sgid, 16));
	CHECK(!memcmp(got->dgid, want->dgid, 16));
	CHECK_FIELD(traffic_class);
	CHECK_FIELD(flow_label);
	CHECK_FIELD(hop_limit);
	CHECK_FIELD(ip_id);
	CHECK_FIELD(udp_sport);
	CHECK_FIELD(udp6_zero_csum);
	CHECK_FIELD(opcode);
	CHECK_FIELD(se);
	CHECK_FIELD(mig);
	CHECK_FIELD(fecn);
	CHECK_FIELD(becn);
	CHECK_FIELD(ack_req);
	CHECK_FIELD(pkey);
	CHECK_FIELD(dest_qp);
	CHECK_FIELD(psn);
	CHECK_FIELD(src_qp);
	CHECK_FIELD(reth.va);
	CHECK_FIELD(reth.rkey);
	CHECK_FIELD(reth.dma_len);
	CHECK_FIELD(aeth.syndrome);
	CHECK_FIELD(aeth.msn);
	CHECK_FIELD(deth.qkey);
	CHECK_FIELD(deth.src_qp);
	CHECK_FIELD(imm);
	CHECK_FIELD(inv_rkey);
	CHECK_FIELD(atomic.va);
	CHECK_FIELD(atomic.rkey);
	CHECK_FIELD(atomic.swap_add);
	CHECK_FIELD(atomic.compare);
	CHECK_FIELD(atomic_orig);
	CHECK_FIELD(feth.placement);
	CHECK_FIELD(feth.level);
}

static size_t payload_for(uint8_t opcode, size_t want)
{
	return fw_roce_opcode_info(opcode)->flags & FW_ROCE_HAS_PAYLOAD ?
	       want : 0;
}

static bool all_zero(const uint8_t *p, size_t len)
{
	while (len--)
		if (*p++)
			return false;
	return true;
}

static void make_payload(uint8_t *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 7 + seed);
}

/* A valid frame: opcode, family, tag and payload length chosen by n */
static size_t sample_frame(uint8_t *buf, size_t cap, unsigned int n,
			   struct fw_roce_hdrs *h)
{
	static const size_t lens[] = { 0, 1, 2, 3, 4, 61, 256 };
	uint8_t payload[256];
	uint8_t opcode = all_opcodes[n % NUM_OPCODES];
	size_t len = payload_for(opcode, lens[(n / NUM_OPCODES) % 7]);

	fill_hdrs(h, opcode, n & 1, n & 2);
	make_payload(payload, len, n);
	return fw_roce_build(buf, cap, h, payload, len);
}

/* ------------------------------------------------------------------ */
/* CRC-32, ICRC                                                        */
/* ------------------------------------------------------------------ */

static uint32_t crc32_bitwise(uint32_t crc, const uint8_t *p, size_t len)
{
	int k;

	while (len--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = crc & 1 ? (crc >> 1) ^ 0xedb88320u : crc >> 1;
	}
	return crc;
}

TEST(test_wire_crc32)
{
	static const uint8_t ones[8] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff
	};
	uint8_t buf[1031];
	unsigned int b;
	size_t i;

	/* the check value of CRC-32/IEEE (initial and final inversion) */
	CHECK_EQ(~fw_crc32_le(~0u, "123456789", 9), 0xcbf43926u);
	CHECK_EQ(fw_crc32_le(0xffffffffu, ones, sizeof(ones)),
		 FW_ROCE_ICRC_SEED);
	CHECK_EQ(fw_crc32_le(0x12345678u, buf, 0), 0x12345678u);
	for (b = 0; b < 256; b++) {
		uint8_t byte = (uint8_t)b;

		CHECK_EQ(fw_crc32_le(0, &byte, 1), crc32_bitwise(0, &byte, 1));
	}
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)rng();
	for (i = 0; i < sizeof(buf); i += 97)
		CHECK_EQ(fw_crc32_le(0xdeadbeefu, buf, i),
			 crc32_bitwise(0xdeadbeefu, buf, i));
	/* chaining over pieces is the same as one pass */
	CHECK_EQ(fw_crc32_le(fw_crc32_le(~0u, buf, 500), buf + 500, 531),
		 fw_crc32_le(~0u, buf, sizeof(buf)));
}

/*
 * Long buffers take the folding path where the CPU has it: every length
 * around its 64-byte threshold and 16-byte steps, at every alignment,
 * and a jumbo frame, against the bitwise reference.
 */
TEST(test_wire_crc32_lengths_and_alignments)
{
	static uint8_t buf[9100];
	size_t len, off;

	for (len = 0; len < sizeof(buf); len++)
		buf[len] = (uint8_t)rng();
	for (off = 0; off < 16; off++)
		for (len = 0; len <= 300; len++)
			if (fw_crc32_le(0x5a5a5a5au, buf + off, len) !=
			    crc32_bitwise(0x5a5a5a5au, buf + off, len)) {
				CHECK_EQ(fw_crc32_le(0x5a5a5a5au, buf + off, len),
					 crc32_bitwise(0x5a5a5a5au, buf + off, len));
				NOTE("offset %zu, length %zu", off, len);
				return;
			}
	CHECK_EQ(fw_crc32_le(~0u, buf + 3, 9018),
		 crc32_bitwise(~0u, buf + 3, 9018));
	CHECK_EQ(fw_crc32_le(0, buf, 4096), crc32_bitwise(0, buf, 4096));
}

/* Check values of CRC-32/IEEE (with initial and final inversion). */
TEST(test_wire_crc32_known_values)
{
	static const struct {
		const char *text;
		uint32_t crc;
	} known[] = {
		{ "", 0x00000000u },
		{ "a", 0xe8b7be43u },
		{ "abc", 0x352441c2u },
		{ "123456789", 0xcbf43926u },
		{ "The quick brown fox jumps over the lazy dog", 0x414fa339u },
	};
	static uint8_t zeros[4096];
	size_t i;

	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		CHECK_EQ(~fw_crc32_le(~0u, known[i].text, strlen(known[i].text)),
			 known[i].crc);
	/* 4 KiB of zeros: every slice sees every table index 0 */
	CHECK_EQ(~fw_crc32_le(~0u, zeros, sizeof(zeros)),
		 ~crc32_bitwise(~0u, zeros, sizeof(zeros)));
}

/* Every length 0..300 from every start modulo 8 (the unrolled loop's
 * head, body and tail in all combinations) against the bitwise CRC.
 */
TEST(test_wire_crc32_lengths_and_alignment)
{
	uint8_t buf[300 + 8];
	size_t start, len;
	uint32_t seed;

	for (start = 0; start < sizeof(buf); start++)
		buf[start] = (uint8_t)rng();
	for (len = 0; len <= 300; len++)
		for (start = 0; start < 8; start++) {
			seed = (uint32_t)rng();
			if (!CHECK_EQ(fw_crc32_le(seed, buf + start, len),
				      crc32_bitwise(seed, buf + start, len))) {
				NOTE("length %zu, start %zu", len, start);
				return;
			}
		}
}

/* Any split into two or three pieces chains to the one-pass CRC. */
TEST(test_wire_crc32_split)
{
	uint8_t buf[300];
	uint32_t whole, crc;
	size_t a, b;

	for (a = 0; a < sizeof(buf); a++)
		buf[a] = (uint8_t)rng();
	whole = fw_crc32_le(~0u, buf, sizeof(buf));
	CHECK_EQ(whole, crc32_bitwise(~0u, buf, sizeof(buf)));
	for (a = 0; a <= sizeof(buf); a++) {
		crc = fw_crc32_le(~0u, buf, a);
		if (!CHECK_EQ(fw_crc32_le(crc, buf + a, sizeof(buf) - a),
			      whole)) {
			NOTE("split at %zu", a);
			return;
		}
	}
	for (a = 0; a <= sizeof(buf); a += 7)
		for (b = a; b <= sizeof(buf); b += 5) {
			crc = fw_crc32_le(~0u, buf, a);
			crc = fw_crc32_le(crc, buf + a, b - a);
			crc = fw_crc32_le(crc, buf + b, sizeof(buf) - b);
			if (!CHECK_EQ(crc, whole)) {
				NOTE("split at %zu and %zu", a, b);
				return;
			}
		}
}

/* ICRC by the definition, independent of fw_icrc.c: the masked copy of
 * the whole packet behind 8 bytes of ones, bit by bit.
 */
static uint32_t icrc_reference(const uint8_t *ip, size_t ip_hlen,
			       size_t pkt_len)
{
	static const uint8_t lrh[8] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff
	};
	uint8_t copy[WIRE_BUF];
	uint8_t *udp = copy + ip_hlen;

	memcpy(copy, ip, pkt_len);
	if (copy[0] >> 4 == 6) {
		copy[0] |= 0x0f;
		copy[1] = copy[2] = copy[3] = 0xff;
		copy[7] = 0xff;
	} else {
		copy[1] = copy[8] = copy[10] = copy[11] = 0xff;
	}
	udp[6] = udp[7] = 0xff;
	udp[8 + 4] = 0xff;
	return ~crc32_bitwise(crc32_bitwise(~0u, lrh, 8), copy, pkt_len - 4);
}

TEST(test_wire_icrc_reference)
{
	uint8_t buf[WIRE_BUF];
	struct fw_roce_hdrs h;
	struct fw_roce_pkt pkt;
	unsigned int n;
	size_t i, len;

	for (n = 0; n < 4 * NUM_OPCODES; n++) {
		len = sample_frame(buf, sizeof(buf), n, &h);
		REQUIRE(len);
		REQUIRE_EQ(fw_roce_parse(buf, len, &pkt), FW_ROCE_OK);
		CHECK_EQ(pkt.icrc, icrc_reference(pkt.ip, pkt.ip_hlen,
						  pkt.pkt_len));
	}
	for (i = 0; i < NUM_RXE_FRAMES; i++) {
		const struct rxe_frame *f = &rxe_frames[i];

		REQUIRE_EQ(fw_roce_parse(f->data, f->len, &pkt), FW_ROCE_OK);
		CHECK_EQ(icrc_reference(pkt.ip, pkt.ip_hlen, pkt.pkt_len),
			 pkt.icrc);
		CHECK_EQ(fw_roce_icrc(pkt.ip, pkt.ip_hlen, pkt.pkt_len),
			 pkt.icrc);
	}
}

/* ------------------------------------------------------------------ */
/* Header layouts                                                      */
/* ------------------------------------------------------------------ */

TEST(test_wire_accessors)
{
	static const uint8_t bth_bytes[12] = {
		0x0b, 0xf0, 0x12, 0x34, 0xc0, 0xab, 0xcd, 0xef,
		0x80, 0x65, 0x43, 0x21,
	};
	uint8_t b[8];
	struct fw_roce_bth bth;
	struct fw_roce_deth deth;
	struct fw_roce_aeth aeth;
	struct fw_roce_reth reth;
	struct fw_roce_atomic_eth at;

	fw_wire_put64(b, 0x0102030405060708ULL);
	CHECK(b[0] == 1 && b[7] == 8);
	CHECK_EQ(fw_wire_get64(b), 0x0102030405060708ULL);
	CHECK_EQ(fw_wire_get32(b + 1), 0x02030405u);
	CHECK_EQ(fw_wire_get24(b + 5), 0x060708u);
	CHECK_EQ(fw_wire_get16(b + 6), 0x0708u);

	/* BTH: SE, M, pad 3, TVer 0, P_Key, F and B, QPN, A, PSN */
	memset(&bth, 0, sizeof(bth));
	fw_bth_set_opcode(&bth, FW_ROCE_RC_RDMA_WRITE_ONLY_IMM);
	fw_bth_set_flags(&bth, true, true, 3);
	fw_bth_set_pkey(&bth, 0x1234);
	fw_bth_set_fb(&bth, true, true);
	fw_bth_set_dest_qp(&bth, 0xabcdef);
	fw_bth_set_apsn(&bth, true, 0x654321);
	CHECK(!memcmp(&bth, bth_bytes, sizeof(bth_bytes)));
	CHECK_EQ(fw_bth_opcode(&bth), FW_ROCE_RC_RDMA_WRITE_ONLY_IMM);
	CHECK(fw_bth_se(&bth) && fw_bth_mig(&bth));
	CHECK_EQ(fw_bth_pad(&bth), 3);
	CHECK_EQ(fw_bth_tver(&bth), 0);
	CHECK_EQ(fw_bth_pkey(&bth), 0x1234);
	CHECK(fw_bth_fecn(&bth) && fw_bth_becn(&bth));
	CHECK_EQ(fw_bth_dest_qp(&bth), 0xabcdef);
	CHECK(fw_bth_ack_req(&bth));
	CHECK_EQ(fw_bth_psn(&bth), 0x654321);
	/* out-of-range values stay inside their fields */
	fw_bth_set_dest_qp(&bth, 0xff000001);
	CHECK_EQ(fw_bth_dest_qp(&bth), 1);
	fw_bth_set_apsn(&bth, false, 0xff000002);
	CHECK(!fw_bth_ack_req(&bth));
	CHECK_EQ(fw_bth_psn(&bth), 2);
	CHECK_EQ(bth.apsn[0], 0);

	/* DETH: 8 reserved bits in front of the source QP */
	fw_deth_set(&deth, 0x80010000, 0xff123456);
	CHECK_EQ(deth.src_qp[0], 0);
	CHECK_EQ(fw_deth_qkey(&deth), 0x80010000u);
	CHECK_EQ(fw_deth_src_qp(&deth), 0x123456);

	fw_reth_set(&reth, 0x1122334455667788ULL, 0xaabbccdd, 4096);
	CHECK_EQ(reth.va[0], 0x11);
	CHECK_EQ(reth.rkey[0], 0xaa);
	CHECK_EQ(reth.dma_len[2], 0x10);
	CHECK_EQ(fw_reth_va(&reth), 0x1122334455667788ULL);
	CHECK_EQ(fw_reth_rkey(&reth), 0xaabbccddu);
	CHECK_EQ(fw_reth_dma_len(&reth), 4096);

	fw_atomic_eth_set(&at, 1, 2, 3, 4);
	CHECK_EQ(at.va[7], 1);
	CHECK_EQ(at.rkey[3], 2);
	CHECK_EQ(at.swap_add[7], 3);
	CHECK_EQ(at.compare[7], 4);
	CHECK_EQ(fw_atomic_eth_compare(&at), 4);

	/* AETH syndromes */
	CHECK_EQ(fw_aeth_ack(0), 0x00);
	CHECK_EQ(fw_aeth_ack(FW_AETH_CREDITS_INVALID), 0x1f);
	CHECK_EQ(fw_aeth_rnr_nak(0), 0x20);
	CHECK_EQ(fw_aeth_rnr_nak(14), 0x2e);
	CHECK_EQ(fw_aeth_nak(FW_AETH_NAK_PSN_SEQ_ERR), 0x60);
	CHECK_EQ(fw_aeth_nak(FW_AETH_NAK_INVALID_REQ), 0x61);
	CHECK_EQ(fw_aeth_nak(FW_AETH_NAK_REMOTE_ACCESS), 0x62);
	CHECK_EQ(fw_aeth_nak(FW_AETH_NAK_REMOTE_OP), 0x63);
	CHECK_EQ(fw_aeth_nak(FW_AETH_NAK_INVALID_RD_REQ), 0x64);
	CHECK(fw_aeth_is_ack(0x1f) && !fw_aeth_is_nak(0x1f));
	CHECK(fw_aeth_is_rnr_nak(0x2e) && fw_aeth_value(0x2e) == 14);
	CHECK(fw_aeth_is_nak(0x63) && fw_aeth_value(0x63) == 3);
	fw_aeth_set(&aeth, 0x62, 0x123456);
	CHECK_EQ(fw_aeth_syndrome(&aeth), 0x62);
	CHECK_EQ(fw_aeth_msn(&aeth), 0x123456);
}

TEST(test_wire_opcode_table)
{
	static const struct {
		uint8_t opcode;
		uint8_t hdr_len;
		uint16_t has;
	} want[] = {
		{ FW_ROCE_RC_SEND_FIRST, 12, FW_ROCE_HAS_PAYLOAD },
		{ FW_ROCE_RC_SEND_MIDDLE, 12, FW_ROCE_HAS_PAYLOAD },
		{ FW_ROCE_RC_SEND_LAST, 12, FW_ROCE_HAS_PAYLOAD },
		{ FW_ROCE_RC_SEND_LAST_IMM, 16,
		  FW_ROCE_HAS_PAYLOAD | FW_ROCE_HAS_IMMDT },
		{ FW_ROCE_RC_SEND_ONLY, 12, FW_ROCE_HAS_PAYLOAD },
		{ FW_ROCE_RC_SEND_ONLY_IMM, 16,
		  FW_ROCE_HAS_PAYLOAD | FW_ROCE_HAS_IMMDT },
		{ FW_ROCE_RC_RDMA_WRITE_FIRST, 28,
		  FW_ROCE_HAS_PAYLOAD | FW_ROCE_HAS_RETH },
		{ FW_ROCE_RC_RDMA_WRITE_MIDDLE, 12, FW_ROCE_HAS_PAYLOAD },
		{ FW_ROCE_RC_RDMA_WRITE_LAST, 12, FW_ROCE_HAS_PAYLOAD },
		{ FW_ROCE_RC_RDMA_WRITE_LAST_IMM, 16,
		  FW_ROCE_HAS_PAYLOAD | FW_ROCE_HAS_IMMDT },
		{ FW_ROCE_RC_RDMA_WRITE_ONLY, 28,
		  FW_ROCE_HAS_PAYLOAD | FW_ROCE_HAS_RETH },
		{ FW_ROCE_RC_RDMA_WRITE_ONLY_IMM, 32,
		  FW_ROCE_HAS_PAYLOAD | FW_ROCE_HAS_RETH | FW_ROCE_HAS_IMMDT },
		{ FW_ROCE_RC_RDMA_READ_REQUEST, 28, FW_ROCE_HAS_RETH },
		{ FW_ROCE_RC_RDMA_READ_RESPONSE_FIRST, 16,
		  FW_ROCE_HAS_PAYLOAD | FW_ROCE_HAS_AETH },
		{ FW_ROCE_RC_RDMA_READ_RESPONSE_MIDDLE, 12,
		  FW_ROCE_HAS_PAYLOAD },
		{ FW_ROCE_RC_RDMA_READ_RESPONSE_LAST, 16,
		  FW_ROCE_HAS_PAYLOAD | FW_ROCE_HAS_AETH },
		{ FW_ROCE_RC_RDMA_READ_RESPONSE_ONLY, 16,
		  FW_ROCE_HAS_PAYLOAD | FW_ROCE_HAS_AETH },
		{ FW_ROCE_RC_ACKNOWLEDGE, 16, FW_ROCE_HAS_AETH },
		{ FW_ROCE_RC_ATOMIC_ACKNOWLEDGE, 24,
		  FW_ROCE_HAS_AETH | FW_ROCE_HAS_ATOMIC_ACK_ETH },
		{ FW_ROCE_RC_COMPARE_SWAP, 40, FW_ROCE_HAS_ATOMIC_ETH },
		{ FW_ROCE_RC_FETCH_ADD, 40, FW_ROCE_HAS_ATOMIC_ETH },
		{ FW_ROCE_RC_SEND_LAST_INV, 16,
		  FW_ROCE_HAS_PAYLOAD | FW_ROCE_HAS_IETH },
		{ FW_ROCE_RC_SEND_ONLY_INV, 16,
		  FW_ROCE_HAS_PAYLOAD | FW_ROCE_HAS_IETH },
		{ FW_ROCE_UC_SEND_FIRST, 12, FW_ROCE_HAS_PAYLOAD },
		{ FW_ROCE_UC_SEND_MIDDLE, 12, FW_ROCE_HAS_PAYLOAD },
		{ FW_ROCE_UC_SEND_LAST, 12, FW_ROCE_HAS_PAYLOAD },
		{ FW_ROCE_UC_SEND_LAST_IMM, 16,
		  FW_ROCE_HAS_PAYLOAD | FW_ROCE_HAS_IMMDT },
		{ FW_ROCE_UC_SEND_ONLY, 12, FW_ROCE_HAS_PAYLOAD },
		{ FW_ROCE_UC_SEND_ONLY_IMM, 16,
		  FW_ROCE_HAS_PAYLOAD | FW_ROCE_HAS_IMMDT },
		{ FW_ROCE_UC_RDMA_WRITE_FIRST, 28,
		  FW_ROCE_HAS_PAYLOAD | FW_ROCE_HAS_RETH },
		{ FW_ROCE_UC_RDMA_WRITE_MIDDLE, 12, FW_ROCE_HAS_PAYLOAD },
		{ FW_ROCE_UC_RDMA_WRITE_LAST, 12, FW_ROCE_HAS_PAYLOAD },
		{ FW_ROCE_UC_RDMA_WRITE_LAST_IMM, 16,
		  FW_ROCE_HAS_PAYLOAD | FW_ROCE_HAS_IMMDT },
		{ FW_ROCE_UC_RDMA_WRITE_ONLY, 28,
		  FW_ROCE_HAS_PAYLOAD | FW_ROCE_HAS_RETH },
		{ FW_ROCE_UC_RDMA_WRITE_ONLY_IMM, 32,
		  FW_ROCE_HAS_PAYLOAD | FW_ROCE_HAS_RETH | FW_ROCE_HAS_IMMDT },
		/* FETH before RETH */
		{ FW_ROCE_RC_FLUSH, 32, FW_ROCE_HAS_FETH | FW_ROCE_HAS_RETH },
		{ FW_ROCE_RC_ATOMIC_WRITE, 28,
		  FW_ROCE_HAS_PAYLOAD | FW_ROCE_HAS_RETH },
		{ FW_ROCE_UD_SEND_ONLY, 20,
		  FW_ROCE_HAS_PAYLOAD | FW_ROCE_HAS_DETH },
		{ FW_ROCE_UD_SEND_ONLY_IMM, 24,
		  FW_ROCE_HAS_PAYLOAD | FW_ROCE_HAS_DETH | FW_ROCE_HAS_IMMDT },
	};
	const uint16_t has_mask = (FW_ROCE_REQUEST - 1) | FW_ROCE_HAS_FETH;
	const struct fw_roce_opcode_info *op;
	unsigned int i, known = 0;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		op = fw_roce_opcode_info(want[i].opcode);
		if (!CHECK(op))
			continue;
		CHECK(op->name);
		CHECK_EQ(op->hdr_len, want[i].hdr_len);
		CHECK_EQ(op->flags & has_mask, want[i].has);
		CHECK(op->hdr_len <= FW_ROCE_MAX_TRANSPORT_HLEN);
	}
	for (i = 0; i < 256; i++)
		known += !!fw_roce_opcode_info((uint8_t)i);
	CHECK_EQ(known, sizeof(want) / sizeof(want[0]));
	CHECK_EQ(known, NUM_OPCODES);
	/* reserved RC opcode, UC READ/atomics, RD, UD SEND others, CNP,
	 * vendor range
	 */
	CHECK(!fw_roce_opcode_info(0x15));
	CHECK(!fw_roce_opcode_info(0x18));
	CHECK(!fw_roce_opcode_info(0x2c));
	CHECK(!fw_roce_opcode_info(0x33));
	CHECK(!fw_roce_opcode_info(0x44));
	CHECK(!fw_roce_opcode_info(0x66));
	CHECK(!fw_roce_opcode_info(0x81));
	CHECK(!fw_roce_opcode_info(0xff));

	op = fw_roce_opcode_info(FW_ROCE_RC_SEND_FIRST);
	CHECK(op->flags & FW_ROCE_REQUEST && op->flags & FW_ROCE_FIRST &&
	      !(op->flags & FW_ROCE_LAST));
	op = fw_roce_opcode_info(FW_ROCE_RC_RDMA_READ_RESPONSE_LAST);
	CHECK(!(op->flags & FW_ROCE_REQUEST) && op->flags & FW_ROCE_LAST);
	op = fw_roce_opcode_info(FW_ROCE_RC_ACKNOWLEDGE);
	CHECK(!(op->flags & FW_ROCE_REQUEST));
	/* UC SEND/WRITE are the RC operations with the UC transport bits */
	for (i = FW_ROCE_UC_SEND_FIRST; i <= FW_ROCE_UC_RDMA_WRITE_ONLY_IMM;
	     i++) {
		const struct fw_roce_opcode_info *rc =
			fw_roce_opcode_info((uint8_t)(i & FW_ROCE_OPCODE_OP_MASK));

		op = fw_roce_opcode_info((uint8_t)i);
		if (CHECK(op && rc))
			CHECK_EQ(op->flags, rc->flags);
	}
}

TEST(test_wire_udp_sport)
{
	unsigned int i;
	uint32_t a, b;

	/* rxe's RC QPs 0x11 <-> 0x11 ... 0x19 <-> 0x19 of the capture */
	CHECK_EQ(fw_roce_udp_sport(0, 0x11, 0x11), 49441);
	CHECK_EQ(fw_roce_udp_sport(0, 0x12, 0x12), 49476);
	CHECK_EQ(fw_roce_udp_sport(0, 0x19, 0x19), 49777);
	/* a flow label is used as it is: 0x12345 folds to 0x2345 ^ 0x4 */
	CHECK_EQ(fw_roce_udp_sport(0x12345, 1, 2), 0xc000 | (0x2345 ^ 0x4));
	CHECK_EQ(fw_roce_udp_sport(0, 0, 0), 0xc000);
	for (i = 0; i < 1000; i++) {
		a = (uint32_t)rng() & FW_ROCE_QPN_MASK;
		b = (uint32_t)rng() & FW_ROCE_QPN_MASK;
		CHECK_EQ(fw_roce_udp_sport(0, a, b), fw_roce_udp_sport(0, b, a));
		CHECK(fw_roce_udp_sport(0, a, b) >= FW_ROCE_UDP_SPORT_MIN);
		CHECK(fw_roce_udp_sport((uint32_t)rng(), a, b) >=
		      FW_ROCE_UDP_SPORT_MIN);
	}
}

/* ------------------------------------------------------------------ */
/* Builder and parser                                                  */
/* ------------------------------------------------------------------ */

/* Build, parse, decode; everything must come back. */
static void round_trip(const struct fw_roce_hdrs *h, size_t len)
{
	const struct fw_roce_opcode_info *op = fw_roce_opcode_info(h->opcode);
	bool ipv6 = !fw_roce_gid_is_ipv4(h->dgid);
	bool vlan = h->vlan_id != FW_ROCE_VLAN_NONE;
	size_t ip_off = 14 + (vlan ? 4 : 0);
	size_t ip_hlen = ipv6 ? 40 : 20;
	size_t pad = (4 - len % 4) % 4;
	size_t pkt_len = ip_hlen + 8 + op->hdr_len + len + pad + 4;
	uint8_t payload[1100], buf[WIRE_BUF], *copy;
	struct fw_roce_hdrs got, want;
	struct fw_roce_pkt pkt;
	size_t flen;

	make_payload(payload, len, h->opcode);
	flen = fw_roce_build(buf, sizeof(buf), h, payload, len);
	REQUIRE_EQ(flen, ip_off + pkt_len < 60 ? 60 : ip_off + pkt_len);
	REQUIRE_EQ(parse_exact(buf, flen, &pkt, &copy), FW_ROCE_OK);
	CHECK(pkt.op == op);
	CHECK_EQ(pkt.ipv6, ipv6);
	CHECK_EQ(pkt.vlan, vlan);
	CHECK_EQ(pkt.ip - copy, ip_off);
	CHECK_EQ(pkt.ip_hlen, ip_hlen);
	CHECK_EQ(pkt.pkt_len, pkt_len);
	CHECK_EQ((const uint8_t *)pkt.bth - copy, ip_off + ip_hlen + 8);
	CHECK_EQ(pkt.payload - copy, ip_off + ip_hlen + 8 + op->hdr_len);
	CHECK_EQ(pkt.payload_len, len);
	CHECK(!memcmp(pkt.payload, payload, len));
	CHECK_EQ(fw_bth_pad(pkt.bth), pad);
	CHECK(!!pkt.reth == !!(op->flags & FW_ROCE_HAS_RETH));
	CHECK(!!pkt.aeth == !!(op->flags & FW_ROCE_HAS_AETH));
	CHECK(!!pkt.deth == !!(op->flags & FW_ROCE_HAS_DETH));
	CHECK(!!pkt.immdt == !!(op->flags & FW_ROCE_HAS_IMMDT));
	CHECK(!!pkt.ieth == !!(op->flags & FW_ROCE_HAS_IETH));
	CHECK(!!pkt.atomic_eth == !!(op->flags & FW_ROCE_HAS_ATOMIC_ETH));
	CHECK(!!pkt.atomic_ack_eth ==
	      !!(op->flags & FW_ROCE_HAS_ATOMIC_ACK_ETH));
	/* pad bytes are zero; UDP checksum only over IPv6 */
	CHECK(all_zero(pkt.payload + len, pad));
	if (ipv6 && !h->udp6_zero_csum)
		CHECK(fw_wire_get16(pkt.udp + 6));
	else
		CHECK_EQ(fw_wire_get16(pkt.udp + 6), 0);
	if (!ipv6)
		CHECK_EQ(fw_wire_get16(pkt.ip + 6), 0x4000);	/* DF */
	fw_roce_decode(&pkt, &got);
	expected_decode(&want, h);
	check_hdrs_equal(&got, &want);
	free(copy);
}

/* Independent UDP checksum check (RFC 768 / RFC 8200 pseudo header) */
static bool udp_csum_ok_ref(const uint8_t *ip, bool ipv6, const uint8_t *udp)
{
	size_t len = fw_wire_get16(udp + 4), i;
	uint32_t sum = 17 + (uint32_t)len;

	for (i = ipv6 ? 8 : 12; i < (ipv6 ? 40u : 20u); i += 2)
		sum += fw_wire_get16(ip + i);
	for (i = 0; i + 1 < len; i += 2)
		sum += fw_wire_get16(udp + i);
	if (len & 1)
		sum += (uint32_t)udp[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum == 0xffff;
}

TEST(test_wire_round_trip)
{
	static const size_t lens[] = { 0, 1, 2, 3, 4, 5, 61, 1024 };
	struct fw_roce_hdrs h;
	unsigned int o, v, l;

	for (o = 0; o < NUM_OPCODES; o++) {
		for (v = 0; v < 4; v++) {
			for (l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
				if (l && !payload_for(all_opcodes[o], 1))
					break;
				fill_hdrs(&h, all_opcodes[o], v & 1, v & 2);
				round_trip(&h, lens[l]);
			}
		}
	}
	/* every BTH flag off, FECN/BECN on, explicit source port, other
	 * hop limit and class; IPv6 with rxe's zero checksum
	 */
	fill_hdrs(&h, FW_ROCE_RC_SEND_ONLY_IMM, false, false);
	h.se = h.mig = h.ack_req = false;
	h.fecn = h.becn = true;
	h.udp_sport = 0xd000;
	h.hop_limit = 1;
	h.traffic_class = 0xff;
	h.pkey = 0x8001;
	round_trip(&h, 3);
	fill_hdrs(&h, FW_ROCE_UD_SEND_ONLY_IMM, true, true);
	h.udp6_zero_csum = true;
	h.vlan_id = 0;
	h.vlan_prio = 7;
	h.flow_label = FW_ROCE_FLOW_LABEL_MASK;
	round_trip(&h, 7);
}

TEST(test_wire_ipv6_udp_checksum)
{
	uint8_t buf[WIRE_BUF];
	struct fw_roce_hdrs h;
	struct fw_roce_pkt pkt;
	unsigned int n;
	size_t len;

	for (n = 0; n < 8 * NUM_OPCODES; n++) {
		len = sample_frame(buf, sizeof(buf), n, &h);
		REQUIRE(len);
		REQUIRE_EQ(fw_roce_parse(buf, len, &pkt), FW_ROCE_OK);
		if (pkt.ipv6)
			CHECK(udp_csum_ok_ref(pkt.ip, true, pkt.udp));
		else
			CHECK_EQ(fw_wire_get16(pkt.udp + 6), 0);
	}
}

TEST(test_wire_frame_api)
{
	uint8_t a[WIRE_BUF], b[WIRE_BUF], payload[300];
	struct fw_roce_frame f;
	struct fw_roce_hdrs h;
	struct fw_roce_pkt pkt;
	unsigned int o;
	size_t len;

	make_payload(payload, sizeof(payload), 3);
	for (o = 0; o < NUM_OPCODES; o++) {
		fill_hdrs(&h, all_opcodes[o], true, true);
		len = payload_for(h.opcode, sizeof(payload));
		memset(b, 0xa5, sizeof(b));
		REQUIRE_EQ(fw_roce_frame_init(&f, b, sizeof(b), &h, len), 0);
		CHECK(f.payload_off <= FW_ROCE_MAX_HLEN);
		memcpy(b + f.payload_off, payload, len);
		fw_roce_frame_seal(&f);
		CHECK_EQ(f.len, fw_roce_build(a, sizeof(a), &h, payload, len));
		CHECK(!memcmp(a, b, f.len));
		CHECK_EQ(fw_roce_parse(b, f.len, &pkt), FW_ROCE_OK);
	}

	/* short frames are padded with zeros to the Ethernet minimum */
	fill_hdrs(&h, FW_ROCE_RC_SEND_ONLY, false, false);
	memset(a, 0xa5, sizeof(a));
	REQUIRE_EQ(fw_roce_build(a, sizeof(a), &h, NULL, 0), 60);
	CHECK(all_zero(a + 58, 2));
	CHECK_EQ(fw_roce_parse(a, 60, &pkt), FW_ROCE_OK);
	CHECK_EQ(pkt.pkt_len, 44);
	CHECK_EQ(pkt.payload_len, 0);
}

TEST(test_wire_build_rejects)
{
	uint8_t buf[WIRE_BUF], payload[8] = { 0 }, *small, *big, *src;
	struct fw_roce_hdrs h, bad;
	size_t need, cap;

	fill_hdrs(&h, FW_ROCE_RC_SEND_ONLY, true, true);
	need = fw_roce_build(buf, sizeof(buf), &h, payload, sizeof(payload));
	REQUIRE(need);

	bad = h;
	bad.opcode = 0x15;
	CHECK_EQ(fw_roce_build(buf, sizeof(buf), &bad, NULL, 0), 0);
	bad = h;
	bad.opcode = FW_ROCE_RC_ACKNOWLEDGE;
	CHECK_EQ(fw_roce_build(buf, sizeof(buf), &bad, payload, 1), 0);
	CHECK(fw_roce_build(buf, sizeof(buf), &bad, NULL, 0));
	bad = h;
	memcpy(bad.sgid, gid4_a, 16);		/* IPv4 source, IPv6 dest */
	CHECK_EQ(fw_roce_build(buf, sizeof(buf), &bad, NULL, 0), 0);
	bad = h;
	bad.vlan_id = 4096;
	CHECK_EQ(fw_roce_build(buf, sizeof(buf), &bad, NULL, 0), 0);
	bad = h;
	bad.vlan_prio = 8;
	CHECK_EQ(fw_roce_build(buf, sizeof(buf), &bad, NULL, 0), 0);
	bad = h;
	bad.dest_qp = 1u << 24;
	CHECK_EQ(fw_roce_build(buf, sizeof(buf), &bad, NULL, 0), 0);
	bad = h;
	bad.psn = 1u << 24;
	CHECK_EQ(fw_roce_build(buf, sizeof(buf), &bad, NULL, 0), 0);
	bad = h;
	bad.flow_label = 1u << 20;
	CHECK_EQ(fw_roce_build(buf, sizeof(buf), &bad, NULL, 0), 0);
	bad = h;
	bad.aeth.msn = 1u << 24;
	CHECK_EQ(fw_roce_build(buf, sizeof(buf), &bad, NULL, 0), 0);
	bad = h;
	bad.deth.src_qp = 1u << 24;
	CHECK_EQ(fw_roce_build(buf, sizeof(buf), &bad, NULL, 0), 0);
	/* the IP length fields bound a packet: UDP length <= 65535 */
	big = calloc(2, 1 << 17);
	REQUIRE(big);
	src = big + (1 << 17);
	CHECK_EQ(fw_roce_build(big, 1 << 17, &h, src, 70000), 0);
	CHECK_EQ(fw_roce_build(big, 1 << 17, &h, src, 65509), 0);
	CHECK_EQ(fw_roce_build(big, 1 << 17, &h, src, 65508),
		 14 + 4 + 40 + 65532);
	fill_hdrs(&bad, FW_ROCE_RC_SEND_ONLY, false, false);
	CHECK_EQ(fw_roce_build(big, 1 << 17, &bad, src, 65488 + 1), 0);
	CHECK_EQ(fw_roce_build(big, 1 << 17, &bad, src, 65488),
		 14 + 20 + 65512);
	free(big);

	/* too small a buffer: refused, and nothing written (ASan) */
	for (cap = 0; cap < need; cap++) {
		small = malloc(cap ? cap : 1);
		REQUIRE(small);
		CHECK_EQ(fw_roce_build(small, cap, &h, payload,
				       sizeof(payload)), 0);
		free(small);
	}
	small = malloc(need);
	REQUIRE(small);
	CHECK_EQ(fw_roce_build(small, need, &h, payload, sizeof(payload)),
		 need);
	free(small);
}

/* ------------------------------------------------------------------ */
/* Drop reasons                                                        */
/* ------------------------------------------------------------------ */

static unsigned long drops_seen;

static void expect_drop(const uint8_t *frame, size_t len,
			enum fw_roce_drop want, int line)
{
	struct fw_roce_pkt pkt;
	enum fw_roce_drop got = parse_exact(frame, len, &pkt, NULL);

	if (!ordma_test_check_eq(got, want, __FILE__, line, "parse", "want"))
		NOTE("line %d: want %s, got %s", line,
			 fw_roce_drop_name(want), fw_roce_drop_name(got));
	drops_seen |= 1ul << want;
}

#define EXPECT(frame, len, want)	expect_drop(frame, len, want, __LINE__)

static void ipv4_refresh_csum(uint8_t *ip)
{
	size_t ihl = (size_t)(ip[0] & 0xf) * 4, i;
	uint32_t sum = 0;

	fw_wire_put16(ip + 10, 0);
	for (i = 0; i < ihl; i += 2)
		sum += fw_wire_get16(ip + i);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	fw_wire_put16(ip + 10, (uint16_t)~sum);
}

/* New UDP length (and IP length to match) of an IPv4 frame at ip */
static void ipv4_set_udp_len(uint8_t *ip, size_t udp_len)
{
	size_t ihl = (size_t)(ip[0] & 0xf) * 4;

	fw_wire_put16(ip + 2, (uint16_t)(ihl + udp_len));
	fw_wire_put16(ip + ihl + 4, (uint16_t)udp_len);
	ipv4_refresh_csum(ip);
}

static void reseal_icrc(uint8_t *ip, size_t ip_hlen)
{
	size_t pkt_len = ip_hlen + fw_wire_get16(ip + ip_hlen + 4);
	uint32_t icrc = fw_roce_icrc(ip, ip_hlen, pkt_len);

	ip[pkt_len - 4] = (uint8_t)icrc;
	ip[pkt_len - 3] = (uint8_t)(icrc >> 8);
	ip[pkt_len - 2] = (uint8_t)(icrc >> 16);
	ip[pkt_len - 1] = (uint8_t)(icrc >> 24);
}

TEST(test_wire_drop_reasons)
{
	uint8_t v4[WIRE_BUF], v6[WIRE_BUF], vl[WIRE_BUF], t[WIRE_BUF];
	uint8_t payload[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	uint8_t *ip4 = t + 14, *ip6 = t + 14;
	struct fw_roce_hdrs h;
	size_t n4, n6, nl, n;
	enum fw_roce_drop r;

	fill_hdrs(&h, FW_ROCE_RC_SEND_ONLY, false, false);
	n4 = fw_roce_build(v4, sizeof(v4), &h, payload, sizeof(payload));
	fill_hdrs(&h, FW_ROCE_RC_SEND_ONLY, true, false);
	n6 = fw_roce_build(v6, sizeof(v6), &h, payload, sizeof(payload));
	fill_hdrs(&h, FW_ROCE_RC_SEND_ONLY, false, true);
	nl = fw_roce_build(vl, sizeof(vl), &h, payload, sizeof(payload));
	REQUIRE(n4 && n6 && nl);
	drops_seen = 0;
	EXPECT(v4, n4, FW_ROCE_OK);
	EXPECT(v6, n6, FW_ROCE_OK);
	EXPECT(vl, nl, FW_ROCE_OK);

	EXPECT(v4, 0, FW_ROCE_DROP_ETH_SHORT);
	EXPECT(v4, 13, FW_ROCE_DROP_ETH_SHORT);
	EXPECT(vl, 17, FW_ROCE_DROP_ETH_SHORT);

	memcpy(t, v4, n4);
	fw_wire_put16(t + 12, 0x0806);			/* ARP */
	EXPECT(t, n4, FW_ROCE_DROP_ETHERTYPE);
	memcpy(t, vl, nl);
	fw_wire_put16(t + 16, 0x8100);			/* a second tag */
	EXPECT(t, nl, FW_ROCE_DROP_ETHERTYPE);
	fw_wire_put16(t + 12, 0x88a8);			/* 802.1ad outer tag */
	EXPECT(t, nl, FW_ROCE_DROP_ETHERTYPE);

	EXPECT(v4, 14 + 19, FW_ROCE_DROP_IPV4_SHORT);
	memcpy(t, v4, n4);
	ip4[0] = 0x65;
	EXPECT(t, n4, FW_ROCE_DROP_IPV4_VERSION);
	memcpy(t, v4, n4);
	ip4[0] = 0x44;
	EXPECT(t, n4, FW_ROCE_DROP_IPV4_IHL);
	memcpy(t, v4, n4);
	fw_wire_put16(ip4 + 2, (uint16_t)(n4 - 14 + 1));
	ipv4_refresh_csum(ip4);
	EXPECT(t, n4, FW_ROCE_DROP_IPV4_LENGTH);
	fw_wire_put16(ip4 + 2, 19);
	ipv4_refresh_csum(ip4);
	EXPECT(t, n4, FW_ROCE_DROP_IPV4_LENGTH);
	memcpy(t, v4, n4);
	ip4[0] = 0x4f;			/* 60-byte header, more than total */
	fw_wire_put16(ip4 + 2, 56);
	ipv4_refresh_csum(ip4);
	EXPECT(t, 14 + 56, FW_ROCE_DROP_IPV4_LENGTH);
	memcpy(t, v4, n4);
	ip4[11] ^= 1;
	EXPECT(t, n4, FW_ROCE_DROP_IPV4_CHECKSUM);
	memcpy(t, v4, n4);
	ip4[6] |= 0x20;			/* more fragments */
	ipv4_refresh_csum(ip4);
	EXPECT(t, n4, FW_ROCE_DROP_IPV4_FRAGMENT);
	memcpy(t, v4, n4);
	ip4[7] = 1;			/* fragment offset 8 */
	ipv4_refresh_csum(ip4);
	EXPECT(t, n4, FW_ROCE_DROP_IPV4_FRAGMENT);
	memcpy(t, v4, n4);
	ip4[9] = 6;			/* TCP */
	ipv4_refresh_csum(ip4);
	EXPECT(t, n4, FW_ROCE_DROP_IP_PROTO);

	EXPECT(v6, 14 + 39, FW_ROCE_DROP_IPV6_SHORT);
	memcpy(t, v6, n6);
	ip6[0] = (uint8_t)(0x40 | (ip6[0] & 0xf));
	EXPECT(t, n6, FW_ROCE_DROP_IPV6_VERSION);
	memcpy(t, v6, n6);
	fw_wire_put16(ip6 + 4, (uint16_t)(n6 - 14 - 40 + 1));
	EXPECT(t, n6, FW_ROCE_DROP_IPV6_LENGTH);
	memcpy(t, v6, n6);
	ip6[6] = 0;			/* hop-by-hop options first */
	EXPECT(t, n6, FW_ROCE_DROP_IP_PROTO);
	memcpy(t, v6, n6);
	fw_wire_put16(ip6 + 4, 7);
	EXPECT(t, n6, FW_ROCE_DROP_UDP_SHORT);

	memcpy(t, v4, n4);
	fw_wire_put16(ip4 + 2, 20 + 7);
	ipv4_refresh_csum(ip4);
	EXPECT(t, n4, FW_ROCE_DROP_UDP_SHORT);
	memcpy(t, v4, n4);
	fw_wire_put16(ip4 + 22, 4790);
	EXPECT(t, n4, FW_ROCE_DROP_UDP_PORT);
	memcpy(t, v4, n4);
	fw_wire_put16(ip4 + 24, (uint16_t)(fw_wire_get16(ip4 + 24) - 1));
	EXPECT(t, n4, FW_ROCE_DROP_UDP_LENGTH);
	fw_wire_put16(ip4 + 24, (uint16_t)(fw_wire_get16(ip4 + 24) + 2));
	EXPECT(t, n4, FW_ROCE_DROP_UDP_LENGTH);

	/* UDP checksum: zero means none, non-zero is verified (both) */
	memcpy(t, v6, n6);
	t[14 + 40 + 7] ^= 0x10;
	EXPECT(t, n6, FW_ROCE_DROP_UDP_CHECKSUM);
	memcpy(t, v6, n6);
	fw_wire_put16(t + 14 + 40 + 6, 0);
	EXPECT(t, n6, FW_ROCE_OK);
	memcpy(t, v6, n6);
	t[14 + 8] ^= 1;			/* source address: pseudo header */
	EXPECT(t, n6, FW_ROCE_DROP_UDP_CHECKSUM);
	memcpy(t, v4, n4);
	fw_wire_put16(ip4 + 26, 0x1234);
	EXPECT(t, n4, FW_ROCE_DROP_UDP_CHECKSUM);
	for (n = 1; n; n++) {		/* the right one is accepted */
		fw_wire_put16(ip4 + 26, (uint16_t)n);
		if (udp_csum_ok_ref(ip4, false, ip4 + 20))
			break;
	}
	EXPECT(t, n4, FW_ROCE_OK);

	/* transport */
	memcpy(t, v4, n4);
	ipv4_set_udp_len(ip4, 8 + 15);
	EXPECT(t, n4, FW_ROCE_DROP_BTH_SHORT);
	memcpy(t, v4, n4);
	ip4[28 + 1] |= 1;
	EXPECT(t, n4, FW_ROCE_DROP_TVER);
	memcpy(t, v4, n4);
	ip4[28] = 0x15;
	EXPECT(t, n4, FW_ROCE_DROP_OPCODE);
	ip4[28] = 0x2c;			/* UC READ: not a UC opcode */
	EXPECT(t, n4, FW_ROCE_DROP_OPCODE);
	ip4[28] = 0x66;
	EXPECT(t, n4, FW_ROCE_DROP_OPCODE);
	memcpy(t, v4, n4);
	ip4[28] = FW_ROCE_RC_FETCH_ADD;	/* 40 header bytes, 24 there */
	EXPECT(t, n4, FW_ROCE_DROP_EXT_SHORT);
	ip4[28] = FW_ROCE_RC_RDMA_WRITE_ONLY_IMM;
	EXPECT(t, n4, FW_ROCE_DROP_EXT_SHORT);

	memcpy(t, v4, n4);
	ip4[28] = FW_ROCE_RC_ACKNOWLEDGE;	/* 4 bytes beyond the AETH */
	EXPECT(t, n4, FW_ROCE_DROP_PAD);
	memcpy(t, v4, n4);
	ipv4_set_udp_len(ip4, fw_wire_get16(ip4 + 24) + 1u);
	EXPECT(t, n4 + 1, FW_ROCE_DROP_PAD);	/* not whole words */
	fill_hdrs(&h, FW_ROCE_RC_SEND_ONLY, false, false);
	n = fw_roce_build(t, sizeof(t), &h, NULL, 0);
	ip4[29] |= 3 << 4;			/* pad 3 of no payload */
	EXPECT(t, n, FW_ROCE_DROP_PAD);

	memcpy(t, v4, n4);
	t[n4 - 5] ^= 0x80;			/* last payload byte */
	EXPECT(t, n4, FW_ROCE_DROP_ICRC);
	memcpy(t, v4, n4);
	t[n4 - 1] ^= 1;
	EXPECT(t, n4, FW_ROCE_DROP_ICRC);
	memcpy(t, v4, n4);
	ip4[28 + 7] ^= 1;			/* destination QP */
	EXPECT(t, n4, FW_ROCE_DROP_ICRC);
	memcpy(t, v4, n4);
	ip4[19] ^= 1;				/* destination address */
	ipv4_refresh_csum(ip4);
	EXPECT(t, n4, FW_ROCE_DROP_ICRC);
	memcpy(t, v4, n4);
	ip4[29] ^= 1 << 4;			/* pad count 0 -> 1 */
	EXPECT(t, n4, FW_ROCE_DROP_ICRC);

	/* the variant fields are outside the ICRC */
	memcpy(t, v4, n4);
	ip4[8] = 1;				/* TTL */
	ip4[1] = 0xb8;				/* TOS */
	ipv4_refresh_csum(ip4);
	ip4[28 + 4] = 0xc0;			/* FECN, BECN */
	EXPECT(t, n4, FW_ROCE_OK);
	memcpy(t, v6, n6);
	ip6[1] ^= 0x5a;				/* class, flow label */
	ip6[3] ^= 0xff;
	ip6[7] = 2;				/* hop limit */
	EXPECT(t, n6, FW_ROCE_OK);

	/* Ethernet padding after the packet is ignored */
	memcpy(t, v4, n4);
	memset(t + n4, 0xee, 10);
	EXPECT(t, n4 + 10, FW_ROCE_OK);

	/* IPv4 options (IHL 6) count as header, ICRC over them too */
	memcpy(t, v4, 14 + 20);
	memset(ip4 + 20, 1, 4);			/* four NOPs */
	memcpy(ip4 + 24, v4 + 14 + 20, n4 - 14 - 20);
	ip4[0] = 0x46;
	fw_wire_put16(ip4 + 2, (uint16_t)(fw_wire_get16(ip4 + 2) + 4));
	ipv4_refresh_csum(ip4);
	reseal_icrc(ip4, 24);
	{
		struct fw_roce_pkt pkt;

		r = parse_exact(t, n4 + 4, &pkt, NULL);
		CHECK_EQ(r, FW_ROCE_OK);
		CHECK_EQ(pkt.ip_hlen, 24);
		CHECK_EQ(pkt.payload_len, sizeof(payload));
	}

	for (r = FW_ROCE_OK; r < FW_ROCE_DROP_NUM; r++)
		if (!CHECK(drops_seen & 1ul << r))
			NOTE("drop reason %s not tested",
				 fw_roce_drop_name(r));
}

TEST(test_wire_drop_names)
{
	unsigned int a, b;

	for (a = 0; a < FW_ROCE_DROP_NUM; a++) {
		REQUIRE(fw_roce_drop_name((enum fw_roce_drop)a));
		CHECK(strcmp(fw_roce_drop_name((enum fw_roce_drop)a),
			     "unknown"));
		for (b = 0; b < a; b++)
			CHECK(strcmp(fw_roce_drop_name((enum fw_roce_drop)a),
				     fw_roce_drop_name((enum fw_roce_drop)b)));
	}
	CHECK(!strcmp(fw_roce_drop_name(FW_ROCE_DROP_NUM), "unknown"));
}

/* ------------------------------------------------------------------ */
/* Robustness                                                          */
/* ------------------------------------------------------------------ */

/* Every prefix of a valid frame: accepted exactly when the packet is
 * whole (only Ethernet padding cut off).
 */
static void truncations(const uint8_t *frame, size_t len)
{
	struct fw_roce_pkt pkt;
	size_t end, t;

	REQUIRE_EQ(fw_roce_parse(frame, len, &pkt), FW_ROCE_OK);
	end = (size_t)(pkt.ip - frame) + pkt.pkt_len;
	for (t = 0; t < len; t++)
		CHECK_EQ(parse_exact(frame, t, &pkt, NULL) == FW_ROCE_OK,
			 t >= end);
}

TEST(test_wire_truncation)
{
	uint8_t buf[WIRE_BUF];
	struct fw_roce_hdrs h;
	unsigned int n;
	size_t i, len;

	for (n = 0; n < 4 * NUM_OPCODES; n++) {
		len = sample_frame(buf, sizeof(buf), n + 5 * NUM_OPCODES, &h);
		REQUIRE(len);
		truncations(buf, len);
	}
	for (i = 0; i < NUM_RXE_FRAMES; i++)
		truncations(rxe_frames[i].data, rxe_frames[i].len);
}

/* Bytes of a valid frame whose change the parser must not notice */
static bool variant_bit(const struct fw_roce_pkt *pkt, const uint8_t *frame,
			size_t i, bool flipped_csum_zero)
{
	size_t ip_off = (size_t)(pkt->ip - frame);
	size_t udp_off = (size_t)(pkt->udp - frame);
	bool udp_csum = fw_wire_get16(pkt->udp + 6) != 0;

	if (i < 12 || i >= ip_off + pkt->pkt_len)	/* MACs, padding */
		return true;
	if (pkt->vlan && (i == 14 || i == 15))		/* TCI */
		return true;
	if (pkt->ipv6 && i >= ip_off && i < ip_off + 8 &&
	    (i == ip_off + 1 || i == ip_off + 2 || i == ip_off + 3 ||
	     i == ip_off + 7))
		return true;				/* class, label, hops */
	if (i == udp_off + 8 + 4 && !udp_csum)		/* BTH F/B/reserved */
		return true;
	/* IPv6 checksum field becoming 0 means "not computed" */
	return pkt->ipv6 && (i == udp_off + 6 || i == udp_off + 7) &&
	       flipped_csum_zero;
}

static void bit_flips(const uint8_t *frame, size_t len)
{
	struct fw_roce_pkt pkt, mpkt;
	uint8_t *m = malloc(len);
	size_t i, ip_off;
	unsigned int k;
	bool accepted, want, csum_zero, ip6_tc_bit;

	REQUIRE(m);
	if (!CHECK_EQ(fw_roce_parse(frame, len, &pkt), FW_ROCE_OK)) {
		free(m);
		return;
	}
	ip_off = (size_t)(pkt.ip - frame);
	for (i = 0; i < len; i++) {
		for (k = 0; k < 8; k++) {
			memcpy(m, frame, len);
			m[i] ^= (uint8_t)(1u << k);
			accepted = fw_roce_parse(m, len, &mpkt) == FW_ROCE_OK;
			csum_zero = pkt.ipv6 &&
				    !fw_wire_get16(m + (pkt.udp - frame) + 6);
			/* IPv6 byte 0: version high, class low nibble */
			ip6_tc_bit = pkt.ipv6 && i == ip_off && k < 4;
			want = variant_bit(&pkt, frame, i, csum_zero) ||
			       ip6_tc_bit;
			if (!CHECK_EQ(accepted, want)) {
				NOTE("byte %zu bit %u of a %zu-byte frame",
					 i, k, len);
				free(m);
				return;
			}
		}
	}
	free(m);
}

TEST(test_wire_bit_flips)
{
	uint8_t buf[WIRE_BUF];
	struct fw_roce_hdrs h;
	unsigned int n;
	size_t i, len;

	for (n = 0; n < 4 * NUM_OPCODES; n++) {
		len = sample_frame(buf, sizeof(buf), n + 5 * NUM_OPCODES, &h);
		REQUIRE(len);
		bit_flips(buf, len);
	}
	/* IPv6 with rxe's zero UDP checksum: BTH byte 4 is then free */
	fill_hdrs(&h, FW_ROCE_RC_RDMA_WRITE_ONLY_IMM, true, false);
	h.udp6_zero_csum = true;
	len = fw_roce_build(buf, sizeof(buf), &h, "abcde", 5);
	REQUIRE(len);
	bit_flips(buf, len);
	for (i = 0; i < NUM_RXE_FRAMES; i++)
		if (rxe_frames[i].len < 200)
			bit_flips(rxe_frames[i].data, rxe_frames[i].len);
}

/* A parsed packet must stay inside its frame. */
static void check_inside(const struct fw_roce_pkt *pkt, const uint8_t *frame,
			 size_t len)
{
	const uint8_t *end = frame + len;
	struct fw_roce_hdrs h;

	CHECK(pkt->op);
	CHECK(pkt->ip >= frame && pkt->ip + pkt->pkt_len <= end);
	CHECK((const uint8_t *)pkt->bth + FW_ROCE_BTH_LEN <= end);
	CHECK(pkt->payload >= (const uint8_t *)pkt->bth + pkt->op->hdr_len);
	CHECK(pkt->payload + pkt->payload_len + FW_ROCE_ICRC_LEN <= end);
	fw_roce_decode(pkt, &h);
	CHECK_EQ(h.opcode, fw_bth_opcode(pkt->bth));
}

TEST(test_wire_mutation_fuzz)
{
	const unsigned int iterations = 30000;
	uint8_t base[WIRE_BUF], m[WIRE_BUF + 64];
	unsigned long accepted = 0, reasons = 0;
	struct fw_roce_pkt pkt, bpkt;
	struct fw_roce_hdrs h;
	unsigned int it, k, nmut;
	size_t blen, len, pos, ip_off, udp_len;
	enum fw_roce_drop r;

	for (it = 0; it < iterations; it++) {
		if (it % 4 == 3) {
			const struct rxe_frame *f =
				&rxe_frames[rng() % NUM_RXE_FRAMES];

			memcpy(base, f->data, f->len);
			blen = f->len;
		} else {
			blen = sample_frame(base, sizeof(base),
					    (unsigned int)rng(), &h);
		}
		REQUIRE_EQ(fw_roce_parse(base, blen, &bpkt), FW_ROCE_OK);
		ip_off = (size_t)(bpkt.ip - base);
		memcpy(m, base, blen);
		len = blen;

		nmut = 1 + (unsigned int)(rng() % 4);
		for (k = 0; k < nmut; k++) {
			switch (rng() % 6) {
			case 0:		/* truncate */
				len = (size_t)(rng() % (len + 1));
				break;
			case 1:		/* append junk */
				pos = (size_t)(rng() % 64);
				while (pos-- && len < sizeof(m))
					m[len++] = (uint8_t)rng();
				break;
			case 2:		/* a length field */
				pos = ip_off + (bpkt.ipv6 ? 4 : 2);
				if (rng() & 1)
					pos = (size_t)(bpkt.udp - base) + 4;
				if (pos + 2 <= len)
					fw_wire_put16(m + pos,
						      (uint16_t)rng());
				break;
			default:	/* bytes, mostly in the headers */
				if (!len)
					break;
				pos = (size_t)(rng() % (rng() & 1 || len < 80 ?
							len : 80));
				m[pos] = (uint8_t)rng();
				break;
			}
		}
		/* often make the checks before the damaged one pass, so
		 * that the deeper layers see damage too
		 */
		if (rng() % 2 && !bpkt.ipv6 && len >= ip_off + 20 &&
		    (m[ip_off] & 0xf) * 4u + ip_off <= len)
			ipv4_refresh_csum(m + ip_off);
		if (rng() % 2 && len >= ip_off + bpkt.ip_hlen + 8) {
			udp_len = fw_wire_get16(m + ip_off + bpkt.ip_hlen + 4);
			if (udp_len >= 8 + 16 &&
			    ip_off + bpkt.ip_hlen + udp_len <= len &&
			    bpkt.ip_hlen <= 60)
				reseal_icrc(m + ip_off, bpkt.ip_hlen);
		}

		r = parse_exact(m, len, &pkt, NULL);
		reasons |= 1ul << r;
		if (r == FW_ROCE_OK) {
			uint8_t *copy;

			accepted++;
			REQUIRE_EQ(parse_exact(m, len, &pkt, &copy),
				   FW_ROCE_OK);
			check_inside(&pkt, copy, len);
			free(copy);
		}
	}
	NOTE("mutation fuzz: %u frames, %lu accepted, drop reasons seen "
		 "%#lx", iterations, accepted, reasons);
	CHECK(accepted > 0 && accepted < iterations);
}

/* ------------------------------------------------------------------ */
/* Real peers: Linux rdma_rxe                                          */
/* ------------------------------------------------------------------ */

TEST(test_wire_rxe_vectors)
{
	/* what tshark 4.0 decodes for these frames of rxe-capture.pcap */
	static const struct {
		uint8_t opcode;
		uint32_t dest_qp, psn;
		size_t payload_len;
		uint32_t icrc;		/* Wireshark shows it byte-swapped */
	} want[] = {
		{ 0x04, 0x11, 5019391, 64, 0xcf3e7cee },
		{ 0x11, 0x11, 5019391, 0, 0xb9565d35 },
		{ 0x02, 0x12, 973881, 452, 0x260f8592 },
		{ 0x0a, 0x13, 15814899, 61, 0xcf0a7576 },
		{ 0x0c, 0x14, 11527082, 0, 0x6763d469 },
		{ 0x10, 0x14, 11527082, 61, 0x19e7cd0f },
		{ 0x0f, 0x15, 8995711, 452, 0x7e92ffbf },
		{ 0x14, 0x16, 8220780, 0, 0x7f92062f },
		{ 0x12, 0x16, 8220780, 0, 0x68f06158 },
		{ 0x13, 0x17, 9202295, 0, 0xe19faf04 },
		{ 0x64, 0x18, 11940254, 64, 0x4a398f11 },
		{ 0x04, 0x19, 16434657, 61, 0x19fb2a95 },
		{ 0x11, 0x19, 16434657, 0, 0x8ab22ef0 },
	};
	uint8_t buf[WIRE_BUF];
	struct fw_roce_pkt pkt;
	struct fw_roce_hdrs h;
	size_t i, len;

	REQUIRE_EQ(NUM_RXE_FRAMES, sizeof(want) / sizeof(want[0]));
	for (i = 0; i < NUM_RXE_FRAMES; i++) {
		const struct rxe_frame *f = &rxe_frames[i];
		uint32_t swapped;

		if (!CHECK_EQ(parse_exact(f->data, f->len, &pkt, NULL),
			      FW_ROCE_OK)) {
			NOTE("rxe frame %s", f->name);
			continue;
		}
		REQUIRE_EQ(fw_roce_parse(f->data, f->len, &pkt), FW_ROCE_OK);
		CHECK_EQ(fw_bth_opcode(pkt.bth), want[i].opcode);
		CHECK_EQ(fw_bth_dest_qp(pkt.bth), want[i].dest_qp);
		CHECK_EQ(fw_bth_psn(pkt.bth), want[i].psn);
		CHECK_EQ(pkt.payload_len, want[i].payload_len);
		swapped = pkt.icrc >> 24 | (pkt.icrc >> 8 & 0xff00) |
			  (pkt.icrc << 8 & 0xff0000) | pkt.icrc << 24;
		CHECK_EQ(swapped, want[i].icrc);
		/* rxe: UDP checksum 0 on both families, DF on IPv4 */
		CHECK_EQ(fw_wire_get16(pkt.udp + 6), 0);
		if (!pkt.ipv6)
			CHECK_EQ(fw_wire_get16(pkt.ip + 6), 0x4000);

		/* the builder gives the same bytes for the same fields */
		fw_roce_decode(&pkt, &h);
		len = fw_roce_build(buf, sizeof(buf), &h, pkt.payload,
				    pkt.payload_len);
		CHECK_EQ(len, f->len);
		if (!CHECK(len == f->len && !memcmp(buf, f->data, len)))
			NOTE("rebuilt rxe frame %s differs", f->name);
	}
}

/* A few rxe frames built from first principles: the fields a QP and
 * its address vector know, the source port derived from the QPNs.
 */
TEST(test_wire_rxe_reproduce)
{
	uint8_t buf[WIRE_BUF], payload[64];
	struct fw_roce_hdrs h;
	size_t len;

	memset(&h, 0, sizeof(h));
	memcpy(h.dmac, mac_b, 6);
	memcpy(h.smac, mac_a, 6);
	h.vlan_id = FW_ROCE_VLAN_NONE;
	memcpy(h.sgid, gid4_a, 16);
	memcpy(h.dgid, gid4_b, 16);
	h.hop_limit = 64;
	h.pkey = FW_ROCE_DEFAULT_PKEY;

	/* ibv_rc_pingpong -s 64: QP 0x11 -> QP 0x11, payload '{' */
	h.opcode = FW_ROCE_RC_SEND_ONLY;
	h.ip_id = 0x87d4;
	h.src_qp = 0x11;
	h.dest_qp = 0x11;
	h.psn = 5019391;
	h.ack_req = true;
	memset(payload, 0x7b, sizeof(payload));
	len = fw_roce_build(buf, sizeof(buf), &h, payload, sizeof(payload));
	CHECK_EQ(len, sizeof(rxe_v4_send_only));
	CHECK(!memcmp(buf, rxe_v4_send_only, sizeof(rxe_v4_send_only)));

	/* its ACK, from the other side */
	memcpy(h.dmac, mac_a, 6);
	memcpy(h.smac, mac_b, 6);
	memcpy(h.sgid, gid4_b, 16);
	memcpy(h.dgid, gid4_a, 16);
	h.opcode = FW_ROCE_RC_ACKNOWLEDGE;
	h.ip_id = 0x76c4;
	h.ack_req = false;
	h.aeth.syndrome = fw_aeth_ack(FW_AETH_CREDITS_INVALID);
	h.aeth.msn = 1;
	len = fw_roce_build(buf, sizeof(buf), &h, NULL, 0);
	CHECK_EQ(len, sizeof(rxe_v4_ack));
	CHECK(!memcmp(buf, rxe_v4_ack, sizeof(rxe_v4_ack)));

	/* ib_write_bw -s 61: RETH, pad 3 */
	memcpy(h.dmac, mac_b, 6);
	memcpy(h.smac, mac_a, 6);
	memcpy(h.sgid, gid4_a, 16);
	memcpy(h.dgid, gid4_b, 16);
	h.opcode = FW_ROCE_RC_RDMA_WRITE_ONLY;
	h.ip_id = 0x897e;
	h.src_qp = 0x13;
	h.dest_qp = 0x13;
	h.psn = 15814899;
	h.ack_req = true;
	h.reth.va = 0x561e1578b000ULL;
	h.reth.rkey = 0x42e;
	h.reth.dma_len = 61;
	len = fw_roce_build(buf, sizeof(buf), &h,
			    rxe_v4_write_only + 14 + 20 + 8 + 28, 61);
	CHECK_EQ(len, sizeof(rxe_v4_write_only));
	CHECK(!memcmp(buf, rxe_v4_write_only, sizeof(rxe_v4_write_only)));

	/* ibv_rc_pingpong over IPv6 (QP 0x19): rxe sends flow label 0 and
	 * UDP checksum 0; with a computed checksum only those 2 bytes differ
	 */
	memcpy(h.sgid, gid6_a, 16);
	memcpy(h.dgid, gid6_b, 16);
	h.opcode = FW_ROCE_RC_SEND_ONLY;
	h.ip_id = 0;
	h.src_qp = 0x19;
	h.dest_qp = 0x19;
	h.psn = 16434657;
	h.udp6_zero_csum = true;
	len = fw_roce_build(buf, sizeof(buf), &h,
			    rxe_v6_send_only + 14 + 40 + 8 + 12, 61);
	CHECK_EQ(len, sizeof(rxe_v6_send_only));
	CHECK(!memcmp(buf, rxe_v6_send_only, sizeof(rxe_v6_send_only)));
	h.udp6_zero_csum = false;
	len = fw_roce_build(buf, sizeof(buf), &h,
			    rxe_v6_send_only + 14 + 40 + 8 + 12, 61);
	CHECK_EQ(len, sizeof(rxe_v6_send_only));
	CHECK(!memcmp(buf, rxe_v6_send_only, 14 + 40 + 6));
	CHECK(fw_wire_get16(buf + 14 + 40 + 6));
	CHECK(!memcmp(buf + 14 + 40 + 8, rxe_v6_send_only + 14 + 40 + 8,
		      len - 14 - 40 - 8));
	CHECK(udp_csum_ok_ref(buf + 14, true, buf + 14 + 40));

	/* ibv_ud_pingpong: rxe's UD QPs hash their own QPN for the port */
	memcpy(h.sgid, gid4_a, 16);
	memcpy(h.dgid, gid4_b, 16);
	h.opcode = FW_ROCE_UD_SEND_ONLY;
	h.ip_id = 0x8d7d;
	h.udp_sport = 51891;
	h.dest_qp = 0x18;
	h.psn = 11940254;
	h.ack_req = false;
	h.deth.qkey = 0x11111111;
	h.deth.src_qp = 0x18;
	len = fw_roce_build(buf, sizeof(buf), &h,
			    rxe_v4_ud_send_only + 14 + 20 + 8 + 20, 64);
	CHECK_EQ(len, sizeof(rxe_v4_ud_send_only));
	CHECK(!memcmp(buf, rxe_v4_ud_send_only, sizeof(rxe_v4_ud_send_only)));
}
