#!/bin/bash
# interference.sh - does the daemon name the neighbour that slows a
# container down?  On a machine with hardware counters: a cache-hungry
# victim (a pointer chase over half the last-level cache, which fits
# there while it runs alone), a memory-streaming antagonist (dd through a
# 64 MiB buffer: each block is written whole, evicting the victim's
# lines) on a CPU sharing the victim's cache (its SMT sibling, else a CPU
# of the same last-level cache), and a CPU-bound decoy (multiply-adds in
# registers) on a third CPU, each in its own cgroup.  The antagonist and
# the decoy are switched on and off in turn (the decoy a quarter period
# behind, so its use does not correlate with the antagonist's); the
# daemon counts cycles and instructions per cgroup every second.
#
#   bench/interference.sh [PERIODS [HALF_PERIOD_SECONDS]]
#       (as root, from a built tree: make && make bench; default 8
#        periods of 2 x 30 s; PMU_INTERFERENCE_YAML=TEXT is appended to
#        the daemon's config, e.g. the interference block's window)
#
# Prints the victim's CPI while the antagonist ran and while it did not,
# from the daemon's counters, and the suspects the daemon names for the
# victim (pmu_cgroup_interference_suspect in the last scrape).
#
# Exit 0: measured, or this machine cannot measure (no hardware PMU, or
# fewer than 3 CPUs; the reason is printed); 1: an error.
set -u
. "$(dirname "$0")/lib.sh"
trap bench_cleanup EXIT
PERIODS=${1:-8}
HALF=${2:-30}
bench_require "curl dd taskset awk" "pmu_exporter topdown_work"

NAME=pmu_interference_$$
bench_mkcg "$CGROOT/$NAME"
for c in victim antagonist decoy; do
	bench_mkcg "$CGROOT/$NAME/$c"
done
PORT=$(bench_free_port)
cat > "$BENCH_TMP/c.yaml" <<YAML
interval: 1s
groups:
  - name: ipc
    events: [cycles, instructions]
cgroups:
  - path: /$NAME/*
    groups: [ipc]
${PMU_INTERFERENCE_YAML:-}
YAML
bench_spawn "$PMU_EXPORTER" --config.file="$BENCH_TMP/c.yaml" \
    --web.listen-address="127.0.0.1:$PORT" 2> "$BENCH_TMP/daemon.log"
DAEMON=$BENCH_LAST
bench_wait_http "http://127.0.0.1:$PORT/-/ready" ||
	bench_die "daemon not ready: $(cat "$BENCH_TMP/daemon.log")"
sleep 2
scrape() { curl -fs "http://127.0.0.1:$PORT/metrics" > "$1" || bench_die "scrape failed"; }
scrape "$BENCH_TMP/first"

# Without hardware counters there is no CPI to measure: say so, exit 0.
if ! grep -q '^pmu_exporter_event_supported{group="ipc",event="cycles"[^}]*} 1$' "$BENCH_TMP/first"; then
	echo "interference.sh: cannot measure on this machine: no hardware PMU"
	echo "  (the daemon reports $(grep '^pmu_exporter_event_supported{group="ipc",event="cycles"' "$BENCH_TMP/first" | tr -d '\n'):"
	echo "   cycles and instructions cannot be counted, so there is no CPI; $(grep -c '^processor' /proc/cpuinfo) CPUs,"
	echo "   $(grep -m1 '^model name' /proc/cpuinfo | sed 's/.*: //'), kernel $(uname -r))"
	exit 0
fi
[ "$(nproc)" -ge 3 ] || { echo "interference.sh: cannot measure on this machine: $(nproc) CPUs, 3 needed (victim, antagonist, decoy)"; exit 0; }
grep pmu_exporter_cpu_info "$BENCH_TMP/first"

# The CPUs: the victim on V, the antagonist on a CPU sharing V's cache
# (SMT sibling first), the decoy on a CPU that shares neither.
V=$(taskset -pc $$ | sed 's/.*: //; s/[-,].*//')
sys=/sys/devices/system/cpu
expand() { awk -v RS=, -F- '{ for (i = $1; i <= ($2 == "" ? $1 : $2); i++) print i }' <<<"$1"; }
A=$(expand "$(cat "$sys/cpu$V/topology/thread_siblings_list")" | grep -vx "$V" | head -1)
[ -n "$A" ] || A=$(expand "$(cat "$sys/cpu$V/cache/index3/shared_cpu_list" 2>/dev/null)" | grep -vx "$V" | head -1)
[ -n "$A" ] || A=$(( (V + 1) % $(nproc) ))
D=$(expand "$(cat "$sys/cpu$V/cache/index3/shared_cpu_list" 2>/dev/null || echo "$V")" |
    sort -n | awk -v n="$(nproc)" -v v="$V" -v a="$A" '{ s[$1] = 1 } END {
	for (i = 0; i < n; i++) if (i != v && i != a && !(i in s)) { print i; exit }
	for (i = 0; i < n; i++) if (i != v && i != a) { print i; exit } }')
