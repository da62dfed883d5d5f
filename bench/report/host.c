#include "report/host.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

const char *const mfb_host_flag_names[MFB_HOST_FLAGS] = {
    "sse2", "ssse3", "avx", "avx2", "avx512f", "avx512bw", "avx512vl", "erms", "fsrm", "fzrm", "fsrs", "rdtscp",
    "constant_tsc", "nonstop_tsc", "tsc_known_freq", "hypervisor", "asimd", "sve"};
_Static_assert(MFB_HOST_FLAGS <= 32, "the flags are bits of a uint32_t");

/* Each field of the block, in the file's order, with where it lives in the struct: one table for
 * the writer and the reader, so the two cannot disagree on a key. */
struct text_field {
    const char *key;
    size_t offset; /* of a struct mfb_host_text in struct mfb_host */
};

#define TEXT_AT(m) offsetof(struct mfb_host, m)

static const struct text_field cpu_texts[] = {
    {"vendor", TEXT_AT(cpu.vendor)}, {"family", TEXT_AT(cpu.family)}, {"model_number", TEXT_AT(cpu.model_number)},
    {"stepping", TEXT_AT(cpu.stepping)}, {"microcode", TEXT_AT(cpu.microcode)},
    {"implementer", TEXT_AT(cpu.implementer)}, {"part", TEXT_AT(cpu.part)}};
static const struct text_field frequency_texts[] = {
    {"governor", TEXT_AT(frequency.governor)}, {"driver", TEXT_AT(frequency.driver)},
    {"min_khz", TEXT_AT(frequency.min_khz)}, {"max_khz", TEXT_AT(frequency.max_khz)},
    {"cur_khz", TEXT_AT(frequency.cur_khz)}, {"hw_max_khz", TEXT_AT(frequency.hw_max_khz)},
    {"boost", TEXT_AT(frequency.boost)}, {"intel_no_turbo", TEXT_AT(frequency.intel_no_turbo)}};
static const struct text_field smt_texts[] = {
    {"active", TEXT_AT(smt_active)}, {"control", TEXT_AT(smt_control)},
    {"siblings_of_pinned_cpu", TEXT_AT(smt_siblings_of_pinned_cpu)}};
static const struct text_field thp_texts[] = {{"enabled", TEXT_AT(thp_enabled)}, {"defrag", TEXT_AT(thp_defrag)}};

#define COUNT(a) (sizeof a / sizeof a[0])

static const struct mfb_host_text *text_of(const struct mfb_host *h, size_t offset)
{
    return (const struct mfb_host_text *)((const char *)h + offset);
}

static void add_text(cJSON *o, const char *key, const struct mfb_host_text *t)
{
    if (t->known)
        cJSON_AddStringToObject(o, key, t->text);
    else
        cJSON_AddNullToObject(o, key);
}

/* The fields of a table; present ones only when only_known (the CPU's cpuinfo keys are left out
 * when the CPU has none, as /proc/cpuinfo differs between architectures). */
static void add_texts(cJSON *o, const struct mfb_host *h, const struct text_field *f, size_t n, bool only_known)
{
    for (size_t i = 0; i < n; i++)
        if (!only_known || text_of(h, f[i].offset)->known)
            add_text(o, f[i].key, text_of(h, f[i].offset));
}

static void add_number_or_null(cJSON *o, const char *key, bool have, double v)
{
    if (have)
        cJSON_AddNumberToObject(o, key, v);
    else
        cJSON_AddNullToObject(o, key);
}

static cJSON *cpu_json(const struct mfb_host *h)
{
    cJSON *cpu = cJSON_CreateObject();
    cJSON_AddStringToObject(cpu, "model", h->cpu.model.text);
    add_texts(cpu, h, cpu_texts, COUNT(cpu_texts), true);
    cJSON *flags = cJSON_AddArrayToObject(cpu, "flags");
    for (int i = 0; i < MFB_HOST_FLAGS; i++)
        if (h->cpu.flags >> i & 1)
            cJSON_AddItemToArray(flags, cJSON_CreateString(mfb_host_flag_names[i]));
    cJSON_AddNumberToObject(cpu, "online", (double)h->cpu.online);
    cJSON_AddNumberToObject(cpu, "configured", (double)h->cpu.configured);
    return cpu;
}

