/* memfbench record -o DIR [--rate 1/N] [--flush S] -- PROGRAM ARGS...: runs the program with the
 * recorder preloaded (record/recorder.c), then turns what its processes counted into distribution
 * tables in DIR (workload/recording.h). DIR appears whole or not at all; the program's exit
 * status is passed through. */
#include <cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/commands.h"
#include "base/flags.h"
#include "base/inputs.h"
#include "orchestrate/program.h"
#include "report/folder.h"
#include "report/temporaries.h"
#include "report/provenance.h"
#include "config.h"
#include "workload/recording.h"
#include "workload/trace.h"

/* The options of memfbench record, in the order --help lists them (base/flags.h). */
static const struct mfb_flag record_flags[] = {
    MFB_ROW_OUTPUT("DIR", "the folder to create"),
    MFB_ROW("rate", required_argument, 'r', false, "1/N",
     "count the shape (size, alignment, ...) of every Nth call only (default 1/1);\n"
     "every call is still counted"),
    MFB_ROW("flush", required_argument, 'f', false, "S",
     "also write the counts every S seconds and on SIGUSR1 (long-lived services)"),
    MFB_ROW("trace", required_argument, 't', false, "N",
     "also keep each process's first N calls in order, with their callers:\n"
     "FUNCTION_trace.csv (memfbench run --trace FILE replays it) and callsites.csv"),
    MFB_ROW_HELP,
};

static void usage(FILE *out)
{
    fputs("usage: memfbench record -o DIR [--rate 1/N] [--flush S] -- PROGRAM [ARGS...]\n\n"
          "Runs PROGRAM with the recorder preloaded and writes the distribution of its calls to\n"
          "memcpy, memmove, memset, memcmp and bcmp as tables in DIR (a new folder):\n"
          "FUNCTION_size.csv and siblings, and provenance.json. Replay one with\n"
          "memfbench run -f FUNCTION -d DIR/FUNCTION_size.csv. PROGRAM's exit status is passed through.\n\n", out);
    mfb_flags_usage(out, record_flags, sizeof record_flags / sizeof record_flags[0]);
}

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

/* Whether s is a whole number from lo to hi. */
static bool whole_in(const char *s, long lo, long hi)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    return end != s && !*end && !errno && v >= lo && v <= hi;
}

struct record_args {
    const char *out, *rate, *flush, *trace; /* -o; --rate's N (of 1/N); --flush, --trace as given */
    int program;                            /* argv index of the program to record */
};

/* The options before the program's name: 0, or the exit status to end with (--help, a usage
 * error, said on stderr in one line). */
static int parse_args(int argc, char **argv, struct record_args *a)
{
    *a = (struct record_args){.rate = "1"};
    enum { NFLAGS = sizeof record_flags / sizeof record_flags[0] };
    struct option opts[NFLAGS + 1];
    char shorts[MFB_FLAGS_SHORTS_CAP(NFLAGS)];
    /* options end at the program's name, so its own options are its own */
    mfb_flags_getopt(record_flags, NFLAGS, true, opts, shorts);
    optind = 0;
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, shorts, opts, NULL)) != -1) {
        switch (ch) {
        case 'o':
            a->out = optarg;
            break;
        case 'r': {
            const char *n = strchr(optarg, '/') ? strchr(optarg, '/') + 1 : optarg;
            if (!whole_in(n, 1, 1000000000L) || (strchr(optarg, '/') && strncmp(optarg, "1/", 2))) {
                fprintf(stderr, "memfbench record: --rate: '%s' is not 1/N with N from 1 to 10^9\n", optarg);
                return MFB_EXIT_USAGE;
            }
            a->rate = n;
            break;
        }
        case 'f':
            if (!whole_in(optarg, 1, 86400)) {
                fprintf(stderr, "memfbench record: --flush: '%s' is not a whole number of seconds from 1 to 86400\n",
                        optarg);
                return MFB_EXIT_USAGE;
            }
            a->flush = optarg;
            break;
        case 't':
            if (!whole_in(optarg, 1, (long)MFB_MAX_TRACE_CALLS)) {
                fprintf(stderr, "memfbench record: --trace: '%s' is not a number of calls from 1 to %u\n", optarg,
                        MFB_MAX_TRACE_CALLS);
                return MFB_EXIT_USAGE;
            }
            a->trace = optarg;
            break;
        case 'h':
            usage(stdout);
            return MFB_EXIT_OK;
        case ':':
            fprintf(stderr, "memfbench record: %s needs a value\n", argv[optind - 1]);
            return MFB_EXIT_USAGE;
        default:
            fprintf(stderr, "memfbench record: unknown option '%s' (see memfbench record --help)\n", argv[optind - 1]);
            return MFB_EXIT_USAGE;
        }
    }
    if (!a->out) {
        fprintf(stderr, "memfbench record: -o DIR is required\n");
        return MFB_EXIT_USAGE;
    }
    if (optind >= argc) {
        fprintf(stderr, "memfbench record: no program given (memfbench record -o DIR -- PROGRAM ARGS...)\n");
        return MFB_EXIT_USAGE;
    }
    a->program = optind;
    return -1;
}

