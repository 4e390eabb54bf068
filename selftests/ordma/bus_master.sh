#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Bus Master Enable cleared and set again under traffic.  NIC 1 sends to
# NIC 2 (in a network namespace) with ib_write_bw, rping and a ping
# flood; NIC 2's Bus Master Enable is cleared with setpci, held clear
# until NIC 1 has sent 20 more frames at it, and set again, five times.
# Every DMA of NIC 2 fails meanwhile, with the outcomes of "DMA
# failures" in the hardware reference: its QPs go to error, its
# Ethernet rings stop and its MSI-X messages wait for Bus Master Enable.
# Expected: QEMU and the kernel carry on, the tools end (an error is
# the documented outcome, a hang is not; the driver completes what the
# kernel CQs that went to error held, so rdma_cm's teardown through the
# MAD layer ends too), the Ethernet port comes back
# by itself (the driver rebuilds the rings the device stopped), and
# after unbind and bind both NICs carry RDMA traffic again.
#
# The core's health poll sends a command every 2 s; one that NIC 2 has
# to fetch while Bus Master Enable is clear makes the device FATAL
# (admin-queue DMA failure), as documented.  Such an attempt is
# reported, NIC 2 is rebound and the attempt repeated, at most 3 times.
. "$(dirname "$0")/lib.sh"

ordma_require_device
ordma_require_provider
command -v setpci >/dev/null || ktap_skip_all "no setpci"
TOOL_TIMEOUT=${ORDMA_TOOL_TIMEOUT:-180}
TOGGLES=5
ATTEMPTS=3

mapfile -t devs < <(ordma_pci_devs)
[ "${#devs[@]}" -ge 2 ] || ktap_skip_all "needs two ORDMA NICs cabled together"
bdf2=${devs[1]}
DBG=/sys/kernel/debug/ordma/$bdf2
[ -r "$DBG/regs" ] || ktap_skip_all "no $DBG/regs (debugfs)"

NS=ordma_bme_peer
IP2=$(ordma_test_ip 2)
in_ns() { ip netns exec "$NS" "$@"; }

set_bus_master() { ordma_bus_master "$bdf2" "$1"; }
# ended PID...: each process is gone or a zombie (its teardown is over)
ended() {
	local p
	for p; do
		[ ! -e "/proc/$p" ] || [ "$(awk '{ print $3 }' "/proc/$p/stat" 2>/dev/null)" = Z ] ||
			return 1
	done
}
nic2_fatal() { ordma_dev_fatal "$bdf2"; }
ns_listening() { in_ns ss -Hltn "sport = :$1" | grep -q .; }
# rping's server listens (rdma_cm)
cm_listening() { rdma resource show cm_id 2>/dev/null | grep -q 'state LISTEN.*comm rping'; }
nd1_tx() { ethtool -S "$nd1" 2>/dev/null | awk '$1 == "tx_frames:" { print $2 }'; }
tx_beyond() { [ "$(nd1_tx)" -ge "$1" ]; }
# NIC 2 stays FATAL once the core declares it so, as the test expects:
# no recovery by devlink health
rebind_nic2() { ordma_rebind "$bdf2" && ordma_auto_recover "$bdf2" false; }
pair_up() {
	ordma_netns_pair_up "$NS" "${devs[0]}" "${devs[1]}" 1500 &&
		nd1=$(ordma_netdev "${devs[0]}")
}

