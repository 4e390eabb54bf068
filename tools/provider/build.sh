#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Build the ORDMA libibverbs provider inside rdma-core 56.1 and print, as the
# last line of stdout, a directory DIR holding a complete rdma-core 56.1
# userspace built in place (libibverbs, librdmacm, every provider including
# ordma):
#
#     DIR=$(tools/provider/build.sh | tail -n1)
#     LD_LIBRARY_PATH=$DIR/lib ibv_devinfo -v
#
# How the 56.1 libibverbs finds the provider: rdma-core is configured with
# IN_PLACE=1, so its compiled-in config directory is DIR/etc/libibverbs.d,
# which holds one "driver DIR/lib/lib<name>" line per provider; libibverbs
# dlopens DIR/lib/lib<name>-rdmav34.so from there.  LD_LIBRARY_PATH is the
# only setting needed, and any program linked against libibverbs.so.1
# (Debian's ibverbs-utils, perftest, rdmacm-utils, qperf) runs on top.
# DIR/bin holds the 56.1 tools, which find DIR/lib by RPATH.  The absolute
# paths are compiled in: DIR must not move (the test VM sees the host root
# at the same path).  Debugging the match:
#     IBV_SHOW_WARNINGS=1    "no userspace device-specific driver found"
#     VERBS_LOG_LEVEL=4 VERBS_LOG_FILE=/dev/stderr   provider messages
#     LD_DEBUG=files         which provider files get dlopened
# libibverbs loads providers only when the kernel lists at least one RDMA
# device (without ib_uverbs, ibv_devices fails with ENOSYS, as Debian's).
# The stock kernel has no ORDMA driver id (RDMA_DRIVER_UNKNOWN), so the
# provider matches PCI ID 1234:4f52 in DEVICE/modalias of the ib_device;
# ordma_ib must therefore make the PCI function the ib_device's parent (the
# auxiliary device has no modalias) and report uverbs ABI version
# ORDMA_UVERBS_ABI_VERSION.
#
# Debian's own libibverbs 44 (path b of the design): it shares provider ABI
# 34 with 56.1, so without LD_LIBRARY_PATH
#     RDMAV_DRIVERS=DIR/lib/libordma ibv_devinfo
# makes it dlopen DIR/lib/libordma-rdmav34.so ('/'-names get the
# -rdmav34.so suffix; ignored for setuid programs).  Checked on the host by
# tools/provider/host-test.sh: the provider resolves all of its symbols
# against libibverbs 44, and 44 matches a simulated ORDMA device with it
# and calls its alloc_context.  Not checked: that 44's private structures
# (verbs_context_ops, the verbs context) have 56.1's layout, i.e. that a
# context, the queries and PDs work; that needs the device.
#
# Cache: ${ORDMA_CACHE:-/var/cache/ordma}/rdma-core/56.1-<key>/{src,build},
# key = sha256 over the tarball name, the options below, this script,
# tools/provider/ordma/** and the two repo headers the provider compiles
# (include/uapi/rdma/ordma-abi.h, include/linux/ordma/ordma_io.h).  The
# inputs are snapshotted before hashing; a finished key is never rebuilt.
# Objects go through ccache (ORDMA_CACHE/ccache) with paths made relative
# to the key directory, so a new key rebuilds mostly from the cache
# (measured on 2 cores: ~35-50 s cold, ~10 s for a new key, 0.04 s cached).
# The ORDMA_PROVIDER_KEEP (4) most recent keys are kept, older ones pruned.
#
# Options (environment):
#   ORDMA_PYVERBS=1    also build pyverbs (cython3); PYTHONPATH=DIR/python
#   ORDMA_JOBS=N       ninja -j (default 2)
#
# rdma-core source: rdma-core_56.1.orig.tar.gz (sha256 pinned below) from
# Debian trixie's source package; fetched with `apt-get source
# --download-only rdma-core=56.1-1` (the .dsc 404s on the mirror; only the
# orig tarball is used).  Needs deb-src entries and the build packages,
# both set up by tools/host-deps.sh, which this script runs when something
# is missing.
set -euo pipefail

