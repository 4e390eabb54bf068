#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# PCI probe: every ORDMA function is visible with its IDs, bound to
# ordma_core with MSI-X enabled, has a netdev, sits behind the IOMMU when
# the VM has one, and the driver logged no errors while probing.
. "$(dirname "$0")/lib.sh"

devs=$(ordma_pci_devs)
ndev=$(echo "$devs" | grep -c .)
expected=$(echo "${ORDMA_NICS:-}" | wc -w)
ktap_header
ktap_set_plan $((2 + 6 * (ndev > 0 ? ndev : 1)))

if [ "$expected" -gt 0 ]; then
	tap_eq "number of ORDMA functions is what the VM was given" "$expected" "$ndev"
else
	ktap_test_skip "number of ORDMA functions" "ORDMA_NICS not set"
fi
[ "$ndev" -gt 0 ] || { tap_skip_rest "no ORDMA function"; ktap_finished; }

for bdf in $devs; do
	nn=$(lspci -nn -s "$bdf" 2>&1)
	tap_match "$bdf: lspci -nn shows Ethernet controller [0200] 1234:4f52 rev 01" \
		'Ethernet controller \[0200\]: .*\[1234:4f52\] \(rev 01\)$' "$nn"
	info=$(lspci -vv -k -s "$bdf" 2>&1)
	tap_match "$bdf: lspci -k: driver in use ordma_core" \
		'^[[:space:]]+Kernel driver in use: ordma_core$' "$info"
	tap_match "$bdf: MSI-X enabled" 'MSI-X: Enable\+' "$info"
	tap_match "$bdf: PCIe endpoint capability" 'Express \(v[12]\) (Endpoint|Root Complex Integrated Endpoint)' "$info"
	nd=$(ordma_netdev "$bdf")
	ktap_test_result $? "$bdf: has a netdev (${nd:-none})"
	if [ "${ORDMA_IOMMU:-0}" = 1 ]; then
		# iommu.strict=1: every unmap is flushed at once (type DMA, not DMA-FQ)
		tap_eq "$bdf: DMA goes through the IOMMU (strict)" DMA \
			"$(cat "/sys/bus/pci/devices/$bdf/iommu_group/type" 2>&1)"
	else
		ktap_test_skip "$bdf: DMA goes through the IOMMU" "VM without IOMMU"
	fi
done

errs=$(dmesg --level=emerg,alert,crit,err 2>&1 | grep -i ordma)
tap_eq "no ordma errors in the kernel log" "" "$errs"
ktap_finished
