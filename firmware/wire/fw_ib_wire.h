/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Native InfiniBand wire layer: the packets of an InfiniBand link (IBTA
 * vol. 1 ch. 5-7), the same transport headers as RoCEv2 behind a Local
 * Route Header instead of Ethernet, IP and UDP:
 *
 *   LRH | [GRH] | BTH | extension headers | payload | pad to 4 bytes |
 *   ICRC (4 bytes) | VCRC (2 bytes)
 *
 * The GRH is there when the LRH's Link Next Header says "IBA global".
 * The BTH and the extension headers are those of fw_roce_wire.h, built
 * and checked by the same code (fw_roce_put_transport(),
 * fw_roce_check_transport()).  Two CRCs: the ICRC covers what no switch
 * or router changes (the fields they may rewrite count as ones), the
 * VCRC covers every byte from the LRH to the ICRC and is recomputed by
 * every hop.  Both are stored least significant byte first, the order
 * in which a reflected CRC leaves the shift register (as the RoCEv2
 * ICRC and the Ethernet FCS); for the VCRC that is the ICRC's analogy,
 * not yet checked against a real link (tests/wire/vectors/README.md).
 *
 * fw_ib_frame_init() and fw_ib_frame_seal() write a packet from a
 * struct fw_ib_hdrs, fw_ib_parse() validates every byte of a received
 * one and either describes it or names why it is dropped.
 * Self-contained like the RoCEv2 layer: no device state, no HAL.
 */
#ifndef FW_IB_WIRE_H
#define FW_IB_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fw_roce_wire.h"

#define FW_IB_LRH_LEN			8
#define FW_IB_GRH_LEN			40
#define FW_IB_ICRC_LEN			FW_ROCE_ICRC_LEN
#define FW_IB_VCRC_LEN			2
/* LRH.PktLen counts 4-byte words from the LRH to the ICRC, in 11 bits */
#define FW_IB_PKTLEN_MAX		0x7ff
/* The longest packet: PktLen's words and the VCRC */
#define FW_IB_MAX_PKT_LEN		(FW_IB_PKTLEN_MAX * 4 + FW_IB_VCRC_LEN)

#define FW_IB_LVER			0	/* link version of IBTA 1.x */
#define FW_IB_VL_MAX			15
#define FW_IB_SL_MAX			15
/* VL15 is the subnet management lane: it carries QP0 traffic only */
#define FW_IB_VL15			15
#define FW_IB_QP0			0
/* LIDs: 0 is reserved, 0xc000..0xfffe multicast, 0xffff permissive */
#define FW_IB_LID_RESERVED		0x0000
#define FW_IB_LID_MCAST_MIN		0xc000
#define FW_IB_LID_PERMISSIVE		0xffff

/* GRH: IPv6-like, IPVer 6; NxtHdr 0x1b says an IBA transport header */
#define FW_IB_GRH_IPVER			6
#define FW_IB_GRH_NXTHDR_IBA		0x1b

/* Link Next Header: what follows the LRH */
enum fw_ib_lnh {
	FW_IB_LNH_RAW		= 0,	/* raw packet (no BTH, no ICRC) */
	FW_IB_LNH_IP		= 1,	/* raw IPv6 */
	FW_IB_LNH_LOCAL		= 2,	/* BTH */
	FW_IB_LNH_GLOBAL	= 3,	/* GRH, then BTH */
};

/* ------------------------------------------------------------------ */
/* Local Route Header                                                  */
/* ------------------------------------------------------------------ */

/* VL (4) | LVer (4) | SL (4) | 2 reserved | LNH (2) | DLID (16) |
 * 5 reserved | PktLen (11) | SLID (16)
 */
struct fw_ib_lrh {
	uint8_t vl_lver;
	uint8_t sl_lnh;
	uint8_t dlid[2];
	uint8_t pktlen[2];
	uint8_t slid[2];
};

#define FW_LRH_VL_SHIFT			4
#define FW_LRH_LVER_MASK		0x0f
#define FW_LRH_SL_SHIFT			4
#define FW_LRH_LNH_MASK			0x03
#define FW_LRH_PKTLEN_MASK		0x07ff

static inline unsigned int fw_lrh_vl(const struct fw_ib_lrh *l)
{
	return l->vl_lver >> FW_LRH_VL_SHIFT;
}

static inline unsigned int fw_lrh_lver(const struct fw_ib_lrh *l)
{
	return l->vl_lver & FW_LRH_LVER_MASK;
}

static inline unsigned int fw_lrh_sl(const struct fw_ib_lrh *l)
{
	return l->sl_lnh >> FW_LRH_SL_SHIFT;
}

static inline unsigned int fw_lrh_lnh(const struct fw_ib_lrh *l)
{
	return l->sl_lnh & FW_LRH_LNH_MASK;
}

static inline uint16_t fw_lrh_dlid(const struct fw_ib_lrh *l)
{
	return fw_wire_get16(l->dlid);
}

