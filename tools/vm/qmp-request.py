#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""Carry out one request of a test guest on its QEMU over QMP.

Usage: qmp-request.py SOCKET REQUEST...
  quit            end QEMU as its monitor's "quit" does
  device_del ID   unplug device ID and wait until QEMU reports it gone
                  (the guest's driver must release it first)
  pcap-mark TEXT  a marker with TEXT in the capture of every ORDMA port
                  (the device's pcap-mark property)
  pcap-set DIR [ID...]  every ORDMA port (or those named) captures to
                  DIR/<id>.pcapng (a new file); "pcap-set off" ends every
                  capture

Prints what QEMU answered; exits 0 when the request was carried out.
"""

import json
import socket
import sys
import time

REPLY_TIMEOUT = 30
UNPLUG_TIMEOUT = 180


class Qmp:
    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.file = self.sock.makefile('r')
        self.events = []
        self.read(REPLY_TIMEOUT)                  # greeting
        self.execute('qmp_capabilities')

    def read(self, timeout):
        self.sock.settimeout(timeout)
        line = self.file.readline()
        if not line:
            raise EOFError('QEMU closed the monitor')
        return json.loads(line)

    def execute(self, cmd, **args):
        msg = {'execute': cmd}
        if args:
            msg['arguments'] = args
        self.sock.sendall(json.dumps(msg).encode() + b'\n')
        while True:
            reply = self.read(REPLY_TIMEOUT)
            if 'event' in reply:
                self.events.append(reply)
                continue
            if 'error' in reply:
                raise RuntimeError('%s: %s' % (cmd, reply['error'].get('desc')))
            return reply.get('return')

    def wait_event(self, name, match, timeout):
        deadline = time.time() + timeout
        while True:
            for ev in self.events:
                if ev['event'] == name and match(ev.get('data', {})):
                    return ev
            self.events.clear()
            left = deadline - time.time()
            if left <= 0:
                raise TimeoutError('no %s within %d s' % (name, timeout))
            self.events.append(self.read(left))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    qmp = Qmp(sys.argv[1])
    req = sys.argv[2:]
    if req == ['quit']:
        qmp.execute('quit')
        print('quit')
    elif len(req) == 2 and req[0] == 'device_del':
        dev = req[1]
        qmp.execute('device_del', id=dev)
        qmp.wait_event('DEVICE_DELETED', lambda d: d.get('device') == dev,
                       UNPLUG_TIMEOUT)
        print('device %s deleted' % dev)
    elif len(req) >= 2 and req[0] in ('pcap-mark', 'pcap-set'):
        arg = ' '.join(req[1:]) if req[0] == 'pcap-mark' else req[1]
        only = set(req[2:]) if req[0] == 'pcap-set' else set()
        done = []
        for dev in qmp.execute('qom-list', path='/machine/peripheral'):
            if dev.get('type') != 'child<ordma>':
                continue
            if only and dev['name'] not in only:
                continue
            path = '/machine/peripheral/' + dev['name']
            if req[0] == 'pcap-mark':
                qmp.execute('qom-set', path=path, property='pcap-mark', value=arg)
            else:
                qmp.execute('qom-set', path=path, property='pcap',
                            value='' if arg == 'off' else
                            '%s/%s.pcapng' % (arg, dev['name']))
            done.append(dev['name'])
        print('%s %s' % ('marked' if req[0] == 'pcap-mark' else 'capture ' + arg,
                         ' '.join(done)) if done else 'no ordma device')
    else:
        sys.exit('unknown request: %s' % ' '.join(req))


if __name__ == '__main__':
    try:
        main()
    except (OSError, EOFError, RuntimeError, TimeoutError, ValueError) as err:
        sys.exit('qmp-request: %s' % err)
