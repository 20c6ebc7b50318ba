#!/bin/sh
# run.sh KERNEL: the workloads of make bench-linux, run by busybox sh the
# same way on both kernels (init-smpvfs and init-linux start it).  The
# driver, bench/run_linux.py, writes params.sh beside it (the sizes, the
# thread counts, which disk serves which workload) and reads back the
# "LB w=..." lines the programs print; a step that fails prints
# "LB w=error ... bad=1", and the driver then prints no figure.
. /bench/params.sh
B=/bench/bin
KERNEL=$1
echo "LB w=begin kernel=$KERNEL"
fail() { echo "LB w=error what=$1 bad=1"; }
# want N: workload N is to run (ONLY empty: all; else a list of numbers).
want() { [ -z "$ONLY" ] || case " $ONLY " in *" $1 "*) true ;; *) false ;; esac; }
mkdir -p /lbw /mnt

# --count: only the instruction counts, under the QEMU plugin.
if [ "$MODE" = count ]; then
	$B/lb_count /lbw $COUNT_REPS || fail lb_count
	echo "LB w=end kernel=$KERNEL"
	exit 0
fi

# 1. cached stat of a 6-component path, private paths then one shared path;
# 2. one cached file: open+close, then pread, by N threads.  CPU_RUNS
# rounds of both, interleaved, so that a burst of load on the host falls
# on every point alike.
for r in $(seq $CPU_RUNS); do
	want 1 && for n in $STAT_THREADS; do
		for m in private shared; do
			$B/lb_stat /lbw $n $STAT_ITERS $m || fail "lb_stat-$n-$m"
		done
	done
	want 2 && for n in $STAT_THREADS; do
		for m in open read; do
			$B/lb_file /lbw/file $n $FILE_ITERS $m || fail "lb_file-$n-$m"
		done
	done
done

# 6. creates and unlinks of different names in one directory, in memory
# (the root filesystem), by T threads; also CPU_RUNS rounds.
want 6 && for r in $(seq $CPU_RUNS); do
	for t in $DIROPS_THREADS; do
		$B/lb_dirops /lbw/d $t $DIROPS_ITERS || fail "lb_dirops-$t"
	done
done

# 7. a compiler's include search: N processes each resolve 2,000 headers
# through 12 directories, most stats missing; in memory, CPU_RUNS rounds.
want 7 && for r in $(seq $CPU_RUNS); do
	for n in $INCLUDE_PROCS; do
		$B/lb_include /lbw/inc $n || fail "lb_include-$n"
	done
done

# 8. git status: N threads lstat every file of a 10,000-file tree, twice
# (one file rewritten between), in memory, CPU_RUNS rounds.
want 8 && for r in $(seq $CPU_RUNS); do
	for n in $GIT_THREADS; do
		$B/lb_gitstatus /lbw/git $n || fail "lb_gitstatus-$n"
	done
done

# 9. a rename storm: T threads rename names inside a directory and
# between two while T more stat the names around them; in memory, a tree
# for each T, CPU_RUNS rounds.
want 9 && for r in $(seq $CPU_RUNS); do
	for t in $RENAME_THREADS; do
		$B/lb_renames /lbw/ren$t $t $RENAME_ITERS || fail "lb_renames-$t"
	done
done

# 11. a host folder over virtio-9p (QEMU's -virtfs, mount tag host, the
# folder the driver made for this boot), mounted at /p9 with cache=loose,
# then again with cache=none: cached stat of a 6-component path below it
# by N threads (lb_stat), cold lookups of different names of one
# directory by T threads (lb_cold: names this mount has not seen; a
# directory per cache mode), creates of different names in one new
# directory by T threads (lb_dirops ... keep).  Each result line is renamed
# w=p9... and gets cache=MODE; the driver lists the folder afterwards.
p9() {
	m=$1
	shift
	if out=$("$@") && [ -n "$out" ]; then
		echo "LB w=p9${out#LB w=} cache=$m"
	else
		fail "p9-$m-${1##*/}"
	fi
}
want 11 && for m in loose none; do
	mkdir -p /p9
	if mount -t 9p -o trans=virtio,msize=65536,cache=$m host /p9; then
		if [ $m = loose ]; then iters=$P9_STAT_ITERS; else iters=$P9_NONE_STAT_ITERS; fi
		for n in $P9_STAT_THREADS; do
			for s in private shared; do
				p9 $m $B/lb_stat /p9/st $n $iters $s
			done
		done
		for t in $P9_COLD_THREADS; do
			p9 $m $B/lb_cold /p9/cold-$m /bench/p9cold/$t.names $t $P9_COLD_K
		done
		for t in $P9_CREATE_THREADS; do
			p9 $m $B/lb_dirops /p9/cr-$m-$t $t $P9_CREATE_ITERS keep
		done
		umount /p9 || fail "umount-p9-$m"
	else
		fail "mount-p9-$m"
	fi
done

# 10. find and du -s of a cold 20,200-entry tree by N processes at once,
# each command on a disk of its own, mounted just before.
set -- $FIND_DISKS
want 10 && for n in $FIND_PROCS; do
	for cmd in find du; do
		d=$1
		shift
		mkdir -p /mnt/$d
		if mount -t ext2 -o ro /dev/$d /mnt/$d; then
			if [ $cmd = find ]; then
				$B/lb_procs find $n /bin/find /mnt/$d/tree || fail "lb_procs-find-$n"
			else
				$B/lb_procs du $n /bin/du -s /mnt/$d/tree || fail "lb_procs-du-$n"
			fi
			umount /mnt/$d || fail "umount-$d"
		else
			fail "mount-$d"
		fi
	done
done

# 3. cold lookups in one directory: each T on a disk of its own, mounted
# just before, so nothing of it is cached.
set -- $COLD_DISKS
want 3 && for t in $COLD_THREADS; do
	d=$1
	shift
	mkdir -p /mnt/$d
	if mount -t ext2 -o ro /dev/$d /mnt/$d; then
		$B/lb_cold /mnt/$d/lookup /bench/cold/$t.names $t $COLD_K || fail "lb_cold-$t"
		umount /mnt/$d || fail "umount-$d"
	else
		fail "mount-$d"
	fi
done

# 4. a cold walk of 10,000 files, each N on a disk of its own.
set -- $WALK_DISKS
want 4 && for n in $WALK_THREADS; do
	d=$1
	shift
	mkdir -p /mnt/$d
	if mount -t ext2 -o ro /dev/$d /mnt/$d; then
		$B/lb_walk /mnt/$d/walk $n || fail "lb_walk-$n"
		umount /mnt/$d || fail "umount-$d"
	else
		fail "mount-$d"
	fi
done

# 5. fork+exec+wait of busybox true; cp -a and tar x of a tree onto an
# empty ext2 disk (the driver runs e2fsck -fn on it and compares both
# copies with the tree).
if ! want 5; then
	:
elif r=$($B/spawnbench $SPAWN_N /bin/true); then
	set -- $r
	echo "LB w=spawn n=$2 ns=$3 bad=0"
else
	fail spawnbench
fi
mkdir -p /mnt/t
if ! want 5; then
	:
elif mount -t ext2 /dev/$TARGET_DISK /mnt/t; then
	mkdir /mnt/t/tarx
	$B/lb_time cp /bin/cp -a /bench/tree /mnt/t/cp
	$B/lb_time tar /bin/tar -x -f /bench/tree.tar -C /mnt/t/tarx
	$B/lb_time sync /bin/sync
	umount /mnt/t || fail "umount-$TARGET_DISK"
else
	fail "mount-$TARGET_DISK"
fi
echo "LB w=end kernel=$KERNEL"
