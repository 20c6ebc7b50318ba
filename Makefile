# Makefile: build smpvfs, boot it in QEMU, run its tests.
#
#   make            build build/smpvfs.elf and build/smpvfs.iso
#   make run        boot in QEMU: self-tests on every CPU, then the shell
#   make test       the test matrix: BIOS and UEFI x SMP 1, 2, 4, 8
#   make soak       boots with fresh seeds and race windows on, DURATION seconds
#   make bench      the benchmarks (release build): tables, build/bench/results.json, plots
#   make bench-linux  the same static workloads on smpvfs and on Debian's Linux, side by side
#   make trace      boot a tracing scenario: build/trace/NAME.txt (ftrace's format), .png, .svg
#   make deps       install the Debian packages everything needs
#   make debug/gdb  QEMU paused with a gdb stub / gdb attached to it
#   make clean
#
#   make KCSAN=1    the same with the data-race detector, in build/kcsan
#
# Variables: SMP MEM FIRMWARE MACHINE ACCEL KARGS INITRD SCRIPT LOCKDEP KCSAN TRACE BUILD V CROSS BENCH
# DURATION SCENARIO OVMF_DIR NO_DEPS
# (docs/reference/make.md).

# Compile on every core (CI runs a plain `make test`), unless told -jN.
# Only the top make asks: sub-makes share its job server.
ifeq ($(MAKELEVEL),0)
ifeq ($(filter -j%,$(MAKEFLAGS)),)
MAKEFLAGS += -j$(shell nproc)
endif
endif

CROSS   ?=
CC      := $(CROSS)gcc
HOST_CC ?= gcc
LD      := $(CROSS)ld
NM      := $(CROSS)nm
PYTHON  ?= python3

# The data-race detector (kernel/kcsan.c): KCSAN=1 compiles everything
# but arch/ and boot/ (kernel/, block/, drivers/, fs/, user/, init/, shell/, bench/,
# tests/) with the compiler's race instrumentation, into a build
# directory of its own so that its objects never mix with the normal ones.
KCSAN   ?= 0
KCSAN_BUILD := build/kcsan
ifeq ($(KCSAN),1)
BUILD   ?= $(KCSAN_BUILD)
endif
BUILD   ?= build

# The lock validator (kernel/lockdep.c): 1 checks every lock's order at
# run time; 0 compiles its hooks to nothing.  Changing it rebuilds
# everything (see $(BUILD)/cflags below).
LOCKDEP ?= 1
# The tracer (kernel/trace.h): compiled in where the validator is (test
# builds), off until trace= or the shell's `trace start`; TRACE=0 compiles
# its hooks out, as the release build (LOCKDEP=0) does unless TRACE=1.
TRACE ?= $(LOCKDEP)

# OVMF's firmware files (UEFI boots): OVMF_CODE_4M.fd and OVMF_VARS_4M.fd.
# Exported: tests/lib/qemu.py reads it too.
OVMF_DIR ?= /usr/share/OVMF
export OVMF_DIR

SMP      ?=
MEM      ?= 512M
FIRMWARE ?=
MACHINE  ?= pc
ACCEL    ?= tcg
KARGS    ?=
INITRD   ?=

ifeq ($(V),1)
Q :=
else
Q := @
endif

CFLAGS := -std=c11 -O2 -g -Wall -Wextra -Werror \
	-ffreestanding -fno-builtin -nostdlib -fno-stack-protector -fno-pic -fno-pie \
	-mno-red-zone -mcmodel=kernel -mgeneral-regs-only -mno-mmx -mno-sse -mno-sse2 \
	-fno-omit-frame-pointer -fno-optimize-sibling-calls -fno-strict-aliasing -fno-delete-null-pointer-checks \
	-fno-asynchronous-unwind-tables -I. -MMD -MP \
	-DCONFIG_LOCKDEP=$(if $(filter 1,$(LOCKDEP)),1,0) \
	-DCONFIG_KCSAN=$(if $(filter 1,$(KCSAN)),1,0) \
	-DCONFIG_TRACE=$(if $(filter 1,$(TRACE)),1,0)
ASFLAGS := -I. -MMD -MP -D__ASSEMBLER__
LDFLAGS := -nostdlib -static -z max-page-size=0x1000 -z noexecstack --no-warn-rwx-segments -T linker.ld

