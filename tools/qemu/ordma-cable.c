/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ORDMA device model: the port's cable and the engine thread behind it.
 *
 * Two kinds of cable.  cable-to=ID joins two ordma devices of one QEMU
 * through process memory: a frame goes into the peer's inbox, and the
 * sending thread runs the peer's firmware on it at once when no other
 * thread is inside it, so that a request and its answer need no system
 * call; a thread that is inside delivers the inbox before it leaves, a
 * little at a time, and hands a backlog to the peer's engine thread.
 *
 * With cable-local/cable-peer the port owns a UDP socket instead of a
 * -netdev.  A thread per device (the engine) waits on that socket, takes
 * frames in batches and runs them through the firmware itself: receive,
 * acknowledge and send the next window without waiting for QEMU's main
 * loop, whose wake-up is at the mercy of the host scheduler when vCPUs
 * spin.  After work the engine may keep polling for poll-us before it
 * sleeps (off by default: on a host without a core to spare per engine
 * the polling takes the CPU from the vCPUs that would answer).
 *
 * Frames leave from whichever thread runs the firmware (a vCPU ringing a
 * doorbell, the engine, a timer on the main loop): a send on a datagram
 * socket needs no lock of QEMU's.  Nothing is silently lost: frames the
 * host refused to send or dropped for want of buffer space, and frames
 * from anyone but the peer, are counted and reported when the device
 * goes away.
 *
 * The frames a port sends may be impaired on the way (loss, reordering,
 * duplication, corruption, delay: ordma-wire.c); the engine sends the
 * ones the wire held back when they are due.
 *
 * The cable is lossless: a port whose receive backlog grows asks its
 * peer to hold its data with IEEE 802.3x PAUSE frames, as a switch port
 * or a NIC's MAC does when its buffer fills (flow-control, on by
 * default).  On a UDP cable the engine watches its socket's backlog
 * and sends the PAUSE frames itself; on a cable in memory the sender
 * looks at the other port's inbox as it fills it, and the receiver
 * ends the pause as it empties it.  PAUSE frames are not impaired.
 *
 * What the port sends and receives can be captured to a pcapng file
 * (pcap=FILE, ordma-pcap.c): frames as they leave, after the wire's
 * impairments, and as they are handed to the firmware.
 *
 * The engine's place among the device's threads and locks is in the
 * table at the top of ordma-pci.h.
 */

#include "qemu/osdep.h"
#include "qemu/error-report.h"
#include "qemu/main-loop.h"
#include "qemu/rcu.h"
#include "qemu/sockets.h"
#include "qemu/timer.h"
#include "qapi/error.h"
#include "sysemu/sysemu.h"
#include "hw/qdev-core.h"
#include "qapi/qapi-types-sockets.h"
#include "hw/net/trace.h"

#include <linux/ordma/ordma_hw.h>
#include "ordma_fw.h"
#include "ordma-pci.h"
#include "replay/ordma_rec.h"

#include <poll.h>
#include <sys/resource.h>
#ifdef CONFIG_LINUX
#include <linux/sock_diag.h>
#endif

/* Frames a cable in memory queues for a port at most */
#define ORDMA_INBOX_MAX         16384
/*
 * Frames of its inbox a thread delivers as it leaves the firmware; the
 * rest go to the engine, so that a vCPU ringing a doorbell does not
 * carry a whole transfer (holding the BQL) by itself.
 */
#define ORDMA_INBOX_INLINE      64
/* Frames taken from the socket per system call */
#define ORDMA_CABLE_BATCH       32
/* One byte more than the largest frame, so that a longer one shows */
#define ORDMA_CABLE_FRAME_MAX   (ORDMA_ETH_MAX_MTU + 64)
/*
 * Socket buffers: what the peer may have in flight while this side is
 * busy.  The peer's firmware bounds its request packets in flight to
 * 1024 plus one per sending RC QP (at most 2046), twice that for the
 * round trip after a go-back (packets sent before it may still be on
 * the wire): 4092 packets, 16 MiB at MTU 4096, about 36 MiB with the
 * kernel's overhead per datagram.  READ responses are paced by the
 * responder, not bounded by that budget (Documentation/ordma/
 * hw-reference.rst, "PSNs in flight").
 */
#define ORDMA_CABLE_SOCKBUF     (64 * 1024 * 1024)
/*
 * Flow control: the flow-control-xoff property is a number of frames
 * waiting to be received.  A UDP socket's backlog is in bytes: a frame
 * counts as ORDMA_FLOW_FRAME_BYTES, and the backlog that pauses the peer
 * is at most a quarter of the buffer, so that what the peer sends until
 * the PAUSE reaches it (one round trip) still fits.  The pause ends once
 * a quarter of that is left.
 */
