/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Userspace stand-ins for the kernel helpers the hardware header relies
 * on: BIT/GENMASK, FIELD_PREP/FIELD_GET, the byte-order conversions and
 * ARRAY_SIZE.  Include it before <linux/ordma/ordma_hw.h> in the firmware,
 * its host tests and the userspace tools.  Code that also pulls in another
 * project's byte-order helpers (e.g. QEMU's bswap.h) must not include it.
 */
#ifndef ORDMA_COMPAT_H
#define ORDMA_COMPAT_H

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
#define ORDMA_MASK_LSB(mask)	((mask) & (~(mask) + 1))
#ifndef FIELD_PREP
#define FIELD_PREP(mask, val)	(((val) * ORDMA_MASK_LSB(mask)) & (mask))
#endif
#ifndef FIELD_GET
#define FIELD_GET(mask, reg)	(((reg) & (mask)) / ORDMA_MASK_LSB(mask))
#endif

#ifndef cpu_to_le16
#define cpu_to_le16(x)		htole16(x)
#define cpu_to_le32(x)		htole32(x)
#define cpu_to_le64(x)		htole64(x)
#define le16_to_cpu(x)		le16toh(x)
#define le32_to_cpu(x)		le32toh(x)
#define le64_to_cpu(x)		le64toh(x)
#endif

/* MADs and the InfiniBand headers are big-endian */
#ifndef cpu_to_be16
#define cpu_to_be16(x)		htobe16(x)
#define cpu_to_be32(x)		htobe32(x)
#define cpu_to_be64(x)		htobe64(x)
#define be16_to_cpu(x)		be16toh(x)
#define be32_to_cpu(x)		be32toh(x)
#define be64_to_cpu(x)		be64toh(x)
#endif

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#endif

#endif /* ORDMA_COMPAT_H */
