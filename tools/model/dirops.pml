/*
 * dirops.pml: the locking protocol of directory changes, checked by Spin.
 *
 * Two protocols, one set of threads and one set of invariants:
 *   -DEXCLUSIVE   today's (fs/dirops.c, fs/rename.c at bb87fe9): every
 *                 change takes its directory's i_rwsem exclusive; a
 *                 cross-directory rename takes s_rename_rwsem
 *                 exclusive (a mutex at bb87fe9), then both
 *                 directories exclusive, the ancestor first.
 *   (default)     the parallel protocol of issue 42: a change takes its
 *                 directory's i_rwsem SHARED and locks the names it changes
 *                 (a per-dentry exclusive lock; waiters sleep).
 * docs/design/09-dirops-model.md gives the rules, the lock order, which C
 * function each step stands for, and what each mutant below proves.
 *
 * The world: three directories (ROOT, A = ROOT/n0, B = ROOT/n1), three
 * names n0..n2, files F = A/n0 and G = A/n1; each thread's create makes
 * its own file.  Three threads, each running OPS operations picked by
 * Spin from its menu (worker() below).  Every lookup of a name under a
 * directory lock is d_alloc_parallel's: a hashed dentry is the answer;
 * else one in-lookup dentry per name asks the filesystem (fs[]) while
 * other lookups of that name wait.
 *
 * The dcache is kept per slot (directory, name): nh = hashed dentries
 * there (the invariant: at most 1), gen = which dentry is the hashed one
 * (a thread that holds a dentry remembers its gen: a changed gen or nh 0
 * means that dentry was unhashed), dobj = its inode (0: negative),
 * held = references on it.  dpar = a directory's d_parent.
 *
 * The invariants (check_inv after every change, and asserts in place):
 *   I1 never two hashed dentries with one parent and name   (nh <= 1)
 *   I2 at most one change of a name at a time                (chg <= 1)
 *   I3 rmdir never removes a non-empty directory   (a dead one is empty)
 *   I4 no directory becomes its own ancestor (by d_parent and by the
 *      filesystem's entries: every live directory reaches ROOT)
 *   I5 a lookup never sees a half-done rename (the filesystem is never
 *      asked about a name between a rename's change of it and d_move)
 *   and no deadlock: Spin's invalid end states.
 *
 * Mutants (each removes one rule; tools/model/run.sh requires each to
 * fail):
 *   MUT_NO_RECHECK      a name lock is not re-checked against the dcache
 *                       (the dentry may have been unhashed while we
 *                       waited)                                  -> I1
 *   MUT_NO_NAMELOCK     create takes no name lock                -> I2
 *   MUT_TRYLOCK_BLIND   a lookup that locks the name it finds
 *                       takes it without looking whether someone
 *                       holds it (the or's old value ignored)    -> I2
 *   MUT_RMDIR_NOLOCK    rmdir does not lock the victim exclusive -> I3
 *   MUT_NO_RENAME_MUTEX cross-directory renames not serialized   -> I4
 *   MUT_NO_ANCESTOR     rename skips "into its own subtree"      -> I4
 *   MUT_DDROP           rename unhashes its target before the
 *                       filesystem's rename (d_drop first)       -> I5
 *   MUT_NAME_ORDER      rename locks its two names in argument
 *                       order, not by address                -> deadlock
 *   MUT_NO_TARGET_FIRST a rename within one directory that holds
 *                       its source's name locks a cached target
 *                       before it by address too, instead of
 *                       letting go (TARGET_FIRST)   -> deadlock
 *   MUT_LATE_ANCESTOR   rename checks ancestry after taking the
 *                       name locks, not before               -> deadlock
 *   MUT_BOTH_DIRS_FIRST a cross-directory rename takes both
 *                       directories before its names, as
 *                       lock_rename does today      -> deadlock
 *   MUT_LOCK_MOVED_DIR  a rename within one directory locks the
 *                       directory it moves exclusive, as the
 *                       exclusive protocol does (its ".." stays,
 *                       so Linux and fs/rename.c do not)  -> deadlock
 *   MUT_SOURCE_DIR_FIRST
 *                       a rename of a file between two directories
 *                       with the rename lock shared takes the old
 *                       directory first, not in the tree's order
 *                                                    -> deadlock
 *   MUT_NO_BACKOFF      a directory found as the source of such a
 *                       rename is moved with the lock shared too
 *                                                          -> I4
 * The mutants are of the parallel protocol (the exclusive one has
 * neither name locks nor their rules).
 */

/* -DINV=k checks invariant k alone (a mutant must break the one its rule
 * protects); 0, the default, checks all five. */
#ifndef INV
#define INV 0
#endif
#define ON(k) (INV == 0 || INV == (k))

#ifndef OPS
#define OPS 1		/* operations per thread */
#endif
/* -DLARGE (make soak's MODEL_SIZE=large): longer menus (below). */

#define ROOT 1
#define A 2
#define B 3
#define NOBJ 10		/* inodes 1..9: 1-3 directories, 4-6 new files, 7 F, 8 G */
#define F 7
#define G 8
#define ISDIR(o) ((o) >= ROOT && (o) <= B)
#define NNAME 3
#define NSLOT 9
#define SLOT(d, n) (((d) - 1) * NNAME + (n))

