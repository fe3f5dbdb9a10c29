#!/bin/bash
# run.sh - install what is missing, build, and run pmu_exporter in the
# foreground with its embedded default config (or the flags you pass).
set -eu
cd "$(dirname "$0")"
. ./deps.sh
pmu_install_deps
[ -x configure ] || autoreconf -fi
[ -f Makefile ] || ./configure
make -j"$(nproc)"
exec daemon/pmu_exporter "$@"
