#!/bin/bash
# deps.sh - install the Debian packages pmu_exporter needs to build
# (and, with "test", to run its test suite).  Only installs what is
# missing; needs root and apt-get.  Sourced by run.sh and check.sh.
#
# The test suite boots an arm64 guest with an emulated PMU (tests/vm/):
# it needs QEMU, a cross compiler and the daemon's libraries for arm64,
# installed the Debian multiarch way (dpkg --add-architecture arm64).
# The guest's kernel and busybox are fetched by the rig itself with
# `apt-get download` into the build tree; nothing arm64 runs on the host.

# The package and image tests (make check-package) build the Debian
# package (debhelper, dpkg-dev), lint it, boot a minimal Debian 12 made
# by mmdebstrap with systemd-nspawn (systemd-container), and make the
# OCI image with podman, then runs it as a real container under podman
# with runc (crun refuses hybrid cgroups) and under containerd (ctr run),
# each in a private temporary store.
#
# clang, llvm, bpftool and libbpf-dev build mode: bpf (configure finds
# them; without them the daemon builds without it).
#
# tests/integration/kubernetes.test renders contrib/kubernetes with Debian's kubectl
# (kubernetes-client, fetched by the test, not installed) and validates
# the objects with npm packages it installs into its cache: nodejs, npm.
#
# libcurl4-gnutls-dev and libncurses-dev build pmu_exporter top (top/:
# its HTTP client and its screen; the daemon links neither); tmux drives
# its screen in tests/integration/top_screen.test.
# stress-ng is for one bench only (pmu_install_deps bench): the load that
# bench/busy_check.sh runs beside the whole suite.
#
# libseccomp-dev is for a test helper only (tests/lib/helpers/seccomp_exec:
# the daemon under a seccomp filter, tests/integration/privileges.test).
#
# apt-get update and install reach the archive: retry.sh tries them
# again when they fail (PMU_RETRY_TRIES, PMU_RETRY_WAIT).
. "$(dirname "${BASH_SOURCE[0]}")/retry.sh"

# The runtime libraries of the -dev packages below, for arm64: the guest
# gets them (and the arm64 libc) from the multiarch directories.  They
# and pkgconf:arm64 (aarch64-linux-gnu-pkg-config) are also the arm64
# Build-Depends of `make deb ARCH=arm64` (dpkg-buildpackage -a arm64).
PMU_ARM64_DEV="libmicrohttpd-dev:arm64 libyaml-dev:arm64 libsystemd-dev:arm64
	zlib1g-dev:arm64 libcrypt-dev:arm64 libgnutls28-dev:arm64 libpfm4-dev:arm64
	libc6-dev:arm64 libbpf-dev:arm64 libelf-dev:arm64 libjson-c-dev:arm64 pkgconf:arm64
	libcurl4-gnutls-dev:arm64 libncurses-dev:arm64"

# Is package $1 installed?  An unqualified name means the native
# architecture (or arch "all"): an arm64 -dev package of the same name
# must not count as the host's.
pmu_installed() {
	local native
	case "$1" in
	*:*)	dpkg-query -W -f='${Status}\n' "$1" 2>/dev/null | grep -q "install ok installed" ;;
	*)	native=$(dpkg --print-architecture)
		dpkg-query -W -f='${Status}|${Architecture}\n' "$1" 2>/dev/null |
		    grep -q -e "install ok installed|$native\$" -e "install ok installed|all\$" ;;
	esac
}

pmu_install_deps() {
	local pkgs="build-essential autoconf automake autoconf-archive pkg-config
		libmicrohttpd-dev libyaml-dev libsystemd-dev libpfm4-dev zlib1g-dev
		libcrypt-dev libgnutls28-dev libjson-c-dev clang llvm bpftool libbpf-dev libelf-dev
		libcurl4-gnutls-dev libncurses-dev"
	local foreign=""
	if [ "${1:-}" = test ]; then
		pkgs="$pkgs curl prometheus jq yq linux-perf util-linux valgrind procps
		systemd man-db clang libclang-rt-dev openssl apache2-utils wrk nginx tmux
		qemu-system-arm gcc-aarch64-linux-gnu cpio $PMU_ARM64_DEV
		debhelper dpkg-dev lintian mmdebstrap systemd-container podman runc containerd
		libseccomp-dev python3-grpcio python3-grpc-tools python3-prometheus-client nodejs"
		# npm installs tests/integration/kubernetes.test's schemas; a nodejs that
		# ships its own npm (NodeSource's) conflicts with Debian's npm.
		command -v npm >/dev/null || pkgs="$pkgs npm"
		[ "$(dpkg --print-architecture)" = arm64 ] || foreign=arm64
	fi
	# bench/busy_check.sh's load (the suite itself installs the rest).
	[ "${1:-}" = bench ] && pkgs="$pkgs stress-ng"
	local missing="" p
	for p in $pkgs; do
		pmu_installed "$p" || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
		echo "pmu_exporter: missing Debian packages:$missing (install them as root)" >&2
		return 1
	fi
	echo "pmu_exporter: installing$missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	if [ -n "$foreign" ] && ! dpkg --print-foreign-architectures | grep -qx "$foreign"; then
		dpkg --add-architecture "$foreign" || return 1
	fi
	pmu_retry "Debian's package lists (apt-get update)" -- apt-get update -q >&2 || return 1
	# shellcheck disable=SC2086
	pmu_retry "the packages$missing (apt-get install)" -- \
		apt-get install -y -q --no-install-recommends $missing >&2
}
