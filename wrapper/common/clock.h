/*
 * clock.h - monotonic time for durations, timeouts and progress, and
 * durations written for people.
 *
 * Every measured duration in pgoptcc and pgbuild comes from one clock,
 * CLOCK_MONOTONIC (never set back, unaffected by NTP steps); wall-clock
 * dates (time(2)) are only for records people read.
 */
#ifndef PGOPT_CLOCK_H
#define PGOPT_CLOCK_H

#include <stddef.h>
#include <stdint.h>

/* The monotonic clock in microseconds, milliseconds and seconds. */
int64_t clock_us(void);
double clock_ms(void);
double clock_seconds(void);

/*
 * A duration for people, into buf: "4.2s" (decimals digits below a
 * minute), "3m07s", "1h02m03s" (whole seconds from a minute on), "-" for a
 * negative or non-finite value.  Returns buf.
 */
const char *fmt_duration(double seconds, int decimals, char *buf, size_t n);

#endif
