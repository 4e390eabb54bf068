// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA firmware platform: what the rooms above ask of the port (whether
 * it is up, the largest RoCE path MTU it carries, a PAUSE the link
 * partner asked for) and the transmission of the RoCE engine's frames,
 * to the wire or to the internal loopback.  The port itself (SET_PORT,
 * QUERY_PORT, the link, the Ethernet rings, receiving loopback frames)
 * is device/fw_eth.c's.
 */
#include <string.h>

#include "platform/fw_platform.h"

bool fw_port_is_ib(const struct ordma_fw *fw)
{
	return fw->cfg.link_layer == ORDMA_LINK_LAYER_INFINIBAND;
}

bool fw_port_is_active(const struct ordma_fw *fw)
{
	return !fw_port_is_ib(fw) && fw->port.admin_up && fw->port.link_up;
}

uint32_t fw_ib_mtu_bytes(uint8_t path_mtu)
{
	if (path_mtu < 1 || path_mtu > 5)
		return 0;
	return FW_IB_MTU_MIN << (path_mtu - 1);
}

/* Largest RoCE path MTU whose packets fit into the port's Ethernet MTU. */
uint32_t fw_port_active_ib_mtu(const struct ordma_fw *fw)
{
	uint32_t ib_mtu = FW_IB_MTU_MAX;

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
