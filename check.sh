#!/bin/bash
# check.sh - install what is missing, then run the whole test suite:
# built with ASan and UBSan, every test (any report fails it); the
# integration tests that start the daemon (TSAN_TESTS in tests/Makefile.inc)
# built with ThreadSanitizer, any report failing the test; and beside
# those two, in a copy of the tree, as shipped, with warnings as errors,
# from the distribution tarball (`make
# distcheck`: its unit tests, valgrind's, HACKING.md's recipe for a kind
# and the arm64 guest with an emulated PMU for the hardware tests,
# tests/vm/), and before it, once, the Debian packages built (amd64,
# arm64 cross-built), the amd64 one installed under a booted systemd, and
# the multi-arch OCI image run as real containers under podman and
# containerd (make check-package), whose arm64 image the guest then runs.
# After each pass, its tests' wall times summed and its slowest eight.
# Ends with one line "N passed, N failed, N skipped" summed over all of
# them.
#
# The integration tests run once, in the sanitizer pass: run again in
# distcheck, as they were until issue 51, they took most of its time to
# say what the sanitizer pass had said (bench/RESULTS.md, "The suite's
# time").  What a second run from the tarball would catch, a file the
# tarball leaves out, `make dist` checks itself (Makefile.am, dist-hook);
# the shipped daemon runs as packaged, under systemd and in containers
# (package.test, image.test), and in the arm64 guest.
set -u
cd "$(dirname "$0")"
. ./deps.sh
pmu_install_deps test || exit 1
# Under CI=true every cache the suite keeps starts empty (tests/lib/cache.sh;
# HACKING.md, "Caches"): the package test's root goes to a new directory,
# removed at the end, and each build tree's arm64 downloads go with the
# `make distclean` before each pass.  So CI on a developer's machine
# meets what a new machine meets.
if [ "${CI:-}" = true ]; then
	PMU_TEST_CACHE=$(mktemp -d "${TMPDIR:-/tmp}/pmu_exporter-test-cache.XXXXXX") || exit 1
	export PMU_TEST_CACHE
	echo "=== CI=true: caches start empty ($PMU_TEST_CACHE)"
fi
jobs=$(nproc)
pass=0 fail=0 skip=0 status=0
# Each test's wall time (tests/lib/limit.sh), named per pass by slowest().
PMU_TEST_TIMES=$(mktemp "${TMPDIR:-/tmp}/pmu_exporter-test-times.XXXXXX") || exit 1
export PMU_TEST_TIMES
trap 'rm -f "$PMU_TEST_TIMES"; [ -n "${PMU_TEST_CACHE:-}" ] && rm -rf "$PMU_TEST_CACHE"' EXIT

# The pass's slowest tests and the sum of its tests' times: where the
# suite's wall time goes (issue 51).
slowest() {	# $1: label
	[ -s "$PMU_TEST_TIMES" ] || return 0
	echo "=== $1: tests' wall times summed $(awk -F'\t' '{ s += $1 } END { print s }' "$PMU_TEST_TIMES") s; the slowest: $(sort -rn "$PMU_TEST_TIMES" | head -8 | awk -F'\t' '{ n = split($2, p, "/"); printf "%s%s %s s", (NR > 1 ? ", " : ""), p[n], $1 }')"
	: > "$PMU_TEST_TIMES"
}

count() {
	local log=$1 p f s e
	p=$(sed -n 's/^# PASS: *//p' "$log"); f=$(sed -n 's/^# FAIL: *//p' "$log")
	s=$(sed -n 's/^# SKIP: *//p' "$log"); e=$(sed -n 's/^# ERROR: *//p' "$log")
	pass=$((pass + ${p:-0})); fail=$((fail + ${f:-0} + ${e:-0})); skip=$((skip + ${s:-0}))
}

