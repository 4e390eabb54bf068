// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA firmware platform: what the rooms above ask of the port (whether
 * it is up, the largest RoCE path MTU it carries, a PAUSE the link
 * partner asked for).  The port itself (SET_PORT, QUERY_PORT, the link)
 * is device/fw_eth.c's.
 */
#include "platform/fw_platform.h"

bool fw_port_is_active(const struct ordma_fw *fw)
{
	return fw->port.admin_up && fw->port.link_up;
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
