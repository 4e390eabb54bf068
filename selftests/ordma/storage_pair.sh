#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Two VMs, one ORDMA NIC each (run-vm.sh pair): the kernel storage
# protocols over RDMA, with Debian's tools.  VM A is the server, VM B
# the client; they meet at barriers in $ORDMA_SYNC.
#
# - NVMe over Fabrics: nvmet-rdma on A exports a 64 MiB file (configfs),
#   nvme-rdma on B discovers and connects (nvme-cli), fio writes 32 MiB
#   at random offsets and reads it back with crc32c verification.  Twice:
#   with a receive queue per QP, then with nvmet-rdma use_srq=1, where A
#   checks that the queues of the connected host are on kernel SRQs of
#   its ORDMA device (rdma resource show srq).  Then A's NIC fails and
#   recovers (devlink health) under the connected host, A enables the
#   port again, and B's controller reconnects by itself and passes the
#   same verification.
# - Over impaired cables (run-vm.sh --wire, make check's vm-storage-impair)
#   all of it must pass anyway, and each VM's counters show the faults
#   dealt with: retransmissions, and corrupted frames dropped by the ICRC
#   check.
# - NFS over RDMA: nfsd on A exports a tmpfs and listens on rdma port
#   20049; B mounts it with -o rdma,port=20049 (NFSv4.2), writes a file,
#   remounts, reads it back; both sides compare its sha256.
# - iSER: LIO on A (targetcli) exports a 64 MiB fileio LUN on a portal
#   with iSER enabled; B (open-iscsi) discovers and logs in with
#   `iscsiadm -I iser`, checks that the session's transport is iser and
#   runs the same fio crc32c verification on the disk it attaches.
. "$(dirname "$0")/lib.sh"

[ -n "${ORDMA_PEER_IP:-}" ] && [ -d "${ORDMA_SYNC:-}" ] ||
	ktap_skip_all "needs the two-VM topology (ORDMA_PEER_IP, ORDMA_SYNC)"
ordma_require_device
for tool in nvme fio rpc.nfsd rpc.mountd exportfs mount.nfs rdma targetcli \
	dbus-daemon iscsiadm iscsid; do
	command -v "$tool" >/dev/null ||
		ktap_skip_all "$tool not installed (tools/host-deps.sh)"
done

PAIR_TAG=storage
barrier() { pair_barrier "$1"; }
NQN=nqn.2024-01.org.ordma:storage-test
HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:0d5e6f3c-3a43-4d0b-9b53-6f72646d6101
NVME_DISK=/dev/shm/ordma-nvmet.img
NFS_DIR=/srv/ordma-nfs
NFS_MNT=/mnt/ordma-nfs
NFS_FILE=ordma-nfs-data
NFS_PORT=20049
ISER_IQN=iqn.2024-01.org.ordma:iser-test
ISER_PORT=3260
ISER_DISK=/dev/shm/ordma-iser.img

ktap_header
wire_checks=0
[ -z "${ORDMA_WIRE:-}" ] || wire_checks=2
if [ "$GUEST_ROLE" = A ]; then
	ktap_set_plan $((1 + 2 * 3 + 4 + 2 + 2 + wire_checks))
else
	ktap_set_plan $((1 + 2 * 4 + 4 + 3 + 5 + wire_checks))
fi

pair_rdma_up
ktap_test_result $? "${ib:-no RDMA device} on ${nd:-no netdev}: port ready, $ORDMA_PEER_IP answers"
# stat NAME: one ethtool -S counter of this VM's NIC
stat() { ethtool -S "$nd" 2>/dev/null | awk -v k="$1:" '$1 == k { print $2 }'; }
# over impaired cables (run-vm.sh --wire) the counters must show the
# faults were there and were dealt with (wire_on)
retrans0=$(stat roce_retransmits)
icrc0=$(stat roce_parse_drop_icrc)

# ---------------------------------------------------------------- NVMe-oF
# The kernel SRQs nvmet-rdma has on $ib
nvmet_srqs() {
	rdma resource show srq 2>&1 | grep -c "^dev $ib .*comm \[nvmet_rdma\]"
}

