# Copyright (c) 2026 The sbx authors
# SPDX-License-Identifier: ISC
#
# Makefile for sbx (GNU make).  Hand-written; configure only supplies
# config.mk (compiler, library flags) and config.h.
#
# Conventions, so that adding a file never needs an edit here:
#   common/*.c                 -> build/obj/libsbxcommon.a
#   common/privgen/*.c         -> build/tools/sbx-privgen (build-time generator)
#   */*.priv                   -> build/gen/priv_<name>.c -> libsbxpriv.a
#   <lib>/*.c (LIBDIRS)        -> build/obj/<lib>/lib<lib>.a
#   <prog>/main.c + <prog>/*.c -> the program (other files also go into an
#                                 archive the unit tests link)
#   <dir>/*.mjs                -> build/gen/<dir>/<name>_mjs.c (embedded
#                                 bytes) -> that directory's archive
#   libsbx/*.c                 -> build/lib/libsbx.{a,so} (+ common/imsg.c,
#                                 common/changeset.c)
#   regress/unittests/t_*.c    -> ATF test programs (t_<dir>_*: see tests)
#   regress/helpers/*.c        -> helper programs for the tests
#   regress/*.sh               -> atf-sh test programs
#   regress/fuzz/fuzz_*.c      -> libFuzzer targets (make fuzz)

.DEFAULT_GOAL :=	all
.SUFFIXES:
.DELETE_ON_ERROR:

B ?=		build
O :=		$(B)/obj
DESTDIR ?=
FUZZ_SECONDS ?=	20

NOCONFIG_GOALS :=	deps clean distclean help deb
ifneq ($(filter-out $(NOCONFIG_GOALS),$(or $(MAKECMDGOALS),all)),)
include config.mk
endif
# Installation directories come from configure (config.mk: --prefix,
# --sbindir, --libexecdir, --sysconfdir, ...); PREFIX=DIR on make's
# command line moves all of them that configure put under the prefix.
ifdef PREFIX
prefix :=	$(PREFIX)
endif
prefix ?=	/usr/local
PREFIX :=	$(prefix)
SBX_ROLEDIR ?=	../libexec/sbx
SBX_BIN_ROLEDIR ?=	../libexec/sbx

# configure runs itself when config.mk is missing or older than its inputs.
config.mk: configure.ac config.mk.in
	@sh scripts/deps
	autoreconf -fi
	./configure -q $(CONFIGURE_FLAGS)
	@touch config.mk

config.h: config.mk

# Hardening is not optional: FORTIFY, stack protector, PIE and full RELRO.
SAN ?=
# A sanitizer build (SAN set: make sanitize) also compiles in what the
# sanitizer runtime needs under the role filters (SBX_SANITIZE: see
# common/priv_seccomp.c and sbx.priv(5)); release builds never do.
ifeq ($(SAN),)
HARDEN_CPPFLAGS :=	-D_FORTIFY_SOURCE=3
SAN_CPPFLAGS :=
else
HARDEN_CPPFLAGS :=
SAN_CPPFLAGS :=		-DSBX_SANITIZE
endif
CPPFLAGS :=	-I. -Icommon -include config.h -D_GNU_SOURCE $(HARDEN_CPPFLAGS) \
		$(SAN_CPPFLAGS) \
		$(BSD_CFLAGS) $(SECCOMP_CFLAGS) $(SODIUM_CFLAGS) \
		$(CJSON_CFLAGS) $(YAML_CFLAGS) $(EVENT_CFLAGS) $(CPPFLAGS_USER)
CFLAGS :=	-std=gnu11 -O2 -g -Wall -Wextra -Wshadow -Wpointer-arith \
		-Wstrict-prototypes -Wmissing-prototypes -Wformat=2 \
		$(WERROR) -fstack-protector-strong -fPIE $(SAN) $(CFLAGS_USER)
LDFLAGS :=	-pie -Wl,-z,relro,-z,now -Wl,--as-needed $(SAN) $(LDFLAGS_USER)
# libm for the gate statistics (gates/); --as-needed drops it elsewhere.
ALL_LIBS :=	$(EVENT_LIBS) $(SECCOMP_LIBS) $(SODIUM_LIBS) $(CJSON_LIBS) \
		$(YAML_LIBS) $(MD_LIBS) $(ZLIB_LIBS) $(BSD_LIBS) -lm

