/*
 * mv_race.pml: today's rename protocol (fs/rename.c, fs/namei.c at
 * bb87fe9) under the check from outside of issue 40 item 6: two busybox
 * jobs, (mv p r/s/; mv r/s/p .) and (mv r p/q/; mv p/q/r .), in a
 * directory holding p/q and r/s.
 *
 * What is modelled, step by step (each atomic block is one step the C
 * code makes atomic, or a lock acquisition):
 *   - the path walk (RCU-walk or lookup_fast: one component at a time,
 *     each a d_lookup under its bucket lock, so each is atomic; nothing is
 *     locked between components);
 *   - busybox's mv of two arguments: stat(DEST); if it is a directory,
 *     rename(SRC, DEST/basename(SRC)), else rename(SRC, DEST) as given
 *     (coreutils/mv.c);
 *   - sys_rename: path_parent of both paths (walks), then vfs_rename:
 *     lock_rename (s_rename_rwsem exclusive, a mutex when this was
 *     written, then both i_rwsem exclusive, the
 *     ancestor first), lookup_one of both names under the locks,
 *     may_rename (is_ancestor both ways, under the mutex), lock_two of
 *     source and victim, may_rename_now (IS_DEADDIR of the new parent), the
 *     filesystem's rename (it refuses a non-empty victim), then d_move.
 * The filesystem's entries (fs[]) and the dcache's d_parent/d_name (par[],
 * nam[]) are kept apart, and `mid` marks the window between them.
 *
 * -DMV_EXPLICIT gives each mv its full destination (mv p r/s/p): no stat
 * first.  Then Spin finds no lost directory and no loop: the kernel's
 * protocol keeps the tree.  Without it (busybox as it is) Spin finds the
 * loss the outside check saw: see docs/design/09-dirops-model.md.
 * -DROUNDS=2 runs each job's pair of commands twice.
 */
#ifndef ROUNDS
#define ROUNDS 1
#endif

/* Directories (inodes), 0 = none: 1 is the jobs' working directory. */
#define DOT 1
#define P 2
#define Q 3
#define R 4
#define S 5
#define NDIR 6
/* Names: the directories' own names; NONAME for "." */
#define NP 0
#define NQ 1
#define NR 2
#define NS 3
#define NNAME 4
#define SLOT(d, n) ((d) * NNAME + (n))

byte fs[NDIR * NNAME];		/* the filesystem: the directory at (dir, name) */
byte par[NDIR];			/* dcache: a directory's d_parent (0: unhashed) */
byte nam[NDIR];			/* dcache: its d_name */
bool dead[NDIR];		/* IS_DEADDIR */
byte wr[NDIR];			/* i_rwsem: the writer's pid + 1 (0: free) */
byte rename_mutex;		/* s_rename_rwsem, exclusive: its holder's pid + 1 */
bool mid;			/* between the filesystem's rename and d_move */

/* Lock an i_rwsem exclusive.  Readers (lookup_slow) play no part here:
 * the walk below uses the dcache alone, as ramfs's walk does. */
inline down_write(o) { atomic { wr[o] == 0 -> wr[o] = _pid + 1 } }
inline up_write(o) { assert(wr[o] == _pid + 1); wr[o] = 0 }

/* d_lookup(dir, name): the dcache's child, 0 if none.  One step. */
inline d_lookup(d, n, res)
{
	res = 0;
	byte _o = 1;
	do
	:: _o < NDIR -> if
		:: par[_o] == d && nam[_o] == n && !dead[_o] -> res = _o; break
		:: else -> _o++
		fi
	:: else -> break
	od
}

/* is_ancestor(a, d): a is d or one of d's ancestors, by d_parent.  The
 * caller holds rename_mutex.  Bounded: a loop ends it (and is a bug
 * that the invariant below reports). */
inline is_ancestor(a, d, res)
{
	byte _x = d, _i = 0;
	res = false;
	do
	:: _x == a -> res = true; break
	:: _x != a && (_x == DOT || _x == 0 || _i >= NDIR) -> break
	:: else -> _x = par[_x]; _i++
	od
}

/* The invariant: every directory that nobody removed is reached from DOT
 * through the filesystem's entries (no loop cut off, none lost). */
inline fs_parent(o, res)
{
	byte _s = 0;
	res = 0;
	do
	:: _s < NDIR * NNAME -> if
		:: fs[_s] == o -> res = _s / NNAME; break
		:: else -> _s++
		fi
	:: else -> break
	od
}
inline check_tree()
{
	d_step {
		byte _d = P, _x, _i, _pp;
		do
		:: _d < NDIR -> if
			:: !dead[_d] ->
				_x = _d; _i = 0;
				do
				:: _x == DOT -> break
				:: else -> fs_parent(_x, _pp);
					assert(_pp != 0 && _i < NDIR);	/* reached from DOT */
					_x = _pp; _i++
				od
			:: else -> skip
			fi; _d++
		:: else -> break
		od
	}
}

/*
 * vfs_rename(odir, on, ndir, nn): odir and ndir are the parents path_parent
 * found (no lock held: they may have moved since).  err: 0 or an errno
 * (only whether it failed matters to mv here).
 */
