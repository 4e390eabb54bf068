#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# iwarp_select: the RDMA protocol of NIC 1's Ethernet port, chosen with
# the generic devlink parameters enable_roce and enable_iwarp.  Both are
# listed, RoCE is the default, the two are exclusive (the refusal says
# why), switching deletes the RDMA device and adds one of the other
# protocol: an iWARP device (node type RNIC, transport iWARP), and UD
# QPs are refused.  With NIC 2 on iWARP as well and in a network
# namespace (TCP over the cable), iw_cm_pair sets up rdma_cm connections
# between them: accepted
# (ESTABLISHED and DISCONNECTED on both sides, private data both ways),
# rejected (REJECTED at the client, with the server's private data),
# and a second one after the first;
# a listener's TCP port is held in the host stack (bind() gets
# EADDRINUSE, and succeeds once the listener is gone), and a port a host
# socket holds cannot be listened on (rdma_listen: EADDRINUSE); a
# new address drops the listeners (their ports are freed) and
# connections follow on it; rping -V (Sends, RDMA Reads and Writes, data
# verified) with 64 and 60000-byte buffers, and rdma statistic shows
# the FPDUs counted (no CRC error, no Terminate, no RoCE counters on the
# iWARP port); a devlink reload under a listener gives it
# DEVICE_REMOVAL and frees the port.
# verbs_iwarp checks the refused verbs: an MR with atomic rights (EOPNOTSUPP), ibv_post_send
# of immediates, atomics and a two-SGE RDMA READ (EINVAL and bad_wr), an
# extended QP offering atomics (EOPNOTSUPP); the kernel module
# ordma_iwarp_kverbs_test the same refusals to a kernel ULP
# (ib_post_send: -EINVAL and bad_wr).  The choice survives a
# devlink reload.  Back on RoCE, ibv_rc_pingpong between the two NICs
# passes.
. "$(dirname "$0")/lib.sh"

ordma_require_device
ordma_require_provider
devs=$(ordma_pci_devs)
[ "$(echo "$devs" | wc -l)" -ge 2 ] || ktap_skip_all "needs two ORDMA functions"
bdf=$(echo "$devs" | sed -n 1p)
bdf2=$(echo "$devs" | sed -n 2p)
dl=pci/$bdf
PORT=${PORT:-18600}
TOOL_TIMEOUT=${TOOL_TIMEOUT:-120}
VERBS_IWARP=${ORDMA_VERBS_IWARP:-$ORDMA_REPO/build/bin/verbs_iwarp}
VERBS_IWARP_CASES=4
KO=${ORDMA_IWARP_KVERBS_KO:-$ORDMA_REPO/selftests/ordma/kverbs/ordma_iwarp_kverbs_test.ko}
KMOD=ordma_iwarp_kverbs_test
KV_CASES=9
IW_CM_PAIR=${ORDMA_IW_CM_PAIR:-$ORDMA_REPO/build/bin/iw_cm_pair}
IW_OUT=$(mktemp)
NS=ordma_iw_peer
IP1=$(ordma_test_ip 1)
IP2=$(ordma_test_ip 2)
kmsg_first=$(dmesg | wc -l)

ktap_header
ktap_set_plan $((21 + 20 + VERBS_IWARP_CASES + 1 + KV_CASES + 2))

