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

from .common import REPO, QTest, enabled_function, tap

CMD_QUERY_FW = 0x01
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
    except (TimeoutError, RuntimeError, OSError) as err:
        tap('flash: the device boots its firmware from the flash', False,
            err)
    finally:
        if qt is not None:
            qt.close()
        shutil.rmtree(tmp, ignore_errors=True)
