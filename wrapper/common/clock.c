/*
 * clock.c - the monotonic clock and duration text; see clock.h.
 */
#include <math.h>
#include <stdio.h>
#include <time.h>

#include "wrapper/common/clock.h"

int64_t clock_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

double clock_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

double clock_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

const char *fmt_duration(double s, int decimals, char *buf, size_t n)
{
	long t;

	if (!isfinite(s) || s < 0) {
		snprintf(buf, n, "-");
		return buf;
	}
	/* what would print as 60.0s is a minute */
	if (s < 60 - 0.5 * pow(10, -decimals)) {
		snprintf(buf, n, "%.*fs", decimals, s);
		return buf;
	}
	t = lround(s);
	if (t >= 3600)
		snprintf(buf, n, "%ldh%02ldm%02lds", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(buf, n, "%ldm%02lds", t / 60, t % 60);
	return buf;
}
