#!/usr/bin/env python3
"""http_starve.py - issue 50's clients for bench/soak_tenant.sh: what
tried to starve, hold up or stall the legitimate scraper, each from
loopback addresses of its own, until a deadline.  The daemon may be
restarted meanwhile: a refused connection is counted and tried again.

  http_starve.py slow PORT SECONDS AUTH PER SRC...
      slow readers: from each SRC, PER connections each send one scrape
      (basic auth AUTH, "user:password", so the answer is the whole
      exposition) with a 2 KB receive buffer and an MSS clamped to 536
      bytes, and never read: the answer stays in the kernel's queues and
      the server's slot is held until it gives up.  Every 0.5 s a
      connection the server has closed or reset is counted (the status
      line peeked, if any came) and opened again, and so is one held
      for 12 s (the server's close cannot reach a reader that never
      reads: "given up").
  http_starve.py idle PORT SECONDS FIRST NADDR PER
      idle connections: from NADDR addresses from 127.0.0.FIRST on, PER
      connections each that connect and send nothing; every second those
      the server closed are counted and opened again.
  http_starve.py passwords PORT SECONDS FIRST NADDR PER
      wrong passwords: from NADDR addresses 127.0.1.FIRST on, PER
      connections each, one request at a time with user "prom" and a
      wrong password ("Connection: close"), the next as soon as the
      answer is in; answers counted by status.

At the end one line: what was opened, how the server ended each, and
for slow and idle the most connections open at once.  Only sockets are
made; nothing is left behind.  SIGTERM ends it early, the line said.
"""
import base64
import errno
import select
import selectors
import signal
import socket
import struct
import sys
import time

# TCP states from the kernel's tcp_info (include/net/tcp_states.h).
ESTABLISHED, SYN_SENT, CLOSE, CLOSE_WAIT = 1, 2, 7, 8

# A slow reader's connection is given up and made again after this long:
# past --web.write-timeout (10 s) the server has let go of it, even if
# its close cannot reach a client that does not read.
RECYCLE_S = 12

# The deadline; SIGTERM brings it forward, so that the counts are said.
END = [0.0]


def running():
    return time.time() < END[0]


def request(auth=None):
    h = b"GET /metrics HTTP/1.1\r\nHost: x\r\n"
    if auth:
        h += b"Authorization: Basic " + base64.b64encode(auth.encode()) + b"\r\n"
    return h


