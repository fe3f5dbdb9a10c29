#!/bin/bash
# scrape_bench.sh - how fast /metrics answers, next to node_exporter's perf
# collector, and what 10,000 scrapes do to the daemon's memory.
#
#   bench/scrape_bench.sh        (as root; DURATION=10s SCRAPES=10000)
#
# 1. pmu_exporter with a config of about 40 event series (a 4-event
#    software group on every CPU and on 8 test cgroups it creates under
#    pmu_bench_scrape_<pid>), and prometheus-node-exporter with only its
#    perf collector, each loaded with `wrk -t2 -c4 -d10s --latency`.
#    Targets: pmu_exporter >= 30x node_exporter's requests/s.
# 2. pmu_exporter with its default config (no --config.file): VmRSS before
#    and after SCRAPES sequential scrapes.  Target: <= 8 MB.
#
# Servers bind 127.0.0.1 on free ports; only the PIDs started here are
# killed, only the cgroups made here removed.  wrk, the servers and this
# script share the machine's CPUs: that is part of what is measured.
set -u
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
trap bench_cleanup EXIT
trap 'exit 130' INT TERM HUP

DURATION=${DURATION:-10s}
SCRAPES=${SCRAPES:-10000}
NCG=8

[ "$(id -u)" = 0 ] || bench_die "must run as root (cgroup creation, perf)"
for t in wrk curl prometheus-node-exporter ss; do
	command -v $t >/dev/null || bench_die "$t not found" \
	    "(apt-get install -y wrk curl prometheus-node-exporter iproute2)"
done
[ -x "$PMU_EXPORTER" ] || bench_die "$PMU_EXPORTER is not built (make)"
CGROOT=$(bench_cgroot)
[ -n "$CGROOT" ] || bench_die "no cgroup hierarchy for perf in mountinfo"

# CPU seconds (user + system) a PID has used so far.
cpu_s() {
	awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / hz }' \
	    "/proc/$1/stat"
}

# wrk URL PID -> "requests/s p99_ms non2xx errors requests server_cpu_s"
run_wrk() {
	local c0 c1
	c0=$(cpu_s "$2")
	timeout 120 wrk -t2 -c4 -d"$DURATION" --latency "$1" \
	    >"$BENCH_TMP/wrk.out" 2>&1
	c1=$(cpu_s "$2")
	awk -v cpu="$(awk -v a="$c0" -v b="$c1" 'BEGIN { print b - a }')" '
	function ms(v) {
		if (v ~ /us$/) return v / 1000
		if (v ~ /ms$/) return v + 0
		if (v ~ /s$/) return v * 1000
		return v
	}
	/Requests\/sec:/ { rps = $2 }
	$1 == "99%" { p99 = ms($2) }
	/Non-2xx/ { bad = $NF }
	/Socket errors/ { err = $0; sub(/.*errors: */, "", err); gsub(/ /, "", err) }
	/ requests in / { n = $1 }
	END { printf "%s %.3f %d %s %d %s\n", rps, p99, bad,
	    (err == "" ? "none" : err), n, cpu }
	' "$BENCH_TMP/wrk.out"
}

echo "== scrape_bench: $(date -u +%Y-%m-%dT%H:%M:%SZ), $(uname -r), $(nproc) CPUs"

# ---- 1. throughput ---------------------------------------------------
bench_mkcg "$CGROOT/pmu_bench_scrape_$$"
for i in $(seq 1 $NCG); do
	bench_mkcg "$CGROOT/pmu_bench_scrape_$$/cg$i"
done
cat >"$BENCH_TMP/scrape.yaml" <<EOF
interval: 1s
groups:
  - name: sw
    events: [task-clock, context-switches, cpu-migrations, page-faults]
cpus:
  - cpus: all
    groups: [sw]
cgroups:
  - path: /pmu_bench_scrape_$$/*
    groups: [sw]
EOF

P1=$(bench_free_port)
bench_spawn "$PMU_EXPORTER" --config.file="$BENCH_TMP/scrape.yaml" \
    --web.listen-address="127.0.0.1:$P1" --log.level=warn \
    2>"$BENCH_TMP/pmu.log"
PMU=$BENCH_LAST
bench_wait_http "http://127.0.0.1:$P1/-/ready" ||
	bench_die "pmu_exporter did not come up: $(cat "$BENCH_TMP/pmu.log")"

P2=$(bench_free_port)
[ "$P2" = "$P1" ] && P2=$(bench_free_port)
bench_spawn prometheus-node-exporter --collector.disable-defaults \
    --collector.perf --web.listen-address="127.0.0.1:$P2" \
    2>"$BENCH_TMP/ne.log"
NE=$BENCH_LAST
bench_wait_http "http://127.0.0.1:$P2/metrics" ||
	bench_die "node_exporter did not come up: $(tail -3 "$BENCH_TMP/ne.log")"
sleep 1.2	# a collection or two, so every series has a value

curl -fs "http://127.0.0.1:$P1/metrics" >"$BENCH_TMP/pmu.metrics"
curl -fs "http://127.0.0.1:$P2/metrics" >"$BENCH_TMP/ne.metrics"
pmu_ev=$(grep -c '^pmu_[a-z]*_events_total{' "$BENCH_TMP/pmu.metrics")
pmu_all=$(grep -vc '^#' "$BENCH_TMP/pmu.metrics")
pmu_bytes=$(wc -c <"$BENCH_TMP/pmu.metrics")
ne_ev=$(grep -c '^node_perf_' "$BENCH_TMP/ne.metrics")
ne_all=$(grep -vc '^#' "$BENCH_TMP/ne.metrics")
ne_bytes=$(wc -c <"$BENCH_TMP/ne.metrics")
ne_names=$(grep '^node_perf_' "$BENCH_TMP/ne.metrics" | sed 's/{.*//' |
    sort -u | sed 's/node_perf_//' | tr '\n' ' ')
