/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ORDMA device model: the port's capture.
 *
 * With pcap=FILE the port writes every frame it sends and receives to
 * FILE as pcapng (ordma-pcap-format.h): one interface, named after the
 * device's id, nanosecond host (wall clock) timestamps, each frame with
 * its direction, and each frame the wire impaired with a comment that
 * says how (loss, corrupt bit N, dup, reorder, late N us, delay N us).
 * What is written is what a tap on the cable would see, plus the
 * frames the wire dropped (marked "loss"):
 *
 *   outbound  every frame as it leaves the port, after the wire's
 *             impairments (a corrupted frame with its bit flipped, both
 *             copies of a duplicate, a delayed or reordered frame when
 *             it actually leaves), and the MAC's PAUSE frames;
 *   inbound   every frame handed to the port's firmware (frames the
 *             cable dropped before the port -- a full socket buffer or
 *             inbox, the link down, another sender -- never reach it
 *             and are not written).
 *
 * pcap-snaplen keeps at most that many bytes of each frame (0, the
 * default: whole frames).  Both are QOM properties, set at start or with
 * qom-set while the guest runs: setting pcap opens the new file (empty)
 * before the old one is closed, "" stops the capture; setting
 * pcap-snaplen during a capture starts a new interface description in
 * the same file.  pcap-frames (read only) counts the frames written to
 * the current file; writing pcap-mark puts a marker frame with a
 * comment into it (tools/vm/run-vm.sh --pcap marks where each selftest
 * begins and ends).
 *
 * Threads (the table is in ordma-pci.h): frames are written by whichever
 * thread sends or receives them -- a vCPU, the main loop, the engine --
 * most of them inside the port's firmware.  pcap.lock is a leaf: its
 * holder formats one block into the capture's buffer and waits for
 * nothing else but, when every buffer is full, for the capture's
 * writer thread to give one back; the writer writes the buffers to the
 * file without the lock and waits for nothing else.  The settings
 * change, and the flush timer runs, under the BQL.  Blocks reach the
 * file in batches (see ORDMA_PCAP_BUF): at least every 100 ms, whenever
 * pcap-frames is read, and when QEMU exits.
 */

#include "qemu/osdep.h"
#include "qemu/error-report.h"
#include "qemu/timer.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "sysemu/sysemu.h"
#include "hw/qdev-core.h"

#include "ordma-pci.h"

/*
 * Blocks gather in buffers of ORDMA_PCAP_BUF bytes; one that holds
 * ORDMA_PCAP_FLUSH_BYTES goes to the capture's writer thread, which
 * writes it to the file while the port goes on (a thread that needs a
 * buffer while all ORDMA_PCAP_BUFS wait for the writer waits for one:
 * the capture keeps every frame).  What is gathered goes out at least
 * every ORDMA_PCAP_FLUSH_MS (a timer of the main loop), whenever
 * pcap-frames is read, and when the file is switched or closed or QEMU
 * exits.  One write(2) per frame, by the thread inside the firmware,
 * cut ib_write_bw's bandwidth by 7 times, batches by 2.5 times; with
 * the writer thread it is still 2.5 times on two host cores (the CPU
 * that copies the file is the guest's), but a slow disk no longer
 * holds up the firmware.
 */
#define ORDMA_PCAP_BUF          (128 * 1024)
#define ORDMA_PCAP_BUFS         8
#define ORDMA_PCAP_FLUSH_BYTES  (64 * 1024)
#define ORDMA_PCAP_FLUSH_MS     100

/* A marker frame (pcap-mark): the minimum Ethernet frame */
#define ORDMA_PCAP_MARK_LEN     60

/* What the section header names as the application that wrote the file */
#define ORDMA_PCAP_APPL         "QEMU ordma device model"

static const char *ordma_pcap_ifname(OrdmaState *s)
{
    return DEVICE(s)->id ? DEVICE(s)->id : s->ident;
}

/* Writes a whole block; false if the file did not take all of it */
static bool ordma_pcap_put(int fd, const uint8_t *buf, size_t len)
{
    return len && qemu_write_full(fd, buf, len) == (ssize_t)len;
}

/*
 * Creates path with its section header and interface description;
 * returns the file descriptor, or -1 with errp set.
 */
