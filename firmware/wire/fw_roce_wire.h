/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * RoCEv2 wire layer: the frames the transport engine sends and receives,
 * as IBTA Annex A17 puts InfiniBand transport packets into UDP/IP over
 * Ethernet:
 *
 *   Ethernet [802.1Q] | IPv4 or IPv6 | UDP (dst 4791) | BTH | extension
 *   headers | payload | pad to 4 bytes | ICRC (4 bytes, little endian)
 *
 * Every wire field is big endian; the header structs below are byte
 * arrays with accessors, so they have no alignment or padding and can be
 * laid over any byte of a frame.  fw_roce_frame_init() and
 * fw_roce_frame_seal() write a frame from a struct fw_roce_hdrs,
 * fw_roce_parse() validates every byte of a received frame and either
 * describes it or names why it is dropped.  Both are driven by one
 * opcode table (which extension headers an opcode carries).
 *
 * Self-contained: no device state, no HAL, so it is tested on its own and
 * against frames captured from Linux rdma_rxe (tests/vectors/).  What
 * only the tests and tools need of it (a frame in one call, every field
 * of a parsed packet, drop reason names) is in tests/roce_codec.h.
 */
#ifndef FW_ROCE_WIRE_H
#define FW_ROCE_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FW_ROCE_UDP_DPORT		4791
/* RoCEv2 source ports are taken from the dynamic range 0xc000..0xffff */
#define FW_ROCE_UDP_SPORT_MIN		0xc000

#define FW_ROCE_ETH_HLEN		14
#define FW_ROCE_VLAN_HLEN		4
#define FW_ROCE_IPV4_HLEN		20	/* without options */
#define FW_ROCE_IPV6_HLEN		40
#define FW_ROCE_UDP_HLEN		8
#define FW_ROCE_BTH_LEN			12
#define FW_ROCE_RETH_LEN		16
#define FW_ROCE_AETH_LEN		4
#define FW_ROCE_DETH_LEN		8
#define FW_ROCE_IMMDT_LEN		4
#define FW_ROCE_IETH_LEN		4
#define FW_ROCE_ATOMIC_ETH_LEN		28
#define FW_ROCE_ATOMIC_ACK_ETH_LEN	8
#define FW_ROCE_FETH_LEN		4
/* RDMA ATOMIC WRITE: the payload is exactly 8 bytes */
#define FW_ROCE_ATOMIC_WRITE_LEN	8
#define FW_ROCE_ICRC_LEN		4
/* BTH plus the largest set of extension headers an opcode carries */
#define FW_ROCE_MAX_TRANSPORT_HLEN	(FW_ROCE_BTH_LEN + FW_ROCE_ATOMIC_ETH_LEN)
/* Everything a built frame puts in front of the payload */
#define FW_ROCE_MAX_HLEN		(FW_ROCE_ETH_HLEN + FW_ROCE_VLAN_HLEN + \
					 FW_ROCE_IPV6_HLEN + FW_ROCE_UDP_HLEN + \
					 FW_ROCE_MAX_TRANSPORT_HLEN)
/* Built frames are padded to the Ethernet minimum (without FCS) */
#define FW_ROCE_MIN_FRAME		60

#define FW_ROCE_QPN_MASK		0xffffffu
#define FW_ROCE_PSN_MASK		0xffffffu
#define FW_ROCE_FLOW_LABEL_MASK		0xfffffu
#define FW_ROCE_DEFAULT_PKEY		0xffff
#define FW_ROCE_VLAN_NONE		0xffff
/* 802.1Q tag control: priority above the VLAN ID */
#define FW_VLAN_VID_MASK		0x0fff
#define FW_VLAN_PRIO_SHIFT		13
#define FW_VLAN_MAX_PRIO		7

/* ------------------------------------------------------------------ */
/* Big-endian field access                                             */
/* ------------------------------------------------------------------ */

static inline uint16_t fw_wire_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t fw_wire_get24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static inline uint32_t fw_wire_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | fw_wire_get24(p + 1);
}

static inline uint64_t fw_wire_get64(const uint8_t *p)
{
	return (uint64_t)fw_wire_get32(p) << 32 | fw_wire_get32(p + 4);
}

static inline void fw_wire_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void fw_wire_put24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16);
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)v;
}

static inline void fw_wire_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	fw_wire_put24(p + 1, v);
}

static inline void fw_wire_put64(uint8_t *p, uint64_t v)
{
	fw_wire_put32(p, (uint32_t)(v >> 32));
	fw_wire_put32(p + 4, (uint32_t)v);
}

