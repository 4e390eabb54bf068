// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The RoCEv2 wire format as the tests and tools use it (roce_codec.h),
 * on top of the firmware's own builder and parser.
 */
#include <string.h>

#include "roce_codec.h"

size_t fw_roce_build(uint8_t *frame, size_t cap, const struct fw_roce_hdrs *h,
		     const void *payload, size_t len)
{
	struct fw_roce_frame f;

	if (fw_roce_frame_init(&f, frame, cap, h, len))
		return 0;
	if (len)
		memcpy(frame + f.payload_off, payload, len);
	fw_roce_frame_seal(&f);
	return f.len;
}

static const char *const fw_roce_drop_names[FW_ROCE_DROP_NUM] = {
	[FW_ROCE_OK] = "ok",
	[FW_ROCE_DROP_ETH_SHORT] = "eth_short",
	[FW_ROCE_DROP_ETHERTYPE] = "ethertype",
	[FW_ROCE_DROP_IPV4_SHORT] = "ipv4_short",
	[FW_ROCE_DROP_IPV4_VERSION] = "ipv4_version",
	[FW_ROCE_DROP_IPV4_IHL] = "ipv4_ihl",
	[FW_ROCE_DROP_IPV4_LENGTH] = "ipv4_length",
	[FW_ROCE_DROP_IPV4_CHECKSUM] = "ipv4_checksum",
	[FW_ROCE_DROP_IPV4_FRAGMENT] = "ipv4_fragment",
	[FW_ROCE_DROP_IPV6_SHORT] = "ipv6_short",
	[FW_ROCE_DROP_IPV6_VERSION] = "ipv6_version",
	[FW_ROCE_DROP_IPV6_LENGTH] = "ipv6_length",
	[FW_ROCE_DROP_IP_PROTO] = "ip_proto",
	[FW_ROCE_DROP_UDP_SHORT] = "udp_short",
	[FW_ROCE_DROP_UDP_PORT] = "udp_port",
	[FW_ROCE_DROP_UDP_LENGTH] = "udp_length",
	[FW_ROCE_DROP_UDP_CHECKSUM] = "udp_checksum",
	[FW_ROCE_DROP_BTH_SHORT] = "bth_short",
	[FW_ROCE_DROP_TVER] = "tver",
	[FW_ROCE_DROP_OPCODE] = "opcode",
	[FW_ROCE_DROP_EXT_SHORT] = "ext_short",
	[FW_ROCE_DROP_PAD] = "pad",
	[FW_ROCE_DROP_ICRC] = "icrc",
};

const char *fw_roce_drop_name(enum fw_roce_drop reason)
{
	if ((unsigned int)reason >= FW_ROCE_DROP_NUM)
		return "unknown";
	return fw_roce_drop_names[reason];
}

void fw_roce_decode(const struct fw_roce_pkt *pkt, struct fw_roce_hdrs *h)
{
	const uint8_t *ip = pkt->ip;
	const struct fw_roce_bth *bth = pkt->bth;
	uint32_t vtf;

	memset(h, 0, sizeof(*h));
	memcpy(h->dmac, pkt->frame, 6);
	memcpy(h->smac, pkt->frame + 6, 6);
	h->vlan_id = FW_ROCE_VLAN_NONE;
	if (pkt->vlan) {
		h->vlan_id = pkt->vlan_tci & FW_VLAN_VID_MASK;
		h->vlan_prio = (uint8_t)(pkt->vlan_tci >> FW_VLAN_PRIO_SHIFT);
	}

	if (pkt->ipv6) {
		vtf = fw_wire_get32(ip);
		h->traffic_class = (uint8_t)(vtf >> 20);
		h->flow_label = vtf & FW_ROCE_FLOW_LABEL_MASK;
		h->hop_limit = ip[7];
		memcpy(h->sgid, ip + 8, 16);
		memcpy(h->dgid, ip + 24, 16);
		h->udp6_zero_csum = !fw_wire_get16(pkt->udp + 6);
	} else {
		h->traffic_class = ip[1];
		h->ip_id = fw_wire_get16(ip + 4);
		h->hop_limit = ip[8];
		memcpy(h->sgid, fw_roce_ipv4_prefix, 12);
		memcpy(h->sgid + 12, ip + 12, 4);
		memcpy(h->dgid, fw_roce_ipv4_prefix, 12);
		memcpy(h->dgid + 12, ip + 16, 4);
	}
	h->udp_sport = fw_wire_get16(pkt->udp);

	h->opcode = fw_bth_opcode(bth);
	h->se = fw_bth_se(bth);
	h->mig = fw_bth_mig(bth);
	h->fecn = fw_bth_fecn(bth);
	h->becn = fw_bth_becn(bth);
	h->ack_req = fw_bth_ack_req(bth);
	h->pkey = fw_bth_pkey(bth);
	h->dest_qp = fw_bth_dest_qp(bth);
	h->psn = fw_bth_psn(bth);

	if (pkt->deth) {
		h->deth.qkey = fw_deth_qkey(pkt->deth);
		h->deth.src_qp = fw_deth_src_qp(pkt->deth);
	}
	if (pkt->reth) {
		h->reth.va = fw_reth_va(pkt->reth);
		h->reth.rkey = fw_reth_rkey(pkt->reth);
		h->reth.dma_len = fw_reth_dma_len(pkt->reth);
	}
	if (pkt->atomic_eth) {
		h->atomic.va = fw_atomic_eth_va(pkt->atomic_eth);
		h->atomic.rkey = fw_atomic_eth_rkey(pkt->atomic_eth);
		h->atomic.swap_add = fw_atomic_eth_swap_add(pkt->atomic_eth);
		h->atomic.compare = fw_atomic_eth_compare(pkt->atomic_eth);
	}
	if (pkt->aeth) {
		h->aeth.syndrome = fw_aeth_syndrome(pkt->aeth);
		h->aeth.msn = fw_aeth_msn(pkt->aeth);
	}
	if (pkt->atomic_ack_eth)
		h->atomic_orig = fw_atomic_ack_eth_orig(pkt->atomic_ack_eth);
	if (pkt->immdt)
		h->imm = fw_immdt_get(pkt->immdt);
	if (pkt->ieth)
		h->inv_rkey = fw_ieth_rkey(pkt->ieth);
	if (pkt->feth) {
		h->feth.placement = (uint8_t)fw_feth_placement(pkt->feth);
		h->feth.level = (uint8_t)fw_feth_level(pkt->feth);
	}
}
