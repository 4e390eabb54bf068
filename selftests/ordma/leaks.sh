#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Runs last: what the kernel and the devices still hold for the ORDMA RDMA
# devices after every other test.  Debian's kernel has no kmemleak, so the
# check is by accounting: no verbs object of any process may be left (rdma
# res lists every PD, CQ, QP, SRQ, MR, context and CM ID the driver created
# on the device, with its owner), and the kernel's own objects must be
# exactly those of a freshly loaded ordma_ib (reloaded here for the
# comparison).  The devices are asked too (QUERY_RESOURCES, through the
# core driver's debugfs 'resources' file): after the tests they may hold no
# object beyond what they hold after the fresh load, whatever the driver
# believes it freed.  A process holding verbs objects shows that this
# comparison sees them.
. "$(dirname "$0")/lib.sh"

ordma_require_device
devs=$(ordma_pci_devs)
TYPES="ctx pd cq qp srq mr cm_id"
# Bound, in seconds, for the device's counts to settle after a change
# (GIDs, for one, are added by a work item after ordma_ib registers).
SETTLE_SECS=30
PP_PORT=18999
ktap_header
ktap_set_plan 6
modprobe ib_uverbs
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug

# counts: "dev TYPE N ..." per ORDMA RDMA device, sorted
counts() {
	local bdf ib
	for bdf in $devs; do
		ib=$(ordma_ibdev "$bdf") || continue
		rdma res show | awk -v d="$ib:" '$2 == d' | cut -d' ' -f2-
	done
}

# dev_counts: "BDF TYPE IN_USE" for every object type of every ORDMA
# function, as the device counts them; false if a device did not answer.
dev_counts() {
	local bdf rc=0
	for bdf in $devs; do
		awk -v b="$bdf" '{ print b, $1, $2 }' \
			"/sys/kernel/debug/ordma/$bdf/resources" || rc=1
	done
	return "$rc"
}

# dev_growth BASE NOW: the entries of NOW (dev_counts lines) above those
# of BASE, as "BDF TYPE BASE->NOW"; an entry BASE lacks counts from 0.
dev_growth() {
	awk 'NR == FNR { base[$1 " " $2] = $3; next }
	     { k = $1 " " $2; b = (k in base) ? base[k] : 0 }
	     $3 + 0 > b + 0 { print k, b "->" $3 }' \
		<(printf '%s\n' "$1") <(printf '%s\n' "$2")
}

left=
for t in $TYPES; do
	l=$(rdma res show "$t" 2>/dev/null | grep ' pid [0-9]' | grep -E 'ordma[0-9]')
	[ -z "$l" ] || left+="$l"$'\n'
done
tap_eq "no verbs object of any process is left on the ORDMA devices" "" "$left"

after_tests=$(counts)
after_dev=$(dev_counts)
after_dev_ok=$?
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
ktap_test_result $? "ordma_ib reloaded"
fresh=$(counts)
tap_eq "the kernel holds the same objects as after a fresh load of ordma_ib" \
	"$fresh" "$after_tests"

# Polled: what a fresh ordma_ib creates may still be on its way.
fresh_dev=
fresh_holds_as_much() {
	fresh_dev=$(dev_counts) &&
		[ -z "$(dev_growth "$fresh_dev" "$after_dev")" ]
}
if [ "$after_dev_ok" -ne 0 ] || [ -z "$after_dev" ]; then
	ktap_test_fail "the devices hold no more objects than after a fresh load of ordma_ib"
	ktap_print_msg "no QUERY_RESOURCES answer after the tests:"$'\n'"$after_dev"
else
	if wait_for "$SETTLE_SECS" fresh_holds_as_much; then
		ktap_test_pass "the devices hold no more objects than after a fresh load of ordma_ib"
		ktap_print_msg "objects the devices hold after the tests:"$'\n'"$after_dev"
	else
		ktap_test_fail "the devices hold no more objects than after a fresh load of ordma_ib"
		ktap_print_msg "grown:"$'\n'"$(dev_growth "$fresh_dev" "$after_dev")"
		ktap_print_msg "after the tests:"$'\n'"$after_dev"$'\n'"after the reload:"$'\n'"$fresh_dev"
	fi
fi

# The same comparison must see a process's objects, and see them go.
P=${ORDMA_PROVIDER_DIR:-}
pp=
if [ -n "$P" ] && [ -d "$P/lib" ]; then
	export LD_LIBRARY_PATH=$P/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	pp=$P/bin/ibv_rc_pingpong
	[ -x "$pp" ] || pp=$(command -v ibv_rc_pingpong)
fi
bdf1=${devs%%$'\n'*}
ib1=$(ordma_ibdev "$bdf1")
if [ -z "$pp" ] || [ -z "$ib1" ]; then
	ktap_test_skip "a process holding verbs objects shows as growth" "no ibv_rc_pingpong or provider"
	ktap_test_skip "the device's counts return once the process is gone" "no ibv_rc_pingpong or provider"
	ktap_finished
fi

baseline=$(dev_counts)
pp_log=$(mktemp)
# A server creates its context, PD, MR, CQ and QP, then waits for a
# client that never comes.
"$pp" -d "$ib1" -p "$PP_PORT" >"$pp_log" 2>&1 &
pp_pid=$!
trap 'kill "$pp_pid" 2>/dev/null' EXIT
holds_qp() {
	rdma res show qp | grep -qE " pid $pp_pid( |$)"
}
if wait_for "$SETTLE_SECS" holds_qp; then
	grew=$(dev_growth "$baseline" "$(dev_counts)")
	missing=
	for t in uctx pd cq qp mr; do
		grep -q "^$bdf1 $t " <<<"$grew" || missing+=" $t"
	done
	tap_eq "a process holding verbs objects shows as growth of the device's uctx, PD, CQ, QP and MR counts" \
		"" "$missing" || ktap_print_msg "growth reported:"$'\n'"$grew"
else
	ktap_test_fail "a process holding verbs objects shows as growth of the device's uctx, PD, CQ, QP and MR counts"
	ktap_print_msg "ibv_rc_pingpong held no QP within $SETTLE_SECS s:"$'\n'"$(cat "$pp_log")"
fi
kill "$pp_pid" 2>/dev/null
wait "$pp_pid" 2>/dev/null
trap - EXIT
now_dev=
back_to_baseline() {
	now_dev=$(dev_counts) && [ -z "$(dev_growth "$baseline" "$now_dev")" ]
}
if wait_for "$SETTLE_SECS" back_to_baseline; then
	ktap_test_pass "the device's counts return once the process is gone"
else
	ktap_test_fail "the device's counts return once the process is gone"
	ktap_print_msg "still grown after $SETTLE_SECS s:"$'\n'"$(dev_growth "$baseline" "$now_dev")"
fi
rm -f "$pp_log"
ktap_finished
