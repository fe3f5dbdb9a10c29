#!/usr/bin/env python3
"""topdown_cases.py - the expected values of the top-down recording rules,
computed independently of them: perf's own metric expressions (a vendored
subset of tools/perf/pmu-events, tests/fixtures/topdown_rules/perf-metrics.json,
each source with its path and commit) evaluated on synthetic counts.

Writes the promtool unit test contrib/prometheus/tests/topdown.yml: the
counts as pmu_exporter serves them (one series per event, group "td", the
core PMU's name, pmu_exporter_topdown_info and _slots_per_cycle), and, for
every case, the fractions perf's expressions give, rounded to 1e-6 as the
test's PromQL rounds the rules' values.

    topdown_cases.py            print the test file
    topdown_cases.py --check F  exit 1 unless F is what it prints

Nothing here reads the rules: a wrong formula in pmu_exporter.rules.yml
fails `promtool test rules` on the file this writes.
"""
import json
import math
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "..", "..", "..", "tests", "fixtures", "topdown_rules", "perf-metrics.json")

# ---------------------------------------------------------------------------
# perf's metric expression language, as far as these files use it: numbers,
# event and metric names (with backslash escapes, `pmu@event@` and
# `cpu@event\,modifier\=v@` forms), #literals, + - * /, parentheses,
# `a if cond else b`, comparisons, min(), max(), d_ratio().

TOKEN = re.compile(r"""
    \s*(?:
      (?P<num>\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)
    | (?P<name>(?:[A-Za-z_#]|\\.)(?:[A-Za-z0-9_.@#]|\\.)*)
    | (?P<op>[-+*/(),<>])
    )""", re.X)


def tokenize(expr):
    pos, out = 0, []
    expr = expr.rstrip()
    while pos < len(expr):
        m = TOKEN.match(expr, pos)
        if not m or m.end() == pos:
            raise SyntaxError(f"cannot read {expr[pos:]!r} in {expr!r}")
        pos = m.end()
        kind = m.lastgroup
        out.append((kind, m.group(kind)))
    return out


class Evaluator:
    """Evaluates one source's metrics on one set of event counts.  The
    expression is parsed into closures first, so that, as in perf, only
    the taken branch of `a if cond else b` is evaluated (the other may
    name events that are not counted)."""

    def __init__(self, source, counts, slots_per_cycle, smt, core_wide=None, sources=None):
        self.metrics = {m["MetricName"]: m["MetricExpr"] for m in source["metrics"]}
        for name, other in source.get("inherits", {}).items():
            self.metrics[name] = {m["MetricName"]: m["MetricExpr"] for m in sources[other]["metrics"]}[name]
        self.not_opened = {self.event_key(e) for e in source["not_opened"]}
        self.aliases = source["aliases"]
        self.literals = {k.lower(): v for k, v in source["literals"].items()}
        self.literals["#smt_on"] = 1 if smt else 0
        if core_wide is not None:
            self.literals["#core_wide"] = core_wide
        if slots_per_cycle is not None:
            self.literals["#slots"] = slots_per_cycle
        self.counts = {k.lower(): v for k, v in counts.items()}
        self.used = set()

    @staticmethod
    def event_key(name):
        """perf's spelling of an event to the exporter's: escapes gone,
        a leading `pmu@` and trailing `@` dropped, case folded."""
        name = name.replace("\\", "")
        m = re.fullmatch(r"[a-z_]+@(.*)@", name)
        if m:
            name = m.group(1)
        return name.lower()

    def value(self, name):
        if name in self.metrics:
            return self.eval(self.metrics[name])
        if name in self.aliases:
            return self.value(self.aliases[name])
        if name.startswith("#"):
            if name.lower() not in self.literals:
                raise KeyError(f"{name}: a literal the evaluator does not set")
            return self.literals[name.lower()]
        key = self.event_key(name)
        if key in self.counts:
            self.used.add(key)
            return self.counts[key]
        if key in self.not_opened:
            return 0.0
        raise KeyError(f"{name}: neither a metric of the file nor a counted event")

    def eval(self, expr):
        return Parser(tokenize(expr), expr, self).parse()()


