/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * changeset.c: the changeset stream, version 1 (changeset.h): the writer
 * the shim uses to record an overlay's upper layer, and the strict,
 * incremental parser every reader uses (the shim for --overlay-into, the
 * client for changes, diff and apply).  Built into libsbx too, so no
 * logging, no exits and no x* allocators here.
 */
#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "changeset.h"

#define CS_BUFSZ	65536
#define seterr		sbx_cs_seterr

/*
 * Order and parents, the same for writer and parser.  Paths come strictly
 * increasing; the records that may have nothing beneath them (deleted,
 * file, symlink) are kept as the lengths of those that are byte prefixes
 * of the previous path: every path starting with such a prefix comes in
 * one run of the sorted order, so once a path leaves the run the prefix
 * can be forgotten, and memory stays one path and one stack of lengths.
 */
struct cs_order {
	char		 prev[SBX_CS_PATH_MAX + 1];
	size_t		 prevlen;
	int		 have;
	uint16_t	 block[SBX_CS_PATH_MAX + 1];
	size_t		 nblock;
};

struct sbx_cs_writer {
	int		 fd;
	int		 failed;
	int		 ended;
	long long	 declared;
	uint32_t	 count;
	off_t		 start;
	struct cs_order	 order;
	size_t		 fill;
	unsigned char	 buf[CS_BUFSZ];
	char		 err[512];
};

struct sbx_cs_reader {
	int		 fd;
	int		 state;		/* 0 records, 1 done, -1 failed */
	uint32_t	 count;
	uint32_t	 index;		/* records given so far */
	uint32_t	 cur;		/* errors name it: 0 the header,
					   count + 1 the end record */
	uint64_t	 left;		/* unread data of the current record */
	struct cs_order	 order;
	size_t		 pos;
	size_t		 len;
	unsigned char	 buf[CS_BUFSZ];
	char		 err[512];
};

static void
put16(unsigned char *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static void
put32(unsigned char *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v);
}

static void
put64(unsigned char *p, uint64_t v)
{
	put32(p, v >> 32);
	put32(p + 4, v);
}

