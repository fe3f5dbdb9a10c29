#!/bin/bash
# run.sh - every benchmark, then one summary to paste into bench/RESULTS.md.
#
#   bench/run.sh          (as root, from a configured and built tree;
#                          top_builddir=DIR for a separate build directory)
#
# Builds the bench programs (make bench), prints the machine facts, runs
# collect_bench twice (a default-like config; 1000 cgroups), then
# scrape_bench.sh, pingpong_bench.sh and config_bench.sh, and ends with
# the RESULT lines side by side with their targets.  The full output is
# also kept in $TMPDIR/pmu_bench_run.<time>.log.  A few minutes at most;
# each part has its own time limit.  Results are only meaningful on an
# otherwise idle machine: before each part it waits up to QUIET_WAIT
# seconds (default 60) for the CPUs to be at most QUIET_PCT% busy
# (default 10) and prints what it found.
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
export top_srcdir top_builddir
BIN=$top_builddir/bench

QUIET_PCT=${QUIET_PCT:-10}
QUIET_WAIT=${QUIET_WAIT:-60}
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
trap bench_cleanup EXIT

[ "$(id -u)" = 0 ] || { echo "run.sh: must run as root" >&2; exit 1; }
make -s -C "$top_builddir" all bench >/dev/null ||
	{ echo "run.sh: make all bench failed" >&2; exit 1; }

LOG=${TMPDIR:-/tmp}/pmu_bench_run.$(date -u +%Y%m%dT%H%M%SZ).log
RES=$BENCH_TMP/results

# Wait (at most QUIET_WAIT seconds) until the rest of the machine is
# quiet: other work on these few CPUs moves every figure.
wait_quiet() {
	local busy waited=0
	while :; do
		busy=$(bench_busy_pct 2)
		if [ "$busy" -le "$QUIET_PCT" ] || [ $waited -ge "$QUIET_WAIT" ]; then
			break
		fi
		sleep 3
		waited=$((waited + 5))
	done
	echo "CPU busy before this part: ${busy}% (waited ${waited}s for <= ${QUIET_PCT}%)"
}

# CPUs taken offline so far, per the kernel log (empty if unreadable).
offlines() {
	dmesg 2>/dev/null | grep -c 'is now offline'
}

# part NAME LIMIT COMMAND...: run with a time limit, keep RESULT lines.
# Exit 3 means the program saw a CPU go offline: it is run once more.
part() {
	local name=$1 limit=$2 rc off0 off1
	shift 2
	echo
	echo "### $name: $*"
	for _ in 1 2; do
		wait_quiet
		off0=$(offlines)
		timeout --foreground "$limit" "$@" 2>&1 | tee -a "$RES"
		rc=${PIPESTATUS[0]}
		off1=$(offlines)
		[ "$off0" = "$off1" ] || echo "### $name: a CPU was taken" \
		    "offline during this part; its figures are disturbed" |
		    tee -a "$RES"
		[ "$rc" = 3 ] || break
		echo "### $name: invalid run, once more"
	done
	[ "$rc" = 0 ] || echo "### $name FAILED (exit $rc)" | tee -a "$RES"
}

