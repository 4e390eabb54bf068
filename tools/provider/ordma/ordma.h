/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * libibverbs provider for the ORDMA RoCEv2 RNIC: device and object
 * structures shared by the provider's source files.
 */
#ifndef ORDMA_PROVIDER_H
#define ORDMA_PROVIDER_H

#include <stddef.h>
#include <stdint.h>

#include <infiniband/driver.h>
#include <infiniband/kern-abi.h>
#include <util/util.h>	/* BIT/GENMASK/FIELD_* used by ordma_hw.h */

#include <rdma/ordma-abi.h>
#include <kernel-abi/ordma-abi.h>
#include <linux/ordma/ordma_hw.h>

/* udata of the uverbs commands, laid out by the kernel's ABI structs */
DECLARE_DRV_CMD(ordma_uverbs_get_context, IB_USER_VERBS_CMD_GET_CONTEXT,
		empty, ordma_alloc_ucontext_resp);
DECLARE_DRV_CMD(ordma_uverbs_alloc_pd, IB_USER_VERBS_CMD_ALLOC_PD,
		empty, ordma_alloc_pd_resp);

struct ordma_device {
	struct verbs_device ibv_dev;
};

struct ordma_context {
	struct verbs_context ibv_ctx;
	uint32_t uctx_id;		/* device context id = doorbell page */
	uint32_t max_inline_data;
	void *db_page;			/* this context's doorbell page (MMIO) */
};

struct ordma_pd {
	struct ibv_pd ibv_pd;
	uint32_t pdn;
};

static inline struct ordma_context *to_ordma_ctx(struct ibv_context *ibctx)
{
	return container_of(ibctx, struct ordma_context, ibv_ctx.context);
}

static inline struct ordma_pd *to_ordma_pd(struct ibv_pd *ibpd)
{
	return container_of(ibpd, struct ordma_pd, ibv_pd);
}

#endif /* ORDMA_PROVIDER_H */
