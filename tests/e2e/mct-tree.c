/* mct-tree.c — a test helper that reads what `mcalltree` printed and
 * asserts on call trees, so that the shell tests need neither jq nor python:
 *
 *   mct-tree check [-t] [-D DEPTH] FILE
 *        every line of FILE is a `call` message and every node keeps the
 *        invariants of SPEC §3 (see check_node); -t allows "truncated",
 *        -D fails on trees nested deeper than DEPTH levels; prints the
 *        number of calls
 *   mct-tree outline [-d] FILE
 *        the distinct outlines of the calls, without timings, in the order
 *        they first appear, separated by lines "--": one line per node,
 *        indented two spaces a level, "CLASS.METHOD calls=N throws=N"
 *        (-d: the descriptor after the method), then " exception=X",
 *        " truncated", " async", " pending", " rejected" and " cancelled" where present
 *   mct-tree sort
 *        reads outlines (blocks of lines separated by lines "--") on stdin
 *        and prints them sorted, to compare sets of outlines
 *   mct-tree field FILE PATH KEY
 *        one line per call: KEY of the node at PATH ("-" when the node or
 *        the key is absent). PATH is components separated by '/', the first
 *        naming the root; a component names a node by its method
 *        ("leafB"), or by a tail of CLASS.METHOD ("Poly$Base.price",
 *        "tgt.Shape.mid"), with the descriptor when it has a '('
 *        ("<init>(I)V"); a component matching two children is an error
 *   mct-tree call FILE KEY[.KEY]
 *        one line per call: a field of the message (thread.name, seq)
 *   field and call also read `summary` lines (--aggregate): one line per
 *        summary, PATH starting at its root
 *   mct-tree slowest FILE
 *        the calls in the `slowest` of the last summary of FILE, one per
 *        line (to read with field and check)
 *   mct-tree plan FILE
 *        the plan message in FILE (-f json --plan): one line per method,
 *        "LEVEL STATUS CLASS.METHOD DESC"
 *   mct-tree order FILE TOLERANCE_NS
 *        the calls' seq is 1, 2, 3 ... in the order of the lines (else a
 *        failure); prints the number of calls and how many of them ended
 *        (start_ns + root.total_ns) more than TOLERANCE_NS before the
 *        latest end of the calls numbered before them (the first ten are
 *        described on stderr)
 *   mct-tree chrome FILE
 *        FILE is one Chrome trace document (an array of events, or an
 *        object with "traceEvents"); every complete event ("X") has a name,
 *        pid, tid, ts and dur >= 0, and on each thread the events nest
 *        (one holds the other, or they do not overlap); prints the number
 *        of calls (events carrying args.seq)
 *
 * Values are printed as strings or compact JSON; exit 0 on success, 1 when
 * a check fails (every failure is printed on stderr), 2 on a usage error or
 * unreadable input. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

static const char *prog = "mct-tree";

/* Every `call` line of a file, in order; loaded by load_calls. */
struct calls {
    json_t **v;
    size_t n;
};

static int failures;
static int summaries_ok;    /* load_calls also takes `summary` lines */

static void failf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void failf(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    fprintf(stderr, "%s: ", prog);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    failures++;
}

static void usage(void)
{
    fprintf(stderr, "usage: mct-tree check [-t] [-D DEPTH] FILE | outline [-d] FILE | "
                    "sort | field FILE PATH KEY | call FILE KEY[.KEY] | plan FILE | chrome FILE | "
                    "order FILE TOLERANCE_NS | slowest FILE\n");
    exit(2);
}

/* Reads every line of path as one JSON object; exits 2 when the file cannot
 * be read, a line is not one JSON object, or it is not a `call`. */
static void load_calls(const char *path, struct calls *out)
{
    FILE *f = fopen(path, "r");
    char *line = NULL;
    size_t cap = 0, lineno = 0;
    ssize_t len;

    if (f == NULL) {
        perror(path);
        exit(2);
    }
    out->v = NULL;
    out->n = 0;
    while ((len = getline(&line, &cap, f)) >= 0) {
        json_error_t err;
        json_t *j;
        const char *type;

        lineno++;
        if (len > 0 && line[len - 1] == '\n')
            line[--len] = '\0';
        j = json_loadb(line, (size_t)len, JSON_REJECT_DUPLICATES, &err);
        if (j == NULL || !json_is_object(j)) {
            fprintf(stderr, "%s: %s:%zu: not one JSON object: %s\n", prog, path, lineno,
                    j == NULL ? err.text : "another JSON value");
            exit(2);
        }
        type = json_string_value(json_object_get(j, "type"));
        if (type == NULL || (strcmp(type, "call") != 0 &&
                             !(summaries_ok && strcmp(type, "summary") == 0))) {
            fprintf(stderr, "%s: %s:%zu: not a call message\n", prog, path, lineno);
            exit(2);
        }
        out->v = realloc(out->v, (out->n + 1) * sizeof *out->v);
        if (out->v == NULL) {
            perror("realloc");
            exit(2);
        }
        out->v[out->n++] = j;
    }
    free(line);
    fclose(f);
}

