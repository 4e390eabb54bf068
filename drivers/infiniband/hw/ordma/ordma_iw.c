// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA iWARP port: what the RDMA core and its iWARP connection manager
 * (iw_cm) ask of a device whose port speaks iWARP.  The port has one GID,
 * the netdev's MAC address, as the RDMA core derives an iWARP port's
 * address from it.  TCP and MPA run in the device: the driver gives it
 * the netdev's first IPv4 address (ADD_GID, ORDMA_GID_TYPE_IP), reserves
 * the TCP ports of its listeners and connections in the host stack with
 * bound sockets that never listen (IW_F_NO_PORT_MAP: no port mapper),
 * resolves the next hop's MAC for an active open, and turns the device's
 * connection events into iw_cm's.
 *
 * Events arrive in hard IRQ context: each is copied to a work item of an
 * ordered workqueue and handled under ordma_iw.lock, which the iw_*
 * operations hold around their commands, so that an event never finds a
 * connection half set up.  A connection object lives while a cm_id may
 * name it (cm_id->provider_data): until its CLOSE or failed CONNECT_REPLY
 * was delivered, or, for a request, until iw_accept's connection ends or
 * iw_reject.  Connection handles are the device's opaque names: it never
 * gives one connection's handle to another, so an event still queued for
 * a connection that ended matches no object and a command naming it
 * fails with -ENOENT.
 */

#include <linux/bitfield.h>
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/inetdevice.h>
#include <linux/in.h>
#include <linux/kref.h>
#include <linux/net.h>
#include <linux/netdevice.h>
#include <linux/pci.h>
#include <net/neighbour.h>
#include <net/route.h>
#include <net/sock.h>
#include <rdma/ib_verbs.h>
#include <rdma/iw_cm.h>

#include "ordma_ib.h"

int ordma_iw_query_gid(struct ib_device *ibdev, u32 port, int index,
		       union ib_gid *gid)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(ibdev);

	if (index != 0)
		return -EINVAL;
	memset(gid, 0, sizeof(*gid));
	ether_addr_copy(gid->raw, dev->info.netdev->dev_addr);
	return 0;
}

/*
 * iw_cm holds a QP while a connection uses it, and takes the reference
 * under its own spinlock: no sleeping here.  destroy_qp waits for the
 * last reference.
 */
void ordma_iw_add_ref(struct ib_qp *ibqp)
{
	refcount_inc(&to_ordma_qp(ibqp)->ref.count);
}

void ordma_iw_rem_ref(struct ib_qp *ibqp)
{
	ordma_obj_ref_put(&to_ordma_qp(ibqp)->ref);
}

/* The QP iw_cm is given by number; the caller takes its reference. */
struct ib_qp *ordma_iw_get_qp(struct ib_device *ibdev, int qpn)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(ibdev);
	struct ordma_qp *qp;

	if (qpn < 0)
		return NULL;
	qp = ordma_obj_get(&dev->qps, qpn, struct ordma_qp);
	if (!qp)
		return NULL;
	ordma_obj_ref_put(&qp->ref);
	return &qp->ibqp;
}

/* The GID slot the port's IPv4 address takes on an iWARP port */
#define ORDMA_IW_GID_INDEX	0
/* How long iw_connect waits for the next hop's neighbour entry */
#define ORDMA_IW_NEIGH_WAIT_MS	3000
#define ORDMA_IW_NEIGH_POLL_MS	20
/* The most RDMA Reads a connection's IRD and ORD offer (IW_CONNECT) */
#define ORDMA_IW_MAX_RD		128

/* A TCP port held in the host stack: a bound socket that never listens */
struct ordma_iw_port {
	struct kref kref;
	struct socket *sock;
};

struct ordma_iw_listener {
	struct list_head link;
	struct iw_cm_id *cm_id;		/* with a reference */
	u32 handle;
	/* the device dropped it (the port's address changed) */
	bool dead;
	struct ordma_iw_port *port;
};

enum ordma_iw_conn_phase {
	ORDMA_IW_CONNECTING,		/* active: CONNECT_REPLY due */
	ORDMA_IW_REQUEST,		/* passive: iw_accept or iw_reject due */
	ORDMA_IW_ACCEPTING,		/* passive: ESTABLISHED due */
	ORDMA_IW_CONNECTED,		/* CLOSE due to cm_id */
	ORDMA_IW_DEAD,			/* no device handle; a cm_id may name it */
};

struct ordma_iw_conn {
	struct list_head link;
	u32 handle;
	enum ordma_iw_conn_phase phase;
	struct iw_cm_id *cm_id;		/* with a reference, once it has one */
	struct ordma_qp *qp;		/* with a reference, once bound */
	struct ordma_iw_port *port;
	struct sockaddr_in local;
	struct sockaddr_in remote;
};

struct ordma_iw {
	struct ordma_ibdev *dev;
	/* listeners, conns, every conn's and the QPs' iw_conn; sleeps */
	struct mutex lock;
	struct list_head listeners;
	struct list_head conns;
	struct workqueue_struct *wq;
	struct notifier_block inetaddr_nb;
	bool notifier;
	bool stopped;
	__be32 addr;			/* programmed in the GID table, or 0 */
};

struct ordma_iw_event_work {
	struct work_struct work;
	struct ordma_iw *iw;
	u32 type;
	u32 data[3];
};

static void ordma_iw_ipv4_gid(__be32 addr, u8 gid[16])
{
	ipv6_addr_set_v4mapped(addr, (struct in6_addr *)gid);
}

