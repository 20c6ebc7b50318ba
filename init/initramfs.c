/*
 * initramfs.c: unpack cpio "newc" archives through the system calls.
 *
 * A newc entry is a 110-byte header of ASCII hex fields, the name
 * (namesize bytes with its NUL), padding to a multiple of 4, the data
 * (filesize bytes: a file's contents or a symlink's target) and padding
 * to 4 again.  Magic "070701" is newc, "070702" the crc variant, whose
 * check field is the sum of the data's bytes.  The entry named
 * "TRAILER!!!" ends an archive; another may follow after zero padding.
 *
 * FIFOs, device nodes (with the header's rdevmajor and rdevminor) and
 * sockets are made with mknod, as Linux's initramfs makes them; the
 * device number must fit mknod's 32 bits (else mknod's EINVAL is the
 * entry's problem), and data on one is ignored with a warning.
 *
 * Hard links: cpio writes every name of a multiply-linked inode as its own
 * entry with the same (devmajor, devminor, ino), and the data only with
 * the last of them (the others have filesize 0).  The first name is made
 * as a file and remembered; later ones are linked to it, and data, when
 * it comes, is written through the new name into the shared inode.
 *
 * Links are remembered per archive: a trailer forgets them, since the
 * next archive numbers its inodes afresh.
 *
 * Directory mtimes are set at the very end, since making entries in a
 * directory changes its mtime, oldest entry first so that a directory
 * named again by a later archive gets the later mtime.
 *
 * Everything goes through fs/syscalls.h, so the unpacker holds no VFS
 * locks of its own; its state (struct unpack) is private to one call.
 */
#include "init/initramfs.h"
#include "fs/fs.h"
#include "fs/syscalls.h"
#include "kernel/bootinfo.h"
#include "kernel/errno.h"
#include "kernel/kmalloc.h"
#include "kernel/kprintf.h"
#include "kernel/layout.h"
#include "kernel/list.h"
#include "kernel/string.h"
#include <stdarg.h>

#define HDR_SIZE 110
#define NFIELDS  13

/* The header's fields, in the order they appear after the magic. */
struct cpio_hdr {
	uint32_t ino, mode, uid, gid, nlink, mtime, filesize;
	uint32_t devmajor, devminor, rdevmajor, rdevminor, namesize, check;
};

static const char *const field_names[NFIELDS] = {
	"ino", "mode", "uid", "gid", "nlink", "mtime", "filesize",
	"devmajor", "devminor", "rdevmajor", "rdevminor", "namesize", "check",
};

/* A name of a multiply-linked inode seen first (later names link to it),
 * and the inode it was made as: a later entry may have replaced that name
 * with another file or a symlink, and a link must not follow it there. */
struct link_seen {
	struct list_head node;
	uint32_t devmajor, devminor, ino;
	uint64_t made_dev, made_ino;
	char path[];
};

/* A directory whose mtime is set when everything else is done. */
struct dir_time {
	struct list_head node;
	int64_t mtime_ns;
	char path[];
};

struct unpack {
	const uint8_t *buf;
	size_t len;
	const char *dest;
	struct initramfs_report *rep;
	int first_err;            /* the first problem's errno (0: none) */
	struct list_head links;   /* struct link_seen */
	struct list_head dirs;    /* struct dir_time */
	char *path;               /* PATH_MAX: the entry's full path */
	char *name;               /* PATH_MAX: the entry's name, cleaned */
};

/* A name as messages show it: at most 60 bytes ("..." after), and
 * unprintable bytes as '?', since names come from the archive. */
static void printable(char dst[64], const char *name, size_t nlen)
{
	size_t n = nlen < 60 ? nlen : 60, i;
	for (i = 0; i < n; i++)
		dst[i] = name[i] >= 0x20 && name[i] < 0x7f ? name[i] : '?';
	strlcpy(dst + i, nlen > n ? "..." : "", 4);
}

