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
# A script of exactly 64 KiB (SCRIPT_MAX) runs; one byte more is refused.
# 511 comment lines of 128 bytes and a last line of 128: 65536 bytes.
echo '#xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' > /tmp/s/u1
cat /tmp/s/u1 /tmp/s/u1 > /tmp/s/u2; cat /tmp/s/u2 /tmp/s/u2 > /tmp/s/u4; cat /tmp/s/u4 /tmp/s/u4 > /tmp/s/u8
cat /tmp/s/u8 /tmp/s/u8 > /tmp/s/u16; cat /tmp/s/u16 /tmp/s/u16 > /tmp/s/u32; cat /tmp/s/u32 /tmp/s/u32 > /tmp/s/u64
cat /tmp/s/u64 /tmp/s/u64 > /tmp/s/u128; cat /tmp/s/u128 /tmp/s/u128 > /tmp/s/u256
echo 'echo the 64 KiB script ran #yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy' > /tmp/s/last
cat /tmp/s/u1 /tmp/s/u2 /tmp/s/u4 /tmp/s/u8 /tmp/s/u16 /tmp/s/u32 /tmp/s/u64 /tmp/s/u128 /tmp/s/u256 /tmp/s/last > /tmp/s/big
stat /tmp/s/big
source /tmp/s/big
echo a 64 KiB script gives $?
echo >> /tmp/s/big
source /tmp/s/big
echo a longer one gives $?
exit 0
