/* test_planner.c — exact plans over the class files javac built from
 * tests/java/fixtures/plan (a small shop), through the directory hierarchy
 * of hier_dir.h. The cases of tests/unit/plans, one file each, give a
 * request (and hidden or flagged classes) and the plan or the error wanted:
 * levels and depth, the regex and the JDK rule, virtual and interface calls
 * reaching their implementations, lambdas and method references, entry
 * resolution, pending classes, every refusal, the cap. The code here checks
 * what a plan's text does not show: the fields of its entries, which class
 * bytes the planner asks for, the regex's findings, planning's bounds,
 * names beyond plain UTF-8; then classes that load after planning
 * (tests/java/fixtures/plan/planfx/late, hidden from a first hierarchy):
 * plan_extend below pending methods whose class loaded, and plan_new_class
 * for new subtypes of planned call sites. */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "classfile.h"
#include "hier_dir.h"
#include "planner.h"
#include "slurp.h"

#define SHOP "planfx\\.shop\\..*"
#define LATE "planfx\\.late\\..*"

static char dir_planfx[4200], dir_tracer[4200];

static hier_dir *load(const char *const *hide)
{
    const char *dirs[] = {dir_planfx, dir_tracer, NULL};
    mct_err err;
    hier_dir *h = hier_dir_load(dirs, hide, &err);

    if (h == NULL) {
        fprintf(stderr, "loading the fixtures: %s\n", err.msg);
        exit(1);
    }
    return h;
}

static plan_request req_of(const char *cls, const char *method, int depth, const char *regex)
{
    plan_request r = {0};

    r.class_name = cls;
    r.method = method;
    r.depth = depth;
    r.regex = regex;
    return r;
}

/* One line per entry from index `from`: "level status class.name desc[
 * root][: reason]". */
static char *render_from(const plan *p, size_t from)
{
    size_t i, cap = 1 << 16, n = 0;
    char *s = malloc(cap);

    s[0] = '\0';
    for (i = from; i < plan_count(p); i++) {
        const plan_method *m = plan_at(p, i);
        const char *st = m->status == PLAN_INSTRUMENT ? "I" : m->status == PLAN_PENDING ? "P" : "X";

        n += (size_t)snprintf(s + n, cap - n, "%d %s %s.%s%s%s%s%s\n", m->level, st, m->class_name,
                              m->name, m->desc, m->root ? " root" : "", m->reason ? ": " : "",
                              m->reason ? m->reason : "");
    }
    return s;
}

static char *render(const plan *p)
{
    return render_from(p, 0);
}

/* The plan of r, which must build (the test stops otherwise); the caller
 * frees it with plan_free. */
static plan *build(hier_dir *h, const plan_request *r)
{
    mct_err err;
    plan *p = plan_build(r, &hier_dir_ops, h, &err);

    if (p == NULL) {
        fprintf(stderr, "plan failed: %s: %s\n", mct_code_name(err.code), err.msg);
        exit(1);
    }
    return p;
}

/* Builds the plan of r and compares it with want (lines as render());
 * where names the case in what is printed. */
static void plan_matches(const char *where, hier_dir *h, const plan_request *r, const char *want)
{
    mct_err err;
    plan *p = plan_build(r, &hier_dir_ops, h, &err);
    char *got;

    if (p == NULL) {
        fprintf(stderr, "%s: plan failed: %s: %s\n", where, mct_code_name(err.code), err.msg);
        check_failures++;
        return;
    }
    got = render(p);
    if (strcmp(got, want) != 0) {
        fprintf(stderr, "%s: plan differs\n--- got:\n%s--- want:\n%s---\n", where, got, want);
        check_failures++;
    }
    free(got);
    plan_free(p);
}

static void expect_plan(int line, hier_dir *h, const plan_request *r, const char *want)
{
    char where[32];

    snprintf(where, sizeof where, "line %d", line);
    plan_matches(where, h, r, want);
}

/* Builds the plan of r expecting failure with the error code named code
 * (mct_code_name) and every string of the NULL-terminated wants in the
 * message. */
static void error_matches(const char *where, hier_dir *h, const plan_request *r, const char *code,
                          const char *const *wants)
{
    mct_err err;
    plan *p = plan_build(r, &hier_dir_ops, h, &err);

    if (p != NULL) {
        char *got = render(p);

        fprintf(stderr, "%s: plan succeeded, want %s:\n%s", where, code, got);
        free(got);
        plan_free(p);
        check_failures++;
        return;
    }
    if (strcmp(mct_code_name(err.code), code) != 0) {
        fprintf(stderr, "%s: %s (%s), want %s\n", where, mct_code_name(err.code), err.msg, code);
        check_failures++;
    }
    for (; *wants != NULL; wants++)
        if (strstr(err.msg, *wants) == NULL) {
            fprintf(stderr, "%s: message \"%s\" lacks \"%s\"\n", where, err.msg, *wants);
            check_failures++;
        }
}

#define MAX_WANTS 8

/* error_matches with the strings as NULL-terminated arguments (at most
 * MAX_WANTS). */
static void expect_error(int line, hier_dir *h, const plan_request *r, int code, ...)
{
    const char *wants[MAX_WANTS + 1];
    char where[32];
    va_list ap;
    int n = 0;

    va_start(ap, code);
    while (n < MAX_WANTS && (wants[n] = va_arg(ap, const char *)) != NULL)
        n++;
    va_end(ap);
    wants[n] = NULL;
    snprintf(where, sizeof where, "line %d", line);
    error_matches(where, h, r, mct_code_name(code), wants);
}

/* --- the cases of tests/unit/plans ------------------------------------------------------
 *
 * A case is a file NAME.plan of lines "KEY VALUE", "#" lines being
 * comments:
 *   class, method, desc, depth, regex, include_jdk, max_methods
 *       the request (plan_request's fields; no regex line: NULL; include_jdk
 *       takes no value);
 *   hide, unmodifiable, fail_bytes
 *       internal class names of the fixtures, space-separated: hidden from
 *       the hierarchy, flagged HIER_UNMODIFIABLE, failing to give their bytes;
 *   plan
 *       the rest of the file is the plan wanted, as render() writes it;
 *   error CODE, then message TEXT lines
 *       planning fails with the error mct_code_name calls CODE, each TEXT
 *       in its message ("\n" in TEXT stands for a newline). */

#define MAX_NAMES 16

struct plan_case {
    plan_request r;
    const char *hide[MAX_NAMES + 1], *unmodifiable[MAX_NAMES + 1], *fail_bytes[MAX_NAMES + 1];
    const char *plan;                    /* the plan wanted, or NULL */
    const char *error;                   /* the error code's name wanted, or NULL */
    const char *messages[MAX_WANTS + 1]; /* in its message */
};

/* Splits v at spaces into names (NULL-terminated), in place; 0, or -1 when
 * there are more than MAX_NAMES. */
static int case_names(char *v, const char **names)
{
    int n = 0;

    for (char *tok = strtok(v, " "); tok != NULL; tok = strtok(NULL, " ")) {
        if (n == MAX_NAMES)
            return -1;
        names[n++] = tok;
    }
    names[n] = NULL;
    return 0;
}

/* Turns each "\n" of s into a newline, in place. */
static void case_unescape(char *s)
{
    char *w = s;

    for (; *s != '\0'; s++)
        if (s[0] == '\\' && s[1] == 'n') {
            *w++ = '\n';
            s++;
        } else {
            *w++ = *s;
        }
    *w = '\0';
}

/* Parses text, the contents of the case file path (changed in place and
 * borrowed by c); 0, or -1 after saying on stderr what is wrong. */
