/*
 * default.c - the embedded configurations, and the table of cgroup layouts
 * they count (LAYOUTS).
 * Design: docs/containers.md, "Layouts known out of the box";
 * docs/architecture.md, "config/".
 */
#include "autoconf.h"

#include "config/default.h"

/*
 * Every layout but the pods in mode: bpf, perf mode where BPF cannot run:
 * one perf-mode cgroup event on a CPU makes every switch between two
 * cgroups there switch the CPU's cgroup events, a slice's containers'
 * included (bench/RESULTS.md, "What counting every container costs").
 */
#ifdef HAVE_BPF
#define BPF_OR_PERF \
	"    mode: bpf\n" \
	"    fallback: perf\n"
#define PODS(G) \
	"  # Pods: the sum of their containers, in mode: bpf only.\n" \
	"  - layout: kubernetes-pod\n" \
	"    path: /kubepods.slice/kubepods-*.slice/kubepods-*-pod*.slice\n" \
	"    groups: [" G "]\n" \
	"    mode: bpf\n" \
	"    fallback: skip\n" \
	"    relabel: &pod_uid_systemd\n" \
	"      - regex: '.*-pod([0-9a-f_]+)\\.slice'\n" \
	"        target_label: pod_uid\n" \
	"        replace: {'_': '-'}\n" \
	"  - layout: kubernetes-pod\n" \
	"    path: /kubepods.slice/kubepods-pod*.slice\n" \
	"    groups: [" G "]\n" \
	"    mode: bpf\n" \
	"    fallback: skip\n" \
	"    relabel: *pod_uid_systemd\n" \
	"  - layout: kubernetes-pod\n" \
	"    path: /kubepods/*/pod*\n" \
	"    groups: [" G "]\n" \
	"    mode: bpf\n" \
	"    fallback: skip\n" \
	"    relabel: &pod_uid_cgroupfs\n" \
	"      - regex: '.*/pod([0-9a-f-]+)'\n" \
	"        target_label: pod_uid\n" \
	"  - layout: kubernetes-pod\n" \
	"    path: /kubepods/pod*\n" \
	"    groups: [" G "]\n" \
	"    mode: bpf\n" \
	"    fallback: skip\n" \
	"    relabel: *pod_uid_cgroupfs\n"
#else
/* Without BPF, mode: bpf is a config error: perf mode, and no pods. */
#define BPF_OR_PERF ""
#define PODS(G) ""
#endif

/*
 * The table.  G is the group every row counts.  Regexes are in YAML
 * single quotes, where a backslash is itself; a path is matched by the
 * entry's path pattern first, and relabel only names what it matched.
 */
