#!/usr/bin/env python3
"""expo_check.py - one scrape's checks for bench/soak_tenant.sh that
promtool does not make (issue 50).

  expo_check.py FILE [PREFIX...]

Prints one line: "duplicates N" (samples whose metric name and label
set, in any order, an earlier sample of the scrape already had: which
Prometheus would store once, dropping the other silently), then for
each PREFIX how many cgroups whose "cgroup" label starts with it have a
pmu_cgroup_events_total series, and how many of those carry a
"container" label (named), as COUNTED/NAMED.  With a duplicate, the first one found
follows on a line of its own.  Exit status 0 unless FILE is unreadable.
"""
import re
import sys

LINE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+\S+(?:\s+\S+)?$')
LABEL = re.compile(r'\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?')


def labels(text):
    out, pos = [], 0
    while pos < len(text):
        m = LABEL.match(text, pos)
        if not m:
            return None             # not parsed: promtool says why
        out.append((m.group(1), m.group(2)))
        pos = m.end()
    return tuple(sorted(out))


def main():
    prefixes = sys.argv[2:]
    seen, dup, first = set(), 0, None
    cgroups = [set() for _ in prefixes]
    named = [set() for _ in prefixes]
    with open(sys.argv[1], encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            m = LINE.match(line.rstrip("\n"))
            if not m:
                continue
            ls = labels(m.group(2) or "")
            if ls is None:
                continue
            k = (m.group(1), ls)
            if k in seen:
                dup += 1
                first = first or line.rstrip("\n")
            seen.add(k)
            if m.group(1) == "pmu_cgroup_events_total":
                d = dict(ls)
                cg = d.get("cgroup", "")
                for i, p in enumerate(prefixes):
                    if cg.startswith(p):
                        cgroups[i].add(cg)
                        if "container" in d:
                            named[i].add(cg)
    print("duplicates", dup, *["%d/%d" % (len(c), len(n))
                               for c, n in zip(cgroups, named)])
    if first:
        print(first)


if __name__ == "__main__":
    main()
