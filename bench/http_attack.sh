#!/bin/bash
# http_attack.sh - can another client slow a scrape down?  A legitimate
# scraper (right password, cached after its first scrape, from 127.0.0.1)
# is timed alone and then under each attack, from other loopback
# addresses:
#
#   wrong16, wrong64  16 or 64 keep-alive connections from 127.0.0.2 that
#                     send a wrong password as fast as they are answered
#   slowloris         200 connections from 127.0.0.2-127.0.0.5 that send
#                     one header byte a second and never finish
#   wrong199          (issue 50) 398 connections from 199 addresses
#                     (127.0.0.2-200) sending wrong passwords, the daemon
#                     just restarted and the scraper's password not yet
#                     checked: its first scrape pays bcrypt among theirs
#   idle600           (issue 50) 600 connections from 10 addresses
#                     (127.0.0.2-11) trickling headers, against the 512
#                     connection slots
#   unread            (issue 50; fake_serve, answers larger than a socket
#                     buffer) 10 new connections from a new address every
#                     0.5 s, each sending a scrape and never reading
#   render            (another server, tests/lib/helpers/fake_serve) a client
#                     scraping a 100,000-series snapshot at /big, each new
#                     snapshot's first scrape rendering it, while the
#                     scraper reads the small one at /metrics
#
# For each it prints the scraper's median and p99, the daemon's CPU
# seconds during the window and, from /metrics, the password checks it
# made (pmu_exporter_http_auth_failures_total by reason, when the build
# has it).  Then throughput: wrk on /metrics against nginx serving the
# same bytes from a file, plain and gzip, interleaved, on the same run.
#
# Run as root from a built tree (make && make bench tests/lib/helpers/fake_serve):
#   bench/http_attack.sh [latency|throughput|all]
# PROBES (400) scrapes INTERVAL_MS (20) apart per phase; ROUNDS (8) wrk
# pairs of WRK_SECS (3) seconds, nginx and pmu_exporter first in turn, and
# the median of the pairs' ratios (the machine may be shared: a pair sees
# the same neighbours); before each pair it waits up to QUIET_WAIT (20) s
# for the CPUs to be at most QUIET_PCT (25) % busy, and prints how busy.
# PIN=1 gives each server the last CPU alone (nginx one worker) and wrk
# the others, so requests/s measures a server on one core rather than
# how it and wrk share the CPUs; PROFILE=1 (with PIN=1) samples that CPU
# with perf and prints how much of it was the server's code, the kernel's
# and idle.  PMU_EXPORTER and FAKE_SERVE name other
# binaries (an older build, to compare).  Every server binds 127.0.0.1;
# every load ends by itself.
set -u
cd "$(dirname "$0")/.." || exit 1
. bench/lib.sh
trap bench_cleanup EXIT
WHAT=${1:-all}
PROBES=${PROBES:-400}
INTERVAL_MS=${INTERVAL_MS:-20}
ROUNDS=${ROUNDS:-8}
WRK_SECS=${WRK_SECS:-3}
PIN=${PIN:-0}
PROFILE=${PROFILE:-0}
QUIET_PCT=${QUIET_PCT:-25}
QUIET_WAIT=${QUIET_WAIT:-20}
FAKE_SERVE=${FAKE_SERVE:-$top_builddir/tests/lib/helpers/fake_serve}
LOAD=$BENCH_BIN/http_load
bench_require "curl wrk htpasswd nginx base64" "pmu_exporter http_load"
[ -x "$FAKE_SERVE" ] || bench_die "$FAKE_SERVE is not built (make tests/lib/helpers/fake_serve)"
T=$BENCH_TMP
# An attack lasts the probe's time at its interval and 4 s more; the probe
# stops 2 s before it ends (a server that makes each scrape wait seconds
# would otherwise be timed after the attack).
ATTACK_S=$(( PROBES * INTERVAL_MS / 1000 + 4 ))
PROBE_MAX=$(( ATTACK_S - 2 ))

echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) CPUs, $(uname -r), $("$PMU_EXPORTER" --version)"
echo "# CPUs busy before the run: $(bench_busy_pct 2)% (the machine may be shared)"

# Four software groups on every CPU: about the body the issue measured.
cat > "$T/c.yaml" <<YAML
groups:
  - name: g1
    events: [task-clock]
  - name: g2
    events: [context-switches]
  - name: g3
    events: [page-faults]
  - name: g4
    events: [cpu-migrations]
