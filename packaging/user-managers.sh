# usedspace_in_user_managers DIR COMMAND...
#
# Runs `systemctl --user COMMAND...` in every running systemd user manager that loaded
# usedspace.socket or usedspace.service from the directory DIR, as that manager's own user,
# and prints one line for each. DIR is where the units are being removed from or replaced:
# /usr/lib/systemd/user for the Debian package, $(PREFIX)/share/systemd/user for
# `make install`. A manager whose usedspace units come from elsewhere (another install of
# its user's own) is left alone.
#
# Which managers: the caller's own, when $XDG_RUNTIME_DIR/systemd/private is a socket; and,
# when the caller is root, every /run/user/UID/systemd/private, the private socket of each
# user's manager (user@UID.service on a machine booted with systemd). systemctl talks to a
# manager of its own user through that socket directly, without D-Bus, so this works with or
# without a session bus, and also where PID 1 is not systemd.
#
# Why not deb-systemd-invoke --user (init-system-helpers 1.65): it finds the user managers by
# asking the system manager for its user@*.service units, reaches each through
# `systemctl --machine UID@`, which needs the user's D-Bus session bus (dbus-user-session),
# and it only starts, restarts and stops: it cannot disable. deb-systemd-helper --user
# enables and disables units for all users at once (/etc/systemd/user), which this package
# does not do: each user enables the socket for themselves.
#
# Never fails: a manager that cannot be reached is skipped. POSIX sh; used by the package's
# maintainer scripts (pasted in by `make deb`) and by `make uninstall`.
usedspace_in_user_managers() {
	usedspace_units=$1
	shift
	command -v systemctl >/dev/null 2>&1 || return 0
	usedspace_own=
	if [ -n "${XDG_RUNTIME_DIR:-}" ] && [ -S "$XDG_RUNTIME_DIR/systemd/private" ]; then
		usedspace_own=$XDG_RUNTIME_DIR
		usedspace_in_user_manager "$usedspace_units" "" "$XDG_RUNTIME_DIR" "$@"
	fi
	[ "$(id -u)" = 0 ] || return 0
	for usedspace_private in /run/user/*/systemd/private; do
		[ -S "$usedspace_private" ] || continue
		usedspace_runtime=${usedspace_private%/systemd/private}
		[ "$usedspace_runtime" != "$usedspace_own" ] || continue
		usedspace_uid=${usedspace_runtime##*/}
		case $usedspace_uid in '' | *[!0-9]*) continue ;; esac
		usedspace_in_user_manager "$usedspace_units" "$usedspace_uid" "$usedspace_runtime" "$@"
	done
	return 0
}

# usedspace_in_user_manager DIR UID RUNTIME_DIR COMMAND...: one manager (UID empty: the
# caller's own).
usedspace_in_user_manager() {
	usedspace_units=$1 usedspace_uid=$2 usedspace_runtime=$3
	shift 3
	if [ -n "$usedspace_uid" ]; then
		usedspace_entry=$(getent passwd "$usedspace_uid") || return 0
		usedspace_who=${usedspace_entry%%:*}
		usedspace_gid=$(echo "$usedspace_entry" | cut -d: -f4)
	else
		usedspace_who=$(id -un 2>/dev/null || id -u)
	fi
	# Where this manager loads the units from (an empty line for a unit it cannot find).
	usedspace_from=$(usedspace_systemctl show --property=FragmentPath --value usedspace.socket usedspace.service 2>/dev/null) || return 0
	usedspace_real=$(readlink -f "$usedspace_units" 2>/dev/null) || usedspace_real=$usedspace_units
	case $usedspace_from in
	*"$usedspace_units/usedspace."* | *"$usedspace_real/usedspace."*) ;;
	*) return 0 ;;
	esac
	usedspace_acted="$usedspace_acted $usedspace_uid:$usedspace_runtime"
	usedspace_run_in_manager "$@"
}

# usedspace_in_same_user_managers COMMAND...: `systemctl --user COMMAND...` again in the
# managers where usedspace_in_user_managers ran a command, in this same shell (as
# `make uninstall` reloads them once the files are gone, when they may have forgotten where
# the units came from).
usedspace_acted=
usedspace_in_same_user_managers() {
	for usedspace_manager in $usedspace_acted; do
		usedspace_uid=${usedspace_manager%%:*} usedspace_runtime=${usedspace_manager#*:}
		if [ -n "$usedspace_uid" ]; then
			usedspace_entry=$(getent passwd "$usedspace_uid") || continue
			usedspace_who=${usedspace_entry%%:*}
			usedspace_gid=$(echo "$usedspace_entry" | cut -d: -f4)
		else
			usedspace_who=$(id -un 2>/dev/null || id -u)
		fi
		usedspace_run_in_manager "$@"
	done
	return 0
}

# usedspace_run_in_manager COMMAND...: runs it in the chosen manager and says how it went.
usedspace_run_in_manager() {
	if usedspace_output=$(usedspace_systemctl "$@" 2>&1); then
		echo "usedspace: ran systemctl --user $* in the user manager of $usedspace_who"
	else
		echo "usedspace: systemctl --user $* failed in the user manager of $usedspace_who: $usedspace_output" >&2
	fi
	return 0
}

# usedspace_systemctl COMMAND...: `systemctl --user COMMAND...` in the manager chosen by
# usedspace_in_user_manager, as its user, within a minute.
usedspace_systemctl() {
	if [ -n "$usedspace_uid" ]; then
		timeout 60 setpriv --reuid="$usedspace_uid" --regid="$usedspace_gid" --init-groups -- \
			env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin XDG_RUNTIME_DIR="$usedspace_runtime" systemctl --user "$@"
	else
		timeout 60 systemctl --user "$@"
	fi
}