/* ------------------------------------------------------------------ */
/* Transport headers (IBTA vol. 1 ch. 9, Annex A17)                    */
/* ------------------------------------------------------------------ */

/* Base Transport Header */
struct fw_roce_bth {
	uint8_t opcode;
	uint8_t flags;		/* SE | M | PadCnt | TVer */
	uint8_t pkey[2];
	uint8_t fb;		/* RoCEv2: F (FECN) | B (BECN) | 6 reserved */
	uint8_t dest_qp[3];
	uint8_t apsn[4];	/* A | 7 reserved | PSN */
};

#define FW_BTH_SE			0x80	/* flags */
#define FW_BTH_MIG			0x40
#define FW_BTH_PAD_SHIFT		4
#define FW_BTH_PAD_MASK			0x30
#define FW_BTH_TVER_MASK		0x0f
#define FW_BTH_FECN			0x80	/* fb */
#define FW_BTH_BECN			0x40
#define FW_BTH_ACK_REQ			0x80	/* apsn[0] */
#define FW_BTH_TVER			0

static inline uint8_t fw_bth_opcode(const struct fw_roce_bth *b)
{
	return b->opcode;
}

static inline bool fw_bth_se(const struct fw_roce_bth *b)
{
	return b->flags & FW_BTH_SE;
}

static inline bool fw_bth_mig(const struct fw_roce_bth *b)
{
	return b->flags & FW_BTH_MIG;
}

static inline unsigned int fw_bth_pad(const struct fw_roce_bth *b)
{
	return (b->flags & FW_BTH_PAD_MASK) >> FW_BTH_PAD_SHIFT;
}

static inline unsigned int fw_bth_tver(const struct fw_roce_bth *b)
{
	return b->flags & FW_BTH_TVER_MASK;
}

static inline uint16_t fw_bth_pkey(const struct fw_roce_bth *b)
{
	return fw_wire_get16(b->pkey);
}

static inline bool fw_bth_fecn(const struct fw_roce_bth *b)
{
	return b->fb & FW_BTH_FECN;
}

static inline bool fw_bth_becn(const struct fw_roce_bth *b)
{
	return b->fb & FW_BTH_BECN;
}

static inline uint32_t fw_bth_dest_qp(const struct fw_roce_bth *b)
{
	return fw_wire_get24(b->dest_qp);
}

static inline bool fw_bth_ack_req(const struct fw_roce_bth *b)
{
	return b->apsn[0] & FW_BTH_ACK_REQ;
}

static inline uint32_t fw_bth_psn(const struct fw_roce_bth *b)
{
	return fw_wire_get24(b->apsn + 1);
}

static inline void fw_bth_set_opcode(struct fw_roce_bth *b, uint8_t opcode)
{
	b->opcode = opcode;
}

static inline void fw_bth_set_flags(struct fw_roce_bth *b, bool se, bool mig,
				    unsigned int pad)
{
	b->flags = (uint8_t)((se ? FW_BTH_SE : 0) | (mig ? FW_BTH_MIG : 0) |
			     ((pad << FW_BTH_PAD_SHIFT) & FW_BTH_PAD_MASK) |
			     FW_BTH_TVER);
}

static inline void fw_bth_set_pkey(struct fw_roce_bth *b, uint16_t pkey)
{
	fw_wire_put16(b->pkey, pkey);
}

static inline void fw_bth_set_fb(struct fw_roce_bth *b, bool fecn, bool becn)
{
	b->fb = (uint8_t)((fecn ? FW_BTH_FECN : 0) | (becn ? FW_BTH_BECN : 0));
}

static inline void fw_bth_set_dest_qp(struct fw_roce_bth *b, uint32_t qpn)
{
	fw_wire_put24(b->dest_qp, qpn & FW_ROCE_QPN_MASK);
}

static inline void fw_bth_set_apsn(struct fw_roce_bth *b, bool ack_req,
				   uint32_t psn)
{
	fw_wire_put32(b->apsn, (ack_req ? (uint32_t)FW_BTH_ACK_REQ << 24 : 0) |
		      (psn & FW_ROCE_PSN_MASK));
}

/* RDMA Extended Transport Header */
struct fw_roce_reth {
	uint8_t va[8];
	uint8_t rkey[4];
	uint8_t dma_len[4];
};

static inline uint64_t fw_reth_va(const struct fw_roce_reth *r)
{
	return fw_wire_get64(r->va);
}

