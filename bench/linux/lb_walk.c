/*
 * lb_walk ROOT N: workload 4 of make bench-linux, a cold find-like walk
 * of the tree under ROOT by N threads: the entries of ROOT are dealt out
 * (thread i takes entries i, i+N, ...), and each thread lstats its
 * entries and walks every directory among them depth first (getdents64,
 * then lstat of each entry, as find does).  Prints
 *     LB w=walk threads=N entries=E dirs=D bytes=B ns=NS bad=X
 * entries: everything below ROOT; bytes: the regular files' sizes added
 * up; bad: calls that failed.  The driver knows the tree and checks E,
 * D and B.
 */
#include "lb.h"

#define PATH_MAX 512

struct tally {
	long entries, dirs, bytes, bad;
};

static const char *root;
static long nthreads;
static struct tally tallies[MAXT];

static void walk(const char *path, struct tally *t);

/* lstat path and count it; a directory is walked. */
static void visit(const char *path, struct tally *t)
{
	struct lb_stat st;
	t->entries++;
	if (sys2(SYS_lstat, path, &st) != 0) {
		t->bad++;
		return;
	}
	if ((st.st_mode & S_IFMT) == S_IFREG)
		t->bytes += st.st_size;
	if ((st.st_mode & S_IFMT) == S_IFDIR) {
		t->dirs++;
		walk(path, t);
	}
}

/* Call fn(path/name, arg) for every entry of path but "." and "..",
 * the entry's index among them in *index; -errno if it cannot be read. */
static long for_each_entry(const char *path, long *index, void (*fn)(const char *, long, void *),
			   void *arg)
{
	char buf[8192], child[PATH_MAX];
	long fd = sys3(SYS_open, path, O_RDONLY | O_DIRECTORY, 0), got;
	if (fd < 0)
		return fd;
	while ((got = sys3(SYS_getdents64, fd, buf, sizeof(buf))) > 0)
		for (long off = 0; off < got;) {
			struct linux_dirent64 *d = (struct linux_dirent64 *)(buf + off);
			off += d->d_reclen;
			if (ustrcmp(d->d_name, ".") == 0 || ustrcmp(d->d_name, "..") == 0)
				continue;
			lb_join_path(child, sizeof(child), path, d->d_name);
			fn(child, (*index)++, arg);
		}
	sys1(SYS_close, fd);
	return got;
}

static void visit_any(const char *path, long index, void *t)
{
	(void)index;
	visit(path, t);
}

static void walk(const char *path, struct tally *t)
{
	long index = 0;
	if (for_each_entry(path, &index, visit_any, t) < 0)
		t->bad++;
}

/* At the top, a thread visits only its share of ROOT's entries. */
static void visit_mine(const char *path, long index, void *arg)
{
	struct tally *t = arg;
	if (index % nthreads == t - tallies)
		visit(path, t);
}

static void worker(long i)
{
	long index = 0;
	lb_wait_go();
	if (for_each_entry(root, &index, visit_mine, &tallies[i]) < 0)
		tallies[i].bad++;
}

int main(int argc, char **argv, char **envp)
{
	(void)envp;
	if (argc != 3)
		return 2;
	root = argv[1];
	nthreads = number(argv[2]);
	if (nthreads < 1 || nthreads > MAXT)
		return 2;
	long t0 = lb_start(nthreads, worker);
	if (t0 < 0)
		return 4;
	long ns = lb_join(nthreads, t0);
	struct tally sum = { 0, 0, 0, 0 };
	for (long i = 0; i < nthreads; i++) {
		sum.entries += tallies[i].entries;
		sum.dirs += tallies[i].dirs;
		sum.bytes += tallies[i].bytes;
		sum.bad += tallies[i].bad;
	}
	struct lb_line l;
	lb_begin(&l, "walk");
	lb_num(&l, "threads", nthreads);
	lb_num(&l, "entries", sum.entries);
	lb_num(&l, "dirs", sum.dirs);
	lb_num(&l, "bytes", sum.bytes);
	lb_num(&l, "ns", ns);
	lb_num(&l, "bad", sum.bad);
	lb_emit(&l);
	return 0;
}
