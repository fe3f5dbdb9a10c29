# lib.sh - shared by the integration tests: finding the daemon, a free
# loopback port, a private cgroup parent, scraping, fetches that retry
# (retry.sh), and cleaning up only what the test itself started or
# created.

set -u
: "${top_builddir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_srcdir:=$top_builddir}"
PMU="$top_builddir/daemon/pmu_exporter"
HELPERS="$top_builddir/tests/lib/helpers"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/pmu_test.XXXXXX")
DAEMON_PID=
# Processes a helper started for the test (spinners), ended by PID at exit.
KILL_AT_EXIT=
SPINNER=
CG_PARENT=
PORT=
# The tests wait for the work (a collection, a reload, CPU time in a
# cgroup's cpu.stat), not for time: on a machine busy with other work
# anything can take several times what it takes idle.  What bounds a
# wait is only there to end a test whose work never comes, loudly:
# PMU_WAIT_S seconds (default 120, a tenth of an integration test's
# time limit, tests/lib/limit.sh) for each wait (wait_until).
: "${PMU_WAIT_S:=120}"
# A test that fetches from Debian's archive does it through pmu_retry or
# pmu_apt_download (retry.sh), so one dropped connection does not fail
# it.  The arm64 guest fetches nothing and has no retry.sh.
if [ -z "${PMU_GUEST:-}" ]; then
	# shellcheck source=retry.sh
	. "$top_srcdir/retry.sh"
fi

# A sanitizer build (check.sh sets PMU_SANITIZED): every report from any
# program this test runs goes to a file $SAN_LOG.PID, and the test fails
# at exit if there is one, whatever it asserted and however the program
# ended.  ThreadSanitizer's reports do not stop the program, and a report
# printed into a log nobody reads, or at an exit nobody checks (a daemon
# stopped by cleanup), would otherwise pass.
SAN_LOG=
if [ -n "${PMU_SANITIZED:-}" ]; then
	SAN_LOG="$TMP/sanitizer"
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}log_path=$SAN_LOG"
	UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}log_path=$SAN_LOG"
	TSAN_OPTIONS="${TSAN_OPTIONS:+$TSAN_OPTIONS:}log_path=$SAN_LOG"
	export ASAN_OPTIONS UBSAN_OPTIONS TSAN_OPTIONS
fi

# Tests run in parallel; one (hotplug.test) changes the whole machine by
# taking a CPU offline.  Every test holds this lock shared; that one holds
# it exclusively, so it runs alone.
# (The arm64 test guest runs its tests one at a time and has no flock.)
exec 9>"${TMPDIR:-/tmp}/pmu_exporter-tests.lock"
if command -v flock >/dev/null 2>&1; then flock -s 9; fi

# The embedded default's layout podman counts every container under
# /libpod_parent, whichever test made it, and the daemon's log line for
# the layout says the count.  A test that makes a container there holds
# this lock shared while the container lives (image.test, beside the
# sanitizer pass); layouts.test, which reads that line when its own
# container comes and goes, holds it exclusively.  Released at exit.
podman_layout_lock() {	# -s or -x
	exec 8>"${TMPDIR:-/tmp}/pmu_exporter-podman-layout.lock"
	if command -v flock >/dev/null 2>&1; then flock "$1" 8; fi
}

skip() { echo "SKIP: $*"; exit 77; }
# The files with sanitizer reports so far; none when not a sanitizer build.
sanitizer_reports() { [ -n "$SAN_LOG" ] && ls "$SAN_LOG".* 2>/dev/null; }
show_sanitizer_reports() {
	local f
	for f in $(sanitizer_reports); do
		echo "$(grep -c '^SUMMARY: ' "$f") sanitizer report(s) from PID ${f##*.}; the first:"
		head -n 80 "$f"
		echo "... and the summary line of each:"
		grep '^SUMMARY: ' "$f"
	done
}
fail() { echo "FAIL: $*"; [ -f "$TMP/daemon.log" ] && sed 's/^/  daemon: /' "$TMP/daemon.log" | tail -20; exit 1; }
ok() { echo "ok: $*"; }

