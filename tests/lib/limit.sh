#!/bin/sh
# tests/lib/limit.sh - every test's time limit.  tests/Makefile.inc runs each
# test through this (LOG_COMPILER, TEST_LOG_COMPILER, VM_LOG_COMPILER):
#
#   limit.sh [COMPILER...] TEST
#
# TEST (the last argument; run by COMPILER if one is given) runs under
# timeout(1).  Past its limit it and everything it started in its process
# group (daemons, helpers, clients) get SIGTERM, so the test's own
# clean-up runs (tests/lib/lib.sh traps TERM), then SIGKILL 30 s later, and
# the test FAILs with a line naming it and the limit, instead of holding
# up `make check` (and CI) until something outside kills it.
#
# The limits are generous, many times what a test takes on the 2-CPU
# development machine under ThreadSanitizer: a unit test runs in under a
# second (120 s), an integration test in seconds to minutes (1200 s),
# the package and image tests build a Debian package first (3600 s).
# PMU_TEST_TIMEOUT=SECONDS sets every test's limit (0: none), e.g. for a
# slower machine or to debug a test under gdb.  With PMU_TEST_TIMES=FILE
# each test's wall time is added to FILE as a line "SECONDS<TAB>TEST".
[ $# -gt 0 ] || { echo "usage: limit.sh [COMPILER...] TEST" >&2; exit 99; }
eval "t=\${$#}"
case $t in
*/package.test|*/image.test) limit=3600 ;;
*.test|*.vm) limit=1200 ;;
*) limit=120 ;;
esac
limit=${PMU_TEST_TIMEOUT:-$limit}
case $limit in
''|*[!0-9]*) echo "limit.sh: PMU_TEST_TIMEOUT=$limit is not a number of seconds" >&2; exit 99 ;;
esac
[ "$limit" = 0 ] && exec "$@"
start=$(date +%s)
timeout -k 30 "$limit" "$@"
rc=$?
# Where the suite's time goes: check.sh names the slowest tests of each
# pass from these lines (seconds, then the test).
[ -n "${PMU_TEST_TIMES:-}" ] &&
	printf '%s\t%s\n' "$(( $(date +%s) - start ))" "$t" >> "$PMU_TEST_TIMES"
case $rc in
124|137)
	# 137 is also a SIGKILL from elsewhere (the OOM killer): only past
	# the limit is it ours.
	[ $(( $(date +%s) - start )) -ge "$limit" ] || exit $rc
	echo "FAIL: $t: no result after its time limit of $limit s" \
	    "(tests/lib/limit.sh; PMU_TEST_TIMEOUT=SECONDS sets another)" >&2
	exit 1 ;;
esac
exit $rc
