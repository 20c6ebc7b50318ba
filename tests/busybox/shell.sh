# The shell itself: pipelines, redirections, subshells, exit statuses.
echo a b c | tr ' ' '\n' | sort -r | head -2
echo first > f; echo second >> f; cat < f; wc -l < f
(echo err >&2; echo out) 2>&1 | sort
ls nosuch 2> e; echo "ls: $?"; wc -l < e
x=$(echo sub; echo shell); echo "$x" | wc -l
false || echo "false: $?"; true && echo "true: $?"
sh -c 'exit 7'; echo "exit: $?"
sh -c 'kill -TERM $$'; echo "killed: $?"
cat <<END
here $((2*21)) doc
END
for i in 1 2 3; do echo $i; done | paste -s -d+ | sed 's/$/=6/'
sleep 0.2 & wait $!; echo "wait: $?"
echo x | (read v; echo "read $v")
test -d . && [ -f f ] && echo tests
printf '%s-%d\n' a 1 b 2
echo end
