// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* ORDMA Ethernet port: the net_device, its ndo operations and carrier.
 *
 * Carrier follows the device's port state only: it is queried when the
 * interface comes up and then tracked through PORT_CHANGE events.  The
 * rings and NAPI are in ordma_txrx.c, ethtool in ordma_ethtool.c.
 */

#include <linux/etherdevice.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/u64_stats_sync.h>

#include "ordma_netdev.h"

#define ORDMA_TX_TIMEOUT	(5 * HZ)

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

/*
 * Rebuild the rings of a running interface.  A descriptor whose
 * completion the driver will never see stalls the in-order ring walk:
 * the device stops such a ring (ORDMA_EQE_ETH_RING_ERR, e.g. after DMA
 * failed while Bus Master Enable was off), and a TX ring that completes
 * nothing for ORDMA_TX_TIMEOUT is treated alike.  Frames in the rings
 * are lost, as on a link flap.
 */
static void ordma_ring_reset_work(struct work_struct *work)
{
	struct ordma_netdev_priv *priv =
		container_of(work, struct ordma_netdev_priv, ring_reset_work);
	struct net_device *ndev = priv->ndev;

	rtnl_lock();
	if (netif_running(ndev) && priv->datapath_up) {
		netdev_warn(ndev, "restarting the Ethernet rings\n");
		if (!ordma_datapath_stop_for_change(priv))
			ordma_datapath_resume(priv);
	}
	rtnl_unlock();
}

/* Interrupt context: the async EQ's vector */
void ordma_netdev_ring_error(struct ordma_core_dev *cdev, u32 ring_id)
{
	struct net_device *ndev = READ_ONCE(cdev->ndev);
	struct ordma_netdev_priv *priv;

	if (!ndev)
		return;
	priv = netdev_priv(ndev);
	netdev_err_once(ndev, "device stopped Ethernet ring %u\n", ring_id);
	schedule_work(&priv->ring_reset_work);
}

/* The stack counts the timeout (tx_timeout in sysfs). */
static void ordma_tx_timeout(struct net_device *ndev, unsigned int txqueue)
{
	struct ordma_netdev_priv *priv = netdev_priv(ndev);

	netdev_err(ndev, "TX ring stalled: pi %u ci %u\n",
		   READ_ONCE(priv->tx.pi), READ_ONCE(priv->tx.ci));
	schedule_work(&priv->ring_reset_work);
}

/* Bring the rings of a running interface back after a restart failed.
 * If even that fails, take the port down so that the carrier drops and
 * nothing is queued to rings that do not exist; ndo_open tries again.
 */
