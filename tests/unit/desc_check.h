/* desc_check.h — compare the joint tables of two machine descriptions field by field (a machine file read back
 * against the same machine built in C). The including test defines CHECK_SAME(a, b) first: equal numbers to its
 * own tolerance, or the same infinity. */
#ifndef IRL_TEST_DESC_CHECK_H
#define IRL_TEST_DESC_CHECK_H

#include <string.h>

#include "model.h"
#include "utest.h"

static void check_joints_same(const ModelDesc *got, const ModelDesc *want)
{
    CHECK(got->njoints == want->njoints);
    for (int i = 0; i < want->njoints && i < got->njoints; i++) {
        const ModelJoint *a = &got->joint[i], *b = &want->joint[i];
        CHECK(strcmp(a->name, b->name) == 0);
        CHECK(strcmp(a->link, b->link) == 0);
        CHECK(a->parent == b->parent);
        CHECK(a->type == b->type);
        for (int k = 0; k < 3; k++) {
            CHECK_SAME(a->origin_xyz[k], b->origin_xyz[k]);
            CHECK_SAME(a->axis[k], b->axis[k]);
            CHECK_SAME(a->com[k], b->com[k]);
        }
        for (int k = 0; k < 9; k++) {
            CHECK_SAME(a->origin_R[k], b->origin_R[k]);
            CHECK_SAME(a->inertia[k], b->inertia[k]);
        }
        CHECK_SAME(a->mass, b->mass);
        CHECK(a->powered == b->powered);
        CHECK_SAME(a->home, b->home);
        CHECK_SAME(a->limits.min, b->limits.min);
        CHECK_SAME(a->limits.max, b->limits.max);
        CHECK_SAME(a->limits.vmax, b->limits.vmax);
        CHECK_SAME(a->limits.amax, b->limits.amax);
        CHECK_SAME(a->limits.jmax, b->limits.jmax);
        CHECK_SAME(a->limits.effort, b->limits.effort);
        CHECK(a->motor.present == b->motor.present);
    }
}

#endif
