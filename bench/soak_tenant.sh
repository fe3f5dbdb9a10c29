#!/bin/bash
# soak_tenant.sh - issues 32, 42 and 50's soak: tenants and network
# clients do their worst to the names, the labels, the walk, the log and
# the HTTP server at once, while the daemon is scraped every second by
# curl and by a real Prometheus, both from 127.0.0.1 with the right
# password.  Every scrape must be answered 200 and pass promtool, hold no
# series twice, count root's 5 containers and name no tenant's cgroup
# after them.
#
#   bench/soak_tenant.sh [MINUTES]     (as root; default 10)
#
# The tenants (bench/tenant.py), for MINUTES:
#   - an unprivileged user (nobody) in a cgroup subtree chowned to it, as
#     systemd delegates one: cgroups named with invalid UTF-8, 200-255
#     byte names cut inside a character, libpod-<id>.scope names; at most
#     60 at once, created and removed every 50 ms; and twins (issue 50,
#     item 4): job\xfe, job\xff and job\uFFFDfe, one text after a repair
#     that would not be one-to-one, two such triples kept throughout (made
#     first, so that they are counted) and more in the churn;
#   - the same user in a second delegated subtree (bench/tenant.py walk,
#     issue 42): 450 levels of one-letter directories, a 5 KB path and
#     1,100 libpod-t<i>.scope directories, under an entry with "**";
#   - a runtime gone bad, in a fake root given as --path.rootfs: Docker
#     containers (a cgroup each, where their hostconfig.json's
#     CgroupParent puts them) with invalid UTF-8 in their names,
#     renamed by rewriting config.v2.json; FIFOs, devices and links out
#     of the root as state files; containerd bundles not JSON, 5,000 "["
#     deep or of 300,000 empty objects; containers.json rewritten every
#     15 s with a 19.5 MB valid or broken file, 6 MB of "[{},{},...]" or
#     a small one; at most 80 containers at once;
#   - crowding (issue 50, items 6 and 7): under an entry
#     /<parent>/<p>-crowd.slice/**/*.scope with max_cgroups 10000, the
#     same user makes 10,050 libpod-t<i>.scope directories in its
#     user.slice/user@65534.service, while a second tenant (uid 65533, no
#     account) has 2 containers in its own user@65533.service and root 5
#     Docker containers (docker-<id>.scope, systemd driver, their records
#     in the fake root) in the sibling <p>-crowd-system.slice: root's 5
#     and the second tenant's 2 must be counted in every scrape, and the
#     first tenant's directories hold at most its share of inotify
#     watches (4 x delegated_max_cgroups + 64 = 128);
#   - a log flood (issue 50, item 8): the same user in a fourth subtree
#     makes libpod-<id>.scope cgroups named after root's 5 containers,
#     one every 0.25 s, each removed 1 s later (240 a minute): the lines
#     that say so must stay within the daemon's rate limit (3 a minute at
#     warn and one line counting the rest, names/names_resolve.c's
#     MISPLACED_WARNS, each start a new minute), and every other line
#     about a tenant's subtree within 2 a collection pass (the
#     counted/gone line and the share's).
# The network clients, each from loopback addresses of their own:
#   - bench/http_tenant.py (issue 42): from 127.0.0.2 connections that
#     pipeline 100 scrapes and read 1 KB every 5 s, from 127.0.0.3
#     connections that send a 100 MB body a byte a second;
#   - bench/http_starve.py (issue 50, items 1-3): slow readers, 10
#     connections from each of 127.0.0.4-7 that send a scrape with a 2 KB
#     receive buffer and a 536-byte MSS and never read (all 40 scrape
#     slots), each made again once the server closed it or after 12 s;
#     idle connections, 60 from each of 127.0.0.8-17 that send nothing,
#     made again each second once closed; wrong passwords from 199
#     addresses, 127.0.1.1-199, 2 connections each, one request after
#     the other.  No TLS: the half-done TLS handshakes of item 2 are not
#     played here (tests/integration/starve.test covers the idle bound).
# These have the password of a user of their own (so their scrapes are
# answered in full), but the flood; curl and Prometheus scrape from
# 127.0.0.1 as user prom.  The daemon runs with every --web.* limit at its
# default, and --web.auth-state-file as the package's unit gives it (so
# the scraper's address is known after the restart).
# Every 30 s (issue 50, items 5 and 10) the config is rewritten with a
# relabel regex of 9 bytes, ((^){24}){24}, and reloaded: the reload must
# be refused in the log within 5 s with the running config kept (the next
# scrape has the old config's series), then the good config is restored
# and reloaded; the second time, a config with max_fds: ' -1' first.
# Half-way the daemon is stopped (SIGTERM) and started again on the same
# port, the clients going on: the first scrape with the right password
# after it (curl's; Prometheus scrapes from the same address meanwhile)
# must get 200, and Prometheus' up may be 0 only from SIGTERM to the
# start's log line, give or take a second.  The daemon ($PMU_EXPORTER, default this tree's)
# counts task-clock in every cgroup under the parent and relabels
# <kind>-<id>.scope and <id> to container_id.
# Every second one scrape is checked with promtool and
# bench/expo_check.py (a failing one is kept in
# $TMPDIR/pmu_soak_tenant.fail.<n>, one with a series twice in
# $TMPDIR/pmu_soak_tenant.dup.<n>); every 10 s the daemon's VmRSS and
# VmHWM and its connections by client (open, with an answer unread, the
# most from one address) are printed, every minute the inotify watches
# on each tenant's directories counted (by inode).  At the end: scrapes
# and failures, the scrapes' time, RSS, what each tenant and client did
# and what the daemon counted of them, its CPU and its bcrypt threads',
# log lines (a minute, by level, about the tenants' subtrees), what
# Prometheus saw (up, the longest scrape, samples dropped as duplicates
# or out of order, the twins stored), and how long the daemon took to
# exit after each SIGTERM (less than 1 s) and its status.  Exit 0 when all of it is clean.  The daemon's log is
# kept in $TMPDIR/pmu_soak_tenant.daemon.log.
#
# Only the PIDs started here are ended, only the cgroups made here
# removed (on Ctrl-C too); the servers bind 127.0.0.1, the clients use
# other loopback addresses only as their source.
set -u
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
MINUTES=${1:-10}
bench_require "curl ss python3 promtool setpriv htpasswd prometheus jq" "pmu_exporter"
B=$(dirname "$0")
TENANT_UID=$(id -u nobody) TENANT_GID=$(id -g nobody)
T2_UID=65533
P="pmu_soak_tenant_$$"
# A slice, so that Docker's systemd driver places root's containers in it:
# CgroupParent $P-crowd-system.slice is /$P.slice/$P-crowd.slice/$P-crowd-system.slice.
PARENT_NAME="$P.slice"
PARENT="$CGROOT/$PARENT_NAME"
CROWD="$PARENT/$P-crowd.slice"
SYS="$CROWD/$P-crowd-system.slice"
U1="$CROWD/user.slice/user@$TENANT_UID.service"
U2="$CROWD/user.slice/user@$T2_UID.service"
ROOT="$BENCH_TMP/host" OUTSIDE="$BENCH_TMP/outside"
mkdir -p "$ROOT/var/lib/docker/containers" "$OUTSIDE"
for d in "$PARENT" "$PARENT/tenant" "$PARENT/rt" "$PARENT/walk" "$PARENT/flood" \
    "$CROWD" "$SYS" "$CROWD/user.slice" "$U1" "$U2"; do
	bench_mkcg "$d"
