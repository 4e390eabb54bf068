#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Guest side of the proof that Linux rdma_rxe accepts the frames the
# firmware builds.  Run it in the harness's smoke topology with the
# wire_pcap program of the firmware tests:
#
#   QEMU=<any qemu-system-x86_64> ORDMA_PROVIDER_DIR=/nonexistent \
#     tools/vm/run-vm.sh -t 300 -o build/vm/rxe-accepts \
#     -c "$PWD/firmware/tests/wire/vectors/rxe-accepts.sh $PWD/build/firmware/wire_pcap" smoke
#
# rxe1 sits on NIC 2 (192.0.2.2, 2001:db8::2); `wire_pcap probe` writes UD
# SENDs to its QP1 from 192.0.2.1 / 2001:db8::1, which are sent raw out
# of NIC 1 across the cable, one at a time.  rdma_rxe counts a packet in
# rcvd_pkts only after its header checks and its ICRC check, so each
# good frame must add exactly one and each damaged one (wrong ICRC, wrong
# IPv6 UDP checksum) none.  Prints TAP.
set -u
R=${ORDMA_RESULTS:-/mnt/results}
TOOL=${1:?usage: rxe-accepts.sh WIRE_PCAP}
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

nics=()
for d in /sys/class/net/*/device/driver; do
	[ "$(basename "$(readlink -f "$d")")" = virtio_net ] &&
		nics+=("$(basename "$(dirname "$(dirname "$d")")")")
done
[ ${#nics[@]} -eq 2 ] || { echo "need two virtio-net NICs, have ${nics[*]}"; exit 1; }
a=${nics[0]}
b=${nics[1]}
modprobe crc32_generic && modprobe rdma_rxe && modprobe ib_uverbs || exit 1
for c in all default "$b"; do
	sysctl -qw "net.ipv4.conf.$c.rp_filter=0"
done
ip link set "$a" up
ip link set "$b" up
ip addr add 192.0.2.2/24 dev "$b"
ip -6 addr add 2001:db8::2/64 dev "$b" nodad
rdma link add rxe1 type rxe netdev "$b" || exit 1
counter=/sys/class/infiniband/rxe1/ports/1/hw_counters/rcvd_pkts
for _ in $(seq 50); do
	grep -qs 0000:0000:0000:0000:0000:ffff:c000:0202 \
		/sys/class/infiniband/rxe1/ports/1/gids/* &&
	grep -qs 2001:0db8:0000:0000:0000:0000:0000:0002 \
		/sys/class/infiniband/rxe1/ports/1/gids/* && break
	sleep 0.2
done

"$TOOL" probe "$R/probe.pcap" >"$R/probe.txt" || exit 1
python3 - "$R/probe.pcap" "$R/probe.txt" "$a" "$counter" <<'PY'
import socket
import struct
import sys
import time

pcap, expect, ifname, counter = sys.argv[1:5]
data = open(pcap, "rb").read()
frames, off = [], 24
while off + 16 <= len(data):
    caplen = struct.unpack("<I", data[off + 8:off + 12])[0]
    frames.append(data[off + 16:off + 16 + caplen])
    off += 16 + caplen
want = [line.split(None, 2) for line in open(expect)]


def count():
    return int(open(counter).read())


s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((ifname, 0))
print("TAP version 13")
failed = 0
for (num, verdict, what), frame in zip(want, frames):
    before = count()
    s.send(frame)
    time.sleep(0.5)
    delta = count() - before
    expected = 1 if verdict == "counted" else 0
    ok = delta == expected
    failed += not ok
    print("%s %s - rxe %s frame %s: %s (rcvd_pkts +%d)" %
          ("ok" if ok else "not ok", num, verdict, num, what.strip(), delta))
print("1..%d" % len(want))
print("%d passed, %d failed" % (len(want) - failed, failed))
sys.exit(1 if failed or len(frames) != len(want) else 0)
PY
