#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""Check the ORDMA device model without a guest.

Drives a paused q35 machine through QEMU's qtest protocol: config space
through the 0xcf8/0xcfc ports, BAR MMIO, guest memory, the virtual clock
and the monitor.  It exercises the shim's wiring of the firmware HAL --
registers, doorbells, DMA (and its refusal while bus mastering is off),
MSI-X, the timer, the Ethernet port between two functions on a hub, link
changes, Function Level Reset, DMA through intel-iommu and the faults
of the engine's DMA it records (under TCG), and the cable's impairments
(settings checked, faults counted, the same seed giving the same faults,
corruption caught by the receiver's ICRC) and the port's pcapng capture
(every frame, its direction and impairment, switched at run time) -- in
a few seconds.

Usage: qtest-ordma.py [QEMU]   (default: the binary tools/qemu/build-qemu.sh
prints).  Output is TAP; exit status 0 = all passed, 1 = failures,
4 = skipped (no QEMU binary).
"""

import os
import re
import select
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zlib

DATADIRS = ['-L', '/usr/share/seabios', '-L', '/usr/lib/ipxe/qemu',
            '-L', '/usr/share/qemu']
REPLY_TIMEOUT = 10

# From include/linux/ordma/ordma_hw.h
VENDOR, DEVICE, REVISION, CLASS = 0x1234, 0x4f52, 0x01, 0x020000
REG_VERSION, REG_CAPS, REG_DB_CAPS, REG_CTRL, REG_STATUS = 0x0, 0x4, 0x8, 0x10, 0x14
REG_FATAL_CODE, REG_HEARTBEAT = 0x18, 0x1c
REG_AQ_BASE, REG_ACQ_BASE, REG_AQ_CFG, REG_AQ_DB, REG_SCRATCH = 0x20, 0x28, 0x30, 0x34, 0x38
CTRL_ENABLE, CTRL_RESET = 1, 2
STATUS_READY, STATUS_FATAL = 1, 2
FATAL_AQ_DMA = 3
DB_EQ, DB_ETH_PI, DB_ETH_ARM = 0x20, 0x28, 0x30
CMD_QUERY_FW, CMD_QUERY_DEVICE, CMD_QUERY_PORT, CMD_SET_PORT, CMD_HEALTH = 1, 2, 3, 4, 5
CMD_QUERY_STATS, CMD_ADD_GID = 0x06, 0x10
GID_TYPE_ROCE_V2, VLAN_NONE = 1, 0xffff
# struct ordma_port_stats: counter indexes (every one a __le64)
PORT_STATS_NUM = 68
STAT_PAUSE_RX = 66
STAT_ROCE_RX_FRAMES, STAT_ROCE_RX_DROP = 10, 11
STAT_RX_DROP_REASON = 17                # + enum ordma_roce_rx_drop
STAT_PARSE_DROP = 32                    # + enum ordma_roce_parse_drop
PARSE_UDP_CHECKSUM, PARSE_ICRC = 15, 21
STAT_WIRE_TX_DROP = 59
STAT_WIRE_FAULT = 61                    # + enum ordma_wire_fault
WIRE_FAULTS = ('loss', 'reorder', 'dup', 'corrupt', 'delay')
CMD_CREATE_EQ, CMD_CREATE_ETH_RING = 0x08, 0x0a
SET_PORT_ADMIN = 1 << 2
EQ_TYPE_COMP, ETH_RING_TX, ETH_RING_RX = 1, 0, 1
DESC_DONE, DESC_ERR = 1 << 31, 1 << 30
COMP_PHASE = 1 << 31

# Guest-physical layout used by the test (RAM below 128 MiB, BARs high)
MSI_BASE = 0x300000          # MSI-X messages land in RAM, one dword each
AQ, ACQ = 0x400000, 0x401000
BUF = 0x410000               # query buffers
RINGS = 0x500000             # EQs and Ethernet rings, 4 KiB each
FRAMES = 0x600000

tests = []


def tap(name, ok, info=''):
    ok = bool(ok)
    tests.append(ok)
    print('%s %d - %s%s' % ('ok' if ok else 'not ok', len(tests), name,
                           '' if ok or not info else ' # ' + str(info)))
    sys.stdout.flush()


class QTest:
    """One QEMU process driven over -qtest stdio, with an HMP socket."""

    def __init__(self, qemu, args, stderr=subprocess.DEVNULL, accel='qtest'):
        """accel 'tcg' (with -S: no guest code runs) keeps the checks
        TCG makes, such as the BQL being held when an interrupt is
        delivered to a CPU; the virtual clock then stands still."""
        self.tmp = tempfile.mkdtemp(prefix='qtest-ordma.')
        mon = os.path.join(self.tmp, 'mon.sock')
        self.proc = subprocess.Popen(
            [qemu, '-machine', 'q35', '-display', 'none', '-nodefaults',
             '-accel', accel] + (['-S'] if accel == 'tcg' else []) +
            ['-qtest', 'stdio', '-qtest-log', '/dev/null',
             '-monitor', 'unix:%s,server=on,wait=off' % mon] + DATADIRS + args,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=stderr, text=True, bufsize=1)
        self.mon = None
        # The socket file appears before QEMU listens on it: retry the
        # connection until it is accepted, QEMU exits or the time is up.
        deadline = time.time() + REPLY_TIMEOUT
        while self.mon is None:
            sock = socket.socket(socket.AF_UNIX)
            try:
                sock.connect(mon)
                self.mon = sock
            except (FileNotFoundError, ConnectionRefusedError):
                sock.close()
                if self.proc.poll() is not None or time.time() > deadline:
                    self.close()
                    raise RuntimeError('the QEMU monitor did not come up')
                time.sleep(0.05)
        self.hmp('', prompts=2)

    def close(self):
        self.proc.kill()
        self.proc.wait()
        if self.mon:
            self.mon.close()
        for f in os.listdir(self.tmp):
            os.unlink(os.path.join(self.tmp, f))
        os.rmdir(self.tmp)

    def cmd(self, line):
        self.proc.stdin.write(line + '\n')
        self.proc.stdin.flush()
        while True:
            ready, _, _ = select.select([self.proc.stdout], [], [], REPLY_TIMEOUT)
            if not ready:
                raise TimeoutError('no reply to "%s" (device stuck?)' % line)
            reply = self.proc.stdout.readline().strip()
            if not reply:
                raise RuntimeError('QEMU exited on "%s"' % line)
            if not reply.startswith('IRQ'):
                break
        if not reply.startswith('OK'):
            raise RuntimeError('"%s" -> %s' % (line, reply))
        words = reply.split()
        return words[1] if len(words) > 1 else None

    def hmp(self, line, prompts=1):
        """Run one monitor command; returns once it has run.

        The monitor echoes what it is sent: the command has run when a
        prompt follows that echo (a prompt left over from an earlier
        command does not count).  With an empty line, wait for @prompts
        prompts instead (the banner's and the empty line's).
        """
        self.mon.sendall((line + '\n').encode())
        out, deadline = b'', time.time() + REPLY_TIMEOUT
        while time.time() < deadline:
            if line:
                echo = out.find(line.encode())
                if echo >= 0 and out.endswith(b'(qemu) ') and \
                        out.rfind(b'(qemu) ') > echo:
                    break
            elif out.count(b'(qemu) ') >= prompts:
                break
            ready, _, _ = select.select([self.mon], [], [], 0.5)
            if ready:
                data = self.mon.recv(65536)
                if not data:
                    break       # QEMU closed the monitor (quit)
                out += data
        else:
            raise TimeoutError('monitor: no reply to %r' % line)
        return out.decode(errors='replace')

    def rd(self, size, addr):
        return int(self.cmd('read%s 0x%x' % ('bwlq'[size.bit_length() - 1], addr)), 16)

    def wr(self, size, addr, val):
        self.cmd('write%s 0x%x 0x%x' % ('bwlq'[size.bit_length() - 1], addr, val))

    def mem(self, addr, length):
        return bytes.fromhex(self.cmd('read 0x%x 0x%x' % (addr, length))[2:])

    def memw(self, addr, data):
        self.cmd('write 0x%x 0x%x 0x%s' % (addr, len(data), data.hex()))

    def step(self, ns):
        self.cmd('clock_step %d' % ns)

    def qom_get(self, dev, prop):
        """A property of /machine/peripheral/dev as the monitor prints it."""
        return self.hmp_reply('qom-get /machine/peripheral/%s %s' % (dev, prop))

    def hmp_reply(self, line):
        """What the monitor printed for line, terminal controls removed."""
        out = self.hmp(line)
        out = out[out.rfind(line) + len(line):].replace('(qemu) ', '')
        return re.sub(r'\x1b\[[0-9;]*[A-Za-z]', '', out).strip()

    def qom_set(self, dev, prop, value):
        """Sets a property; returns what the monitor said (empty: done)."""
        return self.hmp_reply('qom-set /machine/peripheral/%s %s %s' %
                              (dev, prop, value))


class Function:
    """One ORDMA function on bus 0, with its BARs placed at bar_base."""

    def __init__(self, qt, slot, bar_base, db_bar_size):
        self.qt, self.slot = qt, slot
        self.bar0 = bar_base
        self.bar2 = bar_base + max(db_bar_size, 0x100000)
        self.bar4 = self.bar2 + max(db_bar_size, 0x100000)
        self.msi = MSI_BASE + slot * 0x100
        self.aq_pi = 0

    def cfg(self, off, size=4, val=None):
        self.qt.cmd('outl 0xcf8 0x%x' % (0x80000000 | self.slot << 11 | (off & 0xfc)))
        port = 0xcfc + (off & 3)
        op = {1: 'b', 2: 'w', 4: 'l'}[size]
        if val is None:
            return int(self.qt.cmd('in%s 0x%x' % (op, port)), 16)
        self.qt.cmd('out%s 0x%x 0x%x' % (op, port, val))
        return None

    def caps(self):
        found, ptr = {}, self.cfg(0x34, 1)
        while ptr and len(found) < 48:
            found.setdefault(self.cfg(ptr, 1), ptr)
            ptr = self.cfg(ptr + 1, 1)
        return found

    def map(self, command=0x6):
        for bar, addr in ((0x10, self.bar0), (0x18, self.bar2)):
            self.cfg(bar, 4, addr & 0xffffffff)
            self.cfg(bar + 4, 4, addr >> 32)
        self.cfg(0x20, 4, self.bar4)
        self.cfg(0x04, 2, command)

    def msix_setup(self, vectors):
        msix = self.caps()[0x11]
        for v in range(vectors):
            entry = self.bar4 + 16 * v
            self.qt.wr(4, entry, self.msi + 4 * v)
            self.qt.wr(4, entry + 4, 0)
            self.qt.wr(4, entry + 8, 0x4f520000 | self.slot << 8 | v)
            self.qt.wr(4, entry + 12, 0)
        self.qt.memw(self.msi, bytes(4 * vectors))
        self.cfg(msix + 2, 2, 0x8000)

    def msi_seen(self, vector):
        return self.qt.rd(4, self.msi + 4 * vector) == (0x4f520000 | self.slot << 8 | vector)

    def msi_clear(self, vector):
        self.qt.wr(4, self.msi + 4 * vector, 0)

    def reg(self, off, val=None):
        if val is None:
            return self.qt.rd(4, self.bar0 + off)
        self.qt.wr(4, self.bar0 + off, val)
        return None

    def doorbell(self, page, off, qn, idx, arm=False):
        val = qn | (1 << 31 if arm else 0) | idx << 32
        self.qt.wr(8, self.bar2 + page * 4096 + off, val)

    def aq_base(self):
        return AQ + self.slot * 0x10000, ACQ + self.slot * 0x10000

    def enable(self, log_depth=4):
        aq, acq = self.aq_base()
        self.qt.memw(aq, bytes(4096))
        self.qt.memw(acq, bytes(4096))
        self.reg(REG_AQ_BASE, aq)
        self.reg(REG_AQ_BASE + 4, 0)
        self.reg(REG_ACQ_BASE, acq)
        self.reg(REG_ACQ_BASE + 4, 0)
        self.reg(REG_AQ_CFG, log_depth)
        self.reg(REG_CTRL, CTRL_ENABLE)
        self.log_depth, self.aq_pi = log_depth, 0

    def command(self, opcode, payload=b'', token=None):
        """Post one command; returns (status, syndrome, 20-byte output)."""
        aq, acq = self.aq_base()
        depth = 1 << self.log_depth
        slot = self.aq_pi % depth
        token = (self.aq_pi + 0x100) & 0xffff if token is None else token
        entry = struct.pack('<BBHI', opcode, 0, token, 0) + payload
        self.qt.memw(aq + 64 * slot, entry.ljust(64, b'\0'))
        self.aq_pi = (self.aq_pi + 1) & 0xffff
        self.reg(REG_AQ_DB, self.aq_pi)
        comp = self.qt.mem(acq + 32 * slot, 32)
        ctoken, status, _, syndrome = struct.unpack_from('<HBBI', comp)
        flags = struct.unpack_from('<I', comp, 28)[0]
        phase = not (((self.aq_pi - 1) >> self.log_depth) & 1)
        if ctoken != token or bool(flags & COMP_PHASE) != phase:
            return None, None, None
        return status, syndrome, comp[8:28]


def eth_one_frame(qt, a, b, how, settle):
    """Bring both ports up; a sends one frame to b; settle() waits for it."""
    for f in (a, b):
        status, _, _ = f.command(CMD_SET_PORT, struct.pack('<III6sBB', 1,
                                 SET_PORT_ADMIN, 0, bytes(6), 1, 0))
        tap('SET_PORT admin up (%02x.0)' % f.slot, status == 0, status)
    eq_a, eq_b = RINGS, RINGS + 0x1000
    tx_ring, rx_ring = RINGS + 0x2000, RINGS + 0x3000
    for ring in (eq_a, eq_b, tx_ring, rx_ring):
        qt.memw(ring, bytes(4096))
    status, _, out = a.command(CMD_CREATE_EQ, struct.pack('<QBBHI', eq_a, 4,
                               EQ_TYPE_COMP, 1, 0))
    eqn_a = struct.unpack_from('<I', out)[0] if status == 0 else 0
    status2, _, out = b.command(CMD_CREATE_EQ, struct.pack('<QBBHI', eq_b, 4,
                                EQ_TYPE_COMP, 1, 0))
    eqn_b = struct.unpack_from('<I', out)[0] if status2 == 0 else 0
    tap('CREATE_EQ on both', status == 0 and status2 == 0, (status, status2))
    status, _, out = a.command(CMD_CREATE_ETH_RING, struct.pack('<QBBHI', tx_ring,
                               4, ETH_RING_TX, 0, eqn_a))
    txq = struct.unpack_from('<I', out)[0] if status == 0 else 0
    status2, _, out = b.command(CMD_CREATE_ETH_RING, struct.pack('<QBBHI', rx_ring,
                                4, ETH_RING_RX, 0, eqn_b))
    rxq = struct.unpack_from('<I', out)[0] if status2 == 0 else 0
    tap('CREATE_ETH_RING TX on a, RX on b', status == 0 and status2 == 0,
        (status, status2))
    frame = (b'\xff' * 6 + bytes.fromhex('5254004f5201') + b'\x88\xb5' +
             bytes(range(100)))
    qt.memw(FRAMES, frame)
    qt.memw(FRAMES + 0x1000, bytes(2048))
    qt.memw(rx_ring, struct.pack('<QII', FRAMES + 0x1000, 2048, 0))
    b.doorbell(0, DB_ETH_PI, rxq, 1)
    b.doorbell(0, DB_ETH_ARM, rxq, 0, arm=True)
    b.doorbell(0, DB_EQ, eqn_b, 0, arm=True)
    b.msi_clear(1)
    qt.memw(tx_ring, struct.pack('<QII', FRAMES, len(frame), 0))
    a.doorbell(0, DB_ETH_PI, txq, 1)
    settle(lambda: struct.unpack_from('<I', qt.mem(rx_ring + 8, 4))[0] & DESC_DONE
           and b.msi_seen(1))
    tx_desc = struct.unpack_from('<I', qt.mem(tx_ring + 8, 4))[0]
    rx_desc = struct.unpack_from('<I', qt.mem(rx_ring + 8, 4))[0]
    tap('TX descriptor written back DONE', tx_desc == DESC_DONE | len(frame),
        hex(tx_desc))
    tap('RX descriptor DONE with the frame length (%s)' % how,
        rx_desc == DESC_DONE | len(frame), hex(rx_desc))
    tap('frame arrived intact', qt.mem(FRAMES + 0x1000, len(frame)) == frame)
    tap('RX completion raised b\'s vector 1', b.msi_seen(1))


def run(qemu):
    vectors, db_pages = 8, 64
    db_bar = 1 << (db_pages * 4096 - 1).bit_length()
    qt = QTest(qemu, [
        '-netdev', 'hubport,id=p0,hubid=0', '-netdev', 'hubport,id=p1,hubid=0',
        '-device', 'ordma,netdev=p0,addr=04.0,id=nic0,mac=52:54:00:4f:52:01,'
                   'serial=ORDTEST01,vectors=%d,db-pages=%d,speed=100000'
                   % (vectors, db_pages),
        '-device', 'ordma,netdev=p1,addr=05.0,id=nic1,mac=52:54:00:4f:52:02'])
    a = Function(qt, 4, 0xe0000000, db_bar)
    b = Function(qt, 5, 0xe4000000, 1 << 20)
    try:
        # ---- PCI function
        tap('vendor/device id', a.cfg(0) == DEVICE << 16 | VENDOR)
        tap('class and revision', a.cfg(8) == CLASS << 8 | REVISION)
        tap('no INTx pin', a.cfg(0x3d, 1) == 0)
        caps = a.caps()
        tap('PCIe capability', 0x10 in caps)
        tap('PCIe function level reset advertised',
            0x10 in caps and a.cfg(caps[0x10] + 4) & (1 << 28))
        tap('MSI-X capability', 0x11 in caps)
        if 0x11 in caps:
            tap('MSI-X table size = vectors',
                (a.cfg(caps[0x11] + 2, 2) & 0x7ff) + 1 == vectors)
            tap('MSI-X table and PBA in BAR4',
                a.cfg(caps[0x11] + 4) & 7 == 4 and a.cfg(caps[0x11] + 8) & 7 == 4)
        tap('BAR0 and BAR2 are 64-bit memory BARs',
            a.cfg(0x10) & 7 == 4 and a.cfg(0x18) & 7 == 4)
        a.cfg(0x18, 4, 0xffffffff)
        a.cfg(0x1c, 4, 0xffffffff)
        size = ((a.cfg(0x1c) << 32 | a.cfg(0x18)) & ~0xf) ^ ((1 << 64) - 1)
        tap('BAR2 size = db-pages rounded to a power of two', size + 1 == db_bar,
            hex(size + 1))
        a.map()
        b.map()

        # ---- registers
        tap('VERSION 1.0', a.reg(REG_VERSION) == 0x00010000, hex(a.reg(REG_VERSION)))
        tap('CAPS.NUM_VECTORS = vectors', (a.reg(REG_CAPS) >> 8) & 0xff == vectors)
        tap('DB_CAPS = db-pages, 4 KiB', a.reg(REG_DB_CAPS) == (db_pages | 12 << 16),
            hex(a.reg(REG_DB_CAPS)))
        a.reg(REG_SCRATCH, 0x5a5aa5a5)
        tap('SCRATCH reads back', a.reg(REG_SCRATCH) == 0x5a5aa5a5)
        tap('8-byte register read is refused (reads 0)',
            qt.rd(8, a.bar0 + REG_SCRATCH) == 0)
        tap('doorbell reads 0', qt.rd(8, a.bar2 + DB_EQ) == 0)

        # ---- admin queue, DMA and MSI-X
        a.msix_setup(vectors)
        b.msix_setup(8)
        a.enable()
        b.enable()
        tap('ENABLE -> READY', a.reg(REG_STATUS) == STATUS_READY, a.reg(REG_STATUS))
        status, _, out = a.command(CMD_QUERY_FW)
        tap('QUERY_FW completes OK with the phase bit', status == 0, status)
        tap('QUERY_FW reports major 1', out is not None and struct.unpack_from('<H', out)[0] == 1)
        tap('admin completion raises MSI-X vector 0', a.msi_seen(0))
        qt.memw(BUF, bytes(256))
        status, _, out = a.command(CMD_QUERY_DEVICE, struct.pack('<QII', BUF, 256, 0))
        caps_buf = qt.mem(BUF, 184)
        tap('QUERY_DEVICE DMA-writes the caps', status == 0 and
            struct.unpack_from('<I', caps_buf, 32)[0] == VENDOR, status)
        tap('serial property reaches the firmware',
            caps_buf[152:168].rstrip(b'\0') == b'ORDTEST01', caps_buf[152:168])
        tap('node GUID is the EUI-64 of the mac property',
            caps_buf[0:8] == bytes.fromhex('505400fffe4f5201'), caps_buf[0:8].hex())
        qt.memw(BUF, bytes(64))
        status, _, out = a.command(CMD_QUERY_PORT, struct.pack('<QII', BUF, 64, 1))
        port = qt.mem(BUF, 40)
        tap('speed property reaches the firmware',
            status == 0 and struct.unpack_from('<I', port, 24)[0] == 100000)
        tap('link is up', port[29] == 1, port.hex())

        # ---- doorbell size check and the health counter
        qt.wr(4, a.bar2 + DB_EQ, 0)
        status, _, out = a.command(CMD_HEALTH)
        tap('4-byte doorbell reaches the firmware and is counted',
            status == 0 and struct.unpack_from('<I', out, 12)[0] == 1,
            out.hex() if out else status)

        # ---- timer and clock: heartbeat every 100 ms of virtual time
        beat = a.reg(REG_HEARTBEAT)
        qt.step(1000000000)
        beats = a.reg(REG_HEARTBEAT) - beat
        tap('HEARTBEAT follows the virtual clock (10 per s)', 9 <= beats <= 11, beats)

        # ---- Ethernet: a sends one frame to b over the hub
        eth_one_frame(qt, a, b, 'over the hub', lambda done: qt.step(1))

        # ---- link change from the monitor
        qt.hmp('set_link nic1 off')
        qt.memw(BUF, bytes(64))
        b.command(CMD_QUERY_PORT, struct.pack('<QII', BUF, 64, 1))
        tap('set_link off reaches the firmware', qt.mem(BUF, 40)[29] == 0)
        qt.hmp('set_link nic1 on')
        b.command(CMD_QUERY_PORT, struct.pack('<QII', BUF, 64, 1))
        tap('set_link on reaches the firmware', qt.mem(BUF, 40)[29] == 1)

        # ---- Function Level Reset
        pcie = b.caps()[0x10]
        b.cfg(pcie + 8, 2, b.cfg(pcie + 8, 2) | 0x8000)
        b.map()
        tap('FLR resets the firmware (STATUS 0)', b.reg(REG_STATUS) == 0,
            b.reg(REG_STATUS))
        tap('VERSION reads after FLR',
            b.reg(REG_VERSION) == 0x00010000)

        # ---- bus mastering off: the command fetch must fail, not hang
        a.cfg(0x04, 2, 0x2)
        try:
            aq, _ = a.aq_base()
            qt.memw(aq + 64 * (a.aq_pi % 16), struct.pack('<BBHI', CMD_QUERY_FW, 0, 1, 0))
            a.reg(REG_AQ_DB, (a.aq_pi + 1) & 0xffff)
            tap('bus master off: DMA refused -> FATAL AQ_DMA',
                a.reg(REG_STATUS) & STATUS_FATAL and
                a.reg(REG_FATAL_CODE) == FATAL_AQ_DMA,
                (a.reg(REG_STATUS), a.reg(REG_FATAL_CODE)))
        except TimeoutError as err:
            tap('bus master off: DMA refused -> FATAL AQ_DMA', False, err)
            return
        a.cfg(0x04, 2, 0x6)
        a.reg(REG_CTRL, CTRL_RESET)
        tap('CTRL.RESET clears FATAL', a.reg(REG_STATUS) == 0, a.reg(REG_STATUS))
    except (TimeoutError, RuntimeError) as err:
        tap('device model answers', False, err)
    finally:
        qt.close()


def run_iommu(qemu):
    """DMA goes through the IOMMU: remapping on, no context -> DMA faults."""
    vtd, root_table = 0xfed90000, 0x700000
    qt = QTest(qemu, ['-device', 'intel-iommu', '-device', 'ordma,addr=04.0'])
    a = Function(qt, 4, 0xe0000000, 1 << 20)
    try:
        a.map()
        a.msix_setup(8)
        a.enable()
        status, _, _ = a.command(CMD_QUERY_FW)
        tap('intel-iommu present, remapping off: DMA passes', status == 0, status)
        qt.memw(root_table, bytes(4096))
        qt.wr(8, vtd + 0x20, root_table)       # RTADDR: no root entries
        qt.wr(4, vtd + 0x18, 1 << 30)          # GCMD.SRTP
        qt.wr(4, vtd + 0x18, 1 << 31)          # GCMD.TE
        aq, _ = a.aq_base()
        qt.memw(aq + 64 * (a.aq_pi % 16), struct.pack('<BBHI', CMD_QUERY_FW, 0, 1, 0))
        a.reg(REG_AQ_DB, (a.aq_pi + 1) & 0xffff)
        tap('remapping on, device not mapped: command fetch faults (FATAL AQ_DMA)',
            a.reg(REG_STATUS) & STATUS_FATAL and
            a.reg(REG_FATAL_CODE) == FATAL_AQ_DMA,
            (a.reg(REG_STATUS), a.reg(REG_FATAL_CODE)))
        tap('the IOMMU recorded the fault', qt.rd(4, vtd + 0x34) & 0x2)
    except (TimeoutError, RuntimeError) as err:
        tap('device model answers behind intel-iommu', False, err)
    finally:
        qt.close()


def free_udp_ports(count):
    socks = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(count)]
    for sock in socks:
        sock.bind(('127.0.0.1', 0))
    ports = [sock.getsockname()[1] for sock in socks]
    for sock in socks:
        sock.close()
    return ports


def udp_rx_queue(port):
    """Bytes waiting in the receive queue of the UDP socket on port."""
    with open('/proc/net/udp') as f:
        for line in f.readlines()[1:]:
            fields = line.split()
            if int(fields[1].split(':')[1], 16) == port:
                return int(fields[4].split(':')[1], 16)
    return None


def wait_for(cond):
    """Poll cond() until it holds or REPLY_TIMEOUT passes."""
    deadline = time.time() + REPLY_TIMEOUT
    while not cond():
        if time.time() > deadline:
            return False
        time.sleep(0.01)
    return True


def enabled_function(qt, slot=4, bar_base=0xe0000000):
    """Function <slot>.0, mapped, with 8 MSI-X vectors, enabled."""
    f = Function(qt, slot, bar_base, 1 << 20)
    f.map()
    f.msix_setup(8)
    f.enable()
    return f


def enabled_pair(qt):
    """Functions 04.0 and 05.0, mapped, with MSI-X, enabled."""
    return enabled_function(qt, 4, 0xe0000000), enabled_function(qt, 5, 0xe4000000)


def run_cable(qemu):
    """Two ports cabled by their own UDP sockets, served by engine threads."""
    pa, pb = free_udp_ports(2)
    cable = 'cable-local=127.0.0.1:%d,cable-peer=127.0.0.1:%d'
    log = tempfile.TemporaryFile(mode='w+')
    qt = QTest(qemu, [
        '-device', 'ordma,addr=04.0,id=nic0,mac=52:54:00:4f:52:01,' + cable % (pa, pb),
        '-device', 'ordma,addr=05.0,id=nic1,mac=52:54:00:4f:52:02,' + cable % (pb, pa)],
        stderr=log)
    try:
        a, b = enabled_pair(qt)
        eth_one_frame(qt, a, b, 'over the cable, engine thread', wait_for)

        # the cable's link state is the device's "link" property
        for up in (False, True):
            qt.hmp('qom-set /machine/peripheral/nic1 link %s' % str(up).lower())
            qt.memw(BUF, bytes(64))
            b.command(CMD_QUERY_PORT, struct.pack('<QII', BUF, 64, 1))
            tap('qom-set link %s reaches the firmware' % up,
                qt.mem(BUF, 40)[29] == int(up))

        # someone else's datagram to b's port is not taken as a frame
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as rogue:
            rogue.sendto(b'\xff' * 64, ('127.0.0.1', pb))

        # DMA reaches RAM only: an admin queue in the device's own BAR
        a.reg(REG_CTRL, CTRL_RESET)
        a.reg(REG_AQ_BASE, a.bar0 + 0x1000)
        a.reg(REG_AQ_BASE + 4, 0)
        a.reg(REG_ACQ_BASE, a.aq_base()[1])
        a.reg(REG_ACQ_BASE + 4, 0)
        a.reg(REG_AQ_CFG, 4)
        a.reg(REG_CTRL, CTRL_ENABLE)
        a.reg(REG_AQ_DB, 1)
        tap('DMA aimed at the device\'s own BAR is refused (FATAL AQ_DMA)',
            a.reg(REG_STATUS) & STATUS_FATAL and
            a.reg(REG_FATAL_CODE) == FATAL_AQ_DMA,
            (a.reg(REG_STATUS), a.reg(REG_FATAL_CODE)))
        # the exit report counts what the cable refused
        tap('the engine read the rogue datagram', wait_for(lambda: udp_rx_queue(pb) == 0))
        qt.hmp('quit')
        qt.proc.wait(timeout=REPLY_TIMEOUT)
        log.seek(0)
        report = [l for l in log.read().splitlines() if 'cable nic1:' in l]
        tap('cable report: 0 dropped by the host, 1 from others',
            report and ' 0 received datagrams dropped' in report[0] and
            '1 from others' in report[0], report)
    except (TimeoutError, RuntimeError, subprocess.TimeoutExpired) as err:
        tap('device model answers over its cable', False, err)
    finally:
        qt.close()
        log.close()


def run_cable_local(qemu):
    """Two ports cabled in process memory (cable-to), and one cabled to nothing."""
    qt = QTest(qemu, [
        '-device', 'ordma,addr=04.0,id=nic0,mac=52:54:00:4f:52:01,cable-to=nic1',
        '-device', 'ordma,addr=05.0,id=nic1,mac=52:54:00:4f:52:02,cable-to=nic0'])
    try:
        a, b = enabled_pair(qt)
        eth_one_frame(qt, a, b, 'over a cable in memory', wait_for)
    except (TimeoutError, RuntimeError) as err:
        tap('device model answers over a cable in memory', False, err)
    finally:
        qt.close()
    res = subprocess.run([qemu, '-machine', 'q35', '-display', 'none', '-nodefaults',
                          '-accel', 'qtest', '-qtest', 'null'] + DATADIRS +
                         ['-device', 'ordma,id=nic0,cable-to=nic9'],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True, timeout=REPLY_TIMEOUT)
    tap('cable-to a device that is not there: QEMU refuses to start',
        res.returncode != 0 and 'cable-to=nic9' in res.stderr, res.stderr.strip())


def run_cable_oversize(qemu):
    """The peer of the cable is this test: a datagram too long is counted."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as peer:
        peer.bind(('127.0.0.1', 0))
        (port,) = free_udp_ports(1)
        log = tempfile.TemporaryFile(mode='w+')
        qt = QTest(qemu, [
            '-device', 'ordma,addr=04.0,id=nic0,cable-local=127.0.0.1:%d,'
                       'cable-peer=127.0.0.1:%d' % (port, peer.getsockname()[1])],
            stderr=log)
        try:
            # longer than any frame the port takes (MTU 9000 + headers)
            peer.sendto(b'\xff' * 9500, ('127.0.0.1', port))
            tap('the engine read the oversized datagram',
                wait_for(lambda: udp_rx_queue(port) == 0))
            qt.hmp('quit')
            qt.proc.wait(timeout=REPLY_TIMEOUT)
            log.seek(0)
            report = [l for l in log.read().splitlines() if 'cable nic0:' in l]
            tap('cable report: 1 too long, 0 dropped by the host',
                report and '1 too long' in report[0] and
                ' 0 received datagrams dropped' in report[0], report)
        except (TimeoutError, RuntimeError, subprocess.TimeoutExpired) as err:
            tap('device model answers with a test peer on its cable', False, err)
        finally:
            qt.close()
            log.close()


def engine_thread_sched(pid):
    """The kernel priority of a process's engine thread (None: not found)."""
    for tid in os.listdir('/proc/%d/task' % pid):
        base = '/proc/%d/task/%s/' % (pid, tid)
        try:
            with open(base + 'comm') as f:
                if f.read().strip() != 'ordma-engine':
                    continue
            with open(base + 'sched') as f:
                fields = dict(l.split(':', 1) for l in f if ':' in l)
        except OSError:
            continue
        fields = {k.strip(): v.strip() for k, v in fields.items()}
        return fields.get('prio')
    return None


def run_engine_sched(qemu):
    """The engine thread's priority, and the scheduling properties' bounds."""
    pa, pb = free_udp_ports(2)
    cable = 'cable-local=127.0.0.1:%d,cable-peer=127.0.0.1:%d' % (pa, pb)
    qt = QTest(qemu, ['-name', 'qtest,debug-threads=on', '-device',
                      'ordma,addr=04.0,db-spin-us=5,' + cable])
    try:
        seen = []

        def sched():
            seen[:] = [engine_thread_sched(qt.proc.pid)]
            return seen[0] is not None
        wait_for(sched)
        # nice -10 (prio 110) needs CAP_SYS_NICE: the tests run as root
        tap('engine thread at nice -10', seen[0] == '110', seen[0])
    finally:
        qt.close()
    for bad, why in (('engine-nice=20', 'engine-nice must be'),
                     ('engine-nice=-21', 'engine-nice must be'),
                     ('db-spin-us=1001', 'db-spin-us must be')):
        res = subprocess.run([qemu, '-machine', 'q35', '-display', 'none', '-nodefaults',
                              '-accel', 'qtest', '-qtest', 'null'] + DATADIRS +
                             ['-device', 'ordma,' + bad],
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True, timeout=REPLY_TIMEOUT)
        tap('%s: QEMU refuses to start' % bad,
            res.returncode != 0 and why in res.stderr, res.stderr.strip())


class EthRx:
    """An RX ring of 64 descriptors on f with its completion EQ armed."""

    LOG = 6

    def __init__(self, f, ring=RINGS + 0xa000, eq=RINGS + 0xb000,
                 bufs=FRAMES + 0x40000):
        self.f, self.qt, self.ring, self.eq, self.bufs = f, f.qt, ring, eq, bufs
        self.qt.memw(ring, bytes(4096))
        self.qt.memw(eq, bytes(4096))
        status, _, out = f.command(CMD_CREATE_EQ, struct.pack('<QBBHI', eq, 4,
                                   EQ_TYPE_COMP, 1, 0))
        self.eqn = struct.unpack_from('<I', out)[0] if status == 0 else 0
        status2, _, out = f.command(CMD_CREATE_ETH_RING, struct.pack(
            '<QBBHI', ring, self.LOG, ETH_RING_RX, 0, self.eqn))
        self.rxq = struct.unpack_from('<I', out)[0] if status2 == 0 else 0
        self.pi = 0
        self.ok = status == 0 and status2 == 0 and port_up(f)

    def post(self):
        """Fills the ring with fresh buffers and arms the EQ."""
        depth = 1 << self.LOG
        for slot in range(depth):
            self.qt.memw(self.ring + 16 * slot, struct.pack(
                '<QII', self.bufs + slot * 0x800, 2048, 0))
        self.pi += depth
        self.f.doorbell(0, DB_ETH_PI, self.rxq, self.pi & 0xffff)
        self.f.doorbell(0, DB_ETH_ARM, self.rxq, 0, arm=True)
        self.f.doorbell(0, DB_EQ, self.eqn, 0, arm=True)

    def frame_in(self, frame):
        """True once some descriptor holds frame, completed without error."""
        for slot in range(1 << self.LOG):
            flags = struct.unpack_from('<I', self.qt.mem(self.ring + 16 * slot + 8, 4))[0]
            if (flags == DESC_DONE | len(frame) and
                    self.qt.mem(self.bufs + slot * 0x800, len(frame)) == frame):
                return True
        return False


def cabled_to(qemu, peer, extra=(), **kwargs):
    """QEMU with one ORDMA port (04.0) whose UDP cable ends at the socket
    peer (bound here); returns the QTest and the port's own UDP port."""
    peer.bind(('127.0.0.1', 0))
    (port,) = free_udp_ports(1)
    qt = QTest(qemu, list(extra) + [
        '-device', 'ordma,addr=04.0,id=nic0,mac=52:54:00:4f:52:02,'
                   'cable-local=127.0.0.1:%d,cable-peer=127.0.0.1:%d'
                   % (port, peer.getsockname()[1])], **kwargs)
    return qt, port


def run_engine_flood(qemu):
    """The cable's peer (this test) floods the port while the memory map
    changes under the engine thread: Bus Master Enable off and on, VT-d
    translation on (every DMA faults) and off.  QEMU stays up, the device
    works again after a reset, and QEMU quits while frames still arrive
    (the engine is joined with the BQL held: it must never wait for it)."""
    vtd, root_table = 0xfed90000, 0x700000
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as peer:
        log = tempfile.TemporaryFile(mode='w+')
        qt, port = cabled_to(qemu, peer, ['-device', 'intel-iommu'], stderr=log)
        stop = threading.Event()
        sent = [0]

        def flood():
            frame = eth_frame(7)
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
            a = enabled_function(qt)
            rx = EthRx(a)
            rx.post()
            tap('engine: RX ring and EQ up', rx.ok)
            flooder.start()
            qt.memw(root_table, bytes(4096))
            qt.wr(8, vtd + 0x20, root_table)
            qt.wr(4, vtd + 0x18, 1 << 30)          # GCMD.SRTP
            # The ring stops at its first failed write-back: make that
            # failure a translation the IOMMU refuses, then go on.
            qt.wr(4, vtd + 0x18, 1 << 31)          # translation on
            rx.post()
            tap('engine: the IOMMU recorded DMA faults',
                wait_for(lambda: qt.rd(4, vtd + 0x34) & 0x2))
            qt.wr(4, vtd + 0x18, 0)
            for _ in range(25):
                a.cfg(0x04, 2, 0x2)                # bus master off
                rx.post()
                a.cfg(0x04, 2, 0x6)
                qt.wr(4, vtd + 0x18, 1 << 31)      # translation on: DMA faults
                rx.post()
                qt.wr(4, vtd + 0x18, 0)            # and off
                rx.post()
            tap('engine: 75 memory map changes under a flood of %d frames, QEMU '
                'answers' % sent[0], a.reg(REG_VERSION) != 0xffffffff)
            # whatever the faults did, a reset brings the device back
            a.reg(REG_CTRL, CTRL_RESET)
            a.enable()
            status, _, _ = a.command(CMD_QUERY_FW)
            tap('engine: after a reset the admin queue works', status == 0, status)
            rx = EthRx(a)
            rx.post()
            tap('engine: and the flood reaches the RX ring again',
                rx.ok and wait_for(lambda: rx.frame_in(eth_frame(7))))
            qt.hmp('quit')
            try:
                rc = qt.proc.wait(timeout=REPLY_TIMEOUT)
            except subprocess.TimeoutExpired:
                rc = None
            log.seek(0)
            report = [l for l in log.read().splitlines() if 'cable nic0:' in l]
            tap('engine: quit while the peer floods: QEMU exits and reports the cable',
                rc == 0 and report, (rc, report))
        except (TimeoutError, RuntimeError) as err:
            tap('engine: device model answers under a flood', False, err)
        finally:
            stop.set()
            if flooder.is_alive():
                flooder.join()
            qt.close()
            log.close()


def run_msix_held(qemu):
    """An MSI-X message raised while Bus Master Enable is clear is held
    and sent as soon as it is set again; a function reset discards it.
    The EQ doorbell raises the vector without any DMA: ARM with entries
    the driver has not consumed interrupts at once."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as peer:
        qt, port = cabled_to(qemu, peer)
        try:
            a = enabled_function(qt)
            rx = EthRx(a)
            rx.post()
            peer.sendto(eth_frame(1), ('127.0.0.1', port))
            tap('msix-held: a frame lands and its EQ interrupts (vector 1)',
                rx.ok and wait_for(lambda: rx.frame_in(eth_frame(1))) and
                wait_for(lambda: a.msi_seen(1)))
            a.msi_clear(1)
            a.cfg(0x04, 2, 0x2)                    # bus master off
            a.doorbell(0, DB_EQ, rx.eqn, 0, arm=True)
            held = not a.msi_seen(1)
            a.cfg(0x04, 2, 0x6)                    # and on again
            tap('msix-held: raised with Bus Master Enable clear, the message '
                'waits for it and is sent when it is set', held and a.msi_seen(1),
                (held, a.msi_seen(1)))
            a.msi_clear(1)
            a.cfg(0x04, 2, 0x2)
            a.doorbell(0, DB_EQ, rx.eqn, 0, arm=True)
            pcie = a.caps()[0x10]
            a.cfg(pcie + 8, 2, a.cfg(pcie + 8, 2) | 0x8000)   # FLR
            a.map(command=0x2)
            a.msix_setup(8)
            a.cfg(0x04, 2, 0x6)
            tap('msix-held: a function level reset discards a held message',
                not a.msi_seen(1) and a.reg(REG_STATUS) == 0)
        except (TimeoutError, RuntimeError) as err:
            tap('msix-held: device model answers', False, err)
        finally:
            qt.close()


def pause_frame(quanta, src='5254004f5201'):
    """An IEEE 802.3x PAUSE frame asking for quanta * 512 bit times."""
    return (bytes.fromhex('0180c2000001' + src) + b'\x88\x08' +
            struct.pack('>HH', 1, quanta)).ljust(60, b'\0')


def recv_pause(sock, quanta):
    """Waits for a PAUSE frame of quanta on sock; returns it, or None."""
    deadline = time.time() + REPLY_TIMEOUT
    while time.time() < deadline:
        sock.settimeout(max(deadline - time.time(), 0.01))
        try:
            data = sock.recv(65536)
        except socket.timeout:
            break
        if data[12:14] == b'\x88\x08' and data[16:18] == struct.pack('>H', quanta):
            return data
    return None


def run_flow_control(qemu):
    """Link-level flow control on a UDP cable: a port whose socket backlog
    passes flow-control-xoff sends PAUSE frames to its peer (this test),
    and PAUSE 0 once it has read the backlog; the port's MAC takes the
    PAUSE frames it receives (pause_rx) without passing them on."""
    bad = subprocess.run(
        [qemu, '-machine', 'q35', '-display', 'none', '-nodefaults',
         '-accel', 'qtest'] + DATADIRS +
        ['-device', 'ordma,cable-local=127.0.0.1:1,cable-peer=127.0.0.1:2,'
         'flow-control-xoff=2'],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, text=True, timeout=REPLY_TIMEOUT)
    tap('flow control: flow-control-xoff=2 is refused',
        bad.returncode != 0 and 'flow-control-xoff must be' in bad.stderr,
        bad.stderr.strip()[-200:])
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as peer:
        peer.bind(('127.0.0.1', 0))
        (port,) = free_udp_ports(1)
        qt = QTest(qemu, [
            '-device', 'ordma,addr=04.0,id=nic0,mac=52:54:00:4f:52:02,'
                       'flow-control-xoff=4,'
                       'cable-local=127.0.0.1:%d,cable-peer=127.0.0.1:%d'
                       % (port, peer.getsockname()[1])])
        try:
            # not enabled yet: the firmware takes no frame, the socket fills
            frame = eth_frame(9).ljust(1500, b'\0')
            for _ in range(200):
                peer.sendto(frame, ('127.0.0.1', port))
            got = recv_pause(peer, 0xffff)
            tap('flow control: a backlog above xoff sends PAUSE 0xffff to the peer',
                got is not None and got[:6] == bytes.fromhex('0180c2000001') and
                got[6:12] == bytes.fromhex('5254004f5202') and
                got[14:16] == b'\x00\x01' and len(got) == 60, got)
            a = Function(qt, 4, 0xe0000000, 1 << 20)
            a.map()
            a.msix_setup(8)
            a.enable()
            tap('flow control: once the backlog is read, PAUSE 0 ends the pause',
                recv_pause(peer, 0) is not None)
            before = port_stats(a)
            port_up(a)
            for q in (100, 0):
                peer.sendto(pause_frame(q), ('127.0.0.1', port))
            tap('flow control: the MAC takes the PAUSE frames it receives',
                wait_for(lambda: (port_stats(a) or [0] * PORT_STATS_NUM)
                         [STAT_PAUSE_RX] == 2), before and port_stats(a))
            tap('flow control: and passes none to the Ethernet function',
                port_stats(a)[2] == 0, port_stats(a)[2])
        except (TimeoutError, RuntimeError) as err:
            tap('flow control: device model answers', False, err)
        finally:
            qt.close()


# ---------------------------------------------------------------- wire
# The cable's impairments (tools/qemu/ordma-wire.c): properties checked,
# faults counted, the same seed giving the same faults, corruption caught
# by the receiver's ICRC check.

def port_stats(f):
    """QUERY_STATS of f: the port counters, or None."""
    size = PORT_STATS_NUM * 8
    f.qt.memw(BUF, bytes(size))
    status, _, _ = f.command(CMD_QUERY_STATS, struct.pack('<QII', BUF, size, 1))
    if status != 0:
        return None
    return struct.unpack('<%dQ' % PORT_STATS_NUM, f.qt.mem(BUF, size))


def port_up(f):
    status, _, _ = f.command(CMD_SET_PORT, struct.pack('<III6sBB', 1,
                             SET_PORT_ADMIN, 0, bytes(6), 1, 0))
    return status == 0


class EthTx:
    """A TX ring of 64 descriptors on f, its frames at FRAMES."""

    LOG = 6

    def __init__(self, f, ring=RINGS + 0x8000, eq=RINGS + 0x9000):
        self.f, self.qt, self.ring, self.pi = f, f.qt, ring, 0
        self.qt.memw(ring, bytes(4096))
        self.qt.memw(eq, bytes(4096))
        status, _, out = f.command(CMD_CREATE_EQ, struct.pack('<QBBHI', eq, 4,
                                   EQ_TYPE_COMP, 1, 0))
        eqn = struct.unpack_from('<I', out)[0] if status == 0 else 0
        status2, _, out = f.command(CMD_CREATE_ETH_RING, struct.pack(
            '<QBBHI', ring, self.LOG, ETH_RING_TX, 0, eqn))
        self.txq = struct.unpack_from('<I', out)[0] if status2 == 0 else 0
        self.ok = status == 0 and status2 == 0 and port_up(f)

    def send(self, frames):
        """Posts frames with one doorbell; True once all are sent."""
        depth = 1 << self.LOG
        assert len(frames) <= depth
        for frame in frames:
            slot = self.pi % depth
            addr = FRAMES + slot * 0x800
            self.qt.memw(addr, frame)
            self.qt.memw(self.ring + 16 * slot,
                         struct.pack('<QII', addr, len(frame), 0))
            self.pi += 1
        self.f.doorbell(0, DB_ETH_PI, self.txq, self.pi & 0xffff)
        last = self.ring + 16 * ((self.pi - 1) % depth) + 8
        return wait_for(lambda: struct.unpack_from(
            '<I', self.qt.mem(last, 4))[0] & DESC_DONE)


def eth_frame(seq, src='5254004f5201'):
    """A frame that is not RoCE, numbered seq."""
    return (bytes.fromhex('5254004f5202' + src) + b'\x88\xb5' +
            struct.pack('>4sI', b'WIRE', seq)).ljust(60, b'\0')


def csum16(data):
    if len(data) % 2:
        data += b'\0'
    total = sum(struct.unpack('>%dH' % (len(data) // 2), data))
    while total >> 16:
        total = (total & 0xffff) + (total >> 16)
    return total


def roce_frame(dqpn, psn, payload, smac='5254004f5201', dmac='5254004f5202',
               opcode=0x04, ackreq=False):
    """An RC packet (SEND_ONLY unless opcode says otherwise; payload
    starts with its extension headers) over IPv4 192.0.2.1 -> 192.0.2.2,
    ICRC and UDP checksum as the firmware seals them (the UDP checksum
    computed).  payload must be a multiple of 4 bytes (no pad)."""
    src, dst = bytes([192, 0, 2, 1]), bytes([192, 0, 2, 2])
    bth = struct.pack('>BBHII', opcode, 0, 0xffff, dqpn,
                      psn | (1 << 31 if ackreq else 0))
    udp_len = 8 + len(bth) + len(payload) + 4
    ip = bytearray(struct.pack('>BBHHHBBH4s4s', 0x45, 0, 20 + udp_len, 0, 0x4000,
                               64, 17, 0, src, dst))
    ip[10:12] = struct.pack('>H', 0xffff - csum16(bytes(ip)))
    udp = bytearray(struct.pack('>HHHH', 0xc000, 4791, udp_len, 0))
    masked_ip = bytearray(ip)
    masked_ip[1], masked_ip[8], masked_ip[10:12] = 0xff, 0xff, b'\xff\xff'
    masked_bth = bytearray(bth)
    masked_bth[4] = 0xff
    icrc = zlib.crc32(b'\xff' * 8 + bytes(masked_ip) + bytes(udp[:6]) +
                      b'\xff\xff' + bytes(masked_bth) + payload)
    seg = bytes(udp) + bth + payload + struct.pack('<I', icrc)
    pseudo = src + dst + struct.pack('>BBH', 0, 17, udp_len)
    udp_csum = 0xffff - csum16(pseudo + seg) or 0xffff
    seg = seg[:6] + struct.pack('>H', udp_csum) + seg[8:]
    return bytes.fromhex(dmac + smac) + b'\x08\x00' + bytes(ip) + seg


def roce_checks(frame):
    """(UDP checksum valid, ICRC valid) of a frame made by roce_frame."""
    ip, seg = frame[14:34], frame[34:]
    pseudo = ip[12:20] + struct.pack('>BBH', 0, 17, len(seg))
    udp_ok = csum16(pseudo + seg) == 0xffff
    masked_ip = bytearray(ip)
    masked_ip[1], masked_ip[8], masked_ip[10:12] = 0xff, 0xff, b'\xff\xff'
    masked_bth = bytearray(seg[8:20])
    masked_bth[4] = 0xff
    icrc = zlib.crc32(b'\xff' * 8 + bytes(masked_ip) + seg[:6] + b'\xff\xff' +
                      bytes(masked_bth) + seg[20:-4])
    return udp_ok, struct.pack('<I', icrc) == seg[-4:]


def injected(qt, dev):
    """The wire-injected-* counters of dev, by fault name."""
    return {f: int(qt.qom_get(dev, 'wire-injected-' + f) or -1)
            for f in WIRE_FAULTS}


def run_wire_props(qemu):
    """Impairment settings that are not valid stop QEMU with a message."""
    bad = (('wire-loss-ppm=1000001', 'must be 0..1000000'),
           ('wire-corrupt-ppm=-1', "expects uint32_t"),
           ('wire-dup-ppm=1%', 'expects integer'),
           ('wire-delay-us=1000001', 'must be 0..1000000'),
           ('wire-seed=x', 'expects integer'))
    for prop, why in bad:
        res = subprocess.run([qemu, '-machine', 'q35', '-display', 'none',
                              '-nodefaults', '-accel', 'qtest', '-qtest', 'null'] +
                             DATADIRS + ['-device', 'ordma,id=a,cable-to=b,' + prop,
                                         '-device', 'ordma,id=b,cable-to=a'],
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True, timeout=REPLY_TIMEOUT)
        tap('wire: %s refused at start' % prop,
            res.returncode != 0 and why in res.stderr, res.stderr.strip())
    res = subprocess.run([qemu, '-machine', 'q35', '-display', 'none', '-nodefaults',
                          '-accel', 'qtest', '-qtest', 'null'] + DATADIRS +
                         ['-netdev', 'hubport,id=p0,hubid=0',
                          '-device', 'ordma,netdev=p0,wire-loss-ppm=1'],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True, timeout=REPLY_TIMEOUT)
    tap('wire: impairments on a netdev port refused',
        res.returncode != 0 and 'own cable' in res.stderr, res.stderr.strip())


def recv_frames(peer, count):
    """count datagrams from the peer socket (REPLY_TIMEOUT bound), or fewer."""
    got, deadline = [], time.time() + REPLY_TIMEOUT
    while len(got) < count and time.time() < deadline:
        ready, _, _ = select.select([peer], [], [], 0.2)
        if ready:
            got.append(peer.recv(65536))
    return got


def seqs(frames):
    return [struct.unpack_from('>I', f, 18)[0] if f[14:18] == b'WIRE' else -1
            for f in frames]


def run_wire_udp(qemu):
    """nic0's UDP cable goes to this test: what the wire did, frame by frame."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as peer:
        peer.bind(('127.0.0.1', 0))
        (port,) = free_udp_ports(1)
        log = tempfile.TemporaryFile(mode='w+')
        qt = QTest(qemu, [
            '-device', 'ordma,addr=04.0,id=nic0,mac=52:54:00:4f:52:01,'
                       'cable-local=127.0.0.1:%d,cable-peer=127.0.0.1:%d,'
                       'wire-loss-ppm=1000000' % (port, peer.getsockname()[1])],
            stderr=log)
        try:
            a = Function(qt, 4, 0xe0000000, 1 << 20)
            a.map()
            a.msix_setup(8)
            a.enable()
            tx = EthTx(a)
            tap('wire: TX ring up', tx.ok)

            # ---- loss=100%: everything lost, and counted
            sent = tx.send([eth_frame(i) for i in range(20)])
            n = injected(qt, 'nic0')
            st = port_stats(a)
            tap('wire: loss 100%: 20 frames sent, 20 counted lost',
                sent and n['loss'] == 20, n)
            tap('wire: QUERY_STATS wire_fault_loss = 20 (the guest sees it)',
                st and st[STAT_WIRE_FAULT] == 20 and
                not any(st[STAT_WIRE_FAULT + 1:STAT_WIRE_FAULT + 5]),
                st and st[STAT_WIRE_FAULT:])
            # ---- run time: qom-set, checked
            out = qt.qom_set('nic0', 'wire-loss-ppm', 1000001)
            tap('wire: qom-set of a rate above 10^6 refused with a message',
                'must be 0..1000000' in out and
                qt.qom_get('nic0', 'wire-loss-ppm') == '1000000', out)
            out = qt.qom_set('nic0', 'wire-loss-ppm', 0)
            tap('wire: qom-set wire-loss-ppm 0 at run time', out == '', out)
            tx.send([eth_frame(1000)])
            got = recv_frames(peer, 1)
            tap('wire: with loss 0 the next frame arrives, none of the lost ones',
                seqs(got) == [1000], seqs(got))

            # ---- the same seed, the same faults
            rates = {'wire-loss-ppm': 150000, 'wire-dup-ppm': 150000,
                     'wire-reorder-ppm': 250000}
            for k, v in rates.items():
                qt.qom_set('nic0', k, v)
            patterns = []
            for seed in (7, 7, 8):
                before = injected(qt, 'nic0')
                qt.qom_set('nic0', 'wire-seed', seed)
                tx.send([eth_frame(i) for i in range(48)])
                after = injected(qt, 'nic0')
                d = {f: after[f] - before[f] for f in WIRE_FAULTS}
                got = recv_frames(peer, 48 - d['loss'] + d['dup'])
                patterns.append((seqs(got), d))
            p7, p7b, p8 = patterns
            tap('wire: same seed, same frames: the same faults on the same frames',
                p7 == p7b, patterns[:2])
            print("# seed 7: %s" % (p7,))
            s7 = p7[0]
            tap('wire: the pattern has losses, duplicates and reordering',
                p7[1]['loss'] and p7[1]['dup'] and p7[1]['reorder'] and
                len(set(s7)) < 48 and len(set(s7)) < len(s7) and s7 != sorted(s7),
                p7)
            tap('wire: received = sent - lost + duplicated',
                len(s7) == 48 - p7[1]['loss'] + p7[1]['dup'], p7[1])
            tap('wire: another seed, other faults', p8[0] != s7, p8)
            for k in rates:
                qt.qom_set('nic0', k, 0)

            # ---- corruption: RoCEv2 frames only, caught by the ICRC alone
            qt.qom_set('nic0', 'wire-corrupt-ppm', 1000000)
            clean = roce_frame(0x123, 5, bytes(range(64)))
            tap('wire: test frame has a valid UDP checksum and ICRC',
                roce_checks(clean) == (True, True))
            tx.send([eth_frame(2000), clean])
            got = recv_frames(peer, 2)
            ok = len(got) == 2
            tap('wire: corrupt 100%: a frame that is not RoCE passes unchanged',
                ok and got[0] == eth_frame(2000))
            diff = [i for i in range(len(clean))
                    if ok and len(got[1]) == len(clean) and got[1][i] != clean[i]]
            flipped = ok and len(diff) >= 1 and bin(
                got[1][diff[-1]] ^ clean[diff[-1]]).count('1') == 1
            tap('wire: a RoCEv2 frame keeps its length, one bit after the BTH '
                'flipped (UDP checksum brought up to date)',
                flipped and diff[-1] >= 14 + 20 + 8 + 12 and
                set(diff) - {diff[-1]} <= {40, 41}, diff)
            tap('wire: UDP checksum still valid, ICRC not',
                ok and roce_checks(got[1]) == (True, False),
                ok and roce_checks(got[1]))
            qt.qom_set('nic0', 'wire-corrupt-ppm', 0)

            # ---- delay: a frame waits, and is counted
            qt.qom_set('nic0', 'wire-delay-us', 100000)
            t0 = time.time()
            tx.send([eth_frame(3000)])
            got = recv_frames(peer, 1)
            waited = time.time() - t0
            tap('wire: delay 100 ms: the frame arrives after >= 100 ms',
                seqs(got) == [3000] and waited >= 0.1, waited)
            n = injected(qt, 'nic0')
            st = port_stats(a)
            tap('wire: counters: injected = QUERY_STATS wire_fault[]',
                st and list(st[STAT_WIRE_FAULT:STAT_WIRE_FAULT + 5]) ==
                [n[f] for f in WIRE_FAULTS] and n['delay'] == 1 and
                n['corrupt'] == 1, (n, st and st[STAT_WIRE_FAULT:]))
            qt.hmp('quit')
            qt.proc.wait(timeout=REPLY_TIMEOUT)
            log.seek(0)
            report = [l for l in log.read().splitlines() if 'wire faults' in l]
            tap('wire: exit report counts the faults',
                report and ('%d loss' % n['loss']) in report[0] and
                '1 delay' in report[0], report)
        except (TimeoutError, RuntimeError, subprocess.TimeoutExpired) as err:
            tap('wire: device model answers with impairments on its cable',
                False, err)
        finally:
            qt.close()
            log.close()


def run_wire_icrc(qemu):
    """Over a cable in memory: corrupted frames fail the receiver's ICRC."""
    qt = QTest(qemu, [
        '-device', 'ordma,addr=04.0,id=nic0,mac=52:54:00:4f:52:01,cable-to=nic1',
        '-device', 'ordma,addr=05.0,id=nic1,mac=52:54:00:4f:52:02,cable-to=nic0'])
    try:
        a, b = enabled_pair(qt)
        tx = EthTx(a)
        gid = bytes(10) + b'\xff\xff' + bytes([192, 0, 2, 2])
        status, _, _ = b.command(CMD_ADD_GID, struct.pack(
            '<IBBH16s6sH', 0, GID_TYPE_ROCE_V2, 0, VLAN_NONE, gid,
            bytes.fromhex('5254004f5202'), 0))
        tap('wire icrc: b has GID 192.0.2.2 and its port up',
            tx.ok and status == 0 and port_up(b), status)
        tx.send([roce_frame(0x123, 1, bytes(64))])
        st = None

        def b_saw(n):
            nonlocal st
            st = port_stats(b)
            return st and st[STAT_ROCE_RX_FRAMES] == n

        tap('wire icrc: a clean frame reaches b\'s RoCE engine, ICRC good '
            '(dropped: no such QP)',
            wait_for(lambda: b_saw(1)) and st[STAT_ROCE_RX_DROP] == 1 and
            st[STAT_RX_DROP_REASON + 1] == 1 and
            st[STAT_PARSE_DROP + PARSE_ICRC] == 0, st and st[:40])
        out = qt.qom_set('nic0', 'wire-corrupt-ppm', 1000000)
        tap('wire icrc: qom-set wire-corrupt-ppm on a cable in memory', out == '', out)
        tx.send([roce_frame(0x123, 2 + i, bytes(range(64))) for i in range(8)])
        tap('wire icrc: 8 corrupted frames: b counts 8 ICRC drops, no UDP '
            'checksum drop',
            wait_for(lambda: b_saw(9)) and
            st[STAT_PARSE_DROP + PARSE_ICRC] == 8 and
            st[STAT_PARSE_DROP + PARSE_UDP_CHECKSUM] == 0,
            st and st[STAT_PARSE_DROP:STAT_PARSE_DROP + 22])
        sa = port_stats(a)
        tap('wire icrc: a counts 8 corrupted (QUERY_STATS and wire-injected-corrupt)',
            sa and sa[STAT_WIRE_FAULT + 3] == 8 and
            qt.qom_get('nic0', 'wire-injected-corrupt') == '8',
            sa and sa[STAT_WIRE_FAULT:])
        out = qt.qom_set('nic1', 'wire-corrupt-ppm', 0)
        tap('wire icrc: the other direction is not impaired',
            qt.qom_get('nic1', 'wire-injected-corrupt') == '0')
    except (TimeoutError, RuntimeError) as err:
        tap('wire icrc: device model answers over a cable in memory', False, err)
    finally:
        qt.close()


# ---------------------------------------------------------------- capture
# The port's capture (tools/qemu/ordma-pcap.c): a pcapng file of what the
# port sends and receives, each frame the wire impaired marked, checked
# frame by frame against what the test's UDP peer sent and received, the
# port's counters, tshark and the ICRC checker built from the firmware's
# own ICRC code (tools/qemu/tests/pcap-icrc.c).

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PCAP_ICRC = os.path.join(REPO, 'build', 'qemu-unit', 'pcap-icrc')


def pcapng_read(path, qt=None, dev='nic0'):
    """The blocks of a little-endian pcapng file: a list of dicts (type
    'idb': snaplen, tsresol, name; 'epb': ifid, ts, caplen, origlen,
    data, dir (1 in, 2 out), comment).  With qt, dev's capture is
    written out first (reading pcap-frames does that)."""
    if qt:
        qt.qom_get(dev, 'pcap-frames')
    with open(path, 'rb') as f:
        buf = f.read()
    out, off = [], 0
    while off < len(buf):
        btype, size = struct.unpack_from('<II', buf, off)
        if size < 12 or off + size > len(buf) or \
                struct.unpack_from('<I', buf, off + size - 4)[0] != size:
            raise ValueError('bad block at %d' % off)
        body = buf[off + 8:off + size - 4]
        blk = {'type': {0x0a0d0d0a: 'shb', 1: 'idb', 6: 'epb'}.get(btype, btype)}
        if blk['type'] == 'shb':
            opts = body[16:]
        elif blk['type'] == 'idb':
            blk['linktype'], _, blk['snaplen'] = struct.unpack_from('<HHI', body)
            blk['tsresol'] = 6
            opts = body[8:]
        elif blk['type'] == 'epb':
            ifid, hi, lo, cap, orig = struct.unpack_from('<5I', body)
            blk.update(ifid=ifid, ts=hi << 32 | lo, caplen=cap, origlen=orig,
                       data=body[20:20 + cap], comment='', dir=0)
            opts = body[20 + (cap + 3) // 4 * 4:]
        else:
            opts = b''
        while len(opts) >= 4:
            code, length = struct.unpack_from('<HH', opts)
            val = opts[4:4 + length]
            if code == 0:
                break
            if code == 1:
                blk['comment'] = val.decode()
            elif blk['type'] == 'idb' and code == 2:
                blk['name'] = val.decode()
            elif blk['type'] == 'idb' and code == 9:
                blk['tsresol'] = val[0]
            elif blk['type'] == 'epb' and code == 2:
                blk['dir'] = struct.unpack('<I', val)[0] & 3
            opts = opts[4 + (length + 3) // 4 * 4:]
        out.append(blk)
        off += size
    return out


def pcap_frames(path, qt=None, dev='nic0'):
    """(direction 'in'/'out', comment, data, origlen) of every frame."""
    return [({1: 'in', 2: 'out'}.get(b['dir'], '?'), b['comment'], b['data'],
             b['origlen']) for b in pcapng_read(path, qt, dev)
            if b['type'] == 'epb']


def tshark_check(path):
    """(frames tshark read, malformed ones, exit status), or None without
    tshark."""
    try:
        res = subprocess.run(['tshark', '-n', '-r', path, '-T', 'fields',
                              '-e', 'frame.number', '-e', '_ws.malformed'],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, timeout=60)
    except FileNotFoundError:
        return None
    lines = [l.split('\t') for l in res.stdout.splitlines() if l]
    return len(lines), sum(1 for l in lines if len(l) > 1 and l[1]), \
        res.returncode


def pcap_icrc(path):
    """(exit status, last line) of pcap-icrc on path; built if missing."""
    if not os.access(PCAP_ICRC, os.X_OK):
        subprocess.run(['make', '-s', '-C', REPO, PCAP_ICRC],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if not os.access(PCAP_ICRC, os.X_OK):
        return None, 'pcap-icrc could not be built'
    res = subprocess.run([PCAP_ICRC, path], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, timeout=60)
    lines = res.stdout.splitlines()
    return res.returncode, lines[-1] if lines else ''


def run_pcap(qemu):
    """nic0's UDP cable goes to this test, nic0 captures to a file."""
    tmp = tempfile.mkdtemp(prefix='qtest-ordma-pcap.')
    cap1, cap2 = os.path.join(tmp, 'one.pcapng'), os.path.join(tmp, 'two.pcapng')
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as peer:
        qt, port = cabled_to(qemu, peer, ['-global', 'ordma.pcap=' + cap1])
        try:
            a = Function(qt, 4, 0xe0000000, 1 << 20)
            a.map()
            a.msix_setup(8)
            a.enable()
            tx, rx = EthTx(a), EthRx(a)
            rx.post()
            tap('pcap: rings up, pcap= names the file',
                tx.ok and rx.ok and qt.qom_get('nic0', 'pcap') == '"%s"' % cap1,
                qt.qom_get('nic0', 'pcap'))

            # ---- what the port sends and receives, in order, as it was
            inbound = [eth_frame(100 + i, src='5254004f5209') for i in range(5)]
            for frame in inbound:
                peer.sendto(frame, ('127.0.0.1', port))
            got_in = wait_for(lambda: rx.frame_in(inbound[-1]))
            outbound = [eth_frame(i) for i in range(6)]
            tx.send(outbound)
            got = recv_frames(peer, 6)
            frames = pcap_frames(cap1, qt)
            tap('pcap: 5 frames received, 6 sent: the file holds the 11',
                got_in and got == outbound and len(frames) == 11 and
                qt.qom_get('nic0', 'pcap-frames') == '11',
                (got_in, len(got), len(frames), qt.qom_get('nic0', 'pcap-frames')))
            tap('pcap: directions and bytes as on the cable, no comments',
                [f[2] for f in frames if f[0] == 'in'] == inbound and
                [f[2] for f in frames if f[0] == 'out'] == outbound and
                not any(f[1] for f in frames), [f[:2] for f in frames])
            blocks = pcapng_read(cap1, qt)
            idb = [b for b in blocks if b['type'] == 'idb']
            tap('pcap: one Ethernet interface named nic0, ns timestamps, no '
                'snap length', blocks[0]['type'] == 'shb' and len(idb) == 1 and
                idb[0]['linktype'] == 1 and idb[0].get('name') == 'nic0' and
                idb[0]['tsresol'] == 9 and idb[0]['snaplen'] == 0, idb)
            ts = [b['ts'] for b in blocks if b['type'] == 'epb']
            tap('pcap: timestamps are wall clock ns, in order',
                ts == sorted(ts) and abs(ts[-1] / 1e9 - time.time()) < 60,
                ts[-1] / 1e9 - time.time())
            st = port_stats(a)
            tap('pcap: frames out = the port\'s tx_frames, in = rx_frames',
                st and st[0] == 6 and st[2] == 5, st and st[:4])

            # ---- each impairment, marked on the frame it befell
            def burst(props, frames, expect):
                for k, v in props.items():
                    qt.qom_set('nic0', k, v)
                before = len(pcap_frames(cap1, qt))
                tx.send(frames)
                got = recv_frames(peer, expect)
                for k in props:
                    qt.qom_set('nic0', k, 0)
                return got, pcap_frames(cap1, qt)[before:]

            got, new = burst({'wire-loss-ppm': 1000000},
                             [eth_frame(200 + i) for i in range(3)], 0)
            tap('pcap: loss: the 3 lost frames are in the file, marked "loss"',
                not got and [(f[0], f[1]) for f in new] == [('out', 'loss')] * 3 and
                seqs([f[2] for f in new]) == [200, 201, 202], new)
            got, new = burst({'wire-dup-ppm': 1000000},
                             [eth_frame(300), eth_frame(301)], 4)
            tap('pcap: dup: both copies in the file, the second marked "dup"',
                seqs(got) == [300, 300, 301, 301] and
                [(seqs([f[2]])[0], f[1]) for f in new] ==
                [(300, ''), (300, 'dup'), (301, ''), (301, 'dup')], new)
            got, new = burst({'wire-reorder-ppm': 1000000},
                             [eth_frame(400), eth_frame(401), eth_frame(402)], 3)
            tap('pcap: reorder: frames in the order they left, the overtaken '
                'one marked "reorder", the last "late 200 us"',
                seqs(got) == [401, 400, 402] and
                [(seqs([f[2]])[0], f[1]) for f in new] ==
                [(401, ''), (400, 'reorder'), (402, 'late 200 us')], new)
            got, new = burst({'wire-delay-us': 20000}, [eth_frame(500)], 1)
            tap('pcap: delay: marked "delay 20000 us"',
                seqs(got) == [500] and [f[1] for f in new] == ['delay 20000 us'],
                new)
            tx.send([roce_frame(0x123, 6, bytes(range(64)))])
            recv_frames(peer, 1)
            clean = roce_frame(0x123, 7, bytes(range(64)))
            got, new = burst({'wire-corrupt-ppm': 1000000}, [clean], 1)
            m = re.match(r'corrupt bit (\d+)$', new[0][1]) if len(new) == 1 else None
            bit = int(m.group(1)) if m else -1
            ok = m and len(got) == 1 and new[0][2] == got[0]
            tap('pcap: corrupt: the frame as it left, marked "corrupt bit N"; '
                'bit N is the one flipped',
                ok and got[0][bit // 8] ^ clean[bit // 8] == 1 << (bit % 8) and
                bit >= 8 * (14 + 20 + 8 + 12), (new, bit))
            frames = pcap_frames(cap1, qt)
            marks = [f[1] for f in frames]
            n = injected(qt, 'nic0')
            st = port_stats(a)
            sent_frames = [f for f in frames if f[0] == 'out' and f[1] != 'loss']
            tap('pcap: marks = wire-injected-* counters; frames out = tx_frames '
                '+ dup - loss',
                marks.count('loss') == n['loss'] == 3 and
                marks.count('dup') == n['dup'] == 2 and
                marks.count('reorder') == n['reorder'] == 1 and
                sum(1 for c in marks if c.startswith('delay')) == n['delay'] == 1 and
                sum(1 for c in marks if c.startswith('corrupt')) == n['corrupt'] == 1 and
                st and len(sent_frames) == st[0] + n['dup'] - n['loss'],
                (n, st and st[0], len(sent_frames)))

            # ---- a marker: no direction, a comment, not counted as a frame
            nframes = qt.qom_get('nic0', 'pcap-frames')
            out = qt.qom_set('nic0', 'pcap-mark', 'selftest_x')
            blocks = pcapng_read(cap1, qt)
            last = blocks[-1]
            tap('pcap: pcap-mark writes a marker frame with no direction, '
                'commented "mark: selftest_x"',
                out == '' and last['type'] == 'epb' and last['dir'] == 0 and
                last['comment'] == 'mark: selftest_x' and
                last['data'][12:24] == b'\x88\xb5selftest_x' and
                qt.qom_get('nic0', 'pcap-frames') == nframes, (out, last))
            frames = pcap_frames(cap1, qt)

            # ---- the file reads back in tshark; the ICRC checker agrees
            ts = tshark_check(cap1)
            tap('pcap: tshark reads every frame, none malformed',
                ts is None or (ts[0] == len(frames) and ts[1] == 0 and ts[2] == 0),
                ts if ts is not None else 'no tshark')
            rc, line = pcap_icrc(cap1)
            tap('pcap: pcap-icrc: of 2 RoCEv2 frames the one marked corrupt has '
                'a bad ICRC, the other a good one; it counts the marks',
                rc == 0 and 'RoCEv2 out 2: ICRC 1 good, 1 bad, 0 bad not '
                'marked corrupt, 0 marked corrupt but good' in line and
                line.endswith('marks: 3 loss, 1 reorder, 2 dup, 1 corrupt, '
                              '1 delay'), (rc, line))

            # ---- run time: snap length, another file, none
            out = qt.qom_set('nic0', 'pcap-snaplen', 20)
            tx.send([eth_frame(600)])
            recv_frames(peer, 1)
            blocks = pcapng_read(cap1, qt)
            idb = [b for b in blocks if b['type'] == 'idb']
            last = blocks[-1]
            tap('pcap: qom-set pcap-snaplen 20: a new interface with snaplen 20, '
                'the next frame cut to 20 bytes, its length kept',
                out == '' and len(idb) == 2 and idb[1]['snaplen'] == 20 and
                last['type'] == 'epb' and last['ifid'] == 1 and
                last['caplen'] == 20 and last['origlen'] == 60 and
                last['data'] == eth_frame(600)[:20], (out, idb, last))
            qt.qom_set('nic0', 'pcap-snaplen', 0)
            size1 = os.path.getsize(cap1)
            out = qt.qom_set('nic0', 'pcap', os.path.join(tmp, 'no', 'such', 'dir'))
            tap('pcap: a file that cannot be created is refused; the capture '
                'goes on', 'Could not create' in out and
                qt.qom_get('nic0', 'pcap') == '"%s"' % cap1 and
                os.path.getsize(cap1) == size1, out)
            out = qt.qom_set('nic0', 'pcap', cap2)
            tx.send([eth_frame(700), eth_frame(701)])
            recv_frames(peer, 2)
            tap('pcap: qom-set pcap to another file: the first is closed, the '
                'second gets the next frames',
                out == '' and os.path.getsize(cap1) == size1 and
                [seqs([f[2]])[0] for f in pcap_frames(cap2, qt)] == [700, 701] and
                qt.qom_get('nic0', 'pcap-frames') == '2', out)
            out = qt.hmp_reply('qom-set -j /machine/peripheral/nic0 pcap ""')
            size2 = os.path.getsize(cap2)
            tx.send([eth_frame(800)])
            recv_frames(peer, 1)
            tap('pcap: qom-set pcap "": capture off',
                out == '' and qt.qom_get('nic0', 'pcap') == '""' and
                os.path.getsize(cap2) == size2 and
                qt.qom_get('nic0', 'pcap-frames') == '0',
                (out, qt.qom_get('nic0', 'pcap')))
        except (TimeoutError, RuntimeError, ValueError, subprocess.TimeoutExpired) as err:
            tap('pcap: device model captures its port', False, err)
        finally:
            qt.close()
            for f in os.listdir(tmp):
                os.unlink(os.path.join(tmp, f))
            os.rmdir(tmp)


def run_pcap_local(qemu):
    """Two ports cabled in memory, each capturing: what a sends is what b
    receives; PAUSE frames are captured too."""
    tmp = tempfile.mkdtemp(prefix='qtest-ordma-pcap.')
    ca, cb = os.path.join(tmp, 'a.pcapng'), os.path.join(tmp, 'b.pcapng')
    qt = QTest(qemu, [
        '-device', 'ordma,addr=04.0,id=nic0,mac=52:54:00:4f:52:01,cable-to=nic1,'
                   'pcap=' + ca,
        '-device', 'ordma,addr=05.0,id=nic1,mac=52:54:00:4f:52:02,cable-to=nic0,'
                   'pcap=' + cb])
    try:
        a, b = enabled_pair(qt)
        tx, rx = EthTx(a), EthRx(b)
        rx.post()
        frames = [eth_frame(i) for i in range(8)]
        tx.send(frames)
        ok = wait_for(lambda: rx.frame_in(frames[-1]))
        t0 = time.time()
        tap('pcap local: the buffered frames reach the file on their own '
            '(flush timer, 100 ms)',
            wait_for(lambda: len(pcap_frames(ca)) == 8 and len(pcap_frames(cb)) == 8),
            time.time() - t0)
        fa, fb = pcap_frames(ca, qt, 'nic0'), pcap_frames(cb, qt, 'nic1')
        tap('pcap local: a\'s file: 8 out; b\'s file: the same 8 in',
            ok and [(f[0], f[2]) for f in fa] == [('out', x) for x in frames] and
            [(f[0], f[2]) for f in fb] == [('in', x) for x in frames],
            ([f[:2] for f in fa], [f[:2] for f in fb]))
        st = port_stats(b)
        tap('pcap local: b\'s rx_frames = frames in its file',
            st and st[2] == len(fb) and
            qt.qom_get('nic1', 'pcap-frames') == str(len(fb)), st and st[:4])
        more = [eth_frame(100 + i) for i in range(4)]
        rx.post()
        tx.send(more)
        qt.hmp('quit')
        qt.proc.wait(timeout=REPLY_TIMEOUT)
        fa = pcap_frames(ca)
        tap('pcap local: QEMU quits: what was buffered is in the file',
            [f[2] for f in fa] == frames + more, len(fa))
    except (TimeoutError, RuntimeError, ValueError) as err:
        tap('pcap local: device model captures a cable in memory', False, err)
    finally:
        qt.close()
        for f in os.listdir(tmp):
            os.unlink(os.path.join(tmp, f))
        os.rmdir(tmp)


# ---------------------------------------------------------------- IOMMU
# DMA of the engine thread that intel-iommu refuses.  The test builds
# VT-d tables in guest memory that map the device's memory but for a few
# pages, plays the RoCE peer on the port's UDP cable, and hands the
# device an unmapped page as a CQ ring, as an MR page an RDMA WRITE
# targets and as a receive buffer.  The guest must see each fault in the
# IOMMU's fault recording register and the outcome the hardware
# reference gives ("DMA failures"); QEMU must neither abort (TCG checks
# that interrupts are delivered under the BQL) nor stop, and the QP
# whose memory is mapped must keep working.

VTD = 0xfed90000
VTD_GCMD, VTD_GSTS, VTD_RTADDR = 0x18, 0x1c, 0x20
VTD_FSTS, VTD_FECTL, VTD_FEDATA, VTD_FEADDR = 0x34, 0x38, 0x3c, 0x40
VTD_FRCD = 0x220                # QEMU has one fault recording register
GCMD_TE, GCMD_SRTP = 1 << 31, 1 << 30
FSTS_PFO, FSTS_PPF = 1 << 0, 1 << 1
FECTL_IP = 1 << 30
FRCD_F, FRCD_T = 1 << 63, 1 << 62
FR_WRITE = 5                    # fault reason: no write permission
FAULT_VECTOR = 0x4f             # fault event MSI to the CPU's local APIC

CMD_ALLOC_PD, CMD_CREATE_CQ, CMD_CREATE_QP, CMD_MODIFY_QP = 0x14, 0x20, 0x24, 0x25
CMD_QUERY_QP, CMD_REG_MR, CMD_QUERY_QP_STATS, CMD_QUERY_CQ = 0x26, 0x2c, 0x34, 0x35
EQ_TYPE_ASYNC, DB_RQ = 0, 0x008
EQE_QP_ACCESS_ERR, EQE_CQ_ERR = 0x22, 0x26
QPS_INIT, QPS_RTR, QPS_ERR = 1, 2, 6
QPT_RC, NO_SRQ = 0, 0xffffffff
QP_ATTR = {'STATE': 1 << 0, 'ACCESS_FLAGS': 1 << 3, 'PKEY_INDEX': 1 << 4,
           'PORT': 1 << 5, 'AV': 1 << 7, 'PATH_MTU': 1 << 8, 'RQ_PSN': 1 << 12,
           'MIN_RNR_TIMER': 1 << 15, 'MAX_DEST_RD_ATOMIC': 1 << 17,
           'DEST_QPN': 1 << 20}
ACCESS_LOCAL_WRITE, ACCESS_REMOTE_WRITE = 1 << 0, 1 << 1
CQ_ATTR_ERROR = 1 << 2
QP_STAT_CQE_DROPPED = 23
CQE_SUCCESS, CQE_LOC_PROT_ERR = 0, 4
# BTH opcodes (RC)
OP_SEND_ONLY, OP_WRITE_ONLY, OP_ACK = 0x04, 0x0a, 0x11
NAK_REM_ACCESS, NAK_REM_OP = 0x62, 0x63      # AETH syndromes of NAKs

# Guest memory of the part (function 04.0; AQ, ACQ, BUF, MSI as above)
EQ_ASYNC, CQ_RING, CQ_DBREC = RINGS, RINGS + 0x2000, RINGS + 0x3000
RX_BUFS = FRAMES                # MR_RX: 64 KiB of receive buffers
WQ_BASE = 0x700000              # 64 KiB per QP: SQ, RQ at + 0x8000
VTD_TABLES = 0x800000           # root, context, PDPT, PD, 8 page tables
MAPPED = 16 << 20               # identity mapped but for the holes:
HOLE_CQ = 0xa00000              # the CQ ring of QP "cq"
MR_W = 0xa10000                 # the MR of QP "mr": 3 pages, the 2nd a hole
HOLE_MR = MR_W + 0x1000
HOLE_RX = 0xa20000              # the receive buffer of QP "rx"
HOLES = (HOLE_CQ, HOLE_MR, HOLE_RX)
PEER_QPN = 0x300                # + index: the peer's QPs
RQ_PSN = 0x1000


def is_ack(syndrome):
    """An AETH syndrome of an ACK (any credit count)."""
    return syndrome is not None and syndrome & 0xe0 == 0


def vtd_identity_map(qt, devfn):
    """VT-d legacy-mode tables for bus 0 devfn: 3-level second-level
    tables (aw-bits 39, QEMU's default) mapping guest memory below
    MAPPED onto itself, read and write, but for the pages in HOLES."""
    root, ctx, pdpt, pd = (VTD_TABLES + i * 0x1000 for i in range(4))
    pts = VTD_TABLES + 0x4000
    qt.memw(root, struct.pack('<QQ', ctx | 1, 0).ljust(4096, b'\0'))
    entries = bytearray(4096)
    # context entry: SLPTPTR | TT 0 (untranslated, multi-level) | P;
    # domain 1, AW 1 (39 bits, 3 levels)
    struct.pack_into('<QQ', entries, 16 * devfn, pdpt | 1, 1 << 8 | 1)
    qt.memw(ctx, bytes(entries))
    qt.memw(pdpt, struct.pack('<Q', pd | 3).ljust(4096, b'\0'))
    tables = MAPPED >> 21
    qt.memw(pd, b''.join(struct.pack('<Q', (pts + 0x1000 * i) | 3)
                         for i in range(tables)).ljust(4096, b'\0'))
    for i in range(tables):
        qt.memw(pts + 0x1000 * i, b''.join(
            struct.pack('<Q', 0 if a in HOLES else a | 3)
            for a in range(i << 21, (i + 1) << 21, 0x1000)))
    qt.wr(8, VTD + VTD_RTADDR, root)
    qt.wr(4, VTD + VTD_GCMD, GCMD_SRTP)
    qt.wr(4, VTD + VTD_GCMD, GCMD_TE)
    # the fault event: an MSI to CPU 0, unmasked
    qt.wr(4, VTD + VTD_FEDATA, FAULT_VECTOR)
    qt.wr(4, VTD + VTD_FEADDR, 0xfee00000)
    qt.wr(4, VTD + VTD_FECTL, 0)
    return qt.rd(4, VTD + VTD_GSTS) & GCMD_TE


def vtd_fault(qt):
    """(F, source id, fault reason, is write, page) of the fault
    recording register."""
    lo, hi = qt.rd(8, VTD + VTD_FRCD), qt.rd(8, VTD + VTD_FRCD + 8)
    return (bool(hi & FRCD_F), hi & 0xffff, (hi >> 32) & 0xff,
            not hi & FRCD_T, lo & ~0xfff)


def vtd_fault_clear(qt):
    """Software handles the fault: F and PFO written 1 to clear."""
    qt.wr(4, VTD + VTD_FRCD + 12, 1 << 31)
    qt.wr(4, VTD + VTD_FSTS, FSTS_PFO)
    return not qt.rd(4, VTD + VTD_FSTS) & (FSTS_PFO | FSTS_PPF)


class PhaseRing:
    """A ring of entries the device writes last word first with a phase
    bit (EQ, CQ): the driver's consumer side."""

    def __init__(self, qt, addr, log_size, entry_size, dbrec=None):
        self.qt, self.addr, self.log, self.size = qt, addr, log_size, entry_size
        self.dbrec, self.ci, self.seen = dbrec, 0, []
        qt.memw(addr, bytes(entry_size << log_size))
        if dbrec is not None:
            qt.wr(4, dbrec, 0)

    def poll(self):
        """Takes the new entries into seen."""
        while True:
            slot = self.ci & ((1 << self.log) - 1)
            entry = self.qt.mem(self.addr + slot * self.size, self.size)
            owner = struct.unpack_from('<I', entry, self.size - 4)[0]
            if bool(owner & (1 << 31)) == bool((self.ci >> self.log) & 1):
                break
            self.seen.append(entry)
            self.ci += 1
            if self.dbrec is not None:
                self.qt.wr(4, self.dbrec, self.ci)
        return self.seen

    def find(self, match):
        """The first entry (as a tuple of dwords) match() accepts, or None."""
        for entry in self.poll():
            words = struct.unpack('<%dI' % (self.size // 4), entry)
            if match(words):
                return words
        return None


class RocePeer:
    """The far end of the port's UDP cable: sends RC requests, collects
    the device's responses (dest QP, PSN, AETH syndrome)."""

    def __init__(self, sock, port):
        self.sock, self.port, self.responses = sock, port, []
        sock.setblocking(False)

    def send(self, frame):
        try:
            self.sock.sendto(frame, ('127.0.0.1', self.port))
        except OSError:
            pass

    def poll(self):
        while True:
            try:
                f = self.sock.recv(65536)
            except BlockingIOError:
                return
            if len(f) >= 58 and f[12:14] == b'\x08\x00' and f[23] == 17 and \
                    f[36:38] == b'\x12\xb7' and f[42] == OP_ACK:
                self.responses.append((int.from_bytes(f[47:50], 'big'),
                                       int.from_bytes(f[51:54], 'big'), f[54]))

    def answered(self, dqpn, psn):
        """The syndrome of the device's answer to psn of dqpn, or None."""
        self.poll()
        for qpn, rpsn, syndrome in self.responses:
            if qpn == dqpn and rpsn == psn:
                return syndrome
        return None

    def request(self, frame, cond):
        """Sends frame until cond() holds (the kernel may drop a datagram
        of the flood's socket; the device takes a copy of a request it
        executed as a duplicate, or drops it in ERR), within
        REPLY_TIMEOUT.  Returns whether cond() held."""
        deadline = time.time() + REPLY_TIMEOUT
        while time.time() < deadline:
            self.send(frame)
            resend = time.time() + 0.5
            while time.time() < resend:
                if cond():
                    return True
                time.sleep(0.01)
        return cond()


class IommuRnic:
    """Function 04.0 set up for the part: EQs, a PD, MRs, CQs and RC
    QPs in RTR connected to the peer, by admin commands."""

    def __init__(self, qt):
        self.qt = qt
        self.f = f = Function(qt, 4, 0xe0000000, 1 << 20)
        f.map()
        f.msix_setup(8)
        f.enable()
        self.eq = PhaseRing(qt, EQ_ASYNC, 6, 16)
        self.handle(CMD_CREATE_EQ, struct.pack('<QBBHI', EQ_ASYNC, 6,
                                               EQ_TYPE_ASYNC, 0, 0))
        qt.memw(RINGS + 0x1000, bytes(4096))
        self.comp_eqn = self.handle(CMD_CREATE_EQ, struct.pack(
            '<QBBHI', RINGS + 0x1000, 6, EQ_TYPE_COMP, 1, 0))
        if not port_up(f):
            raise RuntimeError('SET_PORT failed')
        gid = bytes(10) + b'\xff\xff' + bytes([192, 0, 2, 2])
        self.handle(CMD_ADD_GID, struct.pack('<IBBH16s6sH', 0, GID_TYPE_ROCE_V2,
                                             0, VLAN_NONE, gid,
                                             bytes.fromhex('5254004f5202'), 0))
        self.pdn = self.handle(CMD_ALLOC_PD, struct.pack('<II', 0, 0))
        self.rx_key = self.reg_mr(RX_BUFS, 0x10000)
        self.w_key = self.reg_mr(MR_W, 0x3000)
        self.hole_key = self.reg_mr(HOLE_RX, 0x1000)
        self.cq = PhaseRing(qt, CQ_RING, 6, 32, CQ_DBREC)
        self.cqn = self.create_cq(CQ_RING, CQ_DBREC)
        self.bad_cqn = self.create_cq(HOLE_CQ, CQ_DBREC + 64)
        self.qps, self.rq_pi = [], []

    def handle(self, opcode, payload):
        status, syndrome, out = self.f.command(opcode, payload)
        if status != 0:
            raise RuntimeError('command 0x%02x: status %s, syndrome %s' %
                               (opcode, status, syndrome))
        return struct.unpack_from('<I', out)[0]

    def buf_command(self, opcode, handle, data):
        """A command with its parameters (or room for its output) in BUF:
        (status, completion output, BUF afterwards)."""
        self.qt.memw(BUF, data)
        status, _, out = self.f.command(opcode, struct.pack(
            '<QII', BUF, len(data), handle))
        return status, out, self.qt.mem(BUF, len(data))

    def reg_mr(self, addr, length):
        """An MR over contiguous pages at addr (= its iova): its key."""
        return self.handle(CMD_REG_MR, struct.pack(
            '<IIQQQIBBHIBBHII', self.pdn, 0, addr, length, addr, length >> 12,
            12, 0, 0, ACCESS_LOCAL_WRITE | ACCESS_REMOTE_WRITE, 0x5a, 0, 0,
            0, 0))

    def create_cq(self, ring, dbrec):
        """A CQ of 64 CQEs in the page at ring: its number."""
        return self.handle(CMD_CREATE_CQ, struct.pack(
            '<IIQIBBHQBBHI', 0, self.comp_eqn, ring, 1, 12, 0, 0, dbrec, 6,
            0, 0, 0))

    def create_qp(self, cqn):
        """An RC QP completing into cqn, in RTR with the peer's QP
        PEER_QPN + its index, RQ PSN RQ_PSN; returns its QPN."""
        i = len(self.qps)
        wq = WQ_BASE + i * 0x10000
        self.qt.memw(wq, bytes(0x10000))
        params = struct.pack('<IIIIIBBBBBBHI', 0, self.pdn, cqn, cqn, NO_SRQ,
                             QPT_RC, 4, 4, 6, 5, 0, 0, 0)
        params += struct.pack('<QIBBH', wq, 1, 12, 0, 0)
        params += struct.pack('<QIBBH', wq + 0x8000, 1, 12, 0, 0)
        status, out, _ = self.buf_command(CMD_CREATE_QP, 0, params)
        if status != 0:
            raise RuntimeError('CREATE_QP: status %s' % status)
        qpn = struct.unpack_from('<I', out)[0]
        self.qps.append(qpn)
        self.rq_pi.append(0)
        a = QP_ATTR
        av = struct.pack('<16s6sBBIBBH', bytes(10) + b'\xff\xff' +
                         bytes([192, 0, 2, 1]), bytes.fromhex('5254004f5201'),
                         0, 64, 0, 0, 0, VLAN_NONE)
        # a field outside the attribute mask must be 0
        init = struct.pack('<IBBBBIIIII', a['STATE'] | a['PKEY_INDEX'] |
                           a['PORT'] | a['ACCESS_FLAGS'], QPS_INIT, 0, 0, 0,
                           ACCESS_REMOTE_WRITE, 0, 0, 0, 0)
        init += struct.pack('<BBBBBBHBBH', 0, 0, 0, 0, 0, 0, 0, 1, 0, 0) + bytes(32)
        rtr = struct.pack('<IBBBBIIIII', a['STATE'] | a['AV'] | a['PATH_MTU'] |
                          a['DEST_QPN'] | a['RQ_PSN'] | a['MAX_DEST_RD_ATOMIC'] |
                          a['MIN_RNR_TIMER'], QPS_RTR, 0, 3, 0, 0, 0, RQ_PSN, 0,
                          PEER_QPN + i)
        rtr += struct.pack('<BBBBBBHBBH', 0, 0, 0, 1, 0, 4, 0, 0, 0, 0) + av
        for state, attr in ((QPS_INIT, init), (QPS_RTR, rtr)):
            status, _, _ = self.buf_command(CMD_MODIFY_QP, qpn, attr)
            if status != 0:
                raise RuntimeError('MODIFY_QP to %d: status %s' % (state, status))
        return qpn

    def post_recv(self, i, addr, length, lkey):
        """One receive WQE of one SGE on the RQ of QP index i."""
        wq = WQ_BASE + i * 0x10000 + 0x8000
        slot = self.rq_pi[i] % 16
        self.qt.memw(wq + 32 * slot, struct.pack('<IIQQII', 1, 0, 0, addr,
                                                   length, lkey))
        self.rq_pi[i] += 1
        self.f.doorbell(0, DB_RQ, self.qps[i], self.rq_pi[i])

    def qp_state(self, qpn):
        status, _, attr = self.buf_command(CMD_QUERY_QP, qpn, bytes(72))
        return attr[4] if status == 0 else None

    def cqe_dropped(self, qpn):
        status, _, st = self.buf_command(CMD_QUERY_QP_STATS, qpn, bytes(192))
        return struct.unpack_from('<Q', st, 8 * QP_STAT_CQE_DROPPED)[0] \
            if status == 0 else None

    def cq_flags(self, cqn):
        status, _, attr = self.buf_command(CMD_QUERY_CQ, cqn, bytes(32))
        return attr[21] if status == 0 else None

    def event(self, kind, data0):
        """The async EQE of kind for data0 has come."""
        return self.eq.find(lambda w: w[3] & 0xff == kind and w[0] == data0)

    def cqe(self, qpn, status, wqe_idx):
        """The CQE of qpn for RQ slot wqe_idx with status, or None."""
        return self.cq.find(lambda w: w[0] == qpn and w[1] == wqe_idx and
                            (w[5] >> 24) & 0xff == status)


def send_frame(dqpn, psn, payload):
    return roce_frame(dqpn, psn, payload, opcode=OP_SEND_ONLY, ackreq=True)


def write_frame(dqpn, psn, va, rkey, payload):
    return roce_frame(dqpn, psn, struct.pack('>QII', va, rkey, len(payload)) +
                      payload, opcode=OP_WRITE_ONLY, ackreq=True)


def run_iommu_faults(qemu):
    """Faults of the engine's DMA behind intel-iommu, under TCG."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind(('127.0.0.1', 0))
        (port,) = free_udp_ports(1)
        log = tempfile.TemporaryFile(mode='w+')
        qt = QTest(qemu, [
            '-device', 'intel-iommu',
            '-device', 'ordma,addr=04.0,id=nic0,mac=52:54:00:4f:52:02,'
                       'cable-local=127.0.0.1:%d,cable-peer=127.0.0.1:%d'
                       % (port, sock.getsockname()[1])],
            stderr=log, accel='tcg')
        peer = RocePeer(sock, port)
        stop = threading.Event()
        flooded = [0]

        def flood():
            # RoCE frames for a QP the device does not have: the engine
            # parses, checks the ICRC and drops them
            frame = send_frame(0x7777, 0, bytes(64))
            while not stop.is_set():
                for _ in range(64):
                    peer.send(frame)
                    flooded[0] += 1
                time.sleep(0.0005)      # pacing, not synchronisation

        flooder = threading.Thread(target=flood, daemon=True)
        try:
            tap('iommu faults: VT-d translation on, tables that map the '
                'device\'s memory', vtd_identity_map(qt, 4 << 3))
            dev = IommuRnic(qt)
            healthy = dev.create_qp(dev.cqn)
            bad_cq = dev.create_qp(dev.bad_cqn)
            bad_mr = dev.create_qp(dev.cqn)
            bad_rx = dev.create_qp(dev.cqn)
            for n in range(8):
                dev.post_recv(0, RX_BUFS + 0x100 * n, 0x100, dev.rx_key)
            dev.post_recv(1, RX_BUFS + 0x1000, 0x100, dev.rx_key)
            dev.post_recv(3, HOLE_RX, 0x100, dev.hole_key)
            states = [dev.qp_state(q) for q in dev.qps]
            tap('iommu faults: 4 RC QPs in RTR', states == [QPS_RTR] * 4, states)
            flooder.start()
            psn = [RQ_PSN] * 4
            no_qp = [0]

            def flood_taken(count):
                st = port_stats(dev.f)
                no_qp[0] = st[STAT_RX_DROP_REASON + 1] if st else 0
                return no_qp[0] >= count

            tap('iommu faults: the flood reaches the engine (frames for no QP '
                'dropped)', wait_for(lambda: flood_taken(1000)), no_qp[0])

            def healthy_send(n):
                data = bytes([n]) * 64
                ok = peer.request(send_frame(healthy, psn[0], data),
                                  lambda: is_ack(peer.answered(PEER_QPN, psn[0]))
                                  and dev.cqe(healthy, CQE_SUCCESS, n))
                ok = ok and dev.cqe(healthy, CQE_SUCCESS, n)[2] == 64 and \
                    qt.mem(RX_BUFS + 0x100 * n, 64) == data
                psn[0] += 1
                return ok

            tap('iommu faults: healthy QP: SEND acknowledged, CQE and data',
                healthy_send(0))

            def fault_seen(page):
                return lambda: vtd_fault(qt) == (True, 4 << 3, FR_WRITE, True,
                                                 page)

            # ---- the CQ ring is not mapped
            tap('iommu faults: fault log cleared (CQ)', vtd_fault_clear(qt))
            done = peer.request(send_frame(bad_cq, psn[1], bytes(64)),
                                lambda: peer.answered(PEER_QPN + 1, psn[1])
                                is not None)
            tap('iommu faults: CQ ring unmapped: the SEND is acknowledged',
                done and is_ack(peer.answered(PEER_QPN + 1, psn[1])),
                peer.answered(PEER_QPN + 1, psn[1]))
            tap('iommu faults: CQ ring unmapped: VT-d records the write fault '
                'at its IOVA', wait_for(fault_seen(HOLE_CQ)), vtd_fault(qt))
            tap('iommu faults: CQ ring unmapped: ORDMA_EQE_CQ_ERR on the '
                'async EQ', wait_for(lambda: dev.event(EQE_CQ_ERR, dev.bad_cqn)))
            tap('iommu faults: CQ ring unmapped: the CQ is in error, the '
                'CQE counted dropped, the QP stays in RTR',
                dev.cq_flags(dev.bad_cqn) & CQ_ATTR_ERROR and
                dev.cqe_dropped(bad_cq) == 1 and dev.qp_state(bad_cq) == QPS_RTR,
                (dev.cq_flags(dev.bad_cqn), dev.cqe_dropped(bad_cq),
                 dev.qp_state(bad_cq)))

            # ---- an RDMA WRITE into an MR page that is not mapped
            tap('iommu faults: fault log cleared (MR)', vtd_fault_clear(qt))
            done = peer.request(write_frame(bad_mr, psn[2], HOLE_MR + 0x100,
                                            dev.w_key, bytes(range(64))),
                                lambda: peer.answered(PEER_QPN + 2, psn[2])
                                is not None)
            tap('iommu faults: MR page unmapped: WRITE answered NAK Remote '
                'Access', done and
                peer.answered(PEER_QPN + 2, psn[2]) == NAK_REM_ACCESS,
                peer.answered(PEER_QPN + 2, psn[2]))
            tap('iommu faults: MR page unmapped: VT-d records the write fault',
                wait_for(fault_seen(HOLE_MR)), vtd_fault(qt))
            tap('iommu faults: MR page unmapped: QP_ACCESS_ERR, the QP in ERR',
                wait_for(lambda: dev.event(EQE_QP_ACCESS_ERR, bad_mr)) and
                dev.qp_state(bad_mr) == QPS_ERR, dev.qp_state(bad_mr))

            # ---- a SEND into a receive buffer that is not mapped
            tap('iommu faults: fault log cleared (RX)', vtd_fault_clear(qt))
            done = peer.request(send_frame(bad_rx, psn[3], bytes(64)),
                                lambda: peer.answered(PEER_QPN + 3, psn[3])
                                is not None)
            tap('iommu faults: receive buffer unmapped: SEND answered NAK '
                'Remote Operational', done and
                peer.answered(PEER_QPN + 3, psn[3]) == NAK_REM_OP,
                peer.answered(PEER_QPN + 3, psn[3]))
            tap('iommu faults: receive buffer unmapped: VT-d records the write '
                'fault', wait_for(fault_seen(HOLE_RX)), vtd_fault(qt))
            tap('iommu faults: receive buffer unmapped: the receive completes '
                'with LOC_PROT_ERR', wait_for(lambda: dev.cqe(
                    bad_rx, CQE_LOC_PROT_ERR, 0)))
            tap('iommu faults: receive buffer unmapped: QP_ACCESS_ERR, the QP '
                'in ERR', wait_for(lambda: dev.event(EQE_QP_ACCESS_ERR, bad_rx))
                and dev.qp_state(bad_rx) == QPS_ERR, dev.qp_state(bad_rx))

            # ---- and the rest goes on
            irr = re.search(r'IRR\s+([^\n]*)', qt.hmp_reply('info lapic'))
            tap('iommu faults: the fault event MSI reached the CPU (vector %d '
                'requested, FECTL: nothing pending)' % FAULT_VECTOR,
                irr and str(FAULT_VECTOR) in irr.group(1).split() and
                not qt.rd(4, VTD + VTD_FECTL) & FECTL_IP,
                (irr and irr.group(1), hex(qt.rd(4, VTD + VTD_FECTL))))
            status, _, _ = dev.f.command(CMD_QUERY_FW)
            tap('iommu faults: QEMU answers, the device is ready',
                status == 0 and dev.f.reg(REG_STATUS) == STATUS_READY,
                (status, dev.f.reg(REG_STATUS)))
            tap('iommu faults: under the flood the healthy QP still completes '
                'SENDs', all([healthy_send(n) for n in range(1, 5)]))
            taken = no_qp[0]
            tap('iommu faults: the engine took the flood throughout (%d frames '
                'sent, %d taken)' % (flooded[0], taken),
                wait_for(lambda: flood_taken(taken + 1000)), no_qp[0])
            stop.set()
            flooder.join()
            qt.hmp('quit')
            try:
                rc = qt.proc.wait(timeout=REPLY_TIMEOUT)
            except subprocess.TimeoutExpired:
                rc = None
            log.seek(0)
            err = log.read()
            tap('iommu faults: QEMU quits cleanly, no abort',
                rc == 0 and 'ssertion' not in err, (rc, err[-300:]))
        except (TimeoutError, RuntimeError, OSError) as err:
            # OSError: QEMU went away (a broken pipe to its qtest stdin)
            log.seek(0)
            tap('iommu faults: device model answers behind intel-iommu',
                False, '%s; QEMU said: %s' % (err, log.read()[-300:].strip()))
        finally:
            stop.set()
            if flooder.is_alive():
                flooder.join()
            qt.close()
            log.close()


def main():
    if len(sys.argv) > 1:
        qemu = sys.argv[1]
    else:
        build = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'build-qemu.sh')
        res = subprocess.run([build], stdout=subprocess.PIPE, text=True)
        lines = res.stdout.split()
        qemu = lines[-1] if res.returncode == 0 and lines else ''
    print('TAP version 13')
    if not qemu or not os.access(qemu, os.X_OK):
        print('1..0 # SKIP no QEMU with the ORDMA device')
        return 4
    for part in (run, run_iommu, run_cable, run_cable_local, run_cable_oversize,
                 run_engine_sched, run_engine_flood, run_msix_held, run_flow_control,
                 run_wire_props, run_wire_udp, run_wire_icrc, run_pcap,
                 run_pcap_local, run_iommu_faults):
        try:
            part(qemu)
        except RuntimeError as err:
            tap('QEMU starts (%s)' % part.__name__, False, err)
    print('1..%d' % len(tests))
    print('# %d passed, %d failed' % (tests.count(True), tests.count(False)))
    return 0 if all(tests) else 1


if __name__ == '__main__':
    sys.exit(main())
