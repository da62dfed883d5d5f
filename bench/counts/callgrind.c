/* valgrind's callgrind for memfbench counts (orchestrate/callgrind.h). */
#include "counts/callgrind.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>

#include "programs/find.h"
#include "programs/run.h"
#include "programs/stop.h"
#include "base/elfobj.h"
#include "base/filetext.h"

static const char *const event_names[MFB_CG_EVENTS] = {"Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr",
                                                       "DLmw", "Bc", "Bcm", "Bi", "Bim"};

const char *mfb_cg_event_name(enum mfb_cg_event e)
{
    return event_names[e];
}

/* -q: valgrind's banner and summary stay off stderr, so a failure's line is the program's own.
 * --collect-atstart=no: nothing counts until the toggled function is entered (the set-up, the
 * sampler and the verification run millions of instructions). --dump-instr=no: the totals and the
 * functions are all we read, and a smaller file is written faster. --vgdb=no: no gdb server, so no
 * vgdb-pipe FIFOs in /tmp to outlive a killed run. --demangle=no: a function is
 * named as its object's symbol table names it, so a C++ variant's size is found there too. */
const char *const mfb_cg_options[] = {"--tool=callgrind", "-q", "--cache-sim=yes", "--branch-sim=yes",
                                      "--collect-atstart=no", "--dump-instr=no", "--demangle=no", "--vgdb=no", NULL};

int mfb_cg_find(char *path, size_t cap, struct mfb_err *err)
{
    if (mfb_program_find("valgrind", path, cap) == 0)
        return 0;
    return mfb_fail(err, "memfbench counts: valgrind not found on PATH: install it (Debian/Ubuntu package valgrind)");
}

int mfb_cg_version(const char *valgrind, const struct mfb_deadlines *dl, char *out, size_t cap, struct mfb_err *err)
{
    char *argv[] = {(char *)valgrind, "--version", NULL};
    struct mfb_prog p = {.kind = MFB_PROG_TOOL, .who = "memfbench counts", .name = valgrind, .path = valgrind,
                         .argv = argv, .in = MFB_IO_NULL, .out = MFB_IO_CAPTURE, .err = MFB_IO_NULL, .capture_max = 4096,
                         .deadlines = dl, .cpu = -1};
    struct mfb_prog_outcome o;
    if (mfb_prog_run(&p, &o, err) < 0)
        return -1;
    snprintf(out, cap, "%s", o.out ? o.out : "");
    out[strcspn(out, "\n")] = 0;
    bool ok = mfb_prog_ok(&o) && strncmp(out, "valgrind-", 9) == 0;
    char how[400];
    mfb_prog_describe(&p, &o, how, sizeof how);
    mfb_prog_outcome_free(&o);
    if (!ok)
        return mfb_fail(err, "memfbench counts: %s --version did not say which valgrind it is (%s)", valgrind, how);
    return 0;
}

/* The totals line ("totals:" where callgrind writes one, else "summary:") in the order of the
 * "events:" line, and the "desc:" lines of the simulated caches. */
static int read_totals(const char *path, struct mfb_cg_result *r, struct mfb_err *err)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return mfb_fail(err, "memfbench counts: callgrind wrote no %s: %s", path, strerror(errno));
    char line[4096], events[1024] = "", totals[1024] = "", summary[1024] = "";
    int ncache = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (!strncmp(line, "events: ", 8))
            snprintf(events, sizeof events, "%.1023s", line + 8);
        else if (!strncmp(line, "totals: ", 8))
            snprintf(totals, sizeof totals, "%.1023s", line + 8);
        else if (!strncmp(line, "summary: ", 9))
            snprintf(summary, sizeof summary, "%.1023s", line + 9);
        else if (!strncmp(line, "desc: ", 6) && ncache < 3 && strstr(line, " cache:"))
            snprintf(r->caches[ncache++], sizeof r->caches[0], "%.95s", line + 6);
    }
    fclose(f);
    const char *values = totals[0] ? totals : summary;
    if (!events[0] || !values[0])
        return mfb_fail(err, "memfbench counts: %s has no events or totals line", path);
    bool seen[MFB_CG_EVENTS] = {0};
    char *save = NULL, *vp = (char *)values;
    for (char *name = strtok_r(events, " ", &save); name; name = strtok_r(NULL, " ", &save)) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(vp, &end, 10);
        if (end == vp && *vp == 0)
            v = 0; /* callgrind leaves trailing zero counts out */
        else if (end == vp || errno)
            return mfb_fail(err, "memfbench counts: %s: totals line unreadable at '%.20s'", path, vp);
        vp = end;
        for (int e = 0; e < MFB_CG_EVENTS; e++)
            if (!strcmp(name, event_names[e])) {
                r->total[e] = v;
                seen[e] = true;
            }
    }
    for (int e = 0; e < MFB_CG_EVENTS; e++)
        if (!seen[e])
            return mfb_fail(err, "memfbench counts: %s does not count %s (cache and branch simulation off?)", path,
                            event_names[e]);
    return 0;
}

