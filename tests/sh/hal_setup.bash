# tests/sh/hal_setup.bash: the LinuxCNC HAL that tests/sh/online_hal.sh and bench/online/hal60.sh run irl against,
# sourced by both after they set $root: linuxcnc-uspace installed when missing (as root; else the caller exits 0
# with SKIP), the caller re-run under a child subreaper (rtapi_app daemonises; its orphans come back to be reaped),
# one HAL at a time (a lock), an unprivileged user of its own when run as root (HAL refuses root; `as CMD` runs CMD
# as that user), $tmp owned by it, docs/ONLINE-DRIVERS.md's irl-servo.hal and irl-wire.hal in $tmp, and
# hal_start_servo, which runs irl-servo.hal and gives the servo thread SCHED_FIFO (leaves its pid in $rtapi).
# Defines fail, note, as, tmp, rtapi, sampler and an EXIT trap that unloads the HAL and removes $tmp.

if ! command -v halcmd >/dev/null || [ ! -x /usr/bin/halsampler ]; then
    if [ "$(id -u)" = 0 ]; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends linuxcnc-uspace >/dev/null 2>&1 ||
            { apt-get update -qq >/dev/null 2>&1 &&
              DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends linuxcnc-uspace >/dev/null 2>&1; }
    fi
    command -v halcmd >/dev/null || { echo "SKIP: linuxcnc-uspace is not installed and could not be installed"; exit 0; }
fi

# Run the rest under a child subreaper: rtapi_app daemonises, and its orphans come back to us to be reaped.
if [ -z "${IRL_HAL_REAPER:-}" ]; then
    exec python3 - "$0" "$@" <<'EOF'
import ctypes, os, signal, sys, time
ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)                  # PR_SET_CHILD_SUBREAPER
pid = os.fork()
if pid == 0:
    os.execvpe("bash", ["bash"] + sys.argv[1:], dict(os.environ, IRL_HAL_REAPER="1"))
rc = 1
while True:
    p, st = os.waitpid(-1, 0)
    if p == pid:
        rc = os.waitstatus_to_exitcode(st)
        break
def left():                                             # our children still alive (not yet reaped)
    me, out = os.getpid(), []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                f = open("/proc/%s/stat" % d).read()
            except OSError:
                continue
            rest = f[f.rindex(")") + 2:].split()
            if int(rest[1]) == me:
                out.append((int(d), f[f.index("(") + 1:f.rindex(")")], rest[0]))
    return out
end = time.time() + 5
while time.time() < end:
    while True:
        try:
            p, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            p = 0
        if p == 0:
            break
    if not left():
        break
    time.sleep(0.1)
for p, name, state in left():
    print("FAIL left running: pid %d (%s)" % (p, name))
    os.kill(p, signal.SIGKILL)
    os.waitpid(p, 0)
    rc = 1
sys.exit(rc)
EOF
fi

fail=0
note() { echo "FAIL $*"; fail=1; }
# One HAL at a time in this IPC namespace: its shared-memory keys are fixed.
exec 9>/tmp/irl-online-hal.lock
flock -w 900 9 || { echo "FAIL another HAL user (online_hal.sh, bench-online) held the lock for 15 min"; exit 1; }
if ps -C rtapi_app -o stat= | grep -qv '^Z'; then
    echo "FAIL a HAL is already running here (rtapi_app $(ps -C rtapi_app -o pid=,stat= | tr '\n' ' ')): stop it first"
    exit 1
fi

if [ "$(id -u)" = 0 ]; then         # HAL refuses root: an unprivileged user of our own
    user=irlhal
    id "$user" >/dev/null 2>&1 || useradd -m "$user" || { echo "FAIL useradd $user"; exit 1; }
    home=$(getent passwd "$user" | cut -d: -f6)
    as=(setpriv --reuid="$user" --regid="$user" --init-groups env HOME="$home")
else                                # already one: HAL and irl both run as this user
    user=$(id -un)
    as=(env)
fi
as() { "${as[@]}" "$@"; }
tmp=$(mktemp -d)
chmod 755 "$tmp"
chown "$user:" "$tmp"
rtapi=""
sampler=""
cleanup() {
    [ -n "$sampler" ] && kill "$sampler" 2>/dev/null
    (cd "$tmp" && as halrun -U >/dev/null 2>&1)
    if [ -n "$rtapi" ] && kill -0 "$rtapi" 2>/dev/null && [ "$(ps -o stat= -p "$rtapi")" != Z ]; then
        kill "$rtapi" 2>/dev/null
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT

# The HAL files, exactly as docs/ONLINE-DRIVERS.md gives them.
for f in irl-servo.hal irl-wire.hal; do
    awk -v f="$f" '$0 ~ "^# " f ":" { on = 1 } on && /^```/ { exit } on' "$root/docs/ONLINE-DRIVERS.md" >"$tmp/$f"
    [ -s "$tmp/$f" ] || { echo "FAIL docs/ONLINE-DRIVERS.md has no $f"; exit 1; }
done

# Run irl-servo.hal: the servo thread, the stream, the sampler; rtapi_app is then our child (subreaper).
hal_start_servo() {
    (cd "$tmp" && as halcmd -f irl-servo.hal) >"$tmp/servo.log" 2>&1 || { echo "FAIL irl-servo.hal: $(tail -3 "$tmp/servo.log")"; exit 1; }
    rtapi=$(ps -eo pid=,ppid=,comm= | awk -v p="$PPID" '$2 == p && $3 == "rtapi_app" { print $1 }' | head -1)
    [ -n "$rtapi" ] || note "no rtapi_app child of this test after irl-servo.hal"
    # The servo thread as a PREEMPT_RT kernel would run it (this kernel is not one: rtapi_app runs "POSIX
    # non-realtime", under the normal policy, where the busy machine may hold it up beyond the stream's lead).
    if [ -n "$rtapi" ] && ! chrt -f -a -p 70 "$rtapi" 2>/dev/null; then
        [ "$(id -u)" = 0 ] && note "chrt: the servo thread stays under the normal policy"
        echo "warning: the servo thread runs under the normal policy (no permission for SCHED_FIFO): underruns may come"
    fi
}
