#!/bin/bash
# bpf_bench.sh - perf mode against mode: bpf for 10, 100 and 1,000
# cgroups, side by side in one run.  For each number of cgroups N and each
# mode, a fresh daemon counts {context-switches, task-clock} in the N
# cgroups (software events: this machine has no PMU; a cgroup-mode perf
# event is switched in and out with its cgroup the same way whatever its
# PMU), and we measure:
#
#   fds       pmu_exporter_open_fds
#   open_ms   from starting the daemon until it logs "listening" (ms
#             timestamps; everything is opened, enabled and read once
#             before that)
#   rss_kb    the daemon's VmRSS after 5 collections
#   cpu_us    the daemon's CPU time (every thread, /proc/PID/task/*/
#             schedstat) per collection, over 25 collections at 200 ms
#   cross_us  a pipe ping-pong (bench/pingpong, both ends pinned to one
#             CPU) between two of the N cgroups, us per round trip: every
#             switch changes cgroup
#   same_us   the same with both ends in one of the N cgroups: no switch
#             changes cgroup, as between the threads of one container
#
# The modes: perf, bpf (the program on the BTF-typed tracepoint, running
# when a switch changes cgroup) and bpf_every (the same daemon with
# PMU_EXPORTER_BPF_TRIGGER=every_switch: the program at every switch, as
# on a kernel without BTF, and as mode: bpf was before).  In the same
# rounds, both ping-pongs with nothing counting (none) and under
# `perf stat -a -G` counting the same two events in the ping-pong's
# cgroups only (perfstat).  Each condition runs REPS times, interleaved;
# medians are reported.
#
#   bench/bpf_bench.sh     (as root; NS="10 100 1000" REPS=3 ROUNDS=200000 CPU=1)
#
# Targets: bpf mode's fds flat in N; its ping-pong cost no higher than
# perf mode's in both cases, and within 0.3 us of none when both ends
# share a cgroup.  The cgroups are made under pmu_bench_<pid> at the root
# of the hierarchy and removed at exit.
set -u
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
trap bench_cleanup EXIT
trap 'exit 130' INT TERM HUP

NS=${NS:-10 100 1000}
REPS=${REPS:-3}
ROUNDS=${ROUNDS:-200000}
CPU=${CPU:-$(( $(nproc) > 1 ? 1 : 0 ))}

bench_require "perf curl ss" "pmu_exporter pingpong"
P=pmu_bench_$$
bench_mkcg "$CGROOT/$P"

echo "== bpf_bench: $(date -u +%Y-%m-%dT%H:%M:%SZ), $(uname -r), $(nproc) CPUs, cpu $CPU, $ROUNDS round trips, $REPS reps, N in $NS"
others=$(bench_perf_users)
[ -z "$others" ] || echo "WARNING: other processes hold perf events: $others"

pp() {	# pp B [COMMAND PREFIX...]: one ping-pong between c1 and cB, us
	local b=$1 try
	shift
	# pingpong exits 3 when it lost its pinning (another session took the
	# CPU offline): that run says nothing, so again, up to 5 times.
	for try in 1 2 3 4 5; do
		if "$@" "$BENCH_BIN/pingpong" -n "$ROUNDS" -c "$CPU" -a "$CGROOT/$P/c1" \
		    -b "$CGROOT/$P/c$b" >"$BENCH_TMP/pp.out" 2>"$BENCH_TMP/pp.err"; then
			sed -n 's/^RESULT us_per_roundtrip=\([0-9.]*\).*/\1/p' "$BENCH_TMP/pp.out"
			return 0
		fi
		echo "  (ping-pong again: $(tail -1 "$BENCH_TMP/pp.err"))" >&2
		sleep 2
	done
	echo "FAILED"
}

metric() { awk -v s="$2" '$1 == s { print $2 }' "$1"; }

