/*
 * emptyenv.h: for test programs that call sandbox_spawn() in-process
 * (t_sandbox, t_launcher).  pid 1 of every sandbox is a copy of the
 * caller, whose exec-time environment block it shows as /proc/1/environ,
 * so sandbox_spawn refuses a caller started with an environment -- and
 * kyua starts every test with one (HOME, TMPDIR, ...).  Such a program
 * starts over without it, before main(), from a constructor that calls
 * emptyenv_reexec(): ATF takes everything it needs from the arguments.
 */
#ifndef EMPTYENV_H
#define EMPTYENV_H

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void
emptyenv_reexec(char *argv[], char *envp[])
{
	char *const	 none[] = { NULL };

	if (envp == NULL || envp[0] == NULL)
		return;
	execve("/proc/self/exe", argv, none);
	/* The cases that spawn then fail with the launcher's refusal. */
	fprintf(stderr, "%s: re-exec with an empty environment: %s\n",
	    argv[0], strerror(errno));
}

#if defined(__SANITIZE_ADDRESS__)
/* regress/lsan.supp does not reach us through an empty environment. */
const char	*__lsan_default_suppressions(void);

const char *
__lsan_default_suppressions(void)
{
	return "leak:libatf-c.so\n";
}
#endif

#endif /* EMPTYENV_H */
