/* modbus_map.h — the register layout of the drive emulator of the tests (tests/tools/drive_emulator.c), which
 * drives/emulator.map describes to the "modbus" driver (modbus.c takes from here only the emulator's status bits
 * and fault names, for its "irl" profile). Everything is in holding registers (16 bits), in two areas so that one
 * "write and read registers" request (function 23) per cycle sends the setpoints and returns the feedback:
 *
 *   write area (controller -> drive), from register 0:
 *     0      control word: bit 0 enable, bit 1 reset fault
 *     1      cycle counter (incremented by the controller every cycle; the drive's watchdog watches requests)
 *     2..5   digital outputs, 64 bits: register 2 = channels 0..15 (bit c), 3 = 16..31, 4 = 32..47, 5 = 48..63
 *     6 + 4a     axis a position setpoint, int32, high word first, MODBUS_MAP_SCALE units per count
 *     8 + 4a     axis a speed setpoint, int32, high word first, MODBUS_MAP_SCALE units/s per count
 *   read area (drive -> controller), from register MODBUS_MAP_READ:
 *     +0     magic MODBUS_MAP_MAGIC ("IR")
 *     +1     number of axes of the drive
 *     +2     status word: bit 0 enabled, bit 1 fault
 *     +3     fault code (MODBUS_MAP_FAULT_*), 0 = none
 *     +4     fault axis (1-based; 0 = the drive as a whole)
 *     +5     reserved
 *     +6..9  digital inputs, 64 bits, laid out as the outputs
 *     +10 + 4a   axis a actual position, int32, high word first
 *     +12 + 4a   axis a actual speed, int32, high word first
 * Units: MODBUS_MAP_SCALE (1e-6) rad or m per count, so positions span +-2147 rad or m, speeds +-2147 rad/s or m/s.
 * The feedback a request returns is the drive's state before that request's setpoint took effect. */
#ifndef IRL_MODBUS_MAP_H
#define IRL_MODBUS_MAP_H

#include <math.h>
#include <stdint.h>

#define MODBUS_MAP_MAX_AXES 28          /* function 23 carries at most 121 written and 125 read registers */
#define MODBUS_MAP_SCALE 1e-6
#define MODBUS_MAP_MAGIC 0x4952         /* "IR" */
#define MODBUS_MAP_CONTROL 0
#define MODBUS_MAP_COUNTER 1
#define MODBUS_MAP_DOUT 2
#define MODBUS_MAP_AXES_W 6
#define MODBUS_MAP_READ 256
#define MODBUS_MAP_R_MAGIC 0
#define MODBUS_MAP_R_NAXES 1
#define MODBUS_MAP_R_STATUS 2
#define MODBUS_MAP_R_FAULT 3
#define MODBUS_MAP_R_FAULT_AXIS 4
#define MODBUS_MAP_R_DIN 6
#define MODBUS_MAP_AXES_R 10
#define MODBUS_MAP_REGS 512             /* holding registers the emulator maps */

#define MODBUS_MAP_CTL_ENABLE 1
#define MODBUS_MAP_CTL_RESET 2
#define MODBUS_MAP_ST_ENABLED 1
#define MODBUS_MAP_ST_FAULT 2

enum {
    MODBUS_MAP_FAULT_NONE = 0,
    MODBUS_MAP_FAULT_INJECTED = 1,  /* the emulator's --fault drive */
    MODBUS_MAP_FAULT_WATCHDOG = 2,  /* no request within the drive's watchdog time while enabled */
    MODBUS_MAP_FAULT_RANGE = 3,     /* a setpoint out of the register range */
};

/* Registers written / read per cycle for n axes. */
static inline int modbus_map_wcount(int n) { return MODBUS_MAP_AXES_W + 4 * n; }
static inline int modbus_map_rcount(int n) { return MODBUS_MAP_AXES_R + 4 * n; }

/* x (SI) as int32 counts into two registers, high word first; 0, or -1 when out of range (registers untouched). */
static inline int modbus_map_put(uint16_t *r, double x)
{
    double c = nearbyint(x / MODBUS_MAP_SCALE);
    if (!(c >= -2147483648.0 && c <= 2147483647.0)) return -1;
    uint32_t u = (uint32_t)(int32_t)c;
    r[0] = (uint16_t)(u >> 16);
    r[1] = (uint16_t)(u & 0xffff);
    return 0;
}

/* Two registers (high word first) as SI. */
static inline double modbus_map_get(const uint16_t *r)
{
    return (double)(int32_t)(((uint32_t)r[0] << 16) | r[1]) * MODBUS_MAP_SCALE;
}

/* 64 bits into / from four registers (low channels first). */
static inline void modbus_map_put_bits(uint16_t *r, uint64_t b)
{
    for (int k = 0; k < 4; k++) r[k] = (uint16_t)(b >> (16 * k));
}
static inline uint64_t modbus_map_get_bits(const uint16_t *r)
{
    uint64_t b = 0;
    for (int k = 0; k < 4; k++) b |= (uint64_t)r[k] << (16 * k);
    return b;
}

/* The fault code's text. */
static inline const char *modbus_map_fault_name(int code)
{
    switch (code) {
    case MODBUS_MAP_FAULT_NONE: return "none";
    case MODBUS_MAP_FAULT_INJECTED: return "drive fault";
    case MODBUS_MAP_FAULT_WATCHDOG: return "communication watchdog";
    case MODBUS_MAP_FAULT_RANGE: return "setpoint out of range";
    default: return "unknown fault";
    }
}

#endif
