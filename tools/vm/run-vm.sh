#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Boot Debian's kernel with this repository's modules under QEMU (TCG) and
# run a command in the guest; judge the run and print it as TAP.
#
# Usage: run-vm.sh [options] TOPOLOGY
#   single   one VM, 2 vCPUs, two ORDMA NICs cabled to each other
#   pair     two VMs, 1 vCPU each, one ORDMA NIC each, cabled together
#   smoke    one VM, two virtio-net NICs cabled together: validates the
#            harness itself (no ORDMA device needed)
# Options:
#   -o DIR       output directory (default build/vm/TOPOLOGY-TIMESTAMP)
#   -c CMD       guest command (default: the topology's selftests)
#   -T "TESTS"   selftests to run (names in selftests/ordma/; default for
#                single: TEST_PROGS of selftests/ordma/Makefile, pair: ping, verbs_pair, verbs_rxe_pair, storage_pair, ucx_pair, mpi_pair)
#   -t SECS      hard timeout of each VM (default 900)
#   -i, --iommu  add an Intel IOMMU (intel_iommu=on iommu.strict=1)
#   -n, --no-udev  do not start udevd in the guest
#   -w, --wire SPEC  impair every ORDMA NIC's cable on transmit (see below)
#   -p, --pcap   capture every ORDMA port to DIR/<vm>/<id>.pcapng (below)
#   --pcap-failed  the same with 256-byte snaps, kept only if the run fails
#   -r, --record  record every ORDMA port's firmware inputs, replay them (below)
#   --record-max-mb N  size cap of each recording (default 64)
#   --record-failed  record and replay, keep the logs only if the run fails
#   -f, --fwtrace  trace every ORDMA port's firmware, make the run's timeline (below)
#   --fwtrace-failed  the same, kept only if the run fails
#   -H, --host-requests  carry out what the guests ask of the host (below)
#   --fw-image IMG  every ORDMA NIC boots the signed firmware image IMG
#                from a flash file of its own (DIR/<vm>/wireN.flash); the
#                guest gets its version in ORDMA_FW_IMAGE_VERSION
#   --fw-pubkey PUB  the key IMG is signed with (default: the development
#                key of make fw-image, build/fw/ordma-dev.pub)
#   -v           copy the serial console to stderr while running
#   -V           the same, without the timestamp and VM name prefixes
#   --asan       QEMU built with ASan, LSan and UBSan (see below)
#   -e NAME=VALUE  set NAME (ORDMA_*) in the guest's environment, e.g. a
#                selftest's size or repeat count (make soak); repeatable
#   -l, --link eth|ib  the ORDMA ports' link layer (default eth: RoCEv2;
#                ib: InfiniBand, the device's link-layer property); the
#                guest gets it in ORDMA_LINK_LAYER
#
# Every NIC is cabled with a UDP socket between two free loopback ports:
# an ORDMA port owns its socket (cable-local/cable-peer, served by the
# device's engine thread), other NICs get a socket netdev.  The two
# ORDMA NICs of single are cabled in memory instead (cable-to).  NIC n (n = 1, 2) has MAC 52:54:00:12:34:0n; NIC 1 has serial
# ORDSN0001, NIC 2 the device's default (ORD123402).  Each NIC sits
# behind its own PCIe root port: single has NIC 1 at 0000:01:00.0 and
# NIC 2 at 0000:02:00.0; pair has NIC 1 in vmA and NIC 2 in vmB, both at
# 0000:01:00.0.  The guest gets these facts in ORDMA_NICS.
#
# The cables' sockets get 64 MiB buffers each way (QEMU as built by
# tools/qemu/build-qemu.sh; beyond net.core.[rw]mem_max only as root);
# the datagrams the host still dropped on a full receive buffer are in
# the output and in DIR/cable-drops.txt ("VM CABLE DROPS" lines).
#
# Results go to DIR/<vm>/: serial.log, qemu.cmdline, qemu.log and the
# guest's results share guest/ (guest.env, guest-cmd.log, guest-rc,
# dmesg.txt, selftests/).  DIR/result.tap holds the verdict.  Exit status:
# 0 pass, 1 fail, 4 skipped (e.g. QEMU without the ordma device).
#
# A boot whose kernel dies (panic or oops) before the guest command
# starts says nothing about the code under test (one was a TCG
# text-patching flake 1.6 s into boot): the VMs boot once more, and the
# output says so (the first boot's files go to DIR/first-boot/).  A run
# whose guest command started is never repeated.  VM_FAIL_FIRST_BOOT=1
# makes the first boot die that way, to test this.
#
# VM_ORDMA_PROPS=LIST adds device properties to every ORDMA NIC (e.g.
# VM_ORDMA_PROPS=poll-us=0 to measure the engine without polling).
#
# --wire SPEC, e.g. loss=1%,reorder=0.5%,dup=0.1%,corrupt=0.1%,delay=50,seed=7:
# what each ORDMA NIC's cable does to the frames that NIC sends (the
# device's wire-* properties, Documentation/ordma/hw-reference.rst):
# loss, reorder, dup, corrupt are rates, P% or Nppm; delay is in µs;
# seed (default 1) seeds NIC 1's generator, NIC 2 gets seed+1.  The
# guest gets SPEC in ORDMA_WIRE; the faults each NIC injected are in
# the output and in DIR/wire-faults.txt ("VM CABLE LOSS REORDER DUP
# CORRUPT DELAY" lines).  The settings can be changed while the guest
# runs with QMP/HMP qom-set on /machine/peripheral/wireN.
#
# --pcap: every ORDMA NIC (wire1, wire2) writes what it sends and
# receives to a pcapng file, DIR/<vm>/wireN.pcapng (the device's pcap
# property; Documentation/ordma/user-guide.rst, "Capturing the wire"),
# whole frames, each frame the wire impaired (--wire) marked with a
# comment.  Both ends of a cable capture: a frame is in the sender's
# file (out) and the receiver's (in).  After the run each capture is
# checked: pcap-icrc (make qemu-unit builds it) must find the ICRC of
# every RoCEv2 frame sent good but those marked corrupted, which must be
# bad, the marks must add up to the faults the NIC reported, and tshark
# must read every frame without a malformed one (and, in a capture with
# iWARP, dissect every MPA connection whole: tools/vm/pcap-iwarp.sh,
# DIR/pcap-iwarp.txt); across each cable, the
# frames one end sent less those lost (and the datagrams the host
# dropped) must be those the other end received, and the bad ICRCs on
# arrival the frames corrupted (DIR/pcap-check.txt).  --pcap-failed captures the
# first 256 bytes of each frame without checking them and deletes the
# captures of a run that passed (make check).  The selftest runner asks
# the host (as with --host-requests, for this only) to put a marker into
# every capture before and after each test: a frame with no direction,
# commented "mark: selftest NAME begins" or "... ends: PASS".  A guest
# may also ask for "pcap off" and "pcap on" (a new file) on every port
# (tools/bench/pcap-cost.sh measures the capture that way).
#
# --record: every ORDMA NIC logs its firmware's entry calls and HAL
# answers to DIR/<vm>-wireN.rec (the device's record property,
# Documentation/ordma/replay.rst, "Recording a device in QEMU"), capped
# at --record-max-mb MiB each (64 by default; every frame the port
# sends or receives is in its log whole: a test that moves data needs
# far more, make check's wire_impair run 2048).  After the run
# build/firmware/ordma-replay (make -C firmware) replays each log, one
# result per log, failed on a divergence or a log it cannot read
# (DIR/record-check.txt has what it said).  QEMU's exit ends every log
# ("recorded until QEMU exited"); a log that ended before (the size
# cap) says why in the output.  Both topologies record whole runs: a
# frame sent over single's cable in memory runs the other port's
# firmware inside the sender's HAL call, which is an entry of the other
# port's recorder, not a nested one of the sender's.
#
# --fwtrace: every ORDMA NIC writes its firmware's trace records to
# DIR/<vm>/wireN.fwtrace (the device's fwtrace property,
# Documentation/ordma/timeline.rst), and after the run
# tools/diag/ordma-trace merges them with the captures of --pcap, if any,
# into DIR/timeline.txt and DIR/timeline.html (DMA records left out of
# both: ordma-trace --kind dma_read,dma_write DIR/<vm> shows them).
# --fwtrace-failed deletes the traces of a run that passed.
# --record-failed records and replays as --record does and deletes the
# logs of a run that passed (the replays included).
#
# --asan runs the VMs on the QEMU that SANITIZE=1 tools/qemu/build-qemu.sh
# builds (about 25 minutes the first time; it is several times slower,
# so give -t more); QEMU= still overrides it.  Whatever the QEMU, a sanitizer
# report in a VM's qemu.log fails the run.
#
# VM_QMP_DIR=DIR gives each VM a QMP socket, DIR/<vm>.qmp (e.g. for
# qom-set on the NICs' wire-* properties while the guest runs).
#
# --host-requests lets a guest act on the machine it runs in, for the
# tests of what the device does when QEMU quits or a port is unplugged
# under traffic.  The guest writes one request to host-request in its
# results share (selftests/ordma/lib.sh: ordma_host_request); the host
# carries it out over QMP (tools/vm/qmp-request.py) and answers in
# host-request.done ("STATUS MESSAGE", 0 when done).  Requests:
# "quit" (this VM), "quit peer" (the other VM of pair), "device_del ID"
# (ID wire1 or wire2: NIC 1 or 2; the answer comes once QEMU reports
# the device gone).  A VM quit on request is judged on what it did
# before: its missing guest result and dmesg are skipped, not failed.
# shellcheck disable=SC2054 # QEMU options contain commas
set -euo pipefail
. "$(dirname "$0")/lib.sh"
# shellcheck source=tools/testing/ktap.sh
. "$ORDMA_REPO/tools/testing/ktap.sh"

