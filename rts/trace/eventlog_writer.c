/*
 * The two predefined writers (GHC's FileEventLogWriter and
 * NullEventLogWriter). The file writer's file is opened by its init
 * function, as GHC's: <prog>.eventlog, or the -ol file. State: `file`,
 * used only between the writer's init and stop, which the event log calls
 * once each; fwrite locks the stream, so concurrent block writes (the
 * flusher thread, a capability) do not interleave.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "Rts.h"
#include "flags/flags.h"
#include "hooks.h"
#include "messages.h"

static FILE *file;

static void file_init(void)
{
    const char *name = rts_flags.trace.eventlog_file;
    char *owned = NULL;
    if (name == NULL) {
        const char *prog = msg_prog_name();
        size_t n = strlen(prog) + sizeof ".eventlog";
        owned = hooks_malloc(n, "event log file name");
        snprintf(owned, n, "%s.eventlog", prog);
        name = owned;
    }
    file = fopen(name, "wb+");
    if (file == NULL) {
        msg_sys_error("initEventLogFileWriter: can't open %s", name);
        free(owned);
        msg_exit(EXIT_BADFLAGS);
    }
    free(owned);
}

static bool file_write(void *buf, size_t n)
{
    return file != NULL && fwrite(buf, 1, n, file) == n;
}

static void file_flush(void)
{
    if (file)
        fflush(file);
}

static void file_stop(void)
{
    if (file) {
        fclose(file);
        file = NULL;
    }
}

const EventLogWriter FileEventLogWriter = {
    .initEventLogWriter = file_init,
    .writeEventLog = file_write,
    .flushEventLog = file_flush,
    .stopEventLogWriter = file_stop,
};

static bool null_write(void *buf, size_t n)
{
    (void)buf;
    (void)n;
    return true;
}

const EventLogWriter NullEventLogWriter = {
    .initEventLogWriter = NULL,
    .writeEventLog = null_write,
    .flushEventLog = NULL,
    .stopEventLogWriter = NULL,
};
