# chmod is the owner's or root's (EPERM); an owner who is not in the
# file's group cannot set set-group-ID (silently dropped); root can.
expect 0 chmod . 0755
expect 0 create f 0644
expect 0 chown f 65534 65534
expect 0 -u 65534 -g 65534 chmod f 0600
expect 0600 stat f mode
expect EPERM -u 65533 -g 65534 chmod f 0644
expect 0600 stat f mode
expect 0 chmod f 0644
expect 0 -u 65534 -g 65534 chmod f 02755
expect 02755 stat f mode
expect 0 chown f 65534 65533
expect 0 -u 65534 -g 65534 chmod f 02755
expect 0755 stat f mode
expect 0 -u 65534 -g 65534 chmod f 04755
expect 04755 stat f mode
expect 0 -u 65534 -g 65534,65533 chmod f 02755
expect 02755 stat f mode
expect 0 chmod f 06777
expect 06777 stat f mode
# Directories follow the same rule.
expect 0 mkdir d 0755
expect 0 chown d 65534 65533
expect 0 -u 65534 -g 65534 chmod d 03777
expect 01777 stat d mode
expect EPERM -u 65533 -g 65533 chmod d 0755
# Through a symlink, the target's owner decides.
expect 0 symlink f sl
expect 0 -u 65534 -g 65534 chmod sl 0600
expect 0600 stat f mode
expect EPERM -u 65533 -g 65533 chmod sl 0644
# Setting the times to given values is the owner's or root's too.
expect 0 create t 0666
expect 0 chown t 65534 65534
expect 0 -u 65534 -g 65534 utimens t 1000 2000
expect 1000,2000 stat t atime,mtime
expect EPERM -u 65533 -g 65533 utimens t 3000 4000
expect 0 utimens t 3000 4000
expect 4000 stat t mtime
expect 0 chmod d 0700
expect EACCES -u 65533 -g 65533 utimens d/../t 5 5