OUT=
GUEST_CMD=
TESTS=
TIMEOUT=${VM_TIMEOUT:-900}
IOMMU=0
UDEV=1
VERBOSE=0
WIRE=
PCAP=
RECORD=0
RECORD_MAX_MB=0
RECORD_KEEP=all
FWTRACE=
HOST_REQUESTS=0
FW_IMAGE=
FW_IMAGE_VERSION=
FW_PUBKEY=$ORDMA_REPO/build/fw/ordma-dev.pub
GUEST_VARS=()
LINK_LAYER=eth
usage() {
	sed -n '4,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
	exit 2
}
while [ $# -gt 0 ]; do
	case "$1" in
	-o) OUT=$2; shift 2 ;;
	-c) GUEST_CMD=$2; shift 2 ;;
	-T) TESTS=$2; shift 2 ;;
	-t) TIMEOUT=$2; shift 2 ;;
	-i | --iommu) IOMMU=1; shift ;;
	-n | --no-udev) UDEV=0; shift ;;
	-w | --wire) WIRE=$2; shift 2 ;;
	-l | --link) LINK_LAYER=$2; shift 2 ;;
	-p | --pcap) PCAP=all; shift ;;
	--pcap-failed) PCAP=failed; shift ;;
	-r | --record) RECORD=1; shift ;;
	--record-max-mb) RECORD=1 RECORD_MAX_MB=$2; shift 2 ;;
	--record-failed) RECORD=1 RECORD_KEEP=failed; shift ;;
	-f | --fwtrace) FWTRACE=all; shift ;;
	--fwtrace-failed) FWTRACE=failed; shift ;;
	-H | --host-requests) HOST_REQUESTS=1; shift ;;
	--fw-image) FW_IMAGE=$2; shift 2 ;;
	--fw-pubkey) FW_PUBKEY=$2; shift 2 ;;
	-v) VERBOSE=1; shift ;;
	-V) VERBOSE=2; shift ;;
	--asan) export SANITIZE=1 UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}; shift ;;
	-e)
		[[ ${2:-} =~ ^ORDMA_[A-Z0-9_]+=.*$ ]] ||
			{ echo "run-vm.sh: -e takes ORDMA_NAME=VALUE, not '${2:-}'" >&2; exit 2; }
		GUEST_VARS+=("$2"); shift 2 ;;
	-h | --help) usage ;;
	-*) usage ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || usage
