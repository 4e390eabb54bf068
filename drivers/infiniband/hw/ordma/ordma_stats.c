// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA RDMA driver: hardware counters, exposed by the RDMA core in
 * ports/1/hw_counters and through rdma statistic.
 *
 * The port shows the per-QP counters summed over the device
 * (QUERY_QP_STATS of ORDMA_QP_STATS_ALL) followed by the port's own
 * (QUERY_STATS) from the RoCE engine's on, those of its link layer
 * (ordma_ib.h).  A QP counter
 * (rdma statistic qp) sums what its bound QPs counted while bound: the
 * device's count of a QP at bind time is kept as its base, and what a QP
 * counted until it is unbound stays in the counter.  The core adds every
 * QP counter (and what freed ones counted) to the port's per-QP values,
 * so the port reports only the part no counter holds, and the sum shown
 * is the device's total.
 */

#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_counter.h>

#include "ordma_ib.h"

/* Driver state of one rdma_counter, under ordma_ibdev.counter_lock */
struct ordma_counter {
	struct list_head qps;			/* ordma_qp.counter_link */
	u64 unbound[ORDMA_QP_STATS_NUM];	/* counted by QPs since unbound */
};

/*
 * The injected faults by shorter names than ethtool's fault_injected_*:
 * with those, all seven enabled would not fit rdma statistic's reply.
 */
static const char *const ordma_fault_stat_names[ORDMA_FAULTS] = {
	[ORDMA_FAULT_DMA_READ]		= "fault_dma_read",
	[ORDMA_FAULT_DMA_WRITE]		= "fault_dma_write",
	[ORDMA_FAULT_ADMIN_DROP]	= "fault_admin_drop",
	[ORDMA_FAULT_MSIX_DROP]		= "fault_msix_drop",
	[ORDMA_FAULT_FATAL]		= "fault_fatal",
	[ORDMA_FAULT_HEARTBEAT_STUCK]	= "fault_heartbeat_stuck",
	[ORDMA_FAULT_ADMIN_DELAY]	= "fault_admin_delay",
};

static_assert(ORDMA_PORT_STATS_NUM - 1 == (u8)(ORDMA_PORT_STATS_NUM - 1),
	      "port_stat_index holds every port counter's index");

static bool ordma_port_stat_in(unsigned int i, unsigned int first,
			       unsigned int num)
{
	return i >= first && i < first + num;
}

/*
 * Whether port counter @i (QUERY_STATS) means something on the port's
 * link layer and RDMA protocol.  An InfiniBand port has no RoCEv2
 * parser (its link drops count in ib_rx_drop[]) and no IEEE 802.3x
 * PAUSE; an Ethernet port has no IB link checks; an iWARP port has its
 * TCP offload's and MPA layer's counters instead of the RoCE engine's
 * (which also keeps rdma statistic's reply within its size).  The
 * injected faults are not among these.
 */
static bool ordma_port_stat_shown(const struct ordma_ibdev *dev,
				  unsigned int i)
{
	const unsigned int parse =
		ORDMA_PORT_STAT_INDEX(roce_rx_drop_reason[ORDMA_ROCE_RX_DROP_PARSE]);
	const unsigned int iw_first = ORDMA_PORT_STAT_INDEX(iw_tcp_rx_segments);
	bool ib = ordma_port_is_ib(dev), iwarp = ordma_port_is_iwarp(dev);

	if (i < ORDMA_IB_PORT_STATS_FIRST ||
	    ordma_port_stat_in(i, ORDMA_PORT_STAT_INDEX(fault_injected),
			       ORDMA_FAULTS))
		return false;
	if (i >= iw_first)
		return iwarp;
	if (iwarp && (ordma_port_stat_in(i, ORDMA_IB_PORT_STATS_FIRST,
					 ORDMA_PORT_STAT_INDEX(wire_tx_drop) -
					 ORDMA_IB_PORT_STATS_FIRST) ||
		      i == ORDMA_PORT_STAT_INDEX(roce_tx_pause_holds)))
		return false;
	if (ordma_port_stat_in(i, ORDMA_PORT_STAT_INDEX(ib_rx_drop),
			       ORDMA_IB_RX_DROP_REASONS))
		return ib;
	if (ordma_port_stat_in(i, ORDMA_PORT_STAT_INDEX(roce_rx_parse_drop),
			       ORDMA_ROCE_PARSE_DROP_REASONS) ||
	    i == parse || i == ORDMA_PORT_STAT_INDEX(pause_rx) ||
	    i == ORDMA_PORT_STAT_INDEX(roce_tx_pause_holds))
		return !ib;
	return true;
}

