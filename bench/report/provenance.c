#include "report/provenance.h"

#include <time.h>

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
