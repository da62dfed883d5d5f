/* Byte loops for the calls a preloaded library's own set-up makes (dlsym and dlopen copy) before it
 * has found the functions it forwards to: the recorder's (record/recorder.c) and the ab shim's
 * (ab/shim.c). The same loops as bench/impl/reference.c, which neither library can link: each is
 * preloaded into other programs and carries nothing of the benchmark. Every file that includes
 * this is compiled with -fno-builtin and without loop-to-call patterns, so they stay loops; the
 * libraries' hidden visibility keeps them out of the program's symbols. */
#ifndef MFB_FALLBACK_H
#define MFB_FALLBACK_H

#include <stddef.h>

void *fb_copy(void *d, const void *s, size_t n);
void *fb_set(void *d, int c, size_t n);
int fb_cmp(const void *a, const void *b, size_t n);

#endif
