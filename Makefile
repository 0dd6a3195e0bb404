# usedspace: build, test, install and package.
#
#   make                      release build of both binaries
#   make check                the test suite (same as `swift test`)
#   make install              into $(PREFIX) (default /usr/local), staged under $(DESTDIR)
#   make install PREFIX=$$HOME/.local      a user install; then:
#       systemctl --user daemon-reload && systemctl --user enable --now usedspace.socket
#   make install GNOME_SHELL=43 PLASMA=5   builds of the desktops' front-ends other than those
#                                          that suit the desktops installed here
#   make uninstall            removes what `make install` installed at the same PREFIX
#   make deb                  usedspace_$(VERSION)_$(DEB_ARCH).deb, for `apt install ./…`
#   make deb ARCH=arm64       the arm64 package, on an x86-64 machine too (as root: it builds
#                             in Debian 13 roots, make/deb-for-arch.sh)
#   make dist                 the desktops' front-ends as the stores take them, in dist/
#                             (extensions.gnome.org zips, KDE Store .plasmoid files)
#
# `make install` writes the list of what it installed to $(MANIFEST), and `make uninstall`
# removes exactly those files; pass it the PREFIX you installed with. When nothing of ours is
# at that PREFIX it fails, and says where usedspace is installed instead.

# The version's one source of truth is UsedSpaceVersion.current in
# Sources/UsedSpaceCore/Version.swift (both programs' --version, the protocol's hello, the
# package). `make deb` checks that both binaries report it and that the top entry of
# packaging/debian/changelog is for it.
VERSION_FILE = Sources/UsedSpaceCore/Version.swift
VERSION := $(shell sed -n 's/^ *public static let current = "\([^"]*\)"$$/\1/p' $(VERSION_FILE))

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
# Searched by the systemd user manager for both /usr/local and ~/.local prefixes.
USERUNITDIR ?= $(PREFIX)/share/systemd/user
# Shell completions, installed only once completions/ has them.
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/site-functions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d
# The session bus's activation files (XDG_DATA_DIRS: /usr/local/share and /usr/share; for
# PREFIX=~/.local, XDG_DATA_HOME's).
DBUSSERVICEDIR ?= $(PREFIX)/share/dbus-1/services
# The desktops' front-ends, built by desktop/build.sh (docs/desktops.md). GNOME Shell finds
# extensions in XDG_DATA_DIRS/gnome-shell/extensions (and ~/.local/share), Plasma its widgets
# in …/plasma/plasmoids. Each has a build per generation: GNOME_SHELL=43 (43 and 44) or 45
# (45 and later), PLASMA=5 (5.27) or 6; auto, the default, takes what suits the desktops
# installed here (packaging/desktop-builds says which, and why).
GNOME_SHELL ?= auto
PLASMA ?= auto
GNOME_EXTENSION_UUID = usedspace@usedspace.github.io
GNOME_EXTENSIONDIR ?= $(PREFIX)/share/gnome-shell/extensions/$(GNOME_EXTENSION_UUID)
PLASMOIDDIR ?= $(PREFIX)/share/plasma/plasmoids/io.github.usedspace
# The package sets these: every build goes into DESKTOP_BUILDS_DIR, with
# packaging/desktop-builds in LIBEXECDIR, which links the ones that suit the desktops
# installed (at installation, and again by dpkg's trigger when they change); the settings
# schema goes into GSCHEMADIR (/usr/share/glib-2.0/schemas), which glib's trigger compiles,
# as Debian's extension packages do. Otherwise it is compiled into the extension's own
# schemas/ (what GNOME reads for an extension installed by hand).
DESKTOP_BUILDS_DIR ?=
LIBEXECDIR ?= $(PREFIX)/libexec/usedspace
GSCHEMADIR ?=
GSCHEMA = org.gnome.shell.extensions.usedspace.gschema.xml
DESKTOP_BUILD = $(SCRATCH)/desktop
# What `make install` installed at this PREFIX, for `make uninstall`. MANIFEST= writes none
# (a package manager keeps its own list: `make deb` does so).
MANIFEST ?= $(PREFIX)/share/usedspace/installed-files
DESTDIR ?=
SWIFT ?= swift
# More for both `swift build`s (a cross build's --triple and --sdk: make/deb-for-arch.sh).
SWIFT_FLAGS ?=
# The same toolchain's compiler, for the lean probe below.
SWIFTC ?= $(SWIFT)c
# The build directory of `make`, `make install` and `make deb` (--scratch-path): its own, so
# that it never waits on a `swift test` running in .build, nor the other way round.
SCRATCH ?= .build-make
# The architecture built for, as uname -m, the target triple and Debian's multiarch
# directories spell it (x86_64, aarch64; Debian's arm64 and amd64 are taken too);
# Package.swift takes it as USEDSPACE_ARCH. `make deb ARCH=aarch64` on a machine of another
# architecture builds in a Debian root of that one (make/deb-for-arch.sh).
HOST_ARCH := $(shell uname -m)
ARCH ?= $(HOST_ARCH)
override ARCH := $(patsubst arm64,aarch64,$(patsubst amd64,x86_64,$(ARCH)))
FOREIGN = $(filter-out $(HOST_ARCH),$(ARCH))
# Goals that build nothing here, for which make probes nothing.
QUIET_GOALS = check uninstall deb-path bin-dir clean $(if $(FOREIGN),deb)
BUILDS = $(filter-out $(QUIET_GOALS),$(or $(MAKECMDGOALS),all))
# What ships is the lean build (Package.swift, USEDSPACE_EMBEDDED): Embedded Swift at -Osize,
# its hot code packed by the toolchain's lld (link/), which starts faster than df and keeps a
# bar's daemon and watch lighter than i3status (docs/PERFORMANCE.md). Where the toolchain
# cannot build it (make/lean-probe.sh asks it: in Embedded Swift, Debian 13's Swift 6.0.3
# has no String, sid's 6.2.3 no Double's text), make says so in one line and builds the
# normal binaries. EMBEDDED=0
# builds the normal binaries anyway (give them their own SCRATCH); EMBEDDED=1 skips the
# probe. The tests run against these with USEDSPACE_BIN_DIR=$(SCRATCH)/bin (`make -s
# bin-dir`), where both land.
ifeq ($(origin EMBEDDED)$(if $(BUILDS),probe),undefinedprobe)
LEAN_PROBLEM := $(shell sh make/lean-probe.sh '$(SWIFTC)' '$(ARCH)' 2>&1)
EMBEDDED := $(if $(LEAN_PROBLEM),0,1)
$(if $(LEAN_PROBLEM),$(info make: $(LEAN_PROBLEM); building the normal binaries))
endif
EMBEDDED ?= 1
# The lean build's target: the triple of the toolchain's embedded standard library, which
# may not be its default one (Debian's toolchains build for x86_64-pc-linux-gnu).
LEAN_TRIPLE = $(if $(filter 1,$(EMBEDDED)),--triple $(ARCH)-unknown-linux-gnu)
# The client links statically against musl (CLIENT_LIBC=musl; Debian's musl-dev): static
# glibc's own start-up costs more than all the rest of a `usedspace status`
# (docs/PERFORMANCE.md). Only the lean build can; without musl-dev (and no MUSL_LIB given)
# make says so and links it against glibc (CLIENT_LIBC=glibc, which starts slower).
# It builds in its own scratch directory, then joins the daemon in $(SCRATCH)/bin.
MUSL_INCLUDE ?= /usr/include/$(ARCH)-linux-musl
MUSL_LIB ?= /usr/lib/$(ARCH)-linux-musl
MUSL_FOUND = $(or $(filter command line,$(origin MUSL_LIB)),$(wildcard $(MUSL_LIB)/libc.a))
ifeq ($(origin CLIENT_LIBC)$(EMBEDDED),undefined1)
CLIENT_LIBC := $(if $(MUSL_FOUND),musl,glibc)
$(if $(BUILDS),$(if $(MUSL_FOUND),,$(info make: no musl ($(MUSL_LIB)/libc.a): the client links against glibc and starts slower; apt-get install musl-dev for the faster one)))
endif
CLIENT_LIBC ?= $(if $(filter 1,$(EMBEDDED)),musl,glibc)
CLIENT_SCRATCH = $(SCRATCH)/client-$(CLIENT_LIBC)
# Install binaries from elsewhere (BUILDDIR=…) without building them here.
BUILDDIR ?= $(SCRATCH)/bin
BUILD_FIRST = $(if $(filter $(SCRATCH)/bin,$(BUILDDIR)),build)
# Installed binaries carry no debug information; STRIP=: keeps it.
STRIP ?= strip
STRIPFLAGS ?= --remove-section=.comment --remove-section=.note

