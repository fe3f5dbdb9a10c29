#!/usr/bin/env python3
"""http_tenant.py - the network side of bench/soak_tenant.sh (issue 42):
two hostile clients against the daemon's HTTP server for SECONDS, each
from a loopback address of its own, so that the soak's scrapes from
127.0.0.1 show whether one address can starve another.

  http_tenant.py PORT SECONDS [USER:PASSWORD]

With USER:PASSWORD (a daemon with basic auth) every request carries
them, so that the scrapes are answered in full rather than with 401.

- pipelining (127.0.0.2): waves of 45 connections, each sending 100
  scrapes at once with a 2 KB receive buffer and reading 1 KB of answers
  every 5 s, for 20 s a wave; the server should cut each off (429,
  closed) past 4 unread answers and give the address at most its share
  of the scrape slots (--web.max-requests-per-ip);
- slow bodies (127.0.0.3): waves of 64 connections, each sending
  "Content-Length: 100000000" and then a byte a second, for 20 s a wave;
  the server should answer 413 at once and close each.

At the end one line per client: waves, answers by status, connections
the server closed.  Only sockets are made; nothing is left behind.
"""
import base64
import re
import socket
import sys
import time

HEAD = b"GET /metrics HTTP/1.1\r\nHost: x\r\n"


def connect(port, src, rcvbuf=None):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.bind((src, 0))
    s.settimeout(5)
    s.connect(("127.0.0.1", port))
    s.setblocking(False)
    return s


def wave(port, src, n, first, every, step, rcvbuf, tally, wave_s=20):
    """n connections sending first, then step every `every` s (and
    reading 1 KB then) for wave_s; answers counted by status into tally."""
    conns, data = [], {}
    for _ in range(n):
        try:
            s = connect(port, src, rcvbuf)
            s.send(first)
            conns.append(s)
            data[s] = b""
        except OSError:
            tally["refused"] += 1
    end = time.time() + wave_s
    while conns and time.time() < end:
        time.sleep(every)
        for s in list(conns):
            try:
                if step:
                    s.send(step)
                got = s.recv(1024)
                if not got:
                    raise ConnectionResetError
                data[s] += got
            except BlockingIOError:
                continue
            except OSError:
                tally["closed"] += 1
                conns.remove(s)
    for s in data:
        for code in re.findall(rb"^HTTP/1\.1 (\d+)", data[s], re.M):
            tally[code.decode()] = tally.get(code.decode(), 0) + 1
        s.close()
    tally["waves"] += 1


def main():
    port, secs = int(sys.argv[1]), float(sys.argv[2])
    head = HEAD
    if len(sys.argv) > 3:
        head += (b"Authorization: Basic " +
                 base64.b64encode(sys.argv[3].encode()) + b"\r\n")
    scrape = head + b"\r\n"
    pipe = {"waves": 0, "closed": 0, "refused": 0}
    body = {"waves": 0, "closed": 0, "refused": 0}
    end = time.time() + secs
    while time.time() < end - 20:
        wave(port, "127.0.0.2", 45, scrape * 100, 5, b"", 2048, pipe)
        wave(port, "127.0.0.3", 64, head + b"Content-Length: 100000000\r\n\r\n",
             1, b"x", None, body)
    print("pipelining:", " ".join(f"{k} {v}" for k, v in sorted(pipe.items())))
    print("slow bodies:", " ".join(f"{k} {v}" for k, v in sorted(body.items())))


if __name__ == "__main__":
    main()
