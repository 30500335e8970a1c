/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * rolespawn.h: rolespawn.c -- where a program finds the roles (SBX_ROLEDIR
 * relative to its own executable) and starting one on its own, as
 * sbxctl starts the provider runner for an offline gate evaluation.
 */
#ifndef SBX_ROLESPAWN_H
#define SBX_ROLESPAWN_H

#include <sys/types.h>

#include "imsg.h"

/* DIR of our own executable + "/" + rel: 0, or -1 with errno. */
int	 role_dir(const char *rel, char *buf, size_t len);

struct role_spawned {
	pid_t		 pid;
	struct imsgbuf	 ibuf;		/* our end of its descriptor 3 */
	uint32_t	 uid;		/* as its READY says */
};

/*
 * Start the role "name" (executable exe in dir) with its channel on
 * descriptor 3, stdin and stdout /dev/null, stderr errfd, an empty
 * environment; as root, as the user "as" (never root: a role
 * started by a root caller gets what the monitor's roles get, no
 * privilege).  Waits for READY, which the role sends only once its
 * privilege file is applied.  0, or -1 with a message in err.
 */
int	 role_spawn(const char *dir, const char *exe, const char *name,
	    const char *as, int errfd, struct role_spawned *, char *err,
	    size_t errlen);
/* Close the channel and reap it; its exit status, as waitpid says. */
int	 role_reap(struct role_spawned *);

#endif /* SBX_ROLESPAWN_H */