/* the filesystem */
byte fs[NSLOT];		/* inode at (dir, name), 0: none */
bool dead[4];		/* IS_DEADDIR */
/* the dcache */
byte nh[NSLOT];		/* hashed dentries at the slot */
byte gen[NSLOT];	/* which dentry is the hashed one (mod 8) */
byte dobj[NSLOT];	/* its inode, 0: negative */
byte held[NSLOT];	/* references on it */
byte inl[NSLOT];	/* in-lookup: the owner's pid (d_alloc_parallel) */
byte dpar[4];		/* a directory's d_parent, 0 for ROOT (a removed one keeps
			 * it, as a dentry does) */
/* the locks */
byte wr[NOBJ];		/* i_rwsem (and s_rename_rwsem, RMX): the writer's pid */
byte rd[NOBJ];		/* i_rwsem: readers */
byte ww[NOBJ];		/* i_rwsem: writers waiting (readers then queue) */
#define RMX 0		/* s_rename_rwsem: lock 0 of the three arrays below */
byte lk_s[8];		/* name locks: thread t's i-th (i < 2) is on */
byte lk_g[8];		/* slot lk_s-1, dentry gen lk_g */
/* observers */
byte chg[NSLOT];	/* changes of the name in progress */
bool mid[NSLOT];	/* a rename changed it in fs[], d_move not yet */

/* ---- locks ---------------------------------------------------------- */

/* i_rwsem (kernel/rwsem.c): a FIFO queue, so once a writer waits, new
 * readers wait behind it. */
inline down_read(o) { atomic { wr[o] == 0 && ww[o] == 0 -> rd[o]++ } }
inline up_read(o) { rd[o]-- }
inline down_write(o) { ww[o]++; atomic { wr[o] == 0 && rd[o] == 0 -> wr[o] = _pid; ww[o]-- } }
inline up_write(o) { assert(wr[o] == _pid); wr[o] = 0 }
#ifdef EXCLUSIVE
#define dir_lock(o) down_write(o)
#define dir_unlock(o) up_write(o)
#else
#define dir_lock(o) down_read(o)
#define dir_unlock(o) up_read(o)
#endif
/* s_rename_rwsem: exclusive for a rename between two directories that
 * may move a directory, shared for one that moves a file (FILE_MODE). */
#ifndef MUT_NO_RENAME_MUTEX
#define rmx_read() down_read(RMX)
#define rmx_unread() up_read(RMX)
#define rmx_write() down_write(RMX)
#define rmx_unwrite() up_write(RMX)
#else
#define rmx_read() skip
#define rmx_unread() skip
#define rmx_write() skip
#define rmx_unwrite() skip
#endif
/* The parallel protocol moves files between directories with the rename
 * lock shared, its directories taken in the tree's order (dir_key).
 * Three mutants keep it exclusive for files too: they break rules of the
 * exclusive path, and this small world shows their deadlocks with a file
 * as the source only (MUT_LOCK_MOVED_DIR's needs a rename out of B into
 * A, which with the lock shared takes A first: the order lock_two takes
 * A and B in; a directory inside B, which the exclusive path would move
 * in the old order, needs a longer menu than OPS = 1 searches). */
#if !defined(EXCLUSIVE) && !defined(MUT_BOTH_DIRS_FIRST) && !defined(MUT_LATE_ANCESTOR) && \
    !defined(MUT_LOCK_MOVED_DIR)
#define FILE_MODE
#endif

/* The per-name lock: on one dentry (slot s, gen g); a second taker
 * sleeps until the holder lets go. */
#define HOLDS(t, i, s, g) (lk_s[(t) * 2 + (i)] == (s) + 1 && lk_g[(t) * 2 + (i)] == (g))
#define HOLDS_T(t, s, g) (_pid != (t) && (HOLDS(t, 0, s, g) || HOLDS(t, 1, s, g)))
#define NAME_LOCKED(s, g) (HOLDS_T(1, s, g) || HOLDS_T(2, s, g) || HOLDS_T(3, s, g))
/* The same, we included (a trylock fails on a lock of our own). */
#define NAME_HELD(s, g) (NAME_LOCKED(s, g) || HOLDS(_pid, 0, s, g) || HOLDS(_pid, 1, s, g))
inline name_lock(i, s, g) { atomic { !NAME_LOCKED(s, g) -> lk_s[_pid * 2 + i] = s + 1; lk_g[_pid * 2 + i] = g } }
inline name_unlock(i) { atomic { lk_s[_pid * 2 + i] = 0; lk_g[_pid * 2 + i] = 0 } }
/* Still the hashed dentry of its name?  (Linux's series: being hashed is
 * part of the lock; a dentry unhashed while we waited is not ours.) */
#define CURRENT(s, g) (nh[s] > 0 && gen[s] == (g))

/* ---- the invariants --------------------------------------------------- */

