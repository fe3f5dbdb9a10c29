#!/bin/bash
# pingpong_bench.sh - what counting per cgroup costs the workload: a pipe
# ping-pong (bench/pingpong) between two cgroups on one CPU, so that every
# context switch also switches cgroup, measured three ways:
#
#   none    nothing counting
#   daemon  pmu_exporter with its default config (no --config.file),
#           which counts its events on every CPU and on every cgroup
#           directly under the root -- the two ping-pong cgroups among them
#   perf    perf stat -a counting the same events, grouped the same way,
#           system-wide and on every cgroup the daemon counted (one -G
#           entry per event, as perf requires with -a)
#
#   bench/pingpong_bench.sh      (as root; REPS=7 ROUNDS=100000 CPU=1)
#
# The three are interleaved REPS times; the median and the best of each
# are reported.
# Target: daemon <= perf.  The cgroups pmu_bench_<pid>_a/_b are made
# directly under the root of the perf cgroup hierarchy and removed at exit.
set -u
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
trap bench_cleanup EXIT
trap 'exit 130' INT TERM HUP

REPS=${REPS:-7}
ROUNDS=${ROUNDS:-100000}
CPU=${CPU:-$(( $(nproc) > 1 ? 1 : 0 ))}
EVENTS=task-clock,context-switches,cpu-migrations,page-faults

bench_require "perf curl ss" "pmu_exporter pingpong"

A=pmu_bench_$$_a
B=pmu_bench_$$_b
bench_mkcg "$CGROOT/$A"
bench_mkcg "$CGROOT/$B"
PP=("$BENCH_BIN/pingpong" -n "$ROUNDS" -c "$CPU" -a "$CGROOT/$A" -b "$CGROOT/$B")

echo "== pingpong_bench: $(date -u +%Y-%m-%dT%H:%M:%SZ), $(uname -r), $(nproc) CPUs, cpu $CPU, $ROUNDS round trips x $REPS"
others=$(bench_perf_users)
[ -z "$others" ] || echo "WARNING: other processes hold perf events and may count these cgroups too, in every condition: $others"

pp_us() {
	sed -n 's/^RESULT us_per_roundtrip=\([0-9.]*\).*/\1/p' "$1"
}

# Run COMMAND... (which ends by running pingpong) into $BENCH_TMP/pp.out;
# a run whose CPU went offline meanwhile (pingpong exits 3) is redone,
# twice at most.
pp_run() {
	local try rc
	for try in 1 2 3; do
		"$@" >"$BENCH_TMP/pp.out" 2>"$BENCH_TMP/pp.err"
		rc=$?
		[ $rc = 3 ] || return $rc
		echo "  (run invalidated: $(tail -1 "$BENCH_TMP/pp.err"); redone)"
		echo "invalidated" >>"$BENCH_TMP/invalid"
		sleep 1
	done
	return 3
}

run_none() {
	pp_run "${PP[@]}" || bench_die "pingpong failed: $(cat "$BENCH_TMP/pp.err")"
	pp_us "$BENCH_TMP/pp.out" >>"$BENCH_TMP/none"
}

# The daemon is started after the cgroups exist, so its first scan finds
# them; we still wait until /metrics shows both before measuring.
run_daemon() {
	local port cs
	port=$(bench_free_port)
	bench_spawn "$PMU_EXPORTER" --web.listen-address="127.0.0.1:$port" \
	    --log.level=warn 2>>"$BENCH_TMP/pmu.log"
	bench_wait_http "http://127.0.0.1:$port/-/ready" ||
		bench_die "pmu_exporter did not come up: $(cat "$BENCH_TMP/pmu.log")"
	for _ in $(seq 1 50); do
		curl -fs "http://127.0.0.1:$port/metrics" >"$BENCH_TMP/m"
		grep -q "cgroup=\"/$A\"" "$BENCH_TMP/m" &&
		    grep -q "cgroup=\"/$B\"" "$BENCH_TMP/m" && break
		sleep 0.2
	done
	grep -q "cgroup=\"/$B\"" "$BENCH_TMP/m" ||
		bench_die "the daemon never showed cgroup /$B"
	# What the daemon counts, for perf to count the same.
	sed -n 's/^pmu_cgroup_events_total{cgroup="\/\([^"]*\)".*/\1/p' \
	    "$BENCH_TMP/m" | sort -u >"$BENCH_TMP/daemon_cgroups"
	pp_run "${PP[@]}" || bench_die "pingpong failed: $(cat "$BENCH_TMP/pp.err")"
	pp_us "$BENCH_TMP/pp.out" >>"$BENCH_TMP/daemon"
	# Check it saw the switches: at least one per round trip, once a
	# collection has run after the ping-pong (up to 3 s).
	for _ in $(seq 1 15); do
		sleep 0.2
		curl -fs "http://127.0.0.1:$port/metrics" >"$BENCH_TMP/m"
		cs=$(sed -n "s/^pmu_cgroup_events_total{cgroup=\"\/$A\",group=\"[^\"]*\",event=\"context-switches\"} //p" \
		    "$BENCH_TMP/m")
		[ "${cs%.*}" -ge "$ROUNDS" ] 2>/dev/null && break
	done
	echo "$cs" >>"$BENCH_TMP/daemon_cs"
	bench_stop "$BENCH_LAST"
}

