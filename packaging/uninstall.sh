#!/bin/sh
# `make uninstall`: removes what `make install` installed at PREFIX, and says what it removed
# and what it kept. Run by the Makefile with DESTDIR, PREFIX, MANIFEST, USERUNITDIR and
# KNOWN_FILES in the environment.
#
# What to remove: the files listed in the manifest that `make install` wrote at
# $MANIFEST. An install made before manifests existed has none: then the files of ours that
# are at PREFIX's usual paths (KNOWN_FILES). When neither finds anything, nothing of ours was
# installed at this PREFIX: it fails, and says where usedspace is installed, if it can tell.
#
# First, unless staging (DESTDIR), every running user manager that loaded our units from the
# directory being emptied stops and disables them (your own manager; and every user's when
# run as root, as for PREFIX=/usr/local), so that no daemon goes on running from a deleted
# binary and no sockets.target.wants link is left dangling; after the removal those managers
# reload. What users keep in their home directories, configuration and state, stays: it says
# where it is.
set -eu

here=$(dirname "$0")
# shellcheck source=packaging/user-managers.sh
. "$here/user-managers.sh"

DESTDIR=${DESTDIR:-}
manifest=$DESTDIR$MANIFEST

say() { printf 'usedspace: %s\n' "$*"; }

# Prints where usedspace is installed, as far as can be told, for the error below.
where_installed() {
	for prefix in "${HOME:-}/.local" /usr/local /usr /opt/usedspace; do
		[ -n "$prefix" ] && [ "$prefix" != "$PREFIX" ] || continue
		if [ -f "$DESTDIR$prefix/share/usedspace/installed-files" ]; then
			echo "  installed by make install at $prefix: make uninstall PREFIX=$prefix"
		fi
	done
	if dpkg-query -W -f='${Status}' usedspace 2>/dev/null | grep -q ' installed$'; then
		echo "  installed by the Debian package usedspace: sudo apt purge usedspace"
	fi
	if found=$(command -v usedspace 2>/dev/null) && [ -n "$found" ]; then
		echo "  usedspace on your PATH is $found"
	fi
}

if [ -f "$manifest" ]; then
	files=$(grep -v '^[[:space:]]*$' "$manifest" || true)
else
	files=
	for file in $KNOWN_FILES; do
		if [ -e "$DESTDIR$file" ] || [ -L "$DESTDIR$file" ]; then files="$files
$file"; fi
	done
	files=$(printf '%s\n' "$files" | grep -v '^$' || true)
	if [ -z "$files" ]; then
		{
			echo "make uninstall: nothing of usedspace is installed under PREFIX=$PREFIX${DESTDIR:+ (DESTDIR=$DESTDIR)}:"
			echo "  no $manifest, which make install writes, and none of its files there."
			echo "  Pass the PREFIX you installed with, e.g. make uninstall PREFIX=\$HOME/.local"
			where_installed
		} >&2
		exit 1
	fi
	say "no list of installed files at $manifest (an older make install): removing our files found under $PREFIX"
fi

# The directories our units are in (normally one: USERUNITDIR at install time).
unit_dirs=$(printf '%s\n' "$files" | sed -n 's|/usedspace\.s[a-z]*$||p' | sort -u)
if [ -z "$DESTDIR" ]; then
	for dir in $unit_dirs; do
		[ -e "$dir/usedspace.socket" ] || [ -e "$dir/usedspace.service" ] || continue
		usedspace_in_user_managers "$dir" disable --now usedspace.socket usedspace.service
	done
fi

removed=0
for file in $files; do
	if [ -e "$DESTDIR$file" ] || [ -L "$DESTDIR$file" ]; then
		rm -f "$DESTDIR$file"
		say "removed $DESTDIR$file"
		removed=$((removed + 1))
	else
		say "already gone: $DESTDIR$file"
	fi
done
if [ -f "$manifest" ]; then
	rm -f "$manifest"
	say "removed $manifest"
	rmdir "$(dirname "$manifest")" 2>/dev/null || true
fi

# The desktop front-ends' directories, emptied above, go too (none of them is shared).
for dir in ${DESKTOP_DIRS:-}; do
	[ -d "$DESTDIR$dir" ] && find "$DESTDIR$dir" -depth -type d -empty -delete
done

# The managers that had our units forget them.
usedspace_in_same_user_managers daemon-reload

# What stays: the invoking user's configuration and state (and other users' when run as root
# for a shared PREFIX).
if [ -z "$DESTDIR" ]; then
	config=${XDG_CONFIG_HOME:-${HOME:-}/.config}/usedspace
	state=${XDG_STATE_HOME:-${HOME:-}/.local/state}/usedspace
	if [ -e "$config" ]; then
		say "kept your configuration: $config (rm -r it to remove it)"
		textfile_dir=$(sed -n 's/^[[:space:]]*textfile-dir[[:space:]]*=[[:space:]]*//p' "$config/config" 2>/dev/null | tail -n 1)
		case $textfile_dir in "~"/*) textfile_dir=${HOME:-}${textfile_dir#"~"} ;; esac
		if [ -n "$textfile_dir" ] && [ -e "$textfile_dir/usedspace.prom" ]; then
			say "kept the Prometheus textfile $textfile_dir/usedspace.prom, which the node exporter goes on exporting: rm it to stop that"
		fi
	else
		say "no configuration of yours at $config"
	fi
	if [ -e "$state" ]; then
		say "kept your state: $state (the last snapshots; rm -r it to remove it)"
	else
		say "no state of yours at $state"
	fi
	if [ "$(id -u)" = 0 ]; then
		case $PREFIX in
		"${HOME:-/root}"/*) ;;
		*) say "kept every other user's ~/.config/usedspace and ~/.local/state/usedspace" ;;
		esac
	fi
fi
say "uninstalled from $PREFIX: $removed files removed"
