#!/bin/bash
# deb.sh OUTDIR - build the Debian package the way Debian would, from
# the distribution tree of this build (make distdir) rather than the
# working tree, so that nothing in the build directory is touched:
#   OUTDIR/pmu-exporter_VERSION_ARCH.deb, its -dbgsym, the .changes and
#   the .buildinfo, and OUTDIR/build.log.
# Needs dpkg-dev, debhelper and the Build-Depends (deps.sh: pmu_install_deps
# test).  DEB_BUILD_OPTIONS passes through (nocheck skips the unit tests).
# Run by `make deb` and `make image`, and by tests/package.test.
set -eu
out=${1:?usage: deb.sh OUTDIR}
: "${MAKE:=make}" "${top_builddir:=.}"
mkdir -p "$out"
out=$(cd "$out" && pwd)
version=$(sed -n 's/^PACKAGE_VERSION = //p' "$top_builddir/Makefile")
src="$out/pmu-exporter-$version"
rm -rf "$src" "$out"/pmu-exporter*_*.deb "$out"/pmu-exporter_*.changes "$out"/pmu-exporter_*.buildinfo
$MAKE -C "$top_builddir" distdir distdir="$src" > "$out/build.log" 2>&1 ||
	{ tail -20 "$out/build.log"; echo "deb.sh: make distdir failed" >&2; exit 1; }
# The package's version names the upstream one: they must agree.
deb_version=$(cd "$src" && dpkg-parsechangelog -S Version)
[ "${deb_version%-*}" = "$version" ] || {
	echo "deb.sh: debian/changelog is at $deb_version, configure.ac at $version" >&2; exit 1; }
jobs=$(nproc 2>/dev/null || echo 1); [ "$jobs" -gt 2 ] && jobs=2
if ! (cd "$src" && DEB_BUILD_OPTIONS="${DEB_BUILD_OPTIONS:+$DEB_BUILD_OPTIONS }parallel=$jobs" \
	dpkg-buildpackage -us -uc -b) >> "$out/build.log" 2>&1; then
	tail -30 "$out/build.log"; echo "deb.sh: dpkg-buildpackage failed (all of it: $out/build.log)" >&2; exit 1
fi
rm -rf "$src"
ls "$out"/pmu-exporter_"$deb_version"_*.deb
