/*
 * vfs_check.h: invariant checks on a live tree, shared by the torture
 * (tests/test_vfs_stress.c) and the colliding fuzzer (tests/test_vfs_fuzz.c).
 *
 * vfs_check_invariants(dir): the dentries of dir's filesystem are
 * consistent (d_check_sb: no two hashed dentries with one parent and
 * name, every child listed under its parent, no negative counts), every
 * name getdents lists under dir is what lstat finds, a directory's link
 * count is 2 plus its subdirectories, and a file's is the number of
 * names seen for it.  Each problem is printed; returns how many.  The
 * tree must hold still while it is checked.
 */
#ifndef TESTS_VFS_CHECK_H
#define TESTS_VFS_CHECK_H

unsigned vfs_check_invariants(const char *dir);

#endif
