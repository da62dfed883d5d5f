/* A JSON file read whole and parsed, for the C tests that read result files. */
#ifndef MFB_TEST_JSON_FILE_H
#define MFB_TEST_JSON_FILE_H

#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>

static inline cJSON *read_json(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t cap = 0, n = 0, got;
    do {
        if (n + 65536 > cap) {
            char *b = realloc(buf, cap = 2 * cap + 65536);
            if (!b)
                break;
            buf = b;
        }
        got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
    } while (got > 0);
    fclose(f);
    if (!buf)
        return NULL;
    buf[n] = '\0';
    cJSON *doc = cJSON_Parse(buf);
    free(buf);
    return doc;
}

#endif
