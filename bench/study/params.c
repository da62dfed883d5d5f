#include "study/params.h"

#include <cJSON.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static bool ident_char(char c, bool first)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (!first && c >= '0' && c <= '9');
}

/* A value is a compiler argument's tail and part of a variant's name: nothing a shell, a compiler's
 * word splitting or a reader of the name could take for something else. */
static bool value_char(char c)
{
    return ident_char(c, false) || c == '.' || c == '+' || c == '-';
}

int mfb_params_add(struct mfb_params *ps, const char *arg, struct mfb_err *err)
{
    if (ps->n == MFB_PARAMS_MAX)
        return mfb_fail(err, "memfbench run: --param: at most %d macros", MFB_PARAMS_MAX);
    const char *eq = strchr(arg, '=');
    size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
    if (!eq)
        return mfb_fail(err, "memfbench run: --param '%.80s': expected NAME=V1,V2,...", arg);
    if (len == 0 || len > MFB_PARAM_NAME_MAX)
        return mfb_fail(err, "memfbench run: --param '%.80s': the macro's name must have 1 to %d characters", arg,
                        MFB_PARAM_NAME_MAX);
    for (size_t i = 0; i < len; i++)
        if (!ident_char(arg[i], i == 0))
            return mfb_fail(err, "memfbench run: --param '%.80s': '%.*s' is not a C identifier", arg, (int)len, arg);
    struct mfb_param *p = &ps->p[ps->n];
    *p = (struct mfb_param){0};
    memcpy(p->name, arg, len);
    for (int i = 0; i < ps->n; i++)
        if (!strcmp(ps->p[i].name, p->name))
            return mfb_fail(err, "memfbench run: --param %s: given twice (one --param NAME=V1,V2,... per macro)",
                            p->name);
    const char *v = eq + 1;
    for (;;) {
        size_t n = strcspn(v, ",");
        if (n == 0)
            return mfb_fail(err, "memfbench run: --param '%.80s': an empty value", arg);
        if (n > MFB_PARAM_VALUE_MAX)
            return mfb_fail(err, "memfbench run: --param '%.80s': a value longer than %d characters", arg,
                            MFB_PARAM_VALUE_MAX);
        for (size_t i = 0; i < n; i++)
            if (!value_char(v[i]))
                return mfb_fail(err, "memfbench run: --param '%.80s': the value '%.*s' holds '%c' (letters, digits "
                                "and _ . + - only)", arg, (int)n, v, v[i]);
        if (p->n == MFB_PARAM_VALUES_MAX)
            return mfb_fail(err, "memfbench run: --param %s: at most %d values", p->name, MFB_PARAM_VALUES_MAX);
        memcpy(p->values[p->n], v, n);
        p->values[p->n][n] = '\0';
        for (int i = 0; i < p->n; i++)
            if (!strcmp(p->values[i], p->values[p->n]))
                return mfb_fail(err, "memfbench run: --param %s: the value %s is given twice", p->name, p->values[i]);
        p->n++;
        if (!v[n])
            break;
        v += n + 1;
    }
    ps->n++;
    return 0;
}

int mfb_params_choose(struct mfb_params *ps, const char *arg, struct mfb_err *err)
{
    if (ps->ngiven == MFB_PARAM_SETTINGS_MAX)
        return mfb_fail(err, "memfbench run: --setting: at most %d settings", MFB_PARAM_SETTINGS_MAX);
    ps->given[ps->ngiven++] = arg;
    return 0;
}

