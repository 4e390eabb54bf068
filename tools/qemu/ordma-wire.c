/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ORDMA device model: wire impairments on the transmit side of a port.
 *
 * What an impairment box between two cards does, built into the port's
 * own cable (cable-local/cable-peer or cable-to; a -netdev port has no
 * impairments).  Each port impairs only what it sends, so the two
 * directions of a cable are set independently.  For every frame sent,
 * in this order:
 *
 *   loss      the frame is dropped;
 *   corrupt   a RoCEv2 frame gets one bit flipped somewhere after its
 *             BTH (extension headers, payload, pad or the ICRC itself).
 *             A non-zero UDP checksum is brought up to date, as by a
 *             switch that rewrites the headers over bad data: only the
 *             ICRC, which is end to end, can catch the fault, and the
 *             receiver counts it as roce_parse_drop_icrc.  Other frames
 *             are never corrupted (a real MAC's FCS would drop them:
 *             that is loss);
 *   dup       the frame is sent twice;
 *   reorder   the frame is held back and sent right after the next
 *             frame, or alone after ORDMA_WIRE_HOLD_US when no other
 *             follows (only the first case counts as reordered);
 *   delay     every frame waits delay-us in a delay line (first in,
 *             first out: a shorter delay set later never overtakes).
 *
 * Rates are parts per million of the frames sent.  Every frame draws
 * the same five numbers from the port's splitmix64 generator whatever
 * the settings, seeded with wire-seed at realize and whenever wire-seed
 * is set: the same seed, settings and sequence of frames give the same
 * faults on the same frames.  Two ports given the same seed fault the
 * same frame numbers; give them different seeds for unrelated patterns.
 *
 * Every fault is counted per port (OrdmaWire.faults): QUERY_STATS
 * reports the counters to the driver (wire_fault_* in ethtool -S and
 * rdma statistic), the wire-injected-* properties to the host, and the
 * exit report to the log.
 *
 * What happens to one frame (the draws, which frames are RoCEv2, the
 * corruption) is ordma-wire-frame.c, which builds without QEMU and is
 * unit-tested on the host (tools/qemu/tests/test-wire-frame.c).
 *
 * A capture of the port (pcap=, ordma-pcap.c) sees each frame as it
 * actually leaves, marked with what the wire did to it, and the frames
 * the wire dropped, marked "loss": the marks travel with a frame held
 * back or delayed.
 *
 * Threads (the table is in ordma-pci.h): frames are sent from inside the
 * port's firmware, the delayed and held ones by the engine thread, which
 * enters the firmware for that; the settings change under the BQL
 * (qom-set).  wire.lock is a leaf, dropped before any frame leaves,
 * because a frame sent over a cable in memory may run the peer's
 * firmware and, through it, this port's again.
 */

#include "qemu/osdep.h"
#include "qemu/error-report.h"
#include "qemu/host-utils.h"
#include "qemu/timer.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "hw/qdev-core.h"
#include "hw/net/trace.h"

#include "ordma_fw.h"
#include "ordma-pci.h"

/* the longest delay: with 64 KiB messages at line rate a full line */
#define ORDMA_WIRE_DELAY_MAX_US 1000000
/* frames the delay line holds at most; more are lost (tx_failed) */
#define ORDMA_WIRE_LINE_MAX     16384
/* how long a reordered frame waits for a later one to overtake it */
#define ORDMA_WIRE_HOLD_US      200

static const char *const ordma_wire_fault_names[ORDMA_WIRE_FAULTS] = {
    [ORDMA_WIRE_FAULT_LOSS] = "loss",
    [ORDMA_WIRE_FAULT_REORDER] = "reorder",
    [ORDMA_WIRE_FAULT_DUP] = "dup",
    [ORDMA_WIRE_FAULT_CORRUPT] = "corrupt",
    [ORDMA_WIRE_FAULT_DELAY] = "delay",
};

static bool ordma_wire_configured(OrdmaWire *w)
{
    const OrdmaWireRates *r = &w->rates;

    return r->loss_ppm || r->reorder_ppm || r->dup_ppm || r->corrupt_ppm ||
           w->delay_us;
}

/* Under lock: anything to do for the frames sent? */
static void ordma_wire_update_active(OrdmaWire *w)
{
    qatomic_set(&w->active, ordma_wire_configured(w) || w->held ||
                !QSIMPLEQ_EMPTY(&w->line));
}

