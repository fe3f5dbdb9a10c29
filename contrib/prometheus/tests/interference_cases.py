#!/usr/bin/env python3
"""interference_cases.py - the simulated fleet of the replica rules' test.

Writes the promtool unit test contrib/prometheus/tests/interference.yml:
nodes on three CPU models (n1-n5 one, n6-n7 another, h1-h5 a hybrid one
with two core PMUs; n8 a hybrid machine that runs nothing), kube-state-metrics' kube_pod_owner and kube_replicaset_owner
in its own format, pmu_exporter's per-container counts as the daemon names
them, its pmu_exporter_cpu_info, and its suspects for one victim; then the
records' values and the alerts, firing and silent.  Every count is a
straight line whose slope changes at T0 (70 m), so each CPI and CPU use is
exact once the 5-minute window is past the change.

    interference_cases.py            print the test file
    interference_cases.py --check F  exit 1 unless F is what it prints

Nothing here reads the rules: a wrong rule fails `promtool test rules` on
the file this writes.

The workloads (namespace shop unless said), CPI before -> after T0, CPU use
in CPU-seconds per second:
  web     Deployment (ReplicaSet web-7d4b9): 5 replicas on model A, CPI 1.0,
          1.1, 0.9, 1.0 and the victim web-7d4b9-n1a 1.0 -> 1.5 (its node
          n1 runs the antagonist batch/etl-0); 2 replicas on model B at 1.3
          and 1.32, judged apart (2 < 5 replicas): never outliers of model A.
          The victim fires, naming batch/etl-0's container etl.
  api     Deployment, 5 replicas on model A, all 1.0 -> 1.6: a change all
          replicas share.  Silent, and the IPC alert stays silent too (the
          replica comparison judges them).
  cache   StatefulSet, 3 replicas: cache-0 1.0 -> 2.0.  Too few replicas:
          the replica alert is silent, the 1 h IPC alert fires.
  queue   Deployment, 4 replicas (one fewer than the minimum): queue-n1
          1.0 -> 2.0, silent.
  worker  Deployment, 6 replicas: worker-n1 uses 0.24 CPU-s/s (under the
          floor) and goes 1.0 -> 2.0: not a replica, silent; worker-n2 uses
          0.26 and counts: the spec has 5 replicas.
  edge-a  Deployment, others 1.0, 1.2, 1.0, 1.2 (mean 1.1, sigma 0.1):
          edge-a-n1 at 1.32 is above mean + 2 sigma (1.3) and 10 % (1.21):
          fires, and no suspect is named.
  edge-b  the same spec; edge-b-n1 at 1.28: above 10 %, under 2 sigma: silent.
  edge-c  others 1.0, 1.02, 0.98, 1.0 (mean 1.0, sigma 0.01414): edge-c-n1
          at 1.08 is above 2 sigma (1.028), under 10 %: silent.
  hy      Deployment on 5 hybrid nodes (h1-h5), counted on cpu_core and
          cpu_atom: hy-6b7-h1's P-core CPI 0.8 -> 1.16 fires with
          pmu="cpu_core"; the E-core copies (1.6) are judged apart.
  legacy  a ReplicaSet no Deployment owns; monitor a DaemonSet; a Job's pod
          (batch/etl-0) has no workload.
"""
import sys

T0 = 70          # minutes: the change
END = 100        # minutes of samples
INSTR = 60e9     # instructions a minute, every container (1e9/s)
JOB = 'pmu_exporter'
KSM = 'instance="ksm:8080",job="kube-state-metrics"'

