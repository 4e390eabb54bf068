#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# A port unplugged under traffic (run-vm.sh --host-requests single).
# NIC 1 sends to NIC 2 (in a network namespace, cabled in memory) with
# ib_write_bw and a ping flood; the guest asks the host to device_del
# NIC 2 (QMP), which unplugs it through the PCIe slot: the guest's
# drivers release it, QEMU joins the port's engine and frees the device
# while NIC 1 still sends into the cable.  Expected: QEMU reports the
# device deleted, the tools end (an error is allowed, a hang is not),
# and NIC 1 still answers commands and carries RDMA traffic through its
# own port.  Run it last: NIC 2 does not come back.
. "$(dirname "$0")/lib.sh"

ordma_require_device
ordma_require_provider
ordma_require_host_requests
TOOL_TIMEOUT=${ORDMA_TOOL_TIMEOUT:-240}

mapfile -t devs < <(ordma_pci_devs)
[ "${#devs[@]}" -ge 2 ] || ktap_skip_all "needs two ORDMA NICs cabled together"
NS=ordma_unplug_peer
IP1=$(ordma_test_ip 1)
IP2=$(ordma_test_ip 2)
PORT=18950
in_ns() { ip netns exec "$NS" "$@"; }
tx_frames() { ethtool -S "$nd1" 2>/dev/null | awk '$1 == "tx_frames:" { print $2 }'; }
tx_beyond() { [ "$(tx_frames)" -ge "$1" ]; }
roce_tx_frames() { ethtool -S "$nd1" 2>/dev/null | awk '$1 == "roce_tx_frames:" { print $2 }'; }
roce_tx_beyond() { [ "$(roce_tx_frames)" -ge "$1" ]; }
ns_listening() { in_ns ss -Hltn "sport = :$1" | grep -q .; }
nic2_gone() { [ ! -e "/sys/bus/pci/devices/${devs[1]}" ]; }

ktap_header
ktap_set_plan 8
tap_cmd "ib_uverbs loads" modprobe ib_uverbs
# The host carries out only the requests of its list, for this topology.
r1=$(ordma_host_request quit peer) rc1=$?
r2=$(ordma_host_request system_reset) rc2=$?
[ "$rc1" = 1 ] && [ "$rc2" = 1 ] && [ "${r1#refused}" != "$r1" ] && [ "${r2#refused}" != "$r2" ]
ktap_test_result $? "the host refuses 'quit peer' without a peer and an unlisted request ($r1 / $r2)"
ip link set dev lo up
if ordma_netns_pair_up "$NS" "${devs[0]}" "${devs[1]}" 1500; then
	ktap_test_pass "${ib[1]} and ${ib[2]} (in namespace $NS) ACTIVE, reaching each other"
else
	ktap_test_fail "${ib[1]:-NIC 1} and ${ib[2]:-NIC 2} (in namespace $NS) ACTIVE, reaching each other"
	tap_skip_rest "no RDMA device pair"
	ktap_finished
fi
nd1=$(ordma_netdev "${devs[0]}")

out=$(mktemp)
in_ns timeout "$TOOL_TIMEOUT" "$(bin ib_write_bw)" -d "${ib[2]}" -x "${gidx[2]}" -p "$PORT" \
	-F -D 60 -s 65536 >/dev/null 2>&1 &
srv=$!
wait_for 60 ns_listening "$PORT"
timeout "$TOOL_TIMEOUT" "$(bin ib_write_bw)" -d "${ib[1]}" -x "${gidx[1]}" -p "$PORT" -F \
	-D 60 -s 65536 "$IP2" >"$out" 2>&1 &
cli=$!
timeout -k 10 120 ping -f -q -w 100 "$IP2" >/dev/null 2>&1 &
ping_pid=$!
# ib_write_bw meets its server over TCP before and after its RDMA phase;
# a peer unplugged during those exchanges would leave it waiting on a
# socket for ever.  Unplug once its RDMA writes flow.
wait_for 60 tx_beyond $(($(tx_frames) + 500))
wait_for 60 roce_tx_beyond $(($(roce_tx_frames) + 2000))
ktap_print_msg "NIC 1 sending ($(tx_frames) Ethernet, $(roce_tx_frames) RoCE frames); unplugging NIC 2 (${devs[1]})"
reply=$(ordma_host_request device_del wire2)
ktap_test_result $? "device_del of NIC 2 under traffic: $reply"
wait_for 60 nic2_gone
ktap_test_result $? "${devs[1]} is gone from the guest"
rc=0
wait "$cli" || rc=$?
kill "$ping_pid" 2>/dev/null
wait "$ping_pid"
stop_pid "$srv"
if [ "$rc" != 124 ]; then
	ktap_test_pass "ib_write_bw towards the unplugged port ended (exit $rc)"
else
	ktap_test_fail "ib_write_bw towards the unplugged port ended (exit $rc)"
	sed 's/^/#   /' "$out" | tail -n 15
fi
out2=$(ethtool -S "$nd1" 2>&1)
tap_match "$nd1: NIC 1 answers commands (ethtool -S)" '^ *tx_frames: [0-9]+' "$out2"
timeout "$TOOL_TIMEOUT" "$(bin ib_write_bw)" -d "${ib[1]}" -x "${gidx[1]}" -p "$((PORT + 1))" \
	-F -n 100 -s 65536 >/dev/null 2>&1 &
srv=$!
if wait_listen 60 "$((PORT + 1))" "$srv" &&
	timeout "$TOOL_TIMEOUT" "$(bin ib_write_bw)" -d "${ib[1]}" -x "${gidx[1]}" \
		-p "$((PORT + 1))" -F -n 100 -s 65536 "$IP1" >"$out" 2>&1 && wait "$srv"; then
	ktap_test_pass "ib_write_bw through ${ib[1]}'s own port still works"
else
	stop_pid "$srv"
	ktap_test_fail "ib_write_bw through ${ib[1]}'s own port still works"
	sed 's/^/#   /' "$out" | tail -n 10
fi
rm -f "$out"
ip netns del "$NS"
ktap_finished