static inline uint32_t fw_reth_rkey(const struct fw_roce_reth *r)
{
	return fw_wire_get32(r->rkey);
}

static inline uint32_t fw_reth_dma_len(const struct fw_roce_reth *r)
{
	return fw_wire_get32(r->dma_len);
}

static inline void fw_reth_set(struct fw_roce_reth *r, uint64_t va,
			       uint32_t rkey, uint32_t dma_len)
{
	fw_wire_put64(r->va, va);
	fw_wire_put32(r->rkey, rkey);
	fw_wire_put32(r->dma_len, dma_len);
}

/* ACK Extended Transport Header: syndrome (8) | MSN (24) */
struct fw_roce_aeth {
	uint8_t syndrome;
	uint8_t msn[3];
};

#define FW_AETH_TYPE_MASK		0x60
#define FW_AETH_VALUE_MASK		0x1f
#define FW_AETH_ACK			0x00	/* value: credit count */
#define FW_AETH_RNR_NAK			0x20	/* value: RNR timer */
#define FW_AETH_NAK			0x60	/* value: enum fw_aeth_nak_code */
/* Credit count "invalid": the responder does no end-to-end flow control
 * (what rdma_rxe sends, syndrome 0x1f)
 */
#define FW_AETH_CREDITS_INVALID		0x1f

enum fw_aeth_nak_code {
	FW_AETH_NAK_PSN_SEQ_ERR		= 0,
	FW_AETH_NAK_INVALID_REQ		= 1,
	FW_AETH_NAK_REMOTE_ACCESS	= 2,
	FW_AETH_NAK_REMOTE_OP		= 3,
	FW_AETH_NAK_INVALID_RD_REQ	= 4,
};

static inline uint8_t fw_aeth_ack(unsigned int credits)
{
	return (uint8_t)(FW_AETH_ACK | (credits & FW_AETH_VALUE_MASK));
}

static inline uint8_t fw_aeth_rnr_nak(unsigned int timer)
{
	return (uint8_t)(FW_AETH_RNR_NAK | (timer & FW_AETH_VALUE_MASK));
}

static inline uint8_t fw_aeth_nak(enum fw_aeth_nak_code code)
{
	return (uint8_t)(FW_AETH_NAK | ((unsigned int)code & FW_AETH_VALUE_MASK));
}

static inline bool fw_aeth_is_ack(uint8_t syndrome)
{
	return (syndrome & FW_AETH_TYPE_MASK) == FW_AETH_ACK;
}

static inline bool fw_aeth_is_rnr_nak(uint8_t syndrome)
{
	return (syndrome & FW_AETH_TYPE_MASK) == FW_AETH_RNR_NAK;
}

static inline bool fw_aeth_is_nak(uint8_t syndrome)
{
	return (syndrome & FW_AETH_TYPE_MASK) == FW_AETH_NAK;
}

/* Credit count, RNR timer or NAK code, by the syndrome's type */
static inline unsigned int fw_aeth_value(uint8_t syndrome)
{
	return syndrome & FW_AETH_VALUE_MASK;
}

static inline uint8_t fw_aeth_syndrome(const struct fw_roce_aeth *a)
{
	return a->syndrome;
}

static inline uint32_t fw_aeth_msn(const struct fw_roce_aeth *a)
{
	return fw_wire_get24(a->msn);
}

static inline void fw_aeth_set(struct fw_roce_aeth *a, uint8_t syndrome,
			       uint32_t msn)
{
	a->syndrome = syndrome;
	fw_wire_put24(a->msn, msn & 0xffffffu);
}

/* Datagram Extended Transport Header: Q_Key | 8 reserved | source QP */
struct fw_roce_deth {
	uint8_t qkey[4];
	uint8_t src_qp[4];
};

static inline uint32_t fw_deth_qkey(const struct fw_roce_deth *d)
{
	return fw_wire_get32(d->qkey);
}

static inline uint32_t fw_deth_src_qp(const struct fw_roce_deth *d)
{
	return fw_wire_get24(d->src_qp + 1);
}

static inline void fw_deth_set(struct fw_roce_deth *d, uint32_t qkey,
			       uint32_t src_qp)
{
	fw_wire_put32(d->qkey, qkey);
	fw_wire_put32(d->src_qp, src_qp & FW_ROCE_QPN_MASK);
}

/* Immediate data, 4 opaque bytes: kept in wire order by the caller's
 * convention (ibv_wc.imm_data is big endian too), read here as a number.
 */