def open_conn(src, port, rcvbuf=None, mss=None):
    """A non-blocking connection from src, under way; None if refused."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    if mss:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, mss)
    try:
        s.bind((src, 0))
        s.setblocking(False)
        r = s.connect_ex(("127.0.0.1", port))
    except OSError:
        s.close()
        return None
    if r not in (0, errno.EINPROGRESS):
        s.close()
        return None
    return s


def tcp_state(s):
    try:
        return struct.unpack("B", s.getsockopt(socket.IPPROTO_TCP,
                                               socket.TCP_INFO, 1))[0]
    except OSError:
        return CLOSE


def status_peeked(s):
    """The status of what the server sent (peeked, nothing consumed)."""
    try:
        head = s.recv(12, socket.MSG_PEEK)
    except OSError:
        return None
    if head.startswith(b"HTTP/1.1 "):
        return head[9:12].decode()
    return None


def bump(tally, k, n=1):
    tally[k] = tally.get(k, 0) + n


def slow(port, auth, per, srcs):
    req = request(auth) + b"\r\n"
    conns = {}                  # socket -> [src, sent]
    tally = {"opened": 0, "refused": 0, "open_max": 0}
    while running():
        for src in srcs:
            while sum(1 for v in conns.values() if v[0] == src) < per:
                s = open_conn(src, port, 2048, 536)
                if s is None:
                    bump(tally, "refused")
                    break
                conns[s] = [src, False, time.time()]
                bump(tally, "opened")
                # The scrape at once: a connection idle meanwhile is
                # the server's to close when it is short of room.
                if select.select([], [s], [], 2)[1] and tcp_state(s) == ESTABLISHED:
                    try:
                        s.send(req)
                        conns[s][1] = True
                    except OSError:
                        pass
        time.sleep(0.5)
        open_ = 0
        for s, v in list(conns.items()):
            st = tcp_state(s)
            if st == ESTABLISHED and not v[1]:
                try:
                    s.send(req)
                    v[1] = True
                except OSError:
                    st = CLOSE
            if st == ESTABLISHED and time.time() - v[2] < RECYCLE_S:
                open_ += v[1]
                continue
            if st == ESTABLISHED:
                # Held past the server's write deadline, yet open here:
                # the server let it go (closed, its FIN queued behind
                # the answer this side does not read).  Made again.
                bump(tally, "given up")
                s.close()
                del conns[s]
                continue
            if st == SYN_SENT:
                continue
            # Ended by the server: reset (its deadline, a slot taken
            # back) or closed after an answer (429 and the like).
            err = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
            code = status_peeked(s)
            if err == errno.ECONNRESET or st == CLOSE:
                bump(tally, "reset")
            elif code:
                bump(tally, "closed " + code)
            else:
                bump(tally, "closed")
            s.close()
            del conns[s]
        tally["open_max"] = max(tally["open_max"], open_)
    for s in conns:
        s.close()
    return tally


def idle(port, first, naddr, per):
    srcs = ["127.0.0.%d" % (first + i) for i in range(naddr)]
    conns = {}
    tally = {"opened": 0, "refused": 0, "closed": 0, "open_max": 0}
    while running():
        for src in srcs:
            have = sum(1 for v in conns.values() if v == src)
            for _ in range(per - have):
                s = open_conn(src, port)
                if s is None:
                    bump(tally, "refused")
                    break
                conns[s] = src
                bump(tally, "opened")
        time.sleep(1)
        open_ = 0
        for s in list(conns):
            st = tcp_state(s)
            if st in (ESTABLISHED, SYN_SENT):
                open_ += st == ESTABLISHED
                continue
            bump(tally, "closed")
            s.close()
            del conns[s]
        tally["open_max"] = max(tally["open_max"], open_)
    for s in conns:
        s.close()
    return tally


def passwords(port, first, naddr, per):
    req = request("prom:wrong") + b"Connection: close\r\n\r\n"
    srcs = ["127.0.1.%d" % (first + i) for i in range(naddr)]
    sel = selectors.DefaultSelector()
    tally = {"opened": 0, "refused": 0, "timeout": 0}
    retry = []                  # (when, src): a refused connection's

    def start(src):
        s = open_conn(src, port)
        if s is None:
            bump(tally, "refused")
            retry.append((time.time() + 0.5, src))
            return
        bump(tally, "opened")
        sel.register(s, selectors.EVENT_WRITE, [src, b"", time.time()])

    for src in srcs:
        for _ in range(per):
            start(src)
    while running():
        now = time.time()
        for when, src in [r for r in retry if r[0] <= now]:
            retry.remove((when, src))
            start(src)
        for key, ev in sel.select(0.2):
            s, d = key.fileobj, key.data
            if ev & selectors.EVENT_WRITE:
                try:
                    s.send(req)
                    sel.modify(s, selectors.EVENT_READ, d)
                    continue
                except OSError:
                    got = None
            else:
                try:
                    got = s.recv(65536)
                except BlockingIOError:
                    continue
                except OSError:
                    got = None
                if got:
                    d[1] += got
                    continue
            code = d[1][9:12].decode() if d[1].startswith(b"HTTP/1.1 ") else "none"
            bump(tally, code if got is not None else "reset")
            sel.unregister(s)
            s.close()
            start(d[0])
        for key in list(sel.get_map().values()):
            if now - key.data[2] > 30:
                bump(tally, "timeout")
                sel.unregister(key.fileobj)
                key.fileobj.close()
                start(key.data[0])
    for key in list(sel.get_map().values()):
        key.fileobj.close()
    return tally


def main():
    mode, port, secs = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    a = sys.argv[4:]
    END[0] = time.time() + secs
    signal.signal(signal.SIGTERM, lambda *_: END.__setitem__(0, 0.0))
    if mode == "slow":
        t = slow(port, a[0], int(a[1]), a[2:])
    elif mode == "idle":
        t = idle(port, int(a[0]), int(a[1]), int(a[2]))
    else:
        t = passwords(port, int(a[0]), int(a[1]), int(a[2]))
    print(mode + ":", " ".join("%s %d" % kv for kv in sorted(t.items())))


if __name__ == "__main__":
    main()
