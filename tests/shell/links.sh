# Hard links and symbolic links.
mkdir -p /tmp/l
cd /tmp/l
echo data > file
ln file hard
ln -s file soft
ln -s nowhere dangling
readlink soft dangling
cat hard soft
ls -l
stat -L soft
cat dangling
readlink file
ln file hard
ln -s file soft
rm file
cat hard soft
ls
exit 0