/* What the environment checks recorded beside their warnings. */
static void add_checks(cJSON *o, const struct mfb_host *h)
{
    if (h->have_siblings) {
        cJSON *sib = cJSON_AddArrayToObject(o, "smt_sibling_busy");
        for (int i = 0; i < h->nsiblings; i++) {
            cJSON *s = cJSON_CreateObject();
            cJSON_AddNumberToObject(s, "cpu", h->sibling[i].cpu);
            cJSON_AddNumberToObject(s, "busy", h->sibling[i].busy);
            cJSON_AddItemToArray(sib, s);
        }
    }
    cJSON *p = cJSON_AddObjectToObject(o, "perf_counters");
    cJSON_AddBoolToObject(p, "cycles_available", h->perf_cycles);
    add_text(p, "error", &h->perf_error);
    if (h->have_isolated)
        cJSON_AddBoolToObject(o, "cpu_isolated", h->cpu_isolated);
    if (h->have_load) {
        cJSON *l = cJSON_AddArrayToObject(o, "load_average");
        for (int i = 0; i < 3; i++)
            cJSON_AddItemToArray(l, cJSON_CreateNumber(h->load[i]));
    }
}

cJSON *mfb_host_json(const struct mfb_host *h)
{
    cJSON *o = cJSON_CreateObject();
    if (h->have_uname) {
        add_text(o, "hostname", &h->hostname);
        add_text(o, "kernel", &h->kernel);
        add_text(o, "kernel_version", &h->kernel_version);
        add_text(o, "machine", &h->machine);
    }
    cJSON_AddItemToObject(o, "cpu", cpu_json(h));
    add_number_or_null(o, "pinned_cpu", h->pinned_cpu >= 0, h->pinned_cpu);
    cJSON *caches = cJSON_AddObjectToObject(o, "caches");
    cJSON_AddNumberToObject(caches, "l1d", (double)h->caches.l1d);
    cJSON_AddNumberToObject(caches, "l2", (double)h->caches.l2);
    cJSON_AddNumberToObject(caches, "llc", (double)h->caches.llc);
    cJSON_AddNumberToObject(caches, "line", (double)h->caches.line);
    cJSON_AddStringToObject(caches, "source", mfb_cache_source_name(h->caches.source));
    cJSON *fr = cJSON_AddObjectToObject(o, "frequency");
    add_texts(fr, h, frequency_texts, COUNT(frequency_texts), false);
    if (h->frequency.have_mhz)
        cJSON_AddNumberToObject(fr, "cpuinfo_mhz", h->frequency.cpuinfo_mhz);
    add_texts(cJSON_AddObjectToObject(o, "smt"), h, smt_texts, COUNT(smt_texts), false);
    add_texts(cJSON_AddObjectToObject(o, "transparent_hugepages"), h, thp_texts, COUNT(thp_texts), false);
    add_number_or_null(o, "aslr", h->have_aslr, h->aslr);
    add_text(o, "isolated_cpus", &h->isolated_cpus);
    add_text(o, "nohz_full", &h->nohz_full);
    add_number_or_null(o, "perf_event_paranoid", h->have_paranoid, h->perf_event_paranoid);
    if (h->have_memory)
        cJSON_AddNumberToObject(o, "memory_bytes", h->memory_bytes);
    add_checks(o, h);
    return o;
}

/* Reading back: each key as the writer wrote it, or the first one that is not. */

struct reader {
    struct mfb_err *err;
    bool bad;
};

static void read_text(struct reader *r, const cJSON *o, const char *key, struct mfb_host_text *t)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    t->known = cJSON_IsString(v);
    t->text[0] = '\0';
    if (t->known)
        snprintf(t->text, sizeof t->text, "%s", v->valuestring);
    else if (v && !cJSON_IsNull(v) && !r->bad)
        r->bad = mfb_fail(r->err, "host.%s: not a string or null", key) < 0;
}

static void read_texts(struct reader *r, const cJSON *o, struct mfb_host *h, const struct text_field *f, size_t n)
{
    for (size_t i = 0; i < n; i++)
        read_text(r, o, f[i].key, (struct mfb_host_text *)((char *)h + f[i].offset));
}

/* A number, or have = false for null or absent. */
static double read_number(struct reader *r, const cJSON *o, const char *key, bool *have)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    *have = cJSON_IsNumber(v);
    if (v && !*have && !cJSON_IsNull(v) && !r->bad)
        r->bad = mfb_fail(r->err, "host.%s: not a number or null", key) < 0;
    return *have ? v->valuedouble : 0;
}

static void read_cpu(struct reader *r, const cJSON *cpu, struct mfb_host *h)
{
    bool have;
    read_text(r, cpu, "model", &h->cpu.model);
    read_texts(r, cpu, h, cpu_texts, COUNT(cpu_texts));
    const cJSON *f;
    cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(cpu, "flags"))
        for (int i = 0; cJSON_IsString(f) && i < MFB_HOST_FLAGS; i++)
            if (!strcmp(f->valuestring, mfb_host_flag_names[i]))
                h->cpu.flags |= 1u << i;
    h->cpu.online = (long)read_number(r, cpu, "online", &have);
    h->cpu.configured = (long)read_number(r, cpu, "configured", &have);
}