/* In 4-byte words, LRH to ICRC */
static inline unsigned int fw_lrh_pktlen(const struct fw_ib_lrh *l)
{
	return fw_wire_get16(l->pktlen) & FW_LRH_PKTLEN_MASK;
}

static inline uint16_t fw_lrh_slid(const struct fw_ib_lrh *l)
{
	return fw_wire_get16(l->slid);
}

/* Reserved bits are sent as zero */
static inline void fw_lrh_set(struct fw_ib_lrh *l, unsigned int vl,
			      unsigned int sl, enum fw_ib_lnh lnh,
			      uint16_t dlid, unsigned int pktlen, uint16_t slid)
{
	l->vl_lver = (uint8_t)((vl & 0xf) << FW_LRH_VL_SHIFT | FW_IB_LVER);
	l->sl_lnh = (uint8_t)((sl & 0xf) << FW_LRH_SL_SHIFT |
			      ((unsigned int)lnh & FW_LRH_LNH_MASK));
	fw_wire_put16(l->dlid, dlid);
	fw_wire_put16(l->pktlen, (uint16_t)(pktlen & FW_LRH_PKTLEN_MASK));
	fw_wire_put16(l->slid, slid);
}

/* ------------------------------------------------------------------ */
/* Global Route Header                                                 */
/* ------------------------------------------------------------------ */

/* IPVer (4) | TClass (8) | FlowLabel (20) | PayLen (16) | NxtHdr (8) |
 * HopLmt (8) | SGID (128) | DGID (128)
 */
struct fw_ib_grh {
	uint8_t ver_tc_flow[4];
	uint8_t paylen[2];
	uint8_t nxthdr;
	uint8_t hoplmt;
	uint8_t sgid[16];
	uint8_t dgid[16];
};

#define FW_GRH_IPVER_SHIFT		28
#define FW_GRH_TCLASS_SHIFT		20
#define FW_GRH_TCLASS_MASK		0xff
#define FW_GRH_FLOW_LABEL_MASK		0xfffffu

static inline unsigned int fw_grh_ipver(const struct fw_ib_grh *g)
{
	return g->ver_tc_flow[0] >> 4;
}

static inline uint8_t fw_grh_tclass(const struct fw_ib_grh *g)
{
	return (uint8_t)(fw_wire_get32(g->ver_tc_flow) >> FW_GRH_TCLASS_SHIFT);
}

static inline uint32_t fw_grh_flow_label(const struct fw_ib_grh *g)
{
	return fw_wire_get32(g->ver_tc_flow) & FW_GRH_FLOW_LABEL_MASK;
}

/* Bytes after the GRH up to and including the ICRC */
static inline uint16_t fw_grh_paylen(const struct fw_ib_grh *g)
{
	return fw_wire_get16(g->paylen);
}

static inline uint8_t fw_grh_nxthdr(const struct fw_ib_grh *g)
{
	return g->nxthdr;
}

static inline uint8_t fw_grh_hoplmt(const struct fw_ib_grh *g)
{
	return g->hoplmt;
}

static inline void fw_grh_set(struct fw_ib_grh *g, uint8_t tclass,
			      uint32_t flow_label, uint16_t paylen,
			      uint8_t hoplmt, const uint8_t sgid[16],
			      const uint8_t dgid[16])
{
	fw_wire_put32(g->ver_tc_flow,
		      (uint32_t)FW_IB_GRH_IPVER << FW_GRH_IPVER_SHIFT |
		      (uint32_t)tclass << FW_GRH_TCLASS_SHIFT |
		      (flow_label & FW_GRH_FLOW_LABEL_MASK));
	fw_wire_put16(g->paylen, paylen);
	g->nxthdr = FW_IB_GRH_NXTHDR_IBA;
	g->hoplmt = hoplmt;
	memcpy(g->sgid, sgid, 16);
	memcpy(g->dgid, dgid, 16);
}

_Static_assert(sizeof(struct fw_ib_lrh) == FW_IB_LRH_LEN, "LRH");
_Static_assert(sizeof(struct fw_ib_grh) == FW_IB_GRH_LEN, "GRH");

/* ------------------------------------------------------------------ */
/* Packets                                                             */
/* ------------------------------------------------------------------ */

/*
 * Every field of an InfiniBand packet that is not derived (PktLen,
 * PayLen, pad count, ICRC, VCRC), in host order.  The transport part is
 * a struct fw_roce_hdrs: its BTH and extension header fields, and for a
 * global packet its GRH fields (sgid, dgid, traffic_class, flow_label,
 * hop_limit); its Ethernet, IP and UDP fields are not used.
 */
struct fw_ib_hdrs {
	uint8_t vl;		/* 0..15; 15 only to QP0 */
	uint8_t sl;		/* 0..15 */
	uint16_t dlid;
	uint16_t slid;
	bool global;		/* a GRH (LNH "IBA global") */
	struct fw_roce_hdrs xport;
};

