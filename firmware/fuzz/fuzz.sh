#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Runs the libFuzzer harnesses built by the firmware Makefile.
#
#   fuzz.sh run BINDIR NAME SECONDS
#       fuzz NAME for SECONDS, new inputs into BINDIR/corpus/NAME (the
#       committed seeds in fuzz/corpus/NAME are read, never written);
#       findings go to BINDIR/artifacts/NAME/
#   fuzz.sh check BINDIR SECONDS NAME...
#       TAP: for each harness, replay the committed corpus and the
#       regression inputs listed in fuzz/regressions/CHECKED, then fuzz
#       for SECONDS; one result line each.  Without the binaries (no
#       clang) every result is a SKIP.
set -u

here=$(cd "$(dirname "$0")" && pwd)
mode=$1
bindir=$2

# libFuzzer's own limits: a hang is a finding, so is a leak
opts=(-timeout=25 -rss_limit_mb=2048 -print_final_stats=1)
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}

run() {
	local name=$1 secs=$2
	local bin=$bindir/fuzz_$name

	mkdir -p "$bindir/corpus/$name" "$bindir/artifacts/$name"
	echo "fuzz $name: $secs s, corpus $bindir/corpus/$name"
	"$bin" "${opts[@]}" -max_total_time="$secs" \
		-artifact_prefix="$bindir/artifacts/$name/" \
		"$bindir/corpus/$name" "$here/corpus/$name"
}

# "stat::number_of_executed_units: N" and friends from the log
stat() {
	sed -n "s/^stat::$1: *//p" "$2" | tail -n 1
}

check() {
	local secs=$1 n=0 name
	shift
	for name in "$@"; do
		local bin=$bindir/fuzz_$name log=$bindir/check-$name.log
		local corpus=$here/corpus/$name regs=() files
		n=$((n + 1))
		if [ ! -x "$bin" ]; then
			echo "ok $n - fuzz $name # SKIP clang not found, harness not built"
			continue
		fi
		files=$(find "$corpus" -type f | wc -l)
		if [ -f "$here/regressions/CHECKED" ]; then
			while read -r f; do
				case "$f" in "$name"-*) regs+=("$here/regressions/$f") ;; esac
			done < <(sed 's/#.*//; /^[[:space:]]*$/d' \
				 "$here/regressions/CHECKED")
		fi
		# the regression inputs first, once each
		if [ ${#regs[@]} -gt 0 ] &&
		   ! "$bin" "${opts[@]}" "${regs[@]}" >"$log.reg" 2>&1; then
			echo "not ok $n - fuzz $name: a regression input fails"
			sed 's/^/# /' "$log.reg" | grep -m 40 -v '^# *$'
			continue
		fi
		# the corpus, then fuzzing from it into a scratch directory
		local work
		work=$(mktemp -d "$bindir/check-$name.XXXXXX")
		local start=$SECONDS rc=0
		"$bin" "${opts[@]}" -max_total_time="$secs" \
			-artifact_prefix="$bindir/check-$name-" \
			"$work" "$corpus" >"$log" 2>&1 || rc=$?
		local took=$((SECONDS - start))
		rm -rf "$work"
		local execs cov
		execs=$(stat number_of_executed_units "$log")
		cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -n 1)
		if [ "$rc" != 0 ]; then
			echo "not ok $n - fuzz $name: finding after $took s (log $log)"
			grep -m 1 -E 'ERROR|==fuzz invariant==|runtime error' "$log" |
				sed 's/^/# /'
			grep -m 1 'Test unit written to' "$log" | sed 's/^/# /'
			continue
		fi
		echo "ok $n - fuzz $name: replayed $files inputs$([ ${#regs[@]} -gt 0 ] &&
			echo " and ${#regs[@]} regressions"), ran $took s, ${execs:-0} execs, $cov"
	done
	echo "1..$n"
}

case "$mode" in
run) run "$3" "$4" ;;
check) shift 2; check "$@" ;;
*) echo "usage: $0 run BINDIR NAME SECONDS | check BINDIR SECONDS NAME..." >&2
   exit 2 ;;
esac
