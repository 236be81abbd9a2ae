#!/usr/bin/env python3
"""A loopback HTTP server for the weights download tests (tests/engine/test_weights_fetch.cpp, tests/gui).

Serves the files of ROOT under /<mode>/<file name>; the mode says how it misbehaves:
  ok        the file, honouring Range requests (206 with Content-Range)
  cut       the first half of the file with the full Content-Length, then the connection is closed (a broken
            transfer); a request with a Range header is served normally (so a resume succeeds)
  truncated a complete response of the file's first half (Content-Length says half: only the content is short)
  html      200 text/html with an error page, as proxies and login portals answer
  stall     the headers (Content-Length of the whole file), then nothing for 30 s
  slow      the file in 16 KiB pieces, 50 ms apart (a download that can be cancelled)
  norange   the file, ignoring Range (always 200 with the whole body)
anything else is 404. Every request is logged to stdout as one line "REQ <path> <Range header or ->", flushed,
after the first line "PORT <n>". Usage: weights_server.py ROOT
"""
import http.server
import os
import sys
import time


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):  # quiet: the test reads our own REQ lines
        pass

    def do_GET(self):
        rng = self.headers.get("Range")
        print("REQ %s %s" % (self.path, rng or "-"), flush=True)
        parts = self.path.strip("/").split("/")
        if len(parts) != 2:
            return self.send_error(404)
        mode, name = parts
        path = os.path.join(self.server.root, name)
        if not os.path.isfile(path):
            return self.send_error(404)
        data = open(path, "rb").read()
        if mode == "html":
            body = b"<!DOCTYPE html><html><head><title>Sign in</title></head><body>Proxy login</body></html>"
            return self.reply(200, body, "text/html")
        if mode == "truncated":
            return self.reply(200, data[: len(data) // 2])
        if mode in ("ok", "cut", "slow") and rng and rng.startswith("bytes="):
            start = int(rng[6:].split("-")[0])
            if start >= len(data):
                self.send_response(416)
                self.send_header("Content-Range", "bytes */%d" % len(data))
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_response(206)
            self.send_header("Content-Range", "bytes %d-%d/%d" % (start, len(data) - 1, len(data)))
            return self.body(data[start:], mode)
        if mode in ("ok", "norange", "slow"):
            self.send_response(200)
            return self.body(data, mode)
        if mode == "cut":
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(data[: len(data) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        if mode == "stall":
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.flush()
            time.sleep(30)
            return
        self.send_error(404)

    def reply(self, code, body, ctype="application/octet-stream"):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def body(self, data, mode):
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if mode != "slow":
            self.wfile.write(data)
            return
        for i in range(0, len(data), 16384):
            self.wfile.write(data[i : i + 16384])
            self.wfile.flush()
            time.sleep(0.05)


def main():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.root = sys.argv[1]
    print("PORT %d" % server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
