#!/bin/bash
# node_overhead.sh - what counting every container costs a busy node
# (issue 53): 100 containers-as-cgroups doing real work side by side,
# measured with nothing counting them and under each way of counting.
#
#   bench/node_overhead.sh [--quick]     (as root, from a clone: it
#                                         installs and builds what it needs)
#
# The containers are cgroups named as Docker's systemd driver names them,
# /pmu_node_<pid>.slice/docker-<64 hex>.scope, so that the embedded
# default config finds them as containers.  Their work:
#
#   http      15 nginx servers (one process, a 4 KB file) in 15 cgroups,
#             each loaded by a wrk (-t1 -c2, --latency) in another 15
#   pingpong  20 pipe ping-pong pairs (bench/node_work), each side in its
#             own cgroup, unpinned: every round trip is two switches
#             between cgroups (the switch-heavy workload)
#   stream    15 memory streamers (memcpy between two 16 MB buffers)
#   compress  15 compression jobs (zlib level 1 over 64 KB chunks)
#
# The conditions, each a window of WINDOW seconds with the work running:
#
#   off       nothing counting
#   perf      pmu_exporter, 4 software events per container in perf mode
#   bpf       the same in mode: bpf (fallback: refuse)
#   perfstat  perf stat -a -I 1000 -G over the same cgroups and events
#   default   pmu_exporter with its embedded default config
#
# The events are software ones (task-clock, context-switches,
# cpu-migrations, page-faults): the machines this was written on have no
# hardware PMU, and a cgroup-mode perf event is switched in and out with
# its cgroup the same way whatever its PMU.  Every round runs the five
# conditions in that order, every other round in the reverse one (a node
# whose work drifts over the run, as a ping-pong's throughput does over
# its first minutes, favours no condition); each figure is the median
# over ROUNDS rounds with its min-max, and each ratio to "off" is taken
# within one round.  The work runs WARMUP seconds before the first.
#
# Then the scrape: the daemon (mode: bpf, whose fds do not grow with the
# cgroups: perf mode's 1,000 x 10 x CPUs may be over the open-files
# limit) counting 100 and 1,000 empty cgroups x 2, 4 and 10 software
# events (the series are the same in either mode); the bytes of one /metrics
# (uncompressed and gzip) and the median time of SCRAPES scrapes, the
# six configurations alternating over SROUNDS rounds.
#
# Raw numbers go to OUT.tsv (one line per round, condition and metric),
# the table to OUT.md and the plot to OUT.png (bench/node_overhead_plot.py),
# OUT being bench/node_overhead (bench/node_overhead-quick with --quick).
# A full run takes about 15 minutes on 2 vCPUs; --quick about 2.
# Servers bind 127.0.0.1 on free ports; only the PIDs started here are
# ended and only the cgroups made here removed, on exit.
set -u
cd "$(dirname "$0")/.." || exit 1
top_srcdir=$(pwd)
QUICK=
case ${1:-} in
--quick) QUICK=1 ;;
"") ;;
*) echo "usage: bench/node_overhead.sh [--quick]" >&2; exit 2 ;;
esac
if [ -n "$QUICK" ]; then
	: "${ROUNDS:=1}" "${WINDOW:=6}" "${SROUNDS:=1}" "${SCRAPES:=5}" "${WARMUP:=2}"
	OUT=${OUT:-$top_srcdir/bench/node_overhead-quick}
else
	: "${ROUNDS:=5}" "${WINDOW:=15}" "${SROUNDS:=3}" "${SCRAPES:=20}" "${WARMUP:=10}"
	OUT=${OUT:-$top_srcdir/bench/node_overhead}
fi
EVENTS4="task-clock context-switches cpu-migrations page-faults"
# The ninth software event is the last: a tracepoint makes ten.
EVENTS10="$EVENTS4 minor-faults major-faults alignment-faults emulation-faults cpu-clock sched:sched_switch"
N_HTTP=15 N_PP=20 N_STREAM=15 N_COMP=15
PORTS=()
PY=/usr/bin/python3