MODELS = {
    'A': dict(vendor='GenuineIntel', family='6', model='143',
              model_name='Intel(R) Xeon(R) Platinum 8480+'),
    'B': dict(vendor='AuthenticAMD', family='25', model='17',
              model_name='AMD EPYC 9654 96-Core Processor'),
    'H': dict(vendor='GenuineIntel', family='6', model='151',
              model_name='12th Gen Intel(R) Core(TM) i9-12900K'),
}
HYBRID_PMUS = ('cpu_atom', 'cpu_core')
NODES = {'n1': 'A', 'n2': 'A', 'n3': 'A', 'n4': 'A', 'n5': 'A', 'n6': 'B', 'n7': 'B',
         'h1': 'H', 'h2': 'H', 'h3': 'H', 'h4': 'H', 'h5': 'H'}


def inst(node):
    return f'{node}:10101'


def fmt(v):
    return repr(float(v)).replace('.0e', 'e') if v != int(v) else str(int(v))


def counter(before, after):
    """A counter growing by `before` a minute until T0, then by `after`."""
    if before == after:
        return f'0+{fmt(before)}x{END}'
    return f'0+{fmt(before)}x{T0} {fmt(before * T0 + after)}+{fmt(after)}x{END - T0 - 1}'


class Container:
    n = 0

    def __init__(self, ns, pod, container, node, cpi, cpi_after=None, cpu=0.5, owner=None):
        Container.n += 1
        self.ns, self.pod, self.container, self.node = ns, pod, container, node
        self.cpi, self.cpi_after = cpi, cpi if cpi_after is None else cpi_after
        self.cpu, self.owner = cpu, owner
        self.pmu = None
        self.uid = f'00000000-0000-4000-8000-{Container.n:012d}'
        self.id = f'{Container.n:064x}'
        self.cgroup = (f'/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod'
                       f'{self.uid.replace("-", "_")}.slice/cri-containerd-{self.id}.scope')

    def labels(self):
        return (f'cgroup="{self.cgroup}",container_id="{self.id}",namespace="{self.ns}",'
                f'pod="{self.pod}",container="{self.container}",image="registry.example/{self.container}:1",'
                f'pod_uid="{self.uid}"')

    def copy_on(self, pmu, cpi, cpi_after):
        """The same container's counts on one core PMU of a hybrid node."""
        c = Container.__new__(Container)
        c.__dict__.update(self.__dict__)
        c.pmu, c.cpi, c.cpi_after = pmu, cpi, cpi_after
        return c

    def series(self):
        l = self.labels()
        i = f'instance="{inst(self.node)}",job="{JOB}"'
        g = f'group="ipc",pmu="{self.pmu}"' if self.pmu else 'group="ipc"'
        return [
            (f'pmu_cgroup_events_total{{{l},{g},event="cycles",{i}}}',
             counter(self.cpi * INSTR, self.cpi_after * INSTR)),
            (f'pmu_cgroup_events_total{{{l},{g},event="instructions",{i}}}', counter(INSTR, INSTR)),
            (f'pmu_cgroup_enabled_seconds_total{{{l},{g},{i}}}', counter(self.cpu * 60, self.cpu * 60)),
        ]


def owner_series(c):
    """kube_pod_owner as kube-state-metrics serves it (namespace, pod, uid, owner_*)."""
    kind, name = c.owner
    return (f'kube_pod_owner{{namespace="{c.ns}",pod="{c.pod}",uid="{c.uid}",owner_kind="{kind}",'
            f'owner_name="{name}",owner_is_controller="true",{KSM}}}', f'1x{END}')


def rs_series(ns, rs, kind, name, controller):
    return (f'kube_replicaset_owner{{namespace="{ns}",replicaset="{rs}",owner_kind="{kind}",'
            f'owner_name="{name}",owner_is_controller="{controller}",{KSM}}}', f'1x{END}')


def deployment(name, rs, nodes_cpis, **kw):
    out = []
    for node, cpi, after, *rest in nodes_cpis:
        extra = dict(kw)
        if rest:
            extra['cpu'] = rest[0]
        out.append(Container('shop', f'{rs}-{node}', name, node, cpi, after, owner=('ReplicaSet', rs), **extra))
    return out


