#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""Write rxe_frames.h: chosen frames of rxe-capture.pcap as C arrays.

Usage: pcap2c.py rxe-capture.pcap > rxe_frames.h
"""
import struct
import sys

# (frame number in the capture, C name, what it is)
FRAMES = [
    (1, "v4_send_only", "IPv4 RC SEND Only, 64 bytes (ibv_rc_pingpong -s 64)"),
    (2, "v4_ack", "IPv4 RC Acknowledge of it (syndrome 0x1f)"),
    (11, "v4_send_last", "IPv4 RC SEND Last, 452 bytes (-s 2500 -m 1024)"),
    (17, "v4_write_only", "IPv4 RC RDMA WRITE Only, 61 bytes, pad 3 (ib_write_bw -s 61)"),
    (27, "v4_read_request", "IPv4 RC RDMA READ Request (ib_read_bw -s 61)"),
    (32, "v4_read_resp_only", "IPv4 RC RDMA READ Response Only, 61 bytes, pad 3"),
    (44, "v4_read_resp_last", "IPv4 RC RDMA READ Response Last, 452 bytes (-s 2500 -m 1024)"),
    (57, "v4_fetch_add", "IPv4 RC FetchAdd (ib_atomic_bw)"),
    (62, "v4_atomic_ack", "IPv4 RC ATOMIC Acknowledge of it"),
    (67, "v4_cmp_swap", "IPv4 RC CmpSwap (ib_atomic_bw -A CMP_AND_SWAP)"),
    (77, "v4_ud_send_only", "IPv4 UD SEND Only, 64 bytes (ibv_ud_pingpong -s 64)"),
    (81, "v6_send_only", "IPv6 RC SEND Only, 61 bytes, pad 3 (ibv_rc_pingpong -s 61)"),
    (82, "v6_ack", "IPv6 RC Acknowledge of it"),
]


def frames(path):
    data = open(path, "rb").read()
    magic, = struct.unpack("<I", data[:4])
    if magic != 0xA1B2C3D4:
        sys.exit("not a little-endian microsecond pcap")
    off, out = 24, []
    while off + 16 <= len(data):
        _, _, caplen, _ = struct.unpack("<IIII", data[off:off + 16])
        out.append(data[off + 16:off + 16 + caplen])
        off += 16 + caplen
    return out


def main():
    all_frames = frames(sys.argv[1])
    print("/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */")
    print("/*")
    print(" * RoCEv2 frames sent by Linux 6.12 rdma_rxe (Debian 6.12.117), as")
    print(" * captured on a virtio-net cable between rxe0 (52:54:00:12:34:01,")
    print(" * 192.0.2.1, 2001:db8::1) and rxe1 (:02, 192.0.2.2, 2001:db8::2) by")
    print(" * capture-rxe.sh; the whole capture is rxe-capture.pcap, this file")
    print(" * is written from it by pcap2c.py.  Frames without FCS.")
    print(" */")
    print("#ifndef ORDMA_TESTS_RXE_FRAMES_H")
    print("#define ORDMA_TESTS_RXE_FRAMES_H")
    print()
    print("#include <stddef.h>")
    print("#include <stdint.h>")
    for num, name, what in FRAMES:
        f = all_frames[num - 1]
        print()
        print("/* frame %d: %s */" % (num, what))
        print("static const uint8_t rxe_%s[%d] = {" % (name, len(f)))
        for i in range(0, len(f), 12):
            print("\t" + ", ".join("0x%02x" % b for b in f[i:i + 12]) + ",")
        print("};")
    print()
    print("struct rxe_frame {")
    print("\tconst char *name;")
    print("\tunsigned int capture_frame;\t/* 1-based, in rxe-capture.pcap */")
    print("\tconst uint8_t *data;")
    print("\tsize_t len;")
    print("};")
    print()
    print("#define RXE_FRAME(num, name) { #name, num, rxe_##name, sizeof(rxe_##name) }")
    print()
    print("static const struct rxe_frame rxe_frames[] = {")
    for num, name, _ in FRAMES:
        print("\tRXE_FRAME(%d, %s)," % (num, name))
    print("};")
    print()
    print("#endif /* ORDMA_TESTS_RXE_FRAMES_H */")


main()
