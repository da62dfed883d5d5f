/* Parsers of the numbers users and the system write: whole strings only, no sign, no silent
 * wrap-around. Each returns 0, or -1 and leaves *out untouched. */
#ifndef MFB_PARSE_H
#define MFB_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Decimal unsigned integer ("010" is ten). */
int mfb_parse_u64(const char *s, uint64_t *out);
/* A seed: decimal without a leading zero ("0" itself is a seed), or hexadecimal with a 0x/0X
 * prefix. "010" and "08" are refused: C's base-0 parsers read the first as eight and refuse the
 * second, so a seed read here as ten would be another seed elsewhere. MFB_SEED_FORMS says so in
 * the messages of the commands that take one. */
int mfb_parse_seed(const char *s, uint64_t *out);
#define MFB_SEED_FORMS "decimal without a leading zero, or hex with 0x"
/* A size as sysfs and the command line write it: "48K", "1M", "2G", "32768", "48KiB", "1MB". */
int mfb_parse_bytes(const char *s, size_t *out);
/* Up to n sizes separated by sep ("48K:2M:32M") into out: how many, or -1 when one is no size
 * or there are more than n. */
int mfb_parse_bytes_list(const char *s, char sep, size_t *out, int n);
/* --cache's value, L1D:L2:LLC (each a size such as 48K, at least a page): 0 with out[0..2], or -1. */
int mfb_parse_cache_sizes(const char *s, size_t out[3]);
/* What a good --cache value is, for the messages. */
#define MFB_CACHE_SIZES_FORM "L1D:L2:LLC sizes such as 48K:2M:32M"
/* The index of s in names[0..n), for the parsers of closed sets (functions, placements,
 * alignment modes): -1 when it names none. */
int mfb_parse_name(const char *s, const char *const *names, int n);
/* The index of the name in names[0..n) nearest to word, for a "did you mean" after a typo: at
 * most max_edits single-character insertions, deletions, substitutions or swaps of neighbours
 * away (and fewer than half of word's length, so "x" suggests nothing), ties to the first;
 * -1 when none is that near. Names longer than 63 characters are never suggested. */
int mfb_nearest_name(const char *word, const char *const *names, size_t n, int max_edits);
/* A Linux CPU list such as "0-3,8,10-11" (sysfs thread_siblings_list, isolated): sets
 * out[cpu] for each listed CPU below n. Rejects malformed lists and descending ranges. */
int mfb_parse_cpu_list(const char *s, bool *out, size_t n);
/* CPU numbers at or above this are no CPU (Linux configures at most 8192). */
#define MFB_CPU_NUMBER_LIMIT 65536
/* A CPU list ("2,0-1") in the order given, into out[0..*n): -1 not a list, -2 more than max CPUs,
 * -3 a CPU listed twice (*repeated), -4 a CPU at or above MFB_CPU_NUMBER_LIMIT. */
int mfb_parse_cpu_order(const char *s, int *out, size_t max, size_t *n, int *repeated);

#endif
