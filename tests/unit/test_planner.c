/* test_planner.c — exact plans over the class files javac built from
 * tests/java/fixtures/plan (a small shop), through the directory hierarchy
 * of hier_dir.h: levels and depth, the regex and the JDK rule, virtual and
 * interface calls reaching their implementations, lambdas and method
 * references, entry resolution, pending classes, every refusal, the cap, and
 * which class bytes the planner asks for. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "classfile.h"
#include "hier_dir.h"
#include "planner.h"

#define SHOP "planfx\\.shop\\..*"

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

/* One line per entry: "level status class.name desc[ root][: reason]". */
static char *render(const plan *p)
{
    size_t i, cap = 1 << 16, n = 0;
    char *s = malloc(cap);

    s[0] = '\0';
    for (i = 0; i < plan_count(p); i++) {
        const plan_method *m = plan_at(p, i);
        const char *st = m->status == PLAN_INSTRUMENT ? "I" : m->status == PLAN_PENDING ? "P" : "X";

        n += (size_t)snprintf(s + n, cap - n, "%d %s %s.%s%s%s%s%s\n", m->level, st, m->class_name,
                              m->name, m->desc, m->root ? " root" : "", m->reason ? ": " : "",
                              m->reason ? m->reason : "");
    }
    return s;
}

/* Builds the plan of r and compares it with want (lines as render()). */
static void expect_plan(int line, hier_dir *h, const plan_request *r, const char *want)
{
    mct_err err;
    plan *p = plan_build(r, &hier_dir_ops, h, &err);
    char *got;

    if (p == NULL) {
        fprintf(stderr, "line %d: plan failed: %s: %s\n", line, mct_code_name(err.code), err.msg);
        check_failures++;
        return;
    }
    got = render(p);
    if (strcmp(got, want) != 0) {
        fprintf(stderr, "line %d: plan differs\n--- got:\n%s--- want:\n%s---\n", line, got, want);
        check_failures++;
    }
    free(got);
    plan_free(p);
}

/* Builds the plan of r expecting failure with code and every string of the
 * NULL-terminated list in the message. */
static void expect_error(int line, hier_dir *h, const plan_request *r, int code, ...)
{
    mct_err err;
    plan *p = plan_build(r, &hier_dir_ops, h, &err);
    va_list ap;
    const char *want;

    if (p != NULL) {
        char *got = render(p);

        fprintf(stderr, "line %d: plan succeeded, want %s:\n%s", line, mct_code_name(code), got);
        free(got);
        plan_free(p);
        check_failures++;
        return;
    }
    if (err.code != code) {
        fprintf(stderr, "line %d: %s (%s), want %s\n", line, mct_code_name(err.code), err.msg,
                mct_code_name(code));
        check_failures++;
    }
    va_start(ap, code);
    while ((want = va_arg(ap, const char *)) != NULL)
        if (strstr(err.msg, want) == NULL) {
            fprintf(stderr, "line %d: message \"%s\" lacks \"%s\"\n", line, err.msg, want);
            check_failures++;
        }
    va_end(ap);
}

/* Levels to a depth, loops, recursion, overloads, an inherited method, an
 * interface with implementations, an abstract class, a call through a
 * superclass reference, JDK calls, a class outside the regex. */
