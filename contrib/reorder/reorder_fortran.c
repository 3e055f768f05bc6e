/* SPDX-License-Identifier: BSD-3-Clause */
/* libtopomap-reorder: the Fortran bindings (mpif.h and `use mpi`) of
 * MPI_CART_CREATE and MPI_GRAPH_CREATE.
 *
 * Open MPI 4.1's Fortran layer calls PMPI_* directly, so the C wrappers of
 * reorder_mpi.c never see a Fortran call; MPICH 4.0's calls the C MPI_*
 * functions (see contrib/profiler/fortran.c). Either way, these entry points
 * take the call first, convert the handles and LOGICALs, and call the C
 * wrapper, which calls PMPI_*: the MPI library's own Fortran routine is not
 * used. The distributed-graph constructors are not here: their
 * MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY are addresses private to each MPI's
 * Fortran layer, so they reach MPI unchanged (MPI's own numbering). Four
 * spellings per routine, as the profiler: mpi_cart_create_ (gfortran),
 * mpi_cart_create__, mpi_cart_create, MPI_CART_CREATE. */
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

#define TR_F(fn, lname, UNAME)                                                              \
    TR_EXPORT void lname##_(F *a, F *b, F *c, F *d, F *e, F *f, F *ierr)                    \
    {                                                                                       \
        fn(a, b, c, d, e, f, ierr);                                                         \
    }                                                                                       \
    TR_EXPORT void lname##__(F *a, F *b, F *c, F *d, F *e, F *f, F *ierr)                   \
    {                                                                                       \
        fn(a, b, c, d, e, f, ierr);                                                         \
    }                                                                                       \
    TR_EXPORT void lname(F *a, F *b, F *c, F *d, F *e, F *f, F *ierr)                       \
    {                                                                                       \
        fn(a, b, c, d, e, f, ierr);                                                         \
    }                                                                                       \
    TR_EXPORT void UNAME(F *a, F *b, F *c, F *d, F *e, F *f, F *ierr)                       \
    {                                                                                       \
        fn(a, b, c, d, e, f, ierr);                                                         \
    }

TR_F(f_cart, mpi_cart_create, MPI_CART_CREATE)
TR_F(f_graph, mpi_graph_create, MPI_GRAPH_CREATE)
