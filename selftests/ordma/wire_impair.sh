#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# RDMA over an impaired cable: the VM harness started the NICs with
# run-vm.sh --wire (make vm-impair: loss, reordering, duplication and
# corruption on both directions).  rping with its data verified and
# ib_write_bw / ib_read_bw must pass between the two NICs anyway, and the
# counters must show why: faults injected (wire_fault_*), requests sent
# again (roce_retransmits), corrupted frames dropped by the receiver's
# ICRC check (roce_parse_drop_icrc, and never by the UDP checksum),
# through ethtool -S and rdma statistic alike.  Skipped without --wire.
. "$(dirname "$0")/lib.sh"

ordma_require_device
ordma_require_provider
[ -n "${ORDMA_WIRE:-}" ] ||
	ktap_skip_all "the cables have no impairments (run-vm.sh --wire SPEC)"
TOOL_TIMEOUT=${ORDMA_TOOL_TIMEOUT:-180}

mapfile -t devs < <(ordma_pci_devs)
[ "${#devs[@]}" -ge 2 ] || ktap_skip_all "needs two ORDMA NICs cabled together"
command -v rping >/dev/null || [ -x "$P/bin/rping" ] || ktap_skip_all "no rping"

# the impairments SPEC names with a rate above zero
wanted=
for f in loss reorder dup corrupt; do
	v=$(tr ',' '\n' <<<"$ORDMA_WIRE" | sed -n "s/^$f=//p")
	case $v in '' | 0 | 0% | 0ppm) ;; *) wanted+=" $f" ;; esac
done

# NIC 2 lives in its own namespace, so that rdma_cm and the tools' TCP
# side channel take the (impaired) cable between the two addresses
NS=ordma_wire_peer
IP1=$(ordma_test_ip 1)
in_ns() { ip netns exec "$NS" "$@"; }

ktap_header
ktap_set_plan $((2 + 4 + $(wc -w <<<"$wanted") + 7))
ktap_print_msg "wire: $ORDMA_WIRE"
tap_cmd "ib_uverbs and rdma_ucm load" modprobe -a ib_uverbs rdma_ucm
ip link set dev lo up
if ordma_netns_pair_up "$NS" "${devs[0]}" "${devs[1]}" 9000; then
	ktap_test_pass "${ib[1]} and ${ib[2]} (in namespace $NS) ACTIVE, reaching each other"
else
	ktap_test_fail "${ib[1]:-NIC 1} and ${ib[2]:-NIC 2} (in namespace $NS) ACTIVE, reaching each other"
	tap_skip_rest "no RDMA device pair"
	ktap_finished
fi
nd1=$(ordma_netdev "${devs[0]}")
nd2=$(in_ns ls /sys/class/net | grep -v '^lo$' | head -n 1)

# eth_sum COUNTER: its sum over both NICs, from ethtool -S
eth_sum() {
	local t=0 v
	for v in "$(ethtool -S "$nd1" 2>/dev/null)" "$(in_ns ethtool -S "$nd2" 2>/dev/null)"; do
		v=$(awk -v c="$1:" '$1 == c { print $2 }' <<<"$v")
		t=$((t + ${v:-0}))
	done
	echo "$t"
}
# rdma_sum COUNTER: the same from rdma statistic (NAME VALUE pairs)
rdma_sum() {
	local n t=0 v
	for n in 1 2; do
		v=$(rdma statistic show link "${ib[n]}/1" 2>/dev/null |
			awk -v c="$1" '{ for (i = 1; i < NF; i++) if ($i == c) print $(i + 1) }')
		t=$((t + ${v:-0}))
	done
	echo "$t"
}

COUNTERS="wire_fault_loss wire_fault_reorder wire_fault_dup wire_fault_corrupt
roce_retransmits roce_parse_drop_icrc roce_parse_drop_udp_checksum
wire_tx_drop wire_rx_drop pause_rx roce_tx_pause_holds"
declare -A base=()
for c in $COUNTERS; do
	base[$c]=$(eth_sum "$c")
done
delta() { echo $(($(eth_sum "$1") - ${base[$1]})); }

