/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ORDMA device model: the impairments of the port's cable (ordma-wire.c),
 * what a test engineer's impairment box does to the frames a port sends:
 * loss, reordering, duplication, bit corruption and delay, drawn from a
 * seeded generator of the port's own.
 */
#ifndef HW_NET_ORDMA_WIRE_H
#define HW_NET_ORDMA_WIRE_H

#include "qemu/queue.h"
#include "qemu/thread.h"
#include "qom/object.h"

#include <linux/ordma/ordma_hw.h>

#include "ordma-wire-frame.h"
#include "ordma-pcap-format.h"

typedef struct OrdmaWireFrame {
    QSIMPLEQ_ENTRY(OrdmaWireFrame) next;
    int64_t due_ns;                 /* delay line: when it leaves */
    OrdmaPcapMarks marks;           /* what the wire did, for the capture */
    size_t len;
    uint8_t data[];
} OrdmaWireFrame;

/*
 * The settings are QOM properties (wire-*), set on the command line or
 * with qom-set while the guest runs.  lock is a leaf (the lock table is
 * in ordma-pci.h): whoever holds it waits for nothing else and sends no
 * frame.
 */
typedef struct OrdmaWire {
    QemuMutex lock;                 /* everything below, once ready */
    bool ready;                     /* realized with a cable: lock exists */
    bool active;                    /* settings or frames in hand (atomic) */

    /* settings: rates in parts per million of the frames sent */
    OrdmaWireRates rates;
    uint32_t delay_us;
    uint64_t seed;

    uint64_t rng;                   /* splitmix64 state, from seed */
    OrdmaWireFrame *held;           /* reordered: waits for the next frame */
    int64_t held_until;
    QSIMPLEQ_HEAD(, OrdmaWireFrame) line;   /* delay line, in order */
    unsigned int line_len;
    uint64_t faults[ORDMA_WIRE_FAULTS];     /* enum ordma_wire_fault */
} OrdmaWire;

struct OrdmaState;

void ordma_wire_class_init(ObjectClass *klass);
bool ordma_wire_open(struct OrdmaState *s, Error **errp);
void ordma_wire_close(struct OrdmaState *s);
void ordma_wire_send(struct OrdmaState *s, const void *frame, size_t len);
int64_t ordma_wire_next_ns(struct OrdmaState *s);
void ordma_wire_run(struct OrdmaState *s, int64_t now);
void ordma_wire_report(struct OrdmaState *s, const char *name);
void ordma_wire_faults(void *ctx, uint64_t *faults);
/* ordma-cable.c: puts a frame on the cable as it is (marks: for the capture) */
void ordma_cable_xmit(struct OrdmaState *s, const void *frame, size_t len,
                      const OrdmaPcapMarks *marks);

#endif
