# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""The port capture: a pcapng file of what each port sends and
receives, impairments marked, checked against the counters, tshark and
the firmware's ICRC."""

import os
import re
import socket
import struct
import subprocess
import tempfile
import time

from .common import (
    REPO, EthRx, EthTx, Function, QTest, REPLY_TIMEOUT, cabled_to,
    enabled_pair, eth_frame, host_tool, injected, port_stats, recv_frames,
    roce_frame, seqs, tap, wait_for)


PCAP_ICRC = os.path.join(REPO, 'build', 'qemu-unit', 'pcap-icrc')


def pcapng_read(path, qt=None, dev='nic0'):
    """The blocks of a little-endian pcapng file: a list of dicts (type
    'idb': snaplen, tsresol, name; 'epb': ifid, ts, caplen, origlen,
    data, dir (1 in, 2 out), comment).  With qt, dev's capture is
    written out first (reading pcap-frames does that)."""
    if qt:
        qt.qom_get(dev, 'pcap-frames')
    with open(path, 'rb') as f:
        buf = f.read()
    out, off = [], 0
    while off < len(buf):
        btype, size = struct.unpack_from('<II', buf, off)
        if size < 12 or off + size > len(buf) or \
                struct.unpack_from('<I', buf, off + size - 4)[0] != size:
            raise ValueError('bad block at %d' % off)
        body = buf[off + 8:off + size - 4]
        blk = {'type': {0x0a0d0d0a: 'shb', 1: 'idb', 6: 'epb'}.get(btype, btype)}
        if blk['type'] == 'shb':
            opts = body[16:]
        elif blk['type'] == 'idb':
            blk['linktype'], _, blk['snaplen'] = struct.unpack_from('<HHI', body)
            blk['tsresol'] = 6
            opts = body[8:]
        elif blk['type'] == 'epb':
            ifid, hi, lo, cap, orig = struct.unpack_from('<5I', body)
            blk.update(ifid=ifid, ts=hi << 32 | lo, caplen=cap, origlen=orig,
                       data=body[20:20 + cap], comment='', dir=0)
            opts = body[20 + (cap + 3) // 4 * 4:]
        else:
            opts = b''
        while len(opts) >= 4:
            code, length = struct.unpack_from('<HH', opts)
            val = opts[4:4 + length]
            if code == 0:
                break
            if code == 1:
                blk['comment'] = val.decode()
            elif blk['type'] == 'idb' and code == 2:
                blk['name'] = val.decode()
            elif blk['type'] == 'idb' and code == 9:
                blk['tsresol'] = val[0]
            elif blk['type'] == 'epb' and code == 2:
                blk['dir'] = struct.unpack('<I', val)[0] & 3
            opts = opts[4 + (length + 3) // 4 * 4:]
        out.append(blk)
        off += size
    return out


def pcap_frames(path, qt=None, dev='nic0'):
    """(direction 'in'/'out', comment, data, origlen) of every frame."""
    return [({1: 'in', 2: 'out'}.get(b['dir'], '?'), b['comment'], b['data'],
             b['origlen']) for b in pcapng_read(path, qt, dev)
            if b['type'] == 'epb']


def tshark_check(path):
    """(frames tshark read, malformed ones, exit status), or None without
    tshark."""
    try:
        res = subprocess.run(['tshark', '-n', '-r', path, '-T', 'fields',
                              '-e', 'frame.number', '-e', '_ws.malformed'],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, timeout=60)
    except FileNotFoundError:
        return None
    lines = [l.split('\t') for l in res.stdout.splitlines() if l]
    return len(lines), sum(1 for l in lines if len(l) > 1 and l[1]), \
        res.returncode


def pcap_icrc(path):
    """(exit status, last line) of pcap-icrc on path; built if missing."""
    return host_tool(PCAP_ICRC, REPO, path, 60)


def run_pcap(qemu):
    """nic0's UDP cable goes to this test, nic0 captures to a file."""
    tmp = tempfile.mkdtemp(prefix='qtest-ordma-pcap.')
    cap1, cap2 = os.path.join(tmp, 'one.pcapng'), os.path.join(tmp, 'two.pcapng')
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as peer:
        qt, port = cabled_to(qemu, peer, ['-global', 'ordma.pcap=' + cap1])
        try:
            a = Function(qt, 4, 0xe0000000, 1 << 20)
            a.map()
            a.msix_setup(8)
            a.enable()
            tx, rx = EthTx(a), EthRx(a)
            rx.post()
            tap('pcap: rings up, pcap= names the file',
                tx.ok and rx.ok and qt.qom_get('nic0', 'pcap') == '"%s"' % cap1,
                qt.qom_get('nic0', 'pcap'))

            # ---- what the port sends and receives, in order, as it was
            inbound = [eth_frame(100 + i, src='5254004f5209') for i in range(5)]
            for frame in inbound:
                peer.sendto(frame, ('127.0.0.1', port))
            got_in = wait_for(lambda: rx.frame_in(inbound[-1]))
            outbound = [eth_frame(i) for i in range(6)]
            tx.send(outbound)
            got = recv_frames(peer, 6)
            frames = pcap_frames(cap1, qt)
            tap('pcap: 5 frames received, 6 sent: the file holds the 11',
                got_in and got == outbound and len(frames) == 11 and
                qt.qom_get('nic0', 'pcap-frames') == '11',
                (got_in, len(got), len(frames), qt.qom_get('nic0', 'pcap-frames')))
            tap('pcap: directions and bytes as on the cable, no comments',
                [f[2] for f in frames if f[0] == 'in'] == inbound and
                [f[2] for f in frames if f[0] == 'out'] == outbound and
                not any(f[1] for f in frames), [f[:2] for f in frames])
            blocks = pcapng_read(cap1, qt)
            idb = [b for b in blocks if b['type'] == 'idb']
            tap('pcap: one Ethernet interface named nic0, ns timestamps, no '
                'snap length', blocks[0]['type'] == 'shb' and len(idb) == 1 and
                idb[0]['linktype'] == 1 and idb[0].get('name') == 'nic0' and
                idb[0]['tsresol'] == 9 and idb[0]['snaplen'] == 0, idb)
            ts = [b['ts'] for b in blocks if b['type'] == 'epb']
            tap('pcap: timestamps are wall clock ns, in order',
                ts == sorted(ts) and abs(ts[-1] / 1e9 - time.time()) < 60,
                ts[-1] / 1e9 - time.time())
            st = port_stats(a)
            tap('pcap: frames out = the port\'s tx_frames, in = rx_frames',
                st and st[0] == 6 and st[2] == 5, st and st[:4])

            # ---- each impairment, marked on the frame it befell
            def burst(props, frames, expect):
                for k, v in props.items():
                    qt.qom_set('nic0', k, v)
                before = len(pcap_frames(cap1, qt))
                tx.send(frames)
                got = recv_frames(peer, expect)
                for k in props:
                    qt.qom_set('nic0', k, 0)
                return got, pcap_frames(cap1, qt)[before:]

            got, new = burst({'wire-loss-ppm': 1000000},
                             [eth_frame(200 + i) for i in range(3)], 0)
            tap('pcap: loss: the 3 lost frames are in the file, marked "loss"',
                not got and [(f[0], f[1]) for f in new] == [('out', 'loss')] * 3 and
                seqs([f[2] for f in new]) == [200, 201, 202], new)
            got, new = burst({'wire-dup-ppm': 1000000},
                             [eth_frame(300), eth_frame(301)], 4)
            tap('pcap: dup: both copies in the file, the second marked "dup"',
                seqs(got) == [300, 300, 301, 301] and
                [(seqs([f[2]])[0], f[1]) for f in new] ==
                [(300, ''), (300, 'dup'), (301, ''), (301, 'dup')], new)
            got, new = burst({'wire-reorder-ppm': 1000000},
                             [eth_frame(400), eth_frame(401), eth_frame(402)], 3)
            tap('pcap: reorder: frames in the order they left, the overtaken '
                'one marked "reorder", the last "late 200 us"',
                seqs(got) == [401, 400, 402] and
                [(seqs([f[2]])[0], f[1]) for f in new] ==
                [(401, ''), (400, 'reorder'), (402, 'late 200 us')], new)
            got, new = burst({'wire-delay-us': 20000}, [eth_frame(500)], 1)
            tap('pcap: delay: marked "delay 20000 us"',
                seqs(got) == [500] and [f[1] for f in new] == ['delay 20000 us'],
                new)
            tx.send([roce_frame(0x123, 6, bytes(range(64)))])
            recv_frames(peer, 1)
            clean = roce_frame(0x123, 7, bytes(range(64)))
            got, new = burst({'wire-corrupt-ppm': 1000000}, [clean], 1)
            m = re.match(r'corrupt bit (\d+)$', new[0][1]) if len(new) == 1 else None
            bit = int(m.group(1)) if m else -1
            ok = m and len(got) == 1 and new[0][2] == got[0]
            tap('pcap: corrupt: the frame as it left, marked "corrupt bit N"; '
                'bit N is the one flipped',
                ok and got[0][bit // 8] ^ clean[bit // 8] == 1 << (bit % 8) and
                bit >= 8 * (14 + 20 + 8 + 12), (new, bit))
            frames = pcap_frames(cap1, qt)
            marks = [f[1] for f in frames]
            n = injected(qt, 'nic0')
            st = port_stats(a)
            sent_frames = [f for f in frames if f[0] == 'out' and f[1] != 'loss']
            tap('pcap: marks = wire-injected-* counters; frames out = tx_frames '
                '+ dup - loss',
                marks.count('loss') == n['loss'] == 3 and
                marks.count('dup') == n['dup'] == 2 and
                marks.count('reorder') == n['reorder'] == 1 and
                sum(1 for c in marks if c.startswith('delay')) == n['delay'] == 1 and
                sum(1 for c in marks if c.startswith('corrupt')) == n['corrupt'] == 1 and
                st and len(sent_frames) == st[0] + n['dup'] - n['loss'],
                (n, st and st[0], len(sent_frames)))

            # ---- a marker: no direction, a comment, not counted as a frame
            nframes = qt.qom_get('nic0', 'pcap-frames')
            out = qt.qom_set('nic0', 'pcap-mark', 'selftest_x')
            blocks = pcapng_read(cap1, qt)
            last = blocks[-1]
            tap('pcap: pcap-mark writes a marker frame with no direction, '
                'commented "mark: selftest_x"',
                out == '' and last['type'] == 'epb' and last['dir'] == 0 and
                last['comment'] == 'mark: selftest_x' and
                last['data'][12:24] == b'\x88\xb5selftest_x' and
                qt.qom_get('nic0', 'pcap-frames') == nframes, (out, last))
            frames = pcap_frames(cap1, qt)

            # ---- the file reads back in tshark; the ICRC checker agrees
            ts = tshark_check(cap1)
            tap('pcap: tshark reads every frame, none malformed',
                ts is None or (ts[0] == len(frames) and ts[1] == 0 and ts[2] == 0),
                ts if ts is not None else 'no tshark')
            rc, line = pcap_icrc(cap1)
            tap('pcap: pcap-icrc: of 2 RoCEv2 frames the one marked corrupt has '
                'a bad ICRC, the other a good one; it counts the marks',
                rc == 0 and 'RoCEv2 out 2: ICRC 1 good, 1 bad, 0 bad not '
                'marked corrupt, 0 marked corrupt but good' in line and
                line.endswith('marks: 3 loss, 1 reorder, 2 dup, 1 corrupt, '
                              '1 delay'), (rc, line))

            # ---- run time: snap length, another file, none
            out = qt.qom_set('nic0', 'pcap-snaplen', 20)
            tx.send([eth_frame(600)])
            recv_frames(peer, 1)
            blocks = pcapng_read(cap1, qt)
            idb = [b for b in blocks if b['type'] == 'idb']
            last = blocks[-1]
            tap('pcap: qom-set pcap-snaplen 20: a new interface with snaplen 20, '
                'the next frame cut to 20 bytes, its length kept',
                out == '' and len(idb) == 2 and idb[1]['snaplen'] == 20 and
                last['type'] == 'epb' and last['ifid'] == 1 and
                last['caplen'] == 20 and last['origlen'] == 60 and
                last['data'] == eth_frame(600)[:20], (out, idb, last))
            qt.qom_set('nic0', 'pcap-snaplen', 0)
            size1 = os.path.getsize(cap1)
            out = qt.qom_set('nic0', 'pcap', os.path.join(tmp, 'no', 'such', 'dir'))
            tap('pcap: a file that cannot be created is refused; the capture '
                'goes on', 'Could not create' in out and
                qt.qom_get('nic0', 'pcap') == '"%s"' % cap1 and
                os.path.getsize(cap1) == size1, out)
            out = qt.qom_set('nic0', 'pcap', cap2)
            tx.send([eth_frame(700), eth_frame(701)])
            recv_frames(peer, 2)
            tap('pcap: qom-set pcap to another file: the first is closed, the '
                'second gets the next frames',
                out == '' and os.path.getsize(cap1) == size1 and
                [seqs([f[2]])[0] for f in pcap_frames(cap2, qt)] == [700, 701] and
                qt.qom_get('nic0', 'pcap-frames') == '2', out)
            out = qt.hmp_reply('qom-set -j /machine/peripheral/nic0 pcap ""')
            size2 = os.path.getsize(cap2)
            tx.send([eth_frame(800)])
            recv_frames(peer, 1)
            tap('pcap: qom-set pcap "": capture off',
                out == '' and qt.qom_get('nic0', 'pcap') == '""' and
                os.path.getsize(cap2) == size2 and
                qt.qom_get('nic0', 'pcap-frames') == '0',
                (out, qt.qom_get('nic0', 'pcap')))
        except (TimeoutError, RuntimeError, ValueError, subprocess.TimeoutExpired) as err:
            tap('pcap: device model captures its port', False, err)
        finally:
            qt.close()
            for f in os.listdir(tmp):
                os.unlink(os.path.join(tmp, f))
            os.rmdir(tmp)


def run_pcap_local(qemu):
    """Two ports cabled in memory, each capturing: what a sends is what b
    receives; PAUSE frames are captured too."""
    tmp = tempfile.mkdtemp(prefix='qtest-ordma-pcap.')
    ca, cb = os.path.join(tmp, 'a.pcapng'), os.path.join(tmp, 'b.pcapng')
    qt = QTest(qemu, [
        '-device', 'ordma,addr=04.0,id=nic0,mac=52:54:00:4f:52:01,cable-to=nic1,'
                   'pcap=' + ca,
        '-device', 'ordma,addr=05.0,id=nic1,mac=52:54:00:4f:52:02,cable-to=nic0,'
                   'pcap=' + cb])
    try:
        a, b = enabled_pair(qt)
        tx, rx = EthTx(a), EthRx(b)
        rx.post()
        frames = [eth_frame(i) for i in range(8)]
        tx.send(frames)
        ok = wait_for(lambda: rx.frame_in(frames[-1]))
        t0 = time.time()
        tap('pcap local: the buffered frames reach the file on their own '
            '(flush timer, 100 ms)',
            wait_for(lambda: len(pcap_frames(ca)) == 8 and len(pcap_frames(cb)) == 8),
            time.time() - t0)
        fa, fb = pcap_frames(ca, qt, 'nic0'), pcap_frames(cb, qt, 'nic1')
        tap('pcap local: a\'s file: 8 out; b\'s file: the same 8 in',
            ok and [(f[0], f[2]) for f in fa] == [('out', x) for x in frames] and
            [(f[0], f[2]) for f in fb] == [('in', x) for x in frames],
            ([f[:2] for f in fa], [f[:2] for f in fb]))
        st = port_stats(b)
        tap('pcap local: b\'s rx_frames = frames in its file',
            st and st[2] == len(fb) and
            qt.qom_get('nic1', 'pcap-frames') == str(len(fb)), st and st[:4])
        more = [eth_frame(100 + i) for i in range(4)]
        rx.post()
        tx.send(more)
        qt.hmp('quit')
        qt.proc.wait(timeout=REPLY_TIMEOUT)
        fa = pcap_frames(ca)
        tap('pcap local: QEMU quits: what was buffered is in the file',
            [f[2] for f in fa] == frames + more, len(fa))
    except (TimeoutError, RuntimeError, ValueError) as err:
        tap('pcap local: device model captures a cable in memory', False, err)
    finally:
        qt.close()
        for f in os.listdir(tmp):
            os.unlink(os.path.join(tmp, f))
        os.rmdir(tmp)
