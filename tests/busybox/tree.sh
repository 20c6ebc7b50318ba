# A known tree, listed: ls -lnR (dates masked), find by type, stat -c.
mkdir -p a/b/c d && echo hello > a/f1 && echo world > a/b/f2 && printf '' > a/empty
ln -s f1 a/l1 && ln -s ../../d a/b/ld && ln a/f1 a/hard && mkfifo a/p
chmod 600 a/f1 && chmod 751 a/b && chmod 1777 d
ls -lnR . | sed -E 's/ +[A-Z][a-z]{2} +[0-9]+ +([0-9]{4}|[0-9:]{5}) / DATE /'
echo "-- find -type f"; find . -type f | sort
echo "-- find -type d"; find . -type d | sort
echo "-- find -type l"; find . -type l | sort
echo "-- find -type p"; find . -type p
echo "-- stat"; stat -c '%n %s %a %F %h %u %g' a/f1 a/b a/l1 a/p a/hard d a/empty
echo "-- stat -L"; stat -L -c '%n %s %F' a/l1 a/b/ld
echo "-- readlink"; readlink a/l1; readlink a/b/ld
