# The current directory: cd, pwd, relative paths, and the prompt.
pwd
mkdir -p /tmp/w/deep/er
cd /tmp/w
pwd
cd deep/er
pwd
cd ../..
pwd
cd ..
pwd
cd
pwd
cd /tmp/w/nowhere
cd /tmp/w/deep/er/../../deep
pwd
touch /tmp/w/file
cd /tmp/w/file
cd a b
exit 0