static void test_levels(void)
{
    hier_dir *h = load(NULL);
    plan_request r = req_of("planfx.shop.Checkout", "run", 5, SHOP);
    mct_err err;
    plan *p;
    const plan_method *m;

    expect_plan(__LINE__, h, &r,
                "1 I planfx/shop/Checkout.run([Ljava/lang/String;)J root\n"
                "1 I planfx/shop/Checkout.run(I)J root\n"
                "2 I planfx/shop/Cart.add(Ljava/lang/String;)V\n"
                "2 I planfx/shop/Cart.total(Lplanfx/shop/Discount;)J\n"
                "2 I planfx/shop/BaseService.audit(J)J\n"
                "2 I planfx/shop/Pricing.fib(I)J\n"
                "3 I planfx/shop/Item.parse(Ljava/lang/String;)Lplanfx/shop/Item;\n"
                "3 I planfx/shop/Cart.add(Lplanfx/shop/Item;)V\n"
                "3 X java/util/ArrayList.size()I: does not match the regex\n"
                "3 X java/util/ArrayList.get(I)Ljava/lang/Object;: does not match the regex\n"
                "3 I planfx/shop/Item.price()J\n"
                "3 I planfx/shop/GiftItem.price()J\n"
                "3 X planfx/shop/Discount.apply(J)J: abstract: its implementations are traced\n"
                "3 I planfx/shop/AbstractDiscount.apply(J)J\n"
                "3 I planfx/shop/FixedDiscount.apply(J)J\n"
                "3 X planfx/util/Log.info(Ljava/lang/String;)V: does not match the regex\n"
                "4 X java/lang/String.indexOf(I)I: does not match the regex\n"
                "4 X java/lang/String.substring(II)Ljava/lang/String;: does not match the regex\n"
                "4 X java/lang/String.substring(I)Ljava/lang/String;: does not match the regex\n"
                "4 X java/lang/Long.parseLong(Ljava/lang/String;)J: does not match the regex\n"
                "4 I planfx/shop/Item.<init>(Ljava/lang/String;JI)V\n"
                "4 X java/util/ArrayList.add(Ljava/lang/Object;)Z: does not match the regex\n"
                "4 X planfx/shop/AbstractDiscount.cut(J)J: abstract: its implementations are traced\n"
                "4 I planfx/shop/PercentDiscount.cut(J)J\n"
                "4 X java/lang/Math.max(JJ)J: does not match the regex\n"
                "5 X java/lang/Object.<init>()V: does not match the regex\n");

    /* The fields of the entries. */
    p = plan_build(&r, &hier_dir_ops, h, &err);
    CHECK(p != NULL);
    if (p != NULL) {
        CHECK_INT(plan_capped(p), 0);
        CHECK(plan_at(p, plan_count(p)) == NULL);
        m = plan_at(p, 0);
        CHECK(m->cls == hier_dir_ops.find(h, "planfx/shop/Checkout", NULL));
        CHECK_INT(m->access, CF_ACC_PUBLIC);
        CHECK_INT(m->root, 1);
        CHECK(m->reason == NULL);
        m = plan_at(p, 5);
        CHECK_STR(m->name, "fib");
        CHECK_INT(m->access, CF_ACC_STATIC);
        CHECK_INT(m->root, 0);
        m = plan_at(p, 12);
        CHECK_STR(m->class_name, "planfx/shop/Discount");
        CHECK_INT(m->access, CF_ACC_PUBLIC | CF_ACC_ABSTRACT);
        plan_free(p);
    }
    hier_dir_free(h);
}

/* Depth 1 is the entry method only and reads no class; each further level
 * reads (after announcing them) only the classes whose code is scanned. */
static void test_depth_and_bytes(void)
{
    hier_dir *h = load(NULL);
    plan_request r = req_of("planfx.shop.Checkout", "run", 1, SHOP);

    expect_plan(__LINE__, h, &r,
                "1 I planfx/shop/Checkout.run([Ljava/lang/String;)J root\n"
                "1 I planfx/shop/Checkout.run(I)J root\n");
    CHECK_INT(hier_dir_classes_read(h), 0);
    hier_dir_free(h);

    h = load(NULL);
    r.depth = 2;
    expect_plan(__LINE__, h, &r,
                "1 I planfx/shop/Checkout.run([Ljava/lang/String;)J root\n"
                "1 I planfx/shop/Checkout.run(I)J root\n"
                "2 I planfx/shop/Cart.add(Ljava/lang/String;)V\n"
                "2 I planfx/shop/Cart.total(Lplanfx/shop/Discount;)J\n"
                "2 I planfx/shop/BaseService.audit(J)J\n"
                "2 I planfx/shop/Pricing.fib(I)J\n");
    CHECK_INT(hier_dir_classes_read(h), 1);
    CHECK_INT(hier_dir_bytes_asked(h, "planfx/shop/Checkout"), 1);
    CHECK_INT(hier_dir_prefetched(h, "planfx/shop/Checkout"), 1);
    hier_dir_free(h);

    /* Depth 3 scans Checkout, Cart, BaseService, Pricing: not the classes of
     * level 3, nor excluded ones, nor the JDK. */
    h = load(NULL);
    r.depth = 3;
    {
        mct_err err;
        plan *p = plan_build(&r, &hier_dir_ops, h, &err);

        CHECK(p != NULL);
        plan_free(p);
    }
    CHECK_INT(hier_dir_classes_read(h), 4);
    CHECK_INT(hier_dir_bytes_asked(h, "planfx/shop/Cart"), 1);
    CHECK_INT(hier_dir_prefetched(h, "planfx/shop/Cart"), 1);
    CHECK_INT(hier_dir_bytes_asked(h, "planfx/shop/BaseService"), 1);
    CHECK_INT(hier_dir_bytes_asked(h, "planfx/shop/Pricing"), 1);
    CHECK_INT(hier_dir_bytes_asked(h, "planfx/shop/Item"), 0);
    CHECK_INT(hier_dir_bytes_asked(h, "planfx/util/Log"), 0);
    CHECK_INT(hier_dir_bytes_asked(h, "java/util/ArrayList"), 0);
    hier_dir_free(h);
}

