#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# InfiniBand ports (run-vm.sh --link ib): each ORDMA function registers an
# RDMA device whose port has the InfiniBand link layer and no Ethernet
# interface; the verbs and the InfiniBand diagnostics (ibv_devinfo,
# ibstat, smpquery through the device's subnet management agent) show a
# port waiting in INIT for a subnet manager; then opensm, run on the
# first port, sweeps the fabric across the cable (directed route SMPs on
# QP0), assigns both ports LIDs and brings them to ACTIVE; the verbs
# tools and perftest then run between the two by LID, perfquery and
# LID-routed smpquery ask the agents, ibnetdiscover walks the fabric;
# with opensm running, IPoIB carries a ping between the two ports, and a
# new node description reaches it as trap 144 from the device's agent.
. "$(dirname "$0")/lib.sh"

[ "${ORDMA_LINK_LAYER:-eth}" = ib ] ||
	ktap_skip_all "the ORDMA ports are Ethernet (run-vm.sh --link ib)"
ordma_require_device
ordma_require_provider
for tool in ibstat smpquery opensm; do
	command -v "$tool" >/dev/null ||
		ktap_skip_all "no $tool (Debian: infiniband-diags, opensm)"
done

devs=$(ordma_pci_devs)
ndev=$(echo "$devs" | grep -c .)
ktap_header
ktap_set_plan $((3 + 17 * ndev + 11 + 9 + 5))

tap_cmd "ordma_ib loads" modprobe ordma_ib
tap_cmd "ib_umad loads (the MAD tools' device files)" modprobe ib_umad
tap_cmd "ib_uverbs loads" modprobe ib_uverbs

