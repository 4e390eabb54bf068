#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Two VMs, one ORDMA NIC each (run-vm.sh pair): an Open MPI job with one
# rank per VM over UCX (pml ucx) on the ORDMA device alone
# (UCX_NET_DEVICES), running mpi_check: a ping-pong verified byte by byte
# on both sides and an allreduce whose sums are checked.  mpirun runs on
# VM A and starts the rank on VM B through pair_rsh.sh, the rsh agent
# over the directory the VMs share (VM B serves it for the test's
# duration); Open MPI's own TCP traffic goes over the ORDMA netdev.
# VM A reports the job's results, VM B what its rank found.
. "$(dirname "$0")/lib.sh"

[ -n "${ORDMA_PEER_IP:-}" ] && [ -d "${ORDMA_SYNC:-}" ] ||
	ktap_skip_all "needs the two-VM topology (ORDMA_PEER_IP, ORDMA_SYNC)"
MPI_CHECK=${ORDMA_MPI_CHECK:-$ORDMA_REPO/build/bin/mpi_check}
command -v mpirun >/dev/null || ktap_skip_all "no mpirun (Debian: openmpi-bin)"
[ -x "$MPI_CHECK" ] || ktap_skip_all "$MPI_CHECK not built (needs mpicc: libopenmpi-dev)"
ordma_require_device
ordma_require_provider
TOOL_TIMEOUT=${ORDMA_TOOL_TIMEOUT:-300}
PAIR_TAG=mpi
MPI_CASES=3	# the tests in mpi_check.c
RSH=$SELFTEST_DIR/pair_rsh.sh
export MPI_CHECK_PEER_LOG=$ORDMA_SYNC/mpi_check.rank1.log

ktap_header
if [ "$GUEST_ROLE" = A ]; then
	ktap_set_plan $((2 + MPI_CASES))
else
	ktap_set_plan 2
	"$RSH" serve &
	rsh_pid=$!
fi
if ! pair_rdma_up; then
	ktap_test_fail "$GUEST_ROLE: RDMA device with an IPv4 RoCE v2 GID"
	pair_barrier finished
	[ "$GUEST_ROLE" = A ] || { "$RSH" stop; wait "$rsh_pid"; }
	tap_skip_rest "no RDMA device"
	ktap_finished
fi
ktap_test_pass "$ib: GID $gidx is the RoCE v2 GID of $ORDMA_LOCAL_IP"

if [ "$GUEST_ROLE" = A ]; then
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	out=$(timeout "$TOOL_TIMEOUT" mpirun -np 2 \
		--host "$ORDMA_LOCAL_IP:1,$ORDMA_PEER_IP:1" \
		--mca plm_rsh_agent "$RSH" --mca oob_tcp_if_include "$nd" \
		--mca pml ucx --mca osc ucx --mca btl self \
		-x UCX_NET_DEVICES="$ib:1" -x LD_LIBRARY_PATH -x MPI_CHECK_PEER_LOG \
		"$MPI_CHECK" 2>&1)
	rc=$?
	ktap_test_result "$rc" "mpirun -np 2 over UCX on $ib:1, one rank per VM (exit $rc)"
	tap_cases mpi_check "$MPI_CASES" "$out"
	pair_barrier finished
else
	pair_barrier finished
	"$RSH" stop
	wait "$rsh_pid"
	log=$(cat "$MPI_CHECK_PEER_LOG" 2>&1)
	tap_match "rank 1 (this VM) found every byte and sum right" \
		"^$MPI_CASES passed, 0 failed\$" "$log"
fi
ktap_finished
