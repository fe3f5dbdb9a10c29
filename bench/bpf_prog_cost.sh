#!/bin/bash
# bpf_prog_cost.sh - what mode: bpf's program costs a context switch, by
# the kernel's own accounting (kernel.bpf_stats_enabled: run_time_ns and
# run_cnt of each program), for tracked cgroups at several depths.  For
# each depth D (3 or more), two cgroups c1 and c2 are made D levels below
# the root (pmu_bench_<pid>/dD/l3/.../c1), a daemon counts {context-switches,
# task-clock} in them in mode: bpf, and a pipe ping-pong (bench/pingpong,
# both ends on one CPU) runs between c1 and c2 (cross: every switch
# changes cgroup) and within c1 (same).  Printed per depth and case: the
# program's runs and ns a run, and the round trip in us; the program runs
# at every switch of the machine, so a window as long with no ping-pong
# is measured after each and taken off (its runs are printed).
#
#   bench/bpf_prog_cost.sh     (as root; DEPTHS="3 4 6 8" ROUNDS=200000 REPS=3 CPU=1)
#
# The program walks the running task's cgroup path at every run that
# charges (an ancestor id and a hash lookup a level): the cost per level
# is the slope of cross over D.  bpf_stats_enabled is set for the run and
# put back as it was.
set -u
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
DEPTHS=${DEPTHS:-3 4 6 8}
ROUNDS=${ROUNDS:-200000}
REPS=${REPS:-3}
CPU=${CPU:-1}
bench_require "bpftool curl python3" "pmu_exporter pingpong"
STATS_WAS=$(sysctl -n kernel.bpf_stats_enabled)
trap 'sysctl -q kernel.bpf_stats_enabled="$STATS_WAS"; bench_cleanup' EXIT
P=pmu_bench_$$
bench_mkcg "$CGROOT/$P"

echo "== bpf_prog_cost: $(date -u +%Y-%m-%dT%H:%M:%SZ), $(uname -r), $(nproc) CPUs, cpu $CPU, $ROUNDS round trips, $REPS reps, depths $DEPTHS"

# "id runs ns" of each program the daemon ($pid) holds (by its fds'
# prog_id: another daemon on the machine may run the same programs), runs
# so far.
prog_stats() {
	bpftool prog show -j | python3 -c '
import glob, json, sys
mine = set()
for f in glob.glob("/proc/%s/fdinfo/*" % sys.argv[1]):
    try:
        for line in open(f):
            if line.startswith("prog_id:"):
                mine.add(int(line.split()[1]))
    except OSError:
        pass
for p in json.load(sys.stdin):
    if p["id"] in mine:
        print(p["id"], p.get("run_cnt", 0), p.get("run_time_ns", 0))' "$pid" | sort
}

# "runs ns" between two prog_stats files.
runs_ns() { join "$1" "$2" | awk '{ n += $4 - $2; t += $5 - $3 } END { print n + 0, t + 0 }'; }

# one A B: a ping-pong between cgroups A and B, then as long with nothing
# (the program runs at the machine's other switches too: a shared
# machine's are taken out); prints "runs ns_per_run us bg_runs".
one() {
	local us t0 t1 n ns bn bns
	prog_stats > "$BENCH_TMP/s0"
	t0=$(date +%s%N)
	us=$("$BENCH_BIN/pingpong" -n "$ROUNDS" -c "$CPU" -a "$1" -b "$2" |
		sed -n 's/^RESULT us_per_roundtrip=\([0-9.]*\).*/\1/p')
	t1=$(date +%s%N)
	prog_stats > "$BENCH_TMP/s1"
	sleep "$(awk -v d=$((t1 - t0)) 'BEGIN { printf "%.3f", d / 1e9 }')"
	prog_stats > "$BENCH_TMP/s2"
	read -r n ns < <(runs_ns "$BENCH_TMP/s0" "$BENCH_TMP/s1")
	read -r bn bns < <(runs_ns "$BENCH_TMP/s1" "$BENCH_TMP/s2")
	awk -v n="$n" -v ns="$ns" -v bn="$bn" -v bns="$bns" -v us="$us" 'BEGIN {
		r = n - bn; printf "%d %.0f %s %d\n", r, (r > 0 ? (ns - bns) / r : 0), us, bn }'
}

sysctl -q kernel.bpf_stats_enabled=1
for d in $DEPTHS; do
	dir=$CGROOT/$P/d$d rel=$P/d$d
	bench_mkcg "$dir"
	[ "$d" -ge 3 ] || bench_die "depth $d: 3 at least"
	for l in $(seq 3 $((d - 1))); do
		dir=$dir/l$l rel=$rel/l$l
		bench_mkcg "$dir"
	done
	bench_mkcg "$dir/c1"
	bench_mkcg "$dir/c2"
	cat > "$BENCH_TMP/c.yaml" <<YAML
interval: 1s
groups:
  - name: sw
    events: [context-switches, task-clock]
cgroups:
  - path: /$rel/*
    groups: [sw]
    mode: bpf
    bpf_fallback: refuse
YAML
	bench_serve port "$BENCH_TMP/pmu.log" /-/ready 60 "$PMU_EXPORTER" \
	    --config.file="$BENCH_TMP/c.yaml" --web.listen-address="127.0.0.1:@PORT@"
	pid=$BENCH_LAST
	for r in $(seq 1 "$REPS"); do
		read -r n ns us bg < <(one "$dir/c1" "$dir/c2")
		echo "RESULT depth $d rep $r cross runs $n ns_per_run $ns us_per_roundtrip $us background_runs $bg"
		read -r n ns us bg < <(one "$dir/c1" "$dir/c1")
		echo "RESULT depth $d rep $r same runs $n ns_per_run $ns us_per_roundtrip $us background_runs $bg"
	done
	bench_stop "$pid"
done
