#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Remote commands between the two VMs of run-vm.sh pair, through the
# directory both of them share ($ORDMA_SYNC); mpirun's launcher
# (--mca plm_rsh_agent) starts the rank in the other VM with it.
#
#   pair_rsh.sh [-OPTION...] HOST COMMAND...
#	As ssh: runs COMMAND (words joined, through sh -c) on the VM whose
#	address is HOST ($ORDMA_PEER_IP, or this VM's own address), prints
#	its output once it has ended and exits with its exit status.
#	Options (mpirun may pass ssh's) are ignored.
#   pair_rsh.sh serve
#	Runs the commands the other VM sends, each in the background,
#	until "pair_rsh.sh stop" on this VM (which does not wait for the
#	commands still running: their requester has given up on them).
#   pair_rsh.sh stop
#
# A request is $ORDMA_SYNC/rsh/<ROLE>/<id>.cmd for the VM of role ROLE;
# the server renames it <id>.run when it takes it and writes <id>.out
# (stdout and stderr), then <id>.rc.  The VMs see each other's files
# through 9p, without notification: both sides poll.
set -u

die() {
	echo "pair_rsh: $*" >&2
	exit 255
}
[ -d "${ORDMA_SYNC:-}" ] && [ -n "${GUEST_ROLE:-}" ] && [ -n "${ORDMA_PEER_ROLE:-}" ] ||
	die "needs the two-VM topology (ORDMA_SYNC, GUEST_ROLE, ORDMA_PEER_ROLE)"
queue=$ORDMA_SYNC/rsh
POLL=0.1

serve() {
	local own=$queue/$GUEST_ROLE job id
	mkdir -p "$own"
	rm -f "$own/stop"
	while [ ! -e "$own/stop" ]; do
		for job in "$own"/*.cmd; do
			[ -e "$job" ] || continue
			id=${job%.cmd}
			mv "$job" "$id.run" 2>/dev/null || continue
			(
				sh -c "$(cat "$id.run")" >"$id.out" 2>&1 </dev/null
				echo $? >"$id.rc.new"
				mv "$id.rc.new" "$id.rc"
			) &
		done
		sleep "$POLL"
	done
}

case "${1:-}" in
serve) serve; exit 0 ;;
stop) mkdir -p "$queue/$GUEST_ROLE" && touch "$queue/$GUEST_ROLE/stop"; exit 0 ;;
esac

while [ "${1:-}" != "${1#-}" ]; do
	shift
done
[ $# -ge 2 ] || die "usage: pair_rsh.sh [-OPTION...] HOST COMMAND..."
host=$1
shift
if [ "$host" = "${ORDMA_LOCAL_IP:-}" ]; then
	exec sh -c "$*"
fi
[ "$host" = "${ORDMA_PEER_IP:-}" ] || die "$host is not the peer VM ($ORDMA_PEER_IP)"

peer=$queue/$ORDMA_PEER_ROLE
mkdir -p "$peer"
id=$peer/$GUEST_ROLE.$$.$RANDOM
printf '%s\n' "$*" >"$id.new"
mv "$id.new" "$id.cmd"
while [ ! -e "$id.rc" ]; do
	sleep "$POLL"
done
cat "$id.out" 2>/dev/null
exit "$(cat "$id.rc")"
