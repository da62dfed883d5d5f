/* A gzip stream as a stdio FILE: the result writer prints the same text whether the file is
 * plain JSON or .json.gz (a 10 s run's columns shrink about fourfold, every sample kept). */
#ifndef MFB_GZIP_H
#define MFB_GZIP_H

#include <stdbool.h>
#include <stdio.h>

/* True when the name asks for a compressed result: it ends in ".gz". */
bool mfb_gzip_wanted(const char *path);
/* A write-only FILE whose bytes are gzip-compressed into raw. fclose() of it finishes the
 * stream (the gzip trailer) and returns EOF if compressing or writing failed; raw stays open
 * and is the caller's to flush and close. NULL when out of memory. */
FILE *mfb_gzip_writer(FILE *raw);

#endif
