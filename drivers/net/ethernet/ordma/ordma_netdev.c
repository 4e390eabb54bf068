// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* ORDMA Ethernet port.
 *
 * One TX and one RX descriptor ring, both reporting to completion EQ 0.
 * The rings exist while the interface is up: ndo_open creates them and
 * fills RX, ndo_stop destroys them, after which the device touches none
 * of their buffers.  A ring raises one ETH event per arm; the EQ handler
 * schedules NAPI, which reclaims TX, receives, re-posts RX buffers and
 * finally re-arms both rings with the index it will look at next.
 *
 * Carrier follows the device's port state only: it is queried when the
 * interface comes up and then tracked through PORT_CHANGE events.
 */

#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/log2.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/u64_stats_sync.h>
#include <net/netdev_queues.h>

#include "ordma_core.h"

#define ORDMA_TX_STOP_THRESH	1	/* a linear frame needs one descriptor */
#define ORDMA_TX_TIMEOUT	(5 * HZ)

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
	struct ordma_napi_stats napi_stats;
	struct ordma_xmit_stats xmit_stats;

	struct work_struct rx_mode_work;
	u8 rx_mode_wanted;
	u8 rx_mode_hw;
};

static struct device *ordma_ndev_dma(struct ordma_netdev_priv *priv)
{
	return ordma_dev(priv->cdev);
}

static u32 ordma_tx_avail(const struct ordma_eth_ring *tx)
{
	return tx->size - (READ_ONCE(tx->pi) - READ_ONCE(tx->ci));
}

static u32 ordma_tx_wake_thresh(const struct ordma_eth_ring *tx)
{
	return tx->size / 4;
}

static void ordma_ring_arm(struct ordma_netdev_priv *priv,
			   struct ordma_eth_ring *ring)
{
	ordma_ring_db(priv->cdev, ORDMA_DB_ETH_ARM, ring->id, ring->ci, true);
}

static void ordma_ring_kick(struct ordma_netdev_priv *priv,
			    struct ordma_eth_ring *ring)
{
	ordma_ring_db(priv->cdev, ORDMA_DB_ETH_PI, ring->id, ring->pi, false);
}

/* Carrier helpers; callers hold cdev->port_lock. */
static void ordma_set_carrier(struct net_device *ndev, bool up)
{
	if (up && !netif_carrier_ok(ndev)) {
		netif_carrier_on(ndev);
		netdev_info(ndev, "link up\n");
	} else if (!up && netif_carrier_ok(ndev)) {
		netif_carrier_off(ndev);
		netdev_info(ndev, "link down\n");
	}
}

void ordma_netdev_port_event(struct ordma_core_dev *cdev, u32 state)
{
	unsigned long flags;

	spin_lock_irqsave(&cdev->port_lock, flags);
	cdev->port_event_seq++;
	if (cdev->port_events)
		ordma_set_carrier(cdev->ndev, state == ORDMA_PORT_ACTIVE);
	spin_unlock_irqrestore(&cdev->port_lock, flags);
}

void ordma_netdev_device_dead(struct ordma_core_dev *cdev)
{
	unsigned long flags;

	spin_lock_irqsave(&cdev->port_lock, flags);
	if (cdev->port_events)
		ordma_set_carrier(cdev->ndev, false);
	spin_unlock_irqrestore(&cdev->port_lock, flags);
}

/* Apply a queried port state unless a PORT_CHANGE event, which is at
 * least as recent, was handled while the query ran.
 */
static void ordma_sync_carrier(struct ordma_netdev_priv *priv)
{
	struct ordma_core_dev *cdev = priv->cdev;
	struct ordma_port_attr attr;
	u32 seq;
	int err;

	spin_lock_irq(&cdev->port_lock);
	seq = cdev->port_event_seq;
	spin_unlock_irq(&cdev->port_lock);

	err = ordma_cmd_query_port(cdev, &attr);
	if (err) {
		netdev_warn(priv->ndev, "QUERY_PORT failed: %d\n", err);
		return;
	}

	spin_lock_irq(&cdev->port_lock);
	if (seq == cdev->port_event_seq && cdev->port_events)
		ordma_set_carrier(priv->ndev, attr.state == ORDMA_PORT_ACTIVE);
	spin_unlock_irq(&cdev->port_lock);
}

