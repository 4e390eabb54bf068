#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Build the ORDMA provider for the system's libibverbs (Debian 12:
# libibverbs1 44) into OUTDIR/libordma-rdmav34.so and print OUTDIR as
# the last line of stdout.  The Debian package ibverbs-provider-ordma
# ships this file, `make -C tools/provider install` installs it, and
# Debian's libibverbs loads it from the tree with
#
#     SYS=$(tools/provider/build-system.sh | tail -n 1)
#     RDMAV_DRIVERS=$SYS/libordma ibv_devinfo
#
# OUTDIR/include keeps the headers it was compiled with, for the
# provider's unit tests against this libibverbs (make -C tools/provider
# check).
#
# Usage: build-system.sh [OUTDIR]    (default: build/provider-system)
#
# Why not the provider build.sh builds: both libibverbs have provider
# ABI 34 (IBVERBS_PRIVATE_34) and the same verbs_device_ops,
# verbs_match_ent, verbs_context_ops and verbs_context, but rdma-core 45
# appended wr_flush to struct ibv_qp_ex, which struct verbs_qp embeds.
# A provider compiled against 56.1 keeps verbs_qp.comp_mask at offset
# 360 where libibverbs 44 reads it at 352 (the low half of wr_flush), so
# under 44 ibv_qp_to_qp_ex() fails for its QPs.  This build compiles
# the provider against the system's public verbs headers (libibverbs-dev),
# with ORDMA_VERBS_NO_FLUSH if they have no FLUSH, and takes from the
# rdma-core 56.1 tree of build.sh only what Debian does not ship: the
# provider-private headers (driver.h, kern-abi.h, cmd_*.h: unchanged in
# layout from 44, the differences are added prototypes), the util/ and
# ccan/ helpers and the uverbs kernel ABI structures.  It links against
# the system's libibverbs.so.1: every symbol resolves with the version
# the system's library defines (checked below).
#
# CFLAGS, CPPFLAGS and LDFLAGS from the environment are added (the
# package build passes dpkg-buildflags' hardening flags).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
OUT=${1:-$REPO/build/provider-system}
CC=${CC:-cc}

log() { echo "provider/build-system.sh: $*" >&2; }
die() { log "error: $*"; exit 1; }

SYSINC=/usr/include/infiniband
[ -f "$SYSINC/verbs.h" ] || die "no $SYSINC/verbs.h (install libibverbs-dev)"
LIBIBVERBS=$(pkg-config --variable=libdir libibverbs 2>/dev/null)/libibverbs.so
[ -e "$LIBIBVERBS" ] || die "no $LIBIBVERBS (install libibverbs-dev)"

# The rdma-core 56.1 tree; its own flags, not the package's, so that the
# cached tree stays what build.sh makes.
RC=$(env -u CFLAGS -u CPPFLAGS -u LDFLAGS -u CXXFLAGS "$HERE/build.sh" | tail -n 1)
RC_SRC=$(dirname "$RC")/src
[ -f "$RC/util/librdma_util_pic.a" ] || die "no rdma-core build at $RC"

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# The include tree: rdma-core's (files, not links), then every header
# libibverbs-dev ships put over it, the ORDMA ABI regenerated from the
# repository's header.
cp -rL "$RC/include" "$WORK/include"
for h in "$SYSINC"/*.h; do
	cp "$h" "$WORK/include/infiniband/"
done
"${PYTHON:-/usr/bin/python3}" "$RC_SRC/buildlib/make_abi_structs.py" \
	"$REPO/include/uapi/rdma/ordma-abi.h" "$WORK/include/kernel-abi/ordma-abi.h"

# libibverbs before 45 has no FLUSH (see ordma_dp.h)
DEFS=()
grep -q wr_flush "$SYSINC/verbs.h" || DEFS+=(-DORDMA_VERBS_NO_FLUSH)

# shellcheck disable=SC2086 # the flag variables are word lists
for f in ordma ordma_dp ordma_verbs; do
	"$CC" -std=gnu11 -O2 -g -fPIC -Wall -Wextra -Wno-sign-compare \
		-Wno-unused-parameter -Wmissing-prototypes -Werror \
		-DNDEBUG "${DEFS[@]}" \
		-I"$WORK/include" -I"$REPO/include/uapi" -I"$REPO/include" \
		${CPPFLAGS:-} ${CFLAGS:-} \
		-c "$HERE/ordma/$f.c" -o "$WORK/$f.o"
done
# shellcheck disable=SC2086
"$CC" -shared -fPIC -Wl,--no-undefined -Wl,--as-needed \
	-Wl,--version-script,"$RC_SRC/buildlib/provider.map" ${LDFLAGS:-} \
	-o "$OUT/libordma-rdmav34.so" "$WORK"/ordma*.o \
	"$RC/ccan/libccan_pic.a" "$RC/util/librdma_util_pic.a" "$LIBIBVERBS"

# Every libibverbs symbol it takes must be one the system's defines.
objdump -T "$(readlink -f "$LIBIBVERBS")" | awk '!/\*UND\*/ { print $NF }' | sort -u >"$WORK/defined"
missing=$(objdump -T "$OUT/libordma-rdmav34.so" | awk '/\*UND\*/ && /IBVERBS/ { print $NF }' |
	sort -u | comm -23 - "$WORK/defined")
[ -z "$missing" ] || die "not in the system's libibverbs: $missing"

# The headers, and the definitions that chose between them, for tests
# built against this provider's view of libibverbs
rm -rf "$OUT/include"
mv "$WORK/include" "$OUT/include"
printf '%s\n' "${DEFS[@]}" >"$OUT/include/ordma-build-defs"
log "built $OUT/libordma-rdmav34.so against $(readlink -f "$LIBIBVERBS")"
echo "$OUT"
