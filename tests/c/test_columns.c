/* One source of truth for the sample columns: the C table (report/columns.c) must list exactly
 * the columns of the JSON Schema, in its order and with its types, and the golden result file
 * tests/data/golden-run.json must come back identical through the merger's reader and the
 * writer, plain and through the gzip writer (report/gzip.c). Usage: test_columns SCHEMA GOLDEN */
#include <cJSON.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "report/columns.h"
#include "report/gzip.h"
#include "json_file.h"
#include "tap.h"

/* The kind the schema gives a column. */
static int schema_kind(const cJSON *prop)
{
    const cJSON *ref = cJSON_GetObjectItemCaseSensitive(prop, "$ref");
    if (cJSON_IsString(ref) && !strcmp(ref->valuestring, "#/$defs/uints"))
        return MFB_COLUMN_UINT;
    const cJSON *items = cJSON_GetObjectItemCaseSensitive(prop, "items");
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(items, "type");
    if (!cJSON_IsString(type))
        return -1;
    if (!strcmp(type->valuestring, "integer"))
        return MFB_COLUMN_INT;
    if (!strcmp(type->valuestring, "number"))
        return MFB_COLUMN_REAL;
    if (!strcmp(type->valuestring, "boolean"))
        return MFB_COLUMN_BOOL;
    return -1;
}

static void check_against_schema(struct tap *t, const cJSON *schema)
{
    const cJSON *samples = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(schema, "properties"), "samples");
    const cJSON *req = cJSON_GetObjectItemCaseSensitive(samples, "required");
    const cJSON *props = cJSON_GetObjectItemCaseSensitive(samples, "properties");
    const struct mfb_column *cols;
    size_t n = mfb_columns(&cols), k = 0;
    bool names = true, kinds = true;
    const cJSON *name;
    cJSON_ArrayForEach(name, req)
    {
        if (!strcmp(name->valuestring, "count"))
            continue;
        if (k >= n || strcmp(cols[k].name, name->valuestring)) {
            names = false;
            printf("# schema column %zu is '%s', the C table has '%s'\n", k, name->valuestring,
                   k < n ? cols[k].name : "(none)");
        } else if (schema_kind(cJSON_GetObjectItemCaseSensitive(props, name->valuestring)) != (int)cols[k].kind) {
            kinds = false;
            printf("# column '%s': the schema's type differs from the C table's kind\n", cols[k].name);
        }
        k++;
    }
    /* then the optional columns (--counters): in the schema's properties, not required */
    size_t required = k;
    for (; k < n; k++) {
        const cJSON *prop = cJSON_GetObjectItemCaseSensitive(props, cols[k].name);
        bool listed = false;
        cJSON_ArrayForEach(name, req) listed |= !strcmp(name->valuestring, cols[k].name);
        if (!cols[k].optional || !prop || listed) {
            names = false;
            printf("# C column '%s' after the required ones is not an optional column of the schema\n", cols[k].name);
        } else if (schema_kind(prop) != (int)cols[k].kind) {
            kinds = false;
            printf("# column '%s': the schema's type differs from the C table's kind\n", cols[k].name);
        }
    }
    size_t optional = 0;
    const cJSON *p;
    cJSON_ArrayForEach(p, props) optional += strcmp(p->string, "count") != 0;
    TAP_CHECK(t, names && optional == n, "the C table lists the schema's %zu required sample columns in its order, "
              "then its %zu optional ones", required, n - required);
    TAP_CHECK(t, kinds, "each column's kind matches its schema type");
}

/* Reads golden's samples through the merger's reader, writes them with the writer, and
 * compares the two "samples" objects. */
static void check_round_trip(struct tap *t, const cJSON *golden)
{
    struct mfb_samples s = {0};
    struct mfb_err err = {{0}};
    const cJSON *in = cJSON_GetObjectItemCaseSensitive(golden, "samples");
    int rc = mfb_columns_read(in, &s, -1, "golden", &err);
    TAP_CHECK(t, rc == 0 && s.n > 0, "the golden file's %zu samples read back (%s)", s.n, rc ? err.msg : "ok");
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    fputs("{\n", f);
    mfb_columns_write(f, &s);
    fputs("\n}\n", f);
    fclose(f);
    cJSON *out = cJSON_Parse(text);
    TAP_CHECK(t, out && cJSON_Compare(cJSON_GetObjectItemCaseSensitive(out, "samples"), in, true),
              "written again, the samples equal the golden file's");
    cJSON_Delete(out);
    free(text);
    mfb_samples_free(&s);
}

