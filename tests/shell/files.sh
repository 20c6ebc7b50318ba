# Files and directories: make, list, write, read, rename, remove.
mkdir -p /tmp/f
cd /tmp/f
mkdir -p a/b/c
mkdir -p a/b
mkdir a
touch a/one a/two
echo hello > a/three
echo again >> a/three
cat a/three
ls a
ls -a a
tree
mv a/one a/b/uno
ls a a/b
mv a/two a/b
ls a/b
cat a/nothing
rmdir a
rm a
rm a/b/uno a/missing
rm -f a/missing
rm -r a
ls
ls /tmp/f/a
mkdir x/y
rmdir /tmp/f/nonexistent
exit 0
