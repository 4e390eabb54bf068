// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * RoCEv2 frames: the opcode table, the frame builder and the parser that
 * validates every received byte before the transport sees it.
 *
 * Peer behaviour this follows (Linux 6.12 rdma_rxe, checked against its
 * frames in tests/vectors/):
 * - IPv4: DF set, TTL = hop limit, TOS = traffic class, UDP checksum 0.
 * - IPv6: flow label and traffic class from the address vector; rxe
 *   itself sends flow label 0 and UDP checksum 0.  A zero UDP checksum
 *   over IPv6 is what RFC 8200 forbids outside tunnels (Wireshark reports
 *   it as an error), so frames built here carry a computed one unless the
 *   caller asks for rxe's zero; the rxe receive socket accepts both (it
 *   allows zero and verifies a non-zero checksum), and so does this
 *   parser.
 * - UDP source port: the flow-label/QPN-pair convention of the Linux
 *   RDMA stack (fw_roce_udp_sport()); rxe uses it for connected QPs.
 *   UD QPs of rxe hash their own QPN instead; the port carries no meaning
 *   for a receiver either way.
 */
#include <string.h>

#include "fw_roce_wire.h"

#define FW_ETHERTYPE_IPV4	0x0800
#define FW_ETHERTYPE_IPV6	0x86dd
#define FW_ETHERTYPE_VLAN	0x8100
#define FW_IPPROTO_UDP		17
#define FW_IPV4_DF		0x4000
#define FW_IPV4_FRAG_MASK	0x3fff	/* MF and the fragment offset */
#define FW_IP_MAX_LEN		0xffff

/* ------------------------------------------------------------------ */
/* Opcodes                                                             */
/* ------------------------------------------------------------------ */

#define FW_OP_HDR_LEN(f) \
	(FW_ROCE_BTH_LEN + \
	 ((f) & FW_ROCE_HAS_DETH ? FW_ROCE_DETH_LEN : 0) + \
	 ((f) & FW_ROCE_HAS_FETH ? FW_ROCE_FETH_LEN : 0) + \
	 ((f) & FW_ROCE_HAS_RETH ? FW_ROCE_RETH_LEN : 0) + \
	 ((f) & FW_ROCE_HAS_ATOMIC_ETH ? FW_ROCE_ATOMIC_ETH_LEN : 0) + \
	 ((f) & FW_ROCE_HAS_AETH ? FW_ROCE_AETH_LEN : 0) + \
	 ((f) & FW_ROCE_HAS_ATOMIC_ACK_ETH ? FW_ROCE_ATOMIC_ACK_ETH_LEN : 0) + \
	 ((f) & FW_ROCE_HAS_IMMDT ? FW_ROCE_IMMDT_LEN : 0) + \
	 ((f) & FW_ROCE_HAS_IETH ? FW_ROCE_IETH_LEN : 0))
#define FW_OP(n, f)	{ .name = (n), .flags = (f), .hdr_len = FW_OP_HDR_LEN(f) }

#define REQ		FW_ROCE_REQUEST
#define PAY		FW_ROCE_HAS_PAYLOAD
#define FIRST		FW_ROCE_FIRST
#define LAST		FW_ROCE_LAST
#define ONLY		(FW_ROCE_FIRST | FW_ROCE_LAST)
#define RETH		FW_ROCE_HAS_RETH
#define AETH		FW_ROCE_HAS_AETH
#define DETH		FW_ROCE_HAS_DETH
#define IMM		FW_ROCE_HAS_IMMDT
#define IETH		FW_ROCE_HAS_IETH

