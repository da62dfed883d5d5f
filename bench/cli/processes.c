#include "processes.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "rng.h"
#include "samples.h"

/* Options the parent sets itself for each child (with a value each). */
static bool replaced_option(const char *a, bool *takes_value)
{
    static const char *const longs[] = {"--processes", "--output", "--seed", "--time", "--process-index", NULL};
    for (int i = 0; longs[i]; i++) {
        size_t n = strlen(longs[i]);
        if (!strncmp(a, longs[i], n) && (a[n] == '\0' || a[n] == '=')) {
            *takes_value = a[n] == '\0';
            return true;
        }
    }
    if (a[0] == '-' && (a[1] == 'o' || a[1] == 's' || a[1] == 't')) {
        *takes_value = a[2] == '\0';
        return true;
    }
    return false;
}

static char *child_tmp(const char *target, int i)
{
    size_t n = strlen(target) + 64;
    char *p = malloc(n);
    const char *slash = strrchr(target, '/');
    if (slash)
        snprintf(p, n, "%.*s/.%s.proc%d.XXXXXX", (int)(slash - target), target, slash + 1, i);
    else
        snprintf(p, n, ".%s.proc%d.XXXXXX", target, i);
    int fd = mkstemp(p);
    if (fd < 0) {
        free(p);
        return NULL;
    }
    close(fd);
    return p;
}

static int spawn(const struct mfb_config *cfg, int i, uint64_t seed, double time_s, const char *tmp)
{
    char **argv = calloc((size_t)cfg->argc + 16, sizeof *argv);
    char seedbuf[32], idx[16], tbuf[32];
    int n = 0;
    argv[n++] = "memfbench";
    argv[n++] = "run";
    for (int k = 1; k < cfg->argc; k++) {
        bool value;
        if (replaced_option(cfg->argv[k], &value)) {
            k += value;
            continue;
        }
        argv[n++] = cfg->argv[k];
    }
    snprintf(seedbuf, sizeof seedbuf, "%llu", (unsigned long long)seed);
    snprintf(idx, sizeof idx, "%d", i);
    argv[n++] = "--seed";
    argv[n++] = seedbuf;
    argv[n++] = "--process-index";
    argv[n++] = idx;
    if (time_s > 0) {
        snprintf(tbuf, sizeof tbuf, "%.6f", time_s);
        argv[n++] = "--time";
        argv[n++] = tbuf;
    }
    argv[n++] = "-q";
    argv[n++] = "-o";
    argv[n++] = (char *)tmp;
    pid_t pid = fork();
    if (pid == 0) {
        /* A fresh exec: new address-space layout (when ASLR is on), fresh buffers and calibration. */
        execv("/proc/self/exe", argv);
        _exit(127);
    }
    free(argv);
    if (pid < 0)
        return -1;
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static cJSON *read_doc(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    size_t got = fread(buf, 1, (size_t)n, f);
    fclose(f);
    buf[got] = '\0';
    cJSON *doc = cJSON_Parse(buf);
    free(buf);
    return doc;
}

/* Appends a child's sample columns to the merged samples with its process index. cJSON arrays
 * are linked lists, so the columns are walked together rather than indexed. */
static int append_samples(struct mfb_samples *all, const cJSON *doc, int proc)
{
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(doc, "samples");
    const char *names[] = {"variant", "round", "position", "calls", "bytes", "ticks", "ns", "t_start_ns", "cpu", "warmup"};
    const cJSON *it[10];
    for (int k = 0; k < 10; k++) {
        const cJSON *col = cJSON_GetObjectItemCaseSensitive(s, names[k]);
        it[k] = col ? col->child : NULL;
    }
    while (it[0]) {
        for (int k = 0; k < 10; k++)
            if (!it[k])
                return -1;
        struct mfb_sample x = {
            .variant = (uint16_t)it[0]->valuedouble, .round = (uint32_t)it[1]->valuedouble,
            .position = (uint16_t)it[2]->valuedouble, .calls = (uint32_t)it[3]->valuedouble,
            .bytes = (uint64_t)it[4]->valuedouble, .ticks = (uint64_t)it[5]->valuedouble, .ns = it[6]->valuedouble,
            .t_start_ns = (uint64_t)it[7]->valuedouble, .cpu = (int16_t)it[8]->valuedouble,
            .warmup = cJSON_IsTrue(it[9]), .process = (uint16_t)proc};
        if (mfb_samples_push(all, &x) < 0)
            return -1;
        for (int k = 0; k < 10; k++)
            it[k] = it[k]->next;
    }
    return 0;
}

/* What differs between processes: seeds, clock calibration, code addresses, batch, rounds. */
static cJSON *process_entry(const cJSON *doc, int i)
{
    cJSON *e = cJSON_CreateObject();
    cJSON_AddNumberToObject(e, "index", i);
    const char *keep[] = {"seeds", "timer", "batch", "rounds", "harness", "status"};
    for (size_t k = 0; k < sizeof keep / sizeof keep[0]; k++)
        cJSON_AddItemToObject(e, keep[k], cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(doc, keep[k]), 1));
    cJSON *addr = cJSON_AddArrayToObject(e, "variant_addresses");
    const cJSON *v;
    cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(doc, "variants"))
        cJSON_AddItemToArray(addr, cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(v, "address"), 0));
    return e;
}

