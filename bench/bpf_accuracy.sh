#!/bin/bash
# bpf_accuracy.sh - mode: bpf's task-clock against perf mode's and perf
# stat's, for every placement of a pipe ping-pong (issue 25).  One
# daemon counts the same cgroups twice, {context-switches, task-clock}
# in a mode: bpf group and in a perf-mode group, while `perf stat -a
# --for-each-cgroup` counts task-clock in them too, so the three see the
# same run:
#
#   two       bench/pingpong -a P/a -b P/b: each end in its own cgroup,
#             every hop a switch between cgroups (on one CPU) or between
#             a cgroup and whatever ran on the other CPU (the idle task,
#             on a quiet machine)
#   same      both ends in P/s: no hop changes cgroup on one CPU
#
# each with the ends pinned to one CPU (-c 1), one to CPU 0 and one to
# CPU 1 (-c 0,1) and free (-c free).  For each side: bpf against perf
# mode, bpf against perf stat, perf mode against perf stat (the control:
# the same kernel mechanism, 0 up to rounding), the switches the
# sched_switch tracepoint did not show meanwhile (unseen) and the side's
# own CPU time (schedstat, which has the whole of each switch and so is
# above both).  One MEASURE line a side and ping-pong, then RESULT lines:
# per build, placement and cgroups, the median, lowest and highest of each
# comparison over the repetitions and sides.
#
#   bench/bpf_accuracy.sh   (as root; REPS=6 ROUNDS=50000 WHERE="1 0,1 free")
#
# Then, per repetition, a daemon with the lag probe (PMU_EXPORTER_BPF_LAG=1)
# runs one ping-pong per placement: the kernel's path from the program's
# reading to perf's cgroup switch, by kind of change (LAG lines), which
# is what moves bpf against perf mode at each switch (issue 31;
# tests/integration/bpf.test).
#
# BUILDS="DIR..." compares builds (each DIR a build tree with
# daemon/pmu_exporter), a fresh daemon of each per repetition, in
# alternating order (AB, then BA); the default is this tree's.  Target:
# bpf within 0.5% of perf mode and of perf stat at every placement.
set -u
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
trap bench_cleanup EXIT
trap 'exit 130' INT TERM HUP

REPS=${REPS:-6}
ROUNDS=${ROUNDS:-50000}
WHERE=${WHERE:-1 0,1 free}
BUILDS=${BUILDS:-$top_builddir}

bench_require "perf curl ss" "pmu_exporter pingpong"
for b in $BUILDS; do
	[ -x "$b/daemon/pmu_exporter" ] || bench_die "$b/daemon/pmu_exporter is not built"
done
P=pmu_bench_$$
bench_mkcg "$CGROOT/$P"
for c in a b s; do bench_mkcg "$CGROOT/$P/$c"; done

echo "== bpf_accuracy: $(date -u +%Y-%m-%dT%H:%M:%SZ), $(uname -r), $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $ROUNDS round trips, $REPS reps, placements $WHERE, builds $BUILDS"
others=$(bench_perf_users)
[ -z "$others" ] || echo "WARNING: other processes hold perf events: $others"

cat >"$BENCH_TMP/c.yaml" <<YAML
interval: 200ms
groups:
  - name: swb
    events: [context-switches, task-clock]
  - name: swp
    events: [context-switches, task-clock]
