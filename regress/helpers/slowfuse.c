/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * slowfuse: a FUSE file system whose FLUSH waits, for regress/tenants.sh
 * (issue 20: a passed descriptor must not block the service).
 *
 *	slowfuse RELEASE MOUNTPOINT
 *
 * Mounts one file, MOUNTPOINT/slow (a few bytes of JSON), in the
 * foreground.  Its flush handler, which close(2) of every descriptor of
 * the file calls, waits until the file RELEASE exists, or 60 seconds at
 * most, so the helper always lets go by itself; statfs(2) waits the
 * same way.  As root it mounts with allow_other, so that
 * every user's statfs(2) reaches it; as a user libfuse mounts through
 * fusermount3, which needs /dev/fuse open to that user.  Unmount with
 * fusermount3 -u MOUNTPOINT.
 */
#define FUSE_USE_VERSION 31

#include <sys/stat.h>

#include <errno.h>
#include <fuse.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SLOW_MAX_MS	60000

static const char	 content[] = "{}\n";
static const char	*release;

static int
sf_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	(void)fi;
	memset(st, 0, sizeof(*st));
	if (strcmp(path, "/") == 0) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
	} else if (strcmp(path, "/slow") == 0) {
		st->st_mode = S_IFREG | 0644;
		st->st_nlink = 1;
		st->st_size = sizeof(content) - 1;
	} else
		return -ENOENT;
	st->st_uid = getuid();
	st->st_gid = getgid();
	return 0;
}

static int
sf_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
    struct fuse_file_info *fi, enum fuse_readdir_flags fl)
{
	(void)off;
	(void)fi;
	(void)fl;
	if (strcmp(path, "/") != 0)
		return -ENOENT;
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	fill(buf, "slow", NULL, 0, 0);
	return 0;
}

static int
sf_open(const char *path, struct fuse_file_info *fi)
{
	if (strcmp(path, "/slow") != 0)
		return -ENOENT;
	if ((fi->flags & O_ACCMODE) != O_RDONLY)
		return -EACCES;
	return 0;
}

static int
sf_read(const char *path, char *buf, size_t size, off_t off,
    struct fuse_file_info *fi)
{
	size_t	 len = sizeof(content) - 1;

	(void)path;
	(void)fi;
	if (off < 0 || (size_t)off >= len)
		return 0;
	if (size > len - (size_t)off)
		size = len - (size_t)off;
	memcpy(buf, content + off, size);
	return (int)size;
}

static void
sf_wait(void)
{
	struct timespec	 ts = { 0, 100 * 1000 * 1000 };
	int		 ms;

	for (ms = 0; ms < SLOW_MAX_MS && access(release, F_OK) == -1;
	    ms += 100)
		nanosleep(&ts, NULL);
}

/* The point of the helper: every close(2) of the file waits here. */
static int
sf_flush(const char *path, struct fuse_file_info *fi)
{
	(void)path;
	(void)fi;
	sf_wait();
	return 0;
}

/* So does statfs(2): a check that asks the file system what it is
 * would stall as well (the kernel asks the daemon whenever the caller
 * is allowed by the mount, e.g. has the uid that mounted it). */
static int
sf_statfs(const char *path, struct statvfs *sv)
{
	(void)path;
	sf_wait();
	memset(sv, 0, sizeof(*sv));
	sv->f_bsize = 512;
	sv->f_namemax = 255;
	return 0;
}

static const struct fuse_operations ops = {
	.getattr = sf_getattr,
	.readdir = sf_readdir,
	.open = sf_open,
	.read = sf_read,
	.flush = sf_flush,
	.statfs = sf_statfs,
};

int
main(int argc, char *argv[])
{
	char	*fargv[] = { argv[0], "-f", "-o", "default_permissions",
		    argc == 3 ? argv[2] : NULL, NULL };

	if (argc != 3) {
		fprintf(stderr, "usage: slowfuse RELEASE MOUNTPOINT\n");
		return 2;
	}
	release = argv[1];
	if (geteuid() == 0)
		fargv[3] = "default_permissions,allow_other";
	return fuse_main(5, fargv, &ops, NULL);
}
