// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* ORDMA Ethernet port: descriptor rings, transmit and NAPI receive.
 *
 * One TX and one RX descriptor ring, both reporting to completion EQ 0.
 * The rings exist while the interface is up: ndo_open creates them and
 * fills RX, ndo_stop destroys them, after which the device touches none
 * of their buffers.  A ring raises one ETH event per arm; the EQ handler
 * schedules NAPI, which reclaims TX, receives, re-posts RX buffers and
 * finally re-arms both rings with the index it will look at next.
 */

#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <linux/netdevice.h>
#include <linux/u64_stats_sync.h>
#include <net/netdev_queues.h>

#include "ordma_netdev.h"

#define ORDMA_TX_STOP_THRESH	1	/* a linear frame needs one descriptor */

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
		/* a device that is gone took its rings with it */
		if (err != -ENODEV)
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

void ordma_datapath_free(struct ordma_netdev_priv *priv)
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

int ordma_napi_poll(struct napi_struct *napi, int budget)
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

int ordma_datapath_up(struct ordma_netdev_priv *priv)
{
	struct net_device *ndev = priv->ndev;
	int err;

	if (priv->broken)
		return -EIO;
	if (priv->suspended)
		return -ENODEV;

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

void ordma_datapath_down(struct ordma_netdev_priv *priv)
{
	if (!priv->datapath_up)
		return;
	priv->datapath_up = false;
	/* NAPI first: its TX reclaim could wake the queue again. */
	napi_disable(&priv->napi);
	netif_tx_disable(priv->ndev);
	ordma_datapath_release(priv);
}

/*
 * Before a change that needs the rings rebuilt (MTU, ring sizes): stop
 * them if the interface is running.  -EIO if a ring is broken, then or
 * before; the interface cannot come up again.
 */
int ordma_datapath_stop_for_change(struct ordma_netdev_priv *priv)
{
	if (priv->broken)
		return -EIO;
	if (!priv->datapath_up)
		return 0;
	ordma_datapath_down(priv);
	return priv->broken ? -EIO : 0;
}

netdev_tx_t ordma_start_xmit(struct sk_buff *skb, struct net_device *ndev)
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
