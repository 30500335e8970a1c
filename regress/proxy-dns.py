# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# proxy-dns.py PORTFILE: a name server for regress/proxy.sh on 127.0.0.1
# (an ephemeral UDP port, written to PORTFILE), so that sbx-proxy's real
# lookup path (evdns over UDP, under its filter) is exercised.  Every
# name under .dns.test has the A record 127.0.0.1 and no AAAA record;
# anything else is NXDOMAIN.
import os
import socket
import struct
import sys

s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 0))
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write("%d\n" % s.getsockname()[1])
os.rename(sys.argv[1] + ".tmp", sys.argv[1])

while True:
    q, peer = s.recvfrom(512)
    if len(q) < 12:
        continue
    qid, flags, qd = struct.unpack("!HHH", q[:6])
    i, labels = 12, []
    while i < len(q) and q[i] != 0:
        n = q[i]
        labels.append(q[i + 1:i + 1 + n].decode("ascii", "replace"))
        i += 1 + n
    qtype, qclass = struct.unpack("!HH", q[i + 1:i + 5])
    question = q[12:i + 5]
    name = ".".join(labels).lower()
    ok = name.endswith(".dns.test") or name == "dns.test"
    answers = b""
    if ok and qtype == 1:
        answers = (b"\xc0\x0c" + struct.pack("!HHIH", 1, 1, 60, 4) +
                   socket.inet_aton("127.0.0.1"))
    rcode = 0 if ok else 3
    head = struct.pack("!HHHHHH", qid, 0x8180 | rcode, 1,
                       1 if answers else 0, 0, 0)
    s.sendto(head + question + answers, peer)