# param NAME: the runtime value of devlink parameter NAME of NIC 1
param() {
	devlink -j dev param show "$dl" name "$1" 2>/dev/null |
		jq -r --arg d "$dl" '.param[$d][0].values[] | select(.cmode == "runtime") | .value' 2>/dev/null
}
set_param() {
	devlink dev param set "$dl" name "$1" value "$2" cmode runtime
}
has_ibdev() { ordma_ibdev "$bdf" >/dev/null; }
no_ibdev() { ! ordma_ibdev "$bdf" >/dev/null; }
has_ibdev2() { ordma_ibdev "$bdf2" >/dev/null; }
no_ibdev2() { ! ordma_ibdev "$bdf2" >/dev/null; }
in_ns() { ip netns exec "$NS" "$@"; }
# iw_netns_up: NIC 2 in $NS with test address 2, reaching NIC 1 over
# the cable; iw_netns_down brings it back
iw_netns_up() {
	[ -n "$nd" ] && [ -n "$nd2" ] || return 1
	ip addr flush dev "$nd2"
	ip netns add "$NS" || return 1
	in_ns ip link set dev lo up
	ip link set dev "$nd2" netns "$NS" || return 1
	ip addr replace "$IP1/24" dev "$nd"
	in_ns ip link set dev "$nd2" up
	in_ns ip addr replace "$IP2/24" dev "$nd2"
	wait_for 30 in_ns ping -c 1 -W 1 "$IP1"
}
iw_netns_down() {
	in_ns ip link set dev "$nd2" netns 1 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	wait_for 30 test -e "/sys/class/net/$nd2"
	ip link set dev "$nd2" up 2>/dev/null
}
# host_bind ADDR PORT: the errno of a host TCP socket's bind(), 0 if it
# succeeded
host_bind() {
	python3 -c '
import socket, sys
s = socket.socket()
try:
	s.bind((sys.argv[1], int(sys.argv[2])))
	print(0)
except OSError as e:
	print(e.errno)' "$1" "$2"
}
# iw_pair DESC accept|reject REGEX...: iw_cm_pair's server on NIC 1, its
# client in the namespace over NIC 2 (ordma_iw_cm_pair)
iw_pair() {
	local desc=$1 mode=$2
	shift 2
	ordma_iw_cm_pair "$desc" "$mode" "$IP1" - "$NS" "$@"
}
# stat_of NAME: counter NAME in $stats (rdma statistic show's "name value")
stat_of() { tr -s ' ' '\n' <<<"$stats" | awk -v n="$1" 'p == n { print; exit } { p = $0 }'; }
# rping's server on NIC 1 listens (rdma_cm)
cm_listening() { rdma resource show cm_id 2>/dev/null | grep -q 'state LISTEN.*comm rping'; }
# rping_iw DESC SIZE COUNT: rping's server on NIC 1, its client in the
# namespace over NIC 2, COUNT round trips of SIZE bytes verified (-V);
# the client prints each one it made (-v)
rping_iw() {
	local desc=$1 size=$2 count=$3 spid src crc pings
	timeout "$TOOL_TIMEOUT" "$(bin rping)" -s -a "$IP1" -p "$PORT" -V \
		-S "$size" -C "$count" >"$IW_OUT.srv" 2>&1 &
	spid=$!
	if ! wait_for 30 cm_listening; then
		kill "$spid" 2>/dev/null
		wait "$spid"
		ktap_test_fail "$desc"
		ktap_print_msg "rping server did not listen: $(cat "$IW_OUT.srv")"
		return 1
	fi
	in_ns timeout "$TOOL_TIMEOUT" "$(bin rping)" -c -a "$IP1" -p "$PORT" -V -v \
		-S "$size" -C "$count" >"$IW_OUT.cli" 2>&1
	crc=$?
	wait "$spid"
	src=$?
	pings=$(grep -c '^ping data: ' "$IW_OUT.cli")
	if [ "$src" -eq 0 ] && [ "$crc" -eq 0 ] && [ "$pings" -eq "$count" ] &&
		! grep -q 'failed\|error' "$IW_OUT.srv" "$IW_OUT.cli"; then
		ktap_test_pass "$desc"
		return 0
	fi
	ktap_test_fail "$desc"
	ktap_print_msg "server exit $src, client exit $crc, $pings of $count pings"$'\n'"$(cut -c1-120 "$IW_OUT.srv" "$IW_OUT.cli" | tail -n 20)"
	return 1
}
port_active() { rdma link show "$(ordma_ibdev "$bdf")/1" 2>/dev/null | grep -q 'state ACTIVE'; }
# kernel log lines since the test began that fail any run
BAD_KMSG=$(grep -v '^#' "$SELFTEST_DIR/kmsg_fail_patterns" | paste -sd '|')
kmsg_bad() {
	dmesg | tail -n +$((kmsg_first + 1)) | grep -E -- "$BAD_KMSG"
}
# tool_fails_cleanly DESC REGEX CMD...: CMD exits by itself (not by the
# timeout, not by a signal) with an error, and its output has a line
# matching REGEX (ERE)
tool_fails_cleanly() {
	local desc=$1 re=$2 out rc
	shift 2
	out=$(timeout 60 "$@" 2>&1)
	rc=$?
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] &&
		! { [ "$rc" -gt 128 ] && [ "$rc" -le 192 ]; } &&
		grep -qE -- "$re" <<<"$out"; then
		ktap_test_pass "$desc"
		ktap_print_msg "$(echo "$out" | tail -n 2)"
		return 0
	fi
	ktap_test_fail "$desc"
	ktap_print_msg "\$ $* (exit $rc, expected a line matching /$re/)"$'\n'"$out"
	return 1
}

