#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Counters and resource views through the standard tools: rdma statistic
# lists the device's per-QP counters and the port's counters by name;
# with QP counters in auto mode (one per QP type), the events that
# verbs_counters provokes between the two NICs (RNR NAKs, a remote access
# error, retransmissions to a vanished peer) show up on the QPs' bound
# counters, and rdma resource shows the driver's view of a QP and the
# device's raw QUERY_QP answer.
. "$(dirname "$0")/lib.sh"

ordma_require_device
ordma_require_provider
PROG=${ORDMA_VERBS_COUNTERS:-$ORDMA_REPO/build/bin/verbs_counters}
PROG_CASES=5
NAMES="out_of_sequence packet_seq_err duplicate_request rnr_nak_retry_err
local_ack_timeout_err implied_nak_seq_err rx_read_requests rx_write_requests
rx_atomic_requests resp_remote_access_errors np_cnp_sent rp_cnp_handled
np_ecn_marked_roce_packets roce_rx_drop_no_qp roce_parse_drop_icrc
wire_rx_drop pause_rx roce_tx_pause_holds"

mapfile -t devs < <(ordma_pci_devs)
[ "${#devs[@]}" -ge 2 ] || ktap_skip_all "needs two ORDMA NICs cabled together"
command -v jq >/dev/null || ktap_skip_all "needs jq"

ktap_header
ktap_set_plan $((2 + 1 + 2 + PROG_CASES + 2))
tap_cmd "ib_uverbs loads" modprobe ib_uverbs
ordma_require_rdma_pair "${devs[0]}" "${devs[1]}"

stats=$(rdma statistic show link "${ib[1]}/1" 2>&1)
missing=
for n in $NAMES; do
	grep -qw "$n" <<<"$stats" || missing="$missing $n"
done
tap_eq "rdma statistic show lists the per-QP and port counters by name" "" "$missing"

for n in 1 2; do
	tap_cmd "QP counters of ${ib[n]}/1 in auto mode per QP type" \
		rdma statistic qp set link "${ib[n]}/1" auto type on
done

tap_program verbs_counters "$PROG_CASES" "$PROG" "${ib[1]}" "${gidx[1]}" "${ib[2]}" "${gidx[2]}"

for n in 1 2; do
	tap_cmd "QP counters of ${ib[n]}/1 back off" \
		rdma statistic qp set link "${ib[n]}/1" auto off
done
ktap_finished
