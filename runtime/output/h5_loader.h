/* h5_loader.h — libhdf5, loaded when an HDF5 trace is first written or read rather than at start-up.
 *
 * Linked in, the serial libhdf5 brings ~35 libraries with it (libcurl, gnutls, krb5, ldap, ...): ~6 ms of dynamic
 * loading in every run, though only `--trace h5` and `irl trace` use it. The library is the one whose headers the
 * build compiled against: the Makefile reads its soname from libhdf5.so into HDF5_SONAME (libhdf5_serial.so.103
 * when it cannot, with a warning).
 *
 * hdf5.h's type and property-class ids (H5T_NATIVE_DOUBLE, H5P_DATASET_CREATE, ...) are global variables of the
 * library: the table carries their values instead. Its file-access flags (H5F_ACC_TRUNC, ...) call H5check and
 * H5open; the loader opens the library and checks its version itself, so below they expand to their constants. */
#ifndef IRL_H5_LOADER_H
#define IRL_H5_LOADER_H

#include <stddef.h>

#include <hdf5.h>

#undef H5CHECK
#define H5CHECK
#undef H5OPEN
#define H5OPEN

/* The libhdf5 functions the trace's writer and reader use (runtime/output/trace_h5.c), each named as in hdf5.h
 * without its H5 prefix: the table's fields and the symbols the loader binds. */
#define H5_API_FUNCTIONS(X)                                                                                    \
    X(Eset_auto2) X(Fcreate) X(Fopen) X(Fclose) X(Gcreate2) X(Gclose)                                          \
    X(Pcreate) X(Pclose) X(Pset_obj_track_times) X(Pset_chunk) X(Pset_shuffle) X(Pset_deflate) X(Pset_fill_time) \
    X(Tcopy) X(Tset_size) X(Tset_cset) X(Tclose)                                                               \
    X(Screate) X(Screate_simple) X(Sclose) X(Sget_simple_extent_npoints) X(Sget_simple_extent_ndims)          \
    X(Sget_simple_extent_dims) X(Sselect_hyperslab)                                                            \
    X(Acreate2) X(Aopen) X(Awrite) X(Aread) X(Aget_space) X(Aclose)                                            \
    X(Dcreate2) X(Dopen2) X(Dset_extent) X(Dwrite) X(Dwrite_chunk) X(Dread) X(Dget_space) X(Dclose)
/* The global ids, each with its variable: H5T_NATIVE_DOUBLE is the table's T_NATIVE_DOUBLE. */
#define H5_API_IDS(X)                                                                                          \
    X(T_C_S1, H5T_C_S1_g) X(T_IEEE_F64LE, H5T_IEEE_F64LE_g) X(T_STD_I64LE, H5T_STD_I64LE_g)                   \
    X(T_NATIVE_DOUBLE, H5T_NATIVE_DOUBLE_g) X(T_NATIVE_LONG, H5T_NATIVE_LONG_g)                                \
    X(P_DATASET_CREATE, H5P_CLS_DATASET_CREATE_ID_g) X(P_GROUP_CREATE, H5P_CLS_GROUP_CREATE_ID_g)
/* Frees what a read put into variable-length strings: H5Treclaim from HDF5 1.12, H5Dvlen_reclaim before. */
#if H5_VERSION_GE(1, 12, 0)
#define H5_API_RECLAIM H5Treclaim
#else
#define H5_API_RECLAIM H5Dvlen_reclaim
#endif

#define H5_API_FIELD(name) __typeof__(H5##name) *name;
#define H5_API_ID(name, var) hid_t name;
typedef struct {
    H5_API_FUNCTIONS(H5_API_FIELD)
    __typeof__(H5_API_RECLAIM) *reclaim;
    H5_API_IDS(H5_API_ID) /* valid while the library is open, as the loader leaves it */
} H5Api;
#undef H5_API_FIELD
#undef H5_API_ID

/* The table, loading and opening the library on the first call (thread-safe). NULL when it cannot be loaded, with
 * the reason in err. */
const H5Api *h5_api(char *err, size_t errlen);

#endif
