#!/bin/sh
# make-profile.sh [DEFAULT] - print the seccomp profile shipped as
# contrib/seccomp/pmu_exporter.json: the runtime default DEFAULT (podman's
# and CRI-O's, containers-common's /usr/share/containers/seccomp.json,
# Debian 12's golang-github-containers-common 0.50.1) with exactly two
# changes: bpf(2) and perf_event_open(2) are allowed whatever the
# capabilities, instead of only with CAP_SYS_ADMIN.  The kernel still
# asks for CAP_PERFMON and CAP_BPF (or kernel.perf_event_paranoid); the
# filter no longer asks for CAP_SYS_ADMIN on top.  tests/integration/image.test
# checks the shipped file against this script and runs the image with it.
set -eu
jq --tab '
	.syscalls |= ((map(.names -= ["bpf", "perf_event_open"]) | map(select(.names | length > 0)))
		+ [{names: ["bpf", "perf_event_open"], action: "SCMP_ACT_ALLOW", args: [],
		    comment: "pmu_exporter: counting needs these; the kernel checks CAP_PERFMON and CAP_BPF",
		    includes: {}, excludes: {}}])' "${1:-/usr/share/containers/seccomp.json}"