/* Completion EQ interrupt: a TX or RX ring has news. */
void ordma_netdev_eth_event(struct ordma_core_dev *cdev, u32 ring_id)
{
	struct net_device *ndev = READ_ONCE(cdev->ndev);
	struct ordma_netdev_priv *priv;

	if (!ndev)
		return;
	priv = netdev_priv(ndev);
	/* Both rings share the NAPI context; a stale event from a
	 * destroyed ring only costs one empty poll.
	 */
	napi_schedule(&priv->napi);
}

static int ordma_ring_alloc(struct ordma_netdev_priv *priv,
			    struct ordma_eth_ring *ring, u8 type, u8 log_size)
{
	struct device *dev = ordma_ndev_dma(priv);

	ring->type = type;
	ring->log_size = log_size;
	ring->size = 1U << log_size;
	ring->pi = 0;
	ring->ci = 0;
	ring->created = false;

	ring->bufs = kcalloc(ring->size, sizeof(*ring->bufs), GFP_KERNEL);
	if (!ring->bufs)
		return -ENOMEM;
	/* Page aligned, zeroed: no descriptor starts out DONE. */
	ring->desc = dma_alloc_coherent(dev, ring->size * sizeof(*ring->desc),
					&ring->desc_dma, GFP_KERNEL);
	if (!ring->desc) {
		kfree(ring->bufs);
		ring->bufs = NULL;
		return -ENOMEM;
	}
	return 0;
}

static void ordma_ring_free(struct ordma_netdev_priv *priv,
			    struct ordma_eth_ring *ring)
{
	if (ring->desc)
		dma_free_coherent(ordma_ndev_dma(priv),
				  ring->size * sizeof(*ring->desc), ring->desc,
				  ring->desc_dma);
	ring->desc = NULL;
	kfree(ring->bufs);
	ring->bufs = NULL;
}

static int ordma_ring_create_hw(struct ordma_netdev_priv *priv,
				struct ordma_eth_ring *ring)
{
	int err;

	err = ordma_cmd_create_eth_ring(priv->cdev, ring->desc_dma,
					ring->log_size, ring->type,
					priv->eq->eqn, &ring->id);
	if (err) {
		netdev_err(priv->ndev, "CREATE_ETH_RING (type %u) failed: %d\n",
			   ring->type, err);
		return err;
	}
	ring->created = true;
	if (ring->id > FIELD_MAX(ORDMA_DB_QN)) {
		netdev_err(priv->ndev, "device returned ring id %u\n",
			   ring->id);
		return -EIO;
	}
	return 0;
}

static int ordma_ring_destroy_hw(struct ordma_netdev_priv *priv,
				 struct ordma_eth_ring *ring)
{
	int err;

	if (!ring->created)
		return 0;
	err = ordma_cmd_destroy_eth_ring(priv->cdev, ring->id);
	if (err) {
		netdev_err(priv->ndev, "DESTROY_ETH_RING %u failed: %d\n",
			   ring->id, err);
		return err;
	}
	ring->created = false;
	return 0;
}

/* Unmap and free every skb still owned by a ring. */
static void ordma_ring_free_bufs(struct ordma_netdev_priv *priv,
				 struct ordma_eth_ring *ring,
				 enum dma_data_direction dir)
{
	struct device *dev = ordma_ndev_dma(priv);
	u32 i;

	if (!ring->bufs)
		return;
	for (i = 0; i < ring->size; i++) {
		struct ordma_eth_buf *buf = &ring->bufs[i];

		if (!buf->skb)
			continue;
		dma_unmap_single(dev, buf->dma, buf->len, dir);
		dev_kfree_skb_any(buf->skb);
		buf->skb = NULL;
	}
}

static void ordma_tx_free_bufs(struct ordma_netdev_priv *priv)
{
	if (!priv->tx.bufs)
		return;
	ordma_ring_free_bufs(priv, &priv->tx, DMA_TO_DEVICE);
	netdev_tx_reset_queue(netdev_get_tx_queue(priv->ndev, 0));
}

static void ordma_rx_free_bufs(struct ordma_netdev_priv *priv)
{
	ordma_ring_free_bufs(priv, &priv->rx, DMA_FROM_DEVICE);
}

static void ordma_datapath_free(struct ordma_netdev_priv *priv)
{
	ordma_tx_free_bufs(priv);
	ordma_rx_free_bufs(priv);
	ordma_ring_free(priv, &priv->tx);
	ordma_ring_free(priv, &priv->rx);
}