run_daemon() {	# run_daemon MODE N: one fresh daemon; appends to $BENCH_TMP/MODE.N
	local mode=$1 n=$2 port t0 t1 pid c0 c1 k0 k1 fds rss cross same trig
	local cfgmode=${mode%_every} env=
	[ "$mode" = bpf_every ] && env=PMU_EXPORTER_BPF_TRIGGER=every_switch
	cat >"$BENCH_TMP/c.yaml" <<YAML
interval: 200ms
bpf_max_cgroups: 1024
groups:
  - name: sw
    events: [context-switches, task-clock]
cgroups:
  - path: /$P/*
    groups: [sw]
    mode: $cfgmode
YAML
	[ "$cfgmode" = bpf ] && echo "    bpf_fallback: refuse" >>"$BENCH_TMP/c.yaml"
	# shellcheck disable=SC2086
	bench_serve port "$BENCH_TMP/pmu.log" /-/ready 60 env $env "$PMU_EXPORTER" \
	    --config.file="$BENCH_TMP/c.yaml" --web.listen-address="127.0.0.1:@PORT@"
	pid=$BENCH_LAST t0=$BENCH_SPAWNED_NS
	t1=$(sed -n 's/^ts=\([^ ]*\) .*msg="pmu_exporter .* listening on.*/\1/p' "$BENCH_TMP/pmu.log")
	t1=$(date -d "$t1" +%s%N) || bench_die "no listening line: $(tail -3 "$BENCH_TMP/pmu.log")"
	sleep 1
	curl -fs "http://127.0.0.1:$port/metrics" >"$BENCH_TMP/m"
	[ "$(metric "$BENCH_TMP/m" pmu_exporter_cgroups_counted)" = "$n" ] ||
		bench_die "$mode: $(metric "$BENCH_TMP/m" pmu_exporter_cgroups_counted) of $n cgroups counted"
	fds=$(metric "$BENCH_TMP/m" pmu_exporter_open_fds)
	trig=$(sed -n 's/^pmu_exporter_bpf_trigger{trigger="\([a-z_]*\)"} 1$/\1/p' "$BENCH_TMP/m")
	case $mode in
	bpf) [ "$trig" = cgroup_change ] || bench_die "bpf: the trigger is ${trig:-none}, not cgroup_change" ;;
	bpf_every) [ "$trig" = every_switch ] || bench_die "bpf_every: the trigger is ${trig:-none}" ;;
	esac
	rss=$(bench_rss_kb "$pid")
	k0=$(metric "$BENCH_TMP/m" pmu_exporter_collections_total)
	c0=$(bench_cpu_ns "$pid")
	sleep 5
	c1=$(bench_cpu_ns "$pid")
	curl -fs "http://127.0.0.1:$port/metrics" >"$BENCH_TMP/m"
	k1=$(metric "$BENCH_TMP/m" pmu_exporter_collections_total)
	cross=$(pp 2)
	same=$(pp 1)
	echo "$fds $(( (t1 - t0) / 1000000 )) $rss $(( (c1 - c0) / 1000 / (k1 - k0) )) $cross $same" >>"$BENCH_TMP/$mode.$n"
	bench_stop "$pid"
}

col_median() {	# col_median FILE COLUMN
	awk -v c="$2" '{ print $c }' "$1" | bench_median
}

for n in $NS; do
	for i in $(seq 1 "$n"); do
		[ -d "$CGROOT/$P/c$i" ] || bench_mkcg "$CGROOT/$P/c$i"
	done
	: >"$BENCH_TMP/none.$n"; : >"$BENCH_TMP/perfstat.$n"
	for rep in $(seq 1 "$REPS"); do
		# ABC, then CBA: no condition always follows the same one.
		order="none perf bpf bpf_every perfstat"
		[ $((rep % 2)) = 0 ] && order="perfstat bpf_every bpf perf none"
		for c in $order; do
			case $c in
			none) echo "$(pp 2) $(pp 1)" >>"$BENCH_TMP/none.$n" ;;
			perfstat) echo "$(pp 2 perf stat -a -x, -o "$BENCH_TMP/perf.out" \
			    -e 'context-switches,task-clock,context-switches,task-clock' \
			    -G "$P/c1,$P/c1,$P/c2,$P/c2" --) $(pp 1 perf stat -a -x, \
			    -o "$BENCH_TMP/perf.out" -e 'context-switches,task-clock' \
			    -G "$P/c1,$P/c1" --)" >>"$BENCH_TMP/perfstat.$n" ;;
			*) run_daemon "$c" "$n" ;;
			esac
		done
		grep -q FAILED "$BENCH_TMP/none.$n" "$BENCH_TMP/perfstat.$n" "$BENCH_TMP"/perf*."$n" "$BENCH_TMP"/bpf*."$n" 2>/dev/null &&
			bench_die "a ping-pong failed 5 times: $(cat "$BENCH_TMP/pp.err")"
		echo "  N=$n rep $rep [cross_us same_us]: none $(tail -1 "$BENCH_TMP/none.$n");" \
		    "perf stat $(tail -1 "$BENCH_TMP/perfstat.$n");" \
		    "[fds open_ms rss_kb cpu_us cross_us same_us]: perf $(tail -1 "$BENCH_TMP/perf.$n");" \
		    "bpf $(tail -1 "$BENCH_TMP/bpf.$n"); bpf_every $(tail -1 "$BENCH_TMP/bpf_every.$n");" \
		    "load $(cut -d' ' -f1 /proc/loadavg)"
	done
	for mode in perf bpf bpf_every; do
		echo "RESULT bpf_bench n=$n mode=$mode fds=$(col_median "$BENCH_TMP/$mode.$n" 1)" \
		    "open_ms=$(col_median "$BENCH_TMP/$mode.$n" 2) rss_kb=$(col_median "$BENCH_TMP/$mode.$n" 3)" \
		    "cpu_us_per_collection=$(col_median "$BENCH_TMP/$mode.$n" 4)" \
		    "cross_us=$(col_median "$BENCH_TMP/$mode.$n" 5) same_us=$(col_median "$BENCH_TMP/$mode.$n" 6)"
	done
	echo "RESULT bpf_bench n=$n mode=none cross_us=$(col_median "$BENCH_TMP/none.$n" 1) same_us=$(col_median "$BENCH_TMP/none.$n" 2)"
	echo "RESULT bpf_bench n=$n mode=perfstat cross_us=$(col_median "$BENCH_TMP/perfstat.$n" 1) same_us=$(col_median "$BENCH_TMP/perfstat.$n" 2)"
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
others=$(bench_perf_users)
echo "other perf users at the end: ${others:-none}"
