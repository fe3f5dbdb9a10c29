#!/bin/bash
# soak.sh - a long load on the daemon: does anything leak, grow or go
# wrong when it runs for long?
#
#   bench/soak.sh [-l churn|paced] [-b asan|plain] [-q MB] MINUTES
#                 (as root, from a git work tree; MINUTES defaults to 30)
#
# -b asan (the default) builds the daemon with ASan and UBSan (the flags of
# check.sh's first pass) from the tracked files of this work tree, as they
# are now, in $SOAK_BUILD (default $TMPDIR/pmu_soak_build); PMU_EXPORTER=PATH
# runs an ASan build of your own instead.  -q MB is ASan's
# quarantine_size_mb (default 32; ASan's own default is 256).  -b plain
# runs $PMU_EXPORTER (default: this tree's daemon/pmu_exporter, built by
# make) as it is.
#
# -l churn (the default): the load of tests/integration/churn.test:
#   interval 10 ms, a full cgroup rescan every second, two watched
#   patterns (perf and bpf mode) under a parent cgroup made here;
#   rounds of 30 cgroups created, counted for two collections, removed;
#   one cgroup at a time created and removed without a pause;
#   SIGHUP reloads alternating bad (two kinds) and good, each waited for;
#   two clients scraping without a pause.
# At the end of every minute the load stops at the end of its round,
# the cgroups are gone, and the daemon's RSS and fd count are sampled:
# one row of the table.
#
# -l paced: the load at a fixed rate, as issue 25 describes it:
#   interval 100 ms, a full rescan every 5 s; every half second the 100
#   cgroups of the last tick removed and 100 new ones (50 watched in perf
#   mode, 50 in mode: bpf, fresh names) created; a SIGHUP every second,
#   in a cycle of four (a good config with one more event, a bad one, the
#   first good one, the other bad one), not waited for; one client
#   scraping every half second.
# Every 10 s, without stopping the load, the daemon's VmRSS, RssAnon,
# RssFile, fds, threads and VmHWM (the peak RSS: the samples come just
# after a SIGHUP, before the reload it starts allocates), and the
# machine's 1-minute load average, go to a CSV ($TMPDIR/pmu_soak.<time>.csv); at the end the slope of each
# after the warm-up, the first third of the run, is fitted by least
# squares over the last two thirds' samples, in kB (or fds) per minute.
#
# The verdict (exit 0 when all hold, else 1):
#   - no ASan/UBSan report, and a clean exit after SIGTERM (no leak);
#   - no *_total series ever decreased between two scrapes of one client;
#   - with the cgroups gone, the fd count equals the one before the load
#     (churn: at the end of every minute; paced: at the end);
#   - RSS flat at the end: the last sample within 2% + 1 MB of the middle
#     one's (runs of 4 minutes or more; with ASan the first minutes fill
#     its quarantine).
# The output is also kept in $TMPDIR/pmu_soak.<time>.log, and an ASan
# report in $TMPDIR/pmu_soak.<time>.asan.  Only the PIDs started here are
# killed, only the cgroups made here removed; the server binds 127.0.0.1.
set -u
user_bin=${PMU_EXPORTER:-}
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
# The paced load's cgroups of the last tick, if it was stopped mid-way.
trap '[ -z "${W:-}" ] || rmdir "$W"/*/ 2>/dev/null; bench_cleanup' EXIT
trap 'exit 130' INT TERM HUP

LOAD=churn BUILD=asan QUARANTINE=32
while getopts l:b:q: o; do
	case $o in
	l) LOAD=$OPTARG ;;
	b) BUILD=$OPTARG ;;
	q) QUARANTINE=$OPTARG ;;
	*) bench_die "usage: $0 [-l churn|paced] [-b asan|plain] [-q MB] MINUTES" ;;
	esac
