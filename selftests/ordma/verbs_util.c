// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Helpers shared by the ORDMA verbs selftests (see verbs_util.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rdma/ib_user_verbs.h>

#include "ordma_test.h"
#include "verbs_util.h"

#define UVERBS_CMD_MAX	512

uint64_t verbs_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ull + ts.tv_nsec / 1000000;
}

int verbs_two_devs_main(int argc, char **argv, struct verbs_two_devs *devs)
{
	if (argc < 5) {
		fprintf(stderr, "usage: %s DEV_A GID_INDEX_A DEV_B GID_INDEX_B [TEST...]\n",
			argv[0]);
		return 2;
	}
	devs->name[0] = argv[1];
	devs->gid_index[0] = atoi(argv[2]);
	devs->name[1] = argv[3];
	devs->gid_index[1] = atoi(argv[4]);
	/* the rest are the runner's test name filters */
	argv[4] = argv[0];
	return ordma_test_main(argc - 4, argv + 4);
}

static struct ibv_context *open_by_name(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	if (!list)
		return NULL;
	for (i = 0; list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			break;
	if (list[i])
		ctx = ibv_open_device(list[i]);
	else
		errno = ENODEV;
	ibv_free_device_list(list);
	return ctx;
}

int verbs_dev_open(struct verbs_dev *dev, const char *name, int gid_index)
{
	const char *step;

	memset(dev, 0, sizeof(*dev));
	dev->gid_index = gid_index;
	step = "ibv_open_device";
	dev->ctx = open_by_name(name);
	if (!dev->ctx)
		goto fail;
	step = "ibv_query_gid";
	if (ibv_query_gid(dev->ctx, 1, gid_index, &dev->gid))
		goto fail;
	step = "ibv_alloc_pd";
	dev->pd = ibv_alloc_pd(dev->ctx);
	if (!dev->pd)
		goto fail;
	step = "ibv_create_cq";
	dev->cq = ibv_create_cq(dev->ctx, 64, NULL, NULL, 0);
	if (!dev->cq)
		goto fail;
	return 0;
fail:
	NOTE("%s: %s: %s", name, step, strerror(errno));
	return -1;
}

struct ibv_qp *verbs_rc_qp_create(struct verbs_dev *dev,
				  const struct ibv_qp_cap *cap)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = dev->cq,
		.recv_cq = dev->cq,
		.cap = *cap,
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_qp *qp = ibv_create_qp(dev->pd, &ia);

	if (!qp)
		NOTE("ibv_create_qp: %s", strerror(errno));
	return qp;
}

int verbs_rc_qp_connect(struct ibv_qp *qp, const struct verbs_dev *self,
			const struct verbs_dev *peer, uint32_t dest_qpn,
			unsigned int access, uint8_t rnr_retry)
{
	return verbs_rc_qp_connect_fl(qp, self, peer, dest_qpn, access,
				      rnr_retry, 0);
}

int verbs_rc_qp_connect_fl(struct ibv_qp *qp, const struct verbs_dev *self,
			   const struct verbs_dev *peer, uint32_t dest_qpn,
			   unsigned int access, uint8_t rnr_retry,
			   uint32_t flow_label)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = access,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)) {
		NOTE("modify QP %u to INIT: %s", qp->qp_num, strerror(errno));
		return -1;
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dest_qpn;
	a.rq_psn = 0x100;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = peer->gid;
	a.ah_attr.grh.sgid_index = self->gid_index;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.grh.flow_label = flow_label;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)) {
		NOTE("modify QP %u to RTR: %s", qp->qp_num, strerror(errno));
		return -1;
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 12;
	a.retry_cnt = 3;
	a.rnr_retry = rnr_retry;
	a.sq_psn = 0x100;
	a.max_rd_atomic = 4;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			  IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC)) {
		NOTE("modify QP %u to RTS: %s", qp->qp_num, strerror(errno));
		return -1;
	}
	return 0;
}

