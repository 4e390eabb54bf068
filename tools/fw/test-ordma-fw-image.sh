#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# ordma-fw-image as a release engineer uses it: a new key, a payload
# signed into an image that verifies, images that must not verify (a
# tampered copy, another key, another board, another entry table or
# interface) refused with the reason, and a flash file of two images
# read back.  Everything happens in a temporary directory.
#
# Usage: test-ordma-fw-image.sh [ORDMA_FW_IMAGE]   (prints TAP; the
# default tool is build/bin/ordma-fw-image)
set -uo pipefail

REPO=$(cd "$(dirname "$0")/../.." && pwd)
TOOL=${1:-$REPO/build/bin/ordma-fw-image}
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
n=0
fails=0
result() { # result OK NAME [DIAG]
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		fails=$((fails + 1))
		# shellcheck disable=SC2001 # every line of a multi-line text
		[ -n "${3:-}" ] && sed 's/^/# /' <<<"$3"
	fi
}

# run NAME CMD...: CMD exits 0
run() {
	local name=$1 out
	shift
	out=$("$@" 2>&1)
	result $? "$name" "$out"
}

# refused NAME MESSAGE CMD...: CMD exits 1 and says MESSAGE on stderr
refused() {
	local name=$1 msg=$2 rc err
	shift 2
	"$@" >"$DIR/out" 2>"$DIR/err"
	rc=$?
	err=$(cat "$DIR/err")
	[ "$rc" = 1 ] && grep -qF -- "$msg" "$DIR/err"
	result $? "$name" "exit status $rc, stderr: $err"
}

# field FILE NAME: the value of the line "NAME value" of FILE
field() { sed -n "s/^$2 //p" "$1"; }

if [ ! -x "$TOOL" ]; then
	echo "not ok 1 - $TOOL is built"
	echo "0 passed, 1 failed"
	exit 1
fi

# ---------------------------------------------------------------- keys
run "keygen writes a key pair" "$TOOL" keygen -o "$DIR/k"
mode=$(stat -c %a "$DIR/k.key" 2>&1)
[ "$mode" = 600 ]
result $? "the secret key is private (mode 0600)" "mode $mode"
key_ok=1
grep -qxE '[0-9a-f]{128}' "$DIR/k.key" && [ "$(wc -c <"$DIR/k.key")" = 129 ] &&
	grep -qxE '[0-9a-f]{64}' "$DIR/k.pub" && [ "$(wc -c <"$DIR/k.pub")" = 65 ] &&
	key_ok=0
result $key_ok "the keys are 128 and 64 hex digits and a newline"
# the public key is the second half of the secret key
[ "$(cut -c65-128 "$DIR/k.key")" = "$(cat "$DIR/k.pub")" ]
result $? "the public key is the secret key's public half"
refused "keygen refuses to overwrite a key" "File exists" \
	"$TOOL" keygen -o "$DIR/k"
run "keygen writes a second key pair" "$TOOL" keygen -o "$DIR/other"

# ---------------------------------------------------------------- sign
head -c 5000 /dev/urandom >"$DIR/payload"
run "sign makes an image" "$TOOL" sign -k "$DIR/k.key" -o "$DIR/img" \
	-v 2.5.7 -b 1234 "$DIR/payload"
size=$(stat -c %s "$DIR/img" 2>/dev/null)
[ "$size" = $((128 + 5000 + 64)) ]
result $? "the image is header, payload and signature" "size $size"
cmp -s <(tail -c +129 "$DIR/img" | head -c 5000) "$DIR/payload"
result $? "the payload follows the 128-byte header"

"$TOOL" info "$DIR/img" >"$DIR/info" 2>&1
result $? "info reads the image" "$(cat "$DIR/info")"
info_ok=1
[ "$(field "$DIR/info" fw_version)" = 2.5.7 ] &&
	[ "$(field "$DIR/info" fw_build)" = 1234 ] &&
	[ "$(field "$DIR/info" board_id)" = ORDMA-RNIC-V1 ] &&
	[ "$(field "$DIR/info" payload_size)" = 5000 ] &&
	[ "$(field "$DIR/info" image_size)" = "$size" ] &&
	[ "$(field "$DIR/info" sig_type)" = ed25519 ] &&
	[ "$(field "$DIR/info" key_id)" = "$(head -c 16 "$DIR/k.pub")" ] &&
	info_ok=0
result $info_ok "info prints the version, build, board, sizes and key id" \
	"$(cat "$DIR/info")"

out=$("$TOOL" verify -p "$DIR/k.pub" "$DIR/img" 2>&1)
[ "$out" = ok ]
result $? "verify accepts the image" "$out"

# ---------------------------------------------------------------- refused
cp "$DIR/img" "$DIR/tampered"
printf '\x5a' | dd of="$DIR/tampered" bs=1 seek=2000 conv=notrunc status=none
refused "a tampered payload does not verify" "signature does not verify" \
	"$TOOL" verify -p "$DIR/k.pub" "$DIR/tampered"
cp "$DIR/img" "$DIR/tampered"
printf '\x09' | dd of="$DIR/tampered" bs=1 seek=33 conv=notrunc status=none
refused "a tampered header does not verify" "signature does not verify" \
	"$TOOL" verify -p "$DIR/k.pub" "$DIR/tampered"