TOPOLOGY=$1

SELFTESTS=$ORDMA_REPO/selftests
RUNNER=$SELFTESTS/ordma/run_kselftest.sh
case "$TOPOLOGY" in
single)
	# Default: TEST_PROGS of selftests/ordma/Makefile
	NODES=(vm0); SMP=2; MEM=2048; NIC_DEV=ordma
	default_tests= ;;
pair)
	NODES=(vmA vmB); SMP=1; MEM=1536; NIC_DEV=ordma
	default_tests="ping verbs_pair verbs_rxe_pair storage_pair ucx_pair mpi_pair" ;;
smoke)
	NODES=(vm0); SMP=2; MEM=1024; NIC_DEV=virtio-net-pci
	default_tests="$SELFTESTS/harness/vm_boot.sh" ;;
*) usage ;;
esac
TESTS=${TESTS:-$default_tests}

# wire_rate VALUE: P% or Nppm as parts per million
wire_rate() {
	local v=$1
	case $v in
	*ppm) v=${v%ppm}; [[ $v =~ ^[0-9]+$ ]] || return 1; echo "$v" ;;
	*%) v=${v%\%}; [[ $v =~ ^[0-9]+(\.[0-9]{1,4})?$ ]] || return 1
		awk -v p="$v" 'BEGIN { printf "%d\n", p * 10000 + 0.5 }' ;;
	*) return 1 ;;
	esac
}
# wire_props SPEC SEED_OFFSET: SPEC as ordma properties (a comma list)
wire_props() {
	local item key val out= seed=1 ppm
	local IFS=,
	for item in $1; do
		key=${item%%=*} val=${item#*=}
		[ "$key" != "$item" ] && [ -n "$val" ] ||
			vm_die "--wire: '$item' is not KEY=VALUE"
		case $key in
		loss | reorder | dup | corrupt)
			ppm=$(wire_rate "$val") && [ "$ppm" -le 1000000 ] ||
				vm_die "--wire: $key=$val: a rate is 0..100% or 0..1000000ppm"
			out+=",wire-$key-ppm=$ppm" ;;
		delay)
			val=${val%us}
			[[ $val =~ ^[0-9]+$ ]] && [ "$val" -le 1000000 ] ||
				vm_die "--wire: delay=$val: microseconds, 0..1000000"
			out+=",wire-delay-us=$val" ;;
		seed)
			[[ $val =~ ^[0-9]+$ ]] || vm_die "--wire: seed=$val: a number"
			seed=$val ;;
		*) vm_die "--wire: unknown impairment '$key' (loss, reorder, dup, corrupt, delay, seed)" ;;
		esac
	done
	printf '%swire-seed=%s' "${out#,}${out:+,}" "$((seed + $2))"
}
if [ -n "$WIRE" ]; then
	[ "$NIC_DEV" = ordma ] || vm_die "--wire needs ORDMA NICs (not the $TOPOLOGY topology)"
	wire_props "$WIRE" 0 >/dev/null
fi
[ -z "$PCAP" ] || [ "$NIC_DEV" = ordma ] ||
	vm_die "--pcap needs ORDMA NICs (not the $TOPOLOGY topology)"
case $LINK_LAYER in
eth) ;;
ib) [ "$NIC_DEV" = ordma ] ||
	vm_die "--link ib needs ORDMA NICs (not the $TOPOLOGY topology)" ;;
*) vm_die "--link: '$LINK_LAYER' is neither eth nor ib" ;;
esac
[ "$RECORD" = 0 ] || [ "$NIC_DEV" = ordma ] ||
	vm_die "--record needs ORDMA NICs (not the $TOPOLOGY topology)"
[ -z "$FWTRACE" ] || [ "$NIC_DEV" = ordma ] ||
	vm_die "--fwtrace needs ORDMA NICs (not the $TOPOLOGY topology)"
if [ -n "$FW_IMAGE" ]; then
	[ "$NIC_DEV" = ordma ] || vm_die "--fw-image needs ORDMA NICs (not the $TOPOLOGY topology)"
	[ -r "$FW_IMAGE" ] && [ -r "$FW_PUBKEY" ] ||
		vm_die "--fw-image $FW_IMAGE, --fw-pubkey $FW_PUBKEY: not readable (make fw-image)"
	FW_IMAGE_TOOL=$ORDMA_REPO/build/bin/ordma-fw-image
	make -s -C "$ORDMA_REPO" fw-image-tool >/dev/null || vm_die "cannot build ordma-fw-image"
	# what the guest's drivers must report
	FW_IMAGE_VERSION=$("$FW_IMAGE_TOOL" info "$FW_IMAGE" | awk '$1 == "fw_version" { print $2 }')
	[ -n "$FW_IMAGE_VERSION" ] || vm_die "--fw-image $FW_IMAGE: not an image"
fi
if ! [[ $RECORD_MAX_MB =~ ^[0-9]{1,4}$ ]] || [ "$RECORD_MAX_MB" -gt 4095 ]; then
	vm_die "--record-max-mb $RECORD_MAX_MB: MiB, 0..4095 (0: 64)"
fi

stamp=$(date +%Y%m%d-%H%M%S)
suffix=$TOPOLOGY$([ "$IOMMU" = 1 ] && echo -iommu || true)
OUT=${OUT:-$ORDMA_REPO/build/vm/$suffix-$stamp}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
ln -sfn "$OUT" "$(dirname "$OUT")/$suffix-latest" 2>/dev/null || true
TAP=$OUT/result.tap
: >"$TAP"

finish_skip() {
	printf 'TAP version 13\n1..0 # SKIP %s\n' "$1" | tee "$TAP"
	exit 4
}

t_start=$(date +%s.%N)
vm_need_kernel
QEMU_BIN=$(vm_find_qemu "$([ "$NIC_DEV" = ordma ] || echo any)")
if [ "$NIC_DEV" = ordma ] && ! vm_qemu_has_device "$QEMU_BIN" ordma; then
	finish_skip "$QEMU_BIN has no ordma device"
