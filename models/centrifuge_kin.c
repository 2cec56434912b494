/* centrifuge_kin.c — pure kinematics of the seed-000 human centrifuge: link rotations, seat position, z-x-z Euler
 * angles, closed-form IK from an orientation and the Jacobians J_I, J_omega, J_II, all with ERRATA C1-C12 applied. */
#include "centrifuge.h"

#include <math.h>

#include "dmath.h"
#include "geom.h"

/* Angle a shifted by a multiple of 2 pi to lie nearest to ref. */
static double wrap_near(double a, double ref)
{
    return a + 2.0 * M_PI * nearbyint((ref - a) / (2.0 * M_PI));
}

/* A01, A02 = A01 A12 or A03 = A01 A12 A23 (eqs. 2a-2c, 5). */
void centrifuge_link_rotation(const double q[3], int link, double R[9])
{
    double c1, s1;
    dm_sincos(q[0], &s1, &c1);
    double A01[9] = {c1, -s1, 0, s1, c1, 0, 0, 0, 1};
    if (link <= 0) { memcpy(R, A01, sizeof A01); return; }
    double c2, s2;
    dm_sincos(q[1], &s2, &c2);
    double A12[9] = {c2, 0, -s2, 0, 1, 0, s2, 0, c2};
    if (link == 1) { m3_mul(R, A01, A12); return; }
    double c3, s3;
    dm_sincos(q[2], &s3, &c3);
    double A23[9] = {1, 0, 0, 0, c3, -s3, 0, s3, c3}, A02[9];
    m3_mul(A02, A01, A12);
    m3_mul(R, A02, A23);
}

/* Seat E at the crossing of the gondola axes, eq. 3. */
void centrifuge_seat(double a1, const double q[3], double r[3])
{
    double c1, s1;
    dm_sincos(q[0], &s1, &c1);
    v3_set(r, a1 * c1, a1 * s1, 0.0);
}

/* z-x-z Euler angles (ERRATA C4, C5): theta = atan2(|a_xy|, a_z), psi = atan2(a_x, -a_y), phi = atan2(n_z, o_z). */
int centrifuge_euler(const double R[9], double e[3])
{
    double ax = R[2], ay = R[5], az = R[8];
    double st = dm_hypot(ax, ay);
    e[1] = dm_atan2(st, az);
    if (st > 1e-12 && dm_hypot(R[6], R[7]) > 1e-12) {
        e[0] = dm_atan2(ax, -ay);
        e[2] = dm_atan2(R[6], R[7]);
        return 0;
    }
    /* Gimbal lock: A = Rz(psi +- phi) up to the x flip; its first column is (cos, sin, 0) of psi -+ phi. */
    e[0] = dm_atan2(R[3], R[0]);
    e[2] = 0.0;
    return 1;
}

/* Rz(psi) Rx(theta) Rz(phi), eq. 5 right-hand side with C1-C3 corrected. */
void centrifuge_euler_matrix(const double e[3], double R[9])
{
    double cp, sp, ct, st, cf, sf;
    dm_sincos(e[0], &sp, &cp), dm_sincos(e[1], &st, &ct), dm_sincos(e[2], &sf, &cf);
    R[0] = cp * cf - sp * ct * sf; R[1] = -cp * sf - sp * ct * cf; R[2] = sp * st;
    R[3] = sp * cf + cp * ct * sf; R[4] = -sp * sf + cp * ct * cf; R[5] = -cp * st;
    R[6] = st * sf;                R[7] = st * cf;                 R[8] = ct;
}

/* q2 = atan2(n_z, c1 n_x + s1 n_y) and q3 from row 2 of A10 A03 = A12 A23 (C6, C7), for a given q1. */
void centrifuge_ik_given_q1(const double R[9], double q1, double q[3])
{
    double c1, s1;
    dm_sincos(q1, &s1, &c1);
    q[0] = q1;
    q[1] = dm_atan2(R[6], c1 * R[0] + s1 * R[3]);
    q[2] = dm_atan2(s1 * R[2] - c1 * R[5], c1 * R[4] - s1 * R[1]);
}

