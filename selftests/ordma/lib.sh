# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
# shellcheck shell=bash
#
# Helpers for the ORDMA selftests: checks that report TAP results
# through the shell test runner (tools/testing/ktap.sh) and lookups of
# the ORDMA devices, their netdevs and RDMA devices.
# Sourced by each test; tests run as root inside the test VM (or on any
# machine with an ORDMA NIC).
#
# Environment (set by tools/vm/run-vm.sh in the VM, optional elsewhere):
#   ORDMA_NICS  "BDF,MAC,SERIAL ..." what the device model was configured
#               with, for the tests that compare against it
#   ORDMA_DIAG  path of the ordma-diag binary
#   ORDMA_PROVIDER_DIR  rdma-core build with the ordma provider (lib/)

ORDMA_VENDOR=0x1234
ORDMA_DEVICE=0x4f52
SELFTEST_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ORDMA_REPO=${ORDMA_REPO:-$(cd "$SELFTEST_DIR/../.." && pwd)}
# TAP output and counting: ktap_header, ktap_set_plan, ktap_test_pass,
# ktap_test_fail, ktap_test_skip, ktap_test_result, ktap_print_msg,
# ktap_skip_all, ktap_finished
# shellcheck source=/dev/null # the repository may be elsewhere in the VM
. "$ORDMA_REPO/tools/testing/ktap.sh"
if [ -z "${ORDMA_DIAG:-}" ]; then
	ORDMA_DIAG=$ORDMA_REPO/build/bin/ordma-diag
	[ -x "$ORDMA_DIAG" ] || ORDMA_DIAG=$(command -v ordma-diag || echo "$ORDMA_DIAG")
fi

# tap_cmd DESC CMD...: ok if CMD succeeds; its output is shown on failure
tap_cmd() {
	local desc=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	ktap_test_result "$rc" "$desc"
	[ "$rc" -eq 0 ] || ktap_print_msg "\$ $* (exit $rc)"$'\n'"$out"
	return "$rc"
}

# tap_eq DESC EXPECTED ACTUAL
tap_eq() {
	if [ "$2" = "$3" ]; then
		ktap_test_pass "$1"
	else
		ktap_test_fail "$1"
		ktap_print_msg "expected '$2', got '$3'"
	fi
	[ "$2" = "$3" ]
}

# tap_match DESC REGEX TEXT: ok if TEXT has a line matching REGEX (ERE)
tap_match() {
	if grep -qE -- "$2" <<<"$3"; then
		ktap_test_pass "$1"
		return 0
	fi
	ktap_test_fail "$1"
	ktap_print_msg "no line matches /$2/ in:"$'\n'"$3"
	return 1
}

# tap_skip_rest REASON: mark every result not yet reported as skipped
tap_skip_rest() {
	while [ "$KTAP_TESTNUM" -lt "$KTAP_PLAN" ]; do
		ktap_test_skip "not run" "$1"
	done
}

# wait_for SECS CMD...: poll CMD every 0.2 s until it succeeds
wait_for() {
	local deadline=$((SECONDS + $1))
	shift
	while ! "$@" >/dev/null 2>&1; do
		[ "$SECONDS" -lt "$deadline" ] || return 1
		sleep 0.2
	done
}

# tcp_listening PORT: a socket listens on TCP port PORT (any address)
tcp_listening() {
	ss -Hltn "sport = :$1" 2>/dev/null | grep -q .
}

# wait_listen SECS PORT PID: wait until a server listens on TCP port
# PORT, or its process PID has exited (it failed: no point in waiting).
# A client started before its server listens gets "connection refused".
wait_listen() {
	local deadline=$((SECONDS + $1))

	while ! tcp_listening "$2"; do
		kill -0 "$3" 2>/dev/null || return 1
		[ "$SECONDS" -lt "$deadline" ] || return 1
		sleep 0.05
	done
}