# $prebuild: make arguments to run after the build, before the tests.
run_suite() {	# $1: label, $2: make check arguments, rest: configure arguments
	local label=$1 checkargs=$2 t0=$SECONDS; shift 2
	echo "=== $label: configure $*"
	[ -f Makefile ] && make -s distclean >/dev/null 2>&1
	./configure -q --enable-werror "$@" || { fail=$((fail + 1)); status=1; return; }
	if ! make -s -j"$jobs" >/dev/null; then
		echo "=== $label: build failed"; fail=$((fail + 1)); status=1; return
	fi
	# shellcheck disable=SC2086
	if [ -n "${prebuild:-}" ] && ! make -s $prebuild >/dev/null; then
		echo "=== $label: make $prebuild failed"; fail=$((fail + 1)); status=1; return
	fi
	rm -f test-suite.log
	# shellcheck disable=SC2086
	make -j"$jobs" check $checkargs || status=1
	[ -f test-suite.log ] && { cp test-suite.log "test-suite-$label.log"; count test-suite.log; }
	# A test program that does not build stops make check before any
	# test has run: no log, and that must count as a failure too.
	[ -f test-suite.log ] || { echo "=== $label: make check ran no test (a build failed)"; fail=$((fail + 1)); status=1; }
	grep -E '^(FAIL|ERROR)' test-suite.log 2>/dev/null | sed "s/^/=== $label: /"
	echo "=== $label: $((SECONDS - t0)) s, the build included"
	slowest "$label"
}

# The shipped build's passes, in a copy of this tree ($1) so that they
# run beside the sanitizer passes rather than after them: the copy is
# configured and built with warnings as errors (the packages are made from
# it); distcheck builds the tarball, runs its suite but for the
# integration tests (the sanitizer pass ran them), the arm64 guest's
# included, and installs and uninstalls it.  Its own pass/fail/skip
# counts go to $1/counts, its words to stdout.
#
# The Debian packages (amd64, and arm64 cross-built) under a booted
# systemd and the multi-arch OCI image made from them (tests/integration/package.test,
# tests/integration/image.test): once, on the plain build, before distcheck, whose
# arm64 guest runs the arm64 image of the archive image.test leaves in
# pkg/ (PMU_VM_IMAGE; tests/vm/image.vm), in the boot it makes anyway.
#
# Beside the sanitizer passes, each side has one CPU's worth of the
# machine's most of the time: the passes' tests wait for the work they
# need (issue 51), never for wall time, so they hold on a shared machine
# and here alike; the suite's wall time is the longer side's rather than
# the sum (bench/RESULTS.md, "The suite's time").
plain_passes() {
	local pass=0 fail=0 skip=0 status=0 t0 dc
	cd "$1" || return 1
	PMU_TEST_TIMES=$(mktemp "${TMPDIR:-/tmp}/pmu_exporter-test-times.XXXXXX") || return 1
	echo "=== plain: configure --enable-werror; the packages and image, then the tarball's build and suite (make distcheck)"
	[ -f Makefile ] && make -s distclean >/dev/null 2>&1
	if ./configure -q --enable-werror && make -s -j"$jobs" >/dev/null; then
		echo "=== package"
		t0=$SECONDS
		rm -f test-suite.log
		make check-package || status=1
		[ -f test-suite.log ] && { cp test-suite.log test-suite-package.log; count test-suite.log; }
		grep -E '^(FAIL|ERROR)' test-suite.log 2>/dev/null | sed "s/^/=== package: /"
		[ -f test-suite.log ] || { echo "=== package: make check-package failed"; fail=$((fail + 1)); status=1; }
		echo "=== package: $((SECONDS - t0)) s"
		slowest package
		t0=$SECONDS
		PMU_VM_IMAGE="$PWD/pkg/pmu-exporter-$(sed -n 's/^PACKAGE_VERSION = //p' Makefile).oci.tar" \
		make -s -j"$jobs" distcheck DISTCHECK_CONFIGURE_FLAGS=--enable-werror \
		    INTEGRATION_TESTS= timing_logs= VERBOSE=yes >distcheck.log 2>&1
		dc=$?
		echo "=== plain (distcheck): $((SECONDS - t0)) s"
		slowest "plain (distcheck)"
		# The summary of distcheck's `make check`: the suite's results.
		# (Not the failed tests' test-suite.log VERBOSE prints before
		# it, whose header repeats the counts.)
		sed '/: \.\/test-suite\.log$/,/^Testsuite summary for/{/^Testsuite summary for/!d}' \
		    distcheck.log > distcheck.sum
		count distcheck.sum
		grep -E '^(FAIL|ERROR):' distcheck.sum | sed "s/^/=== plain (distcheck): /"
		if [ $dc = 0 ]; then
			pass=$((pass + 1))	# the tarball builds, installs, uninstalls
		else
			# The failed tests' logs (VERBOSE=yes: make check prints
			# its test-suite.log), as the tarball's tree goes with
			# the clone: a guest test's figures say what failed.
			if grep -q ': \./test-suite\.log$' distcheck.log; then
				sed -n '/: \.\/test-suite\.log$/,$p' distcheck.log | head -200
			else
				tail -30 distcheck.log
			fi
			fail=$((fail + 1)); status=1
		fi
	else
		echo "=== plain: build failed"; fail=$((fail + 1)); status=1
	fi
	rm -f "$PMU_TEST_TIMES"
	echo "$pass $fail $skip $status" > counts
}