RC_VERSION=56.1
RC_DEB_VERSION=56.1-1
RC_TARBALL_NAME=rdma-core_${RC_VERSION}.orig.tar.gz
RC_TARBALL_SHA256=63ce7f2baa7242c2dbc76375dac957c420187dd27f8c5e148efc07971ee522a8

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
CACHE=${ORDMA_CACHE:-/var/cache/ordma}
RC_CACHE=$CACHE/rdma-core
TARBALL=$RC_CACHE/$RC_TARBALL_NAME
JOBS=${ORDMA_JOBS:-2}
PYVERBS=${ORDMA_PYVERBS:-0}
KEEP=${ORDMA_PROVIDER_KEEP:-4}
# Debian's interpreter (python3-dev, cython3), whatever else is on PATH
PYTHON=/usr/bin/python3

# Inputs, relative to the repo root; copied into the key's snapshot.
INPUTS=(tools/provider/build.sh tools/provider/ordma
	include/uapi/rdma/ordma-abi.h include/linux/ordma/ordma_io.h)

log() { echo "provider/build.sh: $*" >&2; }
die() { log "error: $*"; exit 1; }

have_build_deps() {
	local c
	for c in cmake ninja pkg-config gcc sha256sum flock; do
		command -v "$c" >/dev/null || return 1
	done
	[ -x "$PYTHON" ] || return 1
	pkg-config --exists libnl-3.0 libnl-route-3.0 libudev || return 1
	if [ "$PYVERBS" = 1 ]; then
		"$PYTHON" -c 'import Cython' 2>/dev/null || return 1
		[ -f "$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')/Python.h" ] || return 1
	fi
}

if ! have_build_deps; then
	log "build packages missing, running tools/host-deps.sh"
	"$REPO/tools/host-deps.sh" >&2
	have_build_deps || die "build packages still missing after tools/host-deps.sh"
fi

mkdir -p "$RC_CACHE"

# ---------------------------------------------------------------- source
if [ ! -f "$TARBALL" ]; then
	log "fetching $RC_TARBALL_NAME (Debian source package rdma-core $RC_DEB_VERSION)"
	fetch() { (cd "$RC_CACHE" && apt-get source -q --download-only "rdma-core=$RC_DEB_VERSION") >&2; }
	# The .dsc is missing on the mirror: apt fails after fetching the tarball.
	fetch || true
	if [ ! -f "$TARBALL" ]; then
		log "no source package, running tools/host-deps.sh for the deb-src entries"
		"$REPO/tools/host-deps.sh" >&2
		fetch || true
	fi
	[ -f "$TARBALL" ] || die "could not fetch $RC_TARBALL_NAME (needs a deb-src entry for trixie)"
fi
echo "$RC_TARBALL_SHA256  $TARBALL" | sha256sum --quiet -c - >&2 ||
	die "$TARBALL does not match the pinned sha256"

# ---------------------------------------------------------------- key
STAGE=$(mktemp -d "$RC_CACHE/.stage.XXXXXX")
trap 'rm -rf "$STAGE"' EXIT
(cd "$REPO" && cp -a --parents "${INPUTS[@]}" "$STAGE/")
KEY=$(
	cd "$STAGE"
	echo "tarball=$RC_TARBALL_NAME pyverbs=$PYVERBS"
	find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum
)
KEY=$(echo "$KEY" | sha256sum | cut -c1-16)
KEYDIR=$RC_CACHE/$RC_VERSION-$KEY
SRC=$KEYDIR/src
BUILD=$KEYDIR/build
DONE=$KEYDIR/.done

mkdir -p "$KEYDIR"
# A VM using a finished build holds the lock shared (tools/vm/run-vm.sh):
# finding the build needs only a shared lock; building it an exclusive one
# (after which another build of the same key may have finished it).
exec 9>"$KEYDIR/.lock"
flock -s 9
if [ ! -f "$DONE" ]; then
	flock 9