cleanup() {
	local p
	for p in $KILL_AT_EXIT; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
	if [ -n "$DAEMON_PID" ] && kill -0 "$DAEMON_PID" 2>/dev/null; then
		kill "$DAEMON_PID" 2>/dev/null
		wait "$DAEMON_PID" 2>/dev/null
	fi
	if [ -n "$CG_PARENT" ] && [ -d "$CG_PARENT" ]; then
		# Move any stragglers out, then remove children before parents.
		find "$CG_PARENT" -name cgroup.procs | while read -r f; do
			while read -r p; do echo "$p" > "$CG_ROOT/cgroup.procs"; done < "$f"
		done 2>/dev/null
		find "$CG_PARENT" -depth -type d -exec rmdir {} \; 2>/dev/null
	fi
	if [ -n "$(sanitizer_reports)" ]; then
		echo "FAIL: $(sanitizer_reports | wc -l) program(s) reported to the sanitizer"
		show_sanitizer_reports
		# PMU_KEEP_SANITIZER_LOGS=DIR keeps the whole reports.
		[ -n "${PMU_KEEP_SANITIZER_LOGS:-}" ] &&
			cp $(sanitizer_reports) "$PMU_KEEP_SANITIZER_LOGS/"
		rm -rf "$TMP"
		exit 1
	fi
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

need_root() {
	[ "$(id -u)" = 0 ] || skip "needs root (perf events on every CPU and cgroup creation)"
}

# Does this machine have hardware counters?  perf says, where it is
# installed; the arm64 test guest has no perf, so there the daemon's own
# --check-config asks perf_event_open (and a skip in the guest, which
# always has a PMU, is a failure: tests/vm/result.sh).
have_hw() {
	"$HELPERS/spin" 1 >/dev/null 2>&1 || return 1
	if command -v perf >/dev/null 2>&1; then
		perf stat -x, -e instructions true 2>&1 | grep -qv -e 'not supported' -e '<not counted>'
		return
	fi
	printf 'groups:\n  - name: hw\n    events: [instructions]\ncpus:\n  - cpus: all\n    groups: [hw]\n' \
	    > "$TMP/have_hw.yaml"
	"$PMU" --config.file="$TMP/have_hw.yaml" --check-config >/dev/null 2>&1
}

need_hw() {
	have_hw || skip "no hardware counters on this machine (perf stat -e instructions: not supported); the arm64 guest runs this test: tests/vm/$(basename "$0" .test).vm"
}

# HTTP GET to stdout, failing on an HTTP error: curl, or busybox wget in
# the test guest.
http_get() {
	if command -v curl >/dev/null 2>&1; then
		curl -sf "$1"
	else
		wget -q -O - "$1" 2>/dev/null
	fi
}

# The cgroup2 (or v1 perf_event) mount, from mountinfo, never assumed.
find_cgroup_root() {
	CG_ROOT=$(awk '$0 ~ / - cgroup / && $NF ~ /(^|,)perf_event(,|$)/ {print $5; exit}' /proc/self/mountinfo)
	[ -n "$CG_ROOT" ] || CG_ROOT=$(awk '$0 ~ / - cgroup2 / {print $5; exit}' /proc/self/mountinfo)
	[ -n "$CG_ROOT" ] || skip "no cgroup hierarchy with perf_event mounted"
}

# A private parent cgroup directly under the root; removed on exit.
make_cgroup_parent() {
	need_root
	find_cgroup_root
	CG_NAME="pmu_test_$$_$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')"
	CG_PARENT="$CG_ROOT/$CG_NAME"
	mkdir "$CG_PARENT" || fail "mkdir $CG_PARENT"
}

# Run a command inside cgroup $1 (path under the root): the shell moves
# itself in first, then execs, so every instruction of the command counts.
run_in_cgroup() {
	local cg="$1"; shift
	sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$CG_ROOT$cg" "$@"
}

# Start the daemon on a free loopback port with the given arguments.
start_daemon() {
	local try end
	for try in 1 2 3 4 5 6 7 8 9 10; do
		PORT=$(( 20000 + (RANDOM * 7 + $$ + try * 131) % 40000 ))
		"$PMU" --web.listen-address="127.0.0.1:$PORT" "$@" > "$TMP/daemon.log" 2>&1 &
		DAEMON_PID=$!
		# Ready is after the first collection: as long as that takes.
		end=$(( $(date +%s) + PMU_WAIT_S ))
		while [ "$(date +%s)" -lt "$end" ]; do
			# Its own listening line first: a port another suite's
			# daemon holds answers the ready probe too (seen with
			# check.sh's two lanes: this one had exited, "Address
			# already in use", and the test scraped the other).
			if grep -q "listening on 127.0.0.1:$PORT " "$TMP/daemon.log" &&
			    http_get "http://127.0.0.1:$PORT/-/ready" >/dev/null; then
				return 0
			fi
			kill -0 "$DAEMON_PID" 2>/dev/null || break
			sleep 0.05
		done
		if kill -0 "$DAEMON_PID" 2>/dev/null; then
			fail "daemon did not become ready in PMU_WAIT_S=$PMU_WAIT_S s"
		fi
		wait "$DAEMON_PID" 2>/dev/null
		DAEMON_PID=
		grep -q "Address already in use" "$TMP/daemon.log" || fail "daemon exited at start"
	done
	fail "no free port found"
}

stop_daemon() {
	kill -TERM "$DAEMON_PID" || fail "kill"
	wait "$DAEMON_PID"
	local rc=$?
	DAEMON_PID=
	return $rc
}

scrape() { http_get "http://127.0.0.1:$PORT${1:-/metrics}"; }
# A config of N cgroups entries, the first with N relabel rules under an
# anchor that every other entry repeats by alias (about 100 bytes an entry,
# N * N rules): the amplification the config budget refuses.
alias_rules_config() {
	awk -v n="$1" 'BEGIN { print "groups:\n  - name: sw\n    events: [task-clock]\ncgroups:"
		for (e = 0; e < n; e++) {
			printf "  - path: /e%d\n    groups: [sw]\n", e
			if (e) { print "    relabel: *r"; continue }
			print "    relabel: &r"
			for (i = 0; i < n; i++)
				printf "      - regex: \047a%d(.*)\047\n        target_label: l%d\n", i, i
		} }'
}

