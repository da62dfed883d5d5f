/* Containment of the code under test. A variant (a plugin above all) that crashes (SIGSEGV,
 * SIGBUS, SIGILL, SIGFPE, abort), calls exit(), or stops returning must not end the run silently
 * or leave it hanging: the guard reports which variant, in which phase and on which call, removes
 * the temporary result file and exits with MFB_EXIT_FAIL.
 *
 * Hangs: a periodic timer (every watchdog seconds) checks that the activity's beat moved since
 * the previous tick; a variant that stays inside one call is reported between watchdog and twice
 * watchdog seconds after it stopped returning. Not covered: a variant that calls _exit() or
 * blocks SIGALRM itself, or SIGKILL; with --processes the parent then reports the child's exit
 * status.
 *
 * Stops: after mfb_guard_stop_requested (from a SIGINT/SIGTERM/SIGHUP handler), a variant call,
 * verification or calibration still under way 0.75 s later ends the process with
 * MFB_EXIT_INTERRUPTED and a line saying which signal stopped it in which variant and call,
 * without a result file. The line does not call the variant hung: a large call (64 MiB, verified
 * by filling and comparing its buffers) may well take that long. */
#ifndef MFB_GUARD_H
#define MFB_GUARD_H

#include "base/activity.h"

/* Installs the handlers for activity a. tmp_path (may be NULL) is removed on a failure; both
 * must outlive the guard. */
void mfb_guard_install(struct mfb_activity *a, const char *tmp_path, double watchdog_s);
/* Async-signal-safe: a stop was requested by signal sig (SIGINT, SIGTERM or SIGHUP, named in the
 * line; 0 when not known); see above. Nothing when no guard is installed. */
void mfb_guard_stop_requested(int sig);
/* Stops the timer and restores the default handlers. */
void mfb_guard_remove(void);

#endif