/* Destroy the device rings, then free what they pointed to. */
static void ordma_datapath_release(struct ordma_netdev_priv *priv)
{
	int err_rx, err_tx;

	err_rx = ordma_ring_destroy_hw(priv, &priv->rx);
	err_tx = ordma_ring_destroy_hw(priv, &priv->tx);
	if (err_rx || err_tx) {
		netdev_err(priv->ndev,
			   "keeping ring memory until the device is reset\n");
		priv->broken = true;
		return;
	}
	ordma_datapath_free(priv);
}

static void ordma_rx_post(struct ordma_eth_ring *rx, u32 idx)
{
	struct ordma_eth_desc *desc = &rx->desc[idx];
	struct ordma_eth_buf *buf = &rx->bufs[idx];

	desc->addr = cpu_to_le64(buf->dma);
	desc->reserved_12 = 0;
	desc->len_flags = cpu_to_le32(FIELD_PREP(ORDMA_ETH_DESC_LEN, buf->len));
}

static int ordma_rx_map(struct ordma_netdev_priv *priv, struct sk_buff *skb,
			struct ordma_eth_buf *buf)
{
	struct device *dev = ordma_ndev_dma(priv);
	dma_addr_t dma;

	dma = dma_map_single(dev, skb->data, priv->rx_buf_len,
			     DMA_FROM_DEVICE);
	if (dma_mapping_error(dev, dma))
		return -ENOMEM;
	buf->skb = skb;
	buf->dma = dma;
	buf->len = priv->rx_buf_len;
	return 0;
}

static int ordma_rx_fill(struct ordma_netdev_priv *priv)
{
	struct ordma_eth_ring *rx = &priv->rx;
	struct sk_buff *skb;
	u32 i;

	for (i = 0; i < rx->size; i++) {
		skb = __netdev_alloc_skb_ip_align(priv->ndev, priv->rx_buf_len,
						  GFP_KERNEL);
		if (!skb)
			return -ENOMEM;
		if (ordma_rx_map(priv, skb, &rx->bufs[i])) {
			dev_kfree_skb_any(skb);
			return -ENOMEM;
		}
		ordma_rx_post(rx, i);
	}
	rx->pi = rx->size;
	ordma_ring_kick(priv, rx);
	return 0;
}

static void ordma_tx_reclaim(struct ordma_netdev_priv *priv, int budget)
{
	struct netdev_queue *txq = netdev_get_tx_queue(priv->ndev, 0);
	struct ordma_napi_stats *stats = &priv->napi_stats;
	struct device *dev = ordma_ndev_dma(priv);
	struct ordma_eth_ring *tx = &priv->tx;
	unsigned int pkts = 0, bytes = 0;
	u32 ok_pkts = 0, ok_bytes = 0, errors = 0;
	u32 ci = tx->ci;
	/* Pairs with the release in ordma_start_xmit(). */
	u32 pi = smp_load_acquire(&tx->pi);

	while (ci != pi) {
		u32 idx = ci & (tx->size - 1);
		struct ordma_eth_buf *buf = &tx->bufs[idx];
		u32 lf;

		lf = le32_to_cpu(READ_ONCE(tx->desc[idx].len_flags));
		if (!(lf & ORDMA_ETH_DESC_DONE))
			break;
		dma_rmb();

		dma_unmap_single(dev, buf->dma, buf->len, DMA_TO_DEVICE);
		if (lf & ORDMA_ETH_DESC_ERR) {
			errors++;
		} else {
			ok_pkts++;
			ok_bytes += buf->len;
		}
		pkts++;
		bytes += buf->len;
		napi_consume_skb(buf->skb, budget);
		buf->skb = NULL;
		ci++;
	}
	if (!pkts)
		return;

	WRITE_ONCE(tx->ci, ci);

	u64_stats_update_begin(&stats->syncp);
	u64_stats_add(&stats->tx_packets, ok_pkts);
	u64_stats_add(&stats->tx_bytes, ok_bytes);
	u64_stats_add(&stats->tx_errors, errors);
	u64_stats_update_end(&stats->syncp);

	netif_txq_completed_wake(txq, pkts, bytes, ordma_tx_avail(tx),
				 ordma_tx_wake_thresh(tx));
}

