/* test_urdf_mujoco.c — the real robot files of tests/robots/ that carry inertias: irl's inverse dynamics and mass
 * matrix of each file agree with MuJoCo's (Debian libmujoco-dev) of the same file to 1e-9 relative.
 *
 * MuJoCo reads a copy written by tests/tools/urdf_for_mujoco.py: the same physics with the fixed links lumped into
 * their parents and every inertia given in its principal axes, which MuJoCo's importer would otherwise compute
 * to only ~1e-9 (docs/MODELS.md §8.5). Joints are matched by name; MuJoCo's damping, armature, friction loss,
 * passive forces and constraints are off, its gravity irl's. Without MuJoCo's headers this test fails, saying so. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model.h"
#include "urdf.h"
#include "utest.h"

#ifdef IRL_HAVE_MUJOCO
#include <mujoco/mujoco.h>

#define TEST_RAND_SEED 0x2545F4914F6CDD1Dull
#include "test_rand.h"

#define SAMPLES 100
#define TOL 1e-9

static double uni(double lo, double hi) { return lo + (hi - lo) * urand(); }

/* max |a - b| / max(|b|_inf, 1) over n values */
static double relerr(const double *a, const double *b, int n)
{
    double s = 1, e = 0;
    for (int i = 0; i < n; i++) s = fmax(s, fabs(b[i]));
    for (int i = 0; i < n; i++) e = fmax(e, fabs(a[i] - b[i]));
    return e / s;
}

/* MuJoCo's model of the copy of `urdf`; NULL (with the reason printed) when it cannot be made. */
static mjModel *mujoco_model(const char *urdf)
{
    char path[] = "/tmp/irl_mujoco_XXXXXX.urdf", cmd[512], err[1000] = "";
    int fd = mkstemps(path, 5);
    if (fd < 0) { perror("mkstemps"); return NULL; }
    close(fd);
    snprintf(cmd, sizeof cmd, "python3 tests/tools/urdf_for_mujoco.py '%s' '%s'", urdf, path);
    mjModel *m = NULL;
    if (system(cmd) != 0)
        printf("#   %s: tests/tools/urdf_for_mujoco.py failed\n", urdf);
    else if (!(m = mj_loadXML(path, NULL, err, sizeof err)))
        printf("#   %s: MuJoCo: %s\n", urdf, err);
    unlink(path);
    return m;
}

/* One robot: SAMPLES seeded (q, qd, qdd); the worst relative errors of tau and M go to *e_tau and *e_m. */
static void compare(const char *urdf, double *e_tau, double *e_m)
{
    char err[512];
    ModelDesc d;
    Model m;
    *e_tau = *e_m = INFINITY;
    CHECK(urdf_read(urdf, &d, err, sizeof err) == 0);
    CHECK(d.inertia_missing[0] == '\0');
    if (model_open(&m, &d, err, sizeof err) != 0) { printf("#   %s: %s\n", urdf, err); CHECK(0); return; }
    mjModel *mm = mujoco_model(urdf);
    CHECK(mm != NULL);
    if (!mm) { model_close(&m); return; }
    int n = m.dof, idx[MODEL_MAX_DOF];
    CHECK(mm->nv == n && n == d.njoints);
    for (int i = 0; i < n && mm->nv == n; i++) { /* irl's axis i is MuJoCo's dof idx[i] */
        int j = mj_name2id(mm, mjOBJ_JOINT, d.joint[i].name);
        CHECK(j >= 0);
        idx[i] = j >= 0 ? mm->jnt_dofadr[j] : 0;
    }
    if (mm->nv != n) { mj_deleteModel(mm); model_close(&m); return; }
    mm->opt.disableflags |= mjDSBL_CONSTRAINT | mjDSBL_PASSIVE | mjDSBL_CONTACT | mjDSBL_ACTUATION;
    for (int k = 0; k < 3; k++) mm->opt.gravity[k] = d.gravity[k];
    for (int i = 0; i < n; i++) mm->dof_armature[i] = mm->dof_damping[i] = mm->dof_frictionloss[i] = 0;
    mjData *md = mj_makeData(mm);
    *e_tau = *e_m = 0;
    for (int s = 0; s < SAMPLES; s++) {
        double q[MODEL_MAX_DOF], qd[MODEL_MAX_DOF], qdd[MODEL_MAX_DOF], tau[MODEL_MAX_DOF], tau_mj[MODEL_MAX_DOF];
        double M[MODEL_MAX_DOF * MODEL_MAX_DOF], M_mj[MODEL_MAX_DOF * MODEL_MAX_DOF], Mf[MODEL_MAX_DOF * MODEL_MAX_DOF];
        for (int i = 0; i < n; i++) {
            q[i] = uni(-M_PI, M_PI);
            qd[i] = uni(-3, 3);
            qdd[i] = uni(-10, 10);
            md->qpos[idx[i]] = q[i];
            md->qvel[idx[i]] = qd[i];
            md->qacc[idx[i]] = qdd[i];
        }
        CHECK(model_inverse_dynamics(&m, q, qd, qdd, tau) == MODEL_OK);
        CHECK(model_mass_matrix(&m, q, M) == MODEL_OK);
        mj_inverse(mm, md);
        mj_fullM(mm, Mf, md->qM); /* qM from mj_inverse's position stage */
        for (int i = 0; i < n; i++) {
            tau_mj[i] = md->qfrc_inverse[idx[i]];
            for (int k = 0; k < n; k++) M_mj[i * n + k] = Mf[idx[i] * n + idx[k]];
        }
        *e_tau = fmax(*e_tau, relerr(tau, tau_mj, n));
        *e_m = fmax(*e_m, relerr(M, M_mj, n * n));
    }
    mj_deleteData(md);
    mj_deleteModel(mm);
    model_close(&m);
}