# traffic_start PORT: clients on NIC 1, servers on NIC 2, all running
traffic_start() {
	local port=$1
	bw_out=$(mktemp) rp_out=$(mktemp) srv_out=$(mktemp)
	in_ns timeout "$TOOL_TIMEOUT" "$(bin ib_write_bw)" -d "${ib[2]}" -x "${gidx[2]}" \
		-p "$port" -F -D 30 -s 65536 >>"$srv_out" 2>&1 &
	bw_srv=$!
	in_ns timeout "$TOOL_TIMEOUT" "$(bin rping)" -s -a "$IP2" -p "$((port + 1))" -C 1000000 \
		>>"$srv_out" 2>&1 &
	rp_srv=$!
	wait_for 60 ns_listening "$port" ||
		echo "ib_write_bw server did not listen" >>"$srv_out"
	wait_for 60 cm_listening ||
		echo "rping server did not listen" >>"$srv_out"
	timeout "$TOOL_TIMEOUT" "$(bin ib_write_bw)" -d "${ib[1]}" -x "${gidx[1]}" -p "$port" \
		-F -D 30 -s 65536 "$IP2" >"$bw_out" 2>&1 &
	bw_cli=$!
	timeout "$TOOL_TIMEOUT" "$(bin rping)" -c -a "$IP2" -p "$((port + 1))" -C 1000000 \
		>"$rp_out" 2>&1 &
	rp_cli=$!
	timeout "$TOOL_TIMEOUT" ping -f -q -w 60 "$IP2" >/dev/null 2>&1 &
	ping_pid=$!
}

# tool_end PID: its exit status once it ended; 124 if it hung to the end
tool_end() {
	wait "$1"
}

ktap_header
ktap_set_plan 11
ordma_auto_recover "$bdf2" false
tap_cmd "ib_uverbs loads" modprobe ib_uverbs
ip link set dev lo up
if pair_up; then
	ktap_test_pass "${ib[1]} and ${ib[2]} (in namespace $NS) ACTIVE, reaching each other"
else
	ktap_test_fail "${ib[1]:-NIC 1} and ${ib[2]:-NIC 2} (in namespace $NS) ACTIVE, reaching each other"
	tap_skip_rest "no RDMA device pair"
	ktap_finished
fi

attempt=1 port=18800 fatal=1 torn=1
while :; do
	traffic_start "$port"
	port=$((port + 2))
	wait_for 60 tx_beyond $(($(nd1_tx) + 200))
	held=0
	for _ in $(seq "$TOGGLES"); do
		want=$(($(nd1_tx) + 20))
		set_bus_master 0
		wait_for 5 tx_beyond "$want" && held=$((held + 1))
		set_bus_master 1
		wait_for 10 tx_beyond $(($(nd1_tx) + 20))
	done
	rc_bw=0 rc_rp=0
	tool_end "$bw_cli" || rc_bw=$?
	# rping's connection may have come through: it is only stopped
	kill "$rp_cli" "$ping_pid" 2>/dev/null
	tool_end "$rp_cli" || rc_rp=$?
	wait "$ping_pid" 2>/dev/null
	kill "$bw_srv" "$rp_srv" 2>/dev/null
	# The servers' teardown on NIC 2 (rdma_cm: a DREQ through the MAD
	# layer) needs completions from a device whose CQs may be in error.
	if ! wait_for 120 ended "$bw_srv" "$rp_srv"; then
		torn=0
		break
	fi
	wait "$bw_srv" "$rp_srv" 2>/dev/null
	nic2_fatal || { fatal=0; break; }
	ktap_print_msg "attempt $attempt: a command of the health poll met Bus Master Enable clear (NIC 2 FATAL, as documented); NIC 2 rebound"
	rm -f "$bw_out" "$rp_out" "$srv_out"
	rebind_nic2 && pair_up
	[ "$attempt" -lt "$ATTEMPTS" ] || break
	attempt=$((attempt + 1))
done
if [ "$torn" = 1 ]; then
	ktap_test_pass "the servers on NIC 2 ended when stopped (rdma_cm teardown after the toggles)"
else
	ktap_test_fail "the servers on NIC 2 ended when stopped (rdma_cm teardown after the toggles)"
	for p in "$bw_srv" "$rp_srv"; do
		ktap_print_msg "$p: $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null) state $(awk '{ print $3 }' "/proc/$p/stat" 2>/dev/null)"
		sed 's/^/#   /' "/proc/$p/stack" 2>/dev/null
	done
	# unbinding NIC 2 would wait for them as well
	tap_skip_rest "NIC 2's users did not end"
	ktap_finished
