/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * cstool.c: changeset streams for the tests without a monitor
 * (regress/changes-tools.sh, regress/bench/b_changes.sh).  It builds a
 * stream with the writer of common/changeset.c from two directory trees,
 * as the shim would from an overlay whose lower layer is OLD and whose
 * merged view is NEW, and runs libsbx's sbx_changes_entries,
 * sbx_changes_diff and sbx_changes_apply on a stream file, the calls
 * sbxctl's changes, diff and apply make.
 *
 *   cstool mk [-D] OUT OLD NEW   -D: no record for a directory that
 *                                only holds changes (the shim writes one)
 *   cstool entries STREAM
 *   cstool diff STREAM DIR [PATH ...]
 *   cstool apply [-a] STREAM DIR T0 [PATH ...]   -a: all or nothing;
 *                                exit 0 applied, 4 conflicts (one a line
 *                                on stderr), 1 failed
 *   cstool now                   CLOCK_REALTIME in ns (a T0)
 */
#include <sys/stat.h>

#include <dirent.h>
#include <err.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "changeset.h"
#include "clock.h"
#include "sha256.h"
#include "libsbx/sbx.h"

struct ent {
	char		*path;
	int		 kind;
	int		 has_base;
	struct stat	 base;
	struct stat	 st;
	char		*src;		/* NEW's file or symlink */
	char		*oldsrc;	/* OLD's, for the base's hash */
};

static struct ent	*ents;
static size_t		 nents;
static int		 skip_dirs;

static void
add(const char *path, int kind, const struct stat *base,
    const struct stat *st, const char *src, const char *oldsrc)
{
	struct ent	*e;

	if ((ents = reallocarray(ents, nents + 1, sizeof(*ents))) == NULL)
		err(1, NULL);
	e = &ents[nents++];
	memset(e, 0, sizeof(*e));
	if ((e->path = strdup(path)) == NULL)
		err(1, NULL);
	e->kind = kind;
	if (base != NULL) {
		e->has_base = 1;
		e->base = *base;
	}
	if (st != NULL)
		e->st = *st;
	e->src = src != NULL ? strdup(src) : NULL;
	e->oldsrc = oldsrc != NULL ? strdup(oldsrc) : NULL;
}

static int
same_file(const char *a, const char *b, const struct stat *sa,
    const struct stat *sb)
{
	char	 ba[65536], bb[65536];
	FILE	*fa, *fb;
	size_t	 na, nb;
	int	 same = 1;

	if (sa->st_size != sb->st_size ||
	    (sa->st_mode & 07777) != (sb->st_mode & 07777))
		return 0;
	if ((fa = fopen(a, "rb")) == NULL || (fb = fopen(b, "rb")) == NULL)
		err(1, "%s or %s", a, b);
	do {
		na = fread(ba, 1, sizeof(ba), fa);
		nb = fread(bb, 1, sizeof(bb), fb);
		if (na != nb || memcmp(ba, bb, na) != 0)
			same = 0;
	} while (same && na > 0);
	fclose(fa);
	fclose(fb);
	return same;
}

static int
same_link(const char *a, const char *b)
{
	char	 ta[4096], tb[4096];
	ssize_t	 na, nb;

	na = readlink(a, ta, sizeof(ta));
	nb = readlink(b, tb, sizeof(tb));
	return na >= 0 && na == nb && memcmp(ta, tb, (size_t)na) == 0;
}