# The fleet.
web = deployment('web', 'web-7d4b9', [('n1', 1.0, 1.45), ('n2', 1.0, 1.0), ('n3', 1.05, 1.05), ('n4', 0.95, 0.95),
                                      ('n5', 1.0, 1.0), ('n6', 1.3, 1.3), ('n7', 1.32, 1.32)])
api = deployment('api', 'api-5c9f8d7b6', [(n, 1.0, 1.6) for n in ('n1', 'n2', 'n3', 'n4', 'n5')])
cache = [Container('shop', f'cache-{k}', 'cache', n, 1.0, 2.0 if k == 0 else 1.0, owner=('StatefulSet', 'cache'))
         for k, n in enumerate(('n1', 'n2', 'n3'))]
queue = deployment('queue', 'queue-77c8d', [('n1', 1.0, 2.0), ('n2', 1.0, 1.0), ('n3', 1.0, 1.0), ('n4', 1.0, 1.0)])
worker = deployment('worker', 'worker-6f5d4', [('n1', 1.0, 2.0, 0.24), ('n2', 1.0, 1.0, 0.26), ('n3', 1.0, 1.0),
                                               ('n4', 1.0, 1.0), ('n5', 1.0, 1.0), ('n2', 1.0, 1.0)])
worker[5].pod = 'worker-6f5d4-n2b'
edge_a = deployment('edge-a', 'edge-a-5d6', [('n1', 1.1, 1.32), ('n2', 1.0, 1.0), ('n3', 1.2, 1.2),
                                             ('n4', 1.0, 1.0), ('n5', 1.2, 1.2)])
edge_b = deployment('edge-b', 'edge-b-5d6', [('n1', 1.1, 1.28), ('n2', 1.0, 1.0), ('n3', 1.2, 1.2),
                                             ('n4', 1.0, 1.0), ('n5', 1.2, 1.2)])
edge_c = deployment('edge-c', 'edge-c-5d6', [('n1', 1.0, 1.08), ('n2', 1.0, 1.0), ('n3', 1.02, 1.02),
                                             ('n4', 0.98, 0.98), ('n5', 1.0, 1.0)])
# hy: a Deployment on five hybrid nodes, each replica counted on both core
# PMUs (E-cores at twice the P-cores' CPI); on the P-cores, hy-6b7-h1 goes
# 0.8 -> 1.16 and fires, labelled pmu="cpu_core"; the E-core copies are a
# spec of their own.
hy = []
for node, core in (('h1', (0.8, 1.16)), ('h2', (0.8, 0.8)), ('h3', (0.82, 0.82)), ('h4', (0.78, 0.78)),
                   ('h5', (0.8, 0.8))):
    c = Container('shop', f'hy-6b7-{node}', 'hy', node, 0, owner=('ReplicaSet', 'hy-6b7'))
    hy += [c.copy_on('cpu_atom', 1.6, 1.6), c.copy_on('cpu_core', *core)]
legacy = [Container('shop', 'legacy-rs-x1', 'legacy', 'n2', 1.0, owner=('ReplicaSet', 'legacy-rs'))]
monitor = [Container('kube-system', 'node-monitor-h7k', 'monitor', 'n1', 1.0, owner=('DaemonSet', 'node-monitor'))]
etl = Container('batch', 'etl-0', 'etl', 'n1', 1.2, 1.2, cpu=2.0, owner=('Job', 'etl'))
# steady: steady-4e1-n2 at 1.5 since its first sample, beside others at
# 1.0: what a steady antagonist present since before the victim's first
# sample does, which no node can tell from the workload's own CPI (the
# daemon names no suspect).  The fleet sees it before T0 and after.
steady = deployment('steady', 'steady-4e1', [('n2', 1.5, 1.5), ('n1', 1.0, 1.0), ('n3', 1.0, 1.0),
                                             ('n4', 1.0, 1.0), ('n5', 1.0, 1.0)])
