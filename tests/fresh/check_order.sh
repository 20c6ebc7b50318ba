#!/bin/sh
# tests/fresh/check_order.sh: on a fresh machine the first `make test` must
# install the packages before any rule needs them (issue 24: under -j the
# initramfs rule ran cpio while make deps was still installing it).
#
# It runs `make test` in a scratch build directory with a PATH from which
# the tools that make deps installs are missing, and with stand-ins for
# dpkg-query (nothing is installed) and apt-get (takes 3 s, as a real
# install takes a while, then fails).  check-tools must be the only thing
# that ran: it names what is missing, make deps tries to install it, and
# no other rule started meanwhile (no compile, no "not found").  Every rule
# that runs a tool has check-tools as an order-only prerequisite; one that
# lacks it starts during the 3 s and shows up here.
set -u
cd "$(dirname "$0")/../.."
scratch=build/fresh-check
rm -rf "$scratch" && mkdir -p "$scratch/bin"

# A PATH with every command of the usual ones but the missing tools.
hide="cpio xorriso grub-mkrescue mformat qemu-system-x86_64 busybox nbdkit mke2fs"
for d in /usr/local/sbin /usr/local/bin /usr/sbin /usr/bin /sbin /bin; do
	[ -d "$d" ] || continue
	for f in "$d"/*; do
		n=${f##*/}
		case " $hide " in *" $n "*) continue;; esac
		[ -e "$scratch/bin/$n" ] || ln -s "$f" "$scratch/bin/$n"
	done
done

rm -f "$scratch/bin/apt-get" "$scratch/bin/dpkg-query" "$scratch/bin/sudo"
printf '#!/bin/sh\nexit 1\n' > "$scratch/bin/dpkg-query"
printf '#!/bin/sh\nsleep 3; echo "apt-get stand-in: $*"; exit 100\n' > "$scratch/bin/apt-get"
chmod +x "$scratch/bin/dpkg-query" "$scratch/bin/apt-get"
ln -s "$PWD/$scratch/bin/apt-get" "$scratch/bin/sudo"

out=$scratch/make.log
PATH=$PWD/$scratch/bin make --no-print-directory -j8 BUILD=$scratch/b \
	OVMF_DIR=$PWD/$scratch/no-ovmf test >"$out" 2>&1
status=$?
fail() { echo "test-fresh: FAILED: $1"; sed 's/^/  | /' "$out" | head -40; exit 1; }
[ $status -ne 0 ] || fail "make test succeeded with the tools missing"
grep -q '^missing: cpio (Debian package cpio)$' "$out" || fail "check-tools did not name cpio"
grep -q '^apt-get stand-in: ' "$out" || fail "check-tools did not run make deps"
! grep -Eq 'not found|Error 127|^  (CC|AS|LD|ISO|HOSTCC) ' "$out" || \
	fail "a rule ran before check-tools had the packages"
[ ! -e "$scratch/b/initrd.cpio" ] || fail "the initramfs was built before check-tools"
echo "test-fresh: with cpio, xorriso, grub-mkrescue, mformat, QEMU and OVMF missing, make deps ran first and nothing else started"
rm -rf "$scratch"
