#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# ORDMA against Linux Soft-RoCE (rxe) and TCP on one topology, in one run:
# two VMs (run-vm.sh pair), one ORDMA NIC each, cabled together.  The
# ORDMA leg runs first; then ordma_ib is unloaded (so that the NIC hands
# RoCE frames to the netdev), rxe is stacked on the same netdev, and the
# same perftest runs again; iperf3 gives the TCP figure over the same
# cable.  Prints a table with ORDMA/rxe and ORDMA/TCP ratios.
#
# Usage: tools/bench/run-bench.sh [-o DIR]   (not a test; TCG timings)
# Environment: BENCH_ITERS (default 500), BENCH_SIZE (ib_write_bw and
# iperf3 message size, default 65536).
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$REPO/build/bench/run-$(date +%Y%m%d-%H%M%S)
[ "${1:-}" = -o ] && OUT=$2
mkdir -p "$OUT"
export BENCH_ITERS=${BENCH_ITERS:-500} BENCH_SIZE=${BENCH_SIZE:-65536}
# The guest command sees the host's environment file only through
# guest.env, so the parameters travel on the command line.
"$REPO/tools/vm/run-vm.sh" -o "$OUT" -t 1500 \
	-c "BENCH_ITERS=$BENCH_ITERS BENCH_SIZE=$BENCH_SIZE $REPO/tools/bench/bench-guest.sh" pair >/dev/null || true
if [ ! -s "$OUT/sync/results" ]; then
	echo "bench: no results; see $OUT/*/serial.log" >&2
	exit 1
fi
cat "$OUT/sync/results"
