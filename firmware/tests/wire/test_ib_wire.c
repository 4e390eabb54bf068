// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Native InfiniBand wire layer: the VCRC's CRC-16 against a bitwise one,
 * ICRC and VCRC against packets written and summed by an independent
 * implementation (vectors/ib_reference.py -> vectors/ib_vectors.h),
 * build/parse round trips of every opcode, local and global, every drop
 * reason, the builder's refusals, and truncation and bit-flip loops (run
 * under ASan: every parse reads a heap copy of exactly the packet).
 */
#include <stdlib.h>
#include <string.h>

#include "wire/fw_ib_wire.h"
#include "ordma_test.h"
#include "vectors/ib_vectors.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define IB_BUF		(FW_IB_MAX_PKT_LEN + 64)
#define NUM_IB_VECTORS	ARRAY_SIZE(ib_vectors)

static const uint8_t gid_a[16] = { 0xfe, 0x80, [8] = 0x00, 0x02, 0xc9, 0x03,
				   0x00, 0x00, 0x00, 0x01 };
static const uint8_t gid_b[16] = { 0xfe, 0x80, [8] = 0x00, 0x02, 0xc9, 0x03,
				   0x00, 0x00, 0x00, 0x02 };

static const uint8_t ib_opcodes[] = {
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
	FW_ROCE_UC_SEND_FIRST, FW_ROCE_UC_SEND_ONLY_IMM,
	FW_ROCE_UC_RDMA_WRITE_ONLY, FW_ROCE_UD_SEND_ONLY,
	FW_ROCE_UD_SEND_ONLY_IMM,
};

#define NUM_IB_OPCODES	ARRAY_SIZE(ib_opcodes)

static const char *const ib_drop_names[FW_IB_DROP_NUM] = {
	[FW_IB_OK] = "ok",
	[FW_IB_DROP_SHORT] = "short",
	[FW_IB_DROP_LVER] = "lver",
	[FW_IB_DROP_PKTLEN] = "pktlen",
	[FW_IB_DROP_VCRC] = "vcrc",
	[FW_IB_DROP_LNH] = "lnh",
	[FW_IB_DROP_SLID] = "slid",
	[FW_IB_DROP_GRH_SHORT] = "grh_short",
	[FW_IB_DROP_GRH_VERSION] = "grh_version",
	[FW_IB_DROP_GRH_NXTHDR] = "grh_nxthdr",
	[FW_IB_DROP_GRH_PAYLEN] = "grh_paylen",
	[FW_IB_DROP_BTH_SHORT] = "bth_short",
	[FW_IB_DROP_TVER] = "tver",
	[FW_IB_DROP_OPCODE] = "opcode",
	[FW_IB_DROP_EXT_SHORT] = "ext_short",
	[FW_IB_DROP_PAD] = "pad",
	[FW_IB_DROP_VL15] = "vl15",
	[FW_IB_DROP_QP0_VL] = "qp0_vl",
	[FW_IB_DROP_ICRC] = "icrc",
};

/* Deterministic xorshift64: the same cases on every run */
static uint64_t rng_state = 0x243f6a8885a308d3ULL;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* Parse from a heap copy of exactly len bytes: ASan sees any read past
 * the end of the packet.
 */
static enum fw_ib_drop parse_copy(const uint8_t *p, size_t len,
				  struct fw_ib_pkt *pkt, uint8_t **keep)
{
	uint8_t *copy = malloc(len ? len : 1);
	enum fw_ib_drop r;

	if (!copy)
		abort();
	memcpy(copy, p, len);
	r = fw_ib_parse(copy, len, pkt);
	if (keep)
		*keep = copy;
	else
		free(copy);
	return r;
}

static enum fw_ib_drop parse_exact(const uint8_t *p, size_t len,
				   struct fw_ib_pkt *pkt)
{
	return parse_copy(p, len, pkt, NULL);
}

static void fill_hdrs(struct fw_ib_hdrs *h, uint8_t opcode, bool global)
{
	struct fw_roce_hdrs *t = &h->xport;

	memset(h, 0, sizeof(*h));
	h->vl = 3;
	h->sl = 7;
	h->dlid = 0x0102;
	h->slid = 0x0304;
	h->global = global;
	memcpy(t->sgid, gid_a, 16);
	memcpy(t->dgid, gid_b, 16);
	t->traffic_class = 0xa4;
	t->flow_label = 0xfedcb;
	t->hop_limit = 17;
	t->opcode = opcode;
	t->se = true;
	t->mig = true;
	t->becn = true;
	t->ack_req = true;
	t->pkey = 0x8001;
	t->dest_qp = 0xabcdef;
	t->psn = 0x123456;
	t->reth.va = 0x0123456789abcdefULL;
	t->reth.rkey = 0x11223344;
	t->reth.dma_len = 0x10000;
	t->aeth.syndrome = fw_aeth_nak(FW_AETH_NAK_REMOTE_ACCESS);
	t->aeth.msn = 0x654321;
	t->deth.qkey = 0x80010000;
	t->deth.src_qp = 0x000123;
	t->imm = 0xdeadbeef;
	t->inv_rkey = 0x55667788;
	t->atomic.va = 0x1000;
	t->atomic.rkey = 0x99aabbcc;
	t->atomic.swap_add = 0x0102030405060708ULL;
	t->atomic.compare = 0x1112131415161718ULL;
	t->atomic_orig = 0x2122232425262728ULL;
	t->feth.placement = FW_FETH_PLT_GLOBAL;
	t->feth.level = FW_FETH_SEL_MR;
}

