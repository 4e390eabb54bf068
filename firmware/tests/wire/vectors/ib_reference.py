#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""Native InfiniBand packets written from the IBTA field layout alone,
with their ICRC and VCRC, as known answers for the firmware's wire layer
(tests/wire/test_ib_wire.c builds the same packets and must produce the
same bytes).  Nothing here shares code with the firmware:

  - the ICRC is zlib's CRC-32 (the IEEE 802.3 CRC with its initial and
    final inversion) over the packet with the variant fields set to
    ones: the VL of a local packet's LRH, the whole LRH of a global one,
    the GRH's traffic class, flow label and hop limit, BTH byte 4;
  - the VCRC is a generic bit-serial CRC engine run with the IBTA
    parameters (polynomial 0x100b, seed 0xffff, bits taken least
    significant first, result inverted) over LRH..ICRC; the engine is
    first checked against catalogued CRC-16 and CRC-32 check values.

Both CRCs are stored least significant byte first.

Usage: ib_reference.py > ib_vectors.h
       ib_reference.py verify FILE.pcapng
           recomputes ICRC and VCRC of every packet of FILE (pcapng,
           InfiniBand link packets from the LRH) and compares them with
           the stored ones; one line "N packets: N ICRC good, N VCRC good",
           exit status 0 when every CRC of at least one packet is right.
