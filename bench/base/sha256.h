/* SHA-256 (FIPS 180-4), used to fingerprint the distribution files a run replayed. */
#ifndef MFB_SHA256_H
#define MFB_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct mfb_sha256 {
    uint32_t h[8];
    uint64_t len;
    uint8_t block[64];
    size_t fill;
};

void mfb_sha256_init(struct mfb_sha256 *s);
void mfb_sha256_update(struct mfb_sha256 *s, const void *data, size_t n);
void mfb_sha256_final(struct mfb_sha256 *s, uint8_t out[32]);
/* Hex digest of a whole file into hex[65]; returns -1 if the file cannot be read. */
int mfb_sha256_file(const char *path, char hex[65]);

#endif
