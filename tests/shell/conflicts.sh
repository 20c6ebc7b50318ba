# conflicts: the tracer's pairs run on the live kernel, without the
# plugin (nothing records their lines, and the command says so), and
# each says it did what it should (not the several hundred generated
# ones, which `conflicts all` adds and make test-conflicts runs): `ok`, perhaps with a note that a
# timer tick fell in every attempt ({*}).  With /cf taken it refuses,
# and it leaves no /cf behind.
conflicts
ls /cf
mkdir /cf
conflicts
rmdir /cf
conflicts x
exit 0
