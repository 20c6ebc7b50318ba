# tar c | tar x of a tree with files, links and empty directories.
mkdir -p t/a/b t/e && echo data > t/a/f && seq 1 500 > t/a/b/nums && ln -s a/f t/lnk && ln t/a/f t/hl
chmod 700 t/e && touch -d '2003-03-03 03:03:03' t/a/f
tar cf - t | (mkdir out && cd out && tar xf -)
echo "-- listing"; (cd out && find . | sort)
stat -c '%n %a %Y' out/t/a/f; stat -c '%n %a' out/t/e
stat -c '%n %h' out/t/a/f out/t/hl
readlink out/t/lnk
cmp t/a/b/nums out/t/a/b/nums && echo same
tar tf - < /dev/null 2>&1; echo "tar of nothing: $?"
tar cf x.tar t && tar tf x.tar | sort | head -5