/* ---------------------------------------------------------------- */
/* The port's address                                               */
/* ---------------------------------------------------------------- */

static __be32 ordma_iw_first_addr(struct net_device *netdev)
{
	const struct in_ifaddr *ifa;
	struct in_device *in_dev;
	__be32 addr = 0;

	rcu_read_lock();
	in_dev = __in_dev_get_rcu(netdev);
	if (in_dev) {
		ifa = rcu_dereference(in_dev->ifa_list);
		if (ifa)
			addr = ifa->ifa_local;
	}
	rcu_read_unlock();
	return addr;
}

static void ordma_iw_drop_all(struct ordma_iw *iw);

/* Program the netdev's first IPv4 address, or none; under iw->lock */
static void ordma_iw_update_addr(struct ordma_iw *iw)
{
	struct ordma_ibdev *dev = iw->dev;
	struct net_device *netdev = dev->info.netdev;
	__be32 addr = iw->stopped ? 0 : ordma_iw_first_addr(netdev);
	u8 gid[16];
	int err;

	if (addr == iw->addr)
		return;
	/* the device drops what ran on the old address, without events */
	if (iw->addr)
		ordma_iw_drop_all(iw);
	if (iw->addr) {
		err = ordma_cmd_del_gid(dev, ORDMA_IW_GID_INDEX);
		ordma_report_destroy(dev, err, "DEL_GID %pI4", &iw->addr);
		iw->addr = 0;
	}
	if (!addr)
		return;
	ordma_iw_ipv4_gid(addr, gid);
	err = ordma_cmd_add_gid(dev, ORDMA_IW_GID_INDEX, ORDMA_GID_TYPE_IP,
				gid, netdev->dev_addr, ORDMA_VLAN_NONE);
	if (err) {
		ibdev_err(&dev->ibdev, "ADD_GID %pI4 failed: %d\n", &addr, err);
		return;
	}
	iw->addr = addr;
	ibdev_dbg(&dev->ibdev, "iWARP address %pI4\n", &addr);
}

/* Process context, under RTNL (the inetaddr chain is blocking) */
static int ordma_iw_inetaddr_event(struct notifier_block *nb,
				   unsigned long event, void *ptr)
{
	struct ordma_iw *iw = container_of(nb, struct ordma_iw, inetaddr_nb);
	struct in_ifaddr *ifa = ptr;

	if (ifa->ifa_dev->dev != iw->dev->info.netdev)
		return NOTIFY_DONE;
	if (event != NETDEV_UP && event != NETDEV_DOWN)
		return NOTIFY_DONE;
	mutex_lock(&iw->lock);
	ordma_iw_update_addr(iw);
	mutex_unlock(&iw->lock);
	return NOTIFY_DONE;
}

/* ---------------------------------------------------------------- */
/* Port reservations                                                */
/* ---------------------------------------------------------------- */

/*
 * Hold @sin's TCP port in the netdev's namespace with a bound socket that
 * never listens.  It has SO_REUSEADDR, as a host's listening socket has:
 * rdma_cm listens again on a port whose earlier listener's connections
 * still hold a reservation (perftest -R does, on one port), and two
 * reservations with SO_REUSEADDR, neither listening, do not collide.  A
 * host socket without SO_REUSEADDR still gets EADDRINUSE from bind(),
 * one with it from listen().  Port 0: the host picks one, written back
 * to @sin.
 */
static int ordma_iw_reserve(struct ordma_iw *iw, struct sockaddr_in *sin,
			    struct ordma_iw_port **portp)
{
	struct net *net = dev_net(iw->dev->info.netdev);
	struct ordma_iw_port *port;
	struct sockaddr_in bound;
	int err;

	port = kzalloc(sizeof(*port), GFP_KERNEL);
	if (!port)
		return -ENOMEM;
	kref_init(&port->kref);
	err = sock_create_kern(net, AF_INET, SOCK_STREAM, IPPROTO_TCP,
			       &port->sock);
	if (err)
		goto err_free;
	/*
	 * Tied to the port's netdev: a host socket bound to no device still
	 * collides with it, one tied to another netdev (siw's wildcard
	 * listeners, say) does not.
	 */
	err = sock_bindtoindex(port->sock->sk, iw->dev->info.netdev->ifindex,
			       true);
	if (err)
		goto err_release;
	sock_set_reuseaddr(port->sock->sk);
	err = kernel_bind(port->sock, (struct sockaddr *)sin, sizeof(*sin));
	if (err) {
		ibdev_dbg(&iw->dev->ibdev, "bind %pISpc: %d\n", sin, err);
		goto err_release;
	}
	err = kernel_getsockname(port->sock, (struct sockaddr *)&bound);
	if (err < 0)
		goto err_release;
	sin->sin_port = bound.sin_port;
	*portp = port;
	return 0;

err_release:
	sock_release(port->sock);
err_free:
	kfree(port);
	return err;
}

static void ordma_iw_port_free(struct kref *kref)
{
	struct ordma_iw_port *port = container_of(kref, struct ordma_iw_port,
						  kref);

	sock_release(port->sock);
	kfree(port);
}

static void ordma_iw_port_put(struct ordma_iw_port *port)
{
	if (port)
		kref_put(&port->kref, ordma_iw_port_free);
}

/* ---------------------------------------------------------------- */
/* Connections                                                      */
/* ---------------------------------------------------------------- */

