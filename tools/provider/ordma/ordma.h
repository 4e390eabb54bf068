/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * libibverbs provider for the ORDMA RoCEv2 RNIC: device and object
 * structures shared by the provider's source files.
 */
#ifndef ORDMA_PROVIDER_H
#define ORDMA_PROVIDER_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/driver.h>
#include <infiniband/kern-abi.h>
#include <util/util.h>	/* BIT/GENMASK/FIELD_* used by ordma_io.h */

#include <rdma/ordma-abi.h>
#include <kernel-abi/ordma-abi.h>
#include <linux/ordma/ordma_io.h>

#include "ordma_dp.h"

/* udata of the uverbs commands, laid out by the kernel's ABI structs */
DECLARE_DRV_CMD(ordma_uverbs_get_context, IB_USER_VERBS_CMD_GET_CONTEXT,
		empty, ordma_alloc_ucontext_resp);
DECLARE_DRV_CMD(ordma_uverbs_alloc_pd, IB_USER_VERBS_CMD_ALLOC_PD,
		empty, ordma_alloc_pd_resp);
DECLARE_DRV_CMD(ordma_uverbs_create_cq, IB_USER_VERBS_EX_CMD_CREATE_CQ,
		ordma_create_cq, ordma_create_cq_resp);
DECLARE_DRV_CMD(ordma_uverbs_create_qp, IB_USER_VERBS_CMD_CREATE_QP,
		ordma_create_qp, ordma_create_qp_resp);
DECLARE_DRV_CMD(ordma_uverbs_create_srq, IB_USER_VERBS_CMD_CREATE_SRQ,
		ordma_create_srq, ordma_create_srq_resp);
DECLARE_DRV_CMD(ordma_uverbs_create_ah, IB_USER_VERBS_CMD_CREATE_AH,
		empty, ordma_create_ah_resp);

struct ordma_device {
	struct verbs_device ibv_dev;
};

/* qpn -> QP for poll_cq: two levels of 4096 entries cover 24-bit qpns */
#define ORDMA_QP_TABLE_SHIFT	12
#define ORDMA_QP_TABLE_SIZE	(1 << ORDMA_QP_TABLE_SHIFT)

struct ordma_qp;

struct ordma_context {
	struct verbs_context ibv_ctx;
	uint32_t uctx_id;		/* device context id = doorbell page */
	uint32_t max_inline_data;
	void *db_page;			/* this context's doorbell page (MMIO) */
	pthread_mutex_t qp_table_mutex;	/* writers; readers hold a CQ lock */
	struct ordma_qp **qp_table[ORDMA_QP_TABLE_SIZE];
};

struct ordma_pd {
	struct ibv_pd ibv_pd;
	uint32_t pdn;
};

/* A page-aligned queue ring (whole pages) the kernel pins */
struct ordma_buf {
	void *buf;
	size_t length;
};

struct ordma_cq {
	struct verbs_cq vcq;
	pthread_spinlock_t lock;
	uint32_t cqn;
	int log_size;
	uint32_t ci;			/* free-running consumer index */
	struct ordma_buf ring;
	__le32 *db_record;		/* ci for the device, 8-byte aligned */
	/* extended CQ polling: the CQE being read */
	struct ordma_cqe *cur_cqe;
	struct ordma_qp *cur_qp;
};

/* A send or receive queue of a QP: producer head, consumer tail */
struct ordma_wq {
	pthread_spinlock_t lock;
	struct ordma_buf ring;
	uint64_t *wrid;
	int log_size;
	int wqe_shift;
	uint32_t max_sge;
	uint32_t head;			/* free-running, next WQE to post */
	uint32_t tail;			/* free-running, oldest not completed */
};

struct ordma_srq {
	struct verbs_srq vsrq;
	pthread_spinlock_t lock;
	uint32_t srqn;
	struct ordma_buf ring;
	uint64_t *wrid;
	uint8_t *busy;			/* slot posted, CQE not polled yet */
	int log_size;
	int wqe_shift;
	uint32_t max_sge;
	uint32_t head;
	uint32_t posted;		/* slots busy */
};

/*
 * The batch of an extended post (ibv_wr_start .. ibv_wr_complete), under
 * the SQ lock.  Each work request is encoded in place into the slot at
 * head; head advances when the next one starts or the batch completes,
 * and the SQ's own head only at ibv_wr_complete.
 */
