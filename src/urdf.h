/* urdf.h — read a URDF robot description (libxml2, loaded on first use: xml_loader.h) into a `chain` ModelDesc.
 *
 * Supported: revolute, continuous and prismatic joints (origin xyz/rpy, axis, limit lower/upper/velocity/effort),
 * fixed joints (the child link is welded to its parent: frames composed, inertias lumped), links with <inertial>
 * (origin xyz/rpy, mass, inertia; a rotated inertial frame is turned into the link frame), any tree. Joints are
 * numbered parents first, depth-first from the root link in document order. The tool point is the link named
 * "tool0" (else "tool") when there is one, otherwise the origin of the last joint's link.
 * Not supported (an error names them): floating and planar joints, mimic joints, several root links. */
#ifndef IRL_URDF_H
#define IRL_URDF_H

#include <stddef.h>

#include "model.h"

/* Fill d from the URDF file at path. Returns 0, or < 0 (MODEL_EINVAL) with "file:line: error: message" in err. */
int urdf_read(const char *path, ModelDesc *d, char *err, size_t errlen);

#endif
