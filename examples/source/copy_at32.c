/* copy_at.h with its code 32 bytes into a 64-byte line. */
#define COPY_AT 32
#include "copy_at.h"
