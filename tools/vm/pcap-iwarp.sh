#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Check the iWARP traffic of a cable capture (run-vm.sh --pcap) with
# tshark: every TCP connection that starts with an MPA request must
# dissect as MPA (RFC 5044) and DDP/RDMAP (RFC 5041, 5040) from its
# first payload byte to its last.
#
# Usage: pcap-iwarp.sh CAPTURE
#
# For each such connection (a TCP stream with an MPA request frame):
#   - an MPA reply follows; neither has the marker flag;
#   - the bytes of the MPA request, the reply and every FPDU (length
#     field, ULPDU, pad, CRC) add up to the stream's TCP payload, less
#     retransmissions: no byte of it was left undissected; and no
#     segment of it is missing from the capture;
#   - every FPDU carries a DDP segment of DDP version 1 with an RDMAP
#     header (version 1);
#   - if the request or the reply set the CRC flag (C), the CRC of every
#     FPDU is checked good (iwarp_mpa.crc_check, "Good CRC32"); without
#     it Wireshark checks no CRC and the summary says how many CRC
#     fields were zero (siw sends 0 when CRC is off).
# No frame of the capture may be malformed.  Wireshark's heuristic
# dissectors of Send payloads (RPC over RDMA, SMB Direct) are off: test
# payloads are not theirs.  Wireshark 4.0 shows the enhanced bit of MPA
# revision 2 (RFC 6581) as a reserved bit and warns that the revision is
# not 1 (expert info, not malformed): neither is judged here.
#
# Prints one summary line; exit 0 all good, 1 a check failed, 4 the
# capture has no MPA request (nothing to check), 2 usage or tshark error.
set -euo pipefail

if [ $# != 1 ] || [ ! -r "$1" ]; then
	echo "usage: $0 CAPTURE" >&2
	exit 2
fi
command -v tshark >/dev/null || { echo "no tshark" >&2; exit 2; }
cap=$1
NO_ULP=(--disable-heuristic rpcrdma_iwarp --disable-heuristic smb_direct_iwarp)

fields=$(mktemp)
trap 'rm -f "$fields"' EXIT
# one line per frame; a field that occurs several times in a frame (a
# segment with several FPDUs) lists its values separated by commas
tshark -n -r "$cap" "${NO_ULP[@]}" -T fields -E occurrence=a -E aggregator=, \
	-e tcp.stream -e tcp.len -e tcp.analysis.retransmission \
	-e iwarp_mpa.key.req -e iwarp_mpa.key.rep -e iwarp_mpa.marker_flag \
	-e iwarp_mpa.crc_flag -e iwarp_mpa.rev -e iwarp_mpa.pdlength \
	-e iwarp_mpa.ulpdulength -e iwarp_mpa.crc -e iwarp_mpa.crc_check \
	-e iwarp_ddp.dv -e iwarp_rdma.version -e iwarp_rdma.opcode \
	-e _ws.malformed -e tcp.analysis.lost_segment \
	-e tcp.analysis.ack_lost_segment >"$fields" 2>/dev/null || { echo "tshark cannot read $cap" >&2; exit 2; }

# Good and bad CRC verdicts: Wireshark puts them in the field's text only
good=0 bad=0
if awk -F '\t' '$7 ~ /1|True/ { f = 1 } END { exit !f }' "$fields"; then
	read -r good bad < <(tshark -n -r "$cap" "${NO_ULP[@]}" -Y iwarp_mpa.crc_check -O iwarp_mpa 2>/dev/null |
		awk '/CRC check: .*Good CRC32/ { g++ } /CRC check: .*Bad CRC32/ { b++ } END { print g + 0, b + 0 }')
fi

awk -F '\t' -v good="$good" -v bad="$bad" '
function n(s, a) { return s == "" ? 0 : split(s, a, ",") }
{
	st = $1
	if ($16 != "") malformed++
	if ($1 == "") next
	if ($3 == "") tcpbytes[st] += $2
	if ($17 != "" || $18 != "") lost[st]++
	if ($4 != "") {
		mpa[st] = 1; req++
		if ($6 ~ /1|True/) markers++
		if ($7 ~ /1|True/) { crc[st] = 1; reqc++ }
	}
	if ($5 != "") {
		rep[st] = 1; reps++
		if ($6 ~ /1|True/) markers++
		if ($7 ~ /1|True/) { crc[st] = 1; repc++ }
	}
	if ($4 != "" || $5 != "") {
		rev[$8]++
		pd[$9]++
		mpabytes[st] += 20 + $9
	}
	k = n($10, len)
	for (i = 1; i <= k; i++) {
		fpdus++
		mpabytes[st] += 2 + len[i] + (4 - (2 + len[i]) % 4) % 4 + 4
	}
	fpdu[st] += k
	m = n($11, c)
	for (i = 1; i <= m; i++) if (c[i] + 0 == 0 && c[i] !~ /[1-9a-fA-F]/) zero++
	crcshown += m
	checked += n($12, c)
	dv = n($13, d)
	for (i = 1; i <= dv; i++) if (d[i] != 1) baddv++
	ddp += dv
	rv = n($14, r)
	for (i = 1; i <= rv; i++) if (r[i] != 1) badrv++
	op = n($15, o)
	for (i = 1; i <= op; i++) ops[o[i]]++
	rdmap += op
}
END {
	split("Write ReadReq ReadResp Send SendInv SendSE SendSEInv Terminate", name, " ")
	for (s in mpa) {
		conns++
		if (!(s in rep)) norep++
		if (tcpbytes[s] != mpabytes[s]) {
			uncovered++
			gap = gap sprintf("%s stream %s: %d TCP payload bytes, %d in MPA frames", gap == "" ? "" : ",", s, tcpbytes[s], mpabytes[s])
		}
		if (s in crc) { crcconns++; crcfpdus += fpdu[s] }
		if (s in lost) gaps += lost[s]
	}
	if (!conns) { print "no MPA request in the capture"; exit 4 }
	fail = norep || uncovered || gaps || markers || malformed || baddv || badrv ||
		ddp != fpdus || rdmap != fpdus || bad || good != crcfpdus
	line = sprintf("%d MPA connections: %d requests (%d with C), %d replies (%d with C); revision", conns, req, reqc, reps, repc)
	for (v in rev) line = line sprintf(" %s x%d", v, rev[v])
	line = line ", private data length"
	for (v in pd) line = line sprintf(" %s x%d", v, pd[v])
	line = line sprintf("; %d FPDUs, %d DDP/RDMAP (", fpdus, rdmap)
	sep = ""
	for (v in ops) { line = line sep sprintf("%s %d", name[index("0123456789abcdef", tolower(substr(v, length(v)))) ], ops[v]); sep = ", " }
	line = line ")"
	if (crcconns)
		line = line sprintf("; CRC on in %d connections: %d checked, %d good, %d bad", crcconns, checked, good, bad)
	else
		line = line sprintf("; CRC off (C clear in requests and replies): not checked, %d of %d CRC fields zero", zero, crcshown)
	if (norep) line = line sprintf("; %d without a reply", norep)
	if (gaps) line = line sprintf("; %d segments not captured", gaps)
	if (uncovered) line = line sprintf("; not all dissected:%s", gap)
	if (markers) line = line sprintf("; %d with markers", markers)
	if (baddv || badrv) line = line sprintf("; %d DDP, %d RDMAP versions not 1", baddv, badrv)
	if (ddp != fpdus) line = line sprintf("; %d DDP headers", ddp)
	line = line sprintf("; %d malformed frames", malformed)
	print line
	exit fail ? 1 : 0
}' "$fields"
