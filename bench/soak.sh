#!/bin/bash
# soak.sh - the load of tests/churn.test for MINUTES on an ASan build:
# does anything leak, grow or go wrong when the daemon runs it for long?
#
#   bench/soak.sh [MINUTES]     (as root, from a git work tree; default 30)
#
# Builds the daemon with ASan and UBSan (the flags of check.sh's first
# pass) from the tracked files of this work tree, as they are now, in
# $SOAK_BUILD (default $TMPDIR/pmu_soak_build); PMU_EXPORTER=PATH runs an
# ASan build of your own instead.  Then, for MINUTES minutes:
#   interval 10 ms, a full cgroup rescan every second, two watched
#   patterns (perf and bpf mode) under a parent cgroup made here;
#   rounds of 30 cgroups created, counted for two collections, removed;
#   one cgroup at a time created and removed without a pause;
#   SIGHUP reloads alternating bad (two kinds) and good, each waited for;
#   two clients scraping without a pause.
# At the end of every minute the load stops at the end of its round,
# the cgroups are gone, and the daemon's RSS and fd count are sampled:
# one row of the table.  The verdict (exit 0 when all hold, else 1):
#   - no ASan/UBSan report, and a clean exit after SIGTERM (no leak);
#   - no *_total series ever decreased between two scrapes of one client;
#   - the fd count of every minute equals the one before the load;
#   - RSS flat at the end: the last minute's within 2% + 1 MB of the
#     middle minute's (runs of 4 minutes or more; the first minutes fill
#     ASan's quarantine, which this script caps at 32 MB).
# The output is also kept in $TMPDIR/pmu_soak.<time>.log, and an ASan
# report in $TMPDIR/pmu_soak.<time>.asan.  Only the PIDs started here are
# killed, only the cgroups made here removed; the server binds 127.0.0.1.
set -u
user_bin=${PMU_EXPORTER:-}
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
trap bench_cleanup EXIT
trap 'exit 130' INT TERM HUP

MINUTES=${1:-30}
PER=30
case $MINUTES in ''|*[!0-9]*|0) bench_die "MINUTES must be a whole number of minutes, not \"$MINUTES\"" ;; esac
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
LOG=${TMPDIR:-/tmp}/pmu_soak.$STAMP.log
KEEP_ASAN=${TMPDIR:-/tmp}/pmu_soak.$STAMP.asan
exec > >(tee "$LOG") 2>&1

[ "$(id -u)" = 0 ] || bench_die "must run as root (cgroups, perf, BPF)"
for t in curl awk tar git; do
	command -v $t >/dev/null || bench_die "$t not found"
done
CGROOT=$(bench_cgroot)
[ -n "$CGROOT" ] || bench_die "no cgroup hierarchy for perf in mountinfo"

# --- the ASan build ----------------------------------------------------
san="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g -O1"
if [ -n "$user_bin" ]; then
	PMU_EXPORTER=$user_bin
else
	git -C "$top_srcdir" rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
	    bench_die "$top_srcdir is not a git work tree: build the daemon with ASan and give PMU_EXPORTER=PATH"
	SOAK_BUILD=${SOAK_BUILD:-${TMPDIR:-/tmp}/pmu_soak_build}
	echo "building the daemon with ASan and UBSan in $SOAK_BUILD (log: $SOAK_BUILD/build.log)"
	rm -rf "$SOAK_BUILD"
	mkdir -p "$SOAK_BUILD/src" || bench_die "mkdir $SOAK_BUILD"
	(cd "$top_srcdir" && git ls-files -z | tar --null --ignore-failed-read -T - -cf -) |
	    tar -C "$SOAK_BUILD/src" -xf - || bench_die "copying the tracked files failed"
	(cd "$SOAK_BUILD/src" && autoreconf -fi && ./configure -q CFLAGS="$san" \
	    LDFLAGS="-fsanitize=address,undefined" && make -j2 daemon/pmu_exporter) \
	    > "$SOAK_BUILD/build.log" 2>&1 || { tail -20 "$SOAK_BUILD/build.log"; bench_die "the ASan build failed"; }
	PMU_EXPORTER=$SOAK_BUILD/src/daemon/pmu_exporter
fi
[ -x "$PMU_EXPORTER" ] || bench_die "$PMU_EXPORTER is not built"
grep -q __asan_init "$PMU_EXPORTER" || bench_die "$PMU_EXPORTER is not an ASan build"
echo "daemon: $PMU_EXPORTER ($("$PMU_EXPORTER" --version 2>&1 | head -1)), tree: git $(git -C "$top_srcdir" rev-parse --short HEAD 2>/dev/null)$(git -C "$top_srcdir" diff --quiet HEAD 2>/dev/null || echo ' plus uncommitted changes')"

