#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Two VMs, one ORDMA NIC each, cabled together (run-vm.sh pair): IPv4
# ping both ways, IPv6 link-local ping (neighbour discovery over
# multicast), and 4000-byte MTU frames.  Both VMs run this test at the
# same time and meet at barriers in the shared directory $ORDMA_SYNC.
. "$(dirname "$0")/lib.sh"

[ -n "${ORDMA_PEER_IP:-}" ] && [ -d "${ORDMA_SYNC:-}" ] ||
	tap_skip_all "needs the two-VM topology (ORDMA_PEER_IP, ORDMA_SYNC)"
ordma_require_device

tap_begin 8

# barrier NAME: wait until the peer VM has reached the same point
barrier() {
	touch "$ORDMA_SYNC/$GUEST_ROLE.$1"
	wait_for 180 test -e "$ORDMA_SYNC/$ORDMA_PEER_ROLE.$1"
}

bdf=$(ordma_pci_devs | head -n 1)
nd=$(ordma_netdev "$bdf")
if [ -z "$nd" ]; then
	tap_fail "$bdf has a netdev"
	barrier up; barrier mtu; barrier finish
	tap_skip_rest "no netdev"
	tap_end
fi
tap_ok "$bdf has netdev $nd"

ip link set dev "$nd" up
ip addr add "$ORDMA_LOCAL_IP/24" dev "$nd"
wait_for 15 grep -qx 1 "/sys/class/net/$nd/carrier"
barrier up
tap_result $? "peer VM is up"

wait_for 60 ping -c 1 -W 1 "$ORDMA_PEER_IP"
out=$(ping -c 5 -W 5 "$ORDMA_PEER_IP" 2>&1)
tap_match "ping -c 5 $ORDMA_PEER_IP: 5 replies" '^5 packets transmitted, 5 received' "$out"

peer_mac=$(ip neigh show "$ORDMA_PEER_IP" dev "$nd" | sed -n 's/.* lladdr \([0-9a-f:]*\).*/\1/p')
# run-vm.sh numbers the NICs 1 and 2 in the MAC's last byte.
local_mac=$(cat "/sys/class/net/$nd/address")
expected_peer=$(printf '52:54:00:12:34:%02x' $((3 - 16#${local_mac##*:})))
tap_eq "ARP resolved the peer NIC's MAC" "$expected_peer" "$peer_mac"

g=$(mac_to_guid "${expected_peer:-00:00:00:00:00:00}")
peer_ll=$(ipv6_expand "fe80::${g}")
wait_for 30 ping -6 -c 1 -W 1 "$peer_ll%$nd"
out=$(ping -6 -c 3 -W 5 "$peer_ll%$nd" 2>&1)
tap_match "ping -6 the peer's link-local address: 3 replies" '^3 packets transmitted, 3 received' "$out"

ip link set dev "$nd" mtu 4000
barrier mtu
wait_for 30 ping -c 1 -W 1 -M "do" -s 3972 "$ORDMA_PEER_IP"
out=$(ping -c 3 -W 5 -M "do" -s 3972 "$ORDMA_PEER_IP" 2>&1)
tap_match "ping with 4000-byte packets (MTU 4000, DF): 3 replies" \
	'^3 packets transmitted, 3 received' "$out"
out=$(ping -c 1 -W 2 -M "do" -s 3973 "$ORDMA_PEER_IP" 2>&1)
tap_match "a 4001-byte packet with DF does not fit MTU 4000" 'message too long|mtu=4000' "$out"

barrier finish
tap_result $? "peer VM finished"
tap_end
