// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * libibverbs provider for the ORDMA RoCEv2 RNIC.
 *
 * Device matching, the user context (with its doorbell page) and the
 * control verbs that need no queue memory: device and port query, PD.
 * The queue verbs are in ordma_verbs.c, the WQE/CQE encoding in
 * ordma_dp.c.  Verbs not set in ordma_ctx_ops are answered with
 * EOPNOTSUPP by libibverbs.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "ordma.h"

static int ordma_query_device_ex(struct ibv_context *ibctx,
				 const struct ibv_query_device_ex_input *input,
				 struct ibv_device_attr_ex *attr,
				 size_t attr_size)
{
	struct verbs_device *vdev = verbs_get_device(ibctx->device);
	struct ib_uverbs_ex_query_device_resp resp;
	size_t resp_size = sizeof(resp);
	int ret;

	ret = ibv_cmd_query_device_any(ibctx, input, attr, attr_size, &resp,
				       &resp_size);
	if (ret)
		return ret;

	/*
	 * The kernel publishes the firmware version string (QUERY_FW's
	 * major.minor.sub_minor) in sysfs; reuse it verbatim so that
	 * ibv_devinfo and sysfs always agree.  Leave it empty if absent.
	 */
	if (ibv_read_ibdev_sysfs_file(attr->orig_attr.fw_ver,
				      sizeof(attr->orig_attr.fw_ver),
				      vdev->sysfs, "fw_ver") <= 0)
		attr->orig_attr.fw_ver[0] = '\0';

	return 0;
}

static int ordma_query_port(struct ibv_context *ibctx, uint8_t port,
			    struct ibv_port_attr *attr)
{
	struct ibv_query_port cmd;

	return ibv_cmd_query_port(ibctx, port, attr, &cmd, sizeof(cmd));
}

static struct ibv_pd *ordma_alloc_pd(struct ibv_context *ibctx)
{
	struct ordma_uverbs_alloc_pd_resp resp = {};
	struct ordma_uverbs_alloc_pd cmd = {};
	struct ordma_pd *pd;
	int ret;

	pd = calloc(1, sizeof(*pd));
	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}

	ret = ibv_cmd_alloc_pd(ibctx, &pd->ibv_pd, &cmd.ibv_cmd, sizeof(cmd),
			       &resp.ibv_resp, sizeof(resp));
	if (ret) {
		verbs_err(verbs_get_ctx(ibctx), "ALLOC_PD failed: %d\n", ret);
		free(pd);
		errno = ret;
		return NULL;
	}

	pd->pdn = resp.pdn;
	verbs_debug(verbs_get_ctx(ibctx), "pdn %u\n", pd->pdn);

	return &pd->ibv_pd;
}

static int ordma_dealloc_pd(struct ibv_pd *ibpd)
{
	struct ordma_pd *pd = to_ordma_pd(ibpd);
	int ret;

	ret = ibv_cmd_dealloc_pd(ibpd);
	if (ret)
		return ret;

	free(pd);
	return 0;
}

static void ordma_free_context(struct ibv_context *ibctx)
{
	struct ordma_context *ctx = to_ordma_ctx(ibctx);

	munmap(ctx->db_page, ORDMA_DB_PAGE_SIZE);
	ordma_qp_table_free(ctx);
	pthread_mutex_destroy(&ctx->qp_table_mutex);
	verbs_uninit_context(&ctx->ibv_ctx);
	free(ctx);
}

static const struct verbs_context_ops ordma_ctx_ops = {
	.alloc_mw = ordma_alloc_mw,
	.alloc_pd = ordma_alloc_pd,
	.bind_mw = ordma_bind_mw,
	/* the kernel tells the device; nothing is kept here */
	.attach_mcast = ibv_cmd_attach_mcast,
	.create_ah = ordma_create_ah,
	.create_cq = ordma_create_cq,
	.create_cq_ex = ordma_create_cq_ex,
	.create_qp = ordma_create_qp,
	.create_qp_ex = ordma_create_qp_ex,
	.create_srq = ordma_create_srq,
	.dealloc_mw = ordma_dealloc_mw,
	.dealloc_pd = ordma_dealloc_pd,
	.dereg_mr = ordma_dereg_mr,
	.destroy_ah = ordma_destroy_ah,
	.destroy_cq = ordma_destroy_cq,
	.destroy_qp = ordma_destroy_qp,
	.destroy_srq = ordma_destroy_srq,
	.detach_mcast = ibv_cmd_detach_mcast,
	.free_context = ordma_free_context,
	.modify_qp = ordma_modify_qp,
	.modify_srq = ordma_modify_srq,
	.poll_cq = ordma_poll_cq,
	.post_recv = ordma_post_recv,
	.post_send = ordma_post_send,
	.post_srq_recv = ordma_post_srq_recv,
	.query_device_ex = ordma_query_device_ex,
	.query_port = ordma_query_port,
	.query_qp = ordma_query_qp,
	.query_srq = ordma_query_srq,
	.reg_mr = ordma_reg_mr,
	.req_notify_cq = ordma_req_notify_cq,
	.rereg_mr = ordma_rereg_mr,
};