static int case_parse(const char *path, char *text, struct plan_case *c)
{
    char *line = text, *next, *v;
    int n_msg = 0;

    memset(c, 0, sizeof *c);
    for (; *line != '\0'; line = next) {
        next = strchr(line, '\n');
        if (next != NULL)
            *next++ = '\0';
        else
            next = line + strlen(line);
        if (line[0] == '#' || line[0] == '\0')
            continue;
        if (strcmp(line, "plan") == 0) {
            c->plan = next;
            break;
        }
        v = strchr(line, ' ');
        if (v != NULL)
            *v++ = '\0';
        else
            v = line + strlen(line);
        if (strcmp(line, "class") == 0) {
            c->r.class_name = v;
        } else if (strcmp(line, "method") == 0) {
            c->r.method = v;
        } else if (strcmp(line, "desc") == 0) {
            c->r.desc = v;
        } else if (strcmp(line, "depth") == 0) {
            c->r.depth = atoi(v);
        } else if (strcmp(line, "regex") == 0) {
            c->r.regex = v;
        } else if (strcmp(line, "include_jdk") == 0) {
            c->r.include_jdk = 1;
        } else if (strcmp(line, "max_methods") == 0) {
            c->r.max_methods = strtoul(v, NULL, 10);
        } else if (strcmp(line, "error") == 0) {
            c->error = v;
        } else if (strcmp(line, "message") == 0 && n_msg < MAX_WANTS) {
            case_unescape(v);
            c->messages[n_msg++] = v;
        } else if (!((strcmp(line, "hide") == 0 && case_names(v, c->hide) == 0) ||
                     (strcmp(line, "unmodifiable") == 0 && case_names(v, c->unmodifiable) == 0) ||
                     (strcmp(line, "fail_bytes") == 0 && case_names(v, c->fail_bytes) == 0))) {
            fprintf(stderr, "%s: unknown key '%s', or too many values (see test_planner.c)\n", path, line);
            return -1;
        }
    }
    if (c->r.class_name == NULL || c->r.method == NULL || (c->plan == NULL) == (c->error == NULL)) {
        fprintf(stderr, "%s: give a class, a method, and either a plan or an error\n", path);
        return -1;
    }
    return 0;
}

/* Flags every class of names with fn; a name that is no class of the
 * fixtures fails the case. */
static void case_flag(const char *path, hier_dir *h, const char *const *names, int (*fn)(hier_dir *, const char *))
{
    for (; *names != NULL; names++)
        if (fn(h, *names) < 0) {
            fprintf(stderr, "%s: %s is no class of the fixtures\n", path, *names);
            check_failures++;
        }
}

static int flag_unmodifiable(hier_dir *h, const char *name)
{
    return hier_dir_add_flags(h, name, HIER_UNMODIFIABLE);
}

/* Runs the case of the file at path. */
static void run_case(const char *path)
{
    char *text = slurp(path);
    struct plan_case c;
    hier_dir *h;

    if (text == NULL || case_parse(path, text, &c) < 0) {
        if (text == NULL)
            fprintf(stderr, "%s: %s\n", path, strerror(errno));
        check_failures++;
        free(text);
        return;
    }
    h = load(c.hide);
    case_flag(path, h, c.unmodifiable, flag_unmodifiable);
    case_flag(path, h, c.fail_bytes, hier_dir_fail_bytes);
    if (c.plan != NULL)
        plan_matches(path, h, &c.r, c.plan);
    else
        error_matches(path, h, &c.r, c.error, c.messages);
    hier_dir_free(h);
    free(text);
}

/* Runs every case of dir, in the order of their names. */
static void test_cases(const char *dir)
{
    struct dirent **ents;
    int n = scandir(dir, &ents, NULL, alphasort), cases = 0;

    if (n < 0) {
        fprintf(stderr, "%s: %s\n", dir, strerror(errno));
        check_failures++;
        return;
    }
    for (int i = 0; i < n; i++) {
        size_t len = strlen(ents[i]->d_name);

        if (len > 5 && strcmp(ents[i]->d_name + len - 5, ".plan") == 0) {
            char path[4400];

            snprintf(path, sizeof path, "%s/%s", dir, ents[i]->d_name);
            run_case(path);
            cases++;
        }
        free(ents[i]);
    }
    free(ents);
    if (cases == 0) {
        fprintf(stderr, "%s: no case (NAME.plan) in it\n", dir);
        check_failures++;
    }
}

/* --- what a plan's text does not show ---------------------------------------------------- */

/* The fields of the entries (the plan: plans/levels.plan). */
static void test_fields(void)
{
    hier_dir *h = load(NULL);
    plan_request r = req_of("planfx.shop.Checkout", "run", 5, SHOP);
    plan *p = build(h, &r);
    const plan_method *m;

    CHECK_INT(plan_capped(p), 0);
    CHECK(plan_at(p, plan_count(p)) == NULL);
    m = plan_at(p, 0);
    CHECK(m->cls == hier_dir_ops.find(h, "planfx/shop/Checkout", NULL));
    CHECK_INT(m->access, CF_ACC_PUBLIC);
    CHECK_INT(m->root, PLAN_ROOT);
    CHECK(m->reason == NULL);
    CHECK(plan_receiver(p) == NULL);
    m = plan_at(p, 5);
    CHECK_STR(m->name, "fib");
    CHECK_INT(m->access, CF_ACC_STATIC);
    CHECK_INT(m->root, 0);
    m = plan_at(p, 12);
    CHECK_STR(m->class_name, "planfx/shop/Discount");
    CHECK_INT(m->access, CF_ACC_PUBLIC | CF_ACC_ABSTRACT);
    plan_free(p);
    hier_dir_free(h);
}

/* Depth 1 is the entry method only and reads no class; each further level
 * reads (after announcing them) only the classes whose code is scanned
 * (the plans: plans/depth-*.plan). */
static void test_depth_and_bytes(void)
{
    hier_dir *h = load(NULL);
    plan_request r = req_of("planfx.shop.Checkout", "run", 1, SHOP);

    plan_free(build(h, &r));
    CHECK_INT(hier_dir_classes_read(h), 0);
    hier_dir_free(h);

    h = load(NULL);
    r.depth = 2;
    plan_free(build(h, &r));
    CHECK_INT(hier_dir_classes_read(h), 1);
    CHECK_INT(hier_dir_bytes_asked(h, "planfx/shop/Checkout"), 1);
    hier_dir_free(h);

    /* Depth 3 scans Checkout, Cart, BaseService, Pricing: not the classes of
     * level 3, nor excluded ones, nor the JDK. */
    h = load(NULL);
    r.depth = 3;
    plan_free(build(h, &r));
    CHECK_INT(hier_dir_classes_read(h), 4);
    CHECK_INT(hier_dir_bytes_asked(h, "planfx/shop/Cart"), 1);
    CHECK_INT(hier_dir_bytes_asked(h, "planfx/shop/BaseService"), 1);
    CHECK_INT(hier_dir_bytes_asked(h, "planfx/shop/Pricing"), 1);
    CHECK_INT(hier_dir_bytes_asked(h, "planfx/shop/Item"), 0);
    CHECK_INT(hier_dir_bytes_asked(h, "planfx/util/Log"), 0);
    CHECK_INT(hier_dir_bytes_asked(h, "java/util/ArrayList"), 0);
    hier_dir_free(h);
}

/* What the regex decided on: the callee classes (not the JDK's), how many
 * it matched, and a suggestion when a plain name matched none. */
static void expect_seen(int line, hier_dir *h, const plan_request *r, size_t callees, size_t matched,
                        const char *suggestion, size_t suggestion_matches)
{
    mct_err err;
    plan *p = plan_build(r, &hier_dir_ops, h, &err);
    plan_regex_seen seen;

    if (p == NULL) {
        fprintf(stderr, "line %d: plan failed: %s\n", line, err.msg);
        check_failures++;
        return;
    }
    seen = plan_regex(p);
    if (seen.callee_classes != callees || seen.matched_classes != matched ||
        (suggestion == NULL) != (seen.suggestion == NULL) ||
        (suggestion != NULL && strcmp(suggestion, seen.suggestion) != 0) ||
        seen.suggestion_matches != suggestion_matches) {
        fprintf(stderr, "line %d: regex %s: %zu callee classes, %zu matched, suggestion %s (%zu); want %zu, %zu, "
                "%s (%zu)\n", line, r->regex, seen.callee_classes, seen.matched_classes,
                seen.suggestion ? seen.suggestion : "none", seen.suggestion_matches, callees, matched,
                suggestion ? suggestion : "none", suggestion_matches);
        check_failures++;
    }
    plan_free(p);
}