class Parser:
    """perf's expression grammar, each rule returning a closure:
    ternary := comparison ('if' comparison 'else' ternary)?"""

    def __init__(self, toks, expr, ev):
        self.toks, self.i, self.expr, self.ev = toks, 0, expr, ev

    def parse(self):
        f = self.ternary()
        if self.i != len(self.toks):
            raise SyntaxError(f"trailing {self.toks[self.i:]} in {self.expr!r}")
        return f

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else (None, None)

    def take(self, want=None):
        t = self.peek()
        if want is not None and t[1] != want:
            raise SyntaxError(f"expected {want!r}, got {t} in {self.expr!r}")
        self.i += 1
        return t

    def ternary(self):
        a = self.comparison()
        if self.peek() == ("name", "if"):
            self.take()
            cond = self.comparison()
            self.take("else")
            b = self.ternary()
            return lambda: a() if cond() else b()
        return a

    def binary(self, ops, sub):
        a = sub()
        while self.peek()[1] in ops:
            op = self.take()[1]
            b = sub()
            a = (lambda x, y, o: lambda: ops[o](x(), y()))(a, b, op)
        return a

    def comparison(self):
        return self.binary({"<": lambda x, y: float(x < y), ">": lambda x, y: float(x > y)}, self.additive)

    def additive(self):
        return self.binary({"+": lambda x, y: x + y, "-": lambda x, y: x - y}, self.term)

    def term(self):
        return self.binary({"*": lambda x, y: x * y, "/": lambda x, y: x / y}, self.unary)

    def unary(self):
        if self.peek()[1] == "-":
            self.take()
            f = self.unary()
            return lambda: -f()
        return self.atom()

    def atom(self):
        kind, text = self.take()
        if kind == "num":
            v = float(text)
            return lambda: v
        if text == "(":
            f = self.ternary()
            self.take(")")
            return f
        if kind == "name" and self.peek()[1] == "(" and text in ("min", "max", "d_ratio"):
            self.take("(")
            args = [self.ternary()]
            while self.peek()[1] == ",":
                self.take()
                args.append(self.ternary())
            self.take(")")
            if text == "d_ratio":
                return lambda: (lambda n, d: 0.0 if d == 0 else n / d)(args[0](), args[1]())
            fn = min if text == "min" else max
            return lambda: fn(*(a() for a in args))
        if kind == "name":
            ev = self.ev
            return lambda: ev.value(text)
        raise SyntaxError(f"unexpected {text!r} in {self.expr!r}")


# ---------------------------------------------------------------------------
# The cases: per-minute counts of each event (the series grow linearly, so
# a rate over 5 minutes is the count / 60 and every fraction the ratio of
# counts), chosen so that each class differs and the max(0, ...) of the
# level-2 classes both cuts and does not.

# One machine a family: a machine's PMU has one definition.
SMT_GROUP = "td:smt"   # the preset's second group, config/config.c

HOSTS = {"sapphirerapids": "spr-1:10101", "icelakex": "icx-1:10101", "alderlake": "adl-1:10101", "skylakex": "skx-1:10101",
         "alderlaken": "adl-1:10101", "amdzen4": "zen4-1:10101", "amdzen5": "zen5-1:10101",
         "arm64_sbsa": "neoverse-v2-1:10101", "neoverse_n2_r0p0": "neoverse-n2-r0p0-1:10101"}