static int ordma_rx_poll(struct ordma_netdev_priv *priv, int budget)
{
	struct ordma_napi_stats *stats = &priv->napi_stats;
	struct device *dev = ordma_ndev_dma(priv);
	struct ordma_eth_ring *rx = &priv->rx;
	u32 packets = 0, bytes = 0, dropped = 0, errors = 0;
	int done = 0;

	while (done < budget) {
		u32 idx = rx->ci & (rx->size - 1);
		struct ordma_eth_buf *buf = &rx->bufs[idx];
		struct ordma_eth_buf fresh;
		struct sk_buff *skb;
		u32 lf, len;

		lf = le32_to_cpu(READ_ONCE(rx->desc[idx].len_flags));
		if (!(lf & ORDMA_ETH_DESC_DONE))
			break;
		/* Read the frame only after seeing DONE. */
		dma_rmb();
		len = FIELD_GET(ORDMA_ETH_DESC_LEN, lf);
		done++;
		rx->ci++;

		/* Bad descriptors give their untouched buffer back. */
		if ((lf & ORDMA_ETH_DESC_ERR) || len < ETH_HLEN ||
		    len > buf->len) {
			errors++;
			goto repost;
		}

		/* Replace the buffer first, so the ring never runs dry. */
		skb = napi_alloc_skb(&priv->napi, priv->rx_buf_len);
		if (!skb) {
			dropped++;
			goto repost;
		}
		if (ordma_rx_map(priv, skb, &fresh)) {
			dev_kfree_skb_any(skb);
			dropped++;
			goto repost;
		}

		skb = buf->skb;
		dma_unmap_single(dev, buf->dma, buf->len, DMA_FROM_DEVICE);
		*buf = fresh;

		skb_put(skb, len);
		skb->protocol = eth_type_trans(skb, priv->ndev);
		napi_gro_receive(&priv->napi, skb);
		packets++;
		bytes += len;
repost:
		ordma_rx_post(rx, idx);
	}

	if (done) {
		rx->pi += done;
		ordma_ring_kick(priv, rx);

		u64_stats_update_begin(&stats->syncp);
		u64_stats_add(&stats->rx_packets, packets);
		u64_stats_add(&stats->rx_bytes, bytes);
		u64_stats_add(&stats->rx_dropped, dropped);
		u64_stats_add(&stats->rx_errors, errors);
		u64_stats_update_end(&stats->syncp);
	}
	return done;
}

static int ordma_napi_poll(struct napi_struct *napi, int budget)
{
	struct ordma_netdev_priv *priv =
		container_of(napi, struct ordma_netdev_priv, napi);
	int done = 0;

	ordma_tx_reclaim(priv, budget);
	if (budget)
		done = ordma_rx_poll(priv, budget);

	if (done < budget && napi_complete_done(napi, done)) {
		/* One-shot: each ring posts an event when it completes a
		 * descriptor beyond the index it was armed with.
		 */
		ordma_ring_arm(priv, &priv->tx);
		ordma_ring_arm(priv, &priv->rx);
	}
	return done;
}

static int ordma_datapath_up(struct ordma_netdev_priv *priv)
{
	struct net_device *ndev = priv->ndev;
	int err;

	if (priv->broken)
		return -EIO;

	priv->rx_buf_len = ndev->mtu + ORDMA_ETH_OVERHEAD;

	err = ordma_ring_alloc(priv, &priv->tx, ORDMA_ETH_RING_TX,
			       priv->tx_log_size);
	if (err)
		return err;
	err = ordma_ring_alloc(priv, &priv->rx, ORDMA_ETH_RING_RX,
			       priv->rx_log_size);
	if (err)
		goto err_free;
	err = ordma_ring_create_hw(priv, &priv->tx);
	if (err)
		goto err_release;
	err = ordma_ring_create_hw(priv, &priv->rx);
	if (err)
		goto err_release;
	err = ordma_rx_fill(priv);
	if (err)
		goto err_release;

	napi_enable(&priv->napi);
	ordma_ring_arm(priv, &priv->tx);
	ordma_ring_arm(priv, &priv->rx);
	netif_tx_wake_all_queues(ndev);
	priv->datapath_up = true;
	return 0;

err_release:
	ordma_datapath_release(priv);
	return err;
err_free:
	ordma_datapath_free(priv);
	return err;
}

static void ordma_datapath_down(struct ordma_netdev_priv *priv)
{
	if (!priv->datapath_up)
		return;
	priv->datapath_up = false;
	/* NAPI first: its TX reclaim could wake the queue again. */
	napi_disable(&priv->napi);
	netif_tx_disable(priv->ndev);
	ordma_datapath_release(priv);
}

static int ordma_set_admin(struct ordma_netdev_priv *priv, bool up)
{
	struct ordma_port_cfg cfg = {
		.mask = ORDMA_SET_PORT_ADMIN,
		.admin_up = up,
	};

	return ordma_cmd_set_port(priv->cdev, &cfg);
}

