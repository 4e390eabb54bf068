#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""Write the seed inputs of the fuzz harnesses (before minimisation).

Usage: mkseeds.py OUTDIR [FUZZ_PROCESS_BINARY]

OUTDIR/process: scenarios of the hostile-process harness (every verb on
every QP type, loss, duplicates, rewrites, bad doorbells).
OUTDIR/rx: the rdma_rxe captures of tests/wire/vectors/rxe_frames.h, and the
frames the firmware itself sends in those scenarios (run through the
process harness with ORDMA_FUZZ_DUMP_TX), both as they are and in fix-up
mode; TCP segments and MPA FPDUs of the iWARP mode (iw-*).
OUTDIR/admin: command sequences (see fuzz_admin.c for the encoding).

The layouts written here are those of fuzz_process.c, fuzz_rx.c and
fuzz_admin.c; change them together.
"""
import os
import re
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

# fuzz_process.c
OP_SEND, OP_SEND_RAW, OP_RECV, OP_RECV_RAW, OP_DB, OP_DB_RAW, OP_REWRITE, \
    OP_FLIP, OP_TIME, OP_DELIVER, OP_DROP, OP_DUP, OP_REORDER, OP_POLL = \
    range(14)
RC, UC, UD, SRQ_RC = range(4)
SEND, SEND_IMM, SEND_INV, WRITE, WRITE_IMM, READ, CMP_SWP, FETCH_ADD, \
    LOCAL_INV, REG_MR, BIND_MW, FLUSH, ATOMIC_WRITE = range(13)
RING, UNSIGNALED, AV_INLINE, INLINE, ALT = 0x80, 0x01, 0x20, 0x08, 0x40


def sel(side, q):
    return side | q << 1


def send(side, q, opcode, length, fl=RING, ksel=0, rsel=0, nsge=1, off=0,
         roff=0, extra=0, inline=b""):
    return bytes([OP_SEND, sel(side, q), opcode, fl, nsge, ksel, rsel]) + \
        struct.pack("<HHHI", length, off, roff, extra) + inline


def recv(side, q, length=0x1000, ksel=0, nsge=1, off=0xc000):
    return bytes([OP_RECV, sel(side, q), ksel, nsge]) + \
        struct.pack("<HH", length, off)


def db(side, q, kind, delta=0):
    return bytes([OP_DB, sel(side, q), kind, delta & 0xff])


def rewrite(side, q, where, back, off, data):
    return bytes([OP_REWRITE, sel(side, q), where, back, off, len(data)]) + data


def time(t):
    return bytes([OP_TIME, t])


def pump(rounds=8):
    out = b""
    for _ in range(rounds):
        out += bytes([OP_DELIVER, 0 | 15 << 1, OP_DELIVER, 1 | 15 << 1])
    return out + bytes([OP_POLL, 0, OP_POLL, 1])


def process_seeds():
    s = {}
    for q, name in ((RC, "rc"), (UC, "uc"), (SRQ_RC, "srq")):
        s[name + "-send"] = send(0, q, SEND, 3000) + pump() + \
            send(1, q, SEND_IMM, 200, extra=0x11223344) + pump()
    s["ud-send"] = send(0, UD, SEND_IMM, 400) + pump() + \
        send(0, UD, SEND, 300, fl=RING | 0x10) + pump()
    s["ud-av-inline"] = send(0, UD, SEND, 100, fl=RING | AV_INLINE,
                             extra=0x40) + pump()
    s["rc-write-read"] = send(0, RC, WRITE, 3000) + \
        send(0, RC, READ, 3000, off=0x8000) + \
        send(0, RC, WRITE_IMM, 100, extra=7) + pump()
    s["uc-write"] = send(0, UC, WRITE, 2000) + \
        send(0, UC, WRITE_IMM, 600, extra=9) + pump() + time(20) + pump()
    s["rc-atomics"] = send(0, RC, CMP_SWP, 8, roff=0x100) + \
        send(0, RC, FETCH_ADD, 8, roff=0x108, extra=5) + pump()
    s["windows"] = send(0, RC, WRITE, 1000, rsel=3) + \
        send(0, RC, READ, 1000, rsel=4, off=0x4000) + \
        send(0, RC, SEND_INV, 16, fl=RING | ALT) + pump()
    s["flush-atomic-write"] = send(0, RC, FLUSH, 64, extra=1) + \
        send(0, RC, ATOMIC_WRITE, 8, roff=0x200, extra=0x55) + pump()
    s["local-ops"] = send(0, RC, BIND_MW, 0x800, rsel=0x06, extra=0x70) + \
        send(0, RC, LOCAL_INV, 0, fl=RING) + \
        send(0, RC, REG_MR, 0x1000, nsge=1, extra=0x44) + pump()
    s["inline"] = send(0, RC, SEND, 100, fl=RING | INLINE,
                       inline=bytes(range(100))) + \
        send(0, UC, SEND, 60, fl=RING | INLINE, inline=bytes(60)) + pump()
    s["rc-loss"] = send(0, RC, SEND, 3000) + bytes([OP_DROP, 0]) + \
        pump(2) + time(100) + pump() + time(100) + pump()
    s["rc-dup-reorder"] = send(0, RC, WRITE, 2000) + \
        bytes([OP_DUP, 0, OP_REORDER, 0, OP_DUP, 0]) + pump() + \
        bytes([OP_DUP, 1]) + pump()
    s["recv-ops"] = recv(1, RC) + recv(1, SRQ_RC, nsge=2) + \
        bytes([OP_RECV_RAW, sel(1, UC), 32]) + bytes(32) + \
        db(1, RC, 1, 5) + db(1, SRQ_RC, 0x82, -3) + db(0, RC, 3) + \
        db(0, RC, 4, 0x33) + db(0, RC, 5) + send(0, RC, SEND, 100) + pump()
    s["rewrites"] = send(0, RC, SEND, 2000, fl=0) + \
        rewrite(0, RC, 0, 0, 8, b"\x00\x01\x00\x00") + db(0, RC, 0) + \
        rewrite(0, RC, 3, 0, 0, bytes(32)) + \
        rewrite(0, RC, 4, 0, 0, b"\x40\x00\x00\x00") + pump()
    s["raw-send"] = bytes([OP_SEND_RAW, sel(0, RC) | 0x80, 63]) + \
        struct.pack("<IIII", 0x10000 | 1 << 8, 0, 0, 0) + bytes(32) + \
        struct.pack("<QII", 0x600000, 64, 0) + b"\x00" * 0 + pump()
    s["db-raw"] = bytes([OP_DB_RAW, 0, 0]) + struct.pack("<H", 0x1018) + \
        struct.pack("<Q", 1 << 63) + send(0, RC, SEND, 10) + pump()
    s["bad-keys"] = b"".join(send(0, RC, WRITE, 300, ksel=k, rsel=k + 1)
                             for k in range(8)) + pump()
    return s


def defect1_regression():
    """A process turns on INLINE in a UC SEND the device already started."""
    return send(0, UC, SEND, 12000) + bytes([OP_FLIP, sel(0, UC), 0, 2, 0x08]) + \
        time(10) + time(10) + pump()


def rxe_frames():
    text = open(os.path.join(HERE, "..", "tests", "wire", "vectors",
                             "rxe_frames.h")).read()
    frames = []
    for m in re.finditer(r"static const uint8_t (\w+)\[\d+\] = \{([^}]*)\}",
                         text):
        frames.append((m.group(1),
                       bytes(int(x, 16) for x in
                             re.findall(r"0x[0-9a-fA-F]{2}", m.group(2)))))
    return frames


def rx_record(frame, raw=False):
    return bytes([0x80 if raw else 0]) + struct.pack("<H", len(frame)) + frame


def rx_seeds(process, binary):
    s = {}
    s.update(iw_rx_seeds())
    for name, f in rxe_frames():
        s["rxe-" + name] = b"\x00" + rx_record(f)
        s["rxe-fix-" + name] = b"\x01" + rx_record(f)
    if not binary:
        return s
    dev1_mac = bytes([0x02, 0x54, 0x00, 0x12, 0x34, 0x0b])
    for name, inp in process.items():
        with tempfile.TemporaryDirectory() as d:
            seed = os.path.join(d, "in")
            dump = os.path.join(d, "tx")
            os.mkdir(dump)
            open(seed, "wb").write(inp)
            subprocess.run([binary, seed], env=dict(os.environ,
                           ORDMA_FUZZ_DUMP_TX=dump),
                           stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, check=False)
            frames = [open(os.path.join(dump, n), "rb").read()
                      for n in sorted(os.listdir(dump))]
        # what device 0 sent device 1 (the RX harness is device 1)
        frames = [f for f in frames if f[:6] == dev1_mac or f[0] & 1][:24]
        if frames:
            s["fw-" + name] = b"\x00" + b"".join(rx_record(f) for f in frames)
            s["fw-fix-" + name] = b"\x01" + \
                b"".join(rx_record(f) for f in frames) + b"\x02\x20"
    return s


# fuzz_rx.c, iWARP mode: TCP segments built by the fix-up from fields
IW_FIXUP = 0x05
SEQ_EXACT, SEQ_IN_WINDOW, SEQ_BEYOND, SEQ_BEFORE, SEQ_FAR, SEQ_RAW = range(6)
ACK_OLD, ACK_UNSENT = 0x08, 0x10
CTL_FPDU, CTL_BAD_CRC, CTL_SPLIT = 0x20, 0x40, 0x80
SPLIT_IN_ORDER, SPLIT_REVERSED, SPLIT_TRUNCATED = range(3)
FIN, SYN, RST, PSH, ACK = 0x01, 0x02, 0x04, 0x08, 0x10
RDMAP_WRITE, RDMAP_READ_REQ, RDMAP_READ_RESP, RDMAP_SEND = 0, 1, 2, 3
NOT_LAST = 0x20


def iw_seg(conn=0, ctl=0, flags=ACK | PSH, seq=0, ack=0, data=b"", opts=b"",
           cut=0, split=0, ports=0):
    """One segment record: the Ethernet header carries the fix-up's
    control bytes, the IPv4 header is rewritten, the TCP header keeps
    flags, window, urgent pointer and options."""
    eth = bytes([conn]) + struct.pack(">I", ports) + \
        bytes([ctl, cut, split]) + bytes(6)
    ip = bytes(20)
    tcp = struct.pack(">HHIIBBHHH", 0, 0, seq, ack,
                      (5 + len(opts) // 4) << 4, flags, 0xffff, 0, 0)
    return rx_record(eth + ip + tcp + opts + data)


def fpdu_fields(opcode, stag=0, to=0, qn=0, msn=0, mo=0, rr=0, any32=0):
    """The 12 bytes iw_fpdu() builds the DDP/RDMAP header from"""
    return bytes([opcode, stag]) + struct.pack(">H", to) + \
        bytes([qn, msn & 0xff, mo, rr]) + struct.pack(">I", any32)


def iw_rx_seeds():
    payload = bytes((i * 7 + 1) & 0x7f for i in range(200))
    send = fpdu_fields(RDMAP_SEND) + payload
    s = {}
    s["iw-send"] = bytes([IW_FIXUP]) + \
        iw_seg(ctl=CTL_FPDU, data=send) + \
        iw_seg(ctl=CTL_FPDU, data=send, conn=1)
    s["iw-bad-crc"] = bytes([IW_FIXUP]) + \
        iw_seg(ctl=CTL_FPDU | CTL_BAD_CRC, data=send)
    s["iw-out-of-window"] = bytes([IW_FIXUP]) + \
        iw_seg(ctl=SEQ_BEYOND, data=payload, seq=5) + \
        iw_seg(ctl=SEQ_BEFORE, data=payload) + \
        iw_seg(ctl=SEQ_FAR, data=payload, seq=77)
    s["iw-rst-in-window"] = bytes([IW_FIXUP]) + \
        iw_seg(ctl=SEQ_IN_WINDOW, flags=RST | ACK, seq=1000) + \
        iw_seg(ctl=SEQ_BEYOND, flags=RST, seq=3)
    s["iw-rst-exact"] = bytes([IW_FIXUP]) + \
        iw_seg(ctl=SEQ_EXACT, flags=RST | ACK) + \
        iw_seg(ctl=CTL_FPDU, data=send)
    s["iw-truncated"] = bytes([IW_FIXUP]) + \
        iw_seg(ctl=CTL_FPDU | CTL_SPLIT, data=send, cut=40,
               split=SPLIT_TRUNCATED, flags=ACK | FIN)
    s["iw-split"] = bytes([IW_FIXUP]) + \
        iw_seg(ctl=CTL_FPDU | CTL_SPLIT, data=send, cut=30,
               split=SPLIT_IN_ORDER) + \
        iw_seg(ctl=CTL_FPDU | CTL_SPLIT, data=send, cut=90,
               split=SPLIT_REVERSED)
    s["iw-write-read"] = bytes([IW_FIXUP]) + \
        iw_seg(ctl=CTL_FPDU, data=fpdu_fields(RDMAP_WRITE, to=0x100) +
               payload) + \
        iw_seg(ctl=CTL_FPDU, data=fpdu_fields(RDMAP_READ_REQ, to=0x200,
                                              rr=4)) + \
        iw_seg(ctl=CTL_FPDU, data=fpdu_fields(RDMAP_READ_RESP | NOT_LAST,
                                              to=0x8200) + payload * 5) + \
        iw_seg(ctl=CTL_FPDU, data=fpdu_fields(RDMAP_READ_RESP,
                                              to=0x8200 + 125) +
               payload * 5) + bytes([2, 200])
    s["iw-bad-stag"] = bytes([IW_FIXUP]) + \
        iw_seg(ctl=CTL_FPDU, data=fpdu_fields(RDMAP_WRITE, stag=5) +
               payload) + \
        iw_seg(ctl=CTL_FPDU, conn=1,
               data=fpdu_fields(RDMAP_WRITE, stag=1 << 3, to=0x0010) +
               payload * 3)
    s["iw-syn"] = bytes([IW_FIXUP]) + \
        iw_seg(conn=2, flags=SYN, seq=0x1000, ports=0x9000 << 16,
               opts=b"\x02\x04\x05\xb4") + \
        iw_seg(conn=3, flags=SYN | ACK, ports=0x1234abcd, data=payload)
    # without FIXUP: the same bytes as they are
    s["iw-raw"] = bytes([0x04]) + iw_seg(ctl=CTL_FPDU, data=send)
    return s


# fuzz_admin.c
ADMIN_CMD, ADMIN_BUF = 0, 8
QUERY_FW, QUERY_DEVICE, QUERY_STATS, CREATE_EQ = 1, 2, 6, 8
ALLOC_UCTX, DEALLOC_UCTX, ALLOC_PD, DEALLOC_PD = 18, 19, 20, 21
CREATE_CQ, DESTROY_CQ, CREATE_QP, MODIFY_QP, QUERY_QP, DESTROY_QP = \
    32, 33, 36, 37, 38, 39
REG_MR, DEREG_MR = 44, 45
SCRATCH = 0x130000


def H(n):
    """the handle of the n-th most recent successful command"""
    return 0xfeedf000 | n


def B(off):
    """an address in the scratch buffer"""
    return 0xb0b0b0b0 << 32 | off


def cmd(opcode, *fields):
    raw = bytearray(64)
    raw[0] = opcode
    for off, fmt, val in fields:
        struct.pack_into("<" + fmt, raw, off, val)
    return bytes([ADMIN_CMD]) + bytes(raw)


def buf(off, data):
    return bytes([ADMIN_BUF]) + struct.pack("<HB", off, len(data)) + data


def admin_seeds():
    s = {}
    s["query"] = cmd(QUERY_FW) + \
        cmd(QUERY_DEVICE, (8, "Q", B(0)), (16, "I", 200)) + \
        cmd(QUERY_STATS, (8, "Q", B(0x400)), (16, "I", 256), (20, "I", 1))
    uctx_pd = cmd(ALLOC_UCTX) + cmd(ALLOC_PD, (8, "I", H(0)))
    cq = cmd(CREATE_CQ, (8, "I", H(1)), (16, "Q", B(0x4000)), (24, "I", 1),
             (28, "B", 12), (32, "Q", B(0x3000)), (40, "B", 6))
    mr = cmd(REG_MR, (8, "I", H(0)), (12, "I", H(1)), (16, "Q", 0x1000),
             (24, "Q", 0x2000), (32, "Q", B(0x6000)), (40, "I", 2),
             (44, "B", 12), (48, "I", 0xf), (52, "B", 0x11))
    s["objects"] = uctx_pd + mr + cq + \
        cmd(DEREG_MR, (8, "I", H(1))) + cmd(DESTROY_CQ, (8, "I", H(0))) + \
        cmd(DEALLOC_PD, (8, "I", H(0))) + cmd(DEALLOC_UCTX, (8, "I", H(0)))
    s["out-of-order"] = uctx_pd + mr + cmd(DEALLOC_PD, (8, "I", H(1))) + \
        cmd(DEALLOC_UCTX, (8, "I", H(2))) + cmd(DEREG_MR, (8, "I", H(0))) + \
        cmd(DEREG_MR, (8, "I", H(0)))
    qp_params = struct.pack("<IIIIII", 0, 0, 0, 0, 0xffffffff, 128)
    s["qp"] = uctx_pd + cq + buf(0x100, qp_params + bytes(40)) + \
        cmd(CREATE_QP, (8, "Q", B(0x100)), (16, "I", 64)) + \
        cmd(QUERY_QP, (8, "Q", B(0x200)), (16, "I", 72), (20, "I", H(0))) + \
        buf(0x200, struct.pack("<IB", 1, 1) + bytes(67)) + \
        cmd(MODIFY_QP, (8, "Q", B(0x200)), (16, "I", 72), (20, "I", H(0))) + \
        cmd(DESTROY_CQ, (8, "I", H(1))) + cmd(DESTROY_QP, (8, "I", H(0)))
    s["eq"] = cmd(CREATE_EQ, (8, "Q", B(0x8000)), (16, "B", 6), (17, "B", 1),
                  (18, "H", 1)) + \
        cmd(CREATE_CQ, (8, "I", 0), (12, "I", H(0)), (16, "Q", B(0x4000)),
            (24, "I", 1), (28, "B", 12), (32, "Q", B(0x3000)), (40, "B", 6))
    return s


def main():
    if len(sys.argv) < 2 or sys.argv[1].startswith("-"):
        sys.exit(__doc__.split("\n\n")[1])
    out = sys.argv[1]
    binary = sys.argv[2] if len(sys.argv) > 2 else None
    process = process_seeds()
    sets = {"process": process, "rx": rx_seeds(process, binary),
            "admin": admin_seeds()}
    for harness, seeds in sets.items():
        d = os.path.join(out, harness)
        os.makedirs(d, exist_ok=True)
        for name, data in seeds.items():
            open(os.path.join(d, name), "wb").write(data)
    reg = os.path.join(out, "regressions")
    os.makedirs(reg, exist_ok=True)
    open(os.path.join(reg, "process-uc-inline-flip"), "wb").write(
        defect1_regression())


if __name__ == "__main__":
    main()