COMPLETIONS = $(wildcard completions/usedspace.bash completions/_usedspace completions/usedspace.fish)
# Every file `make install` installs, as it will be named once installed.
INSTALLED_FILES = $(BINDIR)/usedspace $(BINDIR)/usedspaced \
	$(USERUNITDIR)/usedspace.service $(USERUNITDIR)/usedspace.socket \
	$(USERUNITDIR)/usedspace-writers.socket $(USERUNITDIR)/usedspace-writers@.service \
	$(DBUSSERVICEDIR)/io.github.usedspace.UsedSpace1.service \
	$(MANDIR)/man1/usedspace.1 $(MANDIR)/man5/usedspace.conf.5 $(MANDIR)/man8/usedspaced.8 \
	$(if $(filter completions/usedspace.bash,$(COMPLETIONS)),$(BASHCOMPDIR)/usedspace) \
	$(if $(filter completions/_usedspace,$(COMPLETIONS)),$(ZSHCOMPDIR)/_usedspace) \
	$(if $(filter completions/usedspace.fish,$(COMPLETIONS)),$(FISHCOMPDIR)/usedspace.fish)
# What an install made before manifests existed may have left here (for `make uninstall`):
# its files, and whatever is in the desktops' directories, which are usedspace's alone.
KNOWN_FILES = $(BINDIR)/usedspace $(BINDIR)/usedspaced \
	$(USERUNITDIR)/usedspace.service $(USERUNITDIR)/usedspace.socket \
	$(USERUNITDIR)/usedspace-writers.socket $(USERUNITDIR)/usedspace-writers@.service \
	$(DBUSSERVICEDIR)/io.github.usedspace.UsedSpace1.service \
	$(MANDIR)/man1/usedspace.1 $(MANDIR)/man5/usedspace.conf.5 $(MANDIR)/man8/usedspaced.8 \
	$(BASHCOMPDIR)/usedspace $(ZSHCOMPDIR)/_usedspace $(FISHCOMPDIR)/usedspace.fish \
	$(if $(filter uninstall,$(MAKECMDGOALS)),$(shell find $(DESTDIR)$(GNOME_EXTENSIONDIR) $(DESTDIR)$(PLASMOIDDIR) -type f 2>/dev/null | sed 's|^$(DESTDIR)||'))