static struct ordma_iw_conn *ordma_iw_conn_find(struct ordma_iw *iw,
						u32 handle)
{
	struct ordma_iw_conn *conn;

	list_for_each_entry(conn, &iw->conns, link)
		if (conn->phase != ORDMA_IW_DEAD && conn->handle == handle)
			return conn;
	return NULL;
}

/* Bind @conn to @qp, taking a reference that keeps it alive */
static void ordma_iw_conn_bind_qp(struct ordma_iw_conn *conn,
				  struct ordma_qp *qp)
{
	ordma_iw_add_ref(&qp->ibqp);
	conn->qp = qp;
	qp->iw_conn = conn;
}

/* The device forgot the connection: drop its QP and port */
static void ordma_iw_conn_kill(struct ordma_iw_conn *conn)
{
	if (conn->qp) {
		conn->qp->iw_conn = NULL;
		ordma_iw_rem_ref(&conn->qp->ibqp);
		conn->qp = NULL;
	}
	ordma_iw_port_put(conn->port);
	conn->port = NULL;
	conn->phase = ORDMA_IW_DEAD;
}

static void ordma_iw_conn_free(struct ordma_iw_conn *conn)
{
	ordma_iw_conn_kill(conn);
	list_del(&conn->link);
	if (conn->cm_id) {
		conn->cm_id->provider_data = NULL;
		conn->cm_id->rem_ref(conn->cm_id);
	}
	kfree(conn);
}

static void ordma_iw_conn_destroy_cmd(struct ordma_iw *iw,
				      struct ordma_iw_conn *conn, u32 flags)
{
	int err;

	if (conn->phase == ORDMA_IW_DEAD)
		return;
	err = ordma_cmd_iw_destroy_conn(iw->dev, conn->handle, flags);
	/* -ENOENT: it ended already, its event is on its way */
	if (err != -ENOENT)
		ordma_report_destroy(iw->dev, err, "IW_DESTROY_CONN %#x",
				     conn->handle);
}

static void ordma_iw_fill_event(struct iw_cm_event *ev,
				enum iw_cm_event_type type, int status,
				const struct ordma_iw_conn *conn)
{
	memset(ev, 0, sizeof(*ev));
	ev->event = type;
	ev->status = status;
	memcpy(&ev->local_addr, &conn->local, sizeof(conn->local));
	memcpy(&ev->remote_addr, &conn->remote, sizeof(conn->remote));
}

/* @info (may be NULL): IW_QUERY_CONN's private data and IRD/ORD */
static void ordma_iw_upcall_info(struct ordma_iw_conn *conn,
				 enum iw_cm_event_type type, int status,
				 struct ordma_iw_conn_info *info)
{
	struct iw_cm_event ev;
	int err;

	ordma_iw_fill_event(&ev, type, status, conn);
	if (info) {
		ev.private_data = info->private_data;
		ev.private_data_len = info->private_data_len;
		ev.ird = min_t(u16, le16_to_cpu(info->ird), ORDMA_IW_MAX_RD);
		ev.ord = min_t(u16, le16_to_cpu(info->ord), ORDMA_IW_MAX_RD);
	}
	err = conn->cm_id->event_handler(conn->cm_id, &ev);
	if (err)
		ibdev_dbg(conn->cm_id->device, "iw_cm event %d lost: %d\n",
			  type, err);
}

static void ordma_iw_upcall(struct ordma_iw_conn *conn,
			    enum iw_cm_event_type type, int status)
{
	ordma_iw_upcall_info(conn, type, status, NULL);
}

/*
 * The active open succeeded: CONNECT_REPLY with the reply's private data
 * and the negotiated IRD/ORD, which the connection's handle still gives.
 */
static void ordma_iw_connected(struct ordma_iw *iw,
			       struct ordma_iw_conn *conn)
{
	struct ordma_iw_conn_info *info;
	int err = -ENOMEM;

	conn->phase = ORDMA_IW_CONNECTED;
	info = kzalloc(sizeof(*info), GFP_KERNEL);
	if (info)
		err = ordma_cmd_iw_query_conn(iw->dev, conn->handle, info);
	if (err) {
		ibdev_dbg(&iw->dev->ibdev, "IW_QUERY_CONN %#x: %d\n",
			  conn->handle, err);
		kfree(info);
		info = NULL;
	}
	ordma_iw_upcall_info(conn, IW_CM_EVENT_CONNECT_REPLY, 0, info);
	kfree(info);
}

/*
 * The connection ended (@status, 0 for a close): tell iw_cm what its
 * cm_id's state allows, and free what no cm_id names any more.  @info
 * (may be NULL): the private data of a failed CONNECT_REPLY.
 */
static void ordma_iw_conn_ended_info(struct ordma_iw_conn *conn, int status,
				     struct ordma_iw_conn_info *info)
{
	enum ordma_iw_conn_phase phase = conn->phase;

	ordma_iw_conn_kill(conn);
	switch (phase) {
	case ORDMA_IW_CONNECTING:
		/* a failed CONNECT_REPLY returns the cm_id to IDLE */
		ordma_iw_upcall_info(conn, IW_CM_EVENT_CONNECT_REPLY,
				     status ? status : -ECONNRESET, info);
		ordma_iw_conn_free(conn);
		break;
	case ORDMA_IW_CONNECTED:
		ordma_iw_upcall(conn, IW_CM_EVENT_CLOSE, 0);
		ordma_iw_conn_free(conn);
		break;
	default:
		/*
		 * A request not accepted, or accepted and never established:
		 * its cm_id is in CONN_RECV, where iw_cm takes no CLOSE.  It
		 * is freed when iw_cm rejects it (destroy_cm_id does).
		 */
		break;
	}
}

