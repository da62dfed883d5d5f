/* memfbench record's run: the program run with the recorder preloaded (record/recorder.c), then
 * what its processes counted turned into distribution tables in DIR (workload/recording.h). DIR
 * appears whole or not at all; the program's exit status is passed through. */
#include "orchestrate/record_run.h"

#include <cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files/inputs.h"
#include "base/self.h"
#include "config.h"
#include "base/environ.h"
#include "base/msgpath.h"
#include "programs/find.h"
#include "programs/run.h"
#include "programs/stop.h"
#include "report/folder.h"
#include "report/provenance.h"
#include "files/temporaries.h"
#include "workload/recording.h"
#include "workload/trace.h"

static int add_raw_files(struct mfb_recording *rec, const char *raw_dir, struct mfb_err *err)
{
    DIR *d = opendir(raw_dir);
    if (!d)
        return mfb_fail(err, "%s: cannot read: %s", raw_dir, strerror(errno));
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d))) {
        size_t n = strlen(e->d_name);
        /* raw-<pid>.txt; a .tmp is a dump its process did not finish (killed while writing) */
        if (strncmp(e->d_name, "raw-", 4) || n < 8 || strcmp(e->d_name + n - 4, ".txt"))
            continue;
        char path[4096 + 256];
        snprintf(path, sizeof path, "%s/%s", raw_dir, e->d_name);
        rc = mfb_recording_add_raw(rec, path, err);
    }
    closedir(d);
    return rc;
}

static cJSON *provenance(char **argv, const struct mfb_recording *rec, int status)
{
    cJSON *p = mfb_provenance_new();
    cJSON *cmd = cJSON_AddArrayToObject(p, "command");
    for (char **a = argv; *a; a++)
        cJSON_AddItemToArray(cmd, cJSON_CreateString(*a));
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    cJSON_AddStringToObject(p, "host", host);
    cJSON_AddNumberToObject(p, "exit_status", status);
    cJSON_AddNumberToObject(p, "processes", rec->sources);
    cJSON_AddNumberToObject(p, "sampling_rate", (double)rec->rate);
    return p;
}

/* What was recorded, or why nothing was, on stderr. */
static void report(const struct mfb_record_request *a, const struct mfb_recording *rec, int written, long traced,
                   int status, const struct mfb_err *err)
{
    if (written > 0) {
        char self[4096];
        mfb_self_command(self, sizeof self);
        fprintf(stderr, "memfbench record: %s:", a->out);
        for (int f = 0; f < MFB_FUNC_COUNT; f++)
            if (rec->f[f].calls)
                fprintf(stderr, " %s %llu calls", mfb_func_name((enum mfb_func)f), (unsigned long long)rec->f[f].calls);
        fprintf(stderr, " (%d process%s); replay each with:\n", rec->sources, rec->sources == 1 ? "" : "es");
        /* a command per function, ready to run: no placeholder left for the reader to fill */
        for (int f = 0; f < MFB_FUNC_COUNT; f++)
            if (rec->f[f].calls)
                fprintf(stderr, "  %s run -f %s -d %s/%s_size.csv -o %s.json.gz\n", self, mfb_func_name((enum mfb_func)f),
                        a->out, mfb_func_name((enum mfb_func)f), mfb_func_name((enum mfb_func)f));
        if (a->trace) {
            fprintf(stderr, "memfbench record: traced %ld calls in order (call sites by bytes: %s/callsites.csv); "
                            "replay them in order with:\n", traced, a->out);
            for (int f = 0; f < MFB_FUNC_COUNT; f++)
                if (rec->f[f].calls)
                    fprintf(stderr, "  %s run -f %s --trace %s/%s_trace.csv -o %s-trace.json.gz\n", self,
                            mfb_func_name((enum mfb_func)f), a->out, mfb_func_name((enum mfb_func)f),
                            mfb_func_name((enum mfb_func)f));
        }
    } else if (written == 0 && status != 127) {
        fprintf(stderr, "memfbench record: no calls recorded: %s made none through the dynamic C library, "
                        "or ended without running its exit handlers (killed, _exit); %s not written\n",
                a->program[0], a->out);
    } else if (written < 0) {
        fprintf(stderr, "memfbench record: %s\n", err->msg);
    }
}