fi
mapfile -t datadirs < <(vm_qemu_datadirs)
initramfs=$("$VM_TOOLS/build-initramfs.sh" | tail -n 1)
modtree=$("$VM_TOOLS/build-modtree.sh" | tail -n 1)
provider=$(vm_provider_dir "$OUT/provider-build.log")
# Hold the provider build for the whole run: tools/provider/build.sh
# prunes old builds, but never one whose lock is held.
if [ -n "$provider" ] && [ -f "$(dirname "$provider")/.lock" ]; then
	exec 8<"$(dirname "$provider")/.lock"
	flock -s 8
fi
diag=$ORDMA_REPO/build/bin/ordma-diag
REPLAY=$ORDMA_REPO/build/firmware/ordma-replay
PCAP_ICRC=$ORDMA_REPO/build/qemu-unit/pcap-icrc
TSHARK_NO_ULP=()
for h in rpcrdma smb_direct iser smcr sdp fc; do
	TSHARK_NO_ULP+=(--disable-heuristic "${h}_infiniband")
done
# the same guesses inside an iWARP Send (perftest's 4-byte Sends of
# ib_send_bw -R read as malformed RPC over RDMA)
TSHARK_NO_ULP+=(--disable-heuristic rpcrdma_iwarp --disable-heuristic smb_direct_iwarp)
PCAP_IWARP=$VM_TOOLS/pcap-iwarp.sh
kernel=$KIMAGE/boot/vmlinuz-$KVER
[ -f "$kernel" ] || vm_die "no kernel at $kernel"
[ -n "$(find "$ORDMA_REPO/drivers" -name '*.ko' 2>/dev/null)" ] ||
	[ "$TOPOLOGY" = smoke ] || vm_log "warning: no modules built under drivers/"

mapfile -t ports < <(vm_free_udp_ports 2)
[ ${#ports[@]} -eq 2 ] || vm_die "could not find free UDP ports"

# nic_args NIC SLOT LOCAL_PORT PEER_PORT VM: NIC number NIC (1-based: MAC,
# serial) behind root port number SLOT (1-based: the guest's bus number)
# of VM (its output directory holds the NIC's capture)
nic_args() {
	local i=$1 slot=$2 lport=$3 pport=$4 vm=$5 mac cable
	mac=$(printf '52:54:00:12:34:%02x' "$i")
	printf '%s\n' -device "pcie-root-port,id=rp$slot,bus=pcie.0,chassis=$slot,addr=0x$((slot + 9))"
	case "$NIC_DEV" in
	ordma)
		# The port's own cable, served by the device's engine thread:
		# in memory between the two NICs of one VM, else UDP.
		# NIC 1 gets an explicit serial, NIC 2 keeps the device default.
		if [ "$TOPOLOGY" = single ]; then
			cable="id=wire$i,cable-to=wire$((3 - i))"
		else
			cable="id=wire$i,cable-local=127.0.0.1:$lport,cable-peer=127.0.0.1:$pport"
		fi
		cable+=${VM_ORDMA_PROPS:+,$VM_ORDMA_PROPS}
		[ "$LINK_LAYER" = eth ] || cable+=",link-layer=$LINK_LAYER"
		[ -z "$WIRE" ] || cable+=,$(wire_props "$WIRE" $((i - 1)))
		case $PCAP in
		all) cable+=",pcap=$OUT/$vm/wire$i.pcapng" ;;
		failed) cable+=",pcap=$OUT/$vm/wire$i.pcapng,pcap-snaplen=256" ;;
		esac
		[ "$RECORD" = 0 ] ||
			cable+=",record=$OUT/$vm-wire$i.rec,record-max-mb=$RECORD_MAX_MB"
		[ -z "$FWTRACE" ] || cable+=",fwtrace=$OUT/$vm/wire$i.fwtrace"
		[ -z "$FW_IMAGE" ] ||
			cable+=",flash=$OUT/$vm/wire$i.flash,fw-pubkey=$FW_PUBKEY"
		if [ "$i" = 1 ]; then
			printf '%s\n' -device "ordma,$cable,mac=$mac,serial=ORDSN0001,bus=rp$slot"
		else
			printf '%s\n' -device "ordma,$cable,mac=$mac,bus=rp$slot"
		fi ;;
	*)
		printf '%s\n' -netdev "socket,id=wire$i,udp=127.0.0.1:$pport,localaddr=127.0.0.1:$lport" \
			-device "$NIC_DEV,netdev=wire$i,mac=$mac,romfile=,bus=rp$slot" ;;
	esac
}
# nic_expect NIC SLOT: "BDF,MAC,SERIAL" as the guest should see it
nic_expect() {
	local i=$1 slot=$2 serial
	serial=$([ "$i" = 1 ] && echo ORDSN0001 || printf 'ORD1234%02x' "$i")
	printf '0000:%02x:00.0,52:54:00:12:34:%02x,%s' "$slot" "$i" "$serial"
}

QMP_DIR=${VM_QMP_DIR:-}
[ "$HOST_REQUESTS" = 0 ] && [ -z "$PCAP" ] || QMP_DIR=${QMP_DIR:-$OUT}

declare -A PID=()
SERVERS=()
cleanup() {
	local n
	for n in "${!PID[@]}"; do
		kill "${PID[$n]}" 2>/dev/null || true
	done
	for n in "${SERVERS[@]}"; do
		kill "$n" 2>/dev/null || true
	done
}

# peer_of NAME: the other VM of pair
peer_of() {
	case $1 in vmA) echo vmB ;; vmB) echo vmA ;; *) return 1 ;; esac
}

