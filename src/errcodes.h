/* errcodes.h — the run-time error codes a program sees in ERRNO, can RAISE and can handle in ON ERROR.
 * One list (X-macro) feeds the checker's predefined constants, the VM and the messages.
 *   X(NAME, value, "message") */
#ifndef IRL_ERRCODES_H
#define IRL_ERRCODES_H

#define IRL_ERRCODES(X)                                                         \
    X(ERR_USER, 1, "error raised by the program")                              \
    X(ERR_DIV_ZERO, 2, "division by zero")                                     \
    X(ERR_INDEX, 3, "index out of range")                                      \
    X(ERR_STACK, 4, "stack overflow (runaway recursion)")                      \
    X(ERR_MATH, 5, "argument out of the function's domain")                    \
    X(ERR_CONVERT, 6, "value out of range for INT")                            \
    X(ERR_NOT_SUPPORTED, 7, "statement not supported yet")                     \
    X(ERR_JOINT_COUNT, 8, "JOINT has the wrong number of axes")                \
    X(ERR_IK, 20, "no inverse-kinematics solution")                            \
    X(ERR_JOINT_LIMIT, 21, "joint limit exceeded")                             \
    X(ERR_SINGULAR, 22, "singular configuration")                              \
    X(ERR_TORQUE, 23, "torque or force limit exceeded")                        \
    X(ERR_SPEED, 24, "speed limit exceeded")                                   \
    X(ERR_TIMEOUT, 25, "WAIT FOR timed out")                                   \
    X(ERR_GLIMIT, 26, "G-load or onset-rate limit exceeded")                   \
    X(ERR_DEVICE, 27, "device or I/O failure")                                 \
    /* tasks */                                                                \
    X(ERR_TASK, 30, "task conflict (a task started twice, a device moved by two tasks)")

typedef enum {
    IRL_ERR_NONE = 0,
#define X(name, value, msg) IRL_##name = value,
    IRL_ERRCODES(X)
#undef X
} IrlErrCode;

#endif
