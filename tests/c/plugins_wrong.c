/* Plugins that misbehave on purpose, for the tests that the correctness check rejects them and
 * that the guard (bench/orchestrate/guard.c) names them when they crash, exit or hang. */
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Drops the last byte of copies over 100 bytes. */
void *dropping_memcpy(void *restrict dst, const void *restrict src, size_t n)
{
    return memmove(dst, src, n > 100 ? n - 1 : n);
}

/* Wrong at one size only (777 bytes): found only if verification reaches that size. */
void *one_size_memcpy(void *restrict dst, const void *restrict src, size_t n)
{
    memmove(dst, src, n);
    if (n == 777)
        ((unsigned char *)dst)[n / 2] ^= 1;
    return dst;
}

/* A real invalid access (the address is hidden from the compiler, which would flag it). */
static void fault(void)
{
    static volatile uintptr_t bad = 8;
    *(volatile int *)bad = 1;
}

/* Each misbehaves at the first call of 777 bytes, the shape only the full verification reaches. */
void *segv_memcpy(void *restrict dst, const void *restrict src, size_t n)
{
    if (n == 777)
        fault();
    return memmove(dst, src, n);
}

void *abort_memcpy(void *restrict dst, const void *restrict src, size_t n)
{
    if (n == 777)
        abort();
    return memmove(dst, src, n);
}

void *exit_memcpy(void *restrict dst, const void *restrict src, size_t n)
{
    if (n == 777)
        exit(0);
    return memmove(dst, src, n);
}

/* Creates the file named in $MEMFBENCH_TEST_MARK (when set): how a test learns the moment a
 * plugin below starts to misbehave and sends its signal then, not after a wait long enough for the
 * slowest machine. */
static void mark_the_moment(void)
{
    const char *mark = getenv("MEMFBENCH_TEST_MARK");
    if (mark)
        close(open(mark, O_WRONLY | O_CREAT, 0600));
}

void *hang_memcpy(void *restrict dst, const void *restrict src, size_t n)
{
    if (n == 777)
        mark_the_moment();
    while (n == 777)
        pause();
    return memmove(dst, src, n);
}

void *sigill_memcpy(void *restrict dst, const void *restrict src, size_t n)
{
    if (n == 777)
        raise(SIGILL);
    return memmove(dst, src, n);
}

void *sigbus_memcpy(void *restrict dst, const void *restrict src, size_t n)
{
    if (n == 777)
        raise(SIGBUS);
    return memmove(dst, src, n);
}

/* Correct until it has been called this often, then crashes: after verification, while timed. */
void *late_segv_memcpy(void *restrict dst, const void *restrict src, size_t n)
{
    static unsigned long calls;
    if (++calls > 3000000)
        fault();
    return memmove(dst, src, n);
}

/* Correct throughout, but from 2 seconds after its first call every call takes 250 us: verified
 * and calibrated fast, then each batch of 512 calls lasts about 130 ms, so thirty names of it make
 * rounds of about 4 s (a stop must not wait for the round to end). Its first slow call marks the
 * moment. */
static uint64_t mono_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* One clock per symbol: the first call of any of its names starts it (a plugin loaded under many
 * names is one library). */
static void *late_slow(void *restrict dst, const void *restrict src, size_t n, uint64_t *first, uint64_t ns)
{
    static int marked;
    uint64_t now = mono_ns();
    if (!*first)
        *first = now;
    if (now - *first >= 2000000000u) {
        if (!marked)
            mark_the_moment(), marked = 1;
        while (mono_ns() < now + ns)
            ;
    }
    return memmove(dst, src, n);
}

void *late_slow_memcpy(void *restrict dst, const void *restrict src, size_t n)
{
    static uint64_t first;
    return late_slow(dst, src, n, &first, 250000);
}

/* The same at 100 us a call: batches of about 50 ms, for a team of two threads on a loaded
 * two-CPU machine, where a 130 ms batch of busy-waiting can outlast the guard's 0.75 s grace. */
void *late_slow100_memcpy(void *restrict dst, const void *restrict src, size_t n)
{
    static uint64_t first;
    return late_slow(dst, src, n, &first, 100000);
}

/* Correct for its first 2 seconds of calls, then never returns (the moment marked): a hang while
 * timed (verification and calibration of a small distribution take well under a second). */
void *late_hang_memcpy(void *restrict dst, const void *restrict src, size_t n)
{
    static uint64_t first;
    uint64_t now = mono_ns();
    if (!first)
        first = now;
    if (now - first >= 2000000000u) {
        mark_the_moment();
        for (;;)
            pause();
    }
    return memmove(dst, src, n);
}

/* Returns dst + 1: the copy is right, the return value is not. */
void *offset_memcpy(void *restrict dst, const void *restrict src, size_t n)
{
    memmove(dst, src, n);
    return (char *)dst + 1;
}

/* Right in memfbench (its check passes), but in any other program ends the process at the first
 * call with status 0: the run that ends early and looks fast (memfbench ab must refuse it). */
extern char *program_invocation_short_name;

void *exit_in_program_memcpy(void *restrict dst, const void *restrict src, size_t n)
{
    if (strcmp(program_invocation_short_name, "memfbench") != 0)
        exit(0);
    return memmove(dst, src, n);
}

/* Right in memfbench, but never returns in any other program: a variant that hangs the program. */
void *hang_in_program_memcpy(void *restrict dst, const void *restrict src, size_t n)
{
    while (strcmp(program_invocation_short_name, "memfbench") != 0)
        pause();
    return memmove(dst, src, n);
}

/* Right in memfbench (its check passes), but drops a long copy's last byte in any other program:
 * a program whose own checks fail under this variant only. */
void *dropping_in_program_memcpy(void *restrict dst, const void *restrict src, size_t n)
{
    if (strcmp(program_invocation_short_name, "memfbench") != 0 && n > 100)
        n--;
    return memmove(dst, src, n);
}

/* Correct, but a call of 1 MiB or more takes 20 s (a large call on a slow machine, exaggerated),
 * and marks when it starts: a stop request sent then finds the run inside that call, whatever the
 * machine's speed before it. A signal's handler wakes the sleep; the wait goes on to its end, as a
 * long copy would. */
void *slow_large_memcpy(void *restrict dst, const void *restrict src, size_t n)
{
    if (n >= (1u << 20)) {
        mark_the_moment();
        uint64_t end = mono_ns() + 20000000000u;
        for (uint64_t now = mono_ns(); now < end; now = mono_ns()) {
            struct timespec left = {(time_t)((end - now) / 1000000000u), (long)((end - now) % 1000000000u)};
            nanosleep(&left, NULL);
        }
    }
    return memmove(dst, src, n);
}