# serve_host_requests NAME: carry out what VM NAME's guest asks of the
# host (--host-requests) until its QEMU has ended.  The guest writes its
# request through 9p and the host has no event for it: poll the file.
serve_host_requests() {
	local name=$1 d=$OUT/$1 req target rc reply
	while [ ! -e "$d/qemu-rc" ]; do
		if [ ! -e "$d/guest/host-request" ]; then
			sleep 0.1
			continue
		fi
		req=$(cat "$d/guest/host-request")
		rm -f "$d/guest/host-request"
		target=$name
		if [ "$req" = "quit peer" ]; then
			req=quit
			target=$(peer_of "$name") || target=
		fi
		case $req in
		quit | "device_del wire"[12]) [ "$HOST_REQUESTS" = 1 ] || target= ;;
		"pcap-mark "*) [ -n "$PCAP" ] || target= ;;
		# the captures switched (tools/bench/pcap-cost.sh): every port,
		# or the ports named after "pcap on"
		"pcap on" | "pcap on "*)
			[ -n "$PCAP" ] && req="pcap-set $OUT/$name${req#pcap on}" || target= ;;
		"pcap off") [ -n "$PCAP" ] && req="pcap-set off" || target= ;;
		*) target= ;;
		esac
		if [ -z "$target" ]; then
			rc=2 reply="refused: '$req' is not a request for this topology"
		else
			[ "$req" != quit ] || echo "$name" >"$OUT/$target/quit-requested"
			# shellcheck disable=SC2086 # the request's words are arguments
			reply=$("$VM_TOOLS/qmp-request.py" "$QMP_DIR/$target.qmp" $req 2>&1) &&
				rc=0 || rc=$?
		fi
		vm_log "$name asked for '$req' on ${target:-nothing}: $reply"
		echo "$name: $req: $rc $reply" >>"$OUT/host-requests.log"
		printf '%s %s\n' "$rc" "$reply" >"$d/guest/host-request.tmp"
		mv "$d/guest/host-request.tmp" "$d/guest/host-request.done"
	done
}

# boot_node NAME ROLE NIC_ARGS... : start one VM in the background
boot_node() {
	local name=$1 role=$2 d=$OUT/$1
	shift 2
	rm -rf "$d"
	mkdir -p "$d/guest"
	local nics=() expect=() i
	# each NIC's flash, holding the image in its active slot
	if [ -n "$FW_IMAGE" ]; then
		for i in 1 2; do
			"$FW_IMAGE_TOOL" flash -o "$d/wire$i.flash" "$FW_IMAGE" >/dev/null ||
				vm_die "cannot make $d/wire$i.flash"
		done
	fi
	case "$TOPOLOGY:$role" in
	single:* | smoke:*)
		mapfile -t nics < <(nic_args 1 1 "${ports[0]}" "${ports[1]}" "$name"
			nic_args 2 2 "${ports[1]}" "${ports[0]}" "$name")
		expect=("$(nic_expect 1 1)" "$(nic_expect 2 2)") ;;
	pair:A)
		mapfile -t nics < <(nic_args 1 1 "${ports[0]}" "${ports[1]}" "$name")
		expect=("$(nic_expect 1 1)") ;;
	pair:B)
		mapfile -t nics < <(nic_args 2 1 "${ports[1]}" "${ports[0]}" "$name")
		expect=("$(nic_expect 2 1)") ;;
	esac
	local cmd=$GUEST_CMD v
	[ -n "$cmd" ] || cmd="$RUNNER -o /mnt/results/selftests $TESTS"
	{
		printf 'GUEST_NAME=%q\nGUEST_TOPOLOGY=%q\nGUEST_ROLE=%q\n' "$name" "$TOPOLOGY" "$role"
		printf 'GUEST_CMD=%q\nGUEST_UDEV=%q\n' "$cmd" "$UDEV"
		printf 'ORDMA_REPO=%q\nORDMA_RESULTS=/mnt/results\n' "$ORDMA_REPO"
		printf 'ORDMA_NICS=%q\nORDMA_IOMMU=%q\n' "${expect[*]}" "$IOMMU"
		printf 'ORDMA_WIRE=%q\nORDMA_PROPS=%q\n' "$WIRE" "${VM_ORDMA_PROPS:-}"
		printf 'ORDMA_DIAG=%q\nORDMA_PROVIDER_DIR=%q\n' "$diag" "$provider"
		printf 'ORDMA_HOST_REQUESTS=%q\nORDMA_PCAP=%q\n' "$HOST_REQUESTS" "$PCAP"
		printf 'ORDMA_FW_IMAGE_VERSION=%q\n' "$FW_IMAGE_VERSION"
		printf 'ORDMA_LINK_LAYER=%q\n' "$LINK_LAYER"
		for v in "${GUEST_VARS[@]}"; do
			printf '%s=%q\n' "${v%%=*}" "${v#*=}"
		done
		if [ "$TOPOLOGY" = pair ]; then
			printf 'ORDMA_SYNC=/mnt/sync\nORDMA_PEER_ROLE=%s\n' "$([ "$role" = A ] && echo B || echo A)"
			printf 'ORDMA_LOCAL_IP=192.0.2.%s\nORDMA_PEER_IP=192.0.2.%s\n' \
				"$([ "$role" = A ] && echo 1 || echo 2)" "$([ "$role" = A ] && echo 2 || echo 1)"
		fi
	} >"$d/guest/guest.env"

	local append="console=ttyS0,115200 quiet panic=-1 net.ifnames=0"
	append+=" ordma.init=$VM_TOOLS/guest-init.sh ordma.modtree=$modtree"
	# no initramfs init: the kernel panics before any guest command
	[ "$boot" = 1 ] && [ "${VM_FAIL_FIRST_BOOT:-0}" = 1 ] &&
		append+=" rdinit=/no-such-init"
	local args=(-machine q35 -accel tcg,thread=multi -cpu max -smp "$SMP" -m "$MEM"
		-nodefaults -no-user-config -display none -no-reboot
		-serial stdio -monitor none)
	if [ "$IOMMU" = 1 ]; then
		args+=(-device intel-iommu,intremap=on)
		append+=" intel_iommu=on iommu.strict=1"
	fi
	args+=(-kernel "$kernel" -initrd "$initramfs"
		-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap
		-virtfs "local,path=$d/guest,mount_tag=results,security_model=none,multidevs=remap")
	if [ "$TOPOLOGY" = pair ]; then
		args+=(-virtfs "local,path=$OUT/sync,mount_tag=sync,security_model=none,multidevs=remap")
		append+=" ordma.sync=1"
	fi
	[ -z "$QMP_DIR" ] ||
		args+=(-qmp "unix:$QMP_DIR/$name.qmp,server=on,wait=off")
	args+=("${nics[@]}" -append "$append")

	local full=("$QEMU_BIN" "${datadirs[@]}" "${args[@]}")
	printf '%q ' "${full[@]}" >"$d/qemu.cmdline"
	echo >>"$d/qemu.cmdline"
	vm_log "booting $name ($TOPOLOGY, smp $SMP, iommu $IOMMU)"
	(
		t0=$(date +%s.%N)
		set +e
		timeout -k 10 "$TIMEOUT" "${full[@]}" </dev/null 2>"$d/qemu.log" |
			T0=$t0 perl -MTime::HiRes=time -ne \
				'BEGIN { $| = 1 } printf("[host %8.3f] %s", time - $ENV{T0}, $_)' |
			case "$VERBOSE" in
			1) tee "$d/serial.log" | sed -u "s/^/$name: /" >&2 ;;
			2) tee "$d/serial.log" | sed -u 's/^\[host [ 0-9.]*\] //' >&2 ;;
			*) cat >"$d/serial.log" ;;
			esac
		echo "${PIPESTATUS[0]}" >"$d/qemu-rc"
		t1=$(date +%s.%N)
		awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f\n", b - a }' >"$d/wall-seconds"
	) &
	PID[$name]=$!
}

