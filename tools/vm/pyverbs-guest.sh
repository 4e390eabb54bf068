#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Guest half of tools/vm/pyverbs-suite.sh: rdma-core's own Python test
# suite (tests/run_tests.py on pyverbs) against ordma0, then against
# Soft-RoCE (rxe) stacked on the same netdev once ordma_ib is unloaded.
# On InfiniBand ports (ORDMA_LINK_LAYER=ib) it runs opensm on ordma0's
# port, waits for the port to be ACTIVE, gives the port an IPoIB address
# (the rdma_cm tests want one) and runs the suite on ordma0 only: rxe is
# RoCE only.
# Writes the unittest summaries to $ORDMA_RESULTS/pyverbs-<dev>.log.
set -uo pipefail
. "$(dirname "$0")/../../selftests/ordma/lib.sh"

P=${ORDMA_PROVIDER_DIR:?}
SRC=${ORDMA_RDMA_CORE_SRC:?}
OUT=${ORDMA_RESULTS:-/mnt/results}
export LD_LIBRARY_PATH=$P/lib PYTHONPATH=$P/python
LINK=${ORDMA_LINK_LAYER:-eth}
# one run on InfiniBand, two (ordma0, rxe0) in the VM's hour on Ethernet
[ "$LINK" = ib ] && TIMEOUT=${PYVERBS_TIMEOUT:-3300} || TIMEOUT=${PYVERBS_TIMEOUT:-1500}
FILTER=${PYVERBS_FILTER:-}	# unittest -k options
DEVS=${PYVERBS_DEVS:-ordma rxe}

modprobe ib_uverbs
mapfile -t devs < <(ordma_pci_devs)

# run_suite DEV [GID]: the suite on DEV with GID index GID (default:
# the RoCEv2 GID of the test address)
run_suite() {
	local dev=$1 gid=${2:-}
	if [ -z "$gid" ]; then
		wait_for 30 has_roce_v2_gid "$dev" "$(ordma_test_ip 1)"
		gid=$(gid_of "$dev")
	fi
	echo "pyverbs: $dev GID index ${gid:-none}"
	(cd "$SRC/tests" && timeout "$TIMEOUT" /usr/bin/python3 run_tests.py \
		--dev "$dev" --gid "${gid:-1}" -v $FILTER) >"$OUT/pyverbs-$dev.log" 2>&1
	echo "pyverbs: $dev exit $?"
	tail -n 4 "$OUT/pyverbs-$dev.log"
}

port_active() {
	grep -q ACTIVE "/sys/class/infiniband/$1/ports/1/state"
}

if [ "$LINK" = ib ]; then
	# InfiniBand: no netdev; a subnet manager on the first port brings
	# it (and the port cabled to it) to ACTIVE and answers the SA
	# queries (path records, multicast joins) of the rdma_cm tests.
	modprobe ordma_ib
	modprobe ib_umad
	wait_for 30 ordma_ibdev "${devs[0]}"
	ib=$(ordma_ibdev "${devs[0]}")
	guid=$(ibstat "$ib" 1 2>/dev/null | sed -n 's/^[[:space:]]*Port GUID: //p')
	opensm -g "$guid" -f "$OUT/opensm-pyverbs.log" >/dev/null 2>&1 &
	sm_pid=$!
	wait_for 120 port_active "$ib"
	echo "pyverbs: $ib port $(cat "/sys/class/infiniband/$ib/ports/1/state")," \
		"LID $(cat "/sys/class/infiniband/$ib/ports/1/lid")"
	modprobe ib_ipoib
	wait_for 30 ls "/sys/class/infiniband/$ib/device/net/"
	ipoib=$(ls "/sys/class/infiniband/$ib/device/net/" | head -n 1)
	ip link set dev lo up
	ip addr add "$(ordma_test_ip 1)/24" dev "$ipoib"
	ip link set dev "$ipoib" up
	# GID 0: the link-local prefix fe80::/64 and the port GUID
	run_suite "$ib" 0
	stop_pid "$sm_pid"
	dmesg >"$OUT/dmesg-pyverbs.txt"
	exit 0
fi

nd=$(ordma_netdev "${devs[0]}")
for k in all $nd; do
	sysctl -qw "net.ipv4.conf.$k.accept_local=1" "net.ipv4.conf.$k.rp_filter=0"
done
ip link set dev lo up
ip link set dev "$nd" up
ip addr add "$(ordma_test_ip 1)/24" dev "$nd"

gid_of() {
	local g
	g=$(ipv4_to_gid "$(ordma_test_ip 1)")
	ordma_gid_table "$1" | awk -v g="$g" '$2 == g && $3 == "RoCE_v2" { print $1; exit }'
}

run_suite "$(ordma_ibdev "${devs[0]}")"
if [[ " $DEVS " == *" rxe "* ]]; then
	rmmod ordma_ib	# not modprobe -r: that takes ordma_core (the netdev) too
	modprobe rdma_rxe
	rdma link add rxe0 type rxe netdev "$nd"
	run_suite rxe0
fi
dmesg >"$OUT/dmesg-pyverbs.txt"
