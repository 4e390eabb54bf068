#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Soft-iWARP (Linux siw) over the ORDMA NICs' Ethernet: the iWARP peer
# the card's iWARP personality is to be proven against.  Debian's kernel
# has no siw; tools/vm/build-siw.sh builds it and the VM's module tree
# carries it (the test is skipped without it).
#
# ordma_ib is unloaded first, so the NICs are plain Ethernet ports and
# rdma_cm cannot pick their RoCE devices for the test addresses.  NIC 2
# moves to its own network namespace, so that TCP between the two test
# addresses, and with it siw's MPA/DDP streams, takes the cable instead
# of the loopback.  A siw device is stacked on each NIC's netdev (the
# second from inside the namespace, where its netdev is), then rping
# (data verified) and perftest's ib_write_bw, ib_read_bw and ib_send_bw
# run over rdma_cm between them, server on NIC 1, client in the
# namespace.  The NICs' byte counters must have carried the payload.
# Afterwards siw goes, NIC 2 comes back and ordma_ib is loaded again.
#
# The cable's capture is the host's (run-vm.sh --pcap, outside this
# guest): with it, run-vm.sh checks after the run that tshark dissects
# every siw connection as MPA and DDP/RDMAP, whole, none malformed
# (tools/vm/pcap-iwarp.sh):
#
#   tools/vm/run-vm.sh --pcap -T siw single
#
# siw negotiates no MPA CRC (C clear in its request and reply, CRC
# fields 0), so the check can only report it off; nor peer-to-peer
# mode, so there is no RTR.
#
# Then ib_send_bw -R -n 20 runs ORDMA_SIW_SEND_REPEAT times (default
# 10), each bounded to 30 s: perftest's client sends its first Send as
# soon as it has the MPA reply, which a stock siw can leave unread for
# good (a window in siw_accept(), Documentation/ordma/iwarp-design.rst,
# "What siw sends and accepts"); the VM's siw has the fix of
# tools/vm/siw-patches/, and no run may hang:
#
#   tools/vm/run-vm.sh -e ORDMA_SIW_SEND_REPEAT=60 -T siw single
. "$(dirname "$0")/lib.sh"

ordma_require_device
mapfile -t devs < <(ordma_pci_devs)
[ "${#devs[@]}" -ge 2 ] || ktap_skip_all "needs two ORDMA NICs cabled together"
modinfo siw >/dev/null 2>&1 ||
	ktap_skip_all "no siw module (tools/vm/build-siw.sh builds it into the VM's module tree)"
for t in rping ib_write_bw ib_read_bw ib_send_bw ibv_devinfo rdma; do
	command -v "$t" >/dev/null || ktap_skip_all "no $t"
done

TOOL_TIMEOUT=${ORDMA_TOOL_TIMEOUT:-120}
NS=ordma_siw_peer
IP1=$(ordma_test_ip 1)
IP2=$(ordma_test_ip 2)
BAD_KMSG=$(grep -v '^#' "$SELFTEST_DIR/kmsg_fail_patterns" | paste -sd '|')
kmsg_lines=$(dmesg | wc -l)
PORT=18700
# perftest: iterations of 64 KiB messages
WRITE_N=200 READ_N=100 SEND_N=200
SEND_REPEAT=${ORDMA_SIW_SEND_REPEAT:-10} REPEAT_N=20
RPING_N=100 RPING_SIZE=16384
in_ns() { ip netns exec "$NS" "$@"; }

ktap_header
ktap_set_plan 16

tap_cmd "siw, ib_uverbs and rdma_ucm load" modprobe -a siw ib_uverbs rdma_ucm
had_ordma_ib=
if grep -q '^ordma_ib ' /proc/modules; then
	had_ordma_ib=1
	rmmod ordma_ib	# not modprobe -r: ordma_core and the netdevs stay
fi
ib_left=$(for b in "${devs[@]}"; do ordma_ibdev "$b"; done)
tap_eq "ordma_ib unloaded: no RoCE device on the NICs" "" "$ib_left"

nd1=$(ordma_netdev "${devs[0]}")
nd2=$(ordma_netdev "${devs[1]}")

# netns_up: NIC 1 here with test address 1, NIC 2 in $NS with test
# address 2, MTU 9000 both, NIC 2 reaching NIC 1 over the cable
netns_up() {
	[ -n "$nd1" ] && [ -n "$nd2" ] || return 1
	ip netns add "$NS" || return 1
	in_ns ip link set dev lo up
	ip link set dev "$nd2" netns "$NS" || return 1
	ip link set dev "$nd1" mtu 9000 up
	ip addr replace "$IP1/24" dev "$nd1"
	in_ns ip link set dev "$nd2" mtu 9000 up
	in_ns ip addr replace "$IP2/24" dev "$nd2"
	wait_for 30 in_ns ping -c 1 -W 1 "$IP1"
}
ip link set dev lo up
if netns_up; then
	ktap_test_pass "$nd1 ($IP1) reaches $nd2 ($IP2, namespace $NS) over the cable"
