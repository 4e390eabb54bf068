#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Admin command validation: malformed commands sent raw through the core
# driver's debugfs admin_cmd (ordma-diag) complete with the defined error
# status and syndrome, are counted in HEALTH's cmd_errors, and leave the
# device working: QUERY_FW still answers and the netdev still takes
# commands.
. "$(dirname "$0")/lib.sh"

ordma_require_device
[ -x "$ORDMA_DIAG" ] || ktap_skip_all "ordma-diag not built ($ORDMA_DIAG)"
bdf=$(ordma_pci_devs | head -n 1)
[ -e "/sys/kernel/debug/ordma/$bdf/admin_cmd" ] ||
	ktap_skip_all "no /sys/kernel/debug/ordma/$bdf/admin_cmd"

ktap_header
ktap_set_plan 24

diag_field() { sed -n "s/^$1 //p" <<<"$2"; }
health_errors() { diag_field cmd_errors "$(ordma_diag -d "$bdf" raw HEALTH 2>&1)"; }

# expect DESC STATUS SYNDROME DIAG-ARGS...: one command, its exit status 1
# (device error), status name and syndrome ('-': the contract defines
# none, e.g. for BAD_HANDLE).  One TAP result.
failed_cmds=0
expect() {
	local desc=$1 status=$2 syndrome=$3 out rc label
	shift 3
	label="$desc: $status"
	[ "$syndrome" = - ] || label+=", syndrome $syndrome"
	out=$(ordma_diag -d "$bdf" "$@" 2>&1)
	rc=$?
	failed_cmds=$((failed_cmds + 1))
	if [ "$rc" -eq 1 ] && [ "$(diag_field status "$out")" = "$status (${status_code[$status]})" ] &&
		{ [ "$syndrome" = - ] || [ "$(diag_field syndrome "$out")" = "$syndrome" ]; }; then
		ktap_test_pass "$label"
	else
		ktap_test_fail "$label"
		ktap_print_msg "\$ ordma-diag -d $bdf $* (exit $rc)"$'\n'"$out"
	fi
}
declare -A status_code=([BAD_OPCODE]=1 [BAD_PARAM]=2 [BAD_HANDLE]=3)

before=$(health_errors)
tap_match "HEALTH answers with a cmd_errors count" '^[0-9]+$' "$before"

expect "unknown opcode 0x7f" BAD_OPCODE 0 raw 0x7f
expect "unassigned opcode 0x22 inside the verbs range" BAD_OPCODE 0 raw 0x22
expect "CREATE_CQ with log_size 0" BAD_PARAM 40 raw 0x20
expect "DESTROY_AH of never-created handle 5" BAD_HANDLE - raw 0x31 05000000
expect "header reserved_1 non-zero" BAD_PARAM 1 entry 01 01
expect "header reserved_4 non-zero" BAD_PARAM 4 entry 01 00 00 00 ff
expect "ALLOC_PD reserved_4 non-zero" BAD_PARAM 12 raw ALLOC_PD 00000000 01000000
expect "QUERY_FW with a non-zero payload byte" BAD_PARAM 8 raw QUERY_FW 01
expect "HEALTH with a non-zero last payload byte" BAD_PARAM 63 raw HEALTH \
	"$(printf '%0110d' 0)01"
# A well-formed ADD_GID except for the index: RoCE v2, no VLAN,
# GID fe80::1, MAC 52:54:00:00:00:99.
gid_body="01 00 ffff fe800000000000000000000000000001 525400000099 0000"
expect "ADD_GID index 16 (table has 16)" BAD_PARAM 8 raw ADD_GID 10000000 $gid_body
expect "ADD_GID index 0xffffffff" BAD_PARAM 8 raw ADD_GID ffffffff $gid_body
expect "DEL_GID index 16" BAD_PARAM 8 raw DEL_GID 10000000
expect "DEALLOC_PD of never-allocated pdn 1000" BAD_HANDLE - raw DEALLOC_PD e8030000 00000000
expect "DEALLOC_UCTX of uctx 0 (the kernel's)" BAD_PARAM 8 raw DEALLOC_UCTX 00000000
expect "DESTROY_EQ of eqn 31 (never created)" BAD_HANDLE - raw DESTROY_EQ 1f000000
expect "QUERY_RESOURCES without a buffer" BAD_PARAM 8 raw QUERY_RESOURCES

# The device's object counts: every type, in use within its maximum
out=$(ordma_diag -d "$bdf" resources 2>&1)
types=$(awk 'NF == 3 && $2 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/ && $2 <= $3 { print $1 }' <<<"$out" | paste -sd ' ')
tap_eq "ordma-diag resources: in use and maximum of every object type" \
	"uctx pd eq eth_ring gid cq qp srq mr mw ah mcast_grp mcast_attach" "$types" ||
	ktap_print_msg "$out"

out=$(ordma_diag -d "$bdf" query-fw 2>&1)
ktap_test_result $? "QUERY_FW still completes OK afterwards"
tap_match "QUERY_FW reports firmware major version 1" '^fw_version 1\.[0-9]+\.[0-9]+$' "$out"
after=$(health_errors)
tap_eq "HEALTH cmd_errors grew by the $failed_cmds failed commands" \
	"$((${before:-0} + failed_cmds))" "$after"
tap_match "HEALTH state is DEGRADED after errors" '^state DEGRADED$' \
	"$(ordma_diag -d "$bdf" raw HEALTH 2>&1)"

nd=$(ordma_netdev "$bdf")
if [ -n "$nd" ]; then
	ip link set dev "$nd" up
	wait_for 15 grep -qx 1 "/sys/class/net/$nd/carrier"
	ok=0
	ip link set dev "$nd" mtu 1600 && [ "$(cat "/sys/class/net/$nd/mtu")" = 1600 ] &&
		ip link set dev "$nd" mtu 1500 && ok=1
	ktap_test_result $((1 - ok)) "$nd still takes MTU changes (SET_PORT)"
	tap_eq "$nd still has carrier" 1 "$(cat "/sys/class/net/$nd/carrier" 2>&1)"
else
	ktap_test_fail "$bdf still has its netdev"
	ktap_test_skip "carrier" "no netdev"
fi

ktap_finished
