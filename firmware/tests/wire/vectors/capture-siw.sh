#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Guest side of the capture behind siw-capture.pcap: real MPA/DDP/RDMAP
# streams of Linux's soft-iWARP driver (siw), taken off the cable between
# the two ORDMA NICs of the single topology, where the device model
# captures them (run-vm.sh --pcap).  Needs siw.ko in the VM's module
# tree (make siw):
#
#   tools/vm/run-vm.sh --pcap -t 600 -o build/vm/siw-capture \
#     -c "$PWD/firmware/tests/wire/vectors/capture-siw.sh" single
#   tshark -r build/vm/siw-capture/vm0/wire1.pcapng -Y tcp -F pcap \
#     -w firmware/tests/wire/vectors/siw-capture.pcap
#
# The set-up is selftests/ordma/siw.sh's: ordma_ib removed (the NICs are
# plain Ethernet ports), NIC 2 in a network namespace so that TCP between
# the test addresses takes the cable, siw1 on NIC 1's netdev, siw2 on
# NIC 2's.  MTU 1500, so that a 2000-byte message takes two FPDUs.
# Servers on siw1, clients on siw2 (the active side, which sends the MPA
# request).  Traffic, one TCP connection each:
#   rping -V -C 1 -S 64     Send, Read Request, Read Response, Write
#   rping -V -C 1 -S 2000   the same with two-FPDU Read Response and Write
# The log (guest-cmd.log) records the set-up and each exit status.
set -u
. "$(dirname "$0")/../../../../selftests/ordma/lib.sh"
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

NS=ordma_siw_capture
in_ns() { ip netns exec "$NS" "$@"; }
mapfile -t devs < <(ordma_pci_devs)
[ "${#devs[@]}" -ge 2 ] || { echo "need two ORDMA NICs"; exit 1; }
modinfo siw >/dev/null 2>&1 || { echo "no siw module (make siw)"; exit 1; }
nd1=$(ordma_netdev "${devs[0]}")
nd2=$(ordma_netdev "${devs[1]}")
IP1=$(ordma_test_ip 1)
IP2=$(ordma_test_ip 2)
echo "NIC 1 $nd1 $IP1, NIC 2 $nd2 $IP2 (namespace $NS)"

modprobe -a siw ib_uverbs rdma_ucm || exit 1
! grep -q '^ordma_ib ' /proc/modules || rmmod ordma_ib || exit 1
ip link set dev lo up
ip netns add "$NS" || exit 1
in_ns ip link set dev lo up
ip link set dev "$nd2" netns "$NS" || exit 1
ip link set dev "$nd1" mtu 1500 up
ip addr replace "$IP1/24" dev "$nd1"
in_ns ip link set dev "$nd2" mtu 1500 up
in_ns ip addr replace "$IP2/24" dev "$nd2"
wait_for 30 in_ns ping -c 1 -W 1 "$IP1" || { echo "$nd2 does not reach $IP1"; exit 1; }
rdma link add siw1 type siw netdev "$nd1" || exit 1
in_ns rdma link add siw2 type siw netdev "$nd2" || exit 1
rdma link show
in_ns rdma link show

# rping_pair PORT ARGS...: rping's server on siw1, its client on siw2
rping_pair() {
	local port=$1 spid rc
	shift
	echo "== rping $* (port $port)"
	timeout 60 rping -s -a "$IP1" -p "$port" "$@" &
	spid=$!
	if ! wait_for 30 sh -c "rdma res show cm_id | grep -q 'state LISTEN.*comm rping'"; then
		echo "rping did not listen"
		stop_pid "$spid"
		return 1
	fi
	timeout 60 ip netns exec "$NS" rping -c -a "$IP1" -p "$port" "$@"
	rc=$?
	wait "$spid"
	echo "rping $*: client $rc server $?"
	# the server's cm_id gone before the next listens
	wait_for 30 sh -c "! rdma res show cm_id | grep -q 'comm rping'"
	return "$rc"
}
rc=0
rping_pair 18801 -v -V -C 1 -S 64 || rc=1
rping_pair 18802 -v -V -C 1 -S 2000 || rc=1

rdma link delete siw1
in_ns rdma link delete siw2
in_ns ip link set dev "$nd2" netns 1
ip netns del "$NS"
exit "$rc"
