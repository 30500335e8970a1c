/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * csstore.h: csstore.c -- where the monitor keeps changesets (issue 23):
 * the store directory, one subdirectory per caller uid, and each
 * changeset's <ID>.cs (the stream) and <ID>.meta (JSON).
 */
#ifndef SBX_CSSTORE_H
#define SBX_CSSTORE_H

#include <sys/types.h>

#include <limits.h>
#include <stdint.h>

#define CS_ID_LEN	12		/* lowercase hex */
#define CS_META_MAX	(PATH_MAX + 1024)	/* bytes of one .meta */

struct cs_meta {
	char		 id[CS_ID_LEN + 1];
	uint32_t	 uid;		/* the owner: the caller's uid */
	char		 dir[PATH_MAX];	/* DIR as the caller named it */
	uint64_t	 dev;		/* DIR's st_dev and st_ino */
	uint64_t	 ino;
	int64_t		 created;	/* s since the epoch */
	int64_t		 last_run;	/* s: the end of its last run */
	int64_t		 first_run_start; /* ns: the conflict rule's T0 */
	uint32_t	 runs;
	uint64_t	 size;		/* stream bytes */
	uint64_t	 entries;	/* records */
};

/*
 * The store's path: changeset-dir, or the default for how the service
 * was started.  0, or -1 with the reason in err.
 */
int	 csstore_path(const char *conf_dir, int root_started, char *buf,
	    size_t len, char *err, size_t errlen);
/*
 * Make the store (mode 0700, the service user's) if missing and open it;
 * an existing one must be a directory of this user's that no one else
 * may enter.  The descriptor, or -1 with the reason in err.
 */
int	 csstore_open(const char *path, char *err, size_t errlen);
/* 12 lowercase hex digits from libsodium's random source. */
void	 csstore_new_id(char id[CS_ID_LEN + 1]);
int	 csstore_id_ok(const char *);
/* The metadata as JSON (a string to free), and back, strictly. */
char	*csstore_meta_json(const struct cs_meta *);
int	 csstore_meta_parse(const char *, size_t, struct cs_meta *, char *err,
	    size_t errlen);
/*
 * uid's changeset id: its metadata (0), -1 with errno ENOENT when uid
 * has no such changeset (another uid's is the same answer), or another
 * errno.
 */
int	 csstore_get(int store, uint32_t uid, const char *id,
	    struct cs_meta *);
/*
 * Write the metadata (atomically for readers: a temporary file put in
 * place; over an existing one, the old is left at <id>.meta.tmp for
 * csstore_abandon).  Not flushed to disk: see design.md 1.3.
 */
int	 csstore_put(int store, const struct cs_meta *);
/* Remove uid's changeset id (stream and metadata). 0, or -1 with errno. */
int	 csstore_discard(int store, uint32_t uid, const char *id);
/*
 * Each of uid's changesets, in id order, to cb (non-zero stops and is
 * returned); files that are no changeset's metadata are skipped.  The
 * number given, or -1 with errno.
 */
int	 csstore_list(int store, uint32_t uid,
	    int (*cb)(const struct cs_meta *, void *), void *arg);
/* uid's changesets (their metadata files, by name), or -1 with errno. */
int	 csstore_count(int store, uint32_t uid);
/* A new stream file <uid>/<id>.cs.tmp, write-only: its descriptor. */
int	 csstore_create(int store, uint32_t uid, const char *id);
/* Drop <uid>/<id>.cs.tmp and <id>.meta.tmp, if they are there: a run's
 * stream not kept, or what a kept one replaced. */
void	 csstore_abandon(int store, uint32_t uid, const char *id);
/*
 * A run's stream is written: an empty one is dropped (0, nothing
 * changed); else it must parse (common/changeset.h), and is kept as
 * <id>.cs with m's metadata (size and entries filled in): 1.  -1 with
 * the reason in err when it is refused (and dropped) or cannot be kept.
 */
int	 csstore_finish(int store, struct cs_meta *m, char *err,
	    size_t errlen);
/*
 * Remove every changeset whose last run ended before now - max_age, or
 * uid's only: how many, or -1 with errno.
 */
int	 csstore_expire(int store, int64_t now, uint32_t max_age);
int	 csstore_expire_uid(int store, uint32_t uid, int64_t now,
	    uint32_t max_age);

#endif /* SBX_CSSTORE_H */
