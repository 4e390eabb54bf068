#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# The NICs run a firmware image booted from their flash (run-vm.sh
# --fw-image), not the firmware built into the device model: the drivers
# report the image's version (devlink dev info, ibv_devinfo) and the
# verbs data path works on it (ibv_rc_pingpong with data checked, and
# ib_write_bw, between the two NICs).
. "$(dirname "$0")/lib.sh"

ordma_require_device
ordma_require_provider
want=${ORDMA_FW_IMAGE_VERSION:-}
[ -n "$want" ] || ktap_skip_all "the NICs run the built-in firmware (no run-vm.sh --fw-image)"
mapfile -t devs < <(ordma_pci_devs)
[ "${#devs[@]}" -ge 2 ] || ktap_skip_all "needs two ORDMA NICs cabled together"
ktap_header
ktap_set_plan 5
modprobe ib_uverbs
ip link set dev lo up

running() {
	devlink -j dev info "pci/$1" 2>/dev/null | jq -r '.. | objects | .running?.fw // empty' | head -n 1
}
tap_eq "devlink dev info: both NICs run firmware $want" "$want $want" \
	"$(running "${devs[0]}") $(running "${devs[1]}")"

ordma_require_rdma_pair "${devs[0]}" "${devs[1]}"
ibv=$(ibv_devinfo -d "${ib[1]}" 2>/dev/null | awk '$1 == "fw_ver:" { print $2 }')
tap_eq "ibv_devinfo: fw_ver of ${ib[1]}" "$want" "$ibv"

PORT=19600
# pair TOOL ARGS...: server on NIC 1, client on NIC 2; the client's output
pair() {
	local tool=$1 srv out port=$PORT rc
	shift
	PORT=$((PORT + 1))
	case $tool in
	ibv_*) sopt=(-d "${ib[1]}" -g "${gidx[1]}"); copt=(-d "${ib[2]}" -g "${gidx[2]}") ;;
	*) sopt=(-d "${ib[1]}" -x "${gidx[1]}" -F); copt=(-d "${ib[2]}" -x "${gidx[2]}" -F) ;;
	esac
	timeout 120 "$(bin "$tool")" "${sopt[@]}" -p "$port" "$@" >/dev/null 2>&1 &
	srv=$!
	wait_listen 60 "$port" "$srv" || { stop_pid "$srv"; return 1; }
	out=$(timeout 120 "$(bin "$tool")" "${copt[@]}" -p "$port" "$@" 127.0.0.1 2>&1)
	rc=$?
	if [ "$rc" = 0 ]; then wait "$srv" || rc=1; else stop_pid "$srv"; fi
	echo "$out"
	return "$rc"
}
out=$(pair ibv_rc_pingpong -n 100 -s 4096 -m 1024 -c)
ktap_test_result $? "ibv_rc_pingpong on firmware $want: 100 x 4096 bytes, data checked"
grep -m1 'bytes in' <<<"$out" | sed 's/^/#   /'
out=$(pair ib_write_bw -n 200 -s 65536)
grep -Eq '^[[:space:]]*65536[[:space:]]+200[[:space:]]+' <<<"$out"
ktap_test_result $? "ib_write_bw on firmware $want: 200 x 64 KiB"
ktap_finished
