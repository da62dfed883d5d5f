#include "orchestrate/gitlabel.h"

#include <stdio.h>
#include <string.h>

#include "impl/plugin.h"
#include "impl/source.h"
#include "programs/run.h"

/* The first line git prints for args, in out (at most n - 1 bytes); -1 when git is missing, the
 * folder is no repository or the output is empty. git's messages go to /dev/null: no label is a
 * normal outcome here, not an error to show. git runs as a tool (programs/run.h): a repository on a
 * hung network file system cannot hold the study. */
static int git_line(const char *const args[], char *out, size_t n)
{
    struct mfb_prog p = {.kind = MFB_PROG_TOOL, .who = "memfbench", .name = "git", .path = "git",
                         .argv = (char *const *)args, .in = MFB_IO_NULL, .out = MFB_IO_CAPTURE, .err = MFB_IO_NULL,
                         .capture_max = 4096, .cpu = -1};
    struct mfb_prog_outcome o;
    struct mfb_err ignored;
    if (mfb_prog_run(&p, &o, &ignored) < 0)
        return -1;
    bool ok = mfb_prog_ok(&o) && o.out;
    snprintf(out, n, "%s", ok ? o.out : "");
    mfb_prog_outcome_free(&o);
    out[strcspn(out, "\n")] = '\0';
    return ok && out[0] ? 0 : -1;
}

void mfb_label_default(struct mfb_label *l, const char *const *variants, int nvariants)
{
    memset(l, 0, sizeof *l);
    for (int i = 0; i < nvariants; i++) {
        enum mfb_source_kind kind;
        if (!mfb_plugin_spec(variants[i]) && !mfb_source_spec(variants[i], &kind))
            continue;
        /* the folder of the shared object (its build folder, which is inside its repository) or of
         * the source variant's file */
        const char *colon = strrchr(variants[i], ':');
        const char *slash = memrchr(variants[i], '/', (size_t)(colon - variants[i]));
        int len = slash ? (int)(slash - variants[i]) : 1;
        snprintf(l->folder, sizeof l->folder, "%.*s", len == 0 ? 1 : len, slash ? variants[i] : ".");
        /* read without side effects: no core.fsmonitor command of the repository run, and no index
         * written: `describe --dirty` refreshes and writes the index whatever --no-optional-locks
         * says (git 2.39), `status` honours it, so dirty is status's answer */
        const char *describe[] = {"git", "--no-optional-locks", "-c", "core.fsmonitor=", "-C", l->folder, "describe",
                                  "--always", "--tags", NULL};
        const char *status[] = {"git", "--no-optional-locks", "-c", "core.fsmonitor=", "-C", l->folder, "status",
                                "--porcelain", "--untracked-files=no", NULL};
        char raw[MFB_LABEL_BYTES + 1], change[8];
        if (git_line(describe, raw, sizeof raw - 6) != 0) {
            memset(l, 0, sizeof *l);
            return;
        }
        if (git_line(status, change, sizeof change) == 0) /* a line: a tracked file changed */
            strcat(raw, "-dirty");
        mfb_label_clean(raw, l->text); /* a tag name is any bytes: the label stays UTF-8, whole characters */
        const char *date[] = {"git", "--no-optional-locks", "-c", "core.fsmonitor=", "-C", l->folder, "log", "-1",
                              "--format=%cI", NULL};
        if (git_line(date, l->time, sizeof l->time) != 0)
            l->time[0] = '\0';
        l->source = MFB_LABEL_GIT;
        return;
    }
}