# Debian packages, configure and make, as run.sh does, for what is missing.
prepare() {
	local pkgs="" t
	[ "$(id -u)" = 0 ] || { echo "node_overhead: must run as root" >&2; exit 1; }
	# shellcheck source=deps.sh
	. ./deps.sh
	pmu_install_deps bench || exit 1
	for t in nginx:nginx wrk:wrk perf:linux-perf curl:curl ss:iproute2; do
		command -v "${t%%:*}" >/dev/null || pkgs="$pkgs ${t#*:}"
	done
	$PY -c 'import matplotlib' 2>/dev/null || pkgs="$pkgs python3-matplotlib"
	if [ -n "$pkgs" ]; then
		echo "node_overhead: installing$pkgs" >&2
		# shellcheck disable=SC2086
		DEBIAN_FRONTEND=noninteractive pmu_retry "the packages$pkgs" -- \
		    apt-get install -y -q --no-install-recommends $pkgs >&2 || exit 1
	fi
	[ -x configure ] || autoreconf -fi || exit 1
	[ -f Makefile ] || ./configure -q || exit 1
	if [ ! -x daemon/pmu_exporter ] || [ ! -x bench/node_work ]; then
		make -s -j"$(nproc)" daemon/pmu_exporter bench/node_work || exit 1
	fi
}
prepare
# shellcheck source=bench/lib.sh
. bench/lib.sh
nd_cleanup() {
	local p
	# The workers first, so that their cgroups empty.
	for p in $BENCH_PIDS; do bench_stop "$p"; done
	bench_cleanup
}
trap nd_cleanup EXIT
trap 'exit 130' INT TERM HUP
bench_require "nginx wrk perf curl ss" "pmu_exporter node_work"
# Perf mode opens events x CPUs x 100 fds: as many as we may.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || :
P=pmu_node_$$.slice
PD=$CGROOT/$P
COUNTERS=$BENCH_TMP/counters
TSV=$BENCH_TMP/raw.tsv
printf 'part\tround\tcondition\tmetric\tvalue\n' >"$TSV"

cg() { printf '%s/docker-%064x.scope' "$PD" "$1"; }

# in_cg DIR COMMAND...: COMMAND, in the cgroup DIR (for bench_spawn).
in_cg() {
	echo "$BASHPID" >"$1/cgroup.procs" || exit 1
	shift
	exec "$@"
}

nginx_conf() {	# nginx_conf I PORT: the config of server I
	local d=$BENCH_TMP/nginx$1
	mkdir -p "$d"
	cat >"$d/nginx.conf" <<EOF
daemon off;
master_process off;
worker_processes 1;
pid $d/nginx.pid;
error_log $d/error.log warn;
events { worker_connections 64; }
http {
	access_log off;
	client_body_temp_path $d;
	proxy_temp_path $d;
	fastcgi_temp_path $d;
	uwsgi_temp_path $d;
	scgi_temp_path $d;
	server {
		listen 127.0.0.1:$2;
		root $BENCH_TMP/www;
	}
}
EOF
}

# The 100 containers and their work: cgroups 1-15 nginx, 16-30 wrk (run
# per window), 31-70 the ping-pong pairs, 71-85 stream, 86-100 compress.
start_work() {
	local i port slot=0
	bench_mkcg "$PD"
	for i in $(seq 1 100); do bench_mkcg "$(cg "$i")"; done
	mkdir -p "$BENCH_TMP/www"
	head -c 4096 /dev/urandom | base64 -w 64 | head -c 4096 >"$BENCH_TMP/www/index.html"
	for i in $(seq 1 $N_HTTP); do
		port=$(bench_free_port)
		nginx_conf "$i" "$port"
		PORTS+=("$port")
		bench_spawn in_cg "$(cg "$i")" nginx -c "$BENCH_TMP/nginx$i/nginx.conf" \
		    -e "$BENCH_TMP/nginx$i/error.log"
	done
	for i in $(seq 1 $N_PP); do
		bench_spawn "$BENCH_BIN/node_work" pingpong "$COUNTERS" $slot \
		    "$(cg $((29 + 2 * i)))" "$(cg $((30 + 2 * i)))"
		slot=$((slot + 1))
	done
	for i in $(seq 1 $N_STREAM); do
		bench_spawn "$BENCH_BIN/node_work" stream "$COUNTERS" $slot "$(cg $((70 + i)))"
		slot=$((slot + 1))
	done
	for i in $(seq 1 $N_COMP); do
		bench_spawn "$BENCH_BIN/node_work" compress "$COUNTERS" $slot "$(cg $((85 + i)))"
		slot=$((slot + 1))
	done
	for port in "${PORTS[@]}"; do
		bench_wait_http "http://127.0.0.1:$port/" 20 || bench_die "nginx on $port did not come up"
	done
}

