#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# build-qemu.sh - build qemu-system-x86_64 7.2 (Debian bookworm's source
# package) with the ORDMA device model compiled in (-device ordma).
#
# Prints the path of the binary as the last line of stdout; everything
# else goes to stderr.  The binary is cached by a content hash of its
# inputs (tools/qemu/ordma-*.[ch], tools/qemu/trace-events, the patches to
# QEMU in tools/qemu/patches/, the firmware's sources.mk and every .c
# and .h of its top directory and rooms (the FW_ROOMS of sources.mk:
# device/, objects/, tcp/, transport/, platform/, wire/) and of the
# directories of what a host links beside it (FW_HOST_DIRS: replay/),
# what builds the firmware's copies of its TCP stack (FW_TCP_INPUTS),
# include/linux/ordma/ordma_hw.h and this script) under
#   $ORDMA_CACHE/qemu/bin/<hash>/qemu-system-x86_64
# so an unchanged tree costs one hash and no build.  The source and build
# tree is $ORDMA_CACHE/qemu/src/qemu-7.2+dfsg (ccache: $ORDMA_CACHE/ccache).
#
# Run time: the copied binary does not find the BIOS and option ROMs by
# itself.  Always pass
#   -L /usr/share/seabios -L /usr/lib/ipxe/qemu -L /usr/share/qemu
# (Debian packages seabios, ipxe-qemu, qemu-system-data).
#
# Environment:
#   ORDMA_CACHE   cache root                         (default /var/cache/ordma)
#   JOBS          ninja parallelism                  (default 2)
#   ORDMA_FW_DIR  firmware sources to compile in     (default <repo>/firmware)
#   SMOKE=0       skip the run-time checks of a new binary
#   SANITIZE=1    build QEMU under AddressSanitizer (with LeakSanitizer)
#                 and UndefinedBehaviorSanitizer instead, see below
#
# SANITIZE=1 builds from a second copy of the same source package,
# $ORDMA_CACHE/qemu/src/qemu-7.2+dfsg-asan, with its own lock, so that it
# neither touches nor waits for the normal tree; its binary is cached as
#   $ORDMA_CACHE/qemu/bin/<hash>-asan/qemu-system-x86_64
# and the two kinds of binary are pruned separately.  It is several times
# slower than the normal one; make qtest-asan (tools/qemu/qtest-asan.sh)
# runs the qtests under it.  A cold build takes about 25 minutes on 2
# cores.
#
# Each new binary gets a quick run-time check (device listed, BAR sizes and
# types, PCIe and MSI-X capabilities, VERSION read through BAR0).
# tools/qemu/qtest-ordma.py goes further, still without a guest.
#
# A cold build on a fresh Debian 12 machine installs the packages it needs
# (tools/host-deps.sh, as root), fetches the source with
# `apt-get source qemu/bookworm` (needs deb-src entries, which host-deps.sh
# adds), configures and builds: about 7 minutes on 2 cores.  A change to
# the device or the firmware rebuilds a few files and relinks.