long mfb_params_index(const struct mfb_params *ps, const char *text, struct mfb_err *err)
{
    int at[MFB_PARAMS_MAX];
    for (int i = 0; i < ps->n; i++)
        at[i] = -1;
    for (const char *t = text;;) {
        size_t len = strcspn(t, ","), name = strcspn(t, "=");
        if (name >= len)
            return mfb_fail(err, "memfbench run: --setting '%.80s': expected NAME=VALUE,... (one value of each "
                            "--param macro)", text);
        int i = 0;
        while (i < ps->n && (strlen(ps->p[i].name) != name || strncmp(ps->p[i].name, t, name)))
            i++;
        if (i == ps->n)
            return mfb_fail(err, "memfbench run: --setting '%.80s': '%.*s' is not a --param macro", text, (int)name, t);
        if (at[i] >= 0)
            return mfb_fail(err, "memfbench run: --setting '%.80s': %s given twice", text, ps->p[i].name);
        const char *v = t + name + 1;
        size_t vlen = len - name - 1;
        for (int j = 0; j < ps->p[i].n && at[i] < 0; j++)
            if (strlen(ps->p[i].values[j]) == vlen && !strncmp(ps->p[i].values[j], v, vlen))
                at[i] = j;
        if (at[i] < 0)
            return mfb_fail(err, "memfbench run: --setting '%.80s': %.*s is not one of --param %s's values", text,
                            (int)vlen, v, ps->p[i].name);
        if (!t[len])
            break;
        t += len + 1;
    }
    long k = 0;
    for (int i = 0; i < ps->n; i++) {
        if (at[i] < 0)
            return mfb_fail(err, "memfbench run: --setting '%.80s': no value of %s", text, ps->p[i].name);
        k = k * ps->p[i].n + at[i];
    }
    return k;
}

int mfb_params_check(const struct mfb_params *ps, struct mfb_err *err)
{
    if (ps->ngiven && !ps->n)
        return mfb_fail(err, "memfbench run: --setting names values of --param macros: give the --param rows");
    long seen[MFB_PARAM_SETTINGS_MAX];
    for (int g = 0; g < ps->ngiven; g++) {
        if ((seen[g] = mfb_params_index(ps, ps->given[g], err)) < 0)
            return -1;
        for (int h = 0; h < g; h++)
            if (seen[h] == seen[g])
                return mfb_fail(err, "memfbench run: --setting '%.80s': the same setting as '%.80s'", ps->given[g],
                                ps->given[h]);
    }
    return 0;
}

size_t mfb_params_count(const struct mfb_params *ps)
{
    if (ps->ngiven)
        return (size_t)ps->ngiven;
    size_t k = 1;
    for (int i = 0; i < ps->n; i++)
        k *= (size_t)ps->p[i].n; /* at most 16^4: no overflow */
    return k;
}

void mfb_params_setting(const struct mfb_params *ps, size_t k, char *suffix, char *flags)
{
    if (ps->ngiven) { /* checked when the options were (mfb_params_check) */
        struct mfb_err ignored;
        long i = mfb_params_index(ps, ps->given[k], &ignored);
        k = i < 0 ? 0 : (size_t)i;
    }
    size_t at[MFB_PARAMS_MAX];
    for (int i = ps->n - 1; i >= 0; i--) { /* mixed radix, the last macro varying fastest */
        at[i] = k % (size_t)ps->p[i].n;
        k /= (size_t)ps->p[i].n;
    }
    suffix[0] = flags[0] = '\0';
    size_t s = 0, f = 0;
    for (int i = 0; i < ps->n; i++) {
        const char *name = ps->p[i].name, *value = ps->p[i].values[at[i]];
        s += (size_t)snprintf(suffix + s, MFB_PARAM_TEXT_CAP - s, "%s%s=%s%s", i ? "," : "[", name, value,
                              i == ps->n - 1 ? "]" : "");
        f += (size_t)snprintf(flags + f, MFB_PARAM_TEXT_CAP - f, "%s-D%s=%s", i ? " " : "", name, value);
    }
}

cJSON *mfb_params_json(const struct mfb_params *ps)
{
    if (ps->n == 0)
        return cJSON_CreateNull();
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < ps->n; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", ps->p[i].name);
        cJSON *vs = cJSON_AddArrayToObject(o, "values");
        for (int j = 0; j < ps->p[i].n; j++)
            cJSON_AddItemToArray(vs, cJSON_CreateString(ps->p[i].values[j]));
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

cJSON *mfb_params_settings_json(const struct mfb_params *ps)
{
    if (!ps->ngiven)
        return cJSON_CreateNull();
    cJSON *a = cJSON_CreateArray();
    for (size_t k = 0; k < (size_t)ps->ngiven; k++) {
        char suffix[MFB_PARAM_TEXT_CAP], flags[MFB_PARAM_TEXT_CAP];
        mfb_params_setting(ps, k, suffix, flags);
        cJSON_AddItemToArray(a, cJSON_CreateString(suffix));
    }
    return a;
}