/* The call graph in a callgrind file, as far as the code list needs it: which functions (an
 * object and a name) called which, how many times. Names are kept once each; callgrind's file for
 * one counted loop names a few dozen functions, so the linear searches below stay short, and the
 * caps refuse a file that is not such a file instead of growing without bound. */
#define MAX_NAMES 8192
#define MAX_NODES 8192
#define MAX_EDGES 65536
#define LINE_CAP 4096

struct names {
    char **s;
    long *id; /* the file's (id), or -1 for a name written out in full */
    size_t n, cap;
};
struct node {
    size_t ob, fn; /* indexes into the object and function names */
};
struct edge {
    size_t from, to;
    uint64_t calls;
    bool collected; /* the call's inclusive cost is not all zero */
};
struct graph {
    struct names ob, fn;
    struct node *nodes;
    size_t nnodes, capnodes;
    struct edge *edges;
    size_t nedges, capedges;
};

static void graph_free(struct graph *g)
{
    for (size_t i = 0; i < g->ob.n; i++)
        free(g->ob.s[i]);
    for (size_t i = 0; i < g->fn.n; i++)
        free(g->fn.s[i]);
    free(g->ob.s);
    free(g->ob.id);
    free(g->fn.s);
    free(g->fn.id);
    free(g->nodes);
    free(g->edges);
}

/* Room for one more of n items of `size` in *p (capacity *cap, at most max): 0, or -1. */
static int grow(void **p, size_t *cap, size_t n, size_t size, size_t max)
{
    if (n < *cap)
        return 0;
    if (n >= max)
        return -1;
    size_t c = *cap ? 2 * *cap : 64;
    c = c > max ? max : c;
    void *q = realloc(*p, c * size);
    if (!q)
        return -1;
    *p = q;
    *cap = c;
    return 0;
}

static int names_add(struct names *t, long id, const char *name, size_t *at)
{
    size_t cap_s = t->cap, cap_id = t->cap;
    if (grow((void **)&t->s, &cap_s, t->n, sizeof *t->s, MAX_NAMES) < 0 ||
        grow((void **)&t->id, &cap_id, t->n, sizeof *t->id, MAX_NAMES) < 0)
        return -1;
    t->cap = cap_s < cap_id ? cap_s : cap_id;
    if (!(t->s[t->n] = strdup(name)))
        return -1;
    t->id[t->n] = id;
    *at = t->n++;
    return 0;
}

/* A position's value, "(id) name", "(id)" or "name", as an index into t: a name is recorded the
 * first time its id is given. callgrind marks a recursion level it keeps apart by a suffix ('2):
 * the same code, so the suffix is left off and the levels are one function. -1 for an id never
 * defined, or a table full. */
static int names_ref(struct names *t, char *value, size_t *at)
{
    long id = -1;
    char *name = value;
    if (value[0] == '(' && value[1] >= '0' && value[1] <= '9') {
        char *end;
        errno = 0;
        id = strtol(value + 1, &end, 10);
        if (errno || *end != ')')
            return -1;
        name = end + 1;
        while (*name == ' ' || *name == '\t')
            name++;
    }
    size_t n = strlen(name);
    size_t digits = 0;
    while (digits < n && name[n - 1 - digits] >= '0' && name[n - 1 - digits] <= '9')
        digits++;
    if (digits && digits < n && name[n - 1 - digits] == '\'')
        name[n - 1 - digits] = '\0';
    for (size_t i = 0; i < t->n; i++)
        if (id >= 0 ? t->id[i] == id : (t->id[i] < 0 && !strcmp(t->s[i], name))) {
            *at = i;
            return 0;
        }
    if (id >= 0 && !*name)
        return -1; /* a reference to an id the file never defined */
    return names_add(t, id, name, at);
}