# The braces make bash read the whole script before running it, so that
# the file changing under a running build (git checkout) cannot derail it.
{
set -euo pipefail
shopt -s nullglob

SCRIPT=$(readlink -f "${BASH_SOURCE[0]}")
QEMU_TOOLS=$(dirname "$SCRIPT")
REPO=$(cd "$QEMU_TOOLS/../.." && pwd)

CACHE=${ORDMA_CACHE:-/var/cache/ordma}
JOBS=${JOBS:-2}
FW_DIR=${ORDMA_FW_DIR:-$REPO/firmware}
SMOKE=${SMOKE:-1}
SANITIZE=${SANITIZE:-0}

QEMU_PKG=qemu/bookworm	# never plain "qemu": with trixie deb-src it is 10.0
SRC_ROOT=$CACHE/qemu/src
SRC=$SRC_ROOT/qemu-7.2+dfsg
BUILD=$SRC/build
BIN_ROOT=$CACHE/qemu/bin
# how many binaries (one per source tree) the cache keeps, newest first;
# ORDMA_QEMU_KEEP raises it while several trees are built and tested at once
KEEP_BINARIES=${ORDMA_QEMU_KEEP:-3}
KIND=		# suffix of the tree, cache key and lock: "" or -asan
DATADIRS=(-L /usr/share/seabios -L /usr/lib/ipxe/qemu -L /usr/share/qemu)
CONFIGURE_ARGS=(--target-list=x86_64-softmmu --without-default-features
	--enable-tcg --enable-fdt=system --enable-slirp --enable-virtfs
	--enable-attr --enable-cap-ng --disable-docs --disable-werror
	--enable-debug-info)
# ASan and UBSan from configure, and UBSan once more by hand: QEMU 7.2's
# configure drops -fsanitize=undefined without a word, because GCC 12 warns
# (-Werror=maybe-uninitialized) on its test program.  The binary is checked
# for both after the build.
if [ "$SANITIZE" = 1 ]; then
	KIND=-asan
	SRC=$SRC_ROOT/qemu-7.2+dfsg$KIND
	BUILD=$SRC/build
	CONFIGURE_ARGS+=(--enable-sanitizers
		"--extra-cflags=-fsanitize=undefined -fno-omit-frame-pointer"
		--extra-ldflags=-fsanitize=undefined)
fi
BUILD_PKGS="build-essential ninja-build meson pkg-config python3 dpkg-dev ccache
	libglib2.0-dev libpixman-1-dev zlib1g-dev libfdt-dev libslirp-dev
	libcap-ng-dev libsodium-dev seabios ipxe-qemu qemu-system-data"

# The device model: the PCIe function and the port's cable (C and headers)
DEVICE_FILES=("$QEMU_TOOLS"/ordma-*.[ch])
TRACE_EVENTS=$QEMU_TOOLS/trace-events
# Changes to QEMU itself (-p1 against the source tree), in name order
QEMU_PATCHES=("$QEMU_TOOLS"/patches/*.patch)
# The hardware header (ordma_hw.h and its parts) and the userspace shim
HW_HEADERS=("$REPO"/include/linux/ordma/ordma_*.h
	"$REPO"/include/ordma-compat/ordma_compat.h)

T_START=$(date +%s)
log() { echo "[build-qemu +$(($(date +%s) - T_START))s] $*" >&2; }
die() { echo "build-qemu: error: $*" >&2; exit 1; }

# ------------------------------------------------------------------
# Inputs and their hash
# ------------------------------------------------------------------
# The firmware's source list is firmware/sources.mk, shared with its
# Makefile: FW_SRCS (paths relative to FW_DIR) and FW_ROOMS.
FW_SOURCES_MK=$FW_DIR/sources.mk
[ -f "$FW_SOURCES_MK" ] || die "no sources.mk in $FW_DIR"
[ -f "$FW_DIR/ordma_fw.h" ] || die "no ordma_fw.h in $FW_DIR"
sources_mk_var() {
	MAKEFLAGS= MAKELEVEL= make --no-print-directory -s -f "$FW_SOURCES_MK" \
		--eval "print-var: ; @echo \$($1)" print-var
}
read -ra FW_C <<<"$(sources_mk_var FW_SRCS)" || true
read -ra FW_ROOMS <<<"$(sources_mk_var FW_ROOMS)" || true
[ ${#FW_C[@]} -gt 0 ] || die "no FW_SRCS in $FW_SOURCES_MK"
[ ${#FW_ROOMS[@]} -gt 0 ] || die "no FW_ROOMS in $FW_SOURCES_MK"
# What a host links beside the firmware (the recorder): FW_HOST_SRCS are
# compiled in like FW_SRCS, the headers of FW_HOST_DIRS go with them.
read -ra FW_HOST_C <<<"$(sources_mk_var FW_HOST_SRCS)" || true
read -ra FW_HOST_DIRS <<<"$(sources_mk_var FW_HOST_DIRS)" || true
FW_C+=("${FW_HOST_C[@]}")
# The firmware image library (flash=: verifies and reads images)
read -ra FW_IMAGE_C <<<"$(sources_mk_var FW_IMAGE_SRCS)" || true
FW_C+=("${FW_IMAGE_C[@]}")
read -ra FW_IMAGE_DIRS <<<"$(sources_mk_var FW_IMAGE_DIRS)" || true
FW_HOST_DIRS+=("${FW_IMAGE_DIRS[@]}")
for f in "${FW_C[@]}"; do
	[ -f "$FW_DIR/$f" ] || die "$FW_SOURCES_MK lists $f, which does not exist"
done
# Every header goes in (relative to FW_DIR), and every source counts
# towards the hash, listed or not.
FW_H=()
FW_ALL=(sources.mk)
for f in "$FW_DIR"/*.h "$FW_DIR"/*.c; do
	FW_ALL+=("${f#"$FW_DIR"/}")
done
for room in "${FW_ROOMS[@]}" "${FW_HOST_DIRS[@]}"; do
	for f in "$FW_DIR/$room"/*.h "$FW_DIR/$room"/*.c; do
		FW_ALL+=("${f#"$FW_DIR"/}")
	done
done
for f in "${FW_ALL[@]}"; do
	case $f in *.h) FW_H+=("$f") ;; esac
	case " ${DEVICE_FILES[*]##*/} " in
	*" $f "*) die "$FW_DIR/$f would overwrite the device model" ;;
	esac