.PHONY: all build client check install uninstall deb deb-path bin-dir dist clean

all: build

build: client
	USEDSPACE_EMBEDDED=$(EMBEDDED) USEDSPACE_ARCH=$(ARCH) $(SWIFT) build -c release $(LEAN_TRIPLE) $(SWIFT_FLAGS) --scratch-path $(SCRATCH) --product usedspaced
	install -m 755 $(SCRATCH)/release/usedspaced $(SCRATCH)/bin/usedspaced

# The client alone, as shipped, into $(SCRATCH)/bin (the bench scripts build it so).
client:
	@case '$(CLIENT_LIBC)' in musl|glibc) ;; *) echo "make: CLIENT_LIBC is '$(CLIENT_LIBC)'; it is musl or glibc" >&2; exit 1;; esac
	@test '$(CLIENT_LIBC)' = glibc || test '$(EMBEDDED)' = 1 || { \
		echo "make: CLIENT_LIBC=musl needs the lean build (EMBEDDED=1): the normal build's Swift runtime is glibc's." >&2; \
		echo "  Leave out EMBEDDED=0, or add CLIENT_LIBC=glibc." >&2; exit 1; }
	@test '$(CLIENT_LIBC)' = glibc || test -f '$(MUSL_LIB)/libc.a' -a -f '$(MUSL_INCLUDE)/stdio.h' || { \
		echo "make: the client links against musl, and there is no $(MUSL_LIB)/libc.a or $(MUSL_INCLUDE)/stdio.h." >&2; \
		echo "  apt-get install musl-dev; or MUSL_LIB=… MUSL_INCLUDE=… where your musl is;" >&2; \
		echo "  or CLIENT_LIBC=glibc (it starts slower: docs/PERFORMANCE.md)" >&2; exit 1; }
	USEDSPACE_EMBEDDED=$(EMBEDDED) USEDSPACE_ARCH=$(ARCH) USEDSPACE_LIBC=$(CLIENT_LIBC) USEDSPACE_MUSL_INCLUDE='$(MUSL_INCLUDE)' USEDSPACE_MUSL_LIB='$(MUSL_LIB)' \
		$(SWIFT) build -c release $(LEAN_TRIPLE) $(SWIFT_FLAGS) --scratch-path $(CLIENT_SCRATCH) --product usedspace
	install -d $(SCRATCH)/bin
	install -m 755 $(CLIENT_SCRATCH)/release/usedspace $(SCRATCH)/bin/usedspace

