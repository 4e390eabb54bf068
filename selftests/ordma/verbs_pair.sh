#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Two VMs, one ORDMA NIC each (run-vm.sh pair): the verbs tools across
# machines.  VM A runs each tool as the server, VM B as the client; they
# meet over TCP on the ORDMA netdev and at barriers in $ORDMA_SYNC.
# With InfiniBand ports (run-vm.sh --link ib pair) the two VMs are a
# fabric that opensm in VM A configures: the tools address each other by
# LID and meet over IPoIB; rping and perftest -R connect through the
# RDMA CM, which resolves the IPoIB address to a path through the SA.
. "$(dirname "$0")/lib.sh"

[ -n "${ORDMA_PEER_IP:-}" ] && [ -d "${ORDMA_SYNC:-}" ] ||
	ktap_skip_all "needs the two-VM topology (ORDMA_PEER_IP, ORDMA_SYNC)"
ordma_require_device
ordma_require_provider
TOOL_TIMEOUT=${ORDMA_TOOL_TIMEOUT:-300}

PAIR_TAG=verbs
barrier() { pair_barrier "$1"; }

ktap_header
ktap_set_plan 19
if ! pair_rdma_up; then
	ktap_test_fail "$bdf: RDMA device ready, $ORDMA_PEER_IP answers"
	for n in $(seq 18); do barrier "t$n"; barrier "d$n"; done
	tap_skip_rest "no RDMA device"
	ktap_finished
fi
if [ -n "$gidx" ]; then
	ktap_test_pass "$ib: GID $gidx is the RoCE v2 GID of $ORDMA_LOCAL_IP"
else
	ktap_test_pass "$ib: ACTIVE with LID $(cat "/sys/class/infiniband/$ib/ports/1/lid"), $ORDMA_LOCAL_IP on IPoIB $nd"
fi

PAIR_PORT=18600 PAIR_T=0
# across NAME PATTERN TOOL ARGS...: server on A, client on B
across() { pair_across A "$@"; }

pp_re='bytes in [0-9.]+ seconds'
bw_re='^[[:space:]]*65536[[:space:]]+100[[:space:]]'
lat_re='^[[:space:]]*2[[:space:]]+50[[:space:]]'
at_re='^[[:space:]]*8[[:space:]]+100[[:space:]]'
across "ibv_rc_pingpong 50 x 4096 bytes, data checked" "$pp_re" ibv_rc_pingpong -n 50 -s 4096 -c
across "ibv_rc_pingpong 10 x 65536 bytes, MTU 4096, CQ events, data checked" "$pp_re" \
	ibv_rc_pingpong -n 10 -s 65536 -m 4096 -e -c
across "ibv_ud_pingpong 50 x 1024 bytes" "$pp_re" ibv_ud_pingpong -n 50 -s 1024
across "ibv_srq_pingpong 2 QPs x 20" "$pp_re" ibv_srq_pingpong -q 2 -n 20
across "ib_write_bw 100 x 64 KiB" "$bw_re" ib_write_bw -n 100 -s 65536
across "ib_read_bw 100 x 64 KiB" "$bw_re" ib_read_bw -n 100 -s 65536
across "ib_send_bw 100 x 64 KiB" "$bw_re" ib_send_bw -n 100 -s 65536
across "ib_write_lat 50 x 2 bytes" "$lat_re" ib_write_lat -n 50 -s 2
across "ib_read_lat 50 x 2 bytes" "$lat_re" ib_read_lat -n 50 -s 2
across "ib_send_lat 50 x 2 bytes" "$lat_re" ib_send_lat -n 50 -s 2
across "ib_read_lat 50 x 2 bytes, CQ events" "$lat_re" ib_read_lat -n 50 -s 2 -e
across "ib_send_lat 50 x 2 bytes, CQ events" "$lat_re" ib_send_lat -n 50 -s 2 -e
across "ib_atomic_bw 100 fetch-and-add" "$at_re" ib_atomic_bw -n 100 -A FETCH_AND_ADD
across "ib_atomic_bw 100 compare-and-swap" "$at_re" ib_atomic_bw -n 100 -A CMP_AND_SWAP
across "rping 20 x 100 bytes through the RDMA CM, data checked" 'ping data: rdma-ping-19' \
	rping -v -V -C 20 -S 100
across "ib_send_bw -R 100 x 64 KiB, connected by the RDMA CM" "$bw_re" ib_send_bw -R -n 100 -s 65536
# after the data path: the port is still ACTIVE and the netdev still
# carries IP traffic
out=$(rdma link show "$ib/1" 2>&1)
tap_match "$ib/1 still ACTIVE after the tools" 'state ACTIVE' "$out"
barrier t17
barrier d17
out=$(ping -c 2 -W 5 "$ORDMA_PEER_IP" 2>&1)
tap_match "ping $ORDMA_PEER_IP after the tools" ' 2 received' "$out"
barrier t18
barrier d18

ktap_finished
