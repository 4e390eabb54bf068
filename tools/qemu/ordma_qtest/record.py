# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""record=: a log of the firmware's inputs, written by the device model
and replayed by ordma-replay without divergence; none without it."""

import os
import re
import shutil
import socket
import struct
import subprocess
import tempfile

from .common import (
    BUF, CMD_QUERY_FW, CMD_QUERY_PORT, CTRL_RESET, REG_CTRL, REG_STATUS, EthRx,
    EthTx, Function, REPO, cabled_to, eth_frame, host_tool, port_stats,
    recv_frames, tap, wait_for)


ORDMA_REPLAY = os.path.join(REPO, 'build', 'firmware', 'ordma-replay')


def ordma_replay(path):
    """(exit status, last line) of ordma-replay on path; built if missing."""
    return host_tool(ORDMA_REPLAY, os.path.join(REPO, 'firmware'), path, 120)


def drive(qt, peer, port):
    """Enables the port, runs admin commands, an RX and a TX ring, frames
    both ways and a reset; True if all of it worked."""
    a = Function(qt, 4, 0xe0000000, 1 << 20)
    a.map()
    a.msix_setup(8)
    a.enable()
    ok = a.command(CMD_QUERY_FW)[0] == 0 and \
        a.command(CMD_QUERY_PORT, struct.pack('<QII', BUF, 64, 1))[0] == 0
    tx, rx = EthTx(a), EthRx(a)
    rx.post()
    inbound = [eth_frame(100 + i, src='5254004f5209') for i in range(8)]
    for frame in inbound:
        peer.sendto(frame, ('127.0.0.1', port))
    ok = ok and tx.ok and rx.ok and wait_for(lambda: rx.frame_in(inbound[-1]))
    outbound = [eth_frame(i) for i in range(4)]
    tx.send(outbound)
    ok = ok and recv_frames(peer, 4) == outbound
    st = port_stats(a)
    ok = ok and st is not None and st[0] == 4 and st[2] == 8
    qt.step(300 * 1000 * 1000)              # the firmware's timers run
    a.reg(REG_CTRL, CTRL_RESET)
    ok = ok and a.reg(REG_STATUS) == 0
    a.enable()
    return ok and a.command(CMD_QUERY_FW)[0] == 0


def quit_qemu(qt):
    """Quits QEMU from the monitor (its exit notifiers run); True if it
    exited by itself."""
    qt.hmp('quit')
    try:
        qt.proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        return False
    return qt.proc.returncode == 0


def run_record(qemu):
    tmp = tempfile.mkdtemp(prefix='qtest-ordma-record.')
    log = os.path.join(tmp, 'nic0.ordrec')
    cwd = os.getcwd()
    try:
        # ---- default: no record property, nothing written anywhere here
        os.chdir(tmp)
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as peer:
            qt, port = cabled_to(qemu, peer)
            try:
                os.chdir(cwd)
                prop = qt.qom_get('nic0', 'record')
                ok = drive(qt, peer, port)
                tap('record: off by default (record "", the device works)',
                    ok and prop == '""', prop)
                quit_qemu(qt)
            finally:
                qt.close()
        tap('record: off by default: no file written', not os.listdir(tmp),
            os.listdir(tmp))

        # ---- record=FILE: the log replays without divergence
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as peer:
            qt, port = cabled_to(qemu, peer, ['-global', 'ordma.record=' + log])
            try:
                tap('record: record= names the file, record-max-mb 0',
                    qt.qom_get('nic0', 'record') == '"%s"' % log and
                    qt.qom_get('nic0', 'record-max-mb') == '0',
                    qt.qom_get('nic0', 'record'))
                tap('record: the recorded device works as usual', drive(qt, peer, port))
                tap('record: QEMU quits by itself', quit_qemu(qt))
            finally:
                qt.close()
        size = os.path.getsize(log) if os.path.exists(log) else 0
        status, last = ordma_replay(log)
        m = re.search(r': (\d+) events replayed, no divergence', last)
        events = int(m.group(1)) if m else 0
        tap('record: ordma-replay replays the log (%d B) without divergence'
            % size, status == 0 and m, (status, last))
        # 8 frames in, 4 out, a few admin commands, doorbells, timers and
        # a reset: a couple of hundred events, not millions
        kinds = {}
        if status == 0:
            dump = subprocess.run([ORDMA_REPLAY, '--dump', log], text=True,
                                  stdout=subprocess.PIPE).stdout
            for line in dump.splitlines()[1:]:
                words = line.split()
                if len(words) > 1:
                    kinds[words[1]] = kinds.get(words[1], 0) + 1
        tap('record: a plausible log: %d events, the 8 frames received and '
            'the 4 sent among them' % events,
            100 <= events <= 10000 and kinds.get('rx_frame') == 8 and
            kinds.get('tx_frame') == 4 and kinds.get('reg_write', 0) >= 10,
            kinds)

        # ---- a property of realize: set at run time, refused
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as peer:
            qt, _ = cabled_to(qemu, peer)
            try:
                said = qt.qom_set('nic0', 'record', log + '.2')
                tap('record: cannot be set on a realized device',
                    said and not os.path.exists(log + '.2') and
                    qt.qom_get('nic0', 'record') == '""', said)
            finally:
                qt.close()
    finally:
        os.chdir(cwd)
        shutil.rmtree(tmp, ignore_errors=True)
