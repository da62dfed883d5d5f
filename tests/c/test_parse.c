/* The parsers of base/parse.c: seeds are decimal without a leading zero or 0x hex (never octal, never
 * ambiguous), CPU lists expand their ranges, sizes take K/M/G suffixes and refuse overflow. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "base/parse.h"
#include "tap.h"

static bool seed_is(const char *s, uint64_t want)
{
    uint64_t v = 0;
    return mfb_parse_seed(s, &v) == 0 && v == want;
}

static bool seed_refused(const char *s)
{
    uint64_t v = 12345;
    return mfb_parse_seed(s, &v) < 0 && v == 12345;
}

/* The CPUs a list names, as a bit mask of CPUs 0..63; UINT64_MAX when refused. */
static uint64_t cpus(const char *s)
{
    bool out[64] = {0};
    if (mfb_parse_cpu_list(s, out, 64) < 0)
        return UINT64_MAX;
    uint64_t m = 0;
    for (int i = 0; i < 64; i++)
        m |= (uint64_t)out[i] << i;
    return m;
}

static bool bytes_is(const char *s, size_t want)
{
    size_t v = 0;
    return mfb_parse_bytes(s, &v) == 0 && v == want;
}

int main(void)
{
    struct tap t = {0};
    TAP_CHECK(&t, seed_refused("010") && seed_refused("08") && seed_refused("00"),
              "a decimal seed with a leading zero is refused (010 is eight to C's base-0 parsers, ten here)");
    TAP_CHECK(&t, seed_is("0", 0) && seed_is("10", 10) && seed_is("0x010", 16), "0, decimal and 0x hex seeds");
    TAP_CHECK(&t, seed_is("0x10", 16) && seed_is("0XfF", 255), "0x-prefixed seeds are hexadecimal");
    TAP_CHECK(&t, seed_is("18446744073709551615", UINT64_MAX), "the largest 64-bit seed");
    TAP_CHECK(&t, seed_refused("18446744073709551616"), "a seed above 2^64-1 is refused");
    TAP_CHECK(&t, seed_refused("-1") && seed_refused("+1") && seed_refused(" 1") && seed_refused(""),
              "signs, spaces and empty seeds are refused");
    TAP_CHECK(&t, seed_refused("0x") && seed_refused("12abc") && seed_refused("0x1g"), "trailing junk is refused");

    TAP_CHECK(&t, cpus("0-3") == 0xf, "0-3 is CPUs 0, 1, 2 and 3 (not 0 and 3)");
    TAP_CHECK(&t, cpus("1,5") == 0x22, "1,5 is CPUs 1 and 5");
    TAP_CHECK(&t, cpus("0-1,8-9,12\n") == 0x1303, "ranges and singles mix, a trailing newline is allowed");
    TAP_CHECK(&t, cpus("7") == 0x80, "a single CPU");
    TAP_CHECK(&t, cpus("3-1") == UINT64_MAX && cpus("") == UINT64_MAX && cpus("1,") == UINT64_MAX &&
                  cpus("a") == UINT64_MAX && cpus("1-") == UINT64_MAX,
              "descending ranges, empty lists and junk are refused");
    TAP_CHECK(&t, cpus("62-70") == (3ull << 62), "CPUs beyond the array are ignored, not written");

    int order[4];
    size_t n = 0;
    int rep = -1;
    TAP_CHECK(&t, mfb_parse_cpu_order("3,0-1", order, 4, &n, &rep) == 0 && n == 3 && order[0] == 3 && order[1] == 0 &&
                  order[2] == 1, "an ordered CPU list keeps the order given (thread 0 first)");
    TAP_CHECK(&t, mfb_parse_cpu_order("1,0-2", order, 4, &n, &rep) == -3 && rep == 1,
              "a CPU listed twice is refused and named");
    TAP_CHECK(&t, mfb_parse_cpu_order("0-4", order, 4, &n, &rep) == -2 && n == 4,
              "more CPUs than the array holds are refused, none written past it");
    TAP_CHECK(&t, mfb_parse_cpu_order("", order, 4, &n, &rep) == -1 && mfb_parse_cpu_order("1,", order, 4, &n, &rep) == -1 &&
                  mfb_parse_cpu_order("2-1", order, 4, &n, &rep) == -1 &&
                  mfb_parse_cpu_order("0-99999999999", order, 4, &n, &rep) == -4 &&
                  mfb_parse_cpu_order("70000", order, 4, &n, &rep) == -4,
              "empty, trailing-comma and descending lists are refused, and CPU numbers no kernel gives");

    TAP_CHECK(&t, bytes_is("48K", 48 << 10) && bytes_is("2M", 2 << 20) && bytes_is("32768", 32768) &&
                  bytes_is("1GiB", 1u << 30) && bytes_is("48K\n", 48 << 10),
              "sizes with suffixes as sysfs and --cache write them");
    size_t v = 7;
    TAP_CHECK(&t, mfb_parse_bytes("99999999999999999999G", &v) < 0 && mfb_parse_bytes("17179869184G", &v) < 0 &&
                  mfb_parse_bytes("1X", &v) < 0 && mfb_parse_bytes("1iB", &v) < 0 && v == 7,
              "overflowing and malformed sizes are refused");
    uint64_t u = 3;
    TAP_CHECK(&t, mfb_parse_u64("010", &u) == 0 && u == 10 && mfb_parse_u64("1.5", &u) < 0 && u == 10,
              "decimal integers are decimal and whole");
    return tap_done(&t);
}