static const struct fw_roce_opcode_info fw_roce_opcodes[256] = {
	[FW_ROCE_RC_SEND_FIRST] = FW_OP("RC SEND First", REQ | PAY | FIRST),
	[FW_ROCE_RC_SEND_MIDDLE] = FW_OP("RC SEND Middle", REQ | PAY),
	[FW_ROCE_RC_SEND_LAST] = FW_OP("RC SEND Last", REQ | PAY | LAST),
	[FW_ROCE_RC_SEND_LAST_IMM] =
		FW_OP("RC SEND Last with Immediate", REQ | PAY | LAST | IMM),
	[FW_ROCE_RC_SEND_ONLY] = FW_OP("RC SEND Only", REQ | PAY | ONLY),
	[FW_ROCE_RC_SEND_ONLY_IMM] =
		FW_OP("RC SEND Only with Immediate", REQ | PAY | ONLY | IMM),
	[FW_ROCE_RC_RDMA_WRITE_FIRST] =
		FW_OP("RC RDMA WRITE First", REQ | PAY | FIRST | RETH),
	[FW_ROCE_RC_RDMA_WRITE_MIDDLE] =
		FW_OP("RC RDMA WRITE Middle", REQ | PAY),
	[FW_ROCE_RC_RDMA_WRITE_LAST] =
		FW_OP("RC RDMA WRITE Last", REQ | PAY | LAST),
	[FW_ROCE_RC_RDMA_WRITE_LAST_IMM] =
		FW_OP("RC RDMA WRITE Last with Immediate",
		      REQ | PAY | LAST | IMM),
	[FW_ROCE_RC_RDMA_WRITE_ONLY] =
		FW_OP("RC RDMA WRITE Only", REQ | PAY | ONLY | RETH),
	[FW_ROCE_RC_RDMA_WRITE_ONLY_IMM] =
		FW_OP("RC RDMA WRITE Only with Immediate",
		      REQ | PAY | ONLY | RETH | IMM),
	[FW_ROCE_RC_RDMA_READ_REQUEST] =
		FW_OP("RC RDMA READ Request", REQ | ONLY | RETH),
	[FW_ROCE_RC_RDMA_READ_RESPONSE_FIRST] =
		FW_OP("RC RDMA READ Response First", PAY | FIRST | AETH),
	[FW_ROCE_RC_RDMA_READ_RESPONSE_MIDDLE] =
		FW_OP("RC RDMA READ Response Middle", PAY),
	[FW_ROCE_RC_RDMA_READ_RESPONSE_LAST] =
		FW_OP("RC RDMA READ Response Last", PAY | LAST | AETH),
	[FW_ROCE_RC_RDMA_READ_RESPONSE_ONLY] =
		FW_OP("RC RDMA READ Response Only", PAY | ONLY | AETH),
	[FW_ROCE_RC_ACKNOWLEDGE] = FW_OP("RC Acknowledge", ONLY | AETH),
	[FW_ROCE_RC_ATOMIC_ACKNOWLEDGE] =
		FW_OP("RC ATOMIC Acknowledge",
		      ONLY | AETH | FW_ROCE_HAS_ATOMIC_ACK_ETH),
	[FW_ROCE_RC_COMPARE_SWAP] =
		FW_OP("RC CmpSwap", REQ | ONLY | FW_ROCE_HAS_ATOMIC_ETH),
	[FW_ROCE_RC_FETCH_ADD] =
		FW_OP("RC FetchAdd", REQ | ONLY | FW_ROCE_HAS_ATOMIC_ETH),
	[FW_ROCE_RC_SEND_LAST_INV] =
		FW_OP("RC SEND Last with Invalidate", REQ | PAY | LAST | IETH),
	[FW_ROCE_RC_SEND_ONLY_INV] =
		FW_OP("RC SEND Only with Invalidate", REQ | PAY | ONLY | IETH),
	[FW_ROCE_UC_SEND_FIRST] = FW_OP("UC SEND First", REQ | PAY | FIRST),
	[FW_ROCE_UC_SEND_MIDDLE] = FW_OP("UC SEND Middle", REQ | PAY),
	[FW_ROCE_UC_SEND_LAST] = FW_OP("UC SEND Last", REQ | PAY | LAST),
	[FW_ROCE_UC_SEND_LAST_IMM] =
		FW_OP("UC SEND Last with Immediate", REQ | PAY | LAST | IMM),
	[FW_ROCE_UC_SEND_ONLY] = FW_OP("UC SEND Only", REQ | PAY | ONLY),
	[FW_ROCE_UC_SEND_ONLY_IMM] =
		FW_OP("UC SEND Only with Immediate", REQ | PAY | ONLY | IMM),
	[FW_ROCE_UC_RDMA_WRITE_FIRST] =
		FW_OP("UC RDMA WRITE First", REQ | PAY | FIRST | RETH),
	[FW_ROCE_UC_RDMA_WRITE_MIDDLE] =
		FW_OP("UC RDMA WRITE Middle", REQ | PAY),
	[FW_ROCE_UC_RDMA_WRITE_LAST] =
		FW_OP("UC RDMA WRITE Last", REQ | PAY | LAST),
	[FW_ROCE_UC_RDMA_WRITE_LAST_IMM] =
		FW_OP("UC RDMA WRITE Last with Immediate",
		      REQ | PAY | LAST | IMM),
	[FW_ROCE_UC_RDMA_WRITE_ONLY] =
		FW_OP("UC RDMA WRITE Only", REQ | PAY | ONLY | RETH),
	[FW_ROCE_UC_RDMA_WRITE_ONLY_IMM] =
		FW_OP("UC RDMA WRITE Only with Immediate",
		      REQ | PAY | ONLY | RETH | IMM),
	[FW_ROCE_RC_FLUSH] =
		FW_OP("RC FLUSH", REQ | ONLY | FW_ROCE_HAS_FETH | RETH),
	[FW_ROCE_RC_ATOMIC_WRITE] =
		FW_OP("RC ATOMIC WRITE", REQ | PAY | ONLY | RETH),
	[FW_ROCE_UD_SEND_ONLY] = FW_OP("UD SEND Only", REQ | PAY | ONLY | DETH),
	[FW_ROCE_UD_SEND_ONLY_IMM] =
		FW_OP("UD SEND Only with Immediate",
		      REQ | PAY | ONLY | DETH | IMM),
};

