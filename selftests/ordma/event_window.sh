#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Completion events reach kernel ULPs while an ORDMA RDMA device
# registers and while it unregisters.  The test module
# kverbs/ordma_event_window_test.ko (built by 'make modules') is an
# ib_client: in its add and remove callbacks it flushes a receive of an
# RC QP in Error and waits, bounded, for the completion event, as a ULP
# that drains its QPs at removal waits without a bound.  Its counters in
# /sys/module/ordma_event_window_test/parameters tell how many waits
# ended with the event.  Driven through rmmod/modprobe of ordma_ib and
# through PCI unbind/bind of ordma_core.
. "$(dirname "$0")/lib.sh"

ordma_require_device
KO=${ORDMA_EVENT_WINDOW_KO:-$ORDMA_REPO/selftests/ordma/kverbs/ordma_event_window_test.ko}
MOD=ordma_event_window_test
PARAMS=/sys/module/$MOD/parameters
BAD_KMSG=$(grep -v '^#' "$SELFTEST_DIR/kmsg_fail_patterns" | paste -sd '|')

mapfile -t devs < <(ordma_pci_devs)
ndev=${#devs[@]}
[ "$ndev" -ge 1 ] || ktap_skip_all "no ORDMA function"
[ -f "$KO" ] || ktap_skip_all "$KO not built (make modules)"
first=${devs[0]}

ktap_header
ktap_set_plan 12

counts() { # "add_passed add_failed remove_passed remove_failed"
	echo "$(cat $PARAMS/add_passed) $(cat $PARAMS/add_failed)" \
		"$(cat $PARAMS/remove_passed) $(cat $PARAMS/remove_failed)"
}
all_ibdevs() {
	local bdf
	for bdf in "${devs[@]}"; do
		ordma_ibdev "$bdf" >/dev/null || return 1
	done
}
no_ibdevs() {
	local bdf
	for bdf in "${devs[@]}"; do
		! ordma_ibdev "$bdf" >/dev/null || return 1
	done
}

grep -q "^$MOD " /proc/modules && rmmod "$MOD"
kmsg_lines=$(dmesg | wc -l)
wait_for 60 all_ibdevs
if ! tap_cmd "insmod $MOD with $ndev ORDMA RDMA devices" timeout 120 insmod "$KO"; then
	tap_skip_rest "test module not loaded"
	ktap_finished
fi
tap_eq "completion event in add for the devices already registered" \
	"$ndev 0 0 0" "$(counts)"

# Removal: the client's remove runs inside ib_unregister_device().
tap_cmd "rmmod ordma_ib" timeout 120 rmmod ordma_ib
wait_for 30 no_ibdevs
ktap_test_result $? "the ORDMA RDMA devices are gone"
tap_eq "completion event in remove during ib_unregister_device (rmmod)" \
	"$ndev 0 $ndev 0" "$(counts)"

# Registration: the client's add runs inside ib_register_device().
tap_cmd "modprobe ordma_ib" timeout 120 modprobe ordma_ib
wait_for 60 all_ibdevs
ktap_test_result $? "the ORDMA RDMA devices are back"
tap_eq "completion event in add during ib_register_device (modprobe)" \
	"$((2 * ndev)) 0 $ndev 0" "$(counts)"

# The same through the PCI function: unbind removes, bind adds.
rc=0
echo "$first" >/sys/bus/pci/drivers/ordma_core/unbind || rc=1
echo "$first" >/sys/bus/pci/drivers/ordma_core/bind || rc=1
wait_for 60 all_ibdevs || rc=1
ktap_test_result $rc "unbind and bind $first: its RDMA device is back"
tap_eq "completion events in remove and add around PCI unbind/bind" \
	"$((2 * ndev + 1)) 0 $((ndev + 1)) 0" "$(counts)"

tap_cmd "rmmod $MOD" timeout 120 rmmod "$MOD"

bad=$(dmesg | tail -n +$((kmsg_lines + 1)) | grep -E "$BAD_KMSG")
tap_eq "no oops, warning or BUG in the kernel log" "" "$bad"
log=$(dmesg | tail -n +$((kmsg_lines + 1)) | grep ordma_event_window)
[ -z "$log" ] || ktap_print_msg "$log"

ktap_finished