static uint16_t
get16(const unsigned char *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t
get32(const unsigned char *p)
{
	return (uint32_t)get16(p) << 16 | get16(p + 2);
}

static uint64_t
get64(const unsigned char *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

/* Every error of this file, and libsbx's changes.c, is made here. */
void
sbx_cs_seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list	 ap;

	if (err == NULL || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

char
sbx_cs_op(const struct sbx_cs_rec *rec)
{
	if (rec->kind == SBX_CS_WHITEOUT)
		return 'D';
	return rec->base_kind == 0 ? 'A' : 'M';
}

static int
allzero(const void *p, size_t n)
{
	const unsigned char	*c = p;
	size_t			 i;

	for (i = 0; i < n; i++)
		if (c[i] != 0)
			return 0;
	return 1;
}

/* A relative path of non-empty components, none "." or "..". */
static int
path_check(const char *path, size_t len, char *err, size_t errlen)
{
	size_t	 i, c;

	if (len < 1 || len > SBX_CS_PATH_MAX) {
		seterr(err, errlen, "path_len: %zu is outside 1..%d", len,
		    SBX_CS_PATH_MAX);
		return -1;
	}
	if (memchr(path, '\0', len) != NULL) {
		seterr(err, errlen, "path: holds a NUL byte");
		return -1;
	}
	if (path[0] == '/') {
		seterr(err, errlen, "path: is absolute");
		return -1;
	}
	for (i = 0; i <= len; i = c + 1) {
		for (c = i; c < len && path[c] != '/'; c++)
			;
		if (c == i) {
			seterr(err, errlen, "path: has an empty component%s",
			    c == len ? " (a trailing '/')" : "");
			return -1;
		}
		if ((c - i == 1 && path[i] == '.') ||
		    (c - i == 2 && path[i] == '.' && path[i + 1] == '.')) {
			seterr(err, errlen, "path: has a \".\" or \"..\" "
			    "component");
			return -1;
		}
	}
	return 0;
}

int
sbx_cs_rec_check(const struct sbx_cs_rec *rec, size_t pathlen, char *err,
    size_t errlen)
{
	uint32_t	 t;

	switch (rec->kind) {
	case SBX_CS_FILE:
	case SBX_CS_SYMLINK:
	case SBX_CS_DIR:
	case SBX_CS_WHITEOUT:
		break;
	default:
		seterr(err, errlen, "kind: 0x%02x is not 'f', 'l', 'd' or "
		    "'w'", rec->kind);
		return -1;
	}
	if (path_check(rec->path, pathlen, err, errlen) == -1)
		return -1;
	if ((rec->mode & ~07777U) != 0) {
		seterr(err, errlen, "mode: 0%o has bits beyond 07777",
		    rec->mode);
		return -1;
	}
	if (rec->kind == SBX_CS_WHITEOUT && rec->mode != 0) {
		seterr(err, errlen, "mode: must be 0 for a deleted path");
		return -1;
	}
	switch (rec->kind) {
	case SBX_CS_DIR:
	case SBX_CS_WHITEOUT:
		if (rec->size != 0) {
			seterr(err, errlen, "size: must be 0 for a %s",
			    rec->kind == SBX_CS_DIR ? "directory" :
			    "deleted path");
			return -1;
		}
		break;
	case SBX_CS_SYMLINK:
		if (rec->size < 1 || rec->size > SBX_CS_LINK_MAX) {
			seterr(err, errlen, "size: a symlink's target is "
			    "1..%d bytes, not %llu", SBX_CS_LINK_MAX,
			    (unsigned long long)rec->size);
			return -1;
		}
		break;
	default:
		if (rec->size > INT64_MAX) {
			seterr(err, errlen, "size: above 2^63 - 1");
			return -1;
		}
	}
	switch (rec->base_kind) {
	case 0:
		if (rec->kind == SBX_CS_WHITEOUT) {
			seterr(err, errlen, "base_kind: a deleted path must "
			    "have had something (not 0)");
			return -1;
		}
		if (rec->base_size != 0 || rec->base_ino != 0 ||
		    rec->base_dev != 0 || rec->base_mtime_ns != 0 ||
		    rec->base_ctime_ns != 0 || rec->base_mode != 0) {
			seterr(err, errlen, "base: fields must be 0 when "
			    "base_kind is 0");
			return -1;
		}
		break;
	case SBX_CS_FILE:
	case SBX_CS_SYMLINK:
	case SBX_CS_DIR:
	case SBX_CS_OTHER:
		break;
	default:
		seterr(err, errlen, "base_kind: 0x%02x is not 0, 'f', 'l', "
		    "'d' or 'o'", rec->base_kind);
		return -1;
	}
	if (rec->base_kind != 0) {
		t = rec->base_mode & S_IFMT;
		if ((rec->base_mode & ~(uint32_t)(S_IFMT | 07777)) != 0 ||
		    (rec->base_kind == SBX_CS_FILE && t != S_IFREG) ||
		    (rec->base_kind == SBX_CS_SYMLINK && t != S_IFLNK) ||
		    (rec->base_kind == SBX_CS_DIR && t != S_IFDIR) ||
		    (rec->base_kind == SBX_CS_OTHER && t != S_IFIFO &&
		    t != S_IFCHR && t != S_IFBLK && t != S_IFSOCK)) {
			seterr(err, errlen, "base_mode: 0%o does not fit "
			    "base_kind '%c'", rec->base_mode, rec->base_kind);
			return -1;
		}
	}
	if (rec->base_kind != SBX_CS_FILE &&
	    !allzero(rec->base_sha256, sizeof(rec->base_sha256))) {
		seterr(err, errlen, "base_sha256: must be zero unless "
		    "base_kind is 'f'");
		return -1;
	}
	return 0;
}

static int
order_check(struct cs_order *o, const char *path, size_t len, int kind,
    char *err, size_t errlen)
{
	size_t	 c, i, n;
	int	 cmp;

	if (o->have) {
		n = o->prevlen < len ? o->prevlen : len;
		cmp = memcmp(o->prev, path, n);
		if (cmp > 0 || (cmp == 0 && o->prevlen >= len)) {
			seterr(err, errlen, "path: %s the previous record's "
			    "(paths must be strictly increasing)",
			    cmp == 0 && o->prevlen == len ? "repeats" :
			    "sorts before");
			return -1;
		}
		for (c = 0; c < n && o->prev[c] == path[c]; c++)
			;
		while (o->nblock > 0 && o->block[o->nblock - 1] > c)
			o->nblock--;
		for (i = 0; i < o->nblock; i++)
			if (len > o->block[i] && path[o->block[i]] == '/') {
				seterr(err, errlen, "path: lies beneath an "
				    "earlier record that is not a directory "
				    "(its first %u bytes)",
				    (unsigned)o->block[i]);
				return -1;
			}
	}
	memcpy(o->prev, path, len);
	o->prev[len] = '\0';
	o->prevlen = len;
	o->have = 1;
	if (kind != SBX_CS_DIR)
		o->block[o->nblock++] = (uint16_t)len;
	return 0;
}

/* ---- writer ---------------------------------------------------------- */

static int
write_all(int fd, const unsigned char *p, size_t n)
{
	ssize_t	 w;

	while (n > 0) {
		if ((w = write(fd, p, n)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int
wflush(struct sbx_cs_writer *w)
{
	if (w->fill > 0 && write_all(w->fd, w->buf, w->fill) == -1) {
		seterr(w->err, sizeof(w->err), "write: %s", strerror(errno));
		w->failed = 1;
		return -1;
	}
	w->fill = 0;
	return 0;
}

static int
wput(struct sbx_cs_writer *w, const void *p, size_t n)
{
	const unsigned char	*c = p;
	size_t			 k;

	while (n > 0) {
		if (w->fill == sizeof(w->buf) && wflush(w) == -1)
			return -1;
		k = sizeof(w->buf) - w->fill;
		if (k > n)
			k = n;
		memcpy(w->buf + w->fill, c, k);
		w->fill += k;
		c += k;
		n -= k;
	}
	return 0;
}

struct sbx_cs_writer *
sbx_cs_write_begin(int fd, long long count, char *err, size_t errlen)
{
	struct sbx_cs_writer	*w;
	unsigned char		 h[SBX_CS_HEADER_LEN];
	off_t			 start = 0;

	if (count > SBX_CS_MAX_RECORDS) {
		seterr(err, errlen, "header: record count: %lld above the "
		    "limit %d", count, SBX_CS_MAX_RECORDS);
		errno = EFBIG;
		return NULL;
	}
	if (count < 0 && (start = lseek(fd, 0, SEEK_CUR)) == -1) {
		seterr(err, errlen, "header: record count unknown and the "
		    "stream is not seekable: %s", strerror(errno));
		return NULL;
	}
	if ((w = calloc(1, sizeof(*w))) == NULL) {
		seterr(err, errlen, "%s", strerror(errno));
		return NULL;
	}
	w->fd = fd;
	w->declared = count;
	w->start = start;
	memcpy(h, SBX_CS_MAGIC, 8);
	put32(h + 8, count < 0 ? 0 : (uint32_t)count);
	put32(h + 12, 0);
	if (wput(w, h, sizeof(h)) == -1) {
		seterr(err, errlen, "%s", w->err);
		free(w);
		return NULL;
	}
	return w;
}

static void
rec_encode(unsigned char *p, const struct sbx_cs_rec *rec, size_t pathlen)
{
	memset(p, 0, SBX_CS_RECORD_LEN);
	p[0] = rec->kind;
	p[1] = rec->base_kind;
	put16(p + 2, (uint16_t)pathlen);
	put32(p + 4, rec->mode);
	put64(p + 8, rec->size);
	put64(p + 16, rec->base_size);
	put64(p + 24, rec->base_ino);
	put64(p + 32, rec->base_dev);
	put64(p + 40, (uint64_t)rec->base_mtime_ns);
	put64(p + 48, (uint64_t)rec->base_ctime_ns);
	put32(p + 56, rec->base_mode);
	put32(p + 60, 0);
	memcpy(p + 64, rec->base_sha256, SBX_CS_SHA256_LEN);
}

static int
wfail(struct sbx_cs_writer *w, const char *why)
{
	char	 tmp[sizeof(w->err)];

	snprintf(tmp, sizeof(tmp), "record %u: %s", w->count + 1, why);
	memcpy(w->err, tmp, sizeof(w->err));
	w->failed = 1;
	return -1;
}

static int
wcopy(struct sbx_cs_writer *w, int datafd, uint64_t size)
{
	char		 why[256];
	uint64_t	 done = 0;
	size_t		 k;
	ssize_t		 r;
	unsigned char	 extra;

	while (done < size) {
		if (w->fill == sizeof(w->buf) && wflush(w) == -1)
			return -1;
		k = sizeof(w->buf) - w->fill;
		if (k > size - done)
			k = (size_t)(size - done);
		if ((r = read(datafd, w->buf + w->fill, k)) == -1) {
			if (errno == EINTR)
				continue;
			snprintf(why, sizeof(why), "data: read: %s",
			    strerror(errno));
			return wfail(w, why);
		}
		if (r == 0) {
			snprintf(why, sizeof(why), "data: the file ended "
			    "after %llu of %llu bytes (it shrank)",
			    (unsigned long long)done,
			    (unsigned long long)size);
			return wfail(w, why);
		}
		w->fill += (size_t)r;
		done += (uint64_t)r;
	}
	/* A file that grew while copied would not match its size. */
	while ((r = read(datafd, &extra, 1)) == -1 && errno == EINTR)
		;
	if (r != 0)
		return wfail(w, r > 0 ? "data: the file is longer than its "
		    "size (it grew)" : "data: read failed");
	return 0;
}

int
sbx_cs_write(struct sbx_cs_writer *w, const struct sbx_cs_rec *rec,
    int datafd, const void *data)
{
	unsigned char	 h[SBX_CS_RECORD_LEN];
	char		 why[256];
	size_t		 pathlen;

	if (w->failed || w->ended) {
		errno = EINVAL;
		return -1;
	}
	if ((w->declared >= 0 && w->count >= w->declared) ||
	    w->count >= SBX_CS_MAX_RECORDS)
		return wfail(w, "more records than the header's count or "
		    "the limit");
	pathlen = strnlen(rec->path, sizeof(rec->path));
	if (sbx_cs_rec_check(rec, pathlen, why, sizeof(why)) == -1 ||
	    order_check(&w->order, rec->path, pathlen, rec->kind, why,
	    sizeof(why)) == -1)
		return wfail(w, why);
	if (rec->kind == SBX_CS_SYMLINK) {
		/* A target is checked whole: never from a descriptor. */
		if (datafd != -1)
			return wfail(w, "data: a symlink's target comes as "
			    "bytes, not a descriptor");
		if (data == NULL)
			data = rec->target;
		if (memchr(data, '\0', (size_t)rec->size) != NULL)
			return wfail(w, "data: a symlink's target holds a "
			    "NUL byte or is shorter than its size");
	}
	rec_encode(h, rec, pathlen);
	if (wput(w, h, sizeof(h)) == -1 || wput(w, rec->path, pathlen) == -1)
		return -1;
	if (rec->size > 0) {
		if (datafd != -1) {
			if (wcopy(w, datafd, rec->size) == -1)
				return -1;
		} else if (data == NULL)
			return wfail(w, "data: none given");
		else if (wput(w, data, (size_t)rec->size) == -1)
			return -1;
	}
	w->count++;
	return 0;
}

int
sbx_cs_write_end(struct sbx_cs_writer *w)
{
	unsigned char	 h[SBX_CS_RECORD_LEN], c[4];

	if (w->failed || w->ended) {
		errno = EINVAL;
		return -1;
	}
	if (w->declared >= 0 && w->count != w->declared) {
		snprintf(w->err, sizeof(w->err), "end: %u records written, "
		    "the header says %lld", w->count, w->declared);
		w->failed = 1;
		return -1;
	}
	memset(h, 0, sizeof(h));
	h[0] = SBX_CS_END;
	if (wput(w, h, sizeof(h)) == -1 || wflush(w) == -1)
		return -1;
	if (w->declared < 0) {
		put32(c, w->count);
		if (pwrite(w->fd, c, sizeof(c), w->start + 8) != sizeof(c)) {
			snprintf(w->err, sizeof(w->err), "end: writing the "
			    "record count: %s", strerror(errno));
			w->failed = 1;
			return -1;
		}
	}
	w->ended = 1;
	return 0;
}

const char *
sbx_cs_werror(const struct sbx_cs_writer *w)
{
	return w->err;
}

void
sbx_cs_write_free(struct sbx_cs_writer *w)
{
	free(w);
}

/* ---- parser ---------------------------------------------------------- */

static int
rfail(struct sbx_cs_reader *r, const char *fmt, ...)
{
	char	 why[384];
	va_list	 ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (r->cur == 0)
		snprintf(r->err, sizeof(r->err), "header: %s", why);
	else if (r->cur > r->count)
		snprintf(r->err, sizeof(r->err), "end record: %s", why);
	else
		snprintf(r->err, sizeof(r->err), "record %u: %s", r->cur,
		    why);
	r->state = -1;
	return -1;
}

/* Bytes into the buffer: 1 some, 0 end of stream, -1 failed. */
static int
rfill(struct sbx_cs_reader *r)
{
	ssize_t	 n;

	if (r->pos == r->len)
		r->pos = r->len = 0;
	for (;;) {
		n = read(r->fd, r->buf + r->len, sizeof(r->buf) - r->len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return rfail(r, "read: %s", strerror(errno));
		r->len += (size_t)n;
		return n > 0;
	}
}

/* Exactly n bytes (or skip them if p is NULL); what names them. */
static int
rget(struct sbx_cs_reader *r, void *p, size_t n, const char *what)
{
	unsigned char	*c = p;
	size_t		 k;
	int		 f;

	while (n > 0) {
		if (r->pos == r->len) {
			if ((f = rfill(r)) == -1)
				return -1;
			if (f == 0)
				return rfail(r, "%s: the stream ends inside "
				    "it (truncated)", what);
		}
		k = r->len - r->pos;
		if (k > n)
			k = n;
		if (c != NULL) {
			memcpy(c, r->buf + r->pos, k);
			c += k;
		}
		r->pos += k;
		n -= k;
	}
	return 0;
}

int
sbx_cs_failure(int fd, char *why, size_t whylen)
{
	char	 buf[SBX_CS_FAIL_MAX];
	size_t	 mark = sizeof(SBX_CS_FAIL_MARK) - 1, i, o = 0;
	ssize_t	 n;

	if (lseek(fd, 0, SEEK_SET) == -1)
		return -1;
	do {
		n = read(fd, buf, sizeof(buf));
	} while (n == -1 && errno == EINTR);
	if (n == -1 || lseek(fd, 0, SEEK_SET) == -1)
		return -1;
	if ((size_t)n < mark || memcmp(buf, SBX_CS_FAIL_MARK, mark) != 0)
		return 0;
	/* The reason names paths the payload chose: printable only. */
	for (i = mark; i < (size_t)n && o + 1 < whylen; i++)
		why[o++] = buf[i] >= 0x20 && buf[i] < 0x7f ? buf[i] : '?';
	if (whylen > 0)
		why[o] = '\0';
	return 1;
}

struct sbx_cs_reader *
sbx_cs_open(int fd, char *err, size_t errlen)
{
	struct sbx_cs_reader	*r;
	unsigned char		 h[SBX_CS_HEADER_LEN];

	if ((r = calloc(1, sizeof(*r))) == NULL) {
		seterr(err, errlen, "%s", strerror(errno));
		return NULL;
	}
	r->fd = fd;
	if (rget(r, h, sizeof(h), "length") == -1)
		goto bad;
	if (memcmp(h, SBX_CS_MAGIC, 8) != 0) {
		snprintf(r->err, sizeof(r->err), "header: magic: not a "
		    "changeset stream of version 1");
		goto bad;
	}
	r->count = get32(h + 8);
	if (r->count > SBX_CS_MAX_RECORDS) {
		snprintf(r->err, sizeof(r->err), "header: record count: %u "
		    "above the limit %d", r->count, SBX_CS_MAX_RECORDS);
		goto bad;
	}
	if (get32(h + 12) != 0) {
		snprintf(r->err, sizeof(r->err), "header: reserved: not 0");
		goto bad;
	}
	r->state = 0;
	return r;
bad:
	seterr(err, errlen, "%s", r->err);
	free(r);
	errno = EINVAL;
	return NULL;
}

static void
rec_decode(struct sbx_cs_rec *rec, const unsigned char *p)
{
	rec->kind = p[0];
	rec->base_kind = p[1];
	rec->path_len = get16(p + 2);
	rec->mode = get32(p + 4);
	rec->size = get64(p + 8);
	rec->base_size = get64(p + 16);
	rec->base_ino = get64(p + 24);
	rec->base_dev = get64(p + 32);
	rec->base_mtime_ns = (int64_t)get64(p + 40);
	rec->base_ctime_ns = (int64_t)get64(p + 48);
	rec->base_mode = get32(p + 56);
	memcpy(rec->base_sha256, p + 64, SBX_CS_SHA256_LEN);
}

static int
rend(struct sbx_cs_reader *r)
{
	unsigned char	 h[SBX_CS_RECORD_LEN];
	int		 f;

	if (rget(r, h, sizeof(h), "end record") == -1)
		return -1;
	if (h[0] != SBX_CS_END)
		return rfail(r, "kind: more records than the header's count "
		    "(%u)", r->count);
	if (!allzero(h + 1, sizeof(h) - 1))
		return rfail(r, "fields: must all be zero");
	if (r->pos == r->len && (f = rfill(r)) == -1)
		return -1;
	if (r->pos != r->len)
		return rfail(r, "bytes follow the end record");
	r->state = 1;
	return 0;
}

int
sbx_cs_next(struct sbx_cs_reader *r, struct sbx_cs_rec *rec)
{
	unsigned char	 h[SBX_CS_RECORD_LEN];
	char		 why[256];
	size_t		 k;
	uint32_t	 reserved;

	if (r->state == 1)
		return 0;
	if (r->state == -1) {
		errno = EINVAL;
		return -1;
	}
	/* Skip what was not read, in steps (size is 64-bit). */
	while (r->left > 0) {
		k = r->left > CS_BUFSZ ? CS_BUFSZ : (size_t)r->left;
		if (rget(r, NULL, k, "data") == -1)
			return -1;
		r->left -= k;
	}
	r->cur = r->index + 1;
	if (r->index == r->count)
		return rend(r) == -1 ? -1 : 0;
	if (rget(r, h, sizeof(h), "record header") == -1)
		return -1;
	memset(rec, 0, sizeof(*rec));
	rec_decode(rec, h);
	reserved = get32(h + 60);
	if (rec->kind == SBX_CS_END)
		return rfail(r, "kind: the end record after %u of %u records",
		    r->index, r->count);
	if (reserved != 0)
		return rfail(r, "reserved: not 0");
	if (rec->path_len < 1 || rec->path_len > SBX_CS_PATH_MAX)
		return rfail(r, "path_len: %u is outside 1..%d",
		    rec->path_len, SBX_CS_PATH_MAX);
	if (rget(r, rec->path, rec->path_len, "path") == -1)
		return -1;
	rec->path[rec->path_len] = '\0';
	if (sbx_cs_rec_check(rec, rec->path_len, why, sizeof(why)) == -1 ||
	    order_check(&r->order, rec->path, rec->path_len, rec->kind, why,
	    sizeof(why)) == -1)
		return rfail(r, "%s", why);
	if (rec->kind == SBX_CS_SYMLINK) {
		if (rget(r, rec->target, (size_t)rec->size, "data") == -1)
			return -1;
		rec->target[rec->size] = '\0';
		if (memchr(rec->target, '\0', (size_t)rec->size) != NULL)
			return rfail(r, "data: a symlink's target holds a NUL "
			    "byte");
	} else
		r->left = rec->size;
	r->index++;
	return 1;
}

ssize_t
sbx_cs_read(struct sbx_cs_reader *r, void *p, size_t n)
{
	ssize_t	 got;
	size_t	 k;
	int	 f;

	if (r->state == -1) {
		errno = EINVAL;
		return -1;
	}
	if (r->left == 0 || n == 0)
		return 0;
	if (n > r->left)
		n = (size_t)r->left;
	if (r->pos < r->len) {
		k = r->len - r->pos;
		if (k > n)
			k = n;
		memcpy(p, r->buf + r->pos, k);
		r->pos += k;
		r->left -= k;
		return (ssize_t)k;
	}
	if (n >= sizeof(r->buf)) {
		/* Large reads go straight to the caller's buffer. */
		while ((got = read(r->fd, p, n)) == -1 && errno == EINTR)
			;
		if (got <= 0) {
			rfail(r, got == 0 ? "data: the stream ends inside "
			    "it (truncated)" : "data: read failed");
			return -1;
		}
		r->left -= (uint64_t)got;
		return got;
	}
	if ((f = rfill(r)) <= 0) {
		if (f == 0)
			rfail(r, "data: the stream ends inside it "
			    "(truncated)");
		return -1;
	}
	return sbx_cs_read(r, p, n);
}

uint32_t
sbx_cs_count(const struct sbx_cs_reader *r)
{
	return r->count;
}

const char *
sbx_cs_error(const struct sbx_cs_reader *r)
{
	return r->err;
}

void
sbx_cs_close(struct sbx_cs_reader *r)
{
	free(r);
}
