# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""The port's link layer (link-layer=eth|ib): what QUERY_PORT reports, an
InfiniBand port waiting in INIT without the Ethernet function, its
state following the cable, and a recording of it that replays."""

import os
import re
import socket
import struct
import subprocess
import tempfile

from .common import (
    BUF, CMD_CREATE_EQ, CMD_CREATE_ETH_RING, CMD_QUERY_PORT, CMD_SET_PORT,
    DATADIRS, EQ_TYPE_COMP, ETH_RING_RX, REPLY_TIMEOUT, RINGS,
    SET_PORT_ADMIN, cabled_to, enabled_function, eth_frame, port_stats,
    tap, wait_for)
from .record import ORDMA_REPLAY, ordma_replay, quit_qemu

STATUS_NOT_SUPPORTED = 8
LINK_ETHERNET, LINK_INFINIBAND = 0, 1
PORT_DOWN, PORT_INIT = 1, 2
PHYS_POLLING, PHYS_LINK_UP = 2, 5
STAT_ROCE_RX_DROP = 11


def query_port(f):
    """struct ordma_port_attr as a dict, or None if QUERY_PORT failed."""
    f.qt.memw(BUF, bytes(64))
    status, _, _ = f.command(CMD_QUERY_PORT, struct.pack('<QII', BUF, 64, 1))
    if status != 0:
        return None
    raw = f.qt.mem(BUF, 40)
    mtu, max_mtu, active_ib_mtu, _, _ = struct.unpack_from('<5I', raw, 8)
    lid, sm_lid = struct.unpack_from('<HH', raw, 36)
    return {'mac': raw[0:6], 'state': raw[6], 'phys_state': raw[7],
            'mtu': mtu, 'max_mtu': max_mtu, 'active_ib_mtu': active_ib_mtu,
            'link_up': raw[29], 'link_layer': raw[31], 'lid': lid,
            'sm_lid': sm_lid}


def refuses(qemu, prop, why):
    res = subprocess.run([qemu, '-machine', 'q35', '-display', 'none',
                          '-nodefaults', '-accel', 'qtest', '-qtest', 'null'] +
                         DATADIRS + ['-device', 'ordma,' + prop],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True,
                         timeout=REPLY_TIMEOUT)
    tap('%s: QEMU refuses to start' % prop,
        res.returncode != 0 and why in res.stderr, res.stderr.strip())


def run_link_layer(qemu):
    for bad in ('link-layer=roce', 'link-layer='):
        refuses(qemu, bad, 'link-layer must be eth or ib')

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as peer:
        qt, _ = cabled_to(qemu, peer, ['-global', 'ordma.link-layer=eth'])
        try:
            attr = query_port(enabled_function(qt))
            tap('link-layer=eth: QUERY_PORT reports an Ethernet port',
                attr and attr['link_layer'] == LINK_ETHERNET and
                attr['mac'] == bytes.fromhex('5254004f5202'), attr)
        finally:
            qt.close()

    log = os.path.join(tempfile.mkdtemp(prefix='ordma-link-'), 'ib.rec')
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as peer:
        qt, port = cabled_to(qemu, peer, ['-global', 'ordma.link-layer=ib',
                                          '-global', 'ordma.record=' + log])
        try:
            a = enabled_function(qt)
            attr = query_port(a)
            tap('link-layer=ib: QUERY_PORT reports InfiniBand, INIT and '
                'LinkUp, LID 0, no SM, no MAC or Ethernet MTU',
                attr and attr['link_layer'] == LINK_INFINIBAND and
                attr['state'] == PORT_INIT and
                attr['phys_state'] == PHYS_LINK_UP and
                attr['lid'] == 0 and attr['sm_lid'] == 0 and
                attr['mac'] == bytes(6) and attr['mtu'] == 0 and
                attr['max_mtu'] == 0 and attr['active_ib_mtu'] == 4096, attr)

            status, _, _ = a.command(CMD_SET_PORT, struct.pack(
                '<III6sBB', 1, SET_PORT_ADMIN, 0, bytes(6), 1, 0))
            tap('link-layer=ib: SET_PORT is not supported',
                status == STATUS_NOT_SUPPORTED, status)
            status, _, out = a.command(CMD_CREATE_EQ, struct.pack(
                '<QBBHI', RINGS + 0xb000, 4, EQ_TYPE_COMP, 1, 0))
            eqn = struct.unpack_from('<I', out)[0] if status == 0 else 0
            status, _, _ = a.command(CMD_CREATE_ETH_RING, struct.pack(
                '<QBBHI', RINGS + 0xa000, 6, ETH_RING_RX, 0, eqn))
            tap('link-layer=ib: CREATE_ETH_RING is not supported',
                status == STATUS_NOT_SUPPORTED, status)

            for seq in range(5):
                peer.sendto(eth_frame(seq), ('127.0.0.1', port))
            # an Ethernet frame is no InfiniBand packet: the IB link
            # layer drops it (hw-reference, InfiniBand framing)
            dropped = wait_for(lambda: (port_stats(a) or [0] * 12)
                               [STAT_ROCE_RX_DROP] == 5)
            tap('link-layer=ib: Ethernet frames arriving at an InfiniBand '
                'port are dropped and counted', dropped, port_stats(a))

            qt.qom_set('nic0', 'link', 'false')
            down = query_port(a)
            qt.qom_set('nic0', 'link', 'true')
            up = query_port(a)
            tap('link-layer=ib: the cable pulled, DOWN and Polling; plugged '
                'again, INIT',
                down and up and
                (down['state'], down['phys_state']) == (PORT_DOWN, PHYS_POLLING) and
                (up['state'], up['phys_state']) == (PORT_INIT, PHYS_LINK_UP),
                (down, up))
            tap('link-layer=ib: QEMU quits by itself', quit_qemu(qt))
        finally:
            qt.close()

    status, last = ordma_replay(log)
    tap('link-layer=ib: the recording replays without divergence',
        status == 0 and re.search(r'events replayed, no divergence', last),
        (status, last))
    dump = subprocess.run([ORDMA_REPLAY, '--dump', log], text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    first = dump.stdout.splitlines()[0] if dump.stdout else ''
    tap('link-layer=ib: the recording says so', ' link ib,' in first, first)
