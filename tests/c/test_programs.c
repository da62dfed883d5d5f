/* The program runner's contract (programs/run.h), on small shell programs: every way a program can
 * end comes back as its own typed outcome (exited N, killed by a signal, past its deadline, silent,
 * never started, no reply), captured output is bounded, what a program leaves running is killed
 * and counted, a stop request ends it with its group; and the reply channel's reader
 * (programs/reply.h) takes a whole reply and refuses every broken one in one line. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "programs/kinds.h"
#include "programs/reply.h"
#include "programs/run.h"
#include "programs/stop.h"
#include "tap.h"

static int sh(const char *script, struct mfb_prog *p, struct mfb_prog_outcome *o)
{
    static char *argv[4];
    argv[0] = "sh";
    argv[1] = "-c";
    argv[2] = (char *)script;
    argv[3] = NULL;
    if (!p->who)
        p->who = "test";
    p->name = "sh";
    p->path = "sh";
    p->argv = argv;
    p->cpu = -1;
    struct mfb_err err = {{0}};
    return mfb_prog_run(p, o, &err);
}

/* Running: it exists and is not a zombie. A killed program whose parent has not reaped it yet runs
 * nothing; under qemu-user (the aarch64 cross-test) an orphan's parent is the container's init,
 * which may reap it late, where natively this test, the subreaper, has reaped it already. */