struct fw_roce_immdt {
	uint8_t imm[4];
};

static inline uint32_t fw_immdt_get(const struct fw_roce_immdt *i)
{
	return fw_wire_get32(i->imm);
}

static inline void fw_immdt_set(struct fw_roce_immdt *i, uint32_t imm)
{
	fw_wire_put32(i->imm, imm);
}

/* Invalidate Extended Transport Header: the R_Key to invalidate */
struct fw_roce_ieth {
	uint8_t rkey[4];
};

static inline uint32_t fw_ieth_rkey(const struct fw_roce_ieth *i)
{
	return fw_wire_get32(i->rkey);
}

static inline void fw_ieth_set(struct fw_roce_ieth *i, uint32_t rkey)
{
	fw_wire_put32(i->rkey, rkey);
}

/* Atomic Extended Transport Header */
struct fw_roce_atomic_eth {
	uint8_t va[8];
	uint8_t rkey[4];
	uint8_t swap_add[8];
	uint8_t compare[8];
};

static inline uint64_t fw_atomic_eth_va(const struct fw_roce_atomic_eth *a)
{
	return fw_wire_get64(a->va);
}

static inline uint32_t fw_atomic_eth_rkey(const struct fw_roce_atomic_eth *a)
{
	return fw_wire_get32(a->rkey);
}

static inline uint64_t
fw_atomic_eth_swap_add(const struct fw_roce_atomic_eth *a)
{
	return fw_wire_get64(a->swap_add);
}

static inline uint64_t
fw_atomic_eth_compare(const struct fw_roce_atomic_eth *a)
{
	return fw_wire_get64(a->compare);
}

static inline void fw_atomic_eth_set(struct fw_roce_atomic_eth *a,
				     uint64_t va, uint32_t rkey,
				     uint64_t swap_add, uint64_t compare)
{
	fw_wire_put64(a->va, va);
	fw_wire_put32(a->rkey, rkey);
	fw_wire_put64(a->swap_add, swap_add);
	fw_wire_put64(a->compare, compare);
}

/* Atomic ACK Extended Transport Header: the original remote data */
struct fw_roce_atomic_ack_eth {
	uint8_t orig[8];
};

static inline uint64_t
fw_atomic_ack_eth_orig(const struct fw_roce_atomic_ack_eth *a)
{
	return fw_wire_get64(a->orig);
}

static inline void fw_atomic_ack_eth_set(struct fw_roce_atomic_ack_eth *a,
					 uint64_t orig)
{
	fw_wire_put64(a->orig, orig);
}

/*
 * FLUSH Extended Transport Header (IBTA 1.5): one big-endian word with
 * the placement type in bits 3..0 and the selectivity level in bits
 * 5..4; bits 31..6 are reserved (sent 0, ignored).  It follows the BTH
 * and comes before the RETH, as rdma_rxe and Wireshark lay it out.
 */
struct fw_roce_feth {
	uint8_t bits[4];
};

#define FW_FETH_PLT_MASK		0x0fu
#define FW_FETH_SEL_SHIFT		4
#define FW_FETH_SEL_MASK		0x30u
/* placement type bits (IBTA: global visibility, persistence) */
#define FW_FETH_PLT_GLOBAL		0x1u
#define FW_FETH_PLT_PERSISTENT		0x2u
/* selectivity levels */
#define FW_FETH_SEL_RANGE		0u	/* RETH va .. va + dma_len */
#define FW_FETH_SEL_MR			1u	/* the whole MR of the rkey */

static inline unsigned int fw_feth_placement(const struct fw_roce_feth *f)
{
	return fw_wire_get32(f->bits) & FW_FETH_PLT_MASK;
}

static inline unsigned int fw_feth_level(const struct fw_roce_feth *f)
{
	return (fw_wire_get32(f->bits) & FW_FETH_SEL_MASK) >> FW_FETH_SEL_SHIFT;
}

static inline void fw_feth_set(struct fw_roce_feth *f, unsigned int placement,
			       unsigned int level)
{
	fw_wire_put32(f->bits, (placement & FW_FETH_PLT_MASK) |
		      ((level << FW_FETH_SEL_SHIFT) & FW_FETH_SEL_MASK));
}

