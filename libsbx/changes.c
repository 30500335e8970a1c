/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * changes.c: what a client does with a changeset's stream (issue 23):
 * its entries, a git-style diff against DIR, and apply into DIR as the
 * caller (sbx.h, sbx_changes(3)).  The stream comes from the monitor's
 * store but was written inside a sandbox, so every path in it is the
 * payload's choice: each is checked by the parser (relative, no "." or
 * "..") and every file system operation happens beneath DIR's
 * descriptor, parents opened by openat2 with RESOLVE_BENEATH |
 * RESOLVE_NO_SYMLINKS, the last component never followed.  A symlink
 * planted in DIR (by the host, or by an earlier record) therefore cannot
 * carry a write out of DIR; and since a file is replaced by rename, never
 * written in place, neither can a hard link in DIR to a file elsewhere.
 * Library code: no logging, no exits.
 */
#include <sys/types.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sha1.h>
#include <sha2.h>
#include <zlib.h>

#include "changeset.h"
#include "sbx.h"

/* A parent directory beneath DIR, kept open for the records after it. */
struct cs_dirs {
	int		 dirfd;
	int		 fd;
	size_t		 len;
	char		 path[SBX_CS_PATH_MAX + 1];
};

/* The changeset module's error formatter. */
#define cserr		sbx_cs_seterr

size_t
sbx_changes_quote(const char *path, char *buf, size_t len)
{
	const unsigned char	*p;
	char			 tmp[8];
	size_t			 n = 0, k, i;
	int			 quote = 0;

	for (p = (const unsigned char *)path; *p != '\0'; p++)
		if (*p < 0x20 || *p == '"' || *p == '\\' || *p > 0x7e)
			quote = 1;
#define PUT(s, l) do {							\
	for (i = 0; i < (l); i++, n++)					\
		if (n + 1 < len)					\
			buf[n] = (s)[i];				\
} while (0)
	if (quote)
		PUT("\"", 1);
	for (p = (const unsigned char *)path; *p != '\0'; p++) {
		if (!quote) {
			PUT((const char *)p, 1);
			continue;
		}
		switch (*p) {
		case '\n': k = snprintf(tmp, sizeof(tmp), "\\n"); break;
		case '\t': k = snprintf(tmp, sizeof(tmp), "\\t"); break;
		case '"': k = snprintf(tmp, sizeof(tmp), "\\\""); break;
		case '\\': k = snprintf(tmp, sizeof(tmp), "\\\\"); break;
		default:
			if (*p < 0x20 || *p > 0x7e)
				k = snprintf(tmp, sizeof(tmp), "\\%03o", *p);
			else
				k = snprintf(tmp, sizeof(tmp), "%c", *p);
		}
		PUT(tmp, k);
	}
	if (quote)
		PUT("\"", 1);
#undef PUT
	if (len > 0)
		buf[n < len ? n : len - 1] = '\0';
	return n;
}

/* ---- beneath DIR --------------------------------------------------- */

static int
cs_open_beneath(int dirfd, const char *path, int flags)
{
	struct open_how	 how;
	int		 fd;

	memset(&how, 0, sizeof(how));
	how.flags = (uint64_t)flags | O_CLOEXEC;
	how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
	    RESOLVE_NO_MAGICLINKS;
	do
		fd = (int)syscall(SYS_openat2, dirfd, path, &how,
		    sizeof(how));
	while (fd == -1 && errno == EAGAIN);
	return fd;
}

/*
 * The parent of path beneath DIR, opened as a directory, and the last
 * component in *name.  The previous parent is kept: a stream's records
 * come sorted, so most follow their sibling.
 */
static int
cs_parent(struct cs_dirs *d, const char *path, const char **name)
{
	const char	*slash;
	size_t		 len;

	if ((slash = strrchr(path, '/')) == NULL) {
		*name = path;
		return d->dirfd;
	}
	*name = slash + 1;
	len = (size_t)(slash - path);
	if (d->fd != -1 && d->len == len && memcmp(d->path, path, len) == 0)
		return d->fd;
	if (d->fd != -1)
		close(d->fd);
	d->fd = -1;
	memcpy(d->path, path, len);
	d->path[len] = '\0';
	d->len = len;
	if ((d->fd = cs_open_beneath(d->dirfd, d->path, O_RDONLY |
	    O_DIRECTORY)) == -1)
		return -1;
	return d->fd;
}

static void
cs_parent_forget(struct cs_dirs *d)
{
	if (d->fd != -1)
		close(d->fd);
	d->fd = -1;
}

/*
 * Records selected by paths: a path itself, what lies beneath it, and
 * the directories above it (so that a selected file's new parent is
 * made).
 */
static int
cs_selected(const char *path, const char *const *paths, int kind)
{
	const char	*p;
	size_t		 n, m;

	if (paths == NULL || paths[0] == NULL)
		return 1;
	n = strlen(path);
	for (; *paths != NULL; paths++) {
		/* "./src/" names what "src" does. */
		for (p = *paths; p[0] == '.' && p[1] == '/'; p += 2)
			while (p[2] == '/')
				p++;
		m = strlen(p);
		while (m > 1 && p[m - 1] == '/')
			m--;
		if (m >= n && memcmp(p, path, n) == 0 &&
		    (m == n || (p[n] == '/' && kind == SBX_CS_DIR)))
			return 1;
		if (n > m && memcmp(p, path, m) == 0 && path[m] == '/')
			return 1;
	}
	return 0;
}

/* A directory record over a directory of the same mode changes nothing. */
static int
cs_noop(const struct sbx_cs_rec *rec)
{
	return rec->kind == SBX_CS_DIR && rec->base_kind == SBX_CS_DIR &&
	    (rec->base_mode & 07777) == rec->mode;
}

