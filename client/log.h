/* log.h — the client's messages on stderr, each line prefixed with
 * "mcalltree: ", control characters replaced (fu_clean) since messages
 * quote text from the JVM; a message is one line, or goes on over more
 * where it says "\n  " (an indented continuation); stdout carries only the
 * requested output. */
#ifndef MCT_LOG_H
#define MCT_LOG_H

/* Turns the progress messages of log_verbose on (-v) or off. */
void log_set_verbose(int on);

/* Prints a progress message when -v was given. */
void log_verbose(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints an error message. */
void log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