fi
if [ -f "$DONE" ]; then
	log "cached: $BUILD"
	echo "$BUILD"
	exit 0
fi

start=$(date +%s)
log "building rdma-core $RC_VERSION with the ordma provider in $KEYDIR (log: $KEYDIR/build.log)"
rm -rf "$SRC" "$BUILD"	# leftovers of an interrupted build
mkdir -p "$SRC" "$BUILD"
tar -xzf "$TARBALL" -C "$SRC" --strip-components=1

# The provider, with a snapshot of the headers it compiles against (the
# layout its CMakeLists.txt expects by default), and one line in the
# top-level CMakeLists.txt next to the other hardware providers.
cp -a "$STAGE/tools/provider/ordma" "$SRC/providers/ordma"
mkdir -p "$SRC/providers/ordma/include"
cp -a "$STAGE/include/uapi" "$STAGE/include/linux" "$SRC/providers/ordma/include/"
sed -i 's|^add_subdirectory(providers/ocrdma)$|&\nadd_subdirectory(providers/ordma)|' \
	"$SRC/CMakeLists.txt"
grep -qx 'add_subdirectory(providers/ordma)' "$SRC/CMakeLists.txt" ||
	die "could not add providers/ordma to rdma-core's CMakeLists.txt"
(cd "$STAGE" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum) \
	>"$KEYDIR/inputs.sha256"

CMAKE_ARGS=(-GNinja -DIN_PLACE=1 -DNO_MAN_PAGES=1 -DENABLE_STATIC=0
	    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPYTHON_EXECUTABLE="$PYTHON")
if [ "$PYVERBS" = 1 ]; then
	CMAKE_ARGS+=(-DNO_PYVERBS=0)
else
	CMAKE_ARGS+=(-DNO_PYVERBS=1)
fi
if command -v ccache >/dev/null; then
	CMAKE_ARGS+=(-DCMAKE_C_COMPILER_LAUNCHER=ccache
		     -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
	# Relative paths and no cwd in the hash: other keys' objects match.
	export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}
	export CCACHE_BASEDIR=$KEYDIR CCACHE_NOHASHDIR=true
fi

LOG=$KEYDIR/build.log
if ! (cd "$BUILD" && cmake "${CMAKE_ARGS[@]}" "$SRC" && ninja -j"$JOBS") >"$LOG" 2>&1; then
	tail -n 40 "$LOG" >&2
	die "rdma-core build failed, see $LOG"
fi

# The layout a VM test relies on
[ -f "$BUILD/lib/libibverbs.so.1" ] || die "no $BUILD/lib/libibverbs.so.1"
[ -f "$BUILD/lib/libordma-rdmav34.so" ] || die "no $BUILD/lib/libordma-rdmav34.so"
grep -qx "driver $BUILD/lib/libordma" "$BUILD/etc/libibverbs.d/ordma.driver" ||
	die "unexpected $BUILD/etc/libibverbs.d/ordma.driver"
if grep -q 'warning:' "$LOG"; then
	log "compiler warnings (see $LOG):"
	grep 'warning:' "$LOG" | sort -u | head -n 20 >&2
fi
touch "$DONE"
log "built in $(($(date +%s) - start)) s"

# ---------------------------------------------------------------- prune
# Keep the newest finished keys; skip any that is being built right now.
find "$RC_CACHE" -mindepth 2 -maxdepth 2 -path "$RC_CACHE/$RC_VERSION-*/.done" -printf '%T@ %h\n' |
	sort -rn | tail -n +$((KEEP + 1)) | while read -r _ old; do
	[ "$old" = "$KEYDIR" ] && continue
	if (flock -n 9 && rm -rf "$old") 9>"$old/.lock"; then
		log "pruned $old"
	fi
done

echo "$BUILD"
