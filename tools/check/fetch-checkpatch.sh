#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Make sure the kernel's checkpatch.pl (with spelling.txt and
# const_structs.checkpatch, which it reads from its own directory) is in
# the cache, taken from Debian's linux-source-6.12 package.  Prints the
# path of checkpatch.pl on the last line of stdout.
set -euo pipefail

CACHE=${ORDMA_CACHE:-/var/cache/ordma}
D=$CACHE/linux-source
SRC=$D/linux-source-6.12
FILES="scripts/checkpatch.pl scripts/spelling.txt scripts/const_structs.checkpatch"

have_all() {
	local f
	for f in $FILES; do
		[ -s "$SRC/$f" ] || return 1
	done
}

if ! have_all; then
	mkdir -p "$D"
	tarball=$D/linux-source-6.12.tar.xz
	if [ ! -s "$tarball" ]; then
		deb=$(ls "$D"/linux-source-6.12_*_all.deb 2>/dev/null | tail -n 1 || true)
		if [ -z "$deb" ]; then
			(cd "$D" && apt-get download -q linux-source-6.12 >&2)
			deb=$(ls "$D"/linux-source-6.12_*_all.deb | tail -n 1)
		fi
		dpkg-deb --fsys-tarfile "$deb" |
			tar -xO ./usr/src/linux-source-6.12.tar.xz >"$tarball.tmp"
		mv "$tarball.tmp" "$tarball"
	fi
	members=
	for f in $FILES; do
		members+=" linux-source-6.12/$f"
	done
	# shellcheck disable=SC2086 # word splitting of the member list
	tar -xJf "$tarball" -C "$D" $members
	have_all
fi
echo "$SRC/scripts/checkpatch.pl"
