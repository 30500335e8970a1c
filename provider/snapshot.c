/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * snapshot.c: the provider snapshot and its code digest (interop.md §P2).
 *
 * The code that runs is the whole directory of the entry module, read
 * once into memory: every .mjs file below it, sorted, bounded, and hashed
 * into codeDigest = artifactDigest({externals: [], files: [{path,
 * sha256}, ...]}), byte-identical to the reference's digest so that one
 * allowlist entry means the same bytes to both.  Later runs send these
 * bytes, never the files, so editing the bundle after the load changes
 * nothing that runs (no check-then-use window on the files).
 *
 * Threats and the rules that answer them:
 *  - reading outside the bundle: every open is openat2 beneath the
 *    bundle's directory fd without symlinks (beneath.c), and each entry
 *    is lstat'ed first: symlinks and anything neither a regular file nor
 *    a directory refuse (path-escape), so a fifo cannot block the walk
 *    and a device cannot be read;
 *  - swapping an entry between the lstat and the open: the opened file
 *    must be the same inode as the one examined (path-escape);
 *  - code the linker would serve but the digest would not cover: every
 *    .mjs is captured, imported or not; directories named *.mjs refuse
 *    (invalid-module), and the driver serves only captured paths;
 *  - collisions with names the runtime reserves: the __aiwg_ prefix
 *    refuses (invalid-module);
 *  - resource exhaustion: 20 modules, 256 KiB each, 1 MiB in all
 *    (oversize), and, beyond the reference, PROV_MAX_DEPTH levels and
 *    PROV_MAX_WALK names per walk so a huge or deep tree of inert files
 *    cannot make us spend unbounded memory or descriptors;
 *  - a digest that differs from the bytes the runtime compiles: module
 *    bytes must be strict UTF-8 (invalid-module), so the text node
 *    decodes is exactly the bytes we hashed.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "provider.h"

struct name {
	char			*name;
	struct json_string	 u16;	/* for the UTF-16 code unit order */
};

struct walk {
	struct prov_snapshot	*snap;
	struct prov_error	*err;
	size_t			 seen;	/* names looked at */
};

static int
name_cmp(const void *a, const void *b)
{
	const struct name	*na = a, *nb = b;

	return json_string_compare(&na->u16, &nb->u16);
}

static void
names_free(struct name *v, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].u16.u);
	}
	free(v);
}

/* All names of a directory but "." and "..", sorted as JavaScript sorts. */
static int
read_names(struct walk *w, DIR *d, const char *rel, struct name **vp,
    size_t *np)
{
	struct dirent	*de;
	struct name	*v = NULL;
	size_t		 n = 0, cap = 0, len;
	char		 q[PROV_QUOTE_MAX], path[PROV_PATH_MAX + 1];

	for (;;) {
		errno = 0;
		if ((de = readdir(d)) == NULL) {
			if (errno == 0)
				break;
			prov_quote(q, rel, strlen(rel));
			prov_fail(w->err, PROV_PATH_ESCAPE,
			    "%s: directory cannot be read: %s",
			    *rel == '\0' ? "." : q, strerror(errno));
			goto bad;
		}
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (++w->seen > PROV_MAX_WALK) {
			prov_fail(w->err, PROV_OVERSIZE, "provider directory "
			    "holds more than %d names", PROV_MAX_WALK);
			goto bad;
		}
		if (n == cap) {
			v = xrecallocarray(v, cap, cap == 0 ? 32 : cap * 2,
			    sizeof(*v));
			cap = cap == 0 ? 32 : cap * 2;
		}
		len = strlen(de->d_name);
		/*
		 * The reference reads names as UTF-8 text; a name that is
		 * not UTF-8 becomes a different name there and its lstat
		 * fails, which it refuses as path-escape.  So do we.
		 */
		if (json_string_from_utf8(&v[n].u16, de->d_name, len) == -1) {
			if (prov_path_join(rel, de->d_name, path,
			    sizeof(path)) == -1)
				strlcpy(path, de->d_name, sizeof(path));
			prov_quote(q, path, strlen(path));
			prov_fail(w->err, PROV_PATH_ESCAPE,
			    "%s: name is not valid UTF-8", q);
			goto bad;
		}
		v[n++].name = xstrdup(de->d_name);
	}
	if (n > 0)
		qsort(v, n, sizeof(*v), name_cmp);
	*vp = v;
	*np = n;
	return 0;
 bad:
	names_free(v, n);
	return -1;
}

