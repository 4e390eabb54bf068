#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""Check the ORDMA device model without a guest.

Drives a paused q35 machine through QEMU's qtest protocol: config space
through the 0xcf8/0xcfc ports, BAR MMIO, guest memory, the virtual clock
and the monitor.  It exercises the shim's wiring of the firmware HAL --
registers, doorbells, DMA (and its refusal while bus mastering is off),
MSI-X, the timer, the Ethernet port between two functions on a hub, link
changes, Function Level Reset, DMA through intel-iommu and the faults
of the engine's DMA it records (under TCG), and the cable's impairments
(settings checked, faults counted, the same seed giving the same faults,
corruption caught by the receiver's ICRC) and the port's pcapng capture
(every frame, its direction and impairment, switched at run time) -- in
a few seconds.

The checks live in ordma_qtest/, one module per area: admin (base
registers, admin queue, reset), iommu, cable (cables and the engine
thread), wire (impairments), capture and record (the firmware's inputs
logged and replayed), flash (the firmware booted from signed images,
and what power-on does with a bad flash or key), stall (a driver that
stops answering), protocol (SET_RDMA_PROTOCOL: RoCEv2 or iWARP);
common.py holds the qtest
connection, the PCI function and the frames they share.  A new check goes
into its area's module and its run_* function into main() below.

Usage: qtest-ordma.py [QEMU]   (default: the binary tools/qemu/build-qemu.sh
prints).  Output is TAP; exit status 0 = all passed, 1 = failures,
4 = skipped (no QEMU binary).
"""

import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# The random qtest (qtest-ordma-random.py) loads this file for these.
from ordma_qtest.common import *  # noqa: F401,F403
from ordma_qtest.common import tap, tests
from ordma_qtest.admin import run
from ordma_qtest.iommu import run_iommu, run_iommu_faults
from ordma_qtest.cable import (
    run_cable, run_cable_local, run_cable_oversize, run_engine_sched,
    run_engine_flood, run_msix_held, run_flow_control)
from ordma_qtest.capture import run_pcap, run_pcap_local
from ordma_qtest.record import run_record
from ordma_qtest.trace import run_fwtrace
from ordma_qtest.fault import run_fault_inject
from ordma_qtest.flash import run_flash, run_flash_inputs
from ordma_qtest.stall import run_stalled_driver
from ordma_qtest.link import run_link_layer
from ordma_qtest.protocol import run_rdma_protocol
from ordma_qtest.wire import run_wire_props, run_wire_udp, run_wire_icrc


def main():
    if len(sys.argv) > 1:
        qemu = sys.argv[1]
    else:
        build = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'build-qemu.sh')
        res = subprocess.run([build], stdout=subprocess.PIPE, text=True)
        lines = res.stdout.split()
        qemu = lines[-1] if res.returncode == 0 and lines else ''
    print('TAP version 13')
    if not qemu or not os.access(qemu, os.X_OK):
        print('1..0 # SKIP no QEMU with the ORDMA device')
        return 4
    for part in (run, run_iommu, run_cable, run_cable_local, run_cable_oversize,
                 run_engine_sched, run_engine_flood, run_msix_held, run_flow_control,
                 run_wire_props, run_wire_udp, run_wire_icrc, run_pcap,
                 run_pcap_local, run_record, run_fwtrace, run_fault_inject,
                 run_flash, run_flash_inputs, run_stalled_driver, run_link_layer,
                 run_rdma_protocol, run_iommu_faults):
        try:
            part(qemu)
        except RuntimeError as err:
            tap('QEMU starts (%s)' % part.__name__, False, err)
    print('1..%d' % len(tests))
    print('# %d passed, %d failed' % (tests.count(True), tests.count(False)))
    return 0 if all(tests) else 1



if __name__ == '__main__':
    sys.exit(main())
