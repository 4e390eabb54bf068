# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""A driver that stops answering: it submits admin commands and never
reads a completion, leaves the async EQ unconsumed and unarmed while
link changes keep posting to it, lets an RX ring fill while the cable's
peer floods it, and keeps every MSI-X vector masked.  The device keeps
to the hw-reference (completions in slot k mod depth with the phase of
their pass, a doorbell past the depth rejected and counted, a full EQ
never overwritten and its drops counted, frames without a buffer
dropped and counted, masked vectors pending), MMIO answers within a
bound, CTRL.RESET and a function level reset each bring back a working
admin queue, and QEMU quits at once while the flood goes on."""

import socket
import struct
import subprocess
import tempfile
import threading
import time

from .common import (
    CMD_CREATE_EQ, CMD_HEALTH, CMD_QUERY_FW, COMP_PHASE, CTRL_RESET, EthRx,
    REG_AQ_DB, REG_CTRL, REG_FATAL_CODE, REG_STATUS, REG_VERSION,
    REPLY_TIMEOUT, RINGS, STATUS_READY, cabled_to, enabled_function,
    eth_frame, port_stats, port_up, tap, wait_for)

EQ_TYPE_ASYNC = 0
EQE_PORT_CHANGE, EQE_PHASE = 0x10, 1 << 31
PORT_DOWN, PORT_ACTIVE = 1, 4
ASYNC_EQ = RINGS + 0xc000    # 16 entries; EthRx uses 0xa000 and 0xb000
EQ_LOG = 4
VECTORS = 8
FLAPS = 20                   # link down and up: two PORT_CHANGE each
STAT_RX_FRAMES, STAT_RX_DROP_NO_BUF = 2, 6
# An MMIO read answers within this, flood or not (the qtest protocol's
# own REPLY_TIMEOUT is only the point where the test gives up)
MMIO_BOUND = 2.0
QUIT_BOUND = 5.0


def health(f):
    """HEALTH: (state, heartbeat, cmd_errors, db_errors, eq_overruns)"""
    status, _, out = f.command(CMD_HEALTH)
    return struct.unpack_from('<5I', out) if status == 0 else None


def mask_all(f):
    """MSI-X enabled with every vector masked (the per-vector mask)"""
    f.msix_setup(VECTORS)
    for v in range(VECTORS):
        f.qt.wr(4, f.bar4 + 16 * v + 12, 1)


def pending_bits(f):
    """The MSI-X Pending Bit Array's first dword"""
    pba = f.cfg(f.caps()[0x11] + 8)
    return f.qt.rd(4, f.bar4 + (pba & ~7))


def no_message(f):
    """No MSI-X message reached memory for any vector"""
    return not any(f.msi_seen(v) for v in range(VECTORS))


def submit_unread(f, count):
    """count QUERY_FW commands, at most the depth per doorbell, whose
    completions are never read; their tokens, by command index"""
    aq, _ = f.aq_base()
    depth = 1 << f.log_depth
    tokens = {}
    while count:
        batch = min(depth, count)
        for _ in range(batch):
            token = 0x5000 | f.aq_pi
            f.qt.memw(aq + 64 * (f.aq_pi % depth), struct.pack(
                '<BBHI', CMD_QUERY_FW, 0, token, 0).ljust(64, b'\0'))
            tokens[f.aq_pi] = token
            f.aq_pi = (f.aq_pi + 1) & 0xffff
        f.reg(REG_AQ_DB, f.aq_pi)
        count -= batch
    return tokens


def acq_as_written(f, tokens):
    """Each ACQ slot holds the completion of the last command submitted
    for it (command k in slot k mod depth), OK, with the phase of its
    pass (1 on the first, 0 on the second, ...); [] or the slots that
    do not"""
    _, acq = f.aq_base()
    depth = 1 << f.log_depth
    raw = f.qt.mem(acq, 32 * depth)
    last = {k % depth: k for k in sorted(tokens)}
    wrong = []
    for slot, k in last.items():
        token, status = struct.unpack_from('<HB', raw, 32 * slot)
        flags = struct.unpack_from('<I', raw, 32 * slot + 28)[0]
        phase = not (k >> f.log_depth) & 1
        if (token != tokens[k] or status != 0 or
                bool(flags & COMP_PHASE) != phase):
            wrong.append((slot, hex(token), status, hex(flags)))
    return wrong


