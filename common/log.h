/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * log.h: log.c -- syslog or stderr, the role's name in every line, and
 * fatal()/fatalx() that log and exit.  Not for libsbx, which never exits.
 */
#ifndef SBX_LOG_H
#define SBX_LOG_H

#include <stdarg.h>

#include "defs.h"

void	 log_init(int debug, int facility);
void	 log_procinit(const char *role);
void	 log_setverbose(int);
int	 log_getverbose(void);
void	 log_warn(const char *, ...) SBX_PRINTF(1, 2);
void	 log_warnx(const char *, ...) SBX_PRINTF(1, 2);
void	 log_info(const char *, ...) SBX_PRINTF(1, 2);
void	 log_debug(const char *, ...) SBX_PRINTF(1, 2);
void	 vlog(int, const char *, va_list) SBX_PRINTF(2, 0);
void	 log_relay(const char *);
__dead void fatal(const char *, ...) SBX_PRINTF(1, 2);
__dead void fatalx(const char *, ...) SBX_PRINTF(1, 2);

#endif /* SBX_LOG_H */