#define LAYOUTS(G) \
	"cgroups:\n" \
	"  # Directly under the root: systemd's slices, /docker, /kubepods...\n" \
	"  - layout: top\n" \
	"    path: /*\n" \
	"    groups: [" G "]\n" \
	BPF_OR_PERF \
	"  # systemd services, in a slice or a slice's slice (getty@tty1).\n" \
	"  - layout: service\n" \
	"    path: /*.slice/*.service\n" \
	"    groups: [" G "]\n" \
	BPF_OR_PERF \
	"    relabel: &unit\n" \
	"      - regex: '.*/([^/]+\\.service)'\n" \
	"        target_label: unit\n" \
	"  - layout: service\n" \
	"    path: /*.slice/*.slice/*.service\n" \
	"    groups: [" G "]\n" \
	BPF_OR_PERF \
	"    relabel: *unit\n" \
	"  # Docker: systemd cgroup driver, then cgroupfs.\n" \
	"  - layout: docker\n" \
	"    path: /*.slice/docker-*.scope\n" \
	"    groups: [" G "]\n" \
	BPF_OR_PERF \
	"    relabel:\n" \
	"      - regex: '.*/docker-([0-9a-f]{64})\\.scope'\n" \
	"        target_label: container_id\n" \
	"  - layout: docker\n" \
	"    path: /docker/*\n" \
	"    groups: [" G "]\n" \
	BPF_OR_PERF \
	"    relabel:\n" \
	"      - regex: '/docker/([0-9a-f]{64})'\n" \
	"        target_label: container_id\n" \
	"  # Podman: systemd (rootful, in a pod, rootless), then cgroupfs;\n" \
	"  # conmon's own scope is not the container.\n" \
	"  - layout: podman\n" \
	"    path: /*.slice/libpod-*.scope\n" \
	"    exclude: /*.slice/libpod-conmon-*.scope\n" \
	"    groups: [" G "]\n" \
	BPF_OR_PERF \
	"    relabel: &libpod\n" \
	"      - regex: '.*/libpod-([0-9a-f]{64})(\\.scope)?'\n" \
	"        target_label: container_id\n" \
	"  - layout: podman\n" \
	"    path: /machine.slice/machine-libpod_pod_*.slice/libpod-*.scope\n" \
	"    exclude: /machine.slice/*/libpod-conmon-*.scope\n" \
	"    groups: [" G "]\n" \
	BPF_OR_PERF \
	"    relabel: *libpod\n" \
	"  - layout: podman\n" \
	"    path: /user.slice/user-*.slice/user@*.service/user.slice/libpod-*.scope\n" \
	"    exclude: /user.slice/*/*/*/libpod-conmon-*.scope\n" \
	"    groups: [" G "]\n" \
	BPF_OR_PERF \
	"    relabel: *libpod\n" \
	"  - layout: podman\n" \
	"    path: /libpod_parent/libpod-*\n" \
	"    groups: [" G "]\n" \
	BPF_OR_PERF \
	"    relabel: *libpod\n" \
	"  - layout: podman\n" \
	"    path: /libpod_parent/*/libpod-*\n" \
	"    groups: [" G "]\n" \
	BPF_OR_PERF \
	"    relabel: *libpod\n" \
	"  # containerd without Kubernetes: systemd driver, nerdctl, then\n" \
	"  # cgroupfs /<namespace>/<id> for its usual namespaces.\n" \
	"  - layout: containerd\n" \
	"    path: /*.slice/cri-containerd-*.scope\n" \
	"    groups: [" G "]\n" \
	BPF_OR_PERF \
	"    relabel:\n" \
	"      - regex: '.*/cri-containerd-([0-9a-f]{64})\\.scope'\n" \
	"        target_label: container_id\n" \
	"  - layout: containerd\n" \
	"    path: /*.slice/nerdctl-*.scope\n" \
	"    groups: [" G "]\n" \
	BPF_OR_PERF \
	"    relabel:\n" \
	"      - regex: '.*/nerdctl-([0-9a-f]{64})\\.scope'\n" \
	"        target_label: container_id\n" \
	"  - layout: containerd\n" \
	"    path: /default/*\n" \
	"    groups: [" G "]\n" \
	BPF_OR_PERF \
	"    relabel: &ns_id\n" \
	"      - regex: '/[^/]+/([^/]+)'\n" \
	"        target_label: container_id\n" \
	"  - layout: containerd\n" \
	"    path: /k8s.io/*\n" \
	"    groups: [" G "]\n" \
	BPF_OR_PERF \
	"    relabel: *ns_id\n" \
	"  # CRI-O without Kubernetes; conmon's scope is not the container.\n" \
	"  - layout: crio\n" \
	"    path: /*.slice/crio-*.scope\n" \
	"    exclude: /*.slice/crio-conmon-*.scope\n" \
	"    groups: [" G "]\n" \
	BPF_OR_PERF \
	"    relabel:\n" \
	"      - regex: '.*/crio-([0-9a-f]{64})\\.scope'\n" \
	"        target_label: container_id\n" \
	"  # Kubernetes containers, any runtime: systemd driver (burstable\n" \
	"  # and besteffort, then guaranteed), then cgroupfs.  The sandbox\n" \
	"  # (pause) container looks like the others here.\n" \
	"  - layout: kubernetes\n" \
	"    path: /kubepods.slice/kubepods-*.slice/kubepods-*-pod*.slice/*.scope\n" \
	"    exclude: /kubepods.slice/*/*/crio-conmon-*.scope\n" \
	"    groups: [" G "]\n" \
	BPF_OR_PERF \
	"    relabel: &k8s_systemd\n" \
	"      - regex: '.*-pod([0-9a-f_]+)\\.slice/[^/]+'\n" \
	"        target_label: pod_uid\n" \
	"        replace: {'_': '-'}\n" \
	"      - regex: '.*/(cri-containerd|crio|docker)-([0-9a-f]{64})\\.scope'\n" \
	"        target_label: container_id\n" \
	"        replacement: '$2'\n" \
	"  - layout: kubernetes\n" \
	"    path: /kubepods.slice/kubepods-pod*.slice/*.scope\n" \
	"    exclude: /kubepods.slice/*/crio-conmon-*.scope\n" \
	"    groups: [" G "]\n" \
	BPF_OR_PERF \
	"    relabel: *k8s_systemd\n" \
	"  - layout: kubernetes\n" \
	"    path: /kubepods/*/pod*/*\n" \
	"    exclude: /kubepods/*/pod*/crio-conmon-*\n" \
	"    groups: [" G "]\n" \
	BPF_OR_PERF \
	"    relabel: &k8s_cgroupfs\n" \
	"      - regex: '.*/pod([0-9a-f-]+)/[^/]+'\n" \
	"        target_label: pod_uid\n" \
	"      - regex: '.*/(crio-)?([0-9a-f]{64})'\n" \
	"        target_label: container_id\n" \
	"        replacement: '$2'\n" \
	"  - layout: kubernetes\n" \
	"    path: /kubepods/pod*/*\n" \
	"    exclude: /kubepods/pod*/crio-conmon-*\n" \
	"    groups: [" G "]\n" \
	BPF_OR_PERF \
	"    relabel: *k8s_cgroupfs\n" \
	PODS(G) \
	"  # systemd-nspawn and libvirt machines; systemd writes '-' in a\n" \
	"  # machine name as \\x2d.\n" \
	"  - layout: machine\n" \
	"    path: /machine.slice/machine-*.scope\n" \
	"    groups: [" G "]\n" \
	BPF_OR_PERF \
	"    relabel:\n" \
	"      - regex: '.*/machine-(.+)\\.scope'\n" \
	"        target_label: machine\n" \
	"        replace: {'\\x2d': '-'}\n" \
	"  - layout: machine\n" \
	"    path: /machine.slice/systemd-nspawn@*.service\n" \
	"    groups: [" G "]\n" \
	BPF_OR_PERF \
	"    relabel:\n" \
	"      - regex: '.*/systemd-nspawn@(.+)\\.service'\n" \
	"        target_label: machine\n" \
	"        replace: {'\\x2d': '-'}\n" \
	"  # LXC 4 and later, and LXD / Incus.\n" \
	"  - layout: lxc\n" \
	"    path: /lxc.payload.*\n" \
	"    groups: [" G "]\n" \
	BPF_OR_PERF \
	"    relabel:\n" \
	"      - regex: '/lxc\\.payload\\.(.+)'\n" \
	"        target_label: machine\n"

const char config_default_yaml[] =
	"interval: 1s\n"
	"groups:\n"
	"  - name: ipc\n"
	"    events: [cycles, instructions]\n"
	"  # Top-down per CPU where it costs no general-purpose counter.\n"
	"  - {name: td, preset: topdown, only: intel_perf_metrics}\n"
	"cpus:\n"
	"  - cpus: all\n"
	"    groups: [ipc, td]\n"
	LAYOUTS("ipc");

const char config_fallback_yaml[] =
	"interval: 1s\n"
	"groups:\n"
	"  - name: sw\n"
	"    events: [task-clock, context-switches, cpu-migrations, page-faults]\n"
	"cpus:\n"
	"  - cpus: all\n"
	"    groups: [sw]\n"
	LAYOUTS("sw");