def async_eq_entries(qt, count):
    """(type dword, data[1]) of the first count entries of the async EQ"""
    raw = qt.mem(ASYNC_EQ, 16 * count)
    return [(struct.unpack_from('<I', raw, 16 * i + 12)[0],
             struct.unpack_from('<I', raw, 16 * i + 4)[0])
            for i in range(count)]


def flaps_as_posted(entries):
    """The async EQ holds the first PORT_CHANGE events, in order: down,
    up, down, ... all on the first pass (phase 1)"""
    return entries == [(EQE_PHASE | EQE_PORT_CHANGE,
                        PORT_DOWN if i % 2 == 0 else PORT_ACTIVE)
                       for i in range(len(entries))]


def flap(qt, times):
    for _ in range(times):
        qt.qom_set('nic0', 'link', 'false')
        qt.qom_set('nic0', 'link', 'true')


def slowest_read(f, reads=50):
    """The longest of reads MMIO reads (STATUS and VERSION), in s"""
    worst = 0.0
    for i in range(reads):
        t0 = time.monotonic()
        f.reg(REG_STATUS if i % 2 else REG_VERSION)
        worst = max(worst, time.monotonic() - t0)
    return worst


def stall(f, flaps):
    """The stalled driver: an async EQ of 16 entries on vector 0, port
    up, then link flaps and 4 x depth admin commands, none of it ever
    consumed.  Returns (async EQ created, tokens, HEALTH before)."""
    f.qt.memw(ASYNC_EQ, bytes(16 << EQ_LOG))
    ok = port_up(f)
    status, _, _ = f.command(CMD_CREATE_EQ, struct.pack(
        '<QBBHI', ASYNC_EQ, EQ_LOG, EQ_TYPE_ASYNC, 0, 0))
    before = health(f)
    flap(f.qt, flaps)
    tokens = submit_unread(f, 4 << f.log_depth)
    return ok and status == 0, tokens, before


def recovered(f, how):
    """After a reset: the admin queue works again (QUERY_FW, HEALTH
    counters cleared, READY) although no vector was unmasked"""
    f.enable()
    status, _, _ = f.command(CMD_QUERY_FW)
    h = health(f)
    ok = (status == 0 and h is not None and h[2:] == (0, 0, 0) and
          f.reg(REG_STATUS) == STATUS_READY)
    tap('stall: %s brings back a working admin queue (QUERY_FW, HEALTH '
        'counters 0, READY)' % how, ok, (status, h, f.reg(REG_STATUS)))