cgroups:
  - path: /$P/*
    groups: [swb]
    mode: bpf
    bpf_fallback: refuse
  - path: /$P/*
    groups: [swp]
    mode: perf
YAML

metric() { awk -v s="$2" 'index($0, s" ") == 1 { print $NF }' "$1"; }
series() { echo "pmu_cgroup_events_total{cgroup=\"/$P/$1\",group=\"$2\",event=\"task-clock\"}"; }
PORT=
scrape() { curl -fs "http://127.0.0.1:$PORT/metrics" >"$1" || bench_die "scrape failed"; }
collections() { curl -fs "http://127.0.0.1:$PORT/metrics" | awk '$1 == "pmu_exporter_collections_total" { print $2 }'; }
# Two more collections: the last one ran after the ping-pong ended.
wait_collections() {
	local k0 k
	k0=$(collections)
	for _ in $(seq 1 100); do
		k=$(collections)
		[ -n "$k" ] && [ "$k" -ge $((k0 + 2)) ] && return 0
		sleep 0.1
	done
	bench_die "the daemon stopped collecting"
}

# measure BUILD REP WHERE KIND: one ping-pong, one line per side.
measure() {
	local build=$1 rep=$2 where=$3 kind=$4 ca=a cb=b cgs try side cg b p s own u
	cgs="$P/a,$P/b"
	[ "$kind" = same ] && ca=s cb=s cgs=$P/s
	for try in 1 2 3 4 5; do
		scrape "$BENCH_TMP/m0"
		if perf stat -x, -a -e task-clock --for-each-cgroup "$cgs" -o "$BENCH_TMP/perf.out" \
		    "$BENCH_BIN/pingpong" -n "$ROUNDS" -w 1000 -c "$where" -a "$CGROOT/$P/$ca" \
		    -b "$CGROOT/$P/$cb" -R >"$BENCH_TMP/pp.out" 2>"$BENCH_TMP/pp.err"; then
			break
		fi
		# Exit 3: another session took a CPU offline; that run says nothing.
		echo "  (ping-pong again: $(tail -1 "$BENCH_TMP/pp.err"))" >&2
		[ "$try" = 5 ] && bench_die "the ping-pong failed 5 times"
		sleep 2
	done
	wait_collections
	scrape "$BENCH_TMP/m1"
	u=$(( $(metric "$BENCH_TMP/m1" pmu_exporter_bpf_unseen_switches_total) -
	    $(metric "$BENCH_TMP/m0" pmu_exporter_bpf_unseen_switches_total) ))
	for side in a b; do
		cg=$ca
		[ $side = b ] && cg=$cb
		[ "$kind" = same ] && [ $side = b ] && continue
		b=$(( $(metric "$BENCH_TMP/m1" "$(series "$cg" swb)") - $(metric "$BENCH_TMP/m0" "$(series "$cg" swb)") ))
		p=$(( $(metric "$BENCH_TMP/m1" "$(series "$cg" swp)") - $(metric "$BENCH_TMP/m0" "$(series "$cg" swp)") ))
		s=$(awk -F, -v c="$P/$cg" '$3 == "task-clock" && $4 == c { printf "%.0f", $1 * 1e6 }' "$BENCH_TMP/perf.out")
		own=$(sed -n "s/^TRUTH side=$side .*cpu_ns=\([0-9]*\).*/\1/p" "$BENCH_TMP/pp.out")
		[ "$kind" = same ] && own=$(awk '/^TRUTH/ { sub(/.*cpu_ns=/, ""); s += $1 } END { print s }' "$BENCH_TMP/pp.out")
		[ -n "$s" ] && [ -n "$own" ] || bench_die "no truth: $(cat "$BENCH_TMP/perf.out" "$BENCH_TMP/pp.out")"
		[ "$kind" = same ] && side=s
		awk -v build="$build" -v rep="$rep" -v w="$where" -v k="$kind" -v side="$side" \
		    -v b="$b" -v p="$p" -v s="$s" -v own="$own" -v u="$u" 'BEGIN {
			printf "MEASURE build=%s rep=%d where=%s cgroups=%s side=%s bpf_ns=%.0f perf_ns=%.0f perfstat_ns=%.0f own_ns=%.0f unseen=%d bpf_vs_perf=%+.3f bpf_vs_perfstat=%+.3f perf_vs_perfstat=%+.3f\n",
			    build, rep, w, k, side, b, p, s, own, u, (b / p - 1) * 100, (b / s - 1) * 100, (p / s - 1) * 100 }' |
			tee -a "$BENCH_TMP/all"
	done
}

