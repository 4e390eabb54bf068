/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * lwIP's platform header for the firmware: a hosted C11 compiler on a
 * little-endian CPU (the C library's <endian.h> gives BYTE_ORDER).  lwIP's own checks are assertions of its internal
 * invariants (never of received data); one that fails ends the process
 * in a test build and is compiled out otherwise (lwipopts.h).
 */
#ifndef ORDMA_FW_LWIP_ARCH_CC_H
#define ORDMA_FW_LWIP_ARCH_CC_H

#include <stdlib.h>

#define LWIP_PLATFORM_DIAG(x)		do { } while (0)

void fw_tcp_assert_failed(const char *what, const char *file, int line);
#define LWIP_PLATFORM_ASSERT(x)	fw_tcp_assert_failed((x), __FILE__, __LINE__)

unsigned int fw_tcp_rand(void);
#define LWIP_RAND()			fw_tcp_rand()

#endif /* ORDMA_FW_LWIP_ARCH_CC_H */
