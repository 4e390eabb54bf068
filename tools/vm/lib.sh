# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# shellcheck shell=bash
#
# Helpers shared by the host-side VM tools.  Sourced, not executed.

ORDMA_CACHE=${ORDMA_CACHE:-/var/cache/ordma}
VM_TOOLS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ORDMA_REPO=$(cd "$VM_TOOLS/../.." && pwd)
KABI=${KABI:-6.12.117+deb12}
KVER=$KABI-amd64
KIMAGE=$ORDMA_CACHE/kernel/$KVER/image
QEMU_SRC_BIN=$ORDMA_CACHE/qemu/src/qemu-7.2+dfsg/build/qemu-system-x86_64

vm_log() { printf '[vm %s] %s\n' "$(date +%T)" "$*" >&2; }
vm_die() { vm_log "error: $*"; exit 1; }

# Content hash of files (names do not count, order does).
vm_hash_files() {
	local f
	for f in "$@"; do
		sha256sum <"$f"
	done | sha256sum | cut -c1-16
}

# Make sure the kernel image is unpacked; prints nothing.
vm_need_kernel() {
	[ -f "$KIMAGE/.done" ] && return 0
	"$VM_TOOLS/fetch-kernel.sh" >/dev/null
}

# Locate qemu-system-x86_64: $QEMU, then tools/qemu/build-qemu.sh (which
# caches its build), then the plain build tree, then $PATH.  With
# "any" as $1 a failing build-qemu.sh falls back to the others.
vm_find_qemu() {
	if [ -n "${QEMU:-}" ]; then
		echo "$QEMU"
		return 0
	fi
	if [ -x "$ORDMA_REPO/tools/qemu/build-qemu.sh" ]; then
		local q
		if q=$("$ORDMA_REPO/tools/qemu/build-qemu.sh" | tail -n 1) && [ -x "$q" ]; then
			echo "$q"
			return 0
		fi
		[ "${1:-}" = any ] || vm_die "tools/qemu/build-qemu.sh failed"
		vm_log "warning: tools/qemu/build-qemu.sh failed; using another QEMU"
	fi
	if [ -x "$QEMU_SRC_BIN" ]; then
		echo "$QEMU_SRC_BIN"
		return 0
	fi
	command -v qemu-system-x86_64 || vm_die "no qemu-system-x86_64 found"
}

# Firmware search path for a QEMU run from its build tree.
vm_qemu_datadirs() {
	local d
	for d in /usr/share/seabios /usr/lib/ipxe/qemu /usr/share/qemu; do
		[ -d "$d" ] && printf -- '-L\n%s\n' "$d"
	done
}

vm_qemu_has_device() {
	"$1" -device help 2>/dev/null | grep -q "^name \"$2\""
}

# Print N distinct free UDP ports on 127.0.0.1, one per line.  The sockets
# are held open together so that the kernel hands out distinct ports.
vm_free_udp_ports() {
	python3 - "$1" <<'PY'
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    socks.append(s)
for s in socks:
    print(s.getsockname()[1])
PY
}

# Directory of the userspace provider build (contains lib/), or nothing.
vm_provider_dir() {
	if [ -n "${ORDMA_PROVIDER_DIR:-}" ]; then
		echo "$ORDMA_PROVIDER_DIR"
		return 0
	fi
	[ -x "$ORDMA_REPO/tools/provider/build.sh" ] || return 0
	local d
	d=$("$ORDMA_REPO/tools/provider/build.sh" 2>>"${1:-/dev/null}" | tail -n 1) || {
		vm_log "warning: tools/provider/build.sh failed; running without the provider"
		return 0
	}
	[ -d "$d/lib" ] && echo "$d"
	return 0
}
