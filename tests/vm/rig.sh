#!/bin/bash
# rig.sh - boot an arm64 guest with an emulated PMU and run the guest
# tests in it; `make check` runs it once, before the tests/vm/*.vm tests,
# which read their results from the console log it writes.
#
#   rig.sh SRC OUT
#
# SRC is a distribution tree of pmu_exporter (`make distdir`), OUT the
# rig's directory in the build tree.  Writes OUT/console.log and exits 0
# whatever happened: a build or boot failure is written into the log as
# "@@@ RIG FAIL <why>" and every guest test then fails with it; a host
# that cannot run the rig at all (no QEMU for arm64) gets "@@@ RIG SKIP".
#
# Why a guest: the machines this is built on have no hardware PMU, so
# nothing could test counting cycles and instructions.  QEMU's TCG
# emulates the Armv8 PMU (PMUv3, 6 counters and the cycle counter), and
# with -icount shift=0 every instruction takes 1 ns of virtual time, so
# the instruction count of a workload is exact and deterministic: a known
# truth for every count the daemon exports.  TCG timings are not real
# costs; only counts mean anything in there.
#
# What it uses, all Debian 12 packages (deps.sh installs the host side):
# - the daemon, cross-built with gcc-aarch64-linux-gnu against the arm64
#   -dev packages installed the multiarch way (dpkg --add-architecture
#   arm64), configure --host=aarch64-linux-gnu with PKG_CONFIG_LIBDIR
#   pointing at the arm64 .pc files; the spin and mix helpers linked
#   statically, so that starting them costs few instructions besides
#   their loops;
# - the shared libraries it needs, found by walking DT_NEEDED from the
#   multiarch directories (and libpfm.so.4, which it dlopens); the
#   ping-pong of bench/ for mode: bpf's context-switch counts;
# - Debian's arm64 kernel (linux-image-*-arm64-unsigned: CONFIG_ARM_PMU,
#   CONFIG_CGROUP_PERF, CONFIG_BPF_SYSCALL all built in) and
#   busybox-static:arm64, fetched with `apt-get download` into OUT/cache
#   and unpacked there, never installed on the host;
# - the arm64 image of the OCI archive PMU_VM_IMAGE names, unpacked at
#   /img: its own daemon and libraries, which tests/vm/image.vm runs.
set -u
SRC=$(cd "$1" && pwd) OUT=$2
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
LOG=$OUT/console.log
TRIPLE=aarch64-linux-gnu
MULTIARCH="/lib/$TRIPLE /usr/lib/$TRIPLE"
# One boot runs every guest test (PMU_VM_TESTS=a,b: only those).  A hang
# is a console that stays silent this long (every guest test prints as it
# goes; TCG runs slower on a busy host, but it runs): the boot is bounded
# by its progress, not by the wall clock, with an overall cap (90
# minutes, CI's whole time) only for a guest that prints without end.
QUIET_TIMEOUT=${PMU_VM_TIMEOUT:-480}
CAP_TIMEOUT=${PMU_VM_CAP:-5400}

rig_fail() { echo "@@@ RIG FAIL $*" >> "$LOG"; exit 0; }
rig_skip() { echo "@@@ RIG SKIP $*" >> "$LOG"; exit 0; }
: > "$LOG"

command -v qemu-system-aarch64 >/dev/null ||
	rig_skip "qemu-system-aarch64 is not installed (apt-get install qemu-system-arm)"
command -v "$TRIPLE-gcc" >/dev/null ||
	rig_fail "$TRIPLE-gcc is missing: run deps.sh test (apt-get install gcc-aarch64-linux-gnu)"