head -c $((size - 1)) "$DIR/img" >"$DIR/short"
refused "a truncated image is refused" "image is truncated" \
	"$TOOL" verify -p "$DIR/k.pub" "$DIR/short"
refused "info refuses a truncated image" "image is truncated" \
	"$TOOL" info "$DIR/short"
refused "another key does not verify" "signed with an unknown key" \
	"$TOOL" verify -p "$DIR/other.pub" "$DIR/img"

run "sign makes an image for another board" "$TOOL" sign -k "$DIR/k.key" \
	-B ORDMA-RNIC-V9 -o "$DIR/board" "$DIR/payload"
refused "an image for another board is refused" "image is for another board" \
	"$TOOL" verify -p "$DIR/k.pub" "$DIR/board"
out=$("$TOOL" verify -p "$DIR/k.pub" -B ORDMA-RNIC-V9 "$DIR/board" 2>&1)
[ "$out" = ok ]
result $? "it verifies for its own board" "$out"
out=$("$TOOL" verify -p "$DIR/k.pub" --any-board "$DIR/board" 2>&1)
[ "$out" = ok ]
result $? "it verifies for any board" "$out"

run "sign makes an image of a newer entry table minor" "$TOOL" sign \
	-k "$DIR/k.key" --abi 1.1 -o "$DIR/abi" "$DIR/payload"
run "an image of a newer entry table minor verifies (a minor only appends)" \
	"$TOOL" verify -p "$DIR/k.pub" "$DIR/abi"
run "sign makes an image of another entry table major" "$TOOL" sign \
	-k "$DIR/k.key" --abi 2.0 -o "$DIR/abi2" "$DIR/payload"
refused "an image of another entry table major is refused" "entry table" \
	"$TOOL" verify -p "$DIR/k.pub" "$DIR/abi2"
run "sign makes an image of another interface" "$TOOL" sign \
	-k "$DIR/k.key" --interface 2.0 -o "$DIR/if" "$DIR/payload"
refused "an image of another interface major is refused" "interface" \
	"$TOOL" verify -p "$DIR/k.pub" "$DIR/if"

refused "sign refuses a malformed version" "bad version" \
	"$TOOL" sign -k "$DIR/k.key" -v 1.2 -o "$DIR/x" "$DIR/payload"
refused "sign refuses a board id of 32 characters" "longer than" \
	"$TOOL" sign -k "$DIR/k.key" -B "$(printf 'B%.0s' {1..32})" \
	-o "$DIR/x" "$DIR/payload"
head -c 64 "$DIR/k.key" >"$DIR/bad.key"
refused "sign refuses a damaged key" "not a key" \
	"$TOOL" sign -k "$DIR/bad.key" -o "$DIR/x" "$DIR/payload"
refused "verify refuses a missing image" "No such file" \
	"$TOOL" verify -p "$DIR/k.pub" "$DIR/missing"

# ---------------------------------------------------------------- flash
run "flash writes a flash of two images" "$TOOL" flash -o "$DIR/flash" \
	"$DIR/img" "$DIR/board"
fsize=$(stat -c %s "$DIR/flash" 2>/dev/null)
[ "$fsize" = $((4096 + 2 * 4 * 1024 * 1024)) ]
result $? "the default slots are 4 MiB" "size $fsize"
"$TOOL" flash-info "$DIR/flash" >"$DIR/finfo" 2>&1
result $? "flash-info reads it" "$(cat "$DIR/finfo")"
finfo_ok=1
[ "$(field "$DIR/finfo" slot_size)" = 4194304 ] &&
	[ "$(field "$DIR/finfo" active)" = 0 ] &&
	[ "$(field "$DIR/finfo" pending)" = none ] &&
	field "$DIR/finfo" slot0 | grep -q "^version 2\.5\.7 build 1234 board ORDMA-RNIC-V1 size $size$" &&
	field "$DIR/finfo" slot1 | grep -q "^version 1\.0\.0 build 1 board ORDMA-RNIC-V9 " &&
	finfo_ok=0
result $finfo_ok "flash-info shows the header and each slot's image" \
	"$(cat "$DIR/finfo")"
cmp -s <(tail -c +4097 "$DIR/flash" | head -c "$size") "$DIR/img"
result $? "slot 0 holds the first image"

run "flash writes one image with a given slot size" "$TOOL" flash \
	--slot-size 8192 -o "$DIR/flash1" "$DIR/img"
"$TOOL" flash-info "$DIR/flash1" >"$DIR/finfo1" 2>&1
[ "$(field "$DIR/finfo1" slot_size)" = 8192 ] &&
	[ "$(field "$DIR/finfo1" slot1)" = empty ]
result $? "its second slot is empty" "$(cat "$DIR/finfo1")"
refused "flash refuses a slot smaller than the image" "smaller than" \
	"$TOOL" flash --slot-size 4096 -o "$DIR/x" "$DIR/img"
refused "flash refuses a slot size not a multiple of 4096" "bad slot size" \
	"$TOOL" flash --slot-size 10000 -o "$DIR/x" "$DIR/img"
refused "flash refuses what is not an image" "bad magic" \
	"$TOOL" flash -o "$DIR/x" "$DIR/payload"
head -c 10000 "$DIR/flash1" >"$DIR/flash-short"
refused "flash-info refuses a truncated flash" "flash is truncated" \
	"$TOOL" flash-info "$DIR/flash-short"

echo "$((n - fails)) passed, $fails failed"
[ "$fails" = 0 ]
