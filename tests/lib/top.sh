# top.sh - shared by tests/integration/top.test and top_screen.test:
# pmu_exporter top's program, the fixture pages (tests/fixtures/top/)
# with a hostile cgroup added, and tests/lib/helpers/fixture_serve on a
# free loopback port (serve, unserve; KEEP_PORT=1 serve comes back on
# the same port).  Sourced after lib.sh.
TOP="$top_builddir/top/pmu_exporter-top"
[ -x "$TOP" ] || fail "no $TOP"
export LC_ALL=C.UTF-8
FX_PID=

# The fixture with a hostile cgroup added to both pages (the same line),
# in $TMP/page.prom and $TMP/page_drop.prom; with "clean", without it.
top_fixture() {
	local hostile wide f e
	hostile=$(printf 'x\033[2J\033[31mred\a\\n\\"q\342\200\256evil')
	wide=$(for _ in $(seq 1 200); do printf '\346\274\242'; done)
	for f in page page_drop; do
		cp "$top_srcdir/tests/fixtures/top/$f.prom" "$TMP/$f.prom"
		for e in cycles instructions; do
			printf 'pmu_cgroup_events_total{cgroup="/evil\033]0;title\a",namespace="ns",pod="%s",container="%s",group="ipc",event="%s"} 1e9\n' \
			    "$hostile" "$wide" "$e" >> "$TMP/$f.prom"
		done
		if [ "${1:-}" = clean ]; then cp "$top_srcdir/tests/fixtures/top/$f.prom" "$TMP/$f.prom"; fi
	done
}

# fixture_serve on a free port; its PID in FX_PID, its port in FPORT.
serve() {	# [SWITCH]
	local try
	for try in 1 2 3 4 5 6 7 8 9 10; do
		[ -n "${KEEP_PORT:-}" ] || FPORT=$(( 20000 + (RANDOM * 7 + $$ + try * 131) % 40000 ))
		if [ -n "${1:-}" ]; then
			"$HELPERS/fixture_serve" "127.0.0.1:$FPORT" "$TMP/page.prom" "$1" "$TMP/page_drop.prom" 2> "$TMP/fx.log" &
		else
			"$HELPERS/fixture_serve" "127.0.0.1:$FPORT" "$TMP/page.prom" 2> "$TMP/fx.log" &
		fi
		FX_PID=$!
		for _ in $(seq 1 200); do
			grep -q serving "$TMP/fx.log" && return 0
			kill -0 "$FX_PID" 2>/dev/null || break
			sleep 0.05
		done
		wait "$FX_PID" 2>/dev/null
		FX_PID=
		grep -q "Address already in use" "$TMP/fx.log" || fail "fixture_serve: $(cat "$TMP/fx.log")"
		[ -z "${KEEP_PORT:-}" ] || [ "$try" -lt 10 ] || break
	done
	fail "fixture_serve: no free port"
}
unserve() { kill "$FX_PID"; wait "$FX_PID" 2>/dev/null; FX_PID=; }