#define ORDMA_FLOW_XOFF_MIN     4
#define ORDMA_FLOW_XOFF_MAX     8192
#define ORDMA_FLOW_FRAME_BYTES  4096
/* An engine that cannot read (the firmware is not ready) checks so often */
#define ORDMA_FLOW_CHECK_NS     SCALE_MS

static bool ordma_cable_resolve(const char *str, struct sockaddr_storage *ss,
                                socklen_t *len, Error **errp)
{
    g_autoptr(InetSocketAddress) inet = g_new0(InetSocketAddress, 1);
    struct addrinfo hints = {
        .ai_socktype = SOCK_DGRAM,
        .ai_flags = AI_NUMERICSERV,
    };
    struct addrinfo *res = NULL;
    int ret;

    if (inet_parse(inet, str, errp) < 0) {
        return false;
    }
    ret = getaddrinfo(inet->host, inet->port, &hints, &res);
    if (ret || !res || res->ai_addrlen > sizeof(*ss)) {
        error_setg(errp, "cannot resolve %s: %s", str,
                   ret ? gai_strerror(ret) : "no address");
        if (res) {
            freeaddrinfo(res);
        }
        return false;
    }
    memcpy(ss, res->ai_addr, res->ai_addrlen);
    *len = res->ai_addrlen;
    freeaddrinfo(res);
    return true;
}

static void ordma_cable_bufs(OrdmaState *s)
{
    static const struct {
        int force, opt;
    } bufs[] = {
#ifdef SO_RCVBUFFORCE
        { SO_RCVBUFFORCE, SO_RCVBUF },
        { SO_SNDBUFFORCE, SO_SNDBUF },
#else
        { SO_RCVBUF, SO_RCVBUF },
        { SO_SNDBUF, SO_SNDBUF },
#endif
    };
    int want = ORDMA_CABLE_SOCKBUF;
    size_t i;

    for (i = 0; i < ARRAY_SIZE(bufs); i++) {
        int got = 0;
        socklen_t len = sizeof(got);

        if (setsockopt(s->cable.fd, SOL_SOCKET, bufs[i].force, &want,
                       sizeof(want))) {
            setsockopt(s->cable.fd, SOL_SOCKET, bufs[i].opt, &want,
                       sizeof(want));
        }
        /* Linux reports twice the size asked for (bookkeeping included) */
        if (!getsockopt(s->cable.fd, SOL_SOCKET, bufs[i].opt, &got, &len) &&
            got < want) {
            warn_report("%s: cable socket buffer %d bytes, not %d: frames "
                        "may be dropped (raise net.core.[rw]mem_max)",
                        s->ident, got, want);
        }
    }
}

static bool ordma_cable_open_local(OrdmaState *s, Error **errp)
{
    if (s->cable_local || s->cable_peer || s->conf.peers.ncs[0]) {
        error_setg(errp, "cable-to takes no cable-local, cable-peer or netdev");
        return false;
    }
    if (!DEVICE(s)->id) {
        error_setg(errp, "cable-to needs an id on this device too");
        return false;
    }
    if (event_notifier_init(&s->cable.wake, 0)) {
        error_setg(errp, "cannot create the engine's event notifier");
        return false;
    }
    qemu_mutex_init(&s->cable.inbox_lock);
    QSIMPLEQ_INIT(&s->cable.inbox);
    s->cable.kind = ORDMA_CABLE_LOCAL;
    return true;
}

static bool ordma_cable_open_kind(OrdmaState *s, Error **errp)
{
    struct sockaddr_storage local;
    socklen_t local_len;
    int fd;

    if (s->cable_to) {
        return ordma_cable_open_local(s, errp);
    }
    if (!s->cable_local && !s->cable_peer) {
        return true;
    }
    if (!s->cable_local || !s->cable_peer) {
        error_setg(errp, "cable-local and cable-peer go together");
        return false;
    }
    if (s->conf.peers.ncs[0]) {
        error_setg(errp, "a port with a cable takes no netdev");
        return false;
    }
    if (!ordma_cable_resolve(s->cable_local, &local, &local_len, errp) ||
        !ordma_cable_resolve(s->cable_peer, &s->cable.peer,
                             &s->cable.peer_len, errp)) {
        return false;
    }
    if (local.ss_family != s->cable.peer.ss_family) {
        error_setg(errp, "cable-local and cable-peer are of different "
                   "address families");
        return false;
    }
    fd = qemu_socket(local.ss_family, SOCK_DGRAM, 0);
    if (fd < 0) {
        error_setg_errno(errp, errno, "cannot create the cable socket");
        return false;
    }
    if (bind(fd, (struct sockaddr *)&local, local_len)) {
        error_setg_errno(errp, errno, "cannot bind the cable to %s",
                         s->cable_local);
        close(fd);
        return false;
    }
    qemu_socket_set_nonblock(fd);
    s->cable.kind = ORDMA_CABLE_UDP;
    s->cable.fd = fd;
    ordma_cable_bufs(s);
    if (event_notifier_init(&s->cable.wake, 0)) {
        error_setg(errp, "cannot create the engine's event notifier");
        close(fd);
        s->cable.fd = -1;
        s->cable.kind = ORDMA_CABLE_NONE;
        return false;
    }
    s->cable.rx_buf = g_malloc(ORDMA_CABLE_BATCH * ORDMA_CABLE_FRAME_MAX);
    s->cable.rx_len = g_new0(size_t, ORDMA_CABLE_BATCH);
    return true;
}