done
shift $((OPTIND - 1))
case $LOAD in churn|paced) ;; *) bench_die "-l churn or paced, not \"$LOAD\"" ;; esac
case $BUILD in asan|plain) ;; *) bench_die "-b asan or plain, not \"$BUILD\"" ;; esac
case $QUARANTINE in ''|*[!0-9]*) bench_die "-q takes megabytes, not \"$QUARANTINE\"" ;; esac
MINUTES=${1:-30}
PER=30
case $MINUTES in ''|*[!0-9]*|0) bench_die "MINUTES must be a whole number of minutes, not \"$MINUTES\"" ;; esac
STAMP=$(date -u +%Y%m%dT%H%M%SZ)
LOG=${TMPDIR:-/tmp}/pmu_soak.$STAMP.log
KEEP_ASAN=${TMPDIR:-/tmp}/pmu_soak.$STAMP.asan
CSV=${TMPDIR:-/tmp}/pmu_soak.$STAMP.csv
exec > >(tee "$LOG") 2>&1

[ "$(id -u)" = 0 ] || bench_die "must run as root (cgroups, perf, BPF)"
for t in curl awk tar git; do
	command -v $t >/dev/null || bench_die "$t not found"
done
CGROOT=$(bench_cgroot)
[ -n "$CGROOT" ] || bench_die "no cgroup hierarchy for perf in mountinfo"

# --- the ASan build ----------------------------------------------------
if [ "$BUILD" = plain ]; then
	[ -x "$PMU_EXPORTER" ] || bench_die "$PMU_EXPORTER is not built (make)"
	grep -q __asan_init "$PMU_EXPORTER" && bench_die "$PMU_EXPORTER is an ASan build: use -b asan"
else
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
fi
echo "daemon: $PMU_EXPORTER ($("$PMU_EXPORTER" --version 2>&1 | head -1)), tree: git $(git -C "$top_srcdir" rev-parse --short HEAD 2>/dev/null)$(git -C "$top_srcdir" diff --quiet HEAD 2>/dev/null || echo ' plus uncommitted changes')"

# --- the daemon --------------------------------------------------------
CGNAME=pmu_soak_$$
bench_mkcg "$CGROOT/$CGNAME"
bench_mkcg "$CGROOT/$CGNAME/w"
W=$CGROOT/$CGNAME/w N=/$CGNAME/w
T=$BENCH_TMP
if [ "$LOAD" = churn ]; then
	INTERVAL=10ms RESCAN=1s
else
	INTERVAL=100ms RESCAN=5s
fi
cat > "$T/good.yaml" <<YAML
interval: $INTERVAL
cgroup_rescan_interval: $RESCAN
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
sed 's/\[task-clock, context-switches\]/[task-clock, context-switches, cpu-migrations]/' \
    "$T/good.yaml" > "$T/good2.yaml"
cp "$T/good.yaml" "$T/c.yaml"
PORT=$(bench_free_port)
URL=http://127.0.0.1:$PORT/metrics
# A smaller quarantine than ASan's 256 MB, so that RSS settles within
# minutes; a use after free is still caught long after the free.
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:quarantine_size_mb=$QUARANTINE:log_path=$T/asan \
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

