// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Native InfiniBand packets: the builder and the parser that validates
 * every received byte before the transport sees it.  The transport
 * headers are the RoCEv2 layer's (fw_roce_put_transport(),
 * fw_roce_check_transport()); what is InfiniBand's own is the LRH, the
 * GRH, the two CRCs and the subnet management lane's rule: VL15 carries
 * QP0 (subnet management) traffic, and QP0 traffic travels on VL15
 * only.
 *
 * The checks run in the order a link, then a channel adapter, would
 * apply them: length and VCRC first (a damaged packet says nothing
 * reliable), then the headers, the lane rule, the ICRC last (it costs a
 * pass over the payload).
 */
#include <string.h>

#include "fw_ib_wire.h"

/* ------------------------------------------------------------------ */
/* Builder                                                             */
/* ------------------------------------------------------------------ */

static bool fw_ib_on_vl15(unsigned int vl)
{
	return vl == FW_IB_VL15;
}

static bool fw_ib_to_qp0(uint32_t dest_qp)
{
	return dest_qp == FW_IB_QP0;
}

/* A source is one port: never the reserved LID or a multicast group.
 * The permissive LID stands for a port that has none yet, which only
 * subnet management (VL15) may send from.
 */
static bool fw_ib_slid_valid(uint16_t slid, unsigned int vl)
{
	if (slid == FW_IB_LID_PERMISSIVE)
		return fw_ib_on_vl15(vl);
	return slid != FW_IB_LID_RESERVED && slid < FW_IB_LID_MCAST_MIN;
}

static bool fw_ib_hdrs_valid(const struct fw_ib_hdrs *h,
			     const struct fw_roce_opcode_info *op,
			     size_t payload_len)
{
	const struct fw_roce_hdrs *t = &h->xport;

	if (!op)
		return false;
	if (payload_len && !(op->flags & FW_ROCE_HAS_PAYLOAD))
		return false;
	if (h->vl > FW_IB_VL_MAX || h->sl > FW_IB_SL_MAX ||
	    !fw_ib_slid_valid(h->slid, h->vl))
		return false;
	/* the parser's lane rule, both ways */
	if (fw_ib_on_vl15(h->vl) != fw_ib_to_qp0(t->dest_qp))
		return false;
	return t->dest_qp <= FW_ROCE_QPN_MASK && t->psn <= FW_ROCE_PSN_MASK &&
	       t->flow_label <= FW_GRH_FLOW_LABEL_MASK &&
	       t->feth.placement <= FW_FETH_PLT_MASK &&
	       t->feth.level <= FW_FETH_SEL_MASK >> FW_FETH_SEL_SHIFT &&
	       t->aeth.msn <= 0xffffffu && t->deth.src_qp <= FW_ROCE_QPN_MASK;
}

int fw_ib_frame_init(struct fw_ib_frame *f, uint8_t *buf, size_t cap,
		     const struct fw_ib_hdrs *h, size_t payload_len)
{
	const struct fw_roce_hdrs *t = &h->xport;
	const struct fw_roce_opcode_info *op = fw_roce_opcode_info(t->opcode);
	size_t pad = (4 - payload_len % 4) % 4;
	size_t off = FW_IB_LRH_LEN, icrc_end;

	memset(f, 0, sizeof(*f));
	if (!fw_ib_hdrs_valid(h, op, payload_len))
		return -1;
	/* PktLen bounds the packet (and so PayLen) */
	if (payload_len > FW_IB_PKTLEN_MAX * 4)
		return -1;
	icrc_end = FW_IB_LRH_LEN + (h->global ? FW_IB_GRH_LEN : 0) +
		   op->hdr_len + payload_len + pad + FW_IB_ICRC_LEN;
	if (icrc_end / 4 > FW_IB_PKTLEN_MAX ||
	    icrc_end + FW_IB_VCRC_LEN > cap)
		return -1;

	fw_lrh_set((struct fw_ib_lrh *)buf, h->vl, h->sl,
		   h->global ? FW_IB_LNH_GLOBAL : FW_IB_LNH_LOCAL, h->dlid,
		   (unsigned int)(icrc_end / 4), h->slid);
	f->buf = buf;
	f->global = h->global;
	if (h->global) {
		f->grh_off = off;
		fw_grh_set((struct fw_ib_grh *)(buf + off), t->traffic_class,
			   t->flow_label,
			   (uint16_t)(icrc_end - off - FW_IB_GRH_LEN),
			   t->hop_limit, t->sgid, t->dgid);
		off += FW_IB_GRH_LEN;
	}
	f->bth_off = off;
	off += fw_roce_put_transport(buf + off, t, op, (unsigned int)pad);
	f->payload_off = off;
	f->payload_len = payload_len;
	f->icrc_off = off + payload_len + pad;
	f->vcrc_off = icrc_end;
	f->len = icrc_end + FW_IB_VCRC_LEN;
	return 0;
}

void fw_ib_frame_seal(struct fw_ib_frame *f)
{
	size_t pad_off = f->payload_off + f->payload_len;
	uint8_t *icrc = f->buf + f->icrc_off;
	uint8_t *vcrc = f->buf + f->vcrc_off;
	uint32_t ic;
	uint16_t vc;

	memset(f->buf + pad_off, 0, f->icrc_off - pad_off);
	ic = fw_ib_icrc(f->buf, f->vcrc_off);
	icrc[0] = (uint8_t)ic;
	icrc[1] = (uint8_t)(ic >> 8);
	icrc[2] = (uint8_t)(ic >> 16);
	icrc[3] = (uint8_t)(ic >> 24);
	/* after the ICRC, which it covers */
	vc = fw_ib_vcrc(f->buf, f->vcrc_off);
	vcrc[0] = (uint8_t)vc;
	vcrc[1] = (uint8_t)(vc >> 8);
}

