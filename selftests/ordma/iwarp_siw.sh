#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# iwarp_siw: the card's iWARP personality against Linux soft-iWARP
# (siw): rdma_cm connection set-up both ways, then data both ways.
# NIC 1 is switched to iWARP (devlink enable_roce false, enable_iwarp
# true); NIC 2 gets no RDMA device of its own (enable_roce false), moves
# to a network namespace, so that TCP between the two test addresses
# takes the cable, and a siw device is stacked on its netdev.
# iw_cm_pair then runs:
#   - ORDMA listens, siw connects: ESTABLISHED and DISCONNECTED on both
#     sides, private data both ways;
#   - siw listens, ORDMA connects: the same (ORDMA asks peer-to-peer,
#     siw picks the RDMA Write RTR, so siw's ESTABLISHED needs the
#     card's zero-length Write, CRC checked: ORDMA's request has C);
#   - ORDMA rejects siw: the client gets REJECTED (-ECONNRESET, siw's
#     status for an MPA reject);
#   - siw rejects ORDMA: the client gets REJECTED (-ECONNREFUSED).
# Data, each case twice (ORDMA server and siw client, siw server and
# ORDMA client), the server started first, the client once its rdma_cm
# ID listens:
#   - rping -V -C 20 with 64 and 60000-byte buffers (Send, RDMA Read
#     and RDMA Write each round, every round trip verified): both exit
#     0 and the client (-v) prints 20 "ping data:" lines;
#   - ib_send_bw -R, ib_write_bw -R, ib_read_bw -R, -n 200 of 1024 and
#     65536 bytes (the latter above the MSS: many FPDUs a message): both
#     exit 0 and the client prints the result line of 200 iterations.
# perftest's server binds the wildcard address, which takes a listener
# on every iWARP device the namespace sees, siw's included; a case whose
# server cannot listen fails at once and shows the kernel's debug
# messages of siw_create_listen() and the driver's port reservation.
# Every case stands alone: a server whose client failed is stopped.
# Every wait is bounded (iw_cm_pair's 30 s per event, TOOL_TIMEOUT per
# set-up program, ORDMA_DATA_TIMEOUT, default 60 s, per data program).
# Afterwards siw goes, NIC 2 comes back and both NICs are on RoCE again.
#
# MPA CRC: ORDMA's request and reply always have C; siw's request has
# none, and its reply copies the request's C.  A connection uses CRC
# when either side asks (RFC 5044), and siw turns it on when the peer's
# request or reply has C (siw_accept(), siw_proc_mpareply()), so both
# accepted connections must run with CRC: siw's debug message "enter
# RTS: crc=y" (dynamic debug, on for the test) must appear for each.
# The host's capture shows the flags (tools/vm/pcap-iwarp.sh, "requests
# (N with C), replies (N with C)"):
#
#   tools/vm/run-vm.sh --pcap -T iwarp_siw single
#
# The siw of the test VMs carries tools/vm/siw-patches/ (build-siw.sh):
# without its siw_accept() fix, the card's RTR can fall into the window
# in which siw reads nothing, and siw never signals ESTABLISHED.
. "$(dirname "$0")/lib.sh"

ordma_require_device
ordma_require_provider
mapfile -t devs < <(ordma_pci_devs)
[ "${#devs[@]}" -ge 2 ] || ktap_skip_all "needs two ORDMA NICs cabled together"
modinfo siw >/dev/null 2>&1 ||
	ktap_skip_all "no siw module (tools/vm/build-siw.sh builds it into the VM's module tree)"
IW_CM_PAIR=${ORDMA_IW_CM_PAIR:-$ORDMA_REPO/build/bin/iw_cm_pair}
[ -x "$IW_CM_PAIR" ] || ktap_skip_all "no $IW_CM_PAIR (make diag)"
for t in devlink rdma stdbuf; do
	command -v "$t" >/dev/null || ktap_skip_all "no $t"
done

