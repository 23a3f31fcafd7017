/* wrap.h — the wrap form:
 *
 *   mcalltree [OPTIONS] <class> <method> <depth> <regex> -- COMMAND [ARGS...]
 *
 * runs COMMAND with the agent loaded at the start of every JVM it starts:
 * JAVA_TOOL_OPTIONS (what was there, then one more word) names the agent
 * with a startup trace (README "Tracing from JVM start") whose file goes to
 * a private directory, one file per JVM (<pid>.ndjson). While COMMAND runs,
 * each file is read as it grows, every line checked (wrapline.h) and the
 * calls and summaries written through the output tagged with the JVM's pid
 * (output.h); each JVM's gates (gate.h) are judged on its calls or final
 * summary; stderr says which JVMs were traced and which were not. A JVM
 * that outlives COMMAND ends its trace when the directory is removed (the
 * agent notices its file gone).
 * SIGINT and SIGTERM sent to mcalltree by a process are forwarded to
 * COMMAND (one from the terminal reaches COMMAND itself); mcalltree ends
 * when COMMAND exits, and removes the directory. */
#ifndef MCT_WRAP_H
#define MCT_WRAP_H

#include "cli.h"
#include "err.h"

/* Runs the wrap form of command line c (mode CLI_WRAP); the exit status:
 * COMMAND's (128+N when signal N killed it, 127 when it is not found, 126
 * when it cannot be run); when that is 0, MCT_EXIT_USAGE when a gate names
 * a method a JVM's plan does not trace, else MCT_EXIT_FAILOVER when a gate
 * (judged per JVM) failed, else the status of the first trouble with a trace (5 when one
 * could not be read or written, the agent's error's status when it refused
 * one: 3 for an entry method that does not exist); MCT_EXIT_USAGE / MCT_EXIT_ATTACH / MCT_EXIT_INTERNAL before
 * COMMAND ran (no output file, no agent library, no private directory). */
int wrap_run(const struct cli *c);

/* The agent's option string for c, with out=<dir>/{pid}.ndjson: values
 * percent-encoded where the agent's syntax or JAVA_TOOL_OPTIONS would split
 * them (',', '%', '=', quotes, backslash, whitespace, and every byte
 * outside printable ASCII); the gates only when -n counts the calls they
 * judge (the agent's writer counts those). A new string (caller frees), or
 * NULL with e set. */
char *wrap_agent_options(const struct cli *c, const char *dir, mct_err *e);

/* The word for JAVA_TOOL_OPTIONS: -agentpath:<lib>=<options>, in double
 * quotes (single ones if lib has a double quote) when lib has whitespace,
 * which HotSpot's parser of the variable honours (JDK 9 and later). lib
 * must be absolute and hold no '=' (HotSpot splits the option there). A new
 * string, or NULL with e set (MCT_E_ARG naming what is wrong). */
char *wrap_agentpath(const char *lib, const char *options, mct_err *e);

/* old (NULL or empty: none) and word, separated by a space: a new string,
 * or NULL with e set. */
char *wrap_tool_options(const char *old, const char *word, mct_err *e);

#endif
