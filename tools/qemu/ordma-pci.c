/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ORDMA RoCEv2 RDMA NIC: the PCIe function around the device firmware.
 *
 * This file is only the silicon shim.  All device behaviour lives in the
 * portable firmware (firmware/ordma_fw.h); the shim maps
 *   BAR0 (registers)      -> ordma_fw_reg_read/ordma_fw_reg_write
 *   BAR2 (doorbell pages) -> ordma_fw_db_write
 *   BAR4                  -> MSI-X table and PBA
 *   -netdev port          -> ordma_fw_rx_frame/can_receive/set_link
 * and gives the firmware its HAL: bus-master DMA (through the IOMMU when
 * there is one), MSI-X, frame transmit, a clock and one timer.
 *
 * Threads: the firmware runs under the device's fw_lock, entered from
 * vCPUs, the main loop and the port's engine thread; ordma-pci.h has the
 * table of threads and locks and what must never wait for what.
 *
 * Re-entrancy: the firmware is not re-entrant, yet its own actions can
 * loop back into this device on the same thread (a transmitted frame that
 * the peer answers at once, an MSI-X message aimed at one of our BARs).
 * Such nested calls are deferred (frames stay queued in the net layer,
 * resets and link changes are applied when the outer call returns) or
 * refused (MMIO), never run inside the firmware.
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "qemu/cutils.h"
#include "qemu/host-utils.h"
#include "qemu/log.h"
#include "qemu/module.h"
#include "qemu/main-loop.h"
#include "qemu/processor.h"
#include "qemu/timer.h"
#include "qapi/error.h"
#include "hw/pci/pci.h"
#include "hw/pci/pcie.h"
#include "hw/pci/msix.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "net/eth.h"
#include "net/net.h"
#include "sysemu/dma.h"
#include "sysemu/sysemu.h"
#include "hw/net/trace.h"

#include <linux/ordma/ordma_hw.h>
#include "ordma_fw.h"
#include "replay/ordma_rec.h"
#include "ordma-pci.h"

#define ORDMA_PCIE_CAP_OFFSET   0x40
#define ORDMA_DSN_OFFSET        0x100
/* beyond a host time slice, spinning only delays the lock holder */
#define ORDMA_DB_SPIN_MAX_US    1000

static NetClientState *ordma_nc(OrdmaState *s)
{
    return qemu_get_queue(s->nic);
}

bool ordma_link_up(OrdmaState *s)
{
    if (ordma_has_cable(s)) {
        return qatomic_read(&s->cable.link_up);
    }
    return s->nic && !qatomic_read(&ordma_nc(s)->link_down);
}

/* ------------------------------------------------------------------ */
/* Firmware entry guard                                                */
/* ------------------------------------------------------------------ */

/* Tells threads apart: the address of a per-thread variable */
static __thread char ordma_thread_tag;

/* Firmware locks this thread holds (devices cabled in memory nest) */
static __thread unsigned int ordma_fw_depth;

static uintptr_t ordma_thread_id(void)
{
    return (uintptr_t)&ordma_thread_tag;
}

bool ordma_fw_enter(OrdmaState *s, const char *what)
{
    if (qatomic_read(&s->fw_owner) == ordma_thread_id()) {
        trace_ordma_reentry_blocked(s->ident, what);
        return false;
    }
    qemu_mutex_lock(&s->fw_lock);
    qatomic_set(&s->fw_owner, ordma_thread_id());
    ordma_fw_depth++;
    return true;
}

/*
 * Enters the firmware for a doorbell.  The thread inside it is usually
 * there for a few microseconds (one frame and its acknowledgement), so
 * the vCPU first spins for up to db-spin-us.  A vCPU that sleeps on the
 * lock gives its host core away and, with every core busy, runs again
 * only a host time slice later: that was the tail of polling latency.
 * A longer stay (a window of a large transfer) still ends in sleeping,
 * which lends the core to the thread that holds the lock.
 */
static bool ordma_fw_enter_doorbell(OrdmaState *s)
{
    int64_t deadline;

    if (qatomic_read(&s->fw_owner) == ordma_thread_id()) {
        trace_ordma_reentry_blocked(s->ident, "doorbell");
        return false;
    }
    if (s->db_spin_us) {
        deadline = get_clock() + (int64_t)s->db_spin_us * SCALE_US;
        do {
            if (ordma_fw_try_enter(s)) {
                return true;
            }
            cpu_relax();
        } while (get_clock() < deadline);
    }
    return ordma_fw_enter(s, "doorbell");
}

/* Enters the firmware if no thread is inside it (never waits). */
bool ordma_fw_try_enter(OrdmaState *s)
{
    if (qemu_mutex_trylock(&s->fw_lock)) {
        return false;
    }
    qatomic_set(&s->fw_owner, ordma_thread_id());
    ordma_fw_depth++;
    return true;
}

static bool ordma_bus_master(OrdmaState *s)
{
    return pci_get_word(PCI_DEVICE(s)->config + PCI_COMMAND) &
           PCI_COMMAND_MASTER;
}

