#!/bin/bash
# image.sh OUTDIR [ARCH...] - the OCI image, one per architecture, each
# made offline from that architecture's Debian package in OUTDIR
# (packaging/deb.sh) without running a container, and one image index
# holding them all, saved as one archive (default ARCH: the architecture
# of every pmu-exporter_*.deb in OUTDIR).  For each ARCH:
#
# 1. mmdebstrap --variant=extract --architectures=ARCH unpacks the
#    package's Depends and theirs (no Recommends, nothing Essential: no
#    shell, no apt, no dpkg) into a directory, and dpkg-deb -x the
#    package; no maintainer script runs, none is needed, so an arm64 root
#    is made on an amd64 machine without emulation.
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
# 3. podman import --arch ARCH, in a private store under /tmp, makes the
#    one-layer image with its entrypoint, default arguments, user, port
#    and OCI labels, tagged localhost/pmu-exporter:VERSION-ARCH.
#
# Then podman manifest makes the index localhost/pmu-exporter:VERSION of
# those images, and `podman manifest push --all` writes it with every
# image to OUTDIR/pmu-exporter-VERSION.oci.tar (an OCI archive whose
# index.json names the image index, which names one manifest per
# platform): `podman load` takes the machine's platform from it,
# `ctr images import --all-platforms` all of them.  Prints each image's
# size ("image.sh: ARCH: ...") and, last, the archive's path.
#
# Needs root, mmdebstrap and podman (deps.sh: pmu_install_deps test).
# mmdebstrap's fetch is tried again when it fails (retry.sh:
# PMU_RETRY_TRIES, PMU_RETRY_WAIT); podman fetches nothing.
# PMU_IMAGE_SOURCE and PMU_IMAGE_LICENSES set those two labels.
# Run by `make image` and tests/integration/image.test.
set -eu
out=$(cd "${1:?usage: image.sh OUTDIR [ARCH...]}" && pwd)
shift
srcdir=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=retry.sh
. "$srcdir/retry.sh"
[ $# -gt 0 ] || set -- $(for d in "$out"/pmu-exporter_*.deb; do
	[ -e "$d" ] && dpkg-deb -f "$d" Architecture; done | sort -u)
