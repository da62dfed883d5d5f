/* A distribution: the size table plus optional alignment, overlap and mismatch tables,
 * resolved from a shipped name, a file path, a fleetbench key:prob file or a synthetic spec. */
#ifndef MFB_DISTRIBUTION_H
#define MFB_DISTRIBUTION_H

#include <stdbool.h>

#include "base/error.h"
#include "base/functions.h"
#include "workload/table.h"

struct mfb_dist_file {
    char *path;
    char sha256[65];
    char role[32]; /* "size", "alignment", "src_alignment", ..., or "all" for fleetbench */
};

enum mfb_dist_format { MFB_FORMAT_CSV, MFB_FORMAT_FLEETBENCH, MFB_FORMAT_SYNTHETIC };

const char *mfb_dist_format_name(enum mfb_dist_format f);

struct mfb_dist {
    char *name;         /* shipped name ("fleetbench/Memcpy_Fleet"), path, or synthetic spec */
    enum mfb_dist_format format;
    struct mfb_table size;
    struct mfb_table src_align; /* n == 0: offsets unconstrained */
    struct mfb_table dst_align;
    struct mfb_table overlap;   /* n == 0: never overlapping */
    struct mfb_table mismatch;  /* n == 0 and a compare function: default model filled in */
    bool overlap_ignored;       /* the table asked for overlap but the function forbids it */
    struct mfb_dist_file files[8];
    int nfiles;
};

/* Resolves spec for function f. dist_dir is the folder of shipped distributions. */
int mfb_dist_resolve(struct mfb_dist *d, const char *spec, enum mfb_func f, const char *dist_dir,
                     struct mfb_err *err);
void mfb_dist_free(struct mfb_dist *d);
/* The largest alignment key of the source and destination tables (0: neither table, any offset). */
uint64_t mfb_dist_align_period(const struct mfb_dist *d);
/* Whether some calls overlap (an overlap row other than none with weight). */
bool mfb_dist_overlaps(const struct mfb_dist *d);
/* Calls fn for each shipped distribution name (group/prefix) under dist_dir, sorted. */
int mfb_dist_list(const char *dist_dir, void (*fn)(const char *name, void *ctx), void *ctx);

#endif
