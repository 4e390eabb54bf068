#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# A device that fails stops DMA before its drivers free what it owned:
# commands fail with -ENODEV once the core declares the device dead, and
# after -ENODEV the RDMA driver frees queue rings and page tables (the one
# rule of Documentation/ordma/driver-guide.rst, "Memory the device may
# still use"), so the core must turn bus mastering off first.  The test
# makes the last ORDMA function fatal as the hardware can: with Bus Master
# Enable cleared, a HEALTH command makes the device fail its command fetch
# (FATAL AQ_DMA).  It sets Bus Master Enable again at once, before the
# core's health poll (every 2 s) declares the device dead, and checks that
# the core turns it off when it does; an attempt in which the poll was
# faster than the test is repeated.  PCI unbind/bind brings the function
# back.
. "$(dirname "$0")/lib.sh"

ordma_require_device
command -v setpci >/dev/null || ktap_skip_all "no setpci"
bdf=$(ordma_pci_devs | tail -n 1)
BAD_KMSG=$(grep -v '^#' "$SELFTEST_DIR/kmsg_fail_patterns" | paste -sd '|')

bus_master() { ordma_bus_master "$bdf"; }
no_bus_master() { ! bus_master; }
has_ibdev() { ordma_ibdev "$bdf" >/dev/null; }
declared_dead() {
	dmesg | tail -n +$((kmsg_lines + 1)) | grep -q "$bdf: device failed"
}

DBG=/sys/kernel/debug/ordma/$bdf
[ -r "$DBG/regs" ] || ktap_skip_all "no $DBG/regs (debugfs)"
ktap_header
ktap_set_plan 5
set_bus_master() { ordma_bus_master "$bdf" "$1"; }
device_fatal() { ordma_dev_fatal "$bdf"; }
# The failed device stays failed: no recovery by devlink health
rebind() { ordma_rebind "$bdf" && ordma_auto_recover "$bdf" false; }

kmsg_first=$(dmesg | wc -l)
wait_for 60 has_ibdev
ordma_auto_recover "$bdf" false
bus_master
ktap_test_result $? "$bdf: bus mastering on while the device works"

verdict=inconclusive
for attempt in 1 2 3; do
	kmsg_lines=$(dmesg | wc -l)
	set_bus_master 0
	cat "$DBG/health" >/dev/null 2>&1 &
	reader=$!
	for _ in $(seq 2000); do
		device_fatal && break
	done
	set_bus_master 1
	if ! device_fatal; then
		verdict="the device did not become fatal"
		break
	fi
	if declared_dead; then
		ktap_print_msg "attempt $attempt: the health poll came first; again"
		wait "$reader"
		rebind
		continue
	fi
	wait_for 20 declared_dead || { verdict="the core did not declare the device dead"; break; }
	if wait_for 10 no_bus_master; then
		verdict=ok
	else
		verdict="bus mastering still on after the core declared the device dead"
	fi
	break
done
wait "$reader"
if [ "$verdict" = inconclusive ]; then
	ktap_test_skip "$bdf: bus mastering is off once the device is declared dead" \
		"the health poll came first three times"
else
	[ "$verdict" = ok ]
	ktap_test_result $? "$bdf: bus mastering is off once the device is declared dead"
	[ "$verdict" = ok ] || ktap_print_msg "$verdict"
fi
echo "$bdf" >/sys/bus/pci/drivers/ordma_core/unbind
echo "$bdf" >/sys/bus/pci/drivers/ordma_core/bind
wait_for 60 has_ibdev
ktap_test_result $? "$bdf: unbind and bind bring the RDMA device back"
bus_master
ktap_test_result $? "$bdf: bus mastering on again after the new probe"

bad=$(dmesg | tail -n +$((kmsg_first + 1)) | grep -E "$BAD_KMSG")
tap_eq "no oops, warning or BUG in the kernel log" "" "$bad"

ktap_finished
