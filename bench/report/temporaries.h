/* Temporaries beside a target: what a result file (report/output.c) and an output folder
 * (report/folder.c) are filled in before they are renamed into place. One owner for their names
 * and for removing them, so neither writer needs the other. */
#ifndef MFB_TEMPORARIES_H
#define MFB_TEMPORARIES_H

#include <stdbool.h>
#include <stddef.h>

/* The folder part of path ("." when none, "/" for the root) and its last component (a pointer
 * into path). */
void mfb_temp_split(const char *path, char *dir, size_t dir_cap, const char **base);
/* The malloc'd template "<dir>/.<base>.memfbench-<pid><what>.XXXXXX" for mkstemp or mkdtemp (a
 * base over 185 bytes is cut and hashed, so the name fits NAME_MAX); what is under 16 bytes; NULL
 * when out of memory. */
char *mfb_temp_template(const char *dir, const char *base, const char *what);
/* Removes every memfbench temporary in dir whose process is gone (kill -9), files and folders,
 * and with say one line on stderr when there were any: how many. */
int mfb_temp_remove_stale(const char *dir, bool say);
/* Removes a folder and everything under it, or a file. */
void mfb_temp_remove_tree(const char *path);

#endif
