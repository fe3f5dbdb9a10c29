# bench/lib.sh - shared by the benchmark scripts; sourced, never run.
# shellcheck shell=bash
#
# Everything a script starts is recorded (bench_spawn, bench_mkcg) and
# undone by bench_cleanup, which the scripts run from an EXIT trap: only
# the PIDs this script started are killed, only the cgroups it made are
# removed.  Servers bind 127.0.0.1 only.

: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
PMU_EXPORTER=${PMU_EXPORTER:-$top_builddir/daemon/pmu_exporter}
BENCH_BIN=${BENCH_BIN:-$top_builddir/bench}

BENCH_PIDS=
BENCH_CGROUPS=
BENCH_TMP=$(mktemp -d "${TMPDIR:-/tmp}/pmu_bench.XXXXXX")

bench_die() {
	echo "$(basename "$0"): $*" >&2
	exit 1
}

bench_cleanup() {
	local pid cg i=
	for pid in $BENCH_PIDS; do
		kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	done
	BENCH_PIDS=
	# Children first: the list is in creation order, remove in reverse.
	for cg in $BENCH_CGROUPS; do
		i="$cg $i"
	done
	for cg in $i; do
		# A cgroup can only go once its last task has been reaped.
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			rmdir "$cg" 2>/dev/null || [ ! -d "$cg" ] && break
			sleep 0.1
		done
		[ -d "$cg" ] && echo "$(basename "$0"): could not remove $cg" >&2
	done
	BENCH_CGROUPS=
	rm -rf "$BENCH_TMP"
}

# Run a command in the background and remember its PID in $BENCH_LAST.
bench_spawn() {
	"$@" &
	BENCH_LAST=$!
	BENCH_PIDS="$BENCH_PIDS $BENCH_LAST"
}

# Stop one process started by bench_spawn (SIGTERM unless $2 names one).
bench_stop() {
	local pid=$1 sig=${2:-TERM} p rest=
	kill -s "$sig" "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	for p in $BENCH_PIDS; do
		[ "$p" = "$pid" ] || rest="$rest $p"
	done
	BENCH_PIDS=$rest
}

# The hierarchy perf's cgroup mode uses, read from mountinfo the way the
# daemon does: a v1 mount with the perf_event option wins, else cgroup2.
bench_cgroot() {
	awk '{
		for (i = 7; $i != "-"; i++) ;
		fs = $(i + 1); opts = "," $(i + 3) ","
		if (fs == "cgroup" && opts ~ /,perf_event,/ && v1 == "") v1 = $5
		if (fs == "cgroup2" && v2 == "") v2 = $5
	} END { print (v1 != "" ? v1 : v2) }' /proc/self/mountinfo
}

# What a ping-pong benchmark needs, or die saying what is missing: root,
# the commands named, the programs named (under $BENCH_BIN, plus the daemon
# when "pmu_exporter" is among them), and a cgroup hierarchy, whose mount
# is left in CGROOT.
#   bench_require "perf curl ss" "pmu_exporter pingpong"
bench_require() {
	local t
	[ "$(id -u)" = 0 ] || bench_die "must run as root (cgroups, perf, BPF)"
	for t in $1; do
		command -v "$t" >/dev/null || bench_die "$t not found"
	done
	for t in $2; do
		if [ "$t" = pmu_exporter ]; then
			[ -x "$PMU_EXPORTER" ] || bench_die "$PMU_EXPORTER is not built (make)"
		else
			[ -x "$BENCH_BIN/$t" ] || bench_die "$BENCH_BIN/$t is not built (make bench)"
		fi
	done
	CGROOT=$(bench_cgroot)
	[ -n "$CGROOT" ] || bench_die "no cgroup hierarchy for perf in mountinfo"
}

bench_mkcg() {
	mkdir "$1" || bench_die "mkdir $1 failed"
	BENCH_CGROUPS="$BENCH_CGROUPS $1"
}

# A TCP port no socket uses, from a range away from the usual ones and
# below the kernel's ephemeral ports (32768 and up by default).  A port
# held by a client's connection cannot be listened on either: checking
# listeners only, a daemon failed with EADDRINUSE 3 times in about 120
# starts while other benchmarks on the machine made thousands of
# connections.
bench_free_port() {
	local p tries=0
	while [ $tries -lt 200 ]; do
		p=$(( 20000 + (RANDOM * 32768 + RANDOM) % 12768 ))
		if [ -z "$(ss -Htan "sport = :$p" 2>/dev/null)" ]; then
			echo "$p"
			return 0
		fi
		tries=$((tries + 1))
	done
	bench_die "no free port found"
}

