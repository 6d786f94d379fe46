/* The signal flag. */
#define _POSIX_C_SOURCE 200809L
#include <stdatomic.h>
#include <string.h>

#include "interrupt.h"

/* The one piece of global mutable state besides the registry: a signal handler gets no
 * argument to reach the run's own state through, and the objects it may portably write
 * are a volatile sig_atomic_t or a lock-free atomic with static storage (C11 7.14.1.1).
 * An atomic, because with --devices the handler runs on one thread and the workers that
 * poll the flag on others: a volatile alone orders nothing between threads. Everything
 * else the run carries stays in the runner's structs. */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "the signal flag must be a lock-free atomic");
static atomic_int pending_signal;

static void record_signal(int sig) { atomic_store(&pending_signal, sig); }

int pb_interrupt_install(struct pb_interrupt_guard *g) {
    atomic_store(&pending_signal, 0);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = record_signal;
    sigemptyset(&sa.sa_mask);
    /* SA_RESETHAND: the second signal takes the default action. No SA_RESTART is needed:
     * the runner makes no blocking calls that a signal would interrupt. */
    sa.sa_flags = SA_RESETHAND;
    if (sigaction(SIGINT, &sa, &g->old_int) != 0) return -1;
    if (sigaction(SIGTERM, &sa, &g->old_term) != 0) {
        sigaction(SIGINT, &g->old_int, NULL);
        return -1;
    }
    return 0;
}

void pb_interrupt_restore(const struct pb_interrupt_guard *g) {
    sigaction(SIGINT, &g->old_int, NULL);
    sigaction(SIGTERM, &g->old_term, NULL);
}

int pb_interrupt_pending(void) { return atomic_load(&pending_signal); }
