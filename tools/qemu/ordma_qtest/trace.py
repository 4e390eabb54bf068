# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""The firmware trace file (fwtrace=): the records the firmware makes,
on the clock of the port's capture."""

import os
import shutil
import struct
import tempfile

from .capture import pcapng_read
from .common import (
    CMD_ADD_GID, QTest, REPLY_TIMEOUT, EthTx, add_roce_gid, enabled_pair,
    port_up, roce_frame, tap, wait_for)

TRACE_MAGIC = b'ORDMAFWT'
TRACE_HDR = 64
REC = struct.Struct('<QQIIIIIHBB')
KIND_ADMIN, KIND_RX, KIND_RX_DROP = 1, 5, 6
DROP_PARSE, DROP_NO_QP = 0, 1
PARSE_ICRC = 22
OP_SEND_ONLY = 0x04


def fwtrace_read(path):
    """(device name, [record dicts]) of a trace file; ValueError if it is
    not one."""
    with open(path, 'rb') as f:
        buf = f.read()
    if len(buf) < TRACE_HDR or buf[:8] != TRACE_MAGIC:
        raise ValueError('%s: not a firmware trace file' % path)
    version, size = struct.unpack_from('<II', buf, 8)
    if version != 1 or size < REC.size:
        raise ValueError('%s: version %d, record size %d' % (path, version, size))
    name = buf[16:48].rstrip(b'\0').decode()
    recs = []
    for off in range(TRACE_HDR, len(buf) - size + 1, size):
        t, addr, qpn, psn, index, length, aux, kind, op, st = \
            REC.unpack_from(buf, off)
        recs.append(dict(t=t, addr=addr, qpn=qpn, psn=psn, index=index,
                         len=length, aux=aux, kind=kind, opcode=op, status=st))
    return name, recs


def run_fwtrace(qemu):
    """b traces its firmware: its admin commands, the RoCE frames it
    receives and why it drops them, on the clock of its capture."""
    tmp = tempfile.mkdtemp(prefix='qtest-ordma-fwtrace.')
    trace, cap = os.path.join(tmp, 'b.fwtrace'), os.path.join(tmp, 'b.pcapng')
    qt = QTest(qemu, [
        '-device', 'ordma,addr=04.0,id=nic0,mac=52:54:00:4f:52:01,cable-to=nic1',
        '-device', 'ordma,addr=05.0,id=nic1,mac=52:54:00:4f:52:02,cable-to=nic0,'
                   'fwtrace=%s,pcap=%s' % (trace, cap)])
    try:
        a, b = enabled_pair(qt)
        tx = EthTx(a)
        status = add_roce_gid(b, 0, bytes([192, 0, 2, 2]), '5254004f5202')
        good = roce_frame(0x123, 7, bytes(range(64)))
        # no UDP checksum (IPv4 allows it) to catch the ICRC's bad last byte
        bad = good[:40] + bytes(2) + good[42:-1] + bytes([good[-1] ^ 0x01])
        up = wait_for(lambda: port_up(b))
        tx.send([good, bad])

        def both_dropped():
            qt.qom_get('nic1', 'fwtrace-records')   # writes the buffer out
            return len([r for r in fwtrace_read(trace)[1]
                        if r['kind'] == KIND_RX_DROP]) >= 2

        ok = status == 0 and up and wait_for(both_dropped)
        name, recs = fwtrace_read(trace)
        tap('fwtrace: the file names the device and holds records',
            ok and name == 'nic1' and recs, (status, name, len(recs)))
        admin = [r for r in recs if r['kind'] == KIND_ADMIN]
        tap('fwtrace: ADD_GID is an ADMIN record with its opcode and status',
            any(r['opcode'] == CMD_ADD_GID and r['status'] == 0 for r in admin),
            [(hex(r['opcode']), r['status']) for r in admin])
        rx = [r for r in recs if r['kind'] == KIND_RX]
        drops = [r for r in recs if r['kind'] == KIND_RX_DROP]
        tap('fwtrace: the clean frame: RX with QPN, PSN and opcode, then '
            'dropped for its QP',
            any(r['qpn'] == 0x123 and r['psn'] == 7 and
                r['opcode'] == OP_SEND_ONLY and r['len'] == 64 for r in rx) and
            any(r['qpn'] == 0x123 and r['status'] == DROP_NO_QP for r in drops),
            (rx, drops))
        tap('fwtrace: the corrupted frame: dropped by the parser for its '
            'ICRC, with the QPN and PSN of its BTH',
            any(r['status'] == DROP_PARSE and r['aux'] == PARSE_ICRC and
                r['qpn'] == 0x123 and r['psn'] == 7 for r in drops), drops)
        times = [r['t'] for r in recs]
        tap('fwtrace: record times never go back', times == sorted(times))
        tap('fwtrace: times are the host clock in ns, not in us',
            any(t % 1000 for t in times), times[:4])
        ins = [blk['ts'] for blk in pcapng_read(cap, qt, 'nic1')
               if blk['type'] == 'epb' and blk['dir'] == 1]
        rx7 = [r['t'] for r in rx if r['psn'] == 7]
        tap('fwtrace: one clock with the capture: the frame is captured, '
            'then traced, within a second',
            ins and rx7 and 0 <= rx7[0] - ins[0] < 10 ** 9,
            (ins[:2], rx7[:1]))
        tap('fwtrace: a device without fwtrace= counts no records',
            qt.qom_get('nic0', 'fwtrace-records') == '0' and
            qt.qom_get('nic1', 'fwtrace-lost') == '0')
        before = len(recs)
        add_roce_gid(b, 1, bytes([192, 0, 2, 3]), '5254004f5202')
        qt.hmp('quit')
        qt.proc.wait(timeout=REPLY_TIMEOUT)
        tap('fwtrace: QEMU quits: the records made since are in the file',
            len(fwtrace_read(trace)[1]) > before)
    except (TimeoutError, RuntimeError, ValueError, OSError) as err:
        tap('fwtrace: the firmware trace file', False, err)
    finally:
        qt.close()
        shutil.rmtree(tmp)
