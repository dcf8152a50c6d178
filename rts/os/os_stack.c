/*
 * C stacks the runtime owns. See os_stack.h.
 */
#include "os/os_stack.h"

#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rts/Config.h"

#if defined(__SANITIZE_ADDRESS__)
#define HSRTS_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HSRTS_ASAN 1
#endif
#endif
#ifdef HSRTS_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define HSRTS_VALGRIND 1
#endif
#endif

static size_t page_size(void)
{
    static size_t ps;
    if (ps == 0)
        ps = (size_t)sysconf(_SC_PAGESIZE);
    return ps;
}

bool os_stack_reserve(OsStack *s, size_t bytes, size_t min_bytes)
{
    size_t ps = page_size();
    size_t guard = 16 * ps;
    bytes = (bytes + ps - 1) & ~(ps - 1);
    for (;;) {
        /* NORESERVE: only the pages the stack really uses count against memory. */
        void *p = mmap(NULL, bytes + guard, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
        if (p != MAP_FAILED) {
            if (mprotect(p, guard, PROT_NONE) != 0) {
                munmap(p, bytes + guard);
                return false;
            }
            s->lo = (char *)p + guard;
            s->hi = s->lo + bytes;
            s->guard = guard;
#ifdef HSRTS_VALGRIND
            VALGRIND_STACK_REGISTER(s->lo, s->hi);
#endif
            return true;
        }
        if (bytes / 2 < min_bytes)
            return false;
        bytes = (bytes / 2) & ~(ps - 1);
    }
}

void os_stack_release(OsStack *s)
{
    if (s->lo == NULL)
        return;
    munmap(s->lo - s->guard, (size_t)(s->hi - s->lo) + s->guard);
    s->lo = s->hi = NULL;
}

void os_stack_discard(char *lo, char *hi)
{
    size_t ps = page_size();
    uintptr_t a = ((uintptr_t)lo + ps - 1) & ~(uintptr_t)(ps - 1);
    uintptr_t b = (uintptr_t)hi & ~(uintptr_t)(ps - 1);
    if (b > a)
        madvise((void *)a, b - a, MADV_DONTNEED);
}

/* --- switching --------------------------------------------------------------------------- */

/*
 * os_switch_call(fn, arg, top, save): call fn(arg) with the stack pointer
 * at top (16-byte aligned), storing the caller's stack pointer in *save
 * (if save is not NULL). The frame pointer keeps the caller's stack
 * pointer, and the CFI says the caller's frame is found through it, so
 * unwinders cross from the new stack back to the old one.
 */
void *os_switch_call(void *(*fn)(void *), void *arg, void *top, char **save);

#if defined(__x86_64__)
__asm__(".text\n"
        ".globl os_switch_call\n"
        ".hidden os_switch_call\n"
        ".type os_switch_call, @function\n"
        ".p2align 4\n"
        "os_switch_call:\n"
        ".cfi_startproc\n"
        "    pushq %rbp\n"
        ".cfi_def_cfa_offset 16\n"
        ".cfi_offset %rbp, -16\n"
        "    movq %rsp, %rbp\n"
        ".cfi_def_cfa_register %rbp\n"
        "    testq %rcx, %rcx\n"
        "    jz 1f\n"
        "    movq %rbp, (%rcx)\n"
        "1:  movq %rdx, %rsp\n"
        "    movq %rdi, %rax\n"
        "    movq %rsi, %rdi\n"
        "    callq *%rax\n"
        "    movq %rbp, %rsp\n"
        "    popq %rbp\n"
        ".cfi_def_cfa %rsp, 8\n"
        "    retq\n"
        ".cfi_endproc\n"
        ".size os_switch_call, .-os_switch_call\n");
#elif defined(__aarch64__)
__asm__(".text\n"
        ".globl os_switch_call\n"
        ".hidden os_switch_call\n"
        ".type os_switch_call, %function\n"
        ".p2align 2\n"
        "os_switch_call:\n"
        ".cfi_startproc\n"
        "    stp x29, x30, [sp, #-16]!\n"
        ".cfi_def_cfa_offset 16\n"
        ".cfi_offset x29, -16\n"
        ".cfi_offset x30, -8\n"
        "    mov x29, sp\n"
        ".cfi_def_cfa_register x29\n"
        "    cbz x3, 1f\n"
        "    mov x4, sp\n"
        "    str x4, [x3]\n"
        "1:  mov sp, x2\n"
        "    mov x3, x0\n"
        "    mov x0, x1\n"
        "    blr x3\n"
        "    mov sp, x29\n"
        "    ldp x29, x30, [sp], #16\n"
        ".cfi_def_cfa sp, 0\n"
        "    ret\n"
        ".cfi_endproc\n"
        ".size os_switch_call, .-os_switch_call\n");
#else
#error "os_stack.c: no stack switch for this architecture yet (x86_64 and aarch64 only)"
#endif

#ifdef HSRTS_ASAN
/* AddressSanitizer must know which stack is current (its fake frames, its no-return checks). */
typedef struct {
    void *(*fn)(void *);
    void *arg;
    OsStack *s;
} AsanHop;

static void *asan_trampoline(void *p)
{
    AsanHop *h = p;
    __sanitizer_finish_switch_fiber(NULL, &h->s->caller_bottom, &h->s->caller_size);
    void *r = h->fn(h->arg);
    void *fake = NULL;
    __sanitizer_start_switch_fiber(&fake, h->s->caller_bottom, h->s->caller_size);
    return r;
}
#endif

void *os_run_on_stack(OsStack *s, void *(*fn)(void *), void *arg)
{
    void *top = (void *)((uintptr_t)s->hi & ~(uintptr_t)15);
#ifdef HSRTS_ASAN
    AsanHop h = {fn, arg, s};
    void *fake = NULL;
    __sanitizer_start_switch_fiber(&fake, s->lo, (size_t)(s->hi - s->lo));
    void *r = os_switch_call(asan_trampoline, &h, top, &s->caller_sp);
    __sanitizer_finish_switch_fiber(fake, NULL, NULL);
    return r;
#else
    return os_switch_call(fn, arg, top, &s->caller_sp);
#endif
}

typedef struct {
    void (*fn)(void *);
    void *arg;
} LeaveHop;

static void *leave_trampoline(void *p)
{
    LeaveHop *h = p;
#ifdef HSRTS_ASAN
    __sanitizer_finish_switch_fiber(NULL, NULL, NULL);
#endif
    h->fn(h->arg);
    __builtin_unreachable();
}

void os_leave_stack(OsStack *s, void (*fn)(void *), void *arg)
{
    /* Below the caller's frames (os_switch_call's saved frame pointer is at caller_sp). */
    void *top = (void *)(((uintptr_t)s->caller_sp - 256) & ~(uintptr_t)15);
    LeaveHop h = {fn, arg};
#ifdef HSRTS_ASAN
    void *fake = NULL;
    __sanitizer_start_switch_fiber(&fake, s->caller_bottom, s->caller_size);
#endif
    os_switch_call(leave_trampoline, &h, top, NULL);
    __builtin_unreachable();
}

/* --- faults -------------------------------------------------------------------------------- */

static OsFaultHandler fault_handler;
static struct sigaction old_segv, old_bus;
static bool installed;
static __thread bool thread_has_alt_stack;
static __thread void *thread_alt_stack; /* ours to free, or NULL */
static const size_t alt_stack_size = 64 * 1024;

static void on_fault(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    if (fault_handler)
        fault_handler(si->si_addr);
    /* Not ours: the previous disposition takes the re-executed fault. */
    sigaction(sig, sig == SIGSEGV ? &old_segv : &old_bus, NULL);
}

void os_fault_install(OsFaultHandler handler)
{
    fault_handler = handler;
    if (installed)
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &old_segv);
    sigaction(SIGBUS, &sa, &old_bus);
    installed = true;
}

