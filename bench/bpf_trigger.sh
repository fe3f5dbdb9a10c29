#!/bin/bash
# bpf_trigger.sh - the BPF cgroup counter on its two possible triggers,
# the daemon's (sched_switch: every context switch) and perf bperf's
# (cgroup-switches), on a ping-pong of ROUNDS round trips between two
# cgroups, free to run on any CPU: what each side was charged against its
# own getrusage, and how many switches the program ran for (bench/
# bpf_trigger.c says what it prints).
#
#   bench/bpf_trigger.sh     (as root; REPS=3 ROUNDS=50000)
set -u
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
trap bench_cleanup EXIT
trap 'exit 130' INT TERM HUP
REPS=${REPS:-3}
ROUNDS=${ROUNDS:-50000}
bench_require "" "bpf_trigger pingpong"
P=$CGROOT/pmu_bench_$$
bench_mkcg "$P"; bench_mkcg "$P/a"; bench_mkcg "$P/b"
echo "== bpf_trigger: $(date -u +%Y-%m-%dT%H:%M:%SZ), $(uname -r), $(nproc) CPUs, $ROUNDS round trips, $REPS reps"
for rep in $(seq 1 "$REPS"); do
	for t in "" -c; do
		"$BENCH_BIN/bpf_trigger" $t "$BENCH_BIN/pingpong" "$ROUNDS" "$P/a" "$P/b" \
		    >"$BENCH_TMP/out" || bench_die "bpf_trigger $t failed"
		awk -v rep="$rep" '
			/^TRUTH/ { split($2, s, "="); split($3, c, "="); truth[s[2]] = c[2] }
			/^CHARGED/ { split($2, s, "="); split($3, c, "="); got[s[2]] = c[2] }
			/^STATS/ { stats = $0; sub(/^STATS /, "", stats) }
			END { printf "  rep %d: %s; side a charged %d csw (own %d, %+.2f%%), side b %d (own %d, %+.2f%%)\n",
			    rep, stats, got["a"], truth["a"], (got["a"] / truth["a"] - 1) * 100,
			    got["b"], truth["b"], (got["b"] / truth["b"] - 1) * 100 }' "$BENCH_TMP/out"
	done
done
