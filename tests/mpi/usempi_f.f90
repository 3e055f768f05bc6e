! SPDX-License-Identifier: BSD-3-Clause
! Profiler test: the `use mpi` module (explicit interfaces over the same
! Fortran entry points as mpif.h). Usage: usempi_f K C, on 2 or more ranks.
! Records i -> i+1 (mod n): K Isend of C integers.
program usempi_f
    use mpi
    implicit none
    integer :: ierr, rank, n, k, kk, c, req(2)
    integer, allocatable :: s(:), r(:)
    character(len=32) :: arg

    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, n, ierr)
    call get_command_argument(1, arg)
    read (arg, *) kk
    call get_command_argument(2, arg)
    read (arg, *) c
    allocate (s(c), r(c))
    s = rank
    do k = 1, kk
        call MPI_Irecv(r, c, MPI_INTEGER, mod(rank - 1 + n, n), 1, MPI_COMM_WORLD, req(1), ierr)
        call MPI_Isend(s, c, MPI_INTEGER, mod(rank + 1, n), 1, MPI_COMM_WORLD, req(2), ierr)
        call MPI_Waitall(2, req, MPI_STATUSES_IGNORE, ierr)
    end do
    call MPI_Finalize(ierr)
end program usempi_f