void os_fault_uninstall(void)
{
    if (!installed)
        return;
    sigaction(SIGSEGV, &old_segv, NULL);
    sigaction(SIGBUS, &old_bus, NULL);
    installed = false;
    fault_handler = NULL;
}

void os_fault_thread_init(void)
{
    if (thread_has_alt_stack)
        return;
    stack_t cur;
    if (sigaltstack(NULL, &cur) == 0 && !(cur.ss_flags & SS_DISABLE)) {
        thread_has_alt_stack = true; /* the program gave it one */
        return;
    }
    size_t size = alt_stack_size;
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return;
    stack_t ss = {.ss_sp = p, .ss_size = size, .ss_flags = 0};
    if (sigaltstack(&ss, NULL) == 0) {
        thread_has_alt_stack = true;
        thread_alt_stack = p;
    } else {
        munmap(p, size);
    }
}

void os_fault_thread_exit(void)
{
    if (thread_alt_stack == NULL)
        return;
    stack_t ss = {.ss_sp = NULL, .ss_size = 0, .ss_flags = SS_DISABLE};
    if (sigaltstack(&ss, NULL) == 0) {
        munmap(thread_alt_stack, alt_stack_size);
        thread_alt_stack = NULL;
        thread_has_alt_stack = false;
    }
}
