# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# shellcheck shell=bash
# shellcheck disable=SC2034 # the counters are for the scripts sourcing this
#
# The ORDMA shell test runner: TAP output and its counting for every
# script that reports results (the selftests, run_kselftest.sh,
# tools/vm/run-vm.sh, tools/check/run-check.sh).  Source it, then:
#
#	ktap_header
#	ktap_set_plan 3
#	ktap_test_pass "the device probes"
#	ktap_test_result "$rc" "the netdev comes up"
#	ktap_test_skip "ping" "no peer"
#	ktap_finished	# totals, then exit 0 pass, 1 fail, 4 all skipped
#
# Results are numbered here; the last line of ktap_finished is
# "N passed, N failed[, N skipped]" as the C runner (ordma_test.h)
# prints it.  With KTAP_TEE=FILE every line also goes to FILE.

KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

# The counters: KTAP_PLAN (empty until set), KTAP_TESTNUM, KTAP_CNT_PASS,
# KTAP_CNT_FAIL, KTAP_CNT_SKIP, and KTAP_LAST_FAILED (1 when the last
# result was a failure).

# ktap_reset: count afresh, for a second stream from the same script
ktap_reset() {
	KTAP_PLAN=
	KTAP_TESTNUM=0
	KTAP_CNT_PASS=0
	KTAP_CNT_FAIL=0
	KTAP_CNT_SKIP=0
	KTAP_LAST_FAILED=0
}
ktap_reset

_ktap_out() {
	printf '%s\n' "$1"
	[ -z "${KTAP_TEE:-}" ] || printf '%s\n' "$1" >>"$KTAP_TEE"
}

ktap_header() {
	_ktap_out "TAP version 13"
}

# ktap_set_plan N: N results will follow (or, at the end, have been given)
ktap_set_plan() {
	KTAP_PLAN=$1
	_ktap_out "1..$1"
}

# ktap_skip_all REASON: nothing here applies; exits with the skip status
ktap_skip_all() {
	ktap_header
	_ktap_out "1..0 # SKIP $*"
	exit "$KSFT_SKIP"
}

# ktap_print_msg TEXT: TEXT as diagnostic lines, each behind "# "
ktap_print_msg() {
	local l
	while IFS= read -r l; do
		_ktap_out "# $l"
	done <<<"$*"
}

ktap_test_pass() {
	KTAP_TESTNUM=$((KTAP_TESTNUM + 1))
	KTAP_CNT_PASS=$((KTAP_CNT_PASS + 1))
	KTAP_LAST_FAILED=0
	_ktap_out "ok $KTAP_TESTNUM - $*"
}

ktap_test_fail() {
	KTAP_TESTNUM=$((KTAP_TESTNUM + 1))
	KTAP_CNT_FAIL=$((KTAP_CNT_FAIL + 1))
	KTAP_LAST_FAILED=1
	_ktap_out "not ok $KTAP_TESTNUM - $*"
}

# ktap_test_skip DESC [REASON]
ktap_test_skip() {
	KTAP_TESTNUM=$((KTAP_TESTNUM + 1))
	KTAP_CNT_SKIP=$((KTAP_CNT_SKIP + 1))
	KTAP_LAST_FAILED=0
	_ktap_out "ok $KTAP_TESTNUM - $1 # SKIP ${2:-skipped}"
}

# ktap_test_result STATUS DESC: a pass if STATUS is 0; returns STATUS
ktap_test_result() {
	local rc=$1
	shift
	if [ "$rc" -eq 0 ]; then
		ktap_test_pass "$@"
	else
		ktap_test_fail "$@"
	fi
	return "$rc"
}

# ktap_relay PREFIX LINE: if LINE is a TAP result ("ok 3 - x", "not ok
# x", "ok - x # SKIP why"), report it again here, numbered here and
# described as PREFIX plus its description ("result" if it has none).
# Returns 0 for a pass or skip, 1 for a failure, 2 if LINE is no result.
ktap_relay() {
	local re='^(not ok|ok)( [0-9]+)?( - | -|-| |$)(.*)$' desc what why
	[[ $2 =~ $re ]] || return 2
	desc=${BASH_REMATCH[4]:-result}
	if [ "${BASH_REMATCH[1]}" = "not ok" ]; then
		ktap_test_fail "$1$desc"
		return 1
	fi
	if [[ $desc == *"# SKIP"* ]]; then
		what=${desc%%# SKIP*}
		what=${what%"${what##*[![:space:]]}"}
		why=${desc#*# SKIP}
		why=${why#"${why%%[![:space:]]*}"}
		ktap_test_skip "$1$what" "$why"
	else
		ktap_test_pass "$1$desc"
	fi
	return 0
}

# ktap_print_totals [--always-skipped]: "N passed, N failed[, N skipped]"
# (the skipped count also when it is 0 with --always-skipped)
# shellcheck disable=SC2120 # the option is for the scripts that source this
ktap_print_totals() {
	if [ "$KTAP_CNT_SKIP" -gt 0 ] || [ "${1:-}" = --always-skipped ]; then
		_ktap_out "$KTAP_CNT_PASS passed, $KTAP_CNT_FAIL failed, $KTAP_CNT_SKIP skipped"
	else
		_ktap_out "$KTAP_CNT_PASS passed, $KTAP_CNT_FAIL failed"
	fi
}

# ktap_finished: totals and exit: 1 if a result failed or the plan was
# not met, 4 if everything was skipped, else 0
ktap_finished() {
	local rc=$KSFT_PASS
	if [ -n "$KTAP_PLAN" ] && [ "$KTAP_TESTNUM" -ne "$KTAP_PLAN" ]; then
		_ktap_out "# planned $KTAP_PLAN results but reported $KTAP_TESTNUM"
		rc=$KSFT_FAIL
	fi
	# shellcheck disable=SC2119 # no option: the skipped count if any
	ktap_print_totals
	if [ "$KTAP_CNT_FAIL" -gt 0 ]; then
		rc=$KSFT_FAIL
	elif [ "$rc" = "$KSFT_PASS" ] && [ "$KTAP_CNT_PASS" -eq 0 ] &&
		[ "$KTAP_CNT_SKIP" -gt 0 ]; then
		rc=$KSFT_SKIP
	fi
	exit "$rc"
}
