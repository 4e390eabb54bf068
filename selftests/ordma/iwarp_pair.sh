#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Two VMs (run-vm.sh pair), one NIC each, as two iWARP hosts: VM A's NIC
# is switched to iWARP (devlink enable_roce false, enable_iwarp true);
# VM B's NIC gives up its RDMA device (enable_roce false) and carries
# Linux soft-iWARP (siw) on its netdev instead.  So every byte between
# them is the card's TCP offload, MPA, DDP and RDMAP against Linux's
# TCP and siw, both ways:
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
# impaired cables (run-vm.sh --wire) everything must pass anyway: TCP
# retransmits what is lost, and A counts the corrupted segments its TCP
# checksum dropped.  Both NICs go back to RoCE; the kernel logs show no
# oops, warning or leak.
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
# the names of the two ends in the test descriptions
if [ "$GUEST_ROLE" = A ]; then
	me=ORDMA peer=siw
else
	me=siw peer=ORDMA
fi

ktap_header
ktap_set_plan $((2 + 2 * 2 + 2 * 3 + 2 * 4 + 1 + 2))

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
[ "$GUEST_ROLE" != A ] || tcp_csum0=$(iw_stat iw_tcp_rx_bad_checksum)

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
	local r=$1 target=$2 what out rc
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
		out=$(timeout 60 nvme connect -t rdma -a "$ORDMA_PEER_IP" \
			-s "$NVME_PORT" -n "$NQN" -q "$HOSTNQN" 2>&1) &&
			wait_for 30 nvme_dev
		rc=$?
		ktap_test_result "$rc" "$what: nvme connect -t rdma, namespace $(nvme_dev)"
		[ "$rc" -eq 0 ] || ktap_print_msg "$out"
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
	csum=$(($(iw_stat iw_tcp_rx_bad_checksum) - ${tcp_csum0:-0}))
	ktap_print_msg "iw_rx_fpdus $fpdus, iw_tx_fpdus $(iw_stat iw_tx_fpdus), iw_rx_fpdu_crc_bad $crc, iw_tcp_rx_bad_checksum +$csum"
	[ "${fpdus:-0}" -gt 0 ] && [ "$crc" = 0 ]
	ktap_test_result $? "$ib counted the FPDUs it received, none with a bad MPA CRC"
else
	ktap_test_skip "the card's FPDU counters" "ORDMA is on VM A"
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
