# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""The RDMA protocol of the Ethernet port (SET_RDMA_PROTOCOL, 0x38)
through the device model: what QUERY_DEVICE and QUERY_PORT report for
RoCEv2 and iWARP, the command's refusals, a RoCEv2 frame to one of the
port's GIDs handed to the Ethernet rings on an iWARP port, and a reset
returning the port to RoCEv2.  Then the iWARP port's TCP offload in the
device model: an IP address (ADD_GID, type IP) and a listener
(IW_CREATE_LISTEN), a SYN from the cable answered by a SYN-ACK on the
cable, a SYN to a port nobody offloads handed to the Ethernet ring."""

import socket
import struct

from .common import (
    BUF, CMD_ADD_GID, CMD_QUERY_DEVICE, CMD_QUERY_PORT, CTRL_RESET, REG_CTRL,
    VLAN_NONE, EthRx, add_roce_gid, cabled_to, csum16, enabled_function,
    port_stats, port_up, recv_frames, roce_frame, tap, wait_for)

CMD_SET_RDMA_PROTOCOL = 0x38
CMD_IW_CREATE_LISTEN, CMD_IW_DESTROY_LISTEN = 0x39, 0x3a
GID_TYPE_IP = 2
TCP_SYN, TCP_RST, TCP_ACK = 0x02, 0x04, 0x10
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


def tcp_frame(sport, dport, seq, ack, flags, smac='5254004f5201',
              dmac='5254004f5202'):
    """A TCP segment without payload, 192.0.2.1 -> 192.0.2.2."""
    src, dst = bytes([192, 0, 2, 1]), bytes([192, 0, 2, 2])
    ip = bytearray(struct.pack('>BBHHHBBH4s4s', 0x45, 0, 40, 1, 0x4000, 64,
                               6, 0, src, dst))
    ip[10:12] = struct.pack('>H', 0xffff - csum16(bytes(ip)))
    tcp = bytearray(struct.pack('>HHIIBBHHH', sport, dport, seq, ack, 0x50,
                                flags, 8192, 0, 0))
    pseudo = src + dst + struct.pack('>BBH', 0, 6, 20)
    tcp[16:18] = struct.pack('>H', 0xffff - csum16(pseudo + bytes(tcp)))
    return (bytes.fromhex(dmac + smac) + b'\x08\x00' + bytes(ip) +
            bytes(tcp)).ljust(60, b'\0')


def syn_ack_to(frames, sport, seq):
    """The frame of frames that answers our SYN (from sport, seq)."""
    for f in frames:
        if len(f) >= 54 and f[12:14] == b'\x08\x00' and f[23] == 6:
            dport, ack, flags = (struct.unpack_from('>H', f, 36)[0],
                                 struct.unpack_from('>I', f, 42)[0], f[47])
            if (dport == sport and ack == seq + 1 and
                    flags & (TCP_SYN | TCP_ACK) == TCP_SYN | TCP_ACK):
                return f
    return None


def iwarp_tcp(a, peer, port, rx):
    """The TCP offload of the iWARP port a (its RX ring rx posted)."""
    status, _, _ = a.command(CMD_ADD_GID, struct.pack(
        '<IBBH16s6sH', 1, GID_TYPE_IP, 0, VLAN_NONE,
        bytes(10) + b'\xff\xff' + bytes([192, 0, 2, 2]),
        bytes.fromhex('5254004f5202'), 0))
    tap('protocol: iWARP: an IP address for the TCP offload', status == 0,
        status)
    status, _, comp = a.command(CMD_IW_CREATE_LISTEN, struct.pack(
        '<16sHHI', bytes(16), 4420, 4, 0))
    tap('protocol: iWARP: IW_CREATE_LISTEN on TCP port 4420', status == 0,
        status)
    port_up(a)
    peer.sendto(tcp_frame(40000, 4420, 1000, 0, TCP_SYN), ('127.0.0.1', port))
    got = recv_frames(peer, 4)
    answer = syn_ack_to(got, 40000, 1000)
    tap('protocol: iWARP: a SYN to the listener is answered by the device '
        'model\'s TCP with a SYN-ACK to the sender\'s MAC',
        answer is not None and answer[:6] == bytes.fromhex('5254004f5201'),
        [f[:60].hex() for f in got])
    if answer:
        seq = struct.unpack_from('>I', answer, 38)[0]
        peer.sendto(tcp_frame(40000, 4420, 1001, seq + 1, TCP_RST),
                    ('127.0.0.1', port))
    syn = tcp_frame(40001, 22, 5000, 0, TCP_SYN)
    peer.sendto(syn, ('127.0.0.1', port))
    tap('protocol: iWARP: a SYN to a port nobody offloads goes to the '
        'Ethernet ring',
        wait_for(lambda: rx.frame_in(syn)))
    status, _, _ = a.command(CMD_IW_DESTROY_LISTEN, struct.pack(
        '<IIQ', struct.unpack_from('<I', comp, 0)[0] if comp else 0, 0, 0))
    tap('protocol: iWARP: IW_DESTROY_LISTEN', status == 0, status)


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
            iwarp_tcp(a, peer, port, rx)
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