/* ---- entries ------------------------------------------------------- */

int
sbx_changes_entries(int stream, int (*cb)(const struct sbx_change *,
    void *), void *arg, char *err, size_t errlen)
{
	struct sbx_cs_reader	*r;
	struct sbx_cs_rec	*rec;
	struct sbx_change	 c;
	int			 rc;

	if ((rec = malloc(sizeof(*rec))) == NULL) {
		cserr(err, errlen, "%s", strerror(errno));
		return -1;
	}
	if ((r = sbx_cs_open(stream, err, errlen)) == NULL) {
		free(rec);
		return -1;
	}
	while ((rc = sbx_cs_next(r, rec)) == 1) {
		if (cs_noop(rec))
			continue;
		memset(&c, 0, sizeof(c));
		c.op = sbx_cs_op(rec);
		c.kind = (char)rec->kind;
		c.base_kind = (char)rec->base_kind;
		c.mode = rec->mode;
		c.size = rec->size;
		c.path = rec->path;
		c.target = rec->kind == SBX_CS_SYMLINK ? rec->target : NULL;
		if ((rc = cb(&c, arg)) != 0)
			break;
	}
	if (rc == -1 && sbx_cs_error(r)[0] != '\0')
		cserr(err, errlen, "changeset stream: %s", sbx_cs_error(r));
	sbx_cs_close(r);
	free(rec);
	return rc;
}

/* ---- apply --------------------------------------------------------- */

struct apply {
	struct cs_dirs			 d;
	const struct sbx_changes_dir	*dir;
	int				 write;		/* 0: check only */
	int				 conflicts;
	int64_t				 t0;		/* the ctime rule's */
	/*
	 * Checking only: the directories the records so far will make, the
	 * deepest last (those that are ancestors of the current path), so
	 * that what goes into them is checked as going into nothing.
	 */
	char				**made;
	size_t				 nmade;
	void				(*conflict)(const char *,
					    const char *, void *);
	void				*arg;
	char				*err;
	size_t				 errlen;
	unsigned char			 buf[65536];
};

static int64_t
ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000000000LL + ts->tv_nsec;
}

static int
kind_of(const struct stat *st)
{
	if (S_ISREG(st->st_mode))
		return SBX_CS_FILE;
	if (S_ISLNK(st->st_mode))
		return SBX_CS_SYMLINK;
	if (S_ISDIR(st->st_mode))
		return SBX_CS_DIR;
	return SBX_CS_OTHER;
}

/* SHA-256 of name's content beneath parent; 0 or -1. */
static int
hash_file(struct apply *a, int parent, const char *name,
    unsigned char md[SHA256_DIGEST_LENGTH])
{
	SHA2_CTX	 ctx;
	ssize_t		 n;
	int		 fd;

	if ((fd = openat(parent, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC |
	    O_NONBLOCK)) == -1)
		return -1;
	SHA256Init(&ctx);
	while ((n = read(fd, a->buf, sizeof(a->buf))) > 0)
		SHA256Update(&ctx, a->buf, (size_t)n);
	close(fd);
	SHA256Final(md, &ctx);
	return n == 0 ? 0 : -1;
}

/* Remove name beneath parent and, if a directory, its tree: no symlink
 * is followed, each level is opened O_NOFOLLOW from the one above. */