static void test_regex_seen(void)
{
    hier_dir *h = load(NULL);
    plan_request r = req_of("planfx.shop.Checkout", "run", 2, "planfx.shop");

    /* Checkout (run calls run), Cart, BaseService, Pricing: a package
     * written without .* */
    expect_seen(__LINE__, h, &r, 4, 0, "planfx\\.shop\\..*", 4);
    r.regex = "planfx\\.shop\\.";
    expect_seen(__LINE__, h, &r, 4, 0, "planfx\\.shop\\..*", 4);
    r.regex = "planfx";
    expect_seen(__LINE__, h, &r, 4, 0, "planfx\\..*", 4);
    /* A class's simple name: in any package. */
    r.regex = "Cart";
    expect_seen(__LINE__, h, &r, 4, 0, ".*\\.Cart", 1);
    /* Matching some: no suggestion; the JDK's classes are not counted. */
    r.regex = SHOP;
    r.depth = 5;
    expect_seen(__LINE__, h, &r, 11, 10, NULL, 0);
    r.regex = "planfx\\.shop\\.C.*";
    r.depth = 2;
    expect_seen(__LINE__, h, &r, 4, 2, NULL, 0);
    /* Nothing to suggest: no plain name, or nothing that would match. */
    r.regex = "com\\.shop\\..*";
    expect_seen(__LINE__, h, &r, 4, 0, NULL, 0);
    r.regex = "nothing";
    expect_seen(__LINE__, h, &r, 4, 0, NULL, 0);
    r.regex = "planfx.shop$";
    expect_seen(__LINE__, h, &r, 4, 0, NULL, 0);
    /* No callee: nothing decided. */
    r.depth = 1;
    r.regex = "planfx.shop";
    expect_seen(__LINE__, h, &r, 0, 0, NULL, 0);
    hier_dir_free(h);
}

/* Only the calls of an inherited instance method on the named class are
 * its calls: the plan says so, and names that class (the plans:
 * plans/entry-*.plan). */
static void test_receiver(void)
{
    hier_dir *h = load(NULL);
    plan_request r = req_of("planfx.shop.PercentDiscount", "apply", 1, SHOP);
    plan *p = build(h, &r);

    CHECK_INT(plan_at(p, 0)->root, PLAN_ROOT_RECEIVER);
    CHECK(plan_receiver(p) == hier_dir_ops.find(h, "planfx/shop/PercentDiscount", NULL));
    plan_free(p);
    r = req_of("planfx.shop.GiftItem", "parse", 1, SHOP);
    p = build(h, &r);
    CHECK_INT(plan_at(p, 0)->root, PLAN_ROOT);
    CHECK(plan_receiver(p) == NULL);
    plan_free(p);
    hier_dir_free(h);
}

/* With --include-jdk, JDK methods are scanned like any other: their
 * class bytes are asked for (the plan: plans/jdk-scanned.plan). */
static void test_jdk_scanned(void)
{
    hier_dir *h = load(NULL);
    plan_request r = req_of("planfx.shop.Cart", "add", 4, "(planfx\\.shop|java\\.util|java\\.lang)\\..*");

    r.include_jdk = 1;
    plan_free(build(h, &r));
    CHECK_INT(hier_dir_bytes_asked(h, "java/util/ArrayList"), 1);
    hier_dir_free(h);
}

/* A pending entry has no class and no access flags yet (the plan:
 * plans/pending.plan). */
static void test_pending(void)
{
    const char *hide[] = {"planfx/shop/GiftItem", "planfx/util/Log", NULL};
    hier_dir *h = load(hide);
    plan_request r = req_of("planfx.shop.Orders", "report", 2, "planfx\\.shop\\.(Orders|Item|GiftItem)");
    plan *p = build(h, &r);
    size_t i, pending = 0;

    for (i = 0; i < plan_count(p); i++) {
        const plan_method *m = plan_at(p, i);

        if (m->status == PLAN_PENDING) {
            CHECK(m->cls == NULL);
            CHECK_INT(m->access, 0);
            CHECK_INT(m->level, 2);
            pending++;
        }
    }
    CHECK_INT(pending, 1);
    plan_free(p);
    hier_dir_free(h);
}

/* A requester that goes away after `after` questions; each question
 * takes `sleep_us`. */
struct gone {
    int asked, after;
    useconds_t sleep_us;
};

static int gone_after(void *arg)
{
    struct gone *g = arg;

    if (g->sleep_us)
        usleep(g->sleep_us);
    return ++g->asked > g->after;
}

/* Planning's bounds: the regex's work per name and over the plan, the
 * time, the requester going away; each failure names its bound. */
static void test_bounds(void)
{
    hier_dir *h = load(NULL);
    plan_request r = req_of("planfx.shop.Checkout", "run", 4, "(.+)+[0-9]");
    struct gone g = {0};
    mct_err err;
    plan *p;

    /* Catastrophic backtracking on the first long name stops planning. */
    r.include_jdk = 1;
    expect_error(__LINE__, h, &r, MCT_E_LIMIT, "the regex took more than 100000 steps to match the class name ",
                 "(limit: regex work per name)", "simplify the regex", NULL);
    /* A budget over the plan, spent a few steps a name. */
    r = req_of("planfx.shop.Checkout", "run", 4, "planfx\\..*");
    r.include_jdk = 1;
    r.regex_work = 40;
    expect_error(__LINE__, h, &r, MCT_E_LIMIT, "the regex took more than 40 steps over the ",
                 "(limit: regex work over the plan)", "lower the depth", NULL);
    r.regex_work = 0;
    p = plan_build(&r, &hier_dir_ops, h, &err);
    CHECK(p != NULL);
    plan_free(p);
    /* Planning time: each look at the requester takes 2 ms, the limit is
     * 1 ms. */
    g.after = 1000;
    g.sleep_us = 2000;
    r.gone = gone_after;
    r.gone_arg = &g;
    r.time_ms = 1;
    expect_error(__LINE__, h, &r, MCT_E_LIMIT, "planning took more than 0.001 s (limit: planning time), at level ",
                 "lower the depth, or narrow the regex", NULL);
    /* The requester is asked while planning; planning stops once it is
     * gone. */
    r.time_ms = 0;
    memset(&g, 0, sizeof g);
    g.after = 1000;
    p = plan_build(&r, &hier_dir_ops, h, &err);
    CHECK(p != NULL);
    CHECK(g.asked >= 1);
    plan_free(p);
    memset(&g, 0, sizeof g);
    expect_error(__LINE__, h, &r, MCT_E_INTR, "planning stopped at level 1 of 4: the client went away", NULL);
    CHECK_INT(g.asked, 1);
    hier_dir_free(h);
}

/* Names with supplementary characters: modified UTF-8 in the plan, asked
 * for in UTF-8, UTF-8 in messages. */