static int ordma_open(struct net_device *ndev)
{
	struct ordma_netdev_priv *priv = netdev_priv(ndev);
	int err;

	err = ordma_datapath_up(priv);
	if (err)
		return err;

	err = ordma_set_admin(priv, true);
	if (err) {
		netdev_err(ndev, "cannot bring the port up: %d\n", err);
		ordma_datapath_down(priv);
		return err;
	}
	ordma_sync_carrier(priv);
	return 0;
}

static int ordma_stop(struct net_device *ndev)
{
	struct ordma_netdev_priv *priv = netdev_priv(ndev);
	struct ordma_core_dev *cdev = priv->cdev;
	int err;

	err = ordma_set_admin(priv, false);
	if (err)
		netdev_warn(ndev, "cannot bring the port down: %d\n", err);

	spin_lock_irq(&cdev->port_lock);
	ordma_set_carrier(ndev, false);
	spin_unlock_irq(&cdev->port_lock);

	ordma_datapath_down(priv);
	return 0;
}

static netdev_tx_t ordma_start_xmit(struct sk_buff *skb,
				    struct net_device *ndev)
{
	struct ordma_netdev_priv *priv = netdev_priv(ndev);
	struct netdev_queue *txq = netdev_get_tx_queue(ndev, 0);
	struct ordma_xmit_stats *stats = &priv->xmit_stats;
	struct device *dev = ordma_ndev_dma(priv);
	struct ordma_eth_ring *tx = &priv->tx;
	struct ordma_eth_desc *desc;
	struct ordma_eth_buf *buf;
	dma_addr_t dma;
	u32 idx, len;

	/* No scatter-gather: the stack hands us linear frames already. */
	if (skb_linearize(skb))
		goto drop;
	len = skb->len;
	if (len < ETH_HLEN || len > READ_ONCE(ndev->mtu) + ORDMA_ETH_OVERHEAD)
		goto drop;

	/* The queue is stopped when the last descriptor is taken, so only
	 * a spurious wake gets here.  Stopping through the macro re-checks
	 * after the stop, so a reclaim that races with it cannot leave the
	 * queue stopped over a ring with room.
	 */
	if (unlikely(!netif_txq_maybe_stop(txq, ordma_tx_avail(tx),
					   ORDMA_TX_STOP_THRESH,
					   ordma_tx_wake_thresh(tx))))
		return NETDEV_TX_BUSY;

	dma = dma_map_single(dev, skb->data, len, DMA_TO_DEVICE);
	if (dma_mapping_error(dev, dma))
		goto drop;

	idx = tx->pi & (tx->size - 1);
	buf = &tx->bufs[idx];
	buf->skb = skb;
	buf->dma = dma;
	buf->len = len;

	/* The device pads short frames itself. */
	desc = &tx->desc[idx];
	desc->addr = cpu_to_le64(dma);
	desc->reserved_12 = 0;
	desc->len_flags = cpu_to_le32(FIELD_PREP(ORDMA_ETH_DESC_LEN, len));

	skb_tx_timestamp(skb);
	netdev_tx_sent_queue(txq, len);
	/* Publish descriptor and buffer to the reclaim path. */
	smp_store_release(&tx->pi, tx->pi + 1);

	netif_txq_maybe_stop(txq, ordma_tx_avail(tx), ORDMA_TX_STOP_THRESH,
			     ordma_tx_wake_thresh(tx));
	/* writeq() orders the descriptor before the doorbell. */
	if (!netdev_xmit_more() || netif_xmit_stopped(txq))
		ordma_ring_kick(priv, tx);
	return NETDEV_TX_OK;

drop:
	dev_kfree_skb_any(skb);
	u64_stats_update_begin(&stats->syncp);
	u64_stats_inc(&stats->tx_dropped);
	u64_stats_update_end(&stats->syncp);
	/* Flush frames queued earlier in this batch. */
	if (!netdev_xmit_more())
		ordma_ring_kick(priv, tx);
	return NETDEV_TX_OK;
}

/* The stack counts the timeout (tx_timeout in sysfs); log the ring. */
static void ordma_tx_timeout(struct net_device *ndev, unsigned int txqueue)
{
	struct ordma_netdev_priv *priv = netdev_priv(ndev);

	netdev_err(ndev, "TX ring stalled: pi %u ci %u\n",
		   READ_ONCE(priv->tx.pi), READ_ONCE(priv->tx.ci));
}

