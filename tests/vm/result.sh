#!/bin/sh
# result.sh - the automake log compiler of the tests/vm/*.vm tests: the
# guest already ran them (tests/vm/rig.sh, once per `make check`); this
# prints the named test's part of the guest console and exits with its
# status.
#
#   result.sh tests/vm/NAME.vm
#
# The guest always has a PMU, so a guest test that skipped (77) fails
# here: a hardware test must never skip in the guest.  The whole rig may
# skip only when the host cannot run it at all ("@@@ RIG SKIP").
name=${1##*/}
name=${name%.vm}
log=${top_builddir:-.}/tests/vm/console.log
[ -f "$log" ] || { echo "FAIL: $log is missing: the rig did not run"; exit 1; }

why=$(sed -n 's/^@@@ RIG SKIP //p' "$log")
[ -n "$why" ] && { echo "SKIP: $why"; exit 77; }
sed -n '/^@@@ RIG BOOT/p; /^@@@ GUEST UP/p' "$log"
why=$(sed -n 's/^@@@ RIG FAIL //p' "$log")
if [ -n "$why" ]; then
	echo "FAIL: the guest rig failed: $why"
	tail -40 "$log"
	exit 1
fi
if ! grep -q "^@@@ END $name " "$log"; then
	echo "FAIL: the guest did not run $name"
	tail -40 "$log"
	exit 1
fi
sed -n "/^@@@ BEGIN $name\$/,/^@@@ END $name /p" "$log"
rc=$(sed -n "s/^@@@ END $name \\([0-9]*\\)\$/\\1/p" "$log")
case $rc in
0)	exit 0 ;;
77)	echo "FAIL: $name skipped in the guest, which has a PMU"; exit 1 ;;
*)	exit 1 ;;
esac
