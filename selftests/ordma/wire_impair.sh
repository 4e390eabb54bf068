#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# RDMA over an impaired cable: the VM harness started the NICs with
# run-vm.sh --wire (make vm-impair: loss, reordering, duplication and
# corruption on both directions).  RC ping-pongs with the received data
# checked and ib_write_bw must pass between the two NICs anyway, and the
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

# the impairments SPEC names with a rate above zero
wanted=
for f in loss reorder dup corrupt; do
	v=$(tr ',' '\n' <<<"$ORDMA_WIRE" | sed -n "s/^$f=//p")
	case $v in '' | 0 | 0% | 0ppm) ;; *) wanted+=" $f" ;; esac
done

ktap_header
ktap_set_plan $((2 + 4 + $(wc -w <<<"$wanted") + 5))
ktap_print_msg "wire: $ORDMA_WIRE"
tap_cmd "ib_uverbs loads" modprobe ib_uverbs
ip link set dev lo up
ordma_require_rdma_pair "${devs[0]}" "${devs[1]}"
nds=("$(ordma_netdev "${devs[0]}")" "$(ordma_netdev "${devs[1]}")")

# eth_sum COUNTER: its sum over both NICs, from ethtool -S
eth_sum() {
	local nd t=0 v
	for nd in "${nds[@]}"; do
		v=$(ethtool -S "$nd" 2>/dev/null | awk -v c="$1:" '$1 == c { print $2 }')
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
roce_retransmits roce_parse_drop_icrc roce_parse_drop_udp_checksum"
declare -A base=()
for c in $COUNTERS; do
	base[$c]=$(eth_sum "$c")
done
delta() { echo $(($(eth_sum "$1") - ${base[$1]})); }

PORT=18600
# run_pair NAME PATTERN TOOL ARGS...: server on NIC 1, client on NIC 2
# (as in verbs.sh); both must exit 0 and the client's output match
run_pair() {
	local name=$1 pattern=$2 tool=$3 sopt copt srv cli spid src crc
	shift 3
	case $tool in
	ibv_*) sopt="-d ${ib[1]} -g ${gidx[1]} -p $PORT"; copt="-d ${ib[2]} -g ${gidx[2]} -p $PORT" ;;
	*) sopt="-d ${ib[1]} -x ${gidx[1]} -p $PORT -F"; copt="-d ${ib[2]} -x ${gidx[2]} -p $PORT -F" ;;
	esac
	local port=$PORT
	PORT=$((PORT + 1))
	srv=$(mktemp) cli=$(mktemp)
	# shellcheck disable=SC2086 # option strings split on purpose
	timeout "$TOOL_TIMEOUT" "$(bin "$tool")" $sopt "$@" >"$srv" 2>&1 &
	spid=$!
	if wait_listen 60 "$port" "$spid"; then
		# shellcheck disable=SC2086
		timeout "$TOOL_TIMEOUT" "$(bin "$tool")" $copt "$@" 127.0.0.1 >"$cli" 2>&1
		crc=$?
	else
		crc=-1
		echo "server did not listen on TCP port $port within 60 s" >"$cli"
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
		grep -E -- "$pattern" "$cli" | head -n 2 | sed 's/^/#   /'
	else
		ktap_test_fail "$name (client rc $crc, server rc $src)"
		sed 's/^/#   client: /' "$cli" | tail -n 15
		sed 's/^/#   server: /' "$srv" | tail -n 15
	fi
	rm -f "$srv" "$cli"
}

pp_re='bytes in [0-9.]+ seconds'
bw_re='^[[:space:]]*65536[[:space:]]+500[[:space:]]+[0-9.]+'
run_pair "impaired: ibv_rc_pingpong 200 x 4096 bytes, MTU 1024, data checked" "$pp_re" \
	ibv_rc_pingpong -n 200 -s 4096 -m 1024 -c
run_pair "impaired: ibv_rc_pingpong 20 x 65536 bytes, MTU 4096, data checked" "$pp_re" \
	ibv_rc_pingpong -n 20 -s 65536 -m 4096 -c
run_pair "impaired: ib_write_bw 500 x 64 KiB" "$bw_re" ib_write_bw -n 500 -s 65536
run_pair "impaired: ib_read_bw 200 x 64 KiB" '^[[:space:]]*65536[[:space:]]+200[[:space:]]+[0-9.]+' \
	ib_read_bw -n 200 -s 65536

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
# a corrupted frame that is also duplicated fails twice
if [ "$icrc" -ge "$corrupt" ] && [ "$icrc" -le $((corrupt + dup)) ]; then
	ktap_test_pass "every ICRC drop is an injected corruption ($corrupt corrupted, $icrc dropped)"
else
	ktap_test_fail "every ICRC drop is an injected corruption ($corrupt corrupted, $icrc dropped, $dup duplicated)"
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