static int
same_inode(int fd, const struct stat *st, int dir)
{
	struct stat	 now;

	if (fstat(fd, &now) == -1)
		return 0;
	if (dir ? !S_ISDIR(now.st_mode) : !S_ISREG(now.st_mode))
		return 0;
	return now.st_dev == st->st_dev && now.st_ino == st->st_ino;
}

static int
capture(struct walk *w, int dfd, const char *name, const char *path,
    const struct stat *st)
{
	struct prov_snapshot	*snap = w->snap;
	struct prov_module	*m;
	unsigned char		*bytes;
	size_t			 len, bad;
	char			 q[PROV_QUOTE_MAX];
	int			 fd, saved;

	prov_quote(q, path, strlen(path));
	if (snap->nmods == PROV_MAX_FILES)
		return prov_fail(w->err, PROV_OVERSIZE,
		    "%s: provider exceeds %d files", q, PROV_MAX_FILES);
	/* O_NONBLOCK: a fifo swapped in after the lstat cannot block us. */
	if ((fd = open_beneath(dfd, name,
	    O_RDONLY | O_NOFOLLOW | O_NONBLOCK)) == -1)
		return prov_fail(w->err, PROV_PATH_ESCAPE,
		    "%s: cannot be opened: %s", q, strerror(errno));
	if (!same_inode(fd, st, 0)) {
		close(fd);
		return prov_fail(w->err, PROV_PATH_ESCAPE,
		    "%s: changed while the snapshot was taken", q);
	}
	if (read_bounded(fd, PROV_MAX_FILE_BYTES, &bytes, &len) == -1) {
		saved = errno;
		close(fd);
		return prov_fail(w->err, PROV_PATH_ESCAPE,
		    "%s: cannot be read: %s", q, strerror(saved));
	}
	close(fd);
	if (len > PROV_MAX_FILE_BYTES) {
		free(bytes);
		return prov_fail(w->err, PROV_OVERSIZE, "%s: more than "
		    "%d bytes (the per-file limit)", q, PROV_MAX_FILE_BYTES);
	}
	if ((bad = utf8_check(bytes, len)) != len) {
		free(bytes);
		return prov_fail(w->err, PROV_INVALID_MODULE,
		    "%s: not valid UTF-8 (byte offset %zu)", q, bad);
	}
	if (len > PROV_MAX_TOTAL_BYTES - snap->total) {
		free(bytes);
		return prov_fail(w->err, PROV_OVERSIZE, "%s: provider exceeds "
		    "%d bytes in total", q, PROV_MAX_TOTAL_BYTES);
	}
	m = &snap->mods[snap->nmods++];
	m->path = xstrdup(path);
	m->bytes = bytes;
	m->len = len;
	digest_sha256_hex(bytes, len, m->sha256);
	snap->total += len;
	return 0;
}

