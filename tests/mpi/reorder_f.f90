! SPDX-License-Identifier: BSD-3-Clause
! libtopomap-reorder's Fortran test (tests/reorder.sh): MPI_CART_CREATE with
! reorder = .true. on a 2-D grid (periodic in the first dimension), then the
! coordinates, MPI_CART_SHIFT and an exchange with both neighbours of each
! dimension are checked on the new rank. Rank 0 prints "perm W0 W1 ..." (the
! world rank of each new rank) and "errors N", as tests/mpi/reorder.c does.
program reorder_f
  use mpi
  implicit none
  integer :: ierr, me, n, r, cart, d, src, dst, lo, hi, errs, total
  integer :: dims(2), coords(2), c(2), got
  logical :: periods(2)
  integer, allocatable :: perm(:)
  integer :: status(MPI_STATUS_SIZE)

  call MPI_INIT(ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, n, ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, me, ierr)
  dims = 0
  call MPI_DIMS_CREATE(n, 2, dims, ierr)
  periods = (/ .true., .false. /)
  call MPI_CART_CREATE(MPI_COMM_WORLD, 2, dims, periods, .true., cart, ierr)
  call MPI_COMM_RANK(cart, r, ierr)
  errs = 0
  call MPI_CART_COORDS(cart, r, 2, coords, ierr)
  if (coords(1) /= r / dims(2) .or. coords(2) /= mod(r, dims(2))) errs = errs + 1
  do d = 0, 1
    call MPI_CART_SHIFT(cart, d, 1, src, dst, ierr)
    c = coords
    c(d + 1) = c(d + 1) - 1
    lo = at(c)
    c = coords
    c(d + 1) = c(d + 1) + 1
    hi = at(c)
    if (src /= lo .or. dst /= hi) errs = errs + 1
    ! send my rank up, receive the lower neighbour's
    got = -1
    call MPI_SENDRECV(r, 1, MPI_INTEGER, dst, 7, got, 1, MPI_INTEGER, src, 7, cart, status, ierr)
    if (src /= MPI_PROC_NULL .and. got /= src) errs = errs + 1
  end do
  allocate(perm(n))
  call MPI_ALLGATHER(me, 1, MPI_INTEGER, perm, 1, MPI_INTEGER, cart, ierr)
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
  call MPI_COMM_FREE(cart, ierr)
  call MPI_FINALIZE(ierr)
contains
  ! rank of grid coordinates (x, y) on the new communicator, or MPI_PROC_NULL
  integer function at(xy)
    integer, intent(in) :: xy(2)
    integer :: x
    x = modulo(xy(1), dims(1))
    if (xy(2) < 0 .or. xy(2) >= dims(2)) then
      at = MPI_PROC_NULL
    else
      at = x * dims(2) + xy(2)
    end if
  end function at
end program reorder_f
