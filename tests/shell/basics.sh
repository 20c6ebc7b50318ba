# The language: words, quoting, $?, ;, comments, and the errors.
echo hello world
echo 'single  quoted'   "double  quoted"   back\ slash
echo "a \"quote\" inside" 'and $? not expanded' \$?
echo mixed'quote'"s"together ''
echo a#b # this part is a comment
false; echo status $?
true; echo status $?
echo -n no newline; echo
echo one; echo two ;echo three
nosuchcommand arg
echo unknown gives $?
echo 'unterminated
echo parse errors give $?
echo a ;; echo b
ls | cat
sleep
echo usage errors give $?
sleep 1x
help echo
help nosuch
sleep 10ms; echo slept $?
exit 0