/* Bring the rings of a running interface back after a restart failed.
 * If even that fails, take the port down so that the carrier drops and
 * nothing is queued to rings that do not exist; ndo_open tries again.
 */
static void ordma_datapath_resume(struct ordma_netdev_priv *priv)
{
	struct ordma_core_dev *cdev = priv->cdev;
	int err;

	err = ordma_datapath_up(priv);
	if (!err)
		return;
	netdev_err(priv->ndev,
		   "cannot restart the rings: %d; port down until the interface is brought up again\n",
		   err);
	ordma_set_admin(priv, false);
	spin_lock_irq(&cdev->port_lock);
	ordma_set_carrier(priv->ndev, false);
	spin_unlock_irq(&cdev->port_lock);
}

static int ordma_set_port_mtu(struct ordma_netdev_priv *priv, int mtu)
{
	struct ordma_port_cfg cfg = {
		.mask = ORDMA_SET_PORT_MTU,
		.mtu = mtu,
	};
	int err;

	err = ordma_cmd_set_port(priv->cdev, &cfg);
	if (err) {
		netdev_err(priv->ndev, "cannot set MTU %d: %d\n", mtu, err);
		return err;
	}
	WRITE_ONCE(priv->ndev->mtu, mtu);
	return 0;
}

static int ordma_change_mtu(struct net_device *ndev, int new_mtu)
{
	struct ordma_netdev_priv *priv = netdev_priv(ndev);
	bool running = priv->datapath_up;
	int old_mtu = ndev->mtu;
	int err;

	if (priv->broken)
		return -EIO;

	/* Posted RX buffers can only be taken back by destroying the ring,
	 * so a running interface restarts its rings with the new size.
	 */
	if (running) {
		ordma_datapath_down(priv);
		if (priv->broken)
			return -EIO;
	}

	err = ordma_set_port_mtu(priv, new_mtu);
	if (!err && running) {
		int up_err = ordma_datapath_up(priv);

		/* No buffers for the new size: go back to the old MTU, so
		 * that a failed call changes nothing.  If the device does
		 * not take it back, the new MTU stands.
		 */
		if (up_err && !ordma_set_port_mtu(priv, old_mtu))
			err = up_err;
	}
	if (running && !priv->datapath_up)
		ordma_datapath_resume(priv);
	return err;
}

static int ordma_set_mac_address(struct net_device *ndev, void *p)
{
	struct ordma_netdev_priv *priv = netdev_priv(ndev);
	struct ordma_port_cfg cfg = { .mask = ORDMA_SET_PORT_MAC };
	struct sockaddr *addr = p;
	int err;

	if (!is_valid_ether_addr(addr->sa_data))
		return -EADDRNOTAVAIL;

	memcpy(cfg.mac, addr->sa_data, ETH_ALEN);
	err = ordma_cmd_set_port(priv->cdev, &cfg);
	if (err)
		return err;
	eth_hw_addr_set(ndev, addr->sa_data);
	return 0;
}

/* The device always accepts broadcast and IPv4/IPv6 multicast; any other
 * multicast group needs ALLMULTI.
 */
static bool ordma_needs_allmulti(struct net_device *ndev)
{
	struct netdev_hw_addr *ha;

	netdev_for_each_mc_addr(ha, ndev)
		if (!ether_addr_is_ip_mcast(ha->addr))
			return true;
	return false;
}

/* Atomic context (address list lock held): the command runs from a work. */
static void ordma_set_rx_mode(struct net_device *ndev)
{
	struct ordma_netdev_priv *priv = netdev_priv(ndev);
	u8 mode = 0;

	/* Without IFF_UNICAST_FLT the core turns extra unicast addresses
	 * into IFF_PROMISC for us.
	 */
	if (ndev->flags & IFF_PROMISC)
		mode |= ORDMA_RX_MODE_PROMISC;
	if ((ndev->flags & IFF_ALLMULTI) || ordma_needs_allmulti(ndev))
		mode |= ORDMA_RX_MODE_ALLMULTI;

	WRITE_ONCE(priv->rx_mode_wanted, mode);
	queue_work(priv->cdev->wq, &priv->rx_mode_work);
}

static void ordma_rx_mode_work(struct work_struct *work)
{
	struct ordma_netdev_priv *priv =
		container_of(work, struct ordma_netdev_priv, rx_mode_work);
	struct ordma_port_cfg cfg = { .mask = ORDMA_SET_PORT_RX_MODE };
	int err;

	cfg.rx_mode = READ_ONCE(priv->rx_mode_wanted);
	if (cfg.rx_mode == priv->rx_mode_hw)
		return;
	err = ordma_cmd_set_port(priv->cdev, &cfg);
	if (err) {
		netdev_warn(priv->ndev, "cannot set RX mode 0x%x: %d\n",
			    cfg.rx_mode, err);
		return;
	}
	priv->rx_mode_hw = cfg.rx_mode;
}

