/* The --processes boundary round trip: the golden result file read into a typed result
 * (processes/child.c), a merged document built from it (processes/merge.c), and that document
 * read back must give the same typed result; the child's document is never edited on the way.
 * Usage: test_child GOLDEN */
#include <cJSON.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "json_file.h"
#include "processes/child.h"
#include "processes/merge.h"
#include "study/options.h"
#include "tap.h"

static bool same_result(const struct mfb_child_result *a, const struct mfb_child_result *b)
{
    bool same = a->complete == b->complete && a->stop_reason == b->stop_reason && a->batch_passes == b->batch_passes &&
                a->rounds_s == b->rounds_s && a->nvars == b->nvars && !strcmp(a->function, b->function) &&
                !strcmp(a->distribution, b->distribution) && !strcmp(a->host->cpu.model.text, b->host->cpu.model.text) &&
                !strcmp(a->clock, b->clock) && a->rotation == b->rotation && a->sweep == b->sweep &&
                a->nclasses == b->nclasses && a->has_background == b->has_background;
    for (int v = 0; same && v < a->nvars; v++)
        same = !strcmp(a->names[v], b->names[v]) && a->harness[v] == b->harness[v];
    for (int c = 0; same && c < a->nclasses; c++)
        same = a->class_lo[c] == b->class_lo[c] && a->class_hi[c] == b->class_hi[c];
    return same;
}

/* A field taken out or given the wrong type is named in one line. */
static void check_errors(struct tap *t, const cJSON *golden)
{
    static const char *const fields[][2] = {{"status", "complete"}, {"config", "function"}, {"timer", "name"},
                                            {"batch", "passes"}, {"config", "code_rotation"}};
    for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++) {
        cJSON *bad = cJSON_Duplicate(golden, 1);
        cJSON *section = cJSON_GetObjectItemCaseSensitive(bad, fields[k][0]);
        cJSON_DeleteItemFromObjectCaseSensitive(section, fields[k][1]);
        cJSON_AddItemToObject(section, fields[k][1], cJSON_CreateArray());
        struct mfb_child_result r;
        struct mfb_err err = {0};
        char want[64];
        snprintf(want, sizeof want, "%s.%s", fields[k][0], fields[k][1]);
        int rc = mfb_child_from_json(bad, 2, 3, false, &r, &err);
        TAP_CHECK(t, rc < 0 && strstr(err.msg, "process 3 of 3") && strstr(err.msg, want),
                  "%s of the wrong type is refused: %s", want, err.msg);
        mfb_child_free(&r);
        cJSON_Delete(bad);
    }
}