static void test_names(void)
{
    hier_dir *h = load(NULL);
    plan_request r = req_of("planfx.names.Names", "run", 2, "planfx\\..*");

    expect_plan(__LINE__, h, &r,
                "1 I planfx/names/Names.run(J)J root\n"
                "2 I planfx/names/Names.\xed\xa0\xb5\xed\xb1\x93(J)J\n"
                "2 I planfx/names/Names.\xed\xa0\xb5\xed\xb1\x94(J)J\n");
    r = req_of("planfx.names.Names", "\xf0\x9d\x91\x93", 2, "planfx\\..*");
    expect_plan(__LINE__, h, &r, "1 I planfx/names/Names.\xed\xa0\xb5\xed\xb1\x93(J)J root\n");
    r = req_of("planfx.names.Names", "\xf0\x9d\x91\x93(J)J", 2, "planfx\\..*");
    expect_plan(__LINE__, h, &r, "1 I planfx/names/Names.\xed\xa0\xb5\xed\xb1\x93(J)J root\n");
    /* The regex sees the character (U+1D453 is a letter). */
    r = req_of("planfx.names.Names", "run", 2, "planfx\\.names\\.Names");
    expect_plan(__LINE__, h, &r,
                "1 I planfx/names/Names.run(J)J root\n"
                "2 I planfx/names/Names.\xed\xa0\xb5\xed\xb1\x93(J)J\n"
                "2 I planfx/names/Names.\xed\xa0\xb5\xed\xb1\x94(J)J\n");
    r = req_of("planfx.names.Names", "\xf0\x9d\x91\x95", 2, NULL);
    expect_error(__LINE__, h, &r, MCT_E_NO_METHOD, "planfx.names.Names has no method \xf0\x9d\x91\x95 ",
                 "Did you mean \xf0\x9d\x91\x93, \xf0\x9d\x91\x94?",
                 "Its methods: <init>, run, \xf0\x9d\x91\x93, \xf0\x9d\x91\x94", NULL);
    hier_dir_free(h);
}

/* The cap keeps the lowest levels and says so (the plan of a cap of 4:
 * plans/cap.plan). */
static void test_cap(void)
{
    hier_dir *h = load(NULL);
    plan_request r = req_of("planfx.shop.Checkout", "run", 5, SHOP);
    mct_err err;
    plan *p;

    r.max_methods = 4;
    p = plan_build(&r, &hier_dir_ops, h, &err);
    CHECK(p != NULL && plan_capped(p));
    plan_free(p);
    r.max_methods = 26;
    p = plan_build(&r, &hier_dir_ops, h, &err);
    CHECK(p != NULL && plan_count(p) == 26 && !plan_capped(p));
    plan_free(p);
    r.max_methods = 25;
    p = plan_build(&r, &hier_dir_ops, h, &err);
    CHECK(p != NULL && plan_count(p) == 25 && plan_capped(p));
    plan_free(p);
    hier_dir_free(h);
}

/* --- classes that load after planning ------------------------------------------------ */

/* Hidden at planning: the classes of pending methods (Engine, Widget, Tool,
 * Motor), an implementation of Shape (Circle), subclasses (Oval, PowerTool). */
static const char *const hide_late[] = {"planfx/late/Circle", "planfx/late/Oval", "planfx/late/Engine",
                                        "planfx/late/Motor", "planfx/late/Widget", "planfx/late/Tool",
                                        "planfx/late/PowerTool", NULL};
/* After the first classes loaded. */
static const char *const hide_later[] = {"planfx/late/Motor", "planfx/late/Oval", "planfx/late/PowerTool",
                                         NULL};

/* Front.serve to depth 3 over hide_late. */
static const char PLAN_LATE[] =
    "1 I planfx/late/Front.serve(Lplanfx/late/Shape;Ljava/lang/Object;I)J root\n"
    "2 X planfx/late/Shape.area()J: abstract: its implementations are traced\n"
    "2 I planfx/late/Square.area()J\n"
    "2 P planfx/late/Engine.start(I)J\n"
    "2 P planfx/late/Widget.<init>()V\n"
    "2 P planfx/late/Widget.run()J\n"
    "2 P planfx/late/Tool.<init>()V\n"
    "2 P planfx/late/Tool.use()J\n"
    "2 X java/lang/Object.hashCode()I: does not match the regex\n"
    "3 I planfx/late/Util.sq(J)J\n";

static void expect_render(int line, const plan *p, size_t from, const char *want)
{
    char *got = render_from(p, from);

    if (strcmp(got, want) != 0) {
        fprintf(stderr, "line %d: plan differs\n--- got:\n%s--- want:\n%s---\n", line, got, want);
        check_failures++;
    }
    free(got);
}

/* Appends to seeds the pending entries of p. */
static size_t pending_seeds(const plan *p, plan_seed *seeds, size_t n, size_t max)
{
    size_t i;

    for (i = 0; i < plan_count(p) && n < max; i++) {
        const plan_method *m = plan_at(p, i);

        if (m->status == PLAN_PENDING) {
            seeds[n].class_name = m->class_name;
            seeds[n].name = m->name;
            seeds[n].desc = m->desc;
            seeds[n].level = m->level;
            seeds[n].index = i;
            n++;
        }
    }
    return n;
}

/* plan_new_class for class `name` as hierarchy h has it (its class file's
 * superclass, interfaces and methods); returns how many it gave. */
static size_t new_class(plan *p, hier_dir *h, const char *name, plan_seed *out, size_t max)
{
    hier_class *c = hier_dir_ops.find(h, name, NULL), *sup;
    hier_class *const *is;
    const hier_method *ms;
    const char *inames[8];
    size_t ni, nm, i, n = 99;

    if (c == NULL) {
        fprintf(stderr, "no class %s in the hierarchy\n", name);
        exit(1);
    }
    sup = hier_dir_ops.super(h, c);
    ni = hier_dir_ops.interfaces(h, c, &is);
    for (i = 0; i < ni && i < 8; i++)
        inames[i] = hier_dir_ops.name(h, is[i]);
    nm = hier_dir_ops.methods(h, c, &ms);
    CHECK_INT(plan_new_class(p, name, sup ? hier_dir_ops.name(h, sup) : "java/lang/Object", inames, ni, ms,
                             nm, out, max, &n), 0);
    return n;
}

/* plan_new_class for a made-up class declaring one method. */
static size_t new_synth(plan *p, const char *name, const char *super, const char *iface, const char *mname,
                        const char *mdesc, int access, plan_seed *out)
{
    hier_method m;
    const char *ifs[1];
    size_t n = 99;

    m.name = mname;
    m.desc = mdesc;
    m.access = (uint16_t)access;
    ifs[0] = iface;
    CHECK_INT(plan_new_class(p, name, super, ifs, iface ? 1 : 0, &m, 1, out, 4, &n), 0);
    return n;
}

static void expect_seed(int line, const plan *p, const plan_seed *s, const char *cls, const char *name,
                        const char *desc, int level)
{
    const plan_method *m = plan_at(p, s->index);

    if (strcmp(s->class_name, cls) != 0 || strcmp(s->name, name) != 0 || strcmp(s->desc, desc) != 0 ||
        s->level != level || m == NULL || strcmp(m->class_name, cls) != 0 || strcmp(m->name, name) != 0 ||
        strcmp(m->desc, desc) != 0 || m->level != level || m->status != PLAN_INSTRUMENT || m->cls != NULL) {
        fprintf(stderr, "line %d: seed %s.%s%s level %d (entry %zu), want %s.%s%s level %d\n", line,
                s->class_name, s->name, s->desc, s->level, s->index, cls, name, desc, level);
        check_failures++;
    }
}

/* plan_extend expecting success; returns the number of entries appended
 * (their indexes in *added, freed by the caller). */
static size_t extend(int line, plan *p, hier_dir *h, const plan_seed *seeds, size_t n, size_t **added)
{
    mct_err err;
    size_t n_added = 99;

    if (plan_extend(p, seeds, n, &hier_dir_ops, h, added, &n_added, &err) < 0) {
        fprintf(stderr, "line %d: plan_extend failed: %s: %s\n", line, mct_code_name(err.code), err.msg);
        check_failures++;
    }
    return n_added;
}

/* Whether added[0..n) are exactly from..count-1. */
static int added_is_tail(const plan *p, const size_t *added, size_t n, size_t from)
{
    size_t k;

    if (n != plan_count(p) - from)
        return 0;
    for (k = 0; k < n; k++)
        if (added[k] != from + k)
            return 0;
    return 1;
}

/* Pending classes load: their methods are scanned to the depth, a method
 * they inherit is found, existing entries stay as they were; a new
 * implementation of a planned interface call, then its subclass, and the
 * subclass of a pending class are found by plan_new_class. */