/*
 * MSI-X messages are memory writes that QEMU dispatches under the BQL.
 * Only a thread that holds it already raises them here.  A function
 * whose Bus Master Enable is clear may not write: its messages are held
 * and sent once it is set again, as a masked vector's pending bit holds
 * its message.  Dropping them would leave an EQ disarmed for ever (the
 * device disarms an EQ when it raises its vector).
 */
void ordma_raise_vectors(OrdmaState *s, uint64_t vectors)
{
    assert(qemu_mutex_iothread_locked());
    if (vectors && !ordma_bus_master(s)) {
        trace_ordma_msix_held(s->ident, vectors);
        s->msix_held |= vectors;
        return;
    }
    while (vectors) {
        unsigned int vector = ctz64(vectors);

        vectors &= vectors - 1;
        trace_ordma_msix(s->ident, vector);
        /* Masked or disabled vectors only set their pending bit. */
        msix_notify(PCI_DEVICE(s), vector);
    }
}

static void ordma_msix_bh(void *opaque)
{
    OrdmaState *s = opaque;
    uint64_t vectors = qatomic_xchg(&s->msix_async, 0);

    if (vectors) {
        ordma_raise_vectors(s, vectors);
    }
}

/*
 * Vectors the firmware raised, from a thread that has left it.  A thread
 * without the BQL never waits for it: the engine must go on draining the
 * cable while a vCPU or the main loop holds the BQL (and may be waiting
 * for fw_lock, or for the engine to be joined).  It takes the BQL if it
 * is free and it holds no firmware lock, else the main loop raises the
 * vectors from a bottom half.
 */
void ordma_signal_vectors(OrdmaState *s, uint64_t vectors)
{
    if (!vectors) {
        return;
    }
    if (qemu_mutex_iothread_locked()) {
        ordma_raise_vectors(s, vectors);
        return;
    }
    if (!ordma_fw_depth && qemu_mutex_iothread_trylock()) {
        /* vectors deferred earlier go first */
        ordma_raise_vectors(s, qatomic_xchg(&s->msix_async, 0) | vectors);
        qemu_mutex_unlock_iothread();
        return;
    }
    trace_ordma_msix_deferred(s->ident, vectors);
    qatomic_or(&s->msix_async, vectors);
    qemu_bh_schedule(s->msix_bh);
}

/*
 * Leave the firmware, first running what was deferred while inside it:
 * a reset or link change requested from within the firmware's own
 * actions happens here, once the firmware has unwound, and frames
 * refused meanwhile are retried.
 */
void ordma_fw_leave(OrdmaState *s)
{
    uint64_t vectors;
    bool rx_deferred;

    while (s->reset_pending || s->link_pending || s->flash_switch_pending) {
        bool reset = s->reset_pending;
        bool flash_switch = s->flash_switch_pending;

        s->reset_pending = false;
        s->link_pending = false;
        s->flash_switch_pending = false;
        if (flash_switch) {
            /* a new firmware, fresh from its reset */
            ordma_flash_switch(s);
            s->rx_deferred = true;
        } else if (reset) {
            ordma_rec_reset(s->rec);
            s->rx_deferred = true;
        }
        ordma_rec_set_link(s->rec, ordma_link_up(s));
    }
    if (s->cable.kind == ORDMA_CABLE_LOCAL) {
        ordma_cable_inbox_run(s);
    }
    vectors = s->msix_pending;
    s->msix_pending = 0;
    rx_deferred = s->rx_deferred;
    s->rx_deferred = false;
    qatomic_set(&s->fw_owner, 0);
    qemu_mutex_unlock(&s->fw_lock);
    ordma_fw_depth--;

    if (rx_deferred) {
        qemu_bh_schedule(s->rx_flush_bh);
    }
    ordma_signal_vectors(s, vectors);
    if (ordma_has_cable(s)) {
        ordma_cable_left(s);
    }
}

/*
 * After anything that may have made room for frames (a doorbell posting
 * RX buffers, ENABLE, a reset, a timer), retry the frames the net layer
 * holds for us.  Flushing from a bottom half keeps the stack flat when
 * two devices answer each other frame by frame.
 */
static void ordma_rx_kick(OrdmaState *s)
{
    if (ordma_has_cable(s)) {
        ordma_cable_kick(s);
        return;
    }
    if (s->rx_refused) {
        s->rx_refused = false;
        qemu_bh_schedule(s->rx_flush_bh);
    }
}

static void ordma_rx_flush_bh(void *opaque)
{
    OrdmaState *s = opaque;

    if (s->nic) {
        qemu_flush_queued_packets(ordma_nc(s));
    }
}

/* ------------------------------------------------------------------ */
/* HAL for the firmware                                                */
/* ------------------------------------------------------------------ */

/*
 * Device DMA through the function's bus-master address space: empty while
 * the guest keeps Bus Master Enable clear, the IOMMU's when one
 * translates for this function.  It reaches guest RAM only: an address
 * that resolves to MMIO (peer-to-peer, or this device's own BARs) or to
 * nothing fails like an unsupported request, so the firmware never waits
 * for the BQL and never re-enters itself through its own DMA.
 */