/* Walk the directory open at dfd (consumed), rel its path in the bundle. */
static int
walk_dir(struct walk *w, int dfd, const char *rel, size_t depth)
{
	DIR		*d;
	struct name	*names = NULL;
	struct stat	 st;
	size_t		 i, n = 0;
	char		 path[PROV_PATH_MAX + 1], q[PROV_QUOTE_MAX];
	int		 fd, r = -1;

	if ((d = fdopendir(dfd)) == NULL) {
		close(dfd);
		prov_quote(q, rel, strlen(rel));
		return prov_fail(w->err, PROV_PATH_ESCAPE,
		    "%s: directory cannot be read: %s",
		    *rel == '\0' ? "." : q, strerror(errno));
	}
	if (read_names(w, d, rel, &names, &n) == -1)
		goto out;
	for (i = 0; i < n; i++) {
		if (prov_path_join(rel, names[i].name, path,
		    sizeof(path)) == -1) {
			prov_quote(q, names[i].name, strlen(names[i].name));
			prov_fail(w->err, PROV_OVERSIZE, "%s: path longer than "
			    "%d bytes", q, PROV_PATH_MAX);
			goto out;
		}
		prov_quote(q, path, strlen(path));
		if (prov_name_reserved(names[i].name)) {
			prov_fail(w->err, PROV_INVALID_MODULE, "%s: the "
			    "\"%s\" prefix is reserved", q,
			    PROV_RESERVED_PREFIX);
			goto out;
		}
		if (fstatat(dirfd(d), names[i].name, &st,
		    AT_SYMLINK_NOFOLLOW) == -1) {
			prov_fail(w->err, PROV_PATH_ESCAPE, "%s: cannot be "
			    "examined: %s", q, strerror(errno));
			goto out;
		}
		if (S_ISLNK(st.st_mode)) {
			prov_fail(w->err, PROV_PATH_ESCAPE,
			    "%s: must not be a symlink", q);
			goto out;
		}
		if (S_ISDIR(st.st_mode)) {
			if (prov_name_module(names[i].name)) {
				prov_fail(w->err, PROV_INVALID_MODULE, "%s: a "
				    "directory must not be named *.mjs", q);
				goto out;
			}
			if (depth + 1 > PROV_MAX_DEPTH) {
				prov_fail(w->err, PROV_OVERSIZE, "%s: nested "
				    "deeper than %d directories", q,
				    PROV_MAX_DEPTH);
				goto out;
			}
			if ((fd = open_beneath(dirfd(d), names[i].name,
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW)) == -1) {
				prov_fail(w->err, PROV_PATH_ESCAPE, "%s: "
				    "cannot be opened: %s", q, strerror(errno));
				goto out;
			}
			if (!same_inode(fd, &st, 1)) {
				close(fd);
				prov_fail(w->err, PROV_PATH_ESCAPE, "%s: "
				    "changed while the snapshot was taken", q);
				goto out;
			}
			if (walk_dir(w, fd, path, depth + 1) == -1)
				goto out;
			continue;
		}
		if (!S_ISREG(st.st_mode)) {
			prov_fail(w->err, PROV_PATH_ESCAPE,
			    "%s: not a regular file or directory", q);
			goto out;
		}
		/* Other regular files are inert: never served, never read. */
		if (!prov_name_module(names[i].name))
			continue;
		if (capture(w, dirfd(d), names[i].name, path, &st) == -1)
			goto out;
	}
	r = 0;
 out:
	names_free(names, n);
	closedir(d);
	return r;
}

static int
module_cmp(const void *a, const void *b)
{
	const struct prov_module	*ma = a, *mb = b;
	struct json_string		 ua, ub;
	int				 r;

	/* Paths were checked as UTF-8 name by name. */
	if (json_string_from_utf8(&ua, ma->path, strlen(ma->path)) == -1 ||
	    json_string_from_utf8(&ub, mb->path, strlen(mb->path)) == -1)
		fatalx("%s: module path is not UTF-8", __func__);
	r = json_string_compare(&ua, &ub);
	free(ua.u);
	free(ub.u);
	return r;
}