# boot_all: boot every VM of the topology and wait until all are off
boot_all() {
	local n
	trap cleanup EXIT INT TERM
	if [ "$TOPOLOGY" = pair ]; then
		rm -rf "$OUT/sync"
		mkdir -p "$OUT/sync"
		boot_node vmA A
		boot_node vmB B
	else
		boot_node vm0 single
	fi
	SERVERS=()
	if [ "$HOST_REQUESTS" = 1 ] || [ -n "$PCAP" ]; then
		for n in "${NODES[@]}"; do
			serve_host_requests "$n" &
			SERVERS+=($!)
		done
	fi
	for n in "${NODES[@]}"; do
		wait "${PID[$n]}" || true
		unset "PID[$n]"
	done
	for n in "${SERVERS[@]}"; do
		wait "$n" || true
	done
	SERVERS=()
	trap - EXIT INT TERM
}

# boot_died_early: prints why, if no VM's guest command started (the
# marker guest-init.sh prints before it) and a VM's kernel died before
boot_died_early() {
	local n log died why=
	for n in "${NODES[@]}"; do
		log=$OUT/$n/serial.log
		grep -q 'ordma-guest: running: ' "$log" 2>/dev/null && return 0
		died=$(grep -m1 -E 'Kernel panic|Oops' "$log" 2>/dev/null |
			sed 's/^\[host [ 0-9.]*\] //') || true
		[ -z "$died" ] || why+="${why:+; }$n died before the guest command started: $died"
	done
	printf '%s' "$why"
}