inline check_inv()
{
	d_step {
		_ci = 0;
		do
		:: _ci < NSLOT -> assert(!ON(1) || nh[_ci] <= 1);		/* I1 */
			assert(!ON(3) || !dead[_ci / NNAME + 1] || fs[_ci] == 0);	/* I3 */
			_ci++
		:: else -> break
		od;
		_ci = A;
		do
		:: _ci <= B -> if
			:: !dead[_ci] ->
				_cx = _ci; _ck = 0;	/* I4, by d_parent */
				do
				:: _cx == ROOT -> break
				:: else -> assert(!ON(4) || (_cx != 0 && _ck < 4)); if :: _cx == 0 || _ck >= 4 -> break :: else -> skip fi; _cx = dpar[_cx]; _ck++
				od;
				_cx = _ci; _ck = 0;	/* I4, by the filesystem */
				do
				:: _cx == ROOT -> break
				:: else -> assert(!ON(4) || _ck < 4); if :: _ck >= 4 -> break :: else -> skip fi;
					_cn = 0; _cp = 0;
					do
					:: _cn < NSLOT -> if :: fs[_cn] == _cx -> _cp = _cn / NNAME + 1 :: else -> skip fi; _cn++
					:: else -> break
					od;
					assert(!ON(4) || _cp != 0); if :: _cp == 0 -> break :: else -> skip fi; _cx = _cp; _ck++
				od
			:: else -> skip
			fi; _ci++
		:: else -> break
		od
	}
}

/* is_ancestor(a, d): a is d or above it, by d_parent (rename.c's). */
inline is_ancestor(a, d, res)
{
	_x = d; _k = 0; res = false;
	do
	:: _x == a -> res = true; break
	:: _x != a && (_x == ROOT || _x == 0 || _k >= 4) -> break
	:: else -> _x = dpar[_x]; _k++
	od
}

/* dir_key(d, key): where d comes in the tree's order of directories
 * (rename.c's dir_order): shallower first, then by address.  A parent
 * comes before its child whatever their addresses, so it is the order of
 * rmdir (the parent, then its victim) too.  Depths stay while the
 * rename lock is held shared: only its exclusive holders move
 * directories between directories. */
inline dir_key(d, key)
{
	_x = d; key = 0;
	do
	:: _x == ROOT || _x == 0 -> break
	:: else -> _x = dpar[_x]; key++
	od;
	key = key * 4 + d
}

/* ---- the dcache ------------------------------------------------------- */

/* lookup_one / __lookup_slow with the directory's i_rwsem held (shared or
 * exclusive): d_alloc_parallel, then ->lookup if we own the in-lookup
 * dentry.  g: the dentry's gen; a reference is taken. */
inline lookup_locked(s, g)
{
	do
	:: atomic { nh[s] > 0 -> g = gen[s]; held[s]++; break }
	:: atomic { nh[s] == 0 && inl[s] == 0 -> inl[s] = _pid };
		atomic { assert(!ON(5) || !mid[s]); _v = fs[s] };		/* ->lookup: I5 */
		atomic {	/* d_add, d_lookup_done */
			nh[s]++; gen[s] = (gen[s] + 1) % 8; dobj[s] = _v; held[s] = 1;
			inl[s] = 0; g = gen[s]; _v = 0
		};
		check_inv();
		break
	od
}
/* lookup_one_trylock: lookup_locked, and the name's lock i taken where
 * it is found if that needs no wait (locked = true).  A name not in the
 * cache is born locked: C sets the bit on the in-lookup dentry before the
 * filesystem is asked, and nothing can reach that dentry before d_add
 * hashes it (lookups of the name wait for the in-lookup one), so the lock
 * is taken here in d_add's step.  A cached name is locked in the step
 * that finds it, if no one (we included) holds it: C sets the bit under
 * the dcache bucket lock it found the dentry under, where the dentry is
 * still the hashed one of its name (d_name_trylock_hashed). */
inline lookup_trylock(s, g, i, locked)
{
	do
	:: atomic { nh[s] > 0 -> g = gen[s]; held[s]++;
#ifndef MUT_TRYLOCK_BLIND
		if
		:: !NAME_HELD(s, g) -> lk_s[_pid * 2 + i] = s + 1; lk_g[_pid * 2 + i] = g; locked = true
		:: else -> locked = false
		fi;
#else
		lk_s[_pid * 2 + i] = s + 1; lk_g[_pid * 2 + i] = g; locked = true;
#endif
		break }
	:: atomic { nh[s] == 0 && inl[s] == 0 -> inl[s] = _pid };
		atomic { assert(!ON(5) || !mid[s]); _v = fs[s] };		/* ->lookup: I5 */
		atomic {	/* d_add (the lock born with it), d_lookup_done */
			nh[s]++; gen[s] = (gen[s] + 1) % 8; dobj[s] = _v; held[s] = 1;
			inl[s] = 0; g = gen[s]; _v = 0;
			lk_s[_pid * 2 + i] = s + 1; lk_g[_pid * 2 + i] = g; locked = true
		};
		check_inv();
		break
	od
}
inline dput(s, g) { atomic { if :: CURRENT(s, g) && held[s] > 0 -> held[s]-- :: else -> skip fi } }
/* d_delete: negative in place if we alone hold it, else unhashed. */
inline d_delete(s)
{
	if
	:: held[s] > 1 -> nh[s]--
	:: else -> dobj[s] = 0
	fi
}

/* ---- the operations --------------------------------------------------- */

/* lookup (walk_component): lookup_fast, then lookup_slow with the
 * directory shared. */
inline op_lookup(d, n)
{
	s1 = SLOT(d, n);
	if
	:: atomic { nh[s1] > 0 -> skip }	/* d_lookup: a hit is final */
	:: atomic { nh[s1] == 0 -> skip };
		down_read(d);
		lookup_locked(s1, g1);
		dput(s1, g1);
		up_read(d)
	fi
}

