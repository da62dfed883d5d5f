#include "probe/pages.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

/* Linux 6.1's synchronous collapse; glibc 2.36 does not name it yet. Older kernels refuse it
 * with EINVAL, which leaves the pages as they faulted (smaps then tells). */
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

/* The guard page at a mapping's end (see mfb_region_map). */
enum { PROBE_GUARD = 4096 };

const char *mfb_pages_name(enum mfb_pages p)
{
    static const char *const names[] = {[MFB_PAGES_4K] = "4k", [MFB_PAGES_THP] = "thp", [MFB_PAGES_HUGETLB] = "hugetlb"};
    return names[p];
}

/* A "Key: N kB" line of /proc/meminfo, in bytes (pages for HugePages_*); -1 if absent. */
static long long meminfo(const char *key)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return -1;
    char line[256];
    long long v = -1;
    size_t k = strlen(key);
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, key, k) != 0 || line[k] != ':')
            continue;
        long long n;
        if (sscanf(line + k + 1, "%lld", &n) == 1)
            v = strstr(line, " kB") ? n * 1024 : n;
        break;
    }
    fclose(f);
    return v;
}

size_t mfb_pages_huge_size(void)
{
    long long h = meminfo("Hugepagesize");
    return h > 0 ? (size_t)h : (size_t)2 << 20;
}

const char *mfb_pages_unavailable(enum mfb_pages p, size_t size, char *why, size_t n)
{
    why[0] = '\0';
    if (p == MFB_PAGES_THP) {
        FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
        char line[128] = "";
        if (!f || !fgets(line, sizeof line, f))
            snprintf(why, n, "transparent huge pages are not available (no /sys/kernel/mm/transparent_hugepage)");
        else if (strstr(line, "[never]"))
            snprintf(why, n, "transparent huge pages are disabled (/sys/kernel/mm/transparent_hugepage/enabled "
                             "is never)");
        if (f)
            fclose(f);
    } else if (p == MFB_PAGES_HUGETLB) {
        long long free_pages = meminfo("HugePages_Free");
        size_t hp = mfb_pages_huge_size();
        unsigned long long need = (size + hp - 1) / hp;
        if (free_pages < 0 || (unsigned long long)free_pages < need)
            snprintf(why, n, "%lld reserved huge pages free, %llu needed (reserve with "
                             "echo N > /proc/sys/vm/nr_hugepages)", free_pages < 0 ? 0 : free_pages, need);
    }
    return why;
}

/* The AnonHugePages of the smaps entry that starts at addr, in bytes. */
static size_t smaps_huge_bytes(const void *addr)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return 0;
    char line[512];
    bool in = false;
    size_t bytes = 0;
    while (fgets(line, sizeof line, f)) {
        uintptr_t lo, hi;
        /* A mapping's header line is "lo-hi perms ..."; its fields follow as "Key: N kB". */
        if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
            in = (uintptr_t)addr >= lo && (uintptr_t)addr < hi;
            continue;
        }
        unsigned long long kb;
        if (in && sscanf(line, "AnonHugePages: %llu kB", &kb) == 1)
            bytes += (size_t)kb * 1024;
    }
    fclose(f);
    return bytes;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14: older headers lack it, older kernels refuse it (EINVAL) */
#endif

int mfb_region_map(struct mfb_region *r, size_t size, enum mfb_pages p, struct mfb_err *err)
{
    memset(r, 0, sizeof *r);
    size_t hp = mfb_pages_huge_size();
    r->size = size;
    r->mode = p;
    if (p == MFB_PAGES_HUGETLB) {
        r->mapped = (size + hp - 1) / hp * hp;
        r->base = mmap(NULL, r->mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
        if (r->base == MAP_FAILED) {
            int e = errno;
            r->base = NULL;
            return mfb_fail(err, "cannot map %zu bytes of reserved huge pages: %s", size, strerror(e));
        }
        r->buf = r->base;
    } else {
        /* Whole huge pages, and one more, so the buffer can start on a huge-page boundary and
         * every huge page it touches lies inside the mapping: THP can back it to its last byte. */
        r->mapped = (size + hp - 1) / hp * hp + hp + PROBE_GUARD;
        r->base = mmap(NULL, r->mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (r->base == MAP_FAILED) {
            int e = errno;
            r->base = NULL;
            return mfb_fail(err, "cannot map %zu bytes: %s", size, strerror(e));
        }
        /* The last page inaccessible: two regions mapped side by side (the bandwidth threads')
         * stay two mappings in smaps, so each one's AnonHugePages is its own. */
        mprotect((char *)r->base + r->mapped - PROBE_GUARD, PROBE_GUARD, PROT_NONE);
        r->buf = (void *)(((uintptr_t)r->base + hp - 1) & ~(uintptr_t)(hp - 1));
        madvise(r->base, r->mapped, p == MFB_PAGES_THP ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    }
    /* Every page in now, not inside a timed pass: MADV_POPULATE_WRITE (Linux 5.14+) faults them
     * in the kernel, in one call; a first write to each page traps once per page, which on the
     * VMs here (page-table isolation, nested paging) cost 2.8 s per GiB of 4 KiB pages against
     * 0.13 s, and was most of a full probe's time. Where the kernel lacks it, the writes. */
    if (madvise(r->buf, size, MADV_POPULATE_WRITE) != 0)
        memset(r->buf, 0, size);
    /* A fault that found no free huge page fell back to 4 KiB pages; Linux 6.1 and later can
     * collapse them now, synchronously. Where it cannot, smaps below tells what was had. */
    if (p == MFB_PAGES_THP)
        madvise(r->buf, size, MADV_COLLAPSE);
    if (p == MFB_PAGES_HUGETLB) {
        r->huge_fraction = 1.0;
    } else {
        size_t huge = smaps_huge_bytes(r->buf);
        r->huge_fraction = huge >= size ? 1.0 : (double)huge / (double)size;
    }
    return 0;
}

void mfb_region_unmap(struct mfb_region *r)
{
    if (r->base)
        munmap(r->base, r->mapped);
    r->base = r->buf = NULL;
}