boot=1
[ "$RECORD" = 0 ] || rm -f "$OUT"/*.rec
boot_all
early=$(boot_died_early)
if [ -n "$early" ]; then
	vm_log "$early"
	vm_log "booting once more (first boot in $OUT/first-boot)"
	rm -rf "$OUT/first-boot"
	mkdir -p "$OUT/first-boot"
	for n in "${NODES[@]}"; do
		mv "$OUT/$n" "$OUT/first-boot/$n"
	done
	boot=2
	boot_all
fi

# ---------------------------------------------------------------- verdict
# A sanitizer report in a VM's qemu.log (QEMU built with them: --asan)
sanitizer_verdict() {
	local n report
	for n in "${NODES[@]}"; do
		report=$(grep -m1 -E 'ERROR: (Address|Leak)Sanitizer|SUMMARY: [A-Za-z]+Sanitizer|: runtime error: ' \
			"$OUT/$n/qemu.log" 2>/dev/null) || continue
		ktap_test_fail "$n: QEMU reported no sanitizer error (see $OUT/$n/qemu.log: $report)"
	done
}

# --pcap: each capture's ICRCs against its marks (pcap-icrc), its marks
# against the faults its NIC reported at exit, tshark's reading; and
# across each cable, what one end sent against what the other received.
pcap_verdict() {
	local n f id line faults marks malformed frames rc peer pf pline drops
	local sent lost got bad_in bad_out what
	[ "$PCAP" = all ] || return 0
	if [ ! -x "$PCAP_ICRC" ]; then
		ktap_test_fail "captures checked (no $PCAP_ICRC: make qemu-unit)"
		return 0
	fi
	: >"$OUT/pcap-check.txt"
	rm -f "$OUT/pcap-iwarp.txt"
	for n in "${NODES[@]}"; do
		for f in "$OUT/$n"/wire*.pcapng; do
			[ -e "$f" ] || continue
			id=$(basename "$f" .pcapng)
			rc=0
			line=$("$PCAP_ICRC" "$f" 2>&1 | tail -n 1) || rc=$?
			echo "$n $id $line" >>"$OUT/pcap-check.txt"
			if [ "$rc" = 0 ]; then
				ktap_test_pass "$n: capture $id: ICRC bad on exactly the frames sent marked corrupt ($line)"
			else
				ktap_test_fail "$n: capture $id: ICRC bad on exactly the frames sent marked corrupt ($line)"
			fi
			faults=$(sed -n "s/.*cable $id: wire faults injected: \([0-9]*\) loss, \([0-9]*\) reorder, \([0-9]*\) dup, \([0-9]*\) corrupt, \([0-9]*\) delay.*/\1 loss, \2 reorder, \3 dup, \4 corrupt, \5 delay/p" \
				"$OUT/$n/qemu.log" 2>/dev/null | tail -n 1)
			marks=${line##*marks: }
			if [ -z "$faults" ] && [ "$marks" = "0 loss, 0 reorder, 0 dup, 0 corrupt, 0 delay" ] ||
				[ "$faults" = "$marks" ]; then
				ktap_test_pass "$n: capture $id: marks match the faults the NIC reported ($marks)"
			else
				ktap_test_fail "$n: capture $id: marks ($marks) match the faults the NIC reported (${faults:-none})"
			fi
			if ! command -v tshark >/dev/null; then
				ktap_test_skip "$n: capture $id: tshark reads every frame" "no tshark"
				continue
			fi
			# one line per frame: its number, "1" if malformed, and
			# the MPA request key if it is one.  Wireshark guesses the
			# protocol inside a SEND's payload (RPC over RDMA, SMB
			# Direct, iSER, ...): ib_send_lat's 2-byte payloads read
			# as malformed RPC over RDMA.  The frames are judged, not
			# what the test put in them.
			read -r frames malformed mpa < <(tshark -n -r "$f" "${TSHARK_NO_ULP[@]}" \
				-T fields -e frame.number -e _ws.malformed -e iwarp_mpa.key.req 2>/dev/null |
				awk -F '\t' '{ n++; if ($2 != "") m++; if ($3 != "") r++ } END { print n + 0, m + 0, r + 0 }')
			if [ "$malformed" = 0 ] && [ "$frames" = "${line%% frames*}" ]; then
				ktap_test_pass "$n: capture $id: tshark reads every frame, none malformed ($frames frames)"
			else
				ktap_test_fail "$n: capture $id: tshark reads every frame, none malformed ($frames of ${line%% frames*} frames read, $malformed malformed)"
			fi
			# iWARP connections (siw.sh): MPA and DDP/RDMAP from the
			# first byte to the last, CRC good where negotiated
			[ "$mpa" = 0 ] && continue
			rc=0
			what=$("$PCAP_IWARP" "$f" 2>&1) || rc=$?
			echo "$n $id iwarp: $what" >>"$OUT/pcap-iwarp.txt"
			ktap_test_result "$rc" "$n: capture $id: tshark dissects the iWARP connections ($what)" || true
		done
	done
	# wireN's frames sent, less those lost, arrived at the other end,
	# but for the datagrams the host dropped there (cable-drops.txt)
	while read -r n id line; do
		case $id in wire1) pf=wire2 ;; wire2) pf=wire1 ;; *) continue ;; esac
		pline=$(awk -v p="$pf" '$2 == p { $1 = $2 = ""; print; exit }' "$OUT/pcap-check.txt")
		peer=$(awk -v p="$pf" '$2 == p { print $1; exit }' "$OUT/pcap-check.txt")
		[ -n "$pline" ] || continue
		drops=$(sed -n "s/.*cable $pf: \([0-9]*\) received datagrams dropped.*/\1/p" \
			"$OUT/$peer/qemu.log" 2>/dev/null | tail -n 1)
		drops=${drops:-0}
		sent=$(sed -n 's/^[0-9]* frames: \([0-9]*\) out .*/\1/p' <<<"$line")
		lost=$(sed -n 's/^[0-9]* frames: [0-9]* out (\([0-9]*\) lost).*/\1/p' <<<"$line")
		got=$(sed -n 's/^ *[0-9]* frames: [0-9]* out ([0-9]* lost), \([0-9]*\) in;.*/\1/p' <<<"$pline")
		bad_out=$(sed -n 's/.*RoCEv2 out [0-9]*: ICRC [0-9]* good, \([0-9]*\) bad.*/\1/p' <<<"$line")
		bad_in=$(sed -n 's/.*RoCEv2 in [0-9]*: ICRC [0-9]* good, \([0-9]*\) bad.*/\1/p' <<<"$pline")
		what="$id -> $pf: frames sent less lost ($sent - $lost) arrived ($got, host drops $drops); corrupted $bad_out, bad ICRC on arrival $bad_in"
		# a datagram the host dropped may have been a corrupted one
		if [ "$got" = $((sent - lost - drops)) ] &&
			{ [ "$drops" != 0 ] || [ "$bad_in" = "$bad_out" ]; }; then
			ktap_test_pass "$what"
		else
			ktap_test_fail "$what"
		fi
	done <"$OUT/pcap-check.txt"
}

# --fwtrace: the run's timeline, of every port's trace (and capture)
timeline_verdict() {
	local dirs=() n line
	[ -n "$FWTRACE" ] || return 0
	[ "$FWTRACE" = all ] || [ "$KTAP_CNT_FAIL" -ne 0 ] || return 0
	for n in "${NODES[@]}"; do
		dirs+=("$OUT/$n")
	done
	if line=$("$ORDMA_REPO/tools/diag/ordma-trace" --no-dma \
		-o "$OUT/timeline.txt" --html "$OUT/timeline.html" "${dirs[@]}" 2>&1); then
		ktap_test_pass "timeline of the firmware traces: $OUT/timeline.html"
	else
		ktap_test_fail "timeline of the firmware traces ($(tail -n 1 <<<"$line"))"
	fi
}

# --record: each port's log replayed by the firmware of this tree
record_verdict() {
	local n i f line rc size note
	[ "$RECORD" = 1 ] || return 0
	: >"$OUT/record-check.txt"
	for n in "${NODES[@]}"; do
		for i in 1 2; do
			f=$OUT/$n-wire$i.rec
			case $TOPOLOGY:$n:$i in
			pair:vmA:2 | pair:vmB:1) continue ;;
			esac
			if [ ! -s "$f" ]; then
				ktap_test_fail "$n wire$i: recorded (no $f)"
				continue
			fi
			if [ ! -x "$REPLAY" ]; then
				ktap_test_fail "$n wire$i: log replayed (no $REPLAY: make -C firmware)"
				continue
			fi
			rc=0
			line=$("$REPLAY" "$f" 2>&1) || rc=$?
			size=$(stat -c %s "$f")
			printf '%s wire%s %s bytes: %s\n' "$n" "$i" "$size" "$line" >>"$OUT/record-check.txt"
			line=$(head -n 1 <<<"$line")
			line=${line#"$f: "}
			note=
			[[ $line != *" ("* ]] || note=${line#* (} line=${line%% (*}
			if [ "$rc" = 0 ]; then
				ktap_test_pass "$n wire$i: $line"
			else
				ktap_test_fail "$n wire$i: log replayed without divergence ($line; see $OUT/record-check.txt)"
			fi
			# QEMU ends every log at its exit ("stopped by the host")
			case ${note%)} in
			"") ;;
			*": stopped by the host") ktap_print_msg "$n wire$i: recorded until QEMU exited" ;;
			*) ktap_print_msg "$n wire$i: ${note%)}" ;;
			esac
			ktap_print_msg "$n wire$i: log $size bytes"
		done
	done
}