/* Print "initramfs: offset 0x..: entry 'name': why", unless quiet. */
static void say(struct unpack *u, size_t off, const char *name, size_t nlen, const char *fmt,
		va_list ap)
{
	if (u->rep->quiet)
		return;
	char shown[64], why[160];
	printable(shown, name, nlen);
	vsnprintf(why, sizeof(why), fmt, ap);
	if (name)
		kprintf("initramfs: offset 0x%zx: entry '%s': %s\n", off, shown, why);
	else
		kprintf("initramfs: offset 0x%zx: %s\n", off, why);
}

/* A problem: counted, printed, and remembered as the result. */
__attribute__((format(printf, 6, 7)))
static void problem(struct unpack *u, int err, size_t off, const char *name, size_t nlen,
		    const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say(u, off, name, nlen, fmt, ap);
	va_end(ap);
	u->rep->errors++;
	if (!u->first_err)
		u->first_err = err < 0 ? err : -EINVAL;
}

__attribute__((format(printf, 5, 6)))
static void warning(struct unpack *u, size_t off, const char *name, size_t nlen,
		    const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say(u, off, name, nlen, fmt, ap);
	va_end(ap);
	u->rep->warnings++;
}

/* ---- the header ------------------------------------------------------ */

/* Read the header at p (HDR_SIZE bytes there).  Returns 0, or -EINVAL
 * with *why saying what is wrong. */
static int parse_header(const uint8_t *p, struct cpio_hdr *h, bool *crc, const char **why)
{
	if (memcmp(p, "07070", 5) != 0 || (p[5] != '1' && p[5] != '2')) {
		*why = "bad magic (not a cpio newc or crc archive)";
		return -EINVAL;
	}
	*crc = p[5] == '2';
	uint32_t *fields = &h->ino;
	for (int f = 0; f < NFIELDS; f++) {
		uint32_t v = 0;
		for (int i = 0; i < 8; i++) {
			int d = hex_digit_value(p[6 + 8 * f + i]);
			if (d < 0) {
				*why = field_names[f];
				return -EINVAL;
			}
			v = v << 4 | (uint32_t)d;
		}
		fields[f] = v;
	}
	return 0;
}

/* ---- names ------------------------------------------------------------ */

/*
 * Clean the entry's name into u->name: no leading '/' (warned about), no
 * "." or empty components; "" for the directory itself.  Returns 0 or
 * -EINVAL for a ".." component (reported).
 */
static int clean_name(struct unpack *u, size_t off, const char *raw, size_t rlen)
{
	size_t at = 0, i = 0;
	if (raw[0] == '/')
		warning(u, off, raw, rlen, "absolute name: the leading '/' is removed");
	while (i < rlen) {
		while (i < rlen && raw[i] == '/')
			i++;
		size_t start = i;
		while (i < rlen && raw[i] != '/')
			i++;
		size_t clen = i - start;
		if (clen == 0 || (clen == 1 && raw[start] == '.'))
			continue;
		if (clen == 2 && raw[start] == '.' && raw[start + 1] == '.') {
			problem(u, -EINVAL, off, raw, rlen, "name has a '..' component; refused");
			return -EINVAL;
		}
		if (clen > NAME_MAX) {
			problem(u, -ENAMETOOLONG, off, raw, rlen, "a component is longer than %d bytes",
				NAME_MAX);
			return -ENAMETOOLONG;
		}
		if (at)
			u->name[at++] = '/';
		memcpy(u->name + at, raw + start, clen);
		at += clen;
	}
	u->name[at] = '\0';
	return 0;
}

/* u->path = dest + "/" + the first nlen bytes of u->name. */
static int make_path(struct unpack *u, size_t nlen)
{
	size_t dlen = strlen(u->dest);
	bool slash = dlen && u->dest[dlen - 1] == '/';
	if (dlen + 1 + nlen >= PATH_MAX)
		return -ENAMETOOLONG;
	memcpy(u->path, u->dest, dlen);
	if (nlen && !slash)
		u->path[dlen++] = '/';
	memcpy(u->path + dlen, u->name, nlen);
	u->path[dlen + nlen] = '\0';
	return 0;
}

