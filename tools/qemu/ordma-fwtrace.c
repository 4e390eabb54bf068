/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ORDMA device model: the firmware's trace.
 *
 * With fwtrace=FILE the device hands the firmware a HAL trace() call and
 * writes every record it makes (a WQE started, a packet sent or
 * received, a retransmission, a CQE, an EQE, an MSI-X vector, a QP state
 * change, a DMA access, an admin command: struct ordma_fw_trace) to FILE
 * in the format of firmware/trace/ordma_trace_file.h, each stamped with
 * the host clock that the port's capture (pcap=) uses, so that
 * tools/diag/ordma-trace puts both on one timeline.  Without it the
 * firmware has no trace() and spends nothing on records.  The property
 * is set when the device is created; fwtrace-records and fwtrace-lost
 * (read only) count the records written and those lost.
 *
 * The firmware makes its records under fw_lock, on whichever thread
 * runs it; each goes into a buffer under lock (a leaf).  A timer of the
 * main loop, QEMU's exit, the device's removal and every read of
 * fwtrace-records write the buffer to the file, outside the lock, while
 * the firmware fills the other one.  The firmware never waits for the
 * file: a record that finds the buffer full is lost, counted, and a
 * LOST record in the file says how many went missing there.
 */

#include "qemu/osdep.h"
#include "qemu/error-report.h"
#include "qemu/timer.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "sysemu/sysemu.h"
#include "hw/qdev-core.h"

#include "ordma-pci.h"
#include "trace/ordma_trace_file.h"

/*
 * 8 MiB hold 200k records: 100 ms of a busy port's records with its DMA
 * (ib_write_bw makes about five per packet).
 */
#define ORDMA_FWTRACE_BUF       (8 * 1024 * 1024)
#define ORDMA_FWTRACE_FLUSH_MS  100

static const char *ordma_fwtrace_name(OrdmaState *s)
{
    return DEVICE(s)->id ? DEVICE(s)->id : s->ident;
}

/* Under the BQL, from one thread at a time */
static void ordma_fwtrace_flush(OrdmaState *s)
{
    OrdmaFwTrace *t = &s->fwtrace;
    uint8_t *full;
    size_t len;

    qemu_mutex_lock(&t->lock);
    full = t->buf;
    len = t->len;
    t->buf = t->out;
    t->len = 0;
    t->out = full;
    qemu_mutex_unlock(&t->lock);
    if (len && qemu_write_full(t->fd, full, len) != (ssize_t)len) {
        t->write_errors += len;
    }
}

static void ordma_fwtrace_timer(void *opaque)
{
    OrdmaState *s = opaque;

    ordma_fwtrace_flush(s);
    timer_mod(s->fwtrace.flush_timer,
              qemu_clock_get_ms(QEMU_CLOCK_REALTIME) + ORDMA_FWTRACE_FLUSH_MS);
}

/* QEMU exits without unrealizing the device: what is buffered goes out */
static void ordma_fwtrace_exit_notify(Notifier *notifier, void *data)
{
    OrdmaFwTrace *t = container_of(notifier, OrdmaFwTrace, exit_notifier);

    ordma_fwtrace_flush(container_of(t, OrdmaState, fwtrace));
}

void ordma_fwtrace_record(void *ctx, const struct ordma_fw_trace *rec)
{
    OrdmaState *s = ctx;
    OrdmaFwTrace *t = &s->fwtrace;
    uint64_t now;

    qemu_mutex_lock(&t->lock);
    /* taken under the lock: the file's times never go back */
    now = ordma_host_clock_ns();
    if (t->lost_unmarked &&
        ORDMA_FWTRACE_BUF - t->len >= ORDMA_TRACE_FILE_REC_SIZE) {
        ordma_trace_file_lost(t->buf + t->len, now, t->lost_unmarked);
        t->len += ORDMA_TRACE_FILE_REC_SIZE;
        t->lost_unmarked = 0;
    }
    if (ORDMA_FWTRACE_BUF - t->len < ORDMA_TRACE_FILE_REC_SIZE) {
        t->lost_unmarked++;
        qatomic_set(&t->lost, t->lost + 1);
    } else {
        ordma_trace_file_record(t->buf + t->len, now, rec);
        t->len += ORDMA_TRACE_FILE_REC_SIZE;
        qatomic_set(&t->records, t->records + 1);
    }
    qemu_mutex_unlock(&t->lock);
}