static int
entry_check(int rootfd, const char *entry, struct prov_error *err)
{
	struct stat	 st;
	char		 q[PROV_QUOTE_MAX];
	const char	*why;
	int		 fd;

	prov_quote(q, entry, strlen(entry));
	if (!prov_path_module_ok(entry, strlen(entry)))
		return prov_fail(err, PROV_PATH_ESCAPE, "entry module \"%s\": "
		    "not a bundle-relative .mjs path "
		    "(^[a-zA-Z0-9_-]+(/[a-zA-Z0-9_-]+)*\\.mjs$)", q);
	if (fstat(rootfd, &st) == -1 || !S_ISDIR(st.st_mode))
		return prov_fail(err, PROV_PATH_ESCAPE,
		    "bundle root is unavailable");
	if ((fd = open_beneath(rootfd, entry, O_PATH | O_NOFOLLOW)) ==
	    -1) {
		switch (errno) {
		case ELOOP:
			why = "a symlink is on its path";
			break;
		case EXDEV:
			why = "it escapes the bundle root";
			break;
		default:
			why = strerror(errno);
			break;
		}
		return prov_fail(err, PROV_PATH_ESCAPE,
		    "entry module \"%s\": cannot be opened: %s", q, why);
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		close(fd);
		return prov_fail(err, PROV_PATH_ESCAPE,
		    "entry module \"%s\": %s", q, S_ISLNK(st.st_mode) ?
		    "must not be a symlink" : "not a regular file");
	}
	close(fd);
	return 0;
}

int
prov_snapshot_take(int rootfd, const char *entry, struct prov_snapshot *snap,
    struct prov_error *err)
{
	struct walk	 w;
	char		 dir[PROV_PATH_MAX + 1], q[PROV_QUOTE_MAX];
	char		*slash;
	size_t		 i;
	int		 fd;

	memset(snap, 0, sizeof(*snap));
	if (entry_check(rootfd, entry, err) == -1)
		return -1;
	snap->entry = xstrdup(entry);

	/* The provider directory: the entry's own directory, walked whole. */
	strlcpy(dir, entry, sizeof(dir));
	if ((slash = strrchr(dir, '/')) != NULL)
		*slash = '\0';
	else
		dir[0] = '\0';
	if ((fd = open_beneath(rootfd, dir[0] == '\0' ? "." : dir,
	    O_RDONLY | O_DIRECTORY | O_NOFOLLOW)) == -1) {
		prov_quote(q, dir, strlen(dir));
		prov_fail(err, PROV_PATH_ESCAPE, "provider directory \"%s\": "
		    "cannot be opened: %s", q, strerror(errno));
		goto bad;
	}
	memset(&w, 0, sizeof(w));
	w.snap = snap;
	w.err = err;
	if (walk_dir(&w, fd, dir, 0) == -1)
		goto bad;

	qsort(snap->mods, snap->nmods, sizeof(snap->mods[0]), module_cmp);
	for (i = 0; i < snap->nmods; i++)
		if (strcmp(snap->mods[i].path, entry) == 0)
			break;
	if (i == snap->nmods) {
		prov_quote(q, entry, strlen(entry));
		prov_fail(err, PROV_PATH_ESCAPE, "entry module \"%s\": not "
		    "among the captured modules", q);
		goto bad;
	}
	if (prov_code_digest(snap->mods, snap->nmods,
	    snap->code_digest) == -1) {
		prov_fail(err, PROV_INVALID_MODULE, "code digest: %s",
		    strerror(errno));
		goto bad;
	}
	return 0;
 bad:
	prov_snapshot_free(snap);
	return -1;
}

int
prov_code_digest(const struct prov_module *mods, size_t n,
    char out[DIGEST_STR_LEN + 1])
{
	struct json_value	 root, *files, *f;
	size_t			 i;
	int			 r = -1;

	prov_json_object(&root, 2);
	prov_json_array(prov_json_member(&root, 0, "externals"), 0);
	files = prov_json_member(&root, 1, "files");
	prov_json_array(files, n);
	for (i = 0; i < n; i++) {
		f = &files->u.array.v[i];
		prov_json_object(f, 2);
		if (prov_json_string(prov_json_member(f, 0, "path"),
		    mods[i].path, strlen(mods[i].path)) == -1 ||
		    prov_json_string(prov_json_member(f, 1, "sha256"),
		    mods[i].sha256, strlen(mods[i].sha256)) == -1)
			goto out;
	}
	r = digest_json(&root, out);
 out:
	json_value_clear(&root);
	return r;
}

