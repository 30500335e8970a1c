/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * log.c: logging for every sbx process.  In the foreground (-d) lines go to
 * stderr, otherwise to syslog; every line names the role so that an operator
 * reading a merged log knows which process spoke.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "common.h"

static int	 log_debug_mode = 1;	/* stderr until log_init says */
static int	 log_verbose;
static char	 log_role[32] = "sbx";

void
log_init(int debug, int facility)
{
	log_debug_mode = debug;
	if (!debug)
		openlog("sbx", LOG_PID | LOG_NDELAY, facility);
	tzset();
}

void
log_procinit(const char *role)
{
	if (role != NULL)
		strlcpy(log_role, role, sizeof(log_role));
}

void
log_setverbose(int v)
{
	log_verbose = v;
}

int
log_getverbose(void)
{
	return log_verbose;
}

/*
 * Messages quote what peers sent (a field name, a path, a request line):
 * a newline or an escape sequence there would let a peer forge log lines
 * or drive the operator's terminal.  Control characters become '?'.
 */
static void
log_defang(char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

void
vlog(int pri, const char *fmt, va_list ap)
{
	char	 buf[1024];
	int	 saved = errno;

	vsnprintf(buf, sizeof(buf), fmt, ap);
	log_defang(buf);
	if (log_debug_mode)
		fprintf(stderr, "%s: %s\n", log_role, buf);
	else
		syslog(pri, "%s: %s", log_role, buf);
	errno = saved;
}

static void
logit(int pri, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vlog(pri, fmt, ap);
	va_end(ap);
}

/* Append strerror(errno) the way the OpenBSD daemons do. */
static void
vwarn_errno(int pri, const char *fmt, va_list ap)
{
	char	 buf[1024];
	int	 saved = errno;

	if (fmt == NULL) {
		logit(pri, "%s", strerror(saved));
	} else {
		vsnprintf(buf, sizeof(buf), fmt, ap);
		logit(pri, "%s: %s", buf, strerror(saved));
	}
	errno = saved;
}

void
log_warn(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vwarn_errno(LOG_ERR, fmt, ap);
	va_end(ap);
}

void
log_warnx(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vlog(LOG_ERR, fmt, ap);
	va_end(ap);
}

void
log_info(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vlog(LOG_INFO, fmt, ap);
	va_end(ap);
}

void
log_debug(const char *fmt, ...)
{
	va_list	 ap;

	if (log_verbose < 1)
		return;
	va_start(ap, fmt);
	vlog(LOG_DEBUG, fmt, ap);
	va_end(ap);
}

__dead void
fatal(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vwarn_errno(LOG_CRIT, fmt, ap);
	va_end(ap);
	exit(1);
}

__dead void
fatalx(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vlog(LOG_CRIT, fmt, ap);
	va_end(ap);
	exit(1);
}

/*
 * A line another process logged (a role's stderr, relayed by the monitor):
 * it already names its role, so it is passed on as it is.
 */
void
log_relay(const char *line)
{
	char	 buf[1024];

	/* A role that lost its filter could still write escapes. */
	strlcpy(buf, line, sizeof(buf));
	log_defang(buf);
	if (log_debug_mode)
		fprintf(stderr, "%s\n", buf);
	else
		syslog(LOG_INFO, "%s", buf);
}