/* Take the name lock i on the dentry (s, g) and check it is still the
 * hashed one; if not, let go and say so in `stale`. */
inline lock_name_checked(i, s, g)
{
	name_lock(i, s, g);
#ifndef MUT_NO_RECHECK
	atomic { if :: !CURRENT(s, g) -> stale = true :: else -> skip fi }
#endif
}

/* create (vfs_create_name / start_creating): a new file at (d, n). */
inline op_create(d, n)
{
	s1 = SLOT(d, n);
	dir_lock(d);
	do
#if !defined(EXCLUSIVE) && !defined(MUT_NO_NAMELOCK)
	:: lookup_trylock(s1, g1, 0, locked);	/* born locked, or locked where found */
		if :: !locked -> lock_name_checked(0, s1, g1) :: else -> skip fi;
#else
	:: lookup_locked(s1, g1);
#endif
		if
		:: stale -> name_unlock(0); dput(s1, g1); stale = false
		:: else -> break
		fi
	od;
	atomic {
		if
		:: dead[d] -> err = 2			/* may_create: ENOENT */
		:: !dead[d] && dobj[s1] != 0 -> err = 17	/* EEXIST */
		:: else -> chg[s1]++; assert(!ON(2) || chg[s1] <= 1)	/* I2 */
		fi
	};
	if
	:: err == 0 ->
		fs[s1] = _pid + 3;			/* ->create */
		atomic { dobj[s1] = _pid + 3; chg[s1]-- };	/* d_instantiate */
		check_inv()
	:: else -> skip
	fi;
	name_unlock(0);
	dput(s1, g1);
	dir_unlock(d)
}

/* unlink (vfs_unlink / start_removing) and rmdir (vfs_rmdir) of (d, n). */
inline op_remove(d, n, isrmdir)
{
	s1 = SLOT(d, n);
	dir_lock(d);
	do
#ifndef EXCLUSIVE
	:: lookup_trylock(s1, g1, 0, locked);	/* lookup_one_name_locked */
		if :: !locked -> lock_name_checked(0, s1, g1) :: else -> skip fi;
#else
	:: lookup_locked(s1, g1);
#endif
		if
		:: stale -> name_unlock(0); dput(s1, g1); stale = false
		:: else -> break
		fi
	od;
	atomic {
		v1 = dobj[s1];
		if
		:: v1 == 0 -> err = 2				/* ENOENT */
		:: v1 != 0 && !isrmdir && ISDIR(v1) -> err = 21	/* EISDIR */
		:: v1 != 0 && isrmdir && !ISDIR(v1) -> err = 20	/* ENOTDIR */
		:: else -> skip
		fi
	};
	if
	:: err == 0 ->
		/* the victim: a file against link, a directory against
		 * creates in it (it is theirs to hold shared) */
#ifdef MUT_RMDIR_NOLOCK
		if :: !isrmdir -> down_write(v1) :: else -> skip fi;
#else
		down_write(v1);
#endif
		atomic {
			if
			:: isrmdir && (fs[SLOT(v1, 0)] != 0 || fs[SLOT(v1, 1)] != 0 ||
			               fs[SLOT(v1, 2)] != 0) -> err = 39	/* ENOTEMPTY */
			:: else -> chg[s1]++; assert(!ON(2) || chg[s1] <= 1)	/* I2 */
			fi
		};
		if
		:: err == 0 ->
			atomic { fs[s1] = 0; if :: isrmdir -> dead[v1] = true :: else -> skip fi };	/* ->unlink, ->rmdir */
			check_inv();
			atomic { d_delete(s1); chg[s1]-- };
			check_inv()
		:: else -> skip
		fi;
#ifdef MUT_RMDIR_NOLOCK
		if :: !isrmdir -> up_write(v1) :: else -> skip fi
#else
		up_write(v1)
#endif
	:: else -> skip
	fi;
	name_unlock(0);
	dput(s1, g1);
	dir_unlock(d)
}

/* The ancestry checks of may_rename, under s_rename_rwsem exclusive. */
inline rename_ancestry(odir, ndir)
{
	v1 = dobj[s1]; v2 = dobj[s2];
#ifndef MUT_NO_ANCESTOR
	if
	:: odir != ndir && ISDIR(v1) -> is_ancestor(v1, ndir, anc);
		if :: anc -> err = 22 :: else -> skip fi	/* EINVAL */
	:: else -> skip
	fi;
#endif
	if	/* whatever the source's type, as may_rename */
	:: odir != ndir && err == 0 && ISDIR(v2) -> is_ancestor(v2, odir, anc);
		if :: anc -> err = 39 :: else -> skip fi	/* ENOTEMPTY */
	:: else -> skip
	fi;
	anc = false
}

/* The target's "over an ancestor of the source's directory" check. */
inline target_ancestry(odir)
{
	atomic {
		w2 = dobj[s2];
		if
		:: ISDIR(w2) -> is_ancestor(w2, odir, anc);
			if :: anc -> err = 39 :: else -> skip fi; anc = false	/* ENOTEMPTY */
		:: else -> skip
		fi
	}
}

/* One try of a rename between two directories with the rename lock
 * shared (rename.c's lock_names_by_tree): the two directories in the
 * tree's order (nfirst: the new one comes first), each taken shared
 * and its name looked up and locked before the next directory.  The
 * source must be a file: a directory found there sends the rename back
 * to the lock exclusive.  Each ancestry check still comes before the
 * lock of the name it guards.  fm says how it ended: 1 done (both
 * directories held, and both names unless err), 2 back off (nothing
 * held but the rename lock), 0 again (the first directory kept). */