/* The regex decides what is kept and descended into; never the entry. */
static void test_regex(void)
{
    hier_dir *h = load(NULL);
    plan_request r = req_of("planfx.shop.Checkout", "run([Ljava/lang/String;)J", 3, "planfx\\..*");

    /* planfx.util.Log now matches. */
    expect_plan(__LINE__, h, &r,
                "1 I planfx/shop/Checkout.run([Ljava/lang/String;)J root\n"
                "2 I planfx/shop/Cart.add(Ljava/lang/String;)V\n"
                "2 I planfx/shop/Cart.total(Lplanfx/shop/Discount;)J\n"
                "2 I planfx/shop/BaseService.audit(J)J\n"
                "2 I planfx/shop/Pricing.fib(I)J\n"
                "3 I planfx/shop/Item.parse(Ljava/lang/String;)Lplanfx/shop/Item;\n"
                "3 I planfx/shop/Cart.add(Lplanfx/shop/Item;)V\n"
                "3 X java/util/ArrayList.size()I: does not match the regex\n"
                "3 X java/util/ArrayList.get(I)Ljava/lang/Object;: does not match the regex\n"
                "3 I planfx/shop/Item.price()J\n"
                "3 I planfx/shop/GiftItem.price()J\n"
                "3 X planfx/shop/Discount.apply(J)J: abstract: its implementations are traced\n"
                "3 I planfx/shop/AbstractDiscount.apply(J)J\n"
                "3 I planfx/shop/FixedDiscount.apply(J)J\n"
                "3 I planfx/util/Log.info(Ljava/lang/String;)V\n");

    /* Only two classes: the rest is listed once, not descended into. */
    r = req_of("planfx.shop.Checkout", "run", 4, "planfx\\.shop\\.(Cart|Item)");
    expect_plan(__LINE__, h, &r,
                "1 I planfx/shop/Checkout.run([Ljava/lang/String;)J root\n"
                "1 I planfx/shop/Checkout.run(I)J root\n"
                "2 I planfx/shop/Cart.add(Ljava/lang/String;)V\n"
                "2 I planfx/shop/Cart.total(Lplanfx/shop/Discount;)J\n"
                "2 X planfx/shop/BaseService.audit(J)J: does not match the regex\n"
                "2 X planfx/shop/Pricing.fib(I)J: does not match the regex\n"
                "3 I planfx/shop/Item.parse(Ljava/lang/String;)Lplanfx/shop/Item;\n"
                "3 I planfx/shop/Cart.add(Lplanfx/shop/Item;)V\n"
                "3 X java/util/ArrayList.size()I: does not match the regex\n"
                "3 X java/util/ArrayList.get(I)Ljava/lang/Object;: does not match the regex\n"
                "3 I planfx/shop/Item.price()J\n"
                "3 X planfx/shop/Discount.apply(J)J: does not match the regex\n"
                "4 X java/lang/String.indexOf(I)I: does not match the regex\n"
                "4 X java/lang/String.substring(II)Ljava/lang/String;: does not match the regex\n"
                "4 X java/lang/String.substring(I)Ljava/lang/String;: does not match the regex\n"
                "4 X java/lang/Long.parseLong(Ljava/lang/String;)J: does not match the regex\n"
                "4 I planfx/shop/Item.<init>(Ljava/lang/String;JI)V\n"
                "4 X java/util/ArrayList.add(Ljava/lang/Object;)Z: does not match the regex\n");

    /* A regex nothing matches still traces the entry method. */
    r = req_of("planfx.shop.Pricing", "fib", 3, "nothing");
    expect_plan(__LINE__, h, &r, "1 I planfx/shop/Pricing.fib(I)J root\n");

    /* No regex: every class is kept (the JDK rule still applies). */
    r = req_of("planfx.shop.BaseService", "audit", 3, NULL);
    expect_plan(__LINE__, h, &r,
                "1 I planfx/shop/BaseService.audit(J)J root\n"
                "2 I planfx/util/Log.info(Ljava/lang/String;)V\n"
                "3 X java/io/PrintStream.println(Ljava/lang/String;)V: JDK class (add --include-jdk)\n");
    hier_dir_free(h);
}

/* Virtual and interface calls reach the implementations JVM selection
 * picks in loaded subtypes; only kept implementations are listed. */