static bool ordma_cable_open_flow(OrdmaState *s, Error **errp)
{
    OrdmaCable *c = &s->cable;

    if (s->flow_xoff < ORDMA_FLOW_XOFF_MIN ||
        s->flow_xoff > ORDMA_FLOW_XOFF_MAX) {
        error_setg(errp, "flow-control-xoff must be %u..%u frames",
                   ORDMA_FLOW_XOFF_MIN, ORDMA_FLOW_XOFF_MAX);
        return false;
    }
    c->xoff_bytes = MIN((int64_t)s->flow_xoff * ORDMA_FLOW_FRAME_BYTES,
                        ORDMA_CABLE_SOCKBUF / 4);
    c->xon_bytes = c->xoff_bytes / 4;
    return true;
}

bool ordma_cable_open(OrdmaState *s, Error **errp)
{
    /* the wire refuses impairments only on a port without a cable */
    return ordma_cable_open_flow(s, errp) &&
           ordma_cable_open_kind(s, errp) && ordma_wire_open(s, errp);
}

/*
 * Runs what is waiting in p's inbox, in this thread, if no thread is
 * inside p's firmware; one that is does it before it leaves.
 */
static void ordma_cable_local_kick(OrdmaState *p)
{
    if (ordma_fw_try_enter(p)) {
        ordma_fw_leave(p);
    }
}

/* How long a PAUSE of the most quanta holds the peer, at the port speed */
static int64_t ordma_cable_pause_ns(OrdmaState *s)
{
    return (int64_t)ORDMA_PAUSE_QUANTA_MAX * 512 * 1000 / MAX(s->speed, 1);
}

/*
 * The port asks for a pause, or for a fresh one before the last runs
 * out, while it is congested; false if the one asked for still runs.
 */
static bool ordma_cable_pause_due(OrdmaState *s)
{
    OrdmaCable *c = &s->cable;
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_REALTIME);

    if (c->pausing && now < c->pause_refresh_ns) {
        return false;
    }
    c->pausing = true;
    c->pause_refresh_ns = now + ordma_cable_pause_ns(s) / 2;
    c->pauses_sent++;
    return true;
}

/*
 * Queues a frame in p's inbox.  With p's inbox_lock held, *pause says
 * whether p, now congested, must ask the sender to pause.
 */
static void ordma_cable_local_put(OrdmaState *p, const void *frame,
                                  size_t len, bool *pause)
{
    OrdmaCable *c = &p->cable;
    OrdmaInboxFrame *f;

    qemu_mutex_lock(&c->inbox_lock);
    if (c->inbox_len >= ORDMA_INBOX_MAX) {
        qemu_mutex_unlock(&c->inbox_lock);
        qatomic_inc(&c->rx_inbox_full);
        return;
    }
    f = g_malloc(sizeof(*f) + len);
    f->len = len;
    memcpy(f->data, frame, len);
    QSIMPLEQ_INSERT_TAIL(&c->inbox, f, next);
    qatomic_set(&c->inbox_len, c->inbox_len + 1);
    if (c->inbox_len > c->inbox_peak) {
        c->inbox_peak = c->inbox_len;
    }
    if (pause && p->flow_control && c->inbox_len >= p->flow_xoff) {
        *pause = ordma_cable_pause_due(p);
    }
    qemu_mutex_unlock(&c->inbox_lock);
}

