// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * libFuzzer harness: frames from the wire into a device with RC, UC, UD
 * (in a multicast group) and SRQ-attached QPs, MRs and two bound windows,
 * whose RC QP has a SEND, a READ and an atomic outstanding (so that
 * responses have a requester to reach).  The peer is imaginary.
 *
 * Input: a mode byte, then records.  With FIXUP in the mode every frame
 * is made to reach the transport: Ethernet/IPv4/UDP headers, lengths and
 * checksums, the pad count, the destination QPN (one of the QPs or the
 * multicast QPN, with the opcode's transport to match), the PSN (near
 * what the QP expects), the R_Key/Q_Key fields and the ICRC are rewritten
 * from what the input holds there.  Without it frames go in as they are.
 * With IB in the mode the device has an InfiniBand port and the frames
 * are InfiniBand packets; FIXUP then writes the LRH (to the device's LID
 * or, for QP0 on VL15, the permissive one, from the peer's), the GRH if
 * the LRH asks for one, the same transport fields, the ICRC and the VCRC.
 * With IWARP in the mode the device has an iWARP port, a listener and two
 * connections (RC QPs in RTS, one on the SRQ) that another device opened
 * and then fell silent; the frames are TCP segments from that peer.
 * FIXUP then makes each one a correct segment (ports of a connection, of
 * the listener or any, sequence and acknowledgement numbers chosen
 * against the connection's state, IPv4 and TCP checksums), its payload
 * optionally framed as an MPA FPDU from fields (DDP/RDMAP header, STag
 * and TO, MSN and MO near what the QP expects, CRC good or bad), and
 * optionally cut in two segments, reordered or truncated.
 *
 * Checked: sanitizers, the checking HAL of the fixture (no DMA outside
 * the MRs and rings, nothing sent from memory nobody gave), and the
 * device still answers its driver.  In IWARP mode also: the iWARP
 * counters never go back, every segment to a connection's or the
 * listener's port is taken by the stack, and a forged RST or a segment
 * outside the receive window is counted as such.
 */
#include <string.h>

#include <stdlib.h>

#include "objects/fw_qp.h"
#include "tcp/fw_tcp.h"
#include "wire/fw_roce_wire.h"
#include "wire/fw_ib_wire.h"
#include "wire/fw_iw_wire.h"
#include "fixture.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MODE_FIXUP		0x01
#define MODE_IB			0x02
#define MODE_IWARP		0x04
#define FRAME_CAP		9300
#define PEER			0

enum { REC_FRAME, REC_FRAME2, REC_TIME, REC_REPOST, REC_NUM };

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* The Internet checksum of p, continuing sum */
static uint16_t csum(uint32_t sum, const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static uint16_t ip_csum(const uint8_t *p, size_t len)
{
	return csum(0, p, len);
}

static void seal(uint8_t *f, size_t l3, size_t ip_hlen, size_t len)
{
	uint32_t icrc = fw_roce_icrc(f + l3, ip_hlen, len - l3);

	f[len - 4] = (uint8_t)icrc;
	f[len - 3] = (uint8_t)(icrc >> 8);
	f[len - 2] = (uint8_t)(icrc >> 16);
	f[len - 1] = (uint8_t)(icrc >> 24);
}

static uint32_t pick_key(const struct fz_dev *v, uint32_t old)
{
	const uint32_t keys[] = { v->key_all, v->key_lw, v->key_bind,
				  v->mw1, v->mw2, v->key_all };

	return (old & 0xf0) == 0xf0 ? old : keys[old % 6];
}

static void fix_keys(struct fz_dev *v, uint8_t *f,
		     const struct fw_roce_pkt *p);

/* Returns the new length (never more than len). */
static size_t fixup(struct fz_dev *v, uint8_t *f, size_t len)
{
	const struct fw_roce_opcode_info *op;
	size_t l3 = 14, ip_hlen, bth, padded;
	unsigned int sel, pad;
	uint8_t peer_gid[16], peer_mac[6], *ip, *udp;
	struct fw_roce_pkt pkt;
	struct fw_qp *qp;
	uint32_t qpn, psn, base;
	int delta;

	if (len < 14 + 20 + 8 + 12 + 4)
		return len;
	fz_gid(PEER, peer_gid);
	fz_mac(PEER, peer_mac);
	if (f[12] == 0x81 && f[13] == 0x00)
		l3 += 4;		/* keep the tag: VLANs are for the device to judge */
	put16(f + l3 - 2, 0x0800);
	ip = f + l3;
	ip_hlen = (ip[0] & 15) < 5 ? 20 : (ip[0] & 15) * 4u;
	if (len < l3 + ip_hlen + 8 + 12 + 4)
		ip_hlen = 20;
	if (len < l3 + ip_hlen + 8 + 12 + 4)
		return len;
	ip[0] = (uint8_t)(0x40 | ip_hlen / 4);
	ip[6] &= 0x40;			/* no fragments */
	ip[7] = 0;
	ip[9] = 17;
	memcpy(ip + 12, peer_gid + 12, 4);
	udp = ip + ip_hlen;
	bth = l3 + ip_hlen + 8;

	/* where it goes: one of the QPs or the multicast group */
	sel = fw_wire_get24(f + bth + 5) % (FZ_NQP + 1);
	memcpy(f + 6, peer_mac, 6);
	if (sel == FZ_NQP) {
		memcpy(f, fz_mcast_mac, 6);
		memcpy(ip + 16, fz_mcast_gid + 12, 4);
		qpn = ORDMA_MCAST_QPN;
		f[bth] = (uint8_t)((f[bth] & 0x1f) | FW_ROCE_OPCODE_UD);
	} else {
		memcpy(f, v->mac, 6);
		memcpy(ip + 16, v->gid + 12, 4);
		qpn = v->qpn[sel];
		f[bth] = (uint8_t)((f[bth] & 0x1f) |
				   (sel == FZ_UD ? FW_ROCE_OPCODE_UD :
				    sel == FZ_UC ? FW_ROCE_OPCODE_UC :
						   FW_ROCE_OPCODE_RC));
	}
	f[bth + 1] &= 0xf0;		/* TVer 0 */
	put16(f + bth + 2, 0xffff);	/* default P_Key */
	fw_wire_put24(f + bth + 5, qpn);

	/* PSN: near what the responder expects or the requester waits for */
	op = fw_roce_opcode_info(f[bth]);
	qp = fw_qp_lookup(v->d.fw, qpn);
	if (op && qp) {
		delta = (int8_t)f[bth + 11] / 16;
		base = op->flags & FW_ROCE_REQUEST ? qp->expected_psn :
						     qp->req.una_psn;
		psn = (base + (uint32_t)delta) & 0xffffff;
		fw_wire_put24(f + bth + 9, psn);
	}

	/* whole words, a pad count that fits */
	if (op && len >= bth + op->hdr_len + 4) {
		padded = len - bth - op->hdr_len - 4;
		len -= padded % 4;
		padded -= padded % 4;
		pad = (f[bth + 1] >> 4) & 3;
		if (pad > padded)
			pad = 0;
		f[bth + 1] = (uint8_t)((f[bth + 1] & 0xcf) | pad << 4);
	}
	put16(ip + 2, (uint16_t)(len - l3));
	put16(ip + 10, 0);
	put16(ip + 10, ip_csum(ip, ip_hlen));
	put16(udp + 2, 4791);
	put16(udp + 4, (uint16_t)(len - l3 - ip_hlen));
	put16(udp + 6, 0);
	seal(f, l3, ip_hlen, len);

	/* keys of this device, and the peer's UD QP as the source */
	if (fw_roce_parse(f, len, &pkt) != FW_ROCE_OK)
		return len;
	fix_keys(v, f, &pkt);
	seal(f, l3, ip_hlen, len);
	return len;
}

/* The R_Key, Q_Key and source QP fields of a parsed packet in f */
static void fix_keys(struct fz_dev *v, uint8_t *f, const struct fw_roce_pkt *p)
{
	const struct fw_roce_pkt pkt = *p;

	if (pkt.reth)
		fw_wire_put32(f + ((const uint8_t *)pkt.reth - f) + 8,
			      pick_key(v, fw_reth_rkey(pkt.reth)));
	if (pkt.atomic_eth)
		fw_wire_put32(f + ((const uint8_t *)pkt.atomic_eth - f) + 8,
			      pick_key(v, fw_atomic_eth_rkey(pkt.atomic_eth)));
	if (pkt.ieth)
		fw_wire_put32(f + ((const uint8_t *)pkt.ieth - f),
			      pick_key(v, fw_ieth_rkey(pkt.ieth)));
	if (pkt.deth) {
		uint8_t *d = f + ((const uint8_t *)pkt.deth - f);

		if (fw_deth_qkey(pkt.deth) & 1)
			fw_wire_put32(d, FZ_QKEY);
		fw_wire_put24(d + 5, v->qpn[FZ_UD]);
	}
}

static void ib_seal(uint8_t *f, size_t icrc_end)
{
	uint32_t icrc = fw_ib_icrc(f, icrc_end);
	uint16_t vcrc;

	f[icrc_end - 4] = (uint8_t)icrc;
	f[icrc_end - 3] = (uint8_t)(icrc >> 8);
	f[icrc_end - 2] = (uint8_t)(icrc >> 16);
	f[icrc_end - 1] = (uint8_t)(icrc >> 24);
	vcrc = fw_ib_vcrc(f, icrc_end);
	f[icrc_end] = (uint8_t)vcrc;
	f[icrc_end + 1] = (uint8_t)(vcrc >> 8);
}

/* FIXUP of an InfiniBand packet; returns the new length (<= len). */
static size_t ib_fixup(struct fz_dev *v, uint8_t *f, size_t len)
{
	const struct fw_roce_opcode_info *op;
	size_t bth, icrc_end;
	struct fw_ib_pkt pkt;
	struct fw_qp *qp;
	unsigned int sel, pad, vl;
	uint32_t qpn, base;
	bool global;
	int delta;

	if (len > FW_IB_MAX_PKT_LEN)
		len = FW_IB_MAX_PKT_LEN;
	if (len < FW_IB_LRH_LEN + 12 + 4 + 2)
		return len;
	/* whole words from the LRH to the ICRC */
	len -= (len - 2) % 4;
	icrc_end = len - 2;
	global = (f[1] & 1) && icrc_end >= FW_IB_LRH_LEN + FW_IB_GRH_LEN + 16;
	bth = FW_IB_LRH_LEN + (global ? FW_IB_GRH_LEN : 0);
	vl = f[0] >> 4;

	/* where it goes: QP0 on VL15, or one of the QPs or the group */
	sel = fw_wire_get24(f + bth + 5) % (FZ_NQP + 1);
	if (vl == FW_IB_VL15) {
		qpn = FW_IB_QP0;
		f[bth] = (uint8_t)((f[bth] & 0x1f) | FW_ROCE_OPCODE_UD);
	} else if (sel == FZ_NQP) {
		qpn = ORDMA_MCAST_QPN;
		f[bth] = (uint8_t)((f[bth] & 0x1f) | FW_ROCE_OPCODE_UD);
	} else {
		qpn = v->qpn[sel];
		f[bth] = (uint8_t)((f[bth] & 0x1f) |
				   (sel == FZ_UD ? FW_ROCE_OPCODE_UD :
				    sel == FZ_UC ? FW_ROCE_OPCODE_UC :
						   FW_ROCE_OPCODE_RC));
	}
	f[0] = (uint8_t)(vl << 4);	/* LVer 0 */
	f[1] = (uint8_t)((f[1] & 0xf0) |
			 (global ? FW_IB_LNH_GLOBAL : FW_IB_LNH_LOCAL));
	put16(f + 2, vl == FW_IB_VL15 && (f[2] & 1) ? FW_IB_LID_PERMISSIVE :
		     fz_lid(v->idx));
	put16(f + 4, (uint16_t)(icrc_end / 4));
	put16(f + 6, fz_lid(PEER));
	if (global) {
		uint8_t *g = f + FW_IB_LRH_LEN;

		g[0] = (uint8_t)(FW_IB_GRH_IPVER << 4 | (g[0] & 0x0f));
		put16(g + 4, (uint16_t)(icrc_end - bth));
		g[6] = FW_IB_GRH_NXTHDR_IBA;
		fz_gid(PEER, g + 8);
		if (qpn == ORDMA_MCAST_QPN)
			memcpy(g + 24, fz_mcast_gid, 16);
		else
			memcpy(g + 24, v->gid, 16);
	}
	f[bth + 1] &= 0xf0;		/* TVer 0 */
	put16(f + bth + 2, 0xffff);	/* default P_Key */
	fw_wire_put24(f + bth + 5, qpn);
	op = fw_roce_opcode_info(f[bth]);
	qp = fw_qp_lookup(v->d.fw, qpn);
	if (op && qp) {
		delta = (int8_t)f[bth + 11] / 16;
		base = op->flags & FW_ROCE_REQUEST ? qp->expected_psn :
						     qp->req.una_psn;
		fw_wire_put24(f + bth + 9, (base + (uint32_t)delta) & 0xffffff);
	}
	/* a pad count that fits (what follows the headers is whole words) */
	if (op && icrc_end >= bth + op->hdr_len + 4) {
		pad = (f[bth + 1] >> 4) & 3;
		if (pad > icrc_end - bth - op->hdr_len - 4)
			pad = 0;
		f[bth + 1] = (uint8_t)((f[bth + 1] & 0xcf) | pad << 4);
	}
	ib_seal(f, icrc_end);
	if (fw_ib_parse(f, len, &pkt) != FW_IB_OK)
		return len;
	fix_keys(v, f, &pkt.xport);
	ib_seal(f, icrc_end);
	return len;
}

/* Work for the responses to find: a SEND, a READ and an atomic on the
 * RC QP, a WRITE on the SRQ one.
 */
static void post_requests(struct fz_dev *v)
{
	static const struct {
		unsigned int q;
		uint8_t opcode;
		uint32_t len;
	} wr[] = {
		{ FZ_RC, ORDMA_WQE_SEND, 1000 },
		{ FZ_RC, ORDMA_WQE_RDMA_READ, 2000 },
		{ FZ_RC, ORDMA_WQE_ATOMIC_FETCH_ADD, 8 },
		{ FZ_SRQ_RC, ORDMA_WQE_RDMA_WRITE, 600 },
		{ FZ_UC, ORDMA_WQE_SEND, 100 },
	};
	size_t i;

	for (i = 0; i < sizeof(wr) / sizeof(wr[0]); i++) {
		uint8_t *p = fz_sq_slot(v, wr[i].q, v->sq_pi[wr[i].q]);
		struct ordma_send_wqe w;
		struct ordma_sge g;

		/* an iWARP QP would go to error on the atomic */
		if (!v->qpn[wr[i].q] ||
		    (fz_iwarp && wr[i].opcode == ORDMA_WQE_ATOMIC_FETCH_ADD))
			continue;
		memset(&w, 0, sizeof(w));
		w.ctrl.ctrl = cpu_to_le32(FIELD_PREP(ORDMA_WQE_OPCODE,
						     wr[i].opcode) |
					  FIELD_PREP(ORDMA_WQE_NUM_SGE, 1) |
					  ORDMA_WQE_SIGNALED);
		w.rdma.remote_addr = cpu_to_le64(FZ_MR_ALL + 0x1000);
		w.rdma.rkey = cpu_to_le32(v->key_all);
		g.addr = cpu_to_le64(FZ_MR_ALL + 0x40000 + i * 0x1000);
		g.length = cpu_to_le32(wr[i].len);
		g.lkey = cpu_to_le32(v->key_all);
		memcpy(p, &w, sizeof(w));
		memcpy(p + ORDMA_SEND_WQE_HDR_SIZE, &g, sizeof(g));
		v->sq_pi[wr[i].q]++;
		fz_ring_sq(v, wr[i].q);
	}
}

static void repost(struct fz_dev *v, uint8_t sel)
{
	unsigned int q = fz_iwarp ? fz_iw_qp[sel % FZ_IW_NCONN] :
				    sel % FZ_NQP, i;

	fz_poll(v);
	for (i = 0; i < 4; i++) {
		uint64_t addr = FZ_MR_ALL + 0xc0000 + (sel & 0x30) * 0x100;

		if (q == FZ_SRQ_RC)
			fz_post_srq(v, addr, 0x1000, v->key_all);
		else
			fz_post_recv(v, q, addr, 0x1000, v->key_all);
	}
}

/* ------------------------------------------------------------------ */
/* iWARP: TCP segments and MPA FPDUs                                   */
/* ------------------------------------------------------------------ */

#define IW_MTU			1500
#define IW_SEG_MAX		(IW_MTU - 40)	/* TCP options and data */
#define TCP_FIN			0x01
#define TCP_SYN			0x02
#define TCP_RST			0x04
#define TCP_ACK			0x10
#define TCP_ESTABLISHED		4		/* lwIP's enum tcp_state */

/* Where the sequence number of a segment lies (low bits of ctl[5]) */
enum { SEQ_EXACT, SEQ_IN_WINDOW, SEQ_BEYOND, SEQ_BEFORE, SEQ_FAR,
       SEQ_RAW };
#define CTL_FPDU		0x20
#define CTL_BAD_CRC		0x40
#define CTL_SPLIT		0x80
enum { SPLIT_IN_ORDER, SPLIT_REVERSED, SPLIT_TRUNCATED, SPLIT_KINDS };

struct iw_seg {
	uint16_t sport, dport;
	uint32_t seq, ack;
	uint8_t flags;
	uint16_t wnd, urp;
	const uint8_t *opt;
	size_t opt_len;			/* a multiple of 4, at most 40 */
	const uint8_t *data;
	size_t len;
};

/* A segment from the peer to v: Ethernet, IPv4 and TCP, checksums right */
static void iw_send_seg(struct fz_dev *v, const struct iw_seg *s)
{
	static uint8_t f[14 + 20 + 20 + IW_SEG_MAX];
	uint8_t peer_gid[16], *ip = f + 14, *tcp = f + 34;
	size_t tcp_len = 20 + s->opt_len + s->len, len = 34 + tcp_len;
	uint32_t pseudo;

	memcpy(f, v->mac, 6);
	fz_mac(PEER, f + 6);
	put16(f + 12, 0x0800);
	memset(ip, 0, 20);
	ip[0] = 0x45;
	put16(ip + 2, (uint16_t)(20 + tcp_len));
	ip[6] = 0x40;			/* DF */
	ip[8] = 64;
	ip[9] = 6;
	fz_gid(PEER, peer_gid);
	memcpy(ip + 12, peer_gid + 12, 4);
	memcpy(ip + 16, v->gid + 12, 4);
	put16(ip + 10, ip_csum(ip, 20));
	put16(tcp, s->sport);
	put16(tcp + 2, s->dport);
	fw_wire_put32(tcp + 4, s->seq);
	fw_wire_put32(tcp + 8, s->ack);
	tcp[12] = (uint8_t)((5 + s->opt_len / 4) << 4);
	tcp[13] = s->flags;
	put16(tcp + 14, s->wnd);
	put16(tcp + 16, 0);
	put16(tcp + 18, s->urp);
	memcpy(tcp + 20, s->opt, s->opt_len);
	memcpy(tcp + 20 + s->opt_len, s->data, s->len);
	pseudo = (uint32_t)fw_wire_get16(ip + 12) + fw_wire_get16(ip + 14) +
		 fw_wire_get16(ip + 16) + fw_wire_get16(ip + 18) + 6 +
		 (uint32_t)tcp_len;
	put16(tcp + 16, csum(pseudo, tcp, tcp_len));
	/* short frames padded to the Ethernet minimum, as a MAC does */
	if (len < 60) {
		memset(f + len, 0, 60 - len);
		len = 60;
	}
	ordma_fw_rx_frame(v->d.fw, f, len);
}

/*
 * An FPDU in out from the fields at the start of p (12 bytes) and the
 * payload after them, for the QP of connection k: DDP/RDMAP header,
 * STag (one of the device's keys and windows, or any), TO (in the MR,
 * off its end, zero based, or wrapping), queue, MSN and MO (what the QP
 * expects, or off by what the input says), a Read Request's body.  Its
 * CRC is sealed good, then spoilt if bad_crc.  The FPDU's length.
 */
static size_t iw_fpdu(struct fz_dev *v, unsigned int k, const uint8_t *p,
		      size_t len, bool bad_crc, uint8_t *out, size_t cap)
{
	const struct fw_qp *qp = fw_qp_lookup(v->d.fw, v->qpn[fz_iw_qp[k]]);
	uint8_t c[12] = { 0 }, *seg = out + FW_MPA_LEN_FIELD;
	uint32_t keys[8], any;
	struct fw_ddp_hdr h;
	size_t n = len < sizeof(c) ? len : sizeof(c), hlen, room;
	unsigned int q;

	memcpy(c, p, n);
	p += n;
	len -= n;
	any = fw_wire_get32(c + 8);
	keys[0] = v->key_all;
	keys[1] = v->key_lw;
	keys[2] = v->key_bind;
	keys[3] = v->mw1;
	keys[4] = v->mw2;
	keys[5] = v->key_all + 0x100;	/* an index with no MR */
	keys[6] = any;
	keys[7] = v->key_all;
	memset(&h, 0, sizeof(h));
	h.opcode = c[0] & 15;
	h.tagged = (h.opcode == FW_RDMAP_WRITE ||
		    h.opcode == FW_RDMAP_READ_RESP) ^ !!(c[0] & 0x10);
	h.last = !(c[0] & 0x20);
	h.stag = keys[c[1] % 8];
	switch ((c[1] >> 3) & 3) {
	case 0:
		h.to = FZ_MR_ALL + (uint64_t)fw_wire_get16(c + 2) * 8;
		break;
	case 1:				/* near the end: runs off it */
		h.to = FZ_MR_ALL + FZ_MR_ALL_LEN - (uint64_t)c[3] * 8;
		break;
	case 2:				/* the zero-based window */
		h.to = (uint64_t)c[3] * 8;
		break;
	default:			/* TO + length wraps */
		h.to = ~0ULL - c[3];
		break;
	}
	h.qn = c[4] & 0x80 ? c[4] & 3 :
	       h.opcode == FW_RDMAP_READ_REQ ? FW_RDMAP_QN_READ_REQ :
	       h.opcode == FW_RDMAP_TERMINATE ? FW_RDMAP_QN_TERMINATE :
					     FW_RDMAP_QN_SEND;
	q = h.qn == FW_RDMAP_QN_READ_REQ ? 1 : 0;
	h.msn = (qp ? qp->iw.rx_msn[q] : 1) + (uint32_t)(int8_t)c[5];
	h.mo = c[6] ? (uint32_t)c[6] * 8 : qp ? qp->iw.rx_mo : 0;
	hlen = fw_ddp_build(seg, &h);
	if (c[0] & 0x40)
		seg[0] ^= 0x03;		/* another DDP version */
	if (c[0] & 0x80)
		seg[1] ^= 0xc0;		/* another RDMAP version */
	if (h.opcode == FW_RDMAP_READ_REQ && !h.tagged && !(c[7] & 0x80)) {
		struct fw_rdmap_rreq rr = {
			.sink_stag = any,
			.sink_to = FZ_MR_ALL,
			.size = (uint32_t)(c[7] & 0x7f) * 64,
			.src_stag = h.stag,
			.src_to = h.to,
		};

		fw_rdmap_rreq_put(seg + hlen, &rr);
		hlen += FW_RDMAP_RREQ_LEN;
	}
	room = cap - FW_MPA_LEN_FIELD - hlen - 3 - FW_MPA_CRC_LEN;
	if (len > room)
		len = room;
	fz_put(seg + hlen, p, len);
	n = fw_fpdu_seal(out, hlen + len);
	if (bad_crc)
		out[n - 1 - (c[7] & 3)] ^= (uint8_t)(1u << ((c[7] >> 2) & 7));
	return n;
}

/* The iWARP counters of QUERY_STATS, in order: the index of one, and
 * how many there are
 */
#define IW_STAT(name)	((offsetof(struct ordma_port_stats, name) - \
			  offsetof(struct ordma_port_stats, \
				   iw_tcp_rx_segments)) / 8)
#define IW_NSTATS	(IW_STAT(iw_terminates_received) + 1)

static void iw_counters(struct fz_dev *v, uint64_t c[IW_NSTATS])
{
	struct ordma_port_stats st;

	if (!drv_stats(&v->d, &st))
		fz_fail("QUERY_STATS failed");
	memcpy(c, &st.iw_tcp_rx_segments, IW_NSTATS * 8);
}

/* What a segment must have counted, judged before it went in */
struct iw_expect {
	bool taken;			/* to a port the stack holds */
	int stat;			/* -1: none in particular */
};

static bool seq_between(uint32_t a, uint32_t lo, uint32_t hi)
{
	return a - lo <= hi - lo;
}

/*
 * For a segment to an established connection (RFC 5961 and lwIP's
 * tcp_receive()): a RST not at rcv_nxt is challenged in the window and
 * ignored outside it; data wholly outside the window is dropped.
 */
static int iw_expected_stat(const struct fw_tcp_conn_info *info,
			    const struct iw_seg *s, size_t len)
{
	uint32_t end = info->rcv_nxt + info->rcv_wnd;

	if (info->state != TCP_ESTABLISHED)
		return -1;
	if (s->flags & TCP_RST) {
		if (s->seq == info->rcv_nxt)
			return -1;
		return seq_between(s->seq, info->rcv_nxt, end) ?
		       (int)IW_STAT(iw_tcp_rx_rst_challenged) :
		       (int)IW_STAT(iw_tcp_rx_rst_ignored);
	}
	if (len && ((int32_t)(s->seq - end) >= 0 ||
		    (int32_t)(s->seq + (uint32_t)len - info->rcv_nxt) <= 0))
		return (int)IW_STAT(iw_tcp_rx_out_of_window);
	return -1;
}

static void iw_check(struct fz_dev *v, uint64_t before[IW_NSTATS],
		     const struct iw_expect *x)
{
	uint64_t now[IW_NSTATS];
	size_t i;

	iw_counters(v, now);
	for (i = 0; i < IW_NSTATS; i++)
		if (now[i] < before[i])
			fz_fail("iWARP counter %zu went back from %llu to %llu",
				i, (unsigned long long)before[i],
				(unsigned long long)now[i]);
	if (x && x->taken && now[IW_STAT(iw_tcp_rx_segments)] ==
			     before[IW_STAT(iw_tcp_rx_segments)])
		fz_fail("a segment to a port of the stack was not counted");
	if (x && x->stat >= 0 && now[x->stat] == before[x->stat])
		fz_fail("a segment of bad-input class %d was not counted",
			x->stat);
	memcpy(before, now, sizeof(now));
}

/*
 * FIXUP of a TCP segment; f holds at least 54 bytes.  What the fixup
 * writes, the input chose by the bytes it replaces: the Ethernet header
 * holds the control (ctl[0] port choice, ctl[1..4] ports of a new peer,
 * ctl[5] sequence and acknowledgement choice and the FPDU bits, ctl[6]
 * and ctl[7] the cut); flags, window, urgent pointer and options stay
 * as the input has them.
 */
static void iw_fixup(struct fz_dev *v, const uint8_t *f, size_t len,
		     uint64_t counters[IW_NSTATS])
{
	static uint8_t fpdu[IW_SEG_MAX];
	const uint8_t *ctl = f, *tcp = f + 34;
	struct fw_tcp_conn_info info;
	struct iw_expect x = { false, -1 };
	unsigned int sel = ctl[0] % (FZ_IW_NCONN + 2), k = 0;
	uint32_t raw_seq = fw_wire_get32(tcp + 4);
	uint32_t raw_ack = fw_wire_get32(tcp + 8);
	size_t total, cut;
	struct iw_seg s;
	bool live = false;

	memset(&s, 0, sizeof(s));
	if (sel < FZ_IW_NCONN) {
		k = sel;
		s.dport = v->iw_port[k][0];
		s.sport = v->iw_port[k][1];
		live = !fw_tcp_conn_info(v->d.fw, v->iw_conn[k], &info) &&
		       info.local_port == s.dport &&
		       info.remote_port == s.sport;
	} else if (sel == FZ_IW_NCONN) {
		s.dport = FZ_IW_PORT;
		s.sport = fw_wire_get16(ctl + 1);
	} else {
		s.dport = fw_wire_get16(ctl + 1);
		s.sport = fw_wire_get16(ctl + 3);
	}
	s.flags = tcp[13];
	s.wnd = fw_wire_get16(tcp + 14);
	s.urp = fw_wire_get16(tcp + 18);
	s.opt = f + 54;
	s.opt_len = (tcp[12] >> 4) > 5 ? ((tcp[12] >> 4) - 5) * 4u : 0;
	if (s.opt_len > (len - 54) / 4 * 4)
		s.opt_len = (len - 54) / 4 * 4;
	s.data = s.opt + s.opt_len;
	s.len = len - 54 - s.opt_len;
	if (s.len > IW_SEG_MAX - s.opt_len)
		s.len = IW_SEG_MAX - s.opt_len;
	if (ctl[5] & CTL_FPDU) {
		s.len = iw_fpdu(v, k, s.data, s.len, ctl[5] & CTL_BAD_CRC,
				fpdu, IW_SEG_MAX - s.opt_len);
		s.data = fpdu;
	}
	total = s.len;

	s.seq = raw_seq;
	s.ack = raw_ack;
	if (live) {
		uint32_t wnd = info.rcv_wnd ? info.rcv_wnd : 1;

		switch (ctl[5] & 7) {
		case SEQ_EXACT:
			s.seq = info.rcv_nxt;
			break;
		case SEQ_IN_WINDOW:
			s.seq = info.rcv_nxt + 1 +
				(wnd > 1 ? raw_seq % (wnd - 1) : 0);
			break;
		case SEQ_BEYOND:
			s.seq = info.rcv_nxt + info.rcv_wnd + raw_seq % 64;
			break;
		case SEQ_BEFORE:
			s.seq = info.rcv_nxt - (uint32_t)total - 1 -
				raw_seq % 64;
			break;
		case SEQ_FAR:
			s.seq = info.rcv_nxt + 0x40000000u + raw_seq % 0x40000000u;
			break;
		default:
			break;
		}
		switch ((ctl[5] >> 3) & 3) {
		case 0:
			s.ack = info.snd_nxt;
			break;
		case 1:				/* an old ACK */
			s.ack = info.snd_nxt - raw_ack % 256;
			break;
		case 2:				/* ACKs what was never sent */
			s.ack = info.snd_nxt + 1 + raw_ack % 256;
			break;
		default:
			break;
		}
	}
	x.taken = live || sel == FZ_IW_NCONN;

	if ((ctl[5] & CTL_SPLIT) && total >= 2) {
		struct iw_seg first = s, second = s;
		unsigned int kind = ctl[7] % SPLIT_KINDS;

		cut = 1 + ctl[6] % (total - 1);
		first.len = cut;
		/* FIN and RST close the stream: on its last part only */
		first.flags &= (uint8_t)~(TCP_FIN | TCP_RST);
		second.seq = s.seq + (uint32_t)cut;
		second.data = s.data + cut;
		second.len = total - cut;
		if (kind == SPLIT_TRUNCATED)
			first.flags = s.flags;
		if (kind == SPLIT_REVERSED)
			iw_send_seg(v, &second);
		iw_send_seg(v, &first);
		if (kind == SPLIT_IN_ORDER)
			iw_send_seg(v, &second);
	} else {
		if (live)
			x.stat = iw_expected_stat(&info, &s, s.len);
		iw_send_seg(v, &s);
	}
	iw_check(v, counters, &x);
}

/* Frames the device under test sent: checked on the way out, then lost */
static void iw_drain(struct link *l)
{
	struct link_frame fr;

	while (link_pop(l, &fr))
		free(fr.data);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t frame[FRAME_CAP];
	/* device 1 is the one under test; an iWARP run needs its peer too */
	static struct fz_env env;
	struct fz_dev *v = &env.v[1];
	struct fz_in in = { data, size };
	uint8_t mode = fz_u8(&in);
	uint64_t counters[IW_NSTATS];

	fz_iwarp = mode & MODE_IWARP;
	fz_ib = !fz_iwarp && (mode & MODE_IB);
	if (fz_iwarp) {
		if (!fz_iw_env_open(&env))
			fz_fail("iWARP fixture setup failed");
		/* the peer falls silent: from here on, the input speaks */
		iw_drain(&env.l[0]);
		iw_drain(&env.l[1]);
		iw_counters(v, counters);
	} else if (!fz_dev_open(v, 1) || !fz_dev_connect(v, PEER, v->qpn)) {
		fz_fail("fixture setup failed");
	}
	post_requests(v);
	while (in.left) {
		uint8_t kind = fz_u8(&in);
		size_t len;

		switch (kind % REC_NUM) {
		case REC_FRAME:
		case REC_FRAME2:
			len = fz_u16(&in) % FRAME_CAP;
			if (len > in.left)
				len = in.left;
			fz_take(&in, frame, len);
			if (fz_iwarp) {
				/* the peer's bytes, like a process's, are
				 * never the canary
				 */
				fz_put(frame, frame, len);
				if ((mode & MODE_FIXUP) && !(kind & 0x80) &&
				    len >= 54) {
					iw_fixup(v, frame, len, counters);
				} else {
					ordma_fw_rx_frame(v->d.fw, frame, len);
					iw_check(v, counters, NULL);
				}
				break;
			}
			if ((mode & MODE_FIXUP) && !(kind & 0x80))
				len = fz_ib ? ib_fixup(v, frame, len) :
					      fixup(v, frame, len);
			ordma_fw_rx_frame(v->d.fw, frame, len);
			break;
		case REC_TIME:
			fake_advance(&v->d.hal, ((uint64_t)fz_u8(&in) + 1) * 100000);
			break;
		default:
			repost(v, fz_u8(&in));
			break;
		}
		if (fz_iwarp)
			iw_drain(&env.l[1]);
	}
	/* timers run out: retransmissions, paced READ responses */
	fake_advance(&v->d.hal, 50000000);
	fz_poll(v);
	fz_dev_check(v);
	if (fz_iwarp) {
		iw_check(v, counters, NULL);
		fz_env_close(&env);
	} else {
		fz_dev_close(v);
	}
	return 0;
}