# A scrape into FILE of a snapshot published after everything so far: the
# tail's counts (scrapes, refusals, auth failures) are as of a snapshot's
# first scrape.
fresh_scrape() {
	local c0
	scrape > "$1"
	c0=$(value_of "$1" pmu_exporter_collections_total)
	wait_until "a new snapshot after collection $c0" new_snapshot "$1" "$c0"
}
new_snapshot() { scrape > "$1"; [ "$(value_of "$1" pmu_exporter_collections_total)" != "$2" ]; }

# The value of one series (exact label set) in a scrape file.
value_of() {
	awk -v s="$2" 'index($0, s" ") == 1 { print $NF; found=1 } END { if (!found) print "missing" }' "$1"
}

# The collections the daemon has published, from its own counter.
collections_now() { scrape | awk '/^pmu_exporter_collections_total /{print $2}'; }
collections_reach() { local now; now=$(collections_now); [ -n "$now" ] && [ "$now" -ge "$1" ]; }
# Wait until the collector has published at least N more collections.
wait_collections() {
	local start
	start=$(collections_now)
	[ -n "$start" ] || fail "no pmu_exporter_collections_total in a scrape"
	wait_until "the collector to advance by $1 collections from $start" collections_reach $(( start + $1 ))
}

# wait_until WHAT CMD...: CMD again every 0.05 s until it succeeds; the
# test fails saying what it waited for after PMU_WAIT_S seconds.
wait_until() {
	local what=$1 end
	shift
	end=$(( $(date +%s) + PMU_WAIT_S ))
	until "$@"; do
		[ "$(date +%s)" -lt "$end" ] || fail "waited PMU_WAIT_S=$PMU_WAIT_S s for $what"
		sleep 0.05
	done
}

# log_count PATTERN: the daemon's log lines so far that match it (grep).
log_count() { grep -c -- "$1" "$TMP/daemon.log"; }
log_reaches() { [ "$(log_count "$1")" -ge "$2" ]; }
# wait_log PATTERN N: until the daemon has logged N lines that match.
wait_log() { wait_until "$2 line(s) of the daemon's log matching $1" log_reaches "$1" "$2"; }