[ $# -gt 0 ] || { echo "image.sh: no pmu-exporter_*.deb in $out (make deb)" >&2; exit 1; }
debs=
for arch in "$@"; do
	deb=$(ls "$out"/pmu-exporter_*_"$arch".deb 2>/dev/null | tail -1)
	[ -n "$deb" ] || { echo "image.sh: no pmu-exporter_*_$arch.deb in $out (make deb ARCH=$arch)" >&2; exit 1; }
	debs="$debs $deb"
done
version=$(dpkg-deb -f "$deb" Version)
upstream=${version%-*}
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

# extract ARCH DEPS ROOT LOG: one try, from no root: mmdebstrap refuses a
# target directory that is not empty, and a failed try may leave half a
# root there.
extract() {
	rm -rf "$3" || return 1
	mmdebstrap -q --variant=extract --architectures="$1" --include="$2" \
		bookworm "$3" > "$4" 2>&1 || { tail -20 "$4" >&2; return 1; }
}

# strip_root ROOT: what a container does not use goes (step 2).
strip_root() {
	(
		cd "$1"
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
		[ -e "$1/$bad" ] && { echo "image.sh: $bad in the image" >&2; return 1; }
	done
	return 0
}

# image DEB: the image of one architecture, tagged $name-ARCH (steps 1-3).
image() {
	local deb=$1 arch deps root variant=
	arch=$(dpkg-deb -f "$deb" Architecture)
	# The Depends, by name (apt resolves their own dependencies), from
	# the archive; then the package itself.
	deps=$(dpkg-deb -f "$deb" Depends | sed 's/([^)]*)//g; s/|[^,]*//g; s/[[:space:]]//g')
	# ncurses-base is Essential, so no Depends names it: the terminfo of
	# the common terminals (xterm, screen, tmux, linux, vt100), for
	# `pmu_exporter top` in the container (podman exec -it, kubectl exec -it).
	deps="$deps,ncurses-base"
	root="$work/rootfs-$arch"
	pmu_retry "the $arch image's packages $deps (mmdebstrap)" -- \
		extract "$arch" "$deps" "$root" "$work/mmdebstrap-$arch.log" ||
		{ echo "image.sh: mmdebstrap --architectures=$arch failed" >&2; return 1; }
	dpkg-deb -x "$deb" "$root"
	strip_root "$root" || return 1
	# The analysis's state (--analysis.state-file, in CMD): a volume or
	# a host directory there keeps it across containers.
	install -d -m 0700 "$root/var/lib/pmu_exporter"
	tar -C "$root" --numeric-owner --sort=name -cf "$work/rootfs-$arch.tar" .
	# The platform as registries name it: arm64 is variant v8.
	[ "$arch" = arm64 ] && variant=v8
	podman import --os linux --arch "$arch" ${variant:+--variant "$variant"} \
		--change 'ENTRYPOINT ["/usr/bin/pmu_exporter"]' \
		--change 'CMD ["--config.file=/etc/pmu_exporter/pmu_exporter.yaml", "--analysis.state-file=/var/lib/pmu_exporter/analysis.state"]' \
		--change 'USER 0:0' \
		--change 'EXPOSE 10101/tcp' \
		--change "LABEL org.opencontainers.image.title=pmu-exporter" \
		--change "LABEL org.opencontainers.image.description=\"Prometheus exporter for hardware performance counters per CPU and cgroup\"" \
		--change "LABEL org.opencontainers.image.version=$upstream" \
		--change "LABEL org.opencontainers.image.revision=$revision" \
		--change "LABEL org.opencontainers.image.source=\"${PMU_IMAGE_SOURCE:-pmu_exporter $upstream, revision $revision (Debian package $version)}\"" \
		--change "LABEL org.opencontainers.image.licenses=${PMU_IMAGE_LICENSES:-NOASSERTION}" \
		"$work/rootfs-$arch.tar" "$name-$arch" > "$work/import-$arch.log" 2>&1 ||
		{ cat "$work/import-$arch.log"; echo "image.sh: podman import ($arch) failed" >&2; return 1; }
	echo "image.sh: $arch: $(find "$root" ! -type d | wc -l) files, $(du -sk "$root" | cut -f1) KiB unpacked"
	rm -rf "$root" "$work/rootfs-$arch.tar"
}

podman manifest create "$name" > "$work/manifest.log" 2>&1 ||
	{ cat "$work/manifest.log"; echo "image.sh: podman manifest create failed" >&2; exit 1; }
for deb in $debs; do
	image "$deb" || exit 1
	podman manifest add "$name" "containers-storage:$name-$(dpkg-deb -f "$deb" Architecture)" \
		>> "$work/manifest.log" 2>&1 ||
		{ cat "$work/manifest.log"; echo "image.sh: podman manifest add failed" >&2; exit 1; }
done
podman manifest push --all --format oci "$name" "oci-archive:$archive:$name" > "$work/save.log" 2>&1 ||
	{ cat "$work/save.log"; echo "image.sh: podman manifest push to $archive failed" >&2; exit 1; }
# Each image's size as the archive holds it (its layers compressed).
tar -xOf "$archive" index.json > "$work/index.json"
tar -xOf "$archive" "blobs/sha256/$(jq -r '.manifests[0].digest | sub("sha256:"; "")' "$work/index.json")" > "$work/list.json"
jq -r '.manifests[] | "\(.platform.architecture) \(.digest | sub("sha256:"; ""))"' "$work/list.json" |
while read -r arch digest; do
	echo "image.sh: $arch: $(tar -xOf "$archive" "blobs/sha256/$digest" | jq '[.layers[].size] | add') bytes compressed"
done
echo "$archive"