autoreconf -fi >/dev/null 2>&1 || { echo "autoreconf failed"; echo "0 passed, 1 failed"; exit 1; }
PLAIN=$(mktemp -d "${TMPDIR:-/tmp}/pmu_exporter-plain.XXXXXX") || exit 1
# (A background job ignores the terminal's SIGINT: on the way out, what
# is left of the plain side is ended, its processes by PID, the children
# first.)
kill_tree() { local c; for c in $(pgrep -P "$1"); do kill_tree "$c"; done; kill "$1" 2>/dev/null; }
trap 'rm -f "$PMU_TEST_TIMES"; [ -n "${PMU_TEST_CACHE:-}" ] && rm -rf "$PMU_TEST_CACHE"; [ -n "${plain_pid:-}" ] && kill_tree "$plain_pid"; rm -rf "$PLAIN"' EXIT
[ -f Makefile ] && make -s distclean >/dev/null 2>&1
cp -a . "$PLAIN/src" || { echo "cannot copy the tree to $PLAIN"; echo "0 passed, 1 failed"; exit 1; }
echo "=== plain: the packages and distcheck in $PLAIN/src, beside the sanitizer passes (its words at the end)"
( plain_passes "$PLAIN/src" ) > "$PLAIN/out" 2>&1 &
plain_pid=$!
san="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g -O1"
# The workloads whose context switches and CPU time the tests compare with
# the daemon's counts are built without the sanitizers, here as under
# ThreadSanitizer below: LeakSanitizer's check at exit stops the process's
# world from a thread of its own, after the workload has printed its own
# figures, in the cgroup it counts in (15 context switches more for
# bench/pingpong on an idle machine, 72 in a CI run beside a soak: past
# bpf.test's 0.1%).
prebuild='tests/lib/helpers/spin bench/pingpong CFLAGS=-O1 LDFLAGS=' \
PMU_SANITIZED=1 ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
	run_suite sanitizers "VALGRIND_TESTS= VM_TESTS= RECIPE_TESTS=" CFLAGS="$san" LDFLAGS="-fsanitize=address,undefined"
# ThreadSanitizer sees every thread of our code; the libraries it does not
# instrument (libmicrohttpd, GnuTLS, libyaml, libbpf) synchronise through
# pthread calls, which it intercepts.  A report goes to a file that fails
# the test (tests/lib/lib.sh); timing_logs= keeps make from running the tests
# that TSAN_TESTS only waits for.  The workloads whose CPU time and context
# switches the tests compare with the daemon's counts are built without
# it: its runtime's own work (a thread, shadow memory) would be counted.
prebuild='tests/lib/helpers/spin bench/pingpong CFLAGS=-O1 LDFLAGS=' \
PMU_SANITIZED=1 TSAN_OPTIONS=halt_on_error=0:second_deadlock_stack=1 \
	run_suite tsan 'TESTS=$(TSAN_TESTS) VALGRIND_TESTS= VM_TESTS= timing_logs=' \
	CFLAGS="-fsanitize=thread -fno-omit-frame-pointer -g -O1" LDFLAGS=-fsanitize=thread
wait "$plain_pid"
plain_pid=
cat "$PLAIN/out"
if read -r p f s st < "$PLAIN/src/counts" 2>/dev/null; then
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
	[ "$st" = 0 ] || status=1
else
	echo "=== plain: the pass ended without its counts"; fail=$((fail + 1)); status=1
fi
for f in test-suite-package.log distcheck.log; do
	[ -f "$PLAIN/src/$f" ] && cp "$PLAIN/src/$f" .
done
echo "=== the suite: $SECONDS s in all (what was missing installed first)"
echo "$pass passed, $fail failed, $skip skipped"
exit $status
