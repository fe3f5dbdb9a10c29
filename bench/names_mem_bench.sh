#!/bin/bash
# names_mem_bench.sh - what a containers.json costs the names resolver
# (issue 32, finding 5), old build against new, both run at once on the
# same cgroups and the same fake root:
#
#   bench/names_mem_bench.sh      (as root; PMU_EXPORTER_OLD=path of the
#                                 build to compare with, required;
#                                 PMU_EXPORTER: this tree's; SECS=20)
#
# The cgroups: 30 libpod-<id>.scope whose ids no runtime knows (the
# resolver retries them, 2 s doubling), 30 <id> that Docker's
# config.v2.json names (its hostconfig.json's CgroupParent the parent
# here, as a cgroupfs engine puts them), and one libpod-<id>.scope that
# containers.json names (its config.json's cgroupsPath that cgroup).
# Relabelled to container_id; counted with task-clock, interval 1 s.
#
# 1. Memory: each pair of daemons started with no containers.json; 5 s
#    after both are ready, VmRSS; then containers.json appears (by
#    rename) and a cgroup with a new id (looked up at once, so the file
#    is read), and 20 s later VmRSS and VmHWM (the peak) again.  Two files: 6 MB of "[{},{},...]" (2 M entries)
#    and 19.5 MB of real-looking entries (~44,000, ~450 bytes each, as
#    containers/storage writes them).
# 2. CPU: each pair started with containers.json in place, broken (the
#    19.5 MB file without its closing "]") or valid; each daemon's CPU
#    seconds (utime + stime) from its start to SECS seconds after both
#    are ready, and over those SECS seconds alone, and how long
#    until the 30 Docker containers were named (Docker is read after
#    containers/storage: a lookup of a Docker id reads containers.json
#    first, or its cached index or failure).
#
# Only the PIDs started here are ended, only the cgroups made here
# removed; servers bind 127.0.0.1.
set -u
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
trap 'exit 130' INT TERM HUP
SECS=${SECS:-20}
OLD=${PMU_EXPORTER_OLD:-}
[ -n "$OLD" ] && [ -x "$OLD" ] || bench_die "PMU_EXPORTER_OLD must name the build to compare with"
bench_require "curl ss python3" "pmu_exporter"
PARENT_NAME="pmu_bench_names_mem_$$"
PARENT="$CGROOT/$PARENT_NAME"
ROOT="$BENCH_TMP/root"
STORE="$ROOT/var/lib/containers/storage/overlay-containers"
mkdir -p "$STORE" "$ROOT/var/lib/docker/containers"
bench_mkcg "$PARENT"
mem_cleanup() {
	local p
	for p in $BENCH_PIDS; do bench_stop "$p"; done
	[ -d "$PARENT" ] && find "$PARENT" -mindepth 1 -maxdepth 1 -type d -exec rmdir {} + 2>/dev/null
	bench_cleanup
}
trap mem_cleanup EXIT

python3 - "$ROOT" "$PARENT" "$BENCH_TMP" "$PARENT_NAME" <<'PY'
import hashlib, os, sys
root, parent, tmp, pname = sys.argv[1:5]
def hid(s):
    return hashlib.sha256(s.encode()).hexdigest()
for i in range(30):
    os.mkdir(os.path.join(parent, "libpod-%s.scope" % hid("nobody-%d" % i)))
    d = hid("docker-%d" % i)
    os.makedirs(os.path.join(root, "var/lib/docker/containers", d))
    with open(os.path.join(root, "var/lib/docker/containers", d, "config.v2.json"), "w") as f:
        f.write('{"ID":"%s","Name":"/dk-%d","Config":{"Image":"img:1","Labels":{}}}' % (d, i))
    with open(os.path.join(root, "var/lib/docker/containers", d, "hostconfig.json"), "w") as f:
        f.write('{"CgroupParent":"/%s"}' % pname)
    os.mkdir(os.path.join(parent, d))
known = hid("known")
os.mkdir(os.path.join(parent, "libpod-%s.scope" % known))
ud = os.path.join(root, "var/lib/containers/storage/overlay-containers", known, "userdata")
os.makedirs(ud)
with open(os.path.join(ud, "config.json"), "w") as f:
    f.write('{"linux":{"cgroupsPath":"/%s/libpod-%s.scope"}}' % (pname, known))
with open(os.path.join(tmp, "empties.json"), "w") as f:
    f.write("[" + "{}," * (2 * 1024 * 1024) + "{}]")
ents = []
i = 0
size = 0
while size < 19_500_000:
    cid = known if i == 0 else hid("c-%d" % i)
    e = ('{"id":"%s","names":["pod-%d"],"image":"%s","layer":"%s",'
         '"metadata":"{\\"image-name\\":\\"registry.example.com/app-%d:1\\",'
         '\\"image-id\\":\\"%s\\",\\"name\\":\\"pod-%d\\",\\"created-at\\":1795634691}",'
         '"created":"2026-11-25T19:24:51.588046559Z","flags":{"MountLabel":"","ProcessLabel":""}}'
         % (cid, i, hid("i-%d" % i), hid("l-%d" % i), i % 50, hid("i-%d" % i), i))
    ents.append(e)
    size += len(e) + 1
    i += 1