static void ordma_iw_conn_ended(struct ordma_iw_conn *conn, int status)
{
	ordma_iw_conn_ended_info(conn, status, NULL);
}

/*
 * The peer rejected the active open.  The device keeps the connection's
 * handle, CLOSED, until IW_DESTROY_CONN so that the reject's private
 * data can be read: rdma_cm's REJECTED event carries it to the user, who
 * may have been told why.  @conn may be NULL (the driver dropped the
 * connection meanwhile); the handle is freed all the same.
 */
static void ordma_iw_rejected(struct ordma_iw *iw, struct ordma_iw_conn *conn,
			      u32 handle)
{
	struct ordma_iw_conn_info *info;
	int err = -ENOMEM;

	if (!conn || conn->phase != ORDMA_IW_CONNECTING) {
		err = ordma_cmd_iw_destroy_conn(iw->dev, handle, 0);
		/* -ENOENT: freed already, by the driver or the device */
		if (err != -ENOENT)
			ordma_report_destroy(iw->dev, err,
					     "IW_DESTROY_CONN %#x", handle);
		return;
	}
	info = kzalloc(sizeof(*info), GFP_KERNEL);
	if (info)
		err = ordma_cmd_iw_query_conn(iw->dev, handle, info);
	if (err) {
		/* the device may have reclaimed it: no private data then */
		ibdev_dbg(&iw->dev->ibdev, "IW_QUERY_CONN %#x: %d\n", handle,
			  err);
		kfree(info);
		info = NULL;
	}
	ordma_iw_conn_destroy_cmd(iw, conn, 0);
	ordma_iw_conn_ended_info(conn, -ECONNREFUSED, info);
	kfree(info);
}

/*
 * The device dropped every listener and connection (the port's address
 * changed): iw_cm learns of the connections as if they were reset; the
 * listeners wait for iw_destroy_listen.
 */
static void ordma_iw_drop_all(struct ordma_iw *iw)
{
	struct ordma_iw_conn *conn, *tmp;
	struct ordma_iw_listener *l;

	list_for_each_entry_safe(conn, tmp, &iw->conns, link)
		if (conn->phase != ORDMA_IW_DEAD)
			ordma_iw_conn_ended(conn, -ECONNRESET);
	list_for_each_entry(l, &iw->listeners, link)
		l->dead = true;
}

static int ordma_iw_status_errno(u32 status)
{
	switch (status) {
	case ORDMA_IW_STATUS_OK:
		return 0;
	case ORDMA_IW_STATUS_REJECTED:
		return -ECONNREFUSED;
	case ORDMA_IW_STATUS_RESET:
		return -ECONNRESET;
	case ORDMA_IW_STATUS_TIMEOUT:
		return -ETIMEDOUT;
	case ORDMA_IW_STATUS_NO_RESOURCES:
		return -ENOMEM;
	default:
		return -EPROTO;
	}
}

static void ordma_iw_sin_from_hw(struct sockaddr_in *sin, const u8 ip[16],
				 __le16 port)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	memcpy(&sin->sin_addr.s_addr, ip + 12, 4);
	sin->sin_port = htons(le16_to_cpu(port));
}

static void ordma_iw_conn_request(struct ordma_iw *iw, u32 handle,
				  u32 listen_handle)
{
	struct ordma_ibdev *dev = iw->dev;
	struct ordma_iw_listener *l, *listener = NULL;
	struct ordma_iw_conn_info *info;
	struct ordma_iw_conn *conn;
	struct iw_cm_event ev;
	int err;

	list_for_each_entry(l, &iw->listeners, link)
		if (!l->dead && l->handle == listen_handle)
			listener = l;
	info = kzalloc(sizeof(*info), GFP_KERNEL);
	conn = kzalloc(sizeof(*conn), GFP_KERNEL);
	if (!listener || !info || !conn)
		goto err_reset;
	err = ordma_cmd_iw_query_conn(dev, handle, info);
	if (err) {
		ibdev_dbg(&dev->ibdev, "IW_QUERY_CONN %#x: %d\n", handle, err);
		goto err_reset;
	}
	conn->handle = handle;
	conn->phase = ORDMA_IW_REQUEST;
	ordma_iw_sin_from_hw(&conn->local, info->local_ip, info->local_port);
	ordma_iw_sin_from_hw(&conn->remote, info->remote_ip,
			     info->remote_port);
	/* accepted connections share their listener's reservation */
	kref_get(&listener->port->kref);
	conn->port = listener->port;
	list_add_tail(&conn->link, &iw->conns);

	ordma_iw_fill_event(&ev, IW_CM_EVENT_CONNECT_REQUEST, 0, conn);
	ev.provider_data = conn;
	ev.private_data = info->private_data;
	/* at most 255 bytes, within private_data[] */
	ev.private_data_len = info->private_data_len;
	ev.ird = min_t(u16, le16_to_cpu(info->peer_ird), ORDMA_IW_MAX_RD);
	ev.ord = min_t(u16, le16_to_cpu(info->peer_ord), ORDMA_IW_MAX_RD);
	err = listener->cm_id->event_handler(listener->cm_id, &ev);
	kfree(info);
	if (err) {
		ibdev_dbg(&dev->ibdev, "connection request %#x dropped: %d\n",
			  handle, err);
		ordma_iw_conn_destroy_cmd(iw, conn, 0);
		ordma_iw_conn_free(conn);
	}
	return;

err_reset:
	kfree(info);
	kfree(conn);
	ordma_report_destroy(dev, ordma_cmd_iw_destroy_conn(dev, handle, 0),
			     "IW_DESTROY_CONN %#x of a request", handle);
}