done
# Delegated as systemd does: the directory and its files the user may write.
for d in "$PARENT/tenant" "$PARENT/walk" "$PARENT/flood" "$U1"; do
	chown "$TENANT_UID:$TENANT_GID" "$d" "$d/cgroup.procs" "$d/cgroup.subtree_control" 2>/dev/null
done
chown "$T2_UID:$T2_UID" "$U2" "$U2/cgroup.procs" "$U2/cgroup.subtree_control" 2>/dev/null
setpriv --reuid="$T2_UID" --regid="$T2_UID" --clear-groups mkdir "$U2/libpod-a.scope" "$U2/libpod-b.scope" ||
	bench_die "the second tenant's mkdir"
# Root's 5 Docker containers: records in the fake root, the cgroups where
# they place them.
IDS=
for i in 1 2 3 4 5; do
	id=$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')
	IDS="$IDS $id"
	mkdir "$ROOT/var/lib/docker/containers/$id"
	printf '{"ID":"%s","Name":"/root-web-%d","Config":{"Image":"nginx:1.25","Labels":{}}}' "$id" "$i" \
		> "$ROOT/var/lib/docker/containers/$id/config.v2.json"
	printf '{"CgroupParent":"%s-crowd-system.slice"}' "$P" > "$ROOT/var/lib/docker/containers/$id/hostconfig.json"
	bench_mkcg "$SYS/docker-$id.scope"
done
# shellcheck disable=SC2317 # run by the EXIT trap
soak_cleanup() {
	local p
	for p in $BENCH_PIDS; do bench_stop "$p"; done
	# What a tenant left (each removes its own at its end).  The walk
	# tenant's paths pass PATH_MAX: removed relative to fds.
	for p in "$PARENT/tenant" "$PARENT/rt" "$PARENT/walk" "$PARENT/flood" "$U1" "$U2"; do
		[ -d "$p" ] && find "$p" -mindepth 1 -depth -type d -delete 2>/dev/null
	done
	bench_cleanup
}
trap soak_cleanup EXIT
trap 'exit 130' INT TERM HUP

PASS='right pass' TPASS='tenant pass'
cat > "$BENCH_TMP/web.yml" <<YAML
basic_auth_users:
  prom: '$(htpasswd -nbBC 10 prom "$PASS" | cut -d: -f2-)'
  tenant: '$(htpasswd -nbBC 10 tenant "$TPASS" | cut -d: -f2-)'
YAML
# shellcheck disable=SC2016 # $2 is the relabel's, not the shell's
RELABEL='    relabel:
      - regex: ".*/([a-z-]+-)?([0-9a-f]{64})(\\.scope)?"
        target_label: container_id
        replacement: "$2"'
cat > "$BENCH_TMP/good.yaml" <<YAML
interval: 1s
groups:
  - name: sw
    events: [task-clock]