static void ordma_wire_count(OrdmaState *s, enum ordma_wire_fault fault,
                             size_t len)
{
    OrdmaWire *w = &s->cable.wire;

    qatomic_set(&w->faults[fault], w->faults[fault] + 1);
    trace_ordma_wire_fault(s->ident, ordma_wire_fault_names[fault], len);
}

/* ------------------------------------------------------------------ */
/* Sending                                                             */
/* ------------------------------------------------------------------ */

/* Frames to send once lock is dropped, in order */
typedef struct OrdmaWireOut {
    unsigned int n;
    struct {
        const void *data;
        size_t len;
        OrdmaWireFrame *owned;      /* freed once sent */
        OrdmaPcapMarks marks;
    } f[4];
} OrdmaWireOut;

static OrdmaWireFrame *ordma_wire_frame_new(const void *data, size_t len,
                                            const OrdmaPcapMarks *marks)
{
    OrdmaWireFrame *f = g_malloc(sizeof(*f) + len);

    f->len = len;
    f->due_ns = 0;
    f->marks = *marks;
    memcpy(f->data, data, len);
    return f;
}

/*
 * The bit of frame that differs in corrupted (the one flipped, after
 * the BTH: the UDP checksum before it changed too), as the capture
 * numbers it: 8 * byte + bit, bit 0 the least significant.
 */
static uint32_t ordma_wire_flipped_bit(const uint8_t *frame,
                                       const uint8_t *corrupted, size_t len)
{
    size_t udp, end, i;

    if (!ordma_wire_roce(frame, len, &udp, &end)) {
        return 0;
    }
    for (i = udp + 8 + 12; i < end; i++) {
        if (frame[i] != corrupted[i]) {
            return i * 8 + ctz32(frame[i] ^ corrupted[i]);
        }
    }
    return 0;
}

/*
 * Under lock: a frame goes on the wire now, or into the delay line
 * (always when that holds frames, to keep the order).  owned, if given,
 * is the frame itself.  Returns true if the engine must learn of a
 * delay line that was empty.
 */
static bool ordma_wire_stage(OrdmaState *s, OrdmaWireOut *out,
                             const void *data, size_t len,
                             OrdmaWireFrame *owned,
                             const OrdmaPcapMarks *marks, int64_t now)
{
    OrdmaWire *w = &s->cable.wire;
    bool was_empty = QSIMPLEQ_EMPTY(&w->line);

    if (!w->delay_us && was_empty) {
        assert(out->n < ARRAY_SIZE(out->f));
        out->f[out->n].data = owned ? owned->data : data;
        out->f[out->n].len = len;
        out->f[out->n].owned = owned;
        out->f[out->n].marks = *marks;
        out->n++;
        return false;
    }
    if (w->line_len >= ORDMA_WIRE_LINE_MAX) {
        /* the cable did not take it: a wire drop, not an impairment */
        qatomic_inc(&s->cable.tx_failed);
        g_free(owned);
        return false;
    }
    if (!owned) {
        owned = ordma_wire_frame_new(data, len, marks);
    } else {
        owned->marks = *marks;
    }
    owned->due_ns = now + (int64_t)w->delay_us * SCALE_US;
    QSIMPLEQ_INSERT_TAIL(&w->line, owned, next);
    w->line_len++;
    if (w->delay_us) {
        owned->marks.delay_us = w->delay_us;
        ordma_wire_count(s, ORDMA_WIRE_FAULT_DELAY, len);
    }
    return was_empty;
}

static void ordma_wire_emit(OrdmaState *s, OrdmaWireOut *out)
{
    unsigned int i;

    for (i = 0; i < out->n; i++) {
        ordma_cable_xmit(s, out->f[i].data, out->f[i].len, &out->f[i].marks);
        g_free(out->f[i].owned);
    }
}