static size_t payload_for(uint8_t opcode, size_t want)
{
	return fw_roce_opcode_info(opcode)->flags & FW_ROCE_HAS_PAYLOAD ?
	       want : 0;
}

/* The whole packet in one call: its length, or 0 as for frame_init */
static size_t build(uint8_t *buf, size_t cap, const struct fw_ib_hdrs *h,
		    const uint8_t *payload, size_t len)
{
	struct fw_ib_frame f;

	if (fw_ib_frame_init(&f, buf, cap, h, len))
		return 0;
	if (len)
		memcpy(buf + f.payload_off, payload, len);
	fw_ib_frame_seal(&f);
	return f.len;
}

static void make_payload(uint8_t *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 13 + seed);
}

/* A valid packet chosen by n: opcode, local or global, payload length */
static size_t sample(uint8_t *buf, size_t cap, unsigned int n,
		     struct fw_ib_hdrs *h)
{
	static const size_t lens[] = { 0, 1, 3, 4, 61, 256 };
	uint8_t payload[256];
	uint8_t opcode = ib_opcodes[n % NUM_IB_OPCODES];
	size_t len = payload_for(opcode, lens[(n / NUM_IB_OPCODES) % 6]);

	fill_hdrs(h, opcode, n & 1);
	make_payload(payload, len, n);
	return build(buf, cap, h, payload, len);
}

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* Recompute ICRC and VCRC of pkt[0, len) after a test changed it */
static void reseal(uint8_t *pkt, size_t len)
{
	uint16_t vc;

	put_le32(pkt + len - FW_IB_VCRC_LEN - FW_IB_ICRC_LEN,
		 fw_ib_icrc(pkt, len - FW_IB_VCRC_LEN));
	vc = fw_ib_vcrc(pkt, len - FW_IB_VCRC_LEN);
	pkt[len - 2] = (uint8_t)vc;
	pkt[len - 1] = (uint8_t)(vc >> 8);
}

/* Only the VCRC: for changes the ICRC must not see (or must catch) */
static void reseal_vcrc(uint8_t *pkt, size_t len)
{
	uint16_t vc = fw_ib_vcrc(pkt, len - FW_IB_VCRC_LEN);

	pkt[len - 2] = (uint8_t)vc;
	pkt[len - 1] = (uint8_t)(vc >> 8);
}

static unsigned long drops_seen;

static void expect_drop(const uint8_t *pkt, size_t len, enum fw_ib_drop want)
{
	struct fw_ib_pkt p;
	enum fw_ib_drop got = parse_exact(pkt, len, &p);

	if (got != want)
		NOTE("dropped as %s, expected %s", ib_drop_names[got],
		     ib_drop_names[want]);
	CHECK_EQ(got, want);
	drops_seen |= 1ul << want;
}

/* ------------------------------------------------------------------ */
/* CRCs                                                                */
/* ------------------------------------------------------------------ */

static uint16_t crc16_bitwise(uint16_t crc, const uint8_t *p, size_t len)
{
	int k;

	while (len--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = crc & 1 ? (uint16_t)((crc >> 1) ^ 0xd008) :
					(uint16_t)(crc >> 1);
	}
	return crc;
}

TEST(test_ib_crc16_matches_bitwise)
{
	uint8_t buf[300];
	size_t len, off;
	uint16_t seed;

	for (len = 0; len < sizeof(buf); len++)
		buf[len] = (uint8_t)rng();
	for (len = 0; len <= 64; len++) {
		for (off = 0; off < 4; off++) {
			seed = (uint16_t)rng();
			CHECK_EQ(fw_crc16_ib(seed, buf + off, len),
				 crc16_bitwise(seed, buf + off, len));
		}
	}
	CHECK_EQ(fw_crc16_ib(0xffff, buf, sizeof(buf)),
		 crc16_bitwise(0xffff, buf, sizeof(buf)));
	/* in pieces as in one go */
	CHECK_EQ(fw_crc16_ib(fw_crc16_ib(0xffff, buf, 100), buf + 100, 200),
		 fw_crc16_ib(0xffff, buf, 300));
}

/* The VCRC of a whole packet, its own CRC appended, leaves the CRC-16's
 * fixed residue: a receiver may check it without knowing where it is.
 */
TEST(test_ib_vcrc_residue)
{
	uint16_t residue = 0;
	size_t i;

	for (i = 0; i < NUM_IB_VECTORS; i++) {
		uint16_t r = fw_crc16_ib(0xffff, ib_vectors[i].pkt,
					 ib_vectors[i].len);

		if (!i)
			residue = r;
		CHECK_EQ(r, residue);
	}
	CHECK(residue != 0);
}

TEST(test_ib_crc_known_answers)
{
	size_t i;

	for (i = 0; i < NUM_IB_VECTORS; i++) {
		const struct ib_vector *v = &ib_vectors[i];
		size_t icrc_end = v->len - FW_IB_VCRC_LEN;

		if (!CHECK_EQ(fw_ib_icrc(v->pkt, icrc_end), v->icrc) |
		    !CHECK_EQ(fw_ib_vcrc(v->pkt, icrc_end), v->vcrc))
			NOTE("vector %s", v->name);
	}
}

/* The ICRC of a global packet is the RoCE ICRC's construction: the
 * masked LRH is 8 bytes of ones, where FW_ROCE_ICRC_SEED starts.
 */
