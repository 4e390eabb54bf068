# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""The RDMA protocol of the Ethernet port (SET_RDMA_PROTOCOL, 0x38)
through the device model: what QUERY_DEVICE and QUERY_PORT report for
RoCEv2 and iWARP, the command's refusals, a RoCEv2 frame to one of the
port's GIDs handed to the Ethernet rings on an iWARP port, and a reset
returning the port to RoCEv2."""

import socket
import struct

from .common import (
    BUF, CMD_QUERY_DEVICE, CMD_QUERY_PORT, CTRL_RESET, REG_CTRL, EthRx,
    add_roce_gid, cabled_to, enabled_function, port_stats, roce_frame, tap,
    wait_for)

CMD_SET_RDMA_PROTOCOL = 0x38
STATUS_BAD_PARAM, STATUS_BUSY = 2, 6
PROTO_ROCE, PROTO_IWARP = 0, 1
# struct ordma_device_caps / struct ordma_port_attr
CAPS_SIZE, CAPS_FLAGS, CAPS_PROTOCOL = 200, 44, 196
PORT_ATTR_SIZE, PORT_PROTOCOL = 72, 70
DEV_CAP_UD, DEV_CAP_UC, DEV_CAP_ATOMIC = 1 << 1, 1 << 2, 1 << 4
DEV_CAP_GSI, DEV_CAP_MCAST, DEV_CAP_FLUSH = 1 << 8, 1 << 9, 1 << 10
DEV_CAP_ATOMIC_WRITE, DEV_CAP_IWARP = 1 << 11, 1 << 15
# what an iWARP port clears (FW_CAP_NOT_IWARP, firmware/device/fw_caps.h)
DEV_CAP_NOT_IWARP = (DEV_CAP_UD | DEV_CAP_UC | DEV_CAP_ATOMIC | DEV_CAP_GSI |
                     DEV_CAP_MCAST | DEV_CAP_FLUSH | DEV_CAP_ATOMIC_WRITE)
# struct ordma_port_stats
STAT_RX_FRAMES, STAT_ROCE_RX_FRAMES = 2, 10


def set_protocol(f, proto, port=1, poke=None):
    """SET_RDMA_PROTOCOL; poke = (payload offset, byte) spoils a field.
    Returns (status, syndrome)."""
    payload = bytearray(struct.pack('<IB3x', port, proto).ljust(56, b'\0'))
    if poke:
        payload[poke[0]] = poke[1]
    status, syndrome, _ = f.command(CMD_SET_RDMA_PROTOCOL, bytes(payload))
    return status, syndrome


def query(f):
    """(cap_flags, caps.rdma_protocol, port_attr.rdma_protocol); None for
    a query that failed."""
    f.qt.memw(BUF, bytes(256))
    status, _, _ = f.command(CMD_QUERY_DEVICE,
                             struct.pack('<QII', BUF, CAPS_SIZE, 0))
    caps = f.qt.mem(BUF, CAPS_SIZE) if status == 0 else None
    f.qt.memw(BUF, bytes(256))
    status, _, _ = f.command(CMD_QUERY_PORT,
                             struct.pack('<QII', BUF, PORT_ATTR_SIZE, 1))
    attr = f.qt.mem(BUF, PORT_ATTR_SIZE) if status == 0 else None
    return (struct.unpack_from('<I', caps, CAPS_FLAGS)[0] if caps else None,
            caps[CAPS_PROTOCOL] if caps else None,
            attr[PORT_PROTOCOL] if attr else None)


def run_rdma_protocol(qemu):
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as peer:
        qt, port = cabled_to(qemu, peer)
        try:
            a = enabled_function(qt)
            flags, caps_proto, port_proto = query(a)
            tap('protocol: RoCEv2 out of reset, iWARP on offer',
                flags is not None and flags & DEV_CAP_IWARP and
                flags & DEV_CAP_NOT_IWARP == DEV_CAP_NOT_IWARP and
                (caps_proto, port_proto) == (PROTO_ROCE, PROTO_ROCE),
                (flags, caps_proto, port_proto))
            roce_flags = flags or 0

            bad = [('port 0', set_protocol(a, PROTO_IWARP, port=0), 8),
                   ('port 2', set_protocol(a, PROTO_IWARP, port=2), 8),
                   ('protocol 2', set_protocol(a, 2), 12),
                   ('reserved byte', set_protocol(a, PROTO_IWARP,
                                                  poke=(5, 1)), 13)]
            tap('protocol: bad port, protocol or reserved field is '
                'BAD_PARAM at its offset',
                all(r == (STATUS_BAD_PARAM, off) for _, r, off in bad), bad)

            tap('protocol: SET_RDMA_PROTOCOL iWARP completes OK',
                set_protocol(a, PROTO_IWARP)[0] == 0)
            flags, caps_proto, port_proto = query(a)
            tap('protocol: iWARP reported by QUERY_DEVICE and QUERY_PORT, '
                'atomics, UD, UC, GSI, multicast, FLUSH and ATOMIC WRITE '
                'withdrawn',
                flags == roce_flags & ~DEV_CAP_NOT_IWARP and
                (caps_proto, port_proto) == (PROTO_IWARP, PROTO_IWARP),
                (flags, caps_proto, port_proto))

            # a RoCEv2 frame to a GID of the port is the host's
            rx = EthRx(a)
            rx.post()
            gid = add_roce_gid(a, 0, bytes([192, 0, 2, 2]), '5254004f5202')
            tap('protocol: an RX ring and a GID on the iWARP port',
                rx.ok and gid == 0, (rx.ok, gid))
            frame = roce_frame(0x11, 0, b'\0' * 16)
            peer.sendto(frame, ('127.0.0.1', port))
            got = wait_for(lambda: rx.frame_in(frame))
            stats = port_stats(a) or [None] * 11
            tap('protocol: iWARP: a RoCEv2 frame to the port\'s GID goes '
                'to the Ethernet ring, the RoCE engine sees none',
                got and stats[STAT_RX_FRAMES] == 1 and
                stats[STAT_ROCE_RX_FRAMES] == 0,
                (got, stats[STAT_RX_FRAMES], stats[STAT_ROCE_RX_FRAMES]))
            status = set_protocol(a, PROTO_ROCE)
            tap('protocol: back to RoCEv2 refused while a GID exists (BUSY)',
                status[0] == STATUS_BUSY, status)

            a.reg(REG_CTRL, CTRL_RESET)
            a.enable()
            flags, caps_proto, port_proto = query(a)
            tap('protocol: a reset returns the port to RoCEv2',
                flags == roce_flags and
                (caps_proto, port_proto) == (PROTO_ROCE, PROTO_ROCE),
                (flags, caps_proto, port_proto))
        except (TimeoutError, RuntimeError) as err:
            tap('protocol: device model answers', False, err)
        finally:
            qt.close()