static void read_caches(struct reader *r, const cJSON *c, struct mfb_host *h)
{
    bool have;
    h->caches.l1d = (size_t)read_number(r, c, "l1d", &have);
    h->caches.l2 = (size_t)read_number(r, c, "l2", &have);
    h->caches.llc = (size_t)read_number(r, c, "llc", &have);
    h->caches.line = (size_t)read_number(r, c, "line", &have);
    const cJSON *src = cJSON_GetObjectItemCaseSensitive(c, "source");
    for (int s = MFB_CACHE_SYSFS; s <= MFB_CACHE_PROBE; s++)
        if (cJSON_IsString(src) && !strcmp(src->valuestring, mfb_cache_source_name((enum mfb_cache_source)s)))
            h->caches.source = (enum mfb_cache_source)s;
}

static void read_checks(struct reader *r, const cJSON *o, struct mfb_host *h)
{
    bool have;
    const cJSON *sib = cJSON_GetObjectItemCaseSensitive(o, "smt_sibling_busy"), *s;
    h->have_siblings = cJSON_IsArray(sib);
    cJSON_ArrayForEach(s, sib) {
        if (h->nsiblings == MFB_HOST_SIBLINGS)
            break;
        h->sibling[h->nsiblings].cpu = (int)read_number(r, s, "cpu", &have);
        h->sibling[h->nsiblings++].busy = read_number(r, s, "busy", &have);
    }
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(o, "perf_counters");
    h->perf_cycles = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "cycles_available"));
    read_text(r, p, "error", &h->perf_error);
    const cJSON *iso = cJSON_GetObjectItemCaseSensitive(o, "cpu_isolated");
    h->have_isolated = cJSON_IsBool(iso);
    h->cpu_isolated = cJSON_IsTrue(iso);
    const cJSON *load = cJSON_GetObjectItemCaseSensitive(o, "load_average");
    h->have_load = cJSON_IsArray(load) && cJSON_GetArraySize(load) == 3;
    for (int i = 0; h->have_load && i < 3; i++)
        h->load[i] = cJSON_GetNumberValue(cJSON_GetArrayItem(load, i));
}

int mfb_host_from_json(const cJSON *o, struct mfb_host *h, struct mfb_err *err)
{
    *h = (struct mfb_host){.pinned_cpu = -1};
    struct reader r = {.err = err};
    if (!cJSON_IsObject(o) || !cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(o, "cpu")))
        return mfb_fail(err, "host: not an object with a cpu block");
    h->have_uname = cJSON_HasObjectItem(o, "hostname");
    if (h->have_uname) {
        read_text(&r, o, "hostname", &h->hostname);
        read_text(&r, o, "kernel", &h->kernel);
        read_text(&r, o, "kernel_version", &h->kernel_version);
        read_text(&r, o, "machine", &h->machine);
    }
    read_cpu(&r, cJSON_GetObjectItemCaseSensitive(o, "cpu"), h);
    bool have;
    double pinned = read_number(&r, o, "pinned_cpu", &have);
    h->pinned_cpu = have ? (int)pinned : -1;
    read_caches(&r, cJSON_GetObjectItemCaseSensitive(o, "caches"), h);
    const cJSON *fr = cJSON_GetObjectItemCaseSensitive(o, "frequency");
    read_texts(&r, fr, h, frequency_texts, COUNT(frequency_texts));
    h->frequency.cpuinfo_mhz = read_number(&r, fr, "cpuinfo_mhz", &h->frequency.have_mhz);
    read_texts(&r, cJSON_GetObjectItemCaseSensitive(o, "smt"), h, smt_texts, COUNT(smt_texts));
    read_texts(&r, cJSON_GetObjectItemCaseSensitive(o, "transparent_hugepages"), h, thp_texts, COUNT(thp_texts));
    h->aslr = (int)read_number(&r, o, "aslr", &h->have_aslr);
    read_text(&r, o, "isolated_cpus", &h->isolated_cpus);
    read_text(&r, o, "nohz_full", &h->nohz_full);
    h->perf_event_paranoid = (int)read_number(&r, o, "perf_event_paranoid", &h->have_paranoid);
    h->memory_bytes = read_number(&r, o, "memory_bytes", &h->have_memory);
    read_checks(&r, o, h);
    return r.bad ? -1 : 0;
}