static void free_calls(struct calls *cs)
{
    for (size_t i = 0; i < cs->n; i++)
        json_decref(cs->v[i]);
    free(cs->v);
}

static json_t *load_doc(const char *path)
{
    json_error_t err;
    json_t *j = json_load_file(path, JSON_REJECT_DUPLICATES, &err);

    if (j == NULL) {
        fprintf(stderr, "%s: %s:%d: not one JSON document: %s\n", prog, path, err.line, err.text);
        exit(2);
    }
    return j;
}

static const char *str(const json_t *node, const char *key)
{
    const char *s = json_string_value(json_object_get(node, key));

    return s != NULL ? s : "?";
}

/* The integer key of node, or -1 (after a failure) when it is not an
 * integer >= 0. */
static json_int_t num(const json_t *node, const char *key, const char *where)
{
    json_t *v = json_object_get(node, key);

    if (!json_is_integer(v) || json_integer_value(v) < 0) {
        failf("%s: %s is not an integer >= 0", where, key);
        return -1;
    }
    return json_integer_value(v);
}

/* Checks one node and its subtree: strings class, method, desc; calls >= 1;
 * throws <= calls; min <= max; min*calls <= total <= max*calls (each call
 * rounded to a ns at most); children's totals <= total; self = total -
 * children's totals; no two children for the same method (they merge);
 * "exception" only on the root, "truncated" only when allowed and true.
 * A child "async":true (a task run on another thread) stands outside its
 * parent's arithmetic and is not merged with its like: it has a "thread"
 * name and a "queued_ns", or is "pending":true, "rejected":true or
 * "cancelled":true (one of them) with calls 0 and nothing below it; either way it has a "handoff_ns". */
