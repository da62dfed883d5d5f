#include "orchestrate/guard.h"

#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "base/error.h"
#include "programs/reply.h"

static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
#define NFATAL (sizeof fatal_signals / sizeof fatal_signals[0])

/* A signal handler can reach only static storage: the guarded activity, the file to remove, and
 * the watchdog's last look at the beat. One guard per process. */
static struct {
    struct mfb_activity *a;
    const char *tmp;
    sig_atomic_t last_beat;
    double watchdog_s;
    volatile sig_atomic_t stop_ticks;  /* ticks since a stop request; -1: none */
    volatile sig_atomic_t stop_signal; /* the signal that asked for it; 0: not known */
    struct sigaction previous[NFATAL]; /* per fatal_signals[i]: the handler before ours (a sanitizer's) */
} guard;

/* The handlers' own stack: a variant that overflows its stack still gets its report. */
static unsigned char alt_stack[1 << 16];


/* Async-signal-safe message assembly: only write(2) and our own formatting. */
struct line {
    char buf[1024];
    size_t n;
};

static void put(struct line *l, const char *s)
{
    while (s && *s && l->n < sizeof l->buf - 1)
        l->buf[l->n++] = *s++;
}

static void put_u(struct line *l, uint64_t v)
{
    char d[24];
    int k = 0;
    do
        d[k++] = (char)('0' + v % 10);
    while ((v /= 10) && k < (int)sizeof d);
    while (k > 0 && l->n < sizeof l->buf - 1)
        l->buf[l->n++] = d[--k];
}

static void put_i(struct line *l, int64_t v)
{
    if (v < 0) {
        put(l, "-");
        put_u(l, (uint64_t)0 - (uint64_t)v);
    } else {
        put_u(l, (uint64_t)v);
    }
}

static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV (invalid memory access)";
    case SIGBUS: return "SIGBUS (bus error)";
    case SIGILL: return "SIGILL (illegal instruction)";
    case SIGFPE: return "SIGFPE (arithmetic exception)";
    case SIGABRT: return "SIGABRT (abort)";
    default: return "a signal";
    }
}

/* "variant 'x' (plugin lib.so:sym) <what> while <phase and call><then>", then exit with status. */
static void report_and_exit_with(const char *what, const char *then, int status)
{
    const struct mfb_activity *a = guard.a;
    struct line l = {.n = 0};
    put(&l, "memfbench: variant '");
    put(&l, a->variant);
    put(&l, "'");
    if (a->origin) {
        put(&l, " (");
        put(&l, a->origin);
        put(&l, ")");
    }
    put(&l, " ");
    put(&l, what);
    switch ((enum mfb_phase)a->phase) {
    case MFB_PHASE_LOADING:
        put(&l, " while being loaded");
        break;
    case MFB_PHASE_VERIFYING:
        put(&l, " while being verified: ");
        put(&l, a->function);
        put(&l, " of ");
        put_u(&l, a->size);
        put(&l, " bytes, source address % 4096 = ");
        put_u(&l, a->src_mod);
        put(&l, ", destination % 4096 = ");
        put_u(&l, a->dst_mod);
        put(&l, ", overlap delta ");
        put_i(&l, a->delta);
        break;
    case MFB_PHASE_CALIBRATING:
        put(&l, " while its batch was calibrated (calls of up to ");
        put_u(&l, a->size);
        put(&l, " bytes, which passed verification)");
        break;
    case MFB_PHASE_TIMING:
        put(&l, " while being timed in round ");
        put_u(&l, a->round);
        put(&l, " (calls of up to ");
        put_u(&l, a->size);
        put(&l, " bytes, which passed verification)");
        break;
    default:
        break;
    }
    put(&l, then);
    /* the parent that started this process hears the same line (programs/reply.h) */
    l.buf[l.n] = '\0';
    mfb_reply_close_async(status == MFB_EXIT_FAIL ? MFB_REPLY_FAILED : MFB_REPLY_INTERRUPTED, l.buf + 11);
    put(&l, "\n");
    ssize_t w = write(STDERR_FILENO, l.buf, l.n);
    (void)w;
    if (guard.tmp)
        unlink(guard.tmp);
    _exit(status);
}

/* Whether the code under test is running (loaded, verified, calibrated or timed). */
static bool in_variant(void)
{
    return guard.a && guard.a->phase != MFB_PHASE_IDLE && guard.a->phase != MFB_PHASE_PREPARING &&
           guard.a->phase != MFB_PHASE_BUILDING;
}

static void report_and_exit(const char *what)
{
    report_and_exit_with(what, "", MFB_EXIT_FAIL);
}

static void on_fatal(int sig, siginfo_t *info, void *ctx)
{
    (void)ctx;
    if (in_variant()) {
        struct line l = {.n = 0};
        put(&l, "crashed with ");
        put(&l, signal_name(sig));
        report_and_exit(l.buf);
    }
    /* Not inside a variant: a bug of memfbench itself. Remove the partial file and hand the signal
     * to whoever handled it before (the default: a core; a sanitizer: its report). A fault comes
     * back by itself when the faulting instruction runs again; a sent signal is sent again. */
    if (guard.tmp)
        unlink(guard.tmp);
    for (size_t i = 0; i < NFATAL; i++)
        if (fatal_signals[i] == sig)
            sigaction(sig, &guard.previous[i], NULL);
    if (info->si_code <= 0)
        raise(sig);
}