# cg_usage_ns CGROUP_DIR: the CPU time its tasks have used (cpu.stat), in ns.
# Nanoseconds the machine has spent in interrupts (hard and soft) and
# lost to steal so far: /proc/stat's irq, softirq and steal, each summed
# over the CPUs in ns and then rounded down to USER_HZ ticks.  A window's
# time is the difference of two reads, plus up to irq_steal_round_ns (a
# tick for each of the three fields: 30 ms at USER_HZ 100), which the
# two roundings can hide.
irq_steal_ns() {
	awk -v hz="$(getconf CLK_TCK)" '$1 == "cpu" { printf "%.0f\n", ($7 + $8 + $9) * 1e9 / hz }' /proc/stat
}
irq_steal_round_ns() { echo $(( 3 * 1000000000 / $(getconf CLK_TCK) )); }
cg_usage_ns() { awk '$1 == "usage_usec" { printf "%.0f\n", $2 * 1000 }' "$1/cpu.stat"; }
cg_usage_reaches() { [ "$(cg_usage_ns "$1")" -ge "$2" ]; }
# spinner_start CGROUP_DIR [CPU]: a busy loop in the cgroup (pinned to
# CPU), in it from its first instruction; its PID in SPINNER, ended at
# exit if the test has not ended it.
spinner_start() {
	if [ -n "${2:-}" ]; then
		sh -c 'echo $$ > "$0/cgroup.procs" && exec taskset -c "$1" sh -c "while :; do :; done"' "$1" "$2" &
	else
		sh -c 'echo $$ > "$0/cgroup.procs" && exec sh -c "while :; do :; done"' "$1" &
	fi
	SPINNER=$!
	KILL_AT_EXIT="$KILL_AT_EXIT $SPINNER"
}
spinner_stop() {
	kill "$SPINNER" 2>/dev/null
	wait "$SPINNER" 2>/dev/null
	KILL_AT_EXIT=$(for p in $KILL_AT_EXIT; do [ "$p" = "$SPINNER" ] || printf ' %s' "$p"; done)
}
# wait_usage CGROUP_DIR NS: until the cgroup's cpu.stat shows NS ns.
wait_usage() { wait_until "$1 to reach $2 ns of CPU time" cg_usage_reaches "$1" "$2"; }
# spin_until_usage CGROUP_DIR NS [CPU]: a spinner in the cgroup (on CPU)
# until its cpu.stat shows NS ns more CPU time than before, however long
# the machine takes to give it that.
spin_until_usage() {
	local want
	want=$(( $(cg_usage_ns "$1") + $2 ))
	spinner_start "$1" "${3:-}"
	wait_usage "$1" "$want"
	spinner_stop
}

# How much one series grew between two scrape files: delta_of A B SERIES.
# Fails the test when the series is missing from either.
delta_of() {
	local a b
	a=$(value_of "$1" "$3") b=$(value_of "$2" "$3")
	[ "$a" != missing ] && [ "$b" != missing ] || fail "no series $3 (in $1: $a, in $2: $b)"
	awk -v a="$a" -v b="$b" 'BEGIN { printf "%.0f", b - a }'
}

# |a-b|/b <= pct/100, with awk's floating point.
within() {
	awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d / b <= p / 100) }'
}

# The PromQL of every panel query of a Grafana dashboard, one JSON object
# {"title": ..., "refId": ..., "expr": ...} a line, with Grafana's
# variables replaced: $__rate_interval by RATE_INTERVAL, $NAME by VALUE
# (a whole name: name=VALUE replaces $name, not the start of $namespace):
#   dashboard_queries FILE RATE_INTERVAL NAME=VALUE...
dashboard_queries() {
	local f=$1 r=$2 vars
	shift 2
	vars=$(for v in "$@"; do printf '%s\n' "$v"; done |
		jq -R -s 'split("\n") | map(select(length > 0) | capture("^(?<k>[a-z_]+)=(?<v>.*)$"))')
	jq -c --arg r "$r" --argjson vars "$vars" '.panels[] | .title as $t | (.targets // [])[]
		| {title: $t, refId, expr: (reduce $vars[] as $x (.expr | gsub("\\$__rate_interval"; $r);
		  gsub("\\$" + $x.k + "(?![A-Za-z0-9_])"; $x.v)))}' "$f"
}