# perf stat wraps the ping-pong: it opens and enables everything before
# starting it, and pingpong times itself, so perf's set-up is not counted.
# Other cgroups directly under the root may come and go (the daemon counts
# them too); perf is given those that still exist, and if one vanishes
# before perf opens it, the run is retried with just ours.
perf_args() {
	local cg
	evs='' cgs=''
	for cg in "" "$@"; do
		[ -z "$cg" ] || [ -d "$CGROOT/$cg" ] || continue
		evs="$evs${evs:+,}{$EVENTS}"
		for _ in ${EVENTS//,/ }; do
			cgs="$cgs,$cg"
		done
	done
	cgs=${cgs#,}
}

run_perf() {
	local evs cgs cs try counted
	for try in all ours; do
		if [ $try = all ]; then
			mapfile -t counted <"$BENCH_TMP/daemon_cgroups"
			perf_args "${counted[@]}"
		else
			perf_args "$A" "$B"
		fi
		echo "perf stat -a -e '$evs' -G '$cgs' -- ${PP[*]}" >"$BENCH_TMP/perf_cmd"
		pp_run perf stat -a -x, -o "$BENCH_TMP/perf.out" -e "$evs" \
		    -G "$cgs" -- "${PP[@]}" && break
		[ $try = ours ] &&
			bench_die "perf stat failed: $(cat "$BENCH_TMP/pp.err")"
	done
	echo "$cgs" | tr ',' '\n' | sort -u | grep . | tr '\n' ' ' >>"$BENCH_TMP/perf_cgroups"
	echo >>"$BENCH_TMP/perf_cgroups"
	pp_us "$BENCH_TMP/pp.out" >>"$BENCH_TMP/perf"
	cs=$(awk -F, -v cg="$A" '$3 == "context-switches" && $4 == cg { print $1 }' \
	    "$BENCH_TMP/perf.out")
	echo "$cs" >>"$BENCH_TMP/perf_cs"
}

: >"$BENCH_TMP/none"; : >"$BENCH_TMP/daemon"; : >"$BENCH_TMP/perf"
for rep in $(seq 1 "$REPS"); do
	run_none
	run_daemon
	run_perf
	printf "  rep %d: none %s us, daemon %s us, perf %s us\n" "$rep" \
	    "$(tail -1 "$BENCH_TMP/none")" "$(tail -1 "$BENCH_TMP/daemon")" \
	    "$(tail -1 "$BENCH_TMP/perf")"
done

none=$(bench_median <"$BENCH_TMP/none")
daemon=$(bench_median <"$BENCH_TMP/daemon")
perfm=$(bench_median <"$BENCH_TMP/perf")
none_min=$(sort -g "$BENCH_TMP/none" | head -1)
daemon_min=$(sort -g "$BENCH_TMP/daemon" | head -1)
perf_min=$(sort -g "$BENCH_TMP/perf" | head -1)
echo "cgroups the daemon counted (last run): $(tr '\n' ' ' <"$BENCH_TMP/daemon_cgroups")"
echo "cgroups perf was given, per run:"
sed 's/^/  /' "$BENCH_TMP/perf_cgroups"
echo "perf command (last run): $(cat "$BENCH_TMP/perf_cmd")"
echo "context switches counted in /$A per run: daemon (cumulative) $(tr '\n' ' ' <"$BENCH_TMP/daemon_cs"), perf $(tr '\n' ' ' <"$BENCH_TMP/perf_cs")"
# The minimum is the least disturbed run of each: on a shared VM it is
# the steadier estimate of the cost; both are printed and judged.
awk -v n="$none" -v d="$daemon" -v p="$perfm" \
    -v nm="$none_min" -v dm="$daemon_min" -v pm="$perf_min" 'BEGIN {
	printf "median us per round trip: none %.3f, daemon %.3f (%+.1f%%), perf stat %.3f (%+.1f%%)\n",
	    n, d, (d / n - 1) * 100, p, (p / n - 1) * 100
	printf "best   us per round trip: none %.3f, daemon %.3f (%+.1f%%), perf stat %.3f (%+.1f%%)\n",
	    nm, dm, (dm / nm - 1) * 100, pm, (pm / nm - 1) * 100
	printf "daemon <= perf stat: median %s, best %s\n",
	    (d <= p ? "met" : "NOT met"), (dm <= pm ? "met" : "NOT met")
}'
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
others=$(bench_perf_users)
echo "other perf users at the end: ${others:-none}"
[ -s "$BENCH_TMP/invalid" ] && echo "runs redone because their CPU went offline: $(wc -l <"$BENCH_TMP/invalid")"
echo "RESULT pingpong none_us=$none daemon_us=$daemon perf_us=$perfm" \
    "none_min_us=$none_min daemon_min_us=$daemon_min perf_min_us=$perf_min" \
    "reps=$REPS rounds=$ROUNDS"
