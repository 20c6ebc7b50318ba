# trace: the tracer's controls (docs/design/17-tracing.md).  A mark is the
# only event of its class; `show` prints ftrace's header and the mark's
# line; the script leaves the tracer off and empty.  `race` turns the race
# windows on and off (the rename-storm scenario uses it).
mkdir /trace-sh
trace start nosuch
echo bad class gives $?
trace stop now
echo extra word gives $?
trace clear
trace start lookup
trace mark hello tracer
trace stop
trace show > /trace-sh/t
cat /trace-sh/t
trace clear
trace
rm /trace-sh/t
rmdir /trace-sh
race maybe
echo race usage gives $?
race on 5
race off
