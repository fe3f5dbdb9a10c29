#!/bin/bash
# default_switch.sh - what the embedded default costs a switch between two
# containers of one slice, for each daemon binary given (this tree's when
# none is), alternating with no daemon at all.
#
#   bench/default_switch.sh [BINARY...]      (as root; ROUNDS=5 N=100000)
#
# Two cgroups named as Docker's systemd driver names containers, under a
# slice of their own directly below the root (layout top, as
# /system.slice is), and bench/pingpong between them pinned to one CPU:
# every hop a switch between the two.  Each round runs "none" and each
# binary in turn (every other round reversed), a fresh daemon each time,
# which must count both containers and the slice before the ping-pong
# starts.  Prints microseconds per round trip: median, range and the
# median's excess over none (bench/RESULTS.md, "What counting every
# container costs a busy node").
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
trap bench_cleanup EXIT
ROUNDS=${ROUNDS:-5}
N=${N:-100000}
CPU=${CPU:-1}

hex64() { head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n'; }

# Start BINARY with its default config; wait until it counts both
# containers and the slice.  Leaves its PID in $BENCH_LAST.
start_default() {
	local port seen
	port=$(bench_free_port)
	bench_spawn "$1" --web.listen-address="127.0.0.1:$port" \
	    >"$BENCH_TMP/daemon.log" 2>&1
	for _ in $(seq 1 300); do
		seen=$(curl -fs "http://127.0.0.1:$port/metrics" 2>/dev/null |
		    grep -o "^pmu_cgroup_[a-z_]*{cgroup=\"$SLICE\(/$A\|/$B\)\?\"" |
		    sort -u | sed 's/^[^{]*//' | sort -u | wc -l)
		[ "${seen:-0}" -ge 3 ] && return 0
		kill -0 "$BENCH_LAST" 2>/dev/null || break
		sleep 0.1
	done
	bench_die "$1 did not count $SLICE and its two containers: $(tail -3 "$BENCH_TMP/daemon.log")"
}

# One ping-pong; prints microseconds per round trip.
pingpong() {
	"$BENCH_BIN/pingpong" -n "$N" -c "$CPU" -a "$CGROOT$SLICE/$A" \
	    -b "$CGROOT$SLICE/$B" | sed -n 's/^RESULT us_per_roundtrip=\([0-9.]*\).*/\1/p'
}

# One condition's run: "none" or a binary; appends to $BENCH_TMP/<i>.
run_one() {
	local i=$1 bin=$2 us
	[ "$bin" = none ] || start_default "$bin"
	us=$(pingpong)
	[ "$bin" = none ] || bench_stop "$BENCH_LAST"
	[ -n "$us" ] || bench_die "the ping-pong gave no figure (CPU $CPU taken offline?)"
	echo "$us" >>"$BENCH_TMP/$i"
}

report() {
	local i=0 none med
	none=$(bench_median <"$BENCH_TMP/0")
	for c in "${CONDS[@]}"; do
		med=$(bench_median <"$BENCH_TMP/$i")
		printf '%s\t%s\t%s-%s\t%+.2f\n' "$c" "$med" \
		    "$(sort -g "$BENCH_TMP/$i" | head -1)" \
		    "$(sort -g "$BENCH_TMP/$i" | tail -1)" \
		    "$(echo "$med - $none" | bc -l)"
		i=$((i + 1))
	done
}

main() {
	local r i order
	PMU_EXPORTER=${1:-$PMU_EXPORTER}
	bench_require "curl ss bc" "pmu_exporter pingpong"
	CONDS=(none "${@:-$PMU_EXPORTER}")
	SLICE=/pmu_ds_$$.slice
	A=docker-$(hex64).scope
	B=docker-$(hex64).scope
	bench_mkcg "$CGROOT$SLICE"
	bench_mkcg "$CGROOT$SLICE/$A"
	bench_mkcg "$CGROOT$SLICE/$B"
	echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2-), $(nproc) CPUs," \
	    "Linux $(uname -r); $ROUNDS rounds of $N round trips on CPU $CPU;" \
	    "machine busy $(bench_busy_pct)% before"
	for r in $(seq 1 "$ROUNDS"); do
		order=$(seq 0 $((${#CONDS[@]} - 1)))
		[ $((r % 2)) = 0 ] && order=$(echo "$order" | tac)
		for i in $order; do
			run_one "$i" "${CONDS[$i]}"
		done
	done
	printf 'condition\tmedian us\trange\tover none\n'
	report
}

main "$@"