bool ordma_fwtrace_open(OrdmaState *s, Error **errp)
{
    OrdmaFwTrace *t = &s->fwtrace;
    uint8_t hdr[ORDMA_TRACE_FILE_HDR_SIZE];

    if (!s->fwtrace_path || !*s->fwtrace_path) {
        return true;
    }
    t->fd = qemu_create(s->fwtrace_path, O_WRONLY | O_TRUNC | O_CLOEXEC,
                        0644, errp);
    if (t->fd < 0) {
        return false;
    }
    ordma_trace_file_header(hdr, ordma_fwtrace_name(s));
    if (qemu_write_full(t->fd, hdr, sizeof(hdr)) != sizeof(hdr)) {
        error_setg_errno(errp, errno, "cannot write the trace file %s",
                         s->fwtrace_path);
        close(t->fd);
        t->fd = -1;
        return false;
    }
    t->buf = g_malloc(ORDMA_FWTRACE_BUF);
    t->out = g_malloc(ORDMA_FWTRACE_BUF);
    t->len = 0;
    qemu_mutex_init(&t->lock);
    t->flush_timer = timer_new_ms(QEMU_CLOCK_REALTIME, ordma_fwtrace_timer,
                                  s);
    timer_mod(t->flush_timer,
              qemu_clock_get_ms(QEMU_CLOCK_REALTIME) + ORDMA_FWTRACE_FLUSH_MS);
    t->exit_notifier.notify = ordma_fwtrace_exit_notify;
    qemu_add_exit_notifier(&t->exit_notifier);
    t->ready = true;
    return true;
}

void ordma_fwtrace_close(OrdmaState *s)
{
    OrdmaFwTrace *t = &s->fwtrace;

    if (!t->ready) {
        return;
    }
    ordma_fwtrace_flush(s);
    if (t->write_errors || t->lost) {
        warn_report("%s: trace %s: %" PRIu64 " records lost, %" PRIu64
                    " bytes not written", s->ident, s->fwtrace_path,
                    t->lost, t->write_errors);
    }
    qemu_remove_exit_notifier(&t->exit_notifier);
    timer_free(t->flush_timer);
    t->flush_timer = NULL;
    close(t->fd);
    t->fd = -1;
    g_free(t->buf);
    g_free(t->out);
    t->buf = t->out = NULL;
    qemu_mutex_destroy(&t->lock);
    t->ready = false;
}

static void ordma_fwtrace_get_records(Object *obj, Visitor *v,
                                      const char *name, void *opaque,
                                      Error **errp)
{
    OrdmaState *s = ORDMA_PCI(obj);
    uint64_t val;

    /* what was counted is in the file when the reader looks */
    if (s->fwtrace.ready) {
        ordma_fwtrace_flush(s);
    }
    val = qatomic_read(&s->fwtrace.records);
    visit_type_uint64(v, name, &val, errp);
}

static void ordma_fwtrace_get_lost(Object *obj, Visitor *v, const char *name,
                                   void *opaque, Error **errp)
{
    uint64_t val = qatomic_read(&ORDMA_PCI(obj)->fwtrace.lost);

    visit_type_uint64(v, name, &val, errp);
}

void ordma_fwtrace_class_init(ObjectClass *klass)
{
    object_class_property_add(klass, "fwtrace-records", "uint64",
                              ordma_fwtrace_get_records, NULL, NULL, NULL);
    object_class_property_set_description(klass, "fwtrace-records",
        "firmware trace records written to the fwtrace file (read only)");
    object_class_property_add(klass, "fwtrace-lost", "uint64",
                              ordma_fwtrace_get_lost, NULL, NULL, NULL);
    object_class_property_set_description(klass, "fwtrace-lost",
        "firmware trace records lost: the buffer was full (read only)");
}
