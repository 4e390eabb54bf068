#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Recovery of a failed function without reloading a module, as a
# firmware-test engineer relies on it.  NIC 2 is made fatal (INJECT_FAULT
# through debugfs) while ib_write_bw runs over the cable: the devlink
# reporter fw_fatal reports it, dumps the registers and the last admin
# commands, and recovers by itself; a process reading the device's async
# events gets IBV_EVENT_DEVICE_FATAL, the old ib_device goes, a new one
# registers, the netdev keeps its name and configuration, and
# ibv_rc_pingpong passes again.  Then the
# same ten times in a row (grace period 0), with the devices' object
# counts and the kernel log checked afterwards; recovery with automatic
# recovery off (`devlink health recover`); `devlink dev reload` under
# ib_write_bw; a
# Function Level Reset through sysfs under ib_write_bw; and rping (rdma_cm)
# connecting again after a recovery.  The times of the resets are printed.
. "$(dirname "$0")/lib.sh"

ordma_require_device
ordma_require_provider
command -v devlink >/dev/null || ktap_skip_all "no devlink"
command -v jq >/dev/null || ktap_skip_all "no jq"
mapfile -t devs < <(ordma_pci_devs)
[ "${#devs[@]}" -ge 2 ] || ktap_skip_all "needs two ORDMA NICs cabled together"
bdf=${devs[1]}
DBG=/sys/kernel/debug/ordma/$bdf
[ -w "$DBG/fault_inject" ] || ktap_skip_all "no $DBG/fault_inject"
BAD_KMSG=$(grep -v '^#' "$SELFTEST_DIR/kmsg_fail_patterns" | paste -sd '|')
REPEATS=${ORDMA_RECOVERY_REPEATS:-10}
TOOL_TIMEOUT=${ORDMA_TOOL_TIMEOUT:-120}
PORT=19400

ktap_header
ktap_set_plan 30
modprobe ib_uverbs
ip link set dev lo up
kmsg_first=$(dmesg | wc -l)

ordma_require_rdma_pair "${devs[0]}" "$bdf"

nd=$(ordma_netdev "$bdf")
ifindex=$(cat "/sys/class/net/$nd/ifindex")
mtu=$(cat "/sys/class/net/$nd/mtu")

# fw_fatal FIELD: one field of the reporter (state, error, recover, ...)
fw_fatal() {
	devlink -j health show "pci/$bdf" reporter fw_fatal 2>/dev/null |
		jq -r '.. | objects | select(.reporter? == "fw_fatal") | .'"$1"' // empty' 2>/dev/null |
		head -n 1
}
recovered_count() { [ "$(fw_fatal recover)" = "$1" ] && [ "$(fw_fatal state)" = healthy ]; }
inject_fatal() { echo "fatal 1 4" >"$DBG/fault_inject"; }
# The RoCE GID of NIC 2's test address is back on its (new) ib_device
nic2_ready() {
	ib[2]=$(ordma_ibdev "$bdf") || return 1
	gidx[2]=$(roce_v2_gid_index "${ib[2]}" "$(ordma_test_ip 2)")
	[ -n "${gidx[2]}" ] &&
		rdma link show "${ib[2]}/1" 2>/dev/null | grep -q 'state ACTIVE'
}
resources() { sort "$DBG/resources" 2>/dev/null; }
# Milliseconds of the last "function reset in N ms" of NIC 2
last_reset_ms() {
	dmesg | tail -n +$((kmsg_first + 1)) | grep "$bdf: function reset in" |
		tail -n 1 | sed 's/.* in \([0-9]*\) ms.*/\1/'
}

# pingpong: ibv_rc_pingpong with data checked, NIC 1 to NIC 2, on a
# port of its own
pingpong() {
	PORT=$((PORT + 1))
	pair_rc_pingpong "$PORT"
}

