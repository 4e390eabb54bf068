#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Guest half of tools/vm/pyverbs-suite.sh: rdma-core's own Python test
# suite (tests/run_tests.py on pyverbs) against ordma0, then against
# Soft-RoCE (rxe) stacked on the same netdev once ordma_ib is unloaded.
# Writes the unittest summaries to $ORDMA_RESULTS/pyverbs-<dev>.log.
set -uo pipefail
. "$(dirname "$0")/../../selftests/ordma/lib.sh"

P=${ORDMA_PROVIDER_DIR:?}
SRC=${ORDMA_RDMA_CORE_SRC:?}
OUT=${ORDMA_RESULTS:-/mnt/results}
export LD_LIBRARY_PATH=$P/lib PYTHONPATH=$P/python
TIMEOUT=${PYVERBS_TIMEOUT:-1500}
FILTER=${PYVERBS_FILTER:-}	# unittest -k options
DEVS=${PYVERBS_DEVS:-ordma rxe}

modprobe ib_uverbs
mapfile -t devs < <(ordma_pci_devs)
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

run_suite() {
	local dev=$1 gid
	wait_for 30 has_roce_v2_gid "$dev" "$(ordma_test_ip 1)"
	gid=$(gid_of "$dev")
	echo "pyverbs: $dev GID index ${gid:-none}"
	(cd "$SRC/tests" && timeout "$TIMEOUT" /usr/bin/python3 run_tests.py \
		--dev "$dev" --gid "${gid:-1}" -v $FILTER) >"$OUT/pyverbs-$dev.log" 2>&1
	echo "pyverbs: $dev exit $?"
	tail -n 4 "$OUT/pyverbs-$dev.log"
}

run_suite "$(ordma_ibdev "${devs[0]}")"
if [[ " $DEVS " == *" rxe "* ]]; then
	rmmod ordma_ib	# not modprobe -r: that takes ordma_core (the netdev) too
	modprobe rdma_rxe
	rdma link add rxe0 type rxe netdev "$nd"
	run_suite rxe0
fi
dmesg >"$OUT/dmesg-pyverbs.txt"
