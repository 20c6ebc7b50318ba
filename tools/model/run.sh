#!/bin/sh
# tools/model/run.sh: check the directory-operation models with Spin
# (make test-model; make soak runs it with MODEL_SIZE=large).
#
# Usage: tools/model/run.sh OUTDIR [small|large]
#
# Every model must pass with 0 errors and a complete search; every case
# that must fail (the busybox race on today's protocol, and each mutant
# of the parallel protocol, see dirops.pml's top) must fail with the
# error named for it, or this script fails.  Each line says what ran,
# the states Spin stored, and for a failure the length of its trail.
set -u
out=${1:?usage: run.sh OUTDIR [small|large]}
size=${2:-small}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out" || exit 1
case $size in
small) size_flag=-DSMALL; rounds=1; hash=-w24 ;;
large) size_flag=-DLARGE; rounds=2; hash=-w26 ;;
*) echo "run.sh: size must be small or large, not $size"; exit 2 ;;
esac
# -DSAFETY: safety properties only (assertions, invalid end states);
# -DCOLLAPSE: compressed states; MEMLIM (MB) stops a runaway search.
cflags="-w -DSAFETY -DCOLLAPSE -DVECTORSZ=2048 -DMEMLIM=3000"
# The parallel protocol's passing run searches 5.6 million states: -O1
# (measured in CPU time: build 9 s + search 11 s, against 2 s + 18.5 s at
# -O0; gcc -O2 takes twice as long to build and saves little), and so do
# the large configuration's passing runs.  The rest build fastest at -O0:
# today's protocol (1 million states) costs 1.9 s + 3.6 s there against
# 9 s + 2.3 s at -O1; a deadlock that must be found is searched breadth first (-DBFS):
# it lies at depth 40-55, where the depth-first search reaches it only
# after most of the state space (the broken invariants are found sooner
# depth first).
failed=0

say() { echo "$1" >>"$say_to"; }

# check NAME MODEL EXPECT PANFLAGS -- SPINFLAGS...: EXPECT is "pass" or
# an extended regex that pan's first error must match.  Its verdict, one
# line, goes to OUTDIR/NAME.result (the checks run in two chains at once).
check() {
	name=$1 model=$2 expect=$3 panflags=$4
	shift 5
	dir=$out/$name
	say_to=$out/$name.result
	rm -f "$say_to"
	opt=-O0
	[ "$expect" = pass ] && [ "$model" = dirops.pml ] &&
		{ [ "$name" = parallel ] || [ "$size" = large ]; } && opt=-O1
	[ "$expect" = "invalid end state" ] && opt="-O0 -DBFS"
	rm -rf "$dir" && mkdir -p "$dir" && cp "$here/$model" "$dir/" || { say "model: $name: FAILED to set up $dir"; return; }
	t0=$(date +%s)
	if ! (cd "$dir" && spin -a "$@" "$model" >spin.log 2>&1 && gcc $opt $cflags -o pan pan.c >gcc.log 2>&1); then
		say "model: $name: FAILED to build (see $dir)"; return
	fi
	(cd "$dir" && ./pan -m20000 $hash $panflags >pan.log 2>&1)
	log=$dir/pan.log
	states=$(awk '/states, stored/ { print $1; exit }' "$log")
	errors=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' "$log" | head -n 1)
	t=$(( $(date +%s) - t0 ))
	if [ "$expect" = pass ]; then
		if [ "$errors" = 0 ] && grep -q -e "max search depth too small" -e "out of memory" \
			-e "Search not completed" "$log"; then
			say "model: $name: FAILED: incomplete search ($log)"
		elif [ "$errors" = 0 ]; then
			say "model: $name: ok, 0 errors, $states states, ${t} s"
		else
			say "model: $name: FAILED: $(grep -m1 '^pan:1' "$log") ($log)"
		fi
		return
	fi
	first=$(grep -m1 '^pan:1' "$log")
	depth=$(echo "$first" | sed -n 's/.*at depth \([0-9]*\).*/\1/p')
	if [ "${errors:-0}" != 0 ] && echo "$first" | grep -Eq "$expect"; then
		say "model: $name: fails as it must, trail of $depth steps: ${first#pan:1: } (${t} s)"
	else
		say "model: $name: FAILED: must fail with /$expect/, got: ${first:-no error} ($log)"
	fi
}

