#!/bin/bash
# soak_tenant.sh - issue 32's soak: a tenant does its worst to the names
# and labels while the daemon is scraped every second, and every scrape
# must pass `promtool check metrics`.
#
#   bench/soak_tenant.sh [MINUTES]     (as root; default 10)
#
# The tenant (bench/tenant.py) is two processes for MINUTES:
#   - an unprivileged user (nobody) in a cgroup subtree chowned to it, as
#     systemd delegates one: cgroups named with invalid UTF-8, 200-255
#     byte names cut inside a character, libpod-<id>.scope names; at most
#     60 at once, created and removed every 50 ms;
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
#     a small one; at most 80 containers at once.
# And two hostile network clients (bench/http_tenant.py), each from a
# loopback address of its own: connections that pipeline 100 scrapes and
# read 1 KB every 5 s, and connections that send a 100 MB body a byte a
# second; the scrapes from 127.0.0.1 must all succeed meanwhile.
# The daemon ($PMU_EXPORTER, default this tree's) counts task-clock in
# every cgroup under the parent and relabels <kind>-<id>.scope and <id> to
# container_id.  Every second one scrape is checked with promtool (a
# failing one is kept in $TMPDIR/pmu_soak_tenant.fail.<n>); every 10 s
# the daemon's VmRSS and VmHWM are printed.  At the end: scrapes, failures,
# RSS over time, what the tenant did, and the daemon's exit after
# SIGTERM.  Exit 0 when every scrape passed and the daemon exited 0.
#
# Only the PIDs started here are ended, only the cgroups made here
# removed; the server binds 127.0.0.1.
set -u
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
MINUTES=${1:-10}
bench_require "curl ss python3 promtool setpriv" "pmu_exporter"
TENANT_UID=$(id -u nobody) TENANT_GID=$(id -g nobody)
PARENT_NAME="pmu_soak_tenant_$$"
PARENT="$CGROOT/$PARENT_NAME"
ROOT="$BENCH_TMP/host" OUTSIDE="$BENCH_TMP/outside"
mkdir -p "$ROOT" "$OUTSIDE"
bench_mkcg "$PARENT"
bench_mkcg "$PARENT/tenant"
bench_mkcg "$PARENT/rt"
bench_mkcg "$PARENT/walk"
# Delegated as systemd does: the directory and its files the user may write.
chown "$TENANT_UID:$TENANT_GID" "$PARENT/tenant" "$PARENT/tenant/cgroup.procs" \
	"$PARENT/tenant/cgroup.subtree_control" 2>/dev/null
chown "$TENANT_UID:$TENANT_GID" "$PARENT/walk" "$PARENT/walk/cgroup.procs" 2>/dev/null
soak_cleanup() {
	local p
	for p in $BENCH_PIDS; do bench_stop "$p"; done
	# What a tenant left (it removes its own at its end).
	for p in "$PARENT/tenant" "$PARENT/rt"; do
		[ -d "$p" ] && find "$p" -mindepth 1 -maxdepth 1 -type d -exec rmdir {} + 2>/dev/null
	done
	# The walk tenant's paths pass PATH_MAX: removed relative to fds.
	[ -d "$PARENT/walk" ] && find "$PARENT/walk" -mindepth 1 -depth -type d -delete 2>/dev/null
	bench_cleanup
}
trap soak_cleanup EXIT
trap 'exit 130' INT TERM HUP

cat > "$BENCH_TMP/c.yaml" <<YAML
interval: 1s
groups:
  - name: sw
    events: [task-clock]
cgroups:
  - path: /$PARENT_NAME/*/*
    groups: [sw]
    relabel:
      - regex: ".*/([a-z-]+-)?([0-9a-f]{64})(\\\\.scope)?"
        target_label: container_id
        replacement: "\$2"
  - path: /$PARENT_NAME/walk/**/*.scope
    groups: [sw]
YAML
port=$(bench_free_port)
bench_spawn "$PMU_EXPORTER" --config.file="$BENCH_TMP/c.yaml" --path.rootfs="$ROOT" \
	--web.listen-address="127.0.0.1:$port" > "$BENCH_TMP/daemon.log" 2>&1
DPID=$BENCH_LAST
bench_wait_http "http://127.0.0.1:$port/-/ready" 20 || { cat "$BENCH_TMP/daemon.log"; bench_die "daemon not ready"; }
secs=$((MINUTES * 60))
echo "soak_tenant: $(date -u +%FT%TZ), $MINUTES min, daemon pid $DPID ($PMU_EXPORTER), $(nproc) CPUs, $(bench_busy_pct 2)% busy before"
hwm() { awk '$1 == "VmHWM:" { print $2 }' "/proc/$1/status"; }
echo "soak_tenant: t=0 s VmRSS $(bench_rss_kb "$DPID") kB VmHWM $(hwm "$DPID") kB"
T="$(dirname "$0")/tenant.py"
# The tenant's copy, where it can read it.
chmod 711 "$BENCH_TMP" && install -m 644 "$T" "$BENCH_TMP/tenant.py"
bench_spawn setpriv --reuid="$TENANT_UID" --regid="$TENANT_GID" --clear-groups \
	/usr/bin/python3 "$BENCH_TMP/tenant.py" cg "$PARENT/tenant" "$secs" > "$BENCH_TMP/cg.out" 2>&1