/* ------------------------------------------------------------------ */
/* Parser                                                              */
/* ------------------------------------------------------------------ */

/* The transport's reasons, under the InfiniBand names */
static enum fw_ib_drop fw_ib_transport_drop(enum fw_roce_drop r)
{
	switch (r) {
	case FW_ROCE_DROP_TVER:
		return FW_IB_DROP_TVER;
	case FW_ROCE_DROP_OPCODE:
		return FW_IB_DROP_OPCODE;
	case FW_ROCE_DROP_EXT_SHORT:
		return FW_IB_DROP_EXT_SHORT;
	case FW_ROCE_DROP_PAD:
		return FW_IB_DROP_PAD;
	case FW_ROCE_OK:
		return FW_IB_OK;
	default:
		/* the transport check returns no other: drop all the same */
		return FW_IB_DROP_OPCODE;
	}
}

/* The GRH at pkt + FW_IB_LRH_LEN, of a packet of icrc_end bytes up to
 * its ICRC.
 */
static enum fw_ib_drop fw_ib_parse_grh(const struct fw_ib_grh *grh,
				       size_t icrc_end)
{
	if (icrc_end < FW_IB_LRH_LEN + FW_IB_GRH_LEN + FW_ROCE_BTH_LEN +
		       FW_IB_ICRC_LEN)
		return FW_IB_DROP_GRH_SHORT;
	if (fw_grh_ipver(grh) != FW_IB_GRH_IPVER)
		return FW_IB_DROP_GRH_VERSION;
	if (fw_grh_nxthdr(grh) != FW_IB_GRH_NXTHDR_IBA)
		return FW_IB_DROP_GRH_NXTHDR;
	if (fw_grh_paylen(grh) != icrc_end - FW_IB_LRH_LEN - FW_IB_GRH_LEN)
		return FW_IB_DROP_GRH_PAYLEN;
	return FW_IB_OK;
}

enum fw_ib_drop fw_ib_parse(const uint8_t *pkt, size_t len,
			    struct fw_ib_pkt *out)
{
	const struct fw_roce_opcode_info *op = NULL;
	const struct fw_ib_lrh *lrh;
	size_t icrc_end, off;
	enum fw_ib_drop r;
	unsigned int lnh;
	const uint8_t *p;
	uint32_t dest_qp;

	memset(out, 0, sizeof(*out));
	out->pkt = pkt;
	if (len < FW_IB_LRH_LEN + FW_IB_VCRC_LEN)
		return FW_IB_DROP_SHORT;
	lrh = (const struct fw_ib_lrh *)pkt;
	out->lrh = lrh;
	if (fw_lrh_lver(lrh) != FW_IB_LVER)
		return FW_IB_DROP_LVER;
	/* the link delivers exactly one packet: no trailing bytes */
	icrc_end = (size_t)fw_lrh_pktlen(lrh) * 4;
	if (icrc_end < FW_IB_LRH_LEN || icrc_end + FW_IB_VCRC_LEN != len)
		return FW_IB_DROP_PKTLEN;
	p = pkt + icrc_end;
	out->vcrc = (uint16_t)(p[0] | p[1] << 8);
	if (fw_ib_vcrc(pkt, icrc_end) != out->vcrc)
		return FW_IB_DROP_VCRC;

	lnh = fw_lrh_lnh(lrh);
	if (lnh != FW_IB_LNH_LOCAL && lnh != FW_IB_LNH_GLOBAL)
		return FW_IB_DROP_LNH;
	if (!fw_ib_slid_valid(fw_lrh_slid(lrh), fw_lrh_vl(lrh)))
		return FW_IB_DROP_SLID;
	off = FW_IB_LRH_LEN;
	if (lnh == FW_IB_LNH_GLOBAL) {
		out->grh = (const struct fw_ib_grh *)(pkt + off);
		r = fw_ib_parse_grh(out->grh, icrc_end);
		if (r != FW_IB_OK)
			return r;
		off += FW_IB_GRH_LEN;
	}

	if (icrc_end < off + FW_ROCE_BTH_LEN + FW_IB_ICRC_LEN)
		return FW_IB_DROP_BTH_SHORT;
	out->xport.bth = (const struct fw_roce_bth *)(pkt + off);
	r = fw_ib_transport_drop(fw_roce_check_transport(pkt + off,
							 icrc_end - off -
							 FW_IB_ICRC_LEN,
							 &op));
	if (r != FW_IB_OK)
		return r;

	dest_qp = fw_bth_dest_qp(out->xport.bth);
	if (fw_ib_on_vl15(fw_lrh_vl(lrh)) && !fw_ib_to_qp0(dest_qp))
		return FW_IB_DROP_VL15;
	if (!fw_ib_on_vl15(fw_lrh_vl(lrh)) && fw_ib_to_qp0(dest_qp))
		return FW_IB_DROP_QP0_VL;

	p = pkt + icrc_end - FW_IB_ICRC_LEN;
	out->xport.icrc = (uint32_t)p[0] | (uint32_t)p[1] << 8 |
			  (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
	out->xport.pkt_len = icrc_end;
	if (fw_ib_icrc(pkt, icrc_end) != out->xport.icrc)
		return FW_IB_DROP_ICRC;

	fw_roce_point_transport(pkt + off, icrc_end - off - FW_IB_ICRC_LEN,
				op, &out->xport);
	out->xport.lrh = pkt;
	out->xport.grh = (const uint8_t *)out->grh;
	out->len = len;
	return FW_IB_OK;
}
