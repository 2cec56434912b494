/* online_log.h — online.csv, the log of what the real-time thread wrote and read each cycle, written by a normal
 * thread from the log ring (rt_loop.h RtLogRow) so the cycle never touches a file.
 *
 * Columns: wall (s since the first deadline), cycle (the dry-run cycle, i.e. trace.csv row, of the setpoint
 * written; -1 for cycles that did not come from the queue), t (program time of the last queued setpoint
 * written), state (run, prime, hold, stop, settle; approach: the move to the program's start, not in the
 * trace), then per axis the written position `dev.qN`, the written
 * speed `dev.qdN` and the actual position `dev.qaN` ("nan" when the driver gives none). Numbers have 17
 * significant digits: the positions read back are the setpoints exactly. */
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
} OnlineLog;

/* Create path and write the header. 0, or -1 with a message in err. */
int online_log_open(OnlineLog *lg, const char *path, int naxes, const char (*axis_name)[DRIVER_NAME_LEN], char *err,
                    size_t errlen);
/* Write every row waiting in ring (RtLogRow records). Does nothing when the log is not open. */
void online_log_drain(OnlineLog *lg, Spsc *ring);
/* Flush and close. 0, or -1 when a write failed (message in err). */
int online_log_close(OnlineLog *lg, char *err, size_t errlen);

#endif
