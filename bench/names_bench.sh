#!/bin/bash
# names_bench.sh - what container names cost (docs/containers.md, "Container names"):
# the resolver's CPU at container churn, its memory at many containers,
# and what the labels add to a scrape.  Each figure is a ratio against a
# peer daemon run at the same time on the same cgroups, identical but for
# its relabel rule, whose container_id ("x" and the id: 65 characters) is
# no id, so that it looks nothing up: the names reader off.
#
#   bench/names_bench.sh      (as root; RATE=100 CHURN_S=30 LIVE=300 RUNS=3 MANY=10000
#                             SCRAPES=10)
#
# The runtime is fake, its cgroups real: containerd's CRI state (one OCI
# bundle's config.json per container, from tests/fixtures/names, a real
# containerd 1.6.20 file, with each container's own names) in a root of
# this script's own, given to both daemons as --path.rootfs, and one
# empty cgroup per container under a parent of this script's own
# (pmu_bench_names_<pid>), counted in mode: bpf (one map entry each).
#
# 1. Churn: RATE containers a second created (bundle, then cgroup) and as
#    many removed (cgroup, then bundle), LIVE alive at once, for CHURN_S
#    seconds, RUNS times: each daemon's CPU seconds (utime + stime) over
#    the window; the difference over the containers created is the cost
#    of one container's names (its lookup, its map entries, its labels).
#    Beside it, the raw cost of what a lookup reads: open, read and parse
#    one config.json (python3's json, in a loop over the same files), for
#    scale.
# 2. Memory: MANY containers at once; each daemon's VmRSS at none and at
#    MANY, once every series of the one with names carries them.
# 3. Scrape size: at MANY, the bytes of the pmu_cgroup_events_total lines
#    of each daemon, per series.
# 4. Scrape CPU: at MANY, the CPU of each daemon's render threads
#    (pmu-render) over SCRAPES scrapes, one an interval (a new snapshot
#    each time: a body rendered anew), per scrape.
#
# Bounded: at most CHURN_S * RUNS seconds of churn and MANY cgroups, a
# few minutes in all.  Only the PIDs started here are killed, only the
# cgroups and files made here removed.  Servers bind 127.0.0.1.
set -u
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
trap 'exit 130' INT TERM HUP

RATE=${RATE:-100}
CHURN_S=${CHURN_S:-30}
LIVE=${LIVE:-300}
RUNS=${RUNS:-3}
MANY=${MANY:-10000}
SCRAPES=${SCRAPES:-10}

bench_require "curl ss python3" "pmu_exporter"
TEMPLATE="$top_srcdir/tests/fixtures/names/root/run/containerd/io.containerd.runtime.v2.task/k8s.io/4e7feab8eafb14e4d6a2a2ab2f92f7ef1ebfa44e754a0b548899c5a15a20789f/config.json"
[ -f "$TEMPLATE" ] || bench_die "no $TEMPLATE"
PARENT_NAME="pmu_bench_names_$$"
PARENT="$CGROOT/$PARENT_NAME"
ROOT="$BENCH_TMP/root"
TASKS="$ROOT/run/containerd/io.containerd.runtime.v2.task/k8s.io"
mkdir -p "$TASKS"
bench_mkcg "$PARENT"
names_cleanup() {
	local p
	for p in $BENCH_PIDS; do bench_stop "$p"; done
	[ -d "$PARENT" ] && find "$PARENT" -mindepth 1 -depth -type d -exec rmdir {} + 2>/dev/null
	bench_cleanup
}
trap names_cleanup EXIT

# The fake runtime: "churn RATE SECONDS LIVE" or "fill N" or "empty".
# Prints what it did.  Ids are sha256 of a counter and this PID.
cat > "$BENCH_TMP/runtime.py" <<'PY'
import hashlib, json, os, shutil, sys, time
tasks, parent, template = sys.argv[1:4]
cmd, args = sys.argv[4], [float(a) for a in sys.argv[5:]]
base = json.load(open(template))
seq = [0]
def new():
    seq[0] += 1
    n = seq[0]
    cid = hashlib.sha256(b"%d-%d" % (n, os.getpid())).hexdigest()
    an = base["annotations"]
    an.update({
        "io.kubernetes.cri.container-type": "container",
        "io.kubernetes.cri.container-name": "app-%d" % (n % 7),
        "io.kubernetes.cri.sandbox-name": "web-%08x-%05d" % (n * 2654435761 % 2**32, n),
        "io.kubernetes.cri.sandbox-namespace": "team-%d" % (n % 13),
        "io.kubernetes.cri.sandbox-uid": "%s-%s-4%s-8%s-%s" % (cid[:8], cid[8:12], cid[13:16], cid[17:20], cid[20:32]),
        "io.kubernetes.cri.sandbox-id": hashlib.sha256(cid.encode()).hexdigest(),
        "io.kubernetes.cri.image-name": "registry.example.com/team/app-%d:1.%d" % (n % 7, n % 50),
    })
    # Where the record puts it (names are given only there): the
    # parent is directly under the cgroup mount.
    base["linux"]["cgroupsPath"] = "/%s/%s" % (os.path.basename(parent), cid)
    d = os.path.join(tasks, cid)
    os.mkdir(d)
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(base, f)
    os.mkdir(os.path.join(parent, cid))
    return cid
