/* Programs with a known mix of memory-function calls, for the recorder's tests and its overhead
 * benchmark (tools/bench_record.py). Calls go through volatile pointers so the compiler neither
 * inlines nor drops them: every one reaches the dynamic C library (or the recorder before it).
 *
 *   record_mix mix            1000 x memcpy 17 B (16-aligned), 10 x memset 4096 B, 5 x memmove 100 B
 *                             forward-overlapping, 7 x memcmp 32 B equal, 3 x memcmp 32 B differing
 *                             at byte 5, 2 x bcmp 8 B differing at the last byte
 *   record_mix threads K      the mix in each of K threads
 *   record_mix fork           the mix in the parent, then again in a forked child
 *   record_mix loop N SIZE    N memcpy calls of SIZE bytes; prints the ns per call
 *   record_mix exit CODE      the mix, then exit(CODE)
 *   record_mix kill           the mix, then SIGKILL to itself */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void *(*volatile cp)(void *, const void *, size_t) = memcpy;
static void *(*volatile mv)(void *, const void *, size_t) = memmove;
static void *(*volatile st)(void *, int, size_t) = memset;
static int (*volatile cmpf)(const void *, const void *, size_t) = memcmp;
static int (*volatile bcmpf)(const void *, const void *, size_t) = bcmp;

static void *mix(void *arg)
{
    (void)arg;
    static __thread unsigned char a[8192] __attribute__((aligned(64))), b[8192] __attribute__((aligned(64)));
    for (int i = 0; i < 1000; i++)
        cp(a + 16, b + 16, 17);
    for (int i = 0; i < 10; i++)
        st(a + 4096, i, 4096);
    for (int i = 0; i < 5; i++)
        mv(a + 110, a + 100, 100); /* destination inside the source, after it: forward */
    st(a, 7, 64);
    st(b, 7, 64);
    for (int i = 0; i < 7; i++)
        cmpf(a, b, 32);
    b[5] = 9;
    for (int i = 0; i < 3; i++)
        cmpf(a, b, 32);
    b[5] = 7;
    b[7] = 1;
    for (int i = 0; i < 2; i++)
        bcmpf(a, b, 8);
    return NULL;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "mix";
    if (!strcmp(mode, "loop") && argc == 4) {
        long n = atol(argv[2]);
        size_t size = (size_t)atol(argv[3]);
        static unsigned char a[1 << 16], b[1 << 16];
        double t0 = now();
        for (long i = 0; i < n; i++)
            cp(a, b, size);
        printf("%.3f\n", (now() - t0) / (double)n);
        return 0;
    }
    if (!strcmp(mode, "threads") && argc == 3) {
        int k = atoi(argv[2]);
        pthread_t t[64];
        for (int i = 0; i < k && i < 64; i++)
            pthread_create(&t[i], NULL, mix, NULL);
        for (int i = 0; i < k && i < 64; i++)
            pthread_join(t[i], NULL);
        return 0;
    }
    mix(NULL);
    if (!strcmp(mode, "fork")) {
        pid_t pid = fork();
        if (pid == 0) {
            mix(NULL);
            exit(0);
        }
        int status;
        waitpid(pid, &status, 0);
    } else if (!strcmp(mode, "exit") && argc == 3) {
        exit(atoi(argv[2]));
    } else if (!strcmp(mode, "kill")) {
        kill(getpid(), SIGKILL);
    }
    return 0;
}
