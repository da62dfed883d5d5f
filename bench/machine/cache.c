#include "machine/cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/parse.h"

const char *mfb_cache_source_name(enum mfb_cache_source s)
{
    static const char *const names[] = {
        [MFB_CACHE_SYSFS] = "sysfs", [MFB_CACHE_SYSCONF] = "sysconf",
        [MFB_CACHE_DEFAULT] = "default", [MFB_CACHE_USER] = "user (--cache)",
        [MFB_CACHE_PROBE] = "probe (--cache-from)"};
    return names[s];
}

static int read_line(const char *path, char *buf, size_t n)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char *ok = fgets(buf, (int)n, f);
    fclose(f);
    if (!ok)
        return -1;
    buf[strcspn(buf, "\n")] = '\0';
    return 0;
}

static int from_sysfs(struct mfb_caches *c, int cpu)
{
    int found = 0;
    for (int i = 0; i < 16; i++) {
        char path[256], level[16], type[32], size[32], line[32];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cache/index%d/level", cpu, i);
        if (read_line(path, level, sizeof level) < 0)
            break;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cache/index%d/type", cpu, i);
        read_line(path, type, sizeof type);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cache/index%d/size", cpu, i);
        size_t bytes;
        if (read_line(path, size, sizeof size) < 0 || mfb_parse_bytes(size, &bytes) < 0)
            continue;
        snprintf(path, sizeof path,
                 "/sys/devices/system/cpu/cpu%d/cache/index%d/coherency_line_size", cpu, i);
        size_t lsz;
        if (read_line(path, line, sizeof line) == 0 && mfb_parse_bytes(line, &lsz) == 0)
            c->line = lsz;
        int lv = atoi(level);
        if (lv == 1 && strcmp(type, "Instruction") != 0)
            c->l1d = bytes, found = 1;
        else if (lv == 2)
            c->l2 = bytes;
        else if (lv >= 3 && bytes > c->llc)
            c->llc = bytes;
    }
    return found ? 0 : -1;
}

void mfb_cache_detect(struct mfb_caches *c, int cpu)
{
    memset(c, 0, sizeof *c);
    c->line = 64;
    if (from_sysfs(c, cpu < 0 ? 0 : cpu) == 0) {
        c->source = MFB_CACHE_SYSFS;
    } else {
        long l1 = sysconf(_SC_LEVEL1_DCACHE_SIZE), l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
        long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
        if (l1 > 0) {
            c->l1d = (size_t)l1;
            c->l2 = l2 > 0 ? (size_t)l2 : 0;
            c->llc = l3 > 0 ? (size_t)l3 : 0;
            c->source = MFB_CACHE_SYSCONF;
        } else {
            c->source = MFB_CACHE_DEFAULT;
        }
    }
    /* A cache level the system does not report is assumed like a common server core (Arm servers
     * whose firmware describes no system-level cache show no L3 in sysfs); `assumed` says which,
     * and the run warns (orchestrate/assemble.c). */
    if (!c->l1d)
        c->l1d = 32 << 10, c->assumed |= MFB_CACHE_ASSUMED_L1D;
    if (!c->l2)
        c->l2 = 1 << 20, c->assumed |= MFB_CACHE_ASSUMED_L2;
    if (!c->llc)
        c->llc = c->l2 > (32u << 20) ? c->l2 : (32u << 20), c->assumed |= MFB_CACHE_ASSUMED_LLC;
}
