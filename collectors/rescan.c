/*
 * rescan.c - matching the plan's cgroup patterns against the hierarchy
 * (see collector_int.h): new cgroups become targets and are opened,
 * vanished ones are closed at once and their series dropped, and the
 * inotify watch set follows the directories where matches can appear.
 * Runs on the collector thread when inotify says something changed and
 * at every cgroup_rescan_interval.
 */
#include "autoconf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/cgroupfs.h"
#include "collectors/collector_int.h"

/*
 * Expand every cgroups: entry; open targets for new cgroups (within the fd
 * budget) and close the ones that are gone; then point the inotify
 * watches at the directories the expansion read.  0 or -ENOMEM.
 */
int
rescan_cgroups(struct collector *c, int enable)
{
	const struct plan *cfg = c->cfg;
	struct cgroup_list l, dirs = { 0, 0, NULL };
	struct target *t;
	char value[1024];
	size_t i, j, k, nsorted = c->nr_targets, fds;
	int r, any = 0;

	for (i = 0; i < c->nr_targets; i++)
		c->targets[i]->seen = c->targets[i]->cgroup == NULL;
	for (i = 0; i < cfg->nr_targets; i++) {
		const struct plan_target *ct = &cfg->targets[i];

		if (ct->kind != PLAN_TARGET_CGROUP)
			continue;
		any = 1;
		if (!c->have_cgroot)
			continue;
		r = cgroupfs_expand(c->cgroot, ct->path, ct->depth,
		    ct->exclude, ct->nr_exclude, &l, c->watch ? &dirs : NULL);
		if (r < 0) {
			REPORT(c, 4, ct->path, NULL, NULL, -1, -r,
			    "%s:%d:%d: cgroup path %s: %s",
			    cfg->source, ct->line, ct->col, ct->path,
			    strerror(-r));
			if (r == -ENOMEM)
				goto nomem;
			continue;
		}
		if (l.nr == 0 && !c->pattern_empty[i]) {
			c->pattern_empty[i] = 1;
			REPORT(c, 4, ct->path, NULL, NULL, -1, 0,
			    "%s:%d:%d: cgroup path %s matches no "
			    "cgroup under %s (yet); it is counted as soon as "
			    "it appears", cfg->source, ct->line, ct->col,
			    ct->path, c->cgroot);
		} else if (l.nr > 0)
			c->pattern_empty[i] = 0;
		for (j = 0; j < l.nr; j++) {
			t = target_find_cgroup(c, l.path[j], nsorted);
			if (t && t->opened) {
				t->seen = 1;	/* already counted */
				continue;
			}
			if (t == NULL) {
				if ((t = target_new(l.path[j])) == NULL ||
				    target_add(c, t) < 0) {
					target_free(t);
					cgroup_list_free(&l);
					goto nomem;
				}
			}
			if (t->seen != 2) {
				/* New, or skipped before: planned afresh. */
				t->seen = 2;
			}
			/* mode: bpf unavailable, and perf mode refused. */
			if (ct->bpf && ct->bpf_refuse && c->bpf == NULL)
				t->bpf_refused = 1;
			for (k = 0; k < ct->nr_groups &&
			    !(ct->bpf && ct->bpf_refuse && c->bpf == NULL); k++)
				if (target_add_pmu_group(c, t, ct->groups[k],
				    &c->online, ct->per_cpu,
				    ct->bpf && c->bpf != NULL) < 0) {
					cgroup_list_free(&l);
					goto nomem;
				}
			for (k = 0; k < ct->nr_relabel; k++)
				if (plan_relabel_apply(&ct->relabel[k],
				    t->cgroup, value, sizeof(value)) &&
				    value[0] && target_add_label(t,
				    ct->relabel[k].target_label, value) < 0) {
					cgroup_list_free(&l);
					goto nomem;
				}
		}
		cgroup_list_free(&l);
	}
	if (any && !c->have_cgroot)
		return 0;

	/* Close what vanished, open what is new, keep the order stable. */
	fds = collector_open_fds(c);
	c->cg_matched = c->cg_counted = c->cg_skipped = 0;
	c->cg_bpf_full = c->cg_bpf_refused = 0;
	for (i = 0, j = 0; i < c->nr_targets; i++) {
		t = c->targets[i];
		if (!t->seen) {
			if (t->opened)
				REPORT(c, 6, t->cgroup, NULL, NULL, -1, 0,
				    "cgroup %s is gone; its series are "
				    "dropped", t->cgroup);
			target_last_read(t);
			fds -= inst_target_fds(t);
			target_free(t);
			continue;
		}
		if (t->cgroup)
			c->cg_matched++;
		if (t->seen == 2 && t->nr_groups == 0 && t->bpf_refused) {
			/* Every entry matching it is mode: bpf, refused. */
			c->cg_bpf_refused++;
			c->targets[j++] = t;
			continue;
		}
		if (t->seen == 2) {
			size_t need = inst_need_fds(c, t);

			if (need > 0 && fds + need > c->max_fds) {
				if (!t->skipped)
					REPORT(c, 4, t->cgroup, NULL, NULL, -1,
					    0, "cgroup %s is not counted: it "
					    "needs %zu perf fds and %zu of the "
					    "budget of %llu are in use (raise "
					    "max_fds and LimitNOFILE=)",
					    t->cgroup, need, fds,
					    (unsigned long long)c->max_fds);
				t->skipped = 1;
				c->cg_skipped++;
				c->targets[j++] = t;
				continue;
			}
			r = target_open(c, t);
			if (r == -ENOMEM)
				goto nomem;
			if (r == -ENOSPC && t->bpf_full) {
				/* No BPF slot: tried again at the next rescan. */
				c->cg_bpf_full++;
				c->targets[j++] = t;
				continue;
			}
			if (r < 0) {
				target_free(t);	/* vanished meanwhile */
				c->cg_matched--;
				continue;
			}
			t->skipped = 0;
			fds += inst_target_fds(t);
			if (!target_was_counted(c, t->cgroup))
				REPORT(c, 6, t->cgroup, NULL, NULL, -1, 0,
				    "counting cgroup %s", t->cgroup);
			if (enable)
				target_enable(t);
		}
		if (t->cgroup && t->opened)
			c->cg_counted++;
		c->targets[j++] = t;
	}
	c->nr_targets = j;
	if (c->nr_targets > 1)
		qsort(c->targets, c->nr_targets, sizeof(*c->targets),
		    target_cmp);

	if (c->watch) {
		cgroup_list_sort_unique(&dirs);
		r = cgwatch_set(c->watch, c->cgroot, &dirs);
		if (r == -ENOSPC && !c->logged_watch++)
			REPORT(c, 4, NULL, NULL, NULL, -1, ENOSPC,
			    "inotify watch limit reached (fs.inotify."
			    "max_user_watches): some new cgroups are found "
			    "only by the rescan every %llus",
			    (unsigned long long)(cfg->rescan_ns / 1000000000ULL));
		else if (r == -ENOMEM)
			goto nomem;
		cgroup_list_free(&dirs);
	}
	return 0;
nomem:
	cgroup_list_free(&dirs);
	return -ENOMEM;
}
