/*
 * lb_file FILE N ITERS open|read: workload 2 of make bench-linux, one
 * cached file used by N threads of one process.
 *   open: each thread opens FILE read-only and closes it, ITERS times;
 *   read: each thread opens FILE once and reads its first 4 KiB with
 *         pread, ITERS times (each thread its own descriptor, so no
 *         file position is shared).
 * The program makes FILE (16 KiB of a known pattern) first.  Checked:
 * every open succeeds, every read returns 4096 bytes whose first and
 * last bytes are the pattern's, and the whole 4 KiB once per thread.
 * Prints
 *     LB w=file mode=M threads=N iters=I ns=NS cpu_ns=C bad=B
 * (C: the workers' CPU time in their loops, summed: lb.h)
 */
#include "lb.h"

#define FILE_SIZE 16384
#define CHUNK 4096

static const char *path;
static long iters, bad[MAXT];
static int reading;

static long check(const unsigned char *buf, long from, long to)
{
	long wrong = 0;
	for (long i = from; i < to; i++)
		wrong += buf[i] != (unsigned char)(i * 7);
	return wrong;
}

static void worker(long t)
{
	static unsigned char bufs[MAXT][CHUNK];
	unsigned char *buf = bufs[t];
	long fd = reading ? sys3(SYS_open, path, O_RDONLY, 0) : 0;
	if (fd < 0)
		bad[t]++;
	lb_wait_go();
	lb_cpu_begin(t);
	for (long k = 0; k < iters; k++) {
		if (!reading) {
			long f = sys3(SYS_open, path, O_RDONLY, 0);
			if (f < 0 || sys1(SYS_close, f) != 0)
				bad[t]++;
		} else if (sys4(SYS_pread64, fd, buf, CHUNK, 0) != CHUNK ||
			   buf[0] != 0 || buf[CHUNK - 1] != (unsigned char)((CHUNK - 1) * 7)) {
			bad[t]++;
		}
	}
	lb_cpu_end(t);
	if (reading) {
		bad[t] += check(buf, 0, CHUNK) != 0;
		sys1(SYS_close, fd);
	}
}

int main(int argc, char **argv, char **envp)
{
	(void)envp;
	if (argc != 5)
		return 2;
	path = argv[1];
	long n = number(argv[2]);
	iters = number(argv[3]);
	reading = argv[4][0] == 'r';
	if (n < 1 || n > MAXT || lb_make_file(path, FILE_SIZE) < 0)
		return 2;
	long t0 = lb_start(n, worker);
	if (t0 < 0)
		return 4;
	long ns = lb_join(n, t0), nbad = 0;
	for (long i = 0; i < n; i++)
		nbad += bad[i];
	struct lb_line l;
	lb_begin(&l, "file");
	lb_str(&l, "mode", reading ? "read" : "open");
	lb_num(&l, "threads", n);
	lb_num(&l, "iters", iters);
	lb_num(&l, "ns", ns);
	lb_num(&l, "cpu_ns", lb_cpu_sum(n));
	lb_num(&l, "bad", nbad);
	lb_emit(&l);
	return 0;
}
