#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Run ORDMA selftests the way the kselftest runner does: each test is an
# executable printing TAP, exit status 0 pass, 1 fail, 4 skip.  Prints a
# top-level TAP stream (test output nested as '# ' comments) and writes
# to OUTDIR:
#   <test>.tap     the test's own output       <test>.rc   its exit status
#   kselftest.tap  the stream printed here
#   summary.tap    every result of every test, flattened ("test: result")
#   summary.txt    one line per test: PASS/FAIL/SKIP and seconds
#
# Usage: run_kselftest.sh [-o OUTDIR] [-t TIMEOUT] [TEST...]
#   TEST is a name in this directory (probe or probe.sh) or a path;
#   default: every test listed in TEST_PROGS of the Makefile here.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
OUTDIR=${KSFT_OUTDIR:-/tmp/ordma-selftests}
TIMEOUT=

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

kmsg() { echo "ordma-selftest: $*" >/dev/kmsg 2>/dev/null; }

: >"$OUTDIR/summary.txt"
: >"$OUTDIR/summary.tap.body"
{
	echo "TAP version 13"
	echo "1..$#"
} | tee "$OUTDIR/kselftest.tap"
n=0
leaf=0
failed=0
for t in "$@"; do
	n=$((n + 1))
	case "$t" in
	*/*) path=$t ;;
	*) path=$HERE/${t%.sh}.sh ;;
	esac
	name=$(basename "$path" .sh)
	echo "# selftests: ordma: $name" | tee -a "$OUTDIR/kselftest.tap"
	kmsg "start $name"
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
	sed 's/^/# /' "$OUTDIR/$name.tap" | tee -a "$OUTDIR/kselftest.tap"

	# Flatten the test's own results; then make sure its exit status is
	# reflected even when its TAP is not.
	fails_in_tap=0
	results_in_tap=0
	while IFS= read -r l; do
		case "$l" in
		"ok "* | "not ok "*)
			leaf=$((leaf + 1))
			results_in_tap=$((results_in_tap + 1))
			case "$l" in "not ok "*) fails_in_tap=$((fails_in_tap + 1)) ;; esac
			printf '%s\n' "$l" | sed -E "s/^(not ok|ok) [0-9]+ (- )?/\1 $leaf - $name: /" \
				>>"$OUTDIR/summary.tap.body" ;;
		esac
	done <"$OUTDIR/$name.tap"
	case "$rc" in
	0) verdict=PASS; top="ok $n selftests: ordma: $name" ;;
	4) verdict=SKIP; top="ok $n selftests: ordma: $name # SKIP"
	   if [ "$results_in_tap" -eq 0 ]; then
		   reason=$(sed -n 's/^1\.\.0 # SKIP //p' "$OUTDIR/$name.tap" | head -n 1)
		   leaf=$((leaf + 1))
		   echo "ok $leaf - $name # SKIP ${reason:-skipped}" >>"$OUTDIR/summary.tap.body"
	   fi ;;
	124 | 137) verdict=FAIL; top="not ok $n selftests: ordma: $name # TIMEOUT ${TIMEOUT} seconds" ;;
	*) verdict=FAIL; top="not ok $n selftests: ordma: $name # exit=$rc" ;;
	esac
	if [ "$verdict" = FAIL ] && [ "$fails_in_tap" -eq 0 ]; then
		leaf=$((leaf + 1))
		echo "not ok $leaf - $name: exited with status $rc" >>"$OUTDIR/summary.tap.body"
	fi
	[ "$verdict" = FAIL ] && failed=$((failed + 1))
	echo "$top" | tee -a "$OUTDIR/kselftest.tap"
	printf '%-12s %s %4ss\n' "$name" "$verdict" "$secs" >>"$OUTDIR/summary.txt"
done
{
	echo "TAP version 13"
	echo "1..$leaf"
	cat "$OUTDIR/summary.tap.body"
} >"$OUTDIR/summary.tap"
rm -f "$OUTDIR/summary.tap.body"
echo "# summary:"
sed 's/^/#   /' "$OUTDIR/summary.txt"
[ "$failed" -eq 0 ]
