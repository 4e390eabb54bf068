#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# The firmware images selftests/ordma/fw_flash.sh flashes, built from
# this tree and signed with the development key:
#   old.img     1.1.0 build 2, what `make fw-image FW_VERSION=1.1.0
#               FW_BUILD=2` makes and the NICs boot from their flash
#   new.img     1.2.0 build 3
#   stfail.img  1.3.0 build 4, whose self-test fails: the device rolls
#               it back after its activation
#   board.img   1.2.0 build 3 signed for board OTHER-BOARD
# The test makes its corrupted and truncated images itself.
# Usage: tools/fw/test-images.sh OUTDIR   (the test looks in
# build/fw/test-images unless ORDMA_FW_TEST_IMAGES says otherwise)
set -euo pipefail

if [ $# -ne 1 ]; then
	echo "usage: $0 OUTDIR" >&2
	exit 2
fi
REPO=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$1"
OUT=$(cd "$1" && pwd)
cd "$REPO"

TOOL=build/bin/ordma-fw-image
KEY=build/fw/ordma-dev.key
make -s --no-print-directory fw-image-tool
# The first image build makes the development key.
[ -f "$KEY" ] || make -s --no-print-directory fw-image FW_VERSION=1.1.0 FW_BUILD=2 >/dev/null

# image NAME VERSION BUILD [BOARD] [STFAIL]: OUT/NAME.img
image() {
	local name=$1 version=$2 build=$3 board=${4:-} stfail=${5:-} so
	local make_args=(FW_VERSION="$version" FW_BUILD="$build")
	local sign_args=(-k "$KEY" -v "$version" -b "$build")

	[ -z "$stfail" ] || make_args+=(FW_SELF_TEST_FAIL=1)
	[ -z "$board" ] || sign_args+=(-B "$board")
	so=$(make -s --no-print-directory -C firmware image-so "${make_args[@]}" | tail -n 1)
	[ -f "$so" ] || { echo "$0: no payload for $name ($so)" >&2; return 1; }
	"$TOOL" sign "${sign_args[@]}" -o "$OUT/$name.img" "$so"
	echo "$OUT/$name.img: $version build $build${board:+ board $board}${stfail:+ (self-test fails)}"
}

image old 1.1.0 2
image new 1.2.0 3
image stfail 1.3.0 4 "" 1
image board 1.2.0 3 OTHER-BOARD
