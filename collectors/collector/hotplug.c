/*
 * hotplug.c - CPU hotplug as the collector sees it: the online-CPUs file
 * kept open, one pread() a collection telling a change, and then the
 * last reads of the instances on CPUs gone.  See docs/architecture.md,
 * "Layers and threads".
 */
#include "autoconf.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collectors/collector/hotplug.h"
#include "collectors/collector/instance.h"
#include "collectors/collector/online.h"
#include "collectors/collector/report.h"
#include "collectors/collector/source.h"
#include "collectors/collector/targetset.h"

/* Keep the online-CPUs file open: one pread per interval tells changes. */
void
hotplug_open(struct online *on, const char *sysfs)
{
	char path[4096];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/devices/system/cpu/online",
	    sysfs);
	on->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (on->fd >= 0 && (n = pread(on->fd, on->text,
	    sizeof(on->text) - 1, 0)) > 0)
		on->text[n] = '\0';
}

/*
 * One last reading of the open instances on CPUs gone offline (not in
 * the map now), after what their kinds gather (as a collection reads):
 * what each counted since the last collection goes into its
 * accumulators, which the rebuild carries (instance.c), instead of
 * closing with it.  A CPU offline keeps its events' counts readable,
 * frozen when it went.
 */
static void
read_gone(const struct targetset *set, const struct cpumap *now)
{
	struct inst_iter it;

	source_kinds_refresh(set->ix.k);
	TARGETSET_FOREACH_INST(set, &it)
		if (it.in->state == INST_OK && !cpumap_has(now, it.in->cpu))
			(void)inst_read(it.in);
}

/* Did the set of online CPUs change?  Then the instances on CPUs gone
 * are read one last time, and on->map is updated. */
int
hotplug_changed(struct online *on, const struct targetset *set)
{
	char buf[sizeof(on->text)];
	struct cpumap m;
	ssize_t n;

	if (on->fd < 0)
		return 0;
	n = pread(on->fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if (strcmp(buf, on->text) == 0 ||
	    cpumap_parse(buf, &m, NULL) < 0)
		return 0;
	buf[strcspn(buf, "\n")] = '\0';
	SAY(set->rp, LOG_INFO, 0, "online CPUs are now %s: "
	    "reopening what changed", buf);
	read_gone(set, &m);
	memcpy(on->text, buf, sizeof(buf));
	on->text[strlen(buf)] = '\n';
	on->text[strlen(buf) + 1] = '\0';
	cpumap_free(&on->map);
	on->map = m;
	return 1;
}
