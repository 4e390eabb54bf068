#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Guest side of the capture behind rxe_frames.h: real RoCEv2 frames of
# Linux's rdma_rxe, taken off a virtio-net cable.  Run it in the harness's
# smoke topology (one VM, two virtio-net NICs cabled to each other):
#
#   QEMU=<any qemu-system-x86_64> ORDMA_PROVIDER_DIR=/nonexistent \
#     tools/vm/run-vm.sh -t 600 -o build/vm/rxe-capture \
#     -c "$PWD/firmware/tests/wire/vectors/capture-rxe.sh" smoke
#
# Both NICs stay in the initial network namespace (rdma_rxe of 6.12
# sends and receives there only) with rxe0 on NIC 1 (192.0.2.1,
# 2001:db8::1) and rxe1 on NIC 2 (192.0.2.2, 2001:db8::2).  The local
# routing table is moved behind two rules that route locally generated
# traffic between the two addresses out of the other NIC, and static
# neighbour entries replace ARP/ND, so every RoCE frame crosses the
# cable instead of the loopback device.  Traffic: ibv_rc_pingpong (RC
# SEND, one and three packets), ib_write_bw, ib_read_bw (one and three
# packets), ib_atomic_bw (FETCH_ADD, CMP_SWAP), ibv_ud_pingpong, and the
# RC ping-pong again over IPv6.  dumpcap writes <results>/rxe-nic1.pcap and
# rxe-nic2.pcap (classic pcap); the log records the setup.
set -u
R=${ORDMA_RESULTS:-/mnt/results}
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

nics=()
for d in /sys/class/net/*/device/driver; do
	[ "$(basename "$(readlink -f "$d")")" = virtio_net ] &&
		nics+=("$(basename "$(dirname "$(dirname "$d")")")")
done
[ ${#nics[@]} -eq 2 ] || { echo "need two virtio-net NICs, have ${nics[*]}"; exit 1; }
a=${nics[0]}
b=${nics[1]}
mac_a=$(cat "/sys/class/net/$a/address")
mac_b=$(cat "/sys/class/net/$b/address")
echo "NIC 1 $a $mac_a, NIC 2 $b $mac_b"

modprobe crc32_generic && modprobe rdma_rxe && modprobe ib_uverbs || exit 1

for c in all default "$a" "$b"; do
	sysctl -qw "net.ipv4.conf.$c.rp_filter=0" "net.ipv4.conf.$c.accept_local=1"
done
ip link set "$a" up
ip link set "$b" up
ip addr add 192.0.2.1/24 dev "$a"
ip addr add 192.0.2.2/24 dev "$b"
ip -6 addr add 2001:db8::1/64 dev "$a" nodad
ip -6 addr add 2001:db8::2/64 dev "$b" nodad

for v in -4 -6; do
	ip "$v" rule add pref 1000 lookup local
	ip "$v" rule del pref 0 lookup local
done
ip -4 rule add pref 100 iif lo from 192.0.2.1 to 192.0.2.2 lookup 100
ip -4 rule add pref 101 iif lo from 192.0.2.2 to 192.0.2.1 lookup 101
ip -4 route add 192.0.2.2 dev "$a" src 192.0.2.1 table 100
ip -4 route add 192.0.2.1 dev "$b" src 192.0.2.2 table 101
ip -6 rule add pref 100 iif lo from 2001:db8::1 to 2001:db8::2 lookup 100
ip -6 rule add pref 101 iif lo from 2001:db8::2 to 2001:db8::1 lookup 101
ip -6 route add 2001:db8::2 dev "$a" src 2001:db8::1 table 100
ip -6 route add 2001:db8::1 dev "$b" src 2001:db8::2 table 101
ip neigh replace 192.0.2.2 lladdr "$mac_b" dev "$a" nud permanent
ip neigh replace 192.0.2.1 lladdr "$mac_a" dev "$b" nud permanent
ip -6 neigh replace 2001:db8::2 lladdr "$mac_b" dev "$a" nud permanent
ip -6 neigh replace 2001:db8::1 lladdr "$mac_a" dev "$b" nud permanent
ip route get 192.0.2.2 from 192.0.2.1
ip -6 route get 2001:db8::2 from 2001:db8::1
ethtool -k "$a" | grep -E '^(tx-checksumming|rx-checksumming|tx-checksum-ip)'

rdma link add rxe0 type rxe netdev "$a" || exit 1
rdma link add rxe1 type rxe netdev "$b" || exit 1

# gid_index DEV GID: index of a RoCE v2 GID (as sysfs prints it)
gid_index() {
	local p=/sys/class/infiniband/$1/ports/1 f i
	for f in "$p"/gids/*; do
		i=${f##*/}
		[ "$(cat "$f")" = "$2" ] || continue
		[ "$(cat "$p/gid_attrs/types/$i" 2>/dev/null)" = "RoCE v2" ] || continue
		echo "$i"
		return 0
	done
	return 1
}
for _ in $(seq 50); do
	g4a=$(gid_index rxe0 0000:0000:0000:0000:0000:ffff:c000:0201) &&
	g4b=$(gid_index rxe1 0000:0000:0000:0000:0000:ffff:c000:0202) &&
	g6a=$(gid_index rxe0 2001:0db8:0000:0000:0000:0000:0000:0001) &&
	g6b=$(gid_index rxe1 2001:0db8:0000:0000:0000:0000:0000:0002) && break
	sleep 0.2