SRCS := $(wildcard boot/*.S arch/x86_64/*.S arch/x86_64/*.c kernel/*.c block/*.c drivers/*.c \
	fs/*.c fs/*/*.c user/*.c \
	init/*.c shell/*.c bench/*.c tests/*.c)
OBJS := $(patsubst %,$(BUILD)/%.o,$(basename $(SRCS)))

# KCSAN=1: which files get -fsanitize=thread.  Volatile accesses become
# __tsan_volatile_* (READ_ONCE/WRITE_ONCE: marked); no calls at function
# entry and exit (nothing uses them).  Not instrumented: the runtime
# itself; the early boot path (init/main.c, multiboot2.c, bootmem.c: one CPU,
# before the detector starts); what the runtime calls to report (kprintf,
# ksyms, panic); the lock internals and the lock validator (their shared
# words are atomics, and instrumenting the hottest code in the kernel
# would only slow every test down); arch/ and boot/ (not in the list).
KCSAN_CFLAGS := -fsanitize=thread --param tsan-distinguish-volatile=1 \
	--param tsan-instrument-func-entry-exit=0 -Wno-tsan
KCSAN_NOT := kernel/kcsan.c init/main.c kernel/multiboot2.c kernel/bootmem.c \
	kernel/kprintf.c kernel/ksyms.c kernel/panic.c \
	kernel/spinlock.c kernel/lockdep.c kernel/lockdep_context.c
kcsan_flags = $(if $(filter 1,$(KCSAN)),$(if $(filter $(KCSAN_NOT),$<),,$(if \
	$(filter kernel/% block/% drivers/% fs/% user/% init/% shell/% bench/% tests/%,$<),$(KCSAN_CFLAGS))))

.PHONY: all iso run sh disk test soak test-busybox-host test-syscalls-doc test-docs test-matrix test-exclusive test-9p test-kvm test-negative \
	test-disk test-fstest-host test-shell test-kcsan test-pjdfstest \
	test-nolockdep test-fresh test-trace trace test-model bench bench-linux linux-kernel conflicts conflicts-shell test-conflicts debug gdb clean deps \
	deps-packages check-tools FORCE
all: $(BUILD)/smpvfs.iso

# The compiler flags of the last build: rewritten only when they change
# (LOCKDEP=0 after LOCKDEP=1, say), so that every object is rebuilt then.
$(BUILD)/cflags: FORCE
	@mkdir -p $(dir $@)
	@echo '$(CC) $(CFLAGS) $(ASFLAGS) $(KCSAN_CFLAGS) $(KCSAN_NOT)' | cmp -s - $@ || \
		echo '$(CC) $(CFLAGS) $(ASFLAGS) $(KCSAN_CFLAGS) $(KCSAN_NOT)' > $@

$(BUILD)/%.o: %.c $(BUILD)/cflags | check-tools
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) $(kcsan_flags) -c $< -o $@

$(BUILD)/%.o: %.S $(BUILD)/cflags | check-tools
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  AS      $<")
	$(Q)$(CC) $(ASFLAGS) -c $< -o $@

# The symbol table for backtraces: link once without it, list the text
# symbols, link again with them (.ksyms follows .text, so nothing moves),
# then check that the final image's symbols are the ones embedded.
$(BUILD)/ksyms-empty.S: | check-tools
	@mkdir -p $(dir $@)
	$(Q)awk -f kernel/ksyms.awk /dev/null > $@

$(BUILD)/ksyms-%.o: $(BUILD)/ksyms-%.S
	$(Q)$(CC) $(ASFLAGS) -c $< -o $@

$(BUILD)/smpvfs.stage1.elf: $(OBJS) $(BUILD)/ksyms-empty.o linker.ld
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(LD) $(LDFLAGS) -o $@ $(OBJS) $(BUILD)/ksyms-empty.o

$(BUILD)/ksyms-final.S: $(BUILD)/smpvfs.stage1.elf kernel/ksyms.awk
	$(Q)$(NM) -n $< | awk -f kernel/ksyms.awk > $@

$(BUILD)/smpvfs.elf: $(OBJS) $(BUILD)/ksyms-final.o linker.ld
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(LD) $(LDFLAGS) -o $@ $(OBJS) $(BUILD)/ksyms-final.o
	$(Q)$(NM) -n $@ | awk -f kernel/ksyms.awk | cmp -s - $(BUILD)/ksyms-final.S || \
		{ echo "error: symbol table moved between links (see Makefile)"; rm -f $@; exit 1; }

# The default ISO (empty command line); tests/run.py makes one per command line.
$(BUILD)/smpvfs.iso: $(BUILD)/smpvfs.elf boot/grub.cfg | check-tools
	@$(if $(Q),echo "  ISO     $@")
	$(Q)rm -rf $(BUILD)/isoroot && mkdir -p $(BUILD)/isoroot/boot/grub
	$(Q)cp $< $(BUILD)/isoroot/boot/smpvfs.elf
	$(Q)sed -e 's/@KARGS@//' -e 's/@MODULES@//' boot/grub.cfg > $(BUILD)/isoroot/boot/grub/grub.cfg
	$(Q)grub-mkrescue -o $@ $(BUILD)/isoroot >$(BUILD)/grub-mkrescue.log 2>&1 || \
		{ cat $(BUILD)/grub-mkrescue.log; exit 1; }

iso: $(BUILD)/smpvfs.iso

# ---- the initramfs and the host fstest --------------------------------

# Every boot gets build/initrd.cpio as its multiboot2 module: the fstest
# files (/tests/fstest/*.t, for tests/test_fstest.c), then INITRD's
# contents (INITRD=DIR is packed with cpio, INITRD=file.cpio is taken as
# it is), concatenated so that INITRD's entries win.  Rebuilt on every
# make, but rewritten only when its bytes change (the ISO cache keys on it).
FSTEST_FILES := $(wildcard tests/fstest/*.t)
CPIO_PACK = cpio --quiet -o -H newc -R 0:0

# User-mode test programs (tests/user/*.c): Linux x86-64 static
# executables with no C library, built by the host's gcc, in the
# initramfs as /tests/user/NAME.
USER_PROGS := $(patsubst tests/user/%.c,$(BUILD)/user-progs/%,$(wildcard tests/user/*.c))
USER_CFLAGS := -std=gnu11 -O2 -Wall -Wextra -Werror -static -nostdlib -ffreestanding \
	-fno-stack-protector -fno-pie -no-pie -fno-builtin -fno-asynchronous-unwind-tables
$(BUILD)/user-progs/%: tests/user/%.c tests/user/ulib.h tests/user/uthread.h | check-tools
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  USERCC  $@")
	$(Q)$(HOST_CC) $(USER_CFLAGS) -o $@ $<
# The system-call fuzzer takes its list of calls from the kernel's.
$(BUILD)/user-progs/ufuzz: user/syscall_list.h

# The workloads of make bench-linux (bench/linux/lb_*.c), built the same
# way, so that one binary runs on smpvfs and on Linux.
LB_PROGS := $(patsubst bench/linux/%.c,$(BUILD)/lb-progs/%,$(wildcard bench/linux/*.c))
$(BUILD)/lb-progs/%: bench/linux/%.c bench/linux/lb.h tests/user/ulib.h tests/user/uthread.h | check-tools
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  USERCC  $@")
	$(Q)$(HOST_CC) $(USER_CFLAGS) -I. -o $@ $<

# Debian's busybox-static, unmodified, as /bin/busybox with a symlink per
# applet (/bin/NAME -> busybox): what `run /bin/sh` and the busybox tests use.
BUSYBOX ?= /bin/busybox

BUSYBOX_TESTS := $(wildcard tests/busybox/*.sh tests/busybox/*.out)

$(BUILD)/initrd.cpio: $(FSTEST_FILES) $(USER_PROGS) $(LB_PROGS) $(BUSYBOX_TESTS) $(BUILD)/host/fstest-static \
		$(BUILD)/pjdfstest/pjdfstest FORCE | check-tools
	@mkdir -p $(BUILD)/initrd-tests/tests/fstest $(BUILD)/initrd-tests/tests/user $(BUILD)/initrd-tests/bin \
		$(BUILD)/initrd-tests/tests/busybox $(BUILD)/initrd-tests/tests/bin $(BUILD)/initrd-tests/tests/lb
	$(Q)cp -p $(BUILD)/host/fstest-static $(BUILD)/initrd-tests/tests/bin/fstest
	$(Q)rm -f $(BUILD)/initrd-tests/tests/busybox/* && cp -p $(BUSYBOX_TESTS) $(BUILD)/initrd-tests/tests/busybox/
	$(Q)rm -f $(BUILD)/initrd-tests/bin/* && cp -p $(BUSYBOX) $(BUILD)/initrd-tests/bin/busybox
	$(Q)for a in $$($(BUSYBOX) --list); do [ $$a = busybox ] || ln -sf busybox $(BUILD)/initrd-tests/bin/$$a; done
	$(Q)rm -f $(BUILD)/initrd-tests/tests/fstest/*.t && cp -p $(FSTEST_FILES) $(BUILD)/initrd-tests/tests/fstest/
	$(Q)rm -f $(BUILD)/initrd-tests/tests/user/* && cp -p $(USER_PROGS) $(BUILD)/initrd-tests/tests/user/
	$(Q)rm -f $(BUILD)/initrd-tests/tests/lb/* && cp -p $(LB_PROGS) $(BUILD)/initrd-tests/tests/lb/
	$(Q)touch -h -d @0 $(BUILD)/initrd-tests $(BUILD)/initrd-tests/tests $(BUILD)/initrd-tests/tests/fstest \
		$(BUILD)/initrd-tests/tests/user $(BUILD)/initrd-tests/tests/user/* $(BUILD)/initrd-tests/bin \
		$(BUILD)/initrd-tests/bin/* $(BUILD)/initrd-tests/tests/busybox $(BUILD)/initrd-tests/tests/busybox/* \
		$(BUILD)/initrd-tests/tests/bin $(BUILD)/initrd-tests/tests/bin/fstest \
		$(BUILD)/initrd-tests/tests/lb $(BUILD)/initrd-tests/tests/lb/*
	$(Q)rm -rf $(BUILD)/initrd-tests/tests/pjdfstest && mkdir -p $(BUILD)/initrd-tests/tests/pjdfstest && \
		cp -pR $(BUILD)/pjdfstest/pjdfstest $(PJDFSTEST)/tests tests/pjdfstest/shim \
			$(BUILD)/initrd-tests/tests/pjdfstest/ && \
		find $(BUILD)/initrd-tests/tests/pjdfstest -exec touch -h -d @0 {} +
	$(Q)cd $(BUILD)/initrd-tests && find . | LC_ALL=C sort | $(CPIO_PACK) > ../initrd.cpio.new
	$(Q)if [ -z "$(INITRD)" ]; then :; \
	elif [ -d "$(INITRD)" ]; then (cd "$(INITRD)" && find . | LC_ALL=C sort | $(CPIO_PACK)) >> $@.new; \
	elif [ -f "$(INITRD)" ]; then cat "$(INITRD)" >> $@.new; \
	else echo "INITRD=$(INITRD): no such directory or file"; rm -f $@.new; exit 1; fi
	$(Q)cmp -s $@.new $@ && rm $@.new || mv $@.new $@

# fstest for the host (tools/fstest/run.py checks the test files on Linux).
$(BUILD)/host/fstest: shell/fstest.c tools/fstest/host_main.c shell/fstest.h \
		shell/fstest_os.h kernel/errno.c kernel/errno.h | check-tools
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  HOSTCC  $@")
	$(Q)$(HOST_CC) -std=gnu11 -O2 -Wall -Wextra -Werror -D_GNU_SOURCE -DFSTEST_HOST -I. -o $@ \
		shell/fstest.c tools/fstest/host_main.c kernel/errno.c

# The same program linked statically against the host's glibc: the
# initramfs's /tests/bin/fstest, which smpvfs runs in user mode (ktest
# suite fstest_user), so that every .t file passes three ways.
$(BUILD)/host/fstest-static: shell/fstest.c tools/fstest/host_main.c shell/fstest.h \
		shell/fstest_os.h kernel/errno.c kernel/errno.h | check-tools
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  HOSTCC  $@ (static)")
	$(Q)$(HOST_CC) -static -std=gnu11 -O2 -Wall -Wextra -Werror -D_GNU_SOURCE -DFSTEST_HOST -I. -o $@ \
		shell/fstest.c tools/fstest/host_main.c kernel/errno.c

# pjdfstest (third_party/pjdfstest, upstream's source unmodified; the
# initramfs's /tests/pjdfstest/pjdfstest), compiled without its autotools:
# the -D flags are what its configure.ac finds on Debian's glibc 2.36 (the
# *at calls, utimensat, posix_fallocate, lchmod, st_[amc]tim; no chflags,
# bindat/connectat, lpathconf or sys/acl.h), and its `#include "config.h"`
# gets an empty file.  Static, so that smpvfs runs it from the initramfs.
PJDFSTEST := third_party/pjdfstest
PJDFSTEST_DEFS := -D_GNU_SOURCE -DHAVE_SYS_SYSMACROS_H -DHAVE_FACCESSAT -DHAVE_FCHMODAT \
	-DHAVE_FCHOWNAT -DHAVE_FSTATAT -DHAVE_LCHMOD -DHAVE_LINKAT -DHAVE_MKDIRAT -DHAVE_MKFIFOAT \
	-DHAVE_MKNODAT -DHAVE_OPENAT -DHAVE_POSIX_FALLOCATE -DHAVE_READLINKAT -DHAVE_RENAMEAT \
	-DHAVE_SYMLINKAT -DHAVE_UTIMENSAT -DHAVE_STRUCT_STAT_ST_ATIM -DHAVE_STRUCT_STAT_ST_CTIM \
	-DHAVE_STRUCT_STAT_ST_MTIM
$(BUILD)/pjdfstest/pjdfstest: $(PJDFSTEST)/pjdfstest.c | check-tools
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  HOSTCC  $@ (static)")
	$(Q): > $(dir $@)config.h
	$(Q)$(HOST_CC) -static -O2 -Wall -Werror $(PJDFSTEST_DEFS) -I$(dir $@) -o $@ $<

# make test-pjdfstest: pjdfstest's files on the host's Linux, then in one
# boot on smpvfs's ramfs and ext2, every test point compared
# (tests/pjdfstest/run.py; docs/reference/pjdfstest.md).
test-pjdfstest: $(BUILD)/smpvfs.elf $(BUILD)/initrd.cpio $(BUILD)/pjdfstest/pjdfstest
	$(Q)$(PYTHON) -m tests.pjdfstest.run --pjdfstest $(BUILD)/pjdfstest/pjdfstest --busybox $(BUSYBOX) \
		--elf $(BUILD)/smpvfs.elf --initrd $(BUILD)/initrd.cpio --mem $(MEM) --machine $(MACHINE) \
		--accel $(ACCEL) $(if $(SMP),--smp $(SMP)) $(if $(KARGS),--kargs "$(KARGS)") \
		$(if $(DIRS),--dirs $(DIRS))

test-fstest-host: $(BUILD)/host/fstest
	$(Q)$(PYTHON) tools/fstest/run.py --fstest $(BUILD)/host/fstest

# The busybox scripts on the host's Linux, against the .out files that the
# busybox suite checks smpvfs's output against (tests/busybox/run.py).
test-busybox-host: | check-tools
	$(Q)$(PYTHON) tests/busybox/run.py --busybox $(BUSYBOX)

# docs/SYSCALLS.md says what user/syscall_list.h says, on Linux's numbers.
test-syscalls-doc:
	$(Q)$(PYTHON) tools/syscalls_doc.py --check

# The docs' links and anchors resolve, README.md is at most 200 lines, each
# docs/design chapter at most 500 and listed in docs/DESIGN.md (tools/docs_check.py);
# and every command they show is checked or run (tools/docs_commands.py: the
# make commands' targets and variables, host tools, the fstest lines, and
# the shell sessions booted through make run, the disk recipe end to end).
test-docs: check-tools $(BUILD)/smpvfs.elf $(BUILD)/host/fstest-static
	$(Q)$(PYTHON) tools/docs_check.py
	$(Q)$(PYTHON) tools/docs_commands.py --boot

# ---- running ------------------------------------------------------------

RUN_ARGS = --elf $(BUILD)/smpvfs.elf --mem $(MEM) --machine $(MACHINE) --accel $(ACCEL) \
	--initrd $(BUILD)/initrd.cpio

# SCRIPT=PATH: run that shell script (from the initramfs) after the tests.
# DISK="a.img b.img": attach those image files as disks vda, vdb, ... (read-write).
# SHARE=DIR: export DIR read-write over virtio-9p, tag host (mount -t 9p host /mnt).
run: check-tools $(BUILD)/smpvfs.elf $(BUILD)/initrd.cpio
	$(Q)$(PYTHON) -m tests.run boot --smp $(or $(SMP),4) --firmware $(or $(FIRMWARE),bios) \
		$(RUN_ARGS) $(foreach d,$(DISK),--disk $(d)) $(if $(SHARE),--share $(SHARE)) --kargs "$(if $(SCRIPT),script=$(SCRIPT) )$(KARGS)"

# make sh: boot straight into Debian's busybox sh on the console (init=/bin/sh,
# no self-tests); `exit` in it powers QEMU off.
sh: check-tools $(BUILD)/smpvfs.elf $(BUILD)/initrd.cpio
	$(Q)$(PYTHON) -m tests.run boot --smp $(or $(SMP),4) --firmware $(or $(FIRMWARE),bios) \
		$(RUN_ARGS) --kargs "ktest=none init=/bin/sh after=poweroff $(KARGS)"

debug: check-tools $(BUILD)/smpvfs.elf $(BUILD)/initrd.cpio
	$(Q)$(PYTHON) -m tests.run boot --gdb --smp $(or $(SMP),4) --firmware $(or $(FIRMWARE),bios) \
		$(RUN_ARGS) --kargs "$(KARGS)"

gdb: $(BUILD)/smpvfs.elf
	gdb -q $(BUILD)/smpvfs.elf -ex 'target remote :1234'

# make test: every part in TEST_PARTS and TEST_PARTS_BESIDE, among them: check the fstest files
# and the busybox scripts against the host's Linux, prove the harness can
# fail (a deliberately failing and a hung case must be reported, a fault
# must panic with a backtrace), test the page allocator with RAM above
# 4 GiB, run the matrix, the exclusive-lookup boot, the disk tests, the
# shell scripts and the KCSAN boot, build LOCKDEP=0, and check the
# conflict tracer's controls.  SMP=n and/or FIRMWARE=x narrow the matrix.
# Every part runs even if one before it failed; the last line says which.
#
# Two lanes at once.  One lane left a two-core host 38% idle (make test on
# 6 Dec 2026: the matrix kept 1.43 cores busy, the disk tests 0.87, the
# shell scripts 0.96: they wait on nbdkit's latency and on QEMU's serial
# line).  TEST_PARTS_BESIDE, the parts that mostly wait or are one core's
# work, then the KCSAN boot, run one after another beside TEST_PARTS from
# the start; their output is kept in build/test-logs/part-NAME.out and
# printed, in order, once the main lane is done.  With only the waiting
# parts beside, the lanes were unbalanced (beside done after 304 s, the
# main lane after 792 s, the host still 25% idle); with the KCSAN boot
# beside too, the second lane was done 110 s before the main one, so the
# exclusive-lookup boot and the 9p test follow it there (12 min 10 s
# before that, 16% idle).
TEST_PARTS := test-fresh test-fstest-host test-busybox-host test-syscalls-doc test-negative test-matrix \
	test-trace test-nolockdep test-conflicts test-kvm
TEST_PARTS_BESIDE := test-disk test-shell test-docs test-model test-kcsan test-exclusive test-9p
# The two other kernels (KCSAN=1 for test-kcsan, LOCKDEP=0 for
# test-nolockdep and test-conflicts) are built in the background from the
# start, while the first parts (mostly one core's work) run: it saves about
# 40 s of make test.  Each build holds its directory's lock (flock), as do
# the parts that build there, so two makes never build one directory at once.
KCSAN_LOCK := $(BUILD)/.kcsan-build.lock
RELEASE_LOCK := $(BUILD)/.release-build.lock
# What both lanes build is built first: two makes never build one file.
# The last line gives the time since make began (the kernel's build
# included), read when the makefile is parsed.
TEST_LOGS := $(BUILD)/test-logs
ifeq ($(MAKECMDGOALS),test)
TEST_T0 := $(shell date +%s)
endif
test: check-tools $(BUILD)/smpvfs.elf $(BUILD)/initrd.cpio $(BUILD)/host/fstest $(BUILD)/host/fstest-static
	$(Q)mkdir -p $(TEST_LOGS); rm -f $(TEST_LOGS)/beside-failed; \
	{ flock $(KCSAN_LOCK) $(MAKE) --no-print-directory KCSAN=1 BUILD=$(KCSAN_BUILD) $(KCSAN_BUILD)/smpvfs.elf; \
	  flock $(RELEASE_LOCK) $(MAKE) --no-print-directory LOCKDEP=0 BUILD=$(BENCH_BUILD) $(BENCH_BUILD)/smpvfs.elf; \
	} > $(TEST_LOGS)/background-builds.log 2>&1 & \
	for part in $(TEST_PARTS_BESIDE); do t0=$$(date +%s); \
		$(MAKE) --no-print-directory $$part > $(TEST_LOGS)/part-$$part.out 2>&1 || \
			echo $$part >> $(TEST_LOGS)/beside-failed; \
		echo "make test: $$part took $$(( $$(date +%s) - t0 )) s (beside)" >> $(TEST_LOGS)/part-$$part.out; \
	done & \
	failed=; for part in $(TEST_PARTS); do t0=$$(date +%s); \
		$(MAKE) --no-print-directory $$part || failed="$$failed $$part"; \
		echo "make test: $$part took $$(( $$(date +%s) - t0 )) s"; done; \
	wait; \
	for part in $(TEST_PARTS_BESIDE); do echo "make test: the output of $$part, which ran beside:"; \
		cat $(TEST_LOGS)/part-$$part.out; done; \
	[ -f $(TEST_LOGS)/beside-failed ] && failed="$$failed $$(tr '\n' ' ' < $(TEST_LOGS)/beside-failed)"; \
	t=$$(( $$(date +%s) - $(TEST_T0) )); took="in $$((t / 60)) min $$((t % 60)) s"; \
	if [ -n "$$failed" ]; then echo "make test: FAILED:$$failed ($$took)"; exit 1; fi; \
	echo "make test: every part passed ($(TEST_PARTS) $(TEST_PARTS_BESIDE)) $$took"

# make soak DURATION=600: boot -smp 2, 4, 8 in turn (BIOS, then UEFI) with
# fresh seeds and race windows on, running the concurrency suites, the
# fuzzer and the torture (three boots a pass, one for each group of
# suites), until DURATION seconds are up (tests/soak.py); one pass in
# three, at random, is of the KCSAN=1 kernel (built in $(KCSAN_BUILD)).
# First, Spin checks the models' large configuration (make test-model).
# Not part of make test: it is as long as you let it be.  Then the
# hostile-image fuzzer (tests/ext2_image_fuzz.py): IMAGE_FUZZ_BOOTS boots
# of 8 freshly corrupted ext2 images each (make test-disk's profile
# ext2hostile is its short run: one boot, 4 images).  Last, pjdfstest
# (make test-pjdfstest: about an hour under TCG, too long for make test).
DURATION ?= 600
IMAGE_FUZZ_BOOTS ?= 10
soak: check-tools $(BUILD)/smpvfs.elf $(BUILD)/initrd.cpio
	$(Q)$(MAKE) --no-print-directory test-model MODEL_SIZE=large
	$(Q)$(MAKE) --no-print-directory KCSAN=1 BUILD=$(KCSAN_BUILD) $(KCSAN_BUILD)/smpvfs.elf
	$(Q)$(PYTHON) -m tests.soak --duration $(DURATION) --elf $(BUILD)/smpvfs.elf \
		--kcsan-elf $(KCSAN_BUILD)/smpvfs.elf \
		--initrd $(BUILD)/initrd.cpio --mem $(MEM) --accel $(ACCEL) \
		$(if $(SMP),--smp $(SMP)) $(if $(FIRMWARE),--firmware $(FIRMWARE))
	$(Q)$(PYTHON) -m tests.ext2_image_fuzz --boots $(IMAGE_FUZZ_BOOTS) --elf $(BUILD)/smpvfs.elf \
		--initrd $(BUILD)/initrd.cpio --mem $(MEM) --accel $(ACCEL) \
		$(if $(FIRMWARE),--firmware $(FIRMWARE))
	$(Q)$(MAKE) --no-print-directory test-pjdfstest

# make test-model: Spin checks the models of directory operations (today's
# protocol and the parallel one) exhaustively, and each mutant must fail
# (tools/model/run.sh, docs/design/09-dirops-model.md).  MODEL_SIZE=large
# (make soak's) gives the threads longer menus.
MODEL_SIZE ?= small
test-model: check-tools
	$(Q)sh tools/model/run.sh $(BUILD)/model $(MODEL_SIZE)

# The cases that must fail are the ones the suite declares
# (KTEST_CASE_MUST_FAIL in tests/test_ktest.c prints `# must fail: NAME`).
# The page allocator's boot: 3584M is the least that QEMU's pc machine
# splits, 3 GiB below the PCI hole and 512 MiB above 4 GiB; 5G (2 GiB
# above) made the boot scrub, and the exhaustion cases take, 1.5 GiB more.
NEGATIVE_HIGH_MEM := 3584M
test-negative: $(BUILD)/smpvfs.elf $(BUILD)/initrd.cpio
	$(Q)$(PYTHON) -m tests.run test --smp 2 --firmware bios $(RUN_ARGS) \
		--kargs "ktest=ktest_negative ktest.timeout=10 $(KARGS)" --expect-declared-failures
	$(Q)$(PYTHON) -m tests.run test --smp 2 --firmware bios $(RUN_ARGS) \
		--kargs "ktest=ktest_fault $(KARGS)" --expect-panic fault_null_deref
	$(Q)$(PYTHON) -m tests.run test --smp 2 --firmware bios $(RUN_ARGS) --mem $(NEGATIVE_HIGH_MEM) \
		--kargs "ktest=page_alloc $(KARGS)"

MATRIX_SMP := 1,2,4,8
MATRIX_FIRMWARE := bios,uefi
# Every matrix boot gets a fresh ext2 scratch disk (the ext2 suites run
# on it at every -smp, BIOS and UEFI), which e2fsck -fn checks afterwards.
# The stress suites (LIGHT_SKIP: threads racing on purpose, the fuzzers,
# the race windows' own cases) run in the BIOS boot at -smp 4 (FULL_SMP);
# the other seven configurations run every other suite.  The races do not
# depend on the firmware, and 8 vCPUs on this 2-core host add
# interleavings a scheduler already makes; make test-exclusive runs
# several of them at -smp 2, make test-kcsan at -smp 4 with the detector,
# and make soak boots them all at -smp 2, 4 and 8 under both firmwares.
# The firmware's part (memory map, the APs' start, ACPI, the console, the
# disks) is exercised by all eight.  A stress boot takes 2.5 to 3.5
# minutes under TCG; without this make test took over 20.  One exception:
# the BIOS boots at -smp 1 and 2 run the ext2 fuzzer too (about 4 s each),
# so that it runs on an ext2 mount at every -smp (4 in the stress boot and
# make test-kcsan, 8 in make test-disk, where it takes 20 s).
FULL_SMP := 4
LIGHT_SKIP_BIOS := dcache_races,mount_races,rcuwalk_races,rename_races,perm_races,read_races,vfs_fuzz,shrinker,lookup,outside,page_alloc,file,refcache_races,fd_races
LIGHT_SKIP_BIOS := $(LIGHT_SKIP_BIOS),trace,ext2_alloc_races,ext2_dirops,outside_dirops,dirops_races,ufuzz
LIGHT_SKIP := $(LIGHT_SKIP_BIOS),ext2_fuzz
# The stress boot leaves out the race suites that make test-kcsan runs in
# full at the same -smp under the race detector (with race windows on and
# a 16-bucket dcache hash): each race case runs once in make test, in the
# stricter kernel, which saves about 90 s.  make soak runs them in both.
FULL_SKIP := dcache_races,rcuwalk_races,rename_races,perm_races,read_races,vfs_fuzz,lookup,ext2_fuzz,refcache_races,dirops_races,fd_races
# The UEFI boots leave out, besides, the suites whose subject sits above
# the firmware and whose cost is their own work (user space and busybox,
# the archive unpacker and its fuzzer, the fstest files in user mode, the
# benchmarks' smoke run, the dcache pruner, ext2's directory index, wait
# queues): they run in the four BIOS boots, so at every -smp, and took
# 118 s of the four UEFI boots' 209 s in the guest.  What the firmware
# changes (memory map, page allocator, the APs' start, ACPI, timers, the
# disks' PCI setup, the ext2 suites on them) every UEFI boot still runs.
UEFI_SKIP := $(LIGHT_SKIP),busybox,cpio,fstest_user,bench,prune,ext2_dirhash,waitqueue
test-matrix: $(BUILD)/smpvfs.elf $(BUILD)/initrd.cpio
	$(Q)$(PYTHON) -m tests.run test --smp $(if $(SMP),$(SMP),$(MATRIX_SMP)) \
		--firmware $(if $(FIRMWARE),$(FIRMWARE),$(MATRIX_FIRMWARE)) --scratch-disk \
		$(RUN_ARGS) --kargs "$(KARGS)" --light-kargs "ktest.skip=$(LIGHT_SKIP)" \
		--full-kargs "ktest.skip=$(FULL_SKIP)" \
		--bios-light-kargs "ktest.skip=$(LIGHT_SKIP_BIOS)" --bios-light-smp 1,2 \
		--uefi-light-kargs "ktest.skip=$(UEFI_SKIP)" \
		--full-smp $(if $(SMP),$(SMP),$(FULL_SMP))

# The disk tests (tests/disk_tests.py): boots with disks served by nbdkit,
# whose filters add latency, count every request and inject errors, judged
# from outside the kernel (nbdkit's log, the images, e2fsprogs).
DISK_PROFILES ?=
test-disk: $(BUILD)/smpvfs.elf $(BUILD)/initrd.cpio
	$(Q)$(PYTHON) -m tests.disk_tests $(if $(DISK_PROFILES),--profile $(DISK_PROFILES)) \
		--elf $(BUILD)/smpvfs.elf --initrd $(BUILD)/initrd.cpio --mem $(MEM) --machine $(MACHINE) \
		--accel $(ACCEL) $(if $(KARGS),--kargs "$(KARGS)")

# The 9p test (tests/p9_tests.py): a boot with a host folder exported over
# virtio-9p, the suites p9 and p9_fuzz run on it, the folder and QEMU's walk trace
# checked from the host afterwards.
test-9p: $(BUILD)/smpvfs.elf $(BUILD)/initrd.cpio $(BUILD)/host/fstest
	$(Q)$(PYTHON) -m tests.p9_tests --elf $(BUILD)/smpvfs.elf --initrd $(BUILD)/initrd.cpio \
		--mem $(MEM) --machine $(MACHINE) --accel $(ACCEL) --smp $(or $(SMP),4) \
		$(if $(KARGS),--kargs "$(KARGS)")

# The A/B mode that makes the shared-lookup claim measurable,
# vfs.lookup=exclusive (lookups take i_rwsem exclusive, the old i_mutex
# way) and vfs.dirops=exclusive (directory changes too, with no name
# locks), in one configuration: -smp 2, BIOS, the suites whose lookups take
# those locks (the modes change nothing else).  Every suite passes in it; a
# case that means something in one mode only says so and skips that part.
EXCLUSIVE_SUITES := lookup,outside,namei,rename,dirops_kill,vfs_stress,vfs_fuzz,outside_dirops,dirops_races
# One boot of the user-mode suites and busybox under KVM (a CPU's own
# rules: iretq's checks, the real TLB), where ACCEL=auto's probe finds KVM
# usable and fast (tests/lib/accel.py; its verdict is cached for a day);
# elsewhere it says why it is skipped and passes.
KVM_SUITES := user,fstest_user,busybox
test-kvm: $(BUILD)/smpvfs.elf $(BUILD)/initrd.cpio
	$(Q)verdict=$$($(PYTHON) -c 'import sys; from pathlib import Path; from tests.lib.accel import resolve_accel; \
		print(*resolve_accel("auto", Path(sys.argv[1])))' $(BUILD)/smpvfs.elf) || exit 1; \
	case "$$verdict" in \
	kvm*) $(PYTHON) -m tests.run test --smp 2 --firmware bios --elf $(BUILD)/smpvfs.elf --mem $(MEM) \
		--machine $(MACHINE) --accel kvm --initrd $(BUILD)/initrd.cpio --log-suffix=-kvm \
		--kargs "ktest=$(KVM_SUITES) $(KARGS)" ;; \
	*) echo "test-kvm: skipped, KVM is not usable here or too slow: $${verdict#tcg }" ;; \
	esac

test-exclusive: $(BUILD)/smpvfs.elf $(BUILD)/initrd.cpio
	$(Q)$(PYTHON) -m tests.run test --smp 2 --firmware bios $(RUN_ARGS) --log-suffix=-exclusive \
		--kargs "vfs.lookup=exclusive vfs.dirops=exclusive ktest=$(EXCLUSIVE_SUITES) $(KARGS)"

# The shell scripts tests/shell/*.sh, their output compared with their
# .out files (tests/shell/run.py): under BIOS a fresh boot per script at
# -smp 2, which would show a script that depends on another's leftovers,
# and one boot per other CPU count that runs them all (the scripts are
# written so that what ran before does not change their output); under
# UEFI one boot that runs them all, at -smp 2.  The scripts drive the
# shell and the VFS, which sit above the firmware: the CPU counts are
# covered under BIOS, the firmware's part by every UEFI boot of the
# matrix (a UEFI boot costs 10 s of CPU in OVMF alone under TCG).  SMP=
# and FIRMWARE= narrow it as they narrow the matrix.
SHELL_FIRMWARE = $(subst $(comma), ,$(if $(FIRMWARE),$(FIRMWARE),$(MATRIX_FIRMWARE)))
SHELL_FRESH_SMP = $(if $(SMP),$(SMP),2)
SHELL_ONE_BOOT_SMP_bios = $(if $(SMP),$(SMP),1,4,8)
SHELL_ONE_BOOT_SMP_uefi = $(if $(SMP),$(SMP),2)
comma := ,
test-shell: $(BUILD)/smpvfs.elf
	$(Q)failed=0; for fw in $(SHELL_FIRMWARE); do \
		if [ $$fw = bios ]; then smp=$(SHELL_ONE_BOOT_SMP_bios); else smp=$(SHELL_ONE_BOOT_SMP_uefi); fi; \
		$(PYTHON) -m tests.shell.run --smp $$smp --firmware $$fw --one-boot \
			--elf $(BUILD)/smpvfs.elf --mem $(MEM) --machine $(MACHINE) --accel $(ACCEL) || failed=1; \
		if [ $$fw = bios ]; then \
			$(PYTHON) -m tests.shell.run --smp $(SHELL_FRESH_SMP) --firmware bios \
				--elf $(BUILD)/smpvfs.elf --mem $(MEM) --machine $(MACHINE) --accel $(ACCEL) || failed=1; \
		fi; \
	done; exit $$failed

# One boot of the KCSAN=1 build (in build/kcsan) at -smp 4: the
# detector's own tests, then suites where CPUs share directories (and the
# fuzzer, whose colliding calls reach code no other suite combines), and
# the torture, the fuzzer and the directory index's build race on an
# ext2 scratch disk (the buffer cache, the driver's completions, ext2's
# bitmaps, dirhash's publish).  Every
# report fails the test case that was running (kernel/kcsan.c), so a
# report fails this part.
# (Two lines joined by hand: make turns a backslash-newline into a space,
# and the kernel would take the words after it as a separate, unknown key.)
KCSAN_SUITES := kcsan,lookup,vfs_fuzz,dcache_races,perm_races,rcu,rcuwalk,rcuwalk_races,rename_races,fifo,read_races
KCSAN_SUITES := $(KCSAN_SUITES),refcache,refcache_races,dirops_races,fd_races
KCSAN_SUITES := $(KCSAN_SUITES),ext2_stress,ext2_fuzz,ext2_dirhash_races,ext2_alloc_races,ext2_dirops,ext2_prefetch
# A 16-bucket dcache hash in that boot: every chain an RCU-walk follows
# then holds dentries that renames move to other chains.  Race windows on
# in every test (one window in four draws), so that writers land at other
# moments than the unwidened code gives them.
KCSAN_KARGS := dcache.buckets=16 ktest.jitter=4
test-kcsan: check-tools
	$(Q)mkdir -p $(BUILD) && flock $(KCSAN_LOCK) $(MAKE) --no-print-directory KCSAN=1 BUILD=$(KCSAN_BUILD) \
		$(KCSAN_BUILD)/smpvfs.elf $(KCSAN_BUILD)/initrd.cpio
	$(Q)$(PYTHON) -m tests.run test --smp 4 --firmware bios --elf $(KCSAN_BUILD)/smpvfs.elf \
		--mem $(MEM) --machine $(MACHINE) --accel $(ACCEL) --initrd $(KCSAN_BUILD)/initrd.cpio \
		--log-suffix=-kcsan --scratch-disk --kargs "ktest=$(KCSAN_SUITES) $(KCSAN_KARGS) $(KARGS)"

# The kernel without the lock validator: both sides of every
# `#if CONFIG_LOCKDEP` must compile.  Built, not booted here.  It is the
# release build ($(BUILD)/release) that make bench and make conflicts
# boot, so test-conflicts after it compiles nothing again.
test-nolockdep:
	$(Q)mkdir -p $(BUILD) && flock $(RELEASE_LOCK) $(MAKE) --no-print-directory LOCKDEP=0 BUILD=$(BENCH_BUILD) \
		$(BENCH_BUILD)/smpvfs.elf
	@echo "test-nolockdep: LOCKDEP=0 builds ($(BENCH_BUILD)/smpvfs.elf)"

# ---- tracing ------------------------------------------------------------

# make trace SCENARIO=same-name[,NAME...]: boot each scenario of
# tests/trace/scenarios/ (tests/trace/run.py: trace=all, its script,
# after=poweroff), cut its trace (ftrace's text format) out of the serial
# log into build/trace/NAME.txt, check the format and the story it must
# tell (tools/trace/check.py), and draw build/trace/NAME.png and .svg
# (tools/trace/timeline.py).
# test-trace (in make test, one boot, about 10 s) does the same for
# same-name without the picture, after the checker's own controls
# (tools/trace/selftest.py: broken traces it must reject).
SCENARIO ?= same-name
trace: check-tools $(BUILD)/smpvfs.elf $(BUILD)/initrd.cpio
	$(Q)$(PYTHON) -m tests.trace.run --elf $(BUILD)/smpvfs.elf --smp $(or $(SMP),4) --mem $(MEM) \
		--accel $(ACCEL) --base-initrd $(BUILD)/initrd.cpio $(subst $(comma), ,$(SCENARIO))
test-trace: check-tools $(BUILD)/smpvfs.elf
	$(Q)$(PYTHON) tools/trace/selftest.py
	$(Q)$(PYTHON) -m tests.trace.run --elf $(BUILD)/smpvfs.elf --smp 4 --mem $(MEM) --accel $(ACCEL) \
		--no-picture same-name

# ---- disks --------------------------------------------------------------

# make disk DISK_DIR=mytree: an ext2 image of mytree in build/disk.img
# (DISK_SIZE, default 64M; 1 KiB blocks below 512M, as mke2fs chooses),
# made by e2fsprogs' mke2fs -d.  Boot with it: make run DISK=build/disk.img,
# then in the shell: mount -t ext2 /dev/vda /mnt.  docs/reference/disks.md says how
# to get the changes back out (debugfs, e2fsck).
DISK_DIR ?=
DISK_SIZE ?= 64M
disk: | check-tools
	$(Q)if [ -n "$(DISK_DIR)" ] && [ ! -d "$(DISK_DIR)" ]; then echo "DISK_DIR=$(DISK_DIR): no such directory"; exit 1; fi
	@mkdir -p $(BUILD)
	$(Q)rm -f $(BUILD)/disk.img && truncate -s $(DISK_SIZE) $(BUILD)/disk.img
	$(Q)mke2fs -q -F -t ext2 $(if $(DISK_DIR),-d "$(DISK_DIR)") $(BUILD)/disk.img
	@echo "disk: $(BUILD)/disk.img ($(DISK_SIZE), ext2$(if $(DISK_DIR), of $(DISK_DIR))): make run DISK=$(BUILD)/disk.img"

# ---- benchmarks ---------------------------------------------------------

# make bench: build the kernel without the lock validator in $(BUILD)/release,
# boot it once with bench=$(BENCH) on SMP CPUs, and let bench/run.py turn
# the output into tables, build/bench/results.json and gnuplot PNGs.  KVM
# only if ACCEL=auto's probe finds it fast (the default here); otherwise
# TCG, and every table says its timings are only indicative.  BENCH_KARGS:
# more kernel arguments for the boot (e.g. dcache.buckets=N).
BENCH ?= all
BENCH_BUILD := $(BUILD)/release
BENCH_ACCEL := $(if $(filter command line environment,$(origin ACCEL)),$(ACCEL),auto)
BENCH_MEM := $(if $(filter command line environment,$(origin MEM)),$(MEM),2G)
bench: check-tools $(BUILD)/initrd.cpio
	$(Q)$(MAKE) --no-print-directory BUILD=$(BENCH_BUILD) LOCKDEP=0 $(BENCH_BUILD)/smpvfs.elf
	$(Q)$(PYTHON) -m bench.run --elf $(BENCH_BUILD)/smpvfs.elf --smp $(or $(SMP),4) \
		--initrd $(BUILD)/initrd.cpio --bench $(BENCH) --accel $(BENCH_ACCEL) --mem $(BENCH_MEM) \
		$(if $(BENCH_KARGS),--kargs "$(BENCH_KARGS)")

# make bench-linux: the workloads of bench/linux/ (static programs of
# ours and busybox) on smpvfs's release kernel and on Debian's own Linux
# kernel in turn, in the same QEMU (-smp SMP, MEM, TCG) with the same
# nbdkit disks, BENCH_REPS boots of each, alternating; bench/run_linux.py
# checks both kernels' results, then prints smpvfs's rate, Linux's, the
# ratio and the disks' read counts (build/bench/linux-smpN.json and .png;
# docs/BENCHMARKS.md section 10).  Not part of make test (about 10
# minutes at the default 3 repetitions on a quiet host); BENCH_SIZE=short
# runs workloads 1, 2, 5 and 6 at a tenth of their iterations;
# BENCH_ONLY=6 (a comma list) runs only those workloads.  Linux boots
# with bench/run_linux.py's LINUX_FAIR_KARGS (mitigations=off...);
# LINUX_STOCK=1 boots it with Debian's defaults instead; SMPVFS_KARGS=... adds words
# to smpvfs's command line (an A/B switch such as sched.balance=0).
BENCH_REPS ?= 3
BENCH_SIZE ?= full
LINUX_DIR := build/linux
LINUX_STAMP := $(LINUX_DIR)/version
LINUX_KARGS ?=
bench-linux: check-tools $(LINUX_STAMP) $(LB_PROGS) $(BUILD)/user-progs/spawnbench
	$(Q)$(MAKE) --no-print-directory BUILD=$(BENCH_BUILD) LOCKDEP=0 $(BENCH_BUILD)/smpvfs.elf
	$(Q)$(PYTHON) -m bench.run_linux --elf $(BENCH_BUILD)/smpvfs.elf --linux $(LINUX_DIR) \
		--progs $(BUILD)/lb-progs --spawnbench $(BUILD)/user-progs/spawnbench \
		--smp $(or $(SMP),4) --mem $(BENCH_MEM) --reps $(BENCH_REPS) --size $(BENCH_SIZE) \
		$(if $(LINUX_KARGS),--linux-kargs "$(LINUX_KARGS)") $(if $(LINUX_STOCK),--linux-stock) \
		$(if $(SMPVFS_KARGS),--smpvfs-kargs "$(SMPVFS_KARGS)") \
		$(if $(BENCH_ONLY),--only $(BENCH_ONLY))

# The reference kernel: Debian's linux-image-amd64 (bookworm, 6.1) and the
# image package it depends on, fetched by apt-get download (no root
# needed) and unpacked by dpkg -x into $(LINUX_DIR) -- never installed on
# the host; depmod (kmod) writes its modules.dep there, from which
# bench/run_linux.py finds the modules the disks need.  make deps runs
# this too; make bench-linux runs it if it has not run.
linux-kernel: $(LINUX_STAMP)
$(LINUX_STAMP): | check-tools
	$(Q)rm -rf $(LINUX_DIR) && mkdir -p $(LINUX_DIR)/debs
	$(Q)cd $(LINUX_DIR)/debs && { apt-get download linux-image-amd64 2>/dev/null || \
		{ apt-get update -qq && apt-get download linux-image-amd64; }; }
	$(Q)dep=$$(dpkg-deb -f $(LINUX_DIR)/debs/linux-image-amd64_*.deb Depends | \
		sed -e 's/[|,].*//' -e 's/ *(= *\(.*\))/=\1/' -e 's/ //g'); \
	echo "linux-kernel: apt-get download $$dep"; \
	cd $(LINUX_DIR)/debs && apt-get download $$dep
	$(Q)for d in $(LINUX_DIR)/debs/linux-image-[0-9]*.deb; do dpkg -x $$d $(LINUX_DIR)/root; done
	$(Q)v=$$(ls $(LINUX_DIR)/root/lib/modules); PATH=$$PATH:/sbin:/usr/sbin depmod -b $(LINUX_DIR)/root $$v && \
		test -f $(LINUX_DIR)/root/boot/vmlinuz-$$v && echo $$v > $@
	@echo "linux-kernel: Debian's $$(cat $@) in $(LINUX_DIR)/root (unpacked, not installed)"

# ---- cache-line conflicts ------------------------------------------------

# make conflicts: boot the release kernel with -smp 2 under the QEMU plugin
# tools/conflicts/conflicts.so (built with the host gcc) and report, per pair
# of operations run on two CPUs, the cache lines one writes and the other
# touches (build/conflicts/results.json), and exact instruction counts.
# Both fail if a pair did not run as it should (every hand-picked and
# generated pair, over 600); test-conflicts (about 11 s on a quiet host)
# also checks the three controls: the shared counter's line (read and
# written), a slab object's field named cf_object+0x40, and nothing else.
CONFLICTS_PLUGIN := build/conflicts/conflicts.so
$(CONFLICTS_PLUGIN): tools/conflicts/conflicts.c tools/conflicts/api.h | check-tools
	@mkdir -p $(dir $@)
	$(Q)gcc -shared -fPIC -O2 -Wall -Wextra -Werror -fvisibility=hidden -o $@ $< -lpthread
conflicts: check-tools $(CONFLICTS_PLUGIN)
	$(Q)$(MAKE) --no-print-directory BUILD=$(BENCH_BUILD) LOCKDEP=0 $(BENCH_BUILD)/smpvfs.elf
	$(Q)$(PYTHON) -m bench.run_conflicts --plugin $(CONFLICTS_PLUGIN) --elf $(BENCH_BUILD)/smpvfs.elf
# The same kernel booted to its shell under the plugin (`conflicts` there).
conflicts-shell: check-tools $(CONFLICTS_PLUGIN)
	$(Q)$(MAKE) --no-print-directory BUILD=$(BENCH_BUILD) LOCKDEP=0 $(BENCH_BUILD)/smpvfs.elf
	$(Q)$(PYTHON) -m bench.run_conflicts --plugin $(CONFLICTS_PLUGIN) --elf $(BENCH_BUILD)/smpvfs.elf --shell
test-conflicts: check-tools $(CONFLICTS_PLUGIN)
	$(Q)$(MAKE) --no-print-directory BUILD=$(BENCH_BUILD) LOCKDEP=0 $(BENCH_BUILD)/smpvfs.elf
	$(Q)$(PYTHON) -m bench.run_conflicts --plugin $(CONFLICTS_PLUGIN) --elf $(BENCH_BUILD)/smpvfs.elf --controls

# ---- set-up -------------------------------------------------------------

# The first `make test` on a machine without the packages: make deps must
# finish before any rule runs a tool (tests/fresh/check_order.sh; a few s).
test-fresh:
	$(Q)sh tests/fresh/check_order.sh

DEB_PACKAGES := make gcc binutils gawk python3 qemu-system-x86 grub-pc-bin grub-efi-amd64-bin \
	grub-common xorriso mtools ovmf cpio gnuplot-nox gdb busybox-static libc6-dev nbdkit e2fsprogs kmod \
	python3-matplotlib spin util-linux
# What running needs, as TOOL:PACKAGE (the Debian package that has it).
TOOLS := $(CC):gcc $(LD):binutils $(NM):binutils awk:gawk $(PYTHON):python3 \
	qemu-system-x86_64:qemu-system-x86 grub-mkrescue:grub-common xorriso:xorriso mformat:mtools \
	cpio:cpio busybox:busybox-static nbdkit:nbdkit mke2fs:e2fsprogs spin:spin flock:util-linux

# Install whatever is missing (apt-get as root, else through sudo), then
# fetch and unpack Debian's Linux kernel for make bench-linux (linux-kernel
# above: apt-get download and dpkg -x into build/, not installed).
deps: deps-packages
	$(Q)$(MAKE) --no-print-directory linux-kernel
deps-packages:
	$(Q)missing=""; for p in $(DEB_PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	[ -f $(OVMF_DIR)/OVMF_CODE_4M.fd ] || case " $$missing " in *" ovmf "*) ;; *) missing="$$missing ovmf";; esac; \
	if [ -z "$$missing" ]; then echo "deps: everything is installed"; exit 0; fi; \
	echo "deps: installing:$$missing"; \
	if [ "$$(id -u)" = 0 ]; then SUDO=""; elif command -v sudo >/dev/null; then SUDO=sudo; \
	else echo "deps: not root and no sudo; run as root: apt-get update && apt-get install -y$$missing"; exit 1; fi; \
	$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq$$missing

# Say what is missing, with its package, and run make deps to install it
# (announced first; NO_DEPS=1 stops at the list instead).  Every rule that
# runs one of these tools has check-tools as an order-only prerequisite, so
# that under -j nothing starts before the packages are in: on a fresh
# machine the first `make test` must pass (test-fresh checks the order).
check-tools:
	$(Q)missing=""; for tp in $(TOOLS); do t=$${tp%:*}; p=$${tp##*:}; \
		command -v $$t >/dev/null || { echo "missing: $$t (Debian package $$p)"; missing="$$missing $$p"; }; \
	done; \
	[ -f $(OVMF_DIR)/OVMF_CODE_4M.fd ] || { echo "missing: $(OVMF_DIR)/OVMF_CODE_4M.fd (Debian package ovmf; or set OVMF_DIR)"; \
		missing="$$missing ovmf"; }; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$(NO_DEPS)" = 1 ]; then echo "install them with: make deps (apt-get install$$missing)"; exit 1; fi; \
	echo "check-tools: running make deps to install them (NO_DEPS=1: stop here instead)"; \
	$(MAKE) --no-print-directory deps-packages

clean:
	rm -rf $(BUILD)

-include $(OBJS:.o=.d)
