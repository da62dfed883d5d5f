/* Code placements. ASLR moves code by whole pages, so without help the low 12 bits of every code
 * address are the same in every process, and with them the alignment of loops and branches to
 * the uop cache's 32- and 64-byte windows, the instruction cache sets and the branch predictors'
 * indexes: one arbitrary placement, frozen (Mytkowicz et al., ASPLOS 2009). memfbench's own timed
 * code (the harness's loops in measure/, the built-ins in impl/) is therefore compiled
 * MFB_CODE_PLACEMENTS times, each copy opening its text at a page boundary plus its own pad, and
 * every process times a copy drawn at random (machine/layout.h), recorded in the result file. */
#ifndef MFB_CODE_PLACEMENT_H
#define MFB_CODE_PLACEMENT_H

#include <stdint.h>

#define MFB_CODE_PLACEMENTS 8
/* X(k) for every placement, for the tables that list them (the build compiles one copy each:
 * bench/impl/meson.build and bench/measure/meson.build loop over the same count). */
#define MFB_EACH_PLACEMENT(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
/* Bytes between placement k and k + 1: 16 modulo 64 (functions are 16-byte aligned, so the four
 * offsets a function can take within a cache line all occur) and 528 modulo 4096, so all eight
 * start at different places within the page. */
#define MFB_PLACEMENT_STEP 528
/* The offsets into a 64-byte line the placements give a function: placement k is at 16 k modulo
 * 64, so k and k + 4 share one. The placement model of the verdicts (base/placement_model.h,
 * analysis/stats/placement_model.py) has one effect per line offset of each code: on the Zen 5 VM the offset into
 * the line explained a placement's effect as well as the placement itself did, and a model with 3
 * parameters a code in place of 7 leaves the interval more degrees of freedom; what a page offset
 * adds stays in its error (wider, never narrower). */
#define MFB_LINE_OFFSETS 4
#if MFB_PLACEMENT_STEP % 64 != 64 / MFB_LINE_OFFSETS
#error "placements k and k + 1 must be one line offset apart"
#endif
static inline int8_t mfb_line_offset_of(int8_t placement)
{
    return placement < 0 ? (int8_t)-1 : (int8_t)(placement % MFB_LINE_OFFSETS);
}

/* When a process changes the placements its timed code runs from (machine/layout.h).
 *   ROUND: every round moves the loop and each built-in one step along its permutation, so each
 *     process times every placement equally often and its estimate averages them; which
 *     placements meet in a round (the pairing) is drawn per process.
 *   PROCESS: one placement per process for the whole run, balanced over a study's processes: the
 *     estimate of one process carries its placements' effect, which only the spread between
 *     processes averages (the design before rotation; on the Zen 3 VM that spread was 1.3-2 %). */
enum mfb_code_rotation { MFB_ROTATE_ROUND, MFB_ROTATE_PROCESS };

/* The code placements one process ran (its file's processes[] entry): the timed loop's and each
 * variant's, -1 for code that has none. Bounded by MFB_PLACED_VARIANTS, which the study's variant
 * limit (study/study.h, MFB_MAX_VARIANTS) must not exceed. */
#define MFB_PLACED_VARIANTS 32
struct mfb_process_placements {
    int8_t kernel;
    int8_t variant[MFB_PLACED_VARIANTS];
};

#define MFB_CAT_(a, b) a##b
#define MFB_CAT(a, b) MFB_CAT_(a, b)
#define MFB_STR_(x) #x
#define MFB_STR(x) MFB_STR_(x)

/* Opens the translation unit's text at a 4 KiB boundary plus k * MFB_PLACEMENT_STEP bytes of
 * never-executed int3. It must precede every function of the file, which the build guarantees
 * with -fno-toplevel-reorder for the placed files. (.if: gas warns of a .skip of 0 bytes.)
 * The 4 KiB alignment is fixed at compile time and serves 16 and 64 KiB kernels (AArch64) too:
 * the loader moves code by whole pages, and 4096 divides every page size, so an address modulo
 * 4096 is the same in every process on those kernels as on a 4 KiB one, and the pads still give
 * the eight copies eight different offsets within 4 KiB and the four line offsets the placement
 * model uses. What a larger page changes is above bit 12: bits 12-13 (16 KiB) or 12-15 (64 KiB)
 * of a copy's address are no longer drawn by ASLR per process but fixed by the link, the same in
 * every process of a build; the placements never claimed to vary them. Aligning to 64 KiB instead
 * would pad each of the 16 placed libraries by up to 64 KiB for no placement it does not give. */
#define MFB_PLACEMENT_PAD(k)                                                                       \
    __asm__(".text\n.p2align 12\n.if (" MFB_STR(k) ")\n.skip (" MFB_STR(k) ") * " MFB_STR(          \
        MFB_PLACEMENT_STEP) ", 0xcc\n.endif\n")

#endif
