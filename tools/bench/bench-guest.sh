#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Guest half of tools/bench/run-bench.sh.  In the pair topology it runs
# in both VMs: VM A serves, VM B measures; in the single topology one VM
# serves on its first NIC and measures on its second.  Each measurement
# becomes one line of $BENCH_OUT/records.tsv (columns in RECORD_COLUMNS);
# tools/bench/report.py turns them into results.json, a table and a plot.
#
# Every test has its own number N: its own TCP port for the perftest or
# iperf3 handshake and its own marker files in the shared directory, so
# a test that fails cannot leave the next one out of step.  The client
# starts only once its server listens (wait_listen); every wait is
# bounded.
set -uo pipefail
. "$(dirname "$0")/../../selftests/ordma/lib.sh"

SIZES=${BENCH_SIZES:-"2 8 64 512 1024 4096 16384 65536 262144 1048576"}
MTUS=${BENCH_MTUS:-"1024 4096"}
BW_TOOLS=${BENCH_BW_TOOLS:-"ib_write_bw ib_read_bw ib_send_bw"}
LAT_TOOLS=${BENCH_LAT_TOOLS:-"ib_send_lat ib_write_lat ib_read_lat"}
LAT_SIZES=${BENCH_LAT_SIZES:-"2 64 1024 4096 65536"}
LAT_MODES=${BENCH_LAT_MODES:-"poll event"}
QPS=${BENCH_QPS:-"1 16 256"}
QP_SIZE=${BENCH_QP_SIZE:-65536}
QP_MTU=${BENCH_QP_MTU:-4096}
CPU_SIZES=${BENCH_CPU_SIZES:-65536}	# ib_write_bw sizes of the CPU per GB runs
CPU_SECS=${BENCH_CPU_SECS:-10}
ITERS=${BENCH_ITERS:-500}		# latency iterations
BW_ITERS=${BENCH_BW_ITERS:-5000}	# bandwidth iterations at most
BW_BYTES=${BENCH_BW_BYTES:-67108864}	# bandwidth runs move about this much
TCP_SECS=${BENCH_TCP_SECS:-5}
RUN_TIMEOUT=${BENCH_TIMEOUT:-180}	# one tool run at most
LEGS=${BENCH_LEGS:-"ordma rxe tcp"}
RECORD_COLUMNS="n leg test size mtu mode qps unit value p99 bytes cpu_busy_s cpu_kernel_s tx_frames wire_rx_frames nic_drops retransmits wire_drops rc"

P=${ORDMA_PROVIDER_DIR:?}
export LD_LIBRARY_PATH=$P/lib
TOPO=${GUEST_TOPOLOGY:?}
ROLE=${GUEST_ROLE:?}
if [ "$TOPO" = pair ]; then
	SYNC=${ORDMA_SYNC:?}
	PEER=$ORDMA_PEER_ROLE
else
	SYNC=${ORDMA_RESULTS:?}/bench
	mkdir -p "$SYNC"
fi
BENCH_OUT=$SYNC
LOG=$SYNC/log.$ROLE
MEASURES=$([ "$ROLE" != A ] && echo 1 || echo 0)	# B, or the single VM
HZ=$(getconf CLK_TCK)

say() { echo "bench: $*" | tee -a "$LOG" >&2; }

# ----------------------------------------------------------- synchronisation
# mark NAME [FILE]: tell the peer NAME happened (FILE's content travels along)
mark() {
	[ "$TOPO" = pair ] || return 0
	if [ -n "${2:-}" ]; then
		cp "$2" "$SYNC/$ROLE.$1.tmp" && mv "$SYNC/$ROLE.$1.tmp" "$SYNC/$ROLE.$1"
	else
		touch "$SYNC/$ROLE.$1"
	fi
}
# await SECS NAME...: wait until the peer marked one of NAME...; if the
# peer's script ended, so does this one: nobody is left to measure with
await() {
	[ "$TOPO" = pair ] || return 0
	local secs=$1 n
	shift
	# shellcheck disable=SC2317 # called through wait_for
	peer_marked() { for n; do [ -e "$SYNC/$PEER.$n" ] && return 0; done; [ -e "$SYNC/$PEER.gone" ]; }
	wait_for "$secs" peer_marked "$@"
	for n; do [ -e "$SYNC/$PEER.$n" ] && return 0; done
	if [ -e "$SYNC/$PEER.gone" ]; then
		say "the peer's script ended; stopping"
		exit 1
	fi
	return 1
}
barrier() {
	mark "$1"
	await 900 "$1" || say "peer did not reach '$1'"
}

