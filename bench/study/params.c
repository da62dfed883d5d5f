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

size_t mfb_params_count(const struct mfb_params *ps)
{
    size_t k = 1;
    for (int i = 0; i < ps->n; i++)
        k *= (size_t)ps->p[i].n; /* at most 16^4: no overflow */
    return k;
}

void mfb_params_setting(const struct mfb_params *ps, size_t k, char *suffix, char *flags)
{
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
