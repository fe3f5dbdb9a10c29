#!/bin/bash
# bpf_trigger.sh - the BPF cgroup counter on each trigger it can have:
# the daemon's (the BTF-typed sched_switch tracepoint, at cgroup
# changes), the fallback without BTF (the sched_switch raw tracepoint, at
# every switch) and perf bperf's (the cgroup-switches software event),
# and nothing at all, on a ping-pong of ROUNDS round trips, its ends
# free to run on any CPU or pinned one to CPU 0 and one to CPU 1, in two
# cgroups and both in one.  Both figures a trigger is judged by:
#   - accuracy: what each side was charged against its own getrusage
#     (exact for a trigger that runs at every cgroup switch);
#   - cost: the ping-pong's microseconds per round trip (pingpong's own
#     RESULT line), against nothing (bench/bpf_trigger.c says what it
#     prints).
# One line per run, then RESULT lines: per placement, cgroups and
# trigger, the median cost over the repetitions and the largest error.
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
echo "== bpf_trigger: $(date -u +%Y-%m-%dT%H:%M:%SZ), $(uname -r), $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $ROUNDS round trips, $REPS reps, load $(cut -d' ' -f1-3 /proc/loadavg)"
: >"$BENCH_TMP/all"
for where in $WHERE; do
	for rep in $(seq 1 "$REPS"); do
		for kind in two same; do
			b=$P/b
			[ "$kind" = same ] && b=$P/a
			# The order turns every repetition, so that no trigger
			# always follows another.
			order="none cgroup-change every-switch cgroup-switches"
			[ $((rep % 2)) = 0 ] && order="cgroup-switches every-switch cgroup-change none"
			for t in $order; do
				case $t in
				none) cmd=("$BENCH_BIN/pingpong" -n "$ROUNDS" -c "$where" -R -a "$P/a" -b "$b") ;;
				cgroup-change) cmd=("$BENCH_BIN/bpf_trigger" -C "$where" "$BENCH_BIN/pingpong" "$ROUNDS" "$P/a" "$b") ;;
				every-switch) cmd=("$BENCH_BIN/bpf_trigger" -e -C "$where" "$BENCH_BIN/pingpong" "$ROUNDS" "$P/a" "$b") ;;
				cgroup-switches) cmd=("$BENCH_BIN/bpf_trigger" -c -C "$where" "$BENCH_BIN/pingpong" "$ROUNDS" "$P/a" "$b") ;;
				esac
				"${cmd[@]}" >"$BENCH_TMP/out" || bench_die "$t -C $where failed"
				awk -v rep="$rep" -v where="$where" -v kind="$kind" -v t="$t" '
					/^TRUTH/ { split($2, s, "="); split($3, c, "="); truth[s[2]] += c[2] }
					/^CHARGED/ { split($2, s, "="); split($3, c, "="); got[s[2]] = c[2] }
					/^RESULT us_per_roundtrip=/ { split($2, u, "="); us = u[2] }
					/^STATS/ { stats = $0; sub(/^STATS trigger=[^ ]* /, "", stats) }
					END {
						err = "-"
						if (t != "none") {
							# One cgroup: both lines CHARGED are its own.
							if (kind == "same") { ta = truth["a"] + truth["b"]; tb = ta }
							else { ta = truth["a"]; tb = truth["b"] }
							ea = (got["a"] / ta - 1) * 100; eb = (got["b"] / tb - 1) * 100
							err = (ea < 0 ? -ea : ea) > (eb < 0 ? -eb : eb) ? ea : eb
							err = sprintf("%+.2f", err)
						}
						printf "RUN where=%s cgroups=%s trigger=%s rep=%d us_per_roundtrip=%s worst_side_csw_error_pct=%s %s\n",
						    where, kind, t, rep, us, err, stats }' "$BENCH_TMP/out" | tee -a "$BENCH_TMP/all"
			done
		done
	done
done
# Per placement, cgroups and trigger: the median cost and the worst error.
awk '/^RUN/ {
	for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	print v["where"], v["cgroups"], v["trigger"], v["us_per_roundtrip"], v["worst_side_csw_error_pct"]
}' "$BENCH_TMP/all" | sort -k1,1 -k2,2 -k3,3 -k4,4g | awk '
	function flush() {
		if (!n) return
		m = n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2
		printf "RESULT bpf_trigger where=%s cgroups=%s trigger=%s us_per_roundtrip_median=%.3f worst_csw_error_pct=%s n=%d\n", f1, f2, f3, m, worst, n
	}
	{ k = $1 " " $2 " " $3
	  if (k != last) { flush(); n = 0; worst = "-"; last = k; f1 = $1; f2 = $2; f3 = $3 }
	  x[++n] = $4
	  if ($5 != "-") { a = $5 < 0 ? -$5 : $5 + 0; if (worst == "-" || a > worst) worst = a } }
	END { flush() }'
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
