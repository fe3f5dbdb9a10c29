#!/usr/bin/env python3
# bench/tenant.py - the hostile tenant of bench/soak_tenant.sh (issue 32),
# until a deadline.  Two parts, run as two processes:
#
#   tenant.py cg DIR SECONDS
#       as the unprivileged tenant, in the cgroup subtree DIR delegated to
#       it: cgroups named with invalid UTF-8, 255-byte names cut inside a
#       character, libpod-<id>.scope names, created and removed (churn);
#       and twins (issue 50): names that differ in an invalid byte only,
#       job<n>\xfe and job<n>\xff, with job<n>\uFFFDfe, which spells the
#       first one's repair in valid UTF-8 (two of those triples, !job0
#       and !job1, made first and kept; more made and removed in the
#       churn).
#   tenant.py rt ROOT CGDIR OUTSIDE SECONDS CGREL
#       as a runtime gone bad, in the fake root ROOT (--path.rootfs):
#       Docker containers (a cgroup each in CGDIR, which is CGREL from
#       the cgroup mount: their hostconfig.json's CgroupParent, as a
#       cgroupfs engine places them) whose config.v2.json
#       names hold invalid UTF-8, renamed (the file rewritten by rename);
#       FIFOs, devices and links out of the root (to OUTSIDE) as state
#       files; containerd bundles that are not JSON or nest too deep;
#       containers/storage's containers.json rewritten with a huge broken
#       file, a huge valid one, and "[{},{},...]".
#   tenant.py walk DIR SECONDS
#       as the unprivileged tenant in DIR (issue 42): 450 levels of
#       one-letter directories, 20 levels of 250-byte names (a 5 KB path),
#       a .scope at the bottom of each, and 1,100 libpod-t<i>.scope
#       directories to fill whatever has slots; kept until the deadline,
#       then removed.
#   tenant.py crowd DIR N SECONDS
#       as the unprivileged tenant in DIR (issue 50, items 6 and 7): N
#       directories libpod-t<i>.scope, made at once and kept until the
#       deadline, then removed.
#   tenant.py flood DIR SECONDS ID...
#       as the unprivileged tenant in DIR (issue 50, item 8): cgroups
#       libpod-<ID>.scope named after other people's containers, one
#       made every 0.25 s, the IDs in turn, each removed 1 s later (at
#       most 5 at once; 240 a minute).
#
# Prints what it did, one line of counts, at the end; removes the
# cgroups it made then (the files stay for the caller to remove).
import errno
import os
import random
import shutil
import sys
import time

rng = random.Random(int(os.environ.get("SEED", "32")))
counts = {}


def did(what):
    counts[what] = counts.get(what, 0) + 1


def hexid():
    return "%064x" % rng.getrandbits(256)


def bad_bytes(n):
    # Any byte but NUL and "/", mostly above 0x7f: rarely valid UTF-8.
    return bytes(rng.choice([rng.randint(0x80, 0xff), rng.randint(0x20, 0x7e)])
                 for _ in range(n)).replace(b"/", b"x")


def try_mkdir(p):
    try:
        os.mkdir(p)
        return True
    except OSError as e:
        did("mkdir-" + errno.errorcode.get(e.errno, str(e.errno)))
        return False


def rmdir_quiet(p):
    try:
        os.rmdir(p)
    except OSError:
        pass


def twins(prefix):
    """job\xfe, job\xff and job\uFFFDfe: one name after a repair that
    is not one-to-one."""
    return [prefix + b"\xfe", prefix + b"\xff", prefix + "\ufffdfe".encode()]


def tenant_cg(d, secs):
    d = os.fsencode(d)
    live = []
    end = time.monotonic() + secs
    # The kept twins first, and alone for 3 s: counted before the churn
    # takes the subtree's share (the first cgroups counted stay so).
    kept = twins(b"!job0") + twins(b"!job1")
    for name in kept:
        if try_mkdir(os.path.join(d, name)):
            did("cgroup-twin")
    time.sleep(3)
    n = 2
    while time.monotonic() < end:
        k = rng.random()
        if k < 0.05:
            for name in twins(b"job%d" % n):
                p = os.path.join(d, name)
                if try_mkdir(p):
                    live.append(p)
                    did("cgroup-twin")
            n += 1
        elif k < 0.4:
            name = bad_bytes(rng.randint(1, 255))
            what = "cgroup-invalid-utf8"
        elif k < 0.6:
            name = ("é" * 127).encode() + b"\xc3"
            name = name[:rng.randint(200, 255)]
            what = "cgroup-long-cut"
        else:
            name = ("libpod-%s.scope" % hexid()).encode()
            what = "cgroup-libpod"
        p = os.path.join(d, name)
        if try_mkdir(p):
            live.append(p)
            did(what)
        while len(live) > 60:
            rmdir_quiet(live.pop(rng.randrange(len(live))))
            did("cgroup-removed")
        time.sleep(0.05)
    for p in live + [os.path.join(d, name) for name in kept]:
        rmdir_quiet(p)