/* Every directory between dest and the entry must be a directory (not a
 * symlink to one, which could lead outside dest).  Leaves u->path set to
 * the entry's own path. */
static int check_parents(struct unpack *u, size_t off)
{
	size_t nlen = strlen(u->name);
	for (size_t i = 0; i < nlen; i++) {
		if (u->name[i] != '/')
			continue;
		struct kstat st;
		int r = make_path(u, i);
		if (r < 0)
			break;	/* too long: reported below, for the whole path */
		r = sys_lstat(u->path, &st);
		if (r == 0 && !S_ISDIR(st.mode))
			r = -ENOTDIR;
		if (r < 0) {
			char parent[64];
			printable(parent, u->name, i);
			problem(u, r, off, u->name, nlen, "parent '%s' %s", parent,
				r == -ENOTDIR ? "is not a directory"
				: r == -ENOENT ? "does not exist" : errno_name(r));
			return r;
		}
	}
	int r = make_path(u, nlen);
	if (r < 0)
		problem(u, r, off, u->name, nlen, "the path is longer than %d bytes", PATH_MAX - 1);
	return r;
}

/* Make room for a new entry at u->path: remove what is there (a
 * directory only if it is empty). */
static int clear_path(struct unpack *u)
{
	struct kstat st;
	if (sys_lstat(u->path, &st) < 0)
		return 0;
	return S_ISDIR(st.mode) ? sys_rmdir(u->path) : sys_unlink(u->path);
}

/* ---- making entries --------------------------------------------------- */

static int64_t mtime_ns(const struct cpio_hdr *h)
{
	return (int64_t)h->mtime * 1000000000;
}

static int write_all(const char *path, const uint8_t *data, size_t n)
{
	int fd = sys_open(path, O_WRONLY | O_TRUNC | O_NOFOLLOW, 0);
	if (fd < 0)
		return fd;
	long r = 0;
	for (size_t done = 0; done < n; done += (size_t)r) {
		r = sys_write(fd, data + done, n - done);
		if (r == 0)
			r = -EIO;
		if (r < 0)
			break;
	}
	int c = sys_close(fd);
	return r < 0 ? (int)r : c;
}

static int make_dir(struct unpack *u, const struct cpio_hdr *h)
{
	struct kstat st;
	int r = sys_lstat(u->path, &st);
	if (r == 0 && !S_ISDIR(st.mode)) {
		r = sys_unlink(u->path);        /* a file or link gives way */
		if (r == 0)
			r = -ENOENT;
	}
	if (r == -ENOENT)
		r = sys_mkdir(u->path, h->mode & 07777);
	if (r == 0)
		r = sys_chmod(u->path, h->mode & 07777);
	if (r < 0)
		return r;
	size_t n = strlen(u->path);
	struct dir_time *d = kmalloc(sizeof(*d) + n + 1);
	if (!d)
		return -ENOMEM;
	d->mtime_ns = mtime_ns(h);
	memcpy(d->path, u->path, n + 1);
	list_add_tail(&d->node, &u->dirs);	/* applied in archive order */
	u->rep->dirs++;
	return 0;
}

static struct link_seen *find_link(struct unpack *u, const struct cpio_hdr *h)
{
	struct list_head *pos;
	list_for_each(pos, &u->links) {
		struct link_seen *l = list_entry(pos, struct link_seen, node);
		if (l->ino == h->ino && l->devmajor == h->devmajor && l->devminor == h->devminor)
			return l;
	}
	return NULL;
}

/* Is first's name still the inode it was made as (of the type h says)? */
static bool link_still_there(const struct link_seen *first, const struct cpio_hdr *h)
{
	struct kstat st;
	return sys_lstat(first->path, &st) == 0 && (st.mode & S_IFMT) == (h->mode & S_IFMT) &&
	       st.dev == first->made_dev && st.ino == first->made_ino;
}

