/* exit.h — the exit statuses of mcalltree (SPEC §2), in one place. */
#ifndef MCT_EXIT_H
#define MCT_EXIT_H

enum mct_exit {
    MCT_EXIT_OK = 0,        /* done */
    MCT_EXIT_USAGE = 1,     /* the command line is wrong */
    MCT_EXIT_ATTACH = 2,    /* cannot attach to the JVM or connect to the agent */
    MCT_EXIT_REFUSED = 3,   /* the agent refused the request */
    MCT_EXIT_FAILOVER = 4,  /* a gate failed (--fail-over-ms, --max-calls, ...) or had no call */
    MCT_EXIT_INTERNAL = 5   /* internal or protocol error */
};

/* protocol/'s proto_code_exit gives these numbers for the agent's errors. */
_Static_assert(MCT_EXIT_ATTACH == 2 && MCT_EXIT_REFUSED == 3 && MCT_EXIT_INTERNAL == 5,
               "the exit statuses of PROTOCOL.md's error table");

#endif
