/* exec_online.h — the online executor (`irl run --online --driver NAME[:options]`): the program runs in real time
 * against a driver (drivers/driver.h), producing exactly the setpoints the dry-run shows.
 *
 * Two threads and one queue. The planner thread (the caller's) runs the very same offline executor
 * (exec_offline.h: VM, planner, sampling, IK, inverse dynamics, checks, trace, report) as the producer of the
 * setpoints: its cycle callback is wrapped so that after each virtual-clock cycle the sample's positions and
 * speeds (and the digital outputs) are pushed into a lock-free queue of --queue setpoints (spsc.h), blocking
 * while it is full. The real-time thread (rt_loop.h) takes one setpoint per cycle at absolute deadlines,
 * re-checks the limits, writes it to the driver, reads the actual positions and inputs back, runs the monitors
 * and counts the timing. So the planner thread runs at most --queue cycles ahead of the axes: a digital input
 * read by the program is up to (--queue + 1) cycles old; PRINT output is held until the axes reach it
 * (online_print.h).
 *
 * With --approach, axes that the driver finds away from the program's start (DriverType.actual) are enabled where
 * they stand and first moved to the start by the approach's setpoints (online_approach.h), queued before the
 * program's first and logged apart from it; without it such a start is refused, naming each axis and its distance.
 *
 * When the real-time side stops (E-stop signal, driver fault, following error, limit, watchdog), the next cycle
 * the program asks for fails with ERR_DEVICE "online stop: <cause> ...; report and trace incomplete", so the
 * run ends as a run-time error at the statement that was executing: report.txt/report.json say "the program
 * stopped: ..." with verdict "error", the trace ends where the planner thread was (up to --queue cycles past
 * the last setpoint the drives received, which online.json names), and online.json has "complete": false.
 *
 * Outputs beside the dry-run's (same folder): online.csv (online_log.h) and online.json (driver, options, stop
 * cause, cycle statistics). Exit status: 0 the program ran to its end online and every check passed; 1 a stop,
 * a run-time error or a failed check; 64 usage (bad option, no DEVICE); the dry-run's codes otherwise. */
#ifndef IRL_EXEC_ONLINE_H
#define IRL_EXEC_ONLINE_H

#include "chunk.h"
#include "exec/run_options.h"
#include "vm/vm.h"

/* The usage errors of the online options that need no program (--driver missing or unknown, its options, a mode
 * that does not combine): 0, or the exit status after a message. exec_online_run checks them again. */
int exec_online_check(const RunOptions *o);
/* The pre-flight (skipped by --force, in main.c): the whole program as a dry-run with the same options, no trace and
 * no plots, its report written to the output folder, its PRINT output discarded and its diagnostics shown only
 * when it fails; then online.json says "not_started" with the reason. The dry-run's exit status (0: go online). */
int exec_online_preflight(const Chunk *c, const char *program, const RunOptions *o);
/* Run the program online from start to end (vm initialised by the caller, motion not yet wired). */
int exec_online_run(Vm *vm, const Chunk *c, const char *program, const RunOptions *o);

#endif
