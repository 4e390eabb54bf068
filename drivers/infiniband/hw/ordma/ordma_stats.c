// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA RDMA driver: port hardware counters (QUERY_STATS), exposed by the
 * RDMA core in ports/1/hw_counters and through rdma statistic.
 */

#include <rdma/ib_verbs.h>

#include "ordma_ib.h"

enum ordma_port_counter {
	ORDMA_CNT_TX_FRAMES,
	ORDMA_CNT_TX_BYTES,
	ORDMA_CNT_RX_FRAMES,
	ORDMA_CNT_RX_BYTES,
	ORDMA_CNT_TX_DROP_LINK_DOWN,
	ORDMA_CNT_TX_BAD_DESC,
	ORDMA_CNT_RX_DROP_NO_BUF,
	ORDMA_CNT_RX_DROP_FILTER,
	ORDMA_CNT_RX_DROP_TOO_LONG,
	ORDMA_CNT_RX_DROP_LINK_DOWN,
	ORDMA_CNT_ROCE_RX_FRAMES,
	ORDMA_CNT_ROCE_RX_DROP,
	ORDMA_CNT_ROCE_TX_FRAMES,
	ORDMA_NUM_PORT_COUNTERS
};

static const struct rdma_stat_desc ordma_port_counter_descs[] = {
	[ORDMA_CNT_TX_FRAMES].name = "tx_frames",
	[ORDMA_CNT_TX_BYTES].name = "tx_bytes",
	[ORDMA_CNT_RX_FRAMES].name = "rx_frames",
	[ORDMA_CNT_RX_BYTES].name = "rx_bytes",
	[ORDMA_CNT_TX_DROP_LINK_DOWN].name = "tx_drop_link_down",
	[ORDMA_CNT_TX_BAD_DESC].name = "tx_bad_desc",
	[ORDMA_CNT_RX_DROP_NO_BUF].name = "rx_drop_no_buf",
	[ORDMA_CNT_RX_DROP_FILTER].name = "rx_drop_filter",
	[ORDMA_CNT_RX_DROP_TOO_LONG].name = "rx_drop_too_long",
	[ORDMA_CNT_RX_DROP_LINK_DOWN].name = "rx_drop_link_down",
	[ORDMA_CNT_ROCE_RX_FRAMES].name = "roce_rx_frames",
	[ORDMA_CNT_ROCE_RX_DROP].name = "roce_rx_drop",
	[ORDMA_CNT_ROCE_TX_FRAMES].name = "roce_tx_frames",
};

static_assert(ARRAY_SIZE(ordma_port_counter_descs) == ORDMA_NUM_PORT_COUNTERS);

struct rdma_hw_stats *ordma_alloc_hw_port_stats(struct ib_device *ibdev,
						u32 port)
{
	return rdma_alloc_hw_stats_struct(ordma_port_counter_descs,
					  ORDMA_NUM_PORT_COUNTERS,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

/* Called with stats->lock held, may sleep; refreshes every counter. */
int ordma_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port, int index)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(ibdev);
	struct ordma_port_stats hw = {};
	u64 *val = stats->value;
	int err;

	err = ordma_cmd_query_stats(dev->cdev, &hw);
	if (err) {
		ibdev_err_ratelimited(ibdev, "QUERY_STATS failed: %d\n", err);
		return err;
	}

	val[ORDMA_CNT_TX_FRAMES] = le64_to_cpu(hw.tx_frames);
	val[ORDMA_CNT_TX_BYTES] = le64_to_cpu(hw.tx_bytes);
	val[ORDMA_CNT_RX_FRAMES] = le64_to_cpu(hw.rx_frames);
	val[ORDMA_CNT_RX_BYTES] = le64_to_cpu(hw.rx_bytes);
	val[ORDMA_CNT_TX_DROP_LINK_DOWN] = le64_to_cpu(hw.tx_drop_link_down);
	val[ORDMA_CNT_TX_BAD_DESC] = le64_to_cpu(hw.tx_bad_desc);
	val[ORDMA_CNT_RX_DROP_NO_BUF] = le64_to_cpu(hw.rx_drop_no_buf);
	val[ORDMA_CNT_RX_DROP_FILTER] = le64_to_cpu(hw.rx_drop_filter);
	val[ORDMA_CNT_RX_DROP_TOO_LONG] = le64_to_cpu(hw.rx_drop_too_long);
	val[ORDMA_CNT_RX_DROP_LINK_DOWN] = le64_to_cpu(hw.rx_drop_link_down);
	val[ORDMA_CNT_ROCE_RX_FRAMES] = le64_to_cpu(hw.roce_rx_frames);
	val[ORDMA_CNT_ROCE_RX_DROP] = le64_to_cpu(hw.roce_rx_drop);
	val[ORDMA_CNT_ROCE_TX_FRAMES] = le64_to_cpu(hw.roce_tx_frames);

	return ORDMA_NUM_PORT_COUNTERS;
}
