/*
 * Facts about the running process.
 */
#ifndef RTS_OS_PROC_H
#define RTS_OS_PROC_H

/* The program's name as the OS knows it (basename), or NULL. */
const char *os_program_name(void);

#endif /* RTS_OS_PROC_H */