def gone(cid):
    os.rmdir(os.path.join(parent, cid))
    shutil.rmtree(os.path.join(tasks, cid))
live = []
if cmd == "fill":
    for _ in range(int(args[0])):
        live.append(new())
    print(len(live))
elif cmd == "empty":
    n = 0
    for cid in os.listdir(parent):
        if os.path.isdir(os.path.join(parent, cid)):
            gone(cid); n += 1
    print(n)
elif cmd == "churn":
    rate, secs, keep = args
    t0 = time.monotonic()
    made = removed = late = 0
    i = 0
    while True:
        due = t0 + i / rate
        if due >= t0 + secs:
            break
        now = time.monotonic()
        if due > now:
            time.sleep(due - now)
        elif now - due > 0.1:
            late += 1
        live.append(new()); made += 1
        if len(live) > keep:
            gone(live.pop(0)); removed += 1
        i += 1
    while live:
        gone(live.pop(0)); removed += 1
    print(made, removed, late, "%.2f" % (time.monotonic() - t0))
elif cmd == "parse":
    # The raw cost of a lookup's read: open, read, parse, N times.
    files = [os.path.join(tasks, c, "config.json") for c in os.listdir(tasks)]
    n = int(args[0]); t0 = time.process_time()
    for k in range(n):
        with open(files[k % len(files)]) as f:
            json.load(f)["annotations"]["io.kubernetes.cri.sandbox-name"]
    print("%.2f" % ((time.process_time() - t0) / n * 1e6))
PY
runtime() { python3 "$BENCH_TMP/runtime.py" "$TASKS" "$PARENT" "$TEMPLATE" "$@"; }

config() {	# config FILE REPLACEMENT
	cat > "$1" <<YAML
interval: 1s
bpf_max_cgroups: $((MANY + 1000))
groups:
  - name: sw
    events: [task-clock]
cgroups:
  - path: /$PARENT_NAME/*
    groups: [sw]
    mode: bpf
    bpf_fallback: refuse
    relabel:
      - regex: ".*/([0-9a-f]{64})"
        target_label: container_id
        replacement: "$2"
YAML
}
config "$BENCH_TMP/names.yaml" '$1'
config "$BENCH_TMP/off.yaml" 'x$1'
start() {	# start NAME: PID and port in ${NAME}_PID, ${NAME}_PORT
	local port
	port=$(bench_free_port)
	bench_spawn "$PMU_EXPORTER" --config.file="$BENCH_TMP/$1.yaml" --path.rootfs="$ROOT" \
		--web.listen-address="127.0.0.1:$port" > "$BENCH_TMP/$1.log" 2>&1
	eval "${1}_PID=$BENCH_LAST ${1}_PORT=$port"
	bench_wait_http "http://127.0.0.1:$port/-/ready" 20 || { cat "$BENCH_TMP/$1.log"; bench_die "$1: not ready"; }
}
cpu_s() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / hz }' "/proc/$1/stat"; }
scrape() { curl -fs "http://127.0.0.1:$1/metrics"; }
series() { grep -c '^pmu_cgroup_events_total{' || true; }
named() { grep -c '^pmu_cgroup_events_total{.*,container="' || true; }

start names
start off
echo "names_bench: $(date -u +%FT%TZ), $(nproc) CPUs, $(bench_busy_pct 2)% busy before; other perf users: $(bench_perf_users)"
echo "names_bench: daemons with names pid $names_PID (:$names_PORT), names off pid $off_PID (:$off_PORT)"

# --- 1. churn -------------------------------------------------------------
echo "names_bench: raw read+parse of one config.json (python3 json): $( (runtime fill 200 >/dev/null && runtime parse 20000; runtime empty >/dev/null) ) us"
sleep 3
for run in $(seq 1 "$RUNS"); do
	a0=$(cpu_s "$names_PID") b0=$(cpu_s "$off_PID")
	out=$(runtime churn "$RATE" "$CHURN_S" "$LIVE")
	sleep 2	# the last removals seen by both
	a1=$(cpu_s "$names_PID") b1=$(cpu_s "$off_PID")
	read -r made removed late took <<< "$out"
	awk -v a="$(awk -v x="$a0" -v y="$a1" 'BEGIN{print y-x}')" -v b="$(awk -v x="$b0" -v y="$b1" 'BEGIN{print y-x}')" \
	    -v n="$made" -v r="$run" -v late="$late" -v took="$took" -v rate="$RATE" 'BEGIN {
		printf "churn run %d: %d containers in %.1f s (%d created late by > 0.1 s) at %d/s: CPU s with names %.2f, names off %.2f, ratio %.2f, difference %.0f us per container\n",
		    r, n, took, late, rate, a, b, (b > 0 ? a / b : 0), (a - b) / n * 1e6 }'
	sleep 2
