/* regmap.h — a Modbus drive's register map as plain data: which holding register carries which object of the
 * drive (controlword, statusword, target and actual positions, ...), its type, word order, scale and the function
 * codes that read or write it. src/regmap_read.c reads it from a map file (docs/ONLINE-DRIVERS.md, "Register map
 * files"); the modbus driver (runtime/online/drivers/modbus.c) talks to the drive through it. Like chunk.h, a
 * format both sides share: no functions, nothing of the reader. */
#ifndef IRL_REGMAP_H
#define IRL_REGMAP_H

#include <stdint.h>

/* The drive's state machine the map's control and status words follow. */
typedef enum {
    REGMAP_PROFILE_IRL,    /* the emulator's: controlword bit 0 enable, bit 1 fault reset; statusword bit 0
                            * enabled, bit 1 fault (tests/tools/drive_emulator.c) */
    REGMAP_PROFILE_CIA402, /* CiA 402 (IEC 61800-7-201) device control: shutdown, switch on, enable operation, ... */
} RegMapProfile;

/* CiA 402 modes of operation (object 0x6060) the driver runs in. */
enum { REGMAP_MODE_CSP = 8, REGMAP_MODE_CSV = 9 };

typedef enum { REGMAP_INT16, REGMAP_UINT16, REGMAP_INT32, REGMAP_UINT32, REGMAP_FLOAT32, REGMAP_UINT64 } RegMapType;

/* The objects a map may place, one list for the enum, the reader's table and the driver's messages:
 * X(ID, name in the file, per axis, read (R) / written (W), P position / V speed / B digital I/O / N plain). */
#define REGMAP_OBJECTS(X)                                                                                          \
    X(CONTROLWORD, "controlword", 1, W, N)           /* the device control (CiA 402 0x6040) */                    \
    X(STATUSWORD, "statusword", 1, R, N)             /* the device state (0x6041) */                              \
    X(MODES, "modes_of_operation", 1, W, N)          /* 0x6060 */                                                 \
    X(MODES_DISPLAY, "modes_display", 1, R, N)       /* 0x6061 */                                                 \
    X(TARGET_POSITION, "target_position", 1, W, P)   /* the position setpoint (0x607A), SI via scale */           \
    X(TARGET_VELOCITY, "target_velocity", 1, W, V)   /* the speed setpoint (0x60FF) */                            \
    X(POSITION_ACTUAL, "position_actual", 1, R, P)   /* 0x6064 */                                                 \
    X(VELOCITY_ACTUAL, "velocity_actual", 1, R, V)   /* 0x606C */                                                 \
    X(ERROR_CODE, "error_code", 1, R, N)             /* the drive's error code (0x603F) */                        \
    X(MAGIC, "magic", 0, R, N)                       /* a fixed value that identifies the layout (expect=) */     \
    X(AXIS_COUNT, "axis_count", 0, R, N)             /* how many axes the drive has */                            \
    X(FAULT_CODE, "fault_code", 0, R, N)             /* the irl profile's fault code */                           \
    X(FAULT_AXIS, "fault_axis", 0, R, N)             /* the axis the fault is on (1-based; 0 the drive) */        \
    X(CYCLE_COUNTER, "cycle_counter", 0, W, N)       /* incremented every cycle (the drive's watchdog) */         \
    X(DIGITAL_OUTPUTS, "digital_outputs", 0, W, B)   /* the program's outputs, bit c = channel c */               \
    X(DIGITAL_INPUTS, "digital_inputs", 0, R, B)     /* the inputs the program reads, bit c = channel c */

#define REGMAP_ENUM_(id, name, axis, way, kind) REGMAP_##id,
typedef enum { REGMAP_OBJECTS(REGMAP_ENUM_) REGMAP_NOBJECTS } RegMapObjectId;
#undef REGMAP_ENUM_

typedef struct {
    int present;
    int line;                  /* where the map file gives it (messages) */
    uint16_t reg;              /* holding register of axis 1 (0-based protocol address) */
    int stride;                /* registers from one axis's copy to the next; 0: one for all axes */
    RegMapType type;
    int low_first;             /* 32- and 64-bit values: the low word at the lower register */
    int read_fc, write_fc;     /* 3 or 23; 6, 16 or 23; 0: not read / not written */
    double scale_rad, scale_m; /* SI per count (rad, rad/s; m, m/s): revolute, prismatic axes; 0: not given */
    int has_expect;
    uint32_t expect;
} RegMapObject;

typedef struct RegMap {
    char file[256];            /* the map file (messages) */
    RegMapProfile profile;
    int mode;                  /* REGMAP_MODE_CSP or _CSV */
    double state_timeout;      /* s, the longest one state transition of the drive may take */
    RegMapObject obj[REGMAP_NOBJECTS];
} RegMap;

#endif