ALL = web + api + cache + queue + worker + edge_a + edge_b + edge_c + hy + legacy + monitor + [etl] + steady
VICTIM = web[0]


def q(s):
    """A YAML single-quoted scalar."""
    return "'" + s.replace("'", "''") + "'"


def input_series():
    out = []
    for node, m in NODES.items():
        M = MODELS[m]
        for pmu in HYBRID_PMUS if m == 'H' else ('cpu',):
            out.append((f'pmu_exporter_cpu_info{{vendor="{M["vendor"]}",family="{M["family"]}",model="{M["model"]}",'
                        f'model_name="{M["model_name"]}",pmu="{pmu}",instance="{inst(node)}",job="{JOB}"}}', f'1x{END}'))
    # n8: hybrid, one series per core PMU.
    for pmu in ('cpu_atom', 'cpu_core'):
        out.append((f'pmu_exporter_cpu_info{{vendor="GenuineIntel",family="6",model="151",'
                    f'model_name="12th Gen Intel(R) Core(TM) i9-12900K",pmu="{pmu}",instance="n8:10101",job="{JOB}"}}',
                    f'1x{END}'))
    for c in ALL:
        out += c.series()
        if c.pmu != 'cpu_atom':		# one kube_pod_owner per pod
            out.append(owner_series(c))
    for rs, dep in (('hy-6b7', 'hy'), ('web-7d4b9', 'web'), ('api-5c9f8d7b6', 'api'), ('queue-77c8d', 'queue'),
                    ('worker-6f5d4', 'worker'), ('edge-a-5d6', 'edge-a'), ('edge-b-5d6', 'edge-b'),
                    ('edge-c-5d6', 'edge-c'), ('steady-4e1', 'steady')):
        out.append(rs_series('shop', rs, 'Deployment', dep, 'true'))
    out.append(rs_series('shop', 'legacy-rs', '<none>', '<none>', '<none>'))
    # The daemon's suspects for the victim on n1, from 2 minutes after T0:
    # the victim's labels, the suspect's prefixed suspect_, the rank.
    sus = [('1', 0.82, f'suspect_cgroup="{etl.cgroup}",suspect_container_id="{etl.id}",suspect_namespace="batch",'
                        f'suspect_pod="etl-0",suspect_container="etl",suspect_image="registry.example/etl:1",'
                        f'suspect_pod_uid="{etl.uid}"'),
           ('2', 0.41, 'suspect_cgroup="/system.slice/backup.service",suspect_unit="backup.service"')]
    for rank, corr, sl in sus:
        out.append((f'pmu_cgroup_interference_suspect{{{VICTIM.labels()},{sl},rank="{rank}",'
                    f'instance="{inst(VICTIM.node)}",job="{JOB}"}}',
                    f'_x{T0 + 1} {corr}x{END - T0 - 2}'))
    return out


# ---------------------------------------------------------------------------
# The expected values, computed here from the fleet above.

import math


def r6(v):
    """PromQL's round(v, 1e-6)."""
    return math.floor(v * 1e6 + 0.5) / 1e6


def spec(cs, after=True):
    """count, sum, sum of squares, mean and (population) sigma of CPIs."""
    x = [c.cpi_after if after else c.cpi for c in cs]
    n = len(x)
    m = sum(x) / n
    return n, sum(x), sum(v * v for v in x), m, math.sqrt(sum((v - m) ** 2 for v in x) / n)


def replicas(cs, model, pmu=None):
    return [c for c in cs if NODES[c.node] == model and c.cpu >= 0.25 and c.pmu == pmu]


