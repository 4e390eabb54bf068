#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Self-check of the test VM (run-vm.sh smoke): the guest runs the
# intended kernel on the prepared module tree, its root is the host's
# file system under a writable overlay, udev autoloads drivers by
# modalias, the UDP-socket cable between the two NICs carries traffic and
# the distribution's RDMA stack (rdma_rxe, ibverbs utilities) works.
. "$(dirname "$0")/../ordma/lib.sh"

ktap_header
ktap_set_plan 11

kver=$(uname -r)
tap_eq "kernel release" "6.12.117+deb12-amd64" "$kver"
tap_cmd "module tree for $kver has modules.dep" test -s "/lib/modules/$kver/modules.dep"
tap_match "root is an overlay over the host's read-only 9p share" \
	'^hostroot [^ ]+ 9p ro,' "$(cat /proc/mounts)"
tap_cmd "results share is writable" touch /mnt/results/.write-check
tap_match "configfs mounted (a module in this kernel)" \
	'^configfs /sys/kernel/config configfs ' "$(cat /proc/mounts)"

# Two virtio-net NICs; udev must have loaded virtio_net for them.
nics=$(for d in /sys/class/net/*/device/driver; do
	[ "$(basename "$(readlink -f "$d")")" = virtio_net ] && basename "$(dirname "$(dirname "$d")")"
done)
tap_eq "udev autoloaded virtio_net for both NICs" 2 "$(echo "$nics" | grep -c .)"
alias=$(cat "/sys/class/net/$(echo "$nics" | head -n 1)/device/modalias" 2>/dev/null)
tap_eq "modalias $alias resolves to virtio_net" virtio_net "$(modprobe -R "$alias" 2>&1)"

# The cable: NIC 2 in its own namespace, ping across.
a=$(echo "$nics" | sed -n 1p)
b=$(echo "$nics" | sed -n 2p)
ip netns add peer
ip link set "$b" netns peer
ip -n peer link set lo up
ip -n peer addr add 192.0.2.2/24 dev "$b"
ip -n peer link set "$b" up
ip addr add 192.0.2.1/24 dev "$a"
ip link set "$a" up
tap_cmd "ping across the UDP cable" ping -c 3 -W 5 192.0.2.2

# Distribution RDMA stack on top of NIC 1.
modprobe crc32_generic
modprobe rdma_rxe && modprobe ib_uverbs && rdma link add rxe0 type rxe netdev "$a"
tap_match "rdma link shows rxe0 ACTIVE on $a" \
	"^link rxe0/1 state ACTIVE physical_state LINK_UP netdev $a" "$(rdma link show 2>&1)"
tap_match "ibv_devinfo sees rxe0 PORT_ACTIVE" 'state:[[:space:]]+PORT_ACTIVE' \
	"$(ibv_devinfo -d rxe0 2>&1)"
tap_match "rxe0 has the RoCE v2 GID of 192.0.2.1" "^[0-9]+ $(ipv4_to_gid 192.0.2.1) RoCE_v2 $a\$" \
	"$(ordma_gid_table rxe0)"
rdma link delete rxe0

ktap_finished
