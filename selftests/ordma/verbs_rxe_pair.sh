#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Two VMs, one ORDMA NIC each (run-vm.sh pair): ORDMA on VM A against
# Linux Soft-RoCE (rxe) on VM B, with perftest's defaults.  perftest
# takes the peer's max_qp_rd_atom as its READ/atomic depth (rxe offers
# 128), so this is where a smaller ORDMA limit shows.  Each tool runs
# with ORDMA as the server (rxe reads from ORDMA: ORDMA's responder
# resources) and as the client (ORDMA reads from rxe: its initiator
# depth).  VM B unloads ordma_ib so that its NIC passes RoCE frames to
# the netdev, stacks rxe on it, and restores ordma_ib at the end.
. "$(dirname "$0")/lib.sh"

[ -n "${ORDMA_PEER_IP:-}" ] && [ -d "${ORDMA_SYNC:-}" ] ||
	ktap_skip_all "needs the two-VM topology (ORDMA_PEER_IP, ORDMA_SYNC)"
ordma_require_device
ordma_require_provider
TOOL_TIMEOUT=${ORDMA_TOOL_TIMEOUT:-300}
PAIR_TAG=rxe PAIR_PORT=18700 PAIR_T=0
# the tools below, each with ORDMA (A) as server, then as client
TOOLS=3

ktap_header
ktap_set_plan $((1 + 2 * TOOLS + 1))
modprobe ib_uverbs
bdf=$(ordma_pci_devs | head -n 1)
nd=$(ordma_netdev "$bdf") || nd=
if [ "$GUEST_ROLE" = B ]; then
	# rmmod, not modprobe -r: that would take ordma_core (the netdev) too
	rmmod ordma_ib
	modprobe crc32_generic
	modprobe rdma_rxe && rdma link add rxe0 type rxe netdev "$nd"
	ib=rxe0
else
	ib=$(ordma_ibdev "$bdf") || ib=
fi
if [ -n "$nd" ]; then
	ip link set dev "$nd" up
	ip addr add "$ORDMA_LOCAL_IP/24" dev "$nd" 2>/dev/null
	ip link set dev "$nd" mtu 9000
fi
wait_for 30 has_roce_v2_gid "$ib" "$ORDMA_LOCAL_IP"
gidx=$(roce_v2_gid_index "$ib" "$ORDMA_LOCAL_IP")
wait_for 60 ping -c 1 -W 1 "$ORDMA_PEER_IP"
pair_barrier up
if [ -z "$ib" ] || [ -z "$gidx" ]; then
	ktap_test_fail "$GUEST_ROLE: RDMA device with an IPv4 RoCE v2 GID"
	for n in $(seq $((2 * TOOLS))); do pair_barrier "t$n"; pair_barrier "d$n"; done
	tap_skip_rest "no RDMA device"
else
	ktap_test_pass "$ib: GID $gidx is the RoCE v2 GID of $ORDMA_LOCAL_IP"
	bw_re='^[[:space:]]*65536[[:space:]]+100[[:space:]]'
	lat_re='^[[:space:]]*2[[:space:]]+50[[:space:]]'
	at_re='^[[:space:]]*8[[:space:]]+100[[:space:]]'
	for server in A B; do
		[ "$server" = A ] && who="rxe reads from ORDMA" || who="ORDMA reads from rxe"
		pair_across "$server" "ib_read_bw 100 x 64 KiB, default depth, $who" \
			"$bw_re" ib_read_bw -n 100 -s 65536
		pair_across "$server" "ib_read_lat 50 x 2 bytes, default depth, $who" \
			"$lat_re" ib_read_lat -n 50 -s 2
		pair_across "$server" "ib_atomic_bw 100 fetch-and-add, default depth, $who" \
			"$at_re" ib_atomic_bw -n 100 -A FETCH_AND_ADD
	done
fi

if [ "$GUEST_ROLE" = B ]; then
	rdma link delete rxe0 2>/dev/null
	modprobe -r rdma_rxe
	modprobe ordma_ib
	wait_for 30 ordma_ibdev "$bdf"
	tap_match "ordma_ib back on $bdf" '^ordma' "$(ordma_ibdev "$bdf")"
else
	tap_match "$ib/1 still ACTIVE after the tools" 'state ACTIVE' \
		"$(rdma link show "$ib/1" 2>&1)"
fi
ktap_finished
