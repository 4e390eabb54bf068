/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * lwIP's configuration for the firmware's TCP offload: the raw API with
 * no operating system (NO_SYS), IPv4 and TCP only, one network interface
 * per copy, static pools.  The firmware hands the stack IP packets (it
 * strips and adds the Ethernet header itself, and resolves no addresses:
 * no ARP), so everything below the IP layer is off.  Sizes are for
 * FW_TCP_MAX_CONN connections (fw_tcp_slot.h), each able to fill a
 * 256 KiB window in both directions.
 */
#ifndef ORDMA_FW_LWIPOPTS_H
#define ORDMA_FW_LWIPOPTS_H

#include "fw_tcp_slot.h"

#define NO_SYS				1
#define SYS_LIGHTWEIGHT_PROT		0
#define LWIP_TIMERS			1
#define LWIP_SINGLE_NETIF		1

#define LWIP_IPV4			1
#define LWIP_IPV6			0
#define LWIP_ARP			0
#define LWIP_ETHERNET			0
#define LWIP_ICMP			0
#define LWIP_RAW			0
#define LWIP_UDP			0
#define LWIP_IGMP			0
#define LWIP_DHCP			0
#define LWIP_AUTOIP			0
#define LWIP_DNS			0
#define LWIP_NETCONN			0
#define LWIP_SOCKET			0
#define LWIP_NETIF_LOOPBACK		0
#define IP_REASSEMBLY			0	/* fragments are dropped */
#define IP_FRAG				0	/* DF set, MSS below MTU */
#define IP_DEFAULT_TTL			64

#define LWIP_TCP			1
#define TCP_MSS				8960	/* jumbo MTU 9000 - 40 */
#define TCP_CALCULATE_EFF_SEND_MSS	1	/* from the netif's MTU */
#define LWIP_WND_SCALE			1
#define TCP_RCV_SCALE			3
#define TCP_WND				(256 * 1024)
#define TCP_SND_BUF			(256 * 1024)
#define TCP_SND_QUEUELEN		512
#define TCP_SNDLOWAT			16384	/* below 64 KiB - 4 MSS */
#define TCP_SNDQUEUELOWAT		(TCP_SND_QUEUELEN / 2)
#define TCP_QUEUE_OOSEQ			1
#define TCP_OOSEQ_MAX_PBUFS		128	/* per connection */
#define TCP_LISTEN_BACKLOG		1
#define TCP_DEFAULT_LISTEN_BACKLOG	16
/*
 * A listener binds with SO_REUSEADDR, as a host's listening socket does
 * (siw's too): a port whose earlier listener left accepted connections
 * or TIME-WAIT behind can be listened on again.  Two listeners on one
 * port are still refused (tcp_listen() checks).
 */
#define SO_REUSE			1
#define LWIP_TCP_KEEPALIVE		1
#define LWIP_TCP_TIMESTAMPS		0
#define LWIP_TCP_SACK_OUT		0
#define TCP_TMR_INTERVAL		50	/* slow timer, RTO grain: 100 ms */
#define TCP_MAXRTX			12
#define TCP_SYNMAXRTX			6
#define LWIP_RANDOMIZE_INITIAL_LOCAL_PORTS 1

/* Memory: static pools, nothing from malloc */
#define MEM_LIBC_MALLOC			0
#define MEMP_MEM_MALLOC			0
#define MEM_ALIGNMENT			8
#define MEM_SIZE			(6 * 1024 * 1024)
#define MEMP_NUM_TCP_PCB		FW_TCP_MAX_CONN
#define MEMP_NUM_TCP_PCB_LISTEN		FW_TCP_MAX_LISTEN
#define MEMP_NUM_TCP_SEG		4096
#define MEMP_NUM_PBUF			64
#define MEMP_NUM_SYS_TIMEOUT		8
#define PBUF_POOL_SIZE			2048
#define PBUF_POOL_BUFSIZE		2048
#define PBUF_LINK_HLEN			0	/* the glue adds Ethernet */

#define CHECKSUM_GEN_IP			1
#define CHECKSUM_GEN_TCP		1
#define CHECKSUM_CHECK_IP		1
#define CHECKSUM_CHECK_TCP		1

#define LWIP_STATS			1
#define LWIP_STATS_DISPLAY		0
#define LINK_STATS			0
#define ETHARP_STATS			0
#define IP_STATS			1
#define TCP_STATS			1
#define MEM_STATS			1
#define MEMP_STATS			1
#define SYS_STATS			0

#define LWIP_HOOK_FILENAME		"fw_tcp_hooks.h"

#ifndef FW_TCP_ASSERTS
#define LWIP_NOASSERT
#endif

#endif /* ORDMA_FW_LWIPOPTS_H */
