/* check_lits.h — bare numbers the checker's types accept but people rarely mean: a literal of more than a turn in
 * an angle place (a warning: degrees meant?), a percentage parameter given without % (an error), and JOINT(...)
 * values against the axes of the device's machine file (a length on a revolute axis or an angle on a prismatic one:
 * an error at its column). check.c calls them; they report through the Diag. */
#ifndef IRL_CHECK_LITS_H
#define IRL_CHECK_LITS_H

#include <stdbool.h>

#include "ast.h"
#include "diag.h"
#include "model.h"

/* The value of a number literal written without a unit (under any minus signs); false for anything else. */
bool lits_bare(const Node *n, double *v);
/* n sits in an angle place (rad): a warning when it is a bare literal of more than a turn. */
void lits_angle(Diag *d, const Node *n, const char *what);
/* n sits in a percentage place (SPEED_PTP, ACC_PTP, APPROX_PTP): an error when it is a bare literal. */
void lits_percent(Diag *d, const Node *n, const char *what);
/* Read the machine file `file` a DEVICE declared in `program` names (relative to the program's folder) into *out,
 * quietly: false when it cannot be read (the run reports why). */
bool lits_device_desc(const char *program, const char *file, ModelDesc *out);
/* The arguments of JOINT(...) (already typed) against the axes of device `dev` described by desc. */
void lits_joint(Diag *d, Node **args, int nargs, const ModelDesc *desc, const char *dev);

#endif