static void ordma_iw_event_work(struct work_struct *work)
{
	struct ordma_iw_event_work *ew =
		container_of(work, struct ordma_iw_event_work, work);
	struct ordma_iw *iw = ew->iw;
	struct ordma_iw_conn *conn;
	u32 handle = ew->data[0];
	int status;

	mutex_lock(&iw->lock);
	if (ew->type == ORDMA_EQE_IW_CONN_REQUEST) {
		ordma_iw_conn_request(iw, handle, ew->data[1]);
		goto out;
	}
	conn = ordma_iw_conn_find(iw, handle);
	/*
	 * Not ours (destroyed by the driver meanwhile): the device never
	 * gives the handle to another connection.  The QP is checked all
	 * the same, a cheap guard against a device that would.
	 */
	if (conn && conn->qp && conn->qp->qpn != ew->data[2])
		conn = NULL;
	if (ew->type == ORDMA_EQE_IW_CONN_REPLY &&
	    ew->data[1] == ORDMA_IW_STATUS_REJECTED) {
		/* the device keeps a rejected handle until it is freed */
		ordma_iw_rejected(iw, conn, handle);
		goto out;
	}
	if (!conn) {
		ibdev_dbg(&iw->dev->ibdev, "iWARP event %#x for %#x ignored\n",
			  ew->type, handle);
		goto out;
	}
	switch (ew->type) {
	case ORDMA_EQE_IW_CONN_REPLY:
		if (conn->phase != ORDMA_IW_CONNECTING)
			break;
		status = ordma_iw_status_errno(ew->data[1]);
		if (status) {
			/* the device freed the handle with the event */
			ordma_iw_conn_ended(conn, status);
			break;
		}
		ordma_iw_connected(iw, conn);
		break;
	case ORDMA_EQE_IW_ESTABLISHED:
		if (conn->phase != ORDMA_IW_ACCEPTING)
			break;
		conn->phase = ORDMA_IW_CONNECTED;
		ordma_iw_upcall(conn, IW_CM_EVENT_ESTABLISHED, 0);
		break;
	case ORDMA_EQE_IW_DISCONNECT:
		if (conn->phase == ORDMA_IW_CONNECTED)
			ordma_iw_upcall(conn, IW_CM_EVENT_DISCONNECT, 0);
		break;
	case ORDMA_EQE_IW_CLOSED:
		ordma_iw_conn_ended(conn,
				    ordma_iw_status_errno(ew->data[1]) ?:
				    -ECONNRESET);
		break;
	}
out:
	mutex_unlock(&iw->lock);
	kfree(ew);
}

/* Hard IRQ context (the core's async EQ handler) */
void ordma_iw_event(struct ordma_ibdev *dev, const struct ordma_eqe *eqe)
{
	struct ordma_iw_event_work *ew;
	int i;

	if (!dev->iw)
		return;
	ew = kzalloc(sizeof(*ew), GFP_ATOMIC);
	if (!ew) {
		ibdev_err_ratelimited(&dev->ibdev, "iWARP event lost\n");
		return;
	}
	INIT_WORK(&ew->work, ordma_iw_event_work);
	ew->iw = dev->iw;
	ew->type = FIELD_GET(ORDMA_EQE_TYPE, le32_to_cpu(eqe->type));
	for (i = 0; i < ARRAY_SIZE(ew->data); i++)
		ew->data[i] = le32_to_cpu(eqe->data[i]);
	queue_work(dev->iw->wq, &ew->work);
}

/*
 * modify_qp to SQD (@graceful) or ERR of an iWARP QP: iw_cm closes the
 * connection so.  True if the QP had one, which is destroyed (the QP goes
 * to ERR), and iw_cm told of the close (the device posts no event).
 */
bool ordma_iw_qp_close(struct ordma_ibdev *dev, struct ordma_qp *qp,
		       bool graceful)
{
	struct ordma_iw *iw = dev->iw;
	struct ordma_iw_conn *conn;

	if (!iw)
		return false;
	mutex_lock(&iw->lock);
	conn = qp->iw_conn;
	if (!conn) {
		mutex_unlock(&iw->lock);
		return false;
	}
	ordma_iw_conn_destroy_cmd(iw, conn,
				  graceful ? ORDMA_IW_CLOSE_GRACEFUL : 0);
	ordma_iw_conn_ended(conn, -ECONNRESET);
	mutex_unlock(&iw->lock);
	return true;
}

/* ---------------------------------------------------------------- */
/* iw_cm operations                                                 */
/* ---------------------------------------------------------------- */

static int ordma_iw_check_addr(struct iw_cm_id *cm_id,
			       const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET6)
		return -EAFNOSUPPORT;
	if (ss->ss_family != AF_INET)
		return -EINVAL;
	return 0;
}

