# usedspace: build, test and install.
#
#   make                      release build of both binaries
#   make check                the test suite (same as `swift test`)
#   make install              into $(PREFIX) (default /usr/local), staged under $(DESTDIR)
#   make install PREFIX=$$HOME/.local      a user install; then:
#       systemctl --user daemon-reload && systemctl --user enable --now usedspace.socket
#   make uninstall

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
# Searched by the systemd user manager for both /usr/local and ~/.local prefixes.
USERUNITDIR ?= $(PREFIX)/share/systemd/user
DESTDIR ?=
SWIFT ?= swift
# Install binaries from elsewhere (BUILDDIR=…) without building them here.
BUILDDIR ?= .build/release

.PHONY: all build check install uninstall clean

all: build

build:
	$(SWIFT) build -c release --product usedspace
	$(SWIFT) build -c release --product usedspaced

check:
	$(SWIFT) test

install: $(if $(filter .build/release,$(BUILDDIR)),build)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(USERUNITDIR) \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man8
	install -m 755 $(BUILDDIR)/usedspace $(BUILDDIR)/usedspaced $(DESTDIR)$(BINDIR)/
	sed 's|@bindir@|$(BINDIR)|g' systemd/usedspace.service > $(DESTDIR)$(USERUNITDIR)/usedspace.service
	chmod 644 $(DESTDIR)$(USERUNITDIR)/usedspace.service
	install -m 644 systemd/usedspace.socket $(DESTDIR)$(USERUNITDIR)/
	install -m 644 man/usedspace.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 644 man/usedspace.conf.5 $(DESTDIR)$(MANDIR)/man5/
	install -m 644 man/usedspaced.8 $(DESTDIR)$(MANDIR)/man8/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/usedspace $(DESTDIR)$(BINDIR)/usedspaced \
		$(DESTDIR)$(USERUNITDIR)/usedspace.service $(DESTDIR)$(USERUNITDIR)/usedspace.socket \
		$(DESTDIR)$(MANDIR)/man1/usedspace.1 $(DESTDIR)$(MANDIR)/man5/usedspace.conf.5 \
		$(DESTDIR)$(MANDIR)/man8/usedspaced.8

clean:
	rm -rf .build