done
echo "GID indices: rxe0 v4 ${g4a:-?} v6 ${g6a:-?}, rxe1 v4 ${g4b:-?} v6 ${g6b:-?}"
[ -n "${g6b:-}" ] || exit 1

dumpcap -q -P -i "$a" -f 'udp port 4791' -w "$R/rxe-nic1.pcap" &
cap_a=$!
dumpcap -q -P -i "$b" -f 'udp port 4791' -w "$R/rxe-nic2.pcap" &
cap_b=$!
sleep 3

# pair NAME SERVER_CMD... -- CLIENT_CMD...: one server/client exchange
port=18600
pair() {
	local name=$1 srv=() cli=() pid rc
	shift
	while [ "$1" != -- ]; do srv+=("$1"); shift; done
	shift
	cli=("$@")
	port=$((port + 1))
	echo "== $name"
	timeout 60 "${srv[@]}" -p "$port" >"$R/$name-server.log" 2>&1 &
	pid=$!
	sleep 1
	timeout 60 "${cli[@]}" -p "$port" 127.0.0.1 >"$R/$name-client.log" 2>&1
	rc=$?
	wait "$pid"
	echo "$name: client $rc server $?"
	sleep 0.5
}
pair rc-send-64 ibv_rc_pingpong -d rxe1 -g "$g4b" -n 2 -s 64 -- \
	ibv_rc_pingpong -d rxe0 -g "$g4a" -n 2 -s 64
pair rc-send-2500 ibv_rc_pingpong -d rxe1 -g "$g4b" -n 1 -s 2500 -m 1024 -- \
	ibv_rc_pingpong -d rxe0 -g "$g4a" -n 1 -s 2500 -m 1024
pair write ib_write_bw -F -d rxe1 -x "$g4b" -n 5 -s 61 -- \
	ib_write_bw -F -d rxe0 -x "$g4a" -n 5 -s 61
pair read ib_read_bw -F -d rxe1 -x "$g4b" -n 5 -s 61 -- \
	ib_read_bw -F -d rxe0 -x "$g4a" -n 5 -s 61
pair read-2500 ib_read_bw -F -d rxe1 -x "$g4b" -n 5 -s 2500 -m 1024 -- \
	ib_read_bw -F -d rxe0 -x "$g4a" -n 5 -s 2500 -m 1024
pair fetch-add ib_atomic_bw -F -d rxe1 -x "$g4b" -n 5 -- \
	ib_atomic_bw -F -d rxe0 -x "$g4a" -n 5
pair cmp-swap ib_atomic_bw -F -d rxe1 -x "$g4b" -n 5 -A CMP_AND_SWAP -- \
	ib_atomic_bw -F -d rxe0 -x "$g4a" -n 5 -A CMP_AND_SWAP
pair ud-send ibv_ud_pingpong -d rxe1 -g "$g4b" -n 2 -s 64 -- \
	ibv_ud_pingpong -d rxe0 -g "$g4a" -n 2 -s 64
pair rc-send-v6 ibv_rc_pingpong -d rxe1 -g "$g6b" -n 2 -s 61 -- \
	ibv_rc_pingpong -d rxe0 -g "$g6a" -n 2 -s 61

sleep 2
kill -INT "$cap_a" "$cap_b"
wait "$cap_a" "$cap_b"
for d in rxe0 rxe1; do
	echo "== $d counters"
	grep -H . /sys/class/infiniband/$d/ports/1/hw_counters/* 2>/dev/null |
		sed 's|.*/||' | grep -v ':0$'
done
ls -l "$R"/*.pcap
exit 0
