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
ordma_require_provider
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
ordma_require_rdma_pair "${devs[0]}" "${devs[1]}"

uverbs=
for u in /sys/class/infiniband_verbs/uverbs*; do
	[ "$(cat "$u/ibdev" 2>/dev/null)" = "${ib[1]}" ] && uverbs=/dev/infiniband/$(basename "$u")
done
health=/sys/kernel/debug/ordma/${devs[0]}/health
tap_program verbs_isolation "$ISOLATION_CASES" "$ISOLATION" "${ib[1]}" "${gidx[1]}" \
	"${ib[2]}" "${gidx[2]}" "${uverbs:-/dev/null}" "$UID_A" "$UID_B" "$health"
tap_program verbs_rereg_mw "$REREG_CASES" "$REREG" "${ib[1]}" "${gidx[1]}" "${ib[2]}" "${gidx[2]}"
ktap_finished
