#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Install the Debian packages the ORDMA build and test flow needs on a
# Debian 12 host.  Idempotent: does nothing when everything is present.
set -euo pipefail

PKGS="build-essential gcc make perl python3 dpkg-dev ccache
      ninja-build meson pkg-config
      libglib2.0-dev libpixman-1-dev zlib1g-dev libfdt-dev libslirp-dev libcap-ng-dev
      seabios ipxe-qemu qemu-system-data
      busybox-static cpio xz-utils gzip kmod iproute2 pciutils dwarves bc
      rdma-core ibverbs-utils ibverbs-providers libibverbs-dev perftest rdmacm-utils
      devlink-tools ethtool tshark sparse
      cmake cython3 python3-dev libnl-3-dev libnl-route-3-dev libudev-dev"

# devlink lives in iproute2 on bookworm; tshark needs a debconf answer.
PKGS=${PKGS/devlink-tools /}

need_src=0
grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ || need_src=1

missing=$(for p in $PKGS; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' || echo "$p"
done)

if [ "$need_src" = 1 ]; then
	cat > /etc/apt/sources.list.d/ordma-src.sources <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
fi

if [ "$need_src" = 1 ] || [ -n "$missing" ]; then
	apt-get -q update
fi
if [ -n "$missing" ]; then
	echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 \
		install -y -q --no-install-recommends $missing
fi
