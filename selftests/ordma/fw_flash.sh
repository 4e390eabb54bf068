#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Firmware update through devlink on NIC 2, whose firmware boots from its
# flash (run-vm.sh --fw-image, version 1.1.0): images the driver or the
# device must refuse (a flipped payload byte, a truncated file, another
# board's image) leave the flash alone; a new image flashes, runs after
# `devlink dev reload action fw_activate` and carries RDMA traffic; an
# image whose self-test fails is rolled back and the reload says so; and
# a downgrade to the first image works the same way.  The images come
# from tools/fw/test-images.sh, run on the host:
#   new.img 1.2.0, old.img 1.1.0, stfail.img 1.3.0 (self-test fails),
#   board.img (signed for board OTHER-BOARD).
. "$(dirname "$0")/lib.sh"

ordma_require_device
ordma_require_provider
command -v devlink >/dev/null || ktap_skip_all "no devlink"
command -v jq >/dev/null || ktap_skip_all "no jq"
IMAGES=${ORDMA_FW_TEST_IMAGES:-$ORDMA_REPO/build/fw/test-images}
for f in new old stfail board; do
	[ -r "$IMAGES/$f.img" ] ||
		ktap_skip_all "no $IMAGES/$f.img (run tools/fw/test-images.sh $IMAGES on the host)"
done
mapfile -t devs < <(ordma_pci_devs)
[ "${#devs[@]}" -ge 2 ] || ktap_skip_all "needs two ORDMA NICs cabled together"
bdf=${devs[1]}

# fw_version running|stored: NIC 2's firmware version as devlink reports it
fw_version() {
	devlink -j dev info "pci/$bdf" 2>/dev/null |
		jq -r '.. | objects | .'"$1"'?.fw // empty' 2>/dev/null | head -n 1
}
[ -n "$(fw_version stored)" ] ||
	ktap_skip_all "NIC 2 reports no stored firmware (no flash: run-vm.sh --fw-image)"

BAD_KMSG=$(grep -v '^#' "$SELFTEST_DIR/kmsg_fail_patterns" | paste -sd '|')
TOOL_TIMEOUT=${ORDMA_TOOL_TIMEOUT:-120}
PORT=19700

ktap_header
ktap_set_plan 21
modprobe ib_uverbs
ip link set dev lo up
kmsg_first=$(dmesg | wc -l)

# request_firmware() reads /lib/firmware: the guest's root is writable.
FWDIR=/lib/firmware/ordma-test
mkdir -p "$FWDIR"
for f in new old stfail board; do
	cp "$IMAGES/$f.img" "$FWDIR/$f.img"
done
# badsig.img: new.img with one payload byte flipped, header intact
cp "$FWDIR/new.img" "$FWDIR/badsig.img"
byte=$(od -An -tu1 -j 4096 -N 1 "$FWDIR/new.img" | tr -d ' ')
# shellcheck disable=SC2059 # the format is the byte, in octal
printf "\\$(printf %03o $((byte ^ 0xff)))" |
	dd of="$FWDIR/badsig.img" bs=1 seek=4096 conv=notrunc status=none
# trunc.img: new.img without its last 100 bytes
size=$(stat -c %s "$FWDIR/new.img")
head -c $((size - 100)) "$FWDIR/new.img" >"$FWDIR/trunc.img"

# flash NAME: devlink dev flash of ordma-test/NAME.img; its output
flash() {
	timeout "$TOOL_TIMEOUT" devlink dev flash "pci/$bdf" file "ordma-test/$1.img" 2>&1
}
# activate: devlink dev reload action fw_activate; its output
activate() {
	timeout "$TOOL_TIMEOUT" devlink dev reload "pci/$bdf" action fw_activate 2>&1
}
# One line of devlink's output for a result's description
oneline() { tr -s '\n\t ' ' ' <<<"$1" | cut -c 1-160; }
versions() { echo "running $(fw_version running) stored $(fw_version stored)"; }

# Both ports ACTIVE and the RoCE GID of NIC 2's test address back on
# its (new) ib_device
nic2_ready() {
	ib[2]=$(ordma_ibdev "$bdf") || return 1
	gidx[2]=$(roce_v2_gid_index "${ib[2]}" "$(ordma_test_ip 2)")
	[ -n "${gidx[2]}" ] &&
		rdma link show "${ib[2]}/1" 2>/dev/null | grep -q 'state ACTIVE' &&
		rdma link show "${ib[1]}/1" 2>/dev/null | grep -q 'state ACTIVE'
}