def rlabels(c, model):
    M = MODELS[model]
    kind, name = c.owner
    wl = dict(workload_kind='Deployment', workload=c.container, replicaset=name) if kind == 'ReplicaSet' \
        else dict(workload_kind=kind, workload=name)
    return dict(cgroup=c.cgroup, container_id=c.id, namespace=c.ns, pod=c.pod, container=c.container,
                image=f'registry.example/{c.container}:1', pod_uid=c.uid, group='ipc',
                **(dict(pmu=c.pmu) if c.pmu else {}),
                instance=inst(c.node), job=JOB, **wl, vendor=M['vendor'], family=M['family'], model=M['model'])


def sel(d):
    return '{' + ','.join(f'{k}="{v}"' for k, v in d.items()) + '}'


def num(v):
    return f'{v:.6f}'.rstrip('0').rstrip('.') if v != int(v) else str(int(v))


def expr_test(expr, t, samples):
    out = [f'      - expr: {q(expr)}', f'        eval_time: {t}']
    if not samples:
        return out + ['        exp_samples: []']
    out.append('        exp_samples:')
    for labels, v in samples:
        out += [f'          - labels: {q(labels)}', f'            value: {num(v)}']
    return out


def victim_text(c, model, others, suspects):
    n, s, ss, m, sd = spec(others)
    x = c.cpi_after
    M = MODELS[model]
    kind, rs = c.owner
    sus = 'none named'
    if suspects:
        sus = suspects[0]
    summary = (f'CPI of container {c.container} of pod {c.ns}/{c.pod} is {x / m - 1:.0%} above the other replicas '
               f'of Deployment {c.container} on its CPU model; top suspect on {inst(c.node)}: {sus}')
    description = (
        f'Cycles per instruction of container {c.container} of pod {c.ns}/{c.pod} (cgroup {c.cgroup}, perf group ipc'
        f'{" on " + c.pmu if c.pmu else ""}) '
        f'on {inst(c.node)} are {x:.2f} against {m:.2f} ± {sd:.2f} (mean and standard deviation) on the other {n} '
        f'replicas of Deployment {c.ns}/{c.container} (ReplicaSet {rs}) on CPU {M["vendor"]} family {M["family"]} '
        f'model {M["model"]}, for 5 minutes: more than 2 standard deviations and 10% above them. The same code doing '
        f'the same work takes more cycles on this node than on the others: a change all replicas share would have '
        f'moved them too. Look at what else runs on {inst(c.node)} (the suspects below, the dashboard\'s interference row).')
    return summary, description


