/* Replay driver for builds without libFuzzer (gcc, the normal build): runs
 * LLVMFuzzerTestOneInput once on every file named, and on every file in every folder named
 * (not recursive; names starting with '.' skipped), in sorted order. Exits 0 when every input
 * returned; a crash, a sanitizer report or a failed invariant ends the process as it would under
 * libFuzzer. Usage: fuzz_TARGET [FILE | FOLDER]... */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return -1;
    }
    uint8_t *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? cap * 2 : 4096;
            uint8_t *more = realloc(buf, cap);
            if (!more) {
                fprintf(stderr, "%s: out of memory\n", path);
                free(buf);
                fclose(f);
                return -1;
            }
            buf = more;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        fprintf(stderr, "%s: read error\n", path);
        free(buf);
        return -1;
    }
    /* An exact-size copy, so a read past the input's end is caught as under libFuzzer. */
    uint8_t *input = malloc(n ? n : 1);
    if (!input) {
        free(buf);
        return -1;
    }
    if (n)
        memcpy(input, buf, n);
    free(buf);
    LLVMFuzzerTestOneInput(input, n);
    free(input);
    return 0;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_dir(const char *path, long *count)
{
    DIR *d = opendir(path);
    if (!d) {
        perror(path);
        return -1;
    }
    char **names = NULL;
    size_t n = 0;
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char **more = realloc(names, (n + 1) * sizeof *names);
        if (!more || !(more[n] = malloc(strlen(path) + strlen(e->d_name) + 2))) {
            names = more ? more : names;
            rc = -1;
            break;
        }
        names = more;
        sprintf(names[n], "%s/%s", path, e->d_name);
        n++;
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp_names);
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (rc == 0 && stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
            if (run_file(names[i]) < 0)
                rc = -1;
            else
                (*count)++;
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    long count = 0;
    if (argc < 2) {
        fprintf(stderr, "usage: %s [FILE | FOLDER]...\n", argv[0]);
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) < 0) {
            perror(argv[i]);
            return 1;
        }
        int rc;
        if (S_ISDIR(st.st_mode))
            rc = run_dir(argv[i], &count);
        else {
            rc = run_file(argv[i]);
            count += rc == 0;
        }
        if (rc < 0)
            return 1;
    }
    fprintf(stderr, "%s: %ld inputs replayed, no failure\n", argv[0], count);
    return 0;
}