inline rename_files(odir, ndir)
{
	if
	:: !nfirst ->
		if :: !odl -> dir_lock(odir); odl = true :: else -> skip fi;
		lookup_locked(s1, g1);
		atomic { w1 = dobj[s1] };
		if
		:: w1 == 0 -> err = 2; fm = 1		/* ENOENT */
#ifndef MUT_NO_BACKOFF
		:: ISDIR(w1) -> fm = 2
		:: else ->
#else
		:: else -> if
			:: ISDIR(w1) -> atomic { is_ancestor(w1, ndir, anc); if :: anc -> err = 22 :: else -> skip fi; anc = false }
			:: else -> skip
			fi;
			if :: err != 0 -> fm = 1; goto files_out :: else -> skip fi;
#endif
			lock_name_checked(0, s1, g1);
			atomic { if :: !stale && dobj[s1] != w1 -> stale = true :: else -> skip fi };
			if
			:: !stale ->
				dir_lock(ndir); ndl = true;
				lookup_locked(s2, g2);
				target_ancestry(odir);
				if
				:: err == 0 -> lock_name_checked(1, s2, g2);
					atomic { if :: !stale && (dobj[s2] != w2 || !CURRENT(s1, g1)) -> stale = true :: else -> skip fi }
				:: else -> skip
				fi
			:: else -> skip
			fi;
			fm = (stale -> 0 : 1)
		fi
	:: nfirst ->
		if :: !ndl -> dir_lock(ndir); ndl = true :: else -> skip fi;
		lookup_locked(s2, g2);
		target_ancestry(odir);	/* its error waits for the source's ENOENT */
		if
		:: err == 0 -> lock_name_checked(1, s2, g2);
			atomic { if :: !stale && dobj[s2] != w2 -> stale = true :: else -> skip fi }
		:: else -> skip
		fi;
		if
		:: !stale ->
			dir_lock(odir); odl = true;
			lookup_locked(s1, g1);
			atomic { w1 = dobj[s1] };
			if
			:: w1 == 0 -> err = 2; fm = 1
#ifndef MUT_NO_BACKOFF
			:: ISDIR(w1) -> fm = 2
#else
			:: err == 0 && ISDIR(w1) -> atomic { is_ancestor(w1, ndir, anc); if :: anc -> err = 22 :: else -> skip fi; anc = false };
				if
				:: err == 0 -> lock_name_checked(0, s1, g1);
					atomic { if :: !stale && (dobj[s1] != w1 || !CURRENT(s2, g2)) -> stale = true :: else -> skip fi }
				:: else -> skip
				fi;
				fm = (stale -> 0 : 1)
#endif
			:: else ->
				if
				:: err == 0 -> lock_name_checked(0, s1, g1);
					atomic { if :: !stale && (dobj[s1] != w1 || !CURRENT(s2, g2)) -> stale = true :: else -> skip fi }
				:: else -> skip
				fi;
				fm = (stale -> 0 : 1)
			fi
		:: else -> fm = 0
		fi
	fi;
files_out:
	if
	:: fm != 1 ->	/* let go of the names and the second directory;
			 * of the first too, and the rename lock, to back off */
		name_unlock(0); name_unlock(1); dput(s1, g1); dput(s2, g2);
		if :: odl && (fm == 2 || nfirst) -> dir_unlock(odir); odl = false :: else -> skip fi;
		if :: ndl && (fm == 2 || !nfirst) -> dir_unlock(ndir); ndl = false :: else -> skip fi;
		stale = false; err = 0; w1 = 0; w2 = 0; g1 = 8; g2 = 8
	:: else -> skip
	fi
}

/* rename (vfs_rename, do_rename, d_move) of (od, on) to (nd, nn).
 *
 * Today's (-DEXCLUSIVE): the mutex, both directories (the ancestor
 * first), both names looked up, the ancestry checks.  The parallel one, in
 * one directory: it shared, both names looked up, then locked by address.
 * Between two: the mutex; the old directory shared; the source looked up,
 * "into its own subtree" checked, its name locked; only then the new
 * directory shared, the target looked up, "over an ancestor" checked, its
 * name locked.  So no thread waits for a name while it holds shared a
 * directory other than that name's own (or the one of a name it holds):
 * taking both directories first deadlocks against a rename in the old
 * directory that replaces the new one (MUT_BOTH_DIRS_FIRST). */