def tests():
    L = []
    t = '90m'
    vA = rlabels(VICTIM, 'A')
    # Records: the workload of each kind of owner, and none for a Job.
    L += ['    promql_expr_test:']
    L += expr_test('pod:kube_pod_owner_workload:relabel{namespace="shop",pod=~"web-7d4b9-n1|cache-0|legacy-rs-x1"}', t, [
        ('pod:kube_pod_owner_workload:relabel{namespace="shop",pod="cache-0",workload_kind="StatefulSet",workload="cache"}', 1),
        ('pod:kube_pod_owner_workload:relabel{namespace="shop",pod="legacy-rs-x1",replicaset="legacy-rs",workload_kind="ReplicaSet",workload="legacy-rs"}', 1),
        ('pod:kube_pod_owner_workload:relabel{namespace="shop",pod="web-7d4b9-n1",replicaset="web-7d4b9",workload_kind="Deployment",workload="web"}', 1)])
    L += expr_test('pod:kube_pod_owner_workload:relabel{namespace="kube-system"}', t, [
        ('pod:kube_pod_owner_workload:relabel{namespace="kube-system",pod="node-monitor-h7k",workload_kind="DaemonSet",workload="node-monitor"}', 1)])
    L += expr_test('pod:kube_pod_owner_workload:relabel{namespace="batch"}', t, [])
    # The settings, as docs/interference-rules.md gives them.
    for rec, v in (('pmu:cpi_min_cpu_usage:cpu_seconds_per_second', 0.25), ('pmu:cpi_outlier_stddevs:count', 2),
                   ('pmu:cpi_outlier_min_excess:ratio', 0.1), ('pmu:cpi_min_replicas:count', 5)):
        L += expr_test(rec, t, [(rec, v)])
    # The CPU model per instance and PMU; the hybrid n8 by PMU only.
    L += expr_test('instance_pmu:pmu_cpu_model:info{instance=~"n1:10101|n8:10101"}', t, [
        ('instance_pmu:pmu_cpu_model:info{instance="n1:10101",job="pmu_exporter",vendor="GenuineIntel",family="6",model="143"}', 1),
        ('instance_pmu:pmu_cpu_model:info{instance="n1:10101",job="pmu_exporter",pmu="cpu",vendor="GenuineIntel",family="6",model="143"}', 1),
        ('instance_pmu:pmu_cpu_model:info{instance="n8:10101",job="pmu_exporter",pmu="cpu_atom",vendor="GenuineIntel",family="6",model="151"}', 1),
        ('instance_pmu:pmu_cpu_model:info{instance="n8:10101",job="pmu_exporter",pmu="cpu_core",vendor="GenuineIntel",family="6",model="151"}', 1)])
    # The victim's CPI and CPU use; the replica with its workload and model.
    base = {k: vA[k] for k in ('cgroup', 'container_id', 'namespace', 'pod', 'container', 'image', 'pod_uid', 'group',
                               'instance', 'job')}
    L += expr_test(f'round(cgroup:pmu_cpi:rate5m{{cgroup="{VICTIM.cgroup}"}}, 1e-6)', t, [(sel(base), 1.45)])
    L += expr_test(f'round(cgroup:pmu_cpi:rate5m{{cgroup="{VICTIM.cgroup}"}}, 1e-6)', '60m', [(sel(base), 1.0)])
    L += expr_test(f'round(cgroup:pmu_cpu_usage:rate5m{{pod=~"worker-6f5d4-n[12]"}}, 1e-6)', t, [
        (sel({k: v for k, v in rlabels(c, 'A').items() if k in base}), c.cpu) for c in worker[:2]])
    L += expr_test(f'round(cgroup:pmu_cpi_replica:rate5m{{cgroup="{VICTIM.cgroup}"}}, 1e-6)', t, [(sel(vA), 1.45)])
    # Under the floor: no replica.  At 0.26: one.
    L += expr_test('cgroup:pmu_cpi_replica:rate5m{pod="worker-6f5d4-n1"}', t, [])
    # The spec of web on each model; worker's without the one under the floor.
    for model in ('A', 'B'):
        n, s, ss, m, sd = spec(replicas(web, model))
        M = MODELS[model]
        g = dict(namespace='shop', workload_kind='Deployment', workload='web', replicaset='web-7d4b9',
                 container='web', group='ipc', vendor=M['vendor'], family=M['family'], model=M['model'])
        for rec, v in (('count', n), ('sum', s), ('sumsq', ss), ('avg', m), ('stddev', sd)):
            L += expr_test(f'round(workload_model:pmu_cpi_rate5m:{rec}{{workload="web",model="{M["model"]}"}}, 1e-6)',
                           t, [(sel(g), r6(v))])
    L += expr_test('round(workload_model:pmu_cpi_rate5m:avg{workload="hy"}, 1e-6)', t, [
        ('{namespace="shop",workload_kind="Deployment",workload="hy",replicaset="hy-6b7",container="hy",group="ipc",'
         f'pmu="{pmu}",vendor="GenuineIntel",family="6",model="151"}}', r6(spec(replicas(hy, 'H', pmu))[3]))
        for pmu in HYBRID_PMUS])
    L += expr_test('workload_model:pmu_cpi_rate5m:count{workload="worker"}', t, [
        ('workload_model:pmu_cpi_rate5m:count{namespace="shop",workload_kind="Deployment",workload="worker",replicaset="worker-6f5d4",container="worker",'
         'group="ipc",vendor="GenuineIntel",family="6",model="143"}', 5)])
    # The victim's spec from the others.
    _, _, _, m, sd = spec(replicas(web, 'A')[1:])
    L += expr_test(f'round(cgroup:pmu_cpi_others_rate5m:avg{{cgroup="{VICTIM.cgroup}"}}, 1e-6)', t, [(sel(vA), r6(m))])
    L += expr_test(f'round(cgroup:pmu_cpi_others_rate5m:stddev{{cgroup="{VICTIM.cgroup}"}}, 1e-6)', t,
                   [(sel(vA), r6(sd))])
    # Judged: web on model A (5 replicas), not on model B (2), not cache (3).
    L += expr_test('count(cgroup:pmu_cpi_replica_judged:bool{workload="web"})', t, [('{}', 5)])
    L += expr_test(f'cgroup:pmu_cpi_replica_judged:bool{{cgroup="{VICTIM.cgroup}"}}', t, [('cgroup:pmu_cpi_replica_judged:bool' + sel(vA), 1)])
    L += expr_test('cgroup:pmu_cpi_replica_judged:bool{workload=~"cache|queue"}', t, [])
    L += expr_test('cgroup:pmu_cpi_replica_judged:bool{workload="web",model="17"}', t, [])

    # The alert.
    L += ['    alert_rule_test:']
    others = replicas(web, 'A')[1:]
    sus1 = f'container etl of pod batch/etl-0 (correlation 0.82)'
    # Before the change, and pending (the 5-minute rate passes the
    # threshold at T0 + 2 m: 1.18 > 1.1), not yet firing at T0 + 6 m.
    # Nothing at 4 m (no 5-minute rate held for 5 minutes yet).  Then only
    # steady-4e1-n2, slow since its first sample, fires before T0: at
    # 15 m already.
    L += ['      - eval_time: 4m', '        alertname: PmuCgroupCpiOutlierVsReplicas', '        exp_alerts: []']
    for when in ('15m', f'{T0}m', f'{T0 + 6}m'):
        L += [f'      - eval_time: {when}', '        alertname: PmuCgroupCpiOutlierVsReplicas', '        exp_alerts:']
        L += alert(steady[0], 'A', steady[1:], [], None)
    L += [f'      - eval_time: {T0 + 7}m', '        alertname: PmuCgroupCpiOutlierVsReplicas', '        exp_alerts:']
    L += alert(VICTIM, 'A', others, [sus1], '1. ' + sus1 + '; 2. backup.service (correlation 0.41)')
    L += alert(hy[1], 'H', replicas(hy, 'H', 'cpu_core')[1:], [], None)
    L += alert(steady[0], 'A', steady[1:], [], None)
    # At 90 m the victim, and edge-a with no suspect; nothing else: not the
    # shared change (api), the too few (cache 3, queue 4, web on model B),
    # the one under the floor (worker), the under 2 sigma (edge-b), the
    # under 10 % (edge-c).
    L += [f'      - eval_time: {t}', '        alertname: PmuCgroupCpiOutlierVsReplicas', '        exp_alerts:']
    L += alert(VICTIM, 'A', others, [sus1], '1. ' + sus1 + '; 2. backup.service (correlation 0.41)')
    L += alert(edge_a[0], 'A', edge_a[1:], [], None)
    L += alert(hy[1], 'H', replicas(hy, 'H', 'cpu_core')[1:], [], None)
    L += alert(steady[0], 'A', steady[1:], [], None)
    # The IPC alert: cache-0 (too few replicas) fires; api, whose IPC fell
    # as much, and the victim are judged by the replica rule instead.
    L += [f'      - eval_time: {t}', '        alertname: PmuCgroupIpcDroppedVsHourAgo', '        exp_alerts:']
    for c in ipc_fired():
        L += ipc_alert(c)
    return L


