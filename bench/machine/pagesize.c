#include "machine/pagesize.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The granules a simulated page may have (AArch64's translation granules). */
static const uint32_t granules[] = {4096u, 16384u, 65536u};

int mfb_page_size_get(struct mfb_page_size *p, struct mfb_err *err)
{
    long real = sysconf(_SC_PAGESIZE);
    p->real = real > 0 ? (uint32_t)real : 4096u;
    p->bytes = p->real;
    p->simulated = false;
    const char *v = getenv(MFB_PAGE_SIZE_ENV);
    if (!v || !*v)
        return 0;
    for (size_t i = 0; i < sizeof granules / sizeof granules[0]; i++) {
        char name[16];
        snprintf(name, sizeof name, "%u", granules[i]);
        if (!strcmp(v, name) && granules[i] >= p->real) {
            p->bytes = granules[i];
            p->simulated = true;
            return 0;
        }
    }
    return mfb_fail(err, MFB_PAGE_SIZE_ENV "='%s': not a page size this run can simulate (4096, 16384 or 65536, "
                         "at least this kernel's %u)", v, p->real);
}
