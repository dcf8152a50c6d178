/*
 * Facts about the running process, on Linux/glibc. See os_proc.h.
 */
#include "os/os_proc.h"

#include <errno.h>

const char *os_program_name(void)
{
#ifdef __GLIBC__
    return program_invocation_short_name;
#else
    return NULL;
#endif
}
