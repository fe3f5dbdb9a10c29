#!/bin/bash
# http_bench.sh - the HTTP side's numbers for bench/RESULTS.md: scrape
# throughput and latency with wrk against node_exporter's perf collector
# at a similar series count (plain and gzip), then at 100,000 series the
# render time per snapshot and scrape throughput in bytes/s.
#
# Run as root from a built tree (make && make tests/lib/helpers/fake_serve):
#   bench/http_bench.sh [SECONDS]
# Every server binds 127.0.0.1; every load is bounded by SECONDS (10).
# Each figure is printed with the command that produced it.
set -u
cd "$(dirname "$0")/.."
SECS=${1:-10}
PMU=daemon/pmu_exporter
FAKE=tests/lib/helpers/fake_serve
NE=$(command -v prometheus-node-exporter || command -v node_exporter || true)
for t in wrk curl "$PMU" "$FAKE"; do
	command -v "$t" >/dev/null || [ -x "$t" ] || { echo "missing $t (build first; apt-get install wrk)"; exit 1; }
done
TMP=$(mktemp -d)
PIDS=
trap 'for p in $PIDS; do kill $p 2>/dev/null; wait $p 2>/dev/null; done; rm -rf "$TMP"' EXIT

run() { echo "\$ $*"; "$@"; echo; }
wait_up() { for _ in $(seq 1 100); do curl -sf -o /dev/null "$1" && return 0; sleep 0.1; done; echo "not up: $1"; exit 1; }
series() { curl -s "$1" | grep -vc '^#'; }

echo "# machine: $(nproc) vCPU, $(uname -r), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-)"
echo "# wrk: 2 threads, 16 connections, ${SECS}s; --latency gives p50/p75/p90/p99"
echo

# 1. Small: node_exporter's perf collector against pmu_exporter counting
# the same five software events on every CPU.
cat > "$TMP/sw.yaml" <<YAML
groups:
  - name: sw
    events: [context-switches, cpu-migrations, page-faults, minor-faults, major-faults]
cpus:
  - cpus: all
    groups: [sw]
YAML
"$PMU" --web.listen-address=127.0.0.1:19301 --config.file="$TMP/sw.yaml" --web.max-requests=0 \
	--log.level=warn 2>"$TMP/pmu.log" &
PIDS="$PIDS $!"
wait_up http://127.0.0.1:19301/metrics
if [ -n "$NE" ]; then
	"$NE" --web.listen-address=127.0.0.1:19302 --collector.disable-defaults --collector.perf \
		--collector.perf.cpus="0-$(( $(nproc) - 1 ))" 2>"$TMP/ne.log" &
	PIDS="$PIDS $!"
	wait_up http://127.0.0.1:19302/metrics
	echo "## node_exporter $("$NE" --version 2>&1 | head -1 | awk '{print $3}') --collector.perf: $(series http://127.0.0.1:19302/metrics) series, $(curl -s http://127.0.0.1:19302/metrics | wc -c) bytes"
	run wrk -t2 -c16 -d"${SECS}s" --latency http://127.0.0.1:19302/metrics
	run wrk -t2 -c16 -d"${SECS}s" --latency -H 'Accept-Encoding: gzip' http://127.0.0.1:19302/metrics
else
	echo "## node_exporter not installed (apt-get install prometheus-node-exporter): skipped"
fi
echo "## pmu_exporter, same events: $(series http://127.0.0.1:19301/metrics) series, $(curl -s http://127.0.0.1:19301/metrics | wc -c) bytes"
run wrk -t2 -c16 -d"${SECS}s" --latency http://127.0.0.1:19301/metrics
run wrk -t2 -c16 -d"${SECS}s" --latency -H 'Accept-Encoding: gzip' http://127.0.0.1:19301/metrics

# 2. 100,000 series: render time per snapshot (each variant, fresh
# snapshots), then scrapes of the real HTTP server over a synthetic
# snapshot replaced every second as the collector would.
echo "## 100,000 series: render per snapshot (10 fresh snapshots each)"
run "$FAKE" --render 100000 10
"$FAKE" 127.0.0.1:19303 100000 0 2>"$TMP/fake.log" &
PIDS="$PIDS $!"
wait_up http://127.0.0.1:19303/-/ready
echo "## 100,000 series over HTTP: $(curl -s http://127.0.0.1:19303/metrics | wc -c) bytes plain, $(curl -s -H 'Accept-Encoding: gzip' http://127.0.0.1:19303/metrics | wc -c) bytes gzip"
run wrk -t2 -c4 -d"${SECS}s" --latency --timeout 10s http://127.0.0.1:19303/metrics
run wrk -t2 -c4 -d"${SECS}s" --latency --timeout 10s -H 'Accept-Encoding: gzip' http://127.0.0.1:19303/metrics