else
	ktap_test_fail "$nd1 ($IP1) reaches $nd2 ($IP2, namespace $NS) over the cable"
fi

# siw_of NETDEV: the RDMA device on NETDEV in the "rdma link show" output
# on standard input (it names a netdev only in the netdev's namespace)
siw_of() {
	awk -v nd="$1" '$1 == "link" {
		for (i = 3; i < NF; i++) if ($i == "netdev" && $(i + 1) == nd) { sub("/.*", "", $2); print $2 } }'
}
tap_cmd "rdma link add siw1 type siw netdev $nd1" rdma link add siw1 type siw netdev "$nd1"
tap_cmd "rdma link add siw2 type siw netdev $nd2 (in $NS)" \
	in_ns rdma link add siw2 type siw netdev "$nd2"
s1=$(rdma link show | siw_of "$nd1")
s2=$(in_ns rdma link show | siw_of "$nd2")
ktap_print_msg "siw devices: ${s1:-none} on $nd1, ${s2:-none} on $nd2"

# devinfo NAME DEV: ibv_devinfo shows DEV as an iWARP device, port active
devinfo() {
	local out
	out=$(ibv_devinfo -d "$2" 2>&1)
	if grep -Eq '^[[:space:]]*transport:[[:space:]]+iWARP' <<<"$out" &&
		grep -Eq '^[[:space:]]*state:[[:space:]]+PORT_ACTIVE' <<<"$out"; then
		ktap_test_pass "ibv_devinfo: $1 ($2) transport iWARP, port PORT_ACTIVE"
	else
		ktap_test_fail "ibv_devinfo: $1 ($2) transport iWARP, port PORT_ACTIVE"
		ktap_print_msg "$out"
	fi
}
devinfo "siw on $nd1" "${s1:-siw1}"
devinfo "siw on $nd2" "${s2:-siw2}"

# rx_bytes: bytes both ORDMA netdevs received
rx_bytes() {
	echo $(($(cat "/sys/class/net/$nd1/statistics/rx_bytes") +
		$(in_ns cat "/sys/class/net/$nd2/statistics/rx_bytes")))
}
rx0=$(rx_bytes)

# run_pair NAME PATTERN TOOL ARGS...: TOOL's server on NIC 1's siw, its
# client in $NS on NIC 2's; both must exit 0 and the client's output
# match PATTERN (ERE).  The client starts once the server's rdma_cm ID
# listens.  perftest's output is line-buffered (stdbuf), so that a tool
# its timeout stops still shows how far it got.
run_pair() {
	local name=$1 pattern=$2 tool=$3 srv cli spid src crc port=$PORT
	shift 3
	PORT=$((PORT + 1))
	srv=$(mktemp) cli=$(mktemp)
	case $tool in
	rping)
		timeout "$TOOL_TIMEOUT" rping -s -a "$IP1" -p "$port" "$@" >"$srv" 2>&1 &
		spid=$! ;;
	*)
		timeout "$TOOL_TIMEOUT" stdbuf -oL "$tool" -R -d "$s1" -p "$port" -F "$@" >"$srv" 2>&1 &
		spid=$! ;;
	esac
	if wait_for 60 sh -c "rdma res show cm_id | grep -q 'state LISTEN.*comm $tool'"; then
		case $tool in
		rping)
			timeout "$TOOL_TIMEOUT" ip netns exec "$NS" rping -c -a "$IP1" -p "$port" \
				"$@" >"$cli" 2>&1 ;;
		*)
			timeout "$TOOL_TIMEOUT" ip netns exec "$NS" stdbuf -oL "$tool" -R -d "$s2" -p "$port" \
				-F "$@" "$IP1" >"$cli" 2>&1 ;;
		esac
		crc=$?
	else
		crc=-1
		echo "$tool did not listen within 60 s" >"$cli"
	fi
	if [ "$crc" != 0 ]; then
		stop_pid "$spid"
		src=$?
	else
		wait "$spid"
		src=$?
	fi
	if [ "$crc" = 0 ] && [ "$src" = 0 ] && grep -Eq -- "$pattern" "$cli"; then
		ktap_test_pass "$name"
		grep -E -- "$pattern" "$cli" | tail -n 1 | cut -c1-100 | sed 's/^/#   /'
	else
		ktap_test_fail "$name (client rc $crc, server rc $src)"
		cut -c1-200 "$cli" | tail -n 15 | sed 's/^/#   client: /'
		cut -c1-200 "$srv" | tail -n 15 | sed 's/^/#   server: /'
	fi
	rm -f "$srv" "$cli"
}