names=$(devlink -j dev param show 2>/dev/null |
	jq -r --arg d "$dl" '[.param[$d][]?.name] | sort | join(" ")' 2>/dev/null)
if ! tap_eq "devlink dev param show lists enable_iwarp and enable_roce" \
	"enable_iwarp enable_roce" "$names"; then
	tap_skip_rest "no RDMA protocol parameters"
	ktap_finished
fi
tap_eq "RoCE by default (enable_roce, enable_iwarp)" "true false" \
	"$(param enable_roce) $(param enable_iwarp)"
out=$(set_param enable_iwarp true 2>&1)
rc=$?
tap_eq "enable_iwarp true refused while enable_roce is on" 1 "$((rc != 0))"
tap_match "the refusal says to turn enable_roce off first" \
	"RoCE is enabled: set enable_roce to false first" "$out"

# to iWARP
tap_cmd "enable_roce false" set_param enable_roce false
tap_cmd "the RDMA device is gone" wait_for 30 no_ibdev
tap_cmd "enable_iwarp true" set_param enable_iwarp true
tap_cmd "an RDMA device is back" wait_for 60 has_ibdev
ibd=$(ordma_ibdev "$bdf")
nd=$(ordma_netdev "$bdf")
nd2=$(ordma_netdev "$bdf2")
ip link set dev "$nd" up
ip link set dev "$nd2" up
ip addr add "$(ordma_test_ip 1)/24" dev "$nd" 2>/dev/null
ip addr add "$(ordma_test_ip 2)/24" dev "$nd2" 2>/dev/null
tap_eq "enable_roce false, enable_iwarp true" "false true" \
	"$(param enable_roce) $(param enable_iwarp)"
tap_match "rdma dev: $ibd is an RNIC" "node_type rnic" "$(rdma dev show "$ibd" 2>&1)"
wait_for 30 port_active
tap_match "rdma link: $ibd/1 ACTIVE on netdev $nd" "state ACTIVE .*netdev $nd( |\$)" \
	"$(rdma link show "$ibd/1" 2>&1)"
info=$("$(bin ibv_devinfo)" -d "$ibd" 2>&1)
tap_match "ibv_devinfo: transport iWARP" "transport:[[:space:]]+iWARP" "$info"
tap_match "ibv_devinfo: link_layer Ethernet" "link_layer:[[:space:]]+Ethernet" "$info"
tap_match "ibv_devinfo: no atomics" "atomic_cap:[[:space:]]+ATOMIC_NONE" \
	"$("$(bin ibv_devinfo)" -v -d "$ibd" 2>&1)"
tap_program verbs_iwarp "$VERBS_IWARP_CASES" "$VERBS_IWARP" "$ibd"
# the same refusals to a kernel ULP (kverbs/ordma_iwarp_kverbs_test.c)
grep -q "^$KMOD " /proc/modules && rmmod "$KMOD"
kmsg_kv=$(dmesg | wc -l)
out=$(timeout 120 insmod "$KO" dev="$ibd" 2>&1)
rc=$?
ktap_test_result "$rc" "insmod $KMOD dev=$ibd"
[ "$rc" -eq 0 ] || ktap_print_msg "$out"
log=$(dmesg | tail -n +$((kmsg_kv + 1)) | sed -n 's/^.*ordma_iwarp_kverbs: //p')
tap_cases ordma_iwarp_kverbs "$KV_CASES" "$(grep -vE '^(begin$|done )' <<<"$log")"
tap_match "the module ran its $KV_CASES steps, none failed" \
	"^done $KV_CASES passed 0 failed\$" "$(grep '^done ' <<<"$log" | tail -n 1)"
tap_cmd "rmmod $KMOD" rmmod "$KMOD"
tool_fails_cleanly "ibv_ud_pingpong: UD QP refused" "Couldn't create QP" \
	"$(bin ibv_ud_pingpong)" -d "$ibd" -p "$PORT"