static int ordma_dma(OrdmaState *s, uint64_t addr, void *buf, size_t len,
                     bool is_write)
{
    AddressSpace *as = pci_get_address_space(PCI_DEVICE(s));

    while (len) {
        hwaddr xlat, chunk = len;
        MemoryRegion *mr;
        void *host;

        RCU_READ_LOCK_GUARD();
        mr = address_space_translate(as, addr, &xlat, &chunk, is_write,
                                     MEMTXATTRS_UNSPECIFIED);
        if (!chunk || !memory_access_is_direct(mr, is_write)) {
            trace_ordma_dma_error(s->ident, is_write ? "write" : "read",
                                  addr, len, MEMTX_DECODE_ERROR);
            return -1;
        }
        host = qemu_map_ram_ptr(mr->ram_block, xlat);
        if (is_write) {
            /* unmap marks the range dirty and drops stale translated code */
            memory_region_ref(mr);
            memcpy(host, buf, chunk);
            address_space_unmap(as, host, chunk, true, chunk);
        } else {
            memcpy(buf, host, chunk);
        }
        addr += chunk;
        buf = (uint8_t *)buf + chunk;
        len -= chunk;
    }
    return 0;
}

static int ordma_hal_dma_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
    return ordma_dma(ctx, addr, buf, len, false);
}

static int ordma_hal_dma_write(void *ctx, uint64_t addr, const void *buf,
                               size_t len)
{
    return ordma_dma(ctx, addr, (void *)buf, len, true);
}

static void ordma_hal_msix_notify(void *ctx, unsigned int vector)
{
    OrdmaState *s = ctx;

    if (vector >= s->vectors) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "%s: firmware raised MSI-X vector %u of %u\n",
                      s->ident, vector, s->vectors);
        return;
    }
    s->msix_pending |= 1ULL << vector;
}

static void ordma_hal_tx_frame(void *ctx, const void *frame, size_t len)
{
    OrdmaState *s = ctx;

    if (len > INT_MAX) {
        return;
    }
    trace_ordma_tx(s->ident, len);
    if (ordma_has_cable(s)) {
        ordma_cable_send(s, frame, len);
    } else if (s->nic) {
        ordma_pcap_tx(s, frame, len, NULL);
        /* the net layer needs the BQL, which a netdev port's callers hold */
        qemu_send_packet(ordma_nc(s), frame, len);
    }
}

uint64_t ordma_host_clock_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static uint64_t ordma_hal_now_ns(void *ctx)
{
    /* Device time stops while the VM is stopped, like the guest's. */
    return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}

static void ordma_hal_timer_arm(void *ctx, uint64_t expire_ns)
{
    OrdmaState *s = ctx;

    if (expire_ns == UINT64_MAX) {
        timer_del(s->timer);
    } else {
        timer_mod(s->timer, MIN(expire_ns, (uint64_t)INT64_MAX));
    }
}

static void ordma_hal_log(void *ctx, enum ordma_fw_log_level level,
                          const char *msg)
{
    OrdmaState *s = ctx;
    int len = (int)strcspn(msg, "\n");

    switch (level) {
    case ORDMA_FW_LOG_GUEST_ERROR:
        qemu_log_mask(LOG_GUEST_ERROR, "%s: %.*s\n", s->ident, len, msg);
        break;
    case ORDMA_FW_LOG_UNIMP:
        qemu_log_mask(LOG_UNIMP, "%s: %.*s\n", s->ident, len, msg);
        break;
    default:
        trace_ordma_fw_log(s->ident, msg);
        break;
    }
}

static void ordma_hal_wire_drops(void *ctx, uint64_t *tx, uint64_t *rx)
{
    OrdmaState *s = ctx;

    *tx = 0;
    *rx = 0;
    if (ordma_has_cable(s)) {
        ordma_cable_drops(s, tx, rx);
    }
}

static const struct ordma_hal_ops ordma_hal_ops = {
    .dma_read = ordma_hal_dma_read,
    .dma_write = ordma_hal_dma_write,
    .msix_notify = ordma_hal_msix_notify,
    .tx_frame = ordma_hal_tx_frame,
    .now_ns = ordma_hal_now_ns,
    .timer_arm = ordma_hal_timer_arm,
    .log = ordma_hal_log,
    .wire_drops = ordma_hal_wire_drops,
    .wire_faults = ordma_wire_faults,
};


static void ordma_timer_cb(void *opaque)
{
    OrdmaState *s = opaque;

    if (!ordma_fw_enter(s, "timer")) {
        /* Cannot happen from the main loop; retry rather than lose it. */
        timer_mod(s->timer, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) + 1);
        return;
    }
    ordma_rec_timer_expired(s->rec);
    ordma_fw_leave(s);
    ordma_rx_kick(s);
}

/* ------------------------------------------------------------------ */
/* BARs                                                                */
/* ------------------------------------------------------------------ */

/*
 * Both BARs accept every size from 1 to 8 bytes at any offset and hand
 * the access to the firmware as issued: the firmware decides what a
 * wrong size or alignment means (register: read 0 / ignore, doorbell:
 * counted doorbell error), so the guest sees the documented behaviour.
 */