static int
cs_remove_tree(int parent, const char *name)
{
	struct dirent	*de;
	struct stat	 st;
	DIR		*dp;
	int		 fd, rc = 0;

	if (fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) == -1)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(parent, name, 0);
	if ((fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return -1;
	if ((dp = fdopendir(fd)) == NULL) {
		close(fd);
		return -1;
	}
	while (rc == 0 && (errno = 0, de = readdir(dp)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		rc = cs_remove_tree(dirfd(dp), de->d_name);
	}
	if (rc == 0 && errno != 0)
		rc = -1;
	closedir(dp);
	if (rc == 0)
		rc = unlinkat(parent, name, AT_REMOVEDIR);
	return rc;
}

/*
 * The mode apply gives: the record's, less set-user-ID and set-group-ID.
 * The payload chose it; a set-ID program it left would run as whoever
 * applies (root included) for anyone who can reach DIR.
 */
static mode_t
safe_mode(const struct sbx_cs_rec *rec)
{
	return rec->mode & 07777 & ~(mode_t)(S_ISUID | S_ISGID);
}

static int
say_conflict(struct apply *a, const char *path, const char *why)
{
	a->conflicts++;
	if (a->conflict != NULL)
		a->conflict(path, why, a->arg);
	return 0;
}

/* Read the record's data into a new temporary file beneath parent (when
 * writing) and its SHA-256 into md. */
static int
take_data(struct apply *a, struct sbx_cs_reader *r,
    const struct sbx_cs_rec *rec, int parent, char *tmp, size_t tmplen,
    unsigned char md[SHA256_DIGEST_LENGTH])
{
	SHA2_CTX	 ctx;
	ssize_t		 n;
	size_t		 off;
	ssize_t		 w;
	int		 fd = -1;

	tmp[0] = '\0';
	if (a->write && parent != -1) {
		snprintf(tmp, tmplen, ".sbx-apply.%08x%08x", arc4random(),
		    arc4random());
		if ((fd = openat(parent, tmp, O_WRONLY | O_CREAT | O_EXCL |
		    O_NOFOLLOW | O_CLOEXEC, 0600)) == -1) {
			cserr(a->err, a->errlen, "%s: a temporary file: %s",
			    rec->path, strerror(errno));
			tmp[0] = '\0';
			return -1;
		}
	}
	SHA256Init(&ctx);
	while ((n = sbx_cs_read(r, a->buf, sizeof(a->buf))) > 0) {
		SHA256Update(&ctx, a->buf, (size_t)n);
		for (off = 0; fd != -1 && off < (size_t)n; off += (size_t)w)
			if ((w = write(fd, a->buf + off, (size_t)n - off)) ==
			    -1) {
				cserr(a->err, a->errlen, "%s: write: %s",
				    rec->path, strerror(errno));
				goto fail;
			}
	}
	if (n == -1) {
		cserr(a->err, a->errlen, "changeset stream: %s",
		    sbx_cs_error(r));
		goto fail;
	}
	SHA256Final(md, &ctx);
	if (fd != -1 && (fchmod(fd, safe_mode(rec)) == -1 ||
	    fsync(fd) == -1)) {
		cserr(a->err, a->errlen, "%s: %s", rec->path,
		    strerror(errno));
		goto fail;
	}
	if (fd != -1)
		close(fd);
	return 0;
fail:
	if (fd != -1) {
		close(fd);
		unlinkat(parent, tmp, 0);
		tmp[0] = '\0';
	}
	return -1;
}

/* Does path lie beneath dir? */
static int
beneath(const char *path, const char *dir)
{
	size_t	 n = strlen(dir);

	return strncmp(path, dir, n) == 0 && path[n] == '/';
}

static int
remember(struct apply *a, const char *path)
{
	char	**m;

	if ((m = reallocarray(a->made, a->nmade + 1, sizeof(*m))) == NULL) {
		cserr(a->err, a->errlen, "%s", strerror(errno));
		return -1;
	}
	a->made = m;
	if ((m[a->nmade] = strdup(path)) == NULL) {
		cserr(a->err, a->errlen, "%s", strerror(errno));
		return -1;
	}
	a->nmade++;
	return 0;
}

/*
 * One record: already applied, a conflict, or (when writing) applied.
 * 0 (including a conflict, which is reported), -1 failed.
 */
static int
apply_rec(struct apply *a, struct sbx_cs_reader *r,
    const struct sbx_cs_rec *rec)
{
	unsigned char	 md[SHA256_DIGEST_LENGTH], nmd[SHA256_DIGEST_LENGTH];
	char		 tmp[64], lnk[SBX_CS_LINK_MAX + 2];
	const char	*name, *why = NULL;
	struct stat	 st;
	ssize_t		 n;
	int		 parent, now, same, fd, saved, rc = -1;

	tmp[0] = '\0';
	while (a->nmade > 0 && !beneath(rec->path, a->made[a->nmade - 1])) {
		free(a->made[--a->nmade]);
		a->made[a->nmade] = NULL;
	}
	if ((parent = cs_parent(&a->d, rec->path, &name)) == -1) {
		saved = errno;
		if (!a->write && a->nmade > 0 &&
		    strlen(a->made[a->nmade - 1]) == (size_t)(name - 1 -
		    rec->path)) {
			/* Made by an earlier record when writing. */
			now = 0;
			parent = -1;
		} else {
			if (rec->kind == SBX_CS_FILE &&
			    take_data(a, r, rec, -1, tmp, sizeof(tmp), nmd)
			    == -1)
				return -1;
			return say_conflict(a, rec->path, saved == ELOOP ||
			    saved == EXDEV ? "a parent in DIR is a symlink" :
			    saved == ENOTDIR ? "a parent in DIR is not a "
			    "directory" : "its parent cannot be opened in DIR");
		}
	} else if (fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) == -1) {
		if (errno != ENOENT) {
			cserr(a->err, a->errlen, "%s: %s", rec->path,
			    strerror(errno));
			return -1;
		}
		now = 0;
	} else
		now = kind_of(&st);

	/* The new data first: a file's hash (and its temporary copy). */
	if (rec->kind == SBX_CS_FILE && take_data(a, r, rec, parent, tmp,
	    sizeof(tmp), nmd) == -1)
		return -1;

	/* Already applied: DIR holds exactly the new state. */
	same = 0;
	switch (rec->kind) {
	case SBX_CS_WHITEOUT:
		same = now == 0;
		break;
	case SBX_CS_DIR:
		same = now == SBX_CS_DIR &&
		    (st.st_mode & 07777) == safe_mode(rec);
		break;
	case SBX_CS_SYMLINK:
		if (now == SBX_CS_SYMLINK &&
		    (uint64_t)st.st_size == rec->size &&
		    (n = readlinkat(parent, name, lnk, sizeof(lnk))) ==
		    (ssize_t)rec->size && memcmp(lnk, rec->target,
		    (size_t)n) == 0)
			same = 1;
		break;
	case SBX_CS_FILE:
		if (now == SBX_CS_FILE && (uint64_t)st.st_size == rec->size &&
		    (st.st_mode & 07777) == safe_mode(rec) &&
		    hash_file(a, parent, name, md) == 0 &&
		    memcmp(md, nmd, sizeof(md)) == 0)
			same = 1;
		break;
	}
	if (same) {
		rc = 0;
		goto done;
	}

	/* A conflict: DIR no longer holds what the changeset began from. */
	if (rec->kind == SBX_CS_DIR && rec->base_kind == SBX_CS_DIR) {
		/* Only its mode changes: what is inside is other records'. */
		if (now != SBX_CS_DIR)
			why = "DIR no longer has it as a directory";
	} else if (now != rec->base_kind)
		why = now == 0 ? "deleted in DIR since" : rec->base_kind == 0 ?
		    "created in DIR since" : "its type changed in DIR since";
	else if (now != 0 && ((uint64_t)st.st_ino != rec->base_ino ||
	    ns(&st.st_mtim) != rec->base_mtime_ns ||
	    (now != SBX_CS_DIR && (uint64_t)st.st_size != rec->base_size)))
		why = "changed in DIR since";
	else if (now == SBX_CS_FILE && (hash_file(a, parent, name, md) ==
	    -1 || memcmp(md, rec->base_sha256, sizeof(md)) != 0))
		why = "its content changed in DIR since";
	else if (now != 0 && rec->base_ctime_ns > a->t0)
		why = "changed in DIR while a run was going on";
	if (why != NULL) {
		say_conflict(a, rec->path, why);
		rc = 0;
		goto done;
	}
	if (!a->write) {
		if (rec->kind == SBX_CS_DIR && now != SBX_CS_DIR &&
		    remember(a, rec->path) == -1)
			goto done;
		rc = 0;
		goto done;
	}

	/* Write.  What is in the way is what the base said was there. */
	if (now == SBX_CS_DIR && rec->kind != SBX_CS_DIR &&
	    cs_remove_tree(parent, name) == -1) {
		cserr(a->err, a->errlen, "%s: removing the directory: %s",
		    rec->path, strerror(errno));
		goto done;
	}
	switch (rec->kind) {
	case SBX_CS_WHITEOUT:
		if (now != SBX_CS_DIR && unlinkat(parent, name, 0) == -1 &&
		    errno != ENOENT) {
			cserr(a->err, a->errlen, "%s: %s", rec->path,
			    strerror(errno));
			goto done;
		}
		break;
	case SBX_CS_DIR:
		if (now != 0 && now != SBX_CS_DIR &&
		    unlinkat(parent, name, 0) == -1) {
			cserr(a->err, a->errlen, "%s: %s", rec->path,
			    strerror(errno));
			goto done;
		}
		if (now != SBX_CS_DIR && mkdirat(parent, name, 0700) == -1) {
			cserr(a->err, a->errlen, "%s: mkdir: %s", rec->path,
			    strerror(errno));
			goto done;
		}
		if ((fd = openat(parent, name, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC)) == -1 ||
		    fchmod(fd, safe_mode(rec)) == -1) {
			cserr(a->err, a->errlen, "%s: chmod: %s", rec->path,
			    strerror(errno));
			if (fd != -1)
				close(fd);
			goto done;
		}
		close(fd);
		break;
	case SBX_CS_SYMLINK:
		snprintf(tmp, sizeof(tmp), ".sbx-apply.%08x%08x",
		    arc4random(), arc4random());
		if (symlinkat(rec->target, parent, tmp) == -1) {
			cserr(a->err, a->errlen, "%s: symlink: %s",
			    rec->path, strerror(errno));
			tmp[0] = '\0';
			goto done;
		}
		/* FALLTHROUGH */
	case SBX_CS_FILE:
		if (renameat(parent, tmp, parent, name) == -1) {
			cserr(a->err, a->errlen, "%s: rename: %s", rec->path,
			    strerror(errno));
			goto done;
		}
		tmp[0] = '\0';
		break;
	}
	rc = 0;
done:
	if (tmp[0] != '\0')
		unlinkat(parent, tmp, 0);
	return rc;
}

static int
apply_pass(struct apply *a, int stream, const char *const *paths)
{
	struct sbx_cs_reader	*r;
	struct sbx_cs_rec	*rec;
	int			 rc;

	if ((rec = malloc(sizeof(*rec))) == NULL) {
		cserr(a->err, a->errlen, "%s", strerror(errno));
		return -1;
	}
	if ((r = sbx_cs_open(stream, a->err, a->errlen)) == NULL) {
		free(rec);
		return -1;
	}
	while ((rc = sbx_cs_next(r, rec)) == 1) {
		if (!cs_selected(rec->path, paths, rec->kind))
			continue;
		if (apply_rec(a, r, rec) == -1) {
			rc = -1;
			break;
		}
	}
	if (rc == -1 && sbx_cs_error(r)[0] != '\0')
		cserr(a->err, a->errlen, "changeset stream: %s",
		    sbx_cs_error(r));
	cs_parent_forget(&a->d);
	sbx_cs_close(r);
	free(rec);
	return rc;
}

static int
cs_dir_check(const struct sbx_changes_dir *dir, char *err, size_t errlen)
{
	struct stat	 st;

	if (fstat(dir->fd, &st) == -1 || !S_ISDIR(st.st_mode)) {
		cserr(err, errlen, "DIR: not a directory descriptor");
		return -1;
	}
	if ((dir->dev != 0 || dir->ino != 0) &&
	    ((uint64_t)st.st_dev != dir->dev ||
	    (uint64_t)st.st_ino != dir->ino)) {
		cserr(err, errlen, "DIR is not the changeset's directory "
		    "(device and inode differ from when it began)");
		return -1;
	}
	return 0;
}

int
sbx_changes_apply(int stream, const struct sbx_changes_dir *dir,
    const char *const *paths, int flags,
    void (*conflict)(const char *, const char *, void *), void *arg,
    char *err, size_t errlen)
{
	struct apply	*a;
	off_t		 start = 0;
	int		 rc;

	if (cs_dir_check(dir, err, errlen) == -1)
		return -1;
	if ((flags & SBX_APPLY_ALL_OR_NOTHING) &&
	    (start = lseek(stream, 0, SEEK_CUR)) == -1) {
		cserr(err, errlen, "all-or-nothing reads the stream twice: "
		    "%s", strerror(errno));
		return -1;
	}
	if ((a = calloc(1, sizeof(*a))) == NULL) {
		cserr(err, errlen, "%s", strerror(errno));
		return -1;
	}
	a->d.dirfd = dir->fd;
	a->d.fd = -1;
	a->dir = dir;
	/*
	 * T0 is read from the precise clock, and the first run's payload
	 * started only once the coarse clock file times are stamped from
	 * had passed it (monitor/runspec.c, shim/overlay.c): a host change
	 * while a run went on has a ctime after T0, one made before T0 at
	 * or before it.  (One tick of slack instead both missed changes,
	 * when the coarse clock lagged by more than a tick on a loaded
	 * machine, and blamed edits made just before the run.)
	 */
	a->t0 = dir->first_run_start;
	a->conflict = conflict;
	a->arg = arg;
	a->err = err;
	a->errlen = errlen;
	if (flags & SBX_APPLY_ALL_OR_NOTHING) {
		/* Everything is checked before anything is written. */
		rc = apply_pass(a, stream, paths);
		if (rc == 0 && a->conflicts == 0) {
			if (lseek(stream, start, SEEK_SET) == -1) {
				cserr(err, errlen, "stream: %s",
				    strerror(errno));
				rc = -1;
			} else {
				a->write = 1;
				rc = apply_pass(a, stream, paths);
			}
		}
	} else {
		a->write = 1;
		rc = apply_pass(a, stream, paths);
	}
	if (rc == 0 && a->conflicts > 0)
		rc = 1;
	while (a->nmade > 0)
		free(a->made[--a->nmade]);
	free(a->made);
	free(a);
	return rc;
}

/* ---- diff ---------------------------------------------------------- */

#define DIFF_CONTEXT	3
#define DIFF_MAX_FILE	(256ULL << 20)	/* a side held in memory */
#define DIFF_MAX_D	2000		/* Myers' D; beyond: replace all */
#define GIT_BINARY_SNIFF 8000		/* git: a NUL in the first 8000 */

/* One side of a file pair: absent, or a mode and its bytes. */
struct side {
	int		 present;
	unsigned	 mode;		/* git's: 100644, 100755, 120000 */
	unsigned char	*data;
	size_t		 len;
};

struct diff {
	struct cs_dirs			 d;
	FILE				*out;
	char				*err;
	size_t				 errlen;
};

struct line {
	const unsigned char	*p;
	size_t			 len;
	uint64_t		 h;
};

static const char zero_oid[] = "0000000000000000000000000000000000000000";

static void
blob_oid(const struct side *s, char oid[41])
{
	SHA1_CTX	 ctx;
	uint8_t		 md[SHA1_DIGEST_LENGTH];
	char		 hdr[32];
	int		 n, i;

	if (!s->present) {
		memcpy(oid, zero_oid, 41);
		return;
	}
	n = snprintf(hdr, sizeof(hdr), "blob %zu", s->len);
	SHA1Init(&ctx);
	SHA1Update(&ctx, (const uint8_t *)hdr, (size_t)n + 1);
	SHA1Update(&ctx, s->data, s->len);
	SHA1Final(md, &ctx);
	for (i = 0; i < SHA1_DIGEST_LENGTH; i++)
		snprintf(oid + 2 * i, 3, "%02x", md[i]);
}

static unsigned
git_mode(int kind, unsigned mode)
{
	if (kind == SBX_CS_SYMLINK)
		return 0120000;
	return (mode & 0100) ? 0100755 : 0100644;
}

static int
is_binary(const struct side *s)
{
	size_t	 n = s->len < GIT_BINARY_SNIFF ? s->len : GIT_BINARY_SNIFF;

	return s->present && memchr(s->data, '\0', n) != NULL;
}

static size_t
split_lines(const struct side *s, struct line **out)
{
	struct line	*l;
	size_t		 n = 0, i, start;
	uint64_t	 h;

	for (i = 0; i < s->len; i++)
		if (s->data[i] == '\n')
			n++;
	if (s->len > 0 && s->data[s->len - 1] != '\n')
		n++;
	if ((l = calloc(n + 1, sizeof(*l))) == NULL)
		return (size_t)-1;
	for (n = 0, start = 0, i = 0; i < s->len; i++)
		if (s->data[i] == '\n' || i + 1 == s->len) {
			l[n].p = s->data + start;
			l[n].len = i + 1 - start;
			for (h = 14695981039346656037ULL; start <= i; start++)
				h = (h ^ s->data[start]) * 1099511628211ULL;
			l[n++].h = h;
		}
	*out = l;
	return n;
}

static int
line_eq(const struct line *a, const struct line *b)
{
	return a->h == b->h && a->len == b->len &&
	    memcmp(a->p, b->p, a->len) == 0;
}

/*
 * Myers' O(ND) difference of a[0..n) and b[0..m), as an edit script in
 * ops: '=' both, '-' only a, '+' only b.  Each round's furthest reaching
 * points are kept for the walk back (D^2 integers); a difference beyond
 * DIFF_MAX_D rounds is given as "all of a out, all of b in", which is
 * still a correct diff, only not the shortest.
 */
static char *
myers(const struct line *a, size_t n, const struct line *b, size_t m,
    size_t *nops)
{
	int32_t		**trace = NULL, *v = NULL;
	char		*ops, *rev = NULL;
	size_t		 pre = 0, suf = 0, k_ops = 0, i;
	long		 d, k, x, y, off, N, M, D = -1, pk, px, py;

	if ((ops = malloc(n + m + 1)) == NULL)
		return NULL;
	while (pre < n && pre < m && line_eq(&a[pre], &b[pre]))
		pre++;
	while (suf < n - pre && suf < m - pre &&
	    line_eq(&a[n - 1 - suf], &b[m - 1 - suf]))
		suf++;
	N = (long)(n - pre - suf);
	M = (long)(m - pre - suf);
	a += pre;
	b += pre;
	off = N + M + 1;
	if (N > 0 && M > 0) {
		if ((v = calloc((size_t)(2 * off + 1), sizeof(*v))) == NULL ||
		    (trace = calloc(DIFF_MAX_D + 1, sizeof(*trace))) == NULL ||
		    (rev = malloc((size_t)(N + M))) == NULL)
			goto fail;
		v[off + 1] = 0;
		for (d = 0; d <= DIFF_MAX_D && d <= N + M && D == -1; d++) {
			/* v over [-d-1, d+1] before round d. */
			if ((trace[d] = malloc((size_t)(2 * d + 3) *
			    sizeof(int32_t))) == NULL)
				goto fail;
			memcpy(trace[d], v + off - d - 1,
			    (size_t)(2 * d + 3) * sizeof(int32_t));
			for (k = -d; k <= d; k += 2) {
				if (k == -d || (k != d &&
				    v[off + k - 1] < v[off + k + 1]))
					x = v[off + k + 1];
				else
					x = v[off + k - 1] + 1;
				y = x - k;
				while (x < N && y < M &&
				    line_eq(&a[x], &b[y])) {
					x++;
					y++;
				}
				v[off + k] = (int32_t)x;
				if (x >= N && y >= M) {
					D = d;
					break;
				}
			}
		}
	}
	for (i = 0; i < pre; i++)
		ops[k_ops++] = '=';
	if (N == 0 || M == 0 || D == -1) {
		for (i = 0; i < (size_t)N; i++)
			ops[k_ops++] = '-';
		for (i = 0; i < (size_t)M; i++)
			ops[k_ops++] = '+';
	} else {
		/* Walk back from (N, M), collecting the script reversed. */
		size_t nr = 0;

		x = N;
		y = M;
		for (d = D; d >= 0; d--) {
			int32_t *t = trace[d];	/* index k + d + 1 */

			k = x - y;
			if (d == 0) {
				pk = 0;
				px = 0;
			} else {
				if (k == -d || (k != d &&
				    t[k - 1 + d + 1] < t[k + 1 + d + 1]))
					pk = k + 1;
				else
					pk = k - 1;
				px = t[pk + d + 1];
			}
			py = px - pk;
			while (x > px && y > py) {
				rev[nr++] = '=';
				x--;
				y--;
			}
			if (d > 0) {
				rev[nr++] = x == px ? '+' : '-';
				x = px;
				y = py;
			}
		}
		while (nr > 0)
			ops[k_ops++] = rev[--nr];
	}
	for (i = 0; i < suf; i++)
		ops[k_ops++] = '=';
	*nops = k_ops;
	goto done;
fail:
	free(ops);
	ops = NULL;
done:
	if (trace != NULL)
		for (d = 0; d <= DIFF_MAX_D; d++)
			free(trace[d]);
	free(trace);
	free(v);
	free(rev);
	return ops;
}

static void
put_line(FILE *out, char c, const struct line *l)
{
	fputc(c, out);
	fwrite(l->p, 1, l->len, out);
	if (l->len == 0 || l->p[l->len - 1] != '\n')
		fputs("\n\\ No newline at end of file\n", out);
}

static void
range(FILE *out, char c, size_t start, size_t count)
{
	/* An empty range names the line before it. */
	fprintf(out, " %c%zu,%zu", c, count == 0 ? start : start + 1, count);
}

static int
text_hunks(struct diff *df, const struct side *o, const struct side *n)
{
	struct line	*a = NULL, *b = NULL;
	size_t		 na, nb, nops = 0, i, j, k, s, e, ai, bi, ca, cb;
	size_t		*apos = NULL, *bpos = NULL;
	char		*ops = NULL;
	int		 rc = -1;

	if ((na = split_lines(o, &a)) == (size_t)-1 ||
	    (nb = split_lines(n, &b)) == (size_t)-1 ||
	    (ops = myers(a, na, b, nb, &nops)) == NULL ||
	    (apos = calloc(nops + 1, sizeof(*apos))) == NULL ||
	    (bpos = calloc(nops + 1, sizeof(*bpos))) == NULL) {
		cserr(df->err, df->errlen, "diff: %s", strerror(ENOMEM));
		goto done;
	}
	for (i = 0, ai = 0, bi = 0; i < nops; i++) {
		apos[i] = ai;
		bpos[i] = bi;
		if (ops[i] != '+')
			ai++;
		if (ops[i] != '-')
			bi++;
	}
	apos[nops] = ai;
	bpos[nops] = bi;
	for (i = 0; i < nops; ) {
		if (ops[i] == '=') {
			i++;
			continue;
		}
		s = i >= DIFF_CONTEXT ? i - DIFF_CONTEXT : 0;
		for (e = i;;) {
			for (j = e; j < nops && ops[j] != '='; j++)
				;
			for (k = j; k < nops && ops[k] == '='; k++)
				;
			if (k < nops && k - j <= 2 * DIFF_CONTEXT) {
				e = k;
				continue;
			}
			e = j + DIFF_CONTEXT < k ? j + DIFF_CONTEXT : k;
			break;
		}
		ca = apos[e] - apos[s];
		cb = bpos[e] - bpos[s];
		fputs("@@", df->out);
		range(df->out, '-', apos[s], ca);
		range(df->out, '+', bpos[s], cb);
		fputs(" @@\n", df->out);
		for (j = s; j < e; j++) {
			if (ops[j] == '+')
				put_line(df->out, '+', &b[bpos[j]]);
			else
				put_line(df->out, ops[j] == '=' ? ' ' : '-',
				    &a[apos[j]]);
		}
		i = e;
	}
	rc = 0;
done:
	free(a);
	free(b);
	free(ops);
	free(apos);
	free(bpos);
	return rc;
}

/* git's base85 of data, zlib-deflated, as a "literal" block. */
static const char en85[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    "abcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";

static int
literal(struct diff *df, const struct side *s)
{
	unsigned char	*z;
	uLongf		 zlen;
	size_t		 off, len, i;
	uint32_t	 acc;
	char		 enc[6];
	int		 c;

	zlen = compressBound(s->present ? s->len : 0);
	if ((z = malloc(zlen)) == NULL ||
	    compress2(z, &zlen, s->present ? s->data : (const Bytef *)"",
	    s->present ? s->len : 0, Z_BEST_COMPRESSION) != Z_OK) {
		free(z);
		cserr(df->err, df->errlen, "diff: deflate failed");
		return -1;
	}
	fprintf(df->out, "literal %zu\n", s->present ? s->len : 0);
	for (off = 0; off < zlen; off += len) {
		len = zlen - off > 52 ? 52 : zlen - off;
		fputc(len <= 26 ? (int)('A' + len - 1) :
		    (int)('a' + len - 27), df->out);
		for (i = 0; i < len; i += 4) {
			acc = 0;
			for (c = 0; c < 4; c++)
				acc = acc << 8 | (i + c < len ?
				    z[off + i + c] : 0);
			for (c = 4; c >= 0; c--) {
				enc[c] = en85[acc % 85];
				acc /= 85;
			}
			fwrite(enc, 1, 5, df->out);
		}
		fputc('\n', df->out);
	}
	fputc('\n', df->out);
	free(z);
	return 0;
}

static void
header_path(struct diff *df, const char *pfx, const char *path)
{
	char	 q[3 * SBX_CS_PATH_MAX + 8], full[SBX_CS_PATH_MAX + 3];

	snprintf(full, sizeof(full), "%s%s", pfx, path);
	sbx_changes_quote(full, q, sizeof(q));
	fputs(q, df->out);
}

/* One file pair, in git's form. */
static int
diff_pair(struct diff *df, const char *path, const struct side *o,
    const struct side *n)
{
	const char	*tab;
	char		 oo[41], no[41];
	int		 bin;

	if (!o->present && !n->present)
		return 0;
	if (o->present && n->present &&
	    (o->mode == 0120000) != (n->mode == 0120000)) {
		/* git shows a change of type as a deletion and a creation. */
		struct side none = { 0, 0, NULL, 0 };

		if (diff_pair(df, path, o, &none) == -1)
			return -1;
		return diff_pair(df, path, &none, n);
	}
	if (o->present && n->present && o->mode == n->mode &&
	    o->len == n->len && memcmp(o->data, n->data, o->len) == 0)
		return 0;
	blob_oid(o, oo);
	blob_oid(n, no);
	fputs("diff --git ", df->out);
	header_path(df, "a/", path);
	fputc(' ', df->out);
	header_path(df, "b/", path);
	fputc('\n', df->out);
	if (!o->present)
		fprintf(df->out, "new file mode %o\n", n->mode);
	else if (!n->present)
		fprintf(df->out, "deleted file mode %o\n", o->mode);
	else if (o->mode != n->mode)
		fprintf(df->out, "old mode %o\nnew mode %o\n", o->mode,
		    n->mode);
	if (strcmp(oo, no) == 0)
		return 0;		/* the mode alone */
	fprintf(df->out, "index %s..%s", oo, no);
	if (o->present && n->present && o->mode == n->mode)
		fprintf(df->out, " %o", o->mode);
	fputc('\n', df->out);
	bin = is_binary(o) || is_binary(n);
	if (bin) {
		fputs("GIT binary patch\n", df->out);
		if (literal(df, n) == -1 || literal(df, o) == -1)
			return -1;
		return 0;
	}
	if ((!o->present || o->len == 0) && (!n->present || n->len == 0))
		return 0;
	/* A name with a space ends in a tab, as git writes it: patch(1)
	 * takes what follows a tab as a date, not part of the name. */
	tab = strchr(path, ' ') != NULL ? "\t" : "";
	if (o->present) {
		fputs("--- ", df->out);
		header_path(df, "a/", path);
		fputs(tab, df->out);
	} else
		fputs("--- /dev/null", df->out);
	fputs("\n+++ ", df->out);
	if (n->present) {
		header_path(df, "b/", path);
		fputs(tab, df->out);
	} else
		fputs("/dev/null", df->out);
	fputc('\n', df->out);
	return text_hunks(df, o, n);
}

/* What DIR holds at path, as a side (a directory or other: absent). */
static int
dir_side(struct diff *df, int parent, const char *name, const char *path,
    struct side *s, int *kind)
{
	struct stat	 st;
	ssize_t		 r;
	size_t		 got;
	int		 fd;

	memset(s, 0, sizeof(*s));
	*kind = 0;
	if (parent == -1 || fstatat(parent, name, &st,
	    AT_SYMLINK_NOFOLLOW) == -1)
		return 0;
	*kind = kind_of(&st);
	if (*kind != SBX_CS_FILE && *kind != SBX_CS_SYMLINK)
		return 0;
	if ((uint64_t)st.st_size > DIFF_MAX_FILE) {
		cserr(df->err, df->errlen, "%s: above %llu bytes, too big to "
		    "diff", path, (unsigned long long)DIFF_MAX_FILE);
		return -1;
	}
	if ((s->data = malloc((size_t)st.st_size + 1)) == NULL) {
		cserr(df->err, df->errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	s->present = 1;
	s->mode = git_mode(*kind, st.st_mode);
	if (*kind == SBX_CS_SYMLINK) {
		r = readlinkat(parent, name, (char *)s->data,
		    (size_t)st.st_size + 1);
		if (r < 0 || (size_t)r > (size_t)st.st_size) {
			cserr(df->err, df->errlen, "%s: readlink: %s", path,
			    strerror(errno));
			return -1;
		}
		s->len = (size_t)r;
		return 0;
	}
	if ((fd = openat(parent, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC |
	    O_NONBLOCK)) == -1) {
		cserr(df->err, df->errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	for (got = 0; got < (size_t)st.st_size; got += (size_t)r)
		if ((r = read(fd, s->data + got, (size_t)st.st_size - got)) <=
		    0)
			break;
	close(fd);
	s->len = got;
	return 0;
}

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every file and symlink of DIR's tree at path, as deletions. */
static int
diff_deleted_tree(struct diff *df, int parent, const char *name,
    const char *path)
{
	struct dirent	*de;
	struct side	 o, none = { 0, 0, NULL, 0 };
	char		**names = NULL, **nn, sub[SBX_CS_PATH_MAX + 1];
	size_t		 n = 0, i;
	DIR		*dp;
	int		 fd, kind, rc = 0;

	if ((fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1 || (dp = fdopendir(fd)) == NULL) {
		if (fd != -1)
			close(fd);
		return 0;	/* gone, or not a directory: nothing */
	}
	while ((de = readdir(dp)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if ((nn = reallocarray(names, n + 1, sizeof(*names))) ==
		    NULL || (nn[n] = strdup(de->d_name)) == NULL) {
			if (nn != NULL)
				names = nn;
			rc = -1;
			break;
		}
		names = nn;
		n++;
	}
	if (n > 0)
		qsort(names, n, sizeof(*names), name_cmp);
	for (i = 0; rc == 0 && i < n; i++) {
		if (snprintf(sub, sizeof(sub), "%s/%s", path, names[i]) >=
		    (int)sizeof(sub))
			continue;
		if (dir_side(df, dirfd(dp), names[i], sub, &o, &kind) == -1)
			rc = -1;
		else if (kind == SBX_CS_DIR)
			rc = diff_deleted_tree(df, dirfd(dp), names[i], sub);
		else if (o.present)
			rc = diff_pair(df, sub, &o, &none);
		free(o.data);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	closedir(dp);
	if (rc == -1 && df->err[0] == '\0')
		cserr(df->err, df->errlen, "%s: %s", path, strerror(ENOMEM));
	return rc;
}

static int
diff_rec(struct diff *df, struct sbx_cs_reader *r,
    const struct sbx_cs_rec *rec)
{
	struct side	 o, n = { 0, 0, NULL, 0 };
	const char	*name;
	size_t		 got;
	ssize_t		 k;
	int		 parent, kind, rc = -1;

	parent = cs_parent(&df->d, rec->path, &name);
	if (dir_side(df, parent, name, rec->path, &o, &kind) == -1)
		goto done;
	switch (rec->kind) {
	case SBX_CS_FILE:
		if (rec->size > DIFF_MAX_FILE) {
			cserr(df->err, df->errlen, "%s: above %llu bytes, "
			    "too big to diff", rec->path,
			    (unsigned long long)DIFF_MAX_FILE);
			goto done;
		}
		if ((n.data = malloc((size_t)rec->size + 1)) == NULL) {
			cserr(df->err, df->errlen, "%s", strerror(errno));
			goto done;
		}
		for (got = 0; (k = sbx_cs_read(r, n.data + got,
		    (size_t)rec->size - got)) > 0; got += (size_t)k)
			;
		if (k == -1) {
			cserr(df->err, df->errlen, "changeset stream: %s",
			    sbx_cs_error(r));
			goto done;
		}
		n.present = 1;
		n.len = got;
		n.mode = git_mode(SBX_CS_FILE, rec->mode);
		break;
	case SBX_CS_SYMLINK:
		n.present = 1;
		n.data = (unsigned char *)strdup(rec->target);
		if (n.data == NULL)
			goto done;
		n.len = (size_t)rec->size;
		n.mode = 0120000;
		break;
	}
	/* A directory going away (or replaced) takes its files along. */
	if (kind == SBX_CS_DIR && rec->kind != SBX_CS_DIR) {
		if (diff_deleted_tree(df, parent, name, rec->path) == -1)
			goto done;
		memset(&o, 0, sizeof(o));
	}
	rc = diff_pair(df, rec->path, &o, &n);
done:
	free(o.data);
	free(n.data);
	return rc;
}

int
sbx_changes_diff(int stream, const struct sbx_changes_dir *dir,
    const char *const *paths, FILE *out, char *err, size_t errlen)
{
	struct sbx_cs_reader	*r;
	struct sbx_cs_rec	*rec;
	struct diff		*df;
	int			 rc;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (cs_dir_check(dir, err, errlen) == -1)
		return -1;
	if ((rec = malloc(sizeof(*rec))) == NULL ||
	    (df = calloc(1, sizeof(*df))) == NULL) {
		free(rec);
		cserr(err, errlen, "%s", strerror(errno));
		return -1;
	}
	df->d.dirfd = dir->fd;
	df->d.fd = -1;
	df->out = out;
	df->err = err;
	df->errlen = errlen;
	if ((r = sbx_cs_open(stream, err, errlen)) == NULL) {
		free(rec);
		free(df);
		return -1;
	}
	while ((rc = sbx_cs_next(r, rec)) == 1) {
		if (cs_noop(rec) || !cs_selected(rec->path, paths, rec->kind))
			continue;
		if (diff_rec(df, r, rec) == -1) {
			rc = -1;
			break;
		}
	}
	if (rc == -1 && sbx_cs_error(r)[0] != '\0')
		cserr(err, errlen, "changeset stream: %s", sbx_cs_error(r));
	if (rc == 0 && (fflush(out) == EOF || ferror(out))) {
		cserr(err, errlen, "diff: write: %s", strerror(errno));
		rc = -1;
	}
	cs_parent_forget(&df->d);
	sbx_cs_close(r);
	free(rec);
	free(df);
	return rc;
}
