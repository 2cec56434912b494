#!/usr/bin/env python3
"""cia402_drive.py — a CiA 402 drive (IEC 61800-7-201 device control) served over Modbus TCP by pymodbus (Debian
python3-pymodbus 3.0), for the online tests: N axes laid out as drives/cia402.map says, written independently of
irl's driver (it shares no code with it). It listens on 127.0.0.1 only and ends by itself after --timeout.

Registers (holding, 0-based; axis a = 0..N-1; 32-bit values high word first):
  4a, 4a+1       target position, int32, 0.0001 degree      4a+2, 4a+3     target velocity, int32, 0.001 degree/s
  200+2a         controlword                                 201+2a         modes of operation (8 CSP, 9 CSV)
  1000+8a        statusword                                  1001+8a        modes of operation display
  1002+8a, +1    position actual, int32                      1004+8a, +1    velocity actual, int32
  1006+8a        error code (0x603F)

The state machine: power-up in Not ready to switch on, then Switch on disabled after 20 ms; each controlword write
moves an axis along the CiA 402 transitions (shutdown, switch on, enable operation, disable operation, disable
voltage, quick stop, fault reset on the rising edge of bit 7), taking effect --transition-delay later. In
Operation enabled an axis follows the target position exactly (CSP) or integrates the target velocity over the
wall time (CSV); otherwise it stands.

  cia402_drive.py --port-file F [--axes N] [--start c1,c2,...] [--timeout T] [--log FILE] [--transition-delay T]
                  [--fault-at T --fault-axis A] [--refuse-enable A] [--refuse-disable A] [--start-in-fault]
                  [--delay T --delay-at T]

  --start          the actual positions at power-up, in counts (0.0001 degree)
  --log FILE       one line per write of the target block ("sp,c1,...,cN": target position counts) and per
                   state change ("state,AXIS,NAME", AXIS 1-based), flushed as it goes
  --fault-at T     T s after every axis reached Operation enabled, axis A (--fault-axis, 1-based) goes to Fault
                   reaction active, then Fault 10 ms later, error code 0x2310 (continuous over current)
  --refuse-enable  axis A never leaves Switched on for Operation enabled (as with safe torque off active)
  --refuse-disable axis A, once in Operation enabled, ignores every controlword (its power stage stays on)
  --start-in-fault every axis powers up in Fault (error code 0x5530: a memory error), cleared by a fault reset
  --delay T        a slow peer: from --delay-at T s after every axis reached Operation enabled, each read is
                   answered T s late (the server blocks meanwhile: later requests wait their turn)
Exit status 0 after --timeout (default 30 s); 2 usage.
"""
import argparse
import asyncio
import os
import sys
import time

from pymodbus.datastore import ModbusSequentialDataBlock, ModbusServerContext, ModbusSlaveContext
from pymodbus.server.async_io import ModbusTcpServer

NOT_READY, SWITCH_ON_DISABLED, READY, SWITCHED_ON, ENABLED, QUICK_STOP, FAULT_REACTION, FAULT = range(8)
NAMES = ["Not ready to switch on", "Switch on disabled", "Ready to switch on", "Switched on", "Operation enabled",
         "Quick stop active", "Fault reaction active", "Fault"]
# statusword per state: bits 0-6 per the standard, bit 4 voltage enabled, bit 9 remote, bit 12 (CSP) following
STATUS = {NOT_READY: 0x0000, SWITCH_ON_DISABLED: 0x0250, READY: 0x0231, SWITCHED_ON: 0x0233, ENABLED: 0x1237,
          QUICK_STOP: 0x0217, FAULT_REACTION: 0x021F, FAULT: 0x0218}
TARGET, CONTROL, INPUT = 0, 200, 1000


def s32(hi, lo):
    v = (hi << 16) | lo
    return v - (1 << 32) if v & 0x80000000 else v


def words(v):
    v &= 0xFFFFFFFF
    return [v >> 16, v & 0xFFFF]


class Axis:
    def __init__(self, pos):
        self.state, self.pending, self.due = NOT_READY, SWITCH_ON_DISABLED, time.monotonic() + 0.02
        self.cw, self.mode, self.pos, self.vel, self.target, self.tvel, self.error = 0, 0, pos, 0, pos, 0, 0


