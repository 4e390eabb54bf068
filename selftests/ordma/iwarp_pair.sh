#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Two VMs (run-vm.sh pair), one NIC each, as two iWARP hosts: VM A's NIC
# is switched to iWARP (devlink enable_roce false, enable_iwarp true);
# VM B's NIC gives up its RDMA device (enable_roce false) and carries
# Linux soft-iWARP (siw) on its netdev instead.  So every byte between
# them is the card's TCP offload, MPA, DDP and RDMAP against Linux's
# TCP and siw, both ways:
#   - rdma_cm connection set-up (iw_cm_pair): ORDMA listens and siw
#     connects, then the other way round: ESTABLISHED and DISCONNECTED
#     on both sides, private data both ways; siw's QPs enter RTS with
#     MPA CRC on (its debug message "enter RTS: crc=y": ORDMA asks for
#     CRC, siw does not, and either side's asking turns it on); each
#     side rejects the other with private data: REJECTED at the client
#     (siw reports an MPA reject as -ECONNRESET, ORDMA as -ECONNREFUSED);
#   - rping -V -C 20 with 64 and 60000-byte buffers (Send, RDMA Read and
#     RDMA Write each round, every round trip verified), ORDMA as the
#     server, then siw;
#   - ib_send_bw, ib_write_bw and ib_read_bw -R (rdma_cm), 200 messages
#     of 65536 bytes (many FPDUs each), ORDMA as the server, then siw;
#   - NVMe over Fabrics: nvmet-rdma exports a 64 MiB file, nvme-rdma on
#     the other VM connects and fio writes 32 MiB at random offsets and
#     reads it back with crc32c verification; the target on ORDMA, then
#     on siw.  The kernel's ULPs use what iWARP asks of them: fast
#     registration of every RDMA Read sink, Send with Invalidate of the
#     host's STags.
# Afterwards A's counters show the FPDUs and no MPA CRC error.  Over
# impaired cables (run-vm.sh --wire; make check's vm-iwarp-pair)
# everything must pass anyway, TCP retransmitting what the cables lost
# (each VM checks that its cable did lose frames; the model corrupts
# RoCEv2 frames only).  Both NICs go back to RoCE; the kernel logs show
# no oops, warning or leak.
#
#   tools/vm/run-vm.sh -T iwarp_pair pair
. "$(dirname "$0")/lib.sh"

[ -n "${ORDMA_PEER_IP:-}" ] && [ -d "${ORDMA_SYNC:-}" ] ||
	ktap_skip_all "needs the two-VM topology (ORDMA_PEER_IP, ORDMA_SYNC)"
ordma_require_device
ordma_require_provider
modinfo siw >/dev/null 2>&1 ||
	ktap_skip_all "no siw module (tools/vm/build-siw.sh builds it into the VM's module tree)"
for tool in devlink rdma nvme fio; do
	command -v "$tool" >/dev/null || ktap_skip_all "$tool not installed (tools/host-deps.sh)"
done
IW_CM_PAIR=${ORDMA_IW_CM_PAIR:-$ORDMA_REPO/build/bin/iw_cm_pair}
[ -x "$IW_CM_PAIR" ] || ktap_skip_all "no $IW_CM_PAIR (make diag)"

PAIR_TAG=iwarp
PAIR_PORT=18700
TOOL_TIMEOUT=${ORDMA_TOOL_TIMEOUT:-240}
NQN=nqn.2024-01.org.ordma:iwarp-test
HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:0d5e6f3c-3a43-4d0b-9b53-6f72646d6102
NVME_DISK=/dev/shm/ordma-iwarp-nvmet.img
RPING_N=20
BW_N=200 BW_SIZE=65536
BAD_KMSG=$(grep -v '^#' "$SELFTEST_DIR/kmsg_fail_patterns" | paste -sd '|')
kmsg_first=$(dmesg | wc -l)
bdf=$(ordma_pci_devs | head -n 1)
nd=$(ordma_netdev "$bdf")
# this end's name in the test descriptions
if [ "$GUEST_ROLE" = A ]; then
	me=ORDMA
else
	me=siw
fi

ktap_header
wire_checks=0
[ -z "${ORDMA_WIRE:-}" ] || wire_checks=1
ktap_set_plan $((2 + 4 + 1 + 2 * 2 + 2 * 3 + 2 * 4 + 1 + wire_checks + 2))

# iwarp_up: A's NIC on iWARP, B's without an RDMA device and siw0 on its
# netdev; the address on the netdev, the peer answering.  Sets ib.
iwarp_up() {
	modprobe -a ib_uverbs rdma_ucm || return 1
	[ -n "$nd" ] || return 1
	if [ "$GUEST_ROLE" = A ]; then
		ordma_set_rdma_proto "$bdf" false true || return 1
		ib=$(ordma_ibdev "$bdf")
	else
		ordma_set_rdma_proto "$bdf" false false && modprobe siw &&
			rdma link add siw0 type siw netdev "$nd" || return 1
		ib=siw0
	fi
	ip link set dev "$nd" up
	ip addr replace "$ORDMA_LOCAL_IP/24" dev "$nd"
	wait_for 60 ping -c 1 -W 1 "$ORDMA_PEER_IP"
}
iwarp_up
rc=$?
ktap_test_result "$rc" "$me device ${ib:-none} on $nd ($ORDMA_LOCAL_IP), $ORDMA_PEER_IP answers"
tap_match "$me device is an iWARP device" "node_type rnic" "$(rdma dev show "${ib:-none}" 2>&1)"
pair_barrier up
[ "$rc" = 0 ] || ktap_print_msg "$(rdma link show 2>&1; ip addr show dev "$nd" 2>&1)"

