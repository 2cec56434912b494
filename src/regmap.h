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

/* The objects a map may place; per axis unless marked drive-wide. */
typedef enum {
    REGMAP_CONTROLWORD,        /* write: the device control (CiA 402 0x6040) */
    REGMAP_STATUSWORD,         /* read: the device state (0x6041) */
    REGMAP_MODES,              /* write: modes of operation (0x6060) */
    REGMAP_MODES_DISPLAY,      /* read: modes of operation display (0x6061) */
    REGMAP_TARGET_POSITION,    /* write: position setpoint (0x607A), SI via scale */
    REGMAP_TARGET_VELOCITY,    /* write: speed setpoint (0x60FF) */
    REGMAP_POSITION_ACTUAL,    /* read: actual position (0x6064) */
    REGMAP_VELOCITY_ACTUAL,    /* read: actual speed (0x606C) */
    REGMAP_ERROR_CODE,         /* read: the drive's error code (0x603F) */
    REGMAP_MAGIC,              /* drive-wide, read: a fixed value that identifies the layout (expect=) */
    REGMAP_AXIS_COUNT,         /* drive-wide, read: how many axes the drive has */
    REGMAP_FAULT_CODE,         /* drive-wide, read: the irl profile's fault code */
    REGMAP_FAULT_AXIS,         /* drive-wide, read: the axis the fault is on (1-based; 0 the drive) */
    REGMAP_CYCLE_COUNTER,      /* drive-wide, write: incremented every cycle (the drive's watchdog watches it) */
    REGMAP_DIGITAL_OUTPUTS,    /* drive-wide, write: the program's outputs, bit c = channel c */
    REGMAP_DIGITAL_INPUTS,     /* drive-wide, read: the inputs the program reads, bit c = channel c */
    REGMAP_NOBJECTS
} RegMapObjectId;

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
