#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# make demo: build what is needed, boot one VM with two ORDMA NICs cabled
# to each other (no udev: the drivers are loaded with modprobe) and run
# tools/vm/demo-guest.sh in it, its console on this terminal.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
cd "$REPO"

say() { printf '\n== %s\n' "$*"; }
say "host packages"
tools/host-deps.sh
say "kernel modules"
make -s modules
make -s diag
say "QEMU with the ORDMA device"
make -s qemu | tail -n 1
if [ -x tools/provider/build.sh ]; then
	say "libibverbs provider"
	tools/provider/build.sh | tail -n 1
fi
say "booting the VM (TCG: about a minute)"
tools/vm/run-vm.sh -V --no-udev -t "${VM_TIMEOUT:-600}" -o build/vm/demo \
	-c "$REPO/tools/vm/demo-guest.sh" single
