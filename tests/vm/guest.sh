# guest.sh - sourced by the tests/vm/*.vm tests, which run in the arm64
# guest (tests/vm/rig.sh) on QEMU's emulated PMUv3 at -icount shift=0.
#
# What that PMU is, measured in this guest:
# - inst_retired counts QEMU's instruction count, which is machine-wide:
#   a CPU's counter advances with every vCPU's instructions while that
#   CPU is in an exception level the event counts.  Per task and per
#   cgroup that is the task's own instructions (the other vCPU idles in
#   WFI, retiring none); per CPU it is the machine's, so the tests keep
#   the machine quiet around the workload.
# - cpu_cycles counts virtual time at 1 GHz, idle included; with
#   shift=0 one instruction takes 1 ns, so while the machine is busy
#   cycles == instructions, and per CPU cycles == time_enabled in ns.
# - branches and the cache events are not emulated (ENOENT).
# The test shell and the daemon stay on CPU 0; workloads run on CPU 1.
. /pmu/tests/lib/lib.sh
need_root
taskset -p -c 0 $$ >/dev/null || fail "taskset"
SPIN=$HELPERS/spin
# 1e9 iterations of a 2-instruction loop: 2e9 instructions, 2 s of
# virtual time.  Starting and ending the (static) helper costs about 3
# million instructions, most of them the kernel's exec, page faults and
# exit, charged to the helper's cgroup as perf charges them: +0.15%.
ITER=1000000000

# spin_on1 [CGROUP]: run the loop on CPU 1 (in CGROUP, a path under the
# cgroup root), print the instructions it retired.
spin_on1() {
	local out
	if [ -n "${1:-}" ]; then
		out=$(taskset -c 1 sh -c 'echo $$ > "$0/cgroup.procs" && exec "$1" "$2"' \
		    "$CG_ROOT$1" "$SPIN" "$ITER") || fail "spin in $1"
	else
		out=$(taskset -c 1 "$SPIN" "$ITER") || fail "spin"
	fi
	printf '%s' "$out" | sed -n 's/instructions=//p'
}

# How far a from b, in percent, for the messages.
err_pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.3f%%", (a - b) * 100 / b }'; }

# check_within WHAT COUNTED TRUTH PCT: fail unless within, say the error.
check_within() {
	echo "$1: counted $2, truth $3, error $(err_pct "$2" "$3") (allowed ${4}%)"
	within "$2" "$3" "$4" || fail "$1: $2 not within $4% of $3"
}

# The collector publishes a snapshot every interval; wait out two of
# them with nothing running, so the last one has seen all of a workload
# and the scrapes that follow add nothing to its window.
settle() { sleep "${1:-0.5}"; }
