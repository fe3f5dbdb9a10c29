#!/bin/bash
# config_bench.sh - how the time of `pmu_exporter --check-config` grows
# with the number of groups in the config, and the time of a reload
# (SIGHUP) of that config, which parses it the same way (issue 22).
# Linear doubles with the groups; quadratic quadruples.
#
# For each N in NS, a config of N groups of two software events each
# (task-clock and context-switches), named by two entries:
#   cpus: all, groups [g0]             opened, enabled, read and reported
#                                      like any group --check-config checks
#   cgroups: an empty test cgroup,     the target is built with all N
#   groups [gN-1 ... g0], max_fds: 1   groups, then left unopened (over
#                                      the fd budget), as --check-config
#                                      reports
# so the time is the exporter's own: the parse with every check that
# relates one entry to the others, the plan, the collector's targets and
# the report, and not the kernel's (see OPEN_NS).
#
#   check   REPS runs of `--check-config --config.file=F` (it exits 1:
#           the cgroup is "not counted (over the fd budget)", which is the
#           point); wall and CPU (user + system) seconds, from bash's
#           `time`.  Medians.
#   reload  one daemon with F, REPS SIGHUPs one at a time: wall ms from
#           the signal to its "reloaded" log line (ms timestamps), and the
#           CPU its threads used meanwhile (/proc/PID/task/*/schedstat).
#           Medians.  RELOAD=0 leaves it out.
#
# Each N's ratio to the N before it is printed, and the ratio of the CPU
# medians at 20,000 and 10,000 groups is checked against MAX_RATIO
# (default 3: linear is about 2, quadratic about 4); exit 1 if not met.
#
# OPEN_NS (default "1000 2000 4000"; empty: none) measures, for
# contrast, --check-config of N one-event groups all opened on CPU 0.
# That stays quadratic whatever the exporter does: the kernel reschedules
# every event of the CPU's context at each PERF_EVENT_IOC_ENABLE (and at
# each perf_event_open of an enabled event), so the k-th enable costs
# O(k).  Reported, not bounded.
#
#   bench/config_bench.sh   (as root; NS="5000 10000 20000 40000" REPS=5
#                            RELOAD=1 OPEN_NS="1000 2000 4000" MAX_RATIO=3)
#
# PMU_EXPORTER=/path/to/another/pmu_exporter measures another build (say,
# an older one) the same way.  The last line is a RESULT line for
# bench/run.sh.  Everything made is removed at exit.
set -u
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
trap bench_cleanup EXIT
trap 'exit 130' INT TERM HUP

NS=${NS:-5000 10000 20000 40000}
REPS=${REPS:-5}
RELOAD=${RELOAD:-1}
OPEN_NS=${OPEN_NS-1000 2000 4000}
MAX_RATIO=${MAX_RATIO:-3}

bench_require "curl ss" "pmu_exporter"
CG=pmu_bench_$$
bench_mkcg "$CGROOT/$CG"

# config N: the config described above, on stdout.
config() {
	awk -v n="$1" -v cg="/$CG" 'BEGIN {
		print "interval: 1s\nmax_fds: 1\ngroups:"
		for (i = 0; i < n; i++)
			printf "  - {name: g%d, events: [task-clock, context-switches]}\n", i
		print "cpus:\n  - {cpus: all, groups: [g0]}"
		printf "cgroups:\n  - path: %s\n    groups: [", cg
		for (i = n - 1; i >= 0; i--)
			printf "g%d%s", i, i ? ", " : "]\n"
	}'
}

# open_config N: N one-event groups, all on CPU 0.
open_config() {
	awk -v n="$1" 'BEGIN {
		print "groups:"
		for (i = 0; i < n; i++)
			printf "  - {name: g%d, events: [task-clock]}\n", i
		printf "cpus:\n  - cpus: \"0\"\n    groups: ["
		for (i = 0; i < n; i++)
			printf "%sg%d", i ? ", " : "", i
		print "]"
	}'
}

# timed OUT CMD...: one run of CMD, its output in OUT; prints "wall cpu"
# in seconds.
timed() {
	local out=$1 t
	shift
	t=$( { TIMEFORMAT='%3R %3U %3S'; time "$@" > "$out" 2>&1; } 2>&1 )
	awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' <<<"$t"
}

# check_once CFG OUT WANT: one --check-config run, "wall cpu"; dies unless
# its report has the line WANT (the run did what it is meant to).
check_once() {
	local t
	t=$(timed "$2" "$PMU_EXPORTER" --check-config --config.file="$1")
	grep -qF -- "$3" "$2" ||
		bench_die "$1: --check-config did not report \"$3\": $(tail -3 "$2")"
	echo "$t"
}

