/* The one channel on which memfbench's own child modes answer the memfbench that started them (a
 * study's process, ab's check, the counts replay under valgrind, --pgo's training, a suite's study):
 * never an exit status alone, a scraped log or lines on stdout.
 *
 * The parent (programs/run.h, `reply`) opens a pipe and names its write end in the child's
 * MEMFBENCH_REPLY_FD. The child takes it at start (mfb_reply_open: the variable is removed, so
 * nothing the child starts inherits it), says a first word at once (so a wrapper that never runs
 * it is found: MFB_FIRST_WORD_S), and at its end writes one reply: its fields, then its status and
 * its one-line message, then "end". A reply without "end" is no reply: the child died on the way.
 *
 * On the wire, a line per field, "KEY VALUE", the value with '\\' and newlines escaped; the reader
 * is bounded (MFB_REPLY_MAX) and typed (struct mfb_reply). */
#ifndef MFB_REPLY_H
#define MFB_REPLY_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"

#define MFB_REPLY_ENV "MEMFBENCH_REPLY_FD"
/* A reply is a few lines: 64 KiB bounds what a parent keeps of a child that writes without end. */
#define MFB_REPLY_MAX (64u << 10)
#define MFB_REPLY_FIELDS 16

enum mfb_reply_status {
    MFB_REPLY_OK,          /* it did what it was asked */
    MFB_REPLY_FAILED,      /* it refused or failed: the message says why */
    MFB_REPLY_INTERRUPTED, /* a stop request ended it: what it wrote, if anything, is partial */
};

/* --- the child's side: the channel is the process's own (static: the guard's signal handlers
 * write the last reply of a process they end) --- */

/* Takes the channel named in the environment, if any, and says the first word. */
void mfb_reply_open(void);
bool mfb_reply_wanted(void);
/* A field of the reply (before mfb_reply_close): KEY is one word, the value any text. */
void mfb_reply_field(const char *key, const char *value);
void mfb_reply_field_u64(const char *key, unsigned long long value);
/* The status and message, then "end", and the channel closed. Once: later calls do nothing. */
void mfb_reply_close(enum mfb_reply_status status, const char *message);
/* The same from a signal handler (write(2) only): the guard's last word for a process it ends. */
void mfb_reply_close_async(enum mfb_reply_status status, const char *message);

/* --- the parent's side --- */

struct mfb_reply {
    enum mfb_reply_status status;
    char message[1024];
    int n;
    struct {
        char key[32];
        char value[1024];
    } field[MFB_REPLY_FIELDS];
};

/* Whether text (len bytes) holds a whole reply: its last line is "end". */
bool mfb_reply_complete(const char *text, size_t len);
/* text into r: 0, or -1 with err naming what is wrong (no reply, no end, a line of no field). */
int mfb_reply_parse(const char *text, size_t len, struct mfb_reply *r, struct mfb_err *err);
/* A field's value, or NULL. */
const char *mfb_reply_get(const struct mfb_reply *r, const char *key);

#endif
