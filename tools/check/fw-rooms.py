#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""Check that the firmware's #include lines run one way.

The firmware lives in four rooms, each allowed to use the ones below it:

    wire <- objects <- transport <- device

wire/ (the RoCEv2 wire format and ICRC) includes nothing but its own
headers.  The headers at the top of firmware/ (ordma_fw.h, fw_priv.h)
are shared by every other room and include only each other
and wire/.  One edge goes against the direction, declared below: struct
fw_qp embeds the transport engine's per-QP state, and the QP objects call
the engine's QP hooks (state changes, send queue kicks, multicast
delivery) through objects/fw_qp.h.

Usage: fw-rooms.py [REPO]; prints one line per violation and exits 1 if
there are any.
"""
import os
import re
import sys

ROOMS = ["wire", "objects", "transport", "device"]
TOP = "top"
# (including file, included file), paths relative to firmware/
DECLARED_EXCEPTIONS = {
    ("objects/fw_qp.h", "transport/fw_transport.h"),
}

INCLUDE_RE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def room_of(path):
    head = path.split("/", 1)[0]
    return head if head in ROOMS else TOP


def allowed(src, dst):
    """May firmware file src include dst (both relative to firmware/)?"""
    if (src, dst) in DECLARED_EXCEPTIONS:
        return True
    src_room, dst_room = room_of(src), room_of(dst)
    if src_room == "wire":
        return dst_room == "wire"
    if src_room == TOP:
        return dst_room in (TOP, "wire")
    if dst_room == TOP:
        return True
    return ROOMS.index(dst_room) <= ROOMS.index(src_room)


def resolve(fw_dir, src, name):
    """The file a quoted include names, as the compiler would find it."""
    here = os.path.dirname(src)
    candidates = [os.path.normpath(os.path.join(here, name))]
    if room_of(src) != "wire":
        candidates.append(os.path.normpath(name))
    for cand in candidates:
        if os.path.isfile(os.path.join(fw_dir, cand)):
            return cand
    return None


def firmware_files(fw_dir):
    files = [f for f in os.listdir(fw_dir) if f.endswith(".h")]
    for room in ROOMS:
        d = os.path.join(fw_dir, room)
        if os.path.isdir(d):
            files += [f"{room}/{f}" for f in os.listdir(d)
                      if f.endswith((".c", ".h"))]
    return sorted(files)


def main():
    repo = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..")
    fw_dir = os.path.join(repo, "firmware")
    bad = []
    files = firmware_files(fw_dir)
    for src in files:
        with open(os.path.join(fw_dir, src), encoding="utf-8") as f:
            for lineno, line in enumerate(f, 1):
                m = INCLUDE_RE.match(line)
                if not m:
                    continue
                dst = resolve(fw_dir, src, m.group(1))
                where = f"firmware/{src}:{lineno}"
                if dst is None:
                    bad.append(f"{where}: \"{m.group(1)}\" is not a "
                               "firmware file this room may see")
                elif not allowed(src, dst):
                    bad.append(f"{where}: {room_of(src)} must not include "
                               f"{dst} ({room_of(dst)})")
    for line in bad:
        print(line)
    print(f"{len(files)} firmware files, {len(bad)} includes against "
          "wire <- objects <- transport <- device")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