static void
names_of(const char *dir, char ***names, size_t *n)
{
	struct dirent	*de;
	DIR		*dp;

	if ((dp = opendir(dir)) == NULL)
		return;
	while ((de = readdir(dp)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if ((*names = reallocarray(*names, *n + 1,
		    sizeof(**names))) == NULL ||
		    ((*names)[*n] = strdup(de->d_name)) == NULL)
			err(1, NULL);
		(*n)++;
	}
	closedir(dp);
}

/* OLD/rel and NEW/rel (NEW's a directory; OLD's one if olddir). */
static void
walk(const char *old, const char *new, const char *rel, int olddir)
{
	char		**names = NULL, op[16384], np[16384], rp[8192];
	struct stat	 os, ns;
	size_t		 n = 0, i, j;
	int		 ohas, nhas;

	snprintf(op, sizeof(op), "%s/%s", old, rel);
	snprintf(np, sizeof(np), "%s/%s", new, rel);
	names_of(np, &names, &n);
	if (olddir)
		names_of(op, &names, &n);
	for (i = 0; i < n; i++) {
		if (names[i] == NULL)
			continue;
		for (j = i + 1; j < n; j++)
			if (names[j] != NULL && strcmp(names[i],
			    names[j]) == 0) {
				free(names[j]);
				names[j] = NULL;
			}
		if (snprintf(rp, sizeof(rp), "%s%s%s", rel, *rel ? "/" : "",
		    names[i]) >= (int)sizeof(rp) || snprintf(op, sizeof(op),
		    "%s/%s", old, rp) >= (int)sizeof(op) || snprintf(np,
		    sizeof(np), "%s/%s", new, rp) >= (int)sizeof(np))
			errx(1, "%s: path too long", rp);
		ohas = olddir && lstat(op, &os) == 0;
		nhas = lstat(np, &ns) == 0;
		if (!nhas) {
			if (ohas)
				add(rp, 'w', &os, NULL, NULL, op);
		} else if (S_ISDIR(ns.st_mode)) {
			if (!(skip_dirs && ohas && S_ISDIR(os.st_mode) &&
			    (os.st_mode & 07777) == (ns.st_mode & 07777)))
				add(rp, 'd', ohas ? &os : NULL, &ns, NULL, op);
			walk(old, new, rp, ohas && S_ISDIR(os.st_mode));
		} else if (S_ISREG(ns.st_mode)) {
			if (!(ohas && S_ISREG(os.st_mode) &&
			    same_file(op, np, &os, &ns)))
				add(rp, 'f', ohas ? &os : NULL, &ns, np, op);
		} else if (S_ISLNK(ns.st_mode)) {
			if (!(ohas && S_ISLNK(os.st_mode) &&
			    same_link(op, np)))
				add(rp, 'l', ohas ? &os : NULL, &ns, np, op);
		}
		free(names[i]);
	}
	free(names);
}

static int
ent_cmp(const void *a, const void *b)
{
	return strcmp(((const struct ent *)a)->path,
	    ((const struct ent *)b)->path);
}

static void
file_sha256(const char *path, unsigned char md[SHA256_LEN])
{
	struct sha256_ctx	 ctx;
	unsigned char		 buf[65536];
	size_t			 n;
	FILE			*fp;

	if ((fp = fopen(path, "rb")) == NULL)
		err(1, "%s", path);
	sha256_init(&ctx, 0);
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0)
		sha256_update(&ctx, buf, n);
	fclose(fp);
	sha256_final(&ctx, md);
}

static int
base_kind(const struct stat *st)
{
	if (S_ISREG(st->st_mode))
		return 'f';
	if (S_ISLNK(st->st_mode))
		return 'l';
	if (S_ISDIR(st->st_mode))
		return 'd';
	return 'o';
}

static int
mk(int argc, char **argv)
{
	static struct sbx_cs_rec rec;
	struct sbx_cs_writer	*w;
	struct ent		*e;
	char			 errbuf[512];
	size_t			 i;
	ssize_t			 n;
	int			 ch, fd, src;

	while ((ch = getopt(argc, argv, "D")) != -1)
		if (ch == 'D')
			skip_dirs = 1;
		else
			return 2;
	argc -= optind;
	argv += optind;
	if (argc != 3)
		return 2;
	walk(argv[1], argv[2], "", 1);
	qsort(ents, nents, sizeof(*ents), ent_cmp);
	if ((fd = open(argv[0], O_WRONLY | O_CREAT | O_TRUNC, 0600)) == -1)
		err(1, "%s", argv[0]);
	if ((w = sbx_cs_write_begin(fd, (long long)nents, errbuf,
	    sizeof(errbuf))) == NULL)
		errx(1, "%s", errbuf);
	for (i = 0; i < nents; i++) {
		e = &ents[i];
		memset(&rec, 0, sizeof(rec));
		rec.kind = e->kind;
		strlcpy(rec.path, e->path, sizeof(rec.path));
		if (e->kind != 'w')
			rec.mode = e->st.st_mode & 07777;
		if (e->kind == 'f')
			rec.size = e->st.st_size;
		if (e->has_base) {
			rec.base_kind = base_kind(&e->base);
			rec.base_mode = e->base.st_mode;
			rec.base_size = e->base.st_size;
			rec.base_ino = e->base.st_ino;
			rec.base_dev = e->base.st_dev;
			rec.base_mtime_ns = (int64_t)e->base.st_mtim.tv_sec *
			    1000000000LL + e->base.st_mtim.tv_nsec;
			rec.base_ctime_ns = (int64_t)e->base.st_ctim.tv_sec *
			    1000000000LL + e->base.st_ctim.tv_nsec;
			if (rec.base_kind == 'f')
				file_sha256(e->oldsrc, rec.base_sha256);
		}
		src = -1;
		if (e->kind == 'l') {
			if ((n = readlink(e->src, rec.target,
			    sizeof(rec.target) - 1)) <= 0)
				err(1, "%s", e->src);
			rec.target[n] = '\0';
			rec.size = (uint64_t)n;
		} else if (e->kind == 'f' &&
		    (src = open(e->src, O_RDONLY)) == -1)
			err(1, "%s", e->src);
		if (sbx_cs_write(w, &rec, src, NULL) == -1)
			errx(1, "%s", sbx_cs_werror(w));
		if (src != -1)
			close(src);
	}
	if (sbx_cs_write_end(w) == -1)
		errx(1, "%s", sbx_cs_werror(w));
	sbx_cs_write_free(w);
	close(fd);
	return 0;
}

