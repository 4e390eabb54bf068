# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""The device behind VT-d: translated DMA, and the faults of unmapped
CQ, MR and RX buffer pages raised from the engine thread."""

import re
import socket
import struct
import subprocess
import tempfile
import threading
import time

from .common import (
    BUF, CMD_ADD_GID, CMD_CREATE_EQ, CMD_QUERY_FW, EQ_TYPE_COMP, FATAL_AQ_DMA,
    FRAMES, Function, GID_TYPE_ROCE_V2, QTest, REG_AQ_DB, REG_FATAL_CODE,
    REG_STATUS, REPLY_TIMEOUT, RINGS, STATUS_FATAL, STATUS_READY,
    STAT_RX_DROP_REASON, VLAN_NONE, free_udp_ports, port_stats, port_up,
    roce_frame, tap, wait_for)


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
