/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* ORDMA Ethernet port: state shared by ordma_netdev.c, ordma_txrx.c and
 * ordma_ethtool.c.
 */
#ifndef _ORDMA_NETDEV_H
#define _ORDMA_NETDEV_H

#include <linux/netdevice.h>
#include <linux/u64_stats_sync.h>

#include "ordma_core.h"

struct ordma_eth_buf {
	struct sk_buff *skb;
	dma_addr_t dma;
	u32 len;
};

struct ordma_eth_ring {
	struct ordma_eth_desc *desc;
	dma_addr_t desc_dma;
	struct ordma_eth_buf *bufs;
	u32 size;
	u32 pi;			/* free-running: next descriptor to post */
	u32 ci;			/* free-running: next descriptor to examine */
	u32 id;			/* device ring id */
	u8 log_size;
	u8 type;		/* enum ordma_eth_ring_type */
	bool created;		/* device object exists */
};

/* Updated from NAPI only */
struct ordma_napi_stats {
	u64_stats_t rx_packets;
	u64_stats_t rx_bytes;
	u64_stats_t rx_dropped;
	u64_stats_t rx_errors;
	u64_stats_t tx_packets;
	u64_stats_t tx_bytes;
	u64_stats_t tx_errors;
	struct u64_stats_sync syncp;
};

/* Updated from ndo_start_xmit only */
struct ordma_xmit_stats {
	u64_stats_t tx_dropped;
	struct u64_stats_sync syncp;
};

struct ordma_netdev_priv {
	struct ordma_core_dev *cdev;
	struct net_device *ndev;
	struct ordma_eq *eq;
	struct napi_struct napi;
	struct ordma_eth_ring tx;
	struct ordma_eth_ring rx;
	u32 rx_buf_len;
	u8 tx_log_size;
	u8 rx_log_size;
	bool registered;
	bool datapath_up;
	/* A ring the device would not destroy keeps its memory until the
	 * device is reset at removal; the interface cannot come up again.
	 */
	bool broken;
	/* The function is being reset under the interface. */
	bool suspended;
	struct ordma_napi_stats napi_stats;
	struct ordma_xmit_stats xmit_stats;

	struct work_struct rx_mode_work;
	struct work_struct ring_reset_work;
	u8 rx_mode_wanted;
	u8 rx_mode_hw;
};

/* ordma_txrx.c */
int ordma_datapath_up(struct ordma_netdev_priv *priv);
void ordma_datapath_down(struct ordma_netdev_priv *priv);
int ordma_datapath_stop_for_change(struct ordma_netdev_priv *priv);
void ordma_datapath_free(struct ordma_netdev_priv *priv);
netdev_tx_t ordma_start_xmit(struct sk_buff *skb, struct net_device *ndev);
int ordma_napi_poll(struct napi_struct *napi, int budget);

/* ordma_netdev.c */
void ordma_datapath_resume(struct ordma_netdev_priv *priv);

/* ordma_ethtool.c */
void ordma_ethtool_set_ops(struct net_device *ndev);

#endif /* _ORDMA_NETDEV_H */