/* Runs the program with the recorder first in LD_PRELOAD and its settings in the environment:
 * its exit status (128 + the signal that ended it), 127 when it could not be started; a stop
 * request passes on to it (programs/run.h), *stopped then holds the signal. The program keeps
 * record's process group, as it may read the terminal, and gets SIGTERM when record dies, so its
 * recorder's exit handlers still write what was counted. */
static int run_program(const struct mfb_record_request *r, const char *lib, const char *raw, int *stopped,
                       bool *killed, char *timed_out, size_t cap)
{
    const char *old = getenv("LD_PRELOAD");
    size_t n = strlen(lib) + (old ? strlen(old) : 0) + 16;
    char *preload = malloc(n), dir[4200], rate[64], flush[64], trace[64];
    if (!preload) {
        fprintf(stderr, "memfbench record: out of memory\n");
        return MFB_EXIT_FAIL;
    }
    snprintf(preload, n, "LD_PRELOAD=%s%s%s", lib, old && *old ? ":" : "", old && *old ? old : "");
    snprintf(dir, sizeof dir, "MEMFBENCH_RECORD_DIR=%s", raw);
    snprintf(rate, sizeof rate, "MEMFBENCH_RECORD_RATE=%s", r->rate);
    snprintf(flush, sizeof flush, "MEMFBENCH_RECORD_FLUSH%s%s", r->flush ? "=" : "", r->flush ? r->flush : "");
    snprintf(trace, sizeof trace, "MEMFBENCH_RECORD_TRACE%s%s", r->trace ? "=" : "", r->trace ? r->trace : "");
    char *change[] = {preload, dir, rate, flush, trace};
    char **env = mfb_environ_with(change, 5);
    struct mfb_prog p = {.kind = MFB_PROG_PROGRAM, .who = "memfbench record", .name = r->program[0],
                         .path = r->program[0], .argv = r->program, .env = env, .in = MFB_IO_INHERIT,
                         .out = MFB_IO_INHERIT, .err = MFB_IO_INHERIT, .keep_group = true, .death_signal = SIGTERM,
                         .deadlines = r->deadlines, .cpu = -1};
    struct mfb_prog_outcome o;
    struct mfb_err err = {{0}};
    int status = MFB_EXIT_FAIL;
    if (!env) {
        fprintf(stderr, "memfbench record: out of memory\n");
    } else if (mfb_prog_run(&p, &o, &err) < 0) {
        fprintf(stderr, "%s\n", err.msg);
    } else {
        char how[400];
        mfb_prog_describe(&p, &o, how, sizeof how);
        status = o.status;
        if (o.end == MFB_PROG_NOT_STARTED) {
            char why[MFB_MSG_PATH_MAX];
            fprintf(stderr, "memfbench record: %s\n", mfb_msg_path(o.why, why, sizeof why)); /* one line, whatever it names */
            status = 127;
        } else if (o.end == MFB_PROG_STOPPED) {
            *stopped = o.signal; /* said in the one line the end of record prints */
            *killed = o.killed;
        } else if (o.end == MFB_PROG_TIMED_OUT) {
            snprintf(timed_out, cap, "%s: %s", r->program[0], how); /* likewise */
            status = MFB_EXIT_FAIL;
        } else if (o.end != MFB_PROG_EXITED) {
            fprintf(stderr, "memfbench record: %s: %s\n", r->program[0], how);
        }
        mfb_prog_outcome_free(&o);
    }
    free(env);
    free(preload);
    return status;
}

/* What record reads is the program (a name without a slash is looked up in PATH, never in the
 * current folder, so only a path can name a file here): the new folder must not be it. */
static int record_check_output(const char *program, const char *out, struct mfb_err *err)
{
    struct mfb_inputs in = {0};
    int rc = strchr(program, '/') ? mfb_inputs_add(&in, MFB_INPUT_PROGRAM, program, strlen(program), err) : 0;
    if (rc == 0)
        rc = mfb_inputs_check_output(&in, out, "-o", err);
    mfb_inputs_free(&in);
    return rc;
}

