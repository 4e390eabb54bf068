/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * libibverbs provider for the ORDMA RoCEv2 RNIC: the pure data-path
 * helpers (queue geometry, WQE encoding, CQE decoding).  They touch no
 * provider object and no device, so `make -C tools/provider check` unit
 * tests them on a host without an ORDMA device (tools/provider/dp-test.c).
 */
#ifndef ORDMA_DP_H
#define ORDMA_DP_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>
#include <util/util.h>	/* BIT/GENMASK/FIELD_* used by ordma_io.h */

/*
 * ORDMA_VERBS_NO_FLUSH: built against the verbs.h of libibverbs 44
 * (Debian 12's libibverbs1; tools/provider/build-system.sh), which has
 * no FLUSH: its struct ibv_qp_ex ends before wr_flush, so struct
 * verbs_qp, whose comp_mask that libibverbs reads, is 8 bytes shorter
 * than in 45 and later.  The provider then offers no ibv_wr_flush(); the
 * values it still decodes are the uverbs ABI's.
 */
#ifdef ORDMA_VERBS_NO_FLUSH
#define IBV_WR_FLUSH			14
#define IBV_WC_FLUSH			8
#define IBV_ACCESS_FLUSH_GLOBAL		(1 << 8)
#define IBV_ACCESS_FLUSH_PERSISTENT	(1 << 9)
#define IBV_FLUSH_GLOBAL		(1U << 0)
#define IBV_FLUSH_PERSISTENT		(1U << 1)
#define IBV_FLUSH_RANGE			0
#define IBV_FLUSH_MR			1
#define IBV_QP_EX_WITH_FLUSH		0	/* not offered */
#endif

#include <linux/ordma/ordma_io.h>

/* One SGE cap for both queues (ordma_cap_sge) */
#define ORDMA_MAX_SGE			ORDMA_MAX_SEND_SGE
static_assert(ORDMA_MAX_SEND_SGE == ORDMA_MAX_RECV_SGE, "one SGE cap");
/* Q_Key with the high bit set: use the QP's own Q_Key (IBTA 10.2.5) */
#define ORDMA_QKEY_USE_QP		0x80000000u

/* Smallest n >= min_log with 2^n >= want, or -1 if above max_log. */
int ordma_log2_ceil(uint32_t want, int min_log, int max_log);

/* log2 of the CQ ring for a request of cqe entries (one spare slot). */
int ordma_cq_log_size(int cqe);

/*
 * log2 of the send WQE size holding max(16 * sge, inline) bytes after
 * the 48-byte header (at least one SGE), or -1 beyond 512 bytes.
 */
int ordma_sq_wqe_shift(uint32_t max_send_sge, uint32_t max_inline);
/* log2 of the receive WQE size for sge SGEs (at least 1), or -1. */
int ordma_rq_wqe_shift(uint32_t max_recv_sge);
/* SGEs that fit a send / receive WQE of 2^shift bytes (capped at 8) */
uint32_t ordma_sq_max_sge(int shift);
uint32_t ordma_rq_max_sge(int shift);

/* What a send WQE needs besides the work request. */
struct ordma_send_params {
	bool ud;			/* QP type UD (else RC or UC) */
	bool uc;			/* QP type UC */
	bool iwarp;			/* the device's transport is iWARP */
	bool sig_all;			/* sq_sig_all */
	uint32_t max_sge;		/* the QP's max_send_sge */
	uint32_t max_inline;		/* the QP's max_inline_data */
	uint32_t qkey;			/* the QP's Q_Key (UD) */
	uint32_t ah_handle;		/* UD: handle of wr->wr.ud.ah */
};

/*
 * Rights of a window bind (ibv_mw_bind_info.mw_access_flags) as
 * ORDMA_ACCESS_* bits: 0, or EINVAL for a flag a window cannot have.
 */
int ordma_mw_access_to_hw(unsigned int access, uint32_t *hw);

