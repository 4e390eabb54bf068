#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# fetch-lwip.sh DEST: lwIP 2.1.3, the TCP/IP stack of the firmware's TCP
# offload (firmware/tcp/), from Debian's source package, unpacked in DEST
# (its src/ tree and COPYING).  Documentation/ordma/iwarp-design.rst says
# why lwIP and why it is fetched rather than kept in the tree.
#
# The upstream tarball is fetched once into ${ORDMA_CACHE}/lwip/ with
# `apt-get source --download-only` (needs deb-src entries: run
# tools/host-deps.sh) and checked against the SHA-256 pinned here.
# Debian's patches are not applied: they change only the sockets and
# netconn APIs, PPP and the CMake build, none of which is built.
# DEST/.done marks a complete unpack; an existing one is kept.
set -euo pipefail

LWIP_DEB_VERSION=2.1.3+dfsg1-2
LWIP_TARBALL_NAME=lwip_2.1.3+dfsg1.orig.tar.xz
LWIP_TARBALL_SHA256=0a8276d09fc4e97bbba2f953d74af2388fc2195ea156be9d7589e297a68fde24
LWIP_TOPDIR=lwip-2.1.3

REPO=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${ORDMA_CACHE:-/var/cache/ordma}/lwip
TARBALL=$CACHE/$LWIP_TARBALL_NAME

die() { echo "fetch-lwip: $*" >&2; exit 1; }

[ $# -eq 1 ] || die "usage: fetch-lwip.sh DEST"
DEST=$1
[ -f "$DEST/.done" ] && exit 0

mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"
flock 9
if [ ! -f "$TARBALL" ]; then
	fetch() {
		(cd "$CACHE" && apt-get source -q --download-only \
			"lwip=$LWIP_DEB_VERSION") >&2
	}
	if ! fetch; then
		echo "fetch-lwip: no source package, running tools/host-deps.sh" >&2
		"$REPO/tools/host-deps.sh" >&2
		fetch || true
	fi
	[ -f "$TARBALL" ] || die "could not fetch $LWIP_TARBALL_NAME (deb-src entries?)"
fi
echo "$LWIP_TARBALL_SHA256  $TARBALL" | sha256sum --quiet -c - >&2 ||
	die "$TARBALL does not match the pinned sha256"

mkdir -p "$(dirname "$DEST")"
STAGE=$(mktemp -d "${DEST%/}.stage.XXXXXX")
trap 'rm -rf "$STAGE"' EXIT
tar -xJf "$TARBALL" -C "$STAGE" "$LWIP_TOPDIR/src" "$LWIP_TOPDIR/COPYING"
rm -rf "$DEST"
mv "$STAGE/$LWIP_TOPDIR" "$DEST"
touch "$DEST/.done"