int verbs_post_send(struct ibv_qp *qp, enum ibv_wr_opcode op, uint64_t laddr,
		    uint32_t len, uint32_t lkey, uint64_t raddr, uint32_t rkey,
		    uint64_t wr_id)
{
	struct ibv_sge sge = { .addr = laddr, .length = len, .lkey = lkey };
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = raddr, .rkey = rkey },
	}, *bad;

	return ibv_post_send(qp, &wr, &bad);
}

int verbs_post_recv(struct ibv_qp *qp, uint64_t laddr, uint32_t len,
		    uint32_t lkey, uint64_t wr_id)
{
	struct ibv_sge sge = { .addr = laddr, .length = len, .lkey = lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 },
		*bad;

	return ibv_post_recv(qp, &wr, &bad);
}

int verbs_poll_one(struct ibv_cq *cq, struct ibv_wc *wc, unsigned int ms)
{
	uint64_t end = verbs_now_ms() + ms;
	int n;

	do {
		n = ibv_poll_cq(cq, 1, wc);
		if (n < 0)
			return -1;
		if (n == 1)
			return 0;
		usleep(100);
	} while (verbs_now_ms() < end);
	return -1;
}

bool verbs_cq_quiet(struct ibv_cq *cq, unsigned int ms)
{
	uint64_t end = verbs_now_ms() + ms;
	struct ibv_wc wc;

	do {
		if (ibv_poll_cq(cq, 1, &wc) != 0)
			return false;
		usleep(1000);
	} while (verbs_now_ms() < end);
	return true;
}

void verbs_guarded_fill(uint8_t *buf, uint8_t fill)
{
	memset(buf, VERBS_GUARD_BYTE, VERBS_PAGE);
	memset(buf + VERBS_PAGE, fill, VERBS_PAGE);
	memset(buf + 2 * VERBS_PAGE, VERBS_GUARD_BYTE, VERBS_PAGE);
}

bool verbs_guarded_intact(const uint8_t *buf, uint8_t fill, char *why,
			  size_t why_len)
{
	size_t i;

	for (i = 0; i < VERBS_GUARDED_SIZE; i++) {
		uint8_t want = i >= VERBS_PAGE && i < 2 * VERBS_PAGE ?
			       fill : VERBS_GUARD_BYTE;

		if (buf[i] != want) {
			snprintf(why, why_len,
				 "byte %zu of the 3 pages is 0x%02x, not 0x%02x",
				 i, buf[i], want);
			return false;
		}
	}
	return true;
}

int uverbs_raw_cmd(int fd, uint32_t command, void *cmd, size_t cmd_len,
		   const void *drv, size_t drv_len, void *resp,
		   size_t resp_len)
{
	uint8_t buf[UVERBS_CMD_MAX] __attribute__((aligned(8)));
	struct ib_uverbs_cmd_hdr *hdr = (void *)buf;
	size_t in = sizeof(*hdr) + cmd_len + drv_len;
	uint64_t response = (uintptr_t)resp;

	if (in > sizeof(buf) || in % 4 || resp_len % 4)
		return E2BIG;
	memcpy(cmd, &response, sizeof(response));
	hdr->command = command;
	hdr->in_words = in / 4;
	hdr->out_words = resp_len / 4;
	memcpy(buf + sizeof(*hdr), cmd, cmd_len);
	if (drv_len)
		memcpy(buf + sizeof(*hdr) + cmd_len, drv, drv_len);
	if (write(fd, buf, in) != (ssize_t)in)
		return errno;
	return 0;
}

int uverbs_raw_context(const char *path, void *drv_resp, size_t drv_len)
{
	struct ib_uverbs_get_context cmd = { 0 };
	struct {
		struct ib_uverbs_get_context_resp core;
		uint8_t drv[UVERBS_CMD_MAX];
	} resp = { 0 };
	int fd, rc;

	if (drv_len > sizeof(resp.drv)) {
		errno = E2BIG;
		return -1;
	}
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	rc = uverbs_raw_cmd(fd, IB_USER_VERBS_CMD_GET_CONTEXT, &cmd,
			    sizeof(cmd), NULL, 0, &resp,
			    sizeof(resp.core) + drv_len);
	if (rc) {
		close(fd);
		errno = rc;
		return -1;
	}
	memcpy(drv_resp, resp.drv, drv_len);
	return fd;
}
