#!/usr/bin/python3
"""node_overhead_plot.py - the table and the plot of bench/node_overhead.sh.

    bench/node_overhead_plot.py RAW.tsv OUT.png > TABLE.md

RAW.tsv has one line per part, round, condition, metric and value, as
bench/node_overhead.sh writes it.  Every figure is the median over the
rounds with its min-max; a ratio to "off" is taken within each round
first (the conditions of one round ran one after the other), then its
median and min-max over the rounds.  Prints the tables in Markdown and
draws OUT.png: each workload's throughput relative to off, the agents'
CPU, and the scrape's time and bytes.
"""
import csv
import statistics
import sys
from collections import defaultdict

CONDS = ["off", "perf", "bpf", "perfstat", "default"]
WORK = [  # metric, label, higher is better, loss target per condition
    ("http_rps", "HTTP requests/s", True, {"perf": 0.5, "bpf": 0.5}),
    ("http_p99_ms", "HTTP p99, ms", False, {}),
    ("pingpong_rtps", "ping-pong round trips/s", True, {"perf": 2, "bpf": 1}),
    ("pingpong_p99_us", "ping-pong p99, us", False, {}),
    ("stream_MBps", "memory stream, MB/s", True, {"perf": 0.5, "bpf": 0.5}),
    ("compress_MBps", "compression, MB/s", True, {"perf": 0.5, "bpf": 0.5}),
]
NODE = [
    ("node_cpu_pct", "node CPU busy, % of all CPUs"),
    ("node_switches_per_s", "node context switches/s"),
    ("agent_cpu_pct_of_core", "agent CPU, % of one core"),
    ("agent_rss_kb", "agent RSS, kB"),
]


def load(path):
    """{part: {(condition, metric): {round: value}}}"""
    data = defaultdict(lambda: defaultdict(dict))
    with open(path, newline="") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            data[row["part"]][(row["condition"], row["metric"])][
                row["round"]] = float(row["value"])
    return data


def spread(values):
    """(median, min, max) of a list, or None when empty."""
    if not values:
        return None
    return statistics.median(values), min(values), max(values)


def fmt(s, digits=1):
    if s is None:
        return "-"
    m, lo, hi = s
    return f"{m:.{digits}f} ({lo:.{digits}f}-{hi:.{digits}f})"


def ratios(node, cond, metric):
    """Per round, cond / off - 1, in percent."""
    off = node[("off", metric)]
    cur = node[(cond, metric)]
    return [100 * (cur[r] / off[r] - 1) for r in cur if off.get(r)]


def work_tables(node):
    out = ["| figure | " + " | ".join(CONDS) + " |",
           "|---|" + "---|" * len(CONDS)]
    for metric, label, _, _ in WORK:
        cells = [fmt(spread(list(node[(c, metric)].values()))) for c in CONDS]
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    for metric, label in NODE:
        digits = {"agent_cpu_pct_of_core": 3, "node_switches_per_s": 0,
                  "agent_rss_kb": 0}.get(metric, 1)
        cells = [fmt(spread(list(node[(c, metric)].values())), digits)
                 for c in CONDS]
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    out += ["", "Change against off in the same round, % (median, min-max;"
            " the target where the issue sets one):", "",
            "| figure | " + " | ".join(CONDS[1:]) + " |",
            "|---|" + "---|" * (len(CONDS) - 1)]
    for metric, label, better_up, targets in WORK:
        cells = []
        for c in CONDS[1:]:
            s = spread(ratios(node, c, metric))
            cell = "-" if s is None else f"{s[0]:+.2f} ({s[1]:+.2f}..{s[2]:+.2f})"
            if c in targets and s is not None and better_up:
                met = -s[0] <= targets[c]
                cell += f" [loss <= {targets[c]}%: {'met' if met else 'NOT met'}]"
            cells.append(cell)
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    return out