static void ordma_init_stat_descs(struct ordma_ibdev *dev)
{
	struct rdma_stat_desc *desc = &dev->hw_stat_descs[ORDMA_QP_STATS_NUM];
	unsigned int i, n = 0;

	for (i = 0; i < ORDMA_QP_STATS_NUM; i++)
		dev->hw_stat_descs[i].name = ordma_qp_stat_name(i);
	for (i = ORDMA_IB_PORT_STATS_FIRST; i < ORDMA_PORT_STATS_NUM; i++) {
		if (!ordma_port_stat_shown(dev, i))
			continue;
		dev->port_stat_index[n] = i;
		desc[n++].name = ordma_port_stat_name(i);
	}
	dev->hw_stats_optional = ORDMA_QP_STATS_NUM + n;
	for (i = 0; i < ORDMA_FAULTS; i++) {
		dev->port_stat_index[n] =
			ORDMA_PORT_STAT_INDEX(fault_injected[i]);
		desc[n].name = ordma_fault_stat_names[i];
		desc[n++].flags = IB_STAT_FLAG_OPTIONAL;
	}
	dev->hw_stats_num = ORDMA_QP_STATS_NUM + n;
}

/*
 * The device always counts: enabling an optional counter only lets the
 * RDMA core show it.
 */
int ordma_modify_hw_stat(struct ib_device *ibdev, u32 port,
			 unsigned int index, bool enable)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(ibdev);

	if (index < dev->hw_stats_optional || index >= dev->hw_stats_num)
		return -EINVAL;
	return 0;
}

struct rdma_hw_stats *ordma_alloc_hw_port_stats(struct ib_device *ibdev,
						u32 port)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(ibdev);
	struct rdma_hw_stats *stats;
	unsigned int i;

	ordma_init_stat_descs(dev);
	stats = rdma_alloc_hw_stats_struct(dev->hw_stat_descs,
					   dev->hw_stats_num,
					   RDMA_HW_STATS_DEFAULT_LIFESPAN);
	if (!stats)
		return NULL;
	/* Optional counters start disabled: the driver says so. */
	for (i = dev->hw_stats_optional; i < dev->hw_stats_num; i++)
		set_bit(i, stats->is_disabled);
	return stats;
}

static int ordma_query_qp_counts(struct ordma_ibdev *dev, u32 qpn,
				 u64 counts[ORDMA_QP_STATS_NUM])
{
	union {
		struct ordma_qp_stats fields;
		__le64 counters[ORDMA_QP_STATS_NUM];
	} hw;
	unsigned int i;
	int err;

	err = ordma_cmd_query_qp_stats(dev, qpn, &hw.fields);
	if (err) {
		ibdev_err_ratelimited(&dev->ibdev,
				      "QUERY_QP_STATS of 0x%x failed: %d\n",
				      qpn, err);
		return err;
	}
	for (i = 0; i < ORDMA_QP_STATS_NUM; i++)
		counts[i] = le64_to_cpu(hw.counters[i]);
	return 0;
}

/*
 * Adds to @sum what the bound @qp counted since it was bound.  The device
 * clears a QP's counts when it enters RESET: a count below the base
 * started again from zero.
 */
static int ordma_counter_add_qp(struct ordma_ibdev *dev, struct ordma_qp *qp,
				u64 sum[ORDMA_QP_STATS_NUM])
{
	u64 now[ORDMA_QP_STATS_NUM];
	unsigned int i;
	int err;

	err = ordma_query_qp_counts(dev, qp->qpn, now);
	if (err)
		return err;
	for (i = 0; i < ORDMA_QP_STATS_NUM; i++)
		sum[i] += now[i] >= qp->counter_base[i] ?
			  now[i] - qp->counter_base[i] : now[i];
	return 0;
}

