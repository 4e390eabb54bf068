#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Build the guest's /lib/modules/$KVER: a hard-linked copy of the Debian
# kernel's module tree with this repository's modules added under
# updates/ordma/ and depmod run over the result, so that modprobe and
# udev's modalias autoload find them.  Linux's soft-iWARP driver, which
# Debian's kernel lacks, goes under updates/siw/ (tools/vm/build-siw.sh
# builds it, once per source and kernel; ORDMA_SIW=0 leaves it out, and a
# failed build only warns: the tree is made without it).  Cached under
# $ORDMA_CACHE/vm/ by the hash of the modules; prints the tree's path on
# the last line of stdout.
#
# Usage: build-modtree.sh [MODULE.ko...]   (default: every .ko under drivers/)
set -euo pipefail
# shellcheck source=tools/vm/lib.sh
. "$(dirname "$0")/lib.sh"

vm_need_kernel
if [ $# -gt 0 ]; then
	kos=("$@")
else
	mapfile -t kos < <(find "$ORDMA_REPO/drivers" -name '*.ko' 2>/dev/null | LC_ALL=C sort)
fi
siw=()
if [ "${ORDMA_SIW:-1}" != 0 ]; then
	if ko=$("$VM_TOOLS/build-siw.sh" | tail -n 1) && [ -f "$ko" ]; then
		siw=("$ko")
	else
		vm_log "warning: siw.ko did not build; the guest has no siw"
	fi
fi

names=()
for ko in "${kos[@]}"; do
	[ -f "$ko" ] || vm_die "no such module: $ko"
	names+=("$(basename "$ko")")
done
[ ${#siw[@]} -gt 0 ] && names+=(siw/siw.ko)
key=$(printf '%s\n' "$KVER" "${names[@]}" | sha256sum | cut -c1-8)
[ ${#kos[@]} -gt 0 ] || [ ${#siw[@]} -gt 0 ] &&
	key=$key-$(vm_hash_files "${kos[@]}" "${siw[@]}")
base=$ORDMA_CACHE/vm/modtree-$key
tree=$base/lib/modules/$KVER
if [ -f "$base/.done" ]; then
	touch "$base/.done"
	echo "$tree"
	exit 0
fi

mkdir -p "$ORDMA_CACHE/vm"
rm -rf "$base"
mkdir -p "$base/lib/modules"
# Hard links keep this cheap; the index files are regenerated below, so
# drop the links to the image's copies before depmod writes new ones.
cp -al "$KIMAGE/lib/modules/$KVER" "$tree" 2>/dev/null ||
	cp -a "$KIMAGE/lib/modules/$KVER" "$tree"
find "$tree" -maxdepth 1 -name 'modules.*' ! -name 'modules.builtin' \
	! -name 'modules.builtin.modinfo' ! -name 'modules.order' -delete
if [ ${#kos[@]} -gt 0 ]; then
	mkdir -p "$tree/updates/ordma"
	cp "${kos[@]}" "$tree/updates/ordma/"
fi
if [ ${#siw[@]} -gt 0 ]; then
	mkdir -p "$tree/updates/siw"
	cp "${siw[@]}" "$tree/updates/siw/"
fi
depmod -b "$base" "$KVER"
touch "$base/.done"

# Keep the five most recently used trees.
ls -1dt "$ORDMA_CACHE"/vm/modtree-* 2>/dev/null | tail -n +6 | xargs -r rm -rf
vm_log "built $tree (${names[*]:-no extra modules})"
echo "$tree"