PORT=18600
# run_pair NAME PATTERN TOOL ARGS...: server on NIC 1, client on NIC 2 in
# $NS; both must exit 0 and the client's output match.
#
# Not ibv_rc_pingpong: on any lossy fabric it fails by design now and
# then.  Its server exits, destroying its QP, as soon as its own last
# send is acknowledged; when the acknowledgement of the client's last
# send is the frame lost, the client's retries meet no QP and end in
# "transport retry counter exceeded".  perftest meets its peer over TCP
# after the last completion, and rping disconnects through rdma_cm.
run_pair() {
	local name=$1 pattern=$2 tool=$3 srv cli spid src crc port=$PORT
	shift 3
	PORT=$((PORT + 1))
	srv=$(mktemp) cli=$(mktemp)
	case $tool in
	rping)
		timeout "$TOOL_TIMEOUT" "$(bin rping)" -s -a "$IP1" -p "$port" "$@" >"$srv" 2>&1 &
		spid=$!
		if wait_for 60 sh -c "rdma res show cm_id | grep -q 'state LISTEN.*comm rping'"; then
			timeout "$TOOL_TIMEOUT" ip netns exec "$NS" "$(bin rping)" -c -a "$IP1" \
				-p "$port" "$@" >"$cli" 2>&1
			crc=$?
		else
			crc=-1
			echo "rping did not listen within 60 s" >"$cli"
		fi ;;
	*)
		timeout "$TOOL_TIMEOUT" "$(bin "$tool")" -d "${ib[1]}" -x "${gidx[1]}" -p "$port" -F \
			"$@" >"$srv" 2>&1 &
		spid=$!
		if wait_listen 60 "$port" "$spid"; then
			timeout "$TOOL_TIMEOUT" ip netns exec "$NS" "$(bin "$tool")" -d "${ib[2]}" \
				-x "${gidx[2]}" -p "$port" -F "$@" "$IP1" >"$cli" 2>&1
			crc=$?
		else
			crc=-1
			echo "server did not listen on TCP port $port within 60 s" >"$cli"
		fi ;;
	esac
	if [ "$crc" != 0 ]; then
		stop_pid "$spid"
		src=$?
	else
		wait "$spid"
		src=$?
	fi
	if [ "$crc" = 0 ] && [ "$src" = 0 ] && grep -Eq -- "$pattern" "$cli"; then
		ktap_test_pass "$name"
		grep -E -- "$pattern" "$cli" | tail -n 1 | sed 's/^/#   /'
	else
		ktap_test_fail "$name (client rc $crc, server rc $src)"
		sed 's/^/#   client: /' "$cli" | tail -n 15
		sed 's/^/#   server: /' "$srv" | tail -n 15
	fi
	rm -f "$srv" "$cli"
}

# rping -v prints every verified ping; -V fails the run on a mismatch
rping_re='^ping data: rdma-ping-'
run_pair "impaired: rping -V 200 x 4096 bytes, data verified" "$rping_re" \
	rping -v -V -C 200 -S 4096
run_pair "impaired: rping -V 20 x 60000 bytes, data verified" "$rping_re" \
	rping -v -V -C 20 -S 60000
# make soak runs more of each (ORDMA_IMPAIR_ITERATIONS)
wr_n=${ORDMA_IMPAIR_ITERATIONS:-500}
rd_n=$(( (wr_n * 2 + 4) / 5 ))
run_pair "impaired: ib_write_bw $wr_n x 64 KiB" "^[[:space:]]*65536[[:space:]]+${wr_n}[[:space:]]+[0-9.]+" \
	ib_write_bw -n "$wr_n" -s 65536
run_pair "impaired: ib_read_bw $rd_n x 64 KiB" "^[[:space:]]*65536[[:space:]]+${rd_n}[[:space:]]+[0-9.]+" \
	ib_read_bw -n "$rd_n" -s 65536

# The tools are done; a frame still on its way (a delay, a held frame)
# is counted within the bound.
icrc_caught_up() {
	[ "$(delta roce_parse_drop_icrc)" -ge "$(delta wire_fault_corrupt)" ]
}
wait_for 10 icrc_caught_up || true

summary=
for c in $COUNTERS; do
	summary+=" $c=$(delta "$c")"
