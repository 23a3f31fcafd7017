/* replay.c — a main() for a fuzz target without libFuzzer: runs
 * LLVMFuzzerTestOneInput once on every file of the directories (or on the
 * files) named on the command line, so that make check exercises each seed
 * corpus under gcc and the sanitizers. Exits 1 if it found no input. */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Runs the target on the contents of path, in a buffer of exactly its size
 * so that the sanitizers see any read past the end. 0 or -1. */
static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf;
    long size;

    if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 ||
        fseek(f, 0, SEEK_SET) != 0) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        if (f != NULL)
            fclose(f);
        return -1;
    }
    buf = malloc(size > 0 ? (size_t)size : 1);
    if (buf == NULL || fread(buf, 1, (size_t)size, f) != (size_t)size) {
        fprintf(stderr, "replay: cannot read %s\n", path);
        free(buf);
        fclose(f);
        return -1;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(buf, (size_t)size);
    free(buf);
    return 0;
}

/* Runs every regular file of dir; the number run, or -1. */
static int run_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    int n = 0;

    if (d == NULL) {
        fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
        return -1;
    }
    while ((de = readdir(d)) != NULL) {
        char path[4096];
        struct stat st;

        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
            continue;
        if (run_file(path) < 0) {
            closedir(d);
            return -1;
        }
        n++;
    }
    closedir(d);
    return n;
}

int main(int argc, char **argv)
{
    int total = 0;

    for (int i = 1; i < argc; i++) {
        struct stat st;
        int n;

        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
            n = run_dir(argv[i]);
        else
            n = run_file(argv[i]) < 0 ? -1 : 1;
        if (n < 0)
            return 1;
        total += n;
    }
    printf("replayed %d input%s\n", total, total == 1 ? "" : "s");
    return total > 0 ? 0 : 1;
}
