/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * What the ORDMA verbs selftests share: an RDMA device opened by name
 * with a PD and a CQ, RC QPs connected over RoCE v2, bounded waits for
 * completions, guarded buffers, and raw uverbs commands (no provider in
 * between).  Failures are told with NOTE() and returned: the caller
 * decides whether the test stops.
 */
#ifndef ORDMA_VERBS_UTIL_H
#define ORDMA_VERBS_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#define VERBS_PAGE		4096
/* Bound of every wait for a completion the device owes us */
#define VERBS_POLL_MS		20000
/* A guarded buffer is three pages: guard, data, guard */
#define VERBS_GUARDED_SIZE	(3 * VERBS_PAGE)
#define VERBS_GUARD_BYTE	0xa5

/* An RDMA device with one PD and one CQ, and the GID its QPs use */
struct verbs_dev {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	union ibv_gid gid;
	int gid_index;
};

uint64_t verbs_now_ms(void);

/* The two cabled devices of a program run as DEV_A GIDX_A DEV_B GIDX_B */
struct verbs_two_devs {
	const char *name[2];
	int gid_index[2];
};

/*
 * main() of such a program: fill @devs from the arguments, then run the
 * tests (further arguments select tests by name).
 */
int verbs_two_devs_main(int argc, char **argv, struct verbs_two_devs *devs);

/* Open RDMA device @name with a PD and a 64-entry CQ; 0 or -1 (errno). */
int verbs_dev_open(struct verbs_dev *dev, const char *name, int gid_index);

/* An RC QP on @dev's PD, both queues on @dev's CQ; NULL on failure. */
struct ibv_qp *verbs_rc_qp_create(struct verbs_dev *dev,
				  const struct ibv_qp_cap *cap);

/*
 * Move @qp of @self through INIT and RTR to RTS, connected to QP
 * @dest_qpn of @peer over port 1 (PSNs 0x100, MTU 1024, 4 reads in
 * flight); @access are the remote rights it grants.  0 or -1 (errno).
 */
int verbs_rc_qp_connect(struct ibv_qp *qp, const struct verbs_dev *self,
			const struct verbs_dev *peer, uint32_t dest_qpn,
			unsigned int access, uint8_t rnr_retry);
/* The same with @flow_label in the GRH of the RTR address vector */
int verbs_rc_qp_connect_fl(struct ibv_qp *qp, const struct verbs_dev *self,
			   const struct verbs_dev *peer, uint32_t dest_qpn,
			   unsigned int access, uint8_t rnr_retry,
			   uint32_t flow_label);

/* One signaled send WR with one SGE; ibv_post_send()'s result. */
int verbs_post_send(struct ibv_qp *qp, enum ibv_wr_opcode op, uint64_t laddr,
		    uint32_t len, uint32_t lkey, uint64_t raddr, uint32_t rkey,
		    uint64_t wr_id);
/* One receive WR with one SGE; ibv_post_recv()'s result. */
int verbs_post_recv(struct ibv_qp *qp, uint64_t laddr, uint32_t len,
		    uint32_t lkey, uint64_t wr_id);

/* One completion from @cq within @ms: 0, or -1 on error or timeout. */
int verbs_poll_one(struct ibv_cq *cq, struct ibv_wc *wc, unsigned int ms);
/* Nothing shows up on @cq for @ms milliseconds. */
bool verbs_cq_quiet(struct ibv_cq *cq, unsigned int ms);

/* Fill a guarded buffer: guard bytes around a data page of @fill. */
void verbs_guarded_fill(uint8_t *buf, uint8_t fill);
/* @buf still holds what verbs_guarded_fill(buf, fill) wrote; else @why. */
bool verbs_guarded_intact(const uint8_t *buf, uint8_t fill, char *why,
			  size_t why_len);

/*
 * One legacy uverbs write() command on @fd: header, @cmd (its first
 * field is the response pointer, set here to @resp), then @drv_len
 * bytes of driver data.  0 or the errno.
 */
int uverbs_raw_cmd(int fd, uint32_t command, void *cmd, size_t cmd_len,
		   const void *drv, size_t drv_len, void *resp,
		   size_t resp_len);
/*
 * Open uverbs device @path and create its context with no driver
 * request data; the driver's response is copied to @drv_resp.  The file
 * descriptor, or -1 (errno).
 */
int uverbs_raw_context(const char *path, void *drv_resp, size_t drv_len);

#endif /* ORDMA_VERBS_UTIL_H */
