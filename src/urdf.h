/* urdf.h — read a URDF robot description (libxml2, loaded on first use: xml_loader.h) into a `chain` ModelDesc.
 *
 * Supported: revolute, continuous and prismatic joints (origin xyz/rpy, axis, limit lower/upper/velocity/effort),
 * fixed joints (the child link is welded to its parent: frames composed, inertias lumped), links with <inertial>
 * (origin xyz/rpy, mass, inertia; a rotated inertial frame is turned into the link frame), any tree. Joints are
 * numbered parents first, depth-first from the root link in document order. The tool point is the link named
 * "tool0" (else "tool") when there is one, otherwise the origin of the last joint's link.
 * Checked at file:line:col: every link's mass and inertia and every joint's limits (model_body_check,
 * model_limits_check);
 * `effort="0"` and `velocity="0"` mean "not given" (ROS-Industrial's convention: no limit), negative values are
 * errors. A moving body none of whose links has <inertial> is named in d->inertia_missing and in a warning.
 * A <mimic joint multiplier offset> joint follows its leader (ModelJoint.mimic_of): not an axis of the planner,
 * in the kinematics and dynamics all the same (model.h, model_open).
 * Not supported (an error names them): floating and planar joints, several root links. */
#ifndef IRL_URDF_H
#define IRL_URDF_H

#include <stddef.h>
#include <stdio.h>

#include "model.h"

/* Fill d from the URDF file at path. Returns 0, or < 0 (MODEL_EINVAL) with "file:line:col: error: message" in err
 * (the offending attribute's value or element; libxml2's syntax errors: "file:line: error: message").
 * Warnings ("file:line: warning: ...", e.g. moving links without <inertial>) go to stderr. */
int urdf_read(const char *path, ModelDesc *d, char *err, size_t errlen);
/* urdf_read with the warnings written to `warn`. */
int urdf_read_to(const char *path, ModelDesc *d, char *err, size_t errlen, FILE *warn);

#endif