echo "pmu_exporter:  $pmu_ev event series ($pmu_all samples, $pmu_bytes bytes)"
echo "node_exporter: $ne_ev perf series ($ne_all samples, $ne_bytes bytes): $ne_names"
grep -q '^node_scrape_collector_success{collector="perf"} 1' \
    "$BENCH_TMP/ne.metrics" || echo "node_exporter: perf collector FAILED"

rss0=$(bench_rss_kb "$PMU")
read -r pmu_rps pmu_p99 pmu_bad pmu_err pmu_n pmu_cpu \
    < <(run_wrk "http://127.0.0.1:$P1/metrics" "$PMU")
rss1=$(bench_rss_kb "$PMU")
read -r ne_rps ne_p99 ne_bad ne_err ne_n ne_cpu \
    < <(run_wrk "http://127.0.0.1:$P2/metrics" "$NE")
pmu_us=$(awk -v c="$pmu_cpu" -v n="$pmu_n" 'BEGIN { printf "%.1f", (n > 0 ? c * 1e6 / n : 0) }')
ne_us=$(awk -v c="$ne_cpu" -v n="$ne_n" 'BEGIN { printf "%.1f", (n > 0 ? c * 1e6 / n : 0) }')
cpu_ratio=$(awk -v a="$pmu_us" -v b="$ne_us" 'BEGIN { printf "%.1f", (a > 0 ? b / a : 0) }')
ratio=$(awk -v a="$pmu_rps" -v b="$ne_rps" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }')
met=$(awk -v r="$ratio" 'BEGIN { print (r >= 30 ? "met" : "NOT met") }')
echo "wrk -t2 -c4 -d$DURATION --latency:"
printf "  pmu_exporter   %10.0f req/s   p99 %8.3f ms   non-2xx %s   socket errors %s\n" \
    "$pmu_rps" "$pmu_p99" "$pmu_bad" "$pmu_err"
printf "  node_exporter  %10.0f req/s   p99 %8.3f ms   non-2xx %s   socket errors %s\n" \
    "$ne_rps" "$ne_p99" "$ne_bad" "$ne_err"
echo "  ratio ${ratio}x (target >= 30x): $met"
echo "  server CPU per request: pmu_exporter $pmu_us us ($pmu_cpu s for $pmu_n)," \
    "node_exporter $ne_us us ($ne_cpu s for $ne_n): ${cpu_ratio}x less"
echo "  pmu_exporter VmRSS $rss0 kB before wrk, $rss1 kB after"
bench_stop "$NE"
bench_stop "$PMU"

# ---- 2. memory over many scrapes, default config ---------------------
P3=$(bench_free_port)
bench_spawn "$PMU_EXPORTER" --web.listen-address="127.0.0.1:$P3" \
    --log.level=warn 2>"$BENCH_TMP/pmu_default.log"
PMU=$BENCH_LAST
bench_wait_http "http://127.0.0.1:$P3/-/ready" ||
	bench_die "pmu_exporter did not come up: $(cat "$BENCH_TMP/pmu_default.log")"
sleep 1.2
def_ev=$(curl -fs "http://127.0.0.1:$P3/metrics" |
    grep -c '^pmu_[a-z]*_events_total{')
r0=$(bench_rss_kb "$PMU")
t0=$(date +%s.%N)
ok=$(timeout 300 curl -s "http://127.0.0.1:$P3/metrics?[1-$SCRAPES]" \
    -w 'CODE %{http_code}\n' | grep -c '^CODE 200$')
t1=$(date +%s.%N)
r1=$(bench_rss_kb "$PMU")
sleep 1.2
r2=$(bench_rss_kb "$PMU")
secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
met2=$(awk -v r="$r1" -v s="$r2" 'BEGIN {
	print (r <= 8192 && s <= 8192 ? "met" : "NOT met") }')
echo "default config ($def_ev event series), $ok/$SCRAPES scrapes answered 200 in ${secs}s (one curl, keep-alive):"
echo "  VmRSS $r0 kB before, $r1 kB right after, $r2 kB 1.2 s later (target <= 8192 kB): $met2"
bench_stop "$PMU"

echo "RESULT scrape pmu_series=$pmu_ev ne_series=$ne_ev pmu_rps=$pmu_rps" \
    "pmu_p99_ms=$pmu_p99 ne_rps=$ne_rps ne_p99_ms=$ne_p99 ratio=$ratio" \
    "pmu_cpu_us_per_req=$pmu_us ne_cpu_us_per_req=$ne_us cpu_ratio=$cpu_ratio" \
    "default_series=$def_ev scrapes_ok=$ok rss_before_kb=$r0" \
    "rss_after_kb=$r1 rss_later_kb=$r2"