/* Inflates a whole gzip stream; NULL if it is not one or does not end. */
static char *gunzip(const unsigned char *in, size_t n)
{
    z_stream z = {0};
    if (inflateInit2(&z, 15 + 16) != Z_OK)
        return NULL;
    size_t cap = 4 * n + 65536, len = 0;
    char *out = malloc(cap + 1);
    z.next_in = (unsigned char *)in;
    z.avail_in = (unsigned)n;
    int rc = Z_OK;
    while (out && rc == Z_OK) {
        if (len == cap) {
            char *b = realloc(out, (cap *= 2) + 1);
            if (!b) {
                free(out);
                out = NULL;
                break;
            }
            out = b;
        }
        z.next_out = (unsigned char *)out + len;
        z.avail_out = (unsigned)(cap - len);
        rc = inflate(&z, Z_NO_FLUSH);
        len = cap - z.avail_out;
    }
    inflateEnd(&z);
    if (rc != Z_STREAM_END) {
        free(out);
        return NULL;
    }
    out[len] = '\0';
    return out;
}

/* The samples as text, written to memory by the plain writer. */
static char *plain_text(const struct mfb_samples *s)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    fputs("{\n", f);
    mfb_columns_write(f, s);
    fputs("\n}\n", f);
    fclose(f);
    return text;
}

/* Golden's samples repeated to some 2 MB of text (many times the writer's 64 KiB chunk) through
 * the gzip writer: the stream is a complete gzip file (header, data, trailer with its CRC) that
 * inflates to exactly the plain writer's text. */
static void check_gzip_round_trip(struct tap *t, const cJSON *golden)
{
    enum { COPIES = 4000 };
    struct mfb_samples s = {0};
    struct mfb_err err = {{0}};
    for (int i = 0; i < COPIES; i++)
        mfb_columns_read(cJSON_GetObjectItemCaseSensitive(golden, "samples"), &s, -1, "golden", &err);
    char *plain = plain_text(&s);
    char *packed = NULL;
    size_t plen = 0;
    FILE *raw = open_memstream(&packed, &plen);
    FILE *f = mfb_gzip_writer(raw);
    TAP_CHECK(t, f != NULL, "the gzip writer opens");
    if (!f) {
        fclose(raw);
        free(packed);
        mfb_samples_free(&s);
        return;
    }
    fputs("{\n", f);
    mfb_columns_write(f, &s);
    fputs("\n}\n", f);
    int closed = fclose(f);
    fclose(raw);
    char *text = gunzip((unsigned char *)packed, plen);
    TAP_CHECK(t, closed == 0 && text && (unsigned char)packed[0] == 0x1f && (unsigned char)packed[1] == 0x8b,
              "the gzip stream (%zu bytes) is complete and inflates", plen);
    TAP_CHECK(t, text && plain && !strcmp(text, plain), "inflated, the %zu samples are the plain writer's %zu bytes",
              s.n, plain ? strlen(plain) : 0);
    TAP_CHECK(t, mfb_gzip_wanted("r.json.gz") && !mfb_gzip_wanted("r.json") && !mfb_gzip_wanted(".gz"),
              "a name ending in .gz asks for compression, others do not");
    free(text);
    free(plain);
    free(packed);
    mfb_samples_free(&s);
}

/* A broken samples object must be refused with a message naming the column. */
static void check_refusals(struct tap *t, const cJSON *golden)
{
    static const struct {
        const char *what, *column;
    } cases[] = {
        {"a missing column", "ticks"},
        {"a column shorter than count", "round"},
        {"a cpu below -1", "cpu"},
        {"a string in a number column", "bytes"},
        {"a value too large for its field", "position"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cJSON *s = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(golden, "samples"), true);
        cJSON *col = cJSON_GetObjectItemCaseSensitive(s, cases[i].column);
        switch (i) {
        case 0: cJSON_DeleteItemFromObjectCaseSensitive(s, cases[i].column); break;
        case 1: cJSON_DeleteItemFromArray(col, 0); break;
        case 2: cJSON_ReplaceItemInArray(col, 0, cJSON_CreateNumber(-2)); break;
        case 3: cJSON_ReplaceItemInArray(col, 0, cJSON_CreateString("12")); break;
        default: cJSON_ReplaceItemInArray(col, 0, cJSON_CreateNumber(70000)); break;
        }
        struct mfb_samples out = {0};
        struct mfb_err err = {{0}};
        int rc = mfb_columns_read(s, &out, 0, "golden", &err);
        TAP_CHECK(t, rc < 0 && strstr(err.msg, cases[i].column), "%s is refused: %s", cases[i].what, err.msg);
        mfb_samples_free(&out);
        cJSON_Delete(s);
    }
}

