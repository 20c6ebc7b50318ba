# source runs a file in this shell; exit ends that file with a status;
# fstest runs the filesystem test program.
mkdir /tmp
source /tests/shell/helper.inc
echo the helper gave $?
pwd
source /tests/shell/missing.inc
echo a missing script gives $?
exit 300
exit 1 2
fstest mkdir /tmp/d 0755 : lstat /tmp/d type,mode
fstest rmdir /tmp/nothing
echo fstest gives $?
fstest mkdir /tmp/d 0755 > /tmp/log; cat /tmp/log
fstest frobnicate
exit 0
