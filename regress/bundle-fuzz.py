# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# bundle-fuzz.py SRC DEST COUNT SEED: COUNT hostile variants of the bundle
# SRC (the example extension) as DEST/b0 .. DEST/bN-1, for
# regress/badinput.sh, and one line per variant on stdout naming the trick
# ("b17 fifo-module").  Tricks, the heavy ones once each: mutated, random and oversized manifests,
# modules and review files; symlinks out of the bundle, to themselves and
# over directories; FIFOs, sockets and (as root) device nodes where files
# belong; a sparse file of 4 GiB; a deep tree; many files; unreadable
# files.  The same SEED makes the same bundles.
import os
import random
import shutil
import socket
import stat
import sys

src, dest, count, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), \
    int(sys.argv[4])
rng = random.Random(seed)
MANIFEST = "manifest.json"
MODULE = "gate-providers/example.mjs"
REVIEW = "gate-providers/example-review.json"
TOKENS = [b"{", b"}", b"[", b"]", b'"', b":", b",", b"\\", b"\\u0000",
          b"\\ud800", b"null", b"1e999", b"-0", b"\xff", b"\xc0\x80",
          b"\n", b"\0", b'"../../etc/passwd"', b'"/etc/passwd"',
          b'"gate-providers/../../x.mjs"', b"[" * 2000, b'"' + b"a" * 70000
          + b'"', b'"__proto__"', b'"constructor"', b"18446744073709551617"]


def mutate(data):
    data = bytearray(data)
    for _ in range(rng.randint(1, 5)):
        pos = rng.randint(0, len(data))
        op = rng.randrange(5)
        if op == 0 and data:
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        elif op == 1:
            data[pos:pos] = rng.choice(TOKENS)
        elif op == 2:
            del data[pos:]
        elif op == 3:
            del data[pos:pos + rng.randint(1, 40)]
        else:
            data[pos:pos] = bytes(rng.randrange(256)
                                  for _ in range(rng.randint(1, 32)))
    return bytes(data)


def rand_json(depth=0):
    k = rng.randrange(7 if depth < 6 else 4)
    if k == 0:
        return None
    if k == 1:
        return rng.choice([0, -1, 1e308, 2 ** 64, 0.5])
    if k == 2:
        return "".join(chr(rng.randrange(1, 0x2ff)) for _ in
                       range(rng.randint(0, 40)))
    if k == 3:
        return rng.random() < 0.5
    if k == 4:
        return [rand_json(depth + 1) for _ in range(rng.randint(0, 5))]
    keys = ["id", "version", "type", "manifestVersion", "gateProviders",
            "module", "reviewFile", "description", "x"]
    return {rng.choice(keys): rand_json(depth + 1)
            for _ in range(rng.randint(0, 6))}


def replace(path, how):
    if os.path.lexists(path):
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        else:
            os.unlink(path)
    how(path)


def fifo(p):
    os.mkfifo(p)


def sock(p):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(p)
    s.close()


def device(p):
    # /dev/zero's numbers: reading it never ends.
    os.mknod(p, 0o644 | stat.S_IFCHR, os.makedev(1, 5))


def huge(p):
    with open(p, "wb") as f:
        f.truncate(4 << 30)


def write(p, data):
    with open(p, "wb") as f:
        f.write(data)


# Tricks that cost disk time (thousands of files, megabytes) come once
# each, first; the cheap ones are drawn at random for the rest.
HEAVY = ["many-files", "deep-tree", "huge-manifest", "sparse-module"]


def trick(b, i):
    root = os.geteuid() == 0
    names = ["mutate-manifest", "random-manifest", "mutate-module",
             "mutate-review", "random-review", "symlink-manifest",
             "symlink-module-out", "symlink-dir", "symlink-loop",
             "fifo-manifest", "fifo-module", "fifo-review",
             "socket-module", "unreadable-module", "module-is-dir",
             "empty-manifest", "manifest-module-escape",
             "dangling-symlink"]
    # mknod needs CAP_MKNOD: device nodes only in the root pass.
    if root:
        names += ["device-module", "device-manifest"]
    t = HEAVY[i] if i < len(HEAVY) else rng.choice(names)
    m, mod, rev = (os.path.join(b, x) for x in (MANIFEST, MODULE, REVIEW))
    if t == "mutate-manifest":
        write(m, mutate(open(m, "rb").read()))
    elif t == "random-manifest":
        import json
        write(m, json.dumps(rand_json()).encode())
    elif t == "mutate-module":
        write(mod, mutate(open(mod, "rb").read()))
    elif t == "mutate-review":
        write(rev, mutate(open(rev, "rb").read()))
    elif t == "random-review":
        import json
        write(rev, json.dumps(rand_json()).encode())
    elif t == "huge-manifest":
        write(m, b'{"id":"' + b"x" * (1 << 20) + b'"}')
    elif t == "symlink-manifest":
        replace(m, lambda p: os.symlink("/etc/passwd", p))
    elif t == "symlink-module-out":
        replace(mod, lambda p: os.symlink("../../../../../../etc/passwd",
                                          p))
    elif t == "symlink-dir":
        replace(os.path.join(b, "gate-providers"),
                lambda p: os.symlink("/etc", p))
    elif t == "symlink-loop":
        replace(mod, lambda p: os.symlink("example.mjs", p))
    elif t == "fifo-manifest":
        replace(m, fifo)
    elif t == "fifo-module":
        replace(mod, fifo)
    elif t == "fifo-review":
        replace(rev, fifo)
    elif t == "socket-module":
        replace(mod, sock)
    elif t == "sparse-module":
        replace(mod, huge)
    elif t == "device-module":
        replace(mod, device)
    elif t == "device-manifest":
        replace(m, device)
    elif t == "deep-tree":
        d = os.path.join(b, "gate-providers")
        for i in range(300):
            d = os.path.join(d, "d")
            try:
                os.mkdir(d)
            except OSError:
                break
        write(os.path.join(d, "deep.mjs"), b"export const x = 1;\n")
    elif t == "many-files":
        # Just past the 4096 names a provider directory may hold.
        for i in range(4100):
            write(os.path.join(b, "gate-providers", "f%d.mjs" % i),
                  b"export const x = %d;\n" % i)
    elif t == "unreadable-module":
        os.chmod(mod, 0)
    elif t == "module-is-dir":
        replace(mod, lambda p: os.mkdir(p))
    elif t == "empty-manifest":
        write(m, b"")
    elif t == "manifest-module-escape":
        write(m, open(m, "rb").read().replace(
            b"gate-providers/example.mjs", b"../../../etc/passwd"))
    elif t == "dangling-symlink":
        replace(rev, lambda p: os.symlink("/nonexistent/review.json", p))
    return t


for i in range(count):
    b = os.path.join(dest, "b%d" % i)
    shutil.copytree(src, b, symlinks=True)
    t = trick(b, i)
    # The monitor's user must be able to walk in (it drops to nobody).
    for dirpath, dirs, files in os.walk(b):
        os.chmod(dirpath, 0o755)
    print("b%d %s" % (i, t))
