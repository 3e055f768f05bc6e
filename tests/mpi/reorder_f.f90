! SPDX-License-Identifier: BSD-3-Clause
! libtopomap-reorder's Fortran test (tests/reorder.sh), `use mpi`, run as
! reorder_f MODE: with reorder = .true.,
! - fortran: MPI_CART_CREATE on a 2-D grid (periodic in the first dimension),
!   then the coordinates, MPI_CART_SHIFT and an exchange with both neighbours
!   of each dimension are checked on the new rank;
! - f-adj, f-adjw: MPI_DIST_GRAPH_CREATE_ADJACENT, r -> r+1 of weight 10 and
!   r -> r+3 of weight 1 (f-adj: MPI_UNWEIGHTED), as tests/mpi/reorder.c's
!   adj and adjw; f-distw: the same weighted graph with MPI_DIST_GRAPH_CREATE,
!   each rank declaring the edges of vertex r+2, as reorder.c's distw. The
!   neighbour counts, lists, weights and a neighbour exchange are checked.
! Rank 0 prints "perm W0 W1 ..." (the world rank of each new rank) and
! "errors N", as tests/mpi/reorder.c does.
program reorder_f
  use mpi
  implicit none
  integer :: ierr, me, n, r, comm, d, errs, total
  character(len=16) :: mode
  integer, allocatable :: perm(:)

  call MPI_INIT(ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, n, ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, me, ierr)
  call get_command_argument(1, mode)
  errs = 0
  if (mode == 'fortran') then
    call cart(comm)
  else
    call adjacent(comm, index(mode, 'w') > 0, mode(1:6) == 'f-dist')
  end if
  call MPI_COMM_RANK(comm, r, ierr)
  allocate(perm(n))
  call MPI_ALLGATHER(me, 1, MPI_INTEGER, perm, 1, MPI_INTEGER, comm, ierr)
  if (perm(r + 1) /= me) errs = errs + 1
  call MPI_REDUCE(errs, total, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (me == 0) then
    write (*, '(A)', advance='no') 'perm'
    do d = 1, n
      write (*, '(A,I0)', advance='no') ' ', perm(d)
    end do
    write (*, '(A)') ''
    write (*, '(A,I0)') 'errors ', total
  end if
  call MPI_COMM_FREE(comm, ierr)
  call MPI_FINALIZE(ierr)
contains
  subroutine cart(c)
    integer, intent(out) :: c
    integer :: dims(2), coords(2), xy(2), src, dst, lo, hi, got, rr, dd
    logical :: periods(2)
    integer :: status(MPI_STATUS_SIZE)
    dims = 0
    call MPI_DIMS_CREATE(n, 2, dims, ierr)
    periods = (/ .true., .false. /)
    call MPI_CART_CREATE(MPI_COMM_WORLD, 2, dims, periods, .true., c, ierr)
    call MPI_COMM_RANK(c, rr, ierr)
    call MPI_CART_COORDS(c, rr, 2, coords, ierr)
    if (coords(1) /= rr / dims(2) .or. coords(2) /= mod(rr, dims(2))) errs = errs + 1
    do dd = 0, 1
      call MPI_CART_SHIFT(c, dd, 1, src, dst, ierr)
      xy = coords
      xy(dd + 1) = xy(dd + 1) - 1
      lo = at(xy, dims)
      xy = coords
      xy(dd + 1) = xy(dd + 1) + 1
      hi = at(xy, dims)
      if (src /= lo .or. dst /= hi) errs = errs + 1
      ! send my rank up, receive the lower neighbour's
      got = -1
      call MPI_SENDRECV(rr, 1, MPI_INTEGER, dst, 7, got, 1, MPI_INTEGER, src, 7, c, status, ierr)
      if (src /= MPI_PROC_NULL .and. got /= src) errs = errs + 1
    end do
  end subroutine cart

  ! rank of grid coordinates (x, y) on the Cartesian communicator, or MPI_PROC_NULL
  integer function at(xy, dims)
    integer, intent(in) :: xy(2), dims(2)
    integer :: x
    x = modulo(xy(1), dims(1))
    if (xy(2) < 0 .or. xy(2) >= dims(2)) then
      at = MPI_PROC_NULL
    else
      at = x * dims(2) + xy(2)
    end if
  end function at

  subroutine adjacent(c, weighted, dist)
    integer, intent(out) :: c
    logical, intent(in) :: weighted, dist
    integer :: outs(2), ins(2), w(2), s(1), deg(1), dst(2), rr, k
    integer :: indeg, outdeg, gin(2), gout(2), gw1(2), gw2(2), kin(2), kout(2)
    integer :: sendb(2), recvb(2)
    logical :: isw
    outs = (/ mod(me + 1, n), mod(me + 3, n) /)
    ins = (/ mod(me - 1 + n, n), mod(me - 3 + 3 * n, n) /)
    w = (/ 10, 1 /)
    if (dist) then
      s(1) = mod(me + 2, n)
      deg(1) = 2
      dst = (/ mod(s(1) + 1, n), mod(s(1) + 3, n) /)
      call MPI_DIST_GRAPH_CREATE(MPI_COMM_WORLD, 1, s, deg, dst, w, MPI_INFO_NULL, .true., c, ierr)
    else if (weighted) then
      call MPI_DIST_GRAPH_CREATE_ADJACENT(MPI_COMM_WORLD, 2, ins, w, 2, outs, w, &
           MPI_INFO_NULL, .true., c, ierr)
    else
      call MPI_DIST_GRAPH_CREATE_ADJACENT(MPI_COMM_WORLD, 2, ins, MPI_UNWEIGHTED, 2, outs, &
           MPI_UNWEIGHTED, MPI_INFO_NULL, .true., c, ierr)
    end if
    call MPI_COMM_RANK(c, rr, ierr)
    call MPI_DIST_GRAPH_NEIGHBORS_COUNT(c, indeg, outdeg, isw, ierr)
    if (indeg /= 2 .or. outdeg /= 2 .or. (isw .neqv. weighted)) errs = errs + 1
    if (weighted) then
      call MPI_DIST_GRAPH_NEIGHBORS(c, 2, gin, gw1, 2, gout, gw2, ierr)
    else
      call MPI_DIST_GRAPH_NEIGHBORS(c, 2, gin, MPI_UNWEIGHTED, 2, gout, MPI_UNWEIGHTED, ierr)
    end if
    ! which of the two each neighbour is: 1 the +-1 one of weight 10, 2 the +-3 one
    do k = 1, 2
      kin(k) = 0
      if (gin(k) == mod(rr - 1 + n, n)) kin(k) = 1
      if (gin(k) == mod(rr - 3 + 3 * n, n)) kin(k) = 2
      kout(k) = 0
      if (gout(k) == mod(rr + 1, n)) kout(k) = 1
      if (gout(k) == mod(rr + 3, n)) kout(k) = 2
      sendb(k) = 100 * rr + kout(k)
      if (kin(k) == 0 .or. kout(k) == 0) errs = errs + 1
    end do
    if (kin(1) == kin(2) .or. kout(1) == kout(2)) errs = errs + 1
    if (.not. dist .and. (kin(1) /= 1 .or. kout(1) /= 1)) errs = errs + 1
    if (weighted) then
      do k = 1, 2
        if (gw1(k) /= w(max(kin(k), 1)) .or. gw2(k) /= w(max(kout(k), 1))) errs = errs + 1
      end do
    end if
    recvb = -1
    call MPI_NEIGHBOR_ALLTOALL(sendb, 1, MPI_INTEGER, recvb, 1, MPI_INTEGER, c, ierr)
    do k = 1, 2
      if (recvb(k) /= 100 * gin(k) + kin(k)) errs = errs + 1
    end do
  end subroutine adjacent
end program reorder_f
