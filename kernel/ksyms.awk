# ksyms.awk: turn `nm -n` output into an assembly file holding the
# kernel's text symbols (not the linker script's __*_start/_end markers),
# sorted by address, for kernel/ksyms.c.
# Layout: ksyms_count, then ksyms_addrs[count] (.quad), then
# ksyms_name_offsets[count] (.long) into ksyms_names (NUL-separated).
BEGIN { n = 0 }
NF == 3 && $2 ~ /^[tTwW]$/ && $3 !~ /^\./ && $3 !~ /^__.*_(start|end)$/ {
	addr[n] = $1; name[n] = $3; n++
}
END {
	print "\t.section .ksyms, \"a\""
	print "\t.align 8"
	print "\t.global ksyms_count, ksyms_addrs, ksyms_name_offsets, ksyms_names"
	print "ksyms_count:\n\t.quad " n + 0
	print "ksyms_addrs:"
	for (i = 0; i < n; i++) print "\t.quad 0x" addr[i]
	print "ksyms_name_offsets:"
	off = 0
	for (i = 0; i < n; i++) { print "\t.long " off; off += length(name[i]) + 1 }
	print "ksyms_names:"
	for (i = 0; i < n; i++) print "\t.asciz \"" name[i] "\""
}
