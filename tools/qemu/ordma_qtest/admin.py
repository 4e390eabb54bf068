# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""Base registers, the admin queue, reset, FLR and MSI-X of one function."""

import struct

from .common import (
    BUF, CMD_HEALTH, CMD_QUERY_DEVICE, CMD_QUERY_FW, CMD_QUERY_PORT,
    CTRL_RESET, DB_EQ, FATAL_AQ_DMA, Function, QTest, REG_AQ_DB, REG_CAPS,
    REG_CTRL, REG_DB_CAPS, REG_FATAL_CODE, REG_HEARTBEAT, REG_SCRATCH,
    REG_STATUS, REG_VERSION, STATUS_FATAL, STATUS_READY, eth_one_frame, tap)


# From include/linux/ordma/ordma_hw.h
VENDOR, DEVICE, REVISION, CLASS = 0x1234, 0x4f52, 0x01, 0x020000


def run(qemu):
    vectors, db_pages = 8, 64
    db_bar = 1 << (db_pages * 4096 - 1).bit_length()
    qt = QTest(qemu, [
        '-netdev', 'hubport,id=p0,hubid=0', '-netdev', 'hubport,id=p1,hubid=0',
        '-device', 'ordma,netdev=p0,addr=04.0,id=nic0,mac=52:54:00:4f:52:01,'
                   'serial=ORDTEST01,vectors=%d,db-pages=%d,speed=100000'
                   % (vectors, db_pages),
        '-device', 'ordma,netdev=p1,addr=05.0,id=nic1,mac=52:54:00:4f:52:02'])
    a = Function(qt, 4, 0xe0000000, db_bar)
    b = Function(qt, 5, 0xe4000000, 1 << 20)
    try:
        # ---- PCI function
        tap('vendor/device id', a.cfg(0) == DEVICE << 16 | VENDOR)
        tap('class and revision', a.cfg(8) == CLASS << 8 | REVISION)
        tap('no INTx pin', a.cfg(0x3d, 1) == 0)
        caps = a.caps()
        tap('PCIe capability', 0x10 in caps)
        tap('PCIe function level reset advertised',
            0x10 in caps and a.cfg(caps[0x10] + 4) & (1 << 28))
        tap('MSI-X capability', 0x11 in caps)
        if 0x11 in caps:
            tap('MSI-X table size = vectors',
                (a.cfg(caps[0x11] + 2, 2) & 0x7ff) + 1 == vectors)
            tap('MSI-X table and PBA in BAR4',
                a.cfg(caps[0x11] + 4) & 7 == 4 and a.cfg(caps[0x11] + 8) & 7 == 4)
        tap('BAR0 and BAR2 are 64-bit memory BARs',
            a.cfg(0x10) & 7 == 4 and a.cfg(0x18) & 7 == 4)
        a.cfg(0x18, 4, 0xffffffff)
        a.cfg(0x1c, 4, 0xffffffff)
        size = ((a.cfg(0x1c) << 32 | a.cfg(0x18)) & ~0xf) ^ ((1 << 64) - 1)
        tap('BAR2 size = db-pages rounded to a power of two', size + 1 == db_bar,
            hex(size + 1))
        a.map()
        b.map()

        # ---- registers
        tap('VERSION 1.0', a.reg(REG_VERSION) == 0x00010000, hex(a.reg(REG_VERSION)))
        tap('CAPS.NUM_VECTORS = vectors', (a.reg(REG_CAPS) >> 8) & 0xff == vectors)
        tap('DB_CAPS = db-pages, 4 KiB', a.reg(REG_DB_CAPS) == (db_pages | 12 << 16),
            hex(a.reg(REG_DB_CAPS)))
        a.reg(REG_SCRATCH, 0x5a5aa5a5)
        tap('SCRATCH reads back', a.reg(REG_SCRATCH) == 0x5a5aa5a5)
        tap('8-byte register read is refused (reads 0)',
            qt.rd(8, a.bar0 + REG_SCRATCH) == 0)
        tap('doorbell reads 0', qt.rd(8, a.bar2 + DB_EQ) == 0)

        # ---- admin queue, DMA and MSI-X
        a.msix_setup(vectors)
        b.msix_setup(8)
        a.enable()
        b.enable()
        tap('ENABLE -> READY', a.reg(REG_STATUS) == STATUS_READY, a.reg(REG_STATUS))
        status, _, out = a.command(CMD_QUERY_FW)
        tap('QUERY_FW completes OK with the phase bit', status == 0, status)
        tap('QUERY_FW reports major 1', out is not None and struct.unpack_from('<H', out)[0] == 1)
        tap('admin completion raises MSI-X vector 0', a.msi_seen(0))
        qt.memw(BUF, bytes(256))
        status, _, out = a.command(CMD_QUERY_DEVICE, struct.pack('<QII', BUF, 256, 0))
        caps_buf = qt.mem(BUF, 184)
        tap('QUERY_DEVICE DMA-writes the caps', status == 0 and
            struct.unpack_from('<I', caps_buf, 32)[0] == VENDOR, status)
        tap('serial property reaches the firmware',
            caps_buf[152:168].rstrip(b'\0') == b'ORDTEST01', caps_buf[152:168])
        tap('node GUID is the EUI-64 of the mac property',
            caps_buf[0:8] == bytes.fromhex('505400fffe4f5201'), caps_buf[0:8].hex())
        qt.memw(BUF, bytes(64))
        status, _, out = a.command(CMD_QUERY_PORT, struct.pack('<QII', BUF, 64, 1))
        port = qt.mem(BUF, 40)
        tap('speed property reaches the firmware',
            status == 0 and struct.unpack_from('<I', port, 24)[0] == 100000)
        tap('link is up', port[29] == 1, port.hex())

        # ---- doorbell size check and the health counter
        qt.wr(4, a.bar2 + DB_EQ, 0)
        status, _, out = a.command(CMD_HEALTH)
        tap('4-byte doorbell reaches the firmware and is counted',
            status == 0 and struct.unpack_from('<I', out, 12)[0] == 1,
            out.hex() if out else status)

        # ---- timer and clock: heartbeat every 100 ms of virtual time
        beat = a.reg(REG_HEARTBEAT)
        qt.step(1000000000)
        beats = a.reg(REG_HEARTBEAT) - beat
        tap('HEARTBEAT follows the virtual clock (10 per s)', 9 <= beats <= 11, beats)

        # ---- Ethernet: a sends one frame to b over the hub
        eth_one_frame(qt, a, b, 'over the hub', lambda done: qt.step(1))

        # ---- link change from the monitor
        qt.hmp('set_link nic1 off')
        qt.memw(BUF, bytes(64))
        b.command(CMD_QUERY_PORT, struct.pack('<QII', BUF, 64, 1))
        tap('set_link off reaches the firmware', qt.mem(BUF, 40)[29] == 0)
        qt.hmp('set_link nic1 on')
        b.command(CMD_QUERY_PORT, struct.pack('<QII', BUF, 64, 1))
        tap('set_link on reaches the firmware', qt.mem(BUF, 40)[29] == 1)

        # ---- Function Level Reset
        pcie = b.caps()[0x10]
        b.cfg(pcie + 8, 2, b.cfg(pcie + 8, 2) | 0x8000)
        b.map()
        tap('FLR resets the firmware (STATUS 0)', b.reg(REG_STATUS) == 0,
            b.reg(REG_STATUS))
        tap('VERSION reads after FLR',
            b.reg(REG_VERSION) == 0x00010000)

        # ---- bus mastering off: the command fetch must fail, not hang
        a.cfg(0x04, 2, 0x2)
        try:
            aq, _ = a.aq_base()
            qt.memw(aq + 64 * (a.aq_pi % 16), struct.pack('<BBHI', CMD_QUERY_FW, 0, 1, 0))
            a.reg(REG_AQ_DB, (a.aq_pi + 1) & 0xffff)
            tap('bus master off: DMA refused -> FATAL AQ_DMA',
                a.reg(REG_STATUS) & STATUS_FATAL and
                a.reg(REG_FATAL_CODE) == FATAL_AQ_DMA,
                (a.reg(REG_STATUS), a.reg(REG_FATAL_CODE)))
        except TimeoutError as err:
            tap('bus master off: DMA refused -> FATAL AQ_DMA', False, err)
            return
        a.cfg(0x04, 2, 0x6)
        a.reg(REG_CTRL, CTRL_RESET)
        tap('CTRL.RESET clears FATAL', a.reg(REG_STATUS) == 0, a.reg(REG_STATUS))
    except (TimeoutError, RuntimeError) as err:
        tap('device model answers', False, err)
    finally:
        qt.close()