inline vfs_rename(odir, on, ndir, nn, err)
{
	byte src, tgt, first, second;
	bool anc;
	err = 0;
	/* lock_rename */
	if
	:: odir == ndir -> down_write(odir)
	:: else ->
		atomic { rename_mutex == 0 -> rename_mutex = _pid + 1 }
		/* lock_dirs: the ancestor first, unrelated ones by address */
		is_ancestor(ndir, odir, anc);
		if
		:: anc -> first = ndir
		:: else -> is_ancestor(odir, ndir, anc);
			first = (anc -> odir : (odir < ndir -> odir : ndir))
		fi;
		second = (first == odir -> ndir : odir);
		down_write(first);
		down_write(second)
	fi;
	/* lookup_one of both names under the locks */
	atomic { d_lookup(odir, on, src); d_lookup(ndir, nn, tgt) }
	if
	:: src == 0 -> err = 2			/* ENOENT */
	:: src != 0 && src == tgt -> skip	/* one inode: nothing to do */
	:: else ->
		/* may_rename: the ancestry checks, under rename_mutex */
		if
		:: odir != ndir -> is_ancestor(src, ndir, anc);
			if
			:: anc -> err = 22		/* EINVAL */
			:: else -> if
				:: tgt != 0 -> is_ancestor(tgt, odir, anc);
					if :: anc -> err = 39 :: else -> skip fi	/* ENOTEMPTY */
				:: else -> skip
				fi
			fi
		:: else -> skip
		fi;
		if
		:: err == 0 ->
			/* lock_two(src, victim): by address */
			if
			:: tgt == 0 -> down_write(src)
			:: tgt != 0 && src < tgt -> down_write(src); down_write(tgt)
			:: else -> down_write(tgt); down_write(src)
			fi;
			/* may_rename_now, then the filesystem's rename: a
			 * victim directory must be empty */
			atomic {
				bool _full = false;
				byte _n = 0;
				do
				:: tgt != 0 && _n < NNAME -> _full = _full || fs[SLOT(tgt, _n)] != 0; _n++
				:: else -> break
				od;
				if
				:: dead[ndir] -> err = 2
				:: _full -> err = 39
				:: else ->
					fs[SLOT(ndir, nn)] = src; fs[SLOT(odir, on)] = 0;
					if :: tgt != 0 -> dead[tgt] = true :: else -> skip fi;
					mid = true
				fi
			}
			if :: err == 0 -> check_tree() :: else -> skip fi;
			/* d_move: one step for every lookup */
			atomic {
				if
				:: err == 0 -> par[src] = ndir; nam[src] = nn; mid = false;
					if :: tgt != 0 -> par[tgt] = 0 :: else -> skip fi
				:: else -> skip
				fi
			}
			if :: tgt != 0 -> up_write(tgt) :: else -> skip fi;
			up_write(src)
		:: else -> skip
		fi
	fi;
	printf("MSC: pid %d rename(dir %d name %d -> dir %d name %d) = %d\n", _pid, odir, on, ndir, nn, err);
	/* unlock_rename */
	up_write(odir);
	if
	:: odir != ndir -> up_write(ndir); rename_mutex = 0
	:: else -> skip
	fi
}

/* Walk components from DOT: w1 (and w2 if not NONE) -> res (0: ENOENT). */
#define NONE 9
inline walk(w1, w2, res)
{
	atomic { d_lookup(DOT, w1, res) };
	if
	:: res != 0 && w2 != NONE -> atomic { byte _r = res; d_lookup(_r, w2, res) }
	:: else -> skip
	fi
}

/*
 * busybox mv SRC DIR/ where SRC is a name in DOT and DIR/ is a path of
 * two components (a/b/): stat DIR, then rename(SRC, DIR/SRC) if it is a
 * directory, else rename(SRC, DIR/) as given (sys_rename: the last
 * component b, in a; the slash demands a directory source, which it is).
 */
inline mv_into(sname, a, b)
{
	byte st, odir, ndir, err;
#ifdef MV_EXPLICIT
	st = 1;
#else
	walk(a, b, st);		/* stat("a/b/") */
	printf("MSC: pid %d stat(%d/%d/) -> %d\n", _pid, a, b, st);
#endif
	odir = DOT;		/* path_parent(SRC) */
	walk(a, (st != 0 -> b : NONE), ndir);	/* path_parent(DEST) */
	if
	:: ndir != 0 -> vfs_rename(odir, sname, ndir, (st != 0 -> sname : b), err)
	:: else -> skip	/* ENOENT from the walk */
	fi
}

/* busybox mv a/b/SRC . : "." is a directory, so rename(a/b/SRC, ./SRC). */
inline mv_back(a, b, sname)
{
	byte odir2, err2;
	walk(a, b, odir2);	/* path_parent(a/b/SRC) */
	if
	:: odir2 != 0 -> vfs_rename(odir2, sname, DOT, sname, err2)
	:: else -> skip
	fi
}

byte done;

proctype job_p()	/* (mv p r/s/; mv r/s/p .) */
{
	byte round = 0;
	do
	:: round < ROUNDS -> mv_into(NP, NR, NS); mv_back(NR, NS, NP); round++
	:: else -> break
	od;
	done++
}

proctype job_r()	/* (mv r p/q/; mv p/q/r .) */
{
	byte round = 0;
	do
	:: round < ROUNDS -> mv_into(NR, NP, NQ); mv_back(NP, NQ, NR); round++
	:: else -> break
	od;
	done++
}

init
{
	atomic {
		fs[SLOT(DOT, NP)] = P; fs[SLOT(P, NQ)] = Q;
		fs[SLOT(DOT, NR)] = R; fs[SLOT(R, NS)] = S;
		par[DOT] = 0; nam[DOT] = NONE;
		par[P] = DOT; nam[P] = NP; par[Q] = P; nam[Q] = NQ;
		par[R] = DOT; nam[R] = NR; par[S] = R; nam[S] = NS;
		run job_p(); run job_r()
	}
	done == 2;
	/* Linux's result: ./p ./p/q ./r ./r/s, every directory where it was. */
	assert(!dead[P] && !dead[Q] && !dead[R] && !dead[S]);
	assert(fs[SLOT(DOT, NP)] == P && fs[SLOT(P, NQ)] == Q &&
	       fs[SLOT(DOT, NR)] == R && fs[SLOT(R, NS)] == S)
}
