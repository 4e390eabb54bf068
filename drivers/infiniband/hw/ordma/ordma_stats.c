// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA RDMA driver: port hardware counters (QUERY_STATS), exposed by the
 * RDMA core in ports/1/hw_counters and through rdma statistic.
 */

#include <rdma/ib_verbs.h>

#include "ordma_ib.h"

struct rdma_hw_stats *ordma_alloc_hw_port_stats(struct ib_device *ibdev,
						u32 port)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(ibdev);
	unsigned int i;

	for (i = 0; i < ORDMA_PORT_STATS_NUM; i++)
		dev->port_stat_descs[i].name = ordma_port_stat_name(i);
	return rdma_alloc_hw_stats_struct(dev->port_stat_descs,
					  ORDMA_PORT_STATS_NUM,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

/* Called with stats->lock held, may sleep; refreshes every counter. */
int ordma_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port, int index)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(ibdev);
	union {
		struct ordma_port_stats fields;
		__le64 counters[ORDMA_PORT_STATS_NUM];
	} hw = {};
	u64 *val = stats->value;
	unsigned int i;
	int err;

	err = ordma_cmd_query_stats(dev->cdev, &hw.fields);
	if (err) {
		ibdev_err_ratelimited(ibdev, "QUERY_STATS failed: %d\n", err);
		return err;
	}
	for (i = 0; i < ORDMA_PORT_STATS_NUM; i++)
		val[i] = le64_to_cpu(hw.counters[i]);
	return ORDMA_PORT_STATS_NUM;
}
