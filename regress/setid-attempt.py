#!/usr/bin/env python3
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# setid-attempt.py DIR: run inside a sandbox by regress/tenants.sh.  Tries
# every system call that can put S_ISUID or S_ISGID on a file in DIR (a
# writable mount of the host), each with the set-user-id and the
# set-group-id bit, by number so that libc's choice of call does not hide
# one.  Prints "ok NAME" when the call failed as the payload filters say
# (EPERM; ENOSYS for openat2), "bad NAME: ..." otherwise, and exits 1 on
# any "bad".  Calls without the bits (the "plain" ones) must still work.
import ctypes
import errno
import os
import struct
import sys

NR = {
    "open": 2, "creat": 85, "mkdir": 83, "chmod": 90, "fchmod": 91,
    "mknod": 133, "openat": 257, "mkdirat": 258, "mknodat": 259,
    "fchmodat": 268, "openat2": 437, "fchmodat2": 452,
}
AT_FDCWD = -100
O_WRONLY, O_CREAT, O_TMPFILE = 0o1, 0o100, 0o20200000
S_IFREG = 0o100000

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
d = sys.argv[1]
bad = 0


def call(name, *args):
    conv = []
    for a in args:
        if isinstance(a, str):
            conv.append(ctypes.c_char_p(a.encode()))
        elif isinstance(a, (bytes, ctypes.Array)):
            conv.append(a)
        else:
            conv.append(ctypes.c_long(a))
    ctypes.set_errno(0)
    r = libc.syscall(ctypes.c_long(NR[name]), *conv)
    return r, ctypes.get_errno()


def want(what, r, e, err):
    global bad
    if r == -1 and e == err:
        print("ok", what)
        return
    bad = 1
    print("bad %s: returned %d, errno %s (want %s)" % (what, r,
          errno.errorcode.get(e, e), errno.errorcode[err]))


def works(what, r, e):
    global bad
    if r >= 0:
        print("ok", what)
        if r > 2 and what.startswith(("plain open", "plain creat")):
            os.close(r)
        return
    bad = 1
    print("bad %s: errno %s (want success)" % (what,
          errno.errorcode.get(e, e)))


f = os.path.join(d, "f")
with open(f, "w") as fp:
    fp.write("x\n")
os.chmod(f, 0o755)
fd = os.open(f, os.O_RDONLY)
for bit, tag in ((0o4000, "setuid"), (0o2000, "setgid")):
    m = 0o755 | bit
    p = lambda n: os.path.join(d, "%s-%s" % (n, tag))
    want("chmod " + tag, *call("chmod", f, m), errno.EPERM)
    want("fchmod " + tag, *call("fchmod", fd, m), errno.EPERM)
    want("fchmodat " + tag, *call("fchmodat", AT_FDCWD, f, m),
         errno.EPERM)
    want("fchmodat2 " + tag, *call("fchmodat2", AT_FDCWD, f, m, 0),
         errno.EPERM)
    want("open O_CREAT " + tag, *call("open", p("open"),
         O_WRONLY | O_CREAT, m), errno.EPERM)
    want("open O_TMPFILE " + tag, *call("open", d, O_WRONLY | O_TMPFILE,
         m), errno.EPERM)
    want("openat O_CREAT " + tag, *call("openat", AT_FDCWD, p("openat"),
         O_WRONLY | O_CREAT, m), errno.EPERM)
    want("openat O_TMPFILE " + tag, *call("openat", AT_FDCWD, d,
         O_WRONLY | O_TMPFILE, m), errno.EPERM)
    want("creat " + tag, *call("creat", p("creat"), m), errno.EPERM)
    want("mkdir " + tag, *call("mkdir", p("mkdir"), 0o775 | bit),
         errno.EPERM)
    want("mkdirat " + tag, *call("mkdirat", AT_FDCWD, p("mkdirat"),
         0o775 | bit), errno.EPERM)
    want("mknod " + tag, *call("mknod", p("mknod"), S_IFREG | m, 0),
         errno.EPERM)
    want("mknodat " + tag, *call("mknodat", AT_FDCWD, p("mknodat"),
         S_IFREG | m, 0), errno.EPERM)
    how = ctypes.create_string_buffer(struct.pack("QQQ",
                                                  O_WRONLY | O_CREAT, m, 0))
    want("openat2 " + tag, *call("openat2", AT_FDCWD, p("openat2"), how,
         24), errno.ENOSYS)
# File capabilities: a VFS_CAP_REVISION_2 xattr granting CAP_SETUID.
try:
    os.setxattr(f, "security.capability",
                struct.pack("<IIIII", 0x02000001, 1 << 7, 0, 0, 0))
    bad = 1
    print("bad setxattr security.capability: it worked")
except OSError as ex:
    if ex.errno == errno.EPERM:
        print("ok setxattr security.capability")
    else:
        bad = 1
        print("bad setxattr security.capability: %s" % ex)
# The same calls without the bits are untouched.
works("plain chmod", *call("chmod", f, 0o750))
works("plain fchmod", *call("fchmod", fd, 0o755))
works("plain fchmodat", *call("fchmodat", AT_FDCWD, f, 0o755))
works("plain open", *call("open", os.path.join(d, "o"),
      O_WRONLY | O_CREAT, 0o755))
works("plain openat", *call("openat", AT_FDCWD, os.path.join(d, "oa"),
      O_WRONLY | O_CREAT, 0o755))
works("plain creat", *call("creat", os.path.join(d, "c"), 0o755))
works("plain mkdir", *call("mkdir", os.path.join(d, "dd"), 0o1777))
works("plain mknod", *call("mknod", os.path.join(d, "n"),
      S_IFREG | 0o755, 0))
os.close(fd)
sys.exit(bad)
