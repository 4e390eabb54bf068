#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Run ORDMA selftests the way the kselftest runner does: each test is an
# executable printing TAP, exit status 0 pass, 1 fail, 4 skip.  Prints a
# top-level TAP stream (test output nested as '# ' comments, results
# counted by tools/testing/ktap.sh) and writes to OUTDIR:
#   <test>.tap     the test's own output       <test>.rc   its exit status
#   kselftest.tap  the stream printed here
#   summary.tap    every result of every test, flattened ("test: result")
#   summary.txt    one line per test: PASS/FAIL/SKIP and seconds
#
# Usage: run_kselftest.sh [-o OUTDIR] [-t TIMEOUT] [TEST...]
#   TEST is a name in this directory (probe or probe.sh) or a path;
#   default: every test listed in TEST_PROGS of the Makefile here.
#   TIMEOUT (seconds per test): -t, else ORDMA_SELFTEST_TIMEOUT, else
#   the settings file's.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
OUTDIR=${KSFT_OUTDIR:-/tmp/ordma-selftests}
TIMEOUT=${ORDMA_SELFTEST_TIMEOUT:-}

while getopts "o:t:" opt; do
	case "$opt" in
	o) OUTDIR=$OPTARG ;;
	t) TIMEOUT=$OPTARG ;;
	*) echo "usage: $0 [-o OUTDIR] [-t TIMEOUT] [TEST...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
if [ -z "$TIMEOUT" ]; then
	TIMEOUT=$(sed -n 's/^timeout=//p' "$HERE/settings" 2>/dev/null)
	TIMEOUT=${TIMEOUT:-300}
fi
if [ $# -eq 0 ]; then
	# shellcheck disable=SC2046 # one word per test
	set -- $(sed -n 's/^TEST_PROGS *:= *//p' "$HERE/Makefile")
fi
mkdir -p "$OUTDIR"
# shellcheck source=tools/testing/ktap.sh
. "$HERE/../../tools/testing/ktap.sh"

kmsg() { echo "ordma-selftest: $*" >/dev/kmsg 2>/dev/null; }

# test_path TEST: the executable of a test name or path
test_path() {
	case "$1" in
	*/*) echo "$1" ;;
	*) echo "$HERE/${1%.sh}.sh" ;;
	esac
}

# flatten TEST...: every result of every test as one TAP stream ("test:
# result"), with one more result where a test's exit status says what
# its TAP does not (skipped as a whole, or failed without a failed result)
flatten() {
	local t name rc l results fails reason
	ktap_reset
	ktap_header
	for t in "$@"; do
		name=$(basename "$(test_path "$t")" .sh)
		rc=$(cat "$OUTDIR/$name.rc")
		results=0
		fails=0
		while IFS= read -r l; do
			ktap_relay "$name: " "$l"
			case $? in
			0) results=$((results + 1)) ;;
			1) results=$((results + 1)); fails=$((fails + 1)) ;;
			esac
		done <"$OUTDIR/$name.tap"
		case "$rc" in
		0) ;;
		4) if [ "$results" -eq 0 ]; then
			   reason=$(sed -n 's/^1\.\.0 # SKIP //p' "$OUTDIR/$name.tap" | head -n 1)
			   ktap_test_skip "$name" "${reason:-skipped}"
		   fi ;;
		*) [ "$fails" -gt 0 ] || ktap_test_fail "$name: exited with status $rc" ;;
		esac
	done
	ktap_set_plan "$KTAP_TESTNUM"
	ktap_print_totals
}

: >"$OUTDIR/summary.txt"
: >"$OUTDIR/kselftest.tap"
KTAP_TEE=$OUTDIR/kselftest.tap
# pcap_mark TEXT: with the NICs captured (run-vm.sh --pcap), ask the
# host to put a marker into every capture, and wait until it is there
pcap_mark() {
	local dir=${ORDMA_RESULTS:-/mnt/results} i
	[ -n "${ORDMA_PCAP:-}" ] || return 0
	rm -f "$dir/host-request.done"
	echo "pcap-mark $*" >"$dir/host-request.tmp" &&
		mv "$dir/host-request.tmp" "$dir/host-request" || return 0
	for ((i = 0; i < 300; i++)); do
		[ -e "$dir/host-request.done" ] && break
		sleep 0.1
	done
	rm -f "$dir/host-request.done"
}

ktap_header
ktap_set_plan $#
for t in "$@"; do
	path=$(test_path "$t")
	name=$(basename "$path" .sh)
	ktap_print_msg "selftests: ordma: $name"
	kmsg "start $name"
	pcap_mark "selftest $name begins"
	start=$SECONDS
	if [ -x "$path" ]; then
		(cd "$(dirname "$path")" && timeout -k 5 "$TIMEOUT" "$path") \
			>"$OUTDIR/$name.tap" 2>&1
		rc=$?
	else
		echo "# $path: not an executable test" >"$OUTDIR/$name.tap"
		rc=127
	fi
	secs=$((SECONDS - start))
	echo "$rc" >"$OUTDIR/$name.rc"
	kmsg "end $name rc=$rc"
	ktap_print_msg "$(cat "$OUTDIR/$name.tap")"
	case "$rc" in
	0) ktap_test_pass "selftests: ordma: $name"; verdict=PASS ;;
	4) ktap_test_skip "selftests: ordma: $name" "$(sed -n 's/^1\.\.0 # SKIP //p' "$OUTDIR/$name.tap" | head -n 1)"
	   verdict=SKIP ;;
	124 | 137) ktap_test_fail "selftests: ordma: $name # TIMEOUT ${TIMEOUT} seconds"; verdict=FAIL ;;
	*) ktap_test_fail "selftests: ordma: $name # exit=$rc"; verdict=FAIL ;;
	esac
	printf '%-12s %s %4ss\n' "$name" "$verdict" "$secs" >>"$OUTDIR/summary.txt"
	pcap_mark "selftest $name ends: $verdict"
done
ktap_print_msg "summary:"$'\n'"$(sed 's/^/  /' "$OUTDIR/summary.txt")"
ktap_print_totals
failed=$KTAP_CNT_FAIL
unset KTAP_TEE
(flatten "$@") >"$OUTDIR/summary.tap"
[ "$failed" -eq 0 ]