/* The node of function fn (a name index) in object ob, added the first time. Functions are keyed
 * by name, not by callgrind's id: two local functions of one name in one object (one per source
 * file) are one entry, whose size is then known only if they agree (base/elfobj.h). */
static int node_of(struct graph *g, size_t ob, size_t fn, size_t *at)
{
    for (size_t i = 0; i < g->nnodes; i++)
        if (g->nodes[i].ob == ob && !strcmp(g->fn.s[g->nodes[i].fn], g->fn.s[fn])) {
            *at = i;
            return 0;
        }
    if (grow((void **)&g->nodes, &g->capnodes, g->nnodes, sizeof *g->nodes, MAX_NODES) < 0)
        return -1;
    g->nodes[g->nnodes] = (struct node){ob, fn};
    *at = g->nnodes++;
    return 0;
}

/* Whether a call's cost line (its subpositions, npos of them, then the inclusive costs) has any cost:
 * callgrind counts calls while collection is off too (the verification's and the uncounted pass's
 * calls of the variant's callees are in calls=), but their cost only while it is on. */
static bool any_cost(char *line, int npos)
{
    char *save = NULL;
    int i = 0;
    for (char *tok = strtok_r(line, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save))
        if (i++ >= npos && strtoull(tok, NULL, 10) > 0)
            return true;
    return false;
}

/* Reads the body's position and call lines (self costs carry nothing the code list needs: a
 * function reached by a call with a cost ran at least the call's target instruction in the counted
 * region). A cob= or cfn= names the target of the next calls= only; with no cob=, the target is in
 * the caller's object. */
static int read_graph(const char *path, struct graph *g, struct mfb_err *err)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return mfb_fail(err, "memfbench counts: callgrind wrote no %s: %s", path, strerror(errno));
    char line[LINE_CAP];
    bool have_ob = false, have_fn = false, have_cob = false, have_cfn = false;
    size_t ob = 0, fn = 0, cob = 0, cfn = 0, at;
    unsigned long lineno = 0;
    int rc = 0, npos = 1; /* subpositions a cost line starts with ("positions: line" by default) */
    bool call_cost = false; /* this line is the cost line of the call just read */
    while (rc == 0 && fgets(line, sizeof line, f)) {
        lineno++;
        size_t n = strcspn(line, "\n");
        if (line[n] != '\n' && !feof(f)) {
            /* a line longer than the buffer (a very long C++ name): the rest is dropped, so the
             * name is cut and its size will not be found, but the graph stays whole */
            int c;
            while ((c = fgetc(f)) != EOF && c != '\n')
                ;
        }
        line[n] = 0;
        bool bad = false;
        if (call_cost) {
            g->edges[g->nedges - 1].collected = any_cost(line, npos);
            call_cost = false;
            continue;
        }
        if (!strncmp(line, "positions:", 10)) {
            char *save = NULL;
            npos = 0;
            for (char *tok = strtok_r(line + 10, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save))
                npos++;
        } else if (!strncmp(line, "ob=", 3)) {
            bad = names_ref(&g->ob, line + 3, &ob) < 0;
            have_ob = true;
        } else if (!strncmp(line, "fn=", 3)) {
            /* a file with no ob= (cachegrind's subset of the format) has its functions nowhere known */
            char unknown[] = "???";
            bad = (!have_ob && names_ref(&g->ob, unknown, &ob) < 0) || names_ref(&g->fn, line + 3, &at) < 0 ||
                  node_of(g, ob, at, &fn) < 0;
            have_ob = have_fn = true;
            have_cob = have_cfn = false;
        } else if (!strncmp(line, "cob=", 4)) {
            bad = names_ref(&g->ob, line + 4, &cob) < 0;
            have_cob = true;
        } else if (!strncmp(line, "cfn=", 4)) {
            bad = names_ref(&g->fn, line + 4, &cfn) < 0;
            have_cfn = true;
        } else if (!strncmp(line, "calls=", 6)) {
            char *end;
            errno = 0;
            unsigned long long calls = strtoull(line + 6, &end, 10);
            size_t to;
            bad = errno || end == line + 6 || !have_fn || !have_cfn ||
                  node_of(g, have_cob ? cob : ob, cfn, &to) < 0 ||
                  grow((void **)&g->edges, &g->capedges, g->nedges, sizeof *g->edges, MAX_EDGES) < 0;
            if (!bad)
                g->edges[g->nedges++] = (struct edge){fn, to, calls, false};
            call_cost = !bad;
            have_cob = have_cfn = false;
        }
        if (bad)
            rc = mfb_fail(err, "memfbench counts: %s line %lu: '%.60s': a name id never defined, a call with no "
                          "cfn=, or more than %d names or functions: not a callgrind file memfbench can read",
                          path, lineno, line, MAX_NAMES);
    }
    fclose(f);
    return rc;
}