nvmeof_round() {	# $1: round, $2: nvmet-rdma parameters
	local r=$1 params=$2 what="nvmet-rdma${2:+ $2}" out n

	if [ "$GUEST_ROLE" = A ]; then
		modprobe nvmet
		# shellcheck disable=SC2086 # no parameters, or one
		out=$(modprobe nvmet_rdma $params 2>&1 && nvmet_up 2>&1)
		ktap_test_result $? "$what: $NQN, 64 MiB file namespace, rdma $ORDMA_LOCAL_IP:$NVME_PORT"
		[ -z "$out" ] || ktap_print_msg "$out"
		barrier "nvme-up$r"
		barrier "nvme-connected$r"
		n=$(nvmet_srqs)
		if [ -n "$params" ]; then
			[ "$n" -ge 1 ] 2>/dev/null
			ktap_test_result $? "$what: the host's queues use kernel SRQs on $ib ($n)"
		else
			tap_eq "$what: no SRQs on $ib" 0 "$n"
		fi
		[ -z "$params" ] || [ "$n" -ge 1 ] 2>/dev/null ||
			ktap_print_msg "$(rdma resource show srq 2>&1; rdma resource show qp dev "$ib" 2>&1)"
		barrier "nvme-done$r"
		out=$(nvmet_down 2>&1)
		ktap_test_result $? "$what: target removed, module unloaded"
		[ -z "$out" ] || ktap_print_msg "$out"
	else
		modprobe nvme_rdma
		barrier "nvme-up$r"
		out=$(timeout 60 nvme discover -t rdma -a "$ORDMA_PEER_IP" \
			-s "$NVME_PORT" -q "$HOSTNQN" 2>&1)
		tap_match "$what: nvme discover -t rdma lists $NQN" "subnqn:[[:space:]]*$NQN\$" "$out"
		tap_nvme_connect "$what"
		barrier "nvme-connected$r"
		fio_verify "$what" "$(nvme_dev)"
		tap_cmd "$what: nvme disconnect" timeout 60 nvme disconnect -n "$NQN"
		barrier "nvme-done$r"
	fi
}

nvmeof_round 1 ""
nvmeof_round 2 "use_srq=1"

# The target's NIC fails and recovers by itself (devlink health fw_fatal)
# under a connected host.  Its listener went with the old ib_device, so
# the target's administrator enables the port again (the subsystem is
# linked to it anew); the host's error recovery, retrying every second,
# reconnects the same controller, whose namespace passes the fio
# verification again without a new nvme connect.
fw_fatal_recovered() {
	devlink -j health show "pci/$bdf" reporter fw_fatal 2>/dev/null |
		jq -r '.. | objects | select(.reporter? == "fw_fatal") | "\(.recover) \(.state)"' 2>/dev/null
}
nvme_ctrl() {
	local d

	for d in /sys/class/nvme/nvme*; do
		[ "$(cat "$d/subsysnqn" 2>/dev/null)" = "$NQN" ] && basename "$d" && return 0
	done
	return 1
}
nvme_reconnected() {
	dmesg | tail -n +$((kmsg_lines + 1)) | grep -q "$1: Successfully reconnected" &&
		[ "$(cat "/sys/class/nvme/$1/state" 2>/dev/null)" = live ]
}
recovered_from() { [ "$(fw_fatal_recovered)" = "$(($1 + 1)) healthy" ]; }
gid_back() {
	local dev
	dev=$(ordma_ibdev "$bdf") && [ -n "$(roce_v2_gid_index "$dev" "$ORDMA_LOCAL_IP")" ]
}
# port_back: the recovered NIC's port carries RDMA again: its RoCE v2
# GID is back; on InfiniBand the subnet manager, which ran on this very
# port, is started again, configures the port, and IPoIB (a new
# interface) gets the address back
port_back() {
	if [ "${ORDMA_LINK_LAYER:-eth}" = ib ]; then
		# its receiver thread spins on the lost port: SIGTERM may not end it
		pkill -x opensm
		wait_for 10 sh -c '! pgrep -x opensm' || pkill -KILL -x opensm
		wait_for 30 sh -c '! pgrep -x opensm'
		pair_ib_sm
		pair_ib_ready
	else
		wait_for 60 gid_back
	fi
}
target_listening() { rdma resource show cm_id 2>/dev/null | grep -q "state LISTEN.*comm \[nvmet_rdma\]"; }

