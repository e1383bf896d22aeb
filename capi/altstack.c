/* The alternate stack (altstack.h). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "altstack.h"

#if defined(__x86_64__) && defined(__GNUC__)

__thread uintptr_t gmpi_alt_top __attribute__((tls_model("initial-exec")));

#define ALT_LOW_GAP (1280UL << 10) /* above the stack's low bound */
#define ALT_SIZE (512UL << 10)     /* the region itself */
#define ALT_MIN_STACK (4UL << 20)  /* smaller thread stacks call directly */

static unsigned long wipe = 4096; /* GMPI_ALT_WIPE */

#define SETUP_DIRT (64UL << 10) /* zeroed below the first caller after the look */

/* Zero n bytes just below this function's frame. */
static __attribute__((noinline)) void zero_below(unsigned long n)
{
    char *p = __builtin_alloca(n);
    /* Not memset: its call would leave its return address below p. */
    void *d = p;
    unsigned long c = n;
    __asm__ volatile("rep stosb" : "+D"(d), "+c"(c) : "a"(0) : "memory");
    __asm__ volatile("" ::"r"(p) : "memory");
}

/* The first call of each thread looks up its stack (pthread_getattr_np
 * reads /proc/self/maps on the main thread: kilobytes of stdio frames)
 * on the caller's stack, then zeroes what that left. */
__attribute__((noinline)) uintptr_t gmpi_alt_setup(void)
{
    uintptr_t top = GMPI_ALT_NEVER;
    const char *e = getenv("GMPI_ALT_STACK");
    pthread_attr_t a;
    const char *w = getenv("GMPI_ALT_WIPE");
    if (w)
        wipe = strtoul(w, 0, 0) & ~7UL;
    if (!(e && strcmp(e, "0") == 0) && pthread_getattr_np(pthread_self(), &a) == 0) {
        void *addr = 0;
        size_t size = 0;
        if (pthread_attr_getstack(&a, &addr, &size) == 0 && size >= ALT_MIN_STACK) {
            uintptr_t lo = (uintptr_t)addr, t = (lo + ALT_LOW_GAP + ALT_SIZE) & ~(uintptr_t)63;
            uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
            if (sp > t && sp <= lo + size)
                top = t;
            if (sp > lo + SETUP_DIRT + (64UL << 10) && sp <= lo + size) {
                pthread_attr_destroy(&a);
                zero_below(SETUP_DIRT);
                gmpi_alt_top = top;
                return top;
            }
        }
        pthread_attr_destroy(&a);
    }
    gmpi_alt_top = top;
    return top;
}

/* After a call into Go, on the caller's stack: zero the wipe bytes below
 * this function's frame (the entry's frame sits just above). Only on a
 * thread whose region is in use: its stack bounds are known to be far. */
__attribute__((noinline)) void gmpi_alt_wipe(void)
{
    uintptr_t top = gmpi_alt_top, sp = (uintptr_t)__builtin_frame_address(0);
    if (top == 0 || top == GMPI_ALT_NEVER || wipe == 0 || sp - GMPI_ALT_GAP <= top)
        return;
    zero_below(wipe);
}

/* On the region (a lane about to park in Go): zero the wipe bytes below
 * the stack pointer of the entry that switched, which gmpi_alt_call left
 * at top - 8. Off the region (not switched) nothing. */
void gmpi_alt_wipe_caller(void)
{
    uintptr_t top = gmpi_alt_top, sp = (uintptr_t)__builtin_frame_address(0);
    if (top == 0 || top == GMPI_ALT_NEVER || wipe == 0 || sp >= top)
        return;
    uintptr_t caller = *(volatile uintptr_t *)(top - 8) & ~(uintptr_t)7;
    if (caller - GMPI_ALT_GAP <= top)
        return;
    void *d = (void *)(caller - wipe);
    unsigned long c = wipe;
    __asm__ volatile("rep stosb" : "+D"(d), "+c"(c) : "a"(0) : "memory");
}

/* rdi = fn, rsi = top, then the arguments: the first four in rdx, rcx,
 * r8, r9, the rest at 16(%rbp) up. Moves them two registers down, copies
 * the stack ones (8 words: up to 13 arguments) to the top of the region
 * and calls fn there. The frame pointer chain and the CFI keep debuggers'
 * backtraces going through. */
__asm__(".text\n"
        ".globl gmpi_alt_call\n"
        ".hidden gmpi_alt_call\n"
        ".type gmpi_alt_call,@function\n"
        ".p2align 4\n"
        "gmpi_alt_call:\n"
        ".cfi_startproc\n"
        "    pushq %rbp\n"
        ".cfi_def_cfa_offset 16\n"
        ".cfi_offset %rbp, -16\n"
        "    movq %rsp, %rbp\n"
        ".cfi_def_cfa_register %rbp\n"
        "    movq %rdi, %r11\n"
        "    movq %rbp, -8(%rsi)\n" /* the caller's stack pointer, for gmpi_alt_wipe */
        "    leaq -80(%rsi), %rsp\n"
        "    andq $-16, %rsp\n"
        "    movq 32(%rbp), %rax\n    movq %rax, 0(%rsp)\n"
        "    movq 40(%rbp), %rax\n    movq %rax, 8(%rsp)\n"
        "    movq 48(%rbp), %rax\n    movq %rax, 16(%rsp)\n"
        "    movq 56(%rbp), %rax\n    movq %rax, 24(%rsp)\n"
        "    movq 64(%rbp), %rax\n    movq %rax, 32(%rsp)\n"
        "    movq 72(%rbp), %rax\n    movq %rax, 40(%rsp)\n"
        "    movq 80(%rbp), %rax\n    movq %rax, 48(%rsp)\n"
        "    movq 88(%rbp), %rax\n    movq %rax, 56(%rsp)\n"
        "    movq %rdx, %rdi\n"
        "    movq %rcx, %rsi\n"
        "    movq %r8, %rdx\n"
        "    movq %r9, %rcx\n"
        "    movq 16(%rbp), %r8\n"
        "    movq 24(%rbp), %r9\n"
        "    xorl %eax, %eax\n"
        "    call *%r11\n"
        "    leave\n"
        ".cfi_def_cfa %rsp, 8\n"
        "    ret\n"
        ".cfi_endproc\n"
        ".size gmpi_alt_call, .-gmpi_alt_call\n");

#endif
