# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""What every area of the device model's qtests shares: the QTest
connection, a PCI function of the device, its registers, commands and
rings, frames, and the TAP results."""

import os
import re
import select
import socket
import struct
import subprocess
import sys
import tempfile
import time
import zlib



DATADIRS = ['-L', '/usr/share/seabios', '-L', '/usr/lib/ipxe/qemu',
            '-L', '/usr/share/qemu']
REPLY_TIMEOUT = 10


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
PORT_STATS_NUM = 75          # read up to fault_injected[]; ib_rx_drop[] after


STAT_RX_DROP_REASON = 17                # + enum ordma_roce_rx_drop


STAT_WIRE_TX_DROP = 59


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



# The repository, for the host tools some checks run on what QEMU wrote
REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..'))


def host_tool(binary, make_dir, path, timeout):
    """(exit status, last line of output) of the repository's host tool
    binary (an absolute path, built with make in make_dir if missing) on
    the file path; (None, why) if it cannot be built."""
    if not os.access(binary, os.X_OK):
        subprocess.run(['make', '-s', '-C', make_dir, binary],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if not os.access(binary, os.X_OK):
        return None, '%s could not be built' % os.path.basename(binary)
    res = subprocess.run([binary, path], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, timeout=timeout)
    lines = res.stdout.splitlines()
    return res.returncode, lines[-1] if lines else ''


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


def free_udp_ports(count):
    socks = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(count)]
    for sock in socks:
        sock.bind(('127.0.0.1', 0))
    ports = [sock.getsockname()[1] for sock in socks]
    for sock in socks:
        sock.close()
    return ports


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


def port_stats(f):
    """QUERY_STATS of f: the port counters, or None."""
    size = PORT_STATS_NUM * 8
    f.qt.memw(BUF, bytes(size))
    status, _, _ = f.command(CMD_QUERY_STATS, struct.pack('<QII', BUF, size, 1))
    if status != 0:
        return None
    return struct.unpack('<%dQ' % PORT_STATS_NUM, f.qt.mem(BUF, size))


def add_roce_gid(f, index, ipv4, mac):
    """ADD_GID of a RoCEv2 GID for ipv4 (4 bytes) with mac (hex) at
    index of f's table, no VLAN; the command's status."""
    status, _, _ = f.command(CMD_ADD_GID, struct.pack(
        '<IBBH16s6sH', index, GID_TYPE_ROCE_V2, 0, VLAN_NONE,
        bytes(10) + b'\xff\xff' + ipv4, bytes.fromhex(mac), 0))
    return status


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


def injected(qt, dev):
    """The wire-injected-* counters of dev, by fault name."""
    return {f: int(qt.qom_get(dev, 'wire-injected-' + f) or -1)
            for f in WIRE_FAULTS}


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
