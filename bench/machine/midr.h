/* The CPU's name on AArch64, from its Main ID Register (MIDR_EL1): /proc/cpuinfo on Arm has no
 * "model name", only the implementer and part numbers, and under qemu-user it is the host's file
 * (an x86 name for an emulated Arm CPU). MIDR is the architected answer: implementer (bits 31:24),
 * variant (23:20), architecture (19:16), part (15:4), revision (3:0). */
#ifndef MFB_MIDR_H
#define MFB_MIDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mfb_midr {
    uint32_t raw;
    unsigned implementer, variant, part, revision;
};

/* Reads this CPU's MIDR_EL1 (sysfs first, else the mrs instruction, which Linux emulates for user
 * code when it reports HWCAP_CPUID). False where there is none: not AArch64, or neither source. */
bool mfb_midr_read(struct mfb_midr *m);
/* Splits a raw MIDR value into its fields. */
struct mfb_midr mfb_midr_decode(uint32_t raw);
/* "Arm Neoverse-N1", "Ampere Ampere-1", "Apple part 0x022"; an unlisted implementer as
 * "implementer 0x.. part 0x...". */
void mfb_midr_name(const struct mfb_midr *m, char *buf, size_t n);

#endif
