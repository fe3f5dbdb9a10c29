# delegate.sh - a tenant for the tests that need one (sourced after
# tests/lib/lib.sh): a throwaway unprivileged user, made with useradd, given
# a delegated subtree the way systemd's Delegate= gives one (the
# directory and its cgroup.procs, cgroup.subtree_control and
# cgroup.threads chowned to the user), under the test's own parent.
# Removed at the end with every cgroup the tenant made, however deep or
# long its paths (find -delete works relative to directory fds).

TENANT= TENANT_UID= TENANT_CG=

# make_tenant REL: the user, and $CG_PARENT/REL delegated to it (made
# with its parents).  Sets TENANT, TENANT_UID and TENANT_CG (the
# directory).
make_tenant() {
	command -v useradd >/dev/null || fail "useradd missing (passwd)"
	command -v runuser >/dev/null || fail "runuser missing (util-linux)"
	TENANT="pmut$(od -An -N3 -tu4 /dev/urandom | tr -d ' ')"
	useradd --system --no-create-home --shell /usr/sbin/nologin "$TENANT" ||
		fail "useradd $TENANT"
	TENANT_UID=$(id -u "$TENANT")
	TENANT_CG="$CG_PARENT/$1"
	mkdir -p "$TENANT_CG" || fail "mkdir $TENANT_CG"
	chown "$TENANT" "$TENANT_CG" || fail "chown $TENANT_CG"
	for f in cgroup.procs cgroup.subtree_control cgroup.threads; do
		[ -e "$TENANT_CG/$f" ] && chown "$TENANT" "$TENANT_CG/$f"
	done
	trap tenant_remove EXIT
}

# Run a command as the tenant, in its delegated directory.
as_tenant() {
	(cd "$TENANT_CG" && runuser -u "$TENANT" -- "$@")
}

tenant_remove() {
	local rc=$?
	if [ -n "$DAEMON_PID" ] && kill -0 "$DAEMON_PID" 2>/dev/null; then
		kill "$DAEMON_PID" 2>/dev/null
		wait "$DAEMON_PID" 2>/dev/null
	fi
	DAEMON_PID=
	[ -n "$TENANT_CG" ] && [ -d "$TENANT_CG" ] &&
		find "$TENANT_CG" -mindepth 1 -depth -type d -delete 2>/dev/null
	[ -n "$TENANT" ] && userdel "$TENANT" 2>/dev/null
	cleanup
	exit $rc
}