static int by_name(const void *a, const void *b)
{
    const struct mfb_cg_function *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : strcmp(x->object, y->object);
}

static int by_object(const void *a, const void *b)
{
    const struct mfb_cg_function *x = a, *y = b;
    int c = strcmp(x->object, y->object);
    return c ? c : strcmp(x->name, y->name);
}

/* The code list from the graph: the callees of `loop` called at least `calls` times (the variant's
 * function; the harness's one-off calls, its function traits, are fewer), then every function
 * reachable from them by calls with a cost (made in the counted region), the loop itself left out
 * (it is the same in every variant). */
static int code_from(const struct graph *g, const char *loop, uint64_t calls, struct mfb_cg_result *r,
                     struct mfb_err *err)
{
    size_t n = g->nnodes;
    uint64_t *from_loop = calloc(n ? n : 1, sizeof *from_loop);
    unsigned char *state = calloc(n ? n : 1, 1); /* 0 unseen, 1 an entry, 2 reached from one */
    size_t *queue = malloc((n ? n : 1) * sizeof *queue);
    r->code = calloc(MFB_CG_MAX_CODE, sizeof *r->code);
    if (!from_loop || !state || !queue || !r->code) {
        free(from_loop);
        free(state);
        free(queue);
        return mfb_fail(err, "memfbench counts: out of memory reading callgrind's call graph");
    }
    for (size_t e = 0; e < g->nedges; e++)
        if (g->edges[e].collected && !strcmp(g->fn.s[g->nodes[g->edges[e].from].fn], loop))
            from_loop[g->edges[e].to] += g->edges[e].calls;
    size_t head = 0, tail = 0;
    for (size_t i = 0; i < n; i++)
        if (from_loop[i] >= calls && strcmp(g->fn.s[g->nodes[i].fn], loop)) {
            state[i] = 1;
            queue[tail++] = i;
        }
    while (head < tail) {
        size_t i = queue[head++];
        for (size_t e = 0; e < g->nedges; e++) {
            size_t to = g->edges[e].to;
            if (g->edges[e].from == i && g->edges[e].collected && !state[to] &&
                strcmp(g->fn.s[g->nodes[to].fn], loop)) {
                state[to] = 2;
                queue[tail++] = to;
            }
        }
    }
    /* entries first, then the rest; each group in a fixed order, so two runs list alike */
    for (int pass = 1; pass <= 2; pass++) {
        size_t start = r->ncode;
        for (size_t q = 0; q < tail; q++) {
            const struct node *nd = &g->nodes[queue[q]];
            if (state[queue[q]] != pass)
                continue;
            if (r->ncode == MFB_CG_MAX_CODE) {
                r->code_cut = true;
                continue;
            }
            struct mfb_cg_function *fn = &r->code[r->ncode++];
            snprintf(fn->object, sizeof fn->object, "%s", g->ob.s[nd->ob]);
            snprintf(fn->name, sizeof fn->name, "%s", g->fn.s[nd->fn]);
        }
        qsort(r->code + start, r->ncode - start, sizeof *r->code, pass == 1 ? by_name : by_object);
        if (pass == 1)
            r->nentry = r->ncode;
    }
    free(from_loop);
    free(state);
    free(queue);
    return 0;
}

/* Objects and debug files read whole: far more than any shared object's symbols need, and a
 * bound on what one path can make this read. */
#define MAX_ELF_BYTES (1ull << 30)

/* The function's size from the ELF file at path, in the tables asked for: 1 with *size, 0 not
 * found (or the file unreadable, or not ELF: the size is then unknown, not an error). */
