#include "machine/midr.h"

#include <stdio.h>
#include <stdlib.h>

#if defined(__aarch64__)
#include <sys/auxv.h>
/* asm/hwcap.h: the kernel traps and emulates reads of the ID registers from user mode. */
#define HWCAP_CPUID_BIT (1ul << 11)
#endif

struct mfb_midr mfb_midr_decode(uint32_t raw)
{
    return (struct mfb_midr){.raw = raw, .implementer = raw >> 24, .variant = (raw >> 20) & 0xf,
                             .part = (raw >> 4) & 0xfff, .revision = raw & 0xf};
}

bool mfb_midr_read(struct mfb_midr *m)
{
#if defined(__aarch64__)
    /* sysfs: the value the kernel read at boot for CPU 0 (the same on the cores a study pins to,
     * but for big.LITTLE parts, where the study's CPU is named by the instruction below). */
    FILE *f = fopen("/sys/devices/system/cpu/cpu0/regs/identification/midr_el1", "r");
    unsigned long long v = 0;
    bool ok = f && fscanf(f, "%llx", &v) == 1;
    if (f)
        fclose(f);
    if (!ok && (getauxval(AT_HWCAP) & HWCAP_CPUID_BIT)) {
        uint64_t r;
        __asm__ volatile("mrs %0, midr_el1" : "=r"(r));
        v = r;
        ok = true;
    }
    if (ok)
        *m = mfb_midr_decode((uint32_t)v);
    return ok;
#else
    (void)m;
    return false;
#endif
}

struct part_name {
    unsigned implementer, part;
    const char *name;
};

/* Implementer codes are assigned by Arm; part numbers by each implementer (their technical
 * reference manuals list them, and Linux's arch/arm64/include/asm/cputype.h collects them). */
static const struct part_name parts[] = {
    {0x41, 0xd03, "Cortex-A53"},   {0x41, 0xd04, "Cortex-A35"},   {0x41, 0xd05, "Cortex-A55"},
    {0x41, 0xd07, "Cortex-A57"},   {0x41, 0xd08, "Cortex-A72"},   {0x41, 0xd09, "Cortex-A73"},
    {0x41, 0xd0a, "Cortex-A75"},   {0x41, 0xd0b, "Cortex-A76"},   {0x41, 0xd0c, "Neoverse-N1"},
    {0x41, 0xd0d, "Cortex-A77"},   {0x41, 0xd40, "Neoverse-V1"},  {0x41, 0xd41, "Cortex-A78"},
    {0x41, 0xd44, "Cortex-X1"},    {0x41, 0xd46, "Cortex-A510"},  {0x41, 0xd47, "Cortex-A710"},
    {0x41, 0xd48, "Cortex-X2"},    {0x41, 0xd49, "Neoverse-N2"},  {0x41, 0xd4a, "Neoverse-E1"},
    {0x41, 0xd4b, "Cortex-A78C"},  {0x41, 0xd4d, "Cortex-A715"},  {0x41, 0xd4e, "Cortex-X3"},
    {0x41, 0xd4f, "Neoverse-V2"},  {0x41, 0xd80, "Cortex-A520"},  {0x41, 0xd81, "Cortex-A720"},
    {0x41, 0xd82, "Cortex-X4"},    {0x41, 0xd84, "Neoverse-V3"},  {0x41, 0xd8e, "Neoverse-N3"},
    {0x43, 0x0a1, "ThunderX"},     {0x43, 0x0af, "ThunderX2"},    {0x46, 0x001, "A64FX"},
    {0x48, 0xd01, "TSV110 (Kunpeng 920)"},                        {0x4e, 0x004, "Carmel"},
    {0x51, 0xc00, "Falkor"},       {0xc0, 0xac3, "Ampere-1"},     {0xc0, 0xac4, "Ampere-1a"},
    /* implementer 0 is reserved for software: QEMU's "max" CPU reports part 0x051 */
    {0x00, 0x051, "QEMU max (emulated)"},
};

static const struct {
    unsigned code;
    const char *name;
} implementers[] = {
    {0x00, "Software-defined"}, {0x41, "Arm"},      {0x42, "Broadcom"}, {0x43, "Cavium"},
    {0x46, "Fujitsu"},          {0x48, "HiSilicon"}, {0x4e, "NVIDIA"},   {0x50, "Applied Micro"},
    {0x51, "Qualcomm"},         {0x61, "Apple"},    {0x6d, "Microsoft"}, {0xc0, "Ampere"},
};

void mfb_midr_name(const struct mfb_midr *m, char *buf, size_t n)
{
    const char *impl = NULL;
    for (size_t i = 0; i < sizeof implementers / sizeof implementers[0]; i++)
        if (implementers[i].code == m->implementer)
            impl = implementers[i].name;
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        if (parts[i].implementer == m->implementer && parts[i].part == m->part) {
            if (m->implementer == 0) /* software-defined: the part's name says whose */
                snprintf(buf, n, "%s", parts[i].name);
            else
                snprintf(buf, n, "%s %s", impl, parts[i].name);
            return;
        }
    if (impl)
        snprintf(buf, n, "%s part 0x%03x", impl, m->part);
    else
        snprintf(buf, n, "implementer 0x%02x part 0x%03x", m->implementer, m->part);
}
