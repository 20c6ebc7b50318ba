# Background jobs: cmd &, jobs, wait, kill.
mkdir -p /tmp/j
cd /tmp/j
sleep 50ms &
echo started $?
jobs
wait %1
echo waited $?
false &
wait 1
echo a failed job gives $?
sleep 10000 &
kill %1
wait %1
echo a killed job gives $?
echo one > one & echo two > two & wait
cat one two
wait 9
jobs
exit 0
