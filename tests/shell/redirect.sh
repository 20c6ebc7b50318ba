# Output redirection: > truncates, >> appends, errors stay on the terminal.
mkdir -p /tmp/r
cd /tmp/r
echo first > out
echo second >> out
cat out
echo replaced > out
cat out
ls > listing
cat listing
ls nowhere > err
cat err
echo x > /tmp/r/missing/file
echo x > /tmp/r
echo "quoted > not a redirection" '>>'
echo spaced >'name with spaces'
cat 'name with spaces'
exit 0
