/*
 * proto.h: 9P2000.L messages: their numbers, and the marshalling of
 * their fields (little-endian integers, strings as a 16-bit length and
 * the bytes, qids as type, version, path).
 *
 * Every get checks the bounds of the buffer it reads: a field past the
 * end of the reply (a short, hostile or buggy server) sets m->err to
 * -EIO and reads as zero, so a parser reads every field, then checks
 * m->err once.  Puts check the buffer's room the same way.  Nothing here
 * locks: a message belongs to the one request that holds it.
 */
#ifndef FS_9P_PROTO_H
#define FS_9P_PROTO_H

#include <stdint.h>

/* Message types (T is even, its R the next number). */
enum {
	P9_RLERROR = 7,
	P9_TSTATFS = 8, P9_TLOPEN = 12, P9_TLCREATE = 14, P9_TSYMLINK = 16,
	P9_TMKNOD = 18, P9_TREADLINK = 22, P9_TGETATTR = 24, P9_TSETATTR = 26,
	P9_TREADDIR = 40, P9_TFSYNC = 50, P9_TLINK = 70, P9_TMKDIR = 72,
	P9_TRENAMEAT = 74, P9_TUNLINKAT = 76, P9_TVERSION = 100, P9_TATTACH = 104, P9_TFLUSH = 108,
	P9_TWALK = 110, P9_TREAD = 116, P9_TWRITE = 118, P9_TCLUNK = 120,
};

#define P9_NOTAG  0xFFFF
#define P9_NOFID  0xFFFFFFFFu
#define P9_HDRSZ  7                 /* size[4] type[1] tag[2] */
#define P9_IOHDRSZ 24               /* room a Tread/Twrite header needs */
#define P9_MAXWELEM 16

/* A qid's type bits (intro(5)); the rest, and 0 (QTFILE), say only
 * "not a directory nor a symlink". */
#define P9_QTDIR     0x80
#define P9_QTSYMLINK 0x02

struct p9_qid {
	uint8_t type;
	uint32_t version;
	uint64_t path;
};

/* A message being built or parsed: buf[0..size), the cursor at pos. */
struct p9_msg {
	char *buf;
	uint32_t size;
	uint32_t pos;
	int err;                        /* 0, or -EIO once a field did not fit */
};

void p9_put8(struct p9_msg *m, uint8_t v);
void p9_put16(struct p9_msg *m, uint16_t v);
void p9_put32(struct p9_msg *m, uint32_t v);
void p9_put64(struct p9_msg *m, uint64_t v);
void p9_put_str(struct p9_msg *m, const char *s, uint32_t len);
void p9_put_data(struct p9_msg *m, const void *p, uint32_t len);

uint8_t p9_get8(struct p9_msg *m);
uint16_t p9_get16(struct p9_msg *m);
uint32_t p9_get32(struct p9_msg *m);
uint64_t p9_get64(struct p9_msg *m);
void p9_get_qid(struct p9_msg *m, struct p9_qid *q);
/* A string in place: *len its length, the bytes not NUL-terminated;
 * NULL (m->err set) if it overruns. */
const char *p9_get_str(struct p9_msg *m, uint16_t *len);
/* n bytes in place, or NULL (m->err set) if they overrun. */
const void *p9_get_data(struct p9_msg *m, uint32_t n);

/* A reply's header, read from rx (rx->size: the bytes the device wrote):
 * 0 with rx->size cut to the message's size and the cursor at its first
 * field, the server's errno for an Rlerror, or -EIO for a header that is
 * short, too long, of another tag, or neither rtype nor Rlerror. */
int p9_parse_header(struct p9_msg *rx, uint16_t tag, uint8_t rtype);
/* One Rreaddir entry: 0, or -EIO if it overruns or its name is empty or
 * holds a '/' or a NUL. */
int p9_parse_dirent(struct p9_msg *d, struct p9_qid *qid, uint64_t *next, uint8_t *type,
		    const char **name, uint16_t *len);

#endif
