#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""Tests of tools/vm/pcap-iwarp.sh on captures made up here.

Linux siw never negotiates the MPA CRC, so the captures of siw.sh leave
the checker's CRC verdicts unexercised.  These captures are one TCP
connection each between 192.0.2.2 (active) and 192.0.2.1: handshake, MPA
request and reply, Sends (two FPDUs in one segment among them), each
FPDU's CRC32c written as iSCSI writes it (the CRC-32C value least
significant byte first, RFC 3720 B.4) unless a case says otherwise.
TAP output; skipped (exit 4) without tshark.
"""

import os
import shutil
import struct
import subprocess
import sys
import tempfile

CHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'pcap-iwarp.sh')


def crc32c(data):
    crc = 0xffffffff
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82f63b78 if crc & 1 else 0)
    return crc ^ 0xffffffff


def ip_checksum(hdr):
    s = sum(struct.unpack('!%dH' % (len(hdr) // 2), hdr))
    s = (s & 0xffff) + (s >> 16)
    s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


class Conn:
    """One TCP connection's frames, 2 = the active side, 1 = the passive."""
    MAC = {1: bytes.fromhex('525400123401'), 2: bytes.fromhex('525400123402')}
    IP = {1: bytes([192, 0, 2, 1]), 2: bytes([192, 0, 2, 2])}
    PORT = {1: 18000, 2: 40000}

    def __init__(self):
        self.frames = []
        self.seq = {1: 5000, 2: 1000}

    def seg(self, side, payload=b'', flags=0x18):
        peer = 3 - side
        tcp = struct.pack('!HHIIBBHHH', self.PORT[side], self.PORT[peer],
                          self.seq[side], self.seq[peer], 5 << 4, flags,
                          65535, 0, 0) + payload
        self.seq[side] += len(payload) + (1 if flags & 0x02 else 0)
        ip = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + len(tcp), 1, 0x4000,
                         64, 6, 0, self.IP[side], self.IP[peer])
        ip = ip[:10] + struct.pack('!H', ip_checksum(ip)) + ip[12:]
        self.frames.append(self.MAC[peer] + self.MAC[side] + b'\x08\x00' + ip + tcp)

    def handshake(self):
        self.seg(2, flags=0x02)
        self.seg(1, flags=0x12)
        self.seg(2, flags=0x10)

    def write(self, path):
        with open(path, 'wb') as f:
            f.write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
            for i, frame in enumerate(self.frames):
                f.write(struct.pack('<IIII', 1000 + i, 0, len(frame), len(frame)) + frame)


def mpa_rr(key, crc):
    # flags: C as asked, enhanced (RFC 6581); revision 2; IRD 1, ORD 1
    return key + bytes([(0x40 if crc else 0) | 0x10, 2]) + struct.pack('!HHH', 4, 1, 1)


def fpdu(ulpdu, crc='le'):
    b = struct.pack('!H', len(ulpdu)) + ulpdu
    b += b'\0' * ((4 - len(b) % 4) % 4)
    c = crc32c(b)
    trailer = {'le': struct.pack('<I', c), 'be': struct.pack('>I', c),
               'bad': struct.pack('<I', c ^ 1), 'zero': b'\0' * 4}[crc]
    return b + trailer


def send(msn, text):
    # untagged, last, DDP v1; RDMAP v1 Send; QN 0, MSN, MO 0
    return bytes([0x41, 0x43]) + struct.pack('!IIII', 0, 0, msn, 0) + text


def capture(path, crc_on=True, crcs=('le', 'le', 'le', 'le'), drop=None, mpa=True):
    c = Conn()
    c.handshake()
    if mpa:
        c.seg(2, mpa_rr(b'MPA ID Req Frame', crc_on))
        c.seg(1, mpa_rr(b'MPA ID Rep Frame', crc_on))
    else:
        c.seg(2, b'not MPA, just 24 bytes..')
        c.seg(1, b'not MPA, just 24 bytes..')
    segs = [(2, fpdu(send(1, b'hello, iwarp'), crcs[0])),
            (1, fpdu(send(1, b'hello back!'), crcs[1])),
            # two FPDUs in one segment
            (2, fpdu(send(2, b'two'), crcs[2]) + fpdu(send(3, b'in one'), crcs[3]))]
    for i, (side, payload) in enumerate(segs):
        if i == drop:
            c.seq[side] += len(payload)
            continue
        c.seg(side, payload)
    c.write(path)


CASES = [
    ('CRC on, every CRC good', dict(), 0, 'CRC on in 1 connections: 4 checked, 4 good, 0 bad'),
    ('CRC on, one CRC bad', dict(crcs=('le', 'bad', 'le', 'le')), 1, '3 good, 1 bad'),
    ('CRC on, CRCs most significant byte first', dict(crcs=('be',) * 4), 1, '0 good, 4 bad'),
    ('CRC off, CRC fields zero', dict(crc_on=False, crcs=('zero',) * 4), 0,
     'CRC off (C clear in requests and replies): not checked, 4 of 4 CRC fields zero'),
    ('a segment missing', dict(drop=1), 1, '1 segments not captured'),
    ('no MPA connection', dict(mpa=False), 4, 'no MPA request'),
]


def main():
    if not shutil.which('tshark'):
        print('1..0 # SKIP no tshark')
        return 4
    print('TAP version 13')
    print('1..%d' % len(CASES))
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for n, (name, kw, want_rc, want_text) in enumerate(CASES, 1):
            path = os.path.join(tmp, 'case%d.pcap' % n)
            capture(path, **kw)
            r = subprocess.run([CHECK, path], capture_output=True, text=True, check=False)
            out = (r.stdout + r.stderr).strip()
            ok = r.returncode == want_rc and want_text in out
            failed += not ok
            print('%s %d - %s: exit %d (%s)' % ('ok' if ok else 'not ok', n, name, r.returncode, out))
            if not ok:
                print('# wanted exit %d and "%s"' % (want_rc, want_text))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