static void test_late_pending(void)
{
    hier_dir *h0 = load(hide_late), *h1, *h2;
    plan_request r = req_of("planfx.late.Front", "serve", 3, LATE);
    plan *p = build(h0, &r);
    plan_seed seeds[16], got[8];
    const plan_method *old[10];
    plan_method copy[10];
    size_t n, i, na, *added = NULL;

    expect_render(__LINE__, p, 0, PLAN_LATE);
    CHECK_INT(plan_count(p), 10);
    for (i = 0; i < 10; i++) {
        old[i] = plan_at(p, i);
        copy[i] = *old[i];
    }
    CHECK(plan_at(p, 2)->cls == hier_dir_ops.find(h0, "planfx/late/Square", NULL));
    /* The session instruments, then frees its hierarchy. */
    hier_dir_free(h0);

    /* Circle loads: it implements Shape, whose area() is called at level 2. */
    h1 = load(hide_later);
    n = new_class(p, h1, "planfx/late/Circle", got, 8);
    CHECK_INT(n, 1);
    if (n == 1) {
        expect_seed(__LINE__, p, &got[0], "planfx/late/Circle", "area", "()J", 2);
        CHECK_INT(got[0].index, 10);
        CHECK_INT(plan_at(p, 10)->access, CF_ACC_PUBLIC);
        CHECK_INT(plan_at(p, 10)->root, 0);
    }
    /* Loaded again (another loader, or told twice): nothing new. */
    CHECK_INT(new_class(p, h1, "planfx/late/Circle", got + 1, 7), 0);

    /* Engine, Widget, Tool and Circle loaded: extend below them. Widget.run
     * is Gadget.run; Engine.start's callees: Log outside the regex, Motor
     * still pending, Util.sq in the plan already (kept at level 3). */
    n = pending_seeds(p, seeds, 0, 16);
    CHECK_INT(n, 5);
    seeds[n++] = got[0];
    na = extend(__LINE__, p, h1, seeds, n, &added);
    expect_render(__LINE__, p, 0,
                  "1 I planfx/late/Front.serve(Lplanfx/late/Shape;Ljava/lang/Object;I)J root\n"
                  "2 X planfx/late/Shape.area()J: abstract: its implementations are traced\n"
                  "2 I planfx/late/Square.area()J\n"
                  "2 P planfx/late/Engine.start(I)J\n"
                  "2 P planfx/late/Widget.<init>()V\n"
                  "2 P planfx/late/Widget.run()J\n"
                  "2 P planfx/late/Tool.<init>()V\n"
                  "2 P planfx/late/Tool.use()J\n"
                  "2 X java/lang/Object.hashCode()I: does not match the regex\n"
                  "3 I planfx/late/Util.sq(J)J\n"
                  "2 I planfx/late/Circle.area()J\n"
                  "2 I planfx/late/Gadget.run()J\n"
                  "3 X planfx/util/Log.info(Ljava/lang/String;)V: does not match the regex\n"
                  "3 I planfx/late/Gear.turn(I)J\n"
                  "3 P planfx/late/Motor.spin(I)J\n"
                  "3 I planfx/late/Gadget.<init>()V\n"
                  "3 X java/lang/Object.<init>()V: does not match the regex\n"
                  "3 I planfx/late/Util.pi(J)J\n");
    CHECK_INT(na, 7);
    CHECK(added != NULL && added_is_tail(p, added, na, 11));
    free(added);
    CHECK_INT(plan_deferred(p), 0);
    /* The old entries did not move or change, but for cls. */
    for (i = 0; i < 10; i++) {
        const plan_method *m = plan_at(p, i);

        CHECK(m == old[i]);
        CHECK(m->cls == NULL);
        CHECK(m->class_name == copy[i].class_name && m->name == copy[i].name && m->desc == copy[i].desc);
        CHECK_INT(m->level, copy[i].level);
        CHECK_INT(m->status, copy[i].status);
        CHECK_INT(m->root, copy[i].root);
        CHECK(m->reason == copy[i].reason);
    }
    /* The new ones carry the new hierarchy's classes. */
    CHECK(plan_at(p, 11)->cls == hier_dir_ops.find(h1, "planfx/late/Gadget", NULL));
    CHECK(plan_at(p, 13)->cls == hier_dir_ops.find(h1, "planfx/late/Gear", NULL));
    CHECK(plan_at(p, 14)->cls == NULL);
    CHECK_INT(plan_at(p, 14)->access, 0);
    CHECK_INT(plan_at(p, 11)->access, CF_ACC_PUBLIC);
    /* Only the classes of level 2 were read. */
    CHECK_INT(hier_dir_bytes_asked(h1, "planfx/late/Engine"), 1);
    CHECK_INT(hier_dir_bytes_asked(h1, "planfx/late/Widget"), 1);
    CHECK_INT(hier_dir_bytes_asked(h1, "planfx/late/Gadget"), 1);
    CHECK_INT(hier_dir_bytes_asked(h1, "planfx/late/Circle"), 1);
    CHECK_INT(hier_dir_bytes_asked(h1, "planfx/late/Tool"), 1);
    CHECK_INT(hier_dir_bytes_asked(h1, "planfx/late/Gear"), 0);
    CHECK_INT(hier_dir_bytes_asked(h1, "planfx/late/Util"), 0);

    /* The same seeds again: nothing is scanned or appended twice. */
    na = extend(__LINE__, p, h1, seeds, n, &added);
    CHECK_INT(na, 0);
    CHECK(added == NULL);
    CHECK_INT(plan_count(p), 18);
    CHECK_INT(hier_dir_bytes_asked(h1, "planfx/late/Engine"), 1);
    CHECK(plan_at(p, 11)->cls == NULL);
    hier_dir_free(h1);

    /* Later still: Oval extends Circle (known from plan_new_class only), and
     * PowerTool extends Tool (pending at planning); Motor loads too. */
    h2 = load(NULL);
    CHECK_INT(new_class(p, h2, "planfx/late/Oval", got, 8), 1);
    expect_seed(__LINE__, p, &got[0], "planfx/late/Oval", "area", "()J", 2);
    CHECK_INT(new_class(p, h2, "planfx/late/PowerTool", got + 1, 7), 1);
    expect_seed(__LINE__, p, &got[1], "planfx/late/PowerTool", "use", "()J", 2);
    CHECK_INT(new_class(p, h2, "planfx/late/Motor", got + 2, 6), 0);
    seeds[0] = got[0];
    seeds[1] = got[1];
    seeds[2].class_name = "planfx/late/Motor";
    seeds[2].name = "spin";
    seeds[2].desc = "(I)J";
    seeds[2].level = 3;
    na = extend(__LINE__, p, h2, seeds, 3, &added);
    expect_render(__LINE__, p, 18,
                  "2 I planfx/late/Oval.area()J\n"
                  "2 I planfx/late/PowerTool.use()J\n"
                  "3 I planfx/late/Gear.deep(I)J\n");
    CHECK_INT(na, 1);
    CHECK(added != NULL && added_is_tail(p, added, na, 20));
    free(added);
    CHECK_INT(hier_dir_bytes_asked(h2, "planfx/late/Motor"), 0);
    hier_dir_free(h2);
    plan_free(p);
}

/* The depth bounds the extension: deeper, callees of level 3 are scanned
 * (an existing entry reached deeper keeps its level); at depth 2 only the
 * seeds' resolution adds (Widget.run is Gadget.run). */
