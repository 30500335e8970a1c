/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * cswalk.c: an overlay run's upper layer as a changeset stream (issue 23;
 * common/changeset.h).  Upper layer meaning: a file, symlink or directory
 * there is the new state of its path (A when the lower layer, the
 * caller's directory, holds nothing there, else M); a character device
 * 0/0 is a whiteout (D); a directory whose user.overlay.opaque is "y"
 * hides all of the lower one's entries, so each lower entry the upper
 * directory lacks is a D, and so beneath it, since overlayfs marks only
 * the top directory of what was removed and made again.  A directory that
 * is only there because something below it changed (same type and mode
 * as the lower one) is no record; a file or symlink copied up but equal
 * to the lower one in content and mode neither.  Records are collected,
 * sorted (the stream's order is the paths' bytes, which a depth-first
 * walk does not give: "a-b" < "a/b"), then written.
 */
#include <sys/types.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "changeset.h"
#include "sha256.h"
#include "shim.h"

/*
 * A record kept until the walk is sorted: its fixed fields as the record
 * has them (everything before path), then its path and, for a symlink,
 * its target, each NUL-terminated, in as many bytes as they take.  A
 * whole struct sbx_cs_rec is 8 KiB of mostly empty path and target, and
 * the walk runs in the sandbox, charged to its memory limit: a build's
 * tens of thousands of products would cost hundreds of MiB.
 */
#define CS_HEAD		offsetof(struct sbx_cs_rec, path)
struct cs_item {
	unsigned char	 head[CS_HEAD];
	char		 str[];		/* path NUL [target NUL] */
};

struct cs_walk {
	struct cs_item	**items;
	size_t		 n, cap;
	char		*err;
	size_t		 errlen;
};

static int
walk_fail(struct cs_walk *w, int e, const char *what, const char *path)
{
	snprintf(w->err, w->errlen, "%s %s: %s", what, *path ? path : ".",
	    strerror(e));
	errno = e;
	return -1;
}

static int
file_sha256(int dirfd, const char *name, unsigned char md[SHA256_LEN])
{
	struct sha256_ctx	 ctx;
	unsigned char		 buf[65536];
	ssize_t			 n;
	int			 fd, e;

	if ((fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return -1;
	sha256_init(&ctx, 0);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		sha256_update(&ctx, buf, (size_t)n);
	e = errno;
	close(fd);
	if (n == -1) {
		errno = e;
		return -1;
	}
	sha256_final(&ctx, md);
	return 0;
}

static uint8_t
kind_of(mode_t m)
{
	if (S_ISREG(m))
		return SBX_CS_FILE;
	if (S_ISLNK(m))
		return SBX_CS_SYMLINK;
	if (S_ISDIR(m))
		return SBX_CS_DIR;
	return SBX_CS_OTHER;
}

/* The lower entry name in ldir (-1: none there) into rec's base fields. */
static int
set_base(struct cs_walk *w, struct sbx_cs_rec *rec, int ldir,
    const char *name, struct stat *lst)
{
	if (ldir == -1 || fstatat(ldir, name, lst, AT_SYMLINK_NOFOLLOW) ==
	    -1) {
		if (ldir != -1 && errno != ENOENT)
			return walk_fail(w, errno, "lower", rec->path);
		memset(lst, 0, sizeof(*lst));
		rec->base_kind = 0;
		return 0;
	}
	rec->base_kind = kind_of(lst->st_mode);
	rec->base_size = (uint64_t)lst->st_size;
	rec->base_ino = (uint64_t)lst->st_ino;
	rec->base_dev = (uint64_t)lst->st_dev;
	rec->base_mtime_ns = (int64_t)lst->st_mtim.tv_sec * 1000000000 +
	    lst->st_mtim.tv_nsec;
	rec->base_ctime_ns = (int64_t)lst->st_ctim.tv_sec * 1000000000 +
	    lst->st_ctim.tv_nsec;
	rec->base_mode = (uint32_t)lst->st_mode;
	if (rec->base_kind == SBX_CS_FILE && file_sha256(ldir, name,
	    rec->base_sha256) == -1)
		return walk_fail(w, errno, "lower", rec->path);
	return 0;
}

static int
add(struct cs_walk *w, const struct sbx_cs_rec *rec)
{
	struct cs_item	**n, *it;
	size_t		 plen, tlen;

	if (w->n == SBX_CS_MAX_RECORDS)
		return walk_fail(w, EFBIG, "more than the stream's records at",
		    rec->path);
	if (w->n == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 64;
		if ((n = reallocarray(w->items, w->cap, sizeof(*n))) == NULL)
			return walk_fail(w, errno, "records at", rec->path);
		w->items = n;
	}
	plen = strlen(rec->path) + 1;
	tlen = rec->kind == SBX_CS_SYMLINK ? strlen(rec->target) + 1 : 0;
	if ((it = malloc(sizeof(*it) + plen + tlen)) == NULL)
		return walk_fail(w, errno, "record", rec->path);
	memcpy(it->head, rec, CS_HEAD);
	memcpy(it->str, rec->path, plen);
	memcpy(it->str + plen, rec->target, tlen);
	w->items[w->n++] = it;
	return 0;
}

/* The whole record of it, in rec. */
static void
item_rec(const struct cs_item *it, struct sbx_cs_rec *rec)
{
	size_t	 plen = strlen(it->str) + 1;

	memcpy(rec, it->head, CS_HEAD);
	memcpy(rec->path, it->str, plen);
	if (rec->kind == SBX_CS_SYMLINK)
		memcpy(rec->target, it->str + plen, strlen(it->str + plen) + 1);
	else
		rec->target[0] = '\0';
}

static int
join(struct cs_walk *w, char *out, const char *dir, const char *name)
{
	int	 n;

	n = *dir ? snprintf(out, SBX_CS_PATH_MAX + 1, "%s/%s", dir, name) :
	    snprintf(out, SBX_CS_PATH_MAX + 1, "%s", name);
	if (n < 0 || n > SBX_CS_PATH_MAX)
		return walk_fail(w, ENAMETOOLONG, "path", dir);
	return 0;
}

/* Every entry of lower directory ldir that udir lacks is a D. */
static int
lower_gone(struct cs_walk *w, int udir, int ldir, const char *path)
{
	struct sbx_cs_rec	 rec;
	struct stat		 st, lst;
	struct dirent		*de;
	DIR			*d;
	int			 fd, rv = 0;

	if ((fd = openat(ldir, ".", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) == -1 || (d = fdopendir(fd)) == NULL)
		return walk_fail(w, errno, "lower", path);
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (fstatat(udir, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0)
			continue;
		memset(&rec, 0, sizeof(rec));
		rec.kind = SBX_CS_WHITEOUT;
		if ((rv = join(w, rec.path, path, de->d_name)) == -1 ||
		    (rv = set_base(w, &rec, ldir, de->d_name, &lst)) == -1 ||
		    (rv = add(w, &rec)) == -1)
			break;
	}
	closedir(d);
	return rv;
}

static int
is_opaque(int dfd)
{
	char	 v[2];

	return fgetxattr(dfd, "user.overlay.opaque", v, sizeof(v)) == 1 &&
	    v[0] == 'y';
}

/*
 * udir: the upper directory at path; ldir: the lower one there, or -1
 * when the lower layer has no directory there; hidden: the lower
 * directory's entries are gone (opaque here or above).
 */
static int
walk_dir(struct cs_walk *w, int udir, int ldir, const char *path, int hidden)
{
	struct sbx_cs_rec	 rec;
	struct stat		 st, lst;
	struct dirent		*de;
	unsigned char		 md[SHA256_LEN];
	char			 target[SBX_CS_LINK_MAX + 2];
	ssize_t			 n;
	DIR			*d;
	int			 fd, cfd, lfd, rv = 0, opq;

	if ((fd = openat(udir, ".", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) == -1 || (d = fdopendir(fd)) == NULL)
		return walk_fail(w, errno, "upper", path);
	if (hidden && ldir != -1 && (rv = lower_gone(w, udir, ldir,
	    path)) == -1)
		goto out;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		memset(&rec, 0, sizeof(rec));
		if ((rv = join(w, rec.path, path, de->d_name)) == -1)
			break;
		if (fstatat(udir, de->d_name, &st, AT_SYMLINK_NOFOLLOW) ==
		    -1) {
			rv = walk_fail(w, errno, "upper", rec.path);
			break;
		}
		if ((rv = set_base(w, &rec, ldir, de->d_name, &lst)) == -1)
			break;
		if (S_ISCHR(st.st_mode) && st.st_rdev == makedev(0, 0)) {
			/* A whiteout over nothing hides nothing. */
			if (rec.base_kind == 0)
				continue;
			rec.kind = SBX_CS_WHITEOUT;
			if ((rv = add(w, &rec)) == -1)
				break;
			continue;
		}
		rec.mode = st.st_mode & 07777;
		if (S_ISREG(st.st_mode)) {
			rec.kind = SBX_CS_FILE;
			rec.size = (uint64_t)st.st_size;
			if (file_sha256(udir, de->d_name, md) == -1) {
				rv = walk_fail(w, errno, "upper", rec.path);
				break;
			}
			if (rec.base_kind == SBX_CS_FILE && rec.size ==
			    rec.base_size && rec.mode == (rec.base_mode &
			    07777) && memcmp(md, rec.base_sha256,
			    sizeof(md)) == 0)
				continue;
		} else if (S_ISLNK(st.st_mode)) {
			rec.kind = SBX_CS_SYMLINK;
			n = readlinkat(udir, de->d_name, target,
			    sizeof(target) - 1);
			if (n <= 0 || n > SBX_CS_LINK_MAX) {
				rv = walk_fail(w, n == -1 ? errno :
				    ENAMETOOLONG, "symlink", rec.path);
				break;
			}
			target[n] = '\0';
			memcpy(rec.target, target, (size_t)n + 1);
			rec.size = (uint64_t)n;
			if (rec.base_kind == SBX_CS_SYMLINK) {
				n = readlinkat(ldir, de->d_name, target,
				    sizeof(target) - 1);
				if (n > 0 && (size_t)n == rec.size &&
				    memcmp(target, rec.target, n) == 0)
					continue;
			}
		} else if (S_ISDIR(st.st_mode)) {
			rec.kind = SBX_CS_DIR;
			if ((cfd = openat(udir, de->d_name, O_RDONLY |
			    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1) {
				rv = walk_fail(w, errno, "upper", rec.path);
				break;
			}
			opq = hidden || is_opaque(cfd);
			lfd = -1;
			if (rec.base_kind == SBX_CS_DIR && (lfd = openat(ldir,
			    de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
			    O_CLOEXEC)) == -1) {
				close(cfd);
				rv = walk_fail(w, errno, "lower", rec.path);
				break;
			}
			/* Changed itself: new, another type, another mode,
			 * or made again (opaque). */
			if ((rec.base_kind != SBX_CS_DIR || rec.mode !=
			    (rec.base_mode & 07777) || opq) &&
			    (rv = add(w, &rec)) == -1) {
				close(cfd);
				if (lfd != -1)
					close(lfd);
				break;
			}
			rv = walk_dir(w, cfd, lfd, rec.path, opq);
			close(cfd);
			if (lfd != -1)
				close(lfd);
			if (rv == -1)
				break;
			continue;
		} else
			continue;	/* fifos, sockets, devices: not kept */
		if ((rv = add(w, &rec)) == -1)
			break;
	}
 out:
	closedir(d);
	return rv;
}

/*
 * path (relative, from this walk) beneath dir, one component at a time,
 * never following a symlink: openat2 may be refused (the payload's
 * filter answers ENOSYS, and the writer runs under it).
 */
static int
open_below(int dir, const char *path)
{
	char	 buf[SBX_CS_PATH_MAX + 1], *p, *slash;
	int	 fd = dir, next, e;

	strlcpy(buf, path, sizeof(buf));
	for (p = buf; (slash = strchr(p, '/')) != NULL; p = slash + 1) {
		*slash = '\0';
		next = openat(fd, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		e = errno;
		if (fd != dir)
			close(fd);
		if (next == -1) {
			errno = e;
			return -1;
		}
		fd = next;
	}
	next = openat(fd, p, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	e = errno;
	if (fd != dir)
		close(fd);
	errno = e;
	return next;
}

static int
cmp_items(const void *a, const void *b)
{
	const struct cs_item	*x = *(const struct cs_item *const *)a;
	const struct cs_item	*y = *(const struct cs_item *const *)b;

	return strcmp(x->str, y->str);
}

/*
 * Write the changes of upper (the overlay's upper directory) over lower
 * (the caller's directory) to out.  The number of records (0: nothing
 * changed, and nothing is written), or -1 with the reason in err.
 */
long long
shim_cs_walk(int upper, int lower, int out, char *err, size_t errlen)
{
	struct cs_walk		 w;
	struct sbx_cs_writer	*wr = NULL;
	struct sbx_cs_rec	*rec = NULL;
	size_t			 i;
	long long		 rv = -1;
	int			 fd;

	memset(&w, 0, sizeof(w));
	w.err = err;
	w.errlen = errlen;
	if (walk_dir(&w, upper, lower, "", is_opaque(upper)) == -1)
		goto out;
	if (w.n == 0) {
		rv = 0;
		goto out;
	}
	qsort(w.items, w.n, sizeof(*w.items), cmp_items);
	if ((rec = malloc(sizeof(*rec))) == NULL) {
		walk_fail(&w, errno, "record", "");
		goto out;
	}
	if ((wr = sbx_cs_write_begin(out, (long long)w.n, err,
	    errlen)) == NULL)
		goto out;
	for (i = 0; i < w.n; i++) {
		item_rec(w.items[i], rec);
		fd = -1;
		if (rec->kind == SBX_CS_FILE && (fd = open_below(upper,
		    rec->path)) == -1) {
			walk_fail(&w, errno, "upper", rec->path);
			goto out;
		}
		if (sbx_cs_write(wr, rec, fd, NULL) == -1) {
			snprintf(err, errlen, "%s", sbx_cs_werror(wr));
			if (fd != -1)
				close(fd);
			goto out;
		}
		if (fd != -1)
			close(fd);
	}
	if (sbx_cs_write_end(wr) == -1) {
		snprintf(err, errlen, "%s", sbx_cs_werror(wr));
		goto out;
	}
	rv = (long long)w.n;
 out:
	if (wr != NULL)
		sbx_cs_write_free(wr);
	free(rec);
	for (i = 0; i < w.n; i++)
		free(w.items[i]);
	free(w.items);
	return rv;
}

/*
 * parent directories of path in upper, made as the lower layer has them
 * (the merged view shows an upper directory's mode), 0755 where the lower
 * layer has none.
 */
static int
make_parents(int upper, int lower, const char *path)
{
	char		 buf[SBX_CS_PATH_MAX + 1], *slash;
	struct stat	 st;
	mode_t		 mode;

	strlcpy(buf, path, sizeof(buf));
	for (slash = buf; (slash = strchr(slash, '/')) != NULL; slash++) {
		*slash = '\0';
		mode = 0755;
		if (fstatat(lower, buf, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISDIR(st.st_mode))
			mode = st.st_mode & 07777;
		if (mkdirat(upper, buf, mode) == -1 && errno != EEXIST)
			return -1;
		if (fstatat(upper, buf, &st, AT_SYMLINK_NOFOLLOW) == -1)
			return -1;
		if (!S_ISDIR(st.st_mode)) {
			errno = ENOTDIR;
			return -1;
		}
		*slash = '/';
	}
	return 0;
}

/*
 * sbxctl run --overlay-into: the upper layer as a stored changeset left
 * it, from its stream (in, parsed strictly), before the overlay is made:
 * directories, files, symlinks, and whiteouts (character devices 0/0,
 * which need no CAP_MKNOD).  A directory made again by the earlier run
 * comes back as a directory with whiteouts for what it no longer holds,
 * which overlayfs shows the same.  0, or -1 with the reason in err.
 */
int
shim_cs_rebuild(int upper, int lower, int in, char *err, size_t errlen)
{
	struct sbx_cs_reader	*r;
	struct sbx_cs_rec	*rec;
	unsigned char		 buf[65536];
	ssize_t			 n;
	int			 fd, got, rv = -1;

	if ((rec = malloc(sizeof(*rec))) == NULL) {
		snprintf(err, errlen, "rebuild: %s", strerror(errno));
		return -1;
	}
	if ((r = sbx_cs_open(in, err, errlen)) == NULL) {
		free(rec);
		return -1;
	}
	while ((got = sbx_cs_next(r, rec)) == 1) {
		if (make_parents(upper, lower, rec->path) == -1)
			goto fail;
		switch (rec->kind) {
		case SBX_CS_DIR:
			if (mkdirat(upper, rec->path, rec->mode) == -1 &&
			    errno != EEXIST)
				goto fail;
			if (fchmodat(upper, rec->path, rec->mode, 0) == -1)
				goto fail;
			break;
		case SBX_CS_SYMLINK:
			if (symlinkat(rec->target, upper, rec->path) == -1)
				goto fail;
			break;
		case SBX_CS_WHITEOUT:
			if (mknodat(upper, rec->path, S_IFCHR | 0,
			    makedev(0, 0)) == -1)
				goto fail;
			break;
		case SBX_CS_FILE:
			if ((fd = openat(upper, rec->path, O_WRONLY |
			    O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0600)) == -1)
				goto fail;
			while ((n = sbx_cs_read(r, buf, sizeof(buf))) > 0)
				if (write(fd, buf, (size_t)n) != n) {
					close(fd);
					goto fail;
				}
			if (n == -1 || fchmod(fd, rec->mode) == -1) {
				close(fd);
				if (n == -1) {
					snprintf(err, errlen, "%s",
					    sbx_cs_error(r));
					goto out;
				}
				goto fail;
			}
			close(fd);
			break;
		}
	}
	if (got == -1) {
		snprintf(err, errlen, "%s", sbx_cs_error(r));
		goto out;
	}
	rv = 0;
	goto out;
 fail:
	snprintf(err, errlen, "rebuild %s: %s", rec->path, strerror(errno));
 out:
	sbx_cs_close(r);
	free(rec);
	return rv;
}