# IW counter NAME of A's port (rdma statistic)
iw_stat() {
	rdma statistic show link "$ib/1" 2>/dev/null | tr -s ' ' '\n' |
		awk -v n="$1" 'p == n { print; exit } { p = $0 }'
}
# frames the cable of this VM's NIC dropped on purpose (run-vm.sh --wire)
wire_lost() { ethtool -S "$nd" 2>/dev/null | awk '$1 == "wire_fault_loss:" { print $2 }'; }
lost0=$(wire_lost)

# ------------------------------------------------------------ rdma_cm set-up
# iw_cm_across SERVER DESC MODE REGEX...: iw_cm_pair's server (MODE:
# accept or reject) on VM SERVER at its address, its client on the
# other VM; each side passes if its program exits 0 and the REGEXes
# about it (those starting "^server:" or "^client:") match its output
iw_cm_across() {
	local server=$1 desc=$2 mode=$3 out re side miss="" rc pid port=$PAIR_PORT
	shift 3
	PAIR_T=$((PAIR_T + 1))
	PAIR_PORT=$((PAIR_PORT + 1))
	out=$(mktemp)
	if [ "$GUEST_ROLE" = "$server" ]; then
		side=server
		"$IW_CM_PAIR" server "$ORDMA_LOCAL_IP" "$port" "$mode" >"$out" 2>&1 &
		pid=$!
		wait_for 30 grep -q '^server: listening$' "$out"
		pair_barrier "t$PAIR_T"
		timeout "$TOOL_TIMEOUT" tail --pid="$pid" -f /dev/null
		kill "$pid" 2>/dev/null
		wait "$pid"
		rc=$?
	else
		side=client
		pair_barrier "t$PAIR_T"
		timeout "$TOOL_TIMEOUT" "$IW_CM_PAIR" client "$ORDMA_PEER_IP" "$port" "$mode" \
			>"$out" 2>&1
		rc=$?
	fi
	for re in "$@"; do
		[[ "$re" = "^$side:"* ]] || continue
		grep -Eq -- "$re" "$out" || miss+=" /$re/"
	done
	if [ "$rc" = 0 ] && [ -z "$miss" ]; then
		ktap_test_pass "$desc ($GUEST_ROLE side)"
	else
		ktap_test_fail "$desc ($GUEST_ROLE side, rc $rc)"
		ktap_print_msg "missing:$miss"$'\n'"$(cat "$out")"
	fi
	rm -f "$out"
	pair_barrier "d$PAIR_T"
}
# siw_rts_debug on|off: siw's "enter RTS: crc=y|n" debug message (one
# per QP going to RTS) in the kernel log
siw_rts_debug() {
	local ctl=/proc/dynamic_debug/control flag=+p
	[ -w "$ctl" ] || ctl=/sys/kernel/debug/dynamic_debug/control
	[ "$1" = on ] || flag=-p
	echo "module siw format \"enter RTS\" $flag" >"$ctl"
}
ESTABLISHED_BOTH=('^server: RDMA_CM_EVENT_ESTABLISHED$' '^server: RDMA_CM_EVENT_DISCONNECTED$'
	'^server: private data "ordma-request"$'
	'^client: RDMA_CM_EVENT_ESTABLISHED \(status 0\)$'
	'^client: private data "ordma-accept"$' '^client: RDMA_CM_EVENT_DISCONNECTED$')
kmsg_rts=$(dmesg | wc -l)
[ "$GUEST_ROLE" != B ] || siw_rts_debug on 2>/dev/null ||
	ktap_print_msg "no dynamic debug: siw's CRC state not shown"
iw_cm_across A "ORDMA listens, siw connects: ESTABLISHED and DISCONNECTED both sides" \
	accept "${ESTABLISHED_BOTH[@]}"
iw_cm_across B "siw listens, ORDMA connects: ESTABLISHED and DISCONNECTED both sides" \
	accept "${ESTABLISHED_BOTH[@]}"
if [ "$GUEST_ROLE" = B ]; then
	rts=$(dmesg | tail -n +$((kmsg_rts + 1)) | grep -o 'enter RTS: crc=[yn]' |
		grep -o 'crc=[yn]' | sort | uniq -c |
		awk '{ printf "%s%s x%d", (NR > 1 ? ", " : ""), $2, $1 }')
	tap_eq "siw's QPs entered RTS with MPA CRC on, both connections" "crc=y x2" "$rts"
	siw_rts_debug off 2>/dev/null
else
	ktap_test_skip "siw's QPs entered RTS with MPA CRC on" "siw is on VM B"