static void test_virtual(void)
{
    hier_dir *h = load(NULL);
    plan_request r = req_of("planfx.shop.Cart", "describe", 2, SHOP);

    /* A call on java/lang/Object reaches the one override in the shop. */
    expect_plan(__LINE__, h, &r,
                "1 I planfx/shop/Cart.describe(Ljava/lang/Object;)Ljava/lang/String; root\n"
                "2 X java/lang/Object.toString()Ljava/lang/String;: does not match the regex\n"
                "2 I planfx/shop/Item.toString()Ljava/lang/String;\n");

    /* Default methods: the maximally specific one (Person), a superclass
     * method outside the interface's subtypes that wins over a default
     * (Parrot gets Talker.greet), a re-abstracted method (Mute), and the
     * default itself (Robot). */
    r = req_of("planfx.shop.Defaults", "run", 2, SHOP);
    expect_plan(__LINE__, h, &r,
                "1 I planfx/shop/Defaults.run(Lplanfx/shop/Greeter;)Ljava/lang/String; root\n"
                "2 I planfx/shop/Greeter.greet()Ljava/lang/String;\n"
                "2 I planfx/shop/Mute.greet()Ljava/lang/String;\n"
                "2 I planfx/shop/Talker.greet()Ljava/lang/String;\n"
                "2 I planfx/shop/LoudGreeter.greet()Ljava/lang/String;\n");

    /* A default method calling an abstract one; a static interface method. */
    r = req_of("planfx.shop.Discount", "label", 2, SHOP);
    expect_plan(__LINE__, h, &r,
                "1 I planfx/shop/Discount.label()Ljava/lang/String; root\n"
                "1 I planfx/shop/FixedDiscount.label()Ljava/lang/String; root: entry method, an "
                "implementation of the one named\n"
                "2 X planfx/shop/Discount.name()Ljava/lang/String;: abstract: its implementations are "
                "traced\n"
                "2 I planfx/shop/AbstractDiscount.name()Ljava/lang/String;\n"
                "2 I planfx/shop/FixedDiscount.name()Ljava/lang/String;\n"
                "2 X java/lang/String.toUpperCase()Ljava/lang/String;: does not match the regex\n");
    r = req_of("planfx.shop.Defaults", "pick", 3, SHOP);
    expect_plan(__LINE__, h, &r,
                "1 I planfx/shop/Defaults.pick()Lplanfx/shop/Discount; root\n"
                "2 I planfx/shop/Discount.none()Lplanfx/shop/Discount;\n"
                "3 I planfx/shop/FixedDiscount.<init>(J)V\n");
    hier_dir_free(h);
}

/* Lambdas and method references: static, bound, unbound, constructor
 * references, and a lambda body; JDK ones listed. */
static void test_lambdas(void)
{
    hier_dir *h = load(NULL);
    plan_request r = req_of("planfx.shop.Orders", "report", 4, SHOP);

    expect_plan(__LINE__, h, &r,
                "1 I planfx/shop/Orders.report(Ljava/util/List;)J root\n"
                "2 X java/util/List.stream()Ljava/util/stream/Stream;: does not match the regex\n"
                "2 I planfx/shop/Item.parse(Ljava/lang/String;)Lplanfx/shop/Item;\n"
                "2 X java/util/stream/Stream.map(Ljava/util/function/Function;)Ljava/util/stream/Stream;: "
                "does not match the regex\n"
                "2 X java/util/Objects.requireNonNull(Ljava/lang/Object;)Ljava/lang/Object;: does not "
                "match the regex\n"
                "2 X java/util/List.add(Ljava/lang/Object;)Z: does not match the regex\n"
                "2 X java/util/stream/Stream.forEach(Ljava/util/function/Consumer;)V: does not match the "
                "regex\n"
                "2 I planfx/shop/Auditor.record(Lplanfx/shop/Item;)V\n"
                "2 X java/util/List.forEach(Ljava/util/function/Consumer;)V: does not match the regex\n"
                "2 I planfx/shop/GiftItem.<init>(Ljava/lang/String;)V\n"
                "2 X java/util/stream/Collectors.toList()Ljava/util/stream/Collector;: does not match the "
                "regex\n"
                "2 X java/util/stream/Stream.collect(Ljava/util/stream/Collector;)Ljava/lang/Object;: does "
                "not match the regex\n"
                "2 I planfx/shop/Orders.lambda$report$0(Lplanfx/shop/Item;)Z\n"
                "2 X java/util/stream/Stream.filter(Ljava/util/function/Predicate;)Ljava/util/stream/"
                "Stream;: does not match the regex\n"
                "2 X java/util/stream/Stream.count()J: does not match the regex\n"
                "2 I planfx/shop/Item.price()J\n"
                "2 I planfx/shop/GiftItem.price()J\n"
                "2 X java/util/stream/Stream.mapToLong(Ljava/util/function/ToLongFunction;)Ljava/util/"
                "stream/LongStream;: does not match the regex\n"
                "2 X java/util/stream/LongStream.sum()J: does not match the regex\n"
                "2 X java/util/List.size()I: does not match the regex\n"
                "3 X java/lang/String.indexOf(I)I: does not match the regex\n"
                "3 X java/lang/String.substring(II)Ljava/lang/String;: does not match the regex\n"
                "3 X java/lang/String.substring(I)Ljava/lang/String;: does not match the regex\n"
                "3 X java/lang/Long.parseLong(Ljava/lang/String;)J: does not match the regex\n"
                "3 I planfx/shop/Item.<init>(Ljava/lang/String;JI)V\n"
                "4 X java/lang/Object.<init>()V: does not match the regex\n");
    hier_dir_free(h);
}