tap_eq "devlink health: reporters fw and fw_fatal" "fw fw_fatal" \
	"$(devlink -j health show 2>/dev/null |
		jq -r --arg d "pci/$bdf" '[.health[$d][]?.reporter] | sort | join(" ")' 2>/dev/null)"
tap_eq "fw_fatal recovers by itself, grace period 60000 ms" "true 60000" \
	"$(fw_fatal auto_recover) $(fw_fatal grace_period)"
res_before=$(resources)
old_ib=${ib[2]}

# traffic_start: ib_write_bw from NIC 2 to NIC 1 for up to 60 s, in the
# background (bw_srv, bw_cli); true once NIC 2 has sent 100 RoCE frames
tx_frames() { ethtool -S "$nd" 2>/dev/null | awk '$1 == "roce_tx_frames:" { print $2 }'; }
flowing() { [ "$(tx_frames)" -gt "$((${tx0:-0} + 100))" ]; }
traffic_start() {
	local port=$PORT
	PORT=$((PORT + 1))
	bw_cli=
	timeout "$TOOL_TIMEOUT" "$(bin ib_write_bw)" -d "${ib[1]}" -x "${gidx[1]}" -p "$port" -F \
		-D 60 -s 65536 >/dev/null 2>&1 &
	bw_srv=$!
	wait_listen 60 "$port" "$bw_srv" || return 1
	tx0=$(tx_frames)
	timeout "$TOOL_TIMEOUT" "$(bin ib_write_bw)" -d "${ib[2]}" -x "${gidx[2]}" -p "$port" -F \
		-D 60 -s 65536 127.0.0.1 >/dev/null 2>&1 &
	bw_cli=$!
	wait_for 60 flowing
}
traffic_stop() {
	stop_pid "$bw_srv"
	[ -z "$bw_cli" ] || stop_pid "$bw_cli"
}

# --- a fatal error under ib_write_bw
# a process that watches the device's async events
events=$(mktemp)
stdbuf -oL "$(bin ibv_asyncwatch)" -d "${ib[2]}" >"$events" 2>&1 &
watcher=$!
traffic_start
ktap_test_result $? "ib_write_bw runs from ${ib[2]} to ${ib[1]}"

inject_fatal
wait_for 30 sh -c "dmesg | tail -n +$((kmsg_first + 1)) | grep -q '$bdf: device failed: status 0x[0-9a-f]* fatal code 4'"
ktap_test_result $? "fatal 1 4 under traffic: the core declares the device failed"
wait_for 60 recovered_count 1
ktap_test_result $? "fw_fatal: error reported, recovered by itself (error $(fw_fatal error), recover $(fw_fatal recover))"
ktap_print_msg "first recovery: function reset in $(last_reset_ms) ms"
# The verbs users of the old device: perftest polls its CQs and never
# learns (the device writes no completion any more); a process that
# reads its async events does.
ended() { ! kill -0 "$1" 2>/dev/null; }
grep -q 'DEVICE_FATAL' "$events"
ktap_test_result $? "a user context gets IBV_EVENT_DEVICE_FATAL ($(grep -m1 event_type "$events"))"
wait_for 10 ended "$watcher" && ktap_print_msg "ibv_asyncwatch ended: $(tail -n 1 "$events")"
stop_pid "$watcher"
traffic_stop
rm -f "$events"

dump=$(devlink -j health dump show "pci/$bdf" reporter fw_fatal 2>&1)
# dump_field NAME: the first value of NAME anywhere in the dump
dump_field() { jq -r '.. | objects | .'"$1"'? // empty' <<<"$dump" 2>/dev/null | head -n 1; }
status=$(dump_field STATUS)
tap_eq "fw_fatal dump taken at the error: FATAL_CODE 4, STATUS.FATAL set" "4 2" \
	"$(dump_field FATAL_CODE) $(( ${status:-0} & 2 ))"
