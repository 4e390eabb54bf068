#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# shellcheck shell=dash
#
# /init of the test VM's initramfs.  Mounts the host's root file system
# (virtio-9p, read-only) under a tmpfs-backed overlay, puts the prepared
# module tree on /lib/modules/$(uname -r), mounts the results share and
# switches to the guest init named on the kernel command line:
#   ordma.init=PATH     program to exec as PID 1 (path on the host)
#   ordma.modtree=PATH  module tree for this kernel (path on the host)
#   ordma.sync=1        also mount the 'sync' share on /mnt/sync

/bin/busybox --install -s /bin
export PATH=/bin

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev

fail() {
	echo "ordma-initramfs: $*" >/dev/console
	echo o >/proc/sysrq-trigger
	sleep 60
}

guest_init=
modtree=
sync_share=0
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	ordma.init=*) guest_init=${arg#ordma.init=} ;;
	ordma.modtree=*) modtree=${arg#ordma.modtree=} ;;
	ordma.sync=1) sync_share=1 ;;
	esac
done
[ -n "$guest_init" ] || fail "no ordma.init= on the command line"

# Listed in dependency order by build-initramfs.sh.
for m in $(cat /modules.order); do
	insmod "/modules/$m.ko" || fail "insmod $m failed"
done

p9="trans=virtio,version=9p2000.L,msize=262144"
mkdir -p /host /rw /newroot
mount -t 9p -o "$p9,cache=loose,ro" hostroot /host || fail "mounting the host root failed"
mount -t tmpfs -o mode=755 rw /rw
mkdir -p /rw/upper /rw/work
mount -t overlay -o lowerdir=/host,upperdir=/rw/upper,workdir=/rw/work \
	root /newroot || fail "mounting the overlay root failed"

if [ -n "$modtree" ]; then
	kmods=/newroot/usr/lib/modules/$(uname -r)
	mkdir -p "$kmods"
	mount --bind "/host$modtree" "$kmods" || fail "binding the module tree failed"
fi

mkdir -p /newroot/mnt/results
mount -t 9p -o "$p9" results /newroot/mnt/results || fail "mounting the results share failed"
if [ "$sync_share" = 1 ]; then
	mkdir -p /newroot/mnt/sync
	mount -t 9p -o "$p9" sync /newroot/mnt/sync || fail "mounting the sync share failed"
fi

mount --move /dev /newroot/dev
mount --move /sys /newroot/sys
mount --move /proc /newroot/proc
exec switch_root /newroot "$guest_init"