done
for f in "${DEVICE_FILES[@]}" "$TRACE_EVENTS" "${HW_HEADERS[@]}"; do
	[ -f "$f" ] || die "missing $f"
done

# The firmware's copies of its TCP stack (firmware/tcp/lwip.mk: lwIP,
# fetched from Debian's source package, and its glue) are built by the
# firmware's Makefile with the device model's flags, outside meson, and
# linked in as objects; their only global symbols are their entry
# tables (fw_tcp_slotN_ops).  These inputs build them beside the room's
# own files.
FW_TCP_INPUTS=("$FW_DIR/Makefile" "$FW_DIR/tcp/lwip.mk" "$FW_DIR"/tcp/arch/*.h
	"$REPO/tools/fw/fetch-lwip.sh")
for f in "${FW_TCP_INPUTS[@]}"; do
	[ -f "$f" ] || die "missing $f"
done

# Names count too, so that renaming, moving or adding a firmware file
# rebuilds.
input_hash() {
	local f
	{
		for f in "${DEVICE_FILES[@]}" "$TRACE_EVENTS" "${HW_HEADERS[@]}" "$SCRIPT" \
			 "${QEMU_PATCHES[@]}"; do
			printf '%s %s\n' "$(basename "$f")" "$(sha256sum <"$f" | cut -d' ' -f1)"
		done
		for f in "${FW_ALL[@]}"; do
			printf 'firmware/%s %s\n' "$f" "$(sha256sum <"$FW_DIR/$f" | cut -d' ' -f1)"
		done
		for f in "${FW_TCP_INPUTS[@]}"; do
			printf '%s %s\n' "${f#"$REPO"/}" "$(sha256sum <"$f" | cut -d' ' -f1)"
		done
	} | sha256sum | cut -c1-16
}
HASH=$(input_hash)$KIND
OUT=$BIN_ROOT/$HASH/qemu-system-x86_64

# A binary's directory time is its last use: pruning drops the least
# recently used ones.
print_cached() {
	[ -x "$OUT" ] || return 0
	touch "${OUT%/*}" 2>/dev/null || true
	echo "$OUT"
	exit 0
}
print_cached

# One build at a time: the source tree is shared.
mkdir -p "$BIN_ROOT"
exec 9>"$CACHE/qemu/.build$KIND.lock"
if ! flock -n 9; then
	log "waiting for another build to finish"
	flock 9
fi
print_cached
log "building QEMU for inputs $HASH"
# Staging directories of interrupted runs (only made under the lock)
rm -rf "$BIN_ROOT"/.stage$KIND.*

# ------------------------------------------------------------------
# Host packages
# ------------------------------------------------------------------
missing_pkgs() {
	local p
	for p in $BUILD_PKGS; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q '^install ok installed' || echo "$p"
	done
}
missing=$(missing_pkgs)
if [ -n "$missing" ]; then
	[ "$(id -u)" = 0 ] ||
		die "missing packages (run tools/host-deps.sh as root):" $missing
	log "installing build dependencies:" $missing
	"$REPO/tools/host-deps.sh" >&2
	missing=$(missing_pkgs)
	[ -z "$missing" ] || die "still missing packages:" $missing
fi

# ------------------------------------------------------------------
# Source tree: Debian's 7.2 with its patches (dpkg-source applies them)
# ------------------------------------------------------------------
# A tree counts as complete once it carries the marker or has been
# configured; anything else is a leftover of an interrupted fetch.
if [ ! -f "$SRC/.ordma-source" ] && [ ! -f "$BUILD/build.ninja" ]; then
	if ! grep -rqs '^Types:.*deb-src\|^deb-src' /etc/apt/sources.list \
		/etc/apt/sources.list.d/; then
		[ "$(id -u)" = 0 ] ||
			die "no deb-src entries (run tools/host-deps.sh as root)"
		"$REPO/tools/host-deps.sh" >&2
	fi
	log "fetching the source: apt-get source $QEMU_PKG"
	fetch=$SRC_ROOT/.fetch$KIND
	rm -rf "$fetch" "$SRC"
	mkdir -p "$fetch"
	(cd "$fetch" && apt-get source -q "$QEMU_PKG") >&2 ||
		die "apt-get source $QEMU_PKG failed (deb-src entries? tools/host-deps.sh)"
	[ -d "$fetch/qemu-7.2+dfsg" ] || die "apt-get source did not give qemu-7.2+dfsg"
	mv "$fetch/qemu-7.2+dfsg" "$SRC"
	mv "$fetch"/qemu_* "$SRC_ROOT"/
	rmdir "$fetch"
fi
case $(cat "$SRC/VERSION") in
7.2*) ;;
*) die "$SRC is QEMU $(cat "$SRC/VERSION"), not 7.2" ;;
esac
touch "$SRC/.ordma-source"

export PATH=/usr/lib/ccache:$PATH
export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}

# The build tree remembers the options it was configured with; a tree
# configured before that record existed is taken as configured with ours.
CONFIG_STAMP=$BUILD/.ordma-configure-args
if [ -f "$BUILD/build.ninja" ] && [ ! -f "$CONFIG_STAMP" ]; then
	echo "${CONFIGURE_ARGS[*]}" >"$CONFIG_STAMP"
fi
if [ ! -f "$BUILD/build.ninja" ] ||
   [ "$(cat "$CONFIG_STAMP")" != "${CONFIGURE_ARGS[*]}" ]; then
	log "configuring (${CONFIGURE_ARGS[*]})"
	rm -f "$CONFIG_STAMP"
	mkdir -p "$BUILD"
	(cd "$BUILD" && ../configure "${CONFIGURE_ARGS[@]}") >&2 ||
		die "configure failed; see $BUILD/meson-logs/meson-log.txt"
	echo "${CONFIGURE_ARGS[*]}" >"$CONFIG_STAMP"
fi

# ------------------------------------------------------------------
# Put the device into the tree: hw/net/ordma/ plus one generated block
# in each of hw/net/{Kconfig,meson.build,trace-events}
# ------------------------------------------------------------------
DEST=$SRC/hw/net/ordma
MARK_BEGIN="# ORDMA device model (generated by tools/qemu/build-qemu.sh): begin"
MARK_END="# ORDMA device model: end"

# Copy only what changed, so that ninja recompiles only that.
install_file() {
	mkdir -p "$(dirname "$2")"
	if ! cmp -s "$1" "$2"; then
		cp "$1" "$2"
		log "updated ${2#"$SRC"/}"
	fi
}

# Replace our block in $1 by $2 (or append it); the file is rewritten
# only when its content changes, because every rewrite makes ninja
# re-run meson.
set_block() {
	local file=$1 tmp
	tmp=$(mktemp "$file.XXXXXX")
	awk -v b="$MARK_BEGIN" -v e="$MARK_END" '
		$0 == b { skip = 1; next }
		$0 == e { skip = 0; next }
		!skip' "$file" >"$tmp"
	printf '%s\n%s\n%s\n' "$MARK_BEGIN" "$2" "$MARK_END" >>"$tmp"
	if cmp -s "$tmp" "$file"; then
		rm -f "$tmp"
	else
		chmod --reference="$file" "$tmp"
		mv "$tmp" "$file"
		log "updated ${file#"$SRC"/}"
	fi
}

# QEMU's own files as tools/qemu/patches/ has them: each patched file is
# made from its pristine copy (kept beside it as FILE.ordma-orig the first
# time it is patched) with every patch that touches it, and installed only
# if that changes it; a file no patch touches any more gets its original
# back.
patch_qemu() {
	local tmp p f
	local -A files=()
	tmp=$(mktemp -d)
	for p in "${QEMU_PATCHES[@]}"; do
		while IFS= read -r f; do
			files[$f]=1
		done < <(awk '/^\+\+\+ / { sub(/^[^\/]*\//, "", $2); print $2 }' "$p")
	done
	for f in "${!files[@]}"; do
		[ -f "$SRC/$f" ] || die "$f (patched) is not in $SRC"
		[ -f "$SRC/$f.ordma-orig" ] || cp -p "$SRC/$f" "$SRC/$f.ordma-orig"
		mkdir -p "$(dirname "$tmp/$f")"
		cp "$SRC/$f.ordma-orig" "$tmp/$f"
	done
	for p in "${QEMU_PATCHES[@]}"; do
		patch -s -d "$tmp" -p1 --no-backup-if-mismatch <"$p" >&2 ||
			die "$p does not apply to QEMU $(cat "$SRC/VERSION")"
	done
	for f in "${!files[@]}"; do
		install_file "$tmp/$f" "$SRC/$f"
	done
	rm -rf "$tmp"
	while IFS= read -r f; do
		f=${f%.ordma-orig}
		[ -n "${files[${f#"$SRC"/}]:-}" ] && continue
		install_file "$f.ordma-orig" "$f"
		rm -f "$f.ordma-orig"
	done < <(find "$SRC" -path "$BUILD" -prune -o -name '*.ordma-orig' -print)
}
patch_qemu

wanted=()
for f in "${DEVICE_FILES[@]}"; do
	wanted+=("${f##*/}")
	install_file "$f" "$DEST/${f##*/}"
