/* Minimal TAP output for the C tests (meson reads it with protocol: 'tap'). */
#ifndef MFB_TAP_H
#define MFB_TAP_H

#include <stdio.h>

struct tap {
    int n, failed;
};

#define TAP_CHECK(t, cond, ...)                                                                    \
    do {                                                                                           \
        (t)->n++;                                                                                  \
        if (cond) {                                                                                \
            printf("ok %d - ", (t)->n);                                                            \
        } else {                                                                                   \
            (t)->failed++;                                                                         \
            printf("not ok %d - ", (t)->n);                                                        \
        }                                                                                          \
        printf(__VA_ARGS__);                                                                       \
        printf("\n");                                                                              \
        fflush(stdout);                                                                            \
    } while (0)

static inline int tap_done(struct tap *t)
{
    printf("1..%d\n# %d passed, %d failed\n", t->n, t->n - t->failed, t->failed);
    return t->failed ? 1 : 0;
}

#endif