# reload_medians CFG: one daemon, REPS reloads; "wall_ms cpu_ms" medians.
reload_medians() {
	local cfg=$1 log="$1.log" port pid i t0 c0 line end ms=() cpu=()
	port=$(bench_free_port)
	bench_spawn "$PMU_EXPORTER" --config.file="$cfg" \
	    --web.listen-address="127.0.0.1:$port" > "$log" 2>&1
	pid=$BENCH_LAST
	# In $(...), without the EXIT trap: a failure stops its daemon.
	bench_wait_http "http://127.0.0.1:$port/-/ready" 600 ||
		{ bench_stop "$pid"; bench_die "$cfg: the daemon did not start: $(tail -3 "$log")"; }
	for i in $(seq 1 "$REPS"); do
		c0=$(bench_cpu_ns "$pid")
		t0=$(date +%s%3N)
		kill -HUP "$pid"
		end=$((SECONDS + 600))
		while [ "$(grep -c 'msg="reloaded' "$log")" -lt "$i" ]; do
			[ $SECONDS -lt $end ] ||
				{ bench_stop "$pid"; bench_die "$cfg: reload $i did not finish"; }
			sleep 0.02
		done
		line=$(grep 'msg="reloaded' "$log" | sed -n "${i}p")
		cpu+=("$(awk -v a="$(bench_cpu_ns "$pid")" -v b="$c0" \
		    'BEGIN { printf "%.1f", (a - b) / 1e6 }')")
		ms+=($(( $(bench_log_ms "$line") - t0 )))
		sleep 0.3
	done
	bench_stop "$pid"
	echo "$(printf '%s\n' "${ms[@]}" | bench_median)" \
	    "$(printf '%s\n' "${cpu[@]}" | bench_median)"
}

ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "-" }'
}

# series NAME: the table of $NAME.N files ("wall cpu" lines), ratios to
# the N before; leaves the CPU ratio 20000/10000 in R20.
series() {
	local name=$1 n prev_w='' prev_c='' prev_n='' w c
	R20=
	printf '%-8s %7s %10s %8s %10s %8s\n' "$name" groups wall "x prev" \
	    cpu "x prev"
	for n in $2; do
		w=$(cut -d' ' -f1 "$BENCH_TMP/$name.$n" | bench_median)
		c=$(cut -d' ' -f2 "$BENCH_TMP/$name.$n" | bench_median)
		printf '%-8s %7s %10s %8s %10s %8s\n' "$name" "$n" "$w" \
		    "$([ -n "$prev_w" ] && ratio "$w" "$prev_w")" "$c" \
		    "$([ -n "$prev_c" ] && ratio "$c" "$prev_c")"
		[ "$n" = 20000 ] && [ "$prev_n" = 10000 ] &&
			R20=$(ratio "$c" "$prev_c")
		prev_w=$w prev_c=$c prev_n=$n
	done
}

echo "# config_bench: $PMU_EXPORTER, $("$PMU_EXPORTER" --version 2>&1 | head -1)," \
    "$(getconf _NPROCESSORS_ONLN) CPUs, $REPS runs each, medians; load average $(cut -d' ' -f1-3 /proc/loadavg)"
for n in $NS; do
	config "$n" > "$BENCH_TMP/c$n.yaml"
	for _ in $(seq 1 "$REPS"); do
		check_once "$BENCH_TMP/c$n.yaml" "$BENCH_TMP/check.out" \
		    "/$CG: not counted (over the fd budget of 1)" || exit 1
	done >> "$BENCH_TMP/check.$n"
	if [ "$RELOAD" = 1 ]; then
		r=$(reload_medians "$BENCH_TMP/c$n.yaml") || exit 1
		echo "$r" > "$BENCH_TMP/reload.$n"
	fi
done
for n in $OPEN_NS; do
	open_config "$n" > "$BENCH_TMP/o$n.yaml"
	for _ in $(seq 1 "$REPS"); do
		check_once "$BENCH_TMP/o$n.yaml" "$BENCH_TMP/check.out" \
		    "system-wide group g$((n - 1)) on CPUs 0: 1 of 1 instances open" || exit 1
	done >> "$BENCH_TMP/open.$n"
done

echo "check: seconds per --check-config run; reload: ms per reload (wall, and CPU of the daemon's threads)"
series check "$NS"
check20=$R20
if [ "$RELOAD" = 1 ]; then
	series reload "$NS"
	reload20=$R20
fi
[ -n "$OPEN_NS" ] && series open "$OPEN_NS"

status=0
verdict() {	# verdict WHAT RATIO
	if [ -z "$2" ]; then
		echo "$1: 20,000/10,000 groups not measured (NS)"
	elif awk -v r="$2" -v m="$MAX_RATIO" 'BEGIN { exit !(r <= m) }'; then
		echo "$1: CPU 20,000/10,000 groups = $2; target <= $MAX_RATIO: met"
	else
		echo "$1: CPU 20,000/10,000 groups = $2; target <= $MAX_RATIO: NOT met"
		status=1
	fi
}
verdict check "$check20"
[ "$RELOAD" = 1 ] && verdict reload "$reload20"
echo "RESULT config check_ratio=${check20:-} reload_ratio=${reload20:-} max_ratio=$MAX_RATIO" \
    "check_cpu_s=$(for n in $NS; do printf '%s:%s,' "$n" "$(cut -d' ' -f2 "$BENCH_TMP/check.$n" | bench_median)"; done | sed 's/,$//')"
exit $status
