/*
 * client.c: the 9P2000.L calls (see client.h).  Each call is
 *
 *     call_begin   a request (a tag) and the T-message's header
 *     p9_put...    its fields
 *     call_run     send, sleep for the reply, check its header
 *     p9_get...    the R-message's fields, bounds-checked
 *     call_end     -EIO if any field overran; the tag is free again
 *
 * Killed while waiting for a reply, a sender flushes its request
 * (flush(5)): Tflush naming the old tag, then, not killably, the Rflush.
 * A reply that came before the Rflush is honored as if not flushed (a
 * walk made its fid, a create its file: the caller must know); without
 * one the request never happened, and the caller gets -EINTR.  Either
 * way the old tag is taken until the Rflush is in.  Tclunk is not
 * killable at all: it is what evict and release, which cannot fail, and
 * every error path send, and a clunk flushed away would leave its fid
 * at the server.  A killed thread starts no other request.
 */
#include "fs/9p/client.h"
#include "drivers/virtio_9p.h"
#include "kernel/err.h"
#include "kernel/errno.h"
#include "kernel/kprintf.h"
#include "kernel/string.h"
#include "kernel/thread.h"

struct call {
	struct p9_client *c;
	struct p9_req *req;
	bool killable;                  /* all but Tclunk */
	struct p9_msg tx, rx;
};

void (*p9_flush_hook)(struct p9_client *c, uint16_t oldtag);

void (*p9_change_hook)(struct p9_client *c);

static bool is_change(uint8_t type)
{
	return type == P9_TLCREATE || type == P9_TMKDIR || type == P9_TMKNOD ||
	       type == P9_TSYMLINK || type == P9_TLINK || type == P9_TUNLINKAT ||
	       type == P9_TRENAMEAT;
}

/* A directory change leaves for the server: counted in flight, and the
 * most at once kept (a CAS loop: the maximum only grows). */
