// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA firmware platform: what the rooms above ask of the port (whether
 * it is up, the largest RoCE path MTU it carries, a PAUSE the link
 * partner asked for; on an InfiniBand port its logical state and the
 * LIDs it answers to) and the transmission of the RoCE engine's frames
 * or InfiniBand packets, to the wire or to the internal loopback.  The port itself (SET_PORT,
 * QUERY_PORT, the link, the Ethernet rings, receiving loopback frames)
 * is device/fw_eth.c's.
 */
#include <string.h>

#include "platform/fw_platform.h"

bool fw_port_is_ib(const struct ordma_fw *fw)
{
	return fw->cfg.link_layer == ORDMA_LINK_LAYER_INFINIBAND;
}

bool fw_port_is_iwarp(const struct ordma_fw *fw)
{
	return !fw_port_is_ib(fw) &&
	       fw->port.rdma_proto == ORDMA_PORT_PROTO_IWARP;
}

/*
 * The logical state the subnet manager set (through the subnet
 * management agent, device/fw_sma.c) holds while the link is up and the
 * port not disabled.
 */
uint8_t fw_port_ib_state(const struct ordma_fw *fw)
{
	if (!fw->port.link_up || fw->ib.phys_disabled)
		return ORDMA_PORT_DOWN;
	if (fw->ib.state == ORDMA_PORT_ARMED ||
	    fw->ib.state == ORDMA_PORT_ACTIVE)
		return fw->ib.state;
	return ORDMA_PORT_INIT;
}

void fw_port_ib_gid(const struct ordma_fw *fw, uint8_t gid[16])
{
	unsigned int i;

	for (i = 0; i < 8; i++)
		gid[i] = (uint8_t)(fw->ib.gid_prefix >> (56 - 8 * i));
	ordma_fw_mac_to_eui64(fw->cfg.mac, gid + 8);
}

uint16_t fw_port_pkey(const struct ordma_fw *fw)
{
	return fw_port_is_ib(fw) ? fw->ib.pkey : FW_ROCE_DEFAULT_PKEY;
}

bool fw_port_pkey_takes(const struct ordma_fw *fw, uint16_t pkey,
			uint32_t dest_qpn)
{
	uint16_t ours = fw_port_pkey(fw);

	if (fw_port_is_ib(fw) && dest_qpn == ORDMA_SMI_QPN)
		return true;
	if (!(pkey & 0x7fff) || (pkey & 0x7fff) != (ours & 0x7fff))
		return false;
	/* two limited members of a partition do not talk */
	return (pkey & 0x8000) || (ours & 0x8000);
}

bool fw_port_is_active(const struct ordma_fw *fw)
{
	if (fw_port_is_ib(fw))
		return fw_port_ib_state(fw) == ORDMA_PORT_ACTIVE;
	return fw->port.admin_up && fw->port.link_up;
}

uint16_t fw_port_ib_lmc_mask(const struct ordma_fw *fw)
{
	unsigned int lmc = fw->ib.lmc > 7 ? 7 : fw->ib.lmc;

	return (uint16_t)((1u << lmc) - 1);
}

bool fw_port_ib_dlid_ours(const struct ordma_fw *fw, uint16_t dlid, bool qp0)
{
	uint16_t mask = fw_port_ib_lmc_mask(fw);

	if (dlid == FW_IB_LID_PERMISSIVE)
		return qp0;
	if (!fw->ib.lid || dlid >= FW_IB_LID_MCAST_MIN)
		return false;
	return (dlid & (uint16_t)~mask) == (fw->ib.lid & (uint16_t)~mask);
}

uint16_t fw_port_ib_slid(const struct ordma_fw *fw, uint8_t src_path_bits)
{
	uint16_t mask = fw_port_ib_lmc_mask(fw);

	return (uint16_t)((fw->ib.lid & ~mask) | (src_path_bits & mask));
}

/* SLtoVLMappingTable: two 4-bit VLs a byte, SL 0 in the high nibble */
uint8_t fw_port_ib_sl_to_vl(const struct ordma_fw *fw, uint8_t sl)
{
	uint8_t b = fw->ib.sl_to_vl[(sl & 0xf) / 2];

	return (sl & 1) ? (b & 0xf) : (b >> 4);
}