#undef REQ
#undef PAY
#undef FIRST
#undef LAST
#undef ONLY
#undef RETH
#undef AETH
#undef DETH
#undef IMM
#undef IETH

const struct fw_roce_opcode_info *fw_roce_opcode_info(uint8_t opcode)
{
	const struct fw_roce_opcode_info *op = &fw_roce_opcodes[opcode];

	return op->name ? op : NULL;
}

/* Extension headers in the order they follow the BTH (IBTA 9.2) */
static const struct {
	uint16_t flag;
	uint8_t len;
} fw_roce_exts[] = {
	{ FW_ROCE_HAS_DETH, FW_ROCE_DETH_LEN },
	{ FW_ROCE_HAS_FETH, FW_ROCE_FETH_LEN },
	{ FW_ROCE_HAS_RETH, FW_ROCE_RETH_LEN },
	{ FW_ROCE_HAS_ATOMIC_ETH, FW_ROCE_ATOMIC_ETH_LEN },
	{ FW_ROCE_HAS_AETH, FW_ROCE_AETH_LEN },
	{ FW_ROCE_HAS_ATOMIC_ACK_ETH, FW_ROCE_ATOMIC_ACK_ETH_LEN },
	{ FW_ROCE_HAS_IMMDT, FW_ROCE_IMMDT_LEN },
	{ FW_ROCE_HAS_IETH, FW_ROCE_IETH_LEN },
};

#define FW_ROCE_NUM_EXTS	(sizeof(fw_roce_exts) / sizeof(fw_roce_exts[0]))

static void fw_roce_put_ext(uint16_t flag, uint8_t *p,
			    const struct fw_roce_hdrs *h)
{
	switch (flag) {
	case FW_ROCE_HAS_DETH:
		fw_deth_set((struct fw_roce_deth *)p, h->deth.qkey,
			    h->deth.src_qp);
		break;
	case FW_ROCE_HAS_RETH:
		fw_reth_set((struct fw_roce_reth *)p, h->reth.va, h->reth.rkey,
			    h->reth.dma_len);
		break;
	case FW_ROCE_HAS_ATOMIC_ETH:
		fw_atomic_eth_set((struct fw_roce_atomic_eth *)p, h->atomic.va,
				  h->atomic.rkey, h->atomic.swap_add,
				  h->atomic.compare);
		break;
	case FW_ROCE_HAS_AETH:
		fw_aeth_set((struct fw_roce_aeth *)p, h->aeth.syndrome,
			    h->aeth.msn);
		break;
	case FW_ROCE_HAS_ATOMIC_ACK_ETH:
		fw_atomic_ack_eth_set((struct fw_roce_atomic_ack_eth *)p,
				      h->atomic_orig);
		break;
	case FW_ROCE_HAS_IMMDT:
		fw_immdt_set((struct fw_roce_immdt *)p, h->imm);
		break;
	case FW_ROCE_HAS_IETH:
		fw_ieth_set((struct fw_roce_ieth *)p, h->inv_rkey);
		break;
	case FW_ROCE_HAS_FETH:
		fw_feth_set((struct fw_roce_feth *)p, h->feth.placement,
			    h->feth.level);
		break;
	}
}

