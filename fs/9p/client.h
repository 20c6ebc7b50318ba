/*
 * client.h: a 9P2000.L client over one virtio-9p channel: one function
 * per message, each a whole round trip (sleeps killably for the reply).
 *
 * Errors: the server's Rlerror gives its errno (Linux's numbers, which
 * are this kernel's), negated; a reply that is short, of the wrong type
 * or tag, or with a field out of range gives -EIO; a caller killed while
 * waiting gets -EINTR once the server has forgotten the request (Tflush,
 * client.c), or the reply if the server sent it first; a killed caller
 * sends nothing more but Tclunk, which is not killable.
 *
 * Fids are numbers the client picks (p9_fid_new: a counter, never reused
 * within a session, so no lock and no table: a session would have to
 * make 2^32 fids to wrap).  The server's table holds only fids not yet
 * clunked, and Tversion at mount resets it.
 *
 * Locking: none; concurrent calls are concurrent requests (the channel's
 * tags), so many walks (and, with FS_PAR_DIROPS, many changes of one
 * directory) run at the server at once.  The counters are atomics.
 */
#ifndef FS_9P_CLIENT_H
#define FS_9P_CLIENT_H

#include <stdbool.h>
#include <stdint.h>
#include "fs/9p/proto.h"

struct p9_chan;

struct p9_client {
	struct p9_chan *chan;           /* fixed */
	uint32_t msize;                 /* fixed at mount: Tversion's answer */
	uint32_t uid;                   /* fixed at mount: the user Tattach named */
	uint32_t next_fid;              /* atomic */
	uint64_t walks;                 /* atomic: Twalks of a name sent (tests) */
	uint64_t clunks_async;          /* atomic: Tclunks left unwaited (tests) */
	/* Directory changes (Tlcreate, Tmkdir, Tmknod, Tsymlink, Tlink,
	 * Tunlinkat, Trenameat) sent and not yet answered to their sender,
	 * and the most there ever were at once (tests: parallel changes). */
	uint32_t changes_in_flight;     /* atomic */
	uint32_t changes_in_flight_max; /* atomic; a test may reset it */
};

/* Tests only: called by a directory change's sender with its reply in
 * hand, the change still counted in flight (so a test can hold it there
 * and see whether another change gets sent meanwhile).  NULL but in
 * tests. */
extern void (*p9_change_hook)(struct p9_client *c);

/* Tests only: called by a killed sender just before it sends Tflush for
 * oldtag.  NULL but in tests. */
extern void (*p9_flush_hook)(struct p9_client *c, uint16_t oldtag);

/* What Tgetattr asks for: Linux's P9_STATS_BASIC. */
#define P9_GETATTR_BASIC 0x7FFull

struct p9_attr {
	struct p9_qid qid;
	uint32_t mode, uid, gid;
	uint64_t nlink, rdev, size, blocks;
	int64_t atime, mtime, ctime;    /* ns since the epoch */
};

/* Tsetattr's valid bits (Linux's P9_ATTR_*). */
#define P9_ATTR_MODE      0x001u
#define P9_ATTR_UID       0x002u
#define P9_ATTR_GID       0x004u
#define P9_ATTR_SIZE      0x008u
#define P9_ATTR_ATIME     0x010u
#define P9_ATTR_MTIME     0x020u
#define P9_ATTR_CTIME     0x040u
#define P9_ATTR_ATIME_SET 0x080u
#define P9_ATTR_MTIME_SET 0x100u

#define P9_AT_REMOVEDIR   0x200u     /* Tunlinkat's flag */

static inline uint32_t p9_fid_new(struct p9_client *c)
{
	return __atomic_fetch_add(&c->next_fid, 1, __ATOMIC_RELAXED);
}

/* Say hello: msize is what we offer; the server's (smaller or equal)
 * answer is kept in c->msize.  -EIO if it does not speak 9P2000.L. */
int p9_version(struct p9_client *c, uint32_t msize);
int p9_attach(struct p9_client *c, uint32_t fid, uint32_t uid, struct p9_qid *qid);
/* Walk one name from fid to a new fid newfid (nameless: a clone), and
 * give the qid it reached in *qid (if qid and name).  A name that does
 * not exist: -ENOENT, and newfid is not made. */