int mfb_run_processes(const struct mfb_config *cfg, struct mfb_output *out, uint64_t master_seed,
                      volatile sig_atomic_t *stop, struct mfb_err *err)
{
    int k = (int)cfg->processes;
    char *tmp[64] = {0};
    cJSON *docs[64] = {0};
    struct mfb_samples all = {0};
    int status = MFB_EXIT_FAIL, done = 0;
    double each = cfg->time_s > 0 ? cfg->time_s / k : 0;
    const char *target = strcmp(cfg->output, "-") ? cfg->output : "memfbench-stdout.json";
    for (int i = 0; i < k && !*stop; i++) {
        if (!(tmp[i] = child_tmp(target, i))) {
            mfb_fail(err, "%s: cannot create a temporary file for process %d", target, i);
            goto cleanup;
        }
        if (!cfg->quiet)
            fprintf(stderr, "memfbench: process %d of %d\n", i + 1, k);
        int rc = spawn(cfg, i, mfb_seed_derive(master_seed, 1000 + (uint64_t)i), each, tmp[i]);
        if (rc != MFB_EXIT_OK && rc != MFB_EXIT_INTERRUPTED) {
            mfb_fail(err, "process %d of %d failed (exit status %d)", i + 1, k, rc);
            goto cleanup;
        }
        if (!(docs[i] = read_doc(tmp[i]))) {
            mfb_fail(err, "process %d of %d wrote no readable result", i + 1, k);
            goto cleanup;
        }
        if (append_samples(&all, docs[i], i) < 0) {
            mfb_fail(err, "process %d of %d: its samples could not be merged", i + 1, k);
            goto cleanup;
        }
        done++;
        if (rc == MFB_EXIT_INTERRUPTED)
            break;
    }
    if (done == 0) {
        mfb_fail(err, "interrupted before the first process finished");
        goto cleanup;
    }
    cJSON *doc = docs[0];
    docs[0] = NULL;
    cJSON_DeleteItemFromObjectCaseSensitive(doc, "samples");
    cJSON *c = cJSON_GetObjectItemCaseSensitive(doc, "config");
    cJSON_ReplaceItemInObjectCaseSensitive(c, "processes", cJSON_CreateNumber(k));
    cJSON_ReplaceItemInObjectCaseSensitive(c, "time_budget_s", cfg->time_s > 0 ? cJSON_CreateNumber(cfg->time_s)
                                                                               : cJSON_CreateNull());
    cJSON *argv = cJSON_CreateArray();
    for (int i = 0; i < cfg->argc; i++)
        cJSON_AddItemToArray(argv, cJSON_CreateString(cfg->argv[i]));
    cJSON_ReplaceItemInObjectCaseSensitive(doc, "command_line", argv);
    cJSON *procs = cJSON_CreateArray();
    bool complete = done == k;
    for (int i = 0; i < done; i++) {
        cJSON *d = i == 0 ? doc : docs[i];
        cJSON_AddItemToArray(procs, process_entry(d, i));
        const cJSON *st = cJSON_GetObjectItemCaseSensitive(d, "status");
        complete = complete && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(st, "complete"));
    }
    cJSON_AddItemToObject(doc, "processes", procs);
    cJSON *seeds = cJSON_GetObjectItemCaseSensitive(doc, "seeds");
    char buf[32];
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)master_seed);
    cJSON_ReplaceItemInObjectCaseSensitive(seeds, "master", cJSON_CreateString(buf));
    cJSON_ReplaceItemInObjectCaseSensitive(seeds, "source", cJSON_CreateString(
        cfg->seed_given ? "given; process i uses seed derive(master, 1000 + i), see processes[]"
                        : "fresh (getrandom); process i uses seed derive(master, 1000 + i), see processes[]"));
    cJSON *st = cJSON_GetObjectItemCaseSensitive(doc, "status");
    cJSON_ReplaceItemInObjectCaseSensitive(st, "complete", cJSON_CreateBool(complete));
    if (!complete)
        cJSON_ReplaceItemInObjectCaseSensitive(st, "stop_reason", cJSON_CreateString("interrupted"));
    if (!cfg->quiet) {
        const cJSON *w;
        cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(st, "warnings"))
            fprintf(stderr, "memfbench: warning: %s\n", cJSON_GetObjectItemCaseSensitive(w, "message")->valuestring);
    }
    int rc = mfb_output_commit(out, doc, &all, err);
    cJSON_Delete(doc);
    if (rc == 0) {
        status = complete ? MFB_EXIT_OK : MFB_EXIT_INTERRUPTED;
        if (!cfg->quiet)
            fprintf(stderr, "memfbench: merged %d process%s into %s; analysis: python3 -m analysis summarize %s\n", done,
                    done == 1 ? "" : "es", cfg->output, cfg->output);
    }
cleanup:
    for (int i = 0; i < k; i++) {
        if (tmp[i]) {
            unlink(tmp[i]);
            free(tmp[i]);
        }
        cJSON_Delete(docs[i]);
    }
    mfb_samples_free(&all);
    return status;
}