"""
import struct
import sys
import zlib


def crc_generic(data, width, poly, init, refin, refout, xorout):
    """A textbook bit-at-a-time CRC (Williams' parameter model)."""
    top = 1 << (width - 1)
    mask = (1 << width) - 1
    reg = init
    for byte in data:
        if refin:
            byte = int('{:08b}'.format(byte)[::-1], 2)
        reg ^= byte << (width - 8)
        for _ in range(8):
            reg = ((reg << 1) ^ poly) if reg & top else (reg << 1)
            reg &= mask
    if refout:
        reg = int('{:0{w}b}'.format(reg, w=width)[::-1], 2)
    return reg ^ xorout


def self_check():
    check = b'123456789'
    known = [
        # (name, width, poly, init, refin, refout, xorout, check value)
        ('CRC-32/ISO-HDLC', 32, 0x04c11db7, 0xffffffff, True, True,
         0xffffffff, 0xcbf43926),
        ('CRC-16/ARC', 16, 0x8005, 0x0000, True, True, 0x0000, 0xbb3d),
        ('CRC-16/MODBUS', 16, 0x8005, 0xffff, True, True, 0x0000, 0x4b37),
        ('CRC-16/IBM-SDLC (X-25)', 16, 0x1021, 0xffff, True, True, 0xffff,
         0x906e),
        ('CRC-16/IBM-3740', 16, 0x1021, 0xffff, False, False, 0x0000,
         0x29b1),
    ]
    for name, w, poly, init, ri, ro, xo, want in known:
        got = crc_generic(check, w, poly, init, ri, ro, xo)
        if got != want:
            sys.exit('CRC engine fails %s: %#x != %#x' % (name, got, want))
    if zlib.crc32(check) != 0xcbf43926:
        sys.exit('zlib CRC-32 check value')


def vcrc(data):
    return crc_generic(data, 16, 0x100b, 0xffff, True, True, 0xffff)


def icrc(pkt_wo_crcs, lnh):
    b = bytearray(pkt_wo_crcs)
    if lnh == 3:
        b[0:8] = b'\xff' * 8
        b[8] |= 0x0f
        b[9:12] = b'\xff\xff\xff'
        b[15] = 0xff
        bth = 48
    else:
        b[0] |= 0xf0
        bth = 8
    b[bth + 4] = 0xff
    return zlib.crc32(bytes(b)) & 0xffffffff


def be(v, n):
    return v.to_bytes(n, 'big')


def packet(vl, sl, dlid, slid, opcode, dest_qp, psn, ext=b'', payload=b'',
           se=False, mig=False, ack_req=False, pkey=0xffff, fecn=False,
           becn=False, grh=None):
    pad = (4 - len(payload) % 4) % 4
    bth = bytes([opcode,
                 (se << 7) | (mig << 6) | (pad << 4),
                 pkey >> 8, pkey & 0xff,
                 (fecn << 7) | (becn << 6)]) + be(dest_qp, 3) + \
        bytes([ack_req << 7]) + be(psn, 3)
    body = bth + ext + payload + b'\0' * pad
    lnh = 3 if grh else 2
    hdr_len = 8 + (40 if grh else 0)
    pktlen = (hdr_len + len(body) + 4) // 4
    lrh = bytes([vl << 4, (sl << 4) | lnh]) + be(dlid, 2) + \
        be(pktlen, 2) + be(slid, 2)
    g = b''
    if grh:
        paylen = len(body) + 4
        g = be(6 << 28 | grh['tclass'] << 20 | grh['flow'], 4) + \
            be(paylen, 2) + bytes([0x1b, grh['hop']]) + grh['sgid'] + \
            grh['dgid']
    pkt = lrh + g + body
    pkt += icrc(pkt, lnh).to_bytes(4, 'little')
    pkt += vcrc(pkt).to_bytes(2, 'little')
    return pkt


def payload(n, seed):
    return bytes((seed + 7 * i) & 0xff for i in range(n))


SGID = bytes.fromhex('fe800000000000000002c90300000001')
DGID = bytes.fromhex('fe800000000000000002c90300000002')

VECTORS = [
    ('rc_send_only_local',
     'RC SEND Only, local, VL 0 SL 3, 13 bytes (pad 3), SE, AckReq',
     packet(0, 3, 0x0002, 0x0001, 0x04, 0x000012, 0x000100,
            payload=payload(13, 1), se=True, ack_req=True)),
    ('rc_write_only_reth',
     'RC RDMA WRITE Only with RETH, local, VL 2 SL 5, FECN, pkey 0x8001',
     packet(2, 5, 0x0010, 0x0020, 0x0a, 0xabcdef, 0xfedcba,
            ext=be(0x0123456789abcdef, 8) + be(0x11223344, 4) + be(32, 4),
            payload=payload(32, 9), pkey=0x8001, fecn=True, ack_req=True)),
    ('rc_ack_aeth',
     'RC Acknowledge with AETH (ACK, credits invalid), local, BECN',
     packet(1, 1, 0x0001, 0x0002, 0x11, 0x000034, 0x000777,
            ext=bytes([0x1f]) + be(0x000042, 3), becn=True)),
    ('ud_send_global',
     'UD SEND Only with DETH behind a GRH, VL 1 SL 4, 7 bytes (pad 1)',
     packet(1, 4, 0x0003, 0x0004, 0x64, 0x000056, 0x000001,
            ext=be(0x80010000, 4) + be(0x00002a, 4), payload=payload(7, 3),
            grh={'tclass': 0x20, 'flow': 0x12345, 'hop': 64,
                 'sgid': SGID, 'dgid': DGID})),
    ('smp_vl15_qp0',
     'UD SEND Only to QP0 on VL15 from the permissive LID (a MAD)',
     packet(15, 0, 0xffff, 0xffff, 0x64, 0x000000, 0x000005,
            ext=be(0x00000000, 4) + be(0x000000, 4),
            payload=payload(256, 0x81))),
]


def pcapng_packets(data):
    """Enhanced Packet Block contents of a little-endian pcapng file."""
    off = 0
    while off + 12 <= len(data):
        btype, blen = struct.unpack_from('<II', data, off)
        if blen < 12 or off + blen > len(data):
            sys.exit('pcapng: bad block length at %d' % off)
        if btype == 6:
            caplen = struct.unpack_from('<I', data, off + 20)[0]
            yield data[off + 28:off + 28 + caplen]
        off += blen


def verify(path):
    with open(path, 'rb') as f:
        data = f.read()
    n = good_i = good_v = 0
    for pkt in pcapng_packets(data):
        n += 1
        lnh = pkt[1] & 3
        if icrc(pkt[:-6], lnh) == int.from_bytes(pkt[-6:-2], 'little'):
            good_i += 1
        if vcrc(pkt[:-2]) == int.from_bytes(pkt[-2:], 'little'):
            good_v += 1
    print('%d packets: %d ICRC good, %d VCRC good' % (n, good_i, good_v))
    return 0 if n and good_i == n and good_v == n else 1


def main():
    self_check()
    if len(sys.argv) == 3 and sys.argv[1] == 'verify':
        sys.exit(verify(sys.argv[2]))
    out = [
        '/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */',
        '/*',
        ' * Generated by ib_reference.py (do not edit): native InfiniBand',
        ' * packets written from the IBTA field layout, ICRC from zlib,',
        ' * VCRC from a generic CRC engine checked against catalogued',
        ' * check values.  ICRC and VCRC are also given as numbers, as',
        ' * stored (least significant byte first).',
        ' */',
        '#ifndef ORDMA_TEST_IB_VECTORS_H',
        '#define ORDMA_TEST_IB_VECTORS_H',
        '',
        '#include <stddef.h>',
        '#include <stdint.h>',
        '',
    ]
    for name, desc, pkt in VECTORS:
        out.append('/* %s */' % desc)
        out.append('static const uint8_t ib_vec_%s[%d] = {' % (name, len(pkt)))
        for i in range(0, len(pkt), 12):
            out.append('\t' + ' '.join('0x%02x,' % b for b in pkt[i:i + 12]))
        out.append('};')
        out.append('')
    out.append('struct ib_vector {')
    out.append('\tconst char *name;')
    out.append('\tconst uint8_t *pkt;')
    out.append('\tsize_t len;')
    out.append('\tuint32_t icrc;')
    out.append('\tuint16_t vcrc;')
    out.append('};')
    out.append('')
    out.append('static const struct ib_vector ib_vectors[] = {')
    for name, _, pkt in VECTORS:
        ic = int.from_bytes(pkt[-6:-2], 'little')
        vc = int.from_bytes(pkt[-2:], 'little')
        out.append('\t{ "%s", ib_vec_%s, sizeof(ib_vec_%s),' % (name, name, name))
        out.append('\t  0x%08x, 0x%04x },' % (ic, vc))
    out.append('};')
    out.append('')
    out.append('#endif /* ORDMA_TEST_IB_VECTORS_H */')
    print('\n'.join(out))


if __name__ == '__main__':
    main()