int p9_walk(struct p9_client *c, uint32_t fid, uint32_t newfid, const char *name, uint32_t len,
	    struct p9_qid *qid);
/* One name of a Twalk (not NUL-terminated). */
struct p9_wname {
	const char *name;
	uint32_t len;
};
/* Walk n names (at most P9_MAXWELEM) from fid in one round trip: how
 * many were walked (their qids in qids[0..)), or the server's error for
 * the first.  newfid names the last only if all n were walked; a walk
 * that stops on the way makes no fid (9P's rule), so it is not clunked. */
int p9_walk_names(struct p9_client *c, uint32_t fid, uint32_t newfid, const struct p9_wname *names,
		  unsigned n, struct p9_qid *qids);
int p9_getattr(struct p9_client *c, uint32_t fid, struct p9_attr *a);
struct p9_setattr {
	uint32_t valid, mode, uid, gid;
	uint64_t size;
	int64_t atime, mtime;           /* ns, with P9_ATTR_[AM]TIME_SET */
};
int p9_setattr(struct p9_client *c, uint32_t fid, const struct p9_setattr *s);
int p9_lopen(struct p9_client *c, uint32_t fid, uint32_t flags);
/* Create and open name in the directory fid names; fid becomes the open
 * file. */
int p9_lcreate(struct p9_client *c, uint32_t fid, const char *name, uint32_t len, uint32_t flags,
	       uint32_t mode, uint32_t gid, struct p9_qid *qid);
/* Bytes moved (at most n; at most msize - P9_IOHDRSZ per call), or a
 * negative errno. */
long p9_read(struct p9_client *c, uint32_t fid, uint64_t off, void *buf, uint32_t n);
long p9_write(struct p9_client *c, uint32_t fid, uint64_t off, const void *buf, uint32_t n);
/* Entries of the open directory fid from the server's cursor off, one
 * call of fn each until it returns false; *next is the cursor past the
 * last entry fn took.  0 with no call of fn: the end. */
typedef bool (*p9_dirent_fn)(void *arg, const struct p9_qid *qid, uint8_t type, const char *name,
			     uint16_t len);
int p9_readdir(struct p9_client *c, uint32_t fid, uint64_t off, p9_dirent_fn fn, void *arg,
	       uint64_t *next);
int p9_mkdir(struct p9_client *c, uint32_t dfid, const char *name, uint32_t len, uint32_t mode,
	     uint32_t gid, struct p9_qid *qid);
int p9_mknod(struct p9_client *c, uint32_t dfid, const char *name, uint32_t len, uint32_t mode,
	     uint32_t major, uint32_t minor, uint32_t gid, struct p9_qid *qid);
int p9_symlink(struct p9_client *c, uint32_t dfid, const char *name, uint32_t len,
	       const char *target, uint32_t gid, struct p9_qid *qid);
int p9_link(struct p9_client *c, uint32_t dfid, uint32_t fid, const char *name, uint32_t len);
int p9_unlinkat(struct p9_client *c, uint32_t dfid, const char *name, uint32_t len, uint32_t flags);
int p9_renameat(struct p9_client *c, uint32_t odfid, const char *oname, uint32_t olen,
		uint32_t ndfid, const char *nname, uint32_t nlen);
/* The target, NUL-terminated, into buf (size bytes): its length, or
 * -ENAMETOOLONG if it does not fit, -EIO if it holds a NUL. */
long p9_readlink(struct p9_client *c, uint32_t fid, char *buf, uint32_t size);
int p9_fsync(struct p9_client *c, uint32_t fid);
/* Rstatfs's fields, as the server's statfs(2) gives them. */
struct p9_statfs {
	uint32_t type, bsize;
	uint64_t blocks, bfree, bavail, files, ffree, fsid;
	uint32_t namelen;
};
int p9_statfs(struct p9_client *c, uint32_t fid, struct p9_statfs *s);
int p9_clunk(struct p9_client *c, uint32_t fid);
/* Clunk without waiting for the reply (see client.c). */
void p9_clunk_async(struct p9_client *c, uint32_t fid);

#endif