static void test_late_depth(void)
{
    hier_dir *h0 = load(hide_late), *h1 = load(hide_later);
    plan_request r = req_of("planfx.late.Front", "serve", 4, LATE);
    plan *p = build(h0, &r);
    plan_seed seeds[16];
    size_t n, na, *added = NULL;

    expect_render(__LINE__, p, 0, PLAN_LATE);
    n = pending_seeds(p, seeds, 0, 16);
    n += new_class(p, h1, "planfx/late/Circle", seeds + n, 16 - n);
    na = extend(__LINE__, p, h1, seeds, n, &added);
    expect_render(__LINE__, p, 10,
                  "2 I planfx/late/Circle.area()J\n"
                  "2 I planfx/late/Gadget.run()J\n"
                  "3 X planfx/util/Log.info(Ljava/lang/String;)V: does not match the regex\n"
                  "3 I planfx/late/Gear.turn(I)J\n"
                  "3 P planfx/late/Motor.spin(I)J\n"
                  "3 I planfx/late/Gadget.<init>()V\n"
                  "3 X java/lang/Object.<init>()V: does not match the regex\n"
                  "3 I planfx/late/Util.pi(J)J\n"
                  "4 I planfx/late/Gear.deep(I)J\n");
    CHECK_INT(na, 8);
    free(added);
    CHECK_INT(hier_dir_bytes_asked(h1, "planfx/late/Gear"), 1);
    CHECK_INT(hier_dir_bytes_asked(h1, "planfx/late/Util"), 1);
    plan_free(p);

    r.depth = 2;
    p = build(h0, &r);
    expect_render(__LINE__, p, 0,
                  "1 I planfx/late/Front.serve(Lplanfx/late/Shape;Ljava/lang/Object;I)J root\n"
                  "2 X planfx/late/Shape.area()J: abstract: its implementations are traced\n"
                  "2 I planfx/late/Square.area()J\n"
                  "2 P planfx/late/Engine.start(I)J\n"
                  "2 P planfx/late/Widget.<init>()V\n"
                  "2 P planfx/late/Widget.run()J\n"
                  "2 P planfx/late/Tool.<init>()V\n"
                  "2 P planfx/late/Tool.use()J\n"
                  "2 X java/lang/Object.hashCode()I: does not match the regex\n");
    n = pending_seeds(p, seeds, 0, 16);
    n += new_class(p, h1, "planfx/late/Circle", seeds + n, 16 - n);
    CHECK_INT(n, 6);
    na = extend(__LINE__, p, h1, seeds, n, &added);
    expect_render(__LINE__, p, 9,
                  "2 I planfx/late/Circle.area()J\n"
                  "2 I planfx/late/Gadget.run()J\n");
    CHECK_INT(na, 1);
    CHECK(added != NULL && added[0] == 10);
    free(added);
    plan_free(p);
    hier_dir_free(h0);
    hier_dir_free(h1);
}

/* The regex and the JDK rule apply to what the extension finds. */
static void test_late_rules(void)
{
    hier_dir *h0 = load(hide_late), *h1 = load(hide_later);
    plan_request r = req_of("planfx.late.Front", "serve", 3,
                            "planfx\\.late\\.(Front|Shape|Square|Engine|Util)");
    plan *p = build(h0, &r);
    plan_seed seeds[16];
    size_t n, na, *added = NULL;

    expect_render(__LINE__, p, 0,
                  "1 I planfx/late/Front.serve(Lplanfx/late/Shape;Ljava/lang/Object;I)J root\n"
                  "2 X planfx/late/Shape.area()J: abstract: its implementations are traced\n"
                  "2 I planfx/late/Square.area()J\n"
                  "2 P planfx/late/Engine.start(I)J\n"
                  "2 X planfx/late/Widget.<init>()V: does not match the regex\n"
                  "2 X planfx/late/Widget.run()J: does not match the regex\n"
                  "2 X planfx/late/Tool.<init>()V: does not match the regex\n"
                  "2 X planfx/late/Tool.use()J: does not match the regex\n"
                  "2 X java/lang/Object.hashCode()I: does not match the regex\n"
                  "3 I planfx/late/Util.sq(J)J\n");
    /* Circle does not match: not returned. */
    CHECK_INT(new_class(p, h1, "planfx/late/Circle", seeds, 16), 0);
    n = pending_seeds(p, seeds, 0, 16);
    CHECK_INT(n, 1);
    na = extend(__LINE__, p, h1, seeds, n, &added);
    expect_render(__LINE__, p, 10,
                  "3 X planfx/util/Log.info(Ljava/lang/String;)V: does not match the regex\n"
                  "3 X planfx/late/Gear.turn(I)J: does not match the regex\n"
                  "3 X planfx/late/Motor.spin(I)J: does not match the regex\n");
    CHECK_INT(na, 3);
    free(added);
    plan_free(p);

    /* Without a regex, the JDK rule (by loader, as plan_build): Log.info's
     * println. */
    r = req_of("planfx.late.Front", "serve", 4, NULL);
    p = build(h0, &r);
    n = pending_seeds(p, seeds, 0, 16);
    na = extend(__LINE__, p, h1, seeds, n, &added);
    {
        char *got = render_from(p, plan_count(p) - na);

        CHECK(strstr(got, "3 I planfx/util/Log.info(Ljava/lang/String;)V\n") != NULL);
        CHECK(strstr(got, "4 X java/io/PrintStream.println(Ljava/lang/String;)V: JDK class (add "
                          "--include-jdk)\n") != NULL);
        free(got);
    }
    free(added);
    plan_free(p);
    hier_dir_free(h0);
    hier_dir_free(h1);
}

/* Seeds whose class the hierarchy does not have yet wait for a later call,
 * and are dropped after PLAN_SEED_TRIES calls; bad seeds are refused. */
static void test_late_deferred(void)
{
    hier_dir *h0 = load(hide_late), *h1 = load(hide_later);
    plan_request r = req_of("planfx.late.Front", "serve", 3, LATE);
    plan *p = build(h0, &r);
    plan_seed s = {"planfx/late/Engine", "start", "(I)J", 2, 0};
    size_t na, *added = NULL, i, n_added;
    mct_err err;

    na = extend(__LINE__, p, h0, &s, 1, &added);
    CHECK_INT(na, 0);
    CHECK_INT(plan_deferred(p), 1);
    na = extend(__LINE__, p, h1, NULL, 0, &added);
    CHECK_INT(plan_deferred(p), 0);
    expect_render(__LINE__, p, 10,
                  "3 X planfx/util/Log.info(Ljava/lang/String;)V: does not match the regex\n"
                  "3 I planfx/late/Gear.turn(I)J\n"
                  "3 P planfx/late/Motor.spin(I)J\n");
    CHECK_INT(na, 3);
    free(added);
    plan_free(p);

    p = build(h0, &r);
    for (i = 0; i < PLAN_SEED_TRIES; i++) {
        CHECK_INT(plan_deferred(p), i == 0 ? 0 : 1);
        extend(__LINE__, p, h0, i == 0 ? &s : NULL, i == 0, &added);
        free(added);
    }
    CHECK_INT(plan_deferred(p), 0);
    extend(__LINE__, p, h1, NULL, 0, &added);
    CHECK_INT(plan_count(p), 10);
    free(added);

    s.level = 4;
    CHECK_INT(plan_extend(p, &s, 1, &hier_dir_ops, h1, &added, &n_added, &err), -1);
    CHECK_INT(err.code, MCT_E_ARG);
    CHECK(added == NULL && n_added == 0);
    s.level = 0;
    CHECK_INT(plan_extend(p, &s, 1, &hier_dir_ops, h1, &added, &n_added, &err), -1);
    CHECK_INT(plan_deferred(p), 0);
    plan_free(p);
    hier_dir_free(h0);
    hier_dir_free(h1);
}

/* What plan_new_class returns, class by class (made-up classes: only their
 * names, supertypes and declared methods matter). */