TEST(test_ib_icrc_global_is_roce_seeded)
{
	const struct ib_vector *v = NULL;
	uint8_t hdr[FW_IB_GRH_LEN + FW_ROCE_BTH_LEN];
	size_t i, icrc_end;
	uint32_t crc;

	for (i = 0; i < NUM_IB_VECTORS; i++)
		if (!strcmp(ib_vectors[i].name, "ud_send_global"))
			v = &ib_vectors[i];
	REQUIRE(v);
	icrc_end = v->len - FW_IB_VCRC_LEN;
	memcpy(hdr, v->pkt + FW_IB_LRH_LEN, sizeof(hdr));
	hdr[0] |= 0x0f;
	memset(hdr + 1, 0xff, 3);
	hdr[7] = 0xff;
	hdr[FW_IB_GRH_LEN + 4] = 0xff;
	crc = fw_crc32_le(FW_ROCE_ICRC_SEED, hdr, sizeof(hdr));
	crc = fw_crc32_le(crc, v->pkt + FW_IB_LRH_LEN + sizeof(hdr),
			  icrc_end - FW_IB_LRH_LEN - sizeof(hdr) -
			  FW_IB_ICRC_LEN);
	CHECK_EQ(~crc, v->icrc);
}

/* What the ICRC counts as ones, it does not see; everything else it does */
TEST(test_ib_icrc_masks)
{
	uint8_t buf[IB_BUF];
	struct fw_ib_hdrs h;
	size_t len, icrc_end;
	uint32_t base;

	fill_hdrs(&h, FW_ROCE_RC_SEND_ONLY, false);
	len = build(buf, sizeof(buf), &h, (const uint8_t *)"abcdefgh", 8);
	REQUIRE(len);
	icrc_end = len - FW_IB_VCRC_LEN;
	base = fw_ib_icrc(buf, icrc_end);
	buf[0] ^= 0x50;				/* VL */
	buf[FW_IB_LRH_LEN + 4] ^= 0xc0;		/* BTH FECN/BECN */
	CHECK_EQ(fw_ib_icrc(buf, icrc_end), base);
	buf[1] ^= 0x10;				/* SL: a local packet keeps it */
	CHECK(fw_ib_icrc(buf, icrc_end) != base);
	buf[1] ^= 0x10;
	buf[3] ^= 1;				/* DLID */
	CHECK(fw_ib_icrc(buf, icrc_end) != base);

	fill_hdrs(&h, FW_ROCE_RC_SEND_ONLY, true);
	len = build(buf, sizeof(buf), &h, (const uint8_t *)"abcdefgh", 8);
	REQUIRE(len);
	icrc_end = len - FW_IB_VCRC_LEN;
	base = fw_ib_icrc(buf, icrc_end);
	buf[0] ^= 0xf0;				/* VL */
	buf[1] ^= 0xf0;				/* SL */
	buf[3] ^= 0xff;				/* DLID */
	buf[7] ^= 0xff;				/* SLID */
	buf[FW_IB_LRH_LEN + 1] ^= 0xff;		/* TClass, flow label */
	buf[FW_IB_LRH_LEN + 3] ^= 0xff;
	buf[FW_IB_LRH_LEN + 7] ^= 0xff;		/* hop limit */
	CHECK_EQ(fw_ib_icrc(buf, icrc_end), base);
	buf[FW_IB_LRH_LEN + 8] ^= 1;		/* SGID */
	CHECK(fw_ib_icrc(buf, icrc_end) != base);
}

/* ------------------------------------------------------------------ */
/* Builder                                                             */
/* ------------------------------------------------------------------ */

static void xport_hdrs(struct fw_roce_hdrs *t, uint8_t opcode,
		       uint32_t dest_qp, uint32_t psn)
{
	memset(t, 0, sizeof(*t));
	t->opcode = opcode;
	t->dest_qp = dest_qp;
	t->psn = psn;
	t->pkey = 0xffff;
}

static void vector_payload(uint8_t *p, size_t n, unsigned int seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + 7 * i);
}

static void check_vector(const char *name, const struct fw_ib_hdrs *h,
			 unsigned int seed, size_t payload_len)
{
	uint8_t buf[IB_BUF], payload[256];
	const struct ib_vector *v = NULL;
	size_t i, len;

	for (i = 0; i < NUM_IB_VECTORS; i++)
		if (!strcmp(ib_vectors[i].name, name))
			v = &ib_vectors[i];
	REQUIRE(v);
	vector_payload(payload, payload_len, seed);
	len = build(buf, sizeof(buf), h, payload, payload_len);
	if (!CHECK_EQ(len, v->len) || !CHECK(!memcmp(buf, v->pkt, len)))
		NOTE("vector %s", name);
}

