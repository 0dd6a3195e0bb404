#!/bin/sh
# Builds the desktop front-ends from desktop/ into OUT, ready to install or to try:
#
#   OUT/gnome-43/usedspace@usedspace.github.io/   GNOME Shell 43 and 44 (legacy imports)
#   OUT/gnome-45/usedspace@usedspace.github.io/   GNOME Shell 45 and later (ES modules)
#   OUT/plasma-5/io.github.usedspace/              KDE Plasma 5.27 widget
#   OUT/plasma-6/io.github.usedspace/              KDE Plasma 6 widget
#
# Usage: desktop/build.sh OUT VERSION
#
# The GNOME modules (gnome-shell/src) and the shared formatting (common/format.js) are
# written as ES modules, which GNOME 45 loads as they are; for GNOME 43 each module's
# imports and exports are rewritten to the legacy importer's form, and a form this script
# does not know stops the build (so that nothing half-converted is installed); Plasma takes
# them as ".pragma library" scripts. Each extension gets its GSettings
# schema, compiled (gschemas.compiled, which GNOME reads from the extension's schemas/);
# `make deb` leaves the compiled file out and installs the schema system-wide instead.
set -eu
[ $# -eq 2 ] || { echo "usage: $0 OUT VERSION" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
out=$1
version=$2
uuid=usedspace@usedspace.github.io

# An ES module as a legacy GNOME Shell module: imports become `imports.…` lookups, exported
# classes, constants and functions become the `var`s and functions the importer exposes.
legacy() {
	sed -E \
		-e "s|^import ([A-Za-z]+) from 'gi://([A-Za-z]+)';$|const \1 = imports.gi.\2;|" \
		-e "s|^import \* as ([A-Za-z]+) from 'resource:///org/gnome/shell/(ui\|misc)/([A-Za-z]+)\.js';$|const \1 = imports.\2.\3;|" \
		-e "s|^import \* as ([A-Za-z]+) from '\./([A-Za-z]+)\.js';$|const \1 = imports.misc.extensionUtils.getCurrentExtension().imports.\2;|" \
		-e "s|^import (\{[A-Za-z, ]+\}) from '\./([A-Za-z]+)\.js';$|const \1 = imports.misc.extensionUtils.getCurrentExtension().imports.\2;|" \
		-e "s/^export (const|let) /var /" \
		-e "s/^export class ([A-Za-z]+)/var \1 = class \1/" \
		-e "s/^export function /function /" \
		"$1" >"$2"
	if grep -nE '^(import|export)\b' "$2" >&2; then
		echo "$0: $1: an import or export of a form the GNOME 43 conversion does not know (above)" >&2
		exit 1
	fi
}

gnome() { # VARIANT SHELL_VERSIONS
	dir=$out/gnome-$1/$uuid
	rm -rf "$dir"
	mkdir -p "$dir/schemas"
	for module in "$here"/common/*.js "$here"/gnome-shell/src/*.js; do
		if [ "$1" = 43 ]; then
			legacy "$module" "$dir/$(basename "$module")"
		else
			cp "$module" "$dir/"
		fi
	done
	cp "$here/gnome-shell/gnome-$1/extension.js" "$here/gnome-shell/gnome-$1/prefs.js" \
		"$here/gnome-shell/stylesheet.css" "$dir/"
	sed -e "s|@SHELL_VERSIONS@|$2|" -e "s|@VERSION@|$version|" "$here/gnome-shell/metadata.json.in" >"$dir/metadata.json"
	cp "$here"/gnome-shell/schemas/*.gschema.xml "$dir/schemas/"
	glib-compile-schemas --strict "$dir/schemas"
}

gnome 43 '["43", "44"]'
gnome 45 '["45", "46", "47", "48", "49", "50", "51"]'


# An ES module as a Plasma QML script (".pragma library"): namespace imports become
# `.import`, exports plain declarations. Plasma's modules import only whole modules.
qml_script() {
	{
		echo '.pragma library'
		sed -E \
			-e "s|^import \* as ([A-Za-z]+) from '\./([A-Za-z]+\.js)';$|.import \"\2\" as \1|" \
			-e "s/^export (const|let) /var /" \
			-e "s/^export function /function /" \
			"$1"
	} >"$2"
	if grep -nE '^(import|export)\b' "$2" >&2; then
		echo "$0: $1: an import or export of a form the Plasma conversion does not know (above)" >&2
		exit 1
	fi
}

# A Plasma widget: the files both Plasmas load as they are (plasma/shared), what only this
# Plasma has (plasma/plasma-MAJOR: metadata, main.qml, the theme's and data engine's
# imports), and the scripts. A file in both would silently replace the shared one: refused.
plasmoid() { # MAJOR
	dir=$out/plasma-$1/io.github.usedspace
	rm -rf "$dir"
	mkdir -p "$out/plasma-$1"
	cp -R "$here/plasma/shared" "$dir"
	own=$here/plasma/plasma-$1/io.github.usedspace
	for file in $(cd "$own" && find . -type f); do
		if [ -e "$dir/$file" ]; then
			echo "$0: plasma/plasma-$1/io.github.usedspace/${file#./} is also in plasma/shared: one or the other" >&2
			exit 1
		fi
	done
	cp -R "$own/." "$dir/"
	sed -i "s|@VERSION@|$version|" "$dir/metadata.json"
	mkdir -p "$dir/contents/code"
	for module in "$here"/common/*.js "$here"/plasma/src/*.js; do
		qml_script "$module" "$dir/contents/code/$(basename "$module")"
	done
}

plasmoid 5
plasmoid 6