LLC_KB=$(sed 's/K$//' "$sys/cpu$V/cache/index3/size" 2>/dev/null || echo 8192)
MIB=$(( LLC_KB / 2048 > 0 ? LLC_KB / 2048 : 1 ))
echo "victim: chase over $MIB MiB on CPU $V (last-level cache ${LLC_KB} kB);" \
     "antagonist: dd bs=64M on CPU $A; decoy: compute on CPU $D"

inside() {	# CGROUP CPU CMD...: run CMD in CGROUP on CPU, in the background
	local cg=$1 cpu=$2
	shift 2
	bench_spawn taskset -c "$cpu" sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' \
	    "$CGROOT/$NAME/$cg" "$@"
}
TOTAL=$(( PERIODS * 2 * HALF + HALF ))
inside victim "$V" "$BENCH_BIN/topdown_work" chase "$MIB" "$TOTAL"
VICTIM=$BENCH_LAST
sleep 5		# the victim's cells are built

# The victim's cycles and instructions so far.
counts() {
	awk -v cg="/$NAME/victim" '$1 ~ /^pmu_cgroup_events_total\{/ && index($1, "cgroup=\"" cg "\"") {
		if ($1 ~ /event="cycles"/) c += $2; if ($1 ~ /event="instructions"/) i += $2 }
		END { printf "%.0f %.0f\n", c, i }' "$1"
}
on_c=0 on_i=0 off_c=0 off_i=0
ANT= DEC=
for p in $(seq 1 "$PERIODS"); do
	for half in on off; do
		for q in 1 2; do
			# The decoy flips a quarter period after the antagonist.
			if [ $q = 2 ]; then
				if [ -n "$DEC" ]; then bench_stop "$DEC"; DEC=
				else inside decoy "$D" "$BENCH_BIN/topdown_work" compute "$TOTAL"; DEC=$BENCH_LAST; fi
			elif [ $half = on ]; then
				scrape "$BENCH_TMP/a"
				inside antagonist "$A" dd if=/dev/zero of=/dev/null bs=64M
				ANT=$BENCH_LAST
			else
				scrape "$BENCH_TMP/a"
				bench_stop "$ANT"; ANT=
			fi
			sleep $(( HALF / 2 ))
		done
		scrape "$BENCH_TMP/b"
		read -r c0 i0 < <(counts "$BENCH_TMP/a")
		read -r c1 i1 < <(counts "$BENCH_TMP/b")
		if [ $half = on ]; then on_c=$((on_c + c1 - c0)) on_i=$((on_i + i1 - i0))
		else off_c=$((off_c + c1 - c0)) off_i=$((off_i + i1 - i0)); fi
	done
	echo "period $p of $PERIODS done"
done
[ -n "$ANT" ] && bench_stop "$ANT"
[ -n "$DEC" ] && bench_stop "$DEC"
scrape "$BENCH_TMP/last"
kill -0 "$VICTIM" 2>/dev/null || bench_die "the victim exited early"

awk -v a="$on_c" -v b="$on_i" -v c="$off_c" -v d="$off_i" 'BEGIN {
	if (b == 0 || d == 0) { print "RESULT interference: no instructions counted for the victim"; exit 1 }
	printf "RESULT interference: victim CPI %.3f without the antagonist, %.3f with it (%.2fx)\n",
	    c / d, a / b, (a / b) / (c / d) }' || exit 1
echo "suspects the daemon names for the victim (rank, suspect, correlation):"
sus=$(grep "^pmu_cgroup_interference_suspect{cgroup=\"/$NAME/victim\"" "$BENCH_TMP/last" |
    sed -E 's/.*suspect_cgroup="([^"]*)".*rank="([^"]*)".*\} (.*)/  \2 \1 \3/' | sort -n)
echo "${sus:-  none (no pmu_cgroup_interference_suspect series for /$NAME/victim)}"
grep -q "^pmu_cgroup_interference_suspect{cgroup=\"/$NAME/victim\".*suspect_cgroup=\"/$NAME/antagonist\".*rank=\"1\"" "$BENCH_TMP/last" &&
	echo "RESULT interference: the antagonist named first" ||
	echo "RESULT interference: the antagonist NOT named first"
grep -q "^pmu_cgroup_interference_suspect{cgroup=\"/$NAME/victim\".*suspect_cgroup=\"/$NAME/decoy\"" "$BENCH_TMP/last" &&
	echo "RESULT interference: the decoy named too" || echo "RESULT interference: the decoy not named"
exit 0