CASES = [
    # Sapphire Rapids, level 2: a memory-bound container (daemon-named).
    {"title": "Sapphire Rapids (perf metrics, level 2): a memory-bound container",
     "source": "sapphirerapids", "pmu": "cpu", "scope": "cgroup",
     "labels": {"cgroup": "/kubepods.slice/kubepods-pod1.slice/cri-containerd-aa11.scope", "container_id": "aa11",
                "namespace": "shop", "pod": "db-0", "container": "postgres"},
     "counts": {"slots": 60e9, "topdown-retiring": 12e9, "topdown-bad-spec": 3e9,
                "topdown-fe-bound": 9e9, "topdown-be-bound": 36e9,
                "topdown-heavy-ops": 2e9, "topdown-br-mispredict": 2e9,
                "topdown-fetch-lat": 5e9, "topdown-mem-bound": 27e9}},
    # ... a compute-bound service, where branch mispredicts exceed the
    # bad speculation left (machine_clears cut at 0) and fetch latency
    # exceeds the frontend share (fetch_bandwidth cut at 0).
    {"title": "Sapphire Rapids, level 2: max(0, ...) cutting machine clears and fetch bandwidth",
     "source": "sapphirerapids", "pmu": "cpu", "scope": "cgroup",
     "labels": {"cgroup": "/system.slice/calc.service", "unit": "calc.service"},
     "counts": {"slots": 48e9, "topdown-retiring": 30e9, "topdown-bad-spec": 2e9,
                "topdown-fe-bound": 4e9, "topdown-be-bound": 12e9,
                "topdown-heavy-ops": 7e9, "topdown-br-mispredict": 3e9,
                "topdown-fetch-lat": 5e9, "topdown-mem-bound": 2e9}},
    # Icelake-SP, level 1 only (no level-2 events in its sysfs), per CPU.
    {"title": "Icelake-SP (perf metrics, level 1), per CPU",
     "source": "icelakex", "pmu": "cpu", "scope": "cpu", "labels": {"cpu": "3"},
     "counts": {"slots": 50e9, "topdown-retiring": 20e9, "topdown-bad-spec": 5e9,
                "topdown-fe-bound": 10e9, "topdown-be-bound": 15e9}},
    # Skylake-SP, general-purpose counters, a 4-wide pipeline, counted per
    # thread.  A cgroup's counts are never core-wide (#core_wide 0): perf's
    # core clocks are then THREAD / 2 * (1 + ONE_THREAD_ACTIVE / REF_XCLK),
    # which with SMT off is THREAD (one thread active whenever this one
    # is), and the daemon opens no ONE_THREAD_ACTIVE / REF_XCLK pair.
    # perf_counts: what perf's expression reads besides the served counts
    # (events the preset does not open, or a core's sums); smt_counts: the
    # pair the daemon serves with SMT on, in the preset's second group
    # ("td:smt").
    {"title": "Skylake-SP (general-purpose counters), SMT off",
     "source": "skylakex", "pmu": "cpu", "scope": "cgroup", "core_wide": 0,
     "labels": {"cgroup": "/system.slice/nginx.service", "unit": "nginx.service"},
     "counts": {"CPU_CLK_UNHALTED.THREAD": 12e9, "IDQ_UOPS_NOT_DELIVERED.CORE": 9e9,
                "UOPS_ISSUED.ANY": 21e9, "UOPS_RETIRED.RETIRE_SLOTS": 18e9,
                "INT_MISC.RECOVERY_CYCLES": 0.5e9},
     "perf_counts": {"CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE": 3e9, "CPU_CLK_UNHALTED.REF_XCLK": 3e9}},
    # ... with SMT on, a cgroup alone on its core (the sibling idle): the
    # true split is retiring 0.5, frontend 0.2, bad speculation 0.1,
    # backend 0.2 of 4 x THREAD slots (ONE_THREAD_ACTIVE = REF_XCLK).  No
    # recovery cycles: with them perf's per-thread formula halves
    # INT_MISC.RECOVERY_CYCLES_ANY even with the sibling idle (the
    # core-wide case below has them).
    {"title": "Skylake-SP with SMT on, a cgroup alone on its core (sibling idle, #core_wide 0)",
     "source": "skylakex", "pmu": "cpu", "scope": "cgroup", "smt": True, "core_wide": 0, "host": "skx-smt-1:10101",
     "labels": {"cgroup": "/system.slice/redis.service", "unit": "redis.service"},
     "counts": {"CPU_CLK_UNHALTED.THREAD": 10e9, "IDQ_UOPS_NOT_DELIVERED.CORE": 8e9,
                "UOPS_ISSUED.ANY": 24e9, "UOPS_RETIRED.RETIRE_SLOTS": 20e9,
                "INT_MISC.RECOVERY_CYCLES": 0},
     "smt_counts": {"CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE": 2.5e9, "CPU_CLK_UNHALTED.REF_XCLK": 2.5e9},
     "perf_counts": {"INT_MISC.RECOVERY_CYCLES_ANY": 0},
     "unused_ok": ["INT_MISC.RECOVERY_CYCLES"],
     "truth": {"retiring": 0.5, "frontend_bound": 0.2, "bad_speculation": 0.1, "backend_bound": 0.2}},
    # ... a cgroup on a core whose sibling runs the whole time (another
    # cgroup's threads): ONE_THREAD_ACTIVE 0, so the thread had half the
    # core's slots, 2 x THREAD.  True split: retiring 0.5, frontend 0.2,
    # bad speculation 0.1, backend 0.2 of them.  The siblings recover
    # alike and never at once, so perf's INT_MISC.RECOVERY_CYCLES_ANY / 2
    # is this thread's INT_MISC.RECOVERY_CYCLES (the rules' term).
    {"title": "Skylake-SP with SMT on, a cgroup whose sibling runs too (both busy, #core_wide 0)",
     "source": "skylakex", "pmu": "cpu", "scope": "cgroup", "smt": True, "core_wide": 0, "host": "skx-smt-1:10101",
     "labels": {"cgroup": "/system.slice/memcached.service", "unit": "memcached.service"},
     "counts": {"CPU_CLK_UNHALTED.THREAD": 10e9, "IDQ_UOPS_NOT_DELIVERED.CORE": 4e9,
                "UOPS_ISSUED.ANY": 11e9, "UOPS_RETIRED.RETIRE_SLOTS": 10e9,
                "INT_MISC.RECOVERY_CYCLES": 0.25e9},
     "smt_counts": {"CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE": 0, "CPU_CLK_UNHALTED.REF_XCLK": 2.5e9},
     "perf_counts": {"INT_MISC.RECOVERY_CYCLES_ANY": 2 * 0.25e9},
     "unused_ok": ["INT_MISC.RECOVERY_CYCLES"],
     "truth": {"retiring": 0.5, "frontend_bound": 0.2, "bad_speculation": 0.1, "backend_bound": 0.2}},
    # ... per CPU with SMT on, the sibling (CPU 1) idle: perf counting the
    # core (#core_wide 1) sums both siblings, whose _ANY events each count
    # the core's cycles and recovery, and halves them; CPU 0 alone is that
    # core, and CPU 1, with no cycles, has no fraction at all.  Per thread
    # (#core_wide 0) the slots are the same (slots_both_ways).
    {"title": "Skylake-SP with SMT on, per CPU, the sibling idle (#core_wide 1)",
     "source": "skylakex", "pmu": "cpu", "scope": "cpu", "smt": True, "core_wide": 1, "host": "skx-smt-1:10101",
     "labels": {"cpu": "0"},
     "counts": {"CPU_CLK_UNHALTED.THREAD": 12e9, "IDQ_UOPS_NOT_DELIVERED.CORE": 9e9,
                "UOPS_ISSUED.ANY": 21e9, "UOPS_RETIRED.RETIRE_SLOTS": 18e9,
                "INT_MISC.RECOVERY_CYCLES": 0.5e9},
     "smt_counts": {"CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE": 3e9, "CPU_CLK_UNHALTED.REF_XCLK": 3e9},
     "perf_counts": {"CPU_CLK_UNHALTED.THREAD_ANY": 2 * 12e9, "INT_MISC.RECOVERY_CYCLES_ANY": 2 * 0.5e9},
     "unused_ok": ["CPU_CLK_UNHALTED.THREAD", "INT_MISC.RECOVERY_CYCLES",
                   "CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE", "CPU_CLK_UNHALTED.REF_XCLK"],
     "slots_both_ways": True,
     "idle": {"cpu": "1"}},
    # ... per CPU with SMT on, both siblings busy, partly at once: the core
    # (CPUs 0 and 1) ran 12e9 cycles; thread 0 10e9 of them, thread 1 8e9,
    # both 6e9 (the crystal clock is a 100th of the core's).  Per thread
    # the slots are 4 x (THREAD + alone) / 2: 28e9 and 20e9, 48e9 in all,
    # the core's 4 x 12e9.  True splits: thread 0 retiring 0.5, frontend
    # 0.25, bad speculation 0.1, backend 0.15; thread 1 0.3, 0.1, 0.05,
    # 0.55.  core: the core's counts as perf sums them (#core_wide 1),
    # which the per-CPU fractions weighted by their slots must give.
    {"title": "Skylake-SP with SMT on, per CPU, both siblings busy: thread 0 (#core_wide 0)",
     "source": "skylakex", "pmu": "cpu", "scope": "cpu", "smt": True, "core_wide": 0, "host": "skx-smt-2:10101",
     "labels": {"cpu": "0"},
     "counts": {"CPU_CLK_UNHALTED.THREAD": 10e9, "IDQ_UOPS_NOT_DELIVERED.CORE": 7e9,
                "UOPS_ISSUED.ANY": 16.2e9, "UOPS_RETIRED.RETIRE_SLOTS": 14e9,
                "INT_MISC.RECOVERY_CYCLES": 0.15e9},
     "smt_counts": {"CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE": 0.04e9, "CPU_CLK_UNHALTED.REF_XCLK": 0.1e9},
     "perf_counts": {"INT_MISC.RECOVERY_CYCLES_ANY": 0.3e9},
     "unused_ok": ["INT_MISC.RECOVERY_CYCLES"],
     "truth": {"retiring": 0.5, "frontend_bound": 0.25, "bad_speculation": 0.1, "backend_bound": 0.15}},
    {"title": "Skylake-SP with SMT on, per CPU, both siblings busy: thread 1 (#core_wide 0)",
     "source": "skylakex", "pmu": "cpu", "scope": "cpu", "smt": True, "core_wide": 0, "host": "skx-smt-2:10101",
     "labels": {"cpu": "1"},
     "counts": {"CPU_CLK_UNHALTED.THREAD": 8e9, "IDQ_UOPS_NOT_DELIVERED.CORE": 2e9,
                "UOPS_ISSUED.ANY": 6.4e9, "UOPS_RETIRED.RETIRE_SLOTS": 6e9,
                "INT_MISC.RECOVERY_CYCLES": 0.15e9},
     "smt_counts": {"CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE": 0.02e9, "CPU_CLK_UNHALTED.REF_XCLK": 0.08e9},
     "perf_counts": {"INT_MISC.RECOVERY_CYCLES_ANY": 0.3e9},
     "unused_ok": ["INT_MISC.RECOVERY_CYCLES"],
     "truth": {"retiring": 0.3, "frontend_bound": 0.1, "bad_speculation": 0.05, "backend_bound": 0.55},
     "core": {"title": "Skylake-SP with SMT on, the core of CPUs 0 and 1 (#core_wide 1), from the per-CPU fractions weighted by their slots",
              "cpus": ["0", "1"],
              "counts": {"CPU_CLK_UNHALTED.THREAD_ANY": 2 * 12e9, "IDQ_UOPS_NOT_DELIVERED.CORE": 9e9,
                         "UOPS_ISSUED.ANY": 22.6e9, "UOPS_RETIRED.RETIRE_SLOTS": 20e9,
                         "INT_MISC.RECOVERY_CYCLES_ANY": 2 * 0.3e9}}},
    # ... per CPU with SMT off, beside an idle CPU (no pair opened: its
    # slots are 0, not absent, and still give no fraction).
    {"title": "Skylake-SP, per CPU, SMT off (#core_wide 1)",
     "source": "skylakex", "pmu": "cpu", "scope": "cpu", "core_wide": 1, "labels": {"cpu": "0"},
     "counts": {"CPU_CLK_UNHALTED.THREAD": 24e9, "IDQ_UOPS_NOT_DELIVERED.CORE": 30e9,
                "UOPS_ISSUED.ANY": 40e9, "UOPS_RETIRED.RETIRE_SLOTS": 33e9,
                "INT_MISC.RECOVERY_CYCLES": 1.2e9},
     "idle": {"cpu": "1"}},
    # Alder Lake hybrid: one cgroup counted on both core types, each with
    # its own definition (the P-core with Alder Lake's cpu_core metrics,
    # level 2; the E-core, the same Gracemont core as Alder Lake-N's, with
    # that file's).
    {"title": "Alder Lake hybrid: the P-core part of a container",
     "source": "alderlake", "pmu": "cpu_core", "scope": "cgroup",
     "labels": {"cgroup": "/machine.slice/libpod-bb22.scope", "container_id": "bb22", "container": "web"},
     "counts": {"slots": 30e9, "topdown-retiring": 9e9, "topdown-bad-spec": 3e9,
                "topdown-fe-bound": 12e9, "topdown-be-bound": 6e9,
                "topdown-heavy-ops": 1e9, "topdown-br-mispredict": 1.5e9,
                "topdown-fetch-lat": 7e9, "topdown-mem-bound": 4e9}},
    {"title": "Alder Lake hybrid: the E-core part of the same container",
     "source": "alderlaken", "pmu": "cpu_atom", "scope": "cgroup",
     "labels": {"cgroup": "/machine.slice/libpod-bb22.scope", "container_id": "bb22", "container": "web"},
     "counts": {"CPU_CLK_UNHALTED.CORE": 6e9, "TOPDOWN_FE_BOUND.ALL": 9e9,
                "TOPDOWN_BE_BOUND.ALL": 12e9, "TOPDOWN_RETIRING.ALL": 6e9,
                "TOPDOWN_BAD_SPECULATION.ALL": 3e9}},
    # ... counts that do not agree (the three exceed the slots, as a
    # multiplexed or skewed read can make them): bad speculation, 1 - the
    # others, is below 0, and the rules show it, as perf does, unclamped.
    {"title": "Alder Lake E-core, inconsistent counts: bad speculation below 0, not clamped",
     "source": "alderlaken", "pmu": "cpu_atom", "scope": "cgroup", "inconsistent": True,
     "labels": {"cgroup": "/machine.slice/libpod-dd44.scope", "container_id": "dd44", "container": "batch"},
     "counts": {"CPU_CLK_UNHALTED.CORE": 2e9, "TOPDOWN_FE_BOUND.ALL": 3e9,
                "TOPDOWN_BE_BOUND.ALL": 5e9, "TOPDOWN_RETIRING.ALL": 3e9}},
    # AMD Zen 4 (6 slots) and Zen 5 (8 slots).
    {"title": "AMD Zen 4 (6 dispatch slots)",
     "source": "amdzen4", "pmu": "cpu", "scope": "cgroup",
     "labels": {"cgroup": "/user.slice/user-1000.slice/session-2.scope"},
     "counts": {"ls_not_halted_cyc": 10e9, "de_no_dispatch_per_slot.no_ops_from_frontend": 12e9,
                "de_no_dispatch_per_slot.backend_stalls": 21e9, "de_no_dispatch_per_slot.smt_contention": 3e9,
                "de_src_op_disp.all": 24e9, "ex_ret_ops": 21e9}},
    {"title": "AMD Zen 5 (8 dispatch slots), per CPU",
     "source": "amdzen5", "pmu": "cpu", "scope": "cpu", "labels": {"cpu": "7"},
     "counts": {"ls_not_halted_cyc": 10e9, "de_no_dispatch_per_slot.no_ops_from_frontend": 8e9,
                "de_no_dispatch_per_slot.backend_stalls": 36e9, "de_no_dispatch_per_slot.smt_contention": 4e9,
                "de_src_op_disp.all": 32e9, "ex_ret_ops": 28e9}},
    # Arm, perf's sbsa.json, 8 slots (Neoverse V2's caps/slots).
    {"title": "Arm (sbsa.json, 8 slots)",
     "source": "arm64_sbsa", "pmu": "armv8_pmuv3_0", "scope": "cgroup", "slots_per_cycle": 8,
     "labels": {"cgroup": "/kubepods.slice/kubepods-pod2.slice/cri-containerd-cc33.scope", "container_id": "cc33",
                "namespace": "shop", "pod": "api-1", "container": "api"},
     "counts": {"CPU_CYCLES": 5e9, "STALL_SLOT": 24e9, "STALL_SLOT_FRONTEND": 6e9,
                "STALL_SLOT_BACKEND": 18e9, "OP_SPEC": 20e9, "OP_RETIRED": 15e9}},
    # Neoverse N2 (5 slots).  The same true split on both revisions:
    # frontend 0.2, backend 0.3, retiring 0.4, bad speculation 0.1 of
    # 5 x 4e9 slots.  r0p0-r0p2 count one slot a cycle too many in
    # STALL_SLOT and STALL_SLOT_FRONTEND (+4e9 each here), which perf's
    # neoverse-n2-v2 metrics subtract; r0p3 does not, and is sbsa.json's.
    {"title": "Neoverse N2 r0p0 (erratum: stall slots one a cycle too many)",
     "source": "neoverse_n2_r0p0", "pmu": "armv8_pmuv3_0", "scope": "cgroup", "slots_per_cycle": 5,
     "host": "neoverse-n2-r0p0-1:10101",
     "labels": {"cgroup": "/system.slice/envoy.service", "unit": "envoy.service"},
     "counts": {"CPU_CYCLES": 4e9, "STALL_SLOT": 14e9, "STALL_SLOT_FRONTEND": 8e9,
                "STALL_SLOT_BACKEND": 6e9, "OP_SPEC": 10e9, "OP_RETIRED": 8e9},
     "truth": {"frontend_bound": 0.2, "backend_bound": 0.3, "retiring": 0.4, "bad_speculation": 0.1}},
    {"title": "Neoverse N2 r0p3 (no erratum: sbsa.json)",
     "source": "arm64_sbsa", "pmu": "armv8_pmuv3_0", "scope": "cgroup", "slots_per_cycle": 5,
     "host": "neoverse-n2-r0p3-1:10101",
     "labels": {"cgroup": "/system.slice/envoy.service", "unit": "envoy.service"},
     "counts": {"CPU_CYCLES": 4e9, "STALL_SLOT": 10e9, "STALL_SLOT_FRONTEND": 4e9,
                "STALL_SLOT_BACKEND": 6e9, "OP_SPEC": 10e9, "OP_RETIRED": 8e9},
     "truth": {"frontend_bound": 0.2, "backend_bound": 0.3, "retiring": 0.4, "bad_speculation": 0.1}},
]

