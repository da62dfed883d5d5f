/* Temporaries: what a result file (report/output.c), an output folder (report/folder.c), a build
 * or training folder in the cache (source/), ab's work folder and counts' callgrind folder are
 * filled in before they are renamed into place or removed. One owner for their names, for making
 * and removing them, and for the register of this process's own:
 *
 * every temporary made here is registered, and taken off when it is renamed into place
 * (mfb_temp_settle) or removed (mfb_temp_discard); whatever is still registered when the process
 * exits (a return from main, exit(), a failure or a stop request on any path) is removed then, so
 * no exit path has to remember it. What a process killed outright (SIGKILL) leaves is removed by
 * the next command that sweeps the folder, because its name carries its dead process's pid. The
 * register is the process's own (a list behind this module): the exit handler that empties it
 * can reach nothing else. */
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
/* Makes a temporary named by mfb_temp_template in dir (a file, 0600, with folder false; else a
 * folder, 0700) and registers it: its malloc'd path, or NULL with errno set. */
char *mfb_temp_make(const char *dir, const char *base, const char *what, bool folder);
/* Registers a temporary made otherwise (a name another template gave); false when out of memory
 * (it is then only swept later). */
bool mfb_temp_register(const char *path);
/* Renames a registered temporary into place (rename(2): 0, or -1 with errno) and, when it moved,
 * takes it off the register. */
int mfb_temp_settle(const char *tmp, const char *target);
/* Takes a temporary off the register without touching it (renamed by other means). */
void mfb_temp_forget(const char *path);
/* Removes a temporary (a file or a folder tree) and takes it off the register. */
void mfb_temp_discard(const char *path);
/* How many temporaries are registered (the tests' view of a command's exit paths). */
int mfb_temp_registered(void);
/* The folder of memfbench's cache (built source variants, profiles): $MEMFBENCH_CACHE, else
 * $XDG_CACHE_HOME/memfbench, else $HOME/.cache/memfbench; "" when none of them is set. */
void mfb_cache_root(char *out, size_t cap);
/* Removes every memfbench temporary whose process is gone (a run killed outright) from the
 * folders any command may write into besides its output's: $TMPDIR (else /tmp) and the cache's
 * variants/ and profiles/. Every command calls it as it starts. */
void mfb_temp_sweep(void);

/* Removes every memfbench temporary in dir whose process is gone (kill -9), files and folders,
 * and with say one line on stderr when there were any: how many. */
int mfb_temp_remove_stale(const char *dir, bool say);
/* Removes a folder and everything under it, or a file. */
void mfb_temp_remove_tree(const char *path);

#endif