/* Squared distance of q to the seed after wrapping q1 and q3 (multi-turn axes) next to it. */
static double wrap_to_seed(double q[3], const double seed[3])
{
    q[0] = wrap_near(q[0], seed[0]);
    q[2] = wrap_near(q[2], seed[2]);
    double d0 = q[0] - seed[0], d1 = q[1] - seed[1], d2 = q[2] - seed[2];
    return d0 * d0 + d1 * d1 + d2 * d2;
}

/* Corrected eqs. 11: q1 = atan2(n_y3, n_x3) (the c2 > 0 branch) or q1 + pi (c2 < 0), then q2, q3 given q1. With a
 * seed, the branch nearer to it wins. */
int centrifuge_ik_orientation(const double R[9], const double *q_seed, double q[3])
{
    double nx = R[0], ny = R[3];
    if (dm_hypot(nx, ny) <= 1e-12) { /* only q1 +- q3 is defined: keep the seed's arm angle */
        centrifuge_ik_given_q1(R, q_seed ? q_seed[0] : 0.0, q);
        if (q_seed) q[2] = wrap_near(q[2], q_seed[2]);
        return 1;
    }
    centrifuge_ik_given_q1(R, dm_atan2(ny, nx), q);
    if (!q_seed) return 0;
    double alt[3];
    centrifuge_ik_given_q1(R, dm_atan2(-ny, -nx), alt);
    if (wrap_to_seed(alt, q_seed) < wrap_to_seed(q, q_seed)) memcpy(q, alt, sizeof alt);
    return 0;
}

/* J_I of eq. 13. */
void centrifuge_jacobian_position(double a1, const double q[3], double JI[9])
{
    double c1, s1;
    dm_sincos(q[0], &s1, &c1);
    double J[9] = {-a1 * s1, 0, 0, a1 * c1, 0, 0, 0, 0, 0};
    memcpy(JI, J, sizeof J);
}

/* Columns: z0, A01 e2 with e2 = -y1, A02 e3 with e3 = x2 (eq. 8a with C13). */
void centrifuge_jacobian_omega(const double q[3], double Jw[9])
{
    double c1, s1, c2, s2;
    dm_sincos(q[0], &s1, &c1), dm_sincos(q[1], &s2, &c2);
    double J[9] = {0, s1, c1 * c2, 0, -c1, s1 * c2, 1, 0, s2};
    memcpy(Jw, J, sizeof J);
}

/* Euler rates from omega: theta' = c_psi w_x + s_psi w_y, phi' = (s_psi w_x - c_psi w_y) / s_theta,
 * psi' = w_z - c_theta phi' (the inverse of omega = psi' z0 + theta' Rz(psi) x + phi' Rz(psi) Rx(theta) z). */
int centrifuge_jacobian_euler(const double q[3], double JII[9])
{
    double R[9], e[3], Jw[9];
    centrifuge_link_rotation(q, 2, R);
    if (centrifuge_euler(R, e)) return MODEL_ESINGULAR;
    double cp, sp, ct, st;
    dm_sincos(e[0], &sp, &cp), dm_sincos(e[1], &st, &ct);
    centrifuge_jacobian_omega(q, Jw);
    for (int j = 0; j < 3; j++) {
        double wx = Jw[j], wy = Jw[3 + j], wz = Jw[6 + j];
        double th = cp * wx + sp * wy, ph = (sp * wx - cp * wy) / st;
        JII[j] = wz - ct * ph;
        JII[3 + j] = th;
        JII[6 + j] = ph;
    }
    return MODEL_OK;
}

double centrifuge_singularity_mechanism(const double q[3]) { return fabs(dm_cos(q[1])); }

double centrifuge_singularity_euler(const double q[3])
{
    double s3, c3;
    dm_sincos(q[2], &s3, &c3);
    return dm_hypot(s3, dm_sin(q[1]) * c3); /* |a_xy| of A03: s3^2 + s2^2 c3^2 = 1 - c2^2 c3^2 */
}