first_ib=
for bdf in $devs; do
	if ! wait_for 30 ordma_ibdev "$bdf"; then
		for _ in $(seq 17); do ktap_test_fail "$bdf: no RDMA device"; done
		continue
	fi
	ib=$(ordma_ibdev "$bdf")
	[ -n "$first_ib" ] || first_ib=$ib
	guid=$(cat "/sys/class/infiniband/$ib/node_guid")
	guid_hex=0x${guid//:/}

	nd=$(ordma_netdev "$bdf")
	tap_eq "$bdf: an InfiniBand port has no Ethernet interface" "" "$nd"
	tap_eq "$ib: sysfs link_layer" InfiniBand \
		"$(cat "/sys/class/infiniband/$ib/ports/1/link_layer" 2>&1)"
	# The cable is plugged: the link is up, no SM has configured the port.
	wait_for 20 grep -q INIT "/sys/class/infiniband/$ib/ports/1/state"
	tap_eq "$ib: sysfs state" "2: INIT" \
		"$(cat "/sys/class/infiniband/$ib/ports/1/state" 2>&1)"

	info=$("$(bin ibv_devinfo)" -v -d "$ib" 2>&1)
	tap_match "$ib: ibv_devinfo link_layer InfiniBand" \
		'^[[:space:]]+link_layer:[[:space:]]+InfiniBand$' "$info"
	tap_match "$ib: ibv_devinfo state PORT_INIT" \
		'^[[:space:]]+state:[[:space:]]+PORT_INIT \(2\)$' "$info"
	tap_match "$ib: ibv_devinfo phys_state LINK_UP" \
		'^[[:space:]]+phys_state:[[:space:]]+LINK_UP \(5\)$' "$info"
	tap_match "$ib: ibv_devinfo port_lid 0 before a subnet manager" \
		'^[[:space:]]+port_lid:[[:space:]]+0$' "$info"
	tap_match "$ib: ibv_devinfo GID 0 is fe80::/64 with the port GUID" \
		'GID\[[[:space:]]*0\]:[[:space:]]+fe80:0000:0000:0000:' "$info"

	stat=$(ibstat "$ib" 1 2>&1)
	tap_match "$ib: ibstat Link layer: InfiniBand" \
		'^[[:space:]]*Link layer: InfiniBand$' "$stat"
	tap_match "$ib: ibstat State: Initializing" \
		'^[[:space:]]*State: Initializing$' "$stat"
	tap_match "$ib: ibstat Physical state: LinkUp" \
		'^[[:space:]]*Physical state: LinkUp$' "$stat"

	# Directed route with no hops: the MAD layer hands the SMP to the
	# device's agent through process_mad, nothing crosses the wire.
	ni=$(smpquery -C "$ib" -P 1 -D nodeinfo 0 2>&1)
	tap_match "$ib: smpquery nodeinfo: NodeType Channel Adapter" \
		'^NodeType:\.+Channel Adapter$' "$ni"
	tap_match "$ib: smpquery nodeinfo: NumPorts 1" '^NumPorts:\.+1$' "$ni"
	tap_match "$ib: smpquery nodeinfo: Guid is the node GUID" \
		"^Guid:\\.+$guid_hex\$" "$ni"
	pi=$(smpquery -C "$ib" -P 1 -D portinfo 0 2>&1)
	tap_match "$ib: smpquery portinfo: LinkState Initialize" \
		'^LinkState:\.+Initialize$' "$pi"
	tap_match "$ib: smpquery portinfo: PhysLinkState LinkUp" \
		'^PhysLinkState:\.+LinkUp$' "$pi"
	nd_out=$(smpquery -C "$ib" -P 1 -D nodedesc 0 2>&1)
	tap_match "$ib: smpquery nodedesc answers" '^Node Description:\.+.' \
		"$nd_out"
done

# A subnet manager on the first port: one sweep (--once) configures it.
if [ -z "$first_ib" ]; then
	tap_skip_rest "no RDMA device for opensm"
	ktap_finished
fi
port_guid=$(ibstat "$first_ib" 1 2>/dev/null | sed -n 's/^[[:space:]]*Port GUID: //p')
log=$ORDMA_RESULTS/opensm-$first_ib.log
tap_cmd "opensm sweeps once on $first_ib (port GUID ${port_guid:-?})" \
	timeout 120 opensm --once -g "$port_guid" -f "$log" -s 0
wait_for 30 grep -q ACTIVE "/sys/class/infiniband/$first_ib/ports/1/state"
tap_eq "$first_ib: the SM brought the port to ACTIVE" "4: ACTIVE" \
	"$(cat "/sys/class/infiniband/$first_ib/ports/1/state" 2>&1)"
stat=$(ibstat "$first_ib" 1 2>&1)
tap_match "$first_ib: ibstat State: Active" '^[[:space:]]*State: Active$' "$stat"
lid=$(echo "$stat" | sed -n 's/^[[:space:]]*Base lid: //p')
[ -n "$lid" ] && [ "$lid" -gt 0 ] 2>/dev/null
ktap_test_result $? "$first_ib: ibstat Base lid is assigned (${lid:-none})"
tap_eq "$first_ib: ibstat SM lid is the port's own LID" "$lid" \
	"$(echo "$stat" | sed -n 's/^[[:space:]]*SM lid: //p')"
info=$("$(bin ibv_devinfo)" -v -d "$first_ib" 2>&1)
tap_match "$first_ib: ibv_devinfo state PORT_ACTIVE" \
	'^[[:space:]]+state:[[:space:]]+PORT_ACTIVE \(4\)$' "$info"
tap_match "$first_ib: ibv_devinfo port_lid $lid" \
	"^[[:space:]]+port_lid:[[:space:]]+$lid\$" "$info"
tap_match "$first_ib: ibv_devinfo sm_lid $lid" \
	"^[[:space:]]+sm_lid:[[:space:]]+$lid\$" "$info"
st=$(ibstatus "$first_ib:1" 2>&1)
hex=$(printf 0x%x "${lid:-0}")
tap_match "$first_ib: ibstatus state: 4: ACTIVE" 'state:[[:space:]]+4: ACTIVE$' "$st"
tap_match "$first_ib: ibstatus base lid: $hex" "base lid:[[:space:]]+$hex\$" "$st"
pi=$(smpquery -C "$first_ib" -P 1 -D portinfo 0 2>&1)
tap_match "$first_ib: smpquery portinfo: LinkState Active" \
	'^LinkState:\.+Active$' "$pi"

# The other NIC, configured by the same SM across the cable
second_ib=$(ordma_ibdev "$(echo "$devs" | sed -n 2p)")
wait_for 30 grep -q ACTIVE "/sys/class/infiniband/$second_ib/ports/1/state"
lid2=$(cat "/sys/class/infiniband/$second_ib/ports/1/lid" 2>/dev/null)
[ "$(cat "/sys/class/infiniband/$second_ib/ports/1/state" 2>&1)" = "4: ACTIVE" ] &&
	[ -n "$lid2" ] && [ "$((lid2))" -gt 0 ] && [ "$((lid2))" != "$lid" ]
ktap_test_result $? "$second_ib: ACTIVE with a LID of its own (${lid2:-none}), set across the cable"

TOOL_TIMEOUT=120
PORT=18515
# run_pair (lib.sh): server on the first port, client on the second,
# addressed by LID (no GID)
ib=([1]="$first_ib" [2]="$second_ib")
gidx=()
pp_re='bytes in [0-9.]+ seconds'
run_pair "ibv_rc_pingpong by LID: 100 x 4096 bytes, MTU 1024, data checked" "$pp_re" \
	ibv_rc_pingpong -n 100 -s 4096 -m 1024 -c
run_pair "ibv_ud_pingpong by LID: 100 x 1024 bytes" "$pp_re" \
	ibv_ud_pingpong -n 100 -s 1024
run_pair "ib_write_bw by LID: 200 x 65536 bytes" \
	'^[[:space:]]*65536[[:space:]]+200[[:space:]]+[0-9.]+' ib_write_bw -n 200 -s 65536
run_pair "ib_read_lat by LID: 100 x 64 bytes" '^[[:space:]]*64[[:space:]]+100[[:space:]]+' \
	ib_read_lat -n 100 -s 64

# the performance management agents, asked by LID through QP1: the
# own port's and the other's
for q in "$first_ib 1 $lid" "$first_ib 1 $((lid2))"; do
	set -- $q
	pq=$(perfquery -C "$1" -P "$2" "$3" 1 2>&1)
	xmit=$(echo "$pq" | sed -En 's/^(PortXmitPkts|XmtPkts):\.*//p')
	if [ -n "$xmit" ] && [ "$xmit" -gt 0 ] 2>/dev/null; then
		ktap_test_pass "perfquery LID $3 from $1: PortXmitPkts counts the traffic ($xmit)"
	else
		ktap_test_fail "perfquery LID $3 from $1: PortXmitPkts counts the traffic (${xmit:-no answer})"
		echo "$pq" | sed 's/^/#   /' | tail -n 15
	fi
done
sq=$(smpquery -C "$first_ib" -P 1 nodeinfo "$((lid2))" 2>&1)
tap_match "smpquery LID-routed nodeinfo of LID $((lid2))" '^NodeType:\.+Channel Adapter$' "$sq"
nd=$(ibnetdiscover -C "$first_ib" -P 1 2>&1)
tap_eq "ibnetdiscover finds the two channel adapters" 2 \
	"$(echo "$nd" | grep -c '^Ca[[:space:]]')"

# IPoIB: the subnet manager now runs on (its SA answers the multicast
# joins); ib0 and ib1 in two network namespaces ping each other
sm_pid=
# -d2: every log line flushed, as the trap check below reads the log
opensm -d2 -g "$port_guid" -f "$ORDMA_RESULTS/opensm-ipoib.log" >/dev/null 2>&1 &
sm_pid=$!
tap_cmd "ib_ipoib loads" modprobe ib_ipoib
nd0=$(ls "/sys/class/infiniband/$first_ib/device/net" 2>/dev/null | head -n 1)
nd1=$(ls "/sys/class/infiniband/$second_ib/device/net" 2>/dev/null | head -n 1)
[ -n "$nd0" ] && [ -n "$nd1" ] &&
	[ "$(cat "/sys/class/net/$nd0/type" 2>/dev/null)" = 32 ]
ktap_test_result $? "IPoIB interfaces ${nd0:-none} and ${nd1:-none} (ARPHRD_INFINIBAND)"
ip netns add ordma_ib_b 2>/dev/null
ip link set "$nd1" netns ordma_ib_b &&
	ip addr add 198.51.100.1/24 dev "$nd0" && ip link set "$nd0" up &&
	ip -n ordma_ib_b addr add 198.51.100.2/24 dev "$nd1" &&
	ip -n ordma_ib_b link set "$nd1" up
ktap_test_result $? "IPoIB addresses on $nd0 and $nd1 (namespace ordma_ib_b)"
# the broadcast group is joined once the SM has answered: wait for it
wait_for 60 ping -c 1 -W 1 198.51.100.2
tap_cmd "ping across IPoIB (5 packets)" ping -c 5 -W 2 198.51.100.2
ip netns del ordma_ib_b 2>/dev/null

# The second port's agent tells the SM, across the cable, that its node
# description changed (trap 144); opensm logs it and reads it again.
echo "ordma trap test" >"/sys/class/infiniband/$second_ib/node_desc"
if wait_for 30 grep -q "Trap 144 Node description update" \
	"$ORDMA_RESULTS/opensm-ipoib.log"; then
	ktap_test_pass "opensm receives trap 144 after $second_ib's node_desc changes"
else
	ktap_test_fail "opensm receives trap 144 after $second_ib's node_desc changes"
	grep -i trap "$ORDMA_RESULTS/opensm-ipoib.log" | tail -n 5 | sed 's/^/#   /'
fi
stop_pid "$sm_pid" >/dev/null 2>&1

ktap_finished
