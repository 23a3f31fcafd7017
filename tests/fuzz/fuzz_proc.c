/* fuzz_proc.c — the client's parsers of a target's /proc files on arbitrary
 * bytes: /proc/PID/status (proc_parse_status), the NUL-separated command line
 * (proc_cmdline_flag) and lines of /proc/PID/maps (proc_maps_line_is_libjvm).
 * The target's user chooses much of that text (its command line, its
 * process name). Nothing may crash or read out of bounds; a failure has a
 * message; a parsed status has a positive pid and a terminated name. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct proc_status st;
    char *text = malloc(size + 1);
    mct_err e;
    int flag;

    if (text == NULL)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    mct_err_clear(&e);
    if (proc_parse_status(text, &st, &e) < 0) {
        if (e.code == MCT_OK || e.msg[0] == '\0')
            abort();
    } else if (st.nspid <= 0 || memchr(st.name, '\0', sizeof st.name) == NULL) {
        abort();
    }
    /* The command line is not NUL-terminated as read: data, not text. */
    flag = proc_cmdline_flag((const char *)data, size, "DisableAttachMechanism");
    if (flag < -1 || flag > 1)
        abort();
    for (char *line = text; line != NULL; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
        if (proc_maps_line_is_libjvm(line) > 1)
            abort();
    free(text);
    return 0;
}