inline op_rename(odir, on, ndir, nn)
{
	s1 = SLOT(odir, on); s2 = SLOT(ndir, nn);
	g1 = 8; g2 = 8;		/* no dentry yet (gens are 0..7): dput skips it */
	if
	:: odir == ndir -> dir_lock(odir); odl = true
	:: else ->
#ifdef FILE_MODE
		/* a file first: the rename lock shared, the directories
		 * in the tree's order; a directory found as the source sends
		 * the rename back here to take the lock exclusive */
		rmx_read();
		atomic { dir_key(odir, w1); dir_key(ndir, w2); nfirst = (w2 < w1); w1 = 0; w2 = 0 };
#ifdef MUT_SOURCE_DIR_FIRST
		nfirst = false;
#endif
		do
		:: rename_files(odir, ndir);
			if :: fm == 0 -> skip :: else -> break fi
		od;
		nfirst = false;
		if
		:: fm == 2 -> rmx_unread(); rmx_write(); dir_lock(odir); odl = true
		:: else -> skip
		fi
#else
		rmx_write();
#if defined(EXCLUSIVE) || defined(MUT_BOTH_DIRS_FIRST)
		/* lock_rename: the ancestor first, unrelated ones by address */
		is_ancestor(ndir, odir, anc);
		if
		:: anc -> v1 = ndir
		:: else -> is_ancestor(odir, ndir, anc);
			v1 = (anc -> odir : (odir < ndir -> odir : ndir))
		fi;
		dir_lock(v1);
		if :: v1 == odir -> dir_lock(ndir) :: else -> dir_lock(odir) fi;
		odl = true; ndl = true; v1 = 0; anc = false
#else
		dir_lock(odir); odl = true	/* the new directory after the source's name */
#endif
#endif
	fi;
	if
	:: fm == 1 -> skip	/* rename_files has locked it all */
	:: else ->
	do
#ifdef EXCLUSIVE
	:: lookup_locked(s1, g1);
		lookup_locked(s2, g2);
		rename_ancestry(odir, ndir);
		break
#else
	:: odir != ndir && !ndl ->
		/* between two directories: the source first */
		lookup_locked(s1, g1);
#if !defined(MUT_LATE_ANCESTOR) && !defined(MUT_NO_ANCESTOR)
		atomic {
			w1 = dobj[s1];
			if
			:: ISDIR(w1) -> is_ancestor(w1, ndir, anc);
				if :: anc -> err = 22 :: else -> skip fi; anc = false	/* EINVAL */
			:: else -> skip
			fi
		};
#else
		w1 = dobj[s1];
#endif
		if :: err != 0 -> break :: else -> skip fi;
		lock_name_checked(0, s1, g1);
		atomic { if :: !stale && dobj[s1] != w1 -> stale = true :: else -> skip fi };
		if
		:: stale -> name_unlock(0); dput(s1, g1); stale = false; w1 = 0
		:: else ->
			dir_lock(ndir); ndl = true;
			lookup_locked(s2, g2);
#ifndef MUT_LATE_ANCESTOR
			atomic {
				w2 = dobj[s2];
				if
				:: ISDIR(w2) -> is_ancestor(w2, odir, anc);
					if :: anc -> err = 39 :: else -> skip fi; anc = false	/* ENOTEMPTY */
				:: else -> skip
				fi
			};
#else
			w2 = dobj[s2];
#endif
			if :: err != 0 -> break :: else -> skip fi;
			lock_name_checked(1, s2, g2);
#ifdef MUT_LATE_ANCESTOR
			atomic { rename_ancestry(odir, ndir) };
#endif
			atomic { if :: !stale && (dobj[s2] != w2 || !CURRENT(s1, g1)) -> stale = true :: else -> skip fi };
			if
			:: stale -> name_unlock(0); name_unlock(1); dput(s1, g1); dput(s2, g2);
				dir_unlock(ndir); ndl = false; stale = false; err = 0; w1 = 0; w2 = 0
			:: else -> break
			fi
		fi
	:: odir != ndir && ndl ->	/* both directories taken first (a mutant) */
		lookup_locked(s1, g1);
		lookup_locked(s2, g2);
		atomic { rename_ancestry(odir, ndir); w1 = v1; w2 = v2 };
		if :: err != 0 -> break :: else -> skip fi;
		lock_name_checked(0, s1, g1);
		if :: !stale -> lock_name_checked(1, s2, g2) :: else -> skip fi;
		atomic { if :: !stale && (dobj[s1] != w1 || dobj[s2] != w2) -> stale = true :: else -> skip fi };
		if
		:: stale -> name_unlock(0); name_unlock(1); dput(s1, g1); dput(s2, g2);
			stale = false; err = 0; w1 = 0; w2 = 0
		:: else -> break
		fi
	:: odir == ndir ->
#ifdef MUT_NAME_ORDER
		/* both names in argument order (a mutant) */
		lookup_locked(s1, g1);
		lookup_locked(s2, g2);
		atomic { w1 = dobj[s1]; w2 = dobj[s2] };
		lock_name_checked(0, s1, g1);
		if :: !stale -> lock_name_checked(1, s2, g2) :: else -> skip fi;
		atomic { if :: !stale && (dobj[s1] != w1 || dobj[s2] != w2) -> stale = true :: else -> skip fi };
#else
		/* in one directory (source_then_target): the source's name
		 * (locked where found if free), then the target looked up: a
		 * new one born locked, a cached one locked where found if
		 * free, else waited for if after the source by address; else
		 * (TARGET_FIRST) both let go, and locked by address
		 * (lock_both_by_address) */
		lookup_trylock(s1, g1, 0, locked);
		atomic { w1 = dobj[s1] };
		if
		:: !locked -> lock_name_checked(0, s1, g1);
			atomic { if :: !stale && dobj[s1] != w1 -> stale = true :: else -> skip fi }
		:: else -> skip
		fi;
		if
		:: !stale ->
			lookup_trylock(s2, g2, 1, locked);
			atomic { w2 = dobj[s2] };
			if
			:: locked -> skip
			:: !locked && s1 < s2 -> lock_name_checked(1, s2, g2);
				atomic { if :: !stale && dobj[s2] != w2 -> stale = true :: else -> skip fi }
#ifdef MUT_NO_TARGET_FIRST
			:: !locked && s1 > s2 -> lock_name_checked(1, s2, g2);
				atomic { if :: !stale && dobj[s2] != w2 -> stale = true :: else -> skip fi }
#else
			:: !locked && s1 > s2 ->
				name_unlock(0); dput(s1, g1); dput(s2, g2);
				lookup_locked(s1, g1);
				lookup_locked(s2, g2);
				atomic { w1 = dobj[s1]; w2 = dobj[s2] };
				lock_name_checked(1, s2, g2);
				if :: !stale -> lock_name_checked(0, s1, g1) :: else -> skip fi;
				atomic { if :: !stale && (dobj[s1] != w1 || dobj[s2] != w2) -> stale = true :: else -> skip fi }
#endif
			fi
		:: else -> skip
		fi;
#endif
		if
		:: stale -> name_unlock(0); name_unlock(1); dput(s1, g1); dput(s2, g2);
			stale = false; w1 = 0; w2 = 0; g2 = 8
		:: else -> break
		fi
#endif
	od
	fi;
	/* may_rename's other checks */
	atomic {
		v1 = dobj[s1]; v2 = dobj[s2];
		if
		:: err != 0 -> skip
		:: v1 == 0 -> err = 2					/* ENOENT */
		:: v1 != 0 && v1 == v2 -> err = 1			/* same inode: 0, done */
		:: v1 != 0 && v1 != v2 && ISDIR(v1) && v2 != 0 && !ISDIR(v2) -> err = 20	/* ENOTDIR */
		:: v1 != 0 && v1 != v2 && !ISDIR(v1) && ISDIR(v2) -> err = 21	/* EISDIR */
		:: else -> skip
		fi
	};
	if
	:: err == 0 ->
		/* lock_two: the source and the victim inodes, by address;
		 * in the parallel protocol a directory moved within its
		 * directory is not locked (do_rename's lock_src): a change in
		 * it may wait for a cross rename out of it, which waits for
		 * the victim directory we lock */
#if !defined(EXCLUSIVE) && !defined(MUT_LOCK_MOVED_DIR)
		ndl2 = (odir == ndir && ISDIR(v1));
#endif
		if
		:: ndl2 && v2 == 0 -> skip
		:: ndl2 && v2 != 0 -> down_write(v2)
		:: !ndl2 && v2 == 0 -> down_write(v1)
		:: !ndl2 && v2 != 0 && v1 < v2 -> down_write(v1); down_write(v2)
		:: !ndl2 && v2 != 0 && v1 > v2 -> down_write(v2); down_write(v1)
		fi;
#ifdef MUT_DDROP
		atomic { if :: CURRENT(s2, g2) -> nh[s2]-- :: else -> skip fi };	/* d_drop(new) */
#endif
		atomic {	/* may_rename_now, then ->rename */
			if
			:: dead[ndir] -> err = 2
			:: ISDIR(v2) && (fs[SLOT(v2, 0)] != 0 || fs[SLOT(v2, 1)] != 0 ||
			                 fs[SLOT(v2, 2)] != 0) -> err = 39
			:: else ->
				chg[s1]++; chg[s2]++;
				assert(!ON(2) || (chg[s1] <= 1 && chg[s2] <= 1));	/* I2 */
				fs[s2] = v1; fs[s1] = 0;
				if :: ISDIR(v2) -> dead[v2] = true :: else -> skip fi;
				mid[s1] = true; mid[s2] = true
			fi
		};
		if
		:: err == 0 ->
			check_inv();
			atomic {	/* d_move(old, new): one step for lookups */
				anc = (nh[s2] > 0 && gen[s2] == g2 && dobj[s2] == 0 && held[s2] == 1);	/* keep */
				if
				:: CURRENT(s2, g2) -> skip	/* the target is replaced in its place */
				:: else -> nh[s2]++		/* unhashed: old is hashed beside */
				fi;
				dobj[s2] = v1; gen[s2] = (gen[s2] + 1) % 8; held[s2] = 0;
				if
				:: CURRENT(s1, g1) && anc -> dobj[s1] = 0; gen[s1] = (gen[s1] + 1) % 8; held[s1] = 0
				:: CURRENT(s1, g1) && !anc -> nh[s1]--
				:: else -> skip
				fi;
				if :: ISDIR(v1) -> dpar[v1] = ndir :: else -> skip fi;
				mid[s1] = false; mid[s2] = false; chg[s1]--; chg[s2]--;
				anc = false
			};
			check_inv()
		:: else -> skip
		fi;
		if :: v2 != 0 -> up_write(v2) :: else -> skip fi;
		if :: !ndl2 -> up_write(v1) :: else -> skip fi;
		ndl2 = false
	:: else -> skip
	fi;
#ifndef EXCLUSIVE
	name_unlock(0); name_unlock(1);
#endif
	dput(s1, g1); dput(s2, g2);
	if :: odl -> dir_unlock(odir); odl = false :: else -> skip fi;
	if :: ndl -> dir_unlock(ndir); ndl = false :: else -> skip fi;
	if
	:: odir != ndir && fm == 1 -> rmx_unread()
	:: odir != ndir && fm != 1 -> rmx_unwrite()
	:: else -> skip
	fi;
	fm = 0
}