static void ordma_get_stats64(struct net_device *ndev,
			      struct rtnl_link_stats64 *s)
{
	struct ordma_netdev_priv *priv = netdev_priv(ndev);
	struct ordma_napi_stats *ns = &priv->napi_stats;
	struct ordma_xmit_stats *xs = &priv->xmit_stats;
	unsigned int start;

	do {
		start = u64_stats_fetch_begin(&ns->syncp);
		s->rx_packets = u64_stats_read(&ns->rx_packets);
		s->rx_bytes = u64_stats_read(&ns->rx_bytes);
		s->rx_dropped = u64_stats_read(&ns->rx_dropped);
		s->rx_errors = u64_stats_read(&ns->rx_errors);
		s->tx_packets = u64_stats_read(&ns->tx_packets);
		s->tx_bytes = u64_stats_read(&ns->tx_bytes);
		s->tx_errors = u64_stats_read(&ns->tx_errors);
	} while (u64_stats_fetch_retry(&ns->syncp, start));

	do {
		start = u64_stats_fetch_begin(&xs->syncp);
		s->tx_dropped = u64_stats_read(&xs->tx_dropped);
	} while (u64_stats_fetch_retry(&xs->syncp, start));
}

static const struct net_device_ops ordma_netdev_ops = {
	.ndo_open		= ordma_open,
	.ndo_stop		= ordma_stop,
	.ndo_start_xmit		= ordma_start_xmit,
	.ndo_tx_timeout		= ordma_tx_timeout,
	.ndo_change_mtu		= ordma_change_mtu,
	.ndo_set_mac_address	= ordma_set_mac_address,
	.ndo_validate_addr	= eth_validate_addr,
	.ndo_set_rx_mode	= ordma_set_rx_mode,
	.ndo_get_stats64	= ordma_get_stats64,
};

/* ethtool */

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
	if (priv->broken)
		return -EIO;

	if (running) {
		ordma_datapath_down(priv);
		if (priv->broken)
			return -EIO;
	}
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

static int ordma_get_sset_count(struct net_device *ndev, int sset)
{
	if (sset == ETH_SS_STATS)
		return ORDMA_PORT_STATS_NUM;
	return -EOPNOTSUPP;
}

static void ordma_get_strings(struct net_device *ndev, u32 sset, u8 *data)
{
	u32 i;

	if (sset != ETH_SS_STATS)
		return;
	for (i = 0; i < ORDMA_PORT_STATS_NUM; i++)
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
		memset(data, 0, ORDMA_PORT_STATS_NUM * sizeof(*data));
		return;
	}
	for (i = 0; i < ORDMA_PORT_STATS_NUM; i++)
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

/* MTU limits, MTU and MAC come from the device. */
static int ordma_netdev_setup_port(struct ordma_netdev_priv *priv)
{
	struct ordma_core_dev *cdev = priv->cdev;
	struct net_device *ndev = priv->ndev;
	struct ordma_port_cfg cfg = {};
	struct ordma_port_attr attr;
	u32 max_mtu, port_max, mtu;
	int err;

	err = ordma_cmd_query_port(cdev, &attr);
	if (err) {
		dev_err(ordma_dev(cdev), "QUERY_PORT failed: %d\n", err);
		return err;
	}

	max_mtu = le32_to_cpu(cdev->caps.max_eth_mtu);
	port_max = le32_to_cpu(attr.max_mtu);
	if (port_max)
		max_mtu = min(max_mtu, port_max);
	if (max_mtu > ORDMA_ETH_MAX_MTU) {
		dev_warn(ordma_dev(cdev), "limiting max MTU %u to %u\n",
			 max_mtu, ORDMA_ETH_MAX_MTU);
		max_mtu = ORDMA_ETH_MAX_MTU;
	}
	if (max_mtu < ETH_MIN_MTU) {
		dev_err(ordma_dev(cdev), "device max MTU %u too small\n",
			max_mtu);
		return -EIO;
	}
	ndev->min_mtu = ETH_MIN_MTU;
	ndev->max_mtu = max_mtu;

	mtu = le32_to_cpu(attr.mtu);
	if (mtu < ETH_MIN_MTU || mtu > max_mtu) {
		mtu = min_t(u32, ORDMA_ETH_DEFAULT_MTU, max_mtu);
		cfg.mask |= ORDMA_SET_PORT_MTU;
		cfg.mtu = mtu;
	}
	ndev->mtu = mtu;

	if (is_valid_ether_addr(attr.mac)) {
		eth_hw_addr_set(ndev, attr.mac);
	} else {
		eth_hw_addr_random(ndev);
		dev_warn(ordma_dev(cdev), "invalid port MAC %pM, using %pM\n",
			 attr.mac, ndev->dev_addr);
		cfg.mask |= ORDMA_SET_PORT_MAC;
		memcpy(cfg.mac, ndev->dev_addr, ETH_ALEN);
	}

	if (cfg.mask) {
		err = ordma_cmd_set_port(cdev, &cfg);
		if (err) {
			dev_err(ordma_dev(cdev), "SET_PORT failed: %d\n", err);
			return err;
		}
	}
	priv->rx_mode_hw = attr.rx_mode;
	return 0;
}

