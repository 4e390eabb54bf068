/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause */
/*
 * ABI between the ordma_ib kernel driver and the libibverbs provider
 * (udata of the uverbs commands).  All structures are 8-byte aligned with
 * explicit padding; reserved fields must be zero.
 */
#ifndef ORDMA_ABI_USER_H
#define ORDMA_ABI_USER_H

#include <linux/types.h>

#define ORDMA_UVERBS_ABI_VERSION	1

struct ordma_alloc_ucontext_resp {
	__aligned_u64 db_mmap_key;	/* mmap offset of the doorbell page */
	__u32 uctx_id;			/* also the doorbell page index */
	__u32 db_page_size;
	__u32 max_inline_data;
	__u32 reserved;
};

struct ordma_alloc_pd_resp {
	__u32 pdn;
	__u32 reserved;
};

#endif /* ORDMA_ABI_USER_H */
