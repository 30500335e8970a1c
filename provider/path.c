/*
 * Copyright (c) 2026 The sbx authors
 * SPDX-License-Identifier: ISC
 *
 * path.c: the path rules of interop.md §P1, §P2 and §P5.4 in one place.
 *
 * A module path from a manifest names a file inside the bundle; the
 * pattern admits only [A-Za-z0-9_-] segments joined by '/' with one final
 * extension, so "..", ".", empty segments, absolute paths and backslashes
 * cannot appear and path escapes are refused by shape before any open.
 * (openat2 with RESOLVE_BENEATH refuses them again at open time.)
 */
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "provider.h"

static int
segment_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '_' || c == '-';
}

/* ^[a-zA-Z0-9_-]+(?:/[a-zA-Z0-9_-]+)*\.ext$ over exactly len bytes. */
static int
path_ok(const char *s, size_t len, const char *ext)
{
	size_t	 i, elen = strlen(ext), seg = 0;

	if (len > PROV_PATH_MAX || len < elen + 2)
		return 0;
	if (s[len - elen - 1] != '.' ||
	    memcmp(s + len - elen, ext, elen) != 0)
		return 0;
	for (i = 0; i < len - elen - 1; i++) {
		if (s[i] == '/') {
			if (seg == 0)
				return 0;
			seg = 0;
		} else if (segment_char(s[i]))
			seg++;
		else
			return 0;
	}
	return seg > 0;
}

int
prov_path_module_ok(const char *s, size_t len)
{
	return path_ok(s, len, "mjs");
}

int
prov_path_review_ok(const char *s, size_t len)
{
	return path_ok(s, len, "json");
}

int
prov_name_reserved(const char *name)
{
	return strncmp(name, PROV_RESERVED_PREFIX,
	    sizeof(PROV_RESERVED_PREFIX) - 1) == 0;
}

int
prov_name_module(const char *name)
{
	size_t	 n = strlen(name);

	return n >= 4 && strcmp(name + n - 4, ".mjs") == 0;
}

int
prov_path_join(const char *dir, const char *name, char *out, size_t outsz)
{
	int	 n;

	if (*dir == '\0')
		n = snprintf(out, outsz, "%s", name);
	else
		n = snprintf(out, outsz, "%s/%s", dir, name);
	return n < 0 || (size_t)n >= outsz ? -1 : 0;
}

/*
 * The driver's linker (driver.mjs, resolveSpecifier), byte for byte the
 * same rules: only "./" and "../" specifiers, resolved against the
 * importing module's directory, never above the snapshot root, ending in
 * ".mjs" and never reserved.  Whether the result is in the snapshot is
 * the caller's question.
 */
int
prov_path_resolve(const char *parent, const char *spec, char *out,
    size_t outsz, struct prov_error *err)
{
	char		 q[PROV_QUOTE_MAX], buf[PROV_PATH_MAX + 1];
	const char	*slash, *seg, *end;
	size_t		 n = 0, plen, slen;

	prov_quote(q, spec, strlen(spec));
	if (strncmp(spec, "./", 2) != 0 && strncmp(spec, "../", 3) != 0)
		return prov_fail(err, PROV_INVALID_MODULE, "import \"%s\": "
		    "bare and external imports are forbidden", q);
	slash = strrchr(parent, '/');
	plen = slash == NULL ? 0 : (size_t)(slash - parent) + 1;
	slen = strlen(spec);
	if (plen + slen >= sizeof(buf))
		return prov_fail(err, PROV_INVALID_MODULE, "import \"%s\": "
		    "path longer than %d bytes", q, PROV_PATH_MAX);
	memcpy(buf, parent, plen);
	memcpy(buf + plen, spec, slen + 1);

	out[0] = '\0';
	for (seg = buf; *seg != '\0'; seg = *end == '\0' ? end : end + 1) {
		if ((end = strchr(seg, '/')) == NULL)
			end = seg + strlen(seg);
		if (end == seg || (end - seg == 1 && seg[0] == '.'))
			continue;
		if (end - seg == 2 && seg[0] == '.' && seg[1] == '.') {
			if (n == 0)
				return prov_fail(err, PROV_INVALID_MODULE,
				    "import \"%s\": escapes the snapshot", q);
			while (n > 0 && out[n - 1] != '/')
				n--;
			if (n > 0)
				n--;		/* the '/' before it */
			out[n] = '\0';
			continue;
		}
		if (n + (n > 0) + (size_t)(end - seg) + 1 > outsz)
			return prov_fail(err, PROV_INVALID_MODULE,
			    "import \"%s\": path too long", q);
		if (n > 0)
			out[n++] = '/';
		memcpy(out + n, seg, (size_t)(end - seg));
		n += (size_t)(end - seg);
		out[n] = '\0';
	}
	if (!prov_name_module(out))
		return prov_fail(err, PROV_INVALID_MODULE, "import \"%s\": "
		    "provider modules must be relative .mjs files", q);
	if (prov_name_reserved(out) || strstr(out, "/" PROV_RESERVED_PREFIX))
		return prov_fail(err, PROV_INVALID_MODULE, "import \"%s\": "
		    "names a reserved path", q);
	return 0;
}
