/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Userspace stand-ins for the kernel helpers the hardware header relies
 * on (BIT/GENMASK/FIELD_*), little-endian conversions, and compile-time
 * checks that every hardware structure has the size the device expects.
 *
 * Firmware-internal: include this instead of <linux/ordma/ordma_hw.h>
 * so the macros exist before the header is parsed.  Code that also pulls
 * in another project's byte-order helpers (e.g. QEMU's bswap.h) must not
 * include this file.
 */
#ifndef ORDMA_FW_COMPAT_H
#define ORDMA_FW_COMPAT_H

#include <endian.h>
#include <stdint.h>

#ifndef BIT
#define BIT(nr)			(1UL << (nr))
#endif
#ifndef BIT_ULL
#define BIT_ULL(nr)		(1ULL << (nr))
#endif
#ifndef GENMASK
#define GENMASK(h, l) \
	((~0UL << (l)) & (~0UL >> (sizeof(unsigned long) * 8 - 1 - (h))))
#endif
#ifndef GENMASK_ULL
#define GENMASK_ULL(h, l) \
	((~0ULL << (l)) & (~0ULL >> (sizeof(unsigned long long) * 8 - 1 - (h))))
#endif

/* Lowest set bit of a mask: multiplying/dividing by it shifts a field. */
#define FW_MASK_LSB(mask)	((mask) & (~(mask) + 1))
#ifndef FIELD_PREP
#define FIELD_PREP(mask, val)	(((val) * FW_MASK_LSB(mask)) & (mask))
#endif
#ifndef FIELD_GET
#define FIELD_GET(mask, reg)	(((reg) & (mask)) / FW_MASK_LSB(mask))
#endif

#ifndef cpu_to_le16
#define cpu_to_le16(x)		htole16(x)
#define cpu_to_le32(x)		htole32(x)
#define cpu_to_le64(x)		htole64(x)
#define le16_to_cpu(x)		le16toh(x)
#define le32_to_cpu(x)		le32toh(x)
#define le64_to_cpu(x)		le64toh(x)
#endif

#include <linux/ordma/ordma_hw.h>

/* The device DMAs these structures byte for byte: their sizes are ABI. */
_Static_assert(sizeof(struct ordma_aq_cmd_hdr) == 8, "AQ command header");
_Static_assert(sizeof(struct ordma_aq_cmd) == ORDMA_AQ_CMD_SIZE, "AQ command");
_Static_assert(sizeof(struct ordma_aq_comp) == ORDMA_AQ_COMP_SIZE,
	       "AQ completion");
_Static_assert(sizeof(struct ordma_cmd_query_buf) == 16, "query_buf");
_Static_assert(sizeof(struct ordma_cmd_set_port) == 20, "set_port");
_Static_assert(sizeof(struct ordma_cmd_create_eq) == 16, "create_eq");
_Static_assert(sizeof(struct ordma_cmd_handle) == 8, "handle");
_Static_assert(sizeof(struct ordma_cmd_create_eth_ring) == 16, "eth_ring");
_Static_assert(sizeof(struct ordma_cmd_add_gid) == 32, "add_gid");
_Static_assert(sizeof(struct ordma_cmd_alloc_pd) == 8, "alloc_pd");
_Static_assert(sizeof(struct ordma_comp_query_fw) == 16, "comp query_fw");
_Static_assert(sizeof(struct ordma_comp_health) == 20, "comp health");
_Static_assert(sizeof(struct ordma_eqe) == ORDMA_EQE_SIZE, "EQE");
_Static_assert(sizeof(struct ordma_eth_desc) == ORDMA_ETH_DESC_SIZE,
	       "Ethernet descriptor");
_Static_assert(sizeof(struct ordma_device_caps) == 200, "device_caps");
_Static_assert(sizeof(struct ordma_port_attr) == 40, "port_attr");
_Static_assert(sizeof(struct ordma_port_stats) == ORDMA_PORT_STATS_SIZE,
	       "port_stats");
_Static_assert(sizeof(struct ordma_sge) == 16, "SGE");
_Static_assert(sizeof(struct ordma_cqe) == ORDMA_CQE_SIZE, "CQE");
_Static_assert(sizeof(struct ordma_cmd_alloc_mw) == 16, "alloc_mw");
_Static_assert(sizeof(struct ordma_cmd_mcast) == 32, "mcast");
_Static_assert(sizeof(struct ordma_av) == 32, "address vector");
_Static_assert(sizeof(struct ordma_send_wqe) == ORDMA_SEND_WQE_HDR_SIZE,
	       "send WQE header");

#endif /* ORDMA_FW_COMPAT_H */