# Wait until URL answers 200, at most $2 seconds (default 10).
bench_wait_http() {
	local url=$1 max=${2:-10} i=0
	while [ $i -lt $((max * 10)) ]; do
		curl -fs -o /dev/null "$url" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# bench_serve VAR LOG PATH WAIT_S CMD...: start a server, every @PORT@
# in CMD's arguments a free port, its stderr in LOG; once
# http://127.0.0.1:PORT/PATH answers 200 (PATH "any:/x": any HTTP status,
# as behind a password) within WAIT_S seconds, the port is in VAR, the
# PID in $BENCH_LAST and the time of its start (ns) in $BENCH_SPAWNED_NS.
# Another process can take the port between the check and the bind (the
# machine may be shared): then again on another, up to 5 times.  Dies when
# the server exits for another reason or does not answer in time.
bench_serve() {
	local _var=$1 _log=$2 _path=$3 _wait=$4 _any='' _try _p _a _i _c _args
	shift 4
	case $_path in any:*) _any=1; _path=${_path#any:} ;; esac
	for _try in 1 2 3 4 5; do
		_p=$(bench_free_port)
		_args=()
		for _a in "$@"; do _args+=("${_a//@PORT@/$_p}"); done
		# shellcheck disable=SC2034  # read by the scripts
		BENCH_SPAWNED_NS=$(date +%s%N)
		bench_spawn "${_args[@]}" 2>"$_log"
		for ((_i = 0; _i < _wait * 10; _i++)); do
			_c=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$_p$_path")
			if [ "$_c" = 200 ] || { [ -n "$_any" ] && [ "$_c" != 000 ]; }; then
				printf -v "$_var" %s "$_p"
				return 0
			fi
			kill -0 "$BENCH_LAST" 2>/dev/null || break
			sleep 0.1
		done
		grep -q 'already in use' "$_log" ||
			bench_die "${1##*/} did not answer $_path in $_wait s: $(tail -5 "$_log")"
		bench_stop "$BENCH_LAST"
	done
	bench_die "${1##*/}: no free port in 5 tries"
}

# VmRSS of a PID, in kB.
bench_rss_kb() {
	awk '$1 == "VmRSS:" { print $2 }' "/proc/$1/status"
}

# Median of the numbers on stdin.
bench_median() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) exit
		if (NR % 2) print v[(NR + 1) / 2]
		else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2
	}'
}

# Percent of all CPU time that was busy over the next $1 seconds (default
# 2), from /proc/stat: how much else is running on the machine.
bench_busy_pct() {
	local a b
	a=$(awk '$1 == "cpu" { print $2+$3+$4+$7+$8+$9, $5+$6 }' /proc/stat)
	sleep "${1:-2}"
	b=$(awk '$1 == "cpu" { print $2+$3+$4+$7+$8+$9, $5+$6 }' /proc/stat)
	echo "$a $b" | awk '{ busy = $3 - $1; idle = $4 - $2
		printf "%.0f\n", (busy + idle > 0 ? 100 * busy / (busy + idle) : 0) }'
}

# Other processes holding perf events ("pid:fds comm" ...), this shell's
# children excepted: they count on the same CPUs and cgroups and so
# disturb every figure here.  Empty when there are none.
bench_perf_users() {
	local d pid n out=
	for d in /proc/[0-9]*; do
		pid=${d#/proc/}
		[ "$pid" = $$ ] && continue
		n=$(find "$d/fd" -lname 'anon_inode:?perf_event?' 2>/dev/null |
		    wc -l)
		[ "$n" -gt 0 ] || continue
		case " $BENCH_PIDS " in *" $pid "*) continue ;; esac
		out="$out $pid:$n($(tr -d '\n' <"$d/comm" 2>/dev/null))"
	done
	echo "${out# }"
}

# Milliseconds since the epoch of a log line's ts=... field.
bench_log_ms() {
	local ts
	ts=$(sed -n 's/^ts=\([^ ]*\) .*/\1/p' <<<"$1")
	date -d "$ts" +%s%3N
}

# CPU time so far of every thread of PID, in ns.
bench_cpu_ns() {
	cat /proc/"$1"/task/*/schedstat 2>/dev/null |
	    awk '{ s += $1 } END { printf "%.0f\n", s }'
}
