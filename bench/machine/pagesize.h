/* The page size the window planner lays the buffers out by: the kernel's (sysconf), or a larger
 * one a test asks for through MEMFBENCH_PAGE_SIZE, to exercise on a 4 KiB kernel the layouts of the
 * 16 KiB and 64 KiB kernels common on Arm servers. A simulated page aligns the windows and the
 * large calls' shifts as that kernel's pages would; the memory under them is still the kernel's
 * pages, so a simulated run says nothing about TLB costs, and its file says it was simulated. */
#ifndef MFB_PAGESIZE_H
#define MFB_PAGESIZE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/error.h"

/* The environment variable, and the sizes it may name: the AArch64 translation granules (4, 16,
 * 64 KiB; x86-64 has 4 KiB base pages only), and never below the real page, which the kernel's
 * mapping could not honour. */
#define MFB_PAGE_SIZE_ENV "MEMFBENCH_PAGE_SIZE"

struct mfb_page_size {
    uint32_t bytes;  /* what the planner uses */
    uint32_t real;   /* sysconf(_SC_PAGESIZE) */
    bool simulated;  /* bytes came from MFB_PAGE_SIZE_ENV (even when equal to real) */
};

/* The page size of this run: 0, or -1 with one line naming the variable when it holds anything
 * but 4096, 16384 or 65536 at least the real page size. */
int mfb_page_size_get(struct mfb_page_size *p, struct mfb_err *err);

#endif
