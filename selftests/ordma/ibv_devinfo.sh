#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Userspace verbs: with the ordma provider (tools/provider/build.sh) on
# LD_LIBRARY_PATH, ibv_devices and ibv_devinfo -v open every ORDMA RDMA
# device and report its identity and an active port.
. "$(dirname "$0")/lib.sh"

ordma_require_device
ordma_require_provider

devs=$(ordma_pci_devs)
ndev=$(echo "$devs" | wc -l)
ktap_header
ktap_set_plan $((1 + 10 * ndev))

# rdma-core's rdma-load-modules@rdma.service loads ib_uverbs on a full
# system; this VM has no systemd.
tap_cmd "ib_uverbs loads" modprobe ib_uverbs
list=$("$(bin ibv_devices)" 2>&1)

n=0
for bdf in $devs; do
	n=$((n + 1))
	ib=$(ordma_ibdev "$bdf")
	nd=$(ordma_netdev "$bdf")
	if [ -z "$ib" ] || [ -z "$nd" ]; then
		for _ in $(seq 10); do ktap_test_skip "$bdf: ibv_devinfo" "no RDMA device or netdev"; done
		continue
	fi
	ip link set dev "$nd" up
	wait_for 20 sh -c "rdma link show $ib/1 | grep -q 'state ACTIVE'"
	guid=$(cat "/sys/class/infiniband/$ib/node_guid")
	tap_match "ibv_devices lists $ib with its node GUID" \
		"^[[:space:]]+${ib}[[:space:]]+${guid//:/}\$" "$list"
	info=$("$(bin ibv_devinfo)" -v -d "$ib" 2>&1)
	tap_match "ibv_devinfo -v -d $ib: hca_id" "^hca_id:[[:space:]]+$ib\$" "$info"
	tap_match "$ib: transport InfiniBand" '^[[:space:]]+transport:[[:space:]]+InfiniBand \(0\)$' "$info"
	fw=$(ordma_diag -d "$bdf" query-fw 2>&1 | sed -n 's/^fw_version //p')
	tap_match "$ib: fw_ver ${fw:-?}" "^[[:space:]]+fw_ver:[[:space:]]+${fw:-no answer from ordma-diag}\$" "$info"
	tap_match "$ib: node_guid" "^[[:space:]]+node_guid:[[:space:]]+$guid\$" "$info"
	tap_match "$ib: vendor_id 0x1234" '^[[:space:]]+vendor_id:[[:space:]]+0x1234$' "$info"
	# ibv_devinfo prints the part id in decimal: 0x4f52 = 20306
	tap_match "$ib: vendor_part_id 0x4f52" '^[[:space:]]+vendor_part_id:[[:space:]]+20306$' "$info"
	tap_match "$ib: hw_ver 0x1" '^[[:space:]]+hw_ver:[[:space:]]+0x1$' "$info"
	tap_match "$ib: port 1 PORT_ACTIVE" '^[[:space:]]+state:[[:space:]]+PORT_ACTIVE \(4\)$' "$info"
	tap_match "$ib: link_layer Ethernet" '^[[:space:]]+link_layer:[[:space:]]+Ethernet$' "$info"
done

ktap_finished