static int ordma_pcap_create(OrdmaState *s, const char *path,
                             uint32_t snaplen, Error **errp)
{
    uint8_t hdr[512];
    size_t n;
    int fd;

    fd = qemu_create(path, O_WRONLY | O_TRUNC | O_CLOEXEC, 0644, errp);
    if (fd < 0) {
        return -1;
    }
    n = ordma_pcap_shb(hdr, sizeof(hdr), ORDMA_PCAP_APPL);
    if (!ordma_pcap_put(fd, hdr, n)) {
        goto err;
    }
    n = ordma_pcap_idb(hdr, sizeof(hdr), ordma_pcap_ifname(s), snaplen);
    if (!ordma_pcap_put(fd, hdr, n)) {
        goto err;
    }
    return fd;
err:
    error_setg_errno(errp, errno, "cannot write the capture file %s", path);
    close(fd);
    return -1;
}

/* Under lock: a free buffer, once the writer has given one back */
static OrdmaPcapBuf *ordma_pcap_take_free(OrdmaPcap *p)
{
    OrdmaPcapBuf *b;

    while (!(b = QSIMPLEQ_FIRST(&p->free))) {
        qemu_cond_wait(&p->done, &p->lock);
    }
    QSIMPLEQ_REMOVE_HEAD(&p->free, next);
    return b;
}

/* Under lock: hands what the current buffer holds to the writer */
static void ordma_pcap_submit(OrdmaPcap *p)
{
    if (!p->cur->len) {
        return;
    }
    QSIMPLEQ_INSERT_TAIL(&p->full, p->cur, next);
    qemu_cond_signal(&p->work);
    p->cur = ordma_pcap_take_free(p);
}

/* Under lock: everything gathered is in the file (or counted lost) */
static void ordma_pcap_flush_locked(OrdmaPcap *p)
{
    ordma_pcap_submit(p);
    while (!QSIMPLEQ_EMPTY(&p->full) || p->writing) {
        qemu_cond_wait(&p->done, &p->lock);
    }
}

/* The writer thread: buffers to the file, in order */
static void *ordma_pcap_writer(void *opaque)
{
    OrdmaPcap *p = opaque;
    OrdmaPcapBuf *b;
    bool ok;
    int fd;

    qemu_mutex_lock(&p->lock);
    for (;;) {
        while (QSIMPLEQ_EMPTY(&p->full) && !p->stop) {
            qemu_cond_wait(&p->work, &p->lock);
        }
        b = QSIMPLEQ_FIRST(&p->full);
        if (!b) {
            break;
        }
        QSIMPLEQ_REMOVE_HEAD(&p->full, next);
        p->writing = true;
        /* the file changes only once nothing waits for the writer */
        fd = p->fd;
        qemu_mutex_unlock(&p->lock);
        ok = fd >= 0 && ordma_pcap_put(fd, b->data, b->len);
        qemu_mutex_lock(&p->lock);
        if (ok) {
            qatomic_set(&p->frames, p->frames + b->frames);
        } else {
            p->errors += b->frames;
        }
        b->len = 0;
        b->frames = 0;
        QSIMPLEQ_INSERT_TAIL(&p->free, b, next);
        p->writing = false;
        qemu_cond_broadcast(&p->done);
    }
    qemu_mutex_unlock(&p->lock);
    return NULL;
}

/*
 * Under lock: room for a block of need bytes at the end of the current
 * buffer (handed to the writer first if it is too full), or NULL for a
 * block larger than a buffer.
 */
static uint8_t *ordma_pcap_room(OrdmaPcap *p, size_t need)
{
    if (need > ORDMA_PCAP_BUF) {
        return NULL;
    }
    if (p->cur->len + need > ORDMA_PCAP_BUF) {
        ordma_pcap_submit(p);
    }
    return p->cur->data + p->cur->len;
}

/* Under lock: n bytes of frames (nframes of them) appended */
static void ordma_pcap_appended(OrdmaPcap *p, size_t n, unsigned int nframes)
{
    p->cur->len += n;
    p->cur->frames += nframes;
    if (p->cur->len >= ORDMA_PCAP_FLUSH_BYTES) {
        ordma_pcap_submit(p);
    }
}

