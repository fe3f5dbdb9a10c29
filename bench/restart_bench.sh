#!/bin/bash
# restart_bench.sh - a counted service restarted N times, as systemd and
# container runtimes do it: its cgroup removed and made again at the same
# path, with a task spinning in it before and after; in perf mode and in
# mode: bpf, at the default interval (1 s).  For each restart: how many
# collections after the new cgroup appeared its series grew again (the
# target: counted again within one interval), whether the series ever
# went back, and how many dying perf_event states the test's parent holds
# once the restart is done (the target: 0 pinned).  "Counted again" is the
# collection that opens it (pmu_exporter_cgroups_remade_total), counted
# from the last published before the mkdir: 1, or 2 when a collection was
# under way at the mkdir; its series passes its old count once the spinner
# ran under the new counters.  Two shapes: the cgroup
# made again within an interval (rmdir; mkdir), and 2 s later (a slow
# stop: the series leaves the scrape, and must come back from its count).
#
#   bench/restart_bench.sh [N [PMU]]     N restarts per shape and mode
#                                        (default 10); PMU another build's
#                                        daemon (e.g. an older one, to
#                                        compare), default this tree's
#
# Prints one line per mode and shape, and exits 1 if a target is missed.
# As root; makes a cgroup parent of its own and removes it.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
N=${1:-10}
PMU=${2:-$top/daemon/pmu_exporter}
SPIN=$top/tests/lib/helpers/spin
[ -x "$PMU" ] && [ -x "$SPIN" ] || { echo "build first: make && make check TESTS= (for $SPIN)"; exit 2; }
CG_ROOT=$(awk '$0 ~ / - cgroup2 / {print $5; exit}' /proc/self/mountinfo)
NAME="pmu_restart_bench_$$"
P="$CG_ROOT/$NAME"
TMP=$(mktemp -d)
DPID=
SPID=
cleanup() {
	[ -n "$SPID" ] && kill "$SPID" 2>/dev/null
	[ -n "$DPID" ] && { kill "$DPID" 2>/dev/null; wait "$DPID" 2>/dev/null; }
	sleep 0.2
	[ -d "$P/web" ] && rmdir "$P/web"
	rmdir "$P" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
mkdir -p "$P/web" || exit 2
PORT=$(( 30000 + $$ % 20000 ))
scrape() { curl -sf "http://127.0.0.1:$PORT/metrics"; }
val() { awk -v s="$1 " 'index($0, s) == 1 { print $NF; f = 1 } END { if (!f) print "missing" }'; }
S="pmu_cgroup_events_total{cgroup=\"/$NAME/web\",group=\"sw\",event=\"task-clock\"}"
dying() { awk '$1 == "nr_dying_subsys_perf_event" { p = $2 } $1 == "nr_dying_descendants" { d = $2 } END { print (p != "" ? p : d) }' "$P/cgroup.stat"; }
spin() { sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$P/web" "$SPIN" 100000000000 >/dev/null 2>&1 & SPID=$!; }
fails=0
for mode in perf bpf; do
	printf 'interval: 1s\ngroups:\n  - name: sw\n    events: [task-clock]\ncgroups:\n  - path: /%s/*\n    groups: [sw]\n    mode: %s\n' \
	    "$NAME" "$mode" > "$TMP/c.yaml"
	"$PMU" --web.listen-address="127.0.0.1:$PORT" --config.file="$TMP/c.yaml" > "$TMP/d.log" 2>&1 &
	DPID=$!
	for _ in $(seq 1 100); do scrape >/dev/null 2>&1 && break; sleep 0.1; done
	for gap in 0 2; do
		late=0 back=0 pinned=0 worst=0 sum=0 gsum=0
		for i in $(seq 1 "$N"); do
			spin
			sleep 1.5
			kill "$SPID"; wait "$SPID" 2>/dev/null; SPID=
			sleep 1.1		# a collection after the spin
			vlast=$(scrape | val "$S")
			rmdir "$P/web"; sleep "$gap"
			m=$(scrape)
			c0=$(printf '%s\n' "$m" | val pmu_exporter_collections_total)
			r0=$(printf '%s\n' "$m" | val pmu_exporter_cgroups_remade_total)
			[ "$r0" = missing ] && r0=0	# an older build
			mkdir "$P/web"
			spin
			# Collections until the new cgroup is counted (opened:
			# pmu_exporter_cgroups_remade_total), and until its series
			# is back and past where it was: never back.
			k=missing g=missing
			for _ in $(seq 1 100); do
				m=$(scrape)
				v=$(printf '%s\n' "$m" | val "$S")
				c=$(printf '%s\n' "$m" | val pmu_exporter_collections_total)
				r=$(printf '%s\n' "$m" | val pmu_exporter_cgroups_remade_total)
				[ "$k" = missing ] && [ "$r" != missing ] && [ "$r" -gt "$r0" ] && k=$((c - c0))
				if [ "$v" != missing ]; then
					awk -v a="$v" -v b="$vlast" 'BEGIN { exit !(a < b) }' && { back=$((back + 1)); break; }
					awk -v a="$v" -v b="$vlast" 'BEGIN { exit !(a > b) }' && { g=$((c - c0)); break; }
				fi
				sleep 0.1
			done
			[ "$g" = missing ] && g=10
			gsum=$((gsum + g))
			kill "$SPID"; wait "$SPID" 2>/dev/null; SPID=
			# The first collection to begin after the mkdir opens it:
			# the first published after (1), or the one after when a
			# collection was under way at the mkdir (2).
			if [ "$k" = missing ]; then k=10; late=$((late + 1))
			elif [ "$k" -gt 2 ]; then late=$((late + 1)); fi
			[ "$k" -gt "$worst" ] && worst=$k
			sum=$((sum + k))
			for _ in $(seq 1 50); do [ "$(dying)" = 0 ] && break; sleep 0.1; done
			[ "$(dying)" = 0 ] || pinned=$((pinned + 1))
		done
		printf '%-4s made again %ss later: counted again at collection %s after on average (worst %s; %d of %d later than the first to begin after), its series past its old count at %s, back %d times; dying cgroups held after %d of %d\n' \
		    "$mode" "$gap" "$(awk -v s=$sum -v n="$N" 'BEGIN { printf "%.1f", s / n }')" "$worst" "$late" "$N" \
		    "$(awk -v s=$gsum -v n="$N" 'BEGIN { printf "%.1f", s / n }')" "$back" "$pinned" "$N"
		[ $late = 0 ] && [ $back = 0 ] && [ $pinned = 0 ] || fails=$((fails + 1))
	done
	kill "$DPID"; wait "$DPID" 2>/dev/null; DPID=
done
exit $((fails > 0))