/* ---- the threads ------------------------------------------------------ */

#define LOOKUP 1
#define CREATE 2
#define UNLINK 3
#define RMDIR 4
#define RENAME 5

#define PICK(o, a, b, c, e) op = o; d1 = a; n1 = b; d2 = c; n2 = e

/* Each thread's menu: together they hold every operation, same- and
 * cross-directory renames, replacing and not, and the pairs that collide
 * (the mutants' cases among them). */
inline choose(m)
{
	if
	:: m == 1 -> if
		:: PICK(CREATE, A, 2, 0, 0)
		:: PICK(CREATE, B, 0, 0, 0)
		:: PICK(UNLINK, A, 0, 0, 0)
		:: PICK(RENAME, ROOT, 0, B, 0)	/* A into B */
		:: PICK(RENAME, A, 0, A, 1)	/* F over G */
		:: PICK(RENAME, ROOT, 1, B, 0)	/* B into itself: EINVAL */
#ifdef LARGE
		:: PICK(RENAME, ROOT, 1, ROOT, 2)	/* B to a new name */
		:: PICK(RMDIR, ROOT, 1, 0, 0)
#endif
		fi
	:: m == 2 -> if
		:: PICK(CREATE, A, 2, 0, 0)
		:: PICK(RMDIR, ROOT, 1, 0, 0)	/* B */
		:: PICK(RENAME, ROOT, 1, A, 2)	/* B into A */
		:: PICK(RENAME, A, 1, A, 0)	/* G over F */
		:: PICK(LOOKUP, A, 0, 0, 0)
		:: PICK(RENAME, A, 1, B, 0)	/* G into B: over T1's file, if made */
		:: PICK(RENAME, A, 0, ROOT, 0)	/* F over A, its own directory: ENOTEMPTY */
		:: PICK(RENAME, B, 0, A, 2)	/* out of B into A (B/n0 may not exist): against A over B */
#ifdef LARGE
		:: PICK(CREATE, B, 1, 0, 0)
		:: PICK(UNLINK, A, 0, 0, 0)
#endif
		fi
	:: m == 3 -> if
		:: PICK(LOOKUP, A, 2, 0, 0)
		:: PICK(CREATE, A, 0, 0, 0)
		:: PICK(UNLINK, A, 1, 0, 0)
		:: PICK(RENAME, A, 0, A, 2)	/* F to a new name */
		:: PICK(RMDIR, ROOT, 0, 0, 0)	/* A: not empty */
		:: PICK(RENAME, A, 1, ROOT, 2)	/* G up, to a new name */
		:: PICK(RENAME, ROOT, 0, ROOT, 1)	/* A over B: B must be empty */
		:: PICK(RENAME, B, 0, A, 1)	/* T1's file in B over G: against G into B */
#ifdef LARGE
		:: PICK(LOOKUP, B, 0, 0, 0)
		:: PICK(RENAME, A, 1, A, 0)	/* G over F */
#endif
		fi
	fi
}

