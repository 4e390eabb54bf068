// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* ORDMA Ethernet port: ethtool operations. */

#include <linux/ethtool.h>
#include <linux/log2.h>
#include <linux/netdevice.h>

#include "ordma_netdev.h"

static void ordma_get_drvinfo(struct net_device *ndev,
			      struct ethtool_drvinfo *info)
{
	struct ordma_netdev_priv *priv = netdev_priv(ndev);

	strscpy(info->driver, ORDMA_DRV_NAME, sizeof(info->driver));
	strscpy(info->fw_version, priv->cdev->fw_version,
		sizeof(info->fw_version));
	strscpy(info->bus_info, pci_name(priv->cdev->pdev),
		sizeof(info->bus_info));
}

static int ordma_get_link_ksettings(struct net_device *ndev,
				    struct ethtool_link_ksettings *cmd)
{
	struct ordma_netdev_priv *priv = netdev_priv(ndev);
	struct ordma_port_attr attr;
	u32 speed;
	int err;

	err = ordma_cmd_query_port(priv->cdev, &attr);
	if (err)
		return err;

	ethtool_link_ksettings_zero_link_mode(cmd, supported);
	ethtool_link_ksettings_zero_link_mode(cmd, advertising);
	cmd->base.port = PORT_OTHER;
	cmd->base.autoneg = AUTONEG_DISABLE;

	speed = le32_to_cpu(attr.speed_mbps);
	if (attr.state == ORDMA_PORT_ACTIVE && speed) {
		cmd->base.speed = speed;
		cmd->base.duplex = DUPLEX_FULL;
	} else {
		cmd->base.speed = SPEED_UNKNOWN;
		cmd->base.duplex = DUPLEX_UNKNOWN;
	}
	return 0;
}

static void ordma_get_ringparam(struct net_device *ndev,
				struct ethtool_ringparam *ring,
				struct kernel_ethtool_ringparam *kring,
				struct netlink_ext_ack *extack)
{
	struct ordma_netdev_priv *priv = netdev_priv(ndev);

	ring->rx_max_pending = 1U << ORDMA_ETH_RING_MAX_LOG_SIZE;
	ring->tx_max_pending = 1U << ORDMA_ETH_RING_MAX_LOG_SIZE;
	ring->rx_pending = 1U << priv->rx_log_size;
	ring->tx_pending = 1U << priv->tx_log_size;
}

static bool ordma_ring_size_ok(u32 n)
{
	return is_power_of_2(n) && n >= (1U << ORDMA_ETH_RING_MIN_LOG_SIZE) &&
	       n <= (1U << ORDMA_ETH_RING_MAX_LOG_SIZE);
}

static int ordma_set_ringparam(struct net_device *ndev,
			       struct ethtool_ringparam *ring,
			       struct kernel_ethtool_ringparam *kring,
			       struct netlink_ext_ack *extack)
{
	struct ordma_netdev_priv *priv = netdev_priv(ndev);
	u8 old_rx_log_size = priv->rx_log_size;
	u8 old_tx_log_size = priv->tx_log_size;
	bool running = priv->datapath_up;
	int err;

	if (ring->rx_mini_pending || ring->rx_jumbo_pending)
		return -EINVAL;
	if (!ordma_ring_size_ok(ring->rx_pending) ||
	    !ordma_ring_size_ok(ring->tx_pending)) {
		NL_SET_ERR_MSG_FMT_MOD(extack,
				       "ring sizes must be powers of two from %u to %u",
				       1U << ORDMA_ETH_RING_MIN_LOG_SIZE,
				       1U << ORDMA_ETH_RING_MAX_LOG_SIZE);
		return -EINVAL;
	}
	err = ordma_datapath_stop_for_change(priv);
	if (err)
		return err;
	priv->rx_log_size = ilog2(ring->rx_pending);
	priv->tx_log_size = ilog2(ring->tx_pending);
	if (!running)
		return 0;

	err = ordma_datapath_up(priv);
	if (err) {
		/* A failed call changes nothing: back to the old sizes. */
		priv->rx_log_size = old_rx_log_size;
		priv->tx_log_size = old_tx_log_size;
		ordma_datapath_resume(priv);
	}
	return err;
}

/*
 * ethtool -S shows the port's counters up to the InfiniBand link drops:
 * the netdev is an Ethernet port's, where those are 0.  The iWARP
 * offload's counters after them are the RDMA device's (rdma statistic).
 */
#define ORDMA_ETH_STATS_NUM	ORDMA_PORT_STAT_INDEX(ib_rx_drop)
static_assert(ORDMA_ETH_STATS_NUM + ORDMA_IB_RX_DROP_REASONS ==
	      ORDMA_PORT_STAT_INDEX(iw_tcp_rx_segments),
	      "the IB link drops come before the iWARP counters");

static int ordma_get_sset_count(struct net_device *ndev, int sset)
{
	if (sset == ETH_SS_STATS)
		return ORDMA_ETH_STATS_NUM;
	return -EOPNOTSUPP;
}

static void ordma_get_strings(struct net_device *ndev, u32 sset, u8 *data)
{
	u32 i;

	if (sset != ETH_SS_STATS)
		return;
	for (i = 0; i < ORDMA_ETH_STATS_NUM; i++)
		ethtool_puts(&data, ordma_port_stat_name(i));
}

static void ordma_get_ethtool_stats(struct net_device *ndev,
				    struct ethtool_stats *estats, u64 *data)
{
	struct ordma_netdev_priv *priv = netdev_priv(ndev);
	union {
		struct ordma_port_stats fields;
		__le64 counters[ORDMA_PORT_STATS_NUM];
	} stats;
	u32 i;
	int err;

	err = ordma_cmd_query_stats(priv->cdev, &stats.fields);
	if (err) {
		netdev_warn_once(ndev, "QUERY_STATS failed: %d\n", err);
		memset(data, 0, ORDMA_ETH_STATS_NUM * sizeof(*data));
		return;
	}
	for (i = 0; i < ORDMA_ETH_STATS_NUM; i++)
		data[i] = le64_to_cpu(stats.counters[i]);
}

static const struct ethtool_ops ordma_ethtool_ops = {
	.get_drvinfo		= ordma_get_drvinfo,
	.get_link		= ethtool_op_get_link,
	.get_link_ksettings	= ordma_get_link_ksettings,
	.get_ringparam		= ordma_get_ringparam,
	.set_ringparam		= ordma_set_ringparam,
	.get_sset_count		= ordma_get_sset_count,
	.get_strings		= ordma_get_strings,
	.get_ethtool_stats	= ordma_get_ethtool_stats,
};

void ordma_ethtool_set_ops(struct net_device *ndev)
{
	ndev->ethtool_ops = &ordma_ethtool_ops;
}