ncmds=$(jq -r '[.. | objects | .last_admin_commands? // empty | .[]] | length' <<<"$dump" 2>/dev/null)
[ "${ncmds:-0}" -ge 1 ]
ktap_test_result $? "fw_fatal dump lists the last admin commands (${ncmds:-0})"
# the device's own event log: admin completions, then the fatal error
last_event=$(jq -r '[.. | objects | .device_event_log? // empty | .[]] | last | "\(.event) \(.fatal_code)"' <<<"$dump" 2>/dev/null)
nadmin=$(jq -r '[.. | objects | .device_event_log? // empty | .[] | select(.event == "admin")] | length' <<<"$dump" 2>/dev/null)
[ "$last_event" = "fatal 4" ] && [ "${nadmin:-0}" -ge 1 ]
ktap_test_result $? "fw_fatal dump: the device's event log ends with the fatal error, code 4 ($last_event, ${nadmin:-0} admin events)"

wait_for 60 nic2_ready
ktap_test_result $? "a new ib_device (${ib[2]:-none}, was $old_ib) is ACTIVE with its RoCE GID"
tap_eq "the netdev carried on: same name, ifindex and MTU" "$nd $ifindex $mtu" \
	"$(ordma_netdev "$bdf") $(cat "/sys/class/net/$nd/ifindex" 2>/dev/null) $(cat "/sys/class/net/$nd/mtu" 2>/dev/null)"
pingpong
ktap_test_result $? "ibv_rc_pingpong passes again, no module reloaded"

# --- again and again
devlink health set "pci/$bdf" reporter fw_fatal grace_period 0
ok=0 times=""
for i in $(seq "$REPEATS"); do
	inject_fatal || break
	wait_for 60 recovered_count $((i + 1)) || break
	wait_for 60 nic2_ready || break
	pingpong || break
	times="$times $(last_reset_ms)"
	ok=$((ok + 1))
done
ktap_print_msg "function reset times (ms):$times"
tap_eq "$REPEATS fatal errors in a row, each recovered and followed by a pingpong" "$REPEATS" "$ok"
same_resources() { [ "$(resources)" = "$res_before" ]; }
wait_for 30 same_resources
rc=$?
ktap_test_result $rc "the device holds the same objects as before the first error"
[ $rc = 0 ] || diff <(echo "$res_before") <(resources) | sed 's/^/#   /'

# --- automatic recovery off: the function stays down until asked
devlink health set "pci/$bdf" reporter fw_fatal auto_recover false
n=$(fw_fatal recover)
inject_fatal
in_error() { [ "$(fw_fatal state)" = error ]; }
wait_for 30 in_error
ktap_test_result $? "auto_recover false: fw_fatal stays in error"
ordma_dev_fatal "$bdf" && [ "$(fw_fatal recover)" = "$n" ]
ktap_test_result $? "auto_recover false: the function stays failed (STATUS.FATAL, no recovery)"
devlink health recover "pci/$bdf" reporter fw_fatal
ktap_test_result $? "devlink health recover"
wait_for 60 recovered_count $((n + 1)) && wait_for 60 nic2_ready && pingpong
ktap_test_result $? "after devlink health recover: healthy, ibv_rc_pingpong passes"
devlink health set "pci/$bdf" reporter fw_fatal auto_recover true grace_period 60000

# --- devlink dev reload, under traffic
traffic_start
ktap_test_result $? "ib_write_bw runs from ${ib[2]} to ${ib[1]} before the reload"
reload=$(devlink dev reload "pci/$bdf" action driver_reinit 2>&1 | tr -s '\n\t ' ' ')
ktap_test_result $? "devlink dev reload action driver_reinit: $reload"
traffic_stop
wait_for 60 nic2_ready && pingpong
ktap_test_result $? "after reload: ${ib[2]:-no ib_device} ACTIVE, ibv_rc_pingpong passes"
tap_eq "after reload: the netdev carried on" "$nd $ifindex" \
	"$(ordma_netdev "$bdf") $(cat "/sys/class/net/$nd/ifindex" 2>/dev/null)"

