#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Two VMs, one ORDMA NIC each, cabled together (run-vm.sh pair): IPv4
# ping both ways, IPv6 link-local ping (neighbour discovery over
# multicast), and 4000-byte MTU frames.  Both VMs run this test at the
# same time and meet at barriers in the shared directory $ORDMA_SYNC.
#
# Neither VM changes its interface while the other may still be talking
# to it: an MTU change restarts the NIC's rings, and a frame that arrives
# meanwhile is dropped (that is how "2 of 3 replies" once happened: one
# VM went on to MTU 4000 while the other still pinged it).  The cable
# itself is a UDP socket pair on the host's loopback, which drops a
# datagram when the receiving QEMU does not read its socket in time (a
# loaded host); so each count below allows LOSS_ALLOWANCE lost replies,
# and every loss is reported with the NIC's drop counters.
. "$(dirname "$0")/lib.sh"

[ -n "${ORDMA_PEER_IP:-}" ] && [ -d "${ORDMA_SYNC:-}" ] ||
	ktap_skip_all "needs the two-VM topology (ORDMA_PEER_IP, ORDMA_SYNC)"
ordma_require_device

ktap_header
ktap_set_plan 10
LOSS_ALLOWANCE=1

# barrier NAME: wait until the peer VM has reached the same point
barrier() {
	touch "$ORDMA_SYNC/$GUEST_ROLE.$1"
	wait_for 180 test -e "$ORDMA_SYNC/$ORDMA_PEER_ROLE.$1"
}

bdf=$(ordma_pci_devs | head -n 1)
nd=$(ordma_netdev "$bdf")
if [ -z "$nd" ]; then
	ktap_test_fail "$bdf has a netdev"
	barrier up; barrier ping6; barrier mtu; barrier finish
	tap_skip_rest "no netdev"
	ktap_finished
fi
ktap_test_pass "$bdf has netdev $nd"

ip link set dev "$nd" up
ip addr add "$ORDMA_LOCAL_IP/24" dev "$nd"
wait_for 15 grep -qx 1 "/sys/class/net/$nd/carrier"
# A tentative address (duplicate address detection still running)
# cannot be the source of a ping: wait until the link-local one is final.
ll_final() {
	ip -6 addr show dev "$nd" scope link | grep -q inet6 &&
		! ip -6 addr show dev "$nd" tentative | grep -q inet6
}
wait_for 30 ll_final || ktap_print_msg "$nd: no final IPv6 link-local address after 30 s"
barrier up
ktap_test_result $? "peer VM is up"

# drops DESC: the NIC's drop counters (device and driver) as one line
drops() {
	ethtool -S "$nd" 2>/dev/null | awk '/drop|err/ { printf "%s%s", sep, $0; sep = "," }'
	echo
}

# replies DESC COUNT PING_ARGS...: ping COUNT times; at least COUNT -
# LOSS_ALLOWANCE replies.  Any loss is shown with the drop counters.
replies() {
	local desc=$1 count=$2 out got before
	shift 2
	before=$(drops)
	out=$(ping -c "$count" -W 5 "$@" 2>&1)
	got=$(sed -n 's/^[0-9]* packets transmitted, \([0-9]*\) received.*/\1/p' <<<"$out")
	if [ "${got:-0}" -ge $((count - LOSS_ALLOWANCE)) ]; then
		ktap_test_pass "$desc: $got of $count replies (at least $((count - LOSS_ALLOWANCE)))"
	else
		ktap_test_fail "$desc: ${got:-0} of $count replies (at least $((count - LOSS_ALLOWANCE)))"
	fi
	if [ "${got:-0}" != "$count" ]; then
		ktap_print_msg "$out"
		ktap_print_msg "drop counters before: $before"
		ktap_print_msg "drop counters after:  $(drops)"
	fi
}

wait_for 60 ping -c 1 -W 1 "$ORDMA_PEER_IP"
replies "ping $ORDMA_PEER_IP" 5 "$ORDMA_PEER_IP"

peer_mac=$(ip neigh show "$ORDMA_PEER_IP" dev "$nd" | sed -n 's/.* lladdr \([0-9a-f:]*\).*/\1/p')
# run-vm.sh numbers the NICs 1 and 2 in the MAC's last byte.
local_mac=$(cat "/sys/class/net/$nd/address")
expected_peer=$(printf '52:54:00:12:34:%02x' $((3 - 16#${local_mac##*:})))
tap_eq "ARP resolved the peer NIC's MAC" "$expected_peer" "$peer_mac"

g=$(mac_to_guid "${expected_peer:-00:00:00:00:00:00}")
peer_ll=$(ipv6_expand "fe80::${g}")
wait_for 30 ping -6 -c 1 -W 1 "$peer_ll%$nd"
replies "ping -6 the peer's link-local address" 5 -6 "$peer_ll%$nd"

# the peer must be done pinging before the MTU change restarts the rings
barrier ping6
ip link set dev "$nd" mtu 4000
barrier mtu
wait_for 30 ping -c 1 -W 1 -M "do" -s 3972 "$ORDMA_PEER_IP"
replies "ping with 4000-byte packets (MTU 4000, DF)" 5 -M "do" -s 3972 "$ORDMA_PEER_IP"
out=$(ping -c 1 -W 2 -M "do" -s 3973 "$ORDMA_PEER_IP" 2>&1)
tap_match "a 4001-byte packet with DF does not fit MTU 4000" 'message too long|mtu=4000' "$out"

# The wire's own losses are port counters too: nothing was lost here.
for c in wire_tx_drop wire_rx_drop; do
	tap_eq "ethtool -S $nd: $c" 0 "$(ethtool -S "$nd" 2>/dev/null | awk -v c="$c:" '$1 == c { print $2 }')"
done

barrier finish
ktap_test_result $? "peer VM finished"
ktap_finished
