#!/bin/sh
# deb-for-arch.sh ARCH DEB SCRATCH: `make deb ARCH=aarch64` (or arm64) on a machine of another
# architecture, so that the package installs on Debian 13 and later, as a `make deb` on such a
# machine would. Debian 13's x86-64 Swift (the trixie root, Tests/Roots/make-root) compiles
# for aarch64 against an arm64 sysroot (make-root trixie-arm64-sysroot) with that sysroot's
# Swift standard library (the same Swift 6.0.3: a compiler takes only its own version's
# library). A Debian 13 arm64 root, run through qemu-user (make-root trixie-arm64), makes the
# package: dpkg-shlibdeps and dpkg-gencontrol read its libraries.
#
# Cross, not native: the arm64 root's own Swift under qemu-user had not compiled
# Package.swift after 253 s, which takes 40 s here; the cross build takes about as long as a
# build for this machine (docs/testing.md). Debian's Swift cannot make the lean build
# (make/lean-probe.sh), so these are the normal binaries. Needs root, mmdebstrap and
# qemu-user (Tests/Roots/runs-arch).
set -eu
arch=$1 deb=$2 scratch=$3
case $arch in
aarch64) root=trixie-arm64 ;;
*) echo "make deb: ARCH=$arch: only aarch64 (arm64) is built on a machine of another architecture" >&2; exit 1 ;;
esac
[ "$(id -u)" = 0 ] || { echo "make deb: ARCH=$arch here builds in Debian roots, which needs root (sudo make deb ARCH=$arch)" >&2; exit 1; }
here=$(cd "$(dirname "$0")/.." && pwd)
roots=${USEDSPACE_ROOTS:-/var/cache/usedspace-tests}
started=$(date +%s)
"$here/Tests/Roots/make-root" trixie
"$here/Tests/Roots/make-root" "$root-sysroot"
"$here/Tests/Roots/make-root" "$root"
sysroot=/sysroot-$arch
# libsystemd's pkg-config file, the C headers and libraries come from the sysroot; the Swift
# standard library from its swiftlang: swift_static, as both binaries link it statically
# (the driver reads static-stdlib-args.lnk from the resource directory).
IN_ROOT_BINDS="$roots/$root-sysroot/root=$sysroot" "$here/Tests/Roots/in-root" trixie env \
	PKG_CONFIG_SYSROOT_DIR=$sysroot PKG_CONFIG_LIBDIR=$sysroot/usr/lib/$arch-linux-gnu/pkgconfig:$sysroot/usr/share/pkgconfig \
	make --no-print-directory build ARCH=$arch EMBEDDED=0 CLIENT_LIBC=glibc SCRATCH=$scratch \
	SWIFT_FLAGS="--triple $arch-unknown-linux-gnu --sdk $sysroot -Xswiftc -resource-dir -Xswiftc $sysroot/usr/libexec/swift/lib/swift_static -Xswiftc -use-ld=lld -Xswiftc -Xclang-linker -Xswiftc --sysroot=$sysroot"
echo "make deb: built the $arch binaries in $(( $(date +%s) - started )) s"
"$here/Tests/Roots/in-root" "$root" make --no-print-directory deb BUILD_FIRST= EMBEDDED=0 CLIENT_LIBC=glibc SCRATCH=$scratch
test -f "$here/$deb" || { echo "make deb: the $root root made no $deb" >&2; exit 1; }
echo "make deb: $deb in $(( $(date +%s) - started )) s"
