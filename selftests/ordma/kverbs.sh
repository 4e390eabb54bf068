#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# The kernel verbs path between the two ORDMA NICs of one machine, as a
# kernel ULP uses it: the test module kverbs/ordma_kverbs_test.ko (built
# by 'make modules', loaded here by path) runs its steps at init with a
# kernel RC QP on each NIC: PDs with the local DMA lkey and an unsafe
# global rkey, CQs polled directly and by completion event, SEND/RECV
# (also inline), a fast-registration MR written, read, invalidated by
# SEND_WITH_INV, re-keyed and invalidated locally, a WRITE to the
# invalidated rkey that must fail with a remote access error, and a
# kernel SRQ that two QPs share (ib_post_srq_recv, the limit event, a
# full ring).  Each step is one result here; the module must also unload
# and leave the kernel log free of the patterns in kmsg_fail_patterns.
. "$(dirname "$0")/lib.sh"

ordma_require_device
KO=${ORDMA_KVERBS_KO:-$ORDMA_REPO/selftests/ordma/kverbs/ordma_kverbs_test.ko}
MOD=ordma_kverbs_test
# Results the module prints (its kv_tests[])
KV_CASES=26
BAD_KMSG=$(grep -v '^#' "$SELFTEST_DIR/kmsg_fail_patterns" | paste -sd '|')

mapfile -t devs < <(ordma_pci_devs)
[ "${#devs[@]}" -ge 2 ] || ktap_skip_all "needs two ORDMA NICs cabled together"

ktap_header
ktap_set_plan $((1 + 1 + KV_CASES + 3))

ordma_require_rdma_pair "${devs[0]}" "${devs[1]}"

if [ ! -f "$KO" ]; then
	ktap_test_fail "insmod $MOD: $KO not built (make modules)"
	tap_skip_rest "test module not built"
	ktap_finished
fi
# A module left behind by an interrupted run
grep -q "^$MOD " /proc/modules && rmmod "$MOD"

kmsg_lines=$(dmesg | wc -l)
out=$(timeout 300 insmod "$KO" dev_a="${ib[1]}" dev_b="${ib[2]}" \
	gid_index_a="${gidx[1]}" gid_index_b="${gidx[2]}" 2>&1)
rc=$?
ktap_test_result "$rc" "insmod $MOD dev_a=${ib[1]} dev_b=${ib[2]}"
[ "$rc" -eq 0 ] || ktap_print_msg "$out"

# The module's lines of this run: after its last "begin"
log=$(dmesg | tail -n +$((kmsg_lines + 1)) | sed -n 's/^.*ordma_kverbs: //p' |
	awk '$0 == "begin" { buf = "" } { buf = buf $0 "\n" } END { printf "%s", buf }')
done_line=$(grep '^done ' <<<"$log" | tail -n 1)
tap_cases ordma_kverbs "$KV_CASES" "$(grep -vE '^(begin$|done )' <<<"$log")"
tap_match "the module ran its $KV_CASES steps, none failed" "^done $KV_CASES passed 0 failed\$" "${done_line:-no done line}"

if grep -q "^$MOD " /proc/modules; then
	tap_cmd "rmmod $MOD" rmmod "$MOD"
else
	ktap_test_fail "rmmod $MOD: the module is not loaded"
fi

bad=$(dmesg | tail -n +$((kmsg_lines + 1)) | grep -E "$BAD_KMSG")
tap_eq "no kernel warnings during the run" "" "$bad"

ktap_finished