/* The builder writes, byte for byte, what the reference wrote */
TEST(test_ib_build_matches_reference)
{
	struct fw_ib_hdrs h;

	memset(&h, 0, sizeof(h));
	h.sl = 3;
	h.dlid = 2;
	h.slid = 1;
	xport_hdrs(&h.xport, FW_ROCE_RC_SEND_ONLY, 0x12, 0x100);
	h.xport.se = true;
	h.xport.ack_req = true;
	check_vector("rc_send_only_local", &h, 1, 13);

	memset(&h, 0, sizeof(h));
	h.vl = 2;
	h.sl = 5;
	h.dlid = 0x10;
	h.slid = 0x20;
	xport_hdrs(&h.xport, FW_ROCE_RC_RDMA_WRITE_ONLY, 0xabcdef, 0xfedcba);
	h.xport.pkey = 0x8001;
	h.xport.fecn = true;
	h.xport.ack_req = true;
	h.xport.reth.va = 0x0123456789abcdefULL;
	h.xport.reth.rkey = 0x11223344;
	h.xport.reth.dma_len = 32;
	check_vector("rc_write_only_reth", &h, 9, 32);

	memset(&h, 0, sizeof(h));
	h.vl = 1;
	h.sl = 1;
	h.dlid = 1;
	h.slid = 2;
	xport_hdrs(&h.xport, FW_ROCE_RC_ACKNOWLEDGE, 0x34, 0x777);
	h.xport.becn = true;
	h.xport.aeth.syndrome = fw_aeth_ack(FW_AETH_CREDITS_INVALID);
	h.xport.aeth.msn = 0x42;
	check_vector("rc_ack_aeth", &h, 0, 0);

	memset(&h, 0, sizeof(h));
	h.vl = 1;
	h.sl = 4;
	h.dlid = 3;
	h.slid = 4;
	h.global = true;
	xport_hdrs(&h.xport, FW_ROCE_UD_SEND_ONLY, 0x56, 1);
	h.xport.deth.qkey = 0x80010000;
	h.xport.deth.src_qp = 0x2a;
	h.xport.traffic_class = 0x20;
	h.xport.flow_label = 0x12345;
	h.xport.hop_limit = 64;
	memcpy(h.xport.sgid, gid_a, 16);
	memcpy(h.xport.dgid, gid_b, 16);
	check_vector("ud_send_global", &h, 3, 7);

	memset(&h, 0, sizeof(h));
	h.vl = FW_IB_VL15;
	h.dlid = FW_IB_LID_PERMISSIVE;
	h.slid = FW_IB_LID_PERMISSIVE;
	xport_hdrs(&h.xport, FW_ROCE_UD_SEND_ONLY, FW_IB_QP0, 5);
	check_vector("smp_vl15_qp0", &h, 0x81, 256);
}

TEST(test_ib_build_rejects)
{
	uint8_t buf[IB_BUF];
	struct fw_ib_frame f;
	struct fw_ib_hdrs h;

	fill_hdrs(&h, FW_ROCE_RC_SEND_ONLY, false);
	REQUIRE(!fw_ib_frame_init(&f, buf, sizeof(buf), &h, 16));
	CHECK_EQ(f.len, FW_IB_LRH_LEN + FW_ROCE_BTH_LEN + 16 +
		 FW_IB_ICRC_LEN + FW_IB_VCRC_LEN);
	CHECK_EQ(f.grh_off, 0);

	/* too small a buffer, by one byte */
	CHECK(fw_ib_frame_init(&f, buf, f.len - 1, &h, 16));
	/* PktLen is 11 bits of words */
	CHECK(!fw_ib_frame_init(&f, buf, sizeof(buf), &h,
				FW_IB_PKTLEN_MAX * 4 - FW_IB_LRH_LEN -
				FW_ROCE_BTH_LEN - FW_IB_ICRC_LEN));
	CHECK_EQ(fw_lrh_pktlen((struct fw_ib_lrh *)buf), FW_IB_PKTLEN_MAX);
	CHECK(fw_ib_frame_init(&f, buf, sizeof(buf), &h,
			       FW_IB_PKTLEN_MAX * 4 - FW_IB_LRH_LEN -
			       FW_ROCE_BTH_LEN - FW_IB_ICRC_LEN + 1));

	fill_hdrs(&h, FW_ROCE_RC_ACKNOWLEDGE, false);
	CHECK(fw_ib_frame_init(&f, buf, sizeof(buf), &h, 4));	/* payload */
	fill_hdrs(&h, 0x1f, false);
	CHECK(fw_ib_frame_init(&f, buf, sizeof(buf), &h, 0));	/* opcode */

	fill_hdrs(&h, FW_ROCE_RC_SEND_ONLY, false);
	h.vl = 16;
	CHECK(fw_ib_frame_init(&f, buf, sizeof(buf), &h, 0));
	fill_hdrs(&h, FW_ROCE_RC_SEND_ONLY, false);
	h.sl = 16;
	CHECK(fw_ib_frame_init(&f, buf, sizeof(buf), &h, 0));
	fill_hdrs(&h, FW_ROCE_RC_SEND_ONLY, false);
	h.vl = FW_IB_VL15;			/* VL15 not to QP0 */
	CHECK(fw_ib_frame_init(&f, buf, sizeof(buf), &h, 0));
	fill_hdrs(&h, FW_ROCE_UD_SEND_ONLY, false);
	h.xport.dest_qp = FW_IB_QP0;		/* QP0 not on VL15 */
	CHECK(fw_ib_frame_init(&f, buf, sizeof(buf), &h, 0));
	fill_hdrs(&h, FW_ROCE_RC_SEND_ONLY, false);
	h.slid = 0;
	CHECK(fw_ib_frame_init(&f, buf, sizeof(buf), &h, 0));
	h.slid = FW_IB_LID_MCAST_MIN;
	CHECK(fw_ib_frame_init(&f, buf, sizeof(buf), &h, 0));
	h.slid = FW_IB_LID_PERMISSIVE;		/* off VL15 */
	CHECK(fw_ib_frame_init(&f, buf, sizeof(buf), &h, 0));
	fill_hdrs(&h, FW_ROCE_RC_SEND_ONLY, true);
	h.xport.flow_label = 0x100000;
	CHECK(fw_ib_frame_init(&f, buf, sizeof(buf), &h, 0));
	fill_hdrs(&h, FW_ROCE_RC_SEND_ONLY, false);
	h.xport.dest_qp = 0x1000000;
	CHECK(fw_ib_frame_init(&f, buf, sizeof(buf), &h, 0));
	h.xport.dest_qp = 1;
	h.xport.psn = 0x1000000;
	CHECK(fw_ib_frame_init(&f, buf, sizeof(buf), &h, 0));
}