static void test_new_class(void)
{
    hier_dir *h0 = load(hide_late);
    plan_request r = req_of("planfx.late.Front", "serve", 3, LATE);
    plan *p = build(h0, &r);
    plan_seed out[8];
    size_t n, count;
    hier_method two[3] = {
        {"area", "()J", CF_ACC_PUBLIC}, {"hashCode", "()I", CF_ACC_PUBLIC}, {"use", "()J", CF_ACC_PUBLIC}};
    const char *shape[1] = {"planfx/late/Shape"};
    const int P = CF_ACC_PUBLIC;

    /* A subclass of Square that does not override, then its subclass that
     * does. */
    CHECK_INT(new_synth(p, "planfx/late/Blob", "planfx/late/Square", NULL, "<init>", "()V", P, out), 0);
    CHECK_INT(new_synth(p, "planfx/late/SubBlob", "planfx/late/Blob", NULL, "area", "()J", P, out), 1);
    expect_seed(__LINE__, p, &out[0], "planfx/late/SubBlob", "area", "()J", 2);
    /* Outside the regex: not returned, but its subclass is found. */
    CHECK_INT(new_synth(p, "planfx/other/Hex", "java/lang/Object", shape[0], "area", "()J", P, out), 0);
    CHECK_INT(new_synth(p, "planfx/late/HexKid", "planfx/other/Hex", NULL, "area", "()J", P, out), 1);
    expect_seed(__LINE__, p, &out[0], "planfx/late/HexKid", "area", "()J", 2);
    /* JDK by name, the tracer's own. */
    CHECK_INT(new_synth(p, "java/util/Shapely", "java/lang/Object", shape[0], "area", "()J", P, out), 0);
    CHECK_INT(new_synth(p, "mcalltree/Shapely", "java/lang/Object", shape[0], "area", "()J", P, out), 0);
    /* Not an implementation JVM selection runs. */
    CHECK_INT(new_synth(p, "planfx/late/S1", "java/lang/Object", shape[0], "area", "()J",
                        P | CF_ACC_STATIC, out), 0);
    CHECK_INT(new_synth(p, "planfx/late/S2", "java/lang/Object", shape[0], "area", "()J",
                        P | CF_ACC_ABSTRACT, out), 0);
    CHECK_INT(new_synth(p, "planfx/late/S3", "java/lang/Object", shape[0], "area", "()J",
                        CF_ACC_PRIVATE, out), 0);
    CHECK_INT(new_synth(p, "planfx/late/S4", "java/lang/Object", shape[0], "area", "()J",
                        P | CF_ACC_NATIVE, out), 0);
    CHECK_INT(new_synth(p, "planfx/late/S5", "java/lang/Object", shape[0], "area", "(I)J", P, out), 0);
    CHECK_INT(new_synth(p, "planfx/late/S6", "java/lang/Object", shape[0], "size", "()J", P, out), 0);
    /* Not a subtype of a planned site's class. */
    CHECK_INT(new_synth(p, "planfx/late/Lone", "java/lang/Object", NULL, "area", "()J", P, out), 0);
    CHECK_INT(new_synth(p, "planfx/late/Lone2", "planfx/late/Gadget", NULL, "use", "()J", P, out), 0);
    /* Sites on java/lang/Object reach every class. */
    CHECK_INT(new_synth(p, "planfx/late/Hashy", "java/lang/Object", NULL, "hashCode", "()I", P, out), 1);
    expect_seed(__LINE__, p, &out[0], "planfx/late/Hashy", "hashCode", "()I", 2);
    CHECK_INT(new_synth(p, "planfx/other/Hashy", "java/lang/Object", NULL, "hashCode", "()I", P, out), 0);
    /* An interface extending Shape with a default method. */
    CHECK_INT(new_synth(p, "planfx/late/Shape2", "java/lang/Object", shape[0], "area", "()J", P, out), 1);
    /* Subclasses of pending classes whose methods are called virtually
     * (Tool.use) or are inherited (Widget.run). */
    CHECK_INT(new_synth(p, "planfx/late/Gizmo", "planfx/late/Widget", NULL, "run", "()J", P, out), 1);
    expect_seed(__LINE__, p, &out[0], "planfx/late/Gizmo", "run", "()J", 2);
    /* Several methods of one class, max respected. */
    count = plan_count(p);
    CHECK_INT(plan_new_class(p, "planfx/late/Multi", "planfx/late/Tool", shape, 1, two, 3, out, 2, &n), 0);
    CHECK_INT(n, 2);
    CHECK_INT(plan_count(p), count + 2);
    if (n == 2) {
        expect_seed(__LINE__, p, &out[0], "planfx/late/Multi", "area", "()J", 2);
        expect_seed(__LINE__, p, &out[1], "planfx/late/Multi", "hashCode", "()I", 2);
        CHECK_INT(out[1].index, count + 1);
    }
    CHECK_INT(plan_new_class(p, "planfx/late/Multi", "planfx/late/Tool", shape, 1, two, 3, out, 8, &n), 0);
    CHECK_INT(n, 1);
    expect_seed(__LINE__, p, &out[0], "planfx/late/Multi", "use", "()J", 2);
    CHECK_INT(plan_new_class(p, NULL, NULL, NULL, 0, NULL, 0, out, 8, &n), 0);
    CHECK_INT(n, 0);
    plan_free(p);

    /* --include-jdk and a regex matching java.util. */
    r = req_of("planfx.late.Front", "serve", 3, "planfx\\.late\\..*|java\\.util\\..*");
    r.include_jdk = 1;
    p = build(h0, &r);
    CHECK_INT(new_synth(p, "java/util/Shapely", "java/lang/Object", shape[0], "area", "()J", P, out), 1);
    CHECK_INT(new_synth(p, "mcalltree/Shapely", "java/lang/Object", shape[0], "area", "()J", P, out), 0);
    CHECK_INT(new_synth(p, "java/lang/Shapely", "java/lang/Object", shape[0], "area", "()J", P, out), 0);
    plan_free(p);

    /* The cap holds. */
    r = req_of("planfx.late.Front", "serve", 3, LATE);
    r.max_methods = 10;
    p = build(h0, &r);
    CHECK_INT(plan_capped(p), 0);
    CHECK_INT(new_synth(p, "planfx/late/SubBlob", "planfx/late/Square", NULL, "area", "()J", P, out), 0);
    CHECK_INT(plan_count(p), 10);
    CHECK_INT(plan_capped(p), 1);
    plan_free(p);
    hier_dir_free(h0);
}

/* Implementations of an abstract entry method that load later are entry
 * methods: no regex, still the JDK rule. */
static void test_new_class_roots(void)
{
    hier_dir *h0 = load(hide_late), *h1 = load(hide_later);
    plan_request r = req_of("planfx.late.Shape", "area", 2, LATE);
    plan *p = build(h0, &r);
    plan_seed out[8];
    size_t na, *added = NULL;
    const int P = CF_ACC_PUBLIC;
    const char *shape = "planfx/late/Shape";

    expect_render(__LINE__, p, 0,
                  "1 X planfx/late/Shape.area()J root: abstract: its implementations are traced\n"
                  "1 I planfx/late/Square.area()J root: entry method, an implementation of the one named\n"
                  "2 I planfx/late/Util.sq(J)J\n");
    CHECK_INT(new_class(p, h1, "planfx/late/Circle", out, 8), 1);
    expect_seed(__LINE__, p, &out[0], "planfx/late/Circle", "area", "()J", 1);
    CHECK_INT(plan_at(p, out[0].index)->root, 1);
    na = extend(__LINE__, p, h1, out, 1, &added);
    CHECK_INT(na, 1);
    free(added);
    expect_render(__LINE__, p, 3,
                  "1 I planfx/late/Circle.area()J root: entry method, an implementation of the one named\n"
                  "2 I planfx/late/Util.pi(J)J\n");
    CHECK_INT(new_synth(p, "planfx/other/Hex", "java/lang/Object", shape, "area", "()J", P, out), 1);
    expect_seed(__LINE__, p, &out[0], "planfx/other/Hex", "area", "()J", 1);
    CHECK_INT(new_synth(p, "java/util/Hex", "java/lang/Object", shape, "area", "()J", P, out), 0);
    plan_free(p);
    hier_dir_free(h0);
    hier_dir_free(h1);
}