# Kernel messages that fail a run wherever they appear.
BAD_KMSG=$(grep -v '^#' "$SELFTESTS/ordma/kmsg_fail_patterns" | paste -sd '|')

KTAP_TEE=$TAP
ktap_header
for n in "${NODES[@]}"; do
	d=$OUT/$n
	qrc=$(cat "$d/qemu-rc" 2>/dev/null || echo missing)
	quit_by=$(cat "$d/quit-requested" 2>/dev/null || true)
	if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
		ktap_test_fail "$n: powered off within ${TIMEOUT}s (hard timeout hit)"
	elif [ "$qrc" = 0 ] && [ -n "$quit_by" ]; then
		ktap_test_pass "$n: QEMU quit cleanly at $quit_by's request"
	elif [ "$qrc" = 0 ]; then
		ktap_test_pass "$n: powered off within ${TIMEOUT}s"
	else
		ktap_test_fail "$n: QEMU exited with status $qrc (see $d/qemu.log)"
	fi

	grc=$(cat "$d/guest/guest-rc" 2>/dev/null || echo none)
	case "$grc" in
	0) ktap_test_pass "$n: guest command succeeded" ;;
	4) ktap_test_skip "$n: guest command succeeded" "it skipped" ;;
	none) if [ -n "$quit_by" ]; then
			ktap_test_skip "$n: guest command ran to completion" "quit at $quit_by's request"
		else
			ktap_test_fail "$n: guest command ran to completion (no guest-rc)"
		fi ;;
	*) ktap_test_fail "$n: guest command succeeded (exit status $grc)" ;;
	esac

	# Kernel lines of the serial log carry a printk timestamp; the full
	# log is dmesg.txt when the guest got as far as writing it.
	bad=$( { grep -E '^\[host [ 0-9.]+\] \[ *[0-9]+\.[0-9]+\]' "$d/serial.log" 2>/dev/null
		cat "$d/guest/dmesg.txt" 2>/dev/null; } | grep -E "$BAD_KMSG" | sort -u | head -n 20 || true)
	if [ -n "$bad" ]; then
		ktap_test_fail "$n: kernel log has no oops, warning, BUG or leak"
		printf '%s\n' "$bad" | sed 's/^/#   /' >>"$OUT/kmsg-problems.txt"
	elif [ ! -s "$d/guest/dmesg.txt" ] && [ -n "$quit_by" ]; then
		ktap_test_pass "$n: serial console has no oops, warning, BUG or leak (quit before dmesg.txt)"
	elif [ ! -s "$d/guest/dmesg.txt" ]; then
		ktap_test_fail "$n: kernel log saved (no dmesg.txt)"
	else
		ktap_test_pass "$n: kernel log has no oops, warning, BUG or leak"
	fi

	if [ -f "$d/guest/selftests/summary.tap" ]; then
		while IFS= read -r l; do
			ktap_relay "$n: " "$l" || true
		done <"$d/guest/selftests/summary.tap"
	fi
done
sanitizer_verdict
pcap_verdict
record_verdict
timeline_verdict
ktap_set_plan "$KTAP_TESTNUM"
[ -f "$OUT/kmsg-problems.txt" ] &&
	ktap_print_msg "kernel log problems:"$'\n'"$(sed 's/^# \{0,1\}//' "$OUT/kmsg-problems.txt")"
[ -z "$early" ] || ktap_print_msg "$early; booted once more (first boot in $OUT/first-boot)"
: >"$OUT/cable-drops.txt"
: >"$OUT/wire-faults.txt"
for n in "${NODES[@]}"; do
	d=$OUT/$n
	ktap_print_msg "$n: wall $(cat "$d/wall-seconds" 2>/dev/null)s, guest command started at uptime $(cat "$d/guest/cmd-start-uptime" 2>/dev/null)s"
	# QEMU says at exit what the host dropped on each cable it receives on
	sed -n 's/.*\(netdev\|cable\) \([^:]*\): \([0-9]*\) received datagrams dropped.*/\2 \3/p' \
		"$d/qemu.log" 2>/dev/null | while read -r wire drops; do
		echo "$n $wire $drops" >>"$OUT/cable-drops.txt"
		ktap_print_msg "$n: cable $wire: $drops received frames dropped by the host"
	done
	# and what each port's wire impairments did to the frames it sent
	sed -n 's/.*cable \([^:]*\): wire faults injected: \([0-9]*\) loss, \([0-9]*\) reorder, \([0-9]*\) dup, \([0-9]*\) corrupt, \([0-9]*\) delay.*/\1 \2 \3 \4 \5 \6/p' \
		"$d/qemu.log" 2>/dev/null | while read -r wire loss reorder dup corrupt delay; do
		echo "$n $wire $loss $reorder $dup $corrupt $delay" >>"$OUT/wire-faults.txt"
		ktap_print_msg "$n: cable $wire: wire faults injected: $loss loss, $reorder reorder, $dup dup, $corrupt corrupt, $delay delay"
	done
done
ktap_print_msg "$(awk -v a="$t_start" -v b="$(date +%s.%N)" 'BEGIN { printf "total %.1fs, output in '"$OUT"'\n", b - a }')"
ktap_print_totals

if [ "$KTAP_CNT_FAIL" -ne 0 ]; then
	exit 1
fi
# --pcap-failed, --fwtrace-failed: what a run that passed left is not needed
[ "$PCAP" != failed ] || rm -f "$OUT"/*/wire*.pcapng
[ "$FWTRACE" != failed ] || rm -f "$OUT"/*/wire*.fwtrace
[ "$RECORD_KEEP" != failed ] || rm -f "$OUT"/*.rec
exit 0
