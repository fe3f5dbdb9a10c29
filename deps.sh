#!/bin/bash
# deps.sh - install the Debian packages pmu_exporter needs to build
# (and, with "test", to run its test suite).  Only installs what is
# missing; needs root and apt-get.  Sourced by run.sh and check.sh.
pmu_install_deps() {
	local pkgs="build-essential autoconf automake autoconf-archive pkg-config
		libmicrohttpd-dev libyaml-dev libsystemd-dev libpfm4-dev zlib1g-dev
		libcrypt-dev libgnutls28-dev"
	[ "${1:-}" = test ] && pkgs="$pkgs curl prometheus jq yq linux-perf util-linux valgrind procps
		systemd man-db clang libclang-rt-dev openssl apache2-utils wrk"
	local missing="" p
	for p in $pkgs; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
		echo "pmu_exporter: missing Debian packages:$missing (install them as root)" >&2
		return 1
	fi
	echo "pmu_exporter: installing$missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q >&2 || return 1
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $missing >&2
}
