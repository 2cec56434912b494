/* driver.h — the online mode's drivers: where the real-time thread sends each cycle's setpoints and from where it
 * reads the axes' actual positions, the digital inputs and the drive's fault state. One interface, a const
 * descriptor per driver (DriverType, found by name) plus its opaque state, like the model back-ends.
 *
 * Built-in drivers (docs/ONLINE-DRIVERS.md): "sim" (virtual axes with a first- or second-order lag), "stream"
 * (one line of joint positions per cycle, the format LinuxCNC's halstreamer reads), "modbus" (Modbus TCP
 * drives through libmodbus, laid out by a register map file: src/regmap.h) and "hal" (a LinuxCNC HAL component
 * writing to streamer's shared-memory stream).
 *
 * Call order, and which thread makes each call:
 *   normal thread:   check(opts) (before anything is set up: a bad option is a usage error), open, actual (when
 *                    given), enable
 *   real-time thread, every cycle:  pace (when given), read (feedback of the previous cycle), write (this
 *                                   cycle's setpoint)
 *   real-time thread, after its last cycle:  disable (axes disabled)
 *   normal thread:   close
 * read and write must not allocate, print or block beyond the bus transfer itself. Units are SI (rad or m). */
#ifndef IRL_DRIVER_H
#define IRL_DRIVER_H

#include <stddef.h>
#include <stdint.h>

#define DRIVER_MAX_AXES 32     /* axes over all devices of a program, online (a uint32_t mask holds them) */
#define DRIVER_NAME_LEN 80
#define DRIVER_FAULT_LEN 160

/* What a driver is told when it opens. Pointers are borrowed for the driver's lifetime. */
typedef struct {
    int naxes;
    double dt;                                  /* cycle time, s */
    const double *q0;                           /* where enable holds the axes, read by enable: the program's
                                                 * start, or where actual found them (exec_online.c rewrites the
                                                 * caller's array between actual and enable for an approach) */
    const char (*axis_name)[DRIVER_NAME_LEN];   /* "arm.1", ... */
    const int *linear;                          /* 1: prismatic axis (m), 0: revolute (rad) */
    const char *opts;                           /* the options after "NAME:" ("" when none) */
    const struct RegMap *regmap;                /* the register map the CLI read for the driver (src/regmap.h;
                                                 * modbus), NULL none */
} DriverConfig;

/* What a driver can do, filled by open. */
typedef struct {
    int has_feedback;   /* read() gives actual positions (the following-error monitor runs) */
    int has_inputs;     /* read() gives the digital inputs (they replace the offline --input stimulus) */
    int uses_stdout;    /* the driver writes to standard output (PRINT then goes to standard error) */
    int confirms;       /* online.csv "confirmed": 0 the driver cannot tell; 1 write() returns 0 only when the drive
                         * acknowledged the setpoint; DRIVER_CONFIRMS_TAKEN the drive takes the setpoints later, from
                         * a buffer, and taken() counts those it took */
} DriverCaps;

#define DRIVER_CONFIRMS_TAKEN 2

/* Feedback read each cycle. */
typedef struct {
    double q[DRIVER_MAX_AXES];  /* actual positions, when has_feedback */
    uint64_t din;               /* digital inputs: bit c = channel c (0..63), when has_inputs */
    int fault;                  /* 1: the drive reports a fault (text: DriverType.fault) */
    int has_cmd;                /* 1: cmd holds the setpoint q answers (a driver with a buffer between it and the
                                 * axes); 0: q answers the last written one */
    double cmd[DRIVER_MAX_AXES];
} DriverFeedback;

typedef struct DriverType {
    const char *name;
    const char *const *keys;    /* the option names it accepts, NULL-terminated */
    /* Validate the option values (syntax only). 0, or -1 with a message in err. */
    int (*check)(const char *opts, char *err, size_t errlen);
    /* Open (connect, allocate). 0, or -1 with a message in err. */
    int (*open)(const DriverConfig *cfg, void **state, DriverCaps *caps, char *err, size_t errlen);
    /* Optional (NULL: the feedback is known only after the enable): where the axes stand before they are
     * enabled, into q (SI). 0, or -1 with a message in err. */
    int (*actual)(void *state, double *q, char *err, size_t errlen);
    /* Enable the axes, holding them at cfg->q0 as it reads now. 0, or -1 with a message in err. */
    int (*enable)(void *state, char *err, size_t errlen);
    /* Real time: the feedback as of now. 0, or -1 on a fault (fb->fault set, text via fault). */
    int (*read)(void *state, DriverFeedback *fb);
    /* Real time: send one cycle's setpoint (positions, speeds) and digital outputs (bit c = channel c).
     * 0, or -1 on a fault (text via fault). */
    int (*write)(void *state, const double *q, const double *qd, uint64_t dout);
    /* Disable the axes (after the last cycle; also after a fault). */
    void (*disable)(void *state);
    /* Optional (NULL: cannot tell), after disable: 1 the drive confirmed it is disabled, 0 it did not. */
    int (*disable_confirmed)(void *state);
    /* Optional (NULL: cannot tell which), after a disable not confirmed: the axes that did not confirm it, bit k
     * for axis k (DRIVER_MAX_AXES fits). */
    uint32_t (*disable_unconfirmed)(void *state);
    /* The text of the last fault ("" none); valid until close. */
    const char *(*fault)(void *state);
    void (*close)(void *state);
    /* For caps.confirms == DRIVER_CONFIRMS_TAKEN: how many of the setpoints write() accepted so far the drive has
     * taken, in order. Any thread, at any time until close (also after disable); it must not block. */
    long (*taken)(void *state);
    /* Optional (NULL: the cycle keeps its own clock). Real time, before the cycle's sleep, for a driver whose
     * reader paces the run: > 0 the reader's buffer is above its high water mark by that many setpoints (the
     * deadline moves that many cycles later), < 0 it is below its low one (the cycle runs at once), 0 neither. */
    int (*pace)(void *state);
} DriverType;

/* The driver called name, or NULL. */
const DriverType *driver_find(const char *name);
/* The names of the built-in drivers, comma-separated (for messages). */
const char *driver_names(void);

/* Option helpers for "key=value,key=value" strings. */
/* Copy the value of key into val (bounded); 1 found, 0 absent. */
int driver_opt(const char *opts, const char *key, char *val, size_t vallen);
/* Every key in opts is one of keys (NULL-terminated) and has a value. 0, or -1 with a message in err. */
int driver_opts_known(const char *driver, const char *opts, const char *const *keys, char *err, size_t errlen);
/* The value of key as a number with an optional time unit (s, ms, us) when time is 1: *v unchanged when absent.
 * 0 (absent or read), -1 malformed (message in err). */
int driver_opt_num(const char *driver, const char *opts, const char *key, int time, double *v, char *err,
                   size_t errlen);

#endif