check:
	$(SWIFT) test

install: $(BUILD_FIRST)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(USERUNITDIR) \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man8
	install -m 755 $(BUILDDIR)/usedspace $(BUILDDIR)/usedspaced $(DESTDIR)$(BINDIR)/
	$(STRIP) $(STRIPFLAGS) $(DESTDIR)$(BINDIR)/usedspace $(DESTDIR)$(BINDIR)/usedspaced
	sed 's|@bindir@|$(BINDIR)|g' systemd/usedspace.service > $(DESTDIR)$(USERUNITDIR)/usedspace.service
	chmod 644 $(DESTDIR)$(USERUNITDIR)/usedspace.service
	install -m 644 systemd/usedspace.socket $(DESTDIR)$(USERUNITDIR)/
	sed 's|@bindir@|$(BINDIR)|g' systemd/usedspace-writers@.service > $(DESTDIR)$(USERUNITDIR)/usedspace-writers@.service
	chmod 644 $(DESTDIR)$(USERUNITDIR)/usedspace-writers@.service
	install -m 644 systemd/usedspace-writers.socket $(DESTDIR)$(USERUNITDIR)/
	install -D -m 644 dbus/io.github.usedspace.UsedSpace1.service $(DESTDIR)$(DBUSSERVICEDIR)/io.github.usedspace.UsedSpace1.service
	install -m 644 man/usedspace.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 644 man/usedspace.conf.5 $(DESTDIR)$(MANDIR)/man5/
	install -m 644 man/usedspaced.8 $(DESTDIR)$(MANDIR)/man8/
	$(if $(filter completions/usedspace.bash,$(COMPLETIONS)),install -D -m 644 completions/usedspace.bash $(DESTDIR)$(BASHCOMPDIR)/usedspace)
	$(if $(filter completions/_usedspace,$(COMPLETIONS)),install -D -m 644 completions/_usedspace $(DESTDIR)$(ZSHCOMPDIR)/_usedspace)
	$(if $(filter completions/usedspace.fish,$(COMPLETIONS)),install -D -m 644 completions/usedspace.fish $(DESTDIR)$(FISHCOMPDIR)/usedspace.fish)
	sh desktop/build.sh $(DESKTOP_BUILD) $(VERSION)