static void ordma_pcap_flush(OrdmaPcap *p)
{
    qemu_mutex_lock(&p->lock);
    ordma_pcap_flush_locked(p);
    qemu_mutex_unlock(&p->lock);
}

static void ordma_pcap_timer(void *opaque)
{
    OrdmaPcap *p = opaque;

    ordma_pcap_flush(p);
    if (qatomic_read(&p->on)) {
        timer_mod(p->flush_timer, qemu_clock_get_ms(QEMU_CLOCK_REALTIME) +
                  ORDMA_PCAP_FLUSH_MS);
    }
}

/* QEMU exits without unrealizing the device: what is buffered goes out */
static void ordma_pcap_exit_notify(Notifier *notifier, void *data)
{
    ordma_pcap_flush(container_of(notifier, OrdmaPcap, exit_notifier));
}

/* Under the BQL: from now on frames go to fd (-1: none) */
static void ordma_pcap_switch(OrdmaState *s, int fd)
{
    OrdmaPcap *p = &s->pcap;
    int old;

    qemu_mutex_lock(&p->lock);
    ordma_pcap_flush_locked(p);
    old = p->fd;
    if (old >= 0 && p->errors) {
        warn_report("%s: capture %s: %" PRIu64 " frames could not be "
                    "written", s->ident, p->path, p->errors);
    }
    p->fd = fd;
    p->ifid = 0;
    p->errors = 0;
    qatomic_set(&p->frames, 0);
    qatomic_set(&p->on, fd >= 0);
    qemu_mutex_unlock(&p->lock);
    if (old >= 0) {
        close(old);
    }
    if (fd >= 0) {
        timer_mod(p->flush_timer, qemu_clock_get_ms(QEMU_CLOCK_REALTIME) +
                  ORDMA_PCAP_FLUSH_MS);
    } else {
        timer_del(p->flush_timer);
    }
}

/* Under lock: one block; false if it could not be written */
static bool ordma_pcap_block(OrdmaPcap *p, unsigned int dir,
                             const void *frame, size_t len, uint32_t snaplen,
                             const char *comment)
{
    size_t need = ordma_pcap_epb_size(len, snaplen, comment), n;
    uint8_t *room = ordma_pcap_room(p, need);
    g_autofree uint8_t *big = NULL;

    if (!room) {
        /* larger than the buffer: on its own, after what is buffered */
        ordma_pcap_flush_locked(p);
        big = g_malloc(need);
        n = ordma_pcap_epb(big, need, p->ifid,
                           ordma_host_clock_ns(), dir, frame, len,
                           snaplen, comment);
        return ordma_pcap_put(p->fd, big, n);
    }
    /* taken under the lock: the file's timestamps never go back */
    n = ordma_pcap_epb(room, ORDMA_PCAP_BUF - p->cur->len, p->ifid,
                       ordma_host_clock_ns(), dir, frame, len,
                       snaplen, comment);
    ordma_pcap_appended(p, n, dir ? 1 : 0);
    return n != 0;
}

static void ordma_pcap_write(OrdmaState *s, unsigned int dir,
                             const void *frame, size_t len,
                             const OrdmaPcapMarks *marks)
{
    OrdmaPcap *p = &s->pcap;
    char comment[ORDMA_PCAP_COMMENT_MAX];
    bool big;

    ordma_pcap_comment(marks, comment, sizeof(comment));
    qemu_mutex_lock(&p->lock);
    if (p->fd >= 0) {
        big = ordma_pcap_epb_size(len, p->snaplen, comment) > ORDMA_PCAP_BUF;
        if (!ordma_pcap_block(p, dir, frame, len, p->snaplen, comment)) {
            p->errors++;
        } else if (big) {
            qatomic_set(&p->frames, p->frames + 1);
        }
    }
    qemu_mutex_unlock(&p->lock);
}

void ordma_pcap_tx(OrdmaState *s, const void *frame, size_t len,
                   const OrdmaPcapMarks *marks)
{
    if (qatomic_read(&s->pcap.on)) {
        ordma_pcap_write(s, ORDMA_PCAP_DIR_OUT, frame, len, marks);
    }
}