static MemTxResult ordma_reg_read(void *opaque, hwaddr addr, uint64_t *data,
                                  unsigned size, MemTxAttrs attrs)
{
    OrdmaState *s = opaque;

    if (!ordma_fw_enter(s, "register read")) {
        *data = 0;
        return MEMTX_ERROR;
    }
    *data = ordma_rec_reg_read(s->rec, addr, size);
    ordma_fw_leave(s);
    trace_ordma_reg_read(s->ident, addr, size, *data);
    return MEMTX_OK;
}

static MemTxResult ordma_reg_write(void *opaque, hwaddr addr, uint64_t data,
                                   unsigned size, MemTxAttrs attrs)
{
    OrdmaState *s = opaque;

    trace_ordma_reg_write(s->ident, addr, size, data);
    if (!ordma_fw_enter(s, "register write")) {
        return MEMTX_ERROR;
    }
    ordma_rec_reg_write(s->rec, addr, data, size);
    /* CTRL.RESET after FW_ACTIVATE runs the pending image */
    if (addr == ORDMA_REG_CTRL && (data & ORDMA_CTRL_RESET) &&
        s->flash.activate_requested) {
        s->flash_switch_pending = true;
    }
    ordma_fw_leave(s);
    ordma_rx_kick(s);
    return MEMTX_OK;
}

static const MemoryRegionOps ordma_reg_ops = {
    .read_with_attrs = ordma_reg_read,
    .write_with_attrs = ordma_reg_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 1,
        .max_access_size = 8,
        .unaligned = true,
    },
    .impl = {
        .min_access_size = 1,
        .max_access_size = 8,
        .unaligned = true,
    },
};

static MemTxResult ordma_db_read(void *opaque, hwaddr addr, uint64_t *data,
                                 unsigned size, MemTxAttrs attrs)
{
    /* Doorbells are write-only and read as zero. */
    *data = 0;
    return MEMTX_OK;
}

static MemTxResult ordma_db_write(void *opaque, hwaddr addr, uint64_t data,
                                  unsigned size, MemTxAttrs attrs)
{
    OrdmaState *s = opaque;

    trace_ordma_db_write(s->ident, addr, size, data);
    if (!ordma_fw_enter_doorbell(s)) {
        return MEMTX_ERROR;
    }
    ordma_rec_db_write(s->rec, addr, data, size);
    ordma_fw_leave(s);
    ordma_rx_kick(s);
    return MEMTX_OK;
}

static const MemoryRegionOps ordma_db_ops = {
    .read_with_attrs = ordma_db_read,
    .write_with_attrs = ordma_db_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 1,
        .max_access_size = 8,
        .unaligned = true,
    },
    /* an 8-byte doorbell reaches the firmware as one 8-byte write */
    .impl = {
        .min_access_size = 1,
        .max_access_size = 8,
        .unaligned = true,
    },
};

/* ------------------------------------------------------------------ */
/* Ethernet port                                                       */
/* ------------------------------------------------------------------ */

static bool ordma_nc_can_receive(NetClientState *nc)
{
    OrdmaState *s = qemu_get_nic_opaque(nc);
    bool ok;

    if (!ordma_fw_enter(s, "can_receive")) {
        s->rx_deferred = true;
        return false;
    }
    ok = ordma_rec_can_receive(s->rec);
    ordma_fw_leave(s);
    if (!ok) {
        s->rx_refused = true;
    }
    return ok;
}

static ssize_t ordma_nc_receive(NetClientState *nc, const uint8_t *buf,
                                size_t len)
{
    OrdmaState *s = qemu_get_nic_opaque(nc);

    if (!ordma_fw_enter(s, "receive")) {
        /* 0 keeps the frame queued until qemu_flush_queued_packets() */
        s->rx_deferred = true;
        return 0;
    }
    trace_ordma_rx(s->ident, len);
    ordma_pcap_rx(s, buf, len);
    ordma_rec_rx_frame(s->rec, buf, len);
    ordma_fw_leave(s);
    /* The firmware counts its drops; the frame is consumed either way. */
    return len;
}

/* The firmware follows the port's link state (ordma_link_up()). */
static void ordma_link_changed(OrdmaState *s)
{
    if (!ordma_fw_enter(s, "link change")) {
        s->link_pending = true;
        return;
    }
    ordma_rec_set_link(s->rec, ordma_link_up(s));
    ordma_fw_leave(s);
    ordma_rx_kick(s);
}

static void ordma_nc_link_status_changed(NetClientState *nc)
{
    ordma_link_changed(qemu_get_nic_opaque(nc));
}

/*
 * "link": the cable plugged in or not (qom-set at run time).  A port on
 * a netdev has the monitor's set_link for that.
 */
static bool ordma_get_link(Object *obj, Error **errp)
{
    return ordma_link_up(ORDMA_PCI(obj));
}

static void ordma_set_link(Object *obj, bool up, Error **errp)
{
    OrdmaState *s = ORDMA_PCI(obj);

    if (!ordma_has_cable(s)) {
        error_setg(errp, "link: the port has no cable (use set_link)");
        return;
    }
    if (qatomic_xchg(&s->cable.link_up, up) != up) {
        ordma_link_changed(s);
    }
}