fi
iw_cm_across A "ORDMA rejects siw: REJECTED at the client, status -ECONNRESET" reject \
	'^server: rejected$' '^client: RDMA_CM_EVENT_REJECTED \(status -104\)$'
iw_cm_across B "siw rejects ORDMA: REJECTED at the client, status -ECONNREFUSED" reject \
	'^server: rejected$' '^client: RDMA_CM_EVENT_REJECTED \(status -111\)$'

# ------------------------------------------------------------ rping, perftest
for side in A B; do
	if [ "$side" = A ]; then who="ORDMA server, siw client"; else who="siw server, ORDMA client"; fi
	for size in 64 60000; do
		pair_across "$side" "$who: rping -V -S $size -C $RPING_N" \
			"^ping data: .*" rping -V -S "$size" -C "$RPING_N" -v
	done
done
for side in A B; do
	if [ "$side" = A ]; then who="ORDMA server, siw client"; else who="siw server, ORDMA client"; fi
	for tool in ib_send_bw ib_write_bw ib_read_bw; do
		pair_across "$side" "$who: $tool -R -n $BW_N -s $BW_SIZE" \
			"^[[:space:]]*$BW_SIZE[[:space:]]+$BW_N[[:space:]]+[0-9.]+" \
			"$tool" -R -n "$BW_N" -s "$BW_SIZE"
	done
done

# ---------------------------------------------------------------- NVMe-oF
# nvme_round R TARGET: nvmet-rdma on VM TARGET (A or B), nvme-rdma on the
# other; connect, fio verification, disconnect, target removed
nvme_round() {
	local r=$1 target=$2 what out
	if [ "$target" = A ]; then what="NVMe-oF, ORDMA target, siw host"; else what="NVMe-oF, siw target, ORDMA host"; fi
	if [ "$GUEST_ROLE" = "$target" ]; then
		out=$(modprobe -a nvmet nvmet_rdma 2>&1 && nvmet_up 2>&1)
		ktap_test_result $? "$what: $NQN on rdma $ORDMA_LOCAL_IP:$NVME_PORT"
		[ -z "$out" ] || ktap_print_msg "$out"
		pair_barrier "nvme-up$r"
		pair_barrier "nvme-done$r"
		out=$(nvmet_down 2>&1)
		ktap_test_result $? "$what: target removed, module unloaded"
		[ -z "$out" ] || ktap_print_msg "$out"
		ktap_test_skip "$what: nvme connect" "the host's test"
		ktap_test_skip "$what: fio" "the host's test"
	else
		modprobe nvme_rdma
		pair_barrier "nvme-up$r"
		tap_nvme_connect "$what"
		fio_verify "$what" "$(nvme_dev)"
		tap_cmd "$what: nvme disconnect" timeout 60 nvme disconnect -n "$NQN"
		pair_barrier "nvme-done$r"
		ktap_test_skip "$what: target" "the target's test"
	fi
}
nvme_round 1 A
nvme_round 2 B

# ---------------------------------------------------------------- counters
if [ "$GUEST_ROLE" = A ]; then
	fpdus=$(iw_stat iw_rx_fpdus) crc=$(iw_stat iw_rx_fpdu_crc_bad)
	ktap_print_msg "iw_rx_fpdus $fpdus, iw_tx_fpdus $(iw_stat iw_tx_fpdus), iw_rx_fpdu_crc_bad $crc"
	# the rest that is not zero, for the record
	ktap_print_msg "$(rdma statistic show link "$ib/1" 2>/dev/null | tr -s ' ' '\n' |
		awk 'p ~ /^iw_/ && $0 != "0" { printf "%s %s ", p, $0 } { p = $0 }')"
	[ "${fpdus:-0}" -gt 0 ] && [ "$crc" = 0 ]
	ktap_test_result $? "$ib counted the FPDUs it received, none with a bad MPA CRC"
else
	ktap_test_skip "the card's FPDU counters" "ORDMA is on VM A"
fi
# the data above was verified though the cables lost frames all along
# (the model corrupts RoCEv2 frames only: TCP's are lost, reordered and
# duplicated)
if [ -n "${ORDMA_WIRE:-}" ]; then
	ktap_print_msg "wire: $ORDMA_WIRE"
	lost=$(($(wire_lost) - ${lost0:-0}))
	if wire_on loss; then
		[ "$lost" -gt 0 ]
		ktap_test_result $? "over the impaired cable: $nd's cable lost $lost frames"
	else
		ktap_test_skip "over the impaired cable: frames lost" "no loss"
	fi
fi

# ---------------------------------------------------------------- undo
pair_barrier done
if [ "$GUEST_ROLE" = A ]; then
	tap_cmd "NIC on RoCE again" ordma_set_rdma_proto "$bdf" true false
else
	siw_down() {
		rdma link delete siw0 && modprobe -r siw &&
			ordma_set_rdma_proto "$bdf" true false
	}
	tap_cmd "siw gone, NIC on RoCE again" siw_down
fi
tap_eq "no oops, warning or BUG in the kernel log" "" \
	"$(dmesg | tail -n +$((kmsg_first + 1)) | grep -E -- "$BAD_KMSG")"
ktap_finished
