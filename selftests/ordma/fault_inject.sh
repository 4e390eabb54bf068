#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# The device's fault injection, driven as a bring-up engineer drives it:
# debugfs fault_inject arms a fault through INJECT_FAULT, the driver and
# devlink health see what a failing card would show, and ethtool -S,
# devlink health diagnose and rdma statistic (as optional counters, off
# until asked for) count every fault injected.  A stuck heartbeat is reported and its end
# seen; a late admin completion is waited for; an injected fatal error
# with its code takes the function down
# until PCI unbind/bind brings it back with clean counters.  The last
# ORDMA function is the victim.
. "$(dirname "$0")/lib.sh"

ordma_require_device
bdf=$(ordma_pci_devs | tail -n 1)
DBG=/sys/kernel/debug/ordma/$bdf
[ -w "$DBG/fault_inject" ] || ktap_skip_all "no $DBG/fault_inject"
command -v ethtool >/dev/null || ktap_skip_all "no ethtool"
ktap_header
ktap_set_plan 14

nd=$(ordma_netdev "$bdf")
kmsg_first=$(dmesg | wc -l)
# stat NAME: one ethtool -S counter of the function's netdev
stat() { ethtool -S "$nd" 2>/dev/null | awk -v k="$1:" '$1 == k { print $2 }'; }
inject() { echo "$*" >"$DBG/fault_inject"; }
kmsg_has() { dmesg | tail -n +$((kmsg_first + 1)) | grep -q "$bdf: $1"; }
reporter() {
	devlink -j health show "pci/$bdf" reporter fw 2>/dev/null |
		jq -r '.. | objects | select(.reporter? == "fw") | .'"$1"' // empty' 2>/dev/null |
		head -n 1
}
reporter_is() { [ "$(reporter state)" = "$1" ]; }
has_ibdev() { ordma_ibdev "$bdf" >/dev/null; }
# rdma_stat NAME: one counter of rdma statistic show (NAME VALUE pairs)
rdma_stat() {
	rdma statistic show link "$ib/1" 2>/dev/null |
		awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'
}
FAULTS="dma_read dma_write admin_drop msix_drop fatal heartbeat_stuck admin_delay"
# rdma statistic names them fault_NAME (ethtool -S fault_injected_NAME)
fault_list=$(for k in $FAULTS; do printf 'fault_%s,' "$k"; done)
fault_list=${fault_list%,}
kmsg_declared() { kmsg_has "device failed: status 0x[0-9a-f]* fatal code $1"; }

names=0
for k in $FAULTS; do
	[ "$(stat "fault_injected_$k")" = 0 ] && names=$((names + 1))
done
tap_eq "$nd: ethtool -S has the seven fault_injected counters, all 0" 7 "$names"

bad=0
for req in "bogus 1" "fatal 2" "dma_write 1 7" "heartbeat_stuck 2"; do
	inject "$req" 2>/dev/null || bad=$((bad + 1))
done
tap_eq "fault_inject refuses what the device refuses (4 requests)" 4 "$bad"

inject heartbeat_stuck 1
ktap_test_result $? "heartbeat_stuck 1 armed"
wait_for 60 kmsg_has "firmware heartbeat stopped"
ktap_test_result $? "the driver reports the stopped heartbeat"
wait_for 10 reporter_is error
ktap_test_result $? "devlink health: reporter fw in error ($(reporter state))"
inject heartbeat_stuck 0 && wait_for 30 kmsg_has "firmware heartbeat resumed" &&
	wait_for 10 reporter_is healthy
ktap_test_result $? "heartbeat_stuck 0: resumed, reporter fw healthy again"
tap_eq "ethtool -S: fault_injected_heartbeat_stuck 1" 1 "$(stat fault_injected_heartbeat_stuck)"
diag=$(devlink -j health diagnose "pci/$bdf" reporter fw 2>&1)
tap_eq "devlink health diagnose: fault_injected_heartbeat_stuck 1" 1 \
	"$(jq -r '.. | objects | .fault_injected_heartbeat_stuck? // empty' <<<"$diag" 2>/dev/null | head -n 1)"

# the delayed completion may be any command's (the health poll's too):
# the one after it reads the count
inject admin_delay 1 500 && stat fault_injected_admin_delay >/dev/null
tap_eq "admin_delay 1 500: one completion came late, counted, the queue went on" \
	1 "$(stat fault_injected_admin_delay)"

# rdma statistic: the RDMA device's view of the same counts
ib=$(ordma_ibdev "$bdf")
supported=$(rdma statistic mode supported link "$ib/1" 2>&1)
n=0
for k in $FAULTS; do
	[[ $supported == *fault_$k* ]] && [ -z "$(rdma_stat "fault_$k")" ] &&
		n=$((n + 1))
done
tap_eq "rdma statistic: the seven fault counters are optional, not shown until enabled" 7 "$n"
tap_cmd "rdma statistic set link $ib/1 optional-counters (the seven)" \
	rdma statistic set link "$ib/1" optional-counters "$fault_list"
tap_eq "rdma statistic show: fault_heartbeat_stuck 1, fault_admin_delay 1, fault_fatal 0" "1 1 0" \
	"$(rdma_stat fault_heartbeat_stuck) $(rdma_stat fault_admin_delay) $(rdma_stat fault_fatal)"

# recovery by devlink health is recovery.sh's: here the function stays
# failed until it is bound again
ordma_auto_recover "$bdf" false
inject fatal 1 4 && wait_for 30 kmsg_declared 4
ktap_test_result $? "fatal 1 4: the core declares the device failed with fatal code 4"

ordma_rebind "$bdf" && wait_for 30 ordma_netdev "$bdf"
nd=$(ordma_netdev "$bdf")
[ -n "$nd" ] && [ "$(stat fault_injected_fatal)" = 0 ] &&
	[ "$(stat fault_injected_heartbeat_stuck)" = 0 ]
ktap_test_result $? "unbind/bind: the function is back, its reset cleared the counts"
ktap_finished
