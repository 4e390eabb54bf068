#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Ethernet function: MAC address from the device, link up/down and
# carrier, MTU range 68..9000, ethtool driver info, firmware version and
# speed, and (with two NICs cabled together in this VM) ping across the
# cable, up to 4000-byte frames, which exercises both NICs' TX and RX.
. "$(dirname "$0")/lib.sh"

ordma_require_device
devs=$(ordma_pci_devs)
ndev=$(echo "$devs" | wc -l)
ktap_header
ktap_set_plan $((19 * ndev + 6))

sysfs() { cat "/sys/class/net/$1/$2" 2>/dev/null; }
carrier_up() {
	local n
	for n in "$@"; do
		[ "$(sysfs "$n" carrier)" = 1 ] || return 1
	done
}

for bdf in $devs; do
	nd=$(ordma_netdev "$bdf")
	if [ -z "$nd" ]; then
		ktap_test_fail "$bdf: has a netdev"
		for _ in $(seq 17); do ktap_test_skip "$bdf: netdev checks" "no netdev"; done
		continue
	fi
	ktap_test_pass "$bdf: has a netdev ($nd)"

	mac=$(ordma_expect "$bdf" 2)
	if [ -n "$mac" ]; then
		tap_eq "$nd: address is the device's MAC" "$mac" "$(sysfs "$nd" address)"
		tap_match "$nd: ethtool -P shows the permanent MAC" "^Permanent address: $mac\$" \
			"$(ethtool -P "$nd" 2>&1)"
	else
		ktap_test_skip "$nd: address is the device's MAC" "MAC not known here"
		ktap_test_skip "$nd: permanent MAC" "MAC not known here"
	fi

	ip link set dev "$nd" up
	wait_for 15 carrier_up "$nd"
	tap_eq "$nd: carrier 1 after link up" 1 "$(sysfs "$nd" carrier)"
	tap_eq "$nd: operstate up" up "$(sysfs "$nd" operstate)"

	drvinfo=$(ethtool -i "$nd" 2>&1)
	tap_match "$nd: ethtool -i driver ordma_core" '^driver: ordma_core$' "$drvinfo"
	tap_match "$nd: ethtool -i bus-info $bdf" "^bus-info: $bdf\$" "$drvinfo"
	fw=$(ordma_diag -d "$bdf" query-fw 2>&1 | sed -n 's/^fw_version //p')
	tap_match "$nd: ethtool -i firmware-version is QUERY_FW's (${fw:-?})" \
		"^firmware-version: ${fw:-no answer from ordma-diag}( |\$)" "$drvinfo"
	rings=$(ethtool -g "$nd" 2>&1 | sed -n '/^Current/,$p')
	tap_match "$nd: ethtool -g: RX 1024, TX 256 by default" \
		'^RX:[[:space:]]+1024 TX:[[:space:]]+256$' "$(grep -E '^(RX|TX):' <<<"$rings" | paste -sd ' ')"
	link=$(ethtool "$nd" 2>&1)
	tap_match "$nd: ethtool speed 25000Mb/s" '^[[:space:]]+Speed: 25000Mb/s$' "$link"
	tap_match "$nd: ethtool link detected" '^[[:space:]]+Link detected: yes$' "$link"

	tap_cmd "$nd: MTU 4000 accepted" ip link set dev "$nd" mtu 4000
	tap_eq "$nd: MTU reads back 4000" 4000 "$(sysfs "$nd" mtu)"
	tap_cmd "$nd: MTU 9000 (maximum) accepted" ip link set dev "$nd" mtu 9000
	if ip link set dev "$nd" mtu 9001 2>/dev/null; then
		ktap_test_fail "$nd: MTU 9001 rejected"
	else
		tap_eq "$nd: MTU 9001 rejected, MTU unchanged" 9000 "$(sysfs "$nd" mtu)"
	fi
	if ip link set dev "$nd" mtu 67 2>/dev/null; then
		ktap_test_fail "$nd: MTU 67 rejected"
	else
		ktap_test_pass "$nd: MTU 67 rejected"
	fi
	ip link set dev "$nd" mtu 1500
	tap_eq "$nd: MTU back to 1500" 1500 "$(sysfs "$nd" mtu)"
	tap_eq "$nd: carrier still 1 after MTU changes" 1 "$(sysfs "$nd" carrier)"

	ip link set dev "$nd" down
	tap_match "$nd: ethtool after link down: no link" '^[[:space:]]+Link detected: no$' \
		"$(ethtool "$nd" 2>&1)"
	ip link set dev "$nd" up
	wait_for 15 carrier_up "$nd"
done

# The cable between NIC 1 and NIC 2 (single-VM topology): NIC 2 goes
# into its own network namespace so that traffic between the two
# addresses really crosses the wire; then it comes back.
set -- $devs
if [ $# -ge 2 ] && a=$(ordma_netdev "$1") && b=$(ordma_netdev "$2"); then
	ns=ordma-peer
	ip4a=$(ordma_test_ip 1)
	ip4b=$(ordma_test_ip 2)
	ip netns add "$ns"
	tap_cmd "move $b into network namespace $ns" ip link set dev "$b" netns "$ns"
	ip -n "$ns" link set lo up
	ip -n "$ns" addr add "$ip4b/24" dev "$b"
	ip -n "$ns" link set dev "$b" up
	ip -4 addr flush dev "$a"
	ip addr add "$ip4a/24" dev "$a"
	wait_for 15 carrier_up "$a"
	tx_a=$(sysfs "$a" statistics/tx_packets)
	rx_a=$(sysfs "$a" statistics/rx_packets)
	wait_for 20 ping -c 1 -W 1 "$ip4b"
	tap_match "ping $a -> $b across the cable: 3 replies" '^3 packets transmitted, 3 received' \
		"$(ping -c 3 -W 5 "$ip4b" 2>&1)"
	tap_match "ping with full 1500-byte packets (DF): 3 replies" '^3 packets transmitted, 3 received' \
		"$(ping -c 3 -W 5 -M "do" -s 1472 "$ip4b" 2>&1)"
	ip link set dev "$a" mtu 4000
	ip -n "$ns" link set dev "$b" mtu 4000
	wait_for 20 ping -c 1 -W 1 -M "do" -s 3972 "$ip4b"
	tap_match "ping with 4000-byte packets at MTU 4000 (DF): 3 replies" \
		'^3 packets transmitted, 3 received' "$(ping -c 3 -W 5 -M "do" -s 3972 "$ip4b" 2>&1)"
	tx=$(($(sysfs "$a" statistics/tx_packets) - tx_a))
	rx=$(($(sysfs "$a" statistics/rx_packets) - rx_a))
	ktap_test_result $((tx >= 9 && rx >= 9 ? 0 : 1)) "$a: packet counters saw the pings (tx +$tx, rx +$rx)"
	ip link set dev "$a" mtu 1500
	ip -4 addr flush dev "$a"
	ip -n "$ns" link set dev "$b" mtu 1500
	ip -n "$ns" link set dev "$b" netns 1
	ip netns del "$ns"
	wait_for 10 ordma_netdev "$2"
	tap_eq "$b back in the initial namespace" "$b" "$(ordma_netdev "$2")"
else
	for t in "network namespace" "ping" "ping 1500" "ping 4000" "counters" "namespace back"; do
		ktap_test_skip "cable: $t" "needs two ORDMA NICs in this system"
	done
fi

ktap_finished