static void ordma_cable_local_send(OrdmaState *s, const void *frame,
                                   size_t len)
{
    /* senders run inside this port's firmware: see ordma_cable_close() */
    OrdmaState *p = qatomic_read(&s->cable.local_peer);
    uint8_t pf[ORDMA_PAUSE_FRAME_LEN];
    bool pause = false;

    if (!p) {
        qatomic_inc(&s->cable.tx_failed);
        return;
    }
    ordma_cable_local_put(p, frame, len, &pause);
    if (pause) {
        /*
         * p's MAC answers with a PAUSE, which this port takes as it
         * leaves its firmware (it is inside it now).
         */
        ordma_wire_pause_frame(pf, p->conf.macaddr.a,
                               ORDMA_PAUSE_QUANTA_MAX);
        ordma_pcap_tx(p, pf, sizeof(pf), NULL);
        ordma_cable_local_put(s, pf, sizeof(pf), NULL);
    }
    ordma_cable_local_kick(p);
}

/* Inside s's firmware: s's inbox emptied, its peer may send again. */
static void ordma_cable_local_resume(OrdmaState *s)
{
    OrdmaState *p = qatomic_read(&s->cable.local_peer);
    uint8_t pf[ORDMA_PAUSE_FRAME_LEN];

    if (!p) {
        return;
    }
    ordma_wire_pause_frame(pf, s->conf.macaddr.a, 0);
    ordma_pcap_tx(s, pf, sizeof(pf), NULL);
    ordma_cable_local_put(p, pf, sizeof(pf), NULL);
    ordma_cable_local_kick(p);
}

/* Delivers up to ORDMA_INBOX_INLINE frames; inside the firmware. */
void ordma_cable_inbox_run(OrdmaState *s)
{
    OrdmaCable *c = &s->cable;
    unsigned int n;

    for (n = 0; n < ORDMA_INBOX_INLINE; n++) {
        OrdmaInboxFrame *f;
        bool resume = false;

        qemu_mutex_lock(&c->inbox_lock);
        f = QSIMPLEQ_FIRST(&c->inbox);
        if (f) {
            QSIMPLEQ_REMOVE_HEAD(&c->inbox, next);
            qatomic_set(&c->inbox_len, c->inbox_len - 1);
        }
        if (c->pausing && c->inbox_len <= s->flow_xoff / 4) {
            c->pausing = false;
            c->resumes_sent++;
            resume = true;
        }
        qemu_mutex_unlock(&c->inbox_lock);
        if (resume) {
            ordma_cable_local_resume(s);
        }
        if (!f) {
            break;
        }
        if (ordma_link_up(s)) {
            trace_ordma_rx(s->ident, f->len);
            ordma_pcap_rx(s, f->data, f->len);
            ordma_rec_rx_frame(s->rec, f->data, f->len);
        } else {
            c->rx_link_down++;
        }
        g_free(f);
    }
}

/* After the firmware was left: wake the engine for an inbox backlog. */
void ordma_cable_left(OrdmaState *s)
{
    OrdmaCable *c = &s->cable;
    bool wake;

    if (c->kind != ORDMA_CABLE_LOCAL || qatomic_read(&c->dead)) {
        return;
    }
    /* a sender that found the firmware busy counted on this check */
    qemu_mutex_lock(&c->inbox_lock);
    wake = c->inbox_len != 0;
    qemu_mutex_unlock(&c->inbox_lock);
    if (wake) {
        event_notifier_set(&c->wake);
    }
}

/* From inside the port's firmware: a frame as it leaves the port */
void ordma_cable_send(OrdmaState *s, const void *frame, size_t len)
{
    if (!ordma_link_up(s) || s->cable.dead) {
        return;
    }
    if (qatomic_read(&s->cable.wire.active)) {
        ordma_wire_send(s, frame, len);
        return;
    }
    ordma_cable_xmit(s, frame, len, NULL);
}

static void ordma_cable_udp_send(OrdmaState *s, const void *frame,
                                 size_t len)
{
    ssize_t ret;

    do {
        ret = sendto(s->cable.fd, frame, len, MSG_DONTWAIT,
                     (struct sockaddr *)&s->cable.peer, s->cable.peer_len);
    } while (ret < 0 && errno == EINTR);
    if (ret != (ssize_t)len) {
        /* e.g. ENOBUFS; a real port would have lost it on the wire */
        qatomic_inc(&s->cable.tx_failed);
        trace_ordma_cable_tx_failed(s->ident, len, ret < 0 ? errno : 0);
    }
}

/*
 * A frame onto the cable as it is, and into the capture with what the
 * wire did to it (marks, or NULL); inside the port's firmware.
 */
void ordma_cable_xmit(OrdmaState *s, const void *frame, size_t len,
                      const OrdmaPcapMarks *marks)
{
    ordma_pcap_tx(s, frame, len, marks);
    if (s->cable.kind == ORDMA_CABLE_LOCAL) {
        ordma_cable_local_send(s, frame, len);
        return;
    }
    ordma_cable_udp_send(s, frame, len);
}

