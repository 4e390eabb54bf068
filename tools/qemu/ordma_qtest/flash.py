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
    BUF, CTRL_RESET, DATADIRS, REG_CTRL, REPLY_TIMEOUT, REPO, QTest,
    enabled_function, tap)

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


# ---------------------------------------------------------------------
# Bad inputs at power-on: what realize does with each
# ---------------------------------------------------------------------

FLASH_HDR = struct.Struct('<8sIIIIII2Q')   # struct ordma_flash_header
SLOT_EMPTY, SLOT_VALID, SLOT_INVALID = 0, 1, 2
# what must never reach stderr, whatever the input
CRASH_MARKS = ('Aborted', 'core dumped', 'Segmentation', 'Assertion',
               'Sanitizer', 'runtime error', 'GLib-CRITICAL', '**')


def realize(qemu, props):
    """(exit status, stderr lines) of QEMU with -device ordma,props,
    told to quit from its monitor once it runs: 0 and no line if the
    device came up, 1 and QEMU's one-line reason if realize failed"""
    res = subprocess.run(
        [qemu, '-machine', 'q35', '-display', 'none', '-nodefaults',
         '-accel', 'qtest', '-qtest', 'null', '-monitor', 'stdio'] +
        DATADIRS + ['-device', 'ordma,addr=04.0,id=nic0,' + props],
        input='quit\n', stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        text=True, timeout=REPLY_TIMEOUT)
    return res.returncode, res.stderr.strip().splitlines()


def refused(qemu, props, why):
    """realize fails: exit status 1, one line on stderr that names the
    property and says why, nothing that looks like a crash"""
    rc, lines = realize(qemu, props)
    ok = (rc == 1 and len(lines) == 1 and why in lines[0] and
          lines[0].split(': ')[1].startswith('-device ordma,') and
          not any(mark in lines[0] for mark in CRASH_MARKS))
    return ok, (rc, lines)


def header(fl, **fields):
    """Rewrites fields of the flash header of the file fl"""
    with open(fl, 'r+b') as fh:
        raw = fh.read(FLASH_HDR.size)
        (magic, fmt, slot_size, active, pending, gen, res,
         size0, size1) = FLASH_HDR.unpack(raw)
        cur = dict(magic=magic, format=fmt, slot_size=slot_size,
                   active=active, pending=pending, generation=gen,
                   reserved_1c=res, size0=size0, size1=size1)
        cur.update(fields)
        fh.seek(0)
        fh.write(FLASH_HDR.pack(*(cur[k] for k in (
            'magic', 'format', 'slot_size', 'active', 'pending',
            'generation', 'reserved_1c', 'size0', 'size1'))))
    return fl


def read_header(fl):
    """The flash header fields of the file fl"""
    with open(fl, 'rb') as fh:
        return FLASH_HDR.unpack(fh.read(FLASH_HDR.size))


def peak_rss_kib(pid):
    with open('/proc/%d/status' % pid) as fh:
        for line in fh:
            if line.startswith('VmHWM:'):
                return int(line.split()[1])
    return None