/* ------------------------------------------------------------------ */
/* Round trips                                                         */
/* ------------------------------------------------------------------ */

static void check_round_trip(const struct fw_ib_hdrs *h, size_t payload_len)
{
	const struct fw_roce_hdrs *t = &h->xport;
	const struct fw_roce_opcode_info *op = fw_roce_opcode_info(t->opcode);
	uint8_t buf[IB_BUF], payload[1024], *copy;
	const struct fw_roce_pkt *x;
	struct fw_ib_pkt p;
	size_t len;

	make_payload(payload, payload_len, t->opcode);
	len = build(buf, sizeof(buf), h, payload, payload_len);
	REQUIRE(len);
	REQUIRE_EQ(len % 4, FW_IB_VCRC_LEN);
	if (!CHECK_EQ(parse_copy(buf, len, &p, &copy), FW_IB_OK)) {
		free(copy);
		return;
	}
	x = &p.xport;
	CHECK(p.pkt == copy);

	CHECK_EQ(p.len, len);
	CHECK_EQ(fw_lrh_vl(p.lrh), h->vl);
	CHECK_EQ(fw_lrh_sl(p.lrh), h->sl);
	CHECK_EQ(fw_lrh_lver(p.lrh), FW_IB_LVER);
	CHECK_EQ(fw_lrh_lnh(p.lrh),
		 h->global ? FW_IB_LNH_GLOBAL : FW_IB_LNH_LOCAL);
	CHECK_EQ(fw_lrh_dlid(p.lrh), h->dlid);
	CHECK_EQ(fw_lrh_slid(p.lrh), h->slid);
	CHECK_EQ(fw_lrh_pktlen(p.lrh) * 4, len - FW_IB_VCRC_LEN);
	CHECK_EQ(p.lrh->sl_lnh & 0x0c, 0);		/* reserved */
	CHECK_EQ(p.lrh->pktlen[0] & 0xf8, 0);
	CHECK_EQ(!!p.grh, h->global);
	if (p.grh) {
		CHECK_EQ(fw_grh_ipver(p.grh), FW_IB_GRH_IPVER);
		CHECK_EQ(fw_grh_tclass(p.grh), t->traffic_class);
		CHECK_EQ(fw_grh_flow_label(p.grh), t->flow_label);
		CHECK_EQ(fw_grh_hoplmt(p.grh), t->hop_limit);
		CHECK_EQ(fw_grh_nxthdr(p.grh), FW_IB_GRH_NXTHDR_IBA);
		CHECK_EQ(fw_grh_paylen(p.grh),
			 len - FW_IB_VCRC_LEN - FW_IB_LRH_LEN - FW_IB_GRH_LEN);
		CHECK(!memcmp(p.grh->sgid, t->sgid, 16));
		CHECK(!memcmp(p.grh->dgid, t->dgid, 16));
	}

	CHECK(x->op == op);
	CHECK_EQ(fw_bth_opcode(x->bth), t->opcode);
	CHECK_EQ(fw_bth_se(x->bth), t->se);
	CHECK_EQ(fw_bth_mig(x->bth), t->mig);
	CHECK_EQ(fw_bth_fecn(x->bth), t->fecn);
	CHECK_EQ(fw_bth_becn(x->bth), t->becn);
	CHECK_EQ(fw_bth_ack_req(x->bth), t->ack_req);
	CHECK_EQ(fw_bth_pkey(x->bth), t->pkey);
	CHECK_EQ(fw_bth_dest_qp(x->bth), t->dest_qp);
	CHECK_EQ(fw_bth_psn(x->bth), t->psn);
	CHECK_EQ(fw_bth_pad(x->bth), (4 - payload_len % 4) % 4);
	CHECK_EQ(!!x->reth, !!(op->flags & FW_ROCE_HAS_RETH));
	if (x->reth) {
		CHECK_EQ(fw_reth_va(x->reth), t->reth.va);
		CHECK_EQ(fw_reth_rkey(x->reth), t->reth.rkey);
		CHECK_EQ(fw_reth_dma_len(x->reth), t->reth.dma_len);
	}
	CHECK_EQ(!!x->aeth, !!(op->flags & FW_ROCE_HAS_AETH));
	if (x->aeth) {
		CHECK_EQ(fw_aeth_syndrome(x->aeth), t->aeth.syndrome);
		CHECK_EQ(fw_aeth_msn(x->aeth), t->aeth.msn);
	}
	CHECK_EQ(!!x->deth, !!(op->flags & FW_ROCE_HAS_DETH));
	if (x->deth) {
		CHECK_EQ(fw_deth_qkey(x->deth), t->deth.qkey);
		CHECK_EQ(fw_deth_src_qp(x->deth), t->deth.src_qp);
	}
	CHECK_EQ(!!x->atomic_eth, !!(op->flags & FW_ROCE_HAS_ATOMIC_ETH));
	if (x->atomic_eth) {
		CHECK_EQ(fw_atomic_eth_va(x->atomic_eth), t->atomic.va);
		CHECK_EQ(fw_atomic_eth_swap_add(x->atomic_eth),
			 t->atomic.swap_add);
		CHECK_EQ(fw_atomic_eth_compare(x->atomic_eth),
			 t->atomic.compare);
	}
	if (x->atomic_ack_eth)
		CHECK_EQ(fw_atomic_ack_eth_orig(x->atomic_ack_eth),
			 t->atomic_orig);
	if (x->immdt)
		CHECK_EQ(fw_immdt_get(x->immdt), t->imm);
	if (x->ieth)
		CHECK_EQ(fw_ieth_rkey(x->ieth), t->inv_rkey);
	if (x->feth) {
		CHECK_EQ(fw_feth_placement(x->feth), t->feth.placement);
		CHECK_EQ(fw_feth_level(x->feth), t->feth.level);
	}
	CHECK_EQ(x->payload_len, payload_len);
	CHECK(!memcmp(x->payload, payload, payload_len));
	CHECK_EQ(x->icrc, fw_ib_icrc(buf, len - FW_IB_VCRC_LEN));
	CHECK_EQ(p.vcrc, fw_ib_vcrc(buf, len - FW_IB_VCRC_LEN));
	free(copy);
}