# --- the load (as in tests/integration/churn.test) ---------------------------------
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
# mode: bpf's program and maps are loaded at the first cgroup it matches
# and stay (docs/bpf.md, "Loaded when needed"): the fds to come back to are with them.
mkdir "$W/p0" "$W/b0" || bench_die "mkdir $W/p0 $W/b0"
two_more; two_more
rmdir "$W/p0" "$W/b0" || bench_die "rmdir $W/p0 $W/b0"
settle
fd0=$(fds) rss0=$(bench_rss_kb "$PID")
t0=$(date +%s)
# --- the paced load (-l paced) ------------------------------------------
# One client, a scrape every half second, each against the one before.
paced_scraper() {
	local d=$T/ps
	mkdir -p "$d"
	while [ ! -e "$T/stop" ]; do
		if curl -sf "$URL" > "$d/raw"; then
			echo 1 >> "$T/scrapes"
			grep '_total[{ ]' "$d/raw" > "$d/cur"
			[ -f "$d/prev" ] && awk 'FNR == NR { k = $0; sub(/ [^ ]*$/, "", k); last[k] = $NF + 0; next }
			    { k = $0; sub(/ [^ ]*$/, "", k)
			      if ((k in last) && $NF + 0 < last[k]) print k " went from " last[k] " to " $NF }' \
			    "$d/prev" "$d/cur" >> "$T/decreases"
			mv "$d/cur" "$d/prev"
		else
			echo "scrape failed" >> "$T/errors"
		fi
		sleep 0.5
	done
}
# Microseconds since the epoch.
now_us() { local t=${EPOCHREALTIME/./}; echo "${t#0}"; }
# One CSV row: seconds since the start, then what /proc says of the daemon.
sample() {
	local t=$1
	awk -v t="$t" -v fds="$(fds)" -v b="$2" -v r="$(reloads)" -v la="$(cut -d' ' -f1 /proc/loadavg)" '
		$1 == "VmRSS:" { rss = $2 } $1 == "RssAnon:" { anon = $2 }
		$1 == "RssFile:" { file = $2 } $1 == "Threads:" { th = $2 }
		$1 == "VmHWM:" { hwm = $2 }
		END { print t "," rss "," anon "," file "," fds "," th "," b "," r "," la "," hwm }' \
	    "/proc/$PID/status" >> "$CSV"
}
paced_run() {
	local tick=0 start_us next_us d us end_us i hup=0 spid prev=() cur=()
	echo "t_s,rss_kb,rss_anon_kb,rss_file_kb,fds,threads,batches,reloads,loadavg1,vm_hwm_kb" > "$CSV"
	rm -f "$T/stop"
	paced_scraper & spid=$!
	BENCH_PIDS="$BENCH_PIDS $spid"
	start_us=$(now_us)
	end_us=$((start_us + MINUTES * 60000000))
	sample 0 0
	while :; do
		tick=$((tick + 1))
		next_us=$((start_us + tick * 500000))
		[ "$next_us" -le "$end_us" ] || break
		# The last tick's cgroups go, 50 + 50 new ones come.
		[ ${#prev[@]} = 0 ] || rmdir "${prev[@]}" || echo "tick $tick: rmdir failed" >> "$T/errors"
		cur=()
		for i in $(seq 1 50); do cur+=("$W/p${tick}_$i" "$W/b${tick}_$i"); done
		mkdir "${cur[@]}" || echo "tick $tick: mkdir failed" >> "$T/errors"
		prev=("${cur[@]}")
		if [ $((tick % 2)) = 0 ]; then
			hup=$((hup + 1))
			case $((hup % 4)) in
			1) cp "$T/good2.yaml" "$T/c.yaml" ;;
			2) cp "$T/bad1.yaml" "$T/c.yaml" ;;
			3) cp "$T/good.yaml" "$T/c.yaml" ;;
			0) cp "$T/bad2.yaml" "$T/c.yaml" ;;
			esac
			kill -HUP "$PID" 2>/dev/null || break
		fi
		[ $((tick % 20)) = 0 ] && sample $((tick / 2)) "$tick"
		[ -z "$(reports)" ] || break
		us=$(now_us)
		d=$((next_us - us))
		[ "$d" -le 0 ] || sleep "$(printf '%d.%06d' $((d / 1000000)) $((d % 1000000)))"
	done
	touch "$T/stop"
	wait "$spid"
	BENCH_PIDS=" $PID"
	[ ${#prev[@]} = 0 ] || rmdir "${prev[@]}" || echo "the last tick's rmdir failed" >> "$T/errors"
	echo "load: $tick ticks of 100 cgroups, $hup SIGHUPs, $(sum "$T/scrapes") scrapes in $(( ($(now_us) - start_us) / 1000000 )) s"
}
# Least squares of column $2 on t (minutes) over the samples with t >= $1
# seconds: "slope_kB_per_min n first_t last_t".
fit() {
	awk -F, -v from="$1" -v col="$2" 'NR > 1 && $1 >= from && $col != "" {
		x = $1 / 60; y = $col; n++; sx += x; sy += y; sxx += x * x; sxy += x * y
		if (n == 1) a = $1; b = $1
	} END {
		if (n < 3) { print "- " n; exit }
		printf "%.2f %d %d %d\n", (n * sxy - sx * sy) / (n * sxx - sx * sx), n, a, b
	}' "$CSV"
}
at() { awk -F, -v t="$1" -v col="$2" 'NR > 1 && $1 <= t { v = $col } END { print v }' "$CSV"; }

