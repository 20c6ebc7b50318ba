/*
 * proto.c: 9P field marshalling with bounds checks (see proto.h).
 */
#include "fs/9p/proto.h"
#include <stdbool.h>
#include "kernel/errno.h"
#include "kernel/string.h"

/* Room for n more bytes at pos?  Else the message is bad from now on. */
static bool room(struct p9_msg *m, uint32_t n)
{
	if (m->err || n > m->size || m->pos > m->size - n) {
		m->err = -EIO;
		return false;
	}
	return true;
}

static void put_le(struct p9_msg *m, uint64_t v, unsigned n)
{
	if (!room(m, n))
		return;
	for (unsigned i = 0; i < n; i++)
		m->buf[m->pos++] = (char)(v >> (8 * i));
}

static uint64_t get_le(struct p9_msg *m, unsigned n)
{
	if (!room(m, n))
		return 0;
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)(uint8_t)m->buf[m->pos++] << (8 * i);
	return v;
}

void p9_put8(struct p9_msg *m, uint8_t v) { put_le(m, v, 1); }
void p9_put16(struct p9_msg *m, uint16_t v) { put_le(m, v, 2); }
void p9_put32(struct p9_msg *m, uint32_t v) { put_le(m, v, 4); }
void p9_put64(struct p9_msg *m, uint64_t v) { put_le(m, v, 8); }

void p9_put_data(struct p9_msg *m, const void *p, uint32_t len)
{
	if (!room(m, len))
		return;
	memcpy(m->buf + m->pos, p, len);
	m->pos += len;
}

void p9_put_str(struct p9_msg *m, const char *s, uint32_t len)
{
	if (len > 0xFFFF) {
		m->err = -ENAMETOOLONG;
		return;
	}
	p9_put16(m, (uint16_t)len);
	p9_put_data(m, s, len);
}

uint8_t p9_get8(struct p9_msg *m) { return (uint8_t)get_le(m, 1); }
uint16_t p9_get16(struct p9_msg *m) { return (uint16_t)get_le(m, 2); }
uint32_t p9_get32(struct p9_msg *m) { return (uint32_t)get_le(m, 4); }
uint64_t p9_get64(struct p9_msg *m) { return get_le(m, 8); }

void p9_get_qid(struct p9_msg *m, struct p9_qid *q)
{
	q->type = p9_get8(m);
	q->version = p9_get32(m);
	q->path = p9_get64(m);
}

const void *p9_get_data(struct p9_msg *m, uint32_t n)
{
	if (!room(m, n))
		return NULL;
	const void *p = m->buf + m->pos;
	m->pos += n;
	return p;
}

const char *p9_get_str(struct p9_msg *m, uint16_t *len)
{
	*len = p9_get16(m);
	const char *s = p9_get_data(m, *len);
	if (!s)
		*len = 0;
	return s;
}

/* An Rlerror's errno: Linux's numbers, which are ours; anything out of
 * range is a broken server. */
static int lerror(uint32_t ecode)
{
	return ecode > 0 && ecode < 4096 ? -(int)ecode : -EIO;
}

int p9_parse_header(struct p9_msg *rx, uint16_t tag, uint8_t rtype)
{
	uint32_t size = p9_get32(rx);
	uint8_t type = p9_get8(rx);
	uint16_t got_tag = p9_get16(rx);
	if (rx->err || size < P9_HDRSZ || size > rx->size || got_tag != tag)
		return -EIO;
	rx->size = size;
	if (type == P9_RLERROR) {
		uint32_t ecode = p9_get32(rx);
		return rx->err ? -EIO : lerror(ecode);
	}
	return type == rtype ? 0 : -EIO;
}

int p9_parse_dirent(struct p9_msg *d, struct p9_qid *qid, uint64_t *next, uint8_t *type,
		    const char **name, uint16_t *len)
{
	p9_get_qid(d, qid);
	*next = p9_get64(d);
	*type = p9_get8(d);
	*name = p9_get_str(d, len);
	if (d->err || *len == 0 || memchr(*name, '/', *len) || memchr(*name, 0, *len))
		return d->err = -EIO;
	return 0;
}