static void check_node(const json_t *node, const char *where, int level, int is_root,
                       int allow_truncated, int max_depth)
{
    char here[1024];
    json_t *children, *child, *v;
    json_int_t calls, total, self, min, max, thr, sum = 0;
    size_t i, k;

    snprintf(here, sizeof here, "%s/%s.%s%s", where, str(node, "class"), str(node, "method"),
             str(node, "desc"));
    if (!json_is_object(node)) {
        failf("%s: a node is not an object", where);
        return;
    }
    if (!json_is_string(json_object_get(node, "class")) ||
        !json_is_string(json_object_get(node, "method")) ||
        !json_is_string(json_object_get(node, "desc")))
        failf("%s: class, method or desc is not a string", here);
    if (max_depth > 0 && level > max_depth)
        failf("%s: nested %d levels deep, deeper than %d", here, level, max_depth);
    calls = num(node, "calls", here);
    total = num(node, "total_ns", here);
    self = num(node, "self_ns", here);
    min = num(node, "min_ns", here);
    max = num(node, "max_ns", here);
    thr = num(node, "throws", here);
    children = json_object_get(node, "children");
    if (!json_is_array(children)) {
        failf("%s: children is not an array", here);
        return;
    }
    json_array_foreach(children, i, child) {
        json_t *t = json_object_get(child, "total_ns");
        int async = json_is_true(json_object_get(child, "async"));

        if (json_is_integer(t) && !async)
            sum += json_integer_value(t);
        for (k = 0; k < i && !async; k++) {
            json_t *o = json_array_get(children, k);

            if (!json_is_true(json_object_get(o, "async")) && strcmp(str(o, "class"), str(child, "class")) == 0 &&
                strcmp(str(o, "method"), str(child, "method")) == 0 &&
                strcmp(str(o, "desc"), str(child, "desc")) == 0)
                failf("%s: children %zu and %zu are the same method %s.%s%s (not merged)", here,
                      k + 1, i + 1, str(child, "class"), str(child, "method"), str(child, "desc"));
        }
        check_node(child, here, level + 1, 0, allow_truncated, max_depth);
    }
    if (json_is_true(json_object_get(node, "async")))
        (void)num(node, "handoff_ns", here);
    if (calls < 0 || total < 0 || self < 0 || min < 0 || max < 0 || thr < 0)
        return;
    if (json_is_true(json_object_get(node, "pending")) + json_is_true(json_object_get(node, "rejected")) +
        json_is_true(json_object_get(node, "cancelled")) > 0) {
        if (!json_is_true(json_object_get(node, "async")) || calls != 0 || total != 0 ||
            json_array_size(children) != 0 || json_object_get(node, "thread") != NULL ||
            json_is_true(json_object_get(node, "pending")) + json_is_true(json_object_get(node, "rejected")) +
            json_is_true(json_object_get(node, "cancelled")) > 1)
            failf("%s: pending, rejected or cancelled but not an async node without calls", here);
        return;
    }
    if (json_is_true(json_object_get(node, "async")) &&
        (!json_is_string(json_object_get(node, "thread")) || num(node, "queued_ns", here) < 0 || is_root))
        failf("%s: an async node without its thread or queued_ns, or the root", here);
    if (calls < 1)
        failf("%s: calls=%lld", here, (long long)calls);
    if (is_root && calls != 1)
        failf("%s: the root has calls=%lld, want 1", here, (long long)calls);
    if (thr > calls)
        failf("%s: throws=%lld > calls=%lld", here, (long long)thr, (long long)calls);
    if (min > max)
        failf("%s: min_ns=%lld > max_ns=%lld", here, (long long)min, (long long)max);
    if (min * calls > total + calls || total > max * calls + calls)
        failf("%s: total_ns=%lld outside calls*min..calls*max = %lld..%lld", here,
              (long long)total, (long long)(min * calls), (long long)(max * calls));
    if (sum > total)
        failf("%s: the children's totals %lld exceed total_ns=%lld", here, (long long)sum,
              (long long)total);
    else if (self != total - sum)
        failf("%s: self_ns=%lld, want total_ns - children = %lld - %lld = %lld", here,
              (long long)self, (long long)total, (long long)sum, (long long)(total - sum));
    v = json_object_get(node, "exception");
    if (v != NULL) {
        if (!is_root)
            failf("%s: exception on a node that is not the root", here);
        else if (!json_is_string(v) || json_string_length(v) == 0)
            failf("%s: exception is not a class name", here);
        if (thr < 1)
            failf("%s: exception %s but throws=0", here, str(node, "exception"));
    } else if (is_root && thr != 0) {
        failf("%s: the root threw (throws=%lld) but has no exception", here, (long long)thr);
    }
    v = json_object_get(node, "truncated");
    if (v != NULL) {
        if (!json_is_true(v))
            failf("%s: truncated is present and not true", here);
        else if (!allow_truncated)
            failf("%s: truncated (not expected)", here);
    }
}

static int cmd_check(int argc, char **argv)
{
    struct calls cs;
    int allow_truncated = 0, max_depth = 0, opt;
    json_int_t last_seq = 0;

    while ((opt = getopt(argc, argv, "tD:")) != -1) {
        if (opt == 't')
            allow_truncated = 1;
        else if (opt == 'D')
            max_depth = atoi(optarg);
        else
            usage();
    }
    if (optind != argc - 1)
        usage();
    load_calls(argv[optind], &cs);
    for (size_t i = 0; i < cs.n; i++) {
        json_t *c = cs.v[i], *th = json_object_get(c, "thread");
        char where[64];
        json_int_t seq;

        snprintf(where, sizeof where, "call %zu", i + 1);
        seq = num(c, "seq", where);
        if (seq >= 0 && seq <= last_seq)
            failf("%s: seq %lld after seq %lld", where, (long long)seq, (long long)last_seq);
        if (seq > 0)
            last_seq = seq;
        if (seq == 0)
            failf("%s: seq is 0", where);
        num(c, "start_ns", where);
        if (!json_is_object(th) || !json_is_string(json_object_get(th, "name")))
            failf("%s: thread is not an object with a name", where);
        else
            num(th, "id", where);
        if (!json_is_object(json_object_get(c, "root")))
            failf("%s: no root", where);
        else
            check_node(json_object_get(c, "root"), where, 1, 1, allow_truncated, max_depth);
    }
    printf("%zu\n", cs.n);
    free_calls(&cs);
    return failures ? 1 : 0;
}