TEST(test_ib_round_trip)
{
	static const size_t lens[] = { 0, 1, 2, 3, 4, 5, 255, 1024 };
	struct fw_ib_hdrs h;
	size_t i, j;
	int global;

	for (i = 0; i < NUM_IB_OPCODES; i++) {
		for (global = 0; global < 2; global++) {
			for (j = 0; j < ARRAY_SIZE(lens); j++) {
				fill_hdrs(&h, ib_opcodes[i], global);
				h.xport.se = j & 1;
				h.xport.fecn = j & 2;
				check_round_trip(&h,
						 payload_for(ib_opcodes[i],
							     lens[j]));
			}
		}
	}
	/* subnet management on VL15 from a port without a LID yet */
	fill_hdrs(&h, FW_ROCE_UD_SEND_ONLY, false);
	h.vl = FW_IB_VL15;
	h.slid = FW_IB_LID_PERMISSIVE;
	h.dlid = FW_IB_LID_PERMISSIVE;
	h.xport.dest_qp = FW_IB_QP0;
	check_round_trip(&h, 256);
}

TEST(test_ib_parse_vectors)
{
	struct fw_ib_pkt p;
	size_t i;

	for (i = 0; i < NUM_IB_VECTORS; i++)
		if (!CHECK_EQ(parse_exact(ib_vectors[i].pkt, ib_vectors[i].len,
					  &p), FW_IB_OK))
			NOTE("vector %s", ib_vectors[i].name);
}

/* ------------------------------------------------------------------ */
/* Drops                                                               */
/* ------------------------------------------------------------------ */

