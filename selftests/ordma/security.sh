#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Memory protection between processes, proven with real processes on the
# two ORDMA NICs of one machine:
#  - verbs_isolation: two unprivileged processes (uids 60001 and 60002)
#    with their own contexts; B cannot ring A's doorbells (the device
#    refuses and counts them in HEALTH db_errors), map anything but its
#    own doorbell page, or use A's lkeys (LOC_PROT_ERR, A's memory
#    unchanged);
#  - verbs_rereg_mw: rereg_mr of an MR with a bound window is refused
#    with EBUSY and the MR and window keep working.
. "$(dirname "$0")/lib.sh"

ordma_require_device
P=${ORDMA_PROVIDER_DIR:-}
[ -n "$P" ] && [ -d "$P/lib" ] || ktap_skip_all "no ordma provider build (ORDMA_PROVIDER_DIR)"
export LD_LIBRARY_PATH=$P/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
ISOLATION=${ORDMA_VERBS_ISOLATION:-$ORDMA_REPO/build/bin/verbs_isolation}
ISOLATION_CASES=11
REREG=${ORDMA_VERBS_REREG_MW:-$ORDMA_REPO/build/bin/verbs_rereg_mw}
REREG_CASES=6
TOOL_TIMEOUT=${ORDMA_TOOL_TIMEOUT:-180}
# Any two uids that own nothing on this machine
UID_A=60001
UID_B=60002

mapfile -t devs < <(ordma_pci_devs)
[ "${#devs[@]}" -ge 2 ] || ktap_skip_all "needs two ORDMA NICs cabled together"

ktap_header
ktap_set_plan $((1 + ISOLATION_CASES + REREG_CASES))
modprobe ib_uverbs
ip link set dev lo up
if ! ordma_rdma_pair_up "${devs[0]}" "${devs[1]}"; then
	ktap_test_fail "both NICs ACTIVE with an IPv4 RoCE v2 GID"
	tap_skip_rest "no RDMA device pair"
	ktap_finished
fi
ktap_test_pass "${ib[1]} (GID ${gidx[1]}) and ${ib[2]} (GID ${gidx[2]}) ACTIVE with IPv4 RoCE v2 GIDs"

uverbs=
for u in /sys/class/infiniband_verbs/uverbs*; do
	[ "$(cat "$u/ibdev" 2>/dev/null)" = "${ib[1]}" ] && uverbs=/dev/infiniband/$(basename "$u")
done
health=/sys/kernel/debug/ordma/${devs[0]}/health
tap_program verbs_isolation "$ISOLATION_CASES" "$ISOLATION" "${ib[1]}" "${gidx[1]}" \
	"${ib[2]}" "${gidx[2]}" "${uverbs:-/dev/null}" "$UID_A" "$UID_B" "$health"
tap_program verbs_rereg_mw "$REREG_CASES" "$REREG" "${ib[1]}" "${gidx[1]}" "${ib[2]}" "${gidx[2]}"
ktap_finished