void ordma_datapath_resume(struct ordma_netdev_priv *priv)
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

	/* Posted RX buffers can only be taken back by destroying the ring,
	 * so a running interface restarts its rings with the new size.
	 */
	err = ordma_datapath_stop_for_change(priv);
	if (err)
		return err;

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
	if (attr.link_layer != ORDMA_LINK_LAYER_ETHERNET) {
		dev_err(ordma_dev(cdev),
			"port link layer %u is not Ethernet: not supported\n",
			attr.link_layer);
		return -EOPNOTSUPP;
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
	struct ordma_port_attr attr;
	struct net_device *ndev;
	int err;

	err = ordma_cmd_query_port(cdev, &attr);
	if (err) {
		dev_err(ordma_dev(cdev), "QUERY_PORT failed: %d\n", err);
		return err;
	}
	/* An InfiniBand port has no Ethernet function: IPoIB is its netdev. */
	if (attr.link_layer == ORDMA_LINK_LAYER_INFINIBAND) {
		dev_info(ordma_dev(cdev),
			 "InfiniBand port: no Ethernet interface\n");
		return 0;
	}

	ndev = alloc_etherdev(sizeof(*priv));
	if (!ndev)
		return -ENOMEM;
	SET_NETDEV_DEV(ndev, &cdev->pdev->dev);

	priv = netdev_priv(ndev);
	priv->cdev = cdev;
	priv->ndev = ndev;
	priv->eq = &cdev->comp_eqs[0];
	priv->tx_log_size = ORDMA_ETH_TX_RING_LOG_SIZE;
	priv->rx_log_size = ORDMA_ETH_RX_RING_LOG_SIZE;
	u64_stats_init(&priv->napi_stats.syncp);
	u64_stats_init(&priv->xmit_stats.syncp);
	INIT_WORK(&priv->rx_mode_work, ordma_rx_mode_work);
	INIT_WORK(&priv->ring_reset_work, ordma_ring_reset_work);

	ndev->netdev_ops = &ordma_netdev_ops;
	ordma_ethtool_set_ops(ndev);
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
	cancel_work_sync(&priv->ring_reset_work);
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

/*
 * Recovery and reload reset the function under a registered interface,
 * which keeps its name, addresses and configuration.  Detached, it takes
 * no packets and cannot be opened, and nothing creates rings until
 * ordma_netdev_resume().
 */
void ordma_netdev_suspend(struct ordma_core_dev *cdev)
{
	struct net_device *ndev = cdev->ndev;
	struct ordma_netdev_priv *priv;

	if (!ndev)
		return;
	priv = netdev_priv(ndev);

	rtnl_lock();
	spin_lock_irq(&cdev->port_lock);
	cdev->port_events = false;
	ordma_set_carrier(ndev, false);
	spin_unlock_irq(&cdev->port_lock);
	priv->suspended = true;
	netif_device_detach(ndev);
	ordma_datapath_down(priv);
	rtnl_unlock();
	cancel_work_sync(&priv->ring_reset_work);
}

/* After the device reset: rings it would not destroy are gone now. */
void ordma_netdev_reclaim(struct ordma_core_dev *cdev)
{
	struct ordma_netdev_priv *priv;

	if (!cdev->ndev)
		return;
	priv = netdev_priv(cdev->ndev);
	if (!priv->broken)
		return;
	ordma_datapath_free(priv);
	priv->tx.created = false;
	priv->rx.created = false;
	priv->broken = false;
}

/* Give a reset device the interface's MTU, MAC and RX mode again. */
static int ordma_netdev_restore_port(struct ordma_netdev_priv *priv)
{
	struct ordma_core_dev *cdev = priv->cdev;
	struct ordma_port_cfg cfg = {
		.mask = ORDMA_SET_PORT_MTU | ORDMA_SET_PORT_MAC,
		.mtu = priv->ndev->mtu,
	};
	struct ordma_port_attr attr;
	int err;

	err = ordma_cmd_query_port(cdev, &attr);
	if (err)
		return err;
	memcpy(cfg.mac, priv->ndev->dev_addr, ETH_ALEN);
	err = ordma_cmd_set_port(cdev, &cfg);
	if (err)
		return err;
	priv->rx_mode_hw = attr.rx_mode;
	queue_work(cdev->wq, &priv->rx_mode_work);
	return 0;
}

/* The reset device runs again, with its event queues created. */
int ordma_netdev_resume(struct ordma_core_dev *cdev)
{
	struct net_device *ndev = cdev->ndev;
	struct ordma_netdev_priv *priv;
	int err;

	if (!ndev)
		return 0;
	priv = netdev_priv(ndev);
	priv->eq = &cdev->comp_eqs[0];

	rtnl_lock();
	err = ordma_netdev_restore_port(priv);
	if (err) {
		netdev_err(ndev, "cannot restore the port configuration: %d\n",
			   err);
		goto out;
	}
	spin_lock_irq(&cdev->port_lock);
	cdev->port_events = true;
	spin_unlock_irq(&cdev->port_lock);
	priv->suspended = false;

	/* Rings first: attaching wakes the transmit queue. */
	if (netif_running(ndev)) {
		err = ordma_datapath_up(priv);
		if (!err)
			err = ordma_set_admin(priv, true);
		if (err) {
			netdev_err(ndev, "cannot restart the port: %d\n", err);
			ordma_datapath_down(priv);
			goto out;
		}
		ordma_sync_carrier(priv);
	}
	netif_device_attach(ndev);
out:
	rtnl_unlock();
	return err;
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
