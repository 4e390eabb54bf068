#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# The firmware's RoCEv2 frames against Wireshark's InfiniBand dissector.
#
# Usage: tshark-interop.sh WIRE_PCAP [OUTDIR]
#   WIRE_PCAP  the tests/wire/wire_pcap.c program (built by the Makefile)
#   OUTDIR     where the pcap files and tshark's output go (default: a
#              temporary directory, removed at the end)
#
# wire_pcap writes every opcode over IPv4 and IPv6, with and without an
# 802.1Q tag, plus one frame with a wrong ICRC.  tshark must decode each
# as RoCEv2 with the BTH, extension headers, ICRC field and payload length
# our parser finds; with IP and UDP checksum verification on it must find
# no malformed packet and no warning or error.  The same field by field
# comparison runs over vectors/rxe-capture.pcap, real rdma_rxe traffic.
# Wireshark 4.0 shows the ICRC but does not verify it; where a version
# has a verdict field for it (infiniband.invariant.crc.status) that is
# checked too, else that line is a SKIP.
#
# Prints TAP; the line "N passed, N failed, N skipped" last.  Without
# tshark every check is skipped.
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOOL=${1:-}
OUT=${2:-}
RXE_PCAP=$HERE/vectors/rxe-capture.pcap
# The generated file: 25 opcodes x {IPv4, IPv6} x {tag, none} + 1 bad ICRC
GEN_FRAMES=101

lines=()
tap() { lines+=("$1"); }
finish() {
	local l i=0 pass=0 fail=0 skip=0
	echo "TAP version 13"
	for l in "${lines[@]}"; do
		case "$l" in
		"#"*) echo "$l"; continue ;;
		"not ok"*) fail=$((fail + 1)) ;;
		*"# SKIP"*) skip=$((skip + 1)) ;;
		*) pass=$((pass + 1)) ;;
		esac
		i=$((i + 1))
		printf '%s\n' "$l" | sed -E "s/^(not ok|ok)( -)?/\\1 $i -/"
	done
	echo "1..$i"
	echo "$pass passed, $fail failed, $skip skipped"
	[ -n "${CLEANUP:-}" ] && rm -rf "$OUT"
	[ "$fail" -eq 0 ]
	exit
}
check() { # check DESC CMD...: one TAP line for the exit status of CMD
	local desc=$1
	shift
	if "$@"; then tap "ok - $desc"; else tap "not ok - $desc"; fi
}

if ! command -v tshark >/dev/null 2>&1; then
	tap "ok - Wireshark interop # SKIP tshark is not installed"
	finish
fi
if [ -z "$TOOL" ] || [ ! -x "$TOOL" ]; then
	tap "not ok - wire_pcap program given (usage: $0 WIRE_PCAP [OUTDIR])"
	finish
fi
if [ -z "$OUT" ]; then
	OUT=$(mktemp -d)
	CLEANUP=1
fi
mkdir -p "$OUT"
export LC_ALL=C
# tshark wants a writable home for its profile; never the caller's.
export HOME=$OUT

version=$(tshark --version 2>/dev/null | sed -n '1s/^TShark (Wireshark) \([^ ]*\).*/\1/p')
tap "# Wireshark ${version:-unknown}"

COLUMNS=(frame.number infiniband.bth.opcode infiniband.bth.destqp
	infiniband.bth.psn infiniband.bth.padcnt infiniband.bth.se
	infiniband.bth.m infiniband.bth.a infiniband.bth.p_key
	infiniband.invariant.crc infiniband.reth.va infiniband.reth.r_key
	infiniband.reth.dmalen infiniband.aeth.syndrome infiniband.aeth.msn
	infiniband.deth.q_key infiniband.deth.srcqp
	infiniband.atomiceth.swapdt infiniband.atomiceth.cmpdt
	infiniband.atomicacketh.origremdt infiniband.immdt infiniband.ieth
	data.len udp.srcport udp.dstport vlan.id)
fields=()
for c in "${COLUMNS[@]}"; do fields+=(-e "$c"); done