done
for f in "${FW_C[@]}" "${FW_H[@]}"; do
	wanted+=("$f")
	install_file "$FW_DIR/$f" "$DEST/$f"
done
for f in "${HW_HEADERS[@]}"; do
	install_file "$f" "$DEST/include/${f#"$REPO"/include/}"
done
# Firmware files that no longer exist (or moved) must not stay in the build.
while IFS= read -r f; do
	case " ${wanted[*]} " in
	*" ${f#"$DEST"/} "*) ;;
	*) rm -f "$f"; log "removed stale ${f#"$SRC"/}" ;;
	esac
done < <(find "$DEST" -path "$DEST/include" -prune -o \
	\( -name '*.c' -o -name '*.h' \) -type f -print)

log "building the firmware's TCP stack copies"
tcp_slots=$(make -s -C "$FW_DIR" O="$BUILD/ordma-fw" CC=gcc qemu-tcp-slots |
	tail -n 1) || die "the firmware's TCP stack copies did not build"
# ninja does not see these objects change: linking copies named by
# their content changes the link command instead.
slot_sum=$(cat $tcp_slots | sha256sum | cut -c1-16) || die "no TCP stack copies"
slot_dir=$BUILD/ordma-tcp-slots
slot_args=
mkdir -p "$slot_dir/$slot_sum"
find "$slot_dir" -mindepth 1 -maxdepth 1 ! -name "$slot_sum" -exec rm -rf {} +
for f in $tcp_slots; do
	cp "$f" "$slot_dir/$slot_sum/"
	slot_args+="${slot_args:+, }'$slot_dir/$slot_sum/${f##*/}'"
