/*
 * cpuinfo_test.c - pmu_exporter_cpu_info: the CPU's identity per core PMU
 * (collectors/events/cpuinfo.c) on the PMU fixture trees with cpuinfo
 * files written here, a FIFO at its path (for the top-down preset's
 * reader too), and its exposition (daemon/expo/expo.c).
 */
#include "autoconf.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collectors/events/cpuinfo.h"
#include "collectors/events/topdown.h"
#include "daemon/expo/expo.h"
#include "tests/lib/check.h"
#include "tests/lib/scratch.h"

static char dir[] = "/tmp/cpuinfo_test.XXXXXX";

static const char *
top(void)
{
	const char *t = getenv("top_srcdir");

	return t ? t : ".";
}

static void
scan(const char *fixture, struct pmu_list *l)
{
	char path[4096], err[256];

	snprintf(path, sizeof(path), "%s/tests/fixtures/%s", top(), fixture);
	memset(l, 0, sizeof(*l));
	CHECK(pmu_scan(path, l, err, sizeof(err)) == 0);
}

/* Write dir/cpuinfo from a list of blocks. */
static void
write_cpuinfo(const char *text)
{
	scratch_put(dir, "cpuinfo", text);
}

/* text as dir/cpuinfo, read against the PMUs of fixture (NULL: none). */
static void
read_cpuinfo(const char *text, const char *fixture, struct cpuinfo *ci)
{
	struct pmu_list l;

	write_cpuinfo(text);
	if (fixture)
		scan(fixture, &l);
	cpuinfo_read(dir, fixture ? &l : NULL, ci);
	if (fixture)
		pmu_list_free(&l);
}

static void
x86_block(char *buf, size_t len, int cpu, const char *name)
{
	size_t n = strlen(buf);

	snprintf(buf + n, len - n, "processor\t: %d\nvendor_id\t: GenuineIntel\n"
	    "cpu family\t: 6\nmodel\t\t: 151\nmodel name\t: %s\n"
	    "stepping\t: 2\n\n", cpu, name);
}

/* Hybrid Intel: one entry per core PMU, each from its first CPU. */
static void
test_intel_hybrid(void)
{
	static char text[16384];
	struct cpuinfo ci;
	int cpu;

	text[0] = '\0';
	for (cpu = 0; cpu < 24; cpu++)
		x86_block(text, sizeof(text), cpu,
		    cpu < 16 ? "12th Gen Intel(R) Core(TM) i9-12900K" : "E-core");
	read_cpuinfo(text, "topdown/alderlake/sysfs", &ci);
	CHECK(ci.nr == 2);
	CHECK_STR(ci.core[0].pmu, "cpu_atom");
	CHECK_STR(ci.core[0].model_name, "E-core");	/* cpu 16's block */
	CHECK_STR(ci.core[1].pmu, "cpu_core");
	CHECK_STR(ci.core[1].vendor, "GenuineIntel");
	CHECK_STR(ci.core[1].cpu_family, "6");
	CHECK_STR(ci.core[1].model, "151");
	CHECK_STR(ci.core[1].model_name, "12th Gen Intel(R) Core(TM) i9-12900K");
}

/* arm64 big.LITTLE: implementer, architecture and part per core type. */
static void
test_arm_biglittle(void)
{
	static char text[8192];
	struct cpuinfo ci;
	int cpu;
	size_t n;

	text[0] = '\0';
	for (cpu = 0; cpu < 6; cpu++) {
		n = strlen(text);
		snprintf(text + n, sizeof(text) - n, "processor\t: %d\n"
		    "BogoMIPS\t: 48.00\nCPU implementer\t: 0x41\n"
		    "CPU architecture: 8\nCPU variant\t: 0x0\n"
		    "CPU part\t: %s\nCPU revision\t: 4\n\n", cpu,
		    cpu < 4 ? "0xd03" : "0xd08");
	}
	read_cpuinfo(text, "sysfs-arm64-biglittle", &ci);
	CHECK(ci.nr == 2);
	CHECK_STR(ci.core[0].pmu, "armv8_cortex_a53");
	CHECK_STR(ci.core[0].vendor, "0x41");
	CHECK_STR(ci.core[0].cpu_family, "8");
	CHECK_STR(ci.core[0].model, "0xd03");
	CHECK_STR(ci.core[0].model_name, "");
	CHECK_STR(ci.core[1].pmu, "armv8_cortex_a72");
	CHECK_STR(ci.core[1].model, "0xd08");
}

/*
 * One core PMU on every CPU (AMD "cpu"): the first block, past a flags
 * line longer than the read buffer.  Then a piece of a long line that
 * looks like "model : 99" is never read as a key.
 */
static void
test_long_line(void)
{
	static char text[8192];
	struct cpuinfo ci;
	size_t n;

	snprintf(text, sizeof(text), "processor\t: 0\nvendor_id\t: AuthenticAMD\n"
	    "cpu family\t: 25\nmodel\t\t: 17\nflags\t\t: ");
	n = strlen(text);
	memset(text + n, 'f', 1000);
	snprintf(text + n + 1000, sizeof(text) - n - 1000, "\n"
	    "model name\t: AMD EPYC 9654 96-Core Processor\n\nprocessor\t: 1\n"
	    "vendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 18\n\n");
	read_cpuinfo(text, "topdown/zen4/sysfs", &ci);
	CHECK(ci.nr == 1);
	CHECK_STR(ci.core[0].pmu, "cpu");
	CHECK_STR(ci.core[0].cpu_family, "25");
	CHECK_STR(ci.core[0].model, "17");
	CHECK_STR(ci.core[0].model_name, "AMD EPYC 9654 96-Core Processor");

	/* The same with "model\t: 99" where a piece of the flags begins. */
	snprintf(text, sizeof(text), "processor\t: 0\nvendor_id\t: X\n"
	    "model\t\t: 17\nflags\t\t: ");
	n = strlen(text);
	memset(text + n, 'f', 2000);
	/* fgets reads 511 bytes a time: put a key at the start of a piece. */
	memcpy(text + (strlen("processor\t: 0\nvendor_id\t: X\nmodel\t\t: 17\n")
	    + 511), "model\t: 99 ", 11);
	snprintf(text + n + 2000, sizeof(text) - n - 2000, "\n\n");
	read_cpuinfo(text, NULL, &ci);
	CHECK(ci.nr == 1);
	CHECK_STR(ci.core[0].pmu, "");
	CHECK_STR(ci.core[0].model, "17");
}

