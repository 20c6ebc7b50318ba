# procfs as programs read it: a script with no #! line (busybox sh runs it
# again through /proc/self/exe), /proc/self and its links, the descriptor
# links, the mount table, a process's directory going with the process.
exec < /dev/null	# descriptor 0 open on both sides (smpvfs's test starts with none)
printf 'echo "no #!: $0 ran by $(readlink /proc/self/exe | sed "s,.*/,,")"\n' > plain
chmod +x plain
./plain
readlink /proc/self/exe | sed 's,.*/,,'
sh -c 'cd -P /proc/self && test "${PWD#/proc/}" = $$ && echo "self: the caller"'
ls /proc/self/fd
ls /proc/self/fd/ 3< plain | tr '\n' ' '; echo
readlink /proc/self/fd/3 3< plain | sed "s,^$PWD/,PWD/,"
readlink /proc/self/cwd | sed "s,^$PWD\$,PWD,"
f=$PWD/plain
(exec 4< "$f"; cd /proc/self/fd && ls 4 && readlink 4 | sed "s,^$f\$,plain,")
cat /proc/self/fd/3 3< plain | wc -l
cat /proc/mounts | awk '$2 == "/proc" { print $1, $3, NF }'
awk 'NF != 6 || ($4 !~ /^r[ow]/)' /proc/mounts | wc -l
grep -w proc /proc/filesystems
grep -q '^processor' /proc/cpuinfo && echo "cpuinfo: processor lines"
awk '$1 == "MemTotal:" { print $1, $3, ($2 > 0) }' /proc/meminfo
tr '\0' ' ' < /proc/$$/cmdline | sed 's,[^ ]*/,,g'; echo
cut -d' ' -f2,3 /proc/self/stat
grep '^Name:' /proc/self/status
(
	sleep 10 & p=$!
	test -d /proc/$p && echo "sleep: alive"
	i=0	# until the child has run execve: its cmdline is the shell's before
	while [ -e /proc/$p ] && ! grep -q '^sleep' /proc/$p/cmdline && [ $i -lt 500 ]; do i=$((i + 1)); done
	tr '\0' ' ' < /proc/$p/cmdline; echo
	kill $p; wait $p
	test -e /proc/$p || echo "sleep: gone, status $?"
) 2> /dev/null	# the shell's "Terminated" comes when it comes
touch /proc/new 2>&1 | sed 's,^[a-z]*: ,,'
mkdir /proc/self/new 2>&1 | sed 's,^[a-z]*: ,,'
rm /proc/meminfo 2>&1 | sed 's,^[a-z]*: ,,'
echo end
