#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# iwarp_select: the RDMA protocol of NIC 1's Ethernet port, chosen with
# the generic devlink parameters enable_roce and enable_iwarp.  Both are
# listed, RoCE is the default, the two are exclusive (the refusal says
# why), switching deletes the RDMA device and adds one of the other
# protocol: an iWARP device (node type RNIC, transport iWARP) whose
# connections are not supported yet, so rping's listen and connect fail
# at once with EOPNOTSUPP, and UD QPs are refused.  verbs_iwarp checks
# the refused verbs: an MR with atomic rights (EOPNOTSUPP), ibv_post_send
# of immediates, atomics and a two-SGE RDMA READ (EINVAL and bad_wr), an
# extended QP offering atomics (EOPNOTSUPP); the kernel module
# ordma_iwarp_kverbs_test the same refusals to a kernel ULP
# (ib_post_send: -EINVAL and bad_wr).  The choice survives a
# devlink reload.  Back on RoCE, ibv_rc_pingpong between the two NICs
# passes.
. "$(dirname "$0")/lib.sh"

ordma_require_device
ordma_require_provider
devs=$(ordma_pci_devs)
[ "$(echo "$devs" | wc -l)" -ge 2 ] || ktap_skip_all "needs two ORDMA functions"
bdf=$(echo "$devs" | sed -n 1p)
bdf2=$(echo "$devs" | sed -n 2p)
dl=pci/$bdf
PORT=${PORT:-18600}
TOOL_TIMEOUT=${TOOL_TIMEOUT:-120}
VERBS_IWARP=${ORDMA_VERBS_IWARP:-$ORDMA_REPO/build/bin/verbs_iwarp}
VERBS_IWARP_CASES=4
KO=${ORDMA_IWARP_KVERBS_KO:-$ORDMA_REPO/selftests/ordma/kverbs/ordma_iwarp_kverbs_test.ko}
KMOD=ordma_iwarp_kverbs_test
KV_CASES=9
kmsg_first=$(dmesg | wc -l)

ktap_header
ktap_set_plan $((23 + VERBS_IWARP_CASES + 1 + KV_CASES + 2))

# param NAME: the runtime value of devlink parameter NAME of NIC 1
param() {
	devlink -j dev param show "$dl" name "$1" 2>/dev/null |
		jq -r --arg d "$dl" '.param[$d][0].values[] | select(.cmode == "runtime") | .value' 2>/dev/null
}
set_param() {
	devlink dev param set "$dl" name "$1" value "$2" cmode runtime
}
has_ibdev() { ordma_ibdev "$bdf" >/dev/null; }
no_ibdev() { ! ordma_ibdev "$bdf" >/dev/null; }
port_active() { rdma link show "$(ordma_ibdev "$bdf")/1" 2>/dev/null | grep -q 'state ACTIVE'; }
# kernel log lines since the test began that fail any run
BAD_KMSG=$(grep -v '^#' "$SELFTEST_DIR/kmsg_fail_patterns" | paste -sd '|')
kmsg_bad() {
	dmesg | tail -n +$((kmsg_first + 1)) | grep -E -- "$BAD_KMSG"
}
# tool_fails_cleanly DESC REGEX CMD...: CMD exits by itself (not by the
# timeout, not by a signal) with an error, and its output has a line
# matching REGEX (ERE)
tool_fails_cleanly() {
	local desc=$1 re=$2 out rc
	shift 2
	out=$(timeout 60 "$@" 2>&1)
	rc=$?
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] &&
		! { [ "$rc" -gt 128 ] && [ "$rc" -le 192 ]; } &&
		grep -qE -- "$re" <<<"$out"; then
		ktap_test_pass "$desc"
		ktap_print_msg "$(echo "$out" | tail -n 2)"
		return 0
	fi
	ktap_test_fail "$desc"
	ktap_print_msg "\$ $* (exit $rc, expected a line matching /$re/)"$'\n'"$out"
	return 1
}

names=$(devlink -j dev param show 2>/dev/null |
	jq -r --arg d "$dl" '[.param[$d][]?.name] | sort | join(" ")' 2>/dev/null)
if ! tap_eq "devlink dev param show lists enable_iwarp and enable_roce" \
	"enable_iwarp enable_roce" "$names"; then
	tap_skip_rest "no RDMA protocol parameters"
	ktap_finished
fi
tap_eq "RoCE by default (enable_roce, enable_iwarp)" "true false" \
	"$(param enable_roce) $(param enable_iwarp)"
out=$(set_param enable_iwarp true 2>&1)
rc=$?
tap_eq "enable_iwarp true refused while enable_roce is on" 1 "$((rc != 0))"
tap_match "the refusal says to turn enable_roce off first" \
	"RoCE is enabled: set enable_roce to false first" "$out"

