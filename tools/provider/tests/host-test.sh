#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Host checks of the two builds of the ORDMA provider, the rdma-core
# 56.1 tree of build.sh (DIR) and the provider for the system's
# libibverbs of build-system.sh (SYSDIR), for a machine without an ORDMA
# device (TAP output, exit 0 when nothing failed):
#  - the build layout, and that LD_LIBRARY_PATH=DIR/lib puts Debian's
#    ibverbs-utils and perftest on the 56.1 libraries
#  - the provider's libibverbs symbols exist in 56.1 and in Debian's 44;
#    the system build's in the system's libibverbs, which it links
#  - the system build's struct verbs_qp has the system verbs.h's layout
#    (comp_mask right after struct ibv_qp_ex, where libibverbs reads it)
#  - with a simulated device (sysfs tree under SYSFS_PATH plus a uverbs
#    character device that is /dev/null, in a private mount namespace;
#    needs root and a kernel without RDMA netlink, else skipped): 56.1
#    matches it by PCI ID 1234:4f52 and not other IDs or uverbs ABI
#    versions; ibv_open_device reaches the provider's alloc_context, which
#    rejects the empty GET_CONTEXT response cleanly; Debian's 44 finds the
#    device only with RDMAV_DRIVERS=SYSDIR/libordma (or DIR/lib/libordma)
#    and behaves the same.
#
# The provider's C unit tests (dp-test.c, wqe-test.c) are run next to this
# by `make -C tools/provider check`.
#
# Usage: host-test.sh [DIR [SYSDIR]]    DIR as printed by build.sh,
# SYSDIR by build-system.sh (each built if omitted)
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DIR=${1:-$("$HERE/build.sh" | tail -n1)}
SYSDIR=${2:-$("$HERE/build-system.sh" | tail -n1)}
SYS_PROVIDER=$SYSDIR/libordma-rdmav34.so
DEB_VERBS=/usr/lib/x86_64-linux-gnu/libibverbs.so.1

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
	n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"
	[ -s "$WORK/out" ] && sed 's/^/# /' "$WORK/out"
}
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
check() { local what=$1; shift; if "$@"; then ok "$what"; else not_ok "$what"; fi; }
# run CMD...: stdout+stderr to $WORK/out, exit status to $WORK/rc
run() { "$@" >"$WORK/out" 2>&1; echo $? >"$WORK/rc"; }
rc_is() { [ "$(cat "$WORK/rc")" = "$1" ]; }
out_has() { grep -q -- "$1" "$WORK/out"; }
out_lacks() { ! grep -q -- "$1" "$WORK/out"; }

echo "TAP version 13"
echo "# DIR=$DIR"
echo "# SYSDIR=$SYSDIR"

# ------------------------------------------------------------ layout
layout() {
	[ -f "$DIR/lib/libibverbs.so.1" ] && [ -f "$DIR/lib/librdmacm.so.1" ] &&
	[ -f "$DIR/lib/libordma-rdmav34.so" ] && [ -x "$DIR/bin/ibv_devinfo" ] &&
	grep -qx "driver $DIR/lib/libordma" "$DIR/etc/libibverbs.d/ordma.driver" &&
	strings "$DIR/lib/libibverbs.so.1" | grep -x "$DIR/etc/libibverbs.d" >/dev/null
}
check "layout: lib/, bin/, etc/libibverbs.d/ordma.driver, compiled-in config dir" layout

# ------------------------------------------------------------ Debian programs on 56.1
uses_56() {	# PROGRAM LIB...: ldd resolves every LIB from DIR/lib
	local prog=$1 lib; shift
	LD_LIBRARY_PATH=$DIR/lib ldd "$prog" >"$WORK/out" 2>&1 || return 1
	for lib; do grep -q "$lib => $DIR/lib/$lib " "$WORK/out" || return 1; done
}
same_as_debian() {	# CMD...: same output and status with and without DIR/lib
	local a b
	a=$("$@" 2>&1; echo "rc=$?")
	b=$(LD_LIBRARY_PATH=$DIR/lib "$@" 2>&1; echo "rc=$?")
	echo "$b" >"$WORK/out"
	[ "$a" = "$b" ]
}
check "ibv_devices (ibverbs-utils) links DIR/lib/libibverbs.so.1" \
	uses_56 "$(command -v ibv_devices)" libibverbs.so.1
check "ibv_devices runs on 56.1 as on 44 (this host: no uverbs)" \
	same_as_debian ibv_devices
check "ib_write_bw (perftest) links DIR/lib libibverbs + librdmacm" \
	uses_56 "$(command -v ib_write_bw)" libibverbs.so.1 librdmacm.so.1
check "ib_write_bw --help runs on 56.1 as on 44" same_as_debian ib_write_bw --help

