#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# The kernel-bypass data path between the two ORDMA NICs of one machine,
# driven by unmodified rdma-core and perftest tools through the ordma
# provider: RC, UC, UD and SRQ ping-pongs (with received data checked where
# the tool can), perftest bandwidth and latency for WRITE, READ, SEND
# and atomics, then the negative cases of verbs_negative and the interop
# cases of verbs_interop.  The tools meet over TCP on the loopback
# interface; the RDMA traffic goes over the cable between the NICs.
. "$(dirname "$0")/lib.sh"

ordma_require_device
ordma_require_provider
NEG=${ORDMA_VERBS_NEGATIVE:-$ORDMA_REPO/build/bin/verbs_negative}
NEG_CASES=15
INTEROP=${ORDMA_VERBS_INTEROP:-$ORDMA_REPO/build/bin/verbs_interop}
INTEROP_CASES=4
UDATA=${ORDMA_UVERBS_UDATA:-$ORDMA_REPO/build/bin/uverbs_udata}
UDATA_CASES=21
# Each tool gets a bound of its own so that one that hangs leaves time for
# the cases after it (the whole test has the timeout of settings).
TOOL_TIMEOUT=${ORDMA_TOOL_TIMEOUT:-120}
# Runs of each event-mode latency test: whether a completion event comes
# once, twice or never depends on timing, so one run proves little.
EVENT_RUNS=${ORDMA_EVENT_RUNS:-2}

mapfile -t devs < <(ordma_pci_devs)
[ "${#devs[@]}" -ge 2 ] || ktap_skip_all "needs two ORDMA NICs cabled together"

ktap_header
ktap_set_plan $((2 + 16 + 2 * EVENT_RUNS + NEG_CASES + INTEROP_CASES + UDATA_CASES))
tap_cmd "ib_uverbs loads" modprobe ib_uverbs
ip link set dev lo up

ordma_require_rdma_pair "${devs[0]}" "${devs[1]}"

PORT=18515
pp_re='bytes in [0-9.]+ seconds'
run_pair "ibv_rc_pingpong: 100 x 4096 bytes, MTU 1024, data checked" "$pp_re" \
	ibv_rc_pingpong -n 100 -s 4096 -m 1024 -c
run_pair "ibv_rc_pingpong: 20 x 65536 bytes, MTU 4096, CQ events, data checked" "$pp_re" \
	ibv_rc_pingpong -n 20 -s 65536 -m 4096 -e -c
run_pair "ibv_rc_pingpong: 20 x 10000 bytes, MTU 256, data checked" "$pp_re" \
	ibv_rc_pingpong -n 20 -s 10000 -m 256 -c
run_pair "ibv_rc_pingpong: 200 x 1 byte" "$pp_re" \
	ibv_rc_pingpong -n 200 -s 1
run_pair "ibv_uc_pingpong: 100 x 4096 bytes, MTU 1024, data checked" "$pp_re" \
	ibv_uc_pingpong -n 100 -s 4096 -m 1024 -c
run_pair "ibv_uc_pingpong: 20 x 10000 bytes, MTU 256, CQ events, data checked" "$pp_re" \
	ibv_uc_pingpong -n 20 -s 10000 -m 256 -e -c
run_pair "ibv_ud_pingpong: 100 x 1024 bytes" "$pp_re" \
	ibv_ud_pingpong -n 100 -s 1024
run_pair "ibv_srq_pingpong: 4 QPs on one SRQ, 50 x 4096 bytes each" "$pp_re" \
	ibv_srq_pingpong -q 4 -n 50 -s 4096

bw_re='^[[:space:]]*65536[[:space:]]+200[[:space:]]+[0-9.]+'
# The result line with its iteration count; the timings are not checked
# (perftest prints "inf" when it cannot read the guest CPU's clock rate).
lat_re='^[[:space:]]*2[[:space:]]+100[[:space:]]+'
run_pair "ib_write_bw: 200 x 64 KiB" "$bw_re" ib_write_bw -n 200 -s 65536
run_pair "ib_read_bw: 200 x 64 KiB" "$bw_re" ib_read_bw -n 200 -s 65536
run_pair "ib_send_bw: 200 x 64 KiB" "$bw_re" ib_send_bw -n 200 -s 65536
run_pair "ib_write_lat: 100 x 2 bytes" "$lat_re" ib_write_lat -n 100 -s 2
run_pair "ib_read_lat: 100 x 2 bytes" "$lat_re" ib_read_lat -n 100 -s 2
run_pair "ib_send_lat: 100 x 2 bytes" "$lat_re" ib_send_lat -n 100 -s 2
# Event mode: perftest takes the event, re-arms the CQ, then polls once,
# so a CQE announced twice (or never) throws it out of step: a post into
# a full send queue, a hang.  ib_write_lat polls memory and has no -e.
for run in $(seq "$EVENT_RUNS"); do
	run_pair "ib_read_lat: 100 x 2 bytes, CQ events (run $run)" "$lat_re" \
		ib_read_lat -n 100 -s 2 -e
	run_pair "ib_send_lat: 100 x 2 bytes, CQ events (run $run)" "$lat_re" \
		ib_send_lat -n 100 -s 2 -e
done
run_pair "ib_atomic_bw: 200 fetch-and-add" '^[[:space:]]*8[[:space:]]+200[[:space:]]+[0-9.]+' \
	ib_atomic_bw -n 200 -A FETCH_AND_ADD
run_pair "ib_atomic_bw: 200 compare-and-swap" '^[[:space:]]*8[[:space:]]+200[[:space:]]+[0-9.]+' \
	ib_atomic_bw -n 200 -A CMP_AND_SWAP

# Negative cases: error completions and errnos, memory outside the MR
# untouched.
tap_program verbs_negative "$NEG_CASES" "$NEG" "${ib[1]}" "${gidx[1]}" "${ib[2]}" "${gidx[2]}"

# What applications written for other RoCE devices pass and expect: any
# flow label, the UD completion's GRH flag and packet type
tap_program verbs_interop "$INTEROP_CASES" "$INTEROP" "${ib[1]}" "${gidx[1]}" "${ib[2]}" "${gidx[2]}"

# Malformed udata and mmap requests through the raw uverbs interface
uverbs=
for u in /sys/class/infiniband_verbs/uverbs*; do
	[ "$(cat "$u/ibdev" 2>/dev/null)" = "${ib[1]}" ] && uverbs=/dev/infiniband/$(basename "$u")
done
tap_program uverbs_udata "$UDATA_CASES" "$UDATA" "${uverbs:-/dev/null}"

ktap_finished