# The denominator of each definition's expressions, in issue slots: the
# sum of the four level-1 events (perf metrics), else the pipeline width
# times the cycles of the event perf's slots use.
CYCLES = {"intel_gp": "CPU_CLK_UNHALTED.THREAD", "intel_atom": "CPU_CLK_UNHALTED.CORE",
          "amd_pipeline": "ls_not_halted_cyc", "arm_sbsa": "CPU_CYCLES", "arm_n2_r0p0": "CPU_CYCLES"}


def slots_per_minute(definition, counts, width, ev=None):
    if definition == "intel_gp":
        return ev.value("tma_info_thread_slots")
    if definition == "intel_perf_metrics":
        return sum(counts[e] for e in ("topdown-fe-bound", "topdown-bad-spec", "topdown-retiring", "topdown-be-bound"))
    return width * counts[CYCLES[definition]]


def check_invariants(case, values):
    """On consistent counts, perf's level-1 classes are each within 0..1
    and sum to 1; where a case knows the true split, perf's values are
    it.  On inconsistent counts (a case says so) some class must leave
    0..1, or the case tests nothing."""
    l1 = {c: v for c, v in values.items() if c in LEVEL1}
    out = [c for c, v in l1.items() if v < -1e-9 or v > 1 + 1e-9]
    if case.get("inconsistent"):
        if not out:
            raise SystemExit(f"{case['title']}: inconsistent counts, yet every class is within 0..1")
        return
    if out:
        raise SystemExit(f"{case['title']}: {out} outside 0..1: {l1}")
    if abs(sum(l1.values()) - 1) > 1e-6:
        raise SystemExit(f"{case['title']}: level 1 sums to {sum(l1.values())}: {l1}")
    for c, want in case.get("truth", {}).items():
        if abs(values[c] - want) > 1e-9:
            raise SystemExit(f"{case['title']}: perf's {c} is {values[c]}, the truth {want}")


