#include "probe/cachefrom.h"

#include <cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* A probe file is a few hundred kilobytes; anything much larger is not one. */
enum { PROBE_FILE_MAX_BYTES = 64 << 20 };
/* A FIFO's writer (a decompressor in a process substitution) starts at once; one that has written
 * nothing after this long is not coming. */
enum { FIFO_WAIT_MS = 5000 };

/* The file's text, plain or gzip (zlib reads both), at most PROBE_FILE_MAX_BYTES. */
static char *slurp(const char *path, struct mfb_err *err)
{
    /* Opened without blocking, so that a FIFO (--cache-from <(zcat p.json.gz)) with no writer
     * yet does not hang the open; then given FIFO_WAIT_MS for its first bytes. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return mfb_fail(err, "--cache-from: %s: cannot open: %s", path, strerror(errno)), NULL;
    struct stat st;
    if (fstat(fd, &st) != 0 || (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode) && !S_ISCHR(st.st_mode))) {
        close(fd);
        return mfb_fail(err, "--cache-from: %s: not a file", path), NULL;
    }
    if (S_ISFIFO(st.st_mode) && poll(&(struct pollfd){.fd = fd, .events = POLLIN}, 1, FIFO_WAIT_MS) == 0) {
        close(fd);
        return mfb_fail(err, "--cache-from: %s: a FIFO nothing wrote to in %d s", path, FIFO_WAIT_MS / 1000), NULL;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    gzFile f = gzdopen(fd, "rb");
    if (!f) {
        close(fd);
        return mfb_fail(err, "--cache-from: %s: cannot open", path), NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        int got = gzread(f, buf + n, (unsigned)(cap - n));
        if (got < 0) {
            free(buf);
            buf = NULL;
            mfb_fail(err, "--cache-from: %s: damaged compressed data", path);
            break;
        }
        n += (size_t)got;
        if (got == 0)
            break;
        if (n == cap) {
            if (cap >= PROBE_FILE_MAX_BYTES) {
                free(buf);
                buf = NULL;
                mfb_fail(err, "--cache-from: %s: larger than %d MiB: not a probe file", path, PROBE_FILE_MAX_BYTES >> 20);
                break;
            }
            cap *= 2;
            char *nb = realloc(buf, cap + 1);
            if (!nb) {
                free(buf);
                mfb_fail(err, "--cache-from: %s: out of memory", path);
            }
            buf = nb;
        }
    }
    gzclose(f);
    if (buf)
        buf[n] = '\0';
    else if (!err->msg[0])
        mfb_fail(err, "--cache-from: %s: out of memory", path);
    return buf;
}

/* A size field of caches_found: a whole number of bytes from 1 KiB to 1 PiB. */
static int size_field(const cJSON *o, const char *key, size_t *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= 1024 && v->valuedouble <= 1e15) ||
        v->valuedouble != floor(v->valuedouble))
        return -1;
    *out = (size_t)v->valuedouble;
    return 0;
}

int mfb_probe_read_caches(const char *path, struct mfb_caches *c, struct mfb_err *err)
{
    char *text = slurp(path, err);
    if (!text)
        return -1;
    cJSON *d = cJSON_Parse(text);
    free(text);
    const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(d, "schema");
    const cJSON *found = cJSON_GetObjectItemCaseSensitive(d, "caches_found");
    const char *fields[] = {"l1d", "l2", "llc"};
    size_t v[4] = {0};
    int bad = -1;
    for (int i = 0; i < 3 && cJSON_IsObject(found) && bad < 0; i++)
        if (size_field(found, fields[i], &v[i]) < 0)
            bad = i;
    /* line: absent in a hand-written file means the common 64 bytes; present, it must be one */
    const cJSON *line = cJSON_GetObjectItemCaseSensitive(found, "line");
    v[3] = !line ? 64 : cJSON_IsNumber(line) && line->valuedouble >= 16 && line->valuedouble <= 4096 ?
                   (size_t)line->valuedouble : 0;
    bool bad_line = line && (v[3] == 0 || (v[3] & (v[3] - 1)) != 0 || (double)v[3] != line->valuedouble);
    int rc = -1;
    if (!d)
        mfb_fail(err, "--cache-from: %s: not JSON", path);
    else if (!cJSON_IsString(fmt) || strcmp(fmt->valuestring, "memfbench-probe") != 0)
        mfb_fail(err, "--cache-from: %s: not a memfbench probe file (schema is not \"memfbench-probe\")", path);
    else if (cJSON_IsNull(found))
        mfb_fail(err, "--cache-from: %s: caches_found is null: the probe did not check every cache level "
                      "(a level beyond its largest size, no latency curve, or interrupted; see cross_check)", path);
    else if (!cJSON_IsObject(found))
        mfb_fail(err, "--cache-from: %s: caches_found: missing", path);
    else if (bad >= 0)
        mfb_fail(err, "--cache-from: %s: caches_found.%s: not a whole number of bytes from 1K to 1P", path, fields[bad]);
    else if (bad_line)
        mfb_fail(err, "--cache-from: %s: caches_found.line: not a power of two from 16 to 4096 bytes", path);
    else if (!(v[0] < v[1] && v[1] <= v[2]))
        mfb_fail(err, "--cache-from: %s: caches_found: l1d < l2 <= llc does not hold", path);
    else
        rc = 0;
    if (rc == 0) {
        memset(c, 0, sizeof *c);
        c->l1d = v[0];
        c->l2 = v[1];
        c->llc = v[2];
        c->line = v[3];
        c->source = MFB_CACHE_PROBE;
    }
    cJSON_Delete(d);
    return rc;
}
