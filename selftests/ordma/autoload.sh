#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Module autoload: with nothing but udev's coldplug (udevadm trigger),
# ordma_core binds every ORDMA function by its PCI modalias and ordma_ib
# binds the auxiliary RDMA device the core creates.  Must run before any
# test that loads modules by hand.
. "$(dirname "$0")/lib.sh"

ordma_require_device
pgrep -x systemd-udevd >/dev/null || pgrep -x udevd >/dev/null ||
	ktap_skip_all "udevd is not running"

devs=$(ordma_pci_devs)
ndev=$(echo "$devs" | wc -l)
ktap_header
ktap_set_plan $((4 + 5 * ndev))

tap_cmd "ordma_core was loaded" test -d /sys/module/ordma_core
tap_cmd "ordma_ib was loaded" test -d /sys/module/ordma_ib
tap_match "modinfo ordma_core: alias for PCI 1234:4f52" \
	'^pci:v00001234d00004F52sv\*sd\*bc\*sc\*i\*$' "$(modinfo -F alias ordma_core 2>&1)"
tap_match "modinfo ordma_ib: alias for the core's auxiliary device" \
	'^auxiliary:ordma_core\.rdma$' "$(modinfo -F alias ordma_ib 2>&1)"

for bdf in $devs; do
	sysdev=/sys/bus/pci/devices/$bdf
	alias=$(cat "$sysdev/modalias")
	tap_eq "$bdf: PCI modalias resolves to ordma_core" ordma_core \
		"$(modprobe -R "$alias" 2>&1)"
	tap_eq "$bdf: bound to ordma_core" ordma_core \
		"$(basename "$(readlink -f "$sysdev/driver")")"

	aux=
	for a in "$sysdev"/ordma_core.rdma.*; do
		[ -e "$a" ] && aux=$a
	done
	if [ -z "$aux" ]; then
		ktap_test_fail "$bdf: has an auxiliary device ordma_core.rdma.N"
		tap_skip_rest "no auxiliary device"
		ktap_finished
	fi
	ktap_test_pass "$bdf: has an auxiliary device $(basename "$aux")"
	tap_eq "$bdf: auxiliary modalias resolves to ordma_ib" ordma_ib \
		"$(modprobe -R "$(sed -n 's/^MODALIAS=//p' "$aux/uevent")" 2>&1)"
	tap_eq "$bdf: auxiliary device bound by ordma_ib" ordma_ib \
		"$(basename "$(readlink -f "$aux/driver/module")")"
done

ktap_finished
