/* A child's environment: this process's, with some variables set or removed. memfbench's children
 * (the study's processes, ab's runs, --pgo's training) each change a few and keep the rest. */
#ifndef MFB_ENVIRON_H
#define MFB_ENVIRON_H

#include <stddef.h>

/* environ without the variables that change names, then change's "NAME=VALUE" entries in order
 * (an entry without '=' only removes NAME). A calloc'd, NULL-terminated array the caller frees;
 * its strings stay environ's and change's. NULL when out of memory. */
char **mfb_environ_with(char *const *change, size_t n);
/* The same over base (a NULL-terminated environment) instead of this process's. */
char **mfb_env_with(char *const *base, char *const *change, size_t n);

#endif
