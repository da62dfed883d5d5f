/* provenance.json of a recorded folder (memfbench record, merge): what made it, when, and how many
 * calls each function's tables hold. */
#ifndef MFB_PROVENANCE_H
#define MFB_PROVENANCE_H

#include <cJSON.h>

#include "workload/recording.h"

/* The common head: schema, version, tool, created_utc. */
cJSON *mfb_provenance_new(void);
/* "calls": {FUNCTION: {calls, sampled}} for every function with calls. */
void mfb_provenance_add_calls(cJSON *p, const struct mfb_recording *rec);

/* A recorded folder's provenance.json, when it has one, as merge reads its inputs: it must be a
 * whole memfbench-recording document (a recording cut short by a full disk or a kill leaves a
 * truncated one, and its tables may be cut too). 0 when it is, or when the folder has none
 * (tables made by hand); -1 with the file named in err. */
int mfb_provenance_check(const char *dir, struct mfb_err *err);
/* What a prediction scales by (memfbench ab --predict-from): the function's calls in the recorded
 * run, a whole number from 1 to 2^53 (beyond, a double no longer holds every count), and the
 * recorded command's program as given (command[0]) into program (n bytes). 0, or -1 with the
 * file and field named in err. */
int mfb_provenance_calls(const char *dir, enum mfb_func f, uint64_t *calls, char *program, size_t n,
                         struct mfb_err *err);
/* The same, of the provenance file at path (tests/fuzz/fuzz_provenance.c reads it from memory). */
int mfb_provenance_calls_at(const char *path, enum mfb_func f, uint64_t *calls, char *program, size_t n,
                            struct mfb_err *err);

#endif
