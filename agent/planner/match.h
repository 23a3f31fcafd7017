/* match.h — the user's class regex: a Java-style regular expression compiled
 * with PCRE2 and matched, like Java's String.matches, against the whole
 * binary name of a class ("com.shop.Cart$Line"). The planner and the session
 * (for classes that load later) share one compiled regex.
 *
 * Semantics: the pattern must match the entire name (anchored at both ends,
 * with backtracking, so "a|ab" matches "ab"). Names are given as internal
 * names in modified UTF-8, as the JVM stores them ("com/shop/Cart$Line");
 * slashes become dots, nested classes keep their '$', and the modified UTF-8
 * encodings of NUL and of supplementary characters are turned into UTF-8
 * before matching. Patterns are UTF-8 and match by code point.
 *
 * Java constructs that differ under PCRE2:
 *   - character class intersection and subtraction ("[a-z&&[^q]]") would be
 *     read literally by PCRE2: match_compile rejects "&&" inside a class;
 *   - \p{javaLowerCase}, \p{IsAlphabetic}, \p{InGreek}, \p{Alpha} (Java's
 *     POSIX names) and \uXXXX are not PCRE2 syntax: they fail to compile
 *     with PCRE2's message (\p{Lu}, \p{L}, \x{41} work in both);
 *   - (?U) is "ungreedy" in PCRE2, Unicode classes in Java: greediness never
 *     changes whether a whole name matches, but \w stays ASCII; likewise
 *     (?i) also folds non-ASCII letters in PCRE2, only ASCII ones in Java;
 *   - PCRE2 accepts more than Java does ([[:alpha:]], (?P<n>...), \K, ...).
 * None of these matter for the usual package patterns ("com\.shop\..*").
 *
 * Work: a pattern with nested quantifiers ("(.+)+[0-9]") backtracks
 * exponentially in the length of the name. Its work is counted in steps,
 * one each time the matcher moves to an item of the pattern (PCRE2's
 * auto-callouts; a name of 40 characters costs a usual pattern under 100
 * steps, about 25 ns each): one name may take MATCH_NAME_WORK of them, and
 * a caller may give a budget over many names (the planner's over a plan).
 * PCRE2's own match and depth limits stand behind the count. */
#ifndef MCT_MATCH_H
#define MCT_MATCH_H

#include <stdint.h>

#include "err.h"

typedef struct match_re match_re;

/* Compiles pattern (NUL-terminated UTF-8); returns the regex (free with
 * match_free) or NULL with err set: MCT_E_BAD_REGEX with PCRE2's message,
 * the offset and the pattern with a caret under that position, or
 * MCT_E_NOMEM. */
match_re *match_compile(const char *pattern, mct_err *err);

/* The steps one name may take (about 2.5 ms). */
#define MATCH_NAME_WORK 100000

/* What match_class returns besides 1 (matches) and 0 (does not). */
enum {
    MATCH_ERROR = -1,         /* out of memory */
    MATCH_NAME_LIMIT = -2,    /* the name took more than MATCH_NAME_WORK steps */
    MATCH_BUDGET_LIMIT = -3   /* the budget ran out */
};

/* Whether the class of internal name iname (modified UTF-8) matches: 1, 0,
 * or one of the codes above. Safe to call from several threads on one
 * regex. */
int match_class(const match_re *re, const char *iname);

/* As match_class, taking the steps from *budget (MATCH_BUDGET_LIMIT, the
 * match abandoned, when it runs out); budget is the caller's, not shared
 * between threads. */
int match_class_budget(const match_re *re, const char *iname, uint64_t *budget);

/* The pattern as given; borrowed, valid until match_free. */
const char *match_pattern(const match_re *re);

/* Frees the regex (NULL is fine). */
void match_free(match_re *re);

#endif
