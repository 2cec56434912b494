/* display.h — the units the figures and report.txt show a value in: revolute quantities (rad, rad/s, rad/s^2,
 * rad/s^3: positions, speeds, accelerations, jerks, following errors, angular outputs, and their limits) in degrees
 * unless `irl run --display si`; everything else, and the trace and report.json always, in SI. */
#ifndef IRL_DISPLAY_H
#define IRL_DISPLAY_H

#include <string.h>

#define DISPLAY_DEG_PER_RAD 57.295779513082321 /* 180 / pi */

/* A unit as shown and the factor from the SI value to the shown one. */
typedef struct {
    const char *unit;
    double k;
} DisplayUnit;

/* How a value of SI unit `si` is shown: in degrees when `degrees` and the unit is an angle or its time derivative,
 * else as it is (k = 1). */
static inline DisplayUnit display_unit(const char *si, int degrees)
{
    static const char *const rad[] = {"rad", "rad/s", "rad/s^2", "rad/s^3"};
    static const char *const deg[] = {"deg", "deg/s", "deg/s^2", "deg/s^3"};
    for (int i = 0; degrees && si && i < 4; i++)
        if (strcmp(si, rad[i]) == 0) return (DisplayUnit){deg[i], DISPLAY_DEG_PER_RAD};
    return (DisplayUnit){si ? si : "", 1.0};
}

/* How an axis shows derivative `order` (0 position, 1 speed, 2 acceleration, 3 jerk) of its joint: rad/s^order or,
 * prismatic, m/s^order, through display_unit. */
static inline DisplayUnit display_axis(int prismatic, int order, int degrees)
{
    static const char *const si[2][4] = {{"rad", "rad/s", "rad/s^2", "rad/s^3"}, {"m", "m/s", "m/s^2", "m/s^3"}};
    return display_unit(si[prismatic != 0][order], degrees);
}

#endif