struct ordma_qpx {
	struct ordma_send_wqe *wqe;	/* the request being built, or NULL */
	uint32_t head;			/* slot of the batch's next request */
	int err;			/* first error, returned by wr_complete */
	bool need_ah;			/* UD: wr_set_ud_addr still due */
	bool no_data;			/* FLUSH, ATOMIC WRITE: data dropped */
};

struct ordma_qp {
	struct verbs_qp vqp;		/* vqp.qp_ex valid with VERBS_QP_EX */
	uint32_t qpn;
	bool ud;
	bool uc;
	bool iwarp;			/* RC QP of an iWARP device */
	bool sig_all;
	uint32_t max_inline;
	uint32_t qkey;			/* last set by modify_qp */
	enum ibv_qp_state state;	/* as the provider last moved it */
	struct ordma_wq sq;
	struct ordma_wq rq;		/* unused with an SRQ */
	struct ordma_srq *srq;
	struct ordma_cq *send_cq;
	struct ordma_cq *recv_cq;
	struct ordma_qpx x;
};

struct ordma_ah {
	struct ibv_ah ibv_ah;
	uint32_t handle;
};

static inline struct ordma_context *to_ordma_ctx(struct ibv_context *ibctx)
{
	return container_of(ibctx, struct ordma_context, ibv_ctx.context);
}

static inline struct ordma_pd *to_ordma_pd(struct ibv_pd *ibpd)
{
	return container_of(ibpd, struct ordma_pd, ibv_pd);
}

static inline struct ordma_cq *to_ordma_cq(struct ibv_cq *ibcq)
{
	return container_of(ibcq, struct ordma_cq, vcq.cq);
}

static inline struct ordma_cq *to_ordma_cq_ex(struct ibv_cq_ex *ibcq)
{
	return container_of(ibcq, struct ordma_cq, vcq.cq_ex);
}

static inline struct ordma_qp *to_ordma_qp(struct ibv_qp *ibqp)
{
	return container_of(ibqp, struct ordma_qp, vqp.qp);
}

static inline struct ordma_qp *to_ordma_qpx(struct ibv_qp_ex *ibqpx)
{
	return container_of(ibqpx, struct ordma_qp, vqp.qp_ex);
}

static inline struct ordma_srq *to_ordma_srq(struct ibv_srq *ibsrq)
{
	return container_of(ibsrq, struct ordma_srq, vsrq.srq);
}

static inline struct ordma_ah *to_ordma_ah(struct ibv_ah *ibah)
{
	return container_of(ibah, struct ordma_ah, ibv_ah);
}

/* ordma_verbs.c */
void ordma_qp_table_free(struct ordma_context *ctx);
struct ibv_mr *ordma_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			    uint64_t hca_va, int access);
int ordma_dereg_mr(struct verbs_mr *vmr);
int ordma_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
		   void *addr, size_t length, int access);
struct ibv_mw *ordma_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type);
int ordma_dealloc_mw(struct ibv_mw *mw);
int ordma_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
		  struct ibv_mw_bind *mw_bind);
struct ibv_cq *ordma_create_cq(struct ibv_context *ibctx, int cqe,
			       struct ibv_comp_channel *channel,
			       int comp_vector);
struct ibv_cq_ex *ordma_create_cq_ex(struct ibv_context *ibctx,
				     struct ibv_cq_init_attr_ex *attr);
int ordma_destroy_cq(struct ibv_cq *ibcq);
int ordma_poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc);
int ordma_req_notify_cq(struct ibv_cq *ibcq, int solicited_only);
struct ibv_qp *ordma_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr);
struct ibv_qp *ordma_create_qp_ex(struct ibv_context *ibctx,
				  struct ibv_qp_init_attr_ex *attr);
int ordma_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		    int attr_mask);
int ordma_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		   int attr_mask, struct ibv_qp_init_attr *init_attr);
int ordma_destroy_qp(struct ibv_qp *ibqp);
int ordma_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		    struct ibv_send_wr **bad_wr);
void ordma_qpx_set_ops(struct ordma_qp *qp);
int ordma_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		    struct ibv_recv_wr **bad_wr);
struct ibv_srq *ordma_create_srq(struct ibv_pd *pd,
				 struct ibv_srq_init_attr *attr);
int ordma_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
		     int attr_mask);
int ordma_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr);
int ordma_destroy_srq(struct ibv_srq *ibsrq);
int ordma_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
			struct ibv_recv_wr **bad_wr);
struct ibv_ah *ordma_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr);
int ordma_destroy_ah(struct ibv_ah *ibah);

#endif /* ORDMA_PROVIDER_H */