{
	echo "### pmu_exporter benchmarks, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "kernel $(uname -r), $(nproc) CPUs," \
	    "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | sort -u | tr '\n' ' ')"
	if perf stat -e instructions true 2>&1 | grep -q 'not supported'; then
		echo "hardware PMU: none (perf stat -e instructions: not supported)"
	else
		echo "hardware PMU: instructions can be counted"
	fi
	echo "pmu_exporter $("$top_builddir/daemon/pmu_exporter" --version)," \
	    "git $(git -C "$top_srcdir" rev-parse --short HEAD 2>/dev/null || echo '?')" \
	    "$(git -C "$top_srcdir" status --porcelain 2>/dev/null | grep -q . && echo '(working tree modified)')"
	echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "other processes holding perf events: $(bench_perf_users | grep . || echo none)"

	part collect-default 120 "$BIN/collect_bench" -l default-like \
	    -n 8 -k 200 -R -t 1.5 -m 16
	part collect-1000 180 "$BIN/collect_bench" -l 1000-cgroups \
	    -n 1000 -C -e task-clock,context-switches -k 100 -R -t 1.2 -m 16
	part scrape 180 "$here/scrape_bench.sh"
	part pingpong 240 "$here/pingpong_bench.sh"
	part config 600 "$here/config_bench.sh"

	echo
	echo "### summary"
	echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
	grep '^RESULT label=' "$RES" | sed 's/^RESULT //' | awk '{
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		printf "%-13s collect %9s us  raw %9s us  ratio %s (<= %s: %s)  open %s ms (raw %s)  RSS %s MB (<= %s: %s)  rescan collect %s us\n",
		    v["label"], v["collect_us"], v["raw_us"], v["ratio"],
		    v["max_ratio"], (v["ratio"] + 0 <= v["max_ratio"] + 0 ? "met" : "NOT met"),
		    v["open_collector_ms"], v["open_raw_ms"], v["rss_mb"],
		    v["max_rss_mb"], (v["rss_mb"] + 0 <= v["max_rss_mb"] + 0 ? "met" : "NOT met"),
		    v["rescan_collect_us"]
	}'
	grep '^RESULT scrape' "$RES" | sed 's/^RESULT scrape //' | awk '{
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		printf "scrape        pmu_exporter %.0f req/s p99 %s ms (%s series), node_exporter %.0f req/s p99 %s ms (%s series): %sx (>= 30: %s); server CPU/request %s vs %s us (%sx)\n",
		    v["pmu_rps"], v["pmu_p99_ms"], v["pmu_series"], v["ne_rps"],
		    v["ne_p99_ms"], v["ne_series"], v["ratio"],
		    (v["ratio"] + 0 >= 30 ? "met" : "NOT met"), v["pmu_cpu_us_per_req"],
		    v["ne_cpu_us_per_req"], v["cpu_ratio"]
		printf "memory        default config: VmRSS %s kB before, %s kB after %s scrapes (<= 8192: %s)\n",
		    v["rss_before_kb"], v["rss_after_kb"], v["scrapes_ok"],
		    (v["rss_after_kb"] + 0 <= 8192 && v["rss_later_kb"] + 0 <= 8192 ? "met" : "NOT met")
	}'
	grep '^RESULT pingpong' "$RES" | sed 's/^RESULT pingpong //' | awk '{
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		printf "pingpong      us/round trip median: none %s, daemon %s, perf stat %s (daemon <= perf: %s); best: %s, %s, %s (%s)\n",
		    v["none_us"], v["daemon_us"], v["perf_us"],
		    (v["daemon_us"] + 0 <= v["perf_us"] + 0 ? "met" : "NOT met"),
		    v["none_min_us"], v["daemon_min_us"], v["perf_min_us"],
		    (v["daemon_min_us"] + 0 <= v["perf_min_us"] + 0 ? "met" : "NOT met")
	}'
	grep '^RESULT config' "$RES" | sed 's/^RESULT config //' | awk '{
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		printf "config        CPU of 20,000 / 10,000 groups: --check-config %s (<= %s: %s), reload %s (<= %s: %s); --check-config s: %s\n",
		    v["check_ratio"], v["max_ratio"],
		    (v["check_ratio"] != "" && v["check_ratio"] + 0 <= v["max_ratio"] + 0 ? "met" : "NOT met"),
		    v["reload_ratio"], v["max_ratio"],
		    (v["reload_ratio"] != "" && v["reload_ratio"] + 0 <= v["max_ratio"] + 0 ? "met" : "NOT met"),
		    v["check_cpu_s"]
	}'
	grep 'FAILED\|offline during' "$RES"
	echo "full log: $LOG"
} 2>&1 | tee "$LOG"