# ----------------------------------------------------------- counters
# cpu_ticks: busy and kernel (system, irq, softirq) clock ticks of all CPUs
cpu_ticks() {
	awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8, $4 + $7 + $8; exit }' /proc/stat
}
# port_frames ND...: frames sent on the wire, frames that arrived from it,
# frames the NIC dropped, RoCE retransmissions, frames the wire lost
# (wire_tx_drop + wire_rx_drop: the cable's own count), summed over the
# netdevs (ORDMA port counters)
port_frames() {
	local nd
	for nd; do ethtool -S "$nd" 2>/dev/null; done | awk -F': *' '
		{ sub(/^ +/, "", $1) }
		$1 == "tx_frames" { tx += $2 }
		$1 ~ /^(rx_frames|roce_rx_frames|rx_drop_(filter|link_down|too_long|no_buf))$/ { rx += $2 }
		$1 ~ /drop/ && $1 !~ /^roce_rx_(drop|parse_drop)_/ { drop += $2 }
		$1 == "roce_retransmits" { re += $2 }
		$1 ~ /^wire_(tx|rx)_drop$/ { wire += $2 }
		END { print tx + 0, rx + 0, drop + 0, re + 0, wire + 0 }'
}
# snap: "cpu_busy cpu_kernel tx rx drops retransmits wire" of this VM now
snap() { echo "$(cpu_ticks) $(port_frames "${NETDEVS[@]}")"; }
# delta BEFORE AFTER: field-wise AFTER - BEFORE
delta() { awk -v a="$1" -v b="$2" 'BEGIN { n = split(a, x); split(b, y); for (i = 1; i <= n; i++) printf "%s%d", (i > 1 ? " " : ""), y[i] - x[i]; print "" }'; }

# ----------------------------------------------------------- one test
N=0
# server_cmd / client_cmd TOOL ARGS...: a perftest command line for this
# leg's devices; @PORT@ becomes the test's own port in measure
server_cmd() { local t=$1; shift; echo "$t -d $SRV_DEV -x $SRV_GID -F -p @PORT@ $*"; }
client_cmd() { local t=$1; shift; echo "$t -d $CLI_DEV -x $CLI_GID -F -p @PORT@ $* $SRV_IP"; }