/*
 * fault-inject (write only): "KIND[=COUNT][,arg=N]" arms one of the
 * device's faults from the host, as the driver's INJECT_FAULT does
 * (enum ordma_fault): dma-read=N, dma-write=N, admin-drop=N,
 * msix-drop=N (the next N), admin-delay=N,arg=MS (the next N admin
 * completions MS ms late), fatal (code ORDMA_FATAL_INJECTED, or
 * arg=CODE), heartbeat-stuck=1 or =0.  COUNT defaults to 1.
 */
static const char *const ordma_fault_names[ORDMA_FAULTS] = {
    [ORDMA_FAULT_DMA_READ] = "dma-read",
    [ORDMA_FAULT_DMA_WRITE] = "dma-write",
    [ORDMA_FAULT_ADMIN_DROP] = "admin-drop",
    [ORDMA_FAULT_MSIX_DROP] = "msix-drop",
    [ORDMA_FAULT_FATAL] = "fatal",
    [ORDMA_FAULT_HEARTBEAT_STUCK] = "heartbeat-stuck",
    [ORDMA_FAULT_ADMIN_DELAY] = "admin-delay",
};

static void ordma_set_fault_inject(Object *obj, const char *value,
                                   Error **errp)
{
    OrdmaState *s = ORDMA_PCI(obj);
    g_auto(GStrv) parts = g_strsplit(value, ",", 3);
    g_auto(GStrv) kind = NULL;
    uint64_t count = 1, arg = 0;
    unsigned int fault;
    int ret;

    if (!s->rec) {
        error_setg(errp, "fault-inject: the device is not realized");
        return;
    }
    kind = g_strsplit(parts[0] ? parts[0] : "", "=", 2);
    for (fault = 0; fault < ORDMA_FAULTS; fault++) {
        if (kind[0] && !strcmp(kind[0], ordma_fault_names[fault])) {
            break;
        }
    }
    if (fault == ORDMA_FAULTS ||
        (kind[1] && qemu_strtou64(kind[1], NULL, 0, &count)) ||
        count > UINT32_MAX ||
        (parts[1] && (!g_str_has_prefix(parts[1], "arg=") ||
                      qemu_strtou64(parts[1] + 4, NULL, 0, &arg) ||
                      arg > UINT32_MAX)) ||
        (parts[1] && parts[2])) {
        error_setg(errp, "fault-inject: '%s' is not KIND[=COUNT][,arg=N] "
                   "with KIND dma-read, dma-write, admin-drop, msix-drop, "
                   "fatal, heartbeat-stuck or admin-delay", value);
        return;
    }
    if (!ordma_fw_enter(s, "fault-inject")) {
        error_setg(errp, "fault-inject: the firmware is busy on this thread");
        return;
    }
    ret = ordma_rec_inject_fault(s->rec, fault, count, arg);
    ordma_fw_leave(s);
    if (ret) {
        error_setg(errp, "fault-inject: the device refused '%s'", value);
    }
}

static NetClientInfo ordma_net_info = {
    .type = NET_CLIENT_DRIVER_NIC,
    .size = sizeof(NICState),
    .can_receive = ordma_nc_can_receive,
    .receive = ordma_nc_receive,
    .link_status_changed = ordma_nc_link_status_changed,
};

/* ------------------------------------------------------------------ */
/* PCI function                                                        */
/* ------------------------------------------------------------------ */

static void ordma_write_config(PCIDevice *pdev, uint32_t addr, uint32_t val,
                               int len)
{
    OrdmaState *s = ORDMA_PCI(pdev);
    bool was_master = ordma_bus_master(s);

    pci_default_write_config(pdev, addr, val, len);
    /* A Function Level Reset resets the device through ordma_reset(). */
    pcie_cap_flr_write_config(pdev, addr, val, len);
    if (was_master || !ordma_bus_master(s)) {
        return;
    }
    if (s->msix_held) {
        ordma_raise_vectors(s, s->msix_held);
        s->msix_held = 0;
    }
    /* The events whose EQE write failed meanwhile (vCPU: BQL, then fw_lock) */
    if (ordma_fw_enter(s, "bus master")) {
        ordma_rec_bus_master_enabled(s->rec);
        ordma_fw_leave(s);
    }
}

static void ordma_reset(DeviceState *dev)
{
    OrdmaState *s = ORDMA_PCI(dev);

    s->msix_held = 0;
    if (!ordma_fw_enter(s, "reset")) {
        s->reset_pending = true;
        s->flash_switch_pending |= s->flash.activate_requested;
        return;
    }
    ordma_rec_reset(s->rec);
    ordma_rec_set_link(s->rec, ordma_link_up(s));
    /* a function level reset after FW_ACTIVATE runs the pending image */
    s->flash_switch_pending |= s->flash.activate_requested;
    ordma_fw_leave(s);
    s->rx_refused = true;
    ordma_rx_kick(s);
}

