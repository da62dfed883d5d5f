/* One error message per failure: modules fill an mfb_err and return -1; main prints it once. */
#ifndef MFB_ERROR_H
#define MFB_ERROR_H

struct mfb_err {
    char msg[1024];
};

/* Exit statuses of every command, beside the errors that lead to them: 0 success; 1 the run
 * failed (bad input file, wrong variant, I/O); 2 bad command line; 130 interrupted (the result
 * file holds what was measured). */
enum mfb_exit { MFB_EXIT_OK = 0, MFB_EXIT_FAIL = 1, MFB_EXIT_USAGE = 2, MFB_EXIT_INTERRUPTED = 130 };

/* Formats msg into err (printf-style) and returns -1 so callers can `return mfb_fail(...)`. */
int mfb_fail(struct mfb_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