void ordma_pcap_rx(OrdmaState *s, const void *frame, size_t len)
{
    if (qatomic_read(&s->pcap.on)) {
        ordma_pcap_write(s, ORDMA_PCAP_DIR_IN, frame, len, NULL);
    }
}

/* ------------------------------------------------------------------ */
/* Life cycle                                                          */
/* ------------------------------------------------------------------ */

void ordma_pcap_instance_init(OrdmaState *s)
{
    s->pcap.fd = -1;
}

void ordma_pcap_instance_finalize(OrdmaState *s)
{
    g_free(s->pcap.path);
    s->pcap.path = NULL;
}

/* At realize, before any frame can be sent or received */
bool ordma_pcap_open(OrdmaState *s, Error **errp)
{
    OrdmaPcap *p = &s->pcap;
    unsigned int i;
    int fd = -1;

    if (p->path) {
        fd = ordma_pcap_create(s, p->path, p->snaplen, errp);
        if (fd < 0) {
            return false;
        }
    }
    qemu_mutex_init(&p->lock);
    qemu_cond_init(&p->work);
    qemu_cond_init(&p->done);
    QSIMPLEQ_INIT(&p->full);
    QSIMPLEQ_INIT(&p->free);
    for (i = 0; i < ORDMA_PCAP_BUFS; i++) {
        OrdmaPcapBuf *b = g_malloc(sizeof(*b) + ORDMA_PCAP_BUF);

        b->len = 0;
        b->frames = 0;
        QSIMPLEQ_INSERT_TAIL(&p->free, b, next);
    }
    p->cur = QSIMPLEQ_FIRST(&p->free);
    QSIMPLEQ_REMOVE_HEAD(&p->free, next);
    p->stop = false;
    qemu_thread_create(&p->writer, "ordma-pcap", ordma_pcap_writer, p,
                       QEMU_THREAD_JOINABLE);
    p->flush_timer = timer_new_ms(QEMU_CLOCK_REALTIME, ordma_pcap_timer, p);
    p->exit_notifier.notify = ordma_pcap_exit_notify;
    qemu_add_exit_notifier(&p->exit_notifier);
    p->ready = true;
    ordma_pcap_switch(s, fd);
    return true;
}

/* Once no thread sends or receives any more */
void ordma_pcap_close(OrdmaState *s)
{
    OrdmaPcap *p = &s->pcap;
    OrdmaPcapBuf *b;

    if (!p->ready) {
        return;
    }
    ordma_pcap_switch(s, -1);
    qemu_remove_exit_notifier(&p->exit_notifier);
    timer_free(p->flush_timer);
    p->flush_timer = NULL;
    qemu_mutex_lock(&p->lock);
    p->stop = true;
    qemu_cond_signal(&p->work);
    qemu_mutex_unlock(&p->lock);
    qemu_thread_join(&p->writer);
    p->ready = false;
    g_free(p->cur);
    p->cur = NULL;
    while ((b = QSIMPLEQ_FIRST(&p->free))) {
        QSIMPLEQ_REMOVE_HEAD(&p->free, next);
        g_free(b);
    }
    qemu_cond_destroy(&p->work);
    qemu_cond_destroy(&p->done);
    qemu_mutex_destroy(&p->lock);
}

/* ------------------------------------------------------------------ */
/* Properties                                                          */
/* ------------------------------------------------------------------ */

static char *ordma_pcap_get_path(Object *obj, Error **errp)
{
    return g_strdup(ORDMA_PCI(obj)->pcap.path ?: "");
}

static void ordma_pcap_set_path(Object *obj, const char *value, Error **errp)
{
    OrdmaState *s = ORDMA_PCI(obj);
    OrdmaPcap *p = &s->pcap;
    int fd = -1;

    if (p->ready) {
        if (*value) {
            fd = ordma_pcap_create(s, value, p->snaplen, errp);
            if (fd < 0) {
                return;             /* the capture goes on as it was */
            }
        }
        ordma_pcap_switch(s, fd);
    }
    g_free(p->path);
    p->path = *value ? g_strdup(value) : NULL;
}

static void ordma_pcap_get_snaplen(Object *obj, Visitor *v, const char *name,
                                   void *opaque, Error **errp)
{
    uint32_t val = qatomic_read(&ORDMA_PCI(obj)->pcap.snaplen);

    visit_type_uint32(v, name, &val, errp);
}