/*
 * Each run makes its own copy of the issued bytes, so nothing a run does
 * (or a concurrent run does) can alter what the next one sends.
 */
void
prov_snapshot_copy(struct prov_snapshot *dst, const struct prov_snapshot *src)
{
	size_t	 i;

	memset(dst, 0, sizeof(*dst));
	dst->entry = src->entry == NULL ? NULL : xstrdup(src->entry);
	for (i = 0; i < src->nmods && i < PROV_MAX_FILES; i++) {
		dst->mods[i].path = xstrdup(src->mods[i].path);
		dst->mods[i].bytes = xmalloc(src->mods[i].len == 0 ? 1 :
		    src->mods[i].len);
		memcpy(dst->mods[i].bytes, src->mods[i].bytes,
		    src->mods[i].len);
		dst->mods[i].len = src->mods[i].len;
		memcpy(dst->mods[i].sha256, src->mods[i].sha256,
		    sizeof(dst->mods[i].sha256));
	}
	dst->nmods = i;
	dst->total = src->total;
	memcpy(dst->code_digest, src->code_digest, sizeof(dst->code_digest));
}

/*
 * Re-digest exactly these bytes (not the hashes stored beside them) and
 * require the digest the load issued: the bytes sent to a run are the
 * bytes that were reviewed, or the run refuses.
 */
int
prov_snapshot_verify(const struct prov_snapshot *snap, const char *expected,
    struct prov_error *err)
{
	struct prov_module	 mods[PROV_MAX_FILES];
	char			 digest[DIGEST_STR_LEN + 1];
	size_t			 i, total = 0;

	if (expected == NULL || !prov_digest_ok(expected))
		return prov_fail(err, PROV_ATTESTATION_MISMATCH,
		    "expected code digest is not a sha256 digest");
	if (snap->nmods == 0 || snap->nmods > PROV_MAX_FILES ||
	    snap->entry == NULL)
		return prov_fail(err, PROV_ATTESTATION_MISMATCH,
		    "snapshot is empty");
	memset(mods, 0, sizeof(mods));
	for (i = 0; i < snap->nmods; i++) {
		mods[i].path = snap->mods[i].path;
		mods[i].len = snap->mods[i].len;
		total += mods[i].len;
		if (mods[i].len > PROV_MAX_FILE_BYTES ||
		    utf8_check(snap->mods[i].bytes, mods[i].len) !=
		    mods[i].len)
			return prov_fail(err, PROV_ATTESTATION_MISMATCH,
			    "snapshot module %zu is out of shape", i);
		digest_sha256_hex(snap->mods[i].bytes, mods[i].len,
		    mods[i].sha256);
	}
	if (total > PROV_MAX_TOTAL_BYTES)
		return prov_fail(err, PROV_ATTESTATION_MISMATCH,
		    "snapshot exceeds %d bytes", PROV_MAX_TOTAL_BYTES);
	if (prov_code_digest(mods, snap->nmods, digest) == -1)
		return prov_fail(err, PROV_ATTESTATION_MISMATCH,
		    "code digest: %s", strerror(errno));
	if (strcmp(digest, expected) != 0)
		return prov_fail(err, PROV_ATTESTATION_MISMATCH,
		    "code does not match its pinned digest (%s, pinned %s)",
		    digest, expected);
	return 0;
}

void
prov_snapshot_free(struct prov_snapshot *snap)
{
	size_t	 i;

	free(snap->entry);
	for (i = 0; i < snap->nmods && i < PROV_MAX_FILES; i++) {
		free(snap->mods[i].path);
		free(snap->mods[i].bytes);
	}
	memset(snap, 0, sizeof(*snap));
}
