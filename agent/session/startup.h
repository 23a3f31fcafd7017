/* startup.h — a trace started with the JVM (the trace= option), with no
 * client: the agent is its own client. At VMInit it creates the output
 * file, asks the session module for a session over a socketpair exactly as
 * a client would (a `trace` request that waits for its entry class), and a
 * thread of its own writes every reply as one JSON line to the file: a
 * `start` line first, then the replies as a client gets them (`status`
 * only with verbose), and an `end` line last (with "entry_loaded":false
 * when the entry class never loaded). The file is created, never
 * overwritten (O_EXCL, O_NOFOLLOW, mode 0600). With a timing gate, count=
 * counts the calls it judges (replies_counts_judged): the writer counts
 * them and stops the session, which would count every call. */
#ifndef MCT_STARTUP_H
#define MCT_STARTUP_H

#include "options.h"

/* Starts the trace t once per JVM (later calls do nothing); verbose: the
 * `status` replies go to the file too. On the VMInit thread. A failure
 * (the file exists, no memory) is said on the JVM's stderr, and the JVM
 * runs untraced. */
void startup_begin(const struct agent_trace_opts *t, int verbose);

/* The JVM is dying (after session_vm_death told the session): waits at
 * most STARTUP_END_MS for the file's last line, then writes an `end` line
 * itself if none came, and closes the file. */
#define STARTUP_END_MS 2000
void startup_end(void);

#endif