# stop_pid PID: end a background tool that is no longer useful (its peer
# failed) and reap it; the exit status of the tool is returned.
stop_pid() {
	kill "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}

# ordma_iw_cm_pair DESC MODE ADDR SRV_NS CLI_NS REGEX...: iw_cm_pair's
# server on ADDR:$PORT, then its client, each in network namespace SRV_NS
# or CLI_NS ("-": the host's), in MODE (accept or reject); passes if both
# exit 0 and every REGEX matches a line of their output ($IW_CM_PAIR,
# output in $IW_OUT.srv and $IW_OUT.cli, each tool within $TOOL_TIMEOUT)
ordma_iw_cm_pair() {
	local desc=$1 mode=$2 addr=$3 spid src crc out re miss=
	local srv=() cli=()
	[ "$4" = - ] || srv=(ip netns exec "$4")
	[ "$5" = - ] || cli=(ip netns exec "$5")
	shift 5
	"${srv[@]}" "$IW_CM_PAIR" server "$addr" "$PORT" "$mode" >"$IW_OUT.srv" 2>&1 &
	spid=$!
	if ! wait_for 30 grep -q '^server: listening$' "$IW_OUT.srv"; then
		stop_pid "$spid"
		ktap_test_fail "$desc"
		ktap_print_msg "server did not listen: $(cat "$IW_OUT.srv")"
		return 1
	fi
	timeout "$TOOL_TIMEOUT" "${cli[@]}" "$IW_CM_PAIR" client "$addr" "$PORT" "$mode" \
		>"$IW_OUT.cli" 2>&1
	crc=$?
	timeout "$TOOL_TIMEOUT" tail --pid="$spid" -f /dev/null
	kill "$spid" 2>/dev/null
	wait "$spid"
	src=$?
	out=$(cat "$IW_OUT.srv" "$IW_OUT.cli")
	for re in "$@"; do
		grep -Eq -- "$re" <<<"$out" || miss+=" /$re/"
	done
	if [ "$src" -eq 0 ] && [ "$crc" -eq 0 ] && [ -z "$miss" ]; then
		ktap_test_pass "$desc"
		return 0
	fi
	ktap_test_fail "$desc"
	ktap_print_msg "server exit $src, client exit $crc, missing:$miss"$'\n'"$out"
	return 1
}

# tap_cases NAME CASES TEXT: the TAP results in TEXT (the output of a
# program or module NAME) reported here as "NAME: description", exactly
# CASES of them whatever TEXT holds, so that a crash still leaves the
# plan whole; its other lines become diagnostics.
tap_cases() {
	local name=$1 cases=$2 n=0 line
	while IFS= read -r line; do
		case $line in
		"ok "* | "not ok "*)
			n=$((n + 1))
			[ "$n" -gt "$cases" ] || ktap_relay "$name: " "$line" ;;
		"TAP version "* | [0-9]*..[0-9]* | "") ;;
		"#"*) line=${line#\#}; ktap_print_msg "${line# }" ;;
		*) ktap_print_msg "$name: $line" ;;
		esac
	done <<<"$3"
	[ "$n" -le "$cases" ] || ktap_print_msg "$name printed $n results, $cases expected"
	while [ "$n" -lt "$cases" ]; do
		n=$((n + 1))
		ktap_test_fail "$name: case $n did not run"
	done
}

# tap_program NAME CASES CMD...: the results of CMD, a program on the C
# test runner (tools/testing/ordma_test.h), as tap_cases reports them
tap_program() {
	local name=$1 cases=$2 out
	shift 2
	if [ ! -x "$1" ]; then
		for _ in $(seq "$cases"); do ktap_test_skip "$name" "$1 not built"; done
		return
	fi
	out=$(timeout "${TOOL_TIMEOUT:-240}" "$@" 2>&1)
	tap_cases "$name" "$cases" "$out"
}

# ---------------------------------------------------------------- devices