def ipc_fired():
    """The containers whose IPC fell more than 20 % against 1 h ago with
    cycles above 1e8/s, and that the replica rule does not judge."""
    judged = set()
    for cs in (web, api, queue, worker, edge_a, edge_b, edge_c, hy, cache, legacy, monitor, steady):
        for model in MODELS:
            for pmu in (None,) + HYBRID_PMUS:
                r = replicas(cs, model, pmu)
                if len(r) >= 5 and cs[0].owner[0] != 'Job':
                    judged |= {id(c) for c in r}
    return [c for c in ALL if 1 - c.cpi / c.cpi_after > 0.2 and id(c) not in judged]


def ipc_alert(c):
    now, then = 1 / c.cpi_after, 1 / c.cpi
    drop = 1 - now / then
    L = ['          - exp_labels:', '              severity: warning']
    for k, v in dict(cgroup=c.cgroup, container_id=c.id, namespace=c.ns, pod=c.pod, container=c.container,
                     image=f'registry.example/{c.container}:1', pod_uid=c.uid, group='ipc', instance=inst(c.node),
                     job=JOB).items():
        L.append(f'              {k}: {q(v)}')
    L += ['            exp_annotations:',
          f'              summary: {q(f"IPC of container {c.container} of pod {c.ns}/{c.pod} fell {drop:.0%} against 1 h ago")}',
          '              description: ' + q(
              f'Instructions per cycle of container {c.container} of pod {c.ns}/{c.pod}, cgroup {c.cgroup} (perf group '
              f'ipc) on {inst(c.node)} are {now:.2f} now against {then:.2f} one hour ago, {drop:.0%} lower (alert '
              f'threshold 20%, set by pmu:ipc_drop_alert_threshold:ratio). The same code doing the same work takes '
              f'more cycles: look for cache or memory contention from a noisy neighbour, a CPU frequency or SMT '
              f'change, or a new release of the service. This alert judges a cgroup against its own past only where '
              f'the replica comparison cannot (no workload from kube-state-metrics, or fewer than 5 replicas above '
              f'the CPU floor on this CPU model): where it can, PmuCgroupCpiOutlierVsReplicas tells a neighbour\'s '
              f'interference from the workload\'s own change.'),
          '              topdown: ' + q('No top-down counts for this cgroup: a group with `preset: topdown` tells '
                                        'which part of the pipeline lost the cycles.')]
    return L


