/* Calls every entry point the ab shim interposes (ab/shim.c) a known number of times and checks
 * each result: tests/py/test_ab.py counts the calls through the shim. Built with -fno-builtin so
 * that every call stays a call. Exit 0 when every result is right, 1 otherwise.
 *
 * Then, as argv[1] asks, what a program under memfbench ab may do to it (tests/py/test_ab_hardening.py):
 *   sleep     sleeps 60 s (a program that hangs)
 *   ignore    ignores SIGINT, SIGTERM and SIGHUP from here on
 *   spawn     leaves a child sleeping 60 s in its process group, and exits
 *   daemon    leaves a daemon (double fork, setsid) sleeping 60 s, and exits
 *   write N   writes N bytes to stdout
 * in the order given: "ignore sleep", "daemon sleep". */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

void *__mempcpy(void *restrict d, const void *restrict s, size_t n);
void *__memcpy_chk(void *d, const void *s, size_t n, size_t room);
void *__memmove_chk(void *d, const void *s, size_t n, size_t room);
void *__mempcpy_chk(void *d, const void *s, size_t n, size_t room);
void *__memset_chk(void *d, int c, size_t n, size_t room);
int bcmp(const void *a, const void *b, size_t n);

/* Each entry point is called this many times, so its count stands out from any call the C
 * library's start-up makes. */
#define CALLS 7

static void sleep_long(void)
{
    for (int i = 0; i < 60; i++)
        sleep(1);
}

/* One of the behaviours above; argv[*i] names it, *i moves past its words. */
static int behave_one(int argc, char **argv, int *i)
{
    const char *what = argv[(*i)++];
    if (!strcmp(what, "sleep")) {
        sleep_long();
    } else if (!strcmp(what, "ignore")) {
        signal(SIGINT, SIG_IGN);
        signal(SIGTERM, SIG_IGN);
        signal(SIGHUP, SIG_IGN);
    } else if (!strcmp(what, "spawn")) {
        if (fork() == 0) {
            sleep_long();
            _exit(0);
        }
    } else if (!strcmp(what, "daemon")) {
        if (fork() == 0) {
            setsid();
            if (fork() == 0)
                sleep_long();
            _exit(0);
        }
    } else if (!strcmp(what, "write") && *i < argc) {
        static char buf[65536];
        memset(buf, 'w', sizeof buf);
        for (long left = atol(argv[(*i)++]); left > 0; left -= (long)sizeof buf)
            if (fwrite(buf, 1, left < (long)sizeof buf ? (size_t)left : sizeof buf, stdout) == 0)
                return 1;
    } else {
        fprintf(stderr, "ab_calls: unknown behaviour '%s'\n", what);
        return 2;
    }
    return 0;
}

/* The behaviours argv asks for, in order ("ignore sleep", "daemon sleep"). */
static int behave(int argc, char **argv)
{
    int rc = 0;
    for (int i = 1; i < argc && rc == 0;)
        rc = behave_one(argc, argv, &i);
    return rc;
}

int main(int argc, char **argv)
{
    char a[256], b[256] = {0}, c[64];
    int bad = 0;
    for (int i = 0; i < 256; i++)
        a[i] = (char)('a' + i % 26);
    for (int k = 0; k < CALLS; k++) {
        /* over 100 bytes: the test plugin that drops a long copy's last byte gets it wrong */
        bad |= memcpy(b, a, 200) != b || b[199] != a[199];
        bad |= memmove(b + 1, b, 30) != b + 1 || b[30] != a[29];
        bad |= (char *)mempcpy(c, a, 20) != c + 20 || c[19] != a[19];
        bad |= (char *)__mempcpy(c, a, 21) != c + 21 || c[20] != a[20];
        bad |= memset(c, 'x', 10) != c || c[9] != 'x';
        bad |= memcmp(a, a, 64) != 0 || memcmp("ab", "ac", 2) >= 0;
        bad |= bcmp(a, a, 64) != 0 || bcmp("ab", "ac", 2) == 0;
        bad |= __memcpy_chk(b, a, 16, sizeof b) != b || b[15] != a[15];
        bad |= __memmove_chk(b + 2, b, 16, sizeof b - 2) != b + 2 || b[17] != a[15];
        bad |= (char *)__mempcpy_chk(c, a, 12, sizeof c) != c + 12 || c[11] != a[11];
        bad |= __memset_chk(c, 'y', 8, sizeof c) != c || c[7] != 'y';
        wchar_t wa[8] = L"abcdefg", wb[8] = {0};
        bad |= wmemcpy(wb, wa, 8) != wb || wb[6] != L'g';
    }
    if (bad)
        fprintf(stderr, "ab_calls: a wrong result\n");
    return bad ? 1 : behave(argc, argv);
}
