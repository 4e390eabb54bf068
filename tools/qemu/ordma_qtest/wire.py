# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""The wire impairments: properties, what a UDP peer receives, and the
ICRC corruption the receiver catches."""

import socket
import struct
import subprocess
import tempfile
import time
import zlib

from .common import (
    DATADIRS, EthTx, Function, QTest, REPLY_TIMEOUT, STAT_RX_DROP_REASON,
    WIRE_FAULTS, add_roce_gid, csum16, enabled_pair, eth_frame, free_udp_ports, injected, port_stats, port_up,
    recv_frames, roce_frame, seqs, tap, wait_for)


STAT_ROCE_RX_FRAMES, STAT_ROCE_RX_DROP = 10, 11


STAT_PARSE_DROP = 32                    # + enum ordma_roce_parse_drop
PARSE_UDP_CHECKSUM, PARSE_ICRC = 15, 21


STAT_WIRE_FAULT = 61                    # + enum ordma_wire_fault


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
        status = add_roce_gid(b, 0, bytes([192, 0, 2, 2]), '5254004f5202')
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
