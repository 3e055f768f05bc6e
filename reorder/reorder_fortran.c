/* SPDX-License-Identifier: BSD-3-Clause */
/* libtopomap-reorder: the Fortran bindings (mpif.h and `use mpi`) of
 * MPI_CART_CREATE, MPI_GRAPH_CREATE, MPI_DIST_GRAPH_CREATE_ADJACENT and
 * MPI_DIST_GRAPH_CREATE.
 *
 * Open MPI 4.1's Fortran layer calls PMPI_* directly, so the C wrappers of
 * reorder_mpi.c never see a Fortran call; MPICH 4.0's calls the C MPI_*
 * functions (see profiler/fortran.c). Either way, these entry points
 * take the call first, convert the handles, LOGICALs and weight arrays, and
 * call the C wrapper, which calls PMPI_*: the MPI library's own Fortran
 * routine is not used. Four spellings per routine, as the profiler:
 * mpi_cart_create_ (gfortran), mpi_cart_create__, mpi_cart_create,
 * MPI_CART_CREATE. `use mpi_f08` calls other symbols and is not covered.
 *
 * Fortran's MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY are not values but the
 * addresses of variables private to each MPI's Fortran layer; a weight array
 * at one of those addresses means the C constant. Where the variables live
 * is each library's own business, so it is looked up per library (this file
 * is compiled once with each MPI's mpicc):
 * - Open MPI: the common blocks mpi_fortran_unweighted and
 *   mpi_fortran_weights_empty (libmpi.so exports them, one name per
 *   Fortran name-mangling convention);
 * - MPICH: the pointers MPIR_F_MPI_UNWEIGHTED and MPIR_F_MPI_WEIGHTS_EMPTY
 *   of libmpichfort, which its Fortran initialisation (mpirinitf_, run by
 *   Fortran's MPI_INIT, or here when MPIR_F_NeedInit says it has not run)
 *   points at its common blocks.
 * When neither is found (another MPI), the arrays are passed as given: a
 * weighted graph is still right, and an unweighted one gets the C library's
 * checks on its weights. */
#include <dlfcn.h>
#include <mpi.h>
#include <stdlib.h>

#define TR_EXPORT __attribute__((visibility("default")))
typedef MPI_Fint F;
_Static_assert(sizeof(MPI_Fint) == sizeof(int), "MPI_Fint must be a C int");

/* A Fortran LOGICAL: gfortran's .TRUE. is 1, some compilers' -1; any
 * nonzero value is true. */
static void f_cart(F *comm, F *ndims, F *dims, F *periods, F *reorder, F *cart, F *ierr)
{
    int n = *ndims > 0 ? *ndims : 0;
    int *p = malloc(((size_t)n + 1) * sizeof *p);
    if (!p) {
        *ierr = MPI_ERR_NO_MEM;
        return;
    }
    for (int i = 0; i < n; i++)
        p[i] = periods[i] != 0;
    MPI_Comm c = MPI_COMM_NULL;
    *ierr = MPI_Cart_create(PMPI_Comm_f2c(*comm), *ndims, dims, p, *reorder != 0, &c);
    if (*ierr == MPI_SUCCESS)
        *cart = PMPI_Comm_c2f(c);
    free(p);
}

static void f_graph(F *comm, F *nnodes, F *index, F *edges, F *reorder, F *graph, F *ierr)
{
    MPI_Comm c = MPI_COMM_NULL;
    *ierr = MPI_Graph_create(PMPI_Comm_f2c(*comm), *nnodes, index, edges, *reorder != 0, &c);
    if (*ierr == MPI_SUCCESS)
        *graph = PMPI_Comm_c2f(c);
}

/* The C constant for a Fortran weight array: MPI_UNWEIGHTED or
 * MPI_WEIGHTS_EMPTY when w is the address of the Fortran one, else w. */
