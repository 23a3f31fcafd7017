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
 * None of these matter for the usual package patterns ("com\.shop\..*"). */
#ifndef MCT_MATCH_H
#define MCT_MATCH_H

#include "err.h"

typedef struct match_re match_re;

/* Compiles pattern (NUL-terminated UTF-8); returns the regex (free with
 * match_free) or NULL with err set: MCT_E_BAD_REGEX with PCRE2's message,
 * the offset and the pattern with a caret under that position, or
 * MCT_E_NOMEM. */
match_re *match_compile(const char *pattern, mct_err *err);

/* Whether the class of internal name iname (modified UTF-8) matches: 1 yes,
 * 0 no, -1 when PCRE2 gave up (match limit on a pathological pattern, out of
 * memory), which callers treat as no. Safe to call from several threads on
 * one regex. */
int match_class(const match_re *re, const char *iname);

/* The pattern as given; borrowed, valid until match_free. */
const char *match_pattern(const match_re *re);

/* Frees the regex (NULL is fine). */
void match_free(match_re *re);

#endif