# pingpong: ibv_rc_pingpong with data checked, NIC 1 to NIC 2, on a
# port of its own
pingpong() {
	PORT=$((PORT + 1))
	pair_rc_pingpong "$PORT"
}

# --- (a) the NIC boots 1.1.0 from its flash
tap_eq "devlink dev info: NIC 2 runs firmware 1.1.0" "1.1.0" "$(fw_version running)"
ordma_require_rdma_pair "${devs[0]}" "$bdf"
before=$(versions)

# --- (b)-(d) images refused, the flash left alone
out=$(flash badsig)
rc=$?
[ "$rc" != 0 ] && grep -qi 'signature' <<<"$out"
ktap_test_result $? "badsig.img refused by the device: $(oneline "$out")"
tap_eq "after badsig.img: running and stored firmware unchanged" "$before" "$(versions)"

out=$(flash trunc)
rc=$?
[ "$rc" != 0 ] && grep -qi 'truncat' <<<"$out"
ktap_test_result $? "trunc.img refused as truncated: $(oneline "$out")"

out=$(flash board)
rc=$?
[ "$rc" != 0 ] && grep -q 'OTHER-BOARD' <<<"$out"
ktap_test_result $? "board.img refused, naming its board: $(oneline "$out")"

# --- (e) a new image flashes; it is stored, not running
out=$(flash new)
ktap_test_result $? "new.img (1.2.0) flashes: $(oneline "$(tail -n 2 <<<"$out")")"
tap_eq "after flashing new.img: 1.1.0 runs, 1.2.0 is stored" \
	"running 1.1.0 stored 1.2.0" "$(versions)"

# --- (f) activation: the function comes back on 1.2.0
out=$(activate)
ktap_test_result $? "devlink dev reload action fw_activate: $(oneline "$out")"
tap_eq "after the activation NIC 2 runs 1.2.0" "1.2.0" "$(fw_version running)"
wait_for 60 nic2_ready
ktap_test_result $? "a new ib_device (${ib[2]:-none}) is ACTIVE with its RoCE GID"
pingpong
ktap_test_result $? "ibv_rc_pingpong between NIC 1 and NIC 2 on firmware 1.2.0"
out=$(activate)
rc=$?
[ "$rc" != 0 ] && grep -q 'flash one first' <<<"$out"
ktap_test_result $? "fw_activate with no pending image is refused: $(oneline "$out")"

# --- (g) an image that does not boot is rolled back
out=$(flash stfail)
ktap_test_result $? "stfail.img (1.3.0) flashes: $(oneline "$(tail -n 2 <<<"$out")")"
out=$(activate)
rc=$?
[ "$rc" != 0 ] && grep -q 'did not boot' <<<"$out"
ktap_test_result $? "fw_activate of stfail.img fails, saying it did not boot: $(oneline "$out")"
tap_eq "after the rollback NIC 2 still runs 1.2.0" "1.2.0" "$(fw_version running)"
wait_for 60 nic2_ready && pingpong
ktap_test_result $? "after the rollback: ${ib[2]:-no ib_device} ACTIVE, ibv_rc_pingpong passes"

# --- (h) downgrade to the image the NIC booted with
out=$(flash old)
ktap_test_result $? "old.img (1.1.0) flashes: $(oneline "$(tail -n 2 <<<"$out")")"
out=$(activate)
rc=$?
[ "$rc" = 0 ] && [ "$(fw_version running)" = 1.1.0 ]
ktap_test_result $? "downgrade: fw_activate succeeds, NIC 2 runs $(fw_version running): $(oneline "$out")"
wait_for 60 nic2_ready && pingpong
ktap_test_result $? "after the downgrade: ${ib[2]:-no ib_device} ACTIVE, ibv_rc_pingpong passes"

# --- (i)
bad=$(dmesg | tail -n +$((kmsg_first + 1)) | grep -E "$BAD_KMSG")
[ -z "$bad" ]
ktap_test_result $? "no oops, WARN or leak report in the kernel log"
[ -n "$bad" ] && head -n 20 <<<"$bad" | sed 's/^/#   /'
dmesg | tail -n +$((kmsg_first + 1)) | grep "$bdf: firmware .* -> " | sed 's/^/#   /'
rm -rf "$FWDIR"
ktap_finished
