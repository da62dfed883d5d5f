#include "programs/stop.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

static volatile sig_atomic_t stop_signal, stop_sent;
static void (*volatile stop_hook)(int sig);
static int wake[2] = {-1, -1};

void mfb_stop_poke(void)
{
    int saved = errno;
    if (wake[1] >= 0 && write(wake[1], "", 1) < 0) {
        /* the pipe is full: a wake-up is already pending */
    }
    errno = saved;
}

static void on_stop(int sig, siginfo_t *info, void *ctx)
{
    (void)ctx;
    if (!stop_signal) {
        stop_signal = sig;
        stop_sent = info->si_code <= 0; /* SI_USER, SI_QUEUE, SI_TKILL: kill(2) and its kin */
    }
    void (*hook)(int) = stop_hook;
    if (hook)
        hook(sig);
    mfb_stop_poke();
}

static void on_child(int sig)
{
    (void)sig;
    mfb_stop_poke();
}

void mfb_stop_install(void)
{
    if (wake[0] >= 0)
        return;
    if (pipe(wake) == 0)
        for (int i = 0; i < 2; i++)
            fcntl(wake[i], F_SETFL, O_NONBLOCK), fcntl(wake[i], F_SETFD, FD_CLOEXEC);
    /* no SA_RESTART: a blocking read or wait returns EINTR and looks at the request */
    struct sigaction sa = {.sa_sigaction = on_stop, .sa_flags = SA_SIGINFO};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    struct sigaction ch = {.sa_handler = on_child, .sa_flags = SA_NOCLDSTOP | SA_RESTART};
    sigemptyset(&ch.sa_mask);
    sigaction(SIGCHLD, &ch, NULL);
}

int mfb_stop_signal(void)
{
    return stop_signal;
}

volatile sig_atomic_t *mfb_stop_flag(void)
{
    return &stop_signal;
}

bool mfb_stop_sent(void)
{
    return stop_sent;
}

void mfb_stop_on_request(void (*hook)(int sig))
{
    stop_hook = hook;
}

int mfb_stop_wake_fd(void)
{
    return wake[0];
}

void mfb_stop_drain(void)
{
    char buf[64];
    if (wake[0] >= 0)
        while (read(wake[0], buf, sizeof buf) > 0)
            ;
}

int mfb_stop_exit_status(void)
{
    return stop_signal ? 128 + stop_signal : 130;
}

const char *mfb_stop_signal_name(int sig)
{
    static char other[24];
    switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    case SIGKILL: return "SIGKILL";
    default:
        snprintf(other, sizeof other, "signal %d", sig);
        return other;
    }
}