/* Entry methods: overloads, one descriptor, inherited, default, abstract
 * (implementations become entries), constructors, nested classes. */
static void test_entries(void)
{
    hier_dir *h = load(NULL);
    plan_request r = req_of("planfx.shop.Cart", "add", 1, SHOP);

    expect_plan(__LINE__, h, &r,
                "1 I planfx/shop/Cart.add(Lplanfx/shop/Item;)V root\n"
                "1 I planfx/shop/Cart.add(Ljava/lang/String;)V root\n");
    r.desc = "(Ljava/lang/String;)V";
    expect_plan(__LINE__, h, &r, "1 I planfx/shop/Cart.add(Ljava/lang/String;)V root\n");
    r = req_of("planfx/shop/Cart", "add(Lplanfx/shop/Item;)V", 1, SHOP);
    expect_plan(__LINE__, h, &r, "1 I planfx/shop/Cart.add(Lplanfx/shop/Item;)V root\n");

    r = req_of("planfx.shop.Checkout", "audit", 2, SHOP);
    expect_plan(__LINE__, h, &r,
                "1 I planfx/shop/BaseService.audit(J)J root: entry method, inherited from a superclass\n"
                "2 X planfx/util/Log.info(Ljava/lang/String;)V: does not match the regex\n");
    r = req_of("planfx.shop.PercentDiscount", "label", 1, SHOP);
    expect_plan(__LINE__, h, &r,
                "1 I planfx/shop/Discount.label()Ljava/lang/String; root: entry method, a default "
                "method inherited from an interface\n");
    /* Inherited from the abstract superclass; static through a subclass. */
    r = req_of("planfx.shop.PercentDiscount", "apply", 1, SHOP);
    expect_plan(__LINE__, h, &r,
                "1 I planfx/shop/AbstractDiscount.apply(J)J root: entry method, inherited from a "
                "superclass\n");
    r = req_of("planfx.shop.GiftItem", "parse", 1, SHOP);
    expect_plan(__LINE__, h, &r,
                "1 I planfx/shop/Item.parse(Ljava/lang/String;)Lplanfx/shop/Item; root: entry method, "
                "inherited from a superclass\n");

    r = req_of("planfx.shop.Discount", "apply", 2, SHOP);
    expect_plan(__LINE__, h, &r,
                "1 X planfx/shop/Discount.apply(J)J root: abstract: its implementations are traced\n"
                "1 I planfx/shop/AbstractDiscount.apply(J)J root: entry method, an implementation of the "
                "one named\n"
                "1 I planfx/shop/FixedDiscount.apply(J)J root: entry method, an implementation of the one "
                "named\n"
                "2 X planfx/shop/AbstractDiscount.cut(J)J: abstract: its implementations are traced\n"
                "2 I planfx/shop/PercentDiscount.cut(J)J\n"
                "2 X java/lang/Math.max(JJ)J: does not match the regex\n");
    r = req_of("planfx.shop.AbstractDiscount", "cut", 1, "nothing");
    expect_plan(__LINE__, h, &r,
                "1 X planfx/shop/AbstractDiscount.cut(J)J root: abstract: its implementations are traced\n"
                "1 I planfx/shop/PercentDiscount.cut(J)J root: entry method, an implementation of the one "
                "named\n");
    r = req_of("planfx.shop.Greeter", "greet", 1, SHOP);
    expect_plan(__LINE__, h, &r,
                "1 I planfx/shop/Greeter.greet()Ljava/lang/String; root\n"
                "1 I planfx/shop/Mute.greet()Ljava/lang/String; root: entry method, an implementation of "
                "the one named\n"
                "1 I planfx/shop/Talker.greet()Ljava/lang/String; root: entry method, an implementation "
                "of the one named\n"
                "1 I planfx/shop/LoudGreeter.greet()Ljava/lang/String; root: entry method, an "
                "implementation of the one named\n");

    r = req_of("planfx.shop.Item", "<init>", 2, SHOP);
    expect_plan(__LINE__, h, &r,
                "1 I planfx/shop/Item.<init>(Ljava/lang/String;JI)V root\n"
                "2 X java/lang/Object.<init>()V: does not match the regex\n");
    r = req_of("planfx.shop.Cart$Line", "cents", 1, SHOP);
    expect_plan(__LINE__, h, &r, "1 I planfx/shop/Cart$Line.cents()J root\n");
    hier_dir_free(h);
}

