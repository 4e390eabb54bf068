#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Static checks, one TAP result each:
#   - checkpatch.pl --strict on every kernel C file and header (drivers/,
#     include/linux/ordma/, include/uapi/rdma/, and the kernel verbs test
#     module in selftests/ordma/kverbs/)
#   - an SPDX-License-Identifier in every source file of the repository
#   - the firmware's #include lines and calls follow its rooms
#     (tools/check/fw-rooms.py)
#   - a sparse (C=2) build of the modules that prints no warning
#   - the tables of hw-reference.rst match ordma_hw.h, and every document
#     renders without warnings (tools/check/doc-tables.py)
# Usage: lint.sh [KDIR]
set -uo pipefail

REPO=$(cd "$(dirname "$0")/../.." && pwd)
cd "$REPO" || exit 1
KDIR=${1:-${KDIR:-}}

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
diag() { sed 's/^/# /'; }

echo "TAP version 13"

# ---------------------------------------------------------------- checkpatch
if ! checkpatch=$(tools/check/fetch-checkpatch.sh 2>&1 | tail -n 1) || [ ! -f "$checkpatch" ]; then
	not_ok "checkpatch.pl available"
	echo "$checkpatch" | diag
else
	mapfile -t kfiles < <(find drivers include/linux/ordma include/uapi/rdma \
		selftests/ordma/kverbs \
		\( -name '*.c' -o -name '*.h' \) ! -name '*.mod.c' 2>/dev/null | LC_ALL=C sort)
	for f in "${kfiles[@]}"; do
		out=$(perl "$checkpatch" --no-tree --strict --terse --show-types -f "$f" 2>&1)
		if [ $? -eq 0 ] && [ -z "$out" ]; then
			ok "checkpatch --strict $f"
		else
			not_ok "checkpatch --strict $f"
			echo "$out" | head -n 40 | diag
		fi
	done
fi

# ---------------------------------------------------------------- SPDX
# Every file of ours that can carry a comment; generated and data files
# (and the documents, which carry it as rst/markdown comments by choice)
# are not checked here.
missing=$( (git ls-files 2>/dev/null; git ls-files --others --exclude-standard 2>/dev/null) |
	LC_ALL=C sort -u |
	grep -E '(\.(c|h|sh|py|pl|S|rst)|/Makefile|^Makefile|/Kbuild|^Kbuild|/Kconfig|^Kconfig|CMakeLists\.txt|^\.ci/run|^tools/diag/ordma-trace)$' |
	while read -r f; do
		[ -f "$f" ] || continue
		head -n 5 "$f" | grep -q 'SPDX-License-Identifier:' || echo "$f"
	done)
if [ -z "$missing" ]; then
	ok "every source file has an SPDX-License-Identifier"
else
	not_ok "every source file has an SPDX-License-Identifier"
	echo "$missing" | diag
fi

# ---------------------------------------------------------------- firmware rooms
out=$(python3 tools/check/fw-rooms.py "$REPO" 2>&1) && ok "firmware includes and calls run wire <- platform <- objects <- transport <- device" || { not_ok "firmware includes and calls run wire <- platform <- objects <- transport <- device"; echo "$out" | diag; }

# ---------------------------------------------------------------- sparse
if [ ! -f drivers/net/ethernet/ordma/Makefile ] && [ ! -f drivers/infiniband/hw/ordma/Makefile ]; then
	ok "sparse (C=2) build # SKIP no drivers in the tree"
elif ! command -v sparse >/dev/null; then
	not_ok "sparse (C=2) build: sparse is not installed"
else
	[ -n "$KDIR" ] || KDIR=$(tools/vm/fetch-kernel.sh | tail -n 1)
	log=$(make -s -C "$KDIR" M="$REPO" CONFIG_ORDMA_CORE=m CONFIG_ORDMA_IB=m \
		CONFIG_ORDMA_DEBUG_RAW_CMD=y \
		C=2 -j"${JOBS:-2}" modules 2>&1)
	rc=$?
	warnings=$(echo "$log" | grep -E '(warning|error):')
	if [ "$rc" -eq 0 ] && [ -z "$warnings" ]; then
		ok "sparse (C=2) build prints no warnings"
	else
		not_ok "sparse (C=2) build prints no warnings (exit $rc)"
		echo "${warnings:-$log}" | head -n 40 | diag
	fi
fi

# ---------------------------------------------------------------- documents
# hw-reference.rst's tables against ordma_hw.h, every document rendered.
# Debian's python3 is the one host-deps.sh gives docutils to; a python3
# earlier on PATH (a pyenv, a venv) may lack it and skip the rendering.
doc_python=/usr/bin/python3
[ -x "$doc_python" ] || doc_python=python3
out=$("$doc_python" tools/check/doc-tables.py "$REPO" 2>&1)
rc=$?
bad=$failed
while IFS= read -r line; do
	case $line in
	"not ok "*) not_ok "${line#not ok * - }" ;;
	"ok "*) ok "${line#ok * - }" ;;
	"# "*) echo "$line" ;;
	esac
done <<<"$out"
if [ "$rc" -ne 0 ] && [ "$failed" -eq "$bad" ]; then
	not_ok "tools/check/doc-tables.py runs (exit $rc)"
	echo "$out" | tail -n 20 | diag
fi

echo "1..$n"
[ "$failed" -eq 0 ]