static bool ordma_check_props(OrdmaState *s, Error **errp)
{
    const char *c;

    if (s->vectors < ORDMA_FW_MIN_VECTORS ||
        s->vectors > ORDMA_FW_MAX_VECTORS) {
        error_setg(errp, "vectors must be %u..%u", ORDMA_FW_MIN_VECTORS,
                   ORDMA_FW_MAX_VECTORS);
        return false;
    }
    if (s->db_pages < ORDMA_FW_MIN_DB_PAGES ||
        s->db_pages > ORDMA_FW_MAX_DB_PAGES) {
        error_setg(errp, "db-pages must be %u..%u", ORDMA_FW_MIN_DB_PAGES,
                   ORDMA_FW_MAX_DB_PAGES);
        return false;
    }
    if (!s->speed) {
        error_setg(errp, "speed must not be 0");
        return false;
    }
    if (s->engine_nice < -20 || s->engine_nice > 19) {
        error_setg(errp, "engine-nice must be -20..19");
        return false;
    }
    if (s->db_spin_us > ORDMA_DB_SPIN_MAX_US) {
        error_setg(errp, "db-spin-us must be 0..%u", ORDMA_DB_SPIN_MAX_US);
        return false;
    }
    if (s->link_layer && strcmp(s->link_layer, "eth") &&
        strcmp(s->link_layer, "ib")) {
        error_setg(errp, "link-layer must be eth or ib");
        return false;
    }
    if (s->serial) {
        if (!*s->serial ||
            strlen(s->serial) >= sizeof_field(struct ordma_fw_config, serial)) {
            error_setg(errp, "serial must be 1..15 characters");
            return false;
        }
        for (c = s->serial; *c; c++) {
            if (*c < 0x20 || *c > 0x7e) {
                error_setg(errp, "serial must be printable ASCII");
                return false;
            }
        }
    }
    return true;
}

/* Device Serial Number: the EUI-64 of the factory MAC (as the node GUID) */
static uint64_t ordma_dsn(const uint8_t *mac)
{
    uint8_t eui[8];

    ordma_fw_mac_to_eui64(mac, eui);
    return ldq_be_p(eui);
}

/* Payload copies kept so that a payload seen again is logged as a reference */
#define ORDMA_REC_DEDUP_BYTES (4 << 20)

/*
 * QEMU exits without unrealizing the device: the log of record= ends
 * here, with its trailer.  The device goes on unrecorded until then.
 */
static void ordma_rec_exit_notify(Notifier *notifier, void *data)
{
    OrdmaState *s = container_of(notifier, OrdmaState, rec_exit);

    qemu_mutex_lock(&s->fw_lock);
    ordma_rec_stop(s->rec);
    qemu_mutex_unlock(&s->fw_lock);
}

