# rename-storm: RCU-walk under a rename storm.  renamestorm (a user
# program, tests/user/) moves the directory d between /t/a and /t/b, 150
# times each way, on one thread while three threads stat /t/a/d/x/f 400
# times each; every race window draws (race on), so walks overlap renames.
# Most walks stay in RCU mode from start to end; a walk that sees d move
# under it (d_seq or rename_lock changed) leaves RCU mode (rcu_unlazy,
# reason changed) or starts again with references (-ECHILD), and every
# walk ends with the file found or -ENOENT (d was in /t/b at that
# moment): never another answer (the program's status says so too).
# kargs: trace=lookup,fs,rcuwalk,rwsem
mkdir -p /t/a/d/x /t/b
touch /t/a/d/x/f
race on 7
trace clear
run /tests/user/renamestorm /t 150 400
trace stop
race off