bdf=${devs[0]}
bdf2=${devs[1]}
PORT=${PORT:-18800}
TOOL_TIMEOUT=${TOOL_TIMEOUT:-120}
# data: rping round trips of each size, perftest iterations of each size
# (65536: above the MSS, many FPDUs a message), each program bounded
DATA_TIMEOUT=${ORDMA_DATA_TIMEOUT:-60}
RPING_N=20 RPING_SIZES=(64 60000)
BW_N=200 BW_SIZES=(1024 65536)
NS=ordma_iwsiw_peer
IP1=$(ordma_test_ip 1)
IP2=$(ordma_test_ip 2)
IW_OUT=$(mktemp)
BAD_KMSG=$(grep -v '^#' "$SELFTEST_DIR/kmsg_fail_patterns" | paste -sd '|')
kmsg_first=$(dmesg | wc -l)
in_ns() { ip netns exec "$NS" "$@"; }
# ddebug_siw_rts on|off: siw's "enter RTS: crc=y|n" debug message
# (siw_qp_nextstate_from_idle(), one per QP going to RTS) in the kernel log
ddebug_siw_rts() {
	local ctl=/proc/dynamic_debug/control flag=+p
	[ -w "$ctl" ] || ctl=/sys/kernel/debug/dynamic_debug/control
	[ "$1" = on ] || flag=-p
	echo "module siw format \"enter RTS\" $flag" >"$ctl"
}