# The workers' counters now, one file per workload: SUFFIX.
snap_all() {
	"$BENCH_BIN/node_work" snap "$COUNTERS" 0 $((N_PP - 1)) >"$BENCH_TMP/pp.$1"
	"$BENCH_BIN/node_work" snap "$COUNTERS" $N_PP $((N_PP + N_STREAM - 1)) >"$BENCH_TMP/stream.$1"
	"$BENCH_BIN/node_work" snap "$COUNTERS" $((N_PP + N_STREAM)) \
	    $((N_PP + N_STREAM + N_COMP - 1)) >"$BENCH_TMP/comp.$1"
}

# One wrk per server for WINDOW seconds, each in its client cgroup;
# prints "sum of requests/s" and "median of the p99s, ms".
run_wrk() {
	local i=0 port pids=""
	for port in "${PORTS[@]}"; do
		i=$((i + 1))
		in_cg "$(cg $((N_HTTP + i)))" timeout $((WINDOW + 30)) wrk -t1 -c2 \
		    -d"${WINDOW}s" --latency "http://127.0.0.1:$port/" \
		    >"$BENCH_TMP/wrk.$i" 2>&1 &
		pids="$pids $!"
	done
	# shellcheck disable=SC2086
	wait $pids
	cat "$BENCH_TMP"/wrk.* | awk '
	function ms(v) {
		if (v ~ /us$/) return v / 1000
		if (v ~ /ms$/) return v + 0
		if (v ~ /s$/) return v * 1000
		return v
	}
	/Requests\/sec:/ { rps += $2 }
	$1 == "99%" { print ms($2) > "/dev/stderr" }
	END { printf "%.1f\n", rps }' 2>"$BENCH_TMP/p99s" | tr -d '\n'
	echo " $(bench_median <"$BENCH_TMP/p99s")"
	rm -f "$BENCH_TMP"/wrk.*
}

# /proc/stat's busy and total jiffies of all CPUs, and context switches.
cpu_jiffies() {
	awk '$1 == "cpu" { b = $2+$3+$4+$7+$8+$9; t = b+$5+$6 }
	    $1 == "ctxt" { print b, t, $2 }' /proc/stat
}

row() { printf '%s\t%s\t%s\t%s\t%s\n' "$@" >>"$TSV"; }

metric() { awk -v s="$2" '$1 == s { print $2 }' "$1"; }

daemon_config() {	# daemon_config MODE EVENTS PATTERN [INTERVAL] > FILE
	echo "interval: ${4:-1s}"
	echo "groups:"
	echo "  - name: sw"
	echo "    events: [\"${2// /\", \"}\"]"
	echo "cgroups:"
	echo "  - path: $3"
	echo "    groups: [sw]"
	echo "    mode: $1"
	[ "$1" = bpf ] && echo "    fallback: refuse"
	return 0
}

# start_daemon CONFIG|"" N PATTERN_RE: the daemon on a free port (in $PORT,
# its PID in $AGENT), once /metrics shows N cgroups matching PATTERN_RE.
start_daemon() {
	local n cfg=()
	[ -n "$1" ] && cfg=(--config.file="$1")
	bench_serve PORT "$BENCH_TMP/pmu.log" /-/ready 120 "$PMU_EXPORTER" "${cfg[@]}" \
	    --web.listen-address="127.0.0.1:@PORT@"
	AGENT=$BENCH_LAST
	for _ in $(seq 1 100); do
		curl -fs "http://127.0.0.1:$PORT/metrics" >"$BENCH_TMP/m"
		n=$(grep '^pmu_cgroup_events_total{' "$BENCH_TMP/m" |
		    sed -n 's/^[^{]*{cgroup="\([^"]*\)".*/\1/p' | grep -E "$3" | sort -u | wc -l)
		[ "$n" -ge "$2" ] && return 0
		sleep 0.2
	done
	bench_die "pmu_exporter counts $n of $2 cgroups after 20 s: $(tail -3 "$BENCH_TMP/pmu.log")"
}

# perf stat over the containers: -G wants one cgroup per event, each
# event group once per cgroup.  It starts at a higher priority (a second
# of CPU at a hundredth of the node's took 50 s) and runs at the normal
# one, as the daemon does.
perfstat_start() {
	local i e n evs="" cgs=""
	for i in $(seq 1 100); do
		evs="$evs,{${EVENTS4// /,}}"
		for e in $EVENTS4; do
			cgs="$cgs,$P/$(basename "$(cg "$i")")"
			: "$e"
		done
	done
	bench_spawn nice -n -10 perf stat -a -x, -I 1000 -o "$BENCH_TMP/perfstat.out" \
	    -e "${evs#,}" -G "${cgs#,}"
	AGENT=$BENCH_LAST
	# Opened once it has printed one interval: 400 lines.
	for _ in $(seq 1 600); do
		n=$(grep -c , "$BENCH_TMP/perfstat.out" 2>/dev/null)
		if [ "${n:-0}" -ge 400 ]; then
			renice -n 0 -p "$AGENT" >/dev/null
			return 0
		fi
		kill -0 "$AGENT" 2>/dev/null || break
		sleep 0.1
	done
	bench_die "perf stat did not start: $(tail -3 "$BENCH_TMP/perfstat.out")"
}

