#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Two VMs, one ORDMA NIC each (run-vm.sh pair): Debian's UCX across them
# on the ORDMA device alone (UCX_NET_DEVICES, -d for UCT).  ucx_perftest
# runs UCT's rc_verbs and ud_verbs transports directly (active messages,
# RDMA WRITE, RDMA READ) and UCP's tag matching, put and get above them;
# VM A is the server, VM B the client, which checks that the test
# completed with a non-zero message rate.  ucx_perftest does not check
# the data; mpi_pair.sh does, through UCP.
. "$(dirname "$0")/lib.sh"

[ -n "${ORDMA_PEER_IP:-}" ] && [ -d "${ORDMA_SYNC:-}" ] ||
	ktap_skip_all "needs the two-VM topology (ORDMA_PEER_IP, ORDMA_SYNC)"
command -v ucx_perftest >/dev/null || ktap_skip_all "no ucx_perftest (Debian: ucx-utils)"
ordma_require_device
ordma_require_provider
TOOL_TIMEOUT=${ORDMA_TOOL_TIMEOUT:-300}
PAIR_TAG=ucx PAIR_PORT=18800 PAIR_T=0
CASES=12

ktap_header
ktap_set_plan $((2 + CASES))
if ! pair_rdma_up; then
	ktap_test_fail "$GUEST_ROLE: RDMA device with an IPv4 RoCE v2 GID"
	for n in $(seq "$CASES"); do pair_barrier "t$n"; pair_barrier "d$n"; done
	tap_skip_rest "no RDMA device"
	ktap_finished
fi
ktap_test_pass "$ib: GID $gidx is the RoCE v2 GID of $ORDMA_LOCAL_IP"
dev=$ib:1
export UCX_NET_DEVICES=$dev
tap_match "ucx_info -d: rc_verbs and ud_verbs on $dev" '^rc_verbs ud_verbs$' \
	"$(ucx_info -d 2>&1 | awk -v d="$dev" '/Transport:/ { t = $3 }
		/Device:/ && $3 == d { print t }' | sort | paste -sd ' ')"

# final N: the "Final:" line of N iterations, message rate (last) non-zero
final() {
	echo "^Final:[[:space:]]+$1([[:space:]]+[0-9.]+){6}[[:space:]]+[1-9][0-9]*[[:space:]]*\$"
}
# uct NAME ITERS TL TEST ARGS...: a UCT test on transport TL of the device
uct() {
	local name=$1 n=$2 tl=$3 t=$4
	shift 4
	pair_across A "UCT $tl $t $name" "$(final "$n")" ucx_perftest \
		-t "$t" -x "$tl" -d "$dev" -n "$n" -w 10 "$@"
}
# ucp NAME ITERS TEST ARGS...: a UCP test (transports UCP chooses on the device)
ucp() {
	local name=$1 n=$2 t=$3
	shift 3
	pair_across A "UCP $t $name" "$(final "$n")" ucx_perftest \
		-t "$t" -n "$n" -w 10 "$@"
}

uct "1000 x 8 bytes" 1000 rc_verbs am_lat
uct "1000 x 8 bytes" 1000 rc_verbs am_bw
uct "200 x 4 KiB, bcopy" 200 rc_verbs am_bw -D bcopy -s 4096
uct "200 x 64 KiB, zcopy (RDMA WRITE)" 200 rc_verbs put_bw -D zcopy -s 65536
uct "200 x 64 KiB, zcopy (RDMA READ)" 200 rc_verbs get -D zcopy -s 65536
uct "1000 x 8 bytes" 1000 ud_verbs am_lat
uct "1000 x 8 bytes" 1000 ud_verbs am_bw
uct "200 x 1 KiB, bcopy" 200 ud_verbs am_bw -D bcopy -s 1024
ucp "1000 x 8 bytes" 1000 tag_lat
ucp "100 x 1 MiB (rendezvous)" 100 tag_bw -s 1048576
ucp "200 x 64 KiB" 200 ucp_put_bw -s 65536
ucp "200 x 64 KiB" 200 ucp_get -s 65536
ktap_finished