def scrape_table(scrape):
    out = ["| cgroups x events | bytes | gzip bytes | scrape ms |"
           " same, cached ms | daemon RSS kB |", "|---|---|---|---|---|---|"]
    for n in (100, 1000):
        for e in (2, 4, 10):
            c = f"n{n}_e{e}"
            cells = [fmt(spread(list(scrape[(c, m)].values())), d) for m, d in
                     (("scrape_bytes", 0), ("scrape_gzip_bytes", 0),
                      ("scrape_ms", 2), ("scrape_cached_ms", 2),
                      ("agent_rss_kb", 0))]
            out.append(f"| {n} x {e} | " + " | ".join(cells) + " |")
    big = scrape[("n1000_e10", "scrape_ms")].values()
    size = scrape[("n1000_e10", "scrape_bytes")].values()
    if big and size:
        ms, mb = statistics.median(big), statistics.median(size) / 1e6
        out += ["", f"1,000 x 10: {ms:.1f} ms (target <= 50: "
                f"{'met' if ms <= 50 else 'NOT met'}), {mb:.2f} MB (target"
                f" <= 2: {'met' if mb <= 2 else 'NOT met'})."]
    return out


def plot_work(ax, node):
    width = 0.2
    for k, c in enumerate(CONDS[1:]):
        meds, los, his = [], [], []
        for metric, _, _, _ in [w for w in WORK if w[2]]:
            s = spread(ratios(node, c, metric)) or (0, 0, 0)
            meds.append(s[0])
            los.append(s[0] - s[1])
            his.append(s[2] - s[0])
        xs = [i + (k - 1.5) * width for i in range(len(meds))]
        ax.bar(xs, meds, width, yerr=[los, his], capsize=3, label=c)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks(range(4))
    ax.set_xticklabels(["HTTP req/s", "ping-pong", "stream", "compress"])
    # One disturbed round can stretch a bar's min-max past +100%.
    ax.set_ylim(-60, 40)
    ax.set_ylabel("throughput vs off, %")
    ax.set_title("workloads (median, min-max; axis cut at -60..+40)")
    ax.legend(fontsize=8)


def plot_agent(ax, node):
    conds = CONDS[1:]
    s = [spread(list(node[(c, "agent_cpu_pct_of_core")].values()))
         or (0, 0, 0) for c in conds]
    ax.bar(conds, [x[0] for x in s],
           yerr=[[x[0] - x[1] for x in s], [x[2] - x[0] for x in s]],
           capsize=3, color="tab:gray")
    ax.axhline(0.5, color="red", linestyle="--", linewidth=0.8,
               label="target 0.5%")
    ax.set_ylabel("% of one core")
    ax.set_title("the agent's CPU, 100 containers")
    ax.legend(fontsize=8)


def plot_scrape(ax, scrape):
    for n, style, color in ((100, "o-", "tab:blue"), (1000, "s-", "tab:red")):
        es = (2, 4, 10)
        ms = [statistics.median(scrape[(f"n{n}_e{e}", "scrape_ms")].values()
                                or [0]) for e in es]
        mb = [statistics.median(scrape[(f"n{n}_e{e}", "scrape_bytes")]
                                .values() or [0]) / 1e6 for e in es]
        ax.plot(es, ms, style, color=color, label=f"{n} cgroups, ms")
        ax.plot(es, mb, style[0] + ":", color=color, label=f"{n} cgroups, MB")
    ax.set_xlabel("events per cgroup")
    ax.set_xticks((2, 4, 10))
    ax.set_title("one scrape: time (ms) and size (MB)")
    ax.legend(fontsize=8)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: node_overhead_plot.py RAW.tsv OUT.png")
    data = load(sys.argv[1])
    print("\n".join(work_tables(data["node"])))
    print()
    print("\n".join(scrape_table(data["scrape"])))
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 3, figsize=(16, 4.5))
    plot_work(axes[0], data["node"])
    plot_agent(axes[1], data["node"])
    plot_scrape(axes[2], data["scrape"])
    fig.suptitle("bench/node_overhead.sh: 100 containers on a busy node")
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=80)


if __name__ == "__main__":
    main()
