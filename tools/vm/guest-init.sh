#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# PID 1 of the test VM after switch_root (host userspace, overlay root).
# Reads /mnt/results/guest.env written by run-vm.sh, brings up the minimum
# of a system (pseudo file systems, udev), runs $GUEST_CMD with its output
# on the console and in /mnt/results/guest-cmd.log, saves the kernel log
# and powers the VM off.  The host judges the run from the files left in
# /mnt/results: guest-rc, dmesg.txt and whatever the command wrote.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LC_ALL=C TERM=dumb
RESULTS=/mnt/results

uptime_s() { cut -d' ' -f1 /proc/uptime; }
say() { echo "ordma-guest: $*" >/dev/console; }

# Once the power-off has begun the root file system may be gone: wait
# with a shell builtin on a FIFO (fd 9) that never delivers data.
power_off() {
	dmesg >"$RESULTS/dmesg.txt" 2>&1
	say "power off at uptime $(uptime_s)"
	sync
	echo o >/proc/sysrq-trigger
	while :; do
		read -r -t 600 -u 9
	done
}
trap power_off EXIT

exec </dev/null >/dev/console 2>&1

mount -t tmpfs -o mode=755,nosuid,nodev run /run
mkdir -p /run/lock /dev/pts /dev/shm
mkfifo /run/ordma-idle && exec 9<>/run/ordma-idle
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /dev/pts
mount -t tmpfs -o mode=1777,nosuid,nodev shm /dev/shm
# No tmpfs on /tmp: the repository under test may live there on the host
# (the overlay root keeps the guest's writes in memory anyway).
mount -t debugfs debugfs /sys/kernel/debug
# configfs is a module in Debian's kernel (/sys/kernel/config appears when
# it loads); the NVMe-oF target and LIO are configured through it.
if ! modprobe configfs || ! mount -t configfs configfs /sys/kernel/config; then
	say "configfs: cannot load or mount it"
	exit 1
fi
mount -t bpf bpf /sys/fs/bpf 2>/dev/null
ln -sf /proc/self/fd /dev/fd
ulimit -l unlimited

if [ ! -r "$RESULTS/guest.env" ]; then
	say "no $RESULTS/guest.env"
	exit 1
fi
set -a
. "$RESULTS/guest.env"
set +a
hostname "${GUEST_NAME:-ordma-vm}"
# The host may be a container; the guest is not (systemd tools, udev
# included, would otherwise read the kernel command line from PID 1).
rm -f /.dockerenv /run/.containerenv
# Kernel names for RDMA devices (ordma<N>), as net.ifnames=0 keeps eth<N>:
# rdma-core's documented override of its renaming rule.
echo 'ACTION=="add", SUBSYSTEM=="infiniband", PROGRAM="rdma_rename %k NAME_KERNEL"' \
	>/etc/udev/rules.d/60-rdma-persistent-naming.rules
ip link set lo up
# The kernel timestamps received packets only while some socket asks for
# it (SO_TIMESTAMP, e.g. ping's): the first such socket turns a static
# key on and the last one's close turns it off, both by patching the
# receive path's code live.  Under QEMU's multi-threaded TCG a vCPU in
# that code while it is patched can run a stale INT3 and oops, so the
# key is turned on once here and held for the VM's life.
python3 -c 'import signal, socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_TIMESTAMP, 1)
signal.pause()' &
say "userspace up at uptime $(uptime_s) ($(uname -r), $(nproc) CPUs)"

if [ "${GUEST_UDEV:-1}" = 1 ]; then
	# The host's udevd: modalias autoload exactly as on an installed system.
	/lib/systemd/systemd-udevd --daemon --resolve-names=never
	udevadm trigger --type=subsystems --action=add
	udevadm trigger --type=devices --action=add
	udevadm settle --timeout=180 || say "udevadm settle timed out"
	say "udev settled at uptime $(uptime_s)"
fi

echo "$(uptime_s)" >"$RESULTS/cmd-start-uptime"
say "running: $GUEST_CMD"
bash -c "$GUEST_CMD" 2>&1 | tee "$RESULTS/guest-cmd.log"
rc=${PIPESTATUS[0]}
echo "$rc" >"$RESULTS/guest-rc"
say "command exited $rc at uptime $(uptime_s)"
if [ "${GUEST_UDEV:-1}" = 1 ]; then
	udevadm control --exit 2>/dev/null
fi
exit 0
