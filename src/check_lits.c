/* check_lits.c — bare literals in angle and percentage places, JOINT literals against the device's axes
 * (check_lits.h). */
#include "check_lits.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "machine.h"
#include "units.h"
#include "urdf.h"

bool lits_bare(const Node *n, double *v)
{
    double sign = 1;
    while (n && ((n->kind == E_UNARY && n->op == '-') || n->kind == E_WIDEN)) {
        if (n->kind == E_UNARY) sign = -sign;
        n = n->a;
    }
    if (!n || (n->kind != E_INT && n->kind != E_REAL) || (n->flags & NF_HAS_UNIT)) return false;
    *v = sign * (n->kind == E_INT ? (double)n->lit.i : n->lit.r);
    return true;
}

void lits_angle(Diag *d, const Node *n, const char *what)
{
    double v;
    if (lits_bare(n, &v) && fabs(v) > 2 * M_PI)
        diag_warning(d, n->loc, "%s: %g rad is more than a turn: write %g deg if you meant degrees", what, v, v);
}

void lits_percent(Diag *d, const Node *n, const char *what)
{
    double v;
    if (!lits_bare(n, &v)) return;
    if (v != 0 && fabs(v) <= 1) /* a fraction: the user most likely meant 100 v % */
        diag_error(d, n->loc, "%s takes a percentage: write %g %% (a bare %g would mean %g %%; %g %% is %g percent)",
                   what, 100 * v, v, 100 * v, v, v);
    else
        diag_error(d, n->loc, "%s takes a percentage: write %g %% (a bare %g would mean %g %%)", what, v, v, 100 * v);
}

bool lits_device_desc(const char *program, const char *file, ModelDesc *out)
{
    char path[1024];
    const char *slash = program ? strrchr(program, '/') : NULL;
    if (!file || !*file) return false;
    if (file[0] == '/' || !slash) snprintf(path, sizeof path, "%s", file);
    else snprintf(path, sizeof path, "%.*s/%s", (int)(slash - program), program, file);
    size_t n = strlen(path);
    FILE *quiet = fopen("/dev/null", "w"); /* the run reads the file again and reports its problems */
    if (!quiet) return false;
    int ok;
    if (n >= 5 && strcasecmp(path + n - 5, ".urdf") == 0) {
        char err[512];
        ok = urdf_read_to(path, out, err, sizeof err, quiet) == 0;
    } else {
        Diag diag;
        diag_init(&diag, quiet);
        ok = machine_load(path, out, &diag) == MACHINE_OK;
        diag_free(&diag);
    }
    fclose(quiet);
    return ok;
}

void lits_joint(Diag *d, Node **args, int nargs, const ModelDesc *desc, const char *dev)
{
    Dim angle = {.e = {0, 0, 0, 1}}, length = {.e = {1, 0, 0, 0}};
    for (int i = 0; i < nargs && i < desc->njoints; i++) {
        const ModelJoint *j = &desc->joint[i];
        int rev = j->type == MODEL_REVOLUTE;
        if (!args[i]->type || args[i]->type->kind != TY_REAL) continue;
        Dim dim = args[i]->type->dim;
        char what[160];
        snprintf(what, sizeof what, "JOINT axis %d (%s of %s)", i + 1, j->name, dev);
        if (dim.any) {
            if (rev) lits_angle(d, args[i], what);
        } else if (rev && dim_eq(dim, length))
            diag_error(d, args[i]->loc, "%s is revolute: a length does not fit it (an angle, e.g. 90 deg)", what);
        else if (!rev && dim_eq(dim, angle))
            diag_error(d, args[i]->loc, "%s is prismatic: an angle does not fit it (a length, e.g. 90 mm)", what);
    }
    if (nargs > desc->njoints)
        diag_error(d, args[desc->njoints]->loc, "JOINT: %d values for %s, which has %d axes (%s)", nargs, dev,
                   desc->njoints, desc->source);
}