def tenant_crowd(d, n, secs):
    end = time.time() + secs
    made = []
    for i in range(n):
        p = os.path.join(d, "libpod-t%05d.scope" % i)
        if try_mkdir(p):
            made.append(p)
            did("crowd")
    while time.time() < end:
        time.sleep(min(1.0, max(0.0, end - time.time())))
    for p in made:
        rmdir_quiet(p)


def tenant_flood(d, secs, ids):
    end = time.monotonic() + secs
    live = []
    i = 0
    while time.monotonic() < end:
        p = os.path.join(d, "libpod-%s.scope" % ids[i % len(ids)])
        i += 1
        if not os.path.isdir(p) and try_mkdir(p):
            live.append(p)
            did("flood")
        while len(live) >= 5:
            rmdir_quiet(live.pop(0))
        time.sleep(0.25)
    for p in live:
        rmdir_quiet(p)


def write_rename(path, data):
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.rename(tmp, path)


def docker_config(cid, name):
    return (b'{"ID":"' + cid.encode() + b'","Name":"/' + name +
            b'","Config":{"Image":"img-' + bad_bytes(8) + b':1","Labels":{}}}')


def docker_dir(sd, cid, cgrel, config=True):
    os.mkdir(sd)
    write_rename(os.path.join(sd, "hostconfig.json"),
                 b'{"CgroupParent":"' + cgrel.encode() + b'"}')
    if config:
        write_rename(os.path.join(sd, "config.v2.json"),
                     docker_config(cid, bad_bytes(rng.randint(1, 300))))


