#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# The guest half of `make demo` (VM with two ORDMA NICs cabled together,
# started without udev): load the drivers by hand, show what the system
# sees and, when the provider is there, run an RDMA ping-pong (data
# checked) and ib_write_bw from one NIC to the other across the cable.
. "$ORDMA_REPO/selftests/ordma/lib.sh"

show() {
	echo
	echo "\$ $*"
	"$@" 2>&1
}
banner() {
	echo
	echo "======== $*"
}

banner "load the drivers"
show modprobe -v ordma_core
show modprobe -v ordma_ib
devs=$(ordma_pci_devs)
for bdf in $devs; do
	wait_for 30 ordma_ibdev "$bdf"
done
set -- $devs
if [ $# -lt 2 ]; then
	echo "expected two ORDMA functions, found $#"
	exit 1
fi
na=$(ordma_netdev "$1")
nb=$(ordma_netdev "$2")
ia=$(ordma_ibdev "$1")
ib=$(ordma_ibdev "$2")
if [ -z "$na" ] || [ -z "$nb" ] || [ -z "$ia" ] || [ -z "$ib" ]; then
	echo "netdevs '$na' '$nb', RDMA devices '$ia' '$ib': something did not come up"
	exit 1
fi

ip link set dev "$na" up
ip link set dev "$nb" up
ip addr add "$(ordma_test_ip 1)/24" dev "$na"
ip addr add "$(ordma_test_ip 2)/24" dev "$nb"
wait_for 20 sh -c "rdma link show $ia/1 | grep -q ACTIVE && rdma link show $ib/1 | grep -q ACTIVE"
wait_for 20 sh -c "ip -6 addr show dev $na scope link | grep -q inet6"

banner "the hardware"
show lspci -nn -k -d 1234:4f52
show sh -c "dmesg -t | grep -E '^(ordma|infiniband ordma)' | tail -n 12"

banner "Ethernet"
show ip -br link show dev "$na"
show ip -br link show dev "$nb"
show ip -br addr show dev "$na"
show ethtool -i "$na"
show ethtool "$na" | grep -E 'Speed|Duplex|Link detected'

banner "devlink"
for bdf in $devs; do
	show devlink dev info "pci/$bdf"
done

banner "RDMA"
show rdma dev
show rdma link
for dev in "$ia" "$ib"; do
	echo
	echo "\$ GID table of $dev (index gid type netdev)"
	ordma_gid_table "$dev"
done

banner "firmware, through the bring-up tool"
show "$ORDMA_DIAG" -d "$1" query-fw
show "$ORDMA_DIAG" -d "$1" health

P=${ORDMA_PROVIDER_DIR:-}
if [ -z "$P" ] || [ ! -d "$P/lib" ]; then
	banner "userspace verbs: no provider build (tools/provider/build.sh); stopping here"
	exit 0
fi
export LD_LIBRARY_PATH=$P/lib
bin() { if [ -x "$P/bin/$1" ]; then echo "$P/bin/$1"; else command -v "$1"; fi; }
modprobe ib_uverbs

banner "userspace verbs"
show "$(bin ibv_devices)"
show "$(bin ibv_devinfo)" -v -d "$ia"

banner "RDMA ping-pong $ia -> $ib across the cable (RC, RoCE v2)"
# Both NICs are in this one network namespace: the ARP that resolves the
# RoCE path crosses the cable between two local addresses.
for k in all "$na" "$nb"; do
	sysctl -qw "net.ipv4.conf.$k.accept_local=1" "net.ipv4.conf.$k.rp_filter=0"
done
gid_index() { ordma_gid_table "$1" | awk -v g="$(ipv4_to_gid "$2")" '$2 == g { print $1; exit }'; }
ga=$(gid_index "$ia" "$(ordma_test_ip 1)")
gb=$(gid_index "$ib" "$(ordma_test_ip 2)")
# pair CMD ARGS...: CMD as server on $ib and as client on $ia
pair() {
	local tool=$1 gopt=$2 rc
	shift 2
	timeout 90 "$(bin "$tool")" -d "$ib" "$gopt" "${gb:-0}" "$@" >/tmp/server.log 2>&1 &
	local server=$!
	sleep 2
	timeout 90 "$(bin "$tool")" -d "$ia" "$gopt" "${ga:-0}" "$@" 127.0.0.1
	rc=$?
	wait "$server"
	echo "--- server side:"
	cat /tmp/server.log
	return "$rc"
}
echo "\$ ibv_rc_pingpong -n 100 -s 4096 -c (received data checked)"
pair ibv_rc_pingpong -g -n 100 -s 4096 -c || {
	echo "The RDMA ping-pong did not complete."
	exit 1
}

banner "RDMA WRITE bandwidth $ia -> $ib (perftest)"
echo "\$ ib_write_bw -n 200 -s 65536 -F"
pair ib_write_bw -x -n 200 -s 65536 -F || {
	echo "ib_write_bw did not complete."
	exit 1
}
exit 0
