#!/bin/bash
# busy_check.sh - the whole suite on a busy machine: CI's run of
# ./check.sh (.ci/run: CI=true, every cache empty) on a fresh clone of
# this checkout's HEAD, with a measured, bounded load beside it for its
# whole length, as on a shared CI runner (issue 51).  The load is
# stress-ng: CPU workers (default twice the CPUs: 4 on a 2-CPU machine)
# and one memory worker (--vm 1, 256 MiB, bounded so the suite keeps its
# memory), started before the suite and stopped after it.
#
#   bench/busy_check.sh [CPU_WORKERS [VM_WORKERS]]
#
# Prints the load it ran, the load average and what stress-ng reported
# (its bogo-ops: how much the load did beside the suite), the suite's wall
# time, and last the suite's own result line, "N passed, N failed, N
# skipped"; exits with check.sh's status.  The clone and its logs stay in
# the directory it names (the suite's full output in check.log).
#
# As root (check.sh installs what the suite needs; stress-ng is installed
# here, for this bench only: pmu_install_deps bench).  It runs for the
# suite's length and more (an hour and over on 2 CPUs): not run by the
# suite, nor by bench/run.sh.
set -u

# The whole run in one function, which bash reads whole before it runs a
# line of it: the script may be edited (a checkout moved) during the
# hour it runs without its last lines being read from the wrong place.
main() {
	top=$(cd "$(dirname "$0")/.." && pwd)
	ncpu=$(getconf _NPROCESSORS_ONLN)
	CPU_WORKERS=${1:-$((2 * ncpu))}
	VM_WORKERS=${2:-1}
	# shellcheck source=../deps.sh
	. "$top/deps.sh"
	pmu_install_deps bench || exit 1
	command -v stress-ng >/dev/null || { echo "stress-ng is not installed"; exit 1; }

	dir=$(mktemp -d "${TMPDIR:-/tmp}/pmu_busy_check.XXXXXX") || exit 1
	# mktemp's 0700 would keep the suite's unprivileged users
	# (privileges.test) from the daemon built under it, as CI's clone does not.
	chmod 755 "$dir" || exit 1
	git clone -q "$top" "$dir/tree" || { echo "git clone $top failed"; exit 1; }
	echo "busy_check: $(git -C "$dir/tree" log -1 --format='%h %s'), in $dir/tree"

	# The load, in a process group of its own so that it is ended whole.
	setsid stress-ng --cpu "$CPU_WORKERS" --vm "$VM_WORKERS" --vm-bytes 256M \
		--metrics-brief --timeout 0 > "$dir/stress.log" 2>&1 &
	LOAD=$!
	stop_load() {
		[ -n "$LOAD" ] || return 0
		kill -INT -- "-$LOAD" 2>/dev/null
		wait "$LOAD" 2>/dev/null
		LOAD=
	}
	trap stop_load EXIT
	trap 'exit 1' INT TERM
	sleep 5	# the workers started: the load average below is under it
	echo "busy_check: stress-ng --cpu $CPU_WORKERS --vm $VM_WORKERS --vm-bytes 256M on $ncpu CPUs; load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"

	t0=$(date +%s)
	(cd "$dir/tree" && CI=true bash .ci/run) > "$dir/check.log" 2>&1
	rc=$?
	t1=$(date +%s)
	echo "busy_check: load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
	stop_load
	echo "busy_check: what the load did (stress-ng --metrics-brief):"
	grep -E 'stressor|cpu |vm ' "$dir/stress.log" | sed 's/^/  /'
	echo "busy_check: the suite took $(( (t1 - t0) / 60 )) min $(( (t1 - t0) % 60 )) s; its failures, if any:"
	grep -E '^(FAIL|ERROR):' "$dir/check.log" | sed 's/^/  /'
	tail -n 1 "$dir/check.log"
	exit $rc
}

main "$@"
exit $?