# Two chains at once, each about half of the work (Spin and pan use one
# core each; the host has two): the parallel protocol's passing run and
# the invariant mutants, and today's protocol with the deadlock mutants.
chain_a() {
	# The parallel protocol.
	check parallel dirops.pml pass "" -- $size_flag
	# Its mutants, each with the invariant its rule protects (-E: deadlocks
	# are not what these look for), then the ones that deadlock.
	check mut-no-recheck dirops.pml 'assertion violated.*\(1==1\)' -E -- -DMUT_NO_RECHECK -DINV=1
	check mut-no-namelock dirops.pml 'assertion violated.*\(2==2\)' -E -- -DMUT_NO_NAMELOCK -DINV=2
	check mut-rmdir-nolock dirops.pml 'assertion violated.*\(3==3\)' -E -- -DMUT_RMDIR_NOLOCK -DINV=3
	check mut-no-ancestor dirops.pml 'assertion violated.*\(4==4\)' -E -- -DMUT_NO_ANCESTOR -DINV=4
	check mut-lock-moved-dir dirops.pml 'invalid end state' "" -- -DMUT_LOCK_MOVED_DIR
	check mut-no-target-first dirops.pml 'invalid end state' "" -- -DMUT_NO_TARGET_FIRST
	check mut-no-backoff dirops.pml 'assertion violated.*\(4==4\)' -E -- -DMUT_NO_BACKOFF -DINV=4
}
chain_b() {
	# Today's protocol: the reference.
	check exclusive dirops.pml pass "" -- -DEXCLUSIVE $size_flag
	check mv-explicit mv_race.pml pass "" -- -DMV_EXPLICIT -DROUNDS=$rounds
	check mv-busybox mv_race.pml 'assertion violated.*dead' "" -- -DROUNDS=$rounds
	check mut-no-rename-mutex dirops.pml 'assertion violated.*\(4==4\)' -E -- -DMUT_NO_RENAME_MUTEX -DINV=4
	check mut-ddrop dirops.pml 'assertion violated.*\(5==5\)' -E -- -DMUT_DDROP -DINV=5
	check mut-trylock-blind dirops.pml 'assertion violated.*\(2==2\)' -E -- -DMUT_TRYLOCK_BLIND -DINV=2
	check mut-name-order dirops.pml 'invalid end state' "" -- -DMUT_NAME_ORDER
	check mut-late-ancestor dirops.pml 'invalid end state' "" -- -DMUT_LATE_ANCESTOR
	check mut-both-dirs-first dirops.pml 'invalid end state' "" -- -DMUT_BOTH_DIRS_FIRST
	check mut-source-dir-first dirops.pml 'invalid end state' "" -- -DMUT_SOURCE_DIR_FIRST
}
chain_a &
a=$!
chain_b
wait $a
# The verdicts in a fixed order; a check that printed none failed too.
for name in exclusive mv-explicit mv-busybox parallel mut-no-recheck mut-no-namelock \
	mut-rmdir-nolock mut-no-ancestor mut-no-rename-mutex mut-ddrop mut-name-order \
	mut-late-ancestor mut-both-dirs-first mut-lock-moved-dir mut-no-target-first mut-trylock-blind \
	mut-no-backoff mut-source-dir-first; do
	if [ -s "$out/$name.result" ]; then
		cat "$out/$name.result"
		grep -q FAILED "$out/$name.result" && failed=1
	else
		echo "model: $name: FAILED: no verdict"; failed=1
	fi
done

if [ $failed != 0 ]; then echo "model: FAILED"; exit 1; fi
echo "model: every model passed and every mutant failed ($size)"
