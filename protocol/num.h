/* num.h — the numbers people type: option values of the client and the
 * agent's options string. Plain decimal digits only (no sign, exponent,
 * hex, spaces or "inf"), so that every program reads the same text the same
 * way and a typo is an error, not a surprise. */
#ifndef MCT_NUM_H
#define MCT_NUM_H

/* The largest number an option takes where nothing smaller bounds it;
 * keeps every duration far inside int64 nanoseconds. */
#define NUM_DECIMAL_MAX 1e9

/* An integer of digits only within [lo, hi] into *out; 0, or -1 (out
 * untouched). */
int num_int(const char *s, long long lo, long long hi, long long *out);

/* DIGITS, DIGITS.DIGITS or .DIGITS, at most max, into *out; 0, or -1 (out
 * untouched). */
int num_decimal(const char *s, double max, double *out);

#endif
