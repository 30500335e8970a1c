#!/usr/bin/env python3
# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# pty-driver.py: drives `sbxctl run -T` the way a person at a terminal
# would, for regress/pty.sh.  sbxctl runs on a pty of ours (its session's
# controlling terminal, so SIGWINCH reaches it), with bash --norc -i in
# the sandbox.  Each step waits for what bash prints; a wait that ends
# without it fails with what came so far.  The waits are upper bounds
# for a loaded machine, never the thing measured.
#
#   pty-driver.py SBXCTL SOCKET interactive
#       prompt, tty, /dev/tty, script(1) opening a pty of its own, stty
#       size at start and after a resize, ^C ending a
#       foreground sleep with the shell surviving, ^Z and fg, TIOCSTI
#       refused, exit status, and our terminal's modes restored after.
#   pty-driver.py SBXCTL SOCKET killed
#       sbxctl killed by SIGKILL while bash runs: the modes come back.
#   pty-driver.py SBXCTL SOCKET timeout
#       sbxctl run -T -t 3: the timeout ends it and the modes come back.
#   pty-driver.py SBXCTL SOCKET monitor PID
#       the monitor (PID) killed while bash runs: sbxctl ends with 125
#       and the modes come back.
#
# Prints "ok WHAT" per check; exits 1 with "FAIL: ..." on the first
# failure.
import fcntl
import os
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time

WAIT = 30.0


def fail(msg, got=b""):
    sys.stdout.write("FAIL: %s\n" % msg)
    if got:
        sys.stdout.write("--- output so far ---\n%r\n" % got[-2000:])
    sys.stdout.flush()
    sys.exit(1)


def ok(what):
    sys.stdout.write("ok %s\n" % what)
    sys.stdout.flush()


def setsize(fd, rows, cols):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols,
                                                    0, 0))


def modes(slave):
    """stty -g of our pty, as a shell would check it."""
    return subprocess.run(["stty", "-g"], stdin=slave, capture_output=True,
                          check=True).stdout.strip()


class Session:
    def __init__(self, sbxctl, sock, extra):
        self.master, self.slave = os.openpty()
        setsize(self.master, 30, 100)
        self.before = modes(self.slave)

        def child():
            os.setsid()
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)

        self.proc = subprocess.Popen(
            [sbxctl, "-s", sock, "run", "-T"] + extra +
            ["--", "/bin/bash", "--norc", "--noprofile", "-i"],
            stdin=self.slave, stdout=self.slave, stderr=self.slave,
            preexec_fn=child, close_fds=True)
        self.buf = b""

    def send(self, data):
        os.write(self.master, data)

    def expect(self, pattern, what, wait=WAIT, soft=False):
        rx = re.compile(pattern)
        end = time.monotonic() + wait
        while True:
            m = rx.search(self.buf)
            if m:
                self.buf = self.buf[m.end():]
                return m
            left = end - time.monotonic()
            if left <= 0:
                if soft:
                    return None
                fail("%s: no %r" % (what, pattern), self.buf)
            r, _, _ = select.select([self.master], [], [], left)
            if r:
                try:
                    data = os.read(self.master, 4096)
                except OSError:
                    data = b""
                if not data:
                    fail("%s: EOF before %r" % (what, pattern), self.buf)
                self.buf += data

    def interrupt(self, what):
        # ^C until the prompt is back: one that lands while bash itself
        # still holds the foreground (between fg's message and its
        # handing over the terminal) is bash's, not the job's.
        for _ in range(int(WAIT)):
            self.send(b"\x03")
            if self.expect(rb"SBX> ", what, 1.0, True):
                return
        fail("%s: no prompt after ^C" % what, self.buf)

    def prompt(self, what):
        # The prompt's text is split in the command that sets it, so
        # the echo of that command does not match.
        self.expect(rb"SBX> ", what)

    def cmd(self, line, what):
        self.send(line.encode() + b"\r")
        self.prompt(what)

    def wait(self):
        end = time.monotonic() + WAIT
        while self.proc.poll() is None:
            if time.monotonic() > end:
                self.proc.kill()
                fail("sbxctl did not exit", self.buf)
            # Keep reading, so nothing blocks on a full pty.
            r, _, _ = select.select([self.master], [], [], 0.1)
            if r:
                try:
                    self.buf += os.read(self.master, 4096)
                except OSError:
                    pass
        return self.proc.returncode

    def restored(self, what):
        # A killed sbxctl's guardian restores the modes a moment after.
        end = time.monotonic() + WAIT
        while modes(self.slave) != self.before:
            if time.monotonic() > end:
                fail("%s: terminal modes %s, were %s" %
                     (what, modes(self.slave), self.before))
            time.sleep(0.05)
        ok("modes restored after " + what)

    def start(self):
        self.send(b"PS1='SB''X> '\r")
        self.prompt("first prompt")
        ok("prompt")