static void forget_links(struct unpack *u)
{
	struct list_head *pos, *tmp;
	list_for_each_safe(pos, tmp, &u->links) {
		list_del(pos);
		kfree(list_entry(pos, struct link_seen, node));
	}
}

static int remember_link(struct unpack *u, const struct cpio_hdr *h)
{
	struct kstat st;
	int r = sys_lstat(u->path, &st);
	if (r < 0)
		return r;
	size_t n = strlen(u->path);
	struct link_seen *l = kmalloc(sizeof(*l) + n + 1);
	if (!l)
		return -ENOMEM;
	l->devmajor = h->devmajor;
	l->devminor = h->devminor;
	l->ino = h->ino;
	l->made_dev = st.dev;
	l->made_ino = st.ino;
	memcpy(l->path, u->path, n + 1);
	list_add(&l->node, &u->links);
	return 0;
}

/* The first name of h's inode if h is a later name of one still there,
 * else NULL (and a first name that was replaced since is forgotten). */
static struct link_seen *earlier_name(struct unpack *u, const struct cpio_hdr *h)
{
	struct link_seen *first = h->nlink > 1 ? find_link(u, h) : NULL;
	if (first && !link_still_there(first, h)) {
		list_del(&first->node);	/* replaced since: this name starts afresh */
		kfree(first);
		first = NULL;
	}
	return first;
}

/*
 * The first step of a file or special file: clear its path, and if the
 * archive gave its inode an earlier name, make it a hard link to that
 * (1).  0: it is to be made anew; then, if more names of it may follow,
 * remember this one (after the caller made it: *first says whether).
 */
static int link_to_earlier(struct unpack *u, const struct cpio_hdr *h, struct link_seen **first)
{
	*first = earlier_name(u, h);
	int r = clear_path(u);
	if (r < 0)
		return r;
	if (*first && sys_link((*first)->path, u->path) == 0) {
		u->rep->hardlinks++;
		return 1;
	}
	return 0;
}

/* After making a new inode at u->path: its later names will link here. */
static int remember_if_linked(struct unpack *u, const struct cpio_hdr *h, const struct link_seen *first)
{
	return h->nlink > 1 && !first ? remember_link(u, h) : 0;
}

static int make_file(struct unpack *u, const struct cpio_hdr *h, const uint8_t *data)
{
	struct link_seen *first;
	int r = link_to_earlier(u, h, &first);
	if (r < 0)
		return r;
	if (r == 0) {
		int fd = sys_open(u->path, O_WRONLY | O_CREAT | O_EXCL, h->mode & 07777);
		if (fd < 0)
			return fd;
		sys_close(fd);
		if ((r = remember_if_linked(u, h, first)) < 0)
			return r;
		u->rep->files++;
	}
	if (h->filesize && (r = write_all(u->path, data, h->filesize)) < 0)
		return r;
	r = sys_chmod(u->path, h->mode & 07777);
	return r ?: sys_utimens(u->path, mtime_ns(h), mtime_ns(h), 0);
}

/* A FIFO, device node or socket (with its device number), or a link to
 * an earlier name of it, as files are linked. */
static int make_special(struct unpack *u, const struct cpio_hdr *h)
{
	struct link_seen *first;
	int r = link_to_earlier(u, h, &first);
	if (r < 0)
		return r;
	if (r == 0) {
		r = sys_mknod(u->path, h->mode & (S_IFMT | 07777), makedev(h->rdevmajor, h->rdevminor));
		if (r < 0)
			return r;
		if ((r = remember_if_linked(u, h, first)) < 0)
			return r;
		u->rep->specials++;
	}
	r = sys_chmod(u->path, h->mode & 07777);	/* whatever the umask took */
	return r ?: sys_utimens(u->path, mtime_ns(h), mtime_ns(h), 0);
}

