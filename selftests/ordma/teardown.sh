#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Tear the RDMA device down under traffic: while ib_write_bw and rping
# run between the two NICs, (1) rmmod ordma_ib, (2) unbind the first
# PCI function from ordma_core, (3) kill -9 the tools.  Each time the
# teardown must finish within a bound, every tool must end within a
# bound, the kernel log must stay clean, and once the driver is back a
# short RC ping-pong must pass.
#
# NIC 2 lives in its own network namespace, so that the rdma_cm route
# from its address to NIC 1's goes over the cable instead of the local
# loopback; RDMA devices stay shared between namespaces.
. "$(dirname "$0")/lib.sh"

ordma_require_device
ordma_require_provider
mapfile -t devs < <(ordma_pci_devs)
[ "${#devs[@]}" -ge 2 ] || ktap_skip_all "needs two ORDMA NICs cabled together"
command -v rping >/dev/null || [ -x "$P/bin/rping" ] || ktap_skip_all "no rping"

NS=ordma_peer
IP1=$(ordma_test_ip 1)
IP2=$(ordma_test_ip 2)
BAD_KMSG=$(grep -v '^#' "$SELFTEST_DIR/kmsg_fail_patterns" | paste -sd '|')
kmsg_lines=$(dmesg | wc -l)
# Bounds, in seconds: traffic starts, a teardown ends, the tools end
START_SECS=60
TEARDOWN_SECS=120
TOOLS_SECS=90
PORT=19100

# The least destructive first: a teardown that hangs in the kernel leaves
# the device stuck, and the events after it are then reported as skipped.
EVENTS="kill unbind rmmod"
stuck=
ktap_header
ktap_set_plan $((1 + 5 * 3 + 1))

in_ns() { ip netns exec "$NS" "$@"; }

# setup: NIC 1 in this namespace with IP1, NIC 2 in $NS with IP2, both
# RDMA ports ACTIVE with their IPv4 RoCE v2 GIDs.  Sets ib1 ib2 g1 g2.
setup() {
	ordma_netns_pair_up "$NS" "${devs[0]}" "${devs[1]}" 4200 || return 1
	ib1=${ib[1]} ib2=${ib[2]} g1=${gidx[1]} g2=${gidx[2]}
}

pids=()
# start_traffic: ib_write_bw and rping, servers on NIC 1, clients on NIC 2
start_traffic() {
	local p=$PORT
	PORT=$((PORT + 1))
	pids=()
	"$(bin ib_write_bw)" -d "$ib1" -x "$g1" -p "$p" -F -D 60 -s 65536 >"$log.bw-srv" 2>&1 &
	pids+=($!)
	wait_listen 30 "$p" "${pids[0]}"
	in_ns "$(bin ib_write_bw)" -d "$ib2" -x "$g2" -p "$p" -F -D 60 -s 65536 "$IP1" >"$log.bw-cli" 2>&1 &
	pids+=($!)
	"$(bin rping)" -s -a "$IP1" -C 1000000 -S 4096 >"$log.rping-srv" 2>&1 &
	pids+=($!)
	wait_for 30 sh -c "rdma res show cm_id | grep -q 'state LISTEN.*comm rping'"
	in_ns "$(bin rping)" -c -a "$IP1" -C 1000000 -S 4096 >"$log.rping-cli" 2>&1 &
	pids+=($!)
}

# tool_qps: the tools' QPs in RTS (the ib_write_bw server only receives:
# its QP stays in RTR)
tool_qps() {
	rdma res show qp 2>/dev/null | grep -E 'state RTS.*comm (ib_write_bw|rping)'
}
psn_list() {
	tool_qps | grep -o 'sq-psn [0-9]*' | paste -sd ' '
}
psns_moved() {
	[ "$(psn_list)" != "$1" ]
}
# traffic_running: the ib_write_bw client and both rping QPs are in RTS
# and their send PSNs move
traffic_running() {
	local q
	q=$(tool_qps)
	[ "$(grep -c 'comm ib_write_bw' <<<"$q")" -ge 1 ] &&
		[ "$(grep -c 'comm rping' <<<"$q")" -ge 2 ] &&
		wait_for 10 psns_moved "$(psn_list)"
}

# tools_gone PID...: none of them runs any more
tools_gone() {
	local p
	for p in "$@"; do
		kill -0 "$p" 2>/dev/null && return 1
	done
	return 0
}

# reap_tools EVENT: wait for the tools that must notice EVENT to end by
# themselves within the bound, then kill -9 the rest, which must end too.
# After an unbind the ib_write_bw server is exempt: in a write test it
# only waits on its TCP side channel, whose address went away with NIC
# 1's netdev, so the client's end never reaches it (any RDMA tool would
# wait there); its QP is gone from the kernel, which is what matters.
reap_tools() {
	local ok=0 p must=("${pids[@]}")
	[ "$1" = unbind ] && must=("${pids[@]:1}")
	wait_for "$TOOLS_SECS" tools_gone "${must[@]}" || ok=1
	for p in "${must[@]}"; do
		[ "$ok" = 0 ] || ! kill -0 "$p" 2>/dev/null ||
			echo "# still running: $(ps -o pid=,stat=,wchan:32=,args= -p "$p")"
	done
	[ "$ok" = 0 ] || tail -n 4 "$log".* | sed 's/^/#   /'
	kill -9 "${pids[@]}" 2>/dev/null
	wait_for 30 tools_gone "${pids[@]}" || ok=1
	for p in "${pids[@]}"; do
		wait "$p" 2>/dev/null
	done
	return "$ok"
}

