/*
 * rtc.c: the wall clock, read once at boot from the CMOS real-time clock.
 *
 * The RTC keeps the date in six registers, in BCD or binary and in 12- or
 * 24-hour form as status register B says.  It updates them once a
 * second, and a read during the update can see half the new date, so we
 * wait for the update-in-progress bit to clear and read until two reads
 * agree.  After boot, the time advances by the TSC (ktime_real_ns).
 * No locks: rtc_init runs once, on the boot CPU, before other CPUs start.
 */
#include "kernel/time.h"
#include "kernel/kprintf.h"
#include "arch/x86_64/cpu.h"

static int64_t boot_epoch_ns;

static uint8_t cmos_read(uint8_t reg)
{
	outb(0x70, reg | 0x80);	/* bit 7 keeps NMIs enabled-state unchanged: NMI off while we read */
	return inb(0x71);
}

struct rtc_date {
	unsigned sec, min, hour, day, mon, year;
};

static bool update_in_progress(void)
{
	return cmos_read(0x0A) & 0x80;
}

static struct rtc_date read_raw(void)
{
	for (unsigned spins = 0; update_in_progress() && spins < 1000000; spins++)
		cpu_relax();
	return (struct rtc_date){ cmos_read(0x00), cmos_read(0x02), cmos_read(0x04),
				  cmos_read(0x07), cmos_read(0x08), cmos_read(0x09) };
}

static unsigned from_bcd(unsigned v)
{
	return (v & 0x0F) + (v >> 4) * 10;
}

/* Days from 1970-01-01 to year-mon-day (proleptic Gregorian). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

void rtc_init(void)
{
	struct rtc_date a = read_raw(), b;
	for (unsigned tries = 0; tries < 5; tries++) {
		b = read_raw();
		if (a.sec == b.sec && a.min == b.min && a.hour == b.hour && a.day == b.day &&
		    a.mon == b.mon && a.year == b.year)
			break;
		a = b;
	}
	uint8_t status_b = cmos_read(0x0B);
	bool pm = a.hour & 0x80;
	a.hour &= 0x7F;
	if (!(status_b & 0x04)) {	/* BCD */
		a.sec = from_bcd(a.sec), a.min = from_bcd(a.min), a.hour = from_bcd(a.hour);
		a.day = from_bcd(a.day), a.mon = from_bcd(a.mon), a.year = from_bcd(a.year);
	}
	if (!(status_b & 0x02) && pm)	/* 12-hour clock */
		a.hour = (a.hour % 12) + 12;
	if (a.mon < 1 || a.mon > 12 || a.day < 1 || a.day > 31 || a.hour > 23 || a.min > 59 ||
	    a.sec > 60) {
		kprintf("rtc: implausible date %u-%u-%u %u:%u:%u; the clock starts at the epoch\n",
			a.year, a.mon, a.day, a.hour, a.min, a.sec);
		boot_epoch_ns = -(int64_t)ktime_ns();
		return;
	}
	int64_t days = days_from_civil(2000 + a.year, a.mon, a.day);
	int64_t secs = days * 86400 + a.hour * 3600 + a.min * 60 + a.sec;
	boot_epoch_ns = secs * 1000000000LL - (int64_t)ktime_ns();
	kprintf("rtc: %04u-%02u-%02u %02u:%02u:%02u UTC\n", 2000 + a.year, a.mon, a.day, a.hour,
		a.min, a.sec);
}

int64_t ktime_real_ns(void)
{
	return boot_epoch_ns + (int64_t)ktime_ns();
}