ktap_header
ktap_set_plan $((13 + 2 * (${#RPING_SIZES[@]} + 3 * ${#BW_SIZES[@]})))

tap_cmd "siw, ib_uverbs and rdma_ucm load" modprobe -a siw ib_uverbs rdma_ucm
to_iwarp() { ordma_set_rdma_proto "$bdf" false true && ordma_set_rdma_proto "$bdf2" false false; }
to_roce() { ordma_set_rdma_proto "$bdf" true false && ordma_set_rdma_proto "$bdf2" true false; }
tap_cmd "NIC 1 on iWARP, NIC 2 without an RDMA device" to_iwarp
ibd=$(ordma_ibdev "$bdf")
nd1=$(ordma_netdev "$bdf")
nd2=$(ordma_netdev "$bdf2")

# netns_up: NIC 1 here with test address 1, NIC 2 in $NS with test
# address 2, reaching NIC 1 over the cable
netns_up() {
	[ -n "$nd1" ] && [ -n "$nd2" ] || return 1
	ip addr flush dev "$nd2"
	ip netns add "$NS" || return 1
	in_ns ip link set dev lo up
	ip link set dev "$nd2" netns "$NS" || return 1
	ip link set dev "$nd1" up
	ip addr replace "$IP1/24" dev "$nd1"
	in_ns ip link set dev "$nd2" up
	in_ns ip addr replace "$IP2/24" dev "$nd2"
	wait_for 30 in_ns ping -c 1 -W 1 "$IP1"
}
if netns_up; then
	ktap_test_pass "$nd1 ($IP1, ${ibd:-no RDMA device}) reaches $nd2 ($IP2, namespace $NS) over the cable"
else
	ktap_test_fail "$nd1 ($IP1, ${ibd:-no RDMA device}) reaches $nd2 ($IP2, namespace $NS) over the cable"
fi
tap_cmd "rdma link add siw2 type siw netdev $nd2 (in $NS)" \
	in_ns rdma link add siw2 type siw netdev "$nd2"
s2=$(in_ns rdma link show | awk -v nd="$nd2" '$1 == "link" {
	for (i = 3; i < NF; i++) if ($i == "netdev" && $(i + 1) == nd) { sub("/.*", "", $2); print $2 } }')
ktap_print_msg "iWARP devices: ${ibd:-none} (ORDMA) on $nd1, ${s2:-none} (siw) on $nd2"

# iw_pair DESC SIDE MODE REGEX...: iw_cm_pair's server on SIDE (ordma:
# NIC 1's address; siw: NIC 2's, in $NS), its client on the other; both
# exit 0 and every REGEX matches a line of their output
iw_pair() {
	local desc=$1 side=$2 mode=$3
	shift 3
	PORT=$((PORT + 1))
	if [ "$side" = ordma ]; then
		ordma_iw_cm_pair "$desc" "$mode" "$IP1" - "$NS" "$@"
	else
		ordma_iw_cm_pair "$desc" "$mode" "$IP2" "$NS" - "$@"
	fi
}
ESTABLISHED_BOTH=('^server: RDMA_CM_EVENT_ESTABLISHED$' '^server: RDMA_CM_EVENT_DISCONNECTED$'
	'^server: private data "ordma-request"$'
	'^client: RDMA_CM_EVENT_ESTABLISHED \(status 0\)$'
	'^client: private data "ordma-accept"$' '^client: RDMA_CM_EVENT_DISCONNECTED$')
kmsg_rts=$(dmesg | wc -l)
ddebug_siw_rts on 2>/dev/null || ktap_print_msg "no dynamic debug: siw's CRC state not shown"
if [ -n "$ibd" ] && [ -n "$s2" ]; then
	iw_pair "ORDMA listens, siw connects: ESTABLISHED and DISCONNECTED both sides" \
		ordma accept "${ESTABLISHED_BOTH[@]}"
	iw_pair "siw listens, ORDMA connects: ESTABLISHED and DISCONNECTED both sides" \
		siw accept "${ESTABLISHED_BOTH[@]}"
	# both ways a siw QP went to RTS, with CRC: the card's C decides
	rts=$(dmesg | tail -n +$((kmsg_rts + 1)) | grep -o 'enter RTS: crc=[yn]' |
		grep -o 'crc=[yn]' | sort | uniq -c |
		awk '{ printf "%s%s x%d", (NR > 1 ? ", " : ""), $2, $1 }')
	tap_eq "siw's QPs entered RTS with MPA CRC on, both connections" "crc=y x2" "$rts"
	# siw reports an MPA reject as -ECONNRESET, ORDMA as -ECONNREFUSED
	iw_pair "ORDMA rejects siw: REJECTED at the client, status -ECONNRESET" \
		ordma reject '^server: rejected$' '^client: RDMA_CM_EVENT_REJECTED \(status -104\)$'
	iw_pair "siw rejects ORDMA: REJECTED at the client, status -ECONNREFUSED" \
		siw reject '^server: rejected$' '^client: RDMA_CM_EVENT_REJECTED \(status -111\)$'
else
	for t in "ORDMA listens, siw connects" "siw listens, ORDMA connects" \
		"siw's QPs entered RTS with MPA CRC on" "ORDMA rejects siw" "siw rejects ORDMA"; do
		ktap_test_skip "$t" "no ORDMA iWARP device or no siw device"
	done
fi

# data_pair DESC SIDE CHECK TOOL ARGS...: TOOL's server on SIDE (ordma:
# NIC 1's device, address $IP1; siw: siw2 in $NS, address $IP2), its
# client on the other side; both are bounded by DATA_TIMEOUT, the client
# starts once the server's rdma_cm ID listens, and a server whose client
# failed is stopped (it would wait for it).  Both must exit 0 and CHECK
# hold: for rping a count, the client's "ping data:" lines (-v, each
# round trip verified with -V) and no "error" or "failed" in either
# output; for perftest (-R -F, output line-buffered) an ERE that a line
# of the client's output must match, its result line.
data_pair() {
	local desc=$1 side=$2 check=$3 tool=$4 addr sdev cdev spid src crc t0 got kmsg_case
	local srv=() cli=() port
	shift 4
	if [ "$side" = ordma ]; then
		addr=$IP1 sdev=$ibd cdev=$s2 cli=(ip netns exec "$NS")
	else
		addr=$IP2 sdev=$s2 cdev=$ibd srv=(ip netns exec "$NS")
	fi
	PORT=$((PORT + 1))
	port=$PORT
	t0=$SECONDS
	if [ "$tool" = rping ]; then
		"${srv[@]}" timeout "$DATA_TIMEOUT" "$(bin rping)" -s -a "$addr" -p "$port" \
			"$@" >"$IW_OUT.srv" 2>&1 &
	else
		"${srv[@]}" timeout "$DATA_TIMEOUT" stdbuf -oL "$(bin "$tool")" -R -d "$sdev" \
			--source_ip "$addr" -p "$port" -F "$@" >"$IW_OUT.srv" 2>&1 &
	fi
	spid=$!
	kmsg_case=$(dmesg | wc -l)
	# listening, or gone (it failed to listen: no use waiting)
	if wait_for 30 "${srv[@]}" sh -c "! kill -0 $spid 2>/dev/null ||
		rdma res show cm_id src-port $port | grep -q 'state LISTEN'" &&
		kill -0 "$spid" 2>/dev/null; then
		if [ "$tool" = rping ]; then
			"${cli[@]}" timeout "$DATA_TIMEOUT" "$(bin rping)" -c -a "$addr" -p "$port" \
				-v "$@" >"$IW_OUT.cli" 2>&1
		else
			"${cli[@]}" timeout "$DATA_TIMEOUT" stdbuf -oL "$(bin "$tool")" -R -d "$cdev" \
				-p "$port" -F "$@" "$addr" >"$IW_OUT.cli" 2>&1
		fi
		crc=$?
	else
		crc=-1
		echo "the server did not listen on port $port" >"$IW_OUT.cli"
	fi
	if [ "$crc" != 0 ]; then
		stop_pid "$spid"
		src=$?
	else
		wait "$spid"
		src=$?
	fi
	if [ "$tool" = rping ]; then
		got=$(grep -c '^ping data: ' "$IW_OUT.cli")
		if [ "$got" = "$check" ] && ! grep -qi 'failed\|error' "$IW_OUT.srv" "$IW_OUT.cli"; then
			got=ok
		else
			got="$got of $check pings verified"
		fi
	elif grep -Eq -- "$check" "$IW_OUT.cli"; then
		got=ok
	else
		got="no client line matches /$check/"
	fi
	if [ "$crc" = 0 ] && [ "$src" = 0 ] && [ "$got" = ok ]; then
		ktap_test_pass "$desc"
		[ "$tool" = rping ] || grep -E -- "$check" "$IW_OUT.cli" | tail -n 1 | sed 's/^/#   /'
		ktap_print_msg "$((SECONDS - t0)) s"
		return 0
	fi
	ktap_test_fail "$desc"
	ktap_print_msg "server exit $src, client exit $crc, $got ($((SECONDS - t0)) s)"
	cut -c1-160 "$IW_OUT.cli" | tail -n 15 | sed 's/^/#   client: /'
	cut -c1-160 "$IW_OUT.srv" | tail -n 15 | sed 's/^/#   server: /'
	dmesg | tail -n +$((kmsg_case + 1)) | grep -E 'siw|ordma' | tail -n 10 |
		cut -c1-160 | sed 's/^/#   kernel: /'
	return 1
}
# bw_re SIZE N: perftest's result line for N iterations of SIZE bytes
bw_re() { echo "^[[:space:]]*$1[[:space:]]+$2[[:space:]]+[0-9.]+[[:space:]]+[0-9.]+"; }
# data_both DESC CHECK TOOL ARGS...: data_pair both ways
data_both() {
	local desc=$1
	shift
	data_pair "ORDMA server, siw client: $desc" ordma "$@"
	data_pair "siw server, ORDMA client: $desc" siw "$@"
}
DATA_CASES=()
for size in "${RPING_SIZES[@]}"; do
	DATA_CASES+=("rping -V -S $size -C $RPING_N")
done
for tool in ib_send_bw ib_write_bw ib_read_bw; do
	for size in "${BW_SIZES[@]}"; do
		DATA_CASES+=("$tool -R -n $BW_N -s $size")
	done
done
# a listen that fails says why: siw's and the driver's debug messages
# about their listening sockets
ddebug_listen() {
	local ctl=/proc/dynamic_debug/control flag=+p q
	[ -w "$ctl" ] || ctl=/sys/kernel/debug/dynamic_debug/control
	[ "$1" = on ] || flag=-p
	for q in "module siw func siw_create_listen" "module ordma_ib func ordma_iw_reserve" \
		"module ordma_ib func ordma_iw_create_listen"; do
		echo "$q $flag" >"$ctl"
	done
}
ddebug_listen on 2>/dev/null
if [ -n "$ibd" ] && [ -n "$s2" ]; then
	for c in "${DATA_CASES[@]}"; do
		read -r tool _ <<<"$c"
		if [ "$tool" = rping ]; then
			read -r _ _ _ size _ <<<"$c"
			data_both "$c, data verified" "$RPING_N" rping -V -S "$size" -C "$RPING_N"
		else
			read -r _ _ _ _ _ size <<<"$c"
			data_both "$c" "$(bw_re "$size" "$BW_N")" "$tool" -n "$BW_N" -s "$size"
		fi
	done
else
	for c in "${DATA_CASES[@]}"; do
		ktap_test_skip "ORDMA server, siw client: $c" "no ORDMA iWARP device or no siw device"
		ktap_test_skip "siw server, ORDMA client: $c" "no ORDMA iWARP device or no siw device"
	done
fi

ddebug_siw_rts off 2>/dev/null
ddebug_listen off 2>/dev/null

# Undo it all: the siw device, the namespace (NIC 2's netdev back
# first), siw itself; both NICs on RoCE again.
rdma link delete "${s2:-siw2}" 2>/dev/null
in_ns ip link set dev "$nd2" netns 1 2>/dev/null
ip netns del "$NS" 2>/dev/null
wait_for 30 test -e "/sys/class/net/$nd2"
tap_cmd "siw unloads" modprobe -r siw
tap_cmd "both NICs on RoCE again" to_roce
ip link set dev "$nd2" up 2>/dev/null
tap_match "rdma dev: NIC 1's device a CA again" "node_type ca" \
	"$(rdma dev show "$(ordma_ibdev "$bdf")" 2>&1)"
tap_eq "no oops, warning or BUG in the kernel log" "" \
	"$(dmesg | tail -n +$((kmsg_first + 1)) | grep -E -- "$BAD_KMSG")"
rm -f "$IW_OUT" "$IW_OUT.srv" "$IW_OUT.cli"
ktap_finished
