/*
 * default.c - the embedded configurations.
 *
 * pmu_exporter runs with no config file at all: IPC on every CPU and on
 * every cgroup directly under the root.  On a machine without hardware
 * counters (most VMs) the daemon falls back to software events instead,
 * and says so, so that it still shows something true.
 *
 * The cgroups are counted in perf mode: the few top-level slices of a
 * systemd host cost no more that way than in mode: bpf, which needs
 * CAP_BPF besides (README, "Which mode when").
 */
#include "autoconf.h"

#include "config/config.h"

const char config_default_yaml[] =
	"interval: 1s\n"
	"groups:\n"
	"  - name: ipc\n"
	"    events: [cycles, instructions]\n"
	"cpus:\n"
	"  - cpus: all\n"
	"    groups: [ipc]\n"
	"cgroups:\n"
	"  - path: /*\n"
	"    groups: [ipc]\n";

const char config_fallback_yaml[] =
	"interval: 1s\n"
	"groups:\n"
	"  - name: sw\n"
	"    events: [task-clock, context-switches, cpu-migrations, page-faults]\n"
	"cpus:\n"
	"  - cpus: all\n"
	"    groups: [sw]\n"
	"cgroups:\n"
	"  - path: /*\n"
	"    groups: [sw]\n";
