#!/bin/bash
# bpf_trigger.sh - the BPF cgroup counter on its possible triggers: the
# daemon's (the BTF-typed sched_switch tracepoint, at cgroup changes),
# the fallback without BTF (the sched_switch raw tracepoint, at every
# switch) and perf bperf's (the cgroup-switches software event), on a
# ping-pong of ROUNDS round trips between two cgroups, its ends free to
# run on any CPU or pinned one to CPU 0 and one to CPU 1: what each side
# was charged against its own getrusage, and how many switches the
# program ran for (bench/bpf_trigger.c says what it prints).
#
#   bench/bpf_trigger.sh     (as root; REPS=3 ROUNDS=50000 WHERE="free 0,1")
set -u
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
trap bench_cleanup EXIT
trap 'exit 130' INT TERM HUP
REPS=${REPS:-3}
ROUNDS=${ROUNDS:-50000}
WHERE=${WHERE:-free 0,1}
bench_require "" "bpf_trigger pingpong"
P=$CGROOT/pmu_bench_$$
bench_mkcg "$P"; bench_mkcg "$P/a"; bench_mkcg "$P/b"
echo "== bpf_trigger: $(date -u +%Y-%m-%dT%H:%M:%SZ), $(uname -r), $(nproc) CPUs, $ROUNDS round trips, $REPS reps, load $(cut -d' ' -f1-3 /proc/loadavg)"
for where in $WHERE; do
	for rep in $(seq 1 "$REPS"); do
		for t in "" -e -c; do
			"$BENCH_BIN/bpf_trigger" $t -C "$where" "$BENCH_BIN/pingpong" \
			    "$ROUNDS" "$P/a" "$P/b" >"$BENCH_TMP/out" ||
				bench_die "bpf_trigger $t -C $where failed"
			awk -v rep="$rep" -v where="$where" '
				/^TRUTH/ { split($2, s, "="); split($3, c, "="); truth[s[2]] = c[2] }
				/^CHARGED/ { split($2, s, "="); split($3, c, "="); got[s[2]] = c[2] }
				/^STATS/ { stats = $0; sub(/^STATS /, "", stats) }
				END { printf "  -C %s rep %d: %s; side a charged %d csw (own %d, %+.2f%%), side b %d (own %d, %+.2f%%)\n",
				    where, rep, stats, got["a"], truth["a"], (got["a"] / truth["a"] - 1) * 100,
				    got["b"], truth["b"], (got["b"] / truth["b"] - 1) * 100 }' "$BENCH_TMP/out"
		done
	done
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
