/* copy_at.h with its code at the start of a 64-byte line. */
#define COPY_AT 0
#include "copy_at.h"