static void fw_roce_point_ext(uint16_t flag, const uint8_t *p,
			      struct fw_roce_pkt *pkt)
{
	switch (flag) {
	case FW_ROCE_HAS_DETH:
		pkt->deth = (const struct fw_roce_deth *)p;
		break;
	case FW_ROCE_HAS_RETH:
		pkt->reth = (const struct fw_roce_reth *)p;
		break;
	case FW_ROCE_HAS_ATOMIC_ETH:
		pkt->atomic_eth = (const struct fw_roce_atomic_eth *)p;
		break;
	case FW_ROCE_HAS_AETH:
		pkt->aeth = (const struct fw_roce_aeth *)p;
		break;
	case FW_ROCE_HAS_ATOMIC_ACK_ETH:
		pkt->atomic_ack_eth = (const struct fw_roce_atomic_ack_eth *)p;
		break;
	case FW_ROCE_HAS_IMMDT:
		pkt->immdt = (const struct fw_roce_immdt *)p;
		break;
	case FW_ROCE_HAS_IETH:
		pkt->ieth = (const struct fw_roce_ieth *)p;
		break;
	case FW_ROCE_HAS_FETH:
		pkt->feth = (const struct fw_roce_feth *)p;
		break;
	}
}

/* ------------------------------------------------------------------ */
/* Addresses, checksums                                                */
/* ------------------------------------------------------------------ */

const uint8_t fw_roce_ipv4_prefix[12] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
};

bool fw_roce_gid_is_ipv4(const uint8_t gid[16])
{
	return !memcmp(gid, fw_roce_ipv4_prefix,
		       sizeof(fw_roce_ipv4_prefix));
}

uint16_t fw_roce_udp_sport(uint32_t flow_label, uint32_t lqpn, uint32_t rqpn)
{
	uint32_t fl = flow_label & FW_ROCE_FLOW_LABEL_MASK;
	uint64_t v;

	if (!fl) {
		v = (uint64_t)(lqpn & FW_ROCE_QPN_MASK) *
		    (rqpn & FW_ROCE_QPN_MASK);
		v ^= v >> 20;
		v ^= v >> 40;
		fl = (uint32_t)v & FW_ROCE_FLOW_LABEL_MASK;
	}
	/* fold the top 6 of the 20 bits into the low 14 */
	return (uint16_t)(FW_ROCE_UDP_SPORT_MIN | ((fl & 0x3fff) ^ (fl >> 14)));
}

/* Internet checksum (RFC 1071) accumulation over big-endian words */
static uint64_t fw_csum_add(uint64_t sum, const uint8_t *p, size_t len)
{
	for (; len > 1; p += 2, len -= 2)
		sum += fw_wire_get16(p);
	if (len)
		sum += (uint64_t)p[0] << 8;
	return sum;
}