# ---- the kernel and busybox, as Debian ships them for arm64 ------------
# The downloaded .debs are a cache (tests/lib/cache.sh): one dpkg-deb cannot
# read whole is removed and fetched again, and a download is checked
# before it takes the cache's name.  A failed download is tried again
# (retry.sh); each failed try, and what could not be fetched, goes to
# OUT/fetch.log with apt's errors, whose last lines a RIG FAIL quotes.
# shellcheck source=retry.sh
. "$(dirname "$0")/../../retry.sh"
. "$(dirname "$0")/../lib/cache.sh"
fetch() {	# fetch PACKAGE: download and unpack into OUT/cache/root
	local pkg=$1 f dl
	for f in "$OUT/cache/$pkg"_*.deb; do
		[ -e "$f" ] && ! cache_deb_ok "$f" && rm -rf -- "$f"
	done
	if ! ls "$OUT/cache/$pkg"_*.deb >/dev/null 2>&1; then
		dl=$(mktemp -d "$OUT/cache/.dl.XXXXXX") || return 1
		pmu_apt_download "$dl" "$pkg:arm64" >> "$OUT/fetch.log" 2>&1 ||
			{ rm -rf "$dl"; return 1; }
		for f in "$dl"/*.deb; do
			cache_deb_ok "$f" || { echo "$f: unreadable download" >> "$OUT/fetch.log"; rm -rf "$dl"; return 1; }
		done
		mv "$dl"/*.deb "$OUT/cache/" && rmdir "$dl" || return 1
	fi
	dpkg-deb -x "$OUT/cache/$pkg"_*.deb "$OUT/cache/root"
}
mkdir -p "$OUT/cache/root"
kpkg=$(apt-cache depends linux-image-arm64:arm64 2>/dev/null |
    sed -n 's/^ *Depends: \(linux-image-[0-9.]*-[0-9]*-arm64\)\(:arm64\)\?$/\1/p' | head -1)
[ -n "$kpkg" ] || kpkg=$(ls "$OUT/cache" 2>/dev/null |
    sed -n 's/^\(linux-image-.*-arm64\)-unsigned_.*\.deb$/\1/p' | head -1)
[ -n "$kpkg" ] || rig_fail "cannot find Debian's arm64 kernel package: is arm64 added (dpkg --add-architecture arm64) and apt-get update done?"
fetch "$kpkg-unsigned" || rig_fail "apt-get download $kpkg-unsigned:arm64 failed: $(tail -2 "$OUT/fetch.log")"
fetch busybox-static || rig_fail "apt-get download busybox-static:arm64 failed: $(tail -2 "$OUT/fetch.log")"
KERNEL=$(ls "$OUT/cache/root/boot/vmlinuz-"*-arm64 2>/dev/null | head -1)
[ -f "$KERNEL" ] || rig_fail "no vmlinuz in $kpkg-unsigned"

# ---- the daemon and helpers, cross-built from the distribution tree ----
B=$OUT/build
rm -rf "$B" && mkdir -p "$B"
(cd "$B" && "$SRC/configure" -q --host=$TRIPLE --enable-werror \
    PKG_CONFIG_LIBDIR="/usr/lib/$TRIPLE/pkgconfig:/usr/share/pkgconfig" \
    CFLAGS="-O2" && make -s -j"$(nproc)" daemon/pmu_exporter \
    tests/lib/helpers/faults bench/pingpong && \
    make -s tests/lib/helpers/spin tests/lib/helpers/mix LDFLAGS=-static) \
    > "$OUT/build.log" 2>&1 ||
	rig_fail "cross build failed: $(grep -m3 -E 'error|Error' "$OUT/build.log")"

# ---- the initramfs ------------------------------------------------------
R=$OUT/initramfs
rm -rf "$R" && mkdir -p "$R"/{bin,dev,proc,sys,tmp,run,lib/$TRIPLE,pmu/daemon,pmu/bench,pmu/tests/lib/helpers,pmu/tests/integration,pmu/tests/vm}
cp "$OUT/cache/root/bin/busybox" "$R/bin/"
for f in daemon/pmu_exporter tests/lib/helpers/spin tests/lib/helpers/mix tests/lib/helpers/faults bench/pingpong; do
	"$TRIPLE-strip" -o "$R/pmu/$f" "$B/$f" || rig_fail "strip $f"
done
cp "$SRC/tests/lib/lib.sh" "$R/pmu/tests/lib/"
cp "$SRC"/tests/integration/*_hw.test "$R/pmu/tests/integration/"
cp "$SRC"/tests/vm/*.vm "$SRC/tests/vm/guest.sh" "$R/pmu/tests/vm/"
cp "$SRC/tests/vm/guest-init" "$R/init"
chmod 755 "$R/init"

# Shared libraries: DT_NEEDED, transitively, from the multiarch dirs.
findlib() {
	local d
	for d in $MULTIARCH; do
		[ -e "$d/$1" ] && { echo "$d/$1"; return 0; }
	done
	return 1
}
needed() { LC_ALL=C readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
todo="$(needed "$B/daemon/pmu_exporter") $(needed "$B/tests/lib/helpers/faults") $(needed "$B/bench/pingpong") libpfm.so.4"
done_libs=" "
while [ -n "${todo// /}" ]; do
	set -- $todo; lib=$1; shift; todo="$*"
	case "$done_libs" in *" $lib "*) continue ;; esac
	path=$(findlib "$lib") || rig_fail "arm64 library $lib not found in $MULTIARCH (run deps.sh test)"
	cp -L "$path" "$R/lib/$TRIPLE/$lib"
	done_libs="$done_libs$lib "
	todo="$todo $(needed "$path")"
done
interp=$(LC_ALL=C readelf -l "$B/daemon/pmu_exporter" | sed -n 's/.*interpreter: \(.*\)\]/\1/p')
mkdir -p "$R$(dirname "$interp")"
cp -L "$(findlib "$(basename "$interp")")" "$R$interp" || rig_fail "no arm64 $interp"

# ---- the arm64 image's own root, from the multi-arch OCI archive --------
# PMU_VM_IMAGE names the archive packaging/image.sh made (the Makefile's
# vm-boot passes it); its arm64 image's layers are unpacked at /img, where
# tests/vm/image.vm runs that image's daemon on that image's libraries.
# What went wrong goes to /pmu/image.why, which image.vm fails with.
image_root() {
	local oci=$OUT/oci list m d
	rm -rf "$oci" && mkdir -p "$oci" "$R/img" || return 1
	[ -f "$1" ] || { echo "no image archive $1 (make image)"; return 1; }
	tar -xf "$1" -C "$oci" index.json || { echo "$1: no index.json"; return 1; }
	list=$(jq -r '.manifests[0].digest | sub(":"; "/")' "$oci/index.json")
	tar -xf "$1" -C "$oci" "blobs/$list" || { echo "$1: no image index $list"; return 1; }
	m=$(jq -r '.manifests[] | select(.platform.architecture == "arm64") | .digest | sub(":"; "/")' "$oci/blobs/$list")
	[ -n "$m" ] || { echo "$1: no arm64 image in its index"; return 1; }
	tar -xf "$1" -C "$oci" "blobs/$m" || { echo "$1: no manifest $m"; return 1; }
	for d in $(jq -r '.layers[].digest | sub(":"; "/")' "$oci/blobs/$m"); do
		tar -xOf "$1" "blobs/$d" | tar --numeric-owner -xzf - -C "$R/img" ||
			{ echo "$1: layer $d unreadable"; return 1; }
	done
	rm -rf "$oci"
}
image_root "${PMU_VM_IMAGE:-(PMU_VM_IMAGE unset)}" > "$R/pmu/image.why" 2>&1 && rm -f "$R/pmu/image.why"

(cd "$R" && find . | cpio -o -H newc --quiet | gzip -1) > "$OUT/initrd.gz" ||
	rig_fail "packing the initramfs failed"

# ---- boot ---------------------------------------------------------------
# -icount shift=0: one instruction per ns of virtual time, exact counts.
# pauth=off: pointer authentication is slow under TCG and not needed.
# nohz_full=1: no 250 Hz tick on CPU 1, where the workloads run alone,
# so the kernel adds little to what a workload's CPU retires.
# The console goes to the log a line at a time, so it can be followed.
echo "@@@ RIG BOOT $(basename "$KERNEL") $(qemu-system-aarch64 --version | head -1)" >> "$LOG"
FIFO=$OUT/console.fifo
rm -f "$FIFO" && mkfifo "$FIFO" || rig_fail "mkfifo $FIFO"
stdbuf -oL tr -d '\r' < "$FIFO" >> "$LOG" &
TR_PID=$!
qemu-system-aarch64 -M virt -cpu max,pauth=off \
    -accel tcg -icount shift=0 -smp 2 -m 1024 -nic none -nographic -no-reboot \
    -kernel "$KERNEL" -initrd "$OUT/initrd.gz" \
    -append "console=ttyAMA0 rdinit=/init quiet panic=-1 nohz_full=1${PMU_VM_TESTS:+ pmu_tests=$PMU_VM_TESTS}" \
    </dev/null > "$FIFO" 2>&1 &
QEMU_PID=$!
# The watchdog: the log's size every 5 s; silent for QUIET_TIMEOUT, or
# running past CAP_TIMEOUT, ends the guest.
hung= last=-1 quiet=0 began=$SECONDS
while kill -0 "$QEMU_PID" 2>/dev/null; do
	sleep 5
	size=$(stat -c %s "$LOG")
	if [ "$size" != "$last" ]; then last=$size quiet=0; else quiet=$((quiet + 5)); fi
	if [ "$quiet" -ge "$QUIET_TIMEOUT" ]; then
		hung="the guest's console was silent for ${QUIET_TIMEOUT}s"
	elif [ $((SECONDS - began)) -ge "$CAP_TIMEOUT" ]; then
		hung="the guest ran past ${CAP_TIMEOUT}s"
	fi
	if [ -n "$hung" ]; then
		kill "$QEMU_PID" 2>/dev/null
		sleep 5
		kill -9 "$QEMU_PID" 2>/dev/null
		break
	fi
done
wait "$QEMU_PID"
rc=$?
wait "$TR_PID"
rm -f "$FIFO"
[ -n "$hung" ] && rig_fail "$hung (qemu exit $rc)"
grep -q '^@@@ GUEST DONE' "$LOG" || rig_fail "the guest stopped before running every test (qemu exit $rc)"
exit 0
