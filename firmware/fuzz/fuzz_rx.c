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
 *
 * Checked: sanitizers, the checking HAL of the fixture (no DMA outside
 * the MRs and rings, nothing sent from memory nobody gave), and the
 * device still answers its driver.
 */
#include <string.h>

#include "objects/fw_qp.h"
#include "wire/fw_roce_wire.h"
#include "wire/fw_ib_wire.h"
#include "fixture.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MODE_FIXUP		0x01
#define MODE_IB			0x02
#define FRAME_CAP		9300
#define PEER			0

enum { REC_FRAME, REC_FRAME2, REC_TIME, REC_REPOST, REC_NUM };

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint16_t ip_csum(const uint8_t *p, size_t len)
{
	uint32_t sum = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
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
	unsigned int q = sel % FZ_NQP, i;

	fz_poll(v);
	for (i = 0; i < 4; i++) {
		uint64_t addr = FZ_MR_ALL + 0xc0000 + (sel & 0x30) * 0x100;

		if (q == FZ_SRQ_RC)
			fz_post_srq(v, addr, 0x1000, v->key_all);
		else
			fz_post_recv(v, q, addr, 0x1000, v->key_all);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t frame[FRAME_CAP];
	static struct fz_dev v;
	struct fz_in in = { data, size };
	uint8_t mode = fz_u8(&in);

	fz_ib = mode & MODE_IB;
	if (!fz_dev_open(&v, 1) || !fz_dev_connect(&v, PEER, v.qpn))
		fz_fail("fixture setup failed");
	post_requests(&v);
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
			if ((mode & MODE_FIXUP) && !(kind & 0x80))
				len = fz_ib ? ib_fixup(&v, frame, len) :
					      fixup(&v, frame, len);
			ordma_fw_rx_frame(v.d.fw, frame, len);
			break;
		case REC_TIME:
			fake_advance(&v.d.hal, ((uint64_t)fz_u8(&in) + 1) * 100000);
			break;
		default:
			repost(&v, fz_u8(&in));
			break;
		}
	}
	/* timers run out: retransmissions, paced READ responses */
	fake_advance(&v.d.hal, 50000000);
	fz_poll(&v);
	fz_dev_check(&v);
	fz_dev_close(&v);
	return 0;
}
