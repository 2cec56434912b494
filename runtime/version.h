/* version.h — irl's version, printed by `irl --version` and recorded in the outputs (the HDF5 trace). */
#ifndef IRL_VERSION_H
#define IRL_VERSION_H

#define IRL_VERSION "0.1.0"

#endif