CGPID=$BENCH_LAST
bench_spawn setpriv --reuid="$TENANT_UID" --regid="$TENANT_GID" --clear-groups \
	/usr/bin/python3 "$BENCH_TMP/tenant.py" walk "$PARENT/walk" "$secs" > "$BENCH_TMP/walk.out" 2>&1
WALKPID=$BENCH_LAST
bench_spawn python3 "$T" rt "$ROOT" "$PARENT/rt" "$OUTSIDE" "$secs" "/$PARENT_NAME/rt" > "$BENCH_TMP/rt.out" 2>&1
RTPID=$BENCH_LAST
bench_spawn python3 "$(dirname "$0")/http_tenant.py" "$port" "$secs" > "$BENCH_TMP/http.out" 2>&1
HTPID=$BENCH_LAST

scrapes=0 failures=0 named=0 t0=$(date +%s) rss_max=0
while :; do
	now=$(date +%s)
	el=$((now - t0))
	[ $el -ge "$secs" ] && break
	kill -0 "$DPID" 2>/dev/null || { echo "soak_tenant: the daemon died at t=$el s"; tail -20 "$BENCH_TMP/daemon.log"; failures=$((failures + 1)); break; }
	scrapes=$((scrapes + 1))
	if ! curl -fs -m 5 "http://127.0.0.1:$port/metrics" > "$BENCH_TMP/m" ||
	    ! promtool check metrics < "$BENCH_TMP/m" > "$BENCH_TMP/promtool.out" 2>&1; then
		failures=$((failures + 1))
		cp "$BENCH_TMP/m" "${TMPDIR:-/tmp}/pmu_soak_tenant.fail.$failures"
		echo "soak_tenant: t=$el s scrape $scrapes FAILED: $(head -3 "$BENCH_TMP/promtool.out")"
	fi
	grep -q 'container="renamed-' "$BENCH_TMP/m" && named=$((named + 1))
	grep -q "read-from-outside-rootfs" "$BENCH_TMP/m" && { echo "soak_tenant: t=$el s: a file outside the root was read"; failures=$((failures + 1)); }
	if [ $((scrapes % 10)) = 0 ]; then
		r=$(bench_rss_kb "$DPID")
		[ "$r" -gt "$rss_max" ] && rss_max=$r
		echo "soak_tenant: t=$el s scrapes $scrapes failures $failures VmRSS $r kB VmHWM $(hwm "$DPID") kB series $(grep -c '^pmu_cgroup_events_total{' "$BENCH_TMP/m") named $(grep -c '^pmu_cgroup_events_total{.*container="' "$BENCH_TMP/m") renamed $(grep -c '^pmu_cgroup_events_total{.*container="renamed-' "$BENCH_TMP/m")"
	fi
	sleep 1
done
wait "$CGPID" "$RTPID" "$WALKPID" "$HTPID" 2>/dev/null
echo "soak_tenant: tenant: $(cat "$BENCH_TMP/cg.out")"
echo "soak_tenant: walk tenant: $(cat "$BENCH_TMP/walk.out"); skipped: $(grep '^pmu_exporter_cgroups_skipped' "$BENCH_TMP/m" | tr '\n' ' ')"
echo "soak_tenant: runtime: $(cat "$BENCH_TMP/rt.out")"
echo "soak_tenant: network: $(tr '\n' ';' < "$BENCH_TMP/http.out")"
r=$(bench_rss_kb "$DPID") h=$(hwm "$DPID")
echo "soak_tenant: log lines $(wc -l < "$BENCH_TMP/daemon.log"), not UTF-8: $(python3 -c 'import sys; sys.stdin.buffer.read().decode("utf-8")' < "$BENCH_TMP/daemon.log" 2>/dev/null && echo no || echo YES)"
kill -TERM "$DPID"
wait "$DPID"
rc=$?
BENCH_PIDS=
echo "soak_tenant: $scrapes scrapes, $failures failures (promtool), scrapes with a renamed container named: $named; VmRSS at the end $r kB (max sampled $rss_max kB), VmHWM $h kB; exit status after SIGTERM $rc"
[ "$failures" = 0 ] && [ "$rc" = 0 ]