/* --include-jdk, and what is never instrumented even then. */
static void test_jdk_and_never(void)
{
    hier_dir *h = load(NULL);
    plan_request r = req_of("planfx.shop.Native", "digest", 3, ".*");

    expect_plan(__LINE__, h, &r,
                "1 I planfx/shop/Native.digest(J)J root\n"
                "2 X planfx/shop/Native.checksum(J)J: native: no bytecode to instrument\n"
                "2 I planfx/shop/Hooks.seen()J\n"
                "3 X mcalltree/plantest/Hook.hit()V: tracer's own class\n"
                "3 X java/lang/Thread.currentThread()Ljava/lang/Thread;: JVM internals: a probe there "
                "could recurse into the tracer\n"
                "3 X java/lang/String.valueOf(I)Ljava/lang/String;: JDK class (add --include-jdk)\n"
                "3 X java/lang/String.length()I: JDK class (add --include-jdk)\n");
    r.include_jdk = 1;
    expect_plan(__LINE__, h, &r,
                "1 I planfx/shop/Native.digest(J)J root\n"
                "2 X planfx/shop/Native.checksum(J)J: native: no bytecode to instrument\n"
                "2 I planfx/shop/Hooks.seen()J\n"
                "3 X mcalltree/plantest/Hook.hit()V: tracer's own class\n"
                "3 X java/lang/Thread.currentThread()Ljava/lang/Thread;: JVM internals: a probe there "
                "could recurse into the tracer\n"
                "3 I java/lang/String.valueOf(I)Ljava/lang/String;\n"
                "3 I java/lang/String.length()I\n");
    /* JDK methods are scanned like any other (the stubs call nothing), and
     * java/lang/Object is JVM internals. */
    r = req_of("planfx.shop.Cart", "add", 4, "(planfx\\.shop|java\\.util|java\\.lang)\\..*");
    r.include_jdk = 1;
    expect_plan(__LINE__, h, &r,
                "1 I planfx/shop/Cart.add(Lplanfx/shop/Item;)V root\n"
                "1 I planfx/shop/Cart.add(Ljava/lang/String;)V root\n"
                "2 I java/util/ArrayList.add(Ljava/lang/Object;)Z\n"
                "2 I planfx/shop/Item.parse(Ljava/lang/String;)Lplanfx/shop/Item;\n"
                "3 I java/lang/String.indexOf(I)I\n"
                "3 I java/lang/String.substring(II)Ljava/lang/String;\n"
                "3 I java/lang/String.substring(I)Ljava/lang/String;\n"
                "3 I java/lang/Long.parseLong(Ljava/lang/String;)J\n"
                "3 I planfx/shop/Item.<init>(Ljava/lang/String;JI)V\n"
                "4 X java/lang/Object.<init>()V: JVM internals: a probe there could recurse into the "
                "tracer\n");
    CHECK_INT(hier_dir_bytes_asked(h, "java/util/ArrayList"), 1);

    /* An entry method in a JDK class is traced without --include-jdk. */
    r = req_of("java.util.ArrayList", "add", 1, SHOP);
    expect_plan(__LINE__, h, &r, "1 I java/util/ArrayList.add(Ljava/lang/Object;)Z root\n");

    /* Classes that cannot be retransformed: listed when resolved at a call
     * site, not listed as implementations. */
    hier_dir_add_flags(h, "planfx/shop/Item", HIER_UNMODIFIABLE);
    hier_dir_add_flags(h, "planfx/shop/FixedDiscount", HIER_UNMODIFIABLE);
    r = req_of("planfx.shop.Cart", "total", 2, SHOP);
    expect_plan(__LINE__, h, &r,
                "1 I planfx/shop/Cart.total(Lplanfx/shop/Discount;)J root\n"
                "2 X java/util/ArrayList.size()I: does not match the regex\n"
                "2 X java/util/ArrayList.get(I)Ljava/lang/Object;: does not match the regex\n"
                "2 X planfx/shop/Item.price()J: class cannot be retransformed\n"
                "2 I planfx/shop/GiftItem.price()J\n"
                "2 X planfx/shop/Discount.apply(J)J: abstract: its implementations are traced\n"
                "2 I planfx/shop/AbstractDiscount.apply(J)J\n");
    hier_dir_free(h);
}

