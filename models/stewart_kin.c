/* stewart_kin.c — pure kinematics of the Stewart platform's pose coordinates: the roll-pitch-yaw rotation
 * R = Rz(phi) Ry(theta) Rx(psi) of seed 003 (eqs. 13, 16; ERRATA S4, S6), its angular-velocity matrix Omega and
 * Omega-dot, the angles of a rotation (closed form, seeded), and the paper's anchor layout (eqs. 5-10, ERRATA S1). */
#include "stewart.h"

#include <math.h>

#include "dmath.h"
#include "geom.h"

void stewart_rotation(const double eta[3], double R[9])
{
    double cs, ss, ct, st, cf, sf;
    dm_sincos(eta[0], &ss, &cs), dm_sincos(eta[1], &st, &ct), dm_sincos(eta[2], &sf, &cf);
    /* eq. 16 with the signs of ERRATA S4: columns alpha, beta, gamma of the direction cosines */
    R[0] = cf * ct;  R[1] = cf * st * ss - sf * cs;  R[2] = cf * st * cs + sf * ss;
    R[3] = sf * ct;  R[4] = sf * st * ss + cf * cs;  R[5] = sf * st * cs - cf * ss;
    R[6] = -st;      R[7] = ct * ss;                 R[8] = ct * cs;
}

/* omega = psidot Rz Ry ex + thetadot Rz ey + phidot ez (eq. 13: A, B, C rows). */
void stewart_omega_matrix(const double eta[3], double Om[9])
{
    double ct, st, cf, sf;
    dm_sincos(eta[1], &st, &ct), dm_sincos(eta[2], &sf, &cf);
    Om[0] = ct * cf;  Om[1] = -sf;  Om[2] = 0.0;
    Om[3] = ct * sf;  Om[4] = cf;   Om[5] = 0.0;
    Om[6] = -st;      Om[7] = 0.0;  Om[8] = 1.0;
}

/* Omega-dot etadot = psidot (thetadot e2 + phidot e3) x e1 + thetadot phidot e3 x e2, with e_k the columns of
 * Omega: e1 turns with the frame Rz Ry (angular velocity thetadot e2 + phidot e3), e2 with Rz alone. */
void stewart_omega_bias(const double eta[3], const double etad[3], double wb[3])
{
    double Om[9], e1[3], e2[3], e3[3] = {0, 0, 1}, w12[3], t[3];
    stewart_omega_matrix(eta, Om);
    v3_set(e1, Om[0], Om[3], Om[6]);
    v3_set(e2, Om[1], Om[4], Om[7]);
    v3_set(w12, etad[1] * e2[0], etad[1] * e2[1], etad[1] * e2[2] + etad[2]);
    v3_cross(t, w12, e1);
    v3_scale(wb, t, etad[0]);
    v3_cross(t, e3, e2);
    v3_axpy(wb, etad[1] * etad[2], t);
}

/* a + 2 pi k nearest to ref */
static double wrap_near(double a, double ref)
{
    return a + 2.0 * M_PI * nearbyint((ref - a) / (2.0 * M_PI));
}

int stewart_euler(const double R[9], const double *seed, double eta[3])
{
    double ct = sqrt(R[0] * R[0] + R[3] * R[3]);
    int lock = ct < 1e-12;
    eta[1] = dm_atan2(-R[6], ct);
    if (!lock) {
        eta[0] = dm_atan2(R[7], R[8]);
        eta[2] = dm_atan2(R[3], R[0]);
    } else {
        /* theta = +-pi/2: R12 = sin(psi -+ phi) (times +-1), R22 = cos(psi -+ phi); keep the seed's yaw */
        eta[2] = seed ? seed[2] : 0.0;
        eta[0] = R[6] < 0 ? eta[2] + dm_atan2(R[1], R[4]) : dm_atan2(-R[1], R[4]) - eta[2];
    }
    if (seed) {
        eta[0] = wrap_near(eta[0], seed[0]);
        if (!lock) eta[2] = wrap_near(eta[2], seed[2]);
    }
    return lock;
}

void stewart_paper_anchors(double r, double e, double d, const double ang[6], int platform, double pts[18])
{
    for (int i = 0; i < 6; i++) {
        /* 1-based leg index k = i + 1: base e_Bk = (-1)^k e_B, platform e_pk = (-1)^(k+1) e_p */
        double sign = (i % 2 == 0) ? -1.0 : 1.0;
        if (platform) sign = -sign;
        double c, s, y = sign * e;
        dm_sincos(ang[i], &s, &c);
        v3_set(pts + 3 * i, c * r - s * y, s * r + c * y, d);
    }
}
