/* verdict.h — `mcalltree verdict FILE`: whether a startup trace's file is
 * the JVM's own and its gates passed, for a CI step or an init script to
 * act on; a file someone else wrote or could have changed fails it. */
#ifndef MCT_VERDICT_H
#define MCT_VERDICT_H

/* Runs `mcalltree verdict` (argv[0] is "verdict"); the exit status: 0 when
 * the gates passed in a file of the expected owner, 4 when they failed, 1
 * for a usage error, 5 when the file is not to be trusted or not complete
 * (each said on stderr). */
int verdict_main(int argc, char **argv);

#endif
