# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""The device's flash (flash=, fw-pubkey=): the firmware it runs is the
signed image of the active slot, loaded only once verified; a slot whose
image is tampered with, signed with another key, made for another board
or failing its self-test is given up for the other slot, which becomes
the active one; with no bootable slot the device does not come up."""

import os
import shutil
import struct
import subprocess
import tempfile

from .common import (
    BUF, CTRL_RESET, REG_CTRL, REPO, QTest, enabled_function, tap)

CMD_QUERY_FW = 0x01
CMD_QUERY_DEVICE = 0x02
CMD_FLASH_WRITE, CMD_FLASH_COMMIT, CMD_QUERY_FLASH = 0x0d, 0x0e, 0x0f
CMD_FW_ACTIVATE = 0x16
CAP_FLASH = 1 << 13
CAP_FLAGS_AT = 44            # struct ordma_device_caps.cap_flags
STATUS_OK, STATUS_BAD_PARAM, STATUS_BAD_STATE = 0, 2, 5
IMAGE_BAD_SIGNATURE = 0x100 + 8  # ORDMA_SYNDROME_IMAGE_BASE + enum ordma_image_error
NO_SLOT = 0xffffffff
ACTIVATION_DONE, ACTIVATION_ROLLED_BACK = 2, 3
STAGE = BUF + 0x10000        # 4 KiB chunks of the image, in guest memory
TOOL = os.path.join(REPO, 'build', 'bin', 'ordma-fw-image')
FLASH_BLOCK = 4096


def make(*args):
    res = subprocess.run(['make', '-s', '-C', REPO] + list(args),
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True)
    if res.returncode:
        raise RuntimeError('make %s: %s' % (' '.join(args),
                                            res.stdout.strip()[-300:]))
    return res.stdout


def payload(version, build=1, self_test_fail=False):
    """The firmware built as an image payload (firmware/Makefile)"""
    args = ['-C', 'firmware', 'image-so', 'FW_VERSION=%s' % version,
            'FW_BUILD=%d' % build]
    if self_test_fail:
        args.append('FW_SELF_TEST_FAIL=1')
    out = make(*args)
    return out.strip().splitlines()[-1]


def tool(*args):
    res = subprocess.run([TOOL] + list(args), stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    if res.returncode:
        raise RuntimeError('ordma-fw-image %s: %s' % (args[0],
                                                      res.stdout.strip()))
    return res.stdout


def query_fw(f):
    status, _, out = f.command(CMD_QUERY_FW)
    if status != 0:
        return None
    major, minor, sub, build = struct.unpack_from('<HHHxxI', out)
    return '%d.%d.%d' % (major, minor, sub), build


def cap_flags(f):
    f.qt.memw(BUF, bytes(4096))
    status, _, _ = f.command(CMD_QUERY_DEVICE, struct.pack('<QII', BUF, 4096, 0))
    if status != 0:
        return None
    return struct.unpack_from('<I', f.qt.mem(BUF, 64), CAP_FLAGS_AT)[0]


def query_flash(f):
    """(running, active, pending, activation, [(state, version)] * 2)"""
    f.qt.memw(BUF, bytes(64))
    status, _, _ = f.command(CMD_QUERY_FLASH, struct.pack('<QII', BUF, 48, 0))
    if status != 0:
        return None
    raw = f.qt.mem(BUF, 48)
    head = struct.unpack_from('<IIII', raw)
    slots = []
    for i in range(2):
        st, ma, mi, sub, _, build = struct.unpack_from('<IHHHHI', raw,
                                                        16 + 16 * i)
        slots.append((st, '%d.%d.%d' % (ma, mi, sub) if st == 1 else None))
    return head + (slots,)


def stage(f, image):
    """FLASH_WRITE of the whole image, then FLASH_COMMIT: (status,
    syndrome) of the commit, or of the first write that failed"""
    with open(image, 'rb') as fh:
        data = fh.read()
    for off in range(0, len(data), 4096):
        chunk = data[off:off + 4096]
        f.qt.memw(STAGE, chunk)
        status, syndrome, _ = f.command(
            CMD_FLASH_WRITE, struct.pack('<QII', STAGE, len(chunk), off))
        if status != 0:
            return status, syndrome
    status, syndrome, _ = f.command(CMD_FLASH_COMMIT,
                                    struct.pack('<I', len(data)))
    return status, syndrome


def activate_and_reset(f):
    """FW_ACTIVATE, then a reset and the enable handshake again"""
    status, _, _ = f.command(CMD_FW_ACTIVATE)
    f.reg(REG_CTRL, 0)
    f.reg(REG_CTRL, CTRL_RESET)
    f.enable()
    return status


def run_update(qemu, tmp, pub, good, new, stfail):
    """FLASH_WRITE/COMMIT, QUERY_FLASH and FW_ACTIVATE on a device that
    boots a 1.1.0 image from slot 0"""
    fl = os.path.join(tmp, 'update.flash')
    tool('flash', '-o', fl, good)
    tampered = os.path.join(tmp, 'tampered.img')
    with open(new, 'rb') as fh:
        data = bytearray(fh.read())
    data[len(data) // 2] ^= 0x20
    with open(tampered, 'wb') as fh:
        fh.write(data)

    qt, err = boot(qemu, fl, pub)
    if qt is None:
        tap('update: the device boots 1.1.0 from its flash', False, err)
        return
    try:
        f = enabled_function(qt)
        caps = cap_flags(f)
        info = query_flash(f)
        tap('update: ORDMA_DEV_CAP_FLASH; QUERY_FLASH: slot 0 runs 1.1.0, '
            'slot 1 empty, nothing pending',
            caps is not None and caps & CAP_FLASH and
            info == (0, 0, NO_SLOT, 0, [(1, '1.1.0'), (0, None)]),
            (caps, info))

        tap('update: FW_ACTIVATE with nothing pending: BAD_STATE',
            f.command(CMD_FW_ACTIVATE)[0] == STATUS_BAD_STATE)

        res = stage(f, tampered)
        info = query_flash(f)
        tap('update: a tampered image: FLASH_COMMIT BAD_PARAM, syndrome '
            '0x108 (signature), the flash untouched',
            res == (STATUS_BAD_PARAM, IMAGE_BAD_SIGNATURE) and
            info[2] == NO_SLOT and info[4][1] == (0, None), (res, info))

        res = stage(f, new)
        info = query_flash(f)
        flash_info = tool('flash-info', fl)
        tap('update: a 1.2.0 image written and committed: slot 1 pending '
            'with 1.2.0, in the flash file too',
            res == (STATUS_OK, 0) and info[2] == 1 and
            info[4][1] == (1, '1.2.0') and 'pending 1' in flash_info,
            (res, info, flash_info))

        status = activate_and_reset(f)
        info = query_flash(f)
        tap('update: FW_ACTIVATE, reset: QUERY_FW answers 1.2.0, slot 1 '
            'runs and is active',
            status == STATUS_OK and query_fw(f) == ('1.2.0', 1) and
            info[:4] == (1, 1, NO_SLOT, ACTIVATION_DONE) and
            qt.qom_get('nic0', 'fw-version').strip('"') == '1.2.0',
            (status, query_fw(f), info))

        res = stage(f, stfail)
        info = query_flash(f)
        tap('update: the next image goes to slot 0, the one not running',
            res == (STATUS_OK, 0) and info[2] == 0 and
            info[4][0] == (1, '1.3.0'), (res, info))
        status = activate_and_reset(f)
        info = query_flash(f)
        log = qt.qom_get('nic0', 'fw-boot-log')
        tap('update: an image failing its self-test is activated: 1.2.0 '
            'runs again, activation rolled back',
            status == STATUS_OK and query_fw(f) == ('1.2.0', 1) and
            info[:4] == (1, 1, NO_SLOT, ACTIVATION_ROLLED_BACK) and
            'self-test' in log, (status, query_fw(f), info, log))
    finally:
        qt.close()


def boot(qemu, flash, pub):
    """(QTest or None, stderr text) of a device on this flash"""
    err = tempfile.TemporaryFile(mode='w+')
    props = 'flash=%s' % flash + (',fw-pubkey=%s' % pub if pub else '')
    args = ['-device', 'ordma,addr=04.0,id=nic0,' + props]
    try:
        qt = QTest(qemu, args, stderr=err)
    except (RuntimeError, OSError):
        # QEMU refused the device and exited: it said why on stderr
        err.seek(0)
        return None, err.read()
    return qt, ''


def run_flash(qemu):
    tmp = tempfile.mkdtemp(prefix='qtest-ordma-flash.')
    qt = None
    try:
        make('fw-image-tool')
        new = payload('1.1.0', 2)
        broken = payload('1.2.0', 1, self_test_fail=True)
        key = os.path.join(tmp, 'dev')
        other = os.path.join(tmp, 'other')
        tool('keygen', '-o', key)
        tool('keygen', '-o', other)
        pub = key + '.pub'

        def image(name, so, *opts, signer=key, version='1.1.0', build=2):
            out = os.path.join(tmp, name + '.img')
            tool('sign', '-k', signer + '.key', '-o', out, '-v', version,
                 '-b', str(build), *opts, so)
            return out

        good = image('good', new)
        stfail = image('stfail', broken, version='1.2.0', build=1)
        wrong_key = image('wrong-key', new, signer=other)
        wrong_board = image('wrong-board', new, '-B', 'OTHER-BOARD')

        def flash(name, *images):
            out = os.path.join(tmp, name + '.flash')
            tool('flash', '-o', out, *images)
            return out

        # the firmware linked into the model, without a flash
        qt = QTest(qemu, ['-device', 'ordma,addr=04.0,id=nic0'])
        f = enabled_function(qt)
        tap('no flash: the built-in firmware (fw-slot -1, QUERY_FW 1.0.0)',
            qt.qom_get('nic0', 'fw-slot') == '-1' and
            query_fw(f) == ('1.0.0', 1),
            (qt.qom_get('nic0', 'fw-slot'), query_fw(f)))
        qt.close()
        qt = None

        fl = flash('good', good)
        qt, err = boot(qemu, fl, pub)
        ok = qt is not None
        if ok:
            f = enabled_function(qt)
            got = (qt.qom_get('nic0', 'fw-slot'),
                   qt.qom_get('nic0', 'fw-version').strip('"'), query_fw(f))
            ok = got == ('0', '1.1.0', ('1.1.0', 2))
            qt.close()
            qt = None
        else:
            got = err
        tap('flash with a signed 1.1.0 image: slot 0 runs, QUERY_FW answers '
            '1.1.0 build 2 from the loaded firmware', ok, got)

        def rollback(name, bad, why):
            fl = flash(name, bad, good)
            qt, err = boot(qemu, fl, pub)
            if qt is None:
                return False, err
            got = (qt.qom_get('nic0', 'fw-slot'),
                   qt.qom_get('nic0', 'fw-boot-log'))
            info = tool('flash-info', fl)
            qt.close()
            return (got[0] == '1' and why in got[1] and
                    'active 1' in info), (got, info)

        ok, got = rollback('stfail', stfail, 'self-test')
        tap('slot 0 fails its self-test: slot 1 boots and becomes the '
            'active slot', ok, got)
        ok, got = rollback('wrong-key', wrong_key, 'key')
        tap('slot 0 signed with another key: refused before loading, slot '
            '1 boots', ok, got)
        ok, got = rollback('wrong-board', wrong_board, 'board')
        tap('slot 0 made for another board: refused, slot 1 boots', ok, got)

        fl = flash('tampered', good, good)
        with open(fl, 'r+b') as fh:
            # a byte in the middle of slot 0's payload
            fh.seek(FLASH_BLOCK + 128 + os.path.getsize(good) // 2)
            b = fh.read(1)
            fh.seek(-1, 1)
            fh.write(bytes([b[0] ^ 0x40]))
        ok, got = False, None
        qt, err = boot(qemu, fl, pub)
        if qt is not None:
            got = qt.qom_get('nic0', 'fw-boot-log')
            ok = (qt.qom_get('nic0', 'fw-slot') == '1' and
                  'signature' in got)
            qt.close()
            qt = None
        tap('a payload byte changed in the flash: the signature check '
            'refuses slot 0', ok, got or err)

        fl = flash('none', wrong_board)
        qt, err = boot(qemu, fl, pub)
        tap('no bootable slot: the device does not come up, saying why',
            qt is None and 'no bootable firmware' in err, err)
        if qt is not None:
            qt.close()
            qt = None

        qt, err = boot(qemu, flash('nokey', good), None)
        tap('flash= without fw-pubkey=: refused', qt is None and
            'fw-pubkey' in err, err)

        newer = payload('1.2.0', 1)
        run_update(qemu, tmp, pub, good,
                   image('new', newer, version='1.2.0', build=1),
                   image('stfail3', payload('1.3.0', 1, self_test_fail=True),
                         version='1.3.0', build=1))
    except (TimeoutError, RuntimeError, OSError) as err:
        tap('flash: the device boots its firmware from the flash', False,
            err)
    finally:
        if qt is not None:
            qt.close()
        shutil.rmtree(tmp, ignore_errors=True)