# bounded SECS CMD...: run CMD in the background, false if it is still
# running after SECS (a hang in the kernel cannot be killed: report it)
bounded() {
	local secs=$1 pid
	shift
	"$@" &
	pid=$!
	wait_for "$secs" sh -c "! kill -0 $pid" || return 2
	wait "$pid"
}

pingpong() {
	local p=$PORT out
	PORT=$((PORT + 1))
	timeout 60 "$(bin ibv_rc_pingpong)" -d "$ib1" -g "$g1" -p "$p" -n 20 -s 4096 -c >/dev/null 2>&1 &
	local spid=$!
	if ! wait_listen 30 "$p" "$spid"; then
		stop_pid "$spid"
		return 1
	fi
	out=$(in_ns timeout 60 "$(bin ibv_rc_pingpong)" -d "$ib2" -g "$g2" -p "$p" -n 20 -s 4096 -c "$IP1" 2>&1)
	rc=$?
	if [ "$rc" != 0 ]; then
		stop_pid "$spid"
		echo "$out" | tail -n 5 | sed 's/^/# /'
		return 1
	fi
	wait "$spid"
}

modprobe ib_uverbs
modprobe rdma_ucm
log=$(mktemp)
if ! setup; then
	ktap_test_fail "both NICs up, NIC 2 in namespace $NS, RoCE v2 GIDs present"
	tap_skip_rest "no RDMA device pair"
	ip netns del "$NS" 2>/dev/null
	ktap_finished
fi
ktap_test_pass "$ib1 ($IP1) and $ib2 ($IP2, namespace $NS) ACTIVE"

for ev in $EVENTS; do
	if [ -n "$stuck" ]; then
		for _ in 1 2 3 4 5; do ktap_test_skip "$ev" "the device is stuck in: $stuck"; done
		continue
	fi
	start_traffic
	if wait_for "$START_SECS" traffic_running; then
		ktap_test_pass "$ev: ib_write_bw and rping running"
	else
		ktap_test_fail "$ev: ib_write_bw and rping running"
		rdma res show qp | sed 's/^/#   /'
		tail -n 3 "$log".* | sed 's/^/#   /'
	fi
	case $ev in
	rmmod)
		bounded "$TEARDOWN_SECS" rmmod ordma_ib
		ktap_test_result $? "rmmod ordma_ib under traffic ends within ${TEARDOWN_SECS} s" ;;
	unbind)
		bounded "$TEARDOWN_SECS" sh -c "echo ${devs[0]} >/sys/bus/pci/drivers/ordma_core/unbind"
		ktap_test_result $? "unbind of ${devs[0]} under traffic ends within ${TEARDOWN_SECS} s" ;;
	kill)
		kill -9 "${pids[@]}"
		wait_for 30 sh -c "! rdma res show qp | grep -qE 'comm (ib_write_bw|rping)'"
		ktap_test_result $? "kill -9 of the tools: the kernel released their QPs" ;;
	esac
	if [ "$KTAP_LAST_FAILED" = 1 ] && [ "$ev" != kill ]; then
		stuck=$ev
		ps -eo pid,stat,wchan:32,comm | awk '$2 ~ /D/' | sed 's/^/#   /'
		for _ in 1 2 3; do ktap_test_skip "$ev" "the teardown did not end"; done
		continue
	fi
	reap_tools "$ev"
	rc=$?
	if [ "$ev" = unbind ]; then
		ktap_test_result "$rc" "$ev: every tool with traffic on the device ended within ${TOOLS_SECS} s"
	else
		ktap_test_result "$rc" "$ev: every tool ended within ${TOOLS_SECS} s"
	fi
	case $ev in
	rmmod) modprobe ordma_ib ;;
	unbind) echo "${devs[0]}" >/sys/bus/pci/drivers/ordma_core/bind ;;
	esac
	wait_for 60 sh -c "[ -n \"\$(ls /sys/class/infiniband)\" ]"
	if wait_for 60 setup; then
		ktap_test_pass "$ev: both RDMA devices back with their GIDs"
	else
		ktap_test_fail "$ev: both RDMA devices back with their GIDs"
	fi
	pingpong
	ktap_test_result $? "$ev: RC ping-pong of 20 x 4096 bytes, data checked, afterwards"
done

bad=$(dmesg | tail -n +$((kmsg_lines + 1)) | grep -E "$BAD_KMSG")
tap_eq "no oops, warning or BUG in the kernel log" "" "$bad"

# NIC 2's netdev goes back to the initial namespace with the namespace
in_ns ip link set dev "$(in_ns ls /sys/class/net | grep -v '^lo$' | head -n 1)" netns 1 2>/dev/null
ip netns del "$NS"
rm -f "$log" "$log".*
ktap_finished
