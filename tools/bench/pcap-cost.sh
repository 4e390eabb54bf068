#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# What the port capture (-device ordma,pcap=FILE) costs: one VM of the
# single topology runs ib_write_bw between its two ORDMA NICs with every
# port's capture off and on in turn (tools/bench/pcap-cost-guest.sh),
# PCAP_COST_ROUNDS times per size, and prints the median bandwidth of
# each and their ratio.  Not a test; TCG timings on a shared host vary
# from run to run by several times, which the alternation evens out.
#
# Usage: tools/bench/pcap-cost.sh [-o DIR]
# Environment: PCAP_COST_ROUNDS, PCAP_COST_SIZES, PCAP_COST_BYTES,
# PCAP_COST_PORTS (see
# pcap-cost-guest.sh); QEMU, VM_ORDMA_PROPS as for tools/vm/run-vm.sh.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
OUT=
while getopts "o:" opt; do
	case $opt in
	o) OUT=$OPTARG ;;
	*) sed -n '4,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2 ;;
	esac
done
OUT=${OUT:-$REPO/build/bench/pcap-cost-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$(dirname "$OUT")"
vars=
for v in PCAP_COST_ROUNDS PCAP_COST_SIZES PCAP_COST_BYTES PCAP_COST_PORTS; do
	[ -z "${!v:-}" ] || vars+="$v=$(printf %q "${!v}") "
done
"$REPO/tools/vm/run-vm.sh" --pcap -t 1800 -o "$OUT" \
	-c "env ${vars}$REPO/tools/bench/pcap-cost-guest.sh" single >"$OUT.log" 2>&1 || true
mv "$OUT.log" "$OUT/run-vm.log"
if ! grep -h 'on/off' "$OUT/vm0/guest/guest-cmd.log"; then
	echo "pcap-cost: no result; see $OUT/run-vm.log and $OUT/vm0/guest/guest-cmd.log" >&2
	exit 1
fi
echo "runs: $OUT/vm0/guest/pcap-cost.tsv"