/* From inside the port's firmware: one frame to impair and send */
void ordma_wire_send(OrdmaState *s, const void *frame, size_t len)
{
    OrdmaWire *w = &s->cable.wire;
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_REALTIME);
    g_autofree uint8_t *corrupted = NULL;
    OrdmaWireOut out = { 0 };
    OrdmaWireFrame *held = NULL;
    OrdmaPcapMarks marks = { 0 }, copy;
    OrdmaWireDraw d;
    unsigned int copies, first, i;
    bool wake = false;

    qemu_mutex_lock(&w->lock);
    ordma_wire_draw(&w->rng, &w->rates, &d);
    if (d.loss) {
        ordma_wire_count(s, ORDMA_WIRE_FAULT_LOSS, len);
        marks.loss = true;
        goto unlock;
    }
    if (d.corrupt) {
        corrupted = g_malloc(len);
        if (ordma_wire_corrupt(frame, len, d.bit, corrupted)) {
            ordma_wire_count(s, ORDMA_WIRE_FAULT_CORRUPT, len);
            marks.corrupt = true;
            marks.corrupt_bit = ordma_wire_flipped_bit(frame, corrupted, len);
            frame = corrupted;
        }
    }
    copies = 1;
    if (d.dup) {
        ordma_wire_count(s, ORDMA_WIRE_FAULT_DUP, len);
        copies = 2;
    }
    /* one frame waits at a time; the one waiting follows this one */
    held = w->held;
    w->held = NULL;
    first = 0;
    if (!held && d.reorder) {
        w->held = ordma_wire_frame_new(frame, len, &marks);
        w->held_until = now + ORDMA_WIRE_HOLD_US * SCALE_US;
        first = 1;
        wake = true;
    }
    /* the copy after the first (held or not) is the duplicate */
    for (i = first; i < copies; i++) {
        copy = marks;
        copy.dup = i > 0;
        wake |= ordma_wire_stage(s, &out, frame, len, NULL, &copy, now);
    }
    if (held) {
        ordma_wire_count(s, ORDMA_WIRE_FAULT_REORDER, held->len);
        copy = held->marks;
        copy.reorder = true;
        wake |= ordma_wire_stage(s, &out, NULL, held->len, held, &copy, now);
    }
unlock:
    ordma_wire_update_active(w);
    qemu_mutex_unlock(&w->lock);

    if (marks.loss) {
        /* what the capture sees of a frame the wire dropped */
        ordma_pcap_tx(s, frame, len, &marks);
    }
    ordma_wire_emit(s, &out);
    if (wake) {
        event_notifier_set(&s->cable.wake);
    }
}

/* The engine's next deadline for this port's wire, or INT64_MAX */
int64_t ordma_wire_next_ns(OrdmaState *s)
{
    OrdmaWire *w = &s->cable.wire;
    int64_t next = INT64_MAX;

    if (!w->ready || !qatomic_read(&w->active)) {
        return next;
    }
    qemu_mutex_lock(&w->lock);
    if (w->held) {
        next = w->held_until;
    }
    if (!QSIMPLEQ_EMPTY(&w->line)) {
        next = MIN(next, QSIMPLEQ_FIRST(&w->line)->due_ns);
    }
    qemu_mutex_unlock(&w->lock);
    return next;
}

/*
 * The engine, inside the port's firmware: send a held frame whose wait
 * is over and the frames of the delay line that are due.
 */
void ordma_wire_run(OrdmaState *s, int64_t now)
{
    OrdmaWire *w = &s->cable.wire;
    QSIMPLEQ_HEAD(, OrdmaWireFrame) due = QSIMPLEQ_HEAD_INITIALIZER(due);
    OrdmaWireOut out = { 0 };
    OrdmaWireFrame *f;
    bool up = ordma_link_up(s);

    qemu_mutex_lock(&w->lock);
    if (w->held && w->held_until <= now) {
        OrdmaPcapMarks late;

        f = w->held;
        w->held = NULL;
        /* overtaken by nothing: late, not reordered */
        late = f->marks;
        late.late_us = ORDMA_WIRE_HOLD_US;
        ordma_wire_stage(s, &out, NULL, f->len, f, &late, now);
    }
    while ((f = QSIMPLEQ_FIRST(&w->line)) && f->due_ns <= now) {
        QSIMPLEQ_REMOVE_HEAD(&w->line, next);
        w->line_len--;
        QSIMPLEQ_INSERT_TAIL(&due, f, next);
    }
    ordma_wire_update_active(w);
    qemu_mutex_unlock(&w->lock);

    if (up) {
        ordma_wire_emit(s, &out);
    } else {
        for (unsigned int i = 0; i < out.n; i++) {
            g_free(out.f[i].owned);
        }
    }
    while ((f = QSIMPLEQ_FIRST(&due))) {
        QSIMPLEQ_REMOVE_HEAD(&due, next);
        /* a cable pulled meanwhile took the frames in flight with it */
        if (up) {
            ordma_cable_xmit(s, f->data, f->len, &f->marks);
        }
        g_free(f);
    }
}