LEVEL1 = {"frontend_bound", "bad_speculation", "backend_bound", "retiring", "smt_contention"}


def core_test(case, src, width, host, sources, per_cpu_values):
    """The core of case["core"]["cpus"] as perf counts it (#core_wide 1,
    both siblings' counts summed): its fractions are the per-CPU ones
    weighted by each CPU's slots, which the dashboard's query computes."""
    core = case["core"]
    ev = Evaluator(src, core["counts"], width, True, 1, sources)
    slots = sum(per_cpu_values[host][c][1].value("tma_info_thread_slots") for c in core["cpus"])
    if abs(slots - ev.value("tma_info_thread_slots")) > 1e-6 * slots:
        raise SystemExit(f"{core['title']}: the threads' slots sum to {slots}, the core's are "
                         f"{ev.value('tma_info_thread_slots')}")
    samples = []
    for cls, mname in sorted(src["classes"].items()):
        v = ev.eval(ev.metrics[mname])
        w = sum(per_cpu_values[host][c][0][cls] * per_cpu_values[host][c][1].value("tma_info_thread_slots")
                for c in core["cpus"]) / slots
        if abs(v - w) > 1e-9:
            raise SystemExit(f"{core['title']}: {cls} {v} per core, {w} from the threads")
        samples.append(({"class": cls}, math.floor(v * 1e6 + 0.5), f"{mname} (#core_wide 1) = {v:.9f}"))
    sel = labelstr({"instance": host, "cpu": "|".join(core["cpus"]), "pmu": case["pmu"]}).replace('cpu="', 'cpu=~"')
    expr = (f"round(sum by (class) (cpu:pmu_topdown_fraction:rate5m{sel}"
            f" * on (instance, job, group, pmu, definition, cpu) group_left () pmu:topdown_slots:rate5m{sel})"
            f" / scalar(sum(pmu:topdown_slots:rate5m{sel})) * 1e6)")
    return (core["title"], src, expr, samples)