data = "[" + ",".join(ents) + "]"
with open(os.path.join(tmp, "valid.json"), "w") as f:
    f.write(data)
with open(os.path.join(tmp, "broken.json"), "w") as f:
    f.write(data[:-1])
print("names_mem_bench: files: empties.json %d bytes (2,097,153 entries), valid.json %d bytes (%d entries), broken.json %d bytes (valid.json without its last ']')"
      % (os.path.getsize(os.path.join(tmp, "empties.json")), len(data), i, len(data) - 1))
PY

cat > "$BENCH_TMP/c.yaml" <<YAML
interval: 1s
groups:
  - name: sw
    events: [task-clock]
cgroups:
  - path: /$PARENT_NAME/*
    groups: [sw]
    relabel:
      - regex: ".*/([a-z]+-)?([0-9a-f]{64})(\\\\.scope)?"
        target_label: container_id
        replacement: "\$2"
YAML
put() {		# put FILE: containers.json becomes FILE, by rename; "none": gone
	if [ "$1" = none ]; then rm -f "$STORE/containers.json"; return; fi
	cp "$BENCH_TMP/$1.json" "$STORE/.tmp" && mv "$STORE/.tmp" "$STORE/containers.json"
}
start() {	# start old|new: PID and port in ${1}_PID, ${1}_PORT
	local port bin=$PMU_EXPORTER
	[ "$1" = old ] && bin=$OLD
	port=$(bench_free_port)
	bench_spawn "$bin" --config.file="$BENCH_TMP/c.yaml" --path.rootfs="$ROOT" \
		--web.listen-address="127.0.0.1:$port" > "$BENCH_TMP/$1.log" 2>&1
	eval "${1}_PID=$BENCH_LAST ${1}_PORT=$port"
	bench_wait_http "http://127.0.0.1:$port/-/ready" 20 || { cat "$BENCH_TMP/$1.log"; bench_die "$1: not ready"; }
}
stop_both() { bench_stop "$old_PID"; bench_stop "$new_PID"; }
hwm() { awk '$1 == "VmHWM:" { print $2 }' "/proc/$1/status"; }
cpu_s() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / hz }' "/proc/$1/stat"; }
named() { curl -fs "http://127.0.0.1:$1/metrics" | grep -c "^pmu_cgroup_events_total{.*container=\"$2" || true; }

echo "names_mem_bench: $(date -u +%FT%TZ), $(nproc) CPUs, $(bench_busy_pct 2)% busy before; old $OLD, new $PMU_EXPORTER"
for f in empties valid; do
	put none
	start old
	start new
	sleep 5
	o0=$(bench_rss_kb "$old_PID") n0=$(bench_rss_kb "$new_PID")
	put "$f"
	# A new id, looked up at once by both: the file is read now,
	# whatever the retries' back-off.
	poke="$PARENT/libpod-$(head -c 32 /dev/urandom | sha256sum | cut -c1-64).scope"
	mkdir "$poke"
	sleep 20
	o1=$(bench_rss_kb "$old_PID") n1=$(bench_rss_kb "$new_PID")
	oh=$(hwm "$old_PID") nh=$(hwm "$new_PID")
	ok=$(named "$old_PORT" pod-0) nk=$(named "$new_PORT" pod-0)
	echo "memory, $f.json: old VmRSS $o0 kB before, $o1 kB 20 s after (+$((o1 - o0))), VmHWM $oh kB, known container named: $ok; new VmRSS $n0 kB before, $n1 kB after (+$((n1 - n0))), VmHWM $nh kB, named: $nk"
	stop_both
	rmdir "$poke"
done

for f in broken valid; do
	put "$f"
	start old
	start new
	o0=$(cpu_s "$old_PID") n0=$(cpu_s "$new_PID")
	t0=$(date +%s.%N) od= nd=
	while :; do
		t=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
		[ -z "$od" ] && [ "$(named "$old_PORT" dk-)" -ge 30 ] && od=$t
		[ -z "$nd" ] && [ "$(named "$new_PORT" dk-)" -ge 30 ] && nd=$t
		awk -v t="$t" -v s="$SECS" 'BEGIN { exit !(t >= s) }' && break
		sleep 0.2
	done
	o1=$(cpu_s "$old_PID") n1=$(cpu_s "$new_PID")
	awk -v f="$f" -v a="$o0" -v b="$o1" -v c="$n0" -v d="$n1" -v s="$SECS" -v od="${od:->$SECS}" -v nd="${nd:->$SECS}" 'BEGIN {
		printf "CPU, %s.json, 30 unresolved ids: CPU s from the start to %d s after ready: old %.2f, new %.2f, ratio old/new %.1f; in those %d s alone: old %.2f, new %.2f; 30 Docker containers named %s s (old), %s s (new) after ready\n",
		    f, s, b, d, (d > 0 ? b / d : 0), s, b - a, d - c, od, nd }'
	stop_both
done
exit 0