static int
entry(const struct sbx_change *c, void *arg)
{
	char	 q[3 * 4096 + 8];

	(void)arg;
	sbx_changes_quote(c->path, q, sizeof(q));
	printf("%c %s\n", c->op, q);
	return 0;
}

static void
conflict(const char *path, const char *why, void *arg)
{
	char	 q[3 * 4096 + 8];

	(void)arg;
	sbx_changes_quote(path, q, sizeof(q));
	fprintf(stderr, "conflict: %s: %s\n", q, why);
}

static int
open_dir(const char *path, struct sbx_changes_dir *dir)
{
	struct stat	 st;

	memset(dir, 0, sizeof(*dir));
	if ((dir->fd = open(path, O_RDONLY | O_DIRECTORY)) == -1 ||
	    fstat(dir->fd, &st) == -1)
		err(1, "%s", path);
	dir->dev = st.st_dev;
	dir->ino = st.st_ino;
	return 0;
}

int
main(int argc, char **argv)
{
	struct sbx_changes_dir	 dir;
	char			 errbuf[1024];
	int			 fd, rc, flags = 0;

	if (argc < 2)
		goto usage;
	if (strcmp(argv[1], "now") == 0) {
		/* As the monitor reads T0 (monitor/runspec.c). */
		printf("%lld\n", (long long)realtime_ns(0));
		return 0;
	}
	if (strcmp(argv[1], "mk") == 0) {
		if ((rc = mk(argc - 1, argv + 1)) == 2)
			goto usage;
		return rc;
	}
	if (strcmp(argv[1], "apply") == 0 && argc > 2 &&
	    strcmp(argv[2], "-a") == 0) {
		flags = SBX_APPLY_ALL_OR_NOTHING;
		argv[2] = argv[1];
		argv++;
		argc--;
	}
	if (argc < 3)
		goto usage;
	if ((fd = open(argv[2], O_RDONLY)) == -1)
		err(1, "%s", argv[2]);
	if (strcmp(argv[1], "entries") == 0) {
		if (sbx_changes_entries(fd, entry, NULL, errbuf,
		    sizeof(errbuf)) == -1)
			errx(1, "%s", errbuf);
		return 0;
	}
	if (argc < 4)
		goto usage;
	open_dir(argv[3], &dir);
	if (strcmp(argv[1], "diff") == 0) {
		if (sbx_changes_diff(fd, &dir, (const char *const *)argv + 4,
		    stdout, errbuf, sizeof(errbuf)) == -1)
			errx(1, "%s", errbuf);
		return 0;
	}
	if (strcmp(argv[1], "apply") == 0 && argc >= 5) {
		dir.first_run_start = strtoll(argv[4], NULL, 10);
		rc = sbx_changes_apply(fd, &dir, (const char *const *)argv + 5,
		    flags, conflict, NULL, errbuf, sizeof(errbuf));
		if (rc == -1)
			errx(1, "%s", errbuf);
		return rc == 1 ? 4 : 0;
	}
usage:
	fprintf(stderr, "usage: cstool mk [-D] OUT OLD NEW | entries STREAM "
	    "| diff STREAM DIR [PATH...] | apply [-a] STREAM DIR T0 "
	    "[PATH...] | now\n");
	return 2;
}