nvmeof_recovery_round() {
	local what="nvmet-rdma, target NIC recovery" out rc n ctrl

	if [ "$GUEST_ROLE" = A ]; then
		modprobe nvmet
		out=$(modprobe nvmet_rdma 2>&1 && nvmet_up 2>&1)
		ktap_test_result $? "$what: $NQN on rdma $ORDMA_LOCAL_IP:$NVME_PORT"
		[ -z "$out" ] || ktap_print_msg "$out"
		barrier nvme-up3
		barrier nvme-connected3
		n=$(fw_fatal_recovered | cut -d' ' -f1)
		echo "fatal 1 4" >"/sys/kernel/debug/ordma/$bdf/fault_inject" &&
			wait_for 60 recovered_from "$n" && port_back
		ktap_test_result $? "$what: the NIC failed, recovered, its port is ready again"
		rm "$NVMET/ports/1/subsystems/$NQN" &&
			ln -s "$NVMET/subsystems/$NQN" "$NVMET/ports/1/subsystems/$NQN" &&
			wait_for 30 target_listening
		ktap_test_result $? "$what: port enabled again, nvmet-rdma listens on the new device"
		barrier nvme-recovered3
		barrier nvme-done3
		out=$(nvmet_down 2>&1)
		ktap_test_result $? "$what: target removed, module unloaded"
		[ -z "$out" ] || ktap_print_msg "$out"
	else
		modprobe nvme_rdma
		barrier nvme-up3
		out=$(timeout 60 nvme connect -t rdma -a "$ORDMA_PEER_IP" \
			-s "$NVME_PORT" -n "$NQN" -q "$HOSTNQN" --reconnect-delay=1 \
			--ctrl-loss-tmo=180 2>&1) && wait_for 30 nvme_dev
		rc=$?
		ctrl=$(nvme_ctrl)
		ktap_test_result "$rc" "$what: nvme connect (reconnect delay 1 s), controller ${ctrl:-none}"
		[ "$rc" -eq 0 ] || ktap_print_msg "$out"
		kmsg_lines=$(dmesg | wc -l)
		barrier nvme-connected3
		barrier nvme-recovered3
		wait_for 180 nvme_reconnected "$ctrl"
		ktap_test_result $? "$what: nvme-rdma reconnected $ctrl (state $(cat "/sys/class/nvme/$ctrl/state" 2>/dev/null))"
		fio_verify "$what, reconnected" "$(nvme_dev)"
		tap_cmd "$what: nvme disconnect" timeout 60 nvme disconnect -n "$NQN"
		barrier nvme-done3
	fi
}
nvmeof_recovery_round

# ---------------------------------------------------------------- NFS/RDMA
nfs_server_up() {
	modprobe nfsd && modprobe rpcrdma || return
	mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd || return
	mkdir -p "$NFS_DIR" /var/lib/nfs/v4recovery &&
		mount -t tmpfs -o size=64m ordma-nfs "$NFS_DIR" || return
	echo "$NFS_DIR $ORDMA_PEER_IP(rw,sync,no_root_squash,no_subtree_check,fsid=0)" \
		>/etc/exports
	# A fresh server: no clients to wait for beyond the shortest grace
	echo 10 >/proc/fs/nfsd/nfsv4gracetime
	echo 10 >/proc/fs/nfsd/nfsv4leasetime
	rpcbind -w && exportfs -ra && rpc.mountd && rpc.nfsd 4 &&
		echo "rdma $NFS_PORT" >/proc/fs/nfsd/portlist &&
		grep -x "rdma $NFS_PORT" /proc/fs/nfsd/portlist
}