done

meson_files=
for f in "${DEVICE_FILES[@]}"; do
	case $f in *.c) meson_files+="${meson_files:+, }'ordma/${f##*/}'" ;; esac
done
for f in "${FW_C[@]}"; do
	meson_files+=", 'ordma/$f'"
done
set_block "$SRC/hw/net/Kconfig" "config ORDMA
    bool
    default y if PCI_DEVICES
    depends on PCI && MSI_NONBROKEN"
set_block "$SRC/hw/net/meson.build" "softmmu_ss.add(when: 'CONFIG_ORDMA', if_true: [files($meson_files), declare_dependency(include_directories: include_directories('ordma/include', 'ordma'), dependencies: [dependency('libsodium')], link_args: [$slot_args])])"
set_block "$SRC/hw/net/trace-events" "$(cat "$TRACE_EVENTS")"

# ------------------------------------------------------------------
# Build (only the emulator: plain `ninja` builds ~900 more targets)
# ------------------------------------------------------------------
log "ninja -j$JOBS qemu-system-x86_64"
t0=$(date +%s)
if ! ninja -C "$BUILD" -j"$JOBS" qemu-system-x86_64 2>&1 |
	tee "$BUILD/ordma-ninja.log" >&2; then
	die "ninja failed"
fi
log "ninja took $(($(date +%s) - t0))s"
# QEMU builds without -Werror; the device's and the firmware's files
# (recompiled whenever they change) must stay free of warnings.
if grep -E '(^|/)hw/net/ordma/.*warning:' "$BUILD/ordma-ninja.log" >&2; then
	die "the ORDMA files compile with warnings (above)"