static struct verbs_context *ordma_alloc_context(struct ibv_device *ibdev,
						 int cmd_fd,
						 void *private_data)
{
	struct ordma_uverbs_get_context_resp resp = {};
	struct ordma_uverbs_get_context cmd = {};
	struct ordma_context *ctx;
	int err;

	/* Commands carry the kernel's driver id; ORDMA has none of its own */
	ctx = verbs_init_and_alloc_context(ibdev, cmd_fd, ctx, ibv_ctx,
					   RDMA_DRIVER_UNKNOWN);
	if (!ctx)
		return NULL;

	err = ibv_cmd_get_context(&ctx->ibv_ctx, &cmd.ibv_cmd, sizeof(cmd),
				  &resp.ibv_resp, sizeof(resp));
	if (err) {
		verbs_err(&ctx->ibv_ctx, "GET_CONTEXT failed: %d\n", err);
		goto err_free;
	}

	/* A kernel with a shorter response leaves db_page_size zero */
	if (resp.db_page_size != ORDMA_DB_PAGE_SIZE) {
		verbs_err(&ctx->ibv_ctx, "unsupported doorbell page size %u\n",
			  resp.db_page_size);
		err = EPROTO;
		goto err_free;
	}

	/* Doorbells are write-only; the kernel maps the page uncached. */
	ctx->db_page = mmap(NULL, ORDMA_DB_PAGE_SIZE, PROT_WRITE, MAP_SHARED,
			    cmd_fd, resp.db_mmap_key);
	if (ctx->db_page == MAP_FAILED) {
		err = errno;
		verbs_err(&ctx->ibv_ctx, "doorbell page mmap failed: %d\n",
			  err);
		goto err_free;
	}

	ctx->uctx_id = resp.uctx_id;
	ctx->max_inline_data = resp.max_inline_data;
	pthread_mutex_init(&ctx->qp_table_mutex, NULL);
	verbs_set_ops(&ctx->ibv_ctx, &ordma_ctx_ops);
	verbs_debug(&ctx->ibv_ctx, "uctx %u, max_inline_data %u\n",
		    ctx->uctx_id, ctx->max_inline_data);

	return &ctx->ibv_ctx;

err_free:
	/* Closes cmd_fd, which releases the kernel's user context. */
	verbs_uninit_context(&ctx->ibv_ctx);
	free(ctx);
	errno = err;
	return NULL;
}

static struct verbs_device *
ordma_alloc_device(struct verbs_sysfs_dev *sysfs_dev)
{
	struct ordma_device *dev;

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return NULL;

	return &dev->ibv_dev;
}

static void ordma_uninit_device(struct verbs_device *vdev)
{
	free(container_of(vdev, struct ordma_device, ibv_dev));
}

/*
 * The kernel reports RDMA_DRIVER_UNKNOWN for ORDMA devices, so libibverbs
 * matches the modalias of the ib_device's parent, which ordma_ib sets to
 * the PCI function (the auxiliary device has no modalias).
 */
static const struct verbs_match_ent ordma_match_table[] = {
	VERBS_PCI_MATCH(ORDMA_PCI_VENDOR_ID, ORDMA_PCI_DEVICE_ID, NULL),
	{}
};

static const struct verbs_device_ops ordma_dev_ops = {
	.name = "ordma",
	.match_min_abi_version = ORDMA_UVERBS_ABI_VERSION,
	.match_max_abi_version = ORDMA_UVERBS_ABI_VERSION,
	.match_table = ordma_match_table,
	.alloc_device = ordma_alloc_device,
	.uninit_device = ordma_uninit_device,
	.alloc_context = ordma_alloc_context,
};

PROVIDER_DRIVER(ordma, ordma_dev_ops);
