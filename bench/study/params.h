/* --param NAME=V1,V2,...: a family of builds of each source variant, one per setting of the
 * macros (their product), each its own variant, NAME[A=1,B=2], built with -DA=1 -DB=2 (issue 55's
 * parametric source). The settings are bounded by construction: a few macros of a few short values
 * each, and a run holds at most MFB_MAX_VARIANTS variants in all (orchestrate/assemble.c). */
#ifndef MFB_PARAMS_H
#define MFB_PARAMS_H

#include <stddef.h>

#include "base/error.h"

#define MFB_PARAMS_MAX 4          /* macros */
#define MFB_PARAM_VALUES_MAX 16   /* values of one macro */
#define MFB_PARAM_NAME_MAX 63     /* a macro's name */
#define MFB_PARAM_VALUE_MAX 31    /* one value */
/* --setting: at most as many settings as a run holds variants (study/study.h asserts it). */
#define MFB_PARAM_SETTINGS_MAX 32
/* The longest "[A=1,B=2]" and "-DA=1 -DB=2" one setting makes, with its terminating NUL. */
#define MFB_PARAM_TEXT_CAP (MFB_PARAMS_MAX * (MFB_PARAM_NAME_MAX + MFB_PARAM_VALUE_MAX + 4) + 3)

struct mfb_param {
    char name[MFB_PARAM_NAME_MAX + 1];
    char values[MFB_PARAM_VALUES_MAX][MFB_PARAM_VALUE_MAX + 1];
    int n;
};

struct mfb_params {
    struct mfb_param p[MFB_PARAMS_MAX];
    int n;
    /* --setting A=1,B=2 (repeatable): these settings of the macros, in this order, instead of their
     * product (memfbench tune races a subset); the texts as given, checked by mfb_params_check */
    const char *given[MFB_PARAM_SETTINGS_MAX];
    int ngiven;
};

/* One --param argument, "NAME=V1,V2,...": NAME a C identifier, each value non-empty, of letters,
 * digits and _ . + - only (it becomes a compiler argument and part of a variant's name), no value
 * twice, no macro twice. 0, or -1 with one line naming the option and what is wrong. */
int mfb_params_add(struct mfb_params *ps, const char *arg, struct mfb_err *err);

/* One --setting argument, kept as given (it may come before the --param rows it names): 0, or -1
 * when there are too many. */
int mfb_params_choose(struct mfb_params *ps, const char *arg, struct mfb_err *err);

/* Whether every --setting names each --param macro once, with one of its values, and no setting
 * twice: 0, or -1 with one line naming the --setting and what is wrong. */
int mfb_params_check(const struct mfb_params *ps, struct mfb_err *err);

/* The index in the product of the setting text "A=1,B=2" (every macro once, in any order), or -1
 * with err naming what is wrong ("memfbench run: --setting ..."). */
long mfb_params_index(const struct mfb_params *ps, const char *text, struct mfb_err *err);

/* How many settings: the --setting rows given, else the product of the macros' value counts (1
 * without --param). */
size_t mfb_params_count(const struct mfb_params *ps);

/* Setting k (0 <= k < count): the k-th --setting, else the k-th of the product, the first macro's
 * value varying slowest: the variant's name suffix
 * "[A=1,B=2]" and its flags "-DA=1 -DB=2" (both "" without --param), each MFB_PARAM_TEXT_CAP. */
void mfb_params_setting(const struct mfb_params *ps, size_t k, char *suffix, char *flags);

/* The echo for the result file: [{"name": NAME, "values": [...]}, ...], or null without --param. */
struct cJSON; /* the echo is the only part that needs cJSON (study.h is everywhere) */
struct cJSON *mfb_params_json(const struct mfb_params *ps);
/* The --setting echo: the settings' suffixes ["[A=1,B=2]", ...], or null when none were given. */
struct cJSON *mfb_params_settings_json(const struct mfb_params *ps);

#endif
