#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Build the test VM's initramfs: busybox-static, tools/vm/initramfs-init.sh
# as /init and the (decompressed) modules that mounting a 9p + overlay root
# needs, taken from the cached Debian kernel image.  The archive is cached
# under $ORDMA_CACHE/vm/ by the hash of everything that goes into it.
# Prints the archive's path on the last line of stdout.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# Modules /init loads; their dependencies are added from modules.dep.
ROOT_MODULES="9pnet_virtio 9p overlay"

vm_need_kernel
moddir=$KIMAGE/lib/modules/$KVER
busybox=$(command -v busybox) || vm_die "busybox not installed (busybox-static)"
case "$(ldd "$busybox" 2>&1 || true)" in
*"not a dynamic"*) ;;
*) vm_die "$busybox is not statically linked (install busybox-static)" ;;
esac

# Dependency closure in load order: a module's dependencies come first.
declare -A seen=()
order=()
add_module() {
	local name=$1 path dep
	[ -n "${seen[$name]:-}" ] && return 0
	seen[$name]=1
	path=$(grep -E "(^|/)${name}\.ko(\.xz)?:" "$moddir/modules.dep" | cut -d: -f1) ||
		vm_die "module $name not in $moddir/modules.dep"
	for dep in $(grep -E "^$path:" "$moddir/modules.dep" | cut -d: -f2-); do
		dep=${dep##*/}
		add_module "${dep%%.ko*}"
	done
	order+=("$name:$path")
}
for m in $ROOT_MODULES; do
	add_module "$m"
done

inputs=("$0" "$VM_TOOLS/initramfs-init.sh" "$busybox")
for e in "${order[@]}"; do
	inputs+=("$moddir/${e#*:}")
done
key=$(printf '%s\n' "$KVER" "${order[@]}" | sha256sum | cut -c1-8)-$(vm_hash_files "${inputs[@]}")
out=$ORDMA_CACHE/vm/initramfs-$key.cpio.gz
if [ -f "$out" ]; then
	echo "$out"
	exit 0
fi

mkdir -p "$ORDMA_CACHE/vm"
tmp=$(mktemp -d "$ORDMA_CACHE/vm/initramfs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/root"/{bin,dev,proc,sys,modules}
cp "$busybox" "$tmp/root/bin/busybox"
# The kernel opens /dev/console for /init before devtmpfs is mounted.
mknod -m 600 "$tmp/root/dev/console" c 5 1
mknod -m 666 "$tmp/root/dev/null" c 1 3
install -m 755 "$VM_TOOLS/initramfs-init.sh" "$tmp/root/init"
for e in "${order[@]}"; do
	name=${e%%:*}
	path=$moddir/${e#*:}
	case "$path" in
	*.xz) xz -dc "$path" >"$tmp/root/modules/$name.ko" ;;
	*) cp "$path" "$tmp/root/modules/$name.ko" ;;
	esac
	echo "$name" >>"$tmp/root/modules.order"
done
(cd "$tmp/root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) |
	gzip -n -1 >"$tmp/initramfs.cpio.gz"
mv "$tmp/initramfs.cpio.gz" "$out"
# Keep the cache small: drop older archives of the same kernel.
find "$ORDMA_CACHE/vm" -maxdepth 1 -name 'initramfs-*.cpio.gz' ! -path "$out" \
	-mtime +7 -delete 2>/dev/null || true
vm_log "built $out"
echo "$out"