# to iWARP
tap_cmd "enable_roce false" set_param enable_roce false
tap_cmd "the RDMA device is gone" wait_for 30 no_ibdev
tap_cmd "enable_iwarp true" set_param enable_iwarp true
tap_cmd "an RDMA device is back" wait_for 60 has_ibdev
ibd=$(ordma_ibdev "$bdf")
nd=$(ordma_netdev "$bdf")
nd2=$(ordma_netdev "$bdf2")
ip link set dev "$nd" up
ip link set dev "$nd2" up
ip addr add "$(ordma_test_ip 1)/24" dev "$nd" 2>/dev/null
ip addr add "$(ordma_test_ip 2)/24" dev "$nd2" 2>/dev/null
tap_eq "enable_roce false, enable_iwarp true" "false true" \
	"$(param enable_roce) $(param enable_iwarp)"
tap_match "rdma dev: $ibd is an RNIC" "node_type rnic" "$(rdma dev show "$ibd" 2>&1)"
wait_for 30 port_active
tap_match "rdma link: $ibd/1 ACTIVE on netdev $nd" "state ACTIVE .*netdev $nd( |\$)" \
	"$(rdma link show "$ibd/1" 2>&1)"
info=$("$(bin ibv_devinfo)" -d "$ibd" 2>&1)
tap_match "ibv_devinfo: transport iWARP" "transport:[[:space:]]+iWARP" "$info"
tap_match "ibv_devinfo: link_layer Ethernet" "link_layer:[[:space:]]+Ethernet" "$info"
tap_match "ibv_devinfo: no atomics" "atomic_cap:[[:space:]]+ATOMIC_NONE" \
	"$("$(bin ibv_devinfo)" -v -d "$ibd" 2>&1)"
tap_program verbs_iwarp "$VERBS_IWARP_CASES" "$VERBS_IWARP" "$ibd"
# the same refusals to a kernel ULP (kverbs/ordma_iwarp_kverbs_test.c)
grep -q "^$KMOD " /proc/modules && rmmod "$KMOD"
kmsg_kv=$(dmesg | wc -l)
out=$(timeout 120 insmod "$KO" dev="$ibd" 2>&1)
rc=$?
ktap_test_result "$rc" "insmod $KMOD dev=$ibd"
[ "$rc" -eq 0 ] || ktap_print_msg "$out"
log=$(dmesg | tail -n +$((kmsg_kv + 1)) | sed -n 's/^.*ordma_iwarp_kverbs: //p')
tap_cases ordma_iwarp_kverbs "$KV_CASES" "$(grep -vE '^(begin$|done )' <<<"$log")"
tap_match "the module ran its $KV_CASES steps, none failed" \
	"^done $KV_CASES passed 0 failed\$" "$(grep '^done ' <<<"$log" | tail -n 1)"
tap_cmd "rmmod $KMOD" rmmod "$KMOD"
tool_fails_cleanly "ibv_ud_pingpong: UD QP refused" "Couldn't create QP" \
	"$(bin ibv_ud_pingpong)" -d "$ibd" -p "$PORT"
tool_fails_cleanly "rping server on the iWARP address: listen not supported" \
	"rdma_listen: Operation not supported" \
	"$(bin rping)" -s -a "$(ordma_test_ip 1)" -C 1
# rping's client, once rdma_connect has failed, joins its CQ thread,
# which waits for a completion that never comes (rping.c's error path,
# whatever the device): the refusal must come at once, the timeout ends
# the tool.
out=$(timeout 20 "$(bin rping)" -c -a "$(ordma_test_ip 1)" -C 1 2>&1)
tap_match "rping client to the iWARP address: connect not supported" \
	"^rdma_connect: Operation not supported" "$out"

# the choice survives a reload
tap_cmd "devlink dev reload" devlink dev reload "$dl"
wait_for 60 has_ibdev
tap_match "after the reload the RDMA device is an RNIC again" "node_type rnic" \
	"$(rdma dev show "$(ordma_ibdev "$bdf")" 2>&1)"

# back to RoCE
set_param enable_iwarp false
wait_for 30 no_ibdev
tap_cmd "enable_iwarp false, enable_roce true" set_param enable_roce true
wait_for 60 has_ibdev
tap_match "rdma dev: a CA again" "node_type ca" "$(rdma dev show "$(ordma_ibdev "$bdf")" 2>&1)"
if ordma_rdma_pair_up "$bdf" "$bdf2"; then
	PORT=$((PORT + 1))
	tap_cmd "RoCE again: ibv_rc_pingpong between the two NICs" pair_rc_pingpong "$PORT"
else
	ktap_test_fail "RoCE again: both NICs ACTIVE with an IPv4 RoCE v2 GID"
fi
tap_eq "no kernel warning" "" "$(kmsg_bad)"

ktap_finished
