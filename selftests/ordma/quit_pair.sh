#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# One VM of the pair quits while the other sends to it (run-vm.sh
# --host-requests pair).  VM A sends to VM B with ib_write_bw and a ping
# flood; once B's port has received the traffic, B asks the host to quit
# its QEMU (QMP quit, with B's engine thread receiving).  The host's
# verdict checks that B's QEMU quit cleanly; A checks that its
# ib_write_bw ends (a peer that is gone is an error, a hang is not),
# and that its own device still answers commands and carries RDMA
# traffic (through the port's internal loopback: there is no peer).
. "$(dirname "$0")/lib.sh"

[ -n "${ORDMA_PEER_IP:-}" ] && [ -d "${ORDMA_SYNC:-}" ] ||
	ktap_skip_all "needs the two-VM topology (ORDMA_PEER_IP, ORDMA_SYNC)"
ordma_require_device
ordma_require_provider
ordma_require_host_requests
TOOL_TIMEOUT=${ORDMA_TOOL_TIMEOUT:-240}
PAIR_TAG=quit
PORT=18900

rx_frames() { ethtool -S "$nd" 2>/dev/null | awk '$1 == "roce_rx_frames:" { print $2 }'; }
rx_beyond() { [ "$(rx_frames)" -ge "$1" ]; }

ktap_header
if [ "$GUEST_ROLE" = B ]; then
	ktap_set_plan 2
	if ! pair_rdma_up; then
		ktap_test_fail "$bdf: RDMA device with an IPv4 RoCE v2 GID"
		pair_barrier serving
		tap_skip_rest "no RDMA device"
		ktap_finished
	fi
	ktap_test_pass "$ib: GID $gidx is the RoCE v2 GID of $ORDMA_LOCAL_IP"
	timeout "$TOOL_TIMEOUT" "$(bin ib_write_bw)" -d "$ib" -x "$gidx" -p "$PORT" -F \
		-D 60 -s 65536 >/dev/null 2>&1 &
	wait_listen 60 "$PORT" $!
	pair_barrier serving
	wait_for 60 rx_beyond $(($(rx_frames) + 500))
	ktap_test_result $? "$ib received A's traffic; asking the host to quit this VM"
	# nothing after this line runs: QEMU quits
	ordma_host_request quit
	ktap_finished
fi

ktap_set_plan 5
if ! pair_rdma_up; then
	ktap_test_fail "$bdf: RDMA device with an IPv4 RoCE v2 GID"
	pair_barrier serving
	tap_skip_rest "no RDMA device"
	ktap_finished
fi
ktap_test_pass "$ib: GID $gidx is the RoCE v2 GID of $ORDMA_LOCAL_IP"
pair_barrier serving
out=$(mktemp)
timeout -k 10 90 ping -f -q -w 80 "$ORDMA_PEER_IP" >/dev/null 2>&1 &
ping_pid=$!
timeout "$TOOL_TIMEOUT" "$(bin ib_write_bw)" -d "$ib" -x "$gidx" -p "$PORT" -F -D 60 \
	-s 65536 "$ORDMA_PEER_IP" >"$out" 2>&1
rc=$?
kill "$ping_pid" 2>/dev/null
wait "$ping_pid"
if [ "$rc" != 124 ] && [ "$rc" != 0 ]; then
	ktap_test_pass "ib_write_bw to the VM that quit ended with an error (exit $rc)"
	grep -iE 'error|failed|status' "$out" | head -n 3 | sed 's/^/#   /'
else
	ktap_test_fail "ib_write_bw to the VM that quit ended with an error (exit $rc)"
	sed 's/^/#   /' "$out" | tail -n 15
fi
out2=$(ethtool -S "$nd" 2>&1)
tap_match "$nd: the device answers commands (ethtool -S)" '^ *tx_frames: [0-9]+' "$out2"
out2=$(rdma link show "$ib/1" 2>&1)
tap_match "$ib/1 is still there" "link $ib/1" "$out2"
# RDMA with no peer: through the port's internal loopback
timeout "$TOOL_TIMEOUT" "$(bin ib_write_bw)" -d "$ib" -x "$gidx" -p "$((PORT + 1))" -F \
	-n 100 -s 65536 >/dev/null 2>&1 &
srv=$!
if wait_listen 60 "$((PORT + 1))" "$srv" &&
	timeout "$TOOL_TIMEOUT" "$(bin ib_write_bw)" -d "$ib" -x "$gidx" -p "$((PORT + 1))" -F \
		-n 100 -s 65536 "$ORDMA_LOCAL_IP" >"$out" 2>&1 && wait "$srv"; then
	ktap_test_pass "ib_write_bw through $ib's own port still works"
else
	stop_pid "$srv"
	ktap_test_fail "ib_write_bw through $ib's own port still works"
	sed 's/^/#   /' "$out" | tail -n 10
fi
rm -f "$out"
ktap_finished