_Static_assert(sizeof(struct fw_roce_bth) == FW_ROCE_BTH_LEN, "BTH");
_Static_assert(sizeof(struct fw_roce_reth) == FW_ROCE_RETH_LEN, "RETH");
_Static_assert(sizeof(struct fw_roce_aeth) == FW_ROCE_AETH_LEN, "AETH");
_Static_assert(sizeof(struct fw_roce_deth) == FW_ROCE_DETH_LEN, "DETH");
_Static_assert(sizeof(struct fw_roce_immdt) == FW_ROCE_IMMDT_LEN, "ImmDt");
_Static_assert(sizeof(struct fw_roce_ieth) == FW_ROCE_IETH_LEN, "IETH");
_Static_assert(sizeof(struct fw_roce_atomic_eth) == FW_ROCE_ATOMIC_ETH_LEN,
	       "AtomicETH");
_Static_assert(sizeof(struct fw_roce_atomic_ack_eth) ==
	       FW_ROCE_ATOMIC_ACK_ETH_LEN, "AtomicAckETH");
_Static_assert(sizeof(struct fw_roce_feth) == FW_ROCE_FETH_LEN, "FETH");

/* ------------------------------------------------------------------ */
/* Opcodes                                                             */
/* ------------------------------------------------------------------ */

/* Bits 7..5 of the opcode: transport; bits 4..0: operation */
enum fw_roce_opcode {
	FW_ROCE_RC_SEND_FIRST			= 0x00,
	FW_ROCE_RC_SEND_MIDDLE			= 0x01,
	FW_ROCE_RC_SEND_LAST			= 0x02,
	FW_ROCE_RC_SEND_LAST_IMM		= 0x03,
	FW_ROCE_RC_SEND_ONLY			= 0x04,
	FW_ROCE_RC_SEND_ONLY_IMM		= 0x05,
	FW_ROCE_RC_RDMA_WRITE_FIRST		= 0x06,
	FW_ROCE_RC_RDMA_WRITE_MIDDLE		= 0x07,
	FW_ROCE_RC_RDMA_WRITE_LAST		= 0x08,
	FW_ROCE_RC_RDMA_WRITE_LAST_IMM		= 0x09,
	FW_ROCE_RC_RDMA_WRITE_ONLY		= 0x0a,
	FW_ROCE_RC_RDMA_WRITE_ONLY_IMM		= 0x0b,
	FW_ROCE_RC_RDMA_READ_REQUEST		= 0x0c,
	FW_ROCE_RC_RDMA_READ_RESPONSE_FIRST	= 0x0d,
	FW_ROCE_RC_RDMA_READ_RESPONSE_MIDDLE	= 0x0e,
	FW_ROCE_RC_RDMA_READ_RESPONSE_LAST	= 0x0f,
	FW_ROCE_RC_RDMA_READ_RESPONSE_ONLY	= 0x10,
	FW_ROCE_RC_ACKNOWLEDGE			= 0x11,
	FW_ROCE_RC_ATOMIC_ACKNOWLEDGE		= 0x12,
	FW_ROCE_RC_COMPARE_SWAP			= 0x13,
	FW_ROCE_RC_FETCH_ADD			= 0x14,
	FW_ROCE_RC_SEND_LAST_INV		= 0x16,
	FW_ROCE_RC_SEND_ONLY_INV		= 0x17,
	FW_ROCE_UC_SEND_FIRST			= 0x20,
	FW_ROCE_UC_SEND_MIDDLE			= 0x21,
	FW_ROCE_UC_SEND_LAST			= 0x22,
	FW_ROCE_UC_SEND_LAST_IMM		= 0x23,
	FW_ROCE_UC_SEND_ONLY			= 0x24,
	FW_ROCE_UC_SEND_ONLY_IMM		= 0x25,
	FW_ROCE_UC_RDMA_WRITE_FIRST		= 0x26,
	FW_ROCE_UC_RDMA_WRITE_MIDDLE		= 0x27,
	FW_ROCE_UC_RDMA_WRITE_LAST		= 0x28,
	FW_ROCE_UC_RDMA_WRITE_LAST_IMM		= 0x29,
	FW_ROCE_UC_RDMA_WRITE_ONLY		= 0x2a,
	FW_ROCE_UC_RDMA_WRITE_ONLY_IMM		= 0x2b,
	/* IBTA 1.5; both are answered by a READ Response Only of 0 bytes */
	FW_ROCE_RC_FLUSH			= 0x1c,	/* FETH, RETH */
	FW_ROCE_RC_ATOMIC_WRITE			= 0x1d,	/* RETH, 8 bytes */
	FW_ROCE_UD_SEND_ONLY			= 0x64,
	FW_ROCE_UD_SEND_ONLY_IMM		= 0x65,
};