/*
 * Send WQE encoders, one per segment, shared by ibv_post_send
 * (ordma_build_send_wqe) and the extended ibv_wr_* API (ordma_verbs.c):
 * each writes its part of the WQE in place.  ordma_wqe_set_ctrl starts a
 * WQE (zeroes the 48-byte header); the data encoders add NUM_SGE or
 * INLINE to its control word; ordma_wqe_check ends it.  Those returning
 * int give 0 or EINVAL.
 */

/* The ORDMA opcode of a work request on a QP of the type, or -1. */
int ordma_wqe_opcode(enum ibv_wr_opcode op, bool ud, bool uc);
/*
 * SIGNALED (or sig_all), SOLICITED and FENCE of send_flags; INLINE is
 * the data encoders' to set.
 */
void ordma_wqe_set_ctrl(struct ordma_send_wqe *w, uint8_t opcode,
			unsigned int send_flags, bool sig_all);
/* SEND_IMM, RDMA_WRITE_IMM: the immediate, in network order as given */
void ordma_wqe_set_imm(struct ordma_send_wqe *w, __be32 imm_data);
/* SEND_INV, LOCAL_INV: the rkey to invalidate */
void ordma_wqe_set_inv(struct ordma_send_wqe *w, uint32_t rkey);
/* RDMA WRITE (with immediate) and READ */
void ordma_wqe_set_rdma(struct ordma_send_wqe *w, uint32_t rkey,
			uint64_t remote_addr);
/* CMP_SWP (compare, swap) and FETCH_ADD (addend, swap 0) */
void ordma_wqe_set_atomic(struct ordma_send_wqe *w, uint32_t rkey,
			  uint64_t remote_addr, uint64_t compare_add,
			  uint64_t swap);
/*
 * BIND_MW: the window keeps its index, the new rkey's key byte is the
 * caller's; a length needs an MR.
 */
int ordma_wqe_set_bind_mw(struct ordma_send_wqe *w, const struct ibv_mw *mw,
			  uint32_t rkey, const struct ibv_mw_bind_info *bi);
/*
 * FLUSH: type is IBV_FLUSH_GLOBAL and/or IBV_FLUSH_PERSISTENT, level
 * IBV_FLUSH_RANGE (len at most 2^31) or IBV_FLUSH_MR (len ignored).
 */
int ordma_wqe_set_flush(struct ordma_send_wqe *w, uint32_t rkey,
			uint64_t remote_addr, size_t len, uint8_t type,
			uint8_t level);
/* ATOMIC WRITE: the 8 bytes at value, sent as they are in memory */
void ordma_wqe_set_atomic_write(struct ordma_send_wqe *w, uint32_t rkey,
				uint64_t remote_addr, const void *value);
/* UD: a remote_qkey with ORDMA_QKEY_USE_QP set stands for qp_qkey */
void ordma_wqe_set_ud(struct ordma_send_wqe *w, uint32_t ah_handle,
		      uint32_t remote_qpn, uint32_t remote_qkey,
		      uint32_t qp_qkey);
/* n SGEs after the header (replacing inline data); max_sge of the QP */
int ordma_wqe_set_sges(struct ordma_send_wqe *w, int shift, uint32_t max_sge,
		       const struct ibv_sge *sg, size_t n);
/* Inline data: start it empty, then append the pieces in order */
void ordma_wqe_start_inline(struct ordma_send_wqe *w);
int ordma_wqe_add_inline(struct ordma_send_wqe *w, int shift,
			 uint32_t max_inline, const void *addr, size_t length);
/*
 * The data fits the opcode: one SGE for an atomic, no inline data for
 * RDMA READ or an atomic, no data for LOCAL_INV or BIND_MW.
 */
int ordma_wqe_check(const struct ordma_send_wqe *w);

/*
 * A built WQE on an iWARP device: EINVAL for what iWARP lacks (immediate
 * data, atomics, FLUSH, ATOMIC WRITE, an RDMA READ with other than one
 * SGE, a window bind granting atomic or FLUSH rights), else 0.
 */
