// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * A tenant that holds the wire with RNR NAKs: an RC QP on DEV_A, with
 * rnr_retry 7 (retry for ever), sends large messages to its peer QP on
 * DEV_B, which never posts a receive.  The responder answers every try
 * with an RNR NAK, and the requester never gives up.  The fairness test
 * (rnr_fair.sh) measures another process's bandwidth beside it.
 *
 *   verbs_rnr_hog DEV_A GIDX_A DEV_B GIDX_B [QPS]
 *
 * Prints "rnr hog: <n> QPs, <n> sends posted" once everything is posted,
 * then holds the QPs until SIGTERM or SIGINT, and exits 0.  Exit 1 on a
 * setup failure.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ordma_test.h"
#include "verbs_util.h"

#define HOG_MAX_QPS	8
#define HOG_SENDS	4		/* per QP */
#define HOG_MSG		(1 << 20)	/* 1024 packets at MTU 1024 */

static volatile sig_atomic_t hog_stop;

static void hog_signal(int sig)
{
	(void)sig;
	hog_stop = 1;
}

int main(int argc, char **argv)
{
	struct ibv_qp_cap cap = {
		.max_send_wr = HOG_SENDS, .max_recv_wr = 1,
		.max_send_sge = 1, .max_recv_sge = 1,
	};
	struct ibv_qp *qa[HOG_MAX_QPS], *qb[HOG_MAX_QPS];
	struct verbs_dev a, b;
	struct sigaction sa;
	struct ibv_mr *mr;
	unsigned int nqps = 1, i, k;
	void *buf;

	if (argc < 5) {
		fprintf(stderr, "usage: %s DEV_A GIDX_A DEV_B GIDX_B [QPS]\n",
			argv[0]);
		return 2;
	}
	if (argc > 5)
		nqps = (unsigned int)strtoul(argv[5], NULL, 0);
	if (!nqps || nqps > HOG_MAX_QPS) {
		fprintf(stderr, "QPS must be 1..%d\n", HOG_MAX_QPS);
		return 2;
	}
	if (verbs_dev_open(&a, argv[1], atoi(argv[2])) ||
	    verbs_dev_open(&b, argv[3], atoi(argv[4])))
		return 1;
	buf = calloc(1, HOG_MSG);
	mr = buf ? ibv_reg_mr(a.pd, buf, HOG_MSG, IBV_ACCESS_LOCAL_WRITE) :
		   NULL;
	if (!mr) {
		fprintf(stderr, "ibv_reg_mr: %s\n", strerror(errno));
		return 1;
	}
	for (i = 0; i < nqps; i++) {
		qa[i] = verbs_rc_qp_create(&a, &cap);
		qb[i] = verbs_rc_qp_create(&b, &cap);
		if (!qa[i] || !qb[i] ||
		    verbs_rc_qp_connect(qa[i], &a, &b, qb[i]->qp_num, 0, 7) ||
		    verbs_rc_qp_connect(qb[i], &b, &a, qa[i]->qp_num, 0, 7))
			return 1;
		for (k = 0; k < HOG_SENDS; k++) {
			if (verbs_post_send(qa[i], IBV_WR_SEND,
					    (uintptr_t)buf, HOG_MSG, mr->lkey,
					    0, 0, k)) {
				fprintf(stderr, "ibv_post_send: %s\n",
					strerror(errno));
				return 1;
			}
		}
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = hog_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	printf("rnr hog: %u QPs, %u sends posted\n", nqps, nqps * HOG_SENDS);
	fflush(stdout);
	while (!hog_stop)
		pause();
	return 0;
}