static void check_robot(const char *urdf)
{
    double e_tau, e_m;
    compare(urdf, &e_tau, &e_m);
    printf("# %s vs MuJoCo %s, %d states: max rel. error ID %.2e, M %.2e\n", urdf, mj_versionString(), SAMPLES,
           e_tau, e_m);
    CHECK(e_tau <= TOL);
    CHECK(e_m <= TOL);
}

UTEST(ur5_matches_mujoco) { check_robot("tests/robots/universalUR5.urdf"); }
UTEST(irb120_matches_mujoco) { check_robot("tests/robots/abbIrb120.urdf"); }
UTEST(kr120_matches_mujoco) { check_robot("tests/robots/kr120r2500pro.urdf"); }

/* The comparison can fail: one link's mass changed by 1e-6 relative in MuJoCo's copy shows up above the bound. */
UTEST(a_perturbed_copy_disagrees)
{
    char err[512];
    ModelDesc d;
    Model m;
    const char *urdf = "tests/robots/abbIrb120.urdf";
    CHECK(urdf_read(urdf, &d, err, sizeof err) == 0 && model_open(&m, &d, err, sizeof err) == 0);
    mjModel *mm = mujoco_model(urdf);
    CHECK(mm != NULL);
    if (!mm) { model_close(&m); return; }
    mm->opt.disableflags |= mjDSBL_CONSTRAINT | mjDSBL_PASSIVE | mjDSBL_CONTACT | mjDSBL_ACTUATION;
    mm->body_mass[mm->nbody - 1] *= 1 + 1e-6;
    mjData *md = mj_makeData(mm);
    double q[MODEL_MAX_DOF] = {0.3, -0.4, 0.5, 0.2, 0.7, -0.1}, z[MODEL_MAX_DOF] = {0}, tau[MODEL_MAX_DOF];
    CHECK(m.dof == 6 && mm->nv == 6);
    for (int i = 0; i < 6; i++) md->qpos[mm->jnt_dofadr[mj_name2id(mm, mjOBJ_JOINT, d.joint[i].name)]] = q[i];
    mj_inverse(mm, md);
    CHECK(model_inverse_dynamics(&m, q, z, z, tau) == MODEL_OK);
    double tau_mj[6];
    for (int i = 0; i < 6; i++) tau_mj[i] = md->qfrc_inverse[mm->jnt_dofadr[mj_name2id(mm, mjOBJ_JOINT, d.joint[i].name)]];
    double e = relerr(tau, tau_mj, 6);
    printf("# perturbed copy: rel. error %.2e\n", e);
    CHECK(e > TOL);
    mj_deleteData(md);
    mj_deleteModel(mm);
    model_close(&m);
}
#else
UTEST(mujoco_is_installed)
{
    printf("#   MuJoCo's headers (/usr/include/mujoco/mujoco.h) were not found when this test was built: install "
           "libmujoco-dev (make deps) and rebuild\n");
    CHECK(0);
}
#endif

int main(void)
{
#ifdef IRL_HAVE_MUJOCO
    RUN(ur5_matches_mujoco);
    RUN(irb120_matches_mujoco);
    RUN(kr120_matches_mujoco);
    RUN(a_perturbed_copy_disagrees);
#else
    RUN(mujoco_is_installed);
#endif
    return utest_done();
}
