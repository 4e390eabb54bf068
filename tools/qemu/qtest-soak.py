#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""The qtest checks that race the engine thread against the vCPUs, run
again and again (make soak): floods while the memory map changes, DMA
faults behind the IOMMU, MSI-X held back, flow control, host fault
injection, a driver that stops answering.  One round is what make check runs once; a race that loses
one run in a hundred shows here first.

Usage: qtest-soak.py [--rounds N] [--part NAME]... QEMU
Prints TAP, one result per check per round, and a summary of which
checks failed in which rounds.
"""

import argparse
import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# pylint: disable=wrong-import-position
from ordma_qtest.common import tap, tests
from ordma_qtest.iommu import run_iommu_faults
from ordma_qtest.cable import (
    run_engine_flood, run_engine_sched, run_msix_held, run_flow_control)
from ordma_qtest.fault import run_fault_inject
from ordma_qtest.stall import run_stalled_driver

class FailureLog:
    """Passes the TAP output through and keeps the names of failures."""

    def __init__(self, out):
        self.out, self.failed = out, []

    def write(self, text):
        for line in text.splitlines():
            if line.startswith('not ok '):
                self.failed.append(line.split(' - ', 1)[-1].split(' # ')[0])
        return self.out.write(text)

    def flush(self):
        self.out.flush()


PARTS = {
    'engine_flood': run_engine_flood,
    'engine_sched': run_engine_sched,
    'iommu_faults': run_iommu_faults,
    'msix_held': run_msix_held,
    'flow_control': run_flow_control,
    'fault_inject': run_fault_inject,
    'stalled_driver': run_stalled_driver,
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--rounds', type=int, default=25)
    ap.add_argument('--part', action='append', choices=sorted(PARTS),
                    help='run only these checks (default: all)')
    ap.add_argument('qemu')
    args = ap.parse_args()
    print('TAP version 13')
    if not os.access(args.qemu, os.X_OK):
        print('1..0 # SKIP no QEMU with the ORDMA device')
        return 4
    failed = collections.defaultdict(list)
    log = FailureLog(sys.stdout)
    sys.stdout = log
    for rnd in range(1, args.rounds + 1):
        print('# round %d of %d' % (rnd, args.rounds))
        for name in args.part or sorted(PARTS):
            try:
                PARTS[name](args.qemu)
            except RuntimeError as err:
                tap('QEMU starts (%s)' % name, False, err)
        for name in log.failed:
            failed[name].append(rnd)
        log.failed = []
    for name, rounds in sorted(failed.items()):
        print('# failed in %d of %d rounds (%s): %s' %
              (len(rounds), args.rounds, ' '.join(map(str, rounds)), name))
    print('1..%d' % len(tests))
    print('# %d passed, %d failed' % (tests.count(True), tests.count(False)))
    return 0 if all(tests) else 1


if __name__ == '__main__':
    sys.exit(main())