done
ktap_print_msg "counters during the test (both NICs):$summary"
for f in $wanted; do
	v=$(delta "wire_fault_$f")
	if [ "$v" -gt 0 ]; then
		ktap_test_pass "ethtool -S: wire_fault_$f counted ($v)"
	else
		ktap_test_fail "ethtool -S: wire_fault_$f counted (0, with $f in the spec)"
	fi
done
v=$(delta roce_retransmits)
if [ "$v" -gt 0 ]; then
	ktap_test_pass "ethtool -S: roce_retransmits non-zero ($v)"
else
	ktap_test_fail "ethtool -S: roce_retransmits non-zero (0)"
fi
icrc=$(delta roce_parse_drop_icrc)
corrupt=$(delta wire_fault_corrupt)
dup=$(delta wire_fault_dup)
if [[ " $wanted " == *" corrupt "* ]] && [ "$icrc" -gt 0 ]; then
	ktap_test_pass "ethtool -S: roce_parse_drop_icrc non-zero ($icrc)"
elif [[ " $wanted " == *" corrupt "* ]]; then
	ktap_test_fail "ethtool -S: roce_parse_drop_icrc non-zero (0)"
else
	ktap_test_skip "ethtool -S: roce_parse_drop_icrc non-zero" "no corrupt in the spec"
fi
# The impairments are the only losses: the cable itself (a full socket
# buffer or inbox on the receiving side, a send the host refused) must
# lose nothing, however far behind one port falls.
tx_drop=$(delta wire_tx_drop) rx_drop=$(delta wire_rx_drop)
tap_eq "the cable lost no frame beyond the impairments (wire_tx_drop $tx_drop, wire_rx_drop $rx_drop)" \
	0 $((tx_drop + rx_drop))
# A corrupted frame that is also duplicated fails twice; one the cable
# dropped never reached the ICRC check (that failed just above).
if [ "$icrc" -ge $((corrupt - rx_drop)) ] && [ "$icrc" -le $((corrupt + dup)) ]; then
	ktap_test_pass "every ICRC drop is an injected corruption ($corrupt corrupted, $icrc dropped)"
else
	ktap_test_fail "every ICRC drop is an injected corruption ($corrupt corrupted, $icrc dropped, $dup duplicated, $rx_drop lost by the cable)"
fi
# With a small flow-control-xoff (run-vm.sh VM_ORDMA_PROPS) the ports
# pause each other all along: the lossless result above is flow control's.
pauses=$(delta pause_rx) holds=$(delta roce_tx_pause_holds)
if [[ ",${ORDMA_PROPS:-}," != *",flow-control-xoff="* ]]; then
	ktap_test_skip "PAUSE frames held the senders back ($pauses PAUSE frames, $holds holds)" \
		"default flow-control-xoff: pauses are not expected"
elif [ "$pauses" -gt 0 ] && [ "$holds" -gt 0 ]; then
	ktap_test_pass "PAUSE frames held the senders back ($pauses PAUSE frames, $holds holds)"
else
	ktap_test_fail "PAUSE frames held the senders back ($pauses PAUSE frames, $holds holds; ORDMA_PROPS=$ORDMA_PROPS)"
fi
tap_eq "no corrupted frame got past the ICRC to the UDP checksum" 0 \
	"$(delta roce_parse_drop_udp_checksum)"
# rdma statistic reads the same port counters
r_icrc=$(rdma_sum roce_parse_drop_icrc) r_retr=$(rdma_sum roce_retransmits)
r_loss=$(rdma_sum wire_fault_loss)
if [ "$r_icrc" -ge "$icrc" ] && [ "$r_retr" -gt 0 ] &&
	{ [[ " $wanted " != *" loss "* ]] || [ "$r_loss" -gt 0 ]; }; then
	ktap_test_pass "rdma statistic: roce_retransmits $r_retr, roce_parse_drop_icrc $r_icrc, wire_fault_loss $r_loss"
else
	ktap_test_fail "rdma statistic: roce_retransmits $r_retr, roce_parse_drop_icrc $r_icrc, wire_fault_loss $r_loss"
fi
ktap_finished
