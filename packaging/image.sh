#!/bin/bash
# image.sh OUTDIR - the OCI image, made offline from the Debian package in
# OUTDIR (packaging/deb.sh) without running a container:
#
# 1. mmdebstrap --variant=extract unpacks the package's Depends and
#    theirs (no Recommends, nothing Essential: no shell, no apt, no dpkg)
#    into a directory, and dpkg-deb -x the package; no maintainer script
#    runs, none is needed.
# 2. What a container does not use goes: documentation but the copyright
#    files, man pages, glibc's iconv modules, the systemd units and /etc/default (no systemd in
#    a container), the contrib files, apt's and dpkg's state.  A passwd
#    and group file name root (the image's user) and nobody.
#    The image runs as uid 0 because a runtime's added capabilities
#    (--cap-add, Kubernetes' capabilities.add) take effect for uid 0
#    only: podman, Docker and Kubernetes give another user no ambient
#    capabilities, and `ctr run` cannot even change the user.  Run it
#    with every capability dropped but PERFMON and BPF (docs/install.md, "The OCI
#    image"): uid 0 then holds those two and nothing else.
# 3. podman import, in a private store under /tmp, makes the one-layer
#    image with its entrypoint, default arguments, user, port and OCI
#    labels, tagged localhost/pmu-exporter:VERSION; podman save writes
#    OUTDIR/pmu-exporter-VERSION.oci.tar (an OCI archive).
#
# Needs root, mmdebstrap and podman (deps.sh: pmu_install_deps test).
# mmdebstrap's fetch is tried again when it fails (retry.sh:
# PMU_RETRY_TRIES, PMU_RETRY_WAIT); podman fetches nothing.
# PMU_IMAGE_SOURCE and PMU_IMAGE_LICENSES set those two labels.
# Run by `make image` and tests/image.test.
set -eu
out=$(cd "${1:?usage: image.sh OUTDIR}" && pwd)
srcdir=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=retry.sh
. "$srcdir/retry.sh"
deb=$(ls "$out"/pmu-exporter_*.deb 2>/dev/null | tail -1)
[ -n "$deb" ] || { echo "image.sh: no pmu-exporter_*.deb in $out (make deb)" >&2; exit 1; }
version=$(dpkg-deb -f "$deb" Version)
upstream=${version%-*}
arch=$(dpkg-deb -f "$deb" Architecture)
revision=$(git -C "$srcdir" rev-parse --short HEAD 2>/dev/null || echo unknown)
name=localhost/pmu-exporter:$upstream
work="$out/image-work"
archive="$out/pmu-exporter-$upstream.oci.tar"
# podman's store and run root live in a private directory of their own
# under /tmp, not under OUTDIR: podman refuses a run root longer than 50
# characters, and a build tree under a home directory or a CI workspace
# is deeper than that.  TMPDIR is not used for the same reason.
store=
rm -rf "$work" "$archive"
mkdir -p "$work"
trap 'rm -rf "$work" ${store:+"$store"}' EXIT
store=$(mktemp -d /tmp/pmuimg.XXXXXX)
podman() { command podman --root "$store/s" --runroot "$store/r" --storage-driver vfs \
	--cgroup-manager cgroupfs --events-backend none "$@"; }

# The Depends, by name (apt resolves their own dependencies), from the
# archive; then the package itself.
deps=$(dpkg-deb -f "$deb" Depends | sed 's/([^)]*)//g; s/|[^,]*//g; s/[[:space:]]//g')
root="$work/rootfs"
# One try, from no root: mmdebstrap refuses a target directory that is
# not empty, and a failed try may leave half a root there.
extract() {
	rm -rf "$root" || return 1
	mmdebstrap -q --variant=extract --architectures="$arch" --include="$deps" \
		bookworm "$root" > "$work/mmdebstrap.log" 2>&1 ||
		{ tail -20 "$work/mmdebstrap.log" >&2; return 1; }
}
pmu_retry "the image's packages $deps (mmdebstrap)" -- extract ||
	{ echo "image.sh: mmdebstrap failed" >&2; exit 1; }
dpkg-deb -x "$deb" "$root"
(
	cd "$root"
	find usr/share/doc -mindepth 1 ! -type d ! -name copyright -delete
	find usr/share/doc -mindepth 1 -type d -empty -delete
	rm -rf usr/share/man usr/share/info usr/share/locale usr/share/lintian usr/share/bug \
		usr/share/pmu-exporter lib/systemd etc/default etc/apt var/lib/apt var/lib/dpkg \
		var/cache var/log
	# glibc's iconv modules: the daemon converts no character sets.
	rm -rf usr/lib/*-linux-gnu/gconv
	printf 'root:x:0:0:root:/root:/nonexistent\nnobody:x:65534:65534:nobody:/nonexistent:/nonexistent\n' > etc/passwd
	printf 'root:x:0:\nnogroup:x:65534:\n' > etc/group
	mkdir -p proc sys dev run tmp
	chmod 1777 tmp
)
for bad in bin/sh bin/bash bin/dash usr/bin/apt usr/bin/dpkg; do
	[ -e "$root/$bad" ] && { echo "image.sh: $bad in the image" >&2; exit 1; }
done
tar -C "$root" --numeric-owner --sort=name -cf "$work/rootfs.tar" .

podman import \
	--change 'ENTRYPOINT ["/usr/bin/pmu_exporter"]' \
	--change 'CMD ["--config.file=/etc/pmu_exporter/pmu_exporter.yaml"]' \
	--change 'USER 0:0' \
	--change 'EXPOSE 10101/tcp' \
	--change "LABEL org.opencontainers.image.title=pmu-exporter" \
	--change "LABEL org.opencontainers.image.description=\"Prometheus exporter for hardware performance counters per CPU and cgroup\"" \
	--change "LABEL org.opencontainers.image.version=$upstream" \
	--change "LABEL org.opencontainers.image.revision=$revision" \
	--change "LABEL org.opencontainers.image.source=\"${PMU_IMAGE_SOURCE:-pmu_exporter $upstream, revision $revision (Debian package $version)}\"" \
	--change "LABEL org.opencontainers.image.licenses=${PMU_IMAGE_LICENSES:-NOASSERTION}" \
	"$work/rootfs.tar" "$name" > "$work/import.log" 2>&1 ||
	{ cat "$work/import.log"; echo "image.sh: podman import failed" >&2; exit 1; }
podman save --format oci-archive -o "$archive" "$name" > "$work/save.log" 2>&1 ||
	{ cat "$work/save.log"; echo "image.sh: podman save failed" >&2; exit 1; }
echo "$archive"