TEST(test_ib_drop_reasons)
{
	uint8_t buf[IB_BUF], pkt[IB_BUF];
	struct fw_ib_hdrs h;
	struct fw_ib_pkt p;
	size_t len, glen, i;
	unsigned long want;

	drops_seen = 0;
	fill_hdrs(&h, FW_ROCE_RC_RDMA_WRITE_ONLY, false);
	len = build(buf, sizeof(buf), &h, (const uint8_t *)"0123456789", 10);
	REQUIRE(len);
	REQUIRE_EQ(parse_exact(buf, len, &p), FW_IB_OK);

	expect_drop(buf, 0, FW_IB_DROP_SHORT);
	expect_drop(buf, FW_IB_LRH_LEN + 1, FW_IB_DROP_SHORT);

	memcpy(pkt, buf, len);
	pkt[0] |= 1;				/* LVer 1 */
	reseal(pkt, len);
	expect_drop(pkt, len, FW_IB_DROP_LVER);

	/* PktLen one word short, one long, and a byte of trailing junk */
	memcpy(pkt, buf, len);
	fw_wire_put16(pkt + 4, (uint16_t)(fw_wire_get16(buf + 4) - 1));
	expect_drop(pkt, len, FW_IB_DROP_PKTLEN);
	fw_wire_put16(pkt + 4, (uint16_t)(fw_wire_get16(buf + 4) + 1));
	expect_drop(pkt, len, FW_IB_DROP_PKTLEN);
	memcpy(pkt, buf, len);
	pkt[len] = 0;
	expect_drop(pkt, len + 1, FW_IB_DROP_PKTLEN);
	fw_wire_put16(pkt + 4, 1);		/* less than an LRH */
	expect_drop(pkt, FW_IB_LRH_LEN + FW_IB_VCRC_LEN, FW_IB_DROP_PKTLEN);

	memcpy(pkt, buf, len);
	pkt[len - 1] ^= 0x01;
	expect_drop(pkt, len, FW_IB_DROP_VCRC);
	memcpy(pkt, buf, len);
	pkt[20] ^= 0x80;			/* payload: the link sees it */
	expect_drop(pkt, len, FW_IB_DROP_VCRC);

	for (i = FW_IB_LNH_RAW; i <= FW_IB_LNH_IP; i++) {
		memcpy(pkt, buf, len);
		pkt[1] = (uint8_t)((pkt[1] & ~FW_LRH_LNH_MASK) | i);
		reseal_vcrc(pkt, len);
		expect_drop(pkt, len, FW_IB_DROP_LNH);
	}

	memcpy(pkt, buf, len);
	fw_wire_put16(pkt + 6, 0);
	reseal(pkt, len);
	expect_drop(pkt, len, FW_IB_DROP_SLID);
	fw_wire_put16(pkt + 6, 0xc001);
	reseal(pkt, len);
	expect_drop(pkt, len, FW_IB_DROP_SLID);
	fw_wire_put16(pkt + 6, FW_IB_LID_PERMISSIVE);
	reseal(pkt, len);
	expect_drop(pkt, len, FW_IB_DROP_SLID);

	/* a local packet relabelled global: its BTH is no GRH */
	memcpy(pkt, buf, len);
	pkt[1] |= FW_IB_LNH_GLOBAL;
	reseal_vcrc(pkt, len);
	expect_drop(pkt, len, FW_IB_DROP_GRH_SHORT);

	/* global packets */
	fill_hdrs(&h, FW_ROCE_RC_SEND_ONLY, true);
	glen = build(pkt, sizeof(pkt), &h, (const uint8_t *)"abcd", 4);
	REQUIRE(glen);
	REQUIRE_EQ(parse_exact(pkt, glen, &p), FW_IB_OK);
	pkt[FW_IB_LRH_LEN] = (uint8_t)(4 << 4 | (pkt[FW_IB_LRH_LEN] & 0xf));
	reseal(pkt, glen);
	expect_drop(pkt, glen, FW_IB_DROP_GRH_VERSION);
	build(pkt, sizeof(pkt), &h, (const uint8_t *)"abcd", 4);
	pkt[FW_IB_LRH_LEN + 6] = 17;		/* UDP, not IBA */
	reseal(pkt, glen);
	expect_drop(pkt, glen, FW_IB_DROP_GRH_NXTHDR);
	build(pkt, sizeof(pkt), &h, (const uint8_t *)"abcd", 4);
	fw_wire_put16(pkt + FW_IB_LRH_LEN + 4,
		      (uint16_t)(fw_wire_get16(pkt + FW_IB_LRH_LEN + 4) + 4));
	reseal(pkt, glen);
	expect_drop(pkt, glen, FW_IB_DROP_GRH_PAYLEN);

	/* an LRH and an ICRC around fewer bytes than a BTH */
	memset(pkt, 0, sizeof(pkt));
	pkt[1] = FW_IB_LNH_LOCAL;
	fw_wire_put16(pkt + 6, 1);
	fw_wire_put16(pkt + 4, 5);
	reseal_vcrc(pkt, 22);
	expect_drop(pkt, 22, FW_IB_DROP_BTH_SHORT);

	memcpy(pkt, buf, len);
	pkt[FW_IB_LRH_LEN + 1] |= 1;		/* TVer 1 */
	reseal(pkt, len);
	expect_drop(pkt, len, FW_IB_DROP_TVER);
	memcpy(pkt, buf, len);
	pkt[FW_IB_LRH_LEN] = 0x1f;		/* not an opcode of ours */
	reseal(pkt, len);
	expect_drop(pkt, len, FW_IB_DROP_OPCODE);

	/* RDMA WRITE Only needs a RETH: an RC Acknowledge's length is less */
	fill_hdrs(&h, FW_ROCE_RC_ACKNOWLEDGE, false);
	glen = build(pkt, sizeof(pkt), &h, NULL, 0);
	REQUIRE(glen);
	pkt[FW_IB_LRH_LEN] = FW_ROCE_RC_RDMA_WRITE_ONLY;
	reseal(pkt, glen);
	expect_drop(pkt, glen, FW_IB_DROP_EXT_SHORT);

	memcpy(pkt, buf, len);
	pkt[FW_IB_LRH_LEN + 1] &= (uint8_t)~FW_BTH_PAD_MASK;
	pkt[FW_IB_LRH_LEN + 1] |= 3 << FW_BTH_PAD_SHIFT;
	reseal(pkt, len);
	REQUIRE_EQ(parse_exact(pkt, len, &p), FW_IB_OK);	/* 12 + 3 pad */
	fill_hdrs(&h, FW_ROCE_RC_SEND_ONLY, false);
	glen = build(pkt, sizeof(pkt), &h, NULL, 0);
	REQUIRE(glen);
	pkt[FW_IB_LRH_LEN + 1] |= 1 << FW_BTH_PAD_SHIFT; /* pad, no payload */
	reseal(pkt, glen);
	expect_drop(pkt, glen, FW_IB_DROP_PAD);
	fill_hdrs(&h, FW_ROCE_RC_ACKNOWLEDGE, false);
	glen = build(pkt, sizeof(pkt), &h, NULL, 0);
	REQUIRE(glen);
	/* 4 more bytes after the AETH */
	fw_wire_put16(pkt + 4, (uint16_t)(fw_wire_get16(pkt + 4) + 1));
	glen += 4;
	reseal(pkt, glen);
	expect_drop(pkt, glen, FW_IB_DROP_PAD);

	/* the subnet management lane */
	memcpy(pkt, buf, len);
	pkt[0] = (uint8_t)(FW_IB_VL15 << FW_LRH_VL_SHIFT);
	reseal_vcrc(pkt, len);			/* the ICRC does not see VL */
	expect_drop(pkt, len, FW_IB_DROP_VL15);
	fill_hdrs(&h, FW_ROCE_UD_SEND_ONLY, false);
	h.vl = FW_IB_VL15;
	h.xport.dest_qp = FW_IB_QP0;
	glen = build(pkt, sizeof(pkt), &h, (const uint8_t *)"mad!", 4);
	REQUIRE(glen);
	REQUIRE_EQ(parse_exact(pkt, glen, &p), FW_IB_OK);
	pkt[0] = 0;				/* VL0 */
	reseal_vcrc(pkt, glen);
	expect_drop(pkt, glen, FW_IB_DROP_QP0_VL);

	memcpy(pkt, buf, len);
	pkt[len - 3] ^= 0x01;			/* the ICRC itself */
	reseal_vcrc(pkt, len);
	expect_drop(pkt, len, FW_IB_DROP_ICRC);
	memcpy(pkt, buf, len);
	pkt[FW_IB_LRH_LEN + 13] ^= 0x40;	/* RETH: a switch cannot */
	reseal_vcrc(pkt, len);
	expect_drop(pkt, len, FW_IB_DROP_ICRC);
	memcpy(pkt, buf, len);
	pkt[1] ^= 0x10;				/* SL of a local packet */
	reseal_vcrc(pkt, len);
	expect_drop(pkt, len, FW_IB_DROP_ICRC);

	want = 0;
	for (i = FW_IB_DROP_SHORT; i < FW_IB_DROP_NUM; i++)
		want |= 1ul << i;
	CHECK_EQ(drops_seen, want);
}