/* ------------------------------------------------------------------ */
/* Life cycle, counters                                                */
/* ------------------------------------------------------------------ */

/* At realize, once the cable is open (or there is none) */
bool ordma_wire_open(OrdmaState *s, Error **errp)
{
    OrdmaWire *w = &s->cable.wire;

    if (!ordma_has_cable(s)) {
        if (ordma_wire_configured(w)) {
            error_setg(errp, "wire impairments need the port's own cable "
                       "(cable-local/cable-peer or cable-to), not a netdev");
            return false;
        }
        return true;
    }
    qemu_mutex_init(&w->lock);
    QSIMPLEQ_INIT(&w->line);
    w->rng = w->seed;
    ordma_wire_update_active(w);
    w->ready = true;
    return true;
}

/* After the engine stopped: frames in hand are lost with the cable */
void ordma_wire_close(OrdmaState *s)
{
    OrdmaWire *w = &s->cable.wire;
    OrdmaWireFrame *f;

    if (!w->ready) {
        return;
    }
    qemu_mutex_lock(&w->lock);
    w->ready = false;
    g_free(w->held);
    w->held = NULL;
    while ((f = QSIMPLEQ_FIRST(&w->line))) {
        QSIMPLEQ_REMOVE_HEAD(&w->line, next);
        g_free(f);
    }
    w->line_len = 0;
    qatomic_set(&w->active, false);
    qemu_mutex_unlock(&w->lock);
    qemu_mutex_destroy(&w->lock);
}

/* HAL wire_faults: what this port injected, for QUERY_STATS */
void ordma_wire_faults(void *ctx, uint64_t *faults)
{
    OrdmaState *s = ctx;
    unsigned int i;

    for (i = 0; i < ORDMA_WIRE_FAULTS; i++) {
        faults[i] = qatomic_read(&s->cable.wire.faults[i]);
    }
}

void ordma_wire_report(OrdmaState *s, const char *name)
{
    uint64_t *f = s->cable.wire.faults;

    if (!ordma_wire_configured(&s->cable.wire) &&
        !f[0] && !f[1] && !f[2] && !f[3] && !f[4]) {
        return;
    }
    /* run-vm.sh reads this line: keep its shape */
    info_report("cable %s: wire faults injected: %" PRIu64 " loss, %" PRIu64
                " reorder, %" PRIu64 " dup, %" PRIu64 " corrupt, %" PRIu64
                " delay", name, f[ORDMA_WIRE_FAULT_LOSS],
                f[ORDMA_WIRE_FAULT_REORDER], f[ORDMA_WIRE_FAULT_DUP],
                f[ORDMA_WIRE_FAULT_CORRUPT], f[ORDMA_WIRE_FAULT_DELAY]);
}

/* ------------------------------------------------------------------ */
/* Properties                                                          */
/* ------------------------------------------------------------------ */

typedef struct OrdmaWireProp {
    const char *name;
    size_t offset;                  /* of the uint32_t in OrdmaWire */
    uint32_t max;
    const char *desc;
} OrdmaWireProp;

static const OrdmaWireProp ordma_wire_props[] = {
    { "wire-loss-ppm", offsetof(OrdmaWire, rates.loss_ppm),
      ORDMA_WIRE_PPM_MAX, "frames sent that are lost, in parts per million" },
    { "wire-reorder-ppm", offsetof(OrdmaWire, rates.reorder_ppm),
      ORDMA_WIRE_PPM_MAX,
      "frames sent that are held back behind the next, in ppm" },
    { "wire-dup-ppm", offsetof(OrdmaWire, rates.dup_ppm),
      ORDMA_WIRE_PPM_MAX, "frames sent that are sent twice, in ppm" },
    { "wire-corrupt-ppm", offsetof(OrdmaWire, rates.corrupt_ppm),
      ORDMA_WIRE_PPM_MAX,
      "RoCEv2 frames sent with one bit flipped (the ICRC catches it), "
      "in ppm" },
    { "wire-delay-us", offsetof(OrdmaWire, delay_us),
      ORDMA_WIRE_DELAY_MAX_US, "delay of every frame sent, in µs" },
};