int mfb_record_execute(const struct mfb_record_request *r)
{
    /* before the folder's temporary exists: a stop passes on to the program and removes it */
    mfb_stop_install();
    mfb_temp_sweep();
    struct mfb_err err = {{0}};
    const char *lib = mfb_program_library("MEMFBENCH_RECORDER", MFB_RECORDER_BUILD_PATH, MFB_RECORDER_INSTALL_PATH);
    struct stat st;
    if (stat(lib, &st) != 0 || !S_ISREG(st.st_mode)) {
        fprintf(stderr, "memfbench record: the recorder library %s is missing (build it, or set MEMFBENCH_RECORDER)\n",
                lib);
        return MFB_EXIT_FAIL;
    }
    char *tmp = record_check_output(r->program[0], r->out, &err) == 0 ? mfb_folder_begin(r->out, &err) : NULL;
    if (!tmp) {
        fprintf(stderr, "memfbench record: %s\n", err.msg);
        return MFB_EXIT_USAGE;
    }
    char raw[4096];
    snprintf(raw, sizeof raw, "%s/raw", tmp);
    if (mkdir(raw, 0700) != 0) {
        fprintf(stderr, "memfbench record: %s: %s\n", raw, strerror(errno));
        mfb_folder_abort(tmp);
        return MFB_EXIT_FAIL;
    }
    int stopped = 0;
    bool killed = false;
    char timed_out[512] = "";
    int status = run_program(r, lib, raw, &stopped, &killed, timed_out, sizeof timed_out);
    struct mfb_recording rec = {0};
    int rc = add_raw_files(&rec, raw, &err);
    int written = rc == 0 ? mfb_recording_write(&rec, tmp, &err) : -1;
    long traced = written > 0 && r->trace ? mfb_trace_convert(raw, tmp, &err) : 0;
    if (traced < 0)
        written = -1;
    if (written > 0) {
        cJSON *p = provenance(r->program, &rec, status);
        mfb_provenance_add_calls(p, &rec);
        written = mfb_folder_put_json(tmp, "provenance.json", p, &err) < 0 ? -1 : written;
        cJSON_Delete(p);
    }
    mfb_temp_remove_tree(raw);
    /* The program may have made DIR itself while it ran (mfb_folder_begin saw none): the recording
     * is not lost for that, nor put over what the program wrote, but kept beside it under a free
     * name, said in one line; the status is then not 0, as DIR is not the recording a script
     * would look for there. */
    char placed[4096];
    struct mfb_record_request at = *r;
    int where = written > 0 ? mfb_folder_commit_beside(tmp, r->out, placed, sizeof placed, &err) : 0;
    if (where < 0) {
        fprintf(stderr, "memfbench record: %s\n", err.msg);
        free(tmp); /* kept, not aborted: it holds the only copy of the recording */
        mfb_recording_free(&rec);
        return status == 0 ? MFB_EXIT_FAIL : status;
    }
    if (where == 1) {
        fprintf(stderr, "memfbench record: %s appeared while the program ran (it made it?), so the recording is in "
                        "%s beside it; %s is left as it is\n", r->out, placed, r->out);
        at.out = placed;
        if (status == 0)
            status = MFB_EXIT_FAIL;
    }
    if (!stopped && !timed_out[0]) /* a stop or a deadline is said in one line, below */
        report(&at, &rec, written, traced, status, &err);
    if (timed_out[0])
        fprintf(stderr, "memfbench record: %s; %s\n", timed_out,
                written > 0 ? "the folder holds the calls counted until then" : "nothing written");
    if (written <= 0) {
        mfb_folder_abort(tmp);
        if (status == 0)
            status = MFB_EXIT_FAIL;
    }
    /* A stop ends record as it ends every command: 128 + the signal, after saying what it kept. */
    if (stopped) {
        char grace[96] = "";
        if (killed)
            snprintf(grace, sizeof grace, " (it did not end within %g s and was killed)",
                     mfb_prog_kind(MFB_PROG_PROGRAM)->grace_s);
        fprintf(stderr, "memfbench record: interrupted by %s%s: %s\n", mfb_stop_signal_name(stopped), grace,
                written > 0 ? "the folder holds the calls counted until then" : "nothing written");
        status = 128 + stopped;
    }
    mfb_recording_free(&rec);
    free(tmp);
    return status;
}