/* The MAC of @dst's next hop from @src, over the port's netdev */
static int ordma_iw_resolve(struct ordma_ibdev *dev, __be32 src, __be32 dst,
			    u8 mac[ETH_ALEN])
{
	struct net_device *netdev = dev->info.netdev;
	struct neighbour *n;
	struct rtable *rt;
	int waited = 0;
	int err = -EHOSTUNREACH;

	rt = ip_route_output(dev_net(netdev), dst, src, 0, 0,
			     RT_SCOPE_UNIVERSE);
	if (IS_ERR(rt))
		return PTR_ERR(rt);
	if (rt->dst.dev != netdev) {
		ip_rt_put(rt);
		return -ENETUNREACH;
	}
	n = dst_neigh_lookup(&rt->dst, &dst);
	ip_rt_put(rt);
	if (!n)
		return -EHOSTUNREACH;
	for (;;) {
		if (READ_ONCE(n->nud_state) & NUD_VALID) {
			neigh_ha_snapshot(mac, n, netdev);
			err = 0;
			break;
		}
		neigh_event_send(n, NULL);
		if (waited >= ORDMA_IW_NEIGH_WAIT_MS)
			break;
		if (msleep_interruptible(ORDMA_IW_NEIGH_POLL_MS)) {
			err = -EINTR;
			break;
		}
		waited += ORDMA_IW_NEIGH_POLL_MS;
	}
	neigh_release(n);
	return err;
}

/*
 * The device binds a connection to a QP in RTR.  rdma_cm moves a kernel
 * consumer's QP there, and librdmacm does on the passive side, but an
 * active user QP comes in INIT (librdmacm's rdma_connect modifies
 * nothing): take it to RTR, with no attribute, as iw_cm would.
 */
static int ordma_iw_qp_to_rtr(struct ordma_qp *qp)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_RTR };

	if (READ_ONCE(qp->state) != IB_QPS_INIT)
		return 0;
	return ordma_modify_qp(&qp->ibqp, &attr, IB_QP_STATE, NULL);
}

int ordma_iw_connect(struct iw_cm_id *cm_id,
		     struct iw_cm_conn_param *conn_param)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(cm_id->device);
	struct ordma_iw *iw = dev->iw;
	struct ordma_iw_conn_params *p;
	struct ordma_iw_conn *conn;
	struct ordma_qp *qp;
	int err;

	err = ordma_iw_check_addr(cm_id, &cm_id->m_local_addr) ?:
	      ordma_iw_check_addr(cm_id, &cm_id->m_remote_addr);
	if (err)
		return err;
	if (conn_param->private_data_len > ORDMA_IW_MAX_PRIVATE_DATA)
		return -EINVAL;
	qp = ordma_obj_get(&dev->qps, conn_param->qpn, struct ordma_qp);
	if (!qp)
		return -EINVAL;
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	conn = kzalloc(sizeof(*conn), GFP_KERNEL);
	if (!p || !conn) {
		err = -ENOMEM;
		goto err_free;
	}
	memcpy(&conn->local, &cm_id->m_local_addr, sizeof(conn->local));
	memcpy(&conn->remote, &cm_id->m_remote_addr, sizeof(conn->remote));

	err = ordma_iw_resolve(dev, conn->local.sin_addr.s_addr,
			       conn->remote.sin_addr.s_addr, p->next_hop_mac);
	if (err) {
		ibdev_dbg(&dev->ibdev, "no neighbour for %pI4: %d\n",
			  &conn->remote.sin_addr, err);
		goto err_free;
	}
	err = ordma_iw_qp_to_rtr(qp);
	if (err)
		goto err_free;
	err = ordma_iw_reserve(iw, &conn->local, &conn->port);
	if (err)
		goto err_free;

	ordma_iw_ipv4_gid(conn->local.sin_addr.s_addr, p->local_ip);
	ordma_iw_ipv4_gid(conn->remote.sin_addr.s_addr, p->remote_ip);
	p->local_port = cpu_to_le16(ntohs(conn->local.sin_port));
	p->remote_port = cpu_to_le16(ntohs(conn->remote.sin_port));
	p->qpn = cpu_to_le32(qp->qpn);
	p->ird = cpu_to_le16(min_t(u32, conn_param->ird, ORDMA_IW_MAX_RD));
	p->ord = cpu_to_le16(min_t(u32, conn_param->ord, ORDMA_IW_MAX_RD));
	p->private_data_len = conn_param->private_data_len;
	if (conn_param->private_data_len)
		memcpy(p->private_data, conn_param->private_data,
		       conn_param->private_data_len);

	mutex_lock(&iw->lock);
	if (iw->stopped) {
		err = -ENODEV;
		goto err_unlock;
	}
	err = ordma_cmd_iw_conn_params(dev, ORDMA_CMD_IW_CONNECT, p,
				       &conn->handle);
	if (err) {
		ibdev_dbg(&dev->ibdev, "IW_CONNECT %pISpc -> %pISpc: %d\n",
			  &conn->local, &conn->remote, err);
		if (err == -EBUSY)
			err = -EADDRINUSE;
		goto err_unlock;
	}
	conn->phase = ORDMA_IW_CONNECTING;
	cm_id->add_ref(cm_id);
	conn->cm_id = cm_id;
	cm_id->provider_data = conn;
	ordma_iw_conn_bind_qp(conn, qp);
	list_add_tail(&conn->link, &iw->conns);
	mutex_unlock(&iw->lock);
	ordma_obj_ref_put(&qp->ref);
	kfree(p);
	return 0;

err_unlock:
	mutex_unlock(&iw->lock);
	ordma_iw_port_put(conn->port);
err_free:
	kfree(conn);
	kfree(p);
	ordma_obj_ref_put(&qp->ref);
	return err;
}