static int make_symlink(struct unpack *u, const struct cpio_hdr *h, const uint8_t *data)
{
	if (h->filesize == 0 || h->filesize >= PATH_MAX || memchr(data, 0, h->filesize))
		return -EINVAL;
	char *target = kmalloc(h->filesize + 1);
	if (!target)
		return -ENOMEM;
	memcpy(target, data, h->filesize);
	target[h->filesize] = '\0';
	int r = clear_path(u);
	if (r == 0)
		r = sys_symlink(target, u->path);
	kfree(target);
	if (r == 0)
		r = sys_utimens(u->path, mtime_ns(h), mtime_ns(h), AT_SYMLINK_NOFOLLOW);
	if (r == 0)
		u->rep->symlinks++;
	return r;
}

/* One entry whose header, name and data are all inside the archive. */
static void do_entry(struct unpack *u, size_t off, const struct cpio_hdr *h, bool crc,
		     const char *raw, const uint8_t *data)
{
	size_t rlen = h->namesize - 1;
	if (raw[rlen] != '\0' || memchr(raw, 0, rlen)) {
		problem(u, -EINVAL, off, raw, rlen, "name is not NUL-terminated at its namesize");
		return;
	}
	if (crc && (h->mode & S_IFMT) == S_IFREG) {     /* cpio sums only files */
		uint32_t sum = 0;
		for (uint32_t i = 0; i < h->filesize; i++)
			sum += data[i];
		if (sum != h->check) {
			problem(u, -EINVAL, off, raw, rlen, "checksum 0x%x, the header says 0x%x",
				sum, h->check);
			return;
		}
	}
	if (rlen >= PATH_MAX) {
		problem(u, -ENAMETOOLONG, off, raw, rlen, "name longer than %d bytes", PATH_MAX - 1);
		return;
	}
	if (clean_name(u, off, raw, rlen) < 0)
		return;
	uint32_t type = h->mode & S_IFMT;
	bool special = type == S_IFIFO || type == S_IFCHR || type == S_IFBLK || type == S_IFSOCK;
	if (type != S_IFDIR && type != S_IFREG && type != S_IFLNK && !special) {
		problem(u, -EINVAL, off, raw, rlen, "unknown file type in mode 0%o", h->mode);
		return;
	}
	if (u->name[0] == '\0' && type != S_IFDIR) {
		problem(u, -EINVAL, off, raw, rlen, "names the directory itself but is no directory");
		return;
	}
	if (check_parents(u, off) < 0)
		return;
	int r;
	const char *what;
	if (type == S_IFDIR) {
		what = "mkdir";
		r = make_dir(u, h);
		if (r == 0 && h->filesize)
			warning(u, off, raw, rlen, "directory with %u bytes of data; ignored",
				h->filesize);
	} else if (type == S_IFREG) {
		what = "creating the file";
		r = make_file(u, h, data);
	} else if (special) {
		what = "mknod";
		r = make_special(u, h);
		if (r == 0 && h->filesize)
			warning(u, off, raw, rlen, "special file with %u bytes of data; ignored",
				h->filesize);
	} else {
		what = "symlink";
		r = make_symlink(u, h, data);
	}
	if (r < 0)
		problem(u, r, off, raw, rlen, "%s failed: %s", what, errno_name(r));
}

/* ---- the archive ------------------------------------------------------ */

