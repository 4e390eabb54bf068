#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Install the Debian packages the ORDMA build and test flow needs on a
# Debian 12 host (as root).  Idempotent: with everything present it only
# checks.  Otherwise it adds the deb-src entries the source downloads
# need (QEMU 7.2 from bookworm, rdma-core 56.1 from trixie), runs
# apt-get update and installs what is missing.
set -euo pipefail

# Toolchain and kernel modules (pahole for module BTF, sparse for lint)
PKGS="build-essential gcc make perl python3 dpkg-dev ccache bc git
      dwarves libelf-dev sparse kmod xz-utils"
# QEMU 7.2 build and run time
PKGS+=" ninja-build meson pkg-config libglib2.0-dev libpixman-1-dev zlib1g-dev
       libfdt-dev libslirp-dev libcap-ng-dev libattr1-dev
       seabios ipxe-qemu qemu-system-data"
# The test VM: initramfs, udev inside the guest, the tools the tests run
PKGS+=" busybox-static cpio gzip udev procps iproute2 iputils-ping pciutils
       ethtool jq"
# RDMA userspace (Debian's) and the provider build in rdma-core 56.1
PKGS+=" rdma-core ibverbs-utils ibverbs-providers libibverbs-dev librdmacm-dev perftest
       rdmacm-utils cmake cython3 python3-dev libnl-3-dev libnl-route-3-dev
       libudev-dev tshark"
# InfiniBand ports: the subnet manager and the diagnostics that ask it
PKGS+=" opensm infiniband-diags"
# storage over RDMA in the pair VMs: NVMe-oF host tools, fio, NFS server and client
PKGS+=" nvme-cli fio nfs-kernel-server"
# iSER: the LIO target's shell (asks the system bus, so dbus) and open-iscsi
PKGS+=" targetcli-fb dbus open-iscsi"
# Applications across the pair VMs: UCX's perftest, Open MPI with mpicc
PKGS+=" ucx-utils openmpi-bin libopenmpi-dev"
# tools/bench: the TCP figure, the plot
PKGS+=" iperf3 python3-matplotlib"
# the firmware's libFuzzer harnesses (clang's fuzzer runtime is only recommended)
PKGS+=" clang libclang-rt-14-dev"
# Ed25519 of the firmware images: the image library and ordma-fw-image
PKGS+=" libsodium-dev"
# make lint renders the documentation
PKGS+=" python3-docutils"
# make deb: the Debian packages (debian/), DKMS for ordma-dkms (the test
# VM installs them too), lintian on the results
PKGS+=" debhelper dh-dkms dkms lintian"

SRC_LIST=/etc/apt/sources.list.d/ordma-src.sources

need_src=0
grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ ||
	grep -qs '^deb-src' /etc/apt/sources.list || need_src=1

missing=$(for p in $PKGS; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' || echo "$p"
done)

if [ "$need_src" = 1 ]; then
	cat >"$SRC_LIST" <<'SRC'
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
	echo "host-deps: apt-get update" >&2
	apt-get -q update
fi
if [ -n "$missing" ]; then
	echo "host-deps: installing" $missing >&2
	# tshark asks whether non-root users may capture; they may not.
	echo "wireshark-common wireshark-common/install-setuid boolean false" |
		debconf-set-selections
	# shellcheck disable=SC2086 # one word per package
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 \
		install -y -q --no-install-recommends $missing
fi
echo "host-deps: all $(echo $PKGS | wc -w) packages present"