static void change_sent(struct p9_client *c)
{
	uint32_t now = __atomic_add_fetch(&c->changes_in_flight, 1, __ATOMIC_RELAXED);
	uint32_t most = __atomic_load_n(&c->changes_in_flight_max, __ATOMIC_RELAXED);
	while (now > most && !__atomic_compare_exchange_n(&c->changes_in_flight_max, &most, now,
							  false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

/* Its sender has the answer (or gave up waiting for it). */
static void change_answered(struct p9_client *c)
{
	void (*hook)(struct p9_client *) = __atomic_load_n(&p9_change_hook, __ATOMIC_ACQUIRE);
	if (hook)
		hook(c);
	__atomic_fetch_sub(&c->changes_in_flight, 1, __ATOMIC_RELAXED);
}

static int call_begin(struct p9_client *c, struct call *k, uint8_t type)
{
	k->c = c;
	k->killable = type != P9_TCLUNK;
	if (k->killable && fatal_signal_pending())
		return -EINTR;
	k->req = p9_req_get(c->chan, k->killable);
	if (IS_ERR(k->req))
		return (int)PTR_ERR(k->req);
	k->tx = (struct p9_msg){ k->req->tx, c->msize, 0, 0 };
	p9_put32(&k->tx, 0);	/* the size, filled in by call_run */
	p9_put8(&k->tx, type);
	p9_put16(&k->tx, type == P9_TVERSION ? P9_NOTAG : k->req->tag);
	return 0;
}

/* r's sender was killed while r was at the server: flush it.  0 if its
 * reply came before the Rflush (r DONE, the caller's, to be honored), or
 * -EINTR with r no longer the caller's (the server dropped it). */
static int flush(struct p9_client *c, struct p9_req *r)
{
	if (!p9_req_flushing(r))
		return 0;	/* the reply beat the kill */
	struct p9_req *f = p9_req_get_flush(c->chan, r);
	if (!f)
		return 0;	/* it came while we waited for a tag */
	struct p9_msg m = { f->tx, P9_HDRSZ + 2, 0, 0 };
	p9_put32(&m, P9_HDRSZ + 2);
	p9_put8(&m, P9_TFLUSH);
	p9_put16(&m, f->tag);
	p9_put16(&m, r->tag);
	f->tx_len = m.pos;
	__atomic_fetch_add(&c->chan->flushes, 1, __ATOMIC_RELAXED);
	void (*hook)(struct p9_client *, uint16_t) = __atomic_load_n(&p9_flush_hook, __ATOMIC_ACQUIRE);
	if (hook)
		hook(c, r->tag);
	/* Rflush is never an Rlerror (flush(5)); whatever came, the server
	 * is done with r's tag. */
	if (p9_req_send(f) == 0)
		p9_req_wait(f, false);
	p9_req_put(f);
	/* The server answers r, if at all, before the Rflush. */
	if (p9_req_abandon(r))
		return -EINTR;	/* its buffers, when the device gives them back, free it */
	if (r->rx_len >= P9_HDRSZ)
		return 0;
	p9_req_put(r);	/* an empty reply: QEMU's word for "cancelled" */
	return -EINTR;
}

/* Send k's message and check the reply's header; 0 with k->rx at the
 * first field, or a negative errno with the request already given back
 * (or left to the interrupt: flush). */
static int call_run(struct call *k, uint8_t rtype)
{
	struct p9_req *r = k->req;
	int err = k->tx.err;
	if (!err) {
		uint32_t size = k->tx.pos;
		k->tx.pos = 0;
		p9_put32(&k->tx, size);
		r->tx_len = size;
		bool change = is_change((uint8_t)r->tx[4]);
		if (change)
			change_sent(k->c);
		err = p9_req_send(r);
		if (!err && p9_req_wait(r, k->killable))
			err = flush(k->c, r);
		if (change)
			change_answered(k->c);
		if (err == -EINTR)
			return err;	/* r is not ours any more */
	}
	if (!err) {
		k->rx = (struct p9_msg){ r->rx, r->rx_len, 0, 0 };
		uint16_t tag = (uint8_t)r->tx[4] == P9_TVERSION ? P9_NOTAG : r->tag;
		err = p9_parse_header(&k->rx, tag, rtype);
	}
	if (err)
		p9_req_put(r);
	return err;
}

static int call_end(struct call *k)
{
	int err = k->rx.err;
	p9_req_put(k->req);
	return err;
}

/* A call whose reply carries nothing but its header. */
static int call_simple(struct call *k, uint8_t rtype)
{
	int err = call_run(k, rtype);
	return err ? err : call_end(k);
}

/* A call whose reply is one qid. */
static int call_qid(struct call *k, uint8_t rtype, struct p9_qid *qid)
{
	int err = call_run(k, rtype);
	if (err)
		return err;
	p9_get_qid(&k->rx, qid);
	return call_end(k);
}

int p9_version(struct p9_client *c, uint32_t msize)
{
	static const char v[] = "9P2000.L";
	struct call k;
	c->msize = msize;
	int err = call_begin(c, &k, P9_TVERSION);
	if (err)
		return err;
	p9_put32(&k.tx, msize);
	p9_put_str(&k.tx, v, sizeof(v) - 1);
	if ((err = call_run(&k, P9_TVERSION + 1)))
		return err;
	uint32_t got = p9_get32(&k.rx);
	uint16_t len;
	const char *s = p9_get_str(&k.rx, &len);
	bool ok = s && len == sizeof(v) - 1 && memcmp(s, v, len) == 0;
	if ((err = call_end(&k)))
		return err;
	if (!ok || got < 4096 || got > msize) {
		kprintf("9p: the server does not speak 9P2000.L with msize 4096..%u\n", msize);
		return -EIO;
	}
	c->msize = got;
	return 0;
}

int p9_attach(struct p9_client *c, uint32_t fid, uint32_t uid, struct p9_qid *qid)
{
	struct call k;
	int err = call_begin(c, &k, P9_TATTACH);
	if (err)
		return err;
	p9_put32(&k.tx, fid);
	p9_put32(&k.tx, P9_NOFID);
	p9_put_str(&k.tx, "", 0);	/* uname: n_uname says who */
	p9_put_str(&k.tx, "", 0);	/* aname: the export's root */
	p9_put32(&k.tx, uid);
	return call_qid(&k, P9_TATTACH + 1, qid);
}

int p9_walk_names(struct p9_client *c, uint32_t fid, uint32_t newfid, const struct p9_wname *names,
		  unsigned n, struct p9_qid *qids)
{
	if (n > P9_MAXWELEM)
		return -EINVAL;
	struct call k;
	int err = call_begin(c, &k, P9_TWALK);
	if (err)
		return err;
	p9_put32(&k.tx, fid);
	p9_put32(&k.tx, newfid);
	p9_put16(&k.tx, (uint16_t)n);
	for (unsigned i = 0; i < n; i++)
		p9_put_str(&k.tx, names[i].name, names[i].len);
	if (n)
		__atomic_fetch_add(&c->walks, 1, __ATOMIC_RELAXED);
	if ((err = call_run(&k, P9_TWALK + 1)))
		return err;
	uint16_t nwqid = p9_get16(&k.rx);
	for (unsigned i = 0; i < nwqid && i < n; i++)
		p9_get_qid(&k.rx, &qids[i]);
	if ((err = call_end(&k)))
		return err;
	if (nwqid > n)
		return -EIO;
	if (nwqid == 0 && n > 0)
		return -ENOENT;	/* the server owes an Rlerror here: take it as a miss */
	return nwqid;
}

int p9_walk(struct p9_client *c, uint32_t fid, uint32_t newfid, const char *name, uint32_t len,
	    struct p9_qid *qid)
{
	struct p9_wname q = { name, len };
	struct p9_qid got;
	int n = p9_walk_names(c, fid, newfid, &q, name ? 1 : 0, &got);
	if (n < 0)
		return n;
	if (qid && name)
		*qid = got;
	return 0;
}

int p9_getattr(struct p9_client *c, uint32_t fid, struct p9_attr *a)
{
	struct call k;
	int err = call_begin(c, &k, P9_TGETATTR);
	if (err)
		return err;
	p9_put32(&k.tx, fid);
	p9_put64(&k.tx, P9_GETATTR_BASIC);
	if ((err = call_run(&k, P9_TGETATTR + 1)))
		return err;
	struct p9_msg *m = &k.rx;
	uint64_t valid = p9_get64(m);
	p9_get_qid(m, &a->qid);
	a->mode = p9_get32(m);
	a->uid = p9_get32(m);
	a->gid = p9_get32(m);
	a->nlink = p9_get64(m);
	a->rdev = p9_get64(m);
	a->size = p9_get64(m);
	(void)p9_get64(m);	/* blksize */
	a->blocks = p9_get64(m);
	int64_t *t[3] = { &a->atime, &a->mtime, &a->ctime };
	for (unsigned i = 0; i < 3; i++) {
		uint64_t sec = p9_get64(m), nsec = p9_get64(m);
		*t[i] = (int64_t)(sec * 1000000000ull + (nsec < 1000000000ull ? nsec : 0));
	}
	if ((err = call_end(&k)))
		return err;
	/* What this client cannot do without: type and mode, and a sane size. */
	if ((valid & 1) == 0 || (a->size >> 62) || a->nlink > 0xFFFFFFFFu)
		return -EIO;
	return 0;
}

int p9_setattr(struct p9_client *c, uint32_t fid, const struct p9_setattr *s)
{
	struct call k;
	int err = call_begin(c, &k, P9_TSETATTR);
	if (err)
		return err;
	p9_put32(&k.tx, fid);
	p9_put32(&k.tx, s->valid);
	p9_put32(&k.tx, s->mode);
	p9_put32(&k.tx, s->uid);
	p9_put32(&k.tx, s->gid);
	p9_put64(&k.tx, s->size);
	p9_put64(&k.tx, (uint64_t)(s->atime / 1000000000));
	p9_put64(&k.tx, (uint64_t)(s->atime % 1000000000));
	p9_put64(&k.tx, (uint64_t)(s->mtime / 1000000000));
	p9_put64(&k.tx, (uint64_t)(s->mtime % 1000000000));
	return call_simple(&k, P9_TSETATTR + 1);
}

int p9_lopen(struct p9_client *c, uint32_t fid, uint32_t flags)
{
	struct call k;
	int err = call_begin(c, &k, P9_TLOPEN);
	if (err)
		return err;
	p9_put32(&k.tx, fid);
	p9_put32(&k.tx, flags);
	return call_simple(&k, P9_TLOPEN + 1);	/* qid and iounit: not needed */
}

int p9_lcreate(struct p9_client *c, uint32_t fid, const char *name, uint32_t len, uint32_t flags,
	       uint32_t mode, uint32_t gid, struct p9_qid *qid)
{
	struct call k;
	int err = call_begin(c, &k, P9_TLCREATE);
	if (err)
		return err;
	p9_put32(&k.tx, fid);
	p9_put_str(&k.tx, name, len);
	p9_put32(&k.tx, flags);
	p9_put32(&k.tx, mode);
	p9_put32(&k.tx, gid);
	return call_qid(&k, P9_TLCREATE + 1, qid);
}

static uint32_t io_max(struct p9_client *c, uint32_t n)
{
	uint32_t most = c->msize - P9_IOHDRSZ;
	return n < most ? n : most;
}

long p9_read(struct p9_client *c, uint32_t fid, uint64_t off, void *buf, uint32_t n)
{
	struct call k;
	n = io_max(c, n);
	int err = call_begin(c, &k, P9_TREAD);
	if (err)
		return err;
	p9_put32(&k.tx, fid);
	p9_put64(&k.tx, off);
	p9_put32(&k.tx, n);
	if ((err = call_run(&k, P9_TREAD + 1)))
		return err;
	uint32_t got = p9_get32(&k.rx);
	const void *data = got <= n ? p9_get_data(&k.rx, got) : NULL;
	if (data)
		memcpy(buf, data, got);
	err = call_end(&k);
	return err ? err : !data ? -EIO : (long)got;
}

long p9_write(struct p9_client *c, uint32_t fid, uint64_t off, const void *buf, uint32_t n)
{
	struct call k;
	n = io_max(c, n);
	int err = call_begin(c, &k, P9_TWRITE);
	if (err)
		return err;
	p9_put32(&k.tx, fid);
	p9_put64(&k.tx, off);
	p9_put32(&k.tx, n);
	p9_put_data(&k.tx, buf, n);
	if ((err = call_run(&k, P9_TWRITE + 1)))
		return err;
	uint32_t done = p9_get32(&k.rx);
	err = call_end(&k);
	return err ? err : done > n ? -EIO : (long)done;
}

int p9_readdir(struct p9_client *c, uint32_t fid, uint64_t off, p9_dirent_fn fn, void *arg,
	       uint64_t *next)
{
	struct call k;
	*next = off;
	int err = call_begin(c, &k, P9_TREADDIR);
	if (err)
		return err;
	p9_put32(&k.tx, fid);
	p9_put64(&k.tx, off);
	p9_put32(&k.tx, c->msize - P9_IOHDRSZ);
	if ((err = call_run(&k, P9_TREADDIR + 1)))
		return err;
	uint32_t count = p9_get32(&k.rx);
	const char *data = p9_get_data(&k.rx, count);
	/* The entries, parsed within the count the server gave. */
	struct p9_msg d = { (char *)data, data ? count : 0, 0, 0 };
	while (data && d.pos < d.size) {
		struct p9_qid q;
		uint64_t pos;
		uint8_t type;
		const char *name;
		uint16_t len;
		if (p9_parse_dirent(&d, &q, &pos, &type, &name, &len) || !fn(arg, &q, type, name, len))
			break;
		*next = pos;
	}
	err = call_end(&k);
	return err ? err : d.err;
}

int p9_mkdir(struct p9_client *c, uint32_t dfid, const char *name, uint32_t len, uint32_t mode,
	     uint32_t gid, struct p9_qid *qid)
{
	struct call k;
	int err = call_begin(c, &k, P9_TMKDIR);
	if (err)
		return err;
	p9_put32(&k.tx, dfid);
	p9_put_str(&k.tx, name, len);
	p9_put32(&k.tx, mode);
	p9_put32(&k.tx, gid);
	return call_qid(&k, P9_TMKDIR + 1, qid);
}

int p9_mknod(struct p9_client *c, uint32_t dfid, const char *name, uint32_t len, uint32_t mode,
	     uint32_t major, uint32_t minor, uint32_t gid, struct p9_qid *qid)
{
	struct call k;
	int err = call_begin(c, &k, P9_TMKNOD);
	if (err)
		return err;
	p9_put32(&k.tx, dfid);
	p9_put_str(&k.tx, name, len);
	p9_put32(&k.tx, mode);
	p9_put32(&k.tx, major);
	p9_put32(&k.tx, minor);
	p9_put32(&k.tx, gid);
	return call_qid(&k, P9_TMKNOD + 1, qid);
}

int p9_symlink(struct p9_client *c, uint32_t dfid, const char *name, uint32_t len,
	       const char *target, uint32_t gid, struct p9_qid *qid)
{
	struct call k;
	int err = call_begin(c, &k, P9_TSYMLINK);
	if (err)
		return err;
	p9_put32(&k.tx, dfid);
	p9_put_str(&k.tx, name, len);
	p9_put_str(&k.tx, target, (uint32_t)strlen(target));
	p9_put32(&k.tx, gid);
	return call_qid(&k, P9_TSYMLINK + 1, qid);
}

int p9_link(struct p9_client *c, uint32_t dfid, uint32_t fid, const char *name, uint32_t len)
{
	struct call k;
	int err = call_begin(c, &k, P9_TLINK);
	if (err)
		return err;
	p9_put32(&k.tx, dfid);
	p9_put32(&k.tx, fid);
	p9_put_str(&k.tx, name, len);
	return call_simple(&k, P9_TLINK + 1);
}

int p9_unlinkat(struct p9_client *c, uint32_t dfid, const char *name, uint32_t len, uint32_t flags)
{
	struct call k;
	int err = call_begin(c, &k, P9_TUNLINKAT);
	if (err)
		return err;
	p9_put32(&k.tx, dfid);
	p9_put_str(&k.tx, name, len);
	p9_put32(&k.tx, flags);
	return call_simple(&k, P9_TUNLINKAT + 1);
}

int p9_renameat(struct p9_client *c, uint32_t odfid, const char *oname, uint32_t olen,
		uint32_t ndfid, const char *nname, uint32_t nlen)
{
	struct call k;
	int err = call_begin(c, &k, P9_TRENAMEAT);
	if (err)
		return err;
	p9_put32(&k.tx, odfid);
	p9_put_str(&k.tx, oname, olen);
	p9_put32(&k.tx, ndfid);
	p9_put_str(&k.tx, nname, nlen);
	return call_simple(&k, P9_TRENAMEAT + 1);
}

long p9_readlink(struct p9_client *c, uint32_t fid, char *buf, uint32_t size)
{
	struct call k;
	int err = call_begin(c, &k, P9_TREADLINK);
	if (err)
		return err;
	p9_put32(&k.tx, fid);
	if ((err = call_run(&k, P9_TREADLINK + 1)))
		return err;
	uint16_t len;
	const char *s = p9_get_str(&k.rx, &len);
	long ret = !s ? -EIO : len >= size ? -ENAMETOOLONG : memchr(s, 0, len) ? -EIO : len;
	if (ret >= 0) {
		memcpy(buf, s, len);
		buf[len] = '\0';
	}
	err = call_end(&k);
	return err ? err : ret;
}

int p9_fsync(struct p9_client *c, uint32_t fid)
{
	struct call k;
	int err = call_begin(c, &k, P9_TFSYNC);
	if (err)
		return err;
	p9_put32(&k.tx, fid);
	p9_put32(&k.tx, 0);	/* datasync: no, everything */
	return call_simple(&k, P9_TFSYNC + 1);
}

int p9_statfs(struct p9_client *c, uint32_t fid, struct p9_statfs *s)
{
	struct call k;
	int err = call_begin(c, &k, P9_TSTATFS);
	if (err)
		return err;
	p9_put32(&k.tx, fid);
	if ((err = call_run(&k, P9_TSTATFS + 1)))
		return err;
	struct p9_msg *m = &k.rx;
	s->type = p9_get32(m);
	s->bsize = p9_get32(m);
	s->blocks = p9_get64(m);
	s->bfree = p9_get64(m);
	s->bavail = p9_get64(m);
	s->files = p9_get64(m);
	s->ffree = p9_get64(m);
	s->fsid = p9_get64(m);
	s->namelen = p9_get32(m);
	return call_end(&k);
}

int p9_clunk(struct p9_client *c, uint32_t fid)
{
	struct call k;
	int err = call_begin(c, &k, P9_TCLUNK);
	if (err)
		return err;
	p9_put32(&k.tx, fid);
	return call_simple(&k, P9_TCLUNK + 1);
}

/* Tclunk, unwaited: the server forgets the fid whether it answers
 * Rclunk or Rlerror (clunk(5)), and fids are never reused, so no later
 * request can meet this one.  The round trip overlaps the caller's next
 * ones; unmount waits for all of them (p9_chan_quiesce). */
void p9_clunk_async(struct p9_client *c, uint32_t fid)
{
	struct call k;
	if (call_begin(c, &k, P9_TCLUNK))
		return;	/* not killable: cannot fail */
	p9_put32(&k.tx, fid);
	uint32_t size = k.tx.pos;
	k.tx.pos = 0;
	p9_put32(&k.tx, size);
	k.req->tx_len = size;
	if (k.tx.err || p9_req_send(k.req)) {
		p9_req_put(k.req);
		return;
	}
	__atomic_fetch_add(&c->clunks_async, 1, __ATOMIC_RELAXED);
	p9_req_detach(k.req);
}
