#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# The whole check flow behind `make check`: host packages, kernel, host
# unit tests, lint, modules (and siw), QEMU, provider (built and
# host-tested), then the VM runs.  Each step's output goes to
# build/check/<step>.log; its TAP results (or one result for its exit
# status) are printed here, numbered across all steps, and collected in
# build/check/check.tap.  The last line is
#   N passed, N failed, N skipped
# and the exit status is non-zero if anything failed.
#
# Environment: KDIR (default: tools/vm/fetch-kernel.sh), VM_IOMMU=0 runs
# the single VM without its IOMMU, VM_TIMEOUT (seconds per VM).
set -uo pipefail

REPO=$(cd "$(dirname "$0")/../.." && pwd)
cd "$REPO" || exit 1
OUT=$REPO/build/check
rm -rf "$OUT"
mkdir -p "$OUT"
MAKE=${MAKE:-make}

# shellcheck source=tools/check/steps.sh
. "$REPO/tools/check/steps.sh"

# Kernel build warnings count as failures even when the build succeeds.
modules_warnfree() {
	$MAKE modules_clean >/dev/null || return 1
	$MAKE modules || return 1
	if grep -E '(warning|error):' "$OUT/modules.log" >/dev/null; then
		echo "not ok - W=1 build has compiler warnings"
		grep -E '(warning|error):' "$OUT/modules.log"
		return 1
	fi
	echo "ok - W=1 build has no compiler warnings"
}

step deps tools/host-deps.sh
step kernel tools/vm/fetch-kernel.sh
step fw-check $MAKE -C firmware check
# The device model's frame logic (the cable's impairments), no QEMU needed
step qemu-unit $MAKE qemu-unit
# The iWARP capture check of run-vm.sh --pcap on made-up captures (tshark)
step pcap-iwarp-check python3 tools/vm/test-pcap-iwarp.py
# ordma-fw-image: keys, signed images good and bad, flash files
step fw-image-check $MAKE fw-image-check
step lint $MAKE lint
step modules modules_warnfree
# Linux's soft-iWARP driver, which Debian's kernel lacks, for the test
# VMs' module tree (the iWARP peer; built once per source and kernel)
step siw $MAKE siw
step diag $MAKE diag
step qemu $MAKE qemu
# The device model without a guest: the qtest checks of the shim, then a
# random hostile-driver run (seeded; QTEST_RANDOM_SEED replays a seed,
# QTEST_RANDOM_OPS/_TIME bound it; QTEST_QEMU runs them on another build
# of QEMU with the device, e.g. one with sanitizers).
if [ -n "${STEP_FAILED[qemu]:-}" ]; then
	skip_step qtest "no QEMU with the ORDMA device"
	skip_step qtest-random "no QEMU with the ORDMA device"
else
	qemu_bin=${QTEST_QEMU:-$(tail -n 1 "$OUT/qemu.log")}
	step qtest tools/qemu/qtest-ordma.py "$qemu_bin"
	random_args=(--ops "${QTEST_RANDOM_OPS:-2000}" --time "${QTEST_RANDOM_TIME:-120}")
	[ -n "${QTEST_RANDOM_SEED:-}" ] && random_args+=(--seed "$QTEST_RANDOM_SEED")
	QTEST_LOG_DIR=$OUT step qtest-random tools/qemu/qtest-ordma-random.py \
		"${random_args[@]}" "$qemu_bin"
	grep -m1 '^# seed' "$OUT/qtest-random.log"
fi
step provider $MAKE provider
# WQE encoding, CQE translation, ABI matching (no device needed)
if [ -z "${STEP_FAILED[provider]:-}" ]; then
	step provider-check $MAKE -C tools/provider check
else
	emit_fail provider-check "not run: the provider did not build"
fi

# The VM runs: the harness self-check needs no ORDMA piece; the ORDMA
# topologies need the modules and the QEMU device.
step vm-smoke tools/vm/run-vm.sh -o build/vm/check-smoke smoke
if [ -n "${STEP_FAILED[modules]:-}${STEP_FAILED[qemu]:-}" ]; then
	emit_fail vm-single "not run: modules or QEMU failed to build"
	emit_fail vm-pair "not run: modules or QEMU failed to build"