# --- the run -----------------------------------------------------------
two_more || bench_die "the daemon does not collect"
# mode: bpf's program and maps are loaded at the first cgroup it matches
# and stay (docs/bpf.md, "Loaded when needed"): the fds to come back to are with them.
mkdir "$W/p0" "$W/b0" || bench_die "mkdir $W/p0 $W/b0"
two_more; two_more
rmdir "$W/p0" "$W/b0" || bench_die "rmdir $W/p0 $W/b0"
settle
fd0=$(fds) rss0=$(bench_rss_kb "$PID")
th0=$(awk '$1 == "Threads:" { print $2 }' "/proc/$PID/status")
t0=$(date +%s)
echo "soak: -l $LOAD -b $BUILD$([ "$BUILD" = asan ] && echo " -q $QUARANTINE"), $MINUTES min, started $(date -u +%FT%TZ), daemon PID $PID, port $PORT, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "before the load: RSS $rss0 kB, $fd0 fds, $th0 threads"
if [ "$LOAD" = churn ]; then
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
else
	paced_run
	m=$MINUTES
	if kill -0 "$PID" 2>/dev/null; then
		bpf=$(curl -sf "$URL" | awk '/^pmu_exporter_bpf_active /{print $2}')
		[ "$bpf" = 1 ] || echo "pmu_exporter_bpf_active is \"$bpf\", not 1: mode: bpf was not exercised" >> "$T/errors"
		settle
		fd[1]=$(fds) rssend=$(bench_rss_kb "$PID")
		thend=$(awk '$1 == "Threads:" { print $2 }' "/proc/$PID/status")
		echo "after the load, the cgroups gone: RSS $rssend kB, ${fd[1]} fds, $thend threads; load average $(cut -d' ' -f1-3 /proc/loadavg)"
		echo "peak RSS (VmHWM): $(awk '$1 == "VmHWM:" { print $2 }' "/proc/$PID/status") kB"
	else
		fd[1]=died
	fi
	last=$(tail -1 "$CSV" | cut -d, -f1)
	warm=$((last / 3))
	echo "samples: $CSV ($(($(wc -l < "$CSV") - 1)) rows, one every 10 s)"
	echo "warm-up: the first $warm s; RSS then $(at "$warm" 2) kB (RssAnon $(at "$warm" 3)), at $last s $(at "$last" 2) kB (RssAnon $(at "$last" 3))"
	for c in 2:RSS 3:RssAnon 4:RssFile 5:fds 6:threads; do
		# shellcheck disable=SC2046 # the fields of fit's line
		set -- $(fit "$warm" "${c%%:*}")
		echo "slope of ${c#*:} from $warm s to $last s: $1 per min (least squares over $2 samples)"
	done
	rss[m]=$(at "$last" 2) mid=$((last / 2))
	rss[mid]=$(at "$mid" 2)
fi
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
	[ "${fd[i]}" = "$fd0" ] || { echo "FAIL: $([ "$LOAD" = paced ] && echo "the end" || echo "minute $i"): ${fd[i]} fds, not $fd0"; fdbad=1; bad=1; }
done
[ "$fdbad" = 1 ] || echo "ok: $fd0 fds before the load and at the end$([ "$LOAD" = paced ] || echo " of every minute")"
unit=s
[ "$LOAD" = paced ] || mid=$(( (m + 1) / 2 )) unit=minute
if [ "$m" -ge 4 ] && [ "${rss[m]}" != died ]; then
	if [ "${rss[m]}" -le $(( rss[mid] + rss[mid] / 50 + 1024 )) ]; then
		echo "ok: RSS flat at the end: ${rss[mid]} kB at $unit $mid, ${rss[m]} kB at the end"
	else
		echo "FAIL: RSS grew from ${rss[mid]} kB at $unit $mid to ${rss[m]} kB at the end"; bad=1
	fi
else
	echo "RSS not judged: $m minute(s) of load; it takes 4 or more"
fi
echo "RESULT soak minutes=$m of=$MINUTES verdict=$([ $bad = 0 ] && echo pass || echo fail) log=$LOG"
exit $bad
