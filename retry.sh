# retry.sh - every fetch from the network, tried again when it fails.
# Sourced by deps.sh, .ci/run, tests/lib/lib.sh, tests/lib/cache.sh,
# tests/vm/rig.sh and packaging/image.sh: apt-get update, install and
# download, and mmdebstrap, which all reach Debian's archive.
#
# A mirror that drops one connection fails a whole apt-get or mmdebstrap
# run ("E: apt download failed"), and with it a test in a 25-minute
# suite, while the same command a minute later works.  So each fetch runs
# under pmu_retry: up to PMU_RETRY_TRIES tries (default 3), waiting
# PMU_RETRY_WAIT seconds (default 5) after the first failure and three
# times as long after each next one (5 s, then 15 s): time for a mirror
# or a resolver to come back, yet a lasting outage fails within a minute.
# A failure cannot be told transient from its exit status (apt exits 100
# for a dropped connection and for a package that does not exist), so
# every failure is tried again, and a lasting one costs the waits.
#
# Every failed try is said on stderr, with its number, its exit status
# and what it was fetching; after the last, what could not be fetched.
# The last try's exit status is returned, so callers keep their own
# failure messages and exit codes.  pmu_retry runs the same command
# again and knows nothing of what it writes: a command that leaves
# something half made when it fails (mmdebstrap's target) is a function
# that removes it before it starts.
#
# shellcheck shell=bash

# pmu_retry WHAT -- COMMAND [ARG...]: run COMMAND (a program or a shell
# function) until it succeeds, PMU_RETRY_TRIES times at the most; WHAT
# names what it fetches.  Returns 0 once it succeeds, else the exit
# status of its last try; 2, running nothing, when called wrongly.
pmu_retry() {
	local what tries wait try=1 rc
	if [ $# -lt 3 ] || [ "$2" != -- ]; then
		echo "pmu_retry: usage: pmu_retry WHAT -- COMMAND [ARG...]" >&2
		return 2
	fi
	what=$1
	shift 2
	tries=${PMU_RETRY_TRIES:-3}
	wait=${PMU_RETRY_WAIT:-5}
	case "$tries" in
	''|*[!0-9]*|0) echo "pmu_retry: PMU_RETRY_TRIES=$tries is not a positive whole number: 3 tries" >&2
		tries=3 ;;
	esac
	case "$wait" in
	''|*[!0-9]*) echo "pmu_retry: PMU_RETRY_WAIT=$wait is not a whole number of seconds: 5" >&2
		wait=5 ;;
	esac
	while :; do
		# In a `||` list, so that a caller's set -e does not end the
		# script at the first failed try.
		rc=0
		"$@" || rc=$?
		[ $rc = 0 ] && return 0
		if [ "$try" -ge "$tries" ]; then
			echo "pmu_retry: could not fetch $what: all $tries tries failed, the last with exit $rc" >&2
			return $rc
		fi
		echo "pmu_retry: fetching $what: try $try of $tries failed with exit $rc; trying again in $wait s" >&2
		sleep "$wait"
		try=$((try + 1))
		wait=$((wait * 3))
	done
}

# pmu_apt_download DIR PACKAGE: PACKAGE's .deb from the archive into DIR
# (`apt-get download`, retried), never installed; apt's output as it
# comes.  As root, apt downloads as the unprivileged _apt where _apt can
# write and warns where it cannot (a test's private directory): DIR is
# the caller's own, so apt is told to download as root and not warn.
pmu_apt_download() {
	pmu_retry "$2 (apt-get download)" -- pmu_apt_download_once "$1" "$2"
}
pmu_apt_download_once() {
	(cd "$1" && apt-get download -q -o APT::Sandbox::User=root "$2")
}
