# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# proxy-upstream.py PORTFILE: the upstream HTTP server of regress/proxy.sh,
# on 127.0.0.1 (an ephemeral port, written to PORTFILE).  HTTP/1.1 with
# keep-alive.  GET /... echoes the path and the request's headers;
# /chunked/... answers the same in 7-byte chunks; /big/N sends N bytes;
# /stale/... answers the first request on a connection and closes
# at the second without answering; /hang never answers; /bad answers with two Content-Lengths.  POST and
# PUT echo the body, read by Content-Length or chunked (POST /stall only
# after 3 seconds).
import http.server
import socketserver
import sys
import time


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, body, chunked=False):
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for i in range(0, len(body), 7):
                part = body[i:i + 7]
                self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
            self.wfile.write(b"0\r\n\r\n")
            return
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_GET(self):
        if self.path.startswith("/big/"):
            self.answer(b"x" * int(self.path[5:]))
        elif self.path.startswith("/stale"):
            # The first request on a connection is answered and kept
            # alive; a second one finds the connection closed, as if
            # its idle timeout had struck just then.
            if getattr(self, "stale_seen", False):
                self.close_connection = True
                return
            self.stale_seen = True
            head = "".join("%s: %s\n" % kv for kv in self.headers.items())
            self.answer(("path %s\n%s" % (self.path, head)).encode())
        elif self.path == "/hang":
            time.sleep(30)
        elif self.path == "/bad":
            self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n"
                             b"Content-Length: 2\r\n\r\nab")
            self.close_connection = True
        else:
            head = "".join("%s: %s\n" % kv for kv in self.headers.items())
            body = ("path %s\n%s" % (self.path, head)).encode()
            self.answer(body, self.path.startswith("/chunked"))

    do_HEAD = do_GET

    def do_POST(self):
        if self.path.startswith("/stale") and getattr(self, "stale_seen",
                                                      False):
            self.close_connection = True
            return
        if self.path == "/stall":
            time.sleep(3)
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            data = b""
            while True:
                size = int(self.rfile.readline().strip(), 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b""):
                        pass
                    break
                data += self.rfile.read(size)
                self.rfile.readline()
        else:
            data = self.rfile.read(int(self.headers.get("Content-Length",
                                                        0)))
        self.answer(b"got " + data)

    do_PUT = do_POST


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    # Hundreds of tunnels connect at once (the connection caps' tests):
    # the default backlog of 5 would drop their handshakes.
    request_queue_size = 1024


server = Server(("127.0.0.1", 0), Handler)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write("%d\n" % server.server_address[1])
import os
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
server.serve_forever()