ifeq ($(DESKTOP_BUILDS_DIR),)
	@gnome='$(GNOME_SHELL)'; [ "$$gnome" != auto ] || gnome=$$(sh packaging/desktop-builds gnome-shell) || exit 1; \
	plasma='$(PLASMA)'; [ "$$plasma" != auto ] || plasma=$$(sh packaging/desktop-builds plasma) || exit 1; \
	case $$gnome in 43|45) ;; *) echo "make: GNOME_SHELL is '$$gnome'; it is 43 (GNOME 43 and 44), 45 (45 and later) or auto" >&2; exit 1;; esac; \
	case $$plasma in 5|6) ;; *) echo "make: PLASMA is '$$plasma'; it is 5 (5.27), 6 or auto" >&2; exit 1;; esac; \
	echo "make: the GNOME Shell extension built for GNOME $$gnome, the Plasma widget for Plasma $$plasma"; \
	rm -rf $(DESTDIR)$(GNOME_EXTENSIONDIR) $(DESTDIR)$(PLASMOIDDIR) && \
	install -d $(DESTDIR)$(GNOME_EXTENSIONDIR) $(DESTDIR)$(PLASMOIDDIR) && \
	cp -R $(DESKTOP_BUILD)/gnome-$$gnome/$(GNOME_EXTENSION_UUID)/. $(DESTDIR)$(GNOME_EXTENSIONDIR)/ && \
	cp -R $(DESKTOP_BUILD)/plasma-$$plasma/io.github.usedspace/. $(DESTDIR)$(PLASMOIDDIR)/
	chmod -R u=rwX,go=rX $(DESTDIR)$(GNOME_EXTENSIONDIR) $(DESTDIR)$(PLASMOIDDIR)
else
	rm -rf $(DESTDIR)$(DESKTOP_BUILDS_DIR)
	for gnome in 43 45; do \
		install -d $(DESTDIR)$(DESKTOP_BUILDS_DIR)/gnome-shell-$$gnome && \
		cp -R $(DESKTOP_BUILD)/gnome-$$gnome/$(GNOME_EXTENSION_UUID) $(DESTDIR)$(DESKTOP_BUILDS_DIR)/gnome-shell-$$gnome/ && \
		rm -r $(DESTDIR)$(DESKTOP_BUILDS_DIR)/gnome-shell-$$gnome/$(GNOME_EXTENSION_UUID)/schemas || exit 1; done
	for plasma in 5 6; do \
		install -d $(DESTDIR)$(DESKTOP_BUILDS_DIR)/plasma-$$plasma && \
		cp -R $(DESKTOP_BUILD)/plasma-$$plasma/io.github.usedspace $(DESTDIR)$(DESKTOP_BUILDS_DIR)/plasma-$$plasma/ || exit 1; done
	install -D -m 644 $(DESKTOP_BUILD)/gnome-45/$(GNOME_EXTENSION_UUID)/schemas/$(GSCHEMA) $(DESTDIR)$(GSCHEMADIR)/$(GSCHEMA)
	install -D -m 755 packaging/desktop-builds $(DESTDIR)$(LIBEXECDIR)/desktop-builds
	# Where the postinst puts its links: dpkg's, so that they go with the package.
	install -d $(DESTDIR)$(dir $(GNOME_EXTENSIONDIR)) $(DESTDIR)$(dir $(PLASMOIDDIR))
	chmod -R u=rwX,go=rX $(DESTDIR)$(DESKTOP_BUILDS_DIR)
endif
	$(if $(MANIFEST),install -d $(dir $(DESTDIR)$(MANIFEST)))
	$(if $(MANIFEST),{ cat $(DESTDIR)$(MANIFEST) 2>/dev/null || true; printf '%s\n' $(INSTALLED_FILES); \
		find $(DESTDIR)$(GNOME_EXTENSIONDIR) $(DESTDIR)$(PLASMOIDDIR) -type f | sed 's|^$(DESTDIR)||'; } \
		| sort -u > $(DESTDIR)$(MANIFEST).new && mv $(DESTDIR)$(MANIFEST).new $(DESTDIR)$(MANIFEST))

uninstall:
	@DESTDIR='$(DESTDIR)' PREFIX='$(PREFIX)' MANIFEST='$(MANIFEST)' \
		KNOWN_FILES='$(strip $(KNOWN_FILES))' DESKTOP_DIRS='$(GNOME_EXTENSIONDIR) $(PLASMOIDDIR)' sh packaging/uninstall.sh