uint32_t fw_ib_mtu_bytes(uint8_t path_mtu)
{
	if (path_mtu < 1 || path_mtu > 5)
		return 0;
	return FW_IB_MTU_MIN << (path_mtu - 1);
}

/*
 * Largest RoCE path MTU whose packets fit into the port's Ethernet MTU;
 * an InfiniBand port carries the largest IB MTU.
 */
uint32_t fw_port_active_ib_mtu(const struct ordma_fw *fw)
{
	uint32_t ib_mtu = FW_IB_MTU_MAX;

	if (fw_port_is_ib(fw))
		return ib_mtu;
	while (ib_mtu > FW_IB_MTU_MIN &&
	       ib_mtu + FW_ROCE_HEADROOM > fw->port.mtu)
		ib_mtu /= 2;
	return ib_mtu;
}

uint64_t fw_port_paused_until(struct ordma_fw *fw)
{
	if (fw->port.pause_until_ns && fw_now(fw) >= fw->port.pause_until_ns)
		fw->port.pause_until_ns = 0;
	return fw->port.pause_until_ns;
}

uint32_t fw_port_max_frame(const struct ordma_fw *fw)
{
	return fw->port.mtu + ORDMA_ETH_OVERHEAD;
}

static void fw_port_loopback_queue(struct ordma_fw *fw, const uint8_t *frame,
				   size_t len)
{
	struct fw_loopback *lb = &fw->loopback;
	uint32_t slot = lb->tail % FW_LOOPBACK_SLOTS;

	if (!lb->frames || lb->tail - lb->head >= FW_LOOPBACK_SLOTS) {
		lb->drop_full++;
		return;
	}
	memcpy(lb->frames[slot], frame, len);
	lb->len[slot] = (uint32_t)len;
	lb->tail++;
	lb->frames_looped++;
	fw_timer_arm_at(fw, fw_now(fw));
}

bool fw_port_roce_tx(struct ordma_fw *fw, const uint8_t *frame, size_t len,
		     bool heard_here)
{
	if (!fw_port_is_active(fw)) {
		fw->stats.tx_drop_link_down++;
		return false;
	}
	if (len > fw_port_max_frame(fw) || len < ORDMA_ETH_MIN_FRAME)
		return false;
	fw->stats.roce_tx_frames++;
	if (!memcmp(frame, fw->port.mac, 6)) {
		fw_port_loopback_queue(fw, frame, len);
		return true;
	}
	if (heard_here)
		fw_port_loopback_queue(fw, frame, len);
	fw->hal.tx_frame(fw->hal_ctx, frame, len);
	fw->stats.tx_frames++;
	fw->stats.tx_bytes += len;
	return true;
}

/*
 * One packet of an InfiniBand port, LRH to VCRC.  A packet to one of the
 * port's own LIDs goes to the internal loopback instead of the cable, a
 * multicast packet the port is itself a receiver of to both.
 * An SMP (VL15) leaves in any state with link; data needs ACTIVE.
 */
bool fw_port_ib_tx(struct ordma_fw *fw, const uint8_t *pkt, size_t len,
		   bool heard_here)
{
	const struct fw_ib_lrh *lrh = (const struct fw_ib_lrh *)pkt;
	bool vl15 = fw_lrh_vl(lrh) == FW_IB_VL15;

	if (fw_port_ib_state(fw) == ORDMA_PORT_DOWN ||
	    (!vl15 && !fw_port_is_active(fw))) {
		fw->stats.tx_drop_link_down++;
		return false;
	}
	if (len > FW_IB_MAX_PKT_LEN || len < FW_IB_LRH_LEN + FW_IB_VCRC_LEN)
		return false;
	fw->stats.roce_tx_frames++;
	if (fw_port_ib_dlid_ours(fw, fw_lrh_dlid(lrh), false)) {
		fw_port_loopback_queue(fw, pkt, len);
		return true;
	}
	if (heard_here)
		fw_port_loopback_queue(fw, pkt, len);
	fw->hal.tx_frame(fw->hal_ctx, pkt, len);
	fw->stats.tx_frames++;
	fw->stats.tx_bytes += len;
	return true;
}