fi
ktap_print_msg "attempt $attempt: Bus Master Enable held clear $held of $TOGGLES times while NIC 1 sent 20 frames"
[ "$held" -gt 0 ]
ktap_test_result $? "NIC 2 received frames while Bus Master Enable was clear"
ktap_print_msg "rping ran until stopped (exit $rc_rp)"
if [ "$rc_bw" != 124 ]; then
	ktap_test_pass "ib_write_bw ended by itself (exit $rc_bw), it did not hang"
else
	ktap_test_fail "ib_write_bw ended by itself (exit $rc_bw), it did not hang"
	sed 's/^/#   /' "$bw_out" "$rp_out" "$srv_out" | tail -n 20
fi
rm -f "$bw_out" "$rp_out" "$srv_out"
if [ "$fatal" = 1 ]; then
	ktap_test_fail "NIC 2 not FATAL after one of $ATTEMPTS attempts"
	ktap_test_skip "Ethernet from NIC 1 to NIC 2 works again without a reset" "NIC 2 FATAL"
else
	ktap_test_pass "NIC 2 still READY (no command met Bus Master Enable clear)"
	wait_for 60 ping -c 1 -W 1 "$IP2"
	ktap_test_result $? "Ethernet from NIC 1 to NIC 2 works again without a reset"
	dmesg | grep -E "ordma.*(restarting the Ethernet rings|stopped Ethernet ring)" |
		tail -n 4 | sed 's/^/#   /'
fi

rebind_nic2
ktap_test_result $? "NIC 2 unbound and bound again: $(ordma_ibdev "$bdf2" 2>/dev/null)"
if pair_up; then
	ktap_test_pass "after the rebind the pair is ACTIVE and reaching each other"
else
	ktap_test_fail "after the rebind the pair is ACTIVE and reaching each other"
fi
out=$(mktemp)
in_ns timeout "$TOOL_TIMEOUT" "$(bin ib_write_bw)" -d "${ib[2]}" -x "${gidx[2]}" \
	-p "$port" -F -D 3 -s 65536 >/dev/null 2>&1 &
srv=$!
if wait_for 60 ns_listening "$port" &&
	timeout "$TOOL_TIMEOUT" "$(bin ib_write_bw)" -d "${ib[1]}" -x "${gidx[1]}" -p "$port" \
		-F -D 3 -s 65536 "$IP2" >"$out" 2>&1 && wait "$srv"; then
	ktap_test_pass "ib_write_bw after the rebind: $(awk '$1 == 65536 && NF >= 4 { print $4 " MB/s" }' "$out" | tail -n 1)"
else
	stop_pid "$srv"
	ktap_test_fail "ib_write_bw after the rebind"
	sed 's/^/#   /' "$out" | tail -n 10
fi
in_ns timeout "$TOOL_TIMEOUT" "$(bin rping)" -s -a "$IP2" -p "$((port + 1))" -C 10 >/dev/null 2>&1 &
srv=$!
if wait_for 60 cm_listening &&
	timeout "$TOOL_TIMEOUT" "$(bin rping)" -c -a "$IP2" -p "$((port + 1))" -C 10 -v >"$out" 2>&1 &&
	wait "$srv"; then
	ktap_test_pass "rping, 10 round trips after the rebind"
else
	stop_pid "$srv"
	ktap_test_fail "rping, 10 round trips after the rebind"
	sed 's/^/#   /' "$out" | tail -n 10
fi
rm -f "$out"
# NIC 2's netdev goes back to the initial namespace for the tests after
in_ns ip link set dev "$(in_ns ls /sys/class/net | grep -v '^lo$' | head -n 1)" netns 1 2>/dev/null
ip netns del "$NS"
wait_for 10 ordma_netdev "${devs[1]}" >/dev/null
ktap_finished
