#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""Tests of tools/diag/ordma-trace, TAP output.

Builds firmware traces and pcapng captures from Python values in a
temporary directory and runs the tool on them as a user would.  Prints
one "ok N - name" or "not ok N - name" line per test case and the plan;
exits non-zero when one fails.
"""

import html.parser
import importlib.machinery
import importlib.util
import os
import random
import struct
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "ordma-trace")

BASE = 1_700_000_000_000_000_000   # a wall-clock time in ns
NOQP = 0xFFFFFFFF

# ---------------------------------------------------------------- builders

REC = struct.Struct("<QQIIIIIHBB")


def rec(t, kind, addr=0, qpn=0, psn=0, index=0, length=0, aux=0, opcode=0,
        status=0):
    return (BASE + t, addr, qpn, psn, index, length, aux, kind, opcode,
            status)


def write_fwtrace(path, device, records, record_size=40, version=1,
                  magic=b"ORDMAFWT", tail=b""):
    with open(path, "wb") as f:
        f.write(struct.pack("<8sII32s16s", magic, version, record_size,
                            device.encode(), b""))
        for r in records:
            b = REC.pack(*r)
            f.write(b + bytes(record_size - len(b)) if record_size > 40
                    else b)
        f.write(tail)
    return path


def pad4(b):
    return b + bytes(-len(b) % 4)


def opt(e, code, value):
    return struct.pack(e + "HH", code, len(value)) + pad4(value)


def block(e, btype, body):
    n = 12 + len(body)
    return struct.pack(e + "II", btype, n) + body + struct.pack(e + "I", n)


def write_pcapng(path, ifaces, packets, e="<", snaplen=0):
    """ifaces: [(name, tsresol or None)]; packets: dicts with t (ns from
    BASE, in the interface's units when raw_ts), data, dir, comment,
    ifid, origlen, caplen."""
    out = block(e, 0x0A0D0D0A, struct.pack(e + "IHHq", 0x1A2B3C4D, 1, 0, -1)
                + opt(e, 0, b""))
    for name, tsresol in ifaces:
        opts = b""
        if name is not None:
            opts += opt(e, 2, name.encode())
        if tsresol is not None:
            opts += opt(e, 9, bytes([tsresol]))
        opts += opt(e, 0, b"")
        out += block(e, 1, struct.pack(e + "HHI", 1, 0, snaplen) + opts)
    for p in packets:
        data = p["data"]
        origlen = p.get("origlen", len(data))
        ts = p["raw_ts"] if "raw_ts" in p else BASE + p["t"]
        opts = b""
        if p.get("comment") is not None:
            opts += opt(e, 1, p["comment"].encode())
        if p.get("dir"):
            opts += opt(e, 2, struct.pack(e + "I", p["dir"]))
        if opts:
            opts += opt(e, 0, b"")
        out += block(e, 6, struct.pack(e + "IIIII", p.get("ifid", 0),
                                       ts >> 32, ts & 0xFFFFFFFF, len(data),
                                       origlen) + pad4(data) + opts)
    with open(path, "wb") as f:
        f.write(out)
    return path


def ipv4_udp(payload, sport=49152, dport=4791, src=b"\x0a\0\0\x01",
             dst=b"\x0a\0\0\x02", vlan=None):
    udp = struct.pack(">HHHH", sport, dport, 8 + len(payload), 0) + payload
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0x4000, 64,
                     17, 0, src, dst) + udp
    eth = b"\x02\0\0\0\0\x02\x02\0\0\0\0\x01"
    if vlan is not None:
        eth += struct.pack(">HH", 0x8100, vlan)
    return eth + b"\x08\x00" + ip


def ipv6_udp(payload, dport=4791):
    udp = struct.pack(">HHHH", 49152, dport, 8 + len(payload), 0) + payload
    ip = struct.pack(">IHBB16s16s", 0x60000000, len(udp), 17, 64,
                     bytes(15) + b"\x01", bytes(15) + b"\x02") + udp
    return b"\x02\0\0\0\0\x02\x02\0\0\0\0\x01\x86\xdd" + ip


def bth(opcode, qpn, psn, ackreq=False, pad=0):
    return struct.pack(">BBHII", opcode, pad << 4, 0xFFFF, qpn & 0xFFFFFF,
                       (0x80000000 if ackreq else 0) | psn)


def roce(opcode, qpn, psn, ext=b"", payload=b"", **kw):
    return ipv4_udp(bth(opcode, qpn, psn, **kw) + ext + payload + bytes(4))


def reth(va, rkey, dlen):
    return struct.pack(">QII", va, rkey, dlen)


def aeth(syndrome, msn):
    return struct.pack(">I", syndrome << 24 | msn)


# ---------------------------------------------------------------- running

def run_tool(*args, check=True):
    p = subprocess.run([sys.executable, TOOL] + [str(a) for a in args],
                       capture_output=True, text=True)
    if check and p.returncode != 0:
        raise AssertionError("exit %d: %s" % (p.returncode, p.stderr))
    return p


def rows(out):
    return [line for line in out.splitlines() if not line.startswith("#")]


class Base(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.dir = self._tmp.name

    def tearDown(self):
        self._tmp.cleanup()

    def path(self, name):
        return os.path.join(self.dir, name)


# ---------------------------------------------------------------- decoding

ALL_KINDS = [
    rec(0, 1, index=5, aux=0x77, opcode=0x12),
    rec(1, 2, qpn=17, index=0x20, aux=1, opcode=0),
    rec(2, 3, addr=0x1000, qpn=17, psn=1000, index=3, length=4096,
        opcode=5),
    rec(3, 4, qpn=17, psn=1000, length=0, aux=18, opcode=0x0C),
    rec(4, 5, qpn=17, psn=1000, length=4096, opcode=0x10, status=0x1F),
    rec(5, 6, qpn=18, psn=7, aux=22, opcode=0x04, status=0),
    rec(6, 6, qpn=18, psn=8, opcode=0x04, status=10),
    rec(7, 7, qpn=17, psn=1000, index=3, aux=2, status=1),
    rec(8, 8, qpn=18, index=0, length=64, aux=3, opcode=0x80, status=0),
    rec(9, 8, qpn=17, index=4, aux=3, opcode=2, status=12),
    rec(10, 9, qpn=17, index=12, aux=1, opcode=0x20, status=1),
    rec(11, 10, index=2),
    rec(12, 11, qpn=17, opcode=2, status=3),
    rec(13, 12, addr=0xdead000, qpn=17, length=4096, status=0),
    rec(14, 13, addr=0xbeef000, qpn=NOQP, length=64, status=1),
    rec(15, 0x8000, aux=42),
    rec(16, 99, addr=0x55, qpn=1, psn=2, index=3, length=4, aux=5,
        opcode=6, status=7),
    rec(17, 5, qpn=17, psn=1001, opcode=0x11, status=0x60 | 0),
    rec(18, 5, qpn=17, psn=1002, opcode=0x11, status=0x20 | 5),
]


class Decode(Base):
    out = None

    @classmethod
    def setUpClass(cls):
        cls._ctmp = tempfile.TemporaryDirectory()
        p = write_fwtrace(os.path.join(cls._ctmp.name, "a.fwtrace"),
                          "ordma0", ALL_KINDS)
        cls.out = run_tool(p).stdout
        cls.lines = rows(cls.out)

    @classmethod
    def tearDownClass(cls):
        cls._ctmp.cleanup()

    def line(self, i):
        return self.lines[i]

    def has(self, i, kind, *words):
        line = self.line(i)
        cols = line.split()
        self.assertEqual(cols[1], "ordma0", line)
        self.assertIn(kind, line)
        for w in words:
            self.assertIn(w, line)

    def test_row_count_and_time(self):
        self.assertEqual(len(self.lines), len(ALL_KINDS))
        self.assertTrue(self.lines[0].split()[0] == "0.000")
        self.assertEqual(self.lines[3].split()[0], "0.003")
        self.assertIn("# time 0: 2023-11-14T22:13:20.000000000Z", self.out)

    def test_admin(self):
        self.has(0, "ADMIN", "aq 5", "admin op 0x12", "token 0x77")

    def test_doorbell(self):
        self.has(1, "DOORBELL", "SQ  qp 17", "value 0x20", "page 1")

    def test_wqe(self):
        self.has(2, "WQE", "qp 17", "wqe 3", "RDMA_READ", "psn 1000",
                 "len 4096", "va 0x1000")

    def test_tx(self):
        self.has(3, "TX", "qp 17 -> qp 18", "psn 1000",
                 "RC RDMA_READ_REQUEST", "len 0")
        self.assertNotIn("ACK", self.line(3))

    def test_rx_aeth(self):
        self.has(4, "RX", "qp 17", "RC RDMA_READ_RESPONSE_ONLY",
                 "ACK credits 31", "len 4096")
        self.has(17, "RX", "RC ACKNOWLEDGE", "NAK PSN_SEQ_ERR")
        self.has(18, "RX", "RNR_NAK timer 5")

    def test_rx_drop(self):
        # a frame that did not parse: its BTH as received, if it had one
        self.has(5, "RX_DROP", "qp 18", "psn 7", "RC SEND_ONLY",
                 "drop parse (ICRC)")
        self.has(6, "RX_DROP", "psn 8", "drop duplicate")

    def test_retransmit(self):
        self.has(7, "RETRANSMIT", "qp 17", "psn 1000", "wqe 3", "retry 2",
                 "timeout")

    def test_cqe(self):
        self.has(8, "CQE", "qp 18", "cqn 3", "wqe 0", "RECV", "SUCCESS",
                 "len 64")
        self.has(9, "CQE", "RDMA_READ", "RETRY_EXC_ERR")

    def test_eqe(self):
        self.has(10, "EQE", "eqn 1", "QP_FATAL", "qp 17", "full")

    def test_msix(self):
        self.has(11, "MSIX", "vector 2")

    def test_qp_state(self):
        self.has(12, "QP_STATE", "qp 17", "RTR -> RTS")

    def test_dma(self):
        self.has(13, "DMA_READ", "qp 17", "addr 0xdead000", "len 4096", "ok")
        self.has(14, "DMA_WRITE", "qp -", "FAILED")

    def test_lost(self):
        self.has(15, "LOST", "lost 42 records")
        self.assertIn("# LOST: 42 records lost", self.out)

    def test_unknown_kind(self):
        self.has(16, "kind 99", "addr 0x55", "aux 0x5", "opcode 0x06")

    def test_summary(self):
        self.assertIn("# rows: 19 shown of 19", self.out)
        self.assertRegex(self.out, r"# RX +3/3")


class ParseDrop(Base):
    def test_without_bth(self):
        fw = write_fwtrace(self.path("a.fwtrace"), "ordma0", [
            rec(0, 6, qpn=0xffffffff, aux=14, status=0)])
        lines = rows(run_tool(fw).stdout)
        self.assertEqual(len(lines), 1)
        self.assertIn("drop parse (UDP_PORT)", lines[0])
        self.assertNotIn("psn", lines[0])
        # no PSN: never inside a PSN range
        self.assertEqual(rows(run_tool("--psn", "0-100", fw).stdout), [])


# ---------------------------------------------------------------- merging

class Merge(Base):
    def make(self):
        a = write_fwtrace(self.path("a.fwtrace"), "ordma0", [
            rec(0, 10, index=1), rec(10, 10, index=2), rec(20, 10, index=3)])
        b = write_fwtrace(self.path("b.fwtrace"), "ordma1", [
            rec(5, 10, index=11), rec(10, 10, index=12),
            rec(25, 10, index=13)])
        c = write_pcapng(self.path("c.pcapng"), [("ordma0", 9)], [
            dict(t=3, data=roce(4, 18, 1), dir=2),
            dict(t=10, data=roce(4, 18, 2), dir=2)])
        d = write_pcapng(self.path("d.pcapng"), [("ordma1", 9)], [
            dict(t=10, data=roce(4, 17, 3), dir=1),
            dict(t=22, data=roce(4, 17, 4), dir=1)])
        return a, b, c, d

    def test_interleaved_and_ties(self):
        a, b, c, d = self.make()
        lines = rows(run_tool(a, b, c, d).stdout)
        got = [(x.split()[0], x.split()[1], x.split()[2]) for x in lines]
        self.assertEqual(got, [
            ("0.000", "ordma0", "MSIX"), ("0.003", "wire:ordma0", "out"),
            ("0.005", "ordma1", "MSIX"),
            ("0.010", "ordma0", "MSIX"), ("0.010", "ordma1", "MSIX"),
            ("0.010", "wire:ordma0", "out"), ("0.010", "wire:ordma1", "in"),
            ("0.020", "ordma0", "MSIX"), ("0.022", "wire:ordma1", "in"),
            ("0.025", "ordma1", "MSIX")])

    def test_tie_order_follows_command_line(self):
        a, b, c, d = self.make()
        lines = rows(run_tool(d, c, b, a).stdout)
        tied = [x.split()[1] for x in lines if x.split()[0] == "0.010"]
        self.assertEqual(tied, ["wire:ordma1", "wire:ordma0", "ordma1",
                                "ordma0"])

    def test_directory_argument(self):
        self.make()
        with open(self.path("notes.txt"), "w") as f:
            f.write("not an input\n")
        out = run_tool(self.dir).stdout
        self.assertEqual(len(rows(out)), 10)
        for n in ("a.fwtrace", "b.fwtrace", "c.pcapng", "d.pcapng"):
            self.assertIn(n, out)
        self.assertNotIn("notes.txt", out)

    def test_unsorted_file_is_sorted(self):
        a = write_fwtrace(self.path("a.fwtrace"), "ordma0", [
            rec(30, 10, index=3), rec(10, 10, index=1),
            rec(20, 10, index=2)])
        p = run_tool(a)
        self.assertIn("not in time order", p.stderr)
        self.assertEqual([x.split()[-1] for x in rows(p.stdout)],
                         ["1", "2", "3"])

    def test_output_file_and_limit(self):
        a, b, c, d = self.make()
        o = self.path("out.txt")
        p = run_tool("-o", o, "--limit", "3", a, b, c, d)
        self.assertEqual(p.stdout, "")
        with open(o) as f:
            text = f.read()
        self.assertEqual(len(rows(text)), 3)
        self.assertIn("# rows: 3 shown of 10", text)

    def test_time_window(self):
        a, b, c, d = self.make()
        lines = rows(run_tool("--from-us", "0.005", "--to-us", "0.020",
                              a, b, c, d).stdout)
        self.assertEqual([x.split()[0] for x in lines],
                         ["0.005", "0.010", "0.010", "0.010", "0.010",
                          "0.020"])


# ---------------------------------------------------------------- filters

class Filters(Base):
    def make(self):
        fw = write_fwtrace(self.path("a.fwtrace"), "ordma0", [
            rec(0, 3, qpn=17, psn=100, opcode=0),
            rec(1, 4, qpn=17, psn=100, aux=18, opcode=4),
            rec(2, 4, qpn=19, psn=200, aux=20, opcode=4),
            rec(3, 8, qpn=18, aux=1, opcode=0x80),
            rec(4, 12, qpn=17, length=8),
            rec(5, 13, qpn=17, length=8),
            rec(6, 10, index=1),
            rec(7, 2, qpn=17, opcode=0),
            rec(8, 2, qpn=17, opcode=3),
            rec(9, 0x8000, aux=3),
        ])
        fw2 = write_fwtrace(self.path("b.fwtrace"), "ordma1", [
            rec(0, 5, qpn=18, psn=101, opcode=4)])
        cap = write_pcapng(self.path("c.pcapng"), [("ordma0", 9)], [
            dict(t=1, data=roce(4, 18, 100), dir=2),
            dict(t=2, data=roce(0x64, 21, 102,
                                ext=struct.pack(">II", 0x11111111, 17)),
                 dir=1),
            dict(t=3, data=bytes(60), comment="mark: begin test x", dir=2),
            dict(t=4, data=roce(4, 20, 200), dir=2),
            dict(t=5, data=ipv4_udp(b"dns", 1234, 53), dir=2),
        ])
        return fw, fw2, cap

    def test_qpn(self):
        out = run_tool("--qpn", "17", *self.make()).stdout
        lines = rows(out)
        text = "\n".join(lines)
        self.assertIn("WQE", text)
        self.assertIn("qp 17 -> qp 18", text)
        self.assertNotIn("qp 19", text)
        self.assertIn("DMA_READ", text)
        self.assertIn("SQ  qp 17", text)
        self.assertNotIn("CQ  cq 17", text)
        self.assertIn("UD SEND_ONLY", text)        # DETH source QP 17
        self.assertIn("MARK", text)
        self.assertIn("LOST", text)
        self.assertNotIn("qp 18  psn 101", text)
        self.assertNotIn("53", text)

    def test_qpn_list_and_hex(self):
        out = run_tool("--qpn", "0x12,20", *self.make()).stdout
        text = "\n".join(rows(out))
        self.assertIn("qp 17 -> qp 18", text)      # TX by its dest QP
        self.assertIn("CQE", text)
        self.assertIn("qp 18  psn 101", text)
        self.assertIn("qp 19 -> qp 20", text)
        self.assertIn("RC SEND_ONLY  qp 20  psn 200", text)
        self.assertNotIn("WQE", text)

    def test_psn_inclusive(self):
        out = run_tool("--psn", "100-101", *self.make()).stdout
        lines = rows(out)
        kinds = [x.split()[2] for x in lines]
        self.assertEqual(kinds, ["WQE", "RX", "TX", "out", "MARK", "LOST"])
        out = run_tool("--psn", "102", *self.make()).stdout
        self.assertEqual([x.split()[2] for x in rows(out)],
                         ["in", "MARK", "LOST"])
        out = run_tool("--psn", "0xc8", *self.make()).stdout
        self.assertIn("psn 200", out)

    def test_kind(self):
        out = run_tool("--kind", "tx,Cqe", *self.make()).stdout
        self.assertEqual([x.split()[2] for x in rows(out)],
                         ["TX", "TX", "CQE"])
        out = run_tool("--kind", "wire,mark", *self.make()).stdout
        self.assertEqual([x.split()[2] for x in rows(out)],
                         ["out", "in", "MARK", "out", "out"])
        out = run_tool("--kind", "in", *self.make()).stdout
        self.assertEqual([x.split()[2] for x in rows(out)], ["in"])

    def test_device(self):
        out = run_tool("--device", "ordma1", *self.make()).stdout
        self.assertEqual([x.split()[1] for x in rows(out)], ["ordma1"])
        out = run_tool("--device", "ordma0", *self.make()).stdout
        devs = set(x.split()[1] for x in rows(out))
        self.assertEqual(devs, {"ordma0", "wire:ordma0"})
        out = run_tool("--device", "wire:ordma0", *self.make()).stdout
        devs = set(x.split()[1] for x in rows(out))
        self.assertEqual(devs, {"wire:ordma0"})

    def test_no_dma(self):
        out = run_tool("--no-dma", *self.make()).stdout
        self.assertNotIn("DMA_", "\n".join(rows(out)))
        self.assertIn("WQE", out)
        self.assertIn("# rows: 14 shown of 16", out)

    def test_usage_errors(self):
        fw, _, _ = self.make()
        for args in (["--psn", "5-1"], ["--psn", "x"], ["--kind", "bogus"],
                     ["--qpn", "q"], ["--bogus"], []):
            p = run_tool(*(args + ([fw] if args else [])), check=False)
            self.assertEqual(p.returncode, 2, args)


# ---------------------------------------------------------------- wire

class Wire(Base):
    def run_frames(self, packets, ifaces=(("ordma0", 9),), e="<"):
        cap = write_pcapng(self.path("w.pcapng"), list(ifaces), packets, e=e)
        return run_tool(cap)

    def test_roce_headers(self):
        p = self.run_frames([
            dict(t=0, data=roce(0x0C, 18, 1000, ext=reth(0x1000, 5, 4096),
                                ackreq=True), dir=2, comment="loss"),
            dict(t=1, data=roce(0x10, 17, 1000, ext=aeth(0x1F, 9),
                                payload=bytes(64)), dir=1),
            dict(t=2, data=roce(0x13, 18, 5,
                                ext=struct.pack(">QIQQ", 0x2000, 6, 1, 2)),
                 dir=2),
            dict(t=3, data=roce(0x0B, 18, 6, ext=reth(0x3000, 7, 3) +
                                struct.pack(">I", 0xabc),
                                payload=b"xyz", pad=1), dir=2),
            dict(t=4, data=ipv6_udp(bth(0x04, 18, 7) + bytes(10) + bytes(4)),
                 dir=2),
            dict(t=5, data=ipv4_udp(bth(0x04, 18, 8) + bytes(4), vlan=5),
                 dir=2),
            dict(t=6, data=roce(0x81, 18, 0, ext=bytes(16)), dir=1),
        ])
        lines = rows(p.stdout)
        self.assertEqual(lines[0].split()[1:3], ["wire:ordma0", "out"])
        for w in ("RC RDMA_READ_REQUEST", "qp 18", "psn 1000", "ack-req",
                  "va 0x1000 rkey 0x5 len 4096", "payload 0", "[loss]"):
            self.assertIn(w, lines[0])
        for w in ("RC RDMA_READ_RESPONSE_ONLY", "ACK credits 31 msn 9",
                  "payload 64"):
            self.assertIn(w, lines[1])
        self.assertIn("va 0x2000 rkey 0x6 swap 0x1 cmp 0x2", lines[2])
        self.assertIn("payload 0", lines[2])
        self.assertIn("imm 0xabc", lines[3])
        self.assertIn("payload 2", lines[3])
        self.assertIn("RC SEND_ONLY  qp 18  psn 7", lines[4])
        self.assertIn("payload 10", lines[4])
        self.assertIn("vlan 5", lines[5])
        self.assertIn("CNP", lines[6])

    def test_non_roce(self):
        arp = b"\xff" * 6 + b"\2" * 6 + b"\x08\x06" + bytes(28)
        pause = b"\x01\x80\xc2\0\0\x01" + b"\2" * 6 + b"\x88\x08" + bytes(46)
        lines = rows(self.run_frames([
            dict(t=0, data=arp, dir=2),
            dict(t=1, data=pause, dir=1),
            dict(t=2, data=ipv4_udp(b"q", 1234, 53)),
        ]).stdout)
        self.assertIn("ARP", lines[0])
        self.assertIn("ethertype 0x8808 (PAUSE)", lines[1])
        self.assertIn("IPv4 UDP 10.0.0.1:1234 > 10.0.0.2:53", lines[2])
        self.assertEqual(lines[2].split()[2], "frame")

    def test_snap_length(self):
        full = roce(0x0A, 18, 9, ext=reth(0x4000, 1, 1000),
                    payload=bytes(1000))
        lines = rows(self.run_frames([
            dict(t=0, data=full[:128], origlen=len(full), dir=2),
            dict(t=1, data=full[:60], origlen=len(full), dir=2),
            dict(t=2, data=full[:40], origlen=len(full), dir=2),
            dict(t=3, data=full[:10], origlen=len(full), dir=2),
        ]).stdout)
        self.assertIn("RC RDMA_WRITE_ONLY  qp 18  psn 9", lines[0])
        self.assertIn("payload 1000", lines[0])
        self.assertNotIn("truncated", lines[0])
        self.assertIn("RC RDMA_WRITE_ONLY  qp 18  psn 9", lines[1])
        self.assertIn("(truncated)", lines[1])
        self.assertIn("10.0.0.1 > 10.0.0.2", lines[2])
        self.assertIn("(truncated)", lines[2])
        self.assertIn("(truncated)", lines[3])

    def test_impairments_and_marks(self):
        lines = rows(self.run_frames([
            dict(t=0, data=bytes(60), comment="mark: begin test rc_pingpong",
                 dir=2),
            dict(t=1, data=roce(4, 18, 1), dir=2,
                 comment="corrupt bit 77, dup, late 30 us"),
            dict(t=2, data=roce(4, 18, 2), dir=2, comment="delay 5 us"),
        ]).stdout)
        self.assertEqual(lines[0].split()[2], "MARK")
        self.assertIn("begin test rc_pingpong", lines[0])
        self.assertIn("[corrupt bit 77, dup, late 30 us]", lines[1])
        self.assertIn("[delay 5 us]", lines[2])

    def test_big_endian(self):
        p = self.run_frames([
            dict(t=0, data=roce(4, 18, 1), dir=2, comment="reorder"),
            dict(t=1500, data=roce(4, 18, 2), dir=1),
        ], e=">")
        lines = rows(p.stdout)
        self.assertIn("out", lines[0])
        self.assertIn("[reorder]", lines[0])
        self.assertTrue(lines[1].startswith("       1.500"), lines[1])
        self.assertIn("psn 2", lines[1])

    def test_tsresol_and_several_idbs(self):
        t0 = BASE // 1000         # microseconds: no if_tsresol
        cap = write_pcapng(self.path("w.pcapng"), [
            ("ordma0", None), ("ordma0", 0x80 | 30), (None, 9)], [
            dict(raw_ts=t0, data=roce(4, 18, 1), dir=2, ifid=0),
            dict(raw_ts=-(-((BASE + 3000) << 30) // 10 ** 9),
                 data=roce(4, 18, 2), dir=2, ifid=1),
            dict(raw_ts=BASE + 3000, data=roce(4, 18, 3), dir=2, ifid=2),
        ])
        fw = write_fwtrace(self.path("a.fwtrace"), "ordma0",
                           [rec(2000, 10, index=1)])
        lines = rows(run_tool(cap, fw).stdout)
        self.assertEqual([x.split()[0] for x in lines][0], "0.000")
        self.assertEqual([x.split()[1] for x in lines],
                         ["wire:ordma0", "ordma0", "wire:ordma0", "wire:w#2"])
        self.assertEqual([x.split()[0] for x in lines],
                         ["0.000", "2.000", "3.000", "3.000"])
        self.assertIn("psn 2", lines[2])


# ---------------------------------------------------------------- robustness

def load_tool():
    loader = importlib.machinery.SourceFileLoader("ordma_trace", TOOL)
    spec = importlib.util.spec_from_loader("ordma_trace", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


class Decoder(unittest.TestCase):
    def test_every_prefix_of_every_opcode(self):
        mod = load_tool()
        iface = mod.Iface("x", 1, 9, 0)
        rnd = random.Random(7)
        for opcode in range(256):
            frame = roce(opcode, 18, 77, ext=bytes(rnd.randrange(256)
                                                   for _ in range(40)),
                         payload=bytes(8))
            for n in range(len(frame) + 1):
                fr = mod.Frame(iface, 2, frame[:n], len(frame), None)
                self.assertNotIn("\n", fr.text)
                if n >= 54:
                    self.assertEqual((fr.qpn, fr.psn), (18, 77))
        for _ in range(2000):
            junk = bytes(rnd.randrange(256)
                         for _ in range(rnd.randrange(80)))
            mod.Frame(iface, rnd.randrange(4), junk, 1500, "a\nb")

    def test_payload_lengths(self):
        mod = load_tool()
        iface = mod.Iface("x", 1, 9, 0)
        cases = [(0x04, b"", 33), (0x0A, reth(1, 2, 33), 33),
                 (0x11, aeth(0, 1), 0), (0x12, aeth(0, 1) + bytes(8), 0),
                 (0x1C, bytes(4) + reth(1, 2, 0), 0),
                 (0x1D, reth(1, 2, 8), 8),
                 (0x17, bytes(4), 33), (0x65, bytes(12), 33)]
        for opcode, ext, n in cases:
            data = roce(opcode, 5, 6, ext=ext, payload=bytes(n))
            fr = mod.Frame(iface, 1, data, len(data), None)
            self.assertIn("payload %d" % n, fr.text, hex(opcode))
            self.assertNotIn("truncated", fr.text)


class Robust(Base):
    def test_truncated_last_record(self):
        fw = write_fwtrace(self.path("a.fwtrace"), "ordma0",
                           [rec(0, 10, index=1), rec(1, 10, index=2)],
                           tail=bytes(17))
        p = run_tool(fw)
        self.assertIn("truncated", p.stderr)
        self.assertIn("a.fwtrace", p.stderr)
        self.assertEqual(len(rows(p.stdout)), 2)

    def test_larger_record_size(self):
        fw = write_fwtrace(self.path("a.fwtrace"), "vmA.ordma0", [
            rec(0, 4, qpn=17, psn=5, aux=18, opcode=4),
            rec(1, 8, qpn=18, aux=3, opcode=0x80, length=9)],
            record_size=56, version=2)
        with open(fw, "r+b") as f:       # fill the appended fields
            f.seek(64 + 40)
            f.write(b"\xff" * 16)
        lines = rows(run_tool(fw).stdout)
        self.assertEqual(len(lines), 2)
        self.assertIn("vmA.ordma0", lines[0])
        self.assertIn("qp 17 -> qp 18  psn 5", lines[0])
        self.assertIn("CQE", lines[1])
        self.assertIn("len 9", lines[1])
        self.assertEqual(lines[1].split()[0], "0.001")

    def test_bad_magic(self):
        fw = write_fwtrace(self.path("bad.fwtrace"), "ordma0",
                           [rec(0, 10)], magic=b"ORDMAXXX")
        p = run_tool(fw, check=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn("bad.fwtrace", p.stderr)
        self.assertIn("magic", p.stderr)
        p = run_tool(self.path("missing.fwtrace"), check=False)
        self.assertEqual(p.returncode, 1)

    def test_garbage_pcapng_no_crash(self):
        good = write_pcapng(self.path("w.pcapng"), [("ordma0", 9)], [
            dict(t=0, data=roce(4, 18, 1), dir=2)])
        with open(good, "rb") as f:
            data = f.read()
        with open(good, "wb") as f:
            f.write(data[:-10])
        p = run_tool(good, check=False)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("truncated", p.stderr)


# ---------------------------------------------------------------- HTML

class Page(html.parser.HTMLParser):
    VOID = {"meta", "br", "link", "img", "hr", "input"}

    def __init__(self):
        super().__init__()
        self.stack = []
        self.errors = []
        self.rows = []
        self.in_tbody = False
        self.doctype = False

    def handle_decl(self, decl):
        self.doctype = decl.lower() == "doctype html"

    def handle_starttag(self, tag, attrs):
        if tag == "tbody":
            self.in_tbody = True
        if tag == "tr" and self.in_tbody:
            self.rows.append(dict(attrs).get("class", ""))
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if tag == "tbody":
            self.in_tbody = False
        if not self.stack or self.stack[-1] != tag:
            self.errors.append("unexpected </%s> (open: %s)"
                               % (tag, self.stack[-3:]))
        else:
            self.stack.pop()


class Html(Base):
    def test_page(self):
        fw = write_fwtrace(self.path("a.fwtrace"), "ordma0", [
            rec(0, 4, qpn=17, psn=1, aux=18, opcode=4),
            rec(1, 8, qpn=17, aux=3, opcode=0, status=12),
            rec(2, 8, qpn=17, aux=3, opcode=0, status=0),
            rec(3, 6, qpn=17, psn=3, opcode=4, status=9),
            rec(4, 12, qpn=17, length=4),
            rec(5, 10, index=1)])
        cap = write_pcapng(self.path("w.pcapng"), [("ordma<0>", 9)], [
            dict(t=0, data=roce(4, 18, 1), dir=2, comment="loss, <dup>"),
            dict(t=2, data=bytes(60), comment="mark: a & b", dir=2),
            dict(t=3, data=roce(4, 17, 1), dir=1)])
        page = self.path("t.html")
        p = run_tool("--html", page, fw, cap)
        self.assertIn("# rows: 9 shown of 9", p.stdout)
        self.assertEqual(rows(p.stdout), [])
        with open(page, encoding="utf-8") as f:
            text = f.read()
        parser = Page()
        parser.feed(text)
        parser.close()
        self.assertTrue(parser.doctype)
        self.assertEqual(parser.errors, [])
        self.assertEqual(parser.stack, [])
        classes = parser.rows
        self.assertEqual(len(classes), 9)
        self.assertEqual(classes[0], "k-tx")
        self.assertIn("wire-out", classes[1])
        self.assertEqual(classes[2], "k-cqe err")
        self.assertEqual(classes[3], "k-cqe")
        self.assertEqual(classes[4], "mark")
        self.assertIn("k-rx_drop", classes[5])
        self.assertEqual(classes[6], "wire-in")
        self.assertEqual(classes[7], "k-dma_read")
        self.assertEqual(classes[8], "k-msix")
        self.assertIn('<span class="badge">&lt;dup&gt;</span>', text)
        self.assertIn("wire:ordma&lt;0&gt;", text)
        self.assertIn("a &amp; b", text)
        self.assertEqual(text.count("<details>"), 2)
        self.assertNotIn("<script", text)
        self.assertNotIn("http", text)

    def test_html_and_text(self):
        fw = write_fwtrace(self.path("a.fwtrace"), "ordma0",
                           [rec(0, 10, index=1)])
        page = self.path("t.html")
        o = self.path("t.txt")
        p = run_tool("--html", page, "-o", o, "--kind", "msix", fw)
        self.assertEqual(p.stdout, "")
        with open(o) as f:
            self.assertEqual(len(rows(f.read())), 1)
        with open(page) as f:
            self.assertIn("--kind msix", f.read())

    def test_html_rows_cap(self):
        fw = write_fwtrace(self.path("a.fwtrace"), "ordma0",
                           [rec(i, 10, index=i) for i in range(5)])
        page = self.path("t.html")
        o = self.path("t.txt")
        run_tool("--html", page, "--html-rows", "2", "-o", o, fw)
        with open(o) as f:
            self.assertEqual(len(rows(f.read())), 5)
        with open(page) as f:
            text = f.read()
        self.assertEqual(text.count('<tr class='), 2)
        self.assertIn("first 2 rows; 3 more are left out", text)


# ---------------------------------------------------------------- TAP

class TapResult(unittest.TestResult):
    def __init__(self):
        super().__init__()
        self.n = 0

    def _line(self, test, ok, err=None):
        self.n += 1
        name = "%s.%s" % (type(test).__name__, test._testMethodName)
        print("%s %d - %s" % ("ok" if ok else "not ok", self.n, name))
        if err is not None:
            for line in self._exc_info_to_string(err, test).splitlines():
                print("# " + line)
        sys.stdout.flush()

    def addSuccess(self, test):
        super().addSuccess(test)
        self._line(test, True)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._line(test, False, err)

    def addError(self, test, err):
        super().addError(test, err)
        if isinstance(test, unittest.TestCase):
            self._line(test, False, err)
        else:
            print("# error outside a test: %s" % test)
            for line in self._exc_info_to_string(err, None).splitlines():
                print("# " + line)

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self.n += 1
        print("ok %d - %s.%s # SKIP %s" % (self.n, type(test).__name__,
                                          test._testMethodName, reason))


def main():
    suite = unittest.defaultTestLoader.loadTestsFromModule(
        sys.modules[__name__])
    print("TAP version 13")
    print("1..%d" % suite.countTestCases())
    sys.stdout.flush()
    result = TapResult()
    suite.run(result)
    return 0 if result.wasSuccessful() and \
        result.n == suite.countTestCases() else 1


if __name__ == "__main__":
    sys.exit(main())
