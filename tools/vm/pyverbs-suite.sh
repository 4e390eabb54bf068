#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# rdma-core's Python test suite on ORDMA and on rxe in the same VM, one
# after the other (see tools/vm/pyverbs-guest.sh), and the pass / fail /
# error / skip counts of both; with --link ib, on ORDMA's InfiniBand port
# alone.  Not part of `make check` (each device's run takes about four
# minutes under TCG on a quiet host, the whole run with the boot about
# ten); Documentation/ordma/user-guide.rst records a run.
#
# Usage: tools/vm/pyverbs-suite.sh [-o DIR] [-k PATTERN]... [--ordma-only]
#                                   [--link eth|ib]
#   -k PATTERN    run only the tests whose names contain PATTERN (unittest -k)
#   --ordma-only  skip the rxe run
#   --link ib     InfiniBand ports (run-vm.sh --link ib): opensm in the
#                 guest brings ordma0's port ACTIVE, the suite runs on
#                 ordma0 only (rxe is RoCE only)
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$REPO/build/vm/pyverbs-$(date +%Y%m%d-%H%M%S)
FILTER=
DEVS="ordma rxe"
LINK=eth
USAGE="usage: $0 [-o DIR] [-k PATTERN]... [--ordma-only] [--link eth|ib]"
while [ $# -gt 0 ]; do
	case $1 in
	-o) OUT=$2; shift 2 ;;
	-k) FILTER="$FILTER -k $2"; shift 2 ;;
	--ordma-only) DEVS=ordma; shift ;;
	-l|--link) LINK=$2; shift 2 ;;
	*) echo "$USAGE" >&2; exit 2 ;;
	esac
done
case $LINK in
eth) ;;
ib) DEVS=ordma ;;
*) echo "$USAGE" >&2; exit 2 ;;
esac
mkdir -p "$OUT"
P=$(ORDMA_PYVERBS=1 "$REPO/tools/provider/build.sh" | tail -n 1)
[ -d "$P/python/pyverbs" ] || { echo "pyverbs-suite: no pyverbs in $P" >&2; exit 1; }
SRC=$(cd "$P/../src" && pwd)
ORDMA_PROVIDER_DIR=$P "$REPO/tools/vm/run-vm.sh" -o "$OUT" -t 3600 --link "$LINK" \
	-c "ORDMA_RDMA_CORE_SRC=$SRC PYVERBS_FILTER='$FILTER' PYVERBS_DEVS='$DEVS' $REPO/tools/vm/pyverbs-guest.sh" single || true
G=$OUT/vm0/guest
for log in "$G"/pyverbs-*.log; do
	[ -f "$log" ] || continue
	dev=${log##*/pyverbs-}
	dev=${dev%.log}
	ran=$(sed -n 's/^Ran \([0-9]*\) tests.*/\1/p' "$log" | tail -n 1)
	sum=$(grep -E '^(OK|FAILED)' "$log" | tail -n 1)
	# a test that prints puts its verdict on a line of its own
	ok=$(grep -Ec '( \.\.\. |^)ok$' "$log" || true)
	fail=$(grep -Ec '( \.\.\. |^)FAIL$' "$log" || true)
	err=$(grep -Ec '( \.\.\. |^)ERROR$' "$log" || true)
	skip=$(grep -Ec '( \.\.\. |^)skipped ' "$log" || true)
	printf '%-8s ran %-4s passed %-4s failed %-4s errors %-4s skipped %-4s (%s)\n' \
		"$dev" "${ran:-?}" "$ok" "$fail" "$err" "$skip" "${sum:-no summary}"
done
echo "logs: $G"