nfs_hash() { sha256sum "$1" 2>&1 | cut -d' ' -f1; }

if [ "$GUEST_ROLE" = A ]; then
	out=$(nfs_server_up 2>&1)
	rc=$?
	ktap_test_result "$rc" "nfsd exports a tmpfs, listens on rdma $NFS_PORT"
	[ "$rc" -eq 0 ] || ktap_print_msg "$out"
	barrier nfs-up
	barrier nfs-written
	tap_eq "the client's file on the server's tmpfs: same sha256" \
		"$(cat "$ORDMA_SYNC/nfs.sha256" 2>/dev/null)" \
		"$(nfs_hash "$NFS_DIR/$NFS_FILE")"
	barrier nfs-done
	rpc.nfsd 0
	umount "$NFS_DIR"
else
	modprobe rpcrdma
	barrier nfs-up
	mkdir -p "$NFS_MNT"
	nfs_mount() {
		timeout 120 mount -t nfs -o "rdma,port=$NFS_PORT,vers=4.2" \
			"$ORDMA_PEER_IP:/" "$NFS_MNT"
	}
	out=$(nfs_mount 2>&1)
	tap_match "mount -o rdma,port=$NFS_PORT: an NFS mount with proto=rdma" \
		" $NFS_MNT nfs4 .*proto=rdma,port=$NFS_PORT" \
		"$(grep " $NFS_MNT " /proc/mounts)$out"
	src=$(mktemp)
	head -c 16M /dev/urandom >"$src"
	nfs_hash "$src" >"$ORDMA_SYNC/nfs.sha256"
	# The read after a remount comes from the server, not the page cache.
	what="16 MiB written, remounted, read back: same sha256"
	if mountpoint -q "$NFS_MNT"; then
		out=$( { timeout 120 cp "$src" "$NFS_MNT/$NFS_FILE" && sync &&
			umount "$NFS_MNT" && nfs_mount; } 2>&1)
		tap_eq "$what${out:+ ($out)}" "$(nfs_hash "$src")" \
			"$(timeout 120 cat "$NFS_MNT/$NFS_FILE" | sha256sum | cut -d' ' -f1)"
	else
		ktap_test_fail "$what: not mounted"
	fi
	barrier nfs-written
	tap_cmd "umount $NFS_MNT" umount "$NFS_MNT"
	rm -f "$src"
	barrier nfs-done
fi

# ---------------------------------------------------------------- iSER
# iser_target_up: LIO exports $ISER_DISK as LUN 0 of $ISER_IQN on an
# iSER portal at $ORDMA_LOCAL_IP:$ISER_PORT, to any initiator, no CHAP
iser_target_up() {
	local tpg=/iscsi/$ISER_IQN/tpg1

	modprobe ib_isert || return
	# targetcli asks the system bus for user backstores (tcmu-runner)
	[ -S /run/dbus/system_bus_socket ] || {
		mkdir -p /run/dbus && dbus-daemon --system --fork
	} || return
	# one-shot commands: nothing is saved to /etc
	targetcli set global auto_save_on_exit=false >/dev/null &&
		targetcli /backstores/fileio create name=ordma-iser \
			file_or_dev="$ISER_DISK" size=64M &&
		targetcli /iscsi create "$ISER_IQN" &&
		targetcli "$tpg/luns" create /backstores/fileio/ordma-iser &&
		{ targetcli "$tpg/portals" delete 0.0.0.0 "$ISER_PORT" || true; } &&
		targetcli "$tpg/portals" create "$ORDMA_LOCAL_IP" "$ISER_PORT" &&
		targetcli "$tpg/portals/$ORDMA_LOCAL_IP:$ISER_PORT" enable_iser true &&
		targetcli "$tpg" set attribute authentication=0 generate_node_acls=1 \
			demo_mode_write_protect=0 cache_dynamic_acls=1 &&
		grep -qx 1 "/sys/kernel/config/target/iscsi/$ISER_IQN/tpgt_1/np/$ORDMA_LOCAL_IP:$ISER_PORT/iser"
}

