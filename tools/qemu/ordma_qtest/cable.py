# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""Cables and the engine thread: UDP and in-memory cables, oversize
frames, scheduling, floods while the memory map changes, held MSI-X
and pause frames."""

import os
import socket
import struct
import subprocess
import tempfile
import threading
import time

from .common import (
    BUF, CMD_QUERY_FW, CMD_QUERY_PORT, CTRL_ENABLE, CTRL_RESET, DATADIRS,
    DB_EQ, EthRx, FATAL_AQ_DMA, Function, PORT_STATS_NUM, QTest, REG_ACQ_BASE,
    REG_AQ_BASE, REG_AQ_CFG, REG_AQ_DB, REG_CTRL, REG_FATAL_CODE, REG_STATUS,
    REG_VERSION, REPLY_TIMEOUT, STATUS_FATAL, cabled_to, enabled_function,
    enabled_pair, eth_frame, eth_one_frame, free_udp_ports, port_stats,
    port_up, tap, wait_for)


STAT_PAUSE_RX = 66


def udp_rx_queue(port):
    """Bytes waiting in the receive queue of the UDP socket on port."""
    with open('/proc/net/udp') as f:
        for line in f.readlines()[1:]:
            fields = line.split()
            if int(fields[1].split(':')[1], 16) == port:
                return int(fields[4].split(':')[1], 16)
    return None


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
            # each post gives the engine descriptors to fetch, and a
            # fetch under translation faults; a flood that paused (the
            # host's scheduler) gets another chance
            faulted = False
            for _ in range(3):
                rx.post()
                if wait_for(lambda: qt.rd(4, vtd + 0x34) & 0x2):
                    faulted = True
                    break
            tap('engine: the IOMMU recorded DMA faults', faulted,
                '%d frames sent' % sent[0])
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