# The Debian package, with dpkg's own tools: `make install` into a staging tree with Debian's
# paths, then what dh_* would do — compressed man pages and docs, copyright and changelog,
# the maintainer scripts (packaging/debian/, with packaging/user-managers.sh pasted in),
# Depends from dpkg-shlibdeps, the control file from dpkg-gencontrol, md5sums — and
# dpkg-deb. The staging tree is laid out as dpkg-shlibdeps and dpkg-gencontrol expect:
# $(DEB_BUILD)/debian/control, and the package's root in $(DEB_BUILD)/debian/usedspace.
DEB_ARCH := $(if $(FOREIGN),$(patsubst aarch64,arm64,$(patsubst x86_64,amd64,$(ARCH))),$(shell dpkg --print-architecture 2>/dev/null))
DEB = usedspace_$(VERSION)_$(DEB_ARCH).deb
DEB_BUILD = $(SCRATCH)/deb
DEB_ROOT = $(DEB_BUILD)/debian/usedspace
DEB_DOC = $(DEB_ROOT)/usr/share/doc/usedspace
# Built-Using names the Debian source packages whose code is linked in statically, as policy
# asks for their licenses' sake: the C library of a static client (musl's libc.a, or glibc's);
# the libgcc the toolchain's clang selects (128-bit division), with libstdc++ in the normal
# build, into the daemon; and the Swift toolchain's own libraries where it is a Debian
# package (swiftlang). A swift.org toolchain is not: see the copyright. Each is found by the
# file linked in (dpkg -S), not named by release.
TOOLCHAIN_SWIFTC = $(realpath $(shell command -v $(SWIFTC)))
STATIC_LIBC = $(if $(filter musl,$(CLIENT_LIBC)),$(MUSL_LIB)/libc.a,$(shell $(dir $(TOOLCHAIN_SWIFTC))clang -print-file-name=libc.a))
BUILT_USING_FILES = $$(readelf -l $(DEB_ROOT)/usr/bin/usedspace | grep -q 'program interpreter' || echo $(STATIC_LIBC)) \
	$(shell $(dir $(TOOLCHAIN_SWIFTC))clang -print-libgcc-file-name) $(TOOLCHAIN_SWIFTC)
BUILT_USING_PACKAGES ?= $$(dpkg -S $$(realpath $(BUILT_USING_FILES)) 2>/dev/null | sed 's/: .*//; s/, /\n/g')

ifneq ($(FOREIGN),)
# Another architecture's package, built and packaged in a Debian root of that architecture
# (Tests/Roots/make-root; root, debootstrap and qemu-user here).
deb:
	sh make/deb-for-arch.sh $(ARCH) $(DEB) $(SCRATCH)-$(ARCH)
