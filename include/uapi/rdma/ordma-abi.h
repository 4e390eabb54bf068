/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause */
/*
 * ABI between the ordma_ib kernel driver and the libibverbs provider
 * (udata of the uverbs commands).  All structures are 8-byte aligned with
 * explicit padding; reserved fields must be zero.
 *
 * Queue rings (CQ, SQ, RQ, SRQ) live in memory the provider allocates,
 * page aligned and a whole number of pages long; the driver pins them and
 * hands the device their page lists.  Sizes are powers of two given as
 * log2: ring bytes = 2^log_size entries * entry size (CQE: ORDMA_CQE_SIZE,
 * send WQE: 2^sq_wqe_shift, receive WQE: 2^rq_wqe_shift).
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

struct ordma_create_cq {
	__aligned_u64 buf_addr;		/* 2^log_size CQEs, page aligned */
	/* __le32 consumer index the provider keeps current; 8-byte aligned */
	__aligned_u64 db_record_addr;
	__u8 log_size;
	__u8 reserved[7];
};

struct ordma_create_cq_resp {
	__u32 cqn;
	__u32 reserved;
};

struct ordma_create_qp {
	__aligned_u64 sq_buf_addr;	/* page aligned */
	__aligned_u64 rq_buf_addr;	/* 0 for a QP on an SRQ */
	__u8 sq_log_size;
	__u8 rq_log_size;		/* 0 for a QP on an SRQ */
	__u8 sq_wqe_shift;
	__u8 rq_wqe_shift;		/* 0 for a QP on an SRQ */
	__u32 reserved;
};

struct ordma_create_qp_resp {
	__u32 qpn;
	__u32 max_inline_data;		/* what the device granted */
};

struct ordma_create_srq {
	__aligned_u64 buf_addr;		/* page aligned */
	__u8 log_size;
	__u8 wqe_shift;
	__u8 reserved[6];
};

struct ordma_create_srq_resp {
	__u32 srqn;
	__u32 reserved;
};

struct ordma_create_ah_resp {
	__u32 ah_handle;		/* goes into the UD send WQE */
	__u32 reserved;
};

#endif /* ORDMA_ABI_USER_H */