def labelstr(d):
    return "{" + ",".join(f'{k}="{v}"' for k, v in d.items()) + "}"


def yq(s):
    return "'" + s.replace("'", "''") + "'"


def build(fixture):
    sources = fixture["sources"]
    series, tests = [], []
    info_done = set()
    seen_defs = set()
    per_cpu_values = {}
    for case in CASES:
        src = sources[case["source"]]
        width = case.get("slots_per_cycle", src.get("slots_per_cycle"))
        if "unit" in src and src["unit"] != case["pmu"]:
            raise SystemExit(f"{case['title']}: {src['path']} has these metrics for PMU {src['unit']}, not {case['pmu']}")
        host = case.get("host", HOSTS[case["source"]])
        common = {"group": "td", "pmu": case["pmu"], "instance": host, "job": "pmu_exporter"}
        key = (host, case["pmu"])
        if key not in info_done:
            info_done.add(key)
            series.append((f"info of {case['pmu']}",
                           "pmu_exporter_topdown_info" + labelstr({**common, "definition": src["definition"], "level": str(src["levels"])}),
                           "1x10"))
            if width is not None:
                series.append((f"width of {case['pmu']}",
                               "pmu_exporter_topdown_slots_per_cycle" + labelstr({**common, "definition": src["definition"]}),
                               f"{width:g}x10"))
        smt_common = {**common, "group": SMT_GROUP}
        if "smt_counts" in case and (host, case["pmu"], SMT_GROUP) not in info_done:
            info_done.add((host, case["pmu"], SMT_GROUP))
            series.append((f"info of {case['pmu']}'s second group",
                           "pmu_exporter_topdown_info" + labelstr({**smt_common, "definition": src["definition"], "level": str(src["levels"])}),
                           "1x10"))
        metric = "pmu_cgroup_events_total" if case["scope"] == "cgroup" else "pmu_cpu_events_total"
        served = [(common, case["counts"]), (smt_common, case.get("smt_counts", {}))]
        for com, counts in served:
            for e, n in counts.items():
                lab = {**case["labels"], **com, "event": e}
                series.append((case["title"], metric + labelstr(lab), f"0+{n:.10g}x10"))
        if "idle" in case:
            for com, counts in served:
                for e in counts:
                    lab = {**case["idle"], **com, "event": e}
                    series.append((case["title"] + ", the idle sibling", metric + labelstr(lab), "0+0x10"))
        all_counts = {**case["counts"], **case.get("smt_counts", {}), **case.get("perf_counts", {})}
        ev = Evaluator(src, all_counts, width, case.get("smt", False), case.get("core_wide"), sources)
        samples, values = [], {}
        per_cpu_values.setdefault(host, {})[case["labels"].get("cpu")] = (values, ev)
        for cls, mname in sorted(src["classes"].items()):
            v = values[cls] = ev.eval(ev.metrics[mname])
            rounded = math.floor(v * 1e6 + 0.5)
            lab = {**case["labels"], **common, "definition": src["definition"], "class": cls,
                   "level": "1" if cls in LEVEL1 else "2"}
            samples.append((lab, rounded, f"{mname} = {v:.9f}"))
        check_invariants(case, values)
        unused = {k.lower() for k in {**case["counts"], **case.get("smt_counts", {})}} - ev.used
        # TOPDOWN_BAD_SPECULATION.ALL (Atom) is not opened by the preset;
        # the case serves it to show the rules do not need it.
        unused -= {"topdown_bad_speculation.all"}
        unused -= {e.lower() for e in case.get("unused_ok", [])}
        if unused:
            raise SystemExit(f"{case['title']}: counts no formula used: {sorted(unused)}")
        rec = "cgroup:pmu_topdown_fraction:rate5m" if case["scope"] == "cgroup" else "cpu:pmu_topdown_fraction:rate5m"
        sel = labelstr({"instance": host, **({"cgroup": case["labels"]["cgroup"]} if case["scope"] == "cgroup" else {"cpu": case["labels"]["cpu"]}),
                        "pmu": case["pmu"]})
        tests.append((case["title"], src, f"round({rec}{sel} * 1e6)", samples))
        if case.get("slots_both_ways"):
            # perf's slots per thread (#core_wide 0) on the served counts
            # are its slots per core (#core_wide 1) here.
            ev0 = Evaluator(src, all_counts, width, case.get("smt", False), 0, sources)
            a, b = ev.value("tma_info_thread_slots"), ev0.value("tma_info_thread_slots")
            if abs(a - b) > 1e-6 * a:
                raise SystemExit(f"{case['title']}: slots {a} per core, {b} per thread")
        if "core" in case:
            tests.append(core_test(case, src, width, host, sources, per_cpu_values))
        scope = {"cgroup": case["labels"]["cgroup"]} if case["scope"] == "cgroup" else {"cpu": case["labels"]["cpu"]}
        sc = case.get("smt_counts", {})
        if sc.get("CPU_CLK_UNHALTED.REF_XCLK"):
            # The thread's share of its core's cycles, perf's (1 +
            # ONE_THREAD_ACTIVE / REF_XCLK) / 2, under the first group.
            share = (1 + sc["CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE"] / sc["CPU_CLK_UNHALTED.REF_XCLK"]) / 2
            tests.append((case["title"] + ", the thread's share of its core", src,
                          f"round(pmu:topdown_thread_share:rate5m{labelstr({'instance': host, **scope, 'pmu': case['pmu']})} * 1e6)",
                          [({**case["labels"], **common, "definition": src["definition"]}, math.floor(share * 1e6 + 0.5),
                            f"(1 + ONE_THREAD_ACTIVE / REF_XCLK) / 2 = {share:.9f}")]))
        if "idle" in case:
            isel = labelstr({"instance": host, **case["idle"], "pmu": case["pmu"]})
            tests.append((case["title"] + ": the idle sibling has no fraction", src, f"{rec}{isel}", []))
        # The intermediate records: the slots per second, and (once a
        # definition) each event's rate with the definition, and the
        # fractions before the split by scope.
        lab = {**case["labels"], **common, "definition": src["definition"]}
        per_s = slots_per_minute(src["definition"], case["counts"], width, ev) / 60
        tests.append((case["title"] + ", issue slots per second", src,
                      f"round(pmu:topdown_slots:rate5m{labelstr({'instance': host, **scope, 'pmu': case['pmu']})})",
                      [(lab, math.floor(per_s + 0.5), f"{per_s:.3f}")]))
        if src["definition"] not in seen_defs:
            seen_defs.add(src["definition"])
            ev0, n0 = next(iter(case["counts"].items()))
            r = n0 / 60
            tests.append((case["title"] + f", {ev0} per second", src,
                          f"round(pmu:topdown_events:rate5m{labelstr({'instance': host, **scope, 'pmu': case['pmu'], 'event': ev0})})",
                          [({**lab, "event": ev0}, math.floor(r + 0.5), f"{r:.3f}")]))
            lab0 = samples[0][0]
            tests.append((case["title"] + ", before the split by scope", src,
                          f"round(pmu:topdown_fraction:rate5m{labelstr({'instance': host, **scope, 'pmu': case['pmu'], 'class': lab0['class']})} * 1e6)",
                          [samples[0]]))
    return series, tests