static const int *f_weights(const F *w)
{
#if defined(OPEN_MPI)
    static const char *const unw[] = {"mpi_fortran_unweighted_", "mpi_fortran_unweighted",
                                      "mpi_fortran_unweighted__", "MPI_FORTRAN_UNWEIGHTED"};
    static const char *const empty[] = {"mpi_fortran_weights_empty_", "mpi_fortran_weights_empty",
                                        "mpi_fortran_weights_empty__",
                                        "MPI_FORTRAN_WEIGHTS_EMPTY"};
    for (size_t i = 0; i < sizeof unw / sizeof *unw; i++) {
        void *u = dlsym(RTLD_DEFAULT, unw[i]), *e = dlsym(RTLD_DEFAULT, empty[i]);
        if (u && (const void *)w == u)
            return MPI_UNWEIGHTED;
        if (e && (const void *)w == e)
            return MPI_WEIGHTS_EMPTY;
    }
#elif defined(MPICH)
    int *need = dlsym(RTLD_DEFAULT, "MPIR_F_NeedInit");
    void (*init)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "mpirinitf_");
    if (need && *need && init) {
        init();
        *need = 0;
    }
    void **u = dlsym(RTLD_DEFAULT, "MPIR_F_MPI_UNWEIGHTED");
    void **e = dlsym(RTLD_DEFAULT, "MPIR_F_MPI_WEIGHTS_EMPTY");
    if (u && *u && (const void *)w == *u)
        return MPI_UNWEIGHTED;
    if (e && *e && (const void *)w == *e)
        return MPI_WEIGHTS_EMPTY;
#endif
    return w;
}

static void f_adjacent(F *comm, F *indeg, F *sources, F *sweights, F *outdeg, F *dests,
                       F *dweights, F *info, F *reorder, F *graph, F *ierr)
{
    MPI_Comm c = MPI_COMM_NULL;
    *ierr = MPI_Dist_graph_create_adjacent(PMPI_Comm_f2c(*comm), *indeg, sources,
                                           f_weights(sweights), *outdeg, dests,
                                           f_weights(dweights), PMPI_Info_f2c(*info),
                                           *reorder != 0, &c);
    if (*ierr == MPI_SUCCESS)
        *graph = PMPI_Comm_c2f(c);
}

static void f_dist(F *comm, F *n, F *sources, F *degrees, F *dests, F *weights, F *info,
                   F *reorder, F *graph, F *ierr)
{
    MPI_Comm c = MPI_COMM_NULL;
    *ierr = MPI_Dist_graph_create(PMPI_Comm_f2c(*comm), *n, sources, degrees, dests,
                                  f_weights(weights), PMPI_Info_f2c(*info), *reorder != 0, &c);
    if (*ierr == MPI_SUCCESS)
        *graph = PMPI_Comm_c2f(c);
}

/* The four spellings of one routine; PARAMS is its parameter list, ARGS the
 * same names as the call's arguments. */
#define TR_F(fn, lname, UNAME, PARAMS, ARGS)                                                \
    TR_EXPORT void lname##_ PARAMS { fn ARGS; }                                             \
    TR_EXPORT void lname##__ PARAMS { fn ARGS; }                                            \
    TR_EXPORT void lname PARAMS { fn ARGS; }                                                \
    TR_EXPORT void UNAME PARAMS { fn ARGS; }

#define P7 (F * a, F * b, F * c, F * d, F * e, F * f, F * ierr)
#define A7 (a, b, c, d, e, f, ierr)
#define P10 (F * a, F * b, F * c, F * d, F * e, F * f, F * g, F * h, F * i, F * ierr)
#define A10 (a, b, c, d, e, f, g, h, i, ierr)
#define P11 (F * a, F * b, F * c, F * d, F * e, F * f, F * g, F * h, F * i, F * j, F * ierr)
#define A11 (a, b, c, d, e, f, g, h, i, j, ierr)

TR_F(f_cart, mpi_cart_create, MPI_CART_CREATE, P7, A7)
TR_F(f_graph, mpi_graph_create, MPI_GRAPH_CREATE, P7, A7)
TR_F(f_adjacent, mpi_dist_graph_create_adjacent, MPI_DIST_GRAPH_CREATE_ADJACENT, P11, A11)
TR_F(f_dist, mpi_dist_graph_create, MPI_DIST_GRAPH_CREATE, P10, A10)
