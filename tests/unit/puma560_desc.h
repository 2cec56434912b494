/* puma560_desc.h — the PUMA 560 as a chain ModelDesc, for tests and benchmarks.
 *
 * Source: Peter Corke's Robotics Toolbox, mdl_puma560.m (standard Denavit-Hartenberg), whose kinematic and
 * dynamic parameters are from Armstrong, Khatib and Burdick, "The explicit dynamic model and inertial parameters
 * of the PUMA 560 arm", IEEE ICRA 1986 (link 1 inertia, link 2-6 masses, COMs, inertias), with Corke's joint
 * limits. Motor inertia and gearing are left out: this is the rigid-body model.
 *
 *   link  d        a       alpha   mass   COM r (DH frame i)           Ixx     Iyy     Izz
 *   1     0        0       +pi/2   1 *    0 0 0                        0.175 * 0.35    0.175 *
 *   2     0        0.4318  0       17.4   -0.3638 0.006 0.2275         0.13    0.524   0.539
 *   3     0.15005  0.0203  -pi/2   4.8    -0.0203 -0.0141 0.070        0.066   0.086   0.0125
 *   4     0.4318   0       +pi/2   0.82   0 0.019 0                    1.8e-3  1.3e-3  1.8e-3
 *   5     0        0       -pi/2   0.34   0 0 0                        0.3e-3  0.4e-3  0.3e-3
 *   6     0        0       0       0.09   0 0 0.032                    0.15e-3 0.15e-3 0.04e-3
 *   * link 1 turns about the fixed axis z0 through its centre of mass: its mass and its moments about the other
 *     axes enter no torque and are not published; a stand-in of 1 kg and a disc's (izz / 2), since a body with
 *     inertia has a mass (model_body_check; the PUMA's files say the same).
 *
 * Standard DH: T_{i-1,i} = Rz(theta_i) Tz(d_i) Tx(a_i) Rx(alpha_i); joint i turns about z_{i-1}. In the chain's
 * URDF convention link i's frame is frame i-1 turned by theta_i, so DH frame i = link frame * F_i with
 * F_i = Tz(d_i) Tx(a_i) Rx(alpha_i): joint i+1 sits at F_i in link i, and the DH-frame inertial data are moved
 * through F_i (com = (a, 0, d) + Rx(alpha) r, I = Rx(alpha) I Rx(alpha)^T). The tool is DH frame 6. */
#ifndef PUMA560_DESC_H
#define PUMA560_DESC_H

#include <math.h>
#include <string.h>

#include "model.h"

/* Rx(alpha), row-major */
static inline void puma560_rx(double R[9], double al)
{
    double c = cos(al), s = sin(al);
    double T[9] = {1, 0, 0, 0, c, -s, 0, s, c};
    memcpy(R, T, sizeof T);
}

/* Fill d with the PUMA 560 (backend "chain"). */
static inline void puma560_desc(ModelDesc *d)
{
    static const double dh_d[6] = {0, 0, 0.15005, 0.4318, 0, 0};
    static const double dh_a[6] = {0, 0.4318, 0.0203, 0, 0, 0};
    static const double dh_al[6] = {M_PI / 2, 0, -M_PI / 2, M_PI / 2, -M_PI / 2, 0};
    static const double mass[6] = {1, 17.4, 4.8, 0.82, 0.34, 0.09}; /* link 1's: a stand-in (puma560.irm) */
    static const double r[6][3] = {{0, 0, 0},          {-0.3638, 0.006, 0.2275}, {-0.0203, -0.0141, 0.070},
                                   {0, 0.019, 0},      {0, 0, 0},                {0, 0, 0.032}};
    static const double Id[6][3] = {{0.175, 0.35, 0.175},  {0.13, 0.524, 0.539},     {0.066, 0.086, 0.0125},
                                    {1.8e-3, 1.3e-3, 1.8e-3}, {0.3e-3, 0.4e-3, 0.3e-3}, {0.15e-3, 0.15e-3, 0.04e-3}};
    static const double qlim_deg[6][2] = {{-160, 160}, {-45, 225}, {-225, 45}, {-110, 170}, {-100, 100}, {-266, 266}};
    model_desc_init(d);
    strcpy(d->name, "puma560");
    strcpy(d->backend, "chain");
    strcpy(d->source, "tests/unit/puma560_desc.h");
    d->njoints = 6;
    for (int i = 0; i < 6; i++) {
        ModelJoint *j = &d->joint[i];
        snprintf(j->name, sizeof j->name, "j%d", i + 1);
        snprintf(j->link, sizeof j->link, "link%d", i + 1);
        j->parent = i - 1;
        j->type = MODEL_REVOLUTE;
        if (i > 0) { /* joint i+1 at F_i of the previous link */
            j->origin_xyz[0] = dh_a[i - 1];
            j->origin_xyz[1] = 0;
            j->origin_xyz[2] = dh_d[i - 1];
            puma560_rx(j->origin_R, dh_al[i - 1]);
        }
        j->axis[0] = 0; j->axis[1] = 0; j->axis[2] = 1;
        double Rx[9];
        puma560_rx(Rx, dh_al[i]);
        j->mass = mass[i];
        for (int k = 0; k < 3; k++)
            j->com[k] = (k == 0 ? dh_a[i] : k == 2 ? dh_d[i] : 0.0) + Rx[3 * k] * r[i][0] + Rx[3 * k + 1] * r[i][1] +
                        Rx[3 * k + 2] * r[i][2];
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) {
                double s = 0;
                for (int k = 0; k < 3; k++) s += Rx[3 * a + k] * Id[i][k] * Rx[3 * b + k];
                j->inertia[3 * a + b] = s;
            }
        j->limits.min = qlim_deg[i][0] * M_PI / 180;
        j->limits.max = qlim_deg[i][1] * M_PI / 180;
    }
    d->tool_link = 5;
    d->tool_xyz[0] = dh_a[5];
    d->tool_xyz[2] = dh_d[5];
    puma560_rx(d->tool_R, dh_al[5]);
}

#endif
