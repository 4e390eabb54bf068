#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""Check that the firmware's #include lines and calls run one way.

The firmware lives in rooms, each allowed to use the ones below it:

    wire <- platform <- objects <- tcp <- transport <- device

wire/ (the RoCEv2 wire format and ICRC) includes nothing but its own
headers.  platform/ holds the services every room uses (the HAL
wrappers, command helpers, event posting, the port's queries and frame
queueing).  The headers at the top of firmware/ (ordma_fw.h, fw_priv.h)
are shared by every other room and include only each other and wire/.

Includes: every quoted #include of every firmware file is resolved as
the compiler would and must name a file of the same room, a room below
or the top.  An include against the direction is a violation unless it
is listed in DECLARED_EXCEPTIONS with its reason; an exception no include
needs any more is reported too.  The list is empty: struct fw_qp embeds
the transport engine's per-QP state, but its types are defined with the
QP objects (objects/fw_qp_tp_state.h), and the QP objects call the
engine only through the hooks it registers (struct fw_qp_engine_ops),
never by name.

tcp/ holds the TCP offload: fw_tcp.c, a firmware file like any other,
and fw_tcp_stack.c, which is not: it is built with lwIP into copies of
the stack that refer to no firmware symbol at all (firmware/tcp/lwip.mk
keeps only their entry table global), so it is left out of the call
check (STACK_SOURCES); its includes are checked as the others'.

Calls: every .c of a room is compiled (with $CC, default cc, at -O0 so
that nothing is inlined away) and its undefined symbols (`nm`) are
matched against the functions the other files define.  A reference to a
function defined in a higher room is a violation unless it is listed in
CALL_EXCEPTIONS with its reason; an exception no call needs any more is
reported too, so that the list only shrinks.

Usage: fw-rooms.py [REPO]; prints one line per violation and exits 1 if
there are any.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOMS = ["wire", "platform", "objects", "tcp", "transport", "device"]
# Built with lwIP's headers into the stack's copies, never called by name
STACK_SOURCES = {"tcp/fw_tcp_stack.c"}
TOP = "top"
# (including file, included file), paths relative to firmware/, that may
# run against the direction, each with its reason.  Empty: no include
# does; an edge added here must say why it cannot be avoided.
DECLARED_EXCEPTIONS = set()

# (calling room, called function): why it still calls up.  Empty: the
# QP objects reach the transport engine through the hooks it registers
# (struct fw_qp_engine_ops, objects/fw_qp.h), multicast delivery is the
# engine's, and the RoCE engine's frames are queued by platform/.
CALL_EXCEPTIONS = {}

INCLUDE_RE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def room_of(path):
    head = path.split("/", 1)[0]
    return head if head in ROOMS else TOP


def allowed(src, dst):
    """May firmware file src include dst (both relative to firmware/)?"""
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


def check_includes(fw_dir, files):
    bad, used = [], set()
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
                elif allowed(src, dst):
                    continue
                elif (src, dst) in DECLARED_EXCEPTIONS:
                    used.add((src, dst))
                else:
                    bad.append(f"{where}: {room_of(src)} must not include "
                               f"{dst} ({room_of(dst)})")
    for src, dst in sorted(DECLARED_EXCEPTIONS - used):
        bad.append(f"tools/check/fw-rooms.py: exception ({src}, {dst}) "
                   "is no longer needed")
    return bad


def symbols(fw_dir, repo, sources, tmp):
    """{source: (defined functions, undefined symbols)} from nm."""
    cc = os.environ.get("CC", "cc")
    out = {}
    for src in sources:
        obj = os.path.join(tmp, src.replace("/", "_") + ".o")
        if room_of(src) == "wire":
            inc = ["-I", os.path.join(fw_dir, "wire")]
        else:
            inc = ["-I", os.path.join(repo, "include"), "-I", fw_dir]
        subprocess.run([cc, "-std=c11", "-D_GNU_SOURCE", "-O0", "-w",
                        *inc, "-c", os.path.join(fw_dir, src), "-o", obj],
                       check=True)
        nm = subprocess.run(["nm", obj], check=True, capture_output=True,
                            text=True).stdout
        defined, undefined = set(), set()
        for line in nm.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] == "T":
                defined.add(parts[2])
            elif len(parts) == 2 and parts[0] == "U":
                undefined.add(parts[1])
        out[src] = (defined, undefined)
    return out


def check_calls(fw_dir, repo, files):
    sources = [f for f in files if f.endswith(".c") and room_of(f) != TOP
               and f not in STACK_SOURCES]
    tmp = tempfile.mkdtemp(prefix="fw-rooms.")
    try:
        syms = symbols(fw_dir, repo, sources, tmp)
    finally:
        shutil.rmtree(tmp)
    owner = {}
    for src, (defined, _) in syms.items():
        for fn in defined:
            owner[fn] = src
    bad, used = [], set()
    for src in sources:
        room = room_of(src)
        for fn in sorted(syms[src][1]):
            dst = owner.get(fn)
            if dst is None or ROOMS.index(room_of(dst)) <= ROOMS.index(room):
                continue
            if (room, fn) in CALL_EXCEPTIONS:
                used.add((room, fn))
                continue
            bad.append(f"firmware/{src}: {room} must not call {fn}() "
                       f"of {dst} ({room_of(dst)})")
    for room, fn in sorted(set(CALL_EXCEPTIONS) - used):
        bad.append(f"tools/check/fw-rooms.py: exception ({room}, {fn}) "
                   "is no longer needed")
    return bad


def main():
    repo = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..")
    fw_dir = os.path.join(repo, "firmware")
    files = firmware_files(fw_dir)
    bad_inc = check_includes(fw_dir, files)
    bad_call = check_calls(fw_dir, repo, files)
    for line in bad_inc + bad_call:
        print(line)
    order = " <- ".join(ROOMS)
    print(f"{len(files)} firmware files, {len(bad_inc)} includes and "
          f"{len(bad_call)} calls against {order}, "
          f"{len(DECLARED_EXCEPTIONS)} includes and "
          f"{len(CALL_EXCEPTIONS)} calls up declared")
    return 1 if bad_inc or bad_call else 0


if __name__ == "__main__":
    sys.exit(main())