#define FW_ROCE_OPCODE_TRANSPORT_MASK	0xe0
#define FW_ROCE_OPCODE_RC		0x00
#define FW_ROCE_OPCODE_UC		0x20
/* UC SEND/WRITE opcodes are the RC ones with the UC transport bits */
#define FW_ROCE_OPCODE_OP_MASK		0x1f
#define FW_ROCE_OPCODE_UD		0x60

/* What an opcode carries (extension headers in wire order) and where the
 * packet sits in its message.
 */
#define FW_ROCE_HAS_DETH		(1u << 0)
#define FW_ROCE_HAS_RETH		(1u << 1)
#define FW_ROCE_HAS_ATOMIC_ETH		(1u << 2)
#define FW_ROCE_HAS_AETH		(1u << 3)
#define FW_ROCE_HAS_ATOMIC_ACK_ETH	(1u << 4)
#define FW_ROCE_HAS_IMMDT		(1u << 5)
#define FW_ROCE_HAS_IETH		(1u << 6)
#define FW_ROCE_HAS_PAYLOAD		(1u << 7)
#define FW_ROCE_REQUEST			(1u << 8)	/* else a response */
#define FW_ROCE_FIRST			(1u << 9)	/* first packet of a message */
#define FW_ROCE_LAST			(1u << 10)	/* last packet of a message */
#define FW_ROCE_HAS_FETH		(1u << 11)

struct fw_roce_opcode_info {
	const char *name;	/* NULL: not an opcode of this device */
	uint16_t flags;		/* FW_ROCE_HAS_*, REQUEST, FIRST, LAST */
	uint8_t hdr_len;	/* BTH + extension headers */
};

/* NULL for opcodes the device does not speak (RD, XRC, CNP, reserved, ...) */
const struct fw_roce_opcode_info *fw_roce_opcode_info(uint8_t opcode);

/* ------------------------------------------------------------------ */
/* Frames                                                              */
/* ------------------------------------------------------------------ */

/*
 * Every field of a RoCEv2 frame that is not derived (lengths, checksums,
 * pad count, ICRC), in host order.  Addresses are GIDs in network order:
 * an IPv4-mapped GID (::ffff:a.b.c.d) makes an IPv4 frame, anything else
 * an IPv6 frame.  Only the extension headers the opcode carries are used.
 */
struct fw_roce_hdrs {
	uint8_t dmac[6];
	uint8_t smac[6];
	uint16_t vlan_id;	/* 0..4095 or FW_ROCE_VLAN_NONE */
	uint8_t vlan_prio;	/* 802.1Q PCP, 0..7 */

	uint8_t sgid[16];
	uint8_t dgid[16];
	uint8_t traffic_class;	/* IPv4 TOS (DSCP | ECN), IPv6 traffic class */
	uint32_t flow_label;	/* IPv6 header (20 bits); seeds the UDP source
				 * port on both families
				 */
	uint8_t hop_limit;	/* IPv4 TTL, IPv6 hop limit */
	uint16_t ip_id;		/* IPv4 identification */
	/* 0 on build: fw_roce_udp_sport(flow_label, src_qp, dest_qp) */
	uint16_t udp_sport;
	/* IPv6: send UDP checksum 0 as rdma_rxe does (RFC 6935 style, which
	 * Wireshark flags as illegal); default is a computed checksum.
	 */
	bool udp6_zero_csum;

	uint8_t opcode;		/* enum fw_roce_opcode */
	bool se;		/* solicited event */
	bool mig;		/* MigReq */
	bool fecn;
	bool becn;
	bool ack_req;
	uint16_t pkey;
	uint32_t dest_qp;	/* 24 bits */
	uint32_t psn;		/* 24 bits */
	/* Local QPN: not on the wire (UD: deth.src_qp is), entropy for the
	 * UDP source port only.  Parsing leaves it 0.
	 */
	uint32_t src_qp;

	struct {
		uint64_t va;
		uint32_t rkey;
		uint32_t dma_len;
	} reth;
	struct {
		uint8_t syndrome;
		uint32_t msn;
	} aeth;
	struct {
		uint32_t qkey;
		uint32_t src_qp;
	} deth;
	uint32_t imm;		/* ImmDt */
	uint32_t inv_rkey;	/* IETH */
	struct {
		uint64_t va;
		uint32_t rkey;
		uint64_t swap_add;
		uint64_t compare;
	} atomic;
	uint64_t atomic_orig;	/* AtomicAckETH */
	struct {
		uint8_t placement;	/* FW_FETH_PLT_* */
		uint8_t level;		/* FW_FETH_SEL_* */
	} feth;
};