fi

# The firmware shares one binary with QEMU and its libraries (glib, zlib,
# slirp, ...): a global firmware symbol that one of them also defines could
# silently take its place.  Firmware globals carry the ordma_ or fw_
# prefix and must be defined nowhere else.
check_firmware_symbols() {
	local f obj fw_syms other bad
	fw_syms=$(for f in "${FW_C[@]}"; do
		obj=$BUILD/libcommon.fa.p/hw_net_ordma_${f//\//_}.o
		[ -f "$obj" ] || die "no object $obj for $f"
		nm -g --defined-only "$obj" | awk 'NF >= 3 { print $3 }'
	done | LC_ALL=C sort -u)
	bad=$(grep -Ev '^(ordma|fw)_' <<<"$fw_syms" || true)
	[ -z "$bad" ] ||
		die "firmware globals without the ordma_/fw_ prefix:" $bad
	other=$( {
		ldd "$BUILD/qemu-system-x86_64" |
			awk '$3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' |
			xargs nm -D --defined-only 2>/dev/null
		nm -g --defined-only "$BUILD"/*.a "$BUILD"/*.fa 2>/dev/null
	} | awk 'NF >= 3 { sub(/@.*/, "", $3); print $3 }' | LC_ALL=C sort -u)
	bad=$(LC_ALL=C comm -12 <(echo "$fw_syms") <(echo "$other"))
	[ -z "$bad" ] ||
		die "firmware globals also defined by QEMU or its libraries:" $bad
}
check_firmware_symbols

# ------------------------------------------------------------------
# Run-time checks on the copy that will be published
# ------------------------------------------------------------------
hdr_value() {
	local v
	v=$(awk -v n="$1" '$1 == "#define" && $2 == n { print $3; exit }' \
		"${HW_HEADERS[@]}")
	[ -n "$v" ] || die "$1 not found in the hardware header"
	echo $((v))
}

# BAR $2 of the ORDMA function in `info pci` output $1.  With -S no BIOS
# has assigned addresses: a BAR then reads "at 0xffffffffffffffff [end]",
# which still spans exactly its size.
bar_line() {
	grep -A8 'PCI device 1234:4f52' <<<"$1" | grep -m1 "BAR$2:" || true
}
bar_size() {
	local line start end
	line=$(bar_line "$1" "$2")
	start=$(sed -n 's/.* at \(0x[0-9a-f]*\) .*/\1/p' <<<"$line")
	end=$(sed -n 's/.*\[\(0x[0-9a-f]*\)\].*/\1/p' <<<"$line")
	[ -n "$start" ] && [ -n "$end" ] || { echo 0; return; }
	echo $((end - start + 1))
}

# qtest_run BIN CMD... -- QEMU-ARGS...: drive a paused q35 machine through
# the qtest protocol (no guest needed) and print one reply per command.
# QEMU does not exit at the end of its qtest input, so it is stopped here.
qtest_run() {
	local bin=$1 reply i
	local -a cmds=()
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		cmds+=("$1")
		shift
	done
	shift
	coproc QTEST { exec timeout 60 "$bin" -machine q35 -display none \
		-nodefaults -accel qtest -qtest stdio -qtest-log /dev/null \
		"${DATADIRS[@]}" "$@" 2>/dev/null; }
	printf '%s\n' "${cmds[@]}" >&"${QTEST[1]}"
	for ((i = 0; i < ${#cmds[@]}; i++)); do
		read -r -t 30 reply <&"${QTEST[0]}" || break
		echo "$reply"
	done
	kill "$QTEST_PID" 2>/dev/null || true
	wait "$QTEST_PID" 2>/dev/null || true
}

smoke() {
	local bin=$1 out pci=04.0 want got cap ptr id i vectors=8 db_pages=256
	local cf8 bar bits size db_page_size=$((1 << $(hdr_value ORDMA_DB_PAGE_SHIFT)))
	local -a cfgw=() b=() cmds=()

	"$bin" -device help 2>&1 | grep -q '^name "ordma"' ||
		die "smoke: -device help does not list ordma"

	out=$(printf 'info pci\ninfo qtree\nquit\n' | timeout 60 "$bin" \
		-machine q35 -accel tcg -display none -nodefaults -S -monitor stdio \
		"${DATADIRS[@]}" -netdev user,id=n0 \
		-device ordma,netdev=n0,id=ordma0,addr=$pci 2>&1) ||
		die "smoke: QEMU did not start: $out"
	grep -q 'PCI device 1234:4f52' <<<"$out" ||
		die "smoke: info pci does not show 1234:4f52: $out"
	grep -q 'Ethernet controller: PCI device 1234:4f52' <<<"$out" ||
		die "smoke: wrong class: $out"
	for want in "0 64 $(hdr_value ORDMA_REG_BAR_SIZE)" \
		    "2 64 $((db_pages * db_page_size))" \
		    "4 32 4096"; do
		read -r bar bits size <<<"$want"
		bar_line "$out" "$bar" | grep -q "$bits bit memory" ||
			die "smoke: BAR$bar is not a $bits-bit memory BAR: $(bar_line "$out" "$bar")"
		got=$(bar_size "$out" "$bar")
		[ "$got" = "$size" ] || die "smoke: BAR$bar size $got, want $size"
	done
	grep -q 'dev: ordma, id "ordma0"' <<<"$out" || die "smoke: no ordma in info qtree"

	# Config space through the q35 0xcf8/0xcfc ports (qtest, no guest):
	# IDs, class, revision, 64-bit BARs, the PCIe and MSI-X capabilities,
	# then VERSION read from BAR0 placed at 0xe0000000.
	cf8=$((0x80000000 | 0x${pci%.*} << 11))
	cmds=()
	for ((i = 0; i < 256; i += 4)); do
		cmds+=("outl 0xcf8 $(printf 0x%x $((cf8 | i)))" "inl 0xcfc")
	done
	cmds+=("outl 0xcf8 $(printf 0x%x $((cf8 | 0x10)))" "outl 0xcfc 0xe0000000"
	       "outl 0xcf8 $(printf 0x%x $((cf8 | 0x04)))" "outw 0xcfc 0x0002"
	       "readl 0xe0000000")
	mapfile -t cfgw < <(qtest_run "$bin" "${cmds[@]}" -- -device ordma,addr=$pci |
		sed -n 's/^OK \(0x[0-9a-f]*\)$/\1/p')
	[ ${#cfgw[@]} = 65 ] || die "smoke: qtest config read gave ${#cfgw[@]} values"
	for ((i = 0; i < 256; i++)); do
		b[i]=$(((cfgw[i / 4] >> (8 * (i % 4))) & 0xff))
	done
	want=$(($(hdr_value ORDMA_PCI_DEVICE_ID) << 16 | $(hdr_value ORDMA_PCI_VENDOR_ID)))
	[ $((cfgw[0])) = "$want" ] || die "smoke: config IDs ${cfgw[0]}"
	want=$(($(hdr_value ORDMA_PCI_CLASS) << 8 | $(hdr_value ORDMA_PCI_REVISION)))
	[ $((cfgw[2])) = "$want" ] || die "smoke: class/revision ${cfgw[2]}"
	[ $((cfgw[4] & 7)) = 4 ] && [ $((cfgw[6] & 7)) = 4 ] ||
		die "smoke: BAR0/BAR2 are not 64-bit memory BARs"
	cap=
	ptr=${b[0x34]}
	for ((i = 0; i < 48 && ptr; i++)); do
		id=${b[ptr]}
		case $id in
		16) cap+=" pcie" ;;
		17)
			got=$(((b[ptr + 2] | b[ptr + 3] << 8) & 0x7ff))
			[ $((got + 1)) = $vectors ] ||
				die "smoke: MSI-X table size $((got + 1)), want $vectors"
			[ $((b[ptr + 4] & 7)) = 4 ] && [ $((b[ptr + 8] & 7)) = 4 ] ||
				die "smoke: MSI-X table/PBA not in BAR4"
			cap+=" msix" ;;
		esac
		ptr=${b[ptr + 1]}
	done
	[[ $cap == *pcie* && $cap == *msix* ]] ||
		die "smoke: capabilities found:${cap:- none}, want pcie and msix"
	want=$(($(hdr_value ORDMA_HW_VERSION_MAJOR) << 16 | $(hdr_value ORDMA_HW_VERSION_MINOR)))
	[ $((cfgw[64])) = "$want" ] ||
		die "smoke: VERSION register reads ${cfgw[64]}, want $(printf 0x%08x "$want")"
	log "smoke ok: 1234:4f52 rev $(printf %02x "${b[8]}"), capabilities$cap," \
		"BAR0 $(hdr_value ORDMA_REG_BAR_SIZE) B, BAR2 $((db_pages * db_page_size)) B," \
		"BAR4 MSI-X x$vectors, VERSION $(printf 0x%08x "$want")"
}

# Both sanitizers are really in: their runtimes' entry points are called.
check_sanitizers() {
	local syms
	syms=$(nm "$1")
	grep -q '__asan_report' <<<"$syms" || die "no AddressSanitizer in $1"
	grep -q '__ubsan_handle' <<<"$syms" ||
		die "no UndefinedBehaviorSanitizer in $1"
	# Leaks are for make qtest-asan to judge: here a report at exit would
	# only make the smoke test's QEMU fail to start, as far as it can tell.
	export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
	log "sanitizers ok: ASan and UBSan calls in the binary"
}

stage=$(mktemp -d "$BIN_ROOT/.stage$KIND.XXXXXX")
trap 'rm -rf "$stage"' EXIT
cp "$BUILD/qemu-system-x86_64" "$stage/"
{
	echo "inputs $HASH, built $(date -u +%FT%TZ) from $SRC"
	for f in "${DEVICE_FILES[@]}" "$TRACE_EVENTS" "${HW_HEADERS[@]}" "$SCRIPT" \
		 "${QEMU_PATCHES[@]}"; do
		echo "$(sha256sum <"$f" | cut -c1-16) $f"
	done
	for f in "${FW_ALL[@]}"; do
		echo "$(sha256sum <"$FW_DIR/$f" | cut -c1-16) firmware/$f"
	done
} >"$stage/inputs.txt"
if [ -n "$KIND" ]; then
	check_sanitizers "$stage/qemu-system-x86_64"
fi
if [ "$SMOKE" = 1 ]; then
	smoke "$stage/qemu-system-x86_64"
fi

rm -rf "${OUT%/*}"
mv "$stage" "${OUT%/*}"
chmod 755 "${OUT%/*}"
trap - EXIT
touch "${OUT%/*}"
# Keep the few most recently used binaries, and any used in the last
# minutes: a caller may be about to start the path it was just given.
# Each kind (normal, -asan) keeps its own few.
of_kind() {
	if [ -n "$KIND" ]; then
		grep -e "$KIND/\$" || true
	else
		grep -v -e '-asan/$' || true
	fi
}
ls -1dt "$BIN_ROOT"/*/ | of_kind | tail -n +$((KEEP_BINARIES + 1)) | while read -r old; do
	[ -z "$(find "${old%/}" -maxdepth 0 -mmin -10)" ] || continue
	log "dropping old binary ${old%/}"
	rm -rf "${old%/}"
done
log "done: $(du -h "$OUT" | cut -f1) binary"
echo "$OUT"
exit 0
}