/* Settings change under lock once the device is realized */
static bool ordma_wire_lock(OrdmaState *s, Error **errp)
{
    OrdmaWire *w = &s->cable.wire;

    if (!DEVICE(s)->realized) {
        return true;
    }
    if (!w->ready) {
        error_setg(errp, "the port has no cable of its own (cable-local/"
                   "cable-peer or cable-to): no wire impairments");
        return false;
    }
    qemu_mutex_lock(&w->lock);
    return true;
}

static void ordma_wire_unlock(OrdmaState *s)
{
    OrdmaWire *w = &s->cable.wire;

    if (DEVICE(s)->realized && w->ready) {
        ordma_wire_update_active(w);
        qemu_mutex_unlock(&w->lock);
    }
}

static void ordma_wire_get_u32(Object *obj, Visitor *v, const char *name,
                               void *opaque, Error **errp)
{
    const OrdmaWireProp *p = opaque;
    OrdmaState *s = ORDMA_PCI(obj);
    uint32_t val = qatomic_read((uint32_t *)((char *)&s->cable.wire +
                                             p->offset));

    visit_type_uint32(v, name, &val, errp);
}

static void ordma_wire_set_u32(Object *obj, Visitor *v, const char *name,
                               void *opaque, Error **errp)
{
    const OrdmaWireProp *p = opaque;
    OrdmaState *s = ORDMA_PCI(obj);
    uint32_t val;

    if (!visit_type_uint32(v, name, &val, errp)) {
        return;
    }
    if (val > p->max) {
        error_setg(errp, "%s must be 0..%u, not %u", name, p->max, val);
        return;
    }
    if (!ordma_wire_lock(s, errp)) {
        return;
    }
    qatomic_set((uint32_t *)((char *)&s->cable.wire + p->offset), val);
    ordma_wire_unlock(s);
}

static void ordma_wire_get_seed(Object *obj, Visitor *v, const char *name,
                                void *opaque, Error **errp)
{
    uint64_t val = qatomic_read(&ORDMA_PCI(obj)->cable.wire.seed);

    visit_type_uint64(v, name, &val, errp);
}

/* Setting the seed, even to the same value, restarts the generator. */
static void ordma_wire_set_seed(Object *obj, Visitor *v, const char *name,
                                void *opaque, Error **errp)
{
    OrdmaState *s = ORDMA_PCI(obj);
    uint64_t val;

    if (!visit_type_uint64(v, name, &val, errp) ||
        !ordma_wire_lock(s, errp)) {
        return;
    }
    s->cable.wire.seed = val;
    s->cable.wire.rng = val;
    ordma_wire_unlock(s);
}

static void ordma_wire_get_fault(Object *obj, Visitor *v, const char *name,
                                 void *opaque, Error **errp)
{
    uint64_t val = qatomic_read(&ORDMA_PCI(obj)->cable.wire.faults[
                                (uintptr_t)opaque]);

    visit_type_uint64(v, name, &val, errp);
}

void ordma_wire_class_init(ObjectClass *klass)
{
    ObjectProperty *op;
    size_t i;

    for (i = 0; i < ARRAY_SIZE(ordma_wire_props); i++) {
        const OrdmaWireProp *p = &ordma_wire_props[i];

        op = object_class_property_add(klass, p->name, "uint32",
                                       ordma_wire_get_u32, ordma_wire_set_u32,
                                       NULL, (void *)p);
        object_property_set_default_uint(op, 0);
        object_class_property_set_description(klass, p->name, p->desc);
    }
    op = object_class_property_add(klass, "wire-seed", "uint64",
                                   ordma_wire_get_seed, ordma_wire_set_seed,
                                   NULL, NULL);
    object_property_set_default_uint(op, 0);
    object_class_property_set_description(klass, "wire-seed",
        "seed of the port's impairment generator (setting it restarts it)");
    for (i = 0; i < ORDMA_WIRE_FAULTS; i++) {
        g_autofree char *name = g_strdup_printf("wire-injected-%s",
                                                ordma_wire_fault_names[i]);

        object_class_property_add(klass, name, "uint64",
                                  ordma_wire_get_fault, NULL, NULL,
                                  (void *)(uintptr_t)i);
        object_class_property_set_description(klass, name,
            "frames this port's wire impaired so (read only)");
    }
}