class Drive(ModbusSequentialDataBlock):
    """The holding registers: writes move the state machine and the targets; reads see the state as of now."""

    def __init__(self, o):
        super().__init__(0, [0] * 2000)
        self.o, self.t_update = o, time.monotonic()
        self.axes = [Axis(o.start[a] if a < len(o.start) else 0) for a in range(o.axes)]
        if o.start_in_fault:
            for ax in self.axes:
                ax.pending, ax.error = FAULT, 0x5530
        self.t_enabled = None
        self.log = open(o.log, "w") if o.log else None
        self.update()

    def note(self, line):
        if self.log:
            self.log.write(line + "\n")
            self.log.flush()

    def go(self, a, state, delay=None):
        ax = self.axes[a]
        ax.pending, ax.due = state, time.monotonic() + (self.o.transition_delay if delay is None else delay)

    def command(self, a, cw):
        """A controlword write: the CiA 402 transition it asks for from the axis's state."""
        ax, st = self.axes[a], self.axes[a].state
        if st == ENABLED and self.o.refuse_disable == a + 1:
            return
        rising7 = (cw & 0x80) and not (ax.cw & 0x80)
        ax.cw = cw
        if st == FAULT:
            if rising7:
                ax.error = 0
                self.go(a, SWITCH_ON_DISABLED)
            return
        if st in (NOT_READY, FAULT_REACTION):
            return
        if not cw & 0x02:                                   # disable voltage
            self.go(a, SWITCH_ON_DISABLED)
        elif not cw & 0x04:                                 # quick stop
            self.go(a, QUICK_STOP if st == ENABLED else SWITCH_ON_DISABLED)
        elif (cw & 0x0F) == 0x06:                           # shutdown
            if st in (SWITCH_ON_DISABLED, SWITCHED_ON, ENABLED):
                self.go(a, READY)
        elif (cw & 0x0F) == 0x07:                           # switch on / disable operation
            if st in (READY, ENABLED):
                self.go(a, SWITCHED_ON)
        elif (cw & 0x0F) == 0x0F:                           # enable operation (switch on first from Ready)
            if st == READY:
                self.go(a, SWITCHED_ON)
            elif st in (SWITCHED_ON, QUICK_STOP) and self.o.refuse_enable != a + 1:
                ax.target = ax.pos
                self.go(a, ENABLED)

    def update(self):
        """Pending transitions that are due, the injected fault, the motion since the last update; the input
        registers from the state."""
        t = time.monotonic()
        h, self.t_update = t - self.t_update, t
        for a, ax in enumerate(self.axes):
            if ax.pending is not None and t >= ax.due:
                ax.state, ax.pending = ax.pending, None
                self.note("state,%d,%s" % (a + 1, NAMES[ax.state]))
                if ax.state == FAULT_REACTION:
                    self.go(a, FAULT, 0.01)
        if self.t_enabled is None and all(ax.state == ENABLED for ax in self.axes):
            self.t_enabled = t
        if (self.o.fault_at is not None and self.t_enabled is not None and t - self.t_enabled >= self.o.fault_at
                and self.axes[self.o.fault_axis - 1].state == ENABLED):
            ax = self.axes[self.o.fault_axis - 1]
            ax.error, ax.state = 0x2310, FAULT_REACTION
            self.note("state,%d,%s" % (self.o.fault_axis, NAMES[ax.state]))
            self.go(self.o.fault_axis - 1, FAULT, 0.01)
        for a, ax in enumerate(self.axes):
            p0 = ax.pos
            if ax.state == ENABLED:
                ax.pos = ax.target if ax.mode != 9 else ax.pos + round(ax.tvel * 10 * h)  # 0.001 deg/s -> 0.0001 deg
            ax.vel = round((ax.pos - p0) / 10 / h) if h > 0 else 0
            b = INPUT + 8 * a
            self.values[b:b + 7] = [STATUS[ax.state], ax.mode] + words(ax.pos) + words(ax.vel) + [ax.error]

    def getValues(self, address, count=1):
        self.update()
        if self.o.delay and self.t_enabled is not None and time.monotonic() - self.t_enabled >= self.o.delay_at:
            time.sleep(self.o.delay)
        return super().getValues(address, count)

    def setValues(self, address, values):
        if not isinstance(values, list):
            values = [values]
        self.update()
        super().setValues(address, values)
        n = len(self.axes)
        for i, v in enumerate(values):
            r = address + i
            if CONTROL <= r < CONTROL + 2 * n and (r - CONTROL) % 2 == 0:
                self.command((r - CONTROL) // 2, v)
            elif CONTROL <= r < CONTROL + 2 * n:
                self.axes[(r - CONTROL) // 2].mode = v
        if address < TARGET + 4 * n and address + len(values) > TARGET:
            for a, ax in enumerate(self.axes):
                ax.target = s32(self.values[4 * a], self.values[4 * a + 1])
                ax.tvel = s32(self.values[4 * a + 2], self.values[4 * a + 3])
            if address == TARGET and len(values) == 4 * n:
                self.note("sp," + ",".join(str(ax.target) for ax in self.axes))
        self.update()


async def serve(o):
    drive = Drive(o)
    context = ModbusServerContext(slaves=ModbusSlaveContext(hr=drive, zero_mode=True), single=True)
    server = ModbusTcpServer(context, address=("127.0.0.1", o.port))
    task = asyncio.create_task(server.serve_forever())
    await server.serving
    port = server.server.sockets[0].getsockname()[1]
    print("port %d" % port, flush=True)
    if o.port_file:
        with open(o.port_file + ".tmp", "w") as f:
            f.write("%d\n" % port)
        os.rename(o.port_file + ".tmp", o.port_file)
    await asyncio.sleep(o.timeout)
    drive.note("end," + ";".join(NAMES[ax.state] for ax in drive.axes))
    await server.shutdown()
    task.cancel()


def main():
    p = argparse.ArgumentParser(description="a CiA 402 drive over Modbus TCP (pymodbus), for the online tests")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--port-file")
    p.add_argument("--axes", type=int, default=6)
    p.add_argument("--start", default="")
    p.add_argument("--timeout", type=float, default=30)
    p.add_argument("--log")
    p.add_argument("--transition-delay", type=float, default=0.002)
    p.add_argument("--fault-at", type=float)
    p.add_argument("--fault-axis", type=int, default=1)
    p.add_argument("--refuse-enable", type=int, default=0)
    p.add_argument("--refuse-disable", type=int, default=0)
    p.add_argument("--start-in-fault", action="store_true")
    p.add_argument("--delay", type=float, default=0)
    p.add_argument("--delay-at", type=float, default=0)
    o = p.parse_args()
    o.start = [int(x) for x in o.start.split(",")] if o.start else []
    if not 1 <= o.axes <= 32 or not 1 <= o.fault_axis <= o.axes:
        p.error("--axes 1..32, --fault-axis 1..axes")
    asyncio.run(serve(o))


if __name__ == "__main__":
    sys.exit(main())