def storage_list(kind, ids):
    if kind == "empties":
        # 6 MB of "{}," : 2 M entries, over the entry limit.
        return b"[" + b"{}," * (2 * 1024 * 1024) + b"{}]"
    entries = []
    i = 0
    while True:
        cid = ids[i] if i < len(ids) else hexid()
        meta = '{\\"image-name\\":\\"img-%d\\",\\"name\\":\\"n%d\\"}' % (i, i)
        entries.append(('{"id":"%s","names":["pod-%d"],"image":"%s",'
                        '"layer":"%s","metadata":"%s","created":'
                        '"2026-11-27T00:00:00Z","flags":{}}' %
                        (cid, i, hexid(), hexid(), meta)).encode())
        i += 1
        if kind == "small" and i >= len(ids):
            break
        if kind != "small" and i * 450 > 19_500_000:
            break
    data = b"[" + b",".join(entries) + b"]"
    if kind == "broken":
        data = data[:len(data) // 2]
    return data


def tenant_rt(root, cg, outside, secs, cgrel):
    docker = os.path.join(root, "var/lib/docker/containers")
    storage = os.path.join(root, "var/lib/containers/storage/overlay-containers")
    bundles = os.path.join(root, "run/containerd/io.containerd.runtime.v2.task/k8s.io")
    for p in (docker, storage, bundles, outside):
        os.makedirs(p, exist_ok=True)
    live = []           # (cgroup, state dir)
    podman = []
    end = time.monotonic() + secs
    last_list = 0.0
    kinds = ["broken", "valid", "empties", "small"]
    while time.monotonic() < end:
        k = rng.random()
        cid = hexid()
        sd = None
        if k < 0.35:
            sd = os.path.join(docker, cid)
            docker_dir(sd, cid, cgrel)
            pre, what = "docker", "docker-container"
        elif k < 0.55 and live:
            # A rename: Docker rewrites the file by rename.
            c, d = rng.choice(live)
            f = os.path.join(d or "", "config.v2.json")
            if d and d.startswith(docker) and os.path.isfile(f) and not os.path.islink(d):
                write_rename(f, docker_config(os.path.basename(d),
                                              b"renamed-" + bad_bytes(4)))
                did("docker-renamed")
            time.sleep(0.1)
            continue
        elif k < 0.6:
            sd = os.path.join(docker, cid)
            docker_dir(sd, cid, cgrel, False)
            os.mkfifo(os.path.join(sd, "config.v2.json"))
            pre, what = "docker", "fifo"
        elif k < 0.63:
            sd = os.path.join(docker, cid)
            docker_dir(sd, cid, cgrel, False)
            os.mknod(os.path.join(sd, "config.v2.json"), 0o600 | 0o020000,
                     os.makedev(1, 5))
            pre, what = "docker", "device"
        elif k < 0.7:
            o = os.path.join(outside, cid)
            os.mkdir(o)
            with open(os.path.join(o, "config.v2.json"), "wb") as f:
                f.write(b'{"ID":"' + cid.encode() +
                        b'","Name":"/read-from-outside-rootfs"}')
            with open(os.path.join(o, "hostconfig.json"), "wb") as f:
                f.write(b'{"CgroupParent":"' + cgrel.encode() + b'"}')
            sd = os.path.join(docker, cid)
            os.symlink(o, sd)
            pre, what = "docker", "link-out-of-root"
        elif k < 0.8:
            sd = os.path.join(bundles, cid)
            os.mkdir(sd)
            body = rng.choice([
                b"[" * 5000,
                b'{"annotations":{"io.kubernetes.cri.container-type":"container",'
                b'"io.kubernetes.cri.container-name":"' + bad_bytes(40) + b'"}}',
                b'{"annotations":' + bad_bytes(200),
                b"[" + b"{}," * 300000 + b"{}]",
            ])
            write_rename(os.path.join(sd, "config.json"), body)
            pre, what = "cri-containerd", "containerd-bundle"
        else:
            podman.append(cid)
            pre, what = "libpod", "podman-container"
        # Docker's cgroupfs driver names a container's cgroup by its id.
        c = os.path.join(cg, cid if pre == "docker" else
                         "%s-%s.scope" % (pre, cid))
        if try_mkdir(c):
            live.append((c, sd))
            did(what)
        if time.monotonic() - last_list > 15:
            kind = rng.choice(kinds)
            write_rename(os.path.join(storage, "containers.json"),
                         storage_list(kind, podman[-200:]))
            did("containers.json-" + kind)
            last_list = time.monotonic()
        while len(live) > 80:
            c, d = live.pop(0)
            rmdir_quiet(c)
            if d:
                if os.path.islink(d):
                    os.unlink(d)
                else:
                    shutil.rmtree(d, ignore_errors=True)
            did("container-removed")
        time.sleep(0.1)
    for c, _ in live:
        rmdir_quiet(c)


def chain(d, name, levels):
    fd = os.open(d, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(levels):
        os.mkdir(name, dir_fd=fd)
        nfd = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = nfd
    os.mkdir("bottom.scope", dir_fd=fd)
    os.close(fd)
    did("chain-%d" % levels)


def remove_tree(d):
    # Children before parents, relative to fds: the paths pass PATH_MAX.
    for top, dirs, _, fd in os.fwalk(d, topdown=False):
        for n in dirs:
            rmdir_quiet_at(n, fd)


def rmdir_quiet_at(n, fd):
    try:
        os.rmdir(n, dir_fd=fd)
    except OSError:
        pass


def tenant_walk(d, secs):
    end = time.time() + secs
    for sub, name, levels in (("nest", "a", 450), ("long", "x" * 250, 20)):
        if try_mkdir(os.path.join(d, sub)):
            chain(os.path.join(d, sub), name, levels)
    for i in range(1100):
        if try_mkdir(os.path.join(d, "libpod-t%d.scope" % i)):
            did("libpod")
    while time.time() < end:
        time.sleep(min(1.0, max(0.0, end - time.time())))
    for sub in ("nest", "long"):
        remove_tree(os.path.join(d, sub))
        rmdir_quiet(os.path.join(d, sub))
    for i in range(1100):
        rmdir_quiet(os.path.join(d, "libpod-t%d.scope" % i))


if __name__ == "__main__":
    if sys.argv[1] == "walk":
        tenant_walk(sys.argv[2], float(sys.argv[3]))
    elif sys.argv[1] == "crowd":
        tenant_crowd(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]))
    elif sys.argv[1] == "flood":
        tenant_flood(sys.argv[2], float(sys.argv[3]), sys.argv[4:])
    elif sys.argv[1] == "cg":
        tenant_cg(sys.argv[2], float(sys.argv[3]))
    else:
        tenant_rt(sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5]),
                  sys.argv[6])
    print(sys.argv[1], " ".join("%s=%d" % kv for kv in sorted(counts.items())))