/* What was recorded, or why nothing was, on stderr. */
static void report(const struct record_args *a, char **argv, const struct mfb_recording *rec, int written, long traced,
                   int status, const struct mfb_err *err)
{
    if (written > 0) {
        fprintf(stderr, "memfbench record: %s:", a->out);
        for (int f = 0; f < MFB_FUNC_COUNT; f++)
            if (rec->f[f].calls)
                fprintf(stderr, " %s %llu calls", mfb_func_name((enum mfb_func)f), (unsigned long long)rec->f[f].calls);
        fprintf(stderr, " (%d process%s); replay: memfbench run -f FUNCTION -d %s/FUNCTION_size.csv\n", rec->sources,
                rec->sources == 1 ? "" : "es", a->out);
        if (a->trace)
            fprintf(stderr, "memfbench record: traced %ld calls in order: memfbench run -f FUNCTION --trace "
                            "%s/FUNCTION_trace.csv; call sites by bytes: %s/callsites.csv\n", traced, a->out, a->out);
    } else if (written == 0 && status != 127) {
        fprintf(stderr, "memfbench record: no calls recorded: %s made none through the dynamic C library, "
                        "or ended without running its exit handlers (killed, _exit); %s not written\n",
                argv[a->program], a->out);
    } else if (written < 0) {
        fprintf(stderr, "memfbench record: %s\n", err->msg);
    }
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

int mfb_cmd_record(int argc, char **argv)
{
    struct record_args a;
    int parsed = parse_args(argc, argv, &a);
    if (parsed >= 0)
        return parsed;
    struct mfb_err err = {{0}};
    const char *lib = mfb_program_library("MEMFBENCH_RECORDER", MFB_RECORDER_BUILD_PATH, MFB_RECORDER_INSTALL_PATH);
    struct stat st;
    if (stat(lib, &st) != 0 || !S_ISREG(st.st_mode)) {
        fprintf(stderr, "memfbench record: the recorder library %s is missing (build it, or set MEMFBENCH_RECORDER)\n",
                lib);
        return MFB_EXIT_FAIL;
    }
    char *tmp = record_check_output(argv[a.program], a.out, &err) == 0 ? mfb_folder_begin(a.out, &err) : NULL;
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
    struct mfb_program_env env = {.preload = lib, .raw_dir = raw, .rate = a.rate, .flush = a.flush, .trace = a.trace};
    int status = mfb_program_run(argv + a.program, &env);
    struct mfb_recording rec = {0};
    int rc = add_raw_files(&rec, raw, &err);
    int written = rc == 0 ? mfb_recording_write(&rec, tmp, &err) : -1;
    long traced = written > 0 && a.trace ? mfb_trace_convert(raw, tmp, &err) : 0;
    if (traced < 0)
        written = -1;
    if (written > 0) {
        cJSON *p = provenance(argv + a.program, &rec, status);
        mfb_provenance_add_calls(p, &rec);
        written = mfb_folder_put_json(tmp, "provenance.json", p, &err) < 0 ? -1 : written;
        cJSON_Delete(p);
    }
    mfb_temp_remove_tree(raw);
    if (written > 0 && mfb_folder_commit(tmp, a.out, &err) < 0)
        written = -1;
    report(&a, argv, &rec, written, traced, status, &err);
    if (written <= 0) {
        mfb_folder_abort(tmp);
        if (status == 0)
            status = MFB_EXIT_FAIL;
    }
    mfb_recording_free(&rec);
    free(tmp);
    return status;
}