# An rdma_cm connection between the two NICs, both iWARP, NIC 2 in a
# network namespace so that TCP takes the cable: iw_cm_pair for the
# connection's life, rping for data.
tap_cmd "NIC 2: enable_roce false" devlink dev param set "pci/$bdf2" \
	name enable_roce value false cmode runtime
wait_for 30 no_ibdev2
tap_cmd "NIC 2: enable_iwarp true" devlink dev param set "pci/$bdf2" \
	name enable_iwarp value true cmode runtime
wait_for 60 has_ibdev2
nd2=$(ordma_netdev "$bdf2")
if iw_netns_up; then
	ktap_test_pass "$nd ($IP1) reaches $nd2 ($IP2, namespace $NS) over the cable"
else
	ktap_test_fail "$nd ($IP1) reaches $nd2 ($IP2, namespace $NS) over the cable"
fi
PORT=$((PORT + 1))
iw_pair "connect and accept: ESTABLISHED both ways, DISCONNECTED both ways" accept \
	'^server: RDMA_CM_EVENT_ESTABLISHED$' '^server: RDMA_CM_EVENT_DISCONNECTED$' \
	'^server: private data "ordma-request"$' \
	'^client: RDMA_CM_EVENT_ESTABLISHED \(status 0\)$' \
	'^client: private data "ordma-accept"$' '^client: RDMA_CM_EVENT_DISCONNECTED$'
PORT=$((PORT + 1))
# -ECONNREFUSED: the device's MPA reject, not a reset (-ECONNRESET);
# the reject's private data reaches the client with the event
iw_pair "reject: the client gets REJECTED, status -ECONNREFUSED, the server's private data" reject \
	'^server: rejected$' '^client: RDMA_CM_EVENT_REJECTED \(status -111\)$' \
	'^client: private data "ordma-reject"$'
PORT=$((PORT + 1))
iw_pair "a second connection after the first closed" accept \
	'^server: RDMA_CM_EVENT_ESTABLISHED$' '^client: RDMA_CM_EVENT_DISCONNECTED$'
# the listener's port is held in the host stack
PORT=$((PORT + 1))
"$IW_CM_PAIR" server "$IP1" "$PORT" accept >"$IW_OUT.srv" 2>&1 &
spid=$!
if wait_for 30 grep -q '^server: listening$' "$IW_OUT.srv"; then
	tap_eq "bind() to $IP1:$PORT the driver holds: EADDRINUSE" 98 \
		"$(host_bind "$IP1" "$PORT")"
	tap_eq "bind() to 0.0.0.0:$PORT the driver holds: EADDRINUSE" 98 \
		"$(host_bind 0.0.0.0 "$PORT")"
else
	ktap_test_fail "bind() to $IP1:$PORT the driver holds: EADDRINUSE"
	ktap_test_fail "bind() to 0.0.0.0:$PORT the driver holds: EADDRINUSE"
	ktap_print_msg "$(cat "$IW_OUT.srv")"
fi
kill "$spid" 2>/dev/null
wait "$spid" 2>/dev/null
tap_eq "after the listener went, bind() to $IP1:$PORT succeeds" 0 \
	"$(host_bind "$IP1" "$PORT")"