/* The request @cm_id names, under iw->lock: NULL if the device ended it */
static struct ordma_iw_conn *ordma_iw_request(struct ordma_iw *iw,
					      struct iw_cm_id *cm_id)
{
	struct ordma_iw_conn *conn;

	list_for_each_entry(conn, &iw->conns, link)
		if (conn == cm_id->provider_data)
			return conn;
	return NULL;
}

int ordma_iw_accept(struct iw_cm_id *cm_id,
		    struct iw_cm_conn_param *conn_param)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(cm_id->device);
	struct ordma_iw *iw = dev->iw;
	struct ordma_iw_conn_params *p;
	struct ordma_iw_conn *conn;
	struct ordma_qp *qp;
	int err;

	if (conn_param->private_data_len > ORDMA_IW_MAX_PRIVATE_DATA)
		return -EINVAL;
	qp = ordma_obj_get(&dev->qps, conn_param->qpn, struct ordma_qp);
	if (!qp)
		return -EINVAL;
	err = ordma_iw_qp_to_rtr(qp);
	if (err)
		goto out_put;
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p) {
		err = -ENOMEM;
		goto out_put;
	}
	mutex_lock(&iw->lock);
	conn = ordma_iw_request(iw, cm_id);
	if (!conn || conn->phase != ORDMA_IW_REQUEST) {
		err = conn && conn->phase == ORDMA_IW_DEAD ? -ECONNRESET :
							      -EINVAL;
		goto out_unlock;
	}
	p->qpn = cpu_to_le32(qp->qpn);
	p->conn = cpu_to_le32(conn->handle);
	p->ird = cpu_to_le16(min_t(u32, conn_param->ird, ORDMA_IW_MAX_RD));
	p->ord = cpu_to_le16(min_t(u32, conn_param->ord, ORDMA_IW_MAX_RD));
	p->private_data_len = conn_param->private_data_len;
	if (conn_param->private_data_len)
		memcpy(p->private_data, conn_param->private_data,
		       conn_param->private_data_len);
	err = ordma_cmd_iw_conn_params(dev, ORDMA_CMD_IW_ACCEPT, p, NULL);
	if (err) {
		ibdev_dbg(&dev->ibdev, "IW_ACCEPT %#x: %d\n", conn->handle,
			  err);
		goto out_unlock;
	}
	conn->phase = ORDMA_IW_ACCEPTING;
	cm_id->add_ref(cm_id);
	conn->cm_id = cm_id;
	ordma_iw_conn_bind_qp(conn, qp);
out_unlock:
	mutex_unlock(&iw->lock);
	kfree(p);
out_put:
	ordma_obj_ref_put(&qp->ref);
	return err;
}

int ordma_iw_reject(struct iw_cm_id *cm_id, const void *pdata, u8 pdata_len)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(cm_id->device);
	struct ordma_iw *iw = dev->iw;
	struct ordma_iw_conn_params *p;
	struct ordma_iw_conn *conn;
	int err = 0;

	if (pdata_len > ORDMA_IW_MAX_PRIVATE_DATA)
		return -EINVAL;
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	mutex_lock(&iw->lock);
	conn = ordma_iw_request(iw, cm_id);
	if (!conn)
		goto out_unlock;
	switch (conn->phase) {
	case ORDMA_IW_REQUEST:
		p->conn = cpu_to_le32(conn->handle);
		p->private_data_len = pdata_len;
		if (pdata_len)
			memcpy(p->private_data, pdata, pdata_len);
		err = ordma_cmd_iw_conn_params(dev, ORDMA_CMD_IW_REJECT, p,
					       NULL);
		if (err) {
			ibdev_dbg(&dev->ibdev, "IW_REJECT %#x: %d\n",
				  conn->handle, err);
			ordma_iw_conn_destroy_cmd(iw, conn, 0);
		}
		break;
	case ORDMA_IW_ACCEPTING:
		/* destroy_cm_id of an accepted id not yet established */
		ordma_iw_conn_destroy_cmd(iw, conn, 0);
		break;
	default:
		break;
	}
	ordma_iw_conn_free(conn);
out_unlock:
	mutex_unlock(&iw->lock);
	kfree(p);
	return err;
}

int ordma_iw_create_listen(struct iw_cm_id *cm_id, int backlog)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(cm_id->device);
	struct ordma_iw *iw = dev->iw;
	struct ordma_iw_listener *l;
	struct sockaddr_in sin;
	u8 ip[16] = {};
	int err;

	err = ordma_iw_check_addr(cm_id, &cm_id->m_local_addr);
	if (err)
		return err;
	memcpy(&sin, &cm_id->m_local_addr, sizeof(sin));
	if (!sin.sin_port)
		return -EINVAL;
	l = kzalloc(sizeof(*l), GFP_KERNEL);
	if (!l)
		return -ENOMEM;
	err = ordma_iw_reserve(iw, &sin, &l->port);
	if (err)
		goto err_free;
	if (sin.sin_addr.s_addr != htonl(INADDR_ANY))
		ordma_iw_ipv4_gid(sin.sin_addr.s_addr, ip);

	mutex_lock(&iw->lock);
	if (iw->stopped) {
		err = -ENODEV;
		goto err_unlock;
	}
	err = ordma_cmd_iw_create_listen(dev, ip, ntohs(sin.sin_port),
					 clamp(backlog, 1,
					       ORDMA_IW_MAX_BACKLOG),
					 &l->handle);
	if (err) {
		ibdev_dbg(&dev->ibdev, "IW_CREATE_LISTEN %pISpc: %d\n", &sin,
			  err);
		if (err == -EBUSY)
			err = -EADDRINUSE;
		goto err_unlock;
	}
	cm_id->add_ref(cm_id);
	l->cm_id = cm_id;
	cm_id->provider_data = l;
	list_add_tail(&l->link, &iw->listeners);
	mutex_unlock(&iw->lock);
	return 0;

