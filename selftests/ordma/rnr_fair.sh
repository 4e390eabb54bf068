#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# No tenant starves another with RNR NAKs: ib_write_bw from NIC 2 to
# NIC 1, measured alone and beside a process whose QPs on the same NIC
# send large messages to a peer that never posts a receive (rnr_retry 7:
# RNR NAKs for ever, verbs_rnr_hog), must keep at least half its
# bandwidth over three rounds of both, in the same run.  The hog's QPs
# must really be in RNR meanwhile (the responder's RNR NAKs count up).
. "$(dirname "$0")/lib.sh"

ordma_require_device
ordma_require_provider
TOOL_TIMEOUT=${ORDMA_TOOL_TIMEOUT:-120}
HOG=${ORDMA_VERBS_RNR_HOG:-$ORDMA_REPO/build/bin/verbs_rnr_hog}
ROUNDS=3
SECONDS_EACH=4

mapfile -t devs < <(ordma_pci_devs)
[ "${#devs[@]}" -ge 2 ] || ktap_skip_all "needs two ORDMA NICs cabled together"
[ -x "$HOG" ] || ktap_skip_all "$HOG not built (make diag)"

NS=ordma_rnr_peer
IP1=$(ordma_test_ip 1)
in_ns() { ip netns exec "$NS" "$@"; }

ktap_header
ktap_set_plan $((2 + 2 * ROUNDS + 2))
tap_cmd "ib_uverbs loads" modprobe ib_uverbs
ip link set dev lo up
if ordma_netns_pair_up "$NS" "${devs[0]}" "${devs[1]}" 1500; then
	ktap_test_pass "${ib[1]} and ${ib[2]} (in namespace $NS) ACTIVE, reaching each other"
else
	ktap_test_fail "${ib[1]:-NIC 1} and ${ib[2]:-NIC 2} (in namespace $NS) ACTIVE, reaching each other"
	tap_skip_rest "no RDMA device pair"
	ktap_finished
fi
nd1=$(ordma_netdev "${devs[0]}")

PORT=18700
# write_bw: ib_write_bw for SECONDS_EACH s, server on NIC 1, client on
# NIC 2 in $NS; prints the average MB/s, or nothing if it failed
write_bw() {
	local srv cli spid port=$PORT
	PORT=$((PORT + 1))
	srv=$(mktemp) cli=$(mktemp)
	timeout "$TOOL_TIMEOUT" "$(bin ib_write_bw)" -d "${ib[1]}" -x "${gidx[1]}" \
		-p "$port" -F -D "$SECONDS_EACH" -s 65536 >"$srv" 2>&1 &
	spid=$!
	if wait_listen 60 "$port" "$spid" &&
		timeout "$TOOL_TIMEOUT" ip netns exec "$NS" "$(bin ib_write_bw)" -d "${ib[2]}" \
			-x "${gidx[2]}" -p "$port" -F -D "$SECONDS_EACH" -s 65536 "$IP1" >"$cli" 2>&1 &&
		wait "$spid"; then
		awk '$1 == 65536 && NF >= 4 { print $4 }' "$cli" | tail -n 1
	else
		stop_pid "$spid"
		sed 's/^/#   ib_write_bw: /' "$cli" "$srv" | tail -n 10 >&2
	fi
	rm -f "$srv" "$cli"
}

# RNR NAKs NIC 1 sent (its responder answers the hog)
rnr_naks() {
	ethtool -S "$nd1" 2>/dev/null | awk '$1 == "roce_rx_drop_rnr:" { print $2 }'
}

alone_sum=0 with_sum=0 rnr_before=$(rnr_naks)
for r in $(seq "$ROUNDS"); do
	bw=$(write_bw)
	if [ -n "$bw" ]; then
		ktap_test_pass "round $r: ib_write_bw alone: $bw MB/s"
		alone_sum=$(awk -v a="$alone_sum" -v b="$bw" 'BEGIN { print a + b }')
	else
		ktap_test_fail "round $r: ib_write_bw alone"
	fi
	hog_out=$(mktemp)
	timeout "$TOOL_TIMEOUT" "$HOG" "${ib[2]}" "${gidx[2]}" "${ib[1]}" "${gidx[1]}" 4 \
		>"$hog_out" 2>&1 &
	hog=$!
	if wait_for 30 grep -q "sends posted" "$hog_out"; then
		bw=$(write_bw)
	else
		bw=
		sed 's/^/#   hog: /' "$hog_out"
	fi
	kill -TERM "$hog" 2>/dev/null
	wait "$hog"
	rm -f "$hog_out"
	if [ -n "$bw" ]; then
		ktap_test_pass "round $r: ib_write_bw beside an RNR hog: $bw MB/s"
		with_sum=$(awk -v a="$with_sum" -v b="$bw" 'BEGIN { print a + b }')
	else
		ktap_test_fail "round $r: ib_write_bw beside an RNR hog"
	fi
done
rnr=$(($(rnr_naks) - rnr_before))
if [ "$rnr" -gt 0 ]; then
	ktap_test_pass "the hog's QPs were answered with RNR NAKs ($rnr)"
else
	ktap_test_fail "the hog's QPs were answered with RNR NAKs ($rnr)"
fi
ratio=$(awk -v a="$alone_sum" -v w="$with_sum" 'BEGIN { printf "%.2f", (a > 0 ? w / a : 0) }')
if awk -v r="$ratio" 'BEGIN { exit !(r >= 0.5) }'; then
	ktap_test_pass "beside the hog ib_write_bw kept $ratio of its bandwidth (at least 0.5)"
else
	ktap_test_fail "beside the hog ib_write_bw kept $ratio of its bandwidth (at least 0.5)"
fi
# NIC 2's netdev goes back to the initial namespace for the tests after
in_ns ip link set dev "$(in_ns ls /sys/class/net | grep -v '^lo$' | head -n 1)" netns 1 2>/dev/null
ip netns del "$NS"
wait_for 10 ordma_netdev "${devs[1]}" >/dev/null
ktap_finished