/* Adds what counter @c holds now to @sum; counter_lock held. */
static int ordma_counter_sum(struct ordma_ibdev *dev, struct ordma_counter *c,
			     u64 sum[ORDMA_QP_STATS_NUM])
{
	struct ordma_qp *qp;
	unsigned int i;
	int err;

	for (i = 0; i < ORDMA_QP_STATS_NUM; i++)
		sum[i] += c->unbound[i];
	list_for_each_entry(qp, &c->qps, counter_link) {
		err = ordma_counter_add_qp(dev, qp, sum);
		if (err)
			return err;
	}
	return 0;
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
	u64 total[ORDMA_QP_STATS_NUM], counted[ORDMA_QP_STATS_NUM];
	u64 *val = stats->value;
	struct ordma_counter *c;
	unsigned long id;
	unsigned int i, j;
	int err;

	err = ordma_cmd_query_stats(dev->cdev, &hw.fields);
	if (err) {
		ibdev_err_ratelimited(ibdev, "QUERY_STATS failed: %d\n", err);
		return err;
	}
	for (i = ORDMA_QP_STATS_NUM; i < dev->hw_stats_num; i++) {
		j = dev->port_stat_index[i - ORDMA_QP_STATS_NUM];
		val[i] = le64_to_cpu(hw.counters[j]);
	}

	mutex_lock(&dev->counter_lock);
	err = ordma_query_qp_counts(dev, ORDMA_QP_STATS_ALL, total);
	memcpy(counted, dev->counted_by_freed, sizeof(counted));
	xa_for_each(&dev->counters, id, c) {
		if (err)
			break;
		err = ordma_counter_sum(dev, c, counted);
	}
	mutex_unlock(&dev->counter_lock);
	if (err)
		return err;
	/* counts may move between the queries: never below zero */
	for (i = 0; i < ORDMA_QP_STATS_NUM; i++)
		val[i] = total[i] > counted[i] ? total[i] - counted[i] : 0;
	return dev->hw_stats_num;
}

struct rdma_hw_stats *ordma_counter_alloc_stats(struct rdma_counter *counter)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(counter->device);

	return rdma_alloc_hw_stats_struct(dev->hw_stat_descs,
					  ORDMA_QP_STATS_NUM,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

/* Called with counter->lock held, as are the other counter ops. */
int ordma_counter_bind_qp(struct rdma_counter *counter, struct ib_qp *ibqp)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(counter->device);
	struct ordma_qp *qp = to_ordma_qp(ibqp);
	struct ordma_counter *c = NULL;
	u32 id;
	int err;

	mutex_lock(&dev->counter_lock);
	err = ordma_query_qp_counts(dev, qp->qpn, qp->counter_base);
	if (err)
		goto out;
	/* id 0: a new counter, whose first QP this is */
	if (!counter->id) {
		c = kzalloc(sizeof(*c), GFP_KERNEL);
		if (!c) {
			err = -ENOMEM;
			goto out;
		}
		INIT_LIST_HEAD(&c->qps);
		err = xa_alloc(&dev->counters, &id, c, xa_limit_32b,
			       GFP_KERNEL);
		if (err) {
			kfree(c);
			goto out;
		}
		counter->id = id;
	} else {
		c = xa_load(&dev->counters, counter->id);
		if (WARN_ON(!c)) {
			err = -EINVAL;
			goto out;
		}
	}
	list_add_tail(&qp->counter_link, &c->qps);
	ibqp->counter = counter;
out:
	mutex_unlock(&dev->counter_lock);
	return err;
}

int ordma_counter_unbind_qp(struct ib_qp *ibqp)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(ibqp->device);
	struct ordma_qp *qp = to_ordma_qp(ibqp);
	struct ordma_counter *c;

	mutex_lock(&dev->counter_lock);
	c = xa_load(&dev->counters, ibqp->counter->id);
	/*
	 * What the QP counted while bound stays in the counter; if the
	 * device does not answer, that part is lost, the QP unbound anyway
	 * (it may be on its way to destruction).
	 */
	if (c)
		ordma_counter_add_qp(dev, qp, c->unbound);
	list_del(&qp->counter_link);
	ibqp->counter = NULL;
	mutex_unlock(&dev->counter_lock);
	return 0;
}

int ordma_counter_update_stats(struct rdma_counter *counter)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(counter->device);
	u64 sum[ORDMA_QP_STATS_NUM] = {};
	struct ordma_counter *c;
	unsigned int i;
	int err = 0;

	mutex_lock(&dev->counter_lock);
	c = xa_load(&dev->counters, counter->id);
	if (c)
		err = ordma_counter_sum(dev, c, sum);
	mutex_unlock(&dev->counter_lock);
	if (err)
		return err;
	for (i = 0; i < ORDMA_QP_STATS_NUM; i++)
		counter->stats->value[i] = sum[i];
	return 0;
}

/* The core has just updated counter->stats and keeps the values itself. */
int ordma_counter_dealloc(struct rdma_counter *counter)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(counter->device);
	struct ordma_counter *c;
	unsigned int i;

	if (!counter->id)
		return 0;
	mutex_lock(&dev->counter_lock);
	c = xa_erase(&dev->counters, counter->id);
	if (c) {
		WARN_ON(!list_empty(&c->qps));
		for (i = 0; i < ORDMA_QP_STATS_NUM; i++)
			dev->counted_by_freed[i] += counter->stats->value[i];
		kfree(c);
	}
	mutex_unlock(&dev->counter_lock);
	return 0;
}
