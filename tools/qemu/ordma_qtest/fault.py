# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""The device's fault injection from the host (fault-inject): each fault
happens where the device does the work, once per count, and is counted
in QUERY_STATS."""

import struct

from .common import (
    BUF, CMD_QUERY_STATS, PORT_STATS_NUM, QTest, REG_FATAL_CODE,
    REG_HEARTBEAT, REG_STATUS, STATUS_FATAL, enabled_function, port_stats,
    tap)

CMD_QUERY_FW = 0x01
FATAL_INTERNAL, FATAL_INJECTED = 4, 5
# fault_injected[] of struct ordma_port_stats, by enum ordma_fault
FAULT_DMA_WRITE, FAULT_MSIX_DROP, FAULT_FATAL, FAULT_HEARTBEAT = 1, 3, 4, 5
FAULT_ADMIN_DELAY = 6
FAULTS_AT = PORT_STATS_NUM - 7
ADMIN_VECTOR = 0
HEARTBEAT_NS = 100 * 1000 * 1000


def injected(f, fault):
    st = port_stats(f)
    return st[FAULTS_AT + fault] if st else None


def run_fault_inject(qemu):
    qt = QTest(qemu, ['-device', 'ordma,addr=04.0,id=nic0'])
    try:
        f = enabled_function(qt)
        bad = [qt.qom_set('nic0', 'fault-inject', v)
               for v in ('bogus', 'dma-read=x', 'fatal,arg=99', 'fatal=2',
                         'msix-drop=1,arg=1')]
        tap('fault-inject: malformed or refused requests are errors',
            all(bad) and injected(f, FAULT_FATAL) == 0 and
            not f.reg(REG_STATUS) & STATUS_FATAL, bad)

        reply = qt.qom_set('nic0', 'fault-inject', 'dma-write=1')
        size = PORT_STATS_NUM * 8
        status, _, _ = f.command(CMD_QUERY_STATS,
                                 struct.pack('<QII', BUF, size, 1))
        tap('fault-inject dma-write=1: the next DMA write fails (a query '
            'buffer: DMA_ERROR), once, counted',
            reply == '' and status == 7 and
            injected(f, FAULT_DMA_WRITE) == 1, (reply, status))

        reply = qt.qom_set('nic0', 'fault-inject', 'msix-drop=1')
        f.msi_clear(ADMIN_VECTOR)
        st1, _, _ = f.command(CMD_QUERY_FW)
        lost = not f.msi_seen(ADMIN_VECTOR)
        st2, _, _ = f.command(CMD_QUERY_FW)
        tap('fault-inject msix-drop=1: one completion without its MSI-X, '
            'the next with it',
            reply == '' and st1 == 0 and st2 == 0 and lost and
            f.msi_seen(ADMIN_VECTOR) and injected(f, FAULT_MSIX_DROP) == 1,
            (reply, st1, st2, lost))

        reply = qt.qom_set('nic0', 'fault-inject', 'heartbeat-stuck=1')
        hb = f.reg(REG_HEARTBEAT)
        qt.step(5 * HEARTBEAT_NS)
        stuck = f.reg(REG_HEARTBEAT)
        qt.qom_set('nic0', 'fault-inject', 'heartbeat-stuck=0')
        qt.step(3 * HEARTBEAT_NS)
        tap('fault-inject heartbeat-stuck: the heartbeat stops, then goes '
            'on without a jump',
            reply == '' and stuck == hb and
            hb < f.reg(REG_HEARTBEAT) <= hb + 4 and
            injected(f, FAULT_HEARTBEAT) == 1,
            (reply, hb, stuck, f.reg(REG_HEARTBEAT)))

        reply = qt.qom_set('nic0', 'fault-inject', 'admin-delay=1,arg=50')
        st1, _, _ = f.command(CMD_QUERY_FW)
        qt.step(60 * 1000 * 1000)
        st2, _, _ = f.command(CMD_QUERY_FW)
        tap('fault-inject admin-delay=1,arg=50: no completion until 50 ms '
            'of device time passed, then the queue goes on',
            reply == '' and st1 is None and st2 == 0 and
            injected(f, FAULT_ADMIN_DELAY) == 1, (reply, st1, st2))

        reply = qt.qom_set('nic0', 'fault-inject', 'fatal,arg=%d' %
                           FATAL_INTERNAL)
        tap('fault-inject fatal,arg=4: fatal at once with that code',
            reply == '' and f.reg(REG_STATUS) & STATUS_FATAL and
            f.reg(REG_FATAL_CODE) == FATAL_INTERNAL,
            (reply, f.reg(REG_STATUS), f.reg(REG_FATAL_CODE)))
    except (TimeoutError, RuntimeError) as err:
        tap('fault-inject: the device model arms host faults', False, err)
    finally:
        qt.close()