cgroups:
  - path: /$PARENT_NAME/*/*
    groups: [sw]
$RELABEL
  - path: /$PARENT_NAME/walk/**/*.scope
    groups: [sw]
  - path: /$PARENT_NAME/$P-crowd.slice/**/*.scope
    groups: [sw]
    max_cgroups: 10000
$RELABEL
YAML
# The regex bomb: 9 bytes that cost glibc's regcomp 2.5 GB and 27 s
# before issue 50; loaded, its series would be group "bomb".
cat > "$BENCH_TMP/bomb.yaml" <<YAML
interval: 1s
groups:
  - name: bomb
    events: [task-clock]
cgroups:
  - path: /$PARENT_NAME/*/*
    groups: [bomb]
    relabel:
      - regex: '((^){24}){24}'
        target_label: l
YAML
{ echo "max_fds: ' -1'"; cat "$BENCH_TMP/good.yaml"; } > "$BENCH_TMP/fds.yaml"
cp "$BENCH_TMP/good.yaml" "$BENCH_TMP/c.yaml"
# Configs are replaced whole (by rename), as an editor or a ConfigMap does.
put_config() { cp "$BENCH_TMP/$1" "$BENCH_TMP/c.new" && mv "$BENCH_TMP/c.new" "$BENCH_TMP/c.yaml"; }
logc() { grep -c -- "$1" "$BENCH_TMP/daemon.log"; }
ms() { date +%s%3N; }
port=$(bench_free_port)
URL="http://127.0.0.1:$port/metrics"
: > "$BENCH_TMP/daemon.log"
# start_daemon N: the daemon, ready when its Nth start line is logged
# (said after the first collection); its PID in DPID.
start_daemon() {
	local i
	bench_spawn "$PMU_EXPORTER" --config.file="$BENCH_TMP/c.yaml" --web.config.file="$BENCH_TMP/web.yml" \
		--path.rootfs="$ROOT" --web.listen-address="127.0.0.1:$port" \
		--web.auth-state-file="$BENCH_TMP/auth.state" >> "$BENCH_TMP/daemon.log" 2>&1
	DPID=$BENCH_LAST
	for i in $(seq 1 300); do
		[ "$(logc 'msg="pmu_exporter .* listening on')" -ge "$1" ] && return 0
		kill -0 "$DPID" 2>/dev/null || break
		sleep 0.1
	done
	tail -20 "$BENCH_TMP/daemon.log"
	bench_die "daemon not ready after ${i}00 ms"
}
# stop_daemon: SIGTERM, its exit status in RC and the time it took in EXIT_MS.
stop_daemon() {
	local t0
	t0=$(ms)
	kill -TERM "$DPID"
	wait "$DPID"
	RC=$?
	EXIT_MS=$(( $(ms) - t0 ))
	bench_stop "$DPID"
}
start_daemon 1
cpu0=$(bench_cpu_ns "$DPID")
secs=$((MINUTES * 60))
echo "soak_tenant: $(date -u +%FT%TZ), $MINUTES min, daemon pid $DPID ($PMU_EXPORTER), $(nproc) CPUs, $(bench_busy_pct 2)% busy before"
hwm() { awk '$1 == "VmHWM:" { print $2 }' "/proc/$1/status"; }
echo "soak_tenant: t=0 s VmRSS $(bench_rss_kb "$DPID") kB VmHWM $(hwm "$DPID") kB"

# Prometheus, scraping every second with the right password.
cat > "$BENCH_TMP/prometheus.yml" <<YAML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: pmu
    basic_auth:
      username: prom
      password: '$PASS'
    static_configs:
      - targets: ['127.0.0.1:$port']
YAML
promtool check config "$BENCH_TMP/prometheus.yml" > /dev/null 2>&1 || bench_die "promtool check config"
PROM_PID=
for _ in 1 2 3; do
	pport=$(bench_free_port)
	[ "$pport" = "$port" ] && continue
	bench_spawn prometheus --config.file="$BENCH_TMP/prometheus.yml" --storage.tsdb.path="$BENCH_TMP/prom" \
		--web.listen-address="127.0.0.1:$pport" --log.level=warn > "$BENCH_TMP/prometheus.log" 2>&1
	PROM_PID=$BENCH_LAST
	bench_wait_http "http://127.0.0.1:$pport/-/ready" 30 && break
	bench_stop "$PROM_PID"
	PROM_PID=
done
[ -n "$PROM_PID" ] || { cat "$BENCH_TMP/prometheus.log"; bench_die "prometheus did not start"; }
PAPI="http://127.0.0.1:$pport/api/v1"
prom_t0=$(date +%s.%N)

# The scraper has scraped once before any client attacks, as it has on a
# node where the daemon runs: a first start under attack, with nothing
# known, waits one bcrypt check for each attacker's address before the
# scraper's (docs/http.md), which is not what this soak measures.
curl -s -m 60 -u "prom:$PASS" -o /dev/null "$URL" || bench_die "the first scrape failed"

# The tenants' copy, where they can read it.
chmod 711 "$BENCH_TMP" && install -m 644 "$B/tenant.py" "$BENCH_TMP/tenant.py"
# shellcheck disable=SC2317 # run by bench_spawn
as_tenant() { exec setpriv --reuid="$TENANT_UID" --regid="$TENANT_GID" --clear-groups /usr/bin/python3 "$BENCH_TMP/tenant.py" "$@"; }
bench_spawn as_tenant cg "$PARENT/tenant" "$secs" > "$BENCH_TMP/cg.out" 2>&1
CGPID=$BENCH_LAST
bench_spawn as_tenant walk "$PARENT/walk" "$secs" > "$BENCH_TMP/walk.out" 2>&1
WALKPID=$BENCH_LAST
bench_spawn as_tenant crowd "$U1" 10050 "$secs" > "$BENCH_TMP/crowd.out" 2>&1
CROWDPID=$BENCH_LAST
# shellcheck disable=SC2086 # the ids, one argument each
bench_spawn as_tenant flood "$PARENT/flood" "$secs" $IDS > "$BENCH_TMP/flood.out" 2>&1
FLOODPID=$BENCH_LAST
bench_spawn python3 "$B/tenant.py" rt "$ROOT" "$PARENT/rt" "$OUTSIDE" "$secs" "/$PARENT_NAME/rt" > "$BENCH_TMP/rt.out" 2>&1
RTPID=$BENCH_LAST
bench_spawn python3 "$B/http_tenant.py" "$port" "$secs" "tenant:$TPASS" > "$BENCH_TMP/http.out" 2>&1
HTPID=$BENCH_LAST
# The clients of issue 50 run until stopped, after the last SIGTERM.
bench_spawn python3 "$B/http_starve.py" slow "$port" $((secs + 600)) "tenant:$TPASS" 10 \
	127.0.0.4 127.0.0.5 127.0.0.6 127.0.0.7 > "$BENCH_TMP/slow.out" 2>&1
SLOWPID=$BENCH_LAST
bench_spawn python3 "$B/http_starve.py" idle "$port" $((secs + 600)) 8 10 60 > "$BENCH_TMP/idle.out" 2>&1
IDLEPID=$BENCH_LAST
bench_spawn python3 "$B/http_starve.py" passwords "$port" $((secs + 600)) 1 199 2 > "$BENCH_TMP/pw.out" 2>&1
PWPID=$BENCH_LAST

# What each scrape is checked for, by cgroup prefix (bench/expo_check.py).
ROOTP="/$PARENT_NAME/$P-crowd.slice/$P-crowd-system.slice/docker-"
T2P="/$PARENT_NAME/$P-crowd.slice/user.slice/user@$T2_UID.service/"
U1P="/$PARENT_NAME/$P-crowd.slice/user.slice/user@$TENANT_UID.service/"
TWINP="/$PARENT_NAME/tenant/!job"
FLOODP="/$PARENT_NAME/flood/"

# scrape FILE [MAX_S]: one scrape as user prom from 127.0.0.1; its code
# and time tallied; 0 if 200.
scrapes=0 refused=0 codes=
scrape() {
	local r c
	r=$(curl -s -m "${2:-5}" -u "prom:$PASS" -o "$1" -w '%{http_code} %{time_total}' "$URL")
	c=${r% *}
	scrapes=$((scrapes + 1))
	echo "${r#* }" >> "$BENCH_TMP/latency"
	[ "$c" = 200 ] && return 0
	refused=$((refused + 1))
	codes="$codes $c"
	return 1
}
# The server's connections by client (established, and of those how
# many with an answer queued unread), and its listen queue.
conns() {
	ss -Htn state established "( sport = :$port )" | awk -v q="$(ss -Hltn "sport = :$port" | awk '{ print $2 }')" '
	{
		split($4, a, ":"); split(a[1], o, ".")
		if (a[1] == "127.0.0.1") w = "scraper"
		else if (a[1] == "127.0.0.2") w = "pipelining"
		else if (a[1] == "127.0.0.3") w = "bodies"
		else if (o[3] == 1) w = "passwords"
		else if (o[4] >= 4 && o[4] <= 7) w = "slow"
		else if (o[4] >= 8 && o[4] <= 17) w = "idle"
		else w = "other"
		n[w]++
		if ($2 > 0) u[w]++
		if (++per[a[1]] > most[w]) most[w] = per[a[1]]
	}
	END { for (w in n) printf "%s %d/%d (%d from one address), ", w, n[w], u[w], most[w]; printf "listen queue %s", q }'
}
# CPU-s the bcrypt threads have used in this daemon.
auth_cpu() {
	local t n=0
	for t in /proc/"$DPID"/task/*; do
		[ "$(cat "$t/comm" 2>/dev/null)" = pmu-auth ] || continue
		n=$((n + $(awk '{ print $14 + $15 }' "$t/stat")))
	done
	echo "$n $(getconf CLK_TCK)" | awk '{ printf "%.1f", $1 / $2 }'
}
# The inotify watches the daemon holds on each tenant's directories (by
# inode), their most in any sample kept in $BENCH_TMP/watches.
watches() {
	python3 - "$DPID" "$BENCH_TMP/watches" "crowd=$U1" "second=$U2" "churn=$PARENT/tenant" \
	    "walk=$PARENT/walk" "flood=$PARENT/flood" <<'PY'
import os, re, sys
pid, keep = sys.argv[1], sys.argv[2]
owner = {}
for arg in sys.argv[3:]:
    name, top = arg.split("=", 1)
    for d, _, _, fd in os.fwalk(top):
        owner[os.stat(fd).st_ino] = name
n = {"all": 0}
for arg in sys.argv[3:]:
    n[arg.split("=", 1)[0]] = 0
for f in os.listdir("/proc/%s/fdinfo" % pid):
    try:
        text = open("/proc/%s/fdinfo/%s" % (pid, f)).read()
    except OSError:
        continue
    for ino in re.findall(r"^inotify wd:\S+ ino:([0-9a-f]+)", text, re.M):
        n["all"] += 1
        who = owner.get(int(ino, 16))
        if who:
            n[who] += 1
most = {}
if os.path.exists(keep):
    most = dict((k, int(v)) for k, v in (w.split("=") for w in open(keep).read().split()))
print(" ".join("%s=%d" % (k, max(v, most.get(k, 0))) for k, v in n.items()), file=open(keep, "w"))
print(" ".join("%s %d" % kv for kv in n.items()))
PY
}

dups=0 rootmiss=0 rootnamed=0 t2miss=0 twins_all=0 posers=0 named=0 fails=0 rss_max=0
bombs=0 bomb_fail=0 bomb_ms_max=0 restarted='' first_after='' t_term='' t_ready='' RC1=none EXIT1_MS=0
next_bomb=30 next_watch=60 restart_at=$((secs / 2))
# check FILE EL: the scrape in FILE, checked and tallied.
check() {
	local f=$1 el=$2 x
	if ! promtool check metrics < "$f" > "$BENCH_TMP/promtool.out" 2>&1; then
		fails=$((fails + 1))
		cp "$f" "${TMPDIR:-/tmp}/pmu_soak_tenant.fail.$fails"
		echo "soak_tenant: t=$el s scrape $scrapes: promtool: $(head -3 "$BENCH_TMP/promtool.out")"
	fi
	x=$(python3 "$B/expo_check.py" "$f" "$ROOTP" "$T2P" "$TWINP" "$U1P" "$FLOODP")
	# duplicates N root t2 twins crowd flood
	# shellcheck disable=SC2086 # split into its fields
	set -- $x
	EXPO="$*"
	if [ "$2" != 0 ]; then
		dups=$((dups + 1))
		cp "$f" "${TMPDIR:-/tmp}/pmu_soak_tenant.dup.$dups"
		echo "soak_tenant: t=$el s scrape $scrapes: $2 duplicate series, the first: $(sed -n 2p <<<"$x")"
	fi
	# Each COUNTED/NAMED.
	[ "${3%/*}" = 5 ] || { rootmiss=$((rootmiss + 1)); echo "soak_tenant: t=$el s scrape $scrapes: ${3%/*} of root's 5 containers counted"; }
	[ "${3#*/}" = 5 ] && rootnamed=$((rootnamed + 1))
	[ "${4%/*}" = 2 ] || { t2miss=$((t2miss + 1)); echo "soak_tenant: t=$el s scrape $scrapes: ${4%/*} of the second tenant's 2 containers counted"; }
	[ "${5%/*}" = 6 ] && twins_all=$((twins_all + 1))
	# A tenant's cgroup named after root's container must not get its names.
	[ "${7#*/}" = 0 ] || { posers=$((posers + 1)); echo "soak_tenant: t=$el s scrape $scrapes: ${7#*/} of the flood tenant's cgroups have a container's names"; }
	grep -q 'container="renamed-' "$f" && named=$((named + 1))
	grep -q "read-from-outside-rootfs" "$f" && { echo "soak_tenant: t=$el s: a file outside the root was read"; fails=$((fails + 1)); }
	return 0
}
# bomb_round CONFIG WANT: a config the reload must refuse, saying WANT;
# the next scrape must have the running config's series (group sw, never
# group bomb); then the good config back.
bomb_round() {
	local n m t0 i dt
	n=$(logc 'reload failed') m=$(logc 'msg="reloaded ')
	put_config "$1"
	t0=$(ms)
	kill -HUP "$DPID"
	for i in $(seq 1 50); do [ "$(logc 'reload failed')" -gt "$n" ] && break; sleep 0.1; done
	dt=$(( $(ms) - t0 ))
	bombs=$((bombs + 1))
	[ "$dt" -gt "$bomb_ms_max" ] && bomb_ms_max=$dt
	if [ "$(logc 'reload failed')" -le "$n" ] || ! grep -q -- "$2" "$BENCH_TMP/daemon.log"; then
		bomb_fail=$((bomb_fail + 1))
		echo "soak_tenant: $1: the reload not refused within 5 s ($(tail -1 "$BENCH_TMP/daemon.log"))"
	fi
	if scrape "$BENCH_TMP/b"; then
		if grep -q 'group="bomb"' "$BENCH_TMP/b" || ! grep -q "^pmu_cgroup_events_total{cgroup=\"/$PARENT_NAME/tenant/.*group=\"sw\"" "$BENCH_TMP/b"; then
			bomb_fail=$((bomb_fail + 1))
			echo "soak_tenant: $1: the running config not kept: $(grep -c 'group="sw"' "$BENCH_TMP/b") series of group sw"
		fi
	fi
	put_config good.yaml
	kill -HUP "$DPID"
	for i in $(seq 1 100); do [ "$(logc 'msg="reloaded ')" -gt "$m" ] && break; sleep 0.1; done
	[ "$(logc 'msg="reloaded ')" -gt "$m" ] || { bomb_fail=$((bomb_fail + 1)); echo "soak_tenant: the good config not reloaded after $1"; }
}

t0=$(date +%s) perr_said=''
while :; do
	it0=$(ms)
	now=$(date +%s)
	el=$((now - t0))
	[ $el -ge "$secs" ] && break
	kill -0 "$DPID" 2>/dev/null || { echo "soak_tenant: the daemon died at t=$el s"; tail -20 "$BENCH_TMP/daemon.log"; fails=$((fails + 1)); break; }
	if scrape "$BENCH_TMP/m"; then
		check "$BENCH_TMP/m" "$el"
	else
		echo "soak_tenant: t=$el s scrape $scrapes REFUSED:${codes##* }"
	fi
	# Prometheus' own word on its last scrape, when it failed: said
	# once for each error it gives.
	perr=$(curl -s -m 2 "$PAPI/targets" | jq -r '.data.activeTargets[0] | select(.health == "down") | .lastError // empty' 2>/dev/null)
	if [ -n "$perr" ] && [ "$perr" != "$perr_said" ]; then
		echo "soak_tenant: t=$el s Prometheus' scrape failed: $perr"
		perr_said=$perr
	fi
	if [ $((scrapes % 10)) = 0 ]; then
		r=$(bench_rss_kb "$DPID")
		[ "$r" -gt "$rss_max" ] && rss_max=$r
		echo "soak_tenant: t=$el s scrapes $scrapes refused $refused promtool $fails duplicates $dups root-missing $rootmiss VmRSS $r kB VmHWM $(hwm "$DPID") kB series $(grep -c '^pmu_cgroup_events_total{' "$BENCH_TMP/m") named $(grep -c '^pmu_cgroup_events_total{.*container="' "$BENCH_TMP/m") [dups root t2 twins crowd flood: ${EXPO#duplicates }]"
		echo "soak_tenant: t=$el s connections (open/unread): $(conns)"
	fi
	if [ "$el" -ge "$next_watch" ]; then
		echo "soak_tenant: t=$el s inotify watches: $(watches)"
		next_watch=$((next_watch + 60))
	fi
	if [ "$el" -ge "$next_bomb" ]; then
		[ "$bombs" = 1 ] && bomb_round fds.yaml "max_fds must be a positive whole number"
		bomb_round bomb.yaml "c.yaml:9:9: the relabel rules up to here would take more than"
		next_bomb=$((el + 30))
	fi
	if [ -z "$restarted" ] && [ "$el" -ge "$restart_at" ]; then
		restarted=1
		cpu_a=$(( $(bench_cpu_ns "$DPID") - cpu0 )) auth_a=$(auth_cpu)
		t_term=$(date +%s.%N)
		stop_daemon
		RC1=$RC EXIT1_MS=$EXIT_MS
		start_daemon 2
		t_ready=$(date +%s.%N)
		cpu0=$(bench_cpu_ns "$DPID")
		if scrape "$BENCH_TMP/m" 60; then
			first_after="200 in $(tail -1 "$BENCH_TMP/latency") s"
			check "$BENCH_TMP/m" "$el"
		else
			first_after="REFUSED (${codes##* }, $(tail -1 "$BENCH_TMP/latency") s)"
		fi
		echo "soak_tenant: t=$el s restart: exited $RC1 in $EXIT1_MS ms after SIGTERM; ready again $(awk -v a="$t_term" -v b="$t_ready" 'BEGIN { printf "%.1f", b - a }') s later; the first scrape with the right password: $first_after"
	fi
	# A scrape a second, whatever the checks took.
	rest=$(( 1000 - ($(ms) - it0) ))
	[ "$rest" -gt 0 ] && sleep "$(awk -v r="$rest" 'BEGIN { printf "%.3f", r / 1000 }')"
done
t_end=$(date +%s.%N)
r=$(bench_rss_kb "$DPID") h=$(hwm "$DPID")
cpu_b=$(( $(bench_cpu_ns "$DPID") - cpu0 )) auth_b=$(auth_cpu)
m_end=$BENCH_TMP/m
grep -h '^pmu_exporter_\(http_\|cgroups_skipped\|delegated\)' "$m_end" > "$BENCH_TMP/self" 2>/dev/null

# What Prometheus saw, up to the loop's end.
pq() { curl -s -G "$PAPI/query" --data-urlencode "query=$1" --data-urlencode "time=$t_end"; }
range=$(awk -v a="$prom_t0" -v b="$t_end" 'BEGIN { printf "%d", b - a + 5 }')
pq "up{job=\"pmu\"}[${range}s]" > "$BENCH_TMP/up.json"
up_n=$(jq '[.data.result[0].values[]] | length' "$BENCH_TMP/up.json")
up_0=$(jq '[.data.result[0].values[] | select(.[1] == "0")] | length' "$BENCH_TMP/up.json")
# Down outside the restart (from a scrape begun before SIGTERM to one
# after the daemon was ready again).
up_0_out=$(jq --argjson a "${t_term:-0}" --argjson b "${t_ready:-0}" \
	'[.data.result[0].values[] | select(.[1] == "0" and (.[0] < $a - 1 or .[0] > $b + 1))] | length' "$BENCH_TMP/up.json")
# When up was 0, in s from the loop's start, and the first up after the restart.
up_0_at=$(jq -r --argjson t "$t0" '[.data.result[0].values[] | select(.[1] == "0") | .[0] - $t | floor | tostring] | join(" ")' "$BENCH_TMP/up.json")
up_back=$(jq -r --argjson b "${t_ready:-0}" '[.data.result[0].values[] | select(.[1] == "1" and .[0] > $b) | .[0] - $b] | (min // "never") | if type == "number" then (. * 10 | floor) / 10 | tostring else . end' "$BENCH_TMP/up.json")
dur_max=$(pq "max_over_time(scrape_duration_seconds{job=\"pmu\"}[${range}s])" | jq -r '.data.result[0].value[1] // "none"')
samples_max=$(pq "max_over_time(scrape_samples_scraped{job=\"pmu\"}[${range}s])" | jq -r '.data.result[0].value[1] // "none"')
prom_twins=$(pq "count(count by (cgroup) (last_over_time(pmu_cgroup_events_total{job=\"pmu\",cgroup=~\"$TWINP.*\"}[${range}s])))" | jq -r '.data.result[0].value[1] // 0')
curl -s "http://127.0.0.1:$pport/metrics" > "$BENCH_TMP/prom.metrics"
prom_bad=0 prom_figs=
for c in sample_duplicate_timestamp sample_out_of_order sample_out_of_bounds exemplar_out_of_order \
    exceeded_sample_limit exceeded_body_size_limit; do
	v=$(awk -v n="prometheus_target_scrapes_${c}_total" '$1 == n { print $2 }' "$BENCH_TMP/prom.metrics")
	prom_figs="$prom_figs $c ${v:-missing},"
	[ "${v:-x}" = 0 ] || prom_bad=$((prom_bad + 1))
done
[ "$up_0_out" = 0 ] || prom_bad=$((prom_bad + 1))
[ "$prom_twins" = 6 ] || prom_bad=$((prom_bad + 1))

echo "soak_tenant: inotify watches at the end: $(watches); most in any sample: $(cat "$BENCH_TMP/watches")"
# The final SIGTERM, the clients still at it.
stop_daemon
RC2=$RC EXIT2_MS=$EXIT_MS
for p in "$SLOWPID" "$IDLEPID" "$PWPID"; do bench_stop "$p"; done
wait "$CGPID" "$RTPID" "$WALKPID" "$HTPID" "$CROWDPID" "$FLOODPID" 2>/dev/null
bench_stop "$PROM_PID"
BENCH_PIDS=
cp "$BENCH_TMP/daemon.log" "${TMPDIR:-/tmp}/pmu_soak_tenant.daemon.log"

echo "soak_tenant: tenant: $(cat "$BENCH_TMP/cg.out")"
echo "soak_tenant: walk tenant: $(cat "$BENCH_TMP/walk.out")"
echo "soak_tenant: crowd tenant: $(cat "$BENCH_TMP/crowd.out"); flood tenant: $(cat "$BENCH_TMP/flood.out")"
echo "soak_tenant: runtime: $(cat "$BENCH_TMP/rt.out")"
echo "soak_tenant: network: $(tr '\n' ';' < "$BENCH_TMP/http.out") $(cat "$BENCH_TMP/slow.out"); $(cat "$BENCH_TMP/idle.out"); $(cat "$BENCH_TMP/pw.out")"
echo "soak_tenant: the daemon's count at the end: $(sed 's/^pmu_exporter_//' "$BENCH_TMP/self" | grep -v ' 0$' | tr '\n' ' ')"
lat=$(bench_median < "$BENCH_TMP/latency")
p99=$(sort -g "$BENCH_TMP/latency" | awk '{ v[NR] = $1 } END { i = int(NR * 0.99); if (i < 1) i = 1; print v[i] }')
lmax=$(sort -g "$BENCH_TMP/latency" | tail -1)
echo "soak_tenant: legitimate scrapes' time: median $lat s, 99th percentile $p99 s, most $lmax s"
cpu_s=$(awk -v a="${cpu_a:-0}" -v b="$cpu_b" -v s="$secs" 'BEGIN { printf "%.3f", (a + b) / 1e9 / s }')
echo "soak_tenant: the daemon's CPU: $cpu_s CPU-s a second; its bcrypt threads: ${auth_a:-0} + $auth_b CPU-s (before and after the restart)"

# The log.  Rate-limited (names/names_resolve.c): at most 3 warn lines a
# minute for cgroups that carry the id of a container placed elsewhere,
# and one more counting the rest, per daemon (each start a new minute).
# Per collection pass, each delegated subtree gets at most its
# counted/gone info line and its share's warn line.
L=$BENCH_TMP/daemon.log
lines=$(wc -l < "$L")
life1=$(awk -v a="$t_term" -v b="$prom_t0" 'BEGIN { print (a > 0 ? int(a - b) + 1 : 0) }')
life2=$(( secs - life1 ))
flood_lines=$(logc 'carries the id of container\|more cgroups carried the id of a container')
flood_bound=$(( 4 * ( (life1 + 59) / 60 + (life2 + 59) / 60 ) ))
# A pass at each collection (1 s), and one more at each reload.
passes=$(( secs + 3 * bombs + 10 ))
sub_lines=0 sub_fig=
for s in tenant walk flood "$P-crowd.slice/user.slice/user@$TENANT_UID.service" "$P-crowd.slice/user.slice/user@$T2_UID.service"; do
	n=$(grep -c "msg=\"[^\"]*/$PARENT_NAME/${s}[:/ ]" "$L")
	sub_lines=$((sub_lines + n))
	sub_fig="$sub_fig ${s##*/} $n,"
done
sub_bound=$(( 2 * 5 * passes ))
echo "soak_tenant: log: $lines lines ($(sed -n 's/^ts=[^ ]* level=\([a-z]*\) .*/\1/p' "$L" | sort | uniq -c | awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $2, $1 }')), $(awk -v n="$lines" -v s="$secs" 'BEGIN { printf "%.0f", n * 60 / s }') a minute; not UTF-8: $(python3 -c 'import sys; sys.stdin.buffer.read().decode("utf-8")' < "$L" 2>/dev/null && echo no || echo YES); about a container placed elsewhere: $flood_lines (bound $flood_bound: 4 a minute a daemon; the tenant made $(sed -n 's/.*flood=\([0-9]*\).*/\1/p' "$BENCH_TMP/flood.out") such cgroups); about the tenants' subtrees:$sub_fig $sub_lines in all (bound $sub_bound: 2 a pass a subtree)"
log_bad=0
[ "$flood_lines" -le "$flood_bound" ] || log_bad=$((log_bad + 1))
[ "$sub_lines" -le "$sub_bound" ] || log_bad=$((log_bad + 1))
python3 -c 'import sys; sys.stdin.buffer.read().decode("utf-8")' < "$L" 2>/dev/null || log_bad=$((log_bad + 1))
# The crowding tenant's directories: at most its share's watches.
crowd_w=$(sed -n 's/.*crowd=\([0-9]*\).*/\1/p' "$BENCH_TMP/watches")
watch_bad=0
[ "${crowd_w:-999}" -le 128 ] || watch_bad=1

echo "soak_tenant: Prometheus: $up_n scrapes, up 0 in $up_0 (outside the restart: $up_0_out; at t=${up_0_at:-none} s; up again $up_back s after the restart was ready), longest $dur_max s, at most $samples_max samples; twin series stored: $prom_twins of 6;$prom_figs"
echo "soak_tenant: reloads refused: $bombs (slowest refusal logged $bomb_ms_max ms after SIGHUP), failed checks $bomb_fail; restart: the first scrape with the right password: ${first_after:-none}"
echo "soak_tenant: $scrapes scrapes, $fails failures (promtool), $dups with a duplicate series, $rootmiss without root's 5 containers ($t2miss without the second tenant's 2, $posers with a tenant's cgroup named as root's container), $refused legitimate scrapes refused or timed out:${codes:- none}; scrapes with all 6 twins: $twins_all, with root's 5 named: $rootnamed, with a renamed container named: $named; VmRSS at the end $r kB (max sampled $rss_max kB), VmHWM $h kB; log $lines lines; Prometheus: up 0 outside the restart $up_0_out, samples dropped $(awk -v s="$prom_figs" 'BEGIN { n = split(s, a, ","); t = 0; for (i = 1; i <= n; i++) { k = split(a[i], b, " "); if (k) t += b[k] } print t }'); exit after SIGTERM: status $RC1 in $EXIT1_MS ms (restart), $RC2 in $EXIT2_MS ms (end)"
bad=
[ "$fails" = 0 ] || bad="$bad promtool,"
[ "$dups" = 0 ] || bad="$bad duplicates,"
[ "$rootmiss" = 0 ] && [ "$t2miss" = 0 ] || bad="$bad containers not counted,"
[ "$posers" = 0 ] || bad="$bad a tenant's cgroup named as root's container,"
[ "$refused" = 0 ] || bad="$bad legitimate scrapes refused,"
[ "${first_after%% *}" = 200 ] || bad="$bad the first scrape after the restart,"
[ "$bomb_fail" = 0 ] || bad="$bad reloads,"
[ "$prom_bad" = 0 ] || bad="$bad Prometheus,"
[ "$log_bad" = 0 ] || bad="$bad the log,"
[ "$watch_bad" = 0 ] || bad="$bad inotify watches,"
[ "$RC1" = 0 ] && [ "$RC2" = 0 ] && [ "$EXIT1_MS" -lt 1000 ] && [ "$EXIT2_MS" -lt 1000 ] || bad="$bad exit after SIGTERM,"
if [ -z "$bad" ]; then
	echo "soak_tenant: clean"
	exit 0
fi
echo "soak_tenant: FAILED:${bad%,}"
exit 1