/* Anything that may have made the firmware ready for frames again */
void ordma_cable_kick(OrdmaState *s)
{
    if (qatomic_read(&s->cable.dead)) {
        return;
    }
    if (qatomic_read(&s->cable.rx_stalled)) {
        qatomic_set(&s->cable.rx_stalled, false);
        event_notifier_set(&s->cable.wake);
    }
}

static bool ordma_cable_from_peer(OrdmaState *s,
                                  const struct sockaddr_storage *from)
{
    const struct sockaddr_storage *peer = &s->cable.peer;

    if (from->ss_family != peer->ss_family) {
        return false;
    }
    if (from->ss_family == AF_INET) {
        const struct sockaddr_in *a = (const void *)from;
        const struct sockaddr_in *b = (const void *)peer;

        return a->sin_port == b->sin_port &&
               a->sin_addr.s_addr == b->sin_addr.s_addr;
    }
    if (from->ss_family == AF_INET6) {
        const struct sockaddr_in6 *a = (const void *)from;
        const struct sockaddr_in6 *b = (const void *)peer;

        return a->sin6_port == b->sin6_port &&
               !memcmp(&a->sin6_addr, &b->sin6_addr, sizeof(a->sin6_addr));
    }
    return false;
}

#if defined(SO_MEMINFO) && defined(CONFIG_LINUX)
/* Field var of the socket's SO_MEMINFO, or -1 */
static int64_t ordma_cable_meminfo(int fd, unsigned int var)
{
    uint32_t meminfo[SK_MEMINFO_VARS] = { 0 };
    socklen_t len = sizeof(meminfo);

    if (!getsockopt(fd, SOL_SOCKET, SO_MEMINFO, meminfo, &len) &&
        len > var * sizeof(meminfo[0])) {
        return meminfo[var];
    }
    return -1;
}

/* Datagrams the host dropped for want of buffer space, or -1 */
static int64_t ordma_cable_host_drops(int fd)
{
    return ordma_cable_meminfo(fd, SK_MEMINFO_DROPS);
}

/* Bytes of received datagrams waiting in the socket, or -1 */
static int64_t ordma_cable_backlog(int fd)
{
    return ordma_cable_meminfo(fd, SK_MEMINFO_RMEM_ALLOC);
}
#else
static int64_t ordma_cable_host_drops(int fd)
{
    return -1;
}

static int64_t ordma_cable_backlog(int fd)
{
    return -1;
}
#endif

/*
 * The engine of a UDP cable: pause the peer while the socket's backlog
 * is above xoff_bytes (asking again before each pause runs out), and
 * end the pause once it is down to xon_bytes.
 */
static void ordma_cable_flow_udp(OrdmaState *s)
{
    OrdmaCable *c = &s->cable;
    uint8_t pf[ORDMA_PAUSE_FRAME_LEN];
    int64_t backlog;

    if (!s->flow_control || !ordma_link_up(s)) {
        return;
    }
    backlog = ordma_cable_backlog(c->fd);
    if (backlog < 0) {
        return;
    }
    if (backlog >= c->xoff_bytes || (c->pausing && backlog > c->xon_bytes)) {
        if (ordma_cable_pause_due(s)) {
            ordma_wire_pause_frame(pf, s->conf.macaddr.a,
                                   ORDMA_PAUSE_QUANTA_MAX);
            ordma_pcap_tx(s, pf, sizeof(pf), NULL);
            ordma_cable_udp_send(s, pf, sizeof(pf));
        }
    } else if (c->pausing) {
        c->pausing = false;
        c->resumes_sent++;
        ordma_wire_pause_frame(pf, s->conf.macaddr.a, 0);
        ordma_pcap_tx(s, pf, sizeof(pf), NULL);
        ordma_cable_udp_send(s, pf, sizeof(pf));
    }
}