iser_target_down() {
	targetcli /iscsi delete "$ISER_IQN" &&
		targetcli /backstores/fileio delete ordma-iser &&
		rm -f "$ISER_DISK" && modprobe -r ib_isert &&
		kill "$(cat /run/dbus/pid)"
}

# The disk the iSCSI session to $ISER_IQN attached
iser_dev() {
	local d

	d=$(iscsiadm -m session -P 3 2>/dev/null |
		sed -n 's/.*Attached scsi disk \([a-z]*\).*/\1/p' | head -n 1)
	[ -n "$d" ] && [ -b "/dev/$d" ] && echo "/dev/$d"
}

if [ "$GUEST_ROLE" = A ]; then
	out=$(iser_target_up 2>&1)
	rc=$?
	ktap_test_result "$rc" "targetcli: $ISER_IQN, 64 MiB fileio LUN, iSER portal $ORDMA_LOCAL_IP:$ISER_PORT"
	[ "$rc" -eq 0 ] || ktap_print_msg "$out"
	barrier iser-up
	barrier iser-done
	out=$(iser_target_down 2>&1)
	ktap_test_result $? "iSER target removed, ib_isert unloaded"
	[ -z "$out" ] || ktap_print_msg "$out"
else
	# The host's initiator name is not this guest's
	echo "InitiatorName=iqn.2024-01.org.ordma:initiator-$(hostname)" \
		>/etc/iscsi/initiatorname.iscsi
	modprobe ib_iser && iscsid
	barrier iser-up
	out=$(timeout 60 iscsiadm -m discovery -t sendtargets \
		-p "$ORDMA_PEER_IP:$ISER_PORT" -I iser 2>&1)
	tap_match "iscsiadm -m discovery -I iser lists $ISER_IQN" \
		"^$ORDMA_PEER_IP:$ISER_PORT,[0-9]+ $ISER_IQN\$" "$out"
	out=$(timeout 60 iscsiadm -m node -T "$ISER_IQN" \
		-p "$ORDMA_PEER_IP:$ISER_PORT" -I iser --login 2>&1) &&
		wait_for 30 iser_dev
	rc=$?
	ktap_test_result "$rc" "iscsiadm -I iser --login, disk $(iser_dev)"
	[ "$rc" -eq 0 ] || ktap_print_msg "$out"
	tap_match "the session's transport is iser" "^iser: \[[0-9]+\] $ORDMA_PEER_IP:$ISER_PORT,[0-9]+ $ISER_IQN" \
		"$(iscsiadm -m session 2>&1)"
	fio_verify "iSER" "$(iser_dev)"
	tap_cmd "iscsiadm --logout" timeout 60 iscsiadm -m node -T "$ISER_IQN" \
		-p "$ORDMA_PEER_IP:$ISER_PORT" --logout
	barrier iser-done
fi

if [ -n "${ORDMA_WIRE:-}" ]; then
	ktap_print_msg "wire: $ORDMA_WIRE"
	# what this NIC sent was impaired on the way: the peer's drops and
	# this NIC's retransmissions; what it received, its own ICRC drops
	# (a recovery of the NIC starts its counters again from 0)
	retrans=$(stat roce_retransmits)
	icrc=$(stat roce_parse_drop_icrc)
	[ "$retrans" -lt "${retrans0:-0}" ] || retrans=$((retrans - ${retrans0:-0}))
	[ "$icrc" -lt "${icrc0:-0}" ] || icrc=$((icrc - ${icrc0:-0}))
	if wire_on loss; then
		[ "$retrans" -gt 0 ]
		ktap_test_result $? "over the impaired cable: roce_retransmits non-zero ($retrans)"
	else
		ktap_test_skip "over the impaired cable: roce_retransmits non-zero" "no loss"
	fi
	if wire_on corrupt; then
		[ "$icrc" -gt 0 ]
		ktap_test_result $? "over the impaired cable: corrupted frames dropped by the ICRC check ($icrc)"
	else
		ktap_test_skip "over the impaired cable: ICRC drops" "no corruption"
	fi
fi

ktap_finished
