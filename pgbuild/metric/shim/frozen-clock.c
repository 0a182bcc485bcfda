/*
 * frozen-clock.c - an LD_PRELOAD library for the deterministic metrics'
 * single-user runs (instructions, cycles): the wall clock stands still and
 * interval timers never fire, so a server that runs slower (a loaded
 * machine, valgrind stopped by the scheduler) takes exactly the paths of a
 * fast one.
 *
 * Why: PostgreSQL 15 calls pgstat_report_stat() before every statement,
 * and it flushes the pending statistics only when at least a second
 * (PGSTAT_MIN_INTERVAL) has passed since the last flush, else arms
 * IDLE_STATS_UPDATE_TIMEOUT with setitimer().  A run that takes longer in
 * wall time flushes more often: measured under CPU and disk load, one
 * build's tpcb count moved by 0.155% between runs (instructions 0.12%),
 * past the 0.1% at which the gate compares, and an A/A gate of one build
 * against itself failed now and then.  With the clock frozen every run
 * flushes twice (the first statement's and the forced one at exit),
 * whatever the load: repeat runs agreed to 0.001% (select1), 0.0001%
 * (select-only) and 0.00002% (tpcb) with every third run slowed down.
 *
 * Built as LIBDIR/pgoptcc/frozen-clock.so; pgbuild copies it next to the
 * runs (pgbuild/metric/single.c) and starts them with a cleared
 * environment plus LD_PRELOAD naming it.  It is never loaded into a server
 * that serves clients: bench and gate's tps runs keep the real clock.
 */
#define _GNU_SOURCE
#include <string.h>
#include <sys/time.h>
#include <time.h>

/* The one instant every run lives in (2023-11-14 22:13:20 UTC). */
#define FROZEN_SEC 1700000000L

int clock_gettime(clockid_t id, struct timespec *ts)
{
	(void)id;
	ts->tv_sec = FROZEN_SEC;
	ts->tv_nsec = 0;
	return 0;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
	(void)tz;
	/* glibc declares tv nonnull; callers never pass NULL */
	tv->tv_sec = FROZEN_SEC;
	tv->tv_usec = 0;
	return 0;
}

time_t time(time_t *t)
{
	if (t)
		*t = FROZEN_SEC;
	return FROZEN_SEC;
}

/* A timer armed with a frozen clock would still fire on real time: none is. */
int setitimer(__itimer_which_t which, const struct itimerval *restrict nv,
	      struct itimerval *restrict ov)
{
	(void)which;
	(void)nv;
	if (ov)
		memset(ov, 0, sizeof(*ov));
	return 0;
}