def run_flash_inputs(qemu):
    """Every bad flash= and fw-pubkey= input either stops realize with
    a one-line error and exit status 1, or boots the other slot as the
    hw-reference says (fw-slot, fw-boot-log, QUERY_FW, QUERY_FLASH);
    QEMU never crashes and exits 0 on quit when the device came up."""
    tmp = tempfile.mkdtemp(prefix='qtest-ordma-flash-in.')
    try:
        make('fw-image-tool')
        so = payload('1.1.0', 2)
        key = os.path.join(tmp, 'dev')
        tool('keygen', '-o', key)
        tool('keygen', '-o', os.path.join(tmp, 'other'))
        pub = key + '.pub'
        good = os.path.join(tmp, 'good.img')
        tool('sign', '-k', key + '.key', '-o', good, '-v', '1.1.0', '-b',
             '2', so)
        abi2 = os.path.join(tmp, 'abi2.img')
        tool('sign', '-k', key + '.key', '-o', abi2, '-v', '1.1.0', '-b',
             '2', '--abi', '2.0', so)
        img_size = os.path.getsize(good)
        n = [0]

        def flash(*images):
            n[0] += 1
            out = os.path.join(tmp, 'f%d.flash' % n[0])
            tool('flash', '-o', out, *images)
            return out

        def keyfile(data):
            n[0] += 1
            out = os.path.join(tmp, 'k%d.pub' % n[0])
            with open(out, 'wb') as fh:
                fh.write(data)
            return out

        fl = flash(good)
        with open(pub) as fh:
            hexkey = fh.read().strip()
        props = 'flash=%s,fw-pubkey=%%s' % fl

        # ---- the public key
        for what, path, why in (
                ('missing', os.path.join(tmp, 'nothere.pub'),
                 'cannot read the file'),
                ('a directory', tmp, 'cannot read the file'),
                ('empty', keyfile(b''), 'not 64 hex digits'),
                ('63 hex digits', keyfile(hexkey[:-1].encode()),
                 'not 64 hex digits'),
                ('65 hex digits', keyfile(hexkey.encode() + b'0\n'),
                 'not 64 hex digits'),
                ('32 raw bytes', keyfile(bytes.fromhex(hexkey)),
                 'not 64 hex digits'),
                ('64 characters, not hex',
                 keyfile(b'zz' + hexkey[2:].encode()), 'not a hex key'),
                ('a NUL in the middle', keyfile(
                    hexkey[:32].encode() + b'\0' + hexkey[33:].encode()),
                 'not 64 hex digits')):
            ok, got = refused(qemu, props % path, 'fw-pubkey=%s: %s' %
                              (path, why))
            tap('flash inputs: fw-pubkey %s: realize fails, exit 1, "%s"' %
                (what, why), ok, got)
        other = os.path.join(tmp, 'other.pub')
        ok, got = refused(qemu, props % other, 'no bootable firmware: '
                          'slot 0: image is signed with an unknown key; '
                          'slot 1: empty')
        tap('flash inputs: fw-pubkey of another key: no slot verifies, '
            'realize fails saying so for each slot', ok, got)
        ok, got = refused(qemu, 'fw-pubkey=%s' % pub, 'without flash=')
        tap('flash inputs: fw-pubkey= without flash=: refused, not ignored',
            ok, got)
        rc, lines = realize(qemu, props % keyfile(
            b'  \n' + hexkey.encode() + b'\n'))
        tap('flash inputs: white space before the key is not hex either',
            rc == 1 and 'not 64 hex digits' in ''.join(lines), (rc, lines))
        rc, lines = realize(qemu, props % keyfile(hexkey.upper().encode() +
                                                  b' \n\n'))
        tap('flash inputs: upper case and trailing white space: the device '
            'comes up, QEMU quits with 0', rc == 0 and not lines,
            (rc, lines))

        # ---- the flash file and its header
        slot_size = read_header(fl)[2]

        def truncated(size):
            out = flash(good)
            os.truncate(out, size)
            return out

        bad_flash = (
            ('missing', os.path.join(tmp, 'nothere.flash'),
             'No such file or directory'),
            ('empty', truncated(0), 'flash is truncated'),
            ('shorter than its header block', truncated(100),
             'flash is truncated'),
            ('without its slot 1', truncated(FLASH_BLOCK + slot_size),
             'flash is truncated'),
            ('bad magic', header(flash(good), magic=b'ORDMAFWI'),
             'not a flash file (bad magic)'),
            ('format 2', header(flash(good), format=2),
             'unknown flash format'),
            ('reserved field set', header(flash(good), reserved_1c=1),
             'malformed flash header'),
            ('slot size 0', header(flash(good), slot_size=0),
             'invalid flash slot size'),
            ('slot size not a multiple of 4096',
             header(flash(good), slot_size=slot_size - 1),
             'invalid flash slot size'),
            ('slot size past the end of the file',
             header(flash(good), slot_size=slot_size + FLASH_BLOCK),
             'flash is truncated'),
            ('active slot 2', header(flash(good), active=2),
             'invalid active flash slot'),
            ('pending = active', header(flash(good), pending=0),
             'invalid pending flash slot'),
            ('pending slot 7', header(flash(good), pending=7),
             'invalid pending flash slot'),
            ('image larger than its slot',
             header(flash(good), size1=slot_size + 1),
             'flash image larger than its slot'))
        for what, path, why in bad_flash:
            ok, got = refused(qemu, 'flash=%s,fw-pubkey=%s' % (path, pub),
                              'flash=%s: %s' % (path, why) if
                              why != 'No such file or directory' else why)
            tap('flash inputs: flash %s: realize fails, exit 1, "%s"' %
                (what, why), ok, got)

        # ---- images that do not boot: the other slot does, or nothing
        def sig_flipped(*images):
            """slot 0's signature with one bit changed"""
            out = flash(*images)
            with open(out, 'r+b') as fh:
                fh.seek(FLASH_BLOCK + img_size - 1)
                b = fh.read(1)
                fh.seek(-1, 1)
                fh.write(bytes([b[0] ^ 1]))
            return out

        def format2(*images):
            """slot 0's image header names format 2"""
            out = flash(*images)
            with open(out, 'r+b') as fh:
                fh.seek(FLASH_BLOCK + 8)
                fh.write(struct.pack('<I', 2))
            return out

        ok, got = refused(qemu, 'flash=%s,fw-pubkey=%s' % (
            sig_flipped(good), pub), 'no bootable firmware: slot 0: '
            'signature does not verify; slot 1: empty')
        tap('flash inputs: the only image has a bad signature: realize '
            'fails, exit 1, both slots named', ok, got)

        def falls_back(fl, why):
            """slot 1 boots instead of slot 0, is the active slot in the
            flash file, and QEMU quits with 0"""
            before = read_header(fl)
            with tempfile.TemporaryFile(mode='w+') as log:
                try:
                    qt = QTest(qemu, ['-device', 'ordma,addr=04.0,id=nic0,'
                                      'flash=%s,fw-pubkey=%s' % (fl, pub)],
                               stderr=log)
                except RuntimeError as err:
                    log.seek(0)
                    return False, (err, log.read())
                got, rc = booted(qt)
                log.seek(0)
                warn = log.read().strip().splitlines()
            after = read_header(fl)
            ok = (got[0] == '1' and got[1] == 'slot 0: ' + why and
                  got[2] == ('1.1.0', 2) and
                  got[3] is not None and got[3][:3] == (1, 1, NO_SLOT) and
                  got[3][4] == [(SLOT_INVALID, None),
                                (SLOT_VALID, '1.1.0')] and
                  after[3] == 1 and after[4] == NO_SLOT and
                  after[5] == before[5] + 1 and
                  rc == 0 and len(warn) == 1 and why in warn[0] and
                  'booted slot 1' in warn[0])
            return ok, (got, before, after, rc, warn)

        def booted(qt):
            """What runs, and the exit status of hmp quit"""
            try:
                f = enabled_function(qt)
                got = (qt.qom_get('nic0', 'fw-slot'),
                       qt.qom_get('nic0', 'fw-boot-log').strip('"'),
                       query_fw(f), query_flash(f))
                qt.hmp('quit')
                rc = qt.proc.wait(timeout=REPLY_TIMEOUT)
            finally:
                qt.close()
            return got, rc

        for what, fl, why in (
                ('a bad signature', sig_flipped(good, good),
                 'signature does not verify'),
                ('a bad signature and slot 1 pending (no longer pending '
                 'once it runs)', header(sig_flipped(good, good), pending=1),
                 'signature does not verify'),
                ('format 2 in its header', format2(good, good),
                 'unknown image format'),
                ('entry table 2.0', flash(abi2, good),
                 'image needs another firmware entry table version'),
                ('its size in the flash header one byte short',
                 header(flash(good, good), size0=img_size - 1),
                 'image is truncated')):
            ok, got = falls_back(fl, why)
            tap('flash inputs: slot 0 with %s: slot 1 boots (fw-slot 1, '
                'QUERY_FW 1.1.0 build 2), becomes active (generation + 1), '
                'one warning, quit exits 0' % what, ok, got)

        # slot 1 bad, slot 0 good: slot 0 runs, QUERY_FLASH shows slot 1
        fl = flash(good, good)
        with open(fl, 'r+b') as fh:
            fh.seek(FLASH_BLOCK + slot_size + img_size - 1)
            b = fh.read(1)
            fh.seek(-1, 1)
            fh.write(bytes([b[0] ^ 1]))
        qt, err = boot(qemu, fl, pub)
        if qt is None:
            tap('flash inputs: slot 1 with a bad signature: slot 0 runs, '
                'QUERY_FLASH reports slot 1 invalid', False, err)
        else:
            try:
                f = enabled_function(qt)
                got = (qt.qom_get('nic0', 'fw-slot'),
                       qt.qom_get('nic0', 'fw-boot-log').strip('"'),
                       query_flash(f))
            finally:
                qt.close()
            tap('flash inputs: slot 1 with a bad signature: slot 0 runs, '
                'QUERY_FLASH reports slot 1 invalid',
                got == ('0', '', (0, 0, NO_SLOT, 0,
                                  [(SLOT_VALID, '1.1.0'),
                                   (SLOT_INVALID, None)])), got)

        # A header naming a slot of 4 GiB - 4 KiB, the image in slot 1
        # that large, the file sparse: the model refuses the size before
        # it takes memory for it.
        fl = flash(good)
        big = 0xfffff000
        header(fl, slot_size=big, size1=big)
        os.truncate(fl, FLASH_BLOCK + 2 * big)
        qt, err = boot(qemu, fl, pub)
        if qt is None:
            tap('flash inputs: a 4 GiB image size in the header is refused '
                'without reading it', False,
                err or 'QEMU did not come up in %d s' % REPLY_TIMEOUT)
        else:
            try:
                f = enabled_function(qt)
                got = (qt.qom_get('nic0', 'fw-slot'), query_flash(f),
                       peak_rss_kib(qt.proc.pid))
            finally:
                qt.close()
            tap('flash inputs: a 4 GiB image size in the header is refused '
                'without reading it: slot 0 runs, slot 1 invalid, peak RSS '
                'below 1 GiB',
                got[0] == '0' and got[1] is not None and
                got[1][4] == [(SLOT_VALID, '1.1.0'), (SLOT_INVALID, None)] and
                got[2] is not None and got[2] < 1 << 20, got)

        # The same refusals when the device is plugged at run time: the
        # monitor says why, the half-built device is taken apart and
        # QEMU runs on; a good flash then plugs in.
        qt = QTest(qemu, ['-device', 'pcie-root-port,id=rp0,chassis=1,'
                          'bus=pcie.0,addr=06.0'])
        try:
            add = 'device_add ordma,bus=rp0,id=hp%d,flash=%s,fw-pubkey=%s'
            got = [qt.hmp_reply(add % (i, fl, key)) for i, (fl, key) in
                   enumerate(((bad_flash[4][1], pub),
                              (sig_flipped(good), pub),
                              (flash(good),
                               os.path.join(tmp, 'nothere.pub'))))]
            tap('flash inputs: device_add with a bad header, no bootable '
                'slot, a missing key: each refused on the monitor',
                got[0] == 'Error: flash=%s: not a flash file (bad magic)' %
                bad_flash[4][1] and
                got[1].startswith('Error: flash=') and
                'no bootable firmware' in got[1] and
                got[2].endswith('nothere.pub: cannot read the file'), got)
            got = (qt.hmp_reply(add % (9, flash(good), pub)),
                   qt.qom_get('hp9', 'fw-slot'))
            qt.hmp('quit')
            rc = qt.proc.wait(timeout=REPLY_TIMEOUT)
            tap('flash inputs: then a good flash plugs in (fw-slot 0) and '
                'QEMU quits with 0', got == ('', '0') and rc == 0,
                (got, rc))
        finally:
            qt.close()
    except (TimeoutError, RuntimeError, OSError,
            subprocess.TimeoutExpired) as err:
        tap('flash inputs: QEMU checks its flash and key at power-on', False,
            err)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