/* After a stop request the timer ticks every STOP_TICK_US. memfbench's own set-up (PREPARING)
 * ends at the first tick. Loading, verification or calibration still under way after
 * STOP_GRACE_TICKS of them ends the run there (nothing is measured yet); the rounds check the
 * request before each batch and keep the whole rounds they measured, so the guard ends them only
 * when a call has not returned for a whole tick (a hang), as its samples cannot be written
 * safely while the code under test holds the thread. Either way, within a second of the signal
 * and without a result file. */
#define STOP_TICK_US 250000
#define STOP_GRACE_TICKS 3

static const char *stop_signal_name(int sig)
{
    switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: return "a stop request (SIGINT, SIGTERM or SIGHUP)";
    }
}

/* A stop that found the code under test in a call: the line says the signal stopped it there, not
 * that the variant hung. A call still running 0.75 s later may be stuck, or may be large (a 64 MiB
 * call's check fills, copies and compares 64 MiB several times over), and the guard cannot tell
 * which; the phase's words that follow name the call or batch (its size, while verified), and
 * nothing is blamed. */
static void stopped_in_a_call(bool rounds)
{
    struct line l = {.n = 0};
    put(&l, "was stopped by ");
    put(&l, stop_signal_name(guard.stop_signal));
    put(&l, rounds ? " in a batch of its calls still under way 0.75 s after the signal,"
                   : " in a call still under way 0.75 s after the signal,");
    report_and_exit_with(l.buf, "; the run ends without a result file", guard.stop_signal ? 128 + guard.stop_signal : MFB_EXIT_INTERRUPTED);
}

static void on_tick(int sig)
{
    (void)sig;
    if (guard.stop_ticks >= 0 && guard.a && guard.a->phase == MFB_PHASE_PREPARING) {
        static const char msg[] = "memfbench: interrupted while preparing the run (before any variant ran); "
                                  "no result file\n";
        mfb_reply_close_async(MFB_REPLY_INTERRUPTED, "interrupted while preparing the run (before any variant ran); "
                                                     "no result file");
        ssize_t w = write(STDERR_FILENO, msg, sizeof msg - 1);
        (void)w;
        if (guard.tmp)
            unlink(guard.tmp);
        _exit(guard.stop_signal ? 128 + guard.stop_signal : MFB_EXIT_INTERRUPTED);
    }
    if (guard.stop_ticks >= 0 && in_variant()) {
        bool moved = guard.a->beat != guard.last_beat;
        guard.last_beat = guard.a->beat;
        bool rounds = guard.a->phase == MFB_PHASE_TIMING;
        if (++guard.stop_ticks >= STOP_GRACE_TICKS && (!rounds || !moved))
            stopped_in_a_call(rounds);
    }
    if (guard.stop_ticks >= 0)
        return; /* the watchdog's period is not kept while stopping */
    if (!in_variant()) {
        guard.last_beat = guard.a ? guard.a->beat : 0;
        return;
    }
    if (guard.a->beat != guard.last_beat) {
        guard.last_beat = guard.a->beat;
        return;
    }
    struct line l = {.n = 0};
    put(&l, "did not return for over ");
    put_u(&l, (uint64_t)guard.watchdog_s);
    put(&l, " s (--watchdog)");
    report_and_exit(l.buf);
}

/* exit() called by the code under test runs this; memfbench's own exits happen when idle. */
static void on_exit_call(void)
{
    if (in_variant())
        report_and_exit("called exit()");
}

void mfb_guard_install(struct mfb_activity *a, const char *tmp_path, double watchdog_s)
{
    static bool at_exit_registered;
    guard.a = a;
    guard.tmp = tmp_path;
    guard.watchdog_s = watchdog_s;
    guard.last_beat = a->beat;
    guard.stop_ticks = -1;
    stack_t ss = {.ss_sp = alt_stack, .ss_size = sizeof alt_stack};
    sigaltstack(&ss, NULL);
    struct sigaction sa = {.sa_sigaction = on_fatal, .sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER};
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < NFATAL; i++)
        sigaction(fatal_signals[i], &sa, &guard.previous[i]);
    struct sigaction tick = {.sa_handler = on_tick, .sa_flags = SA_RESTART};
    sigemptyset(&tick.sa_mask);
    sigaction(SIGALRM, &tick, NULL);
    long us = (long)(watchdog_s * 1e6);
    struct itimerval it = {.it_interval = {us / 1000000, us % 1000000}, .it_value = {us / 1000000, us % 1000000}};
    setitimer(ITIMER_REAL, &it, NULL);
    if (!at_exit_registered)
        at_exit_registered = atexit(on_exit_call) == 0;
}

void mfb_guard_stop_requested(int sig)
{
    if (!guard.a || guard.stop_ticks >= 0)
        return;
    guard.stop_signal = sig;
    guard.stop_ticks = 0;
    struct itimerval it = {.it_interval = {0, STOP_TICK_US}, .it_value = {0, STOP_TICK_US}};
    setitimer(ITIMER_REAL, &it, NULL);
}

void mfb_guard_remove(void)
{
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
    signal(SIGALRM, SIG_DFL);
    for (size_t i = 0; i < NFATAL; i++)
        sigaction(fatal_signals[i], &guard.previous[i], NULL);
    guard.a = NULL;
    guard.tmp = NULL;
}
