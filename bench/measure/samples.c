#include "measure/samples.h"

#include <stdlib.h>

int mfb_samples_push(struct mfb_samples *v, const struct mfb_sample *s)
{
    if (v->n == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 4096;
        struct mfb_sample *p = realloc(v->s, cap * sizeof *p);
        if (!p)
            return -1;
        v->s = p;
        v->cap = cap;
    }
    v->s[v->n++] = *s;
    return 0;
}

void mfb_samples_free(struct mfb_samples *v)
{
    free(v->s);
    v->s = NULL;
    v->n = v->cap = 0;
}