static bool alive(pid_t pid)
{
    if (kill(pid, 0) != 0)
        return false;
    char path[64], stat[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    size_t n = fread(stat, 1, sizeof stat - 1, f);
    fclose(f);
    stat[n] = '\0';
    const char *close = strrchr(stat, ')'); /* the state follows the command's name, which may hold ')' */
    return !(close && close[1] == ' ' && close[2] == 'Z');
}

static void outcomes(struct tap *t)
{
    struct mfb_prog_outcome o;
    struct mfb_prog p = {.kind = MFB_PROG_TOOL};
    TAP_CHECK(t, sh("exit 3", &p, &o) == 0 && o.end == MFB_PROG_EXITED && o.status == 3 && !mfb_prog_ok(&o),
              "exit 3 is exited with status 3, not ok");
    mfb_prog_outcome_free(&o);
    p = (struct mfb_prog){.kind = MFB_PROG_TOOL};
    TAP_CHECK(t, sh("exit 0", &p, &o) == 0 && mfb_prog_ok(&o), "exit 0 is ok");
    mfb_prog_outcome_free(&o);
    p = (struct mfb_prog){.kind = MFB_PROG_TOOL};
    TAP_CHECK(t, sh("kill -KILL $$", &p, &o) == 0 && o.end == MFB_PROG_SIGNALED && o.signal == SIGKILL,
              "a program killed by a signal is SIGNALED with it");
    mfb_prog_outcome_free(&o);
    p = (struct mfb_prog){.kind = MFB_PROG_TOOL, .limit_s = 0.3};
    char how[400];
    int rc = sh("sleep 30", &p, &o);
    mfb_prog_describe(&p, &o, how, sizeof how);
    TAP_CHECK(t, rc == 0 && o.end == MFB_PROG_TIMED_OUT && o.wall_s < 5 && strstr(how, "--deadline tool=SECONDS"),
              "past its deadline: TIMED_OUT in %.2f s (%s)", o.wall_s, how);
    mfb_prog_outcome_free(&o);
    char *argv[] = {"no-such-program-memfbench", NULL};
    p = (struct mfb_prog){.kind = MFB_PROG_TOOL, .who = "test", .name = "x", .path = argv[0], .argv = argv, .cpu = -1};
    struct mfb_err err = {{0}};
    TAP_CHECK(t, mfb_prog_run(&p, &o, &err) == 0 && o.end == MFB_PROG_NOT_STARTED && strstr(o.why, "not found"),
              "a name not on PATH: NOT_STARTED (%s)", o.why);
    mfb_prog_outcome_free(&o);
    char *dir[] = {"/", NULL};
    p = (struct mfb_prog){.kind = MFB_PROG_TOOL, .who = "test", .name = "x", .path = "/", .argv = dir, .cpu = -1};
    TAP_CHECK(t, mfb_prog_run(&p, &o, &err) == 0 && o.end == MFB_PROG_NOT_STARTED && strstr(o.why, "/: "),
              "a folder is no program: NOT_STARTED (%s)", o.why);
    mfb_prog_outcome_free(&o);
}

static void capture(struct tap *t)
{
    struct mfb_prog_outcome o;
    struct mfb_prog p = {.kind = MFB_PROG_TOOL, .out = MFB_IO_CAPTURE, .err = MFB_IO_TO_OUT, .capture_max = 1000};
    /* a megabyte of output: the program is never blocked by a full pipe, and 1000 bytes are kept */
    int rc = sh("head -c 1048576 /dev/zero | tr '\\0' x; echo oops >&2", &p, &o);
    TAP_CHECK(t, rc == 0 && mfb_prog_ok(&o) && o.out_len == 1000 && o.out_cut && strlen(o.out) == 1000,
              "output past the bound is read and dropped: %zu bytes kept, cut %d", o.out_len, o.out_cut);
    mfb_prog_outcome_free(&o);
    p = (struct mfb_prog){.kind = MFB_PROG_TOOL, .out = MFB_IO_NULL, .err = MFB_IO_CAPTURE};
    rc = sh("echo first >&2; echo 'memfbench: the last line' >&2", &p, &o);
    char last[200];
    mfb_prog_last_line(o.err, last, sizeof last);
    TAP_CHECK(t, rc == 0 && !strcmp(last, "the last line"), "the last line of stderr, without its prefix: '%s'", last);
    mfb_prog_outcome_free(&o);
    p = (struct mfb_prog){.kind = MFB_PROG_TOOL, .out = MFB_IO_CAPTURE, .err = MFB_IO_NULL};
    rc = sh("true", &p, &o);
    TAP_CHECK(t, rc == 0 && o.out && o.out[0] == '\0' && o.out_len == 0, "nothing printed: an empty string");
    mfb_prog_outcome_free(&o);
}

static void leftovers(struct tap *t)
{
    struct mfb_prog_outcome o;
    struct mfb_prog p = {.kind = MFB_PROG_TOOL, .out = MFB_IO_CAPTURE};
    /* a child in its group, and a daemon that left it (setsid): both found and killed */
    int rc = sh("sleep 60 & echo $!; setsid sleep 61 & exit 0", &p, &o);
    pid_t left = o.out ? (pid_t)atoi(o.out) : 0;
    TAP_CHECK(t, rc == 0 && mfb_prog_ok(&o) && o.leftovers >= 1 && left > 0 && !alive(left),
              "what it left running is killed and counted (%d)", o.leftovers);
    mfb_prog_outcome_free(&o);
}

static void replies(struct tap *t)
{
    struct mfb_prog_outcome o;
    struct mfb_prog p = {.kind = MFB_PROG_PROCESS, .reply = true};
    int rc = sh("printf 'memfbench-reply 1\\nverified 42\\nstatus ok\\nmessage a\\\\nb\\nend\\n' >&$MEMFBENCH_REPLY_FD", &p,
                &o);
    struct mfb_reply r;
    struct mfb_err err = {{0}};
    TAP_CHECK(t, rc == 0 && mfb_prog_ok(&o) && mfb_reply_parse(o.reply, o.reply_len, &r, &err) == 0 &&
                 r.status == MFB_REPLY_OK && !strcmp(mfb_reply_get(&r, "verified"), "42") && !strcmp(r.message, "a\nb"),
              "a whole reply is read, its fields typed and its message unescaped");
    mfb_prog_outcome_free(&o);
    p = (struct mfb_prog){.kind = MFB_PROG_PROCESS, .reply = true};
    rc = sh("exit 0", &p, &o);
    char how[400];
    mfb_prog_describe(&p, &o, how, sizeof how);
    TAP_CHECK(t, rc == 0 && o.end == MFB_PROG_NO_REPLY && !mfb_prog_ok(&o) && strstr(how, "before it answered"),
              "exit 0 without a reply is not success: %s", how);
    mfb_prog_outcome_free(&o);
    p = (struct mfb_prog){.kind = MFB_PROG_PROCESS, .reply = true, .first_word_s = 0.3};
    rc = sh("sleep 30", &p, &o);
    TAP_CHECK(t, rc == 0 && o.end == MFB_PROG_SILENT && o.wall_s < 5, "no first word in time: SILENT in %.2f s",
              o.wall_s);
    mfb_prog_outcome_free(&o);
    const char *broken[] = {"", "memfbench-reply 1\nstatus ok\n", "memfbench-reply 2\nstatus ok\nend\n",
                            "memfbench-reply 1\nnovalue\nend\n", "memfbench-reply 1\nmessage x\nend\n"};
    for (size_t i = 0; i < sizeof broken / sizeof broken[0]; i++) {
        err.msg[0] = '\0';
        int bad = mfb_reply_parse(broken[i], strlen(broken[i]), &r, &err);
        TAP_CHECK(t, bad < 0 && err.msg[0] && !strchr(err.msg, '\n'), "a broken reply is refused in one line: %s",
                  err.msg);
    }
}

/* A stop request while a program runs: passed on to its group, the outcome STOPPED with the
 * signal, the program's children gone. The request comes from a child of this test after 0.3 s. */
static void stops(struct tap *t)
{
    pid_t self = getpid();
    pid_t sender = fork();
    if (sender == 0) {
        struct timespec d = {0, 300 * 1000 * 1000};
        nanosleep(&d, NULL);
        kill(self, SIGTERM);
        _exit(0);
    }
    struct mfb_prog_outcome o;
    struct mfb_prog p = {.kind = MFB_PROG_TOOL, .out = MFB_IO_CAPTURE};
    int rc = sh("sleep 60 & echo $!; wait", &p, &o);
    pid_t child = o.out ? (pid_t)atoi(o.out) : 0;
    TAP_CHECK(t, rc == 0 && o.end == MFB_PROG_STOPPED && o.signal == SIGTERM && mfb_stop_signal() == SIGTERM &&
                 o.wall_s < 3 && child > 0 && !alive(child),
              "a stop request ends the program and its group in %.2f s; the command's status is %d", o.wall_s,
              mfb_stop_exit_status());
    mfb_prog_outcome_free(&o);
}

static void deadlines(struct tap *t)
{
    struct mfb_deadlines d = {0};
    struct mfb_err err = {{0}};
    TAP_CHECK(t, mfb_deadlines_parse("build=60,valgrind=none", &d, &err) == 0 &&
                 mfb_deadline_of(&d, MFB_PROG_BUILD) == 60 && mfb_deadline_of(&d, MFB_PROG_VALGRIND) == 0 &&
                 mfb_deadline_of(&d, MFB_PROG_TOOL) == mfb_prog_kind(MFB_PROG_TOOL)->deadline_s,
              "KIND=S and none; the others keep their defaults");
    char text[128];
    mfb_deadlines_format(&d, text, sizeof text);
    TAP_CHECK(t, !strcmp(text, "build=60,valgrind=none"), "formatted back as given: %s", text);
    const char *bad[] = {"", "build", "build=", "build=0", "build=-1", "build=x", "bild=3", "build=3,", "=3",
                         "build=1e99", "build=nan"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err.msg[0] = '\0';
        struct mfb_deadlines e = {0};
        TAP_CHECK(t, mfb_deadlines_parse(bad[i], &e, &err) < 0 && !strncmp(err.msg, "--deadline: ", 12),
                  "'%s' refused: %s", bad[i], err.msg);
    }
}

int main(void)
{
    struct tap t = {0};
    outcomes(&t);
    capture(&t);
    leftovers(&t);
    replies(&t);
    deadlines(&t);
    stops(&t); /* last: the stop request stays for the process */
    return tap_done(&t);
}