else
deb: $(BUILD_FIRST)
	@test -n "$(VERSION)" || { echo "make deb: no 'public static let current = \"…\"' in $(VERSION_FILE)" >&2; exit 1; }
	@test -n "$(DEB_ARCH)" || { echo "make deb: needs dpkg (apt-get install dpkg-dev)" >&2; exit 1; }
	@for tool in dpkg-deb dpkg-shlibdeps dpkg-gencontrol dpkg-parsechangelog readelf; do \
		command -v $$tool >/dev/null || { echo "make deb: needs $$tool (apt-get install dpkg-dev)" >&2; exit 1; }; done
	@for program in usedspace usedspaced; do \
		reported=$$($(BUILDDIR)/$$program --version); \
		test "$$reported" = "$$program $(VERSION)" || { echo "make deb: $(BUILDDIR)/$$program --version says '$$reported', not '$$program $(VERSION)' ($(VERSION_FILE))" >&2; exit 1; }; done
	@changelog=$$(dpkg-parsechangelog -l packaging/debian/changelog -S Version); \
		test "$$changelog" = "$(VERSION)" || { echo "make deb: packaging/debian/changelog is for $$changelog, the program is $(VERSION): add an entry (dch -v $(VERSION))" >&2; exit 1; }
	rm -rf $(DEB_BUILD)
	install -d $(DEB_BUILD)/debian $(DEB_ROOT)/DEBIAN
	cp packaging/debian/control packaging/debian/changelog $(DEB_BUILD)/debian/
	$(MAKE) --no-print-directory install BUILD_FIRST= EMBEDDED=$(EMBEDDED) CLIENT_LIBC=$(CLIENT_LIBC) DESTDIR=$(abspath $(DEB_ROOT)) PREFIX=/usr \
		BINDIR=/usr/bin MANDIR=/usr/share/man USERUNITDIR=/usr/lib/systemd/user \
		BASHCOMPDIR=/usr/share/bash-completion/completions ZSHCOMPDIR=/usr/share/zsh/vendor-completions \
		FISHCOMPDIR=/usr/share/fish/vendor_completions.d DBUSSERVICEDIR=/usr/share/dbus-1/services MANIFEST= \
		GSCHEMADIR=/usr/share/glib-2.0/schemas DESKTOP_BUILDS_DIR=/usr/share/usedspace/desktop LIBEXECDIR=/usr/libexec/usedspace
	gzip -9n $(DEB_ROOT)/usr/share/man/man*/*
	install -d $(DEB_DOC)/docs/images
	install -m 644 README.md $(DEB_DOC)/
	install -m 644 docs/*.md $(DEB_DOC)/docs/
	install -m 644 docs/images/*.png $(DEB_DOC)/docs/images/
	install -m 644 packaging/debian/copyright $(DEB_DOC)/copyright
	find $(DEB_DOC) -type f -size +4k -name '*.md' -exec gzip -9n {} +
	gzip -9n -c packaging/debian/changelog > $(DEB_DOC)/changelog.gz
	install -D -m 644 packaging/debian/lintian-overrides $(DEB_ROOT)/usr/share/lintian/overrides/usedspace
	install -m 644 packaging/debian/triggers $(DEB_ROOT)/DEBIAN/triggers
	for script in postinst prerm postrm; do \
		sed -e '/^#USER_MANAGERS#$$/{r packaging/user-managers.sh' -e 'd;}' packaging/debian/$$script > $(DEB_ROOT)/DEBIAN/$$script && \
		chmod 755 $(DEB_ROOT)/DEBIAN/$$script || exit 1; done
	cd $(DEB_BUILD) && dpkg-shlibdeps -Tdebian/usedspace.substvars debian/usedspace/usr/bin/usedspaced \
		$$(readelf -l debian/usedspace/usr/bin/usedspace | grep -q 'program interpreter' && echo debian/usedspace/usr/bin/usedspace)
	built_using=$$(dpkg-query -W -f='$${source:Package} (= $${source:Version})\n' $(BUILT_USING_PACKAGES) | sort -u | paste -sd, - | sed 's/,/, /g') && \
		echo "misc:Built-Using=$$built_using" >> $(DEB_BUILD)/debian/usedspace.substvars
	cd $(DEB_BUILD) && dpkg-gencontrol -pusedspace -Tdebian/usedspace.substvars -Pdebian/usedspace
	cd $(DEB_ROOT) && find usr -type f -print0 | LC_ALL=C sort -z | xargs -0 md5sum > DEBIAN/md5sums && chmod 644 DEBIAN/md5sums
	dpkg-deb --root-owner-group -Zxz --build $(DEB_ROOT) $(DEB)
	@echo "built $(DEB): sudo apt install ./$(DEB)"
endif

# The GNOME Shell extension and the Plasma widget for the stores (desktop/dist.sh says what
# each archive is): built from desktop/ alone, no Swift needed.
DIST ?= dist
dist:
	sh desktop/build.sh $(DESKTOP_BUILD) $(VERSION)
	rm -f $(DIST)/usedspace-*-gnome-shell-*.zip $(DIST)/usedspace-*-plasma-*.plasmoid
	sh desktop/dist.sh $(DESKTOP_BUILD) $(DIST) $(VERSION)

# The path of the package `make deb` builds (for scripts: .ci/run passes it to the tests).
deb-path:
	@echo $(CURDIR)/$(DEB)

# The directory of the binaries `make` builds, as they ship before stripping (.ci/run runs
# the integration tests against them: USEDSPACE_BIN_DIR).
bin-dir:
	@echo $(abspath $(BUILDDIR))

clean:
	rm -rf $(SCRATCH) $(SCRATCH)-aarch64 usedspace_*.deb dist/usedspace-*
