#!/bin/bash
# deb.sh OUTDIR [ARCH] - build the Debian package the way Debian would,
# from the distribution tree of this build (make distdir) rather than the
# working tree, so that nothing in the build directory is touched:
#   OUTDIR/pmu-exporter_VERSION_ARCH.deb, its -dbgsym, the .changes and
#   the .buildinfo, and OUTDIR/build-ARCH.log.
# ARCH (default: this machine's) other than the build machine's is a
# cross build, as Debian makes one: `dpkg-buildpackage -a ARCH` with the
# Build-Depends of ARCH installed the multiarch way (the libraries'
# -dev:ARCH packages and pkgconf:ARCH, which gives ARCH's pkg-config;
# the compilers and bpftool are the build machine's, :native in
# debian/control), and without the unit tests, which cannot run here.
# Needs dpkg-dev, debhelper and the Build-Depends (deps.sh: pmu_install_deps
# test, which installs them for amd64 and arm64).  DEB_BUILD_OPTIONS
# passes through (nocheck skips the unit tests).
# Run by `make deb [ARCH=arm64]` and `make image`, and by tests/integration/package.test.
set -eu
out=${1:?usage: deb.sh OUTDIR [ARCH]}
build_arch=$(dpkg --print-architecture)
arch=${2:-$build_arch}
: "${MAKE:=make}" "${top_builddir:=.}"
mkdir -p "$out"
out=$(cd "$out" && pwd)
version=$(sed -n 's/^PACKAGE_VERSION = //p' "$top_builddir/Makefile")
src="$out/pmu-exporter-$version-$arch"
log="$out/build-$arch.log"
rm -rf "$src" "$out"/pmu-exporter*_*_"$arch".deb "$out"/pmu-exporter_*_"$arch".changes \
	"$out"/pmu-exporter_*_"$arch".buildinfo
$MAKE -C "$top_builddir" distdir distdir="$src" > "$log" 2>&1 ||
	{ tail -20 "$log"; echo "deb.sh: make distdir failed" >&2; exit 1; }
# The package's version names the upstream one: they must agree.
deb_version=$(cd "$src" && dpkg-parsechangelog -S Version)
[ "${deb_version%-*}" = "$version" ] || {
	echo "deb.sh: debian/changelog is at $deb_version, configure.ac at $version" >&2; exit 1; }
jobs=$(nproc 2>/dev/null || echo 1); [ "$jobs" -gt 2 ] && jobs=2
opts="${DEB_BUILD_OPTIONS:+$DEB_BUILD_OPTIONS }parallel=$jobs"
cross=
if [ "$arch" != "$build_arch" ]; then
	cross="-a$arch"
	case " $opts " in *" nocheck "*) ;; *) opts="$opts nocheck" ;; esac
fi
if ! (cd "$src" && DEB_BUILD_OPTIONS="$opts" dpkg-buildpackage -us -uc -b $cross) >> "$log" 2>&1; then
	tail -30 "$log"; echo "deb.sh: dpkg-buildpackage $cross failed (all of it: $log)" >&2; exit 1
fi
rm -rf "$src"
ls "$out"/pmu-exporter_"$deb_version"_"$arch".deb
