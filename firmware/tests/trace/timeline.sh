#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# The timeline of a scripted exchange, as an engineer reads it: the
# firmware unit test test_trace_exchange (tests/transport/test_trace.c)
# runs two devices through one SEND and one RDMA READ whose response the
# wire loses, writing each device's trace file and each port's capture;
# tools/diag/ordma-trace must merge them into the expected events in the
# expected order, filter them by QPN and PSN, and write the page.
#
# Usage: timeline.sh FW_TESTS   (prints TAP)
set -uo pipefail

FW_TESTS=$1
REPO=$(cd "$(dirname "$0")/../../.." && pwd)
TRACE=$REPO/tools/diag/ordma-trace
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
n=0
fails=0
result() { # result OK NAME [DIAG]
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		fails=$((fails + 1))
		[ -n "${3:-}" ] && sed 's/^/# /' <<<"$3"
	fi
}

# in_order FILE PATTERN...: every pattern matches a line, each after the
# previous one's; prints the first pattern not found
in_order() {
	local file=$1 line=0 p next
	shift
	for p in "$@"; do
		next=$(tail -n +"$((line + 1))" "$file" | grep -n -m1 -E -- "$p" | cut -d: -f1)
		if [ -z "$next" ]; then
			echo "not found after line $line: $p"
			return 1
		fi
		line=$((line + next))
	done
}

ORDMA_TRACE_EXCHANGE_DIR=$DIR "$FW_TESTS" test_trace_exchange >"$DIR/test.log" 2>&1
result $? "the exchange runs and writes its files" "$(tail -n 5 "$DIR/test.log")"

"$TRACE" --no-dma -o "$DIR/timeline.txt" "$DIR" 2>"$DIR/trace.err"
result $? "ordma-trace reads the two trace files and the two captures" \
	"$(cat "$DIR/trace.err")"

# psn 256 is the SEND's, 257 the READ's (default_cfg() of the pair)
steps=(
	'ordma-a +WQE +qp 2 +wqe 0 +SEND +psn 256'
	'ordma-a +TX +qp 2 -> qp 2 +psn 256 +RC SEND_ONLY'
	'wire:ordma-a +out +RC SEND_ONLY +qp 2 +psn 256'
	'wire:ordma-b +in +RC SEND_ONLY'
	'ordma-b +RX +qp 2 +psn 256 +RC SEND_ONLY'
	'ordma-b +CQE +qp 2 .* RECV +SUCCESS'
	'ordma-b +TX .* psn 256 +RC ACKNOWLEDGE'
	'ordma-a +RX .* psn 256 +RC ACKNOWLEDGE'
	'ordma-a +CQE +qp 2 .* SEND +SUCCESS'
	'ordma-a +WQE .* RDMA_READ +psn 257'
	'ordma-a +TX .* psn 257 +RC RDMA_READ_REQUEST'
	'ordma-b +RX .* psn 257 +RC RDMA_READ_REQUEST'
	'wire:ordma-b +out +RC RDMA_READ_RESPONSE_ONLY .*\[loss\]'
	'ordma-a +RETRANSMIT +qp 2 +psn 257 .*timeout'
	'ordma-a +TX .* psn 257 +RC RDMA_READ_REQUEST'
	'ordma-b +RX .* psn 257 +RC RDMA_READ_REQUEST'
	'ordma-b +TX .* psn 257 +RC RDMA_READ_RESPONSE_ONLY'
	'wire:ordma-a +in +RC RDMA_READ_RESPONSE_ONLY'
	'ordma-a +RX .* psn 257 +RC RDMA_READ_RESPONSE_ONLY'
	'ordma-a +CQE +qp 2 .* RDMA_READ +SUCCESS'
)
out=$(in_order "$DIR/timeline.txt" "${steps[@]}")
result $? "the timeline shows the SEND, the lost READ response, the timeout, the READ sent again and its completion, in order" \
	"$out"

"$TRACE" --psn 257 -o "$DIR/psn.txt" "$DIR" 2>/dev/null
rows=$(grep -cvE '^#' "$DIR/psn.txt")
others=$(grep -vE '^#' "$DIR/psn.txt" | grep -cv 'psn 257')
result $([ "$rows" -ge 10 ] && [ "$others" = 0 ]; echo $?) \
	"--psn 257: only the READ's rows ($rows), none of another PSN" \
	"$(grep -v 'psn 257' "$DIR/psn.txt" | head)"

"$TRACE" --kind dma_write --qpn 2 --device ordma-b -o "$DIR/dma.txt" "$DIR" 2>/dev/null
result $(grep -qE 'ordma-b +DMA_WRITE +qp 2 .*0x608000.*64' "$DIR/dma.txt"; echo $?) \
	"--kind dma_write --qpn 2: B places the SEND's 64 bytes at 0x608000 for its QP" \
	"$(head -n 20 "$DIR/dma.txt")"

"$TRACE" --html "$DIR/timeline.html" "$DIR" >/dev/null 2>&1
html_rows=$(grep -c '<tr class=' "$DIR/timeline.html" 2>/dev/null)
all_rows=$("$TRACE" "$DIR" 2>/dev/null | grep -cvE '^#')
result $([ -n "$html_rows" ] && [ "$html_rows" -ge "$all_rows" ] &&
	python3 -c 'import html.parser, sys
html.parser.HTMLParser().feed(open(sys.argv[1]).read())' "$DIR/timeline.html"; echo $?) \
	"the page has a row for each of the $all_rows events and parses" \
	"html rows: $html_rows"

echo "1..$n"
[ "$fails" = 0 ]
