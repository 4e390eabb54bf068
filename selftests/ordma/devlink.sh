#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# devlink: each ORDMA function has a devlink instance whose info reports
# the driver, the serial number the device was built with, the board id
# and the running firmware version the device itself reports (QUERY_FW
# through ordma-diag, a path independent of devlink).
. "$(dirname "$0")/lib.sh"

ordma_require_device
devs=$(ordma_pci_devs)
ndev=$(echo "$devs" | wc -l)
ktap_header
ktap_set_plan $((6 * ndev))

for bdf in $devs; do
	tap_match "$bdf: devlink dev show lists pci/$bdf" "^pci/$bdf\$" "$(devlink dev show 2>&1)"
	json=$(devlink -j dev info "pci/$bdf" 2>&1)
	field() { jq -r --arg h "pci/$bdf" ".info[\$h]$1 // empty" <<<"$json" 2>/dev/null; }
	tap_eq "$bdf: driver ordma_core" ordma_core "$(field .driver)"
	serial=$(ordma_expect "$bdf" 3)
	if [ -n "$serial" ]; then
		tap_eq "$bdf: serial_number is the device's ($serial)" "$serial" "$(field .serial_number)"
	else
		ktap_test_skip "$bdf: serial_number" "serial of the device not known here"
	fi
	tap_eq "$bdf: board.id ORDMA-RNIC-V1" ORDMA-RNIC-V1 "$(field '.versions.fixed["board.id"]')"
	running=$(field .versions.running.fw)
	tap_match "$bdf: running fw version is major.minor.sub_minor" '^[0-9]+\.[0-9]+\.[0-9]+$' "$running"
	fw=$(ordma_diag -d "$bdf" query-fw 2>&1 | sed -n 's/^fw_version //p')
	tap_eq "$bdf: running fw version matches QUERY_FW" "${fw:-no answer from ordma-diag}" "$running"
done
[ "$(echo "$json" | head -c1)" = "{" ] || ktap_print_msg "devlink output: $json"

ktap_finished