else
	iommu=()
	[ "${VM_IOMMU:-1}" = 1 ] && iommu=(--iommu)
	# about 360 s on a quiet host, 700 s on a loaded one
	step vm-single tools/vm/run-vm.sh "${iommu[@]}" -t 1500 -o build/vm/check-single single
	# RDMA over cables that lose, reorder, duplicate and corrupt frames
	# with a small flow-control-xoff the ports pause each other all along;
	# the headers of every frame are captured, the firmware traced and
	# every port's inputs recorded and replayed on the host; all of it
	# kept, with the run's timeline, if the run fails
	VM_ORDMA_PROPS=flow-control-xoff=16 \
	step vm-impair tools/vm/run-vm.sh --pcap-failed --fwtrace-failed \
		--record-failed --record-max-mb 2048 --wire "loss=1%,reorder=0.5%,dup=0.5%,corrupt=0.5%,seed=12" \
		-T wire_impair -o build/vm/check-impair single
	# the NICs boot a signed firmware image of this tree from their flash
	# (version 1.1.0, development key) and run the verbs data path on it;
	# devlink flashes, activates and rolls back images (1.2.0, a 1.3.0
	# whose self-test fails, bad ones) and goes back to 1.1.0
	step vm-image sh -c "$MAKE -s fw-image FW_VERSION=1.1.0 FW_BUILD=2 >/dev/null &&
		tools/fw/test-images.sh build/fw/test-images >/dev/null &&
		tools/vm/run-vm.sh --fw-image build/fw/ordma-fw-1.1.0.img \
		-T 'fw_image fw_flash' -o build/vm/check-image single"
	# the NICs configured InfiniBand: no netdev, the subnet management
	# agent through the MAD layer (ibstat, smpquery), opensm on the wire
	step vm-ib tools/vm/run-vm.sh --link ib -T ib_port -o build/vm/check-ib single
	# two VMs as an InfiniBand fabric (opensm in VM A): the verbs tools
	# by LID, the RDMA CM and the storage protocols over IPoIB
	step vm-ib-pair tools/vm/run-vm.sh --link ib -t 1800 -T "verbs_pair storage_pair" \
		-o build/vm/check-ib-pair pair
	# NIC 1 switched to iWARP with devlink (enable_roce/enable_iwarp): an
	# iWARP device that refuses what iWARP lacks, then back to RoCE; its
	# cables captured and every MPA connection dissected by tshark
	step vm-iwarp tools/vm/run-vm.sh --pcap -T iwarp_select -o build/vm/check-iwarp single
	# no tenant starves another with RNR NAKs: bandwidth alone and beside
	# an RNR hog, in a VM of its own
	step vm-fair tools/vm/run-vm.sh -T rnr_fair -o build/vm/check-fair single
	# the memory map changes under traffic (Bus Master Enable behind
	# the IOMMU), a port is unplugged, a pair VM quits, all mid-traffic
	step vm-bus tools/vm/run-vm.sh --iommu --host-requests -T "bus_master device_del" \
		-o build/vm/check-bus single
	step vm-quit tools/vm/run-vm.sh --host-requests -T quit_pair -o build/vm/check-quit pair
	# the kernel's storage protocols (NVMe-oF with a target NIC
	# recovery, NFS, iSER; fio crc32c) between two VMs over cables that
	# lose, reorder, duplicate and corrupt frames
	step vm-storage-impair tools/vm/run-vm.sh \
		--wire "loss=1%,reorder=0.5%,dup=0.5%,corrupt=0.5%,seed=5" \
		-T storage_pair -o build/vm/check-storage-impair pair
	# on such cables, in VMs of their own (what storage_pair leaves
	# behind cannot hold it up), VM A's NIC on iWARP against siw in VM
	# B: rdma_cm set-up, rping, perftest -R and NVMe-oF both ways
	step vm-iwarp-pair tools/vm/run-vm.sh \
		--wire "loss=1%,reorder=0.5%,dup=0.5%,corrupt=0.5%,seed=5" \
		-T iwarp_pair -o build/vm/check-iwarp-pair pair
	# six test programs back to back, applications and storage included
	step vm-pair tools/vm/run-vm.sh -t 1800 -o build/vm/check-pair pair
fi

steps_finish