err_unlock:
	mutex_unlock(&iw->lock);
	ordma_iw_port_put(l->port);
err_free:
	kfree(l);
	return err;
}

/* Under iw->lock */
static void ordma_iw_listener_free(struct ordma_iw *iw,
				   struct ordma_iw_listener *l)
{
	struct ordma_iw_conn *conn;
	int err;

	if (!l->dead) {
		err = ordma_cmd_iw_destroy_listen(iw->dev, l->handle);
		ordma_report_destroy(iw->dev, err, "IW_DESTROY_LISTEN %u",
				     l->handle);
	}
	/* the device reset the requests still waiting, without events */
	list_for_each_entry(conn, &iw->conns, link)
		if (conn->phase == ORDMA_IW_REQUEST && conn->port == l->port)
			ordma_iw_conn_kill(conn);
	list_del(&l->link);
	l->cm_id->provider_data = NULL;
	l->cm_id->rem_ref(l->cm_id);
	ordma_iw_port_put(l->port);
	kfree(l);
}

int ordma_iw_destroy_listen(struct iw_cm_id *cm_id)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(cm_id->device);
	struct ordma_iw *iw = dev->iw;
	struct ordma_iw_listener *l;

	mutex_lock(&iw->lock);
	list_for_each_entry(l, &iw->listeners, link) {
		if (l->cm_id == cm_id) {
			ordma_iw_listener_free(iw, l);
			break;
		}
	}
	mutex_unlock(&iw->lock);
	return 0;
}

/* ---------------------------------------------------------------- */
/* Device life                                                      */
/* ---------------------------------------------------------------- */

/* Before events flow: what the event handler needs */
int ordma_iw_init(struct ordma_ibdev *dev)
{
	struct ordma_iw *iw;

	iw = kzalloc(sizeof(*iw), GFP_KERNEL);
	if (!iw)
		return -ENOMEM;
	iw->wq = alloc_ordered_workqueue("ordma_iw/%s", 0,
					 pci_name(dev->info.pdev));
	if (!iw->wq) {
		kfree(iw);
		return -ENOMEM;
	}
	iw->dev = dev;
	mutex_init(&iw->lock);
	INIT_LIST_HEAD(&iw->listeners);
	INIT_LIST_HEAD(&iw->conns);
	dev->iw = iw;
	return 0;
}

/* Once registered: the address, and its changes */
void ordma_iw_start(struct ordma_ibdev *dev)
{
	struct ordma_iw *iw = dev->iw;
	int err;

	iw->inetaddr_nb.notifier_call = ordma_iw_inetaddr_event;
	err = register_inetaddr_notifier(&iw->inetaddr_nb);
	if (err)
		ibdev_err(&dev->ibdev,
			  "no IPv4 address notifier (%d): address fixed\n",
			  err);
	else
		iw->notifier = true;
	mutex_lock(&iw->lock);
	ordma_iw_update_addr(iw);
	mutex_unlock(&iw->lock);
}

/*
 * Before unregistering: no new connections, and every active open still
 * waiting gets its CONNECT_REPLY (iw_cm must not destroy a cm_id in
 * CONN_SENT).  Established connections close when the RDMA core's
 * clients take their QPs to ERR.
 */
void ordma_iw_stop(struct ordma_ibdev *dev)
{
	struct ordma_iw *iw = dev->iw;
	struct ordma_iw_conn *conn, *tmp;

	if (iw->notifier)
		unregister_inetaddr_notifier(&iw->inetaddr_nb);
	iw->notifier = false;
	mutex_lock(&iw->lock);
	iw->stopped = true;
	list_for_each_entry_safe(conn, tmp, &iw->conns, link) {
		if (conn->phase != ORDMA_IW_CONNECTING)
			continue;
		ordma_iw_conn_destroy_cmd(iw, conn, 0);
		ordma_iw_conn_ended(conn, -ECONNRESET);
	}
	mutex_unlock(&iw->lock);
}

/* After unregistering and the events stopped: free what is left */
void ordma_iw_free(struct ordma_ibdev *dev)
{
	struct ordma_iw *iw = dev->iw;
	struct ordma_iw_listener *l, *ltmp;
	struct ordma_iw_conn *conn, *tmp;

	if (!iw)
		return;
	if (iw->notifier)
		unregister_inetaddr_notifier(&iw->inetaddr_nb);
	/* the events queued before the handler stopped */
	destroy_workqueue(iw->wq);
	mutex_lock(&iw->lock);
	iw->stopped = true;
	list_for_each_entry_safe(conn, tmp, &iw->conns, link) {
		ordma_iw_conn_destroy_cmd(iw, conn, 0);
		ordma_iw_conn_free(conn);
	}
	list_for_each_entry_safe(l, ltmp, &iw->listeners, link)
		ordma_iw_listener_free(iw, l);
	ordma_iw_update_addr(iw);
	mutex_unlock(&iw->lock);
	mutex_destroy(&iw->lock);
	dev->iw = NULL;
	kfree(iw);
}
