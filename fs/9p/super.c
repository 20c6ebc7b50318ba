/*
 * super.c: mounting a 9p export (mount -t 9p TAG DIR [-o OPTIONS]).
 *
 * The source is the channel's mount tag (-ENOENT if no channel has it,
 * as Linux's v9fs says; -EBUSY if one is mounted already: one session
 * per channel).  Options, comma-separated: cache=loose (the default:
 * the dcache trusted) or cache=none (every path step revalidated with the
 * server: dentry.c), msize=N (4096..65536: the most a message may
 * be; the server may answer less), trans=virtio (the only transport).
 * Mounting says Tversion (which resets the server's session: every fid
 * of an earlier mount is gone), attaches the root fid, and reads the
 * root's attributes.  Unmounting evicts every inode, which clunks their
 * fids, the root's among them.
 */
#include "fs/9p/v9fs.h"
#include "drivers/virtio_9p.h"
#include "fs/dcache.h"
#include "kernel/cred.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/string.h"

#define V9FS_DEFAULT_MSIZE P9_CHAN_BUFSIZE

#define V9FS_MAGIC 0x01021997	/* Linux's, what statfs(2) says of a 9p mount */

/* The server's statfs(2) of the folder, asked through d's fid (Tstatfs):
 * its counts, its block size and name length; the type is 9p's, as on
 * Linux (the host filesystem's own is not the guest's). */
static int v9fs_statfs(struct dentry *d, struct kstatfs *buf)
{
	struct p9_statfs s;
	int64_t fid = v9fs_dentry_fid(d);
	int err = fid < 0 ? (int)fid : p9_statfs(V9FS_CLNT(d->d_inode), (uint32_t)fid, &s);
	if (err)
		return err;
	*buf = (struct kstatfs){
		.type = V9FS_MAGIC, .bsize = s.bsize, .frsize = s.bsize, .blocks = s.blocks,
		.bfree = s.bfree, .bavail = s.bavail, .files = s.files, .ffree = s.ffree,
		.fsid = s.fsid, .namelen = s.namelen,
	};
	return 0;
}

static const struct super_operations v9fs_super_ops = {
	.evict = v9fs_evict,
	.statfs = v9fs_statfs,
};

static struct file_system_type v9fs_type;

struct v9fs_options {
	uint32_t msize;
	bool cache_none;
};

/* One option of length n at opt: 0, or -EINVAL with a message. */
static int parse_option(const char *opt, size_t n, struct v9fs_options *o)
{
	char buf[32];
	if (n == 0)
		return 0;
	if (n >= sizeof(buf))
		goto bad;
	memcpy(buf, opt, n);
	buf[n] = '\0';
	if (strcmp(buf, "cache=loose") == 0 || strcmp(buf, "cache=none") == 0) {
		o->cache_none = buf[6] == 'n';
		return 0;
	}
	if (strcmp(buf, "trans=virtio") == 0)
		return 0;
	if (strncmp(buf, "msize=", 6) == 0) {
		uint32_t v = 0;
		const char *p = buf + 6;
		for (; *p >= '0' && *p <= '9' && v < 1000000; p++)
			v = v * 10 + (uint32_t)(*p - '0');
		if (*p || p == buf + 6 || v < 4096 || v > P9_CHAN_BUFSIZE)
			goto bad;
		o->msize = v;
		return 0;
	}
bad:
	kprintf("9p: option \"%.*s\" not understood (cache=loose|none, msize=4096..%u, trans=virtio)\n",
		(int)n, opt, P9_CHAN_BUFSIZE);
	return -EINVAL;
}

static int parse_options(const char *options, struct v9fs_options *o)
{
	*o = (struct v9fs_options){ V9FS_DEFAULT_MSIZE, false };
	for (const char *p = options; *p;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		int err = parse_option(p, n, o);
		if (err)
			return err;
		p += n + (comma ? 1 : 0);
	}
	return 0;
}

/* Say hello and attach: the root's inode, or ERR_PTR. */
static struct inode *start_session(struct super_block *sb, struct v9fs_session *s, uint32_t msize)
{
	struct p9_client *c = &s->clnt;
	int err = p9_version(c, msize);
	if (err)
		return ERR_PTR(err);
	c->next_fid = 1;	/* Tversion forgot every fid; 0 is never one (file.c) */
	uint32_t fid = p9_fid_new(c);
	struct p9_qid qid;
	c->uid = current_cred()->uid;
	if ((err = p9_attach(c, fid, c->uid, &qid)))
		return ERR_PTR(err);
	struct p9_attr a;
	if ((err = p9_getattr(c, fid, &a))) {
		p9_clunk(c, fid);
		return ERR_PTR(err);
	}
	if (!S_ISDIR(a.mode)) {
		p9_clunk(c, fid);
		return ERR_PTR(-ENOTDIR);
	}
	s->root_fid = fid;
	return v9fs_iget(sb, fid, &a);
}

static struct super_block *v9fs_mount(const char *source, unsigned flags, const char *options)
{
	struct v9fs_options o;
	int err = parse_options(options, &o);
	if (err)
		return ERR_PTR(err);
	struct p9_chan *ch = p9_chan_find(source);
	if (!ch)
		return ERR_PTR(-ENOENT);	/* no such tag: v9fs's answer */
	if ((err = p9_chan_claim(ch)))
		return ERR_PTR(err);
	struct super_block *sb = kzalloc(sizeof(*sb));
	struct v9fs_session *s = kzalloc(sizeof(*s));
	struct inode *root = ERR_PTR(-ENOMEM);
	if (sb && s) {
		sb_init(sb, &v9fs_type, &v9fs_super_ops);
		sb->s_fs_info = s;
		sb->s_flags = flags & MS_RDONLY ? SB_RDONLY : 0;
		s->clnt.chan = ch;
		s->cache_none = o.cache_none;
		/* Before the root's dentry: every dentry below it takes its
		 * DCACHE_OP_ flags from s_d_op when it is made. */
		sb->s_d_op = o.cache_none ? &v9fs_dentry_ops_none : NULL;
		root = start_session(sb, s, o.msize);
	}
	if (!IS_ERR(root) && !(sb->s_root = d_make_root(sb, root))) {
		iput(root);	/* its evict clunks the root fid */
		root = ERR_PTR(-ENOMEM);
	}
	if (IS_ERR(root)) {
		if (sb && s)
			icache_evict_sb(sb);
		kfree(s);
		kfree(sb);
		p9_chan_release(ch);
		return (void *)root;
	}
	return sb;
}

static void v9fs_kill_sb(struct super_block *sb)
{
	struct v9fs_session *s = V9FS_SB(sb);
	d_prune_sb(sb);
	dput(sb->s_root);
	icache_evict_sb(sb);	/* every inode's fids clunked, the root's too */
	p9_chan_quiesce(s->clnt.chan);	/* and the unwaited clunks answered */
	p9_chan_release(s->clnt.chan);
	kfree(s);
	kfree(sb);
}

static struct file_system_type v9fs_type = {
	.name = "9p",
	.mount_source = v9fs_mount,
	.kill_sb = v9fs_kill_sb,
	.fs_flags = FS_PAR_DIROPS,	/* namei.c's head: changes keep nothing of their own */
};

int v9fs_register(void)
{
	return register_filesystem(&v9fs_type);
}
