# usedspace: build, test, install and package.
#
#   make                      release build of both binaries
#   make check                the test suite (same as `swift test`)
#   make install              into $(PREFIX) (default /usr/local), staged under $(DESTDIR)
#   make install PREFIX=$$HOME/.local      a user install; then:
#       systemctl --user daemon-reload && systemctl --user enable --now usedspace.socket
#   make uninstall            removes what `make install` installed at the same PREFIX
#
# `make install` writes the list of what it installed to $(MANIFEST), and `make uninstall`
# removes exactly those files; pass it the PREFIX you installed with. When nothing of ours is
# at that PREFIX it fails, and says where usedspace is installed instead.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
# Searched by the systemd user manager for both /usr/local and ~/.local prefixes.
USERUNITDIR ?= $(PREFIX)/share/systemd/user
# Shell completions, installed only once completions/ has them.
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/site-functions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d
# What `make install` installed at this PREFIX, for `make uninstall`. MANIFEST= writes none
# (a package manager keeps its own list: `make deb` does so).
MANIFEST ?= $(PREFIX)/share/usedspace/installed-files
DESTDIR ?=
SWIFT ?= swift
# The build directory of `make`, `make install` and `make deb` (--scratch-path).
SCRATCH ?= .build
# Install binaries from elsewhere (BUILDDIR=…) without building them here.
BUILDDIR ?= $(SCRATCH)/release
BUILD_FIRST = $(if $(filter $(SCRATCH)/release,$(BUILDDIR)),build)
# Installed binaries carry no debug information; STRIP=: keeps it.
STRIP ?= strip
STRIPFLAGS ?= --remove-section=.comment --remove-section=.note

COMPLETIONS = $(wildcard completions/usedspace.bash completions/_usedspace completions/usedspace.fish)
# Every file `make install` installs, as it will be named once installed.
INSTALLED_FILES = $(BINDIR)/usedspace $(BINDIR)/usedspaced \
	$(USERUNITDIR)/usedspace.service $(USERUNITDIR)/usedspace.socket \
	$(MANDIR)/man1/usedspace.1 $(MANDIR)/man5/usedspace.conf.5 $(MANDIR)/man8/usedspaced.8 \
	$(if $(filter completions/usedspace.bash,$(COMPLETIONS)),$(BASHCOMPDIR)/usedspace) \
	$(if $(filter completions/_usedspace,$(COMPLETIONS)),$(ZSHCOMPDIR)/_usedspace) \
	$(if $(filter completions/usedspace.fish,$(COMPLETIONS)),$(FISHCOMPDIR)/usedspace.fish)
# What an install made before manifests existed may have left here (for `make uninstall`).
KNOWN_FILES = $(BINDIR)/usedspace $(BINDIR)/usedspaced \
	$(USERUNITDIR)/usedspace.service $(USERUNITDIR)/usedspace.socket \
	$(MANDIR)/man1/usedspace.1 $(MANDIR)/man5/usedspace.conf.5 $(MANDIR)/man8/usedspaced.8 \
	$(BASHCOMPDIR)/usedspace $(ZSHCOMPDIR)/_usedspace $(FISHCOMPDIR)/usedspace.fish

.PHONY: all build check install uninstall clean

all: build

build:
	$(SWIFT) build -c release --scratch-path $(SCRATCH) --product usedspace
	$(SWIFT) build -c release --scratch-path $(SCRATCH) --product usedspaced

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
	install -m 644 man/usedspace.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 644 man/usedspace.conf.5 $(DESTDIR)$(MANDIR)/man5/
	install -m 644 man/usedspaced.8 $(DESTDIR)$(MANDIR)/man8/
	$(if $(filter completions/usedspace.bash,$(COMPLETIONS)),install -D -m 644 completions/usedspace.bash $(DESTDIR)$(BASHCOMPDIR)/usedspace)
	$(if $(filter completions/_usedspace,$(COMPLETIONS)),install -D -m 644 completions/_usedspace $(DESTDIR)$(ZSHCOMPDIR)/_usedspace)
	$(if $(filter completions/usedspace.fish,$(COMPLETIONS)),install -D -m 644 completions/usedspace.fish $(DESTDIR)$(FISHCOMPDIR)/usedspace.fish)
	$(if $(MANIFEST),install -d $(dir $(DESTDIR)$(MANIFEST)))
	$(if $(MANIFEST),{ cat $(DESTDIR)$(MANIFEST) 2>/dev/null || true; printf '%s\n' $(INSTALLED_FILES); } \
		| sort -u > $(DESTDIR)$(MANIFEST).new && mv $(DESTDIR)$(MANIFEST).new $(DESTDIR)$(MANIFEST))

uninstall:
	@DESTDIR='$(DESTDIR)' PREFIX='$(PREFIX)' MANIFEST='$(MANIFEST)' \
		KNOWN_FILES='$(strip $(KNOWN_FILES))' sh packaging/uninstall.sh

clean:
	rm -rf $(SCRATCH)