int main(int argc, char **argv)
{
    struct tap t = {0};
    cJSON *golden = argc > 1 ? read_json(argv[1]) : NULL;
    if (!golden) {
        printf("Bail out! usage: test_child GOLDEN (a readable result file)\n");
        return 1;
    }
    cJSON *untouched = cJSON_Duplicate(golden, 1);
    struct mfb_child_result first, again;
    struct mfb_err err = {0};
    if (mfb_child_from_json(golden, 0, 2, true, &first, &err) < 0) {
        printf("Bail out! the golden file does not read: %s\n", err.msg);
        return 1;
    }
    TAP_CHECK(&t, first.nvars == 2 && !strcmp(first.names[0], "libc") && !strcmp(first.function, "memcpy") &&
                  first.batch_passes > 0 && first.complete,
              "its variants, function, batch and status come out typed");

    /* The host crosses typed: read back and written again, it is the block the child wrote. */
    cJSON *host_again = mfb_host_json(first.host);
    TAP_CHECK(&t, cJSON_Compare(cJSON_GetObjectItemCaseSensitive(golden, "host"), host_again, true),
              "the host block reads into its type and writes back the same");
    cJSON_Delete(host_again);
    TAP_CHECK(&t, !strcmp(mfb_host_flag_names[MFB_HOST_FLAG_HYPERVISOR], "hypervisor"),
              "the virtual-CPU check asks for the hypervisor flag by its index");

    char *args[] = {"memfbench", "run", "--processes", "1"};
    /* the parent's study: its defaults and command line (its request is what the merged config echoes) */
    struct mfb_study study;
    mfb_study_defaults(&study, "distributions");
    study.argc = 4;
    study.argv = args;
    study.seed_given = true;
    bool compared[MFB_MAX_VARIANTS] = {false, true};
    double widths[MFB_MAX_VARIANTS] = {0};
    struct mfb_merge_end end = {.planned = 1, .done = 1, .compared = compared, .widths = widths};
    cJSON *merged = mfb_merge_document(&study, &first, &end, 42);
    TAP_CHECK(&t, cJSON_Compare(golden, untouched, true), "building the merged file left the child's document as it was");
    TAP_CHECK(&t, mfb_child_from_json(merged, 0, 1, false, &again, &err) == 0 && same_result(&first, &again),
              "the merged document reads back to the same typed result: %s", err.msg);
    const cJSON *cl = cJSON_GetObjectItemCaseSensitive(merged, "command_line");
    const cJSON *seeds = cJSON_GetObjectItemCaseSensitive(merged, "seeds");
    TAP_CHECK(&t, cJSON_GetArraySize(cl) == 4 && !strcmp(cJSON_GetArrayItem(cl, 3)->valuestring, "1") &&
                  !strcmp(cJSON_GetObjectItemCaseSensitive(seeds, "master")->valuestring, "42") &&
                  cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(
                      cJSON_GetObjectItemCaseSensitive(merged, "config"), "processes")) == 1,
              "the study's command line, master seed and process count are the merge's own");
    TAP_CHECK(&t, cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(merged, "processes")) == 1 &&
                  !cJSON_GetObjectItemCaseSensitive(merged, "samples"),
              "one entry per process; the samples are the writer's to add");
    /* Same keys in the same order as the child's sections: the file's shape does not move. */
    const cJSON *a = first.sections->child, *b = merged->child;
    bool order = true;
    for (; a && b; a = a->next, b = b->next)
        order = order && !strcmp(a->string, b->string);
    TAP_CHECK(&t, order, "the merged document keeps the child's section order");
    end.planned = 2; /* a process missing: interrupted */
    cJSON *short_doc = mfb_merge_document(&study, &first, &end, 42);
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(short_doc, "status");
    TAP_CHECK(&t, cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(st, "complete")) &&
                  !strcmp(cJSON_GetObjectItemCaseSensitive(st, "stop_reason")->valuestring, "interrupted"),
              "a study short of its processes is marked interrupted");
    check_errors(&t, golden);
    /* a study's warnings: each process counted once per kind, however often it warned; a kind said
     * of other variants than its message names is marked so (issue 54: "[in 45 of 32 processes]") */
    struct mfb_child_result two[2] = {{.rerun_of = -1}, {.rerun_of = -1}};
    mfb_warnings_add(&two[0].warnings, MFB_W_LINEARITY, "variant 'a': a batch twice as long took 1.9 x", 0);
    mfb_warnings_add(&two[0].warnings, MFB_W_LINEARITY, "variant 'b': a batch twice as long took 1.8 x", 0);
    mfb_warnings_add(&two[1].warnings, MFB_W_LINEARITY, "variant 'a': a batch twice as long took 2.3 x", 0);
    mfb_warnings_add(&two[1].warnings, MFB_W_LOAD, "machine load is 2.5 on 2 CPUs", 0);
    struct mfb_merge_end both = {.planned = 2, .done = 2};
    struct mfb_warnings merged_w;
    mfb_merge_warnings(&study, two, &both, &merged_w);
    TAP_CHECK(&t, merged_w.n == 2 && merged_w.kind[0] == MFB_W_LINEARITY && merged_w.processes[0] == 2 &&
                  merged_w.others[0] && merged_w.processes[1] == 1 && !merged_w.others[1],
              "each process counted once per kind (2 of 2, not 3), and 'of other variants' marked");
    mfb_warnings_free(&merged_w);
    mfb_warnings_free(&two[0].warnings);
    mfb_warnings_free(&two[1].warnings);
    /* the batch shape's linearity is the study's to judge: the median over processes of each one's
     * figure; a process beyond the tolerance on its own, with the median inside, is no warning */
    struct mfb_child_result lin[5];
    char name_a[] = "a", name_b[] = "b";
    const double a_values[5] = {0.90, 1.08, 0.99, 1.01, 1.00}, b_values[5] = {1.09, 1.07, 1.12, 0.98, 1.06};
    for (int i = 0; i < 5; i++) {
        lin[i] = (struct mfb_child_result){.rerun_of = -1, .nvars = 2, .linearity_tolerance = 0.05,
                                           .names = {name_a, name_b}, .linearity = {a_values[i], b_values[i]}};
    }
    struct mfb_merge_end five = {.planned = 5, .done = 5};
    mfb_merge_warnings(&study, lin, &five, &merged_w);
    TAP_CHECK(&t, merged_w.n == 1 && merged_w.kind[0] == MFB_W_LINEARITY && merged_w.processes[0] == 0 &&
                  strstr(merged_w.msg[0], "variant 'b': a batch twice as long took 1.070 x twice the time, the median "
                                          "over 5 processes (4 of them beyond the tolerance of 5 % on their own)"),
              "the study warns of a variant whose median over processes is beyond the tolerance, not of one "
              "whose processes cross it by chance");
    mfb_warnings_free(&merged_w);
    lin[0].linearity_tolerance = 0; /* files that record none: no judgement */
    mfb_merge_warnings(&study, lin, &five, &merged_w);
    TAP_CHECK(&t, merged_w.n == 0, "no tolerance recorded, no linearity judged");
    mfb_warnings_free(&merged_w);
    cJSON_Delete(short_doc);
    cJSON_Delete(merged);
    mfb_child_free(&first);
    mfb_child_free(&again);
    cJSON_Delete(untouched);
    cJSON_Delete(golden);
    return tap_done(&t);
}