static void ordma_realize(PCIDevice *pdev, Error **errp)
{
    OrdmaState *s = ORDMA_PCI(pdev);
    DeviceState *dev = DEVICE(pdev);
    struct ordma_fw_config cfg = { 0 };
    const uint8_t *mac;
    unsigned int i;
    int ret;

    if (!ordma_check_props(s, errp)) {
        return;
    }
    qemu_macaddr_default_if_unset(&s->conf.macaddr);
    mac = s->conf.macaddr.a;
    if (is_multicast_ether_addr(mac) || buffer_is_zero(mac, ETH_ALEN)) {
        error_setg(errp, "mac must be a unicast address");
        return;
    }

    if (dev->id) {
        s->ident = g_strdup_printf("ordma %s", dev->id);
    } else {
        s->ident = g_strdup_printf("ordma %s:%02x.%x",
                                   BUS(pci_get_bus(pdev))->name,
                                   PCI_SLOT(pdev->devfn),
                                   PCI_FUNC(pdev->devfn));
    }

    pdev->config_write = ordma_write_config;
    /* No INTx: the function signals through MSI-X only. */
    pci_config_set_interrupt_pin(pdev->config, 0);

    memory_region_init_io(&s->reg_bar, OBJECT(s), &ordma_reg_ops, s,
                          "ordma-regs", ORDMA_REG_BAR_SIZE);
    pci_register_bar(pdev, ORDMA_REG_BAR,
                     PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64, &s->reg_bar);

    /*
     * A BAR is a power of two; pages beyond db-pages still reach the
     * firmware, which rejects them like any doorbell of a foreign page.
     */
    memory_region_init_io(&s->db_bar, OBJECT(s), &ordma_db_ops, s,
                          "ordma-doorbells",
                          pow2ceil((uint64_t)s->db_pages * ORDMA_DB_PAGE_SIZE));
    pci_register_bar(pdev, ORDMA_DB_BAR,
                     PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64, &s->db_bar);

    ret = pcie_endpoint_cap_init(pdev, ORDMA_PCIE_CAP_OFFSET);
    if (ret < 0) {
        error_setg(errp, "cannot add the PCIe capability");
        return;
    }
    pcie_cap_deverr_init(pdev);
    pcie_cap_flr_init(pdev);

    if (msix_init_exclusive_bar(pdev, s->vectors, ORDMA_MSIX_BAR, errp)) {
        pcie_cap_exit(pdev);
        return;
    }
    /* Every vector may be raised by the firmware at any time. */
    for (i = 0; i < s->vectors; i++) {
        msix_vector_use(pdev, i);
    }

    pcie_dev_ser_num_init(pdev, ORDMA_DSN_OFFSET, ordma_dsn(mac));

    memcpy(cfg.mac, mac, sizeof(cfg.mac));
    if (s->serial) {
        pstrcpy(cfg.serial, sizeof(cfg.serial), s->serial);
    } else {
        snprintf(cfg.serial, sizeof(cfg.serial), "ORD%02X%02X%02X",
                 mac[3], mac[4], mac[5]);
    }
    cfg.num_vectors = s->vectors;
    cfg.num_db_pages = s->db_pages;
    cfg.speed_mbps = s->speed;
    cfg.link_layer = s->link_layer && !strcmp(s->link_layer, "ib") ?
                     ORDMA_LINK_LAYER_INFINIBAND : ORDMA_LINK_LAYER_ETHERNET;

    s->timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, ordma_timer_cb, s);
    s->rx_flush_bh = qemu_bh_new_guarded(ordma_rx_flush_bh, s,
                                         &dev->mem_reentrancy_guard);
    s->msix_bh = qemu_bh_new_guarded(ordma_msix_bh, s,
                                     &dev->mem_reentrancy_guard);

    if (!ordma_pcap_open(s, errp)) {
        goto err_pcap;
    }
    if (!ordma_fwtrace_open(s, errp)) {
        goto err_fwtrace;
    }
    /* fwtrace=: the firmware's trace records too */
    s->hal = ordma_hal_ops;
    if (s->fwtrace.ready) {
        s->hal.trace = ordma_fwtrace_record;
    }
    s->fw_cfg = cfg;
    if (!ordma_cable_open(s, errp)) {
        goto err_cable;
    }
    if (!ordma_flash_open(s, errp)) {
        goto err_flash;
    }
    /* flash=: firmware update through the flash */
    ordma_flash_hal_ops(s, &s->hal);
    qemu_mutex_init(&s->fw_lock);
    if (s->record && *s->record) {
        struct ordma_rec_opts opts = {
            .path = s->record,
            .max_bytes = (uint64_t)s->record_max_mb << 20,
            .dedup_bytes = ORDMA_REC_DEDUP_BYTES,
        };

        s->rec = ordma_rec_create_image(s->flash.img, &s->hal, s, &cfg,
                                        &opts);
        if (!s->rec) {
            error_setg(errp, "record=%s: the log could not be opened or "
                       "the firmware rejected the configuration", s->record);
            goto err_fw;
        }
        s->rec_exit.notify = ordma_rec_exit_notify;
        qemu_add_exit_notifier(&s->rec_exit);
    } else {
        s->rec = ordma_rec_create_image(s->flash.img, &s->hal, s, &cfg,
                                        NULL);
        if (!s->rec) {
            error_setg(errp, "the firmware rejected the configuration");
            goto err_fw;
        }
    }

    if (ordma_has_cable(s)) {
        ordma_cable_start(s);
        return;
    }
    s->nic = qemu_new_nic(&ordma_net_info, &s->conf,
                          object_get_typename(OBJECT(s)), dev->id,
                          &dev->mem_reentrancy_guard, s);
    qemu_format_nic_info_str(ordma_nc(s), s->conf.macaddr.a);
    return;

err_fw:
    ordma_cable_close(s);
    qemu_mutex_destroy(&s->fw_lock);
    ordma_flash_close(s);
    goto err_cable;
err_flash:
    ordma_cable_close(s);
err_cable:
    ordma_fwtrace_close(s);
err_fwtrace:
    ordma_pcap_close(s);
err_pcap:
    qemu_bh_delete(s->msix_bh);
    qemu_bh_delete(s->rx_flush_bh);
    timer_free(s->timer);
    msix_unuse_all_vectors(pdev);
    msix_uninit_exclusive_bar(pdev);
    pcie_cap_exit(pdev);
}

static void ordma_exit(PCIDevice *pdev)
{
    OrdmaState *s = ORDMA_PCI(pdev);

    /* the engine goes first: it enters the firmware on its own */
    ordma_cable_close(s);
    if (s->nic) {
        qemu_del_nic(s->nic);
        s->nic = NULL;
    }
    /* no thread sends or receives any more */
    ordma_pcap_close(s);
    /* the firmware stops its timers through the HAL: the timer must live */
    if (s->rec_exit.notify) {
        qemu_remove_exit_notifier(&s->rec_exit);
        s->rec_exit.notify = NULL;
    }
    ordma_rec_destroy(s->rec);
    s->rec = NULL;
    /* the firmware's code goes with it */
    ordma_flash_close(s);
    ordma_fwtrace_close(s);
    timer_free(s->timer);
    s->timer = NULL;
    qemu_bh_delete(s->rx_flush_bh);
    s->rx_flush_bh = NULL;
    qemu_bh_delete(s->msix_bh);
    s->msix_bh = NULL;
    qemu_mutex_destroy(&s->fw_lock);
    msix_unuse_all_vectors(pdev);
    msix_uninit_exclusive_bar(pdev);
    pcie_cap_exit(pdev);
    g_free(s->ident);
    s->ident = NULL;
}

/* Device and firmware state are not described for migration. */
static const VMStateDescription ordma_vmstate = {
    .name = "ordma",
    .unmigratable = 1,
};