/* Reads up to a batch of frames; returns how many are held for delivery */
static unsigned int ordma_cable_read(OrdmaState *s)
{
    struct mmsghdr msgs[ORDMA_CABLE_BATCH];
    struct iovec iov[ORDMA_CABLE_BATCH];
    struct sockaddr_storage from[ORDMA_CABLE_BATCH];
    unsigned int i, n = 0;
    int got;

    memset(msgs, 0, sizeof(msgs));
    for (i = 0; i < ORDMA_CABLE_BATCH; i++) {
        iov[i].iov_base = s->cable.rx_buf + i * ORDMA_CABLE_FRAME_MAX;
        iov[i].iov_len = ORDMA_CABLE_FRAME_MAX;
        msgs[i].msg_hdr.msg_iov = &iov[i];
        msgs[i].msg_hdr.msg_iovlen = 1;
        msgs[i].msg_hdr.msg_name = &from[i];
        msgs[i].msg_hdr.msg_namelen = sizeof(from[i]);
    }
    do {
        got = recvmmsg(s->cable.fd, msgs, ORDMA_CABLE_BATCH, MSG_DONTWAIT,
                       NULL);
    } while (got < 0 && errno == EINTR);
    if (got <= 0) {
        return 0;
    }
    for (i = 0; i < (unsigned int)got; i++) {
        size_t len = msgs[i].msg_len;

        if (!ordma_cable_from_peer(s, &from[i])) {
            s->cable.rx_foreign++;
            len = 0;
        } else if ((msgs[i].msg_hdr.msg_flags & MSG_TRUNC) ||
                   len >= ORDMA_CABLE_FRAME_MAX) {
            s->cable.rx_oversize++;
            len = 0;
        } else if (!ordma_link_up(s)) {
            s->cable.rx_link_down++;
            len = 0;
        }
        s->cable.rx_len[i] = len;
        n += len != 0;
    }
    s->cable.rx_held_first = 0;
    s->cable.rx_held = got;
    return n;
}

/*
 * Hands the held frames to the firmware under one entry.  Returns false
 * when the firmware cannot take frames: they stay held, and the socket
 * stays unread (its buffer then holds the rest), until a kick.
 */
static bool ordma_cable_deliver(OrdmaState *s)
{
    OrdmaCable *c = &s->cable;

    if (!ordma_fw_enter(s, "cable receive")) {
        return false;
    }
    if (!ordma_rec_can_receive(s->rec)) {
        qatomic_set(&c->rx_stalled, true);
        ordma_fw_leave(s);
        return false;
    }
    for (; c->rx_held_first < c->rx_held; c->rx_held_first++) {
        size_t len = c->rx_len[c->rx_held_first];

        if (len) {
            const uint8_t *f = c->rx_buf + c->rx_held_first *
                               ORDMA_CABLE_FRAME_MAX;

            trace_ordma_rx(s->ident, len);
            ordma_pcap_rx(s, f, len);
            ordma_rec_rx_frame(s->rec, f, len);
        }
    }
    c->rx_held = c->rx_held_first = 0;
    ordma_fw_leave(s);
    return true;
}

static void ordma_cable_shutdown(OrdmaState *s);

/* Sleeps until a kick, a frame, or the wire's next deadline */
static void ordma_cable_sleep(OrdmaState *s, int64_t deadline)
{
    struct pollfd fds[2] = {
        { .fd = event_notifier_get_fd(&s->cable.wake), .events = POLLIN },
        { .fd = s->cable.fd, .events = POLLIN },
    };
    /* A stalled port, or one without a socket, waits for its kick only. */
    nfds_t nfds = s->cable.kind != ORDMA_CABLE_UDP ||
                  qatomic_read(&s->cable.rx_stalled) ? 1 : 2;
    struct timespec ts, *timeout = NULL;

    /* a port that asked for a pause, or cannot read, keeps watching */
    if (s->cable.kind == ORDMA_CABLE_UDP && s->flow_control &&
        (s->cable.pausing || nfds == 1)) {
        deadline = MIN(deadline, qemu_clock_get_ns(QEMU_CLOCK_REALTIME) +
                       ORDMA_FLOW_CHECK_NS);
    }
    if (deadline != INT64_MAX) {
        int64_t ns = MAX(deadline - qemu_clock_get_ns(QEMU_CLOCK_REALTIME),
                         0);

        ts.tv_sec = ns / NANOSECONDS_PER_SECOND;
        ts.tv_nsec = ns % NANOSECONDS_PER_SECOND;
        timeout = &ts;
    }
    if (ppoll(fds, nfds, timeout, NULL) > 0 && (fds[0].revents & POLLIN)) {
        event_notifier_test_and_clear(&s->cable.wake);
    }
}

/* Sends what the wire held back and is due; returns the next deadline */
static int64_t ordma_cable_wire_due(OrdmaState *s)
{
    int64_t next = ordma_wire_next_ns(s);
    int64_t now;

    if (next == INT64_MAX) {
        return next;
    }
    now = qemu_clock_get_ns(QEMU_CLOCK_REALTIME);
    if (next <= now && ordma_fw_enter(s, "wire")) {
        ordma_wire_run(s, now);
        ordma_fw_leave(s);
        next = ordma_wire_next_ns(s);
    }
    return next;
}

/*
 * The engine wakes for every frame that arrives while the vCPUs spin:
 * with the default share of the CPU the host scheduler often lets it
 * wait a whole time slice (milliseconds).  A higher share (a lower nice
 * value) has it preempt a spinning vCPU at once.  Needs CAP_SYS_NICE or
 * RLIMIT_NICE; without them the engine runs at the default share.
 */