/*
 * A packet under construction, as for RoCEv2 frames: init writes every
 * header for payload_len bytes of payload, the caller puts the payload
 * at buf + payload_off, seal adds pad, ICRC and VCRC.  Offsets from the
 * LRH at buf[0]; grh_off is 0 for a local packet.  Seal only a packet
 * whose init returned 0.
 */
struct fw_ib_frame {
	uint8_t *buf;
	size_t grh_off;
	size_t bth_off;
	size_t payload_off;
	size_t payload_len;
	size_t icrc_off;	/* after payload and pad */
	size_t vcrc_off;
	size_t len;		/* LRH to VCRC */
	bool global;
};

/* 0, or -1 if h is not a valid packet (unknown opcode, payload on an
 * opcode without one, field out of range, VL15 not to QP0 or QP0 not
 * on VL15, an SLID the parser drops), it would be longer than PktLen
 * can say, or it would not fit in cap bytes.
 */
int fw_ib_frame_init(struct fw_ib_frame *f, uint8_t *buf, size_t cap,
		     const struct fw_ib_hdrs *h, size_t payload_len);
void fw_ib_frame_seal(struct fw_ib_frame *f);

/* Why a received packet is not one for the transport */
enum fw_ib_drop {
	FW_IB_OK = 0,
	FW_IB_DROP_SHORT,		/* less than LRH and VCRC */
	FW_IB_DROP_LVER,		/* link version not 0 */
	FW_IB_DROP_PKTLEN,		/* PktLen words + VCRC != length */
	FW_IB_DROP_VCRC,
	FW_IB_DROP_LNH,			/* raw or IP: not for the transport */
	FW_IB_DROP_SLID,		/* SLID 0 or multicast, or permissive
					 * off VL15
					 */
	FW_IB_DROP_GRH_SHORT,		/* no room for GRH, BTH and ICRC */
	FW_IB_DROP_GRH_VERSION,		/* IPVer not 6 */
	FW_IB_DROP_GRH_NXTHDR,		/* next header not IBA transport */
	FW_IB_DROP_GRH_PAYLEN,		/* PayLen vs PktLen */
	FW_IB_DROP_BTH_SHORT,		/* no room for BTH and ICRC */
	FW_IB_DROP_TVER,		/* transport header version not 0 */
	FW_IB_DROP_OPCODE,		/* opcode the device does not speak */
	FW_IB_DROP_EXT_SHORT,		/* no room for the opcode's headers */
	FW_IB_DROP_PAD,			/* pad count/length not consistent */
	FW_IB_DROP_VL15,		/* on VL15 but not to QP0 */
	FW_IB_DROP_QP0_VL,		/* to QP0 but not on VL15 */
	FW_IB_DROP_ICRC,
	FW_IB_DROP_NUM
};

/* A validated packet; the pointers point into it.  xport describes the
 * transport headers as fw_roce_parse() would (bth, op, the extension
 * headers, payload, payload_len, icrc; pkt_len counts from the LRH to
 * the ICRC; lrh and grh point at the LRH and GRH); its frame, ip and
 * udp are NULL.
 */
struct fw_ib_pkt {
	const uint8_t *pkt;
	const struct fw_ib_lrh *lrh;
	const struct fw_ib_grh *grh;	/* NULL for a local packet */
	struct fw_roce_pkt xport;
	size_t len;			/* LRH to VCRC */
	uint16_t vcrc;
};

/*
 * Reads nothing outside pkt[0, len); out is valid only on FW_IB_OK, but
 * for out->lrh (set once len covers an LRH) and out->xport.bth (set
 * once the BTH was found).
 */
enum fw_ib_drop fw_ib_parse(const uint8_t *pkt, size_t len,
			    struct fw_ib_pkt *out);

/* ------------------------------------------------------------------ */
/* CRCs (fw_icrc.c)                                                    */
/* ------------------------------------------------------------------ */

/*
 * ICRC of an InfiniBand packet: pkt points at its LRH and spans len
 * bytes up to and including the 4 ICRC bytes, which are not read (the
 * VCRC is not part of len).  Counted as ones: the LRH's VL (a local
 * packet) or the whole LRH (a global packet, whose LRH routers rewrite),
 * the GRH's traffic class, flow label and hop limit, and BTH byte 4.
 * The LNH of pkt says whether a GRH follows.  The caller guarantees len
 * >= LRH [+ GRH] + BTH + ICRC.
 */
uint32_t fw_ib_icrc(const uint8_t *pkt, size_t len);

/*
 * CRC-16 of the VCRC (polynomial x^16 + x^12 + x^3 + x + 1, 0x100b,
 * processed bit-reflected like the CRC-32), without the initial and
 * final inversion; fw_ib_vcrc() is the VCRC over pkt[0, len), LRH to
 * ICRC: seeded 0xffff, inverted at the end.
 */
uint16_t fw_crc16_ib(uint16_t crc, const void *buf, size_t len);
uint16_t fw_ib_vcrc(const uint8_t *pkt, size_t len);

#endif /* FW_IB_WIRE_H */