def alert(c, model, others, suspects, suspect_list):
    summary, description = victim_text(c, model, others, suspects)
    L = ['          - exp_labels:', '              severity: warning']
    for k, v in rlabels(c, model).items():
        L.append(f'              {k}: {q(v)}')
    if suspect_list is None:
        suspect_list = (f'The daemon on {inst(c.node)} names no suspect for this container: no neighbour\'s CPU use '
                        f'correlates with its CPI above the daemon\'s threshold, or its interference analysis is off '
                        f'(no IPC group).')
    L += ['            exp_annotations:', f'              summary: {q(summary)}',
          f'              description: {q(description)}', f'              suspects: {q(suspect_list)}']
    return L


def main():
    out = ['# Written by interference_cases.py (the fleet and what each case shows are',
           '# described there): the replica rules of pmu_exporter.rules.yml on a',
           '# simulated fleet.  Do not edit; run it again.',
           'rule_files:', '  - ../pmu_exporter.rules.yml', 'evaluation_interval: 1m',
           'group_eval_order: [pmu_exporter.settings, pmu_exporter.records, pmu_exporter.alerts]', '',
           'tests:', '  - interval: 1m', '    input_series:']
    for s, v in input_series():
        out += [f'      - series: {q(s)}', f'        values: {q(v)}']
    out += tests()
    text = '\n'.join(out) + '\n'
    if len(sys.argv) == 3 and sys.argv[1] == '--check':
        with open(sys.argv[2]) as f:
            sys.exit(0 if f.read() == text else 1)
    sys.stdout.write(text)


if __name__ == '__main__':
    main()