static void ordma_cable_engine_priority(OrdmaState *s)
{
#ifdef CONFIG_LINUX
    if (s->engine_nice &&
        setpriority(PRIO_PROCESS, qemu_get_thread_id(), s->engine_nice)) {
        warn_report_once("%s: cannot set the engine thread's nice value to "
                         "%d (%s): frame latency will depend on the host "
                         "scheduler", s->ident, s->engine_nice,
                         strerror(errno));
    }
#endif
}

static void *ordma_cable_engine(void *opaque)
{
    OrdmaState *s = opaque;
    int64_t busy_until = 0;

    /* it reads and writes guest memory: FlatViews must outlive that */
    rcu_register_thread();
    ordma_cable_engine_priority(s);

    while (!qatomic_read(&s->cable.stop)) {
        int64_t wire_next = ordma_cable_wire_due(s);
        bool worked = false;

        if (s->cable.kind == ORDMA_CABLE_LOCAL) {
            if (qatomic_read(&s->cable.inbox_len) &&
                ordma_fw_enter(s, "cable inbox")) {
                ordma_fw_leave(s);
                continue;
            }
        } else {
            ordma_cable_flow_udp(s);
            if (s->cable.rx_held || ordma_cable_read(s)) {
                worked = ordma_cable_deliver(s);
            } else {
                /* a batch of foreign or dropped frames needs no firmware */
                s->cable.rx_held = 0;
            }
        }
        if (worked) {
            busy_until = qemu_clock_get_ns(QEMU_CLOCK_REALTIME) +
                         (int64_t)s->poll_us * SCALE_US;
            continue;
        }
        if (!qatomic_read(&s->cable.rx_stalled) &&
            qemu_clock_get_ns(QEMU_CLOCK_REALTIME) < busy_until) {
            continue;
        }
        if (s->cable.kind == ORDMA_CABLE_UDP) {
            /* a pause asked for ends before the engine sleeps */
            ordma_cable_flow_udp(s);
        }
        ordma_cable_sleep(s, wire_next);
    }
    rcu_unregister_thread();
    return NULL;
}

/*
 * QEMU exits without unrealizing devices, and vCPUs may still be running
 * (exit() on an error path): stop the engine and report, but leave every
 * lock and buffer in place for them.
 */
static void ordma_cable_exit_notify(Notifier *notifier, void *data)
{
    OrdmaState *s = container_of(notifier, OrdmaState, cable.exit_notifier);

    ordma_cable_shutdown(s);
}

/* Both ends name each other; resolved once every device exists */
static void ordma_cable_find_peer(Notifier *notifier, void *data)
{
    OrdmaState *s = container_of(notifier, OrdmaState, cable.init_done);
    g_autofree char *path = g_strdup_printf("/machine/peripheral/%s",
                                            s->cable_to);
    Object *obj = object_resolve_path_type(path, TYPE_ORDMA_PCI, NULL);
    OrdmaState *p = obj ? ORDMA_PCI(obj) : NULL;

    if (!p || p == s || p->cable.kind != ORDMA_CABLE_LOCAL ||
        g_strcmp0(p->cable_to, DEVICE(s)->id)) {
        error_report("%s: cable-to=%s: no other ordma device with that id "
                     "whose cable-to names this one", s->ident, s->cable_to);
        /* a command line that cables nothing fails; a hot-plug waits */
        if (!s->cable.hotplugged) {
            exit(1);
        }
        return;
    }
    qatomic_set(&s->cable.local_peer, p);
    /* a port plugged in later: the other end learns of it now */
    if (!qatomic_read(&p->cable.local_peer)) {
        qatomic_set(&p->cable.local_peer, s);
    }
}

void ordma_cable_start(OrdmaState *s)
{
    if (!ordma_has_cable(s)) {
        return;
    }
    if (s->cable.kind == ORDMA_CABLE_LOCAL) {
        s->cable.hotplugged = phase_check(PHASE_MACHINE_READY);
        s->cable.init_done.notify = ordma_cable_find_peer;
        qemu_add_machine_init_done_notifier(&s->cable.init_done);
    }
    s->cable.exit_notifier.notify = ordma_cable_exit_notify;
    qemu_add_exit_notifier(&s->cable.exit_notifier);
    qemu_thread_create(&s->cable.engine, "ordma-engine", ordma_cable_engine,
                       s, QEMU_THREAD_JOINABLE);
    s->cable.running = true;
}


/*
 * The other end stops sending here before this device goes away: it
 * sends only from inside its own firmware, so once its lock was taken
 * and dropped no sender still holds this device.
 */
