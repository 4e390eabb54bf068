#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# RDMA device: ordma_ib registers ordma<N> on top of each ORDMA function
# with its netdev as the RoCE port, node GUID = EUI-64 of the MAC, the
# firmware version the device reports, port state following the netdev,
# and RoCE v2 GIDs for the netdev's IPv4 address (::ffff:a.b.c.d) and
# IPv6 link-local address, added and removed as the addresses come and go.
. "$(dirname "$0")/lib.sh"

ordma_require_device
devs=$(ordma_pci_devs)
ndev=$(echo "$devs" | wc -l)
per_dev=16
ktap_header
ktap_set_plan $((1 + per_dev * ndev))

for bdf in $devs; do
	wait_for 20 ordma_ibdev "$bdf"
done
names=$(for bdf in $devs; do ordma_ibdev "$bdf"; done | LC_ALL=C sort | xargs)
want=$(i=0; for bdf in $devs; do echo "ordma$i"; i=$((i + 1)); done | xargs)
if rdma_kernel_names; then
	tap_eq "RDMA devices are named $want" "$want" "$names"
else
	ktap_test_skip "RDMA devices are named $want" "udev renames RDMA devices (rdma-core naming policy)"
fi

gid_present() { ordma_gid_table "$1" | grep -qE "^[0-9]+ $2 RoCE_v2 $3\$"; }
gid_absent() { ! ordma_gid_table "$1" | grep -q " $2 "; }

n=0
for bdf in $devs; do
	n=$((n + 1))
	ib=$(ordma_ibdev "$bdf")
	nd=$(ordma_netdev "$bdf")
	if [ -z "$ib" ] || [ -z "$nd" ]; then
		ktap_test_fail "$bdf: has an RDMA device (${ib:-none}) and a netdev (${nd:-none})"
		for _ in $(seq $((per_dev - 1))); do ktap_test_skip "$bdf: RDMA checks" "no RDMA device or netdev"; done
		continue
	fi
	ktap_test_pass "$bdf: has RDMA device $ib on netdev $nd"
	sys=/sys/class/infiniband/$ib

	tap_match "rdma dev shows $ib as a CA" "^[0-9]+: $ib: node_type ca " "$(rdma dev show 2>&1)"
	fw=$(ordma_diag -d "$bdf" query-fw 2>&1 | sed -n 's/^fw_version //p')
	tap_eq "$ib: fw_ver is QUERY_FW's" "${fw:-no answer from ordma-diag}" "$(cat "$sys/fw_ver" 2>&1)"
	mac=$(cat "/sys/class/net/$nd/address")
	guid=$(mac_to_guid "$mac")
	tap_eq "$ib: node_guid is the EUI-64 of $mac" "$guid" "$(cat "$sys/node_guid" 2>&1)"
	tap_eq "$ib: sys_image_guid = node_guid" "$guid" "$(cat "$sys/sys_image_guid" 2>&1)"
	tap_eq "$ib: node_type" "1: CA" "$(cat "$sys/node_type" 2>&1)"
	tap_eq "$ib: port 1 link layer Ethernet" Ethernet "$(cat "$sys/ports/1/link_layer" 2>&1)"

	ip -4 addr flush dev "$nd"
	ip link set dev "$nd" up
	ip4=$(ordma_test_ip "$n")
	ip addr add "$ip4/24" dev "$nd"
	wait_for 20 sh -c "rdma link show $ib/1 | grep -q 'state ACTIVE'"
	tap_match "rdma link: $ib/1 ACTIVE LINK_UP on $nd" \
		"^link $ib/1 state ACTIVE physical_state LINK_UP netdev $nd *\$" "$(rdma link show "$ib/1" 2>&1)"
	tap_eq "$ib: sysfs port state" "4: ACTIVE" "$(cat "$sys/ports/1/state" 2>&1)"

	gid4=$(ipv4_to_gid "$ip4")
	wait_for 20 gid_present "$ib" "$gid4" "$nd"
	ktap_test_result $? "$ib: RoCE v2 GID $gid4 for $ip4 on $nd"
	wait_for 30 sh -c "ip -6 addr show dev $nd scope link | grep -q inet6"
	ll=$(ip -6 addr show dev "$nd" scope link | sed -n 's/^ *inet6 \([^/]*\)\/.*/\1/p' | head -n 1)
	gid6=$(ipv6_expand "${ll:-::}")
	wait_for 20 gid_present "$ib" "$gid6" "$nd"
	ktap_test_result $? "$ib: RoCE v2 GID $gid6 for the link-local address on $nd"
	tap_eq "$ib: link-local GID is the EUI-64 of the MAC" "fe80:0000:0000:0000:$guid" "$gid6"
	others=$(ordma_gid_table "$ib" | awk '$3 != "RoCE_v2"')
	tap_eq "$ib: every GID is RoCE v2" "" "$others"
	[ -z "$others" ] || ktap_print_msg "$(ordma_gid_table "$ib")"

	ip addr del "$ip4/24" dev "$nd"
	wait_for 20 gid_absent "$ib" "$gid4"
	ktap_test_result $? "$ib: IPv4 GID removed with the address"

	ip link set dev "$nd" down
	wait_for 20 sh -c "rdma link show $ib/1 | grep -q 'state DOWN'"
	tap_match "rdma link: $ib/1 DOWN after link down" "^link $ib/1 state DOWN " \
		"$(rdma link show "$ib/1" 2>&1)"
	ip link set dev "$nd" up
	wait_for 20 sh -c "rdma link show $ib/1 | grep -q 'state ACTIVE'"
	tap_match "rdma link: $ib/1 ACTIVE again after link up" "^link $ib/1 state ACTIVE " \
		"$(rdma link show "$ib/1" 2>&1)"
done

ktap_finished
