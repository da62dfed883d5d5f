#include "base/environ.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

/* Whether entry ("NAME=VALUE") is of the variable that spec ("NAME=..." or "NAME") names. */
static bool same_name(const char *entry, const char *spec)
{
    size_t len = strcspn(spec, "=");
    return !strncmp(entry, spec, len) && entry[len] == '=';
}

char **mfb_environ_with(char *const *change, size_t n)
{
    return mfb_env_with(environ, change, n);
}

char **mfb_env_with(char *const *base, char *const *change, size_t n)
{
    size_t count = 0;
    while (base[count])
        count++;
    char **env = calloc(count + n + 1, sizeof *env);
    if (!env)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < count; i++) {
        bool changed = false;
        for (size_t j = 0; j < n && !changed; j++)
            changed = same_name(base[i], change[j]);
        if (!changed)
            env[k++] = base[i];
    }
    for (size_t j = 0; j < n; j++)
        if (strchr(change[j], '='))
            env[k++] = change[j];
    env[k] = NULL;
    return env;
}