# lag REP WHERE: one ping-pong between P/a and P/b under a daemon with the
# lag probe; a LAG line per kind of change it timed.
lag() {
	local rep=$1 where=$2
	scrape "$BENCH_TMP/l0"
	"$BENCH_BIN/pingpong" -n "$ROUNDS" -w 1000 -c "$where" -a "$CGROOT/$P/a" -b "$CGROOT/$P/b" \
	    >/dev/null 2>"$BENCH_TMP/pp.err" || { echo "  (lag ping-pong -c $where failed: $(tail -1 "$BENCH_TMP/pp.err"))" >&2; return; }
	wait_collections
	scrape "$BENCH_TMP/l1"
	for k in between into_root out_of_root; do
		awk -v rep="$rep" -v w="$where" -v k="$k" -v s="pmu_exporter_bpf_switch_lag_seconds_total{transition=\"$k\"}" \
		    -v c="pmu_exporter_bpf_switch_lag_samples_total{transition=\"$k\"}" '
			FNR == 1 { f++ }
			index($0, s" ") == 1 { t[f] = $NF }
			index($0, c" ") == 1 { n[f] = $NF }
			END { d = n[2] - n[1]; if (d > 0) printf "LAG rep=%d where=%s kind=%s mean_ns=%.0f switches=%d\n", rep, w, k, (t[2] - t[1]) * 1e9 / d, d }' \
		    "$BENCH_TMP/l0" "$BENCH_TMP/l1" | tee -a "$BENCH_TMP/lag"
	done
}

start_daemon() {	# start_daemon BUILD: leaves PORT and DPID
	local build=$1
	bench_serve PORT "$BENCH_TMP/pmu.log" /-/ready 60 "$build/daemon/pmu_exporter" \
	    --config.file="$BENCH_TMP/c.yaml" --web.listen-address="127.0.0.1:@PORT@"
	DPID=$BENCH_LAST
	scrape "$BENCH_TMP/m0"
	[ "$(metric "$BENCH_TMP/m0" pmu_exporter_bpf_active)" = 1 ] ||
		bench_die "$build: mode: bpf is not active: $(grep -i bpf "$BENCH_TMP/pmu.log")"
	wait_collections
}

: >"$BENCH_TMP/all"
: >"$BENCH_TMP/lag"
for rep in $(seq 1 "$REPS"); do
	builds=$BUILDS places=$WHERE
	if [ $((rep % 2)) = 0 ]; then
		builds=$(echo "$BUILDS" | tr ' ' '\n' | tac | tr '\n' ' ')
		places=$(echo "$WHERE" | tr ' ' '\n' | tac | tr '\n' ' ')
	fi
	for build in $builds; do
		start_daemon "$build"
		for where in $places; do
			for kind in two same; do
				measure "$build" "$rep" "$where" "$kind"
			done
		done
		bench_stop "$DPID"
	done
	PMU_EXPORTER_BPF_LAG=1 start_daemon "$(echo $BUILDS | cut -d' ' -f1)"
	for where in $places; do
		lag "$rep" "$where"
	done
	bench_stop "$DPID"
	echo "  rep $rep done, load $(cut -d' ' -f1-3 /proc/loadavg)"
done

# Per build, placement and cgroups: the median, lowest and highest of
# each comparison over the repetitions and both sides.
summary() {	# summary FIELD
	awk -v f="$1" '/^MEASURE/ {
		for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		print v["build"], v["where"], v["cgroups"], v[f]
	}' "$BENCH_TMP/all" | sort -k1,1 -k2,2 -k3,3 -k4,4g | awk -v f="$1" '
		function flush() { if (n) printf "RESULT bpf_accuracy build=%s where=%s cgroups=%s %s median=%+.3f min=%+.3f max=%+.3f n=%d\n",
		    key[1], key[2], key[3], f, (n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2), x[1], x[n], n }
		{ k = $1 " " $2 " " $3; if (k != last) { flush(); n = 0; last = k; split(k, key, " ") } x[++n] = $4 }
		END { flush() }'
}
summary bpf_vs_perf
summary bpf_vs_perfstat
summary perf_vs_perfstat
# The lag probe's figures: per placement and kind, the median mean lag.
awk '/^LAG/ { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	print v["where"], v["kind"], v["mean_ns"] }' "$BENCH_TMP/lag" | sort -k1,1 -k2,2 -k3,3g | awk '
	function flush() { if (n) printf "RESULT bpf_lag where=%s kind=%s mean_ns_median=%.0f min=%.0f max=%.0f n=%d\n", a, b, (n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2), x[1], x[n], n }
	{ if ($1 " " $2 != last) { flush(); n = 0; last = $1 " " $2; a = $1; b = $2 } x[++n] = $3 }
	END { flush() }'
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
others=$(bench_perf_users)
echo "other perf users at the end: ${others:-none}"
