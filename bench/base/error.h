/* One error message per failure: modules fill an mfb_err and return -1; main prints it once. */
#ifndef MFB_ERROR_H
#define MFB_ERROR_H

struct mfb_err {
    char msg[1024];
};

/* Formats msg into err (printf-style) and returns -1 so callers can `return mfb_fail(...)`. */
int mfb_fail(struct mfb_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