/* Writes the outline of node (and its subtree) to mem. */
static void outline_node(const json_t *node, int level, int with_desc, FILE *mem)
{
    json_t *child, *v;
    size_t i;

    fprintf(mem, "%*s%s.%s%s calls=%lld throws=%lld", level * 2, "", str(node, "class"),
            str(node, "method"), with_desc ? str(node, "desc") : "",
            (long long)json_integer_value(json_object_get(node, "calls")),
            (long long)json_integer_value(json_object_get(node, "throws")));
    v = json_object_get(node, "exception");
    if (v != NULL)
        fprintf(mem, " exception=%s", json_is_string(v) ? json_string_value(v) : "?");
    if (json_object_get(node, "truncated") != NULL)
        fputs(" truncated", mem);
    if (json_is_true(json_object_get(node, "async")))
        fputs(" async", mem);
    if (json_is_true(json_object_get(node, "pending")))
        fputs(" pending", mem);
    if (json_is_true(json_object_get(node, "rejected")))
        fputs(" rejected", mem);
    if (json_is_true(json_object_get(node, "cancelled")))
        fputs(" cancelled", mem);
    fputc('\n', mem);
    json_array_foreach(json_object_get(node, "children"), i, child)
        outline_node(child, level + 1, with_desc, mem);
}

