/* SIGINT and SIGTERM during a run: the sweep stops at the next safe point instead of
 * dying mid-row, so the output holds only complete rows and can be resumed. */
#ifndef PB_INTERRUPT_H
#define PB_INTERRUPT_H

#include <signal.h>

/* The handlers that were installed before, restored by pb_interrupt_restore. */
struct pb_interrupt_guard {
    struct sigaction old_int, old_term;
};

/* Installs handlers that only record the signal. They reset themselves to the default
 * action (SA_RESETHAND), so a second Ctrl-C ends the process at once, e.g. while a
 * long CPU repetition that cannot be preempted is running. */
int pb_interrupt_install(struct pb_interrupt_guard *g);
void pb_interrupt_restore(const struct pb_interrupt_guard *g);
/* The signal received since install (SIGINT or SIGTERM), or 0. Cheap: poll it between
 * repetitions and rows. */
int pb_interrupt_pending(void);

#endif