static int size_in(const char *path, const char *name, unsigned tables, uint64_t *size, char *build_id, size_t cap)
{
    struct mfb_err ignored;
    size_t len;
    char *data = mfb_file_text(path, MAX_ELF_BYTES, &len, &ignored);
    if (!data)
        return 0;
    int rc = mfb_elf_function_size((const unsigned char *)data, len, name, tables, size);
    if (build_id && mfb_elf_build_id((const unsigned char *)data, len, build_id, cap) <= 0)
        build_id[0] = '\0';
    free(data);
    return rc > 0;
}

/* Each function's size: the object's .symtab; a stripped object's separate debug file found by its
 * build ID, as valgrind finds it to name the function (Debian's libc6-dbg: libc's IFUNC targets
 * such as __memmove_avx_unaligned_erms are local symbols, absent from the stripped .so); then the
 * object's .dynsym. A name valgrind made up (0x...) or an object it did not know (???) stays
 * unsized. */
static void code_sizes(struct mfb_cg_result *r)
{
    for (size_t i = 0; i < r->ncode; i++) {
        struct mfb_cg_function *fn = &r->code[i];
        char id[129] = "", debug[256];
        if (fn->object[0] != '/')
            continue;
        fn->sized = size_in(fn->object, fn->name, MFB_ELF_SYMTAB, &fn->bytes, id, sizeof id);
        if (!fn->sized && strlen(id) > 2 &&
            (size_t)snprintf(debug, sizeof debug, "/usr/lib/debug/.build-id/%.2s/%s.debug", id, id + 2) < sizeof debug)
            fn->sized = size_in(debug, fn->name, MFB_ELF_SYMTAB, &fn->bytes, NULL, 0);
        if (!fn->sized)
            fn->sized = size_in(fn->object, fn->name, MFB_ELF_DYNSYM, &fn->bytes, NULL, 0);
    }
}

int mfb_cg_read(const char *outfile, const char *loop, uint64_t calls, struct mfb_cg_result *r, struct mfb_err *err)
{
    if (read_totals(outfile, r, err) < 0)
        return -1;
    struct graph g = {0};
    int rc = read_graph(outfile, &g, err);
    if (rc == 0)
        rc = code_from(&g, loop, calls, r, err);
    graph_free(&g);
    if (rc == 0)
        code_sizes(r);
    return rc;
}

void mfb_cg_result_free(struct mfb_cg_result *r)
{
    free(r->code);
    r->code = NULL;
    r->ncode = r->nentry = 0;
}

int mfb_cg_run(char *const *argv, const struct mfb_deadlines *dl, const char *outfile, const char *loop,
               uint64_t calls, struct mfb_cg_result *r, int *stopped, struct mfb_err *err)
{
    memset(r, 0, sizeof *r);
    *stopped = 0;
    struct mfb_prog p = {.kind = MFB_PROG_VALGRIND, .who = "memfbench counts", .name = "valgrind", .path = argv[0],
                         .argv = argv, .in = MFB_IO_NULL, .out = MFB_IO_NULL, .err = MFB_IO_CAPTURE, .reply = true,
                         .death_signal = SIGKILL, .deadlines = dl, .cpu = -1};
    struct mfb_prog_outcome o;
    if (mfb_prog_run(&p, &o, err) < 0)
        return -1;
    int rc = 0;
    struct mfb_err why = {{0}};
    if (o.end == MFB_PROG_STOPPED) {
        *stopped = o.signal;
        rc = mfb_fail(err, "memfbench counts: interrupted by %s while valgrind counted; no file written",
                      mfb_stop_signal_name(o.signal));
    } else if (o.end != MFB_PROG_EXITED || mfb_reply_parse(o.reply, o.reply_len, &r->reply, &why) < 0) {
        char how[400], last[400];
        mfb_prog_describe(&p, &o, how, sizeof how);
        mfb_prog_last_line(o.err, last, sizeof last);
        rc = mfb_fail(err, "memfbench counts: the replay under callgrind ended with %s%s%s", how, last[0] ? ": " : "",
                      last);
    } else if (r->reply.status != MFB_REPLY_OK) {
        rc = mfb_fail(err, "%s", r->reply.message[0] ? r->reply.message : "memfbench counts: the replay failed");
    }
    mfb_prog_outcome_free(&o);
    return rc < 0 ? -1 : mfb_cg_read(outfile, loop, calls, r, err);
}