# measure LEG TEST SIZE MTU MODE QPS UNIT BYTES SERVER_CMD... -- CLIENT_CMD...
# One test: the server (A, or the first NIC), then, once it listens, the
# client; the client's output goes to OUT, the counters of both ends into
# the record.  Always called in this shell, never in $(...): N counts.
measure() {
	local leg=$1 test=$2 size=$3 mtu=$4 mode=$5 qps=$6 unit=$7 bytes=$8
	shift 8
	local srv=() cli=() a pid rc=0 before after d peer_d="" port
	N=$((N + 1))
	port=$((18000 + N))
	while [ "$1" != -- ]; do srv+=("${1//@PORT@/$port}"); shift; done
	shift
	for a; do cli+=("${a//@PORT@/$port}"); done
	echo "### $N $leg $test size $size mtu $mtu $mode qps $qps" >>"$LOG"
	before=$(snap)
	OUT=
	if [ "$MEASURES" = 0 ] || [ "$TOPO" = single ]; then
		timeout "$RUN_TIMEOUT" "${srv[@]}" >>"$LOG" 2>&1 &
		pid=$!
		if wait_listen 60 "$port" "$pid"; then
			mark "ready.$N"
		else
			mark "failed.$N"
			rc=1
		fi
	fi
	if [ "$MEASURES" = 1 ]; then
		if [ "$TOPO" = pair ]; then
			await 120 "ready.$N" "failed.$N" && [ -e "$SYNC/$PEER.ready.$N" ] || rc=1
		fi
		if [ "$rc" = 0 ]; then
			OUT=$(timeout "$RUN_TIMEOUT" "${cli[@]}" 2>&1)
			rc=$?
		fi
		echo "$OUT" >>"$LOG"
		mark "done.$N"
	fi
	if [ "$MEASURES" = 0 ] || [ "$TOPO" = single ]; then
		# the client is done (or failed): the server ends now or is ended
		await $((RUN_TIMEOUT + 150)) "done.$N"
		wait_for 20 eval "! kill -0 $pid" || stop_pid "$pid"
		wait "$pid" 2>/dev/null
	fi
	after=$(snap)
	d=$(delta "$before" "$after")
	if [ "$MEASURES" = 0 ]; then
		echo "$d" >"$SYNC/A.stats.tmp"
		mark "stats.$N" "$SYNC/A.stats.tmp"
		return
	fi
	if [ "$TOPO" = pair ]; then
		await 120 "stats.$N" && peer_d=$(cat "$SYNC/$PEER.stats.$N")
		[ -n "$peer_d" ] || peer_d="0 0 0 0 0 0 0"
		d=$(awk -v a="$d" -v b="$peer_d" 'BEGIN { split(a, x); split(b, y); for (i = 1; i <= 7; i++) printf "%s%d", (i > 1 ? " " : ""), x[i] + y[i]; print "" }')
	fi
	record "$leg" "$test" "$size" "$mtu" "$mode" "$qps" "$unit" "$bytes" "$rc" "$d"
}

# record LEG TEST SIZE MTU MODE QPS UNIT BYTES RC "DELTAS": parse OUT
record() {
	local leg=$1 test=$2 size=$3 mtu=$4 mode=$5 qps=$6 unit=$7 bytes=$8 rc=$9 d=${10}
	local v="" p99=""
	case $test in
	ib_*_bw*)	# --report_gbits: BW average [Gb/s] is column 4
		v=$(awk '$1 ~ /^[0-9]+$/ && NF >= 5 { v = $4 * 1000 } END { print v }' <<<"$OUT")
		# A run of fixed duration: the bytes follow from the bandwidth.
		# perftest prints 0 when its clock calibration fails under TCG
		# ("Correlation coefficient r^2 ... < 0.9"); its message count
		# over the -D seconds still holds.
		if [ "$test" = ib_write_bw_cpu ]; then
			[ "$v" != 0 ] || v=$(awk -v s="$size" -v t="$CPU_SECS" '$1 ~ /^[0-9]+$/ && NF >= 5 && $2 > 0 { v = $2 * s * 8 / t / 1e6 } END { print v }' <<<"$OUT")
			bytes=$(awk -v v="$v" -v t="$CPU_SECS" 'BEGIN { printf "%.0f", v * 1e6 / 8 * t }')
		fi ;;
	ib_*_lat)	# t_typical column 5, 99% percentile column 8
		read -r v p99 < <(awk '$1 ~ /^[0-9]+$/ && NF >= 8 { v = $5; p = $8 } END { print v, p }' <<<"$OUT") ;;
	iperf3)
		v=$(jq -r '.end.sum_received.bits_per_second / 1e6' <<<"$OUT" 2>/dev/null)
		bytes=$(jq -r '.end.sum_received.bytes' <<<"$OUT" 2>/dev/null) ;;
	esac
	# perftest sometimes prints a bandwidth of 0 for a run that moved
	# data (its clock under TCG): no figure rather than a wrong one
	if [ "$rc" != 0 ] || [ -z "$v" ] || [ "$v" = null ] || [ "$v" = 0 ]; then
		v=nan p99=nan
	fi
	read -r busy kern tx rx drops re wire <<<"$d"
	printf '%s\n' "$N $leg $test $size $mtu $mode $qps $unit $v ${p99:-nan} ${bytes:-0}" \
		"$(awk -v b="$busy" -v k="$kern" -v hz="$HZ" 'BEGIN { printf "%.2f %.2f", b / hz, k / hz }')" \
		"$tx $rx $drops $re $wire $rc" | paste -sd ' ' >>"$BENCH_OUT/records.tsv"
	say "$N $leg $test size $size mtu $mtu $mode qps $qps: $v $unit${p99:+ (p99 $p99)}; frames sent $tx, arrived $rx, NIC drops $drops, lost on the wire $wire, rc $rc"
}

