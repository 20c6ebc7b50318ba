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
 *
 * d_check_sb scans the whole hash table (about 0.1 s under TCG; alone:
 * vfs_check_sb); the two halves below cost what the tree holds, for
 * checks run often: vfs_check_dentries walks the dentries below dir
 * through the children lists (each child's parent is dir, each hashed
 * name is hashed once, as d_count_hashed counts it), vfs_check_links the
 * link counts.
 *
 * The link counts see only what a walk sees: a mount on a directory hides
 * the names in it, and a file linked there as well as elsewhere then has
 * more links than names.  Check them with nothing mounted below dir.
 */
#ifndef TESTS_VFS_CHECK_H
#define TESTS_VFS_CHECK_H

#include <stdbool.h>

unsigned vfs_check_invariants(const char *dir);
unsigned vfs_check_sb(const char *dir);
unsigned vfs_check_dentries(const char *dir);
unsigned vfs_check_links(const char *dir);
/* Whether fd's file is on a positive dentry with the inode it opened (a
 * dentry made negative under it, or given another inode, is not); says
 * which, if not. */
bool vfs_check_file_holds(int fd);

#endif