def render(fixture):
    series, tests = build(fixture)
    out = []
    w = out.append
    w("# topdown.yml - GENERATED by topdown_cases.py from perf's metric expressions")
    w("# (tests/fixtures/topdown_rules/perf-metrics.json); do not edit, run")
    w("#   python3 contrib/prometheus/tests/topdown_cases.py > contrib/prometheus/tests/topdown.yml")
    w("# Each expected value is perf's expression evaluated on the same counts,")
    w("# times 1e6, rounded; the comment beside it gives perf's metric and value.")
    w("rule_files:")
    w("  - ../pmu_exporter.rules.yml")
    w("evaluation_interval: 1m")
    w("group_eval_order: [pmu_exporter.settings, pmu_exporter.records, pmu_exporter.alerts]")
    w("")
    w("tests:")
    w("  - interval: 1m")
    w("    input_series:")
    last = None
    for title, s, values in series:
        if title != last:
            w(f"      # {title}")
            last = title
        w(f"      - series: {yq(s)}")
        w(f"        values: '{values}'")
    w("    promql_expr_test:")
    for title, src, expr, samples in tests:
        w(f"      # {title}: {src['path']} @ {src['commit'][:12]}")
        w("      - eval_time: 10m")
        w(f"        expr: {yq(expr)}")
        if not samples:
            w("        exp_samples: []")
            continue
        w("        exp_samples:")
        for lab, v, note in samples:
            w(f"          # {note}")
            w(f"          - labels: {yq(labelstr(lab))}")
            w(f"            value: {v}")
    return "\n".join(out) + "\n"


def main():
    with open(FIXTURE) as f:
        fixture = json.load(f)
    text = render(fixture)
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        with open(sys.argv[2]) as f:
            if f.read() != text:
                sys.stderr.write(f"{sys.argv[2]} is not what topdown_cases.py writes\n")
                return 1
        return 0
    if len(sys.argv) != 1:
        sys.stderr.write(__doc__)
        return 2
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