# The condition's counting, its process in $AGENT (empty for off).
cond_start() {
	local re="^/$P/docker-"
	AGENT=
	case $1 in
	off) ;;
	perf | bpf)
		daemon_config "$1" "$EVENTS4" "/$P/docker-*.scope" >"$BENCH_TMP/c.yaml"
		start_daemon "$BENCH_TMP/c.yaml" 100 "$re" ;;
	default) start_daemon "" 100 "$re"
		# How the default counts them: the layout line of the log.
		grep -o 'layout docker: [^"]*' "$BENCH_TMP/pmu.log" | tail -1 >"$BENCH_TMP/default_mode" ;;
	perfstat) perfstat_start ;;
	esac
	if [ "$1" = bpf ]; then
		grep -q '^pmu_exporter_bpf_trigger{' "$BENCH_TMP/m" ||
			bench_die "bpf: no pmu_exporter_bpf_trigger series"
	fi
	sleep 1
}

# measure COND ROUND: one window, its figures appended to the TSV.
measure() {
	local c=$1 r=$2 t0 t1 j0 j1 a0=0 a1=0 rss=0 secs http rps p99 v p w
	local start=$SECONDS up down
	cond_start "$c"
	up=$((SECONDS - start))
	snap_all 0
	t0=$(date +%s%N); j0=$(cpu_jiffies)
	[ -n "$AGENT" ] && a0=$(bench_cpu_ns "$AGENT")
	http=$(run_wrk)
	[ -n "$AGENT" ] && a1=$(bench_cpu_ns "$AGENT") && rss=$(bench_rss_kb "$AGENT")
	snap_all 1
	t1=$(date +%s%N); j1=$(cpu_jiffies)
	down=$SECONDS
	[ -n "$AGENT" ] && bench_stop "$AGENT" INT
	down=$((SECONDS - down))
	secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
	read -r rps p99 <<<"$http"
	row node "$r" "$c" http_rps "$rps"
	row node "$r" "$c" http_p99_ms "$p99"
	for w in pp stream comp; do
		read -r v p < <("$BENCH_BIN/node_work" rate "$BENCH_TMP/$w.0" "$BENCH_TMP/$w.1" "$secs")
		case $w in
		pp) row node "$r" "$c" pingpong_rtps "$v"
		    row node "$r" "$c" pingpong_p99_us "$p" ;;
		stream) row node "$r" "$c" stream_MBps "$(awk -v v="$v" 'BEGIN { printf "%.1f", v / 1e6 }')" ;;
		comp) row node "$r" "$c" compress_MBps "$(awk -v v="$v" 'BEGIN { printf "%.2f", v / 1e6 }')" ;;
		esac
	done
	row node "$r" "$c" node_cpu_pct "$(echo "$j0 $j1" | awk '{ printf "%.1f", 100 * ($4 - $1) / ($5 - $2) }')"
	row node "$r" "$c" node_switches_per_s "$(echo "$j0 $j1" | awk -v s="$secs" '{ printf "%.0f", ($6 - $3) / s }')"
	row node "$r" "$c" agent_cpu_pct_of_core "$(awk -v a="$a0" -v b="$a1" -v s="$secs" 'BEGIN { printf "%.3f", (b - a) / 1e7 / s }')"
	row node "$r" "$c" agent_rss_kb "$rss"
	echo "  round $r $c ($((SECONDS - start)) s, ${up} s to start, ${down} s to stop): $(awk -F'\t' -v r="$r" -v c="$c" '$1 == "node" && $2 == r && $3 == c { printf "%s=%s ", $4, $5 }' "$TSV")"
}

