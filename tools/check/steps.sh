# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# shellcheck shell=bash
#
# The steps of make check and make soak (sourced): each step's output
# goes to $OUT/<step>.log, its TAP results (or one result for its exit
# status) are printed numbered across all steps and collected in
# $OUT/check.tap.  Needs REPO, OUT and MAKE set.

T0=$SECONDS
declare -A STEP_FAILED=()
# Results are numbered and counted by the shell test runner, and also
# written to check.tap.
# shellcheck source=tools/testing/ktap.sh
. "$REPO/tools/testing/ktap.sh"
KTAP_TEE=$OUT/check.tap

emit_fail() { # emit_fail STEP DESC
	ktap_test_fail "$1: $2"
	STEP_FAILED[$1]=1
}

# step NAME CMD...: run CMD, report its TAP lines or its exit status
step() {
	local name=$1 rc start lines l have_fail=0 skip_reason
	shift
	start=$SECONDS
	echo "# ---- $name: $*"
	"$@" >"$OUT/$name.log" 2>&1 </dev/null
	rc=$?
	lines=$(grep -E '^(ok|not ok)( [0-9]+)?( |$)' "$OUT/$name.log")
	while IFS= read -r l; do
		[ -n "$l" ] || continue
		if ! ktap_relay "$name: " "$l"; then
			have_fail=1
			STEP_FAILED[$name]=1
		fi
	done <<<"$lines"
	if [ -z "$lines" ]; then
		case "$rc" in
		0) ktap_test_pass "$name: $*" ;;
		4) skip_reason=$(sed -n 's/^1\.\.0 # SKIP //p' "$OUT/$name.log" | head -n 1)
		   ktap_test_skip "$name: $*" "${skip_reason:-skipped}" ;;
		*) emit_fail "$name" "$* (exit status $rc)" ;;
		esac
	elif [ "$rc" -ne 0 ] && [ "$rc" -ne 4 ] && [ "$have_fail" = 0 ]; then
		emit_fail "$name" "$* exited with status $rc"
	fi
	if [ -n "${STEP_FAILED[$name]:-}" ]; then
		echo "# $name failed; last lines of $OUT/$name.log:"
		grep -vE '^(ok|not ok)( [0-9]+)?( |$)' "$OUT/$name.log" | tail -n 25 | sed 's/^/#   /'
	fi
	echo "# ---- $name: $((SECONDS - start))s"
}

# skip_step NAME REASON
skip_step() { ktap_test_skip "$1:" "$2"; }

# steps_finish: the plan, the time, and the totals line; fails if any
# step failed
steps_finish() {
	echo "1..$KTAP_TESTNUM" >>"$OUT/check.tap"
	echo "# total $((SECONDS - T0))s; logs in $OUT"
	KTAP_TEE='' ktap_print_totals --always-skipped
	[ "$KTAP_CNT_FAIL" -eq 0 ]
}