# ------------------------------------------------------------ symbols
# objdump -T: "... *UND* ... (VERSION) name" for needed, "... VERSION name" for defined
defined_syms() { objdump -T "$1" | awk 'NF > 2 && !/\*UND\*/ && $(NF-1) ~ /^IBVERBS/ { print $(NF-1), $NF }' | sort -u; }
needed_syms() { objdump -T "$1" | awk 'NF > 2 && /\*UND\*/ && $(NF-1) ~ /^\(IBVERBS/ { gsub(/[()]/, "", $(NF-1)); print $(NF-1), $NF }' | sort -u; }
needed_syms "$DIR/lib/libordma-rdmav34.so" >"$WORK/needed"
needed_syms "$SYS_PROVIDER" >"$WORK/needed-sys"
# syms_in NEEDED LIB: every symbol listed in NEEDED is defined by LIB
syms_in() { defined_syms "$2" >"$WORK/have"; comm -23 "$1" "$WORK/have" >"$WORK/out"; [ -s "$1" ] && [ ! -s "$WORK/out" ]; }
check "provider's $(wc -l <"$WORK/needed") libibverbs symbols are in 56.1's libibverbs" \
	syms_in "$WORK/needed" "$DIR/lib/libibverbs.so.1"
if [ -f "$DEB_VERBS" ]; then
	deb_version=$(readlink -f "$DEB_VERBS" | sed 's/.*\.so\.//')
	check "provider's libibverbs symbols are in Debian's libibverbs $deb_version" \
		syms_in "$WORK/needed" "$DEB_VERBS"
	check "system build: its $(wc -l <"$WORK/needed-sys") libibverbs symbols are in Debian's libibverbs $deb_version" \
		syms_in "$WORK/needed-sys" "$DEB_VERBS"
else
	skip "provider's libibverbs symbols are in Debian's libibverbs" "no $DEB_VERBS"
	skip "system build: its libibverbs symbols are in Debian's libibverbs" "no $DEB_VERBS"
fi

# ------------------------------------------------------------ system build
# links_system_verbs: without LD_LIBRARY_PATH the system build resolves
# libibverbs.so.1 to the system's, and carries no RPATH to elsewhere
links_system_verbs() {
	local want
	want=$(readlink -f "$(pkg-config --variable=libdir libibverbs)/libibverbs.so.1")
	env -u LD_LIBRARY_PATH ldd "$SYS_PROVIDER" >"$WORK/out" 2>&1 || return 1
	[ "$(readlink -f "$(sed -n 's/^[[:space:]]*libibverbs\.so\.1 => \([^ ]*\) .*/\1/p' "$WORK/out")")" = "$want" ] &&
	! readelf -d "$SYS_PROVIDER" | grep -qE 'RPATH|RUNPATH'
}
check "system build: SYSDIR/libordma-rdmav34.so links the system's libibverbs.so.1, no RPATH" \
	links_system_verbs
# comp_mask_offset SO: offset of struct verbs_qp's comp_mask in SO's
# debug information
comp_mask_offset() {
	pahole -C verbs_qp "$1" 2>/dev/null |
		sed -n 's|^[[:space:]]*uint32_t[[:space:]]*comp_mask;[[:space:]]*/\*[[:space:]]*\([0-9]*\) .*|\1|p'
}
# verbs_qp_as_system: libibverbs' ibv_qp_to_qp_ex() reads
# verbs_qp.comp_mask right after struct ibv_qp_ex (the union's larger
# member) as the system's verbs.h has it
verbs_qp_as_system() {
	local want have
	printf '#include <infiniband/verbs.h>\n#include <stdio.h>\nint main(void) { printf("%%zu\\n", sizeof(struct ibv_qp_ex)); return 0; }\n' \
		>"$WORK/qp_ex.c"
	cc -o "$WORK/qp_ex" "$WORK/qp_ex.c" >"$WORK/out" 2>&1 && want=$("$WORK/qp_ex") || return 1
	have=$(comp_mask_offset "$SYS_PROVIDER")
	echo "comp_mask at ${have:-?}, sizeof(struct ibv_qp_ex) $want; 56.1 build: comp_mask at $(comp_mask_offset "$DIR/lib/libordma-rdmav34.so")" >"$WORK/out"
	[ -n "$have" ] && [ "$have" = "$want" ]
}
if command -v pahole >/dev/null; then
	what="system build: struct verbs_qp has the system verbs.h's layout (comp_mask after ibv_qp_ex)"
	if verbs_qp_as_system; then ok "$what"; sed 's/^/# /' "$WORK/out"; else not_ok "$what"; fi
else
	skip "system build: struct verbs_qp has the system verbs.h's layout" "no pahole (dwarves)"
fi