/* Classes not loaded yet: pending when they would be kept. */
static void test_pending(void)
{
    const char *hide[] = {"planfx/shop/GiftItem", "planfx/util/Log", NULL};
    hier_dir *h = load(hide);
    plan_request r = req_of("planfx.shop.Orders", "report", 2, "planfx\\.shop\\.(Orders|Item|GiftItem)");

    expect_plan(__LINE__, h, &r,
                "1 I planfx/shop/Orders.report(Ljava/util/List;)J root\n"
                "2 X java/util/List.stream()Ljava/util/stream/Stream;: does not match the regex\n"
                "2 I planfx/shop/Item.parse(Ljava/lang/String;)Lplanfx/shop/Item;\n"
                "2 X java/util/stream/Stream.map(Ljava/util/function/Function;)Ljava/util/stream/Stream;: "
                "does not match the regex\n"
                "2 X java/util/Objects.requireNonNull(Ljava/lang/Object;)Ljava/lang/Object;: does not "
                "match the regex\n"
                "2 X java/util/List.add(Ljava/lang/Object;)Z: does not match the regex\n"
                "2 X java/util/stream/Stream.forEach(Ljava/util/function/Consumer;)V: does not match the "
                "regex\n"
                "2 X planfx/shop/Auditor.record(Lplanfx/shop/Item;)V: does not match the regex\n"
                "2 X java/util/List.forEach(Ljava/util/function/Consumer;)V: does not match the regex\n"
                "2 P planfx/shop/GiftItem.<init>(Ljava/lang/String;)V\n"
                "2 X java/util/stream/Collectors.toList()Ljava/util/stream/Collector;: does not match the "
                "regex\n"
                "2 X java/util/stream/Stream.collect(Ljava/util/stream/Collector;)Ljava/lang/Object;: does "
                "not match the regex\n"
                "2 I planfx/shop/Orders.lambda$report$0(Lplanfx/shop/Item;)Z\n"
                "2 X java/util/stream/Stream.filter(Ljava/util/function/Predicate;)Ljava/util/stream/"
                "Stream;: does not match the regex\n"
                "2 X java/util/stream/Stream.count()J: does not match the regex\n"
                "2 I planfx/shop/Item.price()J\n"
                "2 X java/util/stream/Stream.mapToLong(Ljava/util/function/ToLongFunction;)Ljava/util/"
                "stream/LongStream;: does not match the regex\n"
                "2 X java/util/stream/LongStream.sum()J: does not match the regex\n"
                "2 X java/util/List.size()I: does not match the regex\n");
    {
        mct_err err;
        plan *p = plan_build(&r, &hier_dir_ops, h, &err);
        size_t i;

        CHECK(p != NULL);
        for (i = 0; p != NULL && i < plan_count(p); i++) {
            const plan_method *m = plan_at(p, i);

            if (m->status == PLAN_PENDING) {
                CHECK(m->cls == NULL);
                CHECK_INT(m->access, 0);
                CHECK_INT(m->level, 2);
            }
        }
        plan_free(p);
    }
    /* By name: the regex, the JDK rule. */
    r = req_of("planfx.shop.BaseService", "audit", 2, "planfx\\..*");
    expect_plan(__LINE__, h, &r,
                "1 I planfx/shop/BaseService.audit(J)J root\n"
                "2 P planfx/util/Log.info(Ljava/lang/String;)V\n");
    r.regex = SHOP;
    expect_plan(__LINE__, h, &r,
                "1 I planfx/shop/BaseService.audit(J)J root\n"
                "2 X planfx/util/Log.info(Ljava/lang/String;)V: does not match the regex\n");
    hier_dir_free(h);
}