# ---- common ----------------------------------------------------------
COMMON_SRCS :=	$(wildcard common/*.c)
COMMON_OBJS :=	$(COMMON_SRCS:%.c=$(O)/%.o)
LIBCOMMON :=	$(O)/libsbxcommon.a
PRIVGEN_SRCS :=	$(wildcard common/privgen/*.c)
PRIVGEN :=	$(B)/tools/sbx-privgen

# ---- privilege files -------------------------------------------------
PRIV_FILES :=	$(sort $(wildcard */*.priv))
privname =	$(subst -,_,$(basename $(notdir $(1))))
PRIV_GEN :=	$(foreach f,$(PRIV_FILES),$(B)/gen/priv_$(call privname,$(f)).c)
PRIV_OBJS :=	$(PRIV_GEN:$(B)/gen/%.c=$(O)/gen/%.o)
LIBPRIV :=	$(O)/libsbxpriv.a

# ---- libraries and programs -----------------------------------------
# Libraries hold what more than one program uses; a program's directory
# holds only what that program runs, and no program links another's.
#   conf/      sbx.conf: lexer, parser, value checks, dump, resolution
#   provider/  bundles, digests, frames, pins, node's command line, the
#              embedded driver (provider/driver.mjs)
#   gates/     the gate engine (pure functions) and its document readers
#   shim/      pid 1 of each sandbox: the launcher's clone child runs it
#   libsbx/    the public client library (below, built PIC, with sbx.pc)
LIBDIRS :=	conf provider gates shim
PROGS :=	monitor launcher proxy provider-runner sbxctl
dest_monitor :=		$(B)/sbin/sbx-monitor
# The build tree is laid out like an installation: the monitor finds the
# roles at SBX_ROLEDIR relative to its own directory in both.
ROLEDIR_B :=	$(B)/$(patsubst ../%,%,$(SBX_ROLEDIR))
dest_launcher :=	$(ROLEDIR_B)/sbx-launcher
dest_proxy :=		$(ROLEDIR_B)/sbx-proxy
dest_provider-runner :=	$(ROLEDIR_B)/sbx-provider-runner
dest_sbxctl :=		$(B)/bin/sbxctl
# The libraries each program links, one line each, users before what
# they use (gates reads bundles with provider's code).
uses_monitor :=		conf provider
uses_launcher :=	shim
uses_proxy :=
uses_provider-runner :=	gates provider
uses_sbxctl :=		libsbx gates provider conf
# And the libraries each library uses (libsbxpriv and libsbxcommon come
# last for everyone).
uses_conf :=
uses_provider :=
uses_gates :=		provider
uses_shim :=
# Each program links only the system libraries it uses (with
# --as-needed, unused ones are not even recorded as dependencies).
# sbxctl links them dynamically like every program: linking libsodium
# and libbsd in saved ~0.13 ms per start but would keep a stale copy
# past the distribution's security updates.
libs_monitor :=		$(ALL_LIBS)
libs_launcher :=	$(ALL_LIBS)
libs_proxy :=		$(ALL_LIBS)
libs_provider-runner :=	$(ALL_LIBS)
libs_sbxctl :=		$(ALL_LIBS)

