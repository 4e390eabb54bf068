#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Guest half of tools/bench/run-bench.sh; runs in both VMs of the pair
# topology.  VM A serves, VM B measures and writes $ORDMA_SYNC/results.
set -uo pipefail
. "$(dirname "$0")/../../selftests/ordma/lib.sh"

ITERS=${BENCH_ITERS:-500}
SIZE=${BENCH_SIZE:-65536}
P=${ORDMA_PROVIDER_DIR:?}
export LD_LIBRARY_PATH=$P/lib
RES=$ORDMA_SYNC/results
LOG=$ORDMA_SYNC/log.$GUEST_ROLE

barrier() {
	touch "$ORDMA_SYNC/$GUEST_ROLE.bench.$1"
	wait_for 600 test -e "$ORDMA_SYNC/$ORDMA_PEER_ROLE.bench.$1"
}

bdf=$(ordma_pci_devs | head -n 1)
nd=$(ordma_netdev "$bdf")
modprobe ib_uverbs
ip link set dev "$nd" up
ip addr add "$ORDMA_LOCAL_IP/24" dev "$nd"
gid=$(ipv4_to_gid "$ORDMA_LOCAL_IP")
gidx_of() { ordma_gid_table "$1" | awk -v g="$gid" '$2 == g && $3 == "RoCE_v2" { print $1; exit }'; }
wait_for 60 ping -c 1 -W 1 "$ORDMA_PEER_IP"

N=0
# perf DEV TOOL ARGS...: one perftest run, the server on A; prints the
# client's result line (B) into $LOG and its value on stdout.
perf() {
	local dev=$1 tool=$2 g out
	shift 2
	N=$((N + 1))
	g=$(gidx_of "$dev")
	if [ "$GUEST_ROLE" = A ]; then
		timeout 600 "$tool" -d "$dev" -x "$g" -F -p $((18700 + N)) "$@" >>"$LOG" 2>&1 &
		sleep 1
		barrier "s$N"
		wait
	else
		barrier "s$N"
		sleep 1
		out=$(timeout 600 "$tool" -d "$dev" -x "$g" -F -p $((18700 + N)) "$@" "$ORDMA_PEER_IP" 2>&1)
		echo "$out" >>"$LOG"
		# bandwidth tools: BW average (MB/s) is column 4; latency
		# tools: t_avg (usec) is column 6
		case $tool in
		*_bw) awk -v s="$1" '$1 ~ /^[0-9]+$/ && NF >= 5 { v = $4 } END { print v }' <<<"$out" ;;
		*) awk '$1 ~ /^[0-9]+$/ && NF >= 7 { v = $6 } END { print v }' <<<"$out" ;;
		esac
	fi
	barrier "e$N"
}

leg() {
	local dev=$1
	W=$(perf "$dev" ib_write_bw -s "$SIZE" -n "$ITERS")
	SL=$(perf "$dev" ib_send_lat -s 2 -n "$ITERS")
	RL=$(perf "$dev" ib_read_lat -s 2 -n "$ITERS")
}

ib=$(ordma_ibdev "$bdf")
wait_for 30 test -n "$(gidx_of "$ib")"
barrier up
leg "$ib"
OW=$W OSL=$SL ORL=$RL

# Soft-RoCE on the same netdev: without ordma_ib the NIC has no GIDs and
# passes RoCE frames to the netdev.
rmmod ordma_ib	# not modprobe -r: that would take ordma_core (the netdev) too
modprobe rdma_rxe
rdma link add rxe0 type rxe netdev "$nd"
wait_for 30 test -n "$(gidx_of rxe0)"
barrier rxe
leg rxe0
XW=$W XSL=$SL XRL=$RL

# TCP over the same cable
barrier tcp
if [ "$GUEST_ROLE" = A ]; then
	timeout 120 iperf3 -s -1 >>"$LOG" 2>&1
else
	sleep 2
	out=$(timeout 120 iperf3 -c "$ORDMA_PEER_IP" -t 10 -l "$SIZE" -f m 2>&1)
	echo "$out" >>"$LOG"
	TW=$(awk '/sender$/ { v = $7 } END { print v }' <<<"$out")	# Mbits/sec
fi
barrier done

[ "$GUEST_ROLE" = B ] || exit 0
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b > 0) printf "%.2f", a / b; else print "n/a" }'; }
{
	echo "ORDMA vs rxe vs TCP, two VMs (QEMU TCG, 1 vCPU each), one cable, $ITERS iterations"
	printf '%-28s %12s %12s %12s %10s %10s\n' test ORDMA rxe TCP ORDMA/rxe ORDMA/TCP
	# MB/s -> Mbit/s for the TCP comparison
	OWm=$(awk -v v="$OW" 'BEGIN { printf "%.1f", v * 8 }')
	XWm=$(awk -v v="$XW" 'BEGIN { printf "%.1f", v * 8 }')
	printf '%-28s %12s %12s %12s %10s %10s\n' "ib_write_bw ${SIZE}B Mbit/s" \
		"$OWm" "$XWm" "${TW:-n/a}" "$(ratio "$OWm" "$XWm")" "$(ratio "$OWm" "${TW:-0}")"
	# latency: lower is better, so the ratio is rxe/ORDMA (>1: ORDMA faster)
	printf '%-28s %12s %12s %12s %10s %10s\n' "ib_send_lat 2B usec" "$OSL" "$XSL" - "$(ratio "$XSL" "$OSL")" -
	printf '%-28s %12s %12s %12s %10s %10s\n' "ib_read_lat 2B usec" "$ORL" "$XRL" - "$(ratio "$XRL" "$ORL")" -
	echo "(latency ratios are rxe/ORDMA: above 1 means ORDMA is faster)"
} >"$RES"
cat "$RES"
