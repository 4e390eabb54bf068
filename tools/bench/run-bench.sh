#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# ORDMA against Linux Soft-RoCE (rxe) and TCP on one topology, in one run
# (not a test; TCG timings, see Documentation/ordma/benchmarks.rst).
#
# Usage: tools/bench/run-bench.sh [-t single|pair] [-o DIR]
#   pair (default): two VMs, one ORDMA NIC each, cabled together
#   single: one VM, its two ORDMA NICs cabled to each other (TCP is
#           left out: between two local addresses it never takes the cable)
#
# The ORDMA leg runs first; then ordma_ib is unloaded (the NIC hands RoCE
# frames to the netdev), rxe is stacked on the same netdev and the same
# perftests run again; iperf3 gives the TCP figure over the same cable.
# DIR gets records.tsv (one line per measurement), results.json,
# results.txt (the table) and bench.png (if matplotlib is there).
#
# Environment (the defaults are the full sweep; see bench-guest.sh):
#   BENCH_SIZES      bandwidth message sizes  (2 8 64 ... 1048576)
#   BENCH_MTUS       path MTUs of the bandwidth sweep (1024 4096)
#   BENCH_LAT_SIZES  latency message sizes (2 64 1024 4096 65536)
#   BENCH_LAT_MODES  poll event
#   BENCH_QPS        QP counts of ib_write_bw -q (1 16 256), at BENCH_QP_SIZE
#                    (65536) and path MTU BENCH_QP_MTU (4096)
#   BENCH_BW_TOOLS, BENCH_LAT_TOOLS, BENCH_LEGS (ordma rxe tcp)
#   BENCH_ITERS      latency iterations (500)
#   BENCH_BW_BYTES   bytes one bandwidth run moves (64 MiB), in at most
#                    BENCH_BW_ITERS (5000) and at least 20 messages
#   BENCH_CPU_SIZES  ib_write_bw sizes of the guest CPU per GB runs (65536),
#                    each BENCH_CPU_SECS (10) long
#   BENCH_TCP_SECS   iperf3 duration (5), BENCH_TIMEOUT one tool run (180)
#   BENCH_VM_TIMEOUT the whole run (7200)
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
TOPO=pair
OUT=
while getopts "t:o:h" opt; do
	case $opt in
	t) TOPO=$OPTARG ;;
	o) OUT=$OPTARG ;;
	*) sed -n '4,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2 ;;
	esac
done
case $TOPO in single | pair) ;; *) echo "bench: topology is single or pair" >&2; exit 2 ;; esac
OUT=${OUT:-$REPO/build/bench/$TOPO-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

# The guest sees the host's environment only through guest.env, so the
# parameters travel on its command line.
vars=
for v in $(compgen -v BENCH_); do
	[ "$v" = BENCH_VM_TIMEOUT ] || vars+="$v=$(printf %q "${!v}") "
done
started=$(date +%s)
"$REPO/tools/vm/run-vm.sh" -o "$OUT" -t "${BENCH_VM_TIMEOUT:-7200}" \
	-c "env ${vars}$REPO/tools/bench/bench-guest.sh" "$TOPO" >"$OUT/run-vm.log" 2>&1 || true
records=$OUT/sync/records.tsv
[ "$TOPO" = single ] && records=$OUT/vm0/guest/bench/records.tsv
if [ ! -s "$records" ] || [ "$(grep -vc '^#' "$records")" = 0 ]; then
	echo "bench: no results; see $OUT/run-vm.log and $OUT/*/serial.log" >&2
	exit 1
fi
cp "$records" "$OUT/records.tsv"
title="ORDMA vs rxe vs TCP, $TOPO topology (QEMU TCG, $(nproc) host cores), $(date -u +%Y-%m-%d), $(( ($(date +%s) - started) / 60 )) min"
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3	# Debian's python3-matplotlib
"$PY" "$REPO/tools/bench/report.py" "$OUT/records.tsv" "$OUT" "$title"
