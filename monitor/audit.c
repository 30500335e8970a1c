/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * audit.c: one line per decision the monitor makes (connect, refuse, errors,
 * spawn, exit, provider load, proxy decisions; proxy/audit.c is the same
 * thing for sbx-proxy, whose records also come here): to the log (syslog, or
 * stderr with -d) and, when sbx.conf names a log-file, as JSON lines.  The
 * file is opened before privileges are dropped and kept open; each line is
 * written with a single write(2) so concurrent readers never see half a
 * record.
 */
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>

#include "common.h"
#include "monitor.h"

static int	 auditfd = -1;

int
audit_open(const char *path)
{
	if (path == NULL)
		return 0;
	if ((auditfd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC |
	    O_NOFOLLOW, 0640)) == -1) {
		log_warn("log-file %s", path);
		return -1;
	}
	return 0;
}

/* A record's message: room for a run's line (RUNSPEC_WHAT_MAX) and what
 * precedes it. */
#define AUDIT_MSG_MAX	1024

/* A message cut to len ends in "...", so a cut shows for what it is. */
static void
audit_format(char *buf, size_t len, const char *fmt, va_list ap)
{
	int	n;

	n = vsnprintf(buf, len, fmt, ap);
	if (n >= 0 && (size_t)n >= len && len > 3)
		memcpy(buf + len - 4, "...", 4);
}

void
audit(const char *event, uid_t uid, pid_t pid, const char *fmt, ...)
{
	va_list		 ap;
	char		 msg[AUDIT_MSG_MAX];

	va_start(ap, fmt);
	audit_format(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	audit_with(event, uid, pid, NULL, "%s", msg);
}

/*
 * The same record with extra members (the exit's "stats" and "limits"):
 * extra's members are moved into the record, and extra is freed.
 */
void
audit_with(const char *event, uid_t uid, pid_t pid, cJSON *extra,
    const char *fmt, ...)
{
	va_list		 ap;
	char		 msg[AUDIT_MSG_MAX], when[64], *line;
	struct timespec	 ts;
	struct tm	 tm;
	cJSON		*o, *e;
	size_t		 len;

	va_start(ap, fmt);
	audit_format(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_info("audit: %s uid=%u pid=%d: %s", event, (unsigned)uid,
	    (int)pid, msg);
	if (auditfd == -1) {
		cJSON_Delete(extra);
		return;
	}

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	snprintf(when, sizeof(when), "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ",
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
	    tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000);
	if ((o = cJSON_CreateObject()) == NULL ||
	    cJSON_AddStringToObject(o, "time", when) == NULL ||
	    cJSON_AddStringToObject(o, "event", event) == NULL ||
	    cJSON_AddNumberToObject(o, "uid", (double)uid) == NULL ||
	    cJSON_AddNumberToObject(o, "pid", (double)pid) == NULL ||
	    cJSON_AddStringToObject(o, "message", msg) == NULL) {
		cJSON_Delete(o);
		cJSON_Delete(extra);
		log_warnx("audit: out of memory; record lost");
		return;
	}
	while (extra != NULL && (e = extra->child) != NULL) {
		cJSON_DetachItemViaPointer(extra, e);
		cJSON_AddItemToObject(o, e->string, e);
	}
	cJSON_Delete(extra);
	if ((line = cJSON_PrintUnformatted(o)) == NULL) {
		cJSON_Delete(o);
		log_warnx("audit: out of memory; record lost");
		return;
	}
	cJSON_Delete(o);
	len = strlen(line);
	line[len] = '\n';	/* replaces the NUL; written by length */
	if (write(auditfd, line, len + 1) != (ssize_t)(len + 1))
		log_warn("audit: write to log-file");
	free(line);
}
