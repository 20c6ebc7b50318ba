# source runs a file in this shell; exit ends that file with a status;
# fstest runs the filesystem test program.
mkdir -p /tmp/s
source /tests/shell/helper.inc
echo the helper gave $?
pwd
source /tests/shell/missing.inc
echo a missing script gives $?
exit 300
exit 1 2
fstest mkdir /tmp/s/d 0755 : lstat /tmp/s/d type,mode
fstest rmdir /tmp/s/nothing
echo fstest gives $?
fstest mkdir /tmp/s/d 0755 > /tmp/s/log; cat /tmp/s/log
fstest frobnicate
exit 0
