#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Random MMIO, configuration and DMA programming against the ORDMA shim.

A hostile guest driver, played through QEMU's qtest protocol: random
reads and writes of every width at any offset of BAR0 (registers), BAR2
(doorbell pages, also past the configured pages) and BAR4 (MSI-X table
and PBA, message addresses aimed at RAM, the device's own BARs or
nowhere); configuration space writes (command register with bus
mastering and memory decoding toggled, BARs moved, MSI-X control,
Function Level Reset); the admin queue pointed at random or garbage
guest-physical addresses (RAM, the device's own BARs, unassigned space)
and fed random command entries whose payloads name random guest
memory; guest memory the device reads rewritten under it; device and
machine resets; the virtual clock advanced in random steps; and, now
and then, a function brought back by the book with an EQ, Ethernet
rings and a user context, so that the storm also hits live queues.  Two
functions share an Ethernet hub, so frames one transmits reach the
other.

Pass criteria: QEMU never exits, every qtest command is answered within
REPLY_TIMEOUT seconds, and at the end both functions, re-mapped and
re-enabled by the book, answer a register read and execute QUERY_FW,
QEMU quits cleanly (exit status 0) on the monitor's "quit", and its
stderr holds no sanitizer report, abort or hardware error.

The run is bounded by --ops operations per episode and --time seconds
overall, and is reproducible: the seed (random unless --seed) is printed
first; the same seed and --ops replay the same operations.  On failure
the last operations are printed.

With AddressSanitizer and UBSan: configure the QEMU tree that
build-qemu.sh prepared (it holds the device) in a build directory of its
own with build-qemu.sh's options plus --enable-sanitizers and build
qemu-system-x86_64 (about 14 minutes with -j2 on a loaded 2-core host),
then pass that binary (tools/check/run-check.sh: QTEST_QEMU=...).

Usage: qtest-ordma-random.py [--seed N] [--ops N] [--episodes N]
                             [--time SECS] [QEMU]
Output is TAP; exit status 0 = passed, 1 = failed, 4 = skipped.
"""

import argparse
import collections
import importlib.util
import os
import random
import re
import struct
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    'qtest_ordma', os.path.join(HERE, 'qtest-ordma.py'))
qo = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(qo)

RAM = 128 << 20                 # the machine's RAM (-m 128M)
SCRATCH = 0x800000              # what random commands and rings point at
SCRATCH_LEN = 0x100000
VECTORS, DB_PAGES = 8, 16
REG_BAR_SIZE = 0x4000
PCIE_CAP = 0x40                 # ORDMA_PCIE_CAP_OFFSET in ordma-pci.c
CMD_ALLOC_UCTX = 0x12
OPCODES = [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x08, 0x09, 0x0a, 0x0b,
           0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x20, 0x21, 0x24, 0x25,
           0x26, 0x27, 0x28, 0x29, 0x2b, 0x2c, 0x2d, 0x2e, 0x2f, 0x30,
           0x31, 0x32, 0x33, 0x34, 0x35]
# stderr lines that mean QEMU or the device model misbehaved
BAD_STDERR = re.compile(r'AddressSanitizer|LeakSanitizer|UndefinedBehavior'
                        r'|runtime error:|hardware error|Assertion|Aborted'
                        r'|core dumped|Segmentation', re.I)


class Hostile:
    """Random operations on the functions of one QEMU process."""

    def __init__(self, qt, funcs, rng):
        self.qt, self.funcs, self.rng = qt, funcs, rng
        self.history = collections.deque(maxlen=25)

    def note(self, text):
        self.history.append(text)

    def addr(self):
        """A guest-physical address a hostile driver might program."""
        r, f = self.rng, self.rng.choice(self.funcs)
        pick = r.randrange(10)
        if pick < 4:
            return SCRATCH + r.randrange(SCRATCH_LEN // 64) * 64
        if pick == 4:
            return r.randrange(RAM)
        if pick == 5:
            return r.choice((f.bar0, f.bar2, f.bar4)) + r.randrange(0x1000)
        if pick == 6:
            return 0xfee00000 + r.randrange(0x1000)     # MSI window
        if pick == 7:
            return r.randrange(1 << 64)
        if pick == 8:
            return RAM - r.randrange(1, 256)            # straddles RAM end
        return r.choice((0, 0xfffff000, 0xffffffffffffffff, 1 << 40))

    def value(self, size):
        r = self.rng
        pick = r.randrange(4)
        if pick == 0:
            return r.randrange(16)
        if pick == 1:
            return self.addr() & ((1 << 8 * size) - 1)
        if pick == 2:
            return (1 << 8 * size) - 1
        return r.randrange(1 << 8 * size)

    def payload(self, length):
        """Words a command parser will read as handles, sizes, addresses."""
        out = bytearray()
        while len(out) < length:
            if self.rng.randrange(3) == 0:
                out += self.addr().to_bytes(8, 'little')
            else:
                out += self.value(4).to_bytes(4, 'little')
        return bytes(out[:length])

    def mmio(self, base, span):
        r, qt = self.rng, self.qt
        size = r.choice((1, 2, 4, 8))
        off = r.randrange(span)
        if r.randrange(3):
            off &= ~(size - 1)
        if r.randrange(2):
            self.note('read%d 0x%x' % (size, base + off))
            qt.rd(size, base + off)
        else:
            val = self.value(size)
            self.note('write%d 0x%x 0x%x' % (size, base + off, val))
            qt.wr(size, base + off, val)

    def op_reg(self, f):
        r = self.rng
        if r.randrange(2):
            self.mmio(f.bar0, 0x40 if r.randrange(3) else REG_BAR_SIZE)
            return
        # programming the admin queue on purpose, badly
        reg = r.choice((qo.REG_AQ_BASE, qo.REG_AQ_BASE + 4, qo.REG_ACQ_BASE,
                        qo.REG_ACQ_BASE + 4, qo.REG_AQ_CFG, qo.REG_AQ_DB,
                        qo.REG_CTRL))
        if reg in (qo.REG_AQ_BASE, qo.REG_ACQ_BASE):
            val = self.addr() & 0xffffffff
        elif reg == qo.REG_CTRL:
            val = r.choice((qo.CTRL_ENABLE, qo.CTRL_RESET, 0, 3, self.value(4)))
        elif reg == qo.REG_AQ_CFG:
            val = r.choice((r.randrange(16), self.value(4)))
        else:
            val = self.value(4)
        self.note('reg %s+0x%x = 0x%x' % (f.slot, reg, val))
        f.reg(reg, val)

    def op_command(self, f):
        """A random entry at a random AQ position, then the doorbell."""
        r = self.rng
        aq, _ = f.aq_base()
        slot = r.randrange(16)
        # header: opcode, reserved byte, token, reserved word; then a
        # payload of random length (commands refuse non-zero bytes past
        # their own payload and in reserved fields: mostly keep those 0)
        entry = bytes([r.choice(OPCODES) if r.randrange(4) else r.randrange(256),
                       r.randrange(256) if r.randrange(8) == 0 else 0])
        entry += r.randrange(1 << 16).to_bytes(2, 'little')
        entry += (self.value(4) if r.randrange(8) == 0 else 0).to_bytes(4, 'little')
        entry += self.payload(r.choice((8, 16, 24, 32, 40, 56)))
        entry = entry.ljust(64, b'\0')
        self.note('aq entry %d: %s' % (slot, entry.hex()))
        self.qt.memw(aq + 64 * slot, entry)
        pi = (slot + 1) if r.randrange(3) else r.randrange(1 << 16)
        self.note('aq doorbell %d' % pi)
        f.reg(qo.REG_AQ_DB, pi)

    def op_memory(self):
        """Rewrite memory the device may be reading (rings, buffers)."""
        r = self.rng
        addr = SCRATCH + r.randrange(SCRATCH_LEN - 256)
        data = self.payload(r.choice((8, 16, 64, 256)))
        self.note('mem 0x%x <- %d bytes' % (addr, len(data)))
        self.qt.memw(addr, data)

    def op_doorbell(self, f):
        r = self.rng
        if r.randrange(3):
            page = r.randrange(DB_PAGES + 2)
            off = r.choice((0x00, 0x08, 0x10, 0x18, 0x20, 0x28, 0x30,
                            r.randrange(4096)))
            val = r.randrange(8) | r.choice((0, 1 << 31, 1 << 30)) | \
                r.randrange(64) << 32
            self.note('db page %d off 0x%x = 0x%x' % (page, off, val))
            self.qt.wr(8, f.bar2 + page * 4096 + off, val)
        else:
            self.mmio(f.bar2, DB_PAGES * 4096 * 2)

    def op_msix(self, f):
        r = self.rng
        if r.randrange(2):
            self.mmio(f.bar4, 0x1000)
            return
        v = r.randrange(VECTORS)
        vals = (self.addr() & 0xffffffff, self.addr() >> 32 if r.randrange(4) == 0 else 0,
                r.randrange(1 << 32), r.randrange(2))
        self.note('msix vector %d = %s' % (v, vals))
        for i, val in enumerate(vals):
            self.qt.wr(4, f.bar4 + 16 * v + 4 * i, val)

    def op_config(self, f):
        r = self.rng
        pick = r.randrange(8)
        if pick == 0:
            cmd = r.choice((0x6, 0x2, 0x4, 0x0, 0x406, r.randrange(1 << 16)))
            self.note('cfg %d command = 0x%x' % (f.slot, cmd))
            f.cfg(0x04, 2, cmd)
        elif pick == 1:
            bar = r.choice((0x10, 0x14, 0x18, 0x1c, 0x20))
            val = r.choice((0xffffffff, r.randrange(1 << 32),
                            0xe0000000 + r.randrange(0x100) * 0x100000, 0))
            self.note('cfg %d bar 0x%x = 0x%x' % (f.slot, bar, val))
            f.cfg(bar, 4, val)
        elif pick == 2:
            self.note('cfg %d FLR' % f.slot)
            f.cfg(PCIE_CAP + 8, 2, 0x8000)
        elif pick == 3:
            msix = 0x11 in f.capmap and f.capmap[0x11]
            if msix:
                val = r.choice((0x8000, 0xc000, 0x0, r.randrange(1 << 16)))
                self.note('cfg %d msix control = 0x%x' % (f.slot, val))
                f.cfg(msix + 2, 2, val)
        elif pick == 4:
            self.note('cfg %d restore' % f.slot)
            f.map()
            f.cfg(msix_ctrl(f), 2, 0x8000)
        else:
            size = r.choice((1, 2, 4))
            off = r.randrange(256) & ~(size - 1)
            if r.randrange(2) or off < 0x40:
                self.note('cfg %d read%d 0x%x' % (f.slot, size, off))
                f.cfg(off, size)
            else:
                val = self.value(size)
                self.note('cfg %d write%d 0x%x = 0x%x' % (f.slot, size, off, val))
                f.cfg(off, size, val)

    def op_clock(self):
        ns = self.rng.choice((1000, 100000, 10 ** 7, 10 ** 8, 10 ** 9))
        self.note('clock_step %d' % ns)
        self.qt.step(ns)

    def op_revive(self, f):
        """Bring a function back by the book, so that the storm also
        reaches an enabled device with live queues."""
        self.note('revive %d' % f.slot)
        by_the_book(f)
        live_objects(f, SCRATCH + 0x10000 * (f.slot - 3))

    def op_system_reset(self):
        self.note('system_reset')
        self.qt.hmp('system_reset')
        for f in self.funcs:
            f.map()
            f.cfg(msix_ctrl(f), 2, 0x8000)

    def one(self):
        r = self.rng
        f = r.choice(self.funcs)
        pick = r.randrange(100)
        if pick < 22:
            self.op_reg(f)
        elif pick < 40:
            self.op_command(f)
        elif pick < 55:
            self.op_doorbell(f)
        elif pick < 63:
            self.op_msix(f)
        elif pick < 75:
            self.op_config(f)
        elif pick < 87:
            self.op_memory()
        elif pick < 94:
            self.op_clock()
        elif pick < 99:
            self.op_revive(f)
        else:
            self.op_system_reset()


def msix_ctrl(f):
    return f.capmap[0x11] + 2


def by_the_book(f):
    """Map, reset and enable a function, then run QUERY_FW; True if it works."""
    f.map()
    f.cfg(msix_ctrl(f), 2, 0x8000)
    f.reg(qo.REG_CTRL, 0)
    f.reg(qo.REG_CTRL, qo.CTRL_RESET)
    for _ in range(100):
        if not f.reg(qo.REG_CTRL) & qo.CTRL_RESET:
            break
        f.qt.step(10 ** 6)
    f.enable()
    status, _, _ = f.command(qo.CMD_QUERY_FW)
    return status == 0


def live_objects(f, base):
    """Port up, an EQ and TX/RX Ethernet rings in scratch memory, a user
    context: targets for the random doorbells, descriptors and frames."""
    qt = f.qt
    f.command(qo.CMD_SET_PORT, struct.pack('<III6sBB', 1, qo.SET_PORT_ADMIN,
                                           0, bytes(6), 1, 0))
    eq, tx, rx = base, base + 0x1000, base + 0x2000
    for ring in (eq, tx, rx):
        qt.memw(ring, bytes(4096))
    status, _, out = f.command(qo.CMD_CREATE_EQ, struct.pack(
        '<QBBHI', eq, 4, qo.EQ_TYPE_COMP, 1, 0))
    eqn = struct.unpack_from('<I', out)[0] if status == 0 else 0
    for kind, ring in ((qo.ETH_RING_TX, tx), (qo.ETH_RING_RX, rx)):
        f.command(qo.CMD_CREATE_ETH_RING, struct.pack('<QBBHI', ring, 4, kind,
                                                      0, eqn))
    f.command(CMD_ALLOC_UCTX)


def episode(qemu, seed, ops, deadline, errlog):
    rng = random.Random(seed)
    with open(errlog, 'w') as err:
        try:
            qt = qo.QTest(qemu, [
                '-m', '128M', '-d', 'guest_errors,unimp',
                '-netdev', 'hubport,id=p0,hubid=0', '-netdev', 'hubport,id=p1,hubid=0',
                '-device', 'ordma,netdev=p0,addr=04.0,vectors=%d,db-pages=%d'
                           % (VECTORS, DB_PAGES),
                '-device', 'ordma,netdev=p1,addr=05.0,vectors=%d,db-pages=%d'
                           % (VECTORS, DB_PAGES)], stderr=err)
        except RuntimeError as exc:
            qo.tap('seed %d: QEMU starts' % seed, False, exc)
            return
    funcs = [qo.Function(qt, 4, 0xe0000000, DB_PAGES * 4096),
             qo.Function(qt, 5, 0xe4000000, DB_PAGES * 4096)]
    host = Hostile(qt, funcs, rng)
    done, ok = 0, True
    try:
        versions = []
        for f in funcs:
            f.capmap = f.caps()
            f.map()
            f.msix_setup(VECTORS)
            f.enable()
            versions.append(f.reg(qo.REG_VERSION))
            live_objects(f, SCRATCH + 0x10000 * (f.slot - 3))
        for off in (0, 0x11000, 0x21000):   # garbage, and both TX rings
            qt.memw(SCRATCH + off, bytes(rng.randrange(256) for _ in range(4096)))
        while done < ops and time.time() < deadline:
            host.one()
            done += 1
        qo.tap('seed %d: %d random operations, every reply in time' % (seed, done),
               True)
        for f, version in zip(funcs, versions):
            f.map()
            qo.tap('seed %d: function %d still answers (VERSION 0x%x)'
                   % (seed, f.slot, version), f.reg(qo.REG_VERSION) == version)
            qo.tap('seed %d: function %d executes QUERY_FW after reset and enable'
                   % (seed, f.slot), by_the_book(f))
    except (TimeoutError, RuntimeError, OSError) as exc:
        ok = False
        qo.tap('seed %d: QEMU survives the random operations' % seed, False,
               '%s after %d operations, exit status %s'
               % (exc, done, qt.proc.poll()))
        print('# last operations (replay: --seed %d --ops %d):' % (seed, done + 1))
        for line in host.history:
            print('#   ' + line)
    # a clean quit
    rc = None
    try:
        qt.hmp('quit')
        rc = qt.proc.wait(timeout=qo.REPLY_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired):
        rc = qt.proc.poll()
    if ok:
        qo.tap('seed %d: QEMU quits cleanly' % seed, rc == 0, 'exit status %s' % rc)
    qt.close()
    with open(errlog, errors='replace') as err:
        lines = err.readlines()
    bad = [l.rstrip() for l in lines if BAD_STDERR.search(l)]
    print('# seed %d: %d guest errors logged by the device model, e.g. %s'
          % (seed, len(lines), lines[len(lines) // 2].strip() if lines else '-'))
    qo.tap('seed %d: no sanitizer report, abort or hardware error' % seed,
           not bad, bad[:3])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--seed', type=int, default=None)
    ap.add_argument('--ops', type=int, default=4000)
    ap.add_argument('--episodes', type=int, default=3)
    ap.add_argument('--time', type=float, default=60.0)
    ap.add_argument('qemu', nargs='?')
    args = ap.parse_args()

    qemu = args.qemu
    if not qemu:
        res = subprocess.run([os.path.join(HERE, 'build-qemu.sh')],
                             stdout=subprocess.PIPE, text=True)
        lines = res.stdout.split()
        qemu = lines[-1] if res.returncode == 0 and lines else ''
    print('TAP version 13')
    if not qemu or not os.access(qemu, os.X_OK):
        print('1..0 # SKIP no QEMU with the ORDMA device')
        return 4
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), 'little')
    print('# seed %d (replay: %s --seed %d --ops %d --episodes %d)'
          % (seed, sys.argv[0], seed, args.ops, args.episodes))
    sys.stdout.flush()
    deadline = time.time() + args.time
    logdir = os.environ.get('QTEST_LOG_DIR', '/tmp')
    for e in range(args.episodes):
        episode(qemu, seed + e, args.ops, deadline,
                os.path.join(logdir, 'qtest-ordma-random.%d.%d.stderr' % (os.getpid(), e)))
    print('1..%d' % len(qo.tests))
    print('# %d passed, %d failed' % (qo.tests.count(True), qo.tests.count(False)))
    return 0 if all(qo.tests) else 1


if __name__ == '__main__':
    sys.exit(main())
