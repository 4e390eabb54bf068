#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Remove and re-add the drivers three times each way: module unload/load
# (rmmod, modprobe; ordma_ib comes back by udev autoload when udev runs)
# and PCI unbind/bind through /sys/bus/pci/drivers/ordma_core.  Every
# time the device must come back whole (netdev, ordma<N>, GIDs) and the
# kernel log must stay free of errors and warnings.
. "$(dirname "$0")/lib.sh"

ordma_require_device
devs=$(ordma_pci_devs)
first=$(echo "$devs" | head -n 1)
want=$(i=0; for bdf in $devs; do echo "ordma$i"; i=$((i + 1)); done | xargs)
rdma_kernel_names || want=$(ordma_ibdevs)
CYCLES=3
ktap_header
ktap_set_plan $((1 + 4 * CYCLES + 3 * CYCLES + 2))

BAD_KMSG=$(grep -v '^#' "$SELFTEST_DIR/kmsg_fail_patterns" | paste -sd '|')
kmsg_lines=$(dmesg | wc -l)
kmsg_errs=$(dmesg --level=emerg,alert,crit,err | grep -ci ordma)
udev=0
pgrep -x systemd-udevd >/dev/null && udev=1

# RDMA devices of the ORDMA functions, sorted
ordma_ibdevs() {
	local bdf
	for bdf in $devs; do
		ordma_ibdev "$bdf"
	done | LC_ALL=C sort | xargs
}
gone() {
	local bdf
	[ -z "$(ordma_ibdevs)" ] || return 1
	for bdf in $devs; do
		[ -z "$(ordma_netdev "$bdf")" ] || return 1
	done
}
back() {
	local bdf
	for bdf in $devs; do
		ordma_netdev "$bdf" >/dev/null && ordma_ibdev "$bdf" >/dev/null || return 1
	done
	[ "$(ordma_ibdevs)" = "$want" ]
}
# check_back WHAT: one result for the devices, one for a fresh GID
check_back() {
	local nd ib gid
	wait_for 60 back
	ktap_test_result $? "$1: every function has its netdev and RDMA device ($want)"
	if ! nd=$(ordma_netdev "$first") || ! ib=$(ordma_ibdev "$first"); then
		ktap_test_fail "$1: IPv4 GID on the first function"
		return
	fi
	ip link set dev "$nd" up
	ip addr add "$(ordma_test_ip 1)/24" dev "$nd"
	gid=$(ipv4_to_gid "$(ordma_test_ip 1)")
	wait_for 30 sh -c "grep -qx $gid /sys/class/infiniband/$ib/ports/1/gids/*"
	ktap_test_result $? "$1: $ib has the RoCE v2 GID of $(ordma_test_ip 1) on $nd"
}

if rmmod ordma_core 2>/dev/null; then
	ktap_test_fail "rmmod ordma_core refused while ordma_ib uses it"
	modprobe ordma_core
else
	ktap_test_pass "rmmod ordma_core refused while ordma_ib uses it"
fi

for i in $(seq $CYCLES); do
	tap_cmd "reload $i: rmmod ordma_ib ordma_core" rmmod ordma_ib ordma_core
	wait_for 10 gone
	ktap_test_result $? "reload $i: netdevs and RDMA devices are gone"
	modprobe ordma_core
	if [ "$udev" = 1 ]; then
		wait_for 30 test -d /sys/module/ordma_ib
	else
		modprobe ordma_ib
	fi
	check_back "reload $i"
done

for i in $(seq $CYCLES); do
	for bdf in $devs; do
		echo "$bdf" >/sys/bus/pci/drivers/ordma_core/unbind
	done
	wait_for 10 gone
	ktap_test_result $? "unbind $i: netdevs and RDMA devices are gone"
	for bdf in $devs; do
		echo "$bdf" >/sys/bus/pci/drivers/ordma_core/bind
	done
	check_back "bind $i"
done

bad=$(dmesg | tail -n +$((kmsg_lines + 1)) | grep -E "$BAD_KMSG")
tap_eq "no oops, warning or BUG in the kernel log" "" "$bad"
tap_eq "no new ordma errors in the kernel log" "$kmsg_errs" \
	"$(dmesg --level=emerg,alert,crit,err | grep -ci ordma)"

ktap_finished