static void test_errors(void)
{
    const char *hide[] = {"planfx/shop/PercentDiscount", NULL};
    hier_dir *h = load(NULL);
    plan_request r = req_of("planfx.shop.Cart.Line", "cents", 2, SHOP);

    expect_error(__LINE__, h, &r, MCT_E_NO_CLASS, "class planfx.shop.Cart.Line is not loaded",
                 "classes load on first use", "did you mean planfx.shop.Cart$Line?", NULL);
    r.class_name = "planfx.shop.Nope";
    expect_error(__LINE__, h, &r, MCT_E_NO_CLASS, "planfx.shop.Nope is not loaded", NULL);
    r.class_name = "planfx.shop.Cart";
    r.method = "totl";
    expect_error(__LINE__, h, &r, MCT_E_NO_METHOD, "planfx.shop.Cart has no method totl",
                 "Did you mean total?", "Its methods: <init>, add, total, describe", NULL);
    r.method = "add(I)V";
    expect_error(__LINE__, h, &r, MCT_E_NO_METHOD, "has no method add(I)V",
                 "add has these descriptors: (Lplanfx/shop/Item;)V, (Ljava/lang/String;)V", NULL);
    r.method = "<clinit>";
    expect_error(__LINE__, h, &r, MCT_E_NO_METHOD, "has no method <clinit>", NULL);
    r.method = "total";
    r.regex = "planfx\\.(shop";
    expect_error(__LINE__, h, &r, MCT_E_BAD_REGEX, "invalid regex at offset 13: missing closing parenthesis",
                 "\n  planfx\\.(shop\n               ^", NULL);
    r.regex = SHOP;
    r.depth = 0;
    expect_error(__LINE__, h, &r, MCT_E_ARG, "depth 0 is outside 1..64", NULL);
    r.depth = 65;
    expect_error(__LINE__, h, &r, MCT_E_ARG, "depth 65", NULL);
    r.depth = 2;
    r.desc = "(L;)V";
    expect_error(__LINE__, h, &r, MCT_E_ARG, "'(L;)V' is not a method descriptor", NULL);
    r.desc = NULL;
    r.method = "";
    expect_error(__LINE__, h, &r, MCT_E_ARG, "a class and a method", NULL);

    /* Nothing instrumentable: native, tracer's own, JVM internals,
     * unmodifiable, an abstract method without implementations. */
    r = req_of("planfx.shop.Native", "checksum", 3, SHOP);
    expect_error(__LINE__, h, &r, MCT_E_NOTHING,
                 "nothing to instrument: planfx.shop.Native.checksum(J)J is native (it has no bytecode)",
                 NULL);
    r = req_of("mcalltree.plantest.Hook", "hit", 3, SHOP);
    expect_error(__LINE__, h, &r, MCT_E_NOTHING, "mcalltree.plantest.Hook.hit()V is tracer's own class",
                 NULL);
    r = req_of("java.lang.Thread", "currentThread", 3, SHOP);
    r.include_jdk = 1;
    expect_error(__LINE__, h, &r, MCT_E_NOTHING, "java.lang.Thread.currentThread()Ljava/lang/Thread; is JVM internals",
                 NULL);
    hier_dir_add_flags(h, "planfx/shop/Pricing", HIER_UNMODIFIABLE);
    r = req_of("planfx.shop.Pricing", "fib", 3, SHOP);
    expect_error(__LINE__, h, &r, MCT_E_NOTHING, "planfx.shop.Pricing.fib(I)J is class cannot be retransformed",
                 NULL);
    hier_dir_add_flags(h, "planfx/shop/PercentDiscount", HIER_UNMODIFIABLE);
    r = req_of("planfx.shop.AbstractDiscount", "cut", 3, SHOP);
    expect_error(__LINE__, h, &r, MCT_E_NOTHING, "AbstractDiscount.cut(J)J is abstract",
                 "none of its loaded implementations can be traced", "1 in classes that cannot be retransformed",
                 NULL);
    /* The hierarchy's failure to give bytes. */
    hier_dir_fail_bytes(h, "planfx/shop/Cart");
    r = req_of("planfx.shop.Checkout", "run", 3, SHOP);
    expect_error(__LINE__, h, &r, MCT_E_JVMTI, "while reading the class file of planfx/shop/Cart",
                 "GetClassFileBytes failed", NULL);
    hier_dir_free(h);

    h = load(hide);
    r = req_of("planfx.shop.AbstractDiscount", "cut", 3, SHOP);
    expect_error(__LINE__, h, &r, MCT_E_NOTHING, "but no loaded class implements it", NULL);
    hier_dir_free(h);
}

/* The cap keeps the lowest levels and says so. */
static void test_cap(void)
{
    hier_dir *h = load(NULL);
    plan_request r = req_of("planfx.shop.Checkout", "run", 5, SHOP);
    mct_err err;
    plan *p;

    r.max_methods = 4;
    expect_plan(__LINE__, h, &r,
                "1 I planfx/shop/Checkout.run([Ljava/lang/String;)J root\n"
                "1 I planfx/shop/Checkout.run(I)J root\n"
                "2 I planfx/shop/Cart.add(Ljava/lang/String;)V\n"
                "2 I planfx/shop/Cart.total(Lplanfx/shop/Discount;)J\n");
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

int main(void)
{
    const char *b = getenv("MCT_BUILDDIR");

    if (b == NULL) {
        fprintf(stderr, "MCT_BUILDDIR is not set: run through make check\n");
        return 77;
    }
    snprintf(dir_planfx, sizeof dir_planfx, "%s/tests/java/classes/planfx", b);
    snprintf(dir_tracer, sizeof dir_tracer, "%s/tests/java/classes/mcalltree", b);
    test_levels();
    test_depth_and_bytes();
    test_regex();
    test_virtual();
    test_lambdas();
    test_entries();
    test_jdk_and_never();
    test_pending();
    test_errors();
    test_cap();
    return check_status();
}