prog_srcs =	$(filter-out $(1)/main.c,$(wildcard $(1)/*.c))
# <dir>/*.mjs are embedded (scripts/embed) into that directory's archive.
embed_objs =	$(patsubst %.mjs,$(O)/gen/%_mjs.o,$(wildcard $(1)/*.mjs))
prog_objs =	$(patsubst %.c,$(O)/%.o,$(call prog_srcs,$(1))) \
		$(call embed_objs,$(1))
prog_lib =	$(O)/$(1)/lib$(subst -,_,$(1)).a
lib_of =	$(if $(filter libsbx,$(1)),$(LIBSBX_A),$(call prog_lib,$(1)))
extra_of =	$(foreach l,$(uses_$(1)),$(call lib_of,$(l)))
PROG_BINS :=	$(foreach p,$(PROGS),$(dest_$(p)))

# libsbx: the C client library agents link; self-contained (no fatal()).
# common/changeset.c (the changeset stream's parser) comes in for
# sbx_changes_*: like imsg.c it neither logs nor exits.
LIBSBX_SRCS :=	$(wildcard libsbx/*.c) $(wildcard common/imsg.c) \
		common/changeset.c
LIBSBX_PICOBJS := $(LIBSBX_SRCS:%.c=$(O)/pic/%.o)
LIBSBX_A :=	$(B)/lib/libsbx.a
LIBSBX_SO :=	$(B)/lib/libsbx.so
LIBSBX_PC :=	$(B)/lib/pkgconfig/sbx.pc

# ---- tests -----------------------------------------------------------
UNIT_SRCS :=	$(wildcard regress/unittests/t_*.c)
UNIT_NAMES :=	$(UNIT_SRCS:regress/unittests/%.c=%)
UNIT_BINS :=	$(UNIT_NAMES:%=$(B)/regress/unittests/%)
HELPER_SRCS :=	$(wildcard regress/helpers/*.c)
HELPER_BINS :=	$(HELPER_SRCS:regress/%.c=$(B)/regress/%)
SH_TESTS :=	$(wildcard regress/*.sh)
SH_BINS :=	$(SH_TESTS:regress/%=$(B)/regress/%)
KYUAFILE :=	$(B)/regress/Kyuafile
FUZZ_SRCS :=	$(wildcard regress/fuzz/fuzz_*.c)
FUZZ_BINS :=	$(FUZZ_SRCS:regress/fuzz/%.c=$(B)/fuzz/%)

.PHONY: all deps check sanitize valgrind demo bench fuzz install clean \
	distclean tests help lint-man deb

all: $(PROG_BINS) $(LIBSBX_A) $(LIBSBX_SO) $(LIBSBX_PC)

deps:
	@sh scripts/deps

help:
	@echo "targets: all check demo bench fuzz sanitize valgrind install deb" \
	    "clean deps"

# ---- rules -----------------------------------------------------------
# Objects depend on the headers they include through the -MMD files (read
# at the end); the first build has no objects, so it needs no list.
$(O)/%.o: %.c config.mk config.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -I$(<D) -MMD -MP -c -o $@ $<

# The gate statistics must give the reference's doubles bit for bit, so no
# floating-point contraction: x86-64's baseline has no FMA, but gcc's GNU
# dialects default to -ffp-contract=fast, which on arm64 (or with -march
# giving FMA) fuses a * b + c into one rounding and changes the last bit.
$(O)/gates/%.o: CFLAGS += -ffp-contract=off

$(O)/pic/%.o: %.c config.mk config.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fPIC -I$(<D) -DSBX_LIBRARY -MMD -MP \
	    -c -o $@ $<

$(LIBCOMMON): $(COMMON_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(PRIVGEN): $(PRIVGEN_SRCS:%.c=$(O)/%.o) $(LIBCOMMON)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(ALL_LIBS)

define priv_rule
$(B)/gen/priv_$(call privname,$(1)).c: $(1) $(PRIVGEN)
	@mkdir -p $$(@D)
	$(PRIVGEN) -o $$@ -n $(call privname,$(1)) $(1)
endef
$(foreach f,$(PRIV_FILES),$(eval $(call priv_rule,$(f))))

$(B)/gen/%_mjs.c: %.mjs scripts/embed
	@mkdir -p $(@D)
	sh scripts/embed $< > $@

# Generated C (the embedded .mjs) is kept: make would delete it as an
# intermediate after the first build, and the next make, which reads it
# in the object's .d file, would regenerate it and relink every program
# (in a sanitizer tree, `make install` there would then link without the
# sanitizer and fail).
.PRECIOUS: $(B)/gen/%_mjs.c

$(O)/gen/%.o: $(B)/gen/%.c config.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

$(LIBPRIV): $(PRIV_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

define archive_rule
$(call prog_lib,$(1)): $(call prog_objs,$(1))
	@mkdir -p $$(@D)
	rm -f $$@ && ar rcs $$@ $$^
endef
$(foreach p,$(PROGS) $(LIBDIRS),$(eval $(call archive_rule,$(p))))

define prog_rule
$(dest_$(1)): $(O)/$(1)/main.o $(call prog_lib,$(1)) $(call extra_of,$(1)) \
    $(LIBPRIV) $(LIBCOMMON)
	@mkdir -p $$(@D)
	$$(CC) $$(LDFLAGS) -o $$@ $$^ $$(libs_$(1))
endef
$(foreach p,$(PROGS),$(eval $(call prog_rule,$(p))))

$(LIBSBX_A): $(LIBSBX_PICOBJS)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(LIBSBX_SO): $(LIBSBX_PICOBJS)
	@mkdir -p $(@D)
	$(CC) -shared -Wl,-soname,libsbx.so.0 -Wl,-z,relro,-z,now $(SAN) \
	    -o $@ $^ $(CJSON_LIBS) $(MD_LIBS) $(ZLIB_LIBS) $(BSD_LIBS)

# sbx.pc of the build tree names the configured directories; `make
# install` writes the installed one with the directories it installs to.
PC_SUBST =	sed -e 's|@prefix@|$(prefix)|g' -e 's|@libdir@|$(libdir)|g' \
		    -e 's|@includedir@|$(includedir)|g' \
		    -e 's|@VERSION@|$(VERSION)|g'
$(LIBSBX_PC): libsbx/sbx.pc.in config.mk
	@mkdir -p $(@D)
	$(PC_SUBST) libsbx/sbx.pc.in > $@

# A unit test links only what it tests, named in its file name:
# t_<dir>_<what>.c links <dir>'s archive (a program's internals are
# testable without its main()) and the libraries <dir> uses (uses_<dir>);
# t_common_* links only libsbxpriv and libsbxcommon, which every test
# links last.  A test spanning two directories names them all, users
# first, in a testlibs_<test> line with the reason.
#   t_launcher_cgroup: the delegated subtree is laid out by the monitor
#   (monitor/cgroups.c) and used by the launcher (launcher/cgroup.c);
#   the test checks the two against one fake tree.
testlibs_t_launcher_cgroup :=	launcher shim monitor conf provider
test_dir =	$(firstword $(foreach d,$(PROGS) $(LIBDIRS), \
		    $(if $(filter t_$(d)_%,$(1)),$(d))))
test_dirs =	$(or $(testlibs_$(1)),$(foreach d,$(call test_dir,$(1)), \
		    $(d) $(uses_$(d))))
test_archives =	$(foreach d,$(call test_dirs,$(1)),$(call lib_of,$(d)))
$(foreach t,$(UNIT_NAMES),$(if $(or $(call test_dirs,$(t)), \
    $(filter t_common_%,$(t))),,$(error regress/unittests/$(t).c: name \
    it t_<dir>_<what>.c (<dir> of PROGS or LIBDIRS) or t_common_<what>.c)))

define unit_rule
$(B)/regress/unittests/$(1): $(O)/regress/unittests/$(1).o \
    $(call test_archives,$(1)) $(LIBPRIV) $(LIBCOMMON)
	@mkdir -p $$(@D)
	$$(CC) $$(LDFLAGS) -o $$@ $$^ $$(ATF_C_LIBS) $$(ALL_LIBS)
endef
$(foreach t,$(UNIT_NAMES),$(eval $(call unit_rule,$(t))))

$(O)/regress/unittests/%.o: regress/unittests/%.c config.mk config.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(ATF_C_CFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

# Helpers may be agents too (pingloop): libsbx before libsbxcommon.
$(B)/regress/helpers/%: $(O)/regress/helpers/%.o $(LIBSBX_A) $(LIBCOMMON)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(ALL_LIBS)

# Helpers that run as a sandbox's payload are foreign programs there: in
# a sanitizer build they stay uninstrumented, because ASan's shadow
# reservation exceeds any RLIMIT_AS a sandbox sets and LeakSanitizer's
# exit check needs ptrace, which the payload filters refuse.  They link
# nothing of ours (only headers), so no instrumented object comes with
# them.
PAYLOAD_HELPERS :=	probe tunnels fuzzpeer
$(PAYLOAD_HELPERS:%=$(O)/regress/helpers/%.o): \
	CFLAGS := $(filter-out -fsanitize=%,$(CFLAGS))
$(PAYLOAD_HELPERS:%=$(B)/regress/helpers/%): \
	LDFLAGS := $(filter-out -fsanitize=%,$(LDFLAGS))

# Helpers named gates_* exercise the gate engine and link its archive,
# which needs libsbxcommon after it (gates_eval_bench: digests, dates).
$(filter $(B)/regress/helpers/gates_%,$(HELPER_BINS)): $(call prog_lib,gates)
$(filter $(B)/regress/helpers/gates_%,$(HELPER_BINS)): \
	ALL_LIBS := $(LIBCOMMON) $(ALL_LIBS)

# slowfuse (tenants.sh, issue 20) is a FUSE daemon: libfuse3.
$(O)/regress/helpers/slowfuse.o: CFLAGS += $(shell pkg-config --cflags fuse3)
$(B)/regress/helpers/slowfuse: ALL_LIBS += $(shell pkg-config --libs fuse3)

$(B)/regress/%.sh: regress/%.sh
	@mkdir -p $(@D)
	cp $< $@ && chmod 755 $@

# kyua wants one Kyuafile per directory, naming only files in it.
$(KYUAFILE): $(UNIT_SRCS) $(SH_TESTS) Makefile
	@mkdir -p $(@D)/unittests
	{ echo "syntax(2)"; echo "test_suite('sbx')"; \
	  echo "include('unittests/Kyuafile')"; \
	  for t in $(SH_BINS:$(B)/regress/%=%); do \
	    echo "atf_test_program{name='$$t'}"; done; } > $@
	{ echo "syntax(2)"; echo "test_suite('sbx')"; \
	  for t in $(UNIT_BINS:$(B)/regress/unittests/%=%); do \
	    echo "atf_test_program{name='$$t'}"; done; } > $(@D)/unittests/Kyuafile

# Tests find the source tree (fixtures, man pages) through this link.
$(B)/regress/top:
	@mkdir -p $(@D)
	ln -sfn ../.. $@

tests: all $(UNIT_BINS) $(HELPER_BINS) $(SH_BINS) $(KYUAFILE) $(B)/regress/top

check: deps
	@sh scripts/deps check
	@$(MAKE) --no-print-directory tests
	@sh scripts/check $(B)

# ASan + UBSan (+ LeakSanitizer, part of ASan) build of everything in its
# own tree, then the whole suite on it, as root and as a user like check.
SAN_FLAGS :=	-fsanitize=address,undefined -fno-omit-frame-pointer \
		-fno-sanitize-recover=undefined
sanitize: deps
	@sh scripts/deps check
	@$(MAKE) --no-print-directory B=build-san SAN="$(SAN_FLAGS)" tests
	@SBX_SANITIZE=1 sh scripts/check build-san

# valgrind memcheck on the monitor and the provider runner over regress
# runs (scripts/valgrind), in its own tree: SBX_VALGRIND lets a program
# under valgrind skip seccomp and Landlock, which valgrind cannot run.
valgrind: deps
	@$(MAKE) --no-print-directory B=build-vg \
	    CPPFLAGS_USER="-DSBX_VALGRIND" tests
	@sh scripts/valgrind build-vg $(VALGRIND_TESTS)

demo: deps all
	@sh scripts/demo $(B)

bench: deps all $(HELPER_BINS)
	@sh scripts/deps bench || echo "bench: the peers' packages are" \
	    "missing (above); their rows say so"
	@sh regress/bench/run $(B)

# ---- fuzzing (clang, libFuzzer) ---------------------------------------
FUZZ_CFLAGS :=	-g -O1 -fsanitize=fuzzer-no-link,address,undefined
$(B)/fuzzobj/%.o: %.c config.mk config.h
	@mkdir -p $(@D)
	$(CLANG) $(filter-out -D_FORTIFY_SOURCE=3,$(CPPFLAGS)) -I$(<D) \
	    $(FUZZ_CFLAGS) -MMD -MP -c -o $@ $<

# Fuzz targets link archives, so only the objects a target needs are pulled
# in (a role file referring to its main.c must not break every target).
FUZZ_COMMON_A :=	$(B)/fuzzobj/libcommon.a
FUZZ_PROG_A :=		$(foreach p,$(PROGS) $(LIBDIRS),$(B)/fuzzobj/lib$(subst -,_,$(p)).a)

$(FUZZ_COMMON_A): $(COMMON_OBJS:$(O)/%=$(B)/fuzzobj/%)
	rm -f $@ && ar rcs $@ $^

define fuzz_prog_rule
$(B)/fuzzobj/lib$(subst -,_,$(1)).a: $(patsubst %.c,$(B)/fuzzobj/%.o,$(call prog_srcs,$(1)))
	rm -f $$@ && ar rcs $$@ $$^
endef
$(foreach p,$(PROGS) $(LIBDIRS),$(eval $(call fuzz_prog_rule,$(p))))

$(B)/fuzz/%: $(B)/fuzzobj/regress/fuzz/%.o $(FUZZ_PROG_A) $(FUZZ_COMMON_A) \
    $(LIBPRIV)
	@mkdir -p $(@D)
	$(CLANG) -fsanitize=fuzzer,address,undefined -o $@ $< $(FUZZ_PROG_A) \
	    $(LIBPRIV) $(FUZZ_COMMON_A) $(ALL_LIBS)

fuzz: deps
	@$(MAKE) --no-print-directory $(FUZZ_BINS)
	@sh scripts/fuzz $(B) $(FUZZ_SECONDS) $(FUZZ_BINS)

# ---- install -----------------------------------------------------------
# Everything goes under configure's directories (see above); DESTDIR
# stages.  Systemd's directories default to the prefix's lib/ (systemd
# reads /usr/local/lib/systemd/... too); a package passes its own.
systemdsystemunitdir ?=	$(prefix)/lib/systemd/system
systemduserunitdir ?=	$(prefix)/lib/systemd/user
sysusersdir ?=		$(prefix)/lib/sysusers.d
tmpfilesdir ?=		$(prefix)/lib/tmpfiles.d
D :=			$(DESTDIR)
PRIVDIR :=		$(datadir)/sbx/priv
# The monitor looks for its roles at SBX_ROLEDIR from its own directory,
# compiled in from configure: installing to directories that do not
# keep that relation would install a monitor without roles.
INSTALL_ROLEDIR =	$(shell realpath -m --relative-to='$(sbindir)' \
			    '$(libexecdir)/sbx')
# sbxctl too, from bindir (SBX_BIN_ROLEDIR): its offline gate evaluation
# starts the provider runner.
INSTALL_BIN_ROLEDIR =	$(shell realpath -m --relative-to='$(bindir)' \
			    '$(libexecdir)/sbx')
UNIT_SUBST =	sed -e 's|@sbindir@|$(sbindir)|g' -e 's|@bindir@|$(bindir)|g' \
		    -e 's|@sysconfdir@|$(sysconfdir)|g' -e 's|@datadir@|$(datadir)|g'

install: all
	@[ "$(INSTALL_ROLEDIR)" = "$(SBX_ROLEDIR)" ] || { \
	    echo "make install: the roles would be at $(INSTALL_ROLEDIR) from" \
	        "$(sbindir), the monitor was built to look in $(SBX_ROLEDIR);" \
	        "give configure the directories instead" >&2; exit 1; }
	@[ "$(INSTALL_BIN_ROLEDIR)" = "$(SBX_BIN_ROLEDIR)" ] || { \
	    echo "make install: the roles would be at $(INSTALL_BIN_ROLEDIR)" \
	        "from $(bindir), sbxctl was built to look in" \
	        "$(SBX_BIN_ROLEDIR); give configure the directories" \
	        "instead" >&2; exit 1; }
	install -d $(D)$(sbindir) $(D)$(bindir) $(D)$(libexecdir)/sbx \
	    $(D)$(libdir)/pkgconfig $(D)$(includedir) $(D)$(PRIVDIR) \
	    $(D)$(datadir)/sbx/examples $(D)$(sysconfdir)/sbx \
	    $(D)$(systemdsystemunitdir) $(D)$(systemduserunitdir) \
	    $(D)$(sysusersdir) $(D)$(tmpfilesdir)
	for s in 1 3 5 7 8; do install -d $(D)$(mandir)/man$$s; done
	install -m 755 $(dest_monitor) $(D)$(sbindir)/
	install -m 755 $(dest_sbxctl) $(D)$(bindir)/
	install -m 755 $(filter $(ROLEDIR_B)/%,$(PROG_BINS)) \
	    $(D)$(libexecdir)/sbx/
	install -m 644 $(LIBSBX_A) $(D)$(libdir)/
	install -m 644 $(LIBSBX_SO) $(D)$(libdir)/libsbx.so.0
	ln -sf libsbx.so.0 $(D)$(libdir)/libsbx.so
	$(PC_SUBST) libsbx/sbx.pc.in > $(D)$(libdir)/pkgconfig/sbx.pc
	chmod 644 $(D)$(libdir)/pkgconfig/sbx.pc
	install -m 644 libsbx/sbx.h $(D)$(includedir)/
	for m in man/*.[13578]; do s=$${m##*.}; \
	    install -m 644 $$m $(D)$(mandir)/man$$s/; done
	# Each function of a library page under its own name too.
	for m in man/*.3; do p=$${m##*/}; \
	    for n in $$(sed -n 's/^\.Nm \([a-z_]*\).*/\1/p' $$m); do \
	        [ "$$n.3" = "$$p" ] || ln -sf $$p $(D)$(mandir)/man3/$$n.3; \
	    done; done
	# The privilege files the roles were built from, for the operator
	# to read (sbx-monitor -P prints what was compiled from them).
	install -m 644 $(PRIV_FILES) $(D)$(PRIVDIR)/
	# The example configuration, with sysconfdir's paths; the one in
	# sysconfdir only when there is none yet (an operator's is kept).
	sed -e 's|/etc/sbx|$(sysconfdir)/sbx|g' etc/sbx.conf \
	    > $(D)$(datadir)/sbx/examples/sbx.conf
	install -m 644 etc/providers.json $(D)$(datadir)/sbx/examples/
	chmod 644 $(D)$(datadir)/sbx/examples/sbx.conf
	for f in sbx.conf providers.json; do \
	    if [ -e $(D)$(sysconfdir)/sbx/$$f ]; then \
	        echo "keeping $(D)$(sysconfdir)/sbx/$$f"; \
	    else install -m 644 $(D)$(datadir)/sbx/examples/$$f \
	        $(D)$(sysconfdir)/sbx/; fi; done
	$(UNIT_SUBST) etc/systemd/system/sbx-monitor.service.in \
	    > $(D)$(systemdsystemunitdir)/sbx-monitor.service
	$(UNIT_SUBST) etc/systemd/user/sbx-monitor.service.in \
	    > $(D)$(systemduserunitdir)/sbx-monitor.service
	chmod 644 $(D)$(systemdsystemunitdir)/sbx-monitor.service \
	    $(D)$(systemduserunitdir)/sbx-monitor.service
	install -m 644 etc/sysusers.d/sbx.conf $(D)$(sysusersdir)/sbx.conf
	install -m 644 etc/tmpfiles.d/sbx.conf $(D)$(tmpfilesdir)/sbx.conf

# A Debian package from debian/, built with dpkg-buildpackage in a copy of
# the source (its products land beside the source: here $(B)/deb/).
DEB_DIR :=	$(B)/deb
deb:
	@sh scripts/deps deb
	rm -rf $(DEB_DIR) && mkdir -p $(DEB_DIR)/sbx
	tar -C . --exclude=./.git --exclude='./build*' --exclude=./config.mk \
	    --exclude=./config.h --exclude=./config.status \
	    --exclude=./config.log --exclude=./configure \
	    --exclude=./config.h.in --exclude=./aclocal.m4 \
	    --exclude=./autom4te.cache -cf - . | tar -C $(DEB_DIR)/sbx -xf -
	cd $(DEB_DIR)/sbx && dpkg-buildpackage -b -us -uc -j2
	cd $(DEB_DIR) && lintian --fail-on error --suppress-tags \
	    bad-distribution-in-changes-file *.changes
	@ls $(DEB_DIR)/*.deb

lint-man:
	@sh scripts/lint-man

clean:
	rm -rf build build-san build-vg

distclean: clean
	rm -rf config.mk config.h config.log config.status configure \
	    autom4te.cache config.h.in config.h.in~ aclocal.m4

-include $(shell find $(O) $(B)/fuzzobj -name '*.d' 2>/dev/null)
