/* --label: which point of a series a result belongs to (a commit, a build, a date), for
 * `memfbench analyze history`. Given, or taken from git when a plugin's folder is a repository
 * (orchestrate/gitlabel.c). */
#ifndef MFB_BASE_LABEL_H
#define MFB_BASE_LABEL_H

#include <limits.h>

#include "base/error.h"

/* Long enough for a commit id with a describe prefix and a branch name; a label is one line of a
 * table, not a message. Characters (UTF-8), so the text holds up to 4 bytes each. */
#define MFB_LABEL_MAX 200
#define MFB_LABEL_BYTES (4 * MFB_LABEL_MAX)

enum mfb_label_source {
    MFB_LABEL_NONE,  /* no --label and no plugin in a git repository */
    MFB_LABEL_GIVEN, /* --label TEXT */
    MFB_LABEL_GIT    /* git describe of the first plugin's or source variant's folder */
};

struct mfb_label {
    enum mfb_label_source source;
    char text[MFB_LABEL_BYTES + 1];
    char folder[PATH_MAX];  /* MFB_LABEL_GIT: the folder git described */
    char time[40];          /* MFB_LABEL_GIT: the commit's date (ISO 8601); "" when unknown */
};

/* The source's name in the result file. */
const char *mfb_label_source_name(enum mfb_label_source s);
/* Checks a --label value: UTF-8 (the result file is JSON, which the analysis reads as UTF-8), at
 * most MFB_LABEL_MAX characters, no control character (C0, DEL, C1) nor bidirectional override (a
 * label is one line of a table, shown as written); -1 with the option and the position in err. */
int mfb_label_given(struct mfb_label *l, const char *text, struct mfb_err *err);
/* The longest valid label text from s (git's output, say): cut at MFB_LABEL_MAX characters, at a
 * character's boundary, each byte that is no UTF-8 or a control character as '?'; into out
 * (MFB_LABEL_BYTES + 1 bytes). */
void mfb_label_clean(const char *s, char *out);
#endif
