/* test_machine_files.c — the shipped centrifuge machine files against the C-built description they transcribe:
 * models/centrifuge.irm and models/centrifuge_chain.irm field by field against tests/unit/centrifuge_desc.h
 * (the PUMA's .irm is test_machine's), and both open under their back-ends. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "centrifuge_desc.h"
#include "machine.h"
#include "utest.h"

/* Equal numbers (relative 1e-12 past 1), or the same infinity (absent limits). */
#define CHECK_SAME(a, b) CHECK_SAME_TOL(a, b, 1e-12 * fmax(1, fabs(sb_)))

#include "desc_check.h"

/* Load `path` and compare it with centrifuge_desc_fill, back-end `backend`. */
static void compare_centrifuge(const char *path, const char *backend)
{
    static ModelDesc want, got;
    centrifuge_desc_fill(&want);
    Diag diag;
    diag_init(&diag, stdout);
    int rc = machine_load(path, &got, &diag);
    diag_free(&diag);
    CHECK(rc == MACHINE_OK);
    if (rc != MACHINE_OK) return;
    CHECK(strcmp(got.name, want.name) == 0);
    CHECK(strcmp(got.backend, backend) == 0);
    for (int k = 0; k < 3; k++) CHECK_SAME(got.gravity[k], want.gravity[k]);
    check_joints_same(&got, &want);
    CHECK(got.tool_link == 2 || got.tool_link == -1); /* default: the last joint's link */
    for (int k = 0; k < 3; k++) CHECK_SAME(got.tool_xyz[k], want.tool_xyz[k]);
    for (int k = 0; k < 9; k++) CHECK_SAME(got.tool_R[k], want.tool_R[k]);
    CHECK(got.nparams == want.nparams);
    for (int i = 0; i < want.nparams; i++) {
        const ModelParam *p = model_desc_param(&got, want.param[i].name);
        CHECK(p != NULL);
        if (!p) continue;
        CHECK(p->n == want.param[i].n);
        CHECK_SAME(p->v[0], want.param[i].v[0]);
    }
    CHECK(got.noutput_limits == want.noutput_limits);
    for (int i = 0; i < want.noutput_limits && i < got.noutput_limits; i++) {
        CHECK(strcmp(got.output_limit[i].name, want.output_limit[i].name) == 0);
        CHECK_SAME(got.output_limit[i].min, want.output_limit[i].min);
        CHECK_SAME(got.output_limit[i].max, want.output_limit[i].max);
    }
    Model m;
    char err[256];
    rc = model_open(&m, &got, err, sizeof err);
    CHECK(rc == MODEL_OK);
    if (rc) printf("#   %s\n", err);
    CHECK(m.dof == 3);
    model_close(&m);
}

UTEST(centrifuge_irm_matches_c_description) { compare_centrifuge("models/centrifuge.irm", "centrifuge"); }
UTEST(centrifuge_chain_irm_matches_c_description) { compare_centrifuge("models/centrifuge_chain.irm", "chain"); }

int main(void)
{
    RUN(centrifuge_irm_matches_c_description);
    RUN(centrifuge_chain_irm_matches_c_description);
    return utest_done();
}
