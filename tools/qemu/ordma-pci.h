/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ORDMA device model: state shared by the PCIe function (ordma-pci.c) and
 * the port's cable with its engine thread (ordma-cable.c).
 *
 * Threads and locks: this block is the one description; the files of the
 * device model and the driver guide point here.
 *
 * Threads that run a device's firmware (each only under its fw_lock):
 *   vCPU       MMIO to BAR0/BAR2, with the BQL; a doorbell spins up to
 *              db-spin-us for fw_lock before it sleeps on it.
 *   main loop  with the BQL: the timer, -netdev frames and link changes,
 *              reset, qom-set, msix_bh, rx_flush_bh, and device_del or
 *              quit, which join the engine.
 *   engine     one per port with its own cable (ordma-cable.c), without
 *              the BQL: frames off the cable, the wire's frames when due,
 *              an inbox backlog.  An RCU reader (it registers itself),
 *              since the firmware's DMA works on guest memory.
 *   any thread inside port A's firmware that sends over a cable in memory
 *              runs port B's firmware too, if B's fw_lock is free.
 *
 * Threads that do not run the firmware:
 *   pcap writer  one per device (ordma-pcap.c): writes the capture's
 *              full buffers to its file; takes only pcap.lock.
 *
 * Locks, in the order they may be taken:
 *   BQL                 QEMU's: MSI-X (msix_notify), msix_held, timers,
 *                       the net layer, QOM properties.
 *   fw_lock             per device: struct ordma_fw and every HAL call
 *                       the firmware makes, msix_pending, the *_deferred,
 *                       *_pending and rx_* fields below, the cable's
 *                       rx_held frames, the cable's dead flag, the flash
 *                       once realized (the firmware that runs, its code,
 *                       boot log and the image being written: an
 *                       activation replaces them; the fw-* properties
 *                       copy them under it).
 *   another device's    taken only with a trylock by a thread that holds
 *   fw_lock             one already (cables in memory), so two devices
 *                       sending to each other cannot deadlock.
 *   cable.inbox_lock    the inbox, inbox_len, inbox_peak, and the pause
 *                       the port asked of its peer (cable in memory);
 *                       a leaf.
 *   cable.wire.lock     the impairments' settings, generator and frames
 *                       in hand (ordma-wire.h); a leaf, dropped before a
 *                       frame leaves.
 *   pcap.lock           the capture file, its buffers and counters
 *                       (ordma-pcap.h); a leaf, taken by any thread
 *                       that sends or receives a frame (with or without
 *                       fw_lock or the BQL, never with wire.lock or
 *                       inbox_lock), by the capture's flush timer and
 *                       by its writer thread.
 *   fwtrace.lock        the trace's gathering buffer and counters
 *                       (ordma-fwtrace.h); a leaf, taken by the thread
 *                       inside the firmware (fw_lock held) to add one
 *                       record, and by the trace's flush under the BQL,
 *                       which writes the file without it.
 * Without a lock (atomics): msix_async, cable.rx_stalled, cable.stop,
 * cable.link_up, cable.local_peer, the cable's and wire's counters,
 * pcap.on and pcap.frames, fwtrace.records and fwtrace.lost.
 *
 * What must never wait for what:
 *   - A holder of fw_lock never waits for the BQL: DMA reaches RAM only
 *     (never MMIO), MSI-X messages are sent after fw_lock is dropped, and
 *     frames leave by a datagram socket or, on a -netdev port, only from
 *     threads that hold the BQL already.
 *   - The engine never waits for the BQL, so it can be joined by a thread
 *     that holds it: it raises MSI-X itself only if a trylock takes the
 *     BQL, else msix_bh raises them from the main loop.
 *   - DMA behind intel-iommu runs the IOMMU's translation on the thread
 *     that makes the access, fw_lock held.  Where the translation needs
 *     the BQL, a thread without it does not wait for it (a patch to
 *     QEMU, patches/intel-iommu-deferred-faults.patch): a DMAR fault is
 *     recorded, and its fault event sent, from a bottom half of the main
 *     loop (the access fails at once; at most 64 wait, later ones are
 *     lost as in a full fault log), and a pass-through context entry is
 *     used without switching the address space to its fast path.
 *   - No thread waits for another device's fw_lock while holding one.
 *   - The capture's pcap.lock is held to add one frame to a buffer;
 *     its holder waits for nothing but, when all its buffers are full,
 *     for the writer thread to give one back, and the writer waits for
 *     nothing but the file (it writes without the lock).  A thread
 *     inside the firmware or the engine thus never waits for the BQL.
 *     Opening, switching and closing the file (qom-set) and the flush
 *     timer take it under the BQL; a new file is created before.
 *   - Frames leave only from inside the firmware, and PAUSE frames from
 *     the engine or from inside a firmware: once the engine was joined
 *     and the cable marked dead under fw_lock, no thread sends on it.
 */
