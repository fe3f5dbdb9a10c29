#!/bin/bash
# tenant_cgroups.sh - issue 42's three cgroup reproductions, as a tenant
# makes them, against one build ($PMU_EXPORTER, default this tree's), so
# that an old build and a new one can be compared on the same machine:
#
#   1. nesting:  an entry "/P/user/**/*.scope" with no depth; the tenant
#      makes 450 levels of one-letter directories.  Does the daemon live?
#   2. long:     the same entry; 20 levels of 250-byte names (5 KB); is
#      root's container beside them still counted?
#   3. map:      mode: bpf with the default 1,024 slots; the tenant makes
#      1,100 libpod-t<i>.scope directories (timed), then root 5 Docker
#      containers.  How many of the 5 are counted 3 s later?
#
#   bench/tenant_cgroups.sh            (as root)
#
# The tenant is nobody in a subtree chowned to it, as systemd delegates.
# Prints one line per reproduction.  Only the PIDs started here are
# ended, only the cgroups made here removed; the server binds 127.0.0.1.
set -u
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
bench_require "curl ss /usr/bin/python3 setpriv" "pmu_exporter"
TU=$(id -u nobody) TG=$(id -g nobody)
NAME="pmu_tenant_cg_$$"
P="$CGROOT/$NAME"
bench_mkcg "$P"
bench_mkcg "$P/system"
bench_mkcg "$P/user"
chown "$TU:$TG" "$P/user" "$P/user/cgroup.procs" 2>/dev/null
tc_cleanup() {
	local p
	for p in $BENCH_PIDS; do bench_stop "$p"; done
	find "$P/user" "$P/system" -mindepth 1 -depth -type d -delete 2>/dev/null
	bench_cleanup
}
trap tc_cleanup EXIT
trap 'exit 130' INT TERM HUP
as_tenant() { (cd "$P/user" && setpriv --reuid="$TU" --regid="$TG" --clear-groups "$@"); }

# start ENTRY_LINES: the daemon on a config of those cgroups entries.
start() {
	printf 'interval: 200ms\ngroups:\n  - name: sw\n    events: [task-clock]\ncgroups:\n%s\n' "$1" > "$BENCH_TMP/c.yaml"
	PORT=$(bench_free_port)
	bench_spawn "$PMU_EXPORTER" --config.file="$BENCH_TMP/c.yaml" \
		--web.listen-address="127.0.0.1:$PORT" > "$BENCH_TMP/daemon.log" 2>&1
	DPID=$BENCH_LAST
	bench_wait_http "http://127.0.0.1:$PORT/-/ready" 20 || bench_die "daemon not ready"
}
counted() { curl -fs "http://127.0.0.1:$PORT/metrics" | grep -c "^pmu_cgroup_events_total{cgroup=\"/$NAME/system/docker-"; }
alive() { kill -0 "$DPID" 2>/dev/null && echo alive || echo "DEAD ($(grep -c . "$BENCH_TMP/daemon.log") log lines)"; }
stop() { bench_stop "$DPID"; find "$P/user" "$P/system" -mindepth 1 -depth -type d -delete 2>/dev/null; }

echo "tenant_cgroups: $(date -u +%FT%TZ), $PMU_EXPORTER, $(nproc) CPUs, $(bench_busy_pct 2)% busy"
mkdir "$P/system/docker-0.scope"
start "  - path: /$NAME/**/*.scope
    groups: [sw]"
as_tenant /usr/bin/python3 -c 'import os
for _ in range(450): os.mkdir("a"); os.chdir("a")
os.mkdir("x.scope")'
sleep 3
echo "tenant_cgroups: nesting 450 levels: the daemon is $(alive); root's container counted: $(counted)"
find "$P/user" -mindepth 1 -depth -type d -delete
kill -0 "$DPID" 2>/dev/null || { BENCH_PIDS=; start "  - path: /$NAME/**/*.scope
    groups: [sw]"; }
as_tenant /usr/bin/python3 -c 'import os
for _ in range(20): os.mkdir("x" * 250); os.chdir("x" * 250)
os.mkdir("x.scope")'
sleep 3
echo "tenant_cgroups: 20 levels of 250-byte names: the daemon is $(alive); root's container counted: $(counted) of 1; skipped: $(curl -fs "http://127.0.0.1:$PORT/metrics" | grep '^pmu_exporter_cgroups_skipped{reason="\(depth\|path_too_long\)"}' | tr '\n' ' ')"
stop

start "  - path: /$NAME/user/libpod-*.scope
    groups: [sw]
    mode: bpf
  - path: /$NAME/system/docker-*.scope
    groups: [sw]
    mode: bpf"
t0=$(date +%s%N)
as_tenant sh -c 'for i in $(seq 1 1100); do mkdir libpod-t$i.scope; done'
t1=$(date +%s%N)
sleep 3
for i in 1 2 3 4 5; do mkdir "$P/system/docker-$i.scope"; done
sleep 3
echo "tenant_cgroups: map: 1,100 libpod scopes in $(( (t1 - t0) / 1000000 )) ms, then 5 Docker containers: $(counted) of 5 counted; the daemon is $(alive); $(curl -fs "http://127.0.0.1:$PORT/metrics" | grep '^pmu_exporter_cgroups_skipped{reason="\(bpf_map_full\|delegated_share\)"}' | tr '\n' ' ')"
stop