# --- the daemon --------------------------------------------------------
CGNAME=pmu_soak_$$
bench_mkcg "$CGROOT/$CGNAME"
bench_mkcg "$CGROOT/$CGNAME/w"
W=$CGROOT/$CGNAME/w N=/$CGNAME/w
T=$BENCH_TMP
cat > "$T/good.yaml" <<YAML
interval: 10ms
cgroup_rescan_interval: 1s
groups:
  - name: sw
    events: [task-clock, context-switches]
  - name: faults
    events: [page-faults]
cpus:
  - cpus: all
    groups: [sw]
cgroups:
  - path: $N/p*
    groups: [sw, faults]
  - path: $N/b*
    groups: [sw]
    mode: bpf
YAML
sed 's/\[page-faults\]/[page-fautls]/' "$T/good.yaml" > "$T/bad1.yaml"
sed 's|path: \(.*\)/p\*$|path: \1/../p*|' "$T/good.yaml" > "$T/bad2.yaml"
cp "$T/good.yaml" "$T/c.yaml"
PORT=$(bench_free_port)
URL=http://127.0.0.1:$PORT/metrics
# A smaller quarantine than ASan's 256 MB, so that RSS settles within
# minutes; a use after free is still caught long after the free.
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:quarantine_size_mb=32:log_path=$T/asan \
UBSAN_OPTIONS=print_stacktrace=1:log_path=$T/asan \
	bench_spawn "$PMU_EXPORTER" --web.listen-address="127.0.0.1:$PORT" \
	--config.file="$T/c.yaml" > "$T/daemon.log" 2>&1
PID=$BENCH_LAST
bench_wait_http "$URL" 30 || bench_die "the daemon did not answer: $(tail -5 "$T/daemon.log")"

