/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * cgv2.c: reading and writing cgroup v2 files, for the monitor (which
 * lays out the delegated subtree, monitor/cgroups.c) and the launcher
 * (one cgroup per sandbox, launcher/cgroup.c).
 *
 * Every function works on a directory descriptor or an explicit path, so
 * the unit tests run them on a plain directory laid out like a cgroup2
 * mount (CGV2_FAKE): there, writes create the file the kernel would have
 * provided, and the file system is not required to be cgroup2.  Nothing
 * else differs between the fake tree and the real one.
 */
#include <sys/types.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include <linux/magic.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "cgv2.h"
#include "spec.h"

/* Read a small control file whole; -1 with errno. */
static ssize_t
cgv2_read(int dfd, const char *file, char *buf, size_t len)
{
	ssize_t	 n;
	int	 fd, saved;

	if ((fd = openat(dfd, file, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	do {
		n = read(fd, buf, len - 1);
	} while (n == -1 && errno == EINTR);
	saved = errno;
	close(fd);
	errno = saved;
	if (n == -1)
		return -1;
	buf[n] = '\0';
	return n;
}

int
cgv2_write(int dfd, const char *file, const char *val, int flags)
{
	size_t	 len = strlen(val);
	ssize_t	 n;
	int	 fd, saved, oflags = O_WRONLY | O_CLOEXEC;

	/* The fake tree has no files until the code under test writes. */
	if (flags & CGV2_FAKE)
		oflags |= O_CREAT | O_TRUNC;
	if ((fd = openat(dfd, file, oflags, 0644)) == -1)
		return -1;
	n = write(fd, val, len);
	saved = errno;
	close(fd);
	errno = saved;
	if (n == -1)
		return -1;
	if ((size_t)n != len) {
		errno = EIO;
		return -1;
	}
	return 0;
}

int
cgv2_is_cgroup2(int dfd, int flags)
{
	struct statfs	 sfs;

	if (flags & CGV2_FAKE)
		return 1;
	return fstatfs(dfd, &sfs) == 0 && sfs.f_type == CGROUP2_SUPER_MAGIC;
}

/*
 * Which of want[] are not words of file (cgroup.controllers,
 * cgroup.subtree_control): their names, space-separated, in missing.
 * 0 when all are there, 1 when some are missing, -1 when the file cannot
 * be read (missing then says so).
 */
int
cgv2_missing(int dfd, const char *file, const char *const *want, size_t nwant,
    char *missing, size_t mlen)
{
	char	 buf[1024], *p, *w, *save;
	size_t	 i;
	uint32_t found = 0;

	if (missing != NULL && mlen > 0)
		missing[0] = '\0';
	if (nwant > 32) {
		errno = EINVAL;
		return -1;
	}
	if (cgv2_read(dfd, file, buf, sizeof(buf)) == -1) {
		if (missing != NULL)
			snprintf(missing, mlen, "%s unreadable: %s", file,
			    sbx_errname(errno));
		return -1;
	}
	for (p = buf; (w = strtok_r(p, " \t\n", &save)) != NULL; p = NULL)
		for (i = 0; i < nwant; i++)
			if (strcmp(w, want[i]) == 0)
				found |= 1U << i;
	for (i = 0; i < nwant; i++) {
		if (found & (1U << i))
			continue;
		if (missing != NULL) {
			if (missing[0] != '\0')
				strlcat(missing, " ", mlen);
			strlcat(missing, want[i], mlen);
		}
	}
	return found == (nwant == 32 ? ~0U : (1U << nwant) - 1) ? 0 : 1;
}

/*
 * The value of "key N" in a flat keyed file (memory.events, pids.events,
 * v1's memory.oom_control): 0 when the file or the key is missing, so a
 * kernel that counts nothing reports nothing.
 */
long long
cgv2_event(int dfd, const char *file, const char *key)
{
	char		 buf[1024], *line, *save, *end;
	size_t		 klen = strlen(key);
	long long	 v;

	if (cgv2_read(dfd, file, buf, sizeof(buf)) == -1)
		return 0;
	for (line = strtok_r(buf, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, key, klen) != 0 || line[klen] != ' ')
			continue;
		errno = 0;
		v = strtoll(line + klen + 1, &end, 10);
		if (errno != 0 || end == line + klen + 1 || v < 0)
			return 0;
		return v;
	}
	return 0;
}

/*
 * A file that holds one number (memory.peak, v1's
 * memory.max_usage_in_bytes, cpuacct.usage): -1 when it is missing or
 * holds anything else, so a kernel without it reports nothing.
 */
long long
cgv2_value(int dfd, const char *file)
{
	char		 buf[64], *end;
	long long	 v;

	if (cgv2_read(dfd, file, buf, sizeof(buf)) == -1)
		return -1;
	errno = 0;
	v = strtoll(buf, &end, 10);
	if (errno != 0 || end == buf || (*end != '\n' && *end != '\0') ||
	    v < 0)
		return -1;
	return v;
}

/*
 * Where the cgroup2 file system is mounted, from a mountinfo file
 * (/proc/self/mountinfo): 0 and the mount point in path, 1 when there
 * is none, -1 on an unreadable file or a path too long.
 */
int
cgv2_mountpoint(const char *mountinfo, char *path, size_t len)
{
	FILE	*fp;
	char	*line = NULL, *sep, *f[5], *save, *p;
	size_t	 cap = 0;
	int	 i, r = 1;

	if ((fp = fopen(mountinfo, "re")) == NULL)
		return -1;
	while (r == 1 && getline(&line, &cap, fp) != -1) {
		/* "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS ... - FSTYPE ..." */
		if ((sep = strstr(line, " - ")) == NULL)
			continue;
		if (strncmp(sep + 3, "cgroup2 ", 8) != 0)
			continue;
		*sep = '\0';
		for (i = 0, p = line; i < 5; i++, p = NULL)
			if ((f[i] = strtok_r(p, " ", &save)) == NULL)
				break;
		/* Only a mount of the hierarchy's root: a bind of a
		 * subdirectory names other paths than /proc/self/cgroup. */
		if (i < 5 || strcmp(f[3], "/") != 0)
			continue;
		/* Octal escapes (\040) mean an unusual path: not ours. */
		if (strchr(f[4], '\\') != NULL)
			continue;
		r = strlcpy(path, f[4], len) < len ? 0 : -1;
	}
	free(line);
	fclose(fp);
	return r;
}

/*
 * This process's cgroup v2 path, from a cgroup file (/proc/self/cgroup):
 * the "0::" line.  0 and the path ("/" for the root), 1 when there is
 * none, -1 on an unreadable file or a path too long.
 */
int
cgv2_self(const char *cgfile, char *path, size_t len)
{
	FILE	*fp;
	char	*line = NULL;
	size_t	 cap = 0;
	ssize_t	 n;
	int	 r = 1;

	if ((fp = fopen(cgfile, "re")) == NULL)
		return -1;
	while (r == 1 && (n = getline(&line, &cap, fp)) != -1) {
		if (strncmp(line, "0::", 3) != 0)
			continue;
		if (n > 0 && line[n - 1] == '\n')
			line[n - 1] = '\0';
		/* A path outside our cgroup namespace: not usable. */
		if (line[3] != '/') {
			r = -1;
			break;
		}
		r = strlcpy(path, line + 3, len) < len ? 0 : -1;
	}
	free(line);
	fclose(fp);
	return r;
}

/*
 * Remove the cgroup name under dfd.  The kernel removes a cgroup's
 * control files with it; in the fake tree they are plain files, removed
 * here first, so the same call cleans up both.  0, or -1 with errno
 * (EBUSY: processes are still in it).
 */
int
cgv2_rmdir(int dfd, const char *name, int flags)
{
	struct dirent	*de;
	DIR		*d;
	int		 fd;

	if ((flags & CGV2_FAKE) && (fd = openat(dfd, name, O_RDONLY |
	    O_DIRECTORY | O_CLOEXEC)) != -1) {
		if ((d = fdopendir(fd)) == NULL)
			close(fd);
		else {
			while ((de = readdir(d)) != NULL)
				if (de->d_type == DT_REG)
					(void)unlinkat(fd, de->d_name, 0);
			closedir(d);
		}
	}
	return unlinkat(dfd, name, AT_REMOVEDIR);
}