/* The writer's own formatting (no fprintf per value) writes what printf's %.3f and %llu write:
 * ns values across the ranges a batch has, the ties printf rounds to even on the exact binary
 * value, and the extremes its fallback takes; every integer column at its bounds. */
static void check_numbers_as_printf(struct tap *t)
{
    static const double fixed[] = {0, 0.0005, 0.0625, 0.1875, 1.0005, 2.5e-4, 12.3455, 999.9995, 1e6 + 0.0005,
                                   8796093022.2075, 8796093022208.0, 8796093022208.5, 1e300, -1.5, -0.0};
    enum { RANDOM = 20000 };
    size_t n = sizeof fixed / sizeof fixed[0] + RANDOM;
    struct mfb_samples s = {.s = calloc(n, sizeof *s.s), .n = n, .cap = n};
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        double scale = ldexp(1.0, (int)(x % 48) - 8); /* 2^-8 .. 2^39 ns */
        s.s[i].ns = i < sizeof fixed / sizeof fixed[0] ? fixed[i] : scale * (double)(x >> 11) / 9007199254740992.0;
        s.s[i].ticks = i == 0 ? UINT64_MAX : x;
        s.s[i].cpu = i == 0 ? INT16_MIN : (int16_t)(x >> 48);
        s.s[i].thread = -1;
        s.s[i].alone = -1;
        for (int k = 0; k < MFB_COUNTER_COUNT; k++)
            s.s[i].counters[k] = -1;
    }
    char *text = plain_text(&s);
    size_t bad = 0;
    const char *ns = text ? strstr(text, "\"ns\": [") : NULL, *ticks = text ? strstr(text, "\"ticks\": [") : NULL,
               *cpu = text ? strstr(text, "\"cpu\": [") : NULL;
    if (ns && ticks && cpu) {
        ns += strlen("\"ns\": ["), ticks += strlen("\"ticks\": ["), cpu += strlen("\"cpu\": [");
        for (size_t i = 0; i < n; i++) {
            char want[400];
            int k = snprintf(want, sizeof want, "%.3f", s.s[i].ns);
            bad += strncmp(ns, want, (size_t)k) != 0 || (ns[k] != ',' && ns[k] != ']');
            ns += k + 1;
            k = snprintf(want, sizeof want, "%" PRIu64, s.s[i].ticks);
            bad += strncmp(ticks, want, (size_t)k) != 0 || (ticks[k] != ',' && ticks[k] != ']');
            ticks += k + 1;
            k = snprintf(want, sizeof want, "%d", (int)s.s[i].cpu);
            bad += strncmp(cpu, want, (size_t)k) != 0 || (cpu[k] != ',' && cpu[k] != ']');
            cpu += k + 1;
        }
    }
    TAP_CHECK(t, ns && ticks && cpu && bad == 0, "%zu values of ns, ticks and cpu written as printf writes them "
              "(%zu differ)", n, bad);
    free(text);
    free(s.s);
}

int main(int argc, char **argv)
{
    struct tap t = {0};
    if (argc != 3) {
        fprintf(stderr, "usage: test_columns SCHEMA GOLDEN\n");
        return 2;
    }
    cJSON *schema = read_json(argv[1]), *golden = read_json(argv[2]);
    TAP_CHECK(&t, schema && golden, "read %s and %s", argv[1], argv[2]);
    if (schema && golden) {
        check_against_schema(&t, schema);
        check_round_trip(&t, golden);
        check_gzip_round_trip(&t, golden);
        check_refusals(&t, golden);
        check_numbers_as_printf(&t);
    }
    cJSON_Delete(schema);
    cJSON_Delete(golden);
    return tap_done(&t);
}
