/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * lwIP hooks of the firmware's copy (fw_tcp_stack.c): the initial
 * sequence number and a look at each segment before its connection
 * takes it, which counts what TCP drops silently.
 */
#ifndef ORDMA_FW_TCP_HOOKS_H
#define ORDMA_FW_TCP_HOOKS_H

struct tcp_pcb;
struct tcp_hdr;
struct pbuf;

u32_t fw_tcp_isn(const ip_addr_t *local_ip, u16_t local_port,
		 const ip_addr_t *remote_ip, u16_t remote_port);
err_t fw_tcp_inpacket(struct tcp_pcb *pcb, struct tcp_hdr *hdr, u16_t optlen,
		      u16_t opt1len, u8_t *opt2, struct pbuf *p);

#define LWIP_HOOK_TCP_ISN(lip, lport, rip, rport) \
	fw_tcp_isn(lip, lport, rip, rport)
#define LWIP_HOOK_TCP_INPACKET_PCB(pcb, hdr, optlen, opt1len, opt2, p) \
	fw_tcp_inpacket(pcb, hdr, optlen, opt1len, opt2, p)

#endif /* ORDMA_FW_TCP_HOOKS_H */