/* No cpuinfo, or none of the PMU's CPUs in it: no entry. */
static void
test_missing(void)
{
	char path[4096];
	struct cpuinfo ci;

	snprintf(path, sizeof(path), "%s/cpuinfo", dir);
	unlink(path);
	cpuinfo_read(dir, NULL, &ci);
	CHECK(ci.nr == 0);
	read_cpuinfo("processor\t: 0\nvendor_id\t: GenuineIntel\nmodel\t: 1\n\n",
	    "topdown/alderlake/sysfs", &ci);
	CHECK(ci.nr == 1);		/* cpu_atom's CPU 16 is not there */
	CHECK_STR(ci.core[0].pmu, "cpu_core");
	/* A link is not followed. */
	unlink(path);
	CHECK(symlink("/proc/cpuinfo", path) == 0);
	cpuinfo_read(dir, NULL, &ci);
	CHECK(ci.nr == 0);
	unlink(path);
}

/*
 * A FIFO at <procfs>/cpuinfo does not block start-up, in either reader
 * of it (this file's, and the top-down preset's CPU identity): neither
 * waits for a writer to open it, and neither takes what a writer puts
 * in it for the CPU's identity.  Only a regular file is read.
 */
static void
test_fifo(void)
{
	static const char block[] =
	    "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n"
	    "model\t: 85\n\n";
	struct topdown_cpu td;
	struct cpuinfo ci;
	char path[4096];
	int w;

	snprintf(path, sizeof(path), "%s/cpuinfo", dir);
	unlink(path);
	CHECK(mkfifo(path, 0600) == 0);
	/* No writer: a blocking open would wait for one, for ever. */
	cpuinfo_read(dir, NULL, &ci);
	CHECK(ci.nr == 0);
	topdown_cpu_read(NULL, dir, &td);
	CHECK(td.vendor[0] == '\0' && td.family == -1 && td.model == -1);
	/* A writer, a processor block in the pipe: not read. */
	CHECK((w = open(path, O_RDWR | O_CLOEXEC)) >= 0);
	CHECK(write(w, block, strlen(block)) == (ssize_t)strlen(block));
	cpuinfo_read(dir, NULL, &ci);
	CHECK(ci.nr == 0);
	topdown_cpu_read(NULL, dir, &td);
	CHECK(td.vendor[0] == '\0' && td.family == -1 && td.model == -1);
	close(w);
	unlink(path);
}

/* The exposition: labels through the UTF-8-safe writer, empty ones left
 * out, in both formats; nothing without cpuinfo. */
static void
test_render(void)
{
	struct cpuinfo ci;
	struct expo_opts o = { .cpu = &ci };
	struct snapshot *s = snapshot_new();
	char *text;
	size_t len;

	memset(&ci, 0, sizeof(ci));
	ci.nr = 2;
	strcpy(ci.core[0].pmu, "cpu_core");
	strcpy(ci.core[0].vendor, "GenuineIntel");
	strcpy(ci.core[0].cpu_family, "6");
	strcpy(ci.core[0].model, "151");
	strcpy(ci.core[0].model_name, "Core \"i9\" \\ \xff");
	strcpy(ci.core[1].pmu, "armv8_cortex_a53");
	strcpy(ci.core[1].vendor, "0x41");
	strcpy(ci.core[1].cpu_family, "8");
	strcpy(ci.core[1].model, "0xd03");
	text = expo_render_body(s, EXPO_TEXT, &o, &len);
	CHECK_CONTAINS(text, "# TYPE pmu_exporter_cpu_info gauge\n"
	    "pmu_exporter_cpu_info{vendor=\"GenuineIntel\",family=\"6\","
	    "model=\"151\",model_name=\"Core \\\"i9\\\" \\\\ \xef\xbf\xbd" "ff\","
	    "pmu=\"cpu_core\"} 1\n"
	    "pmu_exporter_cpu_info{vendor=\"0x41\",family=\"8\","
	    "model=\"0xd03\",pmu=\"armv8_cortex_a53\"} 1\n");
	free(text);
	text = expo_render_body(s, EXPO_OPENMETRICS, &o, &len);
	CHECK_CONTAINS(text, "# TYPE pmu_exporter_cpu_info gauge\n"
	    "pmu_exporter_cpu_info{vendor=\"GenuineIntel\"");
	free(text);
	ci.nr = 0;
	text = expo_render_body(s, EXPO_TEXT, &o, &len);
	CHECK(text != NULL && strstr(text, "pmu_exporter_cpu_info") == NULL);
	free(text);
	o.cpu = NULL;
	text = expo_render_body(s, EXPO_TEXT, &o, &len);
	CHECK(text != NULL && strstr(text, "pmu_exporter_cpu_info") == NULL);
	free(text);
	snapshot_unref(s);
}

int
main(void)
{
	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	test_intel_hybrid();
	test_arm_biglittle();
	test_long_line();
	test_missing();
	test_fifo();
	test_render();
	rmdir(dir);
	return CHECK_DONE();
}
