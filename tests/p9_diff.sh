# The busybox differential (tests/p9_tests.py): this script runs in an
# empty directory twice, by the host's Linux (as nobody, QEMU's user) on a
# host folder and by smpvfs on its 9p mount of another; the driver then
# compares the two folders from the host, file by file, and the two
# outputs.  Only what both sides must print alike is printed: dates,
# inode numbers and block counts are left out or masked.  No FIFO: QEMU's
# server refuses to make one with security_model=none (ENXIO, and it logs
# the client as "broken or compromised"; docs/design/27-9p.md).
umask 022
mkdir -p src/a/b/c src/e && echo one > src/a/f && seq 1 3000 > src/a/b/nums
ln -s a/f src/lf && ln -s ../nowhere src/a/dangling && ln src/a/f src/a/hard
chmod 640 src/a/f && chmod 700 src/e && chmod 1755 src/a/b && chmod 2755 src/a/b/c
touch -d '2001-02-03 04:05:06' src/a/f src/a/b/nums src/e
echo "-- cp -a"; cp -a src copy && find copy | sort
echo "-- tar"; tar cf t.tar src && mkdir x && tar xf t.tar -C x && tar tf t.tar | sort && rm t.tar
echo "-- mv"
mkdir -p into/deep && mv copy/a/f into/ && mv copy/a/b into/deep/ && mv into/deep/b/nums outof
mv copy/lf into/ && mv into/deep/b/c . && mv x/src/e into/deep/e2
mv into/deep/e2 into/deep/e3 && mv outof outof2 && mv outof2 outof
echo "-- rm -r"; rm -r copy/e x/src/a/b && rm -r copy/a && ls -A copy
echo "-- ln"
ln outof hl1 && ln hl1 hl2 && rm hl1 && ln -s into/deep sym2dir && ln -s sym2dir/b chain
ln -s "$(seq -s / 1 40)" longlink && ln -sf outof longlink2 && ln -sf hl2 longlink2
cat chain/../b 2>/dev/null; ls chain/ | sort
echo "-- echo"
echo first > log; echo second >> log; echo third >> log; printf 'abc' > noeol; : > empty
echo over > over; echo again > over; cat log noeol; echo; wc -l log
echo "-- chmod"
chmod 4755 noeol && chmod g+w,o-r log && chmod 0 empty && chmod a-x into/deep/e3
chmod 600 src/a/f; chmod 644 src/a/f
echo "-- touch"
touch new && touch -d '1999-12-31 23:59:59' new into && touch -r src/a/f log
echo "-- errors"
cat nosuch 2>&1; rmdir into 2>&1; mv into into/deep/sub 2>&1; mkdir log 2>&1
ln outof hl2 2>&1; rm src 2>&1; chown 0 log 2>&1; echo "chown: $?"
echo "-- find"; find . | sort
echo "-- find -type"; find . -type l | sort; find . -type d | sort; find . -type f -newer new | sort
echo "-- find -perm"; find . -perm -4000 | sort; find . -links 2 -type f | sort
echo "-- ls -l"
ls -lnR . | sed -E 's/ +[A-Z][a-z]{2} +[0-9]+ +([0-9]{4}|[0-9:]{5}) / DATE /; s/^total [0-9]+$/total N/'
echo "-- stat"
find . | sort | while read -r p; do stat -c '%n %F %a %h %u %g' "$p"; done
find . ! -type d | sort | while read -r p; do stat -c '%n %s %Y' "$p"; done | grep ' [0-9]\{9\}$'
echo "-- readlink"; find . -type l | sort | while read -r p; do echo "$p -> $(readlink "$p")"; done
echo "-- md5sum"; find . -type f -perm -u+r | sort | xargs md5sum
echo "-- du"; wc -c into/deep/b/nums outof 2>&1
echo end