static bool all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/* Walk the entries; returns the offset where it stopped. */
static size_t walk(struct unpack *u)
{
	size_t off = 0;
	bool in_archive = false;    /* a header seen since the last trailer */
	while (off < u->len) {
		if (!in_archive && all_zero(u->buf + off, u->len - off))
			return u->len;          /* padding after a trailer */
		if (!in_archive)                /* zero words up to the next archive */
			while (u->len - off >= 4 && all_zero(u->buf + off, 4))
				off += 4;
		if (u->len - off < HDR_SIZE) {
			problem(u, -EINVAL, off, NULL, 0, "truncated header (%zu bytes left)",
				u->len - off);
			return off;
		}
		struct cpio_hdr h;
		bool crc;
		const char *why;
		if (parse_header(u->buf + off, &h, &crc, &why) < 0) {
			if (why[0] == 'b')
				problem(u, -EINVAL, off, NULL, 0, "%s", why);
			else
				problem(u, -EINVAL, off, NULL, 0, "header field '%s' is not 8 hex digits",
					why);
			return off;
		}
		in_archive = true;
		const char *raw = (const char *)u->buf + off + HDR_SIZE;
		size_t name_end = off + HDR_SIZE + h.namesize;    /* cannot overflow: 32-bit sizes */
		size_t data = ALIGN_UP(name_end, 4), next = ALIGN_UP(data + h.filesize, 4);
		if (h.namesize == 0 || name_end > u->len) {
			problem(u, -EINVAL, off, NULL, 0, "namesize %u %s", h.namesize,
				h.namesize ? "runs past the end of the archive" : "is 0 (no NUL)");
			return off;
		}
		if (h.filesize && data + h.filesize > u->len) {	/* no data: padding may be cut */
			problem(u, -EINVAL, off, raw, strnlen(raw, h.namesize),
				"filesize %u runs past the end of the archive", h.filesize);
			return off;
		}
		if (h.namesize == 11 && memcmp(raw, "TRAILER!!!", 11) == 0) {
			in_archive = false;
			forget_links(u);
		} else
			do_entry(u, off, &h, crc, raw, u->buf + data);
		off = next < u->len ? next : u->len;
	}
	if (in_archive)
		problem(u, -EINVAL, off, NULL, 0, "the archive ends without a TRAILER!!! entry");
	return off;
}

int initramfs_unpack_report(const void *archive, size_t len, const char *dest_dir,
			    struct initramfs_report *report)
{
	struct initramfs_report dummy = { .quiet = false };
	struct unpack u = { .buf = archive, .len = len, .dest = dest_dir,
			    .rep = report ? report : &dummy };
	bool quiet = u.rep->quiet;
	*u.rep = (struct initramfs_report){ .quiet = quiet };
	list_init(&u.links);
	list_init(&u.dirs);
	u.path = kmalloc(PATH_MAX);
	u.name = kmalloc(PATH_MAX);
	if (!u.path || !u.name) {
		kfree(u.path);
		kfree(u.name);
		return -ENOMEM;
	}
	u.rep->stop_offset = walk(&u);

	struct list_head *pos, *tmp;
	list_for_each_safe(pos, tmp, &u.dirs) {
		struct dir_time *d = list_entry(pos, struct dir_time, node);
		struct kstat st;	/* still a directory? A later entry may have replaced it */
		if (sys_lstat(d->path, &st) == 0 && S_ISDIR(st.mode))
			sys_utimens(d->path, d->mtime_ns, d->mtime_ns, AT_SYMLINK_NOFOLLOW);
		list_del(pos);
		kfree(d);
	}
	forget_links(&u);
	kfree(u.path);
	kfree(u.name);
	return u.first_err;
}

int initramfs_unpack(const void *archive, size_t len, const char *dest_dir)
{
	return initramfs_unpack_report(archive, len, dest_dir, NULL);
}

void initramfs_unpack_modules(void)
{
	for (unsigned i = 0; i < boot_info.nmodules; i++) {
		const struct boot_module *m = &boot_info.modules[i];
		struct initramfs_report rep = { .quiet = false };
		initramfs_unpack_report(phys_to_virt(m->start), m->end - m->start, "/", &rep);
		kprintf("initramfs: module %u ('%s', %lu bytes): %u files, %u directories, "
			"%u symlinks, %u special files, %u hard links; %u problems, %u warnings\n",
			i, m->name, m->end - m->start, rep.files, rep.dirs, rep.symlinks,
			rep.specials, rep.hardlinks, rep.errors, rep.warnings);
	}
}
