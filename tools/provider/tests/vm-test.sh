#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Runs the provider's device test (flush-test.c) in a test VM with two
# ORDMA NICs (tools/vm/run-vm.sh single): once on rdma-core 56.1's
# libibverbs (LD_LIBRARY_PATH=DIR/lib) and once on Debian's libibverbs
# 44 with the provider built for it (RDMAV_DRIVERS=SYSDIR/libordma,
# tools/provider/build-system.sh), then checks that ibv_rc_pingpong
# gets through device, PD, MR, CQ and QP creation and the connection
# (RTR/RTS) on both libraries.  Data does not flow until the firmware's
# transport engine exists, so the pingpong is stopped by a timeout.
# Needs the modules built under drivers/ and a QEMU with the ordma device
# (run-vm.sh skips otherwise).  TAP on stdout; exit 0 when all passed.
#
# Usage: vm-test.sh [DIR [SYSDIR]]    DIR as printed by build.sh,
# SYSDIR by build-system.sh (each built if omitted)
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
REPO=$(cd "$HERE/../.." && pwd)
DIR=${1:-$("$HERE/build.sh" | tail -n1)}
SYSDIR=${2:-$("$HERE/build-system.sh" | tail -n1)}
# The guest sees the host's file system at the same paths.
WORK=$(mktemp -d "${TMPDIR:-/var/tmp}/ordma-provider-vm.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

RUNNER=("-I$REPO/tools/testing" "$REPO/tools/testing/ordma_test.c")
cc -std=gnu11 -Wall -Wextra -Wno-unused-parameter -O2 -I"$DIR/include" \
	-o "$WORK/flush-test-56" "$HERE/tests/flush-test.c" "${RUNNER[@]}" \
	-L"$DIR/lib" -libverbs -Wl,-rpath,"$DIR/lib" || exit 1
cc -std=gnu11 -O2 -o "$WORK/flush-test-44" "$HERE/tests/flush-test.c" "${RUNNER[@]}" \
	-libverbs || exit 1

cat >"$WORK/guest.sh" <<EOF
#!/bin/bash
modprobe ib_uverbs
for nd in /sys/class/infiniband/*/device/net/*; do ip link set dev "\${nd##*/}" up; done
for _ in \$(seq 30); do
	[ "\$(rdma link show | grep -c 'state ACTIVE')" -ge 2 ] && break
	sleep 1
done
pingpong() {	# ENV...: server on ordma0, client on ordma1
	timeout 25 env "\$@" stdbuf -oL ibv_rc_pingpong -d ordma0 -g 0 -n 1 >$WORK/srv.\$\$ 2>&1 &
	sleep 3
	timeout 12 env "\$@" stdbuf -oL ibv_rc_pingpong -d ordma1 -g 0 -n 1 localhost
	wait
	sed 's/^/server: /' $WORK/srv.\$\$ 2>/dev/null
}
echo "=== 56"
LD_LIBRARY_PATH=$DIR/lib $WORK/flush-test-56 ordma0
echo "=== 44"
RDMAV_DRIVERS=$SYSDIR/libordma $WORK/flush-test-44 ordma1
echo "=== pingpong 56"
pingpong LD_LIBRARY_PATH=$DIR/lib
echo "=== pingpong 44"
pingpong RDMAV_DRIVERS=$SYSDIR/libordma
echo "=== end"
EOF
chmod +x "$WORK/guest.sh"

"$REPO/tools/vm/run-vm.sh" -o "$WORK/vm" -t 600 -c "$WORK/guest.sh" single \
	>"$WORK/run.log" 2>&1
vm_rc=$?
if [ "$vm_rc" = 4 ]; then
	echo "1..0 # SKIP $(tail -n 1 "$WORK/run.log")"
	exit 0
fi
# The guest command's own output (serial.log has it too, prefixed and
# with CRs)
cp "$WORK/vm/vm0/guest/guest-cmd.log" "$WORK/guest.out" 2>/dev/null ||
	: >"$WORK/guest.out"

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
section() { sed -n "/^=== $1\$/,/^=== /p" "$WORK/guest.out"; }

for lib in 56 44; do
	section "$lib" >"$WORK/s"
	total=$(grep -cE '^(not )?ok ' "$WORK/s")
	bad=$(grep -c '^not ok ' "$WORK/s")
	# the runner's last line; a skipped test (no device) fails this
	if [ "$total" -gt 0 ] && grep -qx "$total passed, 0 failed" "$WORK/s"; then
		ok "flush-test on libibverbs $lib: $total passed"
	else
		not_ok "flush-test on libibverbs $lib: $bad of $total failed"
		sed 's/^/# /' "$WORK/s"
	fi
	section "pingpong $lib" >"$WORK/s"
	if [ "$(grep -c 'remote address:' "$WORK/s")" = 2 ] &&
	   ! grep -qE "Couldn't|Failed|failed" "$WORK/s"; then
		ok "ibv_rc_pingpong on libibverbs $lib: both sides connected"
	else
		not_ok "ibv_rc_pingpong on libibverbs $lib: both sides connected"
		sed 's/^/# /' "$WORK/s"
	fi
done
grep -q '^=== end$' "$WORK/guest.out" || { not_ok "guest script finished (run-vm.sh: $vm_rc)"; tail -n 20 "$WORK/run.log" | sed 's/^/# /'; }
echo "1..$n"
if [ "$failed" != 0 ]; then
	trap - EXIT
	echo "# kept $WORK"
	exit 1
fi
