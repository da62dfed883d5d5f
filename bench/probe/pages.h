/* Buffers on 4 KiB pages, transparent huge pages or reserved huge pages, and what the kernel
 * actually gave: a probe file says which pages its numbers were measured on, never which were
 * asked for. */
#ifndef MFB_PAGES_H
#define MFB_PAGES_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"

enum mfb_pages {
    MFB_PAGES_4K,      /* base pages; MADV_NOHUGEPAGE so THP=always cannot promote them */
    MFB_PAGES_THP,     /* madvise(MADV_HUGEPAGE), checked in /proc/self/smaps (AnonHugePages) */
    MFB_PAGES_HUGETLB, /* mmap(MAP_HUGETLB) from the huge pages reserved in /proc/meminfo */
    MFB_PAGES_COUNT
};

/* The mode's name in the probe file ("4k", "thp", "hugetlb"). */
const char *mfb_pages_name(enum mfb_pages p);

struct mfb_region {
    void *base;          /* the mapping */
    size_t mapped;       /* its length */
    void *buf;           /* the buffer inside it, aligned to the huge page size */
    size_t size;
    enum mfb_pages mode;
    double huge_fraction; /* of the buffer's bytes, on huge pages as the kernel reports */
};

/* Why mode p cannot be had for `size` bytes on this machine ("" when it can), checked before
 * anything is mapped: THP disabled ("never"), or fewer free reserved huge pages than needed. */
const char *mfb_pages_unavailable(enum mfb_pages p, size_t size, char *why, size_t n);

/* The huge page size the kernel reports (Hugepagesize in /proc/meminfo; 2 MiB if unreadable). */
size_t mfb_pages_huge_size(void);

/* Maps size bytes in mode p, touches every page, and measures huge_fraction. */
int mfb_region_map(struct mfb_region *r, size_t size, enum mfb_pages p, struct mfb_err *err);
void mfb_region_unmap(struct mfb_region *r);

#endif