# a port a host socket holds cannot be listened on
PORT=$((PORT + 1))
out=$(python3 -c '
import socket, subprocess, sys
s = socket.socket()
s.bind((sys.argv[2], int(sys.argv[3])))
r = subprocess.run([sys.argv[1], "server", sys.argv[2], sys.argv[3], "accept"],
		   capture_output=True, text=True, timeout=60)
print(r.stdout + r.stderr)' "$IW_CM_PAIR" "$IP1" "$PORT" 2>&1)
tap_match "rdma_listen on a port a host socket holds: EADDRINUSE" \
	"^rdma_listen: Address already in use" "$out"
# a new address: the device drops the listeners and connections of the
# old one, without events; the driver forgets them and frees the port
PORT=$((PORT + 1))
"$IW_CM_PAIR" server "$IP1" "$PORT" accept >"$IW_OUT.srv" 2>&1 &
spid=$!
wait_for 30 grep -q '^server: listening$' "$IW_OUT.srv"
ip addr flush dev "$nd"
ip addr add "$IP1/24" dev "$nd"
kill "$spid" 2>/dev/null
wait "$spid"
tap_eq "a listener across an address change: its port is free after it" 0 \
	"$(host_bind "$IP1" "$PORT")"
tap_eq "no failed IW_DESTROY_LISTEN" "" \
	"$(dmesg | tail -n +$((kmsg_first + 1)) | grep 'IW_DESTROY_LISTEN.*failed')"
wait_for 30 in_ns ping -c 1 -W 1 "$IP1"
PORT=$((PORT + 1))
iw_pair "a connection on the new address" accept \
	'^server: RDMA_CM_EVENT_ESTABLISHED$' '^client: RDMA_CM_EVENT_DISCONNECTED$'
# data over the connection: rping's Sends, RDMA Reads and Writes,
# verified (-V), NIC 1 the server
for size in 64 60000; do
	PORT=$((PORT + 1))
	rping_iw "rping -V -S $size -C 20 between the iWARP NICs" "$size" 20
done
# rdma statistic of NIC 1's iWARP port: the offload's counters, not the
# RoCE engine's
stats=$(rdma statistic show link "$(ordma_ibdev "$bdf")/1" 2>&1)
fpdus=$(stat_of iw_rx_fpdus); crcbad=$(stat_of iw_rx_fpdu_crc_bad)
terms=$(stat_of iw_terminates_sent)
if [ "${fpdus:-0}" -gt 0 ] && [ "$crcbad" = 0 ] && [ "$terms" = 0 ] &&
	! grep -qw roce_acks_sent <<<"$stats"; then
	ktap_test_pass "rdma statistic: $fpdus FPDUs in, no CRC error, no Terminate, no RoCE counters"
else
	ktap_test_fail "rdma statistic: FPDUs in, no CRC error, no Terminate, no RoCE counters"
	ktap_print_msg "$stats"
fi
iw_netns_down
tap_cmd "NIC 2: enable_iwarp false" devlink dev param set "pci/$bdf2" \
	name enable_iwarp value false cmode runtime
wait_for 30 no_ibdev2
tap_cmd "NIC 2: enable_roce true" devlink dev param set "pci/$bdf2" \
	name enable_roce value true cmode runtime
wait_for 60 has_ibdev2

# the choice survives a reload, which takes a listener's device away
PORT=$((PORT + 1))
"$IW_CM_PAIR" server "$IP1" "$PORT" accept >"$IW_OUT.srv" 2>&1 &
spid=$!
wait_for 30 grep -q '^server: listening$' "$IW_OUT.srv"
tap_cmd "devlink dev reload" devlink dev reload "$dl"
timeout "$TOOL_TIMEOUT" tail --pid="$spid" -f /dev/null
kill "$spid" 2>/dev/null
wait "$spid"
tap_match "the listener got DEVICE_REMOVAL" "got RDMA_CM_EVENT_DEVICE_REMOVAL" \
	"$(cat "$IW_OUT.srv")"
tap_eq "after the reload, bind() to $IP1:$PORT succeeds" 0 \
	"$(host_bind "$IP1" "$PORT")"
wait_for 60 has_ibdev
tap_match "after the reload the RDMA device is an RNIC again" "node_type rnic" \
	"$(rdma dev show "$(ordma_ibdev "$bdf")" 2>&1)"

# back to RoCE
set_param enable_iwarp false
wait_for 30 no_ibdev
tap_cmd "enable_iwarp false, enable_roce true" set_param enable_roce true
wait_for 60 has_ibdev
tap_match "rdma dev: a CA again" "node_type ca" "$(rdma dev show "$(ordma_ibdev "$bdf")" 2>&1)"
if ordma_rdma_pair_up "$bdf" "$bdf2"; then
	PORT=$((PORT + 1))
	tap_cmd "RoCE again: ibv_rc_pingpong between the two NICs" pair_rc_pingpong "$PORT"
else
	ktap_test_fail "RoCE again: both NICs ACTIVE with an IPv4 RoCE v2 GID"
fi
tap_eq "no kernel warning" "" "$(kmsg_bad)"
rm -f "$IW_OUT" "$IW_OUT.srv" "$IW_OUT.cli"

ktap_finished
