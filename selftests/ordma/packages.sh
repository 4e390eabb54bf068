#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# The Debian packages (make deb: build/deb) on the machine they are for:
# the repository's modules are unloaded and taken out of the module tree,
# dpkg installs ordma-dkms, ibverbs-provider-ordma and ordma-tools, DKMS
# builds the drivers for the running kernel, and the system's own tools
# (libibverbs 44, no LD_LIBRARY_PATH) use the NICs through the packaged
# provider: ibv_devices, ibv_devinfo, RC ping-pongs with data checked
# (ibv_post_send and the extended send API), UD and SRQ ping-pongs,
# perftest's WRITE, READ, SEND and atomic bandwidth and WRITE latency,
# then ordma-diag from the package and the removal of the DKMS package.
#
# In the test VM the module tree is the host's, read-only: it gets a
# tmpfs overlay, and its 'build' link points at the kernel headers of
# the harness's cache (tools/vm/fetch-kernel.sh) for DKMS.  The test
# changes the modules for the rest of the VM's life: run it alone
# (make vm-packages: run-vm.sh -T packages single).
# shellcheck disable=SC2154 # ib and gidx are set by lib.sh
. "$(dirname "$0")/lib.sh"

ordma_require_device
DEB_DIR=${ORDMA_DEB_DIR:-$ORDMA_REPO/build/deb}
PKGS=(ordma-dkms ibverbs-provider-ordma ordma-tools)
debs=()
for p in "${PKGS[@]}"; do
	f=$(find "$DEB_DIR" -maxdepth 1 -name "${p}_*.deb" 2>/dev/null | LC_ALL=C sort | tail -n 1)
	[ -n "$f" ] || ktap_skip_all "no ${p}_*.deb in $DEB_DIR (make deb)"
	debs+=("$f")
done
mapfile -t devs < <(ordma_pci_devs)
[ "${#devs[@]}" -ge 2 ] || ktap_skip_all "needs two ORDMA NICs cabled together"

