# rmdir: removing directories, the parent's link count, and every errno.
expect 0 mkdir d 0755
expect 3 stat . nlink
expect 0 rmdir d
expect ENOENT lstat d type
expect 2 stat . nlink
expect 0 mkdir d 0755
expect 0 rmdir d/
expect ENOENT rmdir d
expect ENOENT rmdir nothere/x
# Not empty, not a directory.
expect 0 mkdir d 0755
expect 0 create d/f 0644
expect ENOTEMPTY rmdir d
expect ENOTDIR rmdir d/f
expect ENOTDIR rmdir d/f/
expect ENOTDIR rmdir d/f/x
expect 0 unlink d/f
expect 0 mkdir d/sub 0755
expect ENOTEMPTY rmdir d
expect 0 rmdir d/sub
expect 0 symlink d sl
expect ENOTDIR rmdir sl
expect 0 rmdir d
expect 0 unlink sl
# "." and ".." as the last component.
expect 0 mkdir d 0755
expect EINVAL rmdir .
expect EINVAL rmdir d/.
expect ENOTEMPTY rmdir ..
expect ENOTEMPTY rmdir d/..
expect dir stat d type
expect ENAMETOOLONG rmdir {n*256}
expect ENOENT rmdir {x*0}