/* On failure the caller still runs ordma_netdev_unregister() and, after
 * the device reset, ordma_netdev_free().
 */
int ordma_netdev_create(struct ordma_core_dev *cdev)
{
	struct ordma_netdev_priv *priv;
	struct net_device *ndev;
	int err;

	ndev = alloc_etherdev(sizeof(*priv));
	if (!ndev)
		return -ENOMEM;
	SET_NETDEV_DEV(ndev, &cdev->pdev->dev);

	priv = netdev_priv(ndev);
	priv->cdev = cdev;
	priv->ndev = ndev;
	priv->eq = &cdev->comp_eqs[0];
	priv->tx_log_size = ORDMA_ETH_RING_LOG_SIZE;
	priv->rx_log_size = ORDMA_ETH_RING_LOG_SIZE;
	u64_stats_init(&priv->napi_stats.syncp);
	u64_stats_init(&priv->xmit_stats.syncp);
	INIT_WORK(&priv->rx_mode_work, ordma_rx_mode_work);

	ndev->netdev_ops = &ordma_netdev_ops;
	ndev->ethtool_ops = &ordma_ethtool_ops;
	ndev->watchdog_timeo = ORDMA_TX_TIMEOUT;
	ndev->priv_flags |= IFF_LIVE_ADDR_CHANGE;
	netif_napi_add(ndev, &priv->napi, ordma_napi_poll);
	netif_carrier_off(ndev);

	/* From here on events may reach the netdev. */
	WRITE_ONCE(cdev->ndev, ndev);

	err = ordma_netdev_setup_port(priv);
	if (err)
		return err;

	spin_lock_irq(&cdev->port_lock);
	cdev->port_events = true;
	spin_unlock_irq(&cdev->port_lock);

	err = register_netdev(ndev);
	if (err) {
		dev_err(ordma_dev(cdev), "register_netdev failed: %d\n", err);
		return err;
	}
	priv->registered = true;
	return 0;
}

void ordma_netdev_unregister(struct ordma_core_dev *cdev)
{
	struct net_device *ndev = cdev->ndev;
	struct ordma_netdev_priv *priv;

	if (!ndev)
		return;
	priv = netdev_priv(ndev);

	spin_lock_irq(&cdev->port_lock);
	cdev->port_events = false;
	spin_unlock_irq(&cdev->port_lock);

	if (priv->registered) {
		unregister_netdev(ndev);
		priv->registered = false;
	}
	cancel_work_sync(&priv->rx_mode_work);
}

/* After the completion EQ interrupts are gone and the device is reset */
void ordma_netdev_free(struct ordma_core_dev *cdev)
{
	struct net_device *ndev = cdev->ndev;
	struct ordma_netdev_priv *priv;

	if (!ndev)
		return;
	priv = netdev_priv(ndev);
	WRITE_ONCE(cdev->ndev, NULL);
	if (priv->broken)
		ordma_datapath_free(priv);
	free_netdev(ndev);
}

/* Shutdown: no more transmits; the device is reset right after. */
void ordma_netdev_detach(struct ordma_core_dev *cdev)
{
	struct net_device *ndev = cdev->ndev;
	struct ordma_netdev_priv *priv;

	if (!ndev)
		return;
	priv = netdev_priv(ndev);
	if (!priv->registered)
		return;
	rtnl_lock();
	netif_device_detach(ndev);
	rtnl_unlock();
}
