# Two directories renamed into each other by two jobs at once (issue 40,
# item 6): one of each pair of moves into a descendant is refused, the
# other is put back, so the tree ends as it began.  Destinations are
# named in full: `mv r p/q/` would stat "p/q/" first and, finding none
# while p is inside r/s, rename r to "p/q/" itself, replacing the empty
# q once p is back (Linux does the same).
mkdir -p p/q r/s
i=0
while [ $i -lt 10 ]; do
	(mv p r/s/p 2>/dev/null; mv r/s/p p 2>/dev/null) &
	(mv r p/q/r 2>/dev/null; mv p/q/r r 2>/dev/null) &
	wait
	i=$((i + 1))
done
find . | sort
stat -c '%n %h' . p p/q r r/s
rmdir p/q r/s p r && echo end