# --- Function Level Reset
methods=$(cat "/sys/bus/pci/devices/$bdf/reset_method" 2>/dev/null)
[[ " $methods " == *" flr "* ]]
ktap_test_result $? "the function offers FLR (reset_method: $methods)"
traffic_start
ktap_test_result $? "ib_write_bw runs again from ${ib[2]} to ${ib[1]}"
echo flr >"/sys/bus/pci/devices/$bdf/reset_method" 2>/dev/null
echo 1 >"/sys/bus/pci/devices/$bdf/reset"
# shellcheck disable=SC2320 # the reset's status
rc=$?
echo default >"/sys/bus/pci/devices/$bdf/reset_method" 2>/dev/null
traffic_stop
ktap_print_msg "FLR: function reset in $(last_reset_ms) ms"
wait_for 60 nic2_ready && pingpong
ktap_test_result $((rc || $?)) "FLR through sysfs under traffic: the function comes back, ibv_rc_pingpong passes"

# --- rdma_cm across a recovery: NIC 2 in a namespace, so that the
# connection takes the cable; rping with data verification
NS=ordma-recovery
in_ns() { ip netns exec "$NS" "$@"; }
cm_listening() { rdma resource show cm_id 2>/dev/null | grep -q "state LISTEN.*comm rping"; }
# rping_once: rping -V, 10 round trips, server on NIC 2, client on NIC 1
rping_once() {
	local port=$PORT srv
	PORT=$((PORT + 1))
	in_ns timeout "$TOOL_TIMEOUT" "$(bin rping)" -s -a "$(ordma_test_ip 2)" -p "$port" \
		-C 10 -V >/dev/null 2>&1 &
	srv=$!
	if ! wait_for 30 cm_listening; then
		stop_pid "$srv"
		return 1
	fi
	if ! timeout "$TOOL_TIMEOUT" "$(bin rping)" -c -a "$(ordma_test_ip 2)" -p "$port" \
		-C 10 -V >/dev/null 2>&1; then
		stop_pid "$srv"
		return 1
	fi
	wait "$srv"
}
# As an rdma_cm application that retries does: until it connects
rping_retry() {
	local i
	for i in 1 2 3 4 5; do
		rping_once && return 0
		ktap_print_msg "rping attempt $i failed"
	done
	return 1
}
ordma_netns_pair_up "$NS" "${devs[0]}" "$bdf" 1500 && rping_once
ktap_test_result $? "rping -V from NIC 1 to NIC 2 (in namespace $NS)"
devlink health set "pci/$bdf" reporter fw_fatal grace_period 0
n=$(fw_fatal recover)
inject_fatal && wait_for 60 recovered_count $((n + 1)) && rping_retry
ktap_test_result $? "after a fatal error and its recovery, rping -V connects again"
devlink health set "pci/$bdf" reporter fw_fatal grace_period 60000
in_ns ip link set dev "$(in_ns ls /sys/class/net | grep -v '^lo$' | head -n 1)" netns 1 2>/dev/null
ip netns del "$NS"

bad=$(dmesg | tail -n +$((kmsg_first + 1)) | grep -E "$BAD_KMSG")
[ -z "$bad" ]
ktap_test_result $? "no oops, WARN or leak report in the kernel log"
[ -n "$bad" ] && sed 's/^/#   /' <<<"$bad" | head -n 20
# a failed function took its objects with it: their destroy commands
# failing with -ENODEV is expected, not an error line each
noise=$(dmesg | tail -n +$((kmsg_first + 1)) |
	grep -E '(DESTROY|DEALLOC|DEREG|DEL)_[A-Z_]+ [0-9a-fx]+ failed: -19')
[ -z "$noise" ]
ktap_test_result $? "the teardowns of the failed functions logged no per-object -ENODEV errors"
[ -n "$noise" ] && sed 's/^/#   /' <<<"$noise" | head -n 10
ktap_finished
