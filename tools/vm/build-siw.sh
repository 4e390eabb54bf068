#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Build Linux's soft-iWARP driver (siw.ko), the iWARP peer of the test
# VMs.  Debian's 6.12 kernel is configured without it (CONFIG_RDMA_SIW
# is not set), so it is built out of tree from drivers/infiniband/sw/siw
# of Debian's linux-source-6.12 package of the same version as the
# kernel image, against the cached kernel headers, with CONFIG_RDMA_SIW=m
# given to kbuild (the headers' .config and autoconf.h stay untouched;
# everything siw depends on is =m or =y there).  Like the ORDMA modules
# it is unsigned: the kernel loads it, tainted.
#
# The patches in tools/vm/siw-patches/ (*.patch, in name order, each
# saying what it fixes and why in its header) are applied with patch -p1
# to a copy of the sources, paths relative to the kernel tree's top.
#
# Cache ($ORDMA_CACHE/siw):
#   src-VERSION/   the siw sources of linux-source-6.12=VERSION, unpatched
#   KEY/siw.ko     the build; KEY hashes the siw sources, the patches, the
#                  kernel release and headers package version, the
#                  compiler and this script.  KEY/build.log is kbuild's
#                  output, after patch's.
# Prints the path of siw.ko on the last line of stdout.
set -euo pipefail
# shellcheck source=tools/vm/lib.sh
. "$(dirname "$0")/lib.sh"

SIW=drivers/infiniband/sw/siw
PATCHES=$VM_TOOLS/siw-patches
D=$ORDMA_CACHE/siw
KDIR=$("$VM_TOOLS/fetch-kernel.sh" | tail -n 1)
KDEBS=$ORDMA_CACHE/kernel/$KVER/debs

# The package version of the cached headers (6.12.117-1~deb12u1): the
# sources must be of the same version.
hdeb=("$KDEBS/linux-headers-${KVER}_"*_amd64.deb)
[ -f "${hdeb[0]}" ] || vm_die "no linux-headers-$KVER package in $KDEBS"
KPKGVER=$(dpkg-deb -f "${hdeb[0]}" Version)

mkdir -p "$D"
exec 9>"$D/.lock"
flock 9

src=$D/src-$KPKGVER
if [ ! -f "$src/.done" ]; then
	srcdeb=$ORDMA_CACHE/linux-source/linux-source-6.12_${KPKGVER}_all.deb
	if [ ! -s "$srcdeb" ]; then
		mkdir -p "$(dirname "$srcdeb")"
		(cd "$(dirname "$srcdeb")" &&
			apt-get download -q "linux-source-6.12=$KPKGVER" >&2) || {
			apt-get -q update >&2
			(cd "$(dirname "$srcdeb")" &&
				apt-get download -q "linux-source-6.12=$KPKGVER" >&2)
		}
	fi
	vm_log "unpacking $SIW of linux-source-6.12 $KPKGVER"
	rm -rf "$src"
	mkdir -p "$src"
	dpkg-deb --fsys-tarfile "$srcdeb" |
		tar -xO ./usr/src/linux-source-6.12.tar.xz |
		tar -xJ -C "$src" --strip-components=1 "linux-source-6.12/$SIW"
	[ -f "$src/$SIW/Makefile" ] || vm_die "no $SIW in $srcdeb"
	touch "$src/.done"
fi

mapfile -t files < <(cd "$src/$SIW" && find . -type f | LC_ALL=C sort)
mapfile -t patches < <(find "$PATCHES" -maxdepth 1 -name '*.patch' 2>/dev/null |
	LC_ALL=C sort)
key=$({
	echo "$KVER $KPKGVER"
	gcc --version | head -n 1	# what kbuild runs, whatever $CC says
	sha256sum <"$0"
	for f in "${files[@]}"; do
		echo "$f $(sha256sum <"$src/$SIW/$f")"
	done
	for p in "${patches[@]}"; do
		echo "patch ${p##*/} $(sha256sum <"$p")"
	done
} | sha256sum | cut -c1-16)
out=$D/$key
if [ -f "$out/.done" ]; then
	touch "$out/.done"
	echo "$out/siw.ko"
	exit 0
fi

rm -rf "$out"
mkdir -p "$out/src/$SIW"
cp -a "$src/$SIW/." "$out/src/$SIW/"
: >"$out/build.log"
for p in "${patches[@]}"; do
	vm_log "applying ${p##*/}"
	if ! patch -p1 -N -d "$out/src" <"$p" >>"$out/build.log" 2>&1; then
		tail -n 30 "$out/build.log" >&2
		vm_die "${p##*/} does not apply to $SIW of linux-source-6.12 $KPKGVER"
	fi
done
start=$(date +%s)
vm_log "building siw.ko (linux-source-6.12 $KPKGVER, ${#patches[@]} patches, key $key)"
if ! make -C "$KDIR" M="$out/src/$SIW" CONFIG_RDMA_SIW=m -j"${JOBS:-2}" modules \
	>>"$out/build.log" 2>&1; then
	tail -n 30 "$out/build.log" >&2
	vm_die "siw.ko did not build (see $out/build.log)"
fi
mv "$out/src/$SIW/siw.ko" "$out/siw.ko"
rm -rf "$out/src"
touch "$out/.done"
vm_log "built $out/siw.ko in $(($(date +%s) - start)) s"

# Keep the three most recently used builds.
find "$D" -mindepth 2 -maxdepth 2 -regextype posix-extended \
	-regex '.*/[0-9a-f]{16}/\.done' -printf '%T@ %h\n' |
	sort -rn | tail -n +4 | cut -d' ' -f2- | xargs -r rm -rf
echo "$out/siw.ko"
