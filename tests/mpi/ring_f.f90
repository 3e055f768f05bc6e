! SPDX-License-Identifier: BSD-3-Clause
! Profiler test: the Fortran bindings (mpif.h). Usage: ring_f K C, on 3 or
! more ranks. Point-to-point, in world ranks:
!  - i -> i+1 (mod n): K Send of C integers (even ranks first), K Isend of C
!    integers, and a persistent Send_init of C integers started K times with
!    Startall;
!  - i -> i-1 (mod n): K Sendrecv of 2C double precision, a persistent
!    Ssend_init of 1 integer started K times with Start, and one Send of 3
!    integers along a periodic 1D MPI_Cart_create communicator built on
!    world ranks in reverse order (its rank + 1 is world rank - 1);
!  - i -> i+2 (mod n): K Sendrecv_replace of C integers;
!  - K Sends to MPI_PROC_NULL (not recorded).
! Collectives (modelled with TOPOMAP_PROFILE_COLLECTIVES=1): Barrier; Bcast
! C integers root 0; Allreduce 2 double precision; Gather C integers root 1;
! Alltoallv (i+j) mod 3 integers from i to j; Iallreduce 1 integer.
program ring_f
    implicit none
    include 'mpif.h'
    integer :: rank, n, ierr, k, kk, c, right, left, i, j
    integer :: req(2), rq(2), sreq(2), rev, ring, cl, cr
    integer :: dims(1)
    logical :: periods(1)
    integer, allocatable :: ib(:), ir(:), sc(:), rc(:), sd(:), rd(:)
    double precision, allocatable :: db(:), dr(:)
    double precision :: x(2), y(2)
    character(len=32) :: arg

    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, n, ierr)
    if (command_argument_count() /= 2 .or. n < 3) then
        if (rank == 0) write (0, *) 'usage: ring_f K C (3 or more ranks)'
        call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
    end if
    call get_command_argument(1, arg)
    read (arg, *) kk
    call get_command_argument(2, arg)
    read (arg, *) c
    right = mod(rank + 1, n)
    left = mod(rank - 1 + n, n)
    allocate (ib(c + 8), ir(c + 8), db(2*c), dr(2*c))
    allocate (sc(n), rc(n), sd(n), rd(n))
    ib = 0
    db = 0.0d0

    do k = 1, kk
        if (mod(rank, 2) == 0) then
            call MPI_Send(ib, c, MPI_INTEGER, right, 1, MPI_COMM_WORLD, ierr)
            call MPI_Recv(ir, c, MPI_INTEGER, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
        else
            call MPI_Recv(ir, c, MPI_INTEGER, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
            call MPI_Send(ib, c, MPI_INTEGER, right, 1, MPI_COMM_WORLD, ierr)
        end if
        call MPI_Irecv(ir, c, MPI_INTEGER, left, 2, MPI_COMM_WORLD, req(1), ierr)
        call MPI_Isend(ib, c, MPI_INTEGER, right, 2, MPI_COMM_WORLD, req(2), ierr)
        call MPI_Waitall(2, req, MPI_STATUSES_IGNORE, ierr)
        call MPI_Sendrecv(db, 2*c, MPI_DOUBLE_PRECISION, left, 3, dr, 2*c, &
                          MPI_DOUBLE_PRECISION, right, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
        call MPI_Sendrecv_replace(ib, c, MPI_INTEGER, mod(rank + 2, n), 4, &
                                  mod(rank - 2 + n, n), 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
        call MPI_Send(ib, c, MPI_INTEGER, MPI_PROC_NULL, 5, MPI_COMM_WORLD, ierr)
    end do

    call MPI_Send_init(ib, c, MPI_INTEGER, right, 6, MPI_COMM_WORLD, rq(1), ierr)
    call MPI_Recv_init(ir, c, MPI_INTEGER, left, 6, MPI_COMM_WORLD, rq(2), ierr)
    call MPI_Ssend_init(ib, 1, MPI_INTEGER, left, 7, MPI_COMM_WORLD, sreq(1), ierr)
    call MPI_Recv_init(ir, 1, MPI_INTEGER, right, 7, MPI_COMM_WORLD, sreq(2), ierr)
    do k = 1, kk
        call MPI_Startall(2, rq, ierr)
        call MPI_Waitall(2, rq, MPI_STATUSES_IGNORE, ierr)
        call MPI_Start(sreq(2), ierr)
        call MPI_Start(sreq(1), ierr)
        call MPI_Waitall(2, sreq, MPI_STATUSES_IGNORE, ierr)
    end do
    do i = 1, 2
        call MPI_Request_free(rq(i), ierr)
        call MPI_Request_free(sreq(i), ierr)
    end do

    call MPI_Comm_split(MPI_COMM_WORLD, 0, n - 1 - rank, rev, ierr)
    dims(1) = n
    periods(1) = .true.
    call MPI_Cart_create(rev, 1, dims, periods, .false., ring, ierr)
    call MPI_Cart_shift(ring, 0, 1, cl, cr, ierr)
    call MPI_Sendrecv(ib, 3, MPI_INTEGER, cr, 8, ir, 3, MPI_INTEGER, cl, 8, ring, &
                      MPI_STATUS_IGNORE, ierr)
    call MPI_Comm_free(ring, ierr)
    call MPI_Comm_free(rev, ierr)

    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call MPI_Bcast(ib, c, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    x = 1.0d0
    call MPI_Allreduce(x, y, 2, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    deallocate (ir)
    allocate (ir(c*n + 3*n))
    call MPI_Gather(ib, c, MPI_INTEGER, ir, c, MPI_INTEGER, 1, MPI_COMM_WORLD, ierr)
    do j = 1, n
        sc(j) = mod(rank + j - 1, 3)
        rc(j) = mod(j - 1 + rank, 3)
    end do
    sd(1) = 0
    rd(1) = 0
    do j = 2, n
        sd(j) = sd(j - 1) + sc(j - 1)
        rd(j) = rd(j - 1) + rc(j - 1)
    end do
    call MPI_Alltoallv(ib, sc, sd, MPI_INTEGER, ir, rc, rd, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    call MPI_Iallreduce(MPI_IN_PLACE, ib, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req(1), ierr)
    call MPI_Wait(req(1), MPI_STATUS_IGNORE, ierr)

    call MPI_Finalize(ierr)
end program ring_f