cpus:
  - cpus: all
    groups: [g1, g2, g3, g4]
YAML

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
tck=$(getconf CLK_TCK)

# auth_counts URL AUTH: "password=N user=N throttled=N" or "n/a".
auth_counts() {
	curl -s -H "Authorization: Basic $2" "$1" | awk '
		/^pmu_exporter_http_auth_failures_total\{/ {
			r = $1; sub(/.*reason="/, "", r); sub(/".*/, "", r)
			out = out r "=" $2 " "; n++ }
		END { print n ? out : "n/a" }'
}

# phase LABEL PID HOST PORT PATH AUTH [ATTACK...]: the attack (if any) in
# the background, a second to ramp up, then the probe, timed.
phase() {
	local label=$1 pid=$2 host=$3 port=$4 path=$5 auth=$6 c0 c1 apid=
	shift 6
	if [ $# -gt 0 ]; then
		bench_spawn "$@" > "$T/attack.out" 2>&1
		apid=$BENCH_LAST
		sleep 1
	fi
	c0=$(cpu_ticks "$pid")
	"$LOAD" probe "$host" "$port" "$path" "$PROBES" "$INTERVAL_MS" "$PROBE_MAX" "$auth" > "$T/probe.out"
	c1=$(cpu_ticks "$pid")
	[ -n "$apid" ] && { wait "$apid" 2>/dev/null; bench_stop "$apid"; }
	awk -v l="$label" -v cpu="$(echo "$c0 $c1 $tck" | awk '{ printf "%.2f", ($2 - $1) / $3 }')" '
		/^probe/ { n = $3; codes = $0; sub(/.*codes /, "", codes) }
		/^latency_ms/ { printf "RESULT %-10s median_ms %8.3f p99_ms %8.3f max_ms %8.3f n %s codes %s daemon_cpu_s %s\n", l, $3, $7, $9, n, codes, cpu }' "$T/probe.out"
	[ -n "$apid" ] && sed 's/^/    attacker: /' "$T/attack.out"
	# Held connections of this attack close within the hold (1 s) and
	# the next attack comes from the same address: let them go first.
	[ -n "$apid" ] && sleep 2
	return 0
}

# The slow readers: every 0.5 s, 10 new connections from the next address
# (127.0.0.2 up), each with a 2 KB receive buffer, send a scrape and never
# read; at the end, how many the server closed.
cat > "$T/unread.pl" <<'PERL'
use strict; use IO::Socket::INET; use Socket; use Time::HiRes qw(time sleep);
$SIG{PIPE} = 'IGNORE';
my ($port, $secs) = @ARGV;
my ($end, $a, @s) = (time + $secs, 2);
while (time < $end) {
	for (1 .. 10) {
		my $s = IO::Socket::INET->new(Proto => 'tcp') or next;
		setsockopt($s, SOL_SOCKET, SO_RCVBUF, 2048);
		bind($s, pack_sockaddr_in(0, inet_aton("127.0.0.$a"))) or next;
		connect($s, pack_sockaddr_in($port, inet_aton('127.0.0.1'))) or next;
		syswrite($s, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
		push @s, $s;
	}
	$a = $a % 250 + 2;
	sleep 0.5;
}
my $closed = grep { my $b; !defined(recv($_, $b, 1, MSG_PEEK | MSG_DONTWAIT)) && $!{ECONNRESET} or (defined $b && $b eq '' && 0) } @s;
printf "unread: %d opened, %d reset by the server\n", scalar @s, $closed;
PERL

latency() {
	local port fport auth bad hash pid fpid
	hash=$(htpasswd -nbBC 10 prom 'right pass' | cut -d: -f2-)
	printf 'basic_auth_users:\n  prom: %s\n' "$hash" > "$T/web.yml"
	auth=$(printf 'prom:right pass' | base64)
	bad=$(printf 'prom:wrong pass' | base64)
	# Every path wants the password: up when it answers at all (401),
	# ready when /-/ready answers the password.
	bench_serve port "$T/serve.log" any:/-/ready 10 "$PMU_EXPORTER" --config.file="$T/c.yaml" --web.config.file="$T/web.yml" \
		--web.listen-address="127.0.0.1:@PORT@" --log.level=warn
	pid=$BENCH_LAST
	for _ in $(seq 1 50); do
		[ "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Basic $auth" "http://127.0.0.1:$port/-/ready")" = 200 ] && break
		sleep 0.1
	done
	sleep 1.5
	echo
	echo "## scrape latency under attack: pmu_exporter, basic auth (bcrypt cost 10), $(curl -s -H "Authorization: Basic $auth" "http://127.0.0.1:$port/metrics" | wc -c) bytes"
	echo "\$ $LOAD probe 127.0.0.1 $port /metrics $PROBES $INTERVAL_MS $PROBE_MAX AUTH    (each phase)"
	"$LOAD" probe 127.0.0.1 "$port" /metrics 5 0 10 "$auth" > /dev/null	# cache the password
	phase alone "$pid" 127.0.0.1 "$port" /metrics "$auth"
	echo "    auth failures so far: $(auth_counts "http://127.0.0.1:$port/metrics" "$auth")"
	phase wrong16 "$pid" 127.0.0.1 "$port" /metrics "$auth" \
		"$LOAD" flood 127.0.0.1 "$port" /metrics 16 "$ATTACK_S" 127.0.0.2 "$bad"
	echo "    auth failures so far: $(auth_counts "http://127.0.0.1:$port/metrics" "$auth")"
	phase wrong64 "$pid" 127.0.0.1 "$port" /metrics "$auth" \
		"$LOAD" flood 127.0.0.1 "$port" /metrics 64 "$ATTACK_S" 127.0.0.2 "$bad"
	echo "    auth failures so far: $(auth_counts "http://127.0.0.1:$port/metrics" "$auth")"
	phase slowloris "$pid" 127.0.0.1 "$port" /metrics "$auth" \
		"$LOAD" slowloris 127.0.0.1 "$port" 200 "$ATTACK_S" 127.0.0.2 4
	phase idle600 "$pid" 127.0.0.1 "$port" /metrics "$auth" \
		"$LOAD" slowloris 127.0.0.1 "$port" 600 "$ATTACK_S" 127.0.0.2 10
	bench_stop "$pid"

	# Restarted: nothing cached, the flood already on when the scraper
	# comes (its first scrape a bcrypt check of its own).
	bench_serve port "$T/serve.log" any:/-/healthy 10 "$PMU_EXPORTER" --config.file="$T/c.yaml" --web.config.file="$T/web.yml" \
		--web.listen-address="127.0.0.1:@PORT@" --log.level=warn
	pid=$BENCH_LAST
	echo "\$ $LOAD flood 127.0.0.1 $port /metrics 398 $ATTACK_S 127.0.0.2+199 BAD    (wrong199, the daemon just started)"
	phase wrong199 "$pid" 127.0.0.1 "$port" /metrics "$auth" \
		"$LOAD" flood 127.0.0.1 "$port" /metrics 398 "$ATTACK_S" 127.0.0.2+199 "$bad"
	echo "    auth failures so far: $(auth_counts "http://127.0.0.1:$port/metrics" "$auth")"
	bench_stop "$pid"

	# The daemon's defaults: 40 slots, 10 per address, and (a build that
	# has it) a write deadline of 10 s.
	local wt=()
	"$FAKE_SERVE" 2>&1 | grep -q write-timeout && wt=(--write-timeout 10)
	bench_serve fport "$T/serve.log" /-/ready 60 "$FAKE_SERVE" --per-ip 10 "${wt[@]}" "127.0.0.1:@PORT@" 50000 40
	fpid=$BENCH_LAST
	echo
	echo "## slow readers: fake_serve, /metrics $(curl -s "http://127.0.0.1:$fport/metrics" | wc -c) bytes, 40 scrape slots"
	echo "\$ $FAKE_SERVE --per-ip 10 ${wt[*]} 127.0.0.1:$fport 50000 40"
	echo "\$ perl $T/unread.pl $fport $ATTACK_S    (unread: 10 connections from 127.0.0.N every 0.5 s)"
	phase unread "$fpid" 127.0.0.1 "$fport" /metrics - perl "$T/unread.pl" "$fport" "$ATTACK_S"
	bench_stop "$fpid"

	bench_serve fport "$T/serve.log" /-/ready 60 "$FAKE_SERVE" --big 100000 "127.0.0.1:@PORT@" 12 0
	fpid=$BENCH_LAST
	echo
	echo "## scrape latency during renders: fake_serve, /metrics $(curl -s "http://127.0.0.1:$fport/metrics" | wc -c) bytes, /big $(curl -s "http://127.0.0.1:$fport/big" | wc -c) bytes (100,000 series, a new snapshot every second)"
	echo "\$ $FAKE_SERVE --big 100000 127.0.0.1:$fport 12 0"
	echo "\$ $LOAD probe 127.0.0.1 $fport /big 100000 250 ... - 'Accept: application/openmetrics-text;version=1.0.0' 'Accept-Encoding: gzip'    (render)"
	phase alone-fake "$fpid" 127.0.0.1 "$fport" /metrics -
	phase render "$fpid" 127.0.0.1 "$fport" /metrics - \
		"$LOAD" probe 127.0.0.1 "$fport" /big 100000 250 "$ATTACK_S" - \
		'Accept: application/openmetrics-text;version=1.0.0' 'Accept-Encoding: gzip'
	bench_stop "$fpid"
}

# wrk's requests/s and p99.
wrk_rps() { awk '/^Requests\/sec/ { print $2 }' "$1"; }
wrk_p99() { awk '$1 == "99%" { print $2 }' "$1"; }
wrk_reqs() { awk '/requests in/ { print $1 }' "$1"; }
# CPU ticks of nginx: its master and workers.
nginx_ticks() {
	local p t=0
	for p in $1 $(ps -o pid= --ppid "$1"); do
		t=$((t + $(cpu_ticks "$p")))
	done
	echo $t
}

# Where the server's CPU went during a PIN=1 run ($1: perf's samples of
# that CPU alone): "user% kernel% idle%" (idle: the swapper's samples).
where() {
	perf report -i "$1" --sort comm,dso --stdio -q 2>/dev/null | awk '
		{ p = $1; sub(/%/, "", p) }
		$2 == "swapper" { i += p; next }
		/\[kernel/ { k += p; next }
		{ u += p }
		END { printf "%.1f %.1f %.1f", u, k, i }'
}

# one_wrk NAME PORT TICKS_FN PID HDR...: run wrk, print "rps p99
# cpu_us_per_req", and with PROFILE=1 the server CPU's "user% kernel% idle%".
one_wrk() {
	local name=$1 port=$2 fn=$3 pid=$4 c0 c1 rec=()
	shift 4
	[ "$PROFILE" = 1 ] && rec=(perf record -q -e cpu-clock -F 2000 -C "$SERVER_CPU" -o "$T/perf.$name" --)
	c0=$($fn "$pid")
	"${rec[@]}" "${WRK_ON[@]}" wrk -t2 -c4 -d"${WRK_SECS}s" --latency "$@" "http://127.0.0.1:$port/metrics" > "$T/wrk.$name" 2>&1
	c1=$($fn "$pid")
	grep -H -e 'Non-2xx' -e 'Socket errors' "$T/wrk.$name" >&2
	echo "$(wrk_rps "$T/wrk.$name") $(wrk_p99 "$T/wrk.$name") $(echo "$c0 $c1 $tck $(wrk_reqs "$T/wrk.$name")" |
		awk '{ printf "%.1f", ($2 - $1) / $3 * 1e6 / $4 }')${rec:+ $(where "$T/perf.$name")}"
}

# Wait (at most QUIET_WAIT s) until the CPUs were at most QUIET_PCT% busy
# over a second: other work on a shared machine moves one half of a pair
# and not the other.  Prints the last reading.
quiet() {
	local b t=0
	while :; do
		b=$(bench_busy_pct 1)
		[ "$b" -le "$QUIET_PCT" ] || [ "$t" -ge "$QUIET_WAIT" ] && break
		t=$((t + 1))
	done
	echo "$b"
}

throughput() {
	local port nport pid npid i v hdr n p r busy on=() workers=auto last N P
	WRK_ON=()
	if [ "$PIN" = 1 ]; then
		last=$(( $(nproc) - 1 ))
		[ "$last" -ge 1 ] || bench_die "PIN=1 needs 2 CPUs"
		on=(taskset -c "$last") workers=1 WRK_ON=(taskset -c "0-$((last - 1))")
		SERVER_CPU=$last
	fi
	[ "$PROFILE" = 0 ] || [ "$PIN" = 1 ] || bench_die "PROFILE=1 needs PIN=1"
	bench_serve port "$T/serve.log" /-/ready 10 "${on[@]}" "$PMU_EXPORTER" --config.file="$T/c.yaml" --web.listen-address="127.0.0.1:@PORT@" \
		--log.level=warn
	pid=$BENCH_LAST
	sleep 1.5
	mkdir -p "$T/www"
	curl -s "http://127.0.0.1:$port/metrics" > "$T/www/metrics"
	curl -s -H 'Accept-Encoding: gzip' "http://127.0.0.1:$port/metrics" > "$T/www/metrics.gz"
	chmod -R a+rX "$T"
	nport=$(bench_free_port)
	cat > "$T/nginx.conf" <<NGINX
worker_processes $workers;
daemon off;
pid $T/nginx.pid;
error_log $T/nginx.err warn;
events { worker_connections 1024; }
http {
	access_log off;
	sendfile on;
	tcp_nopush on;
	keepalive_requests 1000000;
	server {
		listen 127.0.0.1:$nport;
		root $T/www;
		location = /metrics {
			default_type "text/plain; version=0.0.4; charset=utf-8";
			gzip_static on;
		}
	}
}
NGINX
	bench_spawn "${on[@]}" nginx -c "$T/nginx.conf"
	npid=$BENCH_LAST
	bench_wait_http "http://127.0.0.1:$nport/metrics" 10 || bench_die "nginx did not start: $(cat "$T/nginx.err")"
	echo
	echo "## throughput: pmu_exporter /metrics against nginx $(nginx -v 2>&1 | sed 's/.*\///') (worker_processes $workers) serving the same bytes from a file${on:+, each server on CPU $last alone and wrk on the others}"
	echo "# plain: $(wc -c < "$T/www/metrics") bytes, gzip: $(wc -c < "$T/www/metrics.gz") bytes (nginx: gzip_static, the daemon's own gzip body)"
	echo "\$ ${WRK_ON[*]}${WRK_ON:+ }wrk -t2 -c4 -d${WRK_SECS}s --latency [-H 'Accept-Encoding: gzip'] http://127.0.0.1:PORT/metrics    ($ROUNDS rounds, each server first in turn)"
	for v in plain gzip; do
		hdr=()
		[ $v = gzip ] && hdr=(-H 'Accept-Encoding: gzip')
		: > "$T/ratios"
		for i in $(seq 1 "$ROUNDS"); do
			busy=$(quiet)
			if [ $((i % 2)) = 1 ]; then
				n=$(one_wrk nginx "$nport" nginx_ticks "$npid" "${hdr[@]}")
				p=$(one_wrk pmu "$port" cpu_ticks "$pid" "${hdr[@]}")
			else
				p=$(one_wrk pmu "$port" cpu_ticks "$pid" "${hdr[@]}")
				n=$(one_wrk nginx "$nport" nginx_ticks "$npid" "${hdr[@]}")
			fi
			read -ra N <<< "$n"
			read -ra P <<< "$p"
			r=$(echo "${P[0]} ${N[0]}" | awk '{ printf "%.2f", $1 / $2 }')
			echo "$r" >> "$T/ratios"
			if [ "$PROFILE" = 1 ]; then
				echo "RESULT wrk-$v round $i nginx_rps ${N[0]} pmu_rps ${P[0]} ratio $r nginx_cpu_us_per_req ${N[2]} pmu_cpu_us_per_req ${P[2]} nginx_user% ${N[3]} nginx_kernel% ${N[4]} nginx_idle% ${N[5]} pmu_user% ${P[3]} pmu_kernel% ${P[4]} pmu_idle% ${P[5]}"
			else
				echo "RESULT wrk-$v round $i nginx_rps ${N[0]} pmu_rps ${P[0]} ratio $r nginx_p99 ${N[1]} pmu_p99 ${P[1]} nginx_cpu_us_per_req ${N[2]} pmu_cpu_us_per_req ${P[2]} busy_before $busy%"
			fi
		done
		echo "RESULT wrk-$v median ratio $(bench_median < "$T/ratios") (pmu_exporter/nginx, $ROUNDS paired rounds)"
	done
	bench_stop "$npid"
	bench_stop "$pid"
}

case "$WHAT" in
latency) latency ;;
throughput) throughput ;;
all) latency; throughput ;;
*) bench_die "usage: $0 [latency|throughput|all]" ;;
esac
