/* hello: the first ring-3 program: one write, then exit_group(7). */
#include "ulib.h"

int main(int argc, char **argv, char **envp)
{
	(void)argc, (void)argv, (void)envp;
	static const char msg[] = "hello from ring 3\n";
	long n = sys3(SYS_write, 1, msg, sizeof(msg) - 1);
	return n == sizeof(msg) - 1 ? 7 : 1;
}