# PCI names of all ORDMA functions, sorted
ordma_pci_devs() {
	local d
	for d in /sys/bus/pci/devices/*; do
		[ "$(cat "$d/vendor")" = "$ORDMA_VENDOR" ] &&
			[ "$(cat "$d/device")" = "$ORDMA_DEVICE" ] &&
			basename "$d"
	done | LC_ALL=C sort
}

# Netdev of an ORDMA function (none if the driver is not bound)
ordma_netdev() {
	local n
	for n in /sys/bus/pci/devices/"$1"/net/*; do
		[ -e "$n" ] && basename "$n" && return 0
	done
	return 1
}

# RDMA device whose parent (directly or via the auxiliary device) is $1
ordma_ibdev() {
	local ib dev
	for ib in /sys/class/infiniband/*; do
		[ -e "$ib" ] || continue
		dev=$(readlink -f "$ib/device")
		if [ "$(basename "$dev")" = "$1" ] || [ "$(basename "$(dirname "$dev")")" = "$1" ]; then
			basename "$ib"
			return 0
		fi
	done
	return 1
}

# True when RDMA devices keep their kernel names (ordma<N>): rdma-core's
# udev rule renames them unless its policy is NAME_KERNEL.
rdma_kernel_names() {
	local r
	for r in /etc/udev/rules.d/60-rdma-persistent-naming.rules \
		/lib/udev/rules.d/60-rdma-persistent-naming.rules; do
		[ -e "$r" ] || continue
		! grep -v '^#' "$r" | grep -q 'rdma_rename.*NAME_\(FALLBACK\|PCI\|GUID\|ONBOARD\)'
		return
	done
	return 0
}

# Configured identity of an ORDMA function from $ORDMA_NICS: field 2 = MAC,
# 3 = serial.  Empty if unknown.
ordma_expect() {
	local e
	for e in ${ORDMA_NICS:-}; do
		if [ "${e%%,*}" = "$1" ]; then
			echo "$e" | cut -d, -f"$2"
			return 0
		fi
	done
}

# EUI-64 of a MAC in the sysfs GUID format, e.g. 5054:00ff:fe12:3401
mac_to_guid() {
	local m
	IFS=: read -ra m <<<"$1"
	printf '%02x%s:%s%s:%s%s:%s%s\n' $((0x${m[0]} ^ 2)) "${m[1]}" "${m[2]}" ff fe "${m[3]}" "${m[4]}" "${m[5]}"
}

# RoCE GID of an IPv4 address (::ffff:a.b.c.d), in the sysfs format
ipv4_to_gid() {
	local a
	IFS=. read -ra a <<<"$1"
	printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x\n' "${a[@]}"
}

# Fully expanded IPv6 address, as sysfs prints GIDs
ipv6_expand() {
	python3 -c 'import ipaddress, sys; print(ipaddress.IPv6Address(sys.argv[1]).exploded)' "$1"
}

# All valid GIDs of port 1 of an RDMA device as "index gid type ndev"
# lines (type with '_' for ' ', e.g. RoCE_v2).  One grep reads the whole
# table: rxe, for one, has 1024 entries.
ordma_gid_table() {
	local p=/sys/class/infiniband/$1/ports/1 i gid
	(cd "$p/gids" 2>/dev/null &&
		grep -H -v '^0000:0000:0000:0000:0000:0000:0000:0000$' -- *) |
		while IFS=: read -r i gid; do
			echo "$i $gid $(tr ' ' _ <"$p/gid_attrs/types/$i" 2>/dev/null)" \
				"$(cat "$p/gid_attrs/ndevs/$i" 2>/dev/null)"
		done | sort -n
}

# Test address of NIC index $1 (1-based) on the single-VM cable.
ordma_test_ip() {
	echo "192.0.2.$1"
}

# Run the diag CLI; usage as for ordma-diag
ordma_diag() {
	"$ORDMA_DIAG" "$@"
}

# Skip the whole test unless there is an ORDMA function with a netdev
ordma_require_device() {
	[ -n "$(ordma_pci_devs)" ] || ktap_skip_all "no ORDMA PCI function (1234:4f52)"
}

# Skip the whole test without an ordma provider build; else put its
# libraries first (P is the build, `bin NAME` its tool NAME or the system's)
ordma_require_provider() {
	P=${ORDMA_PROVIDER_DIR:-}
	[ -n "$P" ] && [ -d "$P/lib" ] || ktap_skip_all "no ordma provider build (ORDMA_PROVIDER_DIR)"
	export LD_LIBRARY_PATH=$P/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
}

bin() { if [ -x "$P/bin/$1" ]; then echo "$P/bin/$1"; else command -v "$1"; fi; }

# run_pair NAME EXPECTED TOOL ARGS...: TOOL as the server on RDMA device
# ${ib[1]} and as the client on ${ib[2]}, meeting over TCP on the
# loopback interface; the device options are added here (-d, and the
# GID index ${gidx[N]} as -g for the ibv_* tools, -x for perftest; no
# GID on InfiniBand ports, where the tools address each other by LID).
# Both must exit 0 and every line of EXPECTED (one extended regular
# expression a line) must match a line of the client's output.  Uses
# and advances $PORT.
run_pair() {
	local name=$1 expected=$2 tool=$3 sopt copt srv cli spid src crc re missing=""
	local port=$PORT
	shift 3
	PORT=$((PORT + 1))
	case $tool in
	ibv_*)
		sopt="-d ${ib[1]} ${gidx[1]:+-g ${gidx[1]}}"
		copt="-d ${ib[2]} ${gidx[2]:+-g ${gidx[2]}}" ;;
	*)
		sopt="-d ${ib[1]} ${gidx[1]:+-x ${gidx[1]}} -F"
		copt="-d ${ib[2]} ${gidx[2]:+-x ${gidx[2]}} -F" ;;
	esac
	srv=$(mktemp) cli=$(mktemp)
	# shellcheck disable=SC2086 # option strings split on purpose
	timeout "$TOOL_TIMEOUT" "$(bin "$tool")" $sopt -p "$port" "$@" >"$srv" 2>&1 &
	spid=$!
	if wait_listen 60 "$port" "$spid"; then
		# shellcheck disable=SC2086
		timeout "$TOOL_TIMEOUT" "$(bin "$tool")" $copt -p "$port" "$@" 127.0.0.1 >"$cli" 2>&1
		crc=$?
	else
		crc=-1
		echo "server did not listen on TCP port $port within 60 s" >"$cli"
	fi
	# A server whose client failed would wait for it until the timeout,
	# and the time of every later case with it.
	if [ "$crc" != 0 ]; then
		stop_pid "$spid"
		src=$?
	else
		wait "$spid"
		src=$?
	fi
	while IFS= read -r re; do
		grep -Eq -- "$re" "$cli" || missing+="${missing:+, }/$re/"
	done <<<"$expected"
	if [ "$crc" = 0 ] && [ "$src" = 0 ] && [ -z "$missing" ]; then
		ktap_test_pass "$name"
		while IFS= read -r re; do
			grep -E -- "$re" "$cli" | head -n 1 | sed 's/^/#   /'
		done <<<"$expected"
	else
		ktap_test_fail "$name (client rc $crc, server rc $src)"
		[ -z "$missing" ] || ktap_print_msg "no client line matches $missing"
		sed 's/^/#   client: /' "$cli" | tail -n 15
		sed 's/^/#   server: /' "$srv" | tail -n 15
	fi
	rm -f "$srv" "$cli"
}

# Two VMs (run-vm.sh pair) meet at barriers in $ORDMA_SYNC, named by
# the test's $PAIR_TAG.
# pair_barrier NAME: wait until the peer VM has reached the same point
pair_barrier() {
	touch "$ORDMA_SYNC/$GUEST_ROLE.$PAIR_TAG.$1"
	wait_for 300 test -e "$ORDMA_SYNC/$ORDMA_PEER_ROLE.$PAIR_TAG.$1"
}

# pair_across SERVER NAME PATTERN TOOL ARGS...: TOOL as the server on VM
# SERVER (A or B), as the client on the other; each VM uses its own RDMA
# device $ib and GID index $gidx (none on an InfiniBand port: the tools
# address the peer by LID), TCP port $PAIR_PORT (then the next) and
# reports its own side (exit 0; the client's output matches PATTERN).
# The client starts once the server listens, and says when it failed:
# the server would otherwise wait for it until its timeout.  rping, and
# perftest with -R, meet their peer through the RDMA CM at $ORDMA_PEER_IP.
pair_across() {
	local server=$1 name=$2 pattern=$3 tool=$4 opt out rc pid port=$PAIR_PORT
	local fail=$ORDMA_SYNC/client.$PAIR_TAG.fail$((PAIR_T + 1))
	shift 4
	PAIR_T=$((PAIR_T + 1))
	PAIR_PORT=$((PAIR_PORT + 1))
	case $tool in
	ibv_*) opt="-d $ib ${gidx:+-g $gidx} -p $port" ;;
	ucx_perftest) opt="-p $port" ;;
	rping) opt="-p $port" ;;
	*) opt="-d $ib ${gidx:+-x $gidx} -p $port -F" ;;
	esac
	out=$(mktemp)
	if [ "$GUEST_ROLE" = "$server" ]; then
		if [ "$tool" = rping ]; then
			# shellcheck disable=SC2086
			timeout "$TOOL_TIMEOUT" "$(bin rping)" -s -a "$ORDMA_LOCAL_IP" $opt "$@" >"$out" 2>&1 &
			pid=$!
			wait_for 60 cm_listening "$port" ||
				echo "server did not listen on RDMA CM port $port" >>"$out"
		else
			# shellcheck disable=SC2086
			timeout "$TOOL_TIMEOUT" "$(bin "$tool")" $opt "$@" >"$out" 2>&1 &
			pid=$!
			if [[ " $* " = *" -R "* ]]; then
				wait_for 60 cm_listening "$port" ||
					echo "server did not listen on RDMA CM port $port" >>"$out"
			else
				wait_listen 60 "$port" "$pid" ||
					echo "server did not listen on TCP port $port" >>"$out"
			fi
		fi
		pair_barrier "t$PAIR_T"
		wait_for "$TOOL_TIMEOUT" sh -c "! kill -0 $pid || test -e $fail"
		if kill -0 "$pid" 2>/dev/null; then
			echo "the client failed; server stopped" >>"$out"
			stop_pid "$pid"
			rc=$?
			[ "$rc" != 0 ] || rc=1
		else
			wait "$pid"
			rc=$?
		fi
		pattern=.
	else
		pair_barrier "t$PAIR_T"
		if [ "$tool" = rping ]; then
			# shellcheck disable=SC2086
			timeout "$TOOL_TIMEOUT" "$(bin rping)" -c -a "$ORDMA_PEER_IP" $opt "$@" >"$out" 2>&1
		else
			# shellcheck disable=SC2086
			timeout "$TOOL_TIMEOUT" "$(bin "$tool")" $opt "$@" "$ORDMA_PEER_IP" >"$out" 2>&1
		fi
		rc=$?
		[ "$rc" = 0 ] || touch "$fail"
	fi
	if [ "$rc" = 0 ] && grep -Eq -- "$pattern" "$out"; then
		ktap_test_pass "$name ($GUEST_ROLE side)"
		[ "$pattern" = . ] || grep -Em1 -- "$pattern" "$out" | sed 's/^/#   /'
	else
		ktap_test_fail "$name ($GUEST_ROLE side, rc $rc)"
		sed 's/^/#   /' "$out" | tail -n 15
	fi
	rm -f "$out"
	pair_barrier "d$PAIR_T"
}

# cm_listening PORT: an RDMA CM ID listens on PORT
cm_listening() {
	rdma res show cm_id src-port "$1" 2>/dev/null | grep -q 'state LISTEN'
}

# pair_rdma_up: this VM's ORDMA NIC ready and the peer reachable, then
# barrier "up".  Sets bdf, nd (the netdev carrying $ORDMA_LOCAL_IP), ib
# (RDMA device) and gidx; false without them.
#
# Ethernet ports: the ORDMA netdev gets the address (MTU 9000, every
# path MTU up to 4096 available) and gidx is its RoCE v2 GID.
# InfiniBand ports (ORDMA_LINK_LAYER=ib): VM A runs the subnet manager
# (opensm, left running for the tests that follow: its SA answers the
# path and multicast queries of the RDMA CM and IPoIB), both ports wait
# for ACTIVE, the IPoIB interface gets the address, gidx stays empty.
pair_rdma_up() {
	modprobe ib_uverbs
	bdf=$(ordma_pci_devs | head -n 1)
	if [ "${ORDMA_LINK_LAYER:-eth}" = ib ]; then
		pair_ib_up
		return
	fi
	nd=$(ordma_netdev "$bdf") || nd=
	ib=$(ordma_ibdev "$bdf") || ib=
	if [ -n "$nd" ]; then
		ip link set dev "$nd" up
		ip addr add "$ORDMA_LOCAL_IP/24" dev "$nd" 2>/dev/null
		ip link set dev "$nd" mtu 9000	# path MTU 4096 available
	fi
	wait_for 30 has_roce_v2_gid "$ib" "$ORDMA_LOCAL_IP"
	gidx=$(roce_v2_gid_index "$ib" "$ORDMA_LOCAL_IP")
	wait_for 60 ping -c 1 -W 1 "$ORDMA_PEER_IP"
	pair_barrier up
	[ -n "$ib" ] && [ -n "$gidx" ]
}

# pair_ib_up: pair_rdma_up on InfiniBand ports
pair_ib_up() {
	local rc
	modprobe ordma_ib
	modprobe ib_umad
	modprobe ib_ipoib
	wait_for 30 ordma_ibdev "$bdf"
	[ "$GUEST_ROLE" != A ] || pair_ib_sm
	pair_ib_ready
	rc=$?
	pair_barrier up
	return $rc
}

# pair_ib_sm: start the subnet manager on this VM's port unless it runs.
# opensm does not survive the loss of its own port (a recovery of the
# NIC): it then spins on errors and must be started again, once the
# port is back.  Each start logs to a file of its own.
pair_ib_sm() {
	local guid
	pgrep -x opensm >/dev/null && return 0
	wait_for 60 port_guid_known
	guid=$(port_guid_known)
	PAIR_SM_RUN=$((${PAIR_SM_RUN:-0} + 1))
	setsid opensm -g "$guid" \
		-f "$ORDMA_RESULTS/opensm-$GUEST_NAME.$PAIR_SM_RUN.$$.log" \
		</dev/null >/dev/null 2>&1 &
}

# port_guid_known: print the port GUID of this VM's RDMA device (the
# interface ID of GID 0) once it has registered
port_guid_known() {
	local gid
	gid=$(cat "/sys/class/infiniband/$(ordma_ibdev "$bdf")/ports/1/gids/0" 2>/dev/null)
	case $gid in
	fe80:0000:0000:0000:0000:0000:0000:0000 | "") return 1 ;;
	fe80:0000:0000:0000:*) echo "0x$(echo "${gid#fe80:0000:0000:0000:}" | tr -d :)" ;;
	*) return 1 ;;
	esac
}

# pair_ib_ready: this VM's InfiniBand port ACTIVE, its IPoIB interface
# up with $ORDMA_LOCAL_IP and the peer answering.  Sets ib, nd, gidx.
pair_ib_ready() {
	local state
	ib=$(ordma_ibdev "$bdf") || ib=
	gidx=
	state=/sys/class/infiniband/$ib/ports/1/state
	wait_for 120 grep -q ACTIVE "$state"
	wait_for 30 ipoib_netdev "$ib"
	nd=$(ipoib_netdev "$ib") || nd=
	if [ -n "$nd" ]; then
		ip addr add "$ORDMA_LOCAL_IP/24" dev "$nd" 2>/dev/null
		ip link set dev "$nd" up
	fi
	# IPoIB sends once the SM has answered its broadcast group join
	wait_for 120 ping -c 1 -W 1 "$ORDMA_PEER_IP"
	[ -n "$ib" ] && [ -n "$nd" ] && grep -q ACTIVE "$state"
}

# ipoib_netdev IBDEV: the IPoIB interface of RDMA device IBDEV's port 1
ipoib_netdev() {
	local n
	for n in /sys/class/net/*; do
		[ "$(cat "$n/type" 2>/dev/null)" = 32 ] || continue
		[ "$(basename "$(readlink -f "$n/device")")" = \
			"$(basename "$(readlink -f "/sys/class/infiniband/$1/device")")" ] || continue
		basename "$n"
		return 0
	done
	return 1
}

# The IPv4 RoCE v2 GID index of RDMA device $1 for address $2
roce_v2_gid_index() {
	local gid
	gid=$(ipv4_to_gid "$2")
	ordma_gid_table "$1" | awk -v g="$gid" '$2 == g && $3 == "RoCE_v2" { print $1; exit }'
}

# has_roce_v2_gid DEV ADDR: DEV has the IPv4 RoCE v2 GID of ADDR (for
# wait_for, which runs its command again each time)
has_roce_v2_gid() {
	[ -n "$(roce_v2_gid_index "$1" "$2")" ]
}

# ordma_rdma_pair_up BDF1 BDF2: both NICs up with MTU 9000 (every path
# MTU up to 4096) and the test addresses, ports ACTIVE, IPv4 RoCE v2
# GIDs present.  Sets ib[1], ib[2] (RDMA devices) and gidx[1], gidx[2];
# false if any of it did not come up.
#
# Both NICs are in one network namespace: their ARP requests and replies
# carry a source address that is local to the receiver, which Linux
# drops unless told to accept them.  The kernel resolves the destination
# MAC of each RoCE path through ARP on the source GID's netdev, across
# the cable.
ordma_rdma_pair_up() {
	local n bdf nd ok=0 k

	for k in all "$(ordma_netdev "$1")" "$(ordma_netdev "$2")"; do
		[ -n "$k" ] && sysctl -qw "net.ipv4.conf.$k.accept_local=1" \
			"net.ipv4.conf.$k.rp_filter=0"
	done
	ib=() gidx=()
	for n in 1 2; do
		bdf=${!n}
		nd=$(ordma_netdev "$bdf") || nd=
		ib[n]=$(ordma_ibdev "$bdf") || ib[n]=
		if [ -z "$nd" ] || [ -z "${ib[n]}" ]; then
			ok=1
			continue
		fi
		ip link set dev "$nd" mtu 9000
		ip link set dev "$nd" up
		ip addr add "$(ordma_test_ip "$n")/24" dev "$nd" 2>/dev/null
		wait_for 20 sh -c "rdma link show ${ib[n]}/1 | grep -q 'state ACTIVE'" || ok=1
		wait_for 20 has_roce_v2_gid "${ib[n]}" "$(ordma_test_ip "$n")" || ok=1
		gidx[n]=$(roce_v2_gid_index "${ib[n]}" "$(ordma_test_ip "$n")")
	done
	return "$ok"
}

# ordma_netns_pair_up NS BDF1 BDF2 MTU: NIC 1 in this namespace with
# test address 1, NIC 2 moved into namespace NS (created if needed) with
# test address 2, both with MTU, ports ACTIVE, IPv4 RoCE v2 GIDs present
# and the addresses reaching each other over the cable.  Sets ib[1],
# ib[2], gidx[1], gidx[2]; false if any of it did not come up.  Unlike
# ordma_rdma_pair_up, rdma_cm and TCP between the two addresses take the
# cable, not the loopback.  Safe to run again (after a rebind, NIC 2's
# new netdev is moved too).
ordma_netns_pair_up() {
	local ns=$1 mtu=$4 nd1 nd2 ip1 ip2
	ip1=$(ordma_test_ip 1) ip2=$(ordma_test_ip 2)
	ib=() gidx=()
	nd1=$(ordma_netdev "$2") || return 1
	ip netns add "$ns" 2>/dev/null
	ip netns exec "$ns" ip link set dev lo up
	if nd2=$(ordma_netdev "$3"); then
		ip link set dev "$nd2" netns "$ns" || return 1
	fi
	nd2=$(ip netns exec "$ns" ls /sys/class/net | grep -v '^lo$' | head -n 1)
	[ -n "$nd2" ] || return 1
	ip link set dev "$nd1" mtu "$mtu" up
	ip addr replace "$ip1/24" dev "$nd1"
	ip netns exec "$ns" ip link set dev "$nd2" mtu "$mtu" up
	ip netns exec "$ns" ip addr replace "$ip2/24" dev "$nd2"
	ib[1]=$(ordma_ibdev "$2") && ib[2]=$(ordma_ibdev "$3") || return 1
	wait_for 30 has_roce_v2_gid "${ib[1]}" "$ip1" || return 1
	wait_for 30 has_roce_v2_gid "${ib[2]}" "$ip2" || return 1
	wait_for 30 sh -c "rdma link show ${ib[1]}/1 | grep -q 'state ACTIVE'" || return 1
	wait_for 30 sh -c "rdma link show ${ib[2]}/1 | grep -q 'state ACTIVE'" || return 1
	gidx[1]=$(roce_v2_gid_index "${ib[1]}" "$ip1")
	gidx[2]=$(roce_v2_gid_index "${ib[2]}" "$ip2")
	wait_for 30 ip netns exec "$ns" ping -c 1 -W 1 "$ip1"
}

# ordma_require_rdma_pair BDF1 BDF2: ordma_rdma_pair_up as one result;
# without the pair the rest of the plan is skipped and the test ends
ordma_require_rdma_pair() {
	if ! ordma_rdma_pair_up "$1" "$2"; then
		ktap_test_fail "both NICs ACTIVE with an IPv4 RoCE v2 GID"
		tap_skip_rest "no RDMA device pair"
		ktap_finished
	fi
	ktap_test_pass "${ib[1]} (GID ${gidx[1]}) and ${ib[2]} (GID ${gidx[2]}) ACTIVE with IPv4 RoCE v2 GIDs"
}

# pair_rc_pingpong PORT: ibv_rc_pingpong (50 x 4096 bytes, path MTU 1024,
# data checked) with its server on ${ib[1]} and its client on ${ib[2]}
# (GID indices ${gidx[1]}, ${gidx[2]}), meeting on TCP port PORT of the
# loopback; both must succeed.  The tools' last lines are printed as
# diagnostics on failure.  TOOL_TIMEOUT bounds each (default 120 s).
pair_rc_pingpong() {
	local port=$1 srv cli spid crc src tmo=${TOOL_TIMEOUT:-120}
	srv=$(mktemp) cli=$(mktemp)
	timeout "$tmo" "$(bin ibv_rc_pingpong)" -d "${ib[1]}" -g "${gidx[1]}" \
		-p "$port" -n 50 -s 4096 -m 1024 -c >"$srv" 2>&1 &
	spid=$!
	if wait_listen 60 "$port" "$spid"; then
		timeout "$tmo" "$(bin ibv_rc_pingpong)" -d "${ib[2]}" -g "${gidx[2]}" \
			-p "$port" -n 50 -s 4096 -m 1024 -c 127.0.0.1 >"$cli" 2>&1
		crc=$?
	else
		crc=-1
	fi
	if [ "$crc" = 0 ]; then wait "$spid"; src=$?; else stop_pid "$spid"; src=$?; fi
	if [ "$crc" = 0 ] && [ "$src" = 0 ] && grep -q 'bytes in' "$cli"; then
		rm -f "$srv" "$cli"
		return 0
	fi
	sed 's/^/#   client: /' "$cli" | tail -n 5
	sed 's/^/#   server: /' "$srv" | tail -n 5
	rm -f "$srv" "$cli"
	return 1
}

# ordma_bus_master BDF [0|1]: whether BDF has Bus Master Enable set;
# with 0 or 1, clear or set it (setpci, the rest of COMMAND kept)
ordma_bus_master() {
	local cmd
	cmd=$((0x$(setpci -s "$1" COMMAND)))
	if [ $# -eq 1 ]; then
		[ $((cmd & 0x4)) -ne 0 ]
		return
	fi
	cmd=$(($2 ? cmd | 0x4 : cmd & ~0x4))
	setpci -s "$1" COMMAND="$(printf '%x' "$cmd")"
}

# ordma_dev_fatal BDF: STATUS.FATAL (bit 1) of BDF, from its debugfs
# register dump: no command, and no fork in a wait_for loop
ordma_dev_fatal() {
	local name val
	while read -r name _ val; do
		[ "$name" = STATUS ] && return $((!(val & 0x2)))
	done <"/sys/kernel/debug/ordma/$1/regs"
	return 1
}

# ordma_auto_recover BDF true|false: whether the devlink reporter
# fw_fatal of BDF resets a failed function by itself (a new probe turns
# it on again)
ordma_auto_recover() {
	devlink health set "pci/$1" reporter fw_fatal auto_recover "$2"
}

# ordma_rebind BDF: unbind BDF from ordma_core and bind it again; true
# once its RDMA device is back
ordma_rebind() {
	echo "$1" >/sys/bus/pci/drivers/ordma_core/unbind
	echo "$1" >/sys/bus/pci/drivers/ordma_core/bind
	wait_for 60 ordma_ibdev "$1"
}

# ordma_host_request REQUEST: ask the host to act on this VM's QEMU
# (tools/vm/run-vm.sh --host-requests): "quit", "quit peer" or
# "device_del ID".  Prints the host's answer; false if the host refused
# or failed, status 2 if the VM was not started with host requests.
# A "quit" of this VM never returns.
ordma_host_request() {
	local dir=${ORDMA_RESULTS:-/mnt/results} reply
	[ "${ORDMA_HOST_REQUESTS:-0}" = 1 ] || return 2
	rm -f "$dir/host-request.done"
	echo "$*" >"$dir/host-request.tmp" && mv "$dir/host-request.tmp" "$dir/host-request" ||
		return 1
	if ! wait_for 300 test -e "$dir/host-request.done"; then
		echo "no answer from the host within 300 s"
		return 1
	fi
	reply=$(cat "$dir/host-request.done")
	rm -f "$dir/host-request.done"
	echo "${reply#* }"
	[ "${reply%% *}" = 0 ]
}

# ordma_require_host_requests: skip the whole test unless the host
# carries out requests (run-vm.sh --host-requests)
ordma_require_host_requests() {
	[ "${ORDMA_HOST_REQUESTS:-0}" = 1 ] ||
		ktap_skip_all "the host takes no requests (run-vm.sh --host-requests)"
}

# NVMe over Fabrics between the two VMs of the pair topology: the caller
# names the subsystem ($NQN) and the file behind its namespace
# ($NVME_DISK); nvmet's port 1 is RDMA on $ORDMA_LOCAL_IP:$NVME_PORT.
NVMET=/sys/kernel/config/nvmet
NVME_PORT=4420

# nvmet_up: subsystem $NQN with the file $NVME_DISK as namespace 1 on
# RDMA port $ORDMA_LOCAL_IP:$NVME_PORT
nvmet_up() {
	local sub=$NVMET/subsystems/$NQN port=$NVMET/ports/1

	truncate -s 64M "$NVME_DISK" &&
		mkdir "$sub" && echo 1 >"$sub/attr_allow_any_host" &&
		mkdir "$sub/namespaces/1" &&
		echo "$NVME_DISK" >"$sub/namespaces/1/device_path" &&
		echo 1 >"$sub/namespaces/1/buffered_io" &&
		echo 1 >"$sub/namespaces/1/enable" &&
		mkdir "$port" && echo rdma >"$port/addr_trtype" &&
		echo ipv4 >"$port/addr_adrfam" &&
		echo "$ORDMA_LOCAL_IP" >"$port/addr_traddr" &&
		echo "$NVME_PORT" >"$port/addr_trsvcid" &&
		ln -s "$sub" "$port/subsystems/$NQN"
}

# nvmet_down: the target of nvmet_up gone, nvmet_rdma unloaded
nvmet_down() {
	local sub=$NVMET/subsystems/$NQN port=$NVMET/ports/1

	rm -f "$port/subsystems/$NQN"
	[ ! -d "$port" ] || rmdir "$port"
	[ ! -d "$sub/namespaces/1" ] || {
		echo 0 >"$sub/namespaces/1/enable"
		rmdir "$sub/namespaces/1"
	}
	[ ! -d "$sub" ] || rmdir "$sub"
	rm -f "$NVME_DISK"
	modprobe -r nvmet_rdma
}

# nvme_dev: the block device of the connected controller of $NQN
nvme_dev() {
	local d

	for d in /sys/class/nvme/nvme*; do
		[ "$(cat "$d/subsysnqn" 2>/dev/null)" = "$NQN" ] || continue
		ls /dev/"$(basename "$d")"n1 /dev/nvme*n1 2>/dev/null | head -n 1
		return 0
	done
	return 1
}

# tap_nvme_connect WHAT: nvme-rdma connects to $NQN at
# $ORDMA_PEER_IP:$NVME_PORT as $HOSTNQN and its namespace appears; a TAP
# result, the tool's output on failure
tap_nvme_connect() {
	local out rc

	out=$(timeout 60 nvme connect -t rdma -a "$ORDMA_PEER_IP" \
		-s "$NVME_PORT" -n "$NQN" -q "$HOSTNQN" 2>&1) &&
		wait_for 30 nvme_dev
	rc=$?
	ktap_test_result "$rc" "$1: nvme connect -t rdma, namespace $(nvme_dev)"
	[ "$rc" -eq 0 ] || ktap_print_msg "$out"
	return "$rc"
}

# fio_verify WHAT DEV: 32 MiB of random writes to the block device DEV,
# read back and checked against their crc32c; FIO_LOOPS times
# (ORDMA_FIO_LOOPS, 1; make soak runs more)
FIO_LOOPS=${ORDMA_FIO_LOOPS:-1}
fio_verify() {
	local what=$1 dev=$2 out rc

	out=$(timeout $((300 * FIO_LOOPS)) \
		fio --name=ordma-verify --filename="${dev:-/dev/null}" \
		--direct=1 --ioengine=libaio --iodepth=8 --rw=randwrite \
		--bsrange=4k-128k --size=32m --verify=crc32c --loops="$FIO_LOOPS" \
		--verify_fatal=1 --do_verify=1 2>&1)
	rc=$?
	what="$what: fio 32 MiB random writes 4-128 KiB"
	[ "$FIO_LOOPS" = 1 ] || what="$what ($FIO_LOOPS times)"
	if [ -n "$dev" ] && [ "$rc" -eq 0 ] && grep -q 'err= 0' <<<"$out"; then
		ktap_test_pass "$what to $dev, crc32c verified"
	else
		ktap_test_fail "$what to ${dev:-no disk}, crc32c verified"
		ktap_print_msg "$(tail -n 20 <<<"$out")"
	fi
}

# ordma_set_rdma_proto BDF ROCE IWARP: the devlink parameters enable_roce
# and enable_iwarp of NIC BDF (true or false), the one turned off first;
# its RDMA device goes, and comes back if either is on
ordma_set_rdma_proto() {
	local bdf=$1 roce=$2 iwarp=$3 p
	for p in "enable_roce $roce" "enable_iwarp $iwarp"; do
		[ "${p#* }" = false ] || continue
		devlink dev param set "pci/$bdf" name "${p% *}" value false \
			cmode runtime || return 1
	done
	wait_for 30 ordma_no_ibdev "$bdf" || return 1
	for p in "enable_roce $roce" "enable_iwarp $iwarp"; do
		[ "${p#* }" = true ] || continue
		devlink dev param set "pci/$bdf" name "${p% *}" value true \
			cmode runtime || return 1
		wait_for 60 ordma_ibdev "$bdf" >/dev/null || return 1
	done
}
ordma_no_ibdev() { ! ordma_ibdev "$1" >/dev/null; }

# Impaired cables (run-vm.sh --wire puts their faults in $ORDMA_WIRE):
# wire_rate FAULT: its rate as given ("1%"), empty if not set;
# wire_on FAULT: the cable has that fault
wire_rate() { tr ',' '\n' <<<"${ORDMA_WIRE:-}" | sed -n "s/^$1=//p"; }
wire_on() { [ -n "$(wire_rate "$1")" ] && [ "$(wire_rate "$1")" != 0 ]; }
