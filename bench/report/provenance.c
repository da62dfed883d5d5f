#include "report/provenance.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/filetext.h"
#include "config.h"

cJSON *mfb_provenance_new(void)
{
    cJSON *p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "schema", "memfbench-recording");
    cJSON_AddNumberToObject(p, "schema_version", 1);
    cJSON_AddStringToObject(p, "tool", "memfbench " MFB_VERSION);
    char ts[64];
    time_t now = time(NULL);
    strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    cJSON_AddStringToObject(p, "created_utc", ts);
    return p;
}

void mfb_provenance_add_calls(cJSON *p, const struct mfb_recording *rec)
{
    cJSON *calls = cJSON_AddObjectToObject(p, "calls");
    for (int f = 0; f < MFB_FUNC_COUNT; f++)
        if (rec->f[f].calls) {
            cJSON *c = cJSON_AddObjectToObject(calls, mfb_func_name((enum mfb_func)f));
            cJSON_AddNumberToObject(c, "calls", (double)rec->f[f].calls);
            cJSON_AddNumberToObject(c, "sampled", (double)rec->f[f].sampled);
        }
}

/* provenance.json is a few hundred bytes; anything past this is not one. */
enum { PROVENANCE_MAX_BYTES = 1 << 20 };

/* provenance.json at path, parsed and checked to be a whole recording's; NULL with err. */
static cJSON *read_doc(const char *path, struct mfb_err *err)
{
    size_t n;
    char *text = mfb_file_text(path, PROVENANCE_MAX_BYTES, &n, err);
    if (!text)
        return NULL;
    cJSON *d = cJSON_ParseWithLength(text, n);
    free(text);
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(d, "schema");
    if (!d)
        mfb_fail(err, "%s: not JSON (cut short? a recording killed or out of disk space); its tables "
                      "may be incomplete too", path);
    else if (!cJSON_IsString(schema) || strcmp(schema->valuestring, "memfbench-recording") != 0)
        mfb_fail(err, "%s: not a memfbench recording's provenance (schema is not \"memfbench-recording\")", path);
    else if (!cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(d, "calls")))
        mfb_fail(err, "%s: no \"calls\" object: not the provenance of a finished recording", path);
    else
        return d;
    cJSON_Delete(d);
    return NULL;
}

static int provenance_path(const char *dir, char *path, size_t n, struct mfb_err *err)
{
    if ((size_t)snprintf(path, n, "%s/provenance.json", dir) >= n)
        return mfb_fail(err, "%s: path too long", dir);
    return 0;
}

int mfb_provenance_check(const char *dir, struct mfb_err *err)
{
    char path[4096];
    if (provenance_path(dir, path, sizeof path, err) < 0)
        return -1;
    errno = 0;
    cJSON *d = read_doc(path, err);
    if (!d)
        return errno == ENOENT ? 0 : -1;
    cJSON_Delete(d);
    return 0;
}

int mfb_provenance_calls_at(const char *path, enum mfb_func f, uint64_t *calls, char *program, size_t n,
                            struct mfb_err *err)
{
    cJSON *d = read_doc(path, err);
    if (!d)
        return -1;
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(d, "calls"), mfb_func_name(f));
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(c, "calls");
    const cJSON *cmd = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(d, "command"), 0);
    /* 2^53: the largest count a JSON number (a double) holds exactly, and far beyond any run */
    double x = cJSON_IsNumber(v) ? v->valuedouble : -1;
    int rc = 0;
    if (!c)
        rc = mfb_fail(err, "%s: calls.%s: none recorded (the program made no %s call while recorded)", path,
                      mfb_func_name(f), mfb_func_name(f));
    else if (!(x >= 1 && x <= 9007199254740992.0 && x == (double)(uint64_t)x))
        rc = mfb_fail(err, "%s: calls.%s.calls: not a whole number of calls from 1 to 2^53", path, mfb_func_name(f));
    else if (!cJSON_IsString(cmd) || !cmd->valuestring[0] || strlen(cmd->valuestring) >= n)
        rc = mfb_fail(err, "%s: command: no recorded program (its first element)", path);
    if (rc == 0) {
        *calls = (uint64_t)x;
        snprintf(program, n, "%s", cmd->valuestring);
    }
    cJSON_Delete(d);
    return rc;
}

int mfb_provenance_calls(const char *dir, enum mfb_func f, uint64_t *calls, char *program, size_t n,
                         struct mfb_err *err)
{
    char path[4096];
    if (provenance_path(dir, path, sizeof path, err) < 0)
        return -1;
    return mfb_provenance_calls_at(path, f, calls, program, n, err);
}
