# mkdir: a new directory, its mode and link counts, and every errno.
expect 0 mkdir d 0755
expect dir,0755,2 lstat d type,mode,nlink
expect dir,3 stat . type,nlink
expect 0 mkdir d/e 0700
expect dir,0700,2 stat d/e type,mode,nlink
expect 3 stat d nlink
expect 0 mkdir d2/ 0711
expect dir,0711 stat d2 type,mode
expect 0 mkdir d/e/../f 0755
expect 4 stat d nlink
# Names that exist already, of every type, and the special ones.
expect EEXIST mkdir d 0755
expect 0 create f 0644
expect EEXIST mkdir f 0755
expect 0 symlink nowhere dangling
expect EEXIST mkdir dangling 0755
expect 0 symlink d sl
expect EEXIST mkdir sl 0755
expect EEXIST mkdir . 0755
expect EEXIST mkdir .. 0755
expect EEXIST mkdir d/. 0755
expect EEXIST mkdir d/.. 0755
# The path to it.
expect ENOENT mkdir nothere/x 0755
expect ENOENT mkdir dangling/x 0755
expect ENOTDIR mkdir f/x 0755
expect ENOTDIR mkdir f/x/y 0755
expect 0 mkdir sl/viasymlink 0755
expect dir stat d/viasymlink type
# Name length: 255 bytes is the most a component may have.
expect 0 mkdir {n*255} 0755
expect dir stat {n*255} type
expect ENAMETOOLONG mkdir {n*256} 0755
expect ENAMETOOLONG mkdir d/{n*256} 0755
expect ENAMETOOLONG mkdir {n*256}/x 0755
# The empty path ({x*0} is the empty word).
expect ENOENT mkdir {x*0} 0755
