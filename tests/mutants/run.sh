#!/bin/bash
# tests/mutants/run.sh - the mutation check (`make mutants`): does every
# test that should fail, fail?
#
# tests/mutants/mutants.tsv names one-line mutations of the product, one
# a line: NAME, FILE, the exact text to replace (it must occur exactly
# once in FILE), what replaces it, and the tests that must kill it
# (TESTS for `make check`), tab-separated.  Each is applied in turn to a
# copy of this tree (the working tree as it is, so uncommitted work is
# checked too), the copy is rebuilt, only those tests run, and the
# mutant is "killed" when one of them fails, "survived" when all pass.
# A mutant that does not build is "invalid", not killed: a mutation the
# compiler rejects proves nothing about the tests.  The original file
# is put back (and touched, so make rebuilds it) after each.
#
#   make mutants                       all of them
#   tests/mutants/run.sh [NAME...]     some, from a checkout (as root)
#   MUTANTS_DIR=/tmp/m tests/mutants/run.sh   keep the copy there
#   tests/mutants/run.sh --check       the list alone, nothing built
#
# --check reads every row without building: its NAME is no other row's,
# its FILE exists, its FROM occurs there exactly once, and each of its
# TESTS is a test the Makefiles list (a *_tests or *_TESTS variable of
# tests/Makefile.inc or packaging/Makefile.inc) whose file exists.  It
# names each bad row and exits 1 if there is one: a row left behind when
# code or a test moves is caught by tests/integration/layering.test, not
# at the next `make mutants`.
#
# Ends with a table and "N killed, N survived, N invalid"; exits 1 unless
# every mutant was killed.  Needs what ./check.sh needs (deps.sh test).
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
list="$src/tests/mutants/mutants.tsv"

# from_count FILE FROM: how many times FROM (<NL> a newline, <TAB> a tab)
# occurs in FILE.
from_count() {
	FROM=$2 perl -0777 -ne '
		(my $f = $ENV{FROM}) =~ s/<NL>/\n/g; $f =~ s/<TAB>/\t/g;
		my $n = () = /\Q$f\E/g; print $n' "$1"
}

# The tests the Makefiles list, one a line.
listed_tests() {
	perl -ne '
		$_ = $p . $_; $p = "";
		if (s/\\\n$/ /) { $p = $_; next }
		print "$_\n" for /^\s*\w+_(?:tests|TESTS)\s*\+?=(.*)/ ? grep { m{^tests/} } split " ", $1 : ();
	' "$src/tests/Makefile.inc" "$src/packaging/Makefile.inc"
}

check_list() {
	local listed name file from to tests t n why bad=0 seen=' '
	listed=" $(listed_tests | tr '\n' ' ') "
	while IFS=$'\t' read -r name file from to tests; do
		case "$name" in ''|'#'*) continue ;; esac
		why=
		case "$seen" in *" $name "*) why="a row before has its name" ;; esac
		seen="$seen$name "
		if [ ! -f "$src/$file" ]; then
			why="$file does not exist"
		else
			n=$(from_count "$src/$file" "$from")
			[ "$n" = 1 ] || why="FROM occurs $n times in $file"
		fi
		[ -n "$tests" ] || why="${why:+$why; }no TESTS"
		for t in $tests; do
			case "$listed" in
			*" $t "*) [ -f "$src/$t" ] || [ -f "$src/$t.c" ] ||
				why="${why:+$why; }$t is listed but has no file" ;;
			*) why="${why:+$why; }$t is not a test the Makefiles list" ;;
			esac
		done
		[ -z "$why" ] || { echo "mutants: $name: $why"; bad=$((bad + 1)); }
	done < "$list"
	[ $bad = 0 ] || { echo "mutants: $bad bad rows in tests/mutants/mutants.tsv"; return 1; }
	echo "mutants: every row applies once and names listed tests"
}
[ "${1:-}" = --check ] && { check_list; exit; }

work=${MUTANTS_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/pmu_mutants.XXXXXX")}
jobs=$(nproc)
mkdir -p "$work"

echo "mutants: copying $src to $work"
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$src" && git ls-files -z --cached --others --exclude-standard |
	    xargs -0 cp --parents -t "$work") || exit 1
else
	cp -a "$src/." "$work/" || exit 1
fi
cd "$work" || exit 1
echo "mutants: building the unmutated tree"
{ autoreconf -fi && ./configure -q && make -j"$jobs" &&
    make -j"$jobs" check TESTS= VM_TESTS= VALGRIND_TESTS=; } >build.log 2>&1 ||
	{ tail -20 build.log; echo "mutants: the unmutated tree does not build"; exit 1; }

restore() {
	[ -n "${cur:-}" ] && [ -f "$cur.orig" ] && mv -f "$cur.orig" "$cur" && touch "$cur"
	cur=
}
trap 'restore; exit 130' INT TERM HUP

killed=0 survived=0 invalid=0 table= t_all=$(date +%s)
while IFS=$'\t' read -r name file from to tests; do
	case "$name" in ''|'#'*) continue ;; esac
	if [ $# -gt 0 ]; then
		want=0
		for a in "$@"; do [ "$a" = "$name" ] && want=1; done
		[ $want = 1 ] || continue
	fi
	t0=$(date +%s)
	cur=$file
	cp -p "$file" "$file.orig"
	# Exactly one occurrence, replaced literally.
	if ! FROM=$from TO=$to perl -0777 -i -pe '
		for my $k ("FROM", "TO") { $ENV{$k} =~ s/<NL>/\n/g; $ENV{$k} =~ s/<TAB>/\t/g }
		$n = () = /\Q$ENV{FROM}\E/g;
		if ($n != 1) { print STDERR "occurs $n times\n"; exit 3 }
		s/\Q$ENV{FROM}\E/$ENV{TO}/;' "$file" 2>"mutant.err"; then
		result="invalid ($(cat mutant.err | tr -d '\n'))"
		invalid=$((invalid + 1))
	elif ! make -s -j"$jobs" >mutant.log 2>&1 ||
	    ! make -s -j"$jobs" check TESTS= VM_TESTS= VALGRIND_TESTS= >>mutant.log 2>&1; then
		result="invalid (does not build)"
		invalid=$((invalid + 1))
	else
		# shellcheck disable=SC2086
		make -s check TESTS="$tests" VM_TESTS= VALGRIND_TESTS= >mutant.log 2>&1
		# automake's driver prints one line per test run.
		by=$(sed -n 's/^\(FAIL\|ERROR\): \(tests\/[^ ]*\).*/\2/p' mutant.log | tr '\n' ' ')
		if [ -n "$by" ]; then
			result="killed by ${by% }"
			killed=$((killed + 1))
		else
			result="SURVIVED"
			survived=$((survived + 1))
		fi
	fi
	restore
	line=$(printf '| %s | %s | %s | %s | %ss |' "$name" "$file" "$tests" "$result" $(( $(date +%s) - t0 )))
	echo "$line"
	table="$table$line"$'\n'
done < "$list"

echo
echo "| mutant | file | tests | result | time |"
echo "|---|---|---|---|---|"
printf '%s' "$table"
echo "mutants: $(( $(date +%s) - t_all ))s in all, in $work"
echo "$killed killed, $survived survived, $invalid invalid"
[ "$survived" = 0 ] && [ "$invalid" = 0 ]