/* The class file hook runs while plan_extend reads class bytes (a
 * retransformation): plan_new_class must not wait for plan_extend then.
 * It runs on another thread here so that a lock held would show as a
 * timeout, not as a hung test. */
struct hook_run {
    plan *p;
    hier_dir *h;
    plan_seed out[4];
    size_t n;
    int calls;
};

static void *hook_thread(void *arg)
{
    struct hook_run *hr = arg;

    hr->n = new_class(hr->p, hr->h, "planfx/late/PowerTool", hr->out, 4);
    return NULL;
}

static void hook_in_bytes(void *arg, const char *name)
{
    struct hook_run *hr = arg;
    pthread_t t;
    struct timespec until;

    if (hr->calls++ != 0)
        return;
    if (pthread_create(&t, NULL, hook_thread, hr) != 0) {
        fprintf(stderr, "pthread_create failed\n");
        exit(1);
    }
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 20;
    if (pthread_timedjoin_np(t, NULL, &until) != 0) {
        fprintf(stderr, "plan_new_class waited for plan_extend reading bytes of %s\n", name);
        exit(1);
    }
}

static void test_late_hook(void)
{
    const char *hide[] = {"planfx/late/PowerTool", "planfx/late/Oval", NULL};
    hier_dir *h0 = load(hide_late), *h1 = load(hide), *h2 = load(NULL);
    plan_request r = req_of("planfx.late.Front", "serve", 3, LATE);
    plan *p = build(h0, &r);
    plan_seed seeds[16];
    struct hook_run hr;
    size_t n, na, *added = NULL;
    const size_t want[] = {10, 12, 13, 14, 15, 16};

    /* PowerTool loads while plan_extend reads Engine's bytes from h1. */
    memset(&hr, 0, sizeof hr);
    hr.p = p;
    hr.h = h2;
    hier_dir_on_bytes(h1, hook_in_bytes, &hr);
    n = pending_seeds(p, seeds, 0, 16);
    na = extend(__LINE__, p, h1, seeds, n, &added);
    hier_dir_on_bytes(h1, NULL, NULL);
    CHECK_INT(hr.n, 1);
    CHECK_INT(hr.out[0].index, 11);
    /* Gadget.run came from resolving the seeds, before any bytes were read;
     * the hook's entry is not in plan_extend's list. */
    expect_render(__LINE__, p, 10,
                  "2 I planfx/late/Gadget.run()J\n"
                  "2 I planfx/late/PowerTool.use()J\n"
                  "3 X planfx/util/Log.info(Ljava/lang/String;)V: does not match the regex\n"
                  "3 I planfx/late/Gear.turn(I)J\n"
                  "3 I planfx/late/Motor.spin(I)J\n"
                  "3 I planfx/late/Gadget.<init>()V\n"
                  "3 X java/lang/Object.<init>()V: does not match the regex\n");
    CHECK_INT(na, 6);
    CHECK(added != NULL && memcmp(added, want, sizeof want) == 0);
    free(added);
    /* Its own extension, as the session would do next. */
    na = extend(__LINE__, p, h2, hr.out, 1, &added);
    expect_render(__LINE__, p, 17, "3 I planfx/late/Gear.deep(I)J\n");
    CHECK_INT(na, 1);
    free(added);
    plan_free(p);
    hier_dir_free(h0);
    hier_dir_free(h1);
    hier_dir_free(h2);
}

/* plan_new_class and plan_at on one thread while plan_extend runs on
 * another: whatever the interleaving, every method is in the plan once, the
 * extension appends what it would alone, and the reader sees complete
 * entries. */
struct racer {
    plan *p;
    int bad;
    size_t returned;
};

static void *race_thread(void *arg)
{
    struct racer *rc = arg;
    plan_seed out[4];
    size_t k, i;

    for (k = 0; k < 300; k++) {
        char name[64];
        hier_method m = {"area", "()J", CF_ACC_PUBLIC};
        const char *ifs[1] = {"planfx/late/Shape"};
        size_t n;

        snprintf(name, sizeof name, "planfx/late/Racer%zu", k);
        if (plan_new_class(rc->p, name, "java/lang/Object", ifs, 1, &m, 1, out, 4, &n) < 0 || n != 1 ||
            strcmp(plan_at(rc->p, out[0].index)->class_name, name) != 0)
            rc->bad++;
        rc->returned += n;
        for (i = 0; i < plan_count(rc->p); i++) {
            const plan_method *pm = plan_at(rc->p, i);

            if (pm == NULL || pm->class_name == NULL || pm->name == NULL || pm->desc == NULL || pm->level < 1)
                rc->bad++;
        }
    }
    return NULL;
}

static void test_late_threads(void)
{
    hier_dir *h0 = load(hide_late), *h1 = load(hide_later);
    plan_request r = req_of("planfx.late.Front", "serve", 4, LATE);
    plan *p = build(h0, &r);
    plan_seed seeds[16];
    struct racer rc = {p, 0, 0};
    pthread_t t;
    size_t n, na, i, j, *added = NULL;
    char *got;

    n = pending_seeds(p, seeds, 0, 16);
    CHECK_INT(pthread_create(&t, NULL, race_thread, &rc), 0);
    na = extend(__LINE__, p, h1, seeds, n, &added);
    pthread_join(t, NULL);
    CHECK_INT(rc.bad, 0);
    CHECK_INT(rc.returned, 300);
    CHECK_INT(plan_count(p), 10 + 300 + na);
    /* What plan_extend appended, in its order, as without the racer. */
    got = malloc(4096);
    got[0] = '\0';
    for (i = 0; added != NULL && i < na; i++) {
        const plan_method *m = plan_at(p, added[i]);

        snprintf(got + strlen(got), 4096 - strlen(got), "%d %s.%s%s\n", m->level, m->class_name, m->name,
                 m->desc);
    }
    CHECK_STR(got, "2 planfx/late/Gadget.run()J\n"
                   "3 planfx/util/Log.info(Ljava/lang/String;)V\n"
                   "3 planfx/late/Gear.turn(I)J\n"
                   "3 planfx/late/Motor.spin(I)J\n"
                   "3 planfx/late/Gadget.<init>()V\n"
                   "3 java/lang/Object.<init>()V\n"
                   "4 planfx/late/Gear.deep(I)J\n");
    free(got);
    free(added);
    /* No method twice. */
    for (i = 0; i < plan_count(p); i++)
        for (j = i + 1; j < plan_count(p); j++) {
            const plan_method *a = plan_at(p, i), *b = plan_at(p, j);

            if (strcmp(a->class_name, b->class_name) == 0 && strcmp(a->name, b->name) == 0 &&
                strcmp(a->desc, b->desc) == 0) {
                fprintf(stderr, "%s.%s%s twice\n", a->class_name, a->name, a->desc);
                check_failures++;
            }
        }
    plan_free(p);
    hier_dir_free(h0);
    hier_dir_free(h1);
}

int main(void)
{
    const char *b = getenv("MCT_BUILDDIR"), *s = getenv("MCT_SRCDIR");
    char dir_cases[4200];

    if (b == NULL || s == NULL) {
        fprintf(stderr, "MCT_BUILDDIR or MCT_SRCDIR is not set: run through make check\n");
        return 77;
    }
    snprintf(dir_cases, sizeof dir_cases, "%s/tests/unit/plans", s);
    snprintf(dir_planfx, sizeof dir_planfx, "%s/tests/java/classes/planfx", b);
    snprintf(dir_tracer, sizeof dir_tracer, "%s/tests/java/classes/mcalltree", b);
    test_cases(dir_cases);
    test_fields();
    test_depth_and_bytes();
    test_regex_seen();
    test_receiver();
    test_jdk_scanned();
    test_pending();
    test_bounds();
    test_names();
    test_cap();
    test_late_pending();
    test_late_depth();
    test_late_rules();
    test_late_deferred();
    test_new_class();
    test_new_class_roots();
    test_late_hook();
    test_late_threads();
    return check_status();
}