TEST(test_ib_drop_names)
{
	size_t i;

	for (i = 0; i < FW_IB_DROP_NUM; i++)
		CHECK(ib_drop_names[i]);
}

/* Every prefix of a valid packet is dropped, never read past */
TEST(test_ib_truncation)
{
	uint8_t buf[IB_BUF];
	struct fw_ib_hdrs h;
	struct fw_ib_pkt p;
	unsigned int n;
	size_t len, cut;

	for (n = 0; n < 2 * NUM_IB_OPCODES; n++) {
		len = sample(buf, sizeof(buf), n, &h);
		REQUIRE(len);
		for (cut = 0; cut < len; cut++)
			CHECK(parse_exact(buf, cut, &p) != FW_IB_OK);
		CHECK_EQ(parse_exact(buf, len, &p), FW_IB_OK);
	}
}

/* A flipped bit: the VCRC or a header check drops it; one the VCRC is
 * made to accept again is caught by the ICRC or a header check, unless
 * it is a variant field (VL, or a global packet's LRH and GRH variant
 * fields, or BTH byte 4).
 */
static bool variant_bit(const struct fw_ib_hdrs *h, size_t byte,
			unsigned int bit)
{
	size_t bth = FW_IB_LRH_LEN + (h->global ? FW_IB_GRH_LEN : 0);

	if (byte == bth + 4)
		return true;
	if (!h->global)
		return byte == 0 && bit >= 4;
	if (byte < FW_IB_LRH_LEN)
		return true;
	byte -= FW_IB_LRH_LEN;
	return (byte == 0 && bit < 4) || byte == 1 || byte == 2 ||
	       byte == 3 || byte == 7;
}

TEST(test_ib_bit_flips)
{
	uint8_t buf[IB_BUF], pkt[IB_BUF];
	struct fw_ib_hdrs h;
	struct fw_ib_pkt p;
	unsigned int n, bit;
	size_t len, byte;
	enum fw_ib_drop r;

	for (n = 0; n < NUM_IB_OPCODES * 2; n++) {
		len = sample(buf, sizeof(buf), n, &h);
		REQUIRE(len);
		for (byte = 0; byte < len - FW_IB_VCRC_LEN; byte++) {
			for (bit = 0; bit < 8; bit++) {
				memcpy(pkt, buf, len);
				pkt[byte] ^= (uint8_t)(1u << bit);
				CHECK(parse_exact(pkt, len, &p) != FW_IB_OK);
				reseal_vcrc(pkt, len);
				r = parse_exact(pkt, len, &p);
				if (variant_bit(&h, byte, bit))
					continue;
				if (r == FW_IB_OK)
					NOTE("n %u byte %zu bit %u accepted",
					     n, byte, bit);
				CHECK(r != FW_IB_OK);
			}
		}
	}
}

/* Random bytes with a right VCRC and PktLen: the parser never reads
 * outside and never accepts what it cannot describe.
 */
TEST(test_ib_random_packets)
{
	uint8_t pkt[512], *copy;
	struct fw_ib_pkt p;
	unsigned int n;
	size_t len, i;

	for (n = 0; n < 20000; n++) {
		len = 8 + 4 * (rng() % 100) + FW_IB_VCRC_LEN;
		for (i = 0; i < len; i++)
			pkt[i] = (uint8_t)rng();
		pkt[0] &= 0xf0;				/* LVer 0 */
		pkt[1] = (uint8_t)((pkt[1] & 0xf0) | (2 + (n & 1)));
		fw_wire_put16(pkt + 4, (uint16_t)((len - 2) / 4));
		reseal_vcrc(pkt, len);
		if (n % 4 == 0)
			reseal(pkt, len);
		if (parse_copy(pkt, len, &p, &copy) == FW_IB_OK) {
			CHECK(p.xport.op);
			CHECK(p.xport.payload + p.xport.payload_len <=
			      p.pkt + len);
		}
		free(copy);
	}
}
