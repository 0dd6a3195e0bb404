#!/bin/sh
# Packs the desktop front-ends that desktop/build.sh built in BUILD into the forms the stores
# take, in DIST:
#
#   usedspace-VERSION-gnome-shell-43.zip   extensions.gnome.org, GNOME Shell 43 and 44
#   usedspace-VERSION-gnome-shell-45.zip   extensions.gnome.org, GNOME Shell 45 and later
#   usedspace-VERSION-plasma-5.plasmoid    the KDE Store, Plasma 5.27
#   usedspace-VERSION-plasma-6.plasmoid    the KDE Store, Plasma 6
#
# Usage: desktop/dist.sh BUILD DIST VERSION
#
# Each is a zip of the extension's or the widget's directory, its files at the top as
# `gnome-extensions pack` and kpackagetool expect them. GNOME 44 and later compile an
# extension's settings schema when they install it (and extensions.gnome.org refuses a
# compiled one for 45 and later): the 45 zip holds the schema's XML only; GNOME 43 does not,
# so its zip keeps the compiled schema beside the XML. The entries are sorted and dated
# 1980-01-01, so that the same sources make the same archives.
set -eu
[ $# -eq 3 ] || { echo "usage: $0 BUILD DIST VERSION" >&2; exit 2; }
build=$1
dist=$2
version=$3
uuid=usedspace@usedspace.github.io
command -v python3 >/dev/null || { echo "$0: needs python3 (its zipfile module writes the archives)" >&2; exit 1; }

pack() { # DIRECTORY ARCHIVE [LEFT_OUT]
	python3 - "$@" <<'EOF'
import os, sys, zipfile
directory, archive = sys.argv[1], sys.argv[2]
left_out = set(sys.argv[3:])
names = sorted(os.path.relpath(os.path.join(top, name), directory)
               for top, _, files in os.walk(directory) for name in files)
with zipfile.ZipFile(archive + ".partial", "w", zipfile.ZIP_DEFLATED) as out:
    for name in names:
        if name in left_out:
            continue
        entry = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
        entry.external_attr = 0o100644 << 16
        entry.compress_type = zipfile.ZIP_DEFLATED
        with open(os.path.join(directory, name), "rb") as source:
            out.writestr(entry, source.read())
os.replace(archive + ".partial", archive)
EOF
	echo "$2"
}

mkdir -p "$dist"
pack "$build/gnome-43/$uuid" "$dist/usedspace-$version-gnome-shell-43.zip"
pack "$build/gnome-45/$uuid" "$dist/usedspace-$version-gnome-shell-45.zip" schemas/gschemas.compiled
pack "$build/plasma-5/io.github.usedspace" "$dist/usedspace-$version-plasma-5.plasmoid"
pack "$build/plasma-6/io.github.usedspace" "$dist/usedspace-$version-plasma-6.plasmoid"
