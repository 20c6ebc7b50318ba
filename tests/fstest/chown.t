# chown, lchown, fchown: root changes anything; the owner may give the
# file to a group it is in, or "change" owner and group to what they are;
# -1 leaves one as it is.  Anyone else: EPERM.
expect 0 chmod . 0755
expect 0 create f 0644
expect 0,0 stat f uid,gid
expect 0 chown f 65534 65533
expect 65534,65533 stat f uid,gid
expect EPERM -u 65534 -g 65534 chown f 65533 -1
expect 0 -u 65534 -g 65534 chown f 65534 -1
expect 0 -u 65534 -g 65534 chown f -1 -1
expect 0 -u 65534 -g 65534 chown f -1 65533
expect 0 -u 65534 -g 65534,65532 chown f -1 65532
expect 65534,65532 stat f uid,gid
# A group list as pjdfstest splits it: empty entries are skipped.
expect 0 -u 65534 -g 65534,,65531, chown f -1 65531
expect 65534,65531 stat f uid,gid
expect 0 -u 65534 -g 65534,65532 chown f -1 65532
expect EPERM -u 65534 -g 65534 chown f -1 65531
expect EPERM -u 65533 -g 65533,65532 chown f -1 65533
expect EPERM -u 65533 -g 65533 chown f 65533 65533
expect 0 chown f -1 -1
expect 65534,65532 stat f uid,gid
# Any chown of a non-directory clears set-user-ID, and set-group-ID if
# group-execute is set; without group-execute the bit stays for root and
# for an owner in the group.
expect 0 chmod f 06755
expect 0 chown f 65534 65534
expect 0755 stat f mode
expect 0 chmod f 06755
expect 0 chown f -1 -1
expect 0755 stat f mode
expect 0 chmod f 02745
expect 0 chown f 65533 -1
expect 02745 stat f mode
expect 0 chown f 65534 65534
expect 0 chmod f 06755
expect 0 -u 65534 -g 65534 chown f -1 65534
expect 0755 stat f mode
expect 0 chmod f 02745
expect 0 -u 65534 -g 65534 chown f -1 -1
expect 02745 stat f mode
expect 0 chmod f 06745
expect 0 -u 65534 -g 65534,65532 chown f -1 65532
expect 02745 stat f mode
# A directory keeps them.
expect 0 mkdir d 0755
expect 0 chmod d 06755
expect 0 chown d 65534 65534
expect 06755 stat d mode
# lchown changes the link; chown follows it; fchown the open file.
expect 0 symlink f sl
expect 0 lchown sl 65533 65533
expect 65533,65533 lstat sl uid,gid
expect 65534,65532 stat f uid,gid
expect 0 chown sl 65531 65531
expect 65531,65531 stat f uid,gid
expect 65533,65533 lstat sl uid,gid
expect EPERM -u 65534 -g 65534 lchown sl 65534 -1
expect 0 -u 65533 -g 65533 lchown sl -1 65533
expect 0 open f O_RDONLY : fchown 0 65530 65529
expect 65530,65529 stat f uid,gid
expect EPERM -u 65534 -g 65534 open f O_RDONLY : fchown 0 65534 -1
expect ENOENT chown nothere 0 0
expect ENOTDIR chown f/x 0 0
# The walk's search permission applies as to every call.
expect 0 chown d 0 0
expect 0 chmod d 0700
expect 0 create d/g 0644
expect 0 chown d/g 65534 65534
expect EACCES -u 65534 -g 65534 chown d/g -1 65534