int ordma_wqe_check_iwarp(const struct ordma_send_wqe *w);

/*
 * Encodes wr into the send WQE at wqe (2^shift bytes; the header is
 * zeroed first).  Returns 0 or EINVAL (opcode not valid for the QP
 * type, too many SGEs, inline data too long).
 */
int ordma_build_send_wqe(void *wqe, int shift, const struct ibv_send_wr *wr,
			 const struct ordma_send_params *p);

/*
 * Extended QP (ibv_create_qp_ex with IBV_QP_INIT_ATTR_SEND_OPS_FLAGS):
 * the send_ops_flags implemented on a UD, a UC and an RC QP.  Not offered:
 * LOCAL_INV (as a batch op; ibv_post_send has it), TSO.
 */
#define ORDMA_QPX_OPS_UD	(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM)
#define ORDMA_QPX_OPS_UC						\
	(ORDMA_QPX_OPS_UD | IBV_QP_EX_WITH_RDMA_WRITE |			\
	 IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM)
#define ORDMA_QPX_OPS_RC						\
	(ORDMA_QPX_OPS_UD | IBV_QP_EX_WITH_SEND_WITH_INV |		\
	 IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | \
	 IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |	\
	 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | IBV_QP_EX_WITH_FLUSH |	\
	 IBV_QP_EX_WITH_ATOMIC_WRITE | IBV_QP_EX_WITH_BIND_MW)
/* wr_flags an extended post takes (INLINE is implied by the setter) */
#define ORDMA_QPX_WR_FLAGS						\
	(IBV_SEND_SIGNALED | IBV_SEND_SOLICITED | IBV_SEND_FENCE |	\
	 IBV_SEND_INLINE)

/* An RC QP of an iWARP device: no immediate data, atomics or FLUSH */
#define ORDMA_QPX_OPS_IWARP						\
	(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_INV |		\
	 IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_READ |		\
	 IBV_QP_EX_WITH_BIND_MW)

/* 0 if every op of send_ops_flags is implemented for the type, else EOPNOTSUPP */
int ordma_qpx_check_ops(bool ud, uint64_t send_ops_flags);

/* Encodes a receive work request; 0 or EINVAL (too many SGEs). */
int ordma_build_recv_wqe(void *wqe, int shift, const struct ibv_recv_wr *wr,
			 uint32_t max_sge);

/* The CQE at consumer index ci of a 2^log_size ring is the device's new one. */
static inline bool ordma_cqe_valid(const struct ordma_cqe *cqe, uint32_t ci,
				   int log_size)
{
	uint32_t owner = le32toh(*(const volatile __le32 *)&cqe->owner);
	bool phase = !((ci >> log_size) & 1);	/* 1 on the first pass */

	return !!(owner & ORDMA_CQE_PHASE) == phase;
}

static inline bool ordma_cqe_is_recv(const struct ordma_cqe *cqe)
{
	return cqe->opcode & ORDMA_CQE_OP_RECV;
}

/* Fills everything of wc but wr_id from the CQE. */
void ordma_cqe_to_wc(const struct ordma_cqe *cqe, struct ibv_wc *wc);

/*
 * The SL of a UD receive completion carries its packet type (as mlx5
 * has it): the frame is UDP-encapsulated (RoCE v2) and its network
 * header is IPv4 or IPv6.  0 for every other completion.
 */
#define ORDMA_WC_SL_ROCE_UDP		0x8
#define ORDMA_WC_SL_L3_IPV6		0x1
#define ORDMA_WC_SL_L3_IPV4		0x2
uint8_t ordma_wc_sl(const struct ordma_cqe *cqe);

/* ibv_wc_opcode of a CQE opcode */
enum ibv_wc_opcode ordma_wc_opcode(uint8_t cqe_opcode);

#endif /* ORDMA_DP_H */