# ----------------------------------------------------------- the tests
bw_iters() { local n=$((BW_BYTES / $1)); [ "$n" -gt "$BW_ITERS" ] && n=$BW_ITERS; [ "$n" -lt 20 ] && n=20; echo "$n"; }

# The command lines are words without spaces: split on purpose.
# shellcheck disable=SC2046,SC2086
perftest_legs() {
	local leg=$1 tool s m mode q n e
	for tool in $BW_TOOLS; do
		for m in $MTUS; do
			for s in $SIZES; do
				n=$(bw_iters "$s")
				measure "$leg" "$tool" "$s" "$m" poll 1 Mbit/s $((s * n)) \
					$(server_cmd "$tool" -s "$s" -n "$n" -m "$m" --report_gbits) -- \
					$(client_cmd "$tool" -s "$s" -n "$n" -m "$m" --report_gbits)
			done
		done
	done
	for tool in $LAT_TOOLS; do
		for mode in $LAT_MODES; do
			e=$([ "$mode" = event ] && echo -e)
			for s in $LAT_SIZES; do
				measure "$leg" "$tool" "$s" 4096 "$mode" 1 usec 0 \
					$(server_cmd "$tool" -s "$s" -n "$ITERS" -m 4096 $e) -- \
					$(client_cmd "$tool" -s "$s" -n "$ITERS" -m 4096 $e)
			done
		done
	done
	# Guest CPU per GB: ib_write_bw for CPU_SECS seconds, less what a run
	# that moves nothing costs (start-up, connection; the lower of two
	# runs): report.py does the arithmetic
	if [ -n "$CPU_SIZES" ]; then
		for n in 1 2; do
			measure "$leg" ib_write_bw 2 "$QP_MTU" setup 1 Mbit/s 10 \
				$(server_cmd ib_write_bw -s 2 -n 5 -m "$QP_MTU" --report_gbits) -- \
				$(client_cmd ib_write_bw -s 2 -n 5 -m "$QP_MTU" --report_gbits)
		done
	fi
	for s in $CPU_SIZES; do
		measure "$leg" ib_write_bw_cpu "$s" "$QP_MTU" "D$CPU_SECS" 1 Mbit/s 0 \
			$(server_cmd ib_write_bw -s "$s" -D "$CPU_SECS" -m "$QP_MTU" --report_gbits) -- \
			$(client_cmd ib_write_bw -s "$s" -D "$CPU_SECS" -m "$QP_MTU" --report_gbits)
	done
	for q in $QPS; do
		n=$(bw_iters "$QP_SIZE")
		n=$(( (n + q - 1) / q )); [ "$n" -lt 5 ] && n=5	# about the same bytes
		measure "$leg" ib_write_bw_qps "$QP_SIZE" "$QP_MTU" "q$q" "$q" Mbit/s $((QP_SIZE * n * q)) \
			$(server_cmd ib_write_bw -s "$QP_SIZE" -n "$n" -q "$q" -m "$QP_MTU" --report_gbits) -- \
			$(client_cmd ib_write_bw -s "$QP_SIZE" -n "$n" -q "$q" -m "$QP_MTU" --report_gbits)
	done
}

tcp_leg() {
	local s
	for s in $SIZES; do
		[ "$s" -ge 1024 ] || continue	# iperf3 with tiny writes measures syscalls
		measure tcp iperf3 "$s" 9000 tcp 1 Mbit/s 0 \
			iperf3 -s -1 -p @PORT@ -- \
			iperf3 -c "$SRV_IP" -p @PORT@ -t "$TCP_SECS" -l "$s" -J
	done
}

