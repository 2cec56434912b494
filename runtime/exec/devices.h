/* devices.h — the devices and I/O points of a running program: each `DEVICE x : CHAIN "file"` opened as a live
 * Model on the plain description the CLI read from its machine file (src/bind.c: the runtime never reads machine
 * files), the start position (the machine file's home, or `--start x=q1,...`), and the digital/analog I/O points
 * with their offline stimulus (`--input name=value@t`, or a CSV file of `t,name,value` rows) and PULSE timers. */
#ifndef IRL_DEVICES_H
#define IRL_DEVICES_H

#include <stddef.h>
#include <stdint.h>

#include "chunk.h"
#include "model.h"
#include "exec/run_options.h"
#include "exec/sample.h"

enum { DEVICES_OK = 0, DEVICES_EIO = -1, DEVICES_EINVALID = -2 };

/* One device's machine as bound by the CLI: the file it was read from (for messages) and its description. */
typedef struct DeviceMachine {
    char path[4096];
    ModelDesc desc;
} DeviceMachine;

typedef struct {
    char name[SAMPLE_NAME_LEN];
    int kind;             /* IoKind of ast.h: 0 DIN, 1 DOUT, 2 AIN, 3 AOUT */
    int64_t channel;
    double value;         /* current value (BOOL: 0/1) */
    int nstim, next;      /* stimulus events (inputs), sorted by time; next = first not yet applied */
    double *st_t, *st_v;  /* owned */
    double pulse_end;     /* outputs: program time at which a PULSE resets it; NAN = none */
} DevicesIo;

typedef struct {
    char name[SAMPLE_NAME_LEN];
    char path[4096];      /* machine file as resolved */
    Model model;
    int open;
    int has_pose;         /* forward kinematics of the tool point exists */
    int has_id;           /* inverse dynamics exists */
    int gprofile;         /* the model offers G-profiles: GMOVE possible (model.h) */
    double start[MODEL_MAX_DOF];
    ModelDesc check_desc; /* the description the checks read (limits), with derived output limits */
} Device;

typedef struct Devices {
    int ndev;
    Device *dev;          /* ndev, owned */
    int nio;
    DevicesIo *io;        /* nio, owned */
} Devices;

/* Open every device of chunk c on its machine (machines[i] for the i-th DEVICE, o->machines as src/bind.c read
 * them) and bind the I/O points. Returns DEVICES_OK, or DEVICES_EIO (a stimulus file missing) / DEVICES_EINVALID
 * with a message in err. */
int devices_bind(Devices *ds, const Chunk *c, const DeviceMachine *machines, const RunOptions *o, char *err,
                 size_t errlen);
void devices_free(Devices *ds);

/* Apply the stimulus events and PULSE resets due at program time t (called every cycle). */
void devices_io_tick(Devices *ds, double t);
/* Read / write an I/O point (index into ds->io); -1 when the index is invalid. */
int devices_io_read(const Devices *ds, int io, double *v);
int devices_io_write(Devices *ds, int io, double v);

/* Online (exec_online.h): every DIN point on a channel 0..63 takes bit `channel` of a driver's inputs. */
void devices_io_set_inputs(Devices *ds, uint64_t bits);
/* Online: the DOUT points on channels 0..63 that are on, as bit `channel`. */
uint64_t devices_io_outputs(const Devices *ds);

#endif