/* The UDP source port convention of the Linux RDMA stack (rdma_rxe and
 * the hardware drivers): a 20-bit flow label, computed from the QPN pair
 * when zero, folded into 14 bits above 0xc000.  Symmetric in the QPNs.
 */
uint16_t fw_roce_udp_sport(uint32_t flow_label, uint32_t lqpn, uint32_t rqpn);

/* An IPv4 address as a GID: these 12 bytes, then the address */
extern const uint8_t fw_roce_ipv4_prefix[12];
bool fw_roce_gid_is_ipv4(const uint8_t gid[16]);

/*
 * A frame under construction: fw_roce_frame_init() writes every header
 * for a payload of payload_len bytes, the caller puts the payload at
 * buf + payload_off (e.g. by DMA), fw_roce_frame_seal() adds pad, the
 * IPv6 UDP checksum, the ICRC and the Ethernet minimum-size padding.
 * Seal only a frame whose init returned 0.
 */
struct fw_roce_frame {
	uint8_t *buf;
	size_t ip_off;
	size_t udp_off;
	size_t bth_off;
	size_t payload_off;
	size_t payload_len;
	size_t icrc_off;	/* after payload and pad */
	size_t len;		/* frame length (no FCS) */
	bool ipv6;
	bool udp_csum;		/* compute the UDP checksum on seal */
};

/* 0, or -1 if h is not a valid frame (unknown opcode, payload on an
 * opcode without one, field out of range, mixed address families) or the
 * frame would not fit in cap bytes.
 */
int fw_roce_frame_init(struct fw_roce_frame *f, uint8_t *buf, size_t cap,
		       const struct fw_roce_hdrs *h, size_t payload_len);
void fw_roce_frame_seal(struct fw_roce_frame *f);

/* Why a received frame is not a RoCEv2 packet for the transport */
enum fw_roce_drop {
	FW_ROCE_OK = 0,
	FW_ROCE_DROP_ETH_SHORT,		/* no room for Ethernet (+ VLAN) header */
	FW_ROCE_DROP_ETHERTYPE,		/* not IPv4/IPv6 behind at most one tag */
	FW_ROCE_DROP_IPV4_SHORT,	/* less than an IPv4 header */
	FW_ROCE_DROP_IPV4_VERSION,
	FW_ROCE_DROP_IPV4_IHL,		/* IHL < 5 */
	FW_ROCE_DROP_IPV4_LENGTH,	/* total length vs header or frame */
	FW_ROCE_DROP_IPV4_CHECKSUM,
	FW_ROCE_DROP_IPV4_FRAGMENT,	/* MF set or fragment offset != 0 */
	FW_ROCE_DROP_IPV6_SHORT,	/* less than an IPv6 header */
	FW_ROCE_DROP_IPV6_VERSION,
	FW_ROCE_DROP_IPV6_LENGTH,	/* payload length beyond the frame */
	FW_ROCE_DROP_IP_PROTO,		/* not UDP (IPv6: as next header) */
	FW_ROCE_DROP_UDP_SHORT,		/* IP payload shorter than UDP header */
	FW_ROCE_DROP_UDP_PORT,		/* destination port not 4791 */
	FW_ROCE_DROP_UDP_LENGTH,	/* UDP length != IP payload length */
	FW_ROCE_DROP_UDP_CHECKSUM,	/* non-zero and wrong */
	FW_ROCE_DROP_BTH_SHORT,		/* no room for BTH and ICRC */
	FW_ROCE_DROP_TVER,		/* transport header version not 0 */
	FW_ROCE_DROP_OPCODE,		/* opcode the device does not speak */
	FW_ROCE_DROP_EXT_SHORT,		/* no room for the opcode's headers */
	FW_ROCE_DROP_PAD,		/* pad count/length not consistent */
	FW_ROCE_DROP_ICRC,
	FW_ROCE_DROP_NUM
};

/* A validated frame; the pointers point into the frame, NULL when the
 * opcode does not carry that header.
 */