# scrape_one N E ROUND: the daemon on N empty cgroups x E events.
scrape_one() {
	local n=$1 e=$2 r=$3 evs pat t tc bytes gz
	evs=$(echo "$EVENTS10" | tr ' ' '\n' | head -"$e" | tr '\n' ' ')
	pat="/$P/s/c????"
	[ "$n" = 100 ] && pat="/$P/s/c00??"
	daemon_config bpf "${evs% }" "$pat" 200ms >"$BENCH_TMP/c.yaml"
	start_daemon "$BENCH_TMP/c.yaml" "$n" "^/$P/s/c"
	sleep 1
	# Each the first of its snapshot (every 200 ms), as Prometheus's are;
	# then back to back, the same snapshot's cached answer.
	for _ in $(seq 1 "$SCRAPES"); do
		sleep 0.25
		curl -fs -o /dev/null -w '%{size_download} %{time_total}\n' \
		    "http://127.0.0.1:$PORT/metrics"
	done >"$BENCH_TMP/scrapes"
	t=$(awk '{ print $2 * 1000 }' "$BENCH_TMP/scrapes" | bench_median)
	tc=$(curl -fs -o /dev/null -w '%{time_total}\n' "http://127.0.0.1:$PORT/metrics?[1-$SCRAPES]" |
	    awk '{ print $1 * 1000 }' | bench_median)
	bytes=$(awk '{ print $1 }' "$BENCH_TMP/scrapes" | bench_median)
	gz=$(curl -fs -H 'Accept-Encoding: gzip' -o /dev/null -w '%{size_download}' \
	    "http://127.0.0.1:$PORT/metrics")
	row scrape "$r" "n${n}_e$e" scrape_ms "$t"
	row scrape "$r" "n${n}_e$e" scrape_cached_ms "$tc"
	row scrape "$r" "n${n}_e$e" scrape_bytes "$bytes"
	row scrape "$r" "n${n}_e$e" scrape_gzip_bytes "$gz"
	row scrape "$r" "n${n}_e$e" agent_rss_kb "$(bench_rss_kb "$AGENT")"
	echo "  round $r: $n cgroups x $e events: $bytes bytes ($gz gzip), ${t} ms (${tc} ms cached)"
	bench_stop "$AGENT"
}

scrape_part() {
	local i r n e
	bench_mkcg "$PD/s"
	for i in $(seq 0 999); do bench_mkcg "$(printf '%s/s/c%04d' "$PD" "$i")"; done
	for r in $(seq 1 "$SROUNDS"); do
		for n in 100 1000; do
			for e in 2 4 10; do scrape_one "$n" "$e" "$r"; done
		done
	done
}

machine() {
	echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) CPUs, Linux $(uname -r)"
}

echo "== node_overhead: $(date -u +%Y-%m-%dT%H:%M:%SZ), $(machine)${QUICK:+, --quick}: $ROUNDS rounds of ${WINDOW}s windows, $SROUNDS scrape rounds"
echo "command: bench/node_overhead.sh${QUICK:+ --quick} (ROUNDS=$ROUNDS WINDOW=$WINDOW SROUNDS=$SROUNDS SCRAPES=$SCRAPES WARMUP=$WARMUP)"
others=$(bench_perf_users)
[ -z "$others" ] || echo "WARNING: other processes hold perf events: $others"
echo "busy before starting: $(bench_busy_pct 2)% of all CPUs"
start_work
sleep "$WARMUP"
for r in $(seq 1 "$ROUNDS"); do
	order="off perf bpf perfstat default"
	[ $((r % 2)) = 0 ] && order="default perfstat bpf perf off"
	for c in $order; do measure "$c" "$r"; done
done
[ -s "$BENCH_TMP/default_mode" ] && echo "the default config: $(cat "$BENCH_TMP/default_mode")"
# The work stops before the scrape part: those cgroups stay empty.
for p in $BENCH_PIDS; do bench_stop "$p"; done
scrape_part
cp "$TSV" "$OUT.tsv"
{
	echo "Machine: $(machine)."
	echo "Command: bench/node_overhead.sh${QUICK:+ --quick} (ROUNDS=$ROUNDS WINDOW=$WINDOW SROUNDS=$SROUNDS SCRAPES=$SCRAPES WARMUP=$WARMUP), $(date -u +%Y-%m-%d)."
	[ -s "$BENCH_TMP/default_mode" ] && echo "The embedded default counted the containers as: $(cat "$BENCH_TMP/default_mode")."
	echo
	$PY bench/node_overhead_plot.py "$OUT.tsv" "$OUT.png"
} >"$OUT.md" || bench_die "the plot failed"
cat "$OUT.md"
echo "raw numbers: $OUT.tsv; table: $OUT.md; plot: $OUT.png"
