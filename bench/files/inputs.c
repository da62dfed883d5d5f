#include "files/inputs.h"

#include "base/msgpath.h"
#include "files/temporaries.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

const char *mfb_input_kind_name(enum mfb_input_kind kind)
{
    switch (kind) {
    case MFB_INPUT_DISTRIBUTION: return "distribution table";
    case MFB_INPUT_PLUGIN: return "plugin";
    case MFB_INPUT_SOURCE: return "source variant";
    case MFB_INPUT_HEADER: return "header a source variant includes";
    case MFB_INPUT_TRAINING: return "training table (--pgo-train)";
    case MFB_INPUT_TRACE: return "trace";
    case MFB_INPUT_PROBE_FILE: return "probe file";
    case MFB_INPUT_PROGRAM: return "program";
    case MFB_INPUT_RECORDING: return "recorded folder";
    case MFB_INPUT_BPFTRACE: return "bpftrace histogram";
    case MFB_INPUT_RECORDING_FILE: return "file of the recording";
    }
    return "input";
}

int mfb_inputs_add(struct mfb_inputs *in, enum mfb_input_kind kind, const char *path, size_t len, struct mfb_err *err)
{
    if (in->n == in->cap) {
        int cap = in->cap ? 2 * in->cap : 8;
        struct mfb_input *v = realloc(in->v, (size_t)cap * sizeof *v);
        if (!v)
            return mfb_fail(err, "out of memory listing the inputs");
        in->v = v;
        in->cap = cap;
    }
    char *copy = strndup(path, len);
    if (!copy)
        return mfb_fail(err, "out of memory listing the inputs");
    in->v[in->n++] = (struct mfb_input){.kind = kind, .path = copy};
    return 0;
}

static bool same(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

int mfb_inputs_check_output(const struct mfb_inputs *in, const char *path, const char *option, struct mfb_err *err)
{
    struct stat o, i;
    if (stat(path, &o) != 0)
        return 0;
    for (int k = 0; k < in->n; k++)
        if (stat(in->v[k].path, &i) == 0 && same(&o, &i)) {
            char shown[2][MFB_MSG_PATH_MAX / 2];
            return mfb_fail(err, "%s: %s names an input, the %s %s; it would be overwritten",
                            mfb_msg_path(path, shown[0], sizeof shown[0]), option, mfb_input_kind_name(in->v[k].kind),
                            mfb_msg_path(in->v[k].path, shown[1], sizeof shown[1]));
        }
    return 0;
}

int mfb_inputs_check_distinct(const struct mfb_inputs *in, struct mfb_err *err)
{
    struct stat a, b;
    for (int k = 1; k < in->n; k++) {
        if (stat(in->v[k].path, &a) != 0)
            continue;
        for (int j = 0; j < k; j++)
            if (stat(in->v[j].path, &b) == 0 && same(&a, &b))
                return mfb_fail(err, "%s: the same %s as %s (given twice, or through a link): its calls would be "
                                     "counted twice", in->v[k].path, mfb_input_kind_name(in->v[k].kind), in->v[j].path);
    }
    return 0;
}

void mfb_inputs_free(struct mfb_inputs *in)
{
    for (int k = 0; k < in->n; k++)
        free(in->v[k].path);
    free(in->v);
    *in = (struct mfb_inputs){0};
}

int mfb_output_folder_check(const char *cmd, const char *option, const char *path, struct mfb_err *err)
{
    if (!strcmp(path, "-"))
        return 0;
    /* the folder part: up to the last '/', "/" for a file at the root, "." without one */
    const char *slash = strrchr(path, '/');
    char dir[4096];
    int n = slash ? snprintf(dir, sizeof dir, "%.*s", slash == path ? 1 : (int)(slash - path), path)
                  : snprintf(dir, sizeof dir, ".");
    if (n < 0 || (size_t)n >= sizeof dir)
        return mfb_fail(err, "%s: %s %.200s...: the path is longer than %zu bytes", cmd, option, path, sizeof dir - 1);
    struct stat st;
    if (stat(dir, &st) != 0)
        return mfb_fail(err, "%s: %s %s: the folder %s does not exist", cmd, option, path, dir);
    if (!S_ISDIR(st.st_mode))
        return mfb_fail(err, "%s: %s %s: %s is not a folder", cmd, option, path, dir);
    /* a folder that takes no file (read-only, a file system such as /proc that root cannot write
     * either, a full disk) is found now, by making the temporary the output would start as, not
     * by access(2), which root passes everywhere */
    const char *base = slash ? slash + 1 : path;
    char *probe = mfb_temp_make(dir, *base ? base : "output", "-check", false);
    if (!probe)
        return mfb_fail(err, "%s: %s %s: cannot write into the folder %s: %s", cmd, option, path, dir, strerror(errno));
    mfb_temp_discard(probe);
    free(probe);
    return 0;
}