done

# --- 2 and 3. many containers -------------------------------------------------
sleep 3
r0a=$(bench_rss_kb "$names_PID") r0b=$(bench_rss_kb "$off_PID")
t0=$(date +%s.%N)
runtime fill "$MANY" > /dev/null
t1=$(date +%s.%N)
for _ in $(seq 1 300); do
	na=$(scrape "$names_PORT" | named) nb=$(scrape "$off_PORT" | series)
	[ "$na" -ge "$MANY" ] && [ "$nb" -ge "$MANY" ] && break
	sleep 1
done
t2=$(date +%s.%N)
[ "$na" -ge "$MANY" ] && [ "$nb" -ge "$MANY" ] || bench_die "after 300 s: $na of $MANY named, $nb of $MANY counted by the peer"
sleep 5	# a few more collections: the heap as it stays
scrape "$names_PORT" > "$BENCH_TMP/names.prom"
scrape "$off_PORT" > "$BENCH_TMP/off.prom"
r1a=$(bench_rss_kb "$names_PID") r1b=$(bench_rss_kb "$off_PID")
awk -v t="$(awk -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN{printf "%.1f s to create, all named %.1f s later", b-a, c-b}')" -v m="$MANY" \
    'BEGIN { printf "many: %d containers, %s\n", m, t }'
awk -v a0="$r0a" -v a1="$r1a" -v b0="$r0b" -v b1="$r1b" -v m="$MANY" 'BEGIN {
	printf "memory: VmRSS with names %d kB at 0, %d kB at %d (+%d); names off %d kB, %d kB (+%d); names add %d kB, %.0f bytes per container; ratio of the growths %.2f\n",
	    a0, a1, m, a1 - a0, b0, b1, b1 - b0, (a1 - a0) - (b1 - b0), ((a1 - a0) - (b1 - b0)) * 1024 / m, (b1 - b0 > 0 ? (a1 - a0) / (b1 - b0) : 0) }'
for f in names off; do
	grep '^pmu_cgroup_events_total{' "$BENCH_TMP/$f.prom" | awk -v f="$f" -v all="$(wc -c < "$BENCH_TMP/$f.prom")" \
	    '{ n++; b += length($0) + 1 } END { printf "scrape %s: %d cgroup series, %.1f bytes each; whole scrape %d bytes\n", f, n, b / n, all }'
done
echo "scrape example with names: $(grep -m1 '^pmu_cgroup_events_total{' "$BENCH_TMP/names.prom")"
echo "scrape example names off:  $(grep -m1 '^pmu_cgroup_events_total{' "$BENCH_TMP/off.prom")"

# --- 4. scrape CPU --------------------------------------------------------
render_s() {	# render_s PID: CPU seconds of its render threads (daemon/http/http_request.c)
	local t sum=0
	for t in /proc/"$1"/task/*; do
		[ "$(cat "$t/comm" 2>/dev/null)" = pmu-render ] || continue
		sum=$(awk -v s="$sum" -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", s + ($14 + $15) / hz }' "$t/stat")
	done
	echo "$sum"
}
a0=$(render_s "$names_PID") b0=$(render_s "$off_PID")
for _ in $(seq 1 "$SCRAPES"); do
	scrape "$names_PORT" > /dev/null
	scrape "$off_PORT" > /dev/null
	sleep 1
done
a1=$(render_s "$names_PID") b1=$(render_s "$off_PID")
awk -v a0="$a0" -v a1="$a1" -v b0="$b0" -v b1="$b1" -v n="$SCRAPES" 'BEGIN {
	a = (a1 - a0) / n * 1000; b = (b1 - b0) / n * 1000
	printf "scrape CPU at many (the render threads, %d scrapes, each of a new snapshot): with names %.1f ms per scrape, names off %.1f ms; ratio %.2f\n",
	    n, a, b, (b > 0 ? a / b : 0) }'
r2a=$(bench_rss_kb "$names_PID") r2b=$(bench_rss_kb "$off_PID")
echo "memory after the scrapes: VmRSS with names $r2a kB, names off $r2b kB; names add $((r2a - r2b - (r0a - r0b))) kB"
echo "names_bench: removing $(runtime empty) containers; $(bench_busy_pct 1)% busy after"
exit 0
