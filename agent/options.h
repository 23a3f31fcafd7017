/* options.h — the agent's options: the string after '=' in
 * -agentpath:libmcalltree.so=OPTIONS, or the third argument of the attach
 * `load` command. Comma-separated NAME or NAME=VALUE items, parsed by one
 * table in options.c; adding an option is one table row and one field. */
#ifndef MCT_OPTIONS_H
#define MCT_OPTIONS_H

#include "err.h"

struct agent_opts {
    int verbose;    /* log the agent's lifecycle on the JVM's stderr */
    /* Diagnostic, startup only: rewrite every method of the classes whose
     * names match this regex as they load, with probes that only count
     * (agent/diag.h); "" when off. The value cannot contain a comma. */
    char rewrite_all[512];
    /* The probes' clock: "auto" (or "", the default: the TSC where it is
     * invariant, else CLOCK_MONOTONIC) or "monotonic". Takes effect at the
     * agent's first load in a JVM. */
    char clock[16];
};

/* Parses s (NULL or "" gives the defaults) into *o; -1 with e set naming the
 * offending item and the known options. */
int opts_parse(const char *s, struct agent_opts *o, mct_err *e);

#endif