static Property ordma_properties[] = {
    DEFINE_NIC_PROPERTIES(OrdmaState, conf),
    DEFINE_PROP_STRING("serial", OrdmaState, serial),
    DEFINE_PROP_STRING("link-layer", OrdmaState, link_layer),
    DEFINE_PROP_UINT32("vectors", OrdmaState, vectors, 8),
    DEFINE_PROP_UINT32("db-pages", OrdmaState, db_pages, 256),
    DEFINE_PROP_UINT32("speed", OrdmaState, speed, 25000),
    /* the port's own UDP cable ("host:port" each), instead of netdev= */
    DEFINE_PROP_STRING("cable-local", OrdmaState, cable_local),
    /* record=FILE logs the firmware's inputs for ordma-replay */
    DEFINE_PROP_STRING("record", OrdmaState, record),
    DEFINE_PROP_UINT32("record-max-mb", OrdmaState, record_max_mb, 0),
    /* fwtrace=FILE writes the firmware's trace records (ordma-fwtrace.c) */
    DEFINE_PROP_STRING("fwtrace", OrdmaState, fwtrace_path),
    /* flash=FILE: run the firmware image of its active slot, signed with
     * the key of fw-pubkey=FILE (ordma-flash.c)
     */
    DEFINE_PROP_STRING("flash", OrdmaState, flash_path),
    DEFINE_PROP_STRING("fw-pubkey", OrdmaState, fw_pubkey_path),
    DEFINE_PROP_STRING("cable-peer", OrdmaState, cable_peer),
    /* or a cable in memory to another ordma device (its id) */
    DEFINE_PROP_STRING("cable-to", OrdmaState, cable_to),
    /*
     * How long the engine keeps polling the cable after work, in µs.
     * Polling pays only where the host has a core to spare for each
     * engine; with vCPUs spinning on two cores it took latency from
     * 38 to 330 µs, so it is off by default.
     */
    DEFINE_PROP_UINT32("poll-us", OrdmaState, poll_us, 0),
    /* nice value of the engine thread (0: leave it as created) */
    DEFINE_PROP_INT32("engine-nice", OrdmaState, engine_nice, -10),
    /* how long a doorbell spins for the firmware before sleeping, in µs */
    DEFINE_PROP_UINT32("db-spin-us", OrdmaState, db_spin_us, 20),
    /*
     * Link-level flow control on the port's cable: 802.3x PAUSE frames
     * ask the peer to hold its data while flow-control-xoff frames wait
     * to be received (ordma-cable.c).
     */
    DEFINE_PROP_BOOL("flow-control", OrdmaState, flow_control, true),
    DEFINE_PROP_UINT32("flow-control-xoff", OrdmaState, flow_xoff, 2048),
    DEFINE_PROP_END_OF_LIST(),
};

static void ordma_instance_init(Object *obj)
{
    OrdmaState *s = ORDMA_PCI(obj);

    s->cable.fd = -1;
    s->cable.link_up = true;
    s->fwtrace.fd = -1;
    s->flash.fd = -1;
    s->flash.running_slot = -1;
    ordma_pcap_instance_init(s);
}

static void ordma_instance_finalize(Object *obj)
{
    OrdmaState *s = ORDMA_PCI(obj);

    ordma_pcap_instance_finalize(s);
    /* realize failed after naming the device (device_add): not exited */
    g_free(s->ident);
}

static void ordma_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    PCIDeviceClass *pc = PCI_DEVICE_CLASS(klass);

    pc->realize = ordma_realize;
    pc->exit = ordma_exit;
    pc->vendor_id = ORDMA_PCI_VENDOR_ID;
    pc->device_id = ORDMA_PCI_DEVICE_ID;
    pc->revision = ORDMA_PCI_REVISION;
    pc->class_id = ORDMA_PCI_CLASS >> 8;
    pc->subsystem_vendor_id = ORDMA_PCI_VENDOR_ID;
    pc->subsystem_id = ORDMA_PCI_DEVICE_ID;

    dc->desc = "ORDMA RoCEv2 RDMA NIC";
    dc->reset = ordma_reset;
    dc->vmsd = &ordma_vmstate;
    device_class_set_props(dc, ordma_properties);
    object_class_property_add_bool(klass, "link", ordma_get_link,
                                   ordma_set_link);
    object_class_property_add_str(klass, "fault-inject", NULL,
                                  ordma_set_fault_inject);
    object_class_property_set_description(klass, "fault-inject",
        "arms a device fault: KIND[=COUNT][,arg=N] (write only)");
    ordma_wire_class_init(klass);
    ordma_pcap_class_init(klass);
    ordma_fwtrace_class_init(klass);
    ordma_flash_class_init(klass);
    set_bit(DEVICE_CATEGORY_NETWORK, dc->categories);
}

static const TypeInfo ordma_info = {
    .name = TYPE_ORDMA_PCI,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(OrdmaState),
    .instance_init = ordma_instance_init,
    .instance_finalize = ordma_instance_finalize,
    .class_init = ordma_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_PCIE_DEVICE },
        { }
    },
};

static void ordma_register_types(void)
{
    type_register_static(&ordma_info);
}

type_init(ordma_register_types)
