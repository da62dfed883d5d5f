#include "probe/result.h"

#include <stdlib.h>

void mfb_probe_result_free(struct mfb_probe_result *r)
{
    for (int i = 0; i < r->nlat; i++)
        free(r->lat[i].points);
    for (int i = 0; i < r->nbw; i++)
        free(r->bw[i].points);
    r->nlat = r->nbw = 0;
    mfb_warnings_free(&r->warn);
}
