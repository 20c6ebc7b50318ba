/*
 * lb_count ROOT REPS: exact instruction counts per system call, for
 * tests/bench_linux.py --count, which boots each kernel under the QEMU
 * plugin tools/conflicts/conflicts.so.  Each call is bracketed by a
 * counted region (kernel/conflict.h: NOPs the plugin recognises, free
 * anywhere else), so the plugin prints "count id=ID cpuN insns=I" with
 * every instruction the vCPU ran from the user program's marker before
 * the syscall instruction to the one after it: the entry, the call, the
 * exit, and any interrupt that came in between (the driver takes the
 * smallest of REPS).  Region ids (below) name the calls:
 *   1 getpid (the bare entry and exit)   2 stat of a 6-component path
 *   3 open+close of a file                4 pread of 4 KiB
 *   5 lstat of a missing name             6 stat of a 2-component path
 *   7 stat of a name never looked up (4 components, the last missing:
 *     the lookup asks the filesystem and leaves a negative dentry, as
 *     each miss of bench-linux's include search does the first time)
 *   8 the same stat again (the negative dentry found)
 *   9 rename of a file to a new name in its directory (ROOT/c/r to
 *     ROOT/c/s, as the rename storm's first step)
 *  10 rename of that file into another directory (ROOT/c/s to
 *     ROOT/c/b/r, the storm's second; an uncounted rename brings it back)
 * Prints "LB w=count reps=REPS bad=B" when done.
 */
#include "lb.h"
#include "kernel/conflict.h"

#define COUNTED(op) (CONFLICT_COUNTED | (op))

int main(int argc, char **argv, char **envp)
{
	(void)envp;
	if (argc != 3)
		return 2;
	long reps = number(argv[2]), bad = 0;
	char deep[128], file[128], missing[128], top[128], mid[128], fresh[160], leaf[48];
	char mv_r[160], mv_s[160], mv_b[160];
	lb_join_path(deep, sizeof(deep), argv[1], "c/b/c/d/f");
	lb_join_path(top, sizeof(top), argv[1], "c");
	lb_join_path(file, sizeof(file), top, "file");
	lb_join_path(missing, sizeof(missing), top, "missing");
	lb_join_path(mid, sizeof(mid), top, "b");	/* ROOT/c/b, made with deep */
	for (char *p = deep + 1; *p; p++)
		if (*p == '/') {
			*p = 0;
			sys2(SYS_mkdir, deep, 0755);
			*p = '/';
		}
	lb_join_path(mv_r, sizeof(mv_r), top, "r");
	lb_join_path(mv_s, sizeof(mv_s), top, "s");
	lb_join_path(mv_b, sizeof(mv_b), mid, "r");
	if (lb_make_file(deep, 10) < 0 || lb_make_file(file, 8192) < 0 || lb_make_file(mv_r, 0) < 0)
		return 3;
	long fd = sys3(SYS_open, file, O_RDONLY, 0);
	static char buf[4096];
	struct lb_stat st;
	for (long r = 0; r < reps; r++) {
		long ret, f;
		conflict_region_begin(COUNTED(1));
		ret = sys0(SYS_getpid);
		conflict_region_end(COUNTED(1));
		bad += ret <= 0;
		conflict_region_begin(COUNTED(2));
		ret = sys2(SYS_stat, deep, &st);
		conflict_region_end(COUNTED(2));
		bad += ret != 0 || st.st_size != 10;
		conflict_region_begin(COUNTED(3));
		f = sys3(SYS_open, file, O_RDONLY, 0);
		ret = sys1(SYS_close, f);
		conflict_region_end(COUNTED(3));
		bad += f < 0 || ret != 0;
		conflict_region_begin(COUNTED(4));
		ret = sys4(SYS_pread64, fd, buf, sizeof(buf), 0);
		conflict_region_end(COUNTED(4));
		bad += ret != (long)sizeof(buf);
		conflict_region_begin(COUNTED(5));
		ret = sys2(SYS_lstat, missing, &st);
		conflict_region_end(COUNTED(5));
		bad += ret != -2;
		conflict_region_begin(COUNTED(6));
		ret = sys2(SYS_stat, top, &st);
		conflict_region_end(COUNTED(6));
		bad += ret != 0;
		lb_leaf(leaf, "h", r, ".h");
		lb_join_path(fresh, sizeof(fresh), mid, leaf);
		conflict_region_begin(COUNTED(7));
		ret = sys2(SYS_stat, fresh, &st);
		conflict_region_end(COUNTED(7));
		bad += ret != -2;
		conflict_region_begin(COUNTED(8));
		ret = sys2(SYS_stat, fresh, &st);
		conflict_region_end(COUNTED(8));
		bad += ret != -2;
		conflict_region_begin(COUNTED(9));
		ret = sys2(SYS_rename, mv_r, mv_s);
		conflict_region_end(COUNTED(9));
		bad += ret != 0;
		conflict_region_begin(COUNTED(10));
		ret = sys2(SYS_rename, mv_s, mv_b);
		conflict_region_end(COUNTED(10));
		bad += ret != 0;
		bad += sys2(SYS_rename, mv_b, mv_r) != 0;
	}
	struct lb_line l;
	lb_begin(&l, "count");
	lb_num(&l, "reps", reps);
	lb_num(&l, "bad", bad);
	lb_emit(&l);
	return 0;
}
