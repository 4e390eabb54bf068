#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# What the port capture costs, measured in one VM: ib_write_bw between
# the two ORDMA NICs of the single topology, alternately with every
# port's capture off and on (the host switches it at the guest's
# request, tools/vm/run-vm.sh --pcap), so that both see the same host
# load.  Run by tools/bench/pcap-cost.sh; not a test.
#
# Environment: PCAP_COST_ROUNDS (5) off/on pairs per size,
# PCAP_COST_SIZES ("65536 4096"), PCAP_COST_BYTES (64 MiB a run),
# PCAP_COST_PORTS (the ports that capture, e.g. "wire1": one end of the
# cable, which sees both directions; default every port).
# Writes $ORDMA_RESULTS/pcap-cost.tsv: "size capture Mbit/s" per run,
# and prints the medians and their ratio per size.
set -uo pipefail
. "$(dirname "$0")/../../selftests/ordma/lib.sh"

ROUNDS=${PCAP_COST_ROUNDS:-5}
PORTS=${PCAP_COST_PORTS:-}
SIZES=${PCAP_COST_SIZES:-"65536 4096"}
BYTES=${PCAP_COST_BYTES:-67108864}
RESULTS=${ORDMA_RESULTS:?}
P=${ORDMA_PROVIDER_DIR:?}
export LD_LIBRARY_PATH=$P/lib
TSV=$RESULTS/pcap-cost.tsv

# capture on|off: every port's capture (on: those of PCAP_COST_PORTS),
# switched by the host
capture() {
	local dir=$RESULTS reply i
	rm -f "$dir/host-request.done"
	local req="pcap $1"
	[ "$1" = off ] || req+="${PORTS:+ $PORTS}"
	echo "$req" >"$dir/host-request.tmp" &&
		mv "$dir/host-request.tmp" "$dir/host-request" || return 1
	for ((i = 0; i < 300; i++)); do
		[ -e "$dir/host-request.done" ] && break
		sleep 0.1
	done
	reply=$(cat "$dir/host-request.done" 2>/dev/null)
	rm -f "$dir/host-request.done"
	echo "capture $1: ${reply#* }"
	[ "${reply%% *}" = 0 ]
}

modprobe ib_uverbs
mapfile -t bdfs < <(ordma_pci_devs)
ordma_rdma_pair_up "${bdfs[0]}" "${bdfs[1]}" || echo "RDMA pair not up"
# shellcheck disable=SC2154 # ib and gidx come from ordma_rdma_pair_up
SRV=(-d "${ib[1]}" -x "${gidx[1]}") CLI=(-d "${ib[2]}" -x "${gidx[2]}")
echo "# size capture Mbit/s" >"$TSV"
port=18500
for size in $SIZES; do
	n=$((BYTES / size))
	[ "$n" -le 5000 ] || n=5000
	for ((r = 0; r < ROUNDS; r++)); do
		for mode in off on; do
			capture "$mode" || exit 1
			port=$((port + 1))
			timeout 180 "$(bin ib_write_bw)" "${SRV[@]}" -F -p "$port" \
				-s "$size" -n "$n" -m 4096 --report_gbits >/dev/null 2>&1 &
			pid=$!
			wait_listen 60 "$port" "$pid" || { echo "no server"; exit 1; }
			out=$(timeout 180 "$(bin ib_write_bw)" "${CLI[@]}" -F -p "$port" \
				-s "$size" -n "$n" -m 4096 --report_gbits \
				"$(ordma_test_ip 1)" 2>&1)
			wait "$pid"
			v=$(awk '$1 ~ /^[0-9]+$/ && NF >= 5 { v = $4 * 1000 } END { print v }' <<<"$out")
			echo "$size $mode ${v:-nan}" | tee -a "$TSV"
		done
	done
done
capture off
# medians per size and mode, and on / off
awk '!/^#/ { v[$1 " " $2] = v[$1 " " $2] " " $3 }
	function median(s,   a, n, i, j, t) {
		n = split(s, a)
		for (i = 1; i <= n; i++)
			for (j = i + 1; j <= n; j++)
				if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	END {
		for (k in v) {
			split(k, f)
			if (f[2] != "off") continue
			off = median(v[k]); on = median(v[f[1] " on"])
			printf "size %s: median %.0f Mbit/s capture off, %.0f on: on/off %.2f\n", f[1], off, on, on / off
		}
	}' "$TSV"
