/* online_log.h — online.csv, the log of what the real-time thread wrote and read each cycle, written by a normal
 * thread from the log ring (rt_loop.h RtLogRow) so the cycle never touches a file.
 *
 * Columns: wall (s since the first deadline), cycle (the dry-run cycle, i.e. trace.csv row, of the setpoint
 * written; -1 for cycles that did not come from the queue), t (program time of the last queued setpoint
 * written), state (run, prime, hold, stop, settle; approach: the move to the program's start, not in the
 * trace), then per axis the written position `dev.qN`, the written
 * speed `dev.qdN` and the actual position `dev.qaN` ("nan" when the driver gives none), then `confirmed` (1, 0, or
 * -1: the driver cannot tell). Numbers have 17 significant digits: the positions read back are the setpoints
 * exactly.
 *
 * A driver that confirms later (DRIVER_CONFIRMS_TAKEN: hal, whose servo thread takes the setpoints from a stream
 * up to its high water mark later) leaves a row's `confirmed` open: the writer holds the row until taken() has
 * passed it (1), and writes 0 for a row still open when the log closes or when half the ring is waiting behind it. */
#ifndef IRL_ONLINE_LOG_H
#define IRL_ONLINE_LOG_H

#include <stdio.h>

#include "online/drivers/driver.h"
#include "exec/spsc.h"

typedef struct {
    FILE *f;
    int naxes;
    long rows;
    int err;           /* a write failed */
    long (*taken)(void *state);  /* DRIVER_CONFIRMS_TAKEN: the driver's count of setpoints taken (NULL: none) */
    void *taken_state;
} OnlineLog;

/* Create path and write the header. 0, or -1 with a message in err. */
int online_log_open(OnlineLog *lg, const char *path, int naxes, const char (*axis_name)[DRIVER_NAME_LEN], char *err,
                    size_t errlen);
/* Rows whose confirmation is open are settled by taken(state) (DriverType.taken). */
void online_log_confirm_later(OnlineLog *lg, long (*taken)(void *state), void *state);
/* Write the rows waiting in ring (RtLogRow records), up to the first whose confirmation is still open unless final
 * (then such rows get 0). Rows are consumed also when the log is not open. */
void online_log_drain(OnlineLog *lg, Spsc *ring, int final);
/* Flush and close. 0, or -1 when a write failed (message in err). */
int online_log_close(OnlineLog *lg, char *err, size_t errlen);

#endif