# The payloads are test patterns: Wireshark's heuristic upper-layer
# dissectors (RPC-over-RDMA, NVMe, iSER, SMB Direct, ...) would take some
# for theirs and call them malformed.  The RoCE layers are what is tested.
# (Their heuristic names vary by protocol; their protocols are disabled.)
NOHEUR=()
protocols=$(tshark -G protocols 2>/dev/null | cut -f3)
for h in $(tshark -G heuristic-decodes 2>/dev/null |
	   awk '$1 == "infiniband.payload" { print $2 }'); do
	case "$h" in ethertype | infiniband*) continue ;; esac
	grep -qx -- "$h" <<<"$protocols" && NOHEUR+=(--disable-protocol "$h")
done

# ts FILE ARGS...: tshark on FILE without payload heuristics
ts() {
	local f=$1
	shift
	tshark -n -r "$f" "${NOHEUR[@]}" "$@" 2>>"$OUT/tshark.log"
}

# ts_count FILE FILTER [OPTIONS...]: frames matching a display filter
ts_count() {
	local f=$1 y=$2
	shift 2
	ts "$f" "$@" -Y "$y" -T fields -e frame.number | grep -c .
}

GEN=$OUT/ordma-roce.pcap
check "wire_pcap wrote $GEN_FRAMES frames into a pcap file" "$TOOL" gen "$GEN"
n=$(ts_count "$GEN" frame)
check "tshark reads our pcap file: $n of $GEN_FRAMES frames" [ "$n" = "$GEN_FRAMES" ]
n=$(ts_count "$GEN" "udp.dstport == 4791 && infiniband.bth")
check "tshark dissects every frame as RoCEv2 (UDP 4791, BTH): $n of $GEN_FRAMES" \
	[ "$n" = "$GEN_FRAMES" ]

ts "$GEN" -T fields -E separator=/t -E occurrence=f "${fields[@]}" \
	>"$OUT/ordma-roce.tsv"
while IFS= read -r l; do
	tap "$l"
done < <("$TOOL" compare "$GEN" "$OUT/ordma-roce.tsv" by-opcode 1)

# Checksums verified: IPv4 header, UDP over IPv6 (IPv4 sends none).
csum=(-o ip.check_checksum:TRUE -o udp.check_checksum:TRUE)
n=$(ts_count "$GEN" "_ws.malformed || _ws.expert.severity >= 0x00600000" "${csum[@]}")
check "tshark, verifying IP and UDP checksums, finds no malformed frame, warning or error ($n)" \
	[ "$n" = 0 ]
n=$(ts_count "$GEN" "ip && ip.checksum.status == 1" "${csum[@]}")
m=$(ts_count "$GEN" "ip" "${csum[@]}")
check "tshark verifies every IPv4 header checksum as good ($n of $m)" [ "$n" = "$m" ] && [ "$m" -gt 0 ]
n=$(ts_count "$GEN" "ipv6 && udp.checksum.status == 1" "${csum[@]}")
m=$(ts_count "$GEN" "ipv6" "${csum[@]}")
check "tshark verifies every IPv6 UDP checksum as good ($n of $m)" [ "$n" = "$m" ] && [ "$m" -gt 0 ]

if tshark -G fields 2>/dev/null | cut -f3 | grep -qx 'infiniband.invariant.crc.status'; then
	n=$(ts_count "$GEN" "infiniband.invariant.crc.status == 1 && frame.number < $GEN_FRAMES")
	check "Wireshark verifies our ICRC as good ($n of $((GEN_FRAMES - 1)))" \
		[ "$n" = $((GEN_FRAMES - 1)) ]
	n=$(ts_count "$GEN" "infiniband.invariant.crc.status == 0 && frame.number == $GEN_FRAMES")
	check "Wireshark finds the wrong ICRC of the last frame" [ "$n" = 1 ]
else
	tap "ok - Wireshark verifies our ICRC # SKIP Wireshark ${version:-?} does not verify the RoCE ICRC (it shows infiniband.invariant.crc, compared above)"
fi

if [ -f "$RXE_PCAP" ]; then
	ts "$RXE_PCAP" -T fields -E separator=/t -E occurrence=f \
		"${fields[@]}" >"$OUT/rxe.tsv"
	while IFS= read -r l; do
		tap "$l"
	done < <("$TOOL" compare "$RXE_PCAP" "$OUT/rxe.tsv" all 0)
	n=$(ts_count "$RXE_PCAP" "ipv6 && udp.checksum == 0")
	tap "# rxe-capture.pcap: $n IPv6 frames of rdma_rxe carry UDP checksum 0 (Wireshark: \"Illegal checksum value (0)\")"
else
	tap "not ok - $RXE_PCAP present"
fi
finish