struct fw_roce_pkt {
	const uint8_t *frame;
	const struct fw_roce_opcode_info *op;
	const uint8_t *ip;
	const uint8_t *udp;
	const struct fw_roce_bth *bth;
	const struct fw_roce_deth *deth;
	const struct fw_roce_reth *reth;
	const struct fw_roce_atomic_eth *atomic_eth;
	const struct fw_roce_aeth *aeth;
	const struct fw_roce_atomic_ack_eth *atomic_ack_eth;
	const struct fw_roce_immdt *immdt;
	const struct fw_roce_ieth *ieth;
	const struct fw_roce_feth *feth;
	const uint8_t *payload;
	size_t payload_len;	/* without pad and ICRC */
	size_t ip_hlen;		/* IPv4 with options: > 20 */
	size_t pkt_len;		/* IP header to end of ICRC */
	bool ipv6;
	bool vlan;
	uint16_t vlan_tci;
	uint32_t icrc;
	/* a packet of an InfiniBand link (fw_ib_parse()): its LRH, and its
	 * GRH if it has one; frame, ip and udp are then NULL.  NULL both
	 * for a RoCEv2 frame.
	 */
	const uint8_t *lrh;
	const uint8_t *grh;
};

/*
 * Reads nothing outside frame[0, len); pkt is valid only on FW_ROCE_OK,
 * but for pkt->bth: a frame dropped once its BTH was found (TVER,
 * OPCODE, EXT_SHORT, PAD, ICRC) has it there as received, else NULL.
 */
enum fw_roce_drop fw_roce_parse(const uint8_t *frame, size_t len,
				struct fw_roce_pkt *pkt);

/*
 * The port's steering, before fw_roce_parse() checks every byte: the
 * destination IP of an IPv4 (unfragmented) or IPv6 UDP datagram to port
 * 4791 behind at most one VLAN tag, as a GID (IPv4 as ::ffff:a.b.c.d).
 * false if the frame is no such datagram.  Reads nothing outside
 * frame[0, len).
 */
bool fw_roce_frame_dgid(const uint8_t *frame, size_t len, uint8_t gid[16]);

/*
 * The transport headers on their own, for the native InfiniBand wire
 * format (fw_ib_wire.h), which puts the same BTH and extension headers
 * behind an LRH (and GRH) instead of IP and UDP.
 *
 * fw_roce_put_transport: the BTH (pad count pad) and the extension
 * headers op (the opcode of h) carries, from h, at p; returns the bytes
 * written (op->hdr_len).
 */
size_t fw_roce_put_transport(uint8_t *p, const struct fw_roce_hdrs *h,
			     const struct fw_roce_opcode_info *op,
			     unsigned int pad);

/*
 * fw_roce_check_transport: validates the transport headers, payload and
 * pad in bth[0, len) (len >= FW_ROCE_BTH_LEN, the ICRC not included):
 * FW_ROCE_OK and *op, or TVER, OPCODE, EXT_SHORT or PAD.  Reads nothing
 * outside bth[0, len).
 */
enum fw_roce_drop
fw_roce_check_transport(const uint8_t *bth, size_t len,
			const struct fw_roce_opcode_info **op);

/* After fw_roce_check_transport() passed: the BTH, extension header and
 * payload pointers of pkt, payload_len and op; nothing else of pkt.
 */
void fw_roce_point_transport(const uint8_t *bth, size_t len,
			     const struct fw_roce_opcode_info *op,
			     struct fw_roce_pkt *pkt);

/* ------------------------------------------------------------------ */
/* CRCs (fw_icrc.c)                                                    */
/* ------------------------------------------------------------------ */

/* CRC-32 of IEEE 802.3, bit-reflected (polynomial 0xedb88320), without
 * the initial and final inversion: the same as Linux's crc32_le().
 */
uint32_t fw_crc32_le(uint32_t crc, const void *buf, size_t len);

/* crc32_le(0xffffffff) over the 8 bytes of 0xff that stand for the
 * masked LRH of an InfiniBand packet: where a RoCEv2 ICRC starts.
 */
#define FW_ROCE_ICRC_SEED		0xdebb20e3u

/*
 * ICRC of a RoCEv2 packet: pkt points at its IP header and spans
 * pkt_len bytes up to and including the 4 ICRC bytes, which are not
 * read.  Masked as invariant fields: IPv4 TOS, TTL and header checksum,
 * IPv6 traffic class, flow label and hop limit, the UDP checksum and BTH
 * byte 4.  The value is stored little endian in the last 4 bytes.
 * ip_hlen is the IP header length (IPv4 options included); the caller
 * guarantees pkt_len >= ip_hlen + UDP + BTH + ICRC.
 */
uint32_t fw_roce_icrc(const uint8_t *pkt, size_t ip_hlen, size_t pkt_len);

#endif /* FW_ROCE_WIRE_H */
