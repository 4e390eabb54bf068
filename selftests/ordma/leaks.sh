#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Runs last: what the kernel still holds for the ORDMA RDMA devices after
# every other test.  Debian's kernel has no kmemleak, so the check is by
# accounting: no verbs object of any process may be left (rdma res lists
# every PD, CQ, QP, SRQ, MR, context and CM ID the driver created on the
# device, with its owner), and the kernel's own objects must be exactly
# those of a freshly loaded ordma_ib (reloaded here for the comparison).
. "$(dirname "$0")/lib.sh"

ordma_require_device
devs=$(ordma_pci_devs)
TYPES="ctx pd cq qp srq mr cm_id"
tap_begin 3
modprobe ib_uverbs

# counts: "dev TYPE N ..." per ORDMA RDMA device, sorted
counts() {
	local bdf ib
	for bdf in $devs; do
		ib=$(ordma_ibdev "$bdf") || continue
		rdma res show | awk -v d="$ib:" '$2 == d' | cut -d' ' -f2-
	done
}

left=
for t in $TYPES; do
	l=$(rdma res show "$t" 2>/dev/null | grep ' pid [0-9]' | grep -E 'ordma[0-9]')
	[ -z "$l" ] || left+="$l"$'\n'
done
tap_eq "no verbs object of any process is left on the ORDMA devices" "" "$left"

after_tests=$(counts)
all_back() {
	local bdf
	for bdf in $devs; do
		ordma_ibdev "$bdf" >/dev/null || return 1
	done
}
reload() {
	rmmod ordma_ib && modprobe ordma_ib && wait_for 60 all_back
}
reload
tap_result $? "ordma_ib reloaded"
fresh=$(counts)
tap_eq "the kernel holds the same objects as after a fresh load of ordma_ib" \
	"$fresh" "$after_tests"
tap_end
