/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause */
/*
 * ORDMA RoCEv2 RNIC hardware interface, version 1.
 *
 * The single definition of the device's programming interface, shared
 * verbatim by the Linux drivers, the device firmware and the userspace
 * provider, in three parts by audience:
 *   ordma_regs.h   PCI BARs and BAR0 registers (core driver)
 *   ordma_admin.h  admin commands and their buffers (drivers)
 *   ordma_io.h     the data path: doorbells, WQEs, CQEs, EQEs, Ethernet
 *                  descriptors, queue limits (drivers and the provider)
 * Documentation/ordma/hw-reference.rst describes the semantics of every
 * field defined here.
 *
 * All multi-byte fields in host memory structures are little endian.
 * Bit fields are described by masks (BIT/GENMASK) and used through
 * FIELD_PREP/FIELD_GET; includers outside the kernel provide those macros
 * and ARRAY_SIZE (include/ordma-compat/ordma_compat.h does).  Fields named
 * reserved_<byte offset> must be written as zero; the firmware rejects
 * commands with non-zero reserved fields so that they can be given a
 * meaning later.  Each header asserts the size of its structures.
 */
#ifndef _LINUX_ORDMA_HW_H
#define _LINUX_ORDMA_HW_H

#include <linux/ordma/ordma_regs.h>
#include <linux/ordma/ordma_io.h>
#include <linux/ordma/ordma_admin.h>

#endif /* _LINUX_ORDMA_HW_H */