static void ordma_cable_unplug_local(OrdmaState *s)
{
    OrdmaCable *c = &s->cable;
    OrdmaState *p = qatomic_read(&c->local_peer);

    if (p && qatomic_read(&p->cable.local_peer) == s) {
        qatomic_set(&p->cable.local_peer, NULL);
        qemu_mutex_lock(&p->fw_lock);
        qemu_mutex_unlock(&p->fw_lock);
    }
    qatomic_set(&c->local_peer, NULL);
}

static void ordma_cable_free_inbox(OrdmaCable *c)
{
    OrdmaInboxFrame *f, *next;

    QSIMPLEQ_FOREACH_SAFE(f, &c->inbox, next, next) {
        g_free(f);
    }
    QSIMPLEQ_INIT(&c->inbox);
    c->inbox_len = 0;
    qemu_mutex_destroy(&c->inbox_lock);
}

/*
 * What the cable lost, for the port counters: frames the host would not
 * send, and received ones dropped before the device saw them (a full
 * socket buffer or inbox).
 */
void ordma_cable_drops(OrdmaState *s, uint64_t *tx, uint64_t *rx)
{
    OrdmaCable *c = &s->cable;

    *tx = qatomic_read(&c->tx_failed);
    if (c->dead) {
        *rx = 0;
    } else if (c->kind == ORDMA_CABLE_UDP) {
        *rx = MAX(ordma_cable_host_drops(c->fd), 0);
    } else {
        *rx = qatomic_read(&c->rx_inbox_full);
    }
}

/*
 * Stops the engine and takes the cable out of use; reports what it lost.
 * The engine never waits for the BQL, so it is joined here with the BQL
 * held (device_del, quit).  Frames leave only from inside the firmware:
 * once fw_lock was taken with the cable dead, no thread sends on it.
 */
static void ordma_cable_shutdown(OrdmaState *s)
{
    OrdmaCable *c = &s->cable;
    DeviceState *dev = DEVICE(s);

    if (!ordma_has_cable(s) || c->dead) {
        return;
    }
    if (c->kind == ORDMA_CABLE_LOCAL) {
        if (c->running) {
            qemu_remove_machine_init_done_notifier(&c->init_done);
        }
        ordma_cable_unplug_local(s);
    }
    if (c->running) {
        qemu_remove_exit_notifier(&c->exit_notifier);
        qatomic_set(&c->stop, true);
        event_notifier_set(&c->wake);
        qemu_thread_join(&c->engine);
        c->running = false;
    }
    ordma_wire_report(s, dev->id ? dev->id : s->ident);
    /* run-vm.sh reads this line: keep its shape */
    info_report("cable %s: %" PRId64 " received datagrams dropped by the "
                "host; %" PRIu64 " not sent, %" PRIu64 " from others, %"
                PRIu64 " too long, %" PRIu64 " while the link was down",
                dev->id ? dev->id : s->ident,
                c->kind == ORDMA_CABLE_UDP ? ordma_cable_host_drops(c->fd) :
                (int64_t)qatomic_read(&c->rx_inbox_full),
                qatomic_read(&c->tx_failed), c->rx_foreign, c->rx_oversize,
                c->rx_link_down);
    if (c->kind == ORDMA_CABLE_LOCAL) {
        info_report("cable %s: at most %u received frames waited for the "
                    "port", dev->id ? dev->id : s->ident, c->inbox_peak);
    }
    if (c->pauses_sent) {
        info_report("cable %s: flow control: %" PRIu64 " PAUSE frames "
                    "sent, %" PRIu64 " pauses ended", dev->id ? dev->id :
                    s->ident, c->pauses_sent, c->resumes_sent);
    }
    /* a realize that failed has no firmware lock yet */
    if (s->rec) {
        qemu_mutex_lock(&s->fw_lock);
        qatomic_set(&c->dead, true);
        qemu_mutex_unlock(&s->fw_lock);
    } else {
        qatomic_set(&c->dead, true);
    }
}

void ordma_cable_close(OrdmaState *s)
{
    OrdmaCable *c = &s->cable;

    if (!ordma_has_cable(s)) {
        return;
    }
    ordma_cable_shutdown(s);
    ordma_wire_close(s);
    event_notifier_cleanup(&c->wake);
    if (c->kind == ORDMA_CABLE_UDP) {
        close(c->fd);
    } else {
        ordma_cable_free_inbox(c);
    }
    c->fd = -1;
    c->kind = ORDMA_CABLE_NONE;
    c->dead = false;
    g_free(c->rx_buf);
    c->rx_buf = NULL;
    g_free(c->rx_len);
    c->rx_len = NULL;
}
