/* copy_at.c with its code 32 bytes into a 64-byte line (see there). */
#define COPY_AT 32
#include "copy_at.c"
