# hdprotect: the single entry point. `make run` boots the lean kernel with
# a demo and a shell; `make check` runs every test. See README.md.
#
# The kernel series exists for two bases, Debian's linux-source-6.12 (the
# default) and linux-source-6.1 (kernel/<base>/). KVER=6.1 makes the
# kernel targets (kernel, kernel-tree, export-patches, run, bench) use
# 6.1, and `make check` and `make soak` test that base alone; without
# KVER they test both.

SHELL := /bin/bash
TESTS ?=
CC ?= gcc
CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Werror
NL_CFLAGS = $(shell pkg-config --cflags libnl-genl-3.0)
NL_LIBS = $(shell pkg-config --libs libnl-genl-3.0)
UDEV_CFLAGS = $(shell pkg-config --cflags libudev)
UDEV_LIBS = $(shell pkg-config --libs libudev)
SDBUS_CFLAGS = $(shell pkg-config --cflags libsystemd)
SDBUS_LIBS = $(shell pkg-config --libs libsystemd)

# Programs the guest tests use; qemu/mkinitramfs copies them and the shared
# libraries they need into the initramfs. They include the kernel's UAPI
# headers as `make headers_install` installs them (qemu/build-kernel).
GUEST_BIN := $(patsubst tests/guest-bin/%.c,build/guest-bin/%,$(wildcard tests/guest-bin/*.c))

# libhdp and hdpctl: the library as build/libhdp/libhdp.so.1 (soname, only
# the symbols of libhdp/libhdp.sym exported) and libhdp.a, the tool linked
# to the shared library. `make install` honours DESTDIR and PREFIX.
# CPPFLAGS and LDFLAGS, when set, reach the compiler and the linker
# (dpkg-buildflags' hardening in the Debian packages).
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
COMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions
SYSCONFDIR ?= /etc
UNITDIR ?= $(PREFIX)/lib/systemd/system
UDEVRULESDIR ?= $(PREFIX)/lib/udev/rules.d
# The guard's bus policy, polkit actions and introspection XML, under
# PREFIX as everything else: dbus-daemon and polkitd read them from
# /usr/share only, so its D-Bus face works with PREFIX=/usr (as a
# package installs it), or with DBUSDIR=/usr/share/dbus-1
# POLKITDIR=/usr/share/polkit-1 under another PREFIX; without them the
# guard guards all the same, and says it cannot own its name.
DBUSDIR ?= $(DATADIR)/dbus-1
POLKITDIR ?= $(DATADIR)/polkit-1
HDP_VERSION := 1.0.0
LIB_SRC := $(wildcard libhdp/*.c)
LIB_PIC := $(patsubst libhdp/%.c,build/libhdp/pic/%.o,$(LIB_SRC))
LIB_OBJ := $(patsubst libhdp/%.c,build/libhdp/obj/%.o,$(LIB_SRC))
LIB_CFLAGS = $(WARN) $(CPPFLAGS) $(CFLAGS) -I $(UAPI) -I libhdp $(NL_CFLAGS)
LIB_SO := build/libhdp/libhdp.so.$(HDP_VERSION)
# libhdp.pc names the directories under PREFIX as ${prefix}/..., so that
# `pkg-config --define-prefix` finds an installed tree that was moved
# (when the .pc file is in PREFIX/lib/pkgconfig, as with the default LIBDIR).
PC_LIBDIR = $(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))
PC_INCLUDEDIR = $(patsubst $(PREFIX)/%,$${prefix}/%,$(INCLUDEDIR))
GLIB_CFLAGS = $(shell pkg-config --cflags glib-2.0)
GLIB_LIBS = $(shell pkg-config --libs glib-2.0)
# hdprotect-indicator: GTK 3, libayatana-appindicator3, libnotify.
IND_PKGS := gtk+-3.0 ayatana-appindicator3-0.1 libnotify
IND_CFLAGS = $(shell pkg-config --cflags $(IND_PKGS))
IND_LIBS = $(shell pkg-config --libs $(IND_PKGS))
DATADIR ?= $(PREFIX)/share
LOCALEDIR ?= $(DATADIR)/locale

.PHONY: all deps kernel kernel-test kernel-lean kernel-tree export-patches kernel-deb \
	initramfs-test initramfs-lean guest-bin run check soak check-host check-deb bench clean help \
	lib hdpctl examples indicator pot install install-indicator stage deb
.DEFAULT_GOAL := all

all: deps
	@qemu/build-kernel test
	@qemu/build-kernel lean
	@$(MAKE) --no-print-directory lib hdpctl examples indicator

# The library and the tool need the kernel's UAPI header linux/hdprotect.h,
# from the directory UAPI. By default that is what the kernel build
# installs (qemu/build-kernel), and `make lib` builds the test kernel
# first if it is missing. UAPI=build/uapi-series/include takes the header
# from the 6.12 series' patches instead (qemu/uapi-header: the same bytes
# as the kernel installs) and builds no kernel, as the Debian packages do
# (debian/rules). DEPS= builds without `make deps` first: debian/control
# names a package build's dependencies.
UAPI ?= build/uapi/include
DEPS ?= deps

build/uapi/include/linux/hdprotect.h:
	@qemu/build-kernel test

build/uapi-series/include/linux/hdprotect.h: qemu/uapi-header $(wildcard kernel/6.12/patches/*.patch)
	qemu/uapi-header kernel/6.12/patches $@

lib: $(LIB_SO) build/libhdp/libhdp.a

build/libhdp/pic/%.o: libhdp/%.c libhdp/*.h $(UAPI)/linux/hdprotect.h | $(DEPS)
	@mkdir -p $(@D)
	$(CC) $(LIB_CFLAGS) -fPIC -fvisibility=hidden -c -o $@ $<

build/libhdp/obj/%.o: libhdp/%.c libhdp/*.h $(UAPI)/linux/hdprotect.h | $(DEPS)
	@mkdir -p $(@D)
	$(CC) $(LIB_CFLAGS) -fvisibility=hidden -c -o $@ $<

$(LIB_SO): $(LIB_PIC) libhdp/libhdp.sym
	$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,libhdp.so.1 -Wl,--version-script=libhdp/libhdp.sym \
		-Wl,--no-undefined -o $@ $(LIB_PIC) $(NL_LIBS)
	ln -sf libhdp.so.$(HDP_VERSION) build/libhdp/libhdp.so.1
	ln -sf libhdp.so.1 build/libhdp/libhdp.so

# The archive holds one object, linked from the library's objects, whose
# hidden symbols (the library's internals) are made local: a program
# linked statically sees only the API, as with the shared library.
build/libhdp/libhdp.a: $(LIB_OBJ)
	rm -f $@
	$(LD) -r -o build/libhdp/libhdp-all.o $^
	objcopy --localize-hidden build/libhdp/libhdp-all.o
	ar rcs $@ build/libhdp/libhdp-all.o

hdpctl: build/hdpctl/hdpctl

build/hdpctl/hdpctl: $(wildcard hdpctl/*.c hdpctl/*.h) libhdp/hdp.h $(LIB_SO)
	@mkdir -p $(@D)
	$(CC) $(WARN) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -DHDPCTL_VERSION='"$(HDP_VERSION)"' -I libhdp $(UDEV_CFLAGS) $(SDBUS_CFLAGS) -o $@ $(wildcard hdpctl/*.c) -L build/libhdp -lhdp $(UDEV_LIBS) $(SDBUS_LIBS) -lm

indicator: build/indicator/hdprotect-indicator

build/indicator/hdprotect-indicator: indicator/hdprotect-indicator.c libhdp/hdp.h $(LIB_SO)
	@mkdir -p $(@D)
	$(CC) $(WARN) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -DLOCALEDIR='"$(LOCALEDIR)"' -I libhdp $(IND_CFLAGS) -o $@ $< \
		-L build/libhdp -lhdp $(IND_LIBS)

# The translations' template, from the indicator's strings (_() and N_()).
pot:
	xgettext --from-code=UTF-8 --keyword=_ --keyword=N_ --keyword=C_:1c,2 \
		--add-comments=TRANSLATORS: \
		--package-name=hdprotect --package-version=$(HDP_VERSION) \
		-o po/hdprotect-indicator.pot indicator/hdprotect-indicator.c

examples: build/libhdp/examples/hdp-applet

build/libhdp/examples/hdp-applet: libhdp/examples/hdp-applet.c libhdp/hdp.h $(LIB_SO)
	@mkdir -p $(@D)
	$(CC) $(WARN) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -I libhdp $(GLIB_CFLAGS) -o $@ $< -L build/libhdp -lhdp $(GLIB_LIBS)

install: lib hdpctl
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR) \
		$(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(COMPLETIONDIR)
	install -m 0755 build/hdpctl/hdpctl $(DESTDIR)$(BINDIR)/hdpctl
	install -m 0755 $(LIB_SO) $(DESTDIR)$(LIBDIR)/
	ln -sf libhdp.so.$(HDP_VERSION) $(DESTDIR)$(LIBDIR)/libhdp.so.1
	ln -sf libhdp.so.1 $(DESTDIR)$(LIBDIR)/libhdp.so
	install -m 0644 build/libhdp/libhdp.a $(DESTDIR)$(LIBDIR)/
	sed -e 's|@PREFIX@|$(PREFIX)|; s|@LIBDIR@|$(PC_LIBDIR)|; s|@INCLUDEDIR@|$(PC_INCLUDEDIR)|; s|@VERSION@|$(HDP_VERSION)|' \
		libhdp/libhdp.pc.in >$(DESTDIR)$(LIBDIR)/pkgconfig/libhdp.pc
	install -m 0644 libhdp/hdp.h $(DESTDIR)$(INCLUDEDIR)/
	install -m 0644 libhdp/libhdp.3 $(DESTDIR)$(MANDIR)/man3/
	install -m 0644 hdpctl/hdpctl.8 hdpctl/hdpctl-guard.8 $(DESTDIR)$(MANDIR)/man8/
	install -m 0644 hdpctl/hdpctl.bash-completion $(DESTDIR)$(COMPLETIONDIR)/hdpctl
	@# hdpctl guard: its service, the udev rule that starts it, and a
	@# configuration with the defaults, unless one is there already.
	install -d $(DESTDIR)$(UNITDIR) $(DESTDIR)$(UDEVRULESDIR) $(DESTDIR)$(SYSCONFDIR)
	sed -e 's|@BINDIR@|$(BINDIR)|' service/hdprotect-guard.service.in \
		>$(DESTDIR)$(UNITDIR)/hdprotect-guard.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/hdprotect-guard.service
	install -m 0644 service/70-hdprotect.rules $(DESTDIR)$(UDEVRULESDIR)/
	@# Its face on the system bus (hdpctl-guard(8), D-BUS INTERFACE).
	install -d $(DESTDIR)$(DBUSDIR)/system.d $(DESTDIR)$(DBUSDIR)/interfaces \
		$(DESTDIR)$(POLKITDIR)/actions
	install -m 0644 service/org.hdprotect.Guard1.conf $(DESTDIR)$(DBUSDIR)/system.d/
	install -m 0644 hdpctl/org.hdprotect.Guard1.xml $(DESTDIR)$(DBUSDIR)/interfaces/
	install -m 0644 service/org.hdprotect.guard.policy $(DESTDIR)$(POLKITDIR)/actions/
	[ -e $(DESTDIR)$(SYSCONFDIR)/hdprotect.conf ] || \
		install -m 0644 service/hdprotect.conf $(DESTDIR)$(SYSCONFDIR)/

# The desktop's indicator apart: a headless machine (and the guest's
# initramfs) needs neither it nor GTK. Its autostart entry goes to
# SYSCONFDIR/xdg/autostart (the one place sessions look, whatever the
# PREFIX); each user can switch it off in the desktop's settings.
install-indicator: indicator
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR)/applications $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(SYSCONFDIR)/xdg/autostart $(DESTDIR)$(DATADIR)/icons/hicolor/scalable/status
	install -m 0755 build/indicator/hdprotect-indicator $(DESTDIR)$(BINDIR)/
	install -m 0644 indicator/hdprotect-indicator.1 $(DESTDIR)$(MANDIR)/man1/
	sed 's|@BINDIR@|$(BINDIR)|' indicator/hdprotect-indicator.desktop.in \
		>$(DESTDIR)$(DATADIR)/applications/hdprotect-indicator.desktop
	sed 's|@BINDIR@|$(BINDIR)|' indicator/hdprotect-indicator-autostart.desktop.in \
		>$(DESTDIR)$(SYSCONFDIR)/xdg/autostart/hdprotect-indicator.desktop
	chmod 0644 $(DESTDIR)$(DATADIR)/applications/hdprotect-indicator.desktop \
		$(DESTDIR)$(SYSCONFDIR)/xdg/autostart/hdprotect-indicator.desktop
	install -m 0644 indicator/icons/*.svg $(DESTDIR)$(DATADIR)/icons/hicolor/scalable/status/
	[ -n "$(DESTDIR)" ] || ! command -v gtk-update-icon-cache >/dev/null || \
		gtk-update-icon-cache -qtf $(DATADIR)/icons/hicolor

# The Debian packages of the user space (debian/): libhdp1, libhdp-dev,
# hdprotect, hdprotect-indicator, built by dpkg-buildpackage from a copy
# of the tree in build/deb/src/hdprotect-<version> (it writes its files
# beside the tree it builds; the four packages are copied to build/deb/),
# then checked by lintian
# (qemu/user-deb). No kernel is built: the UAPI header comes from the series.
deb:
	@qemu/deps deb
	@qemu/user-deb

# What the guest gets: an install into build/stage with PREFIX=/usr (the
# initramfs copies it), and the example listener.
stage: lib hdpctl examples
	rm -rf build/stage
	$(MAKE) --no-print-directory install DESTDIR=$(CURDIR)/build/stage PREFIX=/usr
	install -m 0755 build/libhdp/examples/hdp-applet build/stage/usr/bin/

help:
	@echo "make deps             install the Debian packages the project needs"
	@echo "make kernel           build the test and the lean kernel (build/obj-<base>-*)"
	@echo "make kernel-tree      extract build/linux-<base> and apply kernel/<base>/patches/"
	@echo "make export-patches   write kernel/<base>/patches/ from build/linux-<base>'s commits"
	@echo "                      (the base: KVER=6.12, the default, or KVER=6.1)"
	@echo "make kernel-deb       an installable linux-image package with the series (build/deb-<base>/;"
	@echo "                      DEB_CONFIG=FILE, DEB_MODULES=FILE: see README)"
	@echo "make run              boot the lean kernel: demo, then a shell"
	@echo "make check            run every test on both bases (TESTS='a b' for some"
	@echo "                      guest tests, KVER=6.1 or KVER=6.12 for one base)"
	@echo "make soak             the guest tests' long versions (stress, fuzz, bursts)"
	@echo "make check-deb        build make kernel-deb's package per base, boot it, run a smoke set"
	@echo "make bench            benchmarks: hdprotect and mainline kernels side by side, one table"
	@echo "make lib hdpctl       build libhdp (build/libhdp) and hdpctl (build/hdpctl)"
	@echo "make examples         build libhdp's example listener (GLib)"
	@echo "make install          install libhdp and hdpctl (DESTDIR, PREFIX=/usr/local)"
	@echo "make deb              Debian packages of libhdp, hdpctl and the indicator (build/deb/), lintian"
	@echo "make clean            remove build/ (the compiler cache stays)"

deps:
	@qemu/deps

kernel: all

kernel-test kernel-lean: kernel-%: deps
	@qemu/build-kernel $*

# An installable linux-image package of the base KVER names (6.12 by
# default) with the series: qemu/kernel-deb. DEB_CONFIG=FILE starts from
# that configuration (else /boot/config-*, else Debian's linux-config-*),
# DEB_MODULES=FILE reduces it with localmodconfig (lsmod output, or
# kernel/config/guest-modules).
kernel-deb:
	@qemu/deps kernel-deb
	@qemu/kernel-deb $(if $(DEB_CONFIG),--config "$(abspath $(DEB_CONFIG))") \
		$(if $(DEB_MODULES),--modules "$(abspath $(DEB_MODULES))")

kernel-tree: deps
	@HDP_TREE_HINT=1 qemu/kernel-tree

export-patches:
	@qemu/export-patches

initramfs-test initramfs-lean: initramfs-%: kernel-% guest-bin stage
	@qemu/mkinitramfs $*

guest-bin: $(GUEST_BIN)

build/guest-bin/%: tests/guest-bin/%.c | $(DEPS)
	@mkdir -p $(@D)
	$(CC) $(WARN) $(CFLAGS) -I $(UAPI) $(NL_CFLAGS) -o $@ $< $(NL_LIBS) -lpthread -lm

run: deps
	@qemu/build-kernel lean
	@$(MAKE) --no-print-directory guest-bin stage
	@qemu/mkinitramfs lean
	@qemu/run --config lean --append quiet --exec 'sh /hdp/demo' --shell; rc=$$?; \
	echo; qemu/demo-report; exit $$rc

# Both print each stage's time; `make soak` runs the long versions of the
# guest tests (tests/stages, tests/check).
check:
	@MAKE=$(MAKE) tests/stages check $(TESTS)

soak:
	@MAKE=$(MAKE) tests/stages soak $(TESTS)

# The packaged distribution-like kernel of each base (KVER for one):
# make kernel-deb, dpkg-deb, then a smoke set of guest tests booted
# from the package's files (tests/deb). Not in `make check`: see README.
check-deb:
	@qemu/deps all
	@MAKE=$(MAKE) tests/deb

check-host:
	@tests/check --host-only

# Benchmarks print figures; they assert nothing. They run on the lean
# kernel and, for the side-by-side figures, on the same kernel without the
# series (mainline), under TCG unless KVM works: figures are the
# emulator's. tests/bench/run boots both and prints one table.
bench: deps
	@qemu/hdapsd
	@qemu/build-kernel lean
	@qemu/build-kernel mainline
	@$(MAKE) --no-print-directory guest-bin stage
	@qemu/mkinitramfs lean
	@qemu/mkinitramfs mainline
	@tests/bench/run

clean:
	rm -rf build
