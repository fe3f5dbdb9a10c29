/*
 * config_bpf.c - the one check of a plan that needs the machine: mode:
 * bpf with bpf_fallback: refuse is an error at load time where the BPF
 * program cannot run, as a config error is, rather than cgroups silently
 * not counted.  Beside config.c, which checks everything the text alone
 * can tell; the daemon calls both when it loads a config.
 */
#include "autoconf.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "collectors/bpf/bpfcg.h"
#include "collectors/cgroup/cgroupfs.h"
#include "collectors/perf/cpumap.h"
#include "config/config.h"

int
config_bpf_check(const struct plan *cfg, const char *procfs,
    const char *sysfs, char *err, size_t len)
{
	const struct plan_target *t = NULL;
	struct bpfcg *b = NULL;
	struct cpumap online, one;
	char why[512], root[4096], path[4096];
	size_t i;
	int r, v2 = 1;

	for (i = 0; i < cfg->nr_targets && t == NULL; i++)
		if (plan_target_mode_is(&cfg->targets[i], "bpf") &&
		    cfg->targets[i].fallback == PLAN_FALLBACK_REFUSE)
			t = &cfg->targets[i];
	if (t == NULL)
		return 0;
	why[0] = '\0';
	snprintf(path, sizeof(path), "%s/self/mountinfo", procfs);
	if (cgroupfs_find(path, root, sizeof(root), &v2) == 0 && !v2) {
		snprintf(why, sizeof(why), "the cgroups are counted in the "
		    "cgroup v1 perf_event hierarchy at %.300s, and the BPF "
		    "program sees cgroup2 ids only", root);
		r = -EOPNOTSUPP;
	} else if ((r = cpumap_online(sysfs, &online)) < 0) {
		snprintf(why, sizeof(why), "%s/devices/system/cpu/online: %s",
		    sysfs, strerror(-r));
	} else {
		one.nr = online.nr ? 1 : 0;
		one.cpu = online.cpu;
		if ((r = bpfcg_open(1, 1, 0, &b, why, sizeof(why))) == 0)
			r = bpfcg_attach(b, &one, why, sizeof(why));
		bpfcg_close(b);
		cpumap_free(&online);
	}
	if (r == 0)
		return 0;
	snprintf(err, len, "%s:%d:%d: mode: bpf with bpf_fallback: refuse, "
	    "and mode: bpf cannot run here: %s", cfg->source, t->mode_line,
	    t->mode_col, why);
	return -1;
}
