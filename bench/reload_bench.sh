#!/bin/bash
# reload_bench.sh - what a reload (SIGHUP, same config) costs as the
# number of counted cgroups grows, in perf mode and in mode: bpf.
#
# For each N in NS and each mode, N empty cgroups are made under
# pmu_bench_<pid> at the root of the cgroup hierarchy, a daemon counts
# {task-clock} in every one of them (interval 1s, per_cpu off), and after
# it is up the script sends REPS SIGHUPs, one at a time.  A reload's time is
# from the signal to the daemon's "reloaded" log line (its millisecond
# timestamp): loading the config, rebuilding the targets with every
# instance adopted, and the collection the collector thread does with the
# new plan before it answers.  Medians are printed, with the ratio of each
# N to the first; the target is 10,000 cgroups at most 12x 1,000.  Beside
# it, the CPU time the daemon's threads used over the same span
# (/proc/PID/task/*/schedstat): on a busy machine the wall time is mostly
# waiting for a CPU, and its ratio moves with the load.
#
#   bench/reload_bench.sh   (as root; NS="1000 10000" REPS=5 MODES="perf bpf")
#
# PMU_EXPORTER=/path/to/another/pmu_exporter measures another build (say,
# an older one) the same way.  Everything made is removed at exit.
set -u
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
# The N test cgroups are not in BENCH_CGROUPS: a string of 10,000 paths
# built (and reversed by bench_cleanup) one at a time takes bash minutes.
# They are removed here, with a few rmdir processes, before the rest.
cleanup() {
	local n
	for n in ${NS:-}; do
		[ -n "${PARENT:-}" ] && [ -d "$PARENT/n$n" ] &&
			find "$PARENT/n$n" -mindepth 1 -maxdepth 1 -type d \
			    -name 'c*' -print0 | xargs -0r rmdir
	done
	bench_cleanup
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

NS=${NS:-1000 10000}
REPS=${REPS:-5}
MODES=${MODES:-perf bpf}

bench_require "curl ss" "pmu_exporter"
ncpu=$(getconf _NPROCESSORS_ONLN)
max=0
for n in $NS; do [ "$n" -gt "$max" ] && max=$n; done
# perf mode holds one fd per cgroup and CPU, plus a few of its own; bpf
# mode a dozen in all.  Raising the hard limit needs CAP_SYS_RESOURCE.
if [[ " $MODES " == *" perf "* ]]; then
	need=$((max * ncpu + 128))
	ulimit -n "$need" 2>/dev/null ||
		bench_die "perf mode at $max cgroups needs $need open files; the hard limit is $(ulimit -Hn) (NS with fewer cgroups, or MODES=bpf)"
fi

PARENT="$CGROOT/pmu_bench_$$"
bench_mkcg "$PARENT"

result() {	# result MODE N: the median reload over REPS reloads, "ms cpu_ms"
	local mode=$1 n=$2 port cfg log pid i t0 c0 line k got ms=() cpu=()
	cfg="$BENCH_TMP/$mode-$n.yaml" log="$BENCH_TMP/$mode-$n.log"
	port=$(bench_free_port)
	{
		echo "interval: 1s"
		echo "cgroup_rescan_interval: 1h"
		echo "max_fds: $((n * ncpu + 1024))"
		echo "bpf_max_cgroups: $((n + 16))"
		echo "groups:"
		echo "  - name: sw"
		echo "    events: [task-clock]"
		echo "cgroups:"
		echo "  - path: /pmu_bench_$$/n$n/*"
		echo "    groups: [sw]"
		[ "$mode" = bpf ] && echo "    mode: bpf" && echo "    bpf_fallback: refuse"
	} > "$cfg"
	bench_spawn "$PMU_EXPORTER" --config.file="$cfg" \
	    --web.listen-address="127.0.0.1:$port" > "$log" 2>&1
	pid=$BENCH_LAST
	# This runs in $(...), a subshell without the EXIT trap: a failure
	# stops its daemon itself.
	bench_wait_http "http://127.0.0.1:$port/-/ready" 120 ||
		{ bench_stop "$pid"; bench_die "$mode, $n cgroups: the daemon did not start: $(tail -3 "$log")"; }
	got=$(curl -fs "http://127.0.0.1:$port/metrics" | grep cgroups_)
	grep -qx "pmu_exporter_cgroups_counted $n" <<<"$got" ||
		{ bench_stop "$pid"; bench_die "$mode, $n cgroups: not all counted: $got"; }
	for i in $(seq 1 "$REPS"); do
		c0=$(bench_cpu_ns "$pid")
		t0=$(date +%s%3N)
		kill -HUP "$pid"
		for _ in $(seq 1 6000); do
			k=$(grep -c "msg=\"reloaded" "$log")
			[ "$k" -ge "$i" ] && break
			sleep 0.01
		done
		line=$(grep "msg=\"reloaded" "$log" | sed -n "${i}p")
		[ -n "$line" ] || { bench_stop "$pid"; bench_die "$mode, $n cgroups: reload $i did not finish"; }
		cpu+=("$(awk -v a="$(bench_cpu_ns "$pid")" -v b="$c0" \
		    'BEGIN { printf "%.1f", (a - b) / 1e6 }')")
		ms+=($(( $(bench_log_ms "$line") - t0 )))
		sleep 0.3
	done
	bench_stop "$pid"
	echo "$(printf '%s\n' "${ms[@]}" | bench_median)" \
	    "$(printf '%s\n' "${cpu[@]}" | bench_median)"
}

for n in $NS; do
	bench_mkcg "$PARENT/n$n"
	# mkdir(1) with many arguments: a few processes, not one per cgroup.
	seq 1 "$n" | sed "s|^|$PARENT/n$n/c|" | xargs mkdir
done

echo "# reload_bench: $(basename "$PMU_EXPORTER") $("$PMU_EXPORTER" --version 2>&1 | head -1), $ncpu CPUs, $REPS reloads each, medians"
printf '%-6s %8s %12s %10s %10s %10s\n' mode cgroups reload_ms "x first" \
    cpu_ms "x first"
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }'
}
for mode in $MODES; do
	first='' cfirst=''
	for n in $NS; do
		r=$(result "$mode" "$n") || exit 1
		read -r m c <<<"$r"
		[ -z "$first" ] && first=$m cfirst=$c
		printf '%-6s %8s %12s %10s %10s %10s\n' "$mode" "$n" "$m" \
		    "$(ratio "$m" "$first")" "$c" "$(ratio "$c" "$cfirst")"
	done
done