if [ -n "$s1" ] && [ -n "$s2" ]; then
	run_pair "siw: rping -V $RPING_N x $RPING_SIZE bytes, data verified" \
		'^ping data: rdma-ping-' rping -v -V -C "$RPING_N" -S "$RPING_SIZE"
	bw_re() { echo "^[[:space:]]*65536[[:space:]]+$1[[:space:]]+[0-9.]+[[:space:]]+[0-9.]+"; }
	run_pair "siw: ib_write_bw -R $WRITE_N x 64 KiB" "$(bw_re "$WRITE_N")" \
		ib_write_bw -n "$WRITE_N" -s 65536
	run_pair "siw: ib_read_bw -R $READ_N x 64 KiB" "$(bw_re "$READ_N")" \
		ib_read_bw -n "$READ_N" -s 65536
	run_pair "siw: ib_send_bw -R $SEND_N x 64 KiB" "$(bw_re "$SEND_N")" \
		ib_send_bw -n "$SEND_N" -s 65536
	# send_once PORT: one ib_send_bw -R -n $REPEAT_N; 0 passed, 1
	# failed, 2 hung (a side stopped by its timeout)
	send_once() {
		local spid src crc
		timeout 30 ib_send_bw -R -d "$s1" -p "$1" -F -n "$REPEAT_N" >/dev/null 2>&1 &
		spid=$!
		if ! wait_for 30 sh -c "rdma res show cm_id | grep -q 'state LISTEN.*comm ib_send_bw'"; then
			stop_pid "$spid"
			return 1
		fi
		timeout 30 ip netns exec "$NS" ib_send_bw -R -d "$s2" -p "$1" -F -n "$REPEAT_N" \
			"$IP1" >/dev/null 2>&1
		crc=$?
		wait "$spid"
		src=$?
		[ "$crc" = 0 ] && [ "$src" = 0 ] && return 0
		[ "$crc" = 124 ] || [ "$src" = 124 ] && return 2
		return 1
	}
	passed=0 failed=0 hung=0 start=$SECONDS
	for _ in $(seq 1 "$SEND_REPEAT"); do
		PORT=$((PORT + 1))
		send_once "$PORT"
		case $? in
		0) passed=$((passed + 1)) ;;
		2) hung=$((hung + 1)) ;;
		*) failed=$((failed + 1)) ;;
		esac
	done
	tap_eq "siw: ib_send_bw -R -n $REPEAT_N set up $SEND_REPEAT times, none hung or failed ($((SECONDS - start)) s)" \
		"$SEND_REPEAT passed, 0 hung, 0 failed" "$passed passed, $hung hung, $failed failed"
else
	for t in "rping -V" "ib_write_bw -R" "ib_read_bw -R" "ib_send_bw -R" "ib_send_bw -R repeated"; do
		ktap_test_skip "siw: $t" "no siw device pair"
	done
fi

# Every payload byte crossed the cable once, into one of the two NICs.
payload=$(((WRITE_N + READ_N + SEND_N) * 65536 + 2 * RPING_N * RPING_SIZE))
rx=$(($(rx_bytes) - rx0))
if [ "$rx" -ge "$payload" ]; then
	ktap_test_pass "the NICs received $rx bytes, at least the $payload payload bytes"
else
	ktap_test_fail "the NICs received $rx bytes, fewer than the $payload payload bytes"
fi

bad=$(dmesg | tail -n +$((kmsg_lines + 1)) | grep -E "$BAD_KMSG")
tap_eq "no oops, warning or BUG in the kernel log" "" "$bad"

# Undo it all: the siw devices, the namespace (NIC 2's netdev back
# first), siw itself; ordma_ib back as found.
rdma link delete "${s1:-siw1}" 2>/dev/null
rdma link delete "${s2:-siw2}" 2>/dev/null
in_ns ip link set dev "$nd2" netns 1 2>/dev/null
ip netns del "$NS" 2>/dev/null
tap_cmd "siw unloads" modprobe -r siw
if [ -n "$had_ordma_ib" ]; then
	modprobe ordma_ib
	back() { ordma_ibdev "${devs[0]}" && ordma_ibdev "${devs[1]}"; }
	if wait_for 30 back && [ -n "$nd2" ] && wait_for 30 test -e "/sys/class/net/$nd2"; then
		ktap_test_pass "ordma_ib back on both NICs, $nd2 back in this namespace"
	else
		ktap_test_fail "ordma_ib back on both NICs, $nd2 back in this namespace"
	fi
else
	ktap_test_skip "ordma_ib back on both NICs" "it was not loaded"
fi
ktap_finished
