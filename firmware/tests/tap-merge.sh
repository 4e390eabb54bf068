#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Run several TAP producers and print one TAP stream: their results
# numbered in order, comments passed through, their own plans and summary
# lines dropped, then one plan and "N passed, N failed[, N skipped]".
# A producer that exits non-zero (or is killed) without reporting a
# failure adds one failing result.  Exit status 1 if anything failed.
#
# Usage: tap-merge.sh 'COMMAND...' ['COMMAND...' ...]
set -u

n=0
pass=0
fail=0
skip=0
echo "TAP version 13"
for cmd in "$@"; do
	failed_before=$fail
	rc=missing
	while IFS= read -r l; do
		case "$l" in
		"#ORDMA-TAP-MERGE exit "*) rc=${l##* }; continue ;;
		"TAP version"* | [0-9]*..[0-9]* | *" passed, "*" failed"*) continue ;;
		"ok" | "ok "* | "not ok" | "not ok "*) ;;
		*) printf '%s\n' "$l"; continue ;;
		esac
		n=$((n + 1))
		case "$l" in
		"not ok"*) fail=$((fail + 1)) ;;
		*"# SKIP"*) skip=$((skip + 1)) ;;
		*) pass=$((pass + 1)) ;;
		esac
		printf '%s\n' "$l" | sed -E "s/^(not ok|ok)( [0-9]+)?( -)?/\\1 $n -/"
	done < <(bash -c "$cmd"; echo "#ORDMA-TAP-MERGE exit $?")
	if [ "$rc" != 0 ] && [ "$fail" = "$failed_before" ]; then
		n=$((n + 1))
		fail=$((fail + 1))
		echo "not ok $n - $cmd exited with status $rc"
	fi
done
echo "1..$n"
if [ "$skip" -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
