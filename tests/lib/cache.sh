# cache.sh - the caches the test suite keeps between runs, correct by
# construction.  Sourced by tests/integration/package.test (the minimal Debian root
# and the .debs apt fetched into it), tests/vm/rig.sh (the arm64 kernel
# and busybox packages) and tests/integration/cache.test, which checks these rules.
#
# One rule for every cache entry: it is what its name says, or it is
# absent.  An entry is built under a temporary name in the same directory,
# in a format the builder is told (never guessed from a file name), read
# back whole, and only then renamed into place; rename(2) is atomic, so a
# reader sees the old entry or the new one, never half of one.  Whatever
# else sits under the entry's name (a directory, an empty or truncated
# file, anything tar or dpkg-deb cannot read to its end) counts as absent:
# it is removed and built again, never trusted.
#
# PMU_TEST_CACHE names the cache directory (default
# /var/cache/pmu_exporter-test); under CI=true, ./check.sh points it at
# a new empty directory and removes that at the end, so CI on a
# developer's machine meets what a new machine meets.
#
# mmdebstrap fetches from the archive, so it runs under pmu_retry
# (retry.sh), each try from an empty target.

# shellcheck source=retry.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../retry.sh"

# cache_tar_ok FILE: FILE is a regular file that tar reads to its end.
cache_tar_ok() {
	[ -f "$1" ] && [ ! -L "$1" ] && [ -s "$1" ] && tar -tf "$1" >/dev/null 2>&1
}

# cache_deb_ok FILE: FILE is a regular file that dpkg-deb reads whole
# (its control and every byte of its data member).
cache_deb_ok() {
	[ -f "$1" ] && [ ! -L "$1" ] && [ -s "$1" ] &&
		dpkg-deb --info "$1" >/dev/null 2>&1 &&
		dpkg-deb --fsys-tarfile "$1" 2>/dev/null | tar -t >/dev/null 2>&1
}

# cache_tar FILE BUILDER [ARG...]: make FILE a valid tarball.  A valid
# one is kept; anything else under its name is removed, and
# `BUILDER ARG... TMP` runs, where TMP is a fresh name ending in .tar in
# FILE's directory that BUILDER must write as a tar archive.  TMP becomes
# FILE only if tar reads it whole.  Prints "cache: kept FILE" or
# "cache: built FILE (REASON)"; returns non-zero, with FILE absent, when
# BUILDER fails or writes anything but a tarball.  The caller serialises
# concurrent users (flock).
cache_tar() {
	local file=$1 why tmp rc
	shift
	if cache_tar_ok "$file"; then
		echo "cache: kept $file"
		return 0
	fi
	if [ -d "$file" ] && [ ! -L "$file" ]; then why="a directory was in its place"
	elif [ -L "$file" ]; then why="a symbolic link was in its place"
	elif [ ! -e "$file" ]; then why="absent"
	elif [ ! -s "$file" ]; then why="empty"
	else why="unreadable by tar (truncated or not a tarball)"
	fi
	rm -rf -- "$file" || return 1
	tmp="${file%/*}/.tmp.$$.$RANDOM.${file##*/}"
	case "$tmp" in *.tar) ;; *) tmp="$tmp.tar" ;; esac
	rm -rf -- "$tmp"
	"$@" "$tmp"
	rc=$?
	if [ $rc != 0 ]; then
		rm -rf -- "$tmp"
		echo "cache: building $file failed (exit $rc): $*" >&2
		return 1
	fi
	if ! cache_tar_ok "$tmp"; then
		if [ -d "$tmp" ]; then
			echo "cache: $* wrote a directory, not a tarball, for $file" >&2
		else
			echo "cache: $* wrote no readable tarball for $file" >&2
		fi
		rm -rf -- "$tmp"
		return 1
	fi
	mv -f -- "$tmp" "$file" || { rm -rf -- "$tmp"; return 1; }
	echo "cache: built $file ($why)"
}

# cache_debs_prune DIR: remove every *.deb in DIR that dpkg-deb cannot
# read whole, and anything under a .deb name that is not a regular file.
# Prints how many went.
cache_debs_prune() {
	local f n=0
	for f in "$1"/*.deb; do
		[ -e "$f" ] || [ -L "$f" ] || continue
		cache_deb_ok "$f" && continue
		rm -rf -- "$f"
		n=$((n + 1))
	done
	[ $n = 0 ] || echo "cache: removed $n unreadable .deb file(s) from $1"
}

# cache_debs_add DIR FILE...: copy each readable .deb FILE into DIR,
# through a temporary name, keeping what is there.
cache_debs_add() {
	local dir=$1 f base tmp
	shift
	for f in "$@"; do
		[ -f "$f" ] || continue
		base=${f##*/}
		cache_deb_ok "$dir/$base" && continue
		cache_deb_ok "$f" || continue
		tmp="$dir/.tmp.$$.$base"
		cp -- "$f" "$tmp" && mv -f -- "$tmp" "$dir/$base" || rm -f -- "$tmp"
	done
}

# cache_debian_root DIR INCLUDE LOG: the minimal Debian 12 root with the
# packages INCLUDE (comma-separated), as a tarball in DIR, made by
# mmdebstrap once an ISO week (its package lists and the archive move on)
# and kept in DIR/base-YEAR-WEEK-KEY.tar; the .debs that apt later
# fetches into it are kept in DIR/archives and go with the root they were
# fetched for.  mmdebstrap's output goes to LOG.  Prints the tarball's
# path on stdout (what it did on stderr); the caller holds DIR's lock.
cache_debian_root() {
	local dir=$1 include=$2 log=$3 key base old
	key=$(printf 'bookworm minbase %s' "$include" | sha256sum | cut -c1-12)
	base="$dir/base-$(date +%G-%V)-$key.tar"
	mkdir -p "$dir/archives" || return 1
	for old in "$dir"/base-*.tar; do
		[ "$old" = "$base" ] || rm -rf -- "$old"
	done
	cache_tar_ok "$base" || rm -rf -- "$dir"/archives/*.deb
	cache_tar "$base" cache_mmdebstrap "$include" "$log" >&2 || return 1
	cache_debs_prune "$dir/archives" >&2
	echo "$base"
}

# cache_mmdebstrap INCLUDE LOG OUT: mmdebstrap writes the root to OUT as a
# tarball, told so: mmdebstrap 1.3.5 otherwise picks the format from
# OUT's name, and a name it does not know becomes a directory.  A failed
# fetch is tried again (pmu_retry); LOG holds the last try's output.
cache_mmdebstrap() {
	pmu_retry "a minimal Debian 12 root with $1 (mmdebstrap)" -- cache_mmdebstrap_try "$@"
}
# One try.  What a failed one left under OUT (half a tarball) is removed
# first: the next must not append to it or be refused by it.
cache_mmdebstrap_try() {
	echo "making $3 (mmdebstrap)" >&2
	rm -rf -- "$3" || return 1
	mmdebstrap -q --format=tar --variant=minbase --include="$1" --skip=cleanup/apt/lists \
		bookworm "$3" > "$2" 2>&1 || { tail -20 "$2" >&2; return 1; }
}