KVER=$(uname -r)
MODDIR=/lib/modules/$KVER
# as an extended regular expression (Debian's release has a '+')
KVER_RE=${KVER//./\\.}
KVER_RE=${KVER_RE//+/\\+}
DKMS_RE=/lib/modules/$KVER_RE/updates/dkms
TOOL_TIMEOUT=${ORDMA_TOOL_TIMEOUT:-120}
# No LD_LIBRARY_PATH or RDMAV_DRIVERS: the system's libibverbs and its
# configuration only.
unset LD_LIBRARY_PATH RDMAV_DRIVERS
export DEBIAN_FRONTEND=noninteractive

ktap_header
ktap_set_plan 30

# ---------------------------------------------------------------- setup
tap_cmd "the repository's modules unload" modprobe -r ordma_ib ordma_core

# The harness's cache is the one its module tree is in; its kernel
# headers are those of this kernel.
modtree=$(sed -n 's/.*ordma\.modtree=\([^ ]*\).*/\1/p' /proc/cmdline)
KDIR=${modtree%%/vm/modtree-*}/kernel/$KVER/headers/usr/src/linux-headers-$KVER
if [ -n "$modtree" ] && ! [ -w "$MODDIR" ]; then
	mkdir -p /run/ordma-modules/upper /run/ordma-modules/work
	mount -t overlay -o "lowerdir=$MODDIR,upperdir=/run/ordma-modules/upper,workdir=/run/ordma-modules/work" \
		ordma-modules "$MODDIR"
fi
rm -rf "$MODDIR/updates/ordma"
[ -e "$MODDIR/build/Makefile" ] || ln -sfn "$KDIR" "$MODDIR/build"
depmod "$KVER"
tap_cmd "headers for $KVER at $MODDIR/build, no ordma module left in the tree" \
	sh -c "test -f '$MODDIR/build/Makefile' && ! modinfo -n ordma_core"

# ---------------------------------------------------------------- install
start=$SECONDS
tap_cmd "dpkg -i ${PKGS[*]}" dpkg -i "${debs[@]}"
ktap_print_msg "dpkg -i took $((SECONDS - start)) s (DKMS build included)"
status=$(dkms status -m ordma -k "$KVER" 2>&1)
tap_match "dkms status: ordma installed for $KVER" "^ordma/[^,]+, $KVER_RE, [^:]+: installed" "$status"
# DKMS's make.log starts with the date the build began; its last write
# is the build's end.
log=$(find /var/lib/dkms/ordma -path "*/$KVER/*/log/make.log" 2>/dev/null | head -n 1)
if [ -n "$log" ] && t0=$(date -d "$(sed -n 2p "$log")" +%s 2>/dev/null); then
	ktap_print_msg "DKMS make took $(($(stat -c %Y "$log") - t0)) s"
fi

for m in ordma_core ordma_ib; do
	f=$(find "$MODDIR/updates/dkms" -name "$m.ko*" 2>/dev/null | head -n 1)
	tap_match "$m built and installed by DKMS" "^$DKMS_RE/$m\.ko" "${f:-none}"
done
tap_cmd "no selftest module installed" \
	sh -c "! find '$MODDIR/updates/dkms' -name 'ordma_*test*' | grep -q ."

# ---------------------------------------------------------------- drivers
tap_cmd "modprobe ordma_ib" modprobe ordma_ib
# build_id FILE: the GNU build ID of a module file (compressed or not)
build_id() {
	local t rc
	t=$(mktemp)
	xz -dcf "$1" >"$t" 2>/dev/null || zstd -dcf "$1" >"$t" 2>/dev/null
	readelf -n "$t" | sed -n 's/^ *Build ID: //p'
	rc=$?
	rm -f "$t"
	return "$rc"
}
for m in ordma_core ordma_ib; do
	f=$(modinfo -n "$m" 2>&1)
	tap_match "modinfo -n $m: the DKMS module" "^$DKMS_RE/$m\.ko" "$f"
	# the note's last 20 bytes are the ID
	tap_eq "$m loaded is that file (build ID)" "$(build_id "$f")" \
		"$(od -An -tx1 -v "/sys/module/$m/notes/.note.gnu.build-id" 2>&1 | tr -d ' \n' | tail -c 40)"
done
modprobe ib_uverbs
ordma_require_rdma_pair "${devs[0]}" "${devs[1]}"

# ---------------------------------------------------------------- verbs
list=$(ibv_devices 2>&1)
tap_eq "ibv_devices lists ${ib[1]} and ${ib[2]}" 2 \
	"$(grep -cE "^[[:space:]]+(${ib[1]}|${ib[2]})[[:space:]]" <<<"$list")" ||
	ktap_print_msg "$list"
info=$(LD_DEBUG=files ibv_devinfo -d "${ib[1]}" 2>&1)
tap_match "ibv_devinfo -d ${ib[1]}: PORT_ACTIVE through the system libibverbs" \
	'^[[:space:]]+state:[[:space:]]+PORT_ACTIVE' "$info"
loaded=$(sed -n 's/.*file=\([^ ]*libordma[^ ]*\) .*dynamically loaded.*/\1/p' <<<"$info" | head -n 1)
owner=$(dpkg -S "$(readlink -f "${loaded:-/none}")" 2>&1 | cut -d: -f1)
tap_eq "the provider ibv_devinfo loaded (${loaded:-none}) is ibverbs-provider-ordma's" \
	ibverbs-provider-ordma "$owner"
tap_cmd "the packaged files are unmodified (dpkg --verify)" \
	sh -c '! dpkg --verify ibverbs-provider-ordma ordma-dkms ordma-tools | grep .'

# The tools the tests run are Debian's, on the system's libibverbs.
perftest_verbs=$(ldd "$(command -v ib_write_bw)" 2>&1 | sed -n 's/^[[:space:]]*libibverbs\.so\.1 => \([^ ]*\) .*/\1/p')
tap_eq "perftest's ib_write_bw runs on libibverbs1's library (${perftest_verbs:-none})" \
	libibverbs1 "$(dpkg -S "$(readlink -f "${perftest_verbs:-/none}")" 2>&1 | cut -d: -f1)"

PORT=18515
# pingpong_expect ITERS SIZE: what the ibv_*_pingpong client reports
# (it counts each message twice, there and back)
pingpong_expect() {
	printf '^%s bytes in [0-9.]+ seconds = [0-9.]+ Mbit/sec$\n^%s iters in [0-9.]+ seconds = [0-9.]+ usec/iter$' \
		"$(($1 * $2 * 2))" "$1"
}

run_pair "ibv_rc_pingpong (system): 100 x 4096 bytes, data checked" \
	"$(pingpong_expect 100 4096)" ibv_rc_pingpong -n 100 -s 4096 -m 1024 -c
# The extended send API goes through ibv_qp_to_qp_ex(), which reads the
# provider's struct verbs_qp with libibverbs 44's layout.
run_pair "ibv_rc_pingpong -N (extended send API): 50 x 4096 bytes, data checked" \
	"$(pingpong_expect 50 4096)" ibv_rc_pingpong -n 50 -s 4096 -m 1024 -c -N
run_pair "ibv_ud_pingpong (UD, address handles): 100 x 1024 bytes" \
	"$(pingpong_expect 100 1024)" ibv_ud_pingpong -n 100 -s 1024
run_pair "ibv_srq_pingpong (4 RC QPs on one SRQ): 50 x 4096 bytes" \
	"$(pingpong_expect 50 4096)" ibv_srq_pingpong -q 4 -n 50 -s 4096

# perftest (Debian's): the result line of the message size and the
# iteration count, with a bandwidth figure; latencies are not checked
# (perftest prints "inf" when it cannot read the guest CPU's clock rate).
bw_re='^[[:space:]]*65536[[:space:]]+200[[:space:]]+[0-9.]+[[:space:]]+[0-9.]+'
run_pair "ib_write_bw: 200 x 64 KiB" "$bw_re" ib_write_bw -n 200 -s 65536
run_pair "ib_read_bw: 200 x 64 KiB" "$bw_re" ib_read_bw -n 200 -s 65536
run_pair "ib_send_bw: 200 x 64 KiB" "$bw_re" ib_send_bw -n 200 -s 65536
run_pair "ib_atomic_bw: 200 fetch-and-add" \
	'^[[:space:]]*8[[:space:]]+200[[:space:]]+[0-9.]+[[:space:]]+[0-9.]+' \
	ib_atomic_bw -n 200 -A FETCH_AND_ADD
run_pair "ib_write_lat: 100 x 2 bytes" '^[[:space:]]*2[[:space:]]+100[[:space:]]+' \
	ib_write_lat -n 100 -s 2

# ---------------------------------------------------------------- tools
out=$(/usr/sbin/ordma-diag list 2>&1)
tap_eq "ordma-diag (package) lists ${devs[0]} and ${devs[1]}" 2 \
	"$(grep -cxE "${devs[0]}|${devs[1]}" <<<"$out")" || ktap_print_msg "$out"
tap_match "ordma-diag -d ${devs[0]} health: state ok" '^state ok$' \
	"$(/usr/sbin/ordma-diag -d "${devs[0]}" health 2>&1)"

# ---------------------------------------------------------------- removal
modprobe -r ordma_ib ordma_core
tap_cmd "dpkg -r ordma-dkms removes the modules" \
	sh -c "dpkg -r ordma-dkms && ! find '$MODDIR/updates/dkms' -name 'ordma_*' | grep -q ."

ktap_finished
