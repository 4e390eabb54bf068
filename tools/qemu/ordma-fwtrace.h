/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ORDMA device model: the firmware's trace (ordma-fwtrace.c), written to
 * the file named by the fwtrace= property in the format of
 * firmware/trace/ordma_trace_file.h.
 */
#ifndef HW_NET_ORDMA_FWTRACE_H
#define HW_NET_ORDMA_FWTRACE_H

#include "qemu/notify.h"
#include "qemu/thread.h"
#include "qemu/timer.h"
#include "qom/object.h"

#include "ordma_fw.h"

/*
 * lock is a leaf (the table is in ordma-pci.h): the firmware's thread
 * adds one record to buf under it; the flush (main loop, BQL) swaps buf
 * and out under it and writes out to the file without it.
 */
typedef struct OrdmaFwTrace {
    QemuMutex lock;
    bool ready;                     /* realized with a file */
    int fd;
    uint8_t *buf;                   /* records being gathered */
    size_t len;
    uint8_t *out;                   /* the flush's, written without lock */
    uint64_t records;               /* written to buf (atomic) */
    uint64_t lost;                  /* buf was full (atomic) */
    uint32_t lost_unmarked;         /* lost since the last LOST record */
    uint64_t write_errors;          /* bytes the file did not take */
    QEMUTimer *flush_timer;
    Notifier exit_notifier;
} OrdmaFwTrace;

struct OrdmaState;

void ordma_fwtrace_class_init(ObjectClass *klass);
/* Opens the file of the fwtrace property, if it names one */
bool ordma_fwtrace_open(struct OrdmaState *s, Error **errp);
/* Once the firmware is gone */
void ordma_fwtrace_close(struct OrdmaState *s);
/* The HAL's trace(): under the device's fw_lock */
void ordma_fwtrace_record(void *ctx, const struct ordma_fw_trace *rec);

#endif