proctype worker(byte m)
{
	byte op, d1, n1, d2, n2, count;
	byte s1, s2, g1, g2, v1, v2, w1, w2, err, _v, _x, _k;
	byte _ci, _cx, _ck, _cn, _cp;	/* check_inv's */
	bool stale, anc, ndl;	/* ndl: a rename holds its new directory */
	bool locked;	/* lookup_trylock: the name's lock was taken where it was found */
	bool ndl2;	/* a rename leaves the directory it moves unlocked */
	bool odl;	/* a rename holds its old directory */
	bool nfirst;	/* a rename of a file: the new directory comes first */
	byte fm;	/* how rename_files ended */
	do
	:: count < OPS ->
		atomic { choose(m) };
		printf("MSC: thread %d: op %d (dir %d, name %d) (dir %d, name %d)\n", _pid, op, d1, n1, d2, n2);
		if
		:: op == LOOKUP -> op_lookup(d1, n1)
		:: op == CREATE -> op_create(d1, n1)
		:: op == UNLINK -> op_remove(d1, n1, false)
		:: op == RMDIR -> op_remove(d1, n1, true)
		:: op == RENAME -> op_rename(d1, n1, d2, n2)
		fi;
		printf("MSC: thread %d: op %d done: %d\n", _pid, op, err);
		atomic { count++; op = 0; d1 = 0; n1 = 0; d2 = 0; n2 = 0; s1 = 0; s2 = 0;
			 g1 = 0; g2 = 0; v1 = 0; v2 = 0; w1 = 0; w2 = 0; err = 0; locked = false }
	:: else -> break
	od
}

init
{
	atomic {
		fs[SLOT(ROOT, 0)] = A; fs[SLOT(ROOT, 1)] = B;
		fs[SLOT(A, 0)] = F; fs[SLOT(A, 1)] = G;
		nh[SLOT(ROOT, 0)] = 1; dobj[SLOT(ROOT, 0)] = A;
		nh[SLOT(ROOT, 1)] = 1; dobj[SLOT(ROOT, 1)] = B;
		nh[SLOT(A, 0)] = 1; dobj[SLOT(A, 0)] = F;
		nh[SLOT(A, 1)] = 1; dobj[SLOT(A, 1)] = G;
		dpar[A] = ROOT; dpar[B] = ROOT;
		run worker(1); run worker(2); run worker(3)
	}
}
