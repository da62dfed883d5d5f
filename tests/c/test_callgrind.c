/* memfbench counts' reading of a callgrind file (counts/callgrind.c) on files written here:
 * name compression ("(id) name", "(id)", plain names), a cob= that holds for one call only,
 * recursion levels ('2) as one function, the harness's one-off callee, the loop and a call made
 * only outside the counted region (calls, no cost) left out, a call cycle listed once; sizes from the symbol table of a real object (this test's own binary)
 * and none for an object that does not exist; an id the file never defined refused in one line. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/elfobj.h"
#include "base/filetext.h"
#include "counts/callgrind.h"
#include "tap.h"

/* A global function of this binary, so that its .symtab has it with a size. */
__attribute__((noinline)) int cg_test_helper(int x);
__attribute__((noinline)) int cg_test_helper(int x)
{
    return x * 3 + 1;
}

static const char header[] = "# callgrind format\nversion: 1\npositions: line\n"
                             "events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi Bim\n\n";

static int write_file(const char *path, const char *body)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "%s%stotals: 400 1 2 3 4 5 6 7 8 9 10 11 12\n", header, body);
    return fclose(f);
}

static const struct mfb_cg_function *find(const struct mfb_cg_result *r, const char *name)
{
    for (size_t i = 0; i < r->ncode; i++)
        if (!strcmp(r->code[i].name, name))
            return &r->code[i];
    return NULL;
}

int main(void)
{
    struct tap t = {0};
    char self[PATH_MAX], path[64], body[8192];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    TAP_CHECK(&t, n > 0, "this test's binary found");
    if (n <= 0)
        return tap_done(&t);
    self[n] = 0;
    snprintf(path, sizeof path, "/tmp/mfb-test-callgrind.%d", (int)getpid());

    /* main calls loop; loop calls traits once and variant 100 times (in two call sites); variant
     * calls the helper in this binary (cob= for that call only), then plainfn in its own object (no
     * cob=: the caller's), and its own recursion level variant'2, which calls variant back */
    snprintf(body, sizeof body,
             "ob=(1) /nonexistent/obj.so\nfl=(1) ???\nfn=(1) main\ncfn=(2) loop\ncalls=1 0\n0 400\n\n"
             "fn=(2)\n0 3\ncfn=(3) traits\ncalls=1 0\n0 2\ncfn=(4) variant\ncalls=40 0\n0 150\n"
             "cfn=(4)\ncalls=60 0\n0 245\n\n"
             "fn=(4)\n0 200\ncob=(2) %s\ncfn=(5) cg_test_helper\ncalls=100 0\n0 50\n"
             "cfn=plainfn\ncalls=5 0\n0 10\ncfn=(6) variant'2\ncalls=1 0\n0 3\n"
             "cfn=(7) uncounted\ncalls=300 0\n0 0 0 0\n\n"
             "fn=(6)\n0 2\ncfn=(4)\ncalls=1 0\n0 1\n\n"
             "fn=(3)\n0 2\nfn=plainfn\n0 10\n\nob=(2)\nfn=(5)\n0 50\n",
             self);
    struct mfb_err err = {{0}};
    struct mfb_cg_result r = {0};
    TAP_CHECK(&t, write_file(path, body) == 0, "callgrind file written");
    int rc = mfb_cg_read(path, "loop", 100, &r, &err);
    TAP_CHECK(&t, rc == 0, "read (%s)", rc ? err.msg : "ok");
    TAP_CHECK(&t, r.total[MFB_CG_IR] == 400 && r.total[MFB_CG_BIM] == 12, "totals read");
    TAP_CHECK(&t, r.nentry == 1 && r.ncode == 3 && !strcmp(r.code[0].name, "variant") &&
                      !strcmp(r.code[0].object, "/nonexistent/obj.so"),
              "the variant first, then its two counted callees (%zu functions)", r.ncode);
    TAP_CHECK(&t, !find(&r, "loop") && !find(&r, "traits") && !find(&r, "main") && !find(&r, "variant'2") &&
                      !find(&r, "uncounted"),
              "the loop, the one-off callee, the caller above, the recursion level and the uncounted call left out");
    const struct mfb_cg_function *h = find(&r, "cg_test_helper"), *p = find(&r, "plainfn");
    TAP_CHECK(&t, h && !strcmp(h->object, self), "cob= puts the helper in its object");
    TAP_CHECK(&t, p && !strcmp(p->object, "/nonexistent/obj.so"), "after the call, a cfn= without cob= is in the caller's");
    TAP_CHECK(&t, h && h->sized && h->bytes > 0 && h->bytes < 4096, "the helper's size from this binary's symbols (%llu)",
              h ? (unsigned long long)h->bytes : 0ull);
    TAP_CHECK(&t, !r.code[0].sized && p && !p->sized, "no size from an object that is not there");
    uint64_t helper_bytes = h ? h->bytes : 0;
    mfb_cg_result_free(&r);

    /* the ELF reading itself: a function of this binary, one it does not define, a versioned name */
    size_t len;
    char *data = mfb_file_text(self, 1u << 30, &len, &err);
    uint64_t size = 0;
    TAP_CHECK(&t, data && mfb_elf_function_size((unsigned char *)data, len, "cg_test_helper", MFB_ELF_SYMTAB, &size) == 1 &&
                      size == helper_bytes && mfb_elf_function_size((unsigned char *)data, len, "cg_test_helper@@V_1",
                                                                MFB_ELF_SYMTAB, &size) == 1,
              "the helper's size, with or without a version");
    TAP_CHECK(&t, data && mfb_elf_function_size((unsigned char *)data, len, "no_such_function", 3u, &size) == 0 &&
                      mfb_elf_function_size((unsigned char *)"not elf", 7, "main", 3u, &size) == -1,
              "no such function: 0; not ELF: -1");
    char id[129];
    int idn = data ? mfb_elf_build_id((unsigned char *)data, len, id, sizeof id) : -1;
    TAP_CHECK(&t, idn == 0 || (idn >= 2 && (size_t)idn == strlen(id) && strspn(id, "0123456789abcdef") == (size_t)idn),
              "the build ID is hex (%s)", idn > 0 ? id : "none");
    free(data);

    /* a reference to an id never defined: one line naming the file's line */
    struct mfb_cg_result bad = {0};
    TAP_CHECK(&t, write_file(path, "ob=(1) /x\nfn=(1) loop\ncfn=(9)\ncalls=100 0\n0 1\n") == 0, "bad file written");
    rc = mfb_cg_read(path, "loop", 100, &bad, &err);
    TAP_CHECK(&t, rc < 0 && strstr(err.msg, "line 8") && !strchr(err.msg, '\n'), "refused: %s", err.msg);
    mfb_cg_result_free(&bad);
    unlink(path);
    return tap_done(&t);
}