static void ordma_pcap_set_snaplen(Object *obj, Visitor *v, const char *name,
                                   void *opaque, Error **errp)
{
    OrdmaState *s = ORDMA_PCI(obj);
    OrdmaPcap *p = &s->pcap;
    uint8_t idb[512];
    uint32_t val;
    size_t n;

    if (!visit_type_uint32(v, name, &val, errp)) {
        return;
    }
    if (!p->ready) {
        p->snaplen = val;
        return;
    }
    qemu_mutex_lock(&p->lock);
    if (p->fd >= 0 && val != p->snaplen) {
        /* the frames from here on belong to a new interface */
        ordma_pcap_flush_locked(p);
        n = ordma_pcap_idb(idb, sizeof(idb), ordma_pcap_ifname(s), val);
        if (!ordma_pcap_put(p->fd, idb, n)) {
            qemu_mutex_unlock(&p->lock);
            error_setg_errno(errp, errno, "cannot write the capture file %s",
                             p->path);
            return;
        }
        p->ifid++;
    }
    qatomic_set(&p->snaplen, val);
    qemu_mutex_unlock(&p->lock);
}

/*
 * pcap-mark: a marker in the capture, e.g. between two tests: a
 * broadcast frame of the local experimental EtherType 0x88b5 from the
 * port's MAC, carrying the text, with no direction and the comment
 * "mark: TEXT".  Not counted in pcap-frames.
 */
static void ordma_pcap_set_mark(Object *obj, const char *value, Error **errp)
{
    OrdmaState *s = ORDMA_PCI(obj);
    OrdmaPcap *p = &s->pcap;
    g_autofree char *comment = g_strdup_printf("mark: %s", value);
    uint8_t frame[ORDMA_PCAP_MARK_LEN] = { 0 };

    if (!p->ready) {
        error_setg(errp, "pcap-mark: the device is not realized");
        return;
    }
    memset(frame, 0xff, 6);
    memcpy(frame + 6, s->conf.macaddr.a, 6);
    frame[12] = 0x88;
    frame[13] = 0xb5;
    memcpy(frame + 14, value, MIN(strlen(value), sizeof(frame) - 14));
    qemu_mutex_lock(&p->lock);
    /* no direction: not one of the frames pcap-frames counts */
    if (p->fd >= 0 && !ordma_pcap_block(p, 0, frame, sizeof(frame), 0,
                                        comment)) {
        p->errors++;
    }
    qemu_mutex_unlock(&p->lock);
}

/* What is buffered is written out first: the file has them all */
static void ordma_pcap_get_frames(Object *obj, Visitor *v, const char *name,
                                  void *opaque, Error **errp)
{
    OrdmaPcap *p = &ORDMA_PCI(obj)->pcap;
    uint64_t val;

    if (p->ready) {
        ordma_pcap_flush(p);
    }
    val = qatomic_read(&p->frames);

    visit_type_uint64(v, name, &val, errp);
}

void ordma_pcap_class_init(ObjectClass *klass)
{
    ObjectProperty *op;

    object_class_property_add_str(klass, "pcap", ordma_pcap_get_path,
                                  ordma_pcap_set_path);
    object_class_property_set_description(klass, "pcap",
        "pcapng file of the frames the port sends and receives "
        "(\"\": no capture); can be switched at run time");
    op = object_class_property_add(klass, "pcap-snaplen", "uint32",
                                   ordma_pcap_get_snaplen,
                                   ordma_pcap_set_snaplen, NULL, NULL);
    object_property_set_default_uint(op, 0);
    object_class_property_set_description(klass, "pcap-snaplen",
        "bytes of each frame the capture keeps (0: the whole frame)");
    object_class_property_add_str(klass, "pcap-mark", NULL,
                                  ordma_pcap_set_mark);
    object_class_property_set_description(klass, "pcap-mark",
        "writes a marker frame with this text to the capture (write only)");
    object_class_property_add(klass, "pcap-frames", "uint64",
                              ordma_pcap_get_frames, NULL, NULL, NULL);
    object_class_property_set_description(klass, "pcap-frames",
        "frames written to the current capture file (read only)");
}
