#include "ab/abfile.h"

#include <time.h>

#include "report/document.h"

static cJSON *strings(char **v, int n)
{
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateString(v[i]));
    return a;
}

static cJSON *arm_json(const struct mfb_ab_arm *a)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", a->name);
    cJSON_AddStringToObject(o, "kind", mfb_ab_arm_kind_name(a->kind));
    if (a->kind == MFB_AB_VARIANT) {
        cJSON_AddStringToObject(o, "origin", a->origin);
        cJSON_AddStringToObject(o, "spec", a->spec);
        cJSON_AddStringToObject(o, "symbol", a->symbol);
        cJSON_AddStringToObject(o, "file_sha256", a->file_sha256);
    }
    return o;
}

cJSON *mfb_ab_document(const struct mfb_ab *ab, char **argv, int argc, char **cmd, int ncmd, cJSON *host)
{
    cJSON *d = cJSON_CreateObject();
    cJSON_AddStringToObject(d, "schema", "memfbench-ab");
    cJSON_AddNumberToObject(d, "schema_version", 1);
    cJSON_AddItemToObject(d, "tool", mfb_tool_json());
    char ts[64];
    time_t now = time(NULL);
    strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    cJSON_AddStringToObject(d, "created_utc", ts);
    cJSON_AddItemToObject(d, "command_line", strings(cmd, ncmd));
    cJSON *p = cJSON_AddObjectToObject(d, "program");
    cJSON_AddStringToObject(p, "path", ab->program);
    cJSON_AddStringToObject(p, "sha256", ab->program_sha256);
    cJSON_AddBoolToObject(p, "script", ab->script);
    cJSON_AddItemToObject(p, "argv", strings(argv, argc));
    cJSON_AddStringToObject(p, "output", ab->program_output);
    cJSON *c = cJSON_AddObjectToObject(d, "config");
    cJSON_AddStringToObject(c, "function", mfb_func_name(ab->func));
    cJSON_AddNumberToObject(c, "runs", ab->runs);
    cJSON_AddNumberToObject(c, "warmup_blocks", ab->warmup);
    if (ab->cpu >= 0)
        cJSON_AddNumberToObject(c, "cpu", ab->cpu);
    else
        cJSON_AddNullToObject(c, "cpu");
    mfb_json_add_u64_string(c, "seed", ab->seed);
    cJSON_AddStringToObject(c, "order", "blocks: every arm once per block, in an order drawn per block from the seed");
    cJSON_AddStringToObject(c, "times", "wall: CLOCK_MONOTONIC from fork to the program's end; user and sys: "
                                        "wait4's rusage, the program and every descendant it waited for");
    if (ab->watchdog_s > 0)
        cJSON_AddNumberToObject(c, "watchdog_s", ab->watchdog_s);
    else
        cJSON_AddNullToObject(c, "watchdog_s");
    cJSON_AddStringToObject(c, "watchdog", ab->watchdog_s > 0 ? "--watchdog: every run's limit"
                                                              : "600 s for the first run, then 10 times the longest run "
                                                                "so far, at least 60 s");
    cJSON_AddStringToObject(c, "checks", "each variant verified by memfbench run on every call shape of the "
                                         "distribution before any run; a run is a sample when it exits 0, the shim "
                                         "counted calls of the function, and no process of it exited inside the "
                                         "variant's code (with --predict-from, libc's runs also count within a "
                                         "factor of 2 of the recording's calls)");
    cJSON *s = cJSON_AddObjectToObject(d, "shim");
    cJSON_AddStringToObject(s, "path", ab->shim);
    cJSON_AddStringToObject(s, "sha256", ab->shim_sha256);
    cJSON_AddStringToObject(s, "routes", "memcpy, memmove, memset, memcmp, bcmp, mempcpy, __mempcpy and their "
                                         "__*_chk entry points; the function's to the variant, the others to libc");
    cJSON_AddItemToObject(d, "host", host);
    if (ab->recording[0]) {
        cJSON *pr = cJSON_AddObjectToObject(d, "prediction");
        cJSON_AddStringToObject(pr, "recording", ab->recording);
        cJSON_AddStringToObject(pr, "replay", ab->replay);
        if (ab->trace[0])
            cJSON_AddStringToObject(pr, "trace_replay", ab->trace_replay);
        else
            cJSON_AddNullToObject(pr, "trace_replay");
        cJSON_AddBoolToObject(pr, "by_class", ab->by_class);
        cJSON_AddNumberToObject(pr, "recorded_calls", (double)ab->recorded_calls);
    } else {
        cJSON_AddNullToObject(d, "prediction");
    }
    cJSON *arms = cJSON_AddArrayToObject(d, "arms");
    for (int i = 0; i < ab->narms; i++)
        cJSON_AddItemToArray(arms, arm_json(&ab->arms[i]));
    cJSON *runs = cJSON_AddArrayToObject(d, "runs");
    for (int i = 0; i < ab->ndone; i++) {
        const struct mfb_ab_run *r = &ab->done[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "block", r->block);
        cJSON_AddNumberToObject(o, "order", r->order);
        cJSON_AddStringToObject(o, "arm", ab->arms[r->arm].name);
        cJSON_AddBoolToObject(o, "warmup", r->warmup);
        cJSON_AddNumberToObject(o, "wall_s", r->wall_s);
        cJSON_AddNumberToObject(o, "user_s", r->user_s);
        cJSON_AddNumberToObject(o, "sys_s", r->sys_s);
        if (r->calls >= 0)
            cJSON_AddNumberToObject(o, "calls", (double)r->calls);
        else
            cJSON_AddNullToObject(o, "calls");
        cJSON_AddNumberToObject(o, "processes", r->processes);
        cJSON_AddNumberToObject(o, "leftovers", r->leftovers);
        cJSON_AddNumberToObject(o, "output_bytes", (double)r->output_bytes);
        cJSON_AddItemToArray(runs, o);
    }
    return d;
}
