"""The tests of smpvfs, as a package: `python3 -m tests.run` from the repository root
(tests/lib/ is the library the test tools share)."""
