#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# make soak: the longer variants of make check's fault, recovery and
# race checks, for a machine that has an hour or more to spare.  Builds
# what make check builds (from the caches when they are warm), then:
#
#   qtest-soak    the engine/vCPU race checks of the qtest, SOAK_QTEST_ROUNDS
#                 rounds (25): floods while the memory map changes, IOMMU
#                 faults, held MSI-X, flow control, host fault injection
#   recovery      SOAK_RECOVERY_REPEATS (100) firmware fatal errors in a
#                 row under traffic, each recovered; reload, FLR, rping
#   fault-inject  the device faults injected from the driver, again
#   impair-SEED   ib_write_bw SOAK_IMPAIR_ITERATIONS (5000) x 64 KiB and
#                 rping -V over cables that lose, reorder, duplicate and
#                 corrupt frames, once per seed of SOAK_SEEDS ("1 2 3")
#   storage       NVMe-oF (with a target NIC recovery), NFS and iSER
#                 between two VMs over an impaired cable, fio crc32c
#                 verified SOAK_FIO_LOOPS (8) times each
#
# Output as make check's: build/soak/<step>.log, TAP numbered across the
# steps, and the last line "N passed, N failed, N skipped".  About 75
# minutes on two quiet cores with the defaults.
set -uo pipefail

REPO=$(cd "$(dirname "$0")/../.." && pwd)
cd "$REPO" || exit 1
OUT=$REPO/build/soak
rm -rf "$OUT"
mkdir -p "$OUT"
MAKE=${MAKE:-make}
ROUNDS=${SOAK_QTEST_ROUNDS:-25}
REPEATS=${SOAK_RECOVERY_REPEATS:-100}
ITERATIONS=${SOAK_IMPAIR_ITERATIONS:-5000}
SEEDS=${SOAK_SEEDS:-1 2 3}
FIO_LOOPS=${SOAK_FIO_LOOPS:-8}
IMPAIRED=loss=1%,reorder=0.5%,dup=0.5%,corrupt=0.5%

# shellcheck source=tools/check/steps.sh
. "$REPO/tools/check/steps.sh"

step deps tools/host-deps.sh
step kernel tools/vm/fetch-kernel.sh
step modules "$MAKE" modules
step diag "$MAKE" diag
step qemu "$MAKE" qemu
step provider "$MAKE" provider
if [ -n "${STEP_FAILED[modules]:-}${STEP_FAILED[qemu]:-}${STEP_FAILED[provider]:-}" ]; then
	emit_fail soak "not run: the modules, QEMU or the provider did not build"
	steps_finish
	exit
fi
qemu_bin=$(tail -n 1 "$OUT/qemu.log")

step qtest-soak tools/qemu/qtest-soak.py --rounds "$ROUNDS" "$qemu_bin"
step recovery tools/vm/run-vm.sh -t $((900 + REPEATS * 30)) \
	-e ORDMA_RECOVERY_REPEATS="$REPEATS" -e ORDMA_SELFTEST_TIMEOUT=$((450 + REPEATS * 20)) \
	-T recovery -o build/vm/soak-recovery single
step fault-inject tools/vm/run-vm.sh -T fault_inject -o build/vm/soak-fault single
for seed in $SEEDS; do
	step "impair-$seed" tools/vm/run-vm.sh -t $((900 + ITERATIONS / 5)) \
		-e ORDMA_IMPAIR_ITERATIONS="$ITERATIONS" \
		-e ORDMA_TOOL_TIMEOUT=$((180 + ITERATIONS / 10)) \
		-e ORDMA_SELFTEST_TIMEOUT=$((450 + ITERATIONS / 5)) --wire "$IMPAIRED,seed=$seed" \
		-T wire_impair -o "build/vm/soak-impair-$seed" single
done
step storage tools/vm/run-vm.sh -t $((1200 + FIO_LOOPS * 300)) \
	-e ORDMA_FIO_LOOPS="$FIO_LOOPS" -e ORDMA_SELFTEST_TIMEOUT=$((900 + FIO_LOOPS * 240)) --wire "$IMPAIRED,seed=5" \
	-T storage_pair -o build/vm/soak-storage pair
steps_finish