reports() { ls "$T"/asan.* 2>/dev/null; }
fds() { find "/proc/$PID/fd" -mindepth 1 ! -lname "$T/asan.*" 2>/dev/null | wc -l; }
collections() { curl -sf "$URL" | awk '/^pmu_exporter_collections_total /{print $2}'; }
# Wait until the collector has published 2 more collections (10 s at most).
two_more() {
	local c0 c
	c0=$(collections) || return 1
	for _ in $(seq 1 500); do
		c=$(collections) || return 1
		[ "$c" -ge $((c0 + 2)) ] && return 0
		sleep 0.02
	done
	return 1
}
sum() { cat "$@" 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'; }

# --- the load (as in tests/churn.test) ---------------------------------
# Scraper: until $T/stop; each scrape's *_total lines against the last's.
scraper() {
	local d=$T/$1 i=0
	mkdir -p "$d"
	while [ ! -e "$T/stop" ]; do
		curl -sf "$URL" > "$d/raw" || { echo "scrape failed" >> "$d/errors"; return 1; }
		i=$((i + 1))
		grep '_total[{ ]' "$d/raw" > "$d/cur"
		if [ -f "$d/prev" ]; then
			awk 'FNR == NR { k = $0; sub(/ [^ ]*$/, "", k); last[k] = $NF + 0; next }
			    { k = $0; sub(/ [^ ]*$/, "", k)
			      if ((k in last) && $NF + 0 < last[k]) print k " went from " last[k] " to " $NF }' \
			    "$d/prev" "$d/cur" >> "$T/decreases"
		fi
		mv "$d/cur" "$d/prev"
	done
	echo $i >> "$T/scrapes"
}
storm() {
	local k=0 m
	while [ ! -e "$T/stop" ]; do
		k=$((k + 1))
		m=p; [ $((k % 2)) = 0 ] || m=b
		mkdir "$W/${m}s${1}_$k" && rmdir "$W/${m}s${1}_$k" || return 1
	done
	echo $k >> "$T/stormed"
}
reloads() { grep -c -e 'msg="reloaded ' -e 'msg="reload failed' "$T/daemon.log"; }
reloader() {
	local n pairs=0 f
	n=$(reloads)
	while [ ! -e "$T/stop" ]; do
		pairs=$((pairs + 1))
		for f in "bad$((pairs % 2 + 1))" good; do
			cp "$T/$f.yaml" "$T/c.yaml"
			kill -HUP "$PID" 2>/dev/null || return 1
			n=$((n + 1))
			for _ in $(seq 1 500); do [ "$(reloads)" -ge $n ] && break; sleep 0.02; done
			if [ "$(reloads)" -lt $n ]; then
				echo "reload $n did not happen" >> "$T/errors"
				echo $((pairs - 1)) >> "$T/pairs"
				return 1
			fi
		done
	done
	echo $pairs >> "$T/pairs"
}
# One minute of load; the rounds end at $1 (seconds since the epoch).
minute() {
	local m=$1 until=$2 r=0 i p pids
	rm -f "$T/stop"
	scraper "s1_$m" & pids=$!
	scraper "s2_$m" & pids="$pids $!"
	storm "$m" & pids="$pids $!"
	reloader & pids="$pids $!"
	BENCH_PIDS="$BENCH_PIDS $pids"
	while [ "$(date +%s)" -lt "$until" ] && [ -z "$(reports)" ] && kill -0 "$PID" 2>/dev/null; do
		r=$((r + 1))
		for i in $(seq 1 $PER); do
			p=p; [ $((i % 2)) = 0 ] || p=b
			mkdir "$W/$p${m}_${r}_$i"
		done
		two_more || echo "minute $m round $r: the collector did not advance" >> "$T/errors"
		for i in $(seq 1 $PER); do
			p=p; [ $((i % 2)) = 0 ] || p=b
			rmdir "$W/$p${m}_${r}_$i"
		done
		two_more || echo "minute $m round $r: the collector did not advance" >> "$T/errors"
	done
	touch "$T/stop"
	for p in $pids; do wait "$p" || echo "minute $m: a load process failed" >> "$T/errors"; done
	BENCH_PIDS=" $PID"
	echo $((r * PER)) >> "$T/churned"
}
# The cgroups made in the minute are gone from the daemon's view.
settle() {
	local m
	for _ in $(seq 1 200); do
		m=$(curl -sf "$URL" | awk '/^pmu_exporter_cgroups_matched /{print $2}')
		[ "$m" = 0 ] && break
		sleep 0.05
	done
	two_more
	sleep 0.5
}

# --- the run -----------------------------------------------------------
two_more || bench_die "the daemon does not collect"
settle
fd0=$(fds) rss0=$(bench_rss_kb "$PID")
t0=$(date +%s)
echo "soak: $MINUTES min, started $(date -u +%FT%TZ), daemon PID $PID, port $PORT"
row() {
	printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$@"
}
echo
row minute "RSS kB" fds collections "reload pairs (bad+good)" "cgroups churned + stormed" scrapes "ASan reports"
row --- --- --- --- --- --- --- ---
row 0 "$rss0" "$fd0" "$(collections)" 0 0 0 0
for m in $(seq 1 "$MINUTES"); do
	minute "$m" $((t0 + m * 60 - 5))
	kill -0 "$PID" 2>/dev/null && settle
	if kill -0 "$PID" 2>/dev/null; then
		rss[m]=$(bench_rss_kb "$PID") fd[m]=$(fds) c=$(collections)
	else
		rss[m]=died fd[m]=- c=-
		# When: the report's time, from the start of the load.
		f=$(reports | head -1)
		[ -n "$f" ] && c="(died at $(( $(stat -c %Y "$f") - t0 )) s)"
	fi
	row "$m" "${rss[m]}" "${fd[m]}" "$c" "$(sum "$T/pairs")" \
	    "$(sum "$T/churned") + $(sum "$T/stormed")" "$(sum "$T/scrapes")" "$(reports | wc -l)"
	if ! kill -0 "$PID" 2>/dev/null || [ -n "$(reports)" ]; then break; fi
	sleep $((t0 + m * 60 - $(date +%s))) 2>/dev/null
done
echo
bad=0 rc=died
if kill -0 "$PID" 2>/dev/null; then
	kill -TERM "$PID"
	wait "$PID"
	rc=$?
fi
BENCH_PIDS=
if [ -n "$(reports)" ]; then
	cat "$T"/asan.* > "$KEEP_ASAN"
	echo "FAIL: ASan/UBSan reported (kept in $KEEP_ASAN):"
	grep '^SUMMARY: ' "$KEEP_ASAN"
	bad=1
elif [ "$rc" != 0 ]; then
	echo "FAIL: the daemon's exit status after SIGTERM: $rc"; bad=1
else
	echo "ok: no ASan, LeakSanitizer or UBSan report; exit status 0 after SIGTERM"
fi
if [ -s "$T/decreases" ]; then
	echo "FAIL: $(wc -l < "$T/decreases") decreases, the first:"; head -5 "$T/decreases"; bad=1
else
	echo "ok: no *_total series decreased in $(sum "$T/scrapes") scrapes"
fi
if [ -s "$T/errors" ]; then
	echo "FAIL: the load went wrong:"; sort "$T/errors" | uniq -c | head; bad=1
fi
fdbad=0
for i in "${!fd[@]}"; do
	[ "${fd[i]}" = "$fd0" ] || { echo "FAIL: minute $i: ${fd[i]} fds, not $fd0"; fdbad=1; bad=1; }
done
[ "$fdbad" = 1 ] || echo "ok: $fd0 fds before the load and at the end of every minute"
mid=$(( (m + 1) / 2 ))
if [ "$m" -ge 4 ] && [ "${rss[m]}" != died ]; then
	if [ "${rss[m]}" -le $(( rss[mid] + rss[mid] / 50 + 1024 )) ]; then
		echo "ok: RSS flat at the end: ${rss[mid]} kB at minute $mid, ${rss[m]} kB at minute $m"
	else
		echo "FAIL: RSS grew from ${rss[mid]} kB at minute $mid to ${rss[m]} kB at minute $m"; bad=1
	fi
else
	echo "RSS not judged: $m minute(s) of load; it takes 4 or more"
fi
echo "RESULT soak minutes=$m of=$MINUTES verdict=$([ $bad = 0 ] && echo pass || echo fail) log=$LOG"
exit $bad
