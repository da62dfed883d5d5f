/* memfbench merge's run, from its request to the folder (the command line is cli/cmd_merge.c). */
#ifndef MFB_RECORDINGS_MERGE_H
#define MFB_RECORDINGS_MERGE_H

struct mfb_merge_request {
    const char *out;          /* -o DIR */
    char **folders;           /* the recorded folders */
    int nfolders;
    const char *const *bpf;   /* --bpftrace FUNCTION:FILE, as given */
    int nbpf;
};

/* Merges the inputs into the new folder: the exit status. */
int mfb_recordings_merge(const struct mfb_merge_request *r);

#endif