#ifndef HW_NET_ORDMA_PCI_H
#define HW_NET_ORDMA_PCI_H

#include "qemu/queue.h"
#include "qemu/thread.h"
#include "qemu/event_notifier.h"
#include "hw/pci/pci.h"
#include "net/net.h"
#include "ordma_fw.h"
#include "ordma-wire.h"
#include "ordma-pcap.h"
#include "ordma-fwtrace.h"
#include "ordma-flash.h"

#define TYPE_ORDMA_PCI "ordma"
OBJECT_DECLARE_SIMPLE_TYPE(OrdmaState, ORDMA_PCI)

struct ordma_fw;
struct ordma_rec;

typedef enum OrdmaCableKind {
    ORDMA_CABLE_NONE,               /* the port uses -netdev */
    ORDMA_CABLE_UDP,                /* cable-local=, cable-peer= */
    ORDMA_CABLE_LOCAL,              /* cable-to= another ordma device */
} OrdmaCableKind;

typedef struct OrdmaInboxFrame {
    QSIMPLEQ_ENTRY(OrdmaInboxFrame) next;
    size_t len;
    uint8_t data[];
} OrdmaInboxFrame;

/*
 * The port's own cable (ordma-cable.c): a UDP socket, or process memory
 * to another ordma device of this QEMU.  Its engine thread runs the
 * frames that arrive through the firmware without waiting for QEMU's
 * main loop.
 */
typedef struct OrdmaCable {
    OrdmaCableKind kind;
    int fd;                         /* UDP: the socket */
    struct sockaddr_storage peer;
    socklen_t peer_len;

    /* LOCAL: the other end, and the frames it sent this port */
    OrdmaState *local_peer;
    Notifier init_done;
    bool hotplugged;
    QemuMutex inbox_lock;
    QSIMPLEQ_HEAD(, OrdmaInboxFrame) inbox;
    unsigned int inbox_len;
    unsigned int inbox_peak;        /* the longest inbox_len, for the report */

    QemuThread engine;
    Notifier exit_notifier;
    EventNotifier wake;             /* stop, or frames may be taken again */
    bool running;
    bool stop;
    bool rx_stalled;                /* firmware not ready: socket left unread */
    bool link_up;                   /* the "link" property */
    bool dead;                      /* shut down: nothing is sent on it */

    uint8_t *rx_buf;                /* ORDMA_CABLE_BATCH frame buffers */
    unsigned int rx_held;           /* frames read but not yet delivered */
    unsigned int rx_held_first;
    size_t *rx_len;

    /* counted drops, reported when the device goes away */
    uint64_t tx_failed;             /* the host refused to send */
    uint64_t rx_foreign;            /* not from the peer */
    uint64_t rx_oversize;
    uint64_t rx_link_down;
    uint64_t rx_inbox_full;         /* LOCAL: the inbox was full */

    /*
     * Flow control (802.3x PAUSE frames to the peer, ordma-cable.c).
     * UDP: the engine's alone.  LOCAL: under inbox_lock.
     */
    bool pausing;                   /* the peer was asked to pause */
    int64_t pause_refresh_ns;       /* realtime: when to ask again */
    uint64_t pauses_sent;           /* PAUSE frames with a pause_time */
    uint64_t resumes_sent;          /* PAUSE frames that ended one */
    int64_t xoff_bytes;             /* UDP: socket backlog that pauses */
    int64_t xon_bytes;              /* ... and that ends the pause */

    OrdmaWire wire;                 /* impairments (ordma-wire.c) */
} OrdmaCable;