# ----------------------------------------------------------- set-up
modprobe ib_uverbs
if [ "$TOPO" = pair ]; then
	bdf=$(ordma_pci_devs | head -n 1)
	nd=$(ordma_netdev "$bdf")
	NETDEVS=("$nd")
	ip link set dev "$nd" mtu 9000
	ip link set dev "$nd" up
	ip addr add "$ORDMA_LOCAL_IP/24" dev "$nd"
	SRV_IP=$([ "$ROLE" = A ] && echo "$ORDMA_LOCAL_IP" || echo "$ORDMA_PEER_IP")
	wait_for 60 ping -c 1 -W 1 "$ORDMA_PEER_IP" || say "no ping to $ORDMA_PEER_IP"
	local_ip=$ORDMA_LOCAL_IP
	ib=$(ordma_ibdev "$bdf")
	wait_for 30 test -n "$(roce_v2_gid_index "$ib" "$local_ip")"
	SRV_DEV=$ib CLI_DEV=$ib
	SRV_GID=$(roce_v2_gid_index "$ib" "$local_ip") CLI_GID=$SRV_GID
else
	mapfile -t bdfs < <(ordma_pci_devs)
	ordma_rdma_pair_up "${bdfs[0]}" "${bdfs[1]}" || say "RDMA pair not up"
	NETDEVS=("$(ordma_netdev "${bdfs[0]}")" "$(ordma_netdev "${bdfs[1]}")")
	SRV_IP=$(ordma_test_ip 1)
	# shellcheck disable=SC2154 # ib and gidx come from ordma_rdma_pair_up
	SRV_DEV=${ib[1]} SRV_GID=${gidx[1]} CLI_DEV=${ib[2]} CLI_GID=${gidx[2]}
fi
[ "$MEASURES" = 1 ] && echo "# $RECORD_COLUMNS" >"$BENCH_OUT/records.tsv"
trap 'mark gone' EXIT
say "topology $TOPO, sizes '$SIZES', MTUs '$MTUS', latency sizes '$LAT_SIZES', QPs '$QPS', $ITERS iterations"

barrier up
case " $LEGS " in *" ordma "*) perftest_legs ordma ;; esac

if [[ " $LEGS " = *" rxe "* ]]; then
	# Soft-RoCE on the same netdevs: without ordma_ib the NIC has no GIDs
	# and passes RoCE frames to the netdev.  rmmod, not modprobe -r: that
	# would take ordma_core (the netdev) too.
	barrier rxe-setup
	rmmod ordma_ib
	modprobe rdma_rxe
	for i in "${!NETDEVS[@]}"; do
		rdma link add "rxe$i" type rxe netdev "${NETDEVS[$i]}"
	done
	if [ "$TOPO" = pair ]; then
		SRV_DEV=rxe0 CLI_DEV=rxe0
		wait_for 30 test -n "$(roce_v2_gid_index rxe0 "$local_ip")"
		SRV_GID=$(roce_v2_gid_index rxe0 "$local_ip") CLI_GID=$SRV_GID
	else
		# both ends in one kernel: each rxe sends through the netdev it
		# is bound to, so its frames still cross the cable
		SRV_DEV=rxe0 CLI_DEV=rxe1
		wait_for 30 test -n "$(roce_v2_gid_index rxe1 "$(ordma_test_ip 2)")"
		SRV_GID=$(roce_v2_gid_index rxe0 "$(ordma_test_ip 1)")
		CLI_GID=$(roce_v2_gid_index rxe1 "$(ordma_test_ip 2)")
	fi
	barrier rxe
	perftest_legs rxe
fi

# TCP over the same cable; in one VM both addresses are local, so TCP
# would not cross the cable at all
if [[ " $LEGS " = *" tcp "* ]] && [ "$TOPO" = pair ]; then
	barrier tcp
	tcp_leg
fi
barrier finished
say "finished: $N tests"
