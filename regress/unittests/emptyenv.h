/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * emptyenv.h: for test programs that call sandbox_spawn() in-process
 * (t_launcher_sandbox, t_launcher_spawn, t_launcher_warm).  pid 1 of
 * every sandbox is a copy of the caller, whose exec-time environment
 * block it shows as /proc/1/environ, so sandbox_spawn refuses a caller
 * started with an environment -- and kyua starts every test with one
 * (HOME, TMPDIR, ...).  Such a program starts over without it, before
 * main(), from a constructor that calls emptyenv_reexec(): ATF takes
 * everything it needs from the arguments.
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
/*
 * What scripts/check puts in ASAN_OPTIONS, LSAN_OPTIONS (with
 * regress/lsan.supp) and UBSAN_OPTIONS does not reach us through an
 * empty environment: the same settings, compiled in.
 */
const char	*__asan_default_options(void);
const char	*__lsan_default_options(void);
const char	*__lsan_default_suppressions(void);
const char	*__ubsan_default_options(void);

const char *
__asan_default_options(void)
{
	return "abort_on_error=1:detect_leaks=1";
}

const char *
__lsan_default_options(void)
{
	return "print_suppressions=0";
}

const char *
__lsan_default_suppressions(void)
{
	return "leak:libatf-c.so\n";
}

const char *
__ubsan_default_options(void)
{
	return "print_stacktrace=1:halt_on_error=1";
}
#endif

/*
 * A program whose every case runs sandboxes defines EMPTYENV_AT_START
 * before including this: it then starts over without an environment
 * before main().  (t_launcher_spawn decides per case, and calls
 * emptyenv_reexec itself.)
 */
#ifdef EMPTYENV_AT_START
static void	 emptyenv_at_start(int, char *[], char *[])
		    __attribute__((__constructor__));

static void
emptyenv_at_start(int argc, char *argv[], char *envp[])
{
	(void)argc;
	emptyenv_reexec(argv, envp);
}
#endif

#endif /* EMPTYENV_H */