static uint16_t fw_csum_fold(uint64_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* Sum of the UDP pseudo header and the datagram as it is (checksum
 * field included): folds to 0xffff when the checksum is right.
 */
static uint64_t fw_udp_sum(const uint8_t *ip, bool ipv6, const uint8_t *udp,
			   size_t udp_len)
{
	uint64_t sum = FW_IPPROTO_UDP + (uint64_t)udp_len;

	if (ipv6)
		sum = fw_csum_add(sum, ip + 8, 32);	/* source, destination */
	else
		sum = fw_csum_add(sum, ip + 12, 8);
	return fw_csum_add(sum, udp, udp_len);
}

/* ------------------------------------------------------------------ */
/* Builder                                                             */
/* ------------------------------------------------------------------ */

static bool fw_roce_hdrs_valid(const struct fw_roce_hdrs *h,
			       const struct fw_roce_opcode_info *op,
			       size_t payload_len)
{
	if (!op)
		return false;
	if (payload_len && !(op->flags & FW_ROCE_HAS_PAYLOAD))
		return false;
	if (fw_roce_gid_is_ipv4(h->sgid) != fw_roce_gid_is_ipv4(h->dgid))
		return false;
	if (h->vlan_id != FW_ROCE_VLAN_NONE &&
	    (h->vlan_id > FW_VLAN_VID_MASK || h->vlan_prio > FW_VLAN_MAX_PRIO))
		return false;
	return h->dest_qp <= FW_ROCE_QPN_MASK && h->psn <= FW_ROCE_PSN_MASK &&
	       h->flow_label <= FW_ROCE_FLOW_LABEL_MASK &&
	       h->feth.placement <= FW_FETH_PLT_MASK &&
	       h->feth.level <= FW_FETH_SEL_MASK >> FW_FETH_SEL_SHIFT &&
	       h->aeth.msn <= 0xffffffu && h->deth.src_qp <= FW_ROCE_QPN_MASK;
}

static void fw_roce_put_ipv4(uint8_t *ip, const struct fw_roce_hdrs *h,
			     size_t udp_len)
{
	ip[0] = 0x45;			/* version 4, IHL 5 */
	ip[1] = h->traffic_class;
	fw_wire_put16(ip + 2, (uint16_t)(FW_ROCE_IPV4_HLEN + udp_len));
	fw_wire_put16(ip + 4, h->ip_id);
	fw_wire_put16(ip + 6, FW_IPV4_DF);
	ip[8] = h->hop_limit;
	ip[9] = FW_IPPROTO_UDP;
	fw_wire_put16(ip + 10, 0);
	memcpy(ip + 12, h->sgid + 12, 4);
	memcpy(ip + 16, h->dgid + 12, 4);
	fw_wire_put16(ip + 10,
		      (uint16_t)~fw_csum_fold(fw_csum_add(0, ip,
							  FW_ROCE_IPV4_HLEN)));
}

static void fw_roce_put_ipv6(uint8_t *ip, const struct fw_roce_hdrs *h,
			     size_t udp_len)
{
	fw_wire_put32(ip, 6u << 28 | (uint32_t)h->traffic_class << 20 |
		      h->flow_label);
	fw_wire_put16(ip + 4, (uint16_t)udp_len);
	ip[6] = FW_IPPROTO_UDP;
	ip[7] = h->hop_limit;
	memcpy(ip + 8, h->sgid, 16);
	memcpy(ip + 24, h->dgid, 16);
}

static void fw_roce_put_bth(uint8_t *p, const struct fw_roce_hdrs *h,
			    unsigned int pad)
{
	struct fw_roce_bth *bth = (struct fw_roce_bth *)p;

	fw_bth_set_opcode(bth, h->opcode);
	fw_bth_set_flags(bth, h->se, h->mig, pad);
	fw_bth_set_pkey(bth, h->pkey);
	fw_bth_set_fb(bth, h->fecn, h->becn);
	fw_bth_set_dest_qp(bth, h->dest_qp);
	fw_bth_set_apsn(bth, h->ack_req, h->psn);
}

size_t fw_roce_put_transport(uint8_t *p, const struct fw_roce_hdrs *h,
			     const struct fw_roce_opcode_info *op,
			     unsigned int pad)
{
	size_t off = FW_ROCE_BTH_LEN, i;

	fw_roce_put_bth(p, h, pad);
	for (i = 0; i < FW_ROCE_NUM_EXTS; i++) {
		if (!(op->flags & fw_roce_exts[i].flag))
			continue;
		fw_roce_put_ext(fw_roce_exts[i].flag, p + off, h);
		off += fw_roce_exts[i].len;
	}
	return off;
}

int fw_roce_frame_init(struct fw_roce_frame *f, uint8_t *buf, size_t cap,
		       const struct fw_roce_hdrs *h, size_t payload_len)
{
	const struct fw_roce_opcode_info *op = fw_roce_opcode_info(h->opcode);
	bool ipv6 = !fw_roce_gid_is_ipv4(h->dgid);
	size_t ip_hlen = ipv6 ? FW_ROCE_IPV6_HLEN : FW_ROCE_IPV4_HLEN;
	size_t pad = (4 - payload_len % 4) % 4;
	size_t off, udp_len, end, len;
	uint8_t *p;

	memset(f, 0, sizeof(*f));
	if (!fw_roce_hdrs_valid(h, op, payload_len))
		return -1;
	/* the IP length fields bound the packet */
	if (payload_len > FW_IP_MAX_LEN)
		return -1;
	udp_len = FW_ROCE_UDP_HLEN + op->hdr_len + payload_len + pad +
		  FW_ROCE_ICRC_LEN;
	if (udp_len + (ipv6 ? 0 : ip_hlen) > FW_IP_MAX_LEN)
		return -1;
	end = FW_ROCE_ETH_HLEN +
	      (h->vlan_id != FW_ROCE_VLAN_NONE ? FW_ROCE_VLAN_HLEN : 0) +
	      ip_hlen + udp_len;
	len = end > FW_ROCE_MIN_FRAME ? end : FW_ROCE_MIN_FRAME;
	if (len > cap)
		return -1;

	memcpy(buf, h->dmac, 6);
	memcpy(buf + 6, h->smac, 6);
	off = 12;
	if (h->vlan_id != FW_ROCE_VLAN_NONE) {
		fw_wire_put16(buf + off, FW_ETHERTYPE_VLAN);
		fw_wire_put16(buf + off + 2,
			      (uint16_t)(h->vlan_prio << FW_VLAN_PRIO_SHIFT |
					 h->vlan_id));
		off += FW_ROCE_VLAN_HLEN;
	}
	fw_wire_put16(buf + off, ipv6 ? FW_ETHERTYPE_IPV6 : FW_ETHERTYPE_IPV4);
	off += 2;

	f->buf = buf;
	f->ipv6 = ipv6;
	f->ip_off = off;
	if (ipv6)
		fw_roce_put_ipv6(buf + off, h, udp_len);
	else
		fw_roce_put_ipv4(buf + off, h, udp_len);
	off += ip_hlen;

	f->udp_off = off;
	p = buf + off;
	fw_wire_put16(p, h->udp_sport ? h->udp_sport :
		      fw_roce_udp_sport(h->flow_label, h->src_qp, h->dest_qp));
	fw_wire_put16(p + 2, FW_ROCE_UDP_DPORT);
	fw_wire_put16(p + 4, (uint16_t)udp_len);
	fw_wire_put16(p + 6, 0);
	f->udp_csum = ipv6 && !h->udp6_zero_csum;
	off += FW_ROCE_UDP_HLEN;

	f->bth_off = off;
	off += fw_roce_put_transport(buf + off, h, op, (unsigned int)pad);

	f->payload_off = off;
	f->payload_len = payload_len;
	f->icrc_off = off + payload_len + pad;
	f->len = len;
	return 0;
}

void fw_roce_frame_seal(struct fw_roce_frame *f)
{
	uint8_t *ip = f->buf + f->ip_off;
	uint8_t *udp = f->buf + f->udp_off;
	size_t end = f->icrc_off + FW_ROCE_ICRC_LEN;
	size_t ip_hlen = f->udp_off - f->ip_off;
	size_t udp_len = end - f->udp_off;
	size_t pad_off = f->payload_off + f->payload_len;
	uint32_t icrc;
	uint16_t csum;

	memset(f->buf + pad_off, 0, f->icrc_off - pad_off);
	icrc = fw_roce_icrc(ip, ip_hlen, end - f->ip_off);
	f->buf[f->icrc_off] = (uint8_t)icrc;
	f->buf[f->icrc_off + 1] = (uint8_t)(icrc >> 8);
	f->buf[f->icrc_off + 2] = (uint8_t)(icrc >> 16);
	f->buf[f->icrc_off + 3] = (uint8_t)(icrc >> 24);
	/* after the ICRC, which counts the UDP checksum as ones */
	if (f->udp_csum) {
		fw_wire_put16(udp + 6, 0);
		csum = (uint16_t)~fw_csum_fold(fw_udp_sum(ip, f->ipv6, udp,
							  udp_len));
		fw_wire_put16(udp + 6, csum ? csum : 0xffff);
	}
	memset(f->buf + end, 0, f->len - end);
}

/* ------------------------------------------------------------------ */
/* Parser                                                              */
/* ------------------------------------------------------------------ */

/* On success *l4_len is the IP payload length. */
static enum fw_roce_drop fw_parse_ipv4(const uint8_t *ip, size_t avail,
				       struct fw_roce_pkt *pkt, size_t *l4_len)
{
	size_t ihl, total;

	if (avail < FW_ROCE_IPV4_HLEN)
		return FW_ROCE_DROP_IPV4_SHORT;
	if (ip[0] >> 4 != 4)
		return FW_ROCE_DROP_IPV4_VERSION;
	ihl = (size_t)(ip[0] & 0xf) * 4;
	if (ihl < FW_ROCE_IPV4_HLEN)
		return FW_ROCE_DROP_IPV4_IHL;
	total = fw_wire_get16(ip + 2);
	/* bytes beyond the total length are Ethernet padding */
	if (total < ihl || total > avail)
		return FW_ROCE_DROP_IPV4_LENGTH;
	if (fw_csum_fold(fw_csum_add(0, ip, ihl)) != 0xffff)
		return FW_ROCE_DROP_IPV4_CHECKSUM;
	if (fw_wire_get16(ip + 6) & FW_IPV4_FRAG_MASK)
		return FW_ROCE_DROP_IPV4_FRAGMENT;
	if (ip[9] != FW_IPPROTO_UDP)
		return FW_ROCE_DROP_IP_PROTO;
	pkt->ip_hlen = ihl;
	*l4_len = total - ihl;
	return FW_ROCE_OK;
}

/* RoCEv2 puts UDP right after the fixed header: no extension headers. */
static enum fw_roce_drop fw_parse_ipv6(const uint8_t *ip, size_t avail,
				       struct fw_roce_pkt *pkt, size_t *l4_len)
{
	size_t payload;

	if (avail < FW_ROCE_IPV6_HLEN)
		return FW_ROCE_DROP_IPV6_SHORT;
	if (ip[0] >> 4 != 6)
		return FW_ROCE_DROP_IPV6_VERSION;
	payload = fw_wire_get16(ip + 4);
	if (payload > avail - FW_ROCE_IPV6_HLEN)
		return FW_ROCE_DROP_IPV6_LENGTH;
	if (ip[6] != FW_IPPROTO_UDP)
		return FW_ROCE_DROP_IP_PROTO;
	pkt->ip_hlen = FW_ROCE_IPV6_HLEN;
	*l4_len = payload;
	return FW_ROCE_OK;
}

static enum fw_roce_drop fw_parse_udp(const uint8_t *udp, size_t l4_len,
				      const struct fw_roce_pkt *pkt)
{
	if (l4_len < FW_ROCE_UDP_HLEN)
		return FW_ROCE_DROP_UDP_SHORT;
	if (fw_wire_get16(udp + 2) != FW_ROCE_UDP_DPORT)
		return FW_ROCE_DROP_UDP_PORT;
	if (fw_wire_get16(udp + 4) != l4_len)
		return FW_ROCE_DROP_UDP_LENGTH;
	/* zero: not computed (always so from rxe, also over IPv6) */
	if (fw_wire_get16(udp + 6) &&
	    fw_csum_fold(fw_udp_sum(pkt->ip, pkt->ipv6, udp, l4_len)) != 0xffff)
		return FW_ROCE_DROP_UDP_CHECKSUM;
	return FW_ROCE_OK;
}

enum fw_roce_drop
fw_roce_check_transport(const uint8_t *bth, size_t len,
			const struct fw_roce_opcode_info **opp)
{
	const struct fw_roce_bth *b = (const struct fw_roce_bth *)bth;
	const struct fw_roce_opcode_info *op;
	size_t padded;

	if (fw_bth_tver(b) != FW_BTH_TVER)
		return FW_ROCE_DROP_TVER;
	op = fw_roce_opcode_info(fw_bth_opcode(b));
	if (!op)
		return FW_ROCE_DROP_OPCODE;
	if (len < op->hdr_len)
		return FW_ROCE_DROP_EXT_SHORT;
	padded = len - op->hdr_len;
	/* IB packets are whole 4-byte words; pad fills the last one */
	if (padded % 4 || fw_bth_pad(b) > padded ||
	    (!(op->flags & FW_ROCE_HAS_PAYLOAD) && padded))
		return FW_ROCE_DROP_PAD;
	*opp = op;
	return FW_ROCE_OK;
}

void fw_roce_point_transport(const uint8_t *bth, size_t len,
			     const struct fw_roce_opcode_info *op,
			     struct fw_roce_pkt *pkt)
{
	size_t off = FW_ROCE_BTH_LEN, i;

	pkt->bth = (const struct fw_roce_bth *)bth;
	pkt->op = op;
	for (i = 0; i < FW_ROCE_NUM_EXTS; i++) {
		if (!(op->flags & fw_roce_exts[i].flag))
			continue;
		fw_roce_point_ext(fw_roce_exts[i].flag, bth + off, pkt);
		off += fw_roce_exts[i].len;
	}
	pkt->payload = bth + off;
	pkt->payload_len = len - off - fw_bth_pad(pkt->bth);
}

/* Transport headers in bth[0, len): len is the UDP payload length. */
static enum fw_roce_drop fw_parse_transport(const uint8_t *bth, size_t len,
					    struct fw_roce_pkt *pkt)
{
	const struct fw_roce_opcode_info *op = NULL;
	const uint8_t *icrc;
	enum fw_roce_drop r;

	if (len < FW_ROCE_BTH_LEN + FW_ROCE_ICRC_LEN)
		return FW_ROCE_DROP_BTH_SHORT;
	pkt->bth = (const struct fw_roce_bth *)bth;
	r = fw_roce_check_transport(bth, len - FW_ROCE_ICRC_LEN, &op);
	if (r != FW_ROCE_OK)
		return r;

	icrc = bth + len - FW_ROCE_ICRC_LEN;
	pkt->icrc = (uint32_t)icrc[0] | (uint32_t)icrc[1] << 8 |
		    (uint32_t)icrc[2] << 16 | (uint32_t)icrc[3] << 24;
	pkt->pkt_len = pkt->ip_hlen + FW_ROCE_UDP_HLEN + len;
	if (fw_roce_icrc(pkt->ip, pkt->ip_hlen, pkt->pkt_len) != pkt->icrc)
		return FW_ROCE_DROP_ICRC;

	fw_roce_point_transport(bth, len - FW_ROCE_ICRC_LEN, op, pkt);
	return FW_ROCE_OK;
}

enum fw_roce_drop fw_roce_parse(const uint8_t *frame, size_t len,
				struct fw_roce_pkt *pkt)
{
	enum fw_roce_drop r;
	size_t off = 12, l4_len = 0;
	uint16_t type;

	memset(pkt, 0, sizeof(*pkt));
	pkt->frame = frame;
	if (len < FW_ROCE_ETH_HLEN)
		return FW_ROCE_DROP_ETH_SHORT;
	type = fw_wire_get16(frame + off);
	off += 2;
	if (type == FW_ETHERTYPE_VLAN) {
		if (len < FW_ROCE_ETH_HLEN + FW_ROCE_VLAN_HLEN)
			return FW_ROCE_DROP_ETH_SHORT;
		pkt->vlan = true;
		pkt->vlan_tci = fw_wire_get16(frame + off);
		type = fw_wire_get16(frame + off + 2);
		off += FW_ROCE_VLAN_HLEN;
	}

	pkt->ip = frame + off;
	if (type == FW_ETHERTYPE_IPV4) {
		r = fw_parse_ipv4(pkt->ip, len - off, pkt, &l4_len);
	} else if (type == FW_ETHERTYPE_IPV6) {
		pkt->ipv6 = true;
		r = fw_parse_ipv6(pkt->ip, len - off, pkt, &l4_len);
	} else {
		return FW_ROCE_DROP_ETHERTYPE;
	}
	if (r != FW_ROCE_OK)
		return r;

	pkt->udp = pkt->ip + pkt->ip_hlen;
	r = fw_parse_udp(pkt->udp, l4_len, pkt);
	if (r != FW_ROCE_OK)
		return r;
	return fw_parse_transport(pkt->udp + FW_ROCE_UDP_HLEN,
				  l4_len - FW_ROCE_UDP_HLEN, pkt);
}

/* Destination IP as a GID (IPv4 as ::ffff:a.b.c.d) if the IPv4 packet
 * at ip is an unfragmented UDP datagram to the RoCEv2 port.
 */
static bool fw_ipv4_roce_dgid(const uint8_t *ip, size_t len, uint8_t gid[16])
{
	size_t ihl;

	if (len < FW_ROCE_IPV4_HLEN || ip[0] >> 4 != 4)
		return false;
	ihl = (size_t)(ip[0] & 0xf) * 4;
	if (ihl < FW_ROCE_IPV4_HLEN || len < ihl + FW_ROCE_UDP_HLEN)
		return false;
	/* a fragment other than a whole datagram carries no usable UDP port */
	if (ip[9] != FW_IPPROTO_UDP ||
	    (fw_wire_get16(ip + 6) & FW_IPV4_FRAG_MASK))
		return false;
	if (fw_wire_get16(ip + ihl + 2) != FW_ROCE_UDP_DPORT)
		return false;
	memcpy(gid, fw_roce_ipv4_prefix, sizeof(fw_roce_ipv4_prefix));
	memcpy(gid + 12, ip + 16, 4);
	return true;
}

/* Only UDP directly after the fixed header is recognised (RoCEv2 never
 * uses extension headers).
 */
static bool fw_ipv6_roce_dgid(const uint8_t *ip, size_t len, uint8_t gid[16])
{
	if (len < FW_ROCE_IPV6_HLEN + FW_ROCE_UDP_HLEN || ip[0] >> 4 != 6)
		return false;
	if (ip[6] != FW_IPPROTO_UDP)
		return false;
	if (fw_wire_get16(ip + FW_ROCE_IPV6_HLEN + 2) != FW_ROCE_UDP_DPORT)
		return false;
	memcpy(gid, ip + 24, 16);
	return true;
}

bool fw_roce_frame_dgid(const uint8_t *frame, size_t len, uint8_t gid[16])
{
	size_t l3 = FW_ROCE_ETH_HLEN;
	uint16_t ethertype;

	if (len < FW_ROCE_ETH_HLEN)
		return false;
	ethertype = fw_wire_get16(frame + 12);
	if (ethertype == FW_ETHERTYPE_VLAN) {
		if (len < FW_ROCE_ETH_HLEN + FW_ROCE_VLAN_HLEN)
			return false;
		ethertype = fw_wire_get16(frame + 16);
		l3 += FW_ROCE_VLAN_HLEN;
	}
	if (ethertype == FW_ETHERTYPE_IPV4)
		return fw_ipv4_roce_dgid(frame + l3, len - l3, gid);
	if (ethertype == FW_ETHERTYPE_IPV6)
		return fw_ipv6_roce_dgid(frame + l3, len - l3, gid);
	return false;
}

