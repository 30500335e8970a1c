#!/usr/bin/env python3
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# fdpass.py: a raw control client for regress/tenants.sh (issue 20) that
# passes the monitor a descriptor the way a hostile tenant would.
#
#   fdpass.py SOCKET TYPE JSON PATH MODE [COUNT]
#
# Says hello, then sends request TYPE (a number, libsbx/sbx.h) with the
# payload JSON and a descriptor of PATH opened with MODE: "r" (O_RDONLY),
# "dir" (O_RDONLY | O_DIRECTORY) or "path" (O_PATH).  COUNT (default 1)
# sends the request that many times on the same connection.  Prints the
# first reply to each request as "ok TYPE" or "error CODE MESSAGE", one
# line each, and stops at the first error that closes the connection.
# The frame: type, len (| 0x80000000 when a descriptor rides along),
# peerid (the request id), pid; all native 32-bit.
import json
import os
import socket
import struct
import sys

FD_MARK = 0x80000000


def frame(typ, rid, payload):
    data = json.dumps(payload).encode()
    return struct.pack("=IIII", typ, 16 + len(data), rid, 0), data


def send(s, typ, rid, payload, fd=None):
    hdr, data = frame(typ, rid, payload)
    if fd is None:
        s.sendall(hdr + data)
        return
    t, ln, p, pid = struct.unpack("=IIII", hdr)
    hdr = struct.pack("=IIII", t, ln | FD_MARK, p, pid)
    socket.send_fds(s, [hdr + data], [fd])


def recv(s, buf):
    while len(buf) < 16 or len(buf) < struct.unpack("=IIII", buf[:16])[1]:
        chunk = s.recv(65536)
        if not chunk:
            return None, buf
        buf += chunk
    typ, ln, rid, _ = struct.unpack("=IIII", buf[:16])
    body = json.loads(buf[16:ln] or b"{}")
    return (typ, rid, body), buf[ln:]


def main():
    sock, typ, payload, path, mode = sys.argv[1:6]
    count = int(sys.argv[6]) if len(sys.argv) > 6 else 1
    flags = {"r": os.O_RDONLY, "dir": os.O_RDONLY | os.O_DIRECTORY,
             "path": os.O_PATH}[mode]
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(120)
    s.connect(sock)
    buf = b""
    send(s, 1, 1, {"version": 1, "client": "fdpass"})
    msg, buf = recv(s, buf)
    if msg is None or msg[0] == 0xffff:
        print("hello failed: %r" % (msg,))
        return 1
    for i in range(count):
        fd = os.open(path, flags | os.O_CLOEXEC)
        try:
            send(s, int(typ), 2 + i, json.loads(payload), fd)
        except OSError as e:
            print("send failed: %s" % e)
            return 0
        finally:
            # Our own close: the daemon's FLUSH stalls us, not the
            # monitor, and the test releases it at the end.
            pass
        msg, buf = recv(s, buf)
        if msg is None:
            print("closed")
            return 0
        if msg[0] == 0xffff:
            print("error %s %s" % (msg[2].get("code"), msg[2].get("message")))
        else:
            print("ok %d" % msg[0])
        sys.stdout.flush()
    return 0


sys.exit(main())