static int cmd_outline(int argc, char **argv)
{
    struct calls cs;
    int with_desc = 0, opt;
    char **seen = NULL;
    size_t nseen = 0;

    while ((opt = getopt(argc, argv, "d")) != -1) {
        if (opt == 'd')
            with_desc = 1;
        else
            usage();
    }
    if (optind != argc - 1)
        usage();
    load_calls(argv[optind], &cs);
    for (size_t i = 0; i < cs.n; i++) {
        char *buf = NULL;
        size_t len = 0, k;
        FILE *mem = open_memstream(&buf, &len);

        if (mem == NULL) {
            perror("open_memstream");
            return 2;
        }
        outline_node(json_object_get(cs.v[i], "root"), 0, with_desc, mem);
        fclose(mem);
        for (k = 0; k < nseen && strcmp(seen[k], buf) != 0; k++)
            ;
        if (k < nseen) {
            free(buf);
            continue;
        }
        seen = realloc(seen, (nseen + 1) * sizeof *seen);
        if (seen == NULL) {
            perror("realloc");
            return 2;
        }
        seen[nseen++] = buf;
        if (nseen > 1)
            puts("--");
        fputs(buf, stdout);
    }
    for (size_t k = 0; k < nseen; k++)
        free(seen[k]);
    free(seen);
    free_calls(&cs);
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmd_sort(void)
{
    char **blocks = NULL, *line = NULL, *cur = NULL;
    size_t nblocks = 0, cap = 0, curlen = 0;
    ssize_t len;
    FILE *mem = open_memstream(&cur, &curlen);

    if (mem == NULL)
        return 2;
    for (;;) {
        len = getline(&line, &cap, stdin);
        if (len < 0 || strcmp(line, "--\n") == 0 || strcmp(line, "--") == 0) {
            fclose(mem);
            if (curlen > 0) {
                blocks = realloc(blocks, (nblocks + 1) * sizeof *blocks);
                if (blocks == NULL)
                    return 2;
                blocks[nblocks++] = cur;
            } else {
                free(cur);
            }
            if (len < 0)
                break;
            cur = NULL;
            curlen = 0;
            mem = open_memstream(&cur, &curlen);
            if (mem == NULL)
                return 2;
            continue;
        }
        fputs(line, mem);
        if (line[len - 1] != '\n')
            fputc('\n', mem);
    }
    free(line);
    qsort(blocks, nblocks, sizeof *blocks, cmp_str);
    for (size_t i = 0; i < nblocks; i++) {
        if (i > 0)
            puts("--");
        fputs(blocks[i], stdout);
        free(blocks[i]);
    }
    free(blocks);
    return 0;
}

/* Whether name ends with tail, the tail being all of name or following a
 * '.' or '$'. */
static int tail_match(const char *name, const char *tail)
{
    size_t n = strlen(name), t = strlen(tail);

    if (t > n || strcmp(name + n - t, tail) != 0)
        return 0;
    return t == n || name[n - t - 1] == '.' || name[n - t - 1] == '$';
}

/* Whether path component comp names node (see the usage at the top). */
static int comp_match(const json_t *node, const char *comp)
{
    char full[2048], meth[1024];
    int with_desc = strchr(comp, '(') != NULL;

    snprintf(meth, sizeof meth, "%s%s", str(node, "method"), with_desc ? str(node, "desc") : "");
    snprintf(full, sizeof full, "%s.%s", str(node, "class"), meth);
    return strcmp(meth, comp) == 0 || tail_match(full, comp);
}

/* The node at path under the root, NULL when absent; exits 2 on an
 * ambiguous component. */
static const json_t *find(const json_t *root, const char *path)
{
    char *copy = strdup(path), *save = NULL, *comp;
    const json_t *node = NULL;

    for (comp = strtok_r(copy, "/", &save); comp != NULL; comp = strtok_r(NULL, "/", &save)) {
        if (node == NULL) {
            if (!comp_match(root, comp)) {
                free(copy);
                return NULL;
            }
            node = root;
            continue;
        }
        const json_t *found = NULL, *child;
        size_t i;

        json_array_foreach(json_object_get(node, "children"), i, child) {
            if (!comp_match(child, comp))
                continue;
            if (found != NULL) {
                fprintf(stderr, "%s: %s: '%s' names two children of %s.%s\n", prog, path, comp,
                        str(node, "class"), str(node, "method"));
                exit(2);
            }
            found = child;
        }
        if (found == NULL) {
            free(copy);
            return NULL;
        }
        node = found;
    }
    free(copy);
    return node;
}

static void print_value(const json_t *v)
{
    if (v == NULL)
        puts("-");
    else if (json_is_string(v))
        puts(json_string_value(v));
    else {
        json_dumpf(v, stdout, JSON_COMPACT | JSON_ENCODE_ANY);
        putchar('\n');
    }
}

static int cmd_field(const char *file, const char *path, const char *key)
{
    struct calls cs;

    load_calls(file, &cs);
    for (size_t i = 0; i < cs.n; i++) {
        const json_t *node = find(json_object_get(cs.v[i], "root"), path);

        print_value(node == NULL ? NULL : json_object_get(node, key));
    }
    free_calls(&cs);
    return 0;
}

static int cmd_call(const char *file, const char *keys)
{
    struct calls cs;

    load_calls(file, &cs);
    for (size_t i = 0; i < cs.n; i++) {
        char *copy = strdup(keys), *save = NULL;
        const json_t *v = cs.v[i];

        for (char *k = strtok_r(copy, ".", &save); k != NULL && v != NULL;
             k = strtok_r(NULL, ".", &save))
            v = json_object_get(v, k);
        free(copy);
        print_value(v);
    }
    free_calls(&cs);
    return 0;
}

static int cmd_plan(const char *file)
{
    json_t *plan = load_doc(file), *methods, *m;
    size_t i;

    if (strcmp(str(plan, "type"), "plan") != 0 ||
        !json_is_array(methods = json_object_get(plan, "methods"))) {
        fprintf(stderr, "%s: %s is not a plan message\n", prog, file);
        return 2;
    }
    json_array_foreach(methods, i, m) {
        printf("%lld %s %s.%s %s\n", (long long)json_integer_value(json_object_get(m, "level")),
               str(m, "status"), str(m, "class"), str(m, "method"), str(m, "desc"));
    }
    json_decref(plan);
    return 0;
}

static int cmd_order(const char *file, const char *tolerance)
{
    struct calls cs;
    double tol = atof(tolerance), latest = 0;
    size_t latest_seq = 0, bad = 0;

    load_calls(file, &cs);
    for (size_t i = 0; i < cs.n; i++) {
        const json_t *c = cs.v[i];
        json_int_t seq = json_integer_value(json_object_get(c, "seq"));
        double end = (double)json_integer_value(json_object_get(c, "start_ns")) +
                     (double)json_integer_value(json_object_get(json_object_get(c, "root"), "total_ns"));

        if (seq != (json_int_t)i + 1)
            failf("call %zu has seq %lld, want %zu", i + 1, (long long)seq, i + 1);
        if (i > 0 && end < latest - tol && ++bad <= 10)
            fprintf(stderr, "%s: call #%lld ended %.0f ns before #%zu, which has a smaller seq\n", prog,
                    (long long)seq, latest - end, latest_seq);
        if (i == 0 || end > latest) {
            latest = end;
            latest_seq = (size_t)seq;
        }
    }
    printf("%zu %zu\n", cs.n, bad);
    free_calls(&cs);
    return failures ? 1 : 0;
}

struct span {
    json_int_t tid;
    double ts, end;
    const char *name;
};

static int cmd_chrome(const char *file)
{
    json_t *doc = load_doc(file), *events, *ev;
    struct span *spans;
    size_t i, n = 0, ncalls = 0;

    events = json_is_array(doc) ? doc : json_object_get(doc, "traceEvents");
    if (!json_is_array(events)) {
        fprintf(stderr, "%s: %s has no array of trace events\n", prog, file);
        return 2;
    }
    spans = calloc(json_array_size(events) + 1, sizeof *spans);
    if (spans == NULL)
        return 2;
    json_array_foreach(events, i, ev) {
        const char *ph = json_string_value(json_object_get(ev, "ph"));
        json_t *ts = json_object_get(ev, "ts"), *dur = json_object_get(ev, "dur");

        if (!json_is_object(ev) || ph == NULL || !json_is_string(json_object_get(ev, "name"))) {
            failf("event %zu: not an object with a name and a ph", i + 1);
            continue;
        }
        if (strcmp(ph, "X") != 0)
            continue;
        if (!json_is_integer(json_object_get(ev, "pid")) ||
            !json_is_integer(json_object_get(ev, "tid")) || !json_is_number(ts) ||
            !json_is_number(dur) || json_number_value(dur) < 0 || json_number_value(ts) < 0) {
            failf("event %zu (%s): pid, tid, ts or dur missing or negative", i + 1,
                  str(ev, "name"));
            continue;
        }
        if (json_object_get(json_object_get(ev, "args"), "seq") != NULL)
            ncalls++;
        spans[n].tid = json_integer_value(json_object_get(ev, "tid"));
        spans[n].ts = json_number_value(ts);
        spans[n].end = spans[n].ts + json_number_value(dur);
        spans[n].name = str(ev, "name");
        n++;
    }
    /* Nesting with a ns of slack for the µs rounding of ts and dur. */
    for (i = 0; i < n; i++) {
        for (size_t k = i + 1; k < n; k++) {
            const struct span *a = &spans[i], *b = &spans[k];
            const double eps = 0.002;

            if (a->tid != b->tid || a->end <= b->ts + eps || b->end <= a->ts + eps)
                continue;
            if ((a->ts <= b->ts + eps && b->end <= a->end + eps) ||
                (b->ts <= a->ts + eps && a->end <= b->end + eps))
                continue;
            failf("events %s [%.3f, %.3f] and %s [%.3f, %.3f] of thread %lld overlap "
                  "without nesting",
                  a->name, a->ts, a->end, b->name, b->ts, b->end, (long long)a->tid);
        }
    }
    printf("%zu\n", ncalls);
    free(spans);
    json_decref(doc);
    return failures ? 1 : 0;
}

static int cmd_slowest(const char *file)
{
    struct calls cs;
    const json_t *slow, *c;
    size_t i;

    summaries_ok = 1;
    load_calls(file, &cs);
    if (cs.n == 0 || !json_is_array(slow = json_object_get(cs.v[cs.n - 1], "slowest"))) {
        fprintf(stderr, "%s: %s: no summary with a slowest array at its end\n", prog, file);
        exit(2);
    }
    json_array_foreach(slow, i, c) {
        json_dumpf(c, stdout, JSON_COMPACT);
        putchar('\n');
    }
    free_calls(&cs);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "sort") == 0)
        return cmd_sort();
    if (argc < 3)
        usage();
    if (strcmp(argv[1], "check") == 0)
        return cmd_check(argc - 1, argv + 1);
    if (strcmp(argv[1], "outline") == 0)
        return cmd_outline(argc - 1, argv + 1);
    summaries_ok = strcmp(argv[1], "field") == 0 || strcmp(argv[1], "call") == 0;
    if (strcmp(argv[1], "field") == 0 && argc == 5)
        return cmd_field(argv[2], argv[3], argv[4]);
    if (strcmp(argv[1], "call") == 0 && argc == 4)
        return cmd_call(argv[2], argv[3]);
    if (strcmp(argv[1], "slowest") == 0 && argc == 3)
        return cmd_slowest(argv[2]);
    if (strcmp(argv[1], "plan") == 0 && argc == 3)
        return cmd_plan(argv[2]);
    if (strcmp(argv[1], "chrome") == 0 && argc == 3)
        return cmd_chrome(argv[2]);
    if (strcmp(argv[1], "order") == 0 && argc == 4)
        return cmd_order(argv[2], argv[3]);
    usage();
    return 2;
}
