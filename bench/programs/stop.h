/* Stop requests: SIGINT (Ctrl-C), SIGTERM and SIGHUP (the terminal closed) ask memfbench to stop,
 * whatever it is doing. One module takes them for the whole process, so every command answers
 * them alike: the rounds of a study end and keep what was measured, a supervised program (a
 * study's process, the compiler, valgrind, the user's program) is passed the request and stopped
 * with everything it started (programs/run.h), and the command exits with 128 + the signal (130,
 * 143, 129) after one line saying what was interrupted.
 *
 * A signal handler reaches only static storage, so the request lives here, in this file's statics:
 * the signal, whether a process sent it (kill(2)) rather than the terminal, and a pipe the
 * handlers write a byte into, so that a wait sleeping in poll(2) on it never misses a request
 * that arrives just before it sleeps. */
#ifndef MFB_STOP_H
#define MFB_STOP_H

#include <signal.h>
#include <stdbool.h>

/* The handlers for SIGINT, SIGTERM and SIGHUP (and SIGCHLD, which only wakes a wait). Idempotent:
 * every command calls it before it starts anything it must clean up after. */
void mfb_stop_install(void);
/* The signal of the first stop request since install, or 0. Async-signal-safe. */
int mfb_stop_signal(void);
/* The same, as the flag the rounds poll (measure/rounds.h): set to the signal, never cleared. */
volatile sig_atomic_t *mfb_stop_flag(void);
/* Whether the request came from a process (kill(2), a supervisor) rather than the terminal, which
 * sends it to the whole foreground process group at once. */
bool mfb_stop_sent(void);
/* An async-signal-safe function called from the handler with the signal (the guard's: a variant
 * call that never returns is ended by it); NULL removes it. */
void mfb_stop_on_request(void (*hook)(int sig));
/* The read end of the wake pipe (a byte for every request and every child's end), or -1 before
 * install; mfb_stop_drain empties it. */
int mfb_stop_wake_fd(void);
void mfb_stop_drain(void);
/* Async-signal-safe: one more wake-up (a handler of another module's). */
void mfb_stop_poke(void);
/* The exit status of a command ended by the request: 128 + its signal (130 for SIGINT, 143 for
 * SIGTERM, 129 for SIGHUP); 130 when no request came. */
int mfb_stop_exit_status(void);
/* "SIGINT", "SIGTERM", "SIGHUP", else "signal N" (in a static buffer). */
const char *mfb_stop_signal_name(int sig);

#endif