struct OrdmaState {
    PCIDevice parent_obj;

    MemoryRegion reg_bar;
    MemoryRegion db_bar;

    NICState *nic;
    NICConf conf;
    QEMUTimer *timer;
    QEMUBH *rx_flush_bh;

    /*
     * The firmware, behind the recorder: every entry goes through
     * ordma_rec_*, which only passes calls on unless record= is set
     * (ordma_rec_fw() gives the firmware itself).
     */
    struct ordma_rec *rec;
    struct ordma_hal_ops hal;       /* what the firmware calls */
    Notifier rec_exit;      /* record=: the log ends when QEMU exits */
    char *ident;            /* device name used in log messages */

    /* The firmware runs in one thread at a time: see the top of the file */
    QemuMutex fw_lock;
    uintptr_t fw_owner;     /* the thread inside the firmware, or 0 */
    uint64_t msix_pending;  /* vectors to raise once fw_lock is dropped */
    uint64_t msix_async;    /* vectors msix_bh raises (atomic) */
    uint64_t msix_held;     /* raised while Bus Master Enable was clear */
    QEMUBH *msix_bh;

    /* Work deferred while the firmware is entered on the same thread */
    bool rx_deferred;       /* a frame was refused: nested entry */
    bool rx_refused;        /* the firmware said it cannot take frames */
    bool reset_pending;
    bool link_pending;
    bool flash_switch_pending;      /* a reset after FW_ACTIVATE */
    struct ordma_fw_config fw_cfg;  /* the firmware is created with */

    OrdmaCable cable;
    OrdmaPcap pcap;                 /* pcap=: the port's capture */
    OrdmaFwTrace fwtrace;           /* fwtrace=: the firmware's trace */
    OrdmaFlash flash;               /* flash=: the firmware it runs */

    /* properties */
    char *serial;
    char *link_layer;       /* the port's link layer: "eth" or "ib" */
    uint32_t vectors;
    uint32_t db_pages;
    uint32_t speed;
    char *cable_local;
    char *record;           /* log of the firmware's inputs ("" for none) */
    uint32_t record_max_mb; /* its size cap; 0 for the recorder's default */
    char *flash_path;       /* the device's flash ("" for none) */
    char *fw_pubkey_path;   /* the key its images are signed with */
    char *fwtrace_path;     /* the firmware's trace records ("" for none) */
    char *cable_peer;
    char *cable_to;
    uint32_t poll_us;
    int32_t engine_nice;
    uint32_t db_spin_us;
    bool flow_control;
    uint32_t flow_xoff;
};

/*
 * The host's wall clock in nanoseconds, for the capture's and the
 * trace's timestamps (QEMU_CLOCK_HOST counts in microseconds: too
 * coarse to order a port's events against the other port's).
 */
uint64_t ordma_host_clock_ns(void);

bool ordma_fw_enter(OrdmaState *s, const char *what);
bool ordma_fw_try_enter(OrdmaState *s);
void ordma_fw_leave(OrdmaState *s);
void ordma_raise_vectors(OrdmaState *s, uint64_t vectors);
void ordma_signal_vectors(OrdmaState *s, uint64_t vectors);
bool ordma_link_up(OrdmaState *s);

bool ordma_cable_open(OrdmaState *s, Error **errp);
void ordma_cable_start(OrdmaState *s);
void ordma_cable_close(OrdmaState *s);
void ordma_cable_send(OrdmaState *s, const void *frame, size_t len);
void ordma_cable_kick(OrdmaState *s);
void ordma_cable_drops(OrdmaState *s, uint64_t *tx, uint64_t *rx);
void ordma_cable_inbox_run(OrdmaState *s);
void ordma_cable_left(OrdmaState *s);

static inline bool ordma_has_cable(OrdmaState *s)
{
    return s->cable.kind != ORDMA_CABLE_NONE;
}

#endif
