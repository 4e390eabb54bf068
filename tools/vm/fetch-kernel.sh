#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Fetch Debian's 6.12.117 kernel image, headers and kbuild packages and
# unpack them into the build cache:
#   $ORDMA_CACHE/kernel/$KVER/image    (boot/vmlinuz-$KVER, lib/modules/$KVER)
#   $ORDMA_CACHE/kernel/$KVER/headers  (usr/src/linux-headers-$KVER = KDIR)
# Prints KDIR on the last line of stdout.
set -euo pipefail

KABI=${KABI:-6.12.117+deb12}
KPKGVER=${KPKGVER:-6.12.117-1~deb12u1}
KVER=$KABI-amd64
CACHE=${ORDMA_CACHE:-/var/cache/ordma}
D=$CACHE/kernel/$KVER

mkdir -p "$D/debs"
# A machine whose package lists predate the kernel gets them refreshed once.
download() {
	(cd "$D/debs" && apt-get download -q "$1=$KPKGVER" >&2) && return 0
	[ -z "${lists_updated:-}" ] || return 1
	lists_updated=1
	apt-get -q update >&2
	(cd "$D/debs" && apt-get download -q "$1=$KPKGVER" >&2)
}
for p in linux-image-$KVER-unsigned linux-headers-$KVER linux-headers-$KABI-common linux-kbuild-$KABI; do
	ls "$D/debs/${p}_${KPKGVER}_"*.deb >/dev/null 2>&1 || download "$p"
done

if [ ! -f "$D/image/.done" ]; then
	rm -rf "$D/image"
	dpkg -x "$D/debs/linux-image-$KVER-unsigned_${KPKGVER}_amd64.deb" "$D/image"
	# The package ships no modules.dep; its postinst would run depmod.
	depmod -b "$D/image" "$KVER"
	touch "$D/image/.done"
fi

KDIR=$D/headers/usr/src/linux-headers-$KVER
if [ ! -f "$D/headers/.done" ]; then
	rm -rf "$D/headers"
	for p in linux-headers-$KVER linux-headers-$KABI-common linux-kbuild-$KABI; do
		dpkg -x "$D/debs/${p}_${KPKGVER}_"*.deb "$D/headers"
	done
	# The arch tree includes the common tree by absolute /usr/src path and
	# the kbuild scripts are symlinked there too: point both at the cache.
	sed -i "s#^include /usr/src/#include $D/headers/usr/src/#" "$KDIR/Makefile"
	for l in scripts tools; do
		t=$(readlink "$KDIR/$l" 2>/dev/null || true)
		case "$t" in
		/usr/*) ln -sfn "$D/headers$t" "$KDIR/$l" ;;
		esac
	done
	touch "$D/headers/.done"
fi
echo "$KDIR"
