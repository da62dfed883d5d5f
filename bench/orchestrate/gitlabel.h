/* The default --label: git describe of the first plugin's or source variant's folder (base/label.h). */
#ifndef MFB_GITLABEL_H
#define MFB_GITLABEL_H

#include "base/label.h"

/* Without a given label: git describe of the first plugin's or source variant's folder among the variant specs, when
 * that folder is in a git repository and git is installed; else no label. Never fails: a label is
 * context, and a study without one is still a study. */
void mfb_label_default(struct mfb_label *l, const char *const *variants, int nvariants);

#endif
