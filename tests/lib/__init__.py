"""The library the test tools share: common (paths, errors), qemu (ISOs, the
QEMU command line, running it), accel (TCG or KVM), ktap (parsing the serial
log), verdict (judging a boot), report (printing a failure), args (argument
types)."""