def run_stalled_driver(qemu):
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as peer:
        log = tempfile.TemporaryFile(mode='w+')
        qt, port = cabled_to(qemu, peer, stderr=log)
        stop = threading.Event()
        sent = [0]

        def flood():
            frame = eth_frame(3)
            while not stop.is_set():
                for _ in range(64):
                    try:
                        peer.sendto(frame, ('127.0.0.1', port))
                        sent[0] += 1
                    except OSError:
                        pass
                # pacing, so that the machine's other core is not taken
                time.sleep(0.0005)

        flooder = threading.Thread(target=flood, daemon=True)
        try:
            f = enabled_function(qt)
            mask_all(f)
            depth = 1 << f.log_depth

            # ---- the admin queue, never read
            ok, tokens, before = stall(f, 0)
            wrong = acq_as_written(f, tokens)
            tap('stall: %d admin commands with no completion read: each in '
                'slot k mod %d with its pass\'s phase, device READY, no '
                'fatal code' % (len(tokens), depth),
                ok and not wrong and f.reg(REG_STATUS) == STATUS_READY and
                f.reg(REG_FATAL_CODE) == 0,
                (ok, wrong, f.reg(REG_STATUS), f.reg(REG_FATAL_CODE)))
            _, acq = f.aq_base()
            acq_before = qt.mem(acq, 32 * depth)
            f.reg(REG_AQ_DB, (f.aq_pi + depth + 1) & 0xffff)
            acq_after = qt.mem(acq, 32 * depth)
            h = health(f)
            tap('stall: an admin doorbell %d ahead of the consumer: nothing '
                'processed, db_errors + 1' % (depth + 1),
                acq_before == acq_after and h is not None and
                before is not None and h[3] == before[3] + 1, (before, h))

            # ---- the async EQ, never consumed nor armed
            flap(qt, FLAPS)
            h2 = health(f)
            entries = async_eq_entries(qt, 16)
            tap('stall: %d PORT_CHANGE events into an async EQ of 16 never '
                'consumed: the first 16 kept, eq_overruns + %d'
                % (2 * FLAPS, 2 * FLAPS - 16),
                flaps_as_posted(entries) and h2 is not None and
                h2[4] == h[4] + 2 * FLAPS - 16, (h, h2, entries[:4]))

            # ---- an RX ring left to fill under a flood
            rx = EthRx(f)
            rx.post()                  # arms the ring and its EQ, once
            flooder.start()
            stats = [None]

            def ring_full_and_dropping():
                stats[0] = port_stats(f)
                return (stats[0] is not None and
                        stats[0][STAT_RX_FRAMES] == 1 << rx.LOG and
                        stats[0][STAT_RX_DROP_NO_BUF] > 4 << rx.LOG)
            tap('stall: a flood into an RX ring never emptied: %d frames '
                'taken, then every frame dropped and counted (rx_drop_no_buf)'
                % (1 << rx.LOG), rx.ok and wait_for(ring_full_and_dropping),
                (rx.ok, stats[0] and stats[0][:8], sent[0]))

            # ---- the vectors stay masked: pending, never sent
            pend = pending_bits(f)
            tap('stall: masked vectors 0 (admin) and 1 (RX EQ) are pending, '
                'no MSI-X message written', pend & 0x3 == 0x3 and
                no_message(f), hex(pend))

            more = FLAPS // 2
            flap(qt, more)
            h3 = health(f)
            tap('stall: more events under the flood: the EQ still holds the '
                'first 16, each new one counted',
                flaps_as_posted(async_eq_entries(qt, 16)) and
                h3 is not None and h3[4] == h2[4] + 2 * more, (h2, h3))

            worst = slowest_read(f)
            tap('stall: MMIO answers within %.1f s under the flood (slowest '
                'of 50 reads %.3f s)' % (MMIO_BOUND, worst),
                worst < MMIO_BOUND, worst)

            # ---- CTRL.RESET, with the flood and the stall going on
            f.reg(REG_CTRL, 0)
            f.reg(REG_CTRL, CTRL_RESET)
            tap('stall: CTRL.RESET: RESET reads 0, STATUS 0',
                wait_for(lambda: f.reg(REG_CTRL) & CTRL_RESET == 0) and
                f.reg(REG_STATUS) == 0, (f.reg(REG_CTRL), f.reg(REG_STATUS)))
            recovered(f, 'CTRL.RESET')

            # ---- stalled again, then a function level reset
            ok, tokens, _ = stall(f, FLAPS)
            tap('stall: stalled again (commands and events unread)',
                ok and not acq_as_written(f, tokens) and
                flaps_as_posted(async_eq_entries(qt, 16)))
            pcie = f.caps()[0x10]
            f.cfg(pcie + 8, 2, f.cfg(pcie + 8, 2) | 0x8000)
            cmd, msix = f.cfg(0x04, 2), f.cfg(f.caps()[0x11] + 2, 2)
            tap('stall: FLR clears the command register and the MSI-X '
                'enable', cmd & 0x7 == 0 and msix & 0x8000 == 0,
                (hex(cmd), hex(msix)))
            f.map()
            mask_all(f)
            tap('stall: after FLR the function answers (VERSION 1.0, '
                'STATUS 0)', f.reg(REG_VERSION) == 0x00010000 and
                f.reg(REG_STATUS) == 0, (hex(f.reg(REG_VERSION)),
                                         f.reg(REG_STATUS)))
            recovered(f, 'a function level reset')
            rx = EthRx(f)
            rx.post()
            tap('stall: and the flood reaches a new RX ring',
                rx.ok and wait_for(lambda: rx.frame_in(eth_frame(3))))

            # ---- quit while the peer floods
            t0 = time.monotonic()
            qt.hmp('quit')
            try:
                rc = qt.proc.wait(timeout=REPLY_TIMEOUT)
            except subprocess.TimeoutExpired:
                rc = None
            took = time.monotonic() - t0
            log.seek(0)
            report = [l for l in log.read().splitlines() if 'cable nic0:' in l]
            tap('stall: quit while the peer floods (%d frames sent): QEMU '
                'exits 0 in %.1f s and reports the cable' % (sent[0], took),
                rc == 0 and took < QUIT_BOUND and report,
                (rc, took, report))
        except (TimeoutError, RuntimeError) as err:
            tap('stall: device model answers a driver that stopped', False,
                err)
        finally:
            stop.set()
            if flooder.is_alive():
                flooder.join()
            qt.close()
            log.close()