# ------------------------------------------------------------ simulated device
# make_dev ROOT VENDOR:DEVICE UVERBS_ABI: sysfs as the 6.12 kernel shows an
# ORDMA ib_device whose parent is the PCI function.
make_dev() {
	local s=$1 ids=$2 abi=$3 uv ib
	uv=$s/class/infiniband_verbs/uverbs0
	ib=$s/class/infiniband/ordma0
	mkdir -p "$uv" "$ib/device"
	echo 6 >"$s/class/infiniband_verbs/abi_version"
	echo ordma0 >"$uv/ibdev"
	echo "$abi" >"$uv/abi_version"
	echo 1:3 >"$uv/dev"			# the stand-in cdev: /dev/null
	echo "1: CA" >"$ib/node_type"
	echo 5254:00ff:fe12:3456 >"$ib/node_guid"
	echo 1.0.0 >"$ib/fw_ver"
	printf 'pci:v0000%sd0000%ssv00001AF4sd00001100bc02sc00i00\n' \
		"${ids%%:*}" "${ids##*:}" >"$ib/device/modalias"
}
make_dev "$WORK/sys-ordma" 1234:4F52 1
make_dev "$WORK/sys-otherid" 1234:0001 1
make_dev "$WORK/sys-abi2" 1234:4F52 2
cat >"$WORK/ns.sh" <<'EOF'
mount -t tmpfs -o mode=755 simdev /dev &&
mkdir /dev/infiniband && mknod /dev/infiniband/uverbs0 c 1 3 &&
mknod -m 666 /dev/null c 1 3 && ln -s /proc/self/fd /dev/fd &&
ln -s /proc/self/fd/2 /dev/stderr || exit 99
exec "$@"
EOF
# sim SYSFS CMD...: run CMD in a mount namespace with the stand-in cdev
sim() { local s=$1; shift; run unshare -m --propagation private bash "$WORK/ns.sh" env SYSFS_PATH="$s" IBV_SHOW_WARNINGS=1 "$@"; }

why=""
if [ "$(id -u)" != 0 ]; then
	why="needs root (mount namespace)"
elif ! unshare -m --propagation private true 2>/dev/null; then
	why="unshare -m not permitted"
elif python3 -c 'import socket; socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 20)' 2>/dev/null; then
	why="kernel has RDMA netlink: libibverbs would not read SYSFS_PATH"
fi
listed() { rc_is 0 && grep -qE '^[[:space:]]+ordma0[[:space:]]+525400fffe123456$' "$WORK/out"; }
unlisted() { rc_is 0 && ! grep -q 'ordma0 ' "$WORK/out"; }
no_driver() { unlisted && out_has "no userspace device-specific driver found for ordma0"; }
# ibv_open_device reached alloc_context, which refused the response
clean_open_failure() {
	rc_is 1 && out_has "ordma_alloc_context:.*unsupported doorbell page size 0" &&
	out_has "Failed to open device" && out_lacks "Segmentation" && out_lacks "Aborted"
}
L56="LD_LIBRARY_PATH=$DIR/lib"
LOG="VERBS_LOG_LEVEL=1 VERBS_LOG_FILE=/dev/stderr"
RDMAV="RDMAV_DRIVERS=$DIR/lib/libordma"
RDMAV_SYS="RDMAV_DRIVERS=$SYSDIR/libordma"
sim_tests=(
	"56.1: ibv_devices lists the 1234:4f52 device|sys-ordma|$L56 ibv_devices|listed"
	"56.1: another PCI ID does not match|sys-otherid|$L56 ibv_devices|no_driver"
	"56.1: uverbs ABI 2 is refused|sys-abi2|$L56 ibv_devices|unlisted && out_has 'Driver ordma does not support the kernel ABI of 2'"
	"56.1: ibv_devinfo reaches alloc_context, fails cleanly|sys-ordma|$L56 $LOG ibv_devinfo -v|clean_open_failure"
	"44: without RDMAV_DRIVERS no driver matches|sys-ordma|ibv_devices|no_driver"
	"44: RDMAV_DRIVERS=DIR/lib/libordma lists the device|sys-ordma|$RDMAV ibv_devices|listed"
	"44: RDMAV_DRIVERS + ibv_devinfo reaches alloc_context, fails cleanly|sys-ordma|$RDMAV $LOG ibv_devinfo -v|clean_open_failure"
	"44: RDMAV_DRIVERS=SYSDIR/libordma (system build) lists the device|sys-ordma|$RDMAV_SYS ibv_devices|listed"
	"44: RDMAV_DRIVERS=SYSDIR/libordma + ibv_devinfo reaches alloc_context, fails cleanly|sys-ordma|$RDMAV_SYS $LOG ibv_devinfo -v|clean_open_failure"
)
for t in "${sim_tests[@]}"; do
	IFS='|' read -r what sys cmd cond <<<"$t"
	if [ -n "$why" ]; then
		skip "simulated device: $what" "$why"
		continue
	fi
	# shellcheck disable=SC2086 # cmd is a word list of env assignments + argv
	sim "$WORK/$sys" $cmd
	if eval "$cond"; then ok "simulated device: $what"; else not_ok "simulated device: $what"; fi
done

echo "1..$n"
[ "$failed" = 0 ]
