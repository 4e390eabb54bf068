/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ORDMA device model: state shared by the PCIe function (ordma-pci.c) and
 * the port's cable with its engine thread (ordma-cable.c).
 */
#ifndef HW_NET_ORDMA_PCI_H
#define HW_NET_ORDMA_PCI_H

#include "qemu/thread.h"
#include "qemu/event_notifier.h"
#include "hw/pci/pci.h"
#include "net/net.h"

#define TYPE_ORDMA_PCI "ordma"
OBJECT_DECLARE_SIMPLE_TYPE(OrdmaState, ORDMA_PCI)

struct ordma_fw;

/*
 * The port's own datagram socket (-device ordma,cable-local=...,
 * cable-peer=...).  Its engine thread receives frames and runs them
 * through the firmware without waiting for QEMU's main loop.
 */
typedef struct OrdmaCable {
    int fd;                         /* -1: the port uses -netdev instead */
    struct sockaddr_storage peer;
    socklen_t peer_len;

    QemuThread engine;
    Notifier exit_notifier;
    EventNotifier wake;             /* stop, or frames may be taken again */
    bool running;
    bool stop;
    bool rx_stalled;                /* firmware not ready: socket left unread */
    bool link_up;                   /* the "link" property */

    uint8_t *rx_buf;                /* ORDMA_CABLE_BATCH frame buffers */
    unsigned int rx_held;           /* frames read but not yet delivered */
    unsigned int rx_held_first;
    size_t *rx_len;

    /* counted drops, reported when the device goes away */
    uint64_t tx_failed;             /* the host refused to send */
    uint64_t rx_foreign;            /* not from the peer */
    uint64_t rx_oversize;
    uint64_t rx_link_down;
} OrdmaCable;

struct OrdmaState {
    PCIDevice parent_obj;

    MemoryRegion reg_bar;
    MemoryRegion db_bar;

    NICState *nic;
    NICConf conf;
    QEMUTimer *timer;
    QEMUBH *rx_flush_bh;

    struct ordma_fw *fw;
    char *ident;            /* device name used in log messages */

    /*
     * The firmware runs in one thread at a time, under fw_lock.  Taken
     * after the BQL where both are held, never the other way round: a
     * holder of fw_lock never waits for the BQL (DMA reaches RAM only,
     * interrupts are raised after fw_lock is dropped).
     */
    QemuMutex fw_lock;
    uintptr_t fw_owner;     /* the thread inside the firmware, or 0 */
    uint64_t msix_pending;  /* vectors to raise once fw_lock is dropped */

    /* Work deferred while the firmware is entered on the same thread */
    bool rx_deferred;       /* a frame was refused: nested entry */
    bool rx_refused;        /* the firmware said it cannot take frames */
    bool reset_pending;
    bool link_pending;

    OrdmaCable cable;

    /* properties */
    char *serial;
    uint32_t vectors;
    uint32_t db_pages;
    uint32_t speed;
    char *cable_local;
    char *cable_peer;
    uint32_t poll_us;
};

bool ordma_fw_enter(OrdmaState *s, const char *what);
void ordma_fw_leave(OrdmaState *s);
bool ordma_link_up(OrdmaState *s);

bool ordma_cable_open(OrdmaState *s, Error **errp);
void ordma_cable_start(OrdmaState *s);
void ordma_cable_close(OrdmaState *s);
void ordma_cable_send(OrdmaState *s, const void *frame, size_t len);
void ordma_cable_kick(OrdmaState *s);

static inline bool ordma_has_cable(OrdmaState *s)
{
    return s->cable.fd >= 0;
}

#endif
