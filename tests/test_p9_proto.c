/*
 * test_p9_proto.c: 9p replies a broken or hostile server could send,
 * forged in memory and parsed as the client parses them: every one gives
 * -EIO (or the errno an Rlerror rightly carries), and none reads past
 * the bytes the "device" wrote (each parse is given fewer than its buffer
 * holds, so the bytes past them are there to be misread, and are not).
 */
#include "fs/9p/proto.h"
#include "kernel/errno.h"
#include "kernel/ktest.h"
#include "kernel/string.h"

/* A reply header at buf: size, type, tag; m's cursor after it. */
static void forge(struct p9_msg *m, char *buf, uint32_t cap, uint32_t size, uint8_t type,
		  uint16_t tag)
{
	*m = (struct p9_msg){ buf, cap, 0, 0 };
	p9_put32(m, size);
	p9_put8(m, type);
	p9_put16(m, tag);
}

static int parse(char *buf, uint32_t written, uint16_t tag, uint8_t rtype)
{
	struct p9_msg rx = { buf, written, 0, 0 };
	return p9_parse_header(&rx, tag, rtype);
}

static void bad_headers(void)
{
	char buf[64];
	struct p9_msg m;
	forge(&m, buf, sizeof(buf), 7, 121, 3);	/* a good Rclunk */
	EXPECT_EQ(parse(buf, 7, 3, 121), 0);
	EXPECT_EQ(parse(buf, 6, 3, 121), -EIO);	/* shorter than a header */
	EXPECT_EQ(parse(buf, 7, 4, 121), -EIO);	/* another request's tag */
	EXPECT_EQ(parse(buf, 7, 3, 111), -EIO);	/* another message */
	forge(&m, buf, sizeof(buf), 40, 121, 3);	/* says 40, the device wrote 7 */
	EXPECT_EQ(parse(buf, 7, 3, 121), -EIO);
	forge(&m, buf, sizeof(buf), 6, 121, 3);	/* a size below the header's */
	EXPECT_EQ(parse(buf, 7, 3, 121), -EIO);
	forge(&m, buf, sizeof(buf), 11, P9_RLERROR, 3);
	p9_put32(&m, 13);
	EXPECT_EQ(parse(buf, 11, 3, 121), -EACCES);	/* the server's errno */
	EXPECT_EQ(parse(buf, 10, 3, 121), -EIO);	/* its ecode cut short */
	forge(&m, buf, sizeof(buf), 11, P9_RLERROR, 3);
	p9_put32(&m, 0);
	EXPECT_EQ(parse(buf, 11, 3, 121), -EIO);	/* "error 0" */
	forge(&m, buf, sizeof(buf), 11, P9_RLERROR, 3);
	p9_put32(&m, 70000);
	EXPECT_EQ(parse(buf, 11, 3, 121), -EIO);	/* no such errno */
}

static void bad_fields(void)
{
	char buf[16];
	struct p9_msg m = { buf, sizeof(buf), 0, 0 };
	p9_put16(&m, 200);	/* a string of 200 bytes in a 16-byte reply */
	struct p9_msg rx = { buf, sizeof(buf), 0, 0 };
	uint16_t len = 1;
	EXPECT_NULL(p9_get_str(&rx, &len));
	EXPECT_EQ(len, 0);
	EXPECT_EQ(rx.err, -EIO);
	EXPECT_EQ(p9_get64(&rx), 0u);	/* sticky: reads as zero from now on */
	rx = (struct p9_msg){ buf, 3, 0, 0 };
	EXPECT_EQ(p9_get32(&rx), 0u);
	EXPECT_EQ(rx.err, -EIO);
	rx = (struct p9_msg){ buf, sizeof(buf), 10, 0 };
	EXPECT_NULL(p9_get_data(&rx, 0xFFFFFFFFu));	/* a huge count does not wrap */
	EXPECT_EQ(rx.err, -EIO);
	m = (struct p9_msg){ buf, 4, 0, 0 };
	p9_put64(&m, 1);	/* a T-message too big for its buffer */
	EXPECT_EQ(m.err, -EIO);
}

/* One Rreaddir entry with the given name, at m. */
static void dirent(struct p9_msg *m, const char *name, uint16_t len)
{
	p9_put8(m, 0);
	p9_put32(m, 0);
	p9_put64(m, 42);	/* qid */
	p9_put64(m, 7);		/* the next cursor */
	p9_put8(m, 8);		/* DT_REG */
	p9_put_str(m, name, len);
}

static int parse_one(char *buf, uint32_t size)
{
	struct p9_msg d = { buf, size, 0, 0 };
	struct p9_qid q;
	uint64_t next;
	uint8_t type;
	const char *name;
	uint16_t len;
	return p9_parse_dirent(&d, &q, &next, &type, &name, &len);
}

static void bad_dirents(void)
{
	char buf[64];
	struct p9_msg m = { buf, sizeof(buf), 0, 0 };
	dirent(&m, "ok", 2);
	EXPECT_EQ(parse_one(buf, m.pos), 0);
	EXPECT_EQ(parse_one(buf, m.pos - 1), -EIO);	/* its name cut short */
	m = (struct p9_msg){ buf, sizeof(buf), 0, 0 };
	dirent(&m, "a/b", 3);
	EXPECT_EQ(parse_one(buf, m.pos), -EIO);	/* a path, not a name */
	m = (struct p9_msg){ buf, sizeof(buf), 0, 0 };
	dirent(&m, "a\0b", 3);
	EXPECT_EQ(parse_one(buf, m.pos), -EIO);
	m = (struct p9_msg){ buf, sizeof(buf), 0, 0 };
	dirent(&m, "", 0);
	EXPECT_EQ(parse_one(buf, m.pos), -EIO);
}

static const struct ktest_case p9_proto_cases[] = {
	KTEST_CASE(bad_headers),
	KTEST_CASE(bad_fields),
	KTEST_CASE(bad_dirents),
};
KTEST_SUITE(p9_proto, p9_proto_cases);