def interactive(sbxctl, sock):
    s = Session(sbxctl, sock, [])
    s.start()
    if modes(s.slave) == s.before:
        fail("our terminal is not in raw mode while sbxctl runs")
    ok("raw mode while running")
    s.send(b"tty\r")
    s.expect(rb"/dev/pts/[0-9]+\r\n", "tty")
    s.prompt("after tty")
    ok("tty names a /dev/pts/N")
    s.send(b"echo dev''tty-ok > /dev/tty\r")
    s.expect(rb"devtty-ok\r\n", "/dev/tty")
    s.prompt("after /dev/tty")
    ok("/dev/tty is the pty")
    # A pty of the payload's own, from the sandbox's devpts.
    s.send(b"if command -v script >/dev/null; then script -qc "
           b"'echo in''ner=$(tty)' /dev/null; else echo in''ner=none; fi\r")
    m = s.expect(rb"inner=(/dev/pts/[0-9]+|none)", "script")
    s.prompt("after script")
    ok("script opened a pty" if m.group(1) != b"none" else
       "script: not installed, not tried")
    s.send(b"stty size\r")
    s.expect(rb"30 100\r\n", "stty size at start")
    s.prompt("after stty size")
    ok("window size at start")
    setsize(s.master, 40, 120)
    os.kill(s.proc.pid, signal.SIGWINCH)
    # The resize travels monitor, launcher, pid 1: ask until it is there.
    end = time.monotonic() + WAIT
    while True:
        s.send(b"stty size\r")
        m = s.expect(rb"([0-9]+ [0-9]+)\r\n", "stty size after resize")
        s.prompt("after stty size")
        if m.group(1) == b"40 120":
            break
        if time.monotonic() > end:
            fail("resize: still %r" % m.group(1))
        time.sleep(0.1)
    ok("resize seen by stty size")
    # The job says when it runs, so the keys reach it, not bash.
    job = b"sh -c 'echo run''ning; exec sleep 60'\r"
    s.send(job)
    s.expect(rb"running\r\n", "job start")
    s.send(b"\x03")
    s.prompt("^C")
    s.send(b"echo st=$?\r")
    s.expect(rb"st=130", "status after ^C")
    s.prompt("after ^C")
    ok("^C ended the foreground job, the shell survived")
    s.send(job)
    s.expect(rb"running\r\n", "job start")
    s.send(b"\x1a")
    s.expect(rb"Stopped", "^Z")
    s.prompt("after ^Z")
    s.send(b"jobs\r")
    s.expect(rb"\[1\]\+ +Stopped", "jobs")
    s.prompt("after jobs")
    ok("^Z stopped the job")
    s.send(b"fg\r")
    s.expect(rb"sleep 60'?\r\n", "fg")
    s.interrupt("^C after fg")
    s.send(b"echo st=$? jobs=$(jobs | wc -l)\r")
    s.expect(rb"st=130 jobs=0", "after fg and ^C")
    s.prompt("after fg")
    ok("fg resumed it in the foreground")
    # The marker is split, so the echo of the command does not match.
    s.send(b"python3 -c 'import fcntl, termios\n"
           b"try:\n fcntl.ioctl(0, termios.TIOCSTI, b\"x\"); "
           b"print(\"st\" \"i=ok\")\n"
           b"except OSError as e: print(\"st\" \"i=%d\" % e.errno)'\r")
    m = s.expect(rb"sti=([a-z0-9]+)", "TIOCSTI")
    if m.group(1) != b"1":
        fail("TIOCSTI: %r, not EPERM (1)" % m.group(1))
    s.prompt("after TIOCSTI")
    ok("TIOCSTI refused")
    s.send(b"exit 7\r")
    rc = s.wait()
    if rc != 7:
        fail("exit status %d, not 7" % rc, s.buf)
    ok("exit status")
    s.restored("a normal exit")


def killed(sbxctl, sock):
    s = Session(sbxctl, sock, [])
    s.start()
    os.kill(s.proc.pid, signal.SIGKILL)
    s.proc.wait()
    s.restored("a killed sbxctl")


def timeout(sbxctl, sock):
    s = Session(sbxctl, sock, ["-t", "3"])
    # No prompt needed (a slow start may not get that far in 3 s): raw
    # mode is on before the sandbox starts, and must be off after.
    end = time.monotonic() + WAIT
    while modes(s.slave) == s.before:
        if s.proc.poll() is not None or time.monotonic() > end:
            fail("timeout: sbxctl never put the terminal in raw mode")
        time.sleep(0.02)
    rc = s.wait()
    # sbxctl(1): 124 when the sandbox's time ran out.
    if rc != 124:
        fail("timeout: exit status %d, not 124" % rc, s.buf)
    ok("timeout ended it")
    s.restored("a timeout")


def monitor_killed(sbxctl, sock, pid):
    s = Session(sbxctl, sock, [])
    s.start()
    os.kill(pid, signal.SIGKILL)
    rc = s.wait()
    # sbxctl(1): 125, sbx's own failure (the monitor went away).
    if rc != 125:
        fail("killed monitor: exit status %d, not 125" % rc, s.buf)
    ok("a killed monitor ended it")
    s.restored("a killed monitor")


def main():
    if len(sys.argv) == 5 and sys.argv[3] == "monitor":
        monitor_killed(sys.argv[1], sys.argv[2], int(sys.argv[4]))
        return
    if len(sys.argv) != 4:
        fail("usage: pty-driver.py SBXCTL SOCKET interactive|killed|timeout"
             " | monitor PID")
    {"interactive": interactive, "killed": killed,
     "timeout": timeout}[sys.argv[3]](sys.argv[1], sys.argv[2])


main()
